// Package fallback holds the pure-Go kernels, which run on every platform
// and define the exact bits every SIMD path must reproduce, and the float64
// scalar reference solver they are all checked against.
//
// # Operation order
//
// ClosestLane is the specification of the plane-projection kernel
// (docs/design.md, "Closest points: the plane projection"); ClosestLane64 is the same code in float64 (both
// instantiate one generic function, so they cannot drift apart). The assembly in package asm performs the same
// IEEE-754 float32 operations in the same order, lane by lane, so S, T and
// Dist2 are bit-identical on every path. To keep that true:
//   - no fused multiply-add: every product that feeds a sum is wrapped as
//     float32(x*y), which the Go spec says must round (the compiler fuses
//     x*y+z on arm64 and with GOAMD64=v3 otherwise);
//   - true division, no reciprocal estimates;
//   - clamps as min then max with x as the first operand of x86
//     MINPS/MAXPS, which return the second operand on ties and NaN: -0
//     becomes +0 and NaN becomes 1 (clamp01). Within the finite range a
//     parameter is NaN only for non-finite input, whose Dist2 the last
//     rule canonicalises; far beyond it (|u|^2 overflowing to +Inf) a NaN
//     intermediate clamps to 1 and the lane's finite result is meaningless
//     but still the same bits on every path;
//   - division by an exact zero yields 0 (divOrZero), the mask-and-blend
//     of the SIMD paths;
//   - a lane whose Dist2 is not finite (NaN or Inf input, or |coordinate|
//     far beyond 1e18) has S, T and Dist2 all set to the canonical quiet NaN
//     (bits 0x7FC00000), so that NaN payloads, which differ between
//     platforms, never leak into the results.
package fallback

import "math"

// CanonicalNaN is the quiet NaN, bits 0x7FC00000, that every float32
// kernel writes to S, T and Dist2 of a lane whose squared distance is not
// finite.
var CanonicalNaN = math.Float32frombits(0x7FC00000)

// CanonicalNaN64 is the float64 kernels' canonical quiet NaN, bits
// 0x7FF8000000000000.
var CanonicalNaN64 = math.Float64frombits(0x7FF8000000000000)

// clamp01 returns max(min(x, 1), 0) with x as the first source of x86
// VMINPS/VMAXPS (x < 1 ? x : 1, then x > 0 ? x : 0): the second operand
// wins on ties and NaN, so -0 becomes +0 (no "-0" parameters for users to
// print) and NaN becomes 1.
func clamp01[F Float](x F) F {
	if !(x < 1) {
		x = 1
	}
	if !(x > 0) {
		x = 0
	}
	return x
}

// divOrZero returns n/d, or 0 when d is zero (the masked division of the
// SIMD paths; d != 0 is the unordered-not-equal compare, true for NaN).
func divOrZero[F Float](n, d F) F {
	if d != 0 {
		return n / d
	}
	return 0
}

// recipOrZero returns 1/l for l >= the smallest normal (2^-126 in
// float32, 2^-1022 in float64) and 0 otherwise (including NaN): the
// reciprocal of a smaller l overflows. SIMD: an ordered >= compare and a
// masked division.
func recipOrZero[F Float](l F) F {
	if l >= minNormal[F]() {
		return 1 / l
	}
	return 0
}

// dot returns x.y as ((x0*y0) + (x1*y1)) + (x2*y2), each product rounded.
func dot[F Float](x0, x1, x2, y0, y1, y2 F) F {
	return F(F(x0*y0)+F(x1*y1)) + F(x2*y2)
}

