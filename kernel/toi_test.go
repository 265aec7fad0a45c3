package kernel_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// toiScene lays the cases out as an engine would: capsule 2k is case k's
// I and 2k+1 its J, in start and end stores, with their pads; pair k is
// (2k, 2k+1), then every case's pair again swapped.
func toiScene[F soa.Float](cases []verify.TOICaseOf[F]) (start, end soa.CapsulesOf[F], pad []F, pairs *soa.IndexPairs) {
	start, end = make(soa.CapsulesOf[F], 2*len(cases)), make(soa.CapsulesOf[F], 2*len(cases))
	pad = make([]F, 2*len(cases))
	pairs = soa.NewIndexPairs(0)
	for k, c := range cases {
		for s, sc := range [2]fallback.SweptCapsuleOf[F]{c.I, c.J} {
			i := 2*k + s
			start[i] = soa.CapsuleOf[F]{A: sc.A0, B: sc.B0, R: sc.R0}
			end[i] = soa.CapsuleOf[F]{A: sc.A1, B: sc.B1, R: sc.R1}
			pad[i] = sc.Pad
		}
		pairs.Append(uint32(2*k), uint32(2*k+1))
	}
	for k := range cases {
		pairs.Append(uint32(2*k+1), uint32(2*k))
	}
	return start, end, pad, pairs
}

// toiRow returns row r of dst as a fallback result, and its pair.
func toiRow[F soa.Float](dst *soa.TOIsOf[F], r int) (uint32, fallback.TOIOf[F]) {
	return dst.Pair[r], fallback.TOIOf[F]{Status: fallback.TOIStatus(dst.Status[r]), T: dst.T[r], Dist: dst.Dist[r],
		Normal: [3]F{dst.NX[r], dst.NY[r], dst.NZ[r]}, P: [3]F{dst.PX[r], dst.PY[r], dst.PZ[r]},
		Q: [3]F{dst.QX[r], dst.QY[r], dst.QZ[r]}, Iter: dst.Iter[r]}
}

// sameTOI compares two results bit for bit.
func sameTOI[F soa.Float](a, b fallback.TOIOf[F]) bool {
	return fmt.Sprintf("%x", toiBits(a)) == fmt.Sprintf("%x", toiBits(b))
}

func toiBits[F soa.Float](r fallback.TOIOf[F]) []uint64 {
	out := []uint64{uint64(r.Status), uint64(r.Iter)}
	for _, x := range []F{r.T, r.Dist, r.Normal[0], r.Normal[1], r.Normal[2], r.P[0], r.P[1], r.P[2], r.Q[0], r.Q[1], r.Q[2]} {
		switch v := any(x).(type) {
		case float32:
			out = append(out, uint64(math.Float32bits(v)))
		case float64:
			out = append(out, math.Float64bits(v))
		}
	}
	return out
}

// TestTOIMatchesSpec: on every path, in float32 and float64, every row of
// BatchTOI is fallback.TOILane's on the pair's swept capsules (every TOI
// category and the bad cases, both orders of each pair, odd sizes), and
// CompactTOI writes the rows that are not a Miss, in pair order, and
// nothing beyond its count.
func TestTOIMatchesSpec(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 12
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for ci, cat := range verify.TOICategories() {
			testTOIBatch(t, k, cat.Name, verify.TOICases[float32](cat, uint64(900+ci), 1, n))
			testTOIBatch(t, k, cat.Name+" float64", verify.TOICases[float64](cat, uint64(900+ci), 1, n))
		}
		testTOIBatch(t, k, "bad", verify.TOIBadCases[float32](7))
		testTOIBatch(t, k, "bad float64", verify.TOIBadCases[float64](7))
	})
}

