package neon

import (
	"fmt"
	"slices"

	"github.com/segdist/segdist/gen/alloc"
	"github.com/segdist/segdist/gen/ir"
)

// Vector registers: V0-V26 hold values (allocated below); V27-V29 take
// operands that live in memory or are rematerialized (constants, inputs)
// for one instruction; V30 and V31 are the scratch of multi-instruction
// sequences (compare masks).
const (
	numRegs  = 27
	operand0 = 27
	scratch0 = 30
	scratch1 = 31
)

// General registers the lowering uses: the constant table and the base of
// the frame area (slots and staged values), both set by the driver; R17
// takes the "any lane" tests (anyLane).
const (
	constReg = 20 // address of the constant table
	frameReg = 21 // RSP+16: the frame area, 16-byte aligned
	anyReg   = 17
)

// location is where a value lives between instructions.
type location struct {
	reg  int // vector register, or -1
	slot int // frame offset of its spill slot, or -1
}

// source says how the driver supplies an input or argument: a load from
// memory that can be repeated whenever the value is needed again.
type source func(dst int) inst

// lowering assigns registers for one ir.Program and emits its
// instructions. Every value has one home for its whole life: a register
// (from definition to last use), or, once evicted (alloc.Allocator), a
// spill slot (reloaded into an operand register at each use); constants
// and inputs are rematerialized instead of spilled.
type lowering struct {
	p       *ir.Program
	alias   []ir.Value // Park resolves to its argument (NEON parks nothing)
	outputs []bool     // the program's outputs, by value
	a       *alloc.Allocator
	keep    []int // the registers the allocation in progress must leave
	loc     []location
	owner   [numRegs]ir.Value // value in each register, or -1
	input   func(k int) source
	arg     func(k int) source
	consts  *constTable
	out     *writer
	label   string

	slotNext, slotEnd int      // spill slots: frame offsets, from 0
	blockNames        []string // names of the open rare blocks
	maxRegs           int      // most registers in use at once
	spills            int      // values stored to a slot
	pos               int      // the instruction being lowered
}

// body lowers p for one group at label, its inputs from in and its
// arguments from arg, into the frame's spill slots.
func (k *kernel) body(p *ir.Program, label string, in, arg func(int) source) *lowering {
	n := len(p.Code)
	l := &lowering{p: p, alias: make([]ir.Value, n), outputs: make([]bool, n), loc: make([]location, n),
		input: in, arg: arg, consts: k.c, out: k.w, label: label, slotEnd: 16 * k.spills}
	order := make([]ir.Event, n) // one group in p's order
	for i := range p.Code {
		l.alias[i], l.loc[i], order[i].I = ir.Value(i), location{-1, -1}, i
		if p.Code[i].Op == ir.OpPark {
			l.alias[i] = l.alias[p.Code[i].Args[0]]
		}
	}
	for _, o := range p.Outputs {
		l.outputs[l.alias[o]] = true
	}
	for r := range l.owner {
		l.owner[r] = -1
	}
	l.a = alloc.New(p, order, l.alias, numRegs, l)
	for i := range p.Code {
		l.pos = i
		if c := p.Code[i].Comment; c != "" {
			l.out.comment(c)
		}
		l.a.Before(i, ir.Event{I: i})
		l.instr(&p.Code[i])
	}
	return l
}

func (l *lowering) remat(v ir.Value) bool {
	op := l.p.Code[v].Op
	return op == ir.OpConst || op == ir.OpInput || op == ir.OpArg
}

// materialize emits the instruction that loads a rematerializable value.
func (l *lowering) materialize(v ir.Value, dst int) {
	in := &l.p.Code[v]
	switch in.Op {
	case ir.OpConst:
		if in.Bits == 0 {
			l.out.op(movi0(dst))
			return
		}
		l.out.op(ldrqi(dst, constReg, l.consts.of(l.p.Elem, in.Name, in.Bits)))
	case ir.OpInput:
		l.out.op(l.input(in.Aux)(dst))
	case ir.OpArg:
		l.out.op(l.arg(in.Aux)(dst))
	}
}

