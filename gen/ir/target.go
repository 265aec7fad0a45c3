package ir

// Target is one instruction set the kernels are generated for: its lanes
// and registers, which the loop drivers and the schedules size
// themselves by. How a target holds masks, handles the tail group, parks
// values and skips rare blocks belongs to its backend.
type Target struct {
	Name      string // suffix of the generated function names: AVX2, AVX512, NEON
	Arch      string // GOARCH: amd64 or arm64
	Elem      Elem   // the float lanes' type
	Lanes     int    // lanes per vector register
	ElemBytes int    // bytes per lane
	VecRegs   int    // vector registers the code may use
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

// The targets.
var (
	AVX2   = &Target{Name: "AVX2", Arch: "amd64", Lanes: 8, ElemBytes: 4, VecRegs: 16}
	AVX512 = &Target{Name: "AVX512", Arch: "amd64", Lanes: 16, ElemBytes: 4, VecRegs: 32}
	NEON   = &Target{Name: "NEON", Arch: "arm64", Lanes: 4, ElemBytes: 4, VecRegs: 32}
)
