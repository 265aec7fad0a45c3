package amd64

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/segdist/segdist/gen/ir"
	"github.com/segdist/segdist/gen/tuning"
)

// Default returns the schedule of every amd64 target: the fastest
// settings measured (docs/levers.md), one block per target for float32;
// float64 differs where it says so.
func Default() Schedules {
	pinned := []string{"half", "partol", "crosstol"}
	one := ir.Merge{Groups: 1}
	avx512 := Schedule{Target: ir.AVX512,
		Bodies:   Bodies{Reorder: true, Spill: true, DeferOverrides: true},
		Streams:  Streams{Closest: StreamLoop{ir.Merge{Groups: 4, Skew: 0.15}, true}, Point: StreamLoop{one, true}, Stream: StreamLoop{one, false}, SpillSlots: 8, PrefetchBytes: 1024, PrefetchL2: true},
		Indexed:  RecordLoop{Merge: ir.Merge{Groups: 4, Skew: 0.4}, NextRecordsAt: 0.22},
		Contacts: ContactLoops{Rows: RecordLoop{ir.Merge{Groups: 1, Skew: 0.5}, 0.217, 0}, Compact: RecordLoop{ir.Merge{Groups: 1, Skew: 0.5}, 0.217, 0}, LateCompaction: true, PinnedConstants: pinned},
		Planes:   ContactLoops{Rows: RecordLoop{ir.Merge{Groups: 1, Skew: 0.5}, 0.217, 0}, Compact: RecordLoop{ir.Merge{Groups: 1, Skew: 0.5}, 0.217, 0}, LateCompaction: true, PinnedConstants: pinned},
		Poses:    PoseLoop{Merge: one},
		TOI:      ir.Merge{Groups: 3, Skew: 0.33},
	}
	avx512F64 := avx512
	avx512F64.Target, avx512F64.Indexed.Merge.Groups = ir.AVX512.Of(ir.F64), 3
	avx2 := Schedule{Target: ir.AVX2,
		Bodies:   Bodies{Reorder: true, Spill: true, DeferOverrides: true},
		Streams:  Streams{Closest: StreamLoop{ir.Merge{Groups: 3, Skew: 0.1}, true}, Point: StreamLoop{one, true}, Stream: StreamLoop{one, false}, PrefetchBytes: 1024},
		Indexed:  RecordLoop{Merge: ir.Merge{Groups: 2, Skew: 0.4}, NextRecordsAt: 0.22},
		Contacts: ContactLoops{Rows: RecordLoop{ir.Merge{Groups: 2, Skew: 0.1}, 0.22, 0.3}, Compact: RecordLoop{ir.Merge{Groups: 2, Skew: 0.1}, 0.22, 0.3}, Spill: true},
		Planes:   ContactLoops{Rows: RecordLoop{ir.Merge{Groups: 2, Skew: 0.1}, 0.22, 0.3}, Compact: RecordLoop{ir.Merge{Groups: 2, Skew: 0.1}, 0.22, 0.3}, Spill: true},
		Poses:    PoseLoop{Merge: one},
		TOI:      ir.Merge{Groups: 3, Skew: 0.33},
	}
	avx2F64 := avx2
	avx2F64.Target = ir.AVX2.Of(ir.F64)
	return Schedules{NTMinLanes: 1 << 18, AVX512F32: avx512, AVX512F64: avx512F64, AVX2F32: avx2, AVX2F64: avx2F64}
}

// Schedules is how the loop drivers run every kernel on every amd64
// target: one Schedule per target and element type, and what package
// kernel must see as one value.
type Schedules struct {
	// NTMinLanes is the batch size from which the closest-point loops use
	// non-temporal stores on 64-byte-aligned outputs (0: never), published
	// as asm.NTMinLanes (docs/levers.md, "Large batches and memory").
	NTMinLanes int

	AVX512F32, AVX512F64, AVX2F32, AVX2F64 Schedule
}

// Schedule is how the loop drivers run the kernels of one target and
// element type.
type Schedule struct {
	Target   *ir.Target
	Bodies   Bodies       // the closest-point bodies (Batch, ClosestIndexed)
	Streams  Streams      // the stream loops (Batch)
	Indexed  RecordLoop   // the record loop of ClosestIndexed
	Contacts ContactLoops // Contacts and CompactContacts
	Planes   ContactLoops // the plane contact kernels' record loops
	Poses    PoseLoop
	// TOI is the groups the time-of-impact loop merges: 3 measured 30%
	// faster than 1, 4 no faster than 3 (docs/levers.md, "Time of impact").
	TOI ir.Merge
}

