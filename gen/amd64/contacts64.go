package amd64

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The sinks of the float64 contact kernels: their count comes out in
// 64-bit lanes and their Pair and Count streams are uint32, so every group
// narrows them before it stores (contacts.go has the float32 sink).

// mask32 returns the AVX2 float64 tail mask (64-bit lanes, all-ones per
// lane) as a mask of four 32-bit lanes in an xmm register: the low halves
// of its lanes, packed.
func mask32(l *lowering, mask Op) Op {
	idx, m := YMM(), YMM()
	VMOVDQU(l.consts.pack64, idx)
	VPERMD(mask, idx, m)
	return m.AsX()
}

// sink64 stores the rows of a float64 group: the pair index and the
// count (int64 lanes, narrowed) as uint32, the eleven floats as float64;
// all of them under mask (the tail) or, compacting, only the touching
// lanes. AVX-512 (8 lanes) compresses with VPCOMPRESSD and VCOMPRESSPD;
// AVX2 (4 lanes) permutes with compress4q and compress4d.
func (ck *contactKernel) sink64(l *lowering, label string, mask Op, g int, late bool) {
	if !evex(l.t) {
		ck.sink64AVX2(l, label, mask, g)
		return
	}
	if g != 0 {
		panic("amd64: the AVX-512 float64 contact sink takes one group per iteration")
	}
	Comment("Pair index k = i + lane (8 uint32), and the count narrowed to uint32.")
	pair, count := YMM(), YMM()
	VPBROADCASTD(index.As32(), pair)
	VPADDD(l.consts.iota, pair, pair)
	count64 := l.out(0)
	VPMOVQD(count64, count)
	narrow := []Op{pair, count}
	floats := func(j int) Op { return l.out(1 + j) } // output j of the eleven floats
	nf := len(l.p.Outputs) - 1
	if !ck.compact {
		Comment("Store one row per pair.")
		for k, v := range narrow {
			if mask == nil {
				VMOVDQU(v, ck.rowPtr(k, 4, 0))
			} else {
				VMOVDQU32(v, mask, ck.rowPtr(k, 4, 0))
			}
		}
		for j := range nf {
			if mask == nil {
				VMOVUPD(floats(j), ck.rowPtr(2+j, 8, 0))
			} else {
				VMOVUPD(floats(j), mask, ck.rowPtr(2+j, 8, 0))
			}
		}
		return
	}
	if ck.stage != nil {
		ck.compactStaged(l, label, nil, !late) // a late group refills the stage
	}
	if late {
		outs := []func() Op{func() Op { return pair }, func() Op { return count }}
		for j := range nf {
			outs = append(outs, func() Op { return floats(j) })
		}
		ck.stageRows(l, outs)
		return
	}
	Comment("Compaction: the touching lanes (count > 0) first, then a store of that many")
	Comment("lanes; nothing at all for a group without one.")
	touch := K()
	VPTESTMQ(count64, count64, touch)
	if mask != nil {
		k2 := K()
		KANDW(mask, touch, k2)
		touch = k2
	}
	KORTESTW(touch, touch)
	JZ(LabelRef(label + "_none"))
	KMOVW(touch, remain.As32())
	ks := storeMaskOf(l)
	for k, v := range narrow {
		c := YMM()
		VPCOMPRESSD_Z(v, touch, c)
		VMOVDQU32(c, ks, ck.rowPtr(k, 4, 0))
	}
	for j := range nf {
		c := ZMM()
		VCOMPRESSPD_Z(floats(j), touch, c)
		VMOVUPD(c, ks, ck.rowPtr(2+j, 8, 0))
	}
	ADDQ(remain, written)
	Label(label + "_none")
}

// compactStaged64 is compactStaged's body for the AVX-512 float64 rows
// (which it stores with rowPtr): the touching lanes' numbers compressed once, VPERMD moves the staged pair
// index and count (8 uint32) and VPERMPD the eleven staged floats.
func (ck *contactKernel) compactStaged64(l *lowering, staged func(k int) Mem) {
	touch := K()
	KMOVW(remain.As32(), touch)
	ks := storeMaskOf(l)
	lanes, lanes64 := YMM(), ZMM()
	VMOVDQU32(l.consts.iota, lanes)
	VPCOMPRESSD_Z(lanes, touch, lanes)
	for k := range 2 {
		c := YMM()
		VPERMD(staged(k), lanes, c)
		VMOVDQU32(c, ks, ck.rowPtr(k, 4, 0))
	}
	VPMOVZXDQ(lanes, lanes64)
	for j := 2; j < contactStreams; j++ {
		c := ZMM()
		VPERMPD(staged(j), lanes64, c)
		VMOVUPD(c, ks, ck.rowPtr(j, 8, 0))
	}
}

