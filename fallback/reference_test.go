package fallback_test

import (
	"math"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// scalePair multiplies every coordinate by 2^k (exact for normal results).
func scalePair(p soa.Pair, k int) soa.Pair {
	c := verify.Coords(p)
	for i := range c {
		c[i] = float32(math.Ldexp(float64(c[i]), k))
	}
	return verify.FromCoords(c)
}

// TestReferenceShortSegmentsNotParallel guards against the absolute
// parallel tolerance of Eberly's 2008 note (docs/design.md, "The
// references and the exact oracles"): two
// perpendicular segments crossing at their midpoints at a distance of 1/4
// of their length, scaled down from length 1 to 2^-60, must keep the
// interior solution s = t = 1/2 and the exact distance. An absolute test
// calls them parallel from length 1e-4 on and answers on an edge of the
// parameter square (distance error ~1.6e7 eps x scale).
func TestReferenceShortSegmentsNotParallel(t *testing.T) {
	base := soa.Pair{
		A: [3]float32{0, 0, 0}, B: [3]float32{1, 0, 0},
		C: [3]float32{0.5, -0.5, 0.25}, D: [3]float32{0.5, 0.5, 0.25},
	}
	for k := 0; k >= -60; k-- {
		p := scalePair(base, k)
		s, tt, d2 := fallback.ReferenceF32(p.A, p.B, p.C, p.D)
		want := math.Ldexp(1.0/16, 2*k)
		if s != 0.5 || tt != 0.5 || d2 != want {
			t.Errorf("length 2^%d: Reference = %v, %v, %v; want 0.5, 0.5, %v", k, s, tt, d2, want)
		}
	}
	// Length 1e-4 (not a power of two), a generic direction: compare with
	// exact arithmetic.
	p := soa.Pair{
		A: [3]float32{1e-4, 2e-4, -1e-4}, B: [3]float32{2e-4, 1e-4, 0},
		C: [3]float32{1.5e-4, 1e-4, 1e-4}, D: [3]float32{1.5e-4, 2e-4, -2e-4},
	}
	s, tt, d2 := fallback.ReferenceF32(p.A, p.B, p.C, p.D)
	if e := verify.DistErr(d2, verify.ExactMinDist2(p)) / verify.Scale(p); e > 1e-12 {
		t.Errorf("1e-4 segments: Reference = %v, %v, %v: distance error %.3g x scale", s, tt, d2, e)
	}
	if s <= 0 || s >= 1 || tt <= 0 || tt >= 1 {
		t.Errorf("1e-4 segments: Reference = %v, %v: want the interior minimizer", s, tt)
	}
}

// nearParallelCrossing returns segments crossing at X = (x, x, x) whose
// directions u = (m+1, m, 0) and v = (m, m-1, z) differ by an angle of about
// 1/(2m^2) (Farey neighbours: u0 v1 - u1 v0 = -1 when z = 0); every
// coordinate is an integer or half-integer below 2^24, exact in float32.
func nearParallelCrossing(m, z, x float32) soa.Pair {
	u := [3]float32{m + 1, m, 0}
	v := [3]float32{m, m - 1, z}
	var p soa.Pair
	for i := range 3 {
		p.A[i] = x - u[i]/2
		p.B[i] = x + u[i]
		p.C[i] = x - v[i]
		p.D[i] = x + v[i]/2
	}
	return p
}

// TestReferenceNearParallelExact drives the reference through angles from
// 1e-1 down to about 1e-14 rad with segments crossing exactly (distance 0,
// the worst case for Cramer's rule: the error is not damped by a nonzero
// distance), and with the second segment lifted off the first one's line.
// Computing det, be-cd and bd-ae as differences of dot products fails this
// by many orders of magnitude around 1e-7 rad.
func TestReferenceNearParallelExact(t *testing.T) {
	worst := 0.0
	for e := 1; e <= 22; e++ {
		m := float32(math.Ldexp(1, e))
		for _, z := range []float32{0, 1, -3} {
			for _, x := range []float32{0, 17, -1000} {
				p := nearParallelCrossing(m, z, x)
				s, tt, d2 := fallback.ReferenceF32(p.A, p.B, p.C, p.D)
				exact := verify.ExactMinDist2(p)
				err := verify.DistErr(d2, exact) / verify.Scale(p)
				opt := (verify.Dist(verify.ExactDist2At(p, s, tt)) - verify.Dist(exact)) / verify.Scale(p)
				worst = max(worst, err, opt)
				if err > 1e-9 || opt > 1e-9 {
					t.Errorf("m=2^%d z=%v x=%v: Reference = %v, %v, %v; distance error %.3g, optimality %.3g x scale",
						e, z, x, s, tt, d2, err, opt)
				}
			}
		}
	}
	t.Logf("worst error %.3g x scale", worst)
}

// TestReferenceParallel checks the parallel branch on exact cases: the
// minimum distance is exact and (s, t) is the documented choice, the first
// of the edge minima s=0, s=1, t=0, t=1 that attains it.
func TestReferenceParallel(t *testing.T) {
	v := func(x, y, z float32) [3]float32 { return [3]float32{x, y, z} }
	cases := []struct {
		name       string
		p          soa.Pair
		s, t, dist float64
	}{
		// C projects onto AB at s = 1/4; the s=0 and s=1 edges give 2.
		{"overlapping", soa.Pair{A: v(0, 0, 0), B: v(4, 0, 0), C: v(1, 1, 0), D: v(3, 1, 0)}, 0.25, 0, 1},
		{"antiparallel overlapping", soa.Pair{A: v(0, 0, 0), B: v(4, 0, 0), C: v(3, 1, 0), D: v(1, 1, 0)}, 0.75, 0, 1},
		// Segment 2 inside segment 1's span: A projects onto CD first.
		{"contained", soa.Pair{A: v(1, 1, 0), B: v(3, 1, 0), C: v(0, 0, 0), D: v(4, 0, 0)}, 0, 0.25, 1},
		{"disjoint", soa.Pair{A: v(0, 0, 0), B: v(1, 0, 0), C: v(3, 1, 0), D: v(4, 1, 0)}, 1, 0, 5},
		{"disjoint antiparallel", soa.Pair{A: v(0, 0, 0), B: v(1, 0, 0), C: v(4, 1, 0), D: v(3, 1, 0)}, 1, 1, 5},
		{"collinear overlapping", soa.Pair{A: v(0, 0, 0), B: v(2, 0, 0), C: v(1, 0, 0), D: v(5, 0, 0)}, 1, 0.25, 0},
		{"collinear gap", soa.Pair{A: v(0, 0, 0), B: v(2, 0, 0), C: v(3, 0, 0), D: v(5, 0, 0)}, 1, 0, 1},
		{"identical", soa.Pair{A: v(1, 2, 3), B: v(4, 6, 3), C: v(1, 2, 3), D: v(4, 6, 3)}, 0, 0, 0},
		{"reversed", soa.Pair{A: v(1, 2, 3), B: v(4, 6, 3), C: v(4, 6, 3), D: v(1, 2, 3)}, 0, 1, 0},
		{"different lengths", soa.Pair{A: v(0, 0, 0), B: v(0, 0, 8), C: v(0, 3, -1), D: v(0, 3, 1)}, 0, 0.5, 9},
	}
	for _, c := range cases {
		s, tt, d2 := fallback.ReferenceF32(c.p.A, c.p.B, c.p.C, c.p.D)
		if s != c.s || tt != c.t || d2 != c.dist {
			t.Errorf("%s: Reference = %v, %v, %v; want %v, %v, %v", c.name, s, tt, d2, c.s, c.t, c.dist)
		}
		if ex, _ := verify.ExactMinDist2(c.p).Float64(); ex != c.dist {
			t.Errorf("%s: exact minimum %v, table says %v", c.name, ex, c.dist)
		}
	}
}

// TestReferenceZeroLength checks the degenerate cases handled before the
// regions: a point gets parameter 0, and the distance is exact.
func TestReferenceZeroLength(t *testing.T) {
	v := func(x, y, z float64) [3]float64 { return [3]float64{x, y, z} }
	cases := []struct {
		a, b, c, d [3]float64
		s, t, dist float64
	}{
		{v(1, 2, 3), v(1, 2, 3), v(4, 6, 3), v(4, 6, 3), 0, 0, 25},    // two points
		{v(0, 1, 0), v(0, 1, 0), v(-1, 0, 0), v(1, 0, 0), 0, 0.5, 1},  // point vs segment
		{v(3, 1, 0), v(3, 1, 0), v(-1, 0, 0), v(1, 0, 0), 0, 1, 5},    // beyond its end
		{v(-1, 0, 0), v(1, 0, 0), v(0, 1, 0), v(0, 1, 0), 0.5, 0, 1},  // segment vs point
		{v(-1, 0, 0), v(1, 0, 0), v(-3, 0, 2), v(-3, 0, 2), 0, 0, 8},  // before its start
		{v(0, 0, 0), v(0, 0, 0), v(0, 0, 0), v(0, 0, 0), 0, 0, 0},     // all equal
		{v(2, 2, 2), v(2, 2, 2), v(0, 0, 0), v(4, 4, 4), 0, 0.5, 0},   // point on segment
		{v(0, 0, 0), v(4, 4, 4), v(1, 1, 1), v(1, 1, 1), 0.25, 0, 0},  // segment through point
		{v(0, 0, 0), v(0, 4, 0), v(1, 1, 0), v(1, 1, 0), 0.25, 0, 1},  // interior projection
		{v(1, 1, 1), v(1, 1, 1), v(0, 0, 0), v(0, 0, 8), 0, 0.125, 2}, // interior projection
		{v(5, 0, 0), v(5, 0, 0), v(0, 0, 0), v(0, 0, -2), 0, 0, 25},   // clamp to t=0
		{v(0, 0, -9), v(0, 0, -9), v(0, 0, 0), v(0, 0, -2), 0, 1, 49}, // clamp to t=1
		{v(0, 0, 0), v(8, 0, 0), v(-1, 1, 0), v(-1, 1, 0), 0, 0, 2},   // clamp to s=0
		{v(0, 0, 0), v(8, 0, 0), v(9, 0, 0), v(9, 0, 0), 1, 0, 1},     // clamp to s=1
		{v(0, 0, 0), v(8, 0, 0), v(2, 3, 4), v(2, 3, 4), 0.25, 0, 25}, // 3-4-5
		{v(1e30, 0, 0), v(1e30, 0, 0), v(1e30, 0, 0), v(1e30, 0, 0), 0, 0, 0},
	}
	for _, c := range cases {
		s, tt, d2 := fallback.Reference(c.a, c.b, c.c, c.d)
		if s != c.s || tt != c.t || d2 != c.dist {
			t.Errorf("Reference(%v, %v, %v, %v) = %v, %v, %v; want %v, %v, %v",
				c.a, c.b, c.c, c.d, s, tt, d2, c.s, c.t, c.dist)
		}
	}
}
