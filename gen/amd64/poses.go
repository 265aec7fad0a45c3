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

// The pose kernels run kernels.Pose over bodies: each group reads its
// bodies' poses from the seven streams, as a batch kernel reads its
// inputs, and their local capsule records in order (record i for lane i),
// transposed as the contact kernels' records are (transposeRecords); the
// record sink (storeRecords) transposes the seven outputs and a zero
// padding field back into records and stores them at dst[i].

// Registers of the pose kernels besides batch.go's: the seven stream
// pointers are ptrRegs[:7], the slot area is slotReg.
var (
	localPtr = R9  // the current group's local records
	dstPtr   = R10 // the current group's records in dst
)

// poseStreams is the number of pose streams (px py pz qx qy qz qw), the
// body's first inputs; the record's seven fields follow.
const poseStreams = 7

// Poses emits PosesISA: a loop of the schedule's Poses.Groups groups per
// iteration (if more than one), then of one group, then the n mod lanes
// bodies left (tail). With indexed, PosesIndexedISA: one group at a time
// of the bodies listed (indexedLoop, indexedTail).
func (e *emitter) Poses(indexed bool) {
	t := e.t
	check(t)
	name, sig := KernelName(kernels.Pose, t), "func(px, py, pz, qx, qy, qz, qw, local, dst *F, n int)"
	if indexed {
		name = "PosesIndexed" + t.Elem.Suffix() + t.Name
		sig = strings.Replace(sig, "n int", "bodies *uint32, n int", 1)
	}
	text(name, 0, strings.ReplaceAll(sig, "F", t.Elem.String()), false, poseDoc(name, t, indexed))
	pl := &poseLoop{e: e, name: name, m: e.s.Poses, indexed: indexed}
	if indexed {
		pl.m.Groups = 1
	}
	pl.setup()
	if indexed {
		pl.indexedLoop()
	} else {
		if pl.m.Groups > 1 {
			pl.loopOf(name+"_groups", pl.m.Groups)
		}
		pl.loopOf(name+"_loop", 1)
	}
	Label(name + "_tail")
	TESTQ(remain, remain)
	JZ(LabelRef(name + "_done"))
	if indexed {
		pl.indexedTail()
	} else {
		pl.tail()
	}
	Label(name + "_done")
	ret(t, nil)
}

// poseDoc returns the doc comment of pose kernel name.
func poseDoc(name string, t *ir.Target, indexed bool) []string {
	sfx, rec := t.Elem.Suffix(), fmt.Sprintf("%d bytes", 8*t.ElemBytes)
	if indexed {
		return []string{name + " moves the capsules of the n bodies listed in bodies to their poses with",
			t.Name + ", bit-identical to fallback.PoseCapsuleLane" + sfx + " on each: for each b of bodies,",
			"dst[b] is local[b] (soa.Capsule" + sfx + ", " + rec + ") moved to position p[b] and quaternion q[b],",
			"its padding zero; no other record of dst is written. Every index must address a",
			"float of each of px to qw and a record of local and dst; n > 0."}
	}
	return []string{name + " moves n capsules to their bodies' poses with " + t.Name + ", bit-identical to",
		"fallback.PoseCapsuleLane" + sfx + " on each: dst[i] is local[i] (soa.Capsule" + sfx + ", " + rec + ") moved",
		"to position p[i] and quaternion q[i], its padding zero. px to qw point at n floats",
		"each, local and dst at n records; n > 0."}
}

// poseLoop is the pose kernel being emitted.
type poseLoop struct {
	e       *emitter
	name    string
	m       PoseLoop
	indexed bool        // the bodies listed (PosesIndexed)
	ls      []*lowering // one per group of an iteration
	sets    Mem         // group g's seven local fields: vectors 7g to 7g+6 from here
	stage   Mem         // the tail's records (lanes records, zero past n)
	gath    Mem         // an indexed group's seven streams, gathered
	offs    Mem         // its bodies' stream offsets, then their record offsets (bytes, 32 bits each)
}

