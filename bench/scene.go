package main

import (
	"math"
	"math/rand/v2"
)

// capsule is a segment from P0 to P1 swept by a sphere of radius R. A
// zero-length capsule (P0 == P1) is a sphere.
type capsule struct {
	P0, P1 [3]float32
	R      float32
}

// Bound returns the capsule's bounding sphere: the midpoint of its axis and
// half its length plus its radius, in float64. The radius is rounded up by a
// relative 1e-6 so that float32 endpoints never stick out of it.
func (c capsule) Bound() (center [3]float64, radius float64) {
	var h2 float64
	for k := range 3 {
		p0, p1 := float64(c.P0[k]), float64(c.P1[k])
		center[k] = 0.5 * (p0 + p1)
		h := 0.5 * (p1 - p0)
		h2 += h * h
	}
	radius = (math.Sqrt(h2) + float64(c.R)) * (1 + 1e-6)
	return center, radius
}

// Scene parameters. The box side grows with the cube root of the capsule
// count so that the density, and so the number of candidate pairs per
// capsule, stays the same at every scene size.
const (
	volumePerCapsule = 3.0 // box volume per capsule, in length units cubed

	// Probabilities of each kind of placement. A stack places 4.5
	// capsules on average, the others one, so about 9% of the capsules
	// are spheres, 16% are in stacks and 3% are large.
	sphereFrac = 0.10 // a zero-length capsule (a sphere)
	stackFrac  = 0.04 // a stack of 3 to 6 parallel capsules
	largeFrac  = 0.03 // a large capsule (they set the grid cell size)
)

// boxSide returns the side of the cube the scene's n capsules are spread
// over.
func boxSide(n int) float64 {
	return math.Cbrt(float64(max(n, 1)) * volumePerCapsule)
}

// newScene returns n capsules with random positions in the cube
// [0, BoxSide(n)]^3, random orientations and mixed sizes: mostly small and
// medium capsules, about 9% spheres (zero-length capsules), 3% large
// capsules, and 16% in stacks of 3 to 6 parallel capsules (a pile of logs:
// one axis direction, each capsule shifted by about one diameter
// perpendicular to it, some touching, some just apart; a third of the
// stacks are axis-aligned, so exactly parallel in float32). The same n and
// seed give the same scene on every platform.
func newScene(n int, seed uint64) []capsule {
	r := rand.New(rand.NewPCG(seed, 0x5ce4e))
	side := boxSide(n)
	caps := make([]capsule, 0, n)
	for len(caps) < n {
		center := [3]float64{side * r.Float64(), side * r.Float64(), side * r.Float64()}
		u := r.Float64()
		switch {
		case u < sphereFrac:
			caps = append(caps, capsuleAt(center, [3]float64{}, 0, uniform(r, 0.1, 0.5)))
		case u < sphereFrac+stackFrac:
			caps = appendStack(caps, r, center, n-len(caps))
		case u < sphereFrac+stackFrac+largeFrac:
			caps = append(caps, capsuleAt(center, unitVec(r), uniform(r, 2, 3.5), uniform(r, 0.3, 0.6)))
		default:
			caps = append(caps, capsuleAt(center, unitVec(r), uniform(r, 0.2, 1.5), uniform(r, 0.05, 0.3)))
		}
	}
	return caps
}

// appendStack appends a stack of 3 to 6 (at most room) parallel capsules
// around center.
func appendStack(caps []capsule, r *rand.Rand, center [3]float64, room int) []capsule {
	k := min(3+r.IntN(4), room)
	var dir, perp [3]float64
	if r.IntN(3) == 0 {
		// Axis-aligned: the float32 axes are exactly parallel.
		a := r.IntN(3)
		dir[a] = 1
		perp[(a+1+r.IntN(2))%3] = 1
	} else {
		dir = unitVec(r)
		perp = unitVec(r)
		// Gram-Schmidt: perp orthogonal to dir.
		d := dot(perp, dir)
		for i := range 3 {
			perp[i] -= d * dir[i]
		}
		perp = scale(perp, 1/math.Sqrt(dot(perp, perp)))
	}
	length := uniform(r, 0.5, 2)
	radius := uniform(r, 0.1, 0.3)
	for j := range k {
		// Spacing between 0.9 and 1.1 diameters: some overlap, some do not.
		off := float64(j) * 2 * radius * uniform(r, 0.9, 1.1)
		c := [3]float64{}
		for i := range 3 {
			c[i] = center[i] + off*perp[i]
		}
		caps = append(caps, capsuleAt(c, dir, length, radius))
	}
	return caps
}

// capsuleAt returns the capsule of the given length and radius centred at c
// along the unit direction dir.
func capsuleAt(c, dir [3]float64, length, radius float64) capsule {
	var cp capsule
	for i := range 3 {
		cp.P0[i] = float32(c[i] - 0.5*length*dir[i])
		cp.P1[i] = float32(c[i] + 0.5*length*dir[i])
	}
	if length == 0 {
		cp.P1 = cp.P0
	}
	cp.R = float32(radius)
	return cp
}

func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// unitVec returns a direction uniform on the unit sphere.
func unitVec(r *rand.Rand) [3]float64 {
	for {
		v := [3]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		if n := math.Sqrt(dot(v, v)); n > 1e-9 {
			return scale(v, 1/n)
		}
	}
}

func dot(x, y [3]float64) float64 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }

func scale(x [3]float64, k float64) [3]float64 { return [3]float64{x[0] * k, x[1] * k, x[2] * k} }
