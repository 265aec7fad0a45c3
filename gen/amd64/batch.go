package amd64

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/mmcloughlin/avo/build"
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

// PrefetchBytes is how far ahead of the current group the closest-point
// loops prefetch each input stream: on a million pairs this overlaps the
// memory stream with the arithmetic. Distances from 512 to 1536 bytes
// measured alike; prefetching the output streams as well was slower. The
// memory-floor kernel does not prefetch: there it only slowed the loop,
// and the floor should be the fastest such loop (docs/levers.md).
var PrefetchBytes = 1024

// NTMinLanes is the batch size from which the closest-point loops store
// with non-temporal stores (VMOVNTPS) when the output streams are 64-byte
// aligned (soa allocates them so): the output lines are then not read
// before they are written (12 of the 72 bytes a pair moves), which brings
// a 1M-pair batch level with the StreamOnly floor (docs/levers.md).
// Smaller batches keep ordinary stores: their results are likely read
// right after, from cache. 0 disables them.
var NTMinLanes = 1 << 18

// PrefetchL2 says for which targets the closest-point loops prefetch into
// the L2 cache (PREFETCHT1) rather than into L1 (PREFETCHT0). On a
// million pairs the AVX-512 loop (four groups, non-temporal stores) ran
// faster with PREFETCHT1 than with PREFETCHT0, and the AVX2 loop slower
// (docs/levers.md). Whether the loops prefetch at all is decided at run
// time, per CPU (asm.PrefetchInputs, set by package kernel): the generated
// code has the non-temporal loop both with and without the prefetches.
var PrefetchL2 = map[string]bool{"AVX512": true}

// prefetchMinLanes is the batch size from which the loops prefetch: about
// 1 MB of input, the size of a large L2 cache. Below it the data is
// cache-resident and the prefetches only cost issue slots.
const prefetchMinLanes = 16384

// signature is the Go signature of a batch kernel: one *float32 (or
// *float64) per input then output stream, then n.
func signature(k *kernels.Kernel, t *ir.Target) string {
	sig := "func(" + strings.Join(append(slices.Clone(k.Inputs), k.Outputs...), ", ") + " *" + t.Elem.String() + ", n int)"
	if defersOverrides(t, program(k, t)) {
		sig += " (bad int)"
	}
	return sig
}

// DeferOverrides says, per target, that its batch kernels (Batch) and
// indexed closest kernels (ClosestIndexed) whose outputs take a constant
// in some lanes (the canonical NaN of lanes with a non-finite Dist2:
// ir.SplitOverrides) leave that constant to their caller: each group
// ORs its lanes' mask into one mask register, and the kernel returns it
// as bad (not zero when some lane needs the constant; package kernel
// then stores it in every output of those lanes). The
// masked stores of the constant (storeOverrides) cost a broadcast and a
// store per output on every group (the non-temporal loop: a blend per
// output), and the AVX2 blends one per output, for lanes that finite
// input never has; AVX2 ORs the mask's VMOVMSKPS bits into the result's
// slot (badLanesReg). Deferring made the closest, point and indexed
// kernels a few percent faster on both paths from 256 pairs on; an AVX2
// call of 16 pairs costs a few ns more (docs/levers.md).
var DeferOverrides = map[string]bool{"AVX512": true, "AVX2": true}

// deferredDoc ends the doc comment of a kernel that defers its overrides.
var deferredDoc = []string{"The bits hold once the caller has stored the canonical NaN in every output",
	"of each lane whose dist2 is not finite (NaN or ±Inf), which it must do when",
	"bad is not 0 (DeferOverrides in gen/amd64)."}

// defersOverrides reports whether batch kernel body p on t returns its
// overridden lanes instead of storing their constant (DeferOverrides).
func defersOverrides(t *ir.Target, p *ir.Program) bool {
	if !tuned(DeferOverrides, t) {
		return false
	}
	_, ovs := ir.SplitOverrides(p)
	return len(ovs) > 0
}

// KernelName is the generated name of kernel k for target t: Closest,
// then 64 for float64 lanes, then the target (ClosestAVX512,
// Closest64AVX512).
func KernelName(k *kernels.Kernel, t *ir.Target) string { return k.Name + t.Elem.Suffix() + t.Name }

