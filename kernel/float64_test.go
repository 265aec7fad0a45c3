package kernel_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// The float64 kernels: every path against fallback.ClosestLane64 and
// fallback.ClosestPointLane64 bit for bit, the golden hash, non-finite
// lanes, unaligned storage, lengths, allocations.

// pool64 returns n float64 pairs of every category of verify.Categories64,
// shuffled, with a few special values scattered in (signed zeros,
// subnormals, the range edge).
func pool64(seed uint64, n int) []soa.Pair64 {
	cats := verify.Categories64()
	per := (n + len(cats) - 1) / len(cats)
	var ps []soa.Pair64
	for k, c := range cats {
		r := verify.NewRand(seed, uint64(k))
		for range per {
			ps = append(ps, c.Gen64(r))
		}
	}
	r := verify.NewRand(seed, 1000)
	r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	specials := []float64{0, math.Copysign(0, -1), 5e-324, 0x1p-1022, 1e150, -1e150}
	for i := 0; i < len(ps); i += 7 {
		ps[i].B[i%3] = specials[i%len(specials)]
	}
	return ps[:n]
}

// spec64 returns fallback's float64 results for src.
func spec64(src *soa.Pairs64) *soa.Results64 {
	n := src.Len()
	res := soa.NewResults64(n)
	for i := range n {
		p := src.Get(i)
		res.S[i], res.T[i], res.Dist2[i] = fallback.ClosestLane64(p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2],
			p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2])
	}
	return res
}

// checkSame64 fails at the first lane whose S, T or Dist2 differ in any bit.
func checkSame64(t *testing.T, what string, src *soa.Pairs64, got, want *soa.Results64) {
	t.Helper()
	for i := range want.S {
		g := [3]float64{got.S[i], got.T[i], got.Dist2[i]}
		w := [3]float64{want.S[i], want.T[i], want.Dist2[i]}
		for j := range g {
			if math.Float64bits(g[j]) != math.Float64bits(w[j]) {
				t.Fatalf("%s: lane %d of %d differs: got %v, want %v (output %d: %#016x, want %#016x) for %+v",
					what, i, len(want.S), g, w, j, math.Float64bits(g[j]), math.Float64bits(w[j]), src.Get(i))
			}
		}
	}
}

// separate64 copies ps into twelve separate allocations starting off
// float64s into their arrays, and makes results likewise.
func separate64(ps []soa.Pair64, off int) (*soa.Pairs64, *soa.Results64) {
	n := len(ps)
	mk := func() []float64 { return make([]float64, n+off)[off:] }
	src := &soa.Pairs64{AX: mk(), AY: mk(), AZ: mk(), BX: mk(), BY: mk(), BZ: mk(),
		CX: mk(), CY: mk(), CZ: mk(), DX: mk(), DY: mk(), DZ: mk()}
	for i, q := range ps {
		src.Set(i, q.A, q.B, q.C, q.D)
	}
	return src, &soa.Results64{S: mk(), T: mk(), Dist2: mk()}
}

// TestBitIdentical64 checks BatchClosest64 on every path against the
// specification: every size up to 100 and around 4,096 (all tails of 2, 4
// and 8 lanes), in soa storage and in separate allocations one float64
// off alignment.
func TestBitIdentical64(t *testing.T) {
	all := pool64(61, 4097+200)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, n := range bitSizes() {
			off := (n * 37) % (len(all) - n + 1)
			ps := all[off : off+n]
			src := soa.FromPairs64(ps)
			want := spec64(src)
			got := soa.NewResults64(n)
			k.BatchClosest64(got, src)
			checkSame64(t, fmt.Sprintf("n=%d", n), src, got, want)
			if n%5 == 1 {
				s, r := separate64(ps, 1)
				k.BatchClosest64(r, s)
				checkSame64(t, fmt.Sprintf("n=%d unaligned", n), s, r, want)
			}
		}
	})
}

