package fallback_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// contactSeed seeds the contact sweeps.
const contactSeed = 0xCA95

// contactPerCategory is the number of pairs per capsule category and margin.
func contactPerCategory() int {
	if testing.Short() {
		return 150
	}
	return 600
}

// ctWorst tracks the largest value of a measure and the case behind it.
type ctWorst struct {
	v    float64
	what string
}

func (w *ctWorst) add(v float64, what func() string) {
	if !math.IsNaN(v) && v > w.v {
		w.v, w.what = v, what()
	}
}

// TestContactLaneAccuracy runs fallback.ContactLane (the specification every
// path reproduces bit for bit) on every capsule category and margin and
// checks each contact with verify.CheckContact: the bit-exact identities
// with ClosestLane, Count against the float64 reference (except within the
// bands around the touching threshold and the parallel tolerance, which
// are counted and logged), the depth against exact arithmetic, unit
// normals, the normal's direction, contact points midway between the
// surfaces and the two-point manifold against the reference. The worst
// measures per category are logged (-v).
func TestContactLaneAccuracy(t *testing.T) {
	n := contactPerCategory()
	for k, cat := range verify.CapsuleCategories() {
		t.Run(cat.Name, func(t *testing.T) {
			var depth, nlen, angle, farAngle, surf, pts, mdepth ctWorst
			counts := [3]int{}
			border := map[string]int{}
			fails := 0
			for mi, margin := range verify.CapsuleMargins {
				r := verify.NewRand(contactSeed+uint64(mi), uint64(k))
				for i := range n {
					p := cat.Gen(r, margin)
					for _, q := range []verify.CapsulePair{p, p.Swap()} {
						c := q.Lane(margin)
						rep := verify.CheckContact(q, margin, c, i%4 == 0)
						if !rep.OK() {
							if fails < 5 {
								t.Errorf("%s margin=%v: %v\n  got %+v", q, margin, rep.Problems, c)
							}
							fails++
						}
						counts[min(c.Count, 2)]++
						if rep.Borderline != "" {
							border[rep.Borderline]++
						}
						what := func() string { return fmt.Sprintf("%s margin=%v", q, margin) }
						depth.add(rep.DepthErr, what)
						nlen.add(rep.NormalLen, what)
						if rep.AngleBound > 0 {
							angle.add(rep.NormalAngle/rep.AngleBound, what)
						}
						if rep.RefDist >= 1e-3*rep.Scale {
							farAngle.add(rep.NormalAngle, what)
						}
						surf.add(rep.SurfaceErr, what)
						pts.add(rep.PointErr, what)
						mdepth.add(rep.MDepthErr, what)
					}
				}
			}
			if fails > 0 {
				t.Errorf("%d failing contacts", fails)
			}
			t.Logf("counts 0/1/2: %v; borderline (Count not compared): %v", counts, border)
			t.Logf("worst: depth %.3g eps32 x scale, | |n|-1 | %.3g eps32, normal angle %.3g of its bound (%.3g rad, 1-dot %.3g, where distance >= 1e-3 x scale), surface %.3g, manifold points %.3g, manifold depths %.3g",
				depth.v, nlen.v, angle.v, farAngle.v, 1-math.Cos(farAngle.v), surf.v, pts.v, mdepth.v)
			if testing.Verbose() && depth.v > 2 {
				t.Logf("worst depth case: %s", depth.what)
			}
		})
	}
}

// TestContactLaneSegmentCategories reuses the adversarial axes of the
// closest-point tests (verify.Categories: near-parallel down to 1e-7 rad,
// shared endpoints, 1e-4 and 1e15 scale, coordinates up to 1e18, ...) as
// capsule axes, with radii zero, random, or summing to about the distance
// of the axes, and checks every contact with verify.CheckContact.
func TestContactLaneSegmentCategories(t *testing.T) {
	n := contactPerCategory()
	for k, cat := range verify.Categories() {
		t.Run(cat.Name, func(t *testing.T) {
			r := verify.NewRand(contactSeed, 100+uint64(k))
			var depth, nlen, surf ctWorst
			fails := 0
			for i := range n {
				ax := cat.Gen(r)
				sc := verify.Scale(ax)
				dist := math.Sqrt(func() float64 { _, _, d2 := fallback.ReferenceF32(ax.A, ax.B, ax.C, ax.D); return d2 }())
				var r1, r2 float32
				switch i % 4 {
				case 1:
					r1, r2 = float32(sc*r.Float64()), float32(sc*r.Float64()*0.1)
				case 2, 3:
					f := r.Float64()
					tgt := dist * (1 + (r.Float64()-0.5)*1e-3)
					r1 = float32(tgt * f)
					r2 = float32(tgt - float64(r1))
				}
				margin := float32(verify.CapsuleMargins[i%len(verify.CapsuleMargins)] * float32(sc))
				p := verify.CapsulePair{C1: verify.Capsule{A: ax.A, B: ax.B, R: r1}, C2: verify.Capsule{A: ax.C, B: ax.D, R: r2}}
				for _, q := range []verify.CapsulePair{p, p.Swap()} {
					c := q.Lane(margin)
					rep := verify.CheckContact(q, margin, c, i%8 == 0)
					if !rep.OK() {
						if fails < 5 {
							t.Errorf("%s margin=%v: %v\n  got %+v", q, margin, rep.Problems, c)
						}
						fails++
					}
					what := func() string { return fmt.Sprintf("%s margin=%v", q, margin) }
					depth.add(rep.DepthErr, what)
					nlen.add(rep.NormalLen, what)
					surf.add(rep.SurfaceErr, what)
				}
			}
			if fails > 0 {
				t.Errorf("%d failing contacts", fails)
			}
			t.Logf("worst: depth %.3g eps32 x scale, | |n|-1 | %.3g eps32, surface %.3g", depth.v, nlen.v, surf.v)
		})
	}
}

