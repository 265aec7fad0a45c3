package fallback

import (
	"math"
	"unsafe"
)

// Float is the element type of a kernel: every spec function is written
// once for both, and the float32 and float64 kernels perform the same
// operations in the same order, each rounded to its own precision. (Go
// instantiates each separately, so F(x*y) rounds, as float32(x*y) does,
// and the compiler fuses nothing.)
type Float interface{ float32 | float64 }

// is32 reports whether F is float32.
func is32[F Float]() bool {
	var z F
	return unsafe.Sizeof(z) == 4
}

// minNormal returns the smallest normal F: 2^-126 or 2^-1022.
func minNormal[F Float]() F {
	if is32[F]() {
		return F(float32(0x1p-126))
	}
	return F(math.Float64frombits(0x0010000000000000))
}

// maxFinite returns the largest finite F.
func maxFinite[F Float]() F {
	if is32[F]() {
		return F(float32(math.MaxFloat32))
	}
	return F(math.Float64frombits(0x7FEFFFFFFFFFFFFF))
}

// canonicalNaN returns CanonicalNaN or CanonicalNaN64.
func canonicalNaN[F Float]() F {
	if is32[F]() {
		return F(CanonicalNaN)
	}
	return F(CanonicalNaN64)
}
