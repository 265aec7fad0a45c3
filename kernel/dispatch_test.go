package kernel_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/segdist/segdist/kernel"
)

// envReport makes TestReportISA print the chosen path; the dispatch tests
// run this test binary again as a subprocess with it set.
const envReport = "SEGDIST_TEST_REPORT_ISA"

// envQEMU holds the emulator command line when this test binary runs under
// qemu (set by TestQEMUWithoutAVX for its child).
const envQEMU = "SEGDIST_UNDER_QEMU"

// TestReportISA is the subprocess half of the dispatch tests: it prints the
// path init chose and the available paths. Run on its own it only checks
// that ISA is one of Available.
func TestReportISA(t *testing.T) {
	if !slices.Contains(kernel.Available(), kernel.ISA()) {
		t.Fatalf("ISA() = %q, not in Available() = %v", kernel.ISA(), kernel.Available())
	}
	if os.Getenv(envReport) != "" {
		fmt.Printf("ISA=%s AVAILABLE=%s\n", kernel.ISA(), strings.Join(kernel.Available(), ","))
	}
}

// childISA runs this test binary (optionally under a wrapper command such
// as qemu) with extra environment and returns the ISA and Available it
// reported.
func childISA(t *testing.T, wrapper []string, env ...string) (isa string, avail []string) {
	t.Helper()
	if wrapper == nil {
		// Under qemu, children must run under the same emulated CPU.
		wrapper = strings.Fields(os.Getenv(envQEMU))
	}
	args := append(slices.Clone(wrapper), os.Args[0], "-test.run=^TestReportISA$", "-test.count=1")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(cleanEnv(), append(env, envReport+"=1")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "ISA="); ok {
			isa, av, _ := strings.Cut(rest, " AVAILABLE=")
			return isa, strings.Split(av, ",")
		}
	}
	t.Fatalf("%v printed no ISA line:\n%s", args, out)
	return "", nil
}

// cleanEnv is this process's environment without the variables that steer
// dispatch or the tests, so that each child sees only what a test sets.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case kernel.EnvISA, "GODEBUG", envRequire, envReport, envQEMU:
			continue
		}
		env = append(env, kv)
	}
	return env
}

// TestForcedISA checks SEGDIST_ISA: every available path can be forced, an
// unknown or unavailable one falls back to the best, and ISA says which.
func TestForcedISA(t *testing.T) {
	best := kernel.Available()[0]
	for _, want := range kernel.Available() {
		if got, _ := childISA(t, nil, kernel.EnvISA+"="+want); got != want {
			t.Errorf("%s=%s: ISA() = %q", kernel.EnvISA, want, got)
		}
	}
	for _, bogus := range []string{"", "sse9", "AVX2 ", "neon"} {
		if got, _ := childISA(t, nil, kernel.EnvISA+"="+bogus); got != best {
			t.Errorf("%s=%q: ISA() = %q, want the best path %q", kernel.EnvISA, bogus, got, best)
		}
	}
}

// TestGODEBUGDisablesAVX512 checks that dispatch looks at each feature
// flag: GODEBUG=cpu.avx512f=off must leave AVX2 as the best path.
func TestGODEBUGDisablesAVX512(t *testing.T) {
	if !slices.Contains(kernel.Available(), "avx512") {
		requireOrSkip(t, "avx512")
		return
	}
	isa, avail := childISA(t, nil, "GODEBUG=cpu.avx512f=off")
	if isa != "avx2" || slices.Contains(avail, "avx512") {
		t.Errorf("GODEBUG=cpu.avx512f=off: ISA() = %q, Available() = %v; want avx2 without avx512", isa, avail)
	}
	isa, _ = childISA(t, nil, "GODEBUG=cpu.avx512f=off", kernel.EnvISA+"=avx512")
	if isa != "avx2" {
		t.Errorf("GODEBUG=cpu.avx512f=off %s=avx512: ISA() = %q, want avx2 (never a path the CPU lacks)", kernel.EnvISA, isa)
	}
}

// TestQEMUWithoutAVX runs this test binary under qemu-x86_64 emulating a
// CPU without AVX (Nehalem): dispatch must pick "go", and the kernel tests
// must pass there. Skipped when qemu-x86_64 is not installed (CI installs
// it) or when this binary already runs under it.
func TestQEMUWithoutAVX(t *testing.T) {
	if runtime.GOARCH != "amd64" || os.Getenv(envQEMU) != "" {
		t.Skip("amd64 host only, and not recursively")
	}
	if goamd64V3 {
		t.Skip("GOAMD64=v3 binaries do not start on a CPU without AVX2")
	}
	qemu, err := exec.LookPath("qemu-x86_64")
	if err != nil {
		t.Skip("qemu-x86_64 not installed")
	}
	wrapper := []string{qemu, "-cpu", "Nehalem"}
	isa, avail := childISA(t, wrapper)
	if isa != "go" || len(avail) != 1 {
		t.Fatalf("under qemu -cpu Nehalem: ISA() = %q, Available() = %v; want only go", isa, avail)
	}
	if testing.Short() {
		return
	}
	cmd := exec.Command(qemu, "-cpu", "Nehalem", os.Args[0], "-test.short", "-test.count=1")
	cmd.Env = append(cleanEnv(), envQEMU+"="+strings.Join(wrapper, " "))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kernel tests under qemu -cpu Nehalem: %v\n%s", err, out)
	}
}
