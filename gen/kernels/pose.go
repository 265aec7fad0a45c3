package kernels

import "github.com/segdist/segdist/gen/ir"

// Pose is fallback.PoseCapsuleLane: a body's pose (position and
// quaternion streams) and its local capsule record in, the world capsule
// record out, in record order (A, R, B; the driver writes the padding
// zero).
var Pose = &Kernel{Name: "Poses",
	Inputs:  []string{"px", "py", "pz", "qx", "qy", "qz", "qw", "lax", "lay", "laz", "r", "lbx", "lby", "lbz"},
	Outputs: []string{"ax", "ay", "az", "r", "bx", "by", "bz"},
	body:    pose,
}

// Positions of a body's values among Pose's inputs.
const (
	PoseP, PoseQ, PoseLA, PoseR, PoseLB = 0, 3, 7, 10, 11
)

// pose is fallback.PoseCapsuleLane for one group of bodies.
func pose(b *ir.Builder) []ir.Value {
	p := b.Inputs3(PoseP)
	q := b.Inputs3(PoseQ)
	w := b.Input(PoseQ + 3)
	r := b.Input(PoseR)
	b.Comment("A = p + q(la), B = p + q(lb): v + w t + q x t, t = 2 q x v.")
	ra := rotate(b, q, w, b.Inputs3(PoseLA))
	rb := rotate(b, q, w, b.Inputs3(PoseLB))
	var out [7]ir.Value
	for k := range 3 {
		out[k] = b.Var(b.Add(p[k], ra[k]))
		out[4+k] = b.Var(b.Add(p[k], rb[k]))
	}
	out[3] = b.Var(r)
	b.Comment("Bad lanes: the sum of x - x over the outputs is 0 exactly when all are finite.")
	z := b.Sub(out[0], out[0])
	for _, k := range []int{1, 2, 4, 5, 6, 3} {
		z = b.Add(z, b.Sub(out[k], out[k]))
	}
	bad := b.Cmp(ir.NotLE, z, b.Zero())
	b.Rare("finite", bad, func() {
		b.Comment("The canonical NaN in every output of those lanes.")
		nan := b.Constant(ir.CanonicalNaN)
		for _, v := range out {
			b.Assign(v, b.Select(bad, nan, v))
		}
	})
	return out[:]
}

// rotate returns v rotated by the quaternion (q, w) in fallback.rotate's
// operation order.
func rotate(b *ir.Builder, q ir.Vec3, w ir.Value, v ir.Vec3) ir.Vec3 {
	c := ir.Vec3{
		b.Sub(b.Mul(q[1], v[2]), b.Mul(q[2], v[1])),
		b.Sub(b.Mul(q[2], v[0]), b.Mul(q[0], v[2])),
		b.Sub(b.Mul(q[0], v[1]), b.Mul(q[1], v[0])),
	}
	t := ir.Vec3{b.Add(c[0], c[0]), b.Add(c[1], c[1]), b.Add(c[2], c[2])}
	return ir.Vec3{
		b.Add(b.Add(v[0], b.Mul(w, t[0])), b.Sub(b.Mul(q[1], t[2]), b.Mul(q[2], t[1]))),
		b.Add(b.Add(v[1], b.Mul(w, t[1])), b.Sub(b.Mul(q[2], t[0]), b.Mul(q[0], t[2]))),
		b.Add(b.Add(v[2], b.Mul(w, t[2])), b.Sub(b.Mul(q[0], t[1]), b.Mul(q[1], t[0]))),
	}
}
