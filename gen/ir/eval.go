package ir

import (
	"fmt"
	"math"
)

// Eval runs p on one lane with the given inputs and arguments and returns
// its outputs as bit patterns (float32 bits, or the int32 for Int
// outputs). It is the reference meaning of every operation: the gen tests
// compare it with package fallback bit for bit, and backends must agree
// with it. Rare blocks always run (the lane's mask decides what they
// change), as a target that does not skip them would.
func (p *Program) Eval(inputs, args []float32) []uint32 {
	if len(inputs) != p.Inputs || len(args) != p.Args {
		panic(fmt.Sprintf("ir: Eval with %d inputs and %d args, want %d and %d", len(inputs), len(args), p.Inputs, p.Args))
	}
	val := make([]uint32, len(p.Code)) // every value as bits; masks are 0 or ^0
	f := func(v Value) float32 { return math.Float32frombits(val[v]) }
	mask := func(b bool) uint32 {
		if b {
			return ^uint32(0)
		}
		return 0
	}
	for i, in := range p.Code {
		a := in.Args
		var r float32
		isFloat := true
		switch in.Op {
		case OpInput:
			r = inputs[in.Aux]
		case OpArg:
			r = args[in.Aux]
		case OpConst:
			val[i], isFloat = in.Bits, false
		case OpAdd:
			r = f(a[0]) + f(a[1])
		case OpSub:
			r = f(a[0]) - f(a[1])
		case OpMul:
			r = f(a[0]) * f(a[1])
		case OpDiv:
			r = f(a[0]) / f(a[1])
		case OpSqrt:
			r = float32(math.Sqrt(float64(f(a[0]))))
		case OpNeg:
			val[i], isFloat = val[a[0]]^0x80000000, false
		case OpAbs:
			val[i], isFloat = val[a[0]]&0x7FFFFFFF, false
		case OpMin:
			val[i], isFloat = minps(val[a[0]], val[a[1]]), false
		case OpMax:
			val[i], isFloat = maxps(val[a[0]], val[a[1]]), false
		case OpClamp01:
			val[i], isFloat = maxps(minps(val[a[0]], 0x3F800000), 0), false
		case OpDivOrZero:
			if f(a[1]) != 0 {
				r = f(a[0]) / f(a[1])
			}
		case OpRecipOrZero:
			if f(a[0]) >= 0x1p-126 {
				r = 1 / f(a[0])
			}
		case OpCmp:
			x, y := f(a[0]), f(a[1])
			var t bool
			switch Pred(in.Aux) {
			case EQ:
				t = x == y
			case LT:
				t = x < y
			case LE:
				t = x <= y
			case NotGE:
				t = !(x >= y)
			case NotLE:
				t = !(x <= y)
			}
			val[i], isFloat = mask(t), false
		case OpNonZero:
			val[i], isFloat = mask(val[a[0]] != 0), false
		case OpAnd:
			val[i], isFloat = val[a[0]]&val[a[1]], false
		case OpOr:
			val[i], isFloat = val[a[0]]|val[a[1]], false
		case OpAndNot:
			val[i], isFloat = val[a[0]]&^val[a[1]], false
		case OpSelect:
			val[i], isFloat = val[a[2]], false
			if val[a[0]] != 0 {
				val[i] = val[a[1]]
			}
		case OpPark, OpVar:
			val[i], isFloat = val[a[0]], false
		case OpAssign:
			val[a[0]], isFloat = val[a[1]], false
		case OpRare, OpEndRare:
			isFloat = false
		default:
			panic("ir: Eval: unknown op " + in.Op.String())
		}
		if isFloat {
			val[i] = math.Float32bits(r)
		}
	}
	out := make([]uint32, len(p.Outputs))
	for i, o := range p.Outputs {
		out[i] = val[o]
	}
	return out
}

// minps is x86 MINPS on bit patterns: x < y ? x : y, else y (ties, NaN).
func minps(x, y uint32) uint32 {
	if math.Float32frombits(x) < math.Float32frombits(y) {
		return x
	}
	return y
}

// maxps is x86 MAXPS: x > y ? x : y, else y.
func maxps(x, y uint32) uint32 {
	if math.Float32frombits(x) > math.Float32frombits(y) {
		return x
	}
	return y
}
