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

// loadRecords loads the records of one group's pairs and stores their
// transposed fields to set's slots from first on, side I's seven values
// then side J's. Side s (0: I, 1: J) reads lane's record index at
// index(s, lane) and the record from bases[s] (the capsules, or the planes
// for J: a plane record is laid out as a capsule record); a nil base skips s.
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
		var rows [8]Op
		for k := range rows {
			rows[k] = ZMM()
			VMOVUPD(record(k, 0), rows[k])
		}
		transpose8x64(rows, 7, store)
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
		for f, v := range transpose4(rows, 4-half, YMM) { // field 7 is padding
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
	var vw [2][]Op // v_f, w_f
	for block := range vw {
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
		vw[block] = transpose4(rows, 4, ZMM)
	}
	for f := range 7 {
		out := ZMM()
		// Lanes 0 2 (fields 0-3) or 1 3 (fields 4-6) of v_f, then of w_f.
		VSHUFF32X4([2]U8{0x88, 0xDD}[f/4], vw[1][f%4], vw[0][f%4], out)
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
		VSHUFPS([2]U8{0x44, 0xEE}[f%2], hi, lo, out[f]) // elements 0 1 (even f) or 2 3 of lo, then of hi
	}
	return out
}

// transpose8x64 transposes the 8x8 float64 matrix rows (row k in a zmm
// register, or in memory for odd k) and stores its columns 0 to fields-1
// by store: the AVX-512 transpose of 8 float64 records (transposeRecords)
// and of the record sink (storeRecords). Unpacking pairs of rows gives, in
// each 128-bit lane, one field of two records; two rounds of VSHUFF64X2
// (lanes 0 and 2, or 1 and 3, of two vectors) then gather each field of all
// eight records, in record order. 8 unpacks, 8 + fields cross-lane shuffles.
func transpose8x64(rows [8]Op, fields int, store func(field int, v Op)) {
	// u[0][p], u[1][p]: records 2p, 2p+1; lane j holds field 2j (u[0]) or 2j+1 (u[1]).
	var u [2][4]VecVirtual
	for p := range 4 {
		u[0][p], u[1][p] = ZMM(), ZMM()
		VUNPCKLPD(rows[2*p+1], rows[2*p], u[0][p])
		VUNPCKHPD(rows[2*p+1], rows[2*p], u[1][p])
	}
	shuf := [2]U8{0x88, 0xDD} // lanes 0 2, or 1 3, of each source
	for odd, in := range u {
		// s[h][i]: fields odd and odd+4 (i = 0) or odd+2 and odd+6 (i = 1)
		// of records 4h to 4h+3, in 128-bit lanes.
		var s [2][2]VecVirtual
		for h := range s {
			for i := range s[h] {
				s[h][i] = ZMM()
				VSHUFF64X2(shuf[i], in[2*h+1], in[2*h], s[h][i])
			}
		}
		for i := range 2 {
			for j := range 2 {
				if f := odd + 2*i + 4*j; f < fields { // past fields: the padding
					out := ZMM()
					VSHUFF64X2(shuf[j], s[1][i], s[0][i], out)
					store(f, out)
				}
			}
		}
	}
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
		for h, unpack := range [2]func(...Op){VUNPCKLPD, VUNPCKHPD} {
			if f := 2*q + h; f < 7 { // field 7 is the padding
				v := YMM()
				unpack(rows[1], rows[0], v)
				store(f, v)
			}
		}
	}
}
