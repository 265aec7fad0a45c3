package amd64

import (
	"fmt"
	"slices"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
)

// rule is how amd64 lowers an IR op and the vector registers that takes:
// one row that both the lowering (step) and the spiller's count (need)
// read.
type rule struct {
	form form // which operands may stay in memory
	// regs is what the result and temporaries take on AVX2 and AVX-512
	// (an AVX-512 mask result takes none: it is an opmask).
	regs  [2]int
	lower func(l *lowering, v ir.Value, in *ir.Instr)
}

// form is how an op takes its operands; need counts a register for each
// operand that the form loads or broadcasts.
type form uint8

const (
	inRegs    form = iota // every operand in a register: loaded, or a constant broadcast
	oneMem                // commutative: one operand may be memory, a constant is broadcast
	secondMem             // the first operand in a register, the second may be memory (Go order)
	onlyMem               // the one operand may be memory
	none                  // no operand is read into a register
	intoFirst             // the first operand is the destination, the second in a register
	maskTest              // a mask loaded into a vector on AVX2, an opmask on AVX-512
)

var vec = [2]int{1, 1} // a result in a new register

// rules are the amd64 rules of the IR's ops.
var rules = map[ir.Op]rule{
	ir.OpInput: {none, vec, func(l *lowering, v ir.Value, in *ir.Instr) { l.loc[v] = l.input(in.Aux) }}, // a driver may load it here
	ir.OpArg:   {none, [2]int{}, func(l *lowering, v ir.Value, in *ir.Instr) { l.loc[v] = l.arg(in.Aux) }},
	ir.OpConst: {none, [2]int{}, (*lowering).constant},
	ir.OpAdd:   arith(oneMem, func(f *fp) func(...Op) { return f.add }),
	ir.OpMul:   arith(oneMem, func(f *fp) func(...Op) { return f.mul }),
	ir.OpSub:   arith(secondMem, func(f *fp) func(...Op) { return f.sub }),
	ir.OpDiv:   arith(secondMem, func(f *fp) func(...Op) { return f.div }),
	ir.OpMin:   arith(secondMem, func(f *fp) func(...Op) { return f.min }), // MINPS returns its first source (Go order: second) when it is less, as the IR's Min does
	ir.OpMax:   arith(secondMem, func(f *fp) func(...Op) { return f.max }),
	ir.OpSqrt:  arith(onlyMem, func(f *fp) func(...Op) { return f.sqrt }),
	ir.OpNeg: {inRegs, vec, func(l *lowering, v ir.Value, in *ir.Instr) {
		l.bitwise(l.fp().xor, l.fp().xorBcst, l.consts.sign[l.p.Elem], in.Args[0], l.fresh(v))
	}},
	ir.OpAbs: {inRegs, vec, func(l *lowering, v ir.Value, in *ir.Instr) {
		l.bitwise(l.fp().and, l.fp().andBcst, l.consts.abs[l.p.Elem], in.Args[0], l.fresh(v))
	}},
	ir.OpClamp01:     {inRegs, vec, (*lowering).clamp01},
	ir.OpDivOrZero:   {inRegs, [2]int{2, 1}, (*lowering).divOrZero}, // AVX2: the mask and the quotient, the result in one of them
	ir.OpRecipOrZero: {inRegs, [2]int{2, 1}, (*lowering).recipOrZero},
	ir.OpCmp:         {inRegs, vec, (*lowering).cmp},
	ir.OpAnd:         {inRegs, vec, (*lowering).maskOp},
	ir.OpOr:          {inRegs, vec, (*lowering).maskOp},
	ir.OpAndNot:      {inRegs, vec, (*lowering).maskOp},
	ir.OpSelect:      {inRegs, [2]int{1, 2}, (*lowering).selectOp}, // AVX-512: a zeroed destination and y's register
	ir.OpPark:        {none, [2]int{}, (*lowering).park},
	ir.OpVar:         {inRegs, vec, (*lowering).variable},
	ir.OpAssign:      {intoFirst, [2]int{}, (*lowering).assign},
	ir.OpRare:        {maskTest, [2]int{}, (*lowering).rareBlock},
	ir.OpEndRare:     {none, [2]int{}, (*lowering).endRare},
}

