package kernel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/segdist/segdist/asm"
	"github.com/segdist/segdist/soa"
)

// Parallel runs the batch entry points of one path on several goroutines:
// the batch is cut into chunks of about half an L2 cache (from cpuid),
// each worker takes the next chunk until none is left, and the results
// are bit-identical to the single-core call, including the order of
// CompactContacts' rows and their Pair indices. The workers are started
// once and reused: after the first call of a given size nothing is
// allocated. Batches below MinParallel pairs run on the calling goroutine
// alone. A Parallel is for one caller at a time: a call that needs the
// workers while another goroutine's call holds them panics, rather than
// mixing the two calls' batches. Close stops the workers; any call after
// Close panics.
//
// More cores help only as far as memory does: batches that fit in the
// caches scale with the cores; a million pairs stream from memory, which
// on many machines one core already saturates (see the README).
type Parallel struct {
	k       Kernel
	workers int
	chunk   int // most pairs per chunk (half an L2), a multiple of 64
	cur     int // pairs per chunk of the call in progress

	// MinParallel is the batch size below which a call stays on one
	// core (measured default: see NewParallel).
	MinParallel int

	start  chan struct{} // one token per helper per call
	stop   sync.Once
	closed atomic.Bool // Close was called
	inCall atomic.Bool // a call holds the workers and the fields of the call below

	// The counters every worker writes, each on a cache line of its own
	// (sharing a line with the fields below slowed every worker's reads).
	_    [64]byte
	next atomic.Int64 // the next chunk to take
	_    [56]byte
	busy atomic.Int32 // helpers still working on the call
	_    [60]byte

	// The call in progress, read by the workers.
	op     parallelOp
	n      int
	closeR *soa.Results
	closeP *soa.Pairs
	pointR *soa.PointResults
	pointS *soa.PointSegments
	// The float64 batches.
	closeR64 *soa.Results64
	closeP64 *soa.Pairs64
	pointR64 *soa.PointResults64
	pointS64 *soa.PointSegments64
	rows64   *soa.Contacts64
	caps64   soa.Capsules64
	margin64 float64
	rows     *soa.Contacts
	caps     soa.Capsules
	pairs    *soa.IndexPairs
	margin   float32
	// Compaction: each chunk compacts into the start of its own rows;
	// placeRows then moves them down, in chunk order, to follow the
	// previous chunks' rows.
	counts     []atomic.Int64 // rows per chunk, -1 until the chunk is computed
	placer     atomic.Bool    // held by the one goroutine moving rows
	placed     int            // chunks [0, placed) are in their final rows (held by placer)
	rowsPlaced int            // the rows of those chunks (held by placer)
	// The index check (opCheck): the indices, the bound, and whether a
	// chunk found one out of range.
	checkI, checkJ []uint32
	checkN         int
	outOfRange     atomic.Bool
	views          []chunkViews // per worker: sub-batch headers, reused
}

type parallelOp int

const (
	opClosest parallelOp = iota
	opStream
	opPoint
	opClosest64
	opPoint64
	opContacts64
	opCompact64
	opIndexed
	opIndexed64
	opContacts
	opCompact
	opCheck
)

// chunkViews are one worker's views of a chunk, kept so that handing a
// chunk to a kernel allocates nothing.
type chunkViews struct {
	pairs   soa.Pairs
	res     soa.Results
	seg     soa.PointSegments
	pres    soa.PointResults
	pairs64 soa.Pairs64
	res64   soa.Results64
	seg64   soa.PointSegments64
	pres64  soa.PointResults64
	rows64  soa.Contacts64
	ip      soa.IndexPairs
	rows    soa.Contacts
	_       [64]byte // keep workers' views on separate cache lines
}

// DefaultMinParallel is the batch size from which NewParallel's Parallel
// uses more than one core. Measured on the 2-core VM of the README: below
// about 4,096 pairs the hand-off costs more than the second core saves.
const DefaultMinParallel = 4096

