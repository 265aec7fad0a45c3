// Package kernels holds the segdist kernel bodies, each written once in
// the vector IR (package ir) and generated for every target. Each body
// follows its pure-Go spec in package fallback operation for operation
// (the tests compare every lane bit for bit); keep the two in sync. No
// body knows its target: loads, stores, registers, spills and the loop
// belong to the backends.
package kernels

import "github.com/segdist/segdist/gen/ir"

// Kernel is one kernel body and the names of its streams: Inputs and
// Outputs are the float32 streams of a batch kernel, in the order of the
// generated function's parameters (inputs, then outputs), or for the
// contact kernel the values of one capsule pair and the output rows.
type Kernel struct {
	Name    string   // the generated function's name, before the target suffix
	Inputs  []string // one IR input per name
	Outputs []string // one output value per name
	Args    []string // scalar float32 arguments
	body    func(b *ir.Builder) []ir.Value
}

// ProgramOf records the kernel's body for float lanes of type elem.
func (k *Kernel) ProgramOf(elem ir.Elem) *ir.Program {
	b := ir.NewBuilder(elem, k.Name, len(k.Inputs), len(k.Args))
	return b.Program(k.body(b)...)
}

var pairInputs = []string{"ax", "ay", "az", "bx", "by", "bz", "cx", "cy", "cz", "dx", "dy", "dz"}

// The batch kernels: streams in, streams out, one lane per pair.
var (
	// Closest is fallback.ClosestLane over soa.Pairs into soa.Results.
	Closest = &Kernel{Name: "Closest", Inputs: pairInputs, Outputs: []string{"s", "t", "dist2"}, body: closest}
	// Stream is the memory floor: the same streams, three adds per output.
	Stream = &Kernel{Name: "Stream", Inputs: pairInputs, Outputs: []string{"s", "t", "dist2"}, body: stream}
	// ClosestPoint is fallback.ClosestPointLane over soa.PointSegments
	// into soa.PointResults.
	ClosestPoint = &Kernel{Name: "ClosestPoint",
		Inputs:  []string{"px", "py", "pz", "cx", "cy", "cz", "dx", "dy", "dz"},
		Outputs: []string{"t", "dist2"}, body: closestPoint}
)

// Contact is fallback.ContactLane: its inputs are the capsules of one pair
// (the loop driver fetches them by index), its outputs the columns of
// soa.Contacts after Pair.
var Contact = &Kernel{Name: "Contacts",
	Inputs:  []string{"ax", "ay", "az", "bx", "by", "bz", "r1", "cx", "cy", "cz", "dx", "dy", "dz", "r2"},
	Outputs: []string{"count", "depth1", "depth2", "nx", "ny", "nz", "p1x", "p1y", "p1z", "p2x", "p2y", "p2z"},
	Args:    []string{"margin"},
	body:    contact,
}

// Positions of a capsule pair's values among Contact's inputs.
const CapA, CapB, CapR1, CapC, CapD, CapR2 = 0, 3, 6, 7, 10, 13
