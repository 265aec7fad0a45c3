package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// quickMeasure times a pass briefly: the tests check the figures exist,
// not their values.
func quickMeasure(pass func()) timing { return measure(pass, 1, time.Millisecond) }

// TestCCDScene runs a small CCD scene on every path: every check passes,
// the scene has hits, the contact kernel misses most of them at the end
// pose and at the start pose, every row is certified, every path is
// timed, and the report has its lines.
func TestCCDScene(t *testing.T) {
	ks, kgo := rigidKernels(t)
	r := runCCD(defaultCCD(16, 1), ks, kgo, quickMeasure)
	for _, p := range r.problems {
		t.Error(p)
	}
	for _, e := range r.examples {
		t.Log(e)
	}
	wantPaths := slices.Clone(kernel.Available())
	if !slices.Contains(wantPaths, "go") {
		wantPaths = append(wantPaths, "go")
	}
	if !slices.Equal(r.paths, wantPaths) {
		t.Errorf("paths checked %v, want %v", r.paths, wantPaths)
	}
	if r.hits < 10 || 2*r.missedEnd <= r.hits || 2*r.missedStart <= r.hits || r.shotsHit == 0 || r.tunnel == 0 {
		t.Errorf("%d hits, %d missed by the contact kernel at the end pose and %d at the start, %d projectiles hit, %d tunnel: want hits that the contact kernel mostly misses",
			r.hits, r.missedEnd, r.missedStart, r.shotsHit, r.tunnel)
	}
	if r.minMove < 50 {
		t.Errorf("a projectile moves %v radii: want fast bodies", r.minMove)
	}
	if r.certified != r.pairs || r.certMisses == 0 || r.certMisses == r.pairs {
		t.Errorf("%d of %d rows certified (%d Miss): want all, of both kinds", r.certified, r.pairs, r.certMisses)
	}
	if len(r.times) != len(ks) {
		t.Errorf("%d paths timed, want %d", len(r.times), len(ks))
	}
	for _, tm := range r.times {
		if !(tm.toi > 0 && tm.closest > 0) {
			t.Errorf("%s: TOI %v ns/pair, closest %v", tm.isa, tm.toi, tm.closest)
		}
	}

	var b strings.Builder
	if err := writeCCD(&b, r); err != nil {
		t.Fatal(err)
	}
	writeCCDVerified(&b, r)
	out := b.String()
	for _, want := range append([]string{"ccd:       16 projectiles", "resting capsules", "swept bounds", "hits", "at the end pose",
		"TOI ns/pair", "closest units", "verified:  ccd", "fallback.TOILane", "verify.CheckTOI: 0 missed, 0 late, 0 false",
		"fallback.ReferenceTOI"}, kernel.Available()...) {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
}

// TestCCDDeterministic: the same config gives the same scene, whichever
// path computes the records.
func TestCCDDeterministic(t *testing.T) {
	ks, kgo := rigidKernels(t)
	a := newCCDScene(defaultCCD(8, 3), kgo)
	for _, k := range ks {
		b := newCCDScene(defaultCCD(8, 3), k)
		if !slices.Equal(a.pairs.I, b.pairs.I) || !slices.Equal(a.pairs.J, b.pairs.J) || !slices.Equal(a.pad, b.pad) {
			t.Errorf("%s: the pairs or pads differ from the go path's scene", k.ISA())
		}
		if i := firstCapsuleDiff(a.capsStart, b.capsStart); i >= 0 {
			t.Errorf("%s: start record %d differs", k.ISA(), i)
		}
		if i := firstCapsuleDiff(a.capsEnd, b.capsEnd); i >= 0 {
			t.Errorf("%s: end record %d differs", k.ISA(), i)
		}
	}
	// Every pair is a projectile against a resting capsule or a later
	// projectile, and resting capsules do not move.
	for p := range a.pairs.Len() {
		i, j := int(a.pairs.I[p]), int(a.pairs.J[p])
		if i < a.cfg.pile || (j >= a.cfg.pile && j <= i) {
			t.Fatalf("pair %d = (%d, %d), pile %d", p, i, j, a.cfg.pile)
		}
	}
	if i := firstCapsuleDiff(a.capsStart[:a.cfg.pile], a.capsEnd[:a.cfg.pile]); i >= 0 {
		t.Errorf("resting capsule %d moves", i)
	}
}

// ccdRows returns the scene's spec results and the go path's BatchTOI
// and CompactTOI rows.
func ccdRows(t *testing.T, s *ccdScene) (want []fallback.TOI, all, cmp *soa.TOIs, n int) {
	t.Helper()
	kgo, _ := kernel.Lookup("go")
	np := s.pairs.Len()
	for p := range np {
		want = append(want, fallback.TOILane(s.swept(s.pairs.I[p]), s.swept(s.pairs.J[p]), s.specParams()))
	}
	all, cmp = soa.NewTOIs(np), soa.NewTOIs(np)
	kgo.BatchTOI(all, s.capsStart, s.capsEnd, s.pairs, s.params)
	n = kgo.CompactTOI(cmp, s.capsStart, s.capsEnd, s.pairs, s.params)
	return want, all, cmp, n
}

// cloneTOIs returns a copy of r.
func cloneTOIs(r *soa.TOIs) *soa.TOIs {
	c := soa.NewTOIs(r.Len())
	for _, s := range [][2][]uint32{{c.Pair, r.Pair}, {c.Status, r.Status}, {c.Iter, r.Iter}} {
		copy(s[0], s[1])
	}
	for _, s := range [][2][]float32{{c.T, r.T}, {c.Dist, r.Dist}, {c.NX, r.NX}, {c.NY, r.NY}, {c.NZ, r.NZ},
		{c.PX, r.PX}, {c.PY, r.PY}, {c.PZ, r.PZ}, {c.QX, r.QX}, {c.QY, r.QY}, {c.QZ, r.QZ}} {
		copy(s[0], s[1])
	}
	return c
}

// TestCCDChecksDetect plants wrong rows, counts and earliest hits, and
// wrong results for the certified checker, and requires each check to
// catch them.
func TestCCDChecksDetect(t *testing.T) {
	s := newCCDScene(defaultCCD(16, 1), lookupGo(t))
	want, all, cmp, n := ccdRows(t, s)
	np := s.pairs.Len()
	if bad, ex := checkTOIRows(want, all, np, false); bad != 0 {
		t.Fatalf("BatchTOI rows rejected: %s", ex)
	}
	if bad, ex := checkTOIRows(want, cmp, n, true); bad != 0 || n < 3 {
		t.Fatalf("CompactTOI rows rejected (%d rows): %s", n, ex)
	}
	flip := func(x float32) float32 { return math.Float32frombits(math.Float32bits(x) ^ 1) }
	for name, c := range map[string]struct {
		corrupt func(r *soa.TOIs)
		compact bool
		n       int
	}{
		"T":      {func(r *soa.TOIs) { r.T[2] = flip(r.T[2]) }, false, np},
		"QZ":     {func(r *soa.TOIs) { r.QZ[np-1] = flip(r.QZ[np-1]) }, false, np},
		"iter":   {func(r *soa.TOIs) { r.Iter[1]++ }, false, np},
		"status": {func(r *soa.TOIs) { r.Status[0] ^= 1 }, false, np},
		"pair":   {func(r *soa.TOIs) { r.Pair[1] = r.Pair[0] }, true, n},
		"normal": {func(r *soa.TOIs) { r.NX[n-1] = flip(r.NX[n-1]) }, true, n},
		"short":  {func(r *soa.TOIs) {}, true, n - 1},
		"long":   {func(r *soa.TOIs) {}, true, n + 1},
	} {
		src := all
		if c.compact {
			src = cmp
		}
		r := cloneTOIs(src)
		c.corrupt(r)
		if bad, _ := checkTOIRows(want, r, c.n, c.compact); bad == 0 {
			t.Errorf("%s: not detected", name)
		}
	}

	// EarliestHits: the right answer passes, a moved time or pair fails.
	nb := s.cfg.pile + s.cfg.shots
	tt, pp := make([]float32, nb), make([]uint32, nb)
	kernel.EarliestHits(tt, pp, cmp, n, s.pairs)
	if bad, ex := checkEarliest(want, s.pairs, tt, pp); bad != 0 {
		t.Fatalf("EarliestHits rejected: %s", ex)
	}
	b := int(s.pairs.I[cmp.Pair[0]])
	tt[b] = flip(tt[b])
	if bad, _ := checkEarliest(want, s.pairs, tt, pp); bad != 1 {
		t.Errorf("a moved earliest time: %d bodies flagged, want 1", bad)
	}
	tt[b] = flip(tt[b])
	pp[b] = kernel.NoPair
	if bad, _ := checkEarliest(want, s.pairs, tt, pp); bad != 1 {
		t.Errorf("a lost earliest pair: %d bodies flagged, want 1", bad)
	}

	// The certified checker: every hit reported as a Miss, or as a hit at
	// the end of the step, or every Miss as a hit at its last time; most
	// must be caught (a grazing hit may be a correct Miss).
	var r ccdResult
	hits, caught := 0, 0
	for p, w := range want {
		if w.Status != fallback.TOIHit {
			continue
		}
		hits++
		for _, planted := range []fallback.TOI{{Status: fallback.TOIMiss, T: 1, Iter: 1}, {Status: fallback.TOIHit, T: 1, Iter: 1, Dist: w.Dist}} {
			before := len(r.problems)
			r.certify(s, p, planted)
			if len(r.problems) > before {
				caught++
			}
		}
	}
	if hits == 0 || caught < 3*2*hits/4 || r.missed == 0 || r.late+r.falseHits == 0 || r.refBad == 0 {
		t.Errorf("%d of %d planted results caught (missed %d, late %d, false %d, reference %d)", caught, 2*hits, r.missed, r.late, r.falseHits, r.refBad)
	}
	r = ccdResult{}
	for p, w := range want {
		if w.Status == fallback.TOIMiss {
			r.certify(s, p, fallback.TOI{Status: fallback.TOIHit, T: 0.5, Iter: 1})
		}
	}
	if r.falseHits == 0 {
		t.Errorf("no Miss planted as a hit caught as false (%v)", r.problems)
	}
}

// TestCertifySample: every row when there is room; else the rows that are
// not a Miss first, then Misses spread over the rest, no index twice.
func TestCertifySample(t *testing.T) {
	want := make([]fallback.TOI, 20)
	for _, p := range []int{3, 9, 15} {
		want[p].Status = fallback.TOIHit
	}
	if got := certifySample(want, 50); len(got) != 20 {
		t.Errorf("room for all: %d rows", len(got))
	}
	got := certifySample(want, 7)
	if len(got) != 7 || got[0] != 3 || got[1] != 9 || got[2] != 15 {
		t.Errorf("sample %v", got)
	}
	seen := map[uint32]bool{}
	for _, p := range got {
		if seen[p] {
			t.Errorf("sample %v repeats %d", got, p)
		}
		seen[p] = true
	}
	if got := certifySample(want, 2); !slices.Equal(got, []uint32{3, 9}) {
		t.Errorf("room for two: %v", got)
	}
}

func lookupGo(t *testing.T) kernel.Kernel {
	t.Helper()
	k, ok := kernel.Lookup("go")
	if !ok {
		t.Fatal(`no "go" path`)
	}
	return k
}
