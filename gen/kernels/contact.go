package kernels

import "github.com/segdist/segdist/gen/ir"

// The contact tolerances, fallback's ParallelTolerance2 (float32(1e-4),
// 1e-4), crossTol2 (64 eps squared: 2^-34, 2^-92), perpTol2 (8 eps
// squared: 2^-40, 2^-98) and signTol2 (32 eps squared: 2^-36, 2^-94);
// TestTolerances ties these bits to fallback's definitions.
var (
	parTol   = ir.Constant{Name: "partol", Bits: [2]uint64{0x38D1B717, 0x3F1A36E2EB1C432D}}
	crossTol = ir.Constant{Name: "crosstol", Bits: [2]uint64{0x2E800000, 0x3A30000000000000}}
	perpTol  = ir.Constant{Name: "perptol", Bits: [2]uint64{0x2B800000, 0x39D0000000000000}}
	signTol  = ir.Constant{Name: "signtol", Bits: [2]uint64{0x2D800000, 0x3A10000000000000}}
)

// contact is fallback.ContactLane for one group of capsule pairs. The
// common path holds what every lane needs (the projection, the normal
// P-Q, depth, touching, one contact point); the two rare cases, a
// fallback normal (axes that touch) and a two-point manifold (parallel
// overlapping axes), are rare blocks that recompute the axes from the
// inputs and take the scalars of step 1 from the projection: the common
// path keeps ka, kb and 1/|u|^2 alive for them, and no vector.
//
// Its only placement marks are the RareBlock parks of the vectors each
// rare block reads throughout: the AVX-512 loops keep those in stack
// slots, which measured faster than spilling (docs/levers.md, "Contact
// kernels"), and which values a block reads throughout is the body's
// structure, not something a spiller's next-use distances show.
func contact(b *ir.Builder) []ir.Value {
	a, bb, r1 := b.Inputs3(CapA), b.Inputs3(CapB), b.Input(CapR1)
	c, d, r2 := b.Inputs3(CapC), b.Inputs3(CapD), b.Input(CapR2)
	margin := b.Arg(0)
	zero, one := b.Zero(), b.One()
	p := project(b, a, bb, c, d)

	b.Comment("Manifold candidates: |A-B| > 0 and |B'-A'|^2 <= tol |M0|^2. The rare block keeps those")
	b.Comment("with |C-D| > 0 whose projections overlap (lo < hi); it computes lo and hi anyway, so")
	b.Comment("those two tests cost the common path nothing.")
	par := b.Cmp(ir.LE, p.den1, b.Mul(b.Constant(parTol), p.a))
	par = b.AndNot(par, b.Cmp(ir.EQ, p.a, zero))

	b.Comment("Normal: g = r = P-Q unless the axes touch: |r|^2 < 2^-126, or below 2^-34 m, m = max(|M0|^2, |u|^2, |E|^2)")
	b.Comment("(r is rounding noise there); then the fallbacks.")
	gv := b.Var3(p.r)
	g2 := b.Var(p.dist2)
	b.Comment("|g| = |r| = sqrt(Dist2) unless a fallback replaces g (the distance of the depth).")
	dist := b.Sqrt(p.dist2)
	norm := b.Var(dist)
	normalVars{g: gv, g2: g2, norm: norm, zero: zero, one: one}.fallbacks(b, [4]ir.Vec3{a, bb, c, d}, p)
	b.Comment("n = g / |g| (|g|^2 >= 2^-126 here, so a plain division).")
	inv := b.Div(one, norm)
	n := b.Var3(b.Scale(gv, inv))

	b.Comment("Depth and touching (dist <= r1 + r2 + margin).")
	rsum := b.Add(r1, r2)
	depth := b.Sub(rsum, dist)
	touch := b.Cmp(ir.LE, dist, b.Add(rsum, margin))

	b.Comment("Point 1: Q + n w, Q = C + t u, w = (|r| + (r2-r1)) / 2 (Q and w are ready before n).")
	hr := b.Sub(r2, r1)
	half := b.Const("half", 0x3F000000)
	w := b.Mul(b.Add(dist, hr), half)
	var p1 ir.Vec3
	for j := range p1 {
		p1[j] = b.Add(b.Add(c[j], p.tu[j]), b.Mul(n[j], w))
	}
	// The outputs the manifold may replace, copies of point 1's.
	depth1, depth2 := b.Var(depth), b.Var(depth)
	pt1, pt2 := b.Var3(p1), b.Var3(p1)

	b.Comment("Count: 1 where touching, else 0; 2 for a two-point manifold (below).")
	cand := b.And(touch, par)
	int0 := b.ConstInt("int0", 0)
	count := b.Var(b.Select(touch, b.ConstInt("int1", 1), int0))
	mv := &manifoldVars{cand: cand, count: count, r1: r1, r2: r2, hr: hr, half: half, zero: zero,
		n: n, depth: [2]ir.Value{depth1, depth2}, pt: [2]ir.Vec3{pt1, pt2}}
	b.Rare("single", cand, func() { mv.manifold(b, [4]ir.Vec3{a, bb, c, d}, p) })

	b.Comment("Bad lanes: |depth1 + depth2 + (r2-r1)| not <= the largest finite float (once it is,")
	b.Comment("no output is NaN: see fallback.ContactLane), or a negative radius: min(r1, r2) < 0.")
	bad := b.Cmp(ir.NotLE, b.Abs(b.Add(b.Add(depth1, depth2), hr)), b.Constant(ir.MaxFinite))
	bad = b.Or(bad, b.Cmp(ir.LT, b.Min(r1, r2), zero))
	out := []ir.Value{count, depth1, depth2, n[0], n[1], n[2], pt1[0], pt1[1], pt1[2], pt2[0], pt2[1], pt2[2]}
	badRows(b, bad, int0, out)
	return out
}

