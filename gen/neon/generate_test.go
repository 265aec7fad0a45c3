package neon

import (
	"os"
	"strings"
	"testing"
)

// The committed arm64 files are what the generator writes now (CI also
// checks this through make gen), and every hand-encoded instruction in
// them decodes to its comment.
func TestGeneratedFile(t *testing.T) {
	ss := Default()
	asm, stubs, stats := Generate(&ss)
	for path, want := range map[string]string{"../../asm/kernels_arm64.s": asm, "../../asm/kernels_arm64.go": stubs} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s differs from the generator's output: run make gen", path)
		}
	}
	if err := CheckWords(asm); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(asm, "WORD $"); n < 1000 {
		t.Errorf("only %d WORD lines", n)
	}
	for _, f := range []string{"fmla", "fmls", "fmin", "fmax", "frecpe", "frsqrte"} {
		if strings.Contains(asm, "// "+f) {
			t.Errorf("the NEON kernels use %s (fused or not bit-exact)", f)
		}
	}
	for _, s := range stats {
		t.Logf("%s: %d of %d registers, %d spills per group", s.Name, s.Regs, numRegs, s.Spills)
		if strings.HasPrefix(s.Name, "Closest") && s.Spills != 0 {
			t.Errorf("%s spills %d values per group", s.Name, s.Spills)
		}
	}
}
