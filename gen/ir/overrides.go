package ir

// Override is an output that a program computes as Select(Mask, Const,
// v): the constant in the lanes of the mask (the canonical NaN of bad
// lanes, in the closest kernels), v in the others.
type Override struct {
	Output int   // the output's index in Program.Outputs
	Mask   Value // the lanes that get the constant
	Const  Value // an OpConst
}

// SplitOverrides returns p without the Selects that give outputs a
// constant in some lanes, each such output then being the Select's other
// value, and the overrides that put the constant back. A backend stores
// the outputs, then the constant of each override under its mask: one
// store, where the Select costs an instruction that writes a vector
// register. The masks and constants are appended to the returned
// program's Outputs (after p's), so that they stay live until the stores.
// A Select qualifies when it is read by nothing but its output. With no
// such output, p and nil are returned.
func SplitOverrides(p *Program) (*Program, []Override) {
	reads := make([]int, len(p.Code))
	for _, in := range p.Code {
		for _, a := range in.Args {
			reads[a]++
		}
	}
	for _, o := range p.Outputs {
		reads[o]++
	}
	drop := make([]bool, len(p.Code))
	var ovs []Override
	for j, o := range p.Outputs {
		in := p.Code[o]
		if in.Op != OpSelect || reads[o] != 1 || p.Code[in.Args[1]].Op != OpConst || in.Type != Float {
			continue
		}
		drop[o] = true
		ovs = append(ovs, Override{Output: j, Mask: in.Args[0], Const: in.Args[1]})
	}
	if len(ovs) == 0 {
		return p, nil
	}
	q, at := bypass(p, nil, func(i int, in *Instr) (Value, bool) {
		if !drop[i] {
			return 0, false
		}
		return in.Args[2], true // the Select's value outside the mask
	})
	for k := range ovs {
		ovs[k].Mask, ovs[k].Const = at[ovs[k].Mask], at[ovs[k].Const]
		q.Outputs = append(q.Outputs, ovs[k].Mask, ovs[k].Const)
	}
	return q, ovs
}
