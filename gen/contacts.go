package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The contact kernels gather capsules by index, run the plane projection,
// then the contact math of fallback.ContactLane, and store one row per pair
// (Contacts*) or only the touching pairs, densely (CompactContacts*).

const contactSignature = "func(caps *[7]*float32, pi, pj *uint32, out *[13]*float32, n int, margin float32) int"

// Output streams of the contact kernels, in the order of the out array.
const (
	outPair = iota
	outCount
	outDepth1
	outDepth2
	outNX  // NY, NZ follow
	outP1X = outNX + 3
	outP2X = outP1X + 3
	numOut = outP2X + 3
)

// Registers of the contact kernels.
var (
	curSet    = RAX // the gathered capsule pairs of the current group (14 slots)
	nextSet   = RBX // the next group's, gathered while the current one computes
	slotsBase = R9  // the aligned spill area
	written   = R11 // rows written (compaction)
	// capsRegs hold the first six capsule stream pointers (AX AY AZ BX BY
	// BZ); R is loaded when used.
	capsRegs = []GPPhysical{RCX, RDX, RSI, RDI, R8, R10}
)

// contactSlots is the number of spill slots of a contact kernel.
const contactSlots = 96

// Constants of the contact kernels.
var (
	constIota16 Mem // int32 0..15
	constInt1   Mem // int32 1
	constInt2   Mem // int32 2
	constAbs    Mem // 0x7FFFFFFF
	constSign   Mem // 0x80000000
	constHalf   Mem // 0.5
	constParTol Mem // float32(fallback.ParallelTolerance2)
	constPerm   Mem // AVX2 compaction: for each 8-bit mask, the lanes to keep, first
)

func contactConstants() {
	constIota16 = GLOBL("iota16", RODATA|NOPTR)
	for i := range 16 {
		DATA(4*i, U32(i))
	}
	constInt1 = constant("int1", 1, 8)
	constInt2 = constant("int2", 2, 8)
	constAbs = constant("absmask", 0x7FFFFFFF, 8)
	constSign = constant("signmask", 0x80000000, 8)
	constHalf = constant("half", 0x3F000000, 8)
	constParTol = constant("partol", 0x38D1B717, 8) // float32(1e-4)
	constPerm = GLOBL("compress8", RODATA|NOPTR)
	for m := range 256 {
		j := 0
		for lane := range 8 {
			if m&(1<<lane) != 0 {
				DATA(32*m+4*j, U32(lane))
				j++
			}
		}
		for ; j < 8; j++ {
			DATA(32*m+4*j, U32(0))
		}
	}
}

// mask is one comparison result per group: an opmask register (AVX-512)
// or an all-ones/all-zeros vector (AVX2).
type mask struct{ ops []Op }

func (g *gen) wide() bool { return g.isa.wide() }

// wide reports whether the ISA has 16 lanes and opmask registers (AVX-512).
func (is isa) wide() bool { return is.lanes == 16 }

// cmp returns the lanes where x pred y.
func (g *gen) cmp(pred uint8, x, y w) mask {
	m := mask{ops: make([]Op, g.groups)}
	for i := range m.ops {
		var dst Op
		if g.wide() {
			dst = K()
		} else {
			dst = g.isa.newVec()
		}
		src1 := g.reg(x.ops[i])
		if c, ok := y.ops[i].(Mem); ok && g.wide() && c.Symbol.Name != "" {
			VCMPPS_BCST(U8(pred), c, src1, dst)
		} else {
			VCMPPS(U8(pred), y.ops[i], src1, dst)
		}
		m.ops[i] = dst
	}
	return m
}

// or returns a | b.
func (g *gen) or(a, b mask) mask {
	m := mask{ops: make([]Op, g.groups)}
	for i := range m.ops {
		if g.wide() {
			k := K()
			KORW(b.ops[i], a.ops[i], k)
			m.ops[i] = k
			continue
		}
		v := g.isa.newVec()
		VORPS(b.ops[i], g.reg(a.ops[i]), v)
		m.ops[i] = v
	}
	return m
}

// and returns a & b; andNot returns a & !b.
func (g *gen) and(a, b mask) mask { return g.maskOp(a, b, false) }

