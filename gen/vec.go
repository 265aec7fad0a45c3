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
}

var (
	avx2 = isa{
		name: "AVX2", lanes: 8, bytes: 32,
		newVec:         YMM,
		spillLongLived: true,
	}
	avx512 = isa{
		name: "AVX512", lanes: 16, bytes: 64,
		newVec: ZMM,
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
// float32 lanes, held in a register or (when spilled) in a stack slot. The
// kernel body calls these helpers in the exact order of fallback.ClosestLane,
// so that each lane sees the same IEEE operations as the Go code.
type w struct{ op Op }

// gen carries the state of one kernel body being generated.
type gen struct {
	isa  isa
	zero VecVirtual // all lanes +0
	one  VecVirtual // all lanes 1

	slots    []Mem // stack slots for spilled values, shared by all groups
	nextSlot int   // the next free slot of the current group
}

// reg returns v in a register, loading it when it lives in memory.
func (g *gen) reg(v w) Op {
	if m, ok := v.op.(Mem); ok {
		r := g.isa.newVec()
		VMOVUPS(m, r)
		return r
	}
	return v.op
}

// commutative puts a memory operand, if any, in the second-source position
// (Go assembler order: first), the only one that may be memory.
func commutative(a, b w) (src1, src2 Op) {
	if _, ok := a.op.(Mem); ok {
		return b.op, a.op
	}
	return a.op, b.op
}

func (g *gen) add(a, b w) w {
	s1, s2 := commutative(a, b)
	if _, ok := s1.(Mem); ok {
		s1 = g.reg(w{s1})
	}
	r := g.isa.newVec()
	VADDPS(s2, s1, r)
	return w{r}
}

func (g *gen) mul(a, b w) w {
	s1, s2 := commutative(a, b)
	if _, ok := s1.(Mem); ok {
		s1 = g.reg(w{s1})
	}
	r := g.isa.newVec()
	VMULPS(s2, s1, r)
	return w{r}
}

// sub returns a - b.
func (g *gen) sub(a, b w) w {
	r := g.isa.newVec()
	VSUBPS(b.op, g.reg(a), r)
	return w{r}
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

// clamp01 returns max(0, min(1, x)) with x as the second source of
// VMINPS/VMAXPS: a NaN x propagates and -0 stays -0, as in the Go clamp01.
func (g *gen) clamp01(x w) w {
	lo := g.isa.newVec()
	VMINPS(x.op, g.one, lo)
	r := g.isa.newVec()
	VMAXPS(lo, g.zero, r)
	return w{r}
}

// cmpNEQUQ is the VCMPPS predicate "not equal, unordered, quiet": true for
// d != 0 and for NaN d, as Go's d != 0.
const cmpNEQUQ = 4

// cmpNLEUQ is the VCMPPS predicate "not less or equal, unordered, quiet":
// !(x <= y), true for NaN.
const cmpNLEUQ = 6

// divOrZero returns n/d in the lanes where d != 0 and +0 where d is zero
// (either sign), as the Go divOrZero: a true IEEE division and a mask.
func (g *gen) divOrZero(n, d w) w {
	q := g.isa.newVec()
	if g.isa.lanes == 16 {
		k := K()
		VCMPPS(U8(cmpNEQUQ), g.zero, d.op, k)
		VDIVPS_Z(d.op, g.reg(n), k, q)
		return w{q}
	}
	m := g.isa.newVec()
	VCMPPS(U8(cmpNEQUQ), g.zero, d.op, m)
	VDIVPS(d.op, g.reg(n), q)
	r := g.isa.newVec()
	VANDPS(m, q, r)
	return w{r}
}

// spill stores v in a fresh stack slot when the ISA keeps long-lived values
// in memory, and returns the value where it now lives.
func (g *gen) spill(v w) w {
	if !g.isa.spillLongLived {
		return v
	}
	if g.nextSlot == len(g.slots) {
		g.slots = append(g.slots, AllocLocal(g.isa.bytes))
	}
	m := g.slots[g.nextSlot]
	g.nextSlot++
	VMOVUPS(v.op, m)
	return w{m}
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

func mustf(format string, a ...any) {
	panic(fmt.Sprintf(format, a...))
}
