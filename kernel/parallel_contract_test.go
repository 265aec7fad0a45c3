package kernel

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/soa"
)

// sentinel is what the rows beyond a compaction's count hold before the
// call, and must hold after it.
const sentinel = 0xDEADBEEF

// fillSentinel sets every row of c to the sentinel bits.
func fillSentinel[F soa.Float](c *soa.ContactsOf[F]) {
	for i := range c.Pair {
		c.Pair[i], c.Count[i] = sentinel, sentinel
	}
	for _, s := range contactFloats(c) {
		for i := range s {
			s[i] = sentinelFloat[F]()
		}
	}
}

// sentinelFloat is the sentinel as a float of F's width (a NaN payload no
// kernel writes).
func sentinelFloat[F soa.Float]() F {
	var z F
	switch any(z).(type) {
	case float32:
		return F(math.Float32frombits(sentinel))
	default:
		return F(math.Float64frombits(0xDEADBEEF_DEADBEEF))
	}
}

// untouchedFrom returns the first row at or after from that is not the
// sentinel, or -1.
func untouchedFrom[F soa.Float](c *soa.ContactsOf[F], from int) int {
	fl := contactFloats(c)
	want := sentinelFloat[F]()
	for i := from; i < len(c.Pair); i++ {
		if c.Pair[i] != sentinel || c.Count[i] != sentinel {
			return i
		}
		for _, s := range fl {
			if !sameBits(s[i], want) {
				return i
			}
		}
	}
	return -1
}

func sameBits[F soa.Float](a, b F) bool {
	switch x := any(a).(type) {
	case float32:
		return math.Float32bits(x) == math.Float32bits(any(b).(float32))
	default:
		return math.Float64bits(any(a).(float64)) == math.Float64bits(any(b).(float64))
	}
}

// spacedScene returns n capsules 10 apart along x (none touching another)
// and m pairs (k, k+1 mod n), every 1000th pair (k, k) instead, which
// touches: the few touching pairs of a broadphase over a sparse world.
func spacedScene(n, m int) (soa.Capsules, *soa.IndexPairs) {
	caps := soa.NewCapsules(n)
	for i := range n {
		x := float32(10 * i)
		caps.Set(i, [3]float32{x, 0, 0}, [3]float32{x, 1, 0}, 0.5)
	}
	pairs := soa.NewIndexPairs(m)
	for k := range m {
		i := uint32(k % n)
		j := uint32((k + 1) % n)
		if k%1000 == 0 {
			j = i
		}
		pairs.I[k], pairs.J[k] = i, j
	}
	return caps, pairs
}

