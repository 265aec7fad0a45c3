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
// CompactContacts' rows, their Pair indices, and the rows from the
// returned count on, which keep their contents. The workers are started
// once and reused: after the first call of a given size nothing is
// allocated. Batches below MinParallel pairs run on the calling goroutine
// alone.
//
// A Parallel is for one caller at a time: a call that needs the workers
// while another goroutine's call holds them panics, rather than mixing
// the two calls' batches. A panic in any worker during a call (a bug, or
// the calling goroutine's own share failing) stops the call's other
// chunks and is raised again, with the same value, in the calling
// goroutine once every worker has left the call; the Parallel stays
// usable. Close stops the workers, after waiting for a call in progress;
// any call after Close panics. A Parallel that becomes unreachable
// without Close stops its workers too.
//
// More cores help only as far as memory does: batches that fit in the
// caches scale with the cores; a million pairs stream from memory, which
// on many machines one core already saturates (docs/performance.md).
type Parallel struct {
	*crew

	// MinParallel is the batch size below which a call stays on one
	// core (DefaultMinParallel unless set).
	MinParallel int
}

// crew is the state the worker goroutines share with the calling one. It
// is apart from Parallel so that the workers do not keep the Parallel
// reachable: a Parallel that is dropped without Close is collected, and
// its cleanup closes the crew.
type crew struct {
	k       Kernel
	workers int
	chunk   int // most pairs per chunk (half an L2), a multiple of 64
	cur     int // pairs per chunk of the call in progress

	start  chan struct{} // one token per helper per call
	stop   sync.Once
	closed atomic.Bool // Close was called
	inCall atomic.Bool // a call holds the workers and the fields of the call below

	// The counters every worker writes, each on a cache line of its own
	// (sharing a line with the fields below slows every worker's reads).
	_    [64]byte
	next atomic.Int64 // the next chunk to take
	_    [56]byte
	busy atomic.Int32 // helpers still working on the call
	_    [60]byte

	// A panic in a worker: the first value, and the flag that stops the
	// other workers taking chunks.
	aborted  atomic.Bool
	panicked atomic.Pointer[workerPanic]

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
	// The plane kernels run as the contact operations with onPlanes set.
	onPlanes bool
	planes   soa.Planes
	planes64 soa.Planes64
	// Compaction: chunk c compacts into scratch slot c mod len(slots);
	// placeRows moves the rows of the computed chunks, in chunk order, to
	// follow the previous chunks' rows in the caller's batch, and so
	// writes no row of it beyond the returned count.
	counts     []atomic.Int64 // rows per chunk, -1 until the chunk is computed
	placer     atomic.Bool    // held by the one goroutine moving rows
	placed     atomic.Int64   // chunks [0, placed) are in their final rows
	rowsPlaced int            // the rows of those chunks (held by placer)
	slots      []soa.Contacts
	slots64    []soa.Contacts64
	// The time-of-impact calls: the rows, the two stores, the parameters,
	// and their own compaction slots.
	toiRows    *soa.TOIs
	toiRows64  *soa.TOIs64
	from, to   soa.Capsules
	from64     soa.Capsules64
	to64       soa.Capsules64
	toiP       TOIParams
	toiP64     TOIParams64
	toiSlots   []soa.TOIs
	toiSlots64 []soa.TOIs64
	// The index check (opCheck): the indices, the bound, and whether a
	// chunk found one out of range.
	checkI, checkJ []uint32
	checkN         int
	outOfRange     atomic.Bool
	views          []chunkViews // per worker: sub-batch headers, reused
}

// workerPanic holds the value a worker's call panicked with.
type workerPanic struct{ value any }

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
	opTOI
	opTOICompact
	opTOI64
	opTOICompact64
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
// uses more than one core: below it, handing chunks to the workers costs
// more than the other cores save (docs/levers.md).
const DefaultMinParallel = 4096

// slotsPerWorker is how many compaction scratch slots each worker has: a
// worker that finishes a chunk before an earlier one is placed goes on
// to its next chunk instead of waiting, unless it runs this many chunks
// ahead.
const slotsPerWorker = 2

