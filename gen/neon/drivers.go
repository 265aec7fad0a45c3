package neon

import (
	"fmt"
	"strings"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// General registers of the drivers. R18 (platform), R26-R30 and RSP are
// never touched; R17, R20 and R21 belong to the lowering (anyReg,
// constReg, frameReg).
const (
	offReg    = 16 // batch: byte offset of the current group
	off2Reg   = 24 // batch: byte offset of the second interleaved group
	remainReg = 15 // batch: lanes left
	tmpA      = 19
	tmpB      = 22
	tmpC      = 23
)

// frame is the layout of a kernel's frame area (from frameReg): the
// body's spill slots first (spillsOf), then what the driver takes.
type frame struct {
	size         int
	spills, regs int // the body's spill slots and most registers in use
}

// take reserves n vectors and returns the offset of the first.
func (f *frame) take(n int) int {
	off := f.size
	f.size += 16 * n
	return off
}

// text writes the TEXT line and the register use: the area starts 16
// bytes above RSP, past the saved link register (Go's arm64 prologue
// keeps RSP 16-byte aligned).
func (f *frame) text(w *writer, name string, nosplit bool, args int) {
	flags := ""
	if nosplit {
		flags = "NOSPLIT, "
	}
	w.raw(fmt.Sprintf("TEXT ·%s(SB), %s$%d-%d\n", name, flags, f.size+16, args))
	w.comment(fmt.Sprintf("%d of %d vector registers for values, %d spilled per group.", f.regs, numRegs, f.spills))
}

// spillsOf lowers p once into a throwaway writer to learn how many spill
// slots it needs, and makes room for them (before any take).
func (f *frame) spillsOf(p *ir.Program, input, arg func(int) source) {
	l := newLowering(p, &writer{}, newConstTable())
	l.input, l.arg, l.label = input, arg, "dry"
	l.slotEnd = 1 << 20
	l.emit()
	f.spills, f.regs = max(f.spills, l.spills), max(f.regs, l.maxRegs)
	f.size = 16 * f.spills
}

// lowering returns a lowering of p into w whose spill slots are the frame's.
func (f *frame) lowering(p *ir.Program, w *writer, c *constTable) *lowering {
	l := newLowering(p, w, c)
	l.slotEnd = 16 * f.spills
	return l
}

// dry is the source of every input of a dry run (spillsOf).
func dry(int) source { return func(d int) inst { return ldrqi(d, frameReg, 0) } }

// Batch writes the NEON kernel for k with lanes of type e, its main loop
// run by m: groups of 4 float32 (or 2 float64) lanes loaded with
// register-offset loads, then the lanes left staged through the frame
// (copied in and out one float at a time, so nothing past n is read or
// written).
func Batch(w *writer, c *constTable, k *kernels.Kernel, e ir.Elem, m ir.Merge) (spills, regs int) {
	name := k.Name + e.Suffix() + "NEON"
	p := k.ProgramOf(e)
	lanes := 16 / e.Bytes()
	nin, nout := len(k.Inputs), len(k.Outputs)
	if nin+nout > 15 {
		panic("neon: more streams than registers")
	}
	streamIn := func(s int) source { return func(d int) inst { return ldrqr(d, s, offReg) } }
	var f frame
	f.spillsOf(p, streamIn, nil)
	// Interleaved groups: input g*nin+s is stream s of group g.
	groups := m.Groups
	var pg *ir.Program
	groupIn := func(s int) source {
		off := []int{offReg, off2Reg}[s/nin]
		return func(d int) inst { return ldrqr(d, s%nin, off) }
	}
	if groups > 1 {
		if groups > 2 {
			panic("neon: at most 2 interleaved groups (one more offset register)")
		}
		pg = ir.Interleave(p, m)
		f.spillsOf(pg, groupIn, nil)
	}
	stageIn, stageOut := f.take(nin), f.take(nout)
	w.raw(fmt.Sprintf("\n// func %s(%s *%s, n int)\n", name, strings.Join(append(append([]string{}, k.Inputs...), k.Outputs...), ", "), e))
	f.text(w, name, true, 8*(nin+nout+1))
	for s, n := range append(append([]string{}, k.Inputs...), k.Outputs...) {
		w.line("MOVD %s+%d(FP), R%d", n, 8*s, s)
	}
	w.line("MOVD n+%d(FP), R%d", 8*(nin+nout), remainReg)
	w.line("MOVD $0, R%d", offReg)
	w.line("MOVD $neonconst<>(SB), R%d", constReg)
	w.line("ADD $16, RSP, R%d", frameReg)

	be := &batchEmitter{w: w, c: c, name: name, lanes: lanes, nin: nin, nout: nout, f: &f, skew: m.Skew}
	if groups > 1 {
		be.loop(name+"_groups", pg, groups, groupIn)
	}
	be.loop(name+"_loop", p, 1, streamIn)
	be.tail(p, stageIn, stageOut)
	w.line("RET")
	return f.spills, f.regs
}

// batchEmitter carries the state of one batch kernel that Batch writes
// across its loops and tail: the frame and the streams.
type batchEmitter struct {
	w                *writer
	c                *constTable
	name             string
	lanes, nin, nout int
	f                *frame
	skew             float64
}

// loop emits a rotated loop over p (groups groups of lanes merged)
// while at least lanes*groups lanes remain, then falls through.
func (be *batchEmitter) loop(label string, p *ir.Program, groups int, in func(int) source) {
	w, lanes, nin, nout := be.w, be.lanes, be.nin, be.nout
	if groups > 1 {
		w.comment(fmt.Sprintf("%d groups of %d lanes at a time, their instructions merged with skew %v.", groups, lanes, be.skew))
	} else {
		w.comment(fmt.Sprintf("Whole groups of %d lanes.", lanes))
	}
	w.line("CMP $%d, R%d", lanes*groups, remainReg)
	w.line("BLT %s_end", label)
	w.label(label)
	if groups > 1 {
		w.line("ADD $16, R%d, R%d", offReg, off2Reg)
	}
	l := be.f.lowering(p, w, be.c)
	l.input, l.label = in, label
	l.emit()
	w.comment("Store the results.")
	for g := range groups {
		for j := range nout {
			w.op(strqr(l.output(g*nout+j), nin+j, []int{offReg, off2Reg}[g]))
		}
	}
	w.line("ADD $%d, R%d", 16*groups, offReg)
	w.line("SUB $%d, R%d", lanes*groups, remainReg)
	w.line("CMP $%d, R%d", lanes*groups, remainReg)
	w.line("BGE %s", label)
	w.label(label + "_end")
}

// tail emits the lanes left after the loops, staged through the frame at
// offsets stageIn and stageOut one float at a time.
func (be *batchEmitter) tail(p *ir.Program, stageIn, stageOut int) {
	w, name, lanes, nin, nout := be.w, be.name, be.lanes, be.nin, be.nout
	size := 16 / lanes
	// move is the scalar load and store of one float.
	load, store := map[int]string{4: "MOVWU", 8: "MOVD"}[size], map[int]string{4: "MOVW", 8: "MOVD"}[size]
	l := be.f.lowering(p, w, be.c)
	w.label(name + "_tail")
	w.comment(fmt.Sprintf("The n mod %d lanes left, staged through the frame one float at a time.", lanes))
	w.line("CBZ R%d, %s_done", remainReg, name)
	w.op(movi0(operand0))
	for s := range nin {
		w.op(strqi(operand0, frameReg, stageIn+16*s))
	}
	copyLanesOf(w, remainReg, lanes-1, name+"_in", func(lane int) {
		for s := range nin {
			w.line("ADD R%d, R%d, R%d", offReg, s, tmpA)
			w.line("%s %d(R%d), R%d", load, size*lane, tmpA, tmpB)
			w.line("%s R%d, %d(R%d)", store, tmpB, stageIn+16*s+size*lane, frameReg)
		}
	})
	l.input = func(s int) source { return func(d int) inst { return ldrqi(d, frameReg, stageIn+16*s) } }
	l.label = name + "_tailgroup"
	l.emit()
	for j := range nout {
		w.op(strqi(l.output(j), frameReg, stageOut+16*j))
	}
	copyLanesOf(w, remainReg, lanes-1, name+"_out", func(lane int) {
		for j := range nout {
			w.line("%s %d(R%d), R%d", load, stageOut+16*j+size*lane, frameReg, tmpB)
			w.line("ADD R%d, R%d, R%d", offReg, nin+j, tmpA)
			w.line("%s R%d, %d(R%d)", store, tmpB, size*lane, tmpA)
		}
	})
	w.label(name + "_done")
}

// Registers of the contact kernels.
const (
	capsReg   = 0  // the capsule records
	planesReg = 1  // the plane records (plane contact kernels)
	piReg     = 7  // pair indices I
	pjReg     = 8  // pair indices J
	outReg    = 9  // the array of the thirteen output stream pointers
	nReg      = 10 // n
	iReg      = 11 // the first pair of the current group
	written   = 12 // rows written (compaction)
	leftReg   = 13 // pairs left in the tail
)

// The record sources of the loops over pairs: both sides' records from
// the capsules, or side J's from the planes (a plane record is laid out as
// a capsule record).
var (
	capsSides  = [2]int{capsReg, capsReg}
	planeSides = [2]int{capsReg, planesReg}
)

// loadRecords loads the records of a group's pairs into the set of 14
// vectors at frame offset set (A B r of side I, then of J), side s from
// register bases[s], with transposing LD4 lane loads; index(side, lane)
// loads the record index of lane into tmpB.
func loadRecords(w *writer, e ir.Elem, set int, bases [2]int, index func(side, lane int)) {
	for side, base := range bases {
		what := map[int]string{capsReg: "Capsule", planesReg: "Plane"}[base]
		w.comment(fmt.Sprintf("%s records of side %c, transposed by LD4: V0-V3 ax ay az r, V4-V7 bx by bz pad.", what, "IJ"[side]))
		for lane := range 16 / e.Bytes() {
			index(side, lane)
			w.line("ADD R%d<<%d, R%d, R%d", tmpB, 5+int(e), base, tmpC) // 32 or 64 bytes a record
			w.op(ld4(e, 0, lane, tmpC, 4*e.Bytes()))
			w.op(ld4(e, 4, lane, tmpC, 0))
		}
		for v, pos := range []int{0, 1, 2, 6, 3, 4, 5} { // A0 A1 A2 r B0 B1 B2
			w.op(strqi(v, frameReg, set+16*(7*side+pos)))
		}
	}
}

// indexFromPairs loads into tmpB the capsule index of lane of the group
// at iReg on side 0 (pi) or 1 (pj) (tmpA: the group's indices, set at
// lane 0).
func indexFromPairs(w *writer, side, lane int) {
	if lane == 0 {
		w.line("ADD R%d<<2, R%d, R%d", iReg, []int{piReg, pjReg}[side], tmpA)
	}
	w.line("MOVWU %d(R%d), R%d", 4*lane, tmpA, tmpB)
}

// copyTailIndices copies the left < lanes remaining pair indices of both
// sides into the zeroed vectors at frame offset tailIdx (capsule 0 past n).
func copyTailIndices(w *writer, name string, lanes, tailIdx int) {
	w.op(movi0(operand0))
	w.op(strqi(operand0, frameReg, tailIdx))
	w.op(strqi(operand0, frameReg, tailIdx+16))
	copyLanesOf(w, leftReg, lanes-1, name+"_tailin", func(lane int) {
		for side, idx := range []int{piReg, pjReg} {
			w.line("ADD R%d<<2, R%d, R%d", iReg, idx, tmpA)
			w.line("MOVWU %d(R%d), R%d", 4*lane, tmpA, tmpB)
			w.line("MOVW R%d, %d(R%d)", tmpB, tailIdx+16*side+4*lane, frameReg)
		}
	})
}

// Contacts writes the contact kernel of body k (kernels.Contact or
// kernels.PlaneContact) with lanes of type e: ContactsNEON (compact
// false) or CompactContactsNEON, or their plane and float64 forms. The
// records load as pairLoop says; rows are stored whole, or lane by lane
// for the touching pairs only (compact). A float64 count comes out in
// 64-bit lanes: its low 32 bits are the row value.
func Contacts(w *writer, c *constTable, k *kernels.Kernel, compact bool, e ir.Elem) (spills, regs int) {
	name := k.Name + e.Suffix() + "NEON"
	if compact {
		name = "Compact" + name
	}
	p := k.ProgramOf(e)
	lanes, size := 16/e.Bytes(), e.Bytes()
	var f frame
	f.spillsOf(p, dry, dry)
	ce := &contactEmitter{w: w, c: c, k: k, e: e, compact: compact, name: name, lanes: lanes, size: size,
		load: map[int]string{4: "MOVWU", 8: "MOVD"}[size], store: map[int]string{4: "MOVW", 8: "MOVD"}[size]}
	ce.set = f.take(len(k.Inputs))
	ce.stage = f.take(1 + len(k.Outputs)) // pair index, then the outputs
	marginOff := f.take(1)
	tailIdx := f.take(2) // the tail's indices I, then J

	// prefetch (amd64: prefetch capsule records ahead) is ignored here: NEON
	// record prefetching is not measured.
	// a: the offset of the arguments after caps (and planes); the plane
	// kernels' nplanes (amd64: at most lanes planes go to a table) follows
	// prefetch, and is ignored here too.
	params, extra, a := "caps", "", 0
	ce.sides = capsSides
	if k == kernels.PlaneContact {
		ce.sides, params, extra, a = planeSides, "caps, planes", ", nplanes", 8
	}
	w.raw(fmt.Sprintf("\n// func %s(%s *%s, pi, pj *uint32, out *[13]*%s, n int, margin %s, prefetch%s int) int\n", name, params, e, e, e, extra))
	f.text(w, name, false, 64+2*a)
	ce.loadArgs(a, marginOff)

	l := f.lowering(p, w, c)
	l.input = func(s int) source { return func(d int) inst { return ldrqi(d, frameReg, ce.set+16*s) } }
	l.arg = func(int) source { return func(d int) inst { return ldrqi(d, frameReg, marginOff) } }
	ce.l = l

	pairLoop(l, e, pairFrame{name, ce.set, tailIdx, ce.sides}, ce.storeGroup, "rows")
	ce.stageOutputs()
	copyLanesOf(w, leftReg, lanes-1, name+"_tailout", func(lane int) { ce.row(name+"_tailrow", lane) })
	w.line("ADD R%d, R%d, R%d", leftReg, iReg, iReg)

	w.label(name + "_done")
	if compact {
		w.line("MOVD R%d, ret+%d(FP)", written, 2*a+56)
	} else {
		w.line("MOVD R%d, ret+%d(FP)", nReg, 2*a+56)
	}
	w.line("RET")
	return f.spills, f.regs
}

// contactEmitter carries the state of one contact kernel that Contacts
// writes across its parts: the body's lowering l, the frame offsets of
// the record set and the row stage, and the scalar moves of one element.
type contactEmitter struct {
	w           *writer
	c           *constTable
	k           *kernels.Kernel
	e           ir.Elem
	compact     bool
	name        string
	lanes, size int
	load, store string
	set, stage  int
	sides       [2]int
	l           *lowering
}

// loadArgs loads the arguments (those after caps, and planes, at offset
// a) into their registers and the margin into every lane of its slot at
// frame offset marginOff.
func (ce *contactEmitter) loadArgs(a, marginOff int) {
	w := ce.w
	w.line("MOVD caps+0(FP), R%d", capsReg)
	if a > 0 {
		w.line("MOVD planes+8(FP), R%d", planesReg)
	}
	w.line("MOVD pi+%d(FP), R%d", a+8, piReg)
	w.line("MOVD pj+%d(FP), R%d", a+16, pjReg)
	w.line("MOVD out+%d(FP), R%d", a+24, outReg)
	w.line("MOVD n+%d(FP), R%d", a+32, nReg)
	w.line("MOVD $0, R%d", iReg)
	w.line("MOVD $0, R%d", written)
	w.line("MOVD $neonconst<>(SB), R%d", constReg)
	w.line("ADD $16, RSP, R%d", frameReg)
	w.comment("The margin in every lane, in its slot.")
	w.line("%s margin+%d(FP), R%d", ce.load, a+40, tmpA)
	if ce.e == ir.F64 {
		w.op(dupx(operand0, tmpA))
	} else {
		w.op(dupw(operand0, tmpA))
	}
	w.op(strqi(operand0, frameReg, marginOff))
}

// pairIndex sets vector dst to the pair indices of the group at iReg.
func (ce *contactEmitter) pairIndex(dst int) {
	w := ce.w
	w.op(dupw(dst, iReg))
	w.op(ldrqi(scratch1, constReg, ce.c.vector("iota", [4]uint32{0, 1, 2, 3})))
	w.op(add4s(dst, dst, scratch1))
}

// stageOutputs stores the pair index and the outputs to the stage.
func (ce *contactEmitter) stageOutputs() {
	w := ce.w
	ce.pairIndex(operand0)
	w.op(strqi(operand0, frameReg, ce.stage))
	for j := range ce.k.Outputs {
		w.op(strqi(ce.l.output(j), frameReg, ce.stage+16*(1+j)))
	}
}

// row emits the compaction or the row store of one lane from the
// stage. The pair index has 32-bit lanes; the count has the lanes of
// the element type (its low 32 bits are the row value); the floats are
// elements.
func (ce *contactEmitter) row(label string, lane int) {
	w, compact, stage, size := ce.w, ce.compact, ce.stage, ce.size
	if compact {
		w.line("MOVWU %d(R%d), R%d", stage+16+size*lane, frameReg, tmpA) // count
		w.line("CBZW R%d, %s_skip%d", tmpA, label, lane)
	}
	dst := iReg // row index
	if compact {
		dst = written
	}
	for s := range 1 + len(ce.k.Outputs) {
		ld, st, from, sz := ce.load, ce.store, stage+16*s+size*lane, size
		switch s {
		case 0: // the pair index: 32-bit lanes
			ld, st, from, sz = "MOVWU", "MOVW", stage+4*lane, 4
		case 1: // the count: the low 32 bits of its lane
			ld, st, sz = "MOVWU", "MOVW", 4
		}
		w.line("%s %d(R%d), R%d", ld, from, frameReg, tmpB)
		w.line("MOVD %d(R%d), R%d", 8*s, outReg, tmpA)
		if compact {
			w.line("%s R%d, (R%d)(R%d<<%d)", st, tmpB, tmpA, dst, map[int]int{4: 2, 8: 3}[sz])
		} else {
			w.line("ADD R%d<<%d, R%d, R%d", iReg, map[int]int{4: 2, 8: 3}[sz], tmpA, tmpA)
			w.line("%s R%d, %d(R%d)", st, tmpB, sz*lane, tmpA)
		}
	}
	if compact {
		w.line("ADD $1, R%d", written)
		w.label(fmt.Sprintf("%s_skip%d", label, lane))
	}
}

// storeGroup stores the rows of a whole group: the touching lanes' rows
// lane by lane (compact), or one row per pair.
func (ce *contactEmitter) storeGroup() {
	w, l, name := ce.w, ce.l, ce.name
	switch {
	case ce.compact:
		w.comment("Compaction: the touching lanes' rows, in pair order; nothing for a group without one.")
		w.op(umaxv(scratch0, l.output(0)))
		w.op(fmovws(anyReg, scratch0))
		w.line("CBZW R%d, %s_none", anyReg, name)
		ce.stageOutputs()
		for lane := range ce.lanes {
			ce.row(name+"_group", lane)
		}
		w.label(name + "_none")
	case ce.e == ir.F64:
		w.comment("Store one row per pair: Pair and the narrowed Count as two uint32 (8 bytes), the floats whole.")
		ce.pairIndex(operand0)
		w.line("MOVD 0(R%d), R%d", outReg, tmpA)
		w.line("ADD R%d<<2, R%d, R%d", iReg, tmpA, tmpA)
		w.op(strdi(operand0, tmpA, 0))
		w.op(xtn2s(operand0, l.output(0)))
		w.line("MOVD 8(R%d), R%d", outReg, tmpA)
		w.line("ADD R%d<<2, R%d, R%d", iReg, tmpA, tmpA)
		w.op(strdi(operand0, tmpA, 0))
		for j := 1; j < len(ce.k.Outputs); j++ {
			w.line("MOVD %d(R%d), R%d", 8*(1+j), outReg, tmpA)
			w.line("ADD R%d<<3, R%d, R%d", iReg, tmpA, tmpA)
			w.op(strqi(l.output(j), tmpA, 0))
		}
	default:
		w.comment("Store one row per pair.")
		ce.pairIndex(operand0)
		w.line("MOVD 0(R%d), R%d", outReg, tmpA)
		w.line("ADD R%d<<2, R%d, R%d", iReg, tmpA, tmpA)
		w.op(strqi(operand0, tmpA, 0))
		for j := range ce.k.Outputs {
			w.line("MOVD %d(R%d), R%d", 8*(1+j), outReg, tmpA)
			w.line("ADD R%d<<2, R%d, R%d", iReg, tmpA, tmpA)
			w.op(strqi(l.output(j), tmpA, 0))
		}
	}
}

// pairFrame is where a loop over pairs keeps its records: the kernel's
// name (the labels' stem), the frame offsets of the set of 14 record
// vectors and of the tail's indices, and the record sources.
type pairFrame struct {
	name         string
	set, tailIdx int
	sides        [2]int
}

// pairLoop emits the loop over the whole groups of pairs at iReg (their
// records loaded by index into the set, the body lowered by l, then
// store), and the tail up to its whole group: the n mod lanes pairs left,
// their indices copied to the frame with capsule 0 past n. what names
// the tail's lane-by-lane stores, which follow.
func pairLoop(l *lowering, e ir.Elem, pf pairFrame, store func(), what string) {
	w, name, lanes := l.out, pf.name, 16/e.Bytes()
	w.label(name + "_loop")
	w.line("SUB R%d, R%d, R%d", iReg, nReg, leftReg)
	w.line("CMP $%d, R%d", lanes, leftReg)
	w.line("BLT %s_tail", name)
	loadRecords(w, e, pf.set, pf.sides, func(side, lane int) { indexFromPairs(w, side, lane) })
	l.label = name + "_group"
	l.emit()
	store()
	w.line("ADD $%d, R%d", lanes, iReg)
	w.line("B %s_loop", name)

	w.label(name + "_tail")
	w.comment(fmt.Sprintf("The n mod %d pairs left: their indices, zero past n, then a whole group; %s lane by lane.", lanes, what))
	w.line("CBZ R%d, %s_done", leftReg, name)
	copyTailIndices(w, name, lanes, pf.tailIdx)
	loadRecords(w, e, pf.set, pf.sides, func(side, lane int) {
		w.line("MOVWU %d(R%d), R%d", pf.tailIdx+16*side+4*lane, frameReg, tmpB)
	})
	l.label = name + "_tailgroup"
	l.emit()
}

// copyLanesOf emits body(lane) for lanes 0, 1, ... up to max-1 while
// lane < the count in register r (1 to max).
func copyLanesOf(w *writer, r, max int, label string, body func(lane int)) {
	for lane := range max {
		if lane > 0 {
			w.line("CMP $%d, R%d", lane+1, r)
			w.line("BLT %s_end", label)
		}
		body(lane)
	}
	w.label(label + "_end")
}

// ClosestIndexed writes ClosestIndexedNEON (or ClosestIndexed64NEON): the
// closest-point kernel on the axes of capsule pairs given by index, their
// records loaded as the contact kernels' are (loadRecords), S, T and
// Dist2 stored whole for whole groups and staged lane by lane for the
// tail.
func ClosestIndexed(w *writer, c *constTable, e ir.Elem) (spills, regs int) {
	k := kernels.Closest
	name := k.Name + "Indexed" + e.Suffix() + "NEON"
	p := k.ProgramOf(e)
	lanes, size := 16/e.Bytes(), e.Bytes()
	load, store := map[int]string{4: "MOVWU", 8: "MOVD"}[size], map[int]string{4: "MOVW", 8: "MOVD"}[size]
	var f frame
	f.spillsOf(p, dry, nil)
	set := f.take(14)
	stage := f.take(len(k.Outputs))
	tailIdx := f.take(2)
	outs := []int{1, 2, 3} // R1-R3: s, t, dist2

	// prefetch is ignored here, as in the contact kernels.
	w.raw(fmt.Sprintf("\n// func %s(caps *%s, pi, pj *uint32, s, t, dist2 *%s, n int, prefetch int)\n", name, e, e))
	f.text(w, name, false, 64)
	w.line("MOVD caps+0(FP), R%d", capsReg)
	w.line("MOVD pi+8(FP), R%d", piReg)
	w.line("MOVD pj+16(FP), R%d", pjReg)
	for j, o := range []string{"s", "t", "dist2"} {
		w.line("MOVD %s+%d(FP), R%d", o, 24+8*j, outs[j])
	}
	w.line("MOVD n+48(FP), R%d", nReg)
	w.line("MOVD $0, R%d", iReg)
	w.line("MOVD $neonconst<>(SB), R%d", constReg)
	w.line("ADD $16, RSP, R%d", frameReg)

	l := f.lowering(p, w, c)
	// The body's inputs A B C D are the set's A B of capsule I (0-5) and
	// of capsule J (7-12): the radii are skipped.
	l.input = func(s int) source {
		if s >= 6 {
			s++
		}
		return func(d int) inst { return ldrqi(d, frameReg, set+16*s) }
	}

	pairLoop(l, e, pairFrame{name, set, tailIdx, capsSides}, func() {
		w.comment("Store S, T and Dist2.")
		w.line("LSL $%d, R%d, R%d", map[int]int{4: 2, 8: 3}[size], iReg, tmpA)
		for j := range k.Outputs {
			w.op(strqr(l.output(j), outs[j], tmpA))
		}
	}, "results")
	for j := range k.Outputs {
		w.op(strqi(l.output(j), frameReg, stage+16*j))
	}
	copyLanesOf(w, leftReg, lanes-1, name+"_tailout", func(lane int) {
		for j := range k.Outputs {
			w.line("%s %d(R%d), R%d", load, stage+16*j+size*lane, frameReg, tmpB)
			w.line("ADD R%d<<%d, R%d, R%d", iReg, map[int]int{4: 2, 8: 3}[size], outs[j], tmpA)
			w.line("%s R%d, %d(R%d)", store, tmpB, size*lane, tmpA)
		}
	})
	w.label(name + "_done")
	w.line("RET")
	return f.spills, f.regs
}
