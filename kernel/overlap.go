package kernel

import (
	"fmt"
	"unsafe"

	"github.com/segdist/segdist/soa"
)

// Outputs must not share memory with the inputs or with each other. A
// kernel that reads a lane's inputs after another lane's output has
// overwritten them gets different bits on different paths (lane by lane
// in Go, 16 lanes at a time in AVX-512, several groups interleaved, in
// chunks on Parallel's workers), so every entry point checks, before any
// kernel runs, that the elements a call may write overlap no other
// output and no input. Inputs may share memory with each other: they are
// only read.
//
// The check every call pays is straight-line code on the streams'
// addresses: the streams of one soa batch lie in one or two ascending
// allocations, so bounds of whole batches settle it. Only where those
// bounds meet does sharedMemory look at single streams, and panic naming
// two of them if they do share memory.

// addr returns the address of s's first element.
func addr[T any](s []T) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }

// size returns the bytes of n elements of s.
func size[T any](s []T, n int) uintptr {
	var zero T
	return uintptr(n) * unsafe.Sizeof(zero)
}

// apart reports whether [a, a+an) and [b, b+bn) share no byte.
func apart(a, an, b, bn uintptr) bool { return a+an <= b || b+bn <= a }

// bounds4 returns the lowest and the highest of four addresses.
func bounds4(a, b, c, d uintptr) (lo, hi uintptr) {
	return min(min(a, b), min(c, d)), max(max(a, b), max(c, d))
}

// stream is one slice of a call: its name, address and the bytes the
// call reads or writes.
type stream struct {
	name      string
	addr, len uintptr
}

func streamOf[T any](name string, s []T, n int) stream { return stream{name, addr(s), size(s, n)} }

// sharedMemory panics naming the first output that shares memory with an
// earlier output or with an input, and returns if none does.
func sharedMemory(outs, ins []stream) {
	for i, o := range outs {
		if o.len == 0 {
			continue
		}
		for _, p := range outs[:i] {
			if p.len != 0 && !apart(o.addr, o.len, p.addr, p.len) {
				panic(fmt.Sprintf("segdist/kernel: %s and %s share memory (outputs must not overlap each other or the inputs)", p.name, o.name))
			}
		}
		for _, in := range ins {
			if in.len != 0 && !apart(o.addr, o.len, in.addr, in.len) {
				panic(fmt.Sprintf("segdist/kernel: %s and %s share memory (outputs must not overlap each other or the inputs)", o.name, in.name))
			}
		}
	}
}

// checkResultsApart checks the n results of dst against the pairs of src
// (checkLengths has checked n).
func checkResultsApart[F soa.Float](dst *soa.ResultsOf[F], src *soa.PairsOf[F], n int) {
	if n == 0 {
		return
	}
	b := size(dst.S, n)
	s, t, d := addr(dst.S), addr(dst.T), addr(dst.Dist2)
	// The inputs' lowest and highest address: the first and last stream
	// where they ascend, as soa allocates them.
	a0, a1, a2, a3 := addr(src.AX), addr(src.AY), addr(src.AZ), addr(src.BX)
	a4, a5, a6, a7 := addr(src.BY), addr(src.BZ), addr(src.CX), addr(src.CY)
	a8, a9, a10, a11 := addr(src.CZ), addr(src.DX), addr(src.DY), addr(src.DZ)
	lo, hi := a0, a11
	if !(a0 <= a1 && a1 <= a2 && a2 <= a3 && a3 <= a4 && a4 <= a5 && a5 <= a6 && a6 <= a7 && a7 <= a8 &&
		a8 <= a9 && a9 <= a10 && a10 <= a11) {
		lo, hi = bounds4(a0, a1, a2, a3)
		lo1, hi1 := bounds4(a4, a5, a6, a7)
		lo2, hi2 := bounds4(a8, a9, a10, a11)
		lo, hi = min(lo, lo1, lo2), max(hi, hi1, hi2)
	}
	outLo, outHi := min(s, t, d), max(s, t, d)
	if !(apart(s, b, t, b) && apart(s, b, d, b) && apart(t, b, d, b) && apart(outLo, outHi-outLo+b, lo, hi-lo+b)) {
		resultsShared(dst, src, n)
	}
}

