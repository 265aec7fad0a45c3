package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// bruteForce lists every overlapping pair by testing all n(n-1)/2 pairs.
func bruteForce(caps []capsule) []candidate {
	var out []candidate
	for i := range caps {
		ci, ri := caps[i].Bound()
		for j := i + 1; j < len(caps); j++ {
			cj, rj := caps[j].Bound()
			if overlap(ci, ri, cj, rj) {
				out = append(out, candidate{int32(i), int32(j)})
			}
		}
	}
	return out
}

func TestBroadphaseMatchesBruteForce(t *testing.T) {
	for _, n := range []int{2, 3, 17, 200, 1500} {
		for seed := uint64(1); seed <= 3; seed++ {
			caps := newScene(n, seed)
			got := broadphase(caps, nil)
			want := bruteForce(caps)
			if !slices.Equal(got, want) {
				t.Errorf("n=%d seed=%d: broadphase found %d pairs, brute force %d", n, seed, len(got), len(want))
				continue
			}
			if n >= 200 && len(got) == 0 {
				t.Errorf("n=%d seed=%d: no pairs; the scene is too sparse to test anything", n, seed)
			}
		}
	}
}

// TestBroadphaseOddScenes covers scenes the grid handles specially: all
// capsules in one cell, one huge capsule far from the rest (the cell size
// is enlarged to bound the cell count), identical capsules.
func TestBroadphaseOddScenes(t *testing.T) {
	base := newScene(300, 7)
	clustered := slices.Clone(base)
	for i := range clustered {
		for k := range 3 {
			clustered[i].P0[k] *= 0.01
			clustered[i].P1[k] *= 0.01
		}
	}
	far := slices.Clone(base)
	far = append(far, capsule{P0: [3]float32{1e6, 0, 0}, P1: [3]float32{1e6 + 50, 0, 0}, R: 1})
	far = append(far, capsule{P0: [3]float32{-1e5, 3e5, 0}, P1: [3]float32{-1e5, 3e5, 0}, R: 1e4})
	same := make([]capsule, 40)
	for i := range same {
		same[i] = capsule{P0: [3]float32{1, 2, 3}, P1: [3]float32{2, 2, 3}, R: 0.5}
	}
	for name, caps := range map[string][]capsule{"clustered": clustered, "far": far, "identical": same} {
		got := broadphase(caps, nil)
		want := bruteForce(caps)
		if !slices.Equal(got, want) {
			t.Errorf("%s: broadphase found %d pairs, brute force %d", name, len(got), len(want))
		}
	}
	if got := len(broadphase(same, nil)); got != 40*39/2 {
		t.Errorf("identical: %d pairs, want %d", got, 40*39/2)
	}
}

func TestBroadphaseProgress(t *testing.T) {
	caps := newScene(2000, 1)
	last, calls := -1, 0
	broadphase(caps, func(done, total int) {
		calls++
		if done < last || done > total {
			t.Fatalf("progress went from %d to %d of %d", last, done, total)
		}
		last = done
		if calls == 1 && total <= 0 {
			t.Fatalf("total = %d", total)
		}
	})
	if calls == 0 {
		t.Fatal("progress never called")
	}
}

func TestSceneDeterministic(t *testing.T) {
	a, b := newScene(500, 42), newScene(500, 42)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different scenes")
	}
	if c := newScene(500, 43); slices.Equal(a, c) {
		t.Fatal("different seeds, same scene")
	}
	if len(a) != 500 {
		t.Fatalf("len = %d", len(a))
	}
	spheres, stacked := sceneStats(newScene(4000, 1))
	if spheres == 0 || stacked == 0 {
		t.Errorf("scene of 4000 has %d spheres and %d stacked capsules; want some of each", spheres, stacked)
	}
}

// smallBatch returns the candidate pairs of a small scene, their reference
// squared distances and the go path's results.
func smallBatch(t *testing.T) (*soa.Pairs, []float64, *soa.Results) {
	t.Helper()
	caps := newScene(300, 3)
	cands := broadphase(caps, nil)
	if len(cands) < 10 {
		t.Fatalf("only %d pairs", len(cands))
	}
	p := fillPairs(caps, cands)
	ref := make([]float64, p.Len())
	referencePass(p, ref)
	kgo, ok := kernel.Lookup("go")
	if !ok {
		t.Fatal(`no "go" path`)
	}
	res := soa.NewResults(p.Len())
	kgo.BatchClosest(res, p)
	return p, ref, res
}

