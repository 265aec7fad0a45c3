package kernels

import (
	"slices"

	"github.com/segdist/segdist/gen/ir"
)

// The time of impact (fallback.TOILane) is three bodies that a loop
// driver runs in turn on one group of pairs, the values between them kept
// in memory: TOISetup once (the frame: the endpoints relative to C0, their
// velocities, the target), TOIStep until no lane of the group is still
// running (one conservative-advancement iteration per call, lanes that
// have stopped kept as they are), then TOIFinish once (the outputs at the
// time reached). A lane's iterations are the spec's loop, so its bits do
// not depend on the other lanes of its group, and it stops where the spec
// stops: the group runs until its last lane has stopped.
//
// Status travels as a float: the TOIStatus codes (miss 0, hit 1,
// initial 2, unconverged 3, invalid 4) and toiRunning while the lane
// iterates; Iter too, counting evaluations. The driver converts both to
// the uint32 streams.

// TOI status codes as floats (fallback.TOIStatus), and the running state.
var (
	toiInitial  = ir.Constant{Name: "toiinitial", Bits: [2]uint64{0x40000000, 0x4000000000000000}}
	toiUnconv   = ir.Constant{Name: "toiunconv", Bits: [2]uint64{0x40400000, 0x4008000000000000}}
	toiInvalid  = ir.Constant{Name: "toiinvalid", Bits: [2]uint64{0x40800000, 0x4010000000000000}}
	toiRunning  = ir.Constant{Name: "toirunning", Bits: [2]uint64{0x40A00000, 0x4014000000000000}}
	toiInf      = ir.Constant{Name: "toiinf", Bits: [2]uint64{0x7F800000, 0x7FF0000000000000}}
	toiTolFloor = ir.Constant{Name: "toitolfloor", Bits: [2]uint64{0x36800000, 0x3D00000000000000}} // 32 eps: 2^-18, 2^-47
)

// Positions of the swept capsules' values among TOISetup's inputs: the
// start records of I and J (A B r each, as Contact's), the end records,
// then the pads of I and J.
const (
	TOIStartI, TOIStartJ, TOIEndI, TOIEndJ, TOIPadI, TOIPadJ = 0, 7, 14, 21, 28, 29
)

// Positions among TOIStep's and TOIFinish's inputs: the frame (TOIFrame
// values: a, b, d at t = 0 relative to C0, the velocities of a, b, c, d,
// target, target + tol), the state (t, iter, status), and for TOIFinish
// C0.
const (
	TOIFrame  = 23
	TOIState  = TOIFrame
	TOIOrigin = TOIFrame + 3
)

// TOISetup is the frame of fallback.TOILane (newTOIFrame, the finiteness
// and radius checks): its outputs are the TOIFrame frame values, then the
// initial state t = 0, iter = 0 and status running, or invalid.
var TOISetup = &Kernel{Name: "TOISetup",
	Inputs: []string{"iax0", "iay0", "iaz0", "ibx0", "iby0", "ibz0", "ir0", "jax0", "jay0", "jaz0", "jbx0", "jby0", "jbz0", "jr0",
		"iax1", "iay1", "iaz1", "ibx1", "iby1", "ibz1", "ir1", "jax1", "jay1", "jaz1", "jbx1", "jby1", "jbz1", "jr1", "padi", "padj"},
	Outputs: slices.Concat(toiFrameNames, toiStateNames),
	Args:    []string{"margin", "tol", "tmax"},
	body:    toiSetup,
}

// TOIStep is one iteration of fallback.TOILane's loop on the lanes still
// running: its outputs are the state after it, then the mask of the lanes
// still running.
var TOIStep = &Kernel{Name: "TOIStep",
	Inputs:  slices.Concat(toiFrameNames, toiStateNames),
	Outputs: append(slices.Clone(toiStateNames), "running"),
	Args:    []string{"tmax", "maxiter"},
	body:    toiStep,
}