// TestParallelCompactKeepsRowsBeyondCount: Parallel's CompactContacts and
// CompactContacts64 write rows [0, count) as the single-core call does and
// leave every row from the count on as it was, on batches spanning many
// chunks, on every path and worker count.
func TestParallelCompactKeepsRowsBeyondCount(t *testing.T) {
	sizes := []int{20000, 100000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, isa := range Available() {
		k, _ := Lookup(isa)
		for _, workers := range []int{2, 3} {
			p := NewParallel(k, workers)
			p.MinParallel = 0
			for _, m := range sizes {
				caps, pairs := spacedScene(20000, m)
				caps64 := soa.NewCapsules64(caps.Len())
				for i := range caps {
					a, b, r := caps.Get(i)
					caps64.Set(i, [3]float64{float64(a[0]), float64(a[1]), float64(a[2])}, [3]float64{float64(b[0]), float64(b[1]), float64(b[2])}, float64(r))
				}
				what := fmt.Sprintf("isa=%s workers=%d pairs=%d", isa, workers, m)
				checkBeyond(t, what, m, func(d *soa.Contacts) int { return k.CompactContacts(d, caps, pairs, 0) },
					func(d *soa.Contacts) int { return p.CompactContacts(d, caps, pairs, 0) }, (m+999)/1000)
				checkBeyond(t, what+" float64", m, func(d *soa.Contacts64) int { return k.CompactContacts64(d, caps64, pairs, 0) },
					func(d *soa.Contacts64) int { return p.CompactContacts64(d, caps64, pairs, 0) }, (m+999)/1000)
			}
			p.Close()
		}
	}
}

// checkBeyond runs one (single core) and par (Parallel) on batches of m
// sentinel rows and fails t unless both write the same rows and par leaves
// the rows from the count on untouched.
func checkBeyond[F soa.Float](t *testing.T, what string, m int, one, par func(*soa.ContactsOf[F]) int, wantN int) {
	t.Helper()
	want, got := &soa.ContactsOf[F]{}, &soa.ContactsOf[F]{}
	want.Resize(m)
	got.Resize(m)
	fillSentinel(want)
	fillSentinel(got)
	wn, gn := one(want), par(got)
	if wn != gn || wantN >= 0 && wn != wantN {
		t.Fatalf("%s: Parallel wrote %d rows, one core %d, want %d", what, gn, wn, wantN)
	}
	if i := untouchedFrom(want, wn); i >= 0 {
		t.Fatalf("%s: the single-core call wrote row %d, beyond its count %d", what, i, wn)
	}
	if i := untouchedFrom(got, gn); i >= 0 {
		t.Fatalf("%s: Parallel wrote row %d, beyond its count %d", what, i, gn)
	}
	wf, gf := contactFloats(want), contactFloats(got)
	for i := range wn {
		if want.Pair[i] != got.Pair[i] || want.Count[i] != got.Count[i] {
			t.Fatalf("%s: row %d: pair %d, one core pair %d", what, i, got.Pair[i], want.Pair[i])
		}
		for j := range wf {
			if !sameBits(wf[j][i], gf[j][i]) {
				t.Fatalf("%s: row %d, float stream %d differs", what, i, j)
			}
		}
	}
}

// panicky returns the path k with kernels that panic: BatchClosest with
// "boom at <AY>" on a chunk holding a pair with AX = -12345, the float32
// compaction on a chunk holding capsule I of radius 12345, BatchClosest64
// always.
func panicky(k Kernel) Kernel {
	f32, f64 := *k.f32, *k.f64
	closest := f32.closest
	f32.closest = func(n int, dst *soa.Results, src *soa.Pairs) {
		for i := range n {
			if src.AX[i] == -12345 {
				panic(fmt.Sprintf("boom at %v", src.AY[i]))
			}
		}
		closest(n, dst, src)
	}
	compact := f32.compact
	f32.compact = func(m int, dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) int {
		for i := range m {
			if caps[pairs.I[i]].R == 12345 {
				panic("boom in a compaction")
			}
		}
		return compact(m, dst, caps, pairs, margin)
	}
	f64.closest = func(n int, dst *soa.Results64, src *soa.Pairs64) {
		panic("boom in float64")
	}
	return Kernel{isa: k.isa + "-panicky", f32: &f32, f64: &f64}
}

// TestParallelWorkerPanicReachesCaller: a kernel that panics in one chunk,
// whichever goroutine computes it, makes the call panic in the calling
// goroutine with the same value, after every worker has left the call;
// the process survives, and later calls on the same Parallel run and give
// the single-core bits.
func TestParallelWorkerPanicReachesCaller(t *testing.T) {
	good, _ := Lookup(ISA())
	k := panicky(good)
	const n = 50000
	src := soa.NewPairs(n)
	for i := range n {
		src.Set(i, [3]float32{float32(i), 0, 0}, [3]float32{float32(i), 1, 0}, [3]float32{float32(i) + 0.5, 0, 1}, [3]float32{float32(i) + 0.5, 1, 1})
	}
	want := soa.NewResults(n)
	good.BatchClosest(want, src)
	tries := 50
	if testing.Short() {
		tries = 10
	}
	for _, workers := range []int{2, 4} {
		p := NewParallel(k, workers)
		p.MinParallel = 0
		for try := range tries {
			// The bad pair in the first chunk (usually the caller's), the
			// last (a helper's) or in between.
			at := []int{0, n - 1, n / 2}[try%3]
			src.AX[at], src.AY[at] = -12345, float32(at)
			msg := panicOf(func() { p.BatchClosest(soa.NewResults(n), src) })
			src.AX[at], src.AY[at] = float32(at), 0
			if msg != fmt.Sprintf("boom at %d", at) {
				t.Fatalf("workers=%d try %d: panic %q, want %q", workers, try, msg, fmt.Sprintf("boom at %d", at))
			}
			got := soa.NewResults(n)
			p.BatchClosest(got, src) // no hang, no leftover panic
			for i := range n {
				if math.Float32bits(got.Dist2[i]) != math.Float32bits(want.Dist2[i]) {
					t.Fatalf("workers=%d try %d: after the panic, lane %d differs", workers, try, i)
				}
			}
		}
		// A compaction panics the same way; every worker stops waiting for
		// the chunk that never came.
		caps, pairs := spacedScene(1000, n)
		caps[7].R = 12345
		if msg := panicOf(func() { p.CompactContacts(soa.NewContacts(n), caps, pairs, 0) }); msg != "boom in a compaction" {
			t.Fatalf("workers=%d: CompactContacts panic %q", workers, msg)
		}
		if msg := panicOf(func() { p.BatchClosest64(soa.NewResults64(n), soa.NewPairs64(n)) }); msg != "boom in float64" {
			t.Fatalf("workers=%d: BatchClosest64 panic %q", workers, msg)
		}
		p.Close()
	}
}

// panicOf returns the message call panics with, or "" if it returns.
func panicOf(call func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	call()
	return ""
}

// TestParallelZeroValues: the zero Kernel and the zero Parallel are
// rejected with a message, not a nil dereference on a worker.
func TestParallelZeroValues(t *testing.T) {
	if msg := panicOf(func() { NewParallel(Kernel{}, 2) }); !strings.Contains(msg, "zero Kernel") {
		t.Errorf("NewParallel(Kernel{}, 2): panic %q", msg)
	}
	var p Parallel
	src := soa.NewPairs(10)
	if msg := panicOf(func() { p.BatchClosest(soa.NewResults(10), src) }); !strings.Contains(msg, "zero Parallel") {
		t.Errorf("zero Parallel's BatchClosest: panic %q", msg)
	}
	if msg := panicOf(p.Close); !strings.Contains(msg, "zero Parallel") {
		t.Errorf("zero Parallel's Close: panic %q", msg)
	}
}

// TestParallelCloseDuringCall: Close while another goroutine calls either
// lets the call finish or makes it panic with "used after Close"; never
// another panic, and Close returns.
func TestParallelCloseDuringCall(t *testing.T) {
	k, _ := Lookup(ISA())
	const n = 8192
	src := soa.NewPairs(n)
	tries := 200
	if testing.Short() {
		tries = 50
	}
	finished, refused := 0, 0
	for try := range tries {
		p := NewParallel(k, 2)
		p.MinParallel = 0
		dst := soa.NewResults(n)
		var wg sync.WaitGroup
		msgs := make(chan string, 64)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				msg := panicOf(func() { p.BatchClosest(dst, src) })
				msgs <- msg
				if msg != "" {
					return
				}
			}
		}()
		if try%2 == 1 {
			runtime.Gosched()
		}
		p.Close()
		wg.Wait()
		close(msgs)
		for msg := range msgs {
			switch {
			case msg == "":
				finished++
			case msg == afterClose:
				refused++
			default:
				t.Fatalf("try %d: a call racing Close panicked %q", try, msg)
			}
		}
	}
	t.Logf("calls finished: %d; refused after Close: %d", finished, refused)
}

