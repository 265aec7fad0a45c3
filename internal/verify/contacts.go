package verify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// This file is the test support of the contact kernels (sphere-capsule and
// capsule-capsule contacts, point-segment batches, indexed pairs and
// compaction): adversarial capsule pairs, scene and index builders, and
// CheckContact, which checks one contact against the float64 reference
// fallback.ReferenceContact and the exact oracle.

// Capsule is one capsule in array-of-structs form: the axis from A to B and
// the radius R. A sphere has A = B.
type Capsule struct {
	A, B [3]float32
	R    float32
}

// CapsulePair is capsule 1 against capsule 2: the contact normal points
// from C2 toward C1 (in an IndexPairs, C1 is capsule I[k], C2 is J[k]).
type CapsulePair struct {
	C1, C2 Capsule
}

// Axes returns the two axes as a segment pair.
func (p CapsulePair) Axes() soa.Pair {
	return soa.Pair{A: p.C1.A, B: p.C1.B, C: p.C2.A, D: p.C2.B}
}

// Lane runs fallback.ContactLane on the pair.
func (p CapsulePair) Lane(margin float32) fallback.Contact {
	a, b, c, d := p.C1.A, p.C1.B, p.C2.A, p.C2.B
	return fallback.ContactLane(a[0], a[1], a[2], b[0], b[1], b[2], p.C1.R,
		c[0], c[1], c[2], d[0], d[1], d[2], p.C2.R, margin)
}

// Swap returns the pair with the capsules exchanged.
func (p CapsulePair) Swap() CapsulePair { return CapsulePair{p.C2, p.C1} }

// ContactScale is the unit of the contact accuracy checks: the largest of
// the pair's |coordinates|, its radii and the margin. Depths and points
// are sums of coordinates and radii, so their rounding is relative to the
// largest of them, not to the coordinates alone.
func ContactScale(p CapsulePair, margin float32) float64 {
	s := Scale(p.Axes())
	for _, x := range []float32{p.C1.R, p.C2.R, margin} {
		s = math.Max(s, math.Abs(float64(x)))
	}
	return s
}

// String prints the pair as Go source for a test case.
func (p CapsulePair) String() string {
	return fmt.Sprintf("A=%v B=%v r1=%v C=%v D=%v r2=%v", p.C1.A, p.C1.B, p.C1.R, p.C2.A, p.C2.B, p.C2.R)
}

// CapsuleCategory is one family of adversarial capsule pairs. Gen builds a
// pair for the given margin (categories that aim at the touching threshold
// aim at r1 + r2 + margin).
type CapsuleCategory struct {
	Name string
	Gen  func(r *rand.Rand, margin float32) CapsulePair
}

// CapsuleCategories returns every capsule category, in a fixed order.
//
//   - random: endpoints uniform in [-5,5]^3, mixed radii (zero, small,
//     up to 2), a fifth of the capsules zero-length (spheres).
//   - spheres, sphere-capsule: both, or one (random which), zero-length.
//   - touching: random axes (sometimes zero-length) with r1 + r2 + margin
//     equal to the distance of the axes times 1 + delta, delta zero or
//     log-uniform in ±[1e-7, 1e-2]: the touching threshold from both sides.
//   - crossing: axes through a common grid point exactly (distance 0: the
//     normal comes from the fallback, the depth is r1 + r2).
//   - collinear: both axes exactly on one line, overlapping or not.
//   - coincident-spheres: two spheres with the same centre (normal (0,0,1));
//     sometimes a capsule whose axis degenerates at the same point too.
//   - centre-on-axis: a sphere whose centre lies exactly on the other axis.
//   - stacked: exactly parallel or antiparallel axes (dyadic grid) offset
//     perpendicularly by about r1 + r2, usually overlapping: the two-point
//     manifold.
//   - near-parallel-below, near-parallel-above: axes at an angle whose
//     squared sine is below (1e-3 to 0.9 of) or above (1.1 to 100 times)
//     fallback.ParallelTolerance2, overlapping, about touching.
//   - far: touching pairs of unit size 1e4 to 1e5 from the origin.
//   - deep: one axis deep inside the other capsule (distance below
//     |r1 - r2|), where the midway point lies beyond an axis.
//   - axis-aligned: axes along coordinate axes on a coarse grid (exactly
//     representable parallel, perpendicular and crossing configurations).
//   - tiny-axis: one capsule near the origin with an axis 2^-50 to 2^-80
//     long (|B-A|^2 from a normal float32 down through the subnormals to
//     zero), against a random capsule: nearly a sphere, never NaN.
func CapsuleCategories() []CapsuleCategory {
	return []CapsuleCategory{
		{"random", genCapRandom},
		{"spheres", genCapSpheres},
		{"sphere-capsule", genCapSphereCapsule},
		{"touching", genCapTouching},
		{"crossing", genCapCrossing},
		{"collinear", genCapCollinear},
		{"coincident-spheres", genCapCoincident},
		{"centre-on-axis", genCapCentreOnAxis},
		{"stacked", genCapStacked},
		{"near-parallel-below", func(r *rand.Rand, m float32) CapsulePair { return genCapNearParallel(r, m, false) }},
		{"near-parallel-above", func(r *rand.Rand, m float32) CapsulePair { return genCapNearParallel(r, m, true) }},
		{"far", genCapFar},
		{"deep", genCapDeep},
		{"axis-aligned", genCapAxisAligned},
		{"tiny-axis", genCapTinyAxis},
	}
}

