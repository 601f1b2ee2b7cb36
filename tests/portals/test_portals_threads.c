/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Portals calls from several threads, on the library lock as the MX
 * calls: PtlEQWait blocks in the transport's wait (which lets the other
 * threads in), each event wakes one waiter, PtlEQGet finds the queue
 * empty while a thread waits on it, and PtlEQFree and PtlNIFini release
 * the waiters (PTL_INV_EQ).
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "util/lock.h"
#include "ptltest.h"

static uint8_t buf[8];

struct waiter {
	pthread_t t;
	ptl_handle_eq_t eq;
	int rc;
	ptl_event_t ev;
};

static void *
wait_main(void *arg)
{
	struct waiter *w = arg;

	w->rc = PtlEQWait(w->eq, &w->ev);
	return NULL;
}

/* Starts a thread in PtlEQWait(eq) and returns once it waits. */
static void
waiter_start(struct waiter *w, ptl_handle_eq_t eq)
{
	unsigned before = __atomic_load_n(&lb.waits, __ATOMIC_SEQ_CST);

	memset(w, 0, sizeof(*w));
	w->eq = eq;
	assert_int_equal(pthread_create(&w->t, NULL, wait_main, w), 0);
	while (__atomic_load_n(&lb.waits, __ATOMIC_SEQ_CST) == before)
		usleep(200);
}

static int
waiter_join(struct waiter *w)
{
	assert_int_equal(pthread_join(w->t, NULL), 0);
	return w->rc;
}

/* Delivers what is queued, under the library lock (another thread may
 * be in the library). */
static void
pump_locked(void)
{
	mxd_enter();
	lb_pump();
	mxd_leave();
}

/* A thread waits; another's put wakes it with the event. */
static void
wait_wakes_on_event(void **state)
{
	struct waiter w;

	(void)state;
	target_md(1, PT, 0, buf, 8, PTL_MD_THRESH_INF, PTL_MD_OP_PUT |
			PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_START_DISABLE);
	waiter_start(&w, P[1].eq);
	assert_int_equal(PtlPut(source_md(0, buf, 8, 1), PTL_NOACK_REQ,
			P[1].id, PT, 0, 0, 0, 0), PTL_OK);
	assert_int_equal(waiter_join(&w), PTL_OK);
	assert_int_equal(w.ev.type, PTL_EVENT_PUT_END);
}

/* While a thread waits on a queue, PtlEQGet of another finds it empty:
 * the waiting thread is owed the event. */
static void
get_empty_while_waiting(void **state)
{
	struct waiter w;
	ptl_event_t ev;

	(void)state;
	lb.manual = 1;
	target_md(1, PT, 0, buf, 8, PTL_MD_THRESH_INF, PTL_MD_OP_PUT |
			PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_START_DISABLE);
	assert_int_equal(PtlPut(source_md(0, buf, 8, 1), PTL_NOACK_REQ,
			P[1].id, PT, 0, 0, 0, 0), PTL_OK);
	waiter_start(&w, P[1].eq);
	mxd_enter();
	lb_pump();			/* the event is in the queue now */
	assert_int_equal(PtlEQGet(P[1].eq, &ev), PTL_EQ_EMPTY);
	mxd_leave();
	assert_int_equal(waiter_join(&w), PTL_OK);
	assert_int_equal(w.ev.type, PTL_EVENT_PUT_END);
	assert_int_equal(PtlEQGet(P[1].eq, &ev), PTL_EQ_EMPTY);
}

/* PtlEQFree and PtlNIFini of another thread end the wait. */
static void
free_and_fini_release_waiters(void **state)
{
	struct waiter w[3];
	ptl_handle_eq_t eq;

	(void)state;
	assert_int_equal(PtlEQAlloc(P[2].ni, 4, &eq), PTL_OK);
	waiter_start(&w[0], eq);
	assert_int_equal(PtlEQFree(eq), PTL_OK);
	assert_int_equal(waiter_join(&w[0]), PTL_INV_EQ);
	assert_int_equal(PtlEQFree(eq), PTL_INV_EQ);
	waiter_start(&w[1], P[3].eq);
	waiter_start(&w[2], P[3].eq);
	assert_int_equal(PtlNIFini(P[3].ni), PTL_OK);
	assert_int_equal(waiter_join(&w[1]), PTL_INV_EQ);
	assert_int_equal(waiter_join(&w[2]), PTL_INV_EQ);
	assert_true(lb.wakeups >= 2);
}

