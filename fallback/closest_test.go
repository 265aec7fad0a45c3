package fallback_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// lane runs ClosestLane on p.
func lane(p soa.Pair) (s, t, d2 float32) {
	c := verify.Coords(p)
	return fallback.ClosestLane(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11])
}

// checkAccurate fails t unless (s, tt, d2) is within 8 eps32 x scale of
// the exact answer for p, in distance and in optimality.
func checkAccurate(t *testing.T, what string, p soa.Pair, s, tt, d2 float32) {
	t.Helper()
	if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1) || math.IsInf(float64(d2), 0) || d2 != d2 {
		t.Errorf("%s: ClosestLane = %v, %v, %v for %s", what, s, tt, d2, pairString(p))
		return
	}
	exact := verify.ExactMinDist2(p)
	scale := verify.Scale(p)
	dist := verify.ErrEps(verify.DistErr(float64(d2), exact), scale)
	opt := verify.ErrEps(math.Max(0, verify.Dist(verify.ExactDist2At(p, float64(s), float64(tt)))-verify.Dist(exact)), scale)
	if dist > 8 || opt > 8 {
		t.Errorf("%s: ClosestLane = %v, %v, %v: distance error %.3g, optimality %.3g eps32 x scale for %s",
			what, s, tt, d2, dist, opt, pairString(p))
	}
}

// randomFloat32 returns a float32 with uniformly random bits that is finite
// and at most maxAbs in magnitude: every exponent, subnormals included.
func randomFloat32(r *rand.Rand, maxAbs float32) float32 {
	for {
		x := math.Float32frombits(r.Uint32())
		if x == x && x >= -maxAbs && x <= maxAbs {
			return x
		}
	}
}

// TestClosestLaneParameterRange checks S, T in [0,1] and a finite Dist2
// for finite input up to 1e18: the adversarial categories, and pairs whose
// twelve coordinates have random bits (every exponent from subnormal to
// 1e18 mixed in one pair).
func TestClosestLaneParameterRange(t *testing.T) {
	check := func(p soa.Pair) {
		s, tt, d2 := lane(p)
		if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1) || !(d2 >= 0 && d2 <= math.MaxFloat32) {
			t.Fatalf("ClosestLane = %v, %v, %v for %s", s, tt, d2, pairString(p))
		}
	}
	for _, p := range verify.Mixed(7, 500) {
		check(p)
	}
	r := verify.NewRand(8, 0)
	for range 20000 {
		var c [12]float32
		for i := range c {
			c[i] = randomFloat32(r, verify.MaxRange)
		}
		check(verify.FromCoords(c))
	}
}

// TestClosestLaneZeroLength checks the sphere cases: a zero-length segment
// gets parameter 0 (numerically; T may be -0, see below) and the distance
// of the point to the other segment within the accuracy bound; two points
// give S = T = 0 and Dist2 = |A-C|^2 as one float32 dot product.
//
// Note: for C = D, T is computed as (P-C).0 x 0, which is -0 when every
// component of P-C is negative; -0 == 0, and every path produces the same
// bits, so the contract holds, but a caller printing T may see "-0".
func TestClosestLaneZeroLength(t *testing.T) {
	r := verify.NewRand(9, 0)
	for i := range 3000 {
		p := verify.Categories()[0].Gen(r)
		if i%100 == 0 {
			p = scalePair(p, 40*(i%3-1)) // also at 2^-40 and 2^40 scale
		}
		a, c := p, p
		a.B = a.A
		c.D = c.C
		s, tt, d2 := lane(a)
		if s != 0 || math.Float32bits(s) != 0 {
			t.Errorf("A = B: S = %v (bits %#x), want +0 for %s", s, math.Float32bits(s), pairString(a))
		}
		checkAccurate(t, "A = B", a, s, tt, d2)
		s, tt, d2 = lane(c)
		if tt != 0 {
			t.Errorf("C = D: T = %v, want 0 for %s", tt, pairString(c))
		}
		checkAccurate(t, "C = D", c, s, tt, d2)

		b := p
		b.B, b.D = b.A, b.C
		s, tt, d2 = lane(b)
		ex, ey, ez := b.A[0]-b.C[0], b.A[1]-b.C[1], b.A[2]-b.C[2]
		want := float32(float32(ex*ex)+float32(ey*ey)) + float32(ez*ez)
		if s != 0 || tt != 0 || math.Float32bits(d2) != math.Float32bits(want) {
			t.Errorf("A = B, C = D: ClosestLane = %v, %v, %v; want 0, 0, %v for %s", s, tt, d2, want, pairString(b))
		}
	}
	// Exact cases: the answer is exactly representable and must be exact.
	v := func(x, y, z float32) [3]float32 { return [3]float32{x, y, z} }
	exact := []struct {
		p          soa.Pair
		s, t, dist float32
	}{
		{soa.Pair{A: v(0, 1, 0), B: v(0, 1, 0), C: v(-1, 0, 0), D: v(1, 0, 0)}, 0, 0.5, 1},
		{soa.Pair{A: v(3, 1, 0), B: v(3, 1, 0), C: v(-1, 0, 0), D: v(1, 0, 0)}, 0, 1, 5},
		{soa.Pair{A: v(-1, 0, 0), B: v(1, 0, 0), C: v(0, 1, 0), D: v(0, 1, 0)}, 0.5, 0, 1},
		{soa.Pair{A: v(0, 0, 0), B: v(8, 0, 0), C: v(2, 3, 4), D: v(2, 3, 4)}, 0.25, 0, 25},
		{soa.Pair{A: v(1, 2, 3), B: v(1, 2, 3), C: v(4, 6, 3), D: v(4, 6, 3)}, 0, 0, 25},
		{soa.Pair{A: v(2, 2, 2), B: v(2, 2, 2), C: v(0, 0, 0), D: v(4, 4, 4)}, 0, 0.5, 0},
	}
	for _, c := range exact {
		s, tt, d2 := lane(c.p)
		if s != c.s || tt != c.t || d2 != c.dist {
			t.Errorf("ClosestLane(%s) = %v, %v, %v; want %v, %v, %v", pairString(c.p), s, tt, d2, c.s, c.t, c.dist)
		}
	}
}

