package fallback

// PoseCapsuleLane moves a capsule given in its body's frame (axis la to
// lb, radius r) to the body's pose (position p, rotation quaternion q =
// (qx, qy, qz, qw), w last): it returns the world axis a = p + q(la),
// b = p + q(lb), and the radius. It is the bit-exact specification of the
// pose kernels.
//
// The rotation is v' = v + w t + q_v × t with t = 2 (q_v × v), q_v = (qx,
// qy, qz), each product rounded, in the order
//
//	t_x  = (qy vz - qz vy) + (qy vz - qz vy)       (likewise y, z, cyclically)
//	v'_x = (vx + w t_x) + (qy t_z - qz t_y)
//	a_x  = px + v'_x
//
// It is a rotation when |q| = 1. For a quaternion of squared norm 1 + e
// the formula gives R v + e (R v - v), R the rotation of the normalised
// quaternion, so it moves v by at most 2 |e| |v| from R v: engines that
// renormalise their quaternions every step (|e| a few eps) lose nothing;
// others should. The zero quaternion leaves v as it is.
//
// A lane with a non-finite input, or whose result overflows, gets the
// canonical NaN in a, b and the radius (finite input then never yields a
// NaN of another sign or payload). The radius is copied as it is: a
// negative radius is the contact kernels' bad input, not this one's.
func PoseCapsuleLane(px, py, pz, qx, qy, qz, qw, lax, lay, laz, lbx, lby, lbz, r float32) (a, b [3]float32, radius float32) {
	return poseCapsuleLane(px, py, pz, qx, qy, qz, qw, lax, lay, laz, lbx, lby, lbz, r)
}

// PoseCapsuleLane64 is PoseCapsuleLane in float64.
func PoseCapsuleLane64(px, py, pz, qx, qy, qz, qw, lax, lay, laz, lbx, lby, lbz, r float64) (a, b [3]float64, radius float64) {
	return poseCapsuleLane(px, py, pz, qx, qy, qz, qw, lax, lay, laz, lbx, lby, lbz, r)
}

// PoseCapsuleLaneOf is PoseCapsuleLane or PoseCapsuleLane64, for code
// generic in the element type.
func PoseCapsuleLaneOf[F Float](px, py, pz, qx, qy, qz, qw, lax, lay, laz, lbx, lby, lbz, r F) (a, b [3]F, radius F) {
	return poseCapsuleLane(px, py, pz, qx, qy, qz, qw, lax, lay, laz, lbx, lby, lbz, r)
}

func poseCapsuleLane[F Float](px, py, pz, qx, qy, qz, qw, lax, lay, laz, lbx, lby, lbz, r F) (a, b [3]F, radius F) {
	ra := rotate(qx, qy, qz, qw, lax, lay, laz)
	rb := rotate(qx, qy, qz, qw, lbx, lby, lbz)
	a = [3]F{px + ra[0], py + ra[1], pz + ra[2]}
	b = [3]F{px + rb[0], py + rb[1], pz + rb[2]}
	// x - x is 0 for finite x and NaN otherwise, so the sum is 0 exactly
	// when every output is finite.
	z := ((((((a[0] - a[0]) + (a[1] - a[1])) + (a[2] - a[2])) + (b[0] - b[0])) + (b[1] - b[1])) + (b[2] - b[2])) + (r - r)
	if !(z == 0) {
		nan := canonicalNaN[F]()
		return [3]F{nan, nan, nan}, [3]F{nan, nan, nan}, nan
	}
	return a, b, r
}

// rotate returns v rotated by the quaternion (qx, qy, qz, w), in the
// operation order of PoseCapsuleLane.
func rotate[F Float](qx, qy, qz, w, vx, vy, vz F) [3]F {
	cx := F(qy*vz) - F(qz*vy)
	cy := F(qz*vx) - F(qx*vz)
	cz := F(qx*vy) - F(qy*vx)
	tx, ty, tz := cx+cx, cy+cy, cz+cz
	return [3]F{
		(vx + F(w*tx)) + (F(qy*tz) - F(qz*ty)),
		(vy + F(w*ty)) + (F(qz*tx) - F(qx*tz)),
		(vz + F(w*tz)) + (F(qx*ty) - F(qy*tx)),
	}
}