// Batch emits kernel k for target t: a rotated loop over whole groups of
// t.Lanes lanes (with prefetching from prefetchMinLanes lanes on if
// prefetch), then one masked group for the n mod t.Lanes lanes left (never
// touching memory past n), then VZEROUPPER.
//
// Where the loop of several groups needs stack slots and one group needs
// none (the AVX-512 closest loops), the function is split so that small
// batches do not pay for the frame (BatchSpillSlots): name itself has no
// frame and runs batches of fewer than WideFrom lanes with the one-group
// loop, and jumps (a tail call, with the same arguments) to the Wide
// function (ClosestWideAVX512), the whole loop with its frame, for larger
// ones.
func Batch(t *ir.Target, k *kernels.Kernel, c *constants, prefetch bool, doc ...string) {
	check(t)
	name := KernelName(k, t)
	groups := max(1, tuned(Interleave, t))
	if k != kernels.Closest {
		groups = 1
	}
	p := program(k, t)
	if groups > 1 && batchSlots(t, p, groups) > 0 && batchSlots(t, p, 1) == 0 {
		wide := k.Name + t.Elem.Suffix() + "Wide" + t.Name
		batch(t, k, p, c, name, 1, false, wide, doc...)
		batch(t, k, p, c, wide, groups, prefetch, "", "is "+name+" with the loop of several groups and its stack frame, for any n;",
			fmt.Sprintf("%s jumps here from %d lanes on.", name, WideFrom))
		return
	}
	batch(t, k, p, c, name, groups, prefetch, "", doc...)
}

// WideFrom is the batch size from which a split batch kernel (Batch) runs
// its loop of several groups: below it the frame would cost more than the
// groups' overlap gains (BatchSpillSlots).
const WideFrom = 64

// splitOverrides is ir.SplitOverrides where the loops store the
// overridden lanes' constant under a mask (storeOverrides: AVX-512) or
// leave it to their caller (DeferOverrides), and p with no overrides
// elsewhere (there the Selects are blends).
func splitOverrides(t *ir.Target, p *ir.Program) (*ir.Program, []ir.Override) {
	if !evex(t) && !tuned(DeferOverrides, t) {
		return p, nil
	}
	return ir.SplitOverrides(p)
}

// badLanesReg returns where a kernel's bad result accumulates, zeroed
// (DeferOverrides): an opmask register on AVX-512; on AVX2 the result's
// own slot in the argument frame, into which storeOverrides ORs the
// lanes' VMOVMSKPS bits (every general-purpose register but R15 and BP
// is taken in those loops: batch.go's registers above).
func badLanesReg(t *ir.Target) Op {
	Comment("No overridden lane yet (DeferOverrides).")
	if evex(t) {
		k := K()
		KXORW(k, k, k)
		return k
	}
	b, err := ReturnIndex(0).Resolve()
	if err != nil {
		panic(err)
	}
	MOVQ(U32(0), b.Addr)
	return b.Addr
}

// returnBadLanes stores bad, the overridden lanes' mask ORed over every
// group, as the kernel's result (DeferOverrides); on AVX2 it is there.
func returnBadLanes(t *ir.Target, bad Op) {
	if !evex(t) {
		return
	}
	Comment("The overridden lanes' mask, ORed over every group: bad (DeferOverrides).")
	KMOVW(bad, remain.As32())
	Store(remain, ReturnIndex(0))
}

// batchSlots is the stack slots per group of kernel body p's loop of
// groups groups on t.
func batchSlots(t *ir.Target, p *ir.Program, groups int) int {
	nslots := slotsNeeded(t, p)
	if v, ok := BatchSpillSlots[t.Name]; ok && nslots > 0 && spills(t, p) {
		nslots = v
		if groups == 1 {
			nslots = 0 // one group fits in the registers (the spiller panics if not)
		}
	}
	return nslots
}

