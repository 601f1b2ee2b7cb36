/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings of a host segment (lib/board/hring.h) in one process: records
 * of every size in order, wrapping with PAD records, room and the
 * consumer's published count, a record invisible until committed (a
 * producer killed mid-write), payload that looks like a seq never taken
 * for one, and the set-up and let-go rules the processes and the board
 * service follow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board/hring.h"

#define NSLOTS	3
#define BYTES	(MXD_HRING_HDR + 256 * MXD_HRING_CELL)	/* 256 cells */

static struct mxd_host *
host_new(void)
{
	size_t off, len = mxd_host_size(NSLOTS, BYTES, &off);
	struct mxd_host *h = aligned_alloc(4096, (len + 4095) & ~4095ul);

	assert_non_null(h);
	memset(h, 0, len);
	h->magic = MXD_HOST_MAGIC;
	h->version = MXD_HOST_VERSION;
	h->nslots = NSLOTS;
	h->ring_bytes = BYTES;
	h->ring_off = off;
	h->size = len;
	for (unsigned s = 0; s < NSLOTS; s++) {
		h->slot[s].state = MXD_HOST_SLOT_LIVE;
		h->slot[s].epoch = 1;
	}
	return h;
}

/* A record of len bytes, its payload bytes from 'fill', committed. */
static int
put(struct mxd_hring_tx *t, uint32_t len, uint8_t fill, uint64_t match)
{
	uint32_t cells = mxd_hrec_cells(len);
	struct mxd_hrec *r = mxd_hring_reserve(t, cells);

	if (r == NULL)
		return -1;
	memset((uint8_t *)r + 4, 0, MXD_HREC_HLEN - 4);
	r->kind = 2;
	r->cells = (uint16_t)cells;
	r->len = len;
	r->match = match;
	memset(mxd_hrec_data(r), fill, len);
	mxd_hring_commit(t, r, cells);
	return 0;
}

/* The next record that is not PAD, or NULL; skipped past. */
static struct mxd_hrec *
get(struct mxd_hring_rx *c)
{
	struct mxd_hrec *r;

	while ((r = mxd_hring_peek(c)) != NULL) {
		uint32_t n = mxd_hring_rec_cells(c, r);

		assert_true(n != 0);
		mxd_hring_skip(c, n);
		if (r->kind != MXD_HREC_PAD_KIND) {
			mxd_hring_publish(c, c->next, 1);
			return r;
		}
	}
	return NULL;
}

static void
test_order_wrap_room(void **state)
{
	struct mxd_host *h = host_new();
	struct mxd_hring_tx t;
	struct mxd_hring_rx c;
	uint32_t sent = 0, got = 0, n = mxd_hring_cells(BYTES);

	(void)state;
	assert_int_equal(n, 256);
	assert_true(mxd_hring_may_setup(mxd_hring_of(h, 1, 2), 1, 1));
	assert_int_equal(mxd_hring_setup(h, 1, 2, 1, 1, &t), 0);
	assert_int_equal(*mxd_hring_mailbox(h, 2), 1u << 1);
	assert_true(mxd_hring_ready_for(mxd_hring_of(h, 1, 2), 1, 0));
	assert_int_equal(mxd_hring_attach(mxd_hring_of(h, 1, 2), &c), 1);
	assert_null(mxd_hring_peek(&c));
	/* Thousands of records of every size through 256 cells: in order,
	 * whole, the producer refused only when the ring is full. */
	for (int lap = 0; lap < 4000; lap++) {
		uint32_t len = (uint32_t)(lap * 37) % (64 * 64 - 40);

		if (put(&t, len, (uint8_t)sent, sent) == 0) {
			sent++;
			continue;
		}
		/* Refused only when full: the record (and the PAD before
		 * it, at the end) and the cell kept free do not fit. */
		{
			uint32_t need = mxd_hrec_cells(len), left = t.n - t.off;

			if (need > left)
				need += left;
			assert_true(t.head + need + 1 - c.next > t.n);
		}
		while (got < sent) {
			struct mxd_hrec *r = get(&c);

			assert_non_null(r);
			assert_int_equal(r->match, got);
			for (uint32_t i = 0; i < r->len; i++)
				assert_int_equal(mxd_hrec_data(r)[i],
						(uint8_t)got);
			got++;
		}
		assert_int_equal(put(&t, len, (uint8_t)sent, sent), 0);
		sent++;
	}
	while (got < sent) {
		struct mxd_hrec *r = get(&c);

		assert_non_null(r);
		assert_int_equal(r->match, got++);
	}
	assert_null(get(&c));
	assert_true(t.head > 10 * n);		/* it wrapped */
	free(h);
}

