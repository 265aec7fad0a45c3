package kernel_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// bitSizes are the batch sizes of the bit-identity tests: every size up to
// 100 (every tail length of both vector widths, several groups) and the
// sizes around a page of pairs.
func bitSizes() []int {
	var ns []int
	for n := range 101 {
		ns = append(ns, n)
	}
	return append(ns, 4095, 4096, 4097)
}

// TestBitIdenticalSizes checks that every path returns exactly the bits of
// the pure-Go path for every size, on windows of adversarial pairs of all
// categories.
func TestBitIdenticalSizes(t *testing.T) {
	all := pool(21, 4097+200)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, n := range bitSizes() {
			off := (n * 37) % (len(all) - n + 1)
			src := soa.FromPairs(all[off : off+n])
			want := goResults(t, src)
			got := soa.NewResults(n)
			k.BatchClosest(got, src)
			checkSame(t, "n="+strconv.Itoa(n), src, got, want)
		}
	})
}

// TestBitIdenticalNaNLanes scatters NaN (any payload) and ±Inf coordinates
// among finite lanes: those lanes must be the canonical NaN and every
// other lane exactly what the clean batch gives; on every path, including
// the first and last lanes (vector tails).
func TestBitIdenticalNaNLanes(t *testing.T) {
	all := pool(22, 600)
	nf := verify.NonFinite()
	sizes := []int{1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 100, 257}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, n := range sizes {
			clean := soa.FromPairs(all[:n])
			want := goResults(t, clean)
			dirty := soa.FromPairs(all[:n])
			bad := map[int]bool{}
			for j, i := 0, 0; i < n; j, i = j+1, i+1+j%5 {
				p := verify.WithCoord(all[i], (j*5)%12, nf[j%len(nf)])
				dirty.Set(i, p.A, p.B, p.C, p.D)
				bad[i] = true
			}
			last := verify.WithCoord(all[n-1], 11, nf[0])
			dirty.Set(n-1, last.A, last.B, last.C, last.D)
			bad[n-1] = true
			got := soa.NewResults(n)
			k.BatchClosest(got, dirty)
			for i := range n {
				if bad[i] {
					if !isCanonicalNaN(got, i) {
						t.Fatalf("n=%d lane %d has a non-finite coordinate (%+v): got %#08x %#08x %#08x, want canonical NaN %#08x",
							n, i, dirty.Get(i), math.Float32bits(got.S[i]), math.Float32bits(got.T[i]),
							math.Float32bits(got.Dist2[i]), verify.CanonicalNaNBits)
					}
					continue
				}
				if math.Float32bits(got.S[i]) != math.Float32bits(want.S[i]) ||
					math.Float32bits(got.T[i]) != math.Float32bits(want.T[i]) ||
					math.Float32bits(got.Dist2[i]) != math.Float32bits(want.Dist2[i]) {
					t.Fatalf("n=%d lane %d (finite, between NaN lanes): got %v %v %v, want %v %v %v as in the clean batch",
						n, i, got.S[i], got.T[i], got.Dist2[i], want.S[i], want.T[i], want.Dist2[i])
				}
			}
		}
	})
}

// TestBitIdenticalClosest checks that BatchClosest (package level and on
// every path) gives, lane by lane, the bits of Closest.
func TestBitIdenticalClosest(t *testing.T) {
	all := pool(23, 4097)
	var sizes []int
	for n := range 66 {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 4097)
	check := func(t *testing.T, batch func(*soa.Results, *soa.Pairs)) {
		for _, n := range sizes {
			src := soa.FromPairs(all[:n])
			got := soa.NewResults(n)
			batch(got, src)
			for i, p := range all[:n] {
				s, tt, d2 := kernel.Closest(p.A, p.B, p.C, p.D)
				if math.Float32bits(got.S[i]) != math.Float32bits(s) || math.Float32bits(got.T[i]) != math.Float32bits(tt) ||
					math.Float32bits(got.Dist2[i]) != math.Float32bits(d2) {
					t.Fatalf("n=%d lane %d: BatchClosest %v %v %v, Closest %v %v %v for %+v",
						n, i, got.S[i], got.T[i], got.Dist2[i], s, tt, d2, p)
				}
			}
		}
	}
	t.Run("package", func(t *testing.T) { check(t, kernel.BatchClosest) })
	forEachPath(t, func(t *testing.T, k kernel.Kernel) { check(t, k.BatchClosest) })
}