// NewParallel returns a Parallel with the given number of workers (the
// calling goroutine counts as one) on path k. workers < 1 panics.
func NewParallel(k Kernel, workers int) *Parallel {
	if workers < 1 {
		panic(fmt.Sprintf("segdist/kernel: NewParallel with %d workers", workers))
	}
	// About 64 bytes move per pair (the closest kernel: 48 in, 12 out);
	// half the L2 per chunk leaves room for the next chunk's prefetches.
	chunk := max(64, (l2Bytes/2/64)&^63)
	p := &Parallel{k: k, workers: workers, chunk: chunk, MinParallel: DefaultMinParallel,
		start: make(chan struct{}, workers), views: make([]chunkViews, workers)}
	for w := 1; w < workers; w++ {
		go p.helper(w)
	}
	return p
}

// spinPolls is how many times a helper polls for the next call before it
// blocks (about 70 microseconds here), and the caller for its helpers
// before it yields: waking a
// blocked goroutine costs tens of microseconds on the VMs measured here
// (BatchClosest at 65,536 pairs gained nothing from a second worker with
// blocking hand-offs), about what a whole chunk takes. An engine calls
// every step, so a helper that has just finished is soon needed again.
const spinPolls = 1 << 14

// helper is worker w's goroutine: it takes one token per call.
func (p *Parallel) helper(w int) {
	for {
		ok, got := true, false
		for range spinPolls {
			select {
			case _, ok = <-p.start:
				got = true
			default:
			}
			if got {
				break
			}
		}
		if !got {
			_, ok = <-p.start
		}
		if !ok {
			return // closed
		}
		p.work(w)
		p.busy.Add(-1)
	}
}

// Close stops the workers. Any later call panics.
func (p *Parallel) Close() {
	p.stop.Do(func() {
		p.closed.Store(true)
		close(p.start)
	})
}

// Workers returns the number of workers, the calling goroutine included.
func (p *Parallel) Workers() int { return p.workers }

// chunkFor returns the chunk size for a batch of n pairs of the prepared
// operation: n split evenly over the workers (rounded up to 64 pairs), at
// most half an L2 (float64 pairs move twice the bytes: half as many).
//
// BatchClosest batches of at least asm.NTMinLanes pairs per worker are
// cut instead into chunks of at least that many, a whole number of them
// per worker, so that every chunk is written with non-temporal stores as
// the single-core call is. On the Zen 4 VM (2026-11-25, 2 workers, n = 1M,
// 8 alternating invocations) this took 1.393 -> 1.162 ns/pair against
// StreamOnly's 1.252 on the same workers; chunks of 2^15 pairs (prefetch
// but no non-temporal stores) 1.247. On the Intel VM, where this batch is
// bound by arithmetic, an earlier version measured 12% slower.
func (p *Parallel) chunkFor(n int) int {
	if per := n / (p.workers * asm.NTMinLanes); p.op == opClosest && per > 0 {
		chunks := p.workers * per
		return ((n+chunks-1)/chunks + 63) &^ 63
	}
	limit := p.chunk
	switch p.op {
	case opClosest64, opPoint64, opContacts64, opCompact64, opIndexed64:
		limit = max(64, (limit/2)&^63)
	}
	even := (n + p.workers - 1) / p.workers
	return min(limit, (even+63)&^63)
}

// parallel reports whether a batch of n pairs runs on the workers. Every
// entry point asks it first, so it is where a closed p panics, whatever
// the size of the batch.
func (p *Parallel) parallel(n int) bool {
	if p.closed.Load() {
		panic("segdist/kernel: Parallel used after Close")
	}
	return p.workers > 1 && n >= p.MinParallel && n > 64
}

// begin takes the workers for a call of operation op, before the call
// writes any field the workers read; end releases them. A second
// goroutine calling while a call holds them panics here, before it can
// overwrite the batches the workers are reading.
func (p *Parallel) begin(op parallelOp) {
	if !p.inCall.CompareAndSwap(false, true) {
		panic("segdist/kernel: Parallel called from two goroutines at once (a Parallel is for one caller at a time)")
	}
	p.op = op
}

