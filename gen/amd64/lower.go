// Package amd64 is the avo backend of the segdist generator: it lowers
// the IR kernel bodies (package kernels) to AVX2 and AVX-512 and emits
// them inside loop drivers (batch.go: streams in and out; contacts.go:
// capsule records loaded by index, rows or compaction).
package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
)

// lowering emits one ir.Program for one group of lanes. Every value lives
// in a virtual register (avo allocates them), a stack slot, a stream
// (memory operand of a whole group), a constant or an argument; each
// operation puts a memory operand where the instruction accepts one and
// loads it into a register elsewhere.
type lowering struct {
	t    *ir.Target
	p    *ir.Program
	loc  []Op // where each value lives
	last []int

	zero, one VecVirtual // kept in registers for the whole kernel
	// pinned are further constants kept in registers for the whole
	// kernel, by name (PinnedConstants); the others are memory operands.
	pinned map[string]VecVirtual
	consts *constants // the data symbols
	input  func(k int) Op
	arg    func(k int) Mem
	slots  *slots
	spill  bool   // the driver unparked p: values spill selectively (spiller)
	label  string // prefix of the rare blocks' labels

	blocks []string // names of the open rare blocks

	// overrides are p's outputs whose constant lanes the driver stores
	// after the outputs (ir.SplitOverrides; storeOverrides).
	overrides []ir.Override
	// badLanes, if not nil, is where the kernel's bad result accumulates
	// (badLanesReg): storeOverrides ORs the overridden lanes into it for
	// the caller to store the constant (DeferOverrides).
	badLanes Op
}

// check panics unless t is a target this backend implements: amd64 with
// 16 vector registers (AVX2) or 32 (AVX-512).
func check(t *ir.Target) {
	if t.Arch != "amd64" || t.ElemBytes != t.Elem.Bytes() || t.VecRegs != 16 && t.VecRegs != 32 {
		panic(fmt.Sprintf("amd64: cannot generate for target %+v", *t))
	}
}

// evex reports whether t is AVX-512 (opmask registers, embedded
// broadcast, 32 vector registers): the one question that separates the
// two amd64 targets' instructions (the width is t.VecBytes).
func evex(t *ir.Target) bool { return t.VecRegs == 32 }

// parked reports whether values parked for why (ir.Builder.Park) live in
// stack slots on t where the loop does not spill (Bodies.Spill): every
// marked value on AVX2, whose 16 registers do not hold the bodies, and
// the rare blocks' values on AVX-512, which keep the common path's
// registers allocated through the blocks.
func parked(t *ir.Target, why ir.Park) bool { return why == ir.RareBlock || !evex(t) }

// forGroup returns a lowering of l's program for group g of an iteration:
// l's constants and registers, and slot share g of l's area.
func (l *lowering) forGroup(g int) *lowering {
	m := *l
	if l.slots != nil {
		s := *l.slots
		s.first = g * s.n
		m.slots = &s
	}
	return &m
}

// fp returns the instructions of the lanes' element type.
func (l *lowering) fp() *fp { return fpOf(l.t) }

func (l *lowering) newVec() VecVirtual { return vecOf(l.t.VecBytes()) }

// vecOf returns a new vector register of n bytes (16, 32 or 64).
func vecOf(n int) VecVirtual { return map[int]func() VecVirtual{16: XMM, 32: YMM, 64: ZMM}[n]() }

func isMem(op Op) bool {
	_, ok := op.(Mem)
	return ok
}

// reg returns v in a register: a memory operand is loaded, a constant or
// argument broadcast.
func (l *lowering) reg(v ir.Value) Op {
	op := l.loc[v]
	in := &l.p.Code[v]
	switch {
	case in.Op == ir.OpArg || in.Op == ir.OpConst && isMem(op):
		r := l.newVec()
		l.fp().broadcast(op.(Mem), r)
		return r
	case isMem(op):
		r := l.newVec()
		VMOVUPS(op, r)
		return r
	}
	return op
}

// mem returns v as an operand for the source that may be memory: a
// register, or a whole group in memory (a stream or a stack slot).
// Constants and arguments are broadcast into a register.
func (l *lowering) mem(v ir.Value) Op {
	if c := l.p.Code[v].Op; c == ir.OpConst || c == ir.OpArg {
		return l.reg(v)
	}
	return l.loc[v]
}

// constMem returns the constant of v as a memory operand (embedded
// broadcast on AVX-512, a 32-byte load on AVX2), or nil if v is not a
// constant held in memory.
func (l *lowering) constMem(v ir.Value) (Mem, bool) {
	if l.p.Code[v].Op != ir.OpConst {
		return Mem{}, false
	}
	m, ok := l.loc[v].(Mem)
	return m, ok
}

// src returns v as the source that may be memory: mem(v), but a constant
// held in memory as it is, which AVX2 reads whole (32 bytes) and AVX-512
// broadcasts (bcstForm).
func (l *lowering) src(v ir.Value) Op {
	if c, ok := l.constMem(v); ok {
		return c
	}
	return l.mem(v)
}