// CapsuleMargins are the margins the tests sweep: zero, a small dyadic
// value and a large one.
var CapsuleMargins = []float32{0, 0x1p-6, 0.25}

// MixedCapsulePairs returns perCategory pairs of every capsule category for
// the given margin, category by category; category k draws from
// NewRand(seed, k).
func MixedCapsulePairs(seed uint64, perCategory int, margin float32) []CapsulePair {
	cats := CapsuleCategories()
	out := make([]CapsulePair, 0, len(cats)*perCategory)
	for k, c := range cats {
		r := NewRand(seed, uint64(k))
		for range perCategory {
			out = append(out, c.Gen(r, margin))
		}
	}
	return out
}

// randRadius returns a radius: zero an eighth of the time, tiny (1e-3) an
// eighth, else uniform in (0, 2].
func randRadius(r *rand.Rand) float32 {
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return 1e-3
	}
	return float32(uniform(r, 0.01, 2))
}

// randCapsule returns a capsule in [-h,h]^3, zero-length with probability
// 1/5, with a randRadius.
func randCapsule(r *rand.Rand, h float64) Capsule {
	a := inCube(r, h)
	b := inCube(r, h)
	if r.IntN(5) == 0 {
		b = a
	}
	return Capsule{A: a.f32(), B: b.f32(), R: randRadius(r)}
}

func genCapRandom(r *rand.Rand, _ float32) CapsulePair {
	return CapsulePair{randCapsule(r, 5), randCapsule(r, 5)}
}

func genCapSpheres(r *rand.Rand, _ float32) CapsulePair {
	a, c := inCube(r, 3), inCube(r, 3)
	return CapsulePair{Capsule{a.f32(), a.f32(), randRadius(r)}, Capsule{c.f32(), c.f32(), randRadius(r)}}
}

func genCapSphereCapsule(r *rand.Rand, _ float32) CapsulePair {
	s := inCube(r, 3)
	p := CapsulePair{Capsule{s.f32(), s.f32(), randRadius(r)}, Capsule{inCube(r, 3).f32(), inCube(r, 3).f32(), randRadius(r)}}
	if r.IntN(2) == 0 {
		return p.Swap()
	}
	return p
}

// axisDist returns the float64 reference distance between the axes.
func axisDist(p CapsulePair) float64 {
	ax := p.Axes()
	_, _, d2 := fallback.ReferenceF32(ax.A, ax.B, ax.C, ax.D)
	return math.Sqrt(d2)
}

