package verify_test

import (
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

func v(x, y, z float32) [3]float32 { return [3]float32{x, y, z} }

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

// TestExactMinDist2Known checks the oracle on hand-made pairs with known
// answers, covering the interior solution, every edge and the degenerate
// cases.
func TestExactMinDist2Known(t *testing.T) {
	cases := []struct {
		name string
		p    soa.Pair
		want string
	}{
		{"crossing", soa.Pair{A: v(-1, 0, 0), B: v(1, 0, 0), C: v(0, -1, 0), D: v(0, 1, 0)}, "0"},
		{"skew", soa.Pair{A: v(-1, 0, 0), B: v(1, 0, 0), C: v(0, -1, 2), D: v(0, 1, 2)}, "4"},
		{"skew interior 1/3", soa.Pair{A: v(0, 0, 0), B: v(3, 0, 0), C: v(1, 1, 1), D: v(1, 1, -2)}, "1"},
		{"parallel offset", soa.Pair{A: v(0, 0, 0), B: v(1, 0, 0), C: v(0, 1, 0), D: v(1, 1, 0)}, "1"},
		{"parallel disjoint", soa.Pair{A: v(0, 0, 0), B: v(1, 0, 0), C: v(3, 1, 0), D: v(4, 1, 0)}, "5"},
		{"antiparallel", soa.Pair{A: v(0, 0, 0), B: v(4, 0, 0), C: v(3, 2, 0), D: v(1, 2, 0)}, "4"},
		{"collinear overlap", soa.Pair{A: v(0, 0, 0), B: v(2, 0, 0), C: v(1, 0, 0), D: v(5, 0, 0)}, "0"},
		{"collinear gap", soa.Pair{A: v(0, 0, 0), B: v(2, 0, 0), C: v(3, 0, 0), D: v(5, 0, 0)}, "1"},
		{"point-point", soa.Pair{A: v(1, 2, 3), B: v(1, 2, 3), C: v(4, 6, 3), D: v(4, 6, 3)}, "25"},
		{"point-segment", soa.Pair{A: v(0, 1, 0), B: v(0, 1, 0), C: v(-1, 0, 0), D: v(1, 0, 0)}, "1"},
		{"point beyond end", soa.Pair{A: v(3, 1, 0), B: v(3, 1, 0), C: v(-1, 0, 0), D: v(1, 0, 0)}, "5"},
		{"segment-point", soa.Pair{A: v(-1, 0, 0), B: v(1, 0, 0), C: v(0, 0, 2), D: v(0, 0, 2)}, "4"},
		{"point to hypotenuse", soa.Pair{A: v(0, 0, 0), B: v(0, 0, 0), C: v(1, 0, 0), D: v(0, 1, 0)}, "1/2"},
		{"endpoints", soa.Pair{A: v(0, 0, 0), B: v(1, 0, 0), C: v(2, 1, 0), D: v(3, 5, 0)}, "2"},
		{"edge s=1 interior t", soa.Pair{A: v(-2, 0, 0), B: v(0, 0, 0), C: v(1, -1, 1), D: v(1, 1, 1)}, "2"},
		{"edge t=1 interior s", soa.Pair{A: v(-1, 0, 0), B: v(1, 0, 0), C: v(0, 5, 3), D: v(0, 1, 0)}, "1"},
		{"all zero", soa.Pair{}, "0"},
		{"subnormal", soa.Pair{A: v(0, 0, 0), B: v(0, 0, 0), C: v(math.Float32frombits(1), 0, 0), D: v(math.Float32frombits(1), 0, 0)}, "1/" + new(big.Int).Lsh(big.NewInt(1), 298).String()},
		{"huge", soa.Pair{A: v(0, 0, 0), B: v(0, 0, 0), C: v(0x1p127, 0, 0), D: v(0x1p127, 0, 0)}, new(big.Int).Lsh(big.NewInt(1), 254).String()},
		// Point (1,0,0) to the diagonal: foot at 1/3 (1,1,1).
		{"non-dyadic", soa.Pair{A: v(0, 0, 0), B: v(1, 1, 1), C: v(1, 0, 0), D: v(1, 0, 0)}, "2/3"},
	}
	for _, c := range cases {
		if got := verify.ExactMinDist2(c.p); got.Cmp(rat(c.want)) != 0 {
			t.Errorf("%s: ExactMinDist2 = %s, want %s", c.name, got.RatString(), c.want)
		}
	}
}

// TestExactDist2At checks the squared distance at given parameters.
func TestExactDist2At(t *testing.T) {
	p := soa.Pair{A: v(-1, 0, 0), B: v(1, 0, 0), C: v(0, -1, 3), D: v(0, 1, 3)}
	// s = 2^-60 puts P at x = -1 + 2^-59: distance^2 (1 - 2^-59)^2 + 9.
	x := new(big.Rat).Sub(rat("1"), new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 59)))
	tiny := new(big.Rat).Add(new(big.Rat).Mul(x, x), rat("9")).RatString()
	cases := []struct {
		s, t float64
		want string
	}{
		{0.5, 0.5, "9"},
		{0, 0, "11"},      // (-1,0,0)-(0,-1,3)
		{1, 1, "11"},      // (1,0,0)-(0,1,3)
		{0.25, 0, "41/4"}, // (-1/2,0,0)-(0,-1,3): 1/4+1+9
		{0x1p-60, 0.5, tiny},
	}
	for _, c := range cases {
		if got := verify.ExactDist2At(p, c.s, c.t); got.Cmp(rat(c.want)) != 0 {
			t.Errorf("ExactDist2At(%v, %v) = %s, want %s", c.s, c.t, got.RatString(), c.want)
		}
	}
}

