// Package neon is the arm64 backend of the segdist generator: it lowers
// the IR kernel bodies (package kernels) to NEON with its own register
// allocator and writes Go assembler text.
//
// Go 1.26's arm64 assembler has no mnemonics for the vector floating-point
// instructions (FADD, FSUB, FMUL, FDIV, FCMEQ/FCMGE/FCMGT, BIC, NOT:
// golang/go#41092), so every vector instruction here is emitted as a
// `WORD $0x...` with the instruction in GNU syntax as its comment, one
// encoder per form below. The gen tests decode every WORD of the
// generated file with golang.org/x/arch/arm64/arm64asm and compare it with
// its comment (CheckWords), so a wrong bit field fails there instead of as
// wrong results or SIGILL. Scalar instructions (addresses, loop control)
// use Go's mnemonics. No fused multiply-add is ever emitted.
package neon

import (
	"fmt"
	"strings"

	"github.com/segdist/segdist/gen/ir"
)

// inst is one encoded instruction and its GNU-syntax text.
type inst struct {
	word uint32
	text string
}

// line returns the Go assembler line of i.
func (i inst) line() string { return fmt.Sprintf("WORD $0x%08x // %s", i.word, i.text) }

// xbase names a base register: 31 is SP there.
func xbase(r int) string {
	if r == 31 {
		return "sp"
	}
	return fmt.Sprintf("x%d", r)
}

func reg(r int) uint32 {
	if r < 0 || r > 31 {
		panic(fmt.Sprintf("neon: register %d", r))
	}
	return uint32(r)
}

// three returns the encoder of a three-register vector instruction d = n op m
// on arrangement arr (4s or 16b).
func three(base uint32, name, arr string) func(d, n, m int) inst {
	return func(d, n, m int) inst {
		text := fmt.Sprintf("%s v%d.%s, v%d.%[3]s, v%[5]d.%[3]s", name, d, arr, n, m)
		return inst{base | reg(m)<<16 | reg(n)<<5 | reg(d), text}
	}
}

// two encodes a two-register instruction d = op n; text is its GNU
// syntax with a %d for d, then one for n.
func two(base uint32, d, n int, text string) inst {
	return inst{base | reg(n)<<5 | reg(d), fmt.Sprintf(text, d, n)}
}

// of returns instruction i for lanes of type e: a floating-point one
// (encoded for .4s lanes) takes its .2d form, the sz bit (bit 22) set;
// the bitwise ones (.16b) are the same for both.
func of(e ir.Elem, i inst) inst {
	if e == ir.F64 && strings.Contains(i.text, ".4s") {
		i.word |= 1 << 22
		i.text = strings.ReplaceAll(i.text, ".4s", ".2d")
	}
	return i
}

// Floating point (IEEE, round to nearest), encoded for four float32 lanes.
func fadd(d, n, m int) inst  { return three(0x4E20D400, "fadd", "4s")(d, n, m) }
func fsub(d, n, m int) inst  { return three(0x4EA0D400, "fsub", "4s")(d, n, m) }
func fmul(d, n, m int) inst  { return three(0x6E20DC00, "fmul", "4s")(d, n, m) }
func fdiv(d, n, m int) inst  { return three(0x6E20FC00, "fdiv", "4s")(d, n, m) }
func fsqrt(d, n int) inst    { return two(0x6EA1F800, d, n, "fsqrt v%d.4s, v%d.4s") }
func fneg(d, n int) inst     { return two(0x6EA0F800, d, n, "fneg v%d.4s, v%d.4s") }
func fabs(d, n int) inst     { return two(0x4EA0F800, d, n, "fabs v%d.4s, v%d.4s") }
func fcmeq(d, n, m int) inst { return three(0x4E20E400, "fcmeq", "4s")(d, n, m) }           // n == m
func fcmge(d, n, m int) inst { return three(0x6E20E400, "fcmge", "4s")(d, n, m) }           // n >= m
func fcmgt(d, n, m int) inst { return three(0x6EA0E400, "fcmgt", "4s")(d, n, m) }           // n > m
func fcmeqz(d, n int) inst   { return two(0x4EA0D800, d, n, "fcmeq v%d.4s, v%d.4s, #0.0") } // n == 0
func fcmgtz(d, n int) inst   { return two(0x4EA0C800, d, n, "fcmgt v%d.4s, v%d.4s, #0.0") } // n > 0