// TestNaNLanes64 scatters NaN and ±Inf coordinates among finite lanes:
// those lanes are the canonical NaN 0x7FF8000000000000 in S, T and Dist2,
// every other lane is what the clean batch gives, on every path.
func TestNaNLanes64(t *testing.T) {
	all := pool64(62, 300)
	bad := []float64{math.NaN(), math.Float64frombits(0x7FF0000000000001), math.Float64frombits(0xFFF8000000000123), math.Inf(1), math.Inf(-1)}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 257} {
			clean := soa.FromPairs64(all[:n])
			want := spec64(clean)
			dirty := soa.FromPairs64(all[:n])
			isBad := map[int]bool{}
			for j, i := 0, 0; i < n; j, i = j+1, i+1+j%4 {
				coords := [][]float64{dirty.AX, dirty.AY, dirty.AZ, dirty.BX, dirty.BY, dirty.BZ, dirty.CX, dirty.CY, dirty.CZ, dirty.DX, dirty.DY, dirty.DZ}
				coords[(j*5)%12][i] = bad[j%len(bad)]
				isBad[i] = true
			}
			got := soa.NewResults64(n)
			k.BatchClosest64(got, dirty)
			for i := range n {
				g := [3]float64{got.S[i], got.T[i], got.Dist2[i]}
				w := [3]float64{want.S[i], want.T[i], want.Dist2[i]}
				for j := range g {
					wb := math.Float64bits(w[j])
					if isBad[i] {
						wb = 0x7FF8000000000000
					}
					if math.Float64bits(g[j]) != wb {
						t.Fatalf("n=%d lane %d (bad %v) output %d = %#016x, want %#016x", n, i, isBad[i], j, math.Float64bits(g[j]), wb)
					}
				}
			}
		}
	})
}

// golden64Hash pins the bits of the float64 specification on a fixed
// batch (every category of Categories64, specials included) on every path
// and GOARCH. If it changes, ClosestLane64's operation order changed (or
// the generators did): update it only on purpose, together with the
// assembly; print the new value with go test ./kernel -run Golden64 -v.
const golden64Hash = "c5823f0d9f96b0291590bac1b84c43b9d271e5b14f0acadca5c672334d09eae1"

