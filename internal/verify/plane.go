package verify

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// PlaneCase is a capsule against a half-space with a margin: the inputs
// of fallback.PlaneContactLane.
type PlaneCase struct {
	A, B   [3]float32
	R      float32
	N      [3]float32
	D      float32
	Margin float32
}

// PlaneCategory names a family of plane cases.
type PlaneCategory struct {
	Name string
	gen  func(r *rand.Rand) PlaneCase
}

// PlaneCategories returns the plane-contact categories the accuracy tests
// sweep: random capsules near a random plane; an axis parallel to an
// axis-aligned plane (both ends at one height, so both touch together);
// spheres; an end exactly on the plane; capsules and planes far from the
// origin (up to 1e6); ends within a few ulps of the touching limit. The
// generators round every product explicitly, so that no compiler fuses a
// multiply-add and the cases are the same bits on every platform (the
// golden hashes depend on it).
func PlaneCategories() []PlaneCategory {
	return []PlaneCategory{
		{"random", func(r *rand.Rand) PlaneCase {
			c := PlaneCase{N: planeUnit(r), D: float32(su(r, -5, 5)), R: float32(su(r, 0, 1)), Margin: float32(su(r, 0, 0.1))}
			c.A, c.B = planePoint(r, 5), planePoint(r, 5)
			return c
		}},
		{"parallel", func(r *rand.Rand) PlaneCase {
			axis := r.IntN(3)
			c := PlaneCase{D: float32(su(r, -5, 5)), R: float32(su(r, 0.1, 1)), Margin: float32(su(r, 0, 0.1))}
			c.N[axis] = float32(1 - 2*r.IntN(2))
			c.A, c.B = planePoint(r, 5), planePoint(r, 5)
			h := c.N[axis] * (c.D + float32(float32(su(r, -1.2, 1.2))*c.R))
			c.A[axis], c.B[axis] = h, h
			return c
		}},
		{"sphere", func(r *rand.Rand) PlaneCase {
			c := PlaneCase{N: planeUnit(r), D: float32(su(r, -2, 2)), R: float32(su(r, 0, 1)), Margin: float32(su(r, 0, 0.1))}
			c.A = planePoint(r, 2)
			c.B = c.A
			return c
		}},
		{"end on plane", func(r *rand.Rand) PlaneCase {
			axis := r.IntN(3)
			c := PlaneCase{D: float32(su(r, -5, 5)), R: float32(su(r, 0.1, 1))}
			c.N[axis] = 1
			c.A, c.B = planePoint(r, 5), planePoint(r, 5)
			c.A[axis] = c.D
			return c
		}},
		{"far", func(r *rand.Rand) PlaneCase {
			n := planeUnit(r)
			off := [3]float32{float32(su(r, -1e6, 1e6)), float32(su(r, -1e6, 1e6)), float32(su(r, -1e6, 1e6))}
			c := PlaneCase{N: n, R: float32(su(r, 0.1, 1)), Margin: float32(su(r, 0, 0.1))}
			nd := float64(float64(n[0])*float64(off[0])) + float64(float64(n[1])*float64(off[1])) + float64(float64(n[2])*float64(off[2]))
			c.D = float32(nd + su(r, -2, 2))
			for k := range 3 {
				c.A[k] = off[k] + float32(su(r, -2, 2))
				c.B[k] = off[k] + float32(su(r, -2, 2))
			}
			return c
		}},
		{"touching limit", func(r *rand.Rand) PlaneCase {
			axis := r.IntN(3)
			c := PlaneCase{D: float32(su(r, -5, 5)), R: float32(su(r, 0.1, 1)), Margin: float32(su(r, 0, 0.1))}
			c.N[axis] = 1
			c.A, c.B = planePoint(r, 5), planePoint(r, 5)
			lim := float32(float64(c.D) + float64(c.R) + float64(c.Margin))
			ulp := math.Nextafter32(lim, float32(math.Inf(1))) - lim
			c.A[axis] = lim + float32(float32(r.IntN(9)-4)*ulp)
			return c
		}},
	}
}

