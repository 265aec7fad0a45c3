// Command targets measures segdist's performance ratios and ns/pair on
// this machine. It builds the benchmark binary of ./bench, runs it
// several times (one invocation after another, pinned to one CPU with
// taskset where there is one), and prints each ratio the project sets a
// bound for (contacts over closest points, float64 over float32, 1M pairs
// over the memory floor, two workers over one, segdist over the C peer)
// as the median of its per-invocation ratios, with their range, against
// that bound. Ratios of one invocation share the host's speed of that
// moment, which on shared machines varies more between invocations than
// the ratios do.
//
//	go run ./bench/targets                # 10 invocations, CPU 1 (0 on one CPU)
//	go run ./bench/targets -base old.test # alternate with another build
//	go run ./bench/targets -markdown -write docs/performance.md
//
// With -base, every invocation of the current build is followed by one of
// the given binary (a `go test -c ./bench` of another commit), and both
// columns are printed. The kernel.Parallel rows run on every CPU
// (unpinned) when there are at least two. Three rows without a bound
// follow: the contact kernels on new pairs every call
// (BenchmarkFreshPairs; -fresh=false skips them). Where bench/peers builds
// with cgo (-tags peers), its BenchmarkPeers runs in every invocation too
// (-peers=false skips it).
//
// With -markdown the command prints this machine's section of
// docs/performance.md instead: a heading naming the CPU, the commit, the
// date and the command, then one table with a column per path and a row
// per kernel (median ns/pair) and per ratio. -write FILE puts that
// section into FILE, replacing the section of the same CPU and keeping the
// other machines' sections.
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
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/segdist/segdist/kernel"
)

