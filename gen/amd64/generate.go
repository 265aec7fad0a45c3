package amd64

import (
	"fmt"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/kernels"
)

// Targets are the instruction sets this backend generates for.
var Targets = []*ir.Target{ir.AVX2, ir.AVX512}

// Declare declares every amd64 kernel in avo's build context; the caller
// runs avo's Generate.
func Declare() {
	c := newConstants()
	MaxIndex()
	for _, t := range Targets {
		Contacts(t, c, false)
		Contacts(t, c, true)
	}
	for _, t := range Targets {
		Contacts(t.Of(ir.F64), c, false)
		Contacts(t.Of(ir.F64), c, true)
	}
	for _, e := range []ir.Elem{ir.F32, ir.F64} {
		for _, t := range Targets {
			ClosestIndexed(t.Of(e), c)
		}
	}
	for _, e := range []ir.Elem{ir.F32, ir.F64} {
		for _, t := range Targets {
			t := t.Of(e)
			spec, n := "fallback.ClosestLane"+e.Suffix(), e.String()+"s"
			Batch(t, kernels.Closest, c, true,
				"computes the closest points of n segment pairs with "+t.Name+",",
				fmt.Sprintf("%d %s lanes per vector, bit-identical to %s.", t.Lanes, e, spec),
				"All fifteen pointers must address at least n "+n+"; n must be > 0.")
			Batch(t, kernels.Stream, c, false,
				"is the memory-bound baseline with "+t.Name+": it reads the twelve",
				"input streams and writes s = ax+bx+cx+dx, t and dist2 likewise for",
				"y and z, with the same loop and tail as "+KernelName(kernels.Closest, t)+".")
			Batch(t, kernels.ClosestPoint, c, true,
				"computes the closest point of n segments to n points with "+t.Name+",",
				"bit-identical to fallback.ClosestPointLane"+e.Suffix()+". All eleven pointers must",
				"address at least n "+n+"; n must be > 0.")
		}
	}
}