// NewParallel returns a Parallel with the given number of workers (the
// calling goroutine counts as one) on path k. workers < 1 and the zero
// Kernel panic.
func NewParallel(k Kernel, workers int) *Parallel {
	if workers < 1 {
		panic(fmt.Sprintf("segdist/kernel: NewParallel with %d workers", workers))
	}
	if k.f32 == nil || k.f64 == nil {
		panic("segdist/kernel: NewParallel with the zero Kernel (get one from Active or Lookup)")
	}
	// About 64 bytes move per pair (the closest kernel: 48 in, 12 out);
	// half the L2 per chunk leaves room for the next chunk's prefetches.
	chunk := max(64, (l2Bytes/2/64)&^63)
	c := &crew{k: k, workers: workers, chunk: chunk,
		start: make(chan struct{}, workers), views: make([]chunkViews, workers)}
	for w := 1; w < workers; w++ {
		go c.helper(w)
	}
	p := &Parallel{crew: c, MinParallel: DefaultMinParallel}
	runtime.AddCleanup(p, (*crew).close, c)
	return p
}

// spinPolls is how many times a helper polls for the next call before it
// blocks, and the caller for its helpers before it yields: waking a
// blocked goroutine costs tens of microseconds, about what a whole chunk
// takes, and an engine calls every step, so a helper that has just
// finished is soon needed again.
const spinPolls = 1 << 14

// helper is worker w's goroutine: it takes one token per call.
func (c *crew) helper(w int) {
	for {
		ok, got := true, false
		for range spinPolls {
			select {
			case _, ok = <-c.start:
				got = true
			default:
			}
			if got {
				break
			}
		}
		if !got {
			_, ok = <-c.start
		}
		if !ok {
			return // closed
		}
		c.safeWork(w)
		c.busy.Add(-1)
	}
}

// Close stops the workers, after a call in progress on another goroutine
// has returned. Any later call panics.
func (p *Parallel) Close() {
	if p.crew == nil {
		panic(zeroParallel)
	}
	p.crew.close()
}

