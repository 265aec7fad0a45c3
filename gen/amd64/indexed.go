package amd64

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/segdist/segdist/gen/kernels"
)

// ClosestIndexed emits ClosestIndexedISA: the closest-point kernel
// (kernels.Closest) on the axes of capsule pairs given by index, read as
// records like the contact kernels' (recordLoop), with S, T and Dist2
// stored one row per pair; the main loop computes several groups at a
// time, merged as the closest loops' (the schedule's Indexed). It spares
// an engine that keeps capsules per body the copy into a soa.Pairs before
// BatchClosest.
func (e *emitter) ClosestIndexed() {
	t := e.t
	check(t)
	k := kernels.Closest
	name := k.Name + "Indexed" + t.Elem.Suffix() + t.Name
	body := e.program(k, e.s.Bodies.Spill, e.s.Bodies.Reorder)
	deferred, sfx := e.defersOverrides(body), t.Elem.Suffix()
	sig := strings.ReplaceAll("func(caps *F, pi, pj *uint32, s, t, dist2 *F, n int, prefetch int)", "F", t.Elem.String())
	text(name, 0, sig, deferred, []string{ // not NOSPLIT: the slot area
		name + " computes the closest points of the axes of n capsule pairs with " + t.Name + ",",
		"bit-identical to fallback.ClosestLane" + sfx + " on each. caps points at the capsule records",
		fmt.Sprintf("(soa.Capsule%s, %d bytes), pi and pj at the n pair indices (all in range), s, t", sfx, 8*t.ElemBytes),
		"and dist2 at n results each; n > 0.",
		"A prefetch other than 0 prefetches the capsule records of the groups ahead (PrefetchRecordsAhead)."})
	bad := badLanesReg(t, deferred)
	// store stores group g's S, T and Dist2 under mask, to the lanes from
	// index + g*Lanes of their streams (dst loads a pointer into scratch).
	store := func(l *lowering, g int, mask Op) {
		Commentf("Store S, T and Dist2 of group %d.", g)
		dst := func(j int) Mem {
			Load(Param([]string{"s", "t", "dist2"}[j]), scratch)
			return Mem{Base: scratch, Index: index, Scale: scale(t), Disp: g * t.VecBytes()}
		}
		for j := range 3 {
			m := dst(j) // the pointer load before the output (as the batch loops)
			storeLanes(t, l.out(j), mask, m)
		}
		storeOverrides(l, mask, dst)
	}
	// On AVX-512 the canonical NaN goes in with masked stores
	// (storeOverrides), or its lanes' mask into bad (DeferOverrides).
	p, ovs := e.splitOverrides(body)
	r := &recordLoop{e: e, p: p, spill: e.s.Bodies.Spill, name: name, loop: e.s.Indexed,
		sides: [2]GPPhysical{capsBase, capsBase}}
	r.run = func(ls []*lowering, label string, mask Op, in *interlude) {
		for g, l := range ls {
			l.overrides, l.badLanes = ovs, bad
			// The body's A B C D are the set's A B of capsule I (slots
			// 0-5) and of capsule J (7-12); the radii (6, 13) are skipped.
			l.beginGroup(groupLabel(label, g, len(ls)), func(pos int) Op {
				if pos >= 6 {
					pos++
				}
				return Mem{Base: set, Disp: (recordInputs*g + pos) * t.VecBytes()}
			}, func(int) Mem { panic("the closest kernel takes no scalar arguments") })
		}
		merge(ls, e.s.Indexed.Skew, func(g int) { store(ls[g], g, mask) }, newSpiller(ls, heldBy(mask), overrideRegs(ls[0])), in)
	}
	r.emit()
	ret(t, bad)
}
