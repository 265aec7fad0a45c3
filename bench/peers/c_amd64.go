//go:build peers && cgo && amd64

package peers

// The C peer: closest_avx512.c, hand-written AVX-512 intrinsics.
//
// x86-64-v4 is AVX512F/BW/CD/DQ/VL + BMI2 (+FMA); gcc 12 has no
// -march=znver4, so znver3 tuning is the closest it knows. No FMA reaches
// the code: cgo rejects -ffp-contract=off in #cgo CFLAGS, so the C file
// sets it with #pragma GCC optimize (without it GCC fuses mul+add into
// VFMADD even with only -mavx512f, and the bits change). No -ffast-math.

/*
#cgo CFLAGS: -O3 -march=x86-64-v4 -mtune=znver3
#include "closest_avx512.h"
#include "closest_avx2.h"
*/
import "C"

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/segdist/segdist/soa"
)

// cPrefetch is how far ahead, in bytes, the chosen C loop prefetches each
// input stream (one line per stream per group of 16): the distance that
// measured best on a million pairs, at a small cost on cache-resident
// batches (docs/levers.md).
const cPrefetch = 768

func init() {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512BW &&
		cpu.X86.HasAVX512VL && cpu.X86.HasAVX512CD && cpu.X86.HasBMI2 {
		// The fastest C loop overall: one group per iteration, prefetch.
		impls = append(impls, Impl{Name: "c-avx512", Closest: func(dst *soa.Results, src *soa.Pairs) { cClosestPF(dst, src, 1, cPrefetch) }})
		// The two-groups-interleaved loop was not faster with GCC 12
		// (docs/levers.md): the out-of-order core already overlaps
		// consecutive groups.
		variants = append(variants,
			Impl{Name: "c-avx512-x2-pf", Closest: func(dst *soa.Results, src *soa.Pairs) { cClosestPF(dst, src, 2, cPrefetch) }},
			Impl{Name: "c-avx512-x1-nopf", Closest: CClosestX1},
			Impl{Name: "c-avx512-x2-nopf", Closest: CClosestX2},
		)
	}
}

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasAVX && cpu.X86.HasFMA && cpu.X86.HasBMI2 {
		// x86-64-v3 (the file's target) includes FMA and BMI2; no FMA
		// reaches the code (contraction is off).
		// The fastest C AVX2 loop: two groups of 8 per iteration with
		// prefetch (docs/levers.md).
		impls = append(impls, Impl{Name: "c-avx2", Closest: func(dst *soa.Results, src *soa.Pairs) { cClosestAVX2(dst, src, 2, cPrefetch) }})
		variants = append(variants,
			Impl{Name: "c-avx2-x1-pf", Closest: func(dst *soa.Results, src *soa.Pairs) { cClosestAVX2(dst, src, 1, cPrefetch) }},
			Impl{Name: "c-avx2-x1-nopf", Closest: func(dst *soa.Results, src *soa.Pairs) { cClosestAVX2(dst, src, 1, 0) }},
		)
	}
}

// cClosestAVX2 runs the C AVX2 loop (closest_avx2.c): groups groups of 8
// pairs per iteration, prefetch pf bytes ahead (0: none); one cgo call per
// batch.
func cClosestAVX2(dst *soa.Results, src *soa.Pairs, groups, pf int) {
	n := checked(dst, src)
	if n == 0 {
		return
	}
	C.peers_closest_avx2(fp(src.AX), fp(src.AY), fp(src.AZ), fp(src.BX), fp(src.BY), fp(src.BZ),
		fp(src.CX), fp(src.CY), fp(src.CZ), fp(src.DX), fp(src.DY), fp(src.DZ),
		fp(dst.S), fp(dst.T), fp(dst.Dist2), C.size_t(n), C.int(groups), C.size_t(pf))
}

func fp(s []float32) *C.float { return (*C.float)(unsafe.Pointer(&s[0])) }

// CClosestX1 runs the C kernel that does one group of 16 pairs per
// iteration. One cgo call per batch: the ~tens of ns a cgo call costs are
// spread over the whole batch.
func CClosestX1(dst *soa.Results, src *soa.Pairs) {
	n := checked(dst, src)
	if n == 0 {
		return
	}
	C.peers_closest_avx512_x1(fp(src.AX), fp(src.AY), fp(src.AZ), fp(src.BX), fp(src.BY), fp(src.BZ),
		fp(src.CX), fp(src.CY), fp(src.CZ), fp(src.DX), fp(src.DY), fp(src.DZ),
		fp(dst.S), fp(dst.T), fp(dst.Dist2), C.size_t(n))
}

// CClosestX2 runs the C kernel that does two independent groups of 16
// pairs per iteration; one cgo call per batch, as CClosestX1.
func CClosestX2(dst *soa.Results, src *soa.Pairs) {
	n := checked(dst, src)
	if n == 0 {
		return
	}
	C.peers_closest_avx512_x2(fp(src.AX), fp(src.AY), fp(src.AZ), fp(src.BX), fp(src.BY), fp(src.BZ),
		fp(src.CX), fp(src.CY), fp(src.CZ), fp(src.DX), fp(src.DY), fp(src.DZ),
		fp(dst.S), fp(dst.T), fp(dst.Dist2), C.size_t(n))
}

// cClosestPF runs the C loop with groups (1 or 2) groups of 16 pairs per
// iteration and a software prefetch pf bytes ahead; one cgo call per batch.
func cClosestPF(dst *soa.Results, src *soa.Pairs, groups, pf int) {
	n := checked(dst, src)
	if n == 0 {
		return
	}
	if groups == 1 {
		C.peers_closest_avx512_x1_pf(fp(src.AX), fp(src.AY), fp(src.AZ), fp(src.BX), fp(src.BY), fp(src.BZ),
			fp(src.CX), fp(src.CY), fp(src.CZ), fp(src.DX), fp(src.DY), fp(src.DZ),
			fp(dst.S), fp(dst.T), fp(dst.Dist2), C.size_t(n), C.size_t(pf))
		return
	}
	C.peers_closest_avx512_x2_pf(fp(src.AX), fp(src.AY), fp(src.AZ), fp(src.BX), fp(src.BY), fp(src.BZ),
		fp(src.CX), fp(src.CY), fp(src.CZ), fp(src.DX), fp(src.DY), fp(src.DZ),
		fp(dst.S), fp(dst.T), fp(dst.Dist2), C.size_t(n), C.size_t(pf))
}
