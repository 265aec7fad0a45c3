package fallback_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
)

// exactRotate evaluates PoseCapsuleLane's formula, v + w t + q×t with
// t = 2 q×v, in exact rational arithmetic.
func exactRotate(q [4]float64, v [3]float64) [3]*big.Rat {
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	mul := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
	sub := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Sub(a, b) }
	add := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Add(a, b) }
	cross := func(a, b [3]*big.Rat) [3]*big.Rat {
		return [3]*big.Rat{sub(mul(a[1], b[2]), mul(a[2], b[1])), sub(mul(a[2], b[0]), mul(a[0], b[2])), sub(mul(a[0], b[1]), mul(a[1], b[0]))}
	}
	qv := [3]*big.Rat{r(q[0]), r(q[1]), r(q[2])}
	w := r(q[3])
	vv := [3]*big.Rat{r(v[0]), r(v[1]), r(v[2])}
	c := cross(qv, vv)
	t := [3]*big.Rat{add(c[0], c[0]), add(c[1], c[1]), add(c[2], c[2])}
	u := cross(qv, t)
	var out [3]*big.Rat
	for k := range out {
		out[k] = add(add(vv[k], mul(w, t[k])), u[k])
	}
	return out
}

// TestPoseCapsuleLaneExact: for random unit quaternions (rounded to
// float32 or float64), positions up to 1e4 and local axes up to 10 long,
// each world endpoint is within 8 eps x scale of p + the formula's exact
// value on the rounded inputs, scale the largest of |p| and |v|.
func TestPoseCapsuleLaneExact(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	r := verify.NewRand(31, 1)
	worst32, worst64 := 0.0, 0.0
	for range n {
		q := verify.RandomQuaternion(r)
		p := [3]float64{(r.Float64() - 0.5) * 2e4, (r.Float64() - 0.5) * 2e4, (r.Float64() - 0.5) * 2e4}
		if r.IntN(2) == 0 {
			p = [3]float64{}
		}
		la := [3]float64{(r.Float64() - 0.5) * 10, (r.Float64() - 0.5) * 10, (r.Float64() - 0.5) * 10}
		lb := [3]float64{0, (r.Float64() - 0.5) * 20, 0}
		for _, prec := range []int{32, 64} {
			var qq [4]float64
			var pp, aa, bb [3]float64
			var a, b [3]float64
			rnd := func(x float64) float64 {
				if prec == 32 {
					return float64(float32(x))
				}
				return x
			}
			for k := range 4 {
				qq[k] = rnd(q[k])
			}
			for k := range 3 {
				pp[k], aa[k], bb[k] = rnd(p[k]), rnd(la[k]), rnd(lb[k])
			}
			if prec == 32 {
				a32, b32, _ := fallback.PoseCapsuleLane(float32(pp[0]), float32(pp[1]), float32(pp[2]), float32(qq[0]), float32(qq[1]), float32(qq[2]), float32(qq[3]),
					float32(aa[0]), float32(aa[1]), float32(aa[2]), float32(bb[0]), float32(bb[1]), float32(bb[2]), 0.5)
				for k := range 3 {
					a[k], b[k] = float64(a32[k]), float64(b32[k])
				}
			} else {
				a, b, _ = fallback.PoseCapsuleLane64(pp[0], pp[1], pp[2], qq[0], qq[1], qq[2], qq[3], aa[0], aa[1], aa[2], bb[0], bb[1], bb[2], 0.5)
			}
			for e, pair := range [][2][3]float64{{a, aa}, {b, bb}} {
				got, v := pair[0], pair[1]
				ex := exactRotate(qq, v)
				scale := 0.0
				for k := range 3 {
					scale = max(scale, math.Abs(pp[k]), math.Abs(v[k]))
				}
				eps := verify.Eps32
				if prec == 64 {
					eps = verify.Eps64
				}
				for k := range 3 {
					want, _ := new(big.Rat).Add(ex[k], new(big.Rat).SetFloat64(pp[k])).Float64()
					err := math.Abs(got[k]-want) / (eps * scale)
					if prec == 32 {
						worst32 = max(worst32, err)
					} else {
						worst64 = max(worst64, err)
					}
					if err > 8 {
						t.Fatalf("float%d end %d coordinate %d: %v, exact %v: %.2f eps x scale (q %v, p %v, v %v)", prec, e, k, got[k], want, err, qq, pp, v)
					}
				}
			}
		}
	}
	t.Logf("worst: float32 %.2f eps32 x scale, float64 %.2f eps64 x scale", worst32, worst64)
}

