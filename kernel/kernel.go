// Package kernel computes, many pairs at once, the closest points of 3D
// segments (the axes of capsules) and the contacts of capsules, on the
// fastest instruction set this CPU has: AVX-512, AVX2, NEON (arm64) or
// pure Go, chosen once at start-up (SEGDIST_ISA can force one).
//
// # Guarantees
//
// For every pair i of src, BatchClosest writes the parameter S[i] in [0,1]
// of the closest point on segment 1 (A + s(B-A)), the parameter T[i] in
// [0,1] on segment 2 (C + t(D-C)) and their squared distance Dist2[i]:
//   - Accuracy: sqrt(Dist2) is within 8 eps32 x scale of the exact minimum
//     distance, and so is the distance between the two reported points
//     (eps32 = 2^-23, scale the pair's largest |coordinate|); the tests
//     check it against exact rational arithmetic.
//   - Zero-length segments (spheres) are exact cases, never NaN: such a
//     segment gets parameter 0. Parallel segments get one of the
//     minimizing pairs.
//   - Determinism: every result is bit-identical on every path and every
//     GOARCH, and Closest returns the same bits as BatchClosest.
//   - Range: results are finite for finite coordinates up to 1e18.
//   - Bad input: a lane with a NaN or Inf coordinate (or whose squared
//     distance overflows) gets the canonical quiet NaN 0x7FC00000 in every
//     output; a contact row whose input is not finite, or whose pair has a
//     capsule of negative radius, gets Count 0 and that NaN in every float.
//     No other lane is affected.
//   - Memory: no allocation; the kernels read and write only the slices
//     given and need no padding or alignment. Nil batches, mismatched
//     lengths, indices out of range and outputs that share memory with an
//     input or another output panic, naming the argument, before anything
//     is computed. Inputs may share memory with each other.
//
// The ...64 entry points (BatchClosest64, BatchContacts64, ...) are the
// same kernels in float64 on every path, with the same guarantees in
// float64 terms: eps64 = 2^-52, coordinates up to 1e150, the canonical NaN
// 0x7FF8000000000000. docs/guarantees.md states the whole contract and
// the test that checks each clause; docs/design.md derives the algorithm
// and the rules that keep every path bit-identical.
//
// # Cost model
//
// A pair costs 48 bytes in, 12 bytes out and about 100 float32 operations
// (3 divisions). A batch in cache runs at the arithmetic rate of the
// widest path: the dependency chain of a group of lanes, not the
// arithmetic, bounds it, so the loops overlap several groups. float64
// takes about 2x the time of float32 (half the lanes per instruction,
// slower divisions). A call of 16 pairs costs about one group's chain plus
// the argument checks. A million pairs stream from memory and are bound
// by bandwidth. The contact kernels cost about 3x a closest pair on
// laid-out pairs and BatchClosestIndexed about 2x: both load two capsule
// records per pair by index and transpose them in registers. Records
// fetched from beyond the L2 cache cost their memory latency despite the
// kernels' prefetches (about 3x the time per pair over a million
// capsules). Call the kernels once per step with every candidate pair of
// the broadphase; Parallel spreads a batch over several cores where the
// memory allows it. docs/performance.md has the measured figures.
package kernel

import (
	"math"
	"unsafe"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// BatchClosest computes, for every pair in src, the closest points of its
// two segments and writes them to dst, using the path ISA reports. dst must
// have the same length as src (see soa.Results.Resize); mismatched lengths
// panic, naming the slice, before anything is computed.
func BatchClosest(dst *soa.Results, src *soa.Pairs) {
	active.BatchClosest(dst, src)
}

// Closest computes the closest points of segment 1 (a to b) and segment 2
// (c to d): parameters s and t in [0,1] and the squared distance. Its
// results are bit-identical to BatchClosest's for the same pair.
func Closest(a, b, c, d [3]float32) (s, t, dist2 float32) {
	return fallback.ClosestLane(a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2])
}

// Closest64 is Closest in float64, bit-identical to BatchClosest64.
func Closest64(a, b, c, d [3]float64) (s, t, dist2 float64) {
	return fallback.ClosestLane64(a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2])
}

// BatchClosest64 is BatchClosest in float64: the same algorithm and
// guarantees with eps64 = 2^-52 for eps32, coordinates up to 1e150, and
// the canonical NaN 0x7FF8000000000000. Bit-identical on every path to
// fallback.ClosestLane64.
func BatchClosest64(dst *soa.Results64, src *soa.Pairs64) {
	active.BatchClosest64(dst, src)
}

// Kernel is one implementation path. The zero value is not usable; get one
// from Lookup or Active.
type Kernel struct {
	isa string
	f32 *impl[float32] // the float32 kernels
	f64 *impl[float64] // the float64 kernels
}

// impl is one path's implementation of every kernel of one element type,
// registered once per path (dispatch_*.go); the entry points check their
// arguments and call these with the common length n > 0. A new kernel adds
// a field here and one entry per path; a new element type adds one impl
// per path.
type impl[F soa.Float] struct {
	closest  func(n int, dst *soa.ResultsOf[F], src *soa.PairsOf[F])
	stream   func(n int, dst *soa.ResultsOf[F], src *soa.PairsOf[F])
	point    func(n int, dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F])
	contacts func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, margin F) int
	compact  func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, margin F) int
	indexed  func(m int, dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs)

	// Capsules against half-spaces, capsule records from poses, and the
	// time of impact. A path that does not generate them runs the Go spec
	// (withGoKernels).
	planes        func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, margin F) int
	planesCompact func(m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, margin F) int
	poses         func(n int, dst, local soa.CapsulesOf[F], poses *soa.PosesOf[F], bodies []uint32)
	toi           func(m int, dst *soa.TOIsOf[F], start, end soa.CapsulesOf[F], pairs *soa.IndexPairs, p TOIParamsOf[F], compact bool) int
}

