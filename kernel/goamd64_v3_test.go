//go:build amd64.v3

package kernel_test

// goamd64V3 reports a GOAMD64=v3 (or higher) build: its binaries refuse
// to start on a CPU without AVX2, so they cannot run under qemu -cpu
// Nehalem.
const goamd64V3 = true