// close marks the crew closed, waits until no call holds it, and stops
// the helpers. A call that begins after the mark panics in begin, so no
// call sends to the closed channel.
func (c *crew) close() {
	c.stop.Do(func() {
		c.closed.Store(true)
		for i := 0; !c.inCall.CompareAndSwap(false, true); i++ {
			if i >= spinPolls {
				runtime.Gosched()
			}
		}
		close(c.start)
		// inCall stays held: every later call panics in parallel or begin.
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
// the single-core call is (docs/levers.md, "Parallel").
func (c *crew) chunkFor(n int) int {
	if per := n / (c.workers * asm.NTMinLanes); c.op == opClosest && per > 0 {
		chunks := c.workers * per
		return ((n+chunks-1)/chunks + 63) &^ 63
	}
	limit := c.chunk
	switch c.op {
	case opClosest64, opPoint64, opContacts64, opCompact64, opIndexed64, opTOI64, opTOICompact64:
		limit = max(64, (limit/2)&^63)
	}
	even := (n + c.workers - 1) / c.workers
	return min(limit, (even+63)&^63)
}

const (
	zeroParallel  = "segdist/kernel: the zero Parallel is not usable (get one from NewParallel)"
	afterClose    = "segdist/kernel: Parallel used after Close"
	twoGoroutines = "segdist/kernel: Parallel called from two goroutines at once (a Parallel is for one caller at a time)"
)

// parallel reports whether a batch of n pairs runs on the workers. Every
// entry point asks it first, so it is where a closed or zero p panics,
// whatever the size of the batch.
func (p *Parallel) parallel(n int) bool {
	if p.crew == nil {
		panic(zeroParallel)
	}
	if p.closed.Load() {
		panic(afterClose)
	}
	return p.workers > 1 && n >= p.MinParallel && n > 64
}

// begin takes the workers for a call of operation op, before the call
// writes any field the workers read; end releases them. A second
// goroutine calling while a call holds them panics here, before it can
// overwrite the batches the workers are reading, and so does a call that
// lost the race with Close.
func (c *crew) begin(op parallelOp) {
	if !c.inCall.CompareAndSwap(false, true) {
		if c.closed.Load() {
			panic(afterClose)
		}
		panic(twoGoroutines)
	}
	if c.closed.Load() {
		c.inCall.Store(false) // Close is waiting for it
		panic(afterClose)
	}
	c.op = op
}

// end drops the finished call's references to the caller's batches, so
// that a Parallel does not keep them alive, and releases the workers. It
// runs deferred, also when the call panics, after every worker has left
// the call (run returns or panics only then).
func (c *crew) end() {
	c.closeR, c.closeP, c.pointR, c.pointS = nil, nil, nil, nil
	c.closeR64, c.closeP64, c.pointR64, c.pointS64 = nil, nil, nil, nil
	c.rows64, c.caps64 = nil, nil
	c.rows, c.caps, c.pairs = nil, nil, nil
	c.onPlanes, c.planes, c.planes64 = false, nil, nil
	c.toiRows, c.toiRows64, c.from, c.to, c.from64, c.to64 = nil, nil, nil, nil, nil, nil
	c.toiP.Pad, c.toiP64.Pad = nil, nil
	c.checkI, c.checkJ = nil, nil
	c.inCall.Store(false)
}

// run computes n pairs of the prepared operation (begin, then the call's
// fields) on every worker, in chunks of chunkFor(n) pairs. If any worker
// panicked, run panics with the first value once all have returned.
func (c *crew) run(n int) {
	c.n, c.cur = n, c.chunkFor(n)
	c.next.Store(0)
	c.aborted.Store(false)
	helpers := min(c.workers-1, (n+c.cur-1)/c.cur-1)
	c.busy.Store(int32(helpers))
	for range helpers {
		c.start <- struct{}{}
	}
	c.safeWork(0)
	for i := 0; c.busy.Load() != 0; i++ {
		if i >= spinPolls {
			runtime.Gosched()
		}
	}
	if pv := c.panicked.Swap(nil); pv != nil {
		panic(pv.value)
	}
	if c.op == opCompact || c.op == opCompact64 || c.op == opTOICompact || c.op == opTOICompact64 {
		// The chunks the workers left. Every worker has returned from
		// work, and with it from placeRows, so the mover's flag is free
		// and this call places every chunk.
		c.placeRows()
	}
}

// safeWork is work with a panic recovered: it records the first value
// and stops the other workers taking chunks, for run to raise again.
func (c *crew) safeWork(w int) {
	defer func() {
		if r := recover(); r != nil {
			c.panicked.CompareAndSwap(nil, &workerPanic{r})
			c.aborted.Store(true)
		}
	}()
	c.work(w)
}

// work computes chunks until none is left or a worker has panicked.
func (c *crew) work(w int) {
	v := &c.views[w]
	for !c.aborted.Load() {
		ch := int(c.next.Add(1) - 1)
		lo := ch * c.cur
		if lo >= c.n {
			return
		}
		hi := min(lo+c.cur, c.n)
		switch c.op {
		case opClosest, opStream:
			v.pairs, v.res = subPairs(c.closeP, lo, hi), subResults(c.closeR, lo, hi)
			if c.op == opStream {
				c.k.f32.stream(hi-lo, &v.res, &v.pairs)
			} else {
				c.k.f32.closest(hi-lo, &v.res, &v.pairs)
			}
		case opPoint:
			v.seg, v.pres = subSegments(c.pointS, lo, hi), subPointResults(c.pointR, lo, hi)
			c.k.f32.point(hi-lo, &v.pres, &v.seg)
		case opClosest64:
			v.pairs64, v.res64 = subPairs(c.closeP64, lo, hi), subResults(c.closeR64, lo, hi)
			c.k.f64.closest(hi-lo, &v.res64, &v.pairs64)
		case opPoint64:
			v.seg64, v.pres64 = subSegments(c.pointS64, lo, hi), subPointResults(c.pointR64, lo, hi)
			c.k.f64.point(hi-lo, &v.pres64, &v.seg64)
		case opIndexed:
			v.ip, v.res = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}, subResults(c.closeR, lo, hi)
			c.k.f32.indexed(hi-lo, &v.res, c.caps, &v.ip)
		case opIndexed64:
			v.ip, v.res64 = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}, subResults(c.closeR64, lo, hi)
			c.k.f64.indexed(hi-lo, &v.res64, c.caps64, &v.ip)
		case opContacts:
			v.ip, v.rows = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}, subContacts(c.rows, lo, hi)
			c.rows32(false, hi-lo, &v.rows, &v.ip)
			renumber(v.rows.Pair[:hi-lo], lo)
		case opContacts64:
			v.ip, v.rows64 = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}, subContacts(c.rows64, lo, hi)
			c.rows64of(false, hi-lo, &v.rows64, &v.ip)
			renumber(v.rows64.Pair[:hi-lo], lo)
		case opCompact:
			v.ip = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}
			if s := slotFor(c, ch, c.slots); s != nil {
				rows := c.rows32(true, hi-lo, s, &v.ip)
				c.chunkDone(ch, s.Pair[:rows], lo)
			}
		case opCompact64:
			v.ip = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}
			if s := slotFor(c, ch, c.slots64); s != nil {
				rows := c.rows64of(true, hi-lo, s, &v.ip)
				c.chunkDone(ch, s.Pair[:rows], lo)
			}
		case opTOI, opTOICompact:
			v.ip = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}
			if c.op == opTOI {
				rows := subTOIs(c.toiRows, lo, hi)
				c.k.f32.toi(hi-lo, &rows, c.from, c.to, &v.ip, c.toiP, false)
				renumber(rows.Pair, lo)
			} else if s := slotFor(c, ch, c.toiSlots); s != nil {
				n := c.k.f32.toi(hi-lo, s, c.from, c.to, &v.ip, c.toiP, true)
				c.chunkDone(ch, s.Pair[:n], lo)
			}
		case opTOI64, opTOICompact64:
			v.ip = soa.IndexPairs{I: c.pairs.I[lo:hi], J: c.pairs.J[lo:hi]}
			if c.op == opTOI64 {
				rows := subTOIs(c.toiRows64, lo, hi)
				c.k.f64.toi(hi-lo, &rows, c.from64, c.to64, &v.ip, c.toiP64, false)
				renumber(rows.Pair, lo)
			} else if s := slotFor(c, ch, c.toiSlots64); s != nil {
				n := c.k.f64.toi(hi-lo, s, c.from64, c.to64, &v.ip, c.toiP64, true)
				c.chunkDone(ch, s.Pair[:n], lo)
			}
		case opCheck:
			if !indicesBelow(c.checkI[lo:hi], c.checkJ[lo:hi], c.checkN) {
				c.outOfRange.Store(true)
			}
		}
	}
}

