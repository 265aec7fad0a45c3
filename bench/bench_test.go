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
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"

	"github.com/segdist/segdist/asm"
	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
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
//
// -prefetch=on or off overrides the per-CPU choice of package kernel
// (asm.PrefetchInputs) for the big-batch closest-point loops, so that one
// test binary can compare both on a new machine.
func TestMain(m *testing.M) {
	prefetch := flag.String("prefetch", "auto", "big-batch closest loops prefetch their inputs: auto (package kernel's choice for this CPU), on or off")
	flag.Parse()
	switch *prefetch {
	case "on", "off":
		asm.PrefetchInputs = *prefetch == "on"
	case "auto":
	default:
		fmt.Fprintf(os.Stderr, "-prefetch=%q: want auto, on or off\n", *prefetch)
		os.Exit(2)
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		c := cpuid.CPU
		fmt.Printf("cpuid-brand: %s\n", strings.TrimSpace(c.BrandName))
		fmt.Printf("cpuid-vendor: %s\n", c.VendorString)
		fmt.Printf("cpuid-family-model: %d/%d\n", c.Family, c.Model)
		fmt.Printf("cpuid-cache: L1D %s, L2 %s, L3 %s\n", cacheSize(c.Cache.L1D), cacheSize(c.Cache.L2), cacheSize(c.Cache.L3))
		fmt.Printf("segdist-isa: %s\n", kernel.ISA())
		fmt.Printf("segdist-available: %s\n", strings.Join(kernel.Available(), ","))
		fmt.Printf("segdist-prefetch: %v\n", asm.PrefetchInputs)
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
// path, as isa=<path>/n=<size>, float32 (randomPairs) or float64 (the
// same pairs widened). One untimed pass first faults in the results and
// warms the caches.
func benchPaths[F soa.Float](b *testing.B, pass func(k kernel.Kernel, dst *soa.ResultsOf[F], src *soa.PairsOf[F])) {
	for _, isa := range kernel.Available() {
		b.Run("isa="+isa, func(b *testing.B) {
			k := lookup(b, isa)
			for _, n := range benchSizes {
				b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
					src, dst := benchBatch[F](n)
					pass(k, dst, src)
					b.SetBytes(bytesPerPair * int64(unsafe.Sizeof(F(0))) / 4 * int64(n))
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

// benchBatch returns randomPairs(n) in F (float64: widened exactly) and
// results for them, as soa allocates both (aligned, staggered).
func benchBatch[F soa.Float](n int) (src *soa.PairsOf[F], dst *soa.ResultsOf[F]) {
	switch s := any(&src).(type) {
	case **soa.Pairs:
		*s = randomPairs(n)
		dst = any(soa.NewResults(n)).(*soa.ResultsOf[F])
	case **soa.Pairs64:
		*s = verify.WidenPairs(randomPairs(n))
		dst = any(soa.NewResults64(n)).(*soa.ResultsOf[F])
	}
	return src, dst
}

// BenchmarkBatchClosest is the kernel on every path.
func BenchmarkBatchClosest(b *testing.B) {
	benchPaths(b, kernel.Kernel.BatchClosest)
}

// BenchmarkBatchClosest64 is the float64 kernel on every path, on the
// same pairs as BenchmarkBatchClosest (widened exactly); ns/pair compares
// directly, B/s counts the 120 bytes a float64 pair moves.
func BenchmarkBatchClosest64(b *testing.B) {
	benchPaths(b, kernel.Kernel.BatchClosest64)
}

// BenchmarkStreamOnly64 is the float64 memory floor of each path.
func BenchmarkStreamOnly64(b *testing.B) {
	benchPaths(b, kernel.Kernel.StreamOnly64)
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
				sink := referencePass(src, d2) // untimed warm-up
				b.SetBytes(bytesPerPair * int64(n))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					sink += referencePass(src, d2)
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
	referencePass(p, ref)
	golden := soa.NewResults(n)
	fallback.BatchClosest(n, p.AX, p.AY, p.AZ, p.BX, p.BY, p.BZ, p.CX, p.CY, p.CZ, p.DX, p.DY, p.DZ,
		golden.S, golden.T, golden.Dist2)
	for _, isa := range kernel.Available() {
		k, _ := kernel.Lookup(isa)
		res := soa.NewResults(n)
		k.BatchClosest(res, p)
		if v := verifyClosest(p, res, ref, golden); !v.OK() {
			t.Errorf("%s: %d lanes fail, %d differ from go; first: %v", isa, v.Failed, v.Mismatches, v.Examples)
		}
	}
}

// ---- contact and point-segment kernels -----------------------------------
//
// The contact benchmarks gather from the capsules of one bench scene of
// 10,000 capsules (NewScene(10000, 1): mixed sizes, spheres, stacks of
// parallel capsules) through index pairs, as an engine's narrowphase does:
//
//	BenchmarkContacts/isa=<path>/n=<pairs>                  BatchContacts, one row per pair
//	BenchmarkCompactContacts/isa=<path>/hits=<h>/n=<pairs>  CompactContacts, touching pairs only
//	BenchmarkCopyThenClosest/isa=<path>/n=4096              copy the axes into a soa.Pairs in Go, then BatchClosest
//	BenchmarkClosestPoint/isa=<path>/n=<pairs>              BatchClosestPoint on random point-segment pairs
//
// The pair lists (contactPairs) hold the given share of touching pairs
// (hits=5pct: 5%, about what a broadphase yields once its pairs are
// tested; hits=50pct) taken from the scene's broadphase pairs that touch,
// and pairs of random capsules that do not, shuffled. BenchmarkContacts and
// BenchmarkCopyThenClosest use the 5pct lists, so that at equal n every
// contact benchmark reads the same pairs. All report ns/pair.
//
//	taskset -c 1 go test -run '^$' -bench 'Contacts|CopyThenClosest|ClosestPoint|BatchClosest/isa=.*/n=4096$' -count 6 ./bench > contacts.out
//	benchstat -col /isa -filter '.unit:ns/pair' contacts.out
//
// One row per benchmark and size, the paths side by side. The contact
// kernels against BatchClosest on pre-laid-out pairs (the base column) and
// against copy-then-BatchClosest at n=4096, one row per path:
//
//	benchstat -row /isa -col .name -filter '/n:4096 -/hits:50pct -.name:ClosestPoint .unit:ns/pair' contacts.out
//
// Compaction at 5% hits against the uncompacted kernel (the same pairs):
//
//	benchstat -row /isa -col .name -filter '/n:4096 (/hits:5pct OR .name:Contacts) .unit:ns/pair' contacts.out

// contactSizes are the contact benchmark sizes, in index pairs.
var contactSizes = []int{256, 4096, 65536}

// hitLevels are the touching shares of BenchmarkCompactContacts, percent.
var hitLevels = []int{5, 50}

// benchMargin is the contact margin of the contact benchmarks.
const benchMargin = defaultMargin

// benchCapsuleCount is the size of the contact benchmarks' scene.
const benchCapsuleCount = 10000

var (
	benchSceneOnce sync.Once
	benchCaps      soa.Capsules
	benchTouching  []candidate // the scene's broadphase pairs that touch
	benchContacts  = map[[2]int]*soa.IndexPairs{}
	benchPoints    = map[int]*soa.PointSegments{}
)

// contactScene returns the capsules of the contact benchmarks and their
// touching broadphase pairs, built once.
func contactScene() (soa.Capsules, []candidate) {
	benchSceneOnce.Do(func() {
		scene := newScene(benchCapsuleCount, 1)
		benchCaps = toCapsules(scene)
		cands := broadphase(scene, nil)
		ip := toIndexPairs(cands)
		all := soa.NewContacts(ip.Len())
		verify.BatchContactsSpec(all, benchCaps, ip, benchMargin)
		for k, c := range cands {
			if all.Count[k] > 0 {
				benchTouching = append(benchTouching, c)
			}
		}
	})
	return benchCaps, benchTouching
}

// contactPairs returns n index pairs into the contact scene of which
// round(n x pct / 100) touch (drawn from the touching broadphase pairs,
// with repeats when there are not enough) and the others are random pairs
// of distinct capsules that do not, in random order; the same for every
// benchmark of that size and share (fixed seed).
func contactPairs(pct, n int) (soa.Capsules, *soa.IndexPairs) {
	caps, touching := contactScene()
	benchMu.Lock()
	defer benchMu.Unlock()
	key := [2]int{pct, n}
	if p, ok := benchContacts[key]; ok {
		return caps, p
	}
	r := rand.New(rand.NewPCG(2, uint64(n)<<8|uint64(pct)))
	hits := (n*pct + 50) / 100
	p := soa.NewIndexPairs(n)
	for k := range n {
		if k < hits {
			c := touching[r.IntN(len(touching))]
			p.I[k], p.J[k] = uint32(c.I), uint32(c.J)
			continue
		}
		for {
			i, j := r.IntN(caps.Len()), r.IntN(caps.Len())
			if i == j {
				continue
			}
			p.I[k], p.J[k] = uint32(i), uint32(j)
			if verify.ContactOf(caps, p, k, benchMargin).Count == 0 {
				break
			}
		}
	}
	r.Shuffle(n, func(a, b int) {
		p.I[a], p.I[b] = p.I[b], p.I[a]
		p.J[a], p.J[b] = p.J[b], p.J[a]
	})
	benchContacts[key] = p
	return caps, p
}

// pointSegments returns n random point-segment pairs: the A and the C-D
// of randomPairs(n).
func pointSegments(n int) *soa.PointSegments {
	src := randomPairs(n)
	benchMu.Lock()
	defer benchMu.Unlock()
	if p, ok := benchPoints[n]; ok {
		return p
	}
	p := soa.NewPointSegments(n)
	for i := range n {
		q := src.Get(i)
		p.Set(i, q.A, q.C, q.D)
	}
	benchPoints[n] = p
	return p
}

// eachPath runs body as the sub-benchmark isa=<path> of every available
// path, with the kernel lookup returned for that name.
func eachPath(b *testing.B, body func(b *testing.B, k kernel.Kernel)) {
	for _, isa := range kernel.Available() {
		b.Run("isa="+isa, func(b *testing.B) { body(b, lookup(b, isa)) })
	}
}

// timeLoop times pass (after one untimed pass that faults in the outputs
// and warms the caches) and reports ns/pair over n pairs.
func timeLoop(b *testing.B, n int, pass func()) {
	pass()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		pass()
	}
	reportPerPair(b, n)
}

// BenchmarkContacts is BatchContacts (every pair's row) on every path.
func BenchmarkContacts(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, n := range contactSizes {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				caps, ip := contactPairs(hitLevels[0], n)
				dst := soa.NewContacts(n)
				timeLoop(b, n, func() { k.BatchContacts(dst, caps, ip, benchMargin) })
			})
		}
	})
}

// BenchmarkCompactContacts is CompactContacts on every path, at every
// touching share.
func BenchmarkCompactContacts(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, pct := range hitLevels {
			b.Run(fmt.Sprintf("hits=%dpct", pct), func(b *testing.B) {
				for _, n := range contactSizes {
					b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
						caps, ip := contactPairs(pct, n)
						dst := soa.NewContacts(n)
						var m int
						timeLoop(b, n, func() { m = k.CompactContacts(dst, caps, ip, benchMargin) })
						b.ReportMetric(float64(m)/float64(n), "hits/pair")
					})
				}
			})
		}
	})
}

