// Command bench is segdist's main job: the narrowphase of a capsule scene.
//
// It builds a scene of -n capsules (random positions, orientations and
// sizes, with spheres and stacks of parallel capsules), finds the
// candidate pairs with a uniform-grid broadphase, and runs them through
// three kernels on every path this CPU offers (kernel.Available(), or the
// -isa list) and through each kernel's scalar float64 reference:
//
//   - closest: kernel.BatchClosest on the pairs' axes laid out in a
//     soa.Pairs. Every lane is verified against fallback.ReferenceF32: the
//     distance and the distance between the reported points within 8
//     eps32 x scale of the reference distance (eps32 = 2^-23, scale = the
//     pair's largest |coordinate|), S and T in [0,1], no NaN.
//   - contacts: Kernel.CompactContacts on the scene as soa.Capsules records and
//     the pairs as a soa.IndexPairs, with the -margin. Every path must find
//     the same contacts with all 13 streams bit-identical to the go path;
//     every contact is checked against fallback.ReferenceContact with
//     verify.CheckContact (Count outside the documented borderline bands,
//     unit normal within 4 eps32, its direction, midway points, two-point
//     manifolds) and its depth within 8 eps32 x scale (scale including the
//     radii and margin); every pair left out must be apart per the go
//     path's BatchContacts, and the reference must agree (VerifyContacts).
//   - point: Kernel.BatchClosestPoint, the end A of capsule I (a sphere's
//     centre) against capsule J's axis for every pair, verified against
//     fallback.ReferenceClosestPoint within 8 eps32 x scale.
//
// Each kernel also runs in float64 (BatchClosest64, CompactContacts64,
// BatchClosestPoint64) on the same pairs, bit for bit against the go path;
// the closest and point kernels within 8 eps64 x scale of exact rational
// arithmetic, the contacts' one-point depths against the float64
// reference.
//
// For each kernel and path it reports the median time per pair, the
// speedup over that kernel's reference, the worst error, the number of
// contacts and the number of lanes (rows) whose bits differ from the go
// path; then, for the contacts kernel, the end-to-end comparison with
// copying the indexed pairs' axes into a soa.Pairs and running BatchClosest.
//
// Then a rigid-body scene (rigid.go; -rigid-bodies, -rigid-steps): capsules
// and spheres dropped into a box of five planes, with segdist as the whole
// narrowphase of a minimal sequential-impulse engine. Each substep runs
// kernel.CapsulesFromPoses, a grid broadphase into a soa.IndexPairs,
// CompactContacts, CompactPlaneContacts and the solver; bench prints the
// time per step of each phase and the end state (NaN, bodies below the
// ground or beyond the walls, at rest). Every substep's records and rows
// must be bit-identical on every path and the go path, and one substep in
// ten is checked against the references: the records against
// fallback.PoseCapsuleLane, the capsule rows as the contacts kernel's
// above, every plane pair against exact arithmetic
// (verify.CheckPlaneContact).
//
// Then a CCD scene (ccd.go; -ccd-shots): fast thin capsules and a few
// spheres shot through a pile of resting capsules within one step, moving
// hundreds of their radii. kernel.CapsulesFromPoses gives the start and
// end stores, a broadphase of the swept bounds the pairs,
// kernel.CompactTOI the time of impact of every pair that is not a proven
// miss and kernel.EarliestHits each body's earliest impact. bench prints
// the hits, how many of them the contact kernel misses at the end and the
// start pose, and the time per pair of each path; every path's BatchTOI
// and CompactTOI rows must equal fallback.TOILane's bit for bit, and every
// row (up to 4,096, those that are not a Miss first) must pass the
// certified checker (verify.CheckTOI: no missed, late or false result) and
// agree with fallback.ReferenceTOI.
//
// bench exits with status 1 if any check fails, 2 on a usage error.
//
//	go run ./bench                 # 10,000 capsules, 400 bodies, 64 CCD projectiles, every path (about 5 s)
//	go run ./bench -n 200          # the quick CI run (a rigid-body scene of 200 bodies, 20 CCD projectiles)
//	go run ./bench -rigid-bodies 0 # without the rigid-body scene
//	go run ./bench -ccd-shots 0    # without the CCD scene
//	go run ./bench -isa avx2,go    # some paths only
//	go run ./bench -margin 0       # contacts only where the capsules overlap or touch
//	go run ./bench -json           # one JSON object per row on stdout
//	go run ./bench -n 1000000      # a large scene (progress on stderr)
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// knownISAs are the path names kernel may offer, best first.
var knownISAs = []string{"avx512", "avx2", "go"}