// TestExactScaling checks the integer scaling: multiplying a pair by 2^k
// multiplies the exact squared distance by 2^2k, down to subnormal and up
// to the largest float32 exponents.
func TestExactScaling(t *testing.T) {
	base := soa.Pair{A: v(0.375, -1.5, 3), B: v(2.25, 0.5, -1), C: v(-1, 1.125, 0.5), D: v(1.75, -0.25, 2)}
	want := verify.ExactMinDist2(base)
	for _, k := range []int{-140, -100, -20, 0, 20, 100, 120} {
		c := verify.Coords(base)
		for i := range c {
			c[i] = float32(math.Ldexp(float64(c[i]), k))
		}
		got := verify.ExactMinDist2(verify.FromCoords(c))
		f := new(big.Rat).SetFrac(big.NewInt(1), big.NewInt(1))
		if k >= 0 {
			f.SetInt(new(big.Int).Lsh(big.NewInt(1), uint(2*k)))
		} else {
			f.SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-2*k)))
		}
		if got.Cmp(new(big.Rat).Mul(want, f)) != 0 {
			t.Errorf("2^%d: ExactMinDist2 = %s, want %s * 2^%d", k, got.FloatString(10), want.FloatString(10), 2*k)
		}
	}
}

// TestExactIsMinimum checks, on every category, that the exact minimum is
// attained (at a grid of parameters it is never beaten, and some
// parameters come within float64 rounding of it).
func TestExactIsMinimum(t *testing.T) {
	for _, c := range verify.Categories() {
		for _, p := range verify.Generate(c, 3, 40) {
			min2 := verify.ExactMinDist2(p)
			if min2.Sign() < 0 {
				t.Fatalf("%s: negative minimum %s", c.Name, min2.RatString())
			}
			for i := range 9 {
				for j := range 9 {
					at := verify.ExactDist2At(p, float64(i)/8, float64(j)/8)
					if at.Cmp(min2) < 0 {
						t.Fatalf("%s: Q(%v, %v) = %s below the exact minimum %s for %v",
							c.Name, float64(i)/8, float64(j)/8, at.FloatString(30), min2.FloatString(30), p)
					}
				}
			}
		}
	}
}