// BenchmarkContactsLargeWorld is BatchContacts (kernel=contacts),
// BatchClosestIndexed (kernel=indexed), and BatchContacts64 and
// BatchClosestIndexed64 on the capsules widened (kernel=contacts64,
// indexed64), and BatchContacts on a kernel.Parallel of 2 workers
// (kernel=contacts2workers; run it unpinned) on 65,536 random index pairs
// over
// caps capsules scattered in a 100-cube (few touch): 10,000 capsules stay
// in L2 like the other contact benchmarks', 131,072 (4 MiB) in L3,
// 1,048,576 (32 MiB) fill L3 and miss the TLB, so that every record a pair
// fetches by index waits for memory. There the kernels prefetch the
// records of the groups ahead (records larger than L2; for the indexed
// kernels larger than L3) and soa puts the records on huge pages (Linux).
func BenchmarkContactsLargeWorld(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, kern := range []string{"contacts", "indexed", "contacts64", "indexed64", "contacts2workers"} {
			for _, nc := range []int{10000, 1 << 17, 1 << 20} {
				b.Run(fmt.Sprintf("kernel=%s/caps=%d", kern, nc), func(b *testing.B) {
					caps, pairs := largeWorld(nc)
					n := pairs.Len()
					switch kern {
					case "indexed":
						dst := soa.NewResults(n)
						timeLoop(b, n, func() { k.BatchClosestIndexed(dst, caps, pairs) })
						return
					case "indexed64":
						caps64 := verify.WidenCapsules(caps)
						dst := soa.NewResults64(n)
						timeLoop(b, n, func() { k.BatchClosestIndexed64(dst, caps64, pairs) })
						return
					case "contacts2workers":
						par := kernel.NewParallel(k, 2)
						defer par.Close()
						dst := soa.NewContacts(n)
						timeLoop(b, n, func() { par.BatchContacts(dst, caps, pairs, benchMargin) })
						return
					case "contacts64":
						caps64 := verify.WidenCapsules(caps)
						dst := soa.NewContacts64(n)
						timeLoop(b, n, func() { k.BatchContacts64(dst, caps64, pairs, benchMargin) })
						return
					}
					dst := soa.NewContacts(n)
					timeLoop(b, n, func() { k.BatchContacts(dst, caps, pairs, benchMargin) })
				})
			}
		}
	})
}