// rows32 and rows64of run the float32 or float64 row kernel of the call
// (capsule or plane contacts, compacting or not) on the m pairs of ip.
func (c *crew) rows32(compact bool, m int, dst *soa.Contacts, ip *soa.IndexPairs) int {
	switch {
	case c.onPlanes && compact:
		return c.k.f32.planesCompact(m, dst, c.caps, c.planes, ip, c.margin)
	case c.onPlanes:
		return c.k.f32.planes(m, dst, c.caps, c.planes, ip, c.margin)
	case compact:
		return c.k.f32.compact(m, dst, c.caps, ip, c.margin)
	}
	return c.k.f32.contacts(m, dst, c.caps, ip, c.margin)
}

func (c *crew) rows64of(compact bool, m int, dst *soa.Contacts64, ip *soa.IndexPairs) int {
	switch {
	case c.onPlanes && compact:
		return c.k.f64.planesCompact(m, dst, c.caps64, c.planes64, ip, c.margin64)
	case c.onPlanes:
		return c.k.f64.planes(m, dst, c.caps64, c.planes64, ip, c.margin64)
	case compact:
		return c.k.f64.compact(m, dst, c.caps64, ip, c.margin64)
	}
	return c.k.f64.contacts(m, dst, c.caps64, ip, c.margin64)
}

// slotFor returns the scratch slot of chunk ch once the chunk that used
// it before (ch - len(slots)) is placed, placing rows meanwhile; nil if a
// worker panicked while it waited.
func slotFor[S any](c *crew, ch int, slots []S) *S {
	for i := 0; int64(ch-len(slots)) >= c.placed.Load(); i++ {
		if c.aborted.Load() {
			return nil
		}
		c.placeRows()
		if i >= spinPolls {
			runtime.Gosched()
		}
	}
	return &slots[ch%len(slots)]
}