// batch emits the batch function name for kernel k (its body for t: p)
// on t with groups groups per iteration of its main loop (Batch). If wide
// is not empty, batches of WideFrom lanes or more jump to that function
// instead.
func batch(t *ir.Target, k *kernels.Kernel, p *ir.Program, c *constants, name string, groups int, prefetch bool, wide string, doc ...string) {
	nslots := batchSlots(t, p, groups)
	frame := NOSPLIT
	if groups*nslots*t.VecBytes() > 512 {
		frame = 0 // beyond what the nosplit stack limit allows
	}
	TEXT(name, frame, signature(k, t))
	Pragma("noescape")
	deferred := defersOverrides(t, p)
	if deferred {
		doc = append(slices.Clone(doc), deferredDoc...)
	}
	Doc(append([]string{name + " " + doc[0]}, doc[1:]...)...)
	if wide != "" {
		Commentf("From %d lanes on: %s (a tail call; this function has no frame).", WideFrom, wide)
		Load(Param("n"), remain)
		CMPQ(remain, U32(WideFrom))
		JB(LabelRef(name + "_short"))
		// A jump to another function: avo's JMP wants a label of this one.
		Instruction(&avoir.Instruction{Opcode: "JMP", Operands: []Op{NewDataAddr(Symbol{Name: "·" + wide}, 0)}, IsTerminal: true})
		Label(name + "_short")
	}

	// One lowering per group of an iteration; they share the constants,
	// the registers holding 0 and 1, and the slot area (each group its
	// own slots).
	zero, one := YMM(), YMM()
	if evex(t) {
		zero, one = ZMM(), ZMM()
	}
	// On AVX-512 the loops with ordinary stores take the body without
	// its canonical-NaN Selects and store the NaN under a mask instead
	// (storeOverrides); non-temporal stores cannot be masked, so the
	// non-temporal loop keeps the Selects (nts). Where the kernel defers
	// its overrides (DeferOverrides), every loop takes the body without
	// the Selects, and ORs their masks into bad, its result.
	ls, nts := make([]*lowering, groups), make([]*lowering, groups)
	q, ovs := splitOverrides(t, p)
	var bad Op
	if deferred {
		bad = badLanesReg(t)
	}
	ntp, ntovs := p, []ir.Override(nil)
	if bad != nil {
		ntp, ntovs = q, ovs
	}
	for g := range ls {
		ls[g] = &lowering{t: t, p: q, consts: c, zero: zero, one: one, overrides: ovs, badLanes: bad}
		nts[g] = &lowering{t: t, p: ntp, consts: c, zero: zero, one: one, overrides: ntovs, badLanes: bad}
	}
	ptrs := ptrRegs
	if nslots > 0 {
		area := newSlots(slotReg, nslots*groups, t.VecBytes())
		for g := range ls {
			ls[g].slots = &slots{base: area.base, bytes: area.bytes, n: nslots, first: g * nslots}
			nts[g].slots = ls[g].slots
		}
	} else {
		ptrs = append(slices.Clone(ptrRegs), slotReg)
	}
	for i := range min(len(k.Inputs), len(ptrs)) {
		Load(Param(k.Inputs[i]), ptrs[i])
	}
	XORQ(index, index)
	Load(Param("n"), remain)
	VXORPS(zero, zero, zero)
	fpOf(t).broadcast(c.of(t.Elem, "one"), one)

	// loop emits a rotated loop over n groups at a time while at least
	// minRemain lanes remain, then falls through to the next.
	loop := func(label string, n, minRemain, prefetch int, nt bool) {
		step := n * t.Lanes
		minRemain = max(minRemain, step)
		Commentf("Loop over %d group(s) at a time while at least %d lanes remain.", n, minRemain)
		CMPQ(remain, U32(minRemain))
		JB(LabelRef(label + "_end"))
		Label(label)
		groupsOf := ls
		if nt {
			groupsOf = nts
		}
		body(groupsOf[:n], k, ptrs, nil, prefetch, nt)
		ADDQ(U32(step), index)
		SUBQ(U32(step), remain)
		CMPQ(remain, U32(minRemain))
		JAE(LabelRef(label))
		Label(label + "_end")
	}
	if prefetch && PrefetchBytes > 0 {
		// Big batches stream from memory: prefetch, where the CPU gains
		// by it (PrefetchInputs). Batches that fit in the L2 cache do not
		// need it, so the last prefetchMinLanes lanes (already prefetched)
		// and small batches run the loop without.
		noPrefetch := func(label string) {
			Comment("Unless asm.PrefetchInputs (set per CPU by package kernel).")
			CMPB(NewDataAddr(Symbol{Name: "·PrefetchInputs"}, 0), U8(0))
			JE(LabelRef(label))
		}
		if NTMinLanes > 0 {
			Commentf("At least %d lanes and 64-byte-aligned outputs: non-temporal stores", NTMinLanes)
			Comment("(no read-for-ownership of the output lines), then SFENCE.")
			CMPQ(remain, U32(NTMinLanes))
			JB(LabelRef(name + "_nt_skip"))
			Load(Param(k.Outputs[0]), scratch)
			for _, o := range k.Outputs[1:] {
				Load(Param(o), index) // index is 0 here and reset below
				ORQ(index, scratch)
			}
			XORQ(index, index)
			TESTQ(U32(63), scratch)
			JNZ(LabelRef(name + "_nt_skip"))
			noPrefetch(name + "_nt_noprefetch")
			loop(name+"_nt", groups, prefetchMinLanes, PrefetchBytes, true)
			JMP(LabelRef(name + "_nt_fence"))
			Label(name + "_nt_noprefetch")
			loop(name+"_ntplain", groups, prefetchMinLanes, 0, true)
			Label(name + "_nt_fence")
			SFENCE()
			Label(name + "_nt_skip")
		}
		noPrefetch(name + "_prefetch_end")
		loop(name+"_prefetch", groups, prefetchMinLanes, PrefetchBytes, false)
	}
	if groups > 1 {
		loop(name+"_groups", groups, 0, 0, false)
	}
	loop(name+"_loop", 1, 0, 0, false)

	Label(name + "_tail")
	Comment("The n mod lanes lanes left, under a mask: masked-out lanes are never loaded or stored.")
	TESTQ(remain, remain)
	JZ(LabelRef(name + "_done"))
	body(ls[:1], k, ptrs, tailMask(t, c), 0, false)

	Label(name + "_done")
	if bad != nil {
		returnBadLanes(t, bad)
	}
	VZEROUPPER()
	RET()
}