// end drops the finished call's references to the caller's batches, so
// that a Parallel does not keep them alive, and releases the workers.
func (p *Parallel) end() {
	p.closeR, p.closeP, p.pointR, p.pointS = nil, nil, nil, nil
	p.closeR64, p.closeP64, p.pointR64, p.pointS64 = nil, nil, nil, nil
	p.rows64, p.caps64 = nil, nil
	p.rows, p.caps, p.pairs = nil, nil, nil
	p.checkI, p.checkJ = nil, nil
	p.inCall.Store(false)
}

// run computes n pairs of the prepared operation (begin, then the call's
// fields) on every worker, in chunks of chunkFor(n) pairs.
func (p *Parallel) run(n int) {
	p.n, p.cur = n, p.chunkFor(n)
	p.next.Store(0)
	helpers := min(p.workers-1, (n+p.cur-1)/p.cur-1)
	p.busy.Store(int32(helpers))
	for range helpers {
		p.start <- struct{}{}
	}
	p.work(0)
	for i := 0; p.busy.Load() != 0; i++ {
		if i >= spinPolls {
			runtime.Gosched()
		}
	}
	if p.op == opCompact || p.op == opCompact64 {
		// The chunks the workers left. Every worker has returned from
		// work, and with it from placeRows, so the mover's flag is free
		// and this call places every chunk.
		p.placeRows()
	}
}

// work computes chunks until none is left.
func (p *Parallel) work(w int) {
	v := &p.views[w]
	for {
		c := int(p.next.Add(1) - 1)
		lo := c * p.cur
		if lo >= p.n {
			return
		}
		hi := min(lo+p.cur, p.n)
		switch p.op {
		case opClosest, opStream:
			v.pairs, v.res = subPairs(p.closeP, lo, hi), subResults(p.closeR, lo, hi)
			if p.op == opStream {
				p.k.f32.stream(hi-lo, &v.res, &v.pairs)
			} else {
				p.k.f32.closest(hi-lo, &v.res, &v.pairs)
			}
		case opPoint:
			v.seg, v.pres = subSegments(p.pointS, lo, hi), subPointResults(p.pointR, lo, hi)
			p.k.f32.point(hi-lo, &v.pres, &v.seg)
		case opClosest64:
			v.pairs64, v.res64 = subPairs(p.closeP64, lo, hi), subResults(p.closeR64, lo, hi)
			p.k.f64.closest(hi-lo, &v.res64, &v.pairs64)
		case opPoint64:
			v.seg64, v.pres64 = subSegments(p.pointS64, lo, hi), subPointResults(p.pointR64, lo, hi)
			p.k.f64.point(hi-lo, &v.pres64, &v.seg64)
		case opIndexed:
			v.ip, v.res = soa.IndexPairs{I: p.pairs.I[lo:hi], J: p.pairs.J[lo:hi]}, subResults(p.closeR, lo, hi)
			p.k.f32.indexed(hi-lo, &v.res, p.caps, &v.ip)
		case opIndexed64:
			v.ip, v.res64 = soa.IndexPairs{I: p.pairs.I[lo:hi], J: p.pairs.J[lo:hi]}, subResults(p.closeR64, lo, hi)
			p.k.f64.indexed(hi-lo, &v.res64, p.caps64, &v.ip)
		case opContacts, opCompact:
			v.ip = soa.IndexPairs{I: p.pairs.I[lo:hi], J: p.pairs.J[lo:hi]}
			v.rows = subContacts(p.rows, lo, hi)
			rows := hi - lo
			if p.op == opContacts {
				p.k.f32.contacts(rows, &v.rows, p.caps, &v.ip, p.margin)
			} else {
				rows = p.k.f32.compact(rows, &v.rows, p.caps, &v.ip, p.margin)
			}
			renumber(v.rows.Pair[:rows], lo)
			if p.op == opCompact {
				p.counts[c].Store(int64(rows))
				p.placeRows()
			}
		case opCheck:
			if !indicesBelow(p.checkI[lo:hi], p.checkJ[lo:hi], p.checkN) {
				p.outOfRange.Store(true)
			}
		case opContacts64, opCompact64:
			v.ip = soa.IndexPairs{I: p.pairs.I[lo:hi], J: p.pairs.J[lo:hi]}
			v.rows64 = subContacts(p.rows64, lo, hi)
			rows := hi - lo
			if p.op == opContacts64 {
				p.k.f64.contacts(rows, &v.rows64, p.caps64, &v.ip, p.margin64)
			} else {
				rows = p.k.f64.compact(rows, &v.rows64, p.caps64, &v.ip, p.margin64)
			}
			renumber(v.rows64.Pair[:rows], lo)
			if p.op == opCompact64 {
				p.counts[c].Store(int64(rows))
				p.placeRows()
			}
		}
	}
}

