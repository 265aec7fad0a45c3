package verify

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// The test support of the swept-capsule time of impact: the cases
// (TOICaseOf), their categories and generators, and CheckTOI, the
// certified checker of the guarantees.
//
// The generators build every case in float64 with each product rounded
// explicitly (float64(x*y)) and no function whose last bit may differ
// between platforms (no trigonometry, exponentials or NormFloat64), so
// that a seed gives the same bits everywhere: the compiler fuses an
// unwrapped x*y+z into an FMA on arm64, and the golden hashes of the
// TOI kernels depend on the cases.

// TOICaseOf is one time-of-impact query: swept capsules I and J and the
// parameters.
type TOICaseOf[F soa.Float] struct {
	I, J   fallback.SweptCapsuleOf[F]
	Params fallback.TOIParamsOf[F]
	// Motion, for the rotation categories, is the rigid motion of each
	// body the endpoints were taken from (nil otherwise).
	Motion *[2]RigidSweep
}

// TOICase is a float32 query, TOICase64 a float64 one.
type (
	TOICase   = TOICaseOf[float32]
	TOICase64 = TOICaseOf[float64]
)

// RigidSweep is the screw motion of a body over a step: its centre moves
// linearly from C0 to C1 while it turns by Theta radians about the unit
// world axis Axis at a constant rate, starting from the rotation Q0 (x, y,
// z, w). The capsule's axis is LA to LB in the body's frame, and Rho is the
// larger of |LA| and |LB|.
type RigidSweep struct {
	C0, C1   [3]float64
	Q0       [4]float64
	Axis     [3]float64
	Theta    float64
	LA, LB   [3]float64
	Rho      float64
	CosHalf  float64 // cos(Theta/2), the w of the step's rotation
	Q1       [4]float64
	Radius   float64
	PadOfF32 float32 // fallback.SweepPad on the float32 quaternions
}

// At returns the body's capsule axis at time tau of the true motion (for
// tests; it uses trigonometry, so its last bits may differ between
// platforms).
func (m RigidSweep) At(tau float64) (a, b [3]float64) {
	h := tau * m.Theta / 2
	s, c := math.Sin(h), math.Cos(h)
	dq := [4]float64{m.Axis[0] * s, m.Axis[1] * s, m.Axis[2] * s, c}
	q := quatMul(dq, m.Q0)
	ctr := [3]float64{}
	for k := range 3 {
		ctr[k] = m.C0[k] + tau*(m.C1[k]-m.C0[k])
	}
	return tAdd(ctr, quatRotate(q, m.LA)), tAdd(ctr, quatRotate(q, m.LB))
}

// Lane runs fallback.TOILaneOf on the case.
func (c TOICaseOf[F]) Lane() fallback.TOIOf[F] { return fallback.TOILaneOf(c.I, c.J, c.Params) }

// Swap returns the case with I and J exchanged.
func (c TOICaseOf[F]) Swap() TOICaseOf[F] {
	s := c
	s.I, s.J = c.J, c.I
	if c.Motion != nil {
		s.Motion = &[2]RigidSweep{c.Motion[1], c.Motion[0]}
	}
	return s
}

// String prints the case as Go source for a test.
func (c TOICaseOf[F]) String() string {
	return fmt.Sprintf("I: %+v\nJ: %+v\nParams: %+v", c.I, c.J, c.Params)
}

// NarrowTOI rounds a float64 case to float32. The rotation pads are those
// SweepPad computes on the float32 quaternions.
func NarrowTOI(c TOICase64) TOICase {
	sw := func(s fallback.SweptCapsule64) fallback.SweptCapsule {
		return fallback.SweptCapsule{
			A0: f32v(s.A0), B0: f32v(s.B0), R0: float32(s.R0),
			A1: f32v(s.A1), B1: f32v(s.B1), R1: float32(s.R1), Pad: float32(s.Pad),
		}
	}
	n := TOICase{I: sw(c.I), J: sw(c.J), Motion: c.Motion,
		Params: fallback.TOIParams{Margin: float32(c.Params.Margin), Tol: float32(c.Params.Tol),
			TMax: float32(c.Params.TMax), MaxIter: c.Params.MaxIter}}
	if c.Motion != nil {
		n.I.Pad = c.Motion[0].PadOfF32
		n.J.Pad = c.Motion[1].PadOfF32
	}
	return n
}

// WidenTOI converts a case to float64 exactly.
func WidenTOI[F soa.Float](c TOICaseOf[F]) TOICase64 {
	sw := func(s fallback.SweptCapsuleOf[F]) fallback.SweptCapsule64 {
		return fallback.SweptCapsule64{
			A0: f64v(s.A0), B0: f64v(s.B0), R0: float64(s.R0),
			A1: f64v(s.A1), B1: f64v(s.B1), R1: float64(s.R1), Pad: float64(s.Pad),
		}
	}
	return TOICase64{I: sw(c.I), J: sw(c.J), Motion: c.Motion,
		Params: fallback.TOIParams64{Margin: float64(c.Params.Margin), Tol: float64(c.Params.Tol),
			TMax: float64(c.Params.TMax), MaxIter: c.Params.MaxIter}}
}

func f32v(x [3]float64) [3]float32 { return [3]float32{float32(x[0]), float32(x[1]), float32(x[2])} }

func f64v[F soa.Float](x [3]F) [3]float64 {
	return [3]float64{float64(x[0]), float64(x[1]), float64(x[2])}
}

// ---- FMA-free float64 helpers ------------------------------------------

type v3 = [3]float64

func tAdd(x, y v3) v3 { return v3{x[0] + y[0], x[1] + y[1], x[2] + y[2]} }
func tSub(x, y v3) v3 { return v3{x[0] - y[0], x[1] - y[1], x[2] - y[2]} }
func tMul(x v3, k float64) v3 {
	return v3{float64(x[0] * k), float64(x[1] * k), float64(x[2] * k)}
}
func tDot(x, y v3) float64 {
	return (float64(x[0]*y[0]) + float64(x[1]*y[1])) + float64(x[2]*y[2])
}
func tCross(x, y v3) v3 {
	return v3{
		float64(x[1]*y[2]) - float64(x[2]*y[1]),
		float64(x[2]*y[0]) - float64(x[0]*y[2]),
		float64(x[0]*y[1]) - float64(x[1]*y[0]),
	}
}
func tNorm(x v3) v3 { return tMul(x, 1/math.Sqrt(tDot(x, x))) }

// tAxpy returns x + k y.
func tAxpy(x v3, k float64, y v3) v3 { return tAdd(x, tMul(y, k)) }

// tUni returns a uniform value in [lo, hi).
func tUni(r *rand.Rand, lo, hi float64) float64 { return lo + float64((hi-lo)*r.Float64()) }

// tUnit returns a random unit vector (uniform in direction), by rejection
// in the cube.
func tUnit(r *rand.Rand) v3 {
	for {
		v := v3{tUni(r, -1, 1), tUni(r, -1, 1), tUni(r, -1, 1)}
		if n2 := tDot(v, v); n2 > 1e-2 && n2 <= 1 {
			return tMul(v, 1/math.Sqrt(n2))
		}
	}
}

// tPerp returns a random unit vector perpendicular to the unit vector u.
func tPerp(r *rand.Rand, u v3) v3 {
	for {
		v := tUnit(r)
		w := tSub(v, tMul(u, tDot(v, u)))
		if n2 := tDot(w, w); n2 > 1e-2 {
			return tMul(w, 1/math.Sqrt(n2))
		}
	}
}

