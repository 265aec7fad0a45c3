package kernel_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
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

// planeScene returns the cases of every plane category (n each), with
// every 37th capsule and every 41st plane given a bad value when bad, as
// capsule and plane records and index pairs (k, k); then the same pairs
// again in a shuffled order, so that pairs share records.
func planeScene(n int, bad bool) ([]verify.PlaneCase, soa.Capsules, soa.Planes, *soa.IndexPairs) {
	var cases []verify.PlaneCase
	for ci, cat := range verify.PlaneCategories() {
		cases = append(cases, cat.Generate(uint64(300+ci), n)...)
	}
	if bad {
		vals := verify.NonFinite()
		for k := range cases {
			switch {
			case k%37 == 5:
				cases[k].A[k%3] = vals[k%len(vals)]
			case k%41 == 7:
				cases[k].D = vals[k%len(vals)]
			case k%43 == 9:
				cases[k].R = -0.25
			}
		}
	}
	caps, planes, pairs := verify.PlaneCapsules(cases)
	r := verify.NewRand(77, 1)
	for range len(cases) {
		k := uint32(r.IntN(len(cases)))
		pairs.Append(k, uint32(r.IntN(len(cases))))
	}
	return cases, caps, planes, pairs
}

// widenPlanes returns the planes in float64.
func widenPlanes(p soa.Planes) soa.Planes64 {
	out := soa.NewPlanes64(p.Len())
	for i, q := range p {
		out.Set(i, [3]float64{float64(q.N[0]), float64(q.N[1]), float64(q.N[2])}, float64(q.D))
	}
	return out
}

// TestPlaneContacts: on every path, in float32 and float64, every row of
// BatchPlaneContacts is the spec's bit for bit (random, adversarial and
// bad lanes, odd sizes), the spec's rows agree with exact arithmetic
// (verify.CheckPlaneContact) on the pairs of each case, and
// CompactPlaneContacts writes the touching rows in pair order and nothing
// beyond its count.
func TestPlaneContacts(t *testing.T) {
	cases, caps, planes, all := planeScene(300, true)
	caps64, planes64 := verify.WidenCapsules(caps), widenPlanes(planes)
	const margin = 0.05
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		for _, m := range []int{0, 1, 15, 16, 17, 333, all.Len()} {
			pairs := &soa.IndexPairs{I: all.I[:m], J: all.J[:m]}
			what := fmt.Sprintf("%d pairs", m)
			rows := soa.NewContacts(m)
			k.BatchPlaneContacts(rows, caps, planes, pairs, margin)
			rows64 := soa.NewContacts64(m)
			k.BatchPlaneContacts64(rows64, caps64, planes64, pairs, margin)
			for r := range m {
				c, p := caps[pairs.I[r]], planes[pairs.J[r]]
				want := fallback.PlaneContactLane(c.A[0], c.A[1], c.A[2], c.B[0], c.B[1], c.B[2], c.R, p.N[0], p.N[1], p.N[2], p.D, margin)
				pr, got := verify.ContactRow(rows, r)
				if pr != uint32(r) || !ctSameContact(pr, got, uint32(r), want) {
					t.Fatalf("%s row %d: %+v, spec %+v", what, r, got, want)
				}
				c64, p64 := caps64[pairs.I[r]], planes64[pairs.J[r]]
				want64 := fallback.PlaneContactLane64(c64.A[0], c64.A[1], c64.A[2], c64.B[0], c64.B[1], c64.B[2], c64.R,
					p64.N[0], p64.N[1], p64.N[2], p64.D, margin)
				if _, got64 := row64(rows64, r); !sameContact64(got64, want64) {
					t.Fatalf("%s float64 row %d: %+v, spec %+v", what, r, got64, want64)
				}
				if r < len(cases) && pairs.I[r] == pairs.J[r] && !verify.IsNaNContact(got) {
					pc := cases[r]
					pc.Margin = margin
					if _, err := verify.CheckPlaneContact(pc, got); err != nil {
						t.Fatalf("%s row %d against exact arithmetic: %v", what, r, err)
					}
				}
			}
			compact := soa.NewContacts(m + 5)
			ctFill(compact)
			n := k.CompactPlaneContacts(compact, caps, planes, pairs, margin)
			w := 0
			for r := range m {
				if rows.Count[r] == 0 {
					continue
				}
				_, a := verify.ContactRow(rows, r)
				pb, b := verify.ContactRow(compact, w)
				if !ctSameContact(uint32(r), a, pb, b) {
					t.Fatalf("%s: compact row %d: pair %d %+v, want pair %d %+v", what, w, pb, b, r, a)
				}
				w++
			}
			if n != w {
				t.Fatalf("%s: CompactPlaneContacts wrote %d rows, %d touch", what, n, w)
			}
			if u := ctUntouched(compact, n); u >= 0 {
				t.Fatalf("%s: CompactPlaneContacts wrote row %d beyond its count %d", what, u, n)
			}
			compact64 := soa.NewContacts64(m)
			if n64 := k.CompactPlaneContacts64(compact64, caps64, planes64, pairs, margin); n64 != w {
				t.Fatalf("%s: CompactPlaneContacts64 wrote %d rows, float32 %d", what, n64, w)
			}
		}
	})
}

