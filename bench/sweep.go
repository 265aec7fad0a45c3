package main

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"time"

	"github.com/klauspost/cpuid/v2"
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
// that. Pure Go runs every size too: at 1M pairs one pass takes tens of
// milliseconds, so with the default repetitions its two largest sizes add
// a few seconds to the sweep.
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
				t := measure(kr.pass, reps, minRep)
				rows = append(rows, row{ISA: isa, Kernel: kr.name, Pairs: n, NsPerPair: t.NsPer(n), Precision: kr.precision})
			}
		}
	}
	return rows
}

// machine is the first JSON line of go run ./bench -sweep -json: what
// the plot needs to know about the CPU that ran the sweep. Its kernel is
// "machine", so that readers of the timing rows can skip it.
type machine struct {
	Kernel string `json:"kernel"` // "machine"
	CPU    string `json:"cpu"`    // the brand string
	Family int    `json:"family"`
	Model  int    `json:"model"`
	GOARCH string `json:"goarch"`
	Date   string `json:"date"` // the day of the sweep, UTC, YYYY-MM-DD
	// The data caches of one core, in bytes (0: unknown).
	L1D int `json:"l1d"`
	L2  int `json:"l2"`
	L3  int `json:"l3"`
	// The bytes one pair occupies in a batch: its inputs (soa.PairsOf)
	// and its results (soa.ResultsOf), per precision. A batch of n pairs
	// fits a cache of c bytes while n*PairBytes <= c.
	PairBytes map[string]int `json:"pair_bytes"`
}

// thisMachine describes the CPU at hand (cpuid) on date now.
func thisMachine(now time.Time) machine {
	return machine{
		Kernel: "machine",
		CPU:    cpuid.CPU.BrandName,
		Family: cpuid.CPU.Family,
		Model:  cpuid.CPU.Model,
		GOARCH: runtime.GOARCH,
		Date:   now.UTC().Format(time.DateOnly),
		L1D:    max(cpuid.CPU.Cache.L1D, 0),
		L2:     max(cpuid.CPU.Cache.L2, 0),
		L3:     max(cpuid.CPU.Cache.L3, 0),
		PairBytes: map[string]int{
			"float32": pairBytes[float32](),
			"float64": pairBytes[float64](),
		},
	}
}

// pairBytes is the size of one pair's inputs and results: one element of
// every stream of soa.PairsOf and soa.ResultsOf.
func pairBytes[F soa.Float]() int {
	streams := reflect.TypeFor[soa.PairsOf[F]]().NumField() + reflect.TypeFor[soa.ResultsOf[F]]().NumField()
	return streams * int(reflect.TypeFor[F]().Size())
}

// writeSweepJSON writes the machine line, then the sweep's rows.
func writeSweepJSON(w io.Writer, rows []row) error {
	if err := json.NewEncoder(w).Encode(thisMachine(time.Now())); err != nil {
		return err
	}
	return writeJSON(w, rows)
}
