package amd64

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// The contact kernels load the capsule records of each pair by index (the
// source, records.go), run the kernels.Contact body and store one row per
// pair or only the touching pairs, densely (the sink). The plane contact
// kernels are the same loops with side J's records read from the planes
// (kernels.PlaneContact).

// contactStreams is the number of soa.Contacts streams: Pair, Count, the
// normal (3), the two depths and the two points (3 each).
const contactStreams = 13

// contactSignature is the Go signature of a (plane) contact kernel with
// lanes of type e: out holds the contactStreams soa.Contacts stream
// pointers, Pair and Count among them as *e.
func contactSignature(e ir.Elem, planes bool) string {
	sig := fmt.Sprintf("func(caps *F, pi, pj *uint32, out *[%d]*F, n int, margin F, prefetch int) int", contactStreams)
	if planes {
		sig = strings.Replace(sig, "caps *F", "caps, planes *F", 1)
		sig = strings.Replace(sig, "prefetch int", "prefetch, nplanes int", 1)
	}
	return strings.ReplaceAll(sig, "F", e.String())
}

// Registers of the contact kernels.
var (
	capsBase   = RAX                    // the capsule records
	planesBase = RDI                    // the plane records (plane kernels)
	set        = RBX                    // the current group's fourteen input vectors
	pairIdx    = []GPPhysical{RDX, RSI} // the pair indices pi and pj
	slotsBase  = R9                     // the aligned slot area
	nextSet    = R10                    // the next group's set (NextRecordsAt)
	written    = R11                    // rows written (compaction)
)

// Contacts emits the contact kernel of body k (kernels.Contact or
// kernels.PlaneContact), [Compact]ContactsISA or [Compact]PlaneContactsISA,
// run by the schedule's Contacts (or Planes) Rows or Compact loop (recordLoop).
func (e *emitter) Contacts(k *kernels.Kernel, compact bool) {
	t := e.t
	check(t)
	planes := k == kernels.PlaneContact
	name := KernelName(k, t)
	if compact {
		name = "Compact" + name
	}
	// Not NOSPLIT: the slot area is several KiB.
	text(name, 0, contactSignature(t.Elem, planes), false, contactDoc(name, t, compact, planes))
	Comment("The thirteen stream pointers, copied to the frame: a row's store then loads its",
		"pointer in one instruction, not two.")
	ck := &contactKernel{compact: compact, outStreams: outPointers(contactStreams)}
	cl, sides := &e.s.Contacts, [2]GPPhysical{capsBase, capsBase}
	if planes {
		cl, sides[1] = &e.s.Planes, planesBase
	}
	loop := cl.Rows
	if compact {
		loop = cl.Compact
	}
	// Loops of several groups spill selectively (parking their long-lived
	// values instead measured slower: ContactLoops.Spill).
	spill := cl.Spill || loop.Groups > 1
	p := e.program(k, spill, cl.Reorder)
	if compact && cl.LateCompaction {
		ck.stage = &staged{mask: AllocLocal(8)}
		MOVL(U32(0), ck.stage.mask) // nothing staged
	}
	r := &recordLoop{e: e, p: p, spill: spill, name: name, loop: loop, sides: sides, pinned: cl.PinnedConstants, stage: ck.stage}
	if planes && hasPlaneTable(t) {
		r.table = &planeTable{}
	}
	margin := addrOf(Param("margin"))
	r.run = func(ls []*lowering, label string, mask Op, in *interlude) {
		for g, l := range ls { // group g's capsule pairs are in the set from slot 14g
			input := func(pos int) Op { return Mem{Base: set, Disp: (recordInputs*g + pos) * t.VecBytes()} }
			l.beginGroup(groupLabel(label, g, len(ls)), input, func(int) Mem { return margin })
		}
		// The pipelined one-group loop's groups (those with an interlude)
		// stage their rows; the last group and the tail compact the staged
		// rows first.
		late := len(ls) == 1 && in != nil && ck.stage != nil
		merge(ls, loop.Skew, func(g int) { ck.sink(ls[g], groupLabel(label, g, len(ls)), mask, g, late) },
			newSpiller(ls, heldBy(mask)+len(ls[0].pinned), contactSinkRegs), in)
	}
	r.emit()
	if compact {
		Store(written, ReturnIndex(0))
	} else {
		Load(Param("n"), remain)
		Store(remain, ReturnIndex(0))
	}
	ret(t, nil)
}

