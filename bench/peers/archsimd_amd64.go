//go:build goexperiment.simd && amd64

package peers

// The archsimd peer: the kernel in Go with the experimental simd/archsimd
// package (GOEXPERIMENT=simd, Go 1.26), 16 lanes per Float32x16, the
// operation order of fallback.ClosestLane.

import (
	"math"
	"simd/archsimd"
	"unsafe"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

func init() {
	if archsimd.X86.AVX512() {
		impls = append(impls, Impl{Name: "archsimd-avx512", Closest: ArchsimdClosest})
	}
}

type f16 = archsimd.Float32x16

// simdConsts are the loop's constant vectors.
type simdConsts struct {
	zero, one, minNormal, maxf, nan f16
}

func newSimdConsts() simdConsts {
	return simdConsts{
		one:       archsimd.BroadcastFloat32x16(1),
		minNormal: archsimd.BroadcastFloat32x16(0x1p-126),
		maxf:      archsimd.BroadcastFloat32x16(math.MaxFloat32),
		nan:       archsimd.BroadcastFloat32x16(fallback.CanonicalNaN),
	}
}

// dot3 is ((x0*y0) + (x1*y1)) + (x2*y2); archsimd never fuses Mul and Add.
func dot3(x0, x1, x2, y0, y1, y2 f16) f16 {
	return x0.Mul(y0).Add(x1.Mul(y1)).Add(x2.Mul(y2))
}

// divOrZero is n/d, or 0 where d == 0 (fallback.divOrZero). NotEqual is
// VCMPPS predicate 4 (NEQ_UQ, true for NaN) like Go's d != 0; the division
// merged into zero under that mask compiles to one masked VDIVPS.
func divOrZero(n, d, zero f16) f16 {
	return n.Div(d).Merge(zero, d.NotEqual(zero))
}

// recipOrZero is 1/l where l >= 2^-126 (ordered, false for NaN), else 0
// (fallback.recipOrZero).
func recipOrZero(l f16, k *simdConsts) f16 {
	return k.one.Div(l).Merge(k.zero, l.GreaterEqual(k.minNormal))
}

// clamp01 is fallback.clamp01 (if !(x < 1) {x = 1}; if !(x > 0) {x = 0}),
// exact by construction: x where 0 < x < 1, 1 where !(x < 1) (which
// includes NaN), else +0. Both compares read only x, so they run in
// parallel, and the critical path is compare, merge, merge.
//
// Not Min/Max: archsimd's Min and Max are marked commutative in the
// compiler's SSA (cmd/compile/internal/ssa/_gen/simdAMD64ops.go, VMINPS512
// commutative: true) and CSE does reorder their operands. In this kernel
// it emitted some clamps with x as the second source of VMINPS/VMAXPS,
// which returns -0 instead of +0 for x = -0 (and NaN instead of 1), and
// TestPeersBitIdentical failed. With Min/Max this loop ran faster, with
// wrong bits.
func clamp01(x f16, k *simdConsts) f16 {
	lt1 := x.Less(k.one)
	gt0 := x.Greater(k.zero)
	return x.Merge(k.zero, gt0).Merge(k.one, lt1)
}

// group computes fallback.ClosestLane on 16 lanes.
func group(k *simdConsts, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz f16) (s, t, d2 f16) {
	m0x, m0y, m0z := bx.Sub(ax), by.Sub(ay), bz.Sub(az)
	ux, uy, uz := dx.Sub(cx), dy.Sub(cy), dz.Sub(cz)
	ex, ey, ez := ax.Sub(cx), ay.Sub(cy), az.Sub(cz)

	// Step 1.
	invL := recipOrZero(dot3(ux, uy, uz, ux, uy, uz), k)
	invA := recipOrZero(dot3(m0x, m0y, m0z, m0x, m0y, m0z), k) // for step 4
	ka := dot3(ux, uy, uz, ex, ey, ez).Mul(invL)
	um := dot3(ux, uy, uz, m0x, m0y, m0z)
	kb := um.Mul(invL)
	em := dot3(ex, ey, ez, m0x, m0y, m0z) // for step 4
	nx, ny, nz := ux.Mul(ka).Sub(ex), uy.Mul(ka).Sub(ey), uz.Mul(ka).Sub(ez)
	wx, wy, wz := m0x.Sub(ux.Mul(kb)), m0y.Sub(uy.Mul(kb)), m0z.Sub(uz.Mul(kb))

	// Step 2.
	s1 := clamp01(divOrZero(dot3(nx, ny, nz, wx, wy, wz), dot3(wx, wy, wz, wx, wy, wz), k.zero), k)

	// Step 3: t = clamp01(ka + s1 kb).
	t = clamp01(ka.Add(s1.Mul(kb)), k)

	// Step 4: s = clamp01((t u.M0 - E.M0) invA).
	s = clamp01(t.Mul(um).Sub(em).Mul(invA), k)
	tux, tuy, tuz := ux.Mul(t), uy.Mul(t), uz.Mul(t)

	rx := ex.Add(m0x.Mul(s)).Sub(tux)
	ry := ey.Add(m0y.Mul(s)).Sub(tuy)
	rz := ez.Add(m0z.Mul(s)).Sub(tuz)
	d2 = dot3(rx, ry, rz, rx, ry, rz)

	// d2 <= MaxFloat32 (ordered, false for NaN): keep; else canonical NaN.
	good := d2.LessEqual(k.maxf)
	return s.Merge(k.nan, good), t.Merge(k.nan, good), d2.Merge(k.nan, good)
}

// at returns a pointer to the 16 float32s at p + 4i bytes.
func at(p unsafe.Pointer, i int) *[16]float32 {
	return (*[16]float32)(unsafe.Add(p, uintptr(i)*4))
}

// ArchsimdClosest is the archsimd peer.
//
// The full groups use unchecked pointer arithmetic (the lengths are
// checked once, up front): with a bounds check per load, the fifteen
// slices' pointers and lengths do not fit in the general registers. The
// loop body is group() written out by hand, because Go's inliner will not
// inline a function that large, and a call per group spills every live
// register (Go's ABI has no callee-saved registers). The tail calls
// group() on LoadFloat32x16SlicePart and StoreSlicePart, which mask the
// lanes past the end.
func ArchsimdClosest(dst *soa.Results, src *soa.Pairs) {
	n := checked(dst, src)
	if n == 0 {
		return
	}
	k := newSimdConsts()
	pax, pay, paz := unsafe.Pointer(&src.AX[0]), unsafe.Pointer(&src.AY[0]), unsafe.Pointer(&src.AZ[0])
	pbx, pby, pbz := unsafe.Pointer(&src.BX[0]), unsafe.Pointer(&src.BY[0]), unsafe.Pointer(&src.BZ[0])
	pcx, pcy, pcz := unsafe.Pointer(&src.CX[0]), unsafe.Pointer(&src.CY[0]), unsafe.Pointer(&src.CZ[0])
	pdx, pdy, pdz := unsafe.Pointer(&src.DX[0]), unsafe.Pointer(&src.DY[0]), unsafe.Pointer(&src.DZ[0])
	ps, pt, pd := unsafe.Pointer(&dst.S[0]), unsafe.Pointer(&dst.T[0]), unsafe.Pointer(&dst.Dist2[0])
	i := 0
	for ; i <= n-16; i += 16 {
		ax, ay, az := archsimd.LoadFloat32x16(at(pax, i)), archsimd.LoadFloat32x16(at(pay, i)), archsimd.LoadFloat32x16(at(paz, i))
		bx, by, bz := archsimd.LoadFloat32x16(at(pbx, i)), archsimd.LoadFloat32x16(at(pby, i)), archsimd.LoadFloat32x16(at(pbz, i))
		cx, cy, cz := archsimd.LoadFloat32x16(at(pcx, i)), archsimd.LoadFloat32x16(at(pcy, i)), archsimd.LoadFloat32x16(at(pcz, i))
		dx, dy, dz := archsimd.LoadFloat32x16(at(pdx, i)), archsimd.LoadFloat32x16(at(pdy, i)), archsimd.LoadFloat32x16(at(pdz, i))

		// group(), by hand.
		m0x, m0y, m0z := bx.Sub(ax), by.Sub(ay), bz.Sub(az)
		ux, uy, uz := dx.Sub(cx), dy.Sub(cy), dz.Sub(cz)
		ex, ey, ez := ax.Sub(cx), ay.Sub(cy), az.Sub(cz)
		invL := recipOrZero(dot3(ux, uy, uz, ux, uy, uz), &k)
		invA := recipOrZero(dot3(m0x, m0y, m0z, m0x, m0y, m0z), &k) // for step 4
		ka := dot3(ux, uy, uz, ex, ey, ez).Mul(invL)
		um := dot3(ux, uy, uz, m0x, m0y, m0z)
		kb := um.Mul(invL)
		em := dot3(ex, ey, ez, m0x, m0y, m0z) // for step 4
		nx, ny, nz := ux.Mul(ka).Sub(ex), uy.Mul(ka).Sub(ey), uz.Mul(ka).Sub(ez)
		wx, wy, wz := m0x.Sub(ux.Mul(kb)), m0y.Sub(uy.Mul(kb)), m0z.Sub(uz.Mul(kb))
		s1 := clamp01(divOrZero(dot3(nx, ny, nz, wx, wy, wz), dot3(wx, wy, wz, wx, wy, wz), k.zero), &k)
		t := clamp01(ka.Add(s1.Mul(kb)), &k)
		s := clamp01(t.Mul(um).Sub(em).Mul(invA), &k)
		tux, tuy, tuz := ux.Mul(t), uy.Mul(t), uz.Mul(t)
		rx := ex.Add(m0x.Mul(s)).Sub(tux)
		ry := ey.Add(m0y.Mul(s)).Sub(tuy)
		rz := ez.Add(m0z.Mul(s)).Sub(tuz)
		d2 := dot3(rx, ry, rz, rx, ry, rz)
		good := d2.LessEqual(k.maxf)

		s.Merge(k.nan, good).Store(at(ps, i))
		t.Merge(k.nan, good).Store(at(pt, i))
		d2.Merge(k.nan, good).Store(at(pd, i))
	}
	if i < n {
		s, t, d2 := group(&k,
			archsimd.LoadFloat32x16SlicePart(src.AX[i:]), archsimd.LoadFloat32x16SlicePart(src.AY[i:]), archsimd.LoadFloat32x16SlicePart(src.AZ[i:]),
			archsimd.LoadFloat32x16SlicePart(src.BX[i:]), archsimd.LoadFloat32x16SlicePart(src.BY[i:]), archsimd.LoadFloat32x16SlicePart(src.BZ[i:]),
			archsimd.LoadFloat32x16SlicePart(src.CX[i:]), archsimd.LoadFloat32x16SlicePart(src.CY[i:]), archsimd.LoadFloat32x16SlicePart(src.CZ[i:]),
			archsimd.LoadFloat32x16SlicePart(src.DX[i:]), archsimd.LoadFloat32x16SlicePart(src.DY[i:]), archsimd.LoadFloat32x16SlicePart(src.DZ[i:]))
		s.StoreSlicePart(dst.S[i:])
		t.StoreSlicePart(dst.T[i:])
		d2.StoreSlicePart(dst.Dist2[i:])
	}
}
