package amd64

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
)

// The contact kernels' source: each pair's two capsule records
// (soa.Capsule: ax ay az r bx by bz pad) loaded whole and transposed in
// registers into kernels.Contact's fourteen inputs, which is several
// times faster than VGATHERDPS, microcoded on AMD (docs/design.md,
// "Memory layout and loads").

// fieldInput maps a record's field (ax ay az r bx by bz) to the position
// of that value among one capsule's seven inputs (A0 A1 A2 B0 B1 B2 r).
var fieldInput = [7]int{0, 1, 2, 6, 3, 4, 5}

// loadRecords loads the records of one group's pairs and stores the
// transposed fields to set, side I's seven values then side J's. Side s
// reads its records from bases[s] (the capsules for both sides, or the
// planes for side J: a plane record is laid out as a capsule record); a
// nil base skips its side.
// index(side, lane) is the memory operand holding the record index of
// lane on side 0 (I) or 1 (J); the values go to the set's slots from first
// on.
func loadRecords(t *ir.Target, bases [2]GPPhysical, set GPPhysical, index func(side, lane int) Mem, first int) {
	for side, caps := range bases {
		if caps == nil {
			continue
		}
		// record returns the address of lane's record (a 64-bit index:
		// 2^27 capsules and more stay addressable).
		record := func(lane, offset int) Mem {
			r := GP64()
			MOVL(index(side, lane), r.As32())
			SHLQ(U8(5+uint8(t.Elem)), r) // 32 or 64 bytes per record
			return Mem{Base: caps, Index: r, Scale: 1, Disp: offset}
		}
		store := func(field int, v Op) {
			VMOVUPS(v, Mem{Base: set, Disp: (first + 7*side + fieldInput[field]) * t.VecBytes()})
		}
		what := "Capsule"
		if caps == planesBase {
			what = "Plane"
		}
		Commentf("%s records of side %c, transposed.", what, "IJ"[side])
		transposeRecords(t, record, store)
	}
}

// transposeRecords loads the t.Lanes records record(lane, 0) and stores
// their seven fields (the padding left out), one vector each, by
// store(field, v).
func transposeRecords(t *ir.Target, record func(lane, offset int) Mem, store func(field int, v Op)) {
	switch {
	case t.Elem == ir.F64 && evex(t):
		records8x64(record, store)
	case t.Elem == ir.F64:
		records4x64(record, store)
	case evex(t):
		records16(record, store)
	default:
		records8(record, store)
	}
}

// records8 is the AVX2 transpose of 8 records. Row k holds the same half
// (first or last 16 bytes) of records k and k+4, one per 128-bit lane; a
// 4x4 transpose within each lane of rows 0-3 then gives fields 0-3 (or
// 4-7) of records 0-7 in order. 16 loads, 8 inserts, 15 shuffles.
func records8(record func(lane, offset int) Mem, store func(field int, v Op)) {
	for half := range 2 {
		var rows [4]VecVirtual
		for k := range rows {
			rows[k] = YMM()
			VBROADCASTF128(record(k, 16*half), rows[k])
			VINSERTF128(U8(1), record(k+4, 16*half), rows[k], rows[k])
		}
		fields := 4
		if half == 1 {
			fields = 3 // the last is padding
		}
		for f, v := range transpose4(rows, fields, YMM) {
			store(4*half+f, v)
		}
	}
}

// records16 is the AVX-512 transpose of 16 records. Row k (k < 4) holds
// records k and k+4, row 4+k records 8+k and 12+k, a record per 256-bit
// half. A 4x4 transpose within each 128-bit lane of rows 0-3 gives v_f =
// [field f of records 0-3, field f+4 of 0-3, field f of 4-7, field f+4 of
// 4-7], and of rows 4-7 w_f, the same for records 8-15; one VSHUFF32X4
// per field picks lanes 0 and 2 (fields 0-3) or 1 and 3 (fields 4-6) of
// v_f and w_f. 16 loads, 8 inserts, 8 + 8 in-lane and 7 cross-lane
// shuffles.
func records16(record func(lane, offset int) Mem, store func(field int, v Op)) {
	var v, w []Op
	for block := range 2 {
		var rows [4]VecVirtual
		for k := range rows {
			lo := 8*block + k
			// A plain 32-byte load, then the insert: VBROADCASTF32X8
			// from memory takes a shuffle pipe on Zen 4.
			low := YMM()
			VMOVUPS(record(lo, 0), low)
			rows[k] = ZMM()
			VINSERTF32X8(U8(1), record(lo+4, 0), low.AsZ(), rows[k])
		}
		t := transpose4(rows, 4, ZMM)
		if block == 0 {
			v = t
		} else {
			w = t
		}
	}
	for f := range 7 {
		out := ZMM()
		if f < 4 {
			VSHUFF32X4(U8(0x88), w[f], v[f], out) // lanes 0 2 of v, 0 2 of w
		} else {
			VSHUFF32X4(U8(0xDD), w[f-4], v[f-4], out) // lanes 1 3 of v, 1 3 of w
		}
		store(f, out)
	}
}

