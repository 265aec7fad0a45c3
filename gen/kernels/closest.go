package kernels

import "github.com/segdist/segdist/gen/ir"

// closest is the plane-projection kernel (docs/design.md, "Closest points:
// the plane projection"), in the operation order of fallback.ClosestLane.
func closest(b *ir.Builder) []ir.Value {
	p := project(b, b.Inputs3(0), b.Inputs3(3), b.Inputs3(6), b.Inputs3(9))
	b.Comment("Lanes with Dist2 NaN or Inf: S = T = Dist2 = canonical NaN.")
	return nanWhere(b, b.Cmp(ir.NotLE, p.dist2, b.Constant(ir.MaxFinite)), p.s, p.t, p.dist2)
}

// projection holds the values of fallback's projection struct: the
// results of steps 1-4 and the intermediates the contact kernel reuses.
type projection struct {
	m0, e        ir.Vec3
	l            ir.Value // |u|^2
	invL, ka, kb ir.Value
	den1, a      ir.Value
	s, t         ir.Value
	tu, r        ir.Vec3
	dist2        ir.Value
}

// project computes steps 1-4 of the plane projection for segments a-b,
// c-d (fallback's projection.project).
func project(b *ir.Builder, a, bb, c, d ir.Vec3) (p projection) {
	b.Comment("M0 = B-A, u = D-C, E = A-C.")
	m0 := b.Park3(ir.Edges, b.Sub3(bb, a))
	u := b.Park3(ir.Edges, b.Sub3(d, c))
	e := b.Park3(ir.Edges, b.Sub3(a, c))

	b.Comment("Step 1: invL = 1/|u|^2 (0 when |u|^2 < 2^-126); ka = u.E invL, kb = u.M0 invL.")
	l := b.Dot(u, u)
	invL := b.RecipOrZero(l)
	b.Comment("1/|M0|^2 for step 4, here where it depends only on the inputs.")
	am := b.Dot(m0, m0)
	invA := b.Park(ir.Edges, b.RecipOrZero(am))
	ka := b.Mul(b.Dot(u, e), invL)
	um := b.Dot(u, m0)
	kb := b.Mul(um, invL)
	b.Comment("u.M0 and E.M0 for step 4, which needs no vector of step 3.")
	um = b.Park(ir.Edges, um)
	em := b.Park(ir.Edges, b.Dot(e, m0))
	b.Comment("C-A' = ka u - E; B'-A' = M0 - kb u.")
	n := b.Sub3(b.Scale(u, ka), e)
	w := b.Sub3(m0, b.Scale(u, kb))

	b.Comment("Step 2: s1 = clamp01((C-A').(B'-A') / |B'-A'|^2), 0 when A' = B'.")
	den1 := b.Dot(w, w)
	s1 := b.Clamp01(b.DivOrZero(b.Dot(n, w), den1))

	b.Comment("Step 3: t = clamp01((P-C).u invL) with P-C = E + s1 M0, that is clamp01(ka + s1 kb).")
	t := b.Clamp01(b.Add(ka, b.Mul(s1, kb)))

	b.Comment("Step 4: s = clamp01((Q-A).M0 invA) with Q-A = t u - E, that is clamp01((t u.M0 - E.M0) invA); 0 when A = B (or shorter than 1.1e-19).")
	s := b.Clamp01(b.Mul(b.Sub(b.Mul(t, um), em), invA))
	tu := b.Scale(u, t)

	b.Comment("P-Q = (E + s M0) - t u; Dist2 = |P-Q|^2.")
	var r ir.Vec3
	for i := range r {
		r[i] = b.Sub(b.Add(e[i], b.Mul(m0[i], s)), tu[i])
	}
	dist2 := b.Dot(r, r)
	return projection{m0: m0, e: e, l: l, invL: invL, ka: ka, kb: kb, den1: den1, a: am,
		s: s, t: t, tu: tu, r: r, dist2: dist2}
}

// nanWhere replaces every value of out by the canonical NaN in the
// lanes of bad.
func nanWhere(b *ir.Builder, bad ir.Value, out ...ir.Value) []ir.Value {
	nan := b.Constant(ir.CanonicalNaN)
	res := make([]ir.Value, len(out))
	for i, v := range out {
		res[i] = b.Select(bad, nan, v)
	}
	return res
}

// stream is the memory-floor kernel: every input read, every output
// written, three adds per output (s from the x streams, t from y, dist2
// from z).
func stream(b *ir.Builder) []ir.Value {
	out := make([]ir.Value, 3)
	for j := range out {
		out[j] = b.Add(b.Add(b.Add(b.Input(j), b.Input(3+j)), b.Input(6+j)), b.Input(9+j))
	}
	return out
}

// closestPoint is the point-segment kernel, in the operation order of
// fallback.ClosestPointLane: u = D-C, E = P-C, t = clamp01(E.u / |u|^2)
// (0 when C = D), Dist2 = |t u - E|^2.
func closestPoint(b *ir.Builder) []ir.Value {
	p, c, d := b.Inputs3(0), b.Inputs3(3), b.Inputs3(6)
	u := b.Sub3(d, c)
	e := b.Sub3(p, c)
	t := b.Clamp01(b.DivOrZero(b.Dot(e, u), b.Dot(u, u)))
	r := b.Sub3(b.Scale(u, t), e)
	dist2 := b.Dot(r, r)
	b.Comment("Lanes with Dist2 NaN or Inf: T = Dist2 = canonical NaN.")
	return nanWhere(b, b.Cmp(ir.NotLE, dist2, b.Constant(ir.MaxFinite)), t, dist2)
}
