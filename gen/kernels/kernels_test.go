package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/internal/verify"
)

// The kernel bodies, run by the IR's reference interpreter, against the
// pure-Go spec, bit for bit: a body that drifts from fallback fails here,
// before any backend is involved.

func bits(xs ...float32) []uint32 {
	out := make([]uint32, len(xs))
	for i, x := range xs {
		out[i] = math.Float32bits(x)
	}
	return out
}

func same(t *testing.T, what string, in []float32, got, want []uint32) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s%v: output %d = %#x, spec %#x", what, in, i, got[i], want[i])
		}
	}
}

// specials are the values that break careless code: signed zeros,
// subnormals, the normal boundary, huge, Inf, NaNs (quiet and signalling).
var specials = []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 1e-45, -1e-45, 0x1p-126, 1e18, -1e18,
	math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0x7F800001)}

// coords returns n coordinates: mostly from pairs (adversarial geometry),
// some special values, some copies of each other (degenerate segments).
func coords(r *rand.Rand, base []float32, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		switch k := r.IntN(20); {
		case k == 0:
			out[i] = specials[r.IntN(len(specials))]
		case k == 1 && i >= 3:
			out[i] = out[i-3]
		default:
			out[i] = base[i%len(base)]
		}
	}
	return out
}

func TestClosestBody(t *testing.T) {
	prog := Closest.ProgramOf(ir.F32)
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range verify.Mixed(7, 300) {
		c := verify.Coords(p)
		for _, in := range [][]float32{c[:], coords(r, c[:], 12)} {
			s, tt, d2 := fallback.ClosestLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11])
			same(t, "closest", in, prog.Eval(in, nil), bits(s, tt, d2))
		}
	}
}

func TestClosestPointBody(t *testing.T) {
	prog := ClosestPoint.ProgramOf(ir.F32)
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range verify.Mixed(8, 200) {
		c := verify.Coords(p)
		for _, in := range [][]float32{c[3:], coords(r, c[3:], 9)} {
			tt, d2 := fallback.ClosestPointLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8])
			same(t, "point", in, prog.Eval(in, nil), bits(tt, d2))
		}
	}
}

func TestStreamBody(t *testing.T) {
	prog := Stream.ProgramOf(ir.F32)
	in := make([]float32, 12)
	for i := range in {
		in[i] = float32(i) + 0.25
	}
	want := bits(((in[0]+in[3])+in[6])+in[9], ((in[1]+in[4])+in[7])+in[10], ((in[2]+in[5])+in[8])+in[11])
	same(t, "stream", in, prog.Eval(in, nil), want)
}

// capsuleInputs turns a segment pair into the contact kernel's inputs:
// A B r1 C D r2, with radii that make some pairs touch.
func capsuleInputs(r *rand.Rand, c [12]float32) []float32 {
	scale := float32(verify.Scale(verify.FromCoords(c)))
	r1, r2 := scale*r.Float32(), scale*r.Float32()*0.1
	return []float32{c[0], c[1], c[2], c[3], c[4], c[5], r1, c[6], c[7], c[8], c[9], c[10], c[11], r2}
}

// The unparked body (ir.Unpark), which the spilling amd64 loops lower,
// must give the same bits.
func TestContactBody(t *testing.T) {
	p, q := Contact.ProgramOf(ir.F32), ir.Unpark(Contact.ProgramOf(ir.F32))
	for _, prog := range []*ir.Program{p, q, ir.Schedule(p, scheduleLatency), ir.Schedule(q, scheduleLatency)} {
		contactBody(t, prog)
	}
}

