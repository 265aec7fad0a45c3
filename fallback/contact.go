package fallback

import "math"

// ParallelTolerance2 is the squared sine of the largest angle between two
// capsule axes that ContactLane treats as parallel (about 0.57 degrees):
// overlapping parallel capsules get a two-point manifold, the ends of the
// overlap, as resting contact (stacking) needs.
const ParallelTolerance2 = 1e-4

// sqrt32 is the correctly rounded float32 square root (VSQRTPS): the
// float64 square root of a float32 rounds to the same float32.
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

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
const crossTol2 float32 = 0x1p-34

// signTol2 is the square of 32 eps32: r.k/|k| must be at least this far
// below zero (relative to the same length) to flip the cross product.
const signTol2 float32 = 0x1p-36

// minps and maxps are x86 MINPS/MAXPS: the second operand on ties and NaN.
func minps(x, y float32) float32 {
	if x < y {
		return x
	}
	return y
}

func maxps(x, y float32) float32 {
	if x > y {
		return x
	}
	return y
}

// Contact is the contact of two capsules as ContactLane reports it.
type Contact struct {
	// Count is 0 when the capsules are apart (distance between the axes
	// greater than r1 + r2 + margin), 2 for a two-point manifold of
	// overlapping parallel capsules, else 1. Point[1] and Depth[1] repeat
	// point 0 when Count is 1.
	Count uint32
	// Depth is r1 + r2 minus the separation of the axes along Normal at
	// each point: positive when the capsules overlap, negative for a gap
	// within the margin (or at the far end of a two-point manifold).
	Depth [2]float32
	// Normal is the unit normal from capsule 2 toward capsule 1: P-Q
	// normalised, P and Q the closest points of axis 1 and axis 2. When
	// the axes touch, P-Q is rounding noise and says nothing about the
	// direction; then the normal is the normalised cross product k of the
	// unit axes. "Touch" is relative to the pair: |P-Q| below 64 eps32 of
	// the longest of |B-A|, |D-C| and |A-C| (or |P-Q|^2 below 2^-126). k
	// is flipped to point from capsule 2 toward capsule 1 where (P-Q).k is
	// clearly negative (beyond 32 eps32 of that length), and kept as it is
	// otherwise, so that axes that truly cross get the same normal every
	// step. When k is zero too (collinear axes, a sphere centre on the
	// other axis): v x (0,0,1) normalised, v the unit axis 1 (axis 2 if
	// axis 1 has zero length), or v x (1,0,0) if v is along z; for two
	// coincident sphere centres, (0,0,1).
	Normal [3]float32
	// Point holds the contact points, midway between the two surfaces
	// along Normal. With Count 1 it is the point between P and Q. With
	// Count 2 (axes within the parallel tolerance whose projections
	// overlap) the two points are the ends of the overlap taken along axis
	// 2: Q_k = C + t_k (D-C) for t_1 = lo, t_2 = hi, the overlap [lo, hi]
	// of axis 1's projection with [0, 1], each matched to its closest point
	// P_k of axis 1; Depth[k] is r1 + r2 minus the separation (P_k-Q_k)
	// along Normal, and Point[k] is midway between the surfaces there.
	Point [2][3]float32
}

