package soa_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/soa"
)

// capPanics runs f and returns its panic message, or "" if it returned.
func capPanics(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// testCapsule is capsule i of the test sequence: distinct values per
// capsule and per field.
func testCapsule(i int) (a, b [3]float32, r float32) {
	f := float32(i)
	return [3]float32{f, f + 0.25, f + 0.5}, [3]float32{-f, -f - 0.25, -f - 0.5}, f * 0.125
}

// TestCapsuleRecord checks the record the kernels load: 32 bytes, A at
// byte 0, R at 12, B at 16 (gen/amd64/records.go and gen/neon assume it).
func TestCapsuleRecord(t *testing.T) {
	var c soa.Capsule
	if s := unsafe.Sizeof(c); s != 32 {
		t.Errorf("Sizeof(Capsule) = %d, want 32", s)
	}
	if a, r, b := unsafe.Offsetof(c.A), unsafe.Offsetof(c.R), unsafe.Offsetof(c.B); a != 0 || r != 12 || b != 16 {
		t.Errorf("offsets A %d R %d B %d, want 0 12 16", a, r, b)
	}
}

// TestCapsulesAppendGrowth appends 1,000 capsules one by one to an empty
// and to a pre-sized Capsules: every earlier capsule survives each
// reallocation, every allocation is 32-byte aligned, and the storage
// grows geometrically (few reallocations).
func TestCapsulesAppendGrowth(t *testing.T) {
	for _, start := range []int{0, 5, 16, 17} {
		c := soa.NewCapsules(start)
		if c.Len() != start {
			t.Fatalf("NewCapsules(%d).Len() = %d", start, c.Len())
		}
		for i := range start {
			a, b, r := testCapsule(i)
			c.Set(i, a, b, r)
		}
		reallocs := 0
		for i := start; i < 1000; i++ {
			before := &c[:cap(c)][0]
			a, b, r := testCapsule(i)
			c.Append(a, b, r)
			if &c[0] != before {
				reallocs++
			}
			if a := uintptr(unsafe.Pointer(&c[0])); a%32 != 0 {
				t.Fatalf("start %d: records at %#x after %d appends, not 32-byte aligned", start, a, i+1-start)
			}
			if c.Len() != i+1 {
				t.Fatalf("start %d: after %d appends Len() = %d", start, i+1-start, c.Len())
			}
		}
		for i := range 1000 {
			ga, gb, gr := c.Get(i)
			wa, wb, wr := testCapsule(i)
			if ga != wa || gb != wb || gr != wr {
				t.Fatalf("start %d: capsule %d = %v %v %v, want %v %v %v", start, i, ga, gb, gr, wa, wb, wr)
			}
		}
		if reallocs > 12 {
			t.Errorf("start %d: %d reallocations for 1,000 appends: growth is not geometric", start, reallocs)
		}
	}
}

// TestCapsulesOfEngineSlice checks that an engine's own []Capsule (Go's
// allocation, any alignment) is a Capsules, and that Append on it keeps
// every capsule, moving to aligned storage when it grows.
func TestCapsulesOfEngineSlice(t *testing.T) {
	own := make([]soa.Capsule, 3)
	for i := range own {
		a, b, r := testCapsule(i)
		own[i] = soa.Capsule{A: a, B: b, R: r}
	}
	c := soa.Capsules(own)
	for i := 3; i < 40; i++ {
		a, b, r := testCapsule(i)
		c.Append(a, b, r)
	}
	for i := range 40 {
		ga, gb, gr := c.Get(i)
		wa, wb, wr := testCapsule(i)
		if ga != wa || gb != wb || gr != wr {
			t.Fatalf("capsule %d = %v %v %v, want %v %v %v", i, ga, gb, gr, wa, wb, wr)
		}
	}
	if a := uintptr(unsafe.Pointer(&c[0])); a%32 != 0 {
		t.Errorf("records at %#x after growing, not 32-byte aligned", a)
	}
}

// TestCapsules64Layout checks the float64 records: 64 bytes, A at 0, R at
// 24, B at 32, allocated 64-byte aligned, also after Append grows them.
func TestCapsules64Layout(t *testing.T) {
	var c soa.Capsule64
	if s, r, b := unsafe.Sizeof(c), unsafe.Offsetof(c.R), unsafe.Offsetof(c.B); s != 64 || r != 24 || b != 32 {
		t.Errorf("Capsule64: size %d, R at %d, B at %d; want 64, 24, 32", s, r, b)
	}
	caps := soa.NewCapsules64(3)
	for i := range 100 {
		caps.Append([3]float64{float64(i), 0, 0}, [3]float64{0, float64(i), 0}, 1e200)
		if a := uintptr(unsafe.Pointer(&caps[0])); a%64 != 0 {
			t.Fatalf("records at %#x after %d appends, not 64-byte aligned", a, i+1)
		}
	}
	if _, b, r := caps.Get(102); b[1] != 99 || r != 1e200 {
		t.Errorf("capsule 102 = %v %v", b, r)
	}
}

// TestCapsulesLayout checks NewCapsules: n zero records, 32-byte aligned,
// room up to the next multiple of 16, and a panic for a negative n.
func TestCapsulesLayout(t *testing.T) {
	for _, n := range []int{0, 1, 16, 100, 5000} {
		c := soa.NewCapsules(n)
		if len(c) != n || cap(c) < max(n, 16) || cap(c)%16 != 0 {
			t.Fatalf("n=%d: len %d cap %d", n, len(c), cap(c))
		}
		if a := uintptr(unsafe.Pointer(&c[:1][0])); a%32 != 0 {
			t.Errorf("n=%d: records at %#x, not 32-byte aligned", n, a)
		}
		for i := range c {
			if c[i] != (soa.Capsule{}) {
				t.Fatalf("n=%d: capsule %d is not zero", n, i)
			}
		}
	}
	if msg := capPanics(func() { soa.NewCapsules(-1) }); !strings.Contains(msg, "negative") {
		t.Errorf("NewCapsules(-1): panic %q", msg)
	}
	var c soa.Capsules
	if msg := capPanics(func() { c.Resize(-1) }); !strings.Contains(msg, "negative") {
		t.Errorf("Resize(-1): panic %q", msg)
	}
}

// TestIndexPairsAppendReset checks IndexPairs: NewIndexPairs(n) gives n
// zero pairs, Append adds at the end, Reset empties without dropping the
// storage, and Appends after a Reset reuse it.
func TestIndexPairsAppendReset(t *testing.T) {
	p := soa.NewIndexPairs(3)
	if p.Len() != 3 || len(p.J) != 3 || p.I[2] != 0 || p.J[2] != 0 {
		t.Fatalf("NewIndexPairs(3) = %+v", p)
	}
	if cap(p.I) < 16 || cap(p.J) < 16 {
		t.Errorf("NewIndexPairs(3): capacities %d, %d, want room up to 16", cap(p.I), cap(p.J))
	}
	for i := range uint32(100) {
		p.Append(i, 1000+i)
	}
	if p.Len() != 103 || len(p.J) != 103 {
		t.Fatalf("after 100 appends: Len %d, len(J) %d", p.Len(), len(p.J))
	}
	for k := 3; k < 103; k++ {
		if p.I[k] != uint32(k-3) || p.J[k] != uint32(k-3+1000) {
			t.Fatalf("pair %d = (%d, %d)", k, p.I[k], p.J[k])
		}
	}
	capI := cap(p.I)
	p.Reset()
	if p.Len() != 0 || len(p.J) != 0 || cap(p.I) != capI {
		t.Fatalf("after Reset: Len %d, len(J) %d, cap %d (was %d)", p.Len(), len(p.J), cap(p.I), capI)
	}
	first := &p.I[:1][0]
	p.Append(7, 7)
	p.Append(1<<31, math.MaxUint32)
	if p.Len() != 2 || p.I[1] != 1<<31 || p.J[1] != math.MaxUint32 || &p.I[0] != first {
		t.Fatalf("Append after Reset: %+v (storage reused: %v)", p, &p.I[0] == first)
	}
	if a := testing.AllocsPerRun(10, func() {
		p.Reset()
		for i := range uint32(50) {
			p.Append(i, i)
		}
	}); a != 0 {
		t.Errorf("refilling after Reset: %v allocations", a)
	}
	if msg := capPanics(func() { soa.NewIndexPairs(-1) }); !strings.Contains(msg, "negative") {
		t.Errorf("NewIndexPairs(-1): panic %q", msg)
	}
}

func contactStreams(c *soa.Contacts) [][]float32 {
	return [][]float32{c.Depth1, c.Depth2, c.NX, c.NY, c.NZ, c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z}
}

// TestContactsResize checks Contacts: NewContacts(n) has n rows in every
// stream; Set and the streams agree; Resize within the capacity keeps the
// storage and the rows (shrinking, then growing back); Resize beyond it
// gives every stream the new length; negative lengths panic.
func TestContactsResize(t *testing.T) {
	c := soa.NewContacts(10)
	check := func(n int) {
		t.Helper()
		if c.Len() != n || len(c.Count) != n {
			t.Fatalf("Len %d, len(Count) %d, want %d", c.Len(), len(c.Count), n)
		}
		for k, s := range contactStreams(c) {
			if len(s) != n {
				t.Fatalf("stream %d has length %d, want %d", k, len(s), n)
			}
		}
	}
	check(10)
	for k := range 10 {
		f := float32(k)
		c.Set(k, uint32(k+100), uint32(k%3), [2]float32{f, -f}, [3]float32{f + 1, f + 2, f + 3},
			[2][3]float32{{f + 4, f + 5, f + 6}, {f + 7, f + 8, f + 9}})
	}
	row := func(k int) bool {
		f := float32(k)
		return c.Pair[k] == uint32(k+100) && c.Count[k] == uint32(k%3) && c.Depth1[k] == f && c.Depth2[k] == -f &&
			c.NX[k] == f+1 && c.NY[k] == f+2 && c.NZ[k] == f+3 && c.P1X[k] == f+4 && c.P1Y[k] == f+5 && c.P1Z[k] == f+6 &&
			c.P2X[k] == f+7 && c.P2Y[k] == f+8 && c.P2Z[k] == f+9
	}
	for k := range 10 {
		if !row(k) {
			t.Fatalf("row %d does not hold what Set stored", k)
		}
	}
	first := &c.Depth1[0]
	c.Resize(4)
	check(4)
	c.Resize(10) // back within the capacity: same storage, rows kept
	check(10)
	if &c.Depth1[0] != first {
		t.Errorf("Resize within the capacity reallocated")
	}
	for k := range 10 {
		if !row(k) {
			t.Errorf("row %d lost by Resize within the capacity", k)
		}
	}
	c.Resize(5000)
	check(5000)
	c.Set(4999, 1, 2, [2]float32{3, 4}, [3]float32{5, 6, 7}, [2][3]float32{{8, 9, 10}, {11, 12, 13}})
	if c.Pair[4999] != 1 || c.P2Z[4999] != 13 {
		t.Errorf("Set on the last row after growing: %v %v", c.Pair[4999], c.P2Z[4999])
	}
	if a := testing.AllocsPerRun(10, func() { c.Resize(100); c.Resize(5000) }); a != 0 {
		t.Errorf("Resize within the capacity: %v allocations", a)
	}
	c.Resize(0)
	check(0)
	if msg := capPanics(func() { c.Resize(-1) }); !strings.Contains(msg, "negative") {
		t.Errorf("Resize(-1): panic %q", msg)
	}
	if msg := capPanics(func() { soa.NewContacts(-1) }); !strings.Contains(msg, "negative") {
		t.Errorf("NewContacts(-1): panic %q", msg)
	}
	// The zero value resizes too.
	var z soa.Contacts
	z.Resize(3)
	if z.Len() != 3 || len(z.P2Z) != 3 {
		t.Errorf("zero Contacts after Resize(3): Len %d", z.Len())
	}
}

// TestPointSegments checks PointSegments and PointResults: lengths, Set
// storing into the right streams, and negative lengths panicking.
func TestPointSegments(t *testing.T) {
	for _, n := range []int{0, 1, 17, 1000} {
		p := soa.NewPointSegments(n)
		r := soa.NewPointResults(n)
		if p.Len() != n || r.Len() != n || len(r.Dist2) != n {
			t.Fatalf("n=%d: Len %d, results %d/%d", n, p.Len(), r.Len(), len(r.Dist2))
		}
		streams := [][]float32{p.PX, p.PY, p.PZ, p.CX, p.CY, p.CZ, p.DX, p.DY, p.DZ}
		for k, s := range streams {
			if len(s) != n {
				t.Fatalf("n=%d: stream %d has length %d", n, k, len(s))
			}
		}
		for i := range n {
			f := float32(i)
			p.Set(i, [3]float32{f, f + 1, f + 2}, [3]float32{f + 3, f + 4, f + 5}, [3]float32{f + 6, f + 7, f + 8})
		}
		for i := range n {
			for k, s := range streams {
				if s[i] != float32(i+k) {
					t.Fatalf("n=%d: pair %d stream %d = %v, want %v", n, i, k, s[i], i+k)
				}
			}
		}
		// Result streams are distinct storage.
		for i := range n {
			r.T[i], r.Dist2[i] = 1, 2
		}
		for i := range n {
			if r.T[i] != 1 || r.Dist2[i] != 2 {
				t.Fatalf("n=%d: result streams overlap at %d", n, i)
			}
		}
	}
	if msg := capPanics(func() { soa.NewPointSegments(-1) }); !strings.Contains(msg, "negative") {
		t.Errorf("NewPointSegments(-1): panic %q", msg)
	}
	if msg := capPanics(func() { soa.NewPointResults(-1) }); !strings.Contains(msg, "negative") {
		t.Errorf("NewPointResults(-1): panic %q", msg)
	}
}

// TestPlaneLayout: a plane record has a capsule record's size, N where A
// is and D where R is, so that one record loader serves both.
func TestPlaneLayout(t *testing.T) {
	var p soa.Plane
	var c soa.Capsule
	var p64 soa.Plane64
	var c64 soa.Capsule64
	if unsafe.Sizeof(p) != unsafe.Sizeof(c) || unsafe.Offsetof(p.N) != unsafe.Offsetof(c.A) || unsafe.Offsetof(p.D) != unsafe.Offsetof(c.R) {
		t.Errorf("Plane: size %d offsets %d %d, Capsule: %d %d %d", unsafe.Sizeof(p), unsafe.Offsetof(p.N), unsafe.Offsetof(p.D),
			unsafe.Sizeof(c), unsafe.Offsetof(c.A), unsafe.Offsetof(c.R))
	}
	if unsafe.Sizeof(p64) != unsafe.Sizeof(c64) || unsafe.Offsetof(p64.D) != unsafe.Offsetof(c64.R) {
		t.Errorf("Plane64 and Capsule64 differ in layout")
	}
	planes := soa.NewPlanes(3)
	if uintptr(unsafe.Pointer(&planes[0]))%32 != 0 {
		t.Errorf("NewPlanes records not 32-byte aligned")
	}
}
