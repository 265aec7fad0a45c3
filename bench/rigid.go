package main

// The rigid-body scene: capsules and spheres dropped into a box of five
// planes, with segdist as the whole narrowphase of a minimal engine. Each
// substep runs the phases an engine runs: records from poses
// (kernel.CapsulesFromPoses), a grid broadphase into a soa.IndexPairs,
// capsule contacts (CompactContacts), plane contacts
// (CompactPlaneContacts), then a sequential-impulse solver and the
// integration of velocities and poses. The solver exists to drive the
// kernels with moving, touching data; it is not an engine.

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/internal/verify"
	"github.com/segdist/segdist/kernel"
	"github.com/segdist/segdist/soa"
)

// Parameters of the rigid-body scene.
const (
	rigidDt         = 1.0 / 60 // step, seconds
	rigidMargin     = 0.05     // contact margin: speculative contacts for what moves toward each other within a substep
	rigidGravity    = -9.81    // along y, which is up
	rigidBeta       = 0.1      // fraction of the penetration beyond the slop removed per substep
	rigidSlop       = 0.005    // penetration left alone, so resting contacts stay touching
	rigidMaxPush    = 1.0      // cap on the separation speed the bias asks for
	rigidFriction   = 0.8      // Coulomb coefficient, per tangent direction
	rigidLinDamp    = 1.0      // linear damping, 1/s
	rigidAngDamp    = 5.0      // angular damping, 1/s: stands in for rolling resistance, so that rolling bodies stop
	rigidSphereFrac = 0.4      // fraction of the bodies that are spheres
	rigidAreaPer    = 0.5      // floor area per body, length units squared: the spawn lattice has two or three layers
	rigidDropSpeed  = 3.0      // initial downward speed, so that every body lands within about a second
	rigidBoundTol   = 0.05     // end state: how far a surface may sink into a plane
	rigidRestSpeed  = 0.5      // end state: the largest speed of a body at rest (linear, or angular x bounding radius)
)

// rigidConfig sizes the scene.
type rigidConfig struct {
	bodies, steps int
	substeps      int    // full pipelines per step
	iters         int    // solver iterations per substep
	checkEvery    int    // reference checks on every checkEvery-th substep (the cross-path checks run on every substep)
	seed          uint64 // placement, sizes and orientations
}

// The size of the scene of go run ./bench (-rigid-bodies, -rigid-steps).
const (
	defaultRigidBodies = 400
	defaultRigidSteps  = 300
)

// defaultRigid is the scene of go run ./bench.
func defaultRigid(bodies, steps int) rigidConfig {
	return rigidConfig{bodies: bodies, steps: steps, substeps: 2, iters: 10, checkEvery: 10, seed: 1}
}

// rigidPhases are the timed phases of a substep, in order.
var rigidPhases = [...]string{"poses", "broadphase", "capsule contacts", "plane contacts", "solver"}

// contactPoint is one point of a contact row between body i and body j
// (j < 0: a plane, static), with one solver row per direction: the normal
// n from j toward i, then two tangents for friction.
type contactPoint struct {
	i, j int32
	dir  [3]jacobian // n, t1, t2
	bias float32     // the normal velocity the solver aims for
	lam  [3]float32  // accumulated impulses along dir
}

// jacobian is one direction d of a contact point, precomputed: the
// angular arms ri x d and rj x d, their images under each body's inverse
// world inertia, and the effective mass 1 / (the pair's inverse mass
// along d at the point).
type jacobian struct {
	d, ai, aj, wi, wj [3]float32
	m                 float32
}

// rigidWorld is the scene's state and every buffer a substep reuses, so
// that a substep allocates nothing after the first ones.
type rigidWorld struct {
	cfg     rigidConfig
	k       kernel.Kernel // the path that drives the simulation
	n       int
	half    float32 // the walls are at x, z = ±half
	top     float32 // the highest spawn height: the grid's extent in y
	h       float32 // substep
	spheres int

	local   soa.Capsules // each body's capsule in its own frame
	poses   *soa.Poses   // the simulation's state: position and unit quaternion
	vel     [][3]float32
	angVel  [][3]float32
	invMass []float32
	invI    [][3]float32 // inverse inertia, diagonal in the body frame
	invIW   [][9]float32 // inverse inertia in world frame, per substep
	bound   []float32    // bounding-sphere radius about the body's position
	maxB    float32

	planes     soa.Planes
	caps       soa.Capsules // world records, from poses
	pairs      *soa.IndexPairs
	planePairs *soa.IndexPairs
	rows       *soa.Contacts
	planeRows  *soa.Contacts
	nRows      int
	nPlaneRows int

	// grid broadphase
	cell      float32
	dims      [3]int
	cellStart []int32
	cellFill  []int32
	home      []int32
	members   []int32

	points []contactPoint
}

