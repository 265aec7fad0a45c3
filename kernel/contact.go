package kernel

import (
	"fmt"
	"unsafe"

	"github.com/klauspost/cpuid/v2"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// BatchClosestPoint computes, for every point-segment pair of src (a
// sphere centre against a capsule axis), the parameter T of the closest
// point on the segment and the squared distance, on the path ISA reports.
// Bit-identical on every path to fallback.ClosestPointLane; a zero-length
// segment gives T = 0 and the exact point distance; non-finite input gives
// the canonical NaN. dst must have src's length; mismatched lengths panic
// before anything is computed.
func BatchClosestPoint(dst *soa.PointResults, src *soa.PointSegments) {
	active.BatchClosestPoint(dst, src)
}

// BatchClosestPoint64 is BatchClosestPoint in float64 (bit-identical to
// fallback.ClosestPointLane64 on every path).
func BatchClosestPoint64(dst *soa.PointResults64, src *soa.PointSegments64) {
	active.BatchClosestPoint64(dst, src)
}

// BatchClosestIndexed computes, for every pair k of pairs, the closest
// points of the axes of capsules pairs.I[k] and pairs.J[k] of caps (radii
// ignored) and writes them to row k of dst: the same bits as BatchClosest
// on those axes laid out in a soa.Pairs (segment 1 the axis of capsule
// I), without the copy. dst must have pairs.Len() rows; indices out of
// range and mismatched lengths panic before anything is computed.
func BatchClosestIndexed(dst *soa.Results, caps soa.Capsules, pairs *soa.IndexPairs) {
	active.BatchClosestIndexed(dst, caps, pairs)
}

// BatchClosestIndexed64 is BatchClosestIndexed in float64.
func BatchClosestIndexed64(dst *soa.Results64, caps soa.Capsules64, pairs *soa.IndexPairs) {
	active.BatchClosestIndexed64(dst, caps, pairs)
}

// BatchClosestIndexed is the package-level BatchClosestIndexed on this path.
func (k Kernel) BatchClosestIndexed(dst *soa.Results, caps soa.Capsules, pairs *soa.IndexPairs) {
	if m := checkIndexedArgs(dst, caps, pairs, nil); m > 0 {
		k.f32.indexed(m, dst, caps, pairs)
	}
}

// BatchClosestIndexed64 is the package-level BatchClosestIndexed64 on this path.
func (k Kernel) BatchClosestIndexed64(dst *soa.Results64, caps soa.Capsules64, pairs *soa.IndexPairs) {
	if m := checkIndexedArgs(dst, caps, pairs, nil); m > 0 {
		k.f64.indexed(m, dst, caps, pairs)
	}
}

// checkIndexedArgs checks the lengths and every index of an indexed
// closest call and returns the number of pairs. The index check runs on
// the workers of on (nil: the calling goroutine; Parallel.indicesBelow).
func checkIndexedArgs[F soa.Float](dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, on *Parallel) int {
	checkNotNil("dst", dst)
	checkNotNil("pairs", pairs)
	m := len(pairs.I)
	if len(pairs.J) != m || len(dst.S) != m || len(dst.T) != m || len(dst.Dist2) != m {
		panic(lengthMismatch([]string{"pairs.I", "pairs.J", "dst.S", "dst.T", "dst.Dist2"},
			[]int{m, len(pairs.J), len(dst.S), len(dst.T), len(dst.Dist2)}))
	}
	checkIndexedApart(dst, caps, pairs, m)
	if !on.indicesBelow(pairs.I, pairs.J, len(caps)) {
		checkIndices("pairs.I", pairs.I, len(caps))
		checkIndices("pairs.J", pairs.J, len(caps))
	}
	return m
}

// goIndexed is the pure-Go BatchClosestIndexed.
func goIndexed[F soa.Float](m int, dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs) {
	for k := range m {
		c1, c2 := &caps[pairs.I[k]], &caps[pairs.J[k]]
		dst.S[k], dst.T[k], dst.Dist2[k] = fallback.ClosestLaneOf(c1.A[0], c1.A[1], c1.A[2], c1.B[0], c1.B[1], c1.B[2],
			c2.A[0], c2.A[1], c2.A[2], c2.B[0], c2.B[1], c2.B[2])
	}
}

// BatchContacts computes the contact of every pair of capsules in pairs
// (capsule pairs.I[k] against pairs.J[k] of caps) and writes it to row k
// of dst, which must have pairs.Len() rows (see soa.Contacts.Resize).
// Capsules touch when the distance between their axes is at most
// caps[i].R + caps[j].R + margin. See fallback.Contact for the meaning of each
// field; results are bit-identical on every path. A pair with a
// non-finite value or a negative radius (-0 is zero) in either capsule is
// bad input: its row gets Count 0 and the canonical NaN in every float,
// and no other row changes. Indices out of range, mismatched lengths, a
// nil batch and a margin that is negative or not finite panic before
// anything is computed.
func BatchContacts(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) {
	active.BatchContacts(dst, caps, pairs, margin)
}

// CompactContacts is BatchContacts for the touching pairs only: it writes
// their contacts densely to rows 0, 1, ... of dst in pair order, with Pair
// holding the index of the pair in pairs, and returns how many it wrote.
// dst must have at least pairs.Len() rows; the rows from the returned
// count on keep their contents.
func CompactContacts(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) int {
	return active.CompactContacts(dst, caps, pairs, margin)
}

// BatchClosestPoint is the package-level BatchClosestPoint on this path.
func (k Kernel) BatchClosestPoint(dst *soa.PointResults, src *soa.PointSegments) {
	if n := checkPointLengths(dst, src); n > 0 {
		k.f32.point(n, dst, src)
	}
}

// BatchClosestPoint64 is the package-level BatchClosestPoint64 on this path.
func (k Kernel) BatchClosestPoint64(dst *soa.PointResults64, src *soa.PointSegments64) {
	if n := checkPointLengths(dst, src); n > 0 {
		k.f64.point(n, dst, src)
	}
}

// checkPointLengths returns the common length of src's and dst's slices
// and panics, naming the slice at fault, if one differs or a batch is nil.
func checkPointLengths[F soa.Float](dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F]) int {
	checkNotNil("dst", dst)
	checkNotNil("src", src)
	n := len(src.PX)
	if len(src.PY) != n || len(src.PZ) != n || len(src.CX) != n || len(src.CY) != n || len(src.CZ) != n ||
		len(src.DX) != n || len(src.DY) != n || len(src.DZ) != n || len(dst.T) != n || len(dst.Dist2) != n {
		panic(lengthMismatch(
			[]string{"src.PX", "src.PY", "src.PZ", "src.CX", "src.CY", "src.CZ", "src.DX", "src.DY", "src.DZ", "dst.T", "dst.Dist2"},
			[]int{n, len(src.PY), len(src.PZ), len(src.CX), len(src.CY), len(src.CZ), len(src.DX), len(src.DY), len(src.DZ),
				len(dst.T), len(dst.Dist2)}))
	}
	checkPointResultsApart(dst, src, n)
	return n
}