// outPointers copies the n output stream pointers of out to the frame and
// returns the copy (a row's store then loads its pointer in one instruction).
func outPointers(n int) Mem {
	m := AllocLocal(8 * n)
	Load(Param("out"), scratch)
	for k := range n {
		r := GP64()
		MOVQ(Mem{Base: scratch, Disp: 8 * k}, r)
		MOVQ(r, m.Offset(8*k))
	}
	return m
}

// contactDoc returns the doc comment of contact kernel name.
func contactDoc(name string, t *ir.Target, compact, planes bool) []string {
	sfx, rec := t.Elem.Suffix(), fmt.Sprintf("%d bytes", 8*t.ElemBytes)
	if planes {
		return planeDoc(name, t, compact)
	}
	lines := []string{name + " computes the contacts of n capsule pairs with " + t.Name + ", one row",
		"per pair, bit-identical to fallback.ContactLane" + sfx + " on each; it returns n. caps points",
		"at the capsule records (soa.Capsule" + sfx + ", " + rec + "), pi and pj at the n pair indices",
		"(all in range), out holds the thirteen soa.Contacts" + sfx + " streams of n rows; n > 0."}
	if compact {
		lines = []string{name + " computes the contacts of n capsule pairs with " + t.Name + " and writes",
			"those of the touching pairs densely, in pair order; it returns their number.",
			"Bit-identical to fallback.ContactLane" + sfx + " on each. caps points at the capsule",
			"records (soa.Capsule" + sfx + ", " + rec + "), pi and pj at the n pair indices (all in",
			"range), out holds the thirteen soa.Contacts" + sfx + " streams, each with room for n rows; n > 0."}
	}
	return append(lines,
		"A prefetch other than 0 prefetches the capsule records of the groups ahead (PrefetchRecordsAhead).")
}

// planeDoc returns the doc comment of plane contact kernel name.
func planeDoc(name string, t *ir.Target, compact bool) []string {
	sfx, rec := t.Elem.Suffix(), fmt.Sprintf("%d bytes", 8*t.ElemBytes)
	what := []string{"one row per pair; it returns n."}
	if compact {
		what = []string{"and writes those of the touching pairs densely, in pair order; it returns",
			"their number."}
	}
	what[len(what)-1] += " Bit-identical to fallback.PlaneContactLane" + sfx + " on each."
	return append(append([]string{name + " computes the contacts of n capsule-plane pairs with " + t.Name + ","}, what...),
		"caps points at the capsule records (soa.Capsule"+sfx+", "+rec+"), planes at the plane records",
		"(soa.Plane"+sfx+", "+rec+"), pi at the n capsule indices and pj at the n plane indices (all in",
		"range), out holds the thirteen soa.Contacts"+sfx+" streams, each with room for n rows; n > 0.",
		"A prefetch other than 0 prefetches the capsule records of the groups ahead (PrefetchRecordsAhead);",
		"nplanes is the number of planes (at most lanes of them go to the plane table).")
}

// contactKernel is what the sink of the contact kernel being emitted
// needs besides the group's lowering.
type contactKernel struct {
	compact    bool
	outStreams Mem     // the thirteen output stream pointers (out), copied to the frame
	stage      *staged // where the groups stage their rows (LateCompaction), or nil
}

// recordInputs is the size of a group's set: the input vectors loadRecords
// fills from a pair's two capsule records (A, B and r of each).
const recordInputs = 14

// sinkSlots is how many stack slots a spilling loop leaves the contact
// sink (the float64 compaction stages up to six vectors there).
const sinkSlots = 8

// contactSinkRegs is how many vector registers a spilling contact loop
// leaves the sink besides the outputs in registers: an allowance, not a
// tuned figure (TestGeneratedFunctions fails if it is too small).
const contactSinkRegs = 6

// rowPtr loads the pointer of output stream s (of elements size bytes)
// into scratch and returns the address of the current row: index + lane
// (lane: the group's first within its iteration) or written (compaction).
func (k *contactKernel) rowPtr(s int, size uint8, lane int) Mem {
	MOVQ(k.outStreams.Offset(8*s), scratch)
	if k.compact {
		return Mem{Base: scratch, Index: written, Scale: size}
	}
	return Mem{Base: scratch, Index: index, Scale: size, Disp: lane * int(size)}
}

