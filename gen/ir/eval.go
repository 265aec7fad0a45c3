package ir

import (
	"fmt"
	"math"
	"unsafe"
)

// Eval runs a float32 program p on one lane with the given inputs and
// arguments and returns its outputs as bit patterns (float32 bits, or the
// int32 for Int outputs). It is the reference meaning of every operation:
// the gen tests compare it with package fallback bit for bit, and
// backends must agree with it. Rare blocks always run (the lane's mask
// decides what they change), as a target that does not skip them would.
func (p *Program) Eval(inputs, args []float32) []uint32 {
	if p.Elem != F32 {
		panic("ir: Eval of a " + p.Elem.String() + " program")
	}
	out := eval(p, inputs, args)
	bits := make([]uint32, len(out))
	for i, o := range out {
		bits[i] = uint32(o)
	}
	return bits
}

// Eval64 is Eval for a float64 program: outputs as float64 bits.
func (p *Program) Eval64(inputs, args []float64) []uint64 {
	if p.Elem != F64 {
		panic("ir: Eval64 of a " + p.Elem.String() + " program")
	}
	return eval(p, inputs, args)
}

// lane is the float type of one lane.
type lane interface{ float32 | float64 }

// bitsOf and fromBits convert a lane's value to and from its bit pattern.
func bitsOf[F lane](x F) uint64 {
	if unsafe.Sizeof(x) == 4 {
		return uint64(math.Float32bits(float32(x)))
	}
	return math.Float64bits(float64(x))
}

func fromBits[F lane](b uint64) F {
	var z F
	if unsafe.Sizeof(z) == 4 {
		return F(math.Float32frombits(uint32(b)))
	}
	return F(math.Float64frombits(b))
}

func eval[F lane](p *Program, inputs, args []F) []uint64 {
	if len(inputs) != p.Inputs || len(args) != p.Args {
		panic(fmt.Sprintf("ir: Eval with %d inputs and %d args, want %d and %d", len(inputs), len(args), p.Inputs, p.Args))
	}
	val := make([]uint64, len(p.Code)) // every value as bits; masks are 0 or ones
	for i := range p.Code {
		val[i] = evalInstr(&p.Code[i], val, inputs, args)
	}
	return renumbered(p.Outputs, val)
}

// evalInstr returns the bits of in's value, its arguments read from val
// (an Assign writes its variable there instead).
func evalInstr[F lane](in *Instr, val []uint64, inputs, args []F) uint64 {
	a := in.Args
	f := func(k int) F { return fromBits[F](val[a[k]]) }
	width := 8 * uint(unsafe.Sizeof(F(0)))
	sign := uint64(1) << (width - 1)
	switch in.Op {
	case OpInput:
		return bitsOf(inputs[in.Aux])
	case OpArg:
		return bitsOf(args[in.Aux])
	case OpConst:
		return in.Bits
	case OpAdd:
		return bitsOf(f(0) + f(1))
	case OpSub:
		return bitsOf(f(0) - f(1))
	case OpMul:
		return bitsOf(f(0) * f(1))
	case OpDiv:
		return bitsOf(f(0) / f(1))
	case OpSqrt:
		// For float32, the float64 root rounded again is the correctly
		// rounded float32 root (53 >= 2*24+2 bits).
		return bitsOf(F(math.Sqrt(float64(f(0)))))
	case OpDivOrZero:
		if f(1) != 0 {
			return bitsOf(f(0) / f(1))
		}
	case OpRecipOrZero:
		if f(0) >= fromBits[F](MinNormal.Bits[width/64]) {
			return bitsOf(1 / f(0))
		}
	case OpNeg:
		return val[a[0]] ^ sign
	case OpAbs:
		return val[a[0]] &^ sign
	case OpMin:
		return minps[F](val[a[0]], val[a[1]])
	case OpMax:
		return maxps[F](val[a[0]], val[a[1]])
	case OpClamp01:
		return maxps[F](minps[F](val[a[0]], bitsOf(F(1))), 0)
	case OpCmp:
		if holds(Pred(in.Aux), f(0), f(1)) {
			return ^uint64(0) >> (64 - width) // a set mask lane
		}
	case OpAnd:
		return val[a[0]] & val[a[1]]
	case OpOr:
		return val[a[0]] | val[a[1]]
	case OpAndNot:
		return val[a[0]] &^ val[a[1]]
	case OpSelect:
		if val[a[0]] != 0 {
			return val[a[1]]
		}
		return val[a[2]]
	case OpPark, OpVar:
		return val[a[0]]
	case OpAssign:
		val[a[0]] = val[a[1]]
	case OpRare, OpEndRare:
	default:
		panic("ir: Eval: unknown op " + in.Op.String())
	}
	return 0 // +0, a clear mask lane, or no value
}

// minps and maxps are x86 MINPS/MAXPS (and the PD forms) on bit
// patterns: x < y ? x : y, else y (ties, NaN).
func minps[F lane](x, y uint64) uint64 {
	if fromBits[F](x) < fromBits[F](y) {
		return x
	}
	return y
}

func maxps[F lane](x, y uint64) uint64 {
	if fromBits[F](x) > fromBits[F](y) {
		return x
	}
	return y
}

// holds reports whether x pred y.
func holds[F lane](pred Pred, x, y F) bool {
	switch pred {
	case EQ:
		return x == y
	case LT:
		return x < y
	case LE:
		return x <= y
	case NotGE:
		return !(x >= y)
	case NotLE:
		return !(x <= y)
	}
	return false
}