// parallelCheckFrom is the batch size from which the index check of the
// index-taking entry points runs on the workers: a million pairs' 8 MB of
// indices took 0.36 ms to check on one core (4% of CompactContacts on
// two), while a hand-off costs microseconds.
const parallelCheckFrom = 1 << 17

// indicesBelow is the index check of p's entry points (checkContactArgs,
// checkIndexedArgs): whether every element of a and b is below n, on the
// workers for batches of parallelCheckFrom pairs or more, else (and for a
// nil p, the single-core entry points) on the calling goroutine. It runs
// before any kernel of the call.
func (p *Parallel) indicesBelow(a, b []uint32, n int) bool {
	if p == nil || len(a) < parallelCheckFrom || !p.parallel(len(a)) {
		return indicesBelow(a, b, n)
	}
	p.begin(opCheck)
	defer p.end()
	p.checkI, p.checkJ, p.checkN = a, b[:len(a)], n
	p.outOfRange.Store(false)
	p.run(len(a))
	return !p.outOfRange.Load()
}

// BatchClosest is kernel.BatchClosest on the workers.
func (p *Parallel) BatchClosest(dst *soa.Results, src *soa.Pairs) {
	n := checkLengths(dst, src)
	if !p.parallel(n) {
		if n > 0 {
			p.k.f32.closest(n, dst, src)
		}
		return
	}
	p.begin(opClosest)
	defer p.end()
	p.closeR, p.closeP = dst, src
	p.run(n)
}

// StreamOnly is Kernel.StreamOnly on the workers: the memory floor of a
// parallel BatchClosest, for benchmarks.
func (p *Parallel) StreamOnly(dst *soa.Results, src *soa.Pairs) {
	n := checkLengths(dst, src)
	if !p.parallel(n) {
		if n > 0 {
			p.k.f32.stream(n, dst, src)
		}
		return
	}
	p.begin(opStream)
	defer p.end()
	p.closeR, p.closeP = dst, src
	p.run(n)
}

// BatchClosest64 is kernel.BatchClosest64 on the workers.
func (p *Parallel) BatchClosest64(dst *soa.Results64, src *soa.Pairs64) {
	n := checkLengths(dst, src)
	if !p.parallel(n) {
		if n > 0 {
			p.k.f64.closest(n, dst, src)
		}
		return
	}
	p.begin(opClosest64)
	defer p.end()
	p.closeR64, p.closeP64 = dst, src
	p.run(n)
}

// BatchClosestPoint64 is kernel.BatchClosestPoint64 on the workers.
func (p *Parallel) BatchClosestPoint64(dst *soa.PointResults64, src *soa.PointSegments64) {
	n := checkPointLengths(dst, src)
	if !p.parallel(n) {
		if n > 0 {
			p.k.f64.point(n, dst, src)
		}
		return
	}
	p.begin(opPoint64)
	defer p.end()
	p.pointR64, p.pointS64 = dst, src
	p.run(n)
}

// subPairs, subResults, subSegments and subPointResults return the views
// [lo, hi) of a batch: a chunk.
func subPairs[F soa.Float](s *soa.PairsOf[F], lo, hi int) soa.PairsOf[F] {
	return soa.PairsOf[F]{AX: s.AX[lo:hi], AY: s.AY[lo:hi], AZ: s.AZ[lo:hi], BX: s.BX[lo:hi], BY: s.BY[lo:hi], BZ: s.BZ[lo:hi],
		CX: s.CX[lo:hi], CY: s.CY[lo:hi], CZ: s.CZ[lo:hi], DX: s.DX[lo:hi], DY: s.DY[lo:hi], DZ: s.DZ[lo:hi]}
}

