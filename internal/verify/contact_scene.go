package verify

import (
	"math"
	"math/rand/v2"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// ---- scenes and index pairs ---------------------------------------------

// CapsuleAt returns capsule i of c.
func CapsuleAt(c soa.Capsules, i int) Capsule {
	return Capsule{A: c[i].A, B: c[i].B, R: c[i].R}
}

// PairAt returns pair k of pairs: capsule I[k] of caps as C1, J[k] as C2.
func PairAt(caps soa.Capsules, pairs *soa.IndexPairs, k int) CapsulePair {
	return CapsulePair{CapsuleAt(caps, int(pairs.I[k])), CapsuleAt(caps, int(pairs.J[k]))}
}

// RandomCapsules returns n random capsules in a box sized so that a fair
// share of random pairs touch: endpoints within a cube of half-width about
// 1.2 n^(1/3), axes up to 2 long (a fifth zero-length), radii up to 0.8 (an
// eighth zero).
func RandomCapsules(r *rand.Rand, n int) soa.Capsules {
	h := 1.2 * math.Cbrt(float64(max(n, 1)))
	c := soa.NewCapsules(n)
	for i := range n {
		a := inCube(r, h)
		b := a.add(inCube(r, 1))
		if r.IntN(5) == 0 {
			b = a
		}
		rad := float32(uniform(r, 0.05, 0.8))
		if r.IntN(8) == 0 {
			rad = 0
		}
		c.Set(i, a.f32(), b.f32(), rad)
	}
	return c
}

// RandomIndexPairs returns m pairs of indices below nCaps (which must be
// positive when m is): random order, with repeated pairs, swapped repeats
// and self pairs (I == J) mixed in, about one in eight each.
func RandomIndexPairs(r *rand.Rand, nCaps, m int) *soa.IndexPairs {
	p := soa.NewIndexPairs(0)
	for k := 0; k < m; k++ {
		i, j := uint32(r.IntN(nCaps)), uint32(r.IntN(nCaps))
		switch r.IntN(8) {
		case 0:
			j = i // self pair
		case 1:
			if k > 0 { // repeat an earlier pair
				e := r.IntN(k)
				i, j = p.I[e], p.J[e]
			}
		case 2:
			if k > 0 { // an earlier pair, swapped
				e := r.IntN(k)
				i, j = p.J[e], p.I[e]
			}
		}
		p.Append(i, j)
	}
	return p
}

// SceneFromPairs stores the capsules of ps in a Capsules in shuffled order
// and returns IndexPairs whose pair k is ps[k] (C1 = capsule I[k], C2 =
// capsule J[k]), so that PairAt(caps, pairs, k) == ps[k].
func SceneFromPairs(r *rand.Rand, ps []CapsulePair) (soa.Capsules, *soa.IndexPairs) {
	n := 2 * len(ps)
	perm := r.Perm(n) // capsule 2k+e goes to slot perm[2k+e]
	caps := soa.NewCapsules(n)
	pairs := soa.NewIndexPairs(len(ps))
	for k, p := range ps {
		i, j := perm[2*k], perm[2*k+1]
		caps.Set(i, p.C1.A, p.C1.B, p.C1.R)
		caps.Set(j, p.C2.A, p.C2.B, p.C2.R)
		pairs.I[k], pairs.J[k] = uint32(i), uint32(j)
	}
	return caps, pairs
}

// ContactOf computes the contact of pair k of pairs with the spec,
// fallback.ContactLane: capsule I[k] of caps as capsule 1 and J[k] as
// capsule 2. The indices must be in range.
func ContactOf(caps soa.Capsules, pairs *soa.IndexPairs, k int, margin float32) fallback.Contact {
	i, j := pairs.I[k], pairs.J[k]
	c1, c2 := &caps[i], &caps[j]
	return fallback.ContactLane(c1.A[0], c1.A[1], c1.A[2], c1.B[0], c1.B[1], c1.B[2], c1.R,
		c2.A[0], c2.A[1], c2.A[2], c2.B[0], c2.B[1], c2.B[2], c2.R, margin)
}

// ContactRow returns row k of c: its pair index and its contact.
func ContactRow(c *soa.Contacts, k int) (pair uint32, _ fallback.Contact) {
	return c.Pair[k], fallback.Contact{
		Count:  c.Count[k],
		Depth:  [2]float32{c.Depth1[k], c.Depth2[k]},
		Normal: [3]float32{c.NX[k], c.NY[k], c.NZ[k]},
		Point:  [2][3]float32{{c.P1X[k], c.P1Y[k], c.P1Z[k]}, {c.P2X[k], c.P2Y[k], c.P2Z[k]}},
	}
}

// BatchContactsSpec writes the spec's contact of every pair of pairs to
// its row of dst (pairs.Len() rows): the reference rows of the tests.
func BatchContactsSpec(dst *soa.Contacts, caps soa.Capsules, pairs *soa.IndexPairs, margin float32) {
	for k := range pairs.Len() {
		c := ContactOf(caps, pairs, k, margin)
		dst.Set(k, uint32(k), c.Count, c.Depth, c.Normal, c.Point)
	}
}