// transpose4 transposes the 4x4 blocks of rows within each 128-bit lane:
// element j of output f is element f of rows[j]. Outputs past fields are
// not computed.
func transpose4(rows [4]VecVirtual, fields int, newVec func() VecVirtual) []Op {
	t := [4]VecVirtual{newVec(), newVec(), newVec(), newVec()}
	VUNPCKLPS(rows[1], rows[0], t[0]) // r0_0 r1_0 r0_1 r1_1
	VUNPCKLPS(rows[3], rows[2], t[1]) // r2_0 r3_0 r2_1 r3_1
	VUNPCKHPS(rows[1], rows[0], t[2]) // r0_2 r1_2 r0_3 r1_3
	VUNPCKHPS(rows[3], rows[2], t[3]) // r2_2 r3_2 r2_3 r3_3
	out := make([]Op, fields)
	for f := range out {
		out[f] = newVec()
		lo, hi := t[2*(f/2)], t[2*(f/2)+1]
		imm := U8(0x44) // elements 0 1 of lo, 0 1 of hi
		if f%2 == 1 {
			imm = U8(0xEE) // elements 2 3 of lo, 2 3 of hi
		}
		VSHUFPS(imm, hi, lo, out[f])
	}
	return out
}

// records8x64 is the AVX-512 transpose of 8 float64 records (one zmm
// each): unpacking pairs of rows gives, in each 128-bit lane, one field of
// two records (t: even fields, h: odd); two rounds of VSHUFF64X2 (lanes 0
// and 2, or 1 and 3, of two vectors) then gather each field of all eight
// records, in record order. 8 loads, 8 unpacks, 15 cross-lane shuffles.
func records8x64(record func(lane, offset int) Mem, store func(field int, v Op)) {
	var rows [8]Op
	for k := range rows {
		r := ZMM()
		VMOVUPD(record(k, 0), r)
		rows[k] = r
	}
	transpose8x64(rows, 7, store)
}

// transpose8x64 transposes the 8x8 float64 matrix rows (row k in a zmm
// register, or in memory for odd k) and stores its columns 0 to fields-1
// by store: the transpose of records8x64 and of the record sink
// (recordsOut8x64).
func transpose8x64(rows [8]Op, fields int, store func(field int, v Op)) {
	// lo[p], hi[p]: records 2p, 2p+1; lane j holds field 2j (lo) or 2j+1 (hi).
	var lo, hi [4]VecVirtual
	for p := range 4 {
		lo[p], hi[p] = ZMM(), ZMM()
		VUNPCKLPD(rows[2*p+1], rows[2*p], lo[p])
		VUNPCKHPD(rows[2*p+1], rows[2*p], hi[p])
	}
	// columns stores the even (lo) or odd (hi) fields f and f+4, f+2 and
	// f+6.
	columns := func(in [4]VecVirtual, base int) {
		// a: lanes 0 2 (fields base, base+4) of records 0-3; b: lanes 1 3
		// (fields base+2, base+6); c, d the same for records 4-7.
		a, b, c, d := ZMM(), ZMM(), ZMM(), ZMM()
		VSHUFF64X2(U8(0x88), in[1], in[0], a)
		VSHUFF64X2(U8(0xDD), in[1], in[0], b)
		VSHUFF64X2(U8(0x88), in[3], in[2], c)
		VSHUFF64X2(U8(0xDD), in[3], in[2], d)
		for _, f := range []struct {
			field    int
			imm      uint8
			src1, s2 VecVirtual
		}{
			{base, 0x88, a, c}, {base + 4, 0xDD, a, c}, {base + 2, 0x88, b, d}, {base + 6, 0xDD, b, d},
		} {
			if f.field >= fields {
				continue // the padding
			}
			out := ZMM()
			VSHUFF64X2(U8(f.imm), f.s2, f.src1, out)
			store(f.field, out)
		}
	}
	columns(lo, 0)
	columns(hi, 1)
}

// records4x64 is the AVX2 transpose of 4 float64 records (two ymm each).
// Row k of field pair q holds fields 2q, 2q+1 of records k and k+2, one
// per 128-bit lane (a broadcast and an insert); unpacking rows 0 and 1
// gives field 2q (low) and 2q+1 (high) of records 0-3 in order. 8 loads,
// 8 inserts, 7 unpacks.
func records4x64(record func(lane, offset int) Mem, store func(field int, v Op)) {
	for q := range 4 {
		var rows [2]VecVirtual
		for k := range rows {
			rows[k] = YMM()
			VBROADCASTF128(record(k, 16*q), rows[k])
			VINSERTF128(U8(1), record(k+2, 16*q), rows[k], rows[k])
		}
		lo := YMM()
		VUNPCKLPD(rows[1], rows[0], lo)
		store(2*q, lo)
		if q < 3 { // field 7 is the padding
			hi := YMM()
			VUNPCKHPD(rows[1], rows[0], hi)
			store(2*q+1, hi)
		}
	}
}
