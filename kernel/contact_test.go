package kernel_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// Tests of the contact kernels: BatchClosestPoint (point-segment pairs),
// BatchContacts and CompactContacts (capsule pairs through IndexPairs),
// on every path. fallback.ClosestPointLane and fallback.ContactLane are
// the bit-exact specification; verify.CheckContact holds the contacts to
// the float64 reference and the exact oracle. Helpers here start with ct
// to stay clear of the other test files of this package.

// ctSeed seeds the contact tests.
const ctSeed = 0xC0FFEE

// ctSizes returns the batch sizes of the bit-identity sweeps: 0..hi and
// the extra sizes given.
func ctSizes(hi int, extra ...int) []int {
	var s []int
	for n := 0; n <= hi; n++ {
		s = append(s, n)
	}
	return append(s, extra...)
}

// ---- point-segment batches ----------------------------------------------

// ctPointSegments returns n point-segment pairs made from the verify pool
// (the point is A, the segment CD); every 5th segment has zero length, and
// when nanEvery > 0 every nanEvery-th lane gets a non-finite coordinate.
func ctPointSegments(seed uint64, n, nanEvery int) *soa.PointSegments {
	ps := soa.NewPointSegments(n)
	all := pool(seed, n)
	nf := verify.NonFinite()
	for i := range n {
		q := all[i]
		if i%5 == 3 {
			q.D = q.C
		}
		ps.Set(i, q.A, q.C, q.D)
		if nanEvery > 0 && i%nanEvery == nanEvery-1 {
			v := nf[i%len(nf)]
			switch (i / nanEvery) % 9 {
			case 0:
				ps.PX[i] = v
			case 1:
				ps.PY[i] = v
			case 2:
				ps.PZ[i] = v
			case 3:
				ps.CX[i] = v
			case 4:
				ps.CY[i] = v
			case 5:
				ps.CZ[i] = v
			case 6:
				ps.DX[i] = v
			case 7:
				ps.DY[i] = v
			default:
				ps.DZ[i] = v
			}
		}
	}
	return ps
}

// ctPointSlices returns the names of the eleven slices of a point batch
// and pointers to them, in the order of the length check of
// Kernel.BatchClosestPoint.
func ctPointSlices(src *soa.PointSegments, dst *soa.PointResults) ([]string, []*[]float32) {
	return []string{"src.PX", "src.PY", "src.PZ", "src.CX", "src.CY", "src.CZ", "src.DX", "src.DY", "src.DZ", "dst.T", "dst.Dist2"},
		[]*[]float32{&src.PX, &src.PY, &src.PZ, &src.CX, &src.CY, &src.CZ, &src.DX, &src.DY, &src.DZ, &dst.T, &dst.Dist2}
}

// ctPointLane returns ClosestPointLane of lane i of src.
func ctPointLane(src *soa.PointSegments, i int) (t, dist2 float32) {
	return fallback.ClosestPointLane(src.PX[i], src.PY[i], src.PZ[i], src.CX[i], src.CY[i], src.CZ[i], src.DX[i], src.DY[i], src.DZ[i])
}

// ctCheckPointBits fails t at the first lane where dst differs in any bit
// from ClosestPointLane.
func ctCheckPointBits(t *testing.T, what string, src *soa.PointSegments, dst *soa.PointResults) {
	t.Helper()
	for i := range src.Len() {
		wt, wd := ctPointLane(src, i)
		if math.Float32bits(dst.T[i]) != math.Float32bits(wt) || math.Float32bits(dst.Dist2[i]) != math.Float32bits(wd) {
			t.Fatalf("%s: lane %d of %d: T, Dist2 = %v, %v (bits %#08x %#08x), ClosestPointLane %v, %v (bits %#08x %#08x); P=(%v,%v,%v) C=(%v,%v,%v) D=(%v,%v,%v)",
				what, i, src.Len(), dst.T[i], dst.Dist2[i], math.Float32bits(dst.T[i]), math.Float32bits(dst.Dist2[i]),
				wt, wd, math.Float32bits(wt), math.Float32bits(wd),
				src.PX[i], src.PY[i], src.PZ[i], src.CX[i], src.CY[i], src.CZ[i], src.DX[i], src.DY[i], src.DZ[i])
		}
	}
}

// ctSeparatePoints copies src into eleven separate allocations starting
// off float32s into their arrays (nothing aligned, no padding).
func ctSeparatePoints(src *soa.PointSegments, off int) (*soa.PointSegments, *soa.PointResults) {
	n := src.Len()
	mk := func(from []float32) []float32 {
		s := make([]float32, n+off)[off:]
		copy(s, from)
		return s
	}
	ps := &soa.PointSegments{PX: mk(src.PX), PY: mk(src.PY), PZ: mk(src.PZ), CX: mk(src.CX), CY: mk(src.CY), CZ: mk(src.CZ),
		DX: mk(src.DX), DY: mk(src.DY), DZ: mk(src.DZ)}
	return ps, &soa.PointResults{T: mk(nil), Dist2: mk(nil)}
}

// TestBatchClosestPointBitIdentical runs BatchClosestPoint on every path
// for sizes 0..100 and 4095..4097 (every tail of both vector widths), with
// non-finite lanes mixed in, in soa.NewPointSegments storage and in
// separate unaligned slices: every lane must equal
// fallback.ClosestPointLane bit for bit, so every path equals "go".
func TestBatchClosestPointBitIdentical(t *testing.T) {
	sizes := ctSizes(100, 4095, 4096, 4097)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, n := range sizes {
			src := ctPointSegments(ctSeed+uint64(n), n, 11)
			dst := soa.NewPointResults(n)
			k.BatchClosestPoint(dst, src)
			ctCheckPointBits(t, fmt.Sprintf("n=%d", n), src, dst)
			if n%7 == 1 || n > 4000 {
				s2, d2 := ctSeparatePoints(src, 1+n%3)
				k.BatchClosestPoint(d2, s2)
				ctCheckPointBits(t, fmt.Sprintf("n=%d unaligned", n), s2, d2)
			}
		}
	})
	// The package-level function runs the active path.
	src := ctPointSegments(ctSeed, 333, 13)
	dst := soa.NewPointResults(src.Len())
	kernel.BatchClosestPoint(dst, src)
	ctCheckPointBits(t, "kernel.BatchClosestPoint", src, dst)
}

// TestBatchClosestPointLarge runs batches past the prefetch (16K lanes)
// and non-temporal-store (2^18 lanes) thresholds of the point-segment
// loops on every path, prefetching or not (asm.PrefetchInputs), in float32
// (aligned outputs and offset slices) and float64: every lane equals
// fallback.ClosestPointLane(64) bit for bit.
func TestBatchClosestPointLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large batches: skipped with -short")
	}
	const n = 1<<18 + 21
	src := ctPointSegments(ctSeed+7, n, 101)
	src64 := soa.NewPointSegments64(n)
	for i := range n {
		p, c, d := src.Get(i)
		src64.Set(i, widen(p), widen(c), widen(d))
	}
	forEachPrefetch(t, func(t *testing.T) {
		forEachPath(t, func(t *testing.T, k kernel.Kernel) {
			dst := soa.NewPointResults(n)
			k.BatchClosestPoint(dst, src)
			ctCheckPointBits(t, "aligned outputs", src, dst)
			s2, d2 := ctSeparatePoints(src, 3)
			k.BatchClosestPoint(d2, s2)
			ctCheckPointBits(t, "offset outputs", s2, d2)
			dst64 := soa.NewPointResults64(n)
			k.BatchClosestPoint64(dst64, src64)
			checkPoint64Bits(t, "float64", src64, dst64)
		})
	})
}

