package neon

import (
	"fmt"
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
	off   map[string]int // the offset of each constant
	names []string       // the constants in offset order
	lanes [][4]uint32    // their lanes, in offset order
}

func newConstTable() *constTable { return &constTable{off: map[string]int{}} }

// of returns the offset of the constant name of element type e, bits in
// every lane (two 64-bit lanes for float64).
func (c *constTable) of(e ir.Elem, name string, bits uint64) int {
	lo, hi := uint32(bits), uint32(bits)
	if e == ir.F64 {
		hi = uint32(bits >> 32)
	}
	return c.vector(name, [4]uint32{lo, hi, lo, hi})
}

// vector returns the offset of the constant name with the given lanes,
// adding it to the table on first use.
func (c *constTable) vector(name string, lanes [4]uint32) int {
	if off, ok := c.off[name]; ok {
		if c.lanes[off/16] != lanes {
			panic("neon: constant " + name + " redefined")
		}
		return off
	}
	c.off[name] = 16 * len(c.names)
	c.names, c.lanes = append(c.names, name), append(c.lanes, lanes)
	return c.off[name]
}

// data returns the DATA and GLOBL lines of the table, symbol sym.
func (c *constTable) data(sym string) string {
	var b strings.Builder
	for i, n := range c.names {
		fmt.Fprintf(&b, "// %s\n", n)
		for j, x := range c.lanes[i] {
			fmt.Fprintf(&b, "DATA %s<>+%d(SB)/4, $0x%08x\n", sym, 16*i+4*j, x)
		}
	}
	fmt.Fprintf(&b, "GLOBL %s<>(SB), RODATA|NOPTR, $%d\n", sym, 16*len(c.names))
	return b.String()
}