func hash64(r *soa.Results64) string {
	h := sha256.New()
	var b [8]byte
	for i := range r.S {
		for _, x := range []float64{r.S[i], r.T[i], r.Dist2[i]} {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// golden64Pairs is the fixed float64 batch of TestGolden64, the same on
// every platform: the generators' float64 arithmetic may be fused into FMA
// on some (arm64), so the batch is built from the float32 golden pairs
// (platform-independent) by exact operations only: each coordinate x plus
// a second golden coordinate scaled by 2^-30 (math.Ldexp is exact, the
// sum one rounding), and the batch again scaled by 2^330 (about 1e99) and
// 2^-200; then a NaN and an infinite lane.
func golden64Pairs() []soa.Pair64 {
	g := verify.GoldenPairs()
	var ps []soa.Pair64
	for _, k := range []int{0, 330, -200} {
		for i, p := range g {
			q := g[(i*7+3)%len(g)]
			var out soa.Pair64
			src := [4][3]float32{p.A, p.B, p.C, p.D}
			lo := [4][3]float32{q.A, q.B, q.C, q.D}
			dst := [4]*[3]float64{&out.A, &out.B, &out.C, &out.D}
			for v := range 4 {
				for c := range 3 {
					x := float64(src[v][c]) + math.Ldexp(float64(lo[(v+1)%4][c]), -30)
					dst[v][c] = math.Ldexp(x, k)
				}
			}
			ps = append(ps, out)
		}
	}
	return append(ps, soa.Pair64{A: [3]float64{math.NaN(), 0, 0}}, soa.Pair64{D: [3]float64{0, math.Inf(-1), 0}})
}

// TestGolden64 checks golden64Hash on the specification, the package-level
// BatchClosest64 and every path.
func TestGolden64(t *testing.T) {
	src := soa.FromPairs64(golden64Pairs())
	spec := hash64(spec64(src))
	t.Logf("float64 golden hash %s", spec)
	if spec != golden64Hash {
		t.Fatalf("specification: golden hash %s, want %s", spec, golden64Hash)
	}
	check := func(t *testing.T, name string, batch func(*soa.Results64, *soa.Pairs64)) {
		res := soa.NewResults64(src.Len())
		batch(res, src)
		if got := hash64(res); got != golden64Hash {
			t.Fatalf("%s: golden hash %s, want %s (TestBitIdentical64 shows the first differing lane)", name, got, golden64Hash)
		}
	}
	t.Run("package", func(t *testing.T) { check(t, "kernel.BatchClosest64", kernel.BatchClosest64) })
	forEachPath(t, func(t *testing.T, k kernel.Kernel) { check(t, k.ISA(), k.BatchClosest64) })
}

// TestClosestPoint64 checks BatchClosestPoint64 on every path against
// fallback.ClosestPointLane64, every size up to 40, with non-finite lanes.
func TestClosestPoint64(t *testing.T) {
	all := pool64(65, 200)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for n := range 41 {
			src := soa.NewPointSegments64(n)
			for i := range n {
				p := all[i]
				if i%9 == 4 {
					p.A[1] = math.NaN()
				}
				src.Set(i, p.A, p.C, p.D)
			}
			got := soa.NewPointResults64(n)
			k.BatchClosestPoint64(got, src)
			checkPoint64Bits(t, "n="+strconv.Itoa(n), src, got)
		}
	})
}

// checkPoint64Bits fails t unless every lane of dst is
// fallback.ClosestPointLane64 of the same lane of src, bit for bit.
func checkPoint64Bits(t *testing.T, what string, src *soa.PointSegments64, dst *soa.PointResults64) {
	t.Helper()
	for i := range src.Len() {
		pt, c, d := src.Get(i)
		wt, wd := fallback.ClosestPointLane64(pt[0], pt[1], pt[2], c[0], c[1], c[2], d[0], d[1], d[2])
		if math.Float64bits(dst.T[i]) != math.Float64bits(wt) || math.Float64bits(dst.Dist2[i]) != math.Float64bits(wd) {
			t.Fatalf("%s lane %d: got %v %v, want %v %v", what, i, dst.T[i], dst.Dist2[i], wt, wd)
		}
	}
}

// TestLengthMismatch64 shortens each float64 slice in turn: every entry
// point panics naming it before writing anything; nothing allocates.
func TestLengthMismatch64(t *testing.T) {
	const n = 20
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		src := soa.FromPairs64(pool64(66, n))
		dst := soa.NewResults64(n)
		names := []string{"src.AY", "src.AZ", "src.BX", "src.BY", "src.BZ", "src.CX", "src.CY", "src.CZ", "src.DX", "src.DY", "src.DZ", "dst.S", "dst.T", "dst.Dist2"}
		ptrs := []*[]float64{&src.AY, &src.AZ, &src.BX, &src.BY, &src.BZ, &src.CX, &src.CY, &src.CZ, &src.DX, &src.DY, &src.DZ, &dst.S, &dst.T, &dst.Dist2}
		for i, p := range ptrs {
			full := *p
			*p = full[:n-1]
			clear(dst.S[:min(n, len(dst.S))])
			msg, ok := panicMessage(func() { k.BatchClosest64(dst, src) })
			*p = full
			if !ok || !strings.Contains(msg, names[i]) {
				t.Fatalf("%s short: panicked %v with %q", names[i], ok, msg)
			}
			for j := range n - 1 {
				if dst.S[j] != 0 {
					t.Fatalf("%s short: dst.S[%d] written before the panic", names[i], j)
				}
			}
		}
		if a := testing.AllocsPerRun(20, func() { k.BatchClosest64(dst, src) }); a != 0 {
			t.Errorf("BatchClosest64: %v allocations per call", a)
		}
		ps, pr := soa.NewPointSegments64(n), soa.NewPointResults64(n)
		if a := testing.AllocsPerRun(20, func() { k.BatchClosestPoint64(pr, ps) }); a != 0 {
			t.Errorf("BatchClosestPoint64: %v allocations per call", a)
		}
	})
}

func ExampleBatchClosest64() {
	src := soa.NewPairs64(0)
	// Two segments crossing at right angles 1e100 apart: float32 cannot
	// hold these coordinates.
	src.Append([3]float64{0, 0, 1e100}, [3]float64{2e100, 0, 1e100}, [3]float64{1e100, -1e100, 0}, [3]float64{1e100, 1e100, 0})
	dst := soa.NewResults64(src.Len())
	kernel.BatchClosest64(dst, src)
	fmt.Printf("s=%.3g t=%.3g distance=%.4g\n", dst.S[0], dst.T[0], math.Sqrt(dst.Dist2[0]))
	// Output: s=0.5 t=0.5 distance=1e+100
}

