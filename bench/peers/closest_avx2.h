//go:build peers && cgo && amd64

#ifndef SEGDIST_PEERS_CLOSEST_AVX2_H
#define SEGDIST_PEERS_CLOSEST_AVX2_H

#include <stddef.h>

void peers_closest_avx2(
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2, size_t n, int groups, size_t pf);

#endif