// lane runs ContactLane on array-of-structs capsules.
func ctLane(a, b [3]float32, r1 float32, c, d [3]float32, r2, margin float32) fallback.Contact {
	return fallback.ContactLane(a[0], a[1], a[2], b[0], b[1], b[2], r1, c[0], c[1], c[2], d[0], d[1], d[2], r2, margin)
}

// bitsEqual reports whether x and y have the same bits.
func ctBits(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }

// vecBitsEqual reports whether x and y have the same bits, component-wise.
func ctVecBits(x, y [3]float32) bool {
	return ctBits(x[0], y[0]) && ctBits(x[1], y[1]) && ctBits(x[2], y[2])
}

// TestContactLaneMatchesClosestLane checks the bit-exact link between the
// contact kernel and the closest-point kernel on every closest-point
// category with random radii and margins: Count > 0 exactly when
// sqrt32(Dist2) <= (r1 + r2) + margin, and for one-point contacts Depth =
// (r1 + r2) - sqrt32(Dist2), both in float32, Dist2 from ClosestLane.
func TestContactLaneMatchesClosestLane(t *testing.T) {
	r := verify.NewRand(contactSeed, 7)
	checked, counted := 0, [3]int{}
	for _, p := range verify.Mixed(contactSeed, contactPerCategory()) {
		_, _, d2 := fallback.ClosestLane(p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2], p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2])
		dist := float32(math.Sqrt(float64(d2)))
		// Each product rounded on its own (float32(...)): on arm64 the
		// compiler would otherwise fuse it into the sums below.
		r1 := float32(float32(r.Float64()) * dist)
		r2 := float32(float32(r.Float64()) * dist)
		margin := float32(float32(r.Float64()) * dist * 0.25)
		c := ctLane(p.A, p.B, r1, p.C, p.D, r2, margin)
		if touch := dist <= (r1+r2)+margin; touch != (c.Count > 0) {
			t.Fatalf("%v r1=%v r2=%v margin=%v: Count %d, but sqrt32(ClosestLane dist2) = %v <= %v is %v", p, r1, r2, margin, c.Count, dist, (r1+r2)+margin, touch)
		}
		counted[c.Count]++
		if c.Count == 2 {
			continue
		}
		if want := (r1 + r2) - dist; !ctBits(c.Depth[0], want) || !ctBits(c.Depth[1], want) {
			t.Fatalf("%v r1=%v r2=%v: Depth = %v, want (r1+r2) - sqrt32(ClosestLane dist2) = %v bit for bit", p, r1, r2, c.Depth, want)
		}
		if !ctVecBits(c.Point[0], c.Point[1]) {
			t.Fatalf("%v: Count %d but the second point %v differs from the first %v", p, c.Count, c.Point[1], c.Point[0])
		}
		checked++
	}
	t.Logf("Count 0/1/2: %v; %d one-point depths checked bit for bit", counted, checked)
	if counted[0] == 0 || counted[1] == 0 || counted[2] == 0 {
		t.Errorf("Count 0/1/2 = %v: the sweep must reach every count", counted)
	}
}

