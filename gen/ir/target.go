package ir

// MaskStyle is how a target holds a lane mask.
type MaskStyle uint8

const (
	OpmaskRegs MaskStyle = iota // AVX-512: k registers
	VectorMask                  // AVX2, NEON: all-ones or all-zeros lanes in a vector register
)

// TailStyle is how a target handles the n mod Lanes lanes after the last
// whole group.
type TailStyle uint8

const (
	// MaskedTail runs one more group with masked loads and stores (lanes
	// past n are never touched): AVX-512 opmasks, AVX2 VMASKMOVPS.
	MaskedTail TailStyle = iota
	// LaneTail loads the remaining lanes one at a time into a zeroed group
	// and stores them one at a time (NEON has no masked memory access).
	LaneTail
)

// Target is one instruction set the kernels are generated for: everything
// a backend and its loop drivers need to know that the kernel bodies do
// not.
type Target struct {
	Name      string    // suffix of the generated function names: AVX2, AVX512, NEON
	Arch      string    // GOARCH: amd64 or arm64
	Elem      Elem      // the float lanes' type
	Lanes     int       // lanes per vector register
	ElemBytes int       // bytes per lane
	VecRegs   int       // vector registers the code may use
	Masks     MaskStyle // how lane masks are held
	Tail      TailStyle // how the last partial group is handled

	// Parks says which reasons for parking (Builder.Park) keep a value in
	// a stack slot on this target: the spill policy. Targets with 16
	// registers park long-lived values; the contact kernels' rare blocks
	// park their values on amd64 so that the common path's registers stay
	// allocated through them.
	Parks [numParks]bool

	// SkipRare makes the drivers branch over a rare block for a group with
	// no lane of its mask set (else the block runs for every group).
	SkipRare bool
}

// Of returns t for lanes of type e: the same registers holding
// VecBytes/e.Bytes() lanes (t itself for t.Elem).
func (t *Target) Of(e Elem) *Target {
	if e == t.Elem {
		return t
	}
	u := *t
	u.Elem, u.Lanes, u.ElemBytes = e, t.VecBytes()/e.Bytes(), e.Bytes()
	return &u
}

// VecBytes is the size of one vector register in bytes.
func (t *Target) VecBytes() int { return t.Lanes * t.ElemBytes }

// Parked reports whether the target keeps values parked for why in memory.
func (t *Target) Parked(why Park) bool { return t.Parks[why] }

// The targets.
var (
	AVX2 = &Target{
		Name: "AVX2", Arch: "amd64", Lanes: 8, ElemBytes: 4, VecRegs: 16,
		Masks: VectorMask, Tail: MaskedTail,
		Parks:    [numParks]bool{Edges: true, LongLived: true, RareBlock: true},
		SkipRare: true,
	}
	AVX512 = &Target{
		Name: "AVX512", Arch: "amd64", Lanes: 16, ElemBytes: 4, VecRegs: 32,
		Masks: OpmaskRegs, Tail: MaskedTail,
		Parks:    [numParks]bool{RareBlock: true},
		SkipRare: true,
	}
	NEON = &Target{
		Name: "NEON", Arch: "arm64", Lanes: 4, ElemBytes: 4, VecRegs: 32,
		Masks: VectorMask, Tail: LaneTail,
		SkipRare: true,
	}
)