// tPow2 returns a value log-uniform in [2^lo, 2^hi).
func tPow2(r *rand.Rand, lo, hi int) float64 {
	return math.Ldexp(1+r.Float64(), lo+r.IntN(hi-lo))
}

// quatRandom returns a random unit quaternion (x, y, z, w).
func quatRandom(r *rand.Rand) [4]float64 {
	for {
		q := [4]float64{tUni(r, -1, 1), tUni(r, -1, 1), tUni(r, -1, 1), tUni(r, -1, 1)}
		n2 := (float64(q[0]*q[0]) + float64(q[1]*q[1])) + (float64(q[2]*q[2]) + float64(q[3]*q[3]))
		if n2 > 1e-2 && n2 <= 1 {
			k := 1 / math.Sqrt(n2)
			return [4]float64{float64(q[0] * k), float64(q[1] * k), float64(q[2] * k), float64(q[3] * k)}
		}
	}
}

// quatMul returns the product p q (apply q, then p).
func quatMul(p, q [4]float64) [4]float64 {
	pv, qv := v3{p[0], p[1], p[2]}, v3{q[0], q[1], q[2]}
	c := tCross(pv, qv)
	v := tAdd(tAdd(tMul(qv, p[3]), tMul(pv, q[3])), c)
	return [4]float64{v[0], v[1], v[2], float64(p[3]*q[3]) - tDot(pv, qv)}
}

// quatRotate rotates v by the unit quaternion q: v + w t + q_v x t,
// t = 2 q_v x v.
func quatRotate(q [4]float64, v v3) v3 {
	qv := v3{q[0], q[1], q[2]}
	t := tMul(tCross(qv, v), 2)
	return tAdd(tAdd(v, tMul(t, q[3])), tCross(qv, t))
}

// ---- categories -----------------------------------------------------------

// TOICategory is one family of adversarial time-of-impact queries. Gen
// builds a float64 case; for the float32 tests it is built with f32 set
// (categories whose geometry depends on the precision, such as far
// offsets, use it) and rounded by NarrowTOI.
type TOICategory struct {
	Name string
	Gen  func(r *rand.Rand, f32 bool) TOICase64
}

// TOICases returns n cases of the category from NewRand(seed, stream), in
// F.
func TOICases[F soa.Float](c TOICategory, seed, stream uint64, n int) []TOICaseOf[F] {
	r := NewRand(seed, stream)
	out := make([]TOICaseOf[F], n)
	for k := range out {
		if is64[F]() {
			out[k] = any(c.Gen(r, false)).(TOICaseOf[F])
		} else {
			out[k] = any(NarrowTOI(c.Gen(r, true))).(TOICaseOf[F])
		}
	}
	return out
}

// toiScene is a case in canonical units (sizes about 1, Tol 1e-3) before
// it is placed in the world by place.
type toiScene struct {
	a0, b0, a1, b1, c0, d0, c1, d1 v3
	ri, rj, padI, padJ             float64
	margin, tol, tmax              float64
	noFrame                        bool // keep the axes' directions (exactly parallel cases)
	motion                         *[2]RigidSweep
}

// static sets the end pose of both capsules to the start pose.
func (s *toiScene) static() { s.a1, s.b1, s.c1, s.d1 = s.a0, s.b0, s.c0, s.d0 }

// place rotates the scene by a random rotation (unless noFrame), scales
// it by a random power of two times [1, 2), moves it to a random offset
// within ten sizes of the origin (or maxOffset, if larger) and, half the
// time, adds a common drift to every end pose (the same relative motion).
func place(r *rand.Rand, s toiScene, maxOffset float64) TOICase64 {
	q := quatRandom(r)
	if s.noFrame {
		q = [4]float64{0, 0, 0, 1}
	}
	scale := tPow2(r, -3, 3)
	off := tMul(v3{tUni(r, -10, 10), tUni(r, -10, 10), tUni(r, -10, 10)}, scale)
	if maxOffset > 0 {
		off = tMul(tUnit(r), maxOffset)
	}
	var drift v3
	if r.IntN(2) == 0 {
		drift = tMul(tUnit(r), tUni(r, 0, 3)*scale)
	}
	if s.noFrame && r.IntN(2) == 0 {
		// Keep exact coordinates: integer offsets and drifts.
		off = v3{math.Round(off[0]), math.Round(off[1]), math.Round(off[2])}
		drift = v3{}
		scale = math.Ldexp(1, r.IntN(7)-3)
	}
	pt := func(x v3, end bool) v3 {
		p := tAdd(off, tMul(quatRotate(q, x), scale))
		if end {
			p = tAdd(p, drift)
		}
		return p
	}
	c := TOICase64{
		I: fallback.SweptCapsule64{A0: pt(s.a0, false), B0: pt(s.b0, false), A1: pt(s.a1, true), B1: pt(s.b1, true),
			R0: float64(s.ri * scale), R1: float64(s.ri * scale), Pad: float64(s.padI * scale)},
		J: fallback.SweptCapsule64{A0: pt(s.c0, false), B0: pt(s.d0, false), A1: pt(s.c1, true), B1: pt(s.d1, true),
			R0: float64(s.rj * scale), R1: float64(s.rj * scale), Pad: float64(s.padJ * scale)},
		Params: fallback.TOIParams64{Margin: float64(s.margin * scale), Tol: float64(s.tol * scale),
			TMax: s.tmax, MaxIter: TOIMaxIter},
	}
	if s.motion != nil {
		m := *s.motion
		for k := range m {
			m[k] = placeMotion(m[k], q, scale, off, drift)
		}
		c.Motion = &m
		c.I.Pad = fallback.SweepPad(m[0].Rho, m[0].Q0, m[0].Q1)
		c.J.Pad = fallback.SweepPad(m[1].Rho, m[1].Q0, m[1].Q1)
		c.I.A0, c.I.B0 = m[0].endpoints(m[0].Q0, m[0].C0)
		c.I.A1, c.I.B1 = m[0].endpoints(m[0].Q1, m[0].C1)
		c.J.A0, c.J.B0 = m[1].endpoints(m[1].Q0, m[1].C0)
		c.J.A1, c.J.B1 = m[1].endpoints(m[1].Q1, m[1].C1)
		c.I.R0, c.I.R1 = m[0].Radius, m[0].Radius
		c.J.R0, c.J.R1 = m[1].Radius, m[1].Radius
	}
	return c
}

// endpoints returns the capsule's world axis at rotation q and centre c.
func (m RigidSweep) endpoints(q [4]float64, c v3) (a, b [3]float64) {
	return tAdd(c, quatRotate(q, m.LA)), tAdd(c, quatRotate(q, m.LB))
}

