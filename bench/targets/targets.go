package main

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// singlePattern selects the benchmarks of the single-core ratios (and a
// few sizes more: -test.bench cannot pick a size per benchmark).
const singlePattern = `^Benchmark(BatchClosest|BatchClosest64|StreamOnly|Contacts|CompactContacts|CopyThenClosest|ClosestPoint|PlaneContacts|TOI|CompactTOI)$/^isa=(avx512|avx2)$/^(n=4096|n=1048576|hits=5pct|kernel=batch|kernel=compact|workload=mixed)$`

// parallelPattern selects the kernel.Parallel benchmarks of the ratios.
const parallelPattern = `^BenchmarkParallel$/^workers=(1|2)$/^kernel=(closest|stream|compact)$/^(n=65536|n=1048576|hits=5pct)$`

// freshPattern selects BenchmarkFreshPairs, the contact kernels on new
// pairs every call, for the rows without a bound (info).
const freshPattern = `^BenchmarkFreshPairs$/^isa=(avx512|avx2)$/^kernel=(contacts|compact|copythenclosest)$/^pairs=(fresh|repeat)$`

// A target is a ratio of two benchmarks' ns/pair and the bound the
// project holds it to. In num and den, {isa} stands for the path.
type target struct {
	name     string
	num, den string
	isas     []string
	max      float64 // the ratio is at most max (0: no upper bound)
	min      float64 // the ratio is at least min (0: no lower bound)
	above    bool    // min is exclusive: the ratio is above it
	info     bool    // no bound: a row beside the bounded ones
}

// targets are the ratios this command measures, from the benchmarks of
// ./bench and, for the first, of bench/peers (segdist and the C peer in
// one process).
var targets = []target{
	{name: "`bench/peers`: segdist over the C peer of the same width", num: "Peers/impl=segdist-{isa}/n=4096", den: "Peers/impl=c-{isa}/n=4096",
		isas: []string{"avx512"}, max: 0.85},
	{name: "`bench/peers`: segdist over the C peer of the same width", num: "Peers/impl=segdist-{isa}/n=4096", den: "Peers/impl=c-{isa}/n=4096",
		isas: []string{"avx2"}, max: 0.9},
	{name: "`BatchContacts` over `BatchClosest`", num: "Contacts/isa={isa}/n=4096", den: "BatchClosest/isa={isa}/n=4096",
		isas: []string{"avx512", "avx2"}, max: 2.8},
	{name: "`CompactContacts` 5% over `BatchContacts`", num: "CompactContacts/isa={isa}/hits=5pct/n=4096", den: "Contacts/isa={isa}/n=4096",
		isas: []string{"avx512", "avx2"}, max: 1.1},
	{name: "copy then `BatchClosest`, over `CompactContacts` 5%", num: "CopyThenClosest/isa={isa}/n=4096", den: "CompactContacts/isa={isa}/hits=5pct/n=4096",
		isas: []string{"avx512"}, min: 1.7},
	{name: "copy then `BatchClosest`, over `CompactContacts` 5%", num: "CopyThenClosest/isa={isa}/n=4096", den: "CompactContacts/isa={isa}/hits=5pct/n=4096",
		isas: []string{"avx2"}, min: 1, above: true},
	{name: "`BatchPlaneContacts` over `BatchClosestPoint`", num: "PlaneContacts/isa={isa}/kernel=batch/n=4096", den: "ClosestPoint/isa={isa}/n=4096",
		isas: []string{"avx512", "avx2"}, max: 1},
	{name: "`BatchTOI`, mixed workload, over `BatchClosest`", num: "TOI/isa={isa}/workload=mixed", den: "BatchClosest/isa={isa}/n=4096",
		isas: []string{"avx512", "avx2"}, max: 12},
	{name: "`CompactTOI` 5% over `BatchTOI`", num: "CompactTOI/isa={isa}/kernel=compact", den: "CompactTOI/isa={isa}/kernel=batch",
		isas: []string{"avx512", "avx2"}, max: 1.1},
	{name: "`BatchClosest64` over `BatchClosest`", num: "BatchClosest64/isa={isa}/n=4096", den: "BatchClosest/isa={isa}/n=4096",
		isas: []string{"avx512"}, max: 2},
	{name: "`BatchClosest` over `StreamOnly` at 1M", num: "BatchClosest/isa={isa}/n=1048576", den: "StreamOnly/isa={isa}/n=1048576",
		isas: []string{"avx512"}, max: 1.1},
	{name: "`BatchClosest` at 65,536, 1 worker over 2", num: "Parallel/workers=1/kernel=closest/n=65536", den: "Parallel/workers=2/kernel=closest/n=65536",
		isas: []string{"best"}, min: 1.8},
	{name: "`CompactContacts` 5% at 1M, 1 worker over 2", num: "Parallel/workers=1/kernel=compact/hits=5pct/n=1048576", den: "Parallel/workers=2/kernel=compact/hits=5pct/n=1048576",
		isas: []string{"best"}, min: 1.8},
	{name: "`BatchClosest` over `StreamOnly` at 1M, 2 workers", num: "Parallel/workers=2/kernel=closest/n=1048576", den: "Parallel/workers=2/kernel=stream/n=1048576",
		isas: []string{"best"}, max: 1 / 0.95},
	// The contact rows on new pairs every call (BenchmarkFreshPairs),
	// where the branch predictor cannot learn the batch: no bound.
	{name: "`BatchContacts` on fresh pairs over `BatchClosest`", num: "FreshPairs/isa={isa}/kernel=contacts/pairs=fresh", den: "BatchClosest/isa={isa}/n=4096",
		isas: []string{"avx512", "avx2"}, info: true},
	{name: "`CompactContacts` 5%, fresh pairs over repeated", num: "FreshPairs/isa={isa}/kernel=compact/pairs=fresh", den: "FreshPairs/isa={isa}/kernel=compact/pairs=repeat",
		isas: []string{"avx512", "avx2"}, info: true},
	{name: "copy then `BatchClosest`, over `CompactContacts` 5%, fresh pairs", num: "FreshPairs/isa={isa}/kernel=copythenclosest/pairs=fresh", den: "FreshPairs/isa={isa}/kernel=compact/pairs=fresh",
		isas: []string{"avx512", "avx2"}, info: true},
}

