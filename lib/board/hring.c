/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings of a host segment: set-up and attachment (the protocol is
 * hring.h's opening comment), and a producer's room when its copy of
 * the consumer's count says none or the ring wraps.  Slow paths only: a
 * ring is set up once per pair of owners.
 */
#include <string.h>

#include "board/hring.h"

int
mxd_hring_setup(struct mxd_host *h, unsigned a, unsigned b,
		uint32_t prod_epoch, uint32_t cons_epoch,
		struct mxd_hring_tx *t)
{
	struct mxd_hring *r = mxd_hring_of(h, a, b);
	uint32_t n = mxd_hring_cells(h->ring_bytes);
	uint8_t *cells = (uint8_t *)r + MXD_HRING_HDR;

	if (n < MXD_HRING_CELLS_MIN)
		return -1;
	/* No reader takes it as set up until prod_epoch is written again. */
	__atomic_store_n(&r->p.prod_epoch, 0, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n(&mxd_hring_cell(cells, i)->seq, 0,
				__ATOMIC_RELAXED);
	r->c.tail = 0;
	r->c.released = 0;
	r->c.attached = 0;
	for (unsigned i = 0; i < MXD_HRING_CLAIMS; i++)
		__atomic_store_n(&r->claim[i], 0, __ATOMIC_RELAXED);
	r->p.magic = MXD_HRING_MAGIC;
	r->p.version = MXD_HRING_VERSION;
	r->p.cells = n;
	__atomic_store_n(&r->p.cons_epoch, cons_epoch, __ATOMIC_RELAXED);
	__atomic_store_n(&r->p.prod_epoch, prod_epoch, __ATOMIC_RELEASE);
	__atomic_or_fetch(mxd_hring_mailbox(h, b), 1ull << a, __ATOMIC_RELEASE);
	t->r = r;
	t->cells = cells;
	t->n = n;
	t->off = 0;
	t->head = 0;
	t->tail = 0;
	return 0;
}

uint32_t
mxd_hring_attach(struct mxd_hring *r, struct mxd_hring_rx *c)
{
	uint32_t pe = __atomic_load_n(&r->p.prod_epoch, __ATOMIC_ACQUIRE);

	c->r = r;
	c->cells = (uint8_t *)r + MXD_HRING_HDR;
	c->n = r->p.cells;
	c->next_off = 0;
	c->next = 0;
	c->published = 0;
	__atomic_store_n(&r->c.attached, pe, __ATOMIC_RELAXED);
	return pe;
}

/* Whether 'need' cells (and the one kept free) fit, reading the
 * consumer's count again when the copy says no. */
static int
room(struct mxd_hring_tx *t, uint32_t need)
{
	if (t->head + need + 1 - t->tail <= t->n)
		return 1;
	t->tail = __atomic_load_n(&t->r->c.tail, __ATOMIC_ACQUIRE);
	return t->head + need + 1 - t->tail <= t->n;
}

struct mxd_hrec *
mxd_hring_reserve_slow(struct mxd_hring_tx *t, uint32_t cells)
{
	uint32_t left = t->n - t->off;
	struct mxd_hrec *pad;

	if (cells <= left)
		return room(t, cells) ? mxd_hring_cell(t->cells, t->off) :
			NULL;
	if (!room(t, left + cells))
		return NULL;
	pad = mxd_hring_cell(t->cells, t->off);
	memset((uint8_t *)pad + 4, 0, MXD_HREC_HLEN - 4);
	pad->kind = MXD_HREC_PAD_KIND;
	pad->cells = (uint16_t)(left > 0xffff ? 0xffff : left);
	pad->len = left;		/* the cells it covers, exactly */
	mxd_hring_commit(t, pad, left);
	return mxd_hring_cell(t->cells, 0);
}