func main() {
	runs := flag.Int("n", 10, "invocations of each binary")
	cpu := flag.Int("cpu", min(1, runtime.NumCPU()-1), "the CPU to pin the single-core runs to with taskset (-1: no pinning)")
	benchtime := flag.String("benchtime", "0.2s", "-test.benchtime of each benchmark")
	bin := flag.String("bin", "", "a benchmark binary to run instead of building ./bench")
	base := flag.String("base", "", "a second benchmark binary, run alternately with the first")
	parallel := flag.Bool("parallel", runtime.NumCPU() >= 2, "also measure the kernel.Parallel rows (unpinned)")
	fresh := flag.Bool("fresh", true, "also measure the rows on new pairs every call (BenchmarkFreshPairs)")
	peers := flag.Bool("peers", true, "also build bench/peers (cgo, -tags peers, GOEXPERIMENT=simd) and measure the C and archsimd peers, where it builds")
	markdown := flag.Bool("markdown", false, "print this machine's section of docs/performance.md (ns/pair and ratios on every path)")
	write := flag.String("write", "", "with -markdown: put the section into this file, replacing the section of the same CPU")
	flag.Parse()
	if *runs < 1 {
		fail(fmt.Errorf("-n %d: need at least one invocation", *runs))
	}
	if *write != "" {
		*markdown = true
	}
	if *markdown && *base != "" {
		fail(fmt.Errorf("-markdown measures one build; -base is for comparing two"))
	}
	command := commandLine(os.Args[1:]) // before any default is filled in

	dir, err := os.MkdirTemp("", "segdist-targets")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "bench.test")
		if err := goTestC(nil, *bin, "./bench"); err != nil {
			fail(err)
		}
	}
	bins := []string{*bin}
	if *base != "" {
		bins = append(bins, *base)
	}
	peersBin := ""
	if *peers {
		peersBin = filepath.Join(dir, "peers.test")
		if err := goTestC([]string{"CGO_ENABLED=1", "GOEXPERIMENT=simd"}, peersBin, "-tags", "peers", "./bench/peers"); err != nil {
			fmt.Fprintf(os.Stderr, "bench/peers does not build here, no peer rows: %v\n", err)
			peersBin = ""
		}
	}

	pin := []string{}
	if _, err := exec.LookPath("taskset"); err == nil && *cpu >= 0 {
		pin = []string{"taskset", "-c", fmt.Sprint(*cpu)}
	}
	// The invocations of one round: the single-core rows (pinned), the
	// fresh-pair rows (pinned), the kernel.Parallel rows (on every CPU),
	// the peers (pinned; the first build only).
	type invocation struct {
		pin     []string
		bin     string // "" for the build of the round
		pattern string
	}
	single := singlePattern
	if *markdown {
		single = markdownPattern
	}
	rounds := []invocation{{pin, "", single}}
	if *fresh {
		rounds = append(rounds, invocation{pin, "", freshPattern})
	}
	if *parallel {
		rounds = append(rounds, invocation{nil, "", parallelPattern})
	}
	if peersBin != "" {
		rounds = append(rounds, invocation{pin, peersBin, peersPattern})
	}
	results := make([][]run, len(bins)) // per binary, per invocation
	for i := range *runs {
		for b, path := range bins {
			fmt.Fprintf(os.Stderr, "invocation %d of %d: %s\n", i+1, *runs, path)
			r := run{}
			for _, inv := range rounds {
				exe := path
				if inv.bin != "" {
					if b > 0 {
						continue
					}
					exe = inv.bin
				}
				out, err := invoke(inv.pin, exe, inv.pattern, *benchtime)
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

	if *markdown {
		m := thisMachine(command, *runs)
		if len(pin) > 0 {
			m.pinned = fmt.Sprintf("CPU %d (`taskset -c %d`)", *cpu, *cpu)
		}
		var sec bytes.Buffer
		printMarkdown(&sec, m, markdownRows(measures, targets), results[0])
		os.Stdout.Write(sec.Bytes())
		if *write != "" {
			old, err := os.ReadFile(*write)
			if err != nil && !os.IsNotExist(err) {
				fail(err)
			}
			if err := os.WriteFile(*write, []byte(updateDoc(string(old), sec.String())), 0o644); err != nil {
				fail(err)
			}
			fmt.Fprintf(os.Stderr, "wrote the section %q of %s\n", m.heading(), *write)
		}
		return
	}

	fmt.Printf("Performance ratios: %d invocation(s) of %s", *runs, bins[0])
	if len(bins) > 1 {
		fmt.Printf(" alternating with %s", bins[1])
	}
	fmt.Printf(", -test.benchtime %s", *benchtime)
	if len(pin) > 0 {
		fmt.Printf(", single-core rows on CPU %d", *cpu)
	}
	fmt.Println(". Each ratio is the median of the per-invocation ratios (range in parentheses).")
	fmt.Println()
	printTable(os.Stdout, targets, bins, results)
}

// goTestC builds the test binary of a package (go test -c -o out args...)
// with env added to the environment.
func goTestC(env []string, out string, args ...string) error {
	build := exec.Command("go", append([]string{"test", "-c", "-o", out}, args...)...)
	build.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	build.Stdout, build.Stderr = &stderr, &stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go test -c %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return nil
}

// thisMachine describes this CPU, the tree's commit and today for the
// -markdown section.
func thisMachine(command string, runs int) machine {
	c := cpuid.CPU
	name := strings.TrimSpace(c.BrandName)
	if name == "" {
		name = c.VendorString
	}
	if name == "" || name == "Unknown" {
		name = runtime.GOARCH
	}
	if c.Family != 0 || c.Model != 0 {
		name += fmt.Sprintf(" (family %d, model %d)", c.Family, c.Model)
	}
	return machine{
		cpu: name,
		caches: fmt.Sprintf("%d logical CPUs, L1D %s, L2 %s, L3 %s", runtime.NumCPU(),
			cacheSize(c.Cache.L1D), cacheSize(c.Cache.L2), cacheSize(c.Cache.L3)),
		commit:  gitCommit(),
		date:    time.Now().UTC().Format("2006-01-02"),
		command: command,
		runs:    runs,
		paths:   kernel.Available(),
		best:    kernel.ISA(),
	}
}

// gitCommit returns git rev-parse --short HEAD, with "-dirty" when git
// status --porcelain lists anything ("unknown" outside a git tree).
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain").Output(); err != nil || len(bytes.TrimSpace(st)) > 0 {
		commit += "-dirty"
	}
	return commit
}

// commandLine is the command that ran this program, as the markdown
// section quotes it.
func commandLine(args []string) string {
	parts := []string{"go run ./bench/targets"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$*?|&;<>()[]{}\\`") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// cacheSize formats a cache size from cpuid (bytes; unknown when not
// positive).
func cacheSize(b int) string {
	switch {
	case b <= 0:
		return "unknown"
	case b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
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

// printTable writes one markdown row per ratio and path that the first
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