// PoseLoop is how the pose loop (Poses) runs kernels.Pose; the indexed
// loop (PosesIndexed) runs one group at a time.
type PoseLoop struct {
	// Merge is the groups per iteration of the main loop and their skew.
	ir.Merge
	// Reorder is Bodies.Reorder for the pose body.
	Reorder bool
}

// Bodies is how the drivers prepare the closest-point bodies (Batch and
// ClosestIndexed) before they lower them; each knob measured faster
// (docs/levers.md, "Closest kernels").
type Bodies struct {
	// Reorder reorders the body as late as possible (ir.Schedule with
	// latencyOf) before its groups merge.
	Reorder bool
	// Spill spills the value read again last when registers run out
	// (spiller) instead of parking the values the body marks (parked); the
	// low skews of Streams.Closest allocate only so.
	Spill bool
	// DeferOverrides leaves the canonical NaN of non-finite lanes to the
	// caller: each group ORs their mask into the kernel's result.
	DeferOverrides bool
}

// Streams is how the stream loops (Batch) run the closest, point and
// stream kernels.
type Streams struct {
	// Closest, Point and Stream are each kernel's loop: only the closest
	// body's long chain gains from several groups (docs/levers.md, "Closest
	// kernels").
	Closest, Point, Stream StreamLoop
	// SpillSlots is the stack slots per group of a spilling loop of several
	// groups (0: spillSlots); 8, the least the AVX-512 loops need, keeps
	// small batches fast (docs/levers.md, "Per-call cost").
	SpillSlots int
	// PrefetchBytes is how far ahead the large-batch loops prefetch each
	// input stream (0: no large-batch loops); 512 to 1,536 measured alike
	// (docs/levers.md, "Large batches and memory").
	PrefetchBytes int
	// PrefetchL2 prefetches into L2 (PREFETCHT1) rather than L1: faster for
	// AVX-512 on a million pairs, slower for AVX2 (same section).
	PrefetchL2 bool
}

// StreamLoop is how Batch runs one kernel.
type StreamLoop struct {
	// Merge is the groups per iteration of the main loop and their skew.
	ir.Merge
	// LargeBatch adds the large-batch loops (non-temporal stores from
	// NTMinLanes, prefetching from prefetchMinLanes); the memory floor has
	// none (docs/levers.md, "Large batches and memory").
	LargeBatch bool
}

// RecordLoop is how a loop over capsule records read by index
// (recordLoop) runs a body: a loop of Merge.Groups groups per iteration
// (if more than one), then a loop of one group, then the masked tail.
type RecordLoop struct {
	ir.Merge
	// NextRecordsAt is where in the one-group loop's body (a fraction of its
	// instructions) the next group's records load (0: at the top): 0.22 is
	// the fastest that allocates, 0.217 in the longer AVX-512 contact body
	// (docs/levers.md, "Contact kernels").
	NextRecordsAt float64
	// WideRecordsAt is NextRecordsAt for the loop of several groups; with it
	// that loop runs only while the records fit in L2, where it was faster
	// (docs/levers.md, "Large batches and memory").
	WideRecordsAt float64
}

// ContactLoops is how the record loops run the contact kernels (figures
// in docs/levers.md, "Contact kernels").
type ContactLoops struct {
	// Rows and Compact are the loops of Contacts (a row per pair) and
	// CompactContacts: AVX-512 was slower with two groups, AVX2 faster.
	Rows, Compact RecordLoop
	// Reorder is Bodies.Reorder for the contact body: off, as the AVX-512
	// bodies measured the same and the AVX2 ones slower.
	Reorder bool
	// Spill is Bodies.Spill for the one-group loops (those of several
	// groups always spill): it pays on AVX2, not on AVX-512.
	Spill bool
	// LateCompaction makes each group of the compaction loop stage its rows
	// for the next group to compact once its touching mask is long known:
	// it pays on AVX-512, and AVX2's stage costs more than it saves.
	LateCompaction bool
	// PinnedConstants names the constants held in registers for the whole
	// kernel instead of broadcast at each use: AVX-512 has registers free.
	PinnedConstants []string
}

// Name is the schedule's name in Schedules (AVX512F32, AVX2F64, ...).
func (s *Schedule) Name() string { return s.Target.Name + [...]string{"F32", "F64"}[s.Target.Elem] }