// TestBitIdenticalLarge64 runs a batch past the non-temporal-store and
// prefetch thresholds (2^18 lanes) on every path, prefetching or not
// (asm.PrefetchInputs), with 64-byte-aligned outputs (soa) and offset
// ones, against the specification.
func TestBitIdenticalLarge64(t *testing.T) {
	if testing.Short() {
		t.Skip("large batch")
	}
	const n = 1<<18 + 13
	ps := pool64(67, 4096)
	all := make([]soa.Pair64, n)
	for i := range all {
		all[i] = ps[(i*31)%len(ps)]
	}
	src := soa.FromPairs64(all)
	want := spec64(src)
	forEachPrefetch(t, func(t *testing.T) {
		forEachPath(t, func(t *testing.T, k kernel.Kernel) {
			got := soa.NewResults64(n)
			k.BatchClosest64(got, src)
			checkSame64(t, "aligned", src, got, want)
			s, r := separate64(all, 1)
			k.BatchClosest64(r, s)
			checkSame64(t, "offset", s, r, want)
		})
	})
}

// FuzzClosest64 fuzzes the twelve coordinates of one float64 pair, placed
// at several lanes of a batch of other pairs: every path's BatchClosest64
// returns fallback.ClosestLane64's bits there (the canonical NaN for a
// non-finite lane) and the specification's bits in every other lane; for
// finite coordinates up to 1e150, S and T are in [0,1] and the distance
// is within 8 eps64 x scale (+ 2^-500) of exact arithmetic.
func FuzzClosest64(f *testing.F) {
	add := func(p soa.Pair64) {
		f.Add(p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2], p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2])
	}
	for _, p := range pool64(71, 40) {
		add(p)
	}
	add(soa.Pair64{A: [3]float64{math.NaN(), 0, 0}})
	add(soa.Pair64{A: [3]float64{1e150, -1e150, 1e150}, B: [3]float64{-1e150, 1e150, -1e150}, C: [3]float64{1e150, 1e150, -1e150}})
	add(soa.Pair64{B: [3]float64{5e-324, 0, 0}, D: [3]float64{0, 1e-160, 0}})
	others := pool64(72, fuzzBatch)
	f.Fuzz(func(t *testing.T, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz float64) {
		p := soa.Pair64{A: [3]float64{ax, ay, az}, B: [3]float64{bx, by, bz}, C: [3]float64{cx, cy, cz}, D: [3]float64{dx, dy, dz}}
		s, tt, d2 := kernel.Closest64(p.A, p.B, p.C, p.D)
		finite, inRange := true, true
		for _, v := range [4][3]float64{p.A, p.B, p.C, p.D} {
			for _, x := range v {
				finite = finite && !math.IsNaN(x) && !math.IsInf(x, 0)
				inRange = inRange && math.Abs(x) <= verify.MaxRange64
			}
		}
		switch {
		case !finite:
			if math.Float64bits(d2) != 0x7FF8000000000000 || math.Float64bits(s) != 0x7FF8000000000000 || math.Float64bits(tt) != 0x7FF8000000000000 {
				t.Fatalf("non-finite input %+v: %v %v %v, want the canonical NaN", p, s, tt, d2)
			}
		case inRange:
			if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1) || math.IsInf(d2, 0) || d2 != d2 {
				t.Fatalf("%+v: S, T, Dist2 = %v %v %v", p, s, tt, d2)
			}
			exact, scale := verify.ExactMinDist2(p), verify.Scale(p)
			if e := math.Abs(math.Sqrt(d2) - verify.Dist(exact)); e > 8*verify.Eps64*scale+0x1p-500 {
				t.Fatalf("%+v: distance error %.3g eps64 x scale", p, verify.ErrEps64(e, scale))
			}
		}
		batch := append([]soa.Pair64(nil), others...)
		for _, lane := range fuzzLanes {
			batch[lane] = p
		}
		src := soa.FromPairs64(batch)
		want := spec64(src)
		forEachPath(t, func(t *testing.T, k kernel.Kernel) {
			got := soa.NewResults64(len(batch))
			k.BatchClosest64(got, src)
			checkSame64(t, "fuzz", src, got, want)
		})
	})
}

