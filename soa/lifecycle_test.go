package soa

import (
	"math"
	"testing"
)

// batch is the lifecycle every soa type shares (lifecycle.go).
type batch interface {
	Len() int
	Resize(n int)
	Reset()
}

// Every batch type: New gives n elements; Resize keeps the first
// min(Len, n) values, growing or shrinking; Reset empties it and keeps
// the storage, so refilling to the old length does not allocate.
func TestLifecycle(t *testing.T) {
	type kind struct {
		name  string
		new   func(n int) batch
		mark  func(b batch, i int)      // store a value derived from i at element i
		check func(b batch, i int) bool // it is still there
		add   func(b batch, i int)      // Append (inputs), or nil
	}
	f := func(i int) float32 { return float32(i) + 0.5 }
	v3 := func(i int) [3]float32 { return [3]float32{f(i), -f(i), 2 * f(i)} }
	g := func(i int) float64 { return float64(i) + 1e-300 + 0x1p-40 }
	w3 := func(i int) [3]float64 { return [3]float64{g(i), -g(i), 1e200 * g(i)} }
	kinds := []kind{
		{"Pairs", func(n int) batch { return NewPairs(n) },
			func(b batch, i int) { b.(*Pairs).Set(i, v3(i), v3(i+1), v3(i+2), v3(i+3)) },
			func(b batch, i int) bool { p := b.(*Pairs).Get(i); return p.A == v3(i) && p.D == v3(i+3) },
			func(b batch, i int) { b.(*Pairs).Append(v3(i), v3(i+1), v3(i+2), v3(i+3)) }},
		{"Results", func(n int) batch { return NewResults(n) },
			func(b batch, i int) { r := b.(*Results); r.S[i], r.T[i], r.Dist2[i] = f(i), f(i+1), f(i+2) },
			func(b batch, i int) bool { r := b.(*Results); return r.S[i] == f(i) && r.Dist2[i] == f(i+2) }, nil},
		{"Capsules", func(n int) batch { c := NewCapsules(n); return &c },
			func(b batch, i int) { b.(*Capsules).Set(i, v3(i), v3(i+1), f(i)) },
			func(b batch, i int) bool {
				a, bb, r := b.(*Capsules).Get(i)
				return a == v3(i) && bb == v3(i+1) && r == f(i)
			},
			func(b batch, i int) { b.(*Capsules).Append(v3(i), v3(i+1), f(i)) }},
		{"IndexPairs", func(n int) batch { return NewIndexPairs(n) },
			func(b batch, i int) { b.(*IndexPairs).Set(i, uint32(i), uint32(2*i)) },
			func(b batch, i int) bool { x, y := b.(*IndexPairs).Get(i); return x == uint32(i) && y == uint32(2*i) },
			func(b batch, i int) { b.(*IndexPairs).Append(uint32(i), uint32(2*i)) }},
		{"Contacts", func(n int) batch { return NewContacts(n) },
			func(b batch, i int) {
				b.(*Contacts).Set(i, uint32(i), 1, [2]float32{f(i), f(i)}, v3(i), [2][3]float32{v3(i), v3(i + 1)})
			},
			func(b batch, i int) bool {
				c := b.(*Contacts)
				return c.Pair[i] == uint32(i) && c.NZ[i] == v3(i)[2] && c.P2X[i] == f(i+1)
			}, nil},
		{"PointSegments", func(n int) batch { return NewPointSegments(n) },
			func(b batch, i int) { b.(*PointSegments).Set(i, v3(i), v3(i+1), v3(i+2)) },
			func(b batch, i int) bool {
				p, c, d := b.(*PointSegments).Get(i)
				return p == v3(i) && c == v3(i+1) && d == v3(i+2)
			},
			func(b batch, i int) { b.(*PointSegments).Append(v3(i), v3(i+1), v3(i+2)) }},
		{"PointResults", func(n int) batch { return NewPointResults(n) },
			func(b batch, i int) { r := b.(*PointResults); r.T[i], r.Dist2[i] = f(i), f(i+1) },
			func(b batch, i int) bool { r := b.(*PointResults); return r.T[i] == f(i) && r.Dist2[i] == f(i+1) }, nil},
		{"Planes", func(n int) batch { c := NewPlanes(n); return &c },
			func(b batch, i int) { b.(*Planes).Set(i, v3(i), f(i)) },
			func(b batch, i int) bool { n, d := b.(*Planes).Get(i); return n == v3(i) && d == f(i) },
			func(b batch, i int) { b.(*Planes).Append(v3(i), f(i)) }},
		{"Poses", func(n int) batch { return NewPoses(n) },
			func(b batch, i int) { b.(*Poses).Set(i, v3(i), [4]float32{f(i), f(i + 1), f(i + 2), f(i + 3)}) },
			func(b batch, i int) bool {
				p, q := b.(*Poses).Get(i)
				return p == v3(i) && q == [4]float32{f(i), f(i + 1), f(i + 2), f(i + 3)}
			},
			func(b batch, i int) { b.(*Poses).Append(v3(i), [4]float32{f(i), f(i + 1), f(i + 2), f(i + 3)}) }},
		// The float64 instantiations (values that float32 cannot hold).
		{"Planes64", func(n int) batch { c := NewPlanes64(n); return &c },
			func(b batch, i int) { b.(*Planes64).Set(i, w3(i), g(i)) },
			func(b batch, i int) bool { n, d := b.(*Planes64).Get(i); return n == w3(i) && d == g(i) },
			func(b batch, i int) { b.(*Planes64).Append(w3(i), g(i)) }},
		{"Poses64", func(n int) batch { return NewPoses64(n) },
			func(b batch, i int) { b.(*Poses64).Set(i, w3(i), [4]float64{g(i), g(i + 1), g(i + 2), g(i + 3)}) },
			func(b batch, i int) bool {
				p, q := b.(*Poses64).Get(i)
				return p == w3(i) && q == [4]float64{g(i), g(i + 1), g(i + 2), g(i + 3)}
			},
			func(b batch, i int) { b.(*Poses64).Append(w3(i), [4]float64{g(i), g(i + 1), g(i + 2), g(i + 3)}) }},
		{"Pairs64", func(n int) batch { return NewPairs64(n) },
			func(b batch, i int) { b.(*Pairs64).Set(i, w3(i), w3(i+1), w3(i+2), w3(i+3)) },
			func(b batch, i int) bool { p := b.(*Pairs64).Get(i); return p.A == w3(i) && p.D == w3(i+3) },
			func(b batch, i int) { b.(*Pairs64).Append(w3(i), w3(i+1), w3(i+2), w3(i+3)) }},
		{"Results64", func(n int) batch { return NewResults64(n) },
			func(b batch, i int) { r := b.(*Results64); r.S[i], r.T[i], r.Dist2[i] = g(i), g(i+1), g(i+2) },
			func(b batch, i int) bool { r := b.(*Results64); return r.S[i] == g(i) && r.Dist2[i] == g(i+2) }, nil},
		{"PointSegments64", func(n int) batch { return NewPointSegments64(n) },
			func(b batch, i int) { b.(*PointSegments64).Set(i, w3(i), w3(i+1), w3(i+2)) },
			func(b batch, i int) bool {
				p, c, d := b.(*PointSegments64).Get(i)
				return p == w3(i) && c == w3(i+1) && d == w3(i+2)
			},
			func(b batch, i int) { b.(*PointSegments64).Append(w3(i), w3(i+1), w3(i+2)) }},
		{"Capsules64", func(n int) batch { c := NewCapsules64(n); return &c },
			func(b batch, i int) { b.(*Capsules64).Set(i, w3(i), w3(i+1), g(i)) },
			func(b batch, i int) bool {
				a, bb, r := b.(*Capsules64).Get(i)
				return a == w3(i) && bb == w3(i+1) && r == g(i)
			},
			func(b batch, i int) { b.(*Capsules64).Append(w3(i), w3(i+1), g(i)) }},
		{"Contacts64", func(n int) batch { return NewContacts64(n) },
			func(b batch, i int) {
				b.(*Contacts64).Set(i, uint32(i), 2, [2]float64{g(i), g(i)}, w3(i), [2][3]float64{w3(i), w3(i + 1)})
			},
			func(b batch, i int) bool {
				c := b.(*Contacts64)
				return c.Pair[i] == uint32(i) && c.NZ[i] == w3(i)[2] && c.P2X[i] == g(i+1)
			}, nil},
		{"PointResults64", func(n int) batch { return NewPointResults64(n) },
			func(b batch, i int) { r := b.(*PointResults64); r.T[i], r.Dist2[i] = g(i), g(i+1) },
			func(b batch, i int) bool { r := b.(*PointResults64); return r.T[i] == g(i) && r.Dist2[i] == g(i+1) }, nil},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			b := k.new(5)
			if b.Len() != 5 {
				t.Fatalf("New(5).Len() = %d", b.Len())
			}
			for i := range 5 {
				k.mark(b, i)
			}
			b.Resize(1000) // grows: reallocates
			b.Resize(3)    // shrinks
			b.Resize(40)
			if b.Len() != 40 {
				t.Fatalf("Len after Resize(40) = %d", b.Len())
			}
			for i := range 3 {
				if !k.check(b, i) {
					t.Errorf("element %d lost by Resize", i)
				}
			}
			b.Reset()
			if b.Len() != 0 {
				t.Fatalf("Len after Reset = %d", b.Len())
			}
			refill := func() {
				b.Reset()
				for i := range 40 {
					if k.add != nil {
						k.add(b, i)
					} else {
						b.Resize(i + 1)
						k.mark(b, i)
					}
				}
			}
			if allocs := testing.AllocsPerRun(10, refill); allocs != 0 {
				t.Errorf("refilling after Reset allocates %v times", allocs)
			}
			for i := range 40 {
				if !k.check(b, i) {
					t.Fatalf("element %d wrong after the refill", i)
				}
			}
			if k.add != nil {
				for i := 40; i < 300; i++ { // Append past the capacity
					k.add(b, i)
				}
				for i := range 300 {
					if !k.check(b, i) {
						t.Fatalf("element %d wrong after Append grew the batch", i)
					}
				}
			}
		})
	}
}

