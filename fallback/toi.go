package fallback

import (
	"math"
	"unsafe"
)

// Swept capsules: the time of impact (TOI) of two capsules whose axis
// endpoints each move linearly over a step, by conservative advancement
// on a fixed axis driven by the plane projection of ClosestLane.
//
// # The method
//
// Every point is first taken relative to C0, the start of capsule J's
// first endpoint, so that the rounding follows the pair's own size and
// not its distance from the origin. An endpoint X moves as
// x(t) = x0 + t v, with x0 = X0 - C0 and v = X1 - X0. With the radius of
// each capsule the larger of its two poses' radii,
//
//	tol    = max(Tol, 32 eps x scale)       (eps = 2^-23, or 2^-52 in float64)
//	target = max(((rI + PadI) + (rJ + PadJ)) + Margin, tol)
//
// where scale is the largest |coordinate| of the shifted endpoints at the
// start and the end of the step. Starting at t = 0, each iteration
//
//  1. interpolates the four endpoints at t and runs the plane projection
//     on them: the closest points P, Q and d = |P-Q|;
//  2. stops when d <= target + tol: Hit, or Initial when t = 0;
//  3. otherwise takes the fixed unit axis n = (P-Q)/d. Along n the
//     separation of the two axes at time τ is
//     min(n.a, n.b) - max(n.c, n.d), the least of the four lines
//     n.(x(τ) - y(τ)), x an endpoint of I and y one of J, each linear in
//     τ. It never exceeds the distance of the axes (any unit vector
//     gives a lower bound) and equals d at τ = t;
//  4. advances t to the first time a decreasing line reaches the target,
//     t + min over those lines of (line - target)/rate. No line
//     decreases, or the new t lies beyond TMax: the pair is a proven
//     Miss. A line already at or below the target at t (the direction n
//     is rounding noise there), or an advance too small to change t,
//     stops the lane as Unconverged: repeating the iteration would repeat
//     its bits.
//
// After MaxIter evaluations without a decision the lane is Unconverged at
// the last t evaluated. Before t every point of the segments is farther
// apart than the target (up to rounding), so an Unconverged T is as safe
// as a Hit's. For pure translation the distance d(t) is convex and the
// iteration is Newton's method from the left: it never overshoots and
// converges quadratically.
//
// # Operation order
//
// The rules of ClosestLane hold (docs/design.md, "The spec's rules
// (determinism)"): every product rounded, true division and square root,
// the MINPS/MAXPS operand rule, the canonical NaN. The only control flow
// that depends on the data is the per-lane loop, whose exit a SIMD lowering
// turns into a lane mask; every branch inside it is a select. The order
// is that of toiLane, line by line.

// TOIStatus says how a time-of-impact query ended.
type TOIStatus uint32

const (
	// TOIMiss: the axes stay farther apart than the target over [0, TMax]
	// (up to rounding). It is the zero value.
	TOIMiss TOIStatus = iota
	// TOIHit: the axes come within target + tol at T > 0, and are farther
	// apart than the target before T.
	TOIHit
	// TOIInitial: the axes are within target + tol at t = 0.
	TOIInitial
	// TOIUnconverged: no decision within MaxIter evaluations, or no
	// progress possible in the lane's precision; before T the axes are
	// farther apart than the target, as for a hit, so T is a safe time to
	// stop the motion at.
	TOIUnconverged
	// TOIInvalid: an input is not finite, a radius or pad is negative, or
	// the distance overflows (coordinates far beyond 1e18, 1e150 in
	// float64). Every float of the result is the canonical NaN and Iter is
	// 0.
	TOIInvalid
)

// String returns the status's name: "miss", "hit", "initial",
// "unconverged" or "invalid".
func (s TOIStatus) String() string {
	switch s {
	case TOIMiss:
		return "miss"
	case TOIHit:
		return "hit"
	case TOIInitial:
		return "initial"
	case TOIUnconverged:
		return "unconverged"
	case TOIInvalid:
		return "invalid"
	}
	return "TOIStatus(?)"
}

// SweptCapsuleOf is one capsule over a step: its axis A0 to B0 with
// radius R0 at the start, A1 to B1 with radius R1 at the end. Each
// endpoint moves linearly in between, and the radius of the swept capsule
// is max(R0, R1). Pad widens the capsule for the query only: SweepPad
// gives the padding that covers a rotation.
type SweptCapsuleOf[F Float] struct {
	A0, B0 [3]F
	R0     F
	A1, B1 [3]F
	R1     F
	Pad    F
}

