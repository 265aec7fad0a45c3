// Package fallback holds the pure-Go kernels, which run on every platform
// and define the exact bits every SIMD path must reproduce, and the float64
// scalar reference solver they are all checked against.
//
// # Operation order
//
// ClosestLane is the specification of the plane-projection kernel
// (DESIGN.md section 2). The assembly in package asm performs the same
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

// CanonicalNaN is the quiet NaN, bits 0x7FC00000, that every kernel writes
// to S, T and Dist2 of a lane whose squared distance is not finite.
var CanonicalNaN = math.Float32frombits(0x7FC00000)

// clamp01 returns max(min(x, 1), 0) with x as the first source of x86
// VMINPS/VMAXPS (x < 1 ? x : 1, then x > 0 ? x : 0): the second operand
// wins on ties and NaN, so -0 becomes +0 (no "-0" parameters for users to
// print) and NaN becomes 1.
func clamp01(x float32) float32 {
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
func divOrZero(n, d float32) float32 {
	if d != 0 {
		return n / d
	}
	return 0
}

// minNormal32 is the smallest normal float32, 2^-126.
const minNormal32 = 0x1p-126

// recipOrZero returns 1/l for l >= 2^-126 and 0 otherwise (including NaN):
// the reciprocal of a smaller l overflows. SIMD: an ordered >= compare and
// a masked division.
func recipOrZero(l float32) float32 {
	if l >= minNormal32 {
		return 1 / l
	}
	return 0
}

// dot returns x.y as ((x0*y0) + (x1*y1)) + (x2*y2), each product rounded.
func dot(x0, x1, x2, y0, y1, y2 float32) float32 {
	return float32(float32(x0*y0)+float32(x1*y1)) + float32(x2*y2)
}

// ClosestLane computes the closest points of segment 1 (A to B) and
// segment 2 (C to D) by plane projection. It returns the parameter s of the
// point on segment 1, t on segment 2 and their squared distance. This
// function (with project) is the bit-exact specification every kernel
// follows.
func ClosestLane(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz float32) (s, t, dist2 float32) {
	var p projection
	p.project(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
	// Non-finite lanes: canonical NaN everywhere (see the package doc).
	if !(p.dist2 <= math.MaxFloat32) {
		return CanonicalNaN, CanonicalNaN, CanonicalNaN
	}
	return p.s, p.t, p.dist2
}

// projection holds the results of the plane projection and the
// intermediate values the contact kernel reuses. Vectors are relative:
// M0 = B-A, u = D-C, E = A-C, tu = Q-C, r = P-Q.
type projection struct {
	m0x, m0y, m0z float32
	ux, uy, uz    float32
	ex, ey, ez    float32
	l             float32 // |u|^2
	invL          float32 // 1/|u|^2, 0 when C = D
	ka, kb        float32 // (u.E)/|u|^2 and (u.M0)/|u|^2: A and B-A along u
	den1          float32 // |B'-A'|^2 = |M0|^2 sin^2(angle between the axes)
	a             float32 // |M0|^2
	s, t          float32
	tux, tuy, tuz float32
	rx, ry, rz    float32
	dist2         float32
}

// project runs steps 1-4 of the plane projection (DESIGN.md section 2)
// and stores the results in p.
func (p *projection) project(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz float32) {
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
	// float32) count as zero-length too: 1/|u|^2 would overflow to +Inf and
	// turn 0*Inf into NaN.
	l := dot(ux, uy, uz, ux, uy, uz)
	invL := recipOrZero(l)
	// 1/|M0|^2 for step 4, computed here where it depends only on the
	// inputs, so that the division overlaps the chain of steps 1-3.
	// Segments shorter than about 1.1e-19 count as points, as for u.
	a := dot(m0x, m0y, m0z, m0x, m0y, m0z)
	invA := recipOrZero(a)
	ka := float32(dot(ux, uy, uz, ex, ey, ez) * invL)    // A' = A - ka u
	kb := float32(dot(ux, uy, uz, m0x, m0y, m0z) * invL) // B'-A' = M0 - kb u
	// nx: C - A' (relative to C: ka u - E); wx: B' - A'.
	nx, ny, nz := float32(ux*ka)-ex, float32(uy*ka)-ey, float32(uz*ka)-ez
	wx, wy, wz := m0x-float32(ux*kb), m0y-float32(uy*kb), m0z-float32(uz*kb)

	// Step 2: closest point of the projected segment A'B' to the projected
	// line (the point C): s1 = clamp01((C-A').(B'-A') / |B'-A'|^2), 0 when
	// A' = B' (parallel segments or A = B).
	den1 := dot(wx, wy, wz, wx, wy, wz)
	s1 := clamp01(divOrZero(dot(nx, ny, nz, wx, wy, wz), den1))

	// Step 3: P = A + s1 M0; t = clamp01((P-C).u / |u|^2).
	px, py, pz := ex+float32(m0x*s1), ey+float32(m0y*s1), ez+float32(m0z*s1)
	t := clamp01(float32(dot(px, py, pz, ux, uy, uz) * invL))

	// Step 4: Q = C + t u; s = clamp01((Q-A).M0 / |M0|^2), 0 when A = B.
	tux, tuy, tuz := float32(ux*t), float32(uy*t), float32(uz*t)
	qx, qy, qz := tux-ex, tuy-ey, tuz-ez
	s := clamp01(float32(dot(qx, qy, qz, m0x, m0y, m0z) * invA))

	// P - Q = (E + s M0) - t u.
	rx := (ex + float32(m0x*s)) - tux
	ry := (ey + float32(m0y*s)) - tuy
	rz := (ez + float32(m0z*s)) - tuz
	*p = projection{
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
	// One bounds check per slice, so the loop body has none.
	ax, ay, az = ax[:n], ay[:n], az[:n]
	bx, by, bz = bx[:n], by[:n], bz[:n]
	cx, cy, cz = cx[:n], cy[:n], cz[:n]
	dx, dy, dz = dx[:n], dy[:n], dz[:n]
	s, t, dist2 = s[:n], t[:n], dist2[:n]
	for i := range n {
		s[i], t[i], dist2[i] = ClosestLane(ax[i], ay[i], az[i], bx[i], by[i], bz[i],
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
