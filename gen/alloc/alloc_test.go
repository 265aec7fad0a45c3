package alloc

import (
	"slices"
	"testing"

	"github.com/segdist/segdist/gen/ir"
)

// regs holds the values of one group in registers and records evictions.
type regs struct {
	held    []Held
	evicted []ir.Value
}

func (r *regs) Held(int) []Held        { return slices.Clone(r.held) }
func (r *regs) Need(int, ir.Event) int { return 0 }
func (r *regs) Evict(h Held) {
	r.evicted = append(r.evicted, h.V)
	r.held = slices.DeleteFunc(r.held, func(x Held) bool { return x == h })
}

// program: inputs 0 and 1, then 2 = 0+1 and 3 = 2*0, read in that order.
func program() *ir.Program {
	b := ir.NewBuilder(ir.F32, "t", 2, 0)
	x, y := b.Input(0), b.Input(1)
	s := b.Add(x, y)
	return b.Program(b.Mul(s, x))
}

func order(p *ir.Program) []ir.Event {
	o := make([]ir.Event, len(p.Code))
	for i := range o {
		o[i].I = i
	}
	return o
}

func TestFitEvictsFurthest(t *testing.T) {
	p := program()
	r := &regs{held: []Held{{V: 0}, {V: 1}}}
	a := New(p, order(p), nil, 2, r)
	// Before instruction 2 (x+y), both inputs are read at 2; x again at 3.
	a.Fit(3, 0, 1, nil) // at 3 y is never read again, x at 3
	if !slices.Equal(r.evicted, []ir.Value{1}) {
		t.Fatalf("evicted %v, want [1] (y, read no more)", r.evicted)
	}
}

func TestFitKeepsOperandsAndPrefersCheap(t *testing.T) {
	p := program()
	r := &regs{held: []Held{{V: 0}, {V: 1, Cheap: true}, {V: 2}}}
	a := New(p, order(p), nil, 3, r)
	a.Fit(2, 0, 1, []ir.Value{0}) // x is an operand; y is cheap though read sooner than s
	if !slices.Equal(r.evicted, []ir.Value{1}) {
		t.Fatalf("evicted %v, want [1] (the cheap value)", r.evicted)
	}
}

func TestFitInsideRareBlock(t *testing.T) {
	b := ir.NewBuilder(ir.F32, "t", 2, 0)
	x, y := b.Input(0), b.Input(1)
	v := b.Var(x)
	m := b.Cmp(ir.LT, x, y)
	var w ir.Value
	b.Rare("r", m, func() {
		w = b.Add(x, y)
		b.Assign(v, b.Mul(w, w))
	})
	p := b.Program(b.Add(v, y))
	rare := slices.IndexFunc(p.Code, func(in ir.Instr) bool { return in.Op == ir.OpRare })
	r := &regs{held: []Held{{V: x}, {V: v}, {V: w}, {V: y, Cheap: true}}}
	a := New(p, order(p), nil, 4, r)
	a.Before(rare, ir.Event{I: rare})
	// Inside the block, x and v (from before it) stay; the cheap y and the
	// block's own w may go, y first.
	a.Fit(int(w)+1, 0, 2, nil)
	if !slices.Equal(r.evicted, []ir.Value{y, w}) {
		t.Fatalf("evicted %v, want [%d %d]", r.evicted, y, w)
	}
}
