/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running the timers (progress): what engine/timers.c armed, done when it
 * is due.  Every progress pass looks at each endpoint's ack list, and at
 * the rest of its timers (partners with something in flight, connect
 * requests, request deadlines) every MXD_TIMER_PASSES passes; this file
 * decides what is due and calls the protocol to act: explicit acks and
 * queued notices, retransmission and fast retransmission, rerouting around
 * a port that went down, liveness probes, re-pulls, the peer timeout (a
 * partner lost), connect retries, request deadlines, and the board's link
 * watch.  engine/timers.c lists every timer and what arms it.
 */
#include "util/clock.h"
#include "util/config.h"
#include "engine/acks.h"
#include "engine/connect.h"
#include "engine/pull.h"
#include "engine/reliable.h"
#include "engine/send.h"
#include "engine/shm.h"
#include "engine/timers.h"
#include "progress/timers_run.h"

/* ---- delayed acks and queued notices ------------------------------------ */

/*
 * Partners owing an ack (or a notice) whose time has come.  The list is
 * detached first: a partner that still owes something after its turn (tx
 * queue full, or not due yet) goes back for the next pass; one that a
 * frame paid since it was stamped (timers.h) and owes again has its
 * delay start now.
 */
static void
acks_flush(struct mx_endpoint *ep, uint64_t now)
{
	uint64_t delay = mxd_conf.ack_delay_us * 1000ull;
	struct mxd_list work = ep->acks;

	work.next->prev = &work;
	work.prev->next = &work;
	mxd_list_init(&ep->acks);
	while (!mxd_list_empty(&work)) {
		struct mxd_partner *p = mxd_container_of(work.next,
				struct mxd_peer_act, ackq)->p;
		uint64_t due = p->a->ack_due;

		mxd_list_del(&p->a->ackq);
		p->a->ack_queued = 0;
		if (p->a->notify_n != 0)
			mxd_notices_flush(p);	/* carries the ack too */
		if (due != 0 && p->ack_sent != p->a->ack_due_for)
			due = now + delay;	/* owed anew since */
		if (mxd_rxwin_cum_ack(&p->rx) != p->ack_sent && now >= due)
			mxd_ack_send(p);
		if (p->a->notify_n != 0 ||
				mxd_rxwin_cum_ack(&p->rx) != p->ack_sent)
			mxd_timer_ack(p, now >= due ? now : due);
	}
}

/* The delay of acks owed since the last look starts now. */
static void
acks_start(struct mx_endpoint *ep, uint64_t now)
{
	uint64_t due = now + mxd_conf.ack_delay_us * 1000ull;
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->acks) {
		struct mxd_partner *p = mxd_container_of(pos,
				struct mxd_peer_act, ackq)->p;

		if (p->a->ack_due == MXD_DUE_UNSTAMPED) {
			p->a->ack_due = due;
			p->a->ack_due_for = p->ack_sent;
		}
		if (p->a->ack_due < ep->acks_due)
			ep->acks_due = p->a->ack_due;
	}
	ep->acks_stamp = 0;
}

/* ---- partners ----------------------------------------------------------- */

/* Stamps messages sent since the last look with the time. */
static void
stamp(struct mxd_partner *p, uint64_t now)
{
	const struct mxd_txrec *prev = NULL;

	for (uint32_t s = p->tx.next_seq - 1; s != p->tx.acked; s--) {
		struct mxd_txrec *rec = p->a->inflight[s & (MXD_WIN - 1)];

		if (rec == NULL)
			break;
		if (rec == prev)	/* the messages of a PACK frame */
			continue;
		if (rec->sent_at != 0)
			break;
		rec->sent_at = now;
		mxd_txrec_note(p->a, rec);
		prev = rec;
	}
}

/* Whether we wait for anything from p. */
static int
waiting(const struct mxd_partner *p)
{
	return mxd_txwin_in_flight(&p->tx) != 0 || !mxd_list_empty(&p->a->pulls) ||
		p->a->lsends != 0 || !mxd_list_empty(&p->a->syncq) ||
		p->a->notify_n != 0 || p->a->face_waits != 0;
}

/* The oldest unacknowledged message of p is due again. */
static int
retransmit_due(const struct mxd_partner *p, uint64_t now)
{
	const struct mxd_txrec *rec =
		p->a->inflight[(p->tx.acked + 1) & (MXD_WIN - 1)];

	return rec != NULL && rec->sent_at != 0 &&
		now >= rec->sent_at + (p->a->backoff == 0 ?
				mxd_rtt_probe(&p->a->rtt) :
				mxd_rtt_backed_off(&p->a->rtt, p->a->backoff));
}

