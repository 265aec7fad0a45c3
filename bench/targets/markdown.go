package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// markdownPattern selects the single-core benchmarks of the -markdown
// table, on every path (the go path included). As with singlePattern,
// CompactContacts runs its other sizes at 5% too.
const markdownPattern = `^Benchmark(BatchClosest|BatchClosest64|StreamOnly|Contacts|Contacts64|CompactContacts|CompactContacts64|CopyThenClosest|ClosestIndexed|ClosestPoint|PlaneContacts|CapsulesFromPoses|TOI|CompactTOI)$/^isa=/^(n=4096|n=1048576|hits=5pct|kernel=batch|kernel=compact|workload=mixed)$`

// peersPattern selects bench/peers' BenchmarkPeers at 4,096 pairs: segdist
// and the C and archsimd peers in one process.
const peersPattern = `^BenchmarkPeers$/^impl=/^n=4096$`

// A measure is one row of the -markdown table: the median ns/pair of
// benchmark num over the invocations, or, with den set, the median of the
// per-invocation ratios num/den. In num and den, {isa} stands for the
// path of the column. isas limits the row to those paths (nil: every
// column); "best" is the path package kernel dispatches to, which the
// kernel.Parallel benchmarks run.
type measure struct {
	name     string
	num, den string
	isas     []string
}

// measures are the ns/pair rows of the -markdown table, in its order;
// the ratios of targets follow them (markdownRows).
var measures = []measure{
	{name: "`BatchClosest`, 4,096 pairs", num: "BatchClosest/isa={isa}/n=4096"},
	{name: "`BatchClosest`, 1M pairs", num: "BatchClosest/isa={isa}/n=1048576"},
	{name: "memory floor (`StreamOnly`), 1M pairs", num: "StreamOnly/isa={isa}/n=1048576"},
	{name: "`BatchClosest64`, 4,096 pairs", num: "BatchClosest64/isa={isa}/n=4096"},
	{name: "`BatchClosestPoint`, 4,096 points", num: "ClosestPoint/isa={isa}/n=4096"},
	{name: "`BatchClosestIndexed`, 4,096 index pairs", num: "ClosestIndexed/isa={isa}/n=4096"},
	{name: "copy into `soa.Pairs`, then `BatchClosest`, 4,096 index pairs", num: "CopyThenClosest/isa={isa}/n=4096"},
	{name: "`BatchContacts`, 4,096 index pairs", num: "Contacts/isa={isa}/n=4096"},
	{name: "`CompactContacts`, 5% touching", num: "CompactContacts/isa={isa}/hits=5pct/n=4096"},
	{name: "`CompactContacts`, 5% touching, fresh pairs every call", num: "FreshPairs/isa={isa}/kernel=compact/pairs=fresh"},
	{name: "`BatchPlaneContacts`, 4,096 capsule-plane pairs", num: "PlaneContacts/isa={isa}/kernel=batch/n=4096"},
	{name: "`CompactPlaneContacts`, 4,096 capsule-plane pairs", num: "PlaneContacts/isa={isa}/kernel=compact/n=4096"},
	{name: "`CapsulesFromPoses`, ns per body, 4,096 bodies", num: "CapsulesFromPoses/isa={isa}/n=4096"},
	{name: "`BatchTOI`, mixed workload, 4,096 pairs", num: "TOI/isa={isa}/workload=mixed"},
	{name: "`BatchContacts64`, 4,096 index pairs", num: "Contacts64/isa={isa}/n=4096"},
	{name: "`CompactContacts64`, 5% touching", num: "CompactContacts64/isa={isa}/hits=5pct/n=4096"},
	{name: "`Parallel`, 2 workers: `BatchClosest`, 65,536 pairs", num: "Parallel/workers=2/kernel=closest/n=65536", isas: []string{"best"}},
	{name: "`Parallel`, 2 workers: `BatchClosest`, 1M pairs", num: "Parallel/workers=2/kernel=closest/n=1048576", isas: []string{"best"}},
	{name: "`Parallel`, 2 workers: `CompactContacts` 5%, 1M index pairs", num: "Parallel/workers=2/kernel=compact/hits=5pct/n=1048576", isas: []string{"best"}},
	{name: "`bench/peers`: segdist's `BatchClosest`, 4,096 pairs", num: "Peers/impl=segdist-{isa}/n=4096"},
	{name: "`bench/peers`: the same algorithm in C intrinsics", num: "Peers/impl=c-{isa}/n=4096"},
	{name: "`bench/peers`: the same algorithm in Go `simd/archsimd`", num: "Peers/impl=archsimd-{isa}/n=4096"},
}

// markdownRows returns the rows of the -markdown table: measures, then
// one ratio row per distinct target name (the targets of one name on
// different paths, with different bounds, share a row).
func markdownRows(ms []measure, ts []target) []measure {
	rows := slices.Clone(ms)
	seen := map[string]int{}
	for _, t := range ts {
		if i, ok := seen[t.name]; ok && rows[i].num == t.num && rows[i].den == t.den {
			rows[i].isas = append(slices.Clone(rows[i].isas), t.isas...)
			continue
		}
		seen[t.name] = len(rows)
		rows = append(rows, measure{name: t.name, num: t.num, den: t.den, isas: t.isas})
	}
	return rows
}