// TestParallelCleanupStopsWorkers: a Parallel dropped without Close stops
// its worker goroutines once it is collected.
func TestParallelCleanupStopsWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		k, _ := Lookup(ISA())
		p := NewParallel(k, 4)
		p.MinParallel = 0
		src := soa.NewPairs(5000)
		p.BatchClosest(soa.NewResults(5000), src)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(2 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines 10 s after dropping a Parallel of 4 workers, %d before it", n, before)
	}
}

// TestParallelPlaneContacts: Parallel's plane entry points return the
// single-core rows on every path and worker count, in chunks of 64 pairs
// (hundreds of chunks placed out of order), float32 and float64, and the
// compactions leave the rows from their count on untouched.
func TestParallelPlaneContacts(t *testing.T) {
	var cases []verify.PlaneCase
	for ci, cat := range verify.PlaneCategories() {
		cases = append(cases, cat.Generate(uint64(500+ci), 1500)...)
	}
	caps, planes, pairs := verify.PlaneCapsules(cases)
	caps64 := verify.WidenCapsules(caps)
	planes64 := soa.NewPlanes64(len(planes))
	for i, q := range planes {
		planes64.Set(i, [3]float64{float64(q.N[0]), float64(q.N[1]), float64(q.N[2])}, float64(q.D))
	}
	m := pairs.Len()
	for _, isa := range Available() {
		k, _ := Lookup(isa)
		for _, workers := range []int{2, 3} {
			p := NewParallel(k, workers)
			p.MinParallel = 0
			p.chunk = 64
			what := fmt.Sprintf("isa=%s workers=%d", isa, workers)
			want, got := soa.NewContacts(m), soa.NewContacts(m)
			k.BatchPlaneContacts(want, caps, planes, pairs, 0.05)
			p.BatchPlaneContacts(got, caps, planes, pairs, 0.05)
			if hw, hg := hashContacts(want, m), hashContacts(got, m); hw != hg {
				t.Fatalf("%s: BatchPlaneContacts rows differ from one core's", what)
			}
			want64, got64 := soa.NewContacts64(m), soa.NewContacts64(m)
			k.BatchPlaneContacts64(want64, caps64, planes64, pairs, 0.05)
			p.BatchPlaneContacts64(got64, caps64, planes64, pairs, 0.05)
			if hashContacts(want64, m) != hashContacts(got64, m) {
				t.Fatalf("%s: BatchPlaneContacts64 rows differ from one core's", what)
			}
			checkBeyond(t, what+" CompactPlaneContacts", m, func(d *soa.Contacts) int { return k.CompactPlaneContacts(d, caps, planes, pairs, 0.05) },
				func(d *soa.Contacts) int { return p.CompactPlaneContacts(d, caps, planes, pairs, 0.05) }, -1)
			checkBeyond(t, what+" CompactPlaneContacts64", m, func(d *soa.Contacts64) int { return k.CompactPlaneContacts64(d, caps64, planes64, pairs, 0.05) },
				func(d *soa.Contacts64) int { return p.CompactPlaneContacts64(d, caps64, planes64, pairs, 0.05) }, -1)
			if a := testing.AllocsPerRun(5, func() { p.CompactPlaneContacts(got, caps, planes, pairs, 0.05) }); a != 0 {
				t.Errorf("%s: CompactPlaneContacts allocates %v times per call", what, a)
			}
			p.Close()
		}
	}
}