// widen converts a float32 point to float64 exactly.
func widen(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

// TestBatchClosestPointContract checks the documented results on every
// path: T in [0,1] and the distance within 8 eps32 x scale (+ AbsSlack) of
// the exact minimum for finite lanes, T = 0 and the exact float32 point
// distance for zero-length segments, the canonical NaN (0x7FC00000) in
// both outputs of every non-finite lane, and no effect of those lanes on
// the others (equal to a batch without them).
func TestBatchClosestPointContract(t *testing.T) {
	const n = 1500
	src := ctPointSegments(ctSeed+1, n, 7)
	clean := ctPointSegments(ctSeed+1, n, 0)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		dst, ref := soa.NewPointResults(n), soa.NewPointResults(n)
		k.BatchClosestPoint(dst, src)
		k.BatchClosestPoint(ref, clean)
		worst, nanLanes := 0.0, 0
		for i := range n {
			p := soa.Pair{A: [3]float32{src.PX[i], src.PY[i], src.PZ[i]}, C: [3]float32{src.CX[i], src.CY[i], src.CZ[i]},
				D: [3]float32{src.DX[i], src.DY[i], src.DZ[i]}}
			p.B = p.A
			if !verify.Finite(p) {
				nanLanes++
				if math.Float32bits(dst.T[i]) != verify.CanonicalNaNBits || math.Float32bits(dst.Dist2[i]) != verify.CanonicalNaNBits {
					t.Fatalf("lane %d (non-finite input %v): T, Dist2 bits %#08x %#08x, want the canonical NaN", i, p,
						math.Float32bits(dst.T[i]), math.Float32bits(dst.Dist2[i]))
				}
				continue
			}
			if math.Float32bits(dst.T[i]) != math.Float32bits(ref.T[i]) || math.Float32bits(dst.Dist2[i]) != math.Float32bits(ref.Dist2[i]) {
				t.Fatalf("lane %d: %v, %v with non-finite neighbours, %v, %v without", i, dst.T[i], dst.Dist2[i], ref.T[i], ref.Dist2[i])
			}
			if !(dst.T[i] >= 0 && dst.T[i] <= 1) || !(dst.Dist2[i] >= 0 && dst.Dist2[i] <= math.MaxFloat32) {
				t.Fatalf("lane %d (%v): T = %v, Dist2 = %v", i, p, dst.T[i], dst.Dist2[i])
			}
			if p.C == p.D {
				pc := [3]float32{p.A[0] - p.C[0], p.A[1] - p.C[1], p.A[2] - p.C[2]}
				want := float32(float32(pc[0]*pc[0])+float32(pc[1]*pc[1])) + float32(pc[2]*pc[2])
				if dst.T[i] != 0 || dst.Dist2[i] != want {
					t.Fatalf("lane %d, zero-length segment (%v): T, Dist2 = %v, %v; want 0, |P-C|^2 = %v", i, p, dst.T[i], dst.Dist2[i], want)
				}
			}
			if i%3 == 0 {
				e := verify.DistErr(float64(dst.Dist2[i]), verify.ExactMinDist2(p))
				if bound := 8*verify.Eps32*verify.Scale(p) + verify.AbsSlack; !(e <= bound) {
					t.Fatalf("lane %d (%v): distance error %.3g eps32 x scale > 8", i, p, verify.ErrEps(e, verify.Scale(p)))
				}
				worst = math.Max(worst, verify.ErrEps(math.Max(0, e-verify.AbsSlack), verify.Scale(p)))
			}
		}
		if nanLanes == 0 {
			t.Fatal("no non-finite lanes in the batch")
		}
		t.Logf("worst distance error %.3g eps32 x scale; %d non-finite lanes", worst, nanLanes)
	})
}

// TestBatchClosestPointLengthMismatch shortens and lengthens each of the
// eleven slices in turn: every path and the package-level function must
// panic, naming the slice, before writing anything.
func TestBatchClosestPointLengthMismatch(t *testing.T) {
	const n = 37
	const sentinel = float32(-7)
	entries := map[string]func(*soa.PointResults, *soa.PointSegments){"kernel.BatchClosestPoint": kernel.BatchClosestPoint}
	for _, isa := range paths(t) {
		entries[isa+".BatchClosestPoint"] = lookup(t, isa).BatchClosestPoint
	}
	for name, run := range entries {
		names, _ := ctPointSlices(soa.NewPointSegments(0), soa.NewPointResults(0))
		for i, sl := range names {
			for _, delta := range []int{-1, 1} {
				src := ctPointSegments(ctSeed, n+1, 0)
				dst := soa.NewPointResults(n + 1)
				for j := range dst.T {
					dst.T[j], dst.Dist2[j] = sentinel, sentinel
				}
				_, ptrs := ctPointSlices(src, dst)
				for j, p := range ptrs {
					if j == i {
						*p = (*p)[:n+delta]
					} else {
						*p = (*p)[:n]
					}
				}
				msg, ok := panicMessage(func() { run(dst, src) })
				if !ok {
					t.Fatalf("%s: len(%s) = %d, others %d: no panic", name, sl, n+delta, n)
				}
				if !strings.Contains(msg, sl) {
					t.Errorf("%s: len(%s) = %d: panic %q does not name %s", name, sl, n+delta, msg, sl)
				}
				for j := range n + 1 {
					if dst.T[:n+1][j] != sentinel || dst.Dist2[:n+1][j] != sentinel {
						t.Fatalf("%s: len(%s) = %d: dst written before the panic (lane %d)", name, sl, n+delta, j)
					}
				}
			}
		}
	}
}

// ---- capsule contacts -----------------------------------------------------

// ctContactFloats lists the floats of a contact, in the order of the
// Contacts streams.
func ctContactFloats(c fallback.Contact) [11]float32 {
	return [11]float32{c.Depth[0], c.Depth[1], c.Normal[0], c.Normal[1], c.Normal[2],
		c.Point[0][0], c.Point[0][1], c.Point[0][2], c.Point[1][0], c.Point[1][1], c.Point[1][2]}
}

// ctSameContact reports whether two rows are equal in every bit.
func ctSameContact(pa uint32, a fallback.Contact, pb uint32, b fallback.Contact) bool {
	if pa != pb || a.Count != b.Count {
		return false
	}
	fa, fb := ctContactFloats(a), ctContactFloats(b)
	for i := range fa {
		if math.Float32bits(fa[i]) != math.Float32bits(fb[i]) {
			return false
		}
	}
	return true
}

// ctSentinelPair and ctSentinel fill rows that must stay untouched.
const ctSentinelPair = 0xDEADBEEF

var ctSentinel = math.Float32frombits(0xC0DEFACE)

// ctFill sets every row of dst to the sentinel.
func ctFill(dst *soa.Contacts) {
	for k := range dst.Len() {
		dst.Pair[k], dst.Count[k] = ctSentinelPair, ctSentinelPair
	}
	for _, s := range ctFloatStreams(dst) {
		for k := range *s {
			(*s)[k] = ctSentinel
		}
	}
}

// ctUntouched returns the first row of dst from row from on that is not
// the sentinel in every stream, or -1.
func ctUntouched(dst *soa.Contacts, from int) int {
	for k := from; k < dst.Len(); k++ {
		if dst.Pair[k] != ctSentinelPair || dst.Count[k] != ctSentinelPair {
			return k
		}
		for _, s := range ctFloatStreams(dst) {
			if math.Float32bits((*s)[k]) != math.Float32bits(ctSentinel) {
				return k
			}
		}
	}
	return -1
}

// ctFloatStreams returns the eleven float streams of dst.
func ctFloatStreams(dst *soa.Contacts) []*[]float32 {
	return []*[]float32{&dst.Depth1, &dst.Depth2, &dst.NX, &dst.NY, &dst.NZ, &dst.P1X, &dst.P1Y, &dst.P1Z, &dst.P2X, &dst.P2Y, &dst.P2Z}
}

// ctDstNames names the thirteen streams of a Contacts in the order of the
// length check (ctReslice uses the same order).
var ctDstNames = []string{"dst.Pair", "dst.Count", "dst.Depth1", "dst.Depth2", "dst.NX", "dst.NY", "dst.NZ",
	"dst.P1X", "dst.P1Y", "dst.P1Z", "dst.P2X", "dst.P2Y", "dst.P2Z"}

// ctReslice sets the length of stream i (ctDstNames order) of dst to n.
func ctReslice(dst *soa.Contacts, i, n int) {
	switch i {
	case 0:
		dst.Pair = dst.Pair[:n]
	case 1:
		dst.Count = dst.Count[:n]
	default:
		s := ctFloatStreams(dst)[i-2]
		*s = (*s)[:n]
	}
}

// ctCapFields names the seven values of a capsule record, in the order
// of ctCapField.
var ctCapFields = []string{"A[0]", "A[1]", "A[2]", "B[0]", "B[1]", "B[2]", "R"}

// ctCapField returns the address of value f (ctCapFields) of capsule i.
func ctCapField(c soa.Capsules, i, f int) *float32 {
	switch {
	case f < 3:
		return &c[i].A[f]
	case f < 6:
		return &c[i].B[f-3]
	}
	return &c[i].R
}

// ctCapPad returns the address of capsule i's padding (the record's last
// four bytes, which no kernel may use).
func ctCapPad(c soa.Capsules, i int) *float32 {
	return &(*[8]float32)(unsafe.Pointer(&c[i]))[7]
}

// ctCapsulesIn returns the records held by the float32s f (8 per record,
// any 4-byte alignment).
func ctCapsulesIn(f []float32) soa.Capsules {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*soa.Capsule)(unsafe.Pointer(&f[0])), len(f)/8)
}

// ctScene returns nCaps random capsules and m random index pairs (repeats,
// swapped repeats and self pairs included). With bad, capsule 3 (if there
// is one) has a NaN coordinate and capsule 5 an infinite radius.
func ctScene(seed uint64, nCaps, m int, bad bool) (soa.Capsules, *soa.IndexPairs) {
	r := verify.NewRand(seed, 1)
	caps := verify.RandomCapsules(r, nCaps)
	if bad && nCaps > 5 {
		caps[3].A[1] = float32(math.NaN())
		caps[5].R = float32(math.Inf(1))
	}
	var pairs *soa.IndexPairs
	if nCaps > 0 {
		pairs = verify.RandomIndexPairs(r, nCaps, m)
	} else {
		pairs = soa.NewIndexPairs(0)
	}
	return caps, pairs
}

