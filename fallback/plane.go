package fallback

// PlaneContactLane computes the contact of a capsule (axis A to B, radius
// r) with the half-space {X : n·X <= d} (n a unit vector) with the given
// margin, as a contact row of the capsule kernels: capsule I is the
// capsule, J the plane. It is the bit-exact specification of the plane
// kernels.
//
// Each axis end X_k has the signed distance s_k = n·X_k - d from the
// plane (((nx*x) + (ny*y)) + (nz*z)) - d, each product rounded) and the
// depth r - s_k; it touches when s_k <= r + margin. Then:
//   - Count is the number of touching ends: 2 when both touch (a capsule
//     lying or tilted on the plane gets two points, so it does not rock
//     between one and two), 1 when one does or for a sphere (A = B, which
//     counts once), 0 when neither does.
//   - Point 1 and Depth1 belong to end A, unless A does not touch and B
//     is nearer the plane (sB < sA): then to end B. With Count 2, point 2
//     and Depth2 belong to end B; otherwise they repeat point 1.
//   - Normal is n: from the plane (J) toward the capsule (I).
//   - Point k lies midway between the capsule's surface X_k - r n and the
//     plane's X_k - s_k n: X_k - n h_k, h_k = (r + s_k) * 0.5, each
//     product rounded.
//
// A lane with a non-finite input, a negative radius (-0 is zero) or
// depths whose sum overflows gets Count 0 and the canonical NaN in every
// float, as ContactLane's bad lanes do.
func PlaneContactLane(ax, ay, az, bx, by, bz, r, nx, ny, nz, d, margin float32) Contact {
	return planeContactLane(ax, ay, az, bx, by, bz, r, nx, ny, nz, d, margin)
}

// PlaneContactLane64 is PlaneContactLane in float64.
func PlaneContactLane64(ax, ay, az, bx, by, bz, r, nx, ny, nz, d, margin float64) Contact64 {
	return planeContactLane(ax, ay, az, bx, by, bz, r, nx, ny, nz, d, margin)
}

// PlaneContactLaneOf is PlaneContactLane or PlaneContactLane64, for code
// generic in the element type.
func PlaneContactLaneOf[F Float](ax, ay, az, bx, by, bz, r, nx, ny, nz, d, margin F) ContactOf[F] {
	return planeContactLane(ax, ay, az, bx, by, bz, r, nx, ny, nz, d, margin)
}

func planeContactLane[F Float](ax, ay, az, bx, by, bz, r, nx, ny, nz, d, margin F) (c ContactOf[F]) {
	sa := dot(nx, ny, nz, ax, ay, az) - d
	sb := dot(nx, ny, nz, bx, by, bz) - d
	da, db := r-sa, r-sb
	if !(absF(da+db) <= maxFinite[F]()) || r < 0 {
		nan := canonicalNaN[F]()
		return ContactOf[F]{
			Depth:  [2]F{nan, nan},
			Normal: [3]F{nan, nan, nan},
			Point:  [2][3]F{{nan, nan, nan}, {nan, nan, nan}},
		}
	}
	lim := r + margin
	touchA, touchB := sa <= lim, sb <= lim
	sphere := ax == bx && ay == by && az == bz
	c.Normal = [3]F{nx, ny, nz}
	pa := planePoint(ax, ay, az, r, sa, nx, ny, nz)
	pb := planePoint(bx, by, bz, r, sb, nx, ny, nz)
	switch {
	case touchA && touchB && !sphere:
		c.Count = 2
		c.Depth, c.Point = [2]F{da, db}, [2][3]F{pa, pb}
		return c
	case touchA || touchB:
		c.Count = 1
	}
	if !touchA && sb < sa {
		c.Depth, c.Point = [2]F{db, db}, [2][3]F{pb, pb}
	} else {
		c.Depth, c.Point = [2]F{da, da}, [2][3]F{pa, pa}
	}
	return c
}

// planePoint returns X - n h, h = (r + s) * 0.5: midway between the
// capsule's surface X - r n and the plane's X - s n.
func planePoint[F Float](x, y, z, r, s, nx, ny, nz F) [3]F {
	h := (r + s) * 0.5
	return [3]F{x - F(nx*h), y - F(ny*h), z - F(nz*h)}
}
