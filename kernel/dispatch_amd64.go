//go:build amd64 && gc && !purego

package kernel

import (
	"golang.org/x/sys/cpu"

	"github.com/segdist/segdist/asm"
	"github.com/segdist/segdist/soa"
)

// The CPU features each generated kernel uses, one by one: the "Requires:"
// lines avo writes above each function in asm/kernels_amd64.s (a test
// checks the two agree). Each flag of x/sys/cpu already includes the OS
// support for the register state (XCR0) and honours GODEBUG=cpu.<flag>=off.
var (
	hasAVX2   = cpu.X86.HasAVX && cpu.X86.HasAVX2
	hasAVX512 = cpu.X86.HasAVX && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasBMI2
)

// archPaths returns the assembly paths this CPU can run, best first.
func archPaths() []Kernel {
	var ks []Kernel
	if hasAVX512 {
		ks = append(ks, Kernel{isa: "avx512", closest: wrap(asm.ClosestAVX512), stream: wrap(asm.StreamAVX512)})
	}
	if hasAVX2 {
		ks = append(ks, Kernel{isa: "avx2", closest: wrap(asm.ClosestAVX2), stream: wrap(asm.StreamAVX2)})
	}
	return ks
}

// asmBatch is the signature of every generated batch kernel.
type asmBatch func(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2 *float32, n int)

// wrap adapts a generated kernel to the dispatch table. It runs after
// checkLengths: n > 0 and every slice has n elements, which is all the
// assembly assumes.
func wrap(f asmBatch) func(n int, dst *soa.Results, src *soa.Pairs) {
	return func(n int, dst *soa.Results, src *soa.Pairs) {
		f(&src.AX[0], &src.AY[0], &src.AZ[0], &src.BX[0], &src.BY[0], &src.BZ[0],
			&src.CX[0], &src.CY[0], &src.CZ[0], &src.DX[0], &src.DY[0], &src.DZ[0],
			&dst.S[0], &dst.T[0], &dst.Dist2[0], n)
	}
}