// largeWorld returns nc capsules scattered in a 100-cube and 65,536
// random index pairs over them (BenchmarkContactsLargeWorld).
func largeWorld(nc int) (soa.Capsules, *soa.IndexPairs) {
	r := rand.New(rand.NewPCG(5, uint64(nc)))
	caps := soa.NewCapsules(nc)
	for i := range caps {
		x, y, z := r.Float32()*100, r.Float32()*100, r.Float32()*100
		caps.Set(i, [3]float32{x, y, z}, [3]float32{x + r.Float32(), y + r.Float32(), z}, 0.3)
	}
	const n = 1 << 16
	pairs := soa.NewIndexPairs(n)
	for i := range n {
		pairs.Set(i, uint32(r.IntN(nc)), uint32(r.IntN(nc)))
	}
	return caps, pairs
}

// BenchmarkContacts64 is BatchContacts64 on the pairs of
// BenchmarkContacts, the capsules widened to float64.
func BenchmarkContacts64(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		const n = 4096
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			caps, ip := contactPairs(hitLevels[0], n)
			caps64 := verify.WidenCapsules(caps)
			dst := soa.NewContacts64(n)
			timeLoop(b, n, func() { k.BatchContacts64(dst, caps64, ip, benchMargin) })
		})
	})
}

// BenchmarkCompactContacts64 is CompactContacts64 on the pairs of
// BenchmarkCompactContacts, the capsules widened to float64.
func BenchmarkCompactContacts64(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		const n = 4096
		for _, pct := range hitLevels {
			b.Run(fmt.Sprintf("hits=%dpct/n=%d", pct, n), func(b *testing.B) {
				caps, ip := contactPairs(pct, n)
				caps64 := verify.WidenCapsules(caps)
				dst := soa.NewContacts64(n)
				timeLoop(b, n, func() { k.CompactContacts64(dst, caps64, ip, benchMargin) })
			})
		}
	})
}

