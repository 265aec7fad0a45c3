//go:build linux

package kernel_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// TestTOIGuardPage places the start records, the end records, the Pad
// slice, the two index arrays and the fourteen output streams of
// BatchTOI and CompactTOI (and of their float64 twins) each in its own
// mmap region (newGuarded), ending exactly at a PROT_NONE page, then
// starting right after one. The first and the last pair use the first and
// the last capsule, so the records and pads at both ends of their slices
// are read. A kernel that reads or writes one byte outside any slice (a
// record or pad gathered past the end, a full-width load of the index
// tail, an unmasked store of the tail group's rows) dies with SIGSEGV.
// Every path, every length 1..40 (every tail of the 4-, 8- and 16-lane
// groups, one to three groups) and longer ones around CompactTOI's chunks
// of 128 pairs, with Pad set and nil, under two sets of parameters (one
// converging, one stopping most pairs Unconverged after a few
// iterations); every row is checked bit for bit against the go path.
func TestTOIGuardPage(t *testing.T) {
	testTOIGuardPage[float32](t)
}

// TestTOI64GuardPage is TestTOIGuardPage in float64: 64-byte records,
// float64 pads and output streams.
func TestTOI64GuardPage(t *testing.T) {
	testTOIGuardPage[float64](t)
}

// toiGuardLengths are the numbers of pairs of the TOI guard-page tests.
func toiGuardLengths() []int {
	var ns []int
	for n := 1; n <= 40; n++ {
		ns = append(ns, n)
	}
	return append(ns, 47, 63, 64, 65, 127, 128, 129, 255, 256, 257)
}

// toiGuardCases returns the cases of the guard-page scene: three of every
// TOI category (hits, misses, grazes, pairs that need many iterations)
// and a sample of the bad cases (non-finite values, negative radii and
// pads: Invalid lanes).
func toiGuardCases[F soa.Float]() []verify.TOICaseOf[F] {
	var cases []verify.TOICaseOf[F]
	for ci, cat := range verify.TOICategories() {
		cases = append(cases, verify.TOICases[F](cat, uint64(700+ci), 3, 3)...)
	}
	bad := verify.TOIBadCases[F](11)
	for k := 0; k < len(bad); k += 7 {
		cases = append(cases, bad[k])
	}
	return cases
}

func testTOIGuardPage[F soa.Float](t *testing.T) {
	start0, end0, pad0, scene := toiScene(toiGuardCases[F]())
	nc := len(start0)
	lengths := toiGuardLengths()
	maxN := lengths[len(lengths)-1]
	size := int(unsafe.Sizeof(F(0)))
	startR, endR, padR := newGuarded(t, 8*size*nc), newGuarded(t, 8*size*nc), newGuarded(t, size*nc)
	idxR := [2]*guarded{newGuarded(t, 4*maxN), newGuarded(t, 4*maxN)}
	outR := make([]*guarded, 14)
	for i := range outR {
		outR[i] = newGuarded(t, 8*maxN)
	}
	params := []kernel.TOIParamsOf[F]{
		{Margin: 0, Tol: F(1e-3), TMax: 1, MaxIter: 64},
		{Margin: F(0.0625), Tol: 0, TMax: F(0.75), MaxIter: 3},
	}
	goK := lookup(t, "go")
	var seen [5]int // rows of each status in the go path's batches
	multi := 0      // of them, rows after more than one iteration
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, place := range []string{"end", "start"} {
			at := func(g *guarded, n int) []F { return guardFloats[F](g, place, n) }
			start, end := guardRecords(at(startR, 8*nc)), guardRecords(at(endR, 8*nc))
			copy(start, start0)
			copy(end, end0)
			pad := at(padR, nc)
			copy(pad, pad0)
			for _, n := range lengths {
				pairs := &soa.IndexPairs{I: ctGuardU32(guardFloats[float32](idxR[0], place, n)), J: ctGuardU32(guardFloats[float32](idxR[1], place, n))}
				for j := range n {
					pairs.I[j], pairs.J[j] = scene.I[j%scene.Len()], scene.J[j%scene.Len()]
				}
				last := uint32(nc - 1) // the records and pads at both ends
				pairs.I[0], pairs.J[0] = 0, last
				pairs.I[n-1], pairs.J[n-1] = last, 0
				if n > 2 {
					pairs.I[n-2], pairs.J[n-2] = last, last-1 // the last case, swapped
				}
				dst := &soa.TOIsOf[F]{Pair: ctGuardU32(guardFloats[float32](outR[0], place, n)),
					Status: ctGuardU32(guardFloats[float32](outR[1], place, n)), Iter: ctGuardU32(guardFloats[float32](outR[2], place, n))}
				for i, s := range []*[]F{&dst.T, &dst.Dist, &dst.NX, &dst.NY, &dst.NZ, &dst.PX, &dst.PY, &dst.PZ, &dst.QX, &dst.QY, &dst.QZ} {
					*s = at(outR[3+i], n)
				}
				want := &soa.TOIsOf[F]{}
				want.Resize(n)
				for pi, p := range params {
					for _, withPad := range []bool{true, false} {
						p.Pad = nil
						if withPad {
							p.Pad = pad
						}
						what := fmt.Sprintf("guard %s n=%d params %d pad %v", place, n, pi, withPad)
						batchTOI(goK, want, start, end, pairs, p)
						for r := range n {
							seen[want.Status[r]]++
							if want.Iter[r] > 1 {
								multi++
							}
						}
						batchTOI(k, dst, start, end, pairs, p)
						checkSameTOIRows(t, "BatchTOI "+what, dst, want, n)
						m := compactTOI(goK, want, start, end, pairs, p)
						if got := compactTOI(k, dst, start, end, pairs, p); got != m {
							t.Fatalf("CompactTOI %s: %d rows, want %d", what, got, m)
						}
						checkSameTOIRows(t, "CompactTOI "+what, dst, want, m)
					}
				}
			}
		}
	})
	// The scene must exercise every kind of lane.
	for st, c := range seen {
		if c == 0 {
			t.Errorf("no row of status %v in the scene", fallback.TOIStatus(st))
		}
	}
	if multi == 0 {
		t.Errorf("no row of the scene needs more than one iteration")
	}
	t.Logf("rows per status (Miss, Hit, Initial, Unconverged, Invalid): %v, %d after several iterations", seen, multi)
}

// checkSameTOIRows fails t unless the first n rows of got and want are
// the same bits, pair index included.
func checkSameTOIRows[F soa.Float](t *testing.T, what string, got, want *soa.TOIsOf[F], n int) {
	t.Helper()
	for r := range n {
		gp, g := toiRow(got, r)
		wp, w := toiRow(want, r)
		if gp != wp || !sameTOI(g, w) {
			t.Fatalf("%s row %d: pair %d %+v, go path pair %d %+v", what, r, gp, g, wp, w)
		}
	}
}

// guardFloats returns n values of F in g at place "end" or "start" (both
// ends of a region's data are page-aligned).
func guardFloats[F soa.Float](g *guarded, place string, n int) []F {
	f := g.at(place, n*int(unsafe.Sizeof(F(0)))/4)
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*F)(unsafe.Pointer(&f[0])), n)
}

// guardRecords views f (8 values a record) as capsule records.
func guardRecords[F soa.Float](f []F) soa.CapsulesOf[F] {
	return unsafe.Slice((*soa.CapsuleOf[F])(unsafe.Pointer(&f[0])), len(f)/8)
}