// TOIFinish is the outputs of fallback.TOILane at the time reached:
// status, iter, T, Dist, the normal, P and Q (the canonical NaN in every
// float of an invalid lane).
var TOIFinish = &Kernel{Name: "TOIFinish",
	Inputs:  slices.Concat(toiFrameNames, toiStateNames, []string{"ox", "oy", "oz"}),
	Outputs: []string{"status", "iter", "t", "dist", "nx", "ny", "nz", "px", "py", "pz", "qx", "qy", "qz"},
	body:    toiFinish,
}

var (
	toiFrameNames = []string{"ax", "ay", "az", "bx", "by", "bz", "dx", "dy", "dz",
		"vax", "vay", "vaz", "vbx", "vby", "vbz", "vcx", "vcy", "vcz", "vdx", "vdy", "vdz", "target", "reach"}
	toiStateNames = []string{"t", "iter", "state"}
)

// toiSetup is newTOIFrame and the checks of fallback.toiLane, in their
// order.
func toiSetup(b *ir.Builder) []ir.Value {
	margin, tol, tmax := b.Arg(0), b.Arg(1), b.Arg(2)
	zero := b.Zero()
	starts := [4]ir.Vec3{b.Inputs3(TOIStartI), b.Inputs3(TOIStartI + 3), b.Inputs3(TOIStartJ), b.Inputs3(TOIStartJ + 3)}
	ends := [4]ir.Vec3{b.Inputs3(TOIEndI), b.Inputs3(TOIEndI + 3), b.Inputs3(TOIEndJ), b.Inputs3(TOIEndJ + 3)}
	ri0, ri1 := b.Input(TOIStartI+6), b.Input(TOIEndI+6)
	rj0, rj1 := b.Input(TOIStartJ+6), b.Input(TOIEndJ+6)
	padI, padJ := b.Input(TOIPadI), b.Input(TOIPadJ)

	b.Comment("x0 = X0 - C0, v = X1 - X0 for a, b, c, d; C0 = J's A0.")
	var x0, v [4]ir.Vec3
	for k := range 4 {
		if k != 2 {
			x0[k] = b.Sub3(starts[k], starts[2])
		}
		v[k] = b.Sub3(ends[k], starts[k])
	}

	b.Comment("Finite lanes: x - x is 0 for every x0, v, radius, pad and parameter (each term is 0")
	b.Comment("or NaN, so the sum is 0 or NaN in any order: a tree). Every coordinate reaches an x0")
	b.Comment("or a v, so this is toiFinite, except where a difference of finite coordinates")
	b.Comment("overflows: the spec's first step then finds the distance not finite, and its lane")
	b.Comment("is invalid with the same outputs (NaN floats, iter 0).")
	sum := &chains{op: b.Add}
	fin := func(x ir.Value) { sum.add(b.Sub(x, x)) }
	for k := range 4 {
		for c := range 3 {
			if k != 2 {
				fin(x0[k][c])
			}
			fin(v[k][c])
		}
	}
	for _, x := range []ir.Value{ri0, ri1, padI, rj0, rj1, padJ, margin, tol, tmax} {
		fin(x)
	}
	valid := b.Cmp(ir.EQ, sum.result(), zero)
	b.Comment("A negative radius or pad is invalid.")
	neg := b.Cmp(ir.LT, b.Min(b.Min(ri0, ri1), b.Min(rj0, rj1)), zero)
	neg = b.Or(neg, b.Cmp(ir.LT, b.Min(padI, padJ), zero))
	valid = b.AndNot(valid, neg)

	b.Comment("scale: the largest |coordinate| of a, b, d at t = 0 and of a, b, c, d at t = 1")
	b.Comment("(c is +0 at t = 0: |+0 + v| is |v|). The absolute values are not -0, so where none")
	b.Comment("is NaN (finite lanes; the others are invalid) the largest is the same bits in any")
	b.Comment("order: a tree, not newTOIFrame's chain.")
	mags := &chains{op: b.Max}
	mags.add(zero)
	for k := range 4 {
		for c := range 3 {
			if k == 2 {
				mags.add(b.Abs(v[k][c]))
				continue
			}
			mags.add(b.Abs(x0[k][c]))
			mags.add(b.Abs(b.Add(x0[k][c], v[k][c])))
		}
	}
	s := mags.result()
	b.Comment("tol = max(Tol, 32 eps scale); target = max(((rI + padI) + (rJ + padJ)) + margin, tol).")
	tol = b.Max(tol, b.Mul(b.Constant(toiTolFloor), s))
	ri, rj := b.Max(ri0, ri1), b.Max(rj0, rj1)
	target := b.Max(b.Add(b.Add(b.Add(ri, padI), b.Add(rj, padJ)), margin), tol)
	reach := b.Add(target, tol)

	out := slices.Concat(x0[0][:], x0[1][:], x0[3][:], v[0][:], v[1][:], v[2][:], v[3][:])
	state := b.Select(valid, b.Constant(toiRunning), b.Constant(toiInvalid))
	return append(out, target, reach, zero, zero, state)
}

