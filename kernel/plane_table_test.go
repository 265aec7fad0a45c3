package kernel_test

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// TestPlaneContactsFewPlanes: with a few planes (1 to 17: around the
// lanes of every vector width, where the amd64 kernels keep the planes
// transposed in a table instead of loading their records), every row of
// BatchPlaneContacts and CompactPlaneContacts and their float64 twins is
// the go path's bit for bit, at sizes with tails of every width.
func TestPlaneContactsFewPlanes(t *testing.T) {
	_, caps, planes0, all := planeScene(60, true)
	caps64 := verify.WidenCapsules(caps)
	goK := lookup(t, "go")
	r := verify.NewRand(43, 1)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, np := range []int{1, 3, 4, 5, 7, 8, 9, 15, 16, 17} {
			planes := planes0[330 : 330+np] // plane 335 (a non-finite D) among them from 6 planes on
			planes64 := widenPlanes(planes)
			for _, m := range []int{1, 7, 15, 16, 17, 40, 333} {
				pairs := soa.NewIndexPairs(0)
				for j := range m {
					pairs.Append(all.I[j], uint32(r.IntN(np)))
				}
				what := fmt.Sprintf("%d planes, %d pairs", np, m)
				for _, margin := range []float32{0, 0.05} {
					got, want := soa.NewContacts(m), soa.NewContacts(m)
					k.BatchPlaneContacts(got, caps, planes, pairs, margin)
					goK.BatchPlaneContacts(want, caps, planes, pairs, margin)
					checkSameRows(t, "BatchPlaneContacts "+what, got, want, m)
					n := k.CompactPlaneContacts(got, caps, planes, pairs, margin)
					if w := goK.CompactPlaneContacts(want, caps, planes, pairs, margin); n != w {
						t.Fatalf("CompactPlaneContacts %s: %d rows, want %d", what, n, w)
					}
					checkSameRows(t, "CompactPlaneContacts "+what, got, want, n)

					got64, want64 := soa.NewContacts64(m), soa.NewContacts64(m)
					k.BatchPlaneContacts64(got64, caps64, planes64, pairs, float64(margin))
					goK.BatchPlaneContacts64(want64, caps64, planes64, pairs, float64(margin))
					checkSameRows(t, "BatchPlaneContacts64 "+what, got64, want64, m)
					n = k.CompactPlaneContacts64(got64, caps64, planes64, pairs, float64(margin))
					if w := goK.CompactPlaneContacts64(want64, caps64, planes64, pairs, float64(margin)); n != w {
						t.Fatalf("CompactPlaneContacts64 %s: %d rows, want %d", what, n, w)
					}
					checkSameRows(t, "CompactPlaneContacts64 "+what, got64, want64, n)
				}
			}
		}
	})
}

// checkSameRows fails t unless rows [0, n) of got and want have the same
// bits in every stream.
func checkSameRows[F soa.Float](t *testing.T, what string, got, want *soa.ContactsOf[F], n int) {
	t.Helper()
	bytesOf := func(p unsafe.Pointer, size int) []byte { return unsafe.Slice((*byte)(p), n*size) }
	var f F
	size := int(unsafe.Sizeof(f))
	if !bytes.Equal(bytesOf(unsafe.Pointer(unsafe.SliceData(got.Pair)), 4), bytesOf(unsafe.Pointer(unsafe.SliceData(want.Pair)), 4)) ||
		!bytes.Equal(bytesOf(unsafe.Pointer(unsafe.SliceData(got.Count)), 4), bytesOf(unsafe.Pointer(unsafe.SliceData(want.Count)), 4)) {
		t.Fatalf("%s: Pair or Count differs from the go path", what)
	}
	gs := [][]F{got.Depth1, got.Depth2, got.NX, got.NY, got.NZ, got.P1X, got.P1Y, got.P1Z, got.P2X, got.P2Y, got.P2Z}
	ws := [][]F{want.Depth1, want.Depth2, want.NX, want.NY, want.NZ, want.P1X, want.P1Y, want.P1Z, want.P2X, want.P2Y, want.P2Z}
	for i := range gs {
		if !bytes.Equal(bytesOf(unsafe.Pointer(unsafe.SliceData(gs[i])), size), bytesOf(unsafe.Pointer(unsafe.SliceData(ws[i])), size)) {
			t.Fatalf("%s: float stream %d differs from the go path", what, i)
		}
	}
}