func (g *gen) andNot(a, b mask) mask { return g.maskOp(a, b, true) }

func (g *gen) maskOp(a, b mask, not bool) mask {
	m := mask{ops: make([]Op, g.groups)}
	for i := range m.ops {
		if g.wide() {
			k := K()
			if not {
				KANDNW(a.ops[i], b.ops[i], k) // ~b & a
			} else {
				KANDW(b.ops[i], a.ops[i], k)
			}
			m.ops[i] = k
			continue
		}
		v := g.isa.newVec()
		if not {
			VANDNPS(a.ops[i], b.ops[i], v) // ~b & a
		} else {
			VANDPS(b.ops[i], a.ops[i], v)
		}
		m.ops[i] = v
	}
	return m
}

// blend returns m ? t : f per lane. t may be a constant in memory.
func (g *gen) blend(m mask, t, f w) w {
	return g.each(func(i int, r VecVirtual) {
		src1 := g.reg(f.ops[i])
		if g.wide() {
			// avo models the masked VBLENDMPS as reading its destination;
			// a zeroing idiom first keeps r from looking live since entry.
			VXORPS(r, r, r)
			if c, ok := t.ops[i].(Mem); ok && c.Symbol.Name != "" {
				VBLENDMPS_BCST(c, src1, m.ops[i], r)
				return
			}
			VBLENDMPS(t.ops[i], src1, m.ops[i], r)
			return
		}
		VBLENDVPS(g.reg(m.ops[i]), t.ops[i], src1, r)
	})
}

func (g *gen) blend3(m mask, t, f [3]w) [3]w {
	return [3]w{g.blend(m, t[0], f[0]), g.blend(m, t[1], f[1]), g.blend(m, t[2], f[2])}
}

// skipUnless jumps to label when no lane of m is set (group 0 only: the
// contact kernels run one group at a time).
func (g *gen) skipUnless(m mask, label string) {
	if g.wide() {
		KORTESTW(m.ops[0], m.ops[0])
	} else {
		VTESTPS(m.ops[0], m.ops[0])
	}
	JZ(LabelRef(label))
	g.rare = true
}

// endSkip places the label of a skipUnless: the end of a rare block.
func (g *gen) endSkip(label string) {
	Label(label)
	g.rare = false
}

// sqrt returns the correctly rounded square root (VSQRTPS).
func (g *gen) sqrt(x w) w {
	return g.each(func(i int, r VecVirtual) { VSQRTPS(x.ops[i], r) })
}

// neg flips the sign bit, as Go's -x.
func (g *gen) neg(x w) w {
	return g.each(func(i int, r VecVirtual) {
		if g.wide() {
			VXORPS_BCST(constSign, g.reg(x.ops[i]), r)
			return
		}
		VXORPS(constSign, g.reg(x.ops[i]), r)
	})
}

// abs clears the sign bit.
func (g *gen) abs(x w) w {
	return g.each(func(i int, r VecVirtual) {
		if g.wide() {
			VANDPS_BCST(constAbs, g.reg(x.ops[i]), r)
			return
		}
		VANDPS(constAbs, g.reg(x.ops[i]), r)
	})
}

// Constants reach cmp and blend as g.same(mem): a memory operand used
// directly (AVX-512 embedded broadcast of its first lane, AVX2 a 32-byte
// load); only cmp and blend accept that. bcast puts a float32 constant or
// argument in a register for the arithmetic helpers.
func (g *gen) bcast(m Mem) w {
	return g.each(func(i int, r VecVirtual) { VBROADCASTSS(m, r) })
}

// park keeps v in a stack slot on both ISAs (values that live across the
// whole contact kernel), and returns it as a memory operand.
func (g *gen) park(v w) w {
	saved := g.isa.spillLongLived
	g.isa.spillLongLived = true
	out := g.spill(v)
	g.isa.spillLongLived = saved
	return out
}

func (g *gen) park3(v [3]w) [3]w { return [3]w{g.park(v[0]), g.park(v[1]), g.park(v[2])} }

