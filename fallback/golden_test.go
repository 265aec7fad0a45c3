package fallback_test

import (
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// TestGolden pins the operation order of the specification kernel: the
// SHA-256 of its results on the golden batch (adversarial pairs of every
// category plus NaN, Inf and overflowing lanes) must be verify.GoldenHash,
// on every GOARCH and with GOAMD64=v3 (where the compiler would fuse an
// unwrapped x*y+z into an FMA). package kernel checks the same hash on
// every path.
func TestGolden(t *testing.T) {
	ps := soa.FromPairs(verify.GoldenPairs())
	n := ps.Len()
	res := soa.NewResults(n)
	fallback.BatchClosest(n, ps.AX, ps.AY, ps.AZ, ps.BX, ps.BY, ps.BZ, ps.CX, ps.CY, ps.CZ,
		ps.DX, ps.DY, ps.DZ, res.S, res.T, res.Dist2)
	if got := verify.HashResults(res); got != verify.GoldenHash {
		t.Fatalf("golden hash of fallback.BatchClosest = %s, want %s.\n"+
			"A changed hash means a changed IEEE-754 operation order (or clamp/NaN rule) in "+
			"fallback.ClosestLane, or an FMA the compiler fused: results would no longer be "+
			"bit-identical across paths and platforms (docs/design.md, \"The spec's rules (determinism)\"). If the change is "+
			"deliberate, change the assembly to match and update verify.GoldenHash in the same commit.",
			got, verify.GoldenHash)
	}
}