// touchRadii sets the radii so that r1 + r2 + margin is about dist (1 +
// delta): delta is 0 a quarter of the time, else log-uniform in ±[1e-7,
// 1e-2]; r1 takes a random share. When the margin alone exceeds the
// target, the radii are zero (the pair is then within the margin).
func touchRadii(r *rand.Rand, p CapsulePair, margin float32) CapsulePair {
	delta := 0.0
	if r.IntN(4) != 0 {
		delta = math.Pow(10, uniform(r, -7, -2))
		if r.IntN(2) == 0 {
			delta = -delta
		}
	}
	target := math.Max(0, axisDist(p)*(1+delta)-float64(margin))
	f := r.Float64()
	if r.IntN(6) == 0 {
		f = 0 // all of it on one capsule
	}
	p.C1.R = float32(target * f)
	p.C2.R = float32(target - float64(p.C1.R))
	return p
}

func genCapTouching(r *rand.Rand, margin float32) CapsulePair {
	p := CapsulePair{randCapsule(r, 4), randCapsule(r, 4)}
	return touchRadii(r, p, margin)
}

func genCapCrossing(r *rand.Rand, _ float32) CapsulePair {
	ax := genCrossing(r)
	return CapsulePair{Capsule{ax.A, ax.B, randRadius(r)}, Capsule{ax.C, ax.D, randRadius(r)}}
}

func genCapCollinear(r *rand.Rand, _ float32) CapsulePair {
	ax := genCollinear(r)
	return CapsulePair{Capsule{ax.A, ax.B, randRadius(r)}, Capsule{ax.C, ax.D, randRadius(r)}}
}

func genCapCoincident(r *rand.Rand, _ float32) CapsulePair {
	x := gridVec(r, 4<<10, 0x1p-10).f32()
	p := CapsulePair{Capsule{x, x, randRadius(r)}, Capsule{x, x, randRadius(r)}}
	if r.IntN(4) == 0 {
		p.C1.R, p.C2.R = 0, 0
	}
	return p
}

// genCapCentreOnAxis puts a sphere centre exactly on the other axis, at a
// parameter that is a multiple of 1/8 in [0,1] (dyadic grid).
func genCapCentreOnAxis(r *rand.Rand, _ float32) CapsulePair {
	a := gridVec(r, 8<<10, 0x1p-10)
	w := gridDir(r)
	x := a.add(w.mul(float64(r.IntN(9)) / 8))
	p := CapsulePair{Capsule{a.f32(), a.add(w).f32(), randRadius(r)}, Capsule{x.f32(), x.f32(), randRadius(r)}}
	if r.IntN(2) == 0 {
		return p.Swap()
	}
	return p
}

// coarseDir returns a nonzero vector with components that are multiples of
// 2^-4 up to 4 in magnitude (so that cross products of two of them are
// exact in float32); a third of them lie along a coordinate axis.
func coarseDir(r *rand.Rand) vec {
	for {
		var w vec
		if r.IntN(3) == 0 {
			w[r.IntN(3)] = gridVal(r, 64, 0x1p-4)
		} else {
			w = gridVec(r, 64, 0x1p-4)
		}
		if w != (vec{}) {
			return w
		}
	}
}

// genCapStacked builds exactly parallel or antiparallel axes: B = A + w,
// C = A + h n + alpha w, D = C ± 2^i w, with n = w x g exact, h a power of
// two, every coordinate a multiple of 2^-20 below 2^6 (exact in float32,
// and so are the differences the kernels compute). The radii make the
// capsules touch or nearly touch.
func genCapStacked(r *rand.Rand, margin float32) CapsulePair {
	for {
		a := gridVec(r, 8<<10, 0x1p-10)
		w := coarseDir(r)
		g := coarseDir(r)
		n := vec{w[1]*g[2] - w[2]*g[1], w[2]*g[0] - w[0]*g[2], w[0]*g[1] - w[1]*g[0]}
		if n == (vec{}) {
			continue
		}
		h := math.Ldexp(1, -r.IntN(7))
		alpha := float64(r.IntN(7)-2) * 0.25 // -0.5 .. 1
		c := a.add(n.mul(h)).add(w.mul(alpha))
		sign := 1.0
		if r.IntN(2) == 0 {
			sign = -1
		}
		d := c.add(w.mul(sign * math.Ldexp(1, r.IntN(3)-1)))
		p := CapsulePair{Capsule{a.f32(), a.add(w).f32(), 0}, Capsule{c.f32(), d.f32(), 0}}
		return touchRadii(r, p, margin)
	}
}