// toiFrame is the frame as TOIStep and TOIFinish read it.
type toiFrame struct {
	x0, v         [4]ir.Vec3 // x0[2] is not set: c is +0 at t = 0
	target, reach ir.Value
	t, iter, st   ir.Value
}

// toiInputs reads the frame and the state, TOIStep's and TOIFinish's
// first inputs.
func toiInputs(b *ir.Builder) (f toiFrame) {
	f.x0[0], f.x0[1], f.x0[3] = b.Inputs3(0), b.Inputs3(3), b.Inputs3(6)
	for k := range 4 {
		f.v[k] = b.Inputs3(9 + 3*k)
	}
	f.target, f.reach = b.Input(21), b.Input(22)
	f.t, f.iter, f.st = b.Input(TOIState), b.Input(TOIState+1), b.Input(TOIState+2)
	return f
}

// at returns the endpoints at t: x0 + t v, c's as +0 + t v.
func (f *toiFrame) at(b *ir.Builder) (pt [4]ir.Vec3) {
	zero := b.Zero()
	for k := range 4 {
		for c := range 3 {
			x := zero
			if k != 2 {
				x = f.x0[k][c]
			}
			pt[k][c] = b.Add(x, b.Mul(f.t, f.v[k][c]))
		}
	}
	return pt
}

// toiStep is one pass of fallback.toiLane's loop for the lanes whose
// state is running; the others keep their state.
func toiStep(b *ir.Builder) []ir.Value {
	f := toiInputs(b)
	tmax := b.Clamp01(b.Arg(0))
	maxIter := b.Arg(1)
	zero, one := b.Zero(), b.One()

	b.Comment("Step 1: the endpoints at t and the projection.")
	pt := f.at(b)
	p := project(b, pt[0], pt[1], pt[2], pt[3])
	bad := b.Cmp(ir.NotLE, p.dist2, b.Constant(ir.MaxFinite))
	dist := b.Sqrt(p.dist2)

	b.Comment("Step 3: n = (P-Q)/d; the endpoints' separations along n and their rates.")
	inv := b.Div(one, dist)
	n := b.Scale(p.r, inv)
	var sep, rate [4]ir.Value
	for k := range 4 {
		sep[k] = b.Dot(n, pt[k])
		rate[k] = b.Dot(n, f.v[k])
	}
	b.Comment("Step 4: the lines a-c, a-d, b-c, b-d: advance gap/fall where falling, 0 where gap <= 0.")
	inf := b.Constant(toiInf)
	var step ir.Value
	for i, xy := range [4][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}} {
		x, y := xy[0], xy[1]
		gap := b.Sub(b.Sub(sep[x], sep[y]), f.target)
		fall := b.Sub(rate[y], rate[x])
		adv := b.Select(b.Cmp(ir.LT, zero, fall), b.Div(gap, fall), inf)
		adv = b.Select(b.Cmp(ir.LT, zero, gap), adv, zero)
		if i == 0 {
			step = adv // min(+Inf, adv) is adv
		} else {
			step = b.Min(step, adv)
		}
	}
	next := b.Add(f.t, step)

	b.Comment("The decision, in the spec's order: invalid, within reach, miss, unconverged, go on.")
	running := b.Cmp(ir.EQ, f.st, b.Constant(toiRunning))
	iter := b.Add(f.iter, one)
	stop := b.Or(b.AndNot(running, b.Cmp(ir.LT, f.t, next)), b.Cmp(ir.LE, maxIter, iter))
	st := b.Select(stop, b.Constant(toiUnconv), b.Constant(toiRunning))
	st = b.Select(b.Cmp(ir.NotLE, next, tmax), zero, st)
	hit := b.Select(b.Cmp(ir.EQ, f.t, zero), b.Constant(toiInitial), one)
	st = b.Select(b.Cmp(ir.LE, dist, f.reach), hit, st)
	st = b.Select(bad, b.Constant(toiInvalid), st)
	goOn := b.And(running, b.Cmp(ir.EQ, st, b.Constant(toiRunning)))
	tOut := b.Select(goOn, next, f.t)
	iterOut := b.Select(running, b.Select(bad, zero, iter), f.iter)
	stOut := b.Select(running, st, f.st)
	return []ir.Value{tOut, iterOut, stOut, goOn}
}