// records says where a group's records are: at(g, lane) addresses the
// record of lane in group g (it may load the record's offset into scratch
// first: the caller uses the address at once).
type records struct {
	at      func(g, lane int) Mem
	inOrder bool // each group's records follow each other in memory
}

// inOrder is the records from base on, one per lane.
func (pl *poseLoop) inOrder(base Mem) records {
	t := pl.e.t
	return records{at: func(g, lane int) Mem { return base.Offset((g*t.Lanes + lane) * 8 * t.ElemBytes) }, inOrder: true}
}

// setup reserves the slot area (each group's spill slots, the groups'
// fields, the stage), loads the pointers and the registers holding 0 and
// 1, and prepares a lowering per group.
func (pl *poseLoop) setup() {
	t, groups := pl.e.t, pl.m.Groups
	p := pl.e.program(kernels.Pose, true, pl.m.Reorder)
	nslots, vb := slotsNeeded(t, p, true), t.VecBytes()
	area := newSlots(slotReg, groups*(nslots+poseStreams)+stageVecs(t)+poseStreams+2, nslots, vb)
	pl.sets = Mem{Base: slotReg, Disp: groups * nslots * vb}
	pl.stage = pl.sets.Offset(groups * poseStreams * vb)
	pl.gath = pl.stage.Offset(stageVecs(t) * vb)
	pl.offs = pl.gath.Offset(poseStreams * vb)
	for i := range poseStreams {
		Load(Param(kernels.Pose.Inputs[i]), ptrRegs[i])
	}
	Load(Param("local"), localPtr)
	Load(Param("dst"), dstPtr)
	XORQ(index, index)
	Load(Param("n"), remain)
	l := &lowering{t: t, p: p, consts: pl.e.c, spill: true}
	l.zero, l.one = l.newVec(), l.newVec()
	if nslots > 0 {
		l.slots = area
	}
	pl.ls = make([]*lowering, groups)
	for g := range pl.ls {
		pl.ls[g] = l.forGroup(g)
	}
	VXORPS(pl.ls[0].zero, pl.ls[0].zero, pl.ls[0].zero)
	fpOf(t).broadcast(pl.e.c.of(t.Elem, "one"), pl.ls[0].one)
}

// loopOf emits a rotated loop over n groups at a time while at least n
// groups of bodies remain.
func (pl *poseLoop) loopOf(label string, n int) {
	t := pl.e.t
	step := n * t.Lanes
	Commentf("%d group(s) at a time while at least %d bodies remain.", n, step)
	CMPQ(remain, U32(step))
	JB(LabelRef(label + "_end"))
	Label(label)
	pl.iteration(label, pl.ls[:n], nil, pl.inOrder(Mem{Base: localPtr}), pl.inOrder(Mem{Base: dstPtr}))
	ADDQ(U32(step), index)
	SUBQ(U32(step), remain)
	ADDQ(U32(step*8*t.ElemBytes), localPtr)
	ADDQ(U32(step*8*t.ElemBytes), dstPtr)
	CMPQ(remain, U32(step))
	JAE(LabelRef(label))
	Label(label + "_end")
}

// tail emits the group of the n mod lanes bodies left (remain > 0 of
// them) through a stage in the frame, reading and writing nothing past n.
func (pl *poseLoop) tail() {
	t := pl.e.t
	Comment("The bodies left: their records copied into the zeroed stage, their streams",
		"loaded under a mask, the records written to the stage and copied out; nothing",
		"past n is read or written.")
	stageRecords(t, pl.name+"_tailin", pl.ls[0].zero, Mem{Base: localPtr}, pl.stage)
	pl.iteration(pl.name+"_tailgroup", pl.ls[:1], tailMask(t, pl.e.c), pl.inOrder(pl.stage), pl.inOrder(pl.stage))
	left(0, "") // tailMask may have turned it into the mask's bits
	copyRecords(t, pl.name+"_tailout", pl.stage, Mem{Base: dstPtr})
}