// TestClosestLaneMaxRange checks finite, accurate results at the edge of
// the documented range: all 4096 sign patterns of |coordinate| =
// float32(1e18), and random pairs with coordinates near ±1e18.
func TestClosestLaneMaxRange(t *testing.T) {
	m := float32(verify.MaxRange)
	for signs := range 1 << 12 {
		var c [12]float32
		for i := range c {
			c[i] = m
			if signs>>i&1 != 0 {
				c[i] = -m
			}
		}
		p := verify.FromCoords(c)
		s, tt, d2 := lane(p)
		checkAccurate(t, "±1e18", p, s, tt, d2)
	}
	r := verify.NewRand(10, 0)
	for range 4000 {
		var c [12]float32
		for i := range c {
			c[i] = float32(verify.MaxRange * (1 - r.Float64()*1e-3))
			if r.IntN(2) == 0 {
				c[i] = -c[i]
			}
		}
		p := verify.FromCoords(c)
		s, tt, d2 := lane(p)
		checkAccurate(t, "near ±1e18", p, s, tt, d2)
	}
}

// isCanonical reports whether all three results are the canonical NaN.
func isCanonical(s, t, d2 float32) bool {
	return math.Float32bits(s) == verify.CanonicalNaNBits &&
		math.Float32bits(t) == verify.CanonicalNaNBits &&
		math.Float32bits(d2) == verify.CanonicalNaNBits
}

// TestClosestLaneNaN checks that a NaN (any payload or sign) or ±Inf in any
// of the twelve coordinates gives S = T = Dist2 = the canonical NaN
// 0x7FC00000, for generic and degenerate base pairs.
func TestClosestLaneNaN(t *testing.T) {
	if math.Float32bits(fallback.CanonicalNaN) != verify.CanonicalNaNBits {
		t.Fatalf("CanonicalNaN bits %#x, want %#x", math.Float32bits(fallback.CanonicalNaN), verify.CanonicalNaNBits)
	}
	bases := verify.Mixed(11, 3)
	bases = append(bases, soa.Pair{}) // all zero: both segments points
	for _, base := range bases {
		for i := range 12 {
			for _, x := range verify.NonFinite() {
				p := verify.WithCoord(base, i, x)
				if s, tt, d2 := lane(p); !isCanonical(s, tt, d2) {
					t.Fatalf("coordinate %d = %v (bits %#x): ClosestLane = %#x, %#x, %#x; want all %#x, for %s",
						i, x, math.Float32bits(x), math.Float32bits(s), math.Float32bits(tt), math.Float32bits(d2),
						verify.CanonicalNaNBits, pairString(p))
				}
			}
		}
		// Several at once, +Inf and -Inf together (Inf - Inf = NaN).
		p := verify.WithCoord(verify.WithCoord(base, 0, float32(math.Inf(1))), 9, float32(math.Inf(-1)))
		if s, tt, d2 := lane(p); !isCanonical(s, tt, d2) {
			t.Errorf("+Inf and -Inf: ClosestLane = %v, %v, %v for %s", s, tt, d2, pairString(p))
		}
	}
}

