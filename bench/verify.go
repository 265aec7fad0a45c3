package main

import (
	"fmt"
	"math"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// maxErrEps is the accuracy contract (docs/design.md, "Accuracy"): a lane fails if
// its distance, or the distance between its reported points, is more than
// this many eps32 x scale from the reference distance.
const maxErrEps = 8

// fillPairs returns the batch of candidate pairs: pair k is the axis of
// capsule cands[k].I against the axis of capsule cands[k].J.
func fillPairs(caps []capsule, cands []candidate) *soa.Pairs {
	p := soa.NewPairs(len(cands))
	for k, c := range cands {
		a, b := caps[c.I], caps[c.J]
		p.Set(k, a.P0, a.P1, b.P0, b.P1)
	}
	return p
}

// referencePass runs the float64 reference (fallback.ReferenceF32) on every
// pair of p and stores the squared distances in d2 (len(d2) >= p.Len()).
// It returns the sum of the parameters, which callers may ignore; it only
// keeps the compiler from dropping work.
func referencePass(p *soa.Pairs, d2 []float64) float64 {
	var sink float64
	d2 = d2[:p.Len()]
	for i := range d2 {
		q := p.Get(i)
		s, t, d := fallback.ReferenceF32(q.A, q.B, q.C, q.D)
		d2[i] = d
		sink += s + t
	}
	return sink
}

// errEps returns |got - want| in units of eps32 x scale (verify.ErrEps):
// 0 when they are equal (even at scale 0), +Inf for a difference at scale
// 0, NaN if either is NaN.
func errEps(got, want, scale float64) float64 { return verify.ErrEps(math.Abs(got-want), scale) }

// laneError measures one kernel result (s, t, dist2) for pair q against
// the reference squared distance refD2. distErr is the error of
// sqrt(dist2), pointErr that of the distance between the two reported
// points (computed in float64 from s and t), both in eps32 x scale. ok is
// false if either exceeds maxErrEps, if s or t is outside [0,1] or if
// anything is NaN.
func laneError(q soa.Pair, s, t, dist2 float32, refD2 float64) (distErr, pointErr float64, ok bool) {
	sc := verify.Scale(q)
	ref := math.Sqrt(refD2)
	distErr = errEps(math.Sqrt(float64(dist2)), ref, sc)
	s64, t64 := float64(s), float64(t)
	var pd2 float64
	for k := range 3 {
		a, b := float64(q.A[k]), float64(q.B[k])
		c, d := float64(q.C[k]), float64(q.D[k])
		r := (a + s64*(b-a)) - (c + t64*(d-c))
		pd2 += r * r
	}
	pointErr = errEps(math.Sqrt(pd2), ref, sc)
	ok = distErr <= maxErrEps && pointErr <= maxErrEps &&
		s >= 0 && s <= 1 && t >= 0 && t <= 1 // false for NaN too
	return distErr, pointErr, ok
}

// failure describes one lane that failed verification.
type failure struct {
	Lane               int
	Pair               soa.Pair
	S, T, Dist2        float32
	RefDist2           float64
	DistErr, PointErr  float64
	Mismatch           bool // bits differ from the "go" path
	GoS, GoT, GoDist2  float32
	VerificationFailed bool // error bound, range or NaN
}

func (f failure) String() string {
	var why string
	switch {
	case f.VerificationFailed && f.Mismatch:
		why = "fails verification and differs from go"
	case f.VerificationFailed:
		why = "fails verification"
	default:
		why = "differs from go"
	}
	s := fmt.Sprintf("lane %d %s: A=%v B=%v C=%v D=%v: S=%v T=%v Dist2=%v; reference dist2=%v; error %.3g (distance), %.3g (points) eps x scale",
		f.Lane, why, f.Pair.A, f.Pair.B, f.Pair.C, f.Pair.D, f.S, f.T, f.Dist2, f.RefDist2, f.DistErr, f.PointErr)
	if f.Mismatch {
		s += fmt.Sprintf("; go path: S=%v T=%v Dist2=%v", f.GoS, f.GoT, f.GoDist2)
	}
	return s
}

// verdict summarizes the verification of one path's results.
type verdict struct {
	Worst      float64   // worst error over all lanes, eps32 x scale (NaN lanes: +Inf)
	Failed     int       // lanes failing verification
	Mismatches int       // lanes whose bits differ from the "go" path
	Examples   []failure // the first few failing or mismatching lanes
}

// OK reports whether every lane passed and matched the go path.
func (v verdict) OK() bool { return v.Failed == 0 && v.Mismatches == 0 }

// maxExamples is how many failing lanes a Verdict keeps.
const maxExamples = 5

// verifyClosest checks every lane of res (the results of one path for p) against
// the reference squared distances refD2 and, if golden is not nil, against
// the bits of golden (the "go" path's results).
func verifyClosest(p *soa.Pairs, res *soa.Results, refD2 []float64, golden *soa.Results) verdict {
	var v verdict
	for i := range p.Len() {
		q := p.Get(i)
		s, t, d2 := res.S[i], res.T[i], res.Dist2[i]
		de, pe, ok := laneError(q, s, t, d2, refD2[i])
		w := max(de, pe)
		if math.IsNaN(w) {
			w = math.Inf(1)
		}
		v.Worst = max(v.Worst, w)
		mis := golden != nil && (math.Float32bits(s) != math.Float32bits(golden.S[i]) ||
			math.Float32bits(t) != math.Float32bits(golden.T[i]) ||
			math.Float32bits(d2) != math.Float32bits(golden.Dist2[i]))
		if !ok {
			v.Failed++
		}
		if mis {
			v.Mismatches++
		}
		if (!ok || mis) && len(v.Examples) < maxExamples {
			f := failure{Lane: i, Pair: q, S: s, T: t, Dist2: d2, RefDist2: refD2[i],
				DistErr: de, PointErr: pe, Mismatch: mis, VerificationFailed: !ok}
			if mis {
				f.GoS, f.GoT, f.GoDist2 = golden.S[i], golden.T[i], golden.Dist2[i]
			}
			v.Examples = append(v.Examples, f)
		}
	}
	return v
}

// countTouching counts the candidate pairs whose axes are within the sum of the
// radii: sqrt(dist2(k)) <= r_I + r_J, in float64.
func countTouching(caps []capsule, cands []candidate, dist2 func(k int) float64) int {
	n := 0
	for k, c := range cands {
		if math.Sqrt(dist2(k)) <= float64(caps[c.I].R)+float64(caps[c.J].R) {
			n++
		}
	}
	return n
}

// exactDistances returns the exact minimum distance of every pair of p
// (the exact rational oracle, rounded to float64): what the float64 rows
// are verified against, since the float64 reference is no more accurate
// than the float64 kernel it would check.
func exactDistances(p *soa.Pairs64) []float64 {
	d := make([]float64, p.Len())
	for i := range d {
		d[i] = verify.Dist(verify.ExactMinDist2(p.Get(i)))
	}
	return d
}

// verifyClosest64 checks every lane of res (BatchClosest64 of one path on
// p) against the exact distances: sqrt(Dist2) and the exact distance
// between the reported points (verify.ExactDist2At) within maxErrEps eps64
// x scale, S and T in [0,1]; and, bit for bit, against golden.
func verifyClosest64(p *soa.Pairs64, res *soa.Results64, exact []float64, golden *soa.Results64) verdict {
	var v verdict
	for i := range p.Len() {
		q := p.Get(i)
		s, t, d2 := res.S[i], res.T[i], res.Dist2[i]
		sc := verify.Scale(q)
		de := verify.ErrEps64(math.Abs(math.Sqrt(d2)-exact[i]), sc)
		pe := math.Inf(1)
		ok := s >= 0 && s <= 1 && t >= 0 && t <= 1 && !math.IsInf(d2, 0)
		if ok {
			pe = verify.ErrEps64(math.Abs(verify.Dist(verify.ExactDist2At(q, s, t))-exact[i]), sc)
		}
		ok = ok && de <= maxErrEps && pe <= maxErrEps
		w := max(de, pe)
		if math.IsNaN(w) {
			w = math.Inf(1)
		}
		v.Worst = max(v.Worst, w)
		mis := math.Float64bits(s) != math.Float64bits(golden.S[i]) || math.Float64bits(t) != math.Float64bits(golden.T[i]) ||
			math.Float64bits(d2) != math.Float64bits(golden.Dist2[i])
		if !ok {
			v.Failed++
		}
		if mis {
			v.Mismatches++
		}
		if (!ok || mis) && len(v.Examples) < maxExamples {
			v.Examples = append(v.Examples, failure{Lane: i, Pair: narrow(q), S: float32(s), T: float32(t), Dist2: float32(d2),
				RefDist2: exact[i] * exact[i], DistErr: de, PointErr: pe, Mismatch: mis, VerificationFailed: !ok})
		}
	}
	return v
}

// narrow returns q rounded to float32, for failure reports.
func narrow(q soa.Pair64) soa.Pair {
	n := func(v [3]float64) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }
	return soa.Pair{A: n(q.A), B: n(q.B), C: n(q.C), D: n(q.D)}
}

