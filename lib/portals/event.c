/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queues: rings of the user's count of events.
 *
 * Logging never blocks and never refuses: when the ring is full, the new
 * event takes the place of the oldest one not yet taken, and the next
 * take returns PTL_EQ_DROPPED with the oldest event left (the queue keeps
 * the latest events, as the reference implementation's did).  The counts
 * of events logged (wr) and taken (rd) only grow; wr - rd > count means
 * events were lost.  Each event's sequence is one more than the last one
 * of its queue, written after every other member.
 *
 * Portals 3.3's event handlers run here too, at the end of a call or
 * between two waits of PtlEQWait/PtlEQPoll, in the calling thread: never
 * in the middle of the core's own work, never in the engine's thread.
 */
#include <string.h>

#include "portals/ptl.h"

/* The queue a descriptor logs into, or NULL. */
static struct mxd_ptl_eq *
md_queue(struct mxd_ptl_ni *ni, const struct mxd_ptl_md *md)
{
	struct mxd_ptl_ni *eq_ni;
	struct mxd_ptl_eq *eq;

	if (md->md.eventq == PTL_EQ_NONE)
		return NULL;
	eq = mxd_ptl_eq_get(md->md.eventq, &eq_ni);
	return eq_ni == ni ? eq : NULL;
}

void
mxd_ptl_log(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md, ptl_event_t *ev)
{
	struct mxd_ptl_eq *eq = md_queue(ni, md);
	ptl_event_t *slot;

	if (eq == NULL)
		return;
	ev->md_handle = mxd_ptl_md_handle(ni, md);
	ev->mem_desc = md->md;
	if (eq->wr - eq->rd >= eq->count)
		ni->sr[PTL_SR_EQ_DROPPED]++;
	slot = &eq->ring[eq->wr % eq->count];
	memcpy(slot, ev, offsetof(ptl_event_t, sequence));
	__atomic_thread_fence(__ATOMIC_RELEASE);
	slot->sequence = eq->seq++;
	eq->wr++;
	if (eq->handler != PTL_EQ_HANDLER_NONE) {
		ni->handlers_owed++;
		mxd_ptl.handlers_owed = 1;
	}
}

int
mxd_ptl_eq_take(struct mxd_ptl_ni *ni, struct mxd_ptl_eq *eq, ptl_event_t *ev)
{
	int dropped = 0;

	(void)ni;
	if (eq->wr == eq->rd)
		return PTL_EQ_EMPTY;
	if (eq->wr - eq->rd > eq->count) {
		eq->rd = eq->wr - eq->count;
		dropped = 1;
	}
	memcpy(ev, &eq->ring[eq->rd % eq->count], sizeof(*ev));
	eq->rd++;
	return dropped ? PTL_EQ_DROPPED : PTL_OK;
}

/* Gives the handler of eq each event logged since it last ran that is
 * still in the ring.  The handler may make Portals calls, which may log
 * more: the loop takes those too. */
static void
eq_handlers(struct mxd_ptl_ni *ni, uint32_t slot)
{
	struct mxd_ptl_eq *eq = &ni->eqs[slot];
	uint32_t gen = eq->gen;

	while (eq->used && eq->gen == gen && !eq->dying &&
			eq->handler != PTL_EQ_HANDLER_NONE &&
			eq->handled < eq->wr) {
		if (eq->wr - eq->handled > eq->count)
			eq->handled = eq->wr - eq->count;
		eq->handler(&eq->ring[eq->handled++ % eq->count]);
		if (!ni->used || ni->closing)
			return;
	}
}

static void
ni_handlers(struct mxd_ptl_ni *ni)
{
	while (ni->used && !ni->closing && ni->handlers_owed) {
		ni->handlers_owed = 0;
		for (int i = 0; i < ni->lim.max_eqs && ni->used &&
				!ni->closing; i++)
			if (ni->eqs[i].used && ni->eqs[i].handler)
				eq_handlers(ni, (uint32_t)i);
	}
}

void
mxd_ptl_handlers_run(void)
{
	if (!mxd_ptl.handlers_owed || mxd_ptl.handlers_running)
		return;
	mxd_ptl.handlers_running = 1;
	mxd_ptl.handlers_owed = 0;
	for (int i = 0; i < MXD_PTL_MAX_NI; i++)
		if (mxd_ptl.ni[i].used && mxd_ptl.ni[i].handlers_owed)
			ni_handlers(&mxd_ptl.ni[i]);
	mxd_ptl.handlers_running = 0;
}