// TestCategories checks that each generator produces what its name says,
// and that generation is deterministic.
func TestCategories(t *testing.T) {
	cats := verify.Categories()
	if len(cats) != 15 {
		t.Errorf("%d categories, want 15", len(cats))
	}
	names := map[string]bool{}
	for _, c := range cats {
		if names[c.Name] {
			t.Errorf("duplicate category %q", c.Name)
		}
		names[c.Name] = true
	}
	sub := func(x, y [3]float32) [3]*big.Rat {
		var r [3]*big.Rat
		for i := range 3 {
			r[i] = new(big.Rat).Sub(new(big.Rat).SetFloat64(float64(x[i])), new(big.Rat).SetFloat64(float64(y[i])))
		}
		return r
	}
	crossZero := func(a, b [3]*big.Rat) bool {
		m := func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }
		return m(a[1], b[2]).Cmp(m(a[2], b[1])) == 0 && m(a[2], b[0]).Cmp(m(a[0], b[2])) == 0 &&
			m(a[0], b[1]).Cmp(m(a[1], b[0])) == 0
	}
	dotSign := func(a, b [3]*big.Rat) int {
		s := new(big.Rat)
		for i := range 3 {
			s.Add(s, new(big.Rat).Mul(a[i], b[i]))
		}
		return s.Sign()
	}
	for _, c := range cats {
		ps := verify.Generate(c, 4, 200)
		if !slices.Equal(ps, verify.Generate(c, 4, 200)) {
			t.Errorf("%s: not deterministic", c.Name)
		}
		for _, p := range ps {
			if !verify.Finite(p) || verify.Scale(p) > verify.MaxRange {
				t.Fatalf("%s: %v not finite or beyond MaxRange", c.Name, p)
			}
			m0, m1 := sub(p.B, p.A), sub(p.D, p.C)
			ok := true
			switch c.Name {
			case "parallel":
				ok = crossZero(m0, m1) && dotSign(m0, m1) > 0
			case "antiparallel":
				ok = crossZero(m0, m1) && dotSign(m0, m1) < 0
			case "collinear":
				ok = crossZero(m0, sub(p.C, p.A)) && crossZero(m0, sub(p.D, p.A))
			case "zero-length-one":
				ok = (p.A == p.B) != (p.C == p.D)
			case "zero-length-both":
				ok = p.A == p.B && p.C == p.D
			case "crossing":
				ok = verify.ExactMinDist2(p).Sign() == 0 && p.A != p.B && p.C != p.D
			case "shared-endpoint":
				ok = p.C == p.A || p.C == p.B || p.D == p.A || p.D == p.B
			case "far":
				ok = verify.Scale(p) > 5e3 && verify.Scale(p) < 2e4
			case "tiny":
				ok = verify.Scale(p) <= 1e-4
			case "huge":
				ok = verify.Scale(p) <= 1e15 && verify.Scale(p) > 1e13
			case "axis-aligned":
				n := 0
				for i := range 3 {
					if p.A[i] != p.B[i] {
						n++
					}
					if p.C[i] != p.D[i] {
						n++
					}
				}
				ok = n <= 2
			case "length-ratio-1e6":
				l0 := verify.Dist(verify.ExactDist2At(soa.Pair{A: p.A, B: p.A, C: p.B, D: p.B}, 0, 0))
				l1 := verify.Dist(verify.ExactDist2At(soa.Pair{A: p.C, B: p.C, C: p.D, D: p.D}, 0, 0))
				r := max(l0, l1) / min(l0, l1)
				ok = r > 1e5 && r < 1e7
			case "near-parallel":
				// sin^2 of the angle, from the float32 endpoints.
				var a, b, d float64
				for i := range 3 {
					x, _ := m0[i].Float64()
					y, _ := m1[i].Float64()
					a, b, d = a+x*x, b+x*y, d+y*y
				}
				ok = 1-b*b/(a*d) < 0.02
			}
			if !ok {
				t.Fatalf("%s: pair %v does not have the category's property", c.Name, p)
			}
		}
	}
	mixed := verify.Mixed(5, 3)
	if len(mixed) != 3*len(cats) {
		t.Fatalf("Mixed(5, 3) has %d pairs", len(mixed))
	}
	if !slices.Equal(mixed[3:6], verify.Mixed(5, 7)[7:10]) {
		t.Errorf("a category's pairs depend on perCategory")
	}
	edge := 0
	for _, p := range verify.Generate(cats[len(cats)-1], 1, 50) {
		for _, x := range verify.Coords(p) {
			if math.Abs(float64(x)) == float64(float32(verify.MaxRange)) {
				edge++
			}
		}
	}
	if edge == 0 {
		t.Errorf("edge-1e18 never reaches ±float32(1e18)")
	}
}

// TestErrEps checks the error unit helpers.
func TestErrEps(t *testing.T) {
	if got := verify.ErrEps(0, 0); got != 0 {
		t.Errorf("ErrEps(0, 0) = %v", got)
	}
	if got := verify.ErrEps(1, 0); !math.IsInf(got, 1) {
		t.Errorf("ErrEps(1, 0) = %v, want +Inf", got)
	}
	if got := verify.ErrEps(3*verify.Eps32*4, 4); got != 3 {
		t.Errorf("ErrEps = %v, want 3", got)
	}
	if got := verify.DistErr(25, rat("16")); got != 1 {
		t.Errorf("DistErr(25, 16) = %v, want 1", got)
	}
	if got := verify.Scale(soa.Pair{A: v(1, -7, 2), D: v(0, 0, 6.5)}); got != 7 {
		t.Errorf("Scale = %v, want 7", got)
	}
}

// TestGoldenPairs checks the golden batch's shape: every category, every
// non-finite value, every coordinate position hit.
func TestGoldenPairs(t *testing.T) {
	ps := verify.GoldenPairs()
	if want := len(verify.Categories())*verify.GoldenPerCategory + 2; len(ps) != want {
		t.Fatalf("%d golden pairs, want %d", len(ps), want)
	}
	pos := map[int]bool{}
	vals := map[uint32]bool{}
	for _, p := range ps {
		for i, x := range verify.Coords(p) {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				pos[i] = true
				vals[math.Float32bits(x)] = true
			}
		}
	}
	if len(pos) != 12 || len(vals) != len(verify.NonFinite()) {
		t.Errorf("non-finite values at %d coordinate positions with %d distinct values; want 12 and %d",
			len(pos), len(vals), len(verify.NonFinite()))
	}
	if verify.HashSlices(nil, nil, nil) != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("hash of nothing is not SHA-256 of the empty string")
	}
}

// TestSeparate checks the unaligned batch builder.
func TestSeparate(t *testing.T) {
	ps := verify.Mixed(6, 2)
	b := verify.Separate(ps, 1)
	if b.Len() != len(ps) {
		t.Fatalf("Len = %d", b.Len())
	}
	for i, p := range ps {
		if b.Get(i) != p {
			t.Fatalf("pair %d: %v, want %v", i, b.Get(i), p)
		}
	}
	if cap(b.DZ) != len(ps) {
		t.Errorf("cap(DZ) = %d, want %d (no slack after the last element)", cap(b.DZ), len(ps))
	}
	r := verify.NewSeparateResults(5, 3)
	if len(r.S) != 5 || cap(r.Dist2) != 5 {
		t.Errorf("NewSeparateResults: len %d cap %d", len(r.S), cap(r.Dist2))
	}
}