// VCMPPS predicates used by the contact kernel (quiet forms).
const (
	cmpEQOQ  = 0x00
	cmpLTOQ  = 0x11
	cmpLEOQ  = 0x12
	cmpNGEUQ = 0x19
)

// contactResult is the output of the contact body.
type contactResult struct {
	count w     // int32 0, 1 or 2
	out   [13]w // in the order of the out array; out[outPair] is unset
}

// capsulePair is one group of gathered capsule pairs: the fourteen values
// A B r1 C D r2 (capsule 1 then capsule 2, x y z per point) in the stack
// slots the gathers stored them to (the current slot set).
type capsulePair struct {
	slot [numGathered]w
}

// The positions of the capsule values in a capsulePair.
const (
	capA, capB, capR1, capC, capD, capR2 = 0, 3, 6, 7, 10, 13
)

// point returns the three values from position k.
func (cp *capsulePair) point(k int) [3]w { return [3]w{cp.slot[k], cp.slot[k+1], cp.slot[k+2]} }

// axes recomputes M0 = B-A, u = D-C, |M0|^2 and 1/|u|^2 from the parked
// inputs with the operations of project (so the same bits), for the rare
// blocks: the common path keeps none of them live.
func (g *gen) axes(cp *capsulePair) (m0, u [3]w, a, invL w) {
	m0 = g.spill3(g.sub3(cp.point(capB), cp.point(capA)))
	u = g.spill3(g.sub3(cp.point(capD), cp.point(capC)))
	a = g.dot(m0, m0)
	invL = g.recipOrZero(g.dot(u, u))
	return
}

// overlap returns lo = max(0, min(ta, tb)) and hi = min(1, max(ta, tb)),
// the overlap of axis 1's projection (ta = ka, tb = ka + kb) with [0, 1]
// along axis 2, in the operand order of fallback's minps/maxps.
func (g *gen) overlap(ka, kb w) (lo, hi w) {
	tb := g.add(ka, kb)
	lo = g.each(func(i int, r VecVirtual) { VMINPS(tb.ops[i], g.reg(ka.ops[i]), r) }) // ta < tb ? ta : tb
	lo = g.each(func(i int, r VecVirtual) { VMAXPS(lo.ops[i], g.zero, r) })
	hi = g.each(func(i int, r VecVirtual) { VMAXPS(tb.ops[i], g.reg(ka.ops[i]), r) })
	hi = g.each(func(i int, r VecVirtual) { VMINPS(hi.ops[i], g.one, r) })
	return lo, hi
}