// Held lists the registers in use (alloc.Registers): rematerialized
// values are cheap to evict, and the registers in keep or reserved stay.
func (l *lowering) Held(int) []alloc.Held {
	var out []alloc.Held
	for r, v := range l.owner {
		switch {
		case v >= 0:
			out = append(out, alloc.Held{V: v, Cheap: l.remat(v), Keep: slices.Contains(l.keep, r)})
		case v != -1:
			out = append(out, alloc.Held{V: v, Keep: true})
		}
	}
	return out
}

// Evict stores h to a slot, or drops it if it is rematerialized.
func (l *lowering) Evict(h alloc.Held) {
	v, r := h.V, l.loc[h.V].reg
	if !l.remat(v) {
		if l.slotNext == l.slotEnd {
			panic(fmt.Sprintf("neon: %s: out of spill slots", l.p.Name))
		}
		l.loc[v].slot = l.slotNext
		l.slotNext += 16
		l.spills++
		l.out.op(strqi(r, frameReg, l.loc[v].slot))
	}
	l.loc[v].reg = -1
	l.owner[r] = -1
}

// Need is 0: alloc makes room as the lowering asks for registers.
func (l *lowering) Need(int, ir.Event) int { return 0 }

// use returns a register holding argument k of the current instruction:
// its own register, or operand register operand0+k loaded from its slot
// or rematerialized.
func (l *lowering) use(v ir.Value, k int) int {
	v = l.alias[v]
	if r := l.loc[v].reg; r >= 0 {
		return r
	}
	if l.remat(v) && l.a.Next(0, v, l.pos+1) < alloc.Never && !l.a.InBlock(0) {
		// Read again later: keep it in a free register while one is free
		// (evicting it later costs nothing: it is rematerialized).
		for r := range numRegs {
			if l.owner[r] == -1 {
				l.materialize(v, r)
				l.owner[r] = v
				l.loc[v].reg = r
				return r
			}
		}
	}
	r := operand0 + k
	if l.loc[v].slot >= 0 {
		l.out.op(ldrqi(r, frameReg, l.loc[v].slot))
	} else if l.remat(v) {
		l.materialize(v, r)
	} else {
		panic(fmt.Sprintf("neon: %s: v%d has no location at %d", l.p.Name, v, l.pos))
	}
	return r
}

// dying reports whether v's register may be reused by the current
// instruction's result: v is in an allocated register and read last here.
func (l *lowering) dying(v ir.Value) bool {
	v = l.alias[v]
	return l.loc[v].reg >= 0 && l.a.Next(0, v, l.pos+1) >= alloc.Never && !l.outputs[v]
}

// free releases the registers of the current instruction's arguments that
// are not read again.
func (l *lowering) free(args []ir.Value) {
	for _, a := range args {
		if a = l.alias[a]; l.dying(a) {
			l.owner[l.loc[a].reg] = -1
			l.loc[a].reg = -1
		}
	}
}

// define makes r the home of the current instruction's value.
func (l *lowering) define(r int) {
	v := ir.Value(l.pos)
	l.owner[r] = v
	l.loc[v] = location{reg: r, slot: -1}
	n := 0
	for _, o := range l.owner {
		if o >= 0 {
			n++
		}
	}
	l.maxRegs = max(l.maxRegs, n)
}

// output returns a register holding output k (after emit).
func (l *lowering) output(k int) int {
	l.pos = len(l.p.Code)
	return l.use(l.p.Outputs[k], 0)
}

// storeOutputs stores outputs 0 to n-1 to the frame slots from offset
// base (after emit).
func (l *lowering) storeOutputs(n, base int) {
	for j := range n {
		l.out.op(strqi(l.output(j), frameReg, base+16*j))
	}
}

