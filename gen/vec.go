package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// isa describes one vector instruction set the kernels are generated for.
// Everything that differs between the AVX2 and the AVX-512 kernels is here;
// the kernel bodies are written once against the wide-float helpers below.
type isa struct {
	name  string // "avx2" or "avx512", the suffix of the Go function names
	lanes int    // float32 lanes per vector register
	bytes int    // bytes per vector register

	// newVec returns a fresh virtual vector register of the ISA's width.
	newVec func() VecVirtual

	// spillLongLived keeps the nine edge/offset vectors of the closest
	// kernel in stack slots and uses them as memory operands, so that the
	// AVX2 kernel fits in the 16 registers VEX can encode (avo does not
	// spill, and a virtual register it put in Y16-Y31 would crash an
	// AVX2-only CPU with SIGILL, avo issue #146).
	spillLongLived bool

	// interleave is how many independent groups the main loop computes
	// side by side, instruction by instruction, to hide the latency of the
	// long dependent chain of one group. Two AVX-512 groups do not fit in
	// 32 registers without spilling, and with the spills they measured
	// slower (n = 4096: 1.93 against 1.27 ns/pair; try `go run .
	// -interleave 2`), so every ISA uses 1: out-of-order execution already
	// overlaps consecutive groups.
	interleave int
}

var (
	avx2 = isa{
		name: "AVX2", lanes: 8, bytes: 32,
		newVec:         YMM,
		spillLongLived: true,
		interleave:     1,
	}
	avx512 = isa{
		name: "AVX512", lanes: 16, bytes: 64,
		newVec:     ZMM,
		interleave: 1,
	}
)

// tail says how a group of lanes touches memory.
type tail int

const (
	full      tail = iota // all lanes are in the slices
	maskedK               // AVX-512: lanes outside the slice are masked with an opmask register
	maskedVec             // AVX2: lanes outside the slice are masked with a vector mask (VMASKMOVPS)
)

// w is the wide-float helper set: one value of the kernel, a vector of
// float32 lanes per interleaved group, each held in a register or (when
// spilled) in a stack slot. The kernel body calls these helpers in the
// exact order of fallback.ClosestLane, so that each lane sees the same IEEE
// operations as the Go code; each helper emits its instruction once per
// group, so independent groups interleave instruction by instruction.
type w struct{ ops []Op }

// gen carries the state of one kernel body being generated.
type gen struct {
	isa    isa
	ptrs   []GPPhysical // registers holding the first input stream pointers
	groups int          // groups of isa.lanes lanes processed side by side
	zero   VecVirtual   // all lanes +0
	one    VecVirtual   // all lanes 1

	// Spill slots: numSlots vector-sized slots from slotBase, a register
	// holding a 64-byte-aligned address in the frame (setupSlots). Aligned
	// slots matter: a spilled vector that straddles two cache lines cannot
	// be store-forwarded to the load that reads it back, and such stalls
	// made the first contact kernel three times slower.
	slotBase GPPhysical
	numSlots int
	nextSlot int // the next free slot of the current body

	// keepInMemory makes keep park its values in stack slots: the contact
	// kernels use the projection's intermediates long after computing them.
	keepInMemory bool

	// pending are instruction sequences (the contact kernels' gathers of
	// the next group) that each emits one at a time, every paceEvery
	// vector operations, outside rare blocks (skipUnless to endSkip), so
	// that they interleave with the arithmetic; flush emits the rest.
	pending    []func()
	paceEvery  int
	sincePaced int
	rare       bool
}

// pace emits the next pending sequence every paceEvery calls.
func (g *gen) pace() {
	if len(g.pending) == 0 || g.rare {
		return
	}
	g.sincePaced++
	if g.sincePaced < g.paceEvery {
		return
	}
	g.sincePaced = 0
	next := g.pending[0]
	g.pending = g.pending[1:]
	next()
}

// flush emits every pending sequence.
func (g *gen) flush() {
	for _, p := range g.pending {
		p()
	}
	g.pending, g.sincePaced = nil, 0
}

// keep returns v, parked in a stack slot when g.keepInMemory is set.
func (g *gen) keep(v w) w {
	if g.keepInMemory {
		return g.park(v)
	}
	return v
}

func (g *gen) keep3(v [3]w) [3]w { return [3]w{g.keep(v[0]), g.keep(v[1]), g.keep(v[2])} }

// each returns a value with a fresh register per group, filled by f.
func (g *gen) each(f func(i int, dst VecVirtual)) w {
	v := w{ops: make([]Op, g.groups)}
	for i := range v.ops {
		r := g.isa.newVec()
		f(i, r)
		v.ops[i] = r
	}
	g.pace()
	return v
}

// same returns op for every group (a constant register).
func (g *gen) same(op Op) w {
	v := w{ops: make([]Op, g.groups)}
	for i := range v.ops {
		v.ops[i] = op
	}
	return v
}

// reg returns op in a register, loading it when it lives in memory.
func (g *gen) reg(op Op) Op {
	if m, ok := op.(Mem); ok {
		r := g.isa.newVec()
		VMOVUPS(m, r)
		return r
	}
	return op
}

func isMem(op Op) bool {
	_, ok := op.(Mem)
	return ok
}

// commutative puts a memory operand, if any, in the second-source position
// (Go assembler order: first), the only one that may be memory, and loads
// the other one if it is memory too.
func (g *gen) commutative(a, b Op) (src1, src2 Op) {
	if isMem(a) {
		a, b = b, a
	}
	return g.reg(a), b
}

func (g *gen) add(a, b w) w {
	return g.each(func(i int, r VecVirtual) {
		s1, s2 := g.commutative(a.ops[i], b.ops[i])
		VADDPS(s2, s1, r)
	})
}