// TestContactLaneDocumentedNormals checks the documented normals exactly
// (fallback.Contact): intersecting axes get the normalised cross product
// of the axes; collinear axes and sphere centres on an axis get v x z
// normalised (v x x when v is along z), v the unit axis 1 (axis 2 when
// axis 1 has zero length); coincident sphere centres get (0,0,1). The
// depth is then r1 + r2 and the point lies at Q + n (r2 - r1)/2. All
// values here are exact in float32.
func TestContactLaneDocumentedNormals(t *testing.T) {
	type v3 = [3]float32
	cases := []struct {
		name       string
		a, b, c, d v3
		normal     v3
		point      v3 // with r1 = 0.5, r2 = 0.25: Q + n (r2-r1)/2
	}{
		{"x cross y", v3{-1, 0, 0}, v3{1, 0, 0}, v3{0, -1, 0}, v3{0, 1, 0}, v3{0, 0, 1}, v3{0, 0, -0.125}},
		{"y cross x", v3{0, -1, 0}, v3{0, 1, 0}, v3{-1, 0, 0}, v3{1, 0, 0}, v3{0, 0, -1}, v3{0, 0, 0.125}},
		{"x cross z", v3{-1, 0, 0}, v3{3, 0, 0}, v3{0, 0, -2}, v3{0, 0, 1}, v3{0, -1, 0}, v3{0, 0.125, 0}},
		{"z cross x, crossing at an endpoint", v3{2, 2, 2}, v3{2, 2, 4}, v3{2, 2, 2}, v3{6, 2, 2}, v3{0, 1, 0}, v3{2, 1.875, 2}},
		{"collinear along x", v3{0, 0, 0}, v3{2, 0, 0}, v3{1, 0, 0}, v3{3, 0, 0}, v3{0, -1, 0}, v3{1, 0.125, 0}},
		{"collinear along -x", v3{2, 0, 0}, v3{0, 0, 0}, v3{1, 0, 0}, v3{3, 0, 0}, v3{0, 1, 0}, v3{1, -0.125, 0}},
		{"collinear along z", v3{0, 0, 0}, v3{0, 0, 2}, v3{0, 0, 1}, v3{0, 0, 3}, v3{0, 1, 0}, v3{0, -0.125, 1}},
		{"collinear along -z", v3{0, 0, 2}, v3{0, 0, 0}, v3{0, 0, 1}, v3{0, 0, 3}, v3{0, -1, 0}, v3{0, 0.125, 1}},
		{"collinear along y", v3{0, 0, 0}, v3{0, 4, 0}, v3{0, 1, 0}, v3{0, 2, 0}, v3{1, 0, 0}, v3{-0.125, 1, 0}},
		{"sphere on axis 1", v3{0, 0, 0}, v3{0, 2, 0}, v3{0, 1, 0}, v3{0, 1, 0}, v3{1, 0, 0}, v3{-0.125, 1, 0}},
		{"sphere on axis 2", v3{0, 1, 0}, v3{0, 1, 0}, v3{0, 0, 0}, v3{0, 2, 0}, v3{1, 0, 0}, v3{-0.125, 1, 0}},
		{"sphere on a z axis", v3{0, 0, 1}, v3{0, 0, 1}, v3{0, 0, 0}, v3{0, 0, 2}, v3{0, 1, 0}, v3{0, -0.125, 1}},
		{"coincident spheres", v3{1, 2, 3}, v3{1, 2, 3}, v3{1, 2, 3}, v3{1, 2, 3}, v3{0, 0, 1}, v3{1, 2, 2.875}},
		{"capsule against itself", v3{-1, 0, 0}, v3{1, 0, 0}, v3{-1, 0, 0}, v3{1, 0, 0}, v3{0, -1, 0}, v3{-1, 0.125, 0}},
	}
	for _, tc := range cases {
		c := ctLane(tc.a, tc.b, 0.5, tc.c, tc.d, 0.25, 0)
		// Values compared with ==: the fallbacks v x z and v x x leave -0
		// components (-vx for vx = 0), which the documentation does not
		// distinguish; every path produces the same bits (kernel tests).
		if c.Count == 0 || c.Normal != tc.normal || c.Depth[0] != 0.75 {
			t.Errorf("%s: Count %d Normal %v Depth %v; want Count >= 1, Normal %v, Depth 0.75", tc.name, c.Count, c.Normal, c.Depth, tc.normal)
			continue
		}
		if c.Count == 1 && c.Point[0] != tc.point {
			t.Errorf("%s: Point %v, want %v", tc.name, c.Point[0], tc.point)
		}
	}
	// Zero radii, zero margin: coincident points still touch (distance 0
	// <= 0), with depth 0 and the documented normal; also at the origin,
	// where every input is zero (scale 0 for the checker).
	for _, x := range [][3]float32{{1, 1, 1}, {}} {
		c := ctLane(x, x, 0, x, x, 0, 0)
		if c.Count != 1 || c.Depth[0] != 0 || c.Normal != [3]float32{0, 0, 1} || c.Point[0] != x {
			t.Errorf("two coincident points at %v: %+v", x, c)
		}
		p := verify.CapsulePair{C1: verify.Capsule{A: x, B: x}, C2: verify.Capsule{A: x, B: x}}
		if rep := verify.CheckContact(p, 0, c, true); !rep.OK() {
			t.Errorf("two coincident points at %v: %v", x, rep.Problems)
		}
	}
}

// TestContactLaneCrossingNormals checks the cross-product normal on
// generic crossing axes (verify.Categories "crossing": exact grid
// crossings) wherever the kernel's squared distance is below 2^-126, the
// documented switch: the normal must be the float64 normalised cross
// product of the axes within 4 eps32 per component.
func TestContactLaneCrossingNormals(t *testing.T) {
	var cat verify.Category
	for _, c := range verify.Categories() {
		if c.Name == "crossing" {
			cat = c
		}
	}
	checked := 0
	for _, p := range verify.Generate(cat, contactSeed, contactPerCategory()) {
		_, _, d2 := fallback.ClosestLane(p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2], p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2])
		if d2 >= 0x1p-126 {
			continue // rounding left a distance: the normal is (P-Q)/|P-Q|
		}
		m0 := [3]float64{float64(p.B[0] - p.A[0]), float64(p.B[1] - p.A[1]), float64(p.B[2] - p.A[2])}
		m1 := [3]float64{float64(p.D[0] - p.C[0]), float64(p.D[1] - p.C[1]), float64(p.D[2] - p.C[2])}
		cr := [3]float64{m0[1]*m1[2] - m0[2]*m1[1], m0[2]*m1[0] - m0[0]*m1[2], m0[0]*m1[1] - m0[1]*m1[0]}
		l := math.Sqrt(cr[0]*cr[0] + cr[1]*cr[1] + cr[2]*cr[2])
		if l < 1e-3*math.Sqrt(m0[0]*m0[0]+m0[1]*m0[1]+m0[2]*m0[2])*math.Sqrt(m1[0]*m1[0]+m1[1]*m1[1]+m1[2]*m1[2]) {
			continue // nearly parallel: the cross product is ill-conditioned
		}
		c := ctLane(p.A, p.B, 0.5, p.C, p.D, 0.5, 0)
		for i := range 3 {
			if e := math.Abs(float64(c.Normal[i]) - cr[i]/l); e > 4*verify.Eps32 {
				t.Fatalf("%v: normal %v, want the unit cross product of the axes %v (error %.3g eps32)", p, c.Normal, [3]float64{cr[0] / l, cr[1] / l, cr[2] / l}, e/verify.Eps32)
			}
		}
		checked++
	}
	t.Logf("%d crossing pairs with Dist2 < 2^-126 checked", checked)
	if checked < contactPerCategory()/4 {
		t.Errorf("only %d pairs reached the cross-product normal", checked)
	}
}