// su is uniform in [lo, hi) with the product rounded before the sum.
func su(r *rand.Rand, lo, hi float64) float64 { return lo + float64((hi-lo)*r.Float64()) }

// planeUnit returns a random unit vector rounded to float32 (uniform in
// direction), every product rounded.
func planeUnit(r *rand.Rand) [3]float32 {
	for {
		v := [3]float64{su(r, -1, 1), su(r, -1, 1), su(r, -1, 1)}
		if l := math.Sqrt(float64(v[0]*v[0]) + float64(v[1]*v[1]) + float64(v[2]*v[2])); l > 0.3 && l < 1 {
			return [3]float32{float32(v[0] / l), float32(v[1] / l), float32(v[2] / l)}
		}
	}
}

// planePoint returns a float32 point uniform in the cube of half-side h.
func planePoint(r *rand.Rand, h float64) [3]float32 {
	return [3]float32{float32(su(r, -h, h)), float32(su(r, -h, h)), float32(su(r, -h, h))}
}

// Generate returns n cases of the category, reproducibly from seed.
func (c PlaneCategory) Generate(seed uint64, n int) []PlaneCase {
	r := NewRand(seed, 7)
	out := make([]PlaneCase, n)
	for i := range out {
		out[i] = c.gen(r)
	}
	return out
}

// PlaneScale is the scale of a plane case's errors: the largest of its
// |coordinates|, |D| and R.
func PlaneScale(c PlaneCase) float64 {
	s := max(math.Abs(float64(c.D)), math.Abs(float64(c.R)))
	for _, v := range [][3]float32{c.A, c.B} {
		for _, x := range v {
			s = max(s, math.Abs(float64(x)))
		}
	}
	return s
}