// placeMotion moves a canonical rigid motion into the world frame of
// place: rotation q, scale, offset and drift (added to the end centre).
func placeMotion(m RigidSweep, q [4]float64, scale float64, off, drift v3) RigidSweep {
	w := m
	w.C0 = tAdd(off, tMul(quatRotate(q, m.C0), scale))
	w.C1 = tAdd(tAdd(off, tMul(quatRotate(q, m.C1), scale)), drift)
	w.Q0 = quatMul(q, m.Q0)
	w.Axis = quatRotate(q, m.Axis)
	w.LA, w.LB = tMul(m.LA, scale), tMul(m.LB, scale)
	w.Rho = float64(m.Rho * scale)
	w.Radius = float64(m.Radius * scale)
	// The step's rotation dq = (Axis sin(Theta/2), CosHalf), in the world.
	sh := math.Sqrt(float64(1 - float64(m.CosHalf*m.CosHalf)))
	dq := [4]float64{float64(w.Axis[0] * sh), float64(w.Axis[1] * sh), float64(w.Axis[2] * sh), m.CosHalf}
	w.Q1 = quatMul(dq, w.Q0)
	q0, q1 := [4]float32{}, [4]float32{}
	for k := range 4 {
		q0[k], q1[k] = float32(w.Q0[k]), float32(w.Q1[k])
	}
	w.PadOfF32 = fallback.SweepPad(float32(w.Rho), q0, q1)
	return w
}

// TOIMaxIter is the MaxIter of the generated cases.
const TOIMaxIter = 64

// randAxis returns a segment of length l centred at c along a random
// direction.
func randAxis(r *rand.Rand, c v3, l float64) (a, b v3) {
	u := tMul(tUnit(r), l/2)
	return tSub(c, u), tAdd(c, u)
}

// moved returns the segment a-b moved by w.
func moved(a, b, w v3) (v3, v3) { return tAdd(a, w), tAdd(b, w) }

// TOICategories returns every category, in a fixed order.
//
//   - head-on: capsules of random axes and radii shot at each other
//     (speeds 2 to 6 sizes per step, a small sideways offset).
//   - sphere: zero-length axes, the same motion with larger offsets.
//   - graze-band: an axis end passing over the interior of the other axis
//     tangentially, the least distance target + x, x uniform in [0, tol]
//     (the band where both a hit and a miss are correct).
//   - graze-end: an axis end passing over the other axis's end, least
//     distance target + x, x uniform in [-tol, 2 tol].
//   - parallel-slide: parallel axes sliding into overlap at target + k,
//     k one of -2 tol, -tol/2, 0, tol/2, 2 tol; half of them axis-aligned
//     and exactly parallel.
//   - near-parallel: axes 1e-6 to 1e-1 rad apart approaching each other.
//   - thin-fast: radii 1e-3 of the length, moving 500 to 4000 radii.
//   - crossing-mid: zero or tiny radii, axes crossing exactly at a time
//     in [0.3, 0.7] (distance 0 there).
//   - double-dip: a capsule whose two ends pass a sphere at different
//     times, the first pass grazing the target: the first root must win.
//   - rotation: two bodies turning by up to 90 degrees while moving
//     toward each other (endpoints from the poses, SweepPad pads).
//   - spin: a long thin capsule spinning by 60 to 90 degrees about its
//     centre, a small sphere in the swept sector (tunnelling spin).
//   - overlap-t0: capsules overlapping at t = 0.
//   - touch-tmax: spheres meeting exactly at TMax, TMax in [0.2, 1].
//   - never: capsules moving apart or passing far.
//   - static-same: static pairs, or pairs moving by the same vector.
//   - zero-length: one or both axes of zero length, head-on.
//   - zero-radius: radii 0 (the target is the tolerance).
//   - negative-margin: margins down to -0.9 times the sum of the radii.
//   - far: head-on pairs up to 1e18 from the origin (float32: pairs at
//     least 2^-12 of their offset in size; float64: 2^-32).
func TOICategories() []TOICategory {
	return []TOICategory{
		{"head-on", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genHeadOn(r, false, 0.2), 0) }},
		{"sphere", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genHeadOn(r, true, 0.8), 0) }},
		{"graze-band", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genGrazeBand(r), 0) }},
		{"graze-end", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genGrazeEnd(r), 0) }},
		{"parallel-slide", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genParallelSlide(r), 0) }},
		{"near-parallel", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genNearParallelTOI(r), 0) }},
		{"thin-fast", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genThinFast(r), 0) }},
		{"crossing-mid", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genCrossingMid(r), 0) }},
		{"double-dip", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genDoubleDip(r), 0) }},
		{"rotation", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genRotation(r), 0) }},
		{"spin", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genSpin(r), 0) }},
		{"overlap-t0", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genOverlap(r), 0) }},
		{"touch-tmax", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genTouchTMax(r), 0) }},
		{"never", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genNever(r), 0) }},
		{"static-same", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genStatic(r), 0) }},
		{"zero-length", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genZeroLength(r), 0) }},
		{"zero-radius", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genZeroRadius(r), 0) }},
		{"negative-margin", func(r *rand.Rand, _ bool) TOICase64 { return place(r, genNegMargin(r), 0) }},
		{"far", genFarTOI},
	}
}

// baseScene returns a scene with random radii in [0.05, 0.3], no pads,
// margin 0, Tol 1e-3 and TMax 1.
func baseScene(r *rand.Rand) toiScene {
	return toiScene{ri: tUni(r, 0.05, 0.3), rj: tUni(r, 0.05, 0.3), tol: 1e-3, tmax: 1}
}

func (s *toiScene) target() float64 { return ((s.ri + s.padI) + (s.rj + s.padJ)) + s.margin }