// BenchmarkCopyThenClosest is the alternative to the gathering contact
// kernels: copy the indexed pairs' axes into a soa.Pairs in Go
// (GatherPairs), then BatchClosest.
func BenchmarkCopyThenClosest(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		const n = 4096
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			caps, ip := contactPairs(hitLevels[0], n)
			pairs := soa.NewPairs(n)
			res := soa.NewResults(n)
			timeLoop(b, n, func() {
				gatherPairs(pairs, caps, ip)
				k.BatchClosest(res, pairs)
			})
		})
	})
}

// freshBatches is how many different batches of 4,096 index pairs
// BenchmarkFreshPairs calls in turn: 2^20 pairs, 65,536 groups of 16, a
// sequence of branch outcomes longer than a branch predictor learns
// (the ones measured learn the outcomes of about 16,000 groups repeated
// call after call: docs/levers.md).
const freshBatches = 256

// BenchmarkFreshPairs times the contact kernels (and the copy then
// BatchClosest they replace; compact64 is CompactContacts64 on the
// capsules widened) at 4,096 index pairs, 5% touching, when
// every call gets pairs the previous calls did not, as an engine's
// broadphase gives each step: pairs=fresh calls 256 different batches in
// turn. The other benchmarks call one batch again and again, and the
// branch predictor learns which groups enter the contact kernels' rare
// blocks and compaction stores. pairs=repeat is the control: 256 copies
// of one batch, so the same memory traffic (the indices come from L3,
// not L1) with outcomes the predictor can learn.
func BenchmarkFreshPairs(b *testing.B) {
	const n = 4096
	caps, all := contactPairs(hitLevels[0], n*freshBatches)
	batches := func(repeat bool) []soa.IndexPairs {
		bs := make([]soa.IndexPairs, freshBatches)
		for i := range bs {
			from := i * n
			if repeat {
				from = 0
			}
			p := soa.NewIndexPairs(n)
			copy(p.I, all.I[from:from+n])
			copy(p.J, all.J[from:from+n])
			bs[i] = *p
		}
		return bs
	}
	sets := map[string][]soa.IndexPairs{"fresh": batches(false), "repeat": batches(true)}
	caps64 := verify.WidenCapsules(caps)
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, kind := range []string{"contacts", "compact", "copythenclosest", "compact64"} {
			for _, set := range []string{"fresh", "repeat"} {
				b.Run("kernel="+kind+"/pairs="+set, func(b *testing.B) {
					bs, next := sets[set], 0
					var call func(ip *soa.IndexPairs)
					switch kind {
					case "contacts":
						rows := soa.NewContacts(n)
						call = func(ip *soa.IndexPairs) { k.BatchContacts(rows, caps, ip, benchMargin) }
					case "compact":
						rows := soa.NewContacts(n)
						call = func(ip *soa.IndexPairs) { k.CompactContacts(rows, caps, ip, benchMargin) }
					case "compact64":
						rows := soa.NewContacts64(n)
						call = func(ip *soa.IndexPairs) { k.CompactContacts64(rows, caps64, ip, benchMargin) }
					case "copythenclosest":
						pairs, res := soa.NewPairs(n), soa.NewResults(n)
						call = func(ip *soa.IndexPairs) {
							gatherPairs(pairs, caps, ip)
							k.BatchClosest(res, pairs)
						}
					}
					timeLoop(b, n, func() {
						call(&bs[next])
						if next++; next == len(bs) {
							next = 0
						}
					})
				})
			}
		}
	})
}

// BenchmarkClosestIndexed is BatchClosestIndexed on the pairs of
// BenchmarkCopyThenClosest: the closest points of capsule axes by index,
// without the copy.
func BenchmarkClosestIndexed(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		const n = 4096
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			caps, ip := contactPairs(hitLevels[0], n)
			res := soa.NewResults(n)
			timeLoop(b, n, func() { k.BatchClosestIndexed(res, caps, ip) })
		})
	})
}

// BenchmarkClosestPoint is BatchClosestPoint on every path.
func BenchmarkClosestPoint(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, n := range contactSizes {
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				src := pointSegments(n)
				dst := soa.NewPointResults(n)
				timeLoop(b, n, func() { k.BatchClosestPoint(dst, src) })
			})
		}
	})
}

// TestBenchContactsAreChecked verifies every path on the contact
// benchmarks' pairs (4,096 of them at each touching share) and the share
// itself, so the benchmarks measure correct kernels on what they claim.
func TestBenchContactsAreChecked(t *testing.T) {
	const n = 4096
	kgo, _ := kernel.Lookup("go")
	for _, pct := range hitLevels {
		caps, ip := contactPairs(pct, n)
		set := newContactSet(kgo, caps, ip, benchMargin)
		if want := (n*pct + 50) / 100; set.GoldenN != want {
			t.Errorf("hits=%dpct: %d of %d pairs touch, want %d", pct, set.GoldenN, n, want)
		}
		for _, isa := range kernel.Available() {
			k, _ := kernel.Lookup(isa)
			dst := soa.NewContacts(n)
			m := k.CompactContacts(dst, caps, ip, benchMargin)
			if v := verifyContacts(set, dst, m); !v.OK() {
				t.Errorf("hits=%dpct %s: %d failed, %d mismatches; first: %v", pct, isa, v.Failed, v.Mismatches, v.Examples)
			}
		}
	}
	p := pointSegments(n)
	ref := make([]float64, n)
	referencePointPass(p, ref)
	golden := soa.NewPointResults(n)
	kgo.BatchClosestPoint(golden, p)
	for _, isa := range kernel.Available() {
		k, _ := kernel.Lookup(isa)
		res := soa.NewPointResults(n)
		k.BatchClosestPoint(res, p)
		if v := verifyPoints(p, res, ref, golden); !v.OK() {
			t.Errorf("point %s: %d lanes fail, %d differ from go; first: %v", isa, v.Failed, v.Mismatches, v.Examples)
		}
	}
}