func cloneResults(r *soa.Results) *soa.Results {
	c := soa.NewResults(r.Len())
	copy(c.S, r.S)
	copy(c.T, r.T)
	copy(c.Dist2, r.Dist2)
	return c
}

func TestVerifyAcceptsEveryPath(t *testing.T) {
	p, ref, golden := smallBatch(t)
	for _, isa := range kernel.Available() {
		k, _ := kernel.Lookup(isa)
		res := soa.NewResults(p.Len())
		k.BatchClosest(res, p)
		if v := verifyClosest(p, res, ref, golden); !v.OK() {
			t.Errorf("%s: %+v", isa, v)
		}
	}
}

func TestVerifyDetectsCorruptLane(t *testing.T) {
	p, ref, golden := smallBatch(t)
	// A lane in the middle whose segments both have a length, so that
	// moving a parameter moves a point.
	lane := p.Len() / 2
	for ; lane < p.Len(); lane++ {
		q := p.Get(lane)
		if q.A != q.B && q.C != q.D {
			break
		}
	}
	if lane == p.Len() {
		t.Fatal("no pair of proper segments")
	}
	cases := []struct {
		name     string
		corrupt  func(r *soa.Results)
		failed   int  // lanes failing verification
		mismatch int  // lanes differing from golden
		bigErr   bool // the worst error must exceed the bound
	}{
		{"none", func(r *soa.Results) {}, 0, 0, false},
		{"dist2 too large", func(r *soa.Results) { r.Dist2[lane] = r.Dist2[lane]*1.01 + 0.01 }, 1, 1, true},
		{"dist2 NaN", func(r *soa.Results) { r.Dist2[lane] = float32(math.NaN()) }, 1, 1, true},
		{"dist2 negative", func(r *soa.Results) { r.Dist2[lane] = -1 }, 1, 1, true},
		{"S above 1", func(r *soa.Results) { r.S[lane] = 1.5 }, 1, 1, false},
		{"T below 0", func(r *soa.Results) { r.T[lane] = -0.25 }, 1, 1, false},
		{"S NaN", func(r *soa.Results) { r.S[lane] = float32(math.NaN()) }, 1, 1, true},
		// A wrong point with the right distance: only the point check sees it.
		{"T moved", func(r *soa.Results) { r.T[lane] = 1 - r.T[lane]/2 }, 1, 1, true},
		// One ulp: within the error bound, but not the go path's bits.
		{"dist2 one ulp", func(r *soa.Results) {
			r.Dist2[lane] = math.Float32frombits(math.Float32bits(r.Dist2[lane]) + 1)
		}, 0, 1, false},
	}
	for _, c := range cases {
		res := cloneResults(golden)
		c.corrupt(res)
		v := verifyClosest(p, res, ref, golden)
		if v.Failed != c.failed || v.Mismatches != c.mismatch {
			t.Errorf("%s: failed %d, mismatches %d; want %d, %d", c.name, v.Failed, v.Mismatches, c.failed, c.mismatch)
			continue
		}
		if c.failed+c.mismatch == 0 {
			if !v.OK() || len(v.Examples) != 0 {
				t.Errorf("%s: %+v", c.name, v)
			}
			continue
		}
		if v.OK() || len(v.Examples) != 1 || v.Examples[0].Lane != lane {
			t.Errorf("%s: verdict %+v, want lane %d reported", c.name, v, lane)
		}
		if c.bigErr && !(v.Worst > maxErrEps) {
			t.Errorf("%s: worst error %v, want above %d", c.name, v.Worst, maxErrEps)
		}
		t.Logf("%s: %v", c.name, v.Examples[0])
	}
}

func TestLaneErrorScaleZero(t *testing.T) {
	var q soa.Pair // all coordinates zero
	if de, pe, ok := laneError(q, 0, 0, 0, 0); !ok || de != 0 || pe != 0 {
		t.Errorf("zero pair, exact answer: %v %v %v", de, pe, ok)
	}
	if _, _, ok := laneError(q, 0, 0, 1, 0); ok {
		t.Error("zero pair, wrong distance accepted")
	}
}