// genHeadOn: J static at the origin, I starting 1.5 to 3 away and moving
// toward it at 2 to 6 per step, with a sideways offset up to side.
func genHeadOn(r *rand.Rand, spheres bool, side float64) toiScene {
	s := baseScene(r)
	li, lj := tUni(r, 0.2, 1.5), tUni(r, 0.2, 1.5)
	if spheres {
		li, lj = 0, 0
	}
	s.c0, s.d0 = randAxis(r, v3{}, lj)
	dir := tUnit(r)
	ci := tMul(dir, tUni(r, 1.5, 3))
	s.a0, s.b0 = randAxis(r, ci, li)
	w := tAdd(tMul(dir, -tUni(r, 2, 6)), tMul(tPerp(r, dir), tUni(r, 0, side)*4))
	s.a1, s.b1 = moved(s.a0, s.b0, w)
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genGrazeBand: J along x from -L/2 to L/2; I's end A passes over the
// point xq of J's axis at the least distance h = target + x, x in [0,
// tol], moving perpendicular to the offset p; I's axis leans away from J.
func genGrazeBand(r *rand.Rand) toiScene {
	s := baseScene(r)
	s.margin = tUni(r, 0, 0.05)
	l := tUni(r, 0.5, 2)
	e1 := v3{1, 0, 0}
	s.c0, s.d0 = v3{-l / 2, 0, 0}, v3{l / 2, 0, 0}
	p := tPerp(r, e1)
	h := s.target() + float64(s.tol*r.Float64())
	xq := tUni(r, -l/2+0.1, l/2-0.1)
	star := tAdd(v3{xq, 0, 0}, tMul(p, h))
	w := tAdd(tMul(tCross(e1, p), tUni(r, 1, 4)), tMul(e1, tUni(r, -1, 1)))
	ts := tUni(r, 0.2, 0.8)
	a0, a1 := tAxpy(star, -ts, w), tAxpy(star, 1-ts, w)
	beta := tUni(r, -1.2, 1.2)
	// m = l' (cos beta p + sin beta e1), without trigonometry: a unit
	// vector in the p-e1 plane with a positive p component.
	m := tMul(tNorm(tAdd(p, tMul(e1, beta))), tUni(r, 0.3, 1.5))
	s.a0, s.b0 = a0, tAdd(a0, m)
	s.a1, s.b1 = a1, tAdd(a1, m)
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genGrazeEnd: J from the origin along x; I's end A passes over J's end
// C at the least distance h = target + x, x in [-tol, 2 tol], in the
// direction p (away from J's axis), moving perpendicular to both p and x;
// I's axis points away from C.
func genGrazeEnd(r *rand.Rand) toiScene {
	s := baseScene(r)
	e1 := v3{1, 0, 0}
	s.c0, s.d0 = v3{}, v3{tUni(r, 0.5, 2), 0, 0}
	q := tPerp(r, e1)
	p := tNorm(tAdd(tMul(e1, -tUni(r, 0.1, 3)), q))
	h := s.target() + float64(s.tol*tUni(r, -1, 2))
	star := tMul(p, h)
	w := tMul(tNorm(tCross(e1, p)), tUni(r, 1, 4))
	ts := tUni(r, 0.2, 0.8)
	a0, a1 := tAxpy(star, -ts, w), tAxpy(star, 1-ts, w)
	// m in the plane of p and x (perpendicular to w) with m.p >= 0.
	m := tMul(tNorm(tAdd(p, tMul(e1, tUni(r, -2, 2)))), tUni(r, 0.3, 1.5))
	s.a0, s.b0 = a0, tAdd(a0, m)
	s.a1, s.b1 = a1, tAdd(a1, m)
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genParallelSlide: J from 0 to L along x; I parallel at the distance
// target + k (k in -2 tol, -tol/2, 0, tol/2, 2 tol), sliding along x from
// a gap into overlap; half the scenes keep axis-aligned coordinates.
func genParallelSlide(r *rand.Rand) toiScene {
	s := baseScene(r)
	ks := [5]float64{-2, -0.5, 0, 0.5, 2}
	k := ks[r.IntN(5)]
	l, li := tUni(r, 0.5, 2), tUni(r, 0.5, 2)
	var off v3
	if r.IntN(2) == 0 {
		s.noFrame = true
		// Exact dyadic radii and distance on the axis grid.
		s.ri, s.rj = math.Ldexp(float64(1+r.IntN(8)), -5), math.Ldexp(float64(1+r.IntN(8)), -5)
		s.tol = 0x1p-10
		off = [2]v3{{0, 1, 0}, {0, 0, 1}}[r.IntN(2)]
		l, li = math.Ldexp(float64(8+r.IntN(24)), -4), math.Ldexp(float64(8+r.IntN(24)), -4)
	} else {
		off = tPerp(r, v3{1, 0, 0})
	}
	h := s.target() + float64(k*s.tol)
	s.c0, s.d0 = v3{}, v3{l, 0, 0}
	start := -li - math.Ldexp(float64(1+r.IntN(16)), -4)
	a0 := tAdd(v3{start, 0, 0}, tMul(off, h))
	w := v3{math.Ldexp(float64(16+r.IntN(32)), -4), 0, 0}
	s.a0, s.b0 = a0, tAdd(a0, v3{li, 0, 0})
	s.a1, s.b1 = moved(s.a0, s.b0, w)
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genNearParallelTOI: J along x, I at 1e-6 to 1e-1 rad from it, offset
// by target + 0.5 to 2 and approaching at 1 to 4 per step (with some
// sliding along x).
func genNearParallelTOI(r *rand.Rand) toiScene {
	s := baseScene(r)
	e1 := v3{1, 0, 0}
	l, li := tUni(r, 0.5, 2), tUni(r, 0.5, 2)
	s.c0, s.d0 = v3{-l / 2, 0, 0}, v3{l / 2, 0, 0}
	n := tPerp(r, e1)
	phi := tPow2(r, -20, -3)
	dir := tNorm(tAdd(e1, tMul(tPerp(r, e1), phi)))
	ci := tAdd(v3{tUni(r, -0.5, 0.5), 0, 0}, tMul(n, s.target()+tUni(r, 0.5, 2)))
	s.a0, s.b0 = tAxpy(ci, -li/2, dir), tAxpy(ci, li/2, dir)
	w := tAdd(tMul(n, -tUni(r, 1, 4)), tMul(e1, tUni(r, -0.5, 0.5)))
	s.a1, s.b1 = moved(s.a0, s.b0, w)
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genThinFast: radii 1e-3 of the length (Tol 1e-4), I crossing J's
// region at 0.5 to 4 lengths per step, slightly off centre.
func genThinFast(r *rand.Rand) toiScene {
	s := baseScene(r)
	l := tUni(r, 0.5, 1.5)
	s.ri, s.rj, s.tol = float64(1e-3*l), float64(1e-3*l), 1e-4
	s.c0, s.d0 = randAxis(r, v3{}, l)
	dir := tUnit(r)
	sp := tUni(r, 0.5, 4)
	ci := tAdd(tMul(dir, -float64(sp*tUni(r, 0.2, 0.8))), tMul(tPerp(r, dir), tUni(r, 0, 0.3)))
	s.a0, s.b0 = randAxis(r, ci, tUni(r, 0.5, 1.5))
	s.a1, s.b1 = moved(s.a0, s.b0, tMul(dir, sp))
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genCrossingMid: J along x, I in a plane parallel to z = 0 crossing J's
// axis at its centre; I moves along z through J's plane at t* in [0.3,
// 0.7] (0.5 a quarter of the time). Radii 0 or 1e-3.
func genCrossingMid(r *rand.Rand) toiScene {
	s := baseScene(r)
	s.ri, s.rj = 0, 0
	if r.IntN(2) == 0 {
		s.ri, s.rj = 1e-3, 1e-3
	}
	l := tUni(r, 0.5, 2)
	s.c0, s.d0 = v3{-l / 2, 0, 0}, v3{l / 2, 0, 0}
	var dir v3
	for {
		dir = v3{tUni(r, -1, 1), tUni(r, -1, 1), 0}
		if n2 := tDot(dir, dir); n2 > 0.01 && math.Abs(dir[1]) > 0.2*math.Sqrt(n2) {
			break
		}
	}
	dir = tNorm(dir)
	ts := tUni(r, 0.3, 0.7)
	if r.IntN(4) == 0 {
		ts = 0.5
	}
	sp := tUni(r, 0.5, 3)
	x := tUni(r, -l/2+0.05, l/2-0.05)
	li := tUni(r, 0.3, 1.5)
	ci := v3{x, 0, -float64(ts * sp)}
	s.a0, s.b0 = tAxpy(ci, -li/2, dir), tAxpy(ci, li/2, dir)
	s.a1, s.b1 = moved(s.a0, s.b0, v3{0, 0, sp})
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genDoubleDip: J a sphere at the origin; I's end A passes it near t =
// 1/4 at the least distance hA/sqrt2 and I's end B near t = 3/4, deeper
// (hB < hA). The target is hA/sqrt2 + x, x in [-tol/2, tol]: the first
// pass grazes it, the second crosses it.
func genDoubleDip(r *rand.Rand) toiScene {
	s := baseScene(r)
	s.rj = 0
	sp := tUni(r, 2, 4)
	ha := tUni(r, 0.4, 0.8)
	hb := float64(ha * tUni(r, 0.2, 0.6))
	// A(t) = (0,0,ha) + (t - 1/4)(sp,0,sp), B(t) = (0,0,hb) + (t - 3/4)(sp,0,-sp).
	wa, wb := v3{sp, 0, sp}, v3{sp, 0, -sp}
	s.a0, s.a1 = tAxpy(v3{0, 0, ha}, -0.25, wa), tAxpy(v3{0, 0, ha}, 0.75, wa)
	s.b0, s.b1 = tAxpy(v3{0, 0, hb}, -0.75, wb), tAxpy(v3{0, 0, hb}, 0.25, wb)
	s.c0, s.d0, s.c1, s.d1 = v3{}, v3{}, v3{}, v3{}
	want := float64(ha*math.Sqrt(0.5)) + float64(s.tol*tUni(r, -0.5, 1))
	s.ri = want - s.margin
	return s
}

// rigid returns a canonical screw motion: a capsule of half-length hl
// (offset along its axis by up to hl/2) and radius rad, centre from c0 to
// c1, turning by an angle with cos(angle/2) = ch about a random axis.
func rigid(r *rand.Rand, c0, c1 v3, hl, rad, ch float64) RigidSweep {
	u := tUnit(r)
	o := tMul(u, tUni(r, -hl/2, hl/2))
	m := RigidSweep{C0: c0, C1: c1, Q0: quatRandom(r), Axis: tUnit(r), CosHalf: ch,
		LA: tAxpy(o, -hl, u), LB: tAxpy(o, hl, u), Radius: rad}
	m.Theta = 2 * math.Acos(ch) // for At only
	m.Rho = math.Max(math.Sqrt(tDot(m.LA, m.LA)), math.Sqrt(tDot(m.LB, m.LB)))
	return m
}

// genRotation: body I from 1.5 to 3 away moving toward body J at 1 to 4
// per step, both turning by up to 90 degrees.
func genRotation(r *rand.Rand) toiScene {
	s := baseScene(r)
	dir := tUnit(r)
	ci := tMul(dir, tUni(r, 1.5, 3))
	w := tAdd(tMul(dir, -tUni(r, 1, 4)), tMul(tPerp(r, dir), tUni(r, 0, 0.8)))
	cosMin := math.Sqrt(0.5) // 90 degrees
	mi := rigid(r, ci, tAdd(ci, w), tUni(r, 0.1, 0.8), s.ri, tUni(r, cosMin, 1))
	mj := rigid(r, v3{}, tMul(tUnit(r), tUni(r, 0, 0.3)), tUni(r, 0.1, 0.8), s.rj, tUni(r, cosMin, 1))
	s.motion = &[2]RigidSweep{mi, mj}
	return s
}

// genSpin: I a long thin capsule turning by 60 to 90 degrees about its
// centre (an axis perpendicular to it); J a small sphere at 0.5 to 0.95 of
// I's half-length from the centre, inside the swept sector (0.4 to 0.8 of
// the angle).
func genSpin(r *rand.Rand) toiScene {
	s := baseScene(r)
	hl := tUni(r, 0.5, 1)
	u := v3{1, 0, 0}
	ch := tUni(r, math.Sqrt(0.5), math.Sqrt(0.75)) // 60 to 90 degrees
	m := RigidSweep{C0: v3{}, C1: v3{}, Q0: [4]float64{0, 0, 0, 1}, Axis: v3{0, 0, 1}, CosHalf: ch,
		LA: tMul(u, -hl), LB: tMul(u, hl), Radius: 0.01, Rho: hl}
	m.Theta = 2 * math.Acos(ch)
	// A point of the sector near the angle f theta: rotate u by
	// the half-angle quaternion with cos = ch, then blend toward it.
	sh := math.Sqrt(float64(1 - float64(ch*ch)))
	end := quatRotate([4]float64{0, 0, sh, ch}, u)
	f := tUni(r, 0.4, 0.8)
	dir := tNorm(tAdd(tMul(u, 1-f), tMul(end, f)))
	js := tMul(dir, float64(hl*tUni(r, 0.5, 0.95)))
	mj := RigidSweep{C0: js, C1: js, Q0: [4]float64{0, 0, 0, 1}, Axis: v3{0, 0, 1}, CosHalf: 1, Radius: 0.02}
	s.motion = &[2]RigidSweep{m, mj}
	return s
}

// genOverlap: capsules whose axis ends lie within 0.9 target of each
// other at t = 0, moving any way.
func genOverlap(r *rand.Rand) toiScene {
	s := genHeadOn(r, false, 0.2)
	d := float64(s.target() * tUni(r, 0, 0.9))
	s.c0, s.d0 = randAxis(r, v3{}, tUni(r, 0, 1))
	// I's end A within d of J's end C, its axis any way.
	s.a0 = tAxpy(s.c0, d, tUnit(r))
	s.b0 = tAxpy(s.a0, tUni(r, 0, 1), tUnit(r))
	s.a1, s.b1 = moved(s.a0, s.b0, tMul(tUnit(r), tUni(r, 0, 3)))
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genTouchTMax: spheres meeting at the target distance exactly at TMax
// (in [0.2, 1]).
func genTouchTMax(r *rand.Rand) toiScene {
	s := baseScene(r)
	s.tmax = tUni(r, 0.2, 1)
	if r.IntN(4) == 0 {
		s.tmax = 1
	}
	dir := tUnit(r)
	at := tMul(dir, s.target())
	w := tAdd(tMul(dir, -tUni(r, 1, 4)), tMul(tPerp(r, dir), tUni(r, 0, 1)))
	s.a0 = tAxpy(at, -s.tmax, w)
	s.a1 = tAdd(s.a0, w)
	s.b0, s.b1 = s.a0, s.a1
	return s
}

// genNever: I moving away from J, or passing it at more than 0.5 beyond
// the target.
func genNever(r *rand.Rand) toiScene {
	s := baseScene(r)
	li, lj := tUni(r, 0, 1.5), tUni(r, 0, 1.5)
	s.c0, s.d0 = randAxis(r, v3{}, lj)
	dir := tUnit(r)
	ci := tMul(dir, float64((s.target()+(li+lj)/2)+tUni(r, 0.5, 3)))
	s.a0, s.b0 = randAxis(r, ci, li)
	w := tAdd(tMul(dir, tUni(r, 0, 3)), tMul(tPerp(r, dir), tUni(r, 0, 3)))
	s.a1, s.b1 = moved(s.a0, s.b0, w)
	s.c1, s.d1 = s.c0, s.d0
	return s
}

// genStatic: random capsules at a distance around the target, static or
// both moved by the same vector.
func genStatic(r *rand.Rand) toiScene {
	s := baseScene(r)
	s.c0, s.d0 = randAxis(r, v3{}, tUni(r, 0, 1.5))
	s.a0, s.b0 = randAxis(r, tMul(tUnit(r), tUni(r, 0, 2)), tUni(r, 0, 1.5))
	s.static()
	if r.IntN(2) == 0 {
		w := tMul(tUnit(r), tUni(r, 0, 5))
		s.a1, s.b1 = moved(s.a0, s.b0, w)
		s.c1, s.d1 = moved(s.c0, s.d0, w)
	}
	return s
}

// genZeroLength: head-on with one or both axes of zero length.
func genZeroLength(r *rand.Rand) toiScene {
	s := genHeadOn(r, false, 0.3)
	switch r.IntN(3) {
	case 0:
		s.b0, s.b1 = s.a0, s.a1
	case 1:
		s.d0, s.d1 = s.c0, s.c1
	default:
		s.b0, s.b1, s.d0, s.d1 = s.a0, s.a1, s.c0, s.c1
	}
	return s
}

// genZeroRadius: head-on with both radii 0 and a small sideways offset,
// so that the target is the tolerance.
func genZeroRadius(r *rand.Rand) toiScene {
	s := genHeadOn(r, false, 0.05)
	s.ri, s.rj = 0, 0
	return s
}

// genNegMargin: head-on with a margin of -0.9 to 0 times the radii's sum.
func genNegMargin(r *rand.Rand) toiScene {
	s := genHeadOn(r, false, 0.2)
	s.margin = -float64((s.ri + s.rj) * tUni(r, 0, 0.9))
	return s
}

// genFarTOI: the head-on scene at a distance 10^k from the origin, k up
// to 18, sized so that the coordinates resolve it: at least 2^-12 of the
// offset for float32, 2^-32 for float64.
func genFarTOI(r *rand.Rand, f32 bool) TOICase64 {
	s := genHeadOn(r, false, 0.2)
	off := math.Ldexp(1+r.Float64(), r.IntN(60))
	rel := 0x1p-32
	if f32 {
		rel = 0x1p-12
	}
	size := math.Max(1, float64(off*rel))
	for _, p := range []*v3{&s.a0, &s.b0, &s.a1, &s.b1, &s.c0, &s.d0, &s.c1, &s.d1} {
		*p = tMul(*p, size)
	}
	s.ri, s.rj, s.tol = float64(s.ri*size), float64(s.rj*size), float64(s.tol*size)
	c := place(r, s, off)
	return c
}

// TOIBadCases returns invalid queries built from valid ones: every float
// field in turn replaced by a value of NonFinite (widened for F =
// float64), and each radius and pad made negative.
func TOIBadCases[F soa.Float](seed uint64) []TOICaseOf[F] {
	base := TOICases[F](TOICategories()[0], seed, 0, 1)[0]
	nf := NonFinite()
	var out []TOICaseOf[F]
	for k := range len(toiFloatFields(&base)) {
		for _, v := range nf {
			c := base
			*toiFloatFields(&c)[k] = F(v)
			out = append(out, c)
		}
	}
	for k := range 6 {
		c := base
		p := [6]*F{&c.I.R0, &c.I.R1, &c.J.R0, &c.J.R1, &c.I.Pad, &c.J.Pad}[k]
		*p = -F(0x1p-20)
		out = append(out, c)
	}
	return out
}

// toiFloatFields returns pointers to every float input of c: I's A0, B0,
// R0, A1, B1, R1, Pad, then J's, then Margin, Tol, TMax.
func toiFloatFields[F soa.Float](c *TOICaseOf[F]) []*F {
	var fs []*F
	for _, s := range []*fallback.SweptCapsuleOf[F]{&c.I, &c.J} {
		for _, v := range []*[3]F{&s.A0, &s.B0} {
			fs = append(fs, &v[0], &v[1], &v[2])
		}
		fs = append(fs, &s.R0)
		for _, v := range []*[3]F{&s.A1, &s.B1} {
			fs = append(fs, &v[0], &v[1], &v[2])
		}
		fs = append(fs, &s.R1, &s.Pad)
	}
	return append(fs, &c.Params.Margin, &c.Params.Tol, &c.Params.TMax)
}

// ---- the certified checker ------------------------------------------------

// TOIDeltaMul is the multiple of eps x scale in the allowance δ of the
// time-of-impact guarantees (eps = Eps32 or Eps64, scale = TOIScale).
// Where the target is crossed, the spec's distance and lines carry the
// closest-point error (within 8 eps x scale by the closest-point
// contract, docs/design.md, "Accuracy") and a few roundings of the
// advance; 32 is four times the closest-point bound. Measured over the
// categories of TOICategories, float32 and float64, Tol 1e-3 of the size
// and Tol 0 (fallback.TestTOIDeltaMeasured): every claim is proven with δ
// = 1 eps x scale and some fail at 0.5, and the lowest hit distance is
// about 1 eps x scale below the target; 32 leaves a factor of 32.
const TOIDeltaMul = 32

// TOIScale is the unit of δ: the largest |coordinate| of the eight
// endpoints relative to C0 (J's start endpoint A0), and of the radii, pads
// and |margin|.
func TOIScale[F soa.Float](c TOICaseOf[F]) float64 {
	w := WidenTOI(c)
	o := w.J.A0
	s := 0.0
	for _, p := range [8][3]float64{w.I.A0, w.I.B0, w.I.A1, w.I.B1, w.J.A0, w.J.B0, w.J.A1, w.J.B1} {
		for k := range 3 {
			s = math.Max(s, math.Abs(p[k]-o[k]))
		}
	}
	for _, x := range []float64{w.I.R0, w.I.R1, w.J.R0, w.J.R1, w.I.Pad, w.J.Pad, w.Params.Margin} {
		s = math.Max(s, math.Abs(x))
	}
	return s
}

// TOIDelta returns δ = mul x eps x TOIScale in F's epsilon.
func TOIDelta[F soa.Float](c TOICaseOf[F], mul float64) float64 {
	eps := Eps64
	if !is64[F]() {
		eps = Eps32
	}
	return mul * eps * TOIScale(c)
}

// TOICheck is CheckTOI's finding on one result.
type TOICheck struct {
	// Fail names the broken guarantee, "" if none: "missed" (a Miss with
	// a distance at or below target - δ in [0, TMax]), "late" (a Hit or
	// Unconverged with such a distance before T), "false" (a Hit or
	// Initial whose distance at T exceeds target + tol + δ), "initial"
	// (not Initial although d(0) <= target + tol - δ), "status" (a status
	// or T out of place, an invalid lane for valid input).
	Fail string
	// Unproven names the claim that was neither proven nor refuted
	// within the budget, "" if every claim was decided.
	Unproven string
	// Boxes counts the boxes the prover examined.
	Boxes int
	// DistT is, for a Hit or Initial, an upper bound of the exact
	// distance at T: the exact distance between two points of the axes
	// (the float64 reference's closest points), rounded to float64.
	DistT float64
	// Target, Tol, Delta and Scale are the values checked against
	// (Target exact, rounded to float64).
	Target, Tol, Delta, Scale float64
}

// TOIBudget is CheckTOI's default budget of boxes per claim.
const TOIBudget = 20000

// CheckTOI checks res, the result of fallback.TOILaneOf on c, against the
// guarantees with δ = TOIDeltaMul eps x scale, in exact arithmetic:
//
//  1. Miss => d(τ) > target - δ for every τ in [0, TMax];
//  2. Hit or Unconverged at T => d(τ) > target - δ on [0, T];
//  3. Hit or Initial => d(T) <= target + tol + δ;
//  4. not Initial => d(0) > target + tol - δ, and Initial => T = 0;
//
// where d(τ) is the exact distance between the axes interpolated from the
// given floats and target is max(rI + rJ + PadI + PadJ + Margin, tol)
// computed exactly, with tol the spec's (fallback.TOITargetOf). A claim
// not decided within budget boxes is reported in Unproven.
//
// The proof of a lower bound: over a box [t0,t1] x [u0,u1] x [v0,v1] of
// time and the two axes' parameters, each coordinate of the difference
// A(τ) + u (B(τ)-A(τ)) - C(τ) - v (D(τ)-C(τ)) is multilinear in (τ, u, v),
// and so is its projection on any direction n; a multilinear function
// takes its extremes at the box's 8 corners, computed exactly. If the
// least corner value of n.X exceeds (target - δ)|n|, every point of the
// box is farther apart than target - δ. n is the direction between the
// closest points of the box's sub-segments at its middle time (float64,
// any n is valid); boxes that fail are split along the dimension over
// which n.X varies most, depth first, until proven, refuted by a point
// whose exact distance is at most target - δ, or out of budget.
func CheckTOI[F soa.Float](c TOICaseOf[F], res fallback.TOIOf[F], budget int) TOICheck {
	return checkTOI(c, res, TOIDeltaMul, budget)
}

// CheckTOIDelta is CheckTOI with δ = mul eps x scale (for measuring the
// least multiple that holds).
func CheckTOIDelta[F soa.Float](c TOICaseOf[F], res fallback.TOIOf[F], mul float64, budget int) TOICheck {
	return checkTOI(c, res, mul, budget)
}

func checkTOI[F soa.Float](c TOICaseOf[F], res fallback.TOIOf[F], mul float64, budget int) (chk TOICheck) {
	_, tol32, _ := fallback.TOITargetOf(c.I, c.J, c.Params)
	w := WidenTOI(c)
	chk = TOICheck{Tol: float64(tol32), Scale: TOIScale(c), Delta: TOIDelta(c, mul)}
	sp := newSweepProver(w, budget)
	target := sp.exactTarget(w, float64(tol32))
	chk.Target, _ = target.Float64()
	tmax := math.Max(0, math.Min(1, float64(c.Params.TMax)))
	T := float64(res.T)
	delta := sp.num(chk.Delta)
	lower := sp.sub(target, delta)                          // target - δ
	upper := sp.add(sp.add(target, sp.num(chk.Tol)), delta) // target + tol + δ
	initLower := sp.sub(sp.add(target, sp.num(chk.Tol)), delta)

	prove := func(name, fail string, t0, t1 float64, g *big.Float) bool {
		v := sp.prove(t0, t1, g)
		switch v {
		case proofRefuted:
			chk.Fail = fail
			return false
		case proofUnproven:
			if chk.Unproven == "" {
				chk.Unproven = name
			}
		}
		return true
	}
	defer func() { chk.Boxes = sp.boxes }()

	switch res.Status {
	case fallback.TOIInvalid:
		chk.Fail = "status"
		return chk
	case fallback.TOIInitial:
		if T != 0 {
			chk.Fail = "status"
			return chk
		}
	case fallback.TOIHit, fallback.TOIUnconverged:
		if !(T >= 0 && T <= tmax) || res.Status == fallback.TOIHit && T == 0 {
			chk.Fail = "status"
			return chk
		}
	}
	if res.Iter < 1 || int(res.Iter) > max(c.Params.MaxIter, 1) {
		chk.Fail = "status"
		return chk
	}
	switch res.Status {
	case fallback.TOIMiss:
		if !prove("missed", "missed", 0, tmax, lower) {
			return chk
		}
	case fallback.TOIHit, fallback.TOIUnconverged:
		if !prove("late", "late", 0, T, lower) {
			return chk
		}
	}
	if res.Status == fallback.TOIHit || res.Status == fallback.TOIInitial {
		d2 := sp.distUpper2(T)
		chk.DistT = math.Sqrt(toF64(d2))
		if d2.Cmp(sp.mul(upper, upper)) > 0 {
			chk.Fail = "false"
			return chk
		}
	}
	if res.Status != fallback.TOIInitial {
		prove("initial", "initial", 0, 0, initLower)
	}
	return chk
}

func toF64(x *big.Float) float64 { f, _ := x.Float64(); return f }

// proof verdicts.
const (
	proofProven = iota
	proofRefuted
	proofUnproven
)

// toiPrec is the precision of the prover's exact arithmetic: every value
// is a sum of products of at most three floats and dyadic parameters, far
// below it; an inexact result panics.
const toiPrec = 4096

// sweepProver proves lower bounds of the distance of two linearly moving
// segments in exact arithmetic (big.Float at toiPrec, each result checked
// exact).
type sweepProver struct {
	x0, v  [4][3]*big.Float // A, B, C, D at τ = 0 (world) and X1 - X0, exact
	f0, fv [4][3]float64    // the same relative to C0, rounded (for directions)
	budget int
	boxes  int
}

func newSweepProver(c TOICase64, budget int) *sweepProver {
	sp := &sweepProver{budget: budget}
	starts := [4][3]float64{c.I.A0, c.I.B0, c.J.A0, c.J.B0}
	ends := [4][3]float64{c.I.A1, c.I.B1, c.J.A1, c.J.B1}
	o := c.J.A0
	for k := range 4 {
		for j := range 3 {
			sp.x0[k][j] = sp.num(starts[k][j])
			sp.v[k][j] = sp.sub(sp.num(ends[k][j]), sp.x0[k][j])
			sp.f0[k][j] = starts[k][j] - o[j]
			sp.fv[k][j] = ends[k][j] - starts[k][j]
		}
	}
	return sp
}

func (sp *sweepProver) num(x float64) *big.Float {
	return new(big.Float).SetPrec(toiPrec).SetFloat64(x)
}

func exact(z *big.Float) *big.Float {
	if z.Acc() != big.Exact {
		panic("verify: inexact arithmetic in the TOI prover")
	}
	return z
}

func (sp *sweepProver) add(x, y *big.Float) *big.Float {
	return exact(new(big.Float).SetPrec(toiPrec).Add(x, y))
}
func (sp *sweepProver) sub(x, y *big.Float) *big.Float {
	return exact(new(big.Float).SetPrec(toiPrec).Sub(x, y))
}
func (sp *sweepProver) mul(x, y *big.Float) *big.Float {
	return exact(new(big.Float).SetPrec(toiPrec).Mul(x, y))
}

// exactTarget returns max(max(RI0, RI1) + PadI + max(RJ0, RJ1) + PadJ +
// Margin, tol), exactly.
func (sp *sweepProver) exactTarget(c TOICase64, tol float64) *big.Float {
	s := sp.num(math.Max(c.I.R0, c.I.R1))
	for _, x := range []float64{c.I.Pad, math.Max(c.J.R0, c.J.R1), c.J.Pad, c.Params.Margin} {
		s = sp.add(s, sp.num(x))
	}
	if t := sp.num(tol); t.Cmp(s) > 0 {
		return t
	}
	return s
}

// at returns the exact endpoints at time τ.
func (sp *sweepProver) at(tau float64) (p [4][3]*big.Float) {
	t := sp.num(tau)
	for k := range 4 {
		for j := range 3 {
			p[k][j] = sp.add(sp.x0[k][j], sp.mul(t, sp.v[k][j]))
		}
	}
	return p
}

// floatAt returns the endpoints at τ relative to C0 in float64.
func (sp *sweepProver) floatAt(tau float64) (p [4][3]float64) {
	for k := range 4 {
		for j := range 3 {
			p[k][j] = sp.f0[k][j] + tau*sp.fv[k][j]
		}
	}
	return p
}

// dist2At returns the exact squared distance between the points of
// parameters u and v of the two axes at τ.
func (sp *sweepProver) dist2At(tau, u, v float64) *big.Float {
	p := sp.at(tau)
	bu, bv := sp.num(u), sp.num(v)
	sum := sp.num(0)
	for j := range 3 {
		x := sp.add(p[0][j], sp.mul(bu, sp.sub(p[1][j], p[0][j])))
		y := sp.add(p[2][j], sp.mul(bv, sp.sub(p[3][j], p[2][j])))
		d := sp.sub(x, y)
		sum = sp.add(sum, sp.mul(d, d))
	}
	return sum
}

// distUpper2 returns an upper bound of the squared distance of the axes
// at τ: the exact squared distance between the float64 reference's
// closest points.
func (sp *sweepProver) distUpper2(tau float64) *big.Float {
	p := sp.floatAt(tau)
	s, t, _ := fallback.Reference(p[0], p[1], p[2], p[3])
	return sp.dist2At(tau, s, t)
}

// box is a region of time and the axes' parameters.
type box struct{ t0, t1, u0, u1, v0, v1 float64 }

// prove decides whether d(τ) > g for every τ in [t0, t1] (g exact; g <= 0
// is trivially true).
func (sp *sweepProver) prove(t0, t1 float64, g *big.Float) int {
	if g.Sign() <= 0 {
		return proofProven
	}
	g2 := sp.mul(g, g)
	gf := toF64(g)
	stack := []box{{t0, t1, 0, 1, 0, 1}}
	used := 0
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		sp.boxes++
		used++
		if used > sp.budget {
			return proofUnproven
		}
		ok, split, witness := sp.bound(b, g2, gf)
		if ok {
			continue
		}
		if witness != nil && sp.dist2At(witness[0], witness[1], witness[2]).Cmp(g2) <= 0 {
			return proofRefuted
		}
		lo, hi, can := splitBox(b, split)
		if !can {
			// Try the other dimensions before giving up.
			for d := range 3 {
				if lo, hi, can = splitBox(b, d); can {
					break
				}
			}
			if !can {
				return proofUnproven
			}
		}
		stack = append(stack, hi, lo)
	}
	return proofProven
}

// splitBox halves b along dimension d (0 time, 1 u, 2 v).
func splitBox(b box, d int) (lo, hi box, ok bool) {
	lo, hi = b, b
	var x0, x1 float64
	switch d {
	case 0:
		x0, x1 = b.t0, b.t1
	case 1:
		x0, x1 = b.u0, b.u1
	default:
		x0, x1 = b.v0, b.v1
	}
	m := x0 + (x1-x0)/2
	if !(m > x0 && m < x1) {
		return b, b, false
	}
	switch d {
	case 0:
		lo.t1, hi.t0 = m, m
	case 1:
		lo.u1, hi.u0 = m, m
	default:
		lo.v1, hi.v0 = m, m
	}
	return lo, hi, true
}

// bound tries to prove the box: it returns whether the least corner value
// of n.X exceeds g |n| (g2 = g^2), the dimension to split otherwise, and
// a witness (τ, u, v) worth an exact check when the box's own closest
// points are within gf.
func (sp *sweepProver) bound(b box, g2 *big.Float, gf float64) (bool, int, *[3]float64) {
	tm := b.t0 + (b.t1-b.t0)/2
	p := sp.floatAt(tm)
	lerp := func(x, y [3]float64, s float64) [3]float64 {
		return [3]float64{x[0] + s*(y[0]-x[0]), x[1] + s*(y[1]-x[1]), x[2] + s*(y[2]-x[2])}
	}
	a, bb := lerp(p[0], p[1], b.u0), lerp(p[0], p[1], b.u1)
	c, d := lerp(p[2], p[3], b.v0), lerp(p[2], p[3], b.v1)
	s, t, d2 := fallback.Reference(a, bb, c, d)
	var witness *[3]float64
	if math.Sqrt(d2) <= gf*(1+1e-9) {
		witness = &[3]float64{tm, b.u0 + s*(b.u1-b.u0), b.v0 + t*(b.v1-b.v0)}
	}
	var n [3]float64
	for j := range 3 {
		n[j] = (a[j] + s*(bb[j]-a[j])) - (c[j] + t*(d[j]-c[j]))
	}
	if n == [3]float64{} {
		return false, widest(b), witness
	}
	// n.X at the corners: per endpoint k, e_k(τ) = n.X_k(τ) at τ = t0, t1.
	bn := [3]*big.Float{sp.num(n[0]), sp.num(n[1]), sp.num(n[2])}
	var e0, ev [4]*big.Float
	for k := range 4 {
		e0[k] = sp.add(sp.add(sp.mul(bn[0], sp.x0[k][0]), sp.mul(bn[1], sp.x0[k][1])), sp.mul(bn[2], sp.x0[k][2]))
		ev[k] = sp.add(sp.add(sp.mul(bn[0], sp.v[k][0]), sp.mul(bn[1], sp.v[k][1])), sp.mul(bn[2], sp.v[k][2]))
	}
	var least *big.Float
	var spread [3]float64 // variation of the corner values along τ, u, v
	var prevI, prevJ [2]float64
	for ti, tau := range [2]float64{b.t0, b.t1} {
		bt := sp.num(tau)
		var e [4]*big.Float
		for k := range 4 {
			e[k] = sp.add(e0[k], sp.mul(bt, ev[k]))
		}
		lin := func(x, y *big.Float, s float64) *big.Float {
			return sp.add(x, sp.mul(sp.num(s), sp.sub(y, x)))
		}
		i0, i1 := lin(e[0], e[1], b.u0), lin(e[0], e[1], b.u1)
		j0, j1 := lin(e[2], e[3], b.v0), lin(e[2], e[3], b.v1)
		mi, mj := i0, j0
		if i1.Cmp(mi) < 0 {
			mi = i1
		}
		if j1.Cmp(mj) > 0 {
			mj = j1
		}
		v := sp.sub(mi, mj)
		if least == nil || v.Cmp(least) < 0 {
			least = v
		}
		fi0, fi1, fj0, fj1 := toF64(i0), toF64(i1), toF64(j0), toF64(j1)
		spread[1] = math.Max(spread[1], math.Abs(fi1-fi0))
		spread[2] = math.Max(spread[2], math.Abs(fj1-fj0))
		if ti == 1 {
			spread[0] = math.Max(math.Abs(fi0-prevI[0])+math.Abs(fj0-prevJ[0]),
				math.Abs(fi1-prevI[1])+math.Abs(fj1-prevJ[1]))
		}
		prevI, prevJ = [2]float64{fi0, fi1}, [2]float64{fj0, fj1}
	}
	if least.Sign() > 0 {
		n2 := sp.add(sp.add(sp.mul(bn[0], bn[0]), sp.mul(bn[1], bn[1])), sp.mul(bn[2], bn[2]))
		if sp.mul(least, least).Cmp(sp.mul(g2, n2)) > 0 {
			return true, 0, nil
		}
	}
	split := 0
	for k := 1; k < 3; k++ {
		if spread[k] > spread[split] {
			split = k
		}
	}
	if b.t0 == b.t1 && split == 0 {
		split = 1
		if spread[2] > spread[1] {
			split = 2
		}
	}
	return false, split, witness
}

// widest returns the dimension of b with the widest range.
func widest(b box) int {
	w := [3]float64{b.t1 - b.t0, b.u1 - b.u0, b.v1 - b.v0}
	d := 0
	for k := 1; k < 3; k++ {
		if w[k] > w[d] {
			d = k
		}
	}
	return d
}
