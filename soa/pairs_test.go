package soa_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/soa"
)

// pairStreams returns the twelve coordinate slices of p.
func pairStreams[F soa.Float](p *soa.PairsOf[F]) [][]F {
	return [][]F{p.AX, p.AY, p.AZ, p.BX, p.BY, p.BZ, p.CX, p.CY, p.CZ, p.DX, p.DY, p.DZ}
}

// resultStreams returns the three slices of r.
func resultStreams[F soa.Float](r *soa.ResultsOf[F]) [][]F {
	return [][]F{r.S, r.T, r.Dist2}
}

// addr returns the address of the first element of s's backing array at s.
func addr[E soa.Float | uint32](s []E) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s))) }

// checkLayout checks that every stream starts on a 64-byte boundary, that
// the streams do not overlap, and returns how many distinct 4 KiB page
// offsets they start at.
func checkLayout[F soa.Float](t *testing.T, what string, streams [][]F) (distinctOffsets int) {
	t.Helper()
	offs := map[uintptr]bool{}
	for i, s := range streams {
		a := addr(s)
		if a%64 != 0 {
			t.Errorf("%s: stream %d starts at %#x, not 64-byte aligned", what, i, a)
		}
		offs[a%4096] = true
		for j, o := range streams[:i] {
			b := addr(o)
			size := uintptr(unsafe.Sizeof(F(0)))
			if a < b+size*uintptr(cap(o)) && b < a+size*uintptr(cap(s)) {
				t.Errorf("%s: streams %d and %d overlap", what, j, i)
			}
		}
	}
	return len(offs)
}

// TestLayoutAligned checks 64-byte alignment and no overlap for many sizes.
func TestLayoutAligned(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 17, 100, 1000, 1008, 1024, 4095, 4096, 4097, 65536} {
		p := soa.NewPairs(n)
		if p.Len() != n {
			t.Errorf("NewPairs(%d).Len() = %d", n, p.Len())
		}
		for i, s := range pairStreams(p) {
			if len(s) != n || cap(s) < n || cap(s) < 16 {
				t.Errorf("NewPairs(%d): stream %d has len %d cap %d", n, i, len(s), cap(s))
			}
			for _, x := range s {
				if x != 0 {
					t.Fatalf("NewPairs(%d): stream %d not zeroed", n, i)
				}
			}
		}
		checkLayout(t, fmt.Sprintf("NewPairs(%d)", n), pairStreams(p))
		r := soa.NewResults(n)
		if r.Len() != n {
			t.Errorf("NewResults(%d).Len() = %d", n, r.Len())
		}
		checkLayout(t, fmt.Sprintf("NewResults(%d)", n), resultStreams(r))
	}
}

// TestLayoutStaggered checks the stagger (docs/design.md, "Memory layout
// and loads"): the twelve
// pair streams (and the three result streams) of a batch start at pairwise
// distinct offsets within a 4 KiB page, so that a kernel walking them in
// lockstep does not map them all to the same L1 sets. Big batches, and
// every capacity (multiple of 16) up to 8192.
func TestLayoutStaggered(t *testing.T) {
	var bad []string
	check := func(n int) {
		if d := checkLayout(t, "", pairStreams(soa.NewPairs(n))); d != 12 {
			bad = append(bad, fmt.Sprintf("NewPairs(%d): %d distinct", n, d))
		}
		if d := checkLayout(t, "", resultStreams(soa.NewResults(n))); d != 3 {
			bad = append(bad, fmt.Sprintf("NewResults(%d): %d distinct", n, d))
		}
		if d := checkLayout(t, "", pairStreams(soa.NewPairs64(n))); d != 12 {
			bad = append(bad, fmt.Sprintf("NewPairs64(%d): %d distinct", n, d))
		}
		if d := checkLayout(t, "", resultStreams(soa.NewResults64(n))); d != 3 {
			bad = append(bad, fmt.Sprintf("NewResults64(%d): %d distinct", n, d))
		}
	}
	for _, n := range []int{1000, 4096, 65536, 100000, 1 << 20} {
		check(n)
	}
	for n := 16; n <= 8192; n += 16 {
		check(n)
	}
	if len(bad) > 0 {
		t.Errorf("stream start offsets mod 4096 not pairwise distinct (%d cases): %s", len(bad), strings.Join(bad, "; "))
	}
}

