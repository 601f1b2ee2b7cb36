/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * API misuse that must fail cleanly, over the fake-link fixture (each test
 * failed before its fix, under ASan with a use after free, or by hanging
 * until the watchdog):
 *  - mx_close_endpoint and mx_finalize from an unexpected handler:
 *    MX_CLOSE_IN_HANDLER, and the pass that runs the handler goes on;
 *  - a blocking call from an unexpected handler: MX_BUSY at once (no pass
 *    runs for it until the handler returns), unless already satisfied;
 *  - a closed endpoint given to mx_get_info, mx_iput, mx_iget, or any
 *    endpoint after mx_finalize: an error, its memory not read;
 *  - a request of a closed endpoint given to mx_test, mx_wait, mx_cancel,
 *    mx_set_request_timeout and mx_context, or a handle that is no
 *    request: MX_BAD_REQUEST, its memory not read;
 *  - mx_close_endpoint (and mx_finalize) while other threads are blocked
 *    on the endpoint in every kind of blocking call: each returns
 *    MX_BAD_ENDPOINT with *result 0, the endpoint is freed after they are
 *    out; first with the blocked thread as the lock's owner running
 *    unlocked (the library switches to its lock under it), then with the
 *    library locked.
 * The threaded tests come last, the owner's first: until then only the
 * main thread has called MX.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "mxtest.h"

/* A test that hangs (a blocking call that never returns) is ended here,
 * well within meson's timeout, rather than by it. */
#define WATCHDOG_S	30

/* No board has this NIC id: a connect to it is never answered. */
#define NOWHERE_NIC	0x02000000beefull

#define MSG_MATCH	0x5
#define NONE_MATCH	0x99	/* no message ever carries it */

static int
setup(void **state)
{
	alarm(WATCHDOG_S);
	return fixture_setup(state);
}

static int
teardown(void **state)
{
	alarm(0);
	return fixture_teardown(state);
}

static void
pump(int n)
{
	for (int i = 0; i < n; i++) {
		mx_progress(fx.e0);
		mx_progress(fx.e1);
	}
}

/* Sends an 8-byte message e0 -> e1 and completes the send. */
static void
send_to_e1(uint64_t match)
{
	uint64_t v = match;

	mxt_send_ok(fx.e0, fx.to1, &v, sizeof(v), match);
}

/* Receives the message 'match' that waits on e1's unexpected queue. */
static void
receive_on_e1(uint64_t match)
{
	uint64_t v = 0;
	mx_request_t r = mxt_recv(fx.e1, &v, sizeof(v), match,
			MX_MATCH_MASK_NONE);
	mx_status_t st = mxt_wait(fx.e1, &r);

	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_int_equal(v, match);
}

/* ---- closing from an unexpected handler --------------------------------- */

enum close_what { CLOSE_OWN, CLOSE_OTHER, FINALIZE };

struct closer {
	enum close_what what;
	int calls;
	mx_return_t rc;
};

static mx_unexp_handler_action_t
closing_handler(void *context, mx_endpoint_addr_t source, uint64_t match,
		uint32_t length, void *data)
{
	struct closer *c = context;

	(void)source;
	(void)match;
	(void)length;
	(void)data;
	if (c->calls++ != 0)
		return MX_RECV_CONTINUE;
	switch (c->what) {
	case CLOSE_OWN:
		c->rc = mx_close_endpoint(fx.e1);
		break;
	case CLOSE_OTHER:
		c->rc = mx_close_endpoint(fx.e0);
		break;
	case FINALIZE:
		c->rc = mx_finalize();
		break;
	}
	return MX_RECV_CONTINUE;
}

/* The handler's close is refused; the message is queued as unexpected
 * all the same, and both endpoints go on working. */
static void
close_in_handler(enum close_what what)
{
	struct closer c = { what, 0, MX_SUCCESS };
	uint32_t nics = 0;

	assert_int_equal(mx_register_unexp_handler(fx.e1, closing_handler, &c),
			MX_SUCCESS);
	send_to_e1(MSG_MATCH);
	pump(10);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.rc, MX_CLOSE_IN_HANDLER);
	assert_int_equal(mx_register_unexp_handler(fx.e1, NULL, NULL),
			MX_SUCCESS);
	receive_on_e1(MSG_MATCH);
	send_to_e1(MSG_MATCH + 1);
	receive_on_e1(MSG_MATCH + 1);
	assert_int_equal(mx_get_info(NULL, MX_NIC_COUNT, NULL, 0, &nics,
				sizeof(nics)), MX_SUCCESS);
	assert_int_equal(nics, 2);
}