// badRows gives the bad lanes of a contact row out (count first, then the
// floats) count 0 (int0) and the canonical NaN in every float.
func badRows(b *ir.Builder, bad, int0 ir.Value, out []ir.Value) {
	b.Rare("finite", bad, func() {
		b.Comment("Count 0 and the canonical NaN in every float of those lanes.")
		nan := b.Constant(ir.CanonicalNaN)
		for _, v := range out[1:] {
			b.Assign(v, b.Select(bad, nan, v))
		}
		b.Assign(out[0], b.Select(bad, int0, out[0]))
	})
}

// normalVars are the values of contact that the normal's fallbacks read
// and assign: g and |g|^2 (variables, with |g| in norm), and the constants.
type normalVars struct {
	g         ir.Vec3
	g2, norm  ir.Value
	zero, one ir.Value
}

// fallbacks finds the lanes whose g is tiny or near the rounding noise
// of the scale m and runs the normal's fallbacks for axes that touch there
// (contact's rare block "normal"), with caps the inputs A, B, C, D.
func (nv normalVars) fallbacks(b *ir.Builder, caps [4]ir.Vec3, p projection) {
	gv, g2, norm, zero, one := nv.g, nv.g2, nv.norm, nv.zero, nv.one
	tiny := b.Cmp(ir.NotGE, g2, b.Constant(ir.MinNormal))
	m := b.Max(b.Max(p.a, p.l), b.Dot(p.e, p.e))
	near := b.Cmp(ir.LT, g2, b.Mul(b.Constant(crossTol), m))
	b.Rare("normal", b.Or(tiny, near), func() {
		b.Comment("Fallback 1: the cross product k of the unit axes where it is not zero (always for")
		b.Comment("|r|^2 < 2^-126), flipped where r.k is clearly negative: (r.k)^2 >= 2^-36 m |k|^2.")
		m0, u := axes(b, caps)
		ia := b.DivOrZero(one, b.Sqrt(p.a))
		iu := b.Sqrt(p.invL)
		m0 = b.Park3(ir.RareBlock, b.Scale(m0, ia))
		un := b.Park3(ir.RareBlock, b.Scale(u, iu))
		aZero := b.Cmp(ir.EQ, p.a, zero)
		k := b.Park3(ir.RareBlock, ir.Vec3{
			b.Sub(b.Mul(m0[1], un[2]), b.Mul(m0[2], un[1])),
			b.Sub(b.Mul(m0[2], un[0]), b.Mul(m0[0], un[2])),
			b.Sub(b.Mul(m0[0], un[1]), b.Mul(m0[1], un[0])),
		})
		setG := func(m ir.Value, v ir.Vec3, v2 ir.Value) {
			nv := b.Select3(m, v, gv)
			nv2 := b.Select(m, v2, g2)
			b.Assign3(gv, nv)
			b.Assign(g2, nv2)
		}
		k2 := b.Dot(k, k)
		rk := b.Dot(p.r, k)
		b.Comment("k replaces r only where r lies along k up to noise: (r.k)^2 > (|r|^2 - 2^-40 m) |k|^2, the part")
		b.Comment("of r across k below 8 eps32 of the pair's length (a crossing; an end near the other axis is not).")
		along := b.Cmp(ir.LT, b.Mul(b.Sub(g2, b.Mul(b.Constant(perpTol), m)), k2), b.Mul(rk, rk))
		useK := b.Or(tiny, b.AndNot(b.And(near, along), b.Cmp(ir.NotGE, k2, b.Constant(ir.MinNormal))))
		weak := b.Cmp(ir.NotGE, b.Mul(rk, rk), b.Mul(b.Mul(b.Constant(signTol), m), k2))
		flip := b.AndNot(b.Cmp(ir.LT, rk, zero), weak)
		setG(useK, b.Select3(flip, ir.Vec3{b.Neg(k[0]), b.Neg(k[1]), b.Neg(k[2])}, k), k2)
		b.Comment("v = unit axis 1, or unit axis 2 when A = B.")
		v := b.Park3(ir.RareBlock, b.Select3(aZero, un, m0))
		b.Comment("Fallback 2: v x (0,0,1) = (vy, -vx, 0).")
		c1 := ir.Vec3{v[1], b.Neg(v[0]), zero}
		setG(b.Cmp(ir.NotGE, g2, b.Constant(ir.MinNormal)), c1, b.Dot(c1, c1))
		b.Comment("Fallback 3: v x (1,0,0) = (0, vz, -vy).")
		c2 := ir.Vec3{zero, v[2], b.Neg(v[1])}
		setG(b.Cmp(ir.NotGE, g2, b.Constant(ir.MinNormal)), c2, b.Dot(c2, c2))
		b.Comment("Fallback 4: (0,0,1).")
		setG(b.Cmp(ir.NotGE, g2, b.Constant(ir.MinNormal)), ir.Vec3{zero, zero, one}, one)
		b.Comment("|g| (the same bits as sqrt(Dist2) in the lanes that kept g = r).")
		b.Assign(norm, b.Sqrt(g2))
	})
}

