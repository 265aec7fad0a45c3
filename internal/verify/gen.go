// Package verify is the test support shared by the tests of soa, fallback
// and kernel (and by the bench): adversarial generators of segment pairs,
// an exact rational oracle for the closest-point problem, error measures
// in units of eps32 x scale, and the golden batch and hash that pin the
// operation order of every kernel path.
//
// Everything here is deterministic: generators take a *rand.Rand
// (math/rand/v2, PCG) and the same seed gives the same pairs on every
// platform.
package verify

import (
	"math"
	"math/rand/v2"

	"github.com/segdist/segdist/soa"
)

// Category is one family of adversarial pairs.
type Category struct {
	Name  string
	Gen   func(r *rand.Rand) soa.Pair   // float32 pairs
	Gen64 func(r *rand.Rand) soa.Pair64 // the same construction rounded to float64
}

// MaxRange is the largest |coordinate| for which the kernels promise finite
// results (docs/design.md, "Accuracy"; docs/guarantees.md).
const MaxRange = 1e18

// Categories returns every category, in a fixed order (the order Mixed uses).
//
//   - uniform: endpoints uniform in the cube [-5,5]^3.
//   - near-parallel: directions 1e-1 to 1e-7 rad apart (log-uniform), the
//     second segment passing near (a quarter of the time: through) the first
//     line; float32 rounding of the endpoints perturbs the smallest angles.
//   - parallel, antiparallel: D-C = ±2^k (B-A) exactly (all endpoints on a
//     dyadic grid, so the float32 coordinates and their differences are
//     exact); a quarter of the directions are axis-aligned.
//   - collinear: all four points exactly on one line (dyadic grid).
//   - zero-length-one: A = B or C = D (random which); zero-length-both: both.
//   - crossing: both segments through a common grid point, exactly (the
//     true distance is 0).
//   - shared-endpoint: one endpoint of segment 2 equals one of segment 1.
//   - far: unit-sized pairs 1e4 from the origin.
//   - length-ratio-1e6: one segment 1e6 times shorter than the other.
//   - tiny, huge: uniform at 1e-4 and 1e15 scale.
//   - axis-aligned: each segment parallel to a coordinate axis (same axis,
//     so parallel, a third of the time).
//   - edge-1e18: coordinates up to MaxRange in magnitude, a third of them
//     exactly ±float32(1e18).
func Categories() []Category {
	return []Category{
		cat("uniform", genUniform),
		cat("near-parallel", genNearParallel),
		cat("parallel", func(r *rand.Rand) quad { return genParallel(r, 1) }),
		cat("antiparallel", func(r *rand.Rand) quad { return genParallel(r, -1) }),
		cat("collinear", genCollinear),
		cat("zero-length-one", genZeroOne),
		cat("zero-length-both", genZeroBoth),
		cat("crossing", genCrossing),
		cat("shared-endpoint", genShared),
		cat("far", genFar),
		cat("length-ratio-1e6", genRatio),
		cat("tiny", func(r *rand.Rand) quad { return genScaled(r, 1e-4) }),
		cat("huge", func(r *rand.Rand) quad { return genScaled(r, 1e15) }),
		cat("axis-aligned", genAxis),
		cat("edge-1e18", func(r *rand.Rand) quad { return genEdge(r, MaxRange) }),
	}
}

// MaxRange64 is the largest |coordinate| for which the float64 kernels
// promise finite results: squared differences of 2e150 stay below
// MaxFloat64 with room to spare.
const MaxRange64 = 1e150

// Categories64 returns the categories of the float64 kernels: those of
// Categories (Gen64), the range edge at MaxRange64 instead of MaxRange,
// and uniform pairs at 1e100 scale.
func Categories64() []Category {
	cs := Categories()
	cs[len(cs)-1] = cat("edge-1e150", func(r *rand.Rand) quad { return genEdge(r, MaxRange64) })
	return append(cs, cat("huge-1e100", func(r *rand.Rand) quad { return genScaled(r, 1e100) }))
}

// NewRand returns the PCG generator for seed and stream.
func NewRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// Mixed returns perCategory pairs of every category, category by category
// in the order of Categories. Category k draws from its own generator
// NewRand(seed, k), so its pairs do not depend on perCategory of the others.
func Mixed(seed uint64, perCategory int) []soa.Pair {
	cats := Categories()
	out := make([]soa.Pair, 0, len(cats)*perCategory)
	for k, c := range cats {
		r := NewRand(seed, uint64(k))
		for range perCategory {
			out = append(out, c.Gen(r))
		}
	}
	return out
}

