package soa

import "fmt"

// TOIsOf receives the results of the time-of-impact kernels, one row per
// pair (kernel.BatchTOI) or per pair that is not a proven miss
// (kernel.CompactTOI). Row k: Pair[k] the index of the pair in the
// IndexPairs given, Status[k] a fallback.TOIStatus, T[k] the time reached,
// Dist[k] the axes' distance there, (NX, NY, NZ) the unit normal from
// capsule J toward capsule I, P and Q the closest points of axis I and
// axis J at T, and Iter[k] the closest-point evaluations spent.
type TOIsOf[F Float] struct {
	Pair, Status, Iter []uint32
	T, Dist            []F
	NX, NY, NZ         []F
	PX, PY, PZ         []F
	QX, QY, QZ         []F
}

// TOIs receives float32 results, TOIs64 float64 ones.
type (
	TOIs   = TOIsOf[float32]
	TOIs64 = TOIsOf[float64]
)

// NewTOIs returns room for n results.
func NewTOIs(n int) *TOIs { return newTOIs[float32]("NewTOIs", n) }

// NewTOIs64 is NewTOIs in float64.
func NewTOIs64(n int) *TOIs64 { return newTOIs[float64]("NewTOIs64", n) }

func newTOIs[F Float](what string, n int) *TOIsOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	r := &TOIsOf[F]{}
	r.Resize(n)
	return r
}

func (r *TOIsOf[F]) floats() [11]*[]F {
	return [11]*[]F{&r.T, &r.Dist, &r.NX, &r.NY, &r.NZ, &r.PX, &r.PY, &r.PZ, &r.QX, &r.QY, &r.QZ}
}

// Len returns the number of rows, the length of Pair.
func (r *TOIsOf[F]) Len() int { return len(r.Pair) }

// Resize sets the number of rows to n, keeping the first min(Len, n).
func (r *TOIsOf[F]) Resize(n int) {
	fl := r.floats()
	resizeStreams("TOIs", fl[:], n, n, outputLine)
	resizeStreams("TOIs", []*[]uint32{&r.Pair, &r.Status, &r.Iter}, n, n, outputLine+len(fl))
}

// Reset sets the number of rows to zero and keeps the storage.
func (r *TOIsOf[F]) Reset() { r.Resize(0) }