func subResults[F soa.Float](d *soa.ResultsOf[F], lo, hi int) soa.ResultsOf[F] {
	return soa.ResultsOf[F]{S: d.S[lo:hi], T: d.T[lo:hi], Dist2: d.Dist2[lo:hi]}
}

func subSegments[F soa.Float](s *soa.PointSegmentsOf[F], lo, hi int) soa.PointSegmentsOf[F] {
	return soa.PointSegmentsOf[F]{PX: s.PX[lo:hi], PY: s.PY[lo:hi], PZ: s.PZ[lo:hi], CX: s.CX[lo:hi], CY: s.CY[lo:hi], CZ: s.CZ[lo:hi],
		DX: s.DX[lo:hi], DY: s.DY[lo:hi], DZ: s.DZ[lo:hi]}
}

func subPointResults[F soa.Float](d *soa.PointResultsOf[F], lo, hi int) soa.PointResultsOf[F] {
	return soa.PointResultsOf[F]{T: d.T[lo:hi], Dist2: d.Dist2[lo:hi]}
}

// BatchClosestPoint is kernel.BatchClosestPoint on the workers.
func (p *Parallel) BatchClosestPoint(dst *soa.PointResults, src *soa.PointSegments) {
	n := checkPointLengths(dst, src)
	if !p.parallel(n) {
		if n > 0 {
			p.k.f32.point(n, dst, src)
		}
		return
	}
	p.begin(opPoint)
	defer p.end()
	p.pointR, p.pointS = dst, src
	p.run(n)
}

// subContacts returns rows [lo, hi) of c.
func subContacts[F soa.Float](r *soa.ContactsOf[F], lo, hi int) soa.ContactsOf[F] {
	return soa.ContactsOf[F]{Pair: r.Pair[lo:hi], Count: r.Count[lo:hi], Depth1: r.Depth1[lo:hi], Depth2: r.Depth2[lo:hi],
		NX: r.NX[lo:hi], NY: r.NY[lo:hi], NZ: r.NZ[lo:hi], P1X: r.P1X[lo:hi], P1Y: r.P1Y[lo:hi], P1Z: r.P1Z[lo:hi],
		P2X: r.P2X[lo:hi], P2Y: r.P2Y[lo:hi], P2Z: r.P2Z[lo:hi]}
}

// renumber adds lo to the Pair indices of a chunk's rows: the kernels
// number pairs within the chunk.
func renumber(pair []uint32, lo int) {
	for i := range pair {
		pair[i] += uint32(lo)
	}
}

// BatchClosestIndexed is kernel.BatchClosestIndexed on the workers.
func (p *Parallel) BatchClosestIndexed(dst *soa.Results, caps soa.Capsules, pairs *soa.IndexPairs) {
	m := checkIndexedArgs(dst, caps, pairs, p)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f32.indexed(m, dst, caps, pairs)
		}
		return
	}
	p.begin(opIndexed)
	defer p.end()
	p.closeR, p.caps, p.pairs = dst, caps, pairs
	p.run(m)
}

// BatchClosestIndexed64 is kernel.BatchClosestIndexed64 on the workers.
func (p *Parallel) BatchClosestIndexed64(dst *soa.Results64, caps soa.Capsules64, pairs *soa.IndexPairs) {
	m := checkIndexedArgs(dst, caps, pairs, p)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f64.indexed(m, dst, caps, pairs)
		}
		return
	}
	p.begin(opIndexed64)
	defer p.end()
	p.closeR64, p.caps64, p.pairs = dst, caps, pairs
	p.run(m)
}

// BatchContacts is kernel.BatchContacts on the workers.
func (p *Parallel) BatchContacts(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) {
	m := checkContactArgs(dst, caps, pairs, margin, true, p)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f32.contacts(m, dst, caps, pairs, margin)
		}
		return
	}
	p.begin(opContacts)
	defer p.end()
	p.rows, p.caps, p.pairs, p.margin = dst, caps, pairs, margin
	p.run(m)
}

