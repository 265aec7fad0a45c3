package kernel_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// Outputs that share memory with an input or with another output panic,
// naming both streams, before any kernel writes; streams that do not
// share memory run whatever their order and allocation, with the bits of
// soa-allocated batches. Every path, the float32 and float64 entry
// points, and Parallel.
func TestOutputsMustNotOverlap(t *testing.T) {
	const n = 100
	r := verify.NewRand(49, 1)
	caps := verify.RandomCapsules(r, 50)
	caps64 := verify.WidenCapsules(caps)
	pairs := verify.RandomIndexPairs(r, caps.Len(), n)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		par := kernel.NewParallel(k, 2)
		defer par.Close()
		par.MinParallel = 0

		// expect runs call and checks that it panics naming both streams,
		// or, given no names, that it does not panic.
		expect := func(what string, call func(), want ...string) {
			t.Helper()
			msg := panicOf(call)
			if len(want) == 0 {
				if msg != "" {
					t.Errorf("%s: panic %q", what, msg)
				}
				return
			}
			if !strings.Contains(msg, "share memory") {
				t.Errorf("%s: panic %q, want one on shared memory", what, msg)
				return
			}
			for _, w := range want {
				if !strings.Contains(msg, w+" ") {
					t.Errorf("%s: panic %q does not name %s", what, msg, w)
				}
			}
		}

		// BatchClosest: dst.S inside src.AX, dst.T over dst.S, and streams
		// of separate allocations in reverse order (no panic, same bits).
		src := soa.FromPairs(pool(49, n)[:n])
		want := soa.NewResults(n)
		k.BatchClosest(want, src)
		for _, call := range []struct {
			name string
			f    func(dst *soa.Results, src *soa.Pairs)
		}{{"BatchClosest", k.BatchClosest}, {"Parallel.BatchClosest", par.BatchClosest}} {
			before := slices.Clone(src.AX)
			big := make([]float32, 2*n)
			copy(big[n/2:], src.AX)
			alias := *src
			alias.AX = big[n/2 : n/2+n]
			dst := soa.NewResults(n)
			dst.S = big[:n] // meets alias.AX in its second half
			expect(call.name+", dst.S over src.AX", func() { call.f(dst, &alias) }, "dst.S", "src.AX")
			if !slices.Equal(big[n/2:n/2+n], before) {
				t.Errorf("%s: src.AX written before the panic", call.name)
			}
			dst = soa.NewResults(n)
			dst.T = dst.S
			expect(call.name+", dst.T = dst.S", func() { call.f(dst, src) }, "dst.S", "dst.T")
			dst = &soa.Results{S: make([]float32, n), T: make([]float32, n), Dist2: make([]float32, n)}
			dst.S, dst.Dist2 = dst.Dist2, dst.S // apart, in any order
			expect(call.name+", separate streams", func() { call.f(dst, src) })
			if !slices.Equal(dst.Dist2, want.Dist2) || !slices.Equal(dst.S, want.S) {
				t.Errorf("%s, separate streams: results differ from soa's batch", call.name)
			}
		}

		// BatchClosest64: an output exactly an input.
		src64 := soa.FromPairs64(pool64(49, n)[:n])
		dst64 := soa.NewResults64(n)
		dst64.Dist2 = src64.DZ
		expect("BatchClosest64, dst.Dist2 = src.DZ", func() { k.BatchClosest64(dst64, src64) }, "dst.Dist2", "src.DZ")

		// BatchClosestPoint: dst.T over src.PY.
		seg := soa.NewPointSegments(n)
		pres := soa.NewPointResults(n)
		pres.T = seg.PY
		expect("BatchClosestPoint, dst.T = src.PY", func() { k.BatchClosestPoint(pres, seg) }, "dst.T", "src.PY")
		pres64 := soa.NewPointResults64(n)
		pres64.Dist2 = pres64.T[:n]
		expect("BatchClosestPoint64, dst.Dist2 = dst.T", func() { k.BatchClosestPoint64(pres64, soa.NewPointSegments64(n)) }, "dst.T", "dst.Dist2")

		// BatchClosestIndexed: dst.S over dst.Dist2.
		res := soa.NewResults(n)
		res.S = res.Dist2
		expect("BatchClosestIndexed, dst.S = dst.Dist2", func() { k.BatchClosestIndexed(res, caps, pairs) }, "dst.S", "dst.Dist2")
		res64 := soa.NewResults64(n)
		res64.T = res64.S
		expect("Parallel.BatchClosestIndexed64, dst.T = dst.S", func() { par.BatchClosestIndexed64(res64, caps64, pairs) }, "dst.S", "dst.T")

		// Contacts: Pair over pairs.I (both uint32), two float streams
		// meeting, Count over Pair; and separate streams in another order.
		wantRows := soa.NewContacts(n)
		k.BatchContacts(wantRows, caps, pairs, 0.01)
		for _, c := range []struct {
			name string
			f    func(dst *soa.Contacts)
		}{{"BatchContacts", func(d *soa.Contacts) { k.BatchContacts(d, caps, pairs, 0.01) }},
			{"CompactContacts", func(d *soa.Contacts) { k.CompactContacts(d, caps, pairs, 0.01) }},
			{"Parallel.BatchContacts", func(d *soa.Contacts) { par.BatchContacts(d, caps, pairs, 0.01) }},
			{"Parallel.CompactContacts", func(d *soa.Contacts) { par.CompactContacts(d, caps, pairs, 0.01) }}} {
			I := slices.Clone(pairs.I)
			rows := soa.NewContacts(n)
			rows.Pair = pairs.I
			expect(c.name+", dst.Pair = pairs.I", func() { c.f(rows) }, "dst.Pair", "pairs.I")
			if !slices.Equal(pairs.I, I) {
				t.Fatalf("%s: pairs.I written before the panic", c.name)
			}
			rows = soa.NewContacts(n)
			wide := make([]float32, n+1)
			rows.NY, rows.P2Z = wide[:n], wide[1:]
			expect(c.name+", dst.P2Z one row past dst.NY", func() { c.f(rows) }, "dst.NY", "dst.P2Z")
			rows = soa.NewContacts(n)
			rows.Count = rows.Pair
			expect(c.name+", dst.Count = dst.Pair", func() { c.f(rows) }, "dst.Pair", "dst.Count")
		}
		rows := &soa.Contacts{Pair: make([]uint32, n), Count: make([]uint32, n)}
		for _, p := range []*[]float32{&rows.P2Z, &rows.P2Y, &rows.P2X, &rows.P1Z, &rows.P1Y, &rows.P1X,
			&rows.NZ, &rows.NY, &rows.NX, &rows.Depth2, &rows.Depth1} {
			*p = make([]float32, n) // separate allocations, in no particular order
		}
		expect("BatchContacts, separate streams", func() { k.BatchContacts(rows, caps, pairs, 0.01) })
		if !slices.Equal(rows.NX, wantRows.NX) || !slices.Equal(rows.P2Z, wantRows.P2Z) || !slices.Equal(rows.Count, wantRows.Count) {
			t.Errorf("BatchContacts, separate streams: rows differ from soa's batch")
		}
		rows64 := soa.NewContacts64(n)
		rows64.Depth2 = rows64.Depth1
		expect("CompactContacts64, dst.Depth2 = dst.Depth1", func() { k.CompactContacts64(rows64, caps64, pairs, 0.01) }, "dst.Depth1", "dst.Depth2")
		// CompactContacts writes at most len(pairs.I) rows: a longer dst
		// may hold an input after them.
		long := soa.NewContacts(2 * n)
		long.Pair = append(make([]uint32, n), pairs.I...)
		expect("CompactContacts, pairs.I after dst.Pair's first rows", func() {
			k.CompactContacts(long, caps, &soa.IndexPairs{I: long.Pair[n:], J: pairs.J}, 0.01)
		})
	})
}
