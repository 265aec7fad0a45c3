package kernel_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// envRequire names the paths that must be available, comma-separated (CI
// sets it to what its CPU kind has): a test that would skip one of them
// for lack of CPU support fails instead, so a broken dispatch cannot turn
// CI green by skipping.
const envRequire = "SEGDIST_TEST_REQUIRE"

// requireOrSkip skips t because path isa is unavailable, or fails it when
// SEGDIST_TEST_REQUIRE names that path and this build has assembly paths
// (asmBuild: under purego or on another GOARCH only "go" exists by
// construction).
func requireOrSkip(t *testing.T, isa string) {
	t.Helper()
	if asmBuild && slices.Contains(strings.Split(os.Getenv(envRequire), ","), isa) {
		t.Fatalf("%s=%s requires path %q, which this CPU or build does not offer", envRequire, os.Getenv(envRequire), isa)
	}
	t.Skipf("path %q not available on this CPU or build", isa)
}
