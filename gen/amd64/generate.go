package amd64

import (
	"fmt"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// Targets are the instruction sets this backend generates for.
var Targets = []*ir.Target{ir.AVX2, ir.AVX512}

// emitter emits the kernels of one target as its schedule says.
type emitter struct {
	t          *ir.Target
	s          *Schedule
	c          *constants
	ntMinLanes int // Schedules.NTMinLanes
}

// Declare declares every amd64 kernel, run as the schedules say, in
// avo's build context; the caller runs avo's Generate. It declares
// nothing if ss does not validate.
func Declare(ss *Schedules) error {
	if err := ss.Validate(); err != nil {
		return err
	}
	c := newConstants()
	emit := func(t *ir.Target) *emitter { return &emitter{t: t, s: ss.Of(t), c: c, ntMinLanes: ss.NTMinLanes} }
	MaxIndex()
	// The kernels appear in the assembly in this order: each step for
	// every element type and target before the next step.
	steps := []func(em *emitter, e ir.Elem){
		func(em *emitter, _ ir.Elem) {
			em.Contacts(kernels.Contact, false)
			em.Contacts(kernels.Contact, true)
		},
		func(em *emitter, _ ir.Elem) {
			em.Contacts(kernels.PlaneContact, false)
			em.Contacts(kernels.PlaneContact, true)
		},
		func(em *emitter, _ ir.Elem) { em.ClosestIndexed() },
		func(em *emitter, _ ir.Elem) { em.Poses(false); em.Poses(true) },
		func(em *emitter, _ ir.Elem) { em.TOI() },
		func(em *emitter, e ir.Elem) {
			t, st := em.t, &em.s.Streams
			spec, n := "fallback.ClosestLane"+e.Suffix(), e.String()+"s"
			em.Batch(kernels.Closest, st.Closest,
				"computes the closest points of n segment pairs with "+t.Name+",",
				fmt.Sprintf("%d %s lanes per vector, bit-identical to %s.", t.Lanes, e, spec),
				"All fifteen pointers must address at least n "+n+"; n must be > 0.")
			em.Batch(kernels.Stream, st.Stream,
				"is the memory-bound baseline with "+t.Name+": it reads the twelve",
				"input streams and writes s = ax+bx+cx+dx, t and dist2 likewise for",
				"y and z, with the same loop and tail as "+KernelName(kernels.Closest, t)+".")
			em.Batch(kernels.ClosestPoint, st.Point,
				"computes the closest point of n segments to n points with "+t.Name+",",
				"bit-identical to fallback.ClosestPointLane"+e.Suffix()+". All eleven pointers must",
				"address at least n "+n+"; n must be > 0.")
		},
	}
	for _, step := range steps {
		for _, e := range []ir.Elem{ir.F32, ir.F64} {
			for _, t := range Targets {
				step(emit(t.Of(e)), e)
			}
		}
	}
	return nil
}