// config holds the command-line flags.
type config struct {
	n        int
	seed     uint64
	margin   float64
	isa      string
	json     bool
	reps     int
	minRep   time.Duration
	progress bool
	sweep    bool

	// The rigid-body scene (rigid.go); 0 bodies or steps skips it.
	rigidBodies, rigidSteps int

	// The CCD scene (ccd.go): projectiles; 0 skips it.
	ccdShots int
}

func main() {
	var cfg config
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	fs.IntVar(&cfg.n, "n", 10000, "number of `capsules` in the scene (the broadphase finds about 2.3 candidate pairs per capsule)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "random seed of the scene")
	fs.Float64Var(&cfg.margin, "margin", defaultMargin, "contact `margin` of the contacts kernel: pairs within r1 + r2 + margin touch")
	fs.StringVar(&cfg.isa, "isa", "", "comma-separated `paths` to run (default: every path in kernel.Available())")
	fs.BoolVar(&cfg.json, "json", false, "print the rows as JSON, one object per line, on stdout (the header goes to stderr)")
	fs.IntVar(&cfg.reps, "reps", 7, "timed repetitions per path; the median is reported")
	fs.DurationVar(&cfg.minRep, "mintime", 20*time.Millisecond, "minimum duration of one timed repetition")
	fs.BoolVar(&cfg.sweep, "sweep", false, "instead of the scene: time BatchClosest and StreamOnly, float32 and float64, on every path at batch sizes 16 to 2^20 (the rows make plot draws)")
	fs.BoolVar(&cfg.progress, "v", false, "show progress on stderr (automatic from 100,000 capsules)")
	fs.IntVar(&cfg.rigidBodies, "rigid-bodies", defaultRigidBodies, "`bodies` of the rigid-body scene, at most -n unless given (0 skips the scene)")
	fs.IntVar(&cfg.rigidSteps, "rigid-steps", defaultRigidSteps, "`steps` of 1/60 s of the rigid-body scene (0 skips it)")
	fs.IntVar(&cfg.ccdShots, "ccd-shots", defaultCCDShots, "`projectiles` of the CCD scene, shot through a pile of 8 times as many capsules; at most -n/10 unless given (0 skips the scene)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./bench [flags]\n\n")
		fmt.Fprintf(fs.Output(), "Builds a capsule scene, runs its broadphase candidate pairs through the\n")
		fmt.Fprintf(fs.Output(), "closest, contacts and point kernels on every path, verifies every lane\n")
		fmt.Fprintf(fs.Output(), "against the float64 references and the go path's bits and prints a\n")
		fmt.Fprintf(fs.Output(), "throughput table; then runs a rigid-body scene with segdist as its\n")
		fmt.Fprintf(fs.Output(), "whole narrowphase, verified the same way, and prints the time per step\n")
		fmt.Fprintf(fs.Output(), "of each phase; then a CCD scene, fast thin capsules shot through a pile,\n")
		fmt.Fprintf(fs.Output(), "with the time of impact of every pair verified and timed. Exit status 1:\n")
		fmt.Fprintf(fs.Output(), "a check failed.\n\n")
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
	rigidSet, ccdSet := false, false
	fs.Visit(func(f *flag.Flag) {
		rigidSet = rigidSet || f.Name == "rigid-bodies"
		ccdSet = ccdSet || f.Name == "ccd-shots"
	})
	if !rigidSet {
		cfg.rigidBodies = min(cfg.rigidBodies, cfg.n)
	}
	if !ccdSet {
		cfg.ccdShots = min(cfg.ccdShots, max(cfg.n/10, 1))
	}
	if cfg.rigidBodies < 0 || cfg.rigidSteps < 0 {
		usageError(fmt.Errorf("-rigid-bodies %d -rigid-steps %d: must be >= 0", cfg.rigidBodies, cfg.rigidSteps))
	}
	if cfg.ccdShots < 0 {
		usageError(fmt.Errorf("-ccd-shots %d: must be >= 0", cfg.ccdShots))
	}
	isas, err := parseISAs(cfg.isa, kernel.Available())
	if err != nil {
		usageError(err)
	}
	cfg.progress = cfg.progress || cfg.n >= 100_000

	if cfg.sweep {
		rows := sweep(isas, cfg.reps, cfg.minRep)
		if cfg.json {
			err = writeSweepJSON(os.Stdout, rows)
		} else {
			err = writeTable(os.Stdout, rows)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
		return
	}
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

// parseISAs turns the -isa flag into the list of paths to run, in the
// order of available (best first), without duplicates. An empty flag
// means every available path; "reference" is accepted and ignored (its row
// is always printed). A name that is not a path at all, or a path
// this CPU or build cannot run, is an error that says which.
func parseISAs(flagValue string, available []string) ([]string, error) {
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
	if !(cfg.margin >= 0 && cfg.margin <= math.MaxFloat32) {
		return false, fmt.Errorf("-margin %v: must be finite and >= 0", cfg.margin)
	}
	margin := float32(cfg.margin)

	log.printf("scene: %d capsules, seed %d", cfg.n, cfg.seed)
	caps := newScene(cfg.n, cfg.seed)
	log.printf("broadphase")
	t0 := time.Now()
	lastPct := -1
	cands := broadphase(caps, func(done, total int) {
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
	pairs := fillPairs(caps, cands)
	spheres, stacked := sceneStats(caps)

	writeHeader(human)
	fmt.Fprintf(human, "scene:     %d capsules (%d spheres, %d parallel), seed %d, box %.1f^3; grid broadphase %v: %d candidate pairs (%.1f per capsule)\n",
		len(caps), spheres, stacked, cfg.seed, boxSide(cfg.n), bpTime.Round(time.Microsecond), np, float64(np)/float64(len(caps)))
	fmt.Fprintf(human, "timing:    median of %d repetitions of at least %v each, one goroutine\n\n", cfg.reps, cfg.minRep)

	kgo, found := kernel.Lookup("go")
	if !found {
		return false, errors.New(`kernel.Lookup("go") failed: the pure-Go path must always be available`)
	}
	kernels := make([]kernel.Kernel, len(isas))
	for i, isa := range isas {
		k, found := kernel.Lookup(isa)
		if !found || k.ISA() != isa {
			return false, fmt.Errorf("kernel.Lookup(%q) returned (%q, %v): the path is in Available() but cannot be looked up", isa, k.ISA(), found)
		}
		kernels[i] = k
	}
	measure := func(pass func()) timing { return measure(pass, cfg.reps, cfg.minRep) }

	var rows []row
	var problems, notes []string
	problemf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	// reportVerdict records the failures of a lane-by-lane verdict (the
	// closest and point kernels) and prints its examples.
	reportVerdict := func(kern, isa string, np int, v verdict) {
		if v.Failed > 0 {
			problemf("%s: %s: %d of %d lanes fail verification (worst error %.3g eps x scale; limit %d)", kern, isa, v.Failed, np, v.Worst, maxErrEps)
		}
		if v.Mismatches > 0 {
			problemf("%s: %s: %d of %d lanes are not bit-identical to the go path", kern, isa, v.Mismatches, np)
		}
		for _, f := range v.Examples {
			fmt.Fprintf(stderr, "bench: %s: %s: %v\n", kern, isa, f)
		}
	}
	// sameContacts fails the check that every path of a kernel finds the
	// same contacts (the rows of the paths are the last len(isas) rows).
	sameContacts := func(kern string) {
		paths := rows[len(rows)-len(isas):]
		for _, r := range paths {
			if r.Contacts != paths[0].Contacts {
				problemf("%s: contact counts differ between paths: %s %d, %s %d", kern, paths[0].ISA, paths[0].Contacts, r.ISA, r.Contacts)
			}
		}
	}

	// ---- closest: BatchClosest on pre-laid-out pairs -------------------
	// The reference: timed over the whole batch; its distances are what
	// every lane is verified against.
	log.printf("closest: reference, %d pairs", np)
	refD2 := make([]float64, np)
	var sink float64
	refNs := measure(func() { sink += referencePass(pairs, refD2) }).NsPer(np)
	refContacts := countTouching(caps, cands, func(k int) float64 { return refD2[k] })

	// The go path's bits, which every path must reproduce.
	golden := soa.NewResults(np)
	kgo.BatchClosest(golden, pairs)

	closestNs := map[string]float64{}
	res := soa.NewResults(np)
	for _, k := range kernels {
		isa := k.ISA()
		log.printf("closest: %s", isa)
		clear(res.S)
		clear(res.T)
		clear(res.Dist2)
		ns := measure(func() { k.BatchClosest(res, pairs) }).NsPer(np)
		closestNs[isa] = ns
		v := verifyClosest(pairs, res, refD2, golden)
		contacts := countTouching(caps, cands, func(k int) float64 { return float64(res.Dist2[k]) })
		rows = append(rows, row{ISA: isa, Kernel: "closest", Pairs: np, NsPerPair: ns, Speedup: refNs / ns,
			WorstErrEps: v.Worst, Contacts: contacts, Mismatches: v.Mismatches})
		reportVerdict("closest", isa, np, v)
	}
	sameContacts("closest")
	rows = append(rows, row{ISA: refISA, Kernel: "closest", Pairs: np, NsPerPair: refNs, Speedup: 1, Contacts: refContacts})
	if c := rows[0].Contacts; c != refContacts {
		notes = append(notes, fmt.Sprintf("closest: the reference finds %d contacts, the kernels %d: pairs within rounding of touching", refContacts, c))
	}

	// ---- closest, float64: BatchClosest64 on the same pairs ------------
	// Verified against the exact oracle (the float64 reference is not more
	// accurate than a float64 kernel); the reference time is the same.
	pairs64 := verify.WidenPairs(pairs)
	log.printf("closest64: exact oracle, %d pairs", np)
	exact := exactDistances(pairs64)
	golden64 := soa.NewResults64(np)
	kgo.BatchClosest64(golden64, pairs64)
	res64 := soa.NewResults64(np)
	for _, k := range kernels {
		isa := k.ISA()
		log.printf("closest64: %s", isa)
		clear(res64.S)
		clear(res64.T)
		clear(res64.Dist2)
		ns := measure(func() { k.BatchClosest64(res64, pairs64) }).NsPer(np)
		v := verifyClosest64(pairs64, res64, exact, golden64)
		contacts := countTouching(caps, cands, func(k int) float64 { return res64.Dist2[k] })
		rows = append(rows, row{ISA: isa, Kernel: "closest", Pairs: np, NsPerPair: ns, Speedup: refNs / ns,
			WorstErrEps: v.Worst, Contacts: contacts, Mismatches: v.Mismatches, Precision: "float64"})
		reportVerdict("closest64", isa, np, v)
	}
	sameContacts("closest")

	// ---- contacts: CompactContacts on the indexed pairs ----------------
	scaps, ip := toCapsules(caps), toIndexPairs(cands)
	log.printf("contacts: reference, %d pairs", np)
	refCounts := make([]int, np)
	refCNs := measure(func() { sink += referenceContactPass(scaps, ip, margin, refCounts) }).NsPer(np)
	refTouch := 0
	for _, c := range refCounts {
		if c > 0 {
			refTouch++
		}
	}
	set := newContactSet(kgo, scaps, ip, margin)
	var e2e []endToEnd
	cres := soa.NewContacts(np)
	gathered := soa.NewPairs(np)
	var verdicts []contactVerdict
	for _, k := range kernels {
		isa := k.ISA()
		log.printf("contacts: %s", isa)
		var n int
		clearContacts(cres)
		ns := measure(func() { n = k.CompactContacts(cres, scaps, ip, margin) }).NsPer(np)
		v := verifyContacts(set, cres, n)
		verdicts = append(verdicts, v)
		rows = append(rows, row{ISA: isa, Kernel: "contacts", Pairs: np, NsPerPair: ns, Speedup: refCNs / ns,
			WorstErrEps: v.Worst, Contacts: n, Mismatches: v.Mismatches})
		if v.Failed > 0 {
			problemf("contacts: %s: %d checks fail (%d touching pairs missing; worst depth error %.3g eps x scale, limit %d)", isa, v.Failed, v.Missing, v.Worst, verify.DepthTol)
		}
		if v.Mismatches > 0 {
			problemf("contacts: %s: %d rows are not bit-identical to the go path (%d contacts, go %d)", isa, v.Mismatches, n, set.GoldenN)
		}
		for _, e := range v.Examples {
			fmt.Fprintf(stderr, "bench: contacts: %s: %s\n", isa, e)
		}

		// End to end: the uncompacted kernel, and the copy into a
		// soa.Pairs that BatchClosest would need.
		log.printf("contacts: %s: end to end", isa)
		batchNs := measure(func() { k.BatchContacts(cres, scaps, ip, margin) }).NsPer(np)
		copyNs := measure(func() { gatherPairs(gathered, scaps, ip) }).NsPer(np)
		clear(res.Dist2)
		copyClosestNs := measure(func() {
			gatherPairs(gathered, scaps, ip)
			k.BatchClosest(res, gathered)
		}).NsPer(np)
		if vv := verifyClosest(gathered, res, refD2, golden); vv.Mismatches > 0 || vv.Failed > 0 {
			problemf("contacts: %s: copy then BatchClosest: %d lanes fail, %d differ from the go path on the laid-out pairs", isa, vv.Failed, vv.Mismatches)
		}
		clear(res.Dist2)
		indexedNs := measure(func() { k.BatchClosestIndexed(res, scaps, ip) }).NsPer(np)
		if vv := verifyClosest(gathered, res, refD2, golden); vv.Mismatches > 0 || vv.Failed > 0 {
			problemf("contacts: %s: BatchClosestIndexed: %d lanes fail, %d differ from the go path on the laid-out pairs", isa, vv.Failed, vv.Mismatches)
		}
		e2e = append(e2e, endToEnd{ISA: isa, Compact: ns, Batch: batchNs, Copy: copyNs, CopyClosest: copyClosestNs,
			Indexed: indexedNs, Closest: closestNs[isa]})
	}
	sameContacts("contacts")
	rows = append(rows, row{ISA: refISA, Kernel: "contacts", Pairs: np, NsPerPair: refCNs, Speedup: 1, Contacts: refTouch})

	// ---- contacts, float64: CompactContacts64 on the same scene ----------
	// Every row bit-identical to the go path's; one-point depths checked
	// against the float64 reference (its distance: r1 + r2 - distance).
	caps64 := verify.WidenCapsules(scaps)
	gold64 := soa.NewContacts64(np)
	goldN64 := kgo.CompactContacts64(gold64, caps64, ip, float64(margin))
	c64 := soa.NewContacts64(np)
	for _, k := range kernels {
		isa := k.ISA()
		log.printf("contacts64: %s", isa)
		var n int
		ns := measure(func() { n = k.CompactContacts64(c64, caps64, ip, float64(margin)) }).NsPer(np)
		v := verifyContacts64(caps64, ip, float64(margin), c64, n, gold64, goldN64)
		rows = append(rows, row{ISA: isa, Kernel: "contacts", Pairs: np, NsPerPair: ns, Speedup: refCNs / ns,
			WorstErrEps: v.Worst, Contacts: n, Mismatches: v.Mismatches, Precision: "float64"})
		reportVerdict("contacts64", isa, np, v)
	}
	sameContacts("contacts")

	// ---- point: BatchClosestPoint, end A of capsule I against capsule J --
	pts := pointBatch(caps, cands)
	log.printf("point: reference, %d pairs", np)
	refP := make([]float64, np)
	refPNs := measure(func() { sink += referencePointPass(pts, refP) }).NsPer(np)
	pointContacts := func(d2 func(k int) float64) int {
		n := 0
		for k, c := range cands {
			if math.Sqrt(d2(k)) <= float64(caps[c.I].R)+float64(caps[c.J].R) {
				n++
			}
		}
		return n
	}
	pgold := soa.NewPointResults(np)
	kgo.BatchClosestPoint(pgold, pts)
	pres := soa.NewPointResults(np)
	for _, k := range kernels {
		isa := k.ISA()
		log.printf("point: %s", isa)
		clear(pres.T)
		clear(pres.Dist2)
		ns := measure(func() { k.BatchClosestPoint(pres, pts) }).NsPer(np)
		v := verifyPoints(pts, pres, refP, pgold)
		rows = append(rows, row{ISA: isa, Kernel: "point", Pairs: np, NsPerPair: ns, Speedup: refPNs / ns,
			WorstErrEps: v.Worst, Contacts: pointContacts(func(k int) float64 { return float64(pres.Dist2[k]) }), Mismatches: v.Mismatches})
		reportVerdict("point", isa, np, v)
	}
	sameContacts("point")
	rows = append(rows, row{ISA: refISA, Kernel: "point", Pairs: np, NsPerPair: refPNs, Speedup: 1,
		Contacts: pointContacts(func(k int) float64 { return refP[k] })})

	// ---- point, float64: BatchClosestPoint64 on the same pairs -----------
	// Verified as segment pairs whose first segment is the point (A = B =
	// P, S = 0) against the exact oracle, and bit for bit against go.
	pts64, asPairs := widenPoints(pts)
	log.printf("point64: exact oracle, %d pairs", np)
	exactP := exactDistances(asPairs)
	pgold64 := soa.NewPointResults64(np)
	kgo.BatchClosestPoint64(pgold64, pts64)
	pres64 := soa.NewPointResults64(np)
	for _, k := range kernels {
		isa := k.ISA()
		log.printf("point64: %s", isa)
		clear(pres64.T)
		clear(pres64.Dist2)
		ns := measure(func() { k.BatchClosestPoint64(pres64, pts64) }).NsPer(np)
		v := verifyClosest64(asPairs, pointAsClosest(pres64), exactP, pointAsClosest(pgold64))
		rows = append(rows, row{ISA: isa, Kernel: "point", Pairs: np, NsPerPair: ns, Speedup: refPNs / ns,
			WorstErrEps: v.Worst, Contacts: pointContacts(func(k int) float64 { return pres64.Dist2[k] }),
			Mismatches: v.Mismatches, Precision: "float64"})
		reportVerdict("point64", isa, np, v)
	}
	sameContacts("point")
	_ = sink

	// ---- report -----------------------------------------------------------
	if cfg.json {
		if err := writeJSON(stdout, rows); err != nil {
			return false, err
		}
	}
	if err := writeTable(human, rows); err != nil {
		return false, err
	}
	fmt.Fprintf(human, "\nend to end, %d indexed pairs over %d capsules, margin %v: is loading the capsules in the contact kernel faster than copying into a soa.Pairs for BatchClosest?\n", np, len(caps), margin)
	if err := writeEndToEnd(human, e2e); err != nil {
		return false, err
	}
	fmt.Fprintln(human)

	// ---- rigid-body scene: segdist as an engine's whole narrowphase ----
	var rigid *rigidResult
	if cfg.rigidBodies > 0 && cfg.rigidSteps > 0 {
		log.printf("rigid: %d bodies, %d steps", cfg.rigidBodies, cfg.rigidSteps)
		r := runRigid(defaultRigid(cfg.rigidBodies, cfg.rigidSteps), kernels, kgo, log)
		rigid = &r
		if err := writeRigid(human, r); err != nil {
			return false, err
		}
		fmt.Fprintln(human)
		problems = append(problems, r.problems...)
		for _, e := range r.examples {
			fmt.Fprintf(stderr, "bench: %s\n", e)
		}
	}

	// ---- CCD scene: fast thin capsules shot through a pile -------------
	var ccd *ccdResult
	if cfg.ccdShots > 0 {
		log.printf("ccd: %d projectiles", cfg.ccdShots)
		r := runCCD(defaultCCD(cfg.ccdShots, cfg.seed), kernels, kgo, measure)
		ccd = &r
		if err := writeCCD(human, r); err != nil {
			return false, err
		}
		fmt.Fprintln(human)
		problems = append(problems, r.problems...)
		for _, e := range r.examples {
			fmt.Fprintf(stderr, "bench: %s\n", e)
		}
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(human, "FAIL: %s\n", p)
		}
		return false, nil
	}
	fmt.Fprintf(human, "verified:  closest: all %d lanes of %d path(s) within %d eps32 x scale of the float64 reference, S and T in [0,1], bit-identical to go\n",
		np, len(isas), maxErrEps)
	fmt.Fprintf(human, "verified:  closest float64: all %d lanes of %d path(s) within %d eps64 x scale of exact arithmetic (distance and reported points), S and T in [0,1], bit-identical to go\n",
		np, len(isas), maxErrEps)
	v := verdicts[0]
	twoPoint := 0
	for r := range set.GoldenN {
		if set.Golden.Count[r] == 2 {
			twoPoint++
		}
	}
	fmt.Fprintf(human, "verified:  contacts: %d contacts (%d two-point) of %d pairs on every path, all 13 streams bit-identical to go; every contact checked against\n"+
		"           fallback.ReferenceContact (depth within %d eps32 x scale, unit normal within %d eps32, normal direction, midway points,\n"+
		"           manifolds), the %d other pairs apart per BatchContacts and the reference; %d pairs in borderline bands (%d counted differently by the reference)\n",
		set.GoldenN, twoPoint, np, verify.DepthTol, verify.NormalLenTol, np-set.GoldenN, v.Borderline, v.RefDisagree)
	fmt.Fprintf(human, "verified:  contacts float64: %d contacts on every path, all 13 streams bit-identical to go; one-point depths within %d eps64 x scale of fallback.ReferenceContact\n",
		goldN64, maxContact64Eps)
	fmt.Fprintf(human, "verified:  point: all %d lanes of %d path(s) within %d eps32 x scale of fallback.ReferenceClosestPoint, T in [0,1], bit-identical to go\n",
		np, len(isas), maxErrEps)
	fmt.Fprintf(human, "verified:  point float64: all %d lanes of %d path(s) within %d eps64 x scale of exact arithmetic (distance and reported point), T in [0,1], bit-identical to go\n",
		np, len(isas), maxErrEps)
	if rigid != nil {
		writeRigidVerified(human, *rigid)
		if !rigid.atRest {
			notes = append(notes, fmt.Sprintf("rigid: not at rest after %d steps (largest speed %.3g)", cfg.rigidSteps, max(rigid.maxSpeed, rigid.maxSpin)))
		}
	}
	if ccd != nil {
		writeCCDVerified(human, *ccd)
	}
	if set.GoldenN != refTouch {
		notes = append(notes, fmt.Sprintf("contacts: the reference finds %d touching pairs, the kernels %d: pairs in the borderline bands", refTouch, set.GoldenN))
	}
	for _, n := range notes {
		fmt.Fprintf(human, "note:      %s\n", n)
	}
	return true, nil
}

// clearContacts zeroes every row of c.
func clearContacts(c *soa.Contacts) {
	clear(c.Pair)
	clear(c.Count)
	for _, s := range [][]float32{c.Depth1, c.Depth2, c.NX, c.NY, c.NZ, c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z} {
		clear(s)
	}
}

// sceneStats counts the zero-length capsules and those parallel to the
// capsule before them (the stacks).
func sceneStats(caps []capsule) (spheres, stacked int) {
	dir := func(c capsule) [3]float32 {
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
