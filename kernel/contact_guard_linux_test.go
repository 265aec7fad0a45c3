//go:build linux

package kernel_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// ctGuardU32 views the n float32s g hands out as uint32s (index and
// Pair/Count streams are 4 bytes too).
func ctGuardU32(f []float32) []uint32 {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&f[0])), len(f))
}

// TestContactsGuardPage places the capsule records, the two index arrays
// and the thirteen output streams of BatchContacts and CompactContacts in
// their own mmap regions (newGuarded, guardpage_linux_test.go), each
// ending exactly at a PROT_NONE page, then starting right after one; the
// pairs use the last and the first capsule. A kernel that reads or writes
// one byte outside any slice (a load past the last record, a full-width
// load of the index tail, an unmasked store of a compacted tail) dies
// with SIGSEGV. Every path, lengths 1..33 (every tail of both
// widths) and the lengths around where the loops start prefetching the
// records of the groups ahead (forced on for these small arrays, then
// off: the prefetches read indices up to gen/amd64.PrefetchRecordsAhead
// groups ahead), and the results are checked bit for bit against the
// specification.
func TestContactsGuardPage(t *testing.T) {
	defer kernel.ForceRecordPrefetch(false)() // the size rule again, even after a failure
	const maxN = 193
	capR := make([]*guarded, 1)
	idxR := make([]*guarded, 2)
	outR := make([]*guarded, 13)
	for _, rs := range [][]*guarded{capR, idxR, outR} {
		for i := range rs {
			rs[i] = newGuarded(t, 32*maxN) // room for maxN records
		}
	}
	caps0, pairs0 := ctScene(ctSeed, maxN, maxN, false)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, c := range guardPrefetchCases() {
			kernel.ForceRecordPrefetch(c.prefetch) // the defer above restores the rule
			place, n := c.place, c.n
			at := func(g *guarded, n int) []float32 { return g.at(place, n) }
			caps := ctCapsulesIn(at(capR[0], 8*n))
			copy(caps, caps0)
			pairs := &soa.IndexPairs{I: ctGuardU32(at(idxR[0], n)), J: ctGuardU32(at(idxR[1], n))}
			for j := range n {
				pairs.I[j], pairs.J[j] = pairs0.I[j]%uint32(n), pairs0.J[j]%uint32(n)
			}
			pairs.I[n-1], pairs.J[0] = uint32(n-1), uint32(n-1) // the last capsule, at both ends
			pairs.J[n-1] = 0
			dst := &soa.Contacts{Pair: ctGuardU32(at(outR[0], n)), Count: ctGuardU32(at(outR[1], n))}
			for i, s := range ctFloatStreams(dst) {
				*s = at(outR[2+i], n)
			}
			what := fmt.Sprintf("guard %s n=%d prefetch %v", place, n, c.prefetch)
			for _, margin := range []float32{0, 0.5} {
				k.BatchContacts(dst, caps, pairs, margin)
				ctCheckBatch(t, "BatchContacts "+what, dst, caps, pairs, margin)
				ctFill(dst)
				m := k.CompactContacts(dst, caps, pairs, margin)
				ctCheckCompact(t, "CompactContacts "+what, m, dst, caps, pairs, margin)
			}
		}
	})
}

// guardPrefetchCase is one run of a contact guard-page test: where the
// arrays sit against the guard page, the number of pairs, and whether the
// kernels prefetch the records of the groups ahead.
type guardPrefetchCase struct {
	place    string
	n        int
	prefetch bool
}

// guardPrefetchCases returns lengths 1..33 without prefetching and, with
// prefetching forced on, the lengths around where the prefetching groups
// start and stop (4 groups whole of 4, 8 and 16 lanes: 16, 32, 64 pairs;
// two iterations of BatchClosestIndexed's loops of 2-4 groups: 16 to 128
// pairs), each against both ends of the guard page.
func guardPrefetchCases() []guardPrefetchCase {
	var cs []guardPrefetchCase
	for _, place := range []string{"end", "start"} {
		for n := 1; n <= 33; n++ {
			cs = append(cs, guardPrefetchCase{place, n, false})
		}
		for _, n := range []int{15, 16, 17, 20, 31, 32, 33, 40, 47, 48, 49, 63, 64, 65, 66, 79, 80, 81, 96, 97, 127, 128, 129, 160, 192, 193} {
			cs = append(cs, guardPrefetchCase{place, n, true})
		}
	}
	return cs
}

// TestClosestPointGuardPage does the same for BatchClosestPoint: each of
// the nine input and two output streams ends exactly at (then starts right
// after) a PROT_NONE page, lengths 1..33, every path.
func TestClosestPointGuardPage(t *testing.T) {
	const maxN = 33
	regions := make([]*guarded, 11)
	for i := range regions {
		regions[i] = newGuarded(t, 4*maxN)
	}
	all := ctPointSegments(ctSeed, maxN, 5)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, place := range []string{"end", "start"} {
			for n := 1; n <= maxN; n++ {
				src, dst := &soa.PointSegments{}, &soa.PointResults{}
				_, ptrs := ctPointSlices(src, dst)
				_, from := ctPointSlices(all, soa.NewPointResults(maxN))
				for i, p := range ptrs {
					*p = regions[i].at(place, n)
					copy(*p, *from[i])
				}
				k.BatchClosestPoint(dst, src)
				ctCheckPointBits(t, fmt.Sprintf("guard %s n=%d", place, n), src, dst)
			}
		}
	})
}

