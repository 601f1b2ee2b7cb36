/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Moving bytes into and out of a descriptor's region, contiguous or in
 * segments (PTL_MD_IOVEC): for transports (transport.h).
 */
#include <string.h>

#include "portals/ptl.h"

ptl_size_t
mxd_ptl_region_span(const struct mxd_ptl_region *r, ptl_size_t at,
		uint8_t **p)
{
	ptl_size_t pos;

	if (at >= r->length)
		return 0;
	if (r->iov == NULL) {
		*p = r->base + r->offset + at;
		return r->length - at;
	}
	pos = r->offset + at;		/* in the descriptor */
	for (uint32_t i = 0; i < r->niov; i++) {
		ptl_size_t len = r->iov[i].iov_len;

		if (pos < len) {
			ptl_size_t n = len - pos;

			*p = (uint8_t *)r->iov[i].iov_base + pos;
			return n < r->length - at ? n : r->length - at;
		}
		pos -= len;
	}
	return 0;
}

void
mxd_ptl_region_write(const struct mxd_ptl_region *r, ptl_size_t at,
		const void *src, ptl_size_t n)
{
	const uint8_t *s = src;

	while (n > 0) {
		uint8_t *p;
		ptl_size_t k = mxd_ptl_region_span(r, at, &p);

		if (k == 0)
			return;
		if (k > n)
			k = n;
		memcpy(p, s, (size_t)k);
		s += k;
		at += k;
		n -= k;
	}
}

void
mxd_ptl_region_read(const struct mxd_ptl_region *r, ptl_size_t at,
		void *dst, ptl_size_t n)
{
	uint8_t *d = dst;

	while (n > 0) {
		uint8_t *p;
		ptl_size_t k = mxd_ptl_region_span(r, at, &p);

		if (k == 0)
			return;
		if (k > n)
			k = n;
		memcpy(d, p, (size_t)k);
		d += k;
		at += k;
		n -= k;
	}
}
