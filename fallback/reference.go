package fallback

import "math"

// Reference computes the closest points of segment 1 (A to B) and segment 2
// (C to D) in float64 with Eberly's region-based solver, the oracle every
// kernel is checked against. It returns the parameters s on segment 1 and
// t on segment 2 and the squared distance, computed from the two points
// (not from the quadratic, which cancels).
//
// With M0 = B-A, M1 = D-C, E = A-C the squared distance is
// Q(s,t) = a s^2 + 2b st + c t^2 + 2d s + 2e t + f, a = M0.M0, b = -M0.M1,
// c = M1.M1, d = M0.E, e = -M1.E. Zero-length segments are handled first;
// then det = ac - b^2 decides between the parallel case and the nine
// regions of the unconstrained minimizer (s~, t~) = (be - cd, bd - ae)/det,
// with the division deferred until the region is known.
//
// The parallel test is relative, det <= parallelEps*a*c: an absolute
// tolerance, as in the 2008 note, calls short segments parallel (segments of
// length 1e-4 have det near 1e-16). Parallel pairs are solved on the four
// edges of the parameter square, where the minimum of a convex quadratic
// with a singular Hessian always lies.
//
// det, s~ and t~ are not formed as ac - b^2, be - cd and bd - ae: for
// nearly parallel segments those differences cancel (at 1e-7 rad, det is
// a few hundred ulps of ac and s~, t~ are rounding noise), and Cramer's
// rule then misplaces the minimizer across the valley of Q, not only along
// it: distance errors of 1e-2 x scale were measured against exact
// arithmetic. By Lagrange's identity, with N = M0 x M1,
//
//	det = ac - b^2 = N.N,  s~ = be - cd = N.(M1 x E),  t~ = bd - ae = N.(M0 x E),
//
// and each cross-product component is computed to about one ulp (Kahan's
// difference of products, Cross3), so det, s~ and t~ keep their relative
// accuracy however small the angle. Measured against exact arithmetic the
// solver is within 1e-15 x scale on every category of the tests
// (TestReferenceExact).
func Reference(a, b, c, d [3]float64) (s, t, dist2 float64) {
	m0 := sub3(b, a)
	m1 := sub3(d, c)
	e := sub3(a, c)
	qa := dot3(m0, m0)
	qc := dot3(m1, m1)
	qd := dot3(m0, e)
	qe := -dot3(m1, e)
	dist := func(s, t float64) float64 {
		var d2 float64
		for i := range 3 {
			r := (a[i] + s*m0[i]) - (c[i] + t*m1[i])
			d2 += r * r
		}
		return d2
	}
	switch {
	case qa == 0 && qc == 0: // two points
		return 0, 0, dist(0, 0)
	case qa == 0: // point A against segment CD
		t = clamp01f(-qe / qc)
		return 0, t, dist(0, t)
	case qc == 0: // segment AB against point C
		s = clamp01f(-qd / qa)
		return s, 0, dist(s, 0)
	}
	qb := -dot3(m0, m1)
	n := Cross3(m0, m1)
	if det := dot3(n, n); det > parallelEps*qa*qc {
		sn := dot3(n, Cross3(m1, e)) // be - cd
		tn := dot3(n, Cross3(m0, e)) // bd - ae
		s, t = regions(qa, qb, qc, qd, qe, det, sn, tn)
		return s, t, dist(s, t)
	}
	// Parallel: the minimum lies on an edge of the parameter square; take
	// the best of the four edge minima (ties go to the earlier edge).
	cands := [4][2]float64{
		{0, clamp01f(-qe / qc)},
		{1, clamp01f(-(qb + qe) / qc)},
		{clamp01f(-qd / qa), 0},
		{clamp01f(-(qb + qd) / qa), 1},
	}
	dist2 = math.Inf(1)
	for _, p := range cands {
		if v := dist(p[0], p[1]); v < dist2 {
			s, t, dist2 = p[0], p[1], v
		}
	}
	return s, t, dist2
}

