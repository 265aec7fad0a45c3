package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIndicesBelow compares the branch-free range check with a plain loop
// on short slices (every length through the unrolled loop and its
// remainder) of values around n, for n from 0 past 2^32.
func TestIndicesBelow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 7, 10000, 1 << 31, 1<<32 - 1, 1 << 32, 1 << 40} {
		for trial := range 2000 {
			m := trial % 11
			a, b := make([]uint32, m), make([]uint32, m)
			want := true
			for k := range m {
				for _, v := range []*uint32{&a[k], &b[k]} {
					switch r.IntN(4) {
					case 0:
						*v = uint32(max(0, min(n-1, math.MaxUint32)))
					case 1:
						*v = uint32(min(n, math.MaxUint32))
					case 2:
						*v = r.Uint32()
					default:
						*v = uint32(r.IntN(max(1, min(n, 1<<30))))
					}
					if r.IntN(3) != 0 && uint64(*v) >= uint64(n) {
						*v = 0 // mostly valid slices
					}
					if uint64(*v) >= uint64(n) {
						want = false
					}
				}
			}
			if got := indicesBelow(a, b, n); got != want {
				t.Fatalf("n=%d a=%v b=%v: indicesBelow = %v, want %v", n, a, b, got, want)
			}
		}
	}
}

// TestMaxIndex compares the vector range check (maxIndex, where this CPU
// and build have one) with a plain loop: every length to 100 and some
// past 4,096, every start offset within 32 bytes, values near 0, near n
// and up to 2^32-1, the largest at every position. Reads outside
// pi[0:n] and pj[0:n] are caught by TestContactsGuardPage, whose index
// slices end at (and start after) a PROT_NONE page, lengths 1..33.
func TestMaxIndex(t *testing.T) {
	if maxIndex == nil {
		t.Skip("no vector range check on this CPU or build")
	}
	r := rand.New(rand.NewPCG(7, 8))
	buf, buf2 := make([]uint32, 5000+8), make([]uint32, 5000+8)
	for _, m := range append([]int{4095, 4096, 4097, 4999}, func() (l []int) {
		for m := range 101 {
			l = append(l, m)
		}
		return l
	}()...) {
		for off := range 8 {
			a, b := buf[off:off+m], buf2[(off*3)%8:(off*3)%8+m]
			for trial := range 4 {
				var want uint32
				for k := range m {
					a[k], b[k] = r.Uint32N(10000), r.Uint32N(10000)
					if trial == 3 {
						a[k], b[k] = r.Uint32(), r.Uint32()
					}
					want = max(want, a[k], b[k])
				}
				if m > 0 && trial < 2 { // one large value at a random place on one side
					k, v := r.IntN(m), uint32(1<<31+r.IntN(1<<31))
					if trial == 0 {
						a[k] = v
					} else {
						b[k] = v
					}
					want = max(want, v)
				}
				var pa, pb *uint32
				if m > 0 {
					pa, pb = &a[0], &b[0]
				}
				if got := maxIndex(pa, pb, m); got != want {
					t.Fatalf("n=%d offset=%d trial %d: maxIndex = %d, want %d", m, off, trial, got, want)
				}
				for _, n := range []int{int(want), int(want) + 1} {
					if got, w := indicesBelow(a, b, n), indicesBelowGo(a, b, n); got != w {
						t.Fatalf("n=%d offset=%d: indicesBelow(..., %d) = %v, indicesBelowGo %v", m, off, n, got, w)
					}
				}
			}
		}
	}
}