func testTOIBatch[F soa.Float](t *testing.T, k kernel.Kernel, what string, cases []verify.TOICaseOf[F]) {
	t.Helper()
	start, end, pad, all := toiScene(cases)
	prm := cases[0].Params
	p := kernel.TOIParamsOf[F]{Margin: prm.Margin, Tol: prm.Tol, TMax: min(max(prm.TMax, 0), 1), MaxIter: max(prm.MaxIter, 1), Pad: pad}
	spec := fallback.TOIParamsOf[F]{Margin: p.Margin, Tol: p.Tol, TMax: p.TMax, MaxIter: p.MaxIter}
	swept := func(i uint32) fallback.SweptCapsuleOf[F] {
		return fallback.SweptCapsuleOf[F]{A0: start[i].A, B0: start[i].B, R0: start[i].R, A1: end[i].A, B1: end[i].B, R1: end[i].R, Pad: pad[i]}
	}
	for _, m := range []int{1, 17, all.Len()} {
		pairs := &soa.IndexPairs{I: all.I[:m], J: all.J[:m]}
		dst := &soa.TOIsOf[F]{}
		dst.Resize(m)
		batchTOI(k, dst, start, end, pairs, p)
		var want []fallback.TOIOf[F]
		for r := range m {
			w := fallback.TOILaneOf(swept(pairs.I[r]), swept(pairs.J[r]), spec)
			want = append(want, w)
			if pr, got := toiRow(dst, r); pr != uint32(r) || !sameTOI(got, w) {
				t.Fatalf("%s, %d pairs, row %d: pair %d %+v, spec %+v", what, m, r, pr, got, w)
			}
		}
		checkCompactTOI(t, what, want, func(d *soa.TOIsOf[F]) int { return compactTOI(k, d, start, end, pairs, p) })
	}
}

// checkCompactTOI runs compact on rows prefilled with a sentinel Pair and
// fails t unless it writes want's rows that are not a Miss, densely in
// pair order, and nothing from its count on.
func checkCompactTOI[F soa.Float](t *testing.T, what string, want []fallback.TOIOf[F], compact func(*soa.TOIsOf[F]) int) {
	t.Helper()
	rows := &soa.TOIsOf[F]{}
	rows.Resize(len(want) + 3)
	for i := range rows.Pair {
		rows.Pair[i] = 0xDEADBEEF
	}
	n := compact(rows)
	w := 0
	for r, x := range want {
		if x.Status == fallback.TOIMiss {
			continue
		}
		if w >= n {
			t.Fatalf("%s: CompactTOI wrote %d rows; pair %d is %v", what, n, r, x.Status)
		}
		if pr, row := toiRow(rows, w); pr != uint32(r) || !sameTOI(row, x) {
			t.Fatalf("%s: compact row %d: pair %d %+v, want pair %d %+v", what, w, pr, row, r, x)
		}
		w++
	}
	if n != w {
		t.Fatalf("%s: CompactTOI wrote %d rows, %d are not a Miss", what, n, w)
	}
	for i := n; i < len(rows.Pair); i++ {
		if rows.Pair[i] != 0xDEADBEEF {
			t.Fatalf("%s: CompactTOI wrote row %d beyond its count %d", what, i, n)
		}
	}
}

// batchTOI and compactTOI call k's entry point for F.
func batchTOI[F soa.Float](k kernel.Kernel, dst *soa.TOIsOf[F], start, end soa.CapsulesOf[F], pairs *soa.IndexPairs, p kernel.TOIParamsOf[F]) {
	switch d := any(dst).(type) {
	case *soa.TOIs:
		k.BatchTOI(d, any(start).(soa.Capsules), any(end).(soa.Capsules), pairs, any(p).(kernel.TOIParams))
	case *soa.TOIs64:
		k.BatchTOI64(d, any(start).(soa.Capsules64), any(end).(soa.Capsules64), pairs, any(p).(kernel.TOIParams64))
	}
}

func compactTOI[F soa.Float](k kernel.Kernel, dst *soa.TOIsOf[F], start, end soa.CapsulesOf[F], pairs *soa.IndexPairs, p kernel.TOIParamsOf[F]) int {
	switch d := any(dst).(type) {
	case *soa.TOIs:
		return k.CompactTOI(d, any(start).(soa.Capsules), any(end).(soa.Capsules), pairs, any(p).(kernel.TOIParams))
	case *soa.TOIs64:
		return k.CompactTOI64(d, any(start).(soa.Capsules64), any(end).(soa.Capsules64), pairs, any(p).(kernel.TOIParams64))
	}
	return 0
}

