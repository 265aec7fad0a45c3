package amd64

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/segdist/segdist/gen/ir"
)

// functions returns the bodies of the TEXT symbols of a generated .s file.
func functions(t *testing.T, path string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return functionsOf(string(src))
}

// functionsOf returns the bodies of the TEXT symbols of assembly src.
func functionsOf(src string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(src, "\nTEXT ·")[1:] {
		name, _, _ := strings.Cut(part, "(")
		out[name] = part
	}
	return out
}

var (
	// notAVX2 matches the registers an AVX2 kernel must not use: avo
	// allocates Y16-Y31 when a body needs more than 16 vector registers
	// (avo issue #146), and such code raises SIGILL on a CPU without
	// AVX-512. The spill policy is what keeps the bodies within 16.
	notAVX2 = regexp.MustCompile(`\b(Y(1[6-9]|2[0-9]|3[01])|X(1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	// reserved matches R15 and BP: avo allocates them like any other
	// register, but a global access clobbers R15 when the package is
	// dynamically linked (-buildmode=shared or plugin), and BP is the
	// frame pointer.
	reserved = regexp.MustCompile(`\b(R15[BWL]?|BP|BPB)\b`)
)

// checkFunctions returns what is wrong with the generated functions fns:
// an AVX2 function that uses AVX-512 state or Y16-Y31, a RET without
// VZEROUPPER before it, a use of R15 or BP.
func checkFunctions(fns map[string]string) []string {
	var errs []string
	for name, body := range fns {
		lines := strings.Split(body, "\n")
		for i, line := range lines {
			code, _, _ := strings.Cut(line, "//")
			if strings.HasSuffix(name, "AVX2") && notAVX2.MatchString(code) || reserved.MatchString(code) {
				errs = append(errs, fmt.Sprintf("%s: %s", name, strings.TrimSpace(line)))
			}
			if strings.TrimSpace(line) == "RET" && (i == 0 || strings.TrimSpace(lines[i-1]) != "VZEROUPPER") {
				errs = append(errs, name+": RET without VZEROUPPER before it")
			}
		}
	}
	return errs
}

// TestGeneratedFunctions checks the committed amd64 kernels
// (checkFunctions) and that every AVX2 kernel is there.
func TestGeneratedFunctions(t *testing.T) {
	if ir.AVX2.VecRegs != 16 {
		t.Fatalf("ir.AVX2.VecRegs = %d: this test checks Y0-Y15", ir.AVX2.VecRegs)
	}
	fns := functions(t, "../../asm/kernels_amd64.s")
	for _, e := range checkFunctions(fns) {
		t.Error(e)
	}
	n := 0
	for name := range fns {
		if strings.HasSuffix(name, "AVX2") {
			n++
		}
	}
	// Contacts, compact, plane contacts, compact plane contacts, closest,
	// stream, point, indexed closest, poses and indexed poses, time of
	// impact and its tail, in float32 and float64, and MaxIndex.
	if n != 25 {
		t.Errorf("%d AVX2 functions in asm/kernels_amd64.s, want 25", n)
	}
}