// ctSeparate copies a scene and a Contacts of rows rows into separate
// allocations starting off elements (4 bytes each; records too) into
// their arrays.
func ctSeparate(caps soa.Capsules, pairs *soa.IndexPairs, rows, off int) (soa.Capsules, *soa.IndexPairs, *soa.Contacts) {
	mkf := func(from []float32, n int) []float32 {
		s := make([]float32, n+off)[off:]
		copy(s, from)
		return s
	}
	mku := func(from []uint32, n int) []uint32 {
		s := make([]uint32, n+off)[off:]
		copy(s, from)
		return s
	}
	c := ctCapsulesIn(make([]float32, 8*caps.Len()+off)[off:])
	copy(c, caps)
	p := &soa.IndexPairs{I: mku(pairs.I, pairs.Len()), J: mku(pairs.J, pairs.Len())}
	d := &soa.Contacts{Pair: mku(nil, rows), Count: mku(nil, rows)}
	for _, s := range ctFloatStreams(d) {
		*s = mkf(nil, rows)
	}
	return c, p, d
}

// ctCheckBatch checks dst after BatchContacts: row k is pair k, equal bit
// for bit to verify.ContactOf (fallback.ContactLane).
func ctCheckBatch(t *testing.T, what string, dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) {
	t.Helper()
	if dst.Len() != pairs.Len() {
		t.Fatalf("%s: %d rows for %d pairs", what, dst.Len(), pairs.Len())
	}
	for k := range pairs.Len() {
		want := verify.ContactOf(caps, pairs, k, margin)
		gp, got := verify.ContactRow(dst, k)
		if !ctSameContact(gp, got, uint32(k), want) {
			t.Fatalf("%s: row %d of %d (capsules %d, %d): got Pair %d %+v, want Pair %d %+v (ContactOf)",
				what, k, pairs.Len(), pairs.I[k], pairs.J[k], gp, got, k, want)
		}
	}
}

// ctCheckCompact checks dst and the count n after CompactContacts on a
// dst filled with the sentinel: rows 0..n-1 are the touching pairs (Count
// > 0 in verify.ContactOf) in pair order, with Pair their index, bit for bit;
// the rows after them are untouched.
func ctCheckCompact(t *testing.T, what string, n int, dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) {
	t.Helper()
	row := 0
	for k := range pairs.Len() {
		want := verify.ContactOf(caps, pairs, k, margin)
		if want.Count == 0 {
			continue
		}
		if row >= n {
			t.Fatalf("%s: returned %d, but pair %d touches too (and maybe more)", what, n, k)
		}
		gp, got := verify.ContactRow(dst, row)
		if !ctSameContact(gp, got, uint32(k), want) {
			t.Fatalf("%s: row %d: got Pair %d %+v, want pair %d %+v", what, row, gp, got, k, want)
		}
		row++
	}
	if n != row {
		t.Fatalf("%s: returned %d, want %d touching pairs", what, n, row)
	}
	if k := ctUntouched(dst, n); k >= 0 {
		gp, got := verify.ContactRow(dst, k)
		t.Fatalf("%s: row %d after the %d written rows was modified: Pair %#x %+v", what, k, n, gp, got)
	}
}

// TestContactsBitIdentical runs BatchContacts and CompactContacts on every
// path for 0..70 and 4097 pairs (random scenes with repeated pairs, self
// pairs, a NaN capsule and an infinite radius) with margins 0 and 1/16:
// BatchContacts row k must be verify.ContactOf (fallback.ContactLane) of pair k bit for
// bit, with Pair k; CompactContacts must write exactly the touching pairs
// in pair order (Pair holding the pair index), return their count and
// leave the other rows alone. The same in separate unaligned slices, with
// a dst longer than needed for CompactContacts.
func TestContactsBitIdentical(t *testing.T) {
	sizes := ctSizes(70, 255, 4097)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		touching := 0
		for _, m := range sizes {
			caps, pairs := ctScene(ctSeed+uint64(m), max(1, m/2+3), m, true)
			for _, margin := range []float32{0, 0x1p-4} {
				what := fmt.Sprintf("m=%d margin=%v", m, margin)
				dst := soa.NewContacts(m)
				ctFill(dst)
				k.BatchContacts(dst, caps, pairs, margin)
				ctCheckBatch(t, "BatchContacts "+what, dst, caps, pairs, margin)

				cdst := soa.NewContacts(m)
				ctFill(cdst)
				n := k.CompactContacts(cdst, caps, pairs, margin)
				ctCheckCompact(t, "CompactContacts "+what, n, cdst, caps, pairs, margin)
				touching += n

				if m%5 == 2 || m > 100 {
					off := 1 + m%3
					sc, sp, sd := ctSeparate(caps, pairs, m, off)
					k.BatchContacts(sd, sc, sp, margin)
					ctCheckBatch(t, "BatchContacts unaligned "+what, sd, sc, sp, margin)
					sc, sp, sd = ctSeparate(caps, pairs, m+9, off)
					ctFill(sd)
					n := k.CompactContacts(sd, sc, sp, margin)
					ctCheckCompact(t, "CompactContacts unaligned, 9 spare rows "+what, n, sd, sc, sp, margin)
				}
			}
		}
		if touching == 0 {
			t.Fatal("no touching pairs in the sweep")
		}
	})
	// The package-level functions run the active path.
	caps, pairs := ctScene(ctSeed, 50, 200, true)
	dst := soa.NewContacts(pairs.Len())
	kernel.BatchContacts(dst, caps, pairs, 0.125)
	ctCheckBatch(t, "kernel.BatchContacts", dst, caps, pairs, 0.125)
	ctFill(dst)
	n := kernel.CompactContacts(dst, caps, pairs, 0.125)
	ctCheckCompact(t, "kernel.CompactContacts", n, dst, caps, pairs, 0.125)
}

// TestContactsAllPathsAgree compares every path with "go" directly, every
// field of every row with math.Float32bits, and the counts, on one large
// mixed scene: capsules from every adversarial category and random ones.
func TestContactsAllPathsAgree(t *testing.T) {
	ps := verify.MixedCapsulePairs(ctSeed, 40, 0x1p-6)
	caps, pairs := verify.SceneFromPairs(verify.NewRand(ctSeed, 2), ps)
	// Extra pairs across the scene: repeats, swaps, self pairs.
	extra := verify.RandomIndexPairs(verify.NewRand(ctSeed, 3), caps.Len(), 999)
	for k := range extra.Len() {
		pairs.Append(extra.I[k], extra.J[k])
	}
	m := pairs.Len()
	goK := lookup(t, "go")
	want, wantC := soa.NewContacts(m), soa.NewContacts(m)
	goK.BatchContacts(want, caps, pairs, 0x1p-6)
	ctFill(wantC)
	wantN := goK.CompactContacts(wantC, caps, pairs, 0x1p-6)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		got, gotC := soa.NewContacts(m), soa.NewContacts(m)
		k.BatchContacts(got, caps, pairs, 0x1p-6)
		ctFill(gotC)
		n := k.CompactContacts(gotC, caps, pairs, 0x1p-6)
		if n != wantN {
			t.Fatalf("CompactContacts returned %d, go %d", n, wantN)
		}
		for row := range m {
			for _, c := range []struct {
				name      string
				got, want *soa.Contacts
			}{{"BatchContacts", got, want}, {"CompactContacts", gotC, wantC}} {
				gp, g := verify.ContactRow(c.got, row)
				wp, w := verify.ContactRow(c.want, row)
				if !ctSameContact(gp, g, wp, w) {
					t.Fatalf("%s row %d: %d %+v, go %d %+v", c.name, row, gp, g, wp, w)
				}
			}
		}
	})
}

