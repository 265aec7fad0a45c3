package kernel

import (
	"math"
	"strconv"
	"testing"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// TestParallelPlaceRows runs the parallel compactions in chunks of 64
// pairs, so that hundreds of chunks finish out of order and the workers
// move rows while others still compute, and compares every row with the
// single-core call. The pairs come in runs of touching and apart pairs
// (every share from none to all), so that some chunks' rows go to rows
// an earlier chunk compacted into and others do not move at all. Rows
// from the count on keep their contents.
func TestParallelPlaceRows(t *testing.T) {
	r := verify.NewRand(61, 1)
	caps := verify.RandomCapsules(r, 3000)
	caps64 := verify.WidenCapsules(caps)
	const margin = 0.05

	// Sort random pairs into touching and apart with the go path.
	probe := verify.RandomIndexPairs(r, caps.Len(), 20000)
	rows := soa.NewContacts(probe.Len())
	goPath, _ := Lookup("go")
	goPath.BatchContacts(rows, caps, probe, margin)
	var touching, apart [][2]uint32
	for k := range probe.Len() {
		p := [2]uint32{probe.I[k], probe.J[k]}
		if rows.Count[k] > 0 {
			touching = append(touching, p)
		} else {
			apart = append(apart, p)
		}
	}
	if len(touching) < 100 || len(apart) < 100 {
		t.Fatalf("%d touching and %d apart pairs: the test needs both", len(touching), len(apart))
	}

	const n = 64*150 + 37
	for _, isa := range Available() {
		k, _ := Lookup(isa)
		for _, workers := range []int{2, 3, 8} {
			p := NewParallel(k, workers)
			p.MinParallel = 0
			p.chunk = 64
			for _, share := range []int{0, 5, 50, 95, 100} {
				// Runs of 1 to 300 pairs, each touching with probability share%.
				pairs := soa.NewIndexPairs(n)
				for i := 0; i < n; {
					run := 1 + r.IntN(300)
					src := apart
					if r.IntN(100) < share {
						src = touching
					}
					for ; run > 0 && i < n; run, i = run-1, i+1 {
						q := src[r.IntN(len(src))]
						pairs.I[i], pairs.J[i] = q[0], q[1]
					}
				}
				what := "isa=" + isa + " workers=" + strconv.Itoa(workers) + " share=" + strconv.Itoa(share)

				want, got := soa.NewContacts(n), soa.NewContacts(n)
				fillSentinel(got)
				wn, gn := k.CompactContacts(want, caps, pairs, margin), p.CompactContacts(got, caps, pairs, margin)
				if wn != gn {
					t.Fatalf("%s: CompactContacts wrote %d rows, one core %d", what, gn, wn)
				}
				if i := untouchedFrom(got, gn); i >= 0 {
					t.Fatalf("%s: CompactContacts wrote row %d, beyond its count %d", what, i, gn)
				}
				wf, gf := contactFloats(want), contactFloats(got)
				for i := range wn {
					if want.Pair[i] != got.Pair[i] || want.Count[i] != got.Count[i] {
						t.Fatalf("%s: row %d: pair %d count %d, one core pair %d count %d", what, i, got.Pair[i], got.Count[i], want.Pair[i], want.Count[i])
					}
					for j := range wf {
						if math.Float32bits(wf[j][i]) != math.Float32bits(gf[j][i]) {
							t.Fatalf("%s: row %d, float stream %d differs", what, i, j)
						}
					}
				}

				want64, got64 := soa.NewContacts64(n), soa.NewContacts64(n)
				fillSentinel(got64)
				wn, gn = k.CompactContacts64(want64, caps64, pairs, margin), p.CompactContacts64(got64, caps64, pairs, margin)
				if wn != gn {
					t.Fatalf("%s: CompactContacts64 wrote %d rows, one core %d", what, gn, wn)
				}
				if i := untouchedFrom(got64, gn); i >= 0 {
					t.Fatalf("%s: CompactContacts64 wrote row %d, beyond its count %d", what, i, gn)
				}
				wf64, gf64 := contactFloats(want64), contactFloats(got64)
				for i := range wn {
					if want64.Pair[i] != got64.Pair[i] || want64.Count[i] != got64.Count[i] {
						t.Fatalf("%s: CompactContacts64 row %d: pair %d, one core pair %d", what, i, got64.Pair[i], want64.Pair[i])
					}
					for j := range wf64 {
						if math.Float64bits(wf64[j][i]) != math.Float64bits(gf64[j][i]) {
							t.Fatalf("%s: CompactContacts64 row %d, float stream %d differs", what, i, j)
						}
					}
				}
			}
			p.Close()
		}
	}
}

// contactFloats returns the float streams of c.
func contactFloats[F soa.Float](c *soa.ContactsOf[F]) [11][]F {
	return [11][]F{c.Depth1, c.Depth2, c.NX, c.NY, c.NZ, c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z}
}