static void
close_own_in_handler(void **state)
{
	(void)state;
	close_in_handler(CLOSE_OWN);
}

static void
close_other_in_handler(void **state)
{
	(void)state;
	close_in_handler(CLOSE_OTHER);
}

static void
finalize_in_handler(void **state)
{
	(void)state;
	close_in_handler(FINALIZE);
}

/* ---- blocking from an unexpected handler -------------------------------- */

enum { B_WAIT_DONE, B_WAIT, B_WAIT_TMO, B_PEEK, B_PROBE, B_WAIT_ANY,
	B_BUFFERED, B_CONNECT, B_CALLS };

struct blocker {
	int calls;
	mx_request_t done;		/* complete: its wait succeeds */
	mx_request_t pending;		/* a receive nothing matches */
	mx_return_t rc[B_CALLS];
	uint32_t result[B_CALLS];
	uint64_t ms;			/* the calls that fail, together */
};

static mx_unexp_handler_action_t
blocking_handler(void *context, mx_endpoint_addr_t source, uint64_t match,
		uint32_t length, void *data)
{
	struct blocker *b = context;
	mx_endpoint_addr_t addr;
	mx_request_t peeked, pending = b->pending;
	mx_status_t st;
	uint64_t t0;

	(void)source;
	(void)match;
	(void)length;
	(void)data;
	if (b->calls++ != 0)
		return MX_RECV_CONTINUE;
	/* Satisfied already: no wait needed, it succeeds. */
	b->rc[B_WAIT_DONE] = mx_wait(fx.e1, &b->done, MX_INFINITE, &st,
			&b->result[B_WAIT_DONE]);
	t0 = mxt_now_ms();
	b->rc[B_WAIT] = mx_wait(fx.e1, &pending, MX_INFINITE, &st,
			&b->result[B_WAIT]);
	b->rc[B_WAIT_TMO] = mx_wait(fx.e1, &pending, 2000, &st,
			&b->result[B_WAIT_TMO]);
	b->rc[B_PEEK] = mx_peek(fx.e1, MX_INFINITE, &peeked,
			&b->result[B_PEEK]);
	b->rc[B_PROBE] = mx_probe(fx.e1, MX_INFINITE, NONE_MATCH,
			MX_MATCH_MASK_NONE, &st, &b->result[B_PROBE]);
	b->rc[B_WAIT_ANY] = mx_wait_any(fx.e1, MX_INFINITE, NONE_MATCH,
			MX_MATCH_MASK_NONE, &st, &b->result[B_WAIT_ANY]);
	/* A receive is never buffered (only sends are). */
	b->rc[B_BUFFERED] = mx_buffered(fx.e1, &pending, MX_INFINITE,
			&b->result[B_BUFFERED]);
	b->rc[B_CONNECT] = mx_connect(fx.e1, NOWHERE_NIC, 3, 0, MX_INFINITE,
			&addr);
	b->ms = mxt_now_ms() - t0;
	return MX_RECV_CONTINUE;
}