// arith is the rule of an arithmetic op: the one instruction inst of
// form f, into a new register allocated once the operands are in place.
func arith(f form, inst func(*fp) func(...Op)) rule {
	return rule{f, vec, func(l *lowering, v ir.Value, in *ir.Instr) {
		a, op := in.Args, inst(l.fp())
		switch f {
		case oneMem:
			s1, s2 := l.commutative(a[0], a[1])
			op(s2, s1, l.fresh(v))
		case secondMem:
			op(l.mem(a[1]), l.reg(a[0]), l.fresh(v))
		case onlyMem:
			op(l.mem(a[0]), l.fresh(v))
		}
	}}
}

// fresh returns a new register as the home of v.
func (l *lowering) fresh(v ir.Value) VecVirtual {
	r := l.newVec()
	l.loc[v] = r
	return r
}

// constant places a constant: 0 and 1 in their registers, a pinned
// constant in its own, the others in memory.
func (l *lowering) constant(v ir.Value, in *ir.Instr) {
	switch {
	case in.Bits == 0:
		l.loc[v] = l.zero
	case in.Name == "one"+l.p.Elem.Suffix():
		l.loc[v] = l.one
	case l.pinned[in.Name] != nil:
		l.loc[v] = l.pinned[in.Name]
	default:
		l.loc[v] = l.consts.get(in.Name, in.Bits)
	}
}

// bitwise emits op(mask constant, x): with embedded broadcast on AVX-512,
// a 32-byte constant on AVX2.
func (l *lowering) bitwise(op, bcst func(...Op), c Mem, x ir.Value, dst Op) {
	if evex(l.t) {
		op = bcst
	}
	op(c, l.reg(x), dst)
}

// clamp01 emits Max(Min(x, 1), 0) with x as the first source of
// MINPS/MAXPS: -0 becomes +0, NaN 1.
func (l *lowering) clamp01(v ir.Value, in *ir.Instr) {
	lo := l.newVec()
	l.fp().min(l.one, l.reg(in.Args[0]), lo)
	l.fp().max(l.zero, lo, l.fresh(v))
}

// divOrZero emits fallback's divOrZero(n, d): a true division, and +0
// where d == 0 (either sign); a NaN d divides.
func (l *lowering) divOrZero(v ir.Value, in *ir.Instr) {
	n, d, dst := in.Args[0], in.Args[1], l.fresh(v)
	f := l.fp()
	if evex(l.t) {
		k := K()
		f.cmp(U8(cmpNEQUQ), l.mem(d), l.zero, k) // symmetric: d may be memory
		f.divZ(l.mem(d), l.reg(n), k, dst)
		return
	}
	m, q := l.newVec(), l.newVec()
	f.cmp(U8(cmpNEQUQ), l.mem(d), l.zero, m)
	f.div(l.mem(d), l.reg(n), q)
	f.and(m, q, dst)
}

// recipOrZero emits fallback's recipOrZero(x): 1/x where x is at least
// the smallest normal (2^-126, 2^-1022), +0 elsewhere (NaN included).
func (l *lowering) recipOrZero(v ir.Value, in *ir.Instr) {
	x, dst := in.Args[0], l.fresh(v)
	minNormal := l.consts.of(l.p.Elem, "minnormal")
	f := l.fp()
	if evex(l.t) {
		k := K()
		f.cmpBcst(U8(cmpGEOQ), minNormal, l.reg(x), k)
		f.divZ(l.mem(x), l.one, k, dst)
		return
	}
	m, q := l.newVec(), l.newVec()
	f.cmp(U8(cmpGEOQ), minNormal, l.reg(x), m)
	f.div(l.mem(x), l.one, q)
	f.and(m, q, dst)
}