// Interleave is the number of groups the closest kernel's main loop
// computes per iteration, per target name, and Skew how far (a fraction
// of the body's instructions) each group runs ahead of the next: the loop
// driver merges the groups' instruction streams so that independent work
// of the next groups sits early in the reorder window of the first. The
// body's long dependency chain, not the arithmetic, bounds one group
// (docs/design.md, "Loop drivers"). Lockstep groups (skew 0) need too many
// registers; a skew keeps the next group's early values and the first
// group's late ones live together instead.
// Since the loops spill selectively (Spill), low skews allocate: the
// spiller moves the values read again last (the edges M0, u, E between
// step 1 and the end) to the stack, and their readers take them back as
// memory operands, which cost no vector-side slot, so the groups overlap
// more. The settings are the fastest of a sweep of groups and skews
// (docs/levers.md).
//
// The float64 kernels take the same settings except where a key with the
// element suffix (AVX51264) says otherwise. Whether AVX2 groups fit in 16
// YMM depends on the skew, and not monotonically; a 17th register would
// come from Y16-Y31, EVEX-only, and TestAVX2RegisterBudget (gen and
// kernel) fails. The gen flags -interleave512, -skew512, -interleave2,
// -skew2, -schedule512 and -schedule2 override these.
var (
	Interleave = map[string]int{"AVX512": 4, "AVX51264": 4, "AVX2": 3}
	Skew       = map[string]float64{"AVX512": 0.15, "AVX51264": 0.15, "AVX2": 0.1}
)

// BatchSpillSlots is, per target, the stack slots per group of a spilling
// closest loop (spillSlots elsewhere); the spiller takes the lowest free
// slot of the iteration, so the groups share them, and generation panics
// if they run out. It keeps the frame small, which every call pays for:
// past a frame of about 256 bytes the argument loads through FP slow a
// call down, which a batch of 16 pairs feels (docs/levers.md). 8 per
// group (2,112 bytes for 4 groups) is the least the AVX-512 loops need (6
// is not enough); a loop of one group (BatchClosestPoint) takes none.
var BatchSpillSlots = map[string]int{"AVX512": 8}

