/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MX 1.2's additions to myriexpress.h, at run time: each call that mx-dpdk
 * implements does what MX 1.2 said, and each one it cannot do returns the
 * code the README lists.  Public API, and only myriexpress.h: a program
 * written for MX 1.2's header needs nothing else.
 *
 * One process, two endpoints of one board (a net_null port: the traffic
 * takes the loopback path, nothing reaches the wire).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <myriexpress.h>

#include "mxtest.h"

#define FILTER		0x12
#define LARGE		(256u * 1024)	/* above the rendezvous threshold */

static mx_endpoint_t a, b;
static mx_endpoint_addr_t to_b;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Runs the library's progress (the board's loopback) for a while. */
static void
spin(mx_endpoint_t ep, int passes)
{
	mx_request_t none = NULL;
	uint32_t res;

	for (int i = 0; i < passes; i++)
		mx_ipeek(ep, &none, &res);
}

/* ---- mx__init_api (what MX 1.2's mx_init() macro calls) ----------------- */

static void
init_api(void **state)
{
	(void)state;
	assert_int_equal(mx__init_api(MX_API), MX_ALREADY_INITIALIZED);
	assert_int_equal(mx_init(), MX_ALREADY_INITIALIZED);
	assert_int_equal(mx__init_api(MX_API + 0x100), MX_BAD_LIB_VERSION);
	/* A minor version apart is compatible. */
	assert_int_equal(mx__init_api(MX_API - 1), MX_ALREADY_INITIALIZED);
}

/* ---- MX_MAX_SEGMENTS: a constant, and an mx_get_info() key --------------- */

static void
max_segments(void **state)
{
	static uint8_t out[MX_MAX_SEGMENTS], in[MX_MAX_SEGMENTS];
	mx_segment_t so[MX_MAX_SEGMENTS + 1], si[MX_MAX_SEGMENTS];
	uint32_t v = 0;
	mx_request_t s, r;

	(void)state;
	assert_int_equal(MX_MAX_SEGMENTS, 256);
	assert_int_equal(mx_get_info(NULL, (mx_get_info_key_t)MX_MAX_SEGMENTS,
				NULL, 0, &v, sizeof(v)), MX_SUCCESS);
	assert_int_equal(v, MX_MAX_SEGMENTS);
	v = 0;
	assert_int_equal(mx_get_info(NULL, (mx_get_info_key_t)17, NULL, 0, &v,
				sizeof(v)), MX_SUCCESS);
	assert_int_equal(v, MX_MAX_SEGMENTS);
	assert_int_equal(mx_get_info(NULL, (mx_get_info_key_t)MX_MAX_SEGMENTS,
				NULL, 0, &v, 2), MX_BAD_INFO_LENGTH);
	/* A whole list of MX_MAX_SEGMENTS one-byte segments each way. */
	mxt_pattern(out, sizeof(out), 7);
	for (unsigned i = 0; i <= MX_MAX_SEGMENTS; i++) {
		so[i].segment_ptr = &out[i % MX_MAX_SEGMENTS];
		so[i].segment_length = 1;
		if (i < MX_MAX_SEGMENTS) {
			si[i].segment_ptr = &in[MX_MAX_SEGMENTS - 1 - i];
			si[i].segment_length = 1;
		}
	}
	assert_int_equal(mx_isend(a, so, MX_MAX_SEGMENTS + 1, to_b, 1, NULL,
				&s), MX_BAD_SEG_CNT);
	assert_int_equal(mx_irecv(b, si, MX_MAX_SEGMENTS, 0x5e9,
				MX_MATCH_MASK_NONE, NULL, &r), MX_SUCCESS);
	assert_int_equal(mx_isend(a, so, MX_MAX_SEGMENTS, to_b, 0x5e9, NULL,
				&s), MX_SUCCESS);
	assert_int_equal(mxt_wait(b, &r).xfer_length, MX_MAX_SEGMENTS);
	assert_int_equal(mxt_wait(a, &s).code, MX_STATUS_SUCCESS);
	for (unsigned i = 0; i < MX_MAX_SEGMENTS; i++)
		assert_int_equal(in[MX_MAX_SEGMENTS - 1 - i], out[i]);
}

