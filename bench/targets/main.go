// Command targets measures the performance targets of the open issues on
// this machine, the way the notes in PERFORMANCE.md do: it builds the
// benchmark binary of ./bench, runs it several times (one invocation
// after another, pinned to one CPU with taskset where there is one), and
// prints each target's ratio as the median of its per-invocation ratios,
// with their range, against the target's bound. Ratios of one invocation
// share the host's speed of that moment, which on shared VMs varies more
// between invocations than the ratios do.
//
//	go run ./bench/targets               # 10 invocations, CPU 1 (0 on one CPU)
//	go run ./bench/targets -base old.test # alternate with another build
//
// With -base, every invocation of the current build is followed by one of
// the given binary (a `go test -c ./bench` of another commit), and both
// columns are printed. The kernel.Parallel targets run on every CPU
// (unpinned) when there are at least two. Three rows without a bound
// follow the targets: the contact kernels on new pairs every call
// (BenchmarkFreshPairs), which no target measures (-fresh=false skips
// them).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	runs := flag.Int("n", 10, "invocations of each binary")
	cpu := flag.Int("cpu", min(1, runtime.NumCPU()-1), "the CPU to pin the single-core runs to with taskset (-1: no pinning)")
	benchtime := flag.String("benchtime", "0.2s", "-test.benchtime of each benchmark")
	bin := flag.String("bin", "", "a benchmark binary to run instead of building ./bench")
	base := flag.String("base", "", "a second benchmark binary, run alternately with the first")
	parallel := flag.Bool("parallel", runtime.NumCPU() >= 2, "also measure the kernel.Parallel targets (unpinned)")
	fresh := flag.Bool("fresh", true, "also measure the rows without a target on new pairs every call (BenchmarkFreshPairs)")
	flag.Parse()
	if *runs < 1 {
		fail(fmt.Errorf("-n %d: need at least one invocation", *runs))
	}

	if *bin == "" {
		dir, err := os.MkdirTemp("", "segdist-targets")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "bench.test")
		build := exec.Command("go", "test", "-c", "-o", *bin, "./bench")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("go test -c ./bench: %v", err))
		}
	}
	bins := []string{*bin}
	if *base != "" {
		bins = append(bins, *base)
	}

	pin := []string{}
	if _, err := exec.LookPath("taskset"); err == nil && *cpu >= 0 {
		pin = []string{"taskset", "-c", fmt.Sprint(*cpu)}
	}
	// The invocations of one round: the single-core targets (pinned), the
	// fresh-pair rows (pinned), the kernel.Parallel targets (on every CPU).
	type invocation struct {
		pin     []string
		pattern string
	}
	rounds := []invocation{{pin, singlePattern}}
	if *fresh {
		rounds = append(rounds, invocation{pin, freshPattern})
	}
	if *parallel {
		rounds = append(rounds, invocation{nil, parallelPattern})
	}
	results := make([][]run, len(bins)) // per binary, per invocation
	for i := range *runs {
		for b, path := range bins {
			fmt.Fprintf(os.Stderr, "invocation %d of %d: %s\n", i+1, *runs, path)
			r := run{}
			for _, inv := range rounds {
				out, err := invoke(inv.pin, path, inv.pattern, *benchtime)
				if err != nil {
					fail(err)
				}
				for name, v := range parseRun(out) {
					r[name] = v
				}
			}
			results[b] = append(results[b], r)
		}
	}

	fmt.Printf("Targets of the open issues: %d invocation(s) of %s", *runs, bins[0])
	if len(bins) > 1 {
		fmt.Printf(" alternating with %s", bins[1])
	}
	fmt.Printf(", -test.benchtime %s", *benchtime)
	if len(pin) > 0 {
		fmt.Printf(", single-core targets on CPU %d", *cpu)
	}
	fmt.Println(". Each ratio is the median of the per-invocation ratios (range in parentheses).")
	fmt.Println()
	printTable(os.Stdout, targets, bins, results)
}

// invoke runs the benchmark binary once on the benchmarks of pattern.
func invoke(prefix []string, bin, pattern, benchtime string) ([]byte, error) {
	args := append(append([]string{}, prefix...), bin, "-test.run", "^$", "-test.bench", pattern,
		"-test.benchtime", benchtime, "-test.count", "1")
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "targets:", err)
	os.Exit(1)
}

// printTable writes one markdown row per target and path that the first
// binary's runs measured: the ratio of each binary (n/a for one without
// those benchmarks), the bound, and whether the first binary's median
// meets it.
func printTable(w io.Writer, ts []target, bins []string, results [][]run) {
	fmt.Fprint(w, "| target | path |")
	for _, b := range bins {
		fmt.Fprintf(w, " %s |", filepath.Base(b))
	}
	fmt.Fprintln(w, " bound | met? |")
	fmt.Fprint(w, "|---|---|")
	for range bins {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w, "---|---|")
	for _, t := range ts {
		for _, isa := range t.isas {
			num, den := t.expand(isa)
			first, ok := summarize(results[0], num, den)
			if !ok {
				continue // this path or benchmark is not on this machine
			}
			cells := []string{first.String()}
			for b := 1; b < len(bins); b++ {
				if s, found := summarize(results[b], num, den); found {
					cells = append(cells, s.String())
				} else {
					cells = append(cells, "n/a") // a build without the benchmark
				}
			}
			met := "no"
			switch {
			case t.info:
				met = "-"
			case t.meets(first.median):
				met = "yes"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", t.name, isa, strings.Join(cells, " | "), t.bound(), met)
		}
	}
}
