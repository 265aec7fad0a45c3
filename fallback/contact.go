package fallback

import "math"

// ParallelTolerance2 is the squared sine of the largest angle between two
// capsule axes that ContactLane treats as parallel (about 0.57 degrees):
// overlapping parallel capsules get a two-point manifold, the ends of the
// overlap, as resting contact (stacking) needs.
const ParallelTolerance2 = 1e-4

// sqrtF is the correctly rounded square root (VSQRTPS, VSQRTPD): for
// float32, the float64 square root rounds to the same float32.
func sqrtF[F Float](x F) F { return F(math.Sqrt(float64(x))) }

// crossTol2 is the square of 64 eps32: |P-Q| below 64 eps32 of the
// pair's longest edge vector (|M0|, |u| or |E|) is taken as axes that
// touch, and the normal is their cross product. Measured on 200,000
// crossing pairs: the direction of r = P-Q is rounding noise (up to 90
// degrees off) below about 2 eps32 of that length, within 6.4 degrees from
// 8 eps32, 1.6 from 32, 1.1 from 64. The noise does not grow with the
// distance from the origin (A-C is exact to half an ulp of the result), so
// the threshold is relative to the pair's own lengths. On axes crossing
// within 64 eps32 x scale (TestContactLaneCrossingWithinResolution) the
// worst normal is 1.5 degrees off the cross product with 32 eps32 here,
// 0.96 with 64, 0.47 with 128.
// In float64 it is the square of 64 eps64, 2^-92 (crossTol2Of).
const crossTol2 float32 = 0x1p-34

// signTol2 is the square of 32 eps32: r.k/|k| must be at least this far
// below zero (relative to the same length) to flip the cross product. In
// float64, 32 eps64 squared, 2^-94.
const signTol2 float32 = 0x1p-36

// perpTol2 is the square of 8 eps32: within the touching band, the cross
// product k replaces r = P-Q only where the part of r across k is below 8
// eps32 of the pair's longest edge vector (in float64, 8 eps64 squared,
// 2^-98). On axes that cross, that part is rounding noise: at most 1.84
// eps32 of that length over the 20,000 pairs of
// TestContactLaneCrossingWithinResolution (measured once, in a scratch
// test: fallback's tests cannot reach the projection's r). Where an end of one axis lies
// near the other axis, r is not along k (it is perpendicular to one axis
// only) and, from 8 eps32 of the length on, it is the direction: k there
// was up to 90 degrees off the normal (FuzzContact found one 49 degrees
// off at 136 eps32 x scale from the other axis, where the contract
// bounds the normal's angle to 0.46 rad).
const perpTol2 float32 = 0x1p-40

// crossTol2Of, signTol2Of and perpTol2Of are crossTol2, signTol2 and
// perpTol2 for F: the same multiples of F's epsilon.
func crossTol2Of[F Float]() F {
	if is32[F]() {
		return F(crossTol2)
	}
	return F(math.Float64frombits(0x3A30000000000000)) // 0x1p-92
}

func signTol2Of[F Float]() F {
	if is32[F]() {
		return F(signTol2)
	}
	return F(math.Float64frombits(0x3A10000000000000)) // 0x1p-94
}

func perpTol2Of[F Float]() F {
	if is32[F]() {
		return F(perpTol2)
	}
	return F(math.Float64frombits(0x39D0000000000000)) // 0x1p-98
}

// minps and maxps are x86 MINPS/MAXPS (MINPD/MAXPD): the second operand
// on ties and NaN.
func minps[F Float](x, y F) F {
	if x < y {
		return x
	}
	return y
}

func maxps[F Float](x, y F) F {
	if x > y {
		return x
	}
	return y
}

