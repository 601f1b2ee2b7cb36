/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers: every timer of the engine, in one place.  Protocol code reports
 * events (a message sent, an ack owed, a deadline set); this file decides
 * when something is due and calls the protocol to act.  There is no timer
 * thread and no timer wheel: each endpoint keeps two short lists, and the
 * progress pass looks at them, the ack list on every pass and the rest
 * every MXD_TIMER_PASSES passes (an eighth of that after an idle pass), so
 * the clock is read rarely on the hot path.
 *
 *  timer              armed by                      when due
 *  -----------------  ----------------------------  --------------------------
 *  delayed ack        recv: messages settled and    MX_ACK_DELAY_US after the
 *                     no reply carried the ack      first one owed: explicit
 *                     (mxd_timer_ack)               ACK, if still owed
 *  queued notice      send: MATCHED/NOTIFY found    every pass: sent as soon
 *                     no window or tx room          as window and room allow
 *  retransmission     send: a message launched      oldest unacked message
 *                     (mxd_timer_watch)             older than the probe
 *                                                   timeout the first time
 *                                                   (mxd_rtt_probe), then
 *                                                   the RTO (RTT estimate,
 *                                                   doubled per expiry):
 *                                                   sent again
 *  fast retransmit    a SACK named holes sent       a round trip after they
 *                     too recently to resend yet    were sent: sent again
 *                     (p->sack_pending)
 *  link down          (same partners)               port of a board of
 *                                                   several went down:
 *                                                   reroute
 *  liveness probe     rndv/send: we wait for p      silent for a quarter of
 *                     (pulls, large or sync sends,  MX_PEER_TIMEOUT_MS with
 *                     notices), nothing in flight   nothing in flight: PING
 *  re-pull            rndv: a PULL sent             block overdue (pull RTT
 *                                                   estimate): missing
 *                                                   frames asked again
 *  peer timeout       any probe above unanswered    MX_PEER_TIMEOUT_MS of
 *                                                   silence: partner lost
 *  connect retry      connect: a request started    every MX_CONNECT_RETRY_MS
 *                                                   until answered
 *  request deadline   mx_set_request_timeout,       deadline passed:
 *                     connect timeouts              MX_STATUS_TIMEOUT
 *                     (mxd_timer_deadline)
 *  port suspicion     reliable/rndv: a port lost    passive: striping and
 *                     a partner's frames            rerouting skip the port
 *                                                   until port_bad_until
 *  link watch         always, per board             every MXD_WATCH_MS
 *                                                   (looked at every
 *                                                   MXD_WATCH_PASSES): a
 *                                                   port down that does not
 *                                                   come back by itself is
 *                                                   restarted (board.c)
 *
 * Waits that are not protocol timers live above: a blocking call's spin
 * and nap (the API layer), the progress thread's sleep (progress.c).
 */
#include "clock.h"
#include "config.h"
#include "connect.h"
#include "reliable.h"
#include "rndv.h"
#include "send.h"
#include "timers.h"


/* ---- events ------------------------------------------------------------- */

void
mxd_timer_watch(struct mxd_partner *p)
{
	if (mxd_list_empty(&p->timed))
		mxd_list_add_tail(&p->ep->timed, &p->timed);
}

void
mxd_timer_ack(struct mxd_partner *p, uint64_t due)
{
	struct mx_endpoint *ep = p->ep;

	if (mxd_list_empty(&ep->acks) || due < ep->acks_due)
		ep->acks_due = due;	/* a notice (0) too: the next pass */
	if (!p->ack_queued) {
		p->ack_due = due;
		p->ack_queued = 1;
		mxd_list_add_tail(&ep->acks, &p->ackq);
	}
}

void
mxd_timer_deadline(struct mx_request *r, uint32_t ms)
{
	if (r->deadline == 0 && ms != 0)
		r->ep->ntimed++;
	else if (r->deadline != 0 && ms == 0)
		r->ep->ntimed--;
	r->deadline = ms ? mxd_now_ns() + ms * 1000000ull : 0;
}

/* ---- delayed acks and queued notices ------------------------------------ */

/*
 * Partners owing an ack (or a notice) whose time has come.  The list is
 * detached first: a partner that still owes something after its turn (tx
 * queue full, or not due yet) goes back for the next pass.
 */
static void
acks_flush(struct mx_endpoint *ep, uint64_t now)
{
	struct mxd_list work = ep->acks;

	work.next->prev = &work;
	work.prev->next = &work;
	mxd_list_init(&ep->acks);
	while (!mxd_list_empty(&work)) {
		struct mxd_partner *p = mxd_container_of(work.next,
				struct mxd_partner, ackq);
		uint64_t due = p->ack_due;

		mxd_list_del(&p->ackq);
		p->ack_queued = 0;
		if (p->notify_n != 0)
			mxd_notices_flush(p);	/* carries the ack too */
		if (mxd_rxwin_cum_ack(&p->rx) != p->ack_sent && now >= due)
			mxd_ack_send(p);
		if (p->notify_n != 0 ||
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
				struct mxd_partner, ackq);

		if (p->ack_due == MXD_DUE_UNSTAMPED)
			p->ack_due = due;
		if (p->ack_due < ep->acks_due)
			ep->acks_due = p->ack_due;
	}
	ep->acks_stamp = 0;
}

