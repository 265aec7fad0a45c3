//go:build amd64 && gc && !purego

package kernel

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"

	"github.com/segdist/segdist/asm"
)

// cpuFeatures maps the feature names avo writes on the "Requires:" line
// above each generated function to this CPU's flags. Each flag of
// x/sys/cpu already includes the OS support for the register state (XCR0)
// and honours GODEBUG=cpu.<name>=off individually, which is why every
// flag is checked rather than an umbrella such as HasAVX512.
var cpuFeatures = map[string]bool{
	"MMX+":     true, // PREFETCHT0: SSE, part of the amd64 baseline
	"CMOV":     true, // amd64 baseline
	"AVX":      cpu.X86.HasAVX,
	"AVX2":     cpu.X86.HasAVX2,
	"AVX512F":  cpu.X86.HasAVX512F,
	"AVX512DQ": cpu.X86.HasAVX512DQ,
	"AVX512VL": cpu.X86.HasAVX512VL,
	"BMI2":     cpu.X86.HasBMI2,
	"POPCNT":   cpu.X86.HasPOPCNT,
}

// requires lists, per path, every feature its generated functions use (a
// test checks this against the "Requires:" lines of asm/kernels_amd64.s).
var requires = map[string][]string{
	"avx512": {"MMX+", "CMOV", "POPCNT", "AVX", "AVX2", "AVX512F", "AVX512DQ", "AVX512VL", "BMI2"},
	"avx2":   {"MMX+", "CMOV", "POPCNT", "AVX", "AVX2"},
}

// supported reports whether this CPU has every feature path isa needs.
func supported(isa string) bool {
	for _, f := range requires[isa] {
		if !cpuFeatures[f] {
			return false
		}
	}
	return true
}

// The range check's vector kernel is MaxIndexAVX2 wherever the avx2 path
// could run (the avx512 path's CPUs included).
func init() {
	if supported("avx2") {
		maxIndex = asm.MaxIndexAVX2
	}
	asm.PrefetchInputs = prefetchPays(cpuid.CPU.VendorID, cpuid.CPU.Family, cpuid.CPU.Supports(cpuid.AVX512F))
}

// prefetchPays reports whether the closest-point loops should prefetch
// their input streams on big batches (asm.PrefetchInputs) on this CPU.
// Prefetching pays on Zen 5 and costs nothing measurable on the Intel
// cores measured; on Zen 4 (AMD family 25 with AVX-512) the hardware
// prefetchers keep up alone and the prefetches only slow the loop
// (docs/levers.md).
func prefetchPays(vendor cpuid.Vendor, family int, avx512 bool) bool {
	return vendor != cpuid.AMD || family != 25 || !avx512
}

// archPaths returns the assembly paths this CPU can run, best first.
func archPaths() []Kernel {
	var ks []Kernel
	if supported("avx512") {
		ks = append(ks, Kernel{isa: "avx512", f32: &impl[float32]{closest: wrapDeferred(asm.ClosestAVX512), stream: wrap(asm.StreamAVX512),
			point: wrapPointDeferred(asm.ClosestPointAVX512), contacts: wrapContacts(asm.ContactsAVX512), compact: wrapContacts(asm.CompactContactsAVX512),
			indexed: wrapIndexedDeferred(asm.ClosestIndexedAVX512),
			planes:  wrapPlanes(asm.PlaneContactsAVX512), planesCompact: wrapPlanes(asm.CompactPlaneContactsAVX512),
			poses: wrapPoses(asm.PosesAVX512, asm.PosesIndexedAVX512), toi: wrapTOI(splitTOI(asm.TOIAVX512, asm.TOITailAVX512))},
			f64: &impl[float64]{closest: wrapDeferred(asm.Closest64AVX512), stream: wrap(asm.Stream64AVX512), point: wrapPointDeferred(asm.ClosestPoint64AVX512),
				contacts: wrapContacts(asm.Contacts64AVX512), compact: wrapContacts(asm.CompactContacts64AVX512),
				indexed: wrapIndexedDeferred(asm.ClosestIndexed64AVX512),
				planes:  wrapPlanes(asm.PlaneContacts64AVX512), planesCompact: wrapPlanes(asm.CompactPlaneContacts64AVX512),
				poses: wrapPoses(asm.Poses64AVX512, asm.PosesIndexed64AVX512), toi: wrapTOI(splitTOI(asm.TOI64AVX512, asm.TOITail64AVX512))}})
	}
	if supported("avx2") {
		ks = append(ks, Kernel{isa: "avx2", f32: &impl[float32]{closest: wrapDeferred(asm.ClosestAVX2), stream: wrap(asm.StreamAVX2),
			point: wrapPointDeferred(asm.ClosestPointAVX2), contacts: wrapContacts(asm.ContactsAVX2), compact: wrapContacts(asm.CompactContactsAVX2),
			indexed: wrapIndexedDeferred(asm.ClosestIndexedAVX2),
			planes:  wrapPlanes(asm.PlaneContactsAVX2), planesCompact: wrapPlanes(asm.CompactPlaneContactsAVX2),
			poses: wrapPoses(asm.PosesAVX2, asm.PosesIndexedAVX2), toi: wrapTOI(splitTOI(asm.TOIAVX2, asm.TOITailAVX2))},
			f64: &impl[float64]{closest: wrapDeferred(asm.Closest64AVX2), stream: wrap(asm.Stream64AVX2), point: wrapPointDeferred(asm.ClosestPoint64AVX2),
				contacts: wrapContacts(asm.Contacts64AVX2), compact: wrapContacts(asm.CompactContacts64AVX2),
				indexed: wrapIndexedDeferred(asm.ClosestIndexed64AVX2),
				planes:  wrapPlanes(asm.PlaneContacts64AVX2), planesCompact: wrapPlanes(asm.CompactPlaneContacts64AVX2),
				poses: wrapPoses(asm.Poses64AVX2, asm.PosesIndexed64AVX2), toi: wrapTOI(splitTOI(asm.TOI64AVX2, asm.TOITail64AVX2))}})
	}
	return ks
}
