package fallback

import (
	"math"
	"testing"
)

// TestParametersNeverNegativeZero checks the clamp rule: a parameter that
// rounds to zero from below is +0, so users never print "-0". With C = D
// and every component of A-C negative the projection's products are all
// -0 or negative, which the old rule passed through as -0.
func TestParametersNeverNegativeZero(t *testing.T) {
	cases := [][4][3]float32{
		{{0, 0, 0}, {1, 0, 0}, {5, 5, 5}, {5, 5, 5}},
		{{0, 0, 0}, {0, 0, 0}, {5, 5, 5}, {6, 6, 6}},
		{{-1, -1, -1}, {-2, -2, -2}, {3, 3, 3}, {3, 3, 3}},
		{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
	}
	for _, c := range cases {
		s, tt, _ := ClosestLane(c[0][0], c[0][1], c[0][2], c[1][0], c[1][1], c[1][2],
			c[2][0], c[2][1], c[2][2], c[3][0], c[3][1], c[3][2])
		if math.Signbit(float64(s)) || math.Signbit(float64(tt)) {
			t.Errorf("%v: S = %v, T = %v: a negative zero", c, s, tt)
		}
		pt, _ := ClosestPointLane(c[0][0], c[0][1], c[0][2], c[2][0], c[2][1], c[2][2], c[3][0], c[3][1], c[3][2])
		if math.Signbit(float64(pt)) {
			t.Errorf("%v: ClosestPointLane T = %v: a negative zero", c, pt)
		}
	}
}
