package neon

import (
	"fmt"
	"strings"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/tuning"
)

// Default returns the schedule of the NEON kernels, chosen with llvm-mca
// -mcpu=neoverse-v2 (no arm64 hardware has run them): two closest groups
// predict a few percent fewer cycles per pair than one, and from skew 0.5
// up they need no spills (docs/levers.md, "arm64 NEON (predicted)").
func Default() Schedules {
	one := ir.Merge{Groups: 1}
	return Schedules{
		NEONF32: Schedule{Target: ir.NEON, Closest: ir.Merge{Groups: 2, Skew: 0.55}, Point: one, Stream: one},
		NEONF64: Schedule{Target: ir.NEON.Of(ir.F64), Closest: ir.Merge{Groups: 2, Skew: 0.55}, Point: one, Stream: one},
	}
}

// Schedules is the schedule of each NEON element type.
type Schedules struct {
	NEONF32, NEONF64 Schedule
}

// Schedule is how the NEON batch loops (Batch) run the closest, point
// and stream kernels: groups per iteration of the main loop, merged with
// a skew (ir.Interleave), at most two (one more offset register). The
// record loops (contacts, plane contacts, indexed closest) and the pose
// loop run one group: they have no settings.
type Schedule struct {
	Target                 *ir.Target
	Closest, Point, Stream ir.Merge
}

// All returns both schedules, float32 first.
func (ss *Schedules) All() []*Schedule { return []*Schedule{&ss.NEONF32, &ss.NEONF64} }

// Validate reports the first setting that cannot work, naming it.
func (ss *Schedules) Validate() error {
	for _, f := range tuning.Fields(ss) {
		switch v := f.Value; {
		case strings.HasSuffix(f.Path, ".Groups") && (v.Int() < 1 || v.Int() > 2):
			return fmt.Errorf("%s = %d: want 1 or 2 groups (one more offset register)", f.Path, v.Int())
		case strings.HasSuffix(f.Path, ".Skew") && (v.Float() < 0 || v.Float() > 1):
			return fmt.Errorf("%s = %v: want a skew from 0 to 1", f.Path, v.Float())
		}
	}
	return nil
}
