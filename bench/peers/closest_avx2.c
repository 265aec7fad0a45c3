//go:build peers && cgo && amd64

// Hand-written AVX2 intrinsics peer of segdist's ClosestAVX2 (see
// c_amd64.go): the same plane-projection kernel as closest_avx512.c, 8
// lanes per __m256, in the operation order of fallback.ClosestLane, so the
// results are bit-identical to every segdist path (TestPeersBitIdentical).
// As there: no FMA (contraction off below), no -ffast-math, MINPS/MAXPS
// with x as the first operand of clamp01.

#pragma GCC optimize("fp-contract=off")
// The package is compiled with -march=x86-64-v4 for the AVX-512 peer; this
// file is held to AVX2 (x86-64-v3: 16 YMM registers, no opmasks), as
// segdist's AVX2 path is, so that the comparison is like for like and the
// peer runs on AVX2-only CPUs.
#pragma GCC target("arch=x86-64-v3")

#include <immintrin.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>

#include "closest_avx2.h"

#define ADD _mm256_add_ps
#define SUB _mm256_sub_ps
#define MUL _mm256_mul_ps

typedef struct {
	__m256 zero, one, minnormal, maxf, nan;
} consts8;

static inline __attribute__((always_inline)) consts8 make_consts8(void) {
	consts8 k;
	k.zero = _mm256_setzero_ps();
	k.one = _mm256_set1_ps(1.0f);
	k.minnormal = _mm256_set1_ps(FLT_MIN); // 2^-126
	k.maxf = _mm256_set1_ps(FLT_MAX);
	k.nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
	return k;
}

// dot = ((x0*y0) + (x1*y1)) + (x2*y2), each product rounded (no FMA).
static inline __attribute__((always_inline)) __m256 dot3(__m256 x0, __m256 x1, __m256 x2,
                                                         __m256 y0, __m256 y1, __m256 y2) {
	return ADD(ADD(MUL(x0, y0), MUL(x1, y1)), MUL(x2, y2));
}

// n/d, or +0 where d == 0 (fallback.divOrZero): a true division, then a
// mask (unordered not-equal, true for NaN d).
static inline __attribute__((always_inline)) __m256 div_or_zero(__m256 n, __m256 d, __m256 zero) {
	return _mm256_and_ps(_mm256_cmp_ps(d, zero, _CMP_NEQ_UQ), _mm256_div_ps(n, d));
}

// 1/l where l >= 2^-126 (ordered), else +0 (fallback.recipOrZero).
static inline __attribute__((always_inline)) __m256 recip_or_zero(__m256 l, const consts8 *K) {
	return _mm256_and_ps(_mm256_cmp_ps(l, K->minnormal, _CMP_GE_OQ), _mm256_div_ps(K->one, l));
}

// clamp01 = max(min(x, 1), 0), x the first source (fallback.clamp01).
static inline __attribute__((always_inline)) __m256 clamp01(__m256 x, __m256 zero, __m256 one) {
	return _mm256_max_ps(_mm256_min_ps(x, one), zero);
}

// One group of 8 lanes: fallback.ClosestLane, step for step.
static inline __attribute__((always_inline)) void lane8(
	const consts8 *K,
	__m256 ax, __m256 ay, __m256 az, __m256 bx, __m256 by, __m256 bz,
	__m256 cx, __m256 cy, __m256 cz, __m256 dx, __m256 dy, __m256 dz,
	__m256 *S, __m256 *T, __m256 *D2) {
	const __m256 zero = K->zero, one = K->one;
	__m256 m0x = SUB(bx, ax), m0y = SUB(by, ay), m0z = SUB(bz, az);
	__m256 ux = SUB(dx, cx), uy = SUB(dy, cy), uz = SUB(dz, cz);
	__m256 ex = SUB(ax, cx), ey = SUB(ay, cy), ez = SUB(az, cz);

	// Step 1 (and 1/|M0|^2 for step 4).
	__m256 invL = recip_or_zero(dot3(ux, uy, uz, ux, uy, uz), K);
	__m256 invA = recip_or_zero(dot3(m0x, m0y, m0z, m0x, m0y, m0z), K);
	__m256 ka = MUL(dot3(ux, uy, uz, ex, ey, ez), invL);
	__m256 um = dot3(ux, uy, uz, m0x, m0y, m0z);
	__m256 kb = MUL(um, invL);
	__m256 em = dot3(ex, ey, ez, m0x, m0y, m0z); // for step 4
	__m256 nx = SUB(MUL(ux, ka), ex), ny = SUB(MUL(uy, ka), ey), nz = SUB(MUL(uz, ka), ez);
	__m256 wx = SUB(m0x, MUL(ux, kb)), wy = SUB(m0y, MUL(uy, kb)), wz = SUB(m0z, MUL(uz, kb));

	// Step 2.
	__m256 s1 = clamp01(div_or_zero(dot3(nx, ny, nz, wx, wy, wz), dot3(wx, wy, wz, wx, wy, wz), zero), zero, one);

	// Step 3: t = clamp01(ka + s1 kb).
	__m256 t = clamp01(ADD(ka, MUL(s1, kb)), zero, one);

	// Step 4: s = clamp01((t u.M0 - E.M0) invA).
	__m256 s = clamp01(MUL(SUB(MUL(t, um), em), invA), zero, one);
	__m256 tux = MUL(ux, t), tuy = MUL(uy, t), tuz = MUL(uz, t);

	__m256 rx = SUB(ADD(ex, MUL(m0x, s)), tux);
	__m256 ry = SUB(ADD(ey, MUL(m0y, s)), tuy);
	__m256 rz = SUB(ADD(ez, MUL(m0z, s)), tuz);
	__m256 d2 = dot3(rx, ry, rz, rx, ry, rz);

	// !(d2 <= FLT_MAX): canonical NaN in all three outputs.
	__m256 bad = _mm256_cmp_ps(d2, K->maxf, _CMP_NLE_UQ);
	*S = _mm256_blendv_ps(s, K->nan, bad);
	*T = _mm256_blendv_ps(t, K->nan, bad);
	*D2 = _mm256_blendv_ps(d2, K->nan, bad);
}