// genCapNearParallel builds overlapping axes at an angle whose squared
// sine is below (or above) ParallelTolerance2, about touching.
func genCapNearParallel(r *rand.Rand, margin float32, above bool) CapsulePair {
	tol := fallback.ParallelTolerance2
	var sin2 float64
	if above {
		sin2 = tol * math.Pow(10, uniform(r, math.Log10(1.1), 2))
	} else {
		sin2 = tol * math.Pow(10, uniform(r, -3, math.Log10(0.9)))
	}
	theta := math.Asin(math.Sqrt(sin2))
	u := unitVec(r)
	v := u.mul(math.Cos(theta)).add(perpTo(r, u).mul(math.Sin(theta)))
	l1, l2 := uniform(r, 0.5, 4), uniform(r, 0.5, 4)
	a := inCube(r, 3)
	b := a.add(u.mul(l1))
	x := a.add(u.mul(uniform(r, 0, 1) * l1)).add(perpTo(r, u).mul(math.Pow(10, uniform(r, -2, 0))))
	c := x.sub(v.mul(uniform(r, 0, 1) * l2))
	d := c.add(v.mul(l2))
	if r.IntN(2) == 0 {
		c, d = d, c
	}
	p := CapsulePair{Capsule{a.f32(), b.f32(), 0}, Capsule{c.f32(), d.f32(), 0}}
	return touchRadii(r, p, margin)
}

func genCapFar(r *rand.Rand, margin float32) CapsulePair {
	o := unitVec(r).mul(math.Pow(10, uniform(r, 4, 5)))
	cp := func() Capsule {
		a := o.add(inCube(r, 1))
		b := o.add(inCube(r, 1))
		if r.IntN(5) == 0 {
			b = a
		}
		return Capsule{A: a.f32(), B: b.f32()}
	}
	return touchRadii(r, CapsulePair{cp(), cp()}, margin)
}

func genCapDeep(r *rand.Rand, _ float32) CapsulePair {
	big := Capsule{inCube(r, 3).f32(), inCube(r, 3).f32(), float32(uniform(r, 2, 4))}
	ax := CapsulePair{C1: big}.Axes()
	// A small capsule near a point of the big axis, within 1 of it.
	s := r.Float64()
	var x vec
	for i := range 3 {
		x[i] = float64(ax.A[i]) + s*float64(ax.B[i]-ax.A[i])
	}
	x = x.add(inCube(r, 0.5))
	small := Capsule{x.f32(), x.add(inCube(r, 0.5)).f32(), float32(uniform(r, 0, 0.5))}
	if r.IntN(3) == 0 {
		small.B = small.A
	}
	if r.IntN(2) == 0 {
		return CapsulePair{small, big}
	}
	return CapsulePair{big, small}
}

func genCapAxisAligned(r *rand.Rand, _ float32) CapsulePair {
	seg := func(axis int) Capsule {
		a := gridVec(r, 4, 0.5)
		b := a
		b[axis] += float64(r.IntN(9)-4) * 0.5
		return Capsule{a.f32(), b.f32(), float32(r.IntN(5)) * 0.25}
	}
	i := r.IntN(3)
	j := i
	if r.IntN(2) == 0 {
		j = (i + 1 + r.IntN(2)) % 3
	}
	return CapsulePair{seg(i), seg(j)}
}

func genCapTinyAxis(r *rand.Rand, _ float32) CapsulePair {
	// A point within 2^10 lengths of the origin, so that float32 holds
	// the tiny difference B-A.
	l := math.Ldexp(1, -50-r.IntN(31))
	a := inCube(r, 1024*l)
	b := a.add(unitVec(r).mul(l))
	p := CapsulePair{Capsule{a.f32(), b.f32(), randRadius(r)}, randCapsule(r, 3)}
	if r.IntN(2) == 0 {
		return p.Swap()
	}
	return p
}