// stageVecs is the size of a stage of t.Lanes records (vectors).
func stageVecs(t *ir.Target) int { return t.Lanes * 8 * t.ElemBytes / t.VecBytes() }

// stageRecords copies the first remain records from from into the stage
// of t.Lanes records at stage, zeroed first (label: the copy's loop).
func stageRecords(t *ir.Target, label string, zero VecVirtual, from, stage Mem) {
	for k := range stageVecs(t) {
		VMOVUPS(zero, stage.Offset(k*t.VecBytes()))
	}
	copyRecords(t, label, from, stage)
}

// copyRecords copies the first remain records from from to to, the last
// first (remain > 0; scratch counts the bytes).
func copyRecords(t *ir.Target, label string, from, to Mem) {
	MOVQ(remain, scratch)
	SHLQ(U8(5+uint8(t.Elem)), scratch) // 32 or 64 bytes per record
	Label(label)
	SUBQ(U32(8*t.ElemBytes), scratch)
	copyRecord(t, Mem{Base: from.Base, Index: scratch, Scale: 1, Disp: from.Disp}, Mem{Base: to.Base, Index: scratch, Scale: 1, Disp: to.Disp})
	JNZ(LabelRef(label)) // the vector moves leave SUBQ's flags
}

// copyRecord copies one record from from to to by whole vectors.
func copyRecord(t *ir.Target, from, to Mem) {
	rb := 8 * t.ElemBytes
	for off := 0; off < rb; off += min(rb, t.VecBytes()) {
		v := vecOf(min(rb, t.VecBytes()))
		VMOVUPS(from.Offset(off), v)
		VMOVUPS(v, to.Offset(off))
	}
}

// iteration emits the groups of ls (their instruction streams merged with
// the schedule's skew), reading their local records from from and writing
// them to to; mask, if not nil, is the tail's (the streams' loads).
func (pl *poseLoop) iteration(label string, ls []*lowering, mask Op, from, to records) {
	t := pl.e.t
	for g, l := range ls {
		Commentf("Local records of group %d, transposed.", g)
		record := func(lane, offset int) Mem { return from.at(g, lane).Offset(offset) }
		var fields [poseStreams]Op
		store := func(field int, v Op) {
			fields[field] = pl.sets.Offset((poseStreams*g + field) * t.VecBytes())
			VMOVUPS(v, fields[field])
		}
		if evex(t) && t.Elem == ir.F32 && from.inOrder {
			recordsSeq16(record, pl.e.c.seqPerm, store) // 64-byte loads of two records
		} else {
			transposeRecords(t, record, store)
		}
		pl.inputs(l, fmt.Sprintf("%s_g%d", label, g), g, mask, fields)
	}
	sink := func(g int) {
		Commentf("The records of group %d.", g)
		l := ls[g]
		f := [8]Op{7: l.zero}
		for j := range 7 {
			if f[j] = l.mem(l.p.Outputs[j]); j%2 == 0 {
				f[j] = l.out(j) // read as registers
			}
		}
		storeRecords(t, pl.e.c, f, func(k int) Mem { return to.at(g, k) }, to.inOrder)
	}
	merge(ls, pl.m.Skew, sink, newSpiller(ls, heldBy(mask), poseSinkRegs(t)), nil)
}

// inputs begins lowering l for group g: the streams' lanes from index +
// g lanes (loaded under mask in the tail), the record's fields from the
// group's set (fields). Holding the streams and fields in registers
// instead measured no faster on AVX-512 (docs/levers.md, "Pose kernels").
func (pl *poseLoop) inputs(l *lowering, label string, g int, mask Op, fields [poseStreams]Op) {
	t := pl.e.t
	input := func(s int) Op {
		if s >= poseStreams {
			return fields[s-poseStreams]
		}
		m := Mem{Base: ptrRegs[s], Index: index, Scale: scale(t), Disp: g * t.VecBytes()}
		if pl.indexed {
			return pl.gath.Offset(s * t.VecBytes())
		}
		if mask == nil {
			return m
		}
		return l.loadLanes(m, mask)
	}
	l.beginGroup(label, input, func(int) Mem { panic("the pose kernel takes no scalar arguments") })
}

