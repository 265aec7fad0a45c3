package verify

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The library's module graph holds only its named dependencies: the tools
// (avo and x/arch in gen/, gonum in plot/) live in modules of their own,
// so an engine that imports segdist never downloads them.
func TestModuleGraphHasNoTools(t *testing.T) {
	if os.Getenv("SEGDIST_UNDER_QEMU") != "" {
		t.Skip("runs the host's go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(gobin, "list", "-m", "all")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	for _, tool := range []string{"mmcloughlin/avo", "golang.org/x/arch", "gonum.org"} {
		if strings.Contains(string(out), tool) {
			t.Errorf("%s is in segdist's module graph:\n%s", tool, out)
		}
	}
	if !strings.Contains(string(out), "klauspost/cpuid") {
		t.Errorf("go list -m all does not list cpuid (wrong directory?):\n%s", out)
	}
}