// contact64Scene is a float64 contact scene: random capsules plus every
// adversarial capsule category (crossing, parallel, spheres, ...), widened
// from float32 and then moved 1e12 away and perturbed below float32's
// resolution, so that float32 could not represent it; random pairs,
// repeats and self pairs, and one capsule with a NaN.
func contact64Scene(seed uint64, m int) (soa.Capsules64, *soa.IndexPairs) {
	caps, pairs := verify.SceneFromPairs(verify.NewRand(seed, 1), verify.MixedCapsulePairs(seed, 8, 0x1p-6))
	c64 := verify.WidenCapsules(caps)
	for i := range c64 {
		for j := range 3 {
			d := math.Ldexp(float64(i%7+j), -40)
			c64[i].A[j] = 1e12 + c64[i].A[j] + d
			c64[i].B[j] = 1e12 + c64[i].B[j] + d
		}
	}
	c64[5].B[1] = math.NaN()
	extra := verify.RandomIndexPairs(verify.NewRand(seed, 2), c64.Len(), m)
	for k := range extra.Len() {
		pairs.Append(extra.I[k], extra.J[k])
	}
	return c64, pairs
}

// spec64Contact is fallback.ContactLane64 on pair k.
func spec64Contact(caps soa.Capsules64, pairs *soa.IndexPairs, k int, margin float64) fallback.Contact64 {
	c1, c2 := caps[pairs.I[k]], caps[pairs.J[k]]
	return fallback.ContactLane64(c1.A[0], c1.A[1], c1.A[2], c1.B[0], c1.B[1], c1.B[2], c1.R,
		c2.A[0], c2.A[1], c2.A[2], c2.B[0], c2.B[1], c2.B[2], c2.R, margin)
}

// row64 returns row k of dst as a Contact64 and its Pair.
func row64(dst *soa.Contacts64, k int) (uint32, fallback.Contact64) {
	return dst.Pair[k], fallback.Contact64{Count: dst.Count[k], Depth: [2]float64{dst.Depth1[k], dst.Depth2[k]},
		Normal: [3]float64{dst.NX[k], dst.NY[k], dst.NZ[k]},
		Point:  [2][3]float64{{dst.P1X[k], dst.P1Y[k], dst.P1Z[k]}, {dst.P2X[k], dst.P2Y[k], dst.P2Z[k]}}}
}

// sameContact64 reports whether a and b have the same bits everywhere.
func sameContact64(a, b fallback.Contact64) bool {
	fa := []float64{a.Depth[0], a.Depth[1], a.Normal[0], a.Normal[1], a.Normal[2], a.Point[0][0], a.Point[0][1], a.Point[0][2], a.Point[1][0], a.Point[1][1], a.Point[1][2]}
	fb := []float64{b.Depth[0], b.Depth[1], b.Normal[0], b.Normal[1], b.Normal[2], b.Point[0][0], b.Point[0][1], b.Point[0][2], b.Point[1][0], b.Point[1][1], b.Point[1][2]}
	for i := range fa {
		if math.Float64bits(fa[i]) != math.Float64bits(fb[i]) {
			return false
		}
	}
	return a.Count == b.Count
}

// check64Batch checks dst after BatchContacts64: row r is pair r, equal
// bit for bit to fallback.ContactLane64.
func check64Batch(t *testing.T, what string, dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) {
	t.Helper()
	for r := range pairs.Len() {
		want := spec64Contact(caps, pairs, r, margin)
		if pair, got := row64(dst, r); pair != uint32(r) || !sameContact64(got, want) {
			t.Fatalf("%s: BatchContacts64 row %d: pair %d %+v, want %+v", what, r, pair, got, want)
		}
	}
}

