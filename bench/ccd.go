package main

// The CCD scene: fast thin capsules and a few spheres shot through a pile
// of resting capsules within one step, each moving hundreds of its radii,
// so that the contact kernel, which sees only the poses at the start and
// the end of the step, misses most of the hits. The engine's continuous
// collision detection is segdist's: kernel.CapsulesFromPoses for the start
// and end stores, a swept-bounds broadphase into a soa.IndexPairs,
// kernel.CompactTOI for every pair that is not a proven miss and
// kernel.EarliestHits for each body's earliest impact, the time an engine
// clamps its motion to.

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"text/tabwriter"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// Parameters of the CCD scene.
const (
	ccdPilePer    = 8    // resting capsules per projectile
	ccdVolumePer  = 0.2  // pile volume per resting capsule, length units cubed
	ccdSphereEach = 8    // every ccdSphereEach-th projectile, and resting capsule, is a sphere
	ccdMaxSpin    = 30.0 // degrees a capsule projectile turns by over the step, at most
	ccdMargin     = 0    // TOI and contacts: a hit is the surfaces touching
	ccdTol        = 1e-4 // the TOI's distance tolerance: 1% of the thinnest projectile's radius
	ccdMaxIter    = 64   // the TOI's MaxIter
	ccdCertified  = 4096 // rows checked against the certified checker and the value reference, at most (about 0.1 ms each)
	ccdRefEval    = 1e6  // evaluations of fallback.ReferenceTOI per row, at most
	ccdRefEps     = 1e-9 // resolution of fallback.ReferenceTOI, relative to the pair's scale
	ccdRefTimeTol = 1e-9 // a reference hit counts as earlier than T below T (1 - ccdRefTimeTol)
)

// defaultCCDShots is the number of projectiles of go run ./bench
// (-ccd-shots).
const defaultCCDShots = 64

// ccdConfig sizes the scene.
type ccdConfig struct {
	shots     int    // projectiles
	pile      int    // resting capsules
	certified int    // rows checked against the certified checker, at most
	seed      uint64 // placement, sizes, speeds and orientations
}

// defaultCCD is the scene of go run ./bench: shots projectiles through
// ccdPilePer times as many resting capsules.
func defaultCCD(shots int, seed uint64) ccdConfig {
	return ccdConfig{shots: shots, pile: ccdPilePer * shots, certified: ccdCertified, seed: seed}
}

// ccdScene is the step: the capsules in their own frames, their poses at
// the start and the end of the step and the world records of both, the
// rotation pads, and the pairs of the swept-bounds broadphase. Capsules
// 0 to pile-1 rest; the projectiles follow. Each pair is a projectile (I)
// against a resting capsule or a later projectile (J).
type ccdScene struct {
	cfg          ccdConfig
	side, height float32 // the pile's box: [-side/2, side/2] x [0, height] x [-side/2, side/2]
	spheres      int     // projectiles that are spheres
	minMove      float32 // the least and largest distance a projectile moves, in its radii
	maxMove      float32

	local      soa.Capsules
	start, end *soa.Poses
	capsStart  soa.Capsules
	capsEnd    soa.Capsules
	pad        []float32
	pairs      *soa.IndexPairs
	params     kernel.TOIParams
}

