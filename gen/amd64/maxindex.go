package amd64

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// MaxIndex emits MaxIndexAVX2, the largest of n pair indices on each
// side: package kernel's range check of every index-taking call, which
// runs before any kernel and, as a scalar loop, cost a tenth of a
// CompactContacts call. Four accumulators of eight unsigned maxima
// (VPMAXUD) take 16 indices of each side per iteration; a scalar loop
// takes the last n mod 16. It reads pi[0:n] and pj[0:n] and nothing else.
func MaxIndex() {
	text("MaxIndexAVX2", NOSPLIT, "func(pi, pj *uint32, n int) uint32", false,
		[]string{"MaxIndexAVX2 returns the largest of pi[0:n] and pj[0:n] (0 when n = 0),", "reading nothing else."})
	pi, pj, n := Load(Param("pi"), GP64()), Load(Param("pj"), GP64()), Load(Param("n"), GP64())
	k, acc := GP64(), [4]VecVirtual{YMM(), YMM(), YMM(), YMM()}
	XORQ(k, k)
	for _, a := range acc {
		VPXOR(a, a, a)
	}
	main := GP64()
	MOVQ(n, main)
	ANDQ(I8(-16), main)
	JZ(LabelRef("maxindex_reduce"))
	Label("maxindex_loop")
	for h := range 2 {
		VPMAXUD(Mem{Base: pi, Index: k, Scale: 4, Disp: 32 * h}, acc[h], acc[h])
		VPMAXUD(Mem{Base: pj, Index: k, Scale: 4, Disp: 32 * h}, acc[2+h], acc[2+h])
	}
	ADDQ(Imm(16), k)
	CMPQ(k, main)
	JB(LabelRef("maxindex_loop"))
	Label("maxindex_reduce")
	Comment("Fold the 32 lanes into one.")
	VPMAXUD(acc[1], acc[0], acc[0])
	VPMAXUD(acc[3], acc[2], acc[2])
	VPMAXUD(acc[2], acc[0], acc[0])
	x0, x1 := acc[0].AsX(), XMM()
	VEXTRACTI128(Imm(1), acc[0], x1)
	VPMAXUD(x1, x0, x0)
	VPSHUFD(Imm(0x4E), x0, x1)
	VPMAXUD(x1, x0, x0)
	VPSHUFD(Imm(0xB1), x0, x1)
	VPMAXUD(x1, x0, x0)
	m, v := GP32(), GP32()
	VMOVD(x0, m)
	Comment("The last n mod 16 indices of each side.")
	CMPQ(k, n)
	JAE(LabelRef("maxindex_done"))
	Label("maxindex_tail")
	for _, side := range []Register{pi, pj} {
		MOVL(Mem{Base: side, Index: k, Scale: 4}, v)
		CMPL(v, m)
		CMOVLHI(v, m)
	}
	INCQ(k)
	CMPQ(k, n)
	JB(LabelRef("maxindex_tail"))
	Label("maxindex_done")
	Store(m, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