// TestPlaneContactsChecks: bad arguments panic, naming what is wrong,
// before any row is written; valid calls allocate nothing.
func TestPlaneContactsChecks(t *testing.T) {
	_, caps, planes, pairs := planeScene(10, false)
	rows := soa.NewContacts(pairs.Len())
	k := lookup(t, kernel.ISA())
	for name, call := range map[string]func(){
		"out of range": func() {
			p := *pairs
			p.J = append([]uint32(nil), p.J...)
			p.J[3] = uint32(len(planes))
			k.BatchPlaneContacts(rows, caps, planes, &p, 0)
		},
		"capsule out of range": func() {
			p := *pairs
			p.I = append([]uint32(nil), p.I...)
			p.I[3] = uint32(len(caps))
			k.BatchPlaneContacts(rows, caps, planes, &p, 0)
		},
		"margin": func() { k.BatchPlaneContacts(rows, caps, planes, pairs, float32(math.Inf(1))) },
		"rows":   func() { k.BatchPlaneContacts(soa.NewContacts(3), caps, planes, pairs, 0) },
		"nil":    func() { k.CompactPlaneContacts(nil, caps, planes, pairs, 0) },
		"shared with the planes": func() {
			shared := soa.NewContacts(pairs.Len())
			shared.NX = unsafe.Slice((*float32)(unsafe.Pointer(&planes[0])), 4*len(planes))[:pairs.Len()]
			k.BatchPlaneContacts(shared, caps, planes, pairs, 0)
		},
	} {
		ctFill(rows)
		msg, ok := panicMessage(call)
		if !ok {
			t.Errorf("%s: no panic", name)
			continue
		}
		for _, want := range map[string][]string{"out of range": {"pairs.J", "planes"}, "capsule out of range": {"pairs.I", "capsules"},
			"margin": {"margin"}, "rows": {"len(dst."}, "nil": {"dst is a nil"}, "shared with the planes": {"share memory", "planes"}}[name] {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: panic %q lacks %q", name, msg, want)
			}
		}
		if ctUntouched(rows, 0) >= 0 {
			t.Errorf("%s: rows written before the panic", name)
		}
	}
	if a := testing.AllocsPerRun(20, func() {
		k.BatchPlaneContacts(rows, caps, planes, pairs, 0.01)
		k.CompactPlaneContacts(rows, caps, planes, pairs, 0.01)
	}); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

// planeGoldenHash and planeGoldenHash64 pin the bits of the plane kernels
// on a fixed scene (planeScene(40, true) with margin 2^-5), the same on
// every path and platform.
const (
	planeGoldenHash   = "b1b36c789fb98a20e77e7d1a746b872f473b28da2439feaf089a76f4a7555f6c"
	planeGoldenHash64 = "280776e7995f10ff72667a33230668cba00d2cd92ed14bcb54549dcc1cb10b2c"
)

// hashRows hashes the first m rows of c (Pair, Count and the eleven floats'
// bits).
func hashRows[F soa.Float](c *soa.ContactsOf[F], m int) string {
	h := sha256.New()
	var b [8]byte
	fl := [...][]F{c.Depth1, c.Depth2, c.NX, c.NY, c.NZ, c.P1X, c.P1Y, c.P1Z, c.P2X, c.P2Y, c.P2Z}
	for k := range m {
		binary.LittleEndian.PutUint32(b[:4], c.Pair[k])
		binary.LittleEndian.PutUint32(b[4:], c.Count[k])
		h.Write(b[:])
		for _, s := range fl {
			switch x := any(s[k]).(type) {
			case float32:
				binary.LittleEndian.PutUint32(b[:4], math.Float32bits(x))
				h.Write(b[:4])
			case float64:
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
				h.Write(b[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestPlaneContactsGolden checks the golden hashes on every path.
func TestPlaneContactsGolden(t *testing.T) {
	_, caps, planes, pairs := planeScene(40, true)
	caps64, planes64 := verify.WidenCapsules(caps), widenPlanes(planes)
	forEachPath(t, func(t *testing.T, k kernel.Kernel) {
		rows, rows64 := soa.NewContacts(pairs.Len()), soa.NewContacts64(pairs.Len())
		k.BatchPlaneContacts(rows, caps, planes, pairs, 0x1p-5)
		k.BatchPlaneContacts64(rows64, caps64, planes64, pairs, 0x1p-5)
		if got := hashRows(rows, pairs.Len()); got != planeGoldenHash {
			t.Errorf("float32 golden hash %s, want %s", got, planeGoldenHash)
		}
		if got := hashRows(rows64, pairs.Len()); got != planeGoldenHash64 {
			t.Errorf("float64 golden hash %s, want %s", got, planeGoldenHash64)
		}
	})
}