// resultsShared is checkResultsApart's look at single streams, apart so
// that its frame (the streams' names) is not set up on every call.
//
//go:noinline
func resultsShared[F soa.Float](dst *soa.ResultsOf[F], src *soa.PairsOf[F], n int) {
	sharedMemory([]stream{streamOf("dst.S", dst.S, n), streamOf("dst.T", dst.T, n), streamOf("dst.Dist2", dst.Dist2, n)},
		[]stream{streamOf("src.AX", src.AX, n), streamOf("src.AY", src.AY, n), streamOf("src.AZ", src.AZ, n),
			streamOf("src.BX", src.BX, n), streamOf("src.BY", src.BY, n), streamOf("src.BZ", src.BZ, n),
			streamOf("src.CX", src.CX, n), streamOf("src.CY", src.CY, n), streamOf("src.CZ", src.CZ, n),
			streamOf("src.DX", src.DX, n), streamOf("src.DY", src.DY, n), streamOf("src.DZ", src.DZ, n)})
}

// checkPointResultsApart is checkResultsApart for the point kernels.
func checkPointResultsApart[F soa.Float](dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F], n int) {
	if n == 0 {
		return
	}
	b := size(dst.T, n)
	t, d := addr(dst.T), addr(dst.Dist2)
	a0, a1, a2, a3 := addr(src.PX), addr(src.PY), addr(src.PZ), addr(src.CX)
	a4, a5, a6, a7, a8 := addr(src.CY), addr(src.CZ), addr(src.DX), addr(src.DY), addr(src.DZ)
	lo, hi := a0, a8
	if !(a0 <= a1 && a1 <= a2 && a2 <= a3 && a3 <= a4 && a4 <= a5 && a5 <= a6 && a6 <= a7 && a7 <= a8) {
		lo, hi = bounds4(a0, a1, a2, a3)
		lo1, hi1 := bounds4(a4, a5, a6, a7)
		lo, hi = min(lo, lo1, a8), max(hi, hi1, a8)
	}
	if !(apart(t, b, d, b) && apart(min(t, d), max(t, d)-min(t, d)+b, lo, hi-lo+b)) {
		pointResultsShared(dst, src, n)
	}
}

// pointResultsShared is resultsShared for the point kernels.
//
//go:noinline
func pointResultsShared[F soa.Float](dst *soa.PointResultsOf[F], src *soa.PointSegmentsOf[F], n int) {
	sharedMemory([]stream{streamOf("dst.T", dst.T, n), streamOf("dst.Dist2", dst.Dist2, n)},
		[]stream{streamOf("src.PX", src.PX, n), streamOf("src.PY", src.PY, n), streamOf("src.PZ", src.PZ, n),
			streamOf("src.CX", src.CX, n), streamOf("src.CY", src.CY, n), streamOf("src.CZ", src.CZ, n),
			streamOf("src.DX", src.DX, n), streamOf("src.DY", src.DY, n), streamOf("src.DZ", src.DZ, n)})
}

// checkIndexedApart checks the m results of dst against the capsules and
// the index pairs of an indexed call.
func checkIndexedApart[F soa.Float](dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, m int) {
	if m == 0 {
		return
	}
	b := size(dst.S, m)
	s, t, d := addr(dst.S), addr(dst.T), addr(dst.Dist2)
	outLo, outLen := min(s, t, d), max(s, t, d)-min(s, t, d)+b
	if !(apart(s, b, t, b) && apart(s, b, d, b) && apart(t, b, d, b) && apart(outLo, outLen, addr(caps), size(caps, len(caps))) &&
		apart(outLo, outLen, addr(pairs.I), size(pairs.I, m)) && apart(outLo, outLen, addr(pairs.J), size(pairs.J, m))) {
		indexedShared(dst, caps, pairs, m)
	}
}

// indexedShared is resultsShared for the indexed kernels.
//
//go:noinline
func indexedShared[F soa.Float](dst *soa.ResultsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, m int) {
	sharedMemory([]stream{streamOf("dst.S", dst.S, m), streamOf("dst.T", dst.T, m), streamOf("dst.Dist2", dst.Dist2, m)},
		[]stream{streamOf("caps", caps, len(caps)), streamOf("pairs.I", pairs.I, m), streamOf("pairs.J", pairs.J, m)})
}

