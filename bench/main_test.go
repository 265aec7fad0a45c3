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

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// bruteForce lists every overlapping pair by testing all n(n-1)/2 pairs.
func bruteForce(caps []Capsule) []Candidate {
	var out []Candidate
	for i := range caps {
		ci, ri := caps[i].Bound()
		for j := i + 1; j < len(caps); j++ {
			cj, rj := caps[j].Bound()
			if overlap(ci, ri, cj, rj) {
				out = append(out, Candidate{int32(i), int32(j)})
			}
		}
	}
	return out
}

func TestBroadphaseMatchesBruteForce(t *testing.T) {
	for _, n := range []int{2, 3, 17, 200, 1500} {
		for seed := uint64(1); seed <= 3; seed++ {
			caps := NewScene(n, seed)
			got := Broadphase(caps, nil)
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
	base := NewScene(300, 7)
	clustered := slices.Clone(base)
	for i := range clustered {
		for k := range 3 {
			clustered[i].P0[k] *= 0.01
			clustered[i].P1[k] *= 0.01
		}
	}
	far := slices.Clone(base)
	far = append(far, Capsule{P0: [3]float32{1e6, 0, 0}, P1: [3]float32{1e6 + 50, 0, 0}, R: 1})
	far = append(far, Capsule{P0: [3]float32{-1e5, 3e5, 0}, P1: [3]float32{-1e5, 3e5, 0}, R: 1e4})
	same := make([]Capsule, 40)
	for i := range same {
		same[i] = Capsule{P0: [3]float32{1, 2, 3}, P1: [3]float32{2, 2, 3}, R: 0.5}
	}
	for name, caps := range map[string][]Capsule{"clustered": clustered, "far": far, "identical": same} {
		got := Broadphase(caps, nil)
		want := bruteForce(caps)
		if !slices.Equal(got, want) {
			t.Errorf("%s: broadphase found %d pairs, brute force %d", name, len(got), len(want))
		}
	}
	if got := len(Broadphase(same, nil)); got != 40*39/2 {
		t.Errorf("identical: %d pairs, want %d", got, 40*39/2)
	}
}

func TestBroadphaseProgress(t *testing.T) {
	caps := NewScene(2000, 1)
	last, calls := -1, 0
	Broadphase(caps, func(done, total int) {
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
	a, b := NewScene(500, 42), NewScene(500, 42)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different scenes")
	}
	if c := NewScene(500, 43); slices.Equal(a, c) {
		t.Fatal("different seeds, same scene")
	}
	if len(a) != 500 {
		t.Fatalf("len = %d", len(a))
	}
	spheres, stacked := sceneStats(NewScene(4000, 1))
	if spheres == 0 || stacked == 0 {
		t.Errorf("scene of 4000 has %d spheres and %d stacked capsules; want some of each", spheres, stacked)
	}
}

// smallBatch returns the candidate pairs of a small scene, their reference
// squared distances and the go path's results.
func smallBatch(t *testing.T) (*soa.Pairs, []float64, *soa.Results) {
	t.Helper()
	caps := NewScene(300, 3)
	cands := Broadphase(caps, nil)
	if len(cands) < 10 {
		t.Fatalf("only %d pairs", len(cands))
	}
	p := FillPairs(caps, cands)
	ref := make([]float64, p.Len())
	ReferencePass(p, ref)
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
		if v := Verify(p, res, ref, golden); !v.OK() {
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
		v := Verify(p, res, ref, golden)
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
	if de, pe, ok := LaneError(q, 0, 0, 0, 0); !ok || de != 0 || pe != 0 {
		t.Errorf("zero pair, exact answer: %v %v %v", de, pe, ok)
	}
	if _, _, ok := LaneError(q, 0, 0, 1, 0); ok {
		t.Error("zero pair, wrong distance accepted")
	}
}

func TestWriteJSONKeys(t *testing.T) {
	rows := []Row{
		{ISA: "go", Kernel: "closest", Pairs: 10, NsPerPair: 30, Speedup: 2, WorstErrEps: 0.5, Contacts: 3},
		{ISA: "avx2", Kernel: "closest", Pairs: 10, NsPerPair: 3, Speedup: 20, WorstErrEps: math.Inf(1), Contacts: 3, Mismatches: 1},
		{ISA: refISA, Kernel: "closest", Pairs: 10, NsPerPair: 60, Speedup: 1, Contacts: 3},
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rows); err != nil {
		t.Fatal(err)
	}
	checkJSONLines(t, buf.String(), []string{"go", "avx2", refISA})
}

// checkJSONLines checks that out is one JSON object per line with exactly
// the documented keys, with isa values wantISAs in order.
func checkJSONLines(t *testing.T, out string, wantISAs []string) {
	t.Helper()
	wantKeys := []string{"contacts", "isa", "kernel", "mismatches", "ns_per_pair", "pairs", "speedup", "worst_err_eps"}
	var isas []string
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
		if m["kernel"] != "closest" {
			t.Errorf("line %q: kernel %v", sc.Text(), m["kernel"])
		}
		for _, k := range []string{"pairs", "ns_per_pair", "speedup", "worst_err_eps", "contacts", "mismatches"} {
			if _, ok := m[k].(float64); !ok {
				t.Errorf("line %q: %s is %T, want a number", sc.Text(), k, m[k])
			}
		}
		isas = append(isas, m["isa"].(string))
	}
	if !slices.Equal(isas, wantISAs) {
		t.Errorf("isa values %v, want %v", isas, wantISAs)
	}
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
		got, err := ParseISAs(c.flag, avail)
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
		if got := Median(in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("Median modified its input")
		}
	}
}

func TestMeasure(t *testing.T) {
	calls := 0
	tm := Measure(func() { calls++; time.Sleep(100 * time.Microsecond) }, 3, time.Millisecond)
	if len(tm.Reps) != 3 || tm.Passes < 1 || calls != 1+3*tm.Passes {
		t.Fatalf("reps %d passes %d calls %d", len(tm.Reps), tm.Passes, calls)
	}
	if tm.Median < 100*time.Microsecond {
		t.Errorf("median %v, below the sleep", tm.Median)
	}
}

// TestRun runs the whole job on a small scene, as CI does, in both output
// modes.
func TestRun(t *testing.T) {
	isas := kernel.Available()
	for _, js := range []bool{false, true} {
		var out, errOut bytes.Buffer
		cfg := config{n: 200, seed: 1, json: js, reps: 2, minRep: time.Millisecond}
		ok, err := run(cfg, isas, &out, &errOut)
		if err != nil || !ok {
			t.Fatalf("json=%v: ok=%v err=%v\nstdout:\n%s\nstderr:\n%s", js, ok, err, out.String(), errOut.String())
		}
		if js {
			checkJSONLines(t, out.String(), append(slices.Clone(isas), refISA))
			continue
		}
		for _, want := range append([]string{"cpu:", "kernel:", "ns/pair", "verified:", refISA}, isas...) {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
	}
}
