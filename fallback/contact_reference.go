package fallback

import "math"

// ReferenceContact computes the contact of capsule 1 (axis a to b, radius
// r1) and capsule 2 (axis c to d, radius r2) with the given margin in
// float64, independently of the float32 operation order of ContactLane:
// it is the oracle the tests check ContactLane and every kernel path
// against, within tolerances (never bit for bit).
//
// The construction follows the documented meaning of fallback.Contact:
//   - the closest points P = a + s(b-a) and Q = c + t(d-c) of the axes
//     come from Reference (Eberly's region solver in float64);
//   - the normal is (P-Q)/|P-Q|, from capsule 2 toward capsule 1. When
//     |P-Q| is not clearly above float64 rounding (|P-Q| <= 2^-40 x the
//     largest |coordinate|, or zero) the axes are taken to intersect and
//     the normal is the documented fallback: the normalised cross product
//     of the axes (b-a) x (d-c); if that is zero (within the same relative
//     tolerance) v x (0,0,1) normalised, v the unit axis 1 (axis 2 if
//     a = b), or v x (1,0,0) if v is along z; for two coincident centres
//     (0,0,1);
//   - the capsules touch (count >= 1) when |P-Q| <= r1 + r2 + margin;
//   - depth is r1 + r2 - |P-Q| and the contact point lies midway between
//     the two surfaces along the normal: (P - r1 n + Q + r2 n) / 2;
//   - two-point manifold: when both axes have nonzero length, they are
//     nearly parallel, |M0 x M1|^2 <= ParallelTolerance2 |M0|^2 |M1|^2
//     (M0 = b-a, M1 = d-c), and the projection [ta, tb] of axis 1 onto
//     axis 2 (in the parameter of axis 2) overlaps [0,1] in an interval
//     [lo, hi] with lo < hi, the contact has two points: for tk = lo, hi
//     the point Qk = c + tk M1 of axis 2, matched to its closest point Pk
//     of axis 1, with depth r1 + r2 - (Pk-Qk).n along the common normal n
//     and the point midway between the surfaces along n,
//     Qk + ((Pk-Qk) + (r2-r1) n)/2.
//
// With count 1 (and count 0) depth[1] and points[1] repeat depth[0] and
// points[0]. Non-finite input gives count 0 and NaN everywhere.
func ReferenceContact(a, b [3]float64, r1 float64, c, d [3]float64, r2, margin float64) (count int, depth [2]float64, normal [3]float64, points [2][3]float64) {
	nan := math.NaN()
	for _, v := range [][3]float64{a, b, c, d, {r1, r2, margin}} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, [2]float64{nan, nan}, [3]float64{nan, nan, nan},
					[2][3]float64{{nan, nan, nan}, {nan, nan, nan}}
			}
		}
	}
	scale := 0.0
	for _, v := range [][3]float64{a, b, c, d} {
		for _, x := range v {
			scale = math.Max(scale, math.Abs(x))
		}
	}
	tiny := 0x1p-40 * scale // below this, a length counts as rounding noise

	s, t, _ := Reference(a, b, c, d)
	m0, m1 := sub3(b, a), sub3(d, c)
	p := refAdd3(a, refMul3(m0, s))
	q := refAdd3(c, refMul3(m1, t))
	r := sub3(p, q)
	dist := refNorm3(r)

	normal = refNormal(r, dist, m0, m1, tiny)
	rsum := r1 + r2
	if dist <= rsum+margin {
		count = 1
	}
	mid := func(q, r [3]float64) [3]float64 {
		// Q + (r + (r2-r1) n)/2: midway between P - r1 n and Q + r2 n.
		return refAdd3(q, refMul3(refAdd3(r, refMul3(normal, r2-r1)), 0.5))
	}
	depth[0] = rsum - dist
	points[0] = mid(q, r)
	depth[1], points[1] = depth[0], points[0]

	qa, qc := dot3(m0, m0), dot3(m1, m1)
	if count == 0 || qa == 0 || qc == 0 {
		return count, depth, normal, points
	}
	cr := Cross3(m0, m1)
	if !(dot3(cr, cr) <= ParallelTolerance2*qa*qc) {
		return count, depth, normal, points
	}
	ta := dot3(sub3(a, c), m1) / qc
	tb := dot3(sub3(b, c), m1) / qc
	lo := math.Max(0, math.Min(ta, tb))
	hi := math.Min(1, math.Max(ta, tb))
	if !(lo < hi) {
		return count, depth, normal, points
	}
	count = 2
	for k, tk := range [2]float64{lo, hi} {
		qk := refAdd3(c, refMul3(m1, tk))
		sk := clamp01f(dot3(sub3(qk, a), m0) / qa)
		pk := refAdd3(a, refMul3(m0, sk))
		rk := sub3(pk, qk)
		depth[k] = rsum - dot3(rk, normal)
		points[k] = mid(qk, rk)
	}
	return count, depth, normal, points
}

// refNormal is the normal of ReferenceContact: r/|r| when |r| > tiny,
// else the documented fallbacks.
func refNormal(r [3]float64, dist float64, m0, m1 [3]float64, tiny float64) [3]float64 {
	if dist > tiny && dist > 0 {
		return refMul3(r, 1/dist)
	}
	unit := func(v [3]float64) ([3]float64, bool) {
		l := refNorm3(v)
		if l == 0 {
			return v, false
		}
		return refMul3(v, 1/l), true
	}
	u0, ok0 := unit(m0)
	u1, ok1 := unit(m1)
	if ok0 && ok1 {
		// The relative tolerance mirrors the distance test: a cross
		// product of unit axes below 2^-40 is rounding noise.
		if g := Cross3(u0, u1); refNorm3(g) > 0x1p-40 {
			n, _ := unit(g)
			return n
		}
	}
	v := u0
	if !ok0 {
		v = u1
	}
	if !ok0 && !ok1 {
		return [3]float64{0, 0, 1}
	}
	if g := [3]float64{v[1], -v[0], 0}; refNorm3(g) > 0x1p-40 { // v x (0,0,1)
		n, _ := unit(g)
		return n
	}
	n, _ := unit([3]float64{0, v[2], -v[1]}) // v x (1,0,0)
	return n
}

// ReferenceClosestPoint returns the parameter t in [0,1] of the point of
// segment c to d closest to p, and the squared distance, in float64: t is
// the clamped projection (p-c).(d-c)/|d-c|^2 (0 for a zero-length
// segment), the distance is taken from the difference vector.
func ReferenceClosestPoint(p, c, d [3]float64) (t, dist2 float64) {
	u := sub3(d, c)
	if l := dot3(u, u); l > 0 {
		t = clamp01f(dot3(sub3(p, c), u) / l)
	}
	r := sub3(refAdd3(c, refMul3(u, t)), p)
	return t, dot3(r, r)
}

// ReferenceContactF32 widens float32 input and calls ReferenceContact.
func ReferenceContactF32(a, b [3]float32, r1 float32, c, d [3]float32, r2, margin float32) (count int, depth [2]float64, normal [3]float64, points [2][3]float64) {
	return ReferenceContact(refWiden(a), refWiden(b), float64(r1), refWiden(c), refWiden(d), float64(r2), float64(margin))
}

func refWiden(v [3]float32) [3]float64 {
	return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
}

func refAdd3(x, y [3]float64) [3]float64 { return [3]float64{x[0] + y[0], x[1] + y[1], x[2] + y[2]} }

func refMul3(x [3]float64, k float64) [3]float64 { return [3]float64{x[0] * k, x[1] * k, x[2] * k} }

func refNorm3(x [3]float64) float64 { return math.Sqrt(dot3(x, x)) }