// TestContactBenchNoAllocs checks that the timed loops of the contact
// benchmarks do not allocate.
func TestContactBenchNoAllocs(t *testing.T) {
	const n = 256
	caps, ip := contactPairs(hitLevels[0], n)
	dst := soa.NewContacts(n)
	pairs, res := soa.NewPairs(n), soa.NewResults(n)
	pts, pres := pointSegments(n), soa.NewPointResults(n)
	for _, isa := range kernel.Available() {
		k, _ := kernel.Lookup(isa)
		for name, pass := range map[string]func(){
			"BatchContacts":     func() { k.BatchContacts(dst, caps, ip, benchMargin) },
			"CompactContacts":   func() { k.CompactContacts(dst, caps, ip, benchMargin) },
			"CopyThenClosest":   func() { gatherPairs(pairs, caps, ip); k.BatchClosest(res, pairs) },
			"BatchClosestPoint": func() { k.BatchClosestPoint(pres, pts) },
		} {
			if a := testing.AllocsPerRun(20, pass); a != 0 {
				t.Errorf("%s %s: %v allocations per pass", isa, name, a)
			}
		}
	}
}

// BenchmarkParallel runs kernel.Parallel on the best path with 1 and 2
// workers (1: the single-core call, through the same code), for
// BatchClosest over the benchmark sizes, StreamOnly's floor being a
// single-core figure, and CompactContacts over 2^20 index pairs at 5%
// hits: benchstat -col /workers compares them.
func BenchmarkParallel(b *testing.B) {
	k := lookup(b, kernel.ISA())
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := kernel.NewParallel(k, workers)
			defer p.Close()
			b.Run("kernel=closest", func(b *testing.B) {
				for _, n := range benchSizes {
					b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
						src, dst := randomPairs(n), soa.NewResults(n)
						p.BatchClosest(dst, src)
						b.SetBytes(bytesPerPair * int64(n))
						b.ReportAllocs()
						b.ResetTimer()
						for b.Loop() {
							p.BatchClosest(dst, src)
						}
						reportPerPair(b, n)
					})
				}
			})
			b.Run("kernel=stream", func(b *testing.B) {
				for _, n := range []int{65536, 1 << 20} {
					b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
						src, dst := randomPairs(n), soa.NewResults(n)
						p.StreamOnly(dst, src)
						b.SetBytes(bytesPerPair * int64(n))
						b.ResetTimer()
						for b.Loop() {
							p.StreamOnly(dst, src)
						}
						reportPerPair(b, n)
					})
				}
			})
			b.Run("kernel=compact/hits=5pct", func(b *testing.B) {
				for _, n := range []int{65536, 1 << 20} {
					b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
						caps, ip := contactPairs(5, n)
						dst := soa.NewContacts(n)
						timeLoop(b, n, func() { p.CompactContacts(dst, caps, ip, benchMargin) })
					})
				}
			})
		})
	}
}

// BenchmarkSmallBatches is the per-call cost: the 4,096 index pairs of
// BenchmarkContacts (kernel=contacts, BatchContacts) and the 4,096 pairs
// of BenchmarkBatchClosest (kernel=closest) handed over in calls of n
// pairs each, as an engine that calls per island would. ns/pair is over
// all 4,096 pairs, so its rise at small n over n=4096 is the fixed cost of
// a call spread over its pairs.
func BenchmarkSmallBatches(b *testing.B) {
	const total = 4096
	caps, ip := contactPairs(hitLevels[0], total)
	src := randomPairs(total)
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, n := range []int{16, 64, 256, 4096} {
			calls := total / n
			pairs := make([]soa.IndexPairs, calls)
			segs := make([]soa.Pairs, calls)
			rows := make([]*soa.Contacts, calls)
			res := make([]*soa.Results, calls)
			for c := range calls {
				lo, hi := c*n, (c+1)*n
				pairs[c] = soa.IndexPairs{I: ip.I[lo:hi], J: ip.J[lo:hi]}
				segs[c] = soa.Pairs{AX: src.AX[lo:hi], AY: src.AY[lo:hi], AZ: src.AZ[lo:hi],
					BX: src.BX[lo:hi], BY: src.BY[lo:hi], BZ: src.BZ[lo:hi],
					CX: src.CX[lo:hi], CY: src.CY[lo:hi], CZ: src.CZ[lo:hi],
					DX: src.DX[lo:hi], DY: src.DY[lo:hi], DZ: src.DZ[lo:hi]}
				rows[c], res[c] = soa.NewContacts(n), soa.NewResults(n)
			}
			b.Run(fmt.Sprintf("kernel=contacts/n=%d", n), func(b *testing.B) {
				timeLoop(b, total, func() {
					for c := range calls {
						k.BatchContacts(rows[c], caps, &pairs[c], benchMargin)
					}
				})
			})
			b.Run(fmt.Sprintf("kernel=closest/n=%d", n), func(b *testing.B) {
				timeLoop(b, total, func() {
					for c := range calls {
						k.BatchClosest(res[c], &segs[c])
					}
				})
			})
		}
	})
}

