// Package alloc is the register allocation layer the backends share:
// the reads of each value in emission order, Belady's rule (the value
// read again last leaves the registers first) and the rule of rare
// blocks. Each backend applies them to its own registers: amd64 spills
// within a budget of avo's virtual registers, NEON assigns physical ones
// (docs/design.md, "The IR and its backends").
package alloc

import (
	"slices"

	"github.com/segdist/segdist/gen/ir"
)

// Never is the next read of a value that is not read again.
const Never = 1 << 30

// Uses holds, for each value of a group, the positions in emission order
// that read it, ascending.
type Uses [][]int

// NewUses returns the uses of n values, none yet.
func NewUses(n int) Uses { return make(Uses, n) }

// Add records a read of v at position pos (at or after its last).
func (u Uses) Add(v ir.Value, pos int) {
	if r := u[v]; len(r) == 0 || r[len(r)-1] != pos {
		u[v] = append(r, pos)
	}
}

// Next returns the first read of v at or after position k, or Never.
func (u Uses) Next(v ir.Value, k int) int {
	r := u[v]
	if j, _ := slices.BinarySearch(r, k); j < len(r) {
		return r[j]
	}
	return Never
}

// Furthest returns which of n candidates leaves the registers: the one
// whose next read (next(j), if ok) is furthest, the first of equals, or
// -1 if none may go.
func Furthest(n int, next func(j int) (at int, ok bool)) int {
	best, far := -1, -1
	for j := range n {
		if at, ok := next(j); ok && at > far {
			best, far = j, at
		}
	}
	return best
}

// Blocks are the first instructions of the rare blocks open at the
// current one, innermost last. Inside a block only the values computed
// in it may leave their registers: the values from before must be where
// they were whether the block ran or was skipped.
type Blocks []int

// Enter opens the block that instruction i starts.
func (b *Blocks) Enter(i int) { *b = append(*b, i) }

// Leave closes the innermost block.
func (b *Blocks) Leave() { *b = (*b)[:len(*b)-1] }

// Open reports whether a block is open.
func (b Blocks) Open() bool { return len(b) > 0 }

// Fixed reports whether value v must stay where it is: it was computed
// before the innermost open block.
func (b Blocks) Fixed(v ir.Value) bool { return len(b) > 0 && int(v) < b[len(b)-1] }