// contactBody computes fallback.ContactLane for one group of gathered
// capsule pairs. The common path keeps only what every lane needs (the
// projection, the normal P-Q, depth, touching, one contact point); the two
// rare cases, a fallback normal (axes that touch) and a two-point manifold
// (parallel overlapping axes), are skipped for groups with no such lane and
// recompute what they need from the parked inputs.
func (g *gen) contactBody(cp *capsulePair, margin Mem, label string) contactResult {
	slot := &cp.slot
	// AVX2 has 16 registers: there the projection's results live in stack
	// slots too.
	g.keepInMemory = g.isa.spillLongLived
	p := g.project(cp.point(capA), cp.point(capB), cp.point(capC), cp.point(capD))
	g.keepInMemory = false

	Comment("Manifold candidates: |A-B| > 0, |C-D| > 0, |B'-A'|^2 <= tol |M0|^2 and lo < hi.")
	zero := g.same(g.zero)
	lo, hi := g.overlap(p.ka, p.kb)
	par := g.cmp(cmpLTOQ, lo, hi)
	par = g.and(par, g.cmp(cmpLEOQ, p.den1, g.mul(g.bcast(constParTol), p.a)))
	par = g.andNot(par, g.cmp(cmpEQOQ, p.a, zero))
	par = g.andNot(par, g.cmp(cmpEQOQ, p.invL, zero))
	par = g.spillMask(par)

	Comment("Normal: g = r = P-Q unless |r|^2 < 2^-126; then the fallbacks.")
	minN := g.same(constMinNormal)
	gv := g.spill3([3]w{g.copy(p.r[0]), g.copy(p.r[1]), g.copy(p.r[2])})
	g2 := g.spill(g.copy(p.dist2))
	need := g.cmp(cmpNGEUQ, g2, minN)
	g.skipUnless(need, label+"_normal")
	{
		Comment("Fallback 1: the cross product of the unit axes.")
		m0, u, a, invL := g.axes(cp)
		ia := g.divOrZero(g.same(g.one), g.sqrt(a))
		iu := g.sqrt(invL)
		// Rare block: park freely, the common path's registers stay live.
		m0 = g.park3(g.scale(m0, ia))
		un := g.park3(g.scale(u, iu))
		aZero := g.spillMask(g.cmp(cmpEQOQ, a, zero))
		k := [3]w{
			g.sub(g.mul(m0[1], un[2]), g.mul(m0[2], un[1])),
			g.sub(g.mul(m0[2], un[0]), g.mul(m0[0], un[2])),
			g.sub(g.mul(m0[0], un[1]), g.mul(m0[1], un[0])),
		}
		k = g.park3(k)
		k2 := g.dot(k, k)
		setG := func(m mask, v [3]w, v2 w) {
			nv := g.blend3(m, v, gv)
			nv2 := g.blend(m, v2, g2)
			for j := range gv {
				g.assign(gv[j], nv[j])
			}
			g.assign(g2, nv2)
		}
		setG(need, k, k2)
		Comment("v = unit axis 1, or unit axis 2 when A = B.")
		v := g.park3(g.blend3(aZero, un, m0))
		Comment("Fallback 2: v x (0,0,1) = (vy, -vx, 0).")
		c1 := [3]w{v[1], g.neg(v[0]), zero}
		setG(g.cmp(cmpNGEUQ, g2, minN), c1, g.dot(c1, c1))
		Comment("Fallback 3: v x (1,0,0) = (0, vz, -vy).")
		c2 := [3]w{zero, v[2], g.neg(v[1])}
		setG(g.cmp(cmpNGEUQ, g2, minN), c2, g.dot(c2, c2))
		Comment("Fallback 4: (0,0,1).")
		setG(g.cmp(cmpNGEUQ, g2, minN), [3]w{zero, zero, g.same(g.one)}, g.same(g.one))
	}
	g.endSkip(label + "_normal")
	Comment("n = g / |g| (|g|^2 >= 2^-126 here, so a plain division).")
	sg := g.sqrt(g2)
	inv := g.each(func(i int, r VecVirtual) { VDIVPS(sg.ops[i], g.one, r) })
	n := g.spill3(g.scale(gv, inv))

	Comment("Depth and touching (dist <= r1 + r2 + margin).")
	r1, r2 := slot[capR1], slot[capR2]
	dist := g.sqrt(p.dist2)
	rsum := g.add(r1, r2)
	depth := g.spill(g.sub(rsum, dist))
	touch := g.cmp(cmpLEOQ, dist, g.add(rsum, g.bcast(margin)))

	Comment("Point 1: C + (Q-C + (r + n (r2-r1)) / 2).")
	hr := g.spill(g.sub(r2, r1))
	c := cp.point(capC)
	point := func(q, r [3]w) [3]w {
		var pt [3]w
		for j := range pt {
			pt[j] = g.add(c[j], g.add(q[j], g.mul(g.add(r[j], g.mul(n[j], hr)), g.bcast(constHalf))))
		}
		return pt
	}
	p1 := g.spill3(point(p.tu, p.r))
	// The outputs the manifold may replace, copies of point 1's.
	depth1, depth2 := g.spill(g.copy(depth)), g.spill(g.copy(depth))
	pt1 := g.spill3([3]w{g.copy(p1[0]), g.copy(p1[1]), g.copy(p1[2])})
	pt2 := g.spill3([3]w{g.copy(p1[0]), g.copy(p1[1]), g.copy(p1[2])})

	Comment("Count: 2 where a touching manifold candidate, 1 where touching, else 0.")
	two := g.and(touch, par)
	count := g.each(func(i int, r VecVirtual) {
		if g.wide() {
			VPBROADCASTD_Z(constInt1, touch.ops[i], r)
			return
		}
		VANDPS(constInt1, touch.ops[i], r)
	})
	count = g.spill(g.blend(two, g.same(constInt2), count))
	g.skipUnless(two, label+"_single")
	two = g.spillMask(two)
	{
		Comment("Two-point manifold: the ends lo, hi of the overlap along axis 2.")
		// Rare block: park freely, the common path's registers stay live.
		m0, u, a, invL := g.axes(cp)
		m0, u, a = g.park3(m0), g.park3(u), g.park(a)
		e := g.park3(g.sub3(cp.point(capA), cp.point(capC)))
		ka := g.mul(g.dot(u, e), invL)
		kb := g.mul(g.dot(u, m0), invL)
		lo, hi := g.overlap(ka, kb)
		lo, hi = g.park(lo), g.park(hi)
		rsum := g.add(r1, r2)
		for k, tk := range []w{lo, hi} {
			Commentf("Manifold point %d.", k+1)
			q := g.scale(u, tk)
			sk := g.clamp01(g.divOrZero(g.dot(g.sub3(q, e), m0), a))
			var rk [3]w
			for j := range rk {
				rk[j] = g.sub(g.add(e[j], g.mul(m0[j], sk)), q[j])
			}
			dk := g.sub(rsum, g.dot(rk, n))
			pk := point(q, rk)
			dst, pt := depth1, pt1
			if k == 1 {
				dst, pt = depth2, pt2
			}
			g.assign(dst, g.blend(two, dk, dst))
			for j := range pt {
				g.assign(pt[j], g.blend(two, pk[j], pt[j]))
			}
		}
	}
	g.endSkip(label + "_single")

	Comment("Non-finite lanes: |depth| or |sum of the eleven float outputs| not <= MaxFloat32.")
	sum := g.add(depth1, depth2)
	for _, v := range [9]w{n[0], n[1], n[2], pt1[0], pt1[1], pt1[2], pt2[0], pt2[1], pt2[2]} {
		sum = g.add(sum, v)
	}
	bad := g.cmp(cmpNLEUQ, g.abs(depth), g.same(constMaxF32))
	bad = g.or(bad, g.cmp(cmpNLEUQ, g.abs(sum), g.same(constMaxF32)))
	var res contactResult
	res.out[outDepth1], res.out[outDepth2] = depth1, depth2
	for j := range 3 {
		res.out[outNX+j] = n[j]
		res.out[outP1X+j] = pt1[j]
		res.out[outP2X+j] = pt2[j]
	}
	count = g.copy(count) // reassigned in the block below
	g.skipUnless(bad, label+"_finite")
	{
		Comment("Count 0 and the canonical NaN in every float of those lanes.")
		nan := g.same(constNaN)
		for k := outDepth1; k < numOut; k++ {
			g.assign(res.out[k], g.blend(bad, nan, res.out[k]))
		}
		g.assign(count, g.blend(bad, zero, count))
	}
	g.endSkip(label + "_finite")
	res.count = count
	res.out[outCount] = count
	return res
}

