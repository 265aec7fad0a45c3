package kernel

import (
	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// BatchPlaneContacts computes the contact of every capsule-plane pair of
// pairs (capsule pairs.I[k] of caps against the half-space pairs.J[k] of
// planes) and writes it to row k of dst, which must have pairs.Len() rows:
// the rows of BatchContacts, with the plane as capsule J. Each axis end
// within R + margin of the plane is a point (A's first, then B's; a
// sphere counts once), so a capsule lying or tilted on the ground has two
// points; the normal is the plane's, from the plane toward the capsule;
// the depth is R - (N·X - D); the point lies midway between the capsule's
// surface and the plane's. fallback.PlaneContactLane is the exact rule;
// results are bit-identical on every path. Bad input (a non-finite value,
// a negative radius) gives that row Count 0 and the canonical NaN.
// Indices out of range, mismatched lengths, a nil batch, memory shared
// between the rows and an input, and a margin that is negative or not
// finite panic before anything is computed.
func BatchPlaneContacts(dst *soa.Contacts, caps soa.Capsules, planes soa.Planes, pairs *soa.IndexPairs, margin float32) {
	active.BatchPlaneContacts(dst, caps, planes, pairs, margin)
}

// CompactPlaneContacts is BatchPlaneContacts for the touching pairs only,
// as CompactContacts is for BatchContacts: rows 0, 1, ... of dst in pair
// order, Pair holding the index of the pair, and the number written
// returned; the rows from the count on keep their contents.
func CompactPlaneContacts(dst *soa.Contacts, caps soa.Capsules, planes soa.Planes, pairs *soa.IndexPairs, margin float32) int {
	return active.CompactPlaneContacts(dst, caps, planes, pairs, margin)
}

// BatchPlaneContacts64 is BatchPlaneContacts in float64
// (fallback.PlaneContactLane64).
func BatchPlaneContacts64(dst *soa.Contacts64, caps soa.Capsules64, planes soa.Planes64, pairs *soa.IndexPairs, margin float64) {
	active.BatchPlaneContacts64(dst, caps, planes, pairs, margin)
}

// CompactPlaneContacts64 is CompactPlaneContacts in float64.
func CompactPlaneContacts64(dst *soa.Contacts64, caps soa.Capsules64, planes soa.Planes64, pairs *soa.IndexPairs, margin float64) int {
	return active.CompactPlaneContacts64(dst, caps, planes, pairs, margin)
}

// BatchPlaneContacts is the package-level BatchPlaneContacts on this path.
func (k Kernel) BatchPlaneContacts(dst *soa.Contacts, caps soa.Capsules, planes soa.Planes, pairs *soa.IndexPairs, margin float32) {
	if m := checkPlaneArgs(dst, caps, planes, pairs, margin, true); m > 0 {
		k.f32.planes(m, dst, caps, planes, pairs, margin)
	}
}

// CompactPlaneContacts is the package-level CompactPlaneContacts on this path.
func (k Kernel) CompactPlaneContacts(dst *soa.Contacts, caps soa.Capsules, planes soa.Planes, pairs *soa.IndexPairs, margin float32) int {
	if m := checkPlaneArgs(dst, caps, planes, pairs, margin, false); m > 0 {
		return k.f32.planesCompact(m, dst, caps, planes, pairs, margin)
	}
	return 0
}

// BatchPlaneContacts64 is the package-level BatchPlaneContacts64 on this path.
func (k Kernel) BatchPlaneContacts64(dst *soa.Contacts64, caps soa.Capsules64, planes soa.Planes64, pairs *soa.IndexPairs, margin float64) {
	if m := checkPlaneArgs(dst, caps, planes, pairs, margin, true); m > 0 {
		k.f64.planes(m, dst, caps, planes, pairs, margin)
	}
}

// CompactPlaneContacts64 is the package-level CompactPlaneContacts64 on this path.
func (k Kernel) CompactPlaneContacts64(dst *soa.Contacts64, caps soa.Capsules64, planes soa.Planes64, pairs *soa.IndexPairs, margin float64) int {
	if m := checkPlaneArgs(dst, caps, planes, pairs, margin, false); m > 0 {
		return k.f64.planesCompact(m, dst, caps, planes, pairs, margin)
	}
	return 0
}

// checkPlaneArgs is checkContactArgs for the plane kernels: the rows, the
// margin and the memory as there, with the J indices checked against the
// planes.
func checkPlaneArgs[F soa.Float](dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, margin F, exact bool) int {
	m := checkRowArgs(dst, pairs, margin, exact)
	checkContactsApart(dst, caps, pairs, m)
	checkRowsApartFrom(dst, m, streamOf("planes", planes, len(planes)))
	if !indicesBelow(pairs.I, pairs.I, len(caps)) {
		checkIndices("pairs.I", pairs.I, len(caps))
	}
	if !indicesBelow(pairs.J, pairs.J, len(planes)) {
		checkIndexed("pairs.J", pairs.J, len(planes), "planes")
	}
	return m
}

// goPlaneContact is fallback's plane lane on pair k: capsule I[k] against
// plane J[k].
func goPlaneContact[F soa.Float](caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, k int, margin F) fallback.ContactOf[F] {
	c, p := &caps[pairs.I[k]], &planes[pairs.J[k]]
	return fallback.PlaneContactLaneOf(c.A[0], c.A[1], c.A[2], c.B[0], c.B[1], c.B[2], c.R, p.N[0], p.N[1], p.N[2], p.D, margin)
}

// goPlanes writes every pair's plane contact to its row.
func goPlanes[F soa.Float](m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, margin F) int {
	for k := range m {
		c := goPlaneContact(caps, planes, pairs, k, margin)
		dst.Set(k, uint32(k), c.Count, c.Depth, c.Normal, c.Point)
	}
	return m
}

// goPlanesCompact writes the touching pairs' plane contacts densely, in
// pair order.
func goPlanesCompact[F soa.Float](m int, dst *soa.ContactsOf[F], caps soa.CapsulesOf[F], planes soa.PlanesOf[F], pairs *soa.IndexPairs, margin F) int {
	w := 0
	for k := range m {
		if c := goPlaneContact(caps, planes, pairs, k, margin); c.Count > 0 {
			dst.Set(w, uint32(k), c.Count, c.Depth, c.Normal, c.Point)
			w++
		}
	}
	return w
}