// newCCDScene builds the scene: the pile at random places and
// orientations in its box, the projectiles starting left of it (x below
// -side/2) at random heights and depths and moving mostly along +x by 0.5
// to 1 box widths plus a little, some of them ending inside the pile;
// capsule projectiles tumble by up to ccdMaxSpin degrees about a random
// axis, covered by fallback.SweepPad. The same config gives the same
// scene on every run. k computes the records.
func newCCDScene(cfg ccdConfig, k kernel.Kernel) *ccdScene {
	r := rand.New(rand.NewPCG(cfg.seed, 0xccd))
	n := cfg.pile + cfg.shots
	side := float32(math.Cbrt(2 * ccdVolumePer * float64(cfg.pile)))
	s := &ccdScene{cfg: cfg, side: side, height: side / 2, minMove: float32(math.Inf(1))}
	s.local = soa.NewCapsules(n)
	s.start, s.end = soa.NewPoses(n), soa.NewPoses(n)
	s.pad = make([]float32, n)
	uni := func(lo, hi float64) float32 { return float32(lo + (hi-lo)*r.Float64()) }
	for i := range cfg.pile {
		hl, rad := uni(0.1, 0.3), uni(0.05, 0.12)
		if i%ccdSphereEach == ccdSphereEach-1 {
			hl, rad = 0, uni(0.1, 0.2)
		}
		s.local.Set(i, [3]float32{0, -hl, 0}, [3]float32{0, hl, 0}, rad)
		p := [3]float32{uni(-0.5, 0.5) * side, uni(0, 1) * s.height, uni(-0.5, 0.5) * side}
		q := randomUnitQuat(r)
		s.start.Set(i, p, q)
		s.end.Set(i, p, q)
	}
	for j := range cfg.shots {
		i := cfg.pile + j
		hl, rad := uni(0.15, 0.3), uni(0.01, 0.02)
		if j%ccdSphereEach == ccdSphereEach-1 {
			hl, rad = 0, uni(0.02, 0.04)
			s.spheres++
		}
		s.local.Set(i, [3]float32{0, -hl, 0}, [3]float32{0, hl, 0}, rad)
		p0 := [3]float32{-side/2 - 0.8 - uni(0, 1), uni(0.1, 0.9) * s.height, uni(-0.45, 0.45) * side}
		d := uni(0.5*float64(side), float64(side)+1.5)
		move := [3]float32{d, d * uni(-0.1, 0.1), d * uni(-0.1, 0.1)}
		p1 := add3(p0, move)
		q0 := randomUnitQuat(r)
		q1 := q0
		if hl > 0 {
			q1 = spin(q0, r, ccdMaxSpin*math.Pi/180*r.Float64())
			s.pad[i] = fallback.SweepPad(hl, q0, q1) // the axis ends are hl from the body's centre
		}
		s.start.Set(i, p0, q0)
		s.end.Set(i, p1, q1)
		radii := float32(math.Sqrt(float64(dot3(move, move)))) / rad
		s.minMove, s.maxMove = min(s.minMove, radii), max(s.maxMove, radii)
	}
	s.capsStart, s.capsEnd = soa.NewCapsules(n), soa.NewCapsules(n)
	k.CapsulesFromPoses(s.capsStart, s.local, s.start)
	k.CapsulesFromPoses(s.capsEnd, s.local, s.end)
	s.pairs = s.broadphase()
	s.params = kernel.TOIParams{Margin: ccdMargin, Tol: ccdTol, TMax: 1, MaxIter: ccdMaxIter, Pad: s.pad}
	return s
}

// spin returns q turned by angle radians about a random world axis, the
// rotation a body at constant angular velocity reaches over the step.
func spin(q [4]float32, r *rand.Rand, angle float64) [4]float32 {
	axis := unitVec(r)
	sn, cs := math.Sincos(angle / 2)
	d := [4]float64{axis[0] * sn, axis[1] * sn, axis[2] * sn, cs}
	x, y, z, w := float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
	// d q, the rotation q followed by d.
	out := [4]float32{
		float32(d[3]*x + d[0]*w + (d[1]*z - d[2]*y)),
		float32(d[3]*y + d[1]*w + (d[2]*x - d[0]*z)),
		float32(d[3]*z + d[2]*w + (d[0]*y - d[1]*x)),
		float32(d[3]*w - (d[0]*x + d[1]*y + d[2]*z)),
	}
	return normQuat(out)
}

// bounds returns the box around capsule i over the step: the boxes of its
// start and end records, widened by its radius and pad.
func (s *ccdScene) bounds(i int) (lo, hi [3]float32) {
	a, b := s.capsStart[i], s.capsEnd[i]
	w := max(a.R, b.R) + s.pad[i] + ccdMargin
	for c := range 3 {
		lo[c] = min(a.A[c], a.B[c], b.A[c], b.B[c]) - w
		hi[c] = max(a.A[c], a.B[c], b.A[c], b.B[c]) + w
	}
	return lo, hi
}