// recordLoop is the loop of a kernel that reads capsule pairs by index
// (program p, inputs A B r of capsule I then of capsule J, or a subset):
// a loop of loop.Groups groups (wideLoop, if more than one), a loop of
// one group (groupLoop), each loading its records into the set
// (loadRecords), then the masked tail (tail), ending at name+"_done".
type recordLoop struct {
	e      *emitter
	p      *ir.Program
	spill  bool // p is unparked: the loops spill selectively
	name   string
	loop   RecordLoop
	sides  [2]GPPhysical // where each side's records are: capsBase, or planesBase for J
	pinned []string      // the constants held in registers (ContactLoops.PinnedConstants)
	stage  *staged       // if not nil, setup places the sink's stage in the area
	table  *planeTable   // if not nil, the plane table, placed by setup
	// run computes and stores the groups of an iteration (lowerings ls,
	// sharing the registers of 0 and 1 and the slot area, each with its own
	// slots; mask the tail's, or nil), with the interlude in, if not nil.
	run func(ls []*lowering, label string, mask Op, in *interlude)

	// Set by emit.
	l       *lowering // the one-group loops' lowering
	nslots  int       // slots per group
	tailIdx Mem       // the tail's two index vectors
}

// emit emits the loop.
func (r *recordLoop) emit() {
	XORQ(index, index)
	XORQ(written, written)
	Load(Param("caps"), capsBase)
	if r.sides[1] == planesBase {
		Load(Param("planes"), planesBase)
	}
	Load(Param("pi"), pairIdx[0])
	Load(Param("pj"), pairIdx[1])
	r.setup()
	if r.loop.Groups > 1 {
		r.wideLoop()
	}
	r.groupLoop()
	r.tail()
}

// setup reserves the slot area and loads the registers held through the
// kernel (0, 1, the pinned constants).
func (r *recordLoop) setup() {
	t, c, groups := r.e.t, r.e.c, r.loop.Groups
	l := &lowering{t: t, p: r.p, consts: c, spill: r.spill}
	l.zero, l.one = l.newVec(), l.newVec()
	// Each group's slots: the body's, then the sink's (the spiller leaves
	// it sinkSlots, an AVX2 compaction parks two vectors).
	r.nslots = slotsNeeded(t, r.p, r.spill)
	if r.spill {
		r.nslots += sinkSlots
	} else {
		r.nslots += 2
	}
	// The area: the groups' slots, the sets of an iteration's groups, the
	// tail's two index vectors, the set the pipelined loops load the next
	// records into, then the sink's stage (LateCompaction).
	nextSize := recordInputs
	if r.wideAhead() {
		nextSize = groups * recordInputs
	}
	vecs := groups*r.nslots + groups*recordInputs + 2 + nextSize
	if r.stage != nil {
		r.stage.vecs = Mem{Base: slotsBase, Disp: vecs * t.VecBytes()}
		vecs += contactStreams
	}
	if r.table != nil {
		r.table.fields = Mem{Base: slotsBase, Disp: vecs * t.VecBytes()}
		r.table.stage = r.table.fields.Offset(4 * t.VecBytes())
		vecs += planeTableVecs(t)
	}
	l.slots = newSlots(slotsBase, vecs, r.nslots, t.VecBytes())
	LEAQ(Mem{Base: slotsBase, Disp: groups * r.nslots * t.VecBytes()}, set)
	r.tailIdx = Mem{Base: slotsBase, Disp: (groups*r.nslots + groups*recordInputs) * t.VecBytes()}
	VXORPS(l.zero, l.zero, l.zero)
	fpOf(t).broadcast(c.of(t.Elem, "one"), l.one)
	l.pinned = l.pinConstants(r.pinned)
	r.l = l
	if r.table != nil {
		r.table.build(t, r.name, l.zero)
	}
}

// loadSet loads one group's records into the set at dst from slot first
// (loadRecords), side J from the plane table if there is one.
func (r *recordLoop) loadSet(dst GPPhysical, index func(side, lane int) Mem, first int) {
	t := r.e.t
	if r.table == nil {
		loadRecords(t, r.sides, dst, index, first)
		return
	}
	loadRecords(t, [2]GPPhysical{r.sides[0], nil}, dst, index, first)
	r.table.load(t, r.name, dst, index, first)
}

// wideAhead reports whether the loop of several groups loads the next
// iteration's records part-way through (WideRecordsAt).
func (r *recordLoop) wideAhead() bool { return r.loop.Groups > 1 && r.loop.WideRecordsAt > 0 }

