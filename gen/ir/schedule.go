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
// steps in p's order, are dropped for one that says so (but for those in
// rare blocks).
//
// A rare block moves as one unit, its instructions together and in
// their order, after everything it reads. Rare blocks keep their order,
// and so does every instruction that reads or assigns a variable against
// each block that assigns it: a reader before the block reads the old
// value, one after it the new one.
func Schedule(p *Program, latency func(in *Instr) int) *Program {
	n := len(p.Code)
	// The units: an instruction outside rare blocks, or an outermost
	// rare block with everything in it. unit[i] is i's unit; units are
	// numbered in p's order, which is one that respects every edge below.
	unit, first := scheduleUnits(p)
	m := len(first)
	lat := make([]int, m)
	isBlock := make([]bool, m)
	for u, i := range first {
		isBlock[u] = p.Code[i].Op == OpRare
		lat[u] = 1 // a rare block's latency is not the common path's
		if !isBlock[u] {
			lat[u] = latency(&p.Code[i])
		}
	}
	deps := unitDeps(p, unit, isBlock)
	// height[u]: the longest path of latencies from the start of u to
	// the end of the program.
	height := make([]int, m)
	for u := m - 1; u >= 0; u-- {
		height[u] += lat[u]
		for _, d := range deps[u] {
			height[d] = max(height[d], height[u])
		}
	}
	order := make([]int, m)
	for u := range order {
		order[u] = u
	}
	// Latest start = longest height - height[u]: higher first.
	sort.SliceStable(order, func(x, y int) bool { return height[order[x]] > height[order[y]] })
	var code []int // old indices in the new order
	for _, u := range order {
		for i := first[u]; i < n && unit[i] == u; i++ {
			code = append(code, i)
		}
	}
	q, _ := bypass(p, code, func(int, *Instr) (Value, bool) { return 0, false })
	for k, i := range code {
		if !isBlock[unit[i]] {
			q.Code[k].Comment = "" // a rare block's comments stay: its order is p's
		}
	}
	q.Code[0].Comment = "The body in as-late-as-possible order (ir.Schedule); its steps, in order, are in gen/kernels."
	return q
}

// scheduleUnits returns the units of p's instructions: unit[i] is
// instruction i's, and first[u] the first instruction of unit u.
func scheduleUnits(p *Program) (unit, first []int) {
	n := len(p.Code)
	unit = make([]int, n)
	for i := 0; i < n; i++ {
		end := i
		if p.Code[i].Op == OpRare {
			end = p.BlockEnd(i)
		}
		for j := i; j <= end; j++ {
			unit[j] = len(first)
		}
		first = append(first, i)
		i = end
	}
	return unit, first
}

// unitDeps returns, for each unit u, the units u must follow.
func unitDeps(p *Program, unit []int, isBlock []bool) [][]int {
	m := len(isBlock)
	deps := make([][]int, m)
	assigns := map[Value][]int{} // variable -> the blocks that assign it
	for i, in := range p.Code {
		for _, a := range in.Args {
			if unit[a] != unit[i] {
				deps[unit[i]] = append(deps[unit[i]], unit[a])
			}
		}
		if in.Op == OpAssign {
			v := in.Args[0]
			if b := assigns[v]; len(b) == 0 || b[len(b)-1] != unit[i] {
				assigns[v] = append(b, unit[i])
			}
		}
	}
	lastBlock := -1
	for u := range m {
		if isBlock[u] {
			if lastBlock >= 0 {
				deps[u] = append(deps[u], lastBlock)
			}
			lastBlock = u
		}
	}
	for i, in := range p.Code {
		for _, a := range in.Args {
			for _, b := range assigns[a] {
				switch u := unit[i]; {
				case u < b:
					deps[b] = append(deps[b], u) // the old value, read before b
				case u > b:
					deps[u] = append(deps[u], b) // the new one
				}
			}
		}
	}
	return deps
}

// renumbered returns at[v] for each value v of vs, in order.
func renumbered[T any](vs []Value, at []T) []T {
	out := make([]T, len(vs))
	for j, v := range vs {
		out[j] = at[v]
	}
	return out
}

// Unpark returns p without its Park instructions: every reader of a
// parked value reads the value itself. A backend that decides for itself
// which values leave their registers (amd64's spiller) starts from it.
func Unpark(p *Program) *Program {
	q, _ := bypass(p, nil, func(_ int, in *Instr) (Value, bool) {
		if in.Op != OpPark {
			return 0, false
		}
		return in.Args[0], true
	})
	return q
}

// bypass returns p with its instructions in the order code (old indices;
// nil: p's order) but those that drop (given an instruction and its
// index) says to drop; the readers of a dropped instruction (outputs
// included) read the value drop names instead, and a dropped
// instruction's comment moves to the next one kept. It also returns
// where each old value went.
func bypass(p *Program, code []int, drop func(i int, in *Instr) (Value, bool)) (*Program, []Value) {
	q := *p
	q.Code = nil
	at := make([]Value, len(p.Code)) // old index -> new (a dropped one: its argument's)
	comment := ""                    // a dropped instruction's, for the next one kept
	for k := range p.Code {
		i := k
		if code != nil {
			i = code[k]
		}
		in := p.Code[i]
		if a, ok := drop(i, &in); ok {
			at[i] = at[a]
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
		in.Args = renumbered(in.Args, at)
		in.rareUntil = 0 // only the Builder reads it, while it builds
		q.Code = append(q.Code, in)
	}
	q.Outputs = renumbered(p.Outputs, at)
	return &q, at
}
