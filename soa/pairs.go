// Package soa stores batches of 3D segment pairs and their closest-point
// results as structure-of-arrays: one []float32 (or []float64) per
// coordinate, so that a SIMD kernel loads 8 or 16 consecutive pairs with
// one instruction per coordinate. Each batch type is generic in its
// element type (PairsOf[F]) and has a float32 name (Pairs) and a float64
// name (Pairs64); so do the capsule records (Capsule, 32 bytes, and
// Capsule64, 64) and the contact rows.
//
// NewPairs and NewResults place all streams of a batch in one allocation,
// each stream starting on a 64-byte boundary and no two streams at the
// same offset within a 4 KiB page, so that the 15 streams a kernel walks in
// lockstep do not compete for the same L1 sets (docs/design.md, "Memory
// layout and loads"). Large batches (4,096 float32 or
// 2,048 float64 elements per stream and more) also start at a fixed line of
// a page, inputs at line 0 and outputs at line 32, so that a kernel's
// stores do not share a page offset with its next loads (see staggered).
// On Linux, blocks of 4 MiB and more (a Pairs of about 87,000 pairs, a
// Capsules of 131,072 records) are advised onto transparent huge pages
// (madvise MADV_HUGEPAGE, unless GODEBUG=disablethp=1): the hardware
// prefetchers stop at page boundaries, and capsules fetched by index miss
// the TLB less (see hugeBlockMin).
// Kernels never rely on this layout:
// the exported slices may be replaced by any slices of equal length, for
// example views into an engine's own storage.
package soa

import (
	"fmt"
	"unsafe"
)

// cacheLine is the stream alignment and stagger unit, in bytes.
const cacheLine = 64

// minCap is the smallest capacity NewPairs and NewResults reserve, in
// elements per stream (one AVX-512 group).
const minCap = 16

// Float is the element type of the generic batches: float32 or float64.
type Float interface{ float32 | float64 }

// element is the element type of any stream: a Float, or uint32 for the
// index streams (IndexPairs, Contacts.Pair and Count).
type element interface{ Float | uint32 }

// PairOf is one segment pair in array-of-structs form: segment 1 runs
// from A to B, segment 2 from C to D.
type PairOf[F Float] struct {
	A, B, C, D [3]F
}

// Pair is a float32 segment pair.
type Pair = PairOf[float32]

// Pair64 is a float64 segment pair.
type Pair64 = PairOf[float64]

// PairsOf is a batch of segment pairs in structure-of-arrays form. Pair i
// is segment 1 from (AX[i], AY[i], AZ[i]) to (BX[i], BY[i], BZ[i]) and
// segment 2 from (CX[i], CY[i], CZ[i]) to (DX[i], DY[i], DZ[i]).
//
// All twelve slices must have the same length; kernels panic otherwise.
type PairsOf[F Float] struct {
	AX, AY, AZ []F
	BX, BY, BZ []F
	CX, CY, CZ []F
	DX, DY, DZ []F
}

// Pairs is a batch of float32 segment pairs, the input of
// kernel.BatchClosest.
type Pairs = PairsOf[float32]

// Pairs64 is a batch of float64 segment pairs, the input of
// kernel.BatchClosest64.
type Pairs64 = PairsOf[float64]

// NewPairs returns a batch of n pairs, all coordinates zero, with room to
// Append at least up to the next multiple of 16 pairs without reallocating.
func NewPairs(n int) *Pairs { return newPairs[float32]("NewPairs", n) }

// NewPairs64 is NewPairs in float64.
func NewPairs64(n int) *Pairs64 { return newPairs[float64]("NewPairs64", n) }

func newPairs[F Float](what string, n int) *PairsOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	p := &PairsOf[F]{}
	p.alloc(n, capFor(n))
	return p
}

// FromPairs returns a new batch holding the given array-of-structs pairs.
func FromPairs(src []Pair) *Pairs { return fromPairs(NewPairs(len(src)), src) }

// FromPairs64 is FromPairs in float64.
func FromPairs64(src []Pair64) *Pairs64 { return fromPairs(NewPairs64(len(src)), src) }

func fromPairs[F Float](p *PairsOf[F], src []PairOf[F]) *PairsOf[F] {
	for i, q := range src {
		p.Set(i, q.A, q.B, q.C, q.D)
	}
	return p
}

// streams returns pointers to the twelve coordinate slices in the order
// AX AY AZ BX BY BZ CX CY CZ DX DY DZ.
func (p *PairsOf[F]) streams() [12]*[]F {
	return [12]*[]F{
		&p.AX, &p.AY, &p.AZ, &p.BX, &p.BY, &p.BZ,
		&p.CX, &p.CY, &p.CZ, &p.DX, &p.DY, &p.DZ,
	}
}

