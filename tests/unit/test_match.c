/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matching (lib/engine/match.c, lib/util/mtab.c): MX's ordering rules with hashed
 * receives and unexpected messages.
 *
 *   - the match table alone against a model: random adds and removals,
 *     tables that grow and tables that cannot;
 *   - through the engine (two boards over the fake link, e0 sends to e1):
 *     exact and wildcard receives posted in either order, several receives
 *     of one value and mx_cancel of the first, a middle and the last,
 *     unexpected messages against later receives, probes, receives posted
 *     while progression is off, more masks than there are classes, the
 *     unexpected queue indexed for a mask once walking it has cost enough;
 *   - a seeded random run of posts, sends, cancels and probes checked
 *     against a model of the rules;
 *   - no malloc on the message path with 1,000 receives posted and 1,000
 *     messages queued; out of memory when a table must grow.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "engine/match.h"
#include "mxtest.h"
#include "engine/recv.h"
#include "engine/unexp.h"

#define e0 fx.e0
#define e1 fx.e1
#define to1 fx.to1
#define to0 fx.to0

#define ALL MX_MATCH_MASK_NONE

/* ---- the allocator, counted (linked with --wrap) ------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
static unsigned long allocs;
static int fail_allocs;

void *
__wrap_malloc(size_t n)
{
	allocs++;
	return fail_allocs ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t m)
{
	allocs++;
	return fail_allocs ? NULL : __real_calloc(n, m);
}

void *
__wrap_realloc(void *p, size_t n)
{
	allocs++;
	return fail_allocs ? NULL : __real_realloc(p, n);
}

/* ---- the match table against a model ------------------------------------- */

#define MT_NODES	600
#define MT_KEYS		40

static uint32_t rng_state;

static uint32_t
rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* The model: per key, node indexes oldest first. */
struct mt_model {
	int q[MT_KEYS][MT_NODES];
	int n[MT_KEYS];
	int key_of[MT_NODES];		/* -1: not in the table */
};

static void
mt_check(const struct mxd_mtab *t, const struct mt_model *m,
		const struct mxd_mnode *nodes)
{
	uint32_t keys = 0, entries = 0;

	for (int k = 0; k < MT_KEYS; k++) {
		const struct mxd_mnode *f = mxd_mtab_first(t, (uint64_t)k << 40);

		keys += m->n[k] != 0;
		entries += (uint32_t)m->n[k];
		if (m->n[k] == 0)
			assert_null(f);
		else
			assert_ptr_equal(f, &nodes[m->q[k][0]]);
	}
	assert_int_equal(t->keys, keys);
	assert_int_equal(t->entries, entries);
}

static void
mt_remove(struct mxd_mtab *t, struct mt_model *m, struct mxd_mnode *nodes,
		int i)
{
	int k = m->key_of[i], j = 0;

	while (m->q[k][j] != i)
		j++;
	memmove(&m->q[k][j], &m->q[k][j + 1],
			(size_t)(m->n[k] - j - 1) * sizeof(int));
	m->n[k]--;
	m->key_of[i] = -1;
	mxd_mtab_del(t, &nodes[i]);
}

/* 'ops' random adds and removals from a table of 2^order slots, checked
 * against the model after each; keys differ in their high bits only, so
 * that the hash has to bring them down. */
static void
mt_run(unsigned order, unsigned ops, uint32_t seed, int nogrow)
{
	static struct mxd_mnode nodes[MT_NODES];
	static struct mt_model m;
	struct mxd_mtab t;

	rng_state = seed;
	memset(&m, 0, sizeof(m));
	memset(m.key_of, 0xff, sizeof(m.key_of));
	assert_int_equal(mxd_mtab_init(&t, order), 0);
	fail_allocs = nogrow;
	for (unsigned op = 0; op < ops; op++) {
		int i = (int)(rng() % MT_NODES), k = (int)(rng() % MT_KEYS);

		if (m.key_of[i] >= 0) {
			mt_remove(&t, &m, nodes, i);
		} else if (mxd_mtab_add(&t, &nodes[i], (uint64_t)k << 40) == 0) {
			m.key_of[i] = k;
			m.q[k][m.n[k]++] = i;
		} else {
			/* Refused: only a new key, only a full table. */
			assert_int_equal(m.n[k], 0);
			assert_int_equal(t.keys, t.mask);
		}
		mt_check(&t, &m, nodes);
	}
	for (int i = 0; i < MT_NODES; i++)
		if (m.key_of[i] >= 0)
			mt_remove(&t, &m, nodes, i);
	mt_check(&t, &m, nodes);
	fail_allocs = 0;
	mxd_mtab_fini(&t);
}