// loadGroups loads the records of count groups of an iteration, from
// group first on, into the set at dst.
func (r *recordLoop) loadGroups(dst GPPhysical, first, count int) {
	t := r.e.t
	for g := range count {
		fromPairs := func(side, lane int) Mem {
			return Mem{Base: pairIdx[side], Index: index, Scale: 4, Disp: 4 * ((first+g)*t.Lanes + lane)}
		}
		r.loadSet(dst, fromPairs, g*recordInputs)
	}
}

// left sets remain to the lanes left past index and, if below > 0, jumps
// to label when fewer than below are left.
func left(below int, label string) {
	Load(Param("n"), remain)
	SUBQ(index, remain)
	if below > 0 {
		CMPQ(remain, U32(below))
		JB(LabelRef(label))
	}
}

// pipelined emits a loop whose iterations run the groups ls with the
// next iteration's records loaded into the other set as an interlude at
// fraction at of the body; set holds the first iteration's records. The
// sets swap after each iteration, and the last whole iteration (label
// prefix+"last") loads none; the others run at label prefix+"ahead".
// With prefetch, each iteration but the last prefetches the records
// PrefetchRecordsAhead groups ahead (prefetchRecords).
func (r *recordLoop) pipelined(prefix string, ls []*lowering, at float64, prefetch bool) {
	t, label, last, per := r.e.t, prefix+"ahead", prefix+"last", len(ls)
	LEAQ(r.tailIdx.Offset(2*t.VecBytes()), nextSet)
	Label(label)
	left(2*per*t.Lanes, last)
	if prefetch {
		prefetchRecords(t, r.sides, label, PrefetchRecordsAhead, per)
	}
	r.run(ls, label, nil, &interlude{at: at, regs: recordRegs(t), emit: func() {
		Commentf("The records of the next %d group(s).", per)
		r.loadGroups(nextSet, per, per)
	}})
	ADDQ(U32(per*t.Lanes), index)
	XCHGQ(set, nextSet)
	JMP(LabelRef(label))
	Label(last)
	r.run(ls, last, nil, nil)
	ADDQ(U32(per*t.Lanes), index)
}

// wideLoop emits the loop of several groups per iteration, group g's set
// at slot g*14. With WideRecordsAt it is pipelined and runs only when the
// kernel's prefetch argument is 0; without, it prefetches a whole
// iteration ahead.
func (r *recordLoop) wideLoop() {
	t, name, groups := r.e.t, r.name, r.loop.Groups
	ls := make([]*lowering, groups)
	for g := range ls {
		ls[g] = r.l.forGroup(g)
	}
	Commentf("%d groups at a time, their instruction streams merged.", groups)
	if r.wideAhead() {
		Comment("Records beyond L2 (prefetch != 0) go to the one-group loop (WideRecordsAt).")
		flag := GP64()
		Load(Param("prefetch"), flag)
		TESTQ(flag, flag)
		JNZ(LabelRef(name + "_loop"))
	}
	Label(name + "_wide")
	left(groups*t.Lanes, name+"_loop")
	if !r.wideAhead() {
		prefetchRecords(t, r.sides, name+"_wide", groups, groups)
		r.loadGroups(set, 0, groups)
		r.run(ls, name+"_wide", nil, nil)
		ADDQ(U32(groups*t.Lanes), index)
		JMP(LabelRef(name + "_wide"))
		return
	}
	Comment("Each iteration loads the next one's records into the other set part-way",
		"through its body (WideRecordsAt); the last whole iteration loads none.")
	r.loadGroups(set, 0, groups)
	r.pipelined(name+"_wide", ls, r.loop.WideRecordsAt, false)
	LEAQ(Mem{Base: slotsBase, Disp: groups * r.nslots * t.VecBytes()}, set) // swapped or not
}

// groupLoop emits the loop of one group at a time, pipelined with
// NextRecordsAt.
func (r *recordLoop) groupLoop() {
	t, name := r.e.t, r.name
	Label(name + "_loop")
	ahead := r.loop.NextRecordsAt > 0
	if ahead {
		Comment("One group at a time, each loading the next one's records into the other set",
			"part-way through its body (NextRecordsAt); the last whole group loads none.")
	}
	left(t.Lanes, name+"_tail")
	r.loadGroups(set, 0, 1)
	if !ahead {
		r.run([]*lowering{r.l}, name+"_group", nil, nil)
		ADDQ(U32(t.Lanes), index)
		JMP(LabelRef(name + "_loop"))
		return
	}
	r.pipelined(name+"_", []*lowering{r.l}, r.loop.NextRecordsAt, true)
	left(0, "")
}

