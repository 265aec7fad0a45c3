package peers

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// all returns every kernel under comparison: segdist's assembly paths this
// CPU has, then the peers this build has (docs/performance.md gives the
// tags).
// withVariants adds the peers' slower alternatives.
func all(withVariants bool) []Impl {
	var out []Impl
	for _, isa := range []string{"avx512", "avx2"} {
		if k, ok := kernel.Lookup(isa); ok {
			out = append(out, Impl{Name: "segdist-" + isa, Closest: k.BatchClosest})
		}
	}
	out = append(out, Impls()...)
	if withVariants {
		out = append(out, Variants()...)
	}
	return out
}

// randomPairs fills n pairs with coordinates uniform in [0, 10).
func randomPairs(r *rand.Rand, n int) *soa.Pairs {
	p := soa.NewPairs(n)
	for i := range n {
		var q [4][3]float32
		for j := range q {
			for k := range q[j] {
				q[j][k] = float32(r.Float64() * 10)
			}
		}
		p.Set(i, q[0], q[1], q[2], q[3])
	}
	return p
}

// trickyPair returns a pair of one of the edge categories, chosen by r.
func trickyPair(r *rand.Rand) (a, b, c, d [3]float32) {
	v := func(lo, hi float64) [3]float32 {
		return [3]float32{float32(lo + r.Float64()*(hi-lo)), float32(lo + r.Float64()*(hi-lo)), float32(lo + r.Float64()*(hi-lo))}
	}
	scale := func(x [3]float32, k float32) [3]float32 { return [3]float32{x[0] * k, x[1] * k, x[2] * k} }
	add := func(x, y [3]float32) [3]float32 { return [3]float32{x[0] + y[0], x[1] + y[1], x[2] + y[2]} }
	a, b, c, d = v(-10, 10), v(-10, 10), v(-10, 10), v(-10, 10)
	switch r.IntN(16) {
	case 0: // segment 1 is a point
		b = a
	case 1: // segment 2 is a point
		d = c
	case 2: // both points
		b, d = a, c
	case 3: // segment 2 a point above A in every coordinate: t is
		// clamp01(-0) (p.u sums three -0 products), whose sign depends on
		// the operand order of VMINPS/VMAXPS.
		a = v(-10, -1)
		c = v(1, 10)
		d = c
	case 4: // parallel
		m := add(b, scale(a, -1))
		d = add(c, scale(m, float32(r.Float64()*4-2)))
	case 5: // collinear
		m := add(b, scale(a, -1))
		c = add(a, scale(m, float32(r.Float64()*3-1)))
		d = add(a, scale(m, float32(r.Float64()*3-1)))
	case 6: // shared endpoint
		c = b
	case 7: // a NaN coordinate
		pts := []*[3]float32{&a, &b, &c, &d}
		pts[r.IntN(4)][r.IntN(3)] = float32(math.NaN())
	case 8: // an infinite coordinate
		pts := []*[3]float32{&a, &b, &c, &d}
		pts[r.IntN(4)][r.IntN(3)] = float32(math.Inf(1 - 2*r.IntN(2)))
	case 9: // overflowing squared distance
		a, b = scale(a, 1e19), scale(b, 1e19)
		c, d = scale(c, -1e19), scale(d, -1e19)
	case 10: // huge but finite
		a, b, c, d = scale(a, 1e17), scale(b, 1e17), scale(c, 1e17), scale(d, 1e17)
	case 11: // tiny
		a, b, c, d = scale(a, 1e-30), scale(b, 1e-30), scale(c, 1e-30), scale(d, 1e-30)
	case 12: // signed zeros everywhere
		z := func() float32 { return float32(math.Copysign(0, float64(1-2*r.IntN(2)))) }
		a, b, c, d = [3]float32{z(), z(), z()}, [3]float32{z(), z(), z()}, [3]float32{z(), z(), z()}, [3]float32{z(), z(), z()}
	case 13: // segment 1 a point, C = D above it in every coordinate
		a = v(-10, -1)
		b = a
		c = v(1, 10)
		d = c
	case 14: // |u|^2 exactly 2^-126, the smallest length that is not zero
		// (recipOrZero's >= compare)
		c = [3]float32{0x1p-70, -0x1p-70, 0}
		d = c
		d[r.IntN(3)] += float32(math.Copysign(0x1p-63, float64(1-2*r.IntN(2))))
		if r.IntN(2) == 0 {
			a, b = scale(a, 0x1p-60), scale(b, 0x1p-60)
		}
	case 15: // |u|^2 subnormal or just below 2^-126: counts as zero length
		d = add(c, [3]float32{0x1p-64, float32(r.Float64()) * 0x1p-63, 0})
	}
	return a, b, c, d
}