// chunkDone numbers a compacted chunk's rows within the batch (the
// kernels number them within the chunk), publishes their count and
// places what can be placed.
func (c *crew) chunkDone(ch int, pair []uint32, lo int) {
	renumber(pair, lo)
	c.counts[ch].Store(int64(len(pair)))
	c.placeRows()
}

// parallelCheckFrom is the batch size from which the index check of the
// index-taking entry points runs on the workers: checking a million pairs'
// 8 MB of indices on one core takes a few percent of a two-worker
// CompactContacts call, while a hand-off costs microseconds.
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

// BatchPlaneContacts is kernel.BatchPlaneContacts on the workers.
func (p *Parallel) BatchPlaneContacts(dst *soa.Contacts, caps soa.Capsules, planes soa.Planes, pairs *soa.IndexPairs, margin float32) {
	m := checkPlaneArgs(dst, caps, planes, pairs, margin, true)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f32.planes(m, dst, caps, planes, pairs, margin)
		}
		return
	}
	p.begin(opContacts)
	defer p.end()
	p.rows, p.caps, p.planes, p.onPlanes, p.pairs, p.margin = dst, caps, planes, true, pairs, margin
	p.run(m)
}

// CompactPlaneContacts is kernel.CompactPlaneContacts on the workers, as
// CompactContacts.
func (p *Parallel) CompactPlaneContacts(dst *soa.Contacts, caps soa.Capsules, planes soa.Planes, pairs *soa.IndexPairs, margin float32) int {
	m := checkPlaneArgs(dst, caps, planes, pairs, margin, false)
	if !p.parallel(m) {
		if m == 0 {
			return 0
		}
		return p.k.f32.planesCompact(m, dst, caps, planes, pairs, margin)
	}
	p.begin(opCompact)
	defer p.end()
	p.rows, p.caps, p.planes, p.onPlanes, p.pairs, p.margin = dst, caps, planes, true, pairs, margin
	p.prepareCounts(m)
	p.run(m)
	return p.rowsPlaced
}

// BatchPlaneContacts64 is kernel.BatchPlaneContacts64 on the workers.
func (p *Parallel) BatchPlaneContacts64(dst *soa.Contacts64, caps soa.Capsules64, planes soa.Planes64, pairs *soa.IndexPairs, margin float64) {
	m := checkPlaneArgs(dst, caps, planes, pairs, margin, true)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f64.planes(m, dst, caps, planes, pairs, margin)
		}
		return
	}
	p.begin(opContacts64)
	defer p.end()
	p.rows64, p.caps64, p.planes64, p.onPlanes, p.pairs, p.margin64 = dst, caps, planes, true, pairs, margin
	p.run(m)
}

// CompactPlaneContacts64 is kernel.CompactPlaneContacts64 on the workers.
func (p *Parallel) CompactPlaneContacts64(dst *soa.Contacts64, caps soa.Capsules64, planes soa.Planes64, pairs *soa.IndexPairs, margin float64) int {
	m := checkPlaneArgs(dst, caps, planes, pairs, margin, false)
	if !p.parallel(m) {
		if m == 0 {
			return 0
		}
		return p.k.f64.planesCompact(m, dst, caps, planes, pairs, margin)
	}
	p.begin(opCompact64)
	defer p.end()
	p.rows64, p.caps64, p.planes64, p.onPlanes, p.pairs, p.margin64 = dst, caps, planes, true, pairs, margin
	p.prepareCounts(m)
	p.run(m)
	return p.rowsPlaced
}