// tail emits the masked tail group.
func (r *recordLoop) tail() {
	t, name, l := r.e.t, r.name, r.l
	Label(name + "_tail")
	TESTQ(remain, remain)
	JZ(LabelRef(name + "_done"))
	mask := tailMask(t, r.e.c)
	Comment("The remaining pair indices, zero (capsule 0) past n.")
	r.loadSet(set, tailIndices(l, r.tailIdx, mask), 0)
	r.run([]*lowering{l}, name+"_tailgroup", mask, nil)
	Label(name + "_done")
}

// tailIndices loads the tail group's pair indices under mask (zero past n:
// capsule 0) into the two vectors at at and returns the address of each
// lane's index, as loadRecords reads them.
func tailIndices(l *lowering, at Mem, mask Op) func(side, lane int) Mem {
	for side := range 2 {
		idx := l.loadIndices(Mem{Base: pairIdx[side], Index: index, Scale: 4}, mask)
		VMOVUPS(idx, at.Offset(side*l.t.VecBytes()))
	}
	return func(side, lane int) Mem { return at.Offset(side*l.t.VecBytes() + 4*lane) }
}

// PrefetchRecordsAhead is how many groups ahead the one-group record loops
// prefetch capsule records when their prefetch argument is not 0: the long
// contact body keeps too few loads in flight to hide a miss; 3 pays once
// the records outgrow L2, where 6 or PREFETCHT1 do no better
// (docs/levers.md, "Large batches and memory").
const PrefetchRecordsAhead = 3

// prefetchRecords prefetches the capsule records of count groups from
// ahead groups past the current one, if the prefetch argument is set and
// those groups are whole (their indices are then within pi[0:n] and
// pj[0:n]; a prefetch itself never faults). Plane records (sides) are few
// and stay in L1.
func prefetchRecords(t *ir.Target, sides [2]GPPhysical, label string, ahead, count int) {
	skip := label + "_noprefetch"
	Comment("Prefetch the records of the groups ahead (prefetch != 0; PrefetchRecordsAhead).")
	CMPQ(remain, U32((ahead+count)*t.Lanes))
	JB(LabelRef(skip))
	flag := GP64()
	Load(Param("prefetch"), flag)
	TESTQ(flag, flag)
	JZ(LabelRef(skip))
	for side, base := range sides {
		if base != capsBase {
			continue
		}
		for lane := range count * t.Lanes {
			r := GP64()
			MOVL(Mem{Base: pairIdx[side], Index: index, Scale: 4, Disp: 4 * (ahead*t.Lanes + lane)}, r.As32())
			SHLQ(U8(5+uint8(t.Elem)), r) // 32 or 64 bytes per record
			PREFETCHT0(Mem{Base: capsBase, Index: r, Scale: 1})
		}
	}
	Label(skip)
}

// staged is where a late-compacting kernel (LateCompaction) keeps a
// group's rows until the next group compacts them: thirteen vectors in
// the slot area (the pair index, then the outputs) and the touching
// lanes' mask in the frame, zero when nothing is staged.
type staged struct {
	vecs Mem
	mask Mem
}

// storeMaskOf turns the touching lanes' bits in remain into their number
// (left in remain) and returns an opmask of that many low lanes: the
// compacted rows' store mask.
func storeMaskOf(l *lowering) Op {
	POPCNTL(remain.As32(), remain.As32())
	ks := K()
	BZHIL(remain.As32(), l.consts.low16, scratch.As32())
	KMOVW(scratch.As32(), ks)
	return ks
}

// stageRows stores a group's streams (for float64 the Pair and Count
// narrowed to 32 bits, then the eleven floats) and its touching lanes'
// mask to the stage.
func (ck *contactKernel) stageRows(l *lowering, streams []rowStream, count Op) {
	Comment("Compaction, one group late (LateCompaction): this group's rows and touching lanes")
	Comment("wait in the stage for the next group.")
	touch := touching(l, count, nil)
	if evex(l.t) {
		KMOVW(touch, remain.As32())
	} else {
		VMOVMSKPS(touch, remain.As32())
	}
	MOVL(remain.As32(), ck.stage.mask)
	for i, s := range streams {
		VMOVUPS(s.v(), ck.stage.vecs.Offset(i*l.t.VecBytes()))
	}
}