// IndexedInterleave and IndexedSkew are Interleave and Skew for the
// indexed closest loops (ClosestIndexed), whose groups read their inputs
// from the transposed record sets in memory. There a lower skew gains
// little, and below 0.4 avo fails to allocate the 4-group loop: its
// liveness keeps the upper halves of the registers the record transposes
// load at 256 bits (records16) live from the function's entry. With a
// zero idiom before each of those loads, lower skews allocate but were no
// faster, so the transposes stay as they are (docs/levers.md).
var (
	IndexedInterleave = map[string]int{"AVX512": 4, "AVX51264": 3, "AVX2": 2}
	IndexedSkew       = map[string]float64{"AVX512": 0.4, "AVX51264": 0.4, "AVX2": 0.4}
)

// Scheduled says for which targets the closest body is reordered as late
// as possible (ir.Schedule, with latencyOf) before the loop driver merges
// its groups: the chain's instructions first, the rest next to their
// first use, so that fewer of the instructions in the core's scheduler
// are waiting. Reordered, the loops were faster than in IR order on both
// paths; ordered as soon as possible instead (each instruction at the
// earliest cycle its operands allow) they were slower (docs/levers.md).
var Scheduled = map[string]bool{"AVX512": true, "AVX2": true}

// program returns kernel k's body for t, reordered where Scheduled says.
func program(k *kernels.Kernel, t *ir.Target) *ir.Program {
	p := k.ProgramOf(t.Elem)
	if tuned(Spill, t) {
		p = ir.Unpark(p)
	}
	if tuned(Scheduled, t) {
		p = ir.Schedule(p, latencyOf(t))
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

// tuned returns the setting of m for t: under its name with the element
// suffix (AVX51264) if there is one, else under its name.
func tuned[V int | float64 | bool](m map[string]V, t *ir.Target) V {
	if v, ok := m[t.Name+t.Elem.Suffix()]; ok {
		return v
	}
	return m[t.Name]
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

// body emits one iteration: the kernel body for each lowering of ls, group
// g on the lanes from index + g*t.Lanes, their instruction streams merged
// with the Skew, then the stores of their outputs. Whole groups (mask
// nil) use the streams as memory operands where the instruction allows
// one; a tail group (one lowering) loads every stream under the mask
// first. prefetch > 0 prefetches every input stream that many bytes ahead.
func body(ls []*lowering, k *kernels.Kernel, ptrs []GPPhysical, mask Op, prefetch int, nt bool) {
	t := ls[0].t
	// stream returns the memory operand of stream s (inputs, then
	// outputs) for group g. Pointers not held in registers are loaded into
	// scratch, which the caller must use before the next call.
	stream := func(s, g int) Mem {
		base := scratch
		if s < len(k.Inputs) && s < len(ptrs) {
			base = ptrs[s]
		} else {
			names := append(slices.Clone(k.Inputs), k.Outputs...)
			Load(Param(names[s]), scratch)
		}
		return Mem{Base: base, Index: index, Scale: scale(t), Disp: g * t.VecBytes()}
	}
	if prefetch > 0 {
		Comment("Prefetch the input streams a few groups ahead (a prefetch never faults);")
		Comment("prefetching the outputs too measured slower.")
	}
	if mask != nil {
		Comment("Masked loads: lanes past n read as zero.")
	}
	for g, l := range ls {
		if l.slots != nil {
			l.slots.used = 0
		}
		// load returns input s of group g (at m, its stream): m where its
		// pointer is in a register, else a register loaded now.
		load := func(s int, m Mem) Op {
			switch {
			case mask == nil && s < len(ptrs):
				return m
			case mask == nil:
				r := l.newVec()
				VMOVUPS(m, r)
				return r
			case evex(t):
				r := l.newVec()
				fpOf(t).loadZ(m, mask, r)
				return r
			}
			// The vector mask is all-ones per lane whatever its width,
			// so the 32-bit form serves float64 lanes too.
			r := l.newVec()
			VMASKMOVPS(m, mask, r)
			return r
		}
		// Inputs in registers are loaded now, or where the body reads them
		// when it spills (so that the spiller sees the registers they take).
		lazy := spills(t, l.p) && l.slots != nil
		in := make([]Op, len(k.Inputs))
		for s := range in {
			if lazy && prefetch == 0 {
				continue
			}
			m := stream(s, g)
			if prefetch > 0 {
				pf := m
				pf.Disp += prefetch
				if tuned(PrefetchL2, t) {
					PREFETCHT1(pf)
				} else {
					PREFETCHT0(pf)
				}
			}
			if !lazy {
				in[s] = load(s, m)
			}
		}
		l.input = func(s int) Op { return in[s] }
		if lazy {
			l.input = func(s int) Op { return load(s, stream(s, g)) }
		}
		l.arg = func(int) Mem { panic("batch kernels take no scalar arguments") }
		l.begin()
	}
	store := func(g int) {
		Commentf("Store the results of group %d.", g)
		for j := range k.Outputs {
			v := ls[g].out(j)
			dst := stream(len(k.Inputs)+j, g)
			switch {
			case nt:
				VMOVNTPS(v, dst)
			case mask == nil:
				VMOVUPS(v, dst)
			case evex(t):
				fpOf(t).storeMasked(v, mask, dst)
			default:
				VMASKMOVPS(v, mask, dst)
			}
		}
		storeOverrides(ls[g], mask, func(j int) Mem { return stream(len(k.Inputs)+j, g) })
	}
	merge(ls, tuned(Skew, t), store, newSpiller(ls, heldBy(mask), overrideRegs(ls[0])), nil)
}

// merge emits the programs of the lowerings ls (begun, one per group of
// an iteration) with their instruction streams merged: group g's
// instruction i at time g*skew + i, skew the target's Skew of the
// program's length, so that the next group's independent work sits early
// in the reorder window of the first. done(g) runs as soon as group g's
// last instruction is emitted (its stores), so that its outputs do not
// hold registers while the later groups finish.
//
// A rare block is emitted whole when its group reaches it (the other
// groups' instructions must not sit inside a block that a group may
// branch over); its group then waits until the time it would have
// reached the block's end. sp, if not nil, spills values as registers
// run out (spiller). in, if not nil, is emitted once among the
// instructions (interlude).
func merge(ls []*lowering, skewOf float64, done func(g int), sp *spiller, in *interlude) {
	order := mergeOrder(ls, skewOf)
	if sp != nil {
		sp.start(order)
	}
	n := len(ls[0].p.Code)
	depth := 0 // rare blocks open at position k
	for k, e := range order {
		if in != nil && depth == 0 && k >= int(in.at*float64(len(order))) {
			if sp != nil {
				sp.fit(k, in.regs, 0, nil)
			}
			in.emit()
			in = nil
		}
		switch ls[e.g].p.Code[e.i].Op {
		case ir.OpRare:
			depth++
		case ir.OpEndRare:
			depth--
		}
		if sp != nil {
			sp.before(k, e.g, e.i)
		}
		ls[e.g].step(e.i)
		if e.i == n-1 {
			if sp != nil {
				sp.beforeStores(k, e.g)
			}
			done(e.g)
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

// mergeOrder returns the order in which merge emits the instructions of
// the groups ls.
func mergeOrder(ls []*lowering, skewOf float64) []event {
	var order []event
	n := len(ls[0].p.Code)
	skew := int(skewOf * float64(n))
	next := make([]int, len(ls)) // each group's next instruction
	for time := 0; time < (len(ls)-1)*skew+n; time++ {
		for g, l := range ls {
			for next[g] < n && next[g] <= time-g*skew {
				i, end := next[g], next[g]
				if l.p.Code[i].Op == ir.OpRare {
					end = l.p.BlockEnd(i) // the whole block
				}
				for ; i <= end; i++ {
					order = append(order, event{g, i})
				}
				next[g] = end + 1
			}
		}
	}
	return order
}