/* ---- partners ----------------------------------------------------------- */

/* Stamps messages sent since the last look with the time. */
static void
stamp(struct mxd_partner *p, uint64_t now)
{
	for (uint32_t s = p->tx.next_seq - 1; s != p->tx.acked; s--) {
		struct mxd_txrec *rec = p->inflight[s & (MXD_WIN - 1)];

		if (rec == NULL || rec->sent_at != 0)
			break;
		rec->sent_at = now;
	}
}

/* Whether we wait for anything from p. */
static int
waiting(const struct mxd_partner *p)
{
	return mxd_txwin_in_flight(&p->tx) != 0 || !mxd_list_empty(&p->pulls) ||
		p->lsends != 0 || !mxd_list_empty(&p->syncq) ||
		p->notify_n != 0;
}

/* The oldest unacknowledged message of p is due again. */
static int
retransmit_due(const struct mxd_partner *p, uint64_t now)
{
	const struct mxd_txrec *rec =
		p->inflight[(p->tx.acked + 1) & (MXD_WIN - 1)];

	return rec != NULL && rec->sent_at != 0 &&
		now >= rec->sent_at + (p->backoff == 0 ?
				mxd_rtt_probe(&p->rtt) :
				mxd_rtt_backed_off(&p->rtt, p->backoff));
}

static void
partner_timer(struct mxd_partner *p, uint64_t now)
{
	uint64_t limit = mxd_conf.peer_timeout_ms * 1000000ull;
	uint64_t ping_every = limit / 4;

	if (p->remote_session == 0 || !waiting(p)) {
		mxd_list_del(&p->timed);
		return;
	}
	if (p->ep->board->nports > 1 && !p->local &&
			!mxd_board_port_up(p->ep->board, (unsigned)p->port))
		mxd_reroute(p, now, UINT64_MAX);
	if (mxd_txwin_in_flight(&p->tx) != 0) {
		stamp(p, now);
		if (p->sack_pending)	/* holes too recent at the SACK */
			mxd_fast_retransmit(p, p->sack_ack, p->sack_bits, 0);
		if (p->frags_pending)	/* or at the fragments named */
			mxd_frags_again(p, now);
		if (retransmit_due(p, now))
			mxd_retransmit(p, now);
	} else if (now - p->last_heard >= ping_every &&
			now - p->ping_at >= ping_every) {
		/* The last probe went unanswered too: try another port. */
		if (p->probe_since > p->last_heard && p->ping_at != 0)
			mxd_reroute(p, now, p->ping_at);
		mxd_ping(p, now);
	}
	/* Blocks are overdue after MX_RTO_MIN_US at the least: looking a
	 * quarter of that apart is soon enough, and keeps a window of large
	 * receives from being scanned on every pass. */
	if (!mxd_list_empty(&p->pulls) && now >= p->pulls_check_at) {
		p->pulls_check_at = now + mxd_conf.rto_min_us * 250ull;
		mxd_pulls_timer(p, now);
	}
	if (limit != 0 && p->probe_since > p->last_heard &&
			now - p->probe_since >= limit) {
		mxd_count(p->ep->board, MXD_C_PEER_DEAD);
		mxd_partner_lost(p, MX_STATUS_ENDPOINT_UNREACHABLE);
	}
}

/* ---- the pass ----------------------------------------------------------- */

static void
timers_run(struct mx_endpoint *ep, uint64_t now)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->timed)
		partner_timer(mxd_container_of(pos, struct mxd_partner, timed),
				now);
	if (!mxd_list_empty(&ep->connects))
		mxd_connects_progress(ep, now);
	if (ep->ntimed != 0 && now >= ep->next_timeout_scan) {
		mxd_sends_expire(ep, now);
		mxd_rndv_expire(ep, now);
		ep->next_timeout_scan = now + 1000000;	/* every ms */
	}
}

void
mxd_timers_run(struct mx_endpoint *ep, int acks, int all)
{
	uint64_t now = mxd_now_ns();

	if (ep->acks_stamp)
		acks_start(ep, now);
	/* Nothing owed is due before acks_due: the list is left as it is. */
	if (acks && now >= ep->acks_due)
		acks_flush(ep, now);
	if (!all)
		return;
	ep->timer_pass = 0;
	ep->now = now;
	timers_run(ep, now);
}

void
mxd_timers_watch(struct mxd_board *b)
{
	uint64_t now;

	b->watch_pass = 0;
	now = mxd_now_ns();
	if (now < b->watch_due)
		return;
	b->watch_due = now + MXD_WATCH_MS * 1000000ull;
	mxd_board_watch(b);
}