// BatchContacts64 is BatchContacts in float64: soa.Capsules64 records (64
// bytes each), rows of float64 (soa.Contacts64), bit-identical on every
// path to fallback.ContactLane64, whose tolerances are the same multiples
// of eps64 as ContactLane's of eps32.
func BatchContacts64(dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) {
	active.BatchContacts64(dst, caps, pairs, margin)
}

// CompactContacts64 is CompactContacts in float64.
func CompactContacts64(dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) int {
	return active.CompactContacts64(dst, caps, pairs, margin)
}

// BatchContacts64 is the package-level BatchContacts64 on this path.
func (k Kernel) BatchContacts64(dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) {
	if m := checkContactArgs(dst, caps, pairs, margin, true, nil); m > 0 {
		k.f64.contacts(m, dst, caps, pairs, margin)
	}
}

// CompactContacts64 is the package-level CompactContacts64 on this path.
func (k Kernel) CompactContacts64(dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) int {
	if m := checkContactArgs(dst, caps, pairs, margin, false, nil); m > 0 {
		return k.f64.compact(m, dst, caps, pairs, margin)
	}
	return 0
}

// BatchContacts is the package-level BatchContacts on this path.
func (k Kernel) BatchContacts(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) {
	m := checkContactArgs(dst, caps, pairs, margin, true, nil)
	if m == 0 {
		return
	}
	k.f32.contacts(m, dst, caps, pairs, margin)
}

// CompactContacts is the package-level CompactContacts on this path.
func (k Kernel) CompactContacts(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) int {
	m := checkContactArgs(dst, caps, pairs, margin, false, nil)
	if m == 0 {
		return 0
	}
	return k.f32.compact(m, dst, caps, pairs, margin)
}

// checkLen panics unless got == want, naming the slice.
func checkLen(name string, got, want int, wantName string) {
	if got != want {
		panic(fmt.Sprintf("segdist/kernel: len(%s) = %d, want %d (%s)", name, got, want, wantName))
	}
}

// checkContactArgs checks every length, every index and the margin, and
// returns the number of pairs. exact asks for dst with exactly that many
// rows; otherwise at least that many. The index check runs on the workers
// of on (nil: the calling goroutine; Parallel.indicesBelow).
func checkContactArgs[F soa.Float](dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, margin F, exact bool, on *Parallel) int {
	m := checkRowArgs(dst, pairs, margin, exact)
	// The rows a call may write: m of each stream (CompactContacts writes
	// fewer, and dst may be longer).
	checkContactsApart(dst, caps, pairs, m)
	if n := len(caps); !on.indicesBelow(pairs.I, pairs.J, n) {
		checkIndices("pairs.I", pairs.I, n)
		checkIndices("pairs.J", pairs.J, n)
	}
	return m
}

