package amd64

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// The time-of-impact kernels run the three TOI bodies (kernels.TOISetup,
// TOIStep, TOIFinish) on an iteration's groups of pairs (toiKernel.groups).
// The values between the bodies live in a set of slots per group in the
// frame; each body's registers are allocated on their own (the spiller), so
// the loop between the steps carries nothing in vector registers but 0 and 1.

// toiStreams is the number of soa.TOIs streams a TOI kernel writes: Pair,
// Status, Iter (uint32), then T, Dist, the normal, P and Q.
const toiStreams = 14

// Registers of the TOI kernels besides pairIdx (pi and pj).
var (
	toiStart = RAX // the start records
	toiEnd   = RCX // the end records
	toiArea  = R9  // the aligned slot area: spill slots, then the set
)

// The set's layout, in vectors from the spill slots on: the 28 record
// inputs and 2 pads of TOISetup, the frame and the state, the tail's two
// index vectors.
const (
	toiRec     = 0
	toiFrameAt = 30
	toiOffsets = toiFrameAt + kernels.TOIFrame + 3 // the records' byte offsets: 8 bytes a lane and side
	toiSetSize = toiOffsets + 4 + 2
)

// toiKernel is one TOI kernel being emitted.
type toiKernel struct {
	t         *ir.Target
	c         *constants
	progs     [3]*ir.Program // setup, step, finish
	merge     ir.Merge       // the groups per iteration and their skew
	outs      Mem            // the fourteen output stream pointers (outPointers)
	spills    *slots         // the groups' spill slots, at the start of the area
	zero, one VecVirtual
}

// TOI emits the time-of-impact kernels of the target: TOIISA for the
// pairs of whole iterations (Schedule.TOI: the groups merged per iteration
// and their skew), which returns how many it computed, and TOITailISA, one
// group at a time under a mask, for the rest. Two functions, not one: avo's
// register allocation takes time that grows faster than a function's length.
func (e *emitter) TOI() {
	t := e.t
	check(t)
	sfx := t.Elem.Suffix()
	name, tail := "TOI"+sfx+t.Name, "TOITail"+sfx+t.Name
	rec := fmt.Sprintf("%d bytes", 8*t.ElemBytes)
	sig := fmt.Sprintf("func(start, end, pad *F, pi, pj *uint32, out *[%d]*F, n int, margin, tol, tmax, maxiter F)", toiStreams)
	sig = strings.ReplaceAll(sig, "F", t.Elem.String())
	args := []string{"start and end point at the capsule records (soa.Capsule" + sfx + ", " + rec + ") at the start and",
		"the end of the step, pad at one pad per capsule or is nil (no pads), pi and pj at the n pair",
		"indices (all in range and below 2^31), out holds the fourteen soa.TOIs" + sfx + " streams of n rows;",
		"n > 0. tmax is clamped to [0, 1]; maxiter is MaxIter as a float (at least 1)."}
	k := e.toiKernel(name, sig+" int", append([]string{name + " computes the time of impact of the first n - n mod " + fmt.Sprint(e.s.TOI.Groups*t.Lanes) + " of n pairs of",
		"swept capsules with " + t.Name + ", one row per pair, bit-identical to fallback.TOILane" + sfx + " on each, and",
		"returns their number (" + tail + " computes the rest)."}, args...), e.s.TOI)
	step := k.merge.Groups * t.Lanes
	Commentf("%d whole groups of %d pairs at a time.", k.merge.Groups, t.Lanes)
	CMPQ(remain, U32(step))
	JB(LabelRef(name + "_done"))
	Label(name + "_loop")
	k.groups(name+"_loop", nil, func(g, side, lane int) Mem {
		return Mem{Base: pairIdx[side], Index: index, Scale: 4, Disp: 4 * (g*t.Lanes + lane)}
	})
	ADDQ(U32(step), index)
	SUBQ(U32(step), remain)
	CMPQ(remain, U32(step))
	JAE(LabelRef(name + "_loop"))
	Label(name + "_done")
	Store(index, ReturnIndex(0))
	ret(t, nil)

	k = e.toiKernel(tail, sig, append([]string{tail + " computes the time of impact of n pairs of swept capsules with " + t.Name + ",",
		"one group of pairs at a time under a mask, one row per pair, bit-identical to fallback.TOILane" + sfx + " on",
		"each (the rest of " + name + "'s pairs)."}, args...), ir.Merge{Groups: 1})
	Label(tail + "_loop")
	Comment("The mask of the first min(n - i, lanes) lanes (tailMask, which may overwrite remain).")
	left := GP64()
	MOVQ(remain, left)
	mask := tailMask(t, e.c)
	MOVQ(left, remain)
	Comment("The pair indices, zero (capsule 0) past n.")
	idx := tailIndices(&lowering{t: t, consts: e.c}, k.slot(0, toiSetSize-2), mask)
	k.groups(tail+"_g", mask, func(_, side, lane int) Mem { return idx(side, lane) })
	ADDQ(U32(t.Lanes), index)
	SUBQ(U32(t.Lanes), remain)
	JG(LabelRef(tail + "_loop"))
	ret(t, nil)
}

