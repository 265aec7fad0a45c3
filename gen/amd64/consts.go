package amd64

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// constants are the read-only data of the kernels: each float constant of
// the IR (by name: float64 ones end in "64") and the backend's own masks
// and tables. Vector constants fill 32 bytes (8 float32 or 4 float64
// lanes, an AVX2 operand); AVX-512 reads their first lane with embedded
// broadcast.
type constants struct {
	byName    map[string]Mem
	bits      map[string]uint64
	sign, abs [2]Mem // per ir.Elem: the sign bit, and all bits but it
	iota      Mem    // int32 0..15 (the lane numbers)
	iota64    Mem    // int32 0 0 1 1 2 2 3 3: the AVX2 float64 lanes' numbers, per half
	low16     Mem    // uint32 0xFFFF: sixteen lane bits
	compress8 Mem    // AVX2 compaction: for each 8-bit mask, the lanes to keep, first
	// AVX2 float64 compaction, for each 4-bit mask of lanes to keep: the
	// dword indices that move them first, for 64-bit lanes (compress4q)
	// and for 32-bit lanes (compress4d, in the low four of eight).
	compress4q, compress4d Mem
	pack64                 Mem // int32 0 2 4 6 0 2 4 6: the low halves of four 64-bit lanes (VPERMD)
	// sinkPerm and seqPerm are the VPERMI2PS indices of the AVX-512
	// float32 record sink (recordsOut16) and of its sequential record
	// source (recordsSeq16): 16 dwords for each half of a group.
	sinkPerm, seqPerm Mem
	// apartPerm is the VPERMI2PD indices of recordsOut16Apart: the qwords
	// of 128-bit lanes 0 and 1 of two tables, interleaved by lane (0 1 8 9
	// 2 3 10 11), then of lanes 2 and 3.
	apartPerm Mem
}

// vector declares name as bits in every lane of type e of 32 bytes.
func vector(name string, e ir.Elem, bits uint64) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := range 32 / e.Bytes() {
		DATA(e.Bytes()*i, [...]Constant{U32(bits), U64(bits)}[e])
	}
	return m
}

// dwords declares name as n dwords, dword i holding f(i).
func dwords(name string, n int, f func(i int) int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := range n {
		DATA(4*i, U32(f(i)))
	}
	return m
}

// dataOrder is the order of the IR's constants in the data section, as
// it has always been; a constant not listed follows, in the order the
// kernels first use it.
var dataOrder = []string{"one", "maxfinite", "canonicalnan", "minnormal", "half", "partol", "crosstol", "signtol", "perptol", "int1", "int2"}

// newConstants declares every constant the kernels that Declare
// generates use: each OpConst of their programs but zero (a register) and
// the constants the lowering loads itself (ir.One, ir.MinNormal), float32
// then float64; then the backend's masks and tables.
func newConstants() *constants {
	c := &constants{byName: map[string]Mem{}, bits: map[string]uint64{}}
	for _, e := range []ir.Elem{ir.F32, ir.F64} {
		c.declareIR(e)
	}
	c.sign = [2]Mem{vector("signmask", ir.F32, 0x80000000), vector("signmask64", ir.F64, 1<<63)}
	c.abs = [2]Mem{vector("absmask", ir.F32, 0x7FFFFFFF), vector("absmask64", ir.F64, 1<<63-1)}
	c.iota64 = dwords("iota64", 8, func(i int) int { return i / 2 })
	c.iota = dwords("iota", 16, func(i int) int { return i })
	c.low16 = dwords("low16", 1, func(int) int { return 0xFFFF })
	c.compress4q = compressTable("compress4q", 4, 2)
	c.compress4d = compressTable("compress4d", 4, 1)
	c.pack64 = dwords("pack64", 8, func(i int) int { return 2 * (i % 4) })
	c.compress8 = compressTable("compress8", 8, 1)
	// Dword j of half q of the sink's indices: for records 8q to 8q+7,
	// field i of the even records, field i+4 (the second table) of the
	// even records, then both of the odd records, a 128-bit lane each.
	c.sinkPerm = dwords("sinkperm", 32, func(i int) int { q, j := i/16, i%16; return 8*q + 2*(j%4) + j/8 + 16*(j/4%2) })
	// The source's field f (q = 0) or f+4 (q = 1) of records 0-15 from
	// the transposed blocks v_f (records 0-7) and w_f (8-15), whose 128-bit
	// lanes hold fields f and f+4 of the even records, then of the odd ones.
	c.seqPerm = dwords("seqperm", 32, func(i int) int { q, j := i/16, i%16; return 16*(j/8) + 8*(j%2) + j%8/2 + 4*q })
	c.apartPerm = GLOBL("apartperm", RODATA|NOPTR)
	for q := range 2 {
		for j, x := range []uint64{0, 1, 8, 9, 2, 3, 10, 11} {
			DATA(64*q+8*j, U64(x+4*uint64(q)))
		}
	}
	return c
}

// declareIR declares the IR constants of element type e that
// newConstants lists, in dataOrder and then in order of first use.
func (c *constants) declareIR(e ir.Elem) {
	var names []string
	add := func(name string, bits uint64) {
		if _, ok := c.bits[name]; !ok && bits != 0 {
			c.bits[name] = bits
			names = append(names, name)
		}
	}
	for _, k := range []*kernels.Kernel{kernels.Contact, kernels.Closest, kernels.Stream, kernels.ClosestPoint, kernels.PlaneContact, kernels.Pose,
		kernels.TOISetup, kernels.TOIStep, kernels.TOIFinish} {
		for _, in := range k.ProgramOf(e).Code {
			if in.Op == ir.OpConst {
				add(in.Name, in.Bits)
			}
		}
	}
	for _, k := range []ir.Constant{ir.One, ir.MinNormal} {
		add(k.Name+e.Suffix(), k.Bits[e])
	}
	rank := func(name string) int {
		if i := slices.Index(dataOrder, strings.TrimSuffix(name, e.Suffix())); i >= 0 {
			return i
		}
		return len(dataOrder)
	}
	slices.SortStableFunc(names, func(a, b string) int { return rank(a) - rank(b) })
	for _, name := range names {
		c.byName[name] = vector(name, e, c.bits[name])
	}
}

// compressTable declares the AVX2 compaction table name: for each mask m of
// lanes lanes, a row of eight dwords holding the dword indices (width per
// lane) of the lanes set in m, in order, for VPERMPS/VPERMD; the rest of
// the row is zero (those lanes are not stored).
func compressTable(name string, lanes, width int) Mem {
	t := GLOBL(name, RODATA|NOPTR)
	for m := range 1 << lanes {
		j := 0
		for lane := range lanes {
			if m&(1<<lane) != 0 {
				for w := range width {
					DATA(32*m+4*j, U32(width*lane+w))
					j++
				}
			}
		}
		for ; j < 8; j++ {
			DATA(32*m+4*j, U32(0))
		}
	}
	return t
}

// of returns the IR constant name ("one", "minnormal", ...) of element
// type e.
func (c *constants) of(e ir.Elem, name string) Mem {
	name += e.Suffix()
	return c.get(name, c.bits[name])
}

// get returns the constant named name, which must hold bits.
func (c *constants) get(name string, bits uint64) Mem {
	m, ok := c.byName[name]
	if !ok || c.bits[name] != bits {
		panic(fmt.Sprintf("amd64: constant %s = %#x is not among the kernels' (newConstants)", name, bits))
	}
	return m
}
