package ir

// Vec3 is a 3D vector of wide values, one per coordinate.
type Vec3 [3]Value

// Inputs3 returns inputs k, k+1, k+2 as a vector.
func (b *Builder) Inputs3(k int) Vec3 { return Vec3{b.Input(k), b.Input(k + 1), b.Input(k + 2)} }

// Sub3 returns x - y.
func (b *Builder) Sub3(x, y Vec3) Vec3 {
	return Vec3{b.Sub(x[0], y[0]), b.Sub(x[1], y[1]), b.Sub(x[2], y[2])}
}

// Scale returns x * k, coordinate by coordinate.
func (b *Builder) Scale(x Vec3, k Value) Vec3 {
	return Vec3{b.Mul(x[0], k), b.Mul(x[1], k), b.Mul(x[2], k)}
}

// Dot returns ((x0*y0) + (x1*y1)) + (x2*y2), each product rounded (no
// fusion), as fallback's dot.
func (b *Builder) Dot(x, y Vec3) Value {
	return b.Add(b.Add(b.Mul(x[0], y[0]), b.Mul(x[1], y[1])), b.Mul(x[2], y[2]))
}

// Select3 returns m ? x : y per lane and coordinate.
func (b *Builder) Select3(m Value, x, y Vec3) Vec3 {
	return Vec3{b.Select(m, x[0], y[0]), b.Select(m, x[1], y[1]), b.Select(m, x[2], y[2])}
}

// Park3 parks every coordinate of x (see Park).
func (b *Builder) Park3(why Park, x Vec3) Vec3 {
	return Vec3{b.Park(why, x[0]), b.Park(why, x[1]), b.Park(why, x[2])}
}

// Var3 returns a variable copy of x (see Var).
func (b *Builder) Var3(x Vec3) Vec3 { return Vec3{b.Var(x[0]), b.Var(x[1]), b.Var(x[2])} }

// Assign3 overwrites the variables v with x (see Assign).
func (b *Builder) Assign3(v, x Vec3) {
	for i := range v {
		b.Assign(v[i], x[i])
	}
}
