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

// Interleave returns one program computing groups independent copies of p
// (group g reads inputs g*p.Inputs+k and writes outputs g*len(Outputs)+j),
// with their instructions merged so that copy g starts skew*len(p.Code)
// instructions after copy g-1: a loop driver's way of putting the next
// group's independent work early in the reorder window while the first
// group's long dependency chain runs. p must have no rare blocks (a block
// would skip the other copies' instructions too).
func Interleave(p *Program, groups int, skew float64) *Program {
	for _, in := range p.Code {
		if in.Op == OpRare {
			panic("ir: Interleave of a program with rare blocks")
		}
	}
	n := len(p.Code)
	step := int(skew * float64(n))
	q := &Program{Name: fmt.Sprintf("%s×%d", p.Name, groups), Elem: p.Elem, Inputs: groups * p.Inputs, Args: p.Args}
	newIndex := make([][]Value, groups)
	for g := range newIndex {
		newIndex[g] = make([]Value, n)
	}
	for time := 0; time < (groups-1)*step+n; time++ {
		for g := range groups {
			i := time - g*step
			if i < 0 || i >= n {
				continue
			}
			in := p.Code[i]
			in.Args = append([]Value(nil), in.Args...)
			for k, a := range in.Args {
				in.Args[k] = newIndex[g][a]
			}
			if in.Op == OpInput {
				in.Aux += g * p.Inputs
			}
			if g > 0 {
				in.Comment = ""
			}
			newIndex[g][i] = Value(len(q.Code))
			q.Code = append(q.Code, in)
		}
	}
	for g := range groups {
		for _, o := range p.Outputs {
			q.Outputs = append(q.Outputs, newIndex[g][o])
		}
	}
	return q
}