// newRigidWorld places the bodies on a jittered lattice above the floor,
// with random sizes, orientations and small velocities, all falling at
// rigidDropSpeed; the same config gives the same scene on every run.
func newRigidWorld(cfg rigidConfig, k kernel.Kernel) *rigidWorld {
	n := cfg.bodies
	w := &rigidWorld{cfg: cfg, k: k, n: n, h: float32(rigidDt / float64(cfg.substeps))}
	r := rand.New(rand.NewPCG(cfg.seed, 0x41b1d))
	w.half = float32(math.Sqrt(float64(n)*rigidAreaPer) / 2)
	w.local = soa.NewCapsules(n)
	w.poses = soa.NewPoses(n)
	w.vel = make([][3]float32, n)
	w.angVel = make([][3]float32, n)
	w.invMass = make([]float32, n)
	w.invI = make([][3]float32, n)
	w.invIW = make([][9]float32, n)
	w.bound = make([]float32, n)
	for i := range n {
		var rad, hl float32
		if r.Float64() < rigidSphereFrac {
			rad = float32(0.1 + 0.1*r.Float64())
			w.spheres++
		} else {
			rad = float32(0.08 + 0.08*r.Float64())
			hl = float32(0.1 + 0.2*r.Float64())
		}
		w.local.Set(i, [3]float32{0, -hl, 0}, [3]float32{0, hl, 0}, rad)
		// Bounding sphere about the body's origin, widened past the
		// rounding of the world records.
		w.bound[i] = (hl + rad) * (1 + 1e-5)
		w.maxB = max(w.maxB, w.bound[i])
		// Mass of a solid capsule of density 1; inertia of a sphere, or
		// roughly of a rod of length 2h+r with radius r (axis y).
		r2 := float64(rad) * float64(rad)
		m := math.Pi*r2*2*float64(hl) + 4.0/3*math.Pi*r2*float64(rad)
		ia, ip := 0.4*m*r2, 0.4*m*r2
		if hl > 0 {
			l := 2*float64(hl) + float64(rad)
			ip = m * (l*l/12 + r2/4)
		}
		w.invMass[i] = float32(1 / m)
		w.invI[i] = [3]float32{float32(1 / ip), float32(1 / ia), float32(1 / ip)}
	}
	// The lattice: cells of one largest bounding diameter plus a gap.
	sp := 2*w.maxB + 0.05
	perRow := max(1, int((2*w.half-0.1)/sp))
	for i := range n {
		layer, in := i/(perRow*perRow), i%(perRow*perRow)
		jit := func() float32 { return float32(0.1 * (r.Float64() - 0.5)) }
		x := -w.half + 0.05 + sp*(float32(in%perRow)+0.5) + jit()
		z := -w.half + 0.05 + sp*(float32(in/perRow)+0.5) + jit()
		y := w.maxB + 0.1 + sp*float32(layer)
		w.top = max(w.top, y)
		w.poses.Set(i, [3]float32{x, y, z}, randomUnitQuat(r))
		w.vel[i] = [3]float32{float32(r.Float64() - 0.5), -rigidDropSpeed, float32(r.Float64() - 0.5)}
		w.angVel[i] = [3]float32{float32(2*r.Float64() - 1), float32(2*r.Float64() - 1), float32(2*r.Float64() - 1)}
	}
	w.top += w.maxB
	// Ground (y <= 0) and four walls, each normal pointing into the box.
	w.planes = soa.NewPlanes(0)
	w.planes.Append([3]float32{0, 1, 0}, 0)
	w.planes.Append([3]float32{1, 0, 0}, -w.half)
	w.planes.Append([3]float32{-1, 0, 0}, -w.half)
	w.planes.Append([3]float32{0, 0, 1}, -w.half)
	w.planes.Append([3]float32{0, 0, -1}, -w.half)

	w.caps = soa.NewCapsules(n)
	w.pairs, w.planePairs = soa.NewIndexPairs(0), soa.NewIndexPairs(0)
	w.rows, w.planeRows = soa.NewContacts(0), soa.NewContacts(0)
	w.cell = 2*w.maxB + rigidMargin
	ext := [3]float32{2 * w.half, w.top, 2 * w.half}
	for d := range 3 {
		w.dims[d] = max(1, int(ext[d]/w.cell))
	}
	ncell := w.dims[0] * w.dims[1] * w.dims[2]
	w.cellStart = make([]int32, ncell+1)
	w.cellFill = make([]int32, ncell)
	w.home = make([]int32, n)
	w.members = make([]int32, n)
	return w
}

// randomUnitQuat returns a rotation uniform over SO(3), normalised in
// float32.
func randomUnitQuat(r *rand.Rand) [4]float32 {
	var q [4]float32
	for {
		var s float64
		var v [4]float64
		for c := range v {
			v[c] = r.NormFloat64()
			s += v[c] * v[c]
		}
		if s > 1e-6 {
			for c := range q {
				q[c] = float32(v[c] / math.Sqrt(s))
			}
			return normQuat(q)
		}
	}
}

