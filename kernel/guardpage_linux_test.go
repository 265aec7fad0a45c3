//go:build linux

package kernel_test

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// guarded is one mmap region laid out as [guard][data pages][guard], the
// guards PROT_NONE: any access just before or just after the data faults.
type guarded struct {
	mem  []byte
	page int
	data []byte
}

func newGuarded(t *testing.T, dataBytes int) *guarded {
	t.Helper()
	page := os.Getpagesize()
	dataPages := (dataBytes + page - 1) / page
	mem, err := syscall.Mmap(-1, 0, (dataPages+2)*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if err := syscall.Mprotect(mem[(dataPages+1)*page:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	return &guarded{mem: mem, page: page, data: mem[page : (dataPages+1)*page]}
}

// atEnd returns n float32s ending exactly at the trailing guard page.
func (g *guarded) atEnd(n int) []float32 {
	if n == 0 {
		return nil
	}
	b := g.data[len(g.data)-4*n:]
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
}

// at returns n float32s at place "end" (atEnd) or "start" (atStart).
func (g *guarded) at(place string, n int) []float32 {
	if place == "end" {
		return g.atEnd(n)
	}
	return g.atStart(n)
}

// atStart returns n float32s starting right after the leading guard page.
func (g *guarded) atStart(n int) []float32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&g.data[0])), n)
}

// TestGuardPage places each of the fifteen slices (the twelve inputs and
// the three outputs) in its own mmap region, ending exactly at a PROT_NONE
// page, and then starting right after one: a kernel that reads or writes
// one float32 past the end (or before the start) of any slice crashes
// this test with SIGSEGV. Every path, every length 1..33 (all tails of
// both vector widths, one to four groups), some longer ones, and the
// results are checked against the pure-Go path too.
func TestGuardPage(t *testing.T) {
	lengths := []int{}
	for n := 1; n <= 33; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 47, 63, 64, 65, 127, 129, 1000, 1031)
	maxN := lengths[len(lengths)-1]
	all := pool(51, maxN)

	regions := make([]*guarded, len(sliceNames))
	for i := range regions {
		regions[i] = newGuarded(t, 4*maxN)
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, place := range []string{"end", "start"} {
			for _, n := range lengths {
				src, dst := &soa.Pairs{}, &soa.Results{}
				for i, p := range slicePtrs(src, dst) {
					*p = regions[i].at(place, n)
				}
				for i := range n {
					q := all[i]
					src.Set(i, q.A, q.B, q.C, q.D)
				}
				clear(dst.S)
				clear(dst.T)
				clear(dst.Dist2)
				k.BatchClosest(dst, src)
				checkSame(t, "guard "+place+" n="+strconv.Itoa(n), src, dst, goResults(t, soa.FromPairs(all[:n])))
				k.StreamOnly(dst, src)
			}
		}
	})
}

// guardF64 views 2n float32s of a region as n float64s (8-byte aligned:
// both ends of a region's data are page-aligned).
func guardF64(f []float32) []float64 {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&f[0])), len(f)/2)
}

// TestGuardPage64 is TestGuardPage for the float64 kernels
// (BatchClosest64, StreamOnly64, BatchClosestPoint64): each slice ends
// exactly at, then starts right after, a PROT_NONE page; lengths 1..41
// and some past 64.
func TestGuardPage64(t *testing.T) {
	var lengths []int
	for n := 1; n <= 41; n++ {
		lengths = append(lengths, n)
	}
	// From 64 lanes on the AVX-512 closest kernels jump to their loop of
	// several groups (asm.ClosestWideAVX512 and its float64 twin).
	lengths = append(lengths, 63, 64, 65, 71, 100, 129)
	maxN := lengths[len(lengths)-1]
	all := pool64(52, maxN)
	regions := make([]*guarded, 15)
	for i := range regions {
		regions[i] = newGuarded(t, 8*maxN)
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, place := range []string{"end", "start"} {
			at := func(i, n int) []float64 { return guardF64(regions[i].at(place, 2*n)) }
			for _, n := range lengths {
				src, dst := &soa.Pairs64{}, &soa.Results64{}
				ptrs := []*[]float64{&src.AX, &src.AY, &src.AZ, &src.BX, &src.BY, &src.BZ,
					&src.CX, &src.CY, &src.CZ, &src.DX, &src.DY, &src.DZ, &dst.S, &dst.T, &dst.Dist2}
				for i, p := range ptrs {
					*p = at(i, n)
				}
				for i := range n {
					q := all[i]
					src.Set(i, q.A, q.B, q.C, q.D)
				}
				k.BatchClosest64(dst, src)
				checkSame64(t, "guard "+place+" n="+strconv.Itoa(n), src, dst, spec64(soa.FromPairs64(all[:n])))
				k.StreamOnly64(dst, src)
				ps := &soa.PointSegments64{PX: src.AX, PY: src.AY, PZ: src.AZ, CX: src.CX, CY: src.CY, CZ: src.CZ,
					DX: src.DX, DY: src.DY, DZ: src.DZ}
				k.BatchClosestPoint64(&soa.PointResults64{T: dst.S, Dist2: dst.T}, ps)
			}
		}
	})
}