// check64Compact checks the n rows CompactContacts64 wrote to dst: the
// touching pairs (Count > 0 in the spec) in pair order, with Pair their
// index, bit for bit.
func check64Compact(t *testing.T, what string, n int, dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) {
	t.Helper()
	w := 0
	for r := range pairs.Len() {
		want := spec64Contact(caps, pairs, r, margin)
		if want.Count == 0 {
			continue
		}
		if w >= n {
			t.Fatalf("%s: CompactContacts64 returned %d, but pair %d touches too", what, n, r)
		}
		if pair, got := row64(dst, w); pair != uint32(r) || !sameContact64(got, want) {
			t.Fatalf("%s: CompactContacts64 row %d: pair %d %+v, want pair %d %+v", what, w, pair, got, r, want)
		}
		w++
	}
	if w != n {
		t.Fatalf("%s: CompactContacts64 wrote %d rows, %d pairs touch", what, n, w)
	}
}

// TestContacts64 checks BatchContacts64 and CompactContacts64 on every
// path against fallback.ContactLane64, every row bit for bit, for every
// batch size up to 40 and a larger one; compaction writes the touching
// pairs in pair order with their Pair index; the NaN capsule's rows are
// Count 0 with the canonical NaN.
func TestContacts64(t *testing.T) {
	caps, all := contact64Scene(81, 400)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, m := range append(ctSizes(40), all.Len()) {
			pairs := &soa.IndexPairs{I: all.I[:m], J: all.J[:m]}
			for _, margin := range []float64{0, 0.25} {
				what := fmt.Sprintf("m=%d margin %v", m, margin)
				dst := soa.NewContacts64(m)
				k.BatchContacts64(dst, caps, pairs, margin)
				check64Batch(t, what, dst, caps, pairs, margin)
				for r := range m {
					if _, got := row64(dst, r); math.IsNaN(caps[pairs.I[r]].B[1]) && (got.Count != 0 || math.Float64bits(got.Depth[0]) != 0x7FF8000000000000) {
						t.Fatalf("row %d uses the NaN capsule: %+v", r, got)
					}
				}
				cdst := soa.NewContacts64(m)
				check64Compact(t, what, k.CompactContacts64(cdst, caps, pairs, margin), cdst, caps, pairs, margin)
			}
		}
	})
}

// contact64GoldenHash pins the bits of fallback.ContactLane64 on
// golden64Contacts (every path, every GOARCH); update it only on purpose,
// with the assembly: go test ./kernel -run Contacts64Golden -v prints it.
const contact64GoldenHash = "f09919cd0010d6385af7b93b8d37cbc9157512cd69a910f1a773f282a56d6b85"

// golden64Contacts is a fixed float64 contact scene, the same on every
// platform: the float32 golden contact scene of fallback (verify's
// generators, rounded to float32) widened, moved 2^40 away by exact
// additions, with a NaN capsule, and all its pairs with margin 2^-6.
func golden64Contacts() (soa.Capsules64, *soa.IndexPairs) {
	caps, pairs := verify.SceneFromPairs(verify.NewRand(0x601D, 1), verify.MixedCapsulePairs(0x601D, 16, 0x1p-6))
	extra := verify.RandomIndexPairs(verify.NewRand(0x601D, 2), caps.Len(), 500)
	for k := range extra.Len() {
		pairs.Append(extra.I[k], extra.J[k])
	}
	c64 := verify.WidenCapsules(caps)
	for i := range c64 {
		for j := range 3 {
			c64[i].A[j] += 0x1p40
			c64[i].B[j] += 0x1p40
		}
	}
	c64[7].A[2] = math.NaN()
	return c64, pairs
}