// manifoldVars are the values of contact that the two-point manifold
// reads and assigns: the candidates, the count and the rows it may
// replace (variables), the radii and the normal.
type manifoldVars struct {
	cand, count      ir.Value
	r1, r2, hr, half ir.Value
	zero             ir.Value
	n                ir.Vec3
	depth            [2]ir.Value
	pt               [2]ir.Vec3
}

// manifold is contact's rare block "single": the two-point manifold of
// parallel overlapping axes, with caps the inputs A, B, C, D.
func (mv *manifoldVars) manifold(b *ir.Builder, caps [4]ir.Vec3, p projection) {
	b.Comment("Two-point manifold where the candidate has |C-D| > 0 and lo < hi, lo and hi the ends")
	b.Comment("of the overlap along axis 2.")
	b.Comment("ka, kb, 1/|u|^2 and |M0|^2 are the projection's (step 1).")
	m0, u := axes(b, caps)
	m0, u = b.Park3(ir.RareBlock, m0), b.Park3(ir.RareBlock, u)
	c := caps[2]
	e := b.Park3(ir.RareBlock, b.Sub3(caps[0], c))
	// lo = max(0, min(ta, tb)), hi = min(1, max(ta, tb)): the overlap of axis 1's
	// projection (ta = ka, tb = ka + kb) with [0, 1] along axis 2, in the operand
	// order of fallback's minps/maxps.
	tb := b.Add(p.ka, p.kb)
	lo, hi := b.Max(mv.zero, b.Min(p.ka, tb)), b.Min(b.One(), b.Max(p.ka, tb))
	two := b.AndNot(b.And(mv.cand, b.Cmp(ir.LT, lo, hi)), b.Cmp(ir.EQ, p.invL, mv.zero))
	b.Assign(mv.count, b.Select(two, b.ConstInt("int2", 2), mv.count))
	lo, hi = b.Park(ir.RareBlock, lo), b.Park(ir.RareBlock, hi)
	rsum := b.Add(mv.r1, mv.r2)
	for k, tk := range []ir.Value{lo, hi} {
		b.Comment("Manifold point %d.", k+1)
		q := b.Scale(u, tk)
		sk := b.Clamp01(b.DivOrZero(b.Dot(b.Sub3(q, e), m0), p.a))
		var rk ir.Vec3
		for j := range rk {
			rk[j] = b.Sub(b.Add(e[j], b.Mul(m0[j], sk)), q[j])
		}
		dk := b.Sub(rsum, b.Dot(rk, mv.n))
		b.Comment("C + (Q_k-C + (r_k + n (r2-r1)) / 2): midway between P_k - r1 n and Q_k + r2 n.")
		var pk ir.Vec3
		for j := range pk {
			pk[j] = b.Add(c[j], b.Add(q[j], b.Mul(b.Add(rk[j], b.Mul(mv.n[j], mv.hr)), mv.half)))
		}
		b.Assign(mv.depth[k], b.Select(two, dk, mv.depth[k]))
		b.Assign3(mv.pt[k], b.Select3(two, pk, mv.pt[k]))
	}
}

// axes recomputes the axes M0 = B-A and u = D-C from the inputs as project
// does (the same bits), for the rare blocks. They take step 1's scalars from
// the projection, which keeps a division and two dot products off the head
// of the manifold block's dependency chain.
func axes(b *ir.Builder, caps [4]ir.Vec3) (m0, u ir.Vec3) {
	return b.Sub3(caps[1], caps[0]), b.Sub3(caps[3], caps[2])
}
