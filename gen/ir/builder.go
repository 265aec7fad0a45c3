package ir

import (
	"fmt"
	"math"
)

// Builder records a Program. Its methods are the vocabulary kernel bodies
// are written in; each checks the types of its arguments, so a body that
// mixes masks and floats fails when the generator runs, not in assembly.
type Builder struct {
	p       Program
	comment string
	rare    int // open rare blocks
	consts  map[string]Value
}

// NewBuilder starts the program of a kernel body whose float lanes are
// elem, with the given numbers of inputs and scalar arguments.
func NewBuilder(elem Elem, name string, inputs, args int) *Builder {
	return &Builder{p: Program{Name: name, Elem: elem, Inputs: inputs, Args: args}, consts: map[string]Value{}}
}

// Program returns the recorded program with the given outputs.
func (b *Builder) Program(outputs ...Value) *Program {
	if b.rare != 0 {
		panic("ir: rare block not closed")
	}
	for _, o := range outputs {
		b.typ(o)
	}
	p := b.p
	p.Outputs = outputs
	return &p
}

// Comment attaches a comment to the next instruction (the step of the
// algorithm it starts).
func (b *Builder) Comment(format string, args ...any) {
	if b.comment != "" {
		b.comment += " "
	}
	b.comment += fmt.Sprintf(format, args...)
}

func (b *Builder) emit(in Instr) Value {
	for _, a := range in.Args {
		if u := b.p.Code[a].rareUntil; u != 0 && len(b.p.Code) >= u {
			panic(fmt.Sprintf("ir: v%d, computed in a rare block, read after it", a))
		}
	}
	in.Comment, b.comment = b.comment, ""
	b.p.Code = append(b.p.Code, in)
	return Value(len(b.p.Code) - 1)
}

func (b *Builder) typ(v Value) Type {
	if v < 0 || int(v) >= len(b.p.Code) || !b.p.Code[v].HasValue() {
		panic(fmt.Sprintf("ir: v%d is not a value", v))
	}
	return b.p.Code[v].Type
}

func (b *Builder) want(t Type, vs ...Value) {
	for _, v := range vs {
		if got := b.typ(v); got != t {
			panic(fmt.Sprintf("ir: v%d is %s, want %s", v, got, t))
		}
	}
}

// op emits op on arguments of type t, its result of type t.
func (b *Builder) op(op Op, t Type, args ...Value) Value {
	b.want(t, args...)
	return b.emit(Instr{Op: op, Type: t, Args: args})
}

// Input returns input k of the group (a stream of the kernel's layout).
func (b *Builder) Input(k int) Value { return b.indexed(OpInput, k, b.p.Inputs) }

// Arg returns scalar argument k in every lane.
func (b *Builder) Arg(k int) Value { return b.indexed(OpArg, k, b.p.Args) }

// indexed emits op, the float of index k of n.
func (b *Builder) indexed(op Op, k, n int) Value {
	if k < 0 || k >= n {
		panic(fmt.Sprintf("ir: %s %d of %d", op, k, n))
	}
	return b.emit(Instr{Op: op, Type: Float, Aux: k})
}

// Const returns the float32 with the given bits in every lane (in a
// float64 program, that float32's value). name is used for the data
// symbol on targets that load constants from memory (with Elem.Suffix).
// Each name is recorded once per program.
func (b *Builder) Const(name string, bits uint32) Value {
	f64 := math.Float64bits(float64(math.Float32frombits(bits)))
	return b.Constant(Constant{name, [2]uint64{uint64(bits), f64}})
}

// Constant is a named float constant, its bits in each element type
// (Bits[F32] as a float32, Bits[F64] as a float64): the backends name its
// data Name plus Elem.Suffix.
type Constant struct {
	Name string
	Bits [2]uint64
}

// The constants the IR's operations are defined with: a backend's
// lowering loads One (Clamp01, RecipOrZero) and MinNormal (RecipOrZero)
// besides the constants a program names.
var (
	One          = Constant{"one", [2]uint64{0x3F800000, 0x3FF0000000000000}}
	MaxFinite    = Constant{"maxfinite", [2]uint64{0x7F7FFFFF, 0x7FEFFFFFFFFFFFFF}}
	CanonicalNaN = Constant{"canonicalnan", [2]uint64{0x7FC00000, 0x7FF8000000000000}} // what every kernel writes for non-finite lanes
	MinNormal    = Constant{"minnormal", [2]uint64{0x00800000, 0x0010000000000000}}    // 2^-126, 2^-1022: the threshold of RecipOrZero
)

// Constant returns c in every lane.
func (b *Builder) Constant(c Constant) Value { return b.constant(c.Name, c.Bits[b.p.Elem], Float) }

// ConstInt returns the integer x in every lane. Int lanes are as wide as
// the program's float lanes: int32 in a float32 program, int64 in a
// float64 one (the drivers narrow them to the uint32 streams they fill).
func (b *Builder) ConstInt(name string, x int32) Value {
	return b.constant(name, [2]uint64{uint64(uint32(x)), uint64(int64(x))}[b.p.Elem], Int)
}