/* ---- mx_buffered ---------------------------------------------------------- */

/* A small send is buffered at once: its data is in a frame. */
static void
buffered_small(void **state)
{
	char msg[32] = "buffered";
	uint32_t res = 0;
	mx_request_t s = mxt_isend(a, to_b, msg, sizeof(msg), 0xb0);
	mx_request_t r;

	(void)state;
	assert_int_equal(mx_buffered(a, &s, 1000, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_non_null(s);		/* still to be completed */
	r = mxt_recv(b, msg, sizeof(msg), 0xb0, MX_MATCH_MASK_NONE);
	mxt_wait(b, &r);
	assert_int_equal(mxt_wait(a, &s).code, MX_STATUS_SUCCESS);
}

/* A large send is buffered only once the receiver has pulled it: without
 * a receive mx_buffered() times out, with one it returns 1. */
static void
buffered_large(void **state)
{
	uint8_t *out = malloc(LARGE), *in = malloc(LARGE);
	uint32_t res = 1;
	uint64_t t0;
	mx_request_t s, r;

	(void)state;
	mxt_pattern(out, LARGE, 11);
	s = mxt_isend(a, to_b, out, LARGE, 0xb1);
	t0 = now_ms();
	assert_int_equal(mx_buffered(a, &s, 50, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	assert_true(now_ms() - t0 >= 45);
	r = mxt_recv(b, in, LARGE, 0xb1, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_buffered(a, &s, 20000, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	mxt_wait(b, &r);
	mxt_pattern_expect(in, LARGE, 11);
	assert_int_equal(mxt_wait(a, &s).code, MX_STATUS_SUCCESS);
	free(out);
	free(in);
}

static void *
wake_later(void *arg)
{
	usleep(100 * 1000);
	mx_wakeup((mx_endpoint_t)arg);
	return NULL;
}

/* mx_buffered(MX_INFINITE) waits until mx_wakeup(). */
static void
buffered_wakeup(void **state)
{
	uint8_t *out = malloc(LARGE), *in = malloc(LARGE);
	uint32_t res = 1;
	pthread_t t;
	mx_request_t s, r;

	(void)state;
	memset(out, 0xb2, LARGE);
	s = mxt_isend(a, to_b, out, LARGE, 0xb2);
	assert_int_equal(pthread_create(&t, NULL, wake_later, a), 0);
	assert_int_equal(mx_buffered(a, &s, MX_INFINITE, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	pthread_join(t, NULL);
	r = mxt_recv(b, in, LARGE, 0xb2, MX_MATCH_MASK_NONE);
	mxt_wait(b, &r);
	mxt_wait(a, &s);
	free(out);
	free(in);
}

static void
buffered_errors(void **state)
{
	mx_request_t none = NULL;
	uint32_t res;

	(void)state;
	assert_int_equal(mx_buffered(NULL, &none, 0, &res), MX_BAD_ENDPOINT);
	assert_int_equal(mx_buffered(a, &none, 0, &res), MX_BAD_REQUEST);
	assert_int_equal(mx_buffered(a, NULL, 0, &res), MX_BAD_REQUEST);
}

/* ---- mx_register_unexp_callback ------------------------------------------- */

struct seen {
	mx_endpoint_t ep;
	int calls;
	uint64_t match;
	int length;
	void *buf;		/* where the callback receives, if not NULL */
	uint32_t len;
	mx_request_t req;
};

static void
on_unexpected(void *context, uint64_t match_value, int length)
{
	struct seen *s = context;
	mx_segment_t seg = { s->buf, s->len };

	s->calls++;
	s->match = match_value;
	s->length = length;
	if (s->buf != NULL)	/* the message then matches this receive */
		assert_int_equal(mx_irecv(s->ep, &seg, 1, match_value,
					MX_MATCH_MASK_NONE, s, &s->req),
				MX_SUCCESS);
}

/* The callback is told of an unexpected message and may receive it. */
static void
unexp_callback_receives(void **state)
{
	char msg[] = "to the callback", in[64] = "";
	struct seen s = { b, 0, 0, 0, in, sizeof(in), NULL };
	mx_status_t st;

	(void)state;
	assert_int_equal(mx_register_unexp_callback(b, on_unexpected, &s),
			MX_SUCCESS);
	mxt_send_ok(a, to_b, msg, sizeof(msg), 0xc1);
	while (s.req == NULL)
		spin(b, 1);
	st = mxt_wait(b, &s.req);
	assert_int_equal(s.calls, 1);
	assert_true(s.match == 0xc1);
	assert_int_equal(s.length, (int)sizeof(msg));
	assert_ptr_equal(st.context, &s);
	assert_string_equal(in, msg);
	assert_int_equal(mx_register_unexp_callback(b, NULL, NULL), MX_SUCCESS);
}

/* Without a receive from the callback the message is queued as usual;
 * a large one is reported with its whole length; NULL removes it. */
static void
unexp_callback_continues(void **state)
{
	uint8_t *out = malloc(LARGE), *in = malloc(LARGE);
	struct seen s = { b, 0, 0, 0, NULL, 0, NULL };
	uint32_t res = 0;
	mx_status_t st;
	mx_request_t snd, r;

	(void)state;
	assert_int_equal(mx_register_unexp_callback(b, on_unexpected, &s),
			MX_SUCCESS);
	mxt_pattern(out, LARGE, 3);
	snd = mxt_isend(a, to_b, out, LARGE, 0xc2);
	while (!res)
		assert_int_equal(mx_iprobe(b, 0xc2, MX_MATCH_MASK_NONE, &st,
					&res), MX_SUCCESS);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.length, (int)LARGE);
	r = mxt_recv(b, in, LARGE, 0xc2, MX_MATCH_MASK_NONE);
	mxt_wait(b, &r);
	mxt_wait(a, &snd);
	mxt_pattern_expect(in, LARGE, 3);
	/* Removed: the next unexpected message is not reported. */
	assert_int_equal(mx_register_unexp_callback(b, NULL, NULL), MX_SUCCESS);
	mxt_send_ok(a, to_b, out, 8, 0xc3);
	r = mxt_recv(b, in, 8, 0xc3, MX_MATCH_MASK_NONE);
	mxt_wait(b, &r);
	assert_int_equal(s.calls, 1);
	assert_int_equal(mx_register_unexp_callback(NULL, on_unexpected, &s),
			MX_BAD_ENDPOINT);
	free(out);
	free(in);
}

/* ---- mx_disable_progression / mx_reenable_progression -------------------- */

static uint32_t
probe(mx_endpoint_t ep, uint64_t match)
{
	mx_status_t st;
	uint32_t res = 0;

	spin(a, 50);		/* the loopback runs in a's passes too */
	assert_int_equal(mx_iprobe(ep, match, MX_MATCH_MASK_NONE, &st, &res),
			MX_SUCCESS);
	return res;
}

/* Disabling nests: messages are held until the last re-enable. */
static void
progression_nests(void **state)
{
	uint32_t v = 42, in = 0;
	mx_request_t s, r;

	(void)state;
	assert_int_equal(mx_disable_progression(b), MX_SUCCESS);
	assert_int_equal(mx_disable_progression(b), MX_SUCCESS);
	s = mxt_isend(a, to_b, &v, sizeof(v), 0xd1);
	assert_int_equal(probe(b, 0xd1), 0);
	assert_int_equal(mx_reenable_progression(b), MX_SUCCESS);
	assert_int_equal(probe(b, 0xd1), 0);	/* still disabled once */
	assert_int_equal(mx_reenable_progression(b), MX_SUCCESS);
	assert_int_equal(probe(b, 0xd1), 1);
	/* One too many does nothing. */
	assert_int_equal(mx_reenable_progression(b), MX_SUCCESS);
	r = mxt_recv(b, &in, sizeof(in), 0xd1, MX_MATCH_MASK_NONE);
	mxt_wait(b, &r);
	assert_int_equal(in, 42);
	mxt_wait(a, &s);
	assert_int_equal(mx_disable_progression(NULL), MX_BAD_ENDPOINT);
	assert_int_equal(mx_reenable_progression(NULL), MX_BAD_ENDPOINT);
}

/* ---- mx_test_any / mx_wait_any from myriexpress.h alone ------------------ */

static void
any_by_match(void **state)
{
	uint32_t x = 1, y = 2, in1 = 0, in2 = 0, res = 0;
	mx_request_t r1, r2;
	mx_status_t st;

	(void)state;
	r1 = mxt_recv(b, &in1, 4, 0xe100000001ull, MX_MATCH_MASK_NONE);
	r2 = mxt_recv(b, &in2, 4, 0xe200000002ull, MX_MATCH_MASK_NONE);
	mxt_send_ok(a, to_b, &x, 4, 0xe100000001ull);
	mxt_send_ok(a, to_b, &y, 4, 0xe200000002ull);
	/* Only the request whose high half is 0xe2. */
	assert_int_equal(mx_wait_any(b, 5000, 0xe200000000ull,
				0xffffffff00000000ull, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_true(st.match_info == 0xe200000002ull);
	assert_int_equal(in2, 2);
	assert_int_equal(mx_test_any(b, 0xe100000001ull, MX_MATCH_MASK_NONE,
				&st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(in1, 1);
	assert_int_equal(mx_test_any(b, 0, 0, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	(void)r1;
	(void)r2;
}

/* ---- what mx-dpdk cannot do ------------------------------------------------ */

static void
one_sided_unsupported(void **state)
{
	char buf[16];
	mx_request_t r = NULL;

	(void)state;
	assert_int_equal(mx_iput(a, buf, sizeof(buf), to_b, 0, NULL, &r),
			MX_FAILURE);
	assert_int_equal(mx_iget(a, buf, sizeof(buf), to_b, 0, NULL, &r),
			MX_FAILURE);
	assert_null(r);			/* not written on failure */
	assert_int_equal(mx_iput(a, buf, 1, to_b, 0, NULL, NULL),
			MX_BAD_REQUEST);
	assert_int_equal(mx_iget(NULL, buf, 1, to_b, 0, NULL, &r),
			MX_BAD_ENDPOINT);
}

/* ---- set-up ------------------------------------------------------------------ */

static int
group_setup(void **state)
{
	uint64_t nic;

	(void)state;
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mx__init_api(MX_API + 0x100) != MX_BAD_LIB_VERSION)
		return -1;
	if (mx__init_api(MX_API) != MX_SUCCESS ||
			mx_open_endpoint(0, 1, FILTER, NULL, 0, &a) != MX_SUCCESS ||
			mx_open_endpoint(0, 2, FILTER, NULL, 0, &b) != MX_SUCCESS ||
			mx_board_number_to_nic_id(0, &nic) != MX_SUCCESS ||
			mx_connect(a, nic, 2, FILTER, 5, &to_b) != MX_SUCCESS)
		return -1;
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	mx_close_endpoint(a);
	mx_close_endpoint(b);
	return mx_finalize() == MX_SUCCESS ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_api),
		cmocka_unit_test(max_segments),
		cmocka_unit_test(buffered_small),
		cmocka_unit_test(buffered_large),
		cmocka_unit_test(buffered_wakeup),
		cmocka_unit_test(buffered_errors),
		cmocka_unit_test(unexp_callback_receives),
		cmocka_unit_test(unexp_callback_continues),
		cmocka_unit_test(progression_nests),
		cmocka_unit_test(any_by_match),
		cmocka_unit_test(one_sided_unsupported),
	};

	/* Runs on its own too: a net_null port unless told otherwise. */
	setenv("MX_DPDK_ARGS", "--no-huge -m 128 --no-shconf --no-pci "
			"--log-level=error --vdev=net_null0", 0);
	setenv("MX_MBUFS", "1023", 0);
	return cmocka_run_group_tests_name("mx12", tests, group_setup,
			group_teardown);
}