// Bitwise, on the whole register.
func and(d, n, m int) inst { return three(0x4E201C00, "and", "16b")(d, n, m) }
func orr(d, n, m int) inst {
	if n == m {
		return vmov(d, n)
	}
	return three(0x4EA01C00, "orr", "16b")(d, n, m)
}
func bic(d, n, m int) inst { return three(0x4E601C00, "bic", "16b")(d, n, m) } // n & ^m
func bsl(d, n, m int) inst { return three(0x6E601C00, "bsl", "16b")(d, n, m) } // d ? n : m
func bit(d, n, m int) inst { return three(0x6EA01C00, "bit", "16b")(d, n, m) } // m ? n : d
func bif(d, n, m int) inst { return three(0x6EE01C00, "bif", "16b")(d, n, m) } // m ? d : n
func not(d, n int) inst    { return two(0x6E205800, d, n, "mvn v%d.16b, v%d.16b") }

// vmov is d = n (orr d, n, n).
func vmov(d, n int) inst {
	return inst{0x4EA01C00 | reg(n)<<16 | reg(n)<<5 | reg(d), fmt.Sprintf("mov v%d.16b, v%d.16b", d, n)}
}

// Integer lanes.
func add4s(d, n, m int) inst { return three(0x4EA08400, "add", "4s")(d, n, m) }

// movi0 is d = 0.
func movi0(d int) inst { return inst{0x6F00E400 | reg(d), fmt.Sprintf("movi v%d.2d, #0x0", d)} }

// Moves between lanes and general registers: dupw and dupx copy w (x)
// to every 32-bit (64-bit) lane, umaxv puts the largest unsigned lane of
// n in lane 0 of d, fmovws copies its low 32 bits to w, xtn2s narrows
// the two 64-bit lanes of n to the low two 32-bit lanes of d.
func dupw(d, w int) inst   { return two(0x4E040C00, d, w, "dup v%d.4s, w%d") }
func dupx(d, x int) inst   { return two(0x4E080C00, d, x, "dup v%d.2d, x%d") }
func umaxv(d, n int) inst  { return two(0x6EB0A800, d, n, "umaxv s%d, v%d.4s") }
func fmovws(w, n int) inst { return two(0x1E260000, w, n, "fmov w%d, s%d") }
func xtn2s(d, n int) inst  { return two(0x0EA12800, d, n, "xtn v%d.2s, v%d.2d") }

// Loads and stores of whole registers (q) and of their low 64 bits (d):
// at [base, index], a byte index, or at [base, #off], off a multiple of
// the register's bytes below 4096 of them.
var (
	ldrqr = indexed(0x3CE06800, "ldr")
	strqr = indexed(0x3CA06800, "str")
	ldrqi = scaled(0x3DC00000, "ldr q", 16)
	strqi = scaled(0x3D800000, "str q", 16)
	strdi = scaled(0xFD000000, "str d", 8)
)

func indexed(op uint32, name string) func(t, base, idx int) inst {
	return func(t, base, idx int) inst {
		text := fmt.Sprintf("%s q%d, [%s, x%d]", name, t, xbase(base), idx)
		return inst{op | reg(idx)<<16 | reg(base)<<5 | reg(t), text}
	}
}

func scaled(op uint32, name string, size int) func(t, base, off int) inst {
	return func(t, base, off int) inst {
		if off < 0 || off%size != 0 || off >= 4096*size {
			panic(fmt.Sprintf("neon: %s offset %d", name, off))
		}
		text := fmt.Sprintf("%s%d, [%s, #%d]", name, t, xbase(base), off)
		return inst{op | uint32(off/size)<<10 | reg(base)<<5 | reg(t), text}
	}
}

// ld4 loads the four values of type e at [base] into one lane of t, t+1,
// t+2 and t+3 (a transposing load: one record's four values into four
// vectors); st4 stores them (its inverse). Both then add post (0 or the
// four values' bytes) to base.
var ld4, st4 = lanes4(0x0D60A000, "ld4"), lanes4(0x0D20A000, "st4")

// lanes4 returns the encoder of op, an ld4 or st4 of 32-bit lanes. A
// float64 one has size 01 and its lane l at 32-bit lane 2l (Q:S, S zero);
// post = the four values' bytes takes the post-incrementing form (Rm = 31).
func lanes4(op uint32, name string) func(e ir.Elem, t, lane, base, post int) inst {
	return func(e ir.Elem, t, lane, base, post int) inst {
		s := lane << int(e) // the first 32-bit lane
		if t > 28 || s < 0 || s > 3 || post != 0 && post != 4*e.Bytes() {
			panic(fmt.Sprintf("neon: %s from v%d, lane %d, post-increment %d", name, t, lane, post))
		}
		in, arr := inst{op, name}, "s"
		if e == ir.F64 {
			in.word |= 0x400
			arr = "d"
		}
		in.word |= uint32(s>>1)<<30 | uint32(s&1)<<12 | reg(base)<<5 | reg(t)
		in.text += fmt.Sprintf(" {v%d.%s-v%d.%s}[%d], [%s]", t, arr, t+3, arr, lane, xbase(base))
		if post != 0 {
			in.word |= 0x009F0000
			in.text += fmt.Sprintf(", #%d", post)
		}
		return in
	}
}