static void
mtab_against_model(void **state)
{
	(void)state;
	mt_run(1, 20000, 1, 0);		/* grows from 2 slots */
	mt_run(6, 20000, 2, 0);
	mt_run(3, 20000, 3, 1);		/* 8 slots that cannot grow: full */
}

/* ---- engine helpers -------------------------------------------------------- */

/* e1's partner for e0: its receive window says what was matched. */
static struct mxd_partner *
from0(void)
{
	return mxd_addr_partner(e1, &to0);
}

/*
 * Sends message 'id' (4 bytes) with 'match' from e0 and progresses until
 * e1 has matched it (to a receive, or into the unexpected queue); then
 * until the send completed.
 */
static void
deliver(uint64_t match, uint32_t id)
{
	static uint32_t ids[64];
	uint32_t next = from0()->rx.next_match;
	mx_request_t s;

	ids[id % 64] = id;
	s = mxt_isend(e0, to1, &ids[id % 64], 4, match);
	for (int i = 0; i < 1000000 && from0()->rx.next_match == next; i++) {
		mx_progress(e0);
		mx_progress(e1);
	}
	assert_int_equal(from0()->rx.next_match, next + 1);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
}

static mx_request_t
post(uint32_t *buf, uint64_t value, uint64_t mask)
{
	return mxt_recv(e1, buf, 4, value, mask);
}

/* r is complete with message id. */
static void
got(mx_request_t *r, const uint32_t *buf, uint32_t id, uint64_t match)
{
	mx_status_t st;
	uint32_t done = 0;

	assert_int_equal(mx_test(e1, r, &st, &done), MX_SUCCESS);
	assert_true(done);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_true(st.match_info == match);
	assert_int_equal(*buf, id);
}

/* r is still posted: cancelling it works. */
static void
still_posted(mx_request_t *r)
{
	uint32_t gone = 0;

	assert_int_equal(mx_cancel(e1, r, &gone), MX_SUCCESS);
	assert_true(gone);
}

/* ---- the rules, case by case --------------------------------------------- */

static void
exact_then_wildcard(void **state)
{
	uint32_t b[3];
	mx_request_t x, w, any;

	(void)state;
	x = post(&b[0], 0x55, ALL);
	w = post(&b[1], 0x50, 0xf0);
	any = post(&b[2], 0, 0);
	deliver(0x55, 1);		/* exact, the earliest */
	got(&x, &b[0], 1, 0x55);
	deliver(0x55, 2);		/* then the masked one */
	got(&w, &b[1], 2, 0x55);
	deliver(0x55, 3);
	got(&any, &b[2], 3, 0x55);
}

static void
wildcard_then_exact(void **state)
{
	uint32_t b[3];
	mx_request_t any, w, x;

	(void)state;
	any = post(&b[0], 0, 0);
	w = post(&b[1], 0x50, 0xf0);
	x = post(&b[2], 0x55, ALL);
	deliver(0x55, 1);		/* any: posted first */
	got(&any, &b[0], 1, 0x55);
	deliver(0x57, 2);		/* only the masked one */
	got(&w, &b[1], 2, 0x57);
	deliver(0x55, 3);
	got(&x, &b[2], 3, 0x55);
}