// ClosestLane computes the closest points of segment 1 (A to B) and
// segment 2 (C to D) by plane projection. It returns the parameter s of the
// point on segment 1, t on segment 2 and their squared distance. This
// function (with project) is the bit-exact specification every kernel
// follows.
func ClosestLane(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz float32) (s, t, dist2 float32) {
	return closestLane(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
}

// ClosestLane64 is ClosestLane in float64: the same operations in the
// same order, rounded to float64 (the spec of the float64 kernels).
func ClosestLane64(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz float64) (s, t, dist2 float64) {
	return closestLane(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
}

// ClosestLaneOf is ClosestLane or ClosestLane64, for code generic in the
// element type.
func ClosestLaneOf[F Float](ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz F) (s, t, dist2 F) {
	return closestLane(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
}

func closestLane[F Float](ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz F) (s, t, dist2 F) {
	var p projection[F]
	p.project(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
	// Non-finite lanes: canonical NaN everywhere (see the package doc).
	if !(p.dist2 <= maxFinite[F]()) {
		nan := canonicalNaN[F]()
		return nan, nan, nan
	}
	return p.s, p.t, p.dist2
}

// projection holds the results of the plane projection and the
// intermediate values the contact kernel reuses. Vectors are relative:
// M0 = B-A, u = D-C, E = A-C, tu = Q-C, r = P-Q.
type projection[F Float] struct {
	m0x, m0y, m0z F
	ux, uy, uz    F
	ex, ey, ez    F
	l             F // |u|^2
	invL          F // 1/|u|^2, 0 when C = D
	ka, kb        F // (u.E)/|u|^2 and (u.M0)/|u|^2: A and B-A along u
	den1          F // |B'-A'|^2 = |M0|^2 sin^2(angle between the axes)
	a             F // |M0|^2
	s, t          F
	tux, tuy, tuz F
	rx, ry, rz    F
	dist2         F
}

// project runs steps 1-4 of the plane projection (docs/design.md,
// "Closest points: the plane projection") and stores the results in p.
func (p *projection[F]) project(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz F) {
	// Edge vectors M0 = B-A, u = D-C and the offset E = A-C; every later
	// point is taken relative to A or C so that far-from-origin pairs keep
	// their precision.
	m0x, m0y, m0z := bx-ax, by-ay, bz-az
	ux, uy, uz := dx-cx, dy-cy, dz-cz
	ex, ey, ez := ax-cx, ay-cy, az-cz

	// Step 1: project onto the plane through C perpendicular to u.
	// invL is 1/|u|^2, or 0 for a zero-length second segment (C = D), which
	// turns every projection below into the identity and forces t = 0.
	// Segments shorter than about 1.1e-19 (|u|^2 below the smallest normal
	// float32; 1.5e-154 in float64) count as zero-length too: 1/|u|^2 would overflow to +Inf and
	// turn 0*Inf into NaN.
	l := dot(ux, uy, uz, ux, uy, uz)
	invL := recipOrZero(l)
	// 1/|M0|^2 for step 4, computed here where it depends only on the
	// inputs, so that the division overlaps the chain of steps 1-3.
	// Segments shorter than about 1.1e-19 count as points, as for u.
	a := dot(m0x, m0y, m0z, m0x, m0y, m0z)
	invA := recipOrZero(a)
	ka := F(dot(ux, uy, uz, ex, ey, ez) * invL) // A' = A - ka u
	um := dot(ux, uy, uz, m0x, m0y, m0z)
	kb := F(um * invL) // B'-A' = M0 - kb u
	// E.M0 for step 4, which then needs no vector of steps 2-3.
	em := dot(ex, ey, ez, m0x, m0y, m0z)
	// nx: C - A' (relative to C: ka u - E); wx: B' - A'.
	nx, ny, nz := F(ux*ka)-ex, F(uy*ka)-ey, F(uz*ka)-ez
	wx, wy, wz := m0x-F(ux*kb), m0y-F(uy*kb), m0z-F(uz*kb)

	// Step 2: closest point of the projected segment A'B' to the projected
	// line (the point C): s1 = clamp01((C-A').(B'-A') / |B'-A'|^2), 0 when
	// A' = B' (parallel segments or A = B).
	den1 := dot(wx, wy, wz, wx, wy, wz)
	s1 := clamp01(divOrZero(dot(nx, ny, nz, wx, wy, wz), den1))

	// Step 3: P = A + s1 M0; t = clamp01((P-C).u / |u|^2). With P-C =
	// E + s1 M0 that is clamp01(ka + s1 kb): the rounding differs from
	// forming P-C first, the error bound does not (the cancellation is the
	// same one, in ka + s1 kb instead of E + s1 M0; TestClosestLaneExact),
	// and ten operations go.
	t := clamp01(ka + F(s1*kb))

	// Step 4: Q = C + t u; s = clamp01((Q-A).M0 / |M0|^2), 0 when A = B.
	// With Q-A = t u - E that is clamp01((t u.M0 - E.M0) / |M0|^2), two
	// operations after t instead of seven.
	s := clamp01(F((F(t*um) - em) * invA))
	tux, tuy, tuz := F(ux*t), F(uy*t), F(uz*t)

	// P - Q = (E + s M0) - t u.
	rx := (ex + F(m0x*s)) - tux
	ry := (ey + F(m0y*s)) - tuy
	rz := (ez + F(m0z*s)) - tuz
	*p = projection[F]{
		m0x: m0x, m0y: m0y, m0z: m0z, ux: ux, uy: uy, uz: uz, ex: ex, ey: ey, ez: ez,
		l: l, invL: invL, ka: ka, kb: kb, den1: den1, a: a, s: s, t: t,
		tux: tux, tuy: tuy, tuz: tuz, rx: rx, ry: ry, rz: rz,
		dist2: dot(rx, ry, rz, rx, ry, rz),
	}
}

// BatchClosest runs ClosestLane on the first n elements of each slice and
// writes s[i], t[i], dist2[i]. Every slice must have at least n elements;
// callers check lengths (package kernel does, with a clear message).
func BatchClosest(n int, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2 []float32) {
	batchClosest(n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2)
}

// BatchClosest64 is BatchClosest in float64 (ClosestLane64).
func BatchClosest64(n int, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2 []float64) {
	batchClosest(n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2)
}

func batchClosest[F Float](n int, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2 []F) {
	// One bounds check per slice, so the loop body has none.
	ax, ay, az = ax[:n], ay[:n], az[:n]
	bx, by, bz = bx[:n], by[:n], bz[:n]
	cx, cy, cz = cx[:n], cy[:n], cz[:n]
	dx, dy, dz = dx[:n], dy[:n], dz[:n]
	s, t, dist2 = s[:n], t[:n], dist2[:n]
	for i := range n {
		s[i], t[i], dist2[i] = closestLane(ax[i], ay[i], az[i], bx[i], by[i], bz[i],
			cx[i], cy[i], cz[i], dx[i], dy[i], dz[i])
	}
}

// BatchStream is the memory-bound baseline: it reads all twelve inputs of
// the first n pairs and writes s[i] = ax+bx+cx+dx, t[i] the same over Y,
// dist2[i] over Z, with no closest-point math.
func BatchStream(n int, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2 []float32) {
	ax, ay, az = ax[:n], ay[:n], az[:n]
	bx, by, bz = bx[:n], by[:n], bz[:n]
	cx, cy, cz = cx[:n], cy[:n], cz[:n]
	dx, dy, dz = dx[:n], dy[:n], dz[:n]
	s, t, dist2 = s[:n], t[:n], dist2[:n]
	for i := range n {
		s[i] = ((ax[i] + bx[i]) + cx[i]) + dx[i]
		t[i] = ((ay[i] + by[i]) + cy[i]) + dy[i]
		dist2[i] = ((az[i] + bz[i]) + cz[i]) + dz[i]
	}
}
