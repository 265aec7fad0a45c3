//go:build arm64 && gc && !purego

package kernel

import "github.com/segdist/segdist/asm"

func init() { maxIndex = asm.MaxIndexNEON }

// archPaths returns the NEON path: Advanced SIMD is part of the arm64
// baseline, so there is nothing to check.
func archPaths() []Kernel {
	return []Kernel{{isa: "neon", f32: &impl[float32]{closest: wrap(asm.ClosestNEON), stream: wrap(asm.StreamNEON),
		point: wrapPoint(asm.ClosestPointNEON), contacts: wrapContacts(asm.ContactsNEON), compact: wrapContacts(asm.CompactContactsNEON),
		indexed: wrapIndexed(asm.ClosestIndexedNEON),
		planes:  wrapPlanes(asm.PlaneContactsNEON), planesCompact: wrapPlanes(asm.CompactPlaneContactsNEON),
		poses: wrapPoses(asm.PosesNEON, asm.PosesIndexedNEON), toi: wrapTOI(asm.TOINEON)},
		f64: &impl[float64]{closest: wrap(asm.Closest64NEON), stream: wrap(asm.Stream64NEON), point: wrapPoint(asm.ClosestPoint64NEON),
			contacts: wrapContacts(asm.Contacts64NEON), compact: wrapContacts(asm.CompactContacts64NEON),
			indexed: wrapIndexed(asm.ClosestIndexed64NEON),
			planes:  wrapPlanes(asm.PlaneContacts64NEON), planesCompact: wrapPlanes(asm.CompactPlaneContacts64NEON),
			poses: wrapPoses(asm.Poses64NEON, asm.PosesIndexed64NEON), toi: wrapTOI(asm.TOI64NEON)}}}
}