// touching returns the lanes whose count is nonzero.
func (g *gen) touching(count w) mask {
	m := mask{ops: make([]Op, g.groups)}
	for i := range m.ops {
		if g.wide() {
			k := K()
			VPTESTMD(count.ops[i], count.ops[i], k)
			m.ops[i] = k
			continue
		}
		v := g.isa.newVec()
		VPCMPGTD(g.zero, count.ops[i], v) // count > 0
		m.ops[i] = v
	}
	return m
}

// copy returns v in a fresh register (so it can be reassigned).
func (g *gen) copy(v w) w {
	return g.each(func(i int, r VecVirtual) {
		if m, ok := v.ops[i].(Mem); ok {
			VMOVUPS(m, r)
			return
		}
		VMOVAPS(v.ops[i], r)
	})
}

// assign copies src into the registers or stack slots of dst (a value
// reassigned inside a conditionally skipped block).
func (g *gen) assign(dst, src w) {
	for i := range dst.ops {
		if isMem(dst.ops[i]) {
			VMOVUPS(g.reg(src.ops[i]), dst.ops[i])
			continue
		}
		VMOVAPS(g.reg(src.ops[i]), dst.ops[i])
	}
}

// spillMask parks an AVX2 vector mask in a stack slot (opmasks stay).
func (g *gen) spillMask(m mask) mask {
	if g.wide() {
		return m
	}
	return mask{ops: g.spill(w{ops: m.ops}).ops}
}

