package neon

import (
	"fmt"
	"slices"
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

// kernel is the kernel a driver is writing: its name, its lanes and the
// layout of its frame area (from frameReg), the body's spill slots first
// (spillsOf), then what the driver takes.
type kernel struct {
	w            *writer
	c            *constTable
	e            ir.Elem
	name         string
	lanes, size  int // lanes of a vector, bytes of a lane
	frame        int // the bytes of the frame area
	spills, regs int // the body's spill slots and most registers in use
}

func newKernel(w *writer, c *constTable, e ir.Elem, name string) kernel {
	return kernel{w: w, c: c, e: e, name: name, lanes: 16 / e.Bytes(), size: e.Bytes()}
}

// take reserves n vectors of the frame and returns the offset of the first.
func (k *kernel) take(n int) int {
	off := k.frame
	k.frame += 16 * n
	return off
}

// spillsOf lowers p once into a throwaway writer to learn how many spill
// slots it needs, and makes room for them (before any take).
func (k *kernel) spillsOf(p *ir.Program, input, arg func(int) source) {
	throwaway := kernel{w: &writer{}, c: newConstTable(), spills: 1 << 16} // slots enough for any body
	l := throwaway.body(p, "dry", input, arg)
	k.spills, k.regs = max(k.spills, l.spills), max(k.regs, l.maxRegs)
	k.frame = 16 * k.spills
}

// text writes the Go signature sig as a comment, the TEXT line and the
// register use: the frame area starts 16 bytes above RSP, past the saved
// link register (Go's arm64 prologue keeps RSP 16-byte aligned).
func (k *kernel) text(sig string, nosplit bool, args int) {
	flags := ""
	if nosplit {
		flags = "NOSPLIT, "
	}
	k.w.raw(fmt.Sprintf("\n// func %s%s\n", k.name, sig))
	k.w.raw(fmt.Sprintf("TEXT ·%s(SB), %s$%d-%d\n", k.name, flags, k.frame+16, args))
	k.w.comment(fmt.Sprintf("%d of %d vector registers for values, %d spilled per group.", k.regs, numRegs, k.spills))
}

// stats returns the kernel's register use.
func (k *kernel) stats() Stats { return Stats{k.name, k.regs, k.spills} }

// slot is the source of the value in the frame slot at offset off.
func slot(off int) source { return func(d int) inst { return ldrqi(d, frameReg, off) } }

// slots is the source of the values in the frame slots from offset base.
func slots(base int) func(int) source { return func(s int) source { return slot(base + 16*s) } }

// dry is the source of every input of a dry run (spillsOf).
func dry(int) source { return slot(0) }

// Batch writes the NEON kernel for k with lanes of type e, its main loop
// run by m: groups of 4 float32 (or 2 float64) lanes loaded with
// register-offset loads, then the lanes left staged through the frame
// (copied in and out one float at a time, so nothing past n is read or
// written). It returns the kernel's register use and Go declaration.
func Batch(w *writer, c *constTable, k *kernels.Kernel, e ir.Elem, m ir.Merge) (Stats, string) {
	p := k.ProgramOf(e)
	nin, nout := len(k.Inputs), len(k.Outputs)
	if nin+nout > 15 {
		panic("neon: more streams than registers")
	}
	bk := &batchKernel{newKernel(w, c, e, k.Name+e.Suffix()+"NEON"), nin, nout, m.Skew}
	// Input g*nin+s is stream s of group g (of two at most: one more offset register).
	in := func(s int) source {
		off := []int{offReg, off2Reg}[s/nin]
		return func(d int) inst { return ldrqr(d, s%nin, off) }
	}
	bk.spillsOf(p, in, nil)
	var pg *ir.Program
	if m.Groups > 1 {
		pg = ir.Interleave(p, m)
		bk.spillsOf(pg, in, nil)
	}
	stageIn, stageOut := bk.take(nin), bk.take(nout)
	streams, argRegs := append(append([]string{}, k.Inputs...), k.Outputs...), []int{} // stream s in Rs
	for s := range streams {
		argRegs = append(argRegs, s)
	}
	sig := fmt.Sprintf("(%s *%s, n int)", strings.Join(streams, ", "), e)
	bk.text(sig, true, 8*(nin+nout+1))
	loadArgs(w, append(streams, "n"), append(argRegs, remainReg), offReg)

	if m.Groups > 1 {
		bk.loop(bk.name+"_groups", pg, m.Groups, in)
	}
	bk.loop(bk.name+"_loop", p, 1, in)
	bk.tail(p, stageIn, stageOut)
	w.line("RET")
	return bk.stats(), fmt.Sprintf("// %s is the %s on arm64 NEON, %d %s lanes per vector,\n// bit-identical to the pure-Go spec. Every pointer must address at least n %ss; n > 0.\n//\n//go:noescape\nfunc %[1]s%[6]s\n",
		bk.name, strings.ReplaceAll(batchDoc[k.Name], "{64}", e.Suffix()), bk.lanes, e, e, sig)
}

// batchKernel is a batch kernel being written: its streams, nin inputs
// then nout outputs, and the skew of its merged groups.
type batchKernel struct {
	kernel
	nin, nout int
	skew      float64
}

// loop emits a rotated loop over p (groups groups of lanes merged)
// while at least lanes*groups lanes remain, then falls through.
func (bk *batchKernel) loop(label string, p *ir.Program, groups int, in func(int) source) {
	w, lanes, nin, nout := bk.w, bk.lanes, bk.nin, bk.nout
	if groups > 1 {
		w.comment(fmt.Sprintf("%d groups of %d lanes at a time, their instructions merged with skew %v.", groups, lanes, bk.skew))
	} else {
		w.comment(fmt.Sprintf("Whole groups of %d lanes.", lanes))
	}
	w.line("CMP $%d, R%d", lanes*groups, remainReg)
	w.line("BLT %s_end", label)
	w.label(label)
	if groups > 1 {
		w.line("ADD $16, R%d, R%d", offReg, off2Reg)
	}
	l := bk.body(p, label, in, nil)
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
func (bk *batchKernel) tail(p *ir.Program, stageIn, stageOut int) {
	w, name, lanes, size, nin, nout := bk.w, bk.name, bk.lanes, bk.size, bk.nin, bk.nout
	load, store, _ := moves(size)
	w.label(name + "_tail")
	w.comment(fmt.Sprintf("The n mod %d lanes left, staged through the frame one float at a time.", lanes))
	w.line("CBZ R%d, %s_done", remainReg, name)
	zeroSlots(w, stageIn, nin)
	bk.copyLanes(remainReg, name+"_in", func(lane int) { bk.stageLane(nin, stageIn, lane) })
	l := bk.body(p, name+"_tailgroup", slots(stageIn), nil)
	l.storeOutputs(nout, stageOut)
	bk.copyLanes(remainReg, name+"_out", func(lane int) {
		for j := range nout {
			w.line("%s %d(R%d), R%d", load, stageOut+16*j+size*lane, frameReg, tmpB)
			w.line("ADD R%d, R%d, R%d", offReg, nin+j, tmpA)
			w.line("%s R%d, %d(R%d)", store, tmpB, size*lane, tmpA)
		}
	})
	w.label(name + "_done")
}

// zeroSlots zeroes the n frame slots from offset base.
func zeroSlots(w *writer, base, n int) {
	w.op(movi0(operand0))
	for s := range n {
		w.op(strqi(operand0, frameReg, base+16*s))
	}
}

// stageLane copies lane of the streams in R0 to Rn-1, at byte offset
// offReg, to the stage at frame offset stage, one float at a time.
func (k *kernel) stageLane(n, stage, lane int) {
	load, store, _ := moves(k.size)
	for s := range n {
		k.w.line("ADD R%d, R%d, R%d", offReg, s, tmpA)
		k.w.line("%s %d(R%d), R%d", load, k.size*lane, tmpA, tmpB)
		k.w.line("%s R%d, %d(R%d)", store, tmpB, stage+16*s+k.size*lane, frameReg)
	}
}

// Registers of the kernels over pairs of records.
const (
	capsReg   = 0  // the capsule records
	planesReg = 1  // the plane records (plane contact kernels)
	piReg     = 7  // pair indices I
	pjReg     = 8  // pair indices J
	outReg    = 9  // the array of the output stream pointers
	nReg      = 10 // n
	iReg      = 11 // the first pair of the current group
	written   = 12 // rows written (compaction)
	leftReg   = 13 // pairs left in the tail
)

// moves returns the scalar load and store of a value of size bytes (4 or
// 8) and log2 of size, the shift from an index to a byte offset.
func moves(size int) (load, store string, shift int) {
	if size == 8 {
		return "MOVD", "MOVD", 3
	}
	return "MOVWU", "MOVW", 2
}

// loadArgs loads the 8-byte arguments names, at offsets 8*i, into regs
// (those with a register below 0 are not loaded), zeroes the registers
// zero, and points constReg at the constants and frameReg at the frame.
func loadArgs(w *writer, names []string, regs []int, zero ...int) {
	for i, n := range names {
		if regs[i] >= 0 {
			w.line("MOVD %s+%d(FP), R%d", n, 8*i, regs[i])
		}
	}
	for _, r := range zero {
		w.line("MOVD $0, R%d", r)
	}
	w.line("MOVD $neonconst<>(SB), R%d", constReg)
	w.line("ADD $16, RSP, R%d", frameReg)
}

// broadcast loads the scalar argument name at offset off into every
// lane of the slot at frame offset slot.
func (k *kernel) broadcast(name string, off, slot int) {
	load, _, _ := moves(k.size)
	k.w.line("%s %s+%d(FP), R%d", load, name, off, tmpA)
	if k.e == ir.F64 {
		k.w.op(dupx(operand0, tmpA))
	} else {
		k.w.op(dupw(operand0, tmpA))
	}
	k.w.op(strqi(operand0, frameReg, slot))
}

// loadRecords loads the records of a group's pairs into the set of 14
// vectors at frame offset set (A B r of side I, then of J), with
// transposing LD4 lane loads: the capsules' at capsReg, or on side J, with
// planes, the planes' at planesReg (laid out as capsule records).
// index(side, lane) loads the record index of lane into tmpB.
func (k *kernel) loadRecords(set int, planes bool, index func(side, lane int)) {
	w, e := k.w, k.e
	for side := range 2 {
		base, what := capsReg, "Capsule"
		if planes && side == 1 {
			base, what = planesReg, "Plane"
		}
		w.comment(fmt.Sprintf("%s records of side %c, transposed by LD4: V0-V3 ax ay az r, V4-V7 bx by bz pad.", what, "IJ"[side]))
		for lane := range k.lanes {
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

// groupLoop emits the loop over the whole groups of items from iReg up
// to nReg (leftReg: the items left), group writing one, then the start of
// the tail: its label, the comment tail, the exit if none is left.
func (k *kernel) groupLoop(group func(), tail string) {
	w, name, lanes := k.w, k.name, k.lanes
	w.label(name + "_loop")
	w.line("SUB R%d, R%d, R%d", iReg, nReg, leftReg)
	w.line("CMP $%d, R%d", lanes, leftReg)
	w.line("BLT %s_tail", name)
	group()
	w.line("ADD $%d, R%d", lanes, iReg)
	w.line("B %s_loop", name)
	w.label(name + "_tail")
	w.comment(tail)
	w.line("CBZ R%d, %s_done", leftReg, name)
}

// indexOf loads into tmpB the uint32 of lane of the group at iReg in the
// array at register r (tmpA: its address).
func indexOf(w *writer, r, lane int) {
	w.line("ADD R%d<<2, R%d, R%d", iReg, r, tmpA)
	w.line("MOVWU %d(R%d), R%d", 4*lane, tmpA, tmpB)
}

// pairKernel is what the kernels over pairs of records (contacts, indexed
// closest points, TOI) share: the kernel being written and its frame
// offsets and, for those writing rows to the streams listed at outReg
// (contacts, TOI), the layout of a row.
type pairKernel struct {
	kernel
	tailIdx  int  // the tail's pair indices I, then J
	stage    int  // the staged rows, stream s at stage+16*s
	streams  int  // the streams of a row, the pair index first
	u32      int  // the first u32 streams are uint32, the rest of type e
	narrowed bool // the staged uint32 streams have 32-bit lanes (else the pair index only)
	compact  bool // only the touching pairs' rows, densely (contacts)
}

// loop emits the loop over the whole groups of pairs, group(label, index)
// writing one (index(side, lane) loads the capsule index of lane into
// tmpB) and store its results, then the tail's whole group: capsule 0 past
// n. what names the tail's lane-by-lane stores, which follow.
func (pk *pairKernel) loop(group func(label string, index func(side, lane int)), store func(), what string) {
	w, name, lanes := pk.w, pk.name, pk.lanes
	pk.groupLoop(func() {
		group(name+"_group", func(side, lane int) {
			if lane == 0 { // tmpA: the group's indices on side 0 (pi) or 1 (pj)
				w.line("ADD R%d<<2, R%d, R%d", iReg, []int{piReg, pjReg}[side], tmpA)
			}
			w.line("MOVWU %d(R%d), R%d", 4*lane, tmpA, tmpB)
		})
		store()
	}, fmt.Sprintf("The n mod %d pairs left: their indices, zero past n, then a whole group; %s lane by lane.", lanes, what))
	zeroSlots(w, pk.tailIdx, 2)
	pk.copyLanes(leftReg, name+"_tailin", func(lane int) {
		for side, idx := range []int{piReg, pjReg} {
			indexOf(w, idx, lane)
			w.line("MOVW R%d, %d(R%d)", tmpB, pk.tailIdx+16*side+4*lane, frameReg)
		}
	})
	group(name+"_tailgroup", func(side, lane int) {
		w.line("MOVWU %d(R%d), R%d", pk.tailIdx+16*side+4*lane, frameReg, tmpB)
	})
}

// pairIndex sets vector dst to the pair indices of the group at iReg.
func (pk *pairKernel) pairIndex(dst int) int {
	pk.w.op(dupw(dst, iReg))
	pk.w.op(ldrqi(scratch1, constReg, pk.c.vector("iota", [4]uint32{0, 1, 2, 3})))
	pk.w.op(add4s(dst, dst, scratch1))
	return dst
}

// storeRows stores the rows of a whole group, stream s from the register
// vec(s) returns: the uint32 streams as 32-bit lanes (the low two, 8
// bytes, in a float64 group), the rest whole.
func (pk *pairKernel) storeRows(vec func(s int) int) {
	w := pk.w
	_, _, shift := moves(pk.size)
	for s := range pk.streams {
		v, sh := vec(s), shift
		if s < pk.u32 {
			sh = 2
		}
		w.line("MOVD %d(R%d), R%d", 8*s, outReg, tmpA)
		w.line("ADD R%d<<%d, R%d, R%d", iReg, sh, tmpA, tmpA)
		if s < pk.u32 && pk.e == ir.F64 {
			w.op(strdi(v, tmpA, 0))
		} else {
			w.op(strqi(v, tmpA, 0))
		}
	}
}

// stageRows stores the group's rows to the stage, stream s from the
// register vec(s) returns.
func (pk *pairKernel) stageRows(vec func(s int) int) {
	for s := range pk.streams {
		pk.w.op(strqi(vec(s), frameReg, pk.stage+16*s))
	}
}

// row emits the store of one lane's row from the stage: to row iReg+lane,
// or (compact) to row written if the lane's count is not zero.
func (pk *pairKernel) row(label string, lane int) {
	w, stage, size := pk.w, pk.stage, pk.size
	if pk.compact {
		w.line("MOVWU %d(R%d), R%d", stage+16+size*lane, frameReg, tmpA) // count
		w.line("CBZW R%d, %s_skip%d", tmpA, label, lane)
	}
	for s := range pk.streams {
		sz, from := size, size // the bytes of the value, and of its lane in the stage
		if s < pk.u32 {
			sz = 4
		}
		if s == 0 || pk.narrowed && s < pk.u32 {
			from = 4
		}
		ld, st, shift := moves(sz)
		w.line("%s %d(R%d), R%d", ld, stage+16*s+from*lane, frameReg, tmpB)
		w.line("MOVD %d(R%d), R%d", 8*s, outReg, tmpA)
		if pk.compact {
			w.line("%s R%d, (R%d)(R%d<<%d)", st, tmpB, tmpA, written, shift)
		} else {
			w.line("ADD R%d<<%d, R%d, R%d", iReg, shift, tmpA, tmpA)
			w.line("%s R%d, %d(R%d)", st, tmpB, sz*lane, tmpA)
		}
	}
	if pk.compact {
		w.line("ADD $1, R%d", written)
		w.label(fmt.Sprintf("%s_skip%d", label, lane))
	}
}

// tailRows stages the tail group's rows (vec as in stageRows) and stores
// those of the pairs left.
func (pk *pairKernel) tailRows(vec func(s int) int) {
	pk.stageRows(vec)
	pk.copyLanes(leftReg, pk.name+"_tailout", func(lane int) {
		pk.row(pk.name+"_tailrow", lane)
	})
}

// Contacts writes the contact kernel of body k (kernels.Contact or
// kernels.PlaneContact) with lanes of type e: ContactsNEON, or with compact
// CompactContactsNEON (the touching pairs' rows only, lane by lane), or
// their plane and float64 forms. A float64 count comes out in 64-bit lanes:
// its low 32 bits are the row value. It returns the kernel's register use
// and Go declaration.
func Contacts(w *writer, c *constTable, k *kernels.Kernel, compact bool, e ir.Elem) (Stats, string) {
	name := k.Name + e.Suffix() + "NEON"
	if compact {
		name = "Compact" + name
	}
	p := k.ProgramOf(e)
	pk := &pairKernel{kernel: newKernel(w, c, e, name)}
	pk.spillsOf(p, dry, dry)
	pk.streams, pk.u32, pk.compact = 1+len(k.Outputs), 2, compact
	set := pk.take(len(k.Inputs))
	pk.stage = pk.take(pk.streams)
	marginOff := pk.take(1)
	pk.tailIdx = pk.take(2)

	// prefetch and nplanes (amd64: record prefetching, a table of at most
	// lanes planes) are ignored: NEON record prefetching is not measured.
	params, extra, planes := "caps", "", k == kernels.PlaneContact
	names, argRegs := []string{"caps", "pi", "pj", "out", "n"}, []int{capsReg, piReg, pjReg, outReg, nReg}
	if planes {
		params, extra = "caps, planes", ", nplanes"
		names, argRegs = slices.Insert(names, 1, "planes"), slices.Insert(argRegs, 1, planesReg)
	}
	a := 8 * (len(names) - 5) // the offset of the arguments after caps (and planes)
	pk.text(fmt.Sprintf("(%s *%s, pi, pj *uint32, out *[13]*%s, n int, margin %s, prefetch%s int) int",
		params, e, e, e, extra), false, 64+2*a)
	loadArgs(w, names, argRegs, iReg, written)
	w.comment("The margin in every lane, in its slot.")
	pk.broadcast("margin", a+40, marginOff)

	var l *lowering
	pk.loop(func(label string, index func(side, lane int)) {
		pk.loadRecords(set, planes, index)
		l = pk.body(p, label, slots(set), func(int) source { return slot(marginOff) })
	}, func() { pk.storeContacts(l) }, "rows")
	pk.tailRows(pk.contactRow(l, false))
	w.line("ADD R%d, R%d, R%d", leftReg, iReg, iReg)

	w.label(name + "_done")
	ret := nReg
	if compact {
		ret = written
	}
	w.line("MOVD R%d, ret+%d(FP)", ret, 2*a+56)
	w.line("RET")
	return pk.stats(), contactDecl(name, k, compact, e)
}

// contactRow returns the register of row stream s of the contact body
// l: the pair index, the count (narrowed for a float64 group if narrow),
// the floats.
func (pk *pairKernel) contactRow(l *lowering, narrow bool) func(s int) int {
	return func(s int) int {
		switch {
		case s == 0:
			return pk.pairIndex(operand0)
		case s == 1 && narrow:
			pk.w.op(xtn2s(operand0, l.output(0)))
			return operand0
		}
		return l.output(s - 1)
	}
}

// storeContacts stores the rows of a whole group of the contact body l:
// the touching lanes' rows lane by lane (compact), or one row per pair.
func (pk *pairKernel) storeContacts(l *lowering) {
	w, name := pk.w, pk.name
	switch {
	case pk.compact:
		w.comment("Compaction: the touching lanes' rows, in pair order; nothing for a group without one.")
		anyLane(w, l.output(0), "CBZW", name+"_none")
		pk.stageRows(pk.contactRow(l, false))
		for lane := range pk.lanes {
			pk.row(name+"_group", lane)
		}
		w.label(name + "_none")
	case pk.e == ir.F64:
		w.comment("Store one row per pair: Pair and the narrowed Count as two uint32 (8 bytes), the floats whole.")
		pk.storeRows(pk.contactRow(l, true))
	default:
		w.comment("Store one row per pair.")
		pk.storeRows(pk.contactRow(l, false))
	}
}

// copyLanes emits body(lane) for lanes 0, 1, ... up to lanes-2 while
// lane < the count in register r (1 to lanes-1).
func (k *kernel) copyLanes(r int, label string, body func(lane int)) {
	for lane := range k.lanes - 1 {
		if lane > 0 {
			k.w.line("CMP $%d, R%d", lane+1, r)
			k.w.line("BLT %s_end", label)
		}
		body(lane)
	}
	k.w.label(label + "_end")
}

// ClosestIndexed writes ClosestIndexedNEON (or ClosestIndexed64NEON): the
// closest-point kernel on the axes of capsule pairs given by index, their
// records loaded as the contact kernels' are (loadRecords), S, T and
// Dist2 stored whole for whole groups and staged lane by lane for the
// tail. It returns the kernel's register use and Go declaration.
func ClosestIndexed(w *writer, c *constTable, e ir.Elem) (Stats, string) {
	k := kernels.Closest
	name := k.Name + "Indexed" + e.Suffix() + "NEON"
	p := k.ProgramOf(e)
	pk := &pairKernel{kernel: newKernel(w, c, e, name)}
	load, store, shift := moves(pk.size)
	pk.spillsOf(p, dry, nil)
	set := pk.take(14)
	stage := pk.take(len(k.Outputs))
	pk.tailIdx = pk.take(2)
	outs := []int{1, 2, 3} // R1-R3: s, t, dist2

	// prefetch is ignored here, as in the contact kernels.
	pk.text(fmt.Sprintf("(caps *%[1]s, pi, pj *uint32, s, t, dist2 *%[1]s, n int, prefetch int)", e), false, 64)
	loadArgs(w, []string{"caps", "pi", "pj", "s", "t", "dist2", "n"},
		[]int{capsReg, piReg, pjReg, outs[0], outs[1], outs[2], nReg}, iReg)

	// The body's inputs A B C D are the set's A B of capsule I (0-5) and
	// of capsule J (7-12): the radii are skipped.
	in := func(s int) source {
		if s >= 6 {
			s++
		}
		return slot(set + 16*s)
	}
	var l *lowering
	pk.loop(func(label string, index func(side, lane int)) {
		pk.loadRecords(set, false, index)
		l = pk.body(p, label, in, nil)
	}, func() {
		w.comment("Store S, T and Dist2.")
		w.line("LSL $%d, R%d, R%d", shift, iReg, tmpA)
		for j := range k.Outputs {
			w.op(strqr(l.output(j), outs[j], tmpA))
		}
	}, "results")
	l.storeOutputs(len(k.Outputs), stage)
	pk.copyLanes(leftReg, name+"_tailout", func(lane int) {
		for j := range k.Outputs {
			w.line("%s %d(R%d), R%d", load, stage+16*j+pk.size*lane, frameReg, tmpB)
			w.line("ADD R%d<<%d, R%d, R%d", iReg, shift, outs[j], tmpA)
			w.line("%s R%d, %d(R%d)", store, tmpB, pk.size*lane, tmpA)
		}
	})
	w.label(name + "_done")
	w.line("RET")
	return pk.stats(), fmt.Sprintf("// %s computes the closest points of the axes of n capsule pairs on arm64\n// NEON, bit-identical to fallback.ClosestLane%s on each. caps points at the capsule\n// records (soa.Capsule%s, %d bytes), pi and pj at the n pair indices (all in range),\n// s, t and dist2 at n results each; n > 0. prefetch is ignored (amd64 prefetches\n// capsule records ahead when it is not zero).\n//\n//go:noescape\nfunc %s(caps *%s, pi *uint32, pj *uint32, s *%s, t *%s, dist2 *%s, n int, prefetch int)\n",
		name, e.Suffix(), e.Suffix(), 8*e.Bytes(), name, e, e, e, e)
}
