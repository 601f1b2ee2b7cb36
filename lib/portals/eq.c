/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PtlEQAlloc, PtlEQFree, PtlEQGet, PtlEQWait and 3.3's PtlEQPoll.
 *
 * Waiting is the transport's (its wait(): the engine's poll loop, which
 * lets other threads into the library between its passes); each waiting
 * thread counts itself on its queues and interface.  A queue freed while
 * threads wait on it is marked dying (its handle is dead at once) and
 * released by the last of them to leave; PtlNIFini waits for them
 * (ni.c).  While a thread waits on a queue, PtlEQGet of another thread
 * finds it empty, as the 3.2 text says: the waiting thread is owed the
 * next event.
 */
#include <stdlib.h>

#include "portals/ptl.h"
#include "util/clock.h"

#define EQ_COUNT_MAX	(1u << 24)

int
mxd_ptl_eq_alloc_call(ptl_handle_ni_t h, ptl_size_t count,
		ptl_eq_handler_t handler, ptl_handle_eq_t *out)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);
	struct mxd_ptl_eq *eq;
	ptl_event_t *ring;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	if (out == NULL)
		return PTL_SEGV;
	if (count == 0 || count > EQ_COUNT_MAX)
		return PTL_NOSPACE;
	ring = calloc((size_t)count, sizeof(*ring));
	if (ring == NULL)
		return PTL_NOSPACE;
	eq = mxd_ptl_eq_alloc(ni);
	if (eq == NULL) {
		free(ring);
		return PTL_NOSPACE;
	}
	eq->ring = ring;
	eq->count = count;
	eq->wr = eq->rd = 0;
	eq->wslot = 0;
	eq->seq = 1;
	eq->handler = handler;
	eq->handled = 0;
	*out = mxd_ptl_eq_handle(ni, eq);
	return PTL_OK;
}

int
mxd_ptl_eq_free_call(ptl_handle_eq_t h)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_eq *eq = mxd_ptl_eq_get(h, &ni);

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (eq == NULL)
		return PTL_INV_EQ;
	if (eq->waiters == 0) {
		mxd_ptl_eq_release(ni, eq);
		return PTL_OK;
	}
	eq->dying = 1;
	mxd_ptl.tp->wakeup(ni->tp);
	return PTL_OK;
}

int
mxd_ptl_eq_get_call(ptl_handle_eq_t h, ptl_event_t *ev)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_eq *eq = mxd_ptl_eq_get(h, &ni);

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (eq == NULL)
		return PTL_INV_EQ;
	if (ev == NULL)
		return PTL_SEGV;
	if (eq->waiters != 0)
		return PTL_EQ_EMPTY;
	if (eq->wr == eq->rd) {
		mxd_ptl.tp->progress(ni->tp);
		eq = mxd_ptl_eq_get(h, &ni);	/* a handler may free it */
		if (eq == NULL)
			return PTL_INV_EQ;
	}
	return mxd_ptl_eq_take(ni, eq, ev);
}

/* The queues of a wait, by interface and slot: handles die while the
 * thread waits, the slots stay until it leaves. */
struct waitset {
	const ptl_handle_eq_t *hs;
	int n;
	struct mxd_ptl_ni *ni[8];
	uint32_t slot[8];
};

#define WAIT_MAX	8	/* more queues: the first 8 count as waited on */

static int
waitset_open(struct waitset *w, const ptl_handle_eq_t *hs, int n)
{
	w->hs = hs;
	w->n = n;
	for (int i = 0; i < n; i++) {
		struct mxd_ptl_ni *ni;
		struct mxd_ptl_eq *eq = mxd_ptl_eq_get(hs[i], &ni);

		if (eq == NULL)
			return PTL_INV_EQ;
		if (i < WAIT_MAX) {
			w->ni[i] = ni;
			w->slot[i] = (uint32_t)(eq - ni->eqs);
		}
	}
	return PTL_OK;
}

/* Counts the thread in (+1) or out (-1) of its queues; the last one out
 * of a dying queue releases it. */
static void
waitset_count(struct waitset *w, int d)
{
	for (int i = 0; i < w->n && i < WAIT_MAX; i++) {
		struct mxd_ptl_ni *ni = w->ni[i];
		struct mxd_ptl_eq *eq = &ni->eqs[w->slot[i]];

		eq->waiters += (uint32_t)d;
		ni->waiters += (uint32_t)d;
		if (d < 0 && eq->dying && eq->waiters == 0)
			mxd_ptl_eq_release(ni, eq);
	}
}

/* Takes an event from the first queue that has one: PTL_OK,
 * PTL_EQ_DROPPED, PTL_EQ_EMPTY, or PTL_INV_EQ if one is gone. */
static int
waitset_take(struct waitset *w, ptl_event_t *ev, int *which)
{
	for (int i = 0; i < w->n; i++) {
		struct mxd_ptl_ni *ni;
		struct mxd_ptl_eq *eq = mxd_ptl_eq_get(w->hs[i], &ni);
		int rc;

		if (eq == NULL)
			return PTL_INV_EQ;
		rc = mxd_ptl_eq_take(ni, eq, ev);
		if (rc != PTL_EQ_EMPTY) {
			*which = i;
			return rc;
		}
	}
	return PTL_EQ_EMPTY;
}

/* done() of the transport's wait: an event, or a queue gone. */
static int
waitset_ready(void *arg)
{
	struct waitset *w = arg;

	for (int i = 0; i < w->n; i++) {
		struct mxd_ptl_ni *ni;
		struct mxd_ptl_eq *eq = mxd_ptl_eq_get(w->hs[i], &ni);

		if (eq == NULL || eq->wr != eq->rd)
			return 1;
	}
	return 0;
}

static uint32_t
ms_left(uint64_t deadline)
{
	uint64_t now = mxd_now_ns();

	if (now >= deadline)
		return 0;
	return (uint32_t)((deadline - now + 999999) / 1000000);
}

int
mxd_ptl_eq_poll(const ptl_handle_eq_t *hs, int n, ptl_time_t timeout,
		ptl_event_t *ev, int *which)
{
	uint64_t deadline = 0;
	struct waitset w;
	int rc;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (hs == NULL || ev == NULL || which == NULL)
		return PTL_SEGV;
	if (n < 1)
		return PTL_INV_EQ;
	rc = waitset_open(&w, hs, n);
	if (rc != PTL_OK)
		return rc;
	if (timeout != PTL_TIME_FOREVER)
		deadline = mxd_now_ns() + (uint64_t)timeout * 1000000;
	for (;;) {
		uint32_t ms = UINT32_MAX;

		rc = waitset_take(&w, ev, which);
		if (rc == PTL_EQ_EMPTY) {
			mxd_ptl.tp->progress(w.ni[0]->tp);
			rc = waitset_take(&w, ev, which);
		}
		if (rc != PTL_EQ_EMPTY)
			return rc;
		if (timeout != PTL_TIME_FOREVER) {
			ms = ms_left(deadline);
			if (ms == 0)
				return PTL_EQ_EMPTY;
		}
		waitset_count(&w, 1);
		mxd_ptl.tp->wait(w.ni[0]->tp, waitset_ready, &w, ms);
		waitset_count(&w, -1);
		mxd_ptl_handlers_run();
	}
}
