package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"

	"github.com/segdist/segdist/soa"
)

// CanonicalNaNBits is the bit pattern every kernel writes to S, T and Dist2
// of a lane whose squared distance is not finite.
const CanonicalNaNBits = 0x7FC00000

// NonFinite returns the non-finite float32 values the tests inject: the
// canonical quiet NaN, a negative NaN, quiet NaNs with payloads, a
// signalling NaN, +Inf and -Inf. Whatever the payload or sign, the kernels
// must answer with the canonical NaN.
func NonFinite() []float32 {
	return []float32{
		math.Float32frombits(0x7FC00000),
		math.Float32frombits(0xFFC00000),
		math.Float32frombits(0x7FC12345),
		math.Float32frombits(0xFFFFFFFF),
		math.Float32frombits(0x7F800001), // signalling
		float32(math.Inf(1)),
		float32(math.Inf(-1)),
	}
}

// WithCoord returns p with coordinate i (0..11, Coords order) set to v.
func WithCoord(p soa.Pair, i int, v float32) soa.Pair {
	c := Coords(p)
	c[i] = v
	return FromCoords(c)
}

// GoldenSeed and GoldenPerCategory define the finite part of the golden
// batch.
const (
	GoldenSeed        = 0x5E6D157
	GoldenPerCategory = 64
)

// GoldenHash is the SHA-256 (HashResults) of the results of every kernel
// path on GoldenPairs. All paths on all platforms must produce it: it pins
// the exact IEEE-754 operation order of fallback.ClosestLane.
//
// If it changes, the operation order (or the NaN/clamp rule) of some path
// changed, and its results are no longer bit-identical to the other paths
// and platforms, which breaks the determinism contract (docs/design.md,
// "The spec's rules (determinism)"). Update it only together with fallback.ClosestLane, the generated
// assembly and every other path, in one change, on purpose. It also changes
// if the generators of this package change; then re-derive it with
// `go test ./fallback -run Golden -v`.
//
// History: b725c986... until clamp01 stopped returning -0 (parameters of
// -0 became +0); 1878e4d8... since.
const GoldenHash = "1a29d68ce3a87e6519d8d603b4bbf7f6d0609a43272fc851873d9c6d4a9f04ab"

// GoldenPairs returns the golden batch: Mixed(GoldenSeed, GoldenPerCategory)
// with, every 37th lane, one coordinate (cycling through all twelve)
// replaced by a value of NonFinite, and two finite lanes far beyond
// MaxRange whose squared distance overflows.
func GoldenPairs() []soa.Pair {
	ps := Mixed(GoldenSeed, GoldenPerCategory)
	nf := NonFinite()
	for k, i := 0, 5; i < len(ps); k, i = k+1, i+37 {
		ps[i] = WithCoord(ps[i], k%12, nf[k%len(nf)])
	}
	ps = append(ps,
		soa.Pair{A: [3]float32{3e38, 0, 0}, B: [3]float32{3e38, 1, 0}, C: [3]float32{-3e38, 0, 0}, D: [3]float32{-3e38, 0, 1}},
		soa.Pair{A: [3]float32{1e20, 1e20, 1e20}, B: [3]float32{1e20, 1e20, 1e20}, C: [3]float32{-1e20, -1e20, -1e20}, D: [3]float32{-1e20, -1e20, -1e20}},
	)
	return ps
}

// HashResults returns the hex SHA-256 of the little-endian bits of all of
// S, then all of T, then all of Dist2.
func HashResults(r *soa.Results) string {
	return HashSlices(r.S, r.T, r.Dist2)
}

// HashSlices is HashResults on three slices.
func HashSlices(s, t, dist2 []float32) string {
	h := sha256.New()
	var b [4]byte
	for _, xs := range [][]float32{s, t, dist2} {
		for _, x := range xs {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HashUint64s returns the hex SHA-256 of the little-endian bytes of xs.
func HashUint64s(xs []uint64) string {
	h := sha256.New()
	var b [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(b[:], x)
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}
