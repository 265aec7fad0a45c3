package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// A go test -bench output in the form the benchmark binary prints.
const sample = `goos: linux
goarch: amd64
pkg: github.com/segdist/segdist/bench
BenchmarkBatchClosest/isa=avx512/n=4096         	   56232	      4361 ns/op	  52.49 GB/s	         1.065 ns/pair	       0 B/op	       0 allocs/op
BenchmarkContacts/isa=avx512/n=4096             	   18415	     13340 ns/op	         3.257 ns/pair	       0 B/op	       0 allocs/op
BenchmarkParallel/workers=2/kernel=closest/n=65536-2 	    8000	     41340 ns/op	         0.6308 ns/pair
BenchmarkCompactContacts/isa=avx512/hits=5pct/n=4096 	   17000	     13850 ns/op	         0.05005 hits/pair	         3.383 ns/pair
PASS
`

func TestParseRun(t *testing.T) {
	r := parseRun([]byte(sample))
	want := run{
		"BatchClosest/isa=avx512/n=4096":              1.065,
		"Contacts/isa=avx512/n=4096":                  3.257,
		"Parallel/workers=2/kernel=closest/n=65536":   0.6308,
		"CompactContacts/isa=avx512/hits=5pct/n=4096": 3.383,
	}
	if len(r) != len(want) {
		t.Fatalf("parsed %v, want %v", r, want)
	}
	for k, v := range want {
		if r[k] != v {
			t.Errorf("%s: %v, want %v", k, r[k], v)
		}
	}
}

func TestSummarize(t *testing.T) {
	runs := []run{{"a": 3, "b": 1}, {"a": 2, "b": 1}, {"a": 8, "b": 2}, {"a": 1}}
	s, ok := summarize(runs, "a", "b")
	if !ok || s.median != 3 || s.lo != 2 || s.hi != 4 || s.n != 3 {
		t.Errorf("summarize: %+v %v, want median 3, range 2-4 over 3 runs", s, ok)
	}
	runs = append(runs, run{"a": 10, "b": 2})
	if s, _ := summarize(runs, "a", "b"); s.median != 3.5 {
		t.Errorf("median of 4 ratios: %v, want 3.5", s.median)
	}
	if _, ok := summarize(runs, "a", "c"); ok {
		t.Error("summarize found a ratio with no denominator")
	}
}

func TestBounds(t *testing.T) {
	upper := target{max: 2.8}
	lower := target{min: 1.7}
	above := target{min: 1, above: true}
	for _, c := range []struct {
		t    target
		r    float64
		want bool
	}{
		{upper, 2.8, true}, {upper, 2.81, false},
		{lower, 1.7, true}, {lower, 1.69, false},
		{above, 1, false}, {above, 1.01, true},
	} {
		if got := c.t.meets(c.r); got != c.want {
			t.Errorf("%s, ratio %v: meets %v, want %v", c.t.bound(), c.r, got, c.want)
		}
	}
}

// benchMatches reports whether go test -bench pattern selects the
// benchmark full name (Benchmark..., its sub-benchmarks after slashes):
// the pattern split at slashes outside parentheses and brackets, each
// part matched against the name's element at that level, elements past
// the pattern's parts unconstrained and names with fewer elements than
// parts not selected (as package testing does).
func benchMatches(pattern, name string) bool {
	var parts []string
	depth, start := 0, 0
	for i, c := range pattern {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '/':
			if depth == 0 {
				parts = append(parts, pattern[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, pattern[start:])
	elems := strings.Split(name, "/")
	if len(elems) < len(parts) {
		return false
	}
	for i, p := range parts {
		if !regexp.MustCompile(p).MatchString(elems[i]) {
			return false
		}
	}
	return true
}

// Every benchmark a target reads is one the patterns run.
func TestPatternsSelectTargets(t *testing.T) {
	for _, tg := range targets {
		for _, isa := range tg.isas {
			num, den := tg.expand(isa)
			for _, name := range []string{num, den} {
				full := "Benchmark" + name
				if !benchMatches(singlePattern, full) && !benchMatches(parallelPattern, full) && !benchMatches(freshPattern, full) {
					t.Errorf("%s: %s is not selected by the benchmark patterns", tg.name, full)
				}
			}
		}
	}
	if benchMatches(singlePattern, "BenchmarkContacts/isa=go/n=4096") {
		t.Error("the single-core pattern selects the go path")
	}
}

func TestPrintTable(t *testing.T) {
	results := [][]run{{
		{"Contacts/isa=avx512/n=4096": 3.3, "BatchClosest/isa=avx512/n=4096": 1.1},
		{"Contacts/isa=avx512/n=4096": 3.0, "BatchClosest/isa=avx512/n=4096": 1.0},
	}}
	var b bytes.Buffer
	printTable(&b, targets, []string{"/tmp/bench.test"}, results)
	out := b.String()
	if !strings.Contains(out, "| `BatchContacts` over `BatchClosest` | avx512 | 3.000x (3.00-3.00) | at most 2.8x | no |") {
		t.Errorf("table:\n%s", out)
	}
	if strings.Contains(out, "avx2") {
		t.Errorf("a row for a path the runs did not measure:\n%s", out)
	}

	// A base build without the benchmarks of a row: n/a in its column.
	results = [][]run{
		{{"Contacts/isa=avx512/n=4096": 3.3, "BatchClosest/isa=avx512/n=4096": 1.1}},
		{{"BatchClosest/isa=avx512/n=4096": 1.0}},
	}
	b.Reset()
	printTable(&b, targets, []string{"/tmp/new.test", "/tmp/old.test"}, results)
	if out := b.String(); !strings.Contains(out, "| `BatchContacts` over `BatchClosest` | avx512 | 3.000x (3.00-3.00) | n/a | at most 2.8x | no |") {
		t.Errorf("table:\n%s", out)
	}

	// A row without a target: its ratio, no bound, no verdict.
	results = [][]run{{{"FreshPairs/isa=avx2/kernel=compact/pairs=fresh": 6.0, "FreshPairs/isa=avx2/kernel=compact/pairs=repeat": 5.0}}}
	b.Reset()
	printTable(&b, targets, []string{"/tmp/bench.test"}, results)
	if out := b.String(); !strings.Contains(out, "| `CompactContacts` 5%, fresh pairs over repeated | avx2 | 1.200x (1.20-1.20) | none (no target) | - |") {
		t.Errorf("table:\n%s", out)
	}
}