// compactStaged stores the touching rows of the staged group (streams of
// streams' kinds), if any, at the written rows, and empties the stage if
// empty says so.
func (ck *contactKernel) compactStaged(l *lowering, label string, streams []rowStream, empty bool) {
	t := l.t
	Comment("The previous group's touching rows, from the stage (LateCompaction).")
	MOVL(ck.stage.mask, remain.As32())
	TESTL(remain.As32(), remain.As32())
	JZ(LabelRef(label + "_nostaged"))
	staged := make([]rowStream, len(streams))
	for k, s := range streams {
		staged[k] = rowStream{func() Op { return ck.stage.vecs.Offset(k * t.VecBytes()) }, s.kind}
	}
	if evex(t) {
		touch := K()
		KMOVW(remain.As32(), touch)
		ks := storeMaskOf(l)
		// The touching lanes' numbers, first: one permutation reading the
		// stage then moves each stream's touching lanes down (loading each
		// vector and compressing it was slower: docs/levers.md).
		lanes := vecOf(4 * t.Lanes)
		VMOVDQU32(l.consts.iota, lanes)
		VPCOMPRESSD_Z(lanes, touch, lanes)
		for k, s := range staged {
			if k == 2 && s.kind == float64Lanes { // the floats take 64-bit lane numbers
				w := ZMM()
				VPMOVZXDQ(lanes, w)
				lanes = w
			}
			c := vecOf(int(s.kind.size) * t.Lanes)
			s.kind.perm(s.v(), lanes, c)
			s.kind.store(c, ks, ck.rowPtr(k, s.kind.size, 0))
		}
	} else {
		// A whole group was staged: written <= its first row, so the
		// eight rows from written are in dst.
		ck.compact8(l, staged, nil)
	}
	ADDQ(remain, written)
	if empty {
		MOVL(U32(0), ck.stage.mask)
	}
	Label(label + "_nostaged")
}

// storePacked stores the packed lanes c of stream k (of kind s) under the
// vector store mask kr: masked in the tail (mask not nil), else blended
// into the rows there by a load, VBLENDVPS and a plain store (masked stores
// are microcoded on AMD). kr's lanes are all-ones or zero, so the 32-bit
// blend serves 64-bit lanes too.
func (ck *contactKernel) storePacked(k int, s rowStream, c Register, kr, mask Op) {
	dst := ck.rowPtr(k, s.kind.size, 0)
	if mask != nil {
		s.kind.maskStore(c, kr, dst)
		return
	}
	old := vecOf(int(c.Size()))
	VMOVUPS(dst, old)
	VBLENDVPS(kr, c, old, old)
	VMOVUPS(old, dst)
}

// recordRegs is how many vector registers loadRecords takes at once on t
// (what a spilling body leaves it: interlude).
func recordRegs(t *ir.Target) int {
	switch {
	case t.Elem == ir.F64 && evex(t):
		return 16 // eight rows and their unpacks
	case t.Elem == ir.F64:
		return 4 // two rows and their unpacks
	case evex(t):
		return 12 // one block's four fields, the other's rows and unpacks
	}
	return 8 // four rows and three unpacks, then the fields
}

// pinConstants broadcasts the constants named (PinnedConstants) that l's
// program uses into registers and returns them by name with the element
// suffix.
func (l *lowering) pinConstants(names []string) map[string]VecVirtual {
	var pinned map[string]VecVirtual
	for _, name := range names {
		sfx := name + l.t.Elem.Suffix()
		if !slices.ContainsFunc(l.p.Code, func(in ir.Instr) bool { return in.Op == ir.OpConst && in.Name == sfx }) {
			continue
		}
		if pinned == nil {
			Comment("Constants held in registers (PinnedConstants).")
			pinned = map[string]VecVirtual{}
		}
		r := l.newVec()
		l.fp().broadcast(l.consts.of(l.t.Elem, name), r)
		pinned[sfx] = r
	}
	return pinned
}

// groupLabel is the label of group g of n: label itself for one group.
func groupLabel(label string, g, n int) string {
	if n == 1 {
		return label
	}
	return fmt.Sprintf("%s_g%d", label, g)
}