// TestContactsProperties checks, on every path, every contact of scenes
// built from every capsule category and margin with verify.CheckContact:
// Count against the float64 reference outside the threshold bands, depth
// within 8 eps32 x scale of exact arithmetic, unit normals, the normal's
// direction (from capsule J toward capsule I), points midway between the
// surfaces, and two-point manifolds against the reference. The worst
// measures are logged (-v).
func TestContactsProperties(t *testing.T) {
	per := 40
	if testing.Short() {
		per = 15
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		var depth, nlen, surf, pts float64
		counts := [3]int{}
		for mi, margin := range verify.CapsuleMargins {
			ps := verify.MixedCapsulePairs(ctSeed+uint64(mi), per, margin)
			caps, pairs := verify.SceneFromPairs(verify.NewRand(ctSeed, uint64(mi)), ps)
			dst := soa.NewContacts(pairs.Len())
			k.BatchContacts(dst, caps, pairs, margin)
			for row := range pairs.Len() {
				p := verify.PairAt(caps, pairs, row)
				if p != ps[row] {
					t.Fatalf("SceneFromPairs: pair %d is %v, want %v", row, p, ps[row])
				}
				_, c := verify.ContactRow(dst, row)
				rep := verify.CheckContact(p, margin, c, row%3 == 0)
				if !rep.OK() {
					t.Fatalf("row %d, %s margin=%v (category %s): %v\n  got %+v", row, p, margin,
						verify.CapsuleCategories()[row/per].Name, rep.Problems, c)
				}
				counts[min(c.Count, 2)]++
				for _, w := range []struct {
					dst *float64
					v   float64
				}{{&depth, rep.DepthErr}, {&nlen, rep.NormalLen}, {&surf, rep.SurfaceErr}, {&pts, rep.PointErr}} {
					if !math.IsNaN(w.v) {
						*w.dst = math.Max(*w.dst, w.v)
					}
				}
			}
		}
		t.Logf("Count 0/1/2: %v; worst: depth %.3g eps32 x scale, | |n|-1 | %.3g eps32, surface %.3g, manifold points %.3g",
			counts, depth, nlen, surf, pts)
		if counts[0] == 0 || counts[1] == 0 || counts[2] == 0 {
			t.Errorf("Count 0/1/2 = %v: the scenes must reach every count", counts)
		}
	})
}

// TestContactsDocumentedCases runs exactly representable cases through
// every path: two spheres (normal from J toward I, depth, midway point),
// crossing axes (the cross product (0,0,1)), coincident sphere centres
// ((0,0,1)), and stacked capsules (Count 2, points at the ends of the
// overlap).
func TestContactsDocumentedCases(t *testing.T) {
	caps := soa.NewCapsules(0)
	caps.Append([3]float32{0, 0, 0}, [3]float32{0, 0, 0}, 1)     // 0: sphere
	caps.Append([3]float32{1.5, 0, 0}, [3]float32{1.5, 0, 0}, 1) // 1: sphere 1.5 away
	caps.Append([3]float32{-1, 0, 0}, [3]float32{1, 0, 0}, 0.5)  // 2: along x
	caps.Append([3]float32{0, -1, 0}, [3]float32{0, 1, 0}, 0.25) // 3: along y, crossing 2
	caps.Append([3]float32{0, 1, 0}, [3]float32{4, 1, 0}, 0.5)   // 4: stacked on 5
	caps.Append([3]float32{1, 0, 0}, [3]float32{9, 0, 0}, 0.75)  // 5
	caps.Append([3]float32{0, 0, 0}, [3]float32{0, 0, 0}, 0.5)   // 6: same centre as 0
	pairs := soa.NewIndexPairs(0)
	type want struct {
		count  uint32
		depth  [2]float32
		normal [3]float32
		points [2][3]float32
	}
	cases := []struct {
		i, j uint32
		w    want
	}{
		{0, 1, want{1, [2]float32{0.5, 0.5}, [3]float32{-1, 0, 0}, [2][3]float32{{0.75, 0, 0}, {0.75, 0, 0}}}},
		{1, 0, want{1, [2]float32{0.5, 0.5}, [3]float32{1, 0, 0}, [2][3]float32{{0.75, 0, 0}, {0.75, 0, 0}}}},
		{2, 3, want{1, [2]float32{0.75, 0.75}, [3]float32{0, 0, 1}, [2][3]float32{{0, 0, -0.125}, {0, 0, -0.125}}}},
		{3, 2, want{1, [2]float32{0.75, 0.75}, [3]float32{0, 0, -1}, [2][3]float32{{0, 0, -0.125}, {0, 0, -0.125}}}},
		{4, 5, want{2, [2]float32{0.25, 0.25}, [3]float32{0, 1, 0}, [2][3]float32{{1, 0.625, 0}, {4, 0.625, 0}}}},
		{0, 6, want{1, [2]float32{1.5, 1.5}, [3]float32{0, 0, 1}, [2][3]float32{{0, 0, -0.25}, {0, 0, -0.25}}}},
		{2, 1, want{1, [2]float32{1, 1}, [3]float32{-1, 0, 0}, [2][3]float32{{1, 0, 0}, {1, 0, 0}}}},
		{3, 1, want{0, [2]float32{-0.25, -0.25}, [3]float32{-1, 0, 0}, [2][3]float32{{0.375, 0, 0}, {0.375, 0, 0}}}},
	}
	for _, c := range cases {
		pairs.Append(c.i, c.j)
	}
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		dst := soa.NewContacts(pairs.Len())
		k.BatchContacts(dst, caps, pairs, 0)
		for row, c := range cases {
			_, got := verify.ContactRow(dst, row)
			w := c.w
			pts := got.Point
			if w.count == 2 && pts[0] == w.points[1] && pts[1] == w.points[0] {
				pts[0], pts[1] = pts[1], pts[0] // either end first
			}
			if got.Count != w.count || got.Depth != w.depth || got.Normal != w.normal || pts != w.points {
				t.Errorf("pair (%d, %d): %+v; want %+v", c.i, c.j, got, w)
			}
		}
	})
}

// TestContactsNonFiniteLanes puts a NaN, then an Inf, into each of the
// seven values of one capsule in turn: on every path, the rows
// of pairs that use it (as I, as J or both) are Count 0 with the
// canonical NaN everywhere; every other row is unaffected (it equals
// GatherContact, which sees only its own capsules); CompactContacts skips
// the bad rows.
func TestContactsNonFiniteLanes(t *testing.T) {
	const nCaps, m = 40, 150
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for s := range 7 {
			for _, v := range verify.NonFinite() {
				caps, pairs := ctScene(ctSeed+uint64(s), nCaps, m, false)
				const bad = 17
				*ctCapField(caps, bad, s) = v
				pairs.Append(bad, bad)
				pairs.Append(bad, 0)
				pairs.Append(1, bad)
				dst := soa.NewContacts(pairs.Len())
				k.BatchContacts(dst, caps, pairs, 0.5)
				what := fmt.Sprintf("caps[%d].%s = %v", bad, ctCapFields[s], v)
				ctCheckBatch(t, what, dst, caps, pairs, 0.5)
				used := 0
				for row := range pairs.Len() {
					if pairs.I[row] != bad && pairs.J[row] != bad {
						continue
					}
					used++
					if _, c := verify.ContactRow(dst, row); !verify.IsNaNContact(c) {
						t.Fatalf("%s: row %d uses capsule %d but is %+v, want Count 0 and the canonical NaN", what, row, bad, c)
					}
				}
				if used < 3 {
					t.Fatalf("%s: only %d rows use the bad capsule", what, used)
				}
				cdst := soa.NewContacts(pairs.Len())
				ctFill(cdst)
				n := k.CompactContacts(cdst, caps, pairs, 0.5)
				ctCheckCompact(t, what, n, cdst, caps, pairs, 0.5)
			}
		}
	})
}

// TestContactsIgnorePadding fills every record's padding with NaN, then
// with an infinity: the padding is loaded with the record on every path
// but must not reach any lane, so every row equals the specification
// (which never reads it).
func TestContactsIgnorePadding(t *testing.T) {
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, v := range verify.NonFinite() {
			caps, pairs := ctScene(ctSeed, 40, 150, false)
			for i := range caps {
				*ctCapPad(caps, i) = v
			}
			what := fmt.Sprintf("padding %v", v)
			dst := soa.NewContacts(pairs.Len())
			k.BatchContacts(dst, caps, pairs, 0.5)
			ctCheckBatch(t, what, dst, caps, pairs, 0.5)
			ctFill(dst)
			n := k.CompactContacts(dst, caps, pairs, 0.5)
			ctCheckCompact(t, what, n, dst, caps, pairs, 0.5)
		}
	})
}

// ctEntry is one contact entry point under test.
type ctEntry struct {
	name    string
	compact bool
	run     func(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32)
}

// ctEntries returns BatchContacts and CompactContacts of every path and
// of the package.
func ctEntries(t *testing.T) []ctEntry {
	es := []ctEntry{
		{"kernel.BatchContacts", false, kernel.BatchContacts},
		{"kernel.CompactContacts", true, func(d *soa.Contacts, c soa.Capsules, p *soa.IndexPairs, m float32) {
			kernel.CompactContacts(d, c, p, m)
		}},
	}
	for _, isa := range paths(t) {
		k := lookup(t, isa)
		es = append(es,
			ctEntry{isa + ".BatchContacts", false, k.BatchContacts},
			ctEntry{isa + ".CompactContacts", true, func(d *soa.Contacts, c soa.Capsules, p *soa.IndexPairs, m float32) { k.CompactContacts(d, c, p, m) }})
	}
	return es
}