func (b *Builder) constant(name string, bits uint64, t Type) Value {
	name += b.p.Elem.Suffix()
	if v, ok := b.consts[name]; ok {
		if in := b.p.Code[v]; in.Bits != bits || in.Type != t {
			panic("ir: constant " + name + " redefined")
		}
		return v
	}
	v := b.emit(Instr{Op: OpConst, Type: t, Bits: bits, Name: name})
	b.consts[name] = v
	return v
}

// Zero is +0 in every lane.
func (b *Builder) Zero() Value { return b.Const("zero", 0) }

// One is 1.0 in every lane.
func (b *Builder) One() Value { return b.Constant(One) }

// Add returns x + y.
func (b *Builder) Add(x, y Value) Value { return b.op(OpAdd, Float, x, y) }

// Sub returns x - y.
func (b *Builder) Sub(x, y Value) Value { return b.op(OpSub, Float, x, y) }

// Mul returns x * y.
func (b *Builder) Mul(x, y Value) Value { return b.op(OpMul, Float, x, y) }

// Div returns x / y.
func (b *Builder) Div(x, y Value) Value { return b.op(OpDiv, Float, x, y) }

// Sqrt returns the square root of x.
func (b *Builder) Sqrt(x Value) Value { return b.op(OpSqrt, Float, x) }

// Neg returns -x (sign bit flipped).
func (b *Builder) Neg(x Value) Value { return b.op(OpNeg, Float, x) }

// Abs returns |x| (sign bit cleared).
func (b *Builder) Abs(x Value) Value { return b.op(OpAbs, Float, x) }

// Min returns x < y ? x : y (fallback's minps).
func (b *Builder) Min(x, y Value) Value { return b.op(OpMin, Float, x, y) }

// Max returns x > y ? x : y (fallback's maxps).
func (b *Builder) Max(x, y Value) Value { return b.op(OpMax, Float, x, y) }

// Clamp01 returns fallback's clamp01(x) = Max(Min(x, 1), 0).
func (b *Builder) Clamp01(x Value) Value { return b.op(OpClamp01, Float, x) }

// DivOrZero returns fallback's divOrZero(x, y): x/y, or +0 where y == 0.
func (b *Builder) DivOrZero(x, y Value) Value { return b.op(OpDivOrZero, Float, x, y) }

// RecipOrZero returns fallback's recipOrZero(x): 1/x, or +0 where x is
// below 2^-126 (or NaN).
func (b *Builder) RecipOrZero(x Value) Value { return b.op(OpRecipOrZero, Float, x) }

// Cmp returns the mask of lanes where x p y.
func (b *Builder) Cmp(p Pred, x, y Value) Value {
	b.want(Float, x, y)
	return b.emit(Instr{Op: OpCmp, Type: Mask, Args: []Value{x, y}, Aux: int(p)})
}

// And returns the mask x & y.
func (b *Builder) And(x, y Value) Value { return b.op(OpAnd, Mask, x, y) }

// Or returns the mask x | y.
func (b *Builder) Or(x, y Value) Value { return b.op(OpOr, Mask, x, y) }

// AndNot returns the mask x & !y.
func (b *Builder) AndNot(x, y Value) Value { return b.op(OpAndNot, Mask, x, y) }

// Select returns m ? x : y per lane (x and y both float or both int).
func (b *Builder) Select(m, x, y Value) Value {
	b.want(Mask, m)
	t := b.typ(x)
	b.want(t, y)
	return b.emit(Instr{Op: OpSelect, Type: t, Args: []Value{m, x, y}})
}

// Park returns x, marked as living long for the reason why: a target
// that parks such values keeps x in a stack slot and reads it from there.
func (b *Builder) Park(why Park, x Value) Value {
	return b.emit(Instr{Op: OpPark, Type: b.typ(x), Args: []Value{x}, Aux: int(why)})
}

// Var returns a copy of x that Assign may overwrite inside a rare block.
func (b *Builder) Var(x Value) Value { return b.op(OpVar, b.typ(x), x) }

// Assign overwrites the variable v with x. Outside a rare block values are
// never reassigned: compute a new one instead.
func (b *Builder) Assign(v, x Value) {
	if b.rare == 0 {
		panic("ir: Assign outside a rare block")
	}
	if b.p.Code[v].Op != OpVar {
		panic(fmt.Sprintf("ir: v%d is not a Var", v))
	}
	b.want(b.typ(v), x)
	b.emit(Instr{Op: OpAssign, Args: []Value{v, x}})
}

// Rare records f as a rare block: its results matter only in the lanes of
// m, and a target may skip it for a group where no lane of m is set, so f
// must leave every other lane as it was (assign through Select with m). Inside
// f, values from before the block may be read and Vars assigned; values
// computed inside must not be used after it. label names the block in the
// generated code.
func (b *Builder) Rare(label string, m Value, f func()) {
	b.want(Mask, m)
	b.emit(Instr{Op: OpRare, Args: []Value{m}, Name: label})
	start := len(b.p.Code)
	b.rare++
	f()
	b.rare--
	b.emit(Instr{Op: OpEndRare})
	end := len(b.p.Code)
	for v := start; v < end; v++ { // emit panics where one is read after the block
		b.p.Code[v].rareUntil = end
	}
}