// Generate returns n pairs of one category from NewRand(seed, 0).
func Generate(c Category, seed uint64, n int) []soa.Pair {
	r := NewRand(seed, 0)
	out := make([]soa.Pair, n)
	for i := range out {
		out[i] = c.Gen(r)
	}
	return out
}

// Coords returns the twelve coordinates of p in the order
// AX AY AZ BX BY BZ CX CY CZ DX DY DZ.
func Coords(p soa.Pair) [12]float32 {
	return [12]float32{p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2],
		p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2]}
}

// FromCoords is the inverse of Coords.
func FromCoords(c [12]float32) soa.Pair {
	return soa.Pair{
		A: [3]float32{c[0], c[1], c[2]},
		B: [3]float32{c[3], c[4], c[5]},
		C: [3]float32{c[6], c[7], c[8]},
		D: [3]float32{c[9], c[10], c[11]},
	}
}

// coords64 returns the twelve coordinates of p as float64s (exactly), in
// the order of Coords.
func coords64[F soa.Float](p soa.PairOf[F]) [12]float64 {
	var c [12]float64
	for i, v := range [4][3]F{p.A, p.B, p.C, p.D} {
		for j, x := range v {
			c[3*i+j] = float64(x)
		}
	}
	return c
}

// Scale returns the largest |coordinate| of p (the unit of the accuracy
// contract is eps32 x Scale, or eps64 x Scale for float64 pairs).
func Scale[F soa.Float](p soa.PairOf[F]) float64 {
	m := 0.0
	for _, x := range coords64(p) {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// Finite reports whether all twelve coordinates are finite.
func Finite(p soa.Pair) bool {
	for _, x := range Coords(p) {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// ---- float64 vector helpers -------------------------------------------

type vec [3]float64

func (x vec) add(y vec) vec                        { return vec{x[0] + y[0], x[1] + y[1], x[2] + y[2]} }
func (x vec) sub(y vec) vec                        { return vec{x[0] - y[0], x[1] - y[1], x[2] - y[2]} }
func (x vec) mul(k float64) vec                    { return vec{x[0] * k, x[1] * k, x[2] * k} }
func (x vec) dot(y vec) float64                    { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }
func (x vec) f32() [3]float32                      { return [3]float32{float32(x[0]), float32(x[1]), float32(x[2])} }
func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// inCube returns a point uniform in [-h,h]^3.
func inCube(r *rand.Rand, h float64) vec {
	return vec{uniform(r, -h, h), uniform(r, -h, h), uniform(r, -h, h)}
}

// unitVec returns a uniformly distributed unit vector.
func unitVec(r *rand.Rand) vec {
	for {
		v := vec{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		if n := math.Sqrt(v.dot(v)); n > 1e-3 {
			return v.mul(1 / n)
		}
	}
}

// perpTo returns a unit vector perpendicular to the unit vector u.
func perpTo(r *rand.Rand, u vec) vec {
	for {
		v := unitVec(r)
		w := v.sub(u.mul(v.dot(u)))
		if n := math.Sqrt(w.dot(w)); n > 1e-3 {
			return w.mul(1 / n)
		}
	}
}

// gridVal returns a multiple of step in [-n*step, n*step].
func gridVal(r *rand.Rand, n int, step float64) float64 {
	return float64(r.IntN(2*n+1)-n) * step
}

// gridVec returns a vector of gridVal components.
func gridVec(r *rand.Rand, n int, step float64) vec {
	return vec{gridVal(r, n, step), gridVal(r, n, step), gridVal(r, n, step)}
}

// gridDir returns a nonzero grid vector with components up to 4 in
// magnitude on the 2^-10 grid; a quarter of them lie along one axis.
func gridDir(r *rand.Rand) vec {
	for {
		var w vec
		if r.IntN(4) == 0 {
			w[r.IntN(3)] = gridVal(r, 4<<10, 0x1p-10)
		} else {
			w = gridVec(r, 4<<10, 0x1p-10)
		}
		if w != (vec{}) {
			return w
		}
	}
}

// ---- categories ---------------------------------------------------------

// quad is a generated pair before rounding: A B C D in float64, rounded
// to float32 (Gen) or float64 (Gen64) by the category.
type quad [4]vec

func pair(a, b, c, d vec) quad { return quad{a, b, c, d} }

func (q quad) f32() soa.Pair {
	return soa.Pair{A: q[0].f32(), B: q[1].f32(), C: q[2].f32(), D: q[3].f32()}
}

func (q quad) f64() soa.Pair64 { return soa.Pair64{A: q[0], B: q[1], C: q[2], D: q[3]} }

// cat makes a category of generator g.
func cat(name string, g func(r *rand.Rand) quad) Category {
	return Category{name, func(r *rand.Rand) soa.Pair { return g(r).f32() }, func(r *rand.Rand) soa.Pair64 { return g(r).f64() }}
}

func genUniform(r *rand.Rand) quad {
	return pair(inCube(r, 5), inCube(r, 5), inCube(r, 5), inCube(r, 5))
}

func genScaled(r *rand.Rand, h float64) quad {
	return pair(inCube(r, h), inCube(r, h), inCube(r, h), inCube(r, h))
}

func genNearParallel(r *rand.Rand) quad {
	theta := math.Pow(10, uniform(r, -7, -1))
	u := unitVec(r)
	v := u.mul(math.Cos(theta)).add(perpTo(r, u).mul(math.Sin(theta)))
	l1, l2 := uniform(r, 0.5, 5), uniform(r, 0.5, 5)
	a := inCube(r, 3)
	b := a.add(u.mul(l1))
	// Segment 2 passes at distance h from the point X of line 1.
	x := a.add(u.mul(uniform(r, -0.5, 1.5) * l1))
	h := 0.0
	if r.IntN(4) != 0 {
		h = math.Pow(10, uniform(r, -3, 0.5))
	}
	x = x.add(perpTo(r, u).mul(h))
	c := x.sub(v.mul(uniform(r, -0.5, 1.5) * l2))
	d := c.add(v.mul(l2))
	if r.IntN(2) == 0 {
		c, d = d, c
	}
	return pair(a, b, c, d)
}

// genParallel builds D-C = sign 2^k (B-A) exactly: every value is a
// multiple of 2^-12 below 2^6, which float32 holds exactly, and so are the
// differences the kernels compute.
func genParallel(r *rand.Rand, sign float64) quad {
	a := gridVec(r, 8<<10, 0x1p-10)
	w := gridDir(r)
	b := a.add(w)
	c := a.add(gridVec(r, 3<<10, 0x1p-10)).add(w.mul(gridVal(r, 6, 0.25)))
	d := c.add(w.mul(sign * math.Ldexp(1, r.IntN(5)-2)))
	return pair(a, b, c, d)
}

// genCollinear puts C and D on line AB at parameters that are multiples of
// 1/4 in [-2,3], exactly.
func genCollinear(r *rand.Rand) quad {
	a := gridVec(r, 8<<10, 0x1p-10)
	w := gridDir(r)
	al := float64(r.IntN(21)-8) * 0.25
	be := float64(r.IntN(21)-8) * 0.25
	return pair(a, a.add(w), a.add(w.mul(al)), a.add(w.mul(be)))
}

func genZeroOne(r *rand.Rand) quad {
	a, b, c, d := inCube(r, 5), inCube(r, 5), inCube(r, 5), inCube(r, 5)
	if r.IntN(2) == 0 {
		b = a
	} else {
		d = c
	}
	return pair(a, b, c, d)
}

func genZeroBoth(r *rand.Rand) quad {
	a, c := inCube(r, 5), inCube(r, 5)
	return pair(a, a, c, c)
}

// genCrossing builds A = X - al u, B = X + be u, C = X - ga v, D = X + de v
// on a dyadic grid, so X lies exactly on both float32 segments.
func genCrossing(r *rand.Rand) quad {
	x := gridVec(r, 4<<10, 0x1p-10)
	dir := func() vec {
		for {
			if w := gridVec(r, 2<<8, 0x1p-8); w != (vec{}) {
				return w
			}
		}
	}
	u, v := dir(), dir()
	frac := func() (float64, float64) {
		for {
			p, q := float64(r.IntN(17))/8, float64(r.IntN(17))/8
			if p+q > 0 {
				return p, q
			}
		}
	}
	al, be := frac()
	ga, de := frac()
	return pair(x.sub(u.mul(al)), x.add(u.mul(be)), x.sub(v.mul(ga)), x.add(v.mul(de)))
}

func genShared(r *rand.Rand) quad {
	a, b, c, d := inCube(r, 5), inCube(r, 5), inCube(r, 5), inCube(r, 5)
	switch r.IntN(4) {
	case 0:
		c = a
	case 1:
		c = b
	case 2:
		d = a
	default:
		d = b
	}
	return pair(a, b, c, d)
}

func genFar(r *rand.Rand) quad {
	o := unitVec(r).mul(1e4)
	return pair(o.add(inCube(r, 1)), o.add(inCube(r, 1)), o.add(inCube(r, 1)), o.add(inCube(r, 1)))
}

func genRatio(r *rand.Rand) quad {
	long := uniform(r, 1, 5)
	a := inCube(r, 3)
	u := unitVec(r)
	b := a.add(u.mul(long))
	c := a.add(u.mul(uniform(r, -0.5, 1.5) * long)).add(inCube(r, 1))
	d := c.add(unitVec(r).mul(long * 1e-6))
	if r.IntN(2) == 0 {
		return pair(c, d, a, b)
	}
	return pair(a, b, c, d)
}

func genAxis(r *rand.Rand) quad {
	seg := func(axis int) (vec, vec) {
		p := inCube(r, 5)
		q := p
		q[axis] = uniform(r, -5, 5)
		return p, q
	}
	i := r.IntN(3)
	j := i
	if r.IntN(3) != 0 {
		j = (i + 1 + r.IntN(2)) % 3
	}
	a, b := seg(i)
	c, d := seg(j)
	return pair(a, b, c, d)
}

// genEdge draws coordinates up to max in magnitude, a third of them
// exactly ±max.
func genEdge(r *rand.Rand, max float64) quad {
	var q quad
	for i := range 12 {
		x := &q[i/3][i%3]
		if r.IntN(3) == 0 {
			*x = max
			if r.IntN(2) == 0 {
				*x = -*x
			}
		} else {
			*x = uniform(r, -max, max)
		}
	}
	return q
}

// Separate returns a batch of ps whose fifteen slices (the twelve of the
// pairs and, through NewSeparateResults, the three results) are separate
// allocations starting offset float32s into their backing arrays, so that
// with an odd offset nothing is 8-, 16-, 32- or 64-byte aligned and there is
// no padding after the last element. Kernels must accept such slices.
func Separate(ps []soa.Pair, offset int) *soa.Pairs {
	n := len(ps)
	mk := func() []float32 { return make([]float32, n+offset)[offset:] }
	p := &soa.Pairs{AX: mk(), AY: mk(), AZ: mk(), BX: mk(), BY: mk(), BZ: mk(),
		CX: mk(), CY: mk(), CZ: mk(), DX: mk(), DY: mk(), DZ: mk()}
	for i, q := range ps {
		p.Set(i, q.A, q.B, q.C, q.D)
	}
	return p
}

// NewSeparateResults returns results for n pairs in three separate
// allocations starting offset float32s into their backing arrays.
func NewSeparateResults(n, offset int) *soa.Results {
	mk := func() []float32 { return make([]float32, n+offset)[offset:] }
	return &soa.Results{S: mk(), T: mk(), Dist2: mk()}
}

// widen3 returns v in float64 (exactly).
func widen3(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

// WidenPairs returns p in float64, exactly: the float32 pairs as float64
// batches for the float64 kernels' tests and benchmarks.
func WidenPairs(p *soa.Pairs) *soa.Pairs64 {
	q := soa.NewPairs64(p.Len())
	for i := range p.Len() {
		r := p.Get(i)
		q.Set(i, widen3(r.A), widen3(r.B), widen3(r.C), widen3(r.D))
	}
	return q
}

// WidenCapsules returns caps in float64, exactly (64-byte aligned records).
func WidenCapsules(caps soa.Capsules) soa.Capsules64 {
	w := soa.NewCapsules64(caps.Len())
	for i, c := range caps {
		w.Set(i, widen3(c.A), widen3(c.B), float64(c.R))
	}
	return w
}
