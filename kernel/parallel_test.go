package kernel_test

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segdist/segdist/asm"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// parallelSizes cross chunk boundaries: below, at and above multiples of 64.
func parallelSizes() []int {
	if testing.Short() {
		return []int{0, 1, 63, 64, 65, 129, 1000, 4097}
	}
	return []int{0, 1, 63, 64, 65, 129, 1000, 4097, 70001}
}

// cycle returns n pairs of all, taken in steps of 7 around it (every
// category mixed into every chunk).
func cycle(all []soa.Pair, n int) []soa.Pair {
	ps := make([]soa.Pair, n)
	for i := range ps {
		ps[i] = all[(7*i)%len(all)]
	}
	return ps
}

// Every entry point of Parallel returns the bits of the single-core call
// of the same path, for every worker count, with the parallel split
// forced (MinParallel 0) and at its default; CompactContacts' rows in the
// same order with the same Pair indices.
func TestParallelBitIdentical(t *testing.T) {
	all := pool(41, 2000)
	all64 := pool64(41, 2000)
	r := verify.NewRand(42, 1)
	caps := verify.RandomCapsules(r, 3000)
	caps64 := verify.WidenCapsules(caps)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, workers := range []int{1, 2, 3} {
			for _, minPar := range []int{0, kernel.DefaultMinParallel} {
				p := kernel.NewParallel(k, workers)
				p.MinParallel = minPar
				for _, n := range parallelSizes() {
					what := "workers=" + strconv.Itoa(workers) + " min=" + strconv.Itoa(minPar) + " n=" + strconv.Itoa(n)
					ps := cycle(all, n)
					src := soa.FromPairs(ps)
					want := soa.NewResults(n)
					k.BatchClosest(want, src)
					got := soa.NewResults(n)
					p.BatchClosest(got, src)
					checkSame(t, what, src, got, want)
					k.StreamOnly(want, src)
					p.StreamOnly(got, src)
					checkSame(t, what+" StreamOnly", src, got, want)

					seg := soa.NewPointSegments(n)
					for i, q := range ps {
						seg.Set(i, q.A, q.C, q.D)
					}
					wp, gp := soa.NewPointResults(n), soa.NewPointResults(n)
					k.BatchClosestPoint(wp, seg)
					p.BatchClosestPoint(gp, seg)
					for i := range n {
						if math.Float32bits(wp.T[i]) != math.Float32bits(gp.T[i]) || math.Float32bits(wp.Dist2[i]) != math.Float32bits(gp.Dist2[i]) {
							t.Fatalf("%s: BatchClosestPoint lane %d differs", what, i)
						}
					}

					ps64 := make([]soa.Pair64, n)
					for i := range ps64 {
						ps64[i] = all64[(7*i)%len(all64)]
					}
					src64 := soa.FromPairs64(ps64)
					want64, got64 := soa.NewResults64(n), soa.NewResults64(n)
					k.BatchClosest64(want64, src64)
					p.BatchClosest64(got64, src64)
					checkSame64(t, what+" BatchClosest64", src64, got64, want64)
					seg64 := soa.NewPointSegments64(n)
					for i, q := range ps64 {
						seg64.Set(i, q.A, q.C, q.D)
					}
					wp64, gp64 := soa.NewPointResults64(n), soa.NewPointResults64(n)
					k.BatchClosestPoint64(wp64, seg64)
					p.BatchClosestPoint64(gp64, seg64)
					for i := range n {
						if math.Float64bits(wp64.T[i]) != math.Float64bits(gp64.T[i]) || math.Float64bits(wp64.Dist2[i]) != math.Float64bits(gp64.Dist2[i]) {
							t.Fatalf("%s: BatchClosestPoint64 lane %d differs", what, i)
						}
					}

					pairs := verify.RandomIndexPairs(r, caps.Len(), n)
					wi, gi := soa.NewResults(n), soa.NewResults(n)
					k.BatchClosestIndexed(wi, caps, pairs)
					p.BatchClosestIndexed(gi, caps, pairs)
					checkSame(t, what+" BatchClosestIndexed", laidOut(caps, pairs), gi, wi)
					wi64, gi64 := soa.NewResults64(n), soa.NewResults64(n)
					k.BatchClosestIndexed64(wi64, caps64, pairs)
					p.BatchClosestIndexed64(gi64, caps64, pairs)
					checkSame64(t, what+" BatchClosestIndexed64", laidOut(caps64, pairs), gi64, wi64)
					w64, g64 := soa.NewContacts64(n), soa.NewContacts64(n)
					k.BatchContacts64(w64, caps64, pairs, 0.05)
					p.BatchContacts64(g64, caps64, pairs, 0.05)
					sameRows64(t, what+" BatchContacts64", w64, g64, n)
					wn64, gn64 := k.CompactContacts64(w64, caps64, pairs, 0.05), p.CompactContacts64(g64, caps64, pairs, 0.05)
					if wn64 != gn64 {
						t.Fatalf("%s: CompactContacts64 wrote %d rows, one core %d", what, gn64, wn64)
					}
					sameRows64(t, what+" CompactContacts64", w64, g64, wn64)

					wc, gc := soa.NewContacts(n), soa.NewContacts(n)
					k.BatchContacts(wc, caps, pairs, 0.05)
					p.BatchContacts(gc, caps, pairs, 0.05)
					sameRows(t, what+" BatchContacts", wc, gc, n)
					wn := k.CompactContacts(wc, caps, pairs, 0.05)
					gn := p.CompactContacts(gc, caps, pairs, 0.05)
					if wn != gn {
						t.Fatalf("%s: CompactContacts wrote %d rows, one core %d", what, gn, wn)
					}
					sameRows(t, what+" CompactContacts", wc, gc, wn)
				}
				p.Close()
			}
		}
	})
}

