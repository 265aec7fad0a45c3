package amd64

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The float64 parts of the contact sink: its count comes out in 64-bit
// lanes, its Pair and Count streams are uint32 (narrowPairCount).

// mask32 returns the low halves of the 64-bit lanes of AVX2 float64 vector
// v (a tail mask, or the counts) packed into an xmm register: four 32-bit
// lanes.
func mask32(l *lowering, v Op) Op {
	idx, m := YMM(), YMM()
	VMOVDQU(l.consts.pack64, idx)
	VPERMD(v, idx, m)
	return m.AsX()
}

// narrowPairCount makes a float64 group's first two streams uint32: the
// pair index as it is, the count (count64) narrowed. On AVX2 (16
// registers) both wait in slots, which the streams then read.
func narrowPairCount(l *lowering, streams []rowStream, pair VecVirtual, count64 Op) {
	var narrow [2]Op
	if evex(l.t) {
		count := YMM()
		VPMOVQD(count64, count)
		narrow = [2]Op{pair, count}
	} else {
		count := mask32(l, count64)
		narrow = [2]Op{l.slots.next(), l.slots.next()}
		VMOVDQU(pair, narrow[0])
		VMOVDQU(count, narrow[1])
	}
	for k, v := range narrow {
		streams[k] = rowStream{func() Op { return v }, uint32Lanes}
	}
}

// compact4 is compact8 for the four-lane AVX2 float64 streams: the Pair
// and Count lanes (in slots) permuted by the compress4d table, the floats
// by compress4q.
func (ck *contactKernel) compact4(l *lowering, streams []rowStream, mask Op) {
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
	for k, s := range streams {
		var c, kr Register
		if s.kind == uint32Lanes {
			x, p, c8, kr4 := YMM(), YMM(), YMM(), XMM()
			VMOVDQU(s.v(), x) // the low 16 bytes are the four lanes; the indices stay below 4
			VMOVDQU(slots[1], p)
			VPERMD(x, p, c8)
			VMOVDQU(slots[3], kr4)
			c, kr = c8.AsX(), kr4
		} else {
			var p Register
			c, p, kr = YMM(), YMM(), YMM()
			VMOVDQU(slots[0], p)
			VPERMPS(s.v(), p, c)
			VMOVDQU(slots[2], kr)
		}
		ck.storePacked(k, s, c, kr, mask)
	}
}
