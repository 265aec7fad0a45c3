// Package ir is the small vector language the segdist kernels are written
// in. A kernel body is a Go function that calls a Builder: it reads the
// inputs of one group of lanes, computes with wide values and lane masks,
// and returns its outputs. The Builder records a Program (straight-line
// code plus rare blocks); a backend per instruction set turns the Program
// into assembly: package amd64 through avo for AVX2 and AVX-512, package
// neon as text for arm64. Loop drivers in the backends decide where the
// inputs come from (stream loads, capsule records, lane loads), where the outputs
// go (rows, compaction) and how groups are scheduled; the body says only
// what is computed, in the operation order of the pure-Go spec in package
// fallback, so every target returns the same bits.
//
// The vocabulary is deliberately small: what the kernels use and nothing
// more (add an operation when a kernel needs it, with its meaning stated
// in the spec's terms).
package ir

import "fmt"

// Elem is the element type of a program's float lanes.
type Elem uint8

const (
	F32 Elem = iota // float32 lanes
	F64             // float64 lanes
)

// Bytes is the size of one lane.
func (e Elem) Bytes() int { return 4 << e }

func (e Elem) String() string { return [...]string{"float32", "float64"}[e] }

// Suffix is what kernel names and constant symbols of a float64 program
// add ("64"); float32 names have none.
func (e Elem) Suffix() string { return [...]string{"", "64"}[e] }

// Type is the kind of a value.
type Type uint8

const (
	Float Type = iota // one float per lane (the program's Elem)
	Int               // one integer per lane (int32, or int64 in a float64 program)
	Mask              // one boolean per lane (opmask bit or all-ones lane)
)

func (t Type) String() string { return [...]string{"float", "int", "mask"}[t] }

// Value names the result of one instruction: its index in Program.Code.
type Value int

// Op is an operation of the IR. The float operations are IEEE-754 with
// round to nearest and no fusion: every product rounds before it is added.
type Op uint8

const (
	OpInput       Op = iota // input k of the group (Aux = k), supplied by the loop driver
	OpArg                   // scalar float32 argument Aux, in every lane
	OpConst                 // Bits in every lane (Type Float or Int), named Name
	OpAdd                   // x + y
	OpSub                   // x - y
	OpMul                   // x * y
	OpDiv                   // x / y, a true IEEE division (no reciprocal estimate)
	OpSqrt                  // the correctly rounded square root
	OpNeg                   // x with its sign bit flipped (Go's -x)
	OpAbs                   // x with its sign bit cleared
	OpMin                   // x < y ? x : y (the x86 MINPS rule: y on ties and NaN)
	OpMax                   // x > y ? x : y (MAXPS: y on ties and NaN)
	OpClamp01               // Max(Min(x, 1), 0): -0 becomes +0, NaN becomes 1
	OpDivOrZero             // y != 0 ? x/y : +0 (NaN y divides)
	OpRecipOrZero           // x >= the smallest normal (2^-126, 2^-1022) ? 1/x : +0 (NaN gives +0)
	OpCmp                   // the mask of lanes where x Pred(Aux) y
	OpAnd                   // mask x & y
	OpOr                    // mask x | y
	OpAndNot                // mask x & !y
	OpSelect                // m ? x : y per lane (Args m, x, y)
	OpPark                  // x, kept in a stack slot if the target parks Park(Aux) values
	OpVar                   // a copy of x that Assign may overwrite inside a rare block
	OpAssign                // overwrite variable Args[0] with Args[1] (no value)
	OpRare                  // start of a rare block: only lanes of mask Args[0] need it (no value)
	OpEndRare               // end of the innermost rare block (no value)
)

var opNames = [...]string{"input", "arg", "const", "add", "sub", "mul", "div", "sqrt", "neg", "abs",
	"min", "max", "clamp01", "divOrZero", "recipOrZero", "cmp", "and", "or", "andNot",
	"select", "park", "var", "assign", "rare", "endRare"}

