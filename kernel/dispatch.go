package kernel

import (
	"os"
	"slices"

	"github.com/segdist/segdist/soa"
)

// EnvISA is the environment variable that forces a path at start-up:
// "go", "avx2", "avx512" or "neon". A path this CPU cannot run is never used:
// asking for one falls back to the best available, and ISA says which.
const EnvISA = "SEGDIST_ISA"

// paths lists the kernels this CPU and build can run, best first. The
// architecture files prepend theirs in init; "go" is always last.
var paths = []Kernel{goKernel}

// goKernel is the pure-Go path, available everywhere.
var goKernel = Kernel{
	isa: "go", f32: &impl[float32]{closest: goClosest, stream: goStream,
		point: goPoint, contacts: goContacts[float32], compact: goCompact[float32], indexed: goIndexed[float32],
		planes: goPlanes[float32], planesCompact: goPlanesCompact[float32], poses: goPoses[float32], toi: goTOI[float32]},
	f64: &impl[float64]{closest: goClosest64, stream: goStream64, point: goPoint64,
		contacts: goContacts[float64], compact: goCompact[float64], indexed: goIndexed[float64],
		planes: goPlanes[float64], planesCompact: goPlanesCompact[float64], poses: goPoses[float64], toi: goTOI[float64]},
}

// withGoKernels fills the kernels a path does not generate with the Go
// spec's, which returns the same bits.
func withGoKernels(ks []Kernel) []Kernel {
	for _, k := range ks {
		fillImpl(k.f32, goKernel.f32)
		fillImpl(k.f64, goKernel.f64)
	}
	return ks
}

func fillImpl[F soa.Float](p, spec *impl[F]) {
	if p.planes == nil {
		p.planes, p.planesCompact = spec.planes, spec.planesCompact
	}
	if p.poses == nil {
		p.poses = spec.poses
	}
	if p.toi == nil {
		p.toi = spec.toi
	}
}

// active is the path the package-level functions use, chosen once.
var active Kernel

func init() {
	paths = append(withGoKernels(archPaths()), paths...)
	active = choose(os.Getenv(EnvISA))
}

// choose returns the path named want if it is available, else the best.
func choose(want string) Kernel {
	if k, ok := Lookup(want); ok {
		return k
	}
	return paths[0]
}

// ISA returns the name of the path BatchClosest uses: "avx512", "avx2",
// "neon" or "go".
func ISA() string { return active.isa }

// Active returns the path the package-level functions use (see ISA), for
// callers that want it as a value, such as NewParallel.
func Active() Kernel { return active }

// Available returns the names of the paths this CPU and build can run, best
// first; "go" is always last.
func Available() []string {
	names := make([]string, len(paths))
	for i, k := range paths {
		names[i] = k.isa
	}
	return names
}

// Lookup returns the path named isa if this CPU and build can run it.
// Tests and benchmarks use it to run every path in one process.
func Lookup(isa string) (Kernel, bool) {
	i := slices.IndexFunc(paths, func(k Kernel) bool { return k.isa == isa })
	if i < 0 {
		return Kernel{}, false
	}
	return paths[i], true
}
