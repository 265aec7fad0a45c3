package fallback

import "math"

// ReferenceTOI is the float64 value reference of the time of impact, for
// tests: branch and bound over t of the distance d(t) between the axes
// interpolated in float64 from the given endpoints, each evaluated with
// Reference (Eberly's solver). It returns the first time at which d(t) <=
// target + eps, found to within eps of the distance: TOIInitial when that
// is t = 0, TOIHit with the time otherwise, TOIMiss when d(t) > target on
// all of [0, tmax] (tmax clamped to [0, 1]), TOIUnconverged when maxEval
// evaluations did not decide, and TOIInvalid for non-finite input. target
// is the caller's (TOITargetOf gives the spec's).
//
// The bound: for fixed parameters on the two axes, their difference moves
// linearly in t, at a speed that is largest at one of the four endpoint
// pairs, so d is Lipschitz with K = max |v_x - v_y| over the endpoints x
// of I and y of J. On [t0, t1] the distance is then at least
// (d(t0) + d(t1) - K (t1-t0))/2. Intervals whose bound exceeds the target
// are dropped; the others are halved, left first, so the first time found
// is the earliest. The number of evaluations grows like K/sqrt(c eps)
// near a tangential touch of curvature c; maxEval bounds it.
func ReferenceTOI(i, j SweptCapsule64, target, tmax, eps float64, maxEval int) (TOIStatus, float64) {
	pts := [8][3]float64{i.A0, i.B0, j.A0, j.B0, i.A1, i.B1, j.A1, j.B1}
	for _, v := range pts {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return TOIInvalid, math.NaN()
			}
		}
	}
	if math.IsNaN(target) || math.IsNaN(tmax) || math.IsNaN(eps) {
		return TOIInvalid, math.NaN()
	}
	tmax = clamp01f(tmax)
	// Frame at C0, as the spec's.
	o := j.A0
	var x0, v [4][3]float64
	for k := range 4 {
		for c := range 3 {
			x0[k][c] = pts[k][c] - o[c]
			v[k][c] = pts[k+4][c] - pts[k][c]
		}
	}
	var kmax float64
	for _, xy := range [4][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}} {
		w := sub3(v[xy[0]], v[xy[1]])
		kmax = math.Max(kmax, math.Sqrt(dot3(w, w)))
	}
	evals := 0
	dist := func(t float64) float64 {
		evals++
		var p [4][3]float64
		for k := range 4 {
			for c := range 3 {
				p[k][c] = x0[k][c] + t*v[k][c]
			}
		}
		_, _, d2 := Reference(p[0], p[1], p[2], p[3])
		return math.Sqrt(d2)
	}
	r := refSearch{dist: dist, kmax: kmax, target: target, reach: target + eps, eps: eps, maxEval: maxEval, evals: &evals}
	d0 := dist(0)
	if d0 <= r.reach {
		return TOIInitial, 0
	}
	d1 := dist(tmax)
	st, t := r.first(0, d0, tmax, d1)
	if st == TOIMiss {
		t = tmax
		if d1 <= r.reach {
			st = TOIHit
		}
	}
	return st, t
}

// refSearch is ReferenceTOI's branch and bound.
type refSearch struct {
	dist                     func(float64) float64
	kmax, target, reach, eps float64
	maxEval                  int
	evals                    *int
}

// first returns the first time in (t0, t1] at which d is within reach,
// given d(t0) = d0 > reach and d(t1) = d1: TOIHit and the time, TOIMiss
// when there is none, TOIUnconverged when the evaluations ran out.
func (r *refSearch) first(t0, d0, t1, d1 float64) (TOIStatus, float64) {
	w := t1 - t0
	if (d0+d1-r.kmax*w)/2 > r.target {
		return TOIMiss, 0
	}
	tm := t0 + w/2
	if !(tm > t0 && tm < t1) || r.kmax*w <= r.eps {
		// No room left: with d0 > reach, the bound exceeds the target up
		// to rounding.
		if d1 <= r.reach {
			return TOIHit, t1
		}
		return TOIMiss, 0
	}
	if *r.evals >= r.maxEval {
		return TOIUnconverged, t0
	}
	dm := r.dist(tm)
	if dm <= r.reach {
		if st, t := r.first(t0, d0, tm, dm); st != TOIMiss {
			return st, t
		}
		return TOIHit, tm
	}
	if st, t := r.first(t0, d0, tm, dm); st != TOIMiss {
		return st, t
	}
	return r.first(tm, dm, t1, d1)
}