// cmp emits the mask of lanes where x pred y: an opmask register on
// AVX-512, a vector of all-ones lanes on AVX2.
func (l *lowering) cmp(v ir.Value, in *ir.Instr) {
	x, y := in.Args[0], in.Args[1]
	if evex(l.t) {
		l.loc[v] = K()
	} else {
		l.loc[v] = l.newVec()
	}
	src1 := l.reg(x)
	f := l.fp()
	l.bcstForm(y, f.cmp, f.cmpBcst)(U8(predicates[ir.Pred(in.Aux)]), l.src(y), src1, l.loc[v])
}

// maskOp emits the mask operations And, Or and AndNot.
func (l *lowering) maskOp(v ir.Value, in *ir.Instr) {
	x, y := in.Args[0], in.Args[1]
	if in.Op == ir.OpAndNot {
		// op(y, x) below then negates the original y: KANDNW and VANDNPS
		// negate their first source (Go order: the second).
		x, y = y, x
	}
	if evex(l.t) {
		k := K()
		kop := map[ir.Op]func(_, _, _ Op){ir.OpAnd: KANDW, ir.OpOr: KORW, ir.OpAndNot: KANDNW}[in.Op]
		kop(l.loc[y], l.loc[x], k)
		l.loc[v] = k
		return
	}
	f := l.fp()
	op := map[ir.Op]func(...Op){ir.OpAnd: f.and, ir.OpOr: f.or, ir.OpAndNot: f.andn}[in.Op]
	r := l.fresh(v)
	op(l.mem(y), l.reg(x), r)
}

// selectOp emits m ? x : y.
func (l *lowering) selectOp(v ir.Value, in *ir.Instr) {
	m, x, y := in.Args[0], in.Args[1], in.Args[2]
	f := l.fp()
	if yc := &l.p.Code[y]; yc.Op == ir.OpConst && yc.Bits == 0 {
		// m ? x : 0: a zeroing masked broadcast or copy (AVX-512) or an AND.
		r := l.fresh(v)
		switch c, isC := l.constMem(x); {
		case evex(l.t) && isC:
			f.bcstZ(c, l.loc[m], r)
		case evex(l.t):
			f.movaZ(l.reg(x), l.loc[m], r)
		default:
			f.and(l.src(x), l.reg(m), r)
		}
		return
	}
	if !evex(l.t) {
		r := l.fresh(v)
		f.blendv(l.reg(m), l.src(x), l.reg(y), r)
		return
	}
	// avo models the masked VBLENDMPS as reading its destination: blend
	// into y where y dies here, else into a register zeroed first (so
	// that it does not look live since the function's entry).
	r := l.loc[y]
	if !l.dies(y, v) {
		r = l.newVec()
		VXORPS(r, r, r)
	}
	src1 := l.reg(y)
	l.bcstForm(x, f.blendm, f.blendmBcst)(l.src(x), src1, l.loc[m], r)
	l.loc[v] = r
}

// park places a value parked for why: in a new stack slot if the target
// parks such values and it is in a register, else where it is (memory, or
// an opmask register, which is never parked).
func (l *lowering) park(v ir.Value, in *ir.Instr) {
	x := in.Args[0]
	l.loc[v] = l.loc[x]
	if r, ok := l.loc[x].(VecVirtual); ok && parked(l.t, ir.Park(in.Aux)) && l.p.Code[x].Op != ir.OpConst {
		l.loc[v] = l.slots.next()
		VMOVUPS(r, l.loc[v])
	}
}

// variable emits a Var: a copy of x in a register of its own (x itself
// where x is a register that dies here).
func (l *lowering) variable(v ir.Value, in *ir.Instr) {
	x := in.Args[0]
	if l.dies(x, v) {
		l.loc[v] = l.loc[x]
		return
	}
	r := l.fresh(v)
	move(l.mem(x), r)
}

// assign copies x into the register or stack slot of variable v.
func (l *lowering) assign(_ ir.Value, in *ir.Instr) { move(l.reg(in.Args[1]), l.loc[in.Args[0]]) }