// toiKernel begins TOI function name, which runs merge's groups at a
// time: its TEXT, doc and frame, the stream pointers, 0 and 1, index 0
// and remain n.
func (e *emitter) toiKernel(name, sig string, doc []string, merge ir.Merge) *toiKernel {
	t := e.t
	text(name, 0, sig, false, doc)
	k := &toiKernel{t: t, c: e.c, merge: merge}
	for i, kk := range []*kernels.Kernel{kernels.TOISetup, kernels.TOIStep, kernels.TOIFinish} {
		k.progs[i] = ir.Unpark(kk.ProgramOf(t.Elem))
	}
	k.outs = outPointers(toiStreams)
	for i, r := range []GPPhysical{toiStart, toiEnd, pairIdx[0], pairIdx[1]} {
		Load(Param([]string{"start", "end", "pi", "pj"}[i]), r)
	}
	k.spills = newSlots(toiArea, k.merge.Groups*(spillSlots+toiSetSize), spillSlots, t.VecBytes())
	k.zero, k.one = vecOf(t.VecBytes()), vecOf(t.VecBytes())
	VXORPS(k.zero, k.zero, k.zero)
	fpOf(t).broadcast(e.c.of(t.Elem, "one"), k.one)
	XORQ(index, index)
	Load(Param("n"), remain)
	return k
}

// slot returns vector j of group g's set. The area holds the groups'
// spill slots, then their sets.
func (k *toiKernel) slot(g, j int) Mem {
	return Mem{Base: toiArea, Disp: (k.merge.Groups*spillSlots + g*toiSetSize + j) * k.t.VecBytes()}
}

// lowerings returns a lowering of body b for each group of an iteration,
// reading group g's inputs from its set's slots at in(j) and its
// arguments from the parameters args.
func (k *toiKernel) lowerings(b int, label string, in func(j int) int, args ...string) []*lowering {
	l := &lowering{t: k.t, p: k.progs[b], consts: k.c, zero: k.zero, one: k.one, spill: true, slots: k.spills}
	ls := make([]*lowering, k.merge.Groups)
	for g := range ls {
		ls[g] = l.forGroup(g)
		ls[g].beginGroup(fmt.Sprintf("%s_g%d", label, g), func(j int) Op { return k.slot(g, in(j)) },
			func(j int) Mem { return addrOf(Param(args[j])) })
	}
	return ls
}

// run emits the bodies of ls, their instruction streams merged at the
// schedule's skew, then done(g) with group g's outputs. The spiller keeps
// one register more free than it counts: the step's body needs it (avo
// fails to allocate the AVX-512 step without it).
func (k *toiKernel) run(ls []*lowering, mask Op, storeNeed int, done func(g int)) {
	merge(ls, k.merge.Skew, done, newSpiller(ls, heldBy(mask)+1, storeNeed), nil)
}

// groups emits the merged groups of an iteration, group g on the pairs
// from index + g*t.Lanes (their indices at index(g, side, lane)): each
// group's start and end records and pads, the setups, the steps until no
// lane of any group is running, the finishes and the rows, under mask
// (nil: whole groups; a mask is for one group).
func (k *toiKernel) groups(label string, mask Op, index func(g, side, lane int) Mem) {
	t := k.t
	for g := range k.merge.Groups {
		k.records(g, func(side, lane int) Mem { return index(g, side, lane) })
		k.pads(fmt.Sprintf("%s_g%d", label, g), g, func(side, lane int) Mem { return index(g, side, lane) })
	}

	Comment("Setup: the frames and the initial states.")
	frame := func(j int) int { return toiFrameAt + j }
	ls := k.lowerings(0, label+"_setup", func(j int) int { return toiRec + j }, "margin", "tol", "tmax")
	k.run(ls, mask, 0, func(g int) {
		for j := range ls[g].p.Outputs {
			VMOVUPS(ls[g].out(j), k.slot(g, frame(j)))
		}
	})

	Comment("Steps until no lane is running.")
	Label(label + "_step")
	ls = k.lowerings(1, label+"_step", frame, "tmax", "maxiter")
	running := make([]GPVirtual, k.merge.Groups)
	k.run(ls, mask, 0, func(g int) {
		l := ls[g]
		for j := range 3 {
			VMOVUPS(l.out(j), k.slot(g, frame(kernels.TOIState+j)))
		}
		running[g] = GP32()
		if evex(t) {
			KMOVW(l.out(3), running[g])
		} else {
			fpOf(t).movmsk(l.out(3), running[g])
		}
	})
	for _, r := range running[1:] {
		ORL(r, running[0])
	}
	TESTL(running[0], running[0])
	JNZ(LabelRef(label + "_step"))

	Comment("Finish: the rows.")
	origin := func(j int) int {
		if j >= kernels.TOIOrigin {
			return toiRec + 7 + j - kernels.TOIOrigin // J's A at the start
		}
		return frame(j)
	}
	ls = k.lowerings(2, label+"_finish", origin)
	k.run(ls, mask, 2, func(g int) { k.rows(ls[g], mask, g) })
}