// TestClosestLaneOverflow checks pairs beyond the documented range: the
// result is either finite with S, T in [0,1], or all three are the
// canonical NaN; a NaN never leaks into S or T alone.
func TestClosestLaneOverflow(t *testing.T) {
	r := verify.NewRand(12, 0)
	nan := 0
	for range 20000 {
		var c [12]float32
		for i := range c {
			c[i] = randomFloat32(r, math.MaxFloat32)
		}
		p := verify.FromCoords(c)
		s, tt, d2 := lane(p)
		if isCanonical(s, tt, d2) {
			nan++
			continue
		}
		if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1 && d2 >= 0 && d2 <= math.MaxFloat32) {
			t.Fatalf("ClosestLane = %v, %v, %v (bits %#x %#x %#x) for %s", s, tt, d2,
				math.Float32bits(s), math.Float32bits(tt), math.Float32bits(d2), pairString(p))
		}
	}
	if nan == 0 {
		t.Errorf("no overflowing lane among 20000 random-bit pairs: the test does not reach the NaN rule")
	}
	p := soa.Pair{A: [3]float32{3e38, 0, 0}, B: [3]float32{3e38, 1, 0}, C: [3]float32{-3e38, 0, 0}, D: [3]float32{-3e38, 0, 1}}
	if s, tt, d2 := lane(p); !isCanonical(s, tt, d2) {
		t.Errorf("squared distance overflows: ClosestLane = %v, %v, %v, want canonical NaN", s, tt, d2)
	}
}

// TestClosestLaneNearParallelCrossing runs the float32 kernel on the exact
// near-parallel crossings of TestReferenceNearParallelExact (angles down to
// about 1e-14 rad): the plane projection loses the crossing parameter as
// the angle shrinks but not the distance.
func TestClosestLaneNearParallelCrossing(t *testing.T) {
	for e := 1; e <= 22; e++ {
		m := float32(math.Ldexp(1, e))
		for _, z := range []float32{0, 1, -3} {
			for _, x := range []float32{0, 17, -1000} {
				p := nearParallelCrossing(m, z, x)
				s, tt, d2 := lane(p)
				checkAccurate(t, "near-parallel crossing", p, s, tt, d2)
			}
		}
	}
}

// TestBatchClosestMatchesLane checks that BatchClosest is ClosestLane lane
// by lane, bit for bit, and writes only the first n results.
func TestBatchClosestMatchesLane(t *testing.T) {
	all := verify.GoldenPairs()
	for _, n := range []int{0, 1, 2, 3, 15, 16, 17, 100, len(all)} {
		ps := soa.FromPairs(all[:n])
		const extra = 3
		sentinel := float32(-12345)
		res := soa.NewResults(n + extra)
		for i := range res.S {
			res.S[i], res.T[i], res.Dist2[i] = sentinel, sentinel, sentinel
		}
		fallback.BatchClosest(n, ps.AX, ps.AY, ps.AZ, ps.BX, ps.BY, ps.BZ, ps.CX, ps.CY, ps.CZ,
			ps.DX, ps.DY, ps.DZ, res.S, res.T, res.Dist2)
		for i := range n {
			s, tt, d2 := lane(all[i])
			if math.Float32bits(res.S[i]) != math.Float32bits(s) || math.Float32bits(res.T[i]) != math.Float32bits(tt) ||
				math.Float32bits(res.Dist2[i]) != math.Float32bits(d2) {
				t.Fatalf("n=%d lane %d: BatchClosest %v %v %v, ClosestLane %v %v %v", n, i, res.S[i], res.T[i], res.Dist2[i], s, tt, d2)
			}
		}
		for i := n; i < n+extra; i++ {
			if res.S[i] != sentinel || res.T[i] != sentinel || res.Dist2[i] != sentinel {
				t.Fatalf("n=%d: BatchClosest wrote result %d", n, i)
			}
		}
	}
}

