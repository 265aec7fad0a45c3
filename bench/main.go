// Command bench is segdist's main job: the narrowphase of a capsule scene.
//
// It builds a scene of -n capsules (random positions, orientations and
// sizes, with spheres and stacks of parallel capsules), finds the
// candidate pairs with a uniform-grid broadphase, and runs the batch of
// candidate pairs through every kernel path this CPU offers
// (kernel.Available(), or the -isa list) and through the scalar float64
// reference. For each path it reports the median time per pair, the
// speedup over the reference, the worst error of any lane, the number of
// contacts (pairs whose axes are within the sum of the radii) and the
// number of lanes whose bits differ from the pure-Go path.
//
// Every lane of every path is verified against fallback.ReferenceF32: the
// distance and the distance between the reported points must be within 8
// eps32 x scale of the reference distance (eps32 = 2^-23, scale = the
// pair's largest |coordinate|), S and T in [0,1], no NaN. Every path must
// be bit-identical to "go" and find the same contacts. bench exits with
// status 1 if any check fails, 2 on a usage error.
//
//	go run ./bench                 # 4,000 capsules, every path
//	go run ./bench -n 200          # the quick CI run
//	go run ./bench -isa avx2,go    # some paths only
//	go run ./bench -json           # one JSON object per row on stdout
//	go run ./bench -n 1000000      # a large scene (progress on stderr)
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// knownISAs are the path names kernel may offer, best first.
var knownISAs = []string{"avx512", "avx2", "go"}

// config holds the command-line flags.
type config struct {
	n        int
	seed     uint64
	isa      string
	json     bool
	reps     int
	minRep   time.Duration
	progress bool
}