// TestContactsIndexOutOfRange puts an index equal to the number of
// capsules, one more, 2^31 and 2^32-1 at the first, a middle and the last
// position of I and of J: every entry point must panic with a message
// naming the slice and the position (pairs.I[k] = v) before writing
// anything to dst. No capsules at all with one pair panics too.
func TestContactsIndexOutOfRange(t *testing.T) {
	const nCaps, m = 20, 33
	for _, e := range ctEntries(t) {
		for _, which := range []string{"I", "J"} {
			for _, pos := range []int{0, m / 2, m - 1} {
				for _, v := range []uint32{nCaps, nCaps + 1, 1 << 31, math.MaxUint32} {
					caps, pairs := ctScene(ctSeed, nCaps, m, false)
					idx := pairs.I
					if which == "J" {
						idx = pairs.J
					}
					idx[pos] = v
					dst := soa.NewContacts(m)
					ctFill(dst)
					msg, ok := panicMessage(func() { e.run(dst, caps, pairs, 0.25) })
					want := fmt.Sprintf("pairs.%s[%d] = %d", which, pos, v)
					if !ok || !strings.Contains(msg, want) {
						t.Fatalf("%s: %s: panicked %v with %q, want a message containing %q", e.name, want, ok, msg, want)
					}
					if k := ctUntouched(dst, 0); k >= 0 {
						t.Fatalf("%s: %s: row %d written before the panic", e.name, want, k)
					}
				}
			}
		}
		pairs := soa.NewIndexPairs(0)
		pairs.Append(0, 0)
		dst := soa.NewContacts(1)
		if msg, ok := panicMessage(func() { e.run(dst, soa.NewCapsules(0), pairs, 0) }); !ok || !strings.Contains(msg, "pairs.I[0] = 0") {
			t.Errorf("%s: no capsules, one pair: panicked %v with %q", e.name, ok, msg)
		}
	}
}

// TestContactsLengthMismatch shortens and lengthens pairs.J and each dst
// stream in turn: every entry point must panic naming the slice, before
// writing anything. CompactContacts accepts a longer dst (rows beyond the
// pairs are spare), so only a shorter one panics there. Empty inputs run
// without panicking. (The capsules are one slice of records: their only
// length check is the index range, TestContactsIndexOutOfRange.)
func TestContactsLengthMismatch(t *testing.T) {
	const nCaps, m = 20, 37
	caps, pairs := ctScene(ctSeed, nCaps, m+1, false)
	for _, e := range ctEntries(t) {
		// full holds m+1 rows of sentinel; each run sees views of it.
		full := soa.NewContacts(m + 1)
		run := func(what, name string, jLen int, dstLen [13]int, wantPanic bool) {
			t.Helper()
			ctFill(full)
			p := soa.IndexPairs{I: pairs.I[:m], J: pairs.J[:jLen]}
			d := *full
			for i := range ctDstNames {
				ctReslice(&d, i, dstLen[i])
			}
			msg, ok := panicMessage(func() { e.run(&d, caps, &p, 0) })
			if ok != wantPanic || (ok && !strings.Contains(msg, name)) {
				t.Fatalf("%s: %s: panicked %v with %q; want panic %v naming %s", e.name, what, ok, msg, wantPanic, name)
			}
			if k := ctUntouched(full, 0); ok && k >= 0 {
				t.Fatalf("%s: %s: row %d written before the panic", e.name, what, k)
			}
		}
		var dstLen [13]int
		reset := func() {
			for i := range dstLen {
				dstLen[i] = m
			}
		}
		for _, delta := range []int{-1, 1} {
			reset()
			run(fmt.Sprintf("len(pairs.J) = %d", m+delta), "pairs.J", m+delta, dstLen, true)
			for i, name := range ctDstNames {
				reset()
				dstLen[i] = m + delta
				run(fmt.Sprintf("len(%s) = %d", name, m+delta), name, m, dstLen, !e.compact || delta < 0)
			}
		}
		reset()
		run("matching lengths", "", m, dstLen, false)
		// Empty scenes and nil slices are fine.
		if msg, ok := panicMessage(func() { e.run(&soa.Contacts{}, nil, &soa.IndexPairs{}, 0) }); ok {
			t.Errorf("%s: empty input panicked: %s", e.name, msg)
		}
		if msg, ok := panicMessage(func() { e.run(soa.NewContacts(0), caps, soa.NewIndexPairs(0), 0) }); ok {
			t.Errorf("%s: no pairs panicked: %s", e.name, msg)
		}
	}
}

// TestContactsMargin checks the margin rule on every entry point: NaN,
// negative (down to the negative subnormal) and infinite margins panic
// with a message about the margin before anything is written; zero, -0,
// the smallest subnormal and MaxFloat32 are accepted.
func TestContactsMargin(t *testing.T) {
	caps, pairs := ctScene(ctSeed, 20, 30, false)
	bad := []float32{float32(math.NaN()), math.Float32frombits(0xFFC00000), -1, -math.SmallestNonzeroFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1))}
	good := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, 1, math.MaxFloat32}
	for _, e := range ctEntries(t) {
		for _, margin := range bad {
			dst := soa.NewContacts(pairs.Len())
			ctFill(dst)
			msg, ok := panicMessage(func() { e.run(dst, caps, pairs, margin) })
			if !ok || !strings.Contains(msg, "margin") {
				t.Errorf("%s: margin %v: panicked %v with %q, want a message about the margin", e.name, margin, ok, msg)
			}
			if k := ctUntouched(dst, 0); k >= 0 {
				t.Errorf("%s: margin %v: row %d written before the panic", e.name, margin, k)
			}
		}
		for _, margin := range good {
			dst := soa.NewContacts(pairs.Len())
			if msg, ok := panicMessage(func() { e.run(dst, caps, pairs, margin) }); ok {
				t.Errorf("%s: margin %v panicked: %s", e.name, margin, msg)
			}
		}
	}
	// A margin of MaxFloat32 makes every finite pair touch.
	dst := soa.NewContacts(pairs.Len())
	if n := kernel.CompactContacts(dst, caps, pairs, math.MaxFloat32); n != pairs.Len() {
		t.Errorf("margin MaxFloat32: %d of %d pairs touch", n, pairs.Len())
	}
}

// TestContactsNoAllocs checks that no entry point allocates: the package
// functions and every path's BatchClosestPoint, BatchContacts and
// CompactContacts.
func TestContactsNoAllocs(t *testing.T) {
	caps, pairs := ctScene(ctSeed, 200, 1000, false)
	dst := soa.NewContacts(pairs.Len())
	src := ctPointSegments(ctSeed, 1000, 0)
	res := soa.NewPointResults(src.Len())
	check := func(name string, f func()) {
		t.Helper()
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations per run", name, a)
		}
	}
	check("kernel.BatchClosestPoint", func() { kernel.BatchClosestPoint(res, src) })
	check("kernel.BatchContacts", func() { kernel.BatchContacts(dst, caps, pairs, 0.1) })
	check("kernel.CompactContacts", func() { kernel.CompactContacts(dst, caps, pairs, 0.1) })
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		check("BatchClosestPoint", func() { k.BatchClosestPoint(res, src) })
		check("BatchContacts", func() { k.BatchContacts(dst, caps, pairs, 0.1) })
		check("CompactContacts", func() { k.CompactContacts(dst, caps, pairs, 0.1) })
	})
}

// ---- fuzzing --------------------------------------------------------------

// ctFuzzBatch is the number of pairs of the fuzz batches; the fuzzed pair
// sits at ctFuzzRows (first row, inside and at the end of 8- and 16-lane
// groups, last row: a masked tail on both widths), the others are
// ordinary pairs.
const ctFuzzBatch = 39

var ctFuzzRows = []int{0, 7, 13, 15, 16, 31, 38}

// ctFuzzScene returns a scene whose capsules 0 and 1 are the fuzzed pair
// and whose pairs put (0, 1) at ctFuzzRows, (1, 0) and (0, 0) elsewhere
// among random pairs of the other capsules.
func ctFuzzScene(p verify.CapsulePair) (soa.Capsules, *soa.IndexPairs) {
	caps, _ := ctScene(ctSeed, 30, 0, false)
	caps.Set(0, p.C1.A, p.C1.B, p.C1.R)
	caps.Set(1, p.C2.A, p.C2.B, p.C2.R)
	r := verify.NewRand(ctSeed, 9)
	pairs := soa.NewIndexPairs(ctFuzzBatch)
	for k := range ctFuzzBatch {
		pairs.I[k], pairs.J[k] = uint32(2+r.IntN(28)), uint32(2+r.IntN(28))
	}
	for _, k := range ctFuzzRows {
		pairs.I[k], pairs.J[k] = 0, 1
	}
	pairs.I[20], pairs.J[20] = 1, 0
	pairs.I[21], pairs.J[21] = 0, 0
	pairs.I[22], pairs.J[22] = 1, 1
	return caps, pairs
}