// normQuat divides q by its float32 norm.
func normQuat(q [4]float32) [4]float32 {
	l := float32(math.Sqrt(float64(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])))
	return [4]float32{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// substep runs one full pipeline and adds each phase's time to t. check,
// if not nil, runs untimed between the narrowphase and the solver, on the
// records and rows the solver is about to consume.
func (w *rigidWorld) substep(t *[len(rigidPhases)]time.Duration, check func()) {
	t0 := time.Now()
	w.k.CapsulesFromPoses(w.caps, w.local, w.poses)
	t1 := time.Now()
	w.broadphase()
	t2 := time.Now()
	w.rows.Resize(w.pairs.Len())
	w.nRows = w.k.CompactContacts(w.rows, w.caps, w.pairs, rigidMargin)
	t3 := time.Now()
	w.planeRows.Resize(w.planePairs.Len())
	w.nPlaneRows = w.k.CompactPlaneContacts(w.planeRows, w.caps, w.planes, w.planePairs, rigidMargin)
	t4 := time.Now()
	if check != nil {
		check()
	}
	t5 := time.Now()
	w.solve()
	t6 := time.Now()
	for p, d := range [...]time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t6.Sub(t5)} {
		t[p] += d
	}
}

// broadphase fills w.pairs with every pair of bodies whose bounding
// spheres are within rigidMargin (I < J), and w.planePairs with every
// (body, plane) pair whose plane the bounding sphere comes within
// rigidMargin of. A uniform grid over the box, cells at least one
// bounding diameter plus the margin wide, each cell against itself and
// its 13 forward neighbours; bodies outside the box go to the nearest
// cell, which keeps neighbours adjacent. Pairs are written with Resize
// and direct stores to I and J.
func (w *rigidWorld) broadphase() {
	clear(w.cellStart)
	for i := range w.n {
		c := w.cellOf(w.poses.PX[i], w.poses.PY[i], w.poses.PZ[i])
		w.home[i] = int32(c)
		w.cellStart[c+1]++
	}
	for c := range len(w.cellStart) - 1 {
		w.cellStart[c+1] += w.cellStart[c]
	}
	copy(w.cellFill, w.cellStart)
	for i := range w.n {
		c := w.home[i]
		w.members[w.cellFill[c]] = int32(i)
		w.cellFill[c]++
	}

	p := w.pairs
	p.Resize(min(cap(p.I), cap(p.J)))
	m := 0
	dx, dy, dz := w.dims[0], w.dims[1], w.dims[2]
	for z := range dz {
		for y := range dy {
			for x := range dx {
				c := (z*dy+y)*dx + x
				own := w.members[w.cellStart[c]:w.cellStart[c+1]]
				for a, i := range own {
					for _, j := range own[a+1:] {
						m = w.emitPair(m, i, j)
					}
				}
				if len(own) == 0 {
					continue
				}
				for _, o := range forwardNeighbours {
					nx, ny, nz := x+o[0], y+o[1], z+o[2]
					if nx < 0 || ny < 0 || nz < 0 || nx >= dx || ny >= dy || nz >= dz {
						continue
					}
					nc := (nz*dy+ny)*dx + nx
					for _, i := range own {
						for _, j := range w.members[w.cellStart[nc]:w.cellStart[nc+1]] {
							m = w.emitPair(m, i, j)
						}
					}
				}
			}
		}
	}
	p.Resize(m)

	q := w.planePairs
	q.Resize(max(min(cap(q.I), cap(q.J)), w.n))
	m = 0
	for i := range w.n {
		px, py, pz := w.poses.PX[i], w.poses.PY[i], w.poses.PZ[i]
		for pl := range w.planes {
			n, d := w.planes[pl].N, w.planes[pl].D
			if n[0]*px+n[1]*py+n[2]*pz-d <= w.bound[i]+rigidMargin {
				if m == q.Len() {
					q.Resize(2 * m)
				}
				q.I[m], q.J[m] = uint32(i), uint32(pl)
				m++
			}
		}
	}
	q.Resize(m)
}

// forwardNeighbours are the 13 cell offsets (dx, dy, dz) after (0, 0, 0)
// in the grid's index order, so that each pair of cells is visited once.
var forwardNeighbours = func() (out [13][3]int) {
	k := 0
	for dz := -1; dz <= 1; dz++ {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dz > 0 || dz == 0 && (dy > 0 || dy == 0 && dx > 0) {
					out[k] = [3]int{dx, dy, dz}
					k++
				}
			}
		}
	}
	return out
}()

// cellOf returns the grid cell of a position, clamped into the grid.
func (w *rigidWorld) cellOf(x, y, z float32) int {
	idx := func(v float32, d int) int {
		c := int(math.Floor(float64(v / w.cell)))
		return min(max(c, 0), w.dims[d]-1)
	}
	return (idx(z+w.half, 2)*w.dims[1]+idx(y, 1))*w.dims[0] + idx(x+w.half, 0)
}

