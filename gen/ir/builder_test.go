package ir

import (
	"math"
	"strings"
	"testing"
)

func panics(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), want) {
			t.Errorf("panic %v, want one containing %q", r, want)
		}
	}()
	f()
}

// The builder rejects bodies that no backend could lower the same way.
func TestBuilderChecks(t *testing.T) {
	b := NewBuilder(F32, "t", 2, 0)
	x, y := b.Input(0), b.Input(1)
	m := b.Cmp(LT, x, y)
	panics(t, "is mask, want float", func() { b.Add(x, m) })
	panics(t, "want mask", func() { b.Select(x, x, y) })
	panics(t, "outside a rare block", func() { b.Assign(b.Var(x), y) })
	panics(t, "input 2 of 2", func() { b.Input(2) })
	var inner Value
	b.Rare("r", m, func() { inner = b.Add(x, y) })
	panics(t, "read after it", func() { b.Mul(inner, x) })
	b.One()
	panics(t, "redefined", func() { b.Const("one", 1) })
}

// Eval gives the IR's operations the spec's meaning, including the x86
// operand rule of Min/Max and the masks of DivOrZero and RecipOrZero.
func TestEvalSemantics(t *testing.T) {
	b := NewBuilder(F32, "t", 2, 0)
	x, y := b.Input(0), b.Input(1)
	v := b.Var(x)
	lt := b.Cmp(LT, x, y)
	b.Rare("r", lt, func() { b.Assign(v, b.Select(lt, y, v)) })
	p := b.Program(b.Min(x, y), b.Max(x, y), b.Clamp01(x), b.DivOrZero(x, y), b.RecipOrZero(y), v,
		b.Select(b.Cmp(NotLE, x, y), b.One(), b.Zero()))
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	f := math.Float32bits
	for _, c := range []struct {
		x, y float32
		want []uint32
	}{
		{1, 2, []uint32{f(1), f(2), f(1), f(0.5), f(0.5), f(2), 0}},
		{negZero, 0, []uint32{f(0), f(0), f(0), 0, 0, f(negZero), 0}},
		{nan, 1e-40, []uint32{f(1e-40), f(1e-40), f(1), f(nan), 0, f(nan), f(1)}},
		{3, negZero, []uint32{f(negZero), f(3), f(1), 0, 0, f(3), f(1)}},
	} {
		got := p.Eval([]float32{c.x, c.y}, nil)
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("x=%v y=%v: output %d = %#x, want %#x", c.x, c.y, i, got[i], c.want[i])
			}
		}
	}
}

// Interleave computes the same outputs per group as the program it merges.
func TestInterleave(t *testing.T) {
	b := NewBuilder(F32, "t", 2, 0)
	x, y := b.Input(0), b.Input(1)
	p := b.Program(b.Clamp01(b.DivOrZero(b.Sub(x, y), b.Add(x, y))), b.Mul(x, y))
	for _, skew := range []float64{0, 0.3, 1} {
		q := Interleave(p, Merge{Groups: 3, Skew: skew})
		in := []float32{1, 2, 3, -4, 0.5, 0}
		got := q.Eval(in, nil)
		for g := range 3 {
			want := p.Eval(in[2*g:2*g+2], nil)
			for j := range want {
				if got[2*g+j] != want[j] {
					t.Errorf("skew %v group %d output %d = %#x, want %#x", skew, g, j, got[2*g+j], want[j])
				}
			}
		}
	}
}

// BlockEnd finds the OpEndRare that closes a block, past nested blocks.
func TestBlockEnd(t *testing.T) {
	b := NewBuilder(F32, "t", 2, 0)
	x, y := b.Input(0), b.Input(1)
	m := b.Cmp(LT, x, y)
	v := b.Var(x)
	b.Rare("outer", m, func() {
		b.Rare("inner", m, func() { b.Assign(v, b.Add(x, y)) })
		b.Assign(v, b.Mul(v, y))
	})
	p := b.Program(v)
	var opens, ends []int
	for i, in := range p.Code {
		switch in.Op {
		case OpRare:
			opens = append(opens, i)
		case OpEndRare:
			ends = append(ends, i)
		}
	}
	if len(opens) != 2 || len(ends) != 2 {
		t.Fatalf("blocks opened at %v, closed at %v: want 2 each", opens, ends)
	}
	if got := p.BlockEnd(opens[0]); got != ends[1] {
		t.Errorf("outer block ends at %d, want %d", got, ends[1])
	}
	if got := p.BlockEnd(opens[1]); got != ends[0] {
		t.Errorf("inner block ends at %d, want %d", got, ends[0])
	}
}

// Schedule moves a rare block as one unit and keeps a variable's readers
// on the side of the block that assigns it where they were: here the
// short chain v + y reads v before the block (the old value) and would
// otherwise sort after it, v * x after it (the new value).
func TestScheduleKeepsVariables(t *testing.T) {
	b := NewBuilder(F32, "t", 2, 0)
	x, y := b.Input(0), b.Input(1)
	v := b.Var(x)
	old := b.Add(v, y)
	lt := b.Cmp(LT, x, y)
	b.Rare("r", lt, func() { b.Assign(v, b.Select(lt, y, v)) })
	long := b.Sqrt(b.Div(b.Sqrt(b.Div(y, x)), x)) // a long chain: first
	p := b.Program(old, b.Mul(v, x), long)
	latency := func(in *Instr) int {
		if in.Op == OpDiv || in.Op == OpSqrt {
			return 20
		}
		return 4
	}
	q := Schedule(p, latency)
	if q.Code[2].Op != OpDiv {
		t.Errorf("Schedule did not put the long chain first: %v", q.Code[2].Op)
	}
	for _, in := range [][2]float32{{1, 2}, {2, 1}, {-3, 5}} {
		got, want := q.Eval(in[:], nil), p.Eval(in[:], nil)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("inputs %v: output %d = %#x scheduled, %#x in order", in, i, got[i], want[i])
			}
		}
	}
}
