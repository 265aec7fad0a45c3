package verify

import (
	"math"
	"math/big"

	"github.com/segdist/segdist/soa"
)

// Eps32 is the float32 machine epsilon 2^-23, the unit of the accuracy
// contract (errors are quoted in eps32 x Scale).
const Eps32 = 0x1p-23

// Eps64 is the float64 machine epsilon 2^-52, the unit of the float64
// kernels' contract (eps64 x Scale).
const Eps64 = 0x1p-52

// AbsSlack is an absolute allowance on distances, on top of 8 eps32 x
// scale, that matters only for pairs with very short vectors. A float32
// kernel squares lengths: squares of lengths below 2^-63 (1.1e-19) are
// subnormal and lose bits, below 2^-75 they are zero, and a second segment
// with |D-C|^2 < 2^-126 counts as zero-length (its reciprocal would
// overflow), so errors up to about 1.1e-19 are expected whatever the
// scale. Measured: every category scaled down to 2^-150, at most 2^-73.5
// beyond 8 eps32 x scale; 200,000 pairs of random float32 bit patterns
// (|x| <= 1e18), at most 6.8e-20. 2^-60 (8.7e-19) leaves a margin and is
// far below any length a caller can mean.
const AbsSlack = 0x1p-60

// The oracle works in integers. Every float32 is m 2^k with an integer m of
// at most 24 bits and k >= -149; scaling a pair by 2^-kmin (kmin the least k
// over its twelve coordinates) makes every coordinate an integer, so the
// coefficients of
//
//	Q(s,t) = a s^2 + 2b st + c t^2 + 2d s + 2e t + f
//
// (docs/design.md, "The problem") are integers, and every candidate minimum is a
// fraction num/den of integers compared by cross-multiplication. A single
// big.Rat is built at the end. This is exact and several times faster than
// big.Rat arithmetic throughout.

// intPair holds the scaled integer coordinates of a pair: value = X 2^shift.
type intPair struct {
	a, b, c, d [3]*big.Int
	shift      int
}

// toInts returns p's coordinates as integers times 2^shift.
func toInts[F soa.Float](p soa.PairOf[F]) intPair {
	cs := coords64(p)
	kmin := math.MaxInt
	for _, x := range cs {
		if x == 0 {
			continue
		}
		_, k := mantExp(float64(x))
		kmin = min(kmin, k)
	}
	if kmin == math.MaxInt {
		kmin = 0
	}
	var v [12]*big.Int
	for i, x := range cs {
		v[i] = new(big.Int)
		if x == 0 {
			continue
		}
		m, k := mantExp(float64(x))
		v[i].SetInt64(m)
		v[i].Lsh(v[i], uint(k-kmin))
	}
	return intPair{
		a:     [3]*big.Int{v[0], v[1], v[2]},
		b:     [3]*big.Int{v[3], v[4], v[5]},
		c:     [3]*big.Int{v[6], v[7], v[8]},
		d:     [3]*big.Int{v[9], v[10], v[11]},
		shift: kmin,
	}
}

// mantExp splits a finite nonzero float64 into an odd integer m and k with
// x = m 2^k.
func mantExp(x float64) (int64, int) {
	fr, e := math.Frexp(x) // x = fr 2^e, 0.5 <= |fr| < 1
	m := int64(fr * (1 << 53))
	k := e - 53
	for m&1 == 0 {
		m >>= 1
		k++
	}
	return m, k
}

func sub3(x, y [3]*big.Int) [3]*big.Int {
	return [3]*big.Int{
		new(big.Int).Sub(x[0], y[0]),
		new(big.Int).Sub(x[1], y[1]),
		new(big.Int).Sub(x[2], y[2]),
	}
}

func dot3(x, y [3]*big.Int) *big.Int {
	r := new(big.Int).Mul(x[0], y[0])
	var t big.Int
	r.Add(r, t.Mul(x[1], y[1]))
	r.Add(r, t.Mul(x[2], y[2]))
	return r
}

// frac is num/den with den > 0.
type frac struct{ num, den *big.Int }

func (x frac) less(y frac) bool {
	var l, r big.Int
	l.Mul(x.num, y.den)
	r.Mul(y.num, x.den)
	return l.Cmp(&r) < 0
}

var one = big.NewInt(1)

// edgeMin returns the minimum over x in [0,1] of al x^2 + 2 be x + ga,
// al >= 0.
func edgeMin(al, be, ga *big.Int) frac {
	// Interior vertex when 0 < -be < al: value (al ga - be^2)/al.
	if al.Sign() > 0 && be.Sign() < 0 && new(big.Int).Neg(be).Cmp(al) < 0 {
		n := new(big.Int).Mul(al, ga)
		n.Sub(n, new(big.Int).Mul(be, be))
		return frac{n, al}
	}
	at1 := new(big.Int).Add(al, ga)
	at1.Add(at1, new(big.Int).Lsh(be, 1))
	if at1.Cmp(ga) < 0 {
		return frac{at1, one}
	}
	return frac{ga, one}
}

