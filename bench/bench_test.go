package main

// Benchmarks, one sub-benchmark per path and size, named so that
// `benchstat -col /isa` puts every path (and the reference, isa=scalar64)
// in one table:
//
//	go test -run '^$' -bench 'BatchClosest|StreamOnly|Reference' -count 6 ./bench > bench.out
//	benchstat -col /isa bench.out
//
// That table has one row per benchmark and size, so the reference sits in
// rows of its own. To line it up with the kernels, one row per size:
//
//	benchstat -col /isa -row /n -filter '.name:(BatchClosest OR Reference) .unit:ns/pair' bench.out
//
// Every benchmark reports ns/pair (the figure of the README and of
// go run ./bench) and B/s over the 60 bytes a pair reads and writes.

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/cpuid/v2"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// benchSizes are the batch sizes: from one AVX-512 group to a batch that
// streams from memory (1M pairs, 60 MB).
var benchSizes = []int{16, 256, 4096, 65536, 1048576}

// bytesPerPair is what a pair costs in memory traffic: 12 float32 in,
// 3 out.
const bytesPerPair = 60

// TestMain prints the CPU and the kernel paths before the benchmarks, as
// "key: value" configuration lines that benchstat carries along (like the
// "cpu:" line of the testing package).
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		c := cpuid.CPU
		fmt.Printf("cpuid-brand: %s\n", strings.TrimSpace(c.BrandName))
		fmt.Printf("cpuid-vendor: %s\n", c.VendorString)
		fmt.Printf("cpuid-family-model: %d/%d\n", c.Family, c.Model)
		fmt.Printf("cpuid-cache: L1D %s, L2 %s, L3 %s\n", cacheSize(c.Cache.L1D), cacheSize(c.Cache.L2), cacheSize(c.Cache.L3))
		fmt.Printf("segdist-isa: %s\n", kernel.ISA())
		fmt.Printf("segdist-available: %s\n", strings.Join(kernel.Available(), ","))
	}
	os.Exit(m.Run())
}

var (
	benchMu    sync.Mutex
	benchPairs = map[int]*soa.Pairs{}
)

// randomPairs returns n random pairs with endpoints uniform in the cube
// [0,10]^3, the same for every benchmark of size n (fixed seed), built
// once per size.
func randomPairs(n int) *soa.Pairs {
	benchMu.Lock()
	defer benchMu.Unlock()
	if p, ok := benchPairs[n]; ok {
		return p
	}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	pt := func() [3]float32 {
		return [3]float32{float32(10 * r.Float64()), float32(10 * r.Float64()), float32(10 * r.Float64())}
	}
	p := soa.NewPairs(n)
	for i := range n {
		p.Set(i, pt(), pt(), pt(), pt())
	}
	benchPairs[n] = p
	return p
}

// lookup returns the path named isa and fails the benchmark if Lookup
// gives any other path, so that a name always measures what it says.
func lookup(b *testing.B, isa string) kernel.Kernel {
	k, ok := kernel.Lookup(isa)
	if !ok || k.ISA() != isa {
		b.Fatalf("kernel.Lookup(%q) = (%q, %v)", isa, k.ISA(), ok)
	}
	return k
}

func reportPerPair(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pair")
}

// benchPaths runs pass over the pairs of every size on every available
// path, as isa=<path>/n=<size>. One untimed pass first faults in the
// results and warms the caches.
func benchPaths(b *testing.B, pass func(k kernel.Kernel, dst *soa.Results, src *soa.Pairs)) {
	for _, isa := range kernel.Available() {
		b.Run("isa="+isa, func(b *testing.B) {
			k := lookup(b, isa)
			for _, n := range benchSizes {
				b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
					src := randomPairs(n)
					dst := soa.NewResults(n)
					pass(k, dst, src)
					b.SetBytes(bytesPerPair * int64(n))
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						pass(k, dst, src)
					}
					reportPerPair(b, n)
				})
			}
		})
	}
}

// BenchmarkBatchClosest is the kernel on every path.
func BenchmarkBatchClosest(b *testing.B) {
	benchPaths(b, kernel.Kernel.BatchClosest)
}

// BenchmarkStreamOnly is each path's memory floor: the same loads and
// stores as BatchClosest, no closest-point math.
func BenchmarkStreamOnly(b *testing.B) {
	benchPaths(b, kernel.Kernel.StreamOnly)
}

// BenchmarkReference is the scalar float64 Eberly reference over the same
// pairs, named like the paths (isa=scalar64) for benchstat -col /isa.
func BenchmarkReference(b *testing.B) {
	b.Run("isa=scalar64", func(b *testing.B) {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				src := randomPairs(n)
				d2 := make([]float64, n)
				sink := ReferencePass(src, d2) // untimed warm-up
				b.SetBytes(bytesPerPair * int64(n))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					sink += ReferencePass(src, d2)
				}
				reportPerPair(b, n)
				if sink < 0 {
					b.Log(sink) // never: keeps sink live
				}
			})
		}
	})
}

// BenchmarkClosest is the single-pair API, kernel.Closest, one pair per
// op, cycling through 4096 random pairs.
func BenchmarkClosest(b *testing.B) {
	const n = 4096
	p := randomPairs(n)
	pairs := make([]soa.Pair, n)
	for i := range pairs {
		pairs[i] = p.Get(i)
	}
	var sink float32
	i := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		q := &pairs[i]
		s, t, d2 := kernel.Closest(q.A, q.B, q.C, q.D)
		sink += s + t + d2
		i = (i + 1) & (n - 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/pair")
	if sink < 0 {
		b.Log(sink)
	}
}

// TestBenchPairsAreChecked runs every path once on the benchmark pairs of
// one size and verifies them, so the benchmarks measure correct kernels.
func TestBenchPairsAreChecked(t *testing.T) {
	const n = 4096
	p := randomPairs(n)
	ref := make([]float64, n)
	ReferencePass(p, ref)
	golden := soa.NewResults(n)
	fallback.BatchClosest(n, p.AX, p.AY, p.AZ, p.BX, p.BY, p.BZ, p.CX, p.CY, p.CZ, p.DX, p.DY, p.DZ,
		golden.S, golden.T, golden.Dist2)
	for _, isa := range kernel.Available() {
		k, _ := kernel.Lookup(isa)
		res := soa.NewResults(n)
		k.BatchClosest(res, p)
		if v := Verify(p, res, ref, golden); !v.OK() {
			t.Errorf("%s: %d lanes fail, %d differ from go; first: %v", isa, v.Failed, v.Mismatches, v.Examples)
		}
	}
}
