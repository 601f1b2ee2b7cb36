/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine under injected faults, deterministically: two boards of one
 * process joined by fake links wrapped in the fault shim (MX_FAULTS), one
 * thread driving both endpoints.  Messages of every class go both ways;
 * every byte is checked and every request must complete exactly once.
 * The same seed replays the same run, so a failure here is reproducible.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_link.h"
#include "fault.h"
#include "fixture.h"

#define ROUNDS		4
#define WIN		16
#define CTX_RECV	0x10000u
#define LIMIT_NS	(60ull * 1000000000ull)

static const uint32_t sizes[] = { 0, 1, 60, 1000, 1500, 4000, 9000, 20000,
	32768, 32769, 100000, 1u << 20 };
#define NS (sizeof(sizes) / sizeof(sizes[0]))
#define N (ROUNDS * NS)

struct side {
	mx_endpoint_t ep;
	mx_endpoint_addr_t to;
	uint32_t me, peer;
	uint8_t *in[N], *out[N];
	uint8_t seen[2 * N];
	uint32_t sent, outstanding, done;
};

static uint8_t
byte(uint32_t who, uint32_t i, uint32_t k)
{
	return (uint8_t)(who * 31 + i * 7 + k * 13 + (k >> 9));
}

static void
side_init(struct side *s, mx_endpoint_t ep, mx_endpoint_addr_t to,
		uint32_t me)
{
	memset(s, 0, sizeof(*s));
	s->ep = ep;
	s->to = to;
	s->me = me;
	s->peer = 1 - me;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t len = sizes[i % NS];
		mx_segment_t seg;
		mx_request_t r;

		s->in[i] = malloc(len + 1);
		s->out[i] = malloc(len + 1);
		assert_non_null(s->in[i]);
		assert_non_null(s->out[i]);
		for (uint32_t k = 0; k < len; k++)
			s->out[i][k] = byte(me, i, k);
		seg.segment_ptr = s->in[i];
		seg.segment_length = len;
		assert_int_equal(mx_irecv(ep, &seg, 1, (uint64_t)s->peer << 32 | i,
					MX_MATCH_MASK_NONE,
					(void *)(uintptr_t)(CTX_RECV | i), &r),
				MX_SUCCESS);
	}
}

/* Sends what the window allows and takes every completion; returns 1
 * when everything of this side is done. */
static int
side_step(struct side *s)
{
	mx_status_t st;
	uint32_t result = 1;

	while (s->sent < N && s->outstanding < WIN) {
		mx_segment_t seg = { s->out[s->sent], sizes[s->sent % NS] };
		mx_request_t r;

		assert_int_equal(mx_isend(s->ep, &seg, 1, s->to,
					(uint64_t)s->me << 32 | s->sent,
					(void *)(uintptr_t)s->sent, &r), MX_SUCCESS);
		s->sent++;
		s->outstanding++;
	}
	while (mx_test_any(s->ep, 0, 0, &st, &result) == MX_SUCCESS && result) {
		uint32_t ctx = (uint32_t)(uintptr_t)st.context;
		uint32_t i = ctx & ~CTX_RECV, slot = ctx & CTX_RECV ? N + i : i;

		assert_true(i < N);
		if (st.code != MX_STATUS_SUCCESS || s->seen[slot])
			fail_msg("side %u: %s %u: %s%s", s->me, ctx & CTX_RECV ?
					"receive" : "send", i, mx_strstatus(st.code),
					s->seen[slot] ? ", completed twice" : "");
		s->seen[slot] = 1;
		s->done++;
		if (ctx & CTX_RECV) {
			assert_int_equal(st.xfer_length, sizes[i % NS]);
			for (uint32_t k = 0; k < sizes[i % NS]; k++)
				if (s->in[i][k] != byte(s->peer, i, k))
					fail_msg("side %u: receive %u byte %u is "
							"wrong", s->me, i, k);
		} else {
			s->outstanding--;
		}
	}
	return s->done == 2 * N;
}

static void
side_fini(struct side *s)
{
	for (uint32_t i = 0; i < N; i++) {
		free(s->in[i]);
		free(s->out[i]);
	}
}

static void
dump(mx_endpoint_t ep)
{
	struct mxd_board *b = ep->board;

	for (unsigned c = 0; c < MXD_C_MAX; c++)
		if (b->counters[c])
			fprintf(stderr, "  board %u %-32s %llu\n", b->index,
					mxd_counter_name(c),
					(unsigned long long)b->counters[c]);
}

