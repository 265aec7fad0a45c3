package soa

import "fmt"

// CapsuleOf is one capsule as a record of eight floats: the axis from A
// to B and the radius R >= 0 (a sphere is a capsule with A = B; the
// contact kernels treat a negative radius as bad input). The field
// order puts A and R in the record's first half and B in its second, so a
// kernel that loads the records of four capsules transposes each half
// with one 4x4 shuffle (see gen/amd64/records.go). The last float is
// padding.
type CapsuleOf[F Float] struct {
	A [3]F
	R F
	B [3]F
	_ F
}

// Capsule is a float32 capsule, a 32-byte record.
type Capsule = CapsuleOf[float32]

// Capsule64 is a float64 capsule, a 64-byte record.
type Capsule64 = CapsuleOf[float64]

// CapsulesOf is an engine's capsule store, one record per body: the
// contact kernels read it through an IndexPairs list, loading the two
// capsules of each pair as whole records, so an engine keeps one store
// per world and never copies per pair. Any []CapsuleOf[F] is a
// CapsulesOf[F]: an engine that owns its records as a slice passes it as
// it is (no alignment assumed); NewCapsules, Append and Resize allocate
// records aligned to their size (32 bytes, 64 for float64), so that no
// record straddles a cache line.
type CapsulesOf[F Float] []CapsuleOf[F]

// Capsules is the float32 capsule store of kernel.BatchContacts and
// kernel.CompactContacts.
type Capsules = CapsulesOf[float32]

// Capsules64 is the float64 capsule store of kernel.BatchContacts64 and
// kernel.CompactContacts64.
type Capsules64 = CapsulesOf[float64]

// NewCapsules returns n capsules, all zero, 32-byte aligned, with room to
// Append up to the next multiple of 16.
func NewCapsules(n int) Capsules { return newCapsules[float32]("NewCapsules", n) }

// NewCapsules64 is NewCapsules in float64 (64-byte aligned records).
func NewCapsules64(n int) Capsules64 { return newCapsules[float64]("NewCapsules64", n) }

func newCapsules[F Float](what string, n int) CapsulesOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	return alignedRecords[CapsuleOf[F], F](capFor(n))[:n]
}

// Len returns the number of capsules.
func (c CapsulesOf[F]) Len() int { return len(c) }

// Set stores capsule i: axis from a to b, radius r.
func (c CapsulesOf[F]) Set(i int, a, b [3]F, r F) {
	c[i] = CapsuleOf[F]{A: a, B: b, R: r}
}

// Get returns capsule i: its axis from a to b and its radius.
func (c CapsulesOf[F]) Get(i int) (a, b [3]F, r F) {
	return c[i].A, c[i].B, c[i].R
}

// Append adds one capsule at the end, doubling the allocation (aligned)
// when full.
func (c *CapsulesOf[F]) Append(a, b [3]F, r F) {
	rec := appendRecord[CapsuleOf[F], F]((*[]CapsuleOf[F])(c), "Capsules")
	rec.A, rec.B, rec.R = a, b, r
}

// Resize sets the number of capsules to n, keeping the first min(Len, n)
// and reusing the storage when its capacity allows; a reallocation is
// aligned and at least doubles the capacity.
func (c *CapsulesOf[F]) Resize(n int) {
	resizeRecords[CapsuleOf[F], F]((*[]CapsuleOf[F])(c), n, "Capsules")
}

// Reset sets the length to zero and keeps the storage.
func (c *CapsulesOf[F]) Reset() { *c = (*c)[:0] }

// IndexPairs is a broadphase's output: pair k is capsule I[k] against
// capsule J[k] of a Capsules. Contact normals point from J toward I.
type IndexPairs struct {
	I, J []uint32
}

// NewIndexPairs returns n pairs, all (0, 0), with room to Append up to the
// next multiple of 16. I and J are placed like the streams of a Pairs.
func NewIndexPairs(n int) *IndexPairs {
	if n < 0 {
		panic(fmt.Sprintf("soa.NewIndexPairs: negative length %d", n))
	}
	p := &IndexPairs{}
	p.Resize(n)
	return p
}

// Len returns the number of pairs, the length of I.
func (p *IndexPairs) Len() int { return len(p.I) }

// streams returns pointers to I and J.
func (p *IndexPairs) streams() [2]*[]uint32 { return [2]*[]uint32{&p.I, &p.J} }

// Append adds the pair (i, j).
func (p *IndexPairs) Append(i, j uint32) {
	if n := len(p.I); n < cap(p.I) && n < cap(p.J) && len(p.J) == n { // room in both: no reallocation
		p.I, p.J = p.I[:n+1], p.J[:n+1]
		p.I[n], p.J[n] = i, j
		return
	}
	st := p.streams()
	p.Set(appendSlot("IndexPairs", st[:], inputLine), i, j)
}