// contactKernel emits ContactsISA (compact false) or CompactContactsISA.
//
// The loop is software-pipelined: the first group is gathered before the
// loop; each iteration computes the group in curSet while the next group's
// fourteen gathers (gathers, via gen.pending) are spread through its
// arithmetic into nextSet, then swaps the two sets. The last whole group
// and the masked tail run without a next group. Why: on the Zen 5 machines
// here VGATHERDPS fetches about one element per cycle (14 gathers per 16
// pairs take 3.9 ns/pair on their own, measured with C intrinsics), and
// gathering each group just before its arithmetic left the two nearly
// serial (8.8 ns/pair at 4,096 pairs; 7.3 pipelined, same run).
func contactKernel(is isa, compact bool) {
	name := "Contacts" + is.name
	if compact {
		name = "CompactContacts" + is.name
	}
	TEXT(name, 0, contactSignature) // not NOSPLIT: the spill area is several KiB
	Pragma("noescape")
	if compact {
		Doc(name+" computes the contacts of n capsule pairs with "+is.name+" and writes",
			"those of the touching pairs densely, in pair order; it returns their number.",
			"Bit-identical to fallback.CompactContacts. caps holds the seven capsule",
			"streams AX AY AZ BX BY BZ R, pi and pj the n pair indices (all in range),",
			"out the thirteen soa.Contacts streams, each with room for n rows; n > 0.")
	} else {
		Doc(name+" computes the contacts of n capsule pairs with "+is.name+", one row",
			"per pair, bit-identical to fallback.BatchContacts; it returns n. caps holds",
			"the seven capsule streams AX AY AZ BX BY BZ R, pi and pj the n pair indices",
			"(all in range), out the thirteen soa.Contacts streams of n rows; n > 0.")
	}
	XORQ(index, index)
	XORQ(written, written)
	Load(Param("caps"), scratch)
	for k, r := range capsRegs {
		MOVQ(Mem{Base: scratch, Disp: 8 * k}, r)
	}

	g := &gen{isa: is, groups: 1, zero: is.newVec(), one: is.newVec(), paceEvery: gatherPace}
	// The spill slots, then two sets of 14 slots for the gathered capsule
	// pairs: the current group's and the next one's.
	g.setupSlots(slotsBase, contactSlots+2*numGathered)
	g.numSlots = contactSlots
	LEAQ(Mem{Base: slotsBase, Disp: contactSlots * is.bytes}, curSet)
	LEAQ(Mem{Base: slotsBase, Disp: (contactSlots + numGathered) * is.bytes}, nextSet)
	VXORPS(g.zero, g.zero, g.zero)
	VBROADCASTSS(constOne, g.one)
	var allLanes Op // AVX-512: an opmask with all 16 lanes set, live for the whole kernel
	if is.wide() {
		allLanes = K()
		KMOVW(constLow16, allLanes) // (KXNORW would read it before it is set, as avo sees it)
	}

	Comment("Gather the first group.")
	Load(Param("n"), remain)
	CMPQ(remain, U32(is.lanes))
	JB(LabelRef(name + "_tail"))
	for _, emit := range gathers(is, curSet, 0, nil, allLanes) {
		emit()
	}

	Label(name + "_loop")
	Load(Param("n"), remain)
	SUBQ(index, remain)
	CMPQ(remain, U32(is.lanes))
	JB(LabelRef(name + "_tail"))
	CMPQ(remain, U32(2*is.lanes))
	JB(LabelRef(name + "_last"))
	Comment("Software pipeline: the next group's gathers are spread through this group's")
	Comment("arithmetic, so that their loads overlap its long dependency chain.")
	g.pending = gathers(is, nextSet, is.lanes, nil, allLanes)
	contactGroup(g, name+"_full", compact, nil)
	XCHGQ(curSet, nextSet)
	ADDQ(U32(is.lanes), index)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_last")
	contactGroup(g, name+"_lastgroup", compact, nil)
	ADDQ(U32(is.lanes), index)
	Load(Param("n"), remain)
	SUBQ(index, remain)

	Label(name + "_tail")
	TESTQ(remain, remain)
	JZ(LabelRef(name + "_done"))
	var tailMask Op
	if is.lanes == 16 {
		k := K()
		BZHIL(remain.As32(), constLow16, remain.As32())
		KMOVW(remain.As32(), k)
		tailMask = k
	} else {
		m := is.newVec()
		VMOVD(remain.As32(), m.AsX())
		VPBROADCASTD(m.AsX(), m)
		v := is.newVec()
		VPCMPGTD(constIota, m, v)
		tailMask = v
	}
	for _, emit := range gathers(is, curSet, 0, tailMask, allLanes) {
		emit()
	}
	contactGroup(g, name+"_tailgroup", compact, tailMask)

	Label(name + "_done")
	if compact {
		Store(written, ReturnIndex(0))
	} else {
		Load(Param("n"), remain)
		Store(remain, ReturnIndex(0))
	}
	VZEROUPPER()
	RET()
}

