/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queues: rings of the user's count of events.
 *
 * Logging never blocks and never refuses: when the ring is full, the new
 * event takes the place of the oldest one not yet taken, and the next
 * take returns PTL_EQ_DROPPED with the oldest event left (the queue keeps
 * the latest events, as the reference implementation's did).  Events are
 * written in place, in the ring's slot (ptl.h: mxd_ptl_ev_slot and
 * mxd_ptl_ev_commit); mxd_ptl_log copies one built aside.  The counts
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

void
mxd_ptl_log(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md, ptl_event_t *ev)
{
	struct mxd_ptl_eq *eq = mxd_ptl_md_eq(md);
	ptl_event_t *slot;

	if (eq == NULL)
		return;
	slot = mxd_ptl_ev_slot(ni, eq);
	memcpy(slot, ev, offsetof(ptl_event_t, sequence));
	mxd_ptl_ev_commit(ni, md, eq, slot);
}

void
mxd_ptl_log_req(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		ptl_event_kind_t type, const struct mxd_ptl_hdr *h,
		ptl_size_t mlen, ptl_size_t off, ptl_seq_t link,
		ptl_ni_fail_t fail)
{
	struct mxd_ptl_eq *eq = mxd_ptl_md_eq(md);
	ptl_event_t *ev;

	if (eq == NULL)
		return;
	ev = mxd_ptl_ev_slot(ni, eq);
	mxd_ptl_ev_req(ev, type, h, mlen, off, link, fail);
	mxd_ptl_ev_commit(ni, md, eq, ev);
}

int
mxd_ptl_eq_take(struct mxd_ptl_ni *ni, struct mxd_ptl_eq *eq, ptl_event_t *ev)
{
	uint64_t left = eq->wr - eq->rd;
	uint64_t at;

	(void)ni;
	if (left == 0)
		return PTL_EQ_EMPTY;
	if (left > eq->count) {		/* the oldest ones were lost */
		eq->rd = eq->wr - eq->count;
		memcpy(ev, &eq->ring[eq->wslot], sizeof(*ev));
		eq->rd++;
		return PTL_EQ_DROPPED;
	}
	/* The slot rd goes to: wr's, left behind. */
	at = eq->wslot >= left ? eq->wslot - left :
		eq->wslot + eq->count - left;
	memcpy(ev, &eq->ring[at], sizeof(*ev));
	eq->rd++;
	return PTL_OK;
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