static void
interleaved_masks(void **state)
{
	uint32_t b[6];
	mx_request_t r[6];

	(void)state;
	/* exact, masked, exact, any, masked, exact: each message goes to the
	 * earliest that accepts it. */
	r[0] = post(&b[0], 7, ALL);
	r[1] = post(&b[1], 0x100, 0xf00);
	r[2] = post(&b[2], 7, ALL);
	r[3] = post(&b[3], 0, 0);
	r[4] = post(&b[4], 0x100, 0xf00);
	r[5] = post(&b[5], 0x107, ALL);
	deliver(0x107, 1);		/* r1 (masked) before r5 */
	got(&r[1], &b[1], 1, 0x107);
	deliver(0x107, 2);		/* r3 (any) before r4, r5 */
	got(&r[3], &b[3], 2, 0x107);
	deliver(7, 3);
	got(&r[0], &b[0], 3, 7);
	deliver(0x107, 4);
	got(&r[4], &b[4], 4, 0x107);
	deliver(0x107, 5);
	got(&r[5], &b[5], 5, 0x107);
	deliver(7, 6);
	got(&r[2], &b[2], 6, 7);
}

static void
cancel_within_a_value(void **state)
{
	uint32_t b[5];
	mx_request_t r[5];
	uint32_t gone;

	(void)state;
	for (int i = 0; i < 5; i++)
		r[i] = post(&b[i], 9, ALL);
	/* The middle, then the first (its place goes to the next), then the
	 * last. */
	assert_int_equal(mx_cancel(e1, &r[2], &gone), MX_SUCCESS);
	assert_true(gone);
	assert_int_equal(mx_cancel(e1, &r[0], &gone), MX_SUCCESS);
	assert_true(gone);
	assert_int_equal(mx_cancel(e1, &r[4], &gone), MX_SUCCESS);
	assert_true(gone);
	deliver(9, 1);
	got(&r[1], &b[1], 1, 9);
	deliver(9, 2);
	got(&r[3], &b[3], 2, 9);
	deliver(9, 3);			/* nobody left: unexpected */
	r[0] = post(&b[0], 9, ALL);
	got(&r[0], &b[0], 3, 9);
	/* A matched receive is not cancelled. */
	r[1] = post(&b[1], 9, ALL);
	deliver(9, 4);
	assert_int_equal(mx_cancel(e1, &r[1], &gone), MX_SUCCESS);
	assert_false(gone);
	got(&r[1], &b[1], 4, 9);
}

static void
cancel_wildcards(void **state)
{
	uint32_t b[4];
	mx_request_t r[4];
	uint32_t gone;

	(void)state;
	r[0] = post(&b[0], 0, 0);
	r[1] = post(&b[1], 0x10, 0xf0);
	r[2] = post(&b[2], 0, 0);
	r[3] = post(&b[3], 0x10, 0xf0);
	assert_int_equal(mx_cancel(e1, &r[0], &gone), MX_SUCCESS);
	assert_int_equal(mx_cancel(e1, &r[1], &gone), MX_SUCCESS);
	deliver(0x11, 1);
	got(&r[2], &b[2], 1, 0x11);
	deliver(0x11, 2);
	got(&r[3], &b[3], 2, 0x11);
}

static void
unexpected_against_later_receives(void **state)
{
	uint32_t b[5];
	mx_request_t r;

	(void)state;
	deliver(0x21, 1);
	deliver(0x32, 2);
	deliver(0x21, 3);
	deliver(0x43, 4);
	deliver(0x21, 5);
	/* The earliest queued message each receive accepts. */
	r = post(&b[0], 0x21, ALL);
	got(&r, &b[0], 1, 0x21);
	r = post(&b[1], 0, 0);
	got(&r, &b[1], 2, 0x32);
	r = post(&b[2], 0x40, 0xf0);
	got(&r, &b[2], 4, 0x43);
	r = post(&b[3], 0x01, 0x0f);
	got(&r, &b[3], 3, 0x21);
	r = post(&b[4], 0x21, ALL);
	got(&r, &b[4], 5, 0x21);
	r = post(&b[0], 0, 0);		/* the queue is empty */
	still_posted(&r);
}