// broadphase pairs every projectile with each resting capsule and each
// later projectile whose swept bounds overlap its own: brute force, as
// there are few projectiles.
func (s *ccdScene) broadphase() *soa.IndexPairs {
	n := s.cfg.pile + s.cfg.shots
	lo, hi := make([][3]float32, n), make([][3]float32, n)
	for i := range n {
		lo[i], hi[i] = s.bounds(i)
	}
	pairs := soa.NewIndexPairs(0)
	for i := s.cfg.pile; i < n; i++ {
		for j := range n {
			if j >= s.cfg.pile && j <= i {
				continue
			}
			if lo[i][0] <= hi[j][0] && lo[j][0] <= hi[i][0] && lo[i][1] <= hi[j][1] && lo[j][1] <= hi[i][1] &&
				lo[i][2] <= hi[j][2] && lo[j][2] <= hi[i][2] {
				pairs.Append(uint32(i), uint32(j))
			}
		}
	}
	return pairs
}

// swept returns capsule i of the step as the spec takes it.
func (s *ccdScene) swept(i uint32) fallback.SweptCapsule {
	a, b := s.capsStart[i], s.capsEnd[i]
	return fallback.SweptCapsule{A0: a.A, B0: a.B, R0: a.R, A1: b.A, B1: b.B, R1: b.R, Pad: s.pad[i]}
}

// specParams are the scene's parameters as fallback.TOILane takes them.
func (s *ccdScene) specParams() fallback.TOIParams {
	return fallback.TOIParams{Margin: s.params.Margin, Tol: s.params.Tol, TMax: s.params.TMax, MaxIter: s.params.MaxIter}
}

// ccdResult is what runCCD measured and checked.
type ccdResult struct {
	cfg          ccdConfig
	isa          string   // the path whose rows are counted
	paths        []string // every path checked (go included)
	spheres      int
	side, height float32
	minMove      float32
	maxMove      float32
	pairs        int

	hits, initial, unconverged, invalid int // non-Miss rows of CompactTOI, by status
	missedEnd, missedStart              int // hits (Hit or Initial) without a contact row at the end, the start pose
	shotsHit                            int // projectiles with an earliest hit
	tunnel                              int // of those, projectiles without any contact row at the end pose
	pileHit                             int // resting capsules with an earliest hit
	meanIter                            float64
	earliest                            float64 // mean earliest T of the projectiles hit

	times []ccdTiming

	certified, certMisses                      int // rows checked against CheckTOI and ReferenceTOI; Miss rows among them
	unproven, refUndecided                     int // claims CheckTOI left open, rows ReferenceTOI could not decide
	missed, late, falseHits, badStatus, refBad int // failures by kind

	problems []string
	examples []string
}

// ccdTiming is one path's time per pair: CompactTOI, and BatchClosestIndexed
// on the same pairs at the start pose, the unit of the TOI's cost.
type ccdTiming struct {
	isa          string
	toi, closest float64 // ns per pair
}

