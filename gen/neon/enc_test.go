package neon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/segdist/segdist/gen/ir"
)

// encCase is an encoder on three operands and the GNU syntax it should give.
type encCase struct {
	name string
	f    func(a, b, c int) inst
	want func(a, b, c int) string
}

// encoderCases lists every encoder with its text, built here independently
// of the encoders' own text.
func encoderCases() []encCase {
	v := func(r int) string { return fmt.Sprintf("v%d.4s", r) }
	xb := func(r int) string {
		if r == 31 {
			return "sp"
		}
		return fmt.Sprintf("x%d", r)
	}
	b := func(r int) string { return fmt.Sprintf("v%d.16b", r) }
	three := func(op string, arr func(int) string) func(a, b, c int) string {
		return func(x, y, z int) string { return fmt.Sprintf("%s %s, %s, %s", op, arr(x), arr(y), arr(z)) }
	}
	twoOf := func(op string, arr func(int) string) func(a, b, c int) string {
		return func(x, y, _ int) string { return fmt.Sprintf("%s %s, %s", op, arr(x), arr(y)) }
	}
	lane4 := func(op, arr string, lanes, post int) func(a, b, c int) string {
		return func(x, y, z int) string {
			p := ""
			if z%2 == 1 {
				p = fmt.Sprintf(", #%d", post)
			}
			return fmt.Sprintf("%s {v%d.%s-v%d.%s}[%d], [%s]%s", op, x%29, arr, x%29+3, arr, z%lanes, xb(y), p)
		}
	}
	return []encCase{
		{"fadd", func(a, b, c int) inst { return fadd(a, b, c) }, three("fadd", v)},
		{"fsub", func(a, b, c int) inst { return fsub(a, b, c) }, three("fsub", v)},
		{"fmul", func(a, b, c int) inst { return fmul(a, b, c) }, three("fmul", v)},
		{"fdiv", func(a, b, c int) inst { return fdiv(a, b, c) }, three("fdiv", v)},
		{"fcmeq", func(a, b, c int) inst { return fcmeq(a, b, c) }, three("fcmeq", v)},
		{"fcmge", func(a, b, c int) inst { return fcmge(a, b, c) }, three("fcmge", v)},
		{"fcmgt", func(a, b, c int) inst { return fcmgt(a, b, c) }, three("fcmgt", v)},
		{"and", func(a, b, c int) inst { return and(a, b, c) }, three("and", b)},
		{"orr", func(a, b, c int) inst { return orr(a, b, c) }, func(x, y, z int) string {
			if y == z {
				return fmt.Sprintf("mov v%d.16b, v%d.16b", x, y)
			}
			return three("orr", b)(x, y, z)
		}},
		{"bic", func(a, b, c int) inst { return bic(a, b, c) }, three("bic", b)},
		{"bsl", func(a, b, c int) inst { return bsl(a, b, c) }, three("bsl", b)},
		{"bit", func(a, b, c int) inst { return bit(a, b, c) }, three("bit", b)},
		{"bif", func(a, b, c int) inst { return bif(a, b, c) }, three("bif", b)},
		{"add", func(a, b, c int) inst { return add4s(a, b, c) }, three("add", v)},
		{"fsqrt", func(a, b, _ int) inst { return fsqrt(a, b) }, twoOf("fsqrt", v)},
		{"fneg", func(a, b, _ int) inst { return fneg(a, b) }, twoOf("fneg", v)},
		{"fabs", func(a, b, _ int) inst { return fabs(a, b) }, twoOf("fabs", v)},
		{"mvn", func(a, b, _ int) inst { return not(a, b) }, twoOf("mvn", b)},
		{"fcmeq0", func(a, b, _ int) inst { return fcmeqz(a, b) }, func(x, y, _ int) string { return fmt.Sprintf("fcmeq v%d.4s, v%d.4s, #0.0", x, y) }},
		{"fcmgt0", func(a, b, _ int) inst { return fcmgtz(a, b) }, func(x, y, _ int) string { return fmt.Sprintf("fcmgt v%d.4s, v%d.4s, #0.0", x, y) }},
		{"mov", func(a, b, _ int) inst { return vmov(a, b) }, func(x, y, _ int) string { return fmt.Sprintf("mov v%d.16b, v%d.16b", x, y) }},
		{"movi", func(a, _, _ int) inst { return movi0(a) }, func(x, _, _ int) string { return fmt.Sprintf("movi v%d.2d, #0", x) }},
		{"dup", func(a, b, _ int) inst { return dupw(a, b%31) }, func(x, y, _ int) string { return fmt.Sprintf("dup v%d.4s, w%d", x, y%31) }},
		{"umaxv", func(a, b, _ int) inst { return umaxv(a, b) }, func(x, y, _ int) string { return fmt.Sprintf("umaxv s%d, v%d.4s", x, y) }},
		{"fmov", func(a, b, _ int) inst { return fmovws(a%31, b) }, func(x, y, _ int) string { return fmt.Sprintf("fmov w%d, s%d", x%31, y) }},
		{"ldrqr", func(a, b, c int) inst { return ldrqr(a, b, c%31) }, func(x, y, z int) string { return fmt.Sprintf("ldr q%d, [%s, x%d]", x, xb(y), z%31) }},
		{"strqr", func(a, b, c int) inst { return strqr(a, b, c%31) }, func(x, y, z int) string { return fmt.Sprintf("str q%d, [%s, x%d]", x, xb(y), z%31) }},
		{"ldrqi", func(a, b, c int) inst { return ldrqi(a, b, 16*c) }, func(x, y, z int) string { return fmt.Sprintf("ldr q%d, [%s, #%d]", x, xb(y), 16*z) }},
		{"strqi", func(a, b, c int) inst { return strqi(a, b, 16*c) }, func(x, y, z int) string { return fmt.Sprintf("str q%d, [%s, #%d]", x, xb(y), 16*z) }},
		{"ld4lane", func(a, b, c int) inst { return ld4(ir.F32, a%29, c%4, b, 16*(c%2)) }, lane4("ld4", "s", 4, 16)},
		{"ld4laneD", func(a, b, c int) inst { return ld4(ir.F64, a%29, c%2, b, 32*(c%2)) }, lane4("ld4", "d", 2, 32)},
		{"st4lane", func(a, b, c int) inst { return st4(ir.F32, a%29, c%4, b, 16*(c%2)) }, lane4("st4", "s", 4, 16)},
		{"st4laneD", func(a, b, c int) inst { return st4(ir.F64, a%29, c%2, b, 32*(c%2)) }, lane4("st4", "d", 2, 32)},
		{"strdi", func(a, b, c int) inst { return strdi(a, b, 8*c) }, func(x, y, z int) string { return fmt.Sprintf("str d%d, [%s, #%d]", x, xb(y), 8*z) }},
		{"xtn2s", func(a, b, _ int) inst { return xtn2s(a, b) }, func(x, y, _ int) string { return fmt.Sprintf("xtn v%d.2s, v%d.2d", x, y) }},
		{"dupx", func(a, b, _ int) inst { return dupx(a, b%31) }, func(x, y, _ int) string { return fmt.Sprintf("dup v%d.2d, x%d", x, y%31) }},
	}
}