// gatherPace is how many vector operations of a contact body separate two
// of the next group's gathers (see gen.pending).
var gatherPace = 10

// numGathered is the number of values gathered per capsule pair: A B r
// of each capsule.
const numGathered = 14

// gathers returns the emitters of one group's gathers: the pair indices at
// lane index+offset, then capsule I's seven values and capsule J's, each
// gathered (VGATHERDPS) and stored to its slot of set. tailMask is nil for
// a whole group; allLanes is the AVX-512 all-lanes opmask that each whole
// group's gather copies (nil on AVX2). Each emitter is a few instructions that may be placed
// anywhere in the common path of a contact body (gen.pending).
func gathers(is isa, set GPPhysical, offset int, tailMask, allLanes Op) []func() {
	var emit []func()
	for side, param := range []string{"pi", "pj"} {
		var idx VecVirtual
		for k := range 7 {
			first, last := k == 0, k == 6
			pos := 7*side + k
			emit = append(emit, func() {
				if first {
					Commentf("Gather capsule %s (lanes from index+%d).", param[1:], offset)
					idx = is.newVec()
					Load(Param(param), scratch)
					m := Mem{Base: scratch, Index: index, Scale: 4, Disp: 4 * offset}
					switch {
					case tailMask == nil && is.wide():
						VMOVDQU32(m, idx)
					case tailMask == nil:
						VMOVDQU(m, idx)
					case is.wide():
						VMOVDQU32_Z(m, tailMask, idx)
					default:
						VPMASKMOVD(m, tailMask, idx)
					}
				}
				base := scratch
				if k < len(capsRegs) {
					base = capsRegs[k]
				} else {
					Load(Param("caps"), scratch)
					MOVQ(Mem{Base: scratch, Disp: 8 * k}, scratch)
				}
				src := Mem{Base: base, Index: idx, Scale: 4}
				// dst is zeroed while idx is live: they get distinct
				// registers, as VGATHERDPS requires.
				dst := is.newVec()
				if is.wide() {
					kk := K()
					if tailMask == nil {
						KMOVW(allLanes, kk) // a copy: the gather clears its mask
					} else {
						KMOVW(tailMask, kk)
					}
					VXORPS(dst, dst, dst)
					VGATHERDPS(src, kk, dst)
				} else {
					mm := is.newVec()
					if tailMask == nil {
						VPCMPEQD(mm, mm, mm)
					} else {
						VMOVAPS(tailMask, mm)
					}
					VXORPS(dst, dst, dst)
					VGATHERDPS(mm, src, dst)
				}
				VMOVUPS(dst, Mem{Base: set, Disp: pos * is.bytes})
				if last {
					// The index stays live past its last gather (see dst).
					keep := is.newVec()
					if is.wide() {
						VPORD(idx, idx, keep)
					} else {
						VPOR(idx, idx, keep)
					}
				}
			})
		}
	}
	return emit
}