// TestContactLaneStackedManifold checks the two-point manifold on exactly
// representable stacked capsules: capsule 1 from (0,1,0) to (4,1,0) with
// radius 1/2 resting on capsule 2 from (1,0,0) to (9,0,0) with radius 3/4
// overlap over x in [1, 4]: Count 2, normal (0,1,0), depth 1/4 at both
// points and the points (1, 0.625, 0) and (4, 0.625, 0), midway between
// the surfaces (y = 0.75 and y = 0.5). The same with the capsules
// exchanged (normal (0,-1,0)), with axis 2 reversed, with axis 1 reversed,
// and with a margin; an overlap of a single point, or none, gives Count 1.
func TestContactLaneStackedManifold(t *testing.T) {
	type v3 = [3]float32
	a, b := v3{0, 1, 0}, v3{4, 1, 0}
	c, d := v3{1, 0, 0}, v3{9, 0, 0}
	want := map[v3]bool{{1, 0.625, 0}: true, {4, 0.625, 0}: true}
	check := func(name string, got fallback.Contact, normal v3) {
		t.Helper()
		if got.Count != 2 || got.Normal != normal || got.Depth != [2]float32{0.25, 0.25} ||
			!want[got.Point[0]] || !want[got.Point[1]] || got.Point[0] == got.Point[1] {
			t.Errorf("%s: %+v; want Count 2, Normal %v, Depth 0.25 twice, Points (1, 0.625, 0) and (4, 0.625, 0)", name, got, normal)
		}
	}
	check("stacked", ctLane(a, b, 0.5, c, d, 0.75, 0), v3{0, 1, 0})
	check("exchanged", ctLane(c, d, 0.75, a, b, 0.5, 0), v3{0, -1, 0})
	check("axis 2 reversed", ctLane(a, b, 0.5, d, c, 0.75, 0), v3{0, 1, 0})
	check("axis 1 reversed", ctLane(b, a, 0.5, c, d, 0.75, 0), v3{0, 1, 0})
	check("with margin", ctLane(a, b, 0.5, c, d, 0.75, 0.5), v3{0, 1, 0})

	// Apart by 1/4 but within a margin of 1/2: Count 2, depth -1/4.
	got := ctLane(a, b, 0.25, c, d, 0.5, 0.5)
	if got.Count != 2 || got.Depth != [2]float32{-0.25, -0.25} {
		t.Errorf("gap 1/4 within margin 1/2: %+v, want Count 2 and Depth -0.25 twice", got)
	}
	// Apart beyond the margin: Count 0.
	if got := ctLane(a, b, 0.25, c, d, 0.5, 0.125); got.Count != 0 {
		t.Errorf("gap 1/4 with margin 1/8: Count %d, want 0", got.Count)
	}
	// End to end (the projections share one point) and disjoint: Count 1.
	if got := ctLane(v3{0, 1, 0}, v3{1, 1, 0}, 0.5, v3{1, 0, 0}, v3{2, 0, 0}, 0.75, 0); got.Count != 1 {
		t.Errorf("projections touching at one point: Count %d, want 1 (%+v)", got.Count, got)
	}
	if got := ctLane(v3{0, 1, 0}, v3{1, 1, 0}, 1, v3{1.5, 0, 0}, v3{2, 0, 0}, 1, 0); got.Count != 1 {
		t.Errorf("disjoint projections: Count %d, want 1 (%+v)", got.Count, got)
	}
	// A sphere never gets two points, even on a parallel-looking pair.
	if got := ctLane(v3{2, 1, 0}, v3{2, 1, 0}, 0.5, c, d, 0.75, 0); got.Count != 1 {
		t.Errorf("sphere on a capsule: Count %d, want 1", got.Count)
	}
}

// TestContactLaneParallelTolerance tilts axis 2 of a stacked pair to
// angles whose squared sine is 1/2 and 2 times ParallelTolerance2: the
// first is a two-point manifold, the second a single point, whichever
// capsule comes first and whichever way the tilt goes. At half the
// tolerance the two depths differ by the tilt over the overlap, each
// measured along the common normal.
func TestContactLaneParallelTolerance(t *testing.T) {
	for _, f := range []float64{0.5, 2} {
		for _, sign := range []float64{1, -1} {
			s := sign * math.Sqrt(f*fallback.ParallelTolerance2) // sin
			k := s / math.Sqrt(1-s*s)                            // tan
			a, b := [3]float32{0, 1, 0}, [3]float32{4, 1, 0}
			c, d := [3]float32{1, float32(-k * 4), 0}, [3]float32{9, float32(k * 4), 0}
			want := uint32(2)
			if f > 1 {
				want = 1
			}
			for _, swap := range []bool{false, true} {
				var got fallback.Contact
				if swap {
					got = ctLane(c, d, 0.75, a, b, 0.5, 0)
				} else {
					got = ctLane(a, b, 0.5, c, d, 0.75, 0)
				}
				if got.Count != want {
					t.Errorf("sin^2 = %g x tolerance, tilt %+g, swapped %v: Count %d, want %d (%+v)", f, sign, swap, got.Count, want, got)
				}
				if got.Count == 2 && got.Depth[0] == got.Depth[1] {
					t.Errorf("sin^2 = %g x tolerance, tilt %+g: equal depths %v on a tilted pair", f, sign, got.Depth)
				}
			}
		}
	}
}

