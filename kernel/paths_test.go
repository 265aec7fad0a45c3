package kernel_test

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/segdist/segdist/asm"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// paths returns kernel.Available(). When SEGDIST_TEST_REQUIRE names a path
// that is not available, t fails: CI sets it to the paths its CPU has, so
// a broken dispatch cannot turn the per-path tests green by running only
// "go". The requirement applies to builds with assembly (amd64, gc, not
// purego); other builds have only "go" by construction.
func paths(t testing.TB) []string {
	t.Helper()
	avail := kernel.Available()
	for _, want := range strings.Split(os.Getenv(envRequire), ",") {
		if want = strings.TrimSpace(want); want != "" && !slices.Contains(avail, want) {
			if !asmBuild {
				t.Logf("%s names %q: not applicable to this build without assembly", envRequire, want)
				continue
			}
			t.Fatalf("%s=%q requires path %q, but kernel.Available() = %v", envRequire, os.Getenv(envRequire), want, avail)
		}
	}
	if len(avail) == 0 || avail[len(avail)-1] != "go" {
		t.Fatalf("kernel.Available() = %v: \"go\" must always be last", avail)
	}
	return avail
}

// lookup returns the path named isa, failing t if it is missing.
func lookup(t testing.TB, isa string) kernel.Kernel {
	t.Helper()
	k, ok := kernel.Lookup(isa)
	if !ok {
		t.Fatalf("kernel.Lookup(%q) failed, but Available() lists it", isa)
	}
	if k.ISA() != isa {
		t.Fatalf("kernel.Lookup(%q).ISA() = %q", isa, k.ISA())
	}
	return k
}

// forEachPath runs f as a subtest "isa=<name>" for every available path.
func forEachPath(t *testing.T, f func(t *testing.T, k kernel.Kernel)) {
	for _, isa := range paths(t) {
		k := lookup(t, isa)
		t.Run("isa="+isa, func(t *testing.T) { f(t, k) })
	}
}

// forEachPrefetch runs f as subtests "prefetch=true" and "prefetch=false"
// with asm.PrefetchInputs set so: package kernel picks one per CPU, and
// the big-batch loops of both must be tested on every machine. The value
// package kernel chose is restored afterwards.
func forEachPrefetch(t *testing.T, f func(t *testing.T)) {
	chosen := asm.PrefetchInputs
	t.Cleanup(func() { asm.PrefetchInputs = chosen })
	for _, on := range []bool{true, false} {
		asm.PrefetchInputs = on
		t.Run("prefetch="+strconv.FormatBool(on), f)
	}
}

// goResults runs the pure-Go path, the specification, on src.
func goResults(t testing.TB, src *soa.Pairs) *soa.Results {
	t.Helper()
	res := soa.NewResults(src.Len())
	lookup(t, "go").BatchClosest(res, src)
	return res
}

// sameBits reports the first lane where got and want differ in any bit of
// S, T or Dist2, or -1.
func sameBits(got, want *soa.Results) int {
	for i := range want.S {
		if math.Float32bits(got.S[i]) != math.Float32bits(want.S[i]) ||
			math.Float32bits(got.T[i]) != math.Float32bits(want.T[i]) ||
			math.Float32bits(got.Dist2[i]) != math.Float32bits(want.Dist2[i]) {
			return i
		}
	}
	return -1
}

// checkSame fails t with the first differing lane of got and want.
func checkSame(t *testing.T, what string, src *soa.Pairs, got, want *soa.Results) {
	t.Helper()
	if len(got.S) != len(want.S) {
		t.Fatalf("%s: %d results, want %d", what, len(got.S), len(want.S))
	}
	if i := sameBits(got, want); i >= 0 {
		t.Fatalf("%s: lane %d of %d differs: got S,T,Dist2 = %v %v %v (bits %#08x %#08x %#08x), "+
			"want %v %v %v (bits %#08x %#08x %#08x) for %+v",
			what, i, len(want.S), got.S[i], got.T[i], got.Dist2[i],
			math.Float32bits(got.S[i]), math.Float32bits(got.T[i]), math.Float32bits(got.Dist2[i]),
			want.S[i], want.T[i], want.Dist2[i],
			math.Float32bits(want.S[i]), math.Float32bits(want.T[i]), math.Float32bits(want.Dist2[i]),
			src.Get(i))
	}
}

// pool returns a deterministic shuffle of Mixed pairs, at least n of them,
// so that any window of it mixes the categories.
func pool(seed uint64, n int) []soa.Pair {
	per := (n + len(verify.Categories()) - 1) / len(verify.Categories())
	ps := verify.Mixed(seed, per)
	r := verify.NewRand(seed, 1000)
	r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	return ps
}

// isCanonicalNaN reports whether lane i of r is the canonical NaN in all
// three outputs.
func isCanonicalNaN(r *soa.Results, i int) bool {
	return math.Float32bits(r.S[i]) == verify.CanonicalNaNBits &&
		math.Float32bits(r.T[i]) == verify.CanonicalNaNBits &&
		math.Float32bits(r.Dist2[i]) == verify.CanonicalNaNBits
}