// sameRows fails t unless rows [0, n) of a and b are the same bits.
func sameRows(t *testing.T, what string, a, b *soa.Contacts, n int) {
	t.Helper()
	for k := range n {
		_, ca := verify.ContactRow(a, k)
		_, cb := verify.ContactRow(b, k)
		if a.Pair[k] != b.Pair[k] || ca.Count != cb.Count {
			t.Fatalf("%s: row %d: pair %d count %d, one core pair %d count %d", what, k, b.Pair[k], cb.Count, a.Pair[k], ca.Count)
		}
		fa, fb := ctContactFloats(ca), ctContactFloats(cb)
		for j := range fa {
			if math.Float32bits(fa[j]) != math.Float32bits(fb[j]) {
				t.Fatalf("%s: row %d float %d: %v, one core %v", what, k, j, fb[j], fa[j])
			}
		}
	}
}

// sameRows64 fails t unless rows [0, n) of a and b are the same bits.
func sameRows64(t *testing.T, what string, a, b *soa.Contacts64, n int) {
	t.Helper()
	for k := range n {
		pa, ca := row64(a, k)
		pb, cb := row64(b, k)
		if pa != pb || !sameContact64(ca, cb) {
			t.Fatalf("%s: row %d: pair %d %+v, one core pair %d %+v", what, k, pb, cb, pa, ca)
		}
	}
}

