package soa_test

import (
	"fmt"

	"github.com/segdist/segdist/soa"
)

func ExampleNewPairs() {
	p := soa.NewPairs(3)
	fmt.Println(p.Len(), len(p.AX), len(p.DZ), p.AX[2])
	// Output: 3 3 3 0
}

func ExamplePairs_Set() {
	p := soa.NewPairs(2)
	p.Set(1, [3]float32{1, 2, 3}, [3]float32{4, 5, 6}, [3]float32{7, 8, 9}, [3]float32{10, 11, 12})
	fmt.Println(p.AX, p.BY, p.CZ, p.DX)
	// Output: [0 1] [0 5] [0 9] [0 10]
}

func ExamplePairs_Append() {
	p := soa.NewPairs(0)
	p.Append([3]float32{0, 0, 0}, [3]float32{1, 0, 0}, [3]float32{0, 1, 0}, [3]float32{1, 1, 0})
	p.Append([3]float32{5, 5, 5}, [3]float32{6, 5, 5}, [3]float32{5, 6, 5}, [3]float32{6, 6, 5})
	fmt.Println(p.Len(), p.AX, p.DY)
	// Output: 2 [0 5] [1 6]
}

func ExamplePairs_Get() {
	p := soa.NewPairs(1)
	p.Set(0, [3]float32{1, 2, 3}, [3]float32{4, 5, 6}, [3]float32{7, 8, 9}, [3]float32{10, 11, 12})
	q := p.Get(0)
	fmt.Println(q.A, q.B, q.C, q.D)
	// Output: [1 2 3] [4 5 6] [7 8 9] [10 11 12]
}

func ExampleFromPairs() {
	p := soa.FromPairs([]soa.Pair{
		{A: [3]float32{1, 0, 0}, B: [3]float32{2, 0, 0}, C: [3]float32{3, 0, 0}, D: [3]float32{4, 0, 0}},
		{A: [3]float32{0, 1, 0}, B: [3]float32{0, 2, 0}, C: [3]float32{0, 3, 0}, D: [3]float32{0, 4, 0}},
	})
	fmt.Println(p.Len(), p.AX, p.AY, p.DY)
	// Output: 2 [1 0] [0 1] [0 4]
}

func ExampleNewResults() {
	r := soa.NewResults(4)
	fmt.Println(r.Len(), r.S, r.T, r.Dist2)
	// Output: 4 [0 0 0 0] [0 0 0 0] [0 0 0 0]
}

// Results follow a batch whose size changes every step.
func ExampleResults_Resize() {
	r := soa.NewResults(0)
	for _, n := range []int{3, 1, 5} {
		r.Resize(n)
		fmt.Println(r.Len(), len(r.S), len(r.T), len(r.Dist2))
	}
	// Output:
	// 3 3 3 3
	// 1 1 1 1
	// 5 5 5 5
}

// Reset empties a batch but keeps its storage, so that refilling it every
// step does not allocate.
func ExamplePairs_Reset() {
	p := soa.NewPairs(0)
	for i := range 10 {
		f := float32(i)
		p.Append([3]float32{f, 0, 0}, [3]float32{f, 1, 0}, [3]float32{f, 0, 1}, [3]float32{f, 1, 1})
	}
	c := cap(p.AX)
	p.Reset()
	fmt.Println(p.Len(), cap(p.AX) == c)
	// Output: 0 true
}

// An engine keeps its capsules as 32-byte records; Append grows the slice
// 32-byte aligned.
func ExampleNewCapsules() {
	caps := soa.NewCapsules(0)
	caps.Append([3]float32{0, 0, 0}, [3]float32{0, 2, 0}, 0.5) // a capsule
	caps.Append([3]float32{3, 1, 0}, [3]float32{3, 1, 0}, 1)   // a sphere: A = B
	caps[1].R = 0.75                                           // the records are plain structs
	fmt.Println(caps.Len(), caps[0].B, caps[1].R)
	// Output: 2 [0 2 0] 0.75
}

// An engine's own []soa.Capsule is a soa.Capsules as it is.
func ExampleCapsules() {
	own := []soa.Capsule{{A: [3]float32{1, 2, 3}, B: [3]float32{4, 5, 6}, R: 0.1}}
	var caps soa.Capsules = own
	a, b, r := caps.Get(0)
	fmt.Println(a, b, r)
	// Output: [1 2 3] [4 5 6] 0.1
}

func ExampleNewPairs64() {
	p := soa.NewPairs64(0)
	p.Append([3]float64{1e200, 0, 0}, [3]float64{1e200, 1, 0}, [3]float64{0, 0, 0}, [3]float64{0, 0, 1})
	fmt.Println(p.Len(), p.AX[0], p.BY[0])
	// Output: 1 1e+200 1
}