static void
probe_case(uint64_t value, uint64_t mask, int found, uint64_t match)
{
	mx_status_t st;
	uint32_t res = 2;

	assert_int_equal(mx_iprobe(e1, value, mask, &st, &res), MX_SUCCESS);
	assert_int_equal(res, found);
	if (found) {
		assert_true(st.match_info == match);
		assert_int_equal(st.msg_length, 4);
	}
}

static void
probes(void **state)
{
	uint32_t b;
	mx_request_t r;

	(void)state;
	probe_case(0x21, ALL, 0, 0);
	deliver(0x21, 1);
	deliver(0x35, 2);
	deliver(0x21, 3);
	probe_case(0x21, ALL, 1, 0x21);
	probe_case(0x30, 0xf0, 1, 0x35);
	probe_case(0, 0, 1, 0x21);
	probe_case(0x22, ALL, 0, 0);
	/* A probe takes nothing: the receive gets the first, and the probe
	 * then sees the second of that value. */
	r = post(&b, 0x21, ALL);
	got(&r, &b, 1, 0x21);
	probe_case(0x21, ALL, 1, 0x21);
	probe_case(0, 0, 1, 0x35);
	r = post(&b, 0x21, ALL);
	got(&r, &b, 3, 0x21);
	probe_case(0x21, ALL, 0, 0);
	r = post(&b, 0x35, ALL);
	got(&r, &b, 2, 0x35);
	probe_case(0, 0, 0, 0);
}

