package ir

import "sort"

// Schedule returns p with its instructions reordered as late as
// possible: by the latest cycle at which each can start without delaying
// the end of the program (the longest chain of latencies from it to an
// output, latency(in) the cycles from the start of in to its result),
// ties kept in p's order. Instructions on the long dependency chain come
// first and work off the chain moves next to its first use, so that an
// out-of-order core holds fewer waiting instructions per group and can
// keep more groups in flight. Results are unchanged: the same operations
// on the same operands, only independent instructions change places
// (TestScheduleKeepsResults). The instructions' comments, which name the
// steps in p's order, are dropped for one that says so. Programs with
// rare blocks or variables are returned as they are.
func Schedule(p *Program, latency func(in *Instr) int) *Program {
	for _, in := range p.Code {
		switch in.Op {
		case OpRare, OpEndRare, OpVar, OpAssign:
			return p
		}
	}
	n := len(p.Code)
	// height[i]: the longest path of latencies from the start of i to
	// the end of the program.
	height := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		height[i] += latency(&p.Code[i])
		for _, a := range p.Code[i].Args {
			height[a] = max(height[a], height[i])
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// Latest start = longest height - height[i]: higher first.
	sort.SliceStable(order, func(x, y int) bool { return height[order[x]] > height[order[y]] })
	at := make([]Value, n) // old index -> new
	for k, i := range order {
		at[i] = Value(k)
	}
	q := *p
	q.Code = make([]Instr, n)
	for k, i := range order {
		in := p.Code[i]
		in.Comment = ""
		if k == 0 {
			in.Comment = "The body in as-late-as-possible order (ir.Schedule); its steps, in order, are in gen/kernels."
		}
		in.Args = make([]Value, len(p.Code[i].Args))
		for j, a := range p.Code[i].Args {
			in.Args[j] = at[a]
		}
		q.Code[k] = in
	}
	q.Outputs = make([]Value, len(p.Outputs))
	for j, o := range p.Outputs {
		q.Outputs[j] = at[o]
	}
	return &q
}

// Unpark returns p without its Park instructions: every reader of a
// parked value reads the value itself, and parked variables are plain
// ones. A backend that decides for itself which values leave their
// registers (amd64's spiller) starts from it.
func Unpark(p *Program) *Program {
	q := *p
	q.Code = nil
	at := make([]Value, len(p.Code)) // old index -> new (a Park: its argument's)
	comment := ""                    // a dropped Park's, for the next instruction
	for i, in := range p.Code {
		if in.Op == OpPark {
			at[i] = at[in.Args[0]]
			if comment == "" {
				comment = in.Comment
			}
			continue
		}
		at[i] = Value(len(q.Code))
		if in.Comment == "" {
			in.Comment = comment
		}
		comment = ""
		in.Args = append([]Value(nil), in.Args...)
		for k, a := range in.Args {
			in.Args[k] = at[a]
		}
		if in.Op == OpVar {
			in.Aux = 0
		}
		in.rareUntil = 0 // only the Builder reads it, while it builds
		q.Code = append(q.Code, in)
	}
	q.Outputs = make([]Value, len(p.Outputs))
	for j, o := range p.Outputs {
		q.Outputs[j] = at[o]
	}
	return &q
}
