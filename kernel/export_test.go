package kernel

// ForceRecordPrefetch makes the record kernels (the contact kernels and
// BatchClosestIndexed) prefetch capsule records (on) whatever the size of
// the capsule array, or never (off), until the returned function restores
// the size rule: the tests run the prefetching loops on small batches.
func ForceRecordPrefetch(on bool) (restore func()) {
	old, oldIndexed := recordPrefetchMin, indexedPrefetchMin
	recordPrefetchMin = 1 << 62
	if on {
		recordPrefetchMin = -1
	}
	indexedPrefetchMin = recordPrefetchMin
	return func() { recordPrefetchMin, indexedPrefetchMin = old, oldIndexed }
}

// HoldParallel makes p's workers busy with a call of another goroutine,
// as far as p can tell, until release: the tests of concurrent misuse.
func HoldParallel(p *Parallel) (release func()) {
	p.begin(opCheck)
	return p.end
}