// SweptCapsule is a float32 swept capsule, SweptCapsule64 a float64 one.
type (
	SweptCapsule   = SweptCapsuleOf[float32]
	SweptCapsule64 = SweptCapsuleOf[float64]
)

// TOIParamsOf are the parameters of a time-of-impact query.
type TOIParamsOf[F Float] struct {
	// Margin is added to the sum of the radii and pads; it may be
	// negative (a hit then needs that much overlap).
	Margin F
	// Tol is the distance tolerance: a hit is reported within target +
	// tol. It is raised to 32 eps x scale (TOITargetOf), so zero asks for
	// the tightest answer the precision allows.
	Tol F
	// TMax ends the search interval [0, TMax]; it is clamped to [0, 1].
	TMax F
	// MaxIter is the largest number of closest-point evaluations per
	// pair; below 1 it counts as 1.
	MaxIter int
}

// TOIParams are float32 parameters, TOIParams64 float64 ones.
type (
	TOIParams   = TOIParamsOf[float32]
	TOIParams64 = TOIParamsOf[float64]
)

// TOIOf is the result of a time-of-impact query.
type TOIOf[F Float] struct {
	Status TOIStatus
	// T is the time reached: the time of impact of a Hit, 0 for Initial,
	// the last safe time of Unconverged and the last time evaluated of a
	// Miss (whose proof covers all of [0, TMax]).
	T F
	// Dist is the distance of the axes at T as the projection computes it:
	// the square root of ClosestLane's Dist2 on the axes interpolated at T,
	// relative to C0.
	Dist F
	// Normal is the unit normal from capsule J toward capsule I at T, by
	// the rules of ContactLane's normal: (P-Q)/|P-Q|, or the oriented cross
	// product of the axes where they touch.
	Normal [3]F
	// P and Q are the closest points of axis I and axis J at T, in world
	// coordinates.
	P, Q [3]F
	// Iter is the number of closest-point evaluations.
	Iter uint32
}

// TOI is a float32 result, TOI64 a float64 one.
type (
	TOI   = TOIOf[float32]
	TOI64 = TOIOf[float64]
)

// TOILane computes the time of impact of swept capsules i and j (the
// bit-exact specification of the batched TOI kernels; see the method
// above).
func TOILane(i, j SweptCapsule, p TOIParams) (r TOI) {
	toiLane(&r, &i, &j, &p)
	return r
}

// TOILane64 is TOILane in float64.
func TOILane64(i, j SweptCapsule64, p TOIParams64) (r TOI64) {
	toiLane(&r, &i, &j, &p)
	return r
}

// TOILaneOf is TOILane or TOILane64, for code generic in the element
// type.
func TOILaneOf[F Float](i, j SweptCapsuleOf[F], p TOIParamsOf[F]) (r TOIOf[F]) {
	toiLane(&r, &i, &j, &p)
	return r
}

// TOILaneTo is TOILaneOf with its arguments and result passed by
// pointer, for batch loops: it sets *r to the time of impact of *i and
// *j, and copies none of them. r must not overlap i, j or p.
func TOILaneTo[F Float](r *TOIOf[F], i, j *SweptCapsuleOf[F], p *TOIParamsOf[F]) {
	toiLane(r, i, j, p)
}

// toiTolFloor is 32 eps of F (2^-18, 2^-47): the least tolerance relative
// to the scale. The stop test compares d, computed to a few eps x scale,
// with target + tol: below that the lower bound and the distance could
// disagree by more than tol and no advance would be possible.
func toiTolFloor[F Float]() F {
	if is32[F]() {
		return F(float32(0x1p-18))
	}
	return F(math.Float64frombits(0x3D00000000000000)) // 0x1p-47
}

// toiFrame holds the per-lane constants of the iteration: the endpoints
// a, b, c, d at t = 0 relative to C0 and their velocities, and the
// tolerances.
type toiFrame[F Float] struct {
	x0, v         [4][3]F // a, b, c, d
	scale         F
	tol, target   F
	reach         F // target + tol
	tmax          F
	invalidRadius bool
}