// result allocates the register of the current instruction's value after
// freeing its dying arguments (so it may be one of theirs: every sequence
// reads its arguments before it writes the result, unless it names them
// in keep, registers that must survive the allocation). If no register
// is free, alloc.Allocator evicts a value not in keep.
func (l *lowering) result(args []ir.Value, keep ...int) int {
	l.free(args)
	for _, k := range keep {
		if k < numRegs && l.owner[k] < 0 {
			l.owner[k] = -2 // reserved for this instruction
			defer func(k int) { l.owner[k] = -1 }(k)
		}
	}
	l.keep = keep
	l.a.Fit(l.pos, 0, 1, nil)
	for r := range numRegs {
		if l.owner[r] == -1 {
			l.define(r)
			return r
		}
	}
	panic(fmt.Sprintf("neon: %s: no register free at instruction %d", l.p.Name, l.pos))
}

// fp emits a vector instruction for the program's lane type (of).
func (l *lowering) fp(i inst) { l.out.op(of(l.p.Elem, i)) }

// constant returns the offset of the element type's constant c (ir.One,
// ir.MinNormal), as the IR defines it.
func (l *lowering) constant(c ir.Constant) int {
	return l.consts.of(l.p.Elem, c.Name+l.p.Elem.Suffix(), c.Bits[l.p.Elem])
}

// binaryOps and unaryOps are the ops lowered to one instruction, d = x op y or op x.
var binaryOps = map[ir.Op]func(d, n, m int) inst{ir.OpAdd: fadd, ir.OpSub: fsub, ir.OpMul: fmul,
	ir.OpDiv: fdiv, ir.OpAnd: and, ir.OpOr: orr, ir.OpAndNot: bic}
var unaryOps = map[ir.Op]func(d, n int) inst{ir.OpSqrt: fsqrt, ir.OpNeg: fneg, ir.OpAbs: fabs}

func (l *lowering) instr(in *ir.Instr) {
	a := in.Args
	switch in.Op {
	case ir.OpInput, ir.OpArg, ir.OpConst:
		// Rematerialized where used: nothing to do until then.
		l.loc[l.pos] = location{-1, -1}
	case ir.OpPark:
		// NEON parks nothing: the value stays where it is (alias).
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpAnd, ir.OpOr, ir.OpAndNot:
		x, y := l.use(a[0], 0), l.use(a[1], 1)
		l.fp(binaryOps[in.Op](l.result(a), x, y))
	case ir.OpSqrt, ir.OpNeg, ir.OpAbs:
		x := l.use(a[0], 0)
		l.fp(unaryOps[in.Op](l.result(a), x))
	case ir.OpMin, ir.OpMax:
		// Min(x, y) = x < y ? x : y, Max = x > y ? x : y: a compare and a
		// select (ARM's FMIN/FMAX differ from the spec on NaN and -0).
		x, y := l.use(a[0], 0), l.use(a[1], 1)
		gt, lt := x, y // the mask: x > y (Max), y > x (Min)
		if in.Op == ir.OpMin {
			gt, lt = y, x
		}
		l.fp(fcmgt(scratch0, gt, lt))
		l.selectInto(a[0], a[1], x, y, a)
	case ir.OpClamp01:
		// Max(Min(x, 1), 0): lo = 1 > x ? x : 1; lo > 0 ? lo : +0 (an AND).
		x := l.use(a[0], 0)
		l.out.op(ldrqi(scratch1, constReg, l.constant(ir.One)))
		l.fp(fcmgt(scratch0, scratch1, x))
		l.out.op(bsl(scratch0, x, scratch1)) // scratch0 = lo
		d := l.result(a)
		l.fp(fcmgtz(d, scratch0))
		l.out.op(and(d, d, scratch0))
	case ir.OpDivOrZero:
		x, y := l.use(a[0], 0), l.use(a[1], 1)
		l.fp(fcmeqz(scratch0, y))
		d := l.result(a)
		l.fp(fdiv(d, x, y))
		l.out.op(bic(d, d, scratch0))
	case ir.OpRecipOrZero:
		x := l.use(a[0], 0)
		l.out.op(ldrqi(scratch1, constReg, l.constant(ir.MinNormal)))
		l.fp(fcmge(scratch0, x, scratch1)) // x >= 2^-126 (2^-1022), false for NaN
		l.out.op(ldrqi(scratch1, constReg, l.constant(ir.One)))
		d := l.result(a)
		l.fp(fdiv(d, scratch1, x))
		l.out.op(and(d, d, scratch0))
	case ir.OpCmp:
		l.compare(in)
	case ir.OpSelect:
		m, x, y := l.use(a[0], 0), l.use(a[1], 1), l.use(a[2], 2)
		l.out.op(vmov(scratch0, m))
		l.selectInto(a[1], a[2], x, y, a)
	default:
		l.control(in)
	}
}