// TestContacts64GuardPage is TestContactsGuardPage for the float64
// contact kernels: the 64-byte records, the index arrays and the thirteen
// output streams each end exactly at (then start right after) a
// PROT_NONE page, lengths 1..33 and those of guardPrefetchCases, every
// path, every row checked against fallback.ContactLane64.
func TestContacts64GuardPage(t *testing.T) {
	defer kernel.ForceRecordPrefetch(false)() // the size rule again, even after a failure
	const maxN = 193
	caps0, pairs0 := contact64Scene(82, maxN)
	capR, idxR, outR := newGuarded(t, 64*maxN), [2]*guarded{newGuarded(t, 4*maxN), newGuarded(t, 4*maxN)}, make([]*guarded, 13)
	for i := range outR {
		outR[i] = newGuarded(t, 8*maxN)
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, c := range guardPrefetchCases() {
			kernel.ForceRecordPrefetch(c.prefetch) // the defer above restores the rule
			place, n := c.place, c.n
			at := func(g *guarded, n int) []float32 { return g.at(place, n) }
			recs := at(capR, 16*n)
			caps := unsafe.Slice((*soa.Capsule64)(unsafe.Pointer(&recs[0])), n)
			copy(caps, caps0[:n])
			pairs := &soa.IndexPairs{I: ctGuardU32(at(idxR[0], n)), J: ctGuardU32(at(idxR[1], n))}
			for j := range n {
				pairs.I[j], pairs.J[j] = pairs0.I[j]%uint32(n), pairs0.J[j]%uint32(n)
			}
			pairs.I[n-1], pairs.J[0] = uint32(n-1), uint32(n-1)
			dst := &soa.Contacts64{Pair: ctGuardU32(at(outR[0], n)), Count: ctGuardU32(at(outR[1], n))}
			for i, s := range []*[]float64{&dst.Depth1, &dst.Depth2, &dst.NX, &dst.NY, &dst.NZ, &dst.P1X, &dst.P1Y, &dst.P1Z, &dst.P2X, &dst.P2Y, &dst.P2Z} {
				*s = guardF64(at(outR[2+i], 2*n))
			}
			for _, margin := range []float64{0, 0.5} {
				k.BatchContacts64(dst, caps, pairs, margin)
				for r := range n {
					if _, got := row64(dst, r); !sameContact64(got, spec64Contact(caps, pairs, r, margin)) {
						t.Fatalf("guard %s n=%d prefetch %v row %d differs", place, n, c.prefetch, r)
					}
				}
				k.CompactContacts64(dst, caps, pairs, margin)
			}
		}
	})
}

// TestClosestIndexedGuardPage places the records, the index arrays and S,
// T, Dist2 of BatchClosestIndexed (and the 64-byte records and float64
// results of BatchClosestIndexed64) each ending exactly at, then starting
// right after, a PROT_NONE page; lengths 1..33, every path, results
// checked against BatchClosest of the go path on the laid-out axes.
func TestClosestIndexedGuardPage(t *testing.T) {
	defer kernel.ForceRecordPrefetch(false)() // the size rule again, even after a failure
	const maxN = 193
	caps0, pairs0 := ctScene(ctSeed, maxN, maxN, false)
	caps64, _ := contact64Scene(86, maxN)
	capR, capR64 := newGuarded(t, 32*maxN), newGuarded(t, 64*len(caps64))
	idxR := [2]*guarded{newGuarded(t, 4*maxN), newGuarded(t, 4*maxN)}
	outR := [3]*guarded{newGuarded(t, 8*maxN), newGuarded(t, 8*maxN), newGuarded(t, 8*maxN)}
	goK := lookup(t, "go")
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, c := range guardPrefetchCases() {
			kernel.ForceRecordPrefetch(c.prefetch) // the defer above restores the rule
			place, n := c.place, c.n
			at := func(g *guarded, n int) []float32 { return g.at(place, n) }
			caps := ctCapsulesIn(at(capR, 8*n))
			copy(caps, caps0[:n])
			pairs := &soa.IndexPairs{I: ctGuardU32(at(idxR[0], n)), J: ctGuardU32(at(idxR[1], n))}
			for j := range n {
				pairs.I[j], pairs.J[j] = pairs0.I[j]%uint32(n), pairs0.J[j]%uint32(n)
			}
			pairs.I[n-1], pairs.J[0] = uint32(n-1), uint32(n-1)
			dst := &soa.Results{S: at(outR[0], n), T: at(outR[1], n), Dist2: at(outR[2], n)}
			k.BatchClosestIndexed(dst, caps, pairs)
			src := laidOut(caps, pairs)
			want := soa.NewResults(n)
			goK.BatchClosest(want, src)
			checkSame(t, fmt.Sprintf("guard %s n=%d prefetch %v", place, n, c.prefetch), src, dst, want)

			recs := at(capR64, 16*len(caps64))
			c64 := unsafe.Slice((*soa.Capsule64)(unsafe.Pointer(&recs[0])), len(caps64))
			copy(c64, caps64)
			for j := range n {
				pairs.I[j], pairs.J[j] = pairs0.I[j]%uint32(len(c64)), pairs0.J[j]%uint32(len(c64))
			}
			d64 := &soa.Results64{S: guardF64(at(outR[0], 2*n)), T: guardF64(at(outR[1], 2*n)), Dist2: guardF64(at(outR[2], 2*n))}
			k.BatchClosestIndexed64(d64, c64, pairs)
			src64 := laidOut(c64, pairs)
			want64 := soa.NewResults64(n)
			goK.BatchClosest64(want64, src64)
			checkSame64(t, fmt.Sprintf("guard64 %s n=%d prefetch %v", place, n, c.prefetch), src64, d64, want64)
		}
	})
}