func (o Op) String() string { return opNames[o] }

// Pred is a comparison with Go's semantics for NaN.
type Pred uint8

const (
	EQ    Pred = iota // x == y (false for NaN)
	LT                // x < y (false for NaN)
	LE                // x <= y (false for NaN)
	NotGE             // !(x >= y) (true for NaN)
	NotLE             // !(x <= y) (true for NaN)
)

func (p Pred) String() string { return [...]string{"==", "<", "<=", "!>=", "!<="}[p] }

// Park says why a value lives long, so that a target can keep it in a
// stack slot instead of a register (amd64 parks them where it does not
// spill).
type Park uint8

const (
	// Edges are the projection's edge vectors M0, u, E and 1/|M0|^2:
	// computed first from the inputs, read at every later step.
	Edges Park = iota
	// RareBlock values are computed inside a rare block.
	RareBlock
)

func (p Park) String() string { return [...]string{"edges", "rare-block"}[p] }

// Instr is one instruction of a Program.
type Instr struct {
	Op      Op
	Type    Type // the type of the result
	Args    []Value
	Aux     int    // input or argument index, Pred, Park
	Bits    uint64 // OpConst: the lane's bit pattern (of the program's Elem)
	Name    string // OpConst: a symbol-friendly name; OpRare: the block's label
	Comment string // emitted before the instruction

	rareUntil int // a value computed in a rare block: Code index of its end
}

// HasValue reports whether the instruction defines a value.
func (in *Instr) HasValue() bool {
	return in.Op != OpAssign && in.Op != OpRare && in.Op != OpEndRare
}

// Program is one kernel body for one group of lanes.
type Program struct {
	Name    string
	Elem    Elem // the float lanes' type
	Code    []Instr
	Inputs  int     // number of OpInput streams the driver supplies
	Args    int     // number of scalar arguments
	Outputs []Value // in the order of the kernel's output streams
}

// BlockEnd returns the index of the OpEndRare that closes the rare block
// opened at instruction i.
func (p *Program) BlockEnd(i int) int {
	depth := 0
	for j := i; j < len(p.Code); j++ {
		switch p.Code[j].Op {
		case OpRare:
			depth++
		case OpEndRare:
			depth--
		}
		if depth == 0 {
			return j
		}
	}
	panic(fmt.Sprintf("ir: %s: the rare block at %d is not closed", p.Name, i))
}

// LastUse returns, for every value, the index of the last instruction that
// reads it (as an argument or as an output, len(Code)), or -1. A variable
// used after a rare block is live through it.
func (p *Program) LastUse() []int {
	last := make([]int, len(p.Code))
	for i, in := range p.Code {
		last[i] = -1 // no reader yet: arguments precede their readers
		for _, a := range in.Args {
			last[a] = i
		}
	}
	for _, o := range p.Outputs {
		last[o] = len(p.Code)
	}
	return last
}

// String prints the program, one instruction a line (for tests and -ir).
func (p *Program) String() string {
	s := fmt.Sprintf("program %s (%s): %d inputs, %d args\n", p.Name, p.Elem, p.Inputs, p.Args)
	for i, in := range p.Code {
		if in.Comment != "" {
			s += "\t// " + in.Comment + "\n"
		}
		s += fmt.Sprintf("\tv%d = %s %s", i, in.Type, in.Op)
		switch in.Op {
		case OpInput, OpArg:
			s += fmt.Sprintf(" %d", in.Aux)
		case OpConst:
			s += fmt.Sprintf(" %s=%#x", in.Name, in.Bits)
		case OpCmp:
			s += " " + Pred(in.Aux).String()
		case OpPark:
			s += " " + Park(in.Aux).String()
		case OpRare:
			s += " " + in.Name
		}
		for _, a := range in.Args {
			s += fmt.Sprintf(" v%d", a)
		}
		s += "\n"
	}
	s += fmt.Sprintf("\toutputs %v\n", p.Outputs)
	return s
}
