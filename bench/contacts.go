package main

// The contact and point-segment kernels of the narrowphase: the scene as
// the engine would keep it (one soa.Capsules, the broadphase pairs as a
// soa.IndexPairs), the float64 reference passes that time and count them,
// and the verifiers that check every path's output.

import (
	"fmt"
	"math"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// defaultMargin is the contact margin of go run ./bench (-margin): pairs
// whose axes are within r1 + r2 + margin are reported, as an engine asks
// for speculative contacts.
const defaultMargin = 0.01

// toCapsules returns the scene as the engine's capsule records, capsule i
// of caps at index i.
func toCapsules(caps []capsule) soa.Capsules {
	c := soa.NewCapsules(len(caps))
	for i, cp := range caps {
		c.Set(i, cp.P0, cp.P1, cp.R)
	}
	return c
}

// toIndexPairs returns the broadphase pairs as the contact kernels' input:
// pair k is capsule cands[k].I (capsule 1, the normal points toward it)
// against cands[k].J.
func toIndexPairs(cands []candidate) *soa.IndexPairs {
	p := soa.NewIndexPairs(len(cands))
	for k, c := range cands {
		p.I[k], p.J[k] = uint32(c.I), uint32(c.J)
	}
	return p
}

// gatherPairs copies the axes of the indexed pairs into dst (which must
// have ip.Len() pairs): what an engine does per pair to use BatchClosest
// with capsules stored by body. It is the "copy" half of the end-to-end
// comparison with the contact kernels, which load the records themselves.
func gatherPairs(dst *soa.Pairs, caps soa.Capsules, ip *soa.IndexPairs) {
	n := ip.Len()
	I, J := ip.I[:n], ip.J[:n]
	ax, ay, az := dst.AX[:n], dst.AY[:n], dst.AZ[:n]
	bx, by, bz := dst.BX[:n], dst.BY[:n], dst.BZ[:n]
	cx, cy, cz := dst.CX[:n], dst.CY[:n], dst.CZ[:n]
	dx, dy, dz := dst.DX[:n], dst.DY[:n], dst.DZ[:n]
	for k := range n {
		ci, cj := &caps[I[k]], &caps[J[k]]
		ax[k], ay[k], az[k] = ci.A[0], ci.A[1], ci.A[2]
		bx[k], by[k], bz[k] = ci.B[0], ci.B[1], ci.B[2]
		cx[k], cy[k], cz[k] = cj.A[0], cj.A[1], cj.A[2]
		dx[k], dy[k], dz[k] = cj.B[0], cj.B[1], cj.B[2]
	}
}

// referenceContactPass runs the float64 reference fallback.ReferenceContact
// on every indexed pair (reading the capsules by index itself, as the kernels do)
// and stores each pair's count in counts (len(counts) >= ip.Len()). It
// returns the sum of the depths, which only keeps the work alive.
func referenceContactPass(caps soa.Capsules, ip *soa.IndexPairs, margin float32, counts []int) float64 {
	var sink float64
	for k := range ip.Len() {
		p := verify.PairAt(caps, ip, k)
		c, d, _, _ := fallback.ReferenceContactF32(p.C1.A, p.C1.B, p.C1.R, p.C2.A, p.C2.B, p.C2.R, margin)
		counts[k] = c
		sink += d[0]
	}
	return sink
}

// rowBits returns the 13 streams of row r of c as bits, in the order
// Pair Count Depth1 Depth2 NX NY NZ P1X P1Y P1Z P2X P2Y P2Z.
func rowBits(c *soa.Contacts, r int) [13]uint32 {
	f := math.Float32bits
	return [13]uint32{c.Pair[r], c.Count[r], f(c.Depth1[r]), f(c.Depth2[r]),
		f(c.NX[r]), f(c.NY[r]), f(c.NZ[r]),
		f(c.P1X[r]), f(c.P1Y[r]), f(c.P1Z[r]), f(c.P2X[r]), f(c.P2Y[r]), f(c.P2Z[r])}
}

// contactBitsEqual reports whether the contact fields (every stream but
// Pair) of row r of x and row q of y have the same bits.
func contactBitsEqual(x *soa.Contacts, r int, y *soa.Contacts, q int) bool {
	a, b := rowBits(x, r), rowBits(y, q)
	a[0], b[0] = 0, 0
	return a == b
}

// contactSet is what the contact verifier checks a path's CompactContacts
// output against: the scene, the margin, and the go path's output, both
// uncompacted (BatchContacts, one row per pair: which pairs touch) and
// compacted (CompactContacts: the bits every path must reproduce).
type contactSet struct {
	Caps    soa.Capsules
	Pairs   *soa.IndexPairs
	Margin  float32
	All     *soa.Contacts // go path's BatchContacts, Pairs.Len() rows
	Golden  *soa.Contacts // go path's CompactContacts
	GoldenN int           // its count
}

// newContactSet runs the go path k (kernel.Lookup("go")) on the scene.
func newContactSet(k kernel.Kernel, caps soa.Capsules, ip *soa.IndexPairs, margin float32) *contactSet {
	s := &contactSet{Caps: caps, Pairs: ip, Margin: margin,
		All: soa.NewContacts(ip.Len()), Golden: soa.NewContacts(ip.Len())}
	k.BatchContacts(s.All, caps, ip, margin)
	s.GoldenN = k.CompactContacts(s.Golden, caps, ip, margin)
	return s
}

// contactVerdict is the outcome of VerifyContacts for one path.
type contactVerdict struct {
	// Worst is the worst depth error of a compacted row against the
	// float64 reference, in eps32 x ContactScale beyond verify.AbsSlack:
	// one-point rows against r1 + r2 - the reference distance (the
	// reference's depth of a one-point contact), two-point rows against
	// ReferenceContact's depths beyond the normal-angle term
	// (verify.CheckContact's MDepthErr). +Inf for a NaN.
	Worst float64
	// Failed counts rows failing a check against the reference or the
	// specification, plus touching pairs missing from the output and
	// apart pairs whose go-path row disagrees with the reference.
	Failed int
	// Missing counts pairs that touch per the go path's BatchContacts but
	// are not in the output (included in Failed).
	Missing int
	// Mismatches counts rows whose 13 streams differ from the go path's
	// compacted output (or whose contact differs from the go path's
	// BatchContacts row of the pair), plus the difference of the row
	// counts.
	Mismatches int
	// Borderline counts pairs (touching or not) whose Count was not
	// compared with the reference: within the documented bands around the
	// touching threshold, the parallel tolerance or an empty overlap.
	Borderline int
	// RefDisagree counts those borderline pairs on which the reference's
	// count differs from the kernel's (not a failure).
	RefDisagree int
	Examples    []string // the first few problems

	mismatchExamples int
}

// OK reports whether every check passed.
func (v contactVerdict) OK() bool { return v.Failed == 0 && v.Mismatches == 0 }

func (v *contactVerdict) fail(format string, args ...any) {
	v.Failed++
	if len(v.Examples) < maxExamples {
		v.Examples = append(v.Examples, fmt.Sprintf(format, args...))
	}
}

// example keeps a mismatch for the report: at most two of them, so that
// the failures that explain them find room among the examples.
func (v *contactVerdict) example(format string, args ...any) {
	if v.mismatchExamples < 2 && len(v.Examples) < maxExamples {
		v.mismatchExamples++
		v.Examples = append(v.Examples, fmt.Sprintf(format, args...))
	}
}

// verifyContacts checks got, the n rows one path's CompactContacts wrote
// for s.Pairs, row by row:
//
//   - bit identity (mismatches): n equals the go path's count, every row's
//     13 streams equal the go path's compacted row and its contact equals
//     the go path's BatchContacts row of that pair (compaction keeps the
//     kernel's bits);
//   - structure: Pair strictly increasing and in range, Count 1 or 2;
//   - completeness: every pair the output skips has Count 0 in the go
//     path's BatchContacts (else a missing touching pair), and that
//     row passes verify.CheckContact too, so the reference agrees that it
//     is apart outside the borderline bands;
//   - each row against the float64 reference, with verify.CheckContact
//     (the tolerance logic of fallback/contact_test.go): Count against
//     fallback.ReferenceContact except in the documented borderline bands
//     (touching threshold within 16 eps32 x scale, parallel tolerance, empty
//     overlap), | |n| - 1 | within 4 eps32, the normal's direction against
//     the reference where the distance is well above rounding, points
//     midway between the surfaces, two-point manifolds against the
//     reference; plus the depth: one-point rows within 8 eps32 x scale of
//     r1 + r2 - the reference distance, scale = ContactScale (coordinates,
//     radii and margin).
func verifyContacts(s *contactSet, got *soa.Contacts, n int) contactVerdict {
	v := contactVerdict{}
	np := s.Pairs.Len()
	if n != s.GoldenN {
		v.Mismatches += abs(n - s.GoldenN)
		v.example("%d contacts, the go path %d", n, s.GoldenN)
	}
	if n < 0 || n > got.Len() || n > np {
		v.fail("count %d out of range (%d rows, %d pairs)", n, got.Len(), np)
		return v
	}
	next := 0 // the first pair not yet accounted for
	for r := range n {
		pk := int(got.Pair[r])
		inRange := pk >= next && pk < np
		switch {
		case r < s.GoldenN && rowBits(got, r) != rowBits(s.Golden, r):
			v.Mismatches++
			v.example("row %d (pair %d) differs from the go path's row %d (pair %d)", r, pk, r, s.Golden.Pair[r])
		case inRange && !contactBitsEqual(got, r, s.All, pk):
			v.Mismatches++
			v.example("row %d differs from the go path's BatchContacts row of pair %d", r, pk)
		}
		if !inRange {
			v.fail("row %d: Pair %d out of order or range (previous row's pair %d, %d pairs)", r, pk, next-1, np)
			continue
		}
		for q := next; q < pk; q++ {
			v.checkApart(s, q)
		}
		next = pk + 1
		v.checkRow(s, got, r, pk)
	}
	for q := next; q < np; q++ {
		v.checkApart(s, q)
	}
	return v
}

// checkApart checks pair q, which the output skips: the go path's
// BatchContacts must say it is apart, and the reference must agree.
func (v *contactVerdict) checkApart(s *contactSet, q int) {
	if s.All.Count[q] != 0 {
		v.Missing++
		v.fail("pair %d (capsules %d, %d) touches (BatchContacts Count %d, depth %v) but is not in the output",
			q, s.Pairs.I[q], s.Pairs.J[q], s.All.Count[q], s.All.Depth1[q])
		return
	}
	p := verify.PairAt(s.Caps, s.Pairs, q)
	rep := verify.CheckContact(p, s.Margin, contactAt(s.All, q), false)
	v.borderline(rep, 0)
	if !rep.OK() {
		v.fail("pair %d (apart per BatchContacts) %v: %v", q, p, rep.Problems)
	}
}

// checkRow checks compacted row r, the contact of pair pk.
func (v *contactVerdict) checkRow(s *contactSet, got *soa.Contacts, r, pk int) {
	c := contactAt(got, r)
	p := verify.PairAt(s.Caps, s.Pairs, pk)
	var why []string
	if c.Count != 1 && c.Count != 2 {
		why = append(why, fmt.Sprintf("Count %d in the compacted output", c.Count))
	}
	rep := verify.CheckContact(p, s.Margin, c, false)
	v.borderline(rep, int(c.Count))
	why = append(why, rep.Problems...)

	// The depth against the reference.
	if c.Count == 2 {
		// Against ReferenceContact's manifold depths (CheckContact held
		// them to DepthTol + PointTol beyond the normal-angle term); NaN
		// when the reference has no manifold (borderline parallel).
		if !math.IsNaN(rep.MDepthErr) {
			v.Worst = max(v.Worst, rep.MDepthErr)
		}
	} else {
		sc := verify.ContactScale(p, s.Margin)
		rsum := float64(p.C1.R) + float64(p.C2.R)
		want := rsum - rep.RefDist
		derr := 0.0
		if d := math.Abs(float64(c.Depth[0]) - want); !(d <= verify.AbsSlack) {
			derr = (d - verify.AbsSlack) / (verify.Eps32 * sc)
		}
		if math.IsNaN(derr) {
			derr = math.Inf(1)
		}
		v.Worst = max(v.Worst, derr)
		if !(derr <= verify.DepthTol) {
			why = append(why, fmt.Sprintf("depth %v, reference %.17g: error %.3g eps32 x scale > %d",
				c.Depth[0], want, derr, verify.DepthTol))
		}
	}
	if len(why) > 0 {
		v.fail("row %d, pair %d (capsules %d, %d) %v: got %+v: %v", r, pk, s.Pairs.I[pk], s.Pairs.J[pk], p, c, why)
	}
}

// borderline counts a pair whose Count was not compared with the reference.
func (v *contactVerdict) borderline(rep verify.ContactReport, count int) {
	if rep.Borderline == "" {
		return
	}
	v.Borderline++
	if rep.RefCount != count {
		v.RefDisagree++
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ---- point-segment batch ----------------------------------------------

// pointBatch returns the point-segment batch of the scene: for candidate
// pair k, the end A of capsule I's axis (a sphere's centre) against capsule
// J's axis — the sphere-capsule test, and for two capsules the end-cap
// test.
func pointBatch(caps []capsule, cands []candidate) *soa.PointSegments {
	p := soa.NewPointSegments(len(cands))
	for k, c := range cands {
		a, b := caps[c.I], caps[c.J]
		p.Set(k, a.P0, b.P0, b.P1)
	}
	return p
}

// widenPoints returns p in float64, and as segment pairs whose first
// segment is the point (A = B = P), for the exact oracle.
func widenPoints(p *soa.PointSegments) (*soa.PointSegments64, *soa.Pairs64) {
	p64, pairs := soa.NewPointSegments64(p.Len()), soa.NewPairs64(p.Len())
	w := func(x, y, z float32) [3]float64 { return [3]float64{float64(x), float64(y), float64(z)} }
	for i := range p.Len() {
		pt, c, d := w(p.PX[i], p.PY[i], p.PZ[i]), w(p.CX[i], p.CY[i], p.CZ[i]), w(p.DX[i], p.DY[i], p.DZ[i])
		p64.Set(i, pt, c, d)
		pairs.Set(i, pt, pt, c, d)
	}
	return p64, pairs
}

// pointAsClosest returns point results as closest-point results of the
// pairs of widenPoints: S = 0 (the point), T and Dist2 as given.
func pointAsClosest(r *soa.PointResults64) *soa.Results64 {
	out := soa.NewResults64(r.Len())
	copy(out.T, r.T)
	copy(out.Dist2, r.Dist2)
	return out
}

// referencePointPass runs fallback.ReferenceClosestPoint on every pair of
// p and stores the squared distances in d2. It returns the sum of the
// parameters, which only keeps the work alive.
func referencePointPass(p *soa.PointSegments, d2 []float64) float64 {
	var sink float64
	d2 = d2[:p.Len()]
	for i := range d2 {
		pt := [3]float64{float64(p.PX[i]), float64(p.PY[i]), float64(p.PZ[i])}
		c := [3]float64{float64(p.CX[i]), float64(p.CY[i]), float64(p.CZ[i])}
		d := [3]float64{float64(p.DX[i]), float64(p.DY[i]), float64(p.DZ[i])}
		t, dd := fallback.ReferenceClosestPoint(pt, c, d)
		d2[i] = dd
		sink += t
	}
	return sink
}

// pointLaneError measures one BatchClosestPoint result (t, dist2) for
// point-segment pair i of p against the reference squared distance refD2:
// the error of sqrt(dist2) and that of the distance from the point to
// C + t(D-C) (in float64), in eps32 x scale, scale the largest |coordinate|
// of the point and the segment. ok is false if either exceeds maxErrEps, if
// t is outside [0,1] or if anything is NaN.
func pointLaneError(p *soa.PointSegments, i int, t, dist2 float32, refD2 float64) (distErr, pointErr float64, ok bool) {
	pt := [3]float32{p.PX[i], p.PY[i], p.PZ[i]}
	c := [3]float32{p.CX[i], p.CY[i], p.CZ[i]}
	d := [3]float32{p.DX[i], p.DY[i], p.DZ[i]}
	sc := 0.0
	for _, v := range [][3]float32{pt, c, d} {
		for _, x := range v {
			sc = max(sc, math.Abs(float64(x)))
		}
	}
	ref := math.Sqrt(refD2)
	distErr = errEps(math.Sqrt(float64(dist2)), ref, sc)
	t64 := float64(t)
	var pd2 float64
	for k := range 3 {
		r := float64(c[k]) + t64*(float64(d[k])-float64(c[k])) - float64(pt[k])
		pd2 += r * r
	}
	pointErr = errEps(math.Sqrt(pd2), ref, sc)
	ok = distErr <= maxErrEps && pointErr <= maxErrEps && t >= 0 && t <= 1
	return distErr, pointErr, ok
}

// verifyPoints checks every lane of res (one path's BatchClosestPoint
// output for p) against the reference squared distances refD2
// (PointLaneError) and, if golden is not nil, against the go path's bits.
func verifyPoints(p *soa.PointSegments, res *soa.PointResults, refD2 []float64, golden *soa.PointResults) verdict {
	var v verdict
	for i := range p.Len() {
		t, d2 := res.T[i], res.Dist2[i]
		de, pe, ok := pointLaneError(p, i, t, d2, refD2[i])
		w := max(de, pe)
		if math.IsNaN(w) {
			w = math.Inf(1)
		}
		v.Worst = max(v.Worst, w)
		mis := golden != nil && (math.Float32bits(t) != math.Float32bits(golden.T[i]) ||
			math.Float32bits(d2) != math.Float32bits(golden.Dist2[i]))
		if !ok {
			v.Failed++
		}
		if mis {
			v.Mismatches++
		}
		if (!ok || mis) && len(v.Examples) < maxExamples {
			f := failure{Lane: i, Pair: soa.Pair{
				A: [3]float32{p.PX[i], p.PY[i], p.PZ[i]}, B: [3]float32{p.PX[i], p.PY[i], p.PZ[i]},
				C: [3]float32{p.CX[i], p.CY[i], p.CZ[i]}, D: [3]float32{p.DX[i], p.DY[i], p.DZ[i]}},
				T: t, Dist2: d2, RefDist2: refD2[i], DistErr: de, PointErr: pe,
				Mismatch: mis, VerificationFailed: !ok}
			if mis {
				f.GoT, f.GoDist2 = golden.T[i], golden.Dist2[i]
			}
			v.Examples = append(v.Examples, f)
		}
	}
	return v
}

// contactAt returns row r of c as a fallback.Contact.
func contactAt(c *soa.Contacts, r int) fallback.Contact {
	_, ct := verify.ContactRow(c, r)
	return ct
}