// TestPoseCapsuleLaneNonUnit: a quaternion of squared norm 1 + e moves a
// point by at most 2 |e| |v| from where the normalised quaternion puts it
// (checked in float64, where rounding is far below the effect).
func TestPoseCapsuleLaneNonUnit(t *testing.T) {
	r := verify.NewRand(32, 1)
	for _, e := range []float64{1e-2, 1e-4, -1e-4, -1e-2} {
		worst := 0.0
		for range 2000 {
			q := verify.RandomQuaternion(r)
			v := [3]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
			s := math.Sqrt(1 + e)
			unit, _, _ := fallback.PoseCapsuleLane64(0, 0, 0, q[0], q[1], q[2], q[3], v[0], v[1], v[2], 0, 0, 0, 0)
			scaled, _, _ := fallback.PoseCapsuleLane64(0, 0, 0, s*q[0], s*q[1], s*q[2], s*q[3], v[0], v[1], v[2], 0, 0, 0, 0)
			d := math.Sqrt((scaled[0]-unit[0])*(scaled[0]-unit[0]) + (scaled[1]-unit[1])*(scaled[1]-unit[1]) + (scaled[2]-unit[2])*(scaled[2]-unit[2]))
			norm := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
			worst = max(worst, d/(math.Abs(e)*norm))
		}
		if worst > 2*(1+1e-6) {
			t.Errorf("e = %v: moved by %.4f |e| |v|, bound 2", e, worst)
		}
		t.Logf("e = %v: at most %.4f |e| |v|", e, worst)
	}
}

// TestPoseCapsuleLaneCases: the identity and the zero quaternion leave
// the local axis as it is (plus p, rounded once); a quarter turn about z
// maps x to y exactly; bad input gives the canonical NaN in every output;
// the radius is copied, negative or not.
func TestPoseCapsuleLaneCases(t *testing.T) {
	for _, q := range [][4]float32{{0, 0, 0, 1}, {0, 0, 0, 0}} {
		a, b, r := fallback.PoseCapsuleLane(1, 2, 3, q[0], q[1], q[2], q[3], 0.5, -0.25, 4, -1, 0, 0, 0.75)
		if a != [3]float32{1.5, 1.75, 7} || b != [3]float32{0, 2, 3} || r != 0.75 {
			t.Errorf("q %v: %v %v %v", q, a, b, r)
		}
	}
	h := float32(math.Sqrt(0.5))
	a, _, _ := fallback.PoseCapsuleLane64(0, 0, 0, 0, 0, math.Sqrt(0.5), math.Sqrt(0.5), 1, 0, 0, 0, 0, 0, 1)
	if math.Abs(a[0]) > 1e-15 || math.Abs(a[1]-1) > 1e-15 || a[2] != 0 {
		t.Errorf("quarter turn about z, float64: x -> %v", a)
	}
	a32, _, _ := fallback.PoseCapsuleLane(0, 0, 0, 0, 0, h, h, 1, 0, 0, 0, 0, 0, 1)
	if math.Abs(float64(a32[0])) > 1e-6 || math.Abs(float64(a32[1])-1) > 1e-6 {
		t.Errorf("quarter turn about z, float32: x -> %v", a32)
	}
	if _, _, r := fallback.PoseCapsuleLane(0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, -2); r != -2 {
		t.Errorf("radius -2 came out %v", r)
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for i := range 14 {
		in := [14]float32{1, 2, 3, 0, 0, 0, 1, 0.5, 0, 0, -0.5, 0, 0, 0.25}
		for _, bad := range []float32{nan, inf, -inf} {
			in[i] = bad
			a, b, r := fallback.PoseCapsuleLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11], in[12], in[13])
			for _, x := range []float32{a[0], a[1], a[2], b[0], b[1], b[2], r} {
				if math.Float32bits(x) != 0x7FC00000 {
					t.Fatalf("input %d = %v: output %v %v %v, want the canonical NaN everywhere", i, bad, a, b, r)
				}
			}
		}
	}
	// Finite input whose rotation overflows.
	oa, ob, or := fallback.PoseCapsuleLane(0, 0, 0, 1e20, 1e20, 0, 1, 1e10, 0, 0, 0, 0, 0, 1)
	if math.Float32bits(oa[0]) != 0x7FC00000 || math.Float32bits(ob[2]) != 0x7FC00000 || math.Float32bits(or) != 0x7FC00000 {
		t.Errorf("overflowing rotation: %v %v %v, want the canonical NaN", oa, ob, or)
	}
}