func (r *ccdResult) problemf(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

func (r *ccdResult) example(format string, args ...any) {
	if len(r.examples) < maxExamples {
		r.examples = append(r.examples, fmt.Sprintf(format, args...))
	}
}

// runCCD builds the scene, runs CompactTOI and EarliestHits on
// kernels[0] (the best path), counts the hits and those the contact
// kernel misses at the end and the start pose, checks every path's
// BatchTOI and CompactTOI rows bit for bit against fallback.TOILane and
// up to cfg.certified rows against verify.CheckTOI and
// fallback.ReferenceTOI, and times CompactTOI and BatchClosestIndexed on
// every path with measure.
func runCCD(cfg ccdConfig, kernels []kernel.Kernel, kgo kernel.Kernel, measure func(func()) timing) ccdResult {
	s := newCCDScene(cfg, kernels[0])
	res := ccdResult{cfg: cfg, isa: kernels[0].ISA(), spheres: s.spheres, side: s.side, height: s.height,
		minMove: s.minMove, maxMove: s.maxMove, pairs: s.pairs.Len()}
	np := s.pairs.Len()
	if np == 0 {
		return res // a scene too small for a projectile to reach the pile
	}

	// The engine's calls.
	k := kernels[0]
	rows := soa.NewTOIs(np)
	n := k.CompactTOI(rows, s.capsStart, s.capsEnd, s.pairs, s.params)
	nb := s.cfg.pile + s.cfg.shots
	tHit, pHit := make([]float32, nb), make([]uint32, nb)
	kernel.EarliestHits(tHit, pHit, rows, n, s.pairs)

	// The spec, pair by pair.
	prm := s.specParams()
	want := make([]fallback.TOI, np)
	iters := 0
	for p := range np {
		want[p] = fallback.TOILane(s.swept(s.pairs.I[p]), s.swept(s.pairs.J[p]), prm)
		iters += int(want[p].Iter)
	}
	res.meanIter = float64(iters) / float64(np)

	// Every path, both entry points, bit for bit.
	all := soa.NewTOIs(np)
	cmp := soa.NewTOIs(np)
	for _, kk := range withGo(kernels, kgo) {
		res.paths = append(res.paths, kk.ISA())
		kk.BatchTOI(all, s.capsStart, s.capsEnd, s.pairs, s.params)
		if bad, ex := checkTOIRows(want, all, np, false); bad > 0 {
			res.problemf("ccd: %s: %d of %d BatchTOI rows differ from fallback.TOILane", kk.ISA(), bad, np)
			res.example("ccd: %s: BatchTOI: %s", kk.ISA(), ex)
		}
		m := kk.CompactTOI(cmp, s.capsStart, s.capsEnd, s.pairs, s.params)
		if bad, ex := checkTOIRows(want, cmp, m, true); bad > 0 {
			res.problemf("ccd: %s: %d CompactTOI rows (of %d) differ from fallback.TOILane's rows that are not a Miss", kk.ISA(), bad, m)
			res.example("ccd: %s: CompactTOI: %s", kk.ISA(), ex)
		}
	}
	if bad, ex := checkTOIRows(want, rows, n, true); bad > 0 {
		res.problemf("ccd: %s: the counted CompactTOI rows differ from fallback.TOILane in %d rows", k.ISA(), bad)
		res.example("ccd: %s", ex)
	}
	if b, ex := checkEarliest(want, s.pairs, tHit, pHit); b > 0 {
		res.problemf("ccd: EarliestHits differs from the earliest spec row for %d bodies", b)
		res.example("ccd: EarliestHits: %s", ex)
	}

	// The counts: the discrete kernel at either pose against the TOI.
	touchEnd, touchStart := touchingPairs(k, s.capsEnd, s.pairs), touchingPairs(k, s.capsStart, s.pairs)
	endBody := make([]bool, nb)
	for p := range np {
		if touchEnd[p] {
			endBody[s.pairs.I[p]], endBody[s.pairs.J[p]] = true, true
		}
	}
	for r := range n {
		p := rows.Pair[r]
		switch fallback.TOIStatus(rows.Status[r]) {
		case fallback.TOIHit, fallback.TOIInitial:
			if fallback.TOIStatus(rows.Status[r]) == fallback.TOIInitial {
				res.initial++
			}
			res.hits++
			if !touchEnd[p] {
				res.missedEnd++
			}
			if !touchStart[p] {
				res.missedStart++
			}
		case fallback.TOIUnconverged:
			res.unconverged++
		case fallback.TOIInvalid:
			res.invalid++
		}
	}
	if res.invalid > 0 {
		res.problemf("ccd: %d rows are Invalid: the scene's input is finite", res.invalid)
	}
	sumT := 0.0
	for b := range nb {
		if pHit[b] == kernel.NoPair {
			continue
		}
		if b < s.cfg.pile {
			res.pileHit++
			continue
		}
		res.shotsHit++
		sumT += float64(tHit[b])
		if !endBody[b] {
			res.tunnel++
		}
	}
	if res.shotsHit > 0 {
		res.earliest = sumT / float64(res.shotsHit)
	}

	// The certified checker and the value reference on every row, or on
	// a sample of cfg.certified rows: every row that is not a Miss first,
	// then Miss rows evenly spread.
	for _, p := range certifySample(want, cfg.certified) {
		res.certify(s, int(p), want[p])
	}

	// Time per pair on every path.
	closest := soa.NewResults(np)
	for _, kk := range kernels {
		toi := measure(func() { kk.CompactTOI(cmp, s.capsStart, s.capsEnd, s.pairs, s.params) }).NsPer(np)
		cl := measure(func() { kk.BatchClosestIndexed(closest, s.capsStart, s.pairs) }).NsPer(np)
		res.times = append(res.times, ccdTiming{isa: kk.ISA(), toi: toi, closest: cl})
	}
	return res
}

// withGo returns kernels with the go path added if it is not there.
func withGo(kernels []kernel.Kernel, kgo kernel.Kernel) []kernel.Kernel {
	out := append([]kernel.Kernel(nil), kernels...)
	if !containsISA(out, kgo.ISA()) {
		out = append(out, kgo)
	}
	return out
}

// touchingPairs reports, per pair, whether k's CompactContacts writes a
// contact row for it on the records caps (margin ccdMargin).
func touchingPairs(k kernel.Kernel, caps soa.Capsules, pairs *soa.IndexPairs) []bool {
	rows := soa.NewContacts(pairs.Len())
	n := k.CompactContacts(rows, caps, pairs, ccdMargin)
	touch := make([]bool, pairs.Len())
	for r := range n {
		touch[rows.Pair[r]] = true
	}
	return touch
}

// toiRowBits returns the bits of row r of rows: status, iterations and
// the eleven floats.
func toiRowBits(rows *soa.TOIs, r int) [13]uint32 {
	return toiBits(fallback.TOI{Status: fallback.TOIStatus(rows.Status[r]), Iter: rows.Iter[r], T: rows.T[r], Dist: rows.Dist[r],
		Normal: [3]float32{rows.NX[r], rows.NY[r], rows.NZ[r]},
		P:      [3]float32{rows.PX[r], rows.PY[r], rows.PZ[r]}, Q: [3]float32{rows.QX[r], rows.QY[r], rows.QZ[r]}})
}

func toiBits(t fallback.TOI) [13]uint32 {
	f := math.Float32bits
	return [13]uint32{uint32(t.Status), t.Iter, f(t.T), f(t.Dist), f(t.Normal[0]), f(t.Normal[1]), f(t.Normal[2]),
		f(t.P[0]), f(t.P[1]), f(t.P[2]), f(t.Q[0]), f(t.Q[1]), f(t.Q[2])}
}

// checkTOIRows compares the first n rows of got with the spec's results
// want (one per pair): row k is pair k's result, or, if compact, the rows
// are the results that are not a Miss, in pair order, and n their number.
// It returns the number of rows that differ (a wrong count counts the
// rows missing or extra) and the first difference.
func checkTOIRows(want []fallback.TOI, got *soa.TOIs, n int, compact bool) (bad int, first string) {
	note := func(format string, args ...any) {
		bad++
		if first == "" {
			first = fmt.Sprintf(format, args...)
		}
	}
	r := 0
	for p, w := range want {
		if compact && w.Status == fallback.TOIMiss {
			continue
		}
		if r >= n {
			note("pair %d (%v) has no row: %d rows", p, w.Status, n)
			r++
			continue
		}
		if got.Pair[r] != uint32(p) || toiRowBits(got, r) != toiBits(w) {
			note("row %d: pair %d, status %v, T %v; spec: pair %d, status %v, T %v (bits %x, spec %x)", r, got.Pair[r],
				fallback.TOIStatus(got.Status[r]), got.T[r], p, w.Status, w.T, toiRowBits(got, r), toiBits(w))
		}
		r++
	}
	if r < n {
		note("%d rows, the spec %d", n, r)
		bad += n - r - 1
	}
	return bad, first
}

// checkEarliest recomputes each body's earliest hit from the spec's rows
// and compares it with EarliestHits' t and pair; it returns the number of
// bodies that differ and the first.
func checkEarliest(want []fallback.TOI, pairs *soa.IndexPairs, t []float32, pair []uint32) (bad int, first string) {
	wt, wp := make([]float32, len(t)), make([]uint32, len(t))
	for b := range wt {
		wt[b], wp[b] = 1, kernel.NoPair
	}
	for p, w := range want {
		if w.Status != fallback.TOIHit && w.Status != fallback.TOIInitial && w.Status != fallback.TOIUnconverged {
			continue
		}
		for _, b := range [2]uint32{pairs.I[p], pairs.J[p]} {
			if w.T < wt[b] || w.T == wt[b] && uint32(p) < wp[b] {
				wt[b], wp[b] = w.T, uint32(p)
			}
		}
	}
	for b := range t {
		if math.Float32bits(t[b]) != math.Float32bits(wt[b]) || pair[b] != wp[b] {
			bad++
			if first == "" {
				first = fmt.Sprintf("body %d: t %v pair %d, want %v %d", b, t[b], pair[b], wt[b], wp[b])
			}
		}
	}
	return bad, first
}

// certifySample returns up to n pair indices: every pair whose result is
// not a Miss (up to n), then Miss pairs spread evenly over the rest.
func certifySample(want []fallback.TOI, n int) []uint32 {
	var hits, misses []uint32
	for p, w := range want {
		if w.Status == fallback.TOIMiss {
			misses = append(misses, uint32(p))
		} else {
			hits = append(hits, uint32(p))
		}
	}
	if len(hits) >= n {
		return hits[:n]
	}
	out := hits
	room := n - len(hits)
	for k := range min(room, len(misses)) {
		out = append(out, misses[k*len(misses)/min(room, len(misses))])
	}
	return out
}

// certify checks one result (the spec's for pair p) against the
// certified checker (verify.CheckTOI: no missed, late or false result, in
// exact arithmetic) and the float64 value reference with the target
// lowered by δ (fallback.ReferenceTOI, as fallback's tests use it).
func (r *ccdResult) certify(s *ccdScene, p int, got fallback.TOI) {
	c := verify.TOICase{I: s.swept(s.pairs.I[p]), J: s.swept(s.pairs.J[p]), Params: s.specParams()}
	r.certified++
	if got.Status == fallback.TOIMiss {
		r.certMisses++
	}
	chk := verify.CheckTOI(c, got, verify.TOIBudget)
	switch chk.Fail {
	case "":
	case "missed":
		r.missed++
	case "late":
		r.late++
	case "false":
		r.falseHits++
	default:
		r.badStatus++
	}
	if chk.Fail != "" {
		r.problemf("ccd: pair %d: %v at T=%v fails the certified checker: %s", p, got.Status, got.T, chk.Fail)
		r.example("ccd: pair %d: %s\n%s", p, chk.Fail, c)
	}
	if chk.Unproven != "" {
		r.unproven++
	}

	w := verify.WidenTOI(c)
	target, tol, _ := fallback.TOITargetOf(c.I, c.J, c.Params)
	delta := verify.TOIDelta(c, verify.TOIDeltaMul)
	eps := ccdRefEps * verify.TOIScale(c)
	st, tr := fallback.ReferenceTOI(w.I, w.J, float64(target)-delta-eps, float64(c.Params.TMax), eps, ccdRefEval)
	bad := ""
	switch {
	case st == fallback.TOIUnconverged:
		r.refUndecided++
	case got.Status == fallback.TOIMiss && st != fallback.TOIMiss:
		bad = fmt.Sprintf("a Miss, the reference %v at %v", st, tr)
	case (got.Status == fallback.TOIHit || got.Status == fallback.TOIUnconverged) && st != fallback.TOIMiss &&
		tr < float64(got.T)*(1-ccdRefTimeTol):
		bad = fmt.Sprintf("%v at %v, the reference hits at %v", got.Status, got.T, tr)
	}
	if got.Status == fallback.TOIHit || got.Status == fallback.TOIInitial {
		if d, lim := refDistAt(w, float64(got.T)), float64(target+tol)+delta; d > lim {
			bad = fmt.Sprintf("%v at %v: the reference distance %v exceeds target + tol + δ = %v", got.Status, got.T, d, lim)
		}
	}
	if bad != "" {
		r.refBad++
		r.problemf("ccd: pair %d: %s", p, bad)
		r.example("ccd: pair %d: %s\n%s", p, bad, c)
	}
}

// refDistAt returns the float64 reference distance of the axes of c at
// time tau.
func refDistAt(c verify.TOICase64, tau float64) float64 {
	var p [4][3]float64
	for k, e := range [4][2][3]float64{{c.I.A0, c.I.A1}, {c.I.B0, c.I.B1}, {c.J.A0, c.J.A1}, {c.J.B0, c.J.B1}} {
		for j := range 3 {
			p[k][j] = e[0][j] + tau*(e[1][j]-e[0][j])
		}
	}
	_, _, d2 := fallback.Reference(p[0], p[1], p[2], p[3])
	return math.Sqrt(d2)
}

// writeCCD prints the scene, the counts and the time per pair of each
// path.
func writeCCD(w io.Writer, r ccdResult) error {
	cfg := r.cfg
	fmt.Fprintf(w, "ccd:       %d projectiles (%d thin capsules, %d spheres) shot through a pile of %d resting capsules (box %.1f x %.1f x %.1f) in one step,\n"+
		"           each moving %.0f to %.0f of its radii and tumbling up to %.0f degrees (fallback.SweepPad); %d pairs of swept bounds;\n"+
		"           CompactTOI (margin %v, tol %v, MaxIter %d) and EarliestHits on path %s\n",
		cfg.shots, cfg.shots-r.spheres, r.spheres, cfg.pile, r.side, r.height, r.side, r.minMove, r.maxMove, ccdMaxSpin, r.pairs,
		ccdMargin, ccdTol, ccdMaxIter, r.isa)
	fmt.Fprintf(w, "ccd:       %d hits (%d initial), %d unconverged, %.2f closest-point evaluations per pair; the contact kernel misses %d of the hits\n"+
		"           at the end pose, %d at the start pose; %d projectiles hit something (earliest T %.2f on average), %d of them without a contact at the end pose\n",
		r.hits, r.initial, r.unconverged, r.meanIter, r.missedEnd, r.missedStart, r.shotsHit, r.earliest, r.tunnel)
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tTOI ns/pair\tclosest ns/pair\tclosest units\t")
	for _, t := range r.times {
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t%.1f\t\n", t.isa, t.toi, t.closest, t.toi/t.closest)
	}
	tw.Flush()
	fmt.Fprint(w, indent(buf.String(), "    "))
	fmt.Fprintf(w, "ccd:       closest = BatchClosestIndexed on the same pairs at the start pose, the unit of the TOI's cost\n")
	return nil
}

// writeCCDVerified prints what the run verified.
func writeCCDVerified(w io.Writer, r ccdResult) {
	fmt.Fprintf(w, "verified:  ccd: all %d rows of BatchTOI and the %d of CompactTOI bit-identical to fallback.TOILane on %d path(s) (%s), EarliestHits\n"+
		"           the earliest row per body; %d of the rows (%d not a Miss, %d Miss) against verify.CheckTOI: %d missed, %d late, %d false (%d claims\n"+
		"           unproven within %d boxes), and against fallback.ReferenceTOI (%d undecided within %.0g evaluations)\n",
		r.pairs, r.hits+r.unconverged+r.invalid, len(r.paths), strings.Join(r.paths, ", "),
		r.certified, r.certified-r.certMisses, r.certMisses, r.missed, r.late, r.falseHits, r.unproven, verify.TOIBudget, r.refUndecided, float64(ccdRefEval))
}