// TestContacts64Golden checks contact64GoldenHash on the specification and
// on every path's BatchContacts64.
func TestContacts64Golden(t *testing.T) {
	caps, pairs := golden64Contacts()
	hash := func(rows func(k int) (uint32, fallback.Contact64)) string {
		h := sha256.New()
		var b [8]byte
		for k := range pairs.Len() {
			pair, c := rows(k)
			binary.LittleEndian.PutUint32(b[:4], pair)
			binary.LittleEndian.PutUint32(b[4:], c.Count)
			h.Write(b[:])
			for _, x := range []float64{c.Depth[0], c.Depth[1], c.Normal[0], c.Normal[1], c.Normal[2],
				c.Point[0][0], c.Point[0][1], c.Point[0][2], c.Point[1][0], c.Point[1][1], c.Point[1][2]} {
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
				h.Write(b[:])
			}
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	spec := hash(func(k int) (uint32, fallback.Contact64) { return uint32(k), spec64Contact(caps, pairs, k, 0x1p-6) })
	t.Logf("float64 contact golden hash %s", spec)
	if spec != contact64GoldenHash {
		t.Fatalf("specification: golden hash %s, want %s", spec, contact64GoldenHash)
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		dst := soa.NewContacts64(pairs.Len())
		k.BatchContacts64(dst, caps, pairs, 0x1p-6)
		if got := hash(func(r int) (uint32, fallback.Contact64) { return row64(dst, r) }); got != contact64GoldenHash {
			t.Fatalf("golden hash %s, want %s (TestContacts64 shows the first differing row)", got, contact64GoldenHash)
		}
	})
}

// FuzzContact64 fuzzes one float64 capsule pair (both axes, both radii)
// and the margin: on every path, BatchContacts64 and CompactContacts64
// with the pair at several lanes of a batch of other pairs return
// fallback.ContactLane64's bits for every row.
func FuzzContact64(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 1.0, 1.0, 0.5, 0.0, 3.0, 0.5, 0.0, 1.0, 0.0)
	f.Add(0.0, 0.0, 0.0, 3.0, 1.0, 0.0, 0.5, 1.5, 0.5, -1.0, 1.5, 0.5, 1.0, 0.5, 0.01)
	f.Add(1e12, 2.0, 3.0, 1e12, 2.0, 3.0, 1.0, 1e12, 2.0, 3.0, 1e12, 2.0, 3.0, 1.0, 0.0)
	f.Add(1e150, 0.0, 0.0, -1e150, 0.0, 0.0, 1.0, 0.0, 1e150, 0.0, 0.0, -1e150, 0.0, 1.0, 0.5)
	f.Add(math.NaN(), 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0)
	base, basePairs := contact64Scene(83, 40)
	f.Fuzz(func(t *testing.T, ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin float64) {
		if !(margin >= 0 && margin <= math.MaxFloat64) {
			return // the entry points panic on such margins (TestContactsMargin)
		}
		caps := append(soa.Capsules64(nil), base...)
		i, j := uint32(len(caps)), uint32(len(caps)+1)
		caps = append(caps, soa.Capsule64{A: [3]float64{ax, ay, az}, B: [3]float64{bx, by, bz}, R: r1},
			soa.Capsule64{A: [3]float64{cx, cy, cz}, B: [3]float64{dx, dy, dz}, R: r2})
		pairs := &soa.IndexPairs{I: append([]uint32(nil), basePairs.I[:fuzzBatch]...), J: append([]uint32(nil), basePairs.J[:fuzzBatch]...)}
		for _, lane := range fuzzLanes {
			pairs.I[lane], pairs.J[lane] = i, j
		}
		pairs.I[fuzzLanes[1]], pairs.J[fuzzLanes[1]] = j, i // and the other way round
		forEachPath(t, func(t *testing.T, k kernel.Kernel) {
			dst := soa.NewContacts64(pairs.Len())
			k.BatchContacts64(dst, caps, pairs, margin)
			touching := 0
			for r := range pairs.Len() {
				want := spec64Contact(caps, pairs, r, margin)
				if _, got := row64(dst, r); !sameContact64(got, want) {
					t.Fatalf("row %d: %+v, want %+v", r, got, want)
				}
				if want.Count > 0 {
					touching++
				}
			}
			if n := k.CompactContacts64(soa.NewContacts64(pairs.Len()), caps, pairs, margin); n != touching {
				t.Fatalf("CompactContacts64 wrote %d rows, %d touch", n, touching)
			}
		})
	})
}

