package kernel

import (
	"fmt"
	"math"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// TOIParamsOf are the parameters of the time-of-impact kernels.
type TOIParamsOf[F soa.Float] struct {
	// Margin is added to the sum of the radii and pads; it may be
	// negative (a hit then needs that much overlap), not NaN or infinite.
	Margin F
	// Tol is the distance tolerance, >= 0: a Hit is reported with the axes
	// within target + Tol. It is raised to 32 eps x scale, so 0 asks for
	// the tightest answer the precision allows.
	Tol F
	// TMax ends the search interval [0, TMax], within [0, 1].
	TMax F
	// MaxIter is the most closest-point evaluations per pair, >= 1; a pair
	// that needs more ends Unconverged at a safe time.
	MaxIter int
	// Pad, if not nil, holds one sweep padding per capsule (>= 0, as many
	// as capsules): fallback.SweepPad's cover for rotation.
	Pad []F
}

// TOIParams are float32 parameters, TOIParams64 float64 ones.
type (
	TOIParams   = TOIParamsOf[float32]
	TOIParams64 = TOIParamsOf[float64]
)

// BatchTOI computes the time of impact of every pair of swept capsules:
// capsule pairs.I[k] against pairs.J[k], each moving from its record in
// start to its record in end (every axis endpoint linearly over the step,
// the radius the larger of the two), and writes row k of dst (pairs.Len()
// rows). fallback.TOILane is the exact rule: conservative advancement on
// a fixed axis that never misses a hit and is never late, within the
// bounds docs/guarantees.md states. A pair with a non-finite value or a
// negative radius or pad is Invalid, with the canonical NaN in its
// floats. Mismatched lengths, indices out of range, a nil batch, memory
// shared between dst and an input, and parameters out of range panic
// before anything is computed.
func BatchTOI(dst *soa.TOIs, start, end soa.Capsules, pairs *soa.IndexPairs, p TOIParams) {
	active.BatchTOI(dst, start, end, pairs, p)
}

// CompactTOI is BatchTOI for the pairs that are not a proven Miss (Hit,
// Initial, Unconverged, Invalid): their rows densely from row 0 in pair
// order, Pair holding each row's pair index; it returns their number, and
// the rows from the count on keep their contents. Nothing an engine must
// act on is dropped.
func CompactTOI(dst *soa.TOIs, start, end soa.Capsules, pairs *soa.IndexPairs, p TOIParams) int {
	return active.CompactTOI(dst, start, end, pairs, p)
}

// BatchTOI64 is BatchTOI in float64 (fallback.TOILane64).
func BatchTOI64(dst *soa.TOIs64, start, end soa.Capsules64, pairs *soa.IndexPairs, p TOIParams64) {
	active.BatchTOI64(dst, start, end, pairs, p)
}

// CompactTOI64 is CompactTOI in float64.
func CompactTOI64(dst *soa.TOIs64, start, end soa.Capsules64, pairs *soa.IndexPairs, p TOIParams64) int {
	return active.CompactTOI64(dst, start, end, pairs, p)
}

// TOI is the time of impact of one pair of swept capsules, the same bits
// as a row of BatchTOI.
func TOI(i, j fallback.SweptCapsule, p fallback.TOIParams) fallback.TOI {
	return fallback.TOILane(i, j, p)
}

// TOI64 is TOI in float64.
func TOI64(i, j fallback.SweptCapsule64, p fallback.TOIParams64) fallback.TOI64 {
	return fallback.TOILane64(i, j, p)
}

// BatchTOI is the package-level BatchTOI on this path.
func (k Kernel) BatchTOI(dst *soa.TOIs, start, end soa.Capsules, pairs *soa.IndexPairs, p TOIParams) {
	if m := checkTOIArgs(dst, start, end, pairs, &p, true); m > 0 {
		k.f32.toi(m, dst, start, end, pairs, p, false)
	}
}

// CompactTOI is the package-level CompactTOI on this path.
func (k Kernel) CompactTOI(dst *soa.TOIs, start, end soa.Capsules, pairs *soa.IndexPairs, p TOIParams) int {
	if m := checkTOIArgs(dst, start, end, pairs, &p, false); m > 0 {
		return k.f32.toi(m, dst, start, end, pairs, p, true)
	}
	return 0
}

// BatchTOI64 is the package-level BatchTOI64 on this path.
func (k Kernel) BatchTOI64(dst *soa.TOIs64, start, end soa.Capsules64, pairs *soa.IndexPairs, p TOIParams64) {
	if m := checkTOIArgs(dst, start, end, pairs, &p, true); m > 0 {
		k.f64.toi(m, dst, start, end, pairs, p, false)
	}
}

// CompactTOI64 is the package-level CompactTOI64 on this path.
func (k Kernel) CompactTOI64(dst *soa.TOIs64, start, end soa.Capsules64, pairs *soa.IndexPairs, p TOIParams64) int {
	if m := checkTOIArgs(dst, start, end, pairs, &p, false); m > 0 {
		return k.f64.toi(m, dst, start, end, pairs, p, true)
	}
	return 0
}

// checkTOIArgs checks a TOI call's parameters, lengths, memory and
// indices, and returns the number of pairs.
func checkTOIArgs[F soa.Float](dst *soa.TOIsOf[F], start, end soa.CapsulesOf[F], pairs *soa.IndexPairs, p *TOIParamsOf[F], exact bool) int {
	checkNotNil("dst", dst)
	checkNotNil("pairs", pairs)
	mf := maxFinite[F]()
	switch {
	case !(math.Abs(float64(p.Margin)) <= mf):
		panic(fmt.Sprintf("segdist/kernel: TOI margin %v must be finite", p.Margin))
	case !(p.Tol >= 0 && float64(p.Tol) <= mf):
		panic(fmt.Sprintf("segdist/kernel: TOI tolerance %v must be finite and >= 0", p.Tol))
	case !(p.TMax >= 0 && p.TMax <= 1):
		panic(fmt.Sprintf("segdist/kernel: TMax %v must be within [0, 1]", p.TMax))
	case p.MaxIter < 1:
		panic(fmt.Sprintf("segdist/kernel: MaxIter %d must be >= 1", p.MaxIter))
	case len(start) != len(end):
		panic(fmt.Sprintf("segdist/kernel: len(end) = %d, want %d (len(start))", len(end), len(start)))
	case p.Pad != nil && len(p.Pad) != len(start):
		panic(fmt.Sprintf("segdist/kernel: len(Pad) = %d, want %d (len(start)) or nil", len(p.Pad), len(start)))
	}
	m := len(pairs.I)
	checkLen("pairs.J", len(pairs.J), m, "len(pairs.I)")
	lens := [...]int{len(dst.Pair), len(dst.Status), len(dst.Iter), len(dst.T), len(dst.Dist), len(dst.NX), len(dst.NY), len(dst.NZ),
		len(dst.PX), len(dst.PY), len(dst.PZ), len(dst.QX), len(dst.QY), len(dst.QZ)}
	for i, l := range lens {
		if exact {
			checkLen(toiStreams[i], l, m, "len(pairs.I)")
		} else if l < m {
			panic(fmt.Sprintf("segdist/kernel: len(%s) = %d, want at least %d (len(pairs.I))", toiStreams[i], l, m))
		}
	}
	if m == 0 {
		return 0
	}
	outs := [...]stream{streamOf(toiStreams[0], dst.Pair, m), streamOf(toiStreams[1], dst.Status, m), streamOf(toiStreams[2], dst.Iter, m),
		streamOf(toiStreams[3], dst.T, m), streamOf(toiStreams[4], dst.Dist, m), streamOf(toiStreams[5], dst.NX, m),
		streamOf(toiStreams[6], dst.NY, m), streamOf(toiStreams[7], dst.NZ, m), streamOf(toiStreams[8], dst.PX, m),
		streamOf(toiStreams[9], dst.PY, m), streamOf(toiStreams[10], dst.PZ, m), streamOf(toiStreams[11], dst.QX, m),
		streamOf(toiStreams[12], dst.QY, m), streamOf(toiStreams[13], dst.QZ, m)}
	ins := [...]stream{streamOf("start", start, len(start)), streamOf("end", end, len(end)),
		streamOf("Pad", p.Pad, len(p.Pad)), streamOf("pairs.I", pairs.I, m), streamOf("pairs.J", pairs.J, m)}
	sharedMemory(outs[:], ins[:])
	if !indicesBelow(pairs.I, pairs.J, len(start)) {
		checkIndices("pairs.I", pairs.I, len(start))
		checkIndices("pairs.J", pairs.J, len(start))
	}
	return m
}

// toiStreams names the streams of a soa.TOIs in checkTOIArgs' order.
var toiStreams = [...]string{"dst.Pair", "dst.Status", "dst.Iter", "dst.T", "dst.Dist", "dst.NX", "dst.NY", "dst.NZ",
	"dst.PX", "dst.PY", "dst.PZ", "dst.QX", "dst.QY", "dst.QZ"}

// goTOI runs fallback's TOI lane on the m pairs, one row per pair or, if
// compact, one per pair that is not a Miss; it returns the rows written.
func goTOI[F soa.Float](m int, dst *soa.TOIsOf[F], start, end soa.CapsulesOf[F], pairs *soa.IndexPairs, p TOIParamsOf[F], compact bool) int {
	prm := fallback.TOIParamsOf[F]{Margin: p.Margin, Tol: p.Tol, TMax: p.TMax, MaxIter: p.MaxIter}
	// The capsules and the result stay in these variables and go to the
	// lane by pointer, not copied per pair.
	var ci, cj fallback.SweptCapsuleOf[F]
	var r fallback.TOIOf[F]
	w := 0
	for k := range m {
		swept(&ci, start, end, p.Pad, pairs.I[k])
		swept(&cj, start, end, p.Pad, pairs.J[k])
		fallback.TOILaneTo(&r, &ci, &cj, &prm)
		if compact && r.Status == fallback.TOIMiss {
			continue
		}
		dst.Pair[w], dst.Status[w], dst.Iter[w] = uint32(k), uint32(r.Status), r.Iter
		dst.T[w], dst.Dist[w] = r.T, r.Dist
		dst.NX[w], dst.NY[w], dst.NZ[w] = r.Normal[0], r.Normal[1], r.Normal[2]
		dst.PX[w], dst.PY[w], dst.PZ[w] = r.P[0], r.P[1], r.P[2]
		dst.QX[w], dst.QY[w], dst.QZ[w] = r.Q[0], r.Q[1], r.Q[2]
		w++
	}
	return w
}

// swept sets c to capsule i of the step, field by field.
func swept[F soa.Float](c *fallback.SweptCapsuleOf[F], start, end soa.CapsulesOf[F], pad []F, i uint32) {
	s, e := &start[i], &end[i]
	c.A0, c.B0, c.R0 = s.A, s.B, s.R
	c.A1, c.B1, c.R1 = e.A, e.B, e.R
	c.Pad = 0
	if pad != nil {
		c.Pad = pad[i]
	}
}

// NoPair marks a body without a hit in EarliestHits.
const NoPair = ^uint32(0)

// EarliestHits reduces TOI rows to what an engine clamps each body's
// motion to: for every body b (a capsule index of pairs, b < len(t)),
// t[b] is the earliest T among the first n rows of rows (written by
// BatchTOI or CompactTOI on pairs) whose status is Hit, Initial or
// Unconverged and whose pair includes b, and pair[b] that row's pair
// index; ties go to the lowest pair index, so the result does not depend
// on the order of the rows. Bodies without such a row get t = 1 and
// pair = NoPair. t and pair must have one length; a row's pair indices
// must be below it.
func EarliestHits[F soa.Float](t []F, pair []uint32, rows *soa.TOIsOf[F], n int, pairs *soa.IndexPairs) {
	checkNotNil("rows", rows)
	checkNotNil("pairs", pairs)
	checkLen("pair", len(pair), len(t), "len(t)")
	if n < 0 || n > rows.Len() {
		panic(fmt.Sprintf("segdist/kernel: EarliestHits of %d rows, have %d", n, rows.Len()))
	}
	for b := range t {
		t[b], pair[b] = 1, NoPair
	}
	for k := range n {
		switch fallback.TOIStatus(rows.Status[k]) {
		case fallback.TOIHit, fallback.TOIInitial, fallback.TOIUnconverged:
		default:
			continue
		}
		pk, tk := rows.Pair[k], rows.T[k]
		for _, b := range [2]uint32{pairs.I[pk], pairs.J[pk]} {
			if uint64(b) >= uint64(len(t)) {
				panic(fmt.Sprintf("segdist/kernel: EarliestHits: pair %d names body %d, have %d", pk, b, len(t)))
			}
			if tk < t[b] || tk == t[b] && pk < pair[b] {
				t[b], pair[b] = tk, pk
			}
		}
	}
}
