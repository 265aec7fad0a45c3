//go:build (amd64 || arm64) && gc && !purego

package kernel

import (
	"math"
	"unsafe"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// asmTOI is the signature of the generated time-of-impact kernels.
type asmTOI[F soa.Float] func(start, end, pad *F, pi, pj *uint32, out *[14]*F, n int, margin, tol, tmax, maxiter F)

// splitTOI joins the two generated TOI kernels of a target that runs
// several groups per iteration: whole, which computes the first pairs of
// whole iterations and returns their number, and tail, which computes
// any number of pairs one group at a time, into one kernel of asmTOI's
// signature. The tail's rows are written from row done on, their Pair
// then counted from done.
func splitTOI[F soa.Float](whole func(start, end, pad *F, pi, pj *uint32, out *[14]*F, n int, margin, tol, tmax, maxiter F) int, tail asmTOI[F]) asmTOI[F] {
	return func(start, end, pad *F, pi, pj *uint32, out *[14]*F, n int, margin, tol, tmax, maxiter F) {
		done := whole(start, end, pad, pi, pj, out, n, margin, tol, tmax, maxiter)
		if done == n {
			return
		}
		var rest [14]*F
		for s, p := range out {
			size := unsafe.Sizeof(F(0))
			if s < 3 {
				size = 4 // Pair, Status, Iter: uint32
			}
			rest[s] = (*F)(unsafe.Add(unsafe.Pointer(p), uintptr(done)*size))
		}
		pi, pj = (*uint32)(unsafe.Add(unsafe.Pointer(pi), 4*done)), (*uint32)(unsafe.Add(unsafe.Pointer(pj), 4*done))
		tail(start, end, pad, pi, pj, &rest, n-done, margin, tol, tmax, maxiter)
		pair := unsafe.Slice((*uint32)(unsafe.Pointer(rest[0])), n-done)
		for r := range pair {
			pair[r] += uint32(done)
		}
	}
}

// toiChunk is how many pairs CompactTOI computes into its scratch rows at
// a time before it keeps those that are not a Miss: a multiple of every
// target's pairs per iteration (48 for AVX-512 float32), so that no chunk
// but the last runs the one-group tail, and large enough to spread the
// call (CompactTOI at 5% hits: 1.13x BatchTOI with chunks of 128, 1.03x
// with 288; docs/levers.md).
const toiChunk = 288

// toiRows is CompactTOI's scratch: toiChunk rows in the order of a
// soa.TOIs, on the caller's stack.
type toiRows[F soa.Float] struct {
	pair, status, iter [toiChunk]uint32
	f                  [11][toiChunk]F // T, Dist, N, P, Q
}

// wrapTOI adapts a generated TOI kernel. It runs after checkTOIArgs: m >
// 0, every index in range, every output stream with room for m rows.
// Parameters the kernel cannot take exactly (a MaxIter beyond the floats'
// exact integers, more capsules than its signed 32-bit gather indices
// reach) run the spec instead.
func wrapTOI[F soa.Float](f asmTOI[F]) func(m int, dst *soa.TOIsOf[F], start, end soa.CapsulesOf[F], pairs *soa.IndexPairs, p TOIParamsOf[F], compact bool) int {
	return func(m int, dst *soa.TOIsOf[F], start, end soa.CapsulesOf[F], pairs *soa.IndexPairs, p TOIParamsOf[F], compact bool) int {
		exact := 1 << 24
		if unsafe.Sizeof(F(0)) == 8 {
			exact = 1 << 53
		}
		if p.MaxIter > exact || len(start) > math.MaxInt32 {
			return goTOI(m, dst, start, end, pairs, p, compact)
		}
		var pad *F
		if p.Pad != nil {
			pad = unsafe.SliceData(p.Pad)
		}
		run := func(out *[14]*F, base, n int) {
			f(&start[0].A[0], &end[0].A[0], pad, &pairs.I[base], &pairs.J[base], out, n, p.Margin, p.Tol, p.TMax, F(p.MaxIter))
		}
		var out [14]*F
		if !compact {
			toiOut(&out, dst)
			run(&out, 0, m)
			return m
		}
		var rows toiRows[F]
		out[0] = (*F)(unsafe.Pointer(&rows.pair[0]))
		out[1] = (*F)(unsafe.Pointer(&rows.status[0]))
		out[2] = (*F)(unsafe.Pointer(&rows.iter[0]))
		for k := range rows.f {
			out[3+k] = &rows.f[k][0]
		}
		w := 0
		for base := 0; base < m; base += toiChunk {
			n := min(toiChunk, m-base)
			run(&out, base, n)
			for r := range n {
				if rows.status[r] == uint32(fallback.TOIMiss) {
					continue
				}
				dst.Pair[w], dst.Status[w], dst.Iter[w] = uint32(base+r), rows.status[r], rows.iter[r]
				dst.T[w], dst.Dist[w] = rows.f[0][r], rows.f[1][r]
				dst.NX[w], dst.NY[w], dst.NZ[w] = rows.f[2][r], rows.f[3][r], rows.f[4][r]
				dst.PX[w], dst.PY[w], dst.PZ[w] = rows.f[5][r], rows.f[6][r], rows.f[7][r]
				dst.QX[w], dst.QY[w], dst.QZ[w] = rows.f[8][r], rows.f[9][r], rows.f[10][r]
				w++
			}
		}
		return w
	}
}

// toiOut fills out with the fourteen streams of dst, in the generated
// TOI kernels' order.
func toiOut[F soa.Float](out *[14]*F, dst *soa.TOIsOf[F]) {
	out[0] = (*F)(unsafe.Pointer(unsafe.SliceData(dst.Pair)))
	out[1] = (*F)(unsafe.Pointer(unsafe.SliceData(dst.Status)))
	out[2] = (*F)(unsafe.Pointer(unsafe.SliceData(dst.Iter)))
	out[3], out[4] = unsafe.SliceData(dst.T), unsafe.SliceData(dst.Dist)
	out[5], out[6], out[7] = unsafe.SliceData(dst.NX), unsafe.SliceData(dst.NY), unsafe.SliceData(dst.NZ)
	out[8], out[9], out[10] = unsafe.SliceData(dst.PX), unsafe.SliceData(dst.PY), unsafe.SliceData(dst.PZ)
	out[11], out[12], out[13] = unsafe.SliceData(dst.QX), unsafe.SliceData(dst.QY), unsafe.SliceData(dst.QZ)
}