// Set stores pair k: capsule i against capsule j.
func (p *IndexPairs) Set(k int, i, j uint32) { p.I[k], p.J[k] = i, j }

// Get returns pair k.
func (p *IndexPairs) Get(k int) (i, j uint32) { return p.I[k], p.J[k] }

// Resize sets the number of pairs to n, keeping the first min(Len, n).
func (p *IndexPairs) Resize(n int) {
	st := p.streams()
	resizeStreams("IndexPairs", st[:], n, n, inputLine)
}

// Reset sets the length to zero and keeps the storage.
func (p *IndexPairs) Reset() { p.I, p.J = p.I[:0], p.J[:0] }

// ContactsOf receives capsule contacts, one row per pair (BatchContacts) or
// per touching pair only (CompactContacts). Row k is the contact of pair
// Pair[k] of the IndexPairs given: Count points (0 apart, 1, or 2 for
// overlapping parallel capsules), Depth1/Depth2 the penetration depth at
// each point, (NX, NY, NZ) the unit normal from capsule J toward capsule I
// and P1/P2 the points, midway between the surfaces. With Count 1, point 2
// and Depth2 repeat point 1.
type ContactsOf[F Float] struct {
	Pair, Count    []uint32
	Depth1, Depth2 []F
	NX, NY, NZ     []F
	P1X, P1Y, P1Z  []F
	P2X, P2Y, P2Z  []F
}

// Contacts receives the float32 contacts of kernel.BatchContacts and
// kernel.CompactContacts.
type Contacts = ContactsOf[float32]

// Contacts64 receives the float64 contacts of kernel.BatchContacts64 and
// kernel.CompactContacts64.
type Contacts64 = ContactsOf[float64]

// NewContacts returns room for n contacts.
func NewContacts(n int) *Contacts { return newContacts[float32]("NewContacts", n) }

// NewContacts64 is NewContacts in float64.
func NewContacts64(n int) *Contacts64 { return newContacts[float64]("NewContacts64", n) }

func newContacts[F Float](what string, n int) *ContactsOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	c := &ContactsOf[F]{}
	c.Resize(n)
	return c
}

func (c *ContactsOf[F]) floats() [11]*[]F {
	return [11]*[]F{&c.Depth1, &c.Depth2, &c.NX, &c.NY, &c.NZ,
		&c.P1X, &c.P1Y, &c.P1Z, &c.P2X, &c.P2Y, &c.P2Z}
}

// Len returns the number of rows, the length of Pair.
func (c *ContactsOf[F]) Len() int { return len(c.Pair) }

// Resize sets the number of rows to n, reusing the storage when its
// capacity allows; the first min(Len, n) rows are kept.
func (c *ContactsOf[F]) Resize(n int) {
	fl := c.floats()
	resizeStreams("Contacts", fl[:], n, n, outputLine)
	// Pair and Count after the 11 float streams in the page.
	resizeStreams("Contacts", []*[]uint32{&c.Pair, &c.Count}, n, n, outputLine+len(fl))
}

// Reset sets the number of rows to zero and keeps the storage.
func (c *ContactsOf[F]) Reset() { c.Resize(0) }

// Set stores row k. Kernels write rows directly; Set is for tests and for
// engines that merge contacts from several sources.
func (c *ContactsOf[F]) Set(k int, pair, count uint32, depth [2]F, normal [3]F, points [2][3]F) {
	c.Pair[k], c.Count[k] = pair, count
	c.Depth1[k], c.Depth2[k] = depth[0], depth[1]
	c.NX[k], c.NY[k], c.NZ[k] = normal[0], normal[1], normal[2]
	c.P1X[k], c.P1Y[k], c.P1Z[k] = points[0][0], points[0][1], points[0][2]
	c.P2X[k], c.P2Y[k], c.P2Z[k] = points[1][0], points[1][1], points[1][2]
}

// PointSegmentsOf is a batch of point-segment pairs (sphere centres
// against capsule axes): point (PX, PY, PZ) against the segment from (CX,
// CY, CZ) to (DX, DY, DZ).
type PointSegmentsOf[F Float] struct {
	PX, PY, PZ []F
	CX, CY, CZ []F
	DX, DY, DZ []F
}

// PointSegments is the float32 input of kernel.BatchClosestPoint.
type PointSegments = PointSegmentsOf[float32]

// PointSegments64 is the float64 input of kernel.BatchClosestPoint64.
type PointSegments64 = PointSegmentsOf[float64]

// NewPointSegments returns n point-segment pairs, all zero.
func NewPointSegments(n int) *PointSegments {
	return newPointSegments[float32]("NewPointSegments", n)
}

// NewPointSegments64 is NewPointSegments in float64.
func NewPointSegments64(n int) *PointSegments64 {
	return newPointSegments[float64]("NewPointSegments64", n)
}