// All returns the schedules of every target, in Declare's order.
func (ss *Schedules) All() []*Schedule {
	return []*Schedule{&ss.AVX2F32, &ss.AVX512F32, &ss.AVX2F64, &ss.AVX512F64}
}

// Of returns the schedule of target t.
func (ss *Schedules) Of(t *ir.Target) *Schedule {
	for _, s := range ss.All() {
		if s.Target.Name == t.Name && s.Target.Elem == t.Elem {
			return s
		}
	}
	panic("amd64: no schedule for " + t.Name)
}

// Validate reports the first setting that cannot work, naming it.
func (ss *Schedules) Validate() error {
	if ss.NTMinLanes < 0 {
		return fmt.Errorf("NTMinLanes = %d: want 0 (never) or more", ss.NTMinLanes)
	}
	for _, s := range ss.All() {
		if err := s.validate(); err != nil {
			return fmt.Errorf("%s: %w", s.Name(), err)
		}
	}
	return nil
}

func (s *Schedule) validate() error {
	// The ranges of the numeric settings, by the name their path ends in.
	for _, f := range tuning.Fields(s) {
		name, v := f.Path[strings.LastIndex(f.Path, ".")+1:], f.Value
		switch {
		case name == "Groups" && v.Int() < 1:
			return fmt.Errorf("%s = %d: want 1 group or more", f.Path, v.Int())
		case name == "Skew" && (v.Float() < 0 || v.Float() > 1):
			return fmt.Errorf("%s = %v: want a skew from 0 to 1", f.Path, v.Float())
		case strings.HasSuffix(name, "RecordsAt") && (v.Float() < 0 || v.Float() >= 1):
			return fmt.Errorf("%s = %v: want a fraction from 0 (off) to below 1", f.Path, v.Float())
		case v.Kind() == reflect.Int && v.Int() < 0:
			return fmt.Errorf("%s = %d: want 0 or more", f.Path, v.Int())
		}
	}
	if !s.Bodies.Spill && (s.Streams.Closest.Groups > 1 || s.Indexed.Groups > 1) {
		return fmt.Errorf("Bodies.Spill = false needs Streams.Closest.Groups = 1 and Indexed.Groups = 1, not %d and %d: parked, merged groups do not fit the registers",
			s.Streams.Closest.Groups, s.Indexed.Groups)
	}
	// avo's liveness takes the upper halves of the zmm registers that the
	// float32 record transposes load at 256 bits (records16) as live from
	// the function's entry, which costs the AVX-512 record loops registers.
	records16 := evex(s.Target) && s.Target.Elem == ir.F32
	if records16 && s.Indexed.Groups >= 4 && (!s.Bodies.Reorder || s.Indexed.Skew < 0.4) {
		return fmt.Errorf("Indexed.Groups = %d, Indexed.Skew = %v, Bodies.Reorder = %v: avo allocates 4 groups or more only reordered, at skew 0.4 or more (records16)",
			s.Indexed.Groups, s.Indexed.Skew, s.Bodies.Reorder)
	}
	if err := s.Contacts.validate(s.Target, "Contacts"); err != nil {
		return err
	}
	return s.Planes.validate(s.Target, "Planes")
}

// validate reports the first setting of contact loops c (the schedule's
// field name) that cannot work on t.
func (c *ContactLoops) validate(t *ir.Target, name string) error {
	if evex(t) && t.Elem == ir.F32 && (c.Rows.Groups > 1 || c.Compact.Groups > 1) {
		return fmt.Errorf("%[1]s.Rows.Groups = %[2]d, %[1]s.Compact.Groups = %[3]d: avo does not allocate them (records16)",
			name, c.Rows.Groups, c.Compact.Groups)
	}
	if c.LateCompaction {
		switch {
		case c.Compact.Groups > 1:
			return fmt.Errorf("%[1]s.LateCompaction needs %[1]s.Compact.Groups = 1 (the stage holds one group's rows), not %[2]d", name, c.Compact.Groups)
		case c.Compact.NextRecordsAt == 0:
			return fmt.Errorf("%[1]s.LateCompaction needs %[1]s.Compact.NextRecordsAt (the pipelined loop's groups stage their rows)", name)
		case !evex(t) && t.Elem == ir.F64:
			return fmt.Errorf("%s.LateCompaction: the AVX2 float64 contact sink has no stage", name)
		}
	}
	return nil
}
