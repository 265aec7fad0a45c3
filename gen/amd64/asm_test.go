package amd64

import (
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
	out := map[string]string{}
	for _, part := range strings.Split(string(src), "\nTEXT ·")[1:] {
		name, _, _ := strings.Cut(part, "(")
		out[name] = part
	}
	return out
}

// TestAVX2RegisterBudget checks that the AVX2 kernels use only Y0-Y15
// and no AVX-512 state: avo allocates Y16-Y31 when a body needs more than
// 16 vector registers (avo issue #146), and such code raises SIGILL on a
// CPU without AVX-512. The spill policy (ir.AVX2.Parks) is what keeps
// the bodies within 16.
func TestAVX2RegisterBudget(t *testing.T) {
	if ir.AVX2.VecRegs != 16 {
		t.Fatalf("ir.AVX2.VecRegs = %d: this test checks Y0-Y15", ir.AVX2.VecRegs)
	}
	bad := regexp.MustCompile(`\b(Y(1[6-9]|2[0-9]|3[01])|X(1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	n := 0
	for name, body := range functions(t, "../../asm/kernels_amd64.s") {
		if !strings.HasSuffix(name, "AVX2") {
			continue
		}
		n++
		for _, line := range strings.Split(body, "\n") {
			if code, _, _ := strings.Cut(line, "//"); bad.MatchString(code) {
				t.Errorf("%s: %s", name, strings.TrimSpace(line))
			}
		}
	}
	if n != 13 { // contacts, compact, closest, stream, point and indexed closest, in float32 and float64, and MaxIndex
		t.Errorf("%d AVX2 functions in asm/kernels_amd64.s, want 13", n)
	}
}

// TestUpperHalvesCleared checks that every amd64 kernel clears the upper
// halves of the vector registers before it returns.
func TestUpperHalvesCleared(t *testing.T) {
	for name, body := range functions(t, "../../asm/kernels_amd64.s") {
		lines := strings.Split(body, "\n")
		for i, line := range lines {
			if strings.TrimSpace(line) == "RET" && (i == 0 || strings.TrimSpace(lines[i-1]) != "VZEROUPPER") {
				t.Errorf("%s: RET without VZEROUPPER before it", name)
			}
		}
	}
}

// TestReservedRegistersUntouched checks that no amd64 kernel uses R15 or
// BP (batch.go's registers): avo allocates them like any other register,
// but a global access clobbers R15 when the package is dynamically linked
// (-buildmode=shared or plugin), and BP is the frame pointer.
func TestReservedRegistersUntouched(t *testing.T) {
	reserved := regexp.MustCompile(`\b(R15[BWL]?|BP|BPB)\b`)
	fns := functions(t, "../../asm/kernels_amd64.s")
	if len(fns) == 0 {
		t.Fatal("no functions in asm/kernels_amd64.s")
	}
	for name, body := range fns {
		for _, line := range strings.Split(body, "\n") {
			if code, _, _ := strings.Cut(line, "//"); reserved.MatchString(code) {
				t.Errorf("%s: %s", name, strings.TrimSpace(line))
			}
		}
	}
}
