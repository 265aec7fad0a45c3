package neon

import (
	"fmt"
	"sort"
	"strings"

	"github.com/segdist/segdist/gen/ir"
)

// writer collects the lines of an assembly file.
type writer struct{ b strings.Builder }

func (w *writer) line(format string, args ...any) {
	fmt.Fprintf(&w.b, "\t"+format+"\n", args...)
}

// op writes an encoded vector instruction.
func (w *writer) op(i inst) { w.line("%s", i.line()) }

func (w *writer) comment(s string) { w.line("// %s", s) }

func (w *writer) label(name string) { fmt.Fprintf(&w.b, "\n%s:\n", name) }

func (w *writer) raw(s string) { w.b.WriteString(s) }

func (w *writer) String() string { return w.b.String() }

// constTable is the read-only data of the kernels: 16-byte vectors, one
// per named constant, addressed from constReg.
type constTable struct {
	off  map[string]int
	bits map[string]uint32
	lane map[string][4]uint32
}

func newConstTable() *constTable {
	return &constTable{off: map[string]int{}, bits: map[string]uint32{}, lane: map[string][4]uint32{}}
}

// offset returns the offset of the constant name (bits in every lane),
// adding it to the table on first use.
func (c *constTable) offset(name string, bits uint32) int {
	return c.vector(name, [4]uint32{bits, bits, bits, bits})
}

// of returns the offset of the constant name of element type e, bits in
// every lane (two 64-bit lanes for float64).
func (c *constTable) of(e ir.Elem, name string, bits uint64) int {
	if e == ir.F64 {
		lo, hi := uint32(bits), uint32(bits>>32)
		return c.vector(name, [4]uint32{lo, hi, lo, hi})
	}
	return c.offset(name, uint32(bits))
}

// vector returns the offset of a constant with distinct lanes.
func (c *constTable) vector(name string, lanes [4]uint32) int {
	if off, ok := c.off[name]; ok {
		if c.lane[name] != lanes {
			panic("neon: constant " + name + " redefined")
		}
		return off
	}
	c.off[name] = 16 * len(c.off)
	c.lane[name] = lanes
	return c.off[name]
}

// data returns the DATA and GLOBL lines of the table, symbol sym.
func (c *constTable) data(sym string) string {
	names := make([]string, 0, len(c.off))
	for n := range c.off {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return c.off[names[i]] < c.off[names[j]] })
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "// %s\n", n)
		for i, x := range c.lane[n] {
			fmt.Fprintf(&b, "DATA %s<>+%d(SB)/4, $0x%08x\n", sym, c.off[n]+4*i, x)
		}
	}
	fmt.Fprintf(&b, "GLOBL %s<>(SB), RODATA|NOPTR, $%d\n", sym, 16*len(c.off))
	return b.String()
}