// BenchmarkPlaneContacts times BatchPlaneContacts and CompactPlaneContacts
// on capsules over a ground and four walls (index pairs (capsule, plane),
// every capsule against every plane, about a fifth touching), ns per
// pair; BenchmarkClosestPoint on the same sizes is its unit.
func BenchmarkPlaneContacts(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, n := range contactSizes {
			caps, planes, pairs := planeScene(n)
			b.Run(fmt.Sprintf("kernel=batch/n=%d", n), func(b *testing.B) {
				dst := soa.NewContacts(n)
				timeLoop(b, n, func() { k.BatchPlaneContacts(dst, caps, planes, pairs, benchMargin) })
			})
			b.Run(fmt.Sprintf("kernel=compact/n=%d", n), func(b *testing.B) {
				dst := soa.NewContacts(n)
				timeLoop(b, n, func() { k.CompactPlaneContacts(dst, caps, planes, pairs, benchMargin) })
			})
		}
	})
}

// planeScene returns capsules in a box of five planes (a ground and four
// walls, 20 apart) and n index pairs: capsule k/5 against plane k mod 5.
func planeScene(n int) (soa.Capsules, soa.Planes, *soa.IndexPairs) {
	r := verify.NewRand(5, 1)
	planes := soa.NewPlanes(0)
	planes.Append([3]float32{0, 1, 0}, 0)
	planes.Append([3]float32{1, 0, 0}, -10)
	planes.Append([3]float32{-1, 0, 0}, -10)
	planes.Append([3]float32{0, 0, 1}, -10)
	planes.Append([3]float32{0, 0, -1}, -10)
	bodies := (n + 4) / 5
	caps := soa.NewCapsules(bodies)
	u := func(lo, hi float64) float32 { return float32(lo + (hi-lo)*r.Float64()) }
	for i := range caps {
		c := [3]float32{u(-10, 10), u(0, 20), u(-10, 10)}
		d := [3]float32{u(-1, 1), u(-1, 1), u(-1, 1)}
		caps.Set(i, [3]float32{c[0] - d[0], c[1] - d[1], c[2] - d[2]}, [3]float32{c[0] + d[0], c[1] + d[1], c[2] + d[2]}, u(0.1, 0.5))
	}
	pairs := soa.NewIndexPairs(n)
	for k := range n {
		pairs.I[k], pairs.J[k] = uint32(k/5), uint32(k%5)
	}
	return caps, planes, pairs
}

// BenchmarkCapsulesFromPoses times CapsulesFromPoses, ns per body (the
// unit of the pose kernels' target), on bodies with random poses.
func BenchmarkCapsulesFromPoses(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		for _, n := range contactSizes {
			r := verify.NewRand(6, 1)
			local, poses, dst := soa.NewCapsules(n), soa.NewPoses(n), soa.NewCapsules(n)
			for i := range n {
				local.Set(i, [3]float32{0, -1, 0}, [3]float32{0, 1, 0}, 0.3)
				q := verify.RandomQuaternion(r)
				poses.Set(i, [3]float32{float32(r.Float64()), float32(r.Float64()), float32(r.Float64())},
					[4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])})
			}
			b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
				timeLoop(b, n, func() { k.CapsulesFromPoses(dst, local, poses) })
			})
		}
	})
}

// ---- time of impact ---------------------------------------------------

// toiWorkloads are the workloads of BenchmarkTOI, from the categories of
// verify.TOICategories: misses (never touching, every pair a proven
// Miss), translation (head-on pairs the spec resolves as a Hit), grazing
// (graze-band: an axis end passing the other axis within the tolerance
// band of the target) and rotation (both bodies tumbling by up to 90
// degrees, with fallback.SweepPad's pads); mixed is a quarter of each,
// shuffled.
var toiWorkloads = []string{"misses", "translation", "grazing", "rotation", "mixed"}

// toiKinds are the single-kind workloads: the category each draws from
// and, if only is set, the one status it keeps.
var toiKinds = map[string]struct {
	category string
	only     bool
	keep     fallback.TOIStatus
}{
	"misses":      {"never", true, fallback.TOIMiss},
	"translation": {"head-on", true, fallback.TOIHit},
	"grazing":     {"graze-band", false, 0},
	"rotation":    {"rotation", false, 0},
}

// toiBenchPairs is the batch size of the TOI benchmarks.
const toiBenchPairs = 4096

// toiBenchParams are the TOI benchmarks' parameters: the categories'
// Tol of 1e-3 of a scene's size once toiCase has scaled every case to
// size 1.
var toiBenchParams = fallback.TOIParams{Tol: 1e-3, TMax: 1, MaxIter: verify.TOIMaxIter}

// toiBatch is a TOI workload laid out as an engine's stores: pair k is
// capsule 2k against 2k+1.
type toiBatch struct {
	start, end soa.Capsules
	pairs      *soa.IndexPairs
	params     kernel.TOIParams
}

var benchTOI = map[string]*toiBatch{}

