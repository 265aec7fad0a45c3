package amd64

import (
	"slices"
	"strings"

	. "github.com/mmcloughlin/avo/build"
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
// memory stream with the arithmetic. Measured on AVX-512 at n = 1M
// (median of 5, ns/pair): none 1.72, 512 B 1.39, 1024 B 1.38, 1536 B
// 1.38; prefetching the output streams as well was slower (1.46). The
// memory-floor kernel does not prefetch: there it only slowed the loop
// (1.10 -> 1.40), and the floor should be the fastest such loop.
var PrefetchBytes = 1024

// prefetchMinLanes is the batch size from which the loops prefetch: about
// 1 MB of input, the L2 cache of this machine kind. Below it the data is
// cache-resident and the prefetches only cost issue slots.
const prefetchMinLanes = 16384

// signature is the Go signature of a batch kernel: one *float32 per input
// then output stream, then n.
func signature(k *kernels.Kernel) string {
	return "func(" + strings.Join(append(slices.Clone(k.Inputs), k.Outputs...), ", ") + " *float32, n int)"
}

// Batch emits kernel k for target t: a rotated loop over whole groups of
// t.Lanes lanes (with prefetching from prefetchMinLanes lanes on if
// prefetch), then one masked group for the n mod t.Lanes lanes left (never
// touching memory past n), then VZEROUPPER.
func Batch(t *ir.Target, k *kernels.Kernel, c *constants, prefetch bool, doc ...string) {
	name := k.Name + t.Name
	p := k.Program()
	nslots := slotsNeeded(t, p)
	frame := NOSPLIT
	if nslots*t.VecBytes() > 512 {
		frame = 0 // beyond what the nosplit stack limit allows
	}
	TEXT(name, frame, signature(k))
	Pragma("noescape")
	Doc(append([]string{name + " " + doc[0]}, doc[1:]...)...)

	l := &lowering{t: t, p: p, consts: c, label: name}
	l.zero, l.one = l.newVec(), l.newVec()
	ptrs := ptrRegs
	if nslots > 0 {
		l.slots = newSlots(slotReg, nslots, t.VecBytes())
	} else {
		ptrs = append(slices.Clone(ptrRegs), slotReg)
	}
	for i := range min(len(k.Inputs), len(ptrs)) {
		Load(Param(k.Inputs[i]), ptrs[i])
	}
	XORQ(index, index)
	Load(Param("n"), remain)
	VXORPS(l.zero, l.zero, l.zero)
	VBROADCASTSS(c.get("one", 0x3F800000), l.one)

	// loop emits a rotated loop over whole groups while at least
	// minRemain lanes remain, then falls through to the next.
	loop := func(label string, minRemain, prefetch int) {
		minRemain = max(minRemain, t.Lanes)
		Commentf("Loop over whole groups while at least %d lanes remain.", minRemain)
		CMPQ(remain, U32(minRemain))
		JB(LabelRef(label + "_end"))
		Label(label)
		group(l, k, ptrs, nil, prefetch)
		ADDQ(U32(t.Lanes), index)
		SUBQ(U32(t.Lanes), remain)
		CMPQ(remain, U32(minRemain))
		JAE(LabelRef(label))
		Label(label + "_end")
	}
	if prefetch && PrefetchBytes > 0 {
		// Big batches stream from memory: prefetch. Batches that fit in
		// the L2 cache do not need it, so the last prefetchMinLanes lanes
		// (already prefetched) and small batches run the loop without.
		l.label = name + "_pf"
		loop(name+"_prefetch", prefetchMinLanes, PrefetchBytes)
	}
	l.label = name + "_whole"
	loop(name+"_loop", 0, 0)

	Label(name + "_tail")
	Comment("The n mod lanes lanes left, under a mask: masked-out lanes are never loaded or stored.")
	TESTQ(remain, remain)
	JZ(LabelRef(name + "_done"))
	l.label = name + "_tailgroup"
	group(l, k, ptrs, tailMask(t, c), 0)

	Label(name + "_done")
	VZEROUPPER()
	RET()
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
	// Lane j is set when j < remain: broadcast remain, compare with 0..7.
	var m, mask VecVirtual = YMM(), YMM()
	VMOVD(remain.As32(), m.AsX())
	VPBROADCASTD(m.AsX(), m)
	VPCMPGTD(c.iota, m, mask)
	return mask
}

// group emits one group: the body on the inputs at lane index, then the
// stores of its outputs. Whole groups (mask nil) use the streams as memory
// operands where the instruction allows one; a tail group loads every
// stream under the mask first. prefetch > 0 prefetches every input stream
// that many bytes ahead.
func group(l *lowering, k *kernels.Kernel, ptrs []GPPhysical, mask Op, prefetch int) {
	t := l.t
	if l.slots != nil {
		l.slots.used = 0
	}
	// stream returns the memory operand of stream s (inputs, then
	// outputs) at the current group. Pointers not held in registers are
	// loaded into scratch, which the caller must use before the next call.
	stream := func(s int) Mem {
		base := scratch
		if s < len(k.Inputs) && s < len(ptrs) {
			base = ptrs[s]
		} else {
			names := append(slices.Clone(k.Inputs), k.Outputs...)
			Load(Param(names[s]), scratch)
		}
		return Mem{Base: base, Index: index, Scale: 4}
	}
	if prefetch > 0 {
		Comment("Prefetch the input streams a few groups ahead (a prefetch never faults);")
		Comment("prefetching the outputs too measured slower.")
	}
	if mask != nil {
		Comment("Masked loads: lanes past n read as zero.")
	}
	in := make([]Op, len(k.Inputs))
	for s := range in {
		m := stream(s)
		if prefetch > 0 {
			pf := m
			pf.Disp += prefetch
			PREFETCHT0(pf)
		}
		switch {
		case mask == nil && s < len(ptrs):
			in[s] = m
		case mask == nil:
			r := l.newVec()
			VMOVUPS(m, r)
			in[s] = r
		case evex(t):
			r := l.newVec()
			VMOVUPS_Z(m, mask, r)
			in[s] = r
		default:
			r := l.newVec()
			VMASKMOVPS(m, mask, r)
			in[s] = r
		}
	}
	l.input = func(s int) Op { return in[s] }
	l.arg = func(int) Mem { panic("batch kernels take no scalar arguments") }
	l.emit()

	Comment("Store the results.")
	for j := range k.Outputs {
		v := l.out(j)
		dst := stream(len(k.Inputs) + j)
		switch {
		case mask == nil:
			VMOVUPS(v, dst)
		case evex(t):
			VMOVUPS(v, mask, dst)
		default:
			VMASKMOVPS(v, mask, dst)
		}
	}
}
