package kernel_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// laidOut returns the axes of the indexed pairs as a soa.Pairs (capsule
// I's axis as segment 1): what BatchClosestIndexed must equal.
func laidOut[F soa.Float](caps soa.CapsulesOf[F], pairs *soa.IndexPairs) *soa.PairsOf[F] {
	p := &soa.PairsOf[F]{}
	for k := range pairs.Len() {
		c1, c2 := caps[pairs.I[k]], caps[pairs.J[k]]
		p.Append(c1.A, c1.B, c2.A, c2.B)
	}
	return p
}

// TestClosestIndexed checks BatchClosestIndexed and BatchClosestIndexed64
// on every path against BatchClosest(64) of the go path on the same axes
// laid out, bit for bit: every size up to 40 and a large one, a scene with
// every capsule category and a NaN capsule, float32 and float64.
func TestClosestIndexed(t *testing.T) {
	caps, all := ctScene(ctSeed, 60, 700, true)
	caps64, all64 := contact64Scene(85, 700)
	goK := lookup(t, "go")
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, m := range append(ctSizes(40), all.Len()) {
			pairs := &soa.IndexPairs{I: all.I[:m], J: all.J[:m]}
			src := laidOut(caps, pairs)
			want, got := soa.NewResults(m), soa.NewResults(m)
			goK.BatchClosest(want, src)
			k.BatchClosestIndexed(got, caps, pairs)
			checkSame(t, fmt.Sprintf("m=%d", m), src, got, want)

			m64 := min(m, all64.Len())
			pairs64 := &soa.IndexPairs{I: all64.I[:m64], J: all64.J[:m64]}
			src64 := laidOut(caps64, pairs64)
			want64, got64 := soa.NewResults64(m64), soa.NewResults64(m64)
			goK.BatchClosest64(want64, src64)
			k.BatchClosestIndexed64(got64, caps64, pairs64)
			checkSame64(t, fmt.Sprintf("m=%d float64", m64), src64, got64, want64)
		}
		dst := soa.NewResults(all.Len())
		if a := testing.AllocsPerRun(10, func() { k.BatchClosestIndexed(dst, caps, all) }); a != 0 {
			t.Errorf("BatchClosestIndexed: %v allocations", a)
		}
	})
}

// TestClosestIndexedChecks: an index out of range (at the first, a middle
// and the last position, of I and of J) and every mismatched length panic
// with a message naming it, before anything is written; an empty batch
// does nothing.
func TestClosestIndexedChecks(t *testing.T) {
	caps, pairs := ctScene(ctSeed, 20, 33, false)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, which := range []string{"I", "J"} {
			for _, pos := range []int{0, 16, 32} {
				p := &soa.IndexPairs{I: append([]uint32(nil), pairs.I...), J: append([]uint32(nil), pairs.J...)}
				idx := p.I
				if which == "J" {
					idx = p.J
				}
				idx[pos] = uint32(caps.Len())
				dst := soa.NewResults(p.Len())
				for i := range dst.S {
					dst.S[i] = -7
				}
				msg, ok := panicMessage(func() { k.BatchClosestIndexed(dst, caps, p) })
				want := fmt.Sprintf("pairs.%s[%d] = %d", which, pos, caps.Len())
				if !ok || !strings.Contains(msg, want) {
					t.Fatalf("%s: panicked %v with %q, want %q", want, ok, msg, want)
				}
				for i, s := range dst.S {
					if s != -7 {
						t.Fatalf("%s: dst.S[%d] written before the panic", want, i)
					}
				}
			}
		}
		for _, name := range []string{"pairs.J", "dst.S", "dst.T", "dst.Dist2"} {
			p := &soa.IndexPairs{I: pairs.I, J: pairs.J}
			dst := soa.NewResults(p.Len())
			switch name {
			case "pairs.J":
				p.J = p.J[:len(p.J)-1]
			case "dst.S":
				dst.S = dst.S[:1]
			case "dst.T":
				dst.T = dst.T[:1]
			case "dst.Dist2":
				dst.Dist2 = append(dst.Dist2, 0)
			}
			if msg, ok := panicMessage(func() { k.BatchClosestIndexed(dst, caps, p) }); !ok || !strings.Contains(msg, name) {
				t.Fatalf("short %s: panicked %v with %q", name, ok, msg)
			}
		}
		k.BatchClosestIndexed(soa.NewResults(0), nil, soa.NewIndexPairs(0))
	})
	if msg, ok := panicMessage(func() {
		kernel.BatchClosestIndexed64(soa.NewResults64(1), nil, &soa.IndexPairs{I: []uint32{0}, J: []uint32{0}})
	}); !ok || !strings.Contains(msg, "pairs.I[0] = 0") {
		t.Errorf("no capsules, one pair: panicked %v with %q", ok, msg)
	}
}

// ExampleBatchClosestIndexed: the closest points of capsule axes by
// index, without laying the pairs out first.
func ExampleBatchClosestIndexed() {
	caps := soa.NewCapsules(0)
	caps.Append([3]float32{0, 0, 0}, [3]float32{4, 0, 0}, 0.5)
	caps.Append([3]float32{1, 1, -2}, [3]float32{1, 1, 2}, 0.5)
	pairs := soa.NewIndexPairs(0)
	pairs.Append(0, 1)
	dst := soa.NewResults(pairs.Len())
	kernel.BatchClosestIndexed(dst, caps, pairs)
	fmt.Println(dst.S[0], dst.T[0], math.Sqrt(float64(dst.Dist2[0])))
	// Output: 0.25 0.5 1
}
