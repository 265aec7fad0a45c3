package amd64

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"

	"github.com/segdist/segdist/gen/ir"
)

// fp holds the instructions that depend on the element type: the PS
// forms for float32 lanes, the PD forms for float64. Everything else
// (register moves, loads and stores of whole vectors, AVX2's vector
// masks, which are all-ones or all-zeros per lane whatever its width) is
// shared.
type fp struct {
	add, sub, mul, div, sqrt, min, max func(...Op)
	divZ                               func(_, _, _, _ Op) // zeroing-masked division (AVX-512)
	cmp, cmpBcst                       func(...Op)
	and, andBcst, andn, or, xor        func(...Op)
	xorBcst                            func(...Op)
	blendm, blendmBcst                 func(...Op)         // AVX-512 opmask blends
	blendv                             func(_, _, _, _ Op) // AVX2 vector-mask blend
	movaZ                              func(_, _, _ Op)    // zeroing-masked register copy (AVX-512)
	bcstZ                              func(_, _, _ Op)    // zeroing-masked broadcast of a constant (AVX-512)
	broadcast                          func(...Op)         // a scalar in memory into every lane
	loadZ                              func(_, _, _ Op)    // AVX-512 zeroing-masked load
	storeMasked                        func(...Op)         // AVX-512 masked store
	test                               func(_, _ Op)       // AVX2: ZF = no lane of the mask set
	movmsk                             func(_, _ Op)       // AVX2: the lanes' sign bits into a register
	gather                             func(_, _, _ Op)    // by 32-bit indices, under a mask
}

var fp32 = &fp{
	add: VADDPS, sub: VSUBPS, mul: VMULPS, div: VDIVPS, sqrt: VSQRTPS, min: VMINPS, max: VMAXPS,
	divZ: VDIVPS_Z, cmp: VCMPPS, cmpBcst: VCMPPS_BCST,
	and: VANDPS, andBcst: VANDPS_BCST, andn: VANDNPS, or: VORPS, xor: VXORPS, xorBcst: VXORPS_BCST,
	blendm: VBLENDMPS, blendmBcst: VBLENDMPS_BCST, blendv: VBLENDVPS,
	movaZ: VMOVAPS_Z, bcstZ: VPBROADCASTD_Z, broadcast: VBROADCASTSS,
	loadZ: VMOVUPS_Z, storeMasked: VMOVUPS, test: VTESTPS, movmsk: VMOVMSKPS, gather: VGATHERDPS,
}

var fp64 = &fp{
	add: VADDPD, sub: VSUBPD, mul: VMULPD, div: VDIVPD, sqrt: VSQRTPD, min: VMINPD, max: VMAXPD,
	divZ: VDIVPD_Z, cmp: VCMPPD, cmpBcst: VCMPPD_BCST,
	and: VANDPD, andBcst: VANDPD_BCST, andn: VANDNPD, or: VORPD, xor: VXORPD, xorBcst: VXORPD_BCST,
	blendm: VBLENDMPD, blendmBcst: VBLENDMPD_BCST, blendv: VBLENDVPD,
	movaZ: VMOVAPD_Z, bcstZ: VPBROADCASTQ_Z, broadcast: VBROADCASTSD,
	loadZ: VMOVUPD_Z, storeMasked: VMOVUPD, test: VTESTPD, movmsk: VMOVMSKPD, gather: VGATHERDPD,
}

// fpOf returns the instructions of t's element type.
func fpOf(t *ir.Target) *fp {
	if t.Elem == ir.F64 {
		return fp64
	}
	return fp32
}

// scale is the index scale of t's streams: the lane size in bytes.
func scale(t *ir.Target) uint8 { return uint8(t.ElemBytes) }