// sink stores the rows of group g of an iteration, computed by l: one per
// pair, or only the touching pairs' (compact); mask is nil for a whole
// group. A kernel with a stage compacts the staged rows first, then stages
// the group's rows (late) or compacts them too.
func (ck *contactKernel) sink(l *lowering, label string, mask Op, g int, late bool) {
	streams, count := rowStreams(l, g)
	if !ck.compact {
		ck.storeRows(l, streams, mask, g)
		return
	}
	if ck.stage != nil {
		ck.compactStaged(l, label, streams, !late) // a late group refills the stage
	}
	if late {
		ck.stageRows(l, streams, count())
		return
	}
	ck.compactRows(l, label, mask, streams, count)
}

// rowStream is one of the thirteen output streams of a group's rows: the
// vector of its lanes (read when stored) and their kind.
type rowStream struct {
	v    func() Op
	kind *laneKind
}

// laneKind is the instructions that store and move one kind of lanes:
// float32, float64, or the uint32 Pair and Count of a float64 kernel (a
// float32 kernel moves those as float32).
type laneKind struct {
	size      uint8            // bytes per lane
	store     func(...Op)      // a whole store, or an AVX-512 masked one
	maskStore func(_, _, _ Op) // an AVX2 masked store
	compress  func(_, _, _ Op) // an AVX-512 zeroing compress
	perm      func(...Op)      // an AVX-512 variable permutation
}

var (
	float32Lanes = &laneKind{4, VMOVUPS, VMASKMOVPS, VCOMPRESSPS_Z, VPERMPS}
	float64Lanes = &laneKind{8, VMOVUPD, VMASKMOVPD, VCOMPRESSPD_Z, VPERMPD}
	uint32Lanes  = &laneKind{4, storeDwords, VPMASKMOVD, VPCOMPRESSD_Z, VPERMD}
)

// storeDwords stores 32-bit lanes whole (VMOVDQU) or under an opmask
// (VMOVDQU32).
func storeDwords(ops ...Op) {
	if len(ops) == 2 {
		VMOVDQU(ops[0], ops[1])
		return
	}
	VMOVDQU32(ops...)
}

// rowStreams returns the streams of group g's rows, the pair index
// k = i + lane first, and the count as the compaction tests it (float64:
// in 64-bit lanes, its stream narrowed: narrowPairCount).
func rowStreams(l *lowering, g int) ([]rowStream, func() Op) {
	t, kind := l.t, float32Lanes
	if t.Elem == ir.F64 {
		Commentf("Pair index k = i + lane (%d uint32), and the count narrowed to uint32.", t.Lanes)
		kind = float64Lanes
	} else {
		Comment("Pair index k = i + lane.")
	}
	pair, first := vecOf(4*t.Lanes), index
	if g > 0 { // remain is free in a sink: the loop recomputes it
		first = remain
		LEAQ(Mem{Base: index, Disp: g * t.Lanes}, remain)
	}
	if evex(t) {
		VPBROADCASTD(first.As32(), pair)
	} else {
		VMOVD(first.As32(), pair.AsX())
		VPBROADCASTD(pair.AsX(), pair)
	}
	VPADDD(l.consts.iota, pair, pair)
	streams := []rowStream{{func() Op { return pair }, kind}}
	for j := range l.p.Outputs {
		streams = append(streams, rowStream{func() Op { return l.out(j) }, kind})
	}
	if t.Elem == ir.F32 {
		return streams, streams[1].v
	}
	count64 := l.out(0)
	narrowPairCount(l, streams, pair, count64)
	return streams, func() Op { return count64 }
}

// storeRows stores one row per pair of group g, under mask if not nil.
func (ck *contactKernel) storeRows(l *lowering, streams []rowStream, mask Op, g int) {
	Comment("Store one row per pair.")
	var m32 Mem
	if mask != nil && l.t.Elem == ir.F64 && !evex(l.t) {
		m32 = l.slots.next()
		VMOVDQU(mask32(l, mask), m32)
	}
	for k, s := range streams {
		v, m := s.v(), mask
		if slot, ok := v.(Mem); ok { // float64's Pair and Count on AVX2, and their mask
			x := XMM()
			VMOVDQU(slot, x)
			v = x
			if mask != nil {
				mx := XMM()
				VMOVDQU(m32, mx)
				m = mx
			}
		}
		dst := ck.rowPtr(k, s.kind.size, g*l.t.Lanes)
		switch {
		case mask == nil:
			s.kind.store(v, dst)
		case evex(l.t):
			s.kind.store(v, mask, dst)
		default:
			s.kind.maskStore(v, m, dst)
		}
	}
}