// cell returns row m's entry in the column of path col ("" when the
// runs did not measure it there); best is the path of the "best" rows.
func (m measure) cell(runs []run, col, best string) string {
	isa := col
	if slices.Contains(m.isas, "best") {
		if col != best {
			return ""
		}
		isa = "best"
	} else if m.isas != nil && !slices.Contains(m.isas, col) {
		return ""
	}
	num := strings.ReplaceAll(m.num, "{isa}", isa)
	if m.den == "" {
		v, ok := median(runs, num)
		if !ok {
			return ""
		}
		return nsPerPair(v)
	}
	s, ok := summarize(runs, num, strings.ReplaceAll(m.den, "{isa}", isa))
	if !ok {
		return ""
	}
	return s.String()
}

// median returns the median of benchmark name's ns/pair over the runs
// that measured it.
func median(runs []run, name string) (float64, bool) {
	var vs []float64
	for _, r := range runs {
		if v, ok := r[name]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 0 {
		return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
	}
	return vs[len(vs)/2], true
}

// nsPerPair formats v with three significant digits (two decimals below
// 10), as the tables of docs/performance.md print them.
func nsPerPair(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// A machine describes where and how a -markdown table was measured.
type machine struct {
	cpu     string   // the heading: brand, family and model
	caches  string   // L1D, L2, L3
	commit  string   // git rev-parse --short HEAD, "-dirty" with changes
	date    string   // YYYY-MM-DD
	command string   // the command line that measured it
	runs    int      // invocations
	pinned  string   // how single-core rows ran ("" unpinned)
	paths   []string // the columns, best path first
	best    string   // the path the kernel.Parallel rows ran on
}

// heading returns the section heading of the machine's table: one
// section per CPU model in docs/performance.md.
func (m machine) heading() string { return "### " + m.cpu }

// printMarkdown writes the machine's section: the heading, how it was
// measured, and one table with a column per path and a row per measure
// that any column has.
func printMarkdown(w io.Writer, m machine, rows []measure, runs []run) {
	fmt.Fprintf(w, "%s\n\n", m.heading())
	fmt.Fprintf(w, "%s. Commit %s, %s, %d invocation(s) of:\n\n", m.caches, m.commit, m.date, m.runs)
	fmt.Fprintf(w, "```sh\n%s\n```\n\n", m.command)
	fmt.Fprint(w, "ns/pair: the median over the invocations. Ratios: the median of the per-invocation ratios, their range in parentheses.")
	if m.pinned != "" {
		fmt.Fprintf(w, " Single-core rows pinned to %s; `Parallel` rows on every CPU.", m.pinned)
	}
	fmt.Fprint(w, "\n\n| |")
	for _, p := range m.paths {
		fmt.Fprintf(w, " `%s` |", p)
	}
	fmt.Fprint(w, "\n|---|")
	for range m.paths {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	ratios := false
	for _, r := range rows {
		cells := make([]string, len(m.paths))
		any := false
		for i, p := range m.paths {
			cells[i] = r.cell(runs, p, m.best)
			any = any || cells[i] != ""
		}
		if !any {
			continue // measured on no path of this machine
		}
		if r.den != "" && !ratios {
			ratios = true
			fmt.Fprintf(w, "| *time ratios* |%s\n", strings.Repeat("  |", len(m.paths)))
		}
		fmt.Fprintf(w, "| %s | %s |\n", r.name, strings.Join(cells, " | "))
	}
}

// The generated sections of a document lie between these two lines, one
// "### " section per CPU.
const (
	beginTables = "<!-- generated by go run ./bench/targets -markdown: one section per CPU, between these lines -->"
	endTables   = "<!-- end of the generated sections -->"
)

// updateDoc returns doc with section (which starts with a "### "
// heading line) in its generated part: in place of the section with the
// same heading, or after the last one. A document without the generated
// part gets it at its end. Text outside the generated part is kept as it
// is.
func updateDoc(doc, section string) string {
	section = strings.TrimRight(section, "\n") + "\n"
	heading, _, _ := strings.Cut(section, "\n")
	b := strings.Index(doc, beginTables+"\n")
	e := strings.Index(doc, endTables)
	if b < 0 || e < b {
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		if doc != "" {
			doc += "\n"
		}
		return doc + beginTables + "\n\n" + section + "\n" + endTables + "\n"
	}
	b += len(beginTables) + 1
	var sections []string
	replaced := false
	for _, s := range splitSections(doc[b:e]) {
		if h, _, _ := strings.Cut(s, "\n"); h == heading {
			s, replaced = section, true
		}
		sections = append(sections, s)
	}
	if !replaced {
		sections = append(sections, section)
	}
	return doc[:b] + "\n" + strings.Join(sections, "\n") + "\n" + doc[e:]
}

// splitSections cuts the generated part of a document at its "### "
// lines, each section with its trailing blank lines removed and one
// newline kept (text before the first heading is dropped).
func splitSections(part string) []string {
	var out []string
	cur := -1
	for _, line := range strings.SplitAfter(part, "\n") {
		if strings.HasPrefix(line, "### ") {
			out = append(out, "")
			cur++
		}
		if cur >= 0 {
			out[cur] += line
		}
	}
	for i, s := range out {
		out[i] = strings.TrimRight(s, "\n") + "\n"
	}
	return out
}