// Every encoder, on registers and lanes at the ends of their fields,
// decodes to the instruction its text names.
func TestEncoders(t *testing.T) {
	regs := []int{0, 1, 15, 16, 31}
	for _, e := range encoderCases() {
		for _, a := range regs {
			for _, b := range regs {
				for _, c := range regs {
					in := e.f(a, b, c)
					want := e.want(a, b, c)
					if normalize(in.text) != normalize(want) {
						t.Fatalf("%s(%d, %d, %d): text %q, want %q", e.name, a, b, c, in.text, want)
					}
					got, err := decode(in.word)
					if err != nil || normalize(got) != normalize(want) {
						t.Fatalf("%s(%d, %d, %d): %#08x decodes as %q (%v), want %q", e.name, a, b, c, in.word, got, err, want)
					}
				}
			}
		}
	}
}

// CheckWords accepts a file whose words match their comments and names
// the line of one that does not.
func TestCheckWords(t *testing.T) {
	good := "\t" + fadd(1, 2, 3).line() + "\n\t" + ldrqi(4, 5, 32).line() + "\n\tMOVD R1, R2\n"
	if err := CheckWords(good); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(good, "fadd v1.4s", "fsub v1.4s", 1)
	if err := CheckWords(bad); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("corrupted comment: %v", err)
	}
	flipped := strings.Replace(good, fmt.Sprintf("%08x", fadd(1, 2, 3).word), fmt.Sprintf("%08x", fadd(1, 2, 3).word^1<<16), 1)
	if err := CheckWords(flipped); err == nil {
		t.Fatal("a flipped register bit passed")
	}
}
