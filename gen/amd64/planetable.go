package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/ir"
)

// The plane table: an engine's planes are few (a ground and a few walls),
// so a plane contact kernel given at most t.Lanes planes (its nplanes
// argument) transposes them once, at the start, into four vectors in its
// frame (N and D, plane p in lane p), and each group permutes its planes'
// fields out of them by index (VPERMPS, VPERMPD) instead of loading and
// transposing one plane record per lane: a handful of instructions where
// the records take about half of the group's.

// planeTable is the table of a plane contact kernel.
type planeTable struct {
	fields Mem // N0, N1, N2, D: a vector each
	stage  Mem // t.Lanes records, where the planes are copied to be transposed
	labels int // the table branches emitted (their labels' numbers)
}

// hasPlaneTable reports whether the plane kernels of t keep a table: not
// AVX2 float64, whose 4 lanes hold fewer planes than a box has, and which
// has no variable permute of 64-bit lanes.
func hasPlaneTable(t *ir.Target) bool { return t.Elem == ir.F32 || evex(t) }

// planeTableVecs is the slot area a plane table takes on t (vectors).
func planeTableVecs(t *ir.Target) int { return 4 + stageVecs(t) }

// build transposes the planes into the table when there are at most
// t.Lanes of them: copied into the zeroed stage first, so that nothing
// past the last plane is read. It takes remain and scratch, which the
// loops set again.
func (pt *planeTable) build(t *ir.Target, name string, zero VecVirtual) {
	Comment("At most lanes planes (nplanes): their N and D transposed into the plane table.")
	Load(Param("nplanes"), remain)
	CMPQ(remain, U32(t.Lanes))
	JA(LabelRef(name + "_notable"))
	stageRecords(t, name+"_tablein", zero, Mem{Base: planesBase}, pt.stage)
	rb := 8 * t.ElemBytes
	transposeRecords(t, func(lane, offset int) Mem { return pt.stage.Offset(lane*rb + offset) }, func(field int, v Op) {
		if field < 4 {
			VMOVUPS(v, pt.fields.Offset(field*t.VecBytes()))
		}
	})
	Label(name + "_notable")
}

// load stores side J's plane fields of one group to the set at dst (slots
// from first): permuted out of the table when there is one, else from the
// plane records (loadRecords). index(1, 0) addresses the group's plane
// indices.
func (pt *planeTable) load(t *ir.Target, name string, dst GPPhysical, index func(side, lane int) Mem, first int) {
	pt.labels++
	records, done := fmt.Sprintf("%s_planerecords%d", name, pt.labels), fmt.Sprintf("%s_planesdone%d", name, pt.labels)
	Comment("Plane fields of side J from the plane table (at most lanes planes), else from their records.")
	CMPQ(addrOf(Param("nplanes")), U32(t.Lanes))
	JA(LabelRef(records))
	x, perm := (&lowering{t: t}).loadIndices(index(1, 0), nil), VPERMPS
	if t.Elem == ir.F64 { // 8 indices widened to 64 bits
		z := ZMM()
		VPMOVZXDQ(x, z)
		x, perm = z, VPERMPD
	}
	for f := range 4 {
		v := vecOf(t.VecBytes())
		perm(pt.fields.Offset(f*t.VecBytes()), x, v)
		VMOVUPS(v, Mem{Base: dst, Disp: (first + 7 + fieldInput[f]) * t.VecBytes()})
	}
	JMP(LabelRef(done))
	Label(records)
	loadRecords(t, [2]GPPhysical{nil, planesBase}, dst, index, first)
	Label(done)
}