// exactSigned returns n·X - d in exact rational arithmetic.
func exactSigned(n [3]float32, x [3]float32, d float32) *big.Rat {
	s := new(big.Rat)
	for k := range 3 {
		s.Add(s, new(big.Rat).Mul(rat(float64(n[k])), rat(float64(x[k]))))
	}
	return s.Sub(s, rat(float64(d)))
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func ratF(x *big.Rat) float64 { f, _ := x.Float64(); return f }

// PlaneTol is the accuracy contract of the plane kernels in eps x scale:
// depths and points within 8 eps32 (eps64) x PlaneScale of exact.
const PlaneTol = 8

// CheckPlaneContact checks a plane contact c of case pc against
// exact rational arithmetic: the normal is N bit for bit; Count agrees
// with the exact touching test of each end except within PlaneTol eps32 x
// scale of the limit R + Margin; each reported point belongs to an end
// (A for point 1 unless B is reported) with its depth r - (n·X - d) and
// its point X - n (r + s)/2 within PlaneTol eps32 x scale; with Count 2
// the points are A's then B's. It returns the worst error in eps x scale
// (eps32, or eps64 for a float64 contact of the same inputs) and an error
// describing the first violation.
func CheckPlaneContact[F soa.Float](pc PlaneCase, c fallback.ContactOf[F]) (worst float64, err error) {
	scale := PlaneScale(pc)
	unit := Eps32 * scale
	if is64[F]() {
		unit = Eps64 * scale
	}
	if unit == 0 {
		unit = math.SmallestNonzeroFloat32
	}
	if c.Normal != [3]F{F(pc.N[0]), F(pc.N[1]), F(pc.N[2])} {
		return 0, fmt.Errorf("normal %v, want the plane's %v", c.Normal, pc.N)
	}
	lim := new(big.Rat).Add(rat(float64(pc.R)), rat(float64(pc.Margin)))
	ends := [2][3]float32{pc.A, pc.B}
	var s [2]*big.Rat
	var touch [2]bool
	for k, x := range ends {
		s[k] = exactSigned(pc.N, x, pc.D)
		touch[k] = s[k].Cmp(lim) <= 0
	}
	sphere := pc.A == pc.B
	want := 0
	if touch[0] {
		want++
	}
	if touch[1] && !sphere {
		want++
	}
	if int(c.Count) != want {
		// Only an end within rounding of the limit may be counted either way.
		for k := range 2 {
			if math.Abs(ratF(new(big.Rat).Sub(s[k], lim)))/unit <= PlaneTol {
				return 0, nil
			}
		}
		return 0, fmt.Errorf("count %d, exact %d (s = %v, %v; limit %v)", c.Count, want, ratF(s[0]), ratF(s[1]), ratF(lim))
	}
	// check compares point p with end's exact depth and point, and
	// returns its worst error (in eps32 x scale) or an error.
	check := func(p int, end int) (float64, error) {
		w := 0.0
		depth := ratF(new(big.Rat).Sub(rat(float64(pc.R)), s[end]))
		if e := math.Abs(float64(c.Depth[p])-depth) / unit; !(e <= PlaneTol) {
			return e, fmt.Errorf("point %d (end %d): depth %v, exact %v: %.3g eps32 x scale", p+1, end, c.Depth[p], depth, e)
		} else {
			w = e
		}
		h := new(big.Rat).Mul(new(big.Rat).Add(rat(float64(pc.R)), s[end]), big.NewRat(1, 2))
		for j := range 3 {
			x := new(big.Rat).Sub(rat(float64(ends[end][j])), new(big.Rat).Mul(rat(float64(pc.N[j])), h))
			e := math.Abs(float64(c.Point[p][j])-ratF(x)) / unit
			if !(e <= PlaneTol) {
				return e, fmt.Errorf("point %d (end %d) coordinate %d: %v, exact %v: %.3g eps32 x scale", p+1, end, j, c.Point[p][j], ratF(x), e)
			}
			w = max(w, e)
		}
		return w, nil
	}
	switch c.Count {
	case 2:
		w0, err := check(0, 0)
		if err != nil {
			return w0, err
		}
		w1, err := check(1, 1)
		return max(w0, w1), err
	default:
		// Point 1 is A's unless A does not touch and B is nearer; within
		// rounding of a tie either end is right.
		end := 0
		if !touch[0] && s[1].Cmp(s[0]) < 0 {
			end = 1
		}
		w, err := check(0, end)
		if math.Abs(ratF(new(big.Rat).Sub(s[0], s[1])))/unit <= 2*PlaneTol {
			if w2, err2 := check(0, 1-end); err2 == nil && (err != nil || w2 < w) {
				w, err = w2, nil
			}
		}
		if err != nil {
			return w, err
		}
		if c.Depth[1] != c.Depth[0] || c.Point[1] != c.Point[0] {
			return w, fmt.Errorf("count %d: point 2 %v depth %v does not repeat point 1 %v depth %v", c.Count, c.Point[1], c.Depth[1], c.Point[0], c.Depth[0])
		}
		return w, nil
	}
}

// PlaneCapsules returns the cases as capsule and plane records and the
// index pairs (k, k) that pair case k's capsule with its plane.
func PlaneCapsules(cases []PlaneCase) (soa.Capsules, soa.Planes, *soa.IndexPairs) {
	caps, planes, pairs := soa.NewCapsules(len(cases)), soa.NewPlanes(len(cases)), soa.NewIndexPairs(len(cases))
	for k, c := range cases {
		caps.Set(k, c.A, c.B, c.R)
		planes.Set(k, c.N, c.D)
		pairs.I[k], pairs.J[k] = uint32(k), uint32(k)
	}
	return caps, planes, pairs
}

// is64 reports whether F is float64.
func is64[F soa.Float]() bool {
	var z F
	return any(z) == any(float64(0))
}

// RandomQuaternion returns a uniformly random unit quaternion (x, y, z, w).
func RandomQuaternion(r *rand.Rand) [4]float64 {
	for {
		q := [4]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		n := math.Sqrt(float64(q[0]*q[0]) + float64(q[1]*q[1]) + float64(q[2]*q[2]) + float64(q[3]*q[3])) // no fused multiply-add
		if n > 1e-3 {
			return [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
		}
	}
}
