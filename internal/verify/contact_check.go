package verify

import (
	"fmt"
	"math"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// ---- checking one contact ----------------------------------------------

// Tolerances of CheckContact, in eps32 x ContactScale unless stated, on
// top of AbsSlack (the absolute allowance for lengths below 2^-63).
const (
	// DepthTol bounds the error of the depth of a one-point contact
	// against the exact r1 + r2 - distance: the distance contract of the
	// closest-point kernel (8 eps32 x scale), the scale including the radii
	// so that the rounding of r1 + r2 and of the subtraction, each half an
	// ulp of a value below about 2 x scale, fits in it (measured worst:
	// see TestContactLaneAccuracy).
	DepthTol = 8
	// NormalLenTol bounds | |n| - 1 | in eps32: the normalisation is a
	// rounded square root, a rounded reciprocal and three rounded
	// products, each half an ulp, and the squared length itself carries
	// three rounded squares and two rounded sums.
	NormalLenTol = 4
	// SurfaceTol bounds how far a contact point is from midway between the
	// surfaces: |dist(p, axis i) - r_i + depth/2|. The point is (C + tu) +
	// n(|r| + r2-r1)/2, a manifold point C + (t_k u + (r_k +
	// n(r2-r1))/2): about six roundings of values below 2 x scale
	// (2^-24 x 2 each: 0.5 eps each, 3 in all), half the distance error
	// (8/2 = 4, it enters halved), and the optimality error of the
	// closest points (up to 8: when Q is not exactly the foot of P the
	// point's distance to the axis differs from |p - Q| by at most the
	// optimality error, given dist >= |r1 - r2|); 16 covers all three.
	SurfaceTol = 16
	// PointTol bounds the distance between a two-point manifold point and
	// the reference point (the same terms as SurfaceTol), plus the normal
	// angle error times |(r_k + (r2-r1) n)/2|, added by CheckContact.
	PointTol = 16
	// TouchBand is the half-width, in eps32 x scale, of the band around the
	// touching threshold dist = r1 + r2 + margin in which Count is not
	// compared with the reference: twice the depth tolerance (the distance
	// error and the rounding of r1 + r2 + margin).
	TouchBand = 16
	// ParallelBand is the relative half-width of the band around
	// sin^2 = ParallelTolerance2 in which Count 1 versus 2 is not compared,
	// before the term for the rounding of the axes (see parallelBand).
	ParallelBand = 0x1p-10
)

// ContactReport is the outcome of CheckContact: the measured errors (NaN
// where a quantity was not compared) and the problems found, empty when
// the contact passes.
type ContactReport struct {
	Scale      float64 // ContactScale
	RefCount   int     // fallback.ReferenceContact's count
	RefDist    float64 // the float64 reference distance of the axes
	Borderline string  // why Count was not compared ("" when it was)

	DepthErr    float64 // one-point depth vs exact, eps32 x scale
	NormalLen   float64 // | |n| - 1 | in eps32
	NormalAngle float64 // angle between n and the reference normal, radians
	AngleBound  float64 // the bound NormalAngle was held to
	SurfaceErr  float64 // worst |dist(p_k, axis i) - r_i + depth_k/2|, eps32 x scale, beyond the geometric term
	PointErr    float64 // two-point manifold points vs reference, eps32 x scale, beyond the normal term
	MDepthErr   float64 // two-point manifold depths vs reference, eps32 x scale, beyond the normal term

	Problems []string
}

func (r *ContactReport) fail(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// OK reports whether no problem was found.
func (r *ContactReport) OK() bool { return len(r.Problems) == 0 }

// InRange reports whether the pair's inputs are finite, the radii and the
// margin non-negative and ContactScale at most MaxRange: the inputs on
// which CheckContact holds the contact to its accuracy tolerances.
func InRange(p CapsulePair, margin float32) bool {
	if !Finite(p.Axes()) || !(p.C1.R >= 0 && p.C2.R >= 0 && margin >= 0) {
		return false
	}
	return ContactScale(p, margin) <= MaxRange
}

func cIsCanonicalNaN(x float32) bool { return math.Float32bits(x) == CanonicalNaNBits }

// IsNaNContact reports whether every float of c is the canonical NaN and
// Count is 0: the answer for a non-finite lane.
func IsNaNContact(c fallback.Contact) bool {
	if c.Count != 0 {
		return false
	}
	for _, x := range contactFloats(c) {
		if !cIsCanonicalNaN(x) {
			return false
		}
	}
	return true
}

func contactFloats(c fallback.Contact) [11]float32 {
	return [11]float32{c.Depth[0], c.Depth[1], c.Normal[0], c.Normal[1], c.Normal[2],
		c.Point[0][0], c.Point[0][1], c.Point[0][2], c.Point[1][0], c.Point[1][1], c.Point[1][2]}
}

func cSqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func cW64(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

func cNorm64(v [3]float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }

func cSub64(x, y [3]float64) [3]float64 { return [3]float64{x[0] - y[0], x[1] - y[1], x[2] - y[2]} }

func cDot64(x, y [3]float64) float64 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }

// distToAxis returns the float64 distance from x to the segment a-b.
func distToAxis(x [3]float64, a, b [3]float32) float64 {
	_, d2 := fallback.ReferenceClosestPoint(x, cW64(a), cW64(b))
	return math.Sqrt(d2)
}

// angleBetween returns the angle between unit vectors x and y, accurate
// for small angles (2 asin(|x-y|/2)).
func angleBetween(x, y [3]float64) float64 {
	return 2 * math.Asin(math.Min(1, cNorm64(cSub64(x, y))/2))
}

// CheckContact checks the contact got of pair p with margin against the
// specification's bit-exact identities and against the float64 reference
// and the exact oracle, within the tolerances above. The pair need not be
// in range: non-finite lanes must be canonical NaN with Count 0, in-range
// lanes finite; the accuracy checks run on in-range lanes only, and need
// exact (the exact oracle, which costs about 20 microseconds) only for the
// depth check.
//
// Bit-exact identities (from the operation order of ContactLane, so every
// path must satisfy them): Count > 0 exactly when cSqrt32(dist2) <= (r1 +
// r2) + margin in float32, dist2 from fallback.ClosestLane; for Count <= 1,
// Depth[0] = (r1 + r2) - cSqrt32(dist2) and point 2 repeats point 1.
func CheckContact(p CapsulePair, margin float32, got fallback.Contact, exact bool) ContactReport {
	c := newContactCheck(p, margin, got)
	if c.nonFinite() {
		return c.rep
	}
	c.spec()
	c.normalLength()
	if !InRange(p, margin) {
		return c.rep
	}
	c.reference()
	c.count()
	c.depth(exact)
	c.normalDirection()
	c.midway()
	c.manifold()
	return c.rep
}

// contactCheck is one CheckContact in progress: the pair, the contact
// under test, the reference values once computed, and the report.
type contactCheck struct {
	p      CapsulePair
	margin float32
	got    fallback.Contact
	rep    ContactReport
	ax     soa.Pair
	r1, r2 float32
	n      [3]float64 // the normal under test, widened

	// From reference: errors in units of eps32 x scale beyond AbsSlack.
	unit     float64
	refCount int
	refDepth [2]float64
	refN     [3]float64
	refPts   [2][3]float64
	refDist  float64
	rsum     float64
	angle    float64 // normal vs reference normal, Pi when not compared
}

func newContactCheck(p CapsulePair, margin float32, got fallback.Contact) *contactCheck {
	nan := math.NaN()
	return &contactCheck{p: p, margin: margin, got: got, ax: p.Axes(), r1: p.C1.R, r2: p.C2.R,
		rep: ContactReport{Scale: ContactScale(p, margin), DepthErr: nan, NormalLen: nan, NormalAngle: nan,
			AngleBound: nan, SurfaceErr: nan, PointErr: nan, MDepthErr: nan},
		angle: math.Pi}
}

func (c *contactCheck) fail(format string, args ...any) { c.rep.fail(format, args...) }

// excess is an error in units of eps32 x scale beyond AbsSlack, the
// absolute allowance for squares of lengths below 2^-63 (subnormal or
// zero in float32; see its comment): at scale 1e-17 such an error is 1e5
// eps32 x scale (measured), at scale 1 it is invisible.
func (c *contactCheck) excess(err float64) float64 {
	if err <= AbsSlack {
		return 0 // also at scale 0 (every input zero)
	}
	return (err - AbsSlack) / c.unit
}

// nonFinite checks the lanes whose input or output is not finite and
// reports whether the check is complete.
func (c *contactCheck) nonFinite() (done bool) {
	got := c.got
	if !Finite(c.ax) || !cFinite32(c.r1) || !cFinite32(c.r2) {
		if !IsNaNContact(got) {
			c.fail("non-finite input: got %+v, want Count 0 and the canonical NaN everywhere", got)
		}
		return true
	}
	// Finite input: within MaxRange every output must be finite; beyond
	// it the lane may overflow, but then it must be the canonical NaN lane
	// (a NaN produced by the hardware has a platform-dependent sign and
	// payload, which would break bit-identity across GOARCHes).
	anyNaN, allFinite := false, true
	for _, x := range contactFloats(got) {
		anyNaN = anyNaN || math.IsNaN(float64(x))
		allFinite = allFinite && cFinite32(x)
	}
	if ContactScale(c.p, c.margin) <= MaxRange {
		if !allFinite {
			c.fail("finite input within MaxRange, but a non-finite output: %+v", got)
			return true
		}
	} else if anyNaN {
		if !IsNaNContact(got) {
			c.fail("finite input beyond MaxRange: a NaN output must make the whole lane the canonical NaN with Count 0, got %+v", got)
		}
		return true
	}
	return false
}

// spec checks the bit-exact identities of the specification: Count
// against the touching test on ClosestLane's distance, Depth[0] and the
// repeated point of a one-point contact.
func (c *contactCheck) spec() {
	ax, got := c.ax, c.got
	_, _, d2 := fallback.ClosestLane(ax.A[0], ax.A[1], ax.A[2], ax.B[0], ax.B[1], ax.B[2],
		ax.C[0], ax.C[1], ax.C[2], ax.D[0], ax.D[1], ax.D[2])
	dist32 := cSqrt32(d2)
	rsum32 := c.r1 + c.r2
	if touch := dist32 <= rsum32+c.margin; touch != (got.Count > 0) {
		c.fail("Count = %d but sqrt32(ClosestLane dist2) = %v <= (r1+r2)+margin = %v is %v", got.Count, dist32, rsum32+c.margin, touch)
	}
	if got.Count > 2 {
		c.fail("Count = %d > 2", got.Count)
	}
	if got.Count <= 1 {
		if want := rsum32 - dist32; math.Float32bits(got.Depth[0]) != math.Float32bits(want) {
			c.fail("Depth[0] = %v, want (r1+r2) - sqrt32(ClosestLane dist2) = %v bit for bit", got.Depth[0], want)
		}
		if math.Float32bits(got.Depth[1]) != math.Float32bits(got.Depth[0]) || got.Point[1] != got.Point[0] {
			c.fail("Count %d: point 2 (%v, %v) does not repeat point 1 (%v, %v)", got.Count, got.Point[1], got.Depth[1], got.Point[0], got.Depth[0])
		}
	}
}

// normalLength checks that the normal is a unit vector.
func (c *contactCheck) normalLength() {
	c.n = cW64(c.got.Normal)
	c.rep.NormalLen = math.Abs(cNorm64(c.n)-1) / Eps32
	if !(c.rep.NormalLen <= NormalLenTol) {
		c.fail("| |n| - 1 | = %.3g eps32 > %d (n = %v)", c.rep.NormalLen, NormalLenTol, c.got.Normal)
	}
}

// reference computes the float64 reference contact and distance.
func (c *contactCheck) reference() {
	ax := c.ax
	c.unit = Eps32 * c.rep.Scale
	c.refCount, c.refDepth, c.refN, c.refPts = fallback.ReferenceContactF32(ax.A, ax.B, c.r1, ax.C, ax.D, c.r2, c.margin)
	c.rep.RefCount = c.refCount
	_, _, refD2 := fallback.ReferenceF32(ax.A, ax.B, ax.C, ax.D)
	c.refDist = math.Sqrt(refD2)
	c.rep.RefDist = c.refDist
	c.rsum = float64(c.r1) + float64(c.r2)
}

// count compares Count with the reference away from the borderline bands
// (the touching threshold, the parallel tolerance, an empty overlap).
func (c *contactCheck) count() {
	ax, unit := c.ax, c.unit
	m0 := cSub64(cW64(ax.B), cW64(ax.A))
	m1 := cSub64(cW64(ax.D), cW64(ax.C))
	l0, l1 := cNorm64(m0), cNorm64(m1)
	switch {
	case math.Abs(c.refDist-(c.rsum+float64(c.margin))) <= TouchBand*unit+2*AbsSlack:
		c.rep.Borderline = "touching threshold"
	case l0 > 0 && l1 > 0:
		cr := fallback.Cross3(m0, m1)
		sin2 := cDot64(cr, cr) / (l0 * l0 * l1 * l1)
		tol := fallback.ParallelTolerance2
		if math.Abs(sin2-tol) <= tol*parallelBand(c.rep.Scale, math.Min(l0, l1)) {
			c.rep.Borderline = "parallel tolerance"
			break
		}
		if sin2 <= tol {
			// The overlap [lo, hi] of the projection of axis 1 on axis 2.
			ta := cDot64(cSub64(cW64(ax.A), cW64(ax.C)), m1) / (l1 * l1)
			tb := cDot64(cSub64(cW64(ax.B), cW64(ax.C)), m1) / (l1 * l1)
			lo, hi := math.Max(0, math.Min(ta, tb)), math.Min(1, math.Max(ta, tb))
			if math.Abs(hi-lo)*l1 <= 64*unit+AbsSlack {
				c.rep.Borderline = "empty overlap"
			}
		}
	}
	if c.rep.Borderline == "" && int(c.got.Count) != c.refCount {
		c.fail("Count = %d, reference %d (distance %.17g, r1+r2+margin %.17g)", c.got.Count, c.refCount, c.refDist, c.rsum+float64(c.margin))
	}
}

// depth checks the depth of the closest points: its sign away from the
// threshold r1 + r2 = distance (every lane), its value against exact
// arithmetic (when asked for).
func (c *contactCheck) depth(exact bool) {
	got := c.got
	if got.Count <= 1 && math.Abs(c.rsum-c.refDist) > DepthTol*c.unit+AbsSlack {
		if (got.Depth[0] > 0) != (c.rsum > c.refDist) {
			c.fail("depth %v has the wrong sign: r1+r2 = %.17g, distance %.17g", got.Depth[0], c.rsum, c.refDist)
		}
	}
	if exact && got.Count <= 1 {
		ex := Dist(ExactMinDist2(c.ax))
		c.rep.DepthErr = c.excess(math.Abs(float64(got.Depth[0]) - (c.rsum - ex)))
		if !(c.rep.DepthErr <= DepthTol) {
			c.fail("depth %v, exact %.17g: error %.3g eps32 x scale > %d", got.Depth[0], c.rsum-ex, c.rep.DepthErr, DepthTol)
		}
	}
}

// normalDirection compares the normal with the reference normal. The
// closest-point contract (distance and optimality within 8 eps32 x scale
// each) lets the reported points slide along a shallow valley of the
// distance; at distance h an optimality error e tilts P-Q by at most about
// sqrt(2 e / h), and a distance error by e / h. Compared wherever that
// bound is below 0.5 rad, which also shows that the normal points from
// capsule 2 toward capsule 1 (the reference normal is (P-Q)/|P-Q|). The
// measured angle (the reference is exact to float64 rounding) bounds how
// much the normal moves the points and depths checked next.
func (c *contactCheck) normalDirection() {
	if c.refDist <= 0 {
		return
	}
	e := 8*c.unit + AbsSlack
	c.rep.AngleBound = math.Sqrt(2*e/c.refDist) + 2*e/c.refDist + 8*Eps32
	if c.rep.AngleBound < 0.5 {
		c.rep.NormalAngle = angleBetween(c.n, c.refN)
		c.angle = c.rep.NormalAngle
		if !(c.rep.NormalAngle <= c.rep.AngleBound) {
			c.fail("normal %v vs reference %v: angle %.3g > bound %.3g (distance %.3g)", c.got.Normal, c.refN, c.rep.NormalAngle, c.rep.AngleBound, c.refDist)
		}
	}
}

// midway checks that the points lie midway between the surfaces. With
// the normal along P-Q the point Q + n (dist + r2 - r1)/2 is at distance
// (dist + r2 - r1)/2 from axis 2 and (dist + r1 - r2)/2 from axis 1 when
// dist >= |r1 - r2|, so both distances minus the radius are -depth/2. A
// two-point manifold of nearly parallel axes measures depth along the
// common normal, not along P_k - Q_k; the reference point shows how far
// that is from midway (geo), and the check allows it.
func (c *contactCheck) midway() {
	got, ax, r1, r2 := c.got, c.ax, c.r1, c.r2
	npts := 1
	if got.Count == 2 {
		npts = 2
	}
	hr := math.Abs(float64(r2) - float64(r1))
	var gaps [2]float64 // |P_k - Q_k| of the reference manifold
	if got.Count == 2 && c.refCount == 2 {
		gaps = manifoldGaps(ax)
	}
	worstSurf := 0.0
	surfChecked := false
	for k := range npts {
		rk, geo, tilt := c.refDist, 0.0, 0.0
		if c.angle > 0.5 {
			continue // the normal, and so the point, is not determined by the reference
		}
		if got.Count == 2 {
			if c.refCount != 2 {
				continue // borderline parallel: no reference manifold
			}
			rk = gaps[k]
			geo = math.Max(surfDev(c.refPts[k], ax, r1, r2, c.refDepth[k], 1), surfDev(c.refPts[k], ax, r1, r2, c.refDepth[k], 2))
			// A normal off by angle moves the point by up to angle x
			// |r_k + (r2-r1) n|/2 and r_k.n, so depth_k/2, by angle x |r_k|/2.
			tilt = c.angle * (rk + hr)
		}
		if rk < hr+TouchBand*c.unit+2*AbsSlack {
			continue // midway lies beyond an axis (one axis deep inside the other capsule)
		}
		for axis := 1; axis <= 2; axis++ {
			dev := surfDev(cW64(got.Point[k]), ax, r1, r2, float64(got.Depth[k]), axis)
			surfChecked = true
			worstSurf = math.Max(worstSurf, c.excess(dev-geo-tilt))
		}
	}
	if surfChecked {
		c.rep.SurfaceErr = worstSurf
		if !(worstSurf <= SurfaceTol) {
			c.fail("contact point not midway between the surfaces: %.3g eps32 x scale > %d (points %v, depths %v)", worstSurf, SurfaceTol, got.Point, got.Depth)
		}
	}
}

// manifold checks a two-point manifold's points and depths against the
// reference manifold.
func (c *contactCheck) manifold() {
	got := c.got
	if got.Count != 2 || c.refCount != 2 || c.angle >= 0.5 {
		return
	}
	gaps := manifoldGaps(c.ax)
	hr := math.Abs(float64(c.r2) - float64(c.r1))
	wp, wd := 0.0, 0.0
	for k := range 2 {
		dp := cNorm64(cSub64(cW64(got.Point[k]), c.refPts[k]))
		wp = math.Max(wp, c.excess(dp-c.angle*(gaps[k]+hr)))
		dd := math.Abs(float64(got.Depth[k]) - c.refDepth[k])
		wd = math.Max(wd, c.excess(dd-c.angle*gaps[k]))
	}
	c.rep.PointErr, c.rep.MDepthErr = wp, wd
	if !(wp <= PointTol) {
		c.fail("manifold points %v vs reference %v: %.3g eps32 x scale > %d", got.Point, c.refPts, wp, PointTol)
	}
	if !(wd <= DepthTol+PointTol) {
		c.fail("manifold depths %v vs reference %v: %.3g eps32 x scale > %d", got.Depth, c.refDepth, wd, DepthTol+PointTol)
	}
}

// manifoldGaps returns |P_k - Q_k| for the two points of the reference
// two-point manifold: Q_k at the ends lo, hi of the overlap on axis 2, P_k
// the closest point of axis 1 to Q_k.
func manifoldGaps(ax soa.Pair) [2]float64 {
	a, b, c, d := cW64(ax.A), cW64(ax.B), cW64(ax.C), cW64(ax.D)
	m1 := cSub64(d, c)
	l := cDot64(m1, m1)
	ta := cDot64(cSub64(a, c), m1) / l
	tb := cDot64(cSub64(b, c), m1) / l
	var g [2]float64
	for k, t := range [2]float64{math.Max(0, math.Min(ta, tb)), math.Min(1, math.Max(ta, tb))} {
		q := [3]float64{c[0] + t*m1[0], c[1] + t*m1[1], c[2] + t*m1[2]}
		_, d2 := fallback.ReferenceClosestPoint(q, a, b)
		g[k] = math.Sqrt(d2)
	}
	return g
}

// parallelBand is the relative half-width of the band around the parallel
// tolerance: ParallelBand, plus the effect of the rounding of the axes
// (each component of B-A, D-C and of the projection carries an absolute
// error of a few eps32 x scale, which moves sin by about that over the
// axis length, and sin^2 relatively by twice that over sin).
func parallelBand(scale, minLen float64) float64 {
	return ParallelBand + 64*Eps32*scale/(minLen*math.Sqrt(fallback.ParallelTolerance2))
}

// surfDev returns dist(x, axis) - r_axis + depth/2 for axis 1 or 2.
func surfDev(x [3]float64, ax soa.Pair, r1, r2 float32, depth float64, axis int) float64 {
	if axis == 1 {
		return math.Abs(distToAxis(x, ax.A, ax.B) - float64(r1) + depth/2)
	}
	return math.Abs(distToAxis(x, ax.C, ax.D) - float64(r2) + depth/2)
}

func cFinite32(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