// toiCase scales a generated case to size 1 (its Tol 1e-3 × size to
// toiBenchParams.Tol) and folds its margin into I's radii, so that every
// case of a batch shares one set of parameters with the same target, and
// rounds it to float32.
func toiCase(c verify.TOICase64) verify.TOICase {
	f := float64(toiBenchParams.Tol) / c.Params.Tol
	sw := func(s fallback.SweptCapsule64, add float64) fallback.SweptCapsule {
		v := func(x [3]float64) [3]float32 {
			return [3]float32{float32(x[0] * f), float32(x[1] * f), float32(x[2] * f)}
		}
		return fallback.SweptCapsule{A0: v(s.A0), B0: v(s.B0), R0: float32((s.R0 + add) * f), A1: v(s.A1), B1: v(s.B1),
			R1: float32((s.R1 + add) * f), Pad: float32(s.Pad * f)}
	}
	return verify.TOICase{I: sw(c.I, c.Params.Margin), J: sw(c.J, 0), Params: toiBenchParams}
}

// toiCases returns n cases of the kind (see toiKinds) that keep its
// status under toiBenchParams; the same for every call (fixed seeds).
func toiCases(kind string, n int) []verify.TOICase {
	k := toiKinds[kind]
	var cat verify.TOICategory
	for _, c := range verify.TOICategories() {
		if c.Name == k.category {
			cat = c
		}
	}
	var out []verify.TOICase
	for stream := uint64(0); len(out) < n; stream++ {
		for _, c := range verify.TOICases[float64](cat, 11, stream, 256) {
			tc := toiCase(c)
			if !k.only || tc.Lane().Status == k.keep {
				out = append(out, tc)
			}
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// toiLayout lays cases out as a toiBatch.
func toiLayout(cases []verify.TOICase) *toiBatch {
	n := len(cases)
	b := &toiBatch{start: soa.NewCapsules(2 * n), end: soa.NewCapsules(2 * n), pairs: soa.NewIndexPairs(n)}
	pad := make([]float32, 2*n)
	for k, c := range cases {
		for s, sc := range [2]fallback.SweptCapsule{c.I, c.J} {
			b.start.Set(2*k+s, sc.A0, sc.B0, sc.R0)
			b.end.Set(2*k+s, sc.A1, sc.B1, sc.R1)
			pad[2*k+s] = sc.Pad
		}
		b.pairs.Set(k, uint32(2*k), uint32(2*k+1))
	}
	p := toiBenchParams
	b.params = kernel.TOIParams{Margin: p.Margin, Tol: p.Tol, TMax: p.TMax, MaxIter: p.MaxIter, Pad: pad}
	return b
}

// toiWorkload returns the workload of n pairs, built once.
func toiWorkload(name string, n int) *toiBatch {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprintf("%s/%d", name, n)
	if b, ok := benchTOI[key]; ok {
		return b
	}
	var cases []verify.TOICase
	if name == "mixed" {
		for _, kind := range toiWorkloads[:4] {
			cases = append(cases, toiCases(kind, n/4)...)
		}
		cases = append(cases, toiCases("misses", n-len(cases))...)
		r := rand.New(rand.NewPCG(12, uint64(n)))
		r.Shuffle(len(cases), func(a, b int) { cases[a], cases[b] = cases[b], cases[a] })
	} else {
		cases = toiCases(name, n)
	}
	b := toiLayout(cases)
	benchTOI[key] = b
	return b
}

// toiHitBatch returns n pairs of which round(n x pct / 100) are
// translation hits and the others misses, shuffled; built once.
func toiHitBatch(pct, n int) *toiBatch {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprintf("hits=%d/%d", pct, n)
	if b, ok := benchTOI[key]; ok {
		return b
	}
	hits := (n*pct + 50) / 100
	cases := append(toiCases("translation", hits), toiCases("misses", n-hits)...)
	r := rand.New(rand.NewPCG(13, uint64(n)<<8|uint64(pct)))
	r.Shuffle(len(cases), func(a, b int) { cases[a], cases[b] = cases[b], cases[a] })
	b := toiLayout(cases)
	benchTOI[key] = b
	return b
}

// closestUnit times BatchClosest on n random pairs on path k (the median
// of 5 repetitions of at least 20 ms): the unit of the TOI's cost, one
// closest-point call per pair, measured beside the TOI benchmarks.
func closestUnit(k kernel.Kernel, n int) float64 {
	src, dst := randomPairs(n), soa.NewResults(n)
	return measure(func() { k.BatchClosest(dst, src) }, 5, 20*time.Millisecond).NsPer(n)
}

// BenchmarkTOI is BatchTOI on every path and workload, toiBenchPairs
// pairs. Besides ns/pair it reports closest-units, the time per pair in
// units of BatchClosest's time per pair on the same path (closestUnit,
// timed in the same run before the workloads), iter/pair (closest-point
// evaluations per pair, the spec's) and hits/pair (the rows that are not a
// Miss).
func BenchmarkTOI(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		unit := closestUnit(k, toiBenchPairs)
		for _, name := range toiWorkloads {
			b.Run("workload="+name, func(b *testing.B) {
				w := toiWorkload(name, toiBenchPairs)
				dst := soa.NewTOIs(toiBenchPairs)
				timeLoop(b, toiBenchPairs, func() { k.BatchTOI(dst, w.start, w.end, w.pairs, w.params) })
				iters, hits := 0, 0
				for r := range toiBenchPairs {
					iters += int(dst.Iter[r])
					if fallback.TOIStatus(dst.Status[r]) != fallback.TOIMiss {
						hits++
					}
				}
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*toiBenchPairs)
				b.ReportMetric(ns/unit, "closest-units")
				b.ReportMetric(float64(iters)/toiBenchPairs, "iter/pair")
				b.ReportMetric(float64(hits)/toiBenchPairs, "hits/pair")
			})
		}
	})
}