// ContactOf is the contact of two capsules as ContactLane (ContactLane64)
// reports it.
type ContactOf[F Float] struct {
	// Count is 0 when the capsules are apart (distance between the axes
	// greater than r1 + r2 + margin), 2 for a two-point manifold of
	// overlapping parallel capsules, else 1. Point[1] and Depth[1] repeat
	// point 0 when Count is 1.
	Count uint32
	// Depth is r1 + r2 minus the separation of the axes along Normal at
	// each point: positive when the capsules overlap, negative for a gap
	// within the margin (or at the far end of a two-point manifold).
	Depth [2]F
	// Normal is the unit normal from capsule 2 toward capsule 1: P-Q
	// normalised, P and Q the closest points of axis 1 and axis 2. When
	// the axes cross, P-Q is rounding noise and says nothing about the
	// direction; then the normal is the normalised cross product k of the
	// unit axes. "Cross" is relative to the pair: |P-Q| below 64 eps32 of
	// the longest of |B-A|, |D-C| and |A-C|, L, with the part of P-Q across
	// k below 8 eps32 of L (P-Q of crossing axes is perpendicular to both,
	// so along k; where an end of one axis lies near the other axis it is
	// not, and P-Q stays the direction down to 8 eps32 of L); or |P-Q|^2
	// below 2^-126. k is flipped to point from capsule 2 toward capsule 1
	// where (P-Q).k is clearly negative (beyond 32 eps32 of L), and kept
	// as it is otherwise, so that axes that truly cross get the same
	// normal every step. When k is zero too (collinear axes, a sphere
	// centre on the other axis): v x (0,0,1) normalised, v the unit axis 1
	// (axis 2 if axis 1 has zero length), or v x (1,0,0) if v is along z;
	// for two coincident sphere centres, (0,0,1).
	Normal [3]F
	// Point holds the contact points, midway between the two surfaces
	// along Normal. With Count 1 it is Q + Normal (|P-Q| + r2 - r1)/2: on
	// the normal line through Q, midway between Q + r2 Normal (the surface
	// of capsule 2) and Q + (|P-Q| - r1) Normal (that of capsule 1, P -
	// r1 Normal when Normal is along P-Q). With Count 2 (axes within the
	// parallel tolerance whose projections overlap) the two points are
	// the ends of the overlap taken along axis 2: Q_k = C + t_k (D-C) for
	// t_1 = lo, t_2 = hi, the overlap [lo, hi] of axis 1's projection
	// with [0, 1], each matched to its closest point P_k of axis 1;
	// Depth[k] is r1 + r2 minus the separation (P_k-Q_k) along Normal,
	// and Point[k] is midway between P_k - r1 Normal and Q_k + r2 Normal.
	Point [2][3]F
}

// Contact is a float32 contact, Contact64 a float64 one (whose tolerances
// are the same multiples of eps64: 64 eps64 for touching axes, 32 for the
// flip).
type (
	Contact   = ContactOf[float32]
	Contact64 = ContactOf[float64]
)

// ContactLane computes the contact of capsule 1 (axis A to B, radius r1)
// and capsule 2 (axis C to D, radius r2) with the given margin. A sphere is
// a capsule with A = B. The closest points of the axes come from the same
// plane projection as ClosestLane, bit for bit. A lane whose inputs are not
// finite gets Count 0 and the canonical NaN in every float, as does one
// with a negative radius (-0 is zero) and one whose depths overflow (far
// beyond MaxRange); there a lane that is kept may have a point overflowed
// to ±Inf, but never a NaN.
func ContactLane(ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin float32) Contact {
	return contactLane(ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin)
}

// ContactLane64 is ContactLane in float64.
func ContactLane64(ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin float64) Contact64 {
	return contactLane(ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin)
}

// ContactLaneOf is ContactLane or ContactLane64, for code generic in the
// element type.
func ContactLaneOf[F Float](ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin F) ContactOf[F] {
	return contactLane(ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin)
}

func contactLane[F Float](ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin F) (c ContactOf[F]) {
	var p projection[F]
	p.project(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)

	// The normal: P-Q normalised, or a fallback where the axes touch.
	nx, ny, nz := contactNormal(&p)

	dist := sqrtF(p.dist2)
	rsum := r1 + r2
	depth := rsum - dist
	c.Normal = [3]F{nx, ny, nz}
	if dist <= rsum+margin {
		c.Count = 1
	}

	// The contact point midway between the surfaces along n: Q + n w,
	// w = (|r| + r2-r1)/2, Q = C + t u. Q and w are known before n, so
	// only a product and a sum follow the normal.
	hr := r2 - r1
	w := (dist + hr) * 0.5
	c.Depth[0] = depth
	c.Point[0] = [3]F{
		(cx + p.tux) + F(nx*w),
		(cy + p.tuy) + F(ny*w),
		(cz + p.tuz) + F(nz*w),
	}
	c.Depth[1], c.Point[1] = c.Depth[0], c.Point[0]

	// Two-point manifold: nearly parallel axes (|B'-A'|^2 = |M0|^2 sin^2
	// <= tol |M0|^2) of nonzero length whose projections onto axis 2
	// overlap in [lo, hi], lo < hi: one point at each end of the overlap,
	// each with its own depth along the normal.
	ta, tb := p.ka, p.ka+p.kb // A and B along axis 2
	lo := maxps(0, minps(ta, tb))
	hi := minps(1, maxps(ta, tb))
	if c.Count != 0 && p.a != 0 && p.invL != 0 && p.den1 <= F(parTol[F]()*p.a) && lo < hi {
		c.Count = 2
		c.manifold(&p, lo, hi, rsum, hr, cx, cy, cz, nx, ny, nz)
	}

	// Non-finite lanes: Depth[0] + Depth[1] + (r2-r1) is not finite (NaN
	// or Inf input, or finite input whose intermediate values overflow):
	// Count 0 and the canonical NaN in every float. Where that sum is
	// finite, so are both depths, P-Q, t(D-C), E, M0 and r2-r1, the
	// normal is a unit vector, and a point can only overflow to ±Inf
	// (coordinates near MaxFloat32, far beyond MaxRange), the same on
	// every platform; it never becomes a NaN, whose sign and payload
	// would differ (TestContactLaneNaNIsCanonical). The depths and r2-r1
	// are known early, so the check costs far less than summing all
	// eleven outputs, the rule before.
	//
	// A negative radius is bad input too (-0 is zero): the lane gets the
	// same row. minps(r1, r2) < 0 is false for a NaN radius, which the sum
	// catches.
	if sum := c.Depth[0] + c.Depth[1] + hr; !(absF(sum) <= maxFinite[F]()) || minps(r1, r2) < 0 {
		nan := canonicalNaN[F]()
		return ContactOf[F]{
			Depth:  [2]F{nan, nan},
			Normal: [3]F{nan, nan, nan},
			Point:  [2][3]F{{nan, nan, nan}, {nan, nan, nan}},
		}
	}
	return c
}

