package main

import (
	"bytes"
	"regexp"
	"slices"
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
				if !benchMatches(singlePattern, full) && !benchMatches(parallelPattern, full) && !benchMatches(freshPattern, full) && !benchMatches(peersPattern, full) {
					t.Errorf("%s: %s is not selected by the benchmark patterns", tg.name, full)
				}
			}
		}
	}
	// The same for the -markdown rows, on every path.
	for _, m := range markdownRows(measures, targets) {
		isas := m.isas
		if isas == nil {
			isas = []string{"avx512", "avx2", "go"}
		}
		for _, isa := range isas {
			for _, name := range []string{m.num, m.den} {
				if name == "" || (strings.HasPrefix(name, "FreshPairs/") || strings.HasPrefix(name, "Peers/")) && isa == "go" {
					continue // fresh pairs and the peers: SIMD paths only
				}
				full := "Benchmark" + strings.ReplaceAll(name, "{isa}", isa)
				if !benchMatches(markdownPattern, full) && !benchMatches(parallelPattern, full) && !benchMatches(freshPattern, full) && !benchMatches(peersPattern, full) {
					t.Errorf("-markdown row %s: %s is not selected by the benchmark patterns", m.name, full)
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
	if out := b.String(); !strings.Contains(out, "| `CompactContacts` 5%, fresh pairs over repeated | avx2 | 1.200x (1.20-1.20) | none | - |") {
		t.Errorf("table:\n%s", out)
	}
}

// The targets of one ratio on two paths (two bounds) share a -markdown row.
func TestMarkdownRows(t *testing.T) {
	rows := markdownRows(nil, targets)
	var names []string
	for _, r := range rows {
		if slices.Contains(names, r.name) {
			t.Errorf("two -markdown rows named %s", r.name)
		}
		names = append(names, r.name)
	}
	i := slices.IndexFunc(rows, func(r measure) bool {
		return strings.HasPrefix(r.name, "copy then `BatchClosest`, over `CompactContacts` 5%")
	})
	if i < 0 || !slices.Equal(rows[i].isas, []string{"avx512", "avx2"}) {
		t.Errorf("copy-then-closest row: %+v, want the paths avx512 and avx2", rows[i])
	}
}

func TestPrintMarkdown(t *testing.T) {
	m := machine{cpu: "Some CPU (family 25, model 17)", caches: "2 logical CPUs, L1D 32 KiB, L2 1 MiB, L3 32 MiB",
		commit: "abc1234-dirty", date: "2026-12-01", command: "go run ./bench/targets -markdown -n 2", runs: 2,
		pinned: "CPU 1 (`taskset -c 1`)", paths: []string{"avx512", "avx2", "go"}, best: "avx512"}
	runs := []run{
		{"BatchClosest/isa=avx512/n=4096": 1.0, "BatchClosest/isa=avx2/n=4096": 1.6, "BatchClosest/isa=go/n=4096": 30.04,
			"Contacts/isa=avx512/n=4096": 3.0, "Parallel/workers=2/kernel=closest/n=65536": 0.6,
			"Parallel/workers=1/kernel=closest/n=65536": 1.2},
		{"BatchClosest/isa=avx512/n=4096": 1.2, "BatchClosest/isa=avx2/n=4096": 1.6, "BatchClosest/isa=go/n=4096": 130.4,
			"Contacts/isa=avx512/n=4096": 3.0, "Parallel/workers=2/kernel=closest/n=65536": 0.6,
			"Parallel/workers=1/kernel=closest/n=65536": 1.08},
	}
	var b bytes.Buffer
	printMarkdown(&b, m, markdownRows(measures, targets), runs)
	out := b.String()
	for _, want := range []string{
		"### Some CPU (family 25, model 17)\n\n2 logical CPUs, L1D 32 KiB, L2 1 MiB, L3 32 MiB. Commit abc1234-dirty, 2026-12-01, 2 invocation(s) of:\n\n```sh\ngo run ./bench/targets -markdown -n 2\n```\n",
		"\n| | `avx512` | `avx2` | `go` |\n|---|---|---|---|\n| `BatchClosest`, 4,096 pairs | 1.10 | 1.60 | 80.2 |\n",
		"| `BatchContacts`, 4,096 index pairs | 3.00 |  |  |\n",
		"| `Parallel`, 2 workers: `BatchClosest`, 65,536 pairs | 0.60 |  |  |\n",
		"| `Parallel`, 2 workers: `BatchClosest`, 65,536 pairs | 0.60 |  |  |\n| *time ratios* |  |  |  |\n| `BatchContacts` over `BatchClosest` | 2.750x (2.50-3.00) |  |  |\n",
		"| `BatchClosest` at 65,536, 1 worker over 2 | 1.900x (1.80-2.00) |  |  |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "StreamOnly") || strings.Contains(out, "peers") {
		t.Errorf("a row the runs did not measure:\n%s", out)
	}

	// A "best" row goes to the column of the path it ran on.
	m.best = "avx2"
	b.Reset()
	printMarkdown(&b, m, markdownRows(measures, targets), runs)
	if want := "| `Parallel`, 2 workers: `BatchClosest`, 65,536 pairs |  | 0.60 |  |\n"; !strings.Contains(b.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, b.String())
	}
}

func TestNsPerPair(t *testing.T) {
	for v, want := range map[float64]string{1.0649: "1.06", 9.994: "9.99", 30.04: "30.0", 68.84: "68.8", 123.6: "124"} {
		if got := nsPerPair(v); got != want {
			t.Errorf("nsPerPair(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"-markdown", "-n", "3", "-write", "docs/performance.md", "-benchtime", "a b", "it's"})
	want := `go run ./bench/targets -markdown -n 3 -write docs/performance.md -benchtime 'a b' 'it'\''s'`
	if got != want {
		t.Errorf("commandLine: %s, want %s", got, want)
	}
}

// updateDoc adds a machine's section, replaces the section of the same
// CPU and keeps the others and the text around them.
func TestUpdateDoc(t *testing.T) {
	zen4 := "### AMD EPYC (family 25, model 17)\n\nfirst run\n\n| | `avx512` |\n|---|---|\n| a | 1.00 |\n"
	zen4b := "### AMD EPYC (family 25, model 17)\n\nsecond run\n\n| | `avx512` |\n|---|---|\n| a | 0.90 |\n"
	xeon := "### Intel(R) Xeon(R) Platinum 8488C (family 6, model 143)\n\nits run\n"
	head := "# Performance\n\n## How to measure\n\ntext\n\n## Machines\n\n"
	tail := "\n## Peers\n\nmore text\n### not a machine\n"

	// A document without the generated part gets it at its end.
	doc := updateDoc(head, zen4)
	if want := head + "\n" + beginTables + "\n\n" + zen4 + "\n" + endTables + "\n"; doc != want {
		t.Fatalf("first section:\n%s\nwant:\n%s", doc, want)
	}
	// An empty (new) file: the generated part alone.
	if got, want := updateDoc("", zen4), beginTables+"\n\n"+zen4+"\n"+endTables+"\n"; got != want {
		t.Errorf("new file:\n%s\nwant:\n%s", got, want)
	}

	doc += tail
	// Another CPU: added after the first, the rest kept.
	doc = updateDoc(doc, xeon)
	want := head + "\n" + beginTables + "\n\n" + zen4 + "\n" + xeon + "\n" + endTables + "\n" + tail
	if doc != want {
		t.Fatalf("second CPU:\n%s\nwant:\n%s", doc, want)
	}
	// The same CPU again: its section replaced in place, even with
	// trailing blank lines in the new section.
	doc = updateDoc(doc, zen4b+"\n\n")
	want = head + "\n" + beginTables + "\n\n" + zen4b + "\n" + xeon + "\n" + endTables + "\n" + tail
	if doc != want {
		t.Fatalf("same CPU again:\n%s\nwant:\n%s", doc, want)
	}
	// Idempotent: the same section twice leaves the document as it was.
	if again := updateDoc(doc, zen4b); again != doc {
		t.Errorf("replacing a section with itself changed the document:\n%s\nwant:\n%s", again, doc)
	}
	if n := strings.Count(doc, "### AMD EPYC"); n != 1 {
		t.Errorf("%d sections for one CPU:\n%s", n, doc)
	}
}
