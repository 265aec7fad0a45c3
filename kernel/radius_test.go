package kernel_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// negativeRadii are the radii that make a capsule bad input.
var negativeRadii = []float64{-math.SmallestNonzeroFloat32, -1e-30, -0.25, -1, -1e30, -math.MaxFloat32}

// TestContactsNegativeRadius gives one capsule a negative radius: on every
// path, in float32 and float64, every row of a pair that uses it (as I, J
// or both) is Count 0 with the canonical NaN everywhere, whatever the
// distance, every other row is the specification's, and CompactContacts
// skips the bad rows. A radius of -0 is zero: those rows are ordinary.
func TestContactsNegativeRadius(t *testing.T) {
	const nCaps, m, bad = 40, 150, 17
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, r := range append(negativeRadii, math.Copysign(0, -1)) {
			caps, pairs := ctScene(ctSeed, nCaps, m, false)
			caps[bad].R = float32(r)
			// The bad capsule against itself (distance 0), against a
			// neighbour and as J.
			pairs.Append(bad, bad)
			pairs.Append(bad, 0)
			pairs.Append(1, bad)
			caps64 := verify.WidenCapsules(caps)
			what := fmt.Sprintf("caps[%d].R = %v", bad, r)

			dst := soa.NewContacts(pairs.Len())
			k.BatchContacts(dst, caps, pairs, 0.5)
			ctCheckBatch(t, what, dst, caps, pairs, 0.5)
			dst64 := soa.NewContacts64(pairs.Len())
			k.BatchContacts64(dst64, caps64, pairs, 0.5)
			check64Batch(t, what+" float64", dst64, caps64, pairs, 0.5)
			for row := range pairs.Len() {
				if pairs.I[row] != bad && pairs.J[row] != bad {
					continue
				}
				_, c := verify.ContactRow(dst, row)
				_, c64 := row64(dst64, row)
				nan, nan64 := verify.IsNaNContact(c), c64.Count == 0 && math.Float64bits(c64.Depth[0]) == 0x7FF8000000000000 &&
					math.Float64bits(c64.Normal[2]) == 0x7FF8000000000000 && math.Float64bits(c64.Point[1][2]) == 0x7FF8000000000000
				if r < 0 && (!nan || !nan64) {
					t.Fatalf("%s: row %d uses the capsule but is %+v / %+v, want Count 0 and the canonical NaN", what, row, c, c64)
				}
				if r == 0 && (nan || nan64 || pairs.I[row] == pairs.J[row] && (c.Count == 0 || c64.Count == 0)) {
					t.Fatalf("%s: row %d is %+v / %+v, want an ordinary row (touching for the capsule against itself)", what, row, c, c64)
				}
			}
			cdst := soa.NewContacts(pairs.Len())
			ctFill(cdst)
			ctCheckCompact(t, what, k.CompactContacts(cdst, caps, pairs, 0.5), cdst, caps, pairs, 0.5)
			cdst64 := soa.NewContacts64(pairs.Len())
			check64Compact(t, what+" float64", k.CompactContacts64(cdst64, caps64, pairs, 0.5), cdst64, caps64, pairs, 0.5)
		}
	})
}
