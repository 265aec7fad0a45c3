package kernels

import "github.com/segdist/segdist/gen/ir"

// PlaneContact is fallback.PlaneContactLane: its inputs are one capsule
// record's values and one plane record's, in Contact's places (a plane
// record is laid out as a capsule record: N where A is, D where R is, so
// the loop driver fetches both as it fetches a capsule pair; the plane's
// padding lands in the inputs of D, unused), its outputs Contact's.
var PlaneContact = &Kernel{Name: "PlaneContacts",
	Inputs:  []string{"ax", "ay", "az", "bx", "by", "bz", "r", "nx", "ny", "nz", "pad0", "pad1", "pad2", "d"},
	Outputs: Contact.Outputs,
	Args:    []string{"margin"},
	body:    planeContact,
}

// Positions of a capsule-plane pair's values among PlaneContact's inputs.
const (
	PlaneA, PlaneB, PlaneR, PlaneN, PlaneD = CapA, CapB, CapR1, CapC, CapR2
)

// planeContact is fallback.PlaneContactLane for one group of pairs: both
// ends' signed distances and points, then selects for the count and the
// order of the points; bad lanes last, as in contact.
func planeContact(b *ir.Builder) []ir.Value {
	a, bb, r := b.Inputs3(PlaneA), b.Inputs3(PlaneB), b.Input(PlaneR)
	n, d := b.Inputs3(PlaneN), b.Input(PlaneD)
	margin := b.Arg(0)
	zero := b.Zero()

	b.Comment("Signed distances s = n.X - d and depths r - s of both ends.")
	sa := b.Sub(b.Dot(n, a), d)
	sb := b.Sub(b.Dot(n, bb), d)
	da, db := b.Sub(r, sa), b.Sub(r, sb)

	b.Comment("Touching ends: s <= r + margin; a sphere (A = B) counts once.")
	lim := b.Add(r, margin)
	touchA, touchB := b.Cmp(ir.LE, sa, lim), b.Cmp(ir.LE, sb, lim)
	sphere := b.And(b.And(b.Cmp(ir.EQ, a[0], bb[0]), b.Cmp(ir.EQ, a[1], bb[1])), b.Cmp(ir.EQ, a[2], bb[2]))
	two := b.AndNot(b.And(touchA, touchB), sphere)
	int0 := b.ConstInt("int0", 0)
	count := b.Select(two, b.ConstInt("int2", 2), b.Select(b.Or(touchA, touchB), b.ConstInt("int1", 1), int0))

	b.Comment("Points X - n h, h = (r + s) * 0.5: midway between the capsule's surface and the plane's.")
	half := b.Const("half", 0x3F000000)
	pa := b.Sub3(a, b.Scale(n, b.Mul(b.Add(r, sa), half)))
	pb := b.Sub3(bb, b.Scale(n, b.Mul(b.Add(r, sb), half)))

	b.Comment("Point 1: end B's where A does not touch and B is nearer, else A's; point 2: B's for two points.")
	useB := b.AndNot(b.Cmp(ir.LT, sb, sa), touchA)
	depth1 := b.Select(useB, db, da)
	p1 := b.Select3(useB, pb, pa)
	depth2 := b.Select(two, db, depth1)
	p2 := b.Select3(two, pb, p1)

	out := []ir.Value{count, depth1, depth2, n[0], n[1], n[2], p1[0], p1[1], p1[2], p2[0], p2[1], p2[2]}
	for k := range out {
		out[k] = b.Var(out[k])
	}
	b.Comment("Bad lanes: |da + db| not <= the largest finite float, or a negative radius.")
	bad := b.Or(b.Cmp(ir.NotLE, b.Abs(b.Add(da, db)), b.Constant(ir.MaxFinite)), b.Cmp(ir.LT, r, zero))
	badRows(b, bad, int0, out)
	return out
}
