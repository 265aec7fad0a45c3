package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/alloc"
	"github.com/segdist/segdist/gen/ir"
)

// spillSlots is the number of stack slots per group a spilling loop may
// hold at once (the generator panics if it needs more).
const spillSlots = 32

// spiller keeps the vector registers an iteration's values hold within a
// budget, as merge emits their instructions: the registers an
// instruction needs (its result and the operands it loads) are made room
// for by storing to stack slots the values alloc.Allocator picks; later
// readers take them from there, as a memory operand or by a load. avo
// then allocates the registers, which never need more than the budget at
// once.
type spiller struct {
	ls     []*lowering
	a      *alloc.Allocator
	budget int // vector registers the values may hold
	base   GPPhysical
	bytes  int
	first  int    // the first slot of the area (of ls[0])
	share  int    // the slots of the groups' shares; slot share+j is the area's grown slot j
	grow   *grown // the area's growth, or nil where it cannot grow
	taken  []bool // slot k holds a spilled value
	slotOf []map[ir.Value]int

	storeNeed int // registers the driver's stores of a group's outputs take
}

// newSpiller returns the spiller of the lowerings ls (one per group of an
// iteration, their slot shares consecutive) if their target spills their
// program, else nil. held is the vector registers the loop driver holds
// through the iteration besides 0 and 1 (the AVX2 tail mask, the
// constants the record loops pin: lowering.pinned); the
// driver's stores of a group's outputs take storeNeed more; the first
// slots of each group's share beyond spillSlots are the driver's.
func newSpiller(ls []*lowering, held, storeNeed int) *spiller {
	l := ls[0]
	if !l.spill || l.slots == nil {
		return nil // parks, or fits without spilling (slotsNeeded)
	}
	for g, m := range ls {
		if m.slots == nil || m.slots.n != l.slots.n || m.slots.first != l.slots.first+g*l.slots.n {
			panic("amd64: a spilling loop's groups need consecutive slot shares")
		}
	}
	s := &spiller{ls: ls, budget: l.t.VecRegs - 2 - held, base: l.slots.base, bytes: l.slots.bytes,
		first: l.slots.first, share: len(ls) * l.slots.n, grow: l.slots.grow, storeNeed: storeNeed}
	s.taken = make([]bool, s.share)
	if s.grow != nil {
		s.taken = make([]bool, s.share+s.grow.n)
	}
	for g := range ls {
		s.slotOf = append(s.slotOf, map[ir.Value]int{})
		for j := range l.slots.n - spillSlots {
			s.taken[g*l.slots.n+j] = true
		}
	}
	return s
}

// start takes the iteration's emission order.
func (s *spiller) start(order []ir.Event) {
	s.a = alloc.New(s.ls[0].p, order, nil, s.budget, s)
}

// Held returns the values held in vector registers that are read at or
// after position k (0 and 1 are not counted: the budget leaves them
// out), and frees the slots of spilled values read for the last time
// before k.
func (s *spiller) Held(k int) []alloc.Held {
	var out []alloc.Held
	for g, l := range s.ls {
		for v := range l.loc {
			if l.loc[v] == nil || l.p.Code[v].Op == ir.OpConst {
				continue
			}
			next := s.a.Next(g, ir.Value(v), k)
			if slot, ok := s.slotOf[g][ir.Value(v)]; ok && next == alloc.Never {
				s.taken[slot] = false
				delete(s.slotOf[g], ir.Value(v))
			}
			if _, ok := l.loc[v].(VecVirtual); ok && next != alloc.Never {
				out = append(out, alloc.Held{G: g, V: ir.Value(v)})
			}
		}
	}
	return out
}

// Evict spills h.
func (s *spiller) Evict(h alloc.Held) { s.spill(h.G, h.V) }

