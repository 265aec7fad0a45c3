//go:build peers && cgo && amd64

// Hand-written AVX-512 intrinsics peer of segdist's ClosestAVX512 (see
// c_amd64.go). The operation order is exactly that of
// fallback.ClosestLane (fallback.projection.project), so the results are
// bit-identical to every segdist path (TestPeersBitIdentical). No FMA and
// no -ffast-math: GCC would fuse the _mm512_mul_ps/_mm512_add_ps pairs
// into FMAs (which round once and change the bits), and -ffast-math would
// let it treat min/max as commutative (which changes NaN and -0 results).
//
// The whole batch runs in one call: a cgo call costs about 35 ns here
// (measured with n = 0), under 0.01 ns/pair at n = 4096. (The benchmark
// must still let the goroutine be rescheduled now and then; see benchImpls
// in peers_test.go.)

// cgo's flag allowlist rejects -ffp-contract=off in #cgo CFLAGS, and GCC
// contracts mul+add intrinsics into VFMADD with just -mavx512f (180 FMAs
// in this file without this line), so contraction is switched off here,
// in the source.
#pragma GCC optimize("fp-contract=off")

#include <immintrin.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>

#include "closest_avx512.h"

// The constants live in registers for the whole loop.
typedef struct {
	__m512 zero, one, minnormal, maxf, nan;
} consts;

static inline __attribute__((always_inline)) consts make_consts(void) {
	consts k;
	k.zero = _mm512_setzero_ps();
	k.one = _mm512_set1_ps(1.0f);
	k.minnormal = _mm512_set1_ps(FLT_MIN); // 2^-126
	k.maxf = _mm512_set1_ps(FLT_MAX);
	k.nan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000));
	return k;
}

#define ADD _mm512_add_ps
#define SUB _mm512_sub_ps
#define MUL _mm512_mul_ps

// dot = ((x0*y0) + (x1*y1)) + (x2*y2), each product rounded (no FMA).
static inline __attribute__((always_inline)) __m512 dot3(__m512 x0, __m512 x1, __m512 x2,
                                                         __m512 y0, __m512 y1, __m512 y2) {
	return ADD(ADD(MUL(x0, y0), MUL(x1, y1)), MUL(x2, y2));
}

// n/d, or 0 where d == 0 (fallback.divOrZero; d != 0 is the unordered
// not-equal, true for NaN, like Go's d != 0). Masked-out lanes are not
// divided at all.
static inline __attribute__((always_inline)) __m512 div_or_zero(__m512 n, __m512 d, __m512 zero) {
	__mmask16 k = _mm512_cmp_ps_mask(d, zero, _CMP_NEQ_UQ);
	return _mm512_maskz_div_ps(k, n, d);
}

// 1/l where l >= 2^-126 (ordered: false for NaN), else 0
// (fallback.recipOrZero).
static inline __attribute__((always_inline)) __m512 recip_or_zero(__m512 l, const consts *K) {
	__mmask16 k = _mm512_cmp_ps_mask(l, K->minnormal, _CMP_GE_OQ);
	return _mm512_maskz_div_ps(k, K->one, l);
}

// clamp01(x) = max(min(x, 1), 0) with x as the FIRST source of VMINPS and
// VMAXPS, which return their second source when either operand is NaN or
// both are zero: min(x, 1) = x < 1 ? x : 1 and max(y, 0) = y > 0 ? y : 0,
// exactly fallback.clamp01 (if !(x < 1) {x = 1}; if !(x > 0) {x = 0}): NaN
// becomes 1 and -0 becomes +0. GCC keeps the operand order of these
// builtins unless -ffast-math.
static inline __attribute__((always_inline)) __m512 clamp01(__m512 x, __m512 zero, __m512 one) {
	return _mm512_max_ps(_mm512_min_ps(x, one), zero);
}

