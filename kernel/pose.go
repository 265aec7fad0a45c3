package kernel

import (
	"fmt"

	"github.com/segdist/segdist/fallback"
	"github.com/segdist/segdist/soa"
)

// CapsulesFromPoses writes every body's capsule in world coordinates:
// dst[i] is local[i] (the capsule in body i's frame: axis A to B, radius
// R) moved to pose i, A = p + q(local A), B = p + q(local B), R copied, the
// record's padding zero. A capsule along a body axis of half-length h is
// the local axis (0, -h, 0) to (0, h, 0); a sphere has A = B (its offset
// from the body's origin, often zero). dst, local and every stream of
// poses must have one length; dst must not share memory with local or
// poses. Call it once per step before the contact kernels.
//
// The quaternion must be unit: one of squared norm 1 + e moves a point v
// by at most 2|e||v| from the rotation of the normalised quaternion
// (fallback.PoseCapsuleLane, the exact rule). A body with a non-finite
// value, or whose rotated axis overflows, gets the canonical NaN record,
// which the contact kernels treat as bad input. Results are bit-identical
// on every path.
func CapsulesFromPoses(dst, local soa.Capsules, poses *soa.Poses) {
	active.CapsulesFromPoses(dst, local, poses)
}

// CapsulesFromPosesIndexed is CapsulesFromPoses for the listed bodies
// only (the awake ones, say): for each b of bodies, dst[b] is local[b]
// moved to pose b; the other records of dst keep their contents. Every
// index must be below len(dst).
func CapsulesFromPosesIndexed(dst, local soa.Capsules, poses *soa.Poses, bodies []uint32) {
	active.CapsulesFromPosesIndexed(dst, local, poses, bodies)
}

// CapsulesFromPoses64 is CapsulesFromPoses in float64
// (fallback.PoseCapsuleLane64).
func CapsulesFromPoses64(dst, local soa.Capsules64, poses *soa.Poses64) {
	active.CapsulesFromPoses64(dst, local, poses)
}

// CapsulesFromPosesIndexed64 is CapsulesFromPosesIndexed in float64.
func CapsulesFromPosesIndexed64(dst, local soa.Capsules64, poses *soa.Poses64, bodies []uint32) {
	active.CapsulesFromPosesIndexed64(dst, local, poses, bodies)
}

// CapsulesFromPoses is the package-level CapsulesFromPoses on this path.
func (k Kernel) CapsulesFromPoses(dst, local soa.Capsules, poses *soa.Poses) {
	if n := checkPoseArgs(dst, local, poses, nil); n > 0 {
		k.f32.poses(n, dst, local, poses, nil)
	}
}

// CapsulesFromPosesIndexed is the package-level CapsulesFromPosesIndexed on this path.
func (k Kernel) CapsulesFromPosesIndexed(dst, local soa.Capsules, poses *soa.Poses, bodies []uint32) {
	if checkPoseArgs(dst, local, poses, bodies) > 0 && len(bodies) > 0 {
		k.f32.poses(len(bodies), dst, local, poses, bodies)
	}
}

// CapsulesFromPoses64 is the package-level CapsulesFromPoses64 on this path.
func (k Kernel) CapsulesFromPoses64(dst, local soa.Capsules64, poses *soa.Poses64) {
	if n := checkPoseArgs(dst, local, poses, nil); n > 0 {
		k.f64.poses(n, dst, local, poses, nil)
	}
}

// CapsulesFromPosesIndexed64 is the package-level CapsulesFromPosesIndexed64 on this path.
func (k Kernel) CapsulesFromPosesIndexed64(dst, local soa.Capsules64, poses *soa.Poses64, bodies []uint32) {
	if checkPoseArgs(dst, local, poses, bodies) > 0 && len(bodies) > 0 {
		k.f64.poses(len(bodies), dst, local, poses, bodies)
	}
}

// checkPoseArgs checks the lengths, the memory and the body indices of a
// pose call and returns the number of bodies in the stores.
func checkPoseArgs[F soa.Float](dst, local soa.CapsulesOf[F], poses *soa.PosesOf[F], bodies []uint32) int {
	checkNotNil("poses", poses)
	n := len(dst)
	if len(local) != n || len(poses.PX) != n || len(poses.PY) != n || len(poses.PZ) != n ||
		len(poses.QX) != n || len(poses.QY) != n || len(poses.QZ) != n || len(poses.QW) != n {
		panic(lengthMismatch([]string{"dst", "local", "poses.PX", "poses.PY", "poses.PZ", "poses.QX", "poses.QY", "poses.QZ", "poses.QW"},
			[]int{n, len(local), len(poses.PX), len(poses.PY), len(poses.PZ), len(poses.QX), len(poses.QY), len(poses.QZ), len(poses.QW)}))
	}
	if n == 0 {
		return 0
	}
	out := streamOf("dst", dst, n)
	ins := []stream{streamOf("local", local, n), streamOf("poses.PX", poses.PX, n), streamOf("poses.PY", poses.PY, n),
		streamOf("poses.PZ", poses.PZ, n), streamOf("poses.QX", poses.QX, n), streamOf("poses.QY", poses.QY, n),
		streamOf("poses.QZ", poses.QZ, n), streamOf("poses.QW", poses.QW, n), streamOf("bodies", bodies, len(bodies))}
	for _, in := range ins {
		if in.len != 0 && !apart(out.addr, out.len, in.addr, in.len) {
			panic(fmt.Sprintf("segdist/kernel: dst and %s share memory (outputs must not overlap the inputs)", in.name))
		}
	}
	if len(bodies) > 0 && !indicesBelow(bodies, bodies, n) {
		checkIndexed("bodies", bodies, n, "bodies")
	}
	return n
}

// goPoses moves the capsules of bodies [0, n), or of the n listed bodies.
func goPoses[F soa.Float](n int, dst, local soa.CapsulesOf[F], poses *soa.PosesOf[F], bodies []uint32) {
	for k := range n {
		i := k
		if bodies != nil {
			i = int(bodies[k])
		}
		l := &local[i]
		a, b, r := fallback.PoseCapsuleLaneOf(poses.PX[i], poses.PY[i], poses.PZ[i], poses.QX[i], poses.QY[i], poses.QZ[i], poses.QW[i],
			l.A[0], l.A[1], l.A[2], l.B[0], l.B[1], l.B[2], l.R)
		dst[i] = soa.CapsuleOf[F]{A: a, R: r, B: b}
	}
}