#define LD8(p) _mm256_loadu_ps((p) + i)
#define LDG8(p, g) _mm256_loadu_ps((p) + i + 8 * (g))
#define LDM8(p) _mm256_maskload_ps((p) + i, m)
#define PF8(p, off) _mm_prefetch((const char *)((p) + i) + (off), _MM_HINT_T0)
#define PF8_ALL(off) do { \
	PF8(ax, off); PF8(ay, off); PF8(az, off); PF8(bx, off); PF8(by, off); PF8(bz, off); \
	PF8(cx, off); PF8(cy, off); PF8(cz, off); PF8(dx, off); PF8(dy, off); PF8(dz, off); \
} while (0)

// Masked tail (VMASKMOVPS): lanes at or past n are never loaded or stored.
static inline __attribute__((always_inline)) void tail8(
	const consts8 *K, size_t i, size_t n,
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2) {
	if (i >= n) return;
	__m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	__m256 S, T, D2;
	lane8(K, LDM8(ax), LDM8(ay), LDM8(az), LDM8(bx), LDM8(by), LDM8(bz),
	      LDM8(cx), LDM8(cy), LDM8(cz), LDM8(dx), LDM8(dy), LDM8(dz), &S, &T, &D2);
	_mm256_maskstore_ps(s + i, m, S);
	_mm256_maskstore_ps(t + i, m, T);
	_mm256_maskstore_ps(dist2 + i, m, D2);
}

// groups (1 or 2) groups of 8 per iteration, each input stream prefetched
// pf bytes ahead (0: no prefetch), then whole groups, then the tail.
void peers_closest_avx2(
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2, size_t n, int groups, size_t pf) {
	const consts8 K = make_consts8();
	size_t i = 0;
	if (groups == 2) {
		for (; i + 16 <= n; i += 16) {
			if (pf) {
				PF8_ALL(pf);
			}
			__m256 S0, T0, D0, S1, T1, D1;
			lane8(&K, LDG8(ax, 0), LDG8(ay, 0), LDG8(az, 0), LDG8(bx, 0), LDG8(by, 0), LDG8(bz, 0),
			      LDG8(cx, 0), LDG8(cy, 0), LDG8(cz, 0), LDG8(dx, 0), LDG8(dy, 0), LDG8(dz, 0), &S0, &T0, &D0);
			lane8(&K, LDG8(ax, 1), LDG8(ay, 1), LDG8(az, 1), LDG8(bx, 1), LDG8(by, 1), LDG8(bz, 1),
			      LDG8(cx, 1), LDG8(cy, 1), LDG8(cz, 1), LDG8(dx, 1), LDG8(dy, 1), LDG8(dz, 1), &S1, &T1, &D1);
			_mm256_storeu_ps(s + i, S0);
			_mm256_storeu_ps(t + i, T0);
			_mm256_storeu_ps(dist2 + i, D0);
			_mm256_storeu_ps(s + i + 8, S1);
			_mm256_storeu_ps(t + i + 8, T1);
			_mm256_storeu_ps(dist2 + i + 8, D1);
		}
	}
	for (; i + 8 <= n; i += 8) {
		if (pf) {
			PF8_ALL(pf);
		}
		__m256 S, T, D2;
		lane8(&K, LD8(ax), LD8(ay), LD8(az), LD8(bx), LD8(by), LD8(bz),
		      LD8(cx), LD8(cy), LD8(cz), LD8(dx), LD8(dy), LD8(dz), &S, &T, &D2);
		_mm256_storeu_ps(s + i, S);
		_mm256_storeu_ps(t + i, T);
		_mm256_storeu_ps(dist2 + i, D2);
	}
	tail8(&K, i, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2);
}