func contactBody(t *testing.T, prog *ir.Program) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(in []float32, margin float32) {
		t.Helper()
		c := fallback.ContactLane(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11], in[12], in[13], margin)
		want := append([]uint32{c.Count}, bits(c.Depth[0], c.Depth[1], c.Normal[0], c.Normal[1], c.Normal[2],
			c.Point[0][0], c.Point[0][1], c.Point[0][2], c.Point[1][0], c.Point[1][1], c.Point[1][2])...)
		same(t, "contact", in, prog.Eval(in, []float32{margin}), want)
	}
	counts := map[uint32]int{}
	for _, p := range verify.Mixed(9, 300) {
		in := capsuleInputs(r, verify.Coords(p))
		check(in, 0.01)
		check(coords(r, in, 14), 0)
		counts[prog.Eval(in, []float32{0.01})[0]]++
	}
	// Rare paths on purpose: parallel overlapping axes (two points),
	// crossing axes, a sphere on the other axis, coincident spheres.
	for _, in := range [][]float32{
		{0, 0, 0, 4, 0, 0, 1, 1, 0.5, 0, 3, 0.5, 0, 1},
		{0, 0, 0, 3, 1, 0, 0.5, 1.5, 0.5, -1, 1.5, 0.5, 1, 0.5},
		{0, 0, 0, 2, 0, 0, 0.5, 1, 0, 0, 1, 0, 0, 0.5},
		{1, 2, 3, 1, 2, 3, 1, 1, 2, 3, 1, 2, 3, 1},
		{0, 0, 5, 0, 0, 5, 1, 0, 0, 0, 0, 0, 9, 1},
	} {
		check(in, 0)
		counts[prog.Eval(in, []float32{0})[0]]++
	}
	if counts[1] == 0 || counts[2] == 0 || counts[0] == 0 {
		t.Errorf("counts seen %v: the inputs miss a case", counts)
	}
}

// specials64 are the float64 values that break careless code.
var specials64 = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 5e-324, -5e-324, 0x1p-1022, 1e150, -1e150,
	math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7FF0000000000001)}

// coords64 is coords for float64 inputs.
func coords64(r *rand.Rand, base []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		switch k := r.IntN(20); {
		case k == 0:
			out[i] = specials64[r.IntN(len(specials64))]
		case k == 1 && i >= 3:
			out[i] = out[i-3]
		default:
			out[i] = base[i%len(base)]
		}
	}
	return out
}

func same64(t *testing.T, what string, in []float64, got []uint64, want ...float64) {
	t.Helper()
	for i := range want {
		if got[i] != math.Float64bits(want[i]) {
			t.Fatalf("%s%v: output %d = %#x, spec %#x", what, in, i, got[i], math.Float64bits(want[i]))
		}
	}
}

// mixed64 returns n float64 pairs of every category of Categories64, as
// twelve coordinates each.
func mixed64(n int) [][12]float64 {
	var out [][12]float64
	for k, c := range verify.Categories64() {
		r := verify.NewRand(64, uint64(k))
		for range n {
			p := c.Gen64(r)
			out = append(out, [12]float64{p.A[0], p.A[1], p.A[2], p.B[0], p.B[1], p.B[2], p.C[0], p.C[1], p.C[2], p.D[0], p.D[1], p.D[2]})
		}
	}
	return out
}

// The float64 bodies against fallback's float64 spec.
func TestClosestBody64(t *testing.T) {
	prog := Closest.ProgramOf(ir.F64)
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range mixed64(300) {
		for _, in := range [][]float64{c[:], coords64(r, c[:], 12)} {
			s, tt, d2 := fallback.ClosestLane64(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11])
			same64(t, "closest64", in, prog.Eval64(in, nil), s, tt, d2)
		}
	}
}

func TestClosestPointBody64(t *testing.T) {
	prog := ClosestPoint.ProgramOf(ir.F64)
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range mixed64(200) {
		for _, in := range [][]float64{c[3:], coords64(r, c[3:], 9)} {
			tt, d2 := fallback.ClosestPointLane64(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8])
			same64(t, "point64", in, prog.Eval64(in, nil), tt, d2)
		}
	}
}