// hashContacts returns the bits of rows [0, m) of c as a string.
func hashContacts[F soa.Float](c *soa.ContactsOf[F], m int) string {
	var b strings.Builder
	fl := contactFloats(c)
	for i := range m {
		fmt.Fprintf(&b, "%d %d", c.Pair[i], c.Count[i])
		for _, s := range fl {
			fmt.Fprintf(&b, " %x", sentinelBitsOf(s[i]))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func sentinelBitsOf[F soa.Float](x F) uint64 {
	switch v := any(x).(type) {
	case float32:
		return uint64(math.Float32bits(v))
	default:
		return math.Float64bits(any(x).(float64))
	}
}

// TestParallelTOI: Parallel's time-of-impact entry points return the
// single-core rows on every path and worker count, in chunks of 64 pairs,
// float32 and float64; CompactTOI writes nothing from its count on.
func TestParallelTOI(t *testing.T) {
	var cases []verify.TOICase
	for ci, cat := range verify.TOICategories() {
		cases = append(cases, verify.TOICases[float32](cat, uint64(700+ci), 1, 40)...)
	}
	start, end := make(soa.Capsules, 2*len(cases)), make(soa.Capsules, 2*len(cases))
	pairs := soa.NewIndexPairs(0)
	for k, c := range cases {
		for s, sc := range [2]fallback.SweptCapsule{c.I, c.J} {
			start[2*k+s] = soa.Capsule{A: sc.A0, B: sc.B0, R: sc.R0}
			end[2*k+s] = soa.Capsule{A: sc.A1, B: sc.B1, R: sc.R1}
		}
		pairs.Append(uint32(2*k), uint32(2*k+1))
		pairs.Append(uint32(2*k+1), uint32(2*k))
	}
	start64, end64 := verify.WidenCapsules(start), verify.WidenCapsules(end)
	prm := TOIParams{Tol: 1e-3, TMax: 1, MaxIter: 32}
	prm64 := TOIParams64{Tol: 1e-3, TMax: 1, MaxIter: 32}
	m := pairs.Len()
	for _, isa := range Available() {
		k, _ := Lookup(isa)
		for _, workers := range []int{2, 3} {
			p := NewParallel(k, workers)
			p.MinParallel = 0
			p.chunk = 64
			what := fmt.Sprintf("isa=%s workers=%d", isa, workers)
			want, got := soa.NewTOIs(m), soa.NewTOIs(m)
			k.BatchTOI(want, start, end, pairs, prm)
			p.BatchTOI(got, start, end, pairs, prm)
			if toiText(want, m) != toiText(got, m) {
				t.Fatalf("%s: BatchTOI rows differ from one core's", what)
			}
			want64, got64 := soa.NewTOIs64(m), soa.NewTOIs64(m)
			k.BatchTOI64(want64, start64, end64, pairs, prm64)
			p.BatchTOI64(got64, start64, end64, pairs, prm64)
			if toiText(want64, m) != toiText(got64, m) {
				t.Fatalf("%s: BatchTOI64 rows differ from one core's", what)
			}
			for i := range got.Pair {
				want.Pair[i], got.Pair[i] = sentinel, sentinel
			}
			wn, gn := k.CompactTOI(want, start, end, pairs, prm), p.CompactTOI(got, start, end, pairs, prm)
			if wn != gn || toiText(want, wn) != toiText(got, gn) {
				t.Fatalf("%s: CompactTOI: %d rows, one core %d, or the rows differ", what, gn, wn)
			}
			for i := gn; i < m; i++ {
				if got.Pair[i] != sentinel {
					t.Fatalf("%s: CompactTOI wrote row %d beyond its count %d", what, i, gn)
				}
			}
			if n64 := p.CompactTOI64(got64, start64, end64, pairs, prm64); n64 != k.CompactTOI64(want64, start64, end64, pairs, prm64) ||
				toiText(want64, n64) != toiText(got64, n64) {
				t.Fatalf("%s: CompactTOI64 differs from one core's", what)
			}
			if a := testing.AllocsPerRun(3, func() { p.CompactTOI(got, start, end, pairs, prm) }); a != 0 {
				t.Errorf("%s: CompactTOI allocates %v times per call", what, a)
			}
			p.Close()
		}
	}
}

// toiText returns rows [0, m) of r, every field's bits, as text.
func toiText[F soa.Float](r *soa.TOIsOf[F], m int) string {
	var b strings.Builder
	for i := range m {
		fmt.Fprintf(&b, "%d %d %d", r.Pair[i], r.Status[i], r.Iter[i])
		for _, s := range [...][]F{r.T, r.Dist, r.NX, r.NY, r.NZ, r.PX, r.PY, r.PZ, r.QX, r.QY, r.QZ} {
			fmt.Fprintf(&b, " %x", sentinelBitsOf(s[i]))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