// One group of 16 lanes: fallback.ClosestLane, step for step.
static inline __attribute__((always_inline)) void lane16(
	const consts *K,
	__m512 ax, __m512 ay, __m512 az, __m512 bx, __m512 by, __m512 bz,
	__m512 cx, __m512 cy, __m512 cz, __m512 dx, __m512 dy, __m512 dz,
	__m512 *S, __m512 *T, __m512 *D2) {
	const __m512 zero = K->zero, one = K->one;
	__m512 m0x = SUB(bx, ax), m0y = SUB(by, ay), m0z = SUB(bz, az);
	__m512 ux = SUB(dx, cx), uy = SUB(dy, cy), uz = SUB(dz, cz);
	__m512 ex = SUB(ax, cx), ey = SUB(ay, cy), ez = SUB(az, cz);

	// Step 1.
	__m512 invL = recip_or_zero(dot3(ux, uy, uz, ux, uy, uz), K);
	__m512 invA = recip_or_zero(dot3(m0x, m0y, m0z, m0x, m0y, m0z), K); // for step 4
	__m512 ka = MUL(dot3(ux, uy, uz, ex, ey, ez), invL);
	__m512 um = dot3(ux, uy, uz, m0x, m0y, m0z);
	__m512 kb = MUL(um, invL);
	__m512 em = dot3(ex, ey, ez, m0x, m0y, m0z); // for step 4
	__m512 nx = SUB(MUL(ux, ka), ex), ny = SUB(MUL(uy, ka), ey), nz = SUB(MUL(uz, ka), ez);
	__m512 wx = SUB(m0x, MUL(ux, kb)), wy = SUB(m0y, MUL(uy, kb)), wz = SUB(m0z, MUL(uz, kb));

	// Step 2.
	__m512 s1 = clamp01(div_or_zero(dot3(nx, ny, nz, wx, wy, wz), dot3(wx, wy, wz, wx, wy, wz), zero), zero, one);

	// Step 3: t = clamp01(ka + s1 kb).
	__m512 t = clamp01(ADD(ka, MUL(s1, kb)), zero, one);

	// Step 4: s = clamp01((t u.M0 - E.M0) invA).
	__m512 s = clamp01(MUL(SUB(MUL(t, um), em), invA), zero, one);
	__m512 tux = MUL(ux, t), tuy = MUL(uy, t), tuz = MUL(uz, t);

	__m512 rx = SUB(ADD(ex, MUL(m0x, s)), tux);
	__m512 ry = SUB(ADD(ey, MUL(m0y, s)), tuy);
	__m512 rz = SUB(ADD(ez, MUL(m0z, s)), tuz);
	__m512 d2 = dot3(rx, ry, rz, rx, ry, rz);

	// !(d2 <= FLT_MAX): NaN or +Inf -> canonical NaN in all three outputs.
	__mmask16 bad = _mm512_cmp_ps_mask(d2, K->maxf, _CMP_NLE_UQ);
	*S = _mm512_mask_blend_ps(bad, s, K->nan);
	*T = _mm512_mask_blend_ps(bad, t, K->nan);
	*D2 = _mm512_mask_blend_ps(bad, d2, K->nan);
}

#define LD(p) _mm512_loadu_ps((p) + i)
#define LDG(p, g) _mm512_loadu_ps((p) + i + 16 * (g))
#define LDM(p) _mm512_maskz_loadu_ps(m, (p) + i)

// Masked tail: lanes at or past n are never loaded or stored.
static inline __attribute__((always_inline)) void tail(
	const consts *K, size_t i, size_t n,
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2) {
	if (i >= n) return;
	__mmask16 m = (__mmask16)_bzhi_u32(0xFFFFu, (unsigned)(n - i));
	__m512 S, T, D2;
	lane16(K, LDM(ax), LDM(ay), LDM(az), LDM(bx), LDM(by), LDM(bz),
	       LDM(cx), LDM(cy), LDM(cz), LDM(dx), LDM(dy), LDM(dz), &S, &T, &D2);
	_mm512_mask_storeu_ps(s + i, m, S);
	_mm512_mask_storeu_ps(t + i, m, T);
	_mm512_mask_storeu_ps(dist2 + i, m, D2);
}

// One group of 16 per iteration.
void peers_closest_avx512_x1(
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2, size_t n) {
	const consts K = make_consts();
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		__m512 S, T, D2;
		lane16(&K, LD(ax), LD(ay), LD(az), LD(bx), LD(by), LD(bz),
		       LD(cx), LD(cy), LD(cz), LD(dx), LD(dy), LD(dz), &S, &T, &D2);
		_mm512_storeu_ps(s + i, S);
		_mm512_storeu_ps(t + i, T);
		_mm512_storeu_ps(dist2 + i, D2);
	}
	tail(&K, i, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2);
}