/* A producer killed mid-record: the consumer never sees it. */
static void
test_partial_invisible(void **state)
{
	struct mxd_host *h = host_new();
	struct mxd_hring_tx t;
	struct mxd_hring_rx c;
	struct mxd_hrec *r;

	(void)state;
	assert_int_equal(mxd_hring_setup(h, 1, 2, 1, 1, &t), 0);
	mxd_hring_attach(mxd_hring_of(h, 1, 2), &c);
	assert_int_equal(put(&t, 10, 1, 7), 0);
	r = mxd_hring_reserve(&t, 3);		/* written, not committed */
	assert_non_null(r);
	memset(t.cells + (size_t)t.off * MXD_HRING_CELL + 4, 0xff,
			3 * MXD_HRING_CELL - 4);
	r = get(&c);
	assert_non_null(r);
	assert_int_equal(r->match, 7);
	assert_null(get(&c));
	assert_null(mxd_hring_peek(&c));
	free(h);
}

/* Payload whose first words hold what a later seq will be is never
 * taken for a record: the cell past each record is cleared first when
 * its word is the seq the consumer will look for there. */
static void
test_payload_not_seq(void **state)
{
	struct mxd_host *h = host_new();
	struct mxd_hring_tx t;
	struct mxd_hring_rx c;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(mxd_hring_setup(h, 1, 2, 1, 1, &t), 0);
	mxd_hring_attach(mxd_hring_of(h, 1, 2), &c);
	for (uint32_t k = 0; k < 2000; k++) {
		uint32_t cells = 1 + k % 7, len = cells * 64 - 40;
		struct mxd_hrec *r = mxd_hring_reserve(&t, cells);
		uint8_t *d;

		assert_non_null(r);
		r->kind = 2;
		r->flags = 0;
		r->cells = (uint16_t)cells;
		r->len = len;
		r->match = k;
		d = mxd_hrec_data(r);
		/* Every cell's first word: a plausible future seq. */
		for (uint32_t i = 1; i < cells; i++) {
			uint32_t s = mxd_hring_seq(t.head + i +
					t.n * (k % 3));

			memcpy(d + i * 64 - 40, &s, 4);
		}
		mxd_hring_commit(&t, r, cells);
		r = get(&c);
		assert_non_null(r);
		assert_int_equal(r->match, k);
		assert_null(mxd_hring_peek(&c));
		n++;
	}
	assert_int_equal(n, 2000);
	free(h);
}

/* Set-up and letting go: see the top of hring.h. */
static void
test_setup_rules(void **state)
{
	struct mxd_host *h = host_new();
	struct mxd_hring *r = mxd_hring_of(h, 1, 2);
	struct mxd_hring_tx t;
	struct mxd_hring_rx c;

	(void)state;
	/* Never set up: the producer may. */
	assert_true(mxd_hring_may_setup(r, 1, 1));
	assert_int_equal(mxd_hring_setup(h, 1, 2, 1, 1, &t), 0);
	mxd_hring_attach(r, &c);
	assert_int_equal(put(&t, 8, 1, 1), 0);
	/* Slot 1's owner dies; a new one (epoch 2) may not set the ring
	 * up while the reader (epoch 1, alive) has not let it go... */
	assert_false(mxd_hring_may_setup(r, 2, 1));
	h->slot[1].state = MXD_HOST_SLOT_DEAD;
	assert_false(mxd_hring_let_go(h, 1, 1));
	/* ...the reader takes what is whole and lets go. */
	assert_non_null(get(&c));
	mxd_hring_let_go_of(r, 1);
	assert_true(mxd_hring_let_go(h, 1, 1));
	assert_true(mxd_hring_may_setup(r, 2, 1));
	/* The reader does not take the let-go ring up again. */
	assert_false(mxd_hring_ready_for(r, 1, 1));
	h->slot[1].epoch = 2;
	h->slot[1].state = MXD_HOST_SLOT_LIVE;
	assert_int_equal(mxd_hring_setup(h, 1, 2, 2, 1, &t), 0);
	assert_true(mxd_hring_ready_for(r, 1, 1));
	assert_int_equal(mxd_hring_attach(r, &c), 2);
	assert_int_equal(put(&t, 8, 2, 2), 0);
	assert_int_equal(get(&c)->match, 2);
	/* The reader dies instead: its new owner (epoch 2) ignores the
	 * ring until the producer sets it up for it, which it may. */
	h->slot[2].epoch = 2;
	assert_false(mxd_hring_ready_for(r, 2, 0));
	assert_true(mxd_hring_may_setup(r, 2, 2));
	/* A dead slot's rings read by no live process are let go. */
	h->slot[2].state = MXD_HOST_SLOT_DEAD;
	assert_true(mxd_hring_let_go(h, 1, 2));
	free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_wrap_room),
		cmocka_unit_test(test_partial_invisible),
		cmocka_unit_test(test_payload_not_seq),
		cmocka_unit_test(test_setup_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