// BenchmarkCompactTOI is BatchTOI (kernel=batch) and CompactTOI
// (kernel=compact) on every path, toiBenchPairs pairs of which 5% are
// translation hits and the rest misses: `benchstat -col /kernel` gives
// the cost of compaction. kernel=compact also reports x-batch, its time
// over BatchTOI's on the same pairs timed in the same function.
func BenchmarkCompactTOI(b *testing.B) {
	eachPath(b, func(b *testing.B, k kernel.Kernel) {
		w := toiHitBatch(5, toiBenchPairs)
		dst := soa.NewTOIs(toiBenchPairs)
		batch := func() { k.BatchTOI(dst, w.start, w.end, w.pairs, w.params) }
		b.Run("kernel=batch", func(b *testing.B) { timeLoop(b, toiBenchPairs, batch) })
		b.Run("kernel=compact", func(b *testing.B) {
			var m int
			timeLoop(b, toiBenchPairs, func() { m = k.CompactTOI(dst, w.start, w.end, w.pairs, w.params) })
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*toiBenchPairs)
			b.StopTimer()
			ref := measure(batch, 5, 20*time.Millisecond).NsPer(toiBenchPairs)
			b.ReportMetric(ns/ref, "x-batch")
			b.ReportMetric(float64(m)/toiBenchPairs, "hits/pair")
		})
	})
}

// TestTOIBenchWorkloads checks the TOI benchmarks' batches: each
// workload holds what it claims (every pair of misses a Miss, of
// translation a Hit, mixed a quarter of each kind, 5% hits in
// BenchmarkCompactTOI's batch), and every path's BatchTOI and CompactTOI
// rows are fallback.TOILane's bit for bit, without allocating.
func TestTOIBenchWorkloads(t *testing.T) {
	const n = 256
	spec := func(w *toiBatch) []fallback.TOI {
		var out []fallback.TOI
		for k := range w.pairs.Len() {
			sw := func(i uint32) fallback.SweptCapsule {
				return fallback.SweptCapsule{A0: w.start[i].A, B0: w.start[i].B, R0: w.start[i].R,
					A1: w.end[i].A, B1: w.end[i].B, R1: w.end[i].R, Pad: w.params.Pad[i]}
			}
			out = append(out, fallback.TOILane(sw(w.pairs.I[k]), sw(w.pairs.J[k]), toiBenchParams))
		}
		return out
	}
	count := func(want []fallback.TOI, st fallback.TOIStatus) int {
		c := 0
		for _, x := range want {
			if x.Status == st {
				c++
			}
		}
		return c
	}
	for _, name := range append(slices.Clone(toiWorkloads), "hits=5pct") {
		var w *toiBatch
		if name == "hits=5pct" {
			w = toiHitBatch(5, n)
		} else {
			w = toiWorkload(name, n)
		}
		want := spec(w)
		miss, hit := count(want, fallback.TOIMiss), count(want, fallback.TOIHit)
		t.Logf("%s: %d Miss, %d Hit, %d other", name, miss, hit, n-miss-hit)
		switch name {
		case "misses":
			if miss != n {
				t.Errorf("misses: %d of %d pairs a Miss", miss, n)
			}
		case "translation":
			if hit != n {
				t.Errorf("translation: %d of %d pairs a Hit", hit, n)
			}
		case "hits=5pct":
			if want := (n*5 + 50) / 100; n-miss != want {
				t.Errorf("hits=5pct: %d of %d pairs not a Miss, want %d", n-miss, n, want)
			}
		case "grazing", "rotation", "mixed":
			if miss == 0 || miss == n {
				t.Errorf("%s: %d of %d pairs a Miss: want both kinds", name, miss, n)
			}
		}
		for _, isa := range kernel.Available() {
			k, _ := kernel.Lookup(isa)
			dst := soa.NewTOIs(n)
			k.BatchTOI(dst, w.start, w.end, w.pairs, w.params)
			if bad, ex := checkTOIRows(want, dst, n, false); bad > 0 {
				t.Errorf("%s %s: BatchTOI: %d rows differ from the spec; first: %s", name, isa, bad, ex)
			}
			m := k.CompactTOI(dst, w.start, w.end, w.pairs, w.params)
			if bad, ex := checkTOIRows(want, dst, m, true); bad > 0 {
				t.Errorf("%s %s: CompactTOI: %d rows differ from the spec; first: %s", name, isa, bad, ex)
			}
			if a := testing.AllocsPerRun(3, func() { k.BatchTOI(dst, w.start, w.end, w.pairs, w.params) }); a != 0 {
				t.Errorf("%s %s: BatchTOI allocates %v times per call", name, isa, a)
			}
		}
	}
	// mixed: a quarter of each kind, which the statuses bound.
	w := spec(toiWorkload("mixed", n))
	if miss := count(w, fallback.TOIMiss); miss < n/4 || miss > 3*n/4 {
		t.Errorf("mixed: %d of %d pairs a Miss", miss, n)
	}
}
