/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress and blocking.  There is no thread of our own: every API call
 * that may need the network runs a progress pass (rx bursts, acks, queued
 * sends, tx bursts).  Blocking calls poll, and once nothing has arrived
 * for MX_SPIN_US they sleep a little between polls so that an idle
 * process leaves the CPU (a long transfer keeps them polling); they give up
 * at their timeout or when mx_wakeup() bumps the endpoint's generation.
 * Between polls, other threads get the library lock (lock.h).
 */
#include <pthread.h>
#include <time.h>

#include "mxd.h"

uint64_t
mxd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Progress on the endpoint's board, and on the process's other boards too:
 * they have no firmware of their own to answer connects or acks while the
 * application waits elsewhere.
 */
/* Timers of the endpoint: connect retries, request deadlines. */
static void
ep_timers(struct mx_endpoint *ep)
{
	uint64_t now = mxd_now_ns();

	if (!mxd_list_empty(&ep->connects))
		mxd_connects_progress(ep, now);
	if (ep->ntimed != 0 && now >= ep->next_timeout_scan) {
		mxd_timeouts_scan(ep, now);
		ep->next_timeout_scan = now + 1000000;	/* every ms */
	}
}

/* An endpoint's own pending work: queued sends, pulls, timers. */
static void
ep_work(struct mx_endpoint *ep)
{
	if (!mxd_list_empty(&ep->sending))
		mxd_sends_pump(ep);
	if (!mxd_list_empty(&ep->jobq))
		mxd_pulls_pump(ep);
	if (!mxd_list_empty(&ep->pulls_waiting))
		mxd_pulls_ask(ep);
	if (!mxd_list_empty(&ep->connects) || ep->ntimed != 0)
		ep_timers(ep);
}

unsigned
mxd_progress(struct mx_endpoint *ep)
{
	struct mxd_board *b = ep->board;
	unsigned work;

	if (ep->progression_off)
		return 0;
	work = mxd_board_progress(b);
	for (unsigned i = 0; mxd_lib.nboards > 1 && i < mxd_lib.nboards; i++)
		if (mxd_lib.boards[i] != b)
			work += mxd_board_progress(mxd_lib.boards[i]);
	ep_work(ep);
	mxd_board_flush(b);
	return work;
}

/* ---- the optional progress thread (MX_PROGRESS_THREAD) ----------------- */

static pthread_t prog_thread;
static volatile int prog_run;

/* One pass over everything: every board, every endpoint's own work. */
static unsigned
progress_all(void)
{
	unsigned work = 0;

	for (unsigned i = 0; i < mxd_lib.nboards; i++) {
		struct mxd_board *b = mxd_lib.boards[i];

		work += mxd_board_progress(b);
		for (unsigned e = 0; e < MX_MAX_ENDPOINTS; e++)
			if (b->ep[e] != NULL && !b->ep[e]->progression_off)
				ep_work(b->ep[e]);
		mxd_board_flush(b);
	}
	return work;
}

/*
 * Application bypass: large transfers (and acks, connects, timers) go on
 * while the application computes.  Each pass runs under the library lock
 * like any API call; between passes the thread sleeps MX_PROGRESS_US,
 * or polls at once while frames keep coming.
 */
static void *
progress_main(void *arg)
{
	struct timespec nap = { 0, (long)mxd_lib.conf.progress_us * 1000 };

	(void)arg;
	while (prog_run) {
		unsigned work;

		mxd_enter();
		work = progress_all();
		mxd_leave();
		if (!work)
			nanosleep(&nap, NULL);
	}
	return NULL;
}

int
mxd_progress_thread_start(void)
{
	if (!mxd_lib.conf.progress_thread || prog_run)
		return 0;
	prog_run = 1;
	if (pthread_create(&prog_thread, NULL, progress_main, NULL) != 0) {
		prog_run = 0;
		return -MX_NO_RESOURCES;
	}
	return 0;
}

/* Called without the library lock: the thread may be waiting for it. */
void
mxd_progress_thread_stop(void)
{
	if (!prog_run)
		return;
	prog_run = 0;
	pthread_join(prog_thread, NULL);
}

/* Passes between clock reads while polling: a read costs about 25 ns
 * through the vDSO on this VM's kvm-clock, and a stream's receiver read it
 * on every pass (22% of its time). */
#define CLOCK_PASSES	8

int
mxd_poll_until(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms)
{
	uint64_t start = mxd_now_ns(), now, busy = start;
	uint64_t spin = (uint64_t)mxd_lib.conf.spin_us * 1000u;
	uint64_t limit = (uint64_t)timeout_ms * 1000000u;
	uint32_t gen = __atomic_load_n(&ep->wakeup_gen, __ATOMIC_ACQUIRE);
	unsigned passes = 0, worked = 0;
	int nap = 0;

	for (;;) {
		unsigned work = mxd_progress(ep);

		if (done(arg))
			return 1;
		if (__atomic_load_n(&ep->wakeup_gen, __ATOMIC_ACQUIRE) != gen)
			return 0;	/* mx_wakeup */
		worked |= work;
		if (work)
			nap = 0;	/* traffic: keep polling */
		if (limit == 0 || ++passes == CLOCK_PASSES) {
			passes = 0;
			now = mxd_now_ns();
			if (timeout_ms != MX_INFINITE && now - start >= limit)
				return 0;
			if (worked)
				busy = now;
			worked = 0;
			nap = now - busy >= spin;
		}
		/* Let other threads in; idle past the spin, sleep a little. */
		mxd_poll_pause(nap);
	}
}