// alloc points the twelve slices at a fresh staggered block of capacity c,
// with length n.
func (p *PairsOf[F]) alloc(n, c int) {
	st := p.streams()
	views := staggered[F](len(st), c, inputLine)
	for k, s := range st {
		*s = views[k][:n]
	}
}

// Len returns the number of pairs, the length of AX.
func (p *PairsOf[F]) Len() int { return len(p.AX) }

// Set stores pair i: segment 1 from a to b, segment 2 from c to d.
func (p *PairsOf[F]) Set(i int, a, b, c, d [3]F) {
	p.AX[i], p.AY[i], p.AZ[i] = a[0], a[1], a[2]
	p.BX[i], p.BY[i], p.BZ[i] = b[0], b[1], b[2]
	p.CX[i], p.CY[i], p.CZ[i] = c[0], c[1], c[2]
	p.DX[i], p.DY[i], p.DZ[i] = d[0], d[1], d[2]
}

// Get returns pair i in array-of-structs form.
func (p *PairsOf[F]) Get(i int) PairOf[F] {
	return PairOf[F]{
		A: [3]F{p.AX[i], p.AY[i], p.AZ[i]},
		B: [3]F{p.BX[i], p.BY[i], p.BZ[i]},
		C: [3]F{p.CX[i], p.CY[i], p.CZ[i]},
		D: [3]F{p.DX[i], p.DY[i], p.DZ[i]},
	}
}

// Append adds one pair at the end, growing the batch's single allocation
// (doubling its capacity) when it is full.
func (p *PairsOf[F]) Append(a, b, c, d [3]F) {
	n := len(p.AX)
	// The common case, room in every stream of equal length, without the
	// generic loop over the streams; reslicing within the capacity writes
	// only the lengths (no pointer, so no write barrier).
	if n < cap(p.AX) && n < cap(p.AY) && n < cap(p.AZ) && n < cap(p.BX) && n < cap(p.BY) && n < cap(p.BZ) &&
		n < cap(p.CX) && n < cap(p.CY) && n < cap(p.CZ) && n < cap(p.DX) && n < cap(p.DY) && n < cap(p.DZ) &&
		len(p.AY) == n && len(p.AZ) == n && len(p.BX) == n && len(p.BY) == n && len(p.BZ) == n &&
		len(p.CX) == n && len(p.CY) == n && len(p.CZ) == n && len(p.DX) == n && len(p.DY) == n && len(p.DZ) == n {
		p.AX, p.AY, p.AZ = p.AX[:n+1], p.AY[:n+1], p.AZ[:n+1]
		p.AX[n], p.AY[n], p.AZ[n] = a[0], a[1], a[2]
		p.BX, p.BY, p.BZ = p.BX[:n+1], p.BY[:n+1], p.BZ[:n+1]
		p.BX[n], p.BY[n], p.BZ[n] = b[0], b[1], b[2]
		p.CX, p.CY, p.CZ = p.CX[:n+1], p.CY[:n+1], p.CZ[:n+1]
		p.CX[n], p.CY[n], p.CZ[n] = c[0], c[1], c[2]
		p.DX, p.DY, p.DZ = p.DX[:n+1], p.DY[:n+1], p.DZ[:n+1]
		p.DX[n], p.DY[n], p.DZ[n] = d[0], d[1], d[2]
		return
	}
	st := p.streams()
	p.Set(appendSlot("Pairs", st[:], inputLine), a, b, c, d)
}

// Resize sets the length to n, keeping the first min(Len, n) pairs.
func (p *PairsOf[F]) Resize(n int) {
	st := p.streams()
	resizeStreams("Pairs", st[:], n, n, inputLine)
}

// Reset sets the length to zero and keeps the storage, so that an engine
// can refill the batch every step without allocating.
func (p *PairsOf[F]) Reset() {
	st := p.streams()
	resetStreams(st[:])
}

// uniform reports whether all slices have the same length and room for
// one more element, which Append needs to grow them in place.
func uniform[F element](streams []*[]F) bool {
	n := len(*streams[0])
	for _, s := range streams {
		if len(*s) != n || cap(*s) <= n {
			return false
		}
	}
	return true
}

// ResultsOf receives the output of a closest-point kernel: for pair i,
// the parameters S[i] on segment 1 and T[i] on segment 2 of the closest
// points and their squared distance Dist2[i].
type ResultsOf[F Float] struct {
	S, T, Dist2 []F
}