// parallelEps is the relative tolerance of the parallel test, det <=
// parallelEps*a*c, that is sin^2 of the angle between the segments below
// 1e-24. det = |M0 x M1|^2 is exactly 0 for exactly parallel float32 input
// whose differences are exact in float64, and otherwise (coordinates of
// wildly different magnitudes) near (1e-16)^2 ac; treating angles below
// 1e-12 rad as parallel costs at most about 1e-12 x length, since the edge
// minima are then within that of the interior one.
const parallelEps = 1e-24

// regions minimizes Q over [0,1]^2 for a, c > 0, det = ac - b^2 clearly
// positive, sn = be - cd and tn = bd - ae (Eberly's nine regions).
func regions(a, b, c, d, e, det, sn, tn float64) (s, t float64) {
	switch {
	case sn >= 0 && sn <= det && tn >= 0 && tn <= det: // region 0: interior
		inv := 1 / det
		return sn * inv, tn * inv
	case sn >= 0 && sn <= det && tn > det: // region 3: edge t=1
		return clamp01f(-(b + d) / a), 1
	case sn >= 0 && sn <= det: // region 7 (tn < 0): edge t=0
		return clamp01f(-d / a), 0
	case sn > det && tn >= 0 && tn <= det: // region 1: edge s=1
		return 1, clamp01f(-(b + e) / c)
	case sn < 0 && tn >= 0 && tn <= det: // region 5: edge s=0
		return 0, clamp01f(-e / c)
	case sn > det && tn > det: // region 2: corner (1,1)
		// The gradient at the corner has at most one component pointing
		// into the square; follow that edge.
		if a+b+d > 0 { // dQ/ds > 0 at (1,1): minimum on edge t=1
			return clamp01f(-(b + d) / a), 1
		}
		return 1, clamp01f(-(b + e) / c)
	case sn > det: // region 8 (tn < 0): corner (1,0)
		if a+d > 0 {
			return clamp01f(-d / a), 0
		}
		return 1, clamp01f(-(b + e) / c)
	case tn > det: // region 4 (sn < 0): corner (0,1)
		if b+d < 0 {
			return clamp01f(-(b + d) / a), 1
		}
		return 0, clamp01f(-e / c)
	default: // region 6 (sn < 0, tn < 0): corner (0,0)
		if d < 0 {
			return clamp01f(-d / a), 0
		}
		return 0, clamp01f(-e / c)
	}
}

func clamp01f(x float64) float64 {
	if x > 1 {
		return 1
	}
	if x < 0 {
		return 0
	}
	return x
}

func sub3(x, y [3]float64) [3]float64 { return [3]float64{x[0] - y[0], x[1] - y[1], x[2] - y[2]} }

func dot3(x, y [3]float64) float64 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }

// Cross3 returns x cross y, each component within about one ulp: a
// component is a difference of two products that may nearly cancel, so it
// is computed with Kahan's fused difference of products. It is the cross
// product of the float64 references (and of the tests' own checks), exact
// enough that |M0 x M1|^2 keeps its relative accuracy for nearly parallel
// axes.
func Cross3(x, y [3]float64) [3]float64 {
	return [3]float64{
		diffOfProducts(x[1], y[2], x[2], y[1]),
		diffOfProducts(x[2], y[0], x[0], y[2]),
		diffOfProducts(x[0], y[1], x[1], y[0]),
	}
}

// diffOfProducts returns p*q - r*s with an error of at most about 1.5 ulp
// (Kahan): w = r*s rounded, its rounding error recovered exactly by an FMA
// (math.FMA is a true fused multiply-add on every platform, in software
// where the CPU has none).
func diffOfProducts(p, q, r, s float64) float64 {
	w := r * s
	errW := math.FMA(-r, s, w) // w - r*s, exactly
	return math.FMA(p, q, -w) + errW
}

// ReferenceF32 widens float32 endpoints and calls Reference.
func ReferenceF32(a, b, c, d [3]float32) (s, t, dist2 float64) {
	w := func(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }
	return Reference(w(a), w(b), w(c), w(d))
}
