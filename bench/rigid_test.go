package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segdist/segdist/kernel"
)

// rigidKernels returns every available path, best first, and the go path.
func rigidKernels(t *testing.T) ([]kernel.Kernel, kernel.Kernel) {
	t.Helper()
	var ks []kernel.Kernel
	for _, isa := range kernel.Available() {
		k, ok := kernel.Lookup(isa)
		if !ok {
			t.Fatalf("kernel.Lookup(%q) failed", isa)
		}
		ks = append(ks, k)
	}
	kgo, ok := kernel.Lookup("go")
	if !ok {
		t.Fatal(`no "go" path`)
	}
	return ks, kgo
}

// TestRigidScene runs a small scene to rest with every phase verified:
// every substep bit for bit on every path, every fourth against the
// references; the bodies end at rest, above the ground, inside the walls.
func TestRigidScene(t *testing.T) {
	ks, kgo := rigidKernels(t)
	cfg := defaultRigid(40, 240)
	cfg.checkEvery = 4
	r := runRigid(cfg, ks, kgo, &logger{})
	for _, p := range r.problems {
		t.Error(p)
	}
	for _, e := range r.examples {
		t.Log(e)
	}
	wantPaths := slices.Clone(kernel.Available())
	if !slices.Contains(wantPaths, "go") {
		wantPaths = append(wantPaths, "go")
	}
	if !slices.Equal(r.paths, wantPaths) {
		t.Errorf("paths checked %v, want %v", r.paths, wantPaths)
	}
	if want := (r.substeps + cfg.checkEvery - 1) / cfg.checkEvery; r.substeps != 2*cfg.steps || r.checkedSubsteps != want {
		t.Errorf("%d substeps, %d checked against the references; want %d, %d", r.substeps, r.checkedSubsteps, 2*cfg.steps, want)
	}
	// The scene must exercise every kernel: touching capsules, bodies on
	// the ground, capsules lying flat (two-point plane rows).
	if r.rows == 0 || r.planeRows == 0 || r.planeTwoPoint == 0 || r.checkedRows == 0 || r.checkedPlanes == 0 {
		t.Errorf("capsule rows %d, plane rows %d (%d two-point), checked %d capsule and %d plane pairs; want all > 0",
			r.rows, r.planeRows, r.planeTwoPoint, r.checkedRows, r.checkedPlanes)
	}
	if r.nan || !(r.sink <= rigidBoundTol) || !(r.escape <= rigidBoundTol) {
		t.Errorf("end state: NaN %v, %v into the ground, %v beyond a wall (tolerance %v)", r.nan, r.sink, r.escape, rigidBoundTol)
	}
	if !r.atRest {
		t.Errorf("not at rest after %d steps: largest speed %v, spin x bound %v (limit %v)", cfg.steps, r.maxSpeed, r.maxSpin, rigidRestSpeed)
	}

	var b strings.Builder
	if err := writeRigid(&b, r); err != nil {
		t.Fatal(err)
	}
	writeRigidVerified(&b, r)
	out := b.String()
	for _, want := range append(rigidPhases[:], "rigid:", "us/step", "ns/item", "end state: at rest", "verified:  rigid", "fallback.PoseCapsuleLane") {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
}

// finalState returns the poses and velocities after steps steps driven
// by k, without checks.
func finalState(cfg rigidConfig, k kernel.Kernel) [][3]float32 {
	w := newRigidWorld(cfg, k)
	var t [len(rigidPhases)]time.Duration
	for range cfg.steps * cfg.substeps {
		w.substep(&t, nil)
	}
	var out [][3]float32
	for i := range w.n {
		q := w.quat(i)
		out = append(out, w.pos(i), [3]float32{q[0], q[1], q[2]}, [3]float32{q[3]}, w.vel[i], w.angVel[i])
	}
	return out
}

// TestRigidDeterministic checks that the scene is reproducible and, since
// every path writes the same bits, the same whichever path drives it.
func TestRigidDeterministic(t *testing.T) {
	ks, kgo := rigidKernels(t)
	cfg := defaultRigid(30, 60)
	want := finalState(cfg, kgo)
	bits := func(s [][3]float32) []uint32 {
		var b []uint32
		for _, v := range s {
			for _, x := range v {
				b = append(b, math.Float32bits(x))
			}
		}
		return b
	}
	for _, k := range ks {
		if got := finalState(cfg, k); !slices.Equal(bits(got), bits(want)) {
			t.Errorf("%s: the final state differs from the go path's", k.ISA())
		}
	}
	if got := finalState(cfg, ks[0]); !slices.Equal(bits(got), bits(finalState(cfg, ks[0]))) {
		t.Errorf("%s: two runs differ", ks[0].ISA())
	}
}

// TestRigidNoAllocs checks that a substep allocates nothing once its
// buffers have grown.
func TestRigidNoAllocs(t *testing.T) {
	ks, _ := rigidKernels(t)
	w := newRigidWorld(defaultRigid(60, 0), ks[0])
	var tm [len(rigidPhases)]time.Duration
	for range 120 {
		w.substep(&tm, nil)
	}
	if a := testing.AllocsPerRun(20, func() { w.substep(&tm, nil) }); a != 0 {
		t.Errorf("%v allocations per substep", a)
	}
}

// TestRigidBroadphase compares the grid's pairs with every pair of
// bodies, and the plane pairs with every (body, plane), while the bodies
// fall, land and pile up (some above the grid, which clamps them).
func TestRigidBroadphase(t *testing.T) {
	ks, _ := rigidKernels(t)
	w := newRigidWorld(defaultRigid(120, 0), ks[0])
	var tm [len(rigidPhases)]time.Duration
	for sub := range 121 {
		if sub%30 == 0 {
			w.broadphase()
			var got, want [][2]uint32
			for k := range w.pairs.Len() {
				got = append(got, [2]uint32{w.pairs.I[k], w.pairs.J[k]})
			}
			px, py, pz := w.poses.PX, w.poses.PY, w.poses.PZ
			for i := range w.n {
				for j := i + 1; j < w.n; j++ {
					ex, ey, ez := px[i]-px[j], py[i]-py[j], pz[i]-pz[j]
					rr := w.bound[i] + w.bound[j] + rigidMargin
					if ex*ex+ey*ey+ez*ez <= rr*rr {
						want = append(want, [2]uint32{uint32(i), uint32(j)})
					}
				}
			}
			cmp := func(a, b [2]uint32) int {
				if a[0] != b[0] {
					return int(a[0]) - int(b[0])
				}
				return int(a[1]) - int(b[1])
			}
			slices.SortFunc(got, cmp)
			if !slices.Equal(got, want) {
				t.Errorf("substep %d: grid pairs %d, brute force %d", sub, len(got), len(want))
			}
			var gotP, wantP [][2]uint32
			for k := range w.planePairs.Len() {
				gotP = append(gotP, [2]uint32{w.planePairs.I[k], w.planePairs.J[k]})
			}
			for i := range w.n {
				for pl, p := range w.planes {
					if p.N[0]*px[i]+p.N[1]*py[i]+p.N[2]*pz[i]-p.D <= w.bound[i]+rigidMargin {
						wantP = append(wantP, [2]uint32{uint32(i), uint32(pl)})
					}
				}
			}
			if !slices.Equal(gotP, wantP) {
				t.Errorf("substep %d: plane pairs %d, brute force %d", sub, len(gotP), len(wantP))
			}
			if sub > 0 && (len(want) == 0 || len(wantP) == 0) {
				t.Errorf("substep %d: %d pairs, %d plane pairs; the test needs some of each", sub, len(want), len(wantP))
			}
		}
		w.substep(&tm, nil)
	}
}

// TestRigidCheckDetects corrupts the records and rows the solver is about
// to consume and expects the checks to report it.
func TestRigidCheckDetects(t *testing.T) {
	ks, kgo := rigidKernels(t)
	for _, c := range []struct {
		name    string
		corrupt func(w *rigidWorld)
		want    string
	}{
		{"none", func(w *rigidWorld) {}, ""},
		{"record", func(w *rigidWorld) { w.caps[3].B[1] = math.Nextafter32(w.caps[3].B[1], 10) }, "poses"},
		{"capsule row", func(w *rigidWorld) { w.rows.Depth1[0] += 0.01 }, "capsule contacts"},
		{"capsule row dropped", func(w *rigidWorld) { w.nRows-- }, "capsule contacts"},
		{"plane row", func(w *rigidWorld) { w.planeRows.Depth1[0] += 0.01 }, "plane contacts"},
		{"plane row dropped", func(w *rigidWorld) { w.nPlaneRows-- }, "plane contacts"},
	} {
		w := newRigidWorld(defaultRigid(60, 0), ks[0])
		ch := newRigidChecker(w, ks, kgo)
		var tm [len(rigidPhases)]time.Duration
		for range 150 { // until the bodies have landed
			w.substep(&tm, nil)
		}
		var res rigidResult
		w.substep(&tm, func() {
			if w.nRows == 0 || w.nPlaneRows == 0 {
				t.Fatalf("%d capsule rows, %d plane rows: nothing to corrupt", w.nRows, w.nPlaneRows)
			}
			c.corrupt(w)
			w.check(&res, ch, true)
		})
		all := strings.Join(res.problems, "\n")
		switch {
		case c.want == "" && len(res.problems) > 0:
			t.Errorf("%s: problems reported:\n%s", c.name, all)
		case c.want != "" && !strings.Contains(all, c.want):
			t.Errorf("%s: no problem mentions %q:\n%s", c.name, c.want, all)
		}
	}
}