// pageLines returns the cache line within its 4 KiB page at which each
// stream starts.
func pageLines[E soa.Float | uint32](streams ...[]E) []int {
	var out []int
	for _, s := range streams {
		out = append(out, int(addr(s)%4096/64))
	}
	return out
}

// TestLayoutPaged checks where large batches sit within the 4 KiB page
// (soa's staggered): the streams of an input batch start at lines 0, 1, 2,
// ... of a page and those of an output batch at lines 32, 33, ..., so that
// a kernel's stores never share a page offset with its next loads (4K
// aliasing), also after a batch grows by Resize or Append. Smaller
// batches keep the odd stride only.
func TestLayoutPaged(t *testing.T) {
	want := func(what string, got []int, first int) {
		t.Helper()
		for j, line := range got {
			if line != first+j {
				t.Errorf("%s: streams start at page lines %v, want %d, %d, ...", what, got, first, first+1)
				return
			}
		}
	}
	for _, n := range []int{4096, 4097, 5000, 65536, 100000, 1 << 20} {
		want(fmt.Sprintf("NewPairs(%d)", n), pageLines(pairStreams(soa.NewPairs(n))...), 0)
		want(fmt.Sprintf("NewResults(%d)", n), pageLines(resultStreams(soa.NewResults(n))...), 32)
		want(fmt.Sprintf("NewPairs64(%d)", n), pageLines(pairStreams(soa.NewPairs64(n))...), 0)
		want(fmt.Sprintf("NewResults64(%d)", n), pageLines(resultStreams(soa.NewResults64(n))...), 32)
		ps := soa.NewPointSegments(n)
		want(fmt.Sprintf("NewPointSegments(%d)", n), pageLines(ps.PX, ps.PY, ps.PZ, ps.CX, ps.CY, ps.CZ, ps.DX, ps.DY, ps.DZ), 0)
		pr := soa.NewPointResults(n)
		want(fmt.Sprintf("NewPointResults(%d)", n), pageLines(pr.T, pr.Dist2), 32)
		c := soa.NewContacts(n)
		want(fmt.Sprintf("NewContacts(%d)", n), pageLines(c.Depth1, c.Depth2, c.NX, c.NY, c.NZ,
			c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z), 32)
		want(fmt.Sprintf("NewContacts(%d) Pair, Count", n), pageLines(c.Pair, c.Count), 43)
		ip := soa.NewIndexPairs(n)
		want(fmt.Sprintf("NewIndexPairs(%d)", n), pageLines(ip.I, ip.J), 0)
		// The padding to a stride of one line past whole pages costs at
		// most 63 lines per stream.
		p := soa.NewPairs(n)
		if stride, most := addr(p.AY)-addr(p.AX), uintptr(4*cap(p.AX)+64*64); stride > most {
			t.Errorf("NewPairs(%d): streams %d bytes apart, more than %d", n, stride, most)
		}
	}
	// Growth reallocates with the same placement.
	p := soa.NewPairs(16)
	for p.Len() < 5000 {
		p.Append(pt(1, 2, 3), pt(4, 5, 6), pt(7, 8, 9), pt(1, 1, 1))
	}
	want("NewPairs(16) after 4,984 Appends", pageLines(pairStreams(p)...), 0)
	r := soa.NewResults(16)
	r.Resize(70000)
	want("NewResults(16).Resize(70000)", pageLines(resultStreams(r)...), 32)
	ip := soa.NewIndexPairs(0)
	for ip.Len() < 5000 {
		ip.Append(1, 2)
	}
	want("NewIndexPairs(0) after 5,000 Appends", pageLines(ip.I, ip.J), 0)
	for k := range ip.Len() {
		if i, j := ip.Get(k); i != 1 || j != 2 {
			t.Fatalf("IndexPairs after Appends: pair %d is (%d, %d)", k, i, j)
		}
	}
}