// records loads the start and the end records of the group's pairs and
// stores their transposed fields to the set (TOISetup's first 28
// inputs). The byte offsets of the records, shared by both stores, are
// computed once, four lanes at a time, so that each record's address
// takes one load.
func (k *toiKernel) records(g int, index func(side, lane int) Mem) {
	t := k.t
	Comment("The records' byte offsets: index << log2(record size), as 64-bit lanes.")
	offset := func(side, lane int) Mem { return k.slot(g, toiOffsets).Offset(8 * (side*t.Lanes + lane)) }
	for side := range 2 {
		for lane := 0; lane < t.Lanes; lane += 4 {
			q := YMM()
			VPMOVZXDQ(index(side, lane), q)
			VPSLLQ(U8(5+uint8(t.Elem)), q, q)
			VMOVDQU(q, offset(side, lane))
		}
	}
	for s, base := range []GPPhysical{toiStart, toiEnd} {
		for side := range 2 {
			Commentf("Capsule records of side %c at the %s, transposed.", "IJ"[side], []string{"start", "end"}[s])
			record := func(lane, disp int) Mem {
				r := GP64()
				MOVQ(offset(side, lane), r)
				return Mem{Base: base, Index: r, Scale: 1, Disp: disp}
			}
			first := toiRec + 14*s + 7*side
			transposeRecords(t, record, func(field int, v Op) { VMOVUPS(v, k.slot(g, first+fieldInput[field])) })
		}
	}
}

// pads stores the pads of the group's capsules I and J to their slots:
// gathered from pad, or zero if pad is nil.
func (k *toiKernel) pads(label string, g int, index func(side, lane int) Mem) {
	t := k.t
	Comment("The pads of I and J: gathered, or zero without pads.")
	VMOVUPS(k.zero, k.slot(g, toiRec+kernels.TOIPadI))
	VMOVUPS(k.zero, k.slot(g, toiRec+kernels.TOIPadJ))
	pad := Load(Param("pad"), GP64())
	TESTQ(pad, pad)
	JZ(LabelRef(label + "_nopad"))
	for side := range 2 {
		dst, idx := vecOf(t.VecBytes()), vecOf(4*t.Lanes) // idx: t.Lanes 32-bit indices
		VMOVUPS(index(side, 0), idx)
		vm := Mem{Base: pad, Index: idx, Scale: uint8(t.ElemBytes)}
		// Every register the gather reads is defined first, from 0 (avo
		// would take a register read before it is written as live from
		// the function's entry).
		VMOVUPS(k.zero, dst)
		gather := fpOf(t).gather
		if evex(t) {
			all := K()
			VPCMPEQD(k.zero, k.zero, all)
			gather(vm, all, dst)
		} else {
			all := YMM()
			VPCMPEQD(k.zero, k.zero, all)
			gather(all, vm, dst)
		}
		VMOVUPS(dst, k.slot(g, toiRec+kernels.TOIPadI+side))
	}
	Label(label + "_nopad")
}

// rows stores the finish's outputs: the pair index, status and iter as
// uint32, the floats as they are, under mask if not nil.
func (k *toiKernel) rows(l *lowering, mask Op, g int) {
	t := k.t
	ptr := func(s int) GPPhysical {
		MOVQ(k.outs.Offset(8*s), scratch)
		return scratch
	}
	Commentf("Pair index k = i + %d + lane.", g*t.Lanes)
	pair := vecOf(4 * t.Lanes)
	first := GP64()
	LEAQ(Mem{Base: index, Disp: g * t.Lanes}, first)
	VMOVD(first.As32(), pair.AsX())
	VPBROADCASTD(pair.AsX(), pair)
	VPADDD(k.c.iota, pair, pair)
	k.storeInt32(pair, Mem{Base: ptr(0), Index: index, Scale: 4, Disp: 4 * g * t.Lanes}, mask)
	for j := range 2 {
		v := vecOf(4 * t.Lanes)
		switch {
		case t.Elem == ir.F32:
			VCVTTPS2DQ(l.out(j), v)
		case evex(t):
			VCVTTPD2DQ(l.out(j), v)
		default:
			VCVTTPD2DQY(l.out(j), v)
		}
		k.storeInt32(v, Mem{Base: ptr(1 + j), Index: index, Scale: 4, Disp: 4 * g * t.Lanes}, mask)
	}
	for j := 2; j < len(l.p.Outputs); j++ {
		storeLanes(t, l.out(j), mask, Mem{Base: ptr(1 + j), Index: index, Scale: scale(t), Disp: g * t.VecBytes()})
	}
}

// storeInt32 stores the int32 lanes of v to dst, under mask if not nil.
func (k *toiKernel) storeInt32(v VecVirtual, dst Mem, mask Op) {
	switch {
	case mask == nil:
		VMOVUPS(v, dst)
	case evex(k.t):
		VMOVDQU32(v, mask, dst)
	case k.t.Elem == ir.F64:
		VPMASKMOVD(v, mask32(&lowering{consts: k.c}, mask), dst)
	default:
		VPMASKMOVD(v, mask, dst)
	}
}