static void
traffic(const char *spec)
{
	static struct side a, b;
	uint64_t t0;

	setenv("MX_FAULTS", spec, 1);
	setenv("MX_RTO_MIN_US", "200", 1);
	assert_int_equal(fixture_setup(NULL), 0);
	side_init(&a, fx.e0, fx.to1, 0);
	side_init(&b, fx.e1, fx.to0, 1);
	t0 = mxd_now_ns();
	for (;;) {
		int da = side_step(&a), db = side_step(&b);

		if (da && db)
			break;
		if (mxd_now_ns() - t0 > LIMIT_NS) {
			for (uint32_t i = 0; i < 2 * N; i++) {
				if (!a.seen[i])
					fprintf(stderr, "side 0: %s %u not done\n",
							i < N ? "send" : "receive",
							(unsigned)(i % N));
				if (!b.seen[i])
					fprintf(stderr, "side 1: %s %u not done\n",
							i < N ? "send" : "receive",
							(unsigned)(i % N));
			}
			dump(fx.e0);
			dump(fx.e1);
			fail_msg("%s: not done in time (%u + %u of %u)", spec,
					a.done, b.done, (unsigned)(4 * N));
		}
	}
	/* The shim did inject what was asked (else this test proves nothing). */
	for (unsigned i = 0; i < mxd_lib.nlinks; i++) {
		struct mxd_fault_stats fs;

		assert_int_equal(mxd_fault_stats(mxd_lib.links[i], &fs), 0);
		if (strstr(spec, "drop="))
			assert_true(fs.dropped > 0);
		if (strstr(spec, "dup="))
			assert_true(fs.duplicated > 0);
		if (strstr(spec, "reorder="))
			assert_true(fs.reordered > 0);
		if (strstr(spec, "corrupt="))
			assert_true(fs.corrupted > 0);
		if (strstr(spec, "delay="))
			assert_true(fs.delayed > 0);
	}
	if (getenv("MXD_TEST_VERBOSE")) {
		dump(fx.e0);
		dump(fx.e1);
	}
	side_fini(&a);
	side_fini(&b);
	unsetenv("MX_FAULTS");
	assert_int_equal(fixture_teardown(NULL), 0);
}

static void none(void **s) { (void)s; traffic("seed=1"); }
static void drop(void **s) { (void)s; traffic("drop=5%,seed=2"); }
static void reorder(void **s) { (void)s; traffic("reorder=5%,depth=16,seed=3"); }
static void dup(void **s) { (void)s; traffic("dup=2%,seed=4"); }
static void corrupt(void **s) { (void)s; traffic("corrupt=2%,seed=5"); }
static void delay(void **s) { (void)s; traffic("delay=200,seed=6"); }
static void combined(void **s)
{
	(void)s;
	traffic("drop=5%,reorder=5%,dup=1%,corrupt=1%,seed=7");
}

/* Moves up to n frames of 60 bytes from a to b; returns how many came. */
static unsigned
pass(struct mxd_link *a, struct mxd_link *b, unsigned n)
{
	struct mxd_frame f[8];
	unsigned got = 0;

	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(a->ops->alloc(a, &f[0], 1), 0);
		memset(f[0].data, 0xab, 60);
		f[0].len = 60;
		assert_int_equal(a->ops->tx_burst(a, f, 1), 1);
	}
	for (uint16_t k; (k = b->ops->rx_burst(b, f, 8)) != 0; got += k)
		b->ops->free(f, k);
	return got;
}

/*
 * after=N starts the dead/down clock once the link carried N frames (sent
 * and received): the link works until then and loses everything after;
 * down also reports the link down from then on.
 */
static void
dies_after_frames(void **state)
{
	static const char *const how[] = { "after=10,dead=0", "after=10,down=0" };

	(void)state;
	for (unsigned h = 0; h < 2; h++) {
		struct fake_port x, y;
		struct mxd_link *l[2] = { &x.link, &y.link };
		struct mxd_fault_stats fs;

		fake_pair(&x, &y, 1, 2, 1500);
		assert_int_equal(mxd_fault_wrap(how[h], l, 2), 2);
		/* x sends 4 (x: 4 carried), y gets 4 (y: 4). */
		assert_int_equal(pass(l[0], l[1], 4), 4);
		/* x: 8 carried, y: 8. */
		assert_int_equal(pass(l[0], l[1], 4), 4);
		assert_int_equal(l[1]->ops->link_up(l[1]), 1);
		/* x reaches 10 after 2 more: those 2 go out, the rest is
		 * lost; y reaches 10 on what it receives, then is dead. */
		assert_int_equal(pass(l[0], l[1], 4), 2);
		assert_int_equal(pass(l[0], l[1], 4), 0);
		assert_int_equal(pass(l[1], l[0], 4), 0);
		assert_int_equal(l[1]->ops->link_up(l[1]), h == 0);
		assert_int_equal(mxd_fault_stats(l[0], &fs), 0);
		assert_true(fs.dead >= 6);
		mxd_fault_unwrap(l, 2);
		fake_drain(&x);
		fake_drain(&y);
	}
	assert_int_equal(fake_live_buffers(), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(none),
		cmocka_unit_test(drop),
		cmocka_unit_test(reorder),
		cmocka_unit_test(dup),
		cmocka_unit_test(corrupt),
		cmocka_unit_test(delay),
		cmocka_unit_test(combined),
		cmocka_unit_test(dies_after_frames),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("faults", tests, NULL, NULL);
}
