package amd64

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	avoir "github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// Physical general-purpose registers of the batch kernels. Up to nine
// input pointers live in registers (ten when the kernel parks nothing);
// further input pointers and the output pointers are reloaded from the
// argument frame into scratch when used. R15 (clobbered by global
// accesses when dynamically linking) and BP (frame pointer) stay
// untouched.
var (
	ptrRegs = []GPPhysical{RAX, RBX, RCX, RDX, RSI, RDI, R8, R9, R10}
	slotReg = R11 // the aligned slot area, or one more input pointer
	scratch = R12
	index   = R13 // lane index i of the current group
	remain  = R14 // n - i
)

// prefetchMinLanes is the batch size from which the loops prefetch: about
// 1 MB of input, the size of a large L2 cache. Below it the data is
// cache-resident and the prefetches only cost issue slots.
const prefetchMinLanes = 16384

// deferredDoc ends the doc comment of a kernel that defers its overrides.
var deferredDoc = []string{"The bits hold once the caller has stored the canonical NaN in every output",
	"of each lane whose dist2 is not finite (NaN or ±Inf), which it must do when",
	"bad is not 0 (DeferOverrides in gen/amd64)."}

// text begins kernel function name: its TEXT line, the noescape pragma
// and its doc. A kernel that defers its overrides (defersOverrides)
// returns bad, and its doc ends with deferredDoc.
func text(name string, frame attr.Attribute, sig string, deferred bool, doc []string) {
	if deferred {
		sig += " (bad int)"
		doc = append(slices.Clone(doc), deferredDoc...)
	}
	TEXT(name, frame, sig)
	Pragma("noescape")
	Doc(doc...)
}

// defersOverrides reports whether closest-point body p returns its
// overridden lanes instead of storing their constant (Bodies.DeferOverrides).
func (e *emitter) defersOverrides(p *ir.Program) bool {
	if !e.s.Bodies.DeferOverrides {
		return false
	}
	_, ovs := ir.SplitOverrides(p)
	return len(ovs) > 0
}

// KernelName is the generated name of kernel k for target t: Closest,
// then 64 for float64 lanes, then the target (ClosestAVX512,
// Closest64AVX512).
func KernelName(k *kernels.Kernel, t *ir.Target) string { return k.Name + t.Elem.Suffix() + t.Name }

// Batch emits kernel k run by loop: rotated loops over whole groups of
// t.Lanes lanes (after the large-batch loops if loop.LargeBatch), then
// one masked group for the n mod t.Lanes lanes left. Where the loop of
// several groups needs stack slots and one group none, small batches do
// not pay for the frame: the kernel runs fewer than WideFrom lanes with
// one group and tail-calls its Wide twin (ClosestWideAVX512) for more.
func (e *emitter) Batch(k *kernels.Kernel, loop StreamLoop, doc ...string) {
	t := e.t
	check(t)
	p := e.program(k, e.s.Bodies.Spill, e.s.Bodies.Reorder)
	f := &batchFunc{e: e, k: k, p: p, name: KernelName(k, t), loop: loop, doc: doc}
	if loop.Groups > 1 && e.batchSlots(p, loop.Groups) > 0 && e.batchSlots(p, 1) == 0 {
		small := *f
		small.loop, small.wide = StreamLoop{Merge: ir.Merge{Groups: 1}}, k.Name+t.Elem.Suffix()+"Wide"+t.Name
		small.emit()
		f.name, f.doc = small.wide, []string{"is " + f.name + " with the loop of several groups and its stack frame, for any n;",
			fmt.Sprintf("%s jumps here from %d lanes on.", f.name, WideFrom)}
	}
	f.emit()
}

// WideFrom is the batch size from which a split batch kernel (Batch) runs
// its loop of several groups: below it the frame would cost more than the
// groups' overlap gains (Streams.SpillSlots).
const WideFrom = 64

// splitOverrides is ir.SplitOverrides where the loops store the
// overridden lanes' constant under a mask (storeOverrides: AVX-512) or
// leave it to their caller (DeferOverrides), and p with no overrides
// elsewhere (there the Selects are blends).
func (e *emitter) splitOverrides(p *ir.Program) (*ir.Program, []ir.Override) {
	if !evex(e.t) && !e.s.Bodies.DeferOverrides {
		return p, nil
	}
	return ir.SplitOverrides(p)
}