// checkContactsApart checks the first m rows of dst (all a call may
// write) against the capsules and the index pairs. soa puts the eleven
// float streams in one allocation in field order and Pair and Count in
// another.
func checkContactsApart[F soa.Float](dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, m int) {
	if m == 0 {
		return
	}
	b, bi := size(dst.Depth1, m), size(dst.Pair, m)
	f0, f1, f2, f3 := addr(dst.Depth1), addr(dst.Depth2), addr(dst.NX), addr(dst.NY)
	f4, f5, f6, f7 := addr(dst.NZ), addr(dst.P1X), addr(dst.P1Y), addr(dst.P1Z)
	f8, f9, f10 := addr(dst.P2X), addr(dst.P2Y), addr(dst.P2Z)
	p, c := addr(dst.Pair), addr(dst.Count)
	// Floats ascending and apart, Pair and Count apart, the two blocks
	// apart, and every input apart from both.
	floats := f0+b <= f1 && f1+b <= f2 && f2+b <= f3 && f3+b <= f4 && f4+b <= f5 && f5+b <= f6 &&
		f6+b <= f7 && f7+b <= f8 && f8+b <= f9 && f9+b <= f10
	ints, intsLen := min(p, c), max(p, c)-min(p, c)+bi
	floatsLen := f10 - f0 + b
	ca, cl := addr(caps), size(caps, len(caps))
	ia, ja, il := addr(pairs.I), addr(pairs.J), size(pairs.I, m)
	if !(floats && apart(p, bi, c, bi) && apart(f0, floatsLen, ints, intsLen) &&
		apart(f0, floatsLen, ca, cl) && apart(f0, floatsLen, ia, il) && apart(f0, floatsLen, ja, il) &&
		apart(ints, intsLen, ca, cl) && apart(ints, intsLen, ia, il) && apart(ints, intsLen, ja, il)) {
		contactsShared(dst, caps, pairs, m)
	}
}

// contactsShared is resultsShared for the contact kernels.
//
//go:noinline
func contactsShared[F soa.Float](dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], pairs *soa.IndexPairs, m int) {
	sharedMemory(contactStreams(dst, m),
		[]stream{streamOf("caps", caps, len(caps)), streamOf("pairs.I", pairs.I, m), streamOf("pairs.J", pairs.J, m)})
}

// checkRowsApartFrom panics if the m rows a call may write share memory
// with the input in (checked after checkContactsApart has checked the rows
// against each other).
func checkRowsApartFrom[F soa.Float](dst *soa.ContactsOf[F], m int, in stream) {
	if m == 0 || in.len == 0 {
		return
	}
	b, bi := size(dst.Depth1, m), size(dst.Pair, m)
	floats := [...]uintptr{addr(dst.Depth1), addr(dst.Depth2), addr(dst.NX), addr(dst.NY), addr(dst.NZ),
		addr(dst.P1X), addr(dst.P1Y), addr(dst.P1Z), addr(dst.P2X), addr(dst.P2Y), addr(dst.P2Z)}
	ok := apart(addr(dst.Pair), bi, in.addr, in.len) && apart(addr(dst.Count), bi, in.addr, in.len)
	for _, a := range floats {
		ok = ok && apart(a, b, in.addr, in.len)
	}
	if !ok {
		sharedMemory(contactStreams(dst, m), []stream{in})
	}
}

// contactStreams returns the m rows of each of dst's 13 streams.
func contactStreams[F soa.Float](dst *soa.ContactsOf[F], m int) []stream {
	return []stream{streamOf("dst.Depth1", dst.Depth1, m), streamOf("dst.Depth2", dst.Depth2, m),
		streamOf("dst.NX", dst.NX, m), streamOf("dst.NY", dst.NY, m), streamOf("dst.NZ", dst.NZ, m),
		streamOf("dst.P1X", dst.P1X, m), streamOf("dst.P1Y", dst.P1Y, m), streamOf("dst.P1Z", dst.P1Z, m),
		streamOf("dst.P2X", dst.P2X, m), streamOf("dst.P2Y", dst.P2Y, m), streamOf("dst.P2Z", dst.P2Z, m),
		streamOf("dst.Pair", dst.Pair, m), streamOf("dst.Count", dst.Count, m)}
}
