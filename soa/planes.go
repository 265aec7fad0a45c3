package soa

import (
	"fmt"
	"unsafe"
)

// PlaneOf is a half-space, the set of points X with N·X <= D: N is its
// unit outward normal and D its offset along N (the plane N·X = D is its
// surface). A ground at height h with up +y is {N: (0, 1, 0), D: h}. The
// record has the size and layout of a CapsuleOf (N where A is, D where R
// is, then padding), so that the plane kernels load planes and capsules
// with one record loader; an engine has few planes, so the padding costs
// nothing.
type PlaneOf[F Float] struct {
	N [3]F
	D F
	_ [4]F
}

// Plane is a float32 half-space, a 32-byte record.
type Plane = PlaneOf[float32]

// Plane64 is a float64 half-space, a 64-byte record.
type Plane64 = PlaneOf[float64]

// PlanesOf is an engine's store of half-spaces (ground, walls), read by
// the plane kernels through an IndexPairs list whose J indices name the
// planes. Any []PlaneOf[F] is a PlanesOf[F]; NewPlanes, Append and
// Resize allocate records aligned to their size.
type PlanesOf[F Float] []PlaneOf[F]

// Planes is the float32 plane store of kernel.BatchPlaneContacts.
type Planes = PlanesOf[float32]

// Planes64 is the float64 plane store of kernel.BatchPlaneContacts64.
type Planes64 = PlanesOf[float64]

// NewPlanes returns n planes, all zero, 32-byte aligned.
func NewPlanes(n int) Planes { return newPlanes[float32]("NewPlanes", n) }

// NewPlanes64 is NewPlanes in float64 (64-byte aligned records).
func NewPlanes64(n int) Planes64 { return newPlanes[float64]("NewPlanes64", n) }

func newPlanes[F Float](what string, n int) PlanesOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	return alignedRecords[PlaneOf[F], F](capFor(n))[:n]
}

// alignedRecords returns c zero records of type R (a struct of floats F
// whose size is a power of two) starting on a multiple of their size, in
// an array of floats one record longer than needed (a record holds no
// pointer, so the garbage collector is indifferent to the view).
func alignedRecords[R any, F Float](c int) []R {
	var rec R
	size := int(unsafe.Sizeof(rec))
	elem := int(unsafe.Sizeof(F(0)))
	per := size / elem
	buf := make([]F, per*(c+1))
	adviseHuge(buf)
	off := 0
	if mis := int(uintptr(unsafe.Pointer(&buf[0])) % uintptr(size)); mis != 0 {
		off = (size - mis) / elem
	}
	return unsafe.Slice((*R)(unsafe.Pointer(&buf[off])), c)
}

// Len returns the number of planes.
func (p PlanesOf[F]) Len() int { return len(p) }

// Set stores plane i: unit normal n, offset d.
func (p PlanesOf[F]) Set(i int, n [3]F, d F) { p[i] = PlaneOf[F]{N: n, D: d} }

// Get returns plane i.
func (p PlanesOf[F]) Get(i int) (n [3]F, d F) { return p[i].N, p[i].D }

// Append adds one plane at the end, doubling the allocation (aligned)
// when full.
func (p *PlanesOf[F]) Append(n [3]F, d F) {
	rec := appendRecord[PlaneOf[F], F]((*[]PlaneOf[F])(p), "Planes")
	rec.N, rec.D = n, d
}

// Resize sets the number of planes to n, keeping the first min(Len, n);
// a reallocation is aligned and at least doubles the capacity.
func (p *PlanesOf[F]) Resize(n int) { resizeRecords[PlaneOf[F], F]((*[]PlaneOf[F])(p), n, "Planes") }

// Reset sets the length to zero and keeps the storage.
func (p *PlanesOf[F]) Reset() { *p = (*p)[:0] }

// resizeRecords sets the length of a record store to n, keeping the
// first min(len, n) records; a reallocation is aligned (alignedRecords)
// and at least doubles the capacity.
func resizeRecords[R any, F Float](s *[]R, n int, what string) {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s.Resize: negative length %d", what, n))
	}
	if n > cap(*s) {
		grown := alignedRecords[R, F](capFor(max(n, 2*cap(*s))))
		copy(grown, *s)
		*s = grown
	}
	*s = (*s)[:n]
}

// appendRecord grows a record store by one (resizeRecords when full) and
// returns the new record, for the caller to fill.
func appendRecord[R any, F Float](s *[]R, what string) *R {
	n := len(*s)
	if n == cap(*s) {
		resizeRecords[R, F](s, n+1, what)
	} else {
		*s = (*s)[:n+1]
	}
	return &(*s)[n]
}