// After the first call of a size, Parallel allocates nothing.
// BatchClosest batches of asm.NTMinLanes pairs or more per worker take
// chunks of that size or more (non-temporal stores in every chunk): still
// the single-core call's bits, with unaligned output streams too (no
// non-temporal stores then).
func TestParallelNTChunks(t *testing.T) {
	all := pool(43, 2000)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, workers := range []int{2, 3} {
			sizes := []int{workers*asm.NTMinLanes + 1013}
			if !testing.Short() && workers == 2 {
				sizes = append(sizes, 3*workers*asm.NTMinLanes-5)
			}
			p := kernel.NewParallel(k, workers)
			for _, n := range sizes {
				ps := cycle(all, n)
				src := soa.FromPairs(ps)
				want := soa.NewResults(n)
				k.BatchClosest(want, src)
				for _, offset := range []int{0, 1} {
					got := soa.NewResults(n + 1)
					view := &soa.Results{S: got.S[offset : n+offset], T: got.T[offset : n+offset], Dist2: got.Dist2[offset : n+offset]}
					p.BatchClosest(view, src)
					what := "workers=" + strconv.Itoa(workers) + " n=" + strconv.Itoa(n) + " offset=" + strconv.Itoa(offset)
					checkSame(t, what, src, view, want)
				}
			}
			p.Close()
		}
	})
}

func TestParallelNoAllocs(t *testing.T) {
	k := lookup(t, kernel.ISA())
	p := kernel.NewParallel(k, 2)
	defer p.Close()
	p.MinParallel = 0
	const n = 20000
	all := pool(43, 500)
	ps := make([]soa.Pair, n)
	for i := range ps {
		ps[i] = all[i%len(all)]
	}
	src, dst := soa.FromPairs(ps), soa.NewResults(n)
	r := verify.NewRand(44, 1)
	caps := verify.RandomCapsules(r, 1000)
	pairs := verify.RandomIndexPairs(r, caps.Len(), n)
	rows := soa.NewContacts(n)
	src64, dst64 := soa.FromPairs64(pool64(43, n)), soa.NewResults64(n)
	for name, f := range map[string]func(){
		"BatchClosest":    func() { p.BatchClosest(dst, src) },
		"BatchClosest64":  func() { p.BatchClosest64(dst64, src64) },
		"BatchContacts":   func() { p.BatchContacts(rows, caps, pairs, 0.01) },
		"CompactContacts": func() { p.CompactContacts(rows, caps, pairs, 0.01) },
	} {
		f() // the first call may allocate (compaction's per-chunk counts)
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations per call", name, a)
		}
	}
}