func TestWriteJSONKeys(t *testing.T) {
	rows := []row{
		{ISA: "go", Kernel: "closest", Pairs: 10, NsPerPair: 30, Speedup: 2, WorstErrEps: 0.5, Contacts: 3},
		{ISA: "avx2", Kernel: "closest", Pairs: 10, NsPerPair: 3, Speedup: 20, WorstErrEps: math.Inf(1), Contacts: 3, Mismatches: 1},
		{ISA: refISA, Kernel: "closest", Pairs: 10, NsPerPair: 60, Speedup: 1, Contacts: 3},
		{ISA: "go", Kernel: "contacts", Pairs: 10, NsPerPair: 80, Speedup: 5, WorstErrEps: 0.1, Contacts: 4},
		{ISA: "go", Kernel: "point", Pairs: 10, NsPerPair: 4, Speedup: 9, WorstErrEps: math.NaN(), Contacts: 2},
		{ISA: "go", Kernel: "closest", Pairs: 10, NsPerPair: 40, Speedup: 1.5, Contacts: 3, Precision: "float64"},
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, rows); err != nil {
		t.Fatal(err)
	}
	checkJSONLines(t, buf.String(), [][3]string{{"closest", "go", "float32"}, {"closest", "avx2", "float32"}, {"closest", refISA, "float32"},
		{"contacts", "go", "float32"}, {"point", "go", "float32"}, {"closest", "go", "float64"}})
}

// checkJSONLines checks that out is one JSON object per line with exactly
// the documented keys, with (kernel, isa) values want in order.
func checkJSONLines(t *testing.T, out string, want [][3]string) {
	t.Helper()
	wantKeys := []string{"contacts", "isa", "kernel", "mismatches", "ns_per_pair", "pairs", "precision", "speedup", "worst_err_eps"}
	var got [][3]string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("line %q: keys %v, want %v", sc.Text(), keys, wantKeys)
		}
		for _, k := range []string{"pairs", "ns_per_pair", "speedup", "worst_err_eps", "contacts", "mismatches"} {
			if _, ok := m[k].(float64); !ok {
				t.Errorf("line %q: %s is %T, want a number", sc.Text(), k, m[k])
			}
		}
		kern, _ := m["kernel"].(string)
		isa, _ := m["isa"].(string)
		prec, _ := m["precision"].(string)
		got = append(got, [3]string{kern, isa, prec})
	}
	if !slices.Equal(got, want) {
		t.Errorf("(kernel, isa, precision) values %v, want %v", got, want)
	}
}

// jsonRows returns the (kernel, isa) rows of a run over isas: for each
// kernel, every path and then the reference, then the float64 kernel on
// every path.
func jsonRows(isas []string) [][3]string {
	var out [][3]string
	for _, kern := range []string{"closest", "contacts", "point"} {
		for _, isa := range append(slices.Clone(isas), refISA) {
			out = append(out, [3]string{kern, isa, "float32"})
		}
		for _, isa := range isas {
			out = append(out, [3]string{kern, isa, "float64"})
		}
	}
	return out
}