static void
blocking_in_handler(void **state)
{
	struct blocker b = { 0 };
	uint64_t v = 1;
	uint32_t res = 0;

	(void)state;
	b.done = mxt_isend(fx.e1, fx.to0, &v, sizeof(v), 0x1);
	pump(5);
	b.pending = mxt_recv(fx.e1, NULL, 0, NONE_MATCH, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_register_unexp_handler(fx.e1, blocking_handler,
				&b), MX_SUCCESS);
	send_to_e1(MSG_MATCH);
	pump(10);
	assert_int_equal(b.calls, 1);
	assert_int_equal(b.rc[B_WAIT_DONE], MX_SUCCESS);
	assert_int_equal(b.result[B_WAIT_DONE], 1);
	for (int i = B_WAIT; i < B_CALLS; i++)
		assert_int_equal(b.rc[i], MX_BUSY);
	assert_true(b.ms < 500);
	assert_int_equal(mx_register_unexp_handler(fx.e1, NULL, NULL),
			MX_SUCCESS);
	/* The receive the handler could not wait for is still pending. */
	assert_int_equal(mx_cancel(fx.e1, &b.pending, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	receive_on_e1(MSG_MATCH);
}

/* ---- closed endpoints and their requests -------------------------------- */

static mx_endpoint_t
closed_endpoint(void)
{
	mx_endpoint_t ep;

	assert_int_equal(mx_open_endpoint(0, 3, 0x5eed, NULL, 0, &ep),
			MX_SUCCESS);
	assert_int_equal(mx_close_endpoint(ep), MX_SUCCESS);
	return ep;
}

static void
closed_endpoint_not_read(void **state)
{
	mx_endpoint_t ep;
	mx_request_t r = NULL;
	uint32_t v = 0;

	(void)state;
	assert_int_equal(mx_get_info(fx.e0, MX_PIO_SEND_MAX, NULL, 0, &v,
				sizeof(v)), MX_SUCCESS);
	ep = closed_endpoint();
	assert_int_equal(mx_get_info(ep, MX_PIO_SEND_MAX, NULL, 0, &v,
				sizeof(v)), MX_BAD_ENDPOINT);
	assert_int_equal(mx_get_info(ep, MX_NIC_COUNT, NULL, 0, &v,
				sizeof(v)), MX_BAD_ENDPOINT);
	assert_int_equal(mx_iput(ep, &v, sizeof(v), fx.to1, 0, NULL, &r),
			MX_BAD_ENDPOINT);
	assert_int_equal(mx_iget(ep, &v, sizeof(v), fx.to1, 0, NULL, &r),
			MX_BAD_ENDPOINT);
	assert_null(r);
	/* After mx_finalize every endpoint is closed. */
	assert_int_equal(mx_finalize(), MX_SUCCESS);
	assert_int_equal(mx_get_info(fx.e0, MX_PIO_SEND_MAX, NULL, 0, &v,
				sizeof(v)), MX_NOT_INITIALIZED);
	assert_int_equal(mx_iput(fx.e0, &v, sizeof(v), fx.to1, 0, NULL, &r),
			MX_BAD_ENDPOINT);
}

static void
closed_requests_not_read(void **state)
{
	mx_endpoint_t ep;
	mx_request_t r, other, odd;
	mx_status_t st;
	uint32_t res = 7;
	void *ctx = NULL;

	(void)state;
	assert_int_equal(mx_open_endpoint(0, 3, 0x5eed, NULL, 0, &ep),
			MX_SUCCESS);
	assert_int_equal(mx_irecv(ep, NULL, 0, 1, MX_MATCH_MASK_NONE,
				(void *)0x1234, &r), MX_SUCCESS);
	assert_int_equal(mx_context(&r, &ctx), MX_SUCCESS);
	assert_ptr_equal(ctx, (void *)0x1234);
	assert_int_equal(mx_close_endpoint(ep), MX_SUCCESS);
	/* r points into the closed endpoint's freed pool. */
	assert_int_equal(mx_context(&r, &ctx), MX_BAD_REQUEST);
	assert_int_equal(mx_test(fx.e1, &r, &st, &res), MX_BAD_REQUEST);
	assert_int_equal(mx_wait(fx.e1, &r, 10, &st, &res), MX_BAD_REQUEST);
	assert_int_equal(mx_cancel(fx.e1, &r, &res), MX_BAD_REQUEST);
	assert_int_equal(mx_set_request_timeout(fx.e1, r, 10),
			MX_BAD_REQUEST);
	assert_int_equal(res, 7);
	/* Another endpoint's request, and an address inside one. */
	other = mxt_recv(fx.e0, NULL, 0, 2, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_test(fx.e1, &other, &st, &res), MX_BAD_REQUEST);
	assert_int_equal(mx_set_request_timeout(fx.e1, other, 10),
			MX_BAD_REQUEST);
	odd = (mx_request_t)(void *)((char *)other + 8);
	assert_int_equal(mx_test(fx.e0, &odd, &st, &res), MX_BAD_REQUEST);
	assert_int_equal(mx_context(&odd, &ctx), MX_BAD_REQUEST);
	assert_int_equal(mx_cancel(fx.e0, &other, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
}

/* ---- closing under blocked threads -------------------------------------- */

/* Until n threads are in a blocking call on ep (looked at under the
 * library lock, as a call would). */
static void
await_waiters(mx_endpoint_t ep, unsigned n)
{
	for (;;) {
		unsigned k;

		mxd_enter();
		k = mxd_ep_waiters(ep);
		mxd_leave();
		if (k >= n)
			return;
		usleep(1000);
	}
}

enum { W_WAIT, W_WAIT_TMO, W_PEEK, W_PROBE, W_WAIT_ANY, W_CONNECT,
	W_KINDS };

struct waiter {
	pthread_t t;
	int kind;
	mx_request_t req;		/* W_WAIT*: a receive nothing matches */
	mx_return_t rc;
	uint32_t result;
};

static void *
waiter_main(void *arg)
{
	struct waiter *w = arg;
	mx_endpoint_addr_t addr;
	mx_request_t peeked;
	mx_status_t st;
	uint32_t result = 9;
	mx_return_t rc = MX_FAILURE;

	switch (w->kind) {
	case W_WAIT:
		rc = mx_wait(fx.e1, &w->req, MX_INFINITE, &st, &result);
		break;
	case W_WAIT_TMO:
		rc = mx_wait(fx.e1, &w->req, 60000, &st, &result);
		break;
	case W_PEEK:
		rc = mx_peek(fx.e1, MX_INFINITE, &peeked, &result);
		break;
	case W_PROBE:
		rc = mx_probe(fx.e1, MX_INFINITE, NONE_MATCH,
				MX_MATCH_MASK_NONE, &st, &result);
		break;
	case W_WAIT_ANY:
		rc = mx_wait_any(fx.e1, MX_INFINITE, NONE_MATCH,
				MX_MATCH_MASK_NONE, &st, &result);
		break;
	case W_CONNECT:
		rc = mx_connect(fx.e1, NOWHERE_NIC, 3, 0, MX_INFINITE, &addr);
		result = 0;
		break;
	}
	w->result = result;
	w->rc = rc;		/* read after pthread_join */
	return NULL;
}

static void
start_waiter(struct waiter *w, int kind)
{
	w->kind = kind;
	w->rc = MX_SUCCESS;
	w->result = 9;
	w->req = NULL;
	if (kind == W_WAIT || kind == W_WAIT_TMO)
		w->req = mxt_recv(fx.e1, NULL, 0, NONE_MATCH,
				MX_MATCH_MASK_NONE);
	assert_int_equal(pthread_create(&w->t, NULL, waiter_main, w), 0);
}

static void
waiter_closed_out(struct waiter *w)
{
	pthread_join(w->t, NULL);
	assert_int_equal(w->rc, MX_BAD_ENDPOINT);
	assert_int_equal(w->result, 0);
}

static void *
close_e1_main(void *arg)
{
	mx_return_t *rc = arg;

	await_waiters(fx.e1, 1);
	*rc = mx_close_endpoint(fx.e1);
	return NULL;
}

/* The main thread, still the only one to have called MX, blocks (running
 * unlocked); the closing thread's first call switches the library to its
 * lock under it. */
static void
close_under_blocked_owner(void **state)
{
	mx_request_t r = mxt_recv(fx.e1, NULL, 0, NONE_MATCH,
			MX_MATCH_MASK_NONE);
	mx_return_t close_rc = MX_FAILURE, rc;
	uint32_t result = 9;
	mx_status_t st;
	pthread_t t;

	(void)state;
	assert_false(mxd_threaded());
	assert_int_equal(pthread_create(&t, NULL, close_e1_main, &close_rc),
			0);
	rc = mx_wait(fx.e1, &r, MX_INFINITE, &st, &result);
	pthread_join(t, NULL);
	assert_true(mxd_threaded());
	assert_int_equal(rc, MX_BAD_ENDPOINT);
	assert_int_equal(result, 0);
	assert_int_equal(close_rc, MX_SUCCESS);
	/* Closed for good: the handle is refused, e0 works on. */
	assert_int_equal(mx_close_endpoint(fx.e1), MX_BAD_ENDPOINT);
	assert_int_equal(mx_wait(fx.e1, &r, 10, &st, &result),
			MX_BAD_ENDPOINT);
	assert_int_equal(mx_progress(fx.e0), MX_SUCCESS);
}

/* Every kind of blocking call, in its own thread, on one endpoint. */
static void
close_releases_every_waiter(void **state)
{
	struct waiter w[W_KINDS];
	uint64_t t0;

	(void)state;
	for (int k = 0; k < W_KINDS; k++)
		start_waiter(&w[k], k);
	await_waiters(fx.e1, W_KINDS);
	t0 = mxt_now_ms();
	assert_int_equal(mx_close_endpoint(fx.e1), MX_SUCCESS);
	for (int k = 0; k < W_KINDS; k++)
		waiter_closed_out(&w[k]);
	assert_true(mxt_now_ms() - t0 < 5000);
	/* The slot opens again, afresh. */
	assert_int_equal(mx_open_endpoint(1, 2, 0xbeef, NULL, 0, &fx.e1),
			MX_SUCCESS);
	assert_int_equal(mxd_ep_closing(fx.e1), 0);
	assert_int_equal(mx_connect(fx.e0, fx.nic1, 2, 0xbeef, 1000, &fx.to1),
			MX_SUCCESS);
	send_to_e1(MSG_MATCH);
	receive_on_e1(MSG_MATCH);
}

/* mx_finalize closes as mx_close_endpoint does; without the linger
 * (MX_CLOSE_LINGER_MS=0) the closing thread lets the waiter out only in
 * its wait for it. */
static void
finalize_releases_waiter(void **state)
{
	struct waiter w;

	(void)state;
	mxd_conf.close_linger_ms = 0;
	start_waiter(&w, W_WAIT);
	await_waiters(fx.e1, 1);
	assert_int_equal(mx_finalize(), MX_SUCCESS);
	waiter_closed_out(&w);
}

/* mx_wakeup in a loop on one endpoint until told to stop. */
static mx_endpoint_t wake_target;
static int wake_stop;

static void *
wake_loop(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&wake_stop, __ATOMIC_ACQUIRE))
		mx_wakeup(__atomic_load_n(&wake_target, __ATOMIC_ACQUIRE));
	return NULL;
}

/*
 * mx_wakeup takes no lock (a signal handler may call it), so it may run
 * while another thread closes the endpoint.  It bumped a generation in
 * the endpoint, which the close may have freed between its look and its
 * write: a write into freed memory (ASan, in the sanitizer suite: in 2
 * of 9 runs of this test before; the window is a few instructions).  The
 * generation is now kept by endpoint slot, outside the endpoint.  2000
 * opens and closes of one endpoint under a thread waking it.
 */
static void
wakeup_racing_close(void **state)
{
	pthread_t t;

	(void)state;
	mx_set_error_handler(MX_ERRORS_RETURN);
	__atomic_store_n(&wake_stop, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&wake_target, fx.e0, __ATOMIC_RELEASE);
	assert_int_equal(pthread_create(&t, NULL, wake_loop, NULL), 0);
	for (int i = 0; i < 2000; i++) {
		mx_endpoint_t ep;

		assert_int_equal(mx_open_endpoint(0, 3, 0x5eed, NULL, 0, &ep),
				MX_SUCCESS);
		__atomic_store_n(&wake_target, ep, __ATOMIC_RELEASE);
		assert_int_equal(mx_close_endpoint(ep), MX_SUCCESS);
	}
	__atomic_store_n(&wake_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(close_own_in_handler,
				setup, teardown),
		cmocka_unit_test_setup_teardown(close_other_in_handler,
				setup, teardown),
		cmocka_unit_test_setup_teardown(finalize_in_handler,
				setup, teardown),
		cmocka_unit_test_setup_teardown(blocking_in_handler,
				setup, teardown),
		cmocka_unit_test_setup_teardown(closed_endpoint_not_read,
				setup, teardown),
		cmocka_unit_test_setup_teardown(closed_requests_not_read,
				setup, teardown),
		/* Threads from here on; the owner's test first. */
		cmocka_unit_test_setup_teardown(close_under_blocked_owner,
				setup, teardown),
		cmocka_unit_test_setup_teardown(close_releases_every_waiter,
				setup, teardown),
		cmocka_unit_test_setup_teardown(finalize_releases_waiter,
				setup, teardown),
		cmocka_unit_test_setup_teardown(wakeup_racing_close,
				setup, teardown),
	};

	return cmocka_run_group_tests_name("misuse", tests, NULL, NULL);
}