// newTOIFrame sets f to the frame of the pair. The code is written out
// per endpoint and coordinate, as are toiLane's loop and toiFinite: the
// compiler neither unrolls loops nor keeps arrays in registers, and a loop
// over small arrays costs several times the arithmetic.
func newTOIFrame[F Float](f *toiFrame[F], i, j *SweptCapsuleOf[F], p *TOIParamsOf[F]) {
	o := &j.A0 // C0
	toiRelative(&f.x0[0], &f.v[0], &i.A0, &i.A1, o)
	toiRelative(&f.x0[1], &f.v[1], &i.B0, &i.B1, o)
	toiRelative(&f.x0[2], &f.v[2], &j.A0, &j.A1, o)
	toiRelative(&f.x0[3], &f.v[3], &j.B0, &j.B1, o)
	// scale: the largest |coordinate| of a, b, d at t = 0 and of a, b, c,
	// d at t = 1 (c is 0 at t = 0), in this order, coordinate by
	// coordinate: |x0|, then |x0 + v|. It is folded on the bits of the
	// magnitudes (toiFold), or by toiScaleOrdered when one is a NaN.
	inf := toiAbsBits(F(math.Inf(1)))
	var sb, nan uint64 // s = +0
	sb, nan = toiScaleBoth(sb, nan, inf, &f.x0[0], &f.v[0])
	sb, nan = toiScaleBoth(sb, nan, inf, &f.x0[1], &f.v[1])
	sb, nan = toiScaleEnd(sb, nan, inf, &f.x0[2], &f.v[2])
	sb, nan = toiScaleBoth(sb, nan, inf, &f.x0[3], &f.v[3])
	s := toiBitsFloat[F](sb)
	if nan>>63 != 0 {
		s = toiScaleOrdered(f)
	}
	f.scale = s
	ri := maxps(i.R0, i.R1)
	rj := maxps(j.R0, j.R1)
	f.tol = maxps(p.Tol, F(toiTolFloor[F]()*s))
	f.target = maxps(((ri+i.Pad)+(rj+j.Pad))+p.Margin, f.tol)
	f.reach = f.target + f.tol
	f.tmax = clamp01(p.TMax)
	f.invalidRadius = minps(minps(i.R0, i.R1), minps(j.R0, j.R1)) < 0 || minps(i.Pad, j.Pad) < 0
}

// toiRelative sets x0 = start - o and v = end - start.
func toiRelative[F Float](x0, v, start, end, o *[3]F) {
	x0[0], x0[1], x0[2] = start[0]-o[0], start[1]-o[1], start[2]-o[2]
	v[0], v[1], v[2] = end[0]-start[0], end[1]-start[1], end[2]-start[2]
}

// The scale is folded on the bits of the magnitudes, as unsigned
// integers, with a conditional move instead of a float compare and a
// branch on the data per coordinate, which the predictor cannot learn.
// When no magnitude is a NaN, every one lies in [+0, +Inf], where the
// order of the bits is the order of the values and clearing the sign bit
// is absF: the fold's bits are those of maxps(s, absF(x)) in newTOIFrame's
// order. With a NaN (x0 + v = Inf - Inf, or TOITargetOf of a non-finite
// input) newTOIFrame folds again with toiScaleOrdered.

// toiAbsBits returns the bits of x with the sign bit clear, those of |x|
// for x not a NaN.
func toiAbsBits[F Float](x F) uint64 {
	if unsafe.Sizeof(x) == 4 {
		return uint64(math.Float32bits(float32(x)) &^ (1 << 31))
	}
	return math.Float64bits(float64(x)) &^ (1 << 63)
}

// toiBitsFloat is the float with the bits b (in the low half in float32).
func toiBitsFloat[F Float](b uint64) F {
	var z F
	if unsafe.Sizeof(z) == 4 {
		return F(math.Float32frombits(uint32(b)))
	}
	return F(math.Float64frombits(b))
}

// toiFold folds the magnitude x into the scale s, both as bits, and sets
// bit 63 of nan if x is a NaN, whose bits exceed those of +Inf, inf.
func toiFold[F Float](s, nan, inf uint64, x F) (uint64, uint64) {
	a := toiAbsBits(x)
	if a > s {
		s = a
	}
	return s, nan | (inf - a)
}

// toiScaleBoth folds an endpoint at t = 0 and t = 1 into the scale s:
// |x0|, then |x0 + v|, for each coordinate in turn.
func toiScaleBoth[F Float](s, nan, inf uint64, x0, v *[3]F) (uint64, uint64) {
	s, nan = toiFold(s, nan, inf, x0[0])
	s, nan = toiFold(s, nan, inf, x0[0]+v[0])
	s, nan = toiFold(s, nan, inf, x0[1])
	s, nan = toiFold(s, nan, inf, x0[1]+v[1])
	s, nan = toiFold(s, nan, inf, x0[2])
	return toiFold(s, nan, inf, x0[2]+v[2])
}

// toiScaleEnd folds an endpoint at t = 1 only into the scale s.
func toiScaleEnd[F Float](s, nan, inf uint64, x0, v *[3]F) (uint64, uint64) {
	s, nan = toiFold(s, nan, inf, x0[0]+v[0])
	s, nan = toiFold(s, nan, inf, x0[1]+v[1])
	return toiFold(s, nan, inf, x0[2]+v[2])
}

