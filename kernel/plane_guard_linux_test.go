//go:build linux

package kernel_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// TestPlaneContactsGuardPage places the capsule records, the plane
// records, the two index arrays and the thirteen output streams of
// BatchPlaneContacts and CompactPlaneContacts (and their float64 twins)
// each in its own mmap region (newGuarded), ending exactly at a PROT_NONE
// page, then starting right after one; the pairs use the last and the
// first capsule and plane. A kernel that reads or writes one byte outside
// any slice dies with SIGSEGV. Every path, the lengths of
// guardPrefetchCases (every tail of every width, and the lengths around
// where the loops prefetch the capsule records of the groups ahead), rows
// checked bit for bit against the go path.
func TestPlaneContactsGuardPage(t *testing.T) {
	defer kernel.ForceRecordPrefetch(false)() // the size rule again, even after a failure
	const maxN = 193
	_, caps0, planes0, pairs0 := planeScene(40, true) // 240 cases: a record for each of maxN
	capR, planeR := newGuarded(t, 64*maxN), newGuarded(t, 64*maxN)
	idxR := [2]*guarded{newGuarded(t, 4*maxN), newGuarded(t, 4*maxN)}
	outR := make([]*guarded, 13)
	for i := range outR {
		outR[i] = newGuarded(t, 8*maxN)
	}
	goK := lookup(t, "go")
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, c := range guardPrefetchCases() {
			kernel.ForceRecordPrefetch(c.prefetch) // the defer above restores the rule
			place, n := c.place, c.n
			at := func(g *guarded, n int) []float32 { return g.at(place, n) }
			caps := ctCapsulesIn(at(capR, 8*n))
			copy(caps, caps0)
			planes := planesIn(at(planeR, 8*n))
			copy(planes, planes0)
			pairs := &soa.IndexPairs{I: ctGuardU32(at(idxR[0], n)), J: ctGuardU32(at(idxR[1], n))}
			for j := range n {
				pairs.I[j], pairs.J[j] = pairs0.I[j]%uint32(n), pairs0.J[j]%uint32(n)
			}
			pairs.I[n-1], pairs.J[0] = uint32(n-1), uint32(n-1) // the last records, at both ends
			pairs.I[0], pairs.J[n-1] = 0, 0
			what := fmt.Sprintf("guard %s n=%d prefetch %v", place, n, c.prefetch)

			dst := &soa.Contacts{Pair: ctGuardU32(at(outR[0], n)), Count: ctGuardU32(at(outR[1], n))}
			for i, s := range ctFloatStreams(dst) {
				*s = at(outR[2+i], n)
			}
			want := soa.NewContacts(n)
			for _, margin := range []float32{0, 0.5} {
				goK.BatchPlaneContacts(want, caps, planes, pairs, margin)
				k.BatchPlaneContacts(dst, caps, planes, pairs, margin)
				checkSameRows(t, "BatchPlaneContacts "+what, dst, want, n)
				m := goK.CompactPlaneContacts(want, caps, planes, pairs, margin)
				if got := k.CompactPlaneContacts(dst, caps, planes, pairs, margin); got != m {
					t.Fatalf("CompactPlaneContacts %s: %d rows, want %d", what, got, m)
				}
				checkSameRows(t, "CompactPlaneContacts "+what, dst, want, m)
			}

			caps64 := unsafe.Slice((*soa.Capsule64)(unsafe.Pointer(&at(capR, 16*n)[0])), n)
			copy(caps64, verify.WidenCapsules(caps0[:n]))
			planes64 := unsafe.Slice((*soa.Plane64)(unsafe.Pointer(&at(planeR, 16*n)[0])), n)
			copy(planes64, widenPlanes(planes0[:n]))
			dst64 := &soa.Contacts64{Pair: ctGuardU32(at(outR[0], n)), Count: ctGuardU32(at(outR[1], n))}
			for i, s := range []*[]float64{&dst64.Depth1, &dst64.Depth2, &dst64.NX, &dst64.NY, &dst64.NZ, &dst64.P1X, &dst64.P1Y, &dst64.P1Z, &dst64.P2X, &dst64.P2Y, &dst64.P2Z} {
				*s = guardF64(at(outR[2+i], 2*n))
			}
			want64 := soa.NewContacts64(n)
			for _, margin := range []float64{0, 0.5} {
				goK.BatchPlaneContacts64(want64, caps64, planes64, pairs, margin)
				k.BatchPlaneContacts64(dst64, caps64, planes64, pairs, margin)
				checkSameRows(t, "BatchPlaneContacts64 "+what, dst64, want64, n)
				m := goK.CompactPlaneContacts64(want64, caps64, planes64, pairs, margin)
				if got := k.CompactPlaneContacts64(dst64, caps64, planes64, pairs, margin); got != m {
					t.Fatalf("CompactPlaneContacts64 %s: %d rows, want %d", what, got, m)
				}
				checkSameRows(t, "CompactPlaneContacts64 "+what, dst64, want64, m)
			}
		}
	})
}

// planesIn views f (8 float32s a plane) as plane records.
func planesIn(f []float32) soa.Planes {
	return unsafe.Slice((*soa.Plane)(unsafe.Pointer(&f[0])), len(f)/8)
}