// TestContactLaneNonFinite replaces each of the fourteen lane inputs (the
// twelve coordinates and the two radii) by each non-finite value of
// verify.NonFinite: Count 0 and the canonical NaN (0x7FC00000) in every
// float, whatever the payload or sign of the input NaN.
func TestContactLaneNonFinite(t *testing.T) {
	base := [15]float32{0, 1, 0, 4, 1, 0, 0.5, 1, 0, 0, 9, 0, 0, 0.75, 0.125}
	for i := range 14 {
		for _, v := range verify.NonFinite() {
			in := base
			in[i] = v
			c := fallback.ContactLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11], in[12], in[13], in[14])
			if !verify.IsNaNContact(c) {
				t.Errorf("input %d = %v (bits %#08x): %+v, want Count 0 and the canonical NaN everywhere", i, v, math.Float32bits(v), c)
			}
		}
	}
	// Finite radii whose sum overflows.
	c := ctLane([3]float32{}, [3]float32{1, 0, 0}, math.MaxFloat32, [3]float32{0, 1, 0}, [3]float32{1, 1, 0}, math.MaxFloat32, 0)
	if !verify.IsNaNContact(c) {
		t.Errorf("r1 + r2 overflows: %+v, want the canonical NaN lane", c)
	}
}

// TestContactLaneTinyAxes guards the fix for axes shorter than about
// 1.1e-19 (|D-C|^2 subnormal, whose reciprocal overflowed and turned 0 x
// Inf into NaN): capsules with axes 2^-55 to 2^-80 long along z, either
// capsule, against a unit capsule along x 1 away, must give finite
// contacts with Count 1 (radii 1/2 each: touching) and depth within 8
// eps32 of 0. (Along x the tiny axis would be parallel to the other one
// and rightly get a two-point manifold.)
func TestContactLaneTinyAxes(t *testing.T) {
	for k := 55; k <= 80; k++ {
		l := float32(math.Ldexp(1, -k))
		tiny := [2][3]float32{{0, 0, 0}, {0, 0, l}}
		unit := [2][3]float32{{0, 1, 0}, {1, 1, 0}}
		for _, swap := range []bool{false, true} {
			var c fallback.Contact
			if swap {
				c = ctLane(tiny[0], tiny[1], 0.5, unit[0], unit[1], 0.5, 0)
			} else {
				c = ctLane(unit[0], unit[1], 0.5, tiny[0], tiny[1], 0.5, 0)
			}
			if c.Count != 1 || !(math.Abs(float64(c.Depth[0])) <= 8*verify.Eps32) {
				t.Errorf("axis 2^-%d long (first %v): %+v, want Count 1, depth 0", k, swap, c)
			}
		}
		if _, _, d2 := fallback.ClosestLane(0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, l); d2 != 1 {
			t.Errorf("ClosestLane, segment 2 2^-%d long: Dist2 = %v, want 1", k, d2)
		}
	}
}

