// Package peers holds the competition of segdist's AVX-512 kernel, built
// only on request, and a benchmark that runs them with segdist's own paths
// in one process:
//
//   - c-avx512: the same kernel in C with AVX-512 intrinsics (cgo; build
//     tag "peers"), files closest_avx512.c and c_amd64.go;
//   - archsimd-avx512: the same kernel in Go with the experimental
//     simd/archsimd package (GOEXPERIMENT=simd), file archsimd_amd64.go.
//
// Both follow fallback.ClosestLane operation for operation, so their
// results are bit-identical to segdist's (checked by TestPeersBitIdentical).
// docs/performance.md says how to run the comparison.
//
// Without the tag and the experiment this package is empty, so the normal
// `go build ./...` and `go test ./...` need neither cgo nor special flags.
package peers

import "github.com/segdist/segdist/soa"

// Impl is one kernel under comparison.
type Impl struct {
	Name    string // benchmark label, e.g. "c-avx512"
	Closest func(dst *soa.Results, src *soa.Pairs)
}

// impls lists the peers this build and CPU can run; the peer files add
// themselves in init. variants are alternative versions of a peer that
// lost to the one in impls (kept for reference and tested for bits, but
// not in BenchmarkPeers).
var impls, variants []Impl

// Impls returns the peers this build and CPU can run.
func Impls() []Impl { return impls }

// Variants returns the slower alternatives of the peers in Impls.
func Variants() []Impl { return variants }

// checked returns the common length of src and dst, panicking on a
// mismatch (the same contract as kernel.BatchClosest).
func checked(dst *soa.Results, src *soa.Pairs) int {
	n := len(src.AX)
	for _, s := range [][]float32{src.AY, src.AZ, src.BX, src.BY, src.BZ,
		src.CX, src.CY, src.CZ, src.DX, src.DY, src.DZ, dst.S, dst.T, dst.Dist2} {
		if len(s) != n {
			panic("peers: slices of different lengths")
		}
	}
	return n
}
