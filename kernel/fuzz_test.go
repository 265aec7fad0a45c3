package kernel_test

import (
	"math"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// fuzzSlack is the absolute allowance for very short vectors
// (verify.AbsSlack explains it).
const fuzzSlack = verify.AbsSlack

// fuzzLanes are the positions the fuzzed pair takes in a batch of
// fuzzBatch lanes: first lane, inside and at the end of 8- and 16-lane
// groups, and the last lane (a masked tail on both widths).
var fuzzLanes = []int{0, 7, 13, 15, 16, 31, 38}

const fuzzBatch = 39

// FuzzClosest fuzzes the twelve coordinates of one pair.
//   - NaN or ±Inf anywhere: S = T = Dist2 = the canonical NaN.
//   - Finite, |coordinate| <= 1e18: S, T in [0,1], Dist2 finite, and
//     within 8 eps32 x scale (+ fuzzSlack) of fallback.ReferenceF32 (itself
//     within 1e-15 x scale of exact arithmetic), both in the distance and
//     in the exact distance between the points at S and T.
//   - Finite beyond 1e18: either finite as above or all canonical NaN.
//   - Every path's BatchClosest, with the pair at several lanes of a batch
//     of other pairs, returns Closest's bits there and the pure-Go bits
//     elsewhere.
func FuzzClosest(f *testing.F) {
	add := func(c [12]float32) { f.Add(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]) }
	for _, p := range verify.Mixed(61, 2) {
		add(verify.Coords(p))
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	big := float32(verify.MaxRange)
	sub := math.Float32frombits(1)
	for _, c := range [][12]float32{
		{},                                        // both segments points, at the origin
		{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3},      // all four points equal
		{-1, 0, 0, 1, 0, 0, 0, -1, 0, 0, 1, 0},    // crossing at the origin
		{0, 0, 0, 4, 0, 0, 1, 1, 0, 3, 1, 0},      // parallel overlapping
		{0, 0, 0, 2, 0, 0, 1, 0, 0, 5, 0, 0},      // collinear overlapping
		{nan, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0},    // NaN
		{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, inf},    // +Inf
		{0, 0, -inf, 1, 0, 0, 0, 1, 0, 1, 1, inf}, // -Inf and +Inf
		{big, -big, big, -big, big, -big, big, big, -big, -big, -big, big},                           // range edge
		{sub, 0, 0, 0, sub, 0, 0, 0, sub, sub, sub, sub},                                             // subnormal
		{0, 0, 0, 1, 0, 0, 0, 1, 0, 1e-21, 1, 0},                                                     // tiny second segment
		{0, 0, 0, 1e-21, 0, 0, 0, 1, 0, 1, 1, 0},                                                     // tiny first segment
		{3e38, 0, 0, 3e38, 1, 0, -3e38, 0, 0, -3e38, 0, 1},                                           // overflow
		{-2097152.5, -2097152, 0, 4194305, 4194304, 0, -2097152, -2097151.5, 0, 4194304, 4194303, 0}, // crossing at 3e-14 rad
	} {
		add(c)
	}
	nb := pool(62, fuzzBatch)
	f.Fuzz(func(t *testing.T, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz float32) {
		p := verify.FromCoords([12]float32{ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz})
		s, tt, d2 := kernel.Closest(p.A, p.B, p.C, p.D)
		canonical := math.Float32bits(s) == verify.CanonicalNaNBits &&
			math.Float32bits(tt) == verify.CanonicalNaNBits && math.Float32bits(d2) == verify.CanonicalNaNBits
		inRange := s >= 0 && s <= 1 && tt >= 0 && tt <= 1 && d2 >= 0 && d2 <= math.MaxFloat32
		switch {
		case !verify.Finite(p):
			if !canonical {
				t.Fatalf("non-finite input %+v: Closest = %#08x %#08x %#08x, want canonical NaN",
					p, math.Float32bits(s), math.Float32bits(tt), math.Float32bits(d2))
			}
		case verify.Scale(p) <= verify.MaxRange:
			if !inRange {
				t.Fatalf("finite input %+v: Closest = %v, %v, %v; want S, T in [0,1] and a finite Dist2", p, s, tt, d2)
			}
			_, _, rd2 := fallback.ReferenceF32(p.A, p.B, p.C, p.D)
			ref := math.Sqrt(rd2)
			bound := 8*verify.Eps32*verify.Scale(p) + fuzzSlack
			if e := math.Abs(math.Sqrt(float64(d2)) - ref); e > bound {
				t.Fatalf("%+v: sqrt(Dist2) = %v, reference %v: error %.3g eps32 x scale", p,
					math.Sqrt(float64(d2)), ref, verify.ErrEps(e, verify.Scale(p)))
			}
			at := verify.Dist(verify.ExactDist2At(p, float64(s), float64(tt)))
			if e := at - ref; e > bound {
				t.Fatalf("%+v: points at S=%v, T=%v are %v apart, reference minimum %v: optimality %.3g eps32 x scale",
					p, s, tt, at, ref, verify.ErrEps(e, verify.Scale(p)))
			}
		default:
			if !canonical && !inRange {
				t.Fatalf("input beyond 1e18 %+v: Closest = %v, %v, %v (bits %#08x %#08x %#08x); want finite or all canonical NaN",
					p, s, tt, d2, math.Float32bits(s), math.Float32bits(tt), math.Float32bits(d2))
			}
		}

		batch := make([]soa.Pair, fuzzBatch)
		copy(batch, nb)
		for _, i := range fuzzLanes {
			batch[i] = p
		}
		src := soa.FromPairs(batch)
		want := goResults(t, src)
		for _, isa := range kernel.Available() {
			k, _ := kernel.Lookup(isa)
			got := soa.NewResults(fuzzBatch)
			k.BatchClosest(got, src)
			for i := range fuzzBatch {
				ws, wt, wd := want.S[i], want.T[i], want.Dist2[i]
				if batch[i] == p {
					ws, wt, wd = s, tt, d2
				}
				if math.Float32bits(got.S[i]) != math.Float32bits(ws) || math.Float32bits(got.T[i]) != math.Float32bits(wt) ||
					math.Float32bits(got.Dist2[i]) != math.Float32bits(wd) {
					t.Fatalf("%s lane %d of %+v: BatchClosest %v %v %v, want %v %v %v (Closest / go path)",
						isa, i, batch[i], got.S[i], got.T[i], got.Dist2[i], ws, wt, wd)
				}
			}
		}
	})
}