// toiScaleOrdered is the scale by maxps and absF, in newTOIFrame's order:
// the fold when a magnitude is a NaN.
func toiScaleOrdered[F Float](f *toiFrame[F]) F {
	var s F
	for k := range 4 {
		for c := range 3 {
			if k != 2 {
				s = maxps(s, absF(f.x0[k][c]))
			}
			s = maxps(s, absF(f.x0[k][c]+f.v[k][c]))
		}
	}
	return s
}

// toiAt returns the endpoint x0 + t v.
func toiAt[F Float](x0, v *[3]F, t F) (x, y, z F) {
	return x0[0] + F(t*v[0]), x0[1] + F(t*v[1]), x0[2] + F(t*v[2])
}

// toiAdvance is the advance of one line of step 4 with separation sx -
// sy and rate ry - rx: gap is its height above the target, fall how fast
// it decreases; the advance is 0 when gap <= 0, gap/fall when it
// decreases, +Inf otherwise.
func toiAdvance[F Float](sx, sy, rx, ry, target, inf F) F {
	gap := (sx - sy) - target
	fall := ry - rx
	if !(gap > 0) {
		return 0
	}
	if fall > 0 {
		return gap / fall
	}
	return inf
}

// TOITargetOf returns the target, the tolerance and the scale that
// TOILaneOf uses for the pair, bit for bit (the tests' checkers take them
// from here).
func TOITargetOf[F Float](i, j SweptCapsuleOf[F], p TOIParamsOf[F]) (target, tol, scale F) {
	var f toiFrame[F]
	newTOIFrame(&f, &i, &j, &p)
	return f.target, f.tol, f.scale
}

// toiFinite reports whether every input is finite: x - x is 0 for finite
// x and NaN otherwise, summed in a fixed order: capsule i's A0, B0, A1,
// B1 (x, y, z each), R0, R1, Pad, then capsule j's, then Margin, Tol,
// TMax.
func toiFinite[F Float](i, j *SweptCapsuleOf[F], p *TOIParamsOf[F]) bool {
	var z F
	z = toiFiniteCapsule(z, i)
	z = toiFiniteCapsule(z, j)
	z = ((z + (p.Margin - p.Margin)) + (p.Tol - p.Tol)) + (p.TMax - p.TMax)
	return z == 0
}

// toiFiniteCapsule adds x - x over the inputs of capsule c to z.
func toiFiniteCapsule[F Float](z F, c *SweptCapsuleOf[F]) F {
	z = toiFinite3(z, &c.A0)
	z = toiFinite3(z, &c.B0)
	z = toiFinite3(z, &c.A1)
	z = toiFinite3(z, &c.B1)
	return ((z + (c.R0 - c.R0)) + (c.R1 - c.R1)) + (c.Pad - c.Pad)
}

// toiFinite3 adds x - x over the coordinates of v to z.
func toiFinite3[F Float](z F, v *[3]F) F {
	return ((z + (v[0] - v[0])) + (v[1] - v[1])) + (v[2] - v[2])
}

func toiInvalid[F Float]() TOIOf[F] {
	nan := canonicalNaN[F]()
	v := [3]F{nan, nan, nan}
	return TOIOf[F]{Status: TOIInvalid, T: nan, Dist: nan, Normal: v, P: v, Q: v}
}

