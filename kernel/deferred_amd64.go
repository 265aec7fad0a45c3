//go:build amd64 && gc && !purego

package kernel

import (
	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// The AVX-512 and AVX2 closest and point kernels leave the canonical NaN
// of lanes whose Dist2 is not finite to their caller
// (gen/amd64, Bodies.DeferOverrides): they return bad != 0 when a lane needs it,
// and these adapters then store it, which gives the bits of the spec (the
// Select of canonicalize in gen/kernels). Storing it in the kernels cost,
// on every group, a broadcast and a masked store per output on AVX-512
// and a blend per output on AVX2, for lanes that finite input never has.

// asmBatchDeferred is a generated batch kernel that returns bad.
type asmBatchDeferred[F soa.Float] func(ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2 *F, n int) (bad int)

// asmPointDeferred is a generated point-segment kernel that returns bad.
type asmPointDeferred[F soa.Float] func(px, py, pz, cx, cy, cz, dx, dy, dz, t, dist2 *F, n int) (bad int)

// wrapDeferred is wrap for a kernel that returns bad.
func wrapDeferred[F soa.Float](f asmBatchDeferred[F]) func(n int, dst *soa.ResultsOf[F], src *soa.PairsOf[F]) {
	return func(n int, dst *soa.ResultsOf[F], src *soa.PairsOf[F]) {
		bad := f(&src.AX[0], &src.AY[0], &src.AZ[0], &src.BX[0], &src.BY[0], &src.BZ[0],
			&src.CX[0], &src.CY[0], &src.CZ[0], &src.DX[0], &src.DY[0], &src.DZ[0],
			&dst.S[0], &dst.T[0], &dst.Dist2[0], n)
		if bad != 0 {
			storeNaNs(dst.Dist2[:n], dst.S[:n], dst.T[:n])
		}
	}
}

// wrapPointDeferred is wrapPoint for a kernel that returns bad.
func wrapPointDeferred[F soa.Float](f asmPointDeferred[F]) func(n int, dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F]) {
	return func(n int, dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F]) {
		bad := f(&src.PX[0], &src.PY[0], &src.PZ[0], &src.CX[0], &src.CY[0], &src.CZ[0],
			&src.DX[0], &src.DY[0], &src.DZ[0], &dst.T[0], &dst.Dist2[0], n)
		if bad != 0 {
			storeNaNs(dst.Dist2[:n], nil, dst.T[:n])
		}
	}
}

// storeNaNs stores the canonical NaN in dist2[i], s[i] (unless s is nil)
// and t[i] for every i where dist2[i] is NaN or ±Inf: !(dist2 <= the
// largest finite F), the spec's test. s and t have len(dist2) elements.
func storeNaNs[F soa.Float](dist2, s, t []F) {
	var nan F
	switch p := any(&nan).(type) {
	case *float32:
		*p = fallback.CanonicalNaN
	case *float64:
		*p = fallback.CanonicalNaN64
	}
	limit := F(maxFinite[F]())
	for i, d := range dist2 {
		if !(d <= limit) {
			dist2[i], t[i] = nan, nan
			if s != nil {
				s[i] = nan
			}
		}
	}
}

// asmIndexedDeferred is a generated indexed closest-point kernel that
// returns bad.
type asmIndexedDeferred[F soa.Float] func(caps *F, pi, pj *uint32, s, t, dist2 *F, n int, prefetch int) (bad int)

// wrapIndexedDeferred is wrapIndexed for a kernel that returns bad.
func wrapIndexedDeferred[F soa.Float](f asmIndexedDeferred[F]) func(m int, dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs) {
	return func(m int, dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs) {
		if f(&caps[0].A[0], &pairs.I[0], &pairs.J[0], &dst.S[0], &dst.T[0], &dst.Dist2[0], m, prefetchRecords(caps, indexedPrefetchMin)) != 0 {
			storeNaNs(dst.Dist2[:m], dst.S[:m], dst.T[:m])
		}
	}
}