// checkRowArgs checks what every kernel writing contact rows checks
// first: no nil batch, a finite margin >= 0, I and J of one length m, and
// rows for m pairs (exactly m if exact); it returns m.
func checkRowArgs[F soa.Float](dst *soa.ContactsOf[F], pairs *soa.IndexPairs, margin F, exact bool) int {
	checkNotNil("dst", dst)
	checkNotNil("pairs", pairs)
	if !(margin >= 0 && float64(margin) <= maxFinite[F]()) {
		panic(fmt.Sprintf("segdist/kernel: margin %v must be finite and >= 0", margin))
	}
	m := len(pairs.I)
	checkLen("pairs.J", len(pairs.J), m, "len(pairs.I)")
	// The shortest and longest stream first, the names only on failure:
	// a table of names and lengths built every call, or the lengths
	// gathered into a [13]int first, cost a 16-pair call a sixth of its
	// time (docs/levers.md).
	short := min(len(dst.Pair), len(dst.Count), len(dst.Depth1), len(dst.Depth2), len(dst.NX), len(dst.NY), len(dst.NZ),
		len(dst.P1X), len(dst.P1Y), len(dst.P1Z), len(dst.P2X), len(dst.P2Y), len(dst.P2Z))
	long := max(len(dst.Pair), len(dst.Count), len(dst.Depth1), len(dst.Depth2), len(dst.NX), len(dst.NY), len(dst.NZ),
		len(dst.P1X), len(dst.P1Y), len(dst.P1Z), len(dst.P2X), len(dst.P2Y), len(dst.P2Z))
	if short < m || exact && long != m {
		checkContactRows(dst, m, exact)
	}
	return m
}

// checkContactRows panics naming the first stream of dst without room for
// m rows (exactly m if exact).
func checkContactRows[F soa.Float](dst *soa.ContactsOf[F], m int, exact bool) {
	rows := []struct {
		name string
		n    int
	}{{"dst.Pair", len(dst.Pair)}, {"dst.Count", len(dst.Count)}, {"dst.Depth1", len(dst.Depth1)},
		{"dst.Depth2", len(dst.Depth2)}, {"dst.NX", len(dst.NX)}, {"dst.NY", len(dst.NY)}, {"dst.NZ", len(dst.NZ)},
		{"dst.P1X", len(dst.P1X)}, {"dst.P1Y", len(dst.P1Y)}, {"dst.P1Z", len(dst.P1Z)},
		{"dst.P2X", len(dst.P2X)}, {"dst.P2Y", len(dst.P2Y)}, {"dst.P2Z", len(dst.P2Z)}}
	for _, r := range rows {
		if exact {
			checkLen(r.name, r.n, m, "len(pairs.I)")
		} else if r.n < m {
			panic(fmt.Sprintf("segdist/kernel: len(%s) = %d, want at least %d (len(pairs.I))", r.name, r.n, m))
		}
	}
}

// indicesBelow reports whether every element of a and b (at least as
// long as a) is below n: with maxIndex where there is one, else with
// indicesBelowGo.
func indicesBelow(a, b []uint32, n int) bool {
	b = b[:len(a)]
	if maxIndex != nil && len(a) >= maxIndexFrom {
		return uint64(maxIndex(&a[0], &b[0], len(a))) < uint64(n)
	}
	return indicesBelowGo(a, b, n)
}

// maxIndex returns the largest of pi[0:n] and pj[0:n] with vector code
// (asm.MaxIndexAVX2, asm.MaxIndexNEON), set at init where the CPU and
// build have it, whatever the path: it is integer code with one answer.
// It reads 32 indices a cycle or so, against about 2 for indicesBelowGo,
// whose scalar check cost a tenth of a CompactContacts call.
var maxIndex func(pi, pj *uint32, n int) uint32

// maxIndexFrom is the number of pairs from which indicesBelow calls
// maxIndex: below it the call costs more than the scalar loop.
const maxIndexFrom = 16

