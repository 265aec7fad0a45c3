package amd64

import (
	"fmt"
	"slices"

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
// budget as merge emits their instructions: it makes room for each
// instruction's registers (its result and the operands it loads) by
// storing the values alloc.Allocator picks to stack slots, where later
// readers take them as a memory operand or by a load. avo then allocates
// the registers, never more than the budget at once.
type spiller struct {
	ls     []*lowering
	a      *alloc.Allocator
	budget int    // vector registers the values may hold
	area   *slots // ls[0]'s slots: the area starts at its first (area.grow: nil where it cannot grow)
	share  int    // the slots of the groups' shares; slot share+j is the area's grown slot j
	taken  []bool // slot k holds a spilled value
	slotOf []map[ir.Value]int

	storeNeed int // registers the driver's stores of a group's outputs take
}

// newSpiller returns the spiller of the lowerings ls (one per group of an
// iteration, their slot shares consecutive) if their target spills their
// program, else nil. held is the vector registers the loop driver holds
// through the iteration besides 0 and 1 (the AVX2 tail mask, the constants
// the record loops pin: lowering.pinned); the driver's stores of a group's
// outputs take storeNeed more; the first slots of each group's share
// beyond spillSlots are the driver's.
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
	s := &spiller{ls: ls, budget: l.t.VecRegs - 2 - held, area: l.slots, share: len(ls) * l.slots.n,
		storeNeed: storeNeed}
	s.taken = make([]bool, s.share)
	if l.slots.grow != nil {
		s.taken = make([]bool, s.share+l.slots.grow.n)
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
	slot := slices.Index(s.taken, false)
	grow := s.area.grow
	if slot < 0 && grow == nil {
		panic(fmt.Sprintf("amd64: %s: a spilling loop needs more than %d slots", s.ls[0].p.Name, len(s.taken)))
	}
	if slot < 0 {
		AllocLocal(s.area.bytes) // the area is the frame's last local: it grows by one slot
		grow.n++
		slot = len(s.taken)
		s.taken = append(s.taken, false)
	}
	s.taken[slot] = true
	s.slotOf[g][v] = slot
	l := s.ls[g]
	m := Mem{Base: s.area.base, Disp: (s.area.first + slot) * s.area.bytes}
	if slot >= s.share {
		m.Disp = (grow.end + slot - s.share) * s.area.bytes
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
	if slices.ContainsFunc(l.p.Outputs, func(o ir.Value) bool { return isMem(l.loc[o]) }) {
		need = 1 // a store loads a spilled output
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
	switch {
	case f == none, f == maskTest && evex(l.t):
		return 0
	case f == intoFirst:
		a = a[1:]
	}
	n, mems := 0, 0
	for j, v := range a {
		c := l.p.Code[v].Op
		_, inReg := l.loc[v].(VecVirtual)
		switch {
		case inReg && (c != ir.OpConst || l.loc[v] == l.zero || l.loc[v] == l.one): // held
		case c == ir.OpConst || c == ir.OpArg || !f.mayBeMem(j):
			n++
		default:
			mems++ // all but one memory operand (oneMem) are loaded
		}
	}
	return n + max(0, mems-1)
}

// mayBeMem reports whether operand j of form f may be a memory operand
// (oneMem: any one of them).
func (f form) mayBeMem(j int) bool {
	return f == oneMem || f == secondMem && j == 1 || f == onlyMem && j == 0
}