// prepareCounts sizes c.counts for the chunks of a compaction of m pairs
// (c.op set), marks every chunk not computed, and allocates the scratch
// slots on the first compaction of each precision.
func (c *crew) prepareCounts(m int) {
	chunk := c.chunkFor(m) // run's chunks
	chunks := (m + chunk - 1) / chunk
	if cap(c.counts) < chunks {
		c.counts = make([]atomic.Int64, chunks) // first call of a larger batch
	}
	c.counts = c.counts[:chunks]
	for i := range c.counts {
		c.counts[i].Store(-1)
	}
	c.placed.Store(0)
	c.rowsPlaced = 0
	// chunkFor never exceeds c.chunk pairs, so slots of c.chunk rows hold
	// any chunk's rows.
	if c.op == opCompact && c.slots == nil {
		c.slots = newSlots[float32](c.workers, c.chunk)
	}
	if c.op == opCompact64 && c.slots64 == nil {
		c.slots64 = newSlots[float64](c.workers, c.chunk)
	}
	if c.op == opTOICompact && c.toiSlots == nil {
		c.toiSlots = newTOISlots[float32](c.workers, c.chunk)
	}
	if c.op == opTOICompact64 && c.toiSlots64 == nil {
		c.toiSlots64 = newTOISlots[float64](c.workers, c.chunk)
	}
}

// newSlots returns slotsPerWorker scratch batches of rows contact rows per
// worker.
func newSlots[F soa.Float](workers, rows int) []soa.ContactsOf[F] {
	s := make([]soa.ContactsOf[F], slotsPerWorker*workers)
	for i := range s {
		s[i].Resize(rows)
	}
	return s
}

// placeRows copies the compacted rows of the computed chunks from their
// slots to the caller's batch, after the previous chunks' rows, in chunk
// order, as far as the chunks are computed; the rows end in the order of
// the single-core call, and no row from the final count on is written. A
// worker calls it after each chunk: the chunk's rows are then still in its
// caches, and the copies overlap the other workers' chunks instead of
// following them all. One goroutine copies at a time; one that finds
// another copying goes back to its chunks rather than wait, and run calls
// it once more after the last chunk for what is left.
func (c *crew) placeRows() {
	if !c.placer.CompareAndSwap(false, true) {
		return
	}
	ch, w := int(c.placed.Load()), c.rowsPlaced
	for ; ch < len(c.counts); ch++ {
		cnt := int(c.counts[ch].Load())
		if cnt < 0 {
			break // not computed yet
		}
		switch c.op {
		case opCompact64:
			copyRows(c.rows64, w, &c.slots64[ch%len(c.slots64)], cnt)
		case opCompact:
			copyRows(c.rows, w, &c.slots[ch%len(c.slots)], cnt)
		case opTOICompact:
			copyTOIRows(c.toiRows, w, &c.toiSlots[ch%len(c.toiSlots)], cnt)
		case opTOICompact64:
			copyTOIRows(c.toiRows64, w, &c.toiSlots64[ch%len(c.toiSlots64)], cnt)
		}
		w += cnt
	}
	c.rowsPlaced = w
	c.placed.Store(int64(ch)) // frees the slots of the placed chunks
	c.placer.Store(false)
}

// copyRows copies rows [0, n) of src to rows [to, to+n) of dst.
func copyRows[F soa.Float](dst *soa.ContactsOf[F], to int, src *soa.ContactsOf[F], n int) {
	if n == 0 {
		return
	}
	copy(dst.Pair[to:to+n], src.Pair[:n])
	copy(dst.Count[to:to+n], src.Count[:n])
	d := [...][]F{dst.Depth1, dst.Depth2, dst.NX, dst.NY, dst.NZ, dst.P1X, dst.P1Y, dst.P1Z, dst.P2X, dst.P2Y, dst.P2Z}
	s := [...][]F{src.Depth1, src.Depth2, src.NX, src.NY, src.NZ, src.P1X, src.P1Y, src.P1Z, src.P2X, src.P2Y, src.P2Z}
	for k := range d {
		copy(d[k][to:to+n], s[k][:n])
	}
}

// newTOISlots is newSlots for time-of-impact rows.
func newTOISlots[F soa.Float](workers, rows int) []soa.TOIsOf[F] {
	s := make([]soa.TOIsOf[F], slotsPerWorker*workers)
	for i := range s {
		s[i].Resize(rows)
	}
	return s
}