// settledGoroutines returns the number of goroutines once it stops
// falling (helpers of earlier tests' Parallels may still be exiting).
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 200 {
		time.Sleep(5 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// Close stops every worker goroutine.
func TestParallelNoGoroutineLeak(t *testing.T) {
	before := settledGoroutines()
	p := kernel.NewParallel(lookup(t, kernel.ISA()), 4)
	if runtime.NumGoroutine() < before+3 {
		t.Fatalf("%d goroutines after NewParallel(4), %d before", runtime.NumGoroutine(), before)
	}
	p.MinParallel = 0
	src := soa.FromPairs(pool(45, 1000))
	p.BatchClosest(soa.NewResults(src.Len()), src)
	p.Close()
	p.Close() // twice is fine
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

// parallelCalls returns a call of every entry point of p on batches of n
// pairs (n index pairs over 1,000 capsules for the index-taking ones).
func parallelCalls(p *kernel.Parallel, n int) map[string]func() {
	r := verify.NewRand(47, 1)
	src := soa.FromPairs(pool(47, n)[:n])
	src64 := soa.FromPairs64(pool64(47, n)[:n])
	seg, seg64 := soa.NewPointSegments(n), soa.NewPointSegments64(n)
	caps := verify.RandomCapsules(r, 1000)
	caps64 := verify.WidenCapsules(caps)
	pairs := verify.RandomIndexPairs(r, caps.Len(), n)
	res, res64 := soa.NewResults(n), soa.NewResults64(n)
	pres, pres64 := soa.NewPointResults(n), soa.NewPointResults64(n)
	rows, rows64 := soa.NewContacts(n), soa.NewContacts64(n)
	return map[string]func(){
		"BatchClosest":          func() { p.BatchClosest(res, src) },
		"StreamOnly":            func() { p.StreamOnly(res, src) },
		"BatchClosest64":        func() { p.BatchClosest64(res64, src64) },
		"BatchClosestPoint":     func() { p.BatchClosestPoint(pres, seg) },
		"BatchClosestPoint64":   func() { p.BatchClosestPoint64(pres64, seg64) },
		"BatchClosestIndexed":   func() { p.BatchClosestIndexed(res, caps, pairs) },
		"BatchClosestIndexed64": func() { p.BatchClosestIndexed64(res64, caps64, pairs) },
		"BatchContacts":         func() { p.BatchContacts(rows, caps, pairs, 0.01) },
		"CompactContacts":       func() { p.CompactContacts(rows, caps, pairs, 0.01) },
		"BatchContacts64":       func() { p.BatchContacts64(rows64, caps64, pairs, 0.01) },
		"CompactContacts64":     func() { p.CompactContacts64(rows64, caps64, pairs, 0.01) },
	}
}

// panicOf returns the message call panics with, or "" if it returns.
func panicOf(call func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
			if msg == "" {
				msg = "(empty panic)"
			}
		}
	}()
	call()
	return ""
}

// A call that needs the workers while another call holds them panics,
// naming the misuse, and leaves the holder's call alone; a batch small
// enough for the calling goroutine alone runs. After the holder returns,
// every call runs.
func TestParallelOneCallerAtATime(t *testing.T) {
	p := kernel.NewParallel(lookup(t, kernel.ISA()), 2)
	defer p.Close()
	big := parallelCalls(p, 5000) // above DefaultMinParallel
	small := parallelCalls(p, 100)
	release := kernel.HoldParallel(p)
	for name, call := range big {
		if msg := panicOf(call); !strings.Contains(msg, "two goroutines at once") {
			t.Errorf("%s while another call holds the workers: panic %q", name, msg)
		}
	}
	for name, call := range small {
		if msg := panicOf(call); msg != "" {
			t.Errorf("%s of 100 pairs while another call holds the workers: panic %q", name, msg)
		}
	}
	release()
	for name, call := range big {
		if msg := panicOf(call); msg != "" {
			t.Errorf("%s after the other call: panic %q", name, msg)
		}
	}
}

// Two goroutines sharing one Parallel without synchronisation: every
// call either panics with the misuse message or returns exactly the
// single-core results, never a mix of the two calls' batches. A call
// that panics is quick, so each goroutine tries until it has made its
// calls (or a hundred times as many attempts).
func TestParallelConcurrentMisuse(t *testing.T) {
	k := lookup(t, kernel.ISA())
	p := kernel.NewParallel(k, 2)
	defer p.Close()
	p.MinParallel = 0
	const n = 3000
	var srcs [2]*soa.Pairs
	var wants [2]*soa.Results
	for g := range srcs {
		srcs[g] = soa.FromPairs(pool(uint64(48+g), n)[:n])
		wants[g] = soa.NewResults(n)
		k.BatchClosest(wants[g], srcs[g])
	}
	calls := 300
	if testing.Short() {
		calls = 50
	}
	var wg sync.WaitGroup
	var panics, done [2]int
	for g := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := soa.NewResults(n)
			for range 100 * calls {
				if done[g] == calls {
					return
				}
				if msg := panicOf(func() { p.BatchClosest(got, srcs[g]) }); msg != "" {
					if !strings.Contains(msg, "two goroutines at once") {
						t.Errorf("goroutine %d: panic %q", g, msg)
						return
					}
					panics[g]++
					continue
				}
				for i := range n {
					if math.Float32bits(got.Dist2[i]) != math.Float32bits(wants[g].Dist2[i]) ||
						math.Float32bits(got.S[i]) != math.Float32bits(wants[g].S[i]) ||
						math.Float32bits(got.T[i]) != math.Float32bits(wants[g].T[i]) {
						t.Errorf("goroutine %d: lane %d differs from the single-core call", g, i)
						return
					}
				}
				done[g]++
			}
		}()
	}
	wg.Wait()
	t.Logf("calls made: %d and %d; calls that found the workers held: %d and %d", done[0], done[1], panics[0], panics[1])
}