// ContactLane computes the contact of capsule 1 (axis A to B, radius r1)
// and capsule 2 (axis C to D, radius r2) with the given margin. A sphere is
// a capsule with A = B. The closest points of the axes come from the same
// plane projection as ClosestLane, bit for bit. A lane whose inputs are not
// finite gets Count 0 and the canonical NaN in every float.
func ContactLane(ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin float32) (c Contact) {
	var p projection[float32]
	p.project(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)

	// The normal: r = P-Q normalised, unless the axes touch (|r| is
	// rounding noise), then the cross product of the unit axes oriented
	// along r; if that is zero too (parallel axes, a sphere on the other
	// axis), v x (0,0,1) and v x (1,0,0) for v the unit axis 1 (axis 2 if
	// A = B), finally z. A direction is used when its squared length is at
	// least minNormal32 (its square root is then exact to half an ulp); unit
	// axes keep the squares from overflowing. "Touch" is relative to the
	// pair: |r|^2 below crossTol2 m, m = max(|M0|^2, |u|^2, |E|^2), or below
	// minNormal32.
	gx, gy, gz, g2 := p.rx, p.ry, p.rz, p.dist2
	m := maxps(maxps(p.a, p.l), dot(p.ex, p.ey, p.ez, p.ex, p.ey, p.ez))
	tiny := !(g2 >= minNormal32)
	near := g2 < float32(crossTol2*m)
	if tiny || near {
		ia := divOrZero(1, sqrt32(p.a))
		iu := sqrt32(p.invL)
		m0x, m0y, m0z := float32(p.m0x*ia), float32(p.m0y*ia), float32(p.m0z*ia)
		ux, uy, uz := float32(p.ux*iu), float32(p.uy*iu), float32(p.uz*iu)
		kx := float32(m0y*uz) - float32(m0z*uy)
		ky := float32(m0z*ux) - float32(m0x*uz)
		kz := float32(m0x*uy) - float32(m0y*ux)
		if k2 := dot(kx, ky, kz, kx, ky, kz); tiny || k2 >= minNormal32 {
			// Oriented so that n.r >= 0 (from capsule 2 toward capsule 1)
			// where r.k is clearly negative, (r.k)^2 >= signTol2 m k2;
			// else k as it is, so that axes that truly cross get the
			// same normal every step, not one flipped by rounding noise.
			if rk := dot(p.rx, p.ry, p.rz, kx, ky, kz); rk < 0 && float32(rk*rk) >= float32(float32(signTol2*m)*k2) {
				kx, ky, kz = -kx, -ky, -kz
			}
			gx, gy, gz, g2 = kx, ky, kz, k2
		}
		vx, vy, vz := m0x, m0y, m0z
		if p.a == 0 {
			vx, vy, vz = ux, uy, uz
		}
		if !(g2 >= minNormal32) { // v x (0,0,1)
			gx, gy, gz = vy, -vx, 0
			g2 = dot(gx, gy, gz, gx, gy, gz)
		}
		if !(g2 >= minNormal32) { // v x (1,0,0)
			gx, gy, gz = 0, vz, -vy
			g2 = dot(gx, gy, gz, gx, gy, gz)
		}
		if !(g2 >= minNormal32) {
			gx, gy, gz, g2 = 0, 0, 1, 1
		}
	}
	inv := 1 / sqrt32(g2)
	nx, ny, nz := float32(gx*inv), float32(gy*inv), float32(gz*inv)

	dist := sqrt32(p.dist2)
	rsum := r1 + r2
	depth := rsum - dist
	c.Normal = [3]float32{nx, ny, nz}
	if dist <= rsum+margin {
		c.Count = 1
	}

	// The contact point midway between the surfaces, relative to C:
	// Q-C + (r + n (r2-r1)) / 2, where r = P-Q.
	hr := r2 - r1
	point := func(qx, qy, qz, rx, ry, rz float32) [3]float32 {
		return [3]float32{
			cx + (qx + float32((rx+float32(nx*hr))*0.5)),
			cy + (qy + float32((ry+float32(ny*hr))*0.5)),
			cz + (qz + float32((rz+float32(nz*hr))*0.5)),
		}
	}
	c.Depth[0] = depth
	c.Point[0] = point(p.tux, p.tuy, p.tuz, p.rx, p.ry, p.rz)
	c.Depth[1], c.Point[1] = c.Depth[0], c.Point[0]

	// Two-point manifold: nearly parallel axes (|B'-A'|^2 = |M0|^2 sin^2
	// <= tol |M0|^2) of nonzero length whose projections onto axis 2
	// overlap in [lo, hi], lo < hi: one point at each end of the overlap,
	// each with its own depth along the normal.
	ta, tb := p.ka, p.ka+p.kb // A and B along axis 2
	lo := maxps(0, minps(ta, tb))
	hi := minps(1, maxps(ta, tb))
	if c.Count != 0 && p.a != 0 && p.invL != 0 && p.den1 <= float32(ParallelTolerance2*p.a) && lo < hi {
		c.Count = 2
		c.manifold(&p, lo, hi, rsum, nx, ny, nz, point)
	}

	// Non-finite lanes: the depth is not finite (NaN or Inf input), or
	// some output is (far beyond the finite range, where NaN payloads
	// would differ between platforms): Count 0 and the canonical NaN in
	// every float. One sum sees them all.
	sum := c.Depth[0] + c.Depth[1]
	for _, v := range [9]float32{nx, ny, nz, c.Point[0][0], c.Point[0][1], c.Point[0][2], c.Point[1][0], c.Point[1][1], c.Point[1][2]} {
		sum += v
	}
	if !(abs32(depth) <= math.MaxFloat32) || !(abs32(sum) <= math.MaxFloat32) {
		nan := CanonicalNaN
		return Contact{
			Depth:  [2]float32{nan, nan},
			Normal: [3]float32{nan, nan, nan},
			Point:  [2][3]float32{{nan, nan, nan}, {nan, nan, nan}},
		}
	}
	return c
}

// abs32 clears the sign bit.
func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// manifold replaces both points of c by the ends lo, hi of the overlap of
// two parallel axes along axis 2, each with its own depth along n.
func (c *Contact) manifold(p *projection[float32], lo, hi, rsum, nx, ny, nz float32, point func(qx, qy, qz, rx, ry, rz float32) [3]float32) {
	for k, tk := range [2]float32{lo, hi} {
		// Q_k - C = tk u; s_k = clamp01((Q_k-A).M0 / |M0|^2); r_k = P_k - Q_k.
		qx, qy, qz := float32(p.ux*tk), float32(p.uy*tk), float32(p.uz*tk)
		sk := clamp01(divOrZero(dot(qx-p.ex, qy-p.ey, qz-p.ez, p.m0x, p.m0y, p.m0z), p.a))
		rx := (p.ex + float32(p.m0x*sk)) - qx
		ry := (p.ey + float32(p.m0y*sk)) - qy
		rz := (p.ez + float32(p.m0z*sk)) - qz
		c.Depth[k] = rsum - dot(rx, ry, rz, nx, ny, nz)
		c.Point[k] = point(qx, qy, qz, rx, ry, rz)
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