// poseSinkRegs is how many vector registers a spilling pose loop leaves
// the record sink besides the outputs in registers: the transposes'
// vectors in flight (an allowance; the generator fails if it is too small).
func poseSinkRegs(t *ir.Target) int {
	if evex(t) && t.Elem == ir.F64 {
		return 16
	}
	return 9
}

// byIndex is the records of base addressed by the record offsets of the
// group's bodies (offs), each loaded into scratch.
func (pl *poseLoop) byIndex(base GPPhysical) records {
	return records{at: func(_, lane int) Mem {
		MOVL(pl.offs.Offset(pl.e.t.VecBytes()+4*lane), scratch.As32())
		return Mem{Base: base, Index: scratch, Scale: 1}
	}}
}

// indexedLoop emits the loop of PosesIndexed over whole groups: the
// bodies' indices, their streams gathered (gather), their records loaded
// and stored by offset.
func (pl *poseLoop) indexedLoop() {
	t, label := pl.e.t, pl.name+"_loop"
	Label(label)
	left(t.Lanes, pl.name+"_tail")
	pl.gather(nil)
	pl.iteration(label, pl.ls[:1], nil, pl.byIndex(localPtr), pl.byIndex(dstPtr))
	ADDQ(U32(t.Lanes), index)
	JMP(LabelRef(label))
}

// indexedTail emits the n mod lanes bodies left: their indices loaded
// under a mask (body 0, present whenever n > 0, past n), the group as a
// whole one with its records written to the stage, then the records of
// the bodies left copied to dst one at a time.
func (pl *poseLoop) indexedTail() {
	t, rb := pl.e.t, 8*pl.e.t.ElemBytes
	pl.gather(tailMask(t, pl.e.c))
	pl.iteration(pl.name+"_tailgroup", pl.ls[:1], nil, pl.byIndex(localPtr), pl.inOrder(pl.stage))
	Comment("The records of the bodies left, from the stage.")
	left(0, "")
	for k := range t.Lanes - 1 {
		if k > 0 {
			CMPQ(remain, U32(k+1))
			JB(LabelRef(pl.name + "_done"))
		}
		copyRecord(t, pl.stage.Offset(k*rb), pl.byIndex(dstPtr).at(0, k))
	}
}

// gather loads the group's body indices (under mask, zero past n, if not
// nil), stores their stream and record offsets to offs, and copies the
// bodies' lanes of each stream to gath, one scalar at a time through
// remain (the loops recompute it).
func (pl *poseLoop) gather(mask Op) {
	t := pl.e.t
	Comment("The group's body indices, their offsets, and their streams' lanes gathered.")
	Load(Param("bodies"), scratch)
	x := pl.ls[0].loadIndices(Mem{Base: scratch, Index: index, Scale: 4}, mask)
	s, r := vecOf(4*t.Lanes), vecOf(4*t.Lanes)
	VPSLLD(U8(2+uint8(t.Elem)), x, s) // 4 or 8 bytes per float
	VPSLLD(U8(5+uint8(t.Elem)), x, r) // 32 or 64 bytes per record
	VMOVUPS(s, pl.offs)
	VMOVUPS(r, pl.offs.Offset(t.VecBytes()))
	mov, lane := MOVL, Op(remain.As32())
	if t.Elem == ir.F64 {
		mov, lane = MOVQ, remain
	}
	for k := range t.Lanes {
		MOVL(pl.offs.Offset(4*k), scratch.As32())
		for st := range poseStreams {
			mov(Mem{Base: ptrRegs[st], Index: scratch, Scale: 1}, lane)
			mov(lane, pl.gath.Offset(st*t.VecBytes()+k*t.ElemBytes))
		}
	}
}
