package main

import (
	"math"
	"slices"
)

// candidate is a pair of capsule indices, I < J, whose bounding spheres
// overlap: the broadphase's output and the narrowphase's input.
type candidate struct {
	I, J int32
}

// overlap reports whether the bounding spheres of two capsules touch or
// overlap. The broadphase and the brute-force check in the tests share it,
// so that both decide borderline pairs identically.
func overlap(c1 [3]float64, r1 float64, c2 [3]float64, r2 float64) bool {
	var d2 float64
	for k := range 3 {
		d := c1[k] - c2[k]
		d2 += d * d
	}
	r := r1 + r2
	return d2 <= r*r
}

// broadphase returns every pair of capsules whose bounding spheres overlap,
// each pair once with I < J, sorted by (I, J).
//
// It is a uniform grid: the cell side is at least the largest
// bounding-sphere diameter, so two overlapping capsules have their centres
// in the same or adjacent cells. Each capsule is put in the one cell that
// holds its centre (a counting sort, so every cell lists its capsules in
// index order); each cell is then tested against itself and 13 of its 26
// neighbours (the ones after it in index order), so that every pair of
// cells is visited once. The result is sorted at the end, which makes the
// order independent of the grid.
//
// progress, if not nil, is called now and then with the number of cells
// done and the number of cells.
func broadphase(caps []capsule, progress func(done, total int)) []candidate {
	n := len(caps)
	if n < 2 {
		return nil
	}
	centers := make([][3]float64, n)
	radii := make([]float64, n)
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	maxR := 0.0
	for i, c := range caps {
		centers[i], radii[i] = c.Bound()
		maxR = max(maxR, radii[i])
		for k := range 3 {
			lo[k] = min(lo[k], centers[i][k])
			hi[k] = max(hi[k], centers[i][k])
		}
	}

	// Cell side: the largest diameter, made larger if the grid would have
	// many more cells than capsules (a few huge or far-flung capsules).
	cell := max(2*maxR, 1e-30)
	var dims [3]int
	for {
		total := 1.0
		for k := range 3 {
			dims[k] = int(math.Floor((hi[k]-lo[k])/cell)) + 1
			total *= float64(dims[k])
		}
		if total <= float64(2*n+64) {
			break
		}
		cell *= math.Max(1.01, math.Cbrt(total/float64(2*n+64)))
	}
	cellOf := func(p [3]float64) (x, y, z int) {
		idx := func(k int) int {
			v := int(math.Floor((p[k] - lo[k]) / cell))
			return min(max(v, 0), dims[k]-1)
		}
		return idx(0), idx(1), idx(2)
	}
	ncell := dims[0] * dims[1] * dims[2]
	id := func(x, y, z int) int { return (z*dims[1]+y)*dims[0] + x }

	// Counting sort of the capsules by cell.
	start := make([]int32, ncell+1)
	home := make([]int32, n)
	for i := range caps {
		x, y, z := cellOf(centers[i])
		home[i] = int32(id(x, y, z))
		start[home[i]+1]++
	}
	for c := range ncell {
		start[c+1] += start[c]
	}
	members := make([]int32, n)
	fill := slices.Clone(start[:ncell])
	for i := range caps {
		members[fill[home[i]]] = int32(i)
		fill[home[i]]++
	}

	// The 13 forward neighbours: offsets whose (dz, dy, dx) is
	// lexicographically positive.
	var fwd [][3]int
	for dz := -1; dz <= 1; dz++ {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dz > 0 || dz == 0 && (dy > 0 || dy == 0 && dx > 0) {
					fwd = append(fwd, [3]int{dx, dy, dz})
				}
			}
		}
	}

	var keys []uint64 // I<<32 | J, sorted at the end
	emit := func(i, j int32) {
		if overlap(centers[i], radii[i], centers[j], radii[j]) {
			if i > j {
				i, j = j, i
			}
			keys = append(keys, uint64(i)<<32|uint64(j))
		}
	}
	c := 0
	for z := range dims[2] {
		for y := range dims[1] {
			for x := range dims[0] {
				own := members[start[c]:start[c+1]]
				if len(own) > 0 {
					for a, i := range own {
						for _, j := range own[a+1:] {
							emit(i, j)
						}
					}
					for _, o := range fwd {
						nx, ny, nz := x+o[0], y+o[1], z+o[2]
						if nx < 0 || ny < 0 || nz < 0 || nx >= dims[0] || ny >= dims[1] || nz >= dims[2] {
							continue
						}
						nc := id(nx, ny, nz)
						other := members[start[nc]:start[nc+1]]
						for _, i := range own {
							for _, j := range other {
								emit(i, j)
							}
						}
					}
				}
				c++
				if progress != nil && c%4096 == 0 {
					progress(c, ncell)
				}
			}
		}
	}
	if progress != nil {
		progress(ncell, ncell)
	}
	slices.Sort(keys)
	out := make([]candidate, len(keys))
	for k, key := range keys {
		out[k] = candidate{I: int32(key >> 32), J: int32(uint32(key))}
	}
	return out
}