// badLanesReg returns where the bad result of a kernel that defers its
// overrides accumulates, zeroed, or nil if it does not: an opmask register
// on AVX-512; on AVX2 the result's own slot in the argument frame, into
// which storeOverrides ORs the lanes' VMOVMSKPS bits (every
// general-purpose register but R15 and BP is taken in those loops).
func badLanesReg(t *ir.Target, deferred bool) Op {
	if !deferred {
		return nil
	}
	Comment("No overridden lane yet (DeferOverrides).")
	if evex(t) {
		k := K()
		KXORW(k, k, k)
		return k
	}
	b := addrOf(ReturnIndex(0))
	MOVQ(U32(0), b)
	return b
}

// addrOf returns the address of argument or result c in the frame.
func addrOf(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// ret returns from a kernel. bad, if not nil (badLanesReg), is the
// overridden lanes' mask ORed over every group, the kernel's result; on
// AVX2 it is there already.
func ret(t *ir.Target, bad Op) {
	if bad != nil && evex(t) {
		Comment("The overridden lanes' mask, ORed over every group: bad (DeferOverrides).")
		KMOVW(bad, remain.As32())
		Store(remain, ReturnIndex(0))
	}
	VZEROUPPER()
	RET()
}

// batchSlots is the stack slots per group of closest-point body p's loop
// of groups groups.
func (e *emitter) batchSlots(p *ir.Program, groups int) int {
	spill := e.s.Bodies.Spill
	nslots := slotsNeeded(e.t, p, spill)
	if v := e.s.Streams.SpillSlots; v > 0 && nslots > 0 && spill {
		nslots = v
		if groups == 1 && maxLive(p) <= e.t.VecRegs-2 {
			nslots = 0 // one group fits in the registers besides 0 and 1
		}
	}
	return nslots
}

// batchFunc is one function Batch emits.
type batchFunc struct {
	e    *emitter
	k    *kernels.Kernel
	p    *ir.Program // the body, prepared (emitter.program)
	name string
	loop StreamLoop
	wide string // if not empty, batches of WideFrom lanes or more jump to this function
	doc  []string

	// Set by emit: the lowerings of an iteration's groups (nts: of the
	// non-temporal loop), the pointer registers, the bad lanes' register.
	ls, nts []*lowering
	ptrs    []GPPhysical
	bad     Op
}

// emit emits the function: its header, the loops, the tail.
func (f *batchFunc) emit() {
	t := f.e.t
	nslots := f.e.batchSlots(f.p, f.loop.Groups)
	frame := NOSPLIT
	if f.loop.Groups*nslots*t.VecBytes() > 512 {
		frame = 0 // beyond what the nosplit stack limit allows
	}
	streams := strings.Join(append(slices.Clone(f.k.Inputs), f.k.Outputs...), ", ")
	text(f.name, frame, "func("+streams+" *"+t.Elem.String()+", n int)", f.e.defersOverrides(f.p),
		append([]string{f.name + " " + f.doc[0]}, f.doc[1:]...))
	if f.wide != "" {
		Commentf("From %d lanes on: %s (a tail call; this function has no frame).", WideFrom, f.wide)
		Load(Param("n"), remain)
		CMPQ(remain, U32(WideFrom))
		JB(LabelRef(f.name + "_short"))
		// A jump to another function: avo's JMP wants a label of this one.
		Instruction(&avoir.Instruction{Opcode: "JMP", Operands: []Op{NewDataAddr(Symbol{Name: "·" + f.wide}, 0)}, IsTerminal: true})
		Label(f.name + "_short")
	}
	f.lowerings(nslots)
	for i := range min(len(f.k.Inputs), len(f.ptrs)) {
		Load(Param(f.k.Inputs[i]), f.ptrs[i])
	}
	XORQ(index, index)
	Load(Param("n"), remain)
	VXORPS(f.ls[0].zero, f.ls[0].zero, f.ls[0].zero)
	fpOf(t).broadcast(f.e.c.of(t.Elem, "one"), f.ls[0].one)

	if f.loop.LargeBatch && f.e.s.Streams.PrefetchBytes > 0 {
		f.largeBatchLoops()
	}
	if f.loop.Groups > 1 {
		f.loopOf(f.name+"_groups", f.loop.Groups, 0, 0, false)
	}
	f.loopOf(f.name+"_loop", 1, 0, 0, false)

	Label(f.name + "_tail")
	Comment("The n mod lanes lanes left, under a mask: masked-out lanes are never loaded or stored.")
	TESTQ(remain, remain)
	JZ(LabelRef(f.name + "_done"))
	f.iteration(f.ls[:1], tailMask(t, f.e.c), 0, false)

	Label(f.name + "_done")
	ret(t, f.bad)
	if s := f.ls[0].slots; s != nil && s.grow.n > 0 && frame == NOSPLIT && (s.grow.end+s.grow.n)*t.VecBytes() > 512 {
		Attributes(0) // the grown area is beyond what the nosplit stack limit allows
	}
}

// lowerings sets up one lowering per group of an iteration, sharing the
// constants, the registers holding 0 and 1, and the slot area (nslots a
// group). The bodies leave their canonical-NaN overrides to masked stores
// (storeOverrides) or the caller (DeferOverrides) where splitOverrides
// says; the non-temporal loop (nts), whose stores cannot be masked, keeps
// them unless they are deferred.
func (f *batchFunc) lowerings(nslots int) {
	t, c, groups := f.e.t, f.e.c, f.loop.Groups
	zero, one := vecOf(t.VecBytes()), vecOf(t.VecBytes())
	f.ls, f.nts = make([]*lowering, groups), make([]*lowering, groups)
	q, ovs := f.e.splitOverrides(f.p)
	f.bad = badLanesReg(t, f.e.defersOverrides(f.p))
	l := &lowering{t: t, p: q, consts: c, zero: zero, one: one, overrides: ovs, badLanes: f.bad, spill: f.e.s.Bodies.Spill}
	f.ptrs = ptrRegs
	if nslots > 0 {
		l.slots = newSlots(slotReg, nslots*groups, nslots, t.VecBytes())
		l.slots.grow = &grown{end: nslots * groups}
	} else {
		f.ptrs = append(slices.Clone(ptrRegs), slotReg)
	}
	for g := range f.ls {
		f.ls[g] = l.forGroup(g)
		nt := *f.ls[g]
		if f.bad == nil {
			nt.p, nt.overrides = f.p, nil
		}
		f.nts[g] = &nt
	}
}

// largeBatchLoops emits the loops of big batches, which stream from
// memory: they prefetch, where the CPU gains by it (PrefetchInputs), and
// from NTMinLanes lanes with 64-byte-aligned outputs store with
// non-temporal stores. Batches that fit in the L2 cache do not need it,
// so the last prefetchMinLanes lanes (already prefetched) and small
// batches run the loops without.
func (f *batchFunc) largeBatchLoops() {
	name, groups, ahead := f.name, f.loop.Groups, f.e.s.Streams.PrefetchBytes
	noPrefetch := func(label string) {
		Comment("Unless asm.PrefetchInputs (set per CPU by package kernel).")
		CMPB(NewDataAddr(Symbol{Name: "·PrefetchInputs"}, 0), U8(0))
		JE(LabelRef(label))
	}
	if nt := f.e.ntMinLanes; nt > 0 {
		Commentf("At least %d lanes and 64-byte-aligned outputs: non-temporal stores", nt)
		Comment("(no read-for-ownership of the output lines), then SFENCE.")
		CMPQ(remain, U32(nt))
		JB(LabelRef(name + "_nt_skip"))
		Load(Param(f.k.Outputs[0]), scratch)
		for _, o := range f.k.Outputs[1:] {
			Load(Param(o), index) // index is 0 here and reset below
			ORQ(index, scratch)
		}
		XORQ(index, index)
		TESTQ(U32(63), scratch)
		JNZ(LabelRef(name + "_nt_skip"))
		noPrefetch(name + "_nt_noprefetch")
		f.loopOf(name+"_nt", groups, prefetchMinLanes, ahead, true)
		JMP(LabelRef(name + "_nt_fence"))
		Label(name + "_nt_noprefetch")
		f.loopOf(name+"_ntplain", groups, prefetchMinLanes, 0, true)
		Label(name + "_nt_fence")
		SFENCE()
		Label(name + "_nt_skip")
	}
	noPrefetch(name + "_prefetch_end")
	f.loopOf(name+"_prefetch", groups, prefetchMinLanes, ahead, false)
}

// loopOf emits a rotated loop over n groups at a time while at least
// minRemain lanes remain, then falls through to the next; prefetch > 0
// prefetches that many bytes ahead, nt stores with non-temporal stores.
func (f *batchFunc) loopOf(label string, n, minRemain, prefetch int, nt bool) {
	step := n * f.e.t.Lanes
	minRemain = max(minRemain, step)
	Commentf("Loop over %d group(s) at a time while at least %d lanes remain.", n, minRemain)
	CMPQ(remain, U32(minRemain))
	JB(LabelRef(label + "_end"))
	Label(label)
	groupsOf := f.ls
	if nt {
		groupsOf = f.nts
	}
	f.iteration(groupsOf[:n], nil, prefetch, nt)
	ADDQ(U32(step), index)
	SUBQ(U32(step), remain)
	CMPQ(remain, U32(minRemain))
	JAE(LabelRef(label))
	Label(label + "_end")
}

// program returns kernel k's body unparked where its loops spill and
// reordered (latencyOf) where they reorder (Bodies for the closest-point
// kernels).
func (e *emitter) program(k *kernels.Kernel, spill, reorder bool) *ir.Program {
	p := k.ProgramOf(e.t.Elem)
	if spill {
		p = ir.Unpark(p)
	}
	if reorder {
		p = ir.Schedule(p, latencyOf(e.t))
	}
	return p
}

// latencyOf is the latency model ir.Schedule orders by: cycles from the
// start of an instruction to its result on recent x86 cores (Golden Cove,
// Zen 4: 4 for the float arithmetic, about 18 for a float32 division and
// 23 for a float64 one, 20 for a square root, 5 for a load).
func latencyOf(t *ir.Target) func(in *ir.Instr) int {
	return func(in *ir.Instr) int {
		switch in.Op {
		case ir.OpInput, ir.OpConst, ir.OpArg:
			return 5
		case ir.OpDiv, ir.OpDivOrZero, ir.OpRecipOrZero:
			if t.Elem == ir.F64 {
				return 23
			}
			return 18
		case ir.OpSqrt:
			return 20
		case ir.OpClamp01:
			return 8 // min, then max
		case ir.OpNeg, ir.OpAbs, ir.OpAnd, ir.OpOr, ir.OpAndNot, ir.OpSelect, ir.OpPark:
			return 1
		}
		return 4
	}
}

// tailMask returns the mask of the first remain lanes: an opmask register
// on AVX-512, a vector mask on AVX2.
func tailMask(t *ir.Target, c *constants) Op {
	if evex(t) {
		k := K()
		BZHIL(remain.As32(), c.low16, remain.As32())
		KMOVW(remain.As32(), k)
		return k
	}
	// Lane j is set when j < remain: broadcast remain, compare with the
	// lane numbers of each 32-bit half (0..7, or 0 0 1 1 .. 3 3 for
	// float64 lanes).
	var m, mask VecVirtual = YMM(), YMM()
	VMOVD(remain.As32(), m.AsX())
	VPBROADCASTD(m.AsX(), m)
	lanes := c.iota
	if t.Elem == ir.F64 {
		lanes = c.iota64
	}
	VPCMPGTD(lanes, m, mask)
	return mask
}

// storeLanes stores v to dst: whole where mask is nil, else its lanes
// under mask (an AVX2 vector mask is all-ones per lane, whatever its
// width).
func storeLanes(t *ir.Target, v, mask Op, dst Mem) {
	switch {
	case mask == nil:
		VMOVUPS(v, dst)
	case evex(t):
		fpOf(t).storeMasked(v, mask, dst)
	default:
		VMASKMOVPS(v, mask, dst)
	}
}

// loadLanes loads the lanes of m under mask into a new register, zero
// in the others (see storeLanes).
func (l *lowering) loadLanes(m Mem, mask Op) VecVirtual {
	r := l.newVec()
	if evex(l.t) {
		fpOf(l.t).loadZ(m, mask, r)
	} else {
		VMASKMOVPS(m, mask, r)
	}
	return r
}

// loadIndices loads the t.Lanes 32-bit indices at m, under mask (zero
// past it) if not nil, into a new register of their width.
func (l *lowering) loadIndices(m Mem, mask Op) VecVirtual {
	x := vecOf(4 * l.t.Lanes)
	switch {
	case mask == nil && l.t.Lanes == 16:
		VMOVDQU32(m, x)
	case mask == nil:
		VMOVDQU(m, x)
	case evex(l.t):
		VMOVDQU32_Z(m, mask, x)
	case l.t.Elem == ir.F64:
		VPMASKMOVD(m, mask32(l, mask), x)
	default:
		VPMASKMOVD(m, mask, x)
	}
	return x
}

// stream returns the memory operand of stream s (inputs, then outputs)
// for group g. Pointers not held in registers are loaded into scratch,
// which the caller must use before the next call.
func (f *batchFunc) stream(s, g int) Mem {
	base := scratch
	if s < len(f.k.Inputs) && s < len(f.ptrs) {
		base = f.ptrs[s]
	} else {
		names := append(slices.Clone(f.k.Inputs), f.k.Outputs...)
		Load(Param(names[s]), scratch)
	}
	return Mem{Base: base, Index: index, Scale: scale(f.e.t), Disp: g * f.e.t.VecBytes()}
}

// iteration emits one iteration: the kernel body for each lowering of ls
// (group g: inputs), their instruction streams merged with the loop's
// skew, then the stores of their outputs (non-temporal if nt). Whole
// groups (mask nil) use the streams as memory operands where the
// instruction allows one; a tail group loads every stream under the mask.
func (f *batchFunc) iteration(ls []*lowering, mask Op, prefetch int, nt bool) {
	if prefetch > 0 {
		Comment("Prefetch the input streams a few groups ahead (a prefetch never faults);")
		Comment("prefetching the outputs too measured slower.")
	}
	if mask != nil {
		Comment("Masked loads: lanes past n read as zero.")
	}
	for g, l := range ls {
		f.inputs(l, g, mask, prefetch)
	}
	store := func(g int) {
		Commentf("Store the results of group %d.", g)
		for j := range f.k.Outputs {
			v := ls[g].out(j)
			if dst := f.stream(len(f.k.Inputs)+j, g); nt {
				VMOVNTPS(v, dst)
			} else {
				storeLanes(f.e.t, v, mask, dst)
			}
		}
		storeOverrides(ls[g], mask, func(j int) Mem { return f.stream(len(f.k.Inputs)+j, g) })
	}
	merge(ls, f.loop.Skew, store, newSpiller(ls, heldBy(mask), overrideRegs(ls[0])), nil)
}

// inputs begins lowering l for group g of an iteration: its inputs are
// the streams' lanes from index + g*t.Lanes, prefetched prefetch bytes
// ahead if prefetch > 0. Inputs in registers are loaded now, or where the
// body reads them when it spills (so that the spiller sees the registers
// they take).
func (f *batchFunc) inputs(l *lowering, g int, mask Op, prefetch int) {
	// load returns input s of group g (at m, its stream): m where its
	// pointer is in a register, else a register loaded now.
	load := func(s int, m Mem) Op {
		switch {
		case mask == nil && s < len(f.ptrs):
			return m
		case mask == nil:
			r := l.newVec()
			VMOVUPS(m, r)
			return r
		}
		return l.loadLanes(m, mask)
	}
	lazy := l.spill && l.slots != nil
	in := make([]Op, len(f.k.Inputs))
	prefetchOp := PREFETCHT0
	if f.e.s.Streams.PrefetchL2 {
		prefetchOp = PREFETCHT1
	}
	for s := range in {
		if lazy && prefetch == 0 {
			continue
		}
		m := f.stream(s, g)
		if prefetch > 0 {
			prefetchOp(m.Offset(prefetch))
		}
		if !lazy {
			in[s] = load(s, m)
		}
	}
	input := func(s int) Op { return in[s] }
	if lazy {
		input = func(s int) Op { return load(s, f.stream(s, g)) }
	}
	l.beginGroup("", input, func(int) Mem { panic("batch kernels take no scalar arguments") })
}

// merge emits the programs of the lowerings ls (begun, one per group of
// an iteration, one program) with their instruction streams merged in
// ir.Merge's order at skewOf. done(g) runs as soon as group g's last
// instruction is emitted (its stores), so that its outputs do not hold
// registers while the later groups finish. sp, if not nil, spills values
// as registers run out (spiller). in, if not nil, is emitted once among
// the instructions (interlude).
func merge(ls []*lowering, skewOf float64, done func(g int), sp *spiller, in *interlude) {
	order := ir.Merge{Groups: len(ls), Skew: skewOf}.Order(ls[0].p)
	if sp != nil {
		sp.start(order)
	}
	n := len(ls[0].p.Code)
	depth := 0 // rare blocks open at position k
	for k, e := range order {
		if in != nil && depth == 0 && k >= int(in.at*float64(len(order))) {
			if sp != nil {
				sp.a.Fit(k, 0, in.regs, nil)
			}
			in.emit()
			in = nil
		}
		switch ls[e.G].p.Code[e.I].Op {
		case ir.OpRare:
			depth++
		case ir.OpEndRare:
			depth--
		}
		if sp != nil {
			sp.a.Before(k, e)
		}
		ls[e.G].step(e.I)
		if e.I == n-1 {
			if sp != nil {
				sp.beforeStores(k, e.G)
			}
			done(e.G)
		}
	}
	if in != nil {
		panic(fmt.Sprintf("amd64: no place outside rare blocks at %.2f of the body for the interlude", in.at))
	}
}

// interlude is work of the loop driver that merge puts inside the groups'
// instruction streams (the next group's record loads: recordLoop): emitted
// once, at the first position from at x the streams' length on that is
// outside every rare block (a block may be branched over), after the
// spiller, if any, has left it regs vector registers.
type interlude struct {
	at   float64
	regs int
	emit func()
}
