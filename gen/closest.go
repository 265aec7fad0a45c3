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
	a := [3]w{in(0), in(1), in(2)}
	b := [3]w{in(3), in(4), in(5)}
	c := [3]w{in(6), in(7), in(8)}
	d := [3]w{in(9), in(10), in(11)}

	Comment("M0 = B-A, u = D-C, E = A-C.")
	m0 := g.spill3(g.sub3(b, a))
	u := g.spill3(g.sub3(d, c))
	e := g.spill3(g.sub3(a, c))

	Comment("Step 1: invL = 1/|u|^2 (0 when C = D); ka = u.E invL, kb = u.M0 invL.")
	invL := g.divOrZero(g.same(g.one), g.dot(u, u))
	ka := g.mul(g.dot(u, e), invL)
	kb := g.mul(g.dot(u, m0), invL)
	Comment("C-A' = ka u - E; B'-A' = M0 - kb u.")
	n := g.sub3(g.scale(u, ka), e)
	wv := g.sub3(m0, g.scale(u, kb))

	Comment("Step 2: s1 = clamp01((C-A').(B'-A') / |B'-A'|^2), 0 when A' = B'.")
	s1 := g.clamp01(g.divOrZero(g.dot(n, wv), g.dot(wv, wv)))

	Comment("Step 3: P-C = E + s1 M0; t = clamp01((P-C).u invL).")
	p := [3]w{g.add(e[0], g.mul(m0[0], s1)), g.add(e[1], g.mul(m0[1], s1)), g.add(e[2], g.mul(m0[2], s1))}
	t := g.clamp01(g.mul(g.dot(p, u), invL))

	Comment("Step 4: Q-A = t u - E; s = clamp01((Q-A).M0 / |M0|^2), 0 when A = B.")
	tu := g.scale(u, t)
	q := g.sub3(tu, e)
	s := g.clamp01(g.divOrZero(g.dot(q, m0), g.dot(m0, m0)))

	Comment("P-Q = (E + s M0) - t u; Dist2 = |P-Q|^2.")
	var r [3]w
	for i := range r {
		r[i] = g.sub(g.add(e[i], g.mul(m0[i], s)), tu[i])
	}
	dist2 := g.dot(r, r)

	Comment("Lanes with Dist2 NaN or Inf: S = T = Dist2 = canonical NaN.")
	return g.canonicalize([]w{s, t, dist2}, dist2)
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
			res[j] = g.each(func(i int, r VecVirtual) { VBLENDMPS_BCST(constNaN, v.ops[i], ks[i], r) })
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