static void
partner_timer(struct mxd_partner *p, uint64_t now)
{
	uint64_t limit = mxd_conf.peer_timeout_ms * 1000000ull;
	uint64_t ping_every = limit / 4;

	if (p->remote_session == 0 || !waiting(p)) {
		mxd_list_del(&p->a->timed);
		return;
	}
	if (p->ep->board->nports > 1 && !p->local &&
			!mxd_board_port_up(p->ep->board, (unsigned)p->port))
		mxd_reroute(p, now, UINT64_MAX);
	if (mxd_txwin_in_flight(&p->tx) != 0) {
		stamp(p, now);
		if (p->a->sack_pending)	/* holes too recent at the SACK */
			mxd_fast_retransmit(p, p->a->sack_ack, p->a->sack_bits, 0);
		if (p->a->frags_pending)	/* or at the fragments named */
			mxd_frags_again(p, now);
		if (retransmit_due(p, now))
			mxd_retransmit(p, now);
	} else if (now - p->last_heard >= ping_every &&
			now - p->a->ping_at >= ping_every) {
		/* The last probe went unanswered too: try another port. */
		if (p->a->probe_since > p->last_heard && p->a->ping_at != 0)
			mxd_reroute(p, now, p->a->ping_at);
		mxd_ping(p, now);
	}
	/* Blocks are overdue after MX_RTO_MIN_US at the least: looking a
	 * quarter of that apart is soon enough, and keeps a window of large
	 * receives from being scanned on every pass. */
	if (!mxd_list_empty(&p->a->pulls) && now >= p->a->pulls_check_at) {
		p->a->pulls_check_at = now + mxd_conf.rto_min_us * 250ull;
		mxd_pulls_timer(p, now);
	}
	if (limit != 0 && p->a->probe_since > p->last_heard &&
			now - p->a->probe_since >= limit) {
		mxd_count(p->ep->board, MXD_C_PEER_DEAD);
		mxd_partner_lost(p, MX_STATUS_ENDPOINT_UNREACHABLE);
	}
}

/* ---- traffic state given back ------------------------------------------ */

/*
 * A partner with nothing going on (mxd_partner_idle_now) at two looks in
 * a row gives its traffic state back to the pool, and the pools give the
 * heap what they hold beyond their floor a second later
 * (mxd_ep_pools_trim): an idle peer costs its struct mxd_partner alone.
 * Two looks, so that a partner that is idle
 * only between the messages of its traffic keeps its state.  At most
 * ACT_SWEEP partners are looked at per look, in turn (each goes to the
 * list's end), so that thousands of partners cost a look no more.
 */
#define ACT_SWEEP	64

static void
act_sweep(struct mx_endpoint *ep)
{
	unsigned n = ep->nactive < ACT_SWEEP ? ep->nactive : ACT_SWEEP;

	while (n-- > 0) {
		struct mxd_peer_act *a = mxd_container_of(ep->active.next,
				struct mxd_peer_act, active);
		int idle = mxd_partner_idle_now(a->p);

		if (idle && ++a->idle_looks >= 2) {
			mxd_partner_act_put(a->p);
			continue;
		}
		if (!idle)
			a->idle_looks = 0;
		mxd_list_del(&a->active);
		mxd_list_add_tail(&ep->active, &a->active);
	}
}

/* ---- the pass ----------------------------------------------------------- */

static void
timers_run(struct mx_endpoint *ep, uint64_t now)
{
	struct mxd_list *pos, *tmp;

	if (ep->nactive != 0)
		act_sweep(ep);
	if (ep->trim_at != 0 || !mxd_ep_pools_floor(ep))
		mxd_ep_pools_trim(ep, now);	/* while trim_at is set, the
						 * look comes again */
	mxd_list_foreach(pos, tmp, &ep->timed)
		partner_timer(mxd_container_of(pos, struct mxd_peer_act, timed)->p,
				now);
	if (!mxd_list_empty(&ep->connects))
		mxd_connects_progress(ep, now);
	if (ep->ntimed != 0 && now >= ep->next_timeout_scan) {
		mxd_sends_expire(ep, now);	/* large sends too */
		ep->next_timeout_scan = now + 1000000;	/* every ms */
	}
}

void
mxd_timers_run(struct mx_endpoint *ep, int acks, int all)
{
	uint64_t now = mxd_now_ns();

	ep->now = now;
	if (acks && !mxd_list_empty(&ep->acks)) {
		if (ep->acks_stamp)
			acks_start(ep, now);
		/* Nothing owed is due before acks_due: the list stays. */
		if (now >= ep->acks_due)
			acks_flush(ep, now);
	}
	if (!all)
		return;
	ep->timer_pass = 0;
	timers_run(ep, now);
}

/* A shared board whose service died (board/shared.c): every request of
 * its endpoints fails, and keeps failing as they are posted. */
static void
board_orphaned(struct mxd_board *b)
{
	for (unsigned e = 0; e < MX_MAX_ENDPOINTS; e++)
		if (b->ep[e] != NULL)
			mxd_ep_orphaned(b->ep[e], MX_STATUS_ENDPOINT_UNREACHABLE);
	b->orphan = 2;
}

void
mxd_timers_watch(struct mxd_board *b)
{
	uint64_t now = mxd_now_ns();

	if (b->shm != NULL)	/* processes of the host gone: at once */
		mxd_shm_watch(b);
	if (now < b->watch_due)
		return;
	b->watch_due = now + MXD_WATCH_MS * 1000000ull;
	mxd_board_watch(b);
	if (b->orphan)
		board_orphaned(b);
}