static void
posted_while_paused(void **state)
{
	static uint32_t v[3] = { 1, 2, 3 };
	uint32_t b[3];
	mx_request_t s[3], w, x;

	(void)state;
	assert_int_equal(mx_disable_progression(e1), MX_SUCCESS);
	for (int i = 0; i < 3; i++)
		s[i] = mxt_isend(e0, to1, &v[i], 4, 5);
	for (int i = 0; i < 100; i++)
		mx_progress(e0);
	/* Held: the receives posted now come before them. */
	w = post(&b[0], 0, 0);
	x = post(&b[1], 5, ALL);
	assert_int_equal(mx_reenable_progression(e1), MX_SUCCESS);
	got(&w, &b[0], 1, 5);
	got(&x, &b[1], 2, 5);
	probe_case(5, ALL, 1, 5);
	x = post(&b[2], 5, ALL);
	got(&x, &b[2], 3, 5);
	for (int i = 0; i < 3; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
}

/* Seven masks with receives posted at once: more than there are classes,
 * so some wait unclassed; the order holds across them. */
static const uint64_t masks[7] = {
	ALL, 0, 0xff00, 0x00ff, 0xf0f0, 0x0ff0, 0xfff0,
};

static void
more_masks_than_classes(void **state)
{
	uint32_t b[14];
	mx_request_t r[14];

	(void)state;
	for (int i = 0; i < 14; i++)	/* every mask twice, in turn */
		r[i] = post(&b[i], 0x1234 & masks[i % 7], masks[i % 7]);
	assert_false(mxd_list_empty(&e1->posted));	/* some unclassed */
	for (int i = 0; i < 14; i++) {
		deliver(0x1234, (uint32_t)i);
		got(&r[i], &b[i], (uint32_t)i, 0x1234);
	}
	/* In reverse order of masks: again the earliest first. */
	for (int i = 13; i >= 0; i--)
		r[13 - i] = post(&b[13 - i], 0x1234 & masks[i % 7],
				masks[i % 7]);
	for (int i = 0; i < 14; i++) {
		deliver(0x1234, (uint32_t)i);
		got(&r[i], &b[i], (uint32_t)i, 0x1234);
	}
	assert_true(mxd_list_empty(&e1->posted));
}

/* Fully-masked receives and messages are hashed (receives once a message
 * walked past them); a mask's class indexes the unexpected queue once
 * walking it has cost as much as indexing. */
static void
hashed_and_indexed(void **state)
{
	static uint32_t b[200];
	mx_request_t r[200];
	int c;

	(void)state;
	for (uint32_t i = 0; i < 200; i++)
		r[i] = post(&b[i], 0x1000 + i, ALL);
	/* On the list until a message walks past them; then hashed. */
	assert_int_equal(e1->posted_short, 200);
	deliver(0x2000, 0);
	assert_int_equal(e1->mclass[0].posted.keys, 200);
	assert_int_equal(e1->posted_short, 0);
	for (uint32_t i = 0; i < 200; i++)
		still_posted(&r[i]);
	for (uint32_t i = 1; i < 100; i++)
		deliver(0x2000 + i, i);
	assert_int_equal(e1->mclass[0].unexp.keys, 100);
	/* A mask of no class yet: the first receives walk the queue. */
	r[0] = post(&b[0], 0x3000, 0xf000);
	for (c = 1; c < MXD_MCLASSES; c++)
		if (e1->mclass[c].live && e1->mclass[c].mask == 0xf000)
			break;
	assert_true(c < MXD_MCLASSES);
	assert_false(e1->mclass[c].indexed);
	r[1] = post(&b[1], 0x3000, 0xf000);
	assert_true(e1->mclass[c].indexed);	/* 100 walked: indexed */
	assert_int_equal(e1->mclass[c].unexp.entries, 100);
	deliver(0x3001, 100);
	got(&r[0], &b[0], 100, 0x3001);
	r[2] = post(&b[2], 0x2000, 0xf000);
	got(&r[2], &b[2], 0, 0x2000);
	still_posted(&r[1]);
	for (uint32_t i = 1; i < 100; i++) {
		r[0] = post(&b[0], 0x2000 + i, ALL);
		got(&r[0], &b[0], i, 0x2000 + i);
	}
	assert_int_equal(e1->mclass[c].unexp.entries, 0);
	assert_int_equal(e1->unexp_n, 0);
}

/* ---- a random run against a model of the rules ----------------------------- */

#define RM_OPS		2000	/* sends at most */
#define RM_RECVS	RM_OPS

struct rm_recv {
	uint64_t value, mask;
	mx_request_t req;
	uint32_t buf;
	int state;			/* 0 free, 1 posted */
};

struct rm {
	struct rm_recv r[RM_RECVS];
	int posted[RM_RECVS], np;	/* indexes, in post order */
	uint64_t um[RM_OPS];		/* unexpected: match, id; in order */
	uint32_t uid[RM_OPS];
	int nu;
	uint32_t next_id;
};

static uint64_t
rm_match(void)
{
	/* Few distinct values: receives and probes often accept them. */
	return (uint64_t)(rng() % 3) << 12 | (uint64_t)(rng() % 3) << 4 |
		(rng() % 3);
}

static unsigned rm_contested;	/* messages several receives accepted */

static void
rm_send(struct rm *m)
{
	uint64_t match = rm_match();
	uint32_t id = m->next_id++;
	int k;

	deliver(match, id);
	for (k = 0; k < m->np; k++) {
		struct rm_recv *r = &m->r[m->posted[k]];

		if (mxd_match(match, r->value, r->mask))
			break;
	}
	for (int l = k + 1; l < m->np; l++)
		if (mxd_match(match, m->r[m->posted[l]].value,
					m->r[m->posted[l]].mask)) {
			rm_contested++;
			break;
		}
	if (k == m->np) {
		m->um[m->nu] = match;
		m->uid[m->nu++] = id;
		return;
	}
	got(&m->r[m->posted[k]].req, &m->r[m->posted[k]].buf, id, match);
	m->r[m->posted[k]].state = 0;
	memmove(&m->posted[k], &m->posted[k + 1],
			(size_t)(m->np - k - 1) * sizeof(int));
	m->np--;
}

/* The earliest unexpected message (value, mask) accepts, or -1. */
static int
rm_unexp(const struct rm *m, uint64_t value, uint64_t mask)
{
	for (int k = 0; k < m->nu; k++)
		if (mxd_match(m->um[k], value, mask))
			return k;
	return -1;
}

static void
rm_post(struct rm *m, int i)
{
	struct rm_recv *r = &m->r[i];
	int k;

	r->mask = masks[rng() % 7];
	r->value = rm_match() & r->mask;
	r->req = post(&r->buf, r->value, r->mask);
	k = rm_unexp(m, r->value, r->mask);
	if (k < 0) {
		r->state = 1;
		m->posted[m->np++] = i;
		return;
	}
	got(&r->req, &r->buf, m->uid[k], m->um[k]);
	memmove(&m->um[k], &m->um[k + 1], (size_t)(m->nu - k - 1) *
			sizeof(m->um[0]));
	memmove(&m->uid[k], &m->uid[k + 1], (size_t)(m->nu - k - 1) *
			sizeof(m->uid[0]));
	m->nu--;
}

static void
rm_cancel(struct rm *m)
{
	int k = (int)(rng() % (uint32_t)m->np);

	still_posted(&m->r[m->posted[k]].req);
	m->r[m->posted[k]].state = 0;
	memmove(&m->posted[k], &m->posted[k + 1],
			(size_t)(m->np - k - 1) * sizeof(int));
	m->np--;
}

static void
rm_probe(const struct rm *m)
{
	uint64_t mask = masks[rng() % 7], value = rm_match() & mask;
	int k = rm_unexp(m, value, mask);

	probe_case(value, mask, k >= 0, k >= 0 ? m->um[k] : 0);
}

/* Takes every unexpected message, in order, with receives of any value. */
static void
rm_drain(struct rm *m)
{
	while (m->nu > 0) {
		mx_request_t r = post(&m->r[0].buf, 0, 0);

		got(&r, &m->r[0].buf, m->uid[0], m->um[0]);
		memmove(&m->um[0], &m->um[1], (size_t)--m->nu *
				sizeof(m->um[0]));
		memmove(&m->uid[0], &m->uid[1], (size_t)m->nu *
				sizeof(m->uid[0]));
	}
}

static void
random_against_model(void **state)
{
	static struct rm m;
	int nr = 0;

	(void)state;
	memset(&m, 0, sizeof(m));
	rng_state = 15;
	rm_contested = 0;
	/* Rounds: the queue emptied, 30 receives posted (they pile up),
	 * then 40 steps, mostly sends (receives taken, messages piling up),
	 * some cancels, posts and probes. */
	for (int round = 0; round < 25; round++) {
		rm_drain(&m);
		for (int i = 0; i < 30; i++)
			rm_post(&m, nr++);
		for (int i = 0; i < 40; i++) {
			uint32_t what = rng() % 10;

			if (what < 6)
				rm_send(&m);
			else if (what < 7 && m.np > 0)
				rm_cancel(&m);
			else if (what < 8)
				rm_post(&m, nr++);
			else
				rm_probe(&m);
		}
	}
	while (m.np > 0)
		rm_cancel(&m);
	rm_drain(&m);
	assert_int_equal(e1->unexp_n, 0);
	print_message("%u messages that several receives accepted\n",
			rm_contested);
	assert_true(rm_contested > 100);
}

/* ---- memory -------------------------------------------------------------- */

static void
pingpong(unsigned n, uint32_t *seq)
{
	static uint8_t a[8], b[8];

	for (unsigned i = 0; i < n; i++, ++*seq) {
		mx_request_t echo = mxt_recv(e0, a, 8, 0x2223000000000000ull |
				*seq, ALL);
		mx_request_t in = mxt_recv(e1, b, 8, 0x2222000000000000ull,
				0xffffffff00000000ull);

		mxt_send_ok(e0, to1, a, 8, 0x2222000000000000ull | *seq);
		mxt_wait(e1, &in);
		mxt_send_ok(e1, to0, b, 8, 0x2223000000000000ull | *seq);
		mxt_wait(e0, &echo);
	}
}

/* With 1,000 receives posted and 1,000 messages queued on each side, a
 * ping-pong of exact and masked receives allocates nothing. */
static void
no_malloc_at_depth(void **state)
{
	static uint8_t j[8];
	mx_request_t junk[2000];
	uint32_t seq = 0, gone;

	(void)state;
	for (uint32_t i = 0; i < 1000; i++) {
		junk[2 * i] = mxt_recv(e0, j, 8, 0x3333000000000000ull | i, ALL);
		junk[2 * i + 1] = mxt_recv(e1, j, 8, 0x3333000000000000ull | i,
				ALL);
		mxt_send_ok(e0, to1, j, 8, 0x3334000000000000ull | i);
		mxt_send_ok(e1, to0, j, 8, 0x3334000000000000ull | i);
	}
	pingpong(1000, &seq);		/* pools and tables reach their size */
	allocs = 0;
	pingpong(3000, &seq);
	assert_int_equal(allocs, 0);
	for (uint32_t i = 0; i < 2000; i++) {
		assert_int_equal(mx_cancel(i % 2 ? e1 : e0, &junk[i], &gone),
				MX_SUCCESS);
		assert_true(gone);
	}
}

/* Tables that cannot grow (out of memory): receives of a full table's
 * class wait unclassed, a full index is dropped for walks of the queue;
 * the order holds. */
static void
tables_that_cannot_grow(void **state)
{
	static uint32_t b[300];
	mx_request_t r[300];

	(void)state;
	/* Requests and message buffers first, while memory lasts, without
	 * growing the full mask's tables (another mask; a single value). */
	for (uint32_t i = 0; i < 300; i++)
		r[i] = post(&b[i], i, 0xffff);
	for (uint32_t i = 0; i < 300; i++)
		still_posted(&r[i]);
	for (uint32_t i = 0; i < 200; i++)
		deliver(0x5000, i);
	for (uint32_t i = 0; i < 200; i++) {
		r[0] = post(&b[0], 0x5000, ALL);
		got(&r[0], &b[0], i, 0x5000);
	}
	assert_int_equal(e1->mclass[0].posted.mask, 63);
	assert_int_equal(e1->mclass[0].unexp.mask, 63);
	fail_allocs = 1;
	/* 64-slot tables to start with: 150 values overflow them. */
	for (uint32_t i = 0; i < 150; i++)
		r[i] = post(&b[i], 0x100 + i, ALL);
	assert_false(mxd_list_empty(&e1->posted));
	for (uint32_t i = 0; i < 150; i++)
		deliver(0x7000 + i, 1000 + i);
	assert_false(e1->mclass[0].indexed);	/* its index dropped */
	for (uint32_t i = 0; i < 150; i++) {	/* in reverse */
		deliver(0x100 + 149 - i, i);
		got(&r[149 - i], &b[149 - i], i, 0x100 + 149 - i);
	}
	for (uint32_t i = 0; i < 150; i++) {
		r[0] = post(&b[0], 0x7000 + i, ALL);
		got(&r[0], &b[0], 1000 + i, 0x7000 + i);
	}
	fail_allocs = 0;
	assert_int_equal(e1->unexp_n, 0);
}

/* The fixture, with memory back whatever a failed test left. */
static int
setup(void **state)
{
	fail_allocs = 0;
	return fixture_setup(state);
}

/* The same with every receive hashed at once (no short list). */
static int
setup_hashed(void **state)
{
	if (setup(state) < 0)
		return -1;
	e1->posted_short_max = 0;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mtab_against_model),
#define T(f) cmocka_unit_test_setup_teardown(f, setup, fixture_teardown)
		/* The cases with the newest receives on the short list, and
		 * again with every receive in its class's table. */
#define TH(f) T(f), { #f "_hashed", f, setup_hashed, fixture_teardown, NULL }
		TH(exact_then_wildcard),
		TH(wildcard_then_exact),
		TH(interleaved_masks),
		TH(cancel_within_a_value),
		TH(cancel_wildcards),
		TH(unexpected_against_later_receives),
		TH(probes),
		TH(posted_while_paused),
		TH(more_masks_than_classes),
		T(hashed_and_indexed),
		TH(random_against_model),
		T(no_malloc_at_depth),
		T(tables_that_cannot_grow),
#undef TH
#undef T
	};

	return cmocka_run_group_tests_name("match", tests, NULL, NULL);
}
