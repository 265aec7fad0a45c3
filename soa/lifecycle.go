package soa

import "fmt"

// Every batch type of this package has the same lifecycle:
//
//	New<Type>(n)   n elements, zero, in one allocation (streams staggered,
//	               capsule records 32-byte aligned)
//	Len()          the number of elements
//	Resize(n)      length n, keeping the first min(Len, n) values (later
//	               ones are unspecified: zero after a reallocation, stale
//	               otherwise); storage is reused when its capacity allows,
//	               and a reallocation at least doubles the capacity
//	Reset()        length 0, storage kept: refill every step without allocating
//
// and the input batches (Pairs, Capsules, IndexPairs, PointSegments) also
// Set(i, ...), Get(i) and Append(...) one element, Append doubling the
// capacity when full. The helpers below do this for any list of float32
// or float64 streams.

// resizeStreams sets every stream of st to length n, keeping the first
// min(len, n) values. When a stream lacks room it reallocates one
// staggered block (placed from firstLine of a page, see staggered) of
// capacity at least capacity and at least twice the smallest capacity
// before, so that a size growing a little every step reallocates
// O(log n) times, not every step.
func resizeStreams[F element](what string, st []*[]F, n, capacity, firstLine int) {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s.Resize: negative length %d", what, n))
	}
	fits, least := true, cap(*st[0])
	for _, s := range st {
		fits = fits && n <= cap(*s)
		least = min(least, cap(*s))
	}
	if !fits {
		views := staggered[F](len(st), capFor(max(n, capacity, 2*least)), firstLine)
		for k, s := range st {
			copy(views[k], *s)
			*s = views[k]
		}
	}
	for _, s := range st {
		*s = (*s)[:n]
	}
}

// appendSlot grows every stream of st by one element (doubling the
// capacity when full; placed from firstLine of a page) and returns its
// index.
func appendSlot[F element](what string, st []*[]F, firstLine int) int {
	n := len(*st[0])
	if !uniform(st) {
		resizeStreams(what, st, n+1, 2*n, firstLine)
		return n
	}
	for _, s := range st {
		*s = (*s)[:n+1]
	}
	return n
}

// resetStreams sets every stream of st to length 0.
func resetStreams[F element](st []*[]F) {
	for _, s := range st {
		*s = (*s)[:0]
	}
}
