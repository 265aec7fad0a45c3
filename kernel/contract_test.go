package kernel_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// TestGoldenAllPaths checks verify.GoldenHash, the hash of the pure-Go
// specification's results on the golden batch (fallback.TestGolden), on
// every path and through the package-level BatchClosest, with aligned and
// unaligned storage.
func TestGoldenAllPaths(t *testing.T) {
	ps := verify.GoldenPairs()
	check := func(t *testing.T, name string, batch func(*soa.Results, *soa.Pairs)) {
		for _, off := range []int{0, 1} {
			var src *soa.Pairs
			var res *soa.Results
			if off == 0 {
				src, res = soa.FromPairs(ps), soa.NewResults(len(ps))
			} else {
				src, res = verify.Separate(ps, off), verify.NewSeparateResults(len(ps), off)
			}
			batch(res, src)
			if got := verify.HashResults(res); got != verify.GoldenHash {
				t.Fatalf("%s (offset %d): golden hash %s, want %s.\n"+
					"This path's results differ in some bit from the specification (fallback.ClosestLane): "+
					"a different operation order, an FMA, a reciprocal estimate or another NaN/clamp rule. "+
					"That breaks determinism across paths and platforms (docs/design.md, \"The spec's rules (determinism)\"); "+
					"TestBitIdenticalSizes shows the first differing lane.", name, off, got, verify.GoldenHash)
			}
		}
	}
	t.Run("package", func(t *testing.T) { check(t, "kernel.BatchClosest", kernel.BatchClosest) })
	forEachPath(t, func(t *testing.T, k kernel.Kernel) { check(t, k.ISA(), k.BatchClosest) })
}

// TestExactAllPaths checks the accuracy contract on every path: for a
// sample of every category, sqrt(Dist2) and the exact distance between the
// points at S and T are within 8 eps32 x scale of the exact minimum
// distance (math/big), and S, T are in [0,1].
func TestExactAllPaths(t *testing.T) {
	per := 150
	if testing.Short() {
		per = 40
	}
	type sample struct {
		name  string
		pairs []soa.Pair
		exact []float64 // exact minimum distance, rounded to float64
	}
	var samples []sample
	for k, c := range verify.Categories() {
		r := verify.NewRand(31, uint64(k))
		s := sample{name: c.Name}
		for range per {
			p := c.Gen(r)
			s.pairs = append(s.pairs, p)
			s.exact = append(s.exact, verify.Dist(verify.ExactMinDist2(p)))
		}
		samples = append(samples, s)
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		overall := 0.0
		for _, s := range samples {
			src := soa.FromPairs(s.pairs)
			res := soa.NewResults(src.Len())
			k.BatchClosest(res, src)
			worst := 0.0
			for i, p := range s.pairs {
				sc := verify.Scale(p)
				if !(res.S[i] >= 0 && res.S[i] <= 1 && res.T[i] >= 0 && res.T[i] <= 1) {
					t.Fatalf("%s: S, T = %v, %v for %+v", s.name, res.S[i], res.T[i], p)
				}
				dist := verify.ErrEps(math.Abs(math.Sqrt(float64(res.Dist2[i]))-s.exact[i]), sc)
				at := verify.Dist(verify.ExactDist2At(p, float64(res.S[i]), float64(res.T[i])))
				opt := verify.ErrEps(math.Max(0, at-s.exact[i]), sc)
				worst = max(worst, dist, opt)
				if !(dist <= 8 && opt <= 8) {
					t.Errorf("%s: distance error %.3g, optimality %.3g eps32 x scale (bound 8) for %+v: S=%v T=%v Dist2=%v",
						s.name, dist, opt, p, res.S[i], res.T[i], res.Dist2[i])
				}
			}
			overall = max(overall, worst)
		}
		t.Logf("worst over all categories: %.3g eps32 x scale", overall)
	})
}

// TestNoAllocs checks that BatchClosest (package level and on every
// path), Kernel.StreamOnly and Closest do not allocate.
func TestNoAllocs(t *testing.T) {
	src := soa.FromPairs(pool(41, 1000)[:1000])
	res := soa.NewResults(src.Len())
	if a := testing.AllocsPerRun(20, func() { kernel.BatchClosest(res, src) }); a != 0 {
		t.Errorf("kernel.BatchClosest: %v allocations per run", a)
	}
	p := verify.Mixed(1, 1)[0]
	if a := testing.AllocsPerRun(20, func() { kernel.Closest(p.A, p.B, p.C, p.D) }); a != 0 {
		t.Errorf("kernel.Closest: %v allocations per run", a)
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		if a := testing.AllocsPerRun(20, func() { k.BatchClosest(res, src) }); a != 0 {
			t.Errorf("BatchClosest: %v allocations per run", a)
		}
		if a := testing.AllocsPerRun(20, func() { k.StreamOnly(res, src) }); a != 0 {
			t.Errorf("StreamOnly: %v allocations per run", a)
		}
	})
}