func pt(x, y, z float32) [3]float32 { return [3]float32{x, y, z} }

// pairAt is a distinct pair for each i.
func pairAt(i int) soa.Pair {
	f := float32(i)
	return soa.Pair{A: pt(f, f+0.5, -f), B: pt(2*f, 1, f*f), C: pt(-3, f, 7), D: pt(f+1, f+2, f+3)}
}

// TestSetGet checks the round trip through the twelve slices.
func TestSetGet(t *testing.T) {
	p := soa.NewPairs(20)
	for i := range 20 {
		q := pairAt(i)
		p.Set(i, q.A, q.B, q.C, q.D)
	}
	for i := range 20 {
		if got := p.Get(i); got != pairAt(i) {
			t.Errorf("Get(%d) = %+v, want %+v", i, got, pairAt(i))
		}
	}
	q := pairAt(7)
	if p.AX[7] != q.A[0] || p.AY[7] != q.A[1] || p.AZ[7] != q.A[2] || p.BX[7] != q.B[0] || p.BY[7] != q.B[1] ||
		p.BZ[7] != q.B[2] || p.CX[7] != q.C[0] || p.CY[7] != q.C[1] || p.CZ[7] != q.C[2] || p.DX[7] != q.D[0] ||
		p.DY[7] != q.D[1] || p.DZ[7] != q.D[2] {
		t.Errorf("Set(7) stored the wrong coordinates in the slices")
	}
	ps := make([]soa.Pair, 33)
	for i := range ps {
		ps[i] = pairAt(i)
	}
	f := soa.FromPairs(ps)
	for i := range ps {
		if f.Get(i) != ps[i] {
			t.Fatalf("FromPairs: Get(%d) = %+v, want %+v", i, f.Get(i), ps[i])
		}
	}
	if f.Len() != len(ps) {
		t.Errorf("FromPairs: Len = %d", f.Len())
	}
}

// TestAppendGrowth appends across several reallocations and checks that
// every pair survives, the layout stays aligned, and capacity at least
// doubles when it grows.
func TestAppendGrowth(t *testing.T) {
	p := soa.NewPairs(0)
	grows := 0
	for i := range 5000 {
		before := cap(p.AX)
		q := pairAt(i)
		p.Append(q.A, q.B, q.C, q.D)
		if cap(p.AX) != before {
			grows++
			if cap(p.AX) < 2*before && before > 0 {
				t.Errorf("Append at %d grew capacity %d -> %d, want at least doubling", i, before, cap(p.AX))
			}
			checkLayout(t, fmt.Sprintf("after growth at %d", i), pairStreams(p))
		}
		if p.Len() != i+1 {
			t.Fatalf("Len after %d appends = %d", i+1, p.Len())
		}
	}
	if grows < 5 {
		t.Errorf("only %d reallocations in 5000 appends: the test does not cross growth", grows)
	}
	for i := range 5000 {
		if p.Get(i) != pairAt(i) {
			t.Fatalf("after growth, pair %d = %+v, want %+v", i, p.Get(i), pairAt(i))
		}
	}
	for i, s := range pairStreams(p) {
		if len(s) != 5000 {
			t.Errorf("stream %d has length %d", i, len(s))
		}
	}
}

// TestAppendUserSlices appends to a batch whose slices the caller set
// himself (full capacity, different backing arrays): Append must copy
// them into its own storage, keeping the data.
func TestAppendUserSlices(t *testing.T) {
	mk := func(v float32) []float32 { return []float32{v, v + 1, v + 2} }
	p := &soa.Pairs{AX: mk(0), AY: mk(10), AZ: mk(20), BX: mk(30), BY: mk(40), BZ: mk(50),
		CX: mk(60), CY: mk(70), CZ: mk(80), DX: mk(90), DY: mk(100), DZ: mk(110)}
	user := p.AX
	q := pairAt(3)
	p.Append(q.A, q.B, q.C, q.D)
	if p.Len() != 4 || p.Get(3) != q {
		t.Fatalf("Append: Len %d, last %+v", p.Len(), p.Get(3))
	}
	for k, s := range pairStreams(p) {
		for i := range 3 {
			if want := float32(10*k + i); s[i] != want {
				t.Fatalf("stream %d element %d = %v, want %v", k, i, s[i], want)
			}
		}
	}
	if !slices.Equal(user, []float32{0, 1, 2}) {
		t.Errorf("Append wrote into the caller's slice: %v", user)
	}
	checkLayout(t, "after Append on user slices", pairStreams(p))
}