// TestTOIChecks: bad parameters and arguments panic, naming what is
// wrong, before anything is written; valid calls allocate nothing.
func TestTOIChecks(t *testing.T) {
	cases := verify.TOICases[float32](verify.TOICategories()[0], 1, 1, 20)
	start, end, pad, pairs := toiScene(cases)
	k := lookup(t, kernel.ISA())
	dst := soa.NewTOIs(pairs.Len())
	good := kernel.TOIParams{Tol: 1e-3, TMax: 1, MaxIter: 20, Pad: pad}
	with := func(f func(p *kernel.TOIParams)) kernel.TOIParams { p := good; f(&p); return p }
	for name, c := range map[string]struct {
		call func()
		want string
	}{
		"tol":     {func() { k.BatchTOI(dst, start, end, pairs, with(func(p *kernel.TOIParams) { p.Tol = -1 })) }, "tolerance"},
		"tmax":    {func() { k.BatchTOI(dst, start, end, pairs, with(func(p *kernel.TOIParams) { p.TMax = 1.5 })) }, "TMax"},
		"maxiter": {func() { k.BatchTOI(dst, start, end, pairs, with(func(p *kernel.TOIParams) { p.MaxIter = 0 })) }, "MaxIter"},
		"margin": {func() {
			k.BatchTOI(dst, start, end, pairs, with(func(p *kernel.TOIParams) { p.Margin = float32(math.NaN()) }))
		}, "margin"},
		"pad":  {func() { k.BatchTOI(dst, start, end, pairs, with(func(p *kernel.TOIParams) { p.Pad = p.Pad[:3] })) }, "len(Pad)"},
		"end":  {func() { k.BatchTOI(dst, start, end[:5], pairs, good) }, "len(end)"},
		"rows": {func() { k.BatchTOI(soa.NewTOIs(3), start, end, pairs, good) }, "len(dst.Pair)"},
		"index": {func() {
			p := *pairs
			p.J = append([]uint32(nil), p.J...)
			p.J[2] = 999
			k.BatchTOI(dst, start, end, &p, good)
		}, "pairs.J[2] = 999"},
		"nil":      {func() { k.CompactTOI(nil, start, end, pairs, good) }, "dst is a nil"},
		"aliasing": {func() { d := soa.NewTOIs(pairs.Len()); d.T = pad[:pairs.Len()]; k.BatchTOI(d, start, end, pairs, good) }, "share memory"},
	} {
		for i := range dst.Pair {
			dst.Pair[i] = 7
		}
		msg, ok := panicMessage(c.call)
		if !ok || !strings.Contains(msg, c.want) {
			t.Errorf("%s: panic %q (panicked %v), want one containing %q", name, msg, ok, c.want)
		}
		if dst.Pair[0] != 7 {
			t.Errorf("%s: written before the panic", name)
		}
	}
	if a := testing.AllocsPerRun(10, func() {
		k.BatchTOI(dst, start, end, pairs, good)
		k.CompactTOI(dst, start, end, pairs, good)
	}); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

// TestEarliestHits: each body gets its earliest T among the rows that
// stop its motion (Hit, Initial, Unconverged), ties to the lowest pair
// index, whatever the rows' order; others t = 1 and NoPair.
func TestEarliestHits(t *testing.T) {
	pairs := soa.NewIndexPairs(0)
	for _, p := range [][2]uint32{{0, 1}, {1, 2}, {2, 3}, {0, 3}, {4, 5}} {
		pairs.Append(p[0], p[1])
	}
	rows := soa.NewTOIs(5)
	set := func(r int, pair uint32, st fallback.TOIStatus, tt float32) {
		rows.Pair[r], rows.Status[r], rows.T[r] = pair, uint32(st), tt
	}
	set(0, 3, fallback.TOIHit, 0.5)         // bodies 0, 3
	set(1, 1, fallback.TOIUnconverged, 0.5) // bodies 1, 2
	set(2, 0, fallback.TOIHit, 0.5)         // bodies 0, 1: ties with pairs 3 and 1, lower index wins
	set(3, 2, fallback.TOIInitial, 0)       // bodies 2, 3
	set(4, 4, fallback.TOIMiss, 0.1)        // a miss stops nothing
	tt, pr := make([]float32, 7), make([]uint32, 7)
	kernel.EarliestHits(tt, pr, rows, 5, pairs)
	want := []struct {
		t float32
		p uint32
	}{{0.5, 0}, {0.5, 0}, {0, 2}, {0, 2}, {1, kernel.NoPair}, {1, kernel.NoPair}, {1, kernel.NoPair}}
	for b, w := range want {
		if tt[b] != w.t || pr[b] != w.p {
			t.Errorf("body %d: t %v pair %d, want %v %d", b, tt[b], pr[b], w.t, w.p)
		}
	}
	// The rows in reverse order give the same answer.
	rev := soa.NewTOIs(5)
	for r := range 5 {
		q := 4 - r
		rev.Pair[r], rev.Status[r], rev.T[r] = rows.Pair[q], rows.Status[q], rows.T[q]
	}
	t2, p2 := make([]float32, 7), make([]uint32, 7)
	kernel.EarliestHits(t2, p2, rev, 5, pairs)
	for b := range tt {
		if t2[b] != tt[b] || p2[b] != pr[b] {
			t.Errorf("reversed rows: body %d: %v %d, want %v %d", b, t2[b], p2[b], tt[b], pr[b])
		}
	}
}
