package kernel_test

import (
	"math"
	"strings"
	"testing"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// The time-of-impact fuzz targets. Each fuzzes one pair of swept
// capsules, I and J, as 14 values each (A0, B0, R0, A1, B1, R1), their
// pads, the margin, Tol, TMax and MaxIter, and puts the pair at several
// rows of a batch of other pairs (toiFuzzScene).

// toiFuzzVals is the number of float values of a fuzz input: 14 per
// capsule, two pads, Margin, Tol and TMax.
const toiFuzzVals = 33

// toiFuzzMaxIter bounds MaxIter, so that one input runs quickly: larger
// values are taken modulo it.
const toiFuzzMaxIter = 256

// toiFuzzRange bounds the values of the inputs checked against the
// certified checker: every |value| is 0 or within [1/toiFuzzRange,
// toiFuzzRange], where its exact arithmetic stays small.
const toiFuzzRange = 1e6

// toiFuzzBudget is the certified checker's budget of boxes per claim.
const toiFuzzBudget = 4000

// toiFuzzCategories name the categories whose first case fills the batch
// around the fuzzed pair and seeds the corpus.
var toiFuzzCategories = []string{"head-on", "sphere", "graze-band", "graze-end", "parallel-slide", "thin-fast",
	"crossing-mid", "double-dip", "rotation", "spin", "overlap-t0", "touch-tmax", "never", "zero-length", "far"}

// toiFuzzCases returns the first case of each of toiFuzzCategories.
func toiFuzzCases[F soa.Float]() []verify.TOICaseOf[F] {
	var out []verify.TOICaseOf[F]
	for k, cat := range verify.TOICategories() {
		for _, name := range toiFuzzCategories {
			if cat.Name == name {
				out = append(out, verify.TOICases[F](cat, 83, uint64(k), 1)[0])
			}
		}
	}
	return out
}

// toiFuzzVector returns the fuzz values of a case, in the fuzz targets'
// order, and its MaxIter.
func toiFuzzVector[F soa.Float](c verify.TOICaseOf[F]) (v [toiFuzzVals]F, maxIter int) {
	k := 0
	for _, s := range [2]fallback.SweptCapsuleOf[F]{c.I, c.J} {
		for _, x := range [][]F{s.A0[:], s.B0[:], {s.R0}, s.A1[:], s.B1[:], {s.R1}} {
			k += copy(v[k:], x)
		}
	}
	copy(v[k:], []F{c.I.Pad, c.J.Pad, c.Params.Margin, c.Params.Tol, c.Params.TMax})
	return v, c.Params.MaxIter
}

// toiFuzzPair returns the swept capsules and the parameters of fuzz
// values (the inverse of toiFuzzVector).
func toiFuzzPair[F soa.Float](v [toiFuzzVals]F) (i, j fallback.SweptCapsuleOf[F], margin, tol, tmax F) {
	capsule := func(w []F) fallback.SweptCapsuleOf[F] {
		return fallback.SweptCapsuleOf[F]{A0: [3]F{w[0], w[1], w[2]}, B0: [3]F{w[3], w[4], w[5]}, R0: w[6],
			A1: [3]F{w[7], w[8], w[9]}, B1: [3]F{w[10], w[11], w[12]}, R1: w[13]}
	}
	i, j = capsule(v[:14]), capsule(v[14:28])
	i.Pad, j.Pad = v[28], v[29]
	return i, j, v[30], v[31], v[32]
}

// addTOISeeds adds the corpus of FuzzTOI or FuzzTOI64: the first case of
// every fuzz category, and hand-made inputs: non-finite values, negative
// radii and pads, parameters at and beyond their ranges.
func addTOISeeds[F soa.Float](f *testing.F) {
	add := func(v [toiFuzzVals]F, maxIter int) {
		args := make([]any, 0, toiFuzzVals+1)
		for _, x := range v {
			args = append(args, x)
		}
		f.Add(append(args, maxIter)...)
	}
	cases := toiFuzzCases[F]()
	for _, c := range cases {
		add(toiFuzzVector(c))
	}
	base, it := toiFuzzVector(cases[0]) // head-on
	nan, inf := F(math.NaN()), F(math.Inf(1))
	for _, s := range []struct {
		field   int
		value   F
		maxIter int
	}{
		{0, nan, it},   // NaN coordinate
		{24, -inf, it}, // -Inf coordinate of J's end pose
		{6, -0.25, it}, // negative radius
		{29, -1, it},   // negative pad
		{28, inf, it},  // infinite pad
		{30, nan, it},  // NaN margin: panics
		{30, -0.5, it}, // negative margin
		{31, -1, it},   // negative Tol: panics
		{31, 0, it},    // Tol 0: the floor
		{31, 1e30, it}, // a huge Tol
		{32, 1.5, it},  // TMax beyond 1: panics
		{32, 0, it},    // TMax 0
		{32, 0.25, it}, // a short interval
		{31, 1e-3, 0},  // MaxIter 0: panics
		{31, 1e-3, 1},  // MaxIter 1
	} {
		v := base
		v[s.field] = s.value
		add(v, s.maxIter)
	}
	// Two resting capsules touching at every time; a pair at 1e18.
	var rest [toiFuzzVals]F
	copy(rest[:], []F{0, 0, 0, 1, 0, 0, 0.5, 0, 0, 0, 1, 0, 0, 0.5, 0, 1, 0, 1, 1, 0, 0.5, 0, 1, 0, 1, 1, 0, 0.5, 0, 0, 0, 1e-3, 1})
	add(rest, 64)
	far := base
	for k := range 28 {
		if k%7 != 6 { // coordinates, not radii
			far[k] += F(1e18)
		}
	}
	add(far, it)
}

// toiFuzzScene returns the batch of the fuzz targets: capsules 0 and 1
// are the fuzzed pair's I and J with pads padI and padJ, then the two
// capsules of each case of toiFuzzCases; pair (0, 1) sits at fuzzLanes
// (first row, inside and at the end of 8- and 16-lane groups, last row),
// (1, 0), (0, 0), (1, 1) and (0, 2) at rows 20 to 23, and the cases' own
// pairs, in turn, elsewhere.
func toiFuzzScene[F soa.Float](i, j fallback.SweptCapsuleOf[F]) (start, end soa.CapsulesOf[F], pad []F, pairs *soa.IndexPairs) {
	cases := toiFuzzCases[F]()
	for _, s := range []fallback.SweptCapsuleOf[F]{i, j} {
		start = append(start, soa.CapsuleOf[F]{A: s.A0, B: s.B0, R: s.R0})
		end = append(end, soa.CapsuleOf[F]{A: s.A1, B: s.B1, R: s.R1})
		pad = append(pad, s.Pad)
	}
	for _, c := range cases {
		for _, s := range []fallback.SweptCapsuleOf[F]{c.I, c.J} {
			start = append(start, soa.CapsuleOf[F]{A: s.A0, B: s.B0, R: s.R0})
			end = append(end, soa.CapsuleOf[F]{A: s.A1, B: s.B1, R: s.R1})
			pad = append(pad, s.Pad)
		}
	}
	pairs = soa.NewIndexPairs(fuzzBatch)
	for k := range fuzzBatch {
		c := uint32(k % len(cases))
		pairs.Set(k, 2+2*c, 3+2*c)
	}
	for _, k := range fuzzLanes {
		pairs.Set(k, 0, 1)
	}
	pairs.Set(20, 1, 0)
	pairs.Set(21, 0, 0)
	pairs.Set(22, 1, 1)
	pairs.Set(23, 0, 2)
	return start, end, pad, pairs
}

// toiFuzzParams checks the raw parameters: it returns those the kernels
// accept (the raw ones when they are in range, else mapped into range)
// and whether the raw ones were in range. Out of range, the kernels
// panic: a margin that is not finite, Tol < 0 or not finite, TMax outside
// [0, 1] or NaN, MaxIter < 1. The mapping: margin 0, |Tol| (0 if not
// finite), TMax clamped to [0, 1] (1 if NaN); MaxIter is taken into [1,
// toiFuzzMaxIter] in every case.
func toiFuzzParams[F soa.Float](margin, tol, tmax F, maxIter int) (p kernel.TOIParamsOf[F], valid bool) {
	finite := func(x F) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
	valid = finite(margin) && finite(tol) && tol >= 0 && tmax >= 0 && tmax <= 1 && maxIter >= 1
	if !finite(margin) {
		margin = 0
	}
	switch {
	case !finite(tol):
		tol = 0
	case tol < 0:
		tol = -tol
	}
	switch {
	case math.IsNaN(float64(tmax)):
		tmax = 1
	default:
		tmax = min(max(tmax, 0), 1)
	}
	if maxIter < 1 {
		maxIter = 1 - maxIter%toiFuzzMaxIter
	}
	maxIter = 1 + (maxIter-1)%toiFuzzMaxIter
	return kernel.TOIParamsOf[F]{Margin: margin, Tol: tol, TMax: tmax, MaxIter: maxIter}, valid
}

// fuzzTOI is the body of FuzzTOI and FuzzTOI64:
//   - parameters out of range make every path's BatchTOI and CompactTOI
//     panic, naming the parameter, before writing a row; the rest of the
//     checks run with the parameters mapped into range (toiFuzzParams);
//   - on every path, every row of BatchTOI is fallback.TOILaneOf's on the
//     row's pair, bit for bit, and CompactTOI writes the rows that are not
//     a Miss, in pair order, and nothing beyond its count; kernel.TOI (or
//     TOI64) gives the same bits for the fuzzed pair;
//   - a non-finite value, or a negative radius or pad, gives Invalid with
//     the canonical NaN and Iter 0; other inputs with every |value| up to
//     verify.MaxRange are not Invalid, T lies in [0, TMax] (0 exactly for
//     Initial, above 0 for Hit) and Iter in [1, MaxIter];
//   - inputs whose every |value| is 0 or within [1/toiFuzzRange,
//     toiFuzzRange] pass the certified checker (verify.CheckTOI, no
//     missed, late or false result), with I and J in both orders.
func fuzzTOI[F soa.Float](t *testing.T, v [toiFuzzVals]F, rawMaxIter int) {
	i, j, margin, tol, tmax := toiFuzzPair(v)
	start, end, pad, pairs := toiFuzzScene(i, j)
	p, valid := toiFuzzParams(margin, tol, tmax, rawMaxIter)
	p.Pad = pad
	n := pairs.Len()

	if !valid {
		raw := p
		raw.Margin, raw.Tol, raw.TMax, raw.MaxIter = margin, tol, tmax, rawMaxIter
		for _, isa := range paths(t) {
			k := lookup(t, isa)
			dst := &soa.TOIsOf[F]{}
			dst.Resize(n)
			for r := range dst.Pair {
				dst.Pair[r] = 0xDEADBEEF
			}
			for name, call := range map[string]func(){
				"BatchTOI":   func() { batchTOI(k, dst, start, end, pairs, raw) },
				"CompactTOI": func() { compactTOI(k, dst, start, end, pairs, raw) },
			} {
				msg, ok := panicMessage(call)
				if !ok || !strings.Contains(msg, "segdist/kernel") {
					t.Fatalf("%s %s: margin %v, Tol %v, TMax %v, MaxIter %d: panic %q (panicked %v), want the parameter's panic",
						isa, name, margin, tol, tmax, rawMaxIter, msg, ok)
				}
			}
			for r := range dst.Pair {
				if dst.Pair[r] != 0xDEADBEEF {
					t.Fatalf("%s: row %d written before the panic", isa, r)
				}
			}
		}
	}

	spec := fallback.TOIParamsOf[F]{Margin: p.Margin, Tol: p.Tol, TMax: p.TMax, MaxIter: p.MaxIter}
	swept := func(c uint32) fallback.SweptCapsuleOf[F] {
		return fallback.SweptCapsuleOf[F]{A0: start[c].A, B0: start[c].B, R0: start[c].R, A1: end[c].A, B1: end[c].B, R1: end[c].R, Pad: pad[c]}
	}
	want := make([]fallback.TOIOf[F], n)
	for r := range n {
		want[r] = fallback.TOILaneOf(swept(pairs.I[r]), swept(pairs.J[r]), spec)
	}
	for _, isa := range paths(t) {
		k := lookup(t, isa)
		dst := &soa.TOIsOf[F]{}
		dst.Resize(n)
		batchTOI(k, dst, start, end, pairs, p)
		for r := range n {
			if pr, got := toiRow(dst, r); pr != uint32(r) || !sameTOI(got, want[r]) {
				t.Fatalf("%s: BatchTOI row %d (pair %d-%d): pair %d %+v, spec %+v\nI %+v\nJ %+v\nparams %+v",
					isa, r, pairs.I[r], pairs.J[r], pr, got, want[r], i, j, spec)
			}
		}
		checkCompactTOI(t, isa, want, func(d *soa.TOIsOf[F]) int { return compactTOI(k, d, start, end, pairs, p) })
	}
	res := want[fuzzLanes[0]]
	if one := singleTOI(i, j, spec); !sameTOI(one, res) {
		t.Fatalf("TOI %+v, BatchTOI's row %+v", one, res)
	}

	checkTOIContract(t, i, j, spec, res)
	if inCertifiedRange(i, j, spec) {
		for _, c := range []verify.TOICaseOf[F]{{I: i, J: j, Params: spec}, {I: j, J: i, Params: spec}} {
			got := c.Lane()
			if chk := verify.CheckTOI(c, got, toiFuzzBudget); chk.Fail != "" {
				t.Fatalf("certified checker: %s (%+v): %+v\n%s", chk.Fail, chk, got, c)
			}
		}
	}
}

// singleTOI calls kernel.TOI or kernel.TOI64.
func singleTOI[F soa.Float](i, j fallback.SweptCapsuleOf[F], p fallback.TOIParamsOf[F]) fallback.TOIOf[F] {
	switch x := any(i).(type) {
	case fallback.SweptCapsule:
		return any(kernel.TOI(x, any(j).(fallback.SweptCapsule), any(p).(fallback.TOIParams))).(fallback.TOIOf[F])
	case fallback.SweptCapsule64:
		return any(kernel.TOI64(x, any(j).(fallback.SweptCapsule64), any(p).(fallback.TOIParams64))).(fallback.TOIOf[F])
	}
	panic("unreachable")
}

// toiFuzzValues returns every float input of the pair and its
// parameters.
func toiFuzzValues[F soa.Float](i, j fallback.SweptCapsuleOf[F], p fallback.TOIParamsOf[F]) []F {
	var out []F
	for _, s := range []fallback.SweptCapsuleOf[F]{i, j} {
		out = append(out, s.A0[:]...)
		out = append(out, s.B0[:]...)
		out = append(out, s.A1[:]...)
		out = append(out, s.B1[:]...)
		out = append(out, s.R0, s.R1, s.Pad)
	}
	return append(out, p.Margin, p.Tol, p.TMax)
}

// checkTOIContract checks the fuzzed pair's result against the statuses'
// contract (fuzzTOI's third point).
func checkTOIContract[F soa.Float](t *testing.T, i, j fallback.SweptCapsuleOf[F], p fallback.TOIParamsOf[F], res fallback.TOIOf[F]) {
	t.Helper()
	finite, inRange := true, true
	for _, x := range toiFuzzValues(i, j, p) {
		finite = finite && !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
		inRange = inRange && math.Abs(float64(x)) <= verify.MaxRange
	}
	negative := min(i.R0, i.R1, j.R0, j.R1, i.Pad, j.Pad) < 0
	if !finite || negative {
		nan := make([]uint64, 11)
		for k := range nan {
			nan[k] = canonicalNaNBits[F]()
		}
		if bits := toiBits(res); res.Status != fallback.TOIInvalid || res.Iter != 0 || !equalU64(bits[2:], nan) {
			t.Fatalf("non-finite input or a negative radius or pad: %+v, want Invalid, Iter 0 and the canonical NaN", res)
		}
		return
	}
	if !inRange {
		return
	}
	tmax := min(max(p.TMax, 0), 1)
	switch {
	case res.Status == fallback.TOIInvalid:
		t.Fatalf("finite input within %g: Invalid %+v", verify.MaxRange, res)
	case !(res.T >= 0 && res.T <= tmax):
		t.Fatalf("T = %v outside [0, TMax = %v]: %+v", res.T, tmax, res)
	case res.Status == fallback.TOIInitial && res.T != 0, res.Status == fallback.TOIHit && res.T == 0:
		t.Fatalf("%v at T = %v", res.Status, res.T)
	case res.Iter < 1 || int(res.Iter) > p.MaxIter:
		t.Fatalf("Iter %d outside [1, MaxIter = %d]", res.Iter, p.MaxIter)
	}
}

// inCertifiedRange reports whether the input is valid (finite, radii and
// pads >= 0) and every |value| is 0 or within [1/toiFuzzRange,
// toiFuzzRange].
func inCertifiedRange[F soa.Float](i, j fallback.SweptCapsuleOf[F], p fallback.TOIParamsOf[F]) bool {
	if min(i.R0, i.R1, j.R0, j.R1, i.Pad, j.Pad) < 0 {
		return false
	}
	for _, x := range toiFuzzValues(i, j, p) {
		a := math.Abs(float64(x))
		if !(a == 0 || a >= 1/toiFuzzRange && a <= toiFuzzRange) {
			return false
		}
	}
	return true
}

// canonicalNaNBits returns the canonical NaN of F as bits.
func canonicalNaNBits[F soa.Float]() uint64 {
	var z F
	if _, ok := any(z).(float32); ok {
		return verify.CanonicalNaNBits
	}
	return 0x7FF8000000000000
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// FuzzTOI fuzzes one float32 pair of swept capsules and the parameters;
// fuzzTOI lists the checks.
func FuzzTOI(f *testing.F) {
	addTOISeeds[float32](f)
	f.Fuzz(func(t *testing.T,
		iA0x, iA0y, iA0z, iB0x, iB0y, iB0z, iR0, iA1x, iA1y, iA1z, iB1x, iB1y, iB1z, iR1,
		jA0x, jA0y, jA0z, jB0x, jB0y, jB0z, jR0, jA1x, jA1y, jA1z, jB1x, jB1y, jB1z, jR1,
		padI, padJ, margin, tol, tmax float32, maxIter int) {
		fuzzTOI(t, [toiFuzzVals]float32{
			iA0x, iA0y, iA0z, iB0x, iB0y, iB0z, iR0, iA1x, iA1y, iA1z, iB1x, iB1y, iB1z, iR1,
			jA0x, jA0y, jA0z, jB0x, jB0y, jB0z, jR0, jA1x, jA1y, jA1z, jB1x, jB1y, jB1z, jR1,
			padI, padJ, margin, tol, tmax}, maxIter)
	})
}

// FuzzTOI64 is FuzzTOI in float64.
func FuzzTOI64(f *testing.F) {
	addTOISeeds[float64](f)
	f.Fuzz(func(t *testing.T,
		iA0x, iA0y, iA0z, iB0x, iB0y, iB0z, iR0, iA1x, iA1y, iA1z, iB1x, iB1y, iB1z, iR1,
		jA0x, jA0y, jA0z, jB0x, jB0y, jB0z, jR0, jA1x, jA1y, jA1z, jB1x, jB1y, jB1z, jR1,
		padI, padJ, margin, tol, tmax float64, maxIter int) {
		fuzzTOI(t, [toiFuzzVals]float64{
			iA0x, iA0y, iA0z, iB0x, iB0y, iB0z, iR0, iA1x, iA1y, iA1z, iB1x, iB1y, iB1z, iR1,
			jA0x, jA0y, jA0z, jB0x, jB0y, jB0z, jR0, jA1x, jA1y, jA1z, jB1x, jB1y, jB1z, jR1,
			padI, padJ, margin, tol, tmax}, maxIter)
	})
}
