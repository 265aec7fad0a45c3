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
// budget, as merge emits their instructions: before each instruction,
// while the values in registers plus the registers the instruction
// itself needs (its result and the operands it loads) exceed the budget,
// it stores the value whose next read is farthest away to a stack slot
// (Belady's rule); later readers take it from there, as a memory operand
// or by a load. avo then allocates the registers, which never need more
// than the budget at once. Values stay in registers through their short
// lives and only the long-lived ones that do not fit go to memory, where
// parking stores every value of a class.
type spiller struct {
	ls     []*lowering
	uses   []alloc.Uses // uses[g]: the positions in order reading group g's values; its outputs are read at its last position (the stores)
	budget int          // vector registers the values may hold
	base   GPPhysical
	bytes  int
	first  int    // the first slot of the area (of ls[0])
	share  int    // the slots of the groups' shares; slot share+j is the area's grown slot j
	grow   *grown // the area's growth, or nil where it cannot grow
	taken  []bool // slot k holds a spilled value
	slotOf []map[ir.Value]int

	// blocks[g] are group g's open rare blocks: inside one, only the
	// values it computes may be spilled (alloc.Blocks), and no other
	// group's.
	blocks    []alloc.Blocks
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
	s.blocks = make([]alloc.Blocks, len(ls))
	return s
}

// start takes the iteration's emission order and finds every value's reads.
func (s *spiller) start(order []ir.Event) {
	s.uses = make([]alloc.Uses, len(s.ls))
	last := make([]int, len(s.ls))
	for g, l := range s.ls {
		s.uses[g] = alloc.NewUses(len(l.p.Code))
	}
	for k, e := range order {
		for _, a := range s.ls[e.G].p.Code[e.I].Args {
			s.uses[e.G].Add(a, k)
		}
		last[e.G] = k
	}
	for g, l := range s.ls {
		for _, o := range l.p.Outputs {
			s.uses[g].Add(o, last[g])
		}
	}
}

type liveValue struct {
	g    int
	v    ir.Value
	next int
}

// live returns the values held in vector registers that are read at or
// after position k (0 and 1 are not counted: the budget leaves them
// out), and frees the slots of spilled values read for the last time
// before k.
func (s *spiller) live(k int) []liveValue {
	var out []liveValue
	for g, l := range s.ls {
		for v := range l.loc {
			if l.loc[v] == nil || l.p.Code[v].Op == ir.OpConst {
				continue
			}
			next := s.uses[g].Next(ir.Value(v), k)
			if slot, ok := s.slotOf[g][ir.Value(v)]; ok && next == alloc.Never {
				s.taken[slot] = false
				delete(s.slotOf[g], ir.Value(v))
			}
			if _, ok := l.loc[v].(VecVirtual); ok && next != alloc.Never {
				out = append(out, liveValue{g, ir.Value(v), next})
			}
		}
	}
	return out
}

// fit spills values until the live values and need more registers fit the
// budget at position k; the values of group g in keep (the operands of
// the instruction about to be emitted) stay.
func (s *spiller) fit(k, need, g int, keep []ir.Value) {
	if need == 0 {
		return
	}
	live := s.live(k)
	for len(live)+need > s.budget {
		b := s.blocks[g]
		best := alloc.Furthest(len(live), func(j int) (int, bool) {
			x := live[j]
			stays := x.g == g && slices.Contains(keep, x.v) || b.Open() && (x.g != g || b.Fixed(x.v))
			return x.next, !stays
		})
		if best < 0 {
			panic(fmt.Sprintf("amd64: %s: %d live operands and %d more registers exceed %d", s.ls[0].p.Name, len(live), need, s.budget))
		}
		s.spill(live[best].g, live[best].v)
		live = append(live[:best], live[best+1:]...)
	}
}

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

// before makes room for instruction i of group g, at position k. At the
// start of a rare block it makes room for the values computed in the
// block first (blockPeak), while the values from before may still go.
func (s *spiller) before(k, g, i int) {
	l := s.ls[g]
	in := &l.p.Code[i]
	switch in.Op {
	case ir.OpRare:
		// A block that needs more spills its own values too.
		s.fit(k, max(need(l, in), min(blockPeak(l.p, l.last, i), s.budget-2)), g, in.Args)
		s.blocks[g].Enter(i)
		return
	case ir.OpEndRare:
		s.blocks[g].Leave()
		return
	}
	s.fit(k, need(l, in), g, in.Args)
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
	s.fit(k, max(need, s.storeNeed), g, nil)
}

// need is an upper bound on the vector registers the lowering of in
// takes beyond those holding its operands: its result, the operands it
// loads or broadcasts into a register (a value in memory that no
// instruction form takes as a memory operand there, a constant: forms)
// and its temporaries.
func need(l *lowering, in *ir.Instr) int {
	// loaded: the operand is not in a register (a constant other than 0
	// and 1 counts, mem broadcasts those).
	loaded := func(v ir.Value) bool {
		_, inReg := l.loc[v].(VecVirtual)
		return !inReg || l.p.Code[v].Op == ir.OpConst && l.loc[v] != l.zero && l.loc[v] != l.one
	}
	isConst := func(v ir.Value) bool { return l.p.Code[v].Op == ir.OpConst || l.p.Code[v].Op == ir.OpArg }
	a := in.Args
	n := 0
	switch in.Op {
	case ir.OpInput:
		return 1 // a driver may load it into a register here
	case ir.OpArg, ir.OpConst, ir.OpPark, ir.OpEndRare:
		return 0
	case ir.OpAssign:
		if loaded(a[1]) {
			return 1
		}
		return 0
	case ir.OpRare:
		if !evex(l.t) && loaded(a[0]) {
			return 1 // the AVX2 mask, loaded for VTESTPS
		}
		return 0
	}
	switch forms[in.Op] {
	case oneMem:
		mems := 0
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
	switch {
	case evex(l.t) && in.Type == ir.Mask:
		// an opmask result (cmp, and, or, andNot)
	case !evex(l.t) && (in.Op == ir.OpDivOrZero || in.Op == ir.OpRecipOrZero):
		n += 2 // the mask and the quotient, then the result in one of them
	case in.Op == ir.OpSelect && evex(l.t):
		n += 2 // a zeroed destination and y's register
	default:
		n++
	}
	return n
}