// sliceNames are the fifteen slices in the order of the length check.
var sliceNames = []string{
	"src.AX", "src.AY", "src.AZ", "src.BX", "src.BY", "src.BZ",
	"src.CX", "src.CY", "src.CZ", "src.DX", "src.DY", "src.DZ",
	"dst.S", "dst.T", "dst.Dist2",
}

// slicePtrs returns pointers to the fifteen slices of src and dst in the
// order of sliceNames.
func slicePtrs(src *soa.Pairs, dst *soa.Results) []*[]float32 {
	return []*[]float32{
		&src.AX, &src.AY, &src.AZ, &src.BX, &src.BY, &src.BZ,
		&src.CX, &src.CY, &src.CZ, &src.DX, &src.DY, &src.DZ,
		&dst.S, &dst.T, &dst.Dist2,
	}
}

// panicMessage runs f and returns the message it panicked with, or "" and
// false if it did not panic.
func panicMessage(f func()) (msg string, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			msg, panicked = fmt.Sprint(r), true
		}
	}()
	f()
	return "", false
}

// TestLengthMismatch shortens (and lengthens) each of the fifteen slices
// in turn: BatchClosest and StreamOnly must panic, before writing
// anything, with a message that names the slice.
func TestLengthMismatch(t *testing.T) {
	const n = 37
	all := pool(42, n+1)
	const sentinel = float32(-7)
	type entry struct {
		name string
		run  func(*soa.Results, *soa.Pairs)
	}
	var entries []entry
	entries = append(entries, entry{"kernel.BatchClosest", kernel.BatchClosest})
	for _, isa := range paths(t) {
		k := lookup(t, isa)
		entries = append(entries, entry{isa + ".BatchClosest", k.BatchClosest}, entry{isa + ".StreamOnly", k.StreamOnly})
	}
	for _, e := range entries {
		for i, name := range sliceNames {
			for _, delta := range []int{-1, +1} {
				src := soa.FromPairs(all[:n+1])
				dst := soa.NewResults(n + 1)
				for j := range dst.S {
					dst.S[j], dst.T[j], dst.Dist2[j] = sentinel, sentinel, sentinel
				}
				// Every slice n long, the one under test n+delta.
				for j, s := range slicePtrs(src, dst) {
					if j == i {
						*s = (*s)[:n+delta]
					} else {
						*s = (*s)[:n]
					}
				}
				msg, ok := panicMessage(func() { e.run(dst, src) })
				if !ok {
					t.Fatalf("%s: len(%s) = %d, others %d: no panic", e.name, name, n+delta, n)
				}
				want := fmt.Sprintf("len(%s) = %d", name, n+delta)
				if !strings.Contains(msg, want) {
					t.Errorf("%s: len(%s) = %d: panic %q does not contain %q", e.name, name, n+delta, msg, want)
				}
				for j := range n - 1 {
					if dst.S[:n+1][j] != sentinel || dst.T[:n+1][j] != sentinel || dst.Dist2[:n+1][j] != sentinel {
						t.Fatalf("%s: len(%s) = %d: dst written before the panic (lane %d)", e.name, name, n+delta, j)
					}
				}
			}
		}
	}
}

