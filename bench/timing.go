package main

import (
	"math"
	"runtime"
	"slices"
	"time"
)

// timing is the result of Measure: the median time of one pass and the
// per-pass time of every repetition.
type timing struct {
	Median time.Duration   // median over the repetitions of the time per pass
	Reps   []time.Duration // time per pass of each repetition
	Passes int             // passes per repetition
}

// NsPer returns the median time of one pass divided by n (ns per pair
// for a pass over n pairs).
func (t timing) NsPer(n int) float64 {
	return float64(t.Median.Nanoseconds()) / float64(n)
}

// maxPasses bounds the passes per repetition when a pass is too quick to
// time (for example an empty batch).
const maxPasses = 1 << 20

// measure times pass: one untimed warm-up pass (which also sizes the
// repetitions), then reps repetitions of enough passes to last at least
// minRep each. It returns the median time per pass, which is robust to
// the occasional repetition slowed down by another process on a shared
// machine. It garbage-collects before timing so that a collection left
// over from setting up does not land in a repetition; pass itself should
// not allocate.
func measure(pass func(), reps int, minRep time.Duration) timing {
	reps = max(reps, 1)
	runtime.GC()
	t0 := time.Now()
	pass()
	warm := time.Since(t0)
	passes := 1
	if warm < minRep {
		passes = int(min(maxPasses, math.Ceil(float64(minRep)/float64(max(warm, 1)))))
	}
	t := timing{Reps: make([]time.Duration, reps), Passes: passes}
	for r := range reps {
		start := time.Now()
		for range passes {
			pass()
		}
		t.Reps[r] = time.Since(start) / time.Duration(passes)
	}
	t.Median = median(t.Reps)
	return t
}

// median returns the median of d (the mean of the middle two for an even
// count), 0 for an empty slice. d is not modified.
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
