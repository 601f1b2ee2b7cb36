/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame integrity check: CRC-32C (see csum.h).
 *
 * Polynomials are in the reflected bit order CRC-32C uses: 0x80000000 is
 * 1, and multiplying by x is a right shift with a conditional xor of POLY.
 * Appending n zero bytes to a message multiplies its CRC register by
 * x^(8n); with PCLMUL that is crc32(0, clmul(reg, x^(8n - 33))), the 33
 * accounting for the reflected product's offset and the crc32
 * instruction's own x^32.  shift_k[m] holds x^(64m - 33) for m words.
 */
#include <string.h>

#include "csum.h"

#define POLY		0x82f63b78u
#define LANE_MAX	512		/* words per lane and step */
#define LANE_MIN	16		/* shorter frames: one chain */

static uint32_t table[8][256];
static uint32_t shift_k[2 * LANE_MAX + 1];

static uint32_t
times_x(uint32_t r)
{
	return r & 1 ? (r >> 1) ^ POLY : r >> 1;
}

__attribute__((constructor))
static void
tables_init(void)
{
	uint32_t k = 0x80000000u;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int b = 0; b < 8; b++)
			c = times_x(c);
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^
				table[0][table[t - 1][i] & 0xff];
	for (int i = 0; i < 64 - 33; i++)
		k = times_x(k);
	shift_k[1] = k;				/* x^(64 - 33) */
	for (unsigned m = 2; m <= 2 * LANE_MAX; m++) {
		for (int i = 0; i < 64; i++)
			k = times_x(k);
		shift_k[m] = k;
	}
}

static inline uint64_t
load64(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, 8);	/* CRC-32C reads bytes in order: LE words */
	return w;
}

/* One little-endian word (slicing by 8). */
static inline uint32_t
sw_u64(uint32_t c, uint64_t w)
{
	w ^= c;
	return table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
}

static uint32_t
sw_update(uint32_t c, const uint8_t *p, size_t len)
{
	for (; len >= 8; p += 8, len -= 8)
		c = sw_u64(c, load64(p));
	for (; len > 0; p++, len--)
		c = (c >> 8) ^ table[0][(c ^ *p) & 0xff];
	return c;
}

static uint32_t
sw_copy(uint32_t c, uint8_t *dst, const uint8_t *src, size_t len)
{
	memcpy(dst, src, len);
	return sw_update(c, dst, len);
}

uint32_t
mxd_csum_sw(const uint8_t *p, size_t len)
{
	return ~sw_update(~0u, p, len);
}

static uint32_t (*crc_update)(uint32_t, const uint8_t *, size_t) = sw_update;
static uint32_t (*crc_copy)(uint32_t, uint8_t *, const uint8_t *, size_t) =
	sw_copy;

#if defined(__x86_64__)
#include <immintrin.h>

/* The register c followed by 'words' zero words. */
__attribute__((target("sse4.2,pclmul")))
static inline uint32_t
hw_shift(uint32_t c, unsigned words)
{
	__m128i a = _mm_cvtsi32_si128((int)c);
	__m128i k = _mm_cvtsi32_si128((int)shift_k[words]);

	return (uint32_t)__builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(
				_mm_clmulepi64_si128(a, k, 0)));
}

static inline void
store64(uint8_t *p, uint64_t w)
{
	memcpy(p, &w, 8);
}

/*
 * Three chains over three thirds of each step, joined by hw_shift; with
 * 'dst', every word read is also written there (the copy costs the stores
 * only: the loads are the CRC's).
 */
__attribute__((target("sse4.2,pclmul"), always_inline))
static inline uint32_t
hw_run(uint32_t crc, uint8_t *dst, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 3 * 8 * LANE_MIN) {
		size_t s = len / 24 < LANE_MAX ? len / 24 : LANE_MAX;
		uint64_t b = 0, d = 0;

		for (size_t i = 0; i < s; i++) {
			uint64_t w0 = load64(p + 8 * i);
			uint64_t w1 = load64(p + 8 * (s + i));
			uint64_t w2 = load64(p + 8 * (2 * s + i));

			if (dst != NULL) {
				store64(dst + 8 * i, w0);
				store64(dst + 8 * (s + i), w1);
				store64(dst + 8 * (2 * s + i), w2);
			}
			c = __builtin_ia32_crc32di(c, w0);
			b = __builtin_ia32_crc32di(b, w1);
			d = __builtin_ia32_crc32di(d, w2);
		}
		c = hw_shift((uint32_t)c, 2 * (unsigned)s) ^
			hw_shift((uint32_t)b, (unsigned)s) ^ d;
		p += 24 * s;
		len -= 24 * s;
		if (dst != NULL)
			dst += 24 * s;
	}
	for (; len >= 8; p += 8, len -= 8) {
		uint64_t w = load64(p);

		if (dst != NULL) {
			store64(dst, w);
			dst += 8;
		}
		c = __builtin_ia32_crc32di(c, w);
	}
	for (; len > 0; p++, len--) {
		if (dst != NULL)
			*dst++ = *p;
		c = __builtin_ia32_crc32qi((uint32_t)c, *p);
	}
	return (uint32_t)c;
}

__attribute__((target("sse4.2,pclmul")))
static uint32_t
hw_update(uint32_t c, const uint8_t *p, size_t len)
{
	return hw_run(c, NULL, p, len);
}

/*
 * The three chains read three short streams at once, which the hardware
 * prefetcher does not follow: a source out of cache (a large send's user
 * buffer) is asked for whole first, its lines then arrive in parallel
 * (measured: 1.4 times the rate from a 32 MiB buffer, the same from cache).
 */
__attribute__((target("sse4.2,pclmul")))
static uint32_t
hw_copy(uint32_t c, uint8_t *dst, const uint8_t *src, size_t len)
{
	for (size_t i = 0; i < len && i < 4096; i += 64)
		__builtin_prefetch(src + i, 0, 3);
	return hw_run(c, dst, src, len);
}

__attribute__((constructor))
static void
pick(void)
{
	if (__builtin_cpu_supports("sse4.2") &&
			__builtin_cpu_supports("pclmul")) {
		crc_update = hw_update;
		crc_copy = hw_copy;
	}
}
#endif

uint32_t
mxd_crc_update(uint32_t c, const uint8_t *p, size_t len)
{
	return crc_update(c, p, len);
}

uint32_t
mxd_crc_copy(uint32_t c, uint8_t *dst, const uint8_t *src, size_t len)
{
	return crc_copy(c, dst, src, len);
}

uint32_t
mxd_csum(const uint8_t *p, size_t len)
{
	return ~crc_update(~0u, p, len);
}