// subTOIs returns rows [lo, hi) of r.
func subTOIs[F soa.Float](r *soa.TOIsOf[F], lo, hi int) soa.TOIsOf[F] {
	return soa.TOIsOf[F]{Pair: r.Pair[lo:hi], Status: r.Status[lo:hi], Iter: r.Iter[lo:hi], T: r.T[lo:hi], Dist: r.Dist[lo:hi],
		NX: r.NX[lo:hi], NY: r.NY[lo:hi], NZ: r.NZ[lo:hi], PX: r.PX[lo:hi], PY: r.PY[lo:hi], PZ: r.PZ[lo:hi],
		QX: r.QX[lo:hi], QY: r.QY[lo:hi], QZ: r.QZ[lo:hi]}
}

// copyTOIRows copies rows [0, n) of src to rows [to, to+n) of dst.
func copyTOIRows[F soa.Float](dst *soa.TOIsOf[F], to int, src *soa.TOIsOf[F], n int) {
	if n == 0 {
		return
	}
	for _, s := range [...][2][]uint32{{dst.Pair, src.Pair}, {dst.Status, src.Status}, {dst.Iter, src.Iter}} {
		copy(s[0][to:to+n], s[1][:n])
	}
	d := [...][]F{dst.T, dst.Dist, dst.NX, dst.NY, dst.NZ, dst.PX, dst.PY, dst.PZ, dst.QX, dst.QY, dst.QZ}
	f := [...][]F{src.T, src.Dist, src.NX, src.NY, src.NZ, src.PX, src.PY, src.PZ, src.QX, src.QY, src.QZ}
	for k := range d {
		copy(d[k][to:to+n], f[k][:n])
	}
}

// BatchTOI is kernel.BatchTOI on the workers.
func (p *Parallel) BatchTOI(dst *soa.TOIs, start, end soa.Capsules, pairs *soa.IndexPairs, prm TOIParams) {
	m := checkTOIArgs(dst, start, end, pairs, &prm, true)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f32.toi(m, dst, start, end, pairs, prm, false)
		}
		return
	}
	p.begin(opTOI)
	defer p.end()
	p.toiRows, p.from, p.to, p.pairs, p.toiP = dst, start, end, pairs, prm
	p.run(m)
}

// CompactTOI is kernel.CompactTOI on the workers: the same rows in the
// same order, nothing written from the count on.
func (p *Parallel) CompactTOI(dst *soa.TOIs, start, end soa.Capsules, pairs *soa.IndexPairs, prm TOIParams) int {
	m := checkTOIArgs(dst, start, end, pairs, &prm, false)
	if !p.parallel(m) {
		if m == 0 {
			return 0
		}
		return p.k.f32.toi(m, dst, start, end, pairs, prm, true)
	}
	p.begin(opTOICompact)
	defer p.end()
	p.toiRows, p.from, p.to, p.pairs, p.toiP = dst, start, end, pairs, prm
	p.prepareCounts(m)
	p.run(m)
	return p.rowsPlaced
}

// BatchTOI64 is kernel.BatchTOI64 on the workers.
func (p *Parallel) BatchTOI64(dst *soa.TOIs64, start, end soa.Capsules64, pairs *soa.IndexPairs, prm TOIParams64) {
	m := checkTOIArgs(dst, start, end, pairs, &prm, true)
	if !p.parallel(m) {
		if m > 0 {
			p.k.f64.toi(m, dst, start, end, pairs, prm, false)
		}
		return
	}
	p.begin(opTOI64)
	defer p.end()
	p.toiRows64, p.from64, p.to64, p.pairs, p.toiP64 = dst, start, end, pairs, prm
	p.run(m)
}

// CompactTOI64 is kernel.CompactTOI64 on the workers.
func (p *Parallel) CompactTOI64(dst *soa.TOIs64, start, end soa.Capsules64, pairs *soa.IndexPairs, prm TOIParams64) int {
	m := checkTOIArgs(dst, start, end, pairs, &prm, false)
	if !p.parallel(m) {
		if m == 0 {
			return 0
		}
		return p.k.f64.toi(m, dst, start, end, pairs, prm, true)
	}
	p.begin(opTOICompact64)
	defer p.end()
	p.toiRows64, p.from64, p.to64, p.pairs, p.toiP64 = dst, start, end, pairs, prm
	p.prepareCounts(m)
	p.run(m)
	return p.rowsPlaced
}
