package main

import (
	"math/rand/v2"
	"time"

	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// sweepSizes are the batch sizes of the throughput curve.
var sweepSizes = []int{16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20}

// sweep times BatchClosest and StreamOnly (the memory floor) on every path
// of isas over sweepSizes, random pairs in a 10-cube, in float32 and in
// float64 (BatchClosest64, StreamOnly64 on the same pairs), for the
// throughput curve (make plot). Each row is one kernel ("closest" or
// "stream"), precision, path and batch size (pairs) with its median ns per
// pair. The results are not verified here: the scene run and the tests do
// that.
func sweep(isas []string, reps int, minRep time.Duration) []row {
	var rows []row
	for _, n := range sweepSizes {
		r := rand.New(rand.NewPCG(7, uint64(n)))
		pt := func() [3]float32 {
			return [3]float32{float32(10 * r.Float64()), float32(10 * r.Float64()), float32(10 * r.Float64())}
		}
		src, dst := soa.NewPairs(n), soa.NewResults(n)
		for i := range n {
			src.Set(i, pt(), pt(), pt(), pt())
		}
		src64, dst64 := verify.WidenPairs(src), soa.NewResults64(n)
		for _, isa := range isas {
			k, _ := kernel.Lookup(isa)
			for _, kr := range []struct {
				name, precision string
				pass            func()
			}{
				{"closest", "float32", func() { k.BatchClosest(dst, src) }},
				{"stream", "float32", func() { k.StreamOnly(dst, src) }},
				{"closest", "float64", func() { k.BatchClosest64(dst64, src64) }},
				{"stream", "float64", func() { k.StreamOnly64(dst64, src64) }},
			} {
				if isa == "go" && n > 65536 {
					continue // minutes of pure Go add nothing to the picture
				}
				t := measure(kr.pass, reps, minRep)
				rows = append(rows, row{ISA: isa, Kernel: kr.name, Pairs: n, NsPerPair: t.NsPer(n), Precision: kr.precision})
			}
		}
	}
	return rows
}