// ---- scenes and index pairs ---------------------------------------------

// CapsuleAt returns capsule i of c.
func CapsuleAt(c *soa.Capsules, i int) Capsule {
	return Capsule{
		A: [3]float32{c.AX[i], c.AY[i], c.AZ[i]},
		B: [3]float32{c.BX[i], c.BY[i], c.BZ[i]},
		R: c.R[i],
	}
}

// PairAt returns pair k of pairs: capsule I[k] of caps as C1, J[k] as C2.
func PairAt(caps *soa.Capsules, pairs *soa.IndexPairs, k int) CapsulePair {
	return CapsulePair{CapsuleAt(caps, int(pairs.I[k])), CapsuleAt(caps, int(pairs.J[k]))}
}

// RandomCapsules returns n random capsules in a box sized so that a fair
// share of random pairs touch: endpoints within a cube of half-width about
// 1.2 n^(1/3), axes up to 2 long (a fifth zero-length), radii up to 0.8 (an
// eighth zero).
func RandomCapsules(r *rand.Rand, n int) *soa.Capsules {
	h := 1.2 * math.Cbrt(float64(max(n, 1)))
	c := soa.NewCapsules(n)
	for i := range n {
		a := inCube(r, h)
		b := a.add(inCube(r, 1))
		if r.IntN(5) == 0 {
			b = a
		}
		rad := float32(uniform(r, 0.05, 0.8))
		if r.IntN(8) == 0 {
			rad = 0
		}
		c.Set(i, a.f32(), b.f32(), rad)
	}
	return c
}

// RandomIndexPairs returns m pairs of indices below nCaps (which must be
// positive when m is): random order, with repeated pairs, swapped repeats
// and self pairs (I == J) mixed in, about one in eight each.
func RandomIndexPairs(r *rand.Rand, nCaps, m int) *soa.IndexPairs {
	p := soa.NewIndexPairs(0)
	for k := 0; k < m; k++ {
		i, j := uint32(r.IntN(nCaps)), uint32(r.IntN(nCaps))
		switch r.IntN(8) {
		case 0:
			j = i // self pair
		case 1:
			if k > 0 { // repeat an earlier pair
				e := r.IntN(k)
				i, j = p.I[e], p.J[e]
			}
		case 2:
			if k > 0 { // an earlier pair, swapped
				e := r.IntN(k)
				i, j = p.J[e], p.I[e]
			}
		}
		p.Append(i, j)
	}
	return p
}

