/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Copies of a few dozen bytes of known size (a header template, a
 * record's fields) as 16-byte moves.  gcc makes a memcpy of such a size
 * in a large function a string instruction (rep movs), which steps a
 * word at a time; vector variables keep it to a load and a store per 16
 * bytes, on any target gcc or clang builds for.
 */
#ifndef MXD_COPY_H
#define MXD_COPY_H

#include <stdint.h>
#include <string.h>

typedef uint64_t mxd_v16 __attribute__((vector_size(16)));

/* n bytes, n a multiple of 8 known at compile time (inline: unrolled). */
static inline __attribute__((always_inline)) void
mxd_copy_fixed(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		mxd_v16 v;

		memcpy(&v, s + i, 16);
		memcpy(d + i, &v, 16);
	}
	if (i < n) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		memcpy(d + i, &w, 8);
	}
}

#endif /* MXD_COPY_H */
