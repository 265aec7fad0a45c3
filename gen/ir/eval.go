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
	var zero F
	width := 8 * uint(unsafe.Sizeof(zero))
	ones := ^uint64(0) >> (64 - width) // a set mask lane
	sign := uint64(1) << (width - 1)
	val := make([]uint64, len(p.Code)) // every value as bits; masks are 0 or ones
	f := func(v Value) F { return fromBits[F](val[v]) }
	mask := func(b bool) uint64 {
		if b {
			return ones
		}
		return 0
	}
	// minps and maxps are x86 MINPS/MAXPS (and the PD forms) on bit
	// patterns: x < y ? x : y, else y (ties, NaN).
	minps := func(x, y uint64) uint64 {
		if fromBits[F](x) < fromBits[F](y) {
			return x
		}
		return y
	}
	maxps := func(x, y uint64) uint64 {
		if fromBits[F](x) > fromBits[F](y) {
			return x
		}
		return y
	}
	minNormal := F(math.Float32frombits(0x00800000))
	if width == 64 {
		minNormal = F(math.Float64frombits(0x0010000000000000))
	}
	for i, in := range p.Code {
		a := in.Args
		var r F
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
			// For float32, the float64 root rounded again is the correctly
			// rounded float32 root (53 >= 2*24+2 bits).
			r = F(math.Sqrt(float64(f(a[0]))))
		case OpNeg:
			val[i], isFloat = val[a[0]]^sign, false
		case OpAbs:
			val[i], isFloat = val[a[0]]&^sign, false
		case OpMin:
			val[i], isFloat = minps(val[a[0]], val[a[1]]), false
		case OpMax:
			val[i], isFloat = maxps(val[a[0]], val[a[1]]), false
		case OpClamp01:
			val[i], isFloat = maxps(minps(val[a[0]], bitsOf(F(1))), 0), false
		case OpDivOrZero:
			if f(a[1]) != 0 {
				r = f(a[0]) / f(a[1])
			}
		case OpRecipOrZero:
			if f(a[0]) >= minNormal {
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
			val[i] = bitsOf(r)
		}
	}
	out := make([]uint64, len(p.Outputs))
	for i, o := range p.Outputs {
		out[i] = val[o]
	}
	return out
}
