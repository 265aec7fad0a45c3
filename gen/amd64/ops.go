package amd64

import (
	"fmt"
	"slices"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
)

// bitwise emits op(mask constant, x): with embedded broadcast on AVX-512,
// a 32-byte constant on AVX2.
func (l *lowering) bitwise(op, bcst func(...Op), c Mem, x ir.Value, dst Op) {
	if evex(l.t) {
		bcst(c, l.reg(x), dst)
		return
	}
	op(c, l.reg(x), dst)
}

// divOrZero emits fallback's divOrZero(n, d): a true division, and +0
// where d == 0 (either sign); a NaN d divides.
func (l *lowering) divOrZero(n, d ir.Value, dst VecVirtual) {
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
func (l *lowering) recipOrZero(x ir.Value, dst VecVirtual) {
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

// cmp returns the mask of lanes where x pred y: an opmask register on
// AVX-512, a vector of all-ones lanes on AVX2.
func (l *lowering) cmp(pred uint8, x, y ir.Value) Op {
	var dst Op
	if evex(l.t) {
		dst = K()
	} else {
		dst = l.newVec()
	}
	src1 := l.reg(x)
	f := l.fp()
	if c, ok := l.constMem(y); ok && evex(l.t) {
		f.cmpBcst(U8(pred), c, src1, dst)
	} else if ok {
		f.cmp(U8(pred), c, src1, dst)
	} else {
		f.cmp(U8(pred), l.mem(y), src1, dst)
	}
	return dst
}

// maskOp emits the mask operations And, Or and AndNot.
func (l *lowering) maskOp(v ir.Value, op ir.Op, x, y ir.Value) {
	if evex(l.t) {
		k := K()
		switch op {
		case ir.OpAnd:
			KANDW(l.loc[y], l.loc[x], k)
		case ir.OpOr:
			KORW(l.loc[y], l.loc[x], k)
		case ir.OpAndNot:
			KANDNW(l.loc[x], l.loc[y], k) // ~y & x
		}
		l.loc[v] = k
		return
	}
	r := l.newVec()
	switch f := l.fp(); op {
	case ir.OpAnd:
		f.and(l.mem(y), l.reg(x), r)
	case ir.OpOr:
		f.or(l.mem(y), l.reg(x), r)
	case ir.OpAndNot:
		f.andn(l.mem(x), l.reg(y), r) // ~y & x
	}
	l.loc[v] = r
}

// selectOp emits m ? x : y.
func (l *lowering) selectOp(v, m, x, y ir.Value) {
	yc := &l.p.Code[y]
	if yc.Op == ir.OpConst && yc.Bits == 0 {
		// m ? x : 0: a zeroing masked broadcast (AVX-512) or an AND.
		r := l.newVec()
		l.loc[v] = r
		c, isC := l.constMem(x)
		switch f := l.fp(); {
		case evex(l.t) && isC:
			f.bcstZ(c, l.loc[m], r)
		case evex(l.t):
			f.movaZ(l.reg(x), l.loc[m], r)
		case isC:
			f.and(c, l.reg(m), r)
		default:
			f.and(l.mem(x), l.reg(m), r)
		}
		return
	}
	if evex(l.t) {
		// avo models the masked VBLENDMPS as reading its destination: blend
		// into y where y dies here, else into a register zeroed first (so
		// that it does not look live since the function's entry).
		var r Op
		if l.dies(y, v) {
			r = l.loc[y]
		} else {
			nr := l.newVec()
			VXORPS(nr, nr, nr)
			r = nr
		}
		src1 := l.reg(y)
		if c, ok := l.constMem(x); ok {
			l.fp().blendmBcst(c, src1, l.loc[m], r)
		} else {
			l.fp().blendm(l.mem(x), src1, l.loc[m], r)
		}
		l.loc[v] = r
		return
	}
	r := l.newVec()
	if c, ok := l.constMem(x); ok {
		l.fp().blendv(l.reg(m), c, l.reg(y), r)
	} else {
		l.fp().blendv(l.reg(m), l.mem(x), l.reg(y), r)
	}
	l.loc[v] = r
}

// park returns where a value parked for why lives: a new stack slot if
// the target parks such values and it is in a register, else where it is.
// Opmask registers are never parked.
func (l *lowering) park(why ir.Park, x ir.Value) Op {
	op := l.loc[x]
	if !parked(l.t, why) {
		return op
	}
	r, ok := op.(VecVirtual)
	if !ok {
		return op // already in memory, or an opmask register
	}
	if c := l.p.Code[x].Op; c == ir.OpConst {
		return op
	}
	m := l.slots.next()
	VMOVUPS(r, m)
	return m
}

// variable emits a Var: a copy of x in a register of its own (x itself
// where x is a register that dies here).
func (l *lowering) variable(v ir.Value, x ir.Value) {
	if l.dies(x, v) {
		l.loc[v] = l.loc[x]
		return
	}
	r := l.newVec()
	if m, ok := l.loc[x].(Mem); ok && l.p.Code[x].Op != ir.OpConst {
		VMOVUPS(m, r)
	} else {
		VMOVAPS(l.reg(x), r)
	}
	l.loc[v] = r
}

// assign copies x into the register or stack slot of variable v.
func (l *lowering) assign(v, x ir.Value) {
	dst := l.loc[v]
	if isMem(dst) {
		VMOVUPS(l.reg(x), dst)
		return
	}
	VMOVAPS(l.reg(x), dst)
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

// newSlots reserves n slots of the given size in the frame and points
// base at the first.
func newSlots(base GPPhysical, n, bytes int) *slots {
	area := AllocLocal(n*bytes + 64)
	LEAQ(area, base)
	ADDQ(U8(63), base)
	ANDQ(I8(-64), base)
	return &slots{base: base, bytes: bytes, n: n}
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
