package amd64

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
)

// The record sink: the transpose of the record source (records.go). It
// takes a group's eight fields, one vector each (a record's seven values
// and its padding), and stores the group's records, record k (lane k) at
// rec(k). A field may be in a register or, if odd, in memory: fields 1, 3,
// 5 and 7 are read only as an instruction's memory-capable operand.

// storeRecords stores the t.Lanes records whose fields are f; inOrder says
// that each record follows the one before (rec(k+1) is 32 bytes past
// rec(k)), which lets AVX-512 float32 store two records at a time.
func storeRecords(t *ir.Target, c *constants, f [8]Op, rec func(k int) Mem, inOrder bool) {
	switch {
	case t.Elem == ir.F64 && evex(t):
		transpose8x64([8]Op{inReg(f[0], ZMM), f[1], inReg(f[2], ZMM), f[3], inReg(f[4], ZMM), f[5], inReg(f[6], ZMM), f[7]}, 8,
			func(k int, v Op) { VMOVUPD(v, rec(k)) })
	case t.Elem == ir.F64:
		recordsOut4x64(f, rec)
	default:
		recordsOut32(t, f, c, rec, inOrder)
	}
}

// inReg returns v in a vector register: a Mem is loaded into a new one
// (YMM or ZMM, the width of the sink's vectors).
func inReg(v Op, newVec func() VecVirtual) Op {
	m, ok := v.(Mem)
	if !ok {
		return v
	}
	r := newVec()
	VMOVUPS(m, r)
	return r
}

// recordsOut32 is the sink of t.Lanes float32 records, by halves of the
// group (q): u_0..u_3 are built from the fields, then a 4x4 transpose
// within each 128-bit lane gives rows of whole records. AVX2: u_i holds
// field i of records 4q to 4q+3 in its low 128 bits and field i+4 in its
// high ones (an insert or a VPERM2F128), and row k is record 4q+k. AVX-512
// in order: u_i holds field i of the even records of 8q to 8q+7, field i+4
// of them, then the same of the odd ones, a 128-bit lane each (one
// VPERMI2PS with the sinkPerm indices), and row k = [record 8q+2k | record
// 8q+2k+1], stored whole. AVX-512 apart (records anywhere): u_i = [f_i,
// f_i+4, f_i, f_i+4] of 128-bit lanes 2q and 2q+1 in turn (one VPERMI2PD
// with the apartPerm indices), and row k = [record 8q+k | record 8q+4+k],
// stored as two halves. 8 cross-lane and 16 in-lane shuffles, 8 stores
// (apart: 8 extracts, 16 stores).
func recordsOut32(t *ir.Target, f [8]Op, c *constants, rec func(k int) Mem, inOrder bool) {
	newVec, perm, load, permute := YMM, c.sinkPerm, VMOVDQU32, VPERMI2PS
	if evex(t) {
		newVec = ZMM
	}
	if !inOrder {
		perm, load, permute = c.apartPerm, VMOVDQU64, VPERMI2PD
	}
	for q := range 2 {
		var u [4]VecVirtual
		for i := range u {
			u[i] = newVec()
			switch {
			case evex(t):
				load(perm.Offset(64*q), u[i])
				permute(f[i+4], inReg(f[i], ZMM), u[i])
			case q == 0:
				hi := f[i+4]
				if r, ok := hi.(VecVirtual); ok {
					hi = r.AsX()
				}
				VINSERTF128(U8(1), hi, inReg(f[i], YMM), u[i])
			default:
				VPERM2F128(U8(0x31), f[i+4], inReg(f[i], YMM), u[i]) // the high halves of f_i and f_i+4
			}
		}
		for k, v := range transpose4(u, 4, newVec) {
			switch {
			case !evex(t):
				VMOVUPS(v, rec(4*q+k))
			case inOrder:
				VMOVUPS(v, rec(8*q+2*k))
			default:
				VMOVUPS(v.(VecVirtual).AsY(), rec(8*q+k))
				VEXTRACTF32X8(U8(1), v, rec(8*q+4+k))
			}
		}
	}
}

// recordsSeq16 is the AVX-512 source of 16 float32 records that follow
// each other in memory (record(lane, 0) at 32 bytes a lane): row r = records
// 2r and 2r+1, one 64-byte load; a 4x4 transpose within each 128-bit lane
// of rows 0-3 gives v_f = [field f of records 0 2 4 6, field f+4 of them,
// field f of 1 3 5 7, field f+4 of them], and of rows 4-7 w_f, the same
// for records 8-15; one VPERMI2PS of v_f and w_f with the seqPerm indices
// then gives field f (or f+4) of records 0-15 in order. 8 loads, 16
// in-lane and 7 two-table shuffles.
func recordsSeq16(record func(lane, offset int) Mem, perm Mem, store func(field int, v Op)) {
	var vw [2][]Op
	for block := range 2 {
		var rows [4]VecVirtual
		for k := range rows {
			rows[k] = ZMM()
			VMOVUPS(record(8*block+2*k, 0), rows[k])
		}
		vw[block] = transpose4(rows, 4, ZMM)
	}
	for f := range 7 {
		out := ZMM()
		VMOVDQU32(perm.Offset(64*(f/4)), out)
		VPERMI2PS(vw[1][f%4], vw[0][f%4], out)
		store(f, out)
	}
}

// recordsOut4x64 is the AVX2 sink of 4 float64 records (two ymm each):
// for each half of a record (fields 4h to 4h+3), unpacking pairs of
// fields gives two fields of records 0 and 2 (low and high 128 bits), or
// of 1 and 3; an insert or a VPERM2F128 of two such vectors gives the half
// of one record. 8 unpacks, 8 cross-lane shuffles, 8 stores.
func recordsOut4x64(f [8]Op, rec func(k int) Mem) {
	for h := range 2 {
		f0, f2 := inReg(f[4*h], YMM), inReg(f[4*h+2], YMM)
		a, b, c, d := YMM(), YMM(), YMM(), YMM()
		VUNPCKLPD(f[4*h+1], f0, a) // fields 4h, 4h+1 of records 0 and 2
		VUNPCKHPD(f[4*h+1], f0, b) // of records 1 and 3
		VUNPCKLPD(f[4*h+3], f2, c) // fields 4h+2, 4h+3 of records 0 and 2
		VUNPCKHPD(f[4*h+3], f2, d)
		for k, p := range [][2]VecVirtual{{a, c}, {b, d}} {
			x, y := YMM(), YMM()
			VINSERTF128(U8(1), p[1].AsX(), p[0], x)
			VMOVUPD(x, rec(k).Offset(32*h))
			VPERM2F128(U8(0x31), p[1], p[0], y)
			VMOVUPD(y, rec(k+2).Offset(32*h))
		}
	}
}