// contactNormal is the contact normal on the projection p (ContactOf.Normal):
// (P-Q) normalised, unless the axes touch (crossTol2, perpTol2), then the
// oriented cross product of the unit axes, then the fallbacks v x (0,0,1),
// v x (1,0,0) and (0,0,1). A direction is used when its squared length is
// at least minNormal[F]() (its square root is then exact to half an ulp);
// unit axes keep the squares from overflowing. The time-of-impact lane
// takes its normal and axis from it too.
func contactNormal[F Float](p *projection[F]) (nx, ny, nz F) {
	gx, gy, gz, g2 := p.rx, p.ry, p.rz, p.dist2
	m := maxps(maxps(p.a, p.l), dot(p.ex, p.ey, p.ez, p.ex, p.ey, p.ez))
	tiny := !(g2 >= minNormal[F]())
	near := g2 < F(crossTol2Of[F]()*m)
	if tiny || near {
		ia := divOrZero(1, sqrtF(p.a))
		iu := sqrtF(p.invL)
		m0x, m0y, m0z := F(p.m0x*ia), F(p.m0y*ia), F(p.m0z*ia)
		ux, uy, uz := F(p.ux*iu), F(p.uy*iu), F(p.uz*iu)
		kx := F(m0y*uz) - F(m0z*uy)
		ky := F(m0z*ux) - F(m0x*uz)
		kz := F(m0x*uy) - F(m0y*ux)
		// k replaces r where r lies along k up to noise: its part across
		// k, |r|^2 - (r.k)^2/|k|^2, is below perpTol2 m. A crossing has r
		// along k (r is perpendicular to both axes); an end of one axis
		// near the other axis has not, and there r is the direction.
		k2 := dot(kx, ky, kz, kx, ky, kz)
		rk := dot(p.rx, p.ry, p.rz, kx, ky, kz)
		if tiny || k2 >= minNormal[F]() && F(rk*rk) > F(F(p.dist2-F(perpTol2Of[F]()*m))*k2) {
			// Oriented so that n.r >= 0 (from capsule 2 toward capsule 1)
			// where r.k is clearly negative, (r.k)^2 >= signTol2 m k2;
			// else k as it is, so that axes that truly cross get the
			// same normal every step, not one flipped by rounding noise.
			if rk < 0 && F(rk*rk) >= F(F(signTol2Of[F]()*m)*k2) {
				kx, ky, kz = -kx, -ky, -kz
			}
			gx, gy, gz, g2 = kx, ky, kz, k2
		}
		vx, vy, vz := m0x, m0y, m0z
		if p.a == 0 {
			vx, vy, vz = ux, uy, uz
		}
		if !(g2 >= minNormal[F]()) { // v x (0,0,1)
			gx, gy, gz = vy, -vx, 0
			g2 = dot(gx, gy, gz, gx, gy, gz)
		}
		if !(g2 >= minNormal[F]()) { // v x (1,0,0)
			gx, gy, gz = 0, vz, -vy
			g2 = dot(gx, gy, gz, gx, gy, gz)
		}
		if !(g2 >= minNormal[F]()) {
			gx, gy, gz, g2 = 0, 0, 1, 1
		}
	}
	inv := 1 / sqrtF(g2)
	return F(gx * inv), F(gy * inv), F(gz * inv)
}

// absF clears the sign bit.
func absF[F Float](x F) F { return F(math.Abs(float64(x))) }