// mixedPairs returns n pairs: random ones with about a third tricky ones.
func mixedPairs(r *rand.Rand, n int) *soa.Pairs {
	p := randomPairs(r, n)
	for i := range n {
		if r.IntN(3) == 0 {
			a, b, c, d := trickyPair(r)
			p.Set(i, a, b, c, d)
		}
	}
	return p
}

// offsetPairs copies p into twelve separate slices that start one element
// into their allocation (no alignment), the way a user's own storage might.
func offsetPairs(p *soa.Pairs) *soa.Pairs {
	cp := func(s []float32) []float32 { return append(make([]float32, 1, len(s)+1), s...)[1:] }
	return &soa.Pairs{AX: cp(p.AX), AY: cp(p.AY), AZ: cp(p.AZ), BX: cp(p.BX), BY: cp(p.BY), BZ: cp(p.BZ),
		CX: cp(p.CX), CY: cp(p.CY), CZ: cp(p.CZ), DX: cp(p.DX), DY: cp(p.DY), DZ: cp(p.DZ)}
}

// guarded returns results of length n whose slices are followed, in the
// same allocation, by 32 sentinel values, and the function that checks
// they were not overwritten.
func guarded(n int) (*soa.Results, func(t *testing.T, name string)) {
	const pad = 32
	sentinel := math.Float32frombits(0x7F812345)
	mk := func() []float32 {
		s := make([]float32, n+pad)
		for i := n; i < len(s); i++ {
			s[i] = sentinel
		}
		return s[:n]
	}
	r := &soa.Results{S: mk(), T: mk(), Dist2: mk()}
	return r, func(t *testing.T, name string) {
		t.Helper()
		for k, s := range [][]float32{r.S, r.T, r.Dist2} {
			for i, v := range s[n : n+pad] {
				if math.Float32bits(v) != math.Float32bits(sentinel) {
					t.Fatalf("%s: n=%d: output %d written past the end at %d", name, n, k, n+i)
				}
			}
		}
	}
}

func TestPeersBitIdentical(t *testing.T) {
	ref, ok := kernel.Lookup("go")
	if !ok {
		t.Fatal(`kernel.Lookup("go") failed`)
	}
	impls := all(true)
	if len(impls) == 0 {
		t.Skip("no SIMD kernel on this CPU and build")
	}
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.Name
	}
	t.Logf("checking %v against the go path", names)

	r := rand.New(rand.NewPCG(7, 11))
	var sizes []int
	for n := 1; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 4097)
	var zeroT, nanLanes int
	for _, n := range sizes {
		for rep := range 3 {
			var src *soa.Pairs
			switch rep {
			case 0:
				src = randomPairs(r, n)
			default:
				src = mixedPairs(r, n)
			}
			if rep == 2 {
				src = offsetPairs(src)
			}
			want := soa.NewResults(n)
			ref.BatchClosest(want, src)
			for i := range n {
				if want.T[i] == 0 {
					zeroT++
				}
				if math.IsNaN(float64(want.Dist2[i])) {
					nanLanes++
				}
			}
			for _, im := range impls {
				got, check := guarded(n)
				im.Closest(got, src)
				check(t, im.Name)
				for i := range n {
					w := [3]uint32{math.Float32bits(want.S[i]), math.Float32bits(want.T[i]), math.Float32bits(want.Dist2[i])}
					g := [3]uint32{math.Float32bits(got.S[i]), math.Float32bits(got.T[i]), math.Float32bits(got.Dist2[i])}
					if g != w {
						q := src.Get(i)
						t.Fatalf("%s: n=%d rep=%d lane %d %v: got S,T,Dist2 bits %08x, want %08x (go path)",
							im.Name, n, rep, i, q, g, w)
					}
				}
			}
		}
	}
	// The cases that catch a wrong clamp operand order or a missing NaN
	// canonicalisation must actually occur.
	if zeroT == 0 || nanLanes == 0 {
		t.Fatalf("edge cases not exercised: %d lanes with T = ±0, %d NaN lanes", zeroT, nanLanes)
	}
	t.Logf("%d lanes with T = ±0, %d NaN lanes", zeroT, nanLanes)
}

