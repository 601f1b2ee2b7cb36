/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests: a per-endpoint pool (one array, grown in chunks, never freed
 * per message) and the request state machine (request.h).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "csum.h"
#include "glue.h"
#include "util/request.h"

void
mxd_reqpool_init(struct mxd_reqpool *p, struct mx_endpoint *ep)
{
	p->free = NULL;
	p->base = 0;
	p->made = p->room = 0;
	p->allocated = 0;
	p->ep = ep;
	p->done_last = NULL;
}

void
mxd_reqpool_fini(struct mxd_reqpool *p)
{
	struct mx_request *r = (struct mx_request *)p->base;

	for (uint32_t i = 0; i < p->allocated; i++)
		if (r[i].segs != r[i].seg_inline)
			free(r[i].segs);
	if (p->base != 0)
		munmap((void *)p->base, p->room);
	mxd_reqpool_init(p, p->ep);
}

/* The range for the array: MXD_REQ_MAX requests' worth of address space
 * if the system gives it, else as much as it gives (halved until it
 * does), at least a chunk's.  Reserved, not committed: PROT_NONE. */
static int
reserve(struct mxd_reqpool *p, size_t pg)
{
	size_t chunk = MXD_REQ_CHUNK * sizeof(struct mx_request);

	for (size_t n = MXD_REQ_MAX / MXD_REQ_CHUNK; n >= 1; n /= 2) {
		size_t len = (n * chunk + pg - 1) & ~(pg - 1);
		void *a = mmap(NULL, len, PROT_NONE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);

		if (a != MAP_FAILED) {
			p->base = (uintptr_t)a;
			p->room = len;
			return 0;
		}
	}
	return -1;
}

int
mxd_reqpool_grow(struct mxd_reqpool *p)
{
	size_t len = MXD_REQ_CHUNK * sizeof(struct mx_request);
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct mx_request *c;
	uintptr_t lo, hi;

	if (p->base == 0 && reserve(p, pg) < 0)
		return -1;
	if (p->made + len > p->room)
		return -1;
	c = (struct mx_request *)(p->base + p->made);
	/* 72 KiB made usable and mapped in one call each, not a fault per
	 * page (its pages, whole: the first may be the last chunk's). */
	lo = (uintptr_t)c & ~(pg - 1);
	hi = ((uintptr_t)c + len + pg - 1) & ~(pg - 1);
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) != 0)
		return -1;
	mxd_glue_prefault(c, len);
	memset(c, 0, len);
	for (unsigned i = 0; i < MXD_REQ_CHUNK; i++) {
		c[i].segs = c[i].seg_inline;
		c[i].ep = p->ep;
		c[i].pool = p;
		mxd_list_init(&c[i].link);
		mxd_list_init(&c[i].done);
		c[i].pool_next = p->free;
		p->free = &c[i];
	}
	p->made += len;
	p->allocated += MXD_REQ_CHUNK;
	return 0;
}

void
mxd_reqpool_shrink(struct mxd_reqpool *p)
{
	size_t len = MXD_REQ_CHUNK * sizeof(struct mx_request);
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct mx_request *r = (struct mx_request *)p->base;
	uintptr_t lo, hi;
	uint32_t n = 0;

	if (p->allocated <= MXD_REQ_CHUNK)
		return;
	for (const struct mx_request *f = p->free; f != NULL;
			f = f->pool_next)
		n++;
	if (n != p->allocated)
		return;
	p->free = NULL;
	for (unsigned i = MXD_REQ_CHUNK; i-- > 0; ) {
		r[i].pool_next = p->free;
		p->free = &r[i];
	}
	lo = (p->base + len + pg - 1) & ~(pg - 1);
	hi = (p->base + p->made + pg - 1) & ~(pg - 1);
	if (hi > lo) {
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
		mprotect((void *)lo, hi - lo, PROT_NONE);
	}
	p->made = len;
	p->allocated = MXD_REQ_CHUNK;
}

void
mxd_req_free_segs(struct mx_request *r)
{
	free(r->segs);
	r->segs = r->seg_inline;
}

int
mxd_req_transition_ok(const struct mx_request *r, enum mxd_req_state to)
{
	unsigned from = r->state;

	switch (to) {
	case MXD_RS_QUEUED:
		return (r->type == MXD_REQ_SEND || r->type == MXD_REQ_CONNECT)
			&& from == MXD_RS_FREE;
	case MXD_RS_BUFFERED:
	case MXD_RS_RNDV:
		return r->type == MXD_REQ_SEND &&
			(from == MXD_RS_FREE || from == MXD_RS_QUEUED);
	case MXD_RS_POSTED:
		return r->type == MXD_REQ_RECV && from == MXD_RS_FREE;
	case MXD_RS_MATCHED:
		return r->type == MXD_REQ_RECV &&
			(from == MXD_RS_FREE || from == MXD_RS_POSTED);
	case MXD_RS_COMPLETE:
		return from != MXD_RS_COMPLETE;
	case MXD_RS_FREE:
		return 0;
	}
	return 0;
}

