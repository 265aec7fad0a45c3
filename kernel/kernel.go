// Package kernel computes the closest points of many pairs of 3D segments
// (the axes of capsules) at once, on the fastest instruction set this CPU
// has: AVX-512, AVX2, NEON (arm64) or pure Go, chosen once at start-up.
//
// # Guarantees
//
// For every pair i of src, BatchClosest writes the parameter S[i] in [0,1]
// of the closest point on segment 1 (A + s(B-A)), the parameter T[i] in
// [0,1] on segment 2 (C + t(D-C)) and their squared distance Dist2[i]:
//   - Accuracy: sqrt(Dist2) is within 8 eps32 x scale of the exact minimum
//     distance, and so is the distance between the two reported points,
//     where eps32 = 2^-23 and scale is the pair's largest |coordinate|.
//     Checked against exact rational arithmetic in the tests.
//   - Zero-length segments (spheres) are exact cases, never NaN: a
//     zero-length segment gets parameter 0; two points give S = T = 0.
//   - Parallel segments get one of the minimizing pairs: the projection
//     chooses s on segment 1 first (s = 0 when segment 1 projects to a
//     point on the plane perpendicular to segment 2, which for parallel
//     segments it always does), then t closest to that point, then s closest to
//     that, so S = 0 unless segment 2 lies beyond A.
//   - Determinism: S, T and Dist2 are bit-identical on every path (pure Go,
//     AVX2, AVX-512, NEON) and every GOARCH, and Closest returns the same bits as
//     BatchClosest for the same pair.
//   - Range: results are finite for finite coordinates up to 1e18 in
//     magnitude.
//   - Bad input: a lane with a NaN or Inf coordinate (or one whose squared
//     distance overflows) gets S = T = Dist2 = NaN, the canonical quiet NaN
//     0x7FC00000; no other lane is affected.
//   - Memory: no allocation; the kernels read and write only the slices
//     given, need no padding and no alignment. Outputs must not share
//     memory with an input or with another output (the rows a call may
//     write, n of each stream): every entry point panics, naming both
//     streams, before anything is computed, since a lane that overwrote
//     another lane's inputs would get different bits on different
//     paths. Inputs may share memory with each other.
//
// # float64
//
// BatchClosest64, Closest64, BatchClosestPoint64, BatchContacts64 and
// CompactContacts64 (soa.Pairs64 and the other ...64 batches) are the
// same kernels in float64 on every path
// (AVX-512 with 8 lanes, AVX2 with 4, NEON with 2, pure Go), generated
// from the same kernel bodies, with the same guarantees in float64 terms:
// within 8 eps64 x scale of the exact distance (eps64 = 2^-52; measured
// worst 3.3), bit-identical on every path to fallback.ClosestLane64 and
// ClosestPointLane64 and ContactLane64, finite results for coordinates up
// to 1e150, segments shorter than about 1.5e-154 counted as points, and
// the canonical NaN 0x7FF8000000000000 for non-finite lanes. The contact
// tolerances are the same multiples of eps64 as of eps32.
//
// # Cost model
//
// A pair costs 48 bytes in and 12 bytes out and about 100 float32
// operations (3 divisions). Batches that fit in cache run at the
// arithmetic rate of the widest path, about 1-1.1 ns per pair with
// AVX-512 on the machines measured (float64 about 2x that: half the lanes per
// instruction, slower divisions; see the README's table and picture); a
// call of 16 pairs takes about 40 ns with AVX-512 on the Zen 4 VM, about
// one group's dependency chain and the argument checks; batches of
// a million pairs stream from memory and are bound by bandwidth (outputs
// of batches from 2^18 pairs are written without reading their lines
// first when they are 64-byte aligned, as soa allocates them). The
// contact kernels cost about 3x a closest pair on laid-out pairs (3.0x
// to 3.1x with AVX-512 and AVX2 on the Zen 4 VM, make targets; 3.1x and
// 3.7x on the Intel VM in an earlier release; 3.2x to 3.4x on the Zen 4 VM when
// every call gets new pairs, as from a broadphase, whose data-dependent
// branches the predictor cannot learn: BenchmarkFreshPairs): the contact
// math, and two 32-byte capsule records per pair loaded by index and
// transposed in registers;
// BatchClosestIndexed reads the same records for the closest points alone
// (about 2x BatchClosest on laid-out pairs, half the cost of copying them
// out first). Records fetched by index from beyond the L2 cache cost
// their memory latency: over a million capsules (32 MiB) BatchContacts
// takes 2.7x (AVX2) to 3.6x (AVX-512) its time over 10,000, even though
// the kernels prefetch the records of the pairs ahead (the contact
// kernels for capsule arrays larger than L2, BatchClosestIndexed larger
// than L3; BenchmarkContactsLargeWorld). Call them once per step with
// every candidate pair of the broadphase; Parallel spreads a batch over
// several cores where the memory allows it.
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
	short := min(n, len(src.AY), len(src.AZ), len(src.BX), len(src.BY), len(src.BZ), len(src.CX), len(src.CY), len(src.CZ),
		len(src.DX), len(src.DY), len(src.DZ), len(dst.S), len(dst.T), len(dst.Dist2))
	long := max(n, len(src.AY), len(src.AZ), len(src.BX), len(src.BY), len(src.BZ), len(src.CX), len(src.CY), len(src.CZ),
		len(src.DX), len(src.DY), len(src.DZ), len(dst.S), len(dst.T), len(dst.Dist2))
	if short != long {
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