// TestContactBody64 runs the contact body in float64 against
// fallback.ContactLane64: capsules from the float32 generators widened,
// moved 1e12 away and perturbed below float32's resolution, and the rare
// cases of TestContactBody.
func TestContactBody64(t *testing.T) {
	prog := Contact.ProgramOf(ir.F64)
	r := rand.New(rand.NewPCG(15, 16))
	check := func(in []float64, margin float64) {
		t.Helper()
		c := fallback.ContactLane64(in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11], in[12], in[13], margin)
		got := prog.Eval64(in, []float64{margin})
		if got[0] != uint64(c.Count) {
			t.Fatalf("contact64%v: count %d, spec %d", in, got[0], c.Count)
		}
		same64(t, "contact64", in, got[1:], c.Depth[0], c.Depth[1], c.Normal[0], c.Normal[1], c.Normal[2],
			c.Point[0][0], c.Point[0][1], c.Point[0][2], c.Point[1][0], c.Point[1][1], c.Point[1][2])
	}
	counts := map[uint64]int{}
	for _, p := range verify.Mixed(9, 300) {
		in32 := capsuleInputs(rand.New(rand.NewPCG(17, 18)), verify.Coords(p))
		in := make([]float64, len(in32))
		for i, x := range in32 {
			in[i] = float64(x)
			if i != 6 && i != 13 { // coordinates, not radii
				in[i] = 1e12 + in[i] + math.Ldexp(float64(i), -41)
			}
		}
		check(in, 0.01)
		check(coords64(r, in, 14), 0)
		counts[prog.Eval64(in, []float64{0.01})[0]]++
	}
	for _, in32 := range [][]float32{
		{0, 0, 0, 4, 0, 0, 1, 1, 0.5, 0, 3, 0.5, 0, 1},
		{0, 0, 0, 3, 1, 0, 0.5, 1.5, 0.5, -1, 1.5, 0.5, 1, 0.5},
		{0, 0, 0, 2, 0, 0, 0.5, 1, 0, 0, 1, 0, 0, 0.5},
		{1, 2, 3, 1, 2, 3, 1, 1, 2, 3, 1, 2, 3, 1},
		{0, 0, 5, 0, 0, 5, 1, 0, 0, 0, 0, 0, 9, 1},
	} {
		in := make([]float64, len(in32))
		for i, x := range in32 {
			in[i] = float64(x)
		}
		check(in, 0)
		counts[prog.Eval64(in, []float64{0})[0]]++
	}
	if counts[1] == 0 || counts[2] == 0 || counts[0] == 0 {
		t.Errorf("counts seen %v: the inputs miss a case", counts)
	}
}

// scheduleLatency is a latency model for ir.Schedule in tests.
func scheduleLatency(in *ir.Instr) int {
	switch in.Op {
	case ir.OpDiv, ir.OpDivOrZero, ir.OpRecipOrZero:
		return 18
	}
	return 4
}

// TestScheduleKeepsResults: ir.Schedule reorders the bodies (every
// argument still before its use, the order changed, each rare block's
// instructions together and in their order) without changing a bit of
// their results. TestContactBody checks the reordered contact body
// against fallback.
func TestScheduleKeepsResults(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range []*Kernel{Closest, ClosestPoint, Stream, Contact} {
		p := k.ProgramOf(ir.F32)
		q := ir.Schedule(p, scheduleLatency)
		moved := 0
		for i, in := range q.Code {
			for _, a := range in.Args {
				if int(a) >= i {
					t.Fatalf("%s: instruction %d reads v%d, defined later", k.Name, i, a)
				}
			}
			if in.Op != p.Code[i].Op {
				moved++
			}
		}
		if (k == Closest || k == Contact) && moved == 0 {
			t.Errorf("%s: Schedule changed nothing", k.Name)
		}
		if got, want := blocks(q), blocks(p); !slices.Equal(got, want) {
			t.Errorf("%s: rare blocks reordered %v, want %v (each block's operations in order)", k.Name, got, want)
		}
		if k == Contact {
			continue
		}
		for _, pair := range verify.Mixed(11, 300) {
			c := verify.Coords(pair)
			in := coords(r, c[:], p.Inputs)
			same(t, k.Name+" scheduled", in, q.Eval(in, nil), p.Eval(in, nil))
		}
	}
}

