// Package soa stores batches of 3D segment pairs and their closest-point
// results as structure-of-arrays: one []float32 per coordinate, so that a
// SIMD kernel loads 8 or 16 consecutive pairs with one instruction per
// coordinate.
//
// NewPairs and NewResults place all streams of a batch in one allocation,
// each stream starting on a 64-byte boundary and no two streams at the
// same offset within a 4 KiB page, so that the 15 streams a kernel walks in
// lockstep do not compete for the same L1 sets (measured in DESIGN.md
// section 5: up to 1.6x on scalar code). Kernels never rely on this layout:
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

// Pair is one segment pair in array-of-structs form: segment 1 runs from A
// to B, segment 2 from C to D.
type Pair struct {
	A, B, C, D [3]float32
}

// Pairs is a batch of segment pairs in structure-of-arrays form. Pair i is
// segment 1 from (AX[i], AY[i], AZ[i]) to (BX[i], BY[i], BZ[i]) and segment
// 2 from (CX[i], CY[i], CZ[i]) to (DX[i], DY[i], DZ[i]).
//
// All twelve slices must have the same length; kernels panic otherwise.
type Pairs struct {
	AX, AY, AZ []float32
	BX, BY, BZ []float32
	CX, CY, CZ []float32
	DX, DY, DZ []float32
}

// NewPairs returns a batch of n pairs, all coordinates zero, with room to
// Append at least up to the next multiple of 16 pairs without reallocating.
func NewPairs(n int) *Pairs {
	if n < 0 {
		panic(fmt.Sprintf("soa.NewPairs: negative length %d", n))
	}
	p := &Pairs{}
	p.alloc(n, capFor(n))
	return p
}

// FromPairs returns a new batch holding the given array-of-structs pairs.
func FromPairs(src []Pair) *Pairs {
	p := NewPairs(len(src))
	for i, q := range src {
		p.Set(i, q.A, q.B, q.C, q.D)
	}
	return p
}

// streams returns pointers to the twelve coordinate slices in the order
// AX AY AZ BX BY BZ CX CY CZ DX DY DZ.
func (p *Pairs) streams() [12]*[]float32 {
	return [12]*[]float32{
		&p.AX, &p.AY, &p.AZ, &p.BX, &p.BY, &p.BZ,
		&p.CX, &p.CY, &p.CZ, &p.DX, &p.DY, &p.DZ,
	}
}

// alloc points the twelve slices at a fresh staggered block of capacity c,
// with length n.
func (p *Pairs) alloc(n, c int) {
	st := p.streams()
	views := staggered(len(st), c)
	for k, s := range st {
		*s = views[k][:n]
	}
}

// Len returns the number of pairs, the length of AX.
func (p *Pairs) Len() int { return len(p.AX) }

// Set stores pair i: segment 1 from a to b, segment 2 from c to d.
func (p *Pairs) Set(i int, a, b, c, d [3]float32) {
	p.AX[i], p.AY[i], p.AZ[i] = a[0], a[1], a[2]
	p.BX[i], p.BY[i], p.BZ[i] = b[0], b[1], b[2]
	p.CX[i], p.CY[i], p.CZ[i] = c[0], c[1], c[2]
	p.DX[i], p.DY[i], p.DZ[i] = d[0], d[1], d[2]
}

// Get returns pair i in array-of-structs form.
func (p *Pairs) Get(i int) Pair {
	return Pair{
		A: [3]float32{p.AX[i], p.AY[i], p.AZ[i]},
		B: [3]float32{p.BX[i], p.BY[i], p.BZ[i]},
		C: [3]float32{p.CX[i], p.CY[i], p.CZ[i]},
		D: [3]float32{p.DX[i], p.DY[i], p.DZ[i]},
	}
}

// Append adds one pair at the end, growing the batch's single allocation
// (doubling its capacity) when it is full.
func (p *Pairs) Append(a, b, c, d [3]float32) {
	st := p.streams()
	p.Set(appendSlot("Pairs", st[:]), a, b, c, d)
}

// Resize sets the length to n, keeping the first min(Len, n) pairs.
func (p *Pairs) Resize(n int) {
	st := p.streams()
	resizeStreams("Pairs", st[:], n, n)
}

// Reset sets the length to zero and keeps the storage, so that an engine
// can refill the batch every step without allocating.
func (p *Pairs) Reset() {
	st := p.streams()
	resetStreams(st[:])
}

// uniform reports whether all slices have the same length and room for
// one more element, which Append needs to grow them in place.
func uniform(streams []*[]float32) bool {
	n := len(*streams[0])
	for _, s := range streams {
		if len(*s) != n || cap(*s) <= n {
			return false
		}
	}
	return true
}

// Results receives the output of a closest-point kernel: for pair i, the
// parameters S[i] on segment 1 and T[i] on segment 2 of the closest points
// and their squared distance Dist2[i].
type Results struct {
	S, T, Dist2 []float32
}

// NewResults returns results for n pairs, all zero.
func NewResults(n int) *Results {
	if n < 0 {
		panic(fmt.Sprintf("soa.NewResults: negative length %d", n))
	}
	r := &Results{}
	r.alloc(n, capFor(n))
	return r
}

func (r *Results) alloc(n, c int) {
	v := staggered(3, c)
	r.S, r.T, r.Dist2 = v[0][:n], v[1][:n], v[2][:n]
}

// Len returns the number of results, the length of S.
func (r *Results) Len() int { return len(r.S) }

func (r *Results) streams() [3]*[]float32 { return [3]*[]float32{&r.S, &r.T, &r.Dist2} }

// Resize sets the length of all three slices to n, reusing the storage when
// its capacity allows, so that results can follow a batch whose size
// changes every step. The first min(Len, n) results are kept.
func (r *Results) Resize(n int) {
	st := r.streams()
	resizeStreams("Results", st[:], n, n)
}

// Reset sets the length to zero and keeps the storage.
func (r *Results) Reset() {
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

// staggered carves k slices of capacity c out of one allocation. Every
// slice starts on a cache-line boundary, and no two start at the same
// offset within a 4 KiB page (the "stagger" of DESIGN.md section 5).
func staggered(k, c int) [][]float32 {
	const perLine = cacheLine / 4 // float32s per cache line
	// The stride between streams is an odd number of cache lines: then
	// stream j starts j*stride lines into the block, and j*stride mod 64
	// (the lines in a 4 KiB page) differs for every j < 64, so the streams
	// a kernel walks in lockstep start in different L1 sets.
	lines := (c + perLine - 1) / perLine
	if lines%2 == 0 {
		lines++
	}
	stride := lines * perLine
	buf := make([]float32, k*stride+perLine)
	// Align the first stream to a cache line.
	off := 0
	if mis := int(uintptr(unsafe.Pointer(&buf[0])) % cacheLine); mis != 0 {
		off = (cacheLine - mis) / 4
	}
	out := make([][]float32, k)
	for j := range out {
		start := off + j*stride
		out[j] = buf[start : start+c : start+c]
	}
	return out
}