// FuzzContact fuzzes two capsules and the margin.
//   - Every path's BatchContacts and CompactContacts on a batch holding
//     the pair at several rows (and swapped, and each capsule against
//     itself) give fallback.ContactLane's bits, with the right Pair and
//     count; a margin that is negative, NaN or infinite panics instead.
//   - Non-finite input: Count 0 and the canonical NaN everywhere.
//   - Finite input with every |coordinate|, radius and the margin at most
//     1e6 and radii >= 0: verify.CheckContact passes (finite outputs,
//     Count vs the reference outside the threshold bands, depth vs exact,
//     unit normal, direction, midway points, manifold).
func FuzzContact(f *testing.F) {
	add := func(p verify.CapsulePair, margin float32) {
		f.Add(p.C1.A[0], p.C1.A[1], p.C1.A[2], p.C1.B[0], p.C1.B[1], p.C1.B[2], p.C1.R,
			p.C2.A[0], p.C2.A[1], p.C2.A[2], p.C2.B[0], p.C2.B[1], p.C2.B[2], p.C2.R, margin)
	}
	for k, cat := range verify.CapsuleCategories() {
		r := verify.NewRand(ctSeed, 500+uint64(k))
		add(cat.Gen(r, 0), 0)
		add(cat.Gen(r, 0x1p-6), 0x1p-6)
	}
	type v3 = [3]float32
	cp := func(a, b v3, r1 float32, c, d v3, r2 float32) verify.CapsulePair {
		return verify.CapsulePair{C1: verify.Capsule{A: a, B: b, R: r1}, C2: verify.Capsule{A: c, B: d, R: r2}}
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	sub := math.Float32frombits(1)
	for _, s := range []struct {
		p      verify.CapsulePair
		margin float32
	}{
		{cp(v3{}, v3{}, 0, v3{}, v3{}, 0), 0},                                             // all zero
		{cp(v3{0, 0, 0}, v3{0, 0, 0}, 1, v3{1.5, 0, 0}, v3{1.5, 0, 0}, 1), 0},             // two spheres
		{cp(v3{1, 2, 3}, v3{1, 2, 3}, 1, v3{1, 2, 3}, v3{1, 2, 3}, 1), 0},                 // coincident centres
		{cp(v3{-1, 0, 0}, v3{1, 0, 0}, 0.5, v3{0, -1, 0}, v3{0, 1, 0}, 0.25), 0},          // crossing axes
		{cp(v3{0, 0, 0}, v3{2, 0, 0}, 0.5, v3{1, 0, 0}, v3{3, 0, 0}, 0.5), 0},             // collinear overlap
		{cp(v3{0, 1, 0}, v3{4, 1, 0}, 0.5, v3{1, 0, 0}, v3{9, 0, 0}, 0.75), 0},            // stacked: two points
		{cp(v3{0, 1, 0}, v3{1, 1, 0}, 0.5, v3{1, 0, 0}, v3{2, 0, 0}, 0.5), 0},             // end to end
		{cp(v3{0, 1, 0}, v3{4, 1.04, 0}, 0.5, v3{0, 0, 0}, v3{4, 0, 0}, 0.5), 0},          // tilt near the tolerance
		{cp(v3{0, 0, 0}, v3{1, 0, 0}, 0.5, v3{0, 1, 0}, v3{1, 1, 0}, 0.5), 0},             // exactly touching
		{cp(v3{0, 0, 0}, v3{1, 0, 0}, 0.25, v3{0, 1, 0}, v3{1, 1, 0}, 0.25), 0.5},         // touching through the margin
		{cp(v3{0, 1, 0}, v3{1, 1, 0}, 0.5, v3{0, 0, 0}, v3{0, 0, 1e-21}, 0.5), 0},         // tiny axis
		{cp(v3{sub, 0, 0}, v3{0, sub, 0}, sub, v3{0, 0, sub}, v3{sub, sub, sub}, 0), sub}, // subnormal
		{cp(v3{1e6, 1e6, -1e6}, v3{-1e6, 1e6, 1e6}, 1e6, v3{1e6, -1e6, 1e6}, v3{1e6, 1e6, 1e6}, 1e6), 1e6},
		{cp(v3{1e4, 1e4, 1e4}, v3{1e4 + 1, 1e4, 1e4}, 0.5, v3{1e4, 1e4 + 1, 1e4}, v3{1e4 + 1, 1e4 + 1, 1e4}, 0.5), 0},
		{cp(v3{nan, 0, 0}, v3{1, 0, 0}, 1, v3{0, 1, 0}, v3{1, 1, 0}, 1), 0},                        // NaN coordinate
		{cp(v3{0, 0, 0}, v3{1, 0, 0}, inf, v3{0, 1, 0}, v3{1, 1, 0}, 1), 0},                        // infinite radius
		{cp(v3{0, 0, 0}, v3{1, 0, 0}, 1, v3{0, 1, 0}, v3{1, 1, 0}, 1), nan},                        // NaN margin: panics
		{cp(v3{0, 0, 0}, v3{1, 0, 0}, 1, v3{0, 1, 0}, v3{1, 1, 0}, 1), -1},                         // negative margin: panics
		{cp(v3{0, 0, 0}, v3{1, 0, 0}, -1, v3{0, 1, 0}, v3{1, 1, 0}, 0.5), 0},                       // negative radius
		{cp(v3{0, 0, 0}, v3{2e19, 0, 0}, 5e18, v3{5e18, 2.5e18, 0}, v3{2e19, 2.5e18, 0}, 5e18), 0}, // beyond 1e18
	} {
		add(s.p, s.margin)
	}
	f.Fuzz(func(t *testing.T, ax, ay, az, bx, by, bz, r1, cx, cy, cz, dx, dy, dz, r2, margin float32) {
		p := verify.CapsulePair{C1: verify.Capsule{A: [3]float32{ax, ay, az}, B: [3]float32{bx, by, bz}, R: r1},
			C2: verify.Capsule{A: [3]float32{cx, cy, cz}, B: [3]float32{dx, dy, dz}, R: r2}}
		caps, pairs := ctFuzzScene(p)
		validMargin := margin >= 0 && margin <= math.MaxFloat32
		for _, isa := range paths(t) {
			k := lookup(t, isa)
			dst := soa.NewContacts(pairs.Len())
			if !validMargin {
				if _, ok := panicMessage(func() { k.BatchContacts(dst, caps, pairs, margin) }); !ok {
					t.Fatalf("%s: margin %v did not panic", isa, margin)
				}
				continue
			}
			k.BatchContacts(dst, caps, pairs, margin)
			ctCheckBatch(t, isa+".BatchContacts", dst, caps, pairs, margin)
			cdst := soa.NewContacts(pairs.Len())
			ctFill(cdst)
			n := k.CompactContacts(cdst, caps, pairs, margin)
			ctCheckCompact(t, isa+".CompactContacts", n, cdst, caps, pairs, margin)
		}
		if !validMargin {
			return
		}
		c := p.Lane(margin)
		if !verify.Finite(p.Axes()) || math.IsNaN(float64(r1)) || math.IsInf(float64(r1), 0) || math.IsNaN(float64(r2)) || math.IsInf(float64(r2), 0) {
			if !verify.IsNaNContact(c) {
				t.Fatalf("non-finite input %s: %+v, want Count 0 and the canonical NaN everywhere", p, c)
			}
			return
		}
		if verify.ContactScale(p, margin) > 1e6 || r1 < 0 || r2 < 0 {
			return
		}
		for _, q := range []verify.CapsulePair{p, p.Swap()} {
			if rep := verify.CheckContact(q, margin, q.Lane(margin), true); !rep.OK() {
				t.Fatalf("%s margin=%v: %v\n  got %+v", q, margin, rep.Problems, q.Lane(margin))
			}
		}
	})
}

// FuzzClosestPoint fuzzes one point-segment pair.
//   - Every path's BatchClosestPoint, with the pair at several lanes of a
//     batch of ordinary pairs, gives fallback.ClosestPointLane's bits.
//   - Non-finite input: both outputs the canonical NaN.
//   - Finite input within 1e18: T in [0,1], a finite Dist2 within 8 eps32
//     x scale (+ AbsSlack) of ReferenceClosestPoint, and T = 0 with the
//     float32 |P-C|^2 when C = D.
func FuzzClosestPoint(f *testing.F) {
	add := func(p, c, d [3]float32) { f.Add(p[0], p[1], p[2], c[0], c[1], c[2], d[0], d[1], d[2]) }
	for _, q := range verify.Mixed(ctSeed, 1) {
		add(q.A, q.C, q.D)
	}
	type v3 = [3]float32
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	sub := math.Float32frombits(1)
	big := float32(verify.MaxRange)
	for _, s := range [][3]v3{
		{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}},     // all equal
		{{2, 3, 0}, {0, 0, 0}, {4, 0, 0}},     // interior
		{{-3, 4, 0}, {0, 0, 0}, {4, 0, 0}},    // clamped to C
		{{7, 0, 4}, {0, 0, 0}, {4, 0, 0}},     // clamped to D
		{{0, 1, 0}, {0, 0, 0}, {1e-21, 0, 0}}, // tiny segment
		{{sub, 0, sub}, {0, sub, 0}, {sub, sub, sub}},
		{{big, -big, big}, {-big, big, -big}, {big, big, big}},
		{{3e38, 0, 0}, {-3e38, 0, 0}, {-3e38, 1, 0}}, // overflow
		{{nan, 0, 0}, {0, 0, 0}, {1, 0, 0}},
		{{0, 0, 0}, {0, inf, 0}, {1, 0, 0}},
	} {
		add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, px, py, pz, cx, cy, cz, dx, dy, dz float32) {
		src := ctPointSegments(ctSeed, ctFuzzBatch, 0)
		for _, i := range ctFuzzRows {
			src.Set(i, [3]float32{px, py, pz}, [3]float32{cx, cy, cz}, [3]float32{dx, dy, dz})
		}
		for _, isa := range paths(t) {
			dst := soa.NewPointResults(src.Len())
			lookup(t, isa).BatchClosestPoint(dst, src)
			ctCheckPointBits(t, isa, src, dst)
		}
		tt, d2 := fallback.ClosestPointLane(px, py, pz, cx, cy, cz, dx, dy, dz)
		p := soa.Pair{A: [3]float32{px, py, pz}, B: [3]float32{px, py, pz}, C: [3]float32{cx, cy, cz}, D: [3]float32{dx, dy, dz}}
		if !verify.Finite(p) {
			if math.Float32bits(tt) != verify.CanonicalNaNBits || math.Float32bits(d2) != verify.CanonicalNaNBits {
				t.Fatalf("non-finite %v: %#08x %#08x, want the canonical NaN", p, math.Float32bits(tt), math.Float32bits(d2))
			}
			return
		}
		if verify.Scale(p) > verify.MaxRange {
			return
		}
		if !(tt >= 0 && tt <= 1) || !(d2 >= 0 && d2 <= math.MaxFloat32) {
			t.Fatalf("%v: T = %v, Dist2 = %v", p, tt, d2)
		}
		w := func(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }
		_, rd2 := fallback.ReferenceClosestPoint(w(p.A), w(p.C), w(p.D))
		if e := math.Abs(math.Sqrt(float64(d2)) - math.Sqrt(rd2)); e > 8*verify.Eps32*verify.Scale(p)+verify.AbsSlack {
			t.Fatalf("%v: distance %v, reference %v: error %.3g eps32 x scale", p, math.Sqrt(float64(d2)), math.Sqrt(rd2), verify.ErrEps(e, verify.Scale(p)))
		}
		if p.C == p.D {
			e := [3]float32{px - cx, py - cy, pz - cz}
			if want := float32(float32(e[0]*e[0])+float32(e[1]*e[1])) + float32(e[2]*e[2]); tt != 0 || d2 != want {
				t.Fatalf("%v, zero-length segment: T, Dist2 = %v, %v; want 0, %v", p, tt, d2, want)
			}
		}
	})
}