// TestReset keeps the storage: refilling up to the old length does not
// reallocate.
func TestReset(t *testing.T) {
	p := soa.NewPairs(0)
	for i := range 100 {
		q := pairAt(i)
		p.Append(q.A, q.B, q.C, q.D)
	}
	before := addr(p.AX)
	c := cap(p.AX)
	p.Reset()
	if p.Len() != 0 {
		t.Fatalf("Len after Reset = %d", p.Len())
	}
	for i, s := range pairStreams(p) {
		if len(s) != 0 || cap(s) != c {
			t.Errorf("stream %d after Reset: len %d cap %d, want 0 and %d", i, len(s), cap(s), c)
		}
	}
	for i := range 100 {
		q := pairAt(i + 1)
		p.Append(q.A, q.B, q.C, q.D)
	}
	if addr(p.AX) != before || cap(p.AX) != c {
		t.Errorf("refilling after Reset reallocated")
	}
	if p.Get(99) != pairAt(100) {
		t.Errorf("refilled pair 99 = %+v", p.Get(99))
	}
	if a := testing.AllocsPerRun(10, func() {
		p.Reset()
		for i := range 100 {
			q := pairAt(i)
			p.Append(q.A, q.B, q.C, q.D)
		}
	}); a != 0 {
		t.Errorf("Reset and refill: %v allocations per run", a)
	}
}

// TestResize checks that Resize sets all three lengths, reuses storage when
// it can and reallocates (aligned) when it cannot.
func TestResize(t *testing.T) {
	r := soa.NewResults(10)
	base := addr(r.S)
	c := cap(r.S)
	for _, n := range []int{0, 5, c, 3} {
		r.Resize(n)
		for i, s := range resultStreams(r) {
			if len(s) != n {
				t.Errorf("Resize(%d): stream %d has length %d", n, i, len(s))
			}
		}
		if addr(r.S) != base {
			t.Errorf("Resize(%d) within capacity %d reallocated", n, c)
		}
		if r.Len() != n {
			t.Errorf("Resize(%d): Len = %d", n, r.Len())
		}
	}
	r.Resize(c + 1)
	if r.Len() != c+1 || len(r.T) != c+1 || len(r.Dist2) != c+1 {
		t.Fatalf("Resize(%d): lengths %d %d %d", c+1, len(r.S), len(r.T), len(r.Dist2))
	}
	checkLayout(t, "after growing Resize", resultStreams(r))
	// Results whose slices the caller set, of different capacities.
	u := &soa.Results{S: make([]float32, 2, 100), T: make([]float32, 2, 3), Dist2: make([]float32, 2, 100)}
	u.Resize(50)
	if len(u.S) != 50 || len(u.T) != 50 || len(u.Dist2) != 50 {
		t.Errorf("Resize(50) on mixed capacities: lengths %d %d %d", len(u.S), len(u.T), len(u.Dist2))
	}
	if a := testing.AllocsPerRun(10, func() { r.Resize(3); r.Resize(c) }); a != 0 {
		t.Errorf("Resize within capacity: %v allocations per run", a)
	}
}

// TestNegativeLength checks the panics on negative sizes.
func TestNegativeLength(t *testing.T) {
	for name, f := range map[string]func(){
		"NewPairs":   func() { soa.NewPairs(-1) },
		"NewResults": func() { soa.NewResults(-1) },
		"Resize":     func() { soa.NewResults(4).Resize(-1) },
	} {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			f()
			return "<nil>"
		}()
		if !strings.Contains(msg, "negative length -1") {
			t.Errorf("%s(-1): panic %q, want one mentioning the negative length", name, msg)
		}
	}
}