// TestResizeGrowsGeometrically grows every batch type by a few elements at
// a time, as an engine's pair count grows from step to step, to 100,000:
// Resize reallocates O(log n) times (the capacity at least doubles), so
// the whole sequence allocates about 2 log2(n) times, not once a step.
func TestResizeGrowsGeometrically(t *testing.T) {
	const top = 100000
	// At most two allocations per stream block (Contacts has two blocks) per
	// doubling.
	limit := 4 * (math.Log2(top) + 4)
	types := map[string]func(n int){}
	grow := func(name string, resize func(n int)) {
		types[name] = resize
	}
	var (
		pairs   *Pairs
		res     *Results64
		ip      *IndexPairs
		rows    *Contacts
		rows64  *Contacts64
		seg     *PointSegments
		pres    *PointResults
		caps    Capsules
		planes  Planes
		poses   *Poses
		starter = func() {
			pairs, res, ip = &Pairs{}, &Results64{}, &IndexPairs{}
			rows, rows64 = &Contacts{}, &Contacts64{}
			seg, pres, caps = &PointSegments{}, &PointResults{}, nil
			planes, poses = nil, &Poses{}
		}
	)
	grow("Pairs", func(n int) { pairs.Resize(n) })
	grow("Results64", func(n int) { res.Resize(n) })
	grow("IndexPairs", func(n int) { ip.Resize(n) })
	grow("Contacts", func(n int) { rows.Resize(n) })
	grow("Contacts64", func(n int) { rows64.Resize(n) })
	grow("PointSegments", func(n int) { seg.Resize(n) })
	grow("PointResults", func(n int) { pres.Resize(n) })
	grow("Capsules", func(n int) { caps.Resize(n) })
	grow("Planes", func(n int) { planes.Resize(n) })
	grow("Poses", func(n int) { poses.Resize(n) })
	for name, resize := range types {
		allocs := testing.AllocsPerRun(1, func() {
			starter()
			for n, step := 0, 0; n < top; step++ {
				n += 1 + step%7
				resize(n)
			}
		})
		if allocs > limit {
			t.Errorf("%s: growing by 1-7 elements a step to %d allocated %v times, want at most %.0f", name, top, allocs, limit)
		}
	}
}