// emitPair writes pair (min, max) of bodies i and j at position m of
// w.pairs if their bounding spheres are within the margin, growing the
// batch when full, and returns the next position.
func (w *rigidWorld) emitPair(m int, i, j int32) int {
	px, py, pz := w.poses.PX, w.poses.PY, w.poses.PZ
	ex, ey, ez := px[i]-px[j], py[i]-py[j], pz[i]-pz[j]
	rr := w.bound[i] + w.bound[j] + rigidMargin
	if ex*ex+ey*ey+ez*ez > rr*rr {
		return m
	}
	p := w.pairs
	if m == p.Len() {
		p.Resize(2*m + 64)
	}
	p.I[m], p.J[m] = uint32(min(i, j)), uint32(max(i, j))
	return m + 1
}

// solve is the velocity step: gravity, the world inverse inertias, one
// solver row per contact point (normal and two friction directions),
// cfg.iters sequential-impulse sweeps in row order, damping, then the
// integration of positions and quaternions (renormalised, as
// CapsulesFromPoses requires unit quaternions).
func (w *rigidWorld) solve() {
	h := w.h
	for i := range w.n {
		w.vel[i][1] += float32(rigidGravity) * h
		w.invIW[i] = worldInvInertia(w.quat(i), w.invI[i])
	}
	w.points = w.points[:0]
	for r := range w.nRows {
		k := w.rows.Pair[r]
		w.addRow(w.rows, r, int32(w.pairs.I[k]), int32(w.pairs.J[k]))
	}
	for r := range w.nPlaneRows {
		k := w.planeRows.Pair[r]
		w.addRow(w.planeRows, r, int32(w.planePairs.I[k]), -1)
	}
	for range w.cfg.iters {
		for c := range w.points {
			cp := &w.points[c]
			// Friction first, limited by the normal impulse so far.
			lim := rigidFriction * cp.lam[0]
			w.applyImpulse(cp, 1, 0, -lim, lim)
			w.applyImpulse(cp, 2, 0, -lim, lim)
			w.applyImpulse(cp, 0, cp.bias, 0, float32(math.Inf(1)))
		}
	}
	ld, ad := 1/(1+h*rigidLinDamp), 1/(1+h*rigidAngDamp)
	for i := range w.n {
		w.vel[i] = scale3(w.vel[i], ld)
		w.angVel[i] = scale3(w.angVel[i], ad)
		v, om := w.vel[i], w.angVel[i]
		w.poses.PX[i] += v[0] * h
		w.poses.PY[i] += v[1] * h
		w.poses.PZ[i] += v[2] * h
		// dq/dt = (omega, 0) q / 2.
		q := w.quat(i)
		hh := h / 2
		dq := [4]float32{
			om[0]*q[3] + (om[1]*q[2] - om[2]*q[1]),
			om[1]*q[3] + (om[2]*q[0] - om[0]*q[2]),
			om[2]*q[3] + (om[0]*q[1] - om[1]*q[0]),
			-(om[0]*q[0] + om[1]*q[1] + om[2]*q[2]),
		}
		q = normQuat([4]float32{q[0] + hh*dq[0], q[1] + hh*dq[1], q[2] + hh*dq[2], q[3] + hh*dq[3]})
		w.poses.QX[i], w.poses.QY[i], w.poses.QZ[i], w.poses.QW[i] = q[0], q[1], q[2], q[3]
	}
}

func (w *rigidWorld) quat(i int) [4]float32 {
	return [4]float32{w.poses.QX[i], w.poses.QY[i], w.poses.QZ[i], w.poses.QW[i]}
}

// addRow turns contact row r of rows (bodies i and j, j < 0 for a plane)
// into one solver row per point: the row's normal points from j toward
// i, and its points lie midway between the surfaces, where both bodies
// are pushed.
func (w *rigidWorld) addRow(rows *soa.Contacts, r int, i, j int32) {
	n := [3]float32{rows.NX[r], rows.NY[r], rows.NZ[r]}
	pts := [2][3]float32{{rows.P1X[r], rows.P1Y[r], rows.P1Z[r]}, {rows.P2X[r], rows.P2Y[r], rows.P2Z[r]}}
	depths := [2]float32{rows.Depth1[r], rows.Depth2[r]}
	var t1 [3]float32
	if abs32(n[0]) < 0.57 {
		t1 = normalize3(cross3(n, [3]float32{1, 0, 0}))
	} else {
		t1 = normalize3(cross3(n, [3]float32{0, 1, 0}))
	}
	t2 := cross3(n, t1)
	for p := range int(rows.Count[r]) {
		cp := contactPoint{i: i, j: j}
		ri := sub3(pts[p], w.pos(int(i)))
		var rj [3]float32
		if j >= 0 {
			rj = sub3(pts[p], w.pos(int(j)))
		}
		for k, d := range [3][3]float32{n, t1, t2} {
			jc := &cp.dir[k]
			jc.d = d
			jc.ai = cross3(ri, d)
			jc.wi = mulMat(&w.invIW[i], jc.ai)
			k := w.invMass[i] + dot3(jc.ai, jc.wi)
			if j >= 0 {
				jc.aj = cross3(rj, d)
				jc.wj = mulMat(&w.invIW[j], jc.aj)
				k += w.invMass[j] + dot3(jc.aj, jc.wj)
			}
			jc.m = 1 / k
		}
		// Speculative within the margin (approach at most the gap per
		// substep), Baumgarte beyond the slop.
		if d := depths[p]; d < 0 {
			cp.bias = d / w.h
		} else {
			cp.bias = min(rigidBeta*max(d-rigidSlop, 0)/w.h, rigidMaxPush)
		}
		w.points = append(w.points, cp)
	}
}

