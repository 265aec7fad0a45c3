package ir

import "fmt"

// Merge is how a loop driver runs the groups of one iteration: Groups
// groups, their instruction streams merged so that each starts Skew (a
// fraction of the body's instructions) after the previous one. A body's
// long dependency chain, not its arithmetic, bounds one group; merged
// groups put the next group's independent work early in the reorder
// window (docs/design.md, "Loop drivers").
type Merge struct {
	Groups int
	Skew   float64
}

// Event is one instruction of a merged iteration: instruction I of group G.
type Event struct{ G, I int }

// Order returns the order in which the groups of an iteration run p's
// instructions: group g's instruction i at time g*step + i, step =
// Skew*len(p.Code), the groups in order at each time. A rare block is
// emitted whole when its group reaches it (another group's instructions
// must not sit inside a block that may be branched over), and its group
// then waits until the time it would have reached the block's end. Every
// backend merges groups in this order.
func (m Merge) Order(p *Program) []Event {
	var order []Event
	n := len(p.Code)
	step := int(m.Skew * float64(n))
	next := make([]int, m.Groups) // each group's next instruction
	for time := 0; time < (m.Groups-1)*step+n; time++ {
		for g := range m.Groups {
			for next[g] < n && next[g] <= time-g*step {
				i, end := next[g], next[g]
				if p.Code[i].Op == OpRare {
					end = p.BlockEnd(i) // the whole block
				}
				for ; i <= end; i++ {
					order = append(order, Event{g, i})
				}
				next[g] = end + 1
			}
		}
	}
	return order
}

// Interleave returns one program computing m.Groups independent copies
// of p (group g reads inputs g*p.Inputs+k and writes outputs
// g*len(Outputs)+j), their instructions in m's Order: for a backend that
// lowers one program at a time. p must have no rare blocks (their labels
// would repeat).
func Interleave(p *Program, m Merge) *Program {
	for _, in := range p.Code {
		if in.Op == OpRare {
			panic("ir: Interleave of a program with rare blocks")
		}
	}
	q := &Program{Name: fmt.Sprintf("%s×%d", p.Name, m.Groups), Elem: p.Elem, Inputs: m.Groups * p.Inputs, Args: p.Args}
	newIndex := make([][]Value, m.Groups)
	for g := range newIndex {
		newIndex[g] = make([]Value, len(p.Code))
	}
	for _, e := range m.Order(p) {
		in := p.Code[e.I]
		in.Args = renumbered(in.Args, newIndex[e.G])
		if in.Op == OpInput {
			in.Aux += e.G * p.Inputs
		}
		if e.G > 0 {
			in.Comment = ""
		}
		newIndex[e.G][e.I] = Value(len(q.Code))
		q.Code = append(q.Code, in)
	}
	for g := range m.Groups {
		q.Outputs = append(q.Outputs, renumbered(p.Outputs, newIndex[g])...)
	}
	return q
}
