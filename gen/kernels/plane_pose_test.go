package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/internal/verify"
)

// planeInputs returns the inputs of PlaneContact for a plane case.
func planeInputs(c verify.PlaneCase) []float32 {
	return []float32{c.A[0], c.A[1], c.A[2], c.B[0], c.B[1], c.B[2], c.R, c.N[0], c.N[1], c.N[2], 0, 0, 0, c.D}
}

// TestPlaneContactBody runs the plane body (as recorded, unparked and
// reordered) against fallback.PlaneContactLane on every plane category,
// with special values mixed in, in float32 and float64.
func TestPlaneContactBody(t *testing.T) {
	p := PlaneContact.ProgramOf(ir.F32)
	p64 := PlaneContact.ProgramOf(ir.F64)
	r := rand.New(rand.NewPCG(21, 22))
	counts := map[uint32]int{}
	for ci, cat := range verify.PlaneCategories() {
		for _, c := range cat.Generate(uint64(40+ci), 300) {
			base := planeInputs(c)
			for _, in := range [][]float32{base, coords(r, base, len(base))} {
				for _, prog := range []*ir.Program{p, ir.Schedule(p, scheduleLatency)} {
					want := fallback.PlaneContactLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[13], c.Margin)
					got := prog.Eval(in, []float32{c.Margin})
					same(t, "plane", in, got, append([]uint32{want.Count}, bits(want.Depth[0], want.Depth[1], want.Normal[0], want.Normal[1], want.Normal[2],
						want.Point[0][0], want.Point[0][1], want.Point[0][2], want.Point[1][0], want.Point[1][1], want.Point[1][2])...))
					counts[got[0]]++
				}
				in64 := make([]float64, len(in))
				for i, x := range in {
					in64[i] = float64(x)
				}
				w := fallback.PlaneContactLane64(in64[0], in64[1], in64[2], in64[3], in64[4], in64[5], in64[6], in64[7], in64[8], in64[9], in64[13], float64(c.Margin))
				got := p64.Eval64(in64, []float64{float64(c.Margin)})
				if got[0] != uint64(w.Count) {
					t.Fatalf("plane64%v: count %d, spec %d", in64, got[0], w.Count)
				}
				same64(t, "plane64", in64, got[1:], w.Depth[0], w.Depth[1], w.Normal[0], w.Normal[1], w.Normal[2],
					w.Point[0][0], w.Point[0][1], w.Point[0][2], w.Point[1][0], w.Point[1][1], w.Point[1][2])
			}
		}
	}
	if counts[0] == 0 || counts[1] == 0 || counts[2] == 0 {
		t.Errorf("counts %v: every count should occur", counts)
	}
}

// TestPoseBody runs the pose body against fallback.PoseCapsuleLane on
// random poses and local axes with special values mixed in, float32 and
// float64.
func TestPoseBody(t *testing.T) {
	p := Pose.ProgramOf(ir.F32)
	p64 := Pose.ProgramOf(ir.F64)
	r := rand.New(rand.NewPCG(23, 24))
	vr := verify.NewRand(25, 1)
	for range 3000 {
		q := verify.RandomQuaternion(vr)
		base := []float32{float32(r.NormFloat64() * 100), float32(r.NormFloat64()), float32(r.NormFloat64()),
			float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3]),
			float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.Float64()),
			float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
		for _, in := range [][]float32{base, coords(r, base, len(base))} {
			for _, prog := range []*ir.Program{p, ir.Schedule(p, scheduleLatency)} {
				a, b, rr := fallback.PoseCapsuleLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[11], in[12], in[13], in[10])
				same(t, "pose", in, prog.Eval(in, nil), bits(a[0], a[1], a[2], rr, b[0], b[1], b[2]))
			}
			in64 := make([]float64, len(in))
			for i, x := range in {
				in64[i] = float64(x)
			}
			a, b, rr := fallback.PoseCapsuleLane64(in64[0], in64[1], in64[2], in64[3], in64[4], in64[5], in64[6], in64[7], in64[8], in64[9], in64[11], in64[12], in64[13], in64[10])
			same64(t, "pose64", in64, p64.Eval64(in64, nil), a[0], a[1], a[2], rr, b[0], b[1], b[2])
		}
	}
}