// TestContacts64NoAllocs: the float64 contact entry points allocate
// nothing, on every path and through the package.
func TestContacts64NoAllocs(t *testing.T) {
	caps, pairs := contact64Scene(84, 300)
	dst := soa.NewContacts64(pairs.Len())
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		if a := testing.AllocsPerRun(10, func() { k.BatchContacts64(dst, caps, pairs, 0.1) }); a != 0 {
			t.Errorf("BatchContacts64: %v allocations", a)
		}
		if a := testing.AllocsPerRun(10, func() { k.CompactContacts64(dst, caps, pairs, 0.1) }); a != 0 {
			t.Errorf("CompactContacts64: %v allocations", a)
		}
	})
	if a := testing.AllocsPerRun(10, func() { kernel.CompactContacts64(dst, caps, pairs, 0.1) }); a != 0 {
		t.Errorf("kernel.CompactContacts64: %v allocations", a)
	}
}

// BatchClosestIndexed64 reads the two capsules of each index pair from
// float64 records: here a capsule 1e8 from the origin and a rod crossing
// 1e-6 above it, 1 along its axis (float32, whose spacing at 1e8 is 8,
// cannot place the rod there).
func ExampleBatchClosestIndexed64() {
	caps := soa.NewCapsules64(0)
	caps.Append([3]float64{1e8, 0, 0}, [3]float64{1e8 + 4, 0, 0}, 0.5)
	caps.Append([3]float64{1e8 + 1, -1, 1e-6}, [3]float64{1e8 + 1, 1, 1e-6}, 0.5)
	pairs := soa.NewIndexPairs(0)
	pairs.Append(0, 1)
	dst := soa.NewResults64(pairs.Len())
	kernel.BatchClosestIndexed64(dst, caps, pairs)
	fmt.Printf("s=%v t=%v distance=%.3g\n", dst.S[0], dst.T[0], math.Sqrt(dst.Dist2[0]))
	// Output: s=0.25 t=0.5 distance=1e-06
}

// BatchContacts64 is BatchContacts in float64: two spheres of radius 1
// whose centres, 1e8 from the origin, are 2 - 2^-20 apart touch with a
// depth of 2^-20 (about 9.5e-7; float32, whose spacing at 1e8 is 8, would
// round both centres to the same point).
func ExampleBatchContacts64() {
	caps := soa.NewCapsules64(0)
	gap := 2 - math.Ldexp(1, -20)
	caps.Append([3]float64{1e8, 0, 0}, [3]float64{1e8, 0, 0}, 1)
	caps.Append([3]float64{1e8 + gap, 0, 0}, [3]float64{1e8 + gap, 0, 0}, 1)
	pairs := soa.NewIndexPairs(0)
	pairs.Append(0, 1)
	dst := soa.NewContacts64(pairs.Len())
	kernel.BatchContacts64(dst, caps, pairs, 0)
	// The normal is r/|r| within an ulp, hence %.6f.
	fmt.Printf("count=%d depth*2^20=%v normal=(%.6f,%v,%v) p1.x-1e8=%.6f\n",
		dst.Count[0], math.Ldexp(dst.Depth1[0], 20), dst.NX[0], dst.NY[0], dst.NZ[0], dst.P1X[0]-1e8)
	// Output: count=1 depth*2^20=1 normal=(-1.000000,0,0) p1.x-1e8=1.000000
}

// CompactContacts64 keeps the touching pairs only, in pair order, with
// the index of each pair.
func ExampleCompactContacts64() {
	caps := soa.NewCapsules64(0)
	caps.Append([3]float64{0, 0, 0}, [3]float64{10, 0, 0}, 0.5)     // a pole along x
	caps.Append([3]float64{5, -1, 0.9}, [3]float64{5, 1, 0.9}, 0.5) // a rung 0.9 above it: touching
	caps.Append([3]float64{5, -1, 1.1}, [3]float64{5, 1, 1.1}, 0.5) // 1.1 above: apart
	pairs := soa.NewIndexPairs(0)
	pairs.Append(0, 2)
	pairs.Append(0, 1)
	dst := soa.NewContacts64(pairs.Len())
	n := kernel.CompactContacts64(dst, caps, pairs, 0)
	for k := range n {
		fmt.Printf("pair %d: depth %.3g normal (%v,%v,%v)\n", dst.Pair[k], dst.Depth1[k], dst.NX[k], dst.NY[k], dst.NZ[k])
	}
	// Output: pair 1: depth 0.1 normal (0,0,-1)
}