// ---- examples ---------------------------------------------------------------

// Two spheres of radius 1 whose centres are 1.5 apart on the x axis, as
// point-segment pairs: the centre of one against the zero-length axis of
// the other, and against a capsule axis from (1.5, -1, 0) to (1.5, 1, 0).
func ExampleBatchClosestPoint() {
	src := soa.NewPointSegments(2)
	src.Set(0, [3]float32{0, 0, 0}, [3]float32{1.5, 0, 0}, [3]float32{1.5, 0, 0})
	src.Set(1, [3]float32{0, 0.5, 0}, [3]float32{1.5, -1, 0}, [3]float32{1.5, 1, 0})
	dst := soa.NewPointResults(src.Len())
	kernel.BatchClosestPoint(dst, src)
	for i := range dst.Len() {
		fmt.Printf("pair %d: t=%v dist2=%v\n", i, dst.T[i], dst.Dist2[i])
	}
	// Output:
	// pair 0: t=0 dist2=2.25
	// pair 1: t=0.75 dist2=2.25
}

// Two spheres of radius 1 with centres 1.5 apart overlap by 0.5; the
// contact point lies midway between the surfaces and the normal points
// from capsule J toward capsule I. A capsule lying on a longer one gets a
// two-point manifold.
func ExampleBatchContacts() {
	caps := soa.NewCapsules(0)
	caps.Append([3]float32{0, 0, 0}, [3]float32{0, 0, 0}, 1)     // 0: sphere
	caps.Append([3]float32{1.5, 0, 0}, [3]float32{1.5, 0, 0}, 1) // 1: sphere
	caps.Append([3]float32{0, 1, 5}, [3]float32{4, 1, 5}, 0.5)   // 2: capsule
	caps.Append([3]float32{1, 0, 5}, [3]float32{9, 0, 5}, 0.75)  // 3: capsule under it
	pairs := soa.NewIndexPairs(0)
	pairs.Append(0, 1)
	pairs.Append(2, 3)
	dst := soa.NewContacts(pairs.Len())
	kernel.BatchContacts(dst, caps, pairs, 0)
	for k := range dst.Len() {
		fmt.Printf("pair %d: count=%d depth=%v normal=(%v,%v,%v) p1=(%v,%v,%v) p2=(%v,%v,%v)\n",
			dst.Pair[k], dst.Count[k], dst.Depth1[k], dst.NX[k], dst.NY[k], dst.NZ[k],
			dst.P1X[k], dst.P1Y[k], dst.P1Z[k], dst.P2X[k], dst.P2Y[k], dst.P2Z[k])
	}
	// Output:
	// pair 0: count=1 depth=0.5 normal=(-1,0,0) p1=(0.75,0,0) p2=(0.75,0,0)
	// pair 1: count=2 depth=0.25 normal=(0,1,0) p1=(1,0.625,5) p2=(4,0.625,5)
}

// CompactContacts keeps the touching pairs only, in pair order, with the
// index of each pair.
func ExampleCompactContacts() {
	caps := soa.NewCapsules(0)
	caps.Append([3]float32{0, 0, 0}, [3]float32{0, 0, 0}, 1)     // sphere at the origin
	caps.Append([3]float32{1.5, 0, 0}, [3]float32{1.5, 0, 0}, 1) // 1.5 away: touching
	caps.Append([3]float32{5, 0, 0}, [3]float32{5, 0, 0}, 1)     // 5 away: apart
	pairs := soa.NewIndexPairs(0)
	pairs.Append(0, 2) // apart
	pairs.Append(0, 1) // overlapping by 0.5
	pairs.Append(2, 1) // 3.5 apart: within a margin of 2 only
	dst := soa.NewContacts(pairs.Len())
	n := kernel.CompactContacts(dst, caps, pairs, 0)
	fmt.Println("margin 0:", n, "contact(s)")
	for k := range n {
		fmt.Printf("  pair %d depth %v\n", dst.Pair[k], dst.Depth1[k])
	}
	n = kernel.CompactContacts(dst, caps, pairs, 2)
	fmt.Println("margin 2:", n, "contact(s)")
	for k := range n {
		fmt.Printf("  pair %d depth %v\n", dst.Pair[k], dst.Depth1[k])
	}
	// Output:
	// margin 0: 1 contact(s)
	//   pair 1 depth 0.5
	// margin 2: 2 contact(s)
	//   pair 1 depth 0.5
	//   pair 2 depth -1.5
}

// TestContactsCrossingNormals: on every path, capsules whose axes cross
// within float32 resolution get a normal within a few degrees of the
// cross product of the axes (fallback.Contact's rule), never the
// direction of P-Q's rounding noise.
func TestContactsCrossingNormals(t *testing.T) {
	contactRowsOnPaths(t, verify.CrossingPairs(ctSeed, 3000), 9, func(p verify.CapsulePair, c fallback.Contact) (float64, error) {
		a := verify.CrossNormalAngle(p, c.Normal)
		if a > 3*math.Pi/180 {
			return a, fmt.Errorf("%v: normal %v is %.1f degrees off the cross product", p, c.Normal, a*180/math.Pi)
		}
		return a, nil
	})
}

// contactRowsOnPaths runs BatchContacts (margin 0) on every path over the
// pairs ps, laid out as a scene (verify.SceneFromPairs, stream seq), and
// checks every row: check returns the row's angle error and an error
// that fails the test. The worst angle is logged.
func contactRowsOnPaths(t *testing.T, ps []verify.CapsulePair, seq uint64, check func(verify.CapsulePair, fallback.Contact) (float64, error)) {
	caps, pairs := verify.SceneFromPairs(verify.NewRand(ctSeed, seq), ps)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		dst := soa.NewContacts(pairs.Len())
		k.BatchContacts(dst, caps, pairs, 0)
		worst := 0.0
		for r := range dst.Len() {
			pair, c := verify.ContactRow(dst, r)
			a, err := check(verify.PairAt(caps, pairs, int(pair)), c)
			if err != nil {
				t.Fatal(err)
			}
			worst = math.Max(worst, a)
		}
		t.Logf("%d pairs: worst %.2f degrees", dst.Len(), worst*180/math.Pi)
	})
}

