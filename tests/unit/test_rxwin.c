/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive and send windows: ordering, duplicates, window edges, acks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rxwin.h"
#include "txwin.h"

static struct mxd_rxwin w;
static struct mxd_rxslot slots[MXD_WIN];

static struct mxd_pkt
frag(uint32_t seq, uint32_t msg_len, uint16_t frag_max, uint8_t idx)
{
	struct mxd_pkt p;

	memset(&p, 0, sizeof(p));
	p.h.type = MXD_T_EAGER;
	p.u.eager.seq = seq;
	p.u.eager.msg_len = msg_len;
	p.u.eager.match = seq * 100;
	p.u.eager.frag_max = frag_max;
	p.u.eager.frag_idx = idx;
	p.u.eager.frag_count = (uint8_t)mxd_frag_count(msg_len, frag_max);
	p.u.eager.frag_off = (uint32_t)idx * frag_max;
	return p;
}

static enum mxd_rx_verdict
feed(uint32_t seq, uint32_t len, uint8_t idx, struct mxd_rxslot **sl)
{
	struct mxd_pkt p = frag(seq, len, 100, idx);
	struct mxd_rxslot *dummy;

	return mxd_rxwin_frag(&w, &p, sl ? sl : &dummy);
}

static void
in_order_single_frames(void **state)
{
	struct mxd_rxslot *sl;

	(void)state;
	mxd_rxwin_init(&w, 1);
	for (uint32_t s = 1; s <= 1000; s++) {
		assert_int_equal(feed(s, 10, 0, &sl), MXD_RX_NEW);
		assert_true(sl->complete);
		assert_ptr_equal(mxd_rxwin_matchable(&w), sl);
		mxd_rxwin_matched(&w, sl);
		assert_int_equal(mxd_rxwin_settle(&w), s);
	}
}

/* Messages held in part, for an ACK to name (MXD_F_FRAGS): from base on,
 * in order, only those of several fragments not complete, at most max. */
static void
partial_messages_named(void **state)
{
	uint32_t seq[4];
	uint64_t have[4];

	(void)state;
	mxd_rxwin_init(&w, 1);
	assert_int_equal(mxd_rxwin_partial(&w, seq, have, 4), 0);
	feed(1, 350, 1, NULL);		/* 4 fragments: 1 and 3 */
	feed(1, 350, 3, NULL);
	feed(2, 10, 0, NULL);		/* whole, one fragment */
	feed(3, 250, 0, NULL);		/* 3 fragments: all */
	feed(3, 250, 1, NULL);
	feed(3, 250, 2, NULL);
	feed(5, 250, 2, NULL);		/* 3 fragments: the last */
	feed(6, 150, 0, NULL);		/* 2 fragments: the first */
	assert_int_equal(mxd_rxwin_partial(&w, seq, have, 4), 3);
	assert_int_equal(seq[0], 1);
	assert_true(have[0] == 0xa);
	assert_int_equal(seq[1], 5);
	assert_true(have[1] == 0x4);
	assert_int_equal(seq[2], 6);
	assert_true(have[2] == 0x1);
	assert_int_equal(mxd_rxwin_partial(&w, seq, have, 1), 1);
	assert_int_equal(seq[0], 1);
}

static void
fragments_any_order(void **state)
{
	struct mxd_rxslot *sl;
	const uint8_t order[] = { 3, 0, 4, 2, 1 };

	(void)state;
	mxd_rxwin_init(&w, 1);
	for (unsigned i = 0; i < 5; i++) {
		enum mxd_rx_verdict v = feed(1, 450, order[i], &sl);

		assert_int_equal(v, i == 0 ? MXD_RX_NEW : MXD_RX_MORE);
		assert_int_equal(sl->complete, i == 4);
		if (i == 0)
			mxd_rxwin_matched(&w, mxd_rxwin_matchable(&w));
		assert_int_equal(mxd_rxwin_settle(&w), i == 4 ? 1 : 0);
	}
}

static void
duplicates_detected(void **state)
{
	struct mxd_rxslot *sl;

	(void)state;
	mxd_rxwin_init(&w, 1);
	assert_int_equal(feed(1, 250, 1, &sl), MXD_RX_NEW);
	assert_int_equal(feed(1, 250, 1, &sl), MXD_RX_DUP);
	assert_int_equal(feed(1, 250, 0, &sl), MXD_RX_MORE);
	assert_int_equal(feed(1, 250, 2, &sl), MXD_RX_MORE);
	mxd_rxwin_matched(&w, mxd_rxwin_matchable(&w));
	mxd_rxwin_settle(&w);
	/* Completed and released: any fragment of it is a duplicate. */
	assert_int_equal(feed(1, 250, 0, &sl), MXD_RX_DUP);
	assert_int_equal(feed(1, 250, 2, &sl), MXD_RX_DUP);
}

static void
inconsistent_fragment_refused(void **state)
{
	struct mxd_rxslot *sl;
	struct mxd_pkt p = frag(1, 250, 100, 1);

	(void)state;
	mxd_rxwin_init(&w, 1);
	assert_int_equal(feed(1, 250, 0, &sl), MXD_RX_NEW);
	p.u.eager.match = 12345;	/* another message's header */
	assert_int_equal(mxd_rxwin_frag(&w, &p, &sl), MXD_RX_BAD);
	p = frag(1, 300, 100, 1);
	assert_int_equal(mxd_rxwin_frag(&w, &p, &sl), MXD_RX_BAD);
}