// blocks lists p's rare blocks in order, each as its label and the
// operations in it, in order.
func blocks(p *ir.Program) []string {
	var out []string
	for i := 0; i < len(p.Code); i++ {
		if p.Code[i].Op != ir.OpRare {
			continue
		}
		end := p.BlockEnd(i)
		var ops []string
		for _, in := range p.Code[i : end+1] {
			ops = append(ops, in.Op.String()+in.Name)
		}
		out = append(out, strings.Join(ops, " "))
		i = end
	}
	return out
}

// TestUnparkKeepsResults checks that ir.Unpark drops every Park of the
// closest bodies and nothing else changes their results, and every Park
// and parked variable of the contact body (TestContactBody checks its
// results).
func TestUnparkKeepsResults(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, k := range []*Kernel{Closest, ClosestPoint} {
		p := k.ProgramOf(ir.F32)
		q := ir.Unpark(p)
		parks := 0
		for _, in := range p.Code {
			if in.Op == ir.OpPark {
				parks++
			}
		}
		if k == Closest && parks == 0 {
			t.Fatalf("%s: no Park to drop", k.Name)
		}
		if len(q.Code) != len(p.Code)-parks {
			t.Fatalf("%s: %d instructions after Unpark, want %d", k.Name, len(q.Code), len(p.Code)-parks)
		}
		for i, in := range q.Code {
			if in.Op == ir.OpPark {
				t.Fatalf("%s: instruction %d is a Park", k.Name, i)
			}
			for _, a := range in.Args {
				if int(a) >= i {
					t.Fatalf("%s: instruction %d reads v%d, defined later", k.Name, i, a)
				}
			}
		}
		for _, pair := range verify.Mixed(13, 300) {
			c := verify.Coords(pair)
			in := coords(r, c[:], p.Inputs)
			same(t, k.Name+" unparked", in, q.Eval(in, nil), p.Eval(in, nil))
		}
	}
	for _, in := range ir.Unpark(Contact.ProgramOf(ir.F32)).Code {
		if in.Op == ir.OpPark || in.Op == ir.OpVar && in.Aux != 0 {
			t.Fatalf("the unparked contact body has %s", in.Op)
		}
	}
}

// The closest bodies without their canonical-NaN Selects (ir.SplitOverrides,
// which the AVX-512 loops store as masked stores of the constant), with the
// overrides applied to their outputs, must give the body's bits. The
// inputs include NaN and Inf coordinates, so the masks are exercised.
func TestClosestOverrides(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range []*Kernel{Closest, ClosestPoint} {
		p := k.ProgramOf(ir.F32)
		q, ovs := ir.SplitOverrides(p)
		if len(ovs) != len(p.Outputs) {
			t.Fatalf("%s: %d overrides, want one per output (%d)", k.Name, len(ovs), len(p.Outputs))
		}
		if len(q.Code) != len(p.Code)-len(ovs) {
			t.Errorf("%s: %d instructions left of %d, want the %d Selects dropped", k.Name, len(q.Code), len(p.Code), len(ovs))
		}
		nin := p.Inputs
		bad := 0
		for _, pr := range verify.Mixed(7, 300) {
			c := verify.Coords(pr)
			in := coords(r, c[12-nin:], nin)
			got := q.Eval(in, nil)
			for i, o := range ovs {
				// Override i's mask and constant follow the outputs.
				if mask := got[len(p.Outputs)+2*i]; mask != 0 {
					got[o.Output] = got[len(p.Outputs)+2*i+1]
					bad++
				}
			}
			same(t, k.Name+" overrides", in, got[:len(p.Outputs)], p.Eval(in, nil))
		}
		if bad == 0 {
			t.Errorf("%s: no lane took an override", k.Name)
		}
	}
}