// benchData caches one batch per size, shared by every impl.
var benchData = map[int]*soa.Pairs{}

func pairsFor(n int) *soa.Pairs {
	if p, ok := benchData[n]; ok {
		return p
	}
	p := randomPairs(rand.New(rand.NewPCG(1, 2)), n)
	benchData[n] = p
	return p
}

var noYield = flag.Bool("peers.noyield", false,
	"do not call runtime.Gosched between batches (shows the sysmon P-retake cost of back-to-back cgo calls)")

// benchImpls runs every impl on the same batches of n = 4096 and 2^20
// random pairs.
//
// Every impl's loop yields (runtime.Gosched) after about 2^18 pairs of
// work, about 0.3 ms, which costs well under 0.1%. Without it the C peer
// measures about 1.5x slower than it is, for a reason that has nothing to
// do with its code: when one goroutine runs for more than 10 ms without
// being rescheduled (forcePreemptNS) and makes cgo calls back to back,
// Go 1.26's sysmon retakes its P during a cgo call at every tick
// (sysretake in runtime.retake) and hands it to another thread, so the
// pinned core does ~18,000 context switches a second (perf stat). A real
// caller (one batch per physics step) is rescheduled far more often. Run
// with -peers.noyield to see the effect.
func benchImpls(b *testing.B, impls []Impl) {
	for _, n := range []int{4096, 1 << 20} {
		src := pairsFor(n)
		dst := soa.NewResults(n)
		yieldEvery := max(1, (1<<18)/n)
		for _, im := range impls {
			b.Run(fmt.Sprintf("impl=%s/n=%d", im.Name, n), func(b *testing.B) {
				k := 0
				for b.Loop() {
					im.Closest(dst, src)
					if k++; k == yieldEvery && !*noYield {
						runtime.Gosched()
						k = 0
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pair")
			})
		}
	}
}

// BenchmarkPeers runs segdist's assembly paths and the peers this build
// has on the same random pairs in a 10-cube: compare with
// benchstat -col /impl.
func BenchmarkPeers(b *testing.B) { benchImpls(b, all(false)) }

// BenchmarkVariants runs the peers' slower alternatives (for example the
// one-group-per-iteration C loop) beside the chosen ones.
func BenchmarkVariants(b *testing.B) {
	if len(Variants()) == 0 {
		b.Skip("no peer variants in this build")
	}
	benchImpls(b, append(append([]Impl{}, Impls()...), Variants()...))
}

var sweepFile = flag.String("peers.sweep", "",
	"append to this file a JSON row per peer and batch size (the rows of go run ./bench -sweep -json), for make plot")

// sweepSizes are go run ./bench -sweep's batch sizes.
var sweepSizes = []int{16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20}

// TestPeersSweep times every peer of this build (not segdist's own paths,
// which go run ./bench -sweep times) at the sweep's batch sizes and
// appends their rows to -peers.sweep; it is skipped without the flag.
// Median of 7 repetitions of at least 20 ms each, yielding as the
// benchmarks do.
func TestPeersSweep(t *testing.T) {
	if *sweepFile == "" {
		t.Skip("no -peers.sweep file")
	}
	f, err := os.OpenFile(*sweepFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, n := range sweepSizes {
		src, dst := randomPairs(rand.New(rand.NewPCG(7, uint64(n))), n), soa.NewResults(n)
		for _, im := range Impls() {
			reps := make([]float64, 7)
			for i := range reps {
				passes := 0
				start := time.Now()
				for time.Since(start) < 20*time.Millisecond {
					im.Closest(dst, src)
					if passes++; passes%max(1, (1<<18)/n) == 0 {
						runtime.Gosched()
					}
				}
				reps[i] = float64(time.Since(start).Nanoseconds()) / float64(passes*n)
			}
			slices.Sort(reps)
			row := map[string]any{"isa": im.Name, "kernel": "closest", "pairs": n, "ns_per_pair": reps[len(reps)/2], "precision": "float32"}
			if err := enc.Encode(row); err != nil {
				t.Fatal(err)
			}
		}
	}
}
