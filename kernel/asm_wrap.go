//go:build (amd64 || arm64) && gc && !purego

package kernel

import (
	"unsafe"

	"github.com/segdist/segdist/soa"
)

// The adapters from the soa types to the generated kernels' pointer
// arguments, shared by every architecture with assembly paths.

// asmBatch is the signature of every generated batch kernel.
type asmBatch[F soa.Float] func(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2 *F, n int)

// wrap adapts a generated kernel to the dispatch table. It runs after
// checkLengths: n > 0 and every slice has n elements, which is all the
// assembly assumes.
func wrap[F soa.Float](f asmBatch[F]) func(n int, dst *soa.ResultsOf[F], src *soa.PairsOf[F]) {
	return func(n int, dst *soa.ResultsOf[F], src *soa.PairsOf[F]) {
		f(&src.AX[0], &src.AY[0], &src.AZ[0], &src.BX[0], &src.BY[0], &src.BZ[0],
			&src.CX[0], &src.CY[0], &src.CZ[0], &src.DX[0], &src.DY[0], &src.DZ[0],
			&dst.S[0], &dst.T[0], &dst.Dist2[0], n)
	}
}

// wrapPoint adapts a generated point-segment kernel, as wrap does.
func wrapPoint[F soa.Float](f func(px, py, pz, cx, cy, cz, dx, dy, dz, t, dist2 *F, n int)) func(n int, dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F]) {
	return func(n int, dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F]) {
		f(&src.PX[0], &src.PY[0], &src.PZ[0], &src.CX[0], &src.CY[0], &src.CZ[0],
			&src.DX[0], &src.DY[0], &src.DZ[0], &dst.T[0], &dst.Dist2[0], n)
	}
}

// wrapContacts adapts a generated contact kernel (all rows or compacted).
// It runs after checkContactArgs: m > 0, every index in range and every
// output stream with room for m rows.
func wrapContacts[F soa.Float](f func(caps *F, pi, pj *uint32, out *[13]*F, n int, margin F, prefetch int) int) func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, margin F) int {
	return func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, margin F) int {
		// Filled in place from unsafe.SliceData (no bounds checks: every
		// stream has room for m > 0 rows). The compiler builds a composite
		// literal of &s[0] in a temporary and copies it, 16-byte loads of
		// 8-byte stores, which do not forward (docs/levers.md).
		var out [13]*F
		contactOut(&out, dst)
		return f(&caps[0].A[0], &pairs.I[0], &pairs.J[0], &out, m, margin, prefetchRecords(caps, recordPrefetchMin))
	}
}

// contactOut fills out with the thirteen streams of dst, in the
// generated contact kernels' order.
func contactOut[F soa.Float](out *[13]*F, dst *soa.ContactsOf[F]) {
	out[0] = (*F)(unsafe.Pointer(unsafe.SliceData(dst.Pair)))
	out[1] = (*F)(unsafe.Pointer(unsafe.SliceData(dst.Count)))
	out[2], out[3] = unsafe.SliceData(dst.Depth1), unsafe.SliceData(dst.Depth2)
	out[4], out[5], out[6] = unsafe.SliceData(dst.NX), unsafe.SliceData(dst.NY), unsafe.SliceData(dst.NZ)
	out[7], out[8], out[9] = unsafe.SliceData(dst.P1X), unsafe.SliceData(dst.P1Y), unsafe.SliceData(dst.P1Z)
	out[10], out[11], out[12] = unsafe.SliceData(dst.P2X), unsafe.SliceData(dst.P2Y), unsafe.SliceData(dst.P2Z)
}

// asmPlanes is the signature of the generated plane contact kernels.
type asmPlanes[F soa.Float] func(caps, planes *F, pi, pj *uint32, out *[13]*F, n int, margin F, prefetch, nplanes int) int

// wrapPlanes adapts a generated plane contact kernel (all rows or
// compacted), as wrapContacts does. It runs after checkPlaneArgs: m > 0,
// every index in range (J against the planes) and every output stream
// with room for m rows. Only the capsule records are prefetched: the
// planes are few (on amd64, up to a vector's lanes of them are kept
// transposed in the kernel's frame).
func wrapPlanes[F soa.Float](f asmPlanes[F]) func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, margin F) int {
	return func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, margin F) int {
		var out [13]*F
		contactOut(&out, dst)
		return f(&caps[0].A[0], &planes[0].N[0], &pairs.I[0], &pairs.J[0], &out, m, margin, prefetchRecords(caps, recordPrefetchMin), len(planes))
	}
}

// wrapIndexed adapts a generated indexed closest kernel. It runs after
// checkIndexedArgs: m > 0, every index in range, every result slice of m.
func wrapIndexed[F soa.Float](f func(caps *F, pi, pj *uint32, s, t, dist2 *F, n int, prefetch int)) func(m int, dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs) {
	return func(m int, dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs) {
		f(&caps[0].A[0], &pairs.I[0], &pairs.J[0], &dst.S[0], &dst.T[0], &dst.Dist2[0], m, prefetchRecords(caps, indexedPrefetchMin))
	}
}

// asmPoses and asmPosesIndexed are the signatures of the generated pose
// kernels.
type (
	asmPoses[F soa.Float]        func(px, py, pz, qx, qy, qz, qw, local, dst *F, n int)
	asmPosesIndexed[F soa.Float] func(px, py, pz, qx, qy, qz, qw, local, dst *F, bodies *uint32, n int)
)

// wrapPoses adapts the generated pose kernels: f for every body, fi for
// the bodies listed. It runs after checkPoseArgs: n > 0, every stream of
// the stores' length and every listed body below it.
func wrapPoses[F soa.Float](f asmPoses[F], fi asmPosesIndexed[F]) func(n int, dst, local soa.CapsulesOf[F], poses *soa.PosesOf[F], bodies []uint32) {
	return func(n int, dst, local soa.CapsulesOf[F], poses *soa.PosesOf[F], bodies []uint32) {
		p := poses
		if bodies == nil {
			f(&p.PX[0], &p.PY[0], &p.PZ[0], &p.QX[0], &p.QY[0], &p.QZ[0], &p.QW[0], &local[0].A[0], &dst[0].A[0], n)
			return
		}
		fi(&p.PX[0], &p.PY[0], &p.PZ[0], &p.QX[0], &p.QY[0], &p.QZ[0], &p.QW[0], &local[0].A[0], &dst[0].A[0], &bodies[0], n)
	}
}
