//go:build linux

package kernel_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// TestCapsulesFromPosesGuardPage places the seven pose streams, the local
// records and dst of CapsulesFromPoses (and CapsulesFromPoses64) each in
// its own mmap region (newGuarded), ending exactly at a PROT_NONE page,
// then starting right after one. A kernel that reads or writes one byte
// outside any slice (a whole-vector load of a stream's tail, a record
// past n) dies with SIGSEGV. Every path, lengths 1..40 (every tail of
// every width, and whole iterations of up to two groups), every record
// checked bit for bit against the go path, its padding (filled with
// ones before the call) written zero.
func TestCapsulesFromPosesGuardPage(t *testing.T) {
	const maxN = 40
	local0, poses0 := poseScene(maxN, true)
	local64, poses64 := widenPoses(local0, poses0)
	streamR := make([]*guarded, 7)
	for i := range streamR {
		streamR[i] = newGuarded(t, 8*maxN)
	}
	localR, dstR := newGuarded(t, 64*maxN), newGuarded(t, 64*maxN)
	goK := lookup(t, "go")
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, place := range []string{"end", "start"} {
			for n := 1; n <= maxN; n++ {
				at := func(g *guarded, n int) []float32 { return g.at(place, n) }
				what := fmt.Sprintf("guard %s n=%d", place, n)

				poses := &soa.Poses{}
				for i, s := range []*[]float32{&poses.PX, &poses.PY, &poses.PZ, &poses.QX, &poses.QY, &poses.QZ, &poses.QW} {
					*s = at(streamR[i], n)
					copy(*s, *[]*[]float32{&poses0.PX, &poses0.PY, &poses0.PZ, &poses0.QX, &poses0.QY, &poses0.QZ, &poses0.QW}[i])
				}
				local, dst := ctCapsulesIn(at(localR, 8*n)), ctCapsulesIn(at(dstR, 8*n))
				copy(local, local0)
				for i := range dst {
					dst[i] = soa.Capsule{}
					*(*[8]uint32)(unsafe.Pointer(&dst[i])) = [8]uint32{7: ^uint32(0)}
				}
				want := soa.NewCapsules(n)
				goK.CapsulesFromPoses(want, local, poses)
				k.CapsulesFromPoses(dst, local, poses)
				for i := range n {
					if !sameRecord(dst[i], want[i]) {
						t.Fatalf("%s body %d: %+v, go %+v", what, i, dst[i], want[i])
					}
				}

				p64 := &soa.Poses64{}
				from64 := []*[]float64{&poses64.PX, &poses64.PY, &poses64.PZ, &poses64.QX, &poses64.QY, &poses64.QZ, &poses64.QW}
				for i, s := range []*[]float64{&p64.PX, &p64.PY, &p64.PZ, &p64.QX, &p64.QY, &p64.QZ, &p64.QW} {
					*s = guardF64(at(streamR[i], 2*n))
					copy(*s, *from64[i])
				}
				l64 := unsafe.Slice((*soa.Capsule64)(unsafe.Pointer(&at(localR, 16*n)[0])), n)
				d64 := unsafe.Slice((*soa.Capsule64)(unsafe.Pointer(&at(dstR, 16*n)[0])), n)
				copy(l64, local64)
				for i := range d64 {
					d64[i] = soa.Capsule64{}
					*(*[8]uint64)(unsafe.Pointer(&d64[i])) = [8]uint64{7: ^uint64(0)}
				}
				want64 := soa.NewCapsules64(n)
				goK.CapsulesFromPoses64(want64, l64, p64)
				k.CapsulesFromPoses64(d64, l64, p64)
				for i := range n {
					if !sameRecord(d64[i], want64[i]) {
						t.Fatalf("%s float64 body %d: %+v, go %+v", what, i, d64[i], want64[i])
					}
				}
			}
		}
	})
}

// TestCapsulesFromPosesIndexedGuardPage is TestCapsulesFromPosesGuardPage
// for CapsulesFromPosesIndexed (and its float64 twin): the index list too
// ends at (then starts right after) a PROT_NONE page; lists of 1..40
// bodies of a store of 40, in a scattered order that includes the first
// and the last body; every record of dst, listed or not, checked bit for
// bit against the go path on the same dst.
func TestCapsulesFromPosesIndexedGuardPage(t *testing.T) {
	const n = 40
	local0, poses0 := poseScene(n, true)
	local64, poses64 := widenPoses(local0, poses0)
	streamR := make([]*guarded, 7)
	for i := range streamR {
		streamR[i] = newGuarded(t, 8*n)
	}
	localR, dstR, idxR := newGuarded(t, 64*n), newGuarded(t, 64*n), newGuarded(t, 4*n)
	goK := lookup(t, "go")
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, place := range []string{"end", "start"} {
			at := func(g *guarded, n int) []float32 { return g.at(place, n) }
			poses, p64 := &soa.Poses{}, &soa.Poses64{}
			from, from64 := []*[]float32{&poses0.PX, &poses0.PY, &poses0.PZ, &poses0.QX, &poses0.QY, &poses0.QZ, &poses0.QW},
				[]*[]float64{&poses64.PX, &poses64.PY, &poses64.PZ, &poses64.QX, &poses64.QY, &poses64.QZ, &poses64.QW}
			for m := 1; m <= n; m++ {
				bodies := ctGuardU32(at(idxR, m))
				for j := range bodies {
					bodies[j] = uint32((7*j + 39) % n) // 39, 6, 13, ...; body 0 from 24 bodies on
				}
				what := fmt.Sprintf("guard %s %d bodies", place, m)

				for i, s := range []*[]float32{&poses.PX, &poses.PY, &poses.PZ, &poses.QX, &poses.QY, &poses.QZ, &poses.QW} {
					*s = at(streamR[i], n)
					copy(*s, *from[i])
				}
				local, dst := ctCapsulesIn(at(localR, 8*n)), ctCapsulesIn(at(dstR, 8*n))
				copy(local, local0)
				want := soa.NewCapsules(n)
				for i := range dst {
					dst[i] = soa.Capsule{R: -3}
					want[i] = dst[i]
				}
				goK.CapsulesFromPosesIndexed(want, local, poses, bodies)
				k.CapsulesFromPosesIndexed(dst, local, poses, bodies)
				for i := range n {
					if !sameRecord(dst[i], want[i]) {
						t.Fatalf("%s record %d: %+v, go %+v", what, i, dst[i], want[i])
					}
				}

				for i, s := range []*[]float64{&p64.PX, &p64.PY, &p64.PZ, &p64.QX, &p64.QY, &p64.QZ, &p64.QW} {
					*s = guardF64(at(streamR[i], 2*n))
					copy(*s, *from64[i])
				}
				l64 := unsafe.Slice((*soa.Capsule64)(unsafe.Pointer(&at(localR, 16*n)[0])), n)
				d64 := unsafe.Slice((*soa.Capsule64)(unsafe.Pointer(&at(dstR, 16*n)[0])), n)
				copy(l64, local64)
				want64 := soa.NewCapsules64(n)
				for i := range d64 {
					d64[i] = soa.Capsule64{R: -3}
					want64[i] = d64[i]
				}
				goK.CapsulesFromPosesIndexed64(want64, l64, p64, bodies)
				k.CapsulesFromPosesIndexed64(d64, l64, p64, bodies)
				for i := range n {
					if !sameRecord(d64[i], want64[i]) {
						t.Fatalf("%s float64 record %d: %+v, go %+v", what, i, d64[i], want64[i])
					}
				}
			}
		}
	})
}