// expand returns the benchmark names of t on path isa.
func (t target) expand(isa string) (num, den string) {
	return strings.ReplaceAll(t.num, "{isa}", isa), strings.ReplaceAll(t.den, "{isa}", isa)
}

// meets reports whether ratio r is within t's bound.
func (t target) meets(r float64) bool {
	switch {
	case t.max > 0 && r > t.max:
		return false
	case t.above && r <= t.min:
		return false
	case !t.above && t.min > 0 && r < t.min:
		return false
	}
	return true
}

// bound describes t's bound.
func (t target) bound() string {
	switch {
	case t.info:
		return "none"
	case t.max > 0:
		return fmt.Sprintf("at most %.3gx", t.max)
	case t.above:
		return fmt.Sprintf("above %.3gx", t.min)
	}
	return fmt.Sprintf("at least %.3gx", t.min)
}

// A run is one invocation's ns/pair per benchmark (names without the
// Benchmark prefix and the -GOMAXPROCS suffix).
type run map[string]float64

// benchLine matches a benchmark result line with an ns/pair metric.
var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s.*?\s([0-9.e+-]+) ns/pair`)

// parseRun reads the ns/pair of every benchmark in a go test -bench output.
func parseRun(out []byte) run {
	r := run{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		r[m[1]] = v
	}
	return r
}

// A summary is the median of per-invocation ratios and their range.
type summary struct {
	median, lo, hi float64
	n              int
}

func (s summary) String() string {
	return fmt.Sprintf("%.3fx (%.2f-%.2f)", s.median, s.lo, s.hi)
}

// summarize returns the summary of num/den over the runs that measured
// both, and false if none did.
func summarize(runs []run, num, den string) (summary, bool) {
	var rs []float64
	for _, r := range runs {
		a, okA := r[num]
		b, okB := r[den]
		if okA && okB && b > 0 {
			rs = append(rs, a/b)
		}
	}
	if len(rs) == 0 {
		return summary{}, false
	}
	slices.Sort(rs)
	med := rs[len(rs)/2]
	if len(rs)%2 == 0 {
		med = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
	}
	return summary{median: med, lo: rs[0], hi: rs[len(rs)-1], n: len(rs)}, true
}