func (g *gen) mul(a, b w) w {
	return g.each(func(i int, r VecVirtual) {
		s1, s2 := g.commutative(a.ops[i], b.ops[i])
		VMULPS(s2, s1, r)
	})
}

// sub returns a - b.
func (g *gen) sub(a, b w) w {
	return g.each(func(i int, r VecVirtual) {
		VSUBPS(b.ops[i], g.reg(a.ops[i]), r)
	})
}

// dot returns ((x0*y0) + (x1*y1)) + (x2*y2), each product rounded (no FMA).
func (g *gen) dot(x, y [3]w) w {
	return g.add(g.add(g.mul(x[0], y[0]), g.mul(x[1], y[1])), g.mul(x[2], y[2]))
}

func (g *gen) sub3(a, b [3]w) [3]w {
	return [3]w{g.sub(a[0], b[0]), g.sub(a[1], b[1]), g.sub(a[2], b[2])}
}

// scale returns x*k for each component.
func (g *gen) scale(x [3]w, k w) [3]w {
	return [3]w{g.mul(x[0], k), g.mul(x[1], k), g.mul(x[2], k)}
}

// clamp01 returns max(min(x, 1), 0) with x as the first source of
// VMINPS/VMAXPS, which return the second source on ties and NaN: -0
// becomes +0 and NaN becomes 1, as in the Go clamp01.
func (g *gen) clamp01(x w) w {
	lo := g.each(func(i int, r VecVirtual) { VMINPS(g.one, g.reg(x.ops[i]), r) })
	return g.each(func(i int, r VecVirtual) { VMAXPS(g.zero, lo.ops[i], r) })
}

// cmpNEQUQ is the VCMPPS predicate "not equal, unordered, quiet": true for
// d != 0 and for NaN d, as Go's d != 0.
const cmpNEQUQ = 4

// cmpNLEUQ is the VCMPPS predicate "not less or equal, unordered, quiet":
// !(x <= y), true for NaN.
const cmpNLEUQ = 0x16

// divOrZero returns n/d in the lanes where d != 0 and +0 where d is zero
// (either sign), as the Go divOrZero: a true IEEE division and a mask.
func (g *gen) divOrZero(n, d w) w {
	if g.isa.lanes == 16 {
		ks := make([]Op, g.groups)
		for i := range ks {
			ks[i] = K()
			VCMPPS(U8(cmpNEQUQ), d.ops[i], g.zero, ks[i]) // symmetric: d may be memory
		}
		return g.each(func(i int, q VecVirtual) { VDIVPS_Z(d.ops[i], g.reg(n.ops[i]), ks[i], q) })
	}
	m := g.each(func(i int, m VecVirtual) { VCMPPS(U8(cmpNEQUQ), d.ops[i], g.zero, m) })
	q := g.each(func(i int, q VecVirtual) { VDIVPS(d.ops[i], g.reg(n.ops[i]), q) })
	return g.each(func(i int, r VecVirtual) { VANDPS(m.ops[i], q.ops[i], r) })
}

// cmpGEOQ is the VCMPPS predicate "greater or equal, ordered, quiet": false
// for NaN, as Go's >=.
const cmpGEOQ = 0x1D

// recipOrZero returns 1/l in the lanes where l >= 2^-126 and +0 elsewhere
// (NaN included), as the Go recipOrZero.
func (g *gen) recipOrZero(l w) w {
	if g.isa.lanes == 16 {
		ks := make([]Op, g.groups)
		for i := range ks {
			ks[i] = K()
			VCMPPS_BCST(U8(cmpGEOQ), constMinNormal, g.reg(l.ops[i]), ks[i])
		}
		return g.each(func(i int, q VecVirtual) { VDIVPS_Z(l.ops[i], g.one, ks[i], q) })
	}
	m := g.each(func(i int, m VecVirtual) { VCMPPS(U8(cmpGEOQ), constMinNormal, g.reg(l.ops[i]), m) })
	q := g.each(func(i int, q VecVirtual) { VDIVPS(l.ops[i], g.one, q) })
	return g.each(func(i int, r VecVirtual) { VANDPS(m.ops[i], q.ops[i], r) })
}

// setupSlots reserves n spill slots in the frame and points base at the
// first, aligned to 64 bytes.
func (g *gen) setupSlots(base GPPhysical, n int) {
	area := AllocLocal(n*g.isa.bytes + 64)
	LEAQ(area, base)
	ADDQ(U8(63), base)
	ANDQ(I8(-64), base)
	g.slotBase, g.numSlots = base, n
}

// spill stores v in fresh stack slots when the ISA keeps long-lived values
// in memory, and returns the value where it now lives.
func (g *gen) spill(v w) w {
	if !g.isa.spillLongLived {
		return v
	}
	out := w{ops: make([]Op, g.groups)}
	for i := range v.ops {
		if isMem(v.ops[i]) { // already in memory
			out.ops[i] = v.ops[i]
			continue
		}
		if g.nextSlot == g.numSlots {
			panic(fmt.Sprintf("gen: more than %d spill slots: raise the kernel's slot count", g.numSlots))
		}
		m := Mem{Base: g.slotBase, Disp: g.nextSlot * g.isa.bytes}
		g.nextSlot++
		VMOVUPS(v.ops[i], m)
		out.ops[i] = m
	}
	return out
}

func (g *gen) spill3(v [3]w) [3]w {
	return [3]w{g.spill(v[0]), g.spill(v[1]), g.spill(v[2])}
}

// constant declares a read-only data symbol holding x in every lane of a
// vector (for use as a memory operand).
func constant(name string, bits uint32, lanes int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := range lanes {
		DATA(4*i, U32(bits))
	}
	return m
}