// toiFinish is the end of fallback.toiLane: the projection at T again (the
// same bits as the last iteration's), ContactLane's normal, and the
// points in world coordinates.
func toiFinish(b *ir.Builder) []ir.Value {
	f := toiInputs(b)
	origin := b.Inputs3(TOIOrigin)
	zero, one := b.Zero(), b.One()
	pt := f.at(b)
	p := project(b, pt[0], pt[1], pt[2], pt[3])
	dist := b.Sqrt(p.dist2)

	b.Comment("The normal by ContactLane's rules (contact's common path and rare block).")
	gv := b.Var3(p.r)
	g2 := b.Var(p.dist2)
	norm := b.Var(dist)
	normalVars{g: gv, g2: g2, norm: norm, zero: zero, one: one}.fallbacks(b, pt, p)
	inv := b.Div(one, norm)
	n := b.Scale(gv, inv)

	b.Comment("P = C0 + (a + s M0), Q = C0 + (c + t u).")
	var pp, q ir.Vec3
	for c := range 3 {
		pp[c] = b.Add(origin[c], b.Add(pt[0][c], b.Mul(p.m0[c], p.s)))
		q[c] = b.Add(origin[c], b.Add(pt[2][c], p.tu[c]))
	}
	b.Comment("Invalid lanes: the canonical NaN in every float.")
	bad := b.Cmp(ir.EQ, f.st, b.Constant(toiInvalid))
	out := nanWhere(b, bad, f.t, dist, n[0], n[1], n[2], pp[0], pp[1], pp[2], q[0], q[1], q[2])
	return append([]ir.Value{f.st, f.iter}, out...)
}

// chains combines values with op as they come, round robin into four
// chains, then the chains pairwise: a short chain of dependent
// operations, and each value consumed when it is added (an order the
// callers' ops do not see: see toiSetup).
type chains struct {
	op  func(x, y ir.Value) ir.Value
	acc []ir.Value
	n   int
}

func (c *chains) add(x ir.Value) {
	if len(c.acc) < 4 {
		c.acc = append(c.acc, x)
	} else {
		c.acc[c.n%4] = c.op(c.acc[c.n%4], x)
	}
	c.n++
}

func (c *chains) result() ir.Value {
	xs := c.acc
	for len(xs) > 1 {
		var next []ir.Value
		for i := 0; i+1 < len(xs); i += 2 {
			next = append(next, c.op(xs[i], xs[i+1]))
		}
		if len(xs)%2 == 1 {
			next = append(next, xs[len(xs)-1])
		}
		xs = next
	}
	return xs[0]
}
