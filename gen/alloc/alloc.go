// Package alloc is the register allocator of both backends: the reads of
// each value in the groups' merged order, Belady's rule (the value read
// again last leaves the registers first) and the rule of rare blocks,
// applied by one Allocator to the registers a backend describes
// (Registers): amd64 keeps avo's virtual registers within a budget, NEON
// assigns physical ones (docs/design.md, "The IR and its backends").
package alloc

import (
	"fmt"
	"slices"

	"github.com/segdist/segdist/gen/ir"
)

// Never is the next read of a value that is not read again.
const Never = 1 << 30

// Held is a value in a register, as a backend lists it for Fit.
type Held struct {
	G     int      // the value's group
	V     ir.Value // the value
	Cheap bool     // rematerialized where read next: leaves before any value that must be stored
	Keep  bool     // stays whatever its next read (a register the instruction has reserved)
}

// Registers is a backend's registers as the Allocator sees them.
type Registers interface {
	// Held lists the values in registers at position k that count
	// against the budget; of equal candidates the first leaves.
	Held(k int) []Held
	// Evict takes h out of its register: to memory, or nowhere if Cheap.
	Evict(h Held)
	// Need is the registers instruction e takes at position k beyond
	// those of its operands already held (0 where the backend calls Fit
	// as it allocates).
	Need(k int, e ir.Event) int
}

// Allocator decides which values leave the registers as a backend emits
// the groups of an iteration in their merged order.
type Allocator struct {
	p      *ir.Program
	budget int
	regs   Registers
	// uses[g][v]: the positions reading group g's value v, ascending;
	// the outputs are read at the group's last position.
	uses [][][]int
	// blocks[g]: the first instructions of group g's open rare blocks,
	// innermost last. Inside a block only the values computed in it may
	// leave their registers: the values from before must be where they
	// were whether the block ran or was skipped.
	blocks [][]int
}

// New returns the allocator of the groups running p in order, within
// budget registers; alias, if not nil, maps each value to the one that
// holds it.
func New(p *ir.Program, order []ir.Event, alias []ir.Value, budget int, regs Registers) *Allocator {
	groups := 0
	for _, e := range order {
		groups = max(groups, e.G+1)
	}
	a := &Allocator{p: p, budget: budget, regs: regs, uses: make([][][]int, groups), blocks: make([][]int, groups)}
	read := func(g int, v ir.Value, k int) {
		if alias != nil {
			v = alias[v]
		}
		if r := a.uses[g][v]; len(r) == 0 || r[len(r)-1] != k {
			a.uses[g][v] = append(r, k)
		}
	}
	last := make([]int, groups)
	for g := range a.uses {
		a.uses[g] = make([][]int, len(p.Code))
	}
	for k, e := range order {
		for _, v := range p.Code[e.I].Args {
			read(e.G, v, k)
		}
		last[e.G] = k
	}
	for g := range a.uses {
		for _, o := range p.Outputs {
			read(g, o, last[g])
		}
	}
	return a
}

// Next returns the first read of group g's value v at or after position
// k, or Never.
func (a *Allocator) Next(g int, v ir.Value, k int) int {
	r := a.uses[g][v]
	if j, _ := slices.BinarySearch(r, k); j < len(r) {
		return r[j]
	}
	return Never
}

// InBlock reports whether group g is inside a rare block.
func (a *Allocator) InBlock(g int) bool { return len(a.blocks[g]) > 0 }

// Before makes room for instruction e at position k (Registers.Need)
// and opens or closes the rare block it starts or ends.
func (a *Allocator) Before(k int, e ir.Event) {
	in := &a.p.Code[e.I]
	if in.Op == ir.OpEndRare {
		a.blocks[e.G] = a.blocks[e.G][:len(a.blocks[e.G])-1]
		return
	}
	a.Fit(k, e.G, a.regs.Need(k, e), in.Args)
	if in.Op == ir.OpRare {
		a.blocks[e.G] = append(a.blocks[e.G], e.I)
	}
}

// Fit evicts held values until they and need more registers fit the
// budget at position k, where group g emits an instruction reading keep:
// the value read again last goes first (a cheap one before any other),
// never one of keep, and inside g's rare block only a cheap value or one
// the block computed.
func (a *Allocator) Fit(k, g, need int, keep []ir.Value) {
	if need == 0 {
		return
	}
	held := a.regs.Held(k)
	b := a.blocks[g]
	for len(held)+need > a.budget {
		best, far := -1, -1
		for j, h := range held {
			fixed := len(b) > 0 && (h.G != g || int(h.V) < b[len(b)-1]) // from before g's innermost block
			if h.Keep || h.G == g && slices.Contains(keep, h.V) || !h.Cheap && fixed {
				continue
			}
			next := a.Next(h.G, h.V, k)
			if h.Cheap {
				next += 1 << 20
			}
			if next > far {
				best, far = j, next
			}
		}
		if best < 0 {
			panic(fmt.Sprintf("%s: %d values held and %d more registers exceed %d at position %d", a.p.Name, len(held), need, a.budget, k))
		}
		a.regs.Evict(held[best])
		held = slices.Delete(held, best, best+1)
	}
}