int
mxd_req_set_segs_list(struct mx_request *r, const mx_segment_t *segs,
		uint32_t n)
{
	uint64_t total = 0;

	if (n > MXD_SEG_INLINE) {
		r->segs = malloc(n * sizeof(*segs));
		if (r->segs == NULL) {
			r->segs = r->seg_inline;
			return -MX_NO_RESOURCES;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		r->segs[i] = segs[i];
		total += segs[i].segment_length;
	}
	if (total > UINT32_MAX)
		return -MX_BAD_SEG_LIST;
	r->nseg = n;
	r->length = (uint32_t)total;
	return 0;
}

/*
 * Copies message bytes [off, off + len) between ext and r's segments (into
 * them if to_req); with crc, also feeds the bytes to *crc in order, in the
 * same pass.
 */
static void
seg_walk(const struct mx_request *r, uint32_t off, uint8_t *ext, uint32_t len,
		int to_req, uint32_t *crc)
{
	for (uint32_t i = 0; i < r->nseg && len > 0; i++) {
		uint32_t sl = r->segs[i].segment_length, n;
		uint8_t *sp = r->segs[i].segment_ptr;
		uint8_t *dst, *src;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		n = sl - off < len ? sl - off : len;
		dst = to_req ? sp + off : ext;
		src = to_req ? ext : sp + off;
		if (crc != NULL)
			*crc = mxd_crc_copy(*crc, dst, src, n);
		else
			memcpy(dst, src, n);
		ext += n;
		len -= n;
		off = 0;
	}
}

void
mxd_req_copy_segs(const struct mx_request *r, uint32_t off, uint8_t *ext,
		uint32_t len, int to_req)
{
	seg_walk(r, off, ext, len, to_req, NULL);
}

uint32_t
mxd_req_scatter_crc(struct mx_request *r, uint32_t off, const uint8_t *src,
		uint32_t len, uint32_t crc, int cold)
{
	uint32_t fit = off >= r->length ? 0 :
		len < r->length - off ? len : r->length - off;

	if (r->nseg == 1 && cold)
		crc = mxd_crc_copy_nt(crc, (uint8_t *)r->segs[0].segment_ptr +
				off, src, fit);
	else if (r->nseg == 1)
		crc = mxd_crc_copy(crc, (uint8_t *)r->segs[0].segment_ptr +
				off, src, fit);
	else
		seg_walk(r, off, (uint8_t *)(uintptr_t)src, fit, 1, &crc);
	/* what a truncated receive has no room for is checked all the same */
	return fit == len ? crc : mxd_crc_update(crc, src + fit, len - fit);
}

uint32_t
mxd_req_gather_crc(const struct mx_request *r, uint32_t off, uint8_t *dst,
		uint32_t len, uint32_t crc)
{
	if (r->nseg == 1)
		return mxd_crc_copy(crc, dst,
				(const uint8_t *)r->segs[0].segment_ptr + off,
				len);
	seg_walk(r, off, dst, len, 0, &crc);
	return crc;
}

/* Asks for the lines of [p, e), two a step (a prefetch past e is
 * harmless: it never faults). */
static inline void
prefetch_lines(const uint8_t *p, const uint8_t *e)
{
	for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < (uintptr_t)e;
			a += 128) {
		__builtin_prefetch((const void *)a, 0, 3);
		__builtin_prefetch((const void *)(a + 64), 0, 3);
	}
}

void
mxd_req_prefetch(const struct mx_request *r, uint64_t off, uint32_t len)
{
	if (r->nseg == 1) {
		const uint8_t *sp = r->segs[0].segment_ptr;
		uint32_t sl = r->segs[0].segment_length;

		if (off < sl)
			prefetch_lines(sp + off, sp + off +
					(sl - off < len ? sl - off : len));
		return;
	}
	for (uint32_t i = 0; i < r->nseg && len > 0; i++) {
		uint32_t sl = r->segs[i].segment_length, n;
		const uint8_t *sp = r->segs[i].segment_ptr;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		n = sl - off < len ? sl - (uint32_t)off : len;
		prefetch_lines(sp + off, sp + off + n);
		len -= n;
		off = 0;
	}
}