// TestContactsEndNearAxis: on every path, an end of one axis near the
// inside of the other (within the touching band, the axes not crossing)
// gets a normal along P-Q, not the cross product of the axes
// (fallback.TestContactLaneEndNearAxis).
func TestContactsEndNearAxis(t *testing.T) {
	contactRowsOnPaths(t, verify.EndNearAxisPairs(ctSeed, 3000), 10, func(p verify.CapsulePair, c fallback.Contact) (float64, error) {
		a, bound := verify.EndNormalAngle(p, c.Normal)
		if !(a <= bound) {
			return a, fmt.Errorf("%v: normal %v is %.1f degrees off P-Q, bound %.1f", p, c.Normal, a*180/math.Pi, bound*180/math.Pi)
		}
		if bound == math.Pi {
			return 0, nil // too near the axis for its direction to count
		}
		return a, nil
	})
}

// TestContactsNearCrossingBand runs the contact kernels, float32 and
// float64, on every path over pairs of axes that pass each other at
// distances around the crossing tolerance: |r|^2 from 1/16 to 16 times
// 2^-34 m (2^-92 m in float64), m = max(|M0|^2, |u|^2, |E|^2), through
// the middle or an end of either axis. Every row must equal the
// specification bit for bit: the paths must agree on which lanes take the
// fallback normal (near), where the spec's test flips. A third of the
// pairs end both axes at the crossing at an obtuse angle, where m is
// |E|^2 and exceeds |M0|^2 + |u|^2 (a vector test that gated the
// fallbacks' block with 2^-34 (|M0|^2 + |u|^2) instead of m fails here).
func TestContactsNearCrossingBand(t *testing.T) {
	for _, prec := range []struct {
		name string
		tol  float64 // the spec's crossing tolerance
		f32  bool
	}{{"float32", 0x1p-34, true}, {"float64", 0x1p-92, false}} {
		t.Run(prec.name, func(t *testing.T) {
			r := verify.NewRand(ctSeed, 31)
			unit := func() [3]float64 {
				for {
					v := [3]float64{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}
					if l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]); l > 0.3 && l < 1 {
						return [3]float64{v[0] / l, v[1] / l, v[2] / l}
					}
				}
			}
			at := func(x, d [3]float64, k float64) [3]float64 {
				return [3]float64{x[0] + k*d[0], x[1] + k*d[1], x[2] + k*d[2]}
			}
			dist2 := func(p, q [3]float64) float64 {
				d := [3]float64{p[0] - q[0], p[1] - q[1], p[2] - q[2]}
				return d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
			}
			// Each axis passes X at its start, its end or inside.
			ends := func() (float64, float64) {
				switch r.IntN(3) {
				case 0:
					return 0, 0.5 + 2*r.Float64()
				case 1:
					return 0.5 + 2*r.Float64(), 0
				}
				return 0.1 + 2*r.Float64(), 0.1 + 2*r.Float64()
			}
			const n = 3000
			caps, caps64 := soa.NewCapsules(2*n), soa.NewCapsules64(2*n)
			pairs := soa.NewIndexPairs(n)
			for k := range n {
				x := [3]float64{4 * r.Float64(), 4 * r.Float64(), 4 * r.Float64()}
				u, v := unit(), unit()
				nv := fallback.Cross3(u, v)
				nl := math.Sqrt(nv[0]*nv[0] + nv[1]*nv[1] + nv[2]*nv[2])
				if nl < 0.1 {
					v = fallback.Cross3(u, [3]float64{0, 0, 1}) // far from parallel
					nv = fallback.Cross3(u, v)
					nl = math.Sqrt(nv[0]*nv[0] + nv[1]*nv[1] + nv[2]*nv[2])
				}
				a1, b1 := ends()
				a2, b2 := ends()
				if k%3 == 0 {
					// Both axes end at X, at an obtuse angle: |E|^2 = |a1 u - a2
					// v|^2 exceeds |M0|^2 + |u|^2, so m is |E|^2 (up to twice
					// the sum the block's test scales).
					a1, b1, a2, b2 = 0.5+2*r.Float64(), 0, 0.5+2*r.Float64(), 0
					if u[0]*v[0]+u[1]*v[1]+u[2]*v[2] > 0 {
						v = [3]float64{-v[0], -v[1], -v[2]}
						nv = [3]float64{-nv[0], -nv[1], -nv[2]}
					}
				}
				pa, pb := at(x, u, -a1), at(x, u, b1)
				pc, pd := at(x, v, -a2), at(x, v, b2)
				m := max(dist2(pa, pb), dist2(pc, pd), dist2(pa, pc))
				f := math.Ldexp(1, r.IntN(9)-4) * (0.75 + 0.5*r.Float64()) // 1/16 to 16, spread
				off := math.Sqrt(f*prec.tol*m) / nl
				pc, pd = at(pc, nv, off), at(pd, nv, off)
				if prec.f32 {
					f32 := func(p [3]float64) [3]float32 { return [3]float32{float32(p[0]), float32(p[1]), float32(p[2])} }
					caps.Set(2*k, f32(pa), f32(pb), 0.5)
					caps.Set(2*k+1, f32(pc), f32(pd), 0.25) // the normal moves the points
				} else {
					caps64.Set(2*k, pa, pb, 0.5)
					caps64.Set(2*k+1, pc, pd, 0.25)
				}
				pairs.Set(k, uint32(2*k), uint32(2*k+1))
			}
			forEachPath(t, func(t *testing.T, k kernel.Kernel) {
				if prec.f32 {
					dst := soa.NewContacts(n)
					k.BatchContacts(dst, caps, pairs, 0)
					ctCheckBatch(t, "BatchContacts", dst, caps, pairs, 0)
					ctFill(dst)
					ctCheckCompact(t, "CompactContacts", k.CompactContacts(dst, caps, pairs, 0), dst, caps, pairs, 0)
					return
				}
				dst := soa.NewContacts64(n)
				k.BatchContacts64(dst, caps64, pairs, 0)
				check64Batch(t, "BatchContacts64", dst, caps64, pairs, 0)
				cdst := soa.NewContacts64(n)
				check64Compact(t, "CompactContacts64", k.CompactContacts64(cdst, caps64, pairs, 0), cdst, caps64, pairs, 0)
			})
		})
	}
}

// TestContactsBeyondRange runs BatchContacts and CompactContacts, and
// their float64 forms, on every path over pairs far beyond MaxRange
// (verify.BeyondRangeCapsulePairs; for float64 the same widened and
// scaled by 2^896, exactly, to the same overflows): every row must equal
// the specification bit for bit, so the paths agree on which lanes the
// finiteness check flags and on the ±Inf points of the lanes it keeps.
func TestContactsBeyondRange(t *testing.T) {
	caps, pairs := verify.SceneFromPairs(verify.NewRand(ctSeed, 7), verify.BeyondRangeCapsulePairs(verify.NewRand(ctSeed, 8), 3000))
	caps64 := verify.WidenCapsules(caps)
	s := math.Ldexp(1, 896)
	for i, c := range caps64 {
		caps64.Set(i, [3]float64{c.A[0] * s, c.A[1] * s, c.A[2] * s}, [3]float64{c.B[0] * s, c.B[1] * s, c.B[2] * s}, c.R*s)
	}
	m := pairs.Len()
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		dst := soa.NewContacts(m)
		k.BatchContacts(dst, caps, pairs, 0.5)
		ctCheckBatch(t, "BatchContacts", dst, caps, pairs, 0.5)
		ctFill(dst)
		n := k.CompactContacts(dst, caps, pairs, 0.5)
		ctCheckCompact(t, "CompactContacts", n, dst, caps, pairs, 0.5)

		dst64 := soa.NewContacts64(m)
		k.BatchContacts64(dst64, caps64, pairs, 0.5)
		check64Batch(t, "beyond the range", dst64, caps64, pairs, 0.5)
		keptInf := 0
		for r := range m {
			if _, c := row64(dst64, r); c.Count > 0 && math.IsInf(c.Point[0][0]+c.Point[0][1]+c.Point[0][2], 0) {
				keptInf++
			}
		}
		if keptInf == 0 {
			t.Fatal("no touching float64 lane with a point overflowed to ±Inf: the scene misses what it is for")
		}
		cdst64 := soa.NewContacts64(m)
		check64Compact(t, "beyond the range", k.CompactContacts64(cdst64, caps64, pairs, 0.5), cdst64, caps64, pairs, 0.5)
	})
}