// Every call after Close panics, whatever the size of its batch, rather
// than running on stopped workers.
func TestParallelAfterClose(t *testing.T) {
	p := kernel.NewParallel(lookup(t, kernel.ISA()), 2)
	p.Close()
	for _, n := range []int{100, 5000} {
		for name, call := range parallelCalls(p, n) {
			if msg := panicOf(call); !strings.Contains(msg, "after Close") {
				t.Errorf("%s of %d pairs after Close: panic %q", name, n, msg)
			}
		}
	}
}

// NewParallel rejects fewer than one worker.
func TestParallelWorkers(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewParallel(k, 0) did not panic")
		}
	}()
	kernel.NewParallel(lookup(t, "go"), 0)
}

// Batches large enough for Parallel to check their indices on the workers
// (2^17 pairs and up) panic on one index out of range, wherever it is,
// before any kernel writes a row, as the single-core entry points do; in
// range, the check allocates nothing.
func TestParallelIndexCheck(t *testing.T) {
	const n = 1<<17 + 77
	p := kernel.NewParallel(lookup(t, kernel.ISA()), 2)
	defer p.Close()
	r := verify.NewRand(46, 1)
	caps := verify.RandomCapsules(r, 1000)
	caps64 := verify.WidenCapsules(caps)
	pairs := verify.RandomIndexPairs(r, caps.Len(), n)
	rows, rows64 := soa.NewContacts(n), soa.NewContacts64(n)
	res, res64 := soa.NewResults(n), soa.NewResults64(n)
	calls := map[string]func(){
		"BatchContacts":         func() { p.BatchContacts(rows, caps, pairs, 0.01) },
		"CompactContacts":       func() { p.CompactContacts(rows, caps, pairs, 0.01) },
		"BatchContacts64":       func() { p.BatchContacts64(rows64, caps64, pairs, 0.01) },
		"CompactContacts64":     func() { p.CompactContacts64(rows64, caps64, pairs, 0.01) },
		"BatchClosestIndexed":   func() { p.BatchClosestIndexed(res, caps, pairs) },
		"BatchClosestIndexed64": func() { p.BatchClosestIndexed64(res64, caps64, pairs) },
	}
	untouched := func() bool {
		return rows.Count[0] == 7 && rows.Count[n-1] == 7 && rows64.Count[0] == 7 && rows64.Count[n-1] == 7 &&
			res.S[0] == 7 && res.S[n-1] == 7 && res64.S[0] == 7 && res64.S[n-1] == 7
	}
	for name, call := range calls {
		call() // in range: no panic
		if a := testing.AllocsPerRun(5, call); a != 0 {
			t.Errorf("%s: %v allocations per call", name, a)
		}
		for _, at := range []int{0, n / 2, n - 1} {
			for side, idx := range [][]uint32{pairs.I, pairs.J} {
				rows.Count[0], rows.Count[n-1], rows64.Count[0], rows64.Count[n-1] = 7, 7, 7, 7
				res.S[0], res.S[n-1], res64.S[0], res64.S[n-1] = 7, 7, 7, 7
				old := idx[at]
				idx[at] = uint32(caps.Len())
				msg := func() (msg string) {
					defer func() { msg, _ = recover().(string) }()
					call()
					return ""
				}()
				idx[at] = old
				if !strings.Contains(msg, "out of range") || !strings.Contains(msg, strconv.Itoa(at)) {
					t.Errorf("%s, index %d of side %d out of range: panic %q", name, at, side, msg)
				}
				if !untouched() {
					t.Errorf("%s, index %d of side %d out of range: a kernel wrote results before the panic", name, at, side)
				}
			}
		}
	}
}