// Results receives the output of kernel.BatchClosest.
type Results = ResultsOf[float32]

// Results64 receives the output of kernel.BatchClosest64.
type Results64 = ResultsOf[float64]

// NewResults returns results for n pairs, all zero.
func NewResults(n int) *Results { return newResults[float32]("NewResults", n) }

// NewResults64 is NewResults in float64.
func NewResults64(n int) *Results64 { return newResults[float64]("NewResults64", n) }

func newResults[F Float](what string, n int) *ResultsOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	r := &ResultsOf[F]{}
	r.alloc(n, capFor(n))
	return r
}

func (r *ResultsOf[F]) alloc(n, c int) {
	v := staggered[F](3, c, outputLine)
	r.S, r.T, r.Dist2 = v[0][:n], v[1][:n], v[2][:n]
}

// Len returns the number of results, the length of S.
func (r *ResultsOf[F]) Len() int { return len(r.S) }

func (r *ResultsOf[F]) streams() [3]*[]F { return [3]*[]F{&r.S, &r.T, &r.Dist2} }

// Resize sets the length of all three slices to n, reusing the storage when
// its capacity allows, so that results can follow a batch whose size
// changes every step. The first min(Len, n) results are kept.
func (r *ResultsOf[F]) Resize(n int) {
	st := r.streams()
	resizeStreams("Results", st[:], n, n, outputLine)
}

// Reset sets the length to zero and keeps the storage.
func (r *ResultsOf[F]) Reset() {
	st := r.streams()
	resetStreams(st[:])
}

// capFor rounds n up to a whole number of 16-element groups, at least one.
func capFor(n int) int {
	if n < minCap {
		return minCap
	}
	return (n + minCap - 1) &^ (minCap - 1)
}

// Where the streams of a large batch start within a 4 KiB page, in cache
// lines (see staggered): input batches (Pairs, PointSegments, IndexPairs)
// from line 0, output batches (Results, PointResults, Contacts) from line
// 32.
const (
	pageLines  = 4096 / cacheLine
	inputLine  = 0
	outputLine = pageLines / 2
)

// pagedLines is the stream length, in cache lines, from which staggered
// also places the streams within the page (4,096 float32 or 2,048 float64
// elements).
const pagedLines = 4 * pageLines

// staggered carves k slices of capacity c out of one allocation. Every
// slice starts on a cache-line boundary, and no two start at the same
// offset within a 4 KiB page (the "stagger" of docs/design.md, "Memory
// layout and loads").
//
// Streams of at least pagedLines lines are also placed within the page:
// the block starts firstLine lines into a page and the stride between
// streams is one line more than a whole number of pages, so stream j
// starts at line firstLine+j. An input batch (firstLine 0) then occupies
// lines 0-11 and an output batch (firstLine 32) lines 32-34 of every page
// the kernel walks, and no store of one loop iteration has the page offset
// of a load of the next: a load that does is held until the store's
// address resolves (4K aliasing), which can cost a cache-resident batch a
// sixth of its time (docs/levers.md). Smaller streams take the odd stride
// only (at most 1 extra line each).
func staggered[F element](k, c, firstLine int) [][]F {
	size := int(unsafe.Sizeof(F(0)))
	perLine := cacheLine / size // elements per cache line
	// The stride between streams is an odd number of cache lines: then
	// stream j starts j*stride lines into the block, and j*stride mod 64
	// (the lines in a 4 KiB page) differs for every j < 64, so the streams
	// a kernel walks in lockstep start in different L1 sets.
	lines := (c + perLine - 1) / perLine
	if lines%2 == 0 {
		lines++
	}
	align := cacheLine // where the block starts
	if lines >= pagedLines {
		// A stride of 1 line mod 64 (at most 63 more lines per stream,
		// under 25%), and the block at firstLine of a page.
		lines += (pageLines + 1 - lines%pageLines) % pageLines
		align = pageLines * cacheLine
	} else {
		firstLine = 0
	}
	stride := lines * perLine
	buf := make([]F, k*stride+(align+firstLine*cacheLine)/size)
	adviseHuge(buf)
	// The first stream at firstLine lines past an align boundary.
	off := 0
	if mis := int(uintptr(unsafe.Pointer(&buf[0])) % uintptr(align)); mis != 0 {
		off = (align - mis) / size
	}
	off += firstLine * perLine
	out := make([][]F, k)
	for j := range out {
		start := off + j*stride
		out[j] = buf[start : start+c : start+c]
	}
	return out
}