// maxContact64Eps bounds the one-point depths of the float64 contact rows
// against the float64 reference, in eps64 x scale: the kernel's distance
// is within 3.9 of exact, the reference's within 2.7 (TestReferenceExact),
// and the sums round.
const maxContact64Eps = 16

// verifyContacts64 checks the n compacted float64 rows of got: the same
// count and every stream's bits as the go path's (gold, goldN); rows in
// pair order; the depth of every one-point row within maxContact64Eps
// eps64 x scale of r1 + r2 minus fallback.ReferenceContact's distance.
func verifyContacts64(caps soa.Capsules64, ip *soa.IndexPairs, margin float64, got *soa.Contacts64, n int, gold *soa.Contacts64, goldN int) verdict {
	var v verdict
	if n != goldN {
		v.Mismatches += max(n-goldN, goldN-n)
	}
	bits := func(c *soa.Contacts64, r int) [13]uint64 {
		return [13]uint64{uint64(c.Pair[r]), uint64(c.Count[r]), math.Float64bits(c.Depth1[r]), math.Float64bits(c.Depth2[r]),
			math.Float64bits(c.NX[r]), math.Float64bits(c.NY[r]), math.Float64bits(c.NZ[r]),
			math.Float64bits(c.P1X[r]), math.Float64bits(c.P1Y[r]), math.Float64bits(c.P1Z[r]),
			math.Float64bits(c.P2X[r]), math.Float64bits(c.P2Y[r]), math.Float64bits(c.P2Z[r])}
	}
	prev := -1
	for r := range min(n, goldN) {
		if bits(got, r) != bits(gold, r) {
			v.Mismatches++
		}
		k := int(got.Pair[r])
		if k <= prev || k >= ip.Len() {
			v.Failed++
			continue
		}
		prev = k
		c1, c2 := caps[ip.I[k]], caps[ip.J[k]]
		if got.Count[r] != 1 {
			continue
		}
		_, depth, _, _ := fallback.ReferenceContact(c1.A, c1.B, c1.R, c2.A, c2.B, c2.R, margin)
		scale := 0.0
		for _, x := range [...]float64{c1.A[0], c1.A[1], c1.A[2], c1.B[0], c1.B[1], c1.B[2], c2.A[0], c2.A[1], c2.A[2], c2.B[0], c2.B[1], c2.B[2]} {
			scale = math.Max(scale, math.Abs(x))
		}
		e := verify.ErrEps64(math.Abs(got.Depth1[r]-depth[0]), scale)
		if math.IsNaN(e) {
			e = math.Inf(1)
		}
		v.Worst = max(v.Worst, e)
		if !(e <= maxContact64Eps) {
			v.Failed++
		}
	}
	return v
}