// indicesBelowGo is indicesBelow in Go, with no branch per index:
// uint64(v) - uint64(n) wraps around, setting bit 63, exactly when v < n
// (n < 2^63), so the AND of all the differences keeps bit 63 only if
// every index is in range. Four accumulators keep the ANDs independent
// (a third of the time of a max-and-compare loop).
func indicesBelowGo(a, b []uint32, n int) bool {
	nn := uint64(n)
	all0, all1, all2, all3 := ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)
	b = b[:len(a)]
	k := 0
	for ; k+4 <= len(a); k += 4 {
		x, y := a[k:k+4:k+4], b[k:k+4:k+4]
		all0 &= (uint64(x[0]) - nn) & (uint64(y[0]) - nn)
		all1 &= (uint64(x[1]) - nn) & (uint64(y[1]) - nn)
		all2 &= (uint64(x[2]) - nn) & (uint64(y[2]) - nn)
		all3 &= (uint64(x[3]) - nn) & (uint64(y[3]) - nn)
	}
	for ; k < len(a); k++ {
		all0 &= (uint64(a[k]) - nn) & (uint64(b[k]) - nn)
	}
	return (all0&all1&all2&all3)>>63 == 1
}

// checkIndices panics if any index is >= n, naming the first one (the
// slow path, once indicesBelow has found one).
func checkIndices(name string, idx []uint32, n int) { checkIndexed(name, idx, n, "capsules") }

// checkIndexed is checkIndices for indices into n things of the given
// name.
func checkIndexed(name string, idx []uint32, n int, things string) {
	for k, v := range idx {
		if uint64(v) >= uint64(n) {
			panic(fmt.Sprintf("segdist/kernel: %s[%d] = %d out of range: %d %s", name, k, v, n, things))
		}
	}
}

// The pure-Go path of the contact kernels.

func goPoint(n int, dst *soa.PointResults, src *soa.PointSegments) {
	fallback.BatchClosestPoint(n, src.PX, src.PY, src.PZ, src.CX, src.CY, src.CZ, src.DX, src.DY, src.DZ, dst.T, dst.Dist2)
}

func goPoint64(n int, dst *soa.PointResults64, src *soa.PointSegments64) {
	fallback.BatchClosestPoint64(n, src.PX, src.PY, src.PZ, src.CX, src.CY, src.CZ, src.DX, src.DY, src.DZ, dst.T, dst.Dist2)
}

// goContact is fallback's contact lane on pair k: capsule I[k] as capsule
// 1, J[k] as capsule 2.
func goContact[F soa.Float](caps soa.CapsulesOf[F], pairs *soa.IndexPairs, k int, margin F) fallback.ContactOf[F] {
	c1, c2 := &caps[pairs.I[k]], &caps[pairs.J[k]]
	return fallback.ContactLaneOf(c1.A[0], c1.A[1], c1.A[2], c1.B[0], c1.B[1], c1.B[2], c1.R,
		c2.A[0], c2.A[1], c2.A[2], c2.B[0], c2.B[1], c2.B[2], c2.R, margin)
}

// goContacts writes every pair's contact to its row.
func goContacts[F soa.Float](m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, margin F) int {
	for k := range m {
		c := goContact(caps, pairs, k, margin)
		dst.Set(k, uint32(k), c.Count, c.Depth, c.Normal, c.Point)
	}
	return m
}

// goCompact writes the touching pairs' contacts densely, in pair order.
func goCompact[F soa.Float](m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, margin F) int {
	w := 0
	for k := range m {
		if c := goContact(caps, pairs, k, margin); c.Count > 0 {
			dst.Set(w, uint32(k), c.Count, c.Depth, c.Normal, c.Point)
			w++
		}
	}
	return w
}

// l2Bytes and l3Bytes are this CPU's L2 and L3 cache sizes (cpuid; 1 MiB
// and 32 MiB if it reports none), by which Parallel cuts its chunks and
// the record kernels decide to prefetch.
var l2Bytes, l3Bytes = cacheBytes(cpuid.CPU.Cache.L2, 1<<20), cacheBytes(cpuid.CPU.Cache.L3, 32<<20)

// cacheBytes returns size, or def if cpuid did not report it.
func cacheBytes(size, def int) int {
	if size > 0 {
		return size
	}
	return def
}

// recordPrefetchMin is the size of a capsule array, in bytes, from which
// the contact kernels prefetch the records of the groups ahead
// (gen/amd64.PrefetchRecordsAhead has the measurements): the L2 cache.
// Smaller arrays stay in L2, where the prefetches only cost.
// indexedPrefetchMin is the same for BatchClosestIndexed, whose loops of
// several groups keep more loads in flight and gain only when the records
// stream from memory: the L3 cache. Tests force both (export_test.go).
var recordPrefetchMin, indexedPrefetchMin = l2Bytes, l3Bytes

// prefetchRecords is a record kernel's prefetch argument for caps: 1 when
// the records are larger than min bytes (recordPrefetchMin,
// indexedPrefetchMin), else 0.
func prefetchRecords[F soa.Float](caps soa.CapsulesOf[F], min int) int {
	if len(caps)*int(unsafe.Sizeof(caps[0])) > min {
		return 1
	}
	return 0
}