// ExactMinDist2 returns the exact minimum over s, t in [0,1] of the squared
// distance between A + s(B-A) and C + t(D-C), for finite coordinates. It is
// the interior stationary point of Q when det = ac - b^2 > 0 and it lies in
// the unit square, else the least of the minima of Q on the four edges (a
// convex quadratic attains its minimum over the square there).
func ExactMinDist2[F soa.Float](p soa.PairOf[F]) *big.Rat {
	q := toInts(p)
	m0 := sub3(q.b, q.a)
	m1 := sub3(q.d, q.c)
	e := sub3(q.a, q.c)
	qa := dot3(m0, m0)
	qb := new(big.Int).Neg(dot3(m0, m1))
	qc := dot3(m1, m1)
	qd := dot3(m0, e)
	qe := new(big.Int).Neg(dot3(m1, e))
	qf := dot3(e, e)

	best := frac{nil, nil}
	det := new(big.Int).Mul(qa, qc)
	det.Sub(det, new(big.Int).Mul(qb, qb))
	if det.Sign() > 0 {
		sn := new(big.Int).Mul(qb, qe)
		sn.Sub(sn, new(big.Int).Mul(qc, qd))
		tn := new(big.Int).Mul(qb, qd)
		tn.Sub(tn, new(big.Int).Mul(qa, qe))
		if sn.Sign() >= 0 && sn.Cmp(det) <= 0 && tn.Sign() >= 0 && tn.Cmp(det) <= 0 {
			// Q at the stationary point is f + d s + e t.
			n := new(big.Int).Mul(qf, det)
			n.Add(n, new(big.Int).Mul(qd, sn))
			n.Add(n, new(big.Int).Mul(qe, tn))
			best = frac{n, det}
		}
	}
	if best.num == nil {
		// Edges s=0, s=1 (quadratics in t) and t=0, t=1 (in s).
		// Q(1,t) = c t^2 + 2(b+e) t + (a + 2d + f);
		// Q(s,1) = a s^2 + 2(b+d) s + (c + 2e + f).
		as1 := new(big.Int).Add(qa, qf)
		as1.Add(as1, new(big.Int).Lsh(qd, 1))
		ct1 := new(big.Int).Add(qc, qf)
		ct1.Add(ct1, new(big.Int).Lsh(qe, 1))
		cands := [4]frac{
			edgeMin(qc, qe, qf),
			edgeMin(qc, new(big.Int).Add(qb, qe), as1),
			edgeMin(qa, qd, qf),
			edgeMin(qa, new(big.Int).Add(qb, qd), ct1),
		}
		best = cands[0]
		for _, c := range cands[1:] {
			if c.less(best) {
				best = c
			}
		}
	}
	return scaled(best.num, best.den, 2*q.shift)
}

// scaled returns num/den * 2^k as a big.Rat.
func scaled(num, den *big.Int, k int) *big.Rat {
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if k >= 0 {
		n.Lsh(n, uint(k))
	} else {
		d.Lsh(d, uint(-k))
	}
	return new(big.Rat).SetFrac(n, d)
}

// ExactDist2At returns the exact squared distance between A + s(B-A) and
// C + t(D-C) for finite s and t (the points of a reported solution).
func ExactDist2At[F soa.Float](p soa.PairOf[F], s, t float64) *big.Rat {
	q := toInts(p)
	m0 := sub3(q.b, q.a)
	m1 := sub3(q.d, q.c)
	e := sub3(q.a, q.c)
	// r = E + s M0 - t M1, with s = ms 2^ks, t = mt 2^kt; scale by 2^-g,
	// g = min(0, ks, kt), to make every term an integer.
	var ms, mt int64
	var ks, kt int
	if s != 0 {
		ms, ks = mantExp(s)
	}
	if t != 0 {
		mt, kt = mantExp(t)
	}
	g := min(0, ks, kt)
	bs, bt := big.NewInt(ms), big.NewInt(mt)
	sum := new(big.Int)
	var r, x big.Int
	for i := range 3 {
		r.Lsh(e[i], uint(-g))
		x.Mul(m0[i], bs)
		r.Add(&r, x.Lsh(&x, uint(ks-g)))
		x.Mul(m1[i], bt)
		r.Sub(&r, x.Lsh(&x, uint(kt-g)))
		sum.Add(sum, x.Mul(&r, &r))
	}
	return scaled(sum, one, 2*(q.shift+g))
}

// DistErr returns |sqrt(gotDist2) - sqrt(exactDist2)|, the absolute error of
// a distance. The exact value is rounded to float64 first (correctly
// rounded by big.Rat.Float64), which costs about one float64 ulp, far below
// any bound tested.
func DistErr(gotDist2 float64, exactDist2 *big.Rat) float64 {
	ex, _ := exactDist2.Float64()
	return math.Abs(math.Sqrt(gotDist2) - math.Sqrt(ex))
}

// ErrEps expresses an absolute distance error in units of eps32 x scale.
// A zero error is 0 even at scale 0; a nonzero error at scale 0 is +Inf.
func ErrEps(absErr, scale float64) float64 { return errIn(absErr, Eps32*scale) }

// ErrEps64 expresses an absolute distance error in units of eps64 x scale.
func ErrEps64(absErr, scale float64) float64 { return errIn(absErr, Eps64*scale) }

func errIn(absErr, unit float64) float64 {
	if absErr == 0 {
		return 0
	}
	return absErr / unit
}

// Dist returns sqrt of an exact squared distance, rounded to float64.
func Dist(exactDist2 *big.Rat) float64 {
	f, _ := exactDist2.Float64()
	return math.Sqrt(f)
}