// maxFinite returns the largest finite F, as a float64.
func maxFinite[F soa.Float]() float64 {
	var z F
	if unsafe.Sizeof(z) == 4 {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// ISA returns the path's name: "avx512", "avx2", "neon" or "go".
func (k Kernel) ISA() string { return k.isa }

// BatchClosest is the package-level BatchClosest on this path.
func (k Kernel) BatchClosest(dst *soa.Results, src *soa.Pairs) {
	n := checkLengths(dst, src)
	if n == 0 {
		return
	}
	k.f32.closest(n, dst, src)
}

// BatchClosest64 is the package-level BatchClosest64 on this path.
func (k Kernel) BatchClosest64(dst *soa.Results64, src *soa.Pairs64) {
	n := checkLengths(dst, src)
	if n == 0 {
		return
	}
	k.f64.closest(n, dst, src)
}

// checkLengths returns the common length of every slice of src and dst and
// panics, naming the slice at fault, if one differs or a batch is nil.
func checkLengths[F soa.Float](dst *soa.ResultsOf[F], src *soa.PairsOf[F]) int {
	checkNotNil("dst", dst)
	checkNotNil("src", src)
	n := len(src.AX)
	// Independent compares and predicted branches: a min/max chain over
	// the fifteen lengths is one long dependency chain, which a call of 16
	// pairs notices.
	if len(src.AY) != n || len(src.AZ) != n || len(src.BX) != n || len(src.BY) != n || len(src.BZ) != n ||
		len(src.CX) != n || len(src.CY) != n || len(src.CZ) != n || len(src.DX) != n || len(src.DY) != n ||
		len(src.DZ) != n || len(dst.S) != n || len(dst.T) != n || len(dst.Dist2) != n {
		panic(lengthMismatch(
			[]string{"src.AX", "src.AY", "src.AZ", "src.BX", "src.BY", "src.BZ", "src.CX", "src.CY", "src.CZ",
				"src.DX", "src.DY", "src.DZ", "dst.S", "dst.T", "dst.Dist2"},
			[]int{n, len(src.AY), len(src.AZ), len(src.BX), len(src.BY), len(src.BZ), len(src.CX), len(src.CY), len(src.CZ),
				len(src.DX), len(src.DY), len(src.DZ), len(dst.S), len(dst.T), len(dst.Dist2)}))
	}
	checkResultsApart(dst, src, n)
	return n
}

// goClosest is the pure-Go path.
func goClosest(n int, dst *soa.Results, src *soa.Pairs) {
	fallback.BatchClosest(n, src.AX, src.AY, src.AZ, src.BX, src.BY, src.BZ,
		src.CX, src.CY, src.CZ, src.DX, src.DY, src.DZ, dst.S, dst.T, dst.Dist2)
}

// goClosest64 is the pure-Go float64 path.
func goClosest64(n int, dst *soa.Results64, src *soa.Pairs64) {
	fallback.BatchClosest64(n, src.AX, src.AY, src.AZ, src.BX, src.BY, src.BZ,
		src.CX, src.CY, src.CZ, src.DX, src.DY, src.DZ, dst.S, dst.T, dst.Dist2)
}

// StreamOnly is the memory-bound baseline of this path, for benchmarks: it
// loads every input coordinate and stores S, T and Dist2 (as simple
// functions of the inputs) with the path's vector width, but computes no
// closest points. BatchClosest's time over StreamOnly's time shows how far
// a path is from the memory floor.
func (k Kernel) StreamOnly(dst *soa.Results, src *soa.Pairs) {
	n := checkLengths(dst, src)
	if n == 0 {
		return
	}
	k.f32.stream(n, dst, src)
}

// StreamOnly64 is StreamOnly in float64.
func (k Kernel) StreamOnly64(dst *soa.Results64, src *soa.Pairs64) {
	n := checkLengths(dst, src)
	if n == 0 {
		return
	}
	k.f64.stream(n, dst, src)
}

// goStream64 is goStream in float64.
func goStream64(n int, dst *soa.Results64, src *soa.Pairs64) {
	for i := range n {
		dst.S[i] = ((src.AX[i] + src.BX[i]) + src.CX[i]) + src.DX[i]
		dst.T[i] = ((src.AY[i] + src.BY[i]) + src.CY[i]) + src.DY[i]
		dst.Dist2[i] = ((src.AZ[i] + src.BZ[i]) + src.CZ[i]) + src.DZ[i]
	}
}

// goStream is the pure-Go memory baseline: S = AX+BX+CX+DX, T likewise
// for Y, Dist2 for Z.
func goStream(n int, dst *soa.Results, src *soa.Pairs) {
	fallback.BatchStream(n, src.AX, src.AY, src.AZ, src.BX, src.BY, src.BZ,
		src.CX, src.CY, src.CZ, src.DX, src.DY, src.DZ, dst.S, dst.T, dst.Dist2)
}