// contactGroup computes the contacts of the group of capsule pairs gathered
// into curSet and stores them; it emits g.pending (the next group's
// gathers) along the way. tailMask is nil for a whole group.
func contactGroup(g *gen, label string, compact bool, tailMask Op) {
	g.nextSlot = 0
	is := g.isa
	var cp capsulePair
	for pos := range numGathered {
		cp.slot[pos] = w{ops: []Op{Mem{Base: curSet, Disp: pos * is.bytes}}}
	}
	marginArg, err := Param("margin").Resolve()
	if err != nil {
		panic(err)
	}
	margin := marginArg.Addr

	res := g.contactBody(&cp, margin, label)
	g.flush()

	Comment("Pair index k = i + lane.")
	pair := is.newVec()
	if is.lanes == 16 {
		VPBROADCASTD(index.As32(), pair)
		VPADDD(constIota16, pair, pair)
	} else {
		VMOVD(index.As32(), pair.AsX())
		VPBROADCASTD(pair.AsX(), pair)
		VPADDD(constIota, pair, pair)
	}
	res.out[outPair] = w{ops: []Op{pair}}

	var touch Op
	if compact {
		touch = g.touching(res.count).ops[0]
	}
	if tailMask != nil && compact {
		t := mask{ops: []Op{touch}}
		if is.lanes == 16 {
			k := K()
			KANDW(tailMask, t.ops[0], k)
			touch = k
		} else {
			v := is.newVec()
			VANDPS(tailMask, t.ops[0], v)
			touch = v
		}
	}

	outPtr := func(k int) Mem {
		Load(Param("out"), scratch)
		MOVQ(Mem{Base: scratch, Disp: 8 * k}, scratch)
		if compact {
			return Mem{Base: scratch, Index: written, Scale: 4}
		}
		return Mem{Base: scratch, Index: index, Scale: 4}
	}
	if !compact {
		Comment("Store one row per pair.")
		for k, v := range res.out {
			dst := outPtr(k)
			switch {
			case tailMask == nil:
				VMOVUPS(g.reg(v.ops[0]), dst)
			case is.lanes == 16:
				VMOVUPS(g.reg(v.ops[0]), tailMask, dst)
			default:
				VMASKMOVPS(g.reg(v.ops[0]), tailMask, dst)
			}
		}
		return
	}

	Comment("Compaction: the touching lanes, first, then a store of that many lanes;")
	Comment("nothing at all for a group without one (most groups at a low hit rate).")
	g.skipUnless(mask{ops: []Op{touch}}, label+"_none")
	if is.lanes == 16 {
		KMOVW(touch, remain.As32())
		POPCNTL(remain.As32(), remain.As32())
		ks := K()
		BZHIL(remain.As32(), constLow16, scratch.As32())
		KMOVW(scratch.As32(), ks)
		for k, v := range res.out {
			c := is.newVec()
			VCOMPRESSPS_Z(g.reg(v.ops[0]), touch, c)
			VMOVUPS(c, ks, outPtr(k))
		}
	} else {
		VMOVMSKPS(touch, remain.As32())
		LEAQ(constPerm, scratch)
		SHLQ(U8(5), remain)
		perm := is.newVec()
		VMOVDQU(Mem{Base: scratch, Index: remain, Scale: 1}, perm)
		SHRQ(U8(5), remain)
		POPCNTL(remain.As32(), remain.As32())
		cnt := is.newVec()
		VMOVD(remain.As32(), cnt.AsX())
		VPBROADCASTD(cnt.AsX(), cnt)
		ks := is.newVec()
		VPCMPGTD(constIota, cnt, ks)
		ksSlot := g.park(w{ops: []Op{ks}})
		permSlot := g.park(w{ops: []Op{perm}})
		for k, v := range res.out {
			c := is.newVec()
			VPERMPS(g.reg(v.ops[0]), g.reg(permSlot.ops[0]), c)
			VMASKMOVPS(c, g.reg(ksSlot.ops[0]), outPtr(k))
		}
	}
	ADDQ(remain, written)
	g.endSkip(label + "_none")
}