// Two independent groups of 16 per iteration (32 pairs), as two inlined
// copies of lane16 in sequence; GCC and the out-of-order core overlap
// their dependency chains. Then at most one full group and the masked tail.
void peers_closest_avx512_x2(
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2, size_t n) {
	const consts K = make_consts();
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		__m512 S0, T0, D0, S1, T1, D1;
		lane16(&K, LDG(ax, 0), LDG(ay, 0), LDG(az, 0), LDG(bx, 0), LDG(by, 0), LDG(bz, 0),
		       LDG(cx, 0), LDG(cy, 0), LDG(cz, 0), LDG(dx, 0), LDG(dy, 0), LDG(dz, 0), &S0, &T0, &D0);
		lane16(&K, LDG(ax, 1), LDG(ay, 1), LDG(az, 1), LDG(bx, 1), LDG(by, 1), LDG(bz, 1),
		       LDG(cx, 1), LDG(cy, 1), LDG(cz, 1), LDG(dx, 1), LDG(dy, 1), LDG(dz, 1), &S1, &T1, &D1);
		_mm512_storeu_ps(s + i, S0);
		_mm512_storeu_ps(t + i, T0);
		_mm512_storeu_ps(dist2 + i, D0);
		_mm512_storeu_ps(s + i + 16, S1);
		_mm512_storeu_ps(t + i + 16, T1);
		_mm512_storeu_ps(dist2 + i + 16, D1);
	}
	if (i + 16 <= n) {
		__m512 S, T, D2;
		lane16(&K, LD(ax), LD(ay), LD(az), LD(bx), LD(by), LD(bz),
		       LD(cx), LD(cy), LD(cz), LD(dx), LD(dy), LD(dz), &S, &T, &D2);
		_mm512_storeu_ps(s + i, S);
		_mm512_storeu_ps(t + i, T);
		_mm512_storeu_ps(dist2 + i, D2);
		i += 16;
	}
	tail(&K, i, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2);
}

#define PF(p, off) _mm_prefetch((const char *)((p) + i) + (off), _MM_HINT_T0)
#define PF_ALL(off) do { \
	PF(ax, off); PF(ay, off); PF(az, off); PF(bx, off); PF(by, off); PF(bz, off); \
	PF(cx, off); PF(cy, off); PF(cz, off); PF(dx, off); PF(dy, off); PF(dz, off); \
} while (0)

// As peers_closest_avx512_x1, with a software prefetch of every input
// stream pf bytes ahead (one cache line per stream per group).
void peers_closest_avx512_x1_pf(
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2, size_t n, size_t pf) {
	const consts K = make_consts();
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		PF_ALL(pf);
		__m512 S, T, D2;
		lane16(&K, LD(ax), LD(ay), LD(az), LD(bx), LD(by), LD(bz),
		       LD(cx), LD(cy), LD(cz), LD(dx), LD(dy), LD(dz), &S, &T, &D2);
		_mm512_storeu_ps(s + i, S);
		_mm512_storeu_ps(t + i, T);
		_mm512_storeu_ps(dist2 + i, D2);
	}
	tail(&K, i, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2);
}

// As peers_closest_avx512_x2, with software prefetch pf bytes ahead.
void peers_closest_avx512_x2_pf(
	const float *restrict ax, const float *restrict ay, const float *restrict az,
	const float *restrict bx, const float *restrict by, const float *restrict bz,
	const float *restrict cx, const float *restrict cy, const float *restrict cz,
	const float *restrict dx, const float *restrict dy, const float *restrict dz,
	float *restrict s, float *restrict t, float *restrict dist2, size_t n, size_t pf) {
	const consts K = make_consts();
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		PF_ALL(pf);
		PF_ALL(pf + 64);
		__m512 S0, T0, D0, S1, T1, D1;
		lane16(&K, LDG(ax, 0), LDG(ay, 0), LDG(az, 0), LDG(bx, 0), LDG(by, 0), LDG(bz, 0),
		       LDG(cx, 0), LDG(cy, 0), LDG(cz, 0), LDG(dx, 0), LDG(dy, 0), LDG(dz, 0), &S0, &T0, &D0);
		lane16(&K, LDG(ax, 1), LDG(ay, 1), LDG(az, 1), LDG(bx, 1), LDG(by, 1), LDG(bz, 1),
		       LDG(cx, 1), LDG(cy, 1), LDG(cz, 1), LDG(dx, 1), LDG(dy, 1), LDG(dz, 1), &S1, &T1, &D1);
		_mm512_storeu_ps(s + i, S0);
		_mm512_storeu_ps(t + i, T0);
		_mm512_storeu_ps(dist2 + i, D0);
		_mm512_storeu_ps(s + i + 16, S1);
		_mm512_storeu_ps(t + i + 16, T1);
		_mm512_storeu_ps(dist2 + i + 16, D1);
	}
	if (i + 16 <= n) {
		__m512 S, T, D2;
		lane16(&K, LD(ax), LD(ay), LD(az), LD(bx), LD(by), LD(bz),
		       LD(cx), LD(cy), LD(cz), LD(dx), LD(dy), LD(dz), &S, &T, &D2);
		_mm512_storeu_ps(s + i, S);
		_mm512_storeu_ps(t + i, T);
		_mm512_storeu_ps(dist2 + i, D2);
		i += 16;
	}
	tail(&K, i, n, ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz, s, t, dist2);
}