// TestNilBatchPanics: a nil batch pointer makes every entry point panic
// with a message naming the argument, before anything is computed, on
// the package level, on every path and on Parallel.
func TestNilBatchPanics(t *testing.T) {
	const n = 8
	src, src64 := soa.NewPairs(n), soa.NewPairs64(n)
	res, res64 := soa.NewResults(n), soa.NewResults64(n)
	seg, seg64 := soa.NewPointSegments(n), soa.NewPointSegments64(n)
	pres, pres64 := soa.NewPointResults(n), soa.NewPointResults64(n)
	caps, caps64 := soa.NewCapsules(2), soa.NewCapsules64(2)
	pairs := soa.NewIndexPairs(n)
	rows, rows64 := soa.NewContacts(n), soa.NewContacts64(n)
	type api struct {
		BatchClosest          func(*soa.Results, *soa.Pairs)
		BatchClosest64        func(*soa.Results64, *soa.Pairs64)
		BatchClosestPoint     func(*soa.PointResults, *soa.PointSegments)
		BatchClosestPoint64   func(*soa.PointResults64, *soa.PointSegments64)
		BatchClosestIndexed   func(*soa.Results, soa.Capsules, *soa.IndexPairs)
		BatchClosestIndexed64 func(*soa.Results64, soa.Capsules64, *soa.IndexPairs)
		BatchContacts         func(*soa.Contacts, soa.Capsules, *soa.IndexPairs, float32)
		CompactContacts       func(*soa.Contacts, soa.Capsules, *soa.IndexPairs, float32) int
		BatchContacts64       func(*soa.Contacts64, soa.Capsules64, *soa.IndexPairs, float64)
		CompactContacts64     func(*soa.Contacts64, soa.Capsules64, *soa.IndexPairs, float64) int
	}
	apis := map[string]api{"kernel": {kernel.BatchClosest, kernel.BatchClosest64, kernel.BatchClosestPoint, kernel.BatchClosestPoint64,
		kernel.BatchClosestIndexed, kernel.BatchClosestIndexed64, kernel.BatchContacts, kernel.CompactContacts,
		kernel.BatchContacts64, kernel.CompactContacts64}}
	for _, isa := range paths(t) {
		k := lookup(t, isa)
		apis[isa] = api{k.BatchClosest, k.BatchClosest64, k.BatchClosestPoint, k.BatchClosestPoint64,
			k.BatchClosestIndexed, k.BatchClosestIndexed64, k.BatchContacts, k.CompactContacts, k.BatchContacts64, k.CompactContacts64}
		p := kernel.NewParallel(k, 2)
		defer p.Close()
		p.MinParallel = 0
		apis[isa+" Parallel"] = api{p.BatchClosest, p.BatchClosest64, p.BatchClosestPoint, p.BatchClosestPoint64,
			p.BatchClosestIndexed, p.BatchClosestIndexed64, p.BatchContacts, p.CompactContacts, p.BatchContacts64, p.CompactContacts64}
	}
	for name, a := range apis {
		calls := map[string]func(){
			"BatchClosest dst":            func() { a.BatchClosest(nil, src) },
			"BatchClosest src":            func() { a.BatchClosest(res, nil) },
			"BatchClosest64 dst":          func() { a.BatchClosest64(nil, src64) },
			"BatchClosest64 src":          func() { a.BatchClosest64(res64, nil) },
			"BatchClosestPoint dst":       func() { a.BatchClosestPoint(nil, seg) },
			"BatchClosestPoint src":       func() { a.BatchClosestPoint(pres, nil) },
			"BatchClosestPoint64 dst":     func() { a.BatchClosestPoint64(nil, seg64) },
			"BatchClosestPoint64 src":     func() { a.BatchClosestPoint64(pres64, nil) },
			"BatchClosestIndexed dst":     func() { a.BatchClosestIndexed(nil, caps, pairs) },
			"BatchClosestIndexed pairs":   func() { a.BatchClosestIndexed(res, caps, nil) },
			"BatchClosestIndexed64 dst":   func() { a.BatchClosestIndexed64(nil, caps64, pairs) },
			"BatchClosestIndexed64 pairs": func() { a.BatchClosestIndexed64(res64, caps64, nil) },
			"BatchContacts dst":           func() { a.BatchContacts(nil, caps, pairs, 0) },
			"BatchContacts pairs":         func() { a.BatchContacts(rows, caps, nil, 0) },
			"CompactContacts dst":         func() { a.CompactContacts(nil, caps, pairs, 0) },
			"CompactContacts pairs":       func() { a.CompactContacts(rows, caps, nil, 0) },
			"BatchContacts64 dst":         func() { a.BatchContacts64(nil, caps64, pairs, 0) },
			"BatchContacts64 pairs":       func() { a.BatchContacts64(rows64, caps64, nil, 0) },
			"CompactContacts64 dst":       func() { a.CompactContacts64(nil, caps64, pairs, 0) },
			"CompactContacts64 pairs":     func() { a.CompactContacts64(rows64, caps64, nil, 0) },
		}
		for what, call := range calls {
			arg := what[strings.LastIndexByte(what, ' ')+1:]
			msg, ok := panicMessage(call)
			if !ok || !strings.Contains(msg, arg+" is a nil") {
				t.Errorf("%s %s nil: panic %q (panicked: %v), want one naming %q", name, what, msg, ok, arg)
			}
		}
	}
}