// spill stores value v of group g to a free slot, where it lives from now on.
func (s *spiller) spill(g int, v ir.Value) {
	slot := -1
	for j, t := range s.taken {
		if !t {
			slot = j
			break
		}
	}
	if slot < 0 && s.grow == nil {
		panic(fmt.Sprintf("amd64: %s: a spilling loop needs more than %d slots", s.ls[0].p.Name, len(s.taken)))
	}
	if slot < 0 {
		AllocLocal(s.bytes) // the area is the frame's last local: it grows by one slot
		s.grow.n++
		slot = len(s.taken)
		s.taken = append(s.taken, false)
	}
	s.taken[slot] = true
	s.slotOf[g][v] = slot
	l := s.ls[g]
	m := Mem{Base: s.base, Disp: (s.first + slot) * s.bytes}
	if slot >= s.share {
		m.Disp = (s.grow.end + slot - s.share) * s.bytes
	}
	VMOVUPS(l.loc[v], m)
	l.loc[v] = m
}

// heldBy is the vector registers a loop's tail mask holds through the
// body: 1 for the AVX2 vector mask, 0 for none or an opmask.
func heldBy(mask Op) int {
	if _, ok := mask.(VecVirtual); ok {
		return 1
	}
	return 0
}

// Need is need(e) at position k; at the start of a rare block, it makes
// room for the values computed in the block too (blockPeak), while the
// values from before may still go.
func (s *spiller) Need(k int, e ir.Event) int {
	l := s.ls[e.G]
	in := &l.p.Code[e.I]
	if in.Op == ir.OpRare {
		return max(need(l, in), min(blockPeak(l.p, l.last, e.I), s.budget-2))
	}
	return need(l, in)
}

// blockPeak estimates the registers the values computed in the rare block
// starting at instruction i take at once, plus an instruction's
// temporaries (last: the program's LastUse).
func blockPeak(p *ir.Program, last []int, i int) int {
	peak, end := 0, p.BlockEnd(i)
	for j := i + 1; j < end; j++ {
		n := 0
		for v := i + 1; v < j; v++ {
			if p.Code[v].HasValue() && p.Code[v].Op != ir.OpConst && last[v] >= j {
				n++
			}
		}
		peak = max(peak, n)
	}
	return peak + 3
}

// beforeStores makes room for loading group g's spilled outputs before
// their stores, at position k. The outputs may go to slots themselves (a
// short body ends with most of them in registers): a store loads a
// spilled output.
func (s *spiller) beforeStores(k, g int) {
	l := s.ls[g]
	need := 0
	for _, o := range l.p.Outputs {
		if isMem(l.loc[o]) {
			need = 1 // a store loads a spilled output
		}
	}
	s.a.Fit(k, g, max(need, s.storeNeed), nil)
}

// need is an upper bound on the vector registers the lowering of in
// takes beyond those holding its operands (its rule): the operands it
// loads or broadcasts into a register, its result and its temporaries.
func need(l *lowering, in *ir.Instr) int {
	r := rules[in.Op]
	n := r.form.loads(l, in.Args)
	switch {
	case !evex(l.t):
		return n + r.regs[0]
	case in.Type == ir.Mask:
		return n // an opmask result
	}
	return n + r.regs[1]
}

// loads is how many of operands a that form f loads or broadcasts into a
// register: a value not in a register that no memory operand takes, or
// a constant other than 0 and 1 (held in registers).
func (f form) loads(l *lowering, a []ir.Value) int {
	loaded := func(v ir.Value) bool {
		_, inReg := l.loc[v].(VecVirtual)
		return !inReg || l.p.Code[v].Op == ir.OpConst && l.loc[v] != l.zero && l.loc[v] != l.one
	}
	isConst := func(v ir.Value) bool { return l.p.Code[v].Op == ir.OpConst || l.p.Code[v].Op == ir.OpArg }
	n, mems := 0, 0
	switch f {
	case none:
	case maskTest:
		if !evex(l.t) {
			return inRegs.loads(l, a)
		}
	case intoFirst:
		return inRegs.loads(l, a[1:])
	case oneMem:
		for _, v := range a {
			switch {
			case isConst(v) && loaded(v):
				n++
			case loaded(v):
				mems++
			}
		}
		n += max(0, mems-1)
	case secondMem:
		if loaded(a[0]) {
			n++
		}
		if isConst(a[1]) && loaded(a[1]) {
			n++
		}
	case onlyMem:
		if isConst(a[0]) && loaded(a[0]) {
			n++
		}
	default:
		for _, v := range a {
			if loaded(v) {
				n++
			}
		}
	}
	return n
}
