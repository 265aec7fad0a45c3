package fallback_test

import (
	"fmt"
	"math"
	"math/big"
	"sync"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// exactSeed seeds the accuracy sweeps.
const exactSeed = 20080101

// exactCase is a generated pair with its exact minimum squared distance.
type exactCase struct {
	p     soa.Pair
	min2  *big.Rat
	scale float64
}

// exactCategory is one category's cases.
type exactCategory struct {
	name  string
	cases []exactCase
}

var (
	exactOnce  sync.Once
	exactCache []exactCategory
)

// perCategory is the number of pairs per category of the accuracy sweeps.
func perCategory() int {
	if testing.Short() {
		return 300
	}
	return 2000
}

// exactCases returns every category's pairs and exact minima, computed once
// per test binary and shared by the tests of this file.
func exactCases() []exactCategory {
	exactOnce.Do(func() {
		n := perCategory()
		for k, c := range verify.Categories() {
			r := verify.NewRand(exactSeed, uint64(k))
			ec := exactCategory{name: c.Name, cases: make([]exactCase, n)}
			for i := range n {
				p := c.Gen(r)
				ec.cases[i] = exactCase{p: p, min2: verify.ExactMinDist2(p), scale: verify.Scale(p)}
			}
			exactCache = append(exactCache, ec)
		}
	})
	return exactCache
}

// worst tracks the largest error seen and the pair that produced it.
type worst struct {
	err float64
	p   soa.Pair
	s   float64
	t   float64
}

func (w *worst) add(err float64, p soa.Pair, s, t float64) {
	if err > w.err || math.IsNaN(err) {
		*w = worst{err, p, s, t}
	}
}

func pairString(p soa.Pair) string {
	return fmt.Sprintf("A=%v B=%v C=%v D=%v", p.A, p.B, p.C, p.D)
}

// TestReferenceExact checks the float64 reference against exact rational
// arithmetic: the distance it reports and the distance between the points
// at the (s, t) it reports are both within 1e-9 x scale of the exact
// minimum, on every category.
func TestReferenceExact(t *testing.T) {
	const bound = 1e-9 // x scale
	for _, cat := range exactCases() {
		t.Run(cat.name, func(t *testing.T) {
			var dist, opt worst
			for _, c := range cat.cases {
				s, tt, d2 := fallback.ReferenceF32(c.p.A, c.p.B, c.p.C, c.p.D)
				if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1) {
					t.Fatalf("s, t = %v, %v outside [0,1] for %s", s, tt, pairString(c.p))
				}
				dist.add(verify.DistErr(d2, c.min2)/c.scale, c.p, s, tt)
				at := verify.Dist(verify.ExactDist2At(c.p, s, tt))
				opt.add((at-verify.Dist(c.min2))/c.scale, c.p, s, tt)
			}
			t.Logf("%-17s worst distance error %.3g x scale, optimality %.3g x scale", cat.name, dist.err, opt.err)
			if !(dist.err <= bound) {
				t.Errorf("distance error %.3g x scale > %g for %s (s=%v t=%v)", dist.err, bound, pairString(dist.p), dist.s, dist.t)
			}
			if !(opt.err <= bound) {
				t.Errorf("optimality error %.3g x scale > %g for %s (s=%v t=%v)", opt.err, bound, pairString(opt.p), opt.s, opt.t)
			}
		})
	}
}

// TestClosestLaneExact checks the float32 kernel specification against
// exact rational arithmetic: within 8 eps32 x scale both in the distance
// it reports and in the exact distance between the points at its S and T
// (optimality). The worst figures per category are logged (run with -v);
// docs/design.md, "Accuracy", quotes them.
func TestClosestLaneExact(t *testing.T) {
	const bound = 8.0 // eps32 x scale
	for _, cat := range exactCases() {
		t.Run(cat.name, func(t *testing.T) {
			var dist, opt worst
			for _, c := range cat.cases {
				p := c.p
				s, tt, d2 := fallback.ClosestLane(p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2],
					p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2])
				if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1) || math.IsInf(float64(d2), 0) || d2 != d2 {
					t.Fatalf("ClosestLane = %v, %v, %v for %s", s, tt, d2, pairString(p))
				}
				dist.add(verify.ErrEps(verify.DistErr(float64(d2), c.min2), c.scale), p, float64(s), float64(tt))
				at := verify.Dist(verify.ExactDist2At(p, float64(s), float64(tt)))
				opt.add(verify.ErrEps(math.Max(0, at-verify.Dist(c.min2)), c.scale), p, float64(s), float64(tt))
			}
			t.Logf("%-17s worst distance error %.3g eps32 x scale, optimality %.3g", cat.name, dist.err, opt.err)
			if !(dist.err <= bound) {
				t.Errorf("distance error %.3g eps32 x scale > %g for %s (S=%v T=%v)", dist.err, bound, pairString(dist.p), dist.s, dist.t)
			}
			if !(opt.err <= bound) {
				t.Errorf("optimality error %.3g eps32 x scale > %g for %s (S=%v T=%v)", opt.err, bound, pairString(opt.p), opt.s, opt.t)
			}
		})
	}
}

// TestClosestLane64Exact checks the float64 specification against exact
// rational arithmetic: within 8 eps64 x scale in the distance it reports
// and in the exact distance between the points at its S and T, on every
// category of verify.Categories64 (coordinates up to 1e150).
func TestClosestLane64Exact(t *testing.T) {
	const bound = 8.0 // eps64 x scale
	n := perCategory()
	for k, cat := range verify.Categories64() {
		t.Run(cat.Name, func(t *testing.T) {
			r := verify.NewRand(exactSeed, uint64(k))
			var dist, opt float64
			var worstDist, worstOpt soa.Pair64
			for range n {
				p := cat.Gen64(r)
				min2, scale := verify.ExactMinDist2(p), verify.Scale(p)
				s, tt, d2 := fallback.ClosestLane64(p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2],
					p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2])
				if !(s >= 0 && s <= 1 && tt >= 0 && tt <= 1) || math.IsInf(d2, 0) || d2 != d2 {
					t.Fatalf("ClosestLane64 = %v, %v, %v for %+v", s, tt, d2, p)
				}
				if e := verify.ErrEps64(verify.DistErr(d2, min2), scale); e > dist || e != e {
					dist, worstDist = e, p
				}
				at := verify.Dist(verify.ExactDist2At(p, s, tt))
				if e := verify.ErrEps64(math.Max(0, at-verify.Dist(min2)), scale); e > opt || e != e {
					opt, worstOpt = e, p
				}
			}
			t.Logf("%-17s worst distance error %.3g eps64 x scale, optimality %.3g", cat.Name, dist, opt)
			if !(dist <= bound) {
				t.Errorf("distance error %.3g eps64 x scale > %g for %+v", dist, bound, worstDist)
			}
			if !(opt <= bound) {
				t.Errorf("optimality error %.3g eps64 x scale > %g for %+v", opt, bound, worstOpt)
			}
		})
	}
}
