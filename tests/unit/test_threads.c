/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MX thread safety (spec IX.2) over the fake-link fixture:
 *  - the owner thread blocked in an unlocked mx_wait lets a second thread
 *    in (the library switches to its lock) and completes;
 *  - several threads blocked in mx_peek: each completion wakes one, with
 *    a distinct request; mx_wakeup releases them all;
 *  - four threads sending and receiving at once on two endpoints.
 * The first test must run first: it checks the switch from unlocked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"

static void
send_one(mx_endpoint_t ep, mx_endpoint_addr_t to, void *buf, uint32_t len,
		uint64_t match)
{
	mx_segment_t seg = { buf, len };
	mx_request_t r;
	mx_status_t st;
	uint32_t done = 0;

	assert_int_equal(mx_isend(ep, &seg, 1, to, match, NULL, &r), MX_SUCCESS);
	assert_int_equal(mx_wait(ep, &r, 5000, &st, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
}

static void *
late_sender(void *arg)
{
	uint32_t v = 77;

	(void)arg;
	send_one(fx.e0, fx.to1, &v, 4, 1);
	return NULL;
}

static void
owner_blocked_lets_others_in(void **state)
{
	uint32_t in = 0, done = 0;
	mx_segment_t seg = { &in, 4 };
	mx_request_t r;
	mx_status_t st;
	pthread_t t;

	(void)state;
	assert_false(mxd_threaded());	/* one thread so far */
	assert_int_equal(mx_irecv(fx.e1, &seg, 1, 1, MX_MATCH_MASK_NONE, NULL,
				&r), MX_SUCCESS);
	pthread_create(&t, NULL, late_sender, NULL);
	assert_int_equal(mx_wait(fx.e1, &r, MX_INFINITE, &st, &done),
			MX_SUCCESS);
	assert_int_equal(done, 1);
	assert_int_equal(in, 77);
	pthread_join(t, NULL);
	assert_true(mxd_threaded());
}

/* A thread blocked in mx_probe for match 20: 9 until it returns. */
static void *
probe_thread(void *arg)
{
	uint32_t *result = arg, res = 9;
	mx_status_t st;

	mx_probe(fx.e1, MX_INFINITE, 20, MX_MATCH_MASK_NONE, &st, &res);
	__atomic_store_n(result, res, __ATOMIC_RELEASE);
	return NULL;
}

static int
probes_back(const uint32_t *res, int n, uint32_t value)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += __atomic_load_n(&res[i], __ATOMIC_ACQUIRE) == value;
	return k;
}

/*
 * Two threads blocked in mx_probe on one endpoint, one message arrives:
 * "only one of them will return with success" (MX 1.0, VII.1.2).  Before,
 * both did.  The other returns for the next message, once a receive has
 * taken the first.
 */
static void
one_message_wakes_one_prober(void **state)
{
	uint32_t res[2] = { 9, 9 }, v = 6, in;
	mx_segment_t seg = { &in, 4 };
	pthread_t t[2];
	mx_request_t r;
	mx_status_t st;
	uint32_t done;
	uint64_t end;

	(void)state;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, probe_thread, &res[i]);
	usleep(20000);			/* both blocked (or about to be) */
	send_one(fx.e0, fx.to1, &v, 4, 20);
	end = mxd_now_ns() + 5000000000ull;
	while (probes_back(res, 2, 1) == 0 && mxd_now_ns() < end)
		usleep(1000);
	assert_int_equal(probes_back(res, 2, 1), 1);
	usleep(100000);			/* the other stays blocked */
	assert_int_equal(probes_back(res, 2, 1), 1);
	assert_int_equal(probes_back(res, 2, 9), 1);
	send_one(fx.e0, fx.to1, &v, 4, 20);
	usleep(50000);			/* the first still comes first */
	assert_int_equal(probes_back(res, 2, 9), 1);
	assert_int_equal(mx_irecv(fx.e1, &seg, 1, 20, MX_MATCH_MASK_NONE,
				NULL, &r), MX_SUCCESS);
	assert_int_equal(mx_wait(fx.e1, &r, 5000, &st, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
	while (probes_back(res, 2, 1) < 2 && mxd_now_ns() < end)
		usleep(1000);
	assert_int_equal(probes_back(res, 2, 1), 2);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(mx_irecv(fx.e1, &seg, 1, 20, MX_MATCH_MASK_NONE,
				NULL, &r), MX_SUCCESS);
	assert_int_equal(mx_wait(fx.e1, &r, 5000, &st, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
}

/* A thread in mx_wait on a request another thread will complete. */
static mx_request_t shared_req;

static void *
wait_shared(void *arg)
{
	uint32_t *result = arg, res = 9;
	mx_request_t r = shared_req;
	mx_status_t st;

	mx_wait(fx.e1, &r, 5000, &st, &res);
	__atomic_store_n(result, res, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * One thread waits on a receive; another cancels it (which frees it) and
 * posts a new receive, which takes the freed slot.  The wait must end at
 * once without a result, not wait on, complete and free the new receive
 * (before, it waited on the new one: until its message came, when it took
 * that message from the thread that posted it, or until its timeout).
 */
static void
wait_on_request_taken_by_another(void **state)
{
	uint32_t res = 9, v = 7, in = 0, done = 0;
	mx_segment_t seg = { &in, 4 };
	mx_request_t r2, old;
	mx_status_t st;
	pthread_t t;
	uint64_t end;

	(void)state;
	assert_int_equal(mx_irecv(fx.e1, &seg, 1, 30, MX_MATCH_MASK_NONE,
				NULL, &shared_req), MX_SUCCESS);
	pthread_create(&t, NULL, wait_shared, &res);
	usleep(20000);			/* blocked in mx_wait (or about to be) */
	old = shared_req;
	assert_int_equal(mx_cancel(fx.e1, &shared_req, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
	assert_int_equal(mx_irecv(fx.e1, &seg, 1, 31, MX_MATCH_MASK_NONE,
				NULL, &r2), MX_SUCCESS);
	assert_ptr_equal(r2, old);	/* the same slot, a new request */
	end = mxd_now_ns() + 1000000000ull;
	while (__atomic_load_n(&res, __ATOMIC_ACQUIRE) == 9 &&
			mxd_now_ns() < end)
		usleep(1000);
	assert_int_equal(__atomic_load_n(&res, __ATOMIC_ACQUIRE), 0);
	pthread_join(t, NULL);
	send_one(fx.e0, fx.to1, &v, 4, 31);
	done = 0;
	assert_int_equal(mx_wait(fx.e1, &r2, 5000, &st, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
	assert_int_equal(in, 7);
}

struct peeker {
	pthread_t t;
	mx_request_t req;
	uint32_t result;
};

static void *
peek_thread(void *arg)
{
	struct peeker *p = arg;
	mx_request_t req = NULL;
	uint32_t result = 9;

	/* Into locals: the main thread watches p->result meanwhile. */
	mx_peek(fx.e1, MX_INFINITE, &req, &result);
	__atomic_store_n(&p->req, req, __ATOMIC_RELAXED);
	__atomic_store_n(&p->result, result, __ATOMIC_RELEASE);
	return NULL;
}

static void
one_completion_wakes_one_peeker(void **state)
{
	struct peeker pk[3];
	uint32_t in[2], v = 5;
	mx_segment_t s0 = { &in[0], 4 }, s1 = { &in[1], 4 };
	mx_request_t r0, r1;
	mx_status_t st;
	uint32_t res;
	int woken = 0;

	(void)state;
	assert_int_equal(mx_irecv(fx.e1, &s0, 1, 10, MX_MATCH_MASK_NONE, NULL,
				&r0), MX_SUCCESS);
	assert_int_equal(mx_irecv(fx.e1, &s1, 1, 11, MX_MATCH_MASK_NONE, NULL,
				&r1), MX_SUCCESS);
	for (int i = 0; i < 3; i++) {
		pk[i].req = NULL;
		pk[i].result = 9;
		pthread_create(&pk[i].t, NULL, peek_thread, &pk[i]);
	}
	send_one(fx.e0, fx.to1, &v, 4, 10);
	send_one(fx.e0, fx.to1, &v, 4, 11);
	/* Two completions: two peekers return, with distinct requests. */
	while (woken < 2) {
		woken = 0;
		for (int i = 0; i < 3; i++)
			woken += __atomic_load_n(&pk[i].result, __ATOMIC_ACQUIRE)
				== 1;
		mx_progress(fx.e0);
	}
	/* The third is released by mx_wakeup, with nothing.  mx_wakeup
	 * releases the threads blocked at that moment, and under load the
	 * third may not have reached mx_peek yet: repeat until it returns. */
	for (int i = 0; i < 1000; i++) {
		int left = 0;

		for (int k = 0; k < 3; k++)
			left += __atomic_load_n(&pk[k].result, __ATOMIC_ACQUIRE)
				== 9;
		if (left == 0)
			break;
		assert_int_equal(mx_wakeup(fx.e1), MX_SUCCESS);
		usleep(10000);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(pk[i].t, NULL);
	woken = 0;
	for (int i = 0; i < 3; i++)
		if (pk[i].result == 1) {
			woken++;
			assert_true(pk[i].req == r0 || pk[i].req == r1);
			for (int j = 0; j < i; j++)
				assert_true(pk[j].result != 1 ||
						pk[j].req != pk[i].req);
		} else {
			assert_int_equal(pk[i].result, 0);
		}
	assert_int_equal(woken, 2);
	assert_int_equal(mx_test(fx.e1, &r0, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(mx_test(fx.e1, &r1, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
}

#define N 2000

struct stream {
	mx_endpoint_t ep;
	mx_endpoint_addr_t *to;
	uint64_t tag;
	int failed;
};

static void *
sender(void *arg)
{
	struct stream *s = arg;

	for (uint32_t i = 0; i < N; i++) {
		uint32_t v[64];
		mx_segment_t seg = { v, (i % 64 + 1) * 4 };
		mx_request_t r;
		mx_status_t st;
		uint32_t done = 0;

		for (uint32_t k = 0; k < 64; k++)
			v[k] = i + k;
		if (mx_isend(s->ep, &seg, 1, *s->to, s->tag, NULL, &r) ||
				mx_wait(s->ep, &r, 10000, &st, &done) || !done ||
				st.code != MX_STATUS_SUCCESS)
			s->failed = 1;
	}
	return NULL;
}

static void *
receiver(void *arg)
{
	struct stream *s = arg;

	for (uint32_t i = 0; i < N; i++) {
		uint32_t v[64];
		mx_segment_t seg = { v, sizeof(v) };
		mx_request_t r;
		mx_status_t st;
		uint32_t done = 0;

		if (mx_irecv(s->ep, &seg, 1, s->tag, MX_MATCH_MASK_NONE, NULL,
					&r) || mx_wait(s->ep, &r, 10000, &st,
					&done) || !done ||
				st.xfer_length != (i % 64 + 1) * 4) {
			s->failed = 1;
			continue;
		}
		for (uint32_t k = 0; k < st.xfer_length / 4; k++)
			if (v[k] != i + k)
				s->failed = 1;
	}
	return NULL;
}

static void
four_threads_both_ways(void **state)
{
	struct stream s[4] = {
		{ fx.e0, &fx.to1, 21, 0 }, { fx.e1, NULL, 21, 0 },
		{ fx.e1, &fx.to0, 22, 0 }, { fx.e0, NULL, 22, 0 },
	};
	pthread_t t[4];

	(void)state;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, s[i].to ? sender : receiver, &s[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++)
		assert_int_equal(s[i].failed, 0);
}

/* Whether r is complete, looked at as a call would (under the library
 * lock): the progression thread writes its state under its borrow. */
static int
req_complete(mx_request_t r)
{
	int done;

	mxd_enter();
	done = r->state == MXD_RS_COMPLETE;
	mxd_leave();
	return done;
}

/*
 * A large transfer completes while the application makes no MX call: with
 * the busy progress thread (MX_PROGRESS_THREAD), or with the progression
 * thread (the default), after which the application's calls run unlocked
 * as before (the borrow left no mark).
 */
static void
thread_moves_data(int busy)
{
	enum { LEN = 4 << 20 };
	uint8_t *out = malloc(LEN), *in = malloc(LEN);
	mx_segment_t so = { out, LEN }, si = { in, LEN };
	mx_request_t s, r;
	mx_status_t st;
	uint32_t res = 0;
	int done = 0;

	for (uint32_t i = 0; i < LEN; i++)
		out[i] = (uint8_t)(i * 7);
	mxd_conf.progress_thread = (uint32_t)busy;
	mxd_conf.progression = 1;
	mxd_conf.progression_us = 200;
	assert_int_equal(mxd_progress_thread_start(), 0);
	assert_int_equal(mx_irecv(fx.e1, &si, 1, 3, MX_MATCH_MASK_NONE, NULL,
				&r), MX_SUCCESS);
	assert_int_equal(mx_isend(fx.e0, &so, 1, fx.to1, 3, NULL, &s),
			MX_SUCCESS);
	/* "Compute" without calling MX; look at the requests directly,
	 * under the lock every 10 ms (which the progression thread sees as
	 * the application active for a moment, and steps aside). */
	for (int i = 0; i < 500 && !done; i++) {
		usleep(10000);
		done = req_complete(r) && req_complete(s);
	}
	assert_true(done);
	if (busy)
		mxd_progress_thread_stop();
	/* The progression thread steps aside when the application calls. */
	assert_int_equal(mx_test(fx.e1, &r, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(st.xfer_length, LEN);
	assert_memory_equal(in, out, LEN);
	assert_int_equal(mx_test(fx.e0, &s, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	if (!busy) {
		assert_int_equal(mxd_lock_bits(), 0);	/* runs first */
		mxd_progress_thread_stop();
	}
	mxd_conf.progress_thread = 0;
	free(out);
	free(in);
}

static void
progress_thread_moves_data(void **state)
{
	(void)state;
	thread_moves_data(1);
}

static void
progression_moves_data(void **state)
{
	(void)state;
	thread_moves_data(0);
}

/* mx_disable_progression on every endpoint: the thread leaves them be. */
static void
progression_disabled(void **state)
{
	uint8_t out[64] = { 1 }, in[64];
	mx_segment_t so = { out, sizeof(out) }, si = { in, sizeof(in) };
	mx_request_t s, r;
	mx_status_t st;
	uint32_t res = 0;

	(void)state;
	mxd_conf.progress_thread = 0;
	mxd_conf.progression = 1;
	mxd_conf.progression_us = 200;
	assert_int_equal(mx_disable_progression(fx.e0), MX_SUCCESS);
	assert_int_equal(mx_disable_progression(fx.e1), MX_SUCCESS);
	assert_int_equal(mx_irecv(fx.e1, &si, 1, 3, MX_MATCH_MASK_NONE, NULL,
				&r), MX_SUCCESS);
	assert_int_equal(mx_isend(fx.e0, &so, 1, fx.to1, 3, NULL, &s),
			MX_SUCCESS);
	assert_int_equal(mxd_progress_thread_start(), 0);
	usleep(50000);
	assert_false(req_complete(r));
	mxd_progress_thread_stop();
	assert_int_equal(mx_reenable_progression(fx.e0), MX_SUCCESS);
	assert_int_equal(mx_reenable_progression(fx.e1), MX_SUCCESS);
	assert_int_equal(mx_wait(fx.e1, &r, 2000, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(mx_wait(fx.e0, &s, 2000, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
}

/*
 * Threads whose first sends go, at once, to the
 * endpoint's own address (as mx_get_endpoint_addr gave it) all get there;
 * none is told "unreachable" by another's connect in progress.
 */
#define SELF_THREADS	3
#define SELF_ROUNDS	20

static mx_endpoint_addr_t self_addr;
static int self_failed;

static void *
self_sender(void *arg)
{
	mx_segment_t seg = { NULL, 0 };
	mx_request_t r;
	mx_status_t st;
	uint32_t done = 0;

	(void)arg;
	if (mx_isend(fx.e0, &seg, 0, self_addr, 0x5e1f, NULL, &r) !=
			MX_SUCCESS ||
			mx_wait(fx.e0, &r, 5000, &st, &done) != MX_SUCCESS ||
			!done || st.code != MX_STATUS_SUCCESS)
		__atomic_fetch_add(&self_failed, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void
first_sends_to_self_race(void **state)
{
	pthread_t t[SELF_THREADS];

	(void)state;
	for (int round = 0; round < SELF_ROUNDS; round++) {
		mx_endpoint_t ep;
		mx_request_t r[SELF_THREADS];
		mx_status_t st;
		uint32_t done;

		/* A fresh endpoint each round: its first contact with itself. */
		assert_int_equal(mx_close_endpoint(fx.e0), MX_SUCCESS);
		assert_int_equal(mx_open_endpoint(0, 1, 0xf00d, NULL, 0, &ep),
				MX_SUCCESS);
		fx.e0 = ep;
		mx_get_endpoint_addr(ep, &self_addr);
		for (int i = 0; i < SELF_THREADS; i++)
			assert_int_equal(mx_irecv(ep, NULL, 0, 0x5e1f,
					MX_MATCH_MASK_NONE, NULL, &r[i]),
					MX_SUCCESS);
		for (int i = 0; i < SELF_THREADS; i++)
			pthread_create(&t[i], NULL, self_sender, NULL);
		for (int i = 0; i < SELF_THREADS; i++)
			pthread_join(t[i], NULL);
		assert_int_equal(self_failed, 0);
		for (int i = 0; i < SELF_THREADS; i++) {
			assert_int_equal(mx_wait(ep, &r[i], 5000, &st, &done),
					MX_SUCCESS);
			assert_int_equal(done, 1);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: no other thread has called MX yet (the owner's
		 * unlocked calls are what they check). */
		cmocka_unit_test_setup_teardown(progression_moves_data,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(progression_disabled,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(owner_blocked_lets_others_in,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(one_completion_wakes_one_peeker,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(one_message_wakes_one_prober,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(
				wait_on_request_taken_by_another,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(four_threads_both_ways,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(progress_thread_moves_data,
				fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(first_sends_to_self_race,
				fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