func main() {
	var cfg config
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	fs.IntVar(&cfg.n, "n", 4000, "number of `capsules` in the scene (the broadphase finds about 2.3 candidate pairs per capsule)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "random seed of the scene")
	fs.StringVar(&cfg.isa, "isa", "", "comma-separated `paths` to run (default: every path in kernel.Available())")
	fs.BoolVar(&cfg.json, "json", false, "print the rows as JSON, one object per line, on stdout (the header goes to stderr)")
	fs.IntVar(&cfg.reps, "reps", 7, "timed repetitions per path; the median is reported")
	fs.DurationVar(&cfg.minRep, "mintime", 20*time.Millisecond, "minimum duration of one timed repetition")
	fs.BoolVar(&cfg.progress, "v", false, "show progress on stderr (automatic from 100,000 capsules)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./bench [flags]\n\n")
		fmt.Fprintf(fs.Output(), "Builds a capsule scene, runs its broadphase candidate pairs through every\n")
		fmt.Fprintf(fs.Output(), "kernel path, verifies every lane against the float64 reference and\n")
		fmt.Fprintf(fs.Output(), "prints a throughput table. Exit status 1: a lane failed verification.\n\n")
		fs.PrintDefaults()
	}
	fs.Parse(os.Args[1:])
	if fs.NArg() > 0 {
		usageError(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if cfg.n < 2 {
		usageError(fmt.Errorf("-n %d: the scene needs at least 2 capsules", cfg.n))
	}
	if cfg.reps < 1 {
		usageError(fmt.Errorf("-reps %d: need at least 1", cfg.reps))
	}
	isas, err := ParseISAs(cfg.isa, kernel.Available())
	if err != nil {
		usageError(err)
	}
	cfg.progress = cfg.progress || cfg.n >= 100_000

	ok, err := run(cfg, isas, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func usageError(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	fmt.Fprintln(os.Stderr, "run 'go run ./bench -h' for usage")
	os.Exit(2)
}

// ParseISAs turns the -isa flag into the list of paths to run, in the
// order of available (best first), without duplicates. An empty flag
// means every available path; "reference" is accepted and ignored (its row
// is always printed). A name that is not a path at all, or a path
// this CPU or build cannot run, is an error that says which.
func ParseISAs(flagValue string, available []string) ([]string, error) {
	if strings.TrimSpace(flagValue) == "" {
		return slices.Clone(available), nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(flagValue, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "" || name == refISA: // the reference row is always there
			continue
		case slices.Contains(available, name):
			want[name] = true
		case slices.Contains(knownISAs, name):
			return nil, fmt.Errorf("-isa %s: path %q is not available on this CPU and build (available: %s)",
				flagValue, name, strings.Join(available, ", "))
		default:
			return nil, fmt.Errorf("-isa %s: unknown path %q (paths: %s; available here: %s)",
				flagValue, name, strings.Join(knownISAs, ", "), strings.Join(available, ", "))
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("-isa %q names no path (available: %s)", flagValue, strings.Join(available, ", "))
	}
	var out []string
	for _, a := range available {
		if want[a] {
			out = append(out, a)
		}
	}
	return out, nil
}

// logger prints progress lines with the elapsed time on stderr.
type logger struct {
	w     io.Writer
	on    bool
	start time.Time
}

func (l *logger) printf(format string, args ...any) {
	if l.on {
		fmt.Fprintf(l.w, "[%6.1fs] %s\n", time.Since(l.start).Seconds(), fmt.Sprintf(format, args...))
	}
}

// run does the whole job and writes the report to stdout (header, table
// and summary; with -json the rows on stdout and the rest on stderr). It
// returns ok = false if any check failed, and an error only if it could
// not run at all.
func run(cfg config, isas []string, stdout, stderr io.Writer) (ok bool, err error) {
	log := &logger{w: stderr, on: cfg.progress, start: time.Now()}
	human := stdout
	if cfg.json {
		human = stderr
	}

	log.printf("scene: %d capsules, seed %d", cfg.n, cfg.seed)
	caps := NewScene(cfg.n, cfg.seed)
	log.printf("broadphase")
	t0 := time.Now()
	lastPct := -1
	cands := Broadphase(caps, func(done, total int) {
		if pct := 100 * done / total; pct/10 != lastPct/10 {
			lastPct = pct
			log.printf("broadphase: %d%% of %d cells", pct, total)
		}
	})
	bpTime := time.Since(t0)
	np := len(cands)
	if np == 0 {
		return false, errors.New("the broadphase found no candidate pairs; use a larger -n")
	}
	log.printf("broadphase: %d candidate pairs in %v; filling the batch", np, bpTime.Round(time.Millisecond))
	pairs := FillPairs(caps, cands)
	spheres, stacked := sceneStats(caps)

	WriteHeader(human)
	fmt.Fprintf(human, "scene:     %d capsules (%d spheres, %d parallel), seed %d, box %.1f^3; grid broadphase %v: %d candidate pairs (%.1f per capsule)\n",
		len(caps), spheres, stacked, cfg.seed, BoxSide(cfg.n), bpTime.Round(time.Microsecond), np, float64(np)/float64(len(caps)))
	fmt.Fprintf(human, "timing:    median of %d repetitions of at least %v each, one goroutine\n\n", cfg.reps, cfg.minRep)

	// The reference: timed over the whole batch; its distances are what
	// every lane is verified against.
	log.printf("reference: timing %d pairs", np)
	refD2 := make([]float64, np)
	var sink float64
	refTime := Measure(func() { sink += ReferencePass(pairs, refD2) }, cfg.reps, cfg.minRep)
	refNs := refTime.NsPer(np)
	refContacts := Contacts(caps, cands, func(k int) float64 { return refD2[k] })
	_ = sink

	// The go path's bits, which every path must reproduce.
	kgo, found := kernel.Lookup("go")
	if !found {
		return false, errors.New(`kernel.Lookup("go") failed: the pure-Go path must always be available`)
	}
	golden := soa.NewResults(np)
	kgo.BatchClosest(golden, pairs)

	var rows []Row
	var problems []string
	res := soa.NewResults(np)
	for _, isa := range isas {
		k, found := kernel.Lookup(isa)
		if !found || k.ISA() != isa {
			return false, fmt.Errorf("kernel.Lookup(%q) returned (%q, %v): the path is in Available() but cannot be looked up", isa, k.ISA(), found)
		}
		log.printf("%s: timing %d pairs", isa, np)
		clear(res.S)
		clear(res.T)
		clear(res.Dist2)
		tm := Measure(func() { k.BatchClosest(res, pairs) }, cfg.reps, cfg.minRep)
		log.printf("%s: verifying", isa)
		v := Verify(pairs, res, refD2, golden)
		contacts := Contacts(caps, cands, func(k int) float64 { return float64(res.Dist2[k]) })
		ns := tm.NsPer(np)
		rows = append(rows, Row{ISA: isa, Kernel: "closest", Pairs: np, NsPerPair: ns, Speedup: refNs / ns,
			WorstErrEps: v.Worst, Contacts: contacts, Mismatches: v.Mismatches})
		if v.Failed > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d of %d lanes fail verification (worst error %.3g eps x scale; limit %d)", isa, v.Failed, np, v.Worst, maxErrEps))
		}
		if v.Mismatches > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d of %d lanes are not bit-identical to the go path", isa, v.Mismatches, np))
		}
		for _, f := range v.Examples {
			fmt.Fprintf(stderr, "bench: %s: %v\n", isa, f)
		}
	}
	rows = append(rows, Row{ISA: refISA, Kernel: "closest", Pairs: np, NsPerPair: refNs, Speedup: 1,
		WorstErrEps: 0, Contacts: refContacts})

	for _, r := range rows[:len(rows)-1] {
		if r.Contacts != rows[0].Contacts {
			problems = append(problems, fmt.Sprintf("contact counts differ between paths: %s %d, %s %d",
				rows[0].ISA, rows[0].Contacts, r.ISA, r.Contacts))
		}
	}

	if cfg.json {
		if err := WriteJSON(stdout, rows); err != nil {
			return false, err
		}
	}
	if err := WriteTable(human, rows); err != nil {
		return false, err
	}
	fmt.Fprintln(human)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(human, "FAIL: %s\n", p)
		}
		return false, nil
	}
	fmt.Fprintf(human, "verified: all %d lanes of %d path(s) within %d eps32 x scale of the float64 reference, S and T in [0,1], bit-identical to go\n",
		np, len(isas), maxErrEps)
	if c := rows[0].Contacts; c != refContacts {
		fmt.Fprintf(human, "note:      the reference finds %d contacts, the kernels %d: pairs within rounding of touching\n", refContacts, c)
	}
	return true, nil
}

// sceneStats counts the zero-length capsules and those parallel to the
// capsule before them (the stacks).
func sceneStats(caps []Capsule) (spheres, stacked int) {
	dir := func(c Capsule) [3]float32 {
		return [3]float32{c.P1[0] - c.P0[0], c.P1[1] - c.P0[1], c.P1[2] - c.P0[2]}
	}
	inStack := false
	for i, c := range caps {
		if c.P0 == c.P1 {
			spheres++
			inStack = false
			continue
		}
		if i > 0 && caps[i-1].P0 != caps[i-1].P1 && parallel(dir(caps[i-1]), dir(c)) {
			if !inStack {
				stacked++ // the first of the stack
			}
			stacked++
			inStack = true
		} else {
			inStack = false
		}
	}
	return spheres, stacked
}

// parallel reports whether two float32 directions are parallel to within
// float32 rounding of the endpoints.
func parallel(u, v [3]float32) bool {
	var cr, uu, vv float64
	c := [3]float64{
		float64(u[1])*float64(v[2]) - float64(u[2])*float64(v[1]),
		float64(u[2])*float64(v[0]) - float64(u[0])*float64(v[2]),
		float64(u[0])*float64(v[1]) - float64(u[1])*float64(v[0]),
	}
	for k := range 3 {
		cr += c[k] * c[k]
		uu += float64(u[k]) * float64(u[k])
		vv += float64(v[k]) * float64(v[k])
	}
	return cr <= 1e-9*uu*vv
}