// move copies a vector from src to dst: VMOVUPS where either is in memory
// (a stack slot or a stream), VMOVAPS between registers.
func move(src, dst Op) {
	if isMem(src) || isMem(dst) {
		VMOVUPS(src, dst)
	} else {
		VMOVAPS(src, dst)
	}
}

// rareBlock opens a rare block: a jump past it where no lane of its mask
// is set.
func (l *lowering) rareBlock(_ ir.Value, in *ir.Instr) {
	m := l.loc[in.Args[0]]
	if evex(l.t) {
		KORTESTW(m, m)
	} else {
		m = l.reg(in.Args[0])
		l.fp().test(m, m)
	}
	JZ(LabelRef(l.label + "_" + in.Name))
	l.blocks = append(l.blocks, in.Name)
}

// endRare closes the innermost rare block.
func (l *lowering) endRare(ir.Value, *ir.Instr) {
	name := l.blocks[len(l.blocks)-1]
	l.blocks = l.blocks[:len(l.blocks)-1]
	Label(l.label + "_" + name)
}

// slots are vector-sized stack slots in a 64-byte-aligned frame area.
// Aligned slots matter: a parked vector that straddles two cache lines
// cannot be store-forwarded to the load that reads it back, and such
// stalls can make a kernel several times slower.
type slots struct {
	base  GPPhysical
	bytes int // per slot
	first int // the first slot of this group's share of the area
	n     int // slots in the share
	used  int // slots taken by the current group
	grow  *grown
}

// grown is how far a slot area that ends the frame has grown: the
// spiller adds a slot when the groups' shares are full, so that a loop's
// SpillSlots is a frame size to start from, not a limit.
type grown struct {
	end int // the slots of the area before it grew
	n   int // the slots added
}

// newSlots reserves total slots of the given size in the frame, points
// base at the first, and gives each group a share of perGroup slots.
func newSlots(base GPPhysical, total, perGroup, bytes int) *slots {
	area := AllocLocal(total*bytes + 64)
	LEAQ(area, base)
	ADDQ(U8(63), base)
	ANDQ(I8(-64), base)
	return &slots{base: base, bytes: bytes, n: perGroup}
}

// next returns a fresh slot of the current group.
func (s *slots) next() Mem {
	if s == nil {
		panic("amd64: a value is parked but the kernel has no slots")
	}
	if s.used == s.n {
		panic(fmt.Sprintf("amd64: more than %d slots", s.n))
	}
	m := Mem{Base: s.base, Disp: (s.first + s.used) * s.bytes}
	s.used++
	return m
}

// slotsNeeded is an upper bound on the slots program p takes per group
// on target t: its parked values, or the spiller's area if the loop
// spills (its driver unparked p). A body that never holds more than a
// quarter of the registers (the memory floor) gets no area and is not
// spilled (TestGeneratedFunctions checks that its groups fit).
func slotsNeeded(t *ir.Target, p *ir.Program, spill bool) int {
	if spill {
		if maxLive(p) <= t.VecRegs/4 {
			return 0
		}
		return spillSlots
	}
	n := 0
	for _, in := range p.Code {
		if in.Op == ir.OpPark && parked(t, ir.Park(in.Aux)) {
			n++
		}
	}
	return n
}

// maxLive is the most values p computes (not its inputs and constants)
// live at once in its order.
func maxLive(p *ir.Program) int {
	last := p.LastUse()
	most, live := 0, 0
	computed := func(v int) bool {
		c := p.Code[v].Op
		return c != ir.OpInput && c != ir.OpConst && c != ir.OpArg
	}
	for i, in := range p.Code {
		if last[i] > i && computed(i) {
			live++
		}
		most = max(most, live)
		for j, a := range in.Args {
			if computed(int(a)) && last[a] == i && !slices.Contains(in.Args[:j], a) {
				live--
			}
		}
	}
	return most
}
