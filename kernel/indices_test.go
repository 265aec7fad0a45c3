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