// CompactContacts is kernel.CompactContacts on the workers: each chunk
// compacts into its own rows, then the rows move down, in chunk order, to
// follow each other (the same rows in the same order as on one core).
func (p *Parallel) CompactContacts(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) int {
	m := checkContactArgs(dst, caps, pairs, margin, false, p)
	if !p.parallel(m) {
		if m == 0 {
			return 0
		}
		return p.k.f32.compact(m, dst, caps, pairs, margin)
	}
	p.begin(opCompact)
	defer p.end()
	p.rows, p.caps, p.pairs, p.margin = dst, caps, pairs, margin
	p.prepareCounts(m)
	p.run(m)
	return p.rowsPlaced
}

// BatchContacts64 is kernel.BatchContacts64 on the workers.
func (p *Parallel) BatchContacts64(dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) {
	m := checkContactArgs(dst, caps, pairs, margin, true, p)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f64.contacts(m, dst, caps, pairs, margin)
		}
		return
	}
	p.begin(opContacts64)
	defer p.end()
	p.rows64, p.caps64, p.pairs, p.margin64 = dst, caps, pairs, margin
	p.run(m)
}

// CompactContacts64 is kernel.CompactContacts64 on the workers, as
// CompactContacts.
func (p *Parallel) CompactContacts64(dst *soa.Contacts64, caps soa.Capsules64, pairs *soa.IndexPairs, margin float64) int {
	m := checkContactArgs(dst, caps, pairs, margin, false, p)
	if !p.parallel(m) {
		if m == 0 {
			return 0
		}
		return p.k.f64.compact(m, dst, caps, pairs, margin)
	}
	p.begin(opCompact64)
	defer p.end()
	p.rows64, p.caps64, p.pairs, p.margin64 = dst, caps, pairs, margin
	p.prepareCounts(m)
	p.run(m)
	return p.rowsPlaced
}

// prepareCounts sizes p.counts for the chunks of a compaction of m pairs
// (p.op set) and marks every chunk not computed.
func (p *Parallel) prepareCounts(m int) {
	chunk := p.chunkFor(m) // run's chunks
	chunks := (m + chunk - 1) / chunk
	if cap(p.counts) < chunks {
		p.counts = make([]atomic.Int64, chunks) // the only allocation: first call of a larger batch
	}
	p.counts = p.counts[:chunks]
	for i := range p.counts {
		p.counts[i].Store(-1)
	}
	p.placed, p.rowsPlaced = 0, 0
}

// placeRows moves the compacted rows of the computed chunks down to follow
// the previous chunks' rows, in chunk order, as far as the chunks are
// computed; the rows end in the order of the single-core call. A worker
// calls it after each chunk: a chunk's rows are then still in its caches,
// and the moves overlap the other workers' chunks instead of following
// them all (at 1M pairs and 5% hits, moving every chunk after the last
// took 0.3 ms, 12% of a 2-worker call on the Zen 4 VM). One goroutine
// moves at a time; one that finds another moving goes back to its chunks
// rather than wait, and run calls it once more after the last chunk for
// what is left.
//
// Moving in chunk order is what makes the moves safe beside the kernels
// still running: chunk c's rows go to rows below W_c + count_c <= (c+1)
// chunk rows, where no later chunk writes, and every earlier chunk's rows
// have already left the rows they go to.
func (p *Parallel) placeRows() {
	if !p.placer.CompareAndSwap(false, true) {
		return
	}
	c, w := p.placed, p.rowsPlaced
	for ; c < len(p.counts); c++ {
		cnt := int(p.counts[c].Load())
		if cnt < 0 {
			break // not computed yet
		}
		if lo := c * p.cur; lo != w && cnt > 0 {
			if p.op == opCompact64 {
				moveRows(p.rows64, w, lo, cnt)
			} else {
				moveRows(p.rows, w, lo, cnt)
			}
		}
		w += cnt
	}
	p.placed, p.rowsPlaced = c, w
	p.placer.Store(false)
}

// moveRows copies rows [from, from+n) of c to [to, to+n), to < from.
func moveRows[F soa.Float](c *soa.ContactsOf[F], to, from, n int) {
	copy(c.Pair[to:], c.Pair[from:from+n])
	copy(c.Count[to:], c.Count[from:from+n])
	for _, s := range [...][]F{c.Depth1, c.Depth2, c.NX, c.NY, c.NZ, c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z} {
		copy(s[to:], s[from:from+n])
	}
}
