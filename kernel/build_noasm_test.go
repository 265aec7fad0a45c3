//go:build !(amd64 || arm64) || !gc || purego

package kernel_test

// asmBuild reports whether this build includes the assembly paths; only
// then does SEGDIST_TEST_REQUIRE apply (a purego build or one for another GOARCH has
// only "go" by construction, whatever the CPU offers).
const asmBuild = false