// TestBatchStream checks the memory baseline's documented outputs.
func TestBatchStream(t *testing.T) {
	all := verify.Mixed(13, 2)
	n := len(all)
	ps := soa.FromPairs(all)
	res := soa.NewResults(n)
	fallback.BatchStream(n, ps.AX, ps.AY, ps.AZ, ps.BX, ps.BY, ps.BZ, ps.CX, ps.CY, ps.CZ,
		ps.DX, ps.DY, ps.DZ, res.S, res.T, res.Dist2)
	for i, p := range all {
		for k, got := range []float32{res.S[i], res.T[i], res.Dist2[i]} {
			want := ((p.A[k] + p.B[k]) + p.C[k]) + p.D[k]
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("lane %d output %d: %v, want %v", i, k, got, want)
			}
		}
	}
}

// TestClosestLaneTinySegment checks segments far shorter than their
// coordinates' scale allows to square: |D-C| = 1e-21 (|D-C|^2 = 1e-42, a
// float32 subnormal) next to a unit segment. The answer is finite (the
// distance is 1) like for any finite input within 1e18; a kernel that
// forms 1/|D-C|^2 overflows to +Inf here and returns NaN.
func TestClosestLaneTinySegment(t *testing.T) {
	v := func(x, y, z float32) [3]float32 { return [3]float32{x, y, z} }
	for _, p := range []soa.Pair{
		{A: v(0, 0, 0), B: v(1, 0, 0), C: v(0, 1, 0), D: v(1e-21, 1, 0)},
		{A: v(0, 1, 0), B: v(1e-21, 1, 0), C: v(0, 0, 0), D: v(1, 0, 0)},
		{A: v(0, 0, 0), B: v(1, 0, 0), C: v(0.5, 1, 0), D: v(0.5, 1, 4e-20)},
		{A: v(0, 0, 0), B: v(1e-20, 0, 0), C: v(0, 1e-20, 0), D: v(1e-20, 1e-20, 3e-20)},
	} {
		s, tt, d2 := lane(p)
		if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1 && d2 >= 0 && d2 <= math.MaxFloat32) {
			t.Errorf("ClosestLane(%s) = %v, %v, %v: NaN from finite input (1/|D-C|^2 overflows?)", pairString(p), s, tt, d2)
			continue
		}
		exact := verify.Dist(verify.ExactMinDist2(p))
		if e := math.Abs(math.Sqrt(float64(d2)) - exact); e > 8*verify.Eps32*verify.Scale(p)+verify.AbsSlack {
			t.Errorf("ClosestLane(%s) = %v, %v, %v: distance error %g", pairString(p), s, tt, d2, e)
		}
	}
}

// TestClosestLaneSmallScale scales every category down to scale 2^-30 ...
// 2^-149 (subnormal coordinates): the error stays within 8 eps32 x scale
// plus verify.AbsSlack, the absolute allowance for lengths a float32
// kernel cannot square. Logs the largest scale at which the relative bound
// alone fails (the contract's lower end).
func TestClosestLaneSmallScale(t *testing.T) {
	per := 20
	if testing.Short() {
		per = 6
	}
	relFails, relCat, relErr := math.Inf(-1), "", 0.0
	for ci, c := range verify.Categories() {
		r := verify.NewRand(14, uint64(ci))
		for k := 30; k <= 149; k += 7 {
			for range per {
				p := c.Gen(r)
				cs := verify.Coords(p)
				f := math.Ldexp(1, -k) / verify.Scale(p)
				for i := range cs {
					cs[i] = float32(float64(cs[i]) * f)
				}
				p = verify.FromCoords(cs)
				sc := verify.Scale(p)
				if sc == 0 {
					continue
				}
				s, tt, d2 := lane(p)
				if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1 && d2 >= 0 && d2 <= math.MaxFloat32) {
					t.Fatalf("%s at 2^-%d: ClosestLane = %v, %v, %v for %s", c.Name, k, s, tt, d2, pairString(p))
				}
				exact := verify.ExactMinDist2(p)
				e := max(verify.DistErr(float64(d2), exact),
					verify.Dist(verify.ExactDist2At(p, float64(s), float64(tt)))-verify.Dist(exact))
				if e > 8*verify.Eps32*sc && math.Log2(sc) > relFails {
					relFails, relCat, relErr = math.Log2(sc), c.Name, e
				}
				if e > 8*verify.Eps32*sc+verify.AbsSlack {
					t.Errorf("%s at scale 2^%.1f: error %g > 8 eps32 x scale + AbsSlack for %s", c.Name, math.Log2(sc), e, pairString(p))
				}
			}
		}
	}
	t.Logf("largest scale where 8 eps32 x scale alone is exceeded: 2^%.1f (%s, absolute error %.3g = %.3g eps32 x scale)",
		relFails, relCat, relErr, verify.ErrEps(relErr, math.Exp2(relFails)))
}