func (w *rigidWorld) pos(i int) [3]float32 {
	return [3]float32{w.poses.PX[i], w.poses.PY[i], w.poses.PZ[i]}
}

// applyImpulse drives the relative velocity of point cp along direction
// k toward target, keeping the accumulated impulse in [lo, hi], and
// applies the change (+ to body i, - to body j).
func (w *rigidWorld) applyImpulse(cp *contactPoint, k int, target, lo, hi float32) {
	jc := &cp.dir[k]
	vi, oi := &w.vel[cp.i], &w.angVel[cp.i]
	v := vi[0]*jc.d[0] + vi[1]*jc.d[1] + vi[2]*jc.d[2] + oi[0]*jc.ai[0] + oi[1]*jc.ai[1] + oi[2]*jc.ai[2]
	var vj, oj *[3]float32
	if cp.j >= 0 {
		vj, oj = &w.vel[cp.j], &w.angVel[cp.j]
		v -= vj[0]*jc.d[0] + vj[1]*jc.d[1] + vj[2]*jc.d[2] + oj[0]*jc.aj[0] + oj[1]*jc.aj[1] + oj[2]*jc.aj[2]
	}
	acc := cp.lam[k]
	next := acc + (target-v)*jc.m
	if next < lo {
		next = lo
	}
	if next > hi {
		next = hi
	}
	cp.lam[k] = next
	dl := next - acc
	li := dl * w.invMass[cp.i]
	vi[0], vi[1], vi[2] = vi[0]+jc.d[0]*li, vi[1]+jc.d[1]*li, vi[2]+jc.d[2]*li
	oi[0], oi[1], oi[2] = oi[0]+jc.wi[0]*dl, oi[1]+jc.wi[1]*dl, oi[2]+jc.wi[2]*dl
	if vj != nil {
		lj := dl * w.invMass[cp.j]
		vj[0], vj[1], vj[2] = vj[0]-jc.d[0]*lj, vj[1]-jc.d[1]*lj, vj[2]-jc.d[2]*lj
		oj[0], oj[1], oj[2] = oj[0]-jc.wj[0]*dl, oj[1]-jc.wj[1]*dl, oj[2]-jc.wj[2]*dl
	}
}

// worldInvInertia returns R diag(d) R^T, R the rotation of the unit
// quaternion q = (x, y, z, w), row-major.
func worldInvInertia(q [4]float32, d [3]float32) [9]float32 {
	x, y, z, s := q[0], q[1], q[2], q[3]
	rm := [9]float32{
		1 - 2*(y*y+z*z), 2 * (x*y - z*s), 2 * (x*z + y*s),
		2 * (x*y + z*s), 1 - 2*(x*x+z*z), 2 * (y*z - x*s),
		2 * (x*z - y*s), 2 * (y*z + x*s), 1 - 2*(x*x+y*y),
	}
	var out [9]float32
	for a := range 3 {
		for b := range 3 {
			out[3*a+b] = rm[3*a]*d[0]*rm[3*b] + rm[3*a+1]*d[1]*rm[3*b+1] + rm[3*a+2]*d[2]*rm[3*b+2]
		}
	}
	return out
}