// TestContactLaneNaNIsCanonical checks the NaN rule beyond MaxRange:
// finite coordinates so large that intermediate values overflow may give
// a NaN lane, but then the whole lane must be the canonical NaN with
// Count 0. A NaN made by the hardware from Inf/Inf or 0 x Inf has a sign
// and payload that differ between architectures (0xFFC00000 on amd64,
// 0x7FC00000 on arm64), so a partial NaN breaks the bit-identity across
// GOARCHes that package fallback promises. The first case below is a
// two-point manifold whose second point is such a NaN: |B-A|^2 overflows
// to +Inf and s_k = (Q_k-A).M0 / |M0|^2 becomes Inf/Inf. Lanes whose
// depths stay finite are kept even where a point overflows: some of
// verify.BeyondRangeCapsulePairs must be such lanes, with a ±Inf point
// and no NaN.
func TestContactLaneNaNIsCanonical(t *testing.T) {
	cases := []verify.CapsulePair{
		{C1: verify.Capsule{A: [3]float32{-1.8446744e+19, -1.8446744e+19, -8.493731e+18}, B: [3]float32{-4.7395323e+18, 3.7661904e+18, 1.7971816e+18}, R: 1.1509184e+19},
			C2: verify.Capsule{A: [3]float32{-1.1480508e+19, -7.4392187e+18, -1.1118708e+19}, B: [3]float32{-1.8446744e+19, -4.1804795e+18, 0}, R: 1.0938517e+19}},
	}
	// Scaled stacked pairs through the overflow of |B-A|^2 (about 1.8e19).
	for _, s := range []float32{1e18, 1e19, 1.5e19, 1.9e19, 2e19, 3e19, 1e20, 1e30} {
		cases = append(cases, verify.CapsulePair{
			C1: verify.Capsule{A: [3]float32{0, 0, 0}, B: [3]float32{s, 0, 0}, R: s / 4},
			C2: verify.Capsule{A: [3]float32{s / 4, s / 8, 0}, B: [3]float32{s, s / 8, 0}, R: s / 4}})
	}
	cases = append(cases, verify.BeyondRangeCapsulePairs(verify.NewRand(contactSeed, 99), 30000)...)
	bad, keptInf := 0, 0
	for _, p := range cases {
		for _, q := range []verify.CapsulePair{p, p.Swap()} {
			c := q.Lane(0)
			anyNaN, anyInf := false, false
			for _, x := range []float32{c.Depth[0], c.Depth[1], c.Normal[0], c.Normal[1], c.Normal[2],
				c.Point[0][0], c.Point[0][1], c.Point[0][2], c.Point[1][0], c.Point[1][1], c.Point[1][2]} {
				anyNaN = anyNaN || x != x
				anyInf = anyInf || math.IsInf(float64(x), 0)
			}
			if anyInf && !anyNaN {
				keptInf++
			}
			if anyNaN && !verify.IsNaNContact(c) {
				if bad < 3 {
					t.Errorf("%s: %+v (Depth bits %#08x %#08x): a NaN output must make the whole lane the canonical NaN with Count 0",
						q, c, math.Float32bits(c.Depth[0]), math.Float32bits(c.Depth[1]))
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lanes beyond MaxRange have a partial or non-canonical NaN", bad, 2*len(cases))
	}
	if keptInf == 0 {
		t.Errorf("no lane of %d kept a point overflowed to ±Inf: the cases miss what they are for", 2*len(cases))
	}
}

// TestClosestPointLaneExact checks ClosestPointLane on the point-segment
// pairs of every closest-point category (point A against segment CD):
// T in [0,1], the distance within 8 eps32 x scale of the exact minimum
// (rational arithmetic) and of the float64 ReferenceClosestPoint, and the
// exact distance at the reported T within 8 eps32 x scale of the minimum
// (optimality).
func TestClosestPointLaneExact(t *testing.T) {
	const bound = 8.0
	for k, cat := range verify.Categories() {
		t.Run(cat.Name, func(t *testing.T) {
			r := verify.NewRand(contactSeed, 200+uint64(k))
			var dist, opt, ref ctWorst
			for range contactPerCategory() {
				p := cat.Gen(r)
				p.B = p.A // the point A, as a zero-length segment for the oracle
				tt, d2 := fallback.ClosestPointLane(p.A[0], p.A[1], p.A[2], p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2])
				if !(tt >= 0 && tt <= 1) || !(d2 >= 0 && d2 <= math.MaxFloat32) {
					t.Fatalf("%v: ClosestPointLane = %v, %v", p, tt, d2)
				}
				sc := verify.Scale(p)
				ex := verify.ExactMinDist2(p)
				what := func() string { return fmt.Sprintf("%v", p) }
				dist.add(verify.ErrEps(verify.DistErr(float64(d2), ex), sc), what)
				at := verify.Dist(verify.ExactDist2At(p, 0, float64(tt)))
				opt.add(verify.ErrEps(math.Max(0, at-verify.Dist(ex)), sc), what)
				_, rd2 := fallback.ReferenceClosestPoint(ctWiden(p.A), ctWiden(p.C), ctWiden(p.D))
				ref.add(verify.ErrEps(math.Abs(math.Sqrt(float64(d2))-math.Sqrt(rd2)), sc), what)
			}
			t.Logf("worst: distance %.3g eps32 x scale (vs reference %.3g), optimality %.3g", dist.v, ref.v, opt.v)
			for _, w := range []struct {
				name string
				w    ctWorst
			}{{"distance", dist}, {"distance vs ReferenceClosestPoint", ref}, {"optimality", opt}} {
				if !(w.w.v <= bound) {
					t.Errorf("%s error %.3g eps32 x scale > %g for %s", w.name, w.w.v, bound, w.w.what)
				}
			}
		})
	}
}

func ctWiden(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

// TestClosestPointLaneDegenerate checks the documented special cases: a
// zero-length segment gives T = 0 and exactly the float32 point distance
// |P-C|^2 (the Dist2 ClosestLane gives for the two points); a point on the
// segment gives distance 0 at its parameter; points beyond the ends clamp
// T to 0 or 1; non-finite input gives the canonical NaN in both outputs.
func TestClosestPointLaneDegenerate(t *testing.T) {
	r := verify.NewRand(contactSeed, 300)
	for range 1000 {
		p, c := [3]float32{}, [3]float32{}
		for i := range 3 {
			p[i] = float32(r.NormFloat64() * 10)
			c[i] = float32(r.NormFloat64() * 10)
		}
		tt, d2 := fallback.ClosestPointLane(p[0], p[1], p[2], c[0], c[1], c[2], c[0], c[1], c[2])
		_, _, want := fallback.ClosestLane(p[0], p[1], p[2], p[0], p[1], p[2], c[0], c[1], c[2], c[0], c[1], c[2])
		if tt != 0 || !ctBits(d2, want) {
			t.Fatalf("P=%v C=D=%v: T, Dist2 = %v, %v; want 0, %v", p, c, tt, d2, want)
		}
		ex := verify.ExactMinDist2(soa.Pair{A: p, B: p, C: c, D: c})
		if e := verify.ErrEps(verify.DistErr(float64(d2), ex), verify.Scale(soa.Pair{A: p, B: p, C: c, D: c})); e > 2 {
			t.Fatalf("P=%v C=D=%v: point distance error %.3g eps32 x scale", p, c, e)
		}
	}
	for _, tc := range []struct {
		p, c, d [3]float32
		t, d2   float32
	}{
		{[3]float32{1, 0, 0}, [3]float32{0, 0, 0}, [3]float32{4, 0, 0}, 0.25, 0},
		{[3]float32{-3, 4, 0}, [3]float32{0, 0, 0}, [3]float32{4, 0, 0}, 0, 25},
		{[3]float32{7, 0, 4}, [3]float32{0, 0, 0}, [3]float32{4, 0, 0}, 1, 25},
		{[3]float32{2, 3, 0}, [3]float32{4, 0, 0}, [3]float32{0, 0, 0}, 0.5, 9},
	} {
		tt, d2 := fallback.ClosestPointLane(tc.p[0], tc.p[1], tc.p[2], tc.c[0], tc.c[1], tc.c[2], tc.d[0], tc.d[1], tc.d[2])
		if tt != tc.t || d2 != tc.d2 {
			t.Errorf("P=%v C=%v D=%v: %v, %v; want %v, %v", tc.p, tc.c, tc.d, tt, d2, tc.t, tc.d2)
		}
	}
	for i := range 9 {
		for _, v := range verify.NonFinite() {
			in := [9]float32{1, 2, 3, 0, 0, 0, 4, 0, 0}
			in[i] = v
			tt, d2 := fallback.ClosestPointLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8])
			if math.Float32bits(tt) != verify.CanonicalNaNBits || math.Float32bits(d2) != verify.CanonicalNaNBits {
				t.Errorf("input %d = %v: %v, %v (bits %#08x %#08x), want the canonical NaN in both", i, v, tt, d2, math.Float32bits(tt), math.Float32bits(d2))
			}
		}
	}
}

// TestReferenceContactExact checks the float64 oracle itself on cases
// with exactly known answers, so that a mistake in it cannot hide one in
// the kernel: the stacked pair of TestContactLaneStackedManifold, two
// spheres, a sphere on a capsule's side, crossing axes and the tilted
// pairs on both sides of the parallel tolerance.
func TestReferenceContactExact(t *testing.T) {
	type v3 = [3]float64
	n, depth, normal, pts := 0, [2]float64{}, v3{}, [2]v3{}
	n, depth, normal, pts = fallback.ReferenceContact(v3{0, 1, 0}, v3{4, 1, 0}, 0.5, v3{1, 0, 0}, v3{9, 0, 0}, 0.75, 0)
	if n != 2 || depth != [2]float64{0.25, 0.25} || normal != (v3{0, 1, 0}) || pts != [2]v3{{1, 0.625, 0}, {4, 0.625, 0}} {
		t.Errorf("stacked: %v %v %v %v", n, depth, normal, pts)
	}
	n, depth, normal, pts = fallback.ReferenceContact(v3{0, 0, 0}, v3{0, 0, 0}, 1, v3{1.5, 0, 0}, v3{1.5, 0, 0}, 1, 0)
	if n != 1 || depth[0] != 0.5 || normal != (v3{-1, 0, 0}) || pts[0] != (v3{0.75, 0, 0}) {
		t.Errorf("spheres: %v %v %v %v", n, depth, normal, pts)
	}
	n, depth, normal, pts = fallback.ReferenceContact(v3{1, 2, 0}, v3{1, 2, 0}, 0.5, v3{0, 0, 0}, v3{4, 0, 0}, 1, 0.5)
	if n != 1 || depth[0] != -0.5 || normal != (v3{0, 1, 0}) || pts[0] != (v3{1, 1.25, 0}) {
		t.Errorf("sphere beside a capsule within the margin: %v %v %v %v", n, depth, normal, pts)
	}
	if n, _, _, _ = fallback.ReferenceContact(v3{1, 2, 0}, v3{1, 2, 0}, 0.5, v3{0, 0, 0}, v3{4, 0, 0}, 1, 0.25); n != 0 {
		t.Errorf("sphere beside a capsule beyond the margin: count %d", n)
	}
	n, depth, normal, _ = fallback.ReferenceContact(v3{-1, 0, 0}, v3{1, 0, 0}, 0.5, v3{0, -1, 0}, v3{0, 1, 0}, 0.25, 0)
	if n != 1 || depth[0] != 0.75 || normal != (v3{0, 0, 1}) {
		t.Errorf("crossing: %v %v %v", n, depth, normal)
	}
	for _, f := range []float64{0.5, 2} {
		s := math.Sqrt(f * fallback.ParallelTolerance2)
		k := s / math.Sqrt(1-s*s)
		n, _, _, _ = fallback.ReferenceContact(v3{0, 1, 0}, v3{4, 1, 0}, 0.5, v3{1, -4 * k, 0}, v3{9, 4 * k, 0}, 0.75, 0)
		if want := map[float64]int{0.5: 2, 2: 1}[f]; n != want {
			t.Errorf("tilt sin^2 = %g x tolerance: count %d, want %d", f, n, want)
		}
	}
	if ct, d2 := fallback.ReferenceClosestPoint(v3{2, 3, 0}, v3{4, 0, 0}, v3{0, 0, 0}); ct != 0.5 || d2 != 9 {
		t.Errorf("ReferenceClosestPoint: %v, %v", ct, d2)
	}
}

// ctContactsHash returns the hex SHA-256 of every row of c: Pair and
// Count, then the eleven float streams, as little-endian bits.
func ctContactsHash(c *soa.Contacts) string {
	h := sha256.New()
	var b [4]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(b[:], v)
		h.Write(b[:])
	}
	for k := range c.Len() {
		put(c.Pair[k])
		put(c.Count[k])
	}
	for _, s := range [][]float32{c.Depth1, c.Depth2, c.NX, c.NY, c.NZ, c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z} {
		for _, x := range s {
			put(math.Float32bits(x))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ctGoldenScene is the fixed scene of TestContactGolden: 16 pairs of every
// capsule category (margin 1/64) plus 500 random pairs over them, and one
// capsule with a NaN coordinate.
func ctGoldenScene() (soa.Capsules, *soa.IndexPairs) {
	ps := verify.MixedCapsulePairs(0x601D, 16, 0x1p-6)
	caps, pairs := verify.SceneFromPairs(verify.NewRand(0x601D, 1), ps)
	extra := verify.RandomIndexPairs(verify.NewRand(0x601D, 2), caps.Len(), 500)
	for k := range extra.Len() {
		pairs.Append(extra.I[k], extra.J[k])
	}
	caps[7].A[2] = float32(math.NaN())
	return caps, pairs
}

// ctGoldenHash pins the bits of ContactLane on every pair of ctGoldenScene,
// the operation order of ContactLane on every GOARCH (the kernel tests
// hold every SIMD path to the same bits). If it changes, ContactLane's
// operation order changed (or the capsule generators did): update it only
// on purpose, together with the assembly; print the new value with
// go test ./fallback -run ContactGolden -v.
const ctGoldenHash = "19772a53d09877b121ec89af614c9a9527e3bae3afd39710ba6f65398267d3a1"

// TestContactGolden checks ctGoldenHash.
func TestContactGolden(t *testing.T) {
	caps, pairs := ctGoldenScene()
	dst := soa.NewContacts(pairs.Len())
	verify.BatchContactsSpec(dst, caps, pairs, 0x1p-6)
	got := ctContactsHash(dst)
	t.Logf("contact golden hash %s (%d pairs)", got, pairs.Len())
	if got != ctGoldenHash {
		t.Errorf("hash of BatchContacts on the golden scene = %s, want %s", got, ctGoldenHash)
	}
}

// An end of one axis near the inside of the other, within the touching
// band (8 to 64 eps32 of the pair's length): the axes do not cross, and
// the normal follows P-Q, not the cross product of the axes. Before the
// cross product was limited to r along it (perpTol2), it was used across
// the whole band, up to 90 degrees off (FuzzContact's seed 5882f8cc4ed3c923:
// 49 degrees).
func TestContactLaneEndNearAxis(t *testing.T) {
	worst, worstRel, bounded := 0.0, 0.0, 0
	for _, p := range verify.EndNearAxisPairs(12, 20000) {
		c := p.Lane(0)
		a, bound := verify.EndNormalAngle(p, c.Normal)
		if !(a <= bound) {
			t.Fatalf("%v: normal %v is %.1f degrees off P-Q, bound %.1f", p, c.Normal, a*180/math.Pi, bound*180/math.Pi)
		}
		if bound < math.Pi {
			bounded++
			worst, worstRel = math.Max(worst, a), math.Max(worstRel, a/bound)
		}
	}
	if bounded < 15000 {
		t.Fatalf("only %d of 20000 pairs far enough from the axis to bound their normal", bounded)
	}
	t.Logf("%d of 20000 ends near an axis bounded: worst normal %.2f degrees off P-Q, %.2f of its bound", bounded, worst*180/math.Pi, worstRel)
}

// Axes that cross within float32 resolution get a normal along their
// cross product (a few degrees at most), whatever the rounding noise of
// P-Q, and the reproducer: 1/3 rounds, so the first pair's axes
// miss by about 1e-8, the second pair's cross exactly.
func TestContactLaneCrossingWithinResolution(t *testing.T) {
	worst := 0.0
	for _, p := range verify.CrossingPairs(11, 20000) {
		c := p.Lane(0)
		a := verify.CrossNormalAngle(p, c.Normal)
		worst = math.Max(worst, a)
		if a > 4*math.Pi/180 {
			t.Fatalf("%v: normal %v is %.1f degrees off the cross product of the axes", p, c.Normal, a*180/math.Pi)
		}
	}
	t.Logf("20000 pairs crossing within 64 eps32 x scale: worst normal %.2f degrees off ±(M0 x M1)", worst*180/math.Pi)
	axis := verify.Capsule{A: [3]float32{0, 0, 0}, B: [3]float32{3, 1, 0}, R: 0.5}
	want := [3]float32{0.316227766, -0.948683298, 0} // axis x z, normalised: ±
	for _, c2 := range []verify.Capsule{
		{A: [3]float32{1, 1.0 / 3, -1}, B: [3]float32{1, 1.0 / 3, 1}, R: 0.5},
		{A: [3]float32{1.5, 0.5, -1}, B: [3]float32{1.5, 0.5, 1}, R: 0.5},
	} {
		p := verify.CapsulePair{C1: axis, C2: c2}
		n := p.Lane(0).Normal
		if a := verify.CrossNormalAngle(p, n); a > 1e-5 {
			t.Errorf("%v: normal %v, want ±%v", p, n, want)
		}
	}
}
