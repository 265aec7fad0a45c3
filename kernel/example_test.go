package kernel_test

import (
	"fmt"
	"math"
	"slices"

	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// Two capsule axes: a crossing pair one unit apart, and a parallel pair.
func ExampleBatchClosest() {
	pairs := soa.NewPairs(0)
	pairs.Append([3]float32{-1, 0, 0}, [3]float32{1, 0, 0}, [3]float32{0, -1, 1}, [3]float32{0, 1, 1})
	pairs.Append([3]float32{0, 0, 0}, [3]float32{4, 0, 0}, [3]float32{1, 1, 0}, [3]float32{3, 1, 0})

	res := soa.NewResults(pairs.Len())
	kernel.BatchClosest(res, pairs)
	for i := range res.Len() {
		fmt.Printf("pair %d: s=%v t=%v dist2=%v\n", i, res.S[i], res.T[i], res.Dist2[i])
	}
	// Output:
	// pair 0: s=0.5 t=0.5 dist2=1
	// pair 1: s=0.25 t=0 dist2=1
}

// A segment against a point (a zero-length segment): the point gets
// parameter 0.
func ExampleClosest() {
	s, t, dist2 := kernel.Closest([3]float32{0, 0, 0}, [3]float32{8, 0, 0}, [3]float32{2, 3, 4}, [3]float32{2, 3, 4})
	fmt.Println(s, t, dist2)
	// Output: 0.25 0 25
}

// ISA names the path BatchClosest uses; it depends on the CPU (and on
// SEGDIST_ISA), but it is always one of Available.
func ExampleISA() {
	fmt.Println(slices.Contains(kernel.Available(), kernel.ISA()))
	// Output: true
}

// Available lists the paths best first; the pure-Go path is always there,
// last.
func ExampleAvailable() {
	avail := kernel.Available()
	fmt.Println(avail[len(avail)-1])
	// Output: go
}

// Lookup gives any available path directly, for tests and benchmarks.
func ExampleLookup() {
	k, ok := kernel.Lookup("go")
	fmt.Println(k.ISA(), ok)
	_, ok = kernel.Lookup("sse9")
	fmt.Println(ok)
	// Output:
	// go true
	// false
}

// Every path returns the same bits.
func ExampleKernel_BatchClosest() {
	pairs := soa.FromPairs([]soa.Pair{
		{A: [3]float32{0, 0, 0}, B: [3]float32{4, 0, 0}, C: [3]float32{1, 2, 2}, D: [3]float32{1, 2, -2}},
		{A: [3]float32{0, 0, 0}, B: [3]float32{2, 0, 0}, C: [3]float32{3, 0, 0}, D: [3]float32{5, 0, 0}},
	})
	var first *soa.Results
	same := true
	for _, isa := range kernel.Available() {
		k, _ := kernel.Lookup(isa)
		res := soa.NewResults(pairs.Len())
		k.BatchClosest(res, pairs)
		if first == nil {
			first = res
		}
		same = same && slices.Equal(res.S, first.S) && slices.Equal(res.T, first.T) && slices.Equal(res.Dist2, first.Dist2)
	}
	fmt.Println("S:", first.S, "T:", first.T, "Dist2:", first.Dist2)
	fmt.Println("identical on every path:", same)
	// Output:
	// S: [0.25 1] T: [0.5 0] Dist2: [4 1]
	// identical on every path: true
}

// StreamOnly moves the same bytes as BatchClosest without the math: S is
// AX+BX+CX+DX, T and Dist2 the same over Y and Z.
func ExampleKernel_StreamOnly() {
	pairs := soa.FromPairs([]soa.Pair{{A: [3]float32{1, 2, 3}, B: [3]float32{4, 5, 6}, C: [3]float32{7, 8, 9}, D: [3]float32{10, 11, 12}}})
	res := soa.NewResults(1)
	k, _ := kernel.Lookup(kernel.ISA())
	k.StreamOnly(res, pairs)
	fmt.Println(res.S[0], res.T[0], res.Dist2[0])
	// Output: 22 26 30
}

// ExampleParallel runs a batch on two workers: the same bits as the
// single-core call.
func ExampleParallel() {
	pairs := soa.NewPairs(0)
	for i := range 10000 {
		x := float32(i % 100)
		pairs.Append([3]float32{x, 0, 0}, [3]float32{x, 1, 0}, [3]float32{x + 0.5, 0, 1}, [3]float32{x + 0.5, 1, 1})
	}
	one, two := soa.NewResults(pairs.Len()), soa.NewResults(pairs.Len())
	kernel.BatchClosest(one, pairs)

	par := kernel.NewParallel(kernel.Active(), 2)
	defer par.Close()
	par.BatchClosest(two, pairs)

	same := true
	for i := range one.Dist2 {
		same = same && one.S[i] == two.S[i] && one.T[i] == two.T[i] && one.Dist2[i] == two.Dist2[i]
	}
	fmt.Println(same, two.Dist2[0])
	// Output: true 1.25
}

// Parallel.CompactContacts splits the pairs among the workers and joins
// their touching rows in pair order: the count, the rows and their Pair
// indices are those of the single-core call. Here only neighbours 1 apart
// touch (radii 0.25, margin 0.5): every 20th pair but the last, which
// wraps around to capsule 0.
func ExampleParallel_CompactContacts() {
	caps := soa.NewCapsules(0)
	for i := range 1000 {
		caps.Append([3]float32{float32(i), 0, 0}, [3]float32{float32(i), 1, 0}, 0.25)
	}
	pairs := soa.NewIndexPairs(0)
	for i := range 20000 {
		c, d := i/20, 1+i%20 // capsule c and the one d further on, 1 <= d <= 20
		pairs.Append(uint32(c), uint32((c+d)%1000))
	}
	one, two := soa.NewContacts(pairs.Len()), soa.NewContacts(pairs.Len())
	n1 := kernel.CompactContacts(one, caps, pairs, 0.5)

	par := kernel.NewParallel(kernel.Active(), 2)
	defer par.Close()
	n2 := par.CompactContacts(two, caps, pairs, 0.5)

	same := n1 == n2
	for k := range min(n1, n2) {
		same = same && one.Pair[k] == two.Pair[k] && one.Depth1[k] == two.Depth1[k]
	}
	fmt.Println(n2, same, two.Pair[0], two.Pair[n2-1])
	// Output: 999 true 0 19960
}

// Closest64 keeps float64's precision: a point 1e-9 off a segment 1e6
// from the origin, which float32 cannot tell from the segment.
func ExampleClosest64() {
	s, t, dist2 := kernel.Closest64([3]float64{1e6, 0, 0}, [3]float64{1e6 + 8, 0, 0}, [3]float64{1e6 + 2, 1e-9, 0}, [3]float64{1e6 + 2, 1e-9, 0})
	fmt.Printf("%.3g %.3g %.3g\n", s, t, math.Sqrt(dist2))
	// Output: 0.25 0 1e-09
}

// BatchClosestPoint64 is the point-segment batch in float64.
func ExampleBatchClosestPoint64() {
	src := soa.NewPointSegments64(0)
	src.Append([3]float64{5e100, 3e100, 0}, [3]float64{0, 0, 0}, [3]float64{1e101, 0, 0})
	dst := soa.NewPointResults64(src.Len())
	kernel.BatchClosestPoint64(dst, src)
	fmt.Printf("t=%.3g distance=%.3g\n", dst.T[0], math.Sqrt(dst.Dist2[0]))
	// Output: t=0.5 distance=3e+100
}

// Active is the path the package-level functions use, as a Kernel value.
func ExampleActive() {
	fmt.Println(kernel.Active().ISA() == kernel.ISA())
	// Output: true
}

// An engine whose convention is a normal from body A toward body B, points
// on B's surface and a manifold's deepest point first translates each row
// like this. segdist's normal points from capsule J toward capsule I, so
// the engine passes its pair as (I, J) = (B, A); a row's point lies midway
// between the surfaces, so point + n depth/2 is on J's surface (A here)
// and point - n depth/2 on I's (B); a two-point row lists the ends of the
// overlap along J's axis (C toward D), and either depth may be the
// smaller, or negative within the margin.
func ExampleCompactContacts_engineConventions() {
	caps := soa.NewCapsules(0)
	caps.Append([3]float32{0, 0, 0}, [3]float32{4, 0, 0}, 0.5)      // body A: a capsule lying on the x axis
	caps.Append([3]float32{1, 0.91, 0}, [3]float32{3, 0.9, 0}, 0.5) // body B: tilted by 0.3 degrees, lying on A
	pairs := soa.NewIndexPairs(0)
	pairs.Append(1, 0) // (I, J) = (B, A): the normal then points from A toward B
	rows := soa.NewContacts(pairs.Len())
	n := kernel.CompactContacts(rows, caps, pairs, 0.01)

	type contact struct {
		normal  [3]float32 // from A toward B
		onB     [3]float32 // a point on B's surface
		depth   float32
		deepest bool
	}
	for k := range n {
		nrm := [3]float32{rows.NX[k], rows.NY[k], rows.NZ[k]}
		depths := [2]float32{rows.Depth1[k], rows.Depth2[k]}
		points := [2][3]float32{{rows.P1X[k], rows.P1Y[k], rows.P1Z[k]}, {rows.P2X[k], rows.P2Y[k], rows.P2Z[k]}}
		var out []contact
		for p := range int(rows.Count[k]) {
			d := depths[p]
			var onB [3]float32
			for c := range onB {
				onB[c] = points[p][c] - nrm[c]*d/2 // I is B: point - n depth/2
			}
			out = append(out, contact{normal: nrm, onB: onB, depth: d})
		}
		deep := 0
		if len(out) == 2 && out[1].depth > out[0].depth {
			deep = 1
		}
		out[deep].deepest = true
		for _, c := range out {
			fmt.Printf("normal (%.2f %.2f %.2f) point on B (%.3f %.3f %.3f) depth %.3f deepest %v\n",
				c.normal[0], c.normal[1], c.normal[2], c.onB[0], c.onB[1], c.onB[2], c.depth, c.deepest)
		}
	}
	// Output:
	// normal (0.00 1.00 0.00) point on B (1.002 0.410 0.000) depth 0.090 deepest false
	// normal (0.00 1.00 0.00) point on B (3.000 0.400 0.000) depth 0.100 deepest true
}