// sink64AVX2 is sink64 on AVX2 for group g of an iteration:
// 4 lanes, the pair index and the narrowed count in xmm registers, the
// store masks and permutations parked in slots (16 registers).
func (ck *contactKernel) sink64AVX2(l *lowering, label string, mask Op, g int) {
	Comment("Pair index k = i + lane (4 uint32), and the count narrowed to uint32.")
	first := firstPair(l.t, g)
	pair := XMM()
	VMOVD(first.As32(), pair)
	VPBROADCASTD(pair, pair)
	VPADDD(l.consts.iota, pair, pair)
	count64 := l.out(0)
	pk, c32 := YMM(), YMM()
	VMOVDQU(l.consts.pack64, pk)
	VPERMD(count64, pk, c32)
	count := c32.AsX()
	pairSlot, countSlot := l.slots.next(), l.slots.next()
	VMOVDQU(pair, pairSlot)
	VMOVDQU(count, countSlot)
	narrow := []Mem{pairSlot, countSlot}
	if !ck.compact {
		ck.rows64AVX2(l, mask, g, narrow)
		return
	}
	ck.compact64AVX2(l, label, mask, narrow, count64)
}

// rows64AVX2 stores one row per pair of group g: the narrowed pair index
// and count (narrow) as uint32, the other outputs as float64, under mask
// if not nil.
func (ck *contactKernel) rows64AVX2(l *lowering, mask Op, g int, narrow []Mem) {
	nf := len(l.p.Outputs) - 1
	Comment("Store one row per pair.")
	var m32 Op
	if mask != nil {
		ms := l.slots.next()
		VMOVDQU(mask32(l, mask), ms)
		m32 = ms
	}
	for k, v := range narrow {
		x := XMM()
		VMOVDQU(v, x)
		if mask == nil {
			VMOVDQU(x, ck.rowPtr(k, 4, g*l.t.Lanes))
		} else {
			mx := XMM()
			VMOVDQU(m32, mx)
			VPMASKMOVD(x, mx, ck.rowPtr(k, 4, g*l.t.Lanes))
		}
	}
	for j := range nf {
		if mask == nil {
			VMOVUPD(l.out(1+j), ck.rowPtr(2+j, 8, g*l.t.Lanes))
		} else {
			VMASKMOVPD(l.out(1+j), mask, ck.rowPtr(2+j, 8, g*l.t.Lanes))
		}
	}
}

// compact64AVX2 stores the touching rows (count64 > 0, under mask if not
// nil) packed from written, by the compaction tables' permutations, and
// adds their number to written; a group without one stores nothing.
func (ck *contactKernel) compact64AVX2(l *lowering, label string, mask Op, narrow []Mem, count64 Op) {
	nf := len(l.p.Outputs) - 1
	Comment("Compaction: the touching lanes (count > 0) moved first by a permutation, then")
	Comment("a masked store of that many lanes; nothing for a group without one.")
	touch := YMM()
	VPCMPGTQ(l.zero, count64, touch)
	if mask != nil {
		t2 := YMM()
		VANDPD(mask, touch, t2)
		touch = t2
	}
	VTESTPD(touch, touch)
	JZ(LabelRef(label + "_none"))
	VMOVMSKPD(touch, remain.As32())
	SHLQ(U8(5), remain)
	permQ, permD := YMM(), YMM()
	LEAQ(l.consts.compress4q, scratch)
	VMOVDQU(Mem{Base: scratch, Index: remain, Scale: 1}, permQ)
	LEAQ(l.consts.compress4d, scratch)
	VMOVDQU(Mem{Base: scratch, Index: remain, Scale: 1}, permD)
	SHRQ(U8(5), remain)
	POPCNTL(remain.As32(), remain.As32())
	cnt := YMM()
	VMOVD(remain.As32(), cnt.AsX())
	VPBROADCASTD(cnt.AsX(), cnt)
	ks64, ks32 := YMM(), YMM()
	VPCMPGTD(l.consts.iota64, cnt, ks64)
	VPCMPGTD(l.consts.iota, cnt, ks32)
	slots := []Mem{l.slots.next(), l.slots.next(), l.slots.next(), l.slots.next()}
	for i, v := range []VecVirtual{permQ, permD, ks64, ks32} {
		VMOVDQU(v, slots[i])
	}
	if mask == nil {
		Comment("A whole group: the 4 rows from written are in dst (written+4 <= i+4 <= n);")
		Comment("blend the new rows into them and store all 4, as the float32 sink does.")
	}
	for k, v := range narrow {
		x, p, c, kr := YMM(), YMM(), YMM(), XMM()
		VMOVDQU(v, x) // the low 16 bytes are the four lanes; the indices stay below 4
		VMOVDQU(slots[1], p)
		VPERMD(x, p, c)
		VMOVDQU(slots[3].Offset(0), kr)
		if mask == nil {
			blendStore(c.AsX(), kr, ck.rowPtr(k, 4, 0), XMM())
		} else {
			VPMASKMOVD(c.AsX(), kr, ck.rowPtr(k, 4, 0))
		}
	}
	for j := range nf {
		c, p, kr := YMM(), YMM(), YMM()
		VMOVDQU(slots[0], p)
		VPERMPS(l.out(1+j), p, c)
		VMOVDQU(slots[2], kr)
		if mask == nil {
			blendStore(c, kr, ck.rowPtr(2+j, 8, 0), YMM())
		} else {
			VMASKMOVPD(c, kr, ck.rowPtr(2+j, 8, 0))
		}
	}
	ADDQ(remain, written)
	Label(label + "_none")
}