// compare lowers an OpCmp: a lane mask, all ones where the predicate
// holds: x == y, y > x, y >= x, NOT x >= y, NOT y >= x.
func (l *lowering) compare(in *ir.Instr) {
	a, p := in.Args, ir.Pred(in.Aux)
	x, y := l.use(a[0], 0), l.use(a[1], 1)
	d := l.result(a)
	if p == ir.LT || p == ir.LE || p == ir.NotLE {
		x, y = y, x
	}
	cmp := [...]func(d, n, m int) inst{ir.EQ: fcmeq, ir.LT: fcmgt, ir.LE: fcmge, ir.NotGE: fcmge, ir.NotLE: fcmge}
	l.fp(cmp[p](d, x, y))
	if p == ir.NotGE || p == ir.NotLE {
		l.out.op(not(d, d))
	}
}

// control lowers the variables and the rare blocks.
func (l *lowering) control(in *ir.Instr) {
	a := in.Args
	switch in.Op {
	case ir.OpVar:
		x := l.use(a[0], 0)
		d := l.result(a)
		if d != x {
			l.out.op(vmov(d, x))
		}
	case ir.OpAssign:
		v := l.alias[a[0]]
		x := l.use(a[1], 1)
		switch {
		case l.loc[v].reg >= 0:
			if l.loc[v].reg != x {
				l.out.op(vmov(l.loc[v].reg, x))
			}
		case l.loc[v].slot >= 0:
			l.out.op(strqi(x, frameReg, l.loc[v].slot))
		default:
			panic("neon: assignment to a variable without a home")
		}
		l.free(a[1:])
	case ir.OpRare:
		// Skip the block for a group with no lane of the mask set.
		anyLane(l.out, l.use(a[0], 0), "CBZW", l.label+"_"+in.Name)
		l.free(a)
		l.blockNames = append(l.blockNames, in.Name)
	case ir.OpEndRare:
		name := l.blockNames[len(l.blockNames)-1]
		l.blockNames = l.blockNames[:len(l.blockNames)-1]
		l.out.label(l.label + "_" + name)
	default:
		panic(fmt.Sprintf("neon: %s has no lowering", in.Op))
	}
}

// anyLane branches to label by op: CBZW if no lane of the mask in v is set, CBNZW if one is.
func anyLane(w *writer, v int, op, label string) {
	w.op(umaxv(scratch0, v))
	w.op(fmovws(anyReg, scratch0))
	w.line("%s R%d, %s", op, anyReg, label)
}

// selectInto emits result = mask ? x : y, where the mask is in scratch0
// and x, y are the registers of values vx, vy: into a dying argument's
// register when there is one (BIT/BIF), else into a new register (BSL).
func (l *lowering) selectInto(vx, vy ir.Value, x, y int, args []ir.Value) {
	const mask = scratch0
	switch {
	case l.dying(vy) && y < numRegs:
		l.out.op(bit(y, x, mask)) // y = mask ? x : y
		l.free(args)
		l.define(y)
	case l.dying(vx) && x < numRegs:
		l.out.op(bif(x, y, mask)) // x = mask ? x : y
		l.free(args)
		l.define(x)
	default:
		d := l.result(args, x, y)
		l.out.op(vmov(d, mask))
		l.out.op(bsl(d, x, y))
	}
}
