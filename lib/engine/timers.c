/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers: every timer of the engine, in one place.  Protocol code reports
 * events (a message sent, an ack owed, a deadline set) here, and this
 * file arms the timer they imply; the progress layer runs what is due
 * (progress/timers_run.c), calling the protocol to act.  There is no timer
 * thread and no timer wheel: each endpoint keeps two short lists, and the
 * progress pass looks at them while they hold anything, the ack list
 * every MXD_ACK_PASSES passes (at the next for a notice) and the rest
 * every MXD_TIMER_PASSES passes, so the clock is read rarely on the hot
 * path.
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
 *                     (p->a->sack_pending)
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
#include "util/clock.h"
#include "engine/timers.h"


/* ---- events ------------------------------------------------------------- */

void
mxd_timer_watch_start(struct mxd_partner *p)
{
	/* A same-host partner has no timer: its ring loses nothing, and its
	 * death is learnt from its process (engine/shm.c). */
	if (p->shm)
		return;
	mxd_list_add_tail(&p->ep->timed, &p->a->timed);
	mxd_ep_busy(p->ep, MXD_EW_TIMERS);
}

void
mxd_timer_ack(struct mxd_partner *p, uint64_t due)
{
	struct mx_endpoint *ep = p->ep;

	if (mxd_list_empty(&ep->acks) || due < ep->acks_due)
		ep->acks_due = due;	/* a notice (0) too: the next pass */
	if (due == 0) {
		ep->board->look_now = 1;
		ep->board->due |= MXD_DUE_LOOK;
	}
	if (!p->a->ack_queued) {
		p->a->ack_due = due;
		p->a->ack_due_for = p->ack_sent;
		p->a->ack_queued = 1;
		mxd_list_add_tail(&ep->acks, &p->a->ackq);
	}
	mxd_ep_busy(ep, MXD_EW_ACKS);
}

void
mxd_timer_deadline(struct mx_request *r, uint32_t ms)
{
	if (r->deadline == 0 && ms != 0) {
		r->ep->ntimed++;
		mxd_ep_busy(r->ep, MXD_EW_TIMERS);
	}
	else if (r->deadline != 0 && ms == 0)
		r->ep->ntimed--;
	r->deadline = ms ? mxd_now_ns() + ms * 1000000ull : 0;
}