func TestParseISAs(t *testing.T) {
	avail := []string{"avx2", "go"}
	for _, c := range []struct {
		flag string
		want []string
		err  string
	}{
		{"", []string{"avx2", "go"}, ""},
		{"go", []string{"go"}, ""},
		{"reference,go", []string{"go"}, ""},
		{"go, AVX2,go", []string{"avx2", "go"}, ""},
		{"avx512", nil, "not available"},
		{"avx3", nil, "unknown path"},
		{"go,sse", nil, "unknown path"},
		{",", nil, "names no path"},
	} {
		got, err := parseISAs(c.flag, avail)
		switch {
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("ParseISAs(%q) = %v, %v; want %v", c.flag, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseISAs(%q) error %v; want one containing %q", c.flag, err, c.err)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5}, 5},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{9, 1, 5, 3}, 4},
	} {
		in := slices.Clone(c.in)
		if got := median(in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("Median modified its input")
		}
	}
}

func TestMeasure(t *testing.T) {
	calls := 0
	tm := measure(func() { calls++; time.Sleep(100 * time.Microsecond) }, 3, time.Millisecond)
	if len(tm.Reps) != 3 || tm.Passes < 1 || calls != 1+3*tm.Passes {
		t.Fatalf("reps %d passes %d calls %d", len(tm.Reps), tm.Passes, calls)
	}
	if tm.Median < 100*time.Microsecond {
		t.Errorf("median %v, below the sleep", tm.Median)
	}
}

// TestRun runs the whole job on a small scene, as CI does, in both output
// modes: every kernel on every path, verified.
func TestRun(t *testing.T) {
	isas := kernel.Available()
	for _, js := range []bool{false, true} {
		var out, errOut bytes.Buffer
		cfg := config{n: 200, seed: 1, margin: defaultMargin, json: js, reps: 2, minRep: time.Millisecond, rigidBodies: 30, rigidSteps: 30, ccdShots: 12}
		ok, err := run(cfg, isas, &out, &errOut)
		if err != nil || !ok {
			t.Fatalf("json=%v: ok=%v err=%v\nstdout:\n%s\nstderr:\n%s", js, ok, err, out.String(), errOut.String())
		}
		human := out.String()
		if js {
			checkJSONLines(t, out.String(), jsonRows(isas))
			human = errOut.String()
		}
		for _, want := range append([]string{"cpu:", "kernel:", "ns/pair", "verified:  closest", "verified:  closest float64", "float64", "verified:  contacts float64", "verified:  contacts",
			"verified:  point", "verified:  point float64", "end to end", "copy+BatchClosest", refISA, "contacts ", "point ",
			"rigid:     30 bodies", "us/step", "poses", "broadphase", "capsule contacts", "plane contacts", "solver", "rigid:     end state",
			"verified:  rigid", "ccd:       12 projectiles", "TOI ns/pair", "closest units", "at the end pose", "verified:  ccd"}, isas...) {
			if !strings.Contains(human, want) {
				t.Errorf("json=%v: output lacks %q:\n%s", js, want, human)
			}
		}
		if strings.Contains(human, "FAIL") {
			t.Errorf("json=%v: output reports a failure:\n%s", js, human)
		}
	}
}

// TestRunSomePaths runs one path only, with margin 0, the rigid-body
// and CCD scenes skipped, and a bad margin.
func TestRunSomePaths(t *testing.T) {
	var out, errOut bytes.Buffer
	cfg := config{n: 200, seed: 2, margin: 0, json: true, reps: 1, minRep: time.Millisecond}
	ok, err := run(cfg, []string{"go"}, &out, &errOut)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v\n%s", ok, err, errOut.String())
	}
	checkJSONLines(t, out.String(), jsonRows([]string{"go"}))
	if strings.Contains(errOut.String(), "rigid") {
		t.Errorf("the rigid-body scene ran with 0 bodies:\n%s", errOut.String())
	}
	if strings.Contains(errOut.String(), "ccd") {
		t.Errorf("the CCD scene ran with 0 projectiles:\n%s", errOut.String())
	}
	cfg.margin = math.Inf(1)
	if _, err := run(cfg, []string{"go"}, &out, &errOut); err == nil {
		t.Error("margin +Inf accepted")
	}
}

// smallContactSet returns the contact set of a small scene (its
// broadphase pairs, margin defaultMargin) from the go path.
func smallContactSet(t *testing.T) *contactSet {
	t.Helper()
	caps := newScene(300, 3)
	cands := broadphase(caps, nil)
	kgo, _ := kernel.Lookup("go")
	s := newContactSet(kgo, toCapsules(caps), toIndexPairs(cands), defaultMargin)
	if s.GoldenN < 10 || s.GoldenN == len(cands) {
		t.Fatalf("%d contacts of %d pairs", s.GoldenN, len(cands))
	}
	return s
}

func cloneContacts(c *soa.Contacts) *soa.Contacts {
	d := soa.NewContacts(c.Len())
	copy(d.Pair, c.Pair)
	copy(d.Count, c.Count)
	for k, s := range [][]float32{c.Depth1, c.Depth2, c.NX, c.NY, c.NZ, c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z} {
		copy([][]float32{d.Depth1, d.Depth2, d.NX, d.NY, d.NZ, d.P1X, d.P1Y, d.P1Z, d.P2X, d.P2Y, d.P2Z}[k], s)
	}
	return d
}

// deleteRow removes row r of the first n rows of c, moving the later rows up.
func deleteRow(c *soa.Contacts, r, n int) {
	for q := r; q+1 < n; q++ {
		x := contactAt(c, q+1)
		c.Set(q, c.Pair[q+1], x.Count, x.Depth, x.Normal, x.Point)
	}
}

func TestVerifyContactsAcceptsEveryPath(t *testing.T) {
	s := smallContactSet(t)
	for _, isa := range kernel.Available() {
		k, _ := kernel.Lookup(isa)
		dst := soa.NewContacts(s.Pairs.Len())
		n := k.CompactContacts(dst, s.Caps, s.Pairs, s.Margin)
		if v := verifyContacts(s, dst, n); !v.OK() || v.Worst > verify.DepthTol {
			t.Errorf("%s: %+v", isa, v)
		}
	}
}

func TestVerifyContactsDetectsCorruptRow(t *testing.T) {
	s := smallContactSet(t)
	// A one-point contact well away from every borderline band, with a
	// distance far above rounding, so that a wrong normal or count is
	// wrong beyond doubt.
	row := -1
	for r := s.GoldenN / 2; r < s.GoldenN; r++ {
		k := int(s.Golden.Pair[r])
		rep := verify.CheckContact(verify.PairAt(s.Caps, s.Pairs, k), s.Margin, contactAt(s.Golden, r), false)
		if s.Golden.Count[r] == 1 && rep.Borderline == "" && rep.RefDist > 0.05 && rep.RefCount == 1 {
			row = r
			break
		}
	}
	if row < 0 {
		t.Fatal("no suitable row")
	}
	pair := int(s.Golden.Pair[row])
	cases := []struct {
		name     string
		corrupt  func(c *soa.Contacts) int // returns the row count
		failed   bool                      // some check against the reference or the spec fails
		missing  int
		mismatch int
		why      string // in one of the reported problems
	}{
		{"none", func(c *soa.Contacts) int { return s.GoldenN }, false, 0, 0, ""},
		{"normal reversed", func(c *soa.Contacts) int {
			c.NX[row], c.NY[row], c.NZ[row] = -c.NX[row], -c.NY[row], -c.NZ[row]
			return s.GoldenN
		}, true, 0, 1, "vs reference"},
		{"normal rotated", func(c *soa.Contacts) int {
			c.NX[row], c.NY[row], c.NZ[row] = c.NY[row], c.NZ[row], c.NX[row]
			return s.GoldenN
		}, true, 0, 1, "vs reference"},
		{"normal not unit", func(c *soa.Contacts) int {
			c.NX[row] *= 1.001
			return s.GoldenN
		}, true, 0, 1, "| |n| - 1 |"},
		{"count 2", func(c *soa.Contacts) int { c.Count[row] = 2; return s.GoldenN }, true, 0, 1, "Count = 2, reference 1"},
		{"count 0", func(c *soa.Contacts) int { c.Count[row] = 0; return s.GoldenN }, true, 0, 1, "Count 0 in the compacted output"},
		{"depth off", func(c *soa.Contacts) int {
			c.Depth1[row] += 0.01
			c.Depth2[row] = c.Depth1[row]
			return s.GoldenN
		}, true, 0, 1, "eps32 x scale > 8"},
		// The next pair's index: pair `pair` (touching) is then missing.
		{"wrong pair index", func(c *soa.Contacts) int { c.Pair[row]++; return s.GoldenN }, true, 1, 1, "is not in the output"},
		// A missing touching pair: the row is gone, every later row moves up.
		{"touching pair missing", func(c *soa.Contacts) int {
			deleteRow(c, row, s.GoldenN)
			return s.GoldenN - 1
		}, true, 1, 1 + (s.GoldenN - 1 - row), "is not in the output"},
		// One ulp of depth: the specification pins the one-point depth
		// to (r1+r2) - sqrt32(dist2) bit for bit.
		{"depth one ulp", func(c *soa.Contacts) int {
			c.Depth1[row] = math.Float32frombits(math.Float32bits(c.Depth1[row]) + 1)
			c.Depth2[row] = c.Depth1[row]
			return s.GoldenN
		}, true, 0, 1, "bit for bit"},
		// One ulp of the point: within every tolerance, but not the go
		// path's bits.
		{"point one ulp", func(c *soa.Contacts) int {
			c.P1X[row] = math.Float32frombits(math.Float32bits(c.P1X[row]) + 1)
			c.P2X[row] = c.P1X[row]
			return s.GoldenN
		}, false, 0, 1, "differs from the go path"},
	}
	for _, c := range cases {
		got := cloneContacts(s.Golden)
		n := c.corrupt(got)
		v := verifyContacts(s, got, n)
		if (v.Failed > 0) != c.failed || v.Missing != c.missing || v.Mismatches != c.mismatch {
			t.Errorf("%s (row %d, pair %d): failed %d, missing %d, mismatches %d; want failed %v, missing %d, mismatches %d; %v",
				c.name, row, pair, v.Failed, v.Missing, v.Mismatches, c.failed, c.missing, c.mismatch, v.Examples)
			continue
		}
		if v.OK() != (!c.failed && c.mismatch == 0) {
			t.Errorf("%s: OK() = %v", c.name, v.OK())
		}
		all := strings.Join(v.Examples, "\n")
		if !strings.Contains(all, c.why) {
			t.Errorf("%s: no problem mentions %q:\n%s", c.name, c.why, all)
		}
		if len(v.Examples) > 0 {
			t.Logf("%s: %s", c.name, v.Examples[len(v.Examples)-1])
		}
	}
}

// TestVerifyContactsDetectsWrongApart checks that the verifier holds the
// pairs the output skips to the reference: a touching pair whose
// BatchContacts row claims Count 0 is caught.
func TestVerifyContactsDetectsWrongApart(t *testing.T) {
	s := smallContactSet(t)
	r := s.GoldenN / 2
	k := int(s.Golden.Pair[r])
	rep := verify.CheckContact(verify.PairAt(s.Caps, s.Pairs, k), s.Margin, contactAt(s.Golden, r), false)
	if rep.Borderline != "" {
		t.Skip("borderline row")
	}
	// Drop the pair from both the output and the go path's rows.
	all := cloneContacts(s.All)
	all.Count[k] = 0
	bad := *s
	bad.All = all
	got := cloneContacts(s.Golden)
	deleteRow(got, r, s.GoldenN)
	v := verifyContacts(&bad, got, s.GoldenN-1)
	if v.Failed == 0 || v.Missing != 0 {
		t.Errorf("failed %d, missing %d; want the apart check to fail: %v", v.Failed, v.Missing, v.Examples)
	}
}

func TestVerifyPointsDetectsCorruptLane(t *testing.T) {
	caps := newScene(300, 3)
	cands := broadphase(caps, nil)
	p := pointBatch(caps, cands)
	ref := make([]float64, p.Len())
	referencePointPass(p, ref)
	kgo, _ := kernel.Lookup("go")
	golden := soa.NewPointResults(p.Len())
	kgo.BatchClosestPoint(golden, p)
	lane := -1
	for i := p.Len() / 2; i < p.Len(); i++ {
		if golden.T[i] > 0.1 && golden.T[i] < 0.9 {
			lane = i
			break
		}
	}
	if lane < 0 {
		t.Fatal("no lane with an interior T")
	}
	for _, c := range []struct {
		name             string
		corrupt          func(r *soa.PointResults)
		failed, mismatch int
	}{
		{"none", func(r *soa.PointResults) {}, 0, 0},
		{"dist2 off", func(r *soa.PointResults) { r.Dist2[lane] = r.Dist2[lane]*1.01 + 0.01 }, 1, 1},
		{"T moved", func(r *soa.PointResults) { r.T[lane] = 1 - r.T[lane]/2 }, 1, 1},
		{"T NaN", func(r *soa.PointResults) { r.T[lane] = float32(math.NaN()) }, 1, 1},
		{"dist2 one ulp", func(r *soa.PointResults) {
			r.Dist2[lane] = math.Float32frombits(math.Float32bits(r.Dist2[lane]) + 1)
		}, 0, 1},
	} {
		res := soa.NewPointResults(p.Len())
		copy(res.T, golden.T)
		copy(res.Dist2, golden.Dist2)
		c.corrupt(res)
		if v := verifyPoints(p, res, ref, golden); v.Failed != c.failed || v.Mismatches != c.mismatch {
			t.Errorf("%s: failed %d, mismatches %d; want %d, %d", c.name, v.Failed, v.Mismatches, c.failed, c.mismatch)
		}
	}
}

// The sweep has a row per path, kernel and size, each with a time, and
// its JSON rows say their precision (make plot reads them).
func TestSweep(t *testing.T) {
	saved := sweepSizes
	defer func() { sweepSizes = saved }()
	sweepSizes = []int{16, 100, 70000}
	isas := kernel.Available()
	rows := sweep(isas, 1, 0)
	want := 4 * len(isas) * len(sweepSizes) // closest and stream, float32 and float64
	if len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	precisions := map[string]int{}
	for _, r := range rows {
		precisions[r.Precision]++
		if !(r.NsPerPair > 0) || (r.Kernel != "closest" && r.Kernel != "stream") {
			t.Errorf("row %+v", r)
		}
	}
	if len(precisions) != 2 || precisions["float32"] != want/2 || precisions["float64"] != want/2 {
		t.Errorf("rows per precision %v, want %d float32 and %d float64", precisions, want/2, want/2)
	}
	var b strings.Builder
	if err := writeJSON(&b, rows[:1]); err != nil || !strings.Contains(b.String(), `"precision":"float32"`) {
		t.Errorf("JSON row %q (%v)", b.String(), err)
	}
}