// parTol is ParallelTolerance2 in F: float32(1e-4) or float64 1e-4.
func parTol[F Float]() F {
	if is32[F]() {
		return F(float32(ParallelTolerance2))
	}
	return F(math.Float64frombits(0x3F1A36E2EB1C432D)) // 1e-4
}

// manifold replaces both points of c by the ends lo, hi of the overlap of
// two parallel axes along axis 2, each with its own depth along n and its
// point midway between P_k - r1 n and Q_k + r2 n: C + (Q_k-C + (r_k + n
// (r2-r1))/2). (r_k is not along n there, so the single point's Q + n w
// would not be midway.)
func (c *ContactOf[F]) manifold(p *projection[F], lo, hi, rsum, hr, cx, cy, cz, nx, ny, nz F) {
	for k, tk := range [2]F{lo, hi} {
		// Q_k - C = tk u; s_k = clamp01((Q_k-A).M0 / |M0|^2); r_k = P_k - Q_k.
		qx, qy, qz := F(p.ux*tk), F(p.uy*tk), F(p.uz*tk)
		sk := clamp01(divOrZero(dot(qx-p.ex, qy-p.ey, qz-p.ez, p.m0x, p.m0y, p.m0z), p.a))
		rx := (p.ex + F(p.m0x*sk)) - qx
		ry := (p.ey + F(p.m0y*sk)) - qy
		rz := (p.ez + F(p.m0z*sk)) - qz
		c.Depth[k] = rsum - dot(rx, ry, rz, nx, ny, nz)
		c.Point[k] = [3]F{
			cx + (qx + F((rx+F(nx*hr))*0.5)),
			cy + (qy + F((ry+F(ny*hr))*0.5)),
			cz + (qz + F((rz+F(nz*hr))*0.5)),
		}
	}
}

// ClosestPointLane computes the closest point of segment C to D to the
// point P: the parameter t in [0,1] of C + t(D-C) and the squared distance,
// computed from the difference vector (never as a difference of squares,
// which can go negative). A zero-length segment gives t = 0 and the exact
// point-point distance; non-finite input gives the canonical NaN in both.
func ClosestPointLane(px, py, pz, cx, cy, cz, dx, dy, dz float32) (t, dist2 float32) {
	return closestPointLane(px, py, pz, cx, cy, cz, dx, dy, dz)
}

// ClosestPointLane64 is ClosestPointLane in float64.
func ClosestPointLane64(px, py, pz, cx, cy, cz, dx, dy, dz float64) (t, dist2 float64) {
	return closestPointLane(px, py, pz, cx, cy, cz, dx, dy, dz)
}

func closestPointLane[F Float](px, py, pz, cx, cy, cz, dx, dy, dz F) (t, dist2 F) {
	ux, uy, uz := dx-cx, dy-cy, dz-cz
	ex, ey, ez := px-cx, py-cy, pz-cz
	t = clamp01(divOrZero(dot(ex, ey, ez, ux, uy, uz), dot(ux, uy, uz, ux, uy, uz)))
	// Q - P = t u - (P-C).
	rx, ry, rz := F(ux*t)-ex, F(uy*t)-ey, F(uz*t)-ez
	dist2 = dot(rx, ry, rz, rx, ry, rz)
	if !(dist2 <= maxFinite[F]()) {
		nan := canonicalNaN[F]()
		return nan, nan
	}
	return t, dist2
}

// BatchClosestPoint runs ClosestPointLane on the first n elements of each
// slice. Callers check lengths.
func BatchClosestPoint(n int, px, py, pz, cx, cy, cz, dx, dy, dz, t, dist2 []float32) {
	batchClosestPoint(n, px, py, pz, cx, cy, cz, dx, dy, dz, t, dist2)
}

// BatchClosestPoint64 is BatchClosestPoint in float64 (ClosestPointLane64).
func BatchClosestPoint64(n int, px, py, pz, cx, cy, cz, dx, dy, dz, t, dist2 []float64) {
	batchClosestPoint(n, px, py, pz, cx, cy, cz, dx, dy, dz, t, dist2)
}

func batchClosestPoint[F Float](n int, px, py, pz, cx, cy, cz, dx, dy, dz, t, dist2 []F) {
	px, py, pz = px[:n], py[:n], pz[:n]
	cx, cy, cz = cx[:n], cy[:n], cz[:n]
	dx, dy, dz = dx[:n], dy[:n], dz[:n]
	t, dist2 = t[:n], dist2[:n]
	for i := range n {
		t[i], dist2[i] = closestPointLane(px[i], py[i], pz[i], cx[i], cy[i], cz[i], dx[i], dy[i], dz[i])
	}
}