/* Four threads wait on one queue; four events wake each one once. */
static void
one_waiter_per_event(void **state)
{
	struct waiter w[4];
	unsigned seen = 0;

	(void)state;
	lb.manual = 1;
	target_md(1, PT, 0, buf, 8, PTL_MD_THRESH_INF, PTL_MD_OP_PUT |
			PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_START_DISABLE);
	for (int i = 0; i < 4; i++)
		waiter_start(&w[i], P[1].eq);
	for (int i = 0; i < 4; i++)
		assert_int_equal(PtlPut(source_md(0, buf, 8, 1), PTL_NOACK_REQ,
				P[1].id, PT, 0, 0, 0, 0), PTL_OK);
	pump_locked();
	for (int i = 0; i < 4; i++) {
		assert_int_equal(waiter_join(&w[i]), PTL_OK);
		assert_int_equal(w[i].ev.type, PTL_EVENT_PUT_END);
		seen |= 1u << (w[i].ev.sequence - 1);
	}
	assert_int_equal(seen, 0xf);	/* sequences 1..4, each once */
}

/* Threads putting at once to one target, which counts every byte. */
#define PUTTERS	4
#define PUTS	200

static void *
putter(void *arg)
{
	int from = (int)(intptr_t)arg;
	static uint8_t one = 1;

	for (int i = 0; i < PUTS; i++) {
		ptl_handle_md_t md;

		if (PtlMDBind(P[from].ni, md_of(&one, 1, 1, 0, PTL_EQ_NONE),
				&md) != PTL_OK ||
				PtlPut(md, PTL_NOACK_REQ, P[3].id, PT, 0, 0,
					0, 0) != PTL_OK)
			return arg;
		if (i % 16 == 15) {
			ptl_event_t ev;

			(void)PtlEQGet(P[from].eq, &ev);	/* progress */
		}
	}
	return NULL;
}

static void
concurrent_puts(void **state)
{
	static uint8_t sink[PUTTERS * PUTS];
	pthread_t t[PUTTERS];
	ptl_handle_eq_t eq;
	ptl_event_t ev;
	int ends = 0, rc;

	(void)state;
	assert_int_equal(PtlEQAlloc(P[3].ni, 4 * PUTTERS * PUTS, &eq), PTL_OK);
	{
		ptl_handle_me_t me;

		assert_int_equal(PtlMEAttach(P[3].ni, PT, ANY_ID, 0, 0,
				PTL_RETAIN, PTL_INS_AFTER, &me), PTL_OK);
		assert_int_equal(PtlMDAttach(me, md_of(sink, sizeof(sink),
				PTL_MD_THRESH_INF, PTL_MD_OP_PUT, eq),
				PTL_RETAIN, PTL_RETAIN, NULL), PTL_OK);
	}
	for (int i = 0; i < PUTTERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, putter,
				(void *)(intptr_t)(i % 3)), 0);
	for (int i = 0; i < PUTTERS; i++) {
		void *bad;

		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_null(bad);
	}
	while ((rc = PtlEQPoll(&eq, 1, 0, &ev, &(int){ 0 })) == PTL_OK)
		ends += ev.type == PTL_EVENT_PUT_END;
	assert_int_equal(rc, PTL_EQ_EMPTY);
	assert_int_equal(ends, PUTTERS * PUTS);
	for (size_t i = 0; i < sizeof(sink); i++)
		assert_int_equal(sink[i], 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(wait_wakes_on_event, setup,
				teardown),
		cmocka_unit_test_setup_teardown(get_empty_while_waiting, setup,
				teardown),
		cmocka_unit_test_setup_teardown(free_and_fini_release_waiters,
				setup, teardown),
		cmocka_unit_test_setup_teardown(one_waiter_per_event, setup,
				teardown),
		cmocka_unit_test_setup_teardown(concurrent_puts, setup,
				teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
