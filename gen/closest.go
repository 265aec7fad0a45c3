package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// closestBody is the plane-projection kernel of DESIGN.md section 2, step
// for step in the operation order of fallback.ClosestLane (which documents
// the arithmetic; keep the two in sync, the tests compare them bit for bit).
func closestBody(g *gen, in func(k int) w) []w {
	p := g.project([3]w{in(0), in(1), in(2)}, [3]w{in(3), in(4), in(5)},
		[3]w{in(6), in(7), in(8)}, [3]w{in(9), in(10), in(11)})
	Comment("Lanes with Dist2 NaN or Inf: S = T = Dist2 = canonical NaN.")
	return g.canonicalize([]w{p.s, p.t, p.dist2}, p.dist2)
}

// projection holds the values of fallback's projection struct: the
// results of steps 1-4 and the intermediates the contact kernel reuses.
type projection struct {
	m0, u, e     [3]w
	invL, ka, kb w
	den1, a      w
	s, t         w
	tu, r        [3]w
	dist2        w
}

// project emits steps 1-4 of the plane projection for segments a-b, c-d.
func (g *gen) project(a, b, c, d [3]w) (p projection) {
	Comment("M0 = B-A, u = D-C, E = A-C.")
	m0 := g.spill3(g.sub3(b, a))
	u := g.spill3(g.sub3(d, c))
	e := g.spill3(g.sub3(a, c))

	Comment("Step 1: invL = 1/|u|^2 (0 when |u|^2 < 2^-126); ka = u.E invL, kb = u.M0 invL.")
	invL := g.keep(g.recipOrZero(g.dot(u, u)))
	ka := g.keep(g.mul(g.dot(u, e), invL))
	kb := g.keep(g.mul(g.dot(u, m0), invL))
	Comment("C-A' = ka u - E; B'-A' = M0 - kb u.")
	n := g.sub3(g.scale(u, ka), e)
	wv := g.sub3(m0, g.scale(u, kb))

	Comment("Step 2: s1 = clamp01((C-A').(B'-A') / |B'-A'|^2), 0 when A' = B'.")
	den1 := g.keep(g.dot(wv, wv))
	s1 := g.clamp01(g.divOrZero(g.dot(n, wv), den1))

	Comment("Step 3: P-C = E + s1 M0; t = clamp01((P-C).u invL).")
	pc := [3]w{g.add(e[0], g.mul(m0[0], s1)), g.add(e[1], g.mul(m0[1], s1)), g.add(e[2], g.mul(m0[2], s1))}
	t := g.clamp01(g.mul(g.dot(pc, u), invL))

	Comment("Step 4: Q-A = t u - E; s = clamp01((Q-A).M0 / |M0|^2), 0 when A = B.")
	tu := g.keep3(g.scale(u, t))
	q := g.sub3(tu, e)
	am := g.keep(g.dot(m0, m0))
	s := g.clamp01(g.divOrZero(g.dot(q, m0), am))

	Comment("P-Q = (E + s M0) - t u; Dist2 = |P-Q|^2.")
	var r [3]w
	for i := range r {
		r[i] = g.sub(g.add(e[i], g.mul(m0[i], s)), tu[i])
	}
	dist2 := g.dot(r, r)
	return projection{m0: m0, u: u, e: e, invL: invL, ka: ka, kb: kb, den1: den1, a: am,
		s: s, t: t, tu: tu, r: g.keep3(r), dist2: dist2}
}

// canonicalize replaces every value of out by the canonical NaN in the
// lanes where !(dist2 <= MaxFloat32).
func (g *gen) canonicalize(out []w, dist2 w) []w {
	res := make([]w, len(out))
	if g.isa.lanes == 16 {
		ks := make([]Op, g.groups)
		for i := range ks {
			ks[i] = K()
			VCMPPS_BCST(U8(cmpNLEUQ), constMaxF32, dist2.ops[i], ks[i])
		}
		for j, v := range out {
			// Blend in place: avo models the masked VBLENDMPS as reading
			// its destination, and v is dead after this anyway.
			res[j] = w{ops: make([]Op, g.groups)}
			for i := range v.ops {
				VBLENDMPS_BCST(constNaN, v.ops[i], ks[i], v.ops[i])
				res[j].ops[i] = v.ops[i]
			}
		}
		return res
	}
	m := g.each(func(i int, m VecVirtual) { VCMPPS(U8(cmpNLEUQ), constMaxF32, dist2.ops[i], m) })
	for j, v := range out {
		res[j] = g.each(func(i int, r VecVirtual) { VBLENDVPS(m.ops[i], constNaN, v.ops[i], r) })
	}
	return res
}

// streamBody is the memory-floor kernel: every input read, every output
// written, three adds per output.
func streamBody(g *gen, in func(k int) w) []w {
	out := make([]w, 3)
	for j := range out {
		out[j] = g.add(g.add(g.add(in(j), in(3+j)), in(6+j)), in(9+j))
	}
	return out
}

// pointBody is the point-segment kernel, in the operation order of
// fallback.ClosestPointLane: u = D-C, E = P-C,
// t = clamp01(E.u / |u|^2) (0 when C = D), Dist2 = |t u - E|^2.
func pointBody(g *gen, in func(k int) w) []w {
	p := [3]w{in(0), in(1), in(2)}
	c := [3]w{in(3), in(4), in(5)}
	d := [3]w{in(6), in(7), in(8)}
	u := g.sub3(d, c)
	e := g.sub3(p, c)
	t := g.clamp01(g.divOrZero(g.dot(e, u), g.dot(u, u)))
	r := g.sub3(g.scale(u, t), e)
	dist2 := g.dot(r, r)
	Comment("Lanes with Dist2 NaN or Inf: T = Dist2 = canonical NaN.")
	return g.canonicalize([]w{t, dist2}, dist2)
}