// toiLane sets r to the time of impact of i and j. Its arguments are
// pointers: the capsules and the result are too large to copy per pair.
func toiLane[F Float](r *TOIOf[F], i, j *SweptCapsuleOf[F], prm *TOIParamsOf[F]) {
	if !toiFinite(i, j, prm) {
		*r = toiInvalid[F]()
		return
	}
	var f toiFrame[F]
	newTOIFrame(&f, i, j, prm)
	if f.invalidRadius {
		*r = toiInvalid[F]()
		return
	}
	maxIter := max(prm.MaxIter, 1)
	inf := F(math.Inf(1))

	var (
		t                      F
		ax, ay, az, cx, cy, cz F // a and c at t
		p                      projection[F]
		dist                   F
		status                 TOIStatus
		iter                   int
	)
	for {
		iter++
		// Step 1: the endpoints at t, x0 + t v, and the projection.
		ax, ay, az = toiAt(&f.x0[0], &f.v[0], t)
		bx, by, bz := toiAt(&f.x0[1], &f.v[1], t)
		cx, cy, cz = toiAt(&f.x0[2], &f.v[2], t)
		dx, dy, dz := toiAt(&f.x0[3], &f.v[3], t)
		p.project(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz)
		if !(p.dist2 <= maxFinite[F]()) {
			*r = toiInvalid[F]()
			return
		}
		dist = sqrtF(p.dist2)

		// Step 2: within reach.
		if dist <= f.reach {
			status = TOIHit
			if t == 0 {
				status = TOIInitial
			}
			break
		}

		// Step 3: the fixed axis n = (P-Q)/d (d > target + tol >= 0 here),
		// the endpoints' separations along it and their rates.
		inv := 1 / dist
		nx, ny, nz := F(p.rx*inv), F(p.ry*inv), F(p.rz*inv)
		sa := dot(nx, ny, nz, ax, ay, az)
		ra := dot(nx, ny, nz, f.v[0][0], f.v[0][1], f.v[0][2])
		sb := dot(nx, ny, nz, bx, by, bz)
		rb := dot(nx, ny, nz, f.v[1][0], f.v[1][1], f.v[1][2])
		sc := dot(nx, ny, nz, cx, cy, cz)
		rc := dot(nx, ny, nz, f.v[2][0], f.v[2][1], f.v[2][2])
		sd := dot(nx, ny, nz, dx, dy, dz)
		rd := dot(nx, ny, nz, f.v[3][0], f.v[3][1], f.v[3][2])

		// Step 4: the four lines, I's endpoint x minus J's endpoint y, in
		// the order a-c, a-d, b-c, b-d (toiAdvance).
		step := minps(inf, toiAdvance(sa, sc, ra, rc, f.target, inf))
		step = minps(step, toiAdvance(sa, sd, ra, rd, f.target, inf))
		step = minps(step, toiAdvance(sb, sc, rb, rc, f.target, inf))
		step = minps(step, toiAdvance(sb, sd, rb, rd, f.target, inf))
		next := t + step
		if !(next <= f.tmax) {
			status = TOIMiss
			break
		}
		if !(next > t) || iter >= maxIter {
			status = TOIUnconverged
			break
		}
		t = next
	}

	// The outputs at T = t: the normal by ContactLane's rules, the
	// points in world coordinates, P = C0 + (a + s M0), Q = C0 + (c + t u).
	nx, ny, nz := contactNormal(&p)
	o := &j.A0
	*r = TOIOf[F]{
		Status: status,
		T:      t,
		Dist:   dist,
		Normal: [3]F{nx, ny, nz},
		P: [3]F{
			o[0] + (ax + F(p.m0x*p.s)),
			o[1] + (ay + F(p.m0y*p.s)),
			o[2] + (az + F(p.m0z*p.s)),
		},
		Q: [3]F{
			o[0] + (cx + p.tux),
			o[1] + (cy + p.tuy),
			o[2] + (cz + p.tuz),
		},
		Iter: uint32(iter),
	}
}

// SweepPad returns the padding that makes a swept capsule cover a
// rotating body: rho (1 - |q0.q1|), rho the largest distance of the
// capsule's axis endpoints from the body's centre of rotation and q0, q1
// the body's unit rotation quaternions at the start and the end of the
// step (x, y, z, w in any order, the same for both).
//
// For a body that turns at a constant angular velocity by the angle theta
// over the step while its centre moves linearly (a screw motion), a point
// at distance rho from the rotation axis leaves the chord between its
// start and end positions, at the same fraction of the step, by at most
// rho (1 - cos(theta/2)); and |q0.q1| = cos(theta/2) (the absolute value
// covers q and -q, the same rotation). A point of the axis moves with the
// body, and its chord is the same blend of the endpoints' chords that the
// swept capsule interpolates, so the true capsule at time t lies inside
// the swept capsule at t widened by the pad, and the time of impact's
// guarantees hold for the true motion. The pad grows as theta^2/8: 0.29
// rho at 90 degrees, rho at 180. Steps that turn by more than about 90
// degrees should be subdivided (TMax, or several queries), or the pad
// makes the capsule fat. No trigonometry: four products, a sum and an
// absolute value.
//
// The quaternions must be normalised; for |q| = 1 + e the dot product is
// off by about 2|e|. The result is never negative (1 - |q0.q1| is clamped
// at 0 where rounding lifts |q0.q1| above 1), and it is rounded: within a
// few eps x rho of the exact pad, which the guarantees' allowance covers.
func SweepPad[F Float](rho F, q0, q1 [4]F) F {
	c := F(F(F(q0[0]*q1[0])+F(q0[1]*q1[1]))+F(q0[2]*q1[2])) + F(q0[3]*q1[3])
	return F(rho * maxps(1-absF(c), 0))
}
