package verify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// The test support of the contact kernels is in three files: this one, the
// adversarial capsule pairs (categories and their generators);
// contact_scene.go, the scene and index builders and the spec's rows;
// contact_check.go, CheckContact, which checks one contact against the
// bit-exact identities of the spec, the float64 reference
// fallback.ReferenceContact and the exact oracle, one property per step.

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
	ax := genCrossing(r).f32()
	return CapsulePair{Capsule{ax.A, ax.B, randRadius(r)}, Capsule{ax.C, ax.D, randRadius(r)}}
}

func genCapCollinear(r *rand.Rand, _ float32) CapsulePair {
	ax := genCollinear(r).f32()
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

// randUnit returns a random unit vector (uniform in direction: drawn in the
// cube, kept inside the unit ball and away from its centre).
func randUnit(r *rand.Rand) [3]float64 {
	for {
		v := [3]float64{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}
		if l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]); l > 0.3 && l < 1 {
			return [3]float64{v[0] / l, v[1] / l, v[2] / l}
		}
	}
}

// round32 rounds a float64 point to float32.
func round32(p [3]float64) [3]float32 { return [3]float32{float32(p[0]), float32(p[1]), float32(p[2])} }

// CrossingPairs returns n capsule pairs whose axes cross within float32
// resolution: two segments through one point X (half of them 1e4 from the
// origin), rounded to float32, kept when the float64 reference distance of
// the rounded axes is below 64 eps32 x scale and the axes are at least
// about 2 degrees from parallel. The contact normal of such a pair must be
// close to the cross product of the axes (fallback.Contact).
func CrossingPairs(seed uint64, n int) []CapsulePair {
	r := NewRand(seed, 77)
	unit := func() [3]float64 { return randUnit(r) }
	along := func(x, d [3]float64, t float64) [3]float32 {
		return round32([3]float64{x[0] + t*d[0], x[1] + t*d[1], x[2] + t*d[2]})
	}
	var out []CapsulePair
	for len(out) < n {
		var x [3]float64
		for i := range x {
			x[i] = r.Float64() * 4
			if len(out)%2 == 1 {
				x[i] += 1e4
			}
		}
		u, v := unit(), unit()
		c := CapsulePair{
			C1: Capsule{A: along(x, u, -(0.1 + 3*r.Float64())), B: along(x, u, 0.1+3*r.Float64()), R: 0.5},
			C2: Capsule{A: along(x, v, -(0.1 + 3*r.Float64())), B: along(x, v, 0.1+3*r.Float64()), R: 0.5},
		}
		ax := c.Axes()
		m0 := cSub64(cW64(ax.B), cW64(ax.A))
		m1 := cSub64(cW64(ax.D), cW64(ax.C))
		k := fallback.Cross3(m0, m1)
		if cNorm64(k) < 0.035*cNorm64(m0)*cNorm64(m1) {
			continue // nearly parallel: the cross product is not a direction
		}
		if _, _, d2 := fallback.ReferenceF32(ax.A, ax.B, ax.C, ax.D); math.Sqrt(d2) >= 64*Eps32*Scale(ax) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// EndNearAxisPairs returns n capsule pairs where an end of one axis lies
// near the inside of the other, at 8 to 64 eps32 of the pair's longest
// edge vector (max |M0|, |u|, |A-C|): within the touching band of
// fallback.Contact, where the axes do not cross and P-Q (perpendicular to
// one axis only) is the normal's direction, not the cross product. Axis
// 2 ends there, its other end up to 200 away, approaching axis 1 at 10
// to 80 degrees; half the pairs are swapped. EndNormalAngle measures the
// normal of such a pair.
func EndNearAxisPairs(seed uint64, n int) []CapsulePair {
	r := NewRand(seed, 78)
	unit := func() [3]float64 { return randUnit(r) }
	at := func(x, d [3]float64, t float64) [3]float64 {
		return [3]float64{x[0] + t*d[0], x[1] + t*d[1], x[2] + t*d[2]}
	}
	var out []CapsulePair
	for len(out) < n {
		x := [3]float64{4 * r.Float64(), 4 * r.Float64(), 4 * r.Float64()} // the point of axis 1 nearest to the end of axis 2
		m := unit()
		// side: a unit vector perpendicular to axis 1, from x toward the end.
		side := fallback.Cross3(m, unit())
		sl := cNorm64(side)
		if sl < 0.3 {
			continue
		}
		side = [3]float64{side[0] / sl, side[1] / sl, side[2] / sl}
		// Axis 2 comes in toward axis 1 (against side) at 10-80 degrees
		// from it, tilted along axis 1 by a random amount.
		ang := (10 + 70*r.Float64()) * math.Pi / 180
		tilt := r.Float64()*2 - 1
		in := [3]float64{}
		for i := range in {
			in[i] = -math.Sin(ang)*side[i] + math.Cos(ang)*tilt*m[i]
		}
		il := cNorm64(in)
		in = [3]float64{in[0] / il, in[1] / il, in[2] / il}
		a, b := at(x, m, -(1+100*r.Float64())), at(x, m, 1+100*r.Float64())
		l2 := 1 + 200*r.Float64()
		// The longest edge vector, for the distance of the end from axis 1.
		c0 := at(x, in, -l2)
		L := math.Max(math.Max(cNorm64(cSub64(b, a)), l2), cNorm64(cSub64(a, c0)))
		h := (8 + 56*r.Float64()) * Eps32 * L
		d := at(x, side, h)
		c := at(d, in, -l2)
		p := CapsulePair{
			C1: Capsule{A: round32(a), B: round32(b), R: 0.5 + 40*float32(r.Float64())},
			C2: Capsule{A: round32(c), B: round32(d), R: 0.5 + 40*float32(r.Float64())},
		}
		if r.IntN(2) == 0 {
			p = p.Swap()
		}
		out = append(out, p)
	}
	return out
}

// EndNormalAngle returns the angle in radians between the contact normal
// n of p and the direction P-Q of the float64 reference closest points of
// its axes, and the bound it should meet where P-Q is not along the cross
// product of the axes: asin(16 eps32 L / |P-Q|), L the longest of |M0|,
// |u|, |A-C| (the rounding of P-Q is a few eps32 of L, and the cross
// product replaces it only where P-Q is along it within 8 eps32 of L);
// Pi (no bound) where |P-Q| <= 16 eps32 L, whose direction the rounding
// may hide.
func EndNormalAngle(p CapsulePair, n [3]float32) (angle, bound float64) {
	ax := p.Axes()
	s, t, _ := fallback.ReferenceF32(ax.A, ax.B, ax.C, ax.D)
	a, b, c, d := cW64(ax.A), cW64(ax.B), cW64(ax.C), cW64(ax.D)
	m0, u := cSub64(b, a), cSub64(d, c)
	var r [3]float64
	for i := range r {
		r[i] = (a[i] + s*m0[i]) - (c[i] + t*u[i])
	}
	h := cNorm64(r)
	l := math.Max(math.Max(cNorm64(m0), cNorm64(u)), cNorm64(cSub64(a, c)))
	bound = math.Pi
	if x := 16 * Eps32 * l / h; x < 1 {
		bound = math.Asin(x)
	}
	return angleBetween(cW64(n), [3]float64{r[0] / h, r[1] / h, r[2] / h}), bound
}

// CrossNormalAngle returns the angle in radians between the contact
// normal n and the nearer of ±(M0 x M1)/|M0 x M1| for the axes of p.
func CrossNormalAngle(p CapsulePair, n [3]float32) float64 {
	ax := p.Axes()
	k := fallback.Cross3(cSub64(cW64(ax.B), cW64(ax.A)), cSub64(cW64(ax.D), cW64(ax.C)))
	l := cNorm64(k)
	a := angleBetween(cW64(n), [3]float64{k[0] / l, k[1] / l, k[2] / l})
	return math.Min(a, math.Pi-a)
}

// BeyondRangeCapsulePairs returns n pairs far beyond MaxRange, where
// intermediate values of the contact overflow: a third scaled by 2^60 to
// 2^69 (|B-A|^2 and the dot products overflow), a third by 2^120 to
// 2^127 (the points too), some with a radius of -MaxFloat32/k (r2-r1
// overflows while r1+r2 does not), and a third of ordinary size moved to
// within 3e38 of the origin with a radius up to MaxFloat32, whose
// distance and depths stay finite while the points overflow to ±Inf.
// Every one is drawn from a capsule category by r.
func BeyondRangeCapsulePairs(r *rand.Rand, n int) []CapsulePair {
	cats := CapsuleCategories()
	out := make([]CapsulePair, 0, n)
	for k := range n {
		p := cats[r.IntN(len(cats))].Gen(r, 0)
		caps := []*Capsule{&p.C1, &p.C2}
		if k%3 == 2 {
			off := float32(r.IntN(7)-3) * 1e38
			for _, c := range caps {
				for i := range 3 {
					c.A[i] += off
					c.B[i] += off
				}
			}
			p.C2.R = float32(r.Float64()) * math.MaxFloat32
			out = append(out, p)
			continue
		}
		e := 60 + r.IntN(10)
		if k%3 == 1 {
			e = 120 + r.IntN(8)
		}
		s := float32(math.Ldexp(1, e))
		for _, c := range caps {
			for i := range 3 {
				c.A[i] *= s
				c.B[i] *= s
			}
			c.R *= s
		}
		if r.IntN(4) == 0 {
			p.C1.R = -math.MaxFloat32 / float32(1+r.IntN(4))
		}
		out = append(out, p)
	}
	return out
}
