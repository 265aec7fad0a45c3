package fallback_test

import (
	"math"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
)

// TestPlaneContactLaneExact: on every category, PlaneContactLane's count,
// depths and points agree with exact rational arithmetic within
// verify.PlaneTol eps32 x scale (verify.CheckPlaneContact), and
// PlaneContactLane64 on the same inputs is as close in eps64 terms.
func TestPlaneContactLaneExact(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	for ci, cat := range verify.PlaneCategories() {
		worst, worst64, counts := 0.0, 0.0, [3]int{}
		for k, pc := range cat.Generate(uint64(100+ci), n) {
			c := fallback.PlaneContactLane(pc.A[0], pc.A[1], pc.A[2], pc.B[0], pc.B[1], pc.B[2], pc.R,
				pc.N[0], pc.N[1], pc.N[2], pc.D, pc.Margin)
			w, err := verify.CheckPlaneContact(pc, c)
			if err != nil {
				t.Fatalf("%s case %d %+v: %v\n%+v", cat.Name, k, pc, err, c)
			}
			worst = max(worst, w)
			counts[c.Count]++
			c64 := fallback.PlaneContactLane64(f64(pc.A[0]), f64(pc.A[1]), f64(pc.A[2]), f64(pc.B[0]), f64(pc.B[1]), f64(pc.B[2]),
				f64(pc.R), f64(pc.N[0]), f64(pc.N[1]), f64(pc.N[2]), f64(pc.D), f64(pc.Margin))
			w64, err := verify.CheckPlaneContact(pc, c64)
			if err != nil {
				t.Fatalf("%s case %d %+v float64: %v\n%+v", cat.Name, k, pc, err, c64)
			}
			worst64 = max(worst64, w64)
		}
		t.Logf("%-15s worst %.2f eps32 x scale, float64 %.2f eps64 x scale; counts 0/1/2: %v", cat.Name, worst, worst64, counts)
		if cat.Name == "parallel" && counts[2] == 0 {
			t.Errorf("parallel: no two-point contact")
		}
		if cat.Name == "sphere" && counts[2] != 0 {
			t.Errorf("sphere: %d two-point contacts", counts[2])
		}
	}
}

func f64(x float32) float64 { return float64(x) }

// TestPlaneContactLaneCases: the documented cases, exactly.
func TestPlaneContactLaneCases(t *testing.T) {
	up := [3]float32{0, 1, 0}
	lane := func(a, b [3]float32, r float32, d, margin float32) fallback.Contact {
		return fallback.PlaneContactLane(a[0], a[1], a[2], b[0], b[1], b[2], r, up[0], up[1], up[2], d, margin)
	}
	// Lying on the ground, 0.125 deep: two points, A's then B's, midway
	// between the ground and the capsule's bottom (y = -0.0625).
	c := lane([3]float32{-1, 0.375, 0}, [3]float32{1, 0.375, 0}, 0.5, 0, 0)
	if c.Count != 2 || c.Depth != [2]float32{0.125, 0.125} || c.Point[0] != [3]float32{-1, -0.0625, 0} || c.Point[1] != [3]float32{1, -0.0625, 0} || c.Normal != up {
		t.Errorf("lying: %+v", c)
	}
	// Standing on end B: one point, B's.
	c = lane([3]float32{0, 3, 0}, [3]float32{0, 0.5, 0}, 0.5, 0, 0)
	if c.Count != 1 || c.Depth[0] != 0 || c.Point[0] != [3]float32{0, 0, 0} || c.Point[1] != c.Point[0] || c.Depth[1] != 0 {
		t.Errorf("standing on B: %+v", c)
	}
	// Apart: Count 0, the nearer end (B) reported, depth negative.
	c = lane([3]float32{0, 3, 0}, [3]float32{0, 2, 0}, 0.5, 0, 0.1)
	if c.Count != 0 || c.Depth[0] != -1.5 || c.Point[0][1] != 0.75 {
		t.Errorf("apart: %+v", c)
	}
	// Within the margin: touching, negative depth.
	c = lane([3]float32{0, 0.55, 0}, [3]float32{0, 3, 0}, 0.5, 0, 0.1)
	if c.Count != 1 || !(c.Depth[0] < 0) {
		t.Errorf("within the margin: %+v", c)
	}
	// A sphere counts once.
	c = lane([3]float32{0, 0.25, 0}, [3]float32{0, 0.25, 0}, 0.5, 0, 0)
	if c.Count != 1 || c.Depth[0] != 0.25 {
		t.Errorf("sphere: %+v", c)
	}
	// Bad input: NaN, Inf and a negative radius give Count 0 and the
	// canonical NaN everywhere.
	for _, bad := range []fallback.Contact{
		lane([3]float32{float32(math.NaN()), 0, 0}, [3]float32{1, 0, 0}, 0.5, 0, 0),
		lane([3]float32{0, 0, 0}, [3]float32{1, float32(math.Inf(1)), 0}, 0.5, 0, 0),
		lane([3]float32{0, 0, 0}, [3]float32{1, 0, 0}, -0.5, 0, 0),
		lane([3]float32{0, 0, 0}, [3]float32{1, 0, 0}, 0.5, float32(math.Inf(-1)), 0),
		fallback.PlaneContactLane(0, 0, 0, 1, 0, 0, 0.5, float32(math.NaN()), 1, 0, 0, 0),
	} {
		if bad.Count != 0 || math.Float32bits(bad.Depth[0]) != 0x7FC00000 || math.Float32bits(bad.Point[1][2]) != 0x7FC00000 ||
			math.Float32bits(bad.Normal[1]) != 0x7FC00000 {
			t.Errorf("bad input: %+v", bad)
		}
	}
	// -0 is a radius of zero.
	if c := lane([3]float32{0, 0, 0}, [3]float32{1, 0, 0}, float32(math.Copysign(0, -1)), 0, 0); c.Count != 2 {
		t.Errorf("radius -0: %+v", c)
	}
}
