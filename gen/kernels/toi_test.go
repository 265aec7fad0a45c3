package kernels

import (
	"math"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// evalTOI runs the three TOI bodies on one pair as a loop driver does:
// setup, steps until the lane stops, finish. It returns the finish
// outputs as bits and the number of steps run.
func evalTOI[F soa.Float](progs [3]*ir.Program, run func(p *ir.Program, in, args []F) []uint64, i, j fallback.SweptCapsuleOf[F], prm fallback.TOIParamsOf[F]) ([]uint64, int) {
	capIn := func(c *fallback.SweptCapsuleOf[F], end bool) []F {
		a, bb, r := c.A0, c.B0, c.R0
		if end {
			a, bb, r = c.A1, c.B1, c.R1
		}
		return []F{a[0], a[1], a[2], bb[0], bb[1], bb[2], r}
	}
	in := append(append(append(capIn(&i, false), capIn(&j, false)...), append(capIn(&i, true), capIn(&j, true)...)...), i.Pad, j.Pad)
	frame := run(progs[0], in, []F{prm.Margin, prm.Tol, prm.TMax})
	fromBits := func(bs []uint64) []F {
		out := make([]F, len(bs))
		for k, b := range bs {
			if is32[F]() {
				out[k] = F(math.Float32frombits(uint32(b)))
			} else {
				out[k] = F(math.Float64frombits(b))
			}
		}
		return out
	}
	state := fromBits(frame)
	steps := 0
	for {
		out := run(progs[1], state, []F{prm.TMax, F(max(prm.MaxIter, 1))})
		steps++
		copy(state[TOIState:], fromBits(out[:3]))
		if out[3] == 0 {
			break
		}
		if steps > 1000 {
			panic("no end")
		}
	}
	return run(progs[2], append(state, j.A0[0], j.A0[1], j.A0[2]), nil), steps
}

func is32[F soa.Float]() bool { var x F; return any(x) == any(float32(0)) }

func run32(p *ir.Program, in, args []float32) []uint64 {
	out := p.Eval(in, args)
	r := make([]uint64, len(out))
	for k, b := range out {
		r[k] = uint64(b)
	}
	return r
}

func run64(p *ir.Program, in, args []float64) []uint64 { return p.Eval64(in, args) }

// wantTOI is the spec's result as TOIFinish's outputs.
func wantTOI[F soa.Float](r fallback.TOIOf[F]) []uint64 {
	fs := []F{F(r.Status), F(r.Iter), r.T, r.Dist, r.Normal[0], r.Normal[1], r.Normal[2], r.P[0], r.P[1], r.P[2], r.Q[0], r.Q[1], r.Q[2]}
	out := make([]uint64, len(fs))
	for k, x := range fs {
		if is32[F]() {
			out[k] = uint64(math.Float32bits(float32(x)))
		} else {
			out[k] = math.Float64bits(float64(x))
		}
	}
	return out
}

func checkTOIBodies[F soa.Float](t *testing.T, elem ir.Elem, run func(p *ir.Program, in, args []F) []uint64) {
	progs := [3]*ir.Program{TOISetup.ProgramOf(elem), TOIStep.ProgramOf(elem), TOIFinish.ProgramOf(elem)}
	statuses := map[fallback.TOIStatus]int{}
	for ci, cat := range verify.TOICategories() {
		for _, c64 := range verify.TOICases[float64](cat, uint64(70+ci), 0, 60) {
			c := c64
			var i, j fallback.SweptCapsuleOf[F]
			var prm fallback.TOIParamsOf[F]
			if is32[F]() {
				n := verify.NarrowTOI(c)
				i, j = any(n.I).(fallback.SweptCapsuleOf[F]), any(n.J).(fallback.SweptCapsuleOf[F])
				prm = any(n.Params).(fallback.TOIParamsOf[F])
			} else {
				i, j = any(c.I).(fallback.SweptCapsuleOf[F]), any(c.J).(fallback.SweptCapsuleOf[F])
				prm = any(c.Params).(fallback.TOIParamsOf[F])
			}
			for v := range 5 {
				i, j, prm := i, j, prm
				switch v {
				case 1: // few iterations: Unconverged
					prm.MaxIter = 2
				case 2: // a non-finite value in one field
					bad := []F{F(math.NaN()), F(math.Inf(1)), F(math.Inf(-1))}[ci%3]
					(&[4]*[3]F{&i.A0, &i.B1, &j.A1, &j.B0})[ci%4][ci%3] = bad
				case 4: // finite coordinates whose difference overflows
					huge := F(math.MaxFloat32) / 4 * 3
					if !is32[F]() {
						h := math.MaxFloat64 / 4 * 3
						huge = F(h)
					}
					(&[4]*[3]F{&i.A1, &j.B0, &i.B0, &j.A1})[ci%4][ci%3] = huge
					(&[4]*[3]F{&i.A0, &j.A0, &j.A0, &j.A0})[ci%4][ci%3] = -huge
				case 3: // a negative pad or radius
					if ci%2 == 0 {
						j.Pad = -1
					} else {
						i.R1 = -F(math.SmallestNonzeroFloat32)
					}
				}
				want := fallback.TOILaneOf(i, j, prm)
				if v == 4 && want.Status != fallback.TOIInvalid {
					t.Fatalf("%s %s: an overflowing difference gives %v, want invalid", elem, cat.Name, want.Status)
				}
				got, steps := evalTOI(progs, run, i, j, prm)
				w := wantTOI(want)
				for k := range w {
					if got[k] != w[k] {
						t.Fatalf("%s %s/%d: output %d = %#x, spec %#x (%+v)", elem, cat.Name, v, k, got[k], w[k], want)
					}
				}
				if want.Status != fallback.TOIInvalid && steps != int(want.Iter) {
					t.Fatalf("%s %s: %d steps, spec %d iterations", elem, cat.Name, steps, want.Iter)
				}
				statuses[want.Status]++
			}
		}
	}
	for _, s := range []fallback.TOIStatus{fallback.TOIMiss, fallback.TOIHit, fallback.TOIInitial, fallback.TOIUnconverged, fallback.TOIInvalid} {
		if statuses[s] == 0 {
			t.Errorf("%s: no %s case (%v)", elem, s, statuses)
		}
	}
}

// TestTOIBodies runs TOISetup, TOIStep and TOIFinish as a driver does on
// every TOI category against fallback.TOILane, bit for bit, in float32
// and float64.
func TestTOIBodies(t *testing.T) {
	checkTOIBodies[float32](t, ir.F32, run32)
	checkTOIBodies[float64](t, ir.F64, run64)
}
