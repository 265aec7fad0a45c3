package neon

import (
	"fmt"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// toiStreams is the number of soa.TOIs streams a TOI kernel writes: Pair,
// Status, Iter (uint32), then T, Dist, the normal, P and Q.
const toiStreams = 14

// toiPadReg holds the pads (or nil) in the TOI kernels, whose capsReg
// takes the start records, then the end records, per group.
const toiPadReg = 1

// toiArgs are the scalar arguments of a TOI kernel, each broadcast to a
// frame slot, in order.
var toiArgs = []string{"margin", "tol", "tmax", "maxiter"}

// toiKernel is one TOI kernel being written: its bodies and frame offsets.
type toiKernel struct {
	*pairKernel
	progs [3]*ir.Program // setup, step, finish
	set   int            // the start records (14), the end records (14), the pads of I and J
	state int            // the setup's outputs: the frame, then the state (t, iter, status)
	args  int            // margin, tol, tmax, maxiter in every lane
}

// TOI writes TOINEON (or TOI64NEON): the time of impact of n pairs of
// swept capsules, one group of pairs at a time, as the amd64 driver does
// (group): the three TOI bodies (kernels.TOISetup, TOIStep, TOIFinish)
// pass their values through frame slots, each allocated on its own, so
// the loop between the steps carries nothing in vector registers. Rows
// are stored as the contact kernels' are (pairKernel). It returns the
// kernel's register use (the most of the three bodies) and Go declaration.
func TOI(w *writer, c *constTable, e ir.Elem) (Stats, string) {
	name := "TOI" + e.Suffix() + "NEON"
	k := &toiKernel{pairKernel: &pairKernel{kernel: newKernel(w, c, e, name)}}
	k.streams, k.u32, k.narrowed = toiStreams, 3, true
	for i, kk := range []*kernels.Kernel{kernels.TOISetup, kernels.TOIStep, kernels.TOIFinish} {
		k.progs[i] = kk.ProgramOf(e)
		k.spillsOf(k.progs[i], dry, dry)
	}
	for _, o := range k.progs[1].Outputs {
		// The step's outputs overwrite its inputs' slots: none may be an
		// input, read again after an earlier output is stored.
		if k.progs[1].Code[o].Op == ir.OpInput {
			panic("neon: a TOIStep output is one of its inputs")
		}
	}
	k.set = k.take(kernels.TOIPadJ + 1)
	k.state = k.take(kernels.TOIOrigin)
	k.args = k.take(len(toiArgs))
	k.stage = k.take(toiStreams)
	k.tailIdx = k.take(2)

	argOff := 56 // the scalar arguments follow start, end, pad, pi, pj, out, n
	sig := "(start, end, pad *%[1]s, pi, pj *uint32, out *[%d]*%[1]s, n int, margin, tol, tmax, maxiter %[1]s)"
	k.text(fmt.Sprintf(sig, e, toiStreams), false, argOff+len(toiArgs)*k.size)
	loadArgs(w, []string{"start", "end", "pad", "pi", "pj", "out", "n"},
		[]int{-1, -1, toiPadReg, piReg, pjReg, outReg, nReg}, iReg)
	w.comment("margin, tol, tmax and maxiter in every lane, in their slots.")
	for j, a := range toiArgs {
		k.broadcast(a, argOff+k.size*j, k.args+16*j)
	}

	var l *lowering
	k.loop(func(label string, index func(side, lane int)) { l = k.group(label, index) }, func() {
		w.comment("Store one row per pair.")
		k.storeRows(func(s int) int { return k.rowVec(l, s) })
	}, "rows")
	k.tailRows(func(s int) int { return k.rowVec(l, s) })
	w.label(name + "_done")
	w.line("RET")

	return k.stats(), fmt.Sprintf(`// %s computes the time of impact of n pairs of swept capsules on arm64 NEON,
// one row per pair, bit-identical to fallback.TOILane%s on each. start and end point at
// the capsule records (soa.Capsule%[2]s, %[3]d bytes) at the start and the end of the step, pad
// at one pad per capsule or is nil (no pads), pi and pj at the n pair indices (all in
// range), out holds the fourteen soa.TOIs%[2]s streams of n rows; n > 0. tmax is clamped
// to [0, 1]; maxiter is MaxIter as a float (at least 1).
//
//go:noescape
func %[1]s(start *%[4]s, end *%[4]s, pad *%[4]s, pi *uint32, pj *uint32, out *[14]*%[4]s, n int, margin %[4]s, tol %[4]s, tmax %[4]s, maxiter %[4]s)
`, name, e.Suffix(), 8*e.Bytes(), e)
}

// group emits one group: the records of its pairs (index(side, lane)
// loads the capsule index of lane into tmpB), the pads, the setup, the
// steps until no lane runs, and the finish, whose lowering it returns
// (its outputs in place).
func (k *toiKernel) group(label string, index func(side, lane int)) *lowering {
	w := k.w
	w.comment("The start records of I and J, then the end records.")
	w.line("MOVD start+0(FP), R%d", capsReg)
	k.loadRecords(k.set+16*kernels.TOIStartI, false, index)
	w.line("MOVD end+8(FP), R%d", capsReg)
	k.loadRecords(k.set+16*kernels.TOIEndI, false, index)
	k.pads(label, index)

	w.comment("Setup: the frame and the initial state.")
	l := k.body(k.progs[0], label+"_setup", slots(k.set), slots(k.args)) // margin, tol, tmax
	l.storeOutputs(len(l.p.Outputs), k.state)

	w.comment("Steps until no lane is running.")
	w.label(label + "_steps")
	l = k.body(k.progs[1], label+"_step", slots(k.state), slots(k.args+32)) // tmax, maxiter
	l.storeOutputs(3, k.state+16*kernels.TOIState)
	anyLane(w, l.output(3), "CBNZW", label+"_steps")

	w.comment("Finish: the outputs at the time reached; C0 is J's A at the start.")
	return k.body(k.progs[2], label+"_finish", func(j int) source {
		if j >= kernels.TOIOrigin {
			return slot(k.set + 16*(kernels.TOIStartJ+j-kernels.TOIOrigin))
		}
		return slot(k.state + 16*j)
	}, nil)
}

// pads stores the pads of the group's capsules I and J to their slots:
// loaded one float at a time from pad, or zero if pad is nil.
func (k *toiKernel) pads(label string, index func(side, lane int)) {
	w := k.w
	w.comment("The pads of I and J: loaded by index, or zero without pads.")
	zeroSlots(w, k.set+16*kernels.TOIPadI, 2) // TOIPadI and TOIPadJ
	w.line("CBZ R%d, %s_nopad", toiPadReg, label)
	ld, st, shift := moves(k.size)
	for side := range 2 {
		for lane := range k.lanes {
			index(side, lane)
			w.line("%s (R%d)(R%d<<%d), R%d", ld, toiPadReg, tmpB, shift, tmpC)
			w.line("%s R%d, %d(R%d)", st, tmpC, k.set+16*(kernels.TOIPadI+side)+k.size*lane, frameReg)
		}
	}
	w.label(label + "_nopad")
}

// rowVec returns a register holding row stream s of the finish l: the
// pair index (first pair + lane) and status and iter converted to
// uint32 (narrowed to the low two lanes for float64) in scratch0, the
// floats as they are.
func (k *toiKernel) rowVec(l *lowering, s int) int {
	w := k.w
	switch s {
	case 0:
		return k.pairIndex(scratch0)
	case 1, 2:
		w.op(of(k.e, fcvtzu(scratch0, l.output(s-1))))
		if k.e == ir.F64 {
			w.op(xtn2s(scratch0, scratch0))
		}
		return scratch0
	}
	return l.output(s - 1)
}

// fcvtzu converts the float32 lanes of n to uint32, rounding toward
// zero (of makes it the float64 form).
func fcvtzu(d, n int) inst { return two(0x6EA1B800, d, n, "fcvtzu v%d.4s, v%d.4s") }
