package verify

import (
	"math"
	"testing"

	"github.com/segdist/segdist/fallback"
)

// TestCheckTOIKnown checks CheckTOI on two static spheres whose centres
// are exactly 1 apart, against results written by hand.
func TestCheckTOIKnown(t *testing.T) {
	sphere := func(x float64, r float64) fallback.SweptCapsule64 {
		p := [3]float64{x, 0, 0}
		return fallback.SweptCapsule64{A0: p, B0: p, A1: p, B1: p, R0: r, R1: r}
	}
	prm := fallback.TOIParams64{Tol: 1e-3, TMax: 1, MaxIter: 8}
	exactly := TOICase64{I: sphere(1, 0.5), J: sphere(0, 0.5), Params: prm} // target 1
	delta := TOIDelta(exactly, TOIDeltaMul)
	if delta <= 0 || delta > 1e-12 {
		t.Fatalf("δ = %v", delta)
	}
	beyond := exactly // target 1 + 2δ: d(0) = 1 lies below target - δ
	beyond.I.R0 += 2 * delta
	beyond.I.R1 = beyond.I.R0
	apart := exactly // target 1 - tol - 2δ: d(0) lies above target + tol + δ
	apart.I.R0 -= prm.Tol + 2*delta
	apart.I.R1 = apart.I.R0
	miss := fallback.TOI64{Status: fallback.TOIMiss, T: 0, Iter: 1}
	initial := fallback.TOI64{Status: fallback.TOIInitial, T: 0, Iter: 1}
	for _, c := range []struct {
		name string
		c    TOICase64
		res  fallback.TOI64
		want string
	}{
		{"touching, Initial", exactly, initial, ""},
		{"touching, Miss", exactly, miss, "initial"},
		{"overlapping, Miss", beyond, miss, "missed"},
		{"overlapping, Initial", beyond, initial, ""},
		{"apart, Miss", apart, miss, ""},
		{"apart, Initial", apart, initial, "false"},
		{"Initial at T > 0", exactly, fallback.TOI64{Status: fallback.TOIInitial, T: 0.5, Iter: 1}, "status"},
		{"Iter 0", apart, fallback.TOI64{Status: fallback.TOIMiss}, "status"},
		{"Invalid", apart, fallback.TOI64{Status: fallback.TOIInvalid}, "status"},
	} {
		chk := CheckTOI(c.c, c.res, TOIBudget)
		if chk.Fail != c.want || chk.Unproven != "" {
			t.Errorf("%s: %+v, want Fail %q", c.name, chk, c.want)
		}
	}
}

// TestCheckTOIPlanted plants wrong results into head-on cases that the
// spec resolves as hits, and requires CheckTOI to refute each: the hit
// reported as a Miss ("missed"), moved halfway to the end of the step
// where the capsules are clearly inside each other ("late"), or moved
// back to where they are clearly apart ("false").
func TestCheckTOIPlanted(t *testing.T) {
	testCheckTOIPlanted[float32](t)
	testCheckTOIPlanted[float64](t)
}

func testCheckTOIPlanted[F float32 | float64](t *testing.T) {
	counts := map[string]int{}
	for _, c := range TOICases[F](TOICategories()[0], 0x71, 0, 100) {
		res := c.Lane()
		if res.Status != fallback.TOIHit {
			continue
		}
		target, tol, _ := fallback.TOITargetOf(c.I, c.J, c.Params)
		delta := TOIDelta(c, TOIDeltaMul)
		w := WidenTOI(c)
		// Missed.
		planted := res
		planted.Status = fallback.TOIMiss
		if chk := CheckTOI(c, planted, TOIBudget); chk.Fail != "missed" {
			t.Errorf("a hit at %v reported as a Miss: %+v\n%s", res.T, chk, c)
		}
		counts["missed"]++
		// Late: halfway to the end, where sampling finds the axes clearly
		// within the target.
		planted = res
		planted.T = res.T + (1-res.T)/2
		deep := false
		for s := 0; s <= 100; s++ {
			tau := float64(res.T) + float64(s)/100*float64(planted.T-res.T)
			deep = deep || toiRefDist(w, tau) < float64(target)-2*delta-1e-9*TOIScale(c)
		}
		if deep {
			if chk := CheckTOI(c, planted, TOIBudget); chk.Fail != "late" {
				t.Errorf("a hit at %v reported at %v: %+v\n%s", res.T, planted.T, chk, c)
			}
			counts["late"]++
		}
		// False: half the time, if the axes are clearly apart there.
		planted = res
		planted.T = res.T / 2
		if toiRefDist(w, float64(planted.T)) > float64(target+tol)+2*delta+1e-9*TOIScale(c) {
			if chk := CheckTOI(c, planted, TOIBudget); chk.Fail != "false" {
				t.Errorf("a hit at %v reported at %v: %+v\n%s", res.T, planted.T, chk, c)
			}
			counts["false"]++
		}
	}
	for _, k := range []string{"missed", "late", "false"} {
		if counts[k] < 20 {
			t.Errorf("only %d planted %q results", counts[k], k)
		}
	}
}

// toiRefDist returns the float64 reference distance of the axes at τ.
func toiRefDist(c TOICase64, tau float64) float64 {
	var p [4][3]float64
	for k, e := range [4][2][3]float64{{c.I.A0, c.I.A1}, {c.I.B0, c.I.B1}, {c.J.A0, c.J.A1}, {c.J.B0, c.J.B1}} {
		for j := range 3 {
			p[k][j] = e[0][j] + tau*(e[1][j]-e[0][j])
		}
	}
	_, _, d2 := fallback.Reference(p[0], p[1], p[2], p[3])
	return math.Sqrt(d2)
}

// TestTOICasesDeterministic: the generators give the same cases for the
// same seed.
func TestTOICasesDeterministic(t *testing.T) {
	for k, cat := range TOICategories() {
		a := TOICases[float64](cat, 5, uint64(k), 20)
		b := TOICases[float64](cat, 5, uint64(k), 20)
		for i := range a {
			if a[i].String() != b[i].String() {
				t.Fatalf("%s: case %d differs between two runs", cat.Name, i)
			}
		}
	}
}
