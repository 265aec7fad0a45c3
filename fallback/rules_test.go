package fallback

import (
	"math"
	"testing"
)

// TestClampRule pins clamp01's rule, which the SIMD paths reproduce with
// MINPS/MAXPS (x first): -0 becomes +0, NaN becomes 1, out-of-range values
// clamp.
func TestClampRule(t *testing.T) {
	nan := float32(math.NaN())
	negZero := math.Float32frombits(0x80000000)
	cases := []struct{ in, want float32 }{
		{0.5, 0.5}, {2, 1}, {1, 1}, {-3, 0}, {0, 0},
		{float32(math.Inf(1)), 1}, {float32(math.Inf(-1)), 0},
		{negZero, 0}, {nan, 1},
		{math.Float32frombits(1), math.Float32frombits(1)},
		{math.Float32frombits(0x80000001), 0},
	}
	for _, c := range cases {
		got := clamp01(c.in)
		if math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("clamp01(%v bits %#x) = %v bits %#x, want %v bits %#x",
				c.in, math.Float32bits(c.in), got, math.Float32bits(got), c.want, math.Float32bits(c.want))
		}
	}
}

// TestDivOrZeroRule pins divOrZero: an exact zero divisor (either sign)
// gives +0, anything else (NaN included) divides.
func TestDivOrZeroRule(t *testing.T) {
	negZero := math.Float32frombits(0x80000000)
	if got := divOrZero[float32](1, 0); math.Float32bits(got) != 0 {
		t.Errorf("divOrZero(1, 0) = %v, want +0", got)
	}
	if got := divOrZero(-1, negZero); math.Float32bits(got) != 0 {
		t.Errorf("divOrZero(-1, -0) = %v, want +0", got)
	}
	if got := divOrZero(float32(math.NaN()), 0); math.Float32bits(got) != 0 {
		t.Errorf("divOrZero(NaN, 0) = %v, want +0", got)
	}
	if got := divOrZero(1, float32(math.NaN())); got == got {
		t.Errorf("divOrZero(1, NaN) = %v, want NaN", got)
	}
	if got := divOrZero[float32](3, 4); got != 0.75 {
		t.Errorf("divOrZero(3, 4) = %v", got)
	}
	if got := divOrZero(1, math.Float32frombits(1)); !math.IsInf(float64(got), 1) {
		t.Errorf("divOrZero(1, smallest subnormal) = %v, want +Inf", got)
	}
}

// TestDotOrder pins dot's association ((x0*y0) + (x1*y1)) + (x2*y2) with
// separately rounded products: values chosen so that any other order, or
// a fused multiply-add, gives different bits.
func TestDotOrder(t *testing.T) {
	// (1e8*1e8 + -1e16) + 1 = 1 but 1e8*1e8 + (-1e16 + 1) = 0 in float32,
	// since 1e16 + 1 rounds to 1e16.
	if got := dot(1e8, -1e8, 1, 1e8, 1e8, 1); got != 1 {
		t.Errorf("dot association: got %v, want 1", got)
	}
	// x*x with x = 1+2^-12: exactly 1+2^-11+2^-24, rounded to 1+2^-11
	// (ties to even) before the add; a fused product keeps the 2^-24.
	x := float32(1 + 0x1p-12)
	if got := dot(x, -1, 0, x, 1+0x1p-11, 0); got != 0 {
		t.Errorf("dot(x,-1,0; x,1+2^-11,0) = %v, want 0 (products rounded before the add; an FMA gives 2^-24)", got)
	}
}