// SceneFromPairs stores the capsules of ps in a Capsules in shuffled order
// and returns IndexPairs whose pair k is ps[k] (C1 = capsule I[k], C2 =
// capsule J[k]), so that PairAt(caps, pairs, k) == ps[k].
func SceneFromPairs(r *rand.Rand, ps []CapsulePair) (*soa.Capsules, *soa.IndexPairs) {
	n := 2 * len(ps)
	perm := r.Perm(n) // capsule 2k+e goes to slot perm[2k+e]
	caps := soa.NewCapsules(n)
	pairs := soa.NewIndexPairs(len(ps))
	for k, p := range ps {
		i, j := perm[2*k], perm[2*k+1]
		caps.Set(i, p.C1.A, p.C1.B, p.C1.R)
		caps.Set(j, p.C2.A, p.C2.B, p.C2.R)
		pairs.I[k], pairs.J[k] = uint32(i), uint32(j)
	}
	return caps, pairs
}

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
	// surfaces: |dist(p, axis i) - r_i + depth/2|. The point is C + (tu +
	// (r + n(r2-r1))/2): about six roundings of values below 2 x scale
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
	nan := math.NaN()
	rep := ContactReport{Scale: ContactScale(p, margin), DepthErr: nan, NormalLen: nan, NormalAngle: nan,
		AngleBound: nan, SurfaceErr: nan, PointErr: nan, MDepthErr: nan}
	ax := p.Axes()
	r1, r2 := p.C1.R, p.C2.R

	if !Finite(ax) || !cFinite32(r1) || !cFinite32(r2) {
		if !IsNaNContact(got) {
			rep.fail("non-finite input: got %+v, want Count 0 and the canonical NaN everywhere", got)
		}
		return rep
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
	if ContactScale(p, margin) <= MaxRange {
		if !allFinite {
			rep.fail("finite input within MaxRange, but a non-finite output: %+v", got)
			return rep
		}
	} else if anyNaN {
		if !IsNaNContact(got) {
			rep.fail("finite input beyond MaxRange: a NaN output must make the whole lane the canonical NaN with Count 0, got %+v", got)
		}
		return rep
	}
	_, _, d2 := fallback.ClosestLane(ax.A[0], ax.A[1], ax.A[2], ax.B[0], ax.B[1], ax.B[2],
		ax.C[0], ax.C[1], ax.C[2], ax.D[0], ax.D[1], ax.D[2])
	dist32 := cSqrt32(d2)
	rsum32 := r1 + r2
	// Bit-exact identities of the specification.
	if touch := dist32 <= rsum32+margin; touch != (got.Count > 0) {
		rep.fail("Count = %d but sqrt32(ClosestLane dist2) = %v <= (r1+r2)+margin = %v is %v", got.Count, dist32, rsum32+margin, touch)
	}
	if got.Count > 2 {
		rep.fail("Count = %d > 2", got.Count)
	}
	if got.Count <= 1 {
		if want := rsum32 - dist32; math.Float32bits(got.Depth[0]) != math.Float32bits(want) {
			rep.fail("Depth[0] = %v, want (r1+r2) - sqrt32(ClosestLane dist2) = %v bit for bit", got.Depth[0], want)
		}
		if math.Float32bits(got.Depth[1]) != math.Float32bits(got.Depth[0]) || got.Point[1] != got.Point[0] {
			rep.fail("Count %d: point 2 (%v, %v) does not repeat point 1 (%v, %v)", got.Count, got.Point[1], got.Depth[1], got.Point[0], got.Depth[0])
		}
	}
	n := cW64(got.Normal)
	rep.NormalLen = math.Abs(cNorm64(n)-1) / Eps32
	if !(rep.NormalLen <= NormalLenTol) {
		rep.fail("| |n| - 1 | = %.3g eps32 > %d (n = %v)", rep.NormalLen, NormalLenTol, got.Normal)
	}
	if !InRange(p, margin) {
		return rep
	}

	// Against the reference.
	// Errors are measured beyond AbsSlack, the absolute allowance for
	// squares of lengths below 2^-63 (subnormal or zero in float32; see
	// its comment), in units of eps32 x scale: at scale 1e-17 such an
	// error is 1e5 eps32 x scale (measured), at scale 1 it is invisible.
	sc := rep.Scale
	unit := Eps32 * sc
	excess := func(err float64) float64 {
		if err <= AbsSlack {
			return 0 // also at scale 0 (every input zero)
		}
		return (err - AbsSlack) / unit
	}
	refCount, refDepth, refN, refPts := fallback.ReferenceContactF32(ax.A, ax.B, r1, ax.C, ax.D, r2, margin)
	rep.RefCount = refCount
	_, _, refD2 := fallback.ReferenceF32(ax.A, ax.B, ax.C, ax.D)
	refDist := math.Sqrt(refD2)
	rep.RefDist = refDist
	rsum := float64(r1) + float64(r2)

	// Borderline bands: Count is compared only away from the thresholds.
	m0 := cSub64(cW64(ax.B), cW64(ax.A))
	m1 := cSub64(cW64(ax.D), cW64(ax.C))
	l0, l1 := cNorm64(m0), cNorm64(m1)
	switch {
	case math.Abs(refDist-(rsum+float64(margin))) <= TouchBand*unit+2*AbsSlack:
		rep.Borderline = "touching threshold"
	case l0 > 0 && l1 > 0:
		cr := fallback.Cross3(m0, m1)
		sin2 := cDot64(cr, cr) / (l0 * l0 * l1 * l1)
		tol := fallback.ParallelTolerance2
		if math.Abs(sin2-tol) <= tol*parallelBand(sc, math.Min(l0, l1)) {
			rep.Borderline = "parallel tolerance"
			break
		}
		if sin2 <= tol {
			// The overlap [lo, hi] of the projection of axis 1 on axis 2.
			ta := cDot64(cSub64(cW64(ax.A), cW64(ax.C)), m1) / (l1 * l1)
			tb := cDot64(cSub64(cW64(ax.B), cW64(ax.C)), m1) / (l1 * l1)
			lo, hi := math.Max(0, math.Min(ta, tb)), math.Min(1, math.Max(ta, tb))
			if math.Abs(hi-lo)*l1 <= 64*unit+AbsSlack {
				rep.Borderline = "empty overlap"
			}
		}
	}
	if rep.Borderline == "" && int(got.Count) != refCount {
		rep.fail("Count = %d, reference %d (distance %.17g, r1+r2+margin %.17g)", got.Count, refCount, refDist, rsum+float64(margin))
	}

	// Depth of the closest points: its sign away from the threshold
	// r1 + r2 = distance (every lane), its value against exact arithmetic
	// (when asked for).
	if got.Count <= 1 && math.Abs(rsum-refDist) > DepthTol*unit+AbsSlack {
		if (got.Depth[0] > 0) != (rsum > refDist) {
			rep.fail("depth %v has the wrong sign: r1+r2 = %.17g, distance %.17g", got.Depth[0], rsum, refDist)
		}
	}
	if exact && got.Count <= 1 {
		ex := Dist(ExactMinDist2(ax))
		rep.DepthErr = excess(math.Abs(float64(got.Depth[0]) - (rsum - ex)))
		if !(rep.DepthErr <= DepthTol) {
			rep.fail("depth %v, exact %.17g: error %.3g eps32 x scale > %d", got.Depth[0], rsum-ex, rep.DepthErr, DepthTol)
		}
	}

	// Normal direction: the closest-point contract (distance and
	// optimality within 8 eps32 x scale each) lets the reported points
	// slide along a shallow valley of the distance; at distance h an
	// optimality error e tilts P-Q by at most about sqrt(2 e / h), and a
	// distance error by e / h. Compared wherever that bound is below 0.5
	// rad, which also shows that the normal points from capsule 2 toward
	// capsule 1 (the reference normal is (P-Q)/|P-Q|).
	if refDist > 0 {
		e := 8*unit + AbsSlack
		rep.AngleBound = math.Sqrt(2*e/refDist) + 2*e/refDist + 8*Eps32
		if rep.AngleBound < 0.5 {
			rep.NormalAngle = angleBetween(n, refN)
			if !(rep.NormalAngle <= rep.AngleBound) {
				rep.fail("normal %v vs reference %v: angle %.3g > bound %.3g (distance %.3g)", got.Normal, refN, rep.NormalAngle, rep.AngleBound, refDist)
			}
		}
	}
	// The measured angle between the normal and the reference normal
	// (which is exact to float64 rounding) bounds how much the normal moves
	// the manifold points and depths; Pi when not compared.
	angle := rep.NormalAngle
	if math.IsNaN(angle) {
		angle = math.Pi
	}

	// Points midway between the surfaces. With the normal along P-Q the
	// point Q + n (dist + r2 - r1)/2 is at distance (dist + r2 - r1)/2 from
	// axis 2 and (dist + r1 - r2)/2 from axis 1 when dist >= |r1 - r2|, so
	// both distances minus the radius are -depth/2. A two-point manifold of
	// nearly parallel axes measures depth along the common normal, not
	// along P_k - Q_k; the reference point shows how far that is from
	// midway (geo), and the check allows it.
	npts := 1
	if got.Count == 2 {
		npts = 2
	}
	hr := math.Abs(float64(r2) - float64(r1))
	var gaps [2]float64 // |P_k - Q_k| of the reference manifold
	if got.Count == 2 && refCount == 2 {
		gaps = manifoldGaps(ax)
	}
	worstSurf := 0.0
	surfChecked := false
	for k := range npts {
		rk, geo, tilt := refDist, 0.0, 0.0
		if angle > 0.5 {
			continue // the normal, and so the point, is not determined by the reference
		}
		if got.Count == 2 {
			if refCount != 2 {
				continue // borderline parallel: no reference manifold
			}
			rk = gaps[k]
			geo = math.Max(surfDev(refPts[k], ax, r1, r2, refDepth[k], 1), surfDev(refPts[k], ax, r1, r2, refDepth[k], 2))
			// A normal off by angle moves the point by up to angle x
			// |r_k + (r2-r1) n|/2 and r_k.n, so depth_k/2, by angle x |r_k|/2.
			tilt = angle * (rk + hr)
		}
		if rk < hr+TouchBand*unit+2*AbsSlack {
			continue // midway lies beyond an axis (one axis deep inside the other capsule)
		}
		for axis := 1; axis <= 2; axis++ {
			dev := surfDev(cW64(got.Point[k]), ax, r1, r2, float64(got.Depth[k]), axis)
			surfChecked = true
			worstSurf = math.Max(worstSurf, excess(dev-geo-tilt))
		}
	}
	if surfChecked {
		rep.SurfaceErr = worstSurf
		if !(worstSurf <= SurfaceTol) {
			rep.fail("contact point not midway between the surfaces: %.3g eps32 x scale > %d (points %v, depths %v)", worstSurf, SurfaceTol, got.Point, got.Depth)
		}
	}

	// Two-point manifold against the reference.
	if got.Count == 2 && refCount == 2 && angle < 0.5 {
		wp, wd := 0.0, 0.0
		for k := range 2 {
			dp := cNorm64(cSub64(cW64(got.Point[k]), refPts[k]))
			wp = math.Max(wp, excess(dp-angle*(gaps[k]+hr)))
			dd := math.Abs(float64(got.Depth[k]) - refDepth[k])
			wd = math.Max(wd, excess(dd-angle*gaps[k]))
		}
		rep.PointErr, rep.MDepthErr = wp, wd
		if !(wp <= PointTol) {
			rep.fail("manifold points %v vs reference %v: %.3g eps32 x scale > %d", got.Point, refPts, wp, PointTol)
		}
		if !(wd <= DepthTol+PointTol) {
			rep.fail("manifold depths %v vs reference %v: %.3g eps32 x scale > %d", got.Depth, refDepth, wd, DepthTol+PointTol)
		}
	}
	return rep
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

// ContactOf computes the contact of pair k of pairs with the spec,
// fallback.ContactLane: capsule I[k] of caps as capsule 1 and J[k] as
// capsule 2. The indices must be in range.
func ContactOf(caps *soa.Capsules, pairs *soa.IndexPairs, k int, margin float32) fallback.Contact {
	i, j := pairs.I[k], pairs.J[k]
	return fallback.ContactLane(caps.AX[i], caps.AY[i], caps.AZ[i], caps.BX[i], caps.BY[i], caps.BZ[i], caps.R[i],
		caps.AX[j], caps.AY[j], caps.AZ[j], caps.BX[j], caps.BY[j], caps.BZ[j], caps.R[j], margin)
}

// ContactRow returns row k of c: its pair index and its contact.
func ContactRow(c *soa.Contacts, k int) (pair uint32, _ fallback.Contact) {
	return c.Pair[k], fallback.Contact{
		Count:  c.Count[k],
		Depth:  [2]float32{c.Depth1[k], c.Depth2[k]},
		Normal: [3]float32{c.NX[k], c.NY[k], c.NZ[k]},
		Point:  [2][3]float32{{c.P1X[k], c.P1Y[k], c.P1Z[k]}, {c.P2X[k], c.P2Y[k], c.P2Z[k]}},
	}
}

// BatchContactsSpec writes the spec's contact of every pair of pairs to
// its row of dst (pairs.Len() rows): the reference rows of the tests.
func BatchContactsSpec(dst *soa.Contacts, caps *soa.Capsules, pairs *soa.IndexPairs, margin float32) {
	for k := range pairs.Len() {
		c := ContactOf(caps, pairs, k, margin)
		dst.Set(k, uint32(k), c.Count, c.Depth, c.Normal, c.Point)
	}
}