// TestBitIdenticalUnaligned builds batches from separate allocations whose
// slices start 1 to 15 float32s into their arrays (no 16-, 32- or 64-byte
// alignment, no padding after the last element): results must be the
// same bits as from an aligned soa.NewPairs batch.
func TestBitIdenticalUnaligned(t *testing.T) {
	all := pool(24, 1100)
	sizes := []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 1025}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for j, n := range sizes {
			aligned := soa.FromPairs(all[:n])
			want := goResults(t, aligned)
			off := 1 + j%15
			src := verify.Separate(all[:n], off)
			got := verify.NewSeparateResults(n, off)
			k.BatchClosest(got, src)
			checkSame(t, "n="+strconv.Itoa(n)+" offset="+strconv.Itoa(off), src, got, want)
		}
	})
}

// TestStreamOnly checks the memory baseline's documented outputs on every
// path (S = AX+BX+CX+DX, T and Dist2 the same over Y and Z).
func TestStreamOnly(t *testing.T) {
	all := pool(25, 300)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, n := range []int{0, 1, 15, 16, 17, 33, 300} {
			src := verify.Separate(all[:n], 3)
			got := soa.NewResults(n)
			k.StreamOnly(got, src)
			for i, p := range all[:n] {
				for c, out := range []float32{got.S[i], got.T[i], got.Dist2[i]} {
					want := ((p.A[c] + p.B[c]) + p.C[c]) + p.D[c]
					if math.Float32bits(out) != math.Float32bits(want) {
						t.Fatalf("n=%d lane %d output %d: %v, want %v", n, i, c, out, want)
					}
				}
			}
		}
	})
}

// TestBitIdenticalLarge covers the large-batch loops: prefetching from
// 16K lanes (where asm.PrefetchInputs asks for it: both settings), and
// from 2^18 lanes the non-temporal stores, taken only when every output
// stream is 64-byte aligned (soa.NewResults) and never when one is not
// (an offset slice): both against the pure-Go path.
func TestBitIdenticalLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large batches: skipped with -short")
	}
	const n = 1<<18 + 37
	all := pool(26, 1000)
	ps := make([]soa.Pair, n)
	for i := range ps {
		ps[i] = all[i%len(all)]
	}
	aligned := soa.FromPairs(ps)
	want := goResults(t, aligned)
	forEachPrefetch(t, func(t *testing.T) {
		forEachPath(t, func(t *testing.T, k kernel.Kernel) {
			got := soa.NewResults(n)
			k.BatchClosest(got, aligned)
			checkSame(t, "aligned outputs", aligned, got, want)
			off := verify.NewSeparateResults(n, 5)
			k.BatchClosest(off, aligned)
			checkSame(t, "offset outputs", aligned, off, want)
		})
	})
}

// TestBitIdenticalNaNLanesLarge is TestBitIdenticalNaNLanes past the
// prefetch (16K lanes) and non-temporal-store (2^18 lanes) thresholds,
// prefetching or not, with aligned and offset outputs, in float32 and
// float64: the AVX-512 and AVX2 kernels leave the canonical NaN of those
// lanes to their Go adapter (gen/amd64, Bodies.DeferOverrides) in every loop, and
// it must be there, with every other lane untouched, on every path.
func TestBitIdenticalNaNLanesLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large batches: skipped with -short")
	}
	all := pool(27, 1000)
	nf := verify.NonFinite()
	for _, n := range []int{1<<14 + 5, 1<<18 + 37} {
		ps := make([]soa.Pair, n)
		for i := range ps {
			ps[i] = all[i%len(all)]
		}
		for j, i := 0, 3; i < n; j, i = j+1, i+97+j%13 {
			ps[i] = verify.WithCoord(ps[i], (j*5)%12, nf[j%len(nf)])
		}
		ps[n-1] = verify.WithCoord(ps[n-1], 11, nf[0])
		src := soa.FromPairs(ps)
		want := goResults(t, src)
		src64 := verify.WidenPairs(src)
		want64 := spec64(src64)
		what := "n=" + strconv.Itoa(n)
		t.Run(what, func(t *testing.T) {
			forEachPrefetch(t, func(t *testing.T) {
				forEachPath(t, func(t *testing.T, k kernel.Kernel) {
					got := soa.NewResults(n)
					k.BatchClosest(got, src)
					checkSame(t, what+" aligned outputs", src, got, want)
					off := verify.NewSeparateResults(n, 5)
					k.BatchClosest(off, src)
					checkSame(t, what+" offset outputs", src, off, want)
					got64 := soa.NewResults64(n)
					k.BatchClosest64(got64, src64)
					checkSame64(t, what+" float64", src64, got64, want64)
				})
			})
		})
	}
}