static void
matching_waits_for_order(void **state)
{
	struct mxd_rxslot *s3, *s2, *s1;

	(void)state;
	mxd_rxwin_init(&w, 1);
	assert_int_equal(feed(3, 10, 0, &s3), MXD_RX_NEW);
	assert_int_equal(feed(2, 10, 0, &s2), MXD_RX_NEW);
	assert_null(mxd_rxwin_matchable(&w));
	/* Complete but not acked past the hole at 1. */
	assert_int_equal(mxd_rxwin_settle(&w), 0);
	assert_int_equal(feed(1, 10, 0, &s1), MXD_RX_NEW);
	assert_int_equal(mxd_rxwin_settle(&w), 0);	/* nothing matched */
	assert_ptr_equal(mxd_rxwin_matchable(&w), s1);
	mxd_rxwin_matched(&w, s1);
	assert_int_equal(mxd_rxwin_settle(&w), 1);
	assert_ptr_equal(mxd_rxwin_matchable(&w), s2);
	mxd_rxwin_matched(&w, s2);
	assert_ptr_equal(mxd_rxwin_matchable(&w), s3);
	mxd_rxwin_matched(&w, s3);
	assert_null(mxd_rxwin_matchable(&w));
	assert_int_equal(mxd_rxwin_settle(&w), 3);
	assert_false(s1->active || s2->active || s3->active);
}

static void
matched_before_complete(void **state)
{
	struct mxd_rxslot *sl;

	(void)state;
	mxd_rxwin_init(&w, 1);
	assert_int_equal(feed(1, 200, 0, &sl), MXD_RX_NEW);
	mxd_rxwin_matched(&w, sl);
	assert_true(sl->active);	/* still receiving */
	assert_int_equal(mxd_rxwin_settle(&w), 0);
	assert_int_equal(feed(1, 200, 1, &sl), MXD_RX_MORE);
	assert_int_equal(mxd_rxwin_settle(&w), 1);
	assert_false(sl->active);
}

/* Back-pressure: what cannot be matched is not acknowledged. */
static void
unmatched_not_acked(void **state)
{
	struct mxd_rxslot *sl;

	(void)state;
	mxd_rxwin_init(&w, 1);
	for (uint32_t s = 1; s <= 10; s++)
		assert_int_equal(feed(s, 10, 0, &sl), MXD_RX_NEW);
	assert_int_equal(mxd_rxwin_settle(&w), 0);
	/* The window is counted from the oldest unmatched message. */
	assert_int_equal(feed(MXD_WIN + 1, 10, 0, &sl), MXD_RX_WINDOW);
	for (int i = 0; i < 4; i++)
		mxd_rxwin_matched(&w, mxd_rxwin_matchable(&w));
	assert_int_equal(mxd_rxwin_settle(&w), 4);
	assert_int_equal(feed(MXD_WIN + 1, 10, 0, &sl), MXD_RX_NEW);
}

static void
window_edges(void **state)
{
	struct mxd_rxslot *sl;

	(void)state;
	mxd_rxwin_init(&w, 1);
	assert_int_equal(feed(MXD_WIN, 10, 0, &sl), MXD_RX_NEW);
	assert_int_equal(feed(MXD_WIN + 1, 10, 0, &sl), MXD_RX_WINDOW);
	assert_int_equal(feed(0, 10, 0, &sl), MXD_RX_DUP);
	assert_int_equal(feed(0x7fff0000u, 10, 0, &sl), MXD_RX_WINDOW);
}

static void
sequence_wraps(void **state)
{
	struct mxd_rxslot *sl;
	uint32_t s = 0xfffffff0u;

	(void)state;
	mxd_rxwin_init(&w, s);
	for (int i = 0; i < 64; i++, s++) {
		assert_int_equal(feed(s, 10, 0, &sl), MXD_RX_NEW);
		mxd_rxwin_matched(&w, mxd_rxwin_matchable(&w));
		assert_int_equal(mxd_rxwin_settle(&w), s);
	}
	assert_int_equal(feed(s - 3, 10, 0, &sl), MXD_RX_DUP);
}

static void
txwin_acks(void **state)
{
	struct mxd_txwin t;
	uint32_t first = 0;

	(void)state;
	mxd_txwin_init(&t, 1);
	assert_int_equal(mxd_txwin_in_flight(&t), 0);
	for (unsigned i = 0; i < MXD_WIN; i++)
		assert_int_equal(mxd_txwin_take(&t), i + 1);
	assert_true(mxd_txwin_full(&t));
	assert_int_equal(mxd_txwin_ack(&t, 10, &first), 10);
	assert_int_equal(first, 1);
	assert_int_equal(mxd_txwin_ack(&t, 10, &first), 0);	/* old */
	assert_int_equal(mxd_txwin_ack(&t, 5, &first), 0);	/* older */
	assert_int_equal(mxd_txwin_ack(&t, MXD_WIN + 1, &first), -1);
	assert_int_equal(mxd_txwin_ack(&t, 0x90000000u, &first), 0);
	assert_int_equal(mxd_txwin_ack(&t, MXD_WIN, &first), MXD_WIN - 10);
	assert_int_equal(first, 11);
	assert_int_equal(mxd_txwin_in_flight(&t), 0);
}

int
main(void)
{
	w.slot = slots;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_order_single_frames),
		cmocka_unit_test(fragments_any_order),
		cmocka_unit_test(partial_messages_named),
		cmocka_unit_test(duplicates_detected),
		cmocka_unit_test(inconsistent_fragment_refused),
		cmocka_unit_test(matching_waits_for_order),
		cmocka_unit_test(matched_before_complete),
		cmocka_unit_test(unmatched_not_acked),
		cmocka_unit_test(window_edges),
		cmocka_unit_test(sequence_wraps),
		cmocka_unit_test(txwin_acks),
	};

	return cmocka_run_group_tests_name("rxwin", tests, NULL, NULL);
}