func mulMat(m *[9]float32, v [3]float32) [3]float32 {
	return [3]float32{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

func add3(a, b [3]float32) [3]float32 { return [3]float32{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub3(a, b [3]float32) [3]float32 { return [3]float32{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale3(a [3]float32, s float32) [3]float32 {
	return [3]float32{a[0] * s, a[1] * s, a[2] * s}
}
func dot3(a, b [3]float32) float32 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross3(a, b [3]float32) [3]float32 {
	return [3]float32{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func normalize3(a [3]float32) [3]float32 {
	return scale3(a, 1/float32(math.Sqrt(float64(dot3(a, a)))))
}
func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// ---- the run and its checks ------------------------------------------

// rigidResult is what runRigid measured and checked.
type rigidResult struct {
	cfg      rigidConfig
	isa      string   // the path that drove the simulation
	paths    []string // the driving path, then every path checked against it (go included)
	spheres  int
	half     float32
	phase    [len(rigidPhases)]time.Duration // summed over the run
	substeps int

	pairs, rows, twoPoint                int // capsule pairs and contact rows, summed over substeps
	planePairs, planeRows, planeTwoPoint int
	points                               int // contact points, three solver rows each

	checkedSubsteps         int // substeps with reference checks
	checkedRows             int // capsule pairs checked against the reference
	checkedPlanes           int // plane pairs checked against exact arithmetic
	worstDepthEps           float64
	worstPlaneEps           float64
	borderline, refDisagree int

	maxSpeed, maxSpin float32 // at the end: largest |v|, largest |omega| x bound
	sink, escape      float32 // at the end: deepest surface into the ground, and beyond a wall
	nan               bool
	atRest            bool

	problems []string
	more     int // problems beyond the first maxExamples, counted only
	examples []string
}

// problemf records a failed check; a path that fails on every substep
// reports its first few failures and a count.
func (r *rigidResult) problemf(format string, args ...any) {
	if len(r.problems) < maxExamples {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	} else {
		r.more++
	}
}

func (r *rigidResult) example(format string, args ...any) {
	if len(r.examples) < maxExamples {
		r.examples = append(r.examples, fmt.Sprintf(format, args...))
	}
}

// rigidChecker holds the paths checked against the driving one and the
// scratch their outputs go to.
type rigidChecker struct {
	kgo    kernel.Kernel
	others []kernel.Kernel // every path of kernels and go, but the driving one
	caps   soa.Capsules
	rows   *soa.Contacts
	all    *soa.Contacts
}

func newRigidChecker(w *rigidWorld, kernels []kernel.Kernel, kgo kernel.Kernel) *rigidChecker {
	ch := &rigidChecker{kgo: kgo, caps: soa.NewCapsules(w.n), rows: soa.NewContacts(0), all: soa.NewContacts(0)}
	for _, k := range append(kernels[1:len(kernels):len(kernels)], kgo) {
		if k.ISA() != w.k.ISA() && !containsISA(ch.others, k.ISA()) {
			ch.others = append(ch.others, k)
		}
	}
	return ch
}

// runRigid runs the scene on kernels[0] (the best path), checking every
// substep's records and rows against every path in kernels and the go
// path, bit for bit, and every cfg.checkEvery-th substep's against the
// references. log reports progress.
func runRigid(cfg rigidConfig, kernels []kernel.Kernel, kgo kernel.Kernel, log *logger) rigidResult {
	w := newRigidWorld(cfg, kernels[0])
	res := rigidResult{cfg: cfg, isa: w.k.ISA(), spheres: w.spheres, half: w.half}
	ch := newRigidChecker(w, kernels, kgo)
	res.paths = append(res.paths, w.k.ISA())
	for _, k := range ch.others {
		res.paths = append(res.paths, k.ISA())
	}
	sub := 0
	for s := range cfg.steps {
		if s%60 == 0 {
			log.printf("rigid: step %d of %d", s, cfg.steps)
		}
		for range cfg.substeps {
			reference := sub%cfg.checkEvery == 0
			w.substep(&res.phase, func() { w.check(&res, ch, reference) })
			w.count(&res)
			sub++
		}
	}
	res.substeps = sub
	w.endState(&res)
	if res.more > 0 {
		res.problems = append(res.problems, fmt.Sprintf("rigid: %d more failed checks", res.more))
	}
	return res
}

func containsISA(ks []kernel.Kernel, isa string) bool {
	for _, k := range ks {
		if k.ISA() == isa {
			return true
		}
	}
	return false
}

// count adds the substep's pairs, rows and solver points to res.
func (w *rigidWorld) count(res *rigidResult) {
	res.pairs += w.pairs.Len()
	res.rows += w.nRows
	res.planePairs += w.planePairs.Len()
	res.planeRows += w.nPlaneRows
	res.points += len(w.points)
	for r := range w.nRows {
		if w.rows.Count[r] == 2 {
			res.twoPoint++
		}
	}
	for r := range w.nPlaneRows {
		if w.planeRows.Count[r] == 2 {
			res.planeTwoPoint++
		}
	}
}

// check verifies the substep's records and rows: every other path's
// CapsulesFromPoses, CompactContacts and CompactPlaneContacts bit for bit
// against the driving path's; with reference, the records against
// fallback.PoseCapsuleLane, the capsule rows against the reference
// (verifyContacts, as the main scene) and every plane pair's go-path row
// against exact arithmetic (verify.CheckPlaneContact).
func (w *rigidWorld) check(res *rigidResult, ch *rigidChecker, reference bool) {
	isa := w.k.ISA()
	for _, k := range ch.others {
		k.CapsulesFromPoses(ch.caps, w.local, w.poses)
		if i := firstCapsuleDiff(ch.caps, w.caps); i >= 0 {
			res.problemf("rigid: poses: %s and %s write different records (body %d: %v, %v)", k.ISA(), isa, i, ch.caps[i], w.caps[i])
		}
		ch.rows.Resize(w.pairs.Len())
		n := k.CompactContacts(ch.rows, w.caps, w.pairs, rigidMargin)
		if r := firstRowDiff(ch.rows, n, w.rows, w.nRows); r >= 0 {
			res.problemf("rigid: capsule contacts: %s and %s differ (%d and %d rows; first at row %d)", k.ISA(), isa, n, w.nRows, r)
		}
		ch.rows.Resize(w.planePairs.Len())
		n = k.CompactPlaneContacts(ch.rows, w.caps, w.planes, w.planePairs, rigidMargin)
		if r := firstRowDiff(ch.rows, n, w.planeRows, w.nPlaneRows); r >= 0 {
			res.problemf("rigid: plane contacts: %s and %s differ (%d and %d rows; first at row %d)", k.ISA(), isa, n, w.nPlaneRows, r)
		}
	}
	if !reference {
		return
	}
	res.checkedSubsteps++

	// Records: the specification, bit for bit.
	for i := range w.n {
		p, q := w.poses.Get(i)
		a, b, r := fallback.PoseCapsuleLane(p[0], p[1], p[2], q[0], q[1], q[2], q[3],
			w.local[i].A[0], w.local[i].A[1], w.local[i].A[2], w.local[i].B[0], w.local[i].B[1], w.local[i].B[2], w.local[i].R)
		want := soa.Capsule{A: a, B: b, R: r}
		if capsuleBits(w.caps[i]) != capsuleBits(want) {
			res.problemf("rigid: poses: body %d: record %v, fallback.PoseCapsuleLane %v", i, w.caps[i], want)
			break
		}
	}

	// Capsule rows: the main scene's verifier, against the go path and
	// the reference.
	set := newContactSet(ch.kgo, w.caps, w.pairs, rigidMargin)
	v := verifyContacts(set, w.rows, w.nRows)
	res.checkedRows += w.pairs.Len()
	res.worstDepthEps = max(res.worstDepthEps, v.Worst)
	res.borderline += v.Borderline
	res.refDisagree += v.RefDisagree
	if !v.OK() {
		res.problemf("rigid: capsule contacts: %d checks fail, %d rows differ from go (%d pairs)", v.Failed, v.Mismatches, w.pairs.Len())
		for _, e := range v.Examples {
			res.example("rigid: capsule contacts: %s", e)
		}
	}

	// Plane rows: every pair's go-path BatchPlaneContacts row against
	// exact arithmetic; the compacted rows are those of the touching
	// pairs, in pair order.
	np := w.planePairs.Len()
	ch.all.Resize(np)
	ch.kgo.BatchPlaneContacts(ch.all, w.caps, w.planes, w.planePairs, rigidMargin)
	next := 0
	bad := 0
	for k := range np {
		_, c := verify.ContactRow(ch.all, k)
		i, pl := w.planePairs.I[k], w.planePairs.J[k]
		pc := verify.PlaneCase{A: w.caps[i].A, B: w.caps[i].B, R: w.caps[i].R, N: w.planes[pl].N, D: w.planes[pl].D, Margin: rigidMargin}
		worst, err := verify.CheckPlaneContact(pc, c)
		res.worstPlaneEps = max(res.worstPlaneEps, worst)
		if err != nil {
			bad++
			res.example("rigid: plane contacts: pair %d (body %d, plane %d): %v", k, i, pl, err)
		}
		if c.Count == 0 {
			continue
		}
		if next >= w.nPlaneRows || w.planeRows.Pair[next] != uint32(k) || !contactBitsEqual(w.planeRows, next, ch.all, k) {
			bad++
			res.example("rigid: plane contacts: touching pair %d is not compacted row %d of %d", k, next, w.nPlaneRows)
		}
		next++
	}
	if next != w.nPlaneRows {
		bad++
		res.example("rigid: plane contacts: %d compacted rows, %d touching pairs", w.nPlaneRows, next)
	}
	res.checkedPlanes += np
	if bad > 0 {
		res.problemf("rigid: plane contacts: %d of %d pairs fail against exact arithmetic or the uncompacted rows", bad, np)
	}
}

// capsuleBits returns the bits of a record's seven floats.
func capsuleBits(c soa.Capsule) [7]uint32 {
	f := math.Float32bits
	return [7]uint32{f(c.A[0]), f(c.A[1]), f(c.A[2]), f(c.R), f(c.B[0]), f(c.B[1]), f(c.B[2])}
}

// firstCapsuleDiff returns the first record whose bits differ, or -1.
func firstCapsuleDiff(x, y soa.Capsules) int {
	for i := range x {
		if capsuleBits(x[i]) != capsuleBits(y[i]) {
			return i
		}
	}
	return -1
}

// firstRowDiff returns the first row whose 13 streams differ between
// the first nx rows of x and the first ny of y, -1 if none (and nx = ny).
func firstRowDiff(x *soa.Contacts, nx int, y *soa.Contacts, ny int) int {
	for r := range min(nx, ny) {
		if rowBits(x, r) != rowBits(y, r) {
			return r
		}
	}
	if nx != ny {
		return min(nx, ny)
	}
	return -1
}

// endState measures the final state: NaN, speeds, and how far any surface
// lies beyond a plane.
func (w *rigidWorld) endState(res *rigidResult) {
	w.k.CapsulesFromPoses(w.caps, w.local, w.poses)
	for i := range w.n {
		v, om := w.vel[i], w.angVel[i]
		for _, x := range [][3]float32{v, om, w.caps[i].A, w.caps[i].B, w.pos(i)} {
			for _, c := range x {
				if c != c || math.IsInf(float64(c), 0) {
					res.nan = true
				}
			}
		}
		res.maxSpeed = max(res.maxSpeed, float32(math.Sqrt(float64(dot3(v, v)))))
		res.maxSpin = max(res.maxSpin, float32(math.Sqrt(float64(dot3(om, om))))*w.bound[i])
		c := w.caps[i]
		for pl, p := range w.planes {
			for _, x := range [][3]float32{c.A, c.B} {
				s := dot3(p.N, x) - p.D - c.R // the surface's distance above the plane
				if pl == 0 {
					res.sink = max(res.sink, -s)
				} else {
					res.escape = max(res.escape, -s)
				}
			}
		}
	}
	res.atRest = !res.nan && res.maxSpeed <= rigidRestSpeed && res.maxSpin <= rigidRestSpeed
	if res.nan {
		res.problems = append(res.problems, "rigid: end state: NaN or Inf in a pose, velocity or record")
	}
	if !(res.sink <= rigidBoundTol) || !(res.escape <= rigidBoundTol) {
		res.problems = append(res.problems, fmt.Sprintf("rigid: end state: a surface %.3g into the ground and %.3g beyond a wall (tolerance %v)",
			res.sink, res.escape, rigidBoundTol))
	}
}

// writeRigid prints the scene, the per-phase table and the end state.
func writeRigid(w io.Writer, r rigidResult) error {
	cfg := r.cfg
	subs := float64(max(r.substeps, 1))
	fmt.Fprintf(w, "rigid:     %d bodies (%d capsules, %d spheres) dropped into a box of 5 planes (floor %.1f x %.1f), %d steps of 1/60 s x %d substeps,\n"+
		"           %d solver iterations, margin %v; segdist is the whole narrowphase, on path %s\n",
		cfg.bodies, cfg.bodies-r.spheres, r.spheres, 2*r.half, 2*r.half, cfg.steps, cfg.substeps, cfg.iters, rigidMargin, r.isa)
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tus/step\tshare\titems/substep\tns/item\t")
	total := time.Duration(0)
	for _, d := range r.phase {
		total += d
	}
	items := [len(rigidPhases)]struct {
		n    float64
		name string
	}{
		{float64(cfg.bodies), "bodies"},
		{float64(cfg.bodies), "bodies"},
		{float64(r.pairs) / subs, "pairs"},
		{float64(r.planePairs) / subs, "pairs"},
		{float64(r.points) / subs, "points"},
	}
	steps := float64(max(cfg.steps, 1))
	for p, name := range rigidPhases {
		us := float64(r.phase[p].Nanoseconds()) / 1e3 / steps
		ns := float64(r.phase[p].Nanoseconds()) / subs / max(items[p].n, 1)
		fmt.Fprintf(tw, "%s\t%.1f\t%.0f%%\t%.0f %s\t%.2f\t\n", name, us, 100*float64(r.phase[p])/float64(max(total, 1)), items[p].n, items[p].name, ns)
	}
	fmt.Fprintf(tw, "step\t%.1f\t100%%\t\t\t\n", float64(total.Nanoseconds())/1e3/steps)
	tw.Flush()
	fmt.Fprint(w, indent(buf.String(), "    "))
	fmt.Fprintf(w, "rigid:     per substep on average: %.0f capsule pairs -> %.0f contacts (%.0f two-point), %.0f plane pairs -> %.0f contacts (%.0f two-point), %.0f solver points\n",
		float64(r.pairs)/subs, float64(r.rows)/subs, float64(r.twoPoint)/subs,
		float64(r.planePairs)/subs, float64(r.planeRows)/subs, float64(r.planeTwoPoint)/subs, float64(r.points)/subs)
	rest := "at rest"
	if !r.atRest {
		rest = "NOT at rest"
	}
	fmt.Fprintf(w, "rigid:     end state: %s (largest speed %.3g, largest spin x bounding radius %.3g; limit %v), deepest surface %.3g into the ground, %.3g beyond a wall (limit %v), NaN: %v\n",
		rest, r.maxSpeed, r.maxSpin, rigidRestSpeed, r.sink, r.escape, rigidBoundTol, r.nan)
	return nil
}

// writeRigidVerified prints what the run verified.
func writeRigidVerified(w io.Writer, r rigidResult) {
	fmt.Fprintf(w, "verified:  rigid: every substep's records (CapsulesFromPoses), capsule rows and plane rows bit-identical on %d path(s) (%s);\n"+
		"           on 1 substep in %d (%d of %d): the records equal fallback.PoseCapsuleLane, %d capsule pairs checked as the contacts above\n"+
		"           (worst depth error %.3g eps32 x scale, %d borderline), %d plane pairs within %d eps32 x scale of exact arithmetic (worst %.3g)\n",
		len(r.paths), strings.Join(r.paths, ", "), r.cfg.checkEvery, r.checkedSubsteps, r.substeps,
		r.checkedRows, r.worstDepthEps, r.borderline, r.checkedPlanes, verify.PlaneTol, r.worstPlaneEps)
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}