// bcstForm returns bcst, the embedded-broadcast form of op, where src(v)
// is a constant on AVX-512, else op.
func (l *lowering) bcstForm(v ir.Value, op, bcst func(...Op)) func(...Op) {
	if _, ok := l.constMem(v); ok && evex(l.t) {
		return bcst
	}
	return op
}

// commutative returns the sources of a commutative operation with a
// memory operand, if any, in the position that may be memory (Go order:
// first), the other one in a register.
func (l *lowering) commutative(a, b ir.Value) (src1, src2 Op) {
	x, y := l.mem(a), l.mem(b)
	switch {
	case !isMem(x):
		return x, y
	case !isMem(y):
		return y, x
	}
	return l.reg(a), y
}

// VCMPPS predicates (quiet forms).
const (
	cmpEQOQ  = 0x00 // ==, false for NaN
	cmpNEQUQ = 0x04 // !=, true for NaN
	cmpLTOQ  = 0x11
	cmpLEOQ  = 0x12
	cmpNLEUQ = 0x16 // !(x <= y), true for NaN
	cmpNGEUQ = 0x19 // !(x >= y), true for NaN
	cmpGEOQ  = 0x1D // >=, false for NaN
)

var predicates = map[ir.Pred]uint8{ir.EQ: cmpEQOQ, ir.LT: cmpLTOQ, ir.LE: cmpLEOQ, ir.NotGE: cmpNGEUQ, ir.NotLE: cmpNLEUQ}

// beginGroup prepares to lower l's program for a group of an iteration
// one instruction at a time (step, in the order merge gives), its slots
// unused: label prefixes its rare blocks' labels, input(k) is input k
// and arg(k) argument k.
func (l *lowering) beginGroup(label string, input func(k int) Op, arg func(k int) Mem) {
	if l.slots != nil {
		l.slots.used = 0
	}
	l.label, l.input, l.arg = label, input, arg
	l.loc = make([]Op, len(l.p.Code))
	l.last = l.p.LastUse()
}

// step lowers instruction i.
func (l *lowering) step(i int) {
	in := &l.p.Code[i]
	if in.Comment != "" {
		Comment(in.Comment)
	}
	r, ok := rules[in.Op]
	if !ok {
		panic(fmt.Sprintf("amd64: %s has no lowering", in.Op))
	}
	r.lower(l, ir.Value(i), in)
}

// out returns output k of the program in a register.
func (l *lowering) out(k int) Op { return l.reg(l.p.Outputs[k]) }

// dies reports whether v is a register read for the last time by i.
func (l *lowering) dies(v ir.Value, i ir.Value) bool {
	_, ok := l.loc[v].(VecVirtual)
	c := l.p.Code[v].Op
	return ok && l.last[v] == int(i) && c != ir.OpConst && c != ir.OpInput
}

// overrideRegs is the vector registers storeOverrides takes after a
// group's outputs are stored (the constant it broadcasts), for the
// spiller's budget: 1 if l has overrides, else 0.
func overrideRegs(l *lowering) int {
	if len(l.overrides) == 0 || l.badLanes != nil {
		return 0
	}
	return 1
}

// storeOverrides stores, after the outputs of l's group, the constant of
// each of l's overrides under its mask (and under mask, for a tail group)
// at dst(j) for output j, AVX-512 only: a masked store, where a blend would
// take a slot of the vector pipes (docs/levers.md). With l.badLanes
// (DeferOverrides) it ORs the masks into badLanes instead.
func storeOverrides(l *lowering, mask Op, dst func(j int) Mem) {
	if len(l.overrides) == 0 {
		return
	}
	if l.badLanes != nil {
		Comment("Overridden lanes (the canonical NaN of bad lanes): their mask ORed into the",
			"kernel's result, for the caller to store the constant (DeferOverrides).")
		done := map[ir.Value]bool{}
		for _, o := range l.overrides {
			if done[o.Mask] {
				continue
			}
			done[o.Mask] = true
			m := l.underTail(mask, l.reg(o.Mask))
			if !evex(l.t) {
				// The mask's sign bits into the result's slot (scratch
				// is free after the stores).
				VMOVMSKPS(m, scratch.As32())
				ORQ(scratch, l.badLanes) // VMOVMSKPS zeroes the upper bits
				continue
			}
			KORW(m, l.badLanes, l.badLanes)
		}
		return
	}
	Comment("Overridden lanes (the canonical NaN of bad lanes): the constant under the mask.")
	consts := map[ir.Value]Op{} // each constant broadcast once
	for _, o := range l.overrides {
		m := l.underTail(mask, l.reg(o.Mask))
		c, ok := consts[o.Const]
		if !ok {
			c = l.reg(o.Const)
			consts[o.Const] = c
		}
		l.fp().storeMasked(c, m, dst(o.Output))
	}
}

// underTail returns mask m ANDed with a tail group's mask (m itself where
// the group has none).
func (l *lowering) underTail(tail, m Op) Op {
	switch {
	case tail == nil:
		return m
	case evex(l.t):
		k := K()
		KANDW(tail, m, k)
		return k
	}
	v := l.newVec()
	VANDPS(tail, m, v)
	return v
}