// touching returns the touching lanes of a group (count > 0; counts are
// 0, 1 or 2), those under mask if not nil: an opmask on AVX-512, else a
// vector mask.
func touching(l *lowering, count, mask Op) Op {
	testm, cmpgt := VPTESTMD, VPCMPGTD
	if l.t.Elem == ir.F64 {
		testm, cmpgt = VPTESTMQ, VPCMPGTQ
	}
	if evex(l.t) {
		k := K()
		testm(count, count, k)
		return l.underTail(mask, k)
	}
	v := YMM()
	cmpgt(l.zero, count, v)
	if mask == nil {
		return v
	}
	vm := YMM() // VANDPD for float64, where underTail would AND with VANDPS
	fpOf(l.t).and(mask, v, vm)
	return vm
}

// compactRows stores the touching rows of group streams (count > 0, and
// under mask if not nil) packed at the written rows, and adds their
// number to written; a group without one stores nothing.
func (ck *contactKernel) compactRows(l *lowering, label string, mask Op, streams []rowStream, count func() Op) {
	t := l.t
	switch {
	case t.Elem == ir.F64 && !evex(t):
		Comment("Compaction: the touching lanes (count > 0) moved first by a permutation, then",
			"a masked store of that many lanes; nothing for a group without one.")
	case t.Elem == ir.F64:
		Comment("Compaction: the touching lanes (count > 0) first, then a store of that many",
			"lanes; nothing at all for a group without one.")
	default:
		Comment("Compaction: the touching lanes (count > 0) first, then a store of that many",
			"lanes; nothing at all for a group without one (most groups at a low hit rate).")
	}
	touch := touching(l, count(), mask)
	if evex(t) {
		KORTESTW(touch, touch)
	} else {
		fpOf(t).test(touch, touch)
	}
	JZ(LabelRef(label + "_none"))
	switch {
	case evex(t):
		KMOVW(touch, remain.As32())
		ks := storeMaskOf(l)
		for k, s := range streams {
			c := vecOf(int(s.kind.size) * t.Lanes)
			s.kind.compress(s.v(), touch, c)
			s.kind.store(c, ks, ck.rowPtr(k, s.kind.size, 0))
		}
	case t.Elem == ir.F64:
		VMOVMSKPD(touch, remain.As32())
		ck.compact4(l, streams, mask)
	default:
		VMOVMSKPS(touch, remain.As32())
		ck.compact8(l, streams, mask)
	}
	ADDQ(remain, written)
	Label(label + "_none")
}

// compact8 stores the touching lanes of the eight-lane streams (their
// bits in remain, which it leaves holding their number) at the written
// rows, in lane order: a permutation from the compress8 table, then a
// blend into the rows there (a whole group, mask nil) or a masked store
// (the tail).
func (ck *contactKernel) compact8(l *lowering, streams []rowStream, mask Op) {
	LEAQ(l.consts.compress8, scratch)
	SHLQ(U8(5), remain)
	perm := l.newVec()
	VMOVDQU(Mem{Base: scratch, Index: remain, Scale: 1}, perm)
	SHRQ(U8(5), remain)
	POPCNTL(remain.As32(), remain.As32())
	cnt := l.newVec()
	VMOVD(remain.As32(), cnt.AsX())
	VPBROADCASTD(cnt.AsX(), cnt)
	ks := l.newVec()
	VPCMPGTD(l.consts.iota, cnt, ks)
	// 16 registers: the store mask and permutation wait in slots.
	ksSlot, permSlot := l.slots.next(), l.slots.next()
	VMOVUPS(ks, ksSlot)
	VMOVUPS(perm, permSlot)
	if mask == nil {
		Comment("A whole group: rows written+8 <= i+8 <= n, so the 8 rows from written are in")
		Comment("dst; blend the new rows into them and store all 8 (VMASKMOVPS stores are")
		Comment("microcoded on AMD). The rows past the count get their own bits back.")
	}
	for k, s := range streams {
		c, pr, kr := l.newVec(), l.newVec(), l.newVec()
		VMOVUPS(permSlot, pr)
		VPERMPS(s.v(), pr, c)
		VMOVUPS(ksSlot, kr)
		ck.storePacked(k, s, c, kr, mask)
	}
}