func newPointSegments[F Float](what string, n int) *PointSegmentsOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	p := &PointSegmentsOf[F]{}
	p.Resize(n)
	return p
}

func (p *PointSegmentsOf[F]) streams() [9]*[]F {
	return [9]*[]F{&p.PX, &p.PY, &p.PZ, &p.CX, &p.CY, &p.CZ, &p.DX, &p.DY, &p.DZ}
}

// Get returns pair i: the point and the segment from c to d.
func (p *PointSegmentsOf[F]) Get(i int) (pt, c, d [3]F) {
	return [3]F{p.PX[i], p.PY[i], p.PZ[i]}, [3]F{p.CX[i], p.CY[i], p.CZ[i]}, [3]F{p.DX[i], p.DY[i], p.DZ[i]}
}

// Append adds one point-segment pair at the end.
func (p *PointSegmentsOf[F]) Append(pt, c, d [3]F) {
	n := len(p.PX)
	if n < cap(p.PX) && n < cap(p.PY) && n < cap(p.PZ) && n < cap(p.CX) && n < cap(p.CY) && n < cap(p.CZ) &&
		n < cap(p.DX) && n < cap(p.DY) && n < cap(p.DZ) && len(p.PY) == n && len(p.PZ) == n &&
		len(p.CX) == n && len(p.CY) == n && len(p.CZ) == n && len(p.DX) == n && len(p.DY) == n && len(p.DZ) == n {
		p.PX, p.PY, p.PZ = p.PX[:n+1], p.PY[:n+1], p.PZ[:n+1]
		p.PX[n], p.PY[n], p.PZ[n] = pt[0], pt[1], pt[2]
		p.CX, p.CY, p.CZ = p.CX[:n+1], p.CY[:n+1], p.CZ[:n+1]
		p.CX[n], p.CY[n], p.CZ[n] = c[0], c[1], c[2]
		p.DX, p.DY, p.DZ = p.DX[:n+1], p.DY[:n+1], p.DZ[:n+1]
		p.DX[n], p.DY[n], p.DZ[n] = d[0], d[1], d[2]
		return
	}
	st := p.streams()
	p.Set(appendSlot("PointSegments", st[:], inputLine), pt, c, d)
}

// Resize sets the number of pairs to n, keeping the first min(Len, n).
func (p *PointSegmentsOf[F]) Resize(n int) {
	st := p.streams()
	resizeStreams("PointSegments", st[:], n, n, inputLine)
}

// Reset sets the length to zero and keeps the storage.
func (p *PointSegmentsOf[F]) Reset() {
	st := p.streams()
	resetStreams(st[:])
}

// Len returns the number of pairs, the length of PX.
func (p *PointSegmentsOf[F]) Len() int { return len(p.PX) }

// Set stores pair i: point pt against the segment from c to d.
func (p *PointSegmentsOf[F]) Set(i int, pt, c, d [3]F) {
	p.PX[i], p.PY[i], p.PZ[i] = pt[0], pt[1], pt[2]
	p.CX[i], p.CY[i], p.CZ[i] = c[0], c[1], c[2]
	p.DX[i], p.DY[i], p.DZ[i] = d[0], d[1], d[2]
}

// PointResultsOf receives, for point-segment pair i, the parameter T[i]
// of the closest point C + t(D-C) and the squared distance Dist2[i].
type PointResultsOf[F Float] struct {
	T, Dist2 []F
}

// PointResults receives the output of kernel.BatchClosestPoint.
type PointResults = PointResultsOf[float32]

// PointResults64 receives the output of kernel.BatchClosestPoint64.
type PointResults64 = PointResultsOf[float64]

// NewPointResults returns results for n point-segment pairs.
func NewPointResults(n int) *PointResults { return newPointResults[float32]("NewPointResults", n) }

// NewPointResults64 is NewPointResults in float64.
func NewPointResults64(n int) *PointResults64 {
	return newPointResults[float64]("NewPointResults64", n)
}

func newPointResults[F Float](what string, n int) *PointResultsOf[F] {
	if n < 0 {
		panic(fmt.Sprintf("soa.%s: negative length %d", what, n))
	}
	r := &PointResultsOf[F]{}
	r.Resize(n)
	return r
}

// Len returns the number of results, the length of T.
func (r *PointResultsOf[F]) Len() int { return len(r.T) }

// Resize sets the number of results to n, reusing the storage when its
// capacity allows; the first min(Len, n) are kept.
func (r *PointResultsOf[F]) Resize(n int) {
	resizeStreams("PointResults", []*[]F{&r.T, &r.Dist2}, n, n, outputLine)
}

// Reset sets the length to zero and keeps the storage.
func (r *PointResultsOf[F]) Reset() { r.Resize(0) }
