/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers (engine): the one module that arms timers.  Protocol code reports
 * events here; timers.c lists every timer, progress/timers_run.c runs
 * them when due.
 */
#ifndef MXD_TIMERS_H
#define MXD_TIMERS_H

#include <stdint.h>

#include "partners/endpoint.h"

/* Something of p's is in flight, or we wait for p (a message, a pull, a
 * large send, a sync send, a notice): watch it.  Inline: every message
 * sent says so, and p is watched already but for the first. */
void mxd_timer_watch_start(struct mxd_partner *p);
static inline void
mxd_timer_watch(struct mxd_partner *p)
{
	if (mxd_list_empty(&p->a->timed))
		mxd_timer_watch_start(p);
}
/* p owes an ack (or a notice waits for room): by 'due' (ns; 0: now). */
void mxd_timer_ack(struct mxd_partner *p, uint64_t due);
/*
 * p owes an ack for what it sent, due MX_ACK_DELAY_US from now unless a
 * frame to p carries it first.  The clock is not read here, on the way
 * from a frame to the application, but at the next look at the acks
 * (every MXD_ACK_PASSES passes while any is owed: the delay starts then,
 * at most that many passes late): a ping-pong's reply carries the ack
 * before that, and no clock is read for it at all.  A frame that carries
 * the ack (mxd_ack_for) leaves p on the list: the look finds it paid and
 * takes it off, or owing anew since its stamp (p->ack_sent moved on from
 * a->ack_due_for), whose delay starts then; a partner that keeps
 * talking stays queued, and a message costs a test here.
 */
#define MXD_DUE_UNSTAMPED	UINT64_MAX	/* p->a->ack_due: not started */
static inline void
mxd_timer_ack_owed(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;

	if (p->a->ack_queued)
		return;
	if (mxd_list_empty(&ep->acks))
		ep->acks_due = MXD_DUE_UNSTAMPED;
	p->a->ack_due = MXD_DUE_UNSTAMPED;
	p->a->ack_queued = 1;
	mxd_list_add_tail(&ep->acks, &p->a->ackq);
	ep->acks_stamp = 1;
	mxd_ep_busy(ep, MXD_EW_ACKS);
}

/* Request r fails with MX_STATUS_TIMEOUT 'ms' from now (0: never). */
void mxd_timer_deadline(struct mx_request *r, uint32_t ms);

#define MXD_ACK_PASSES		32	/* passes between looks at acks owed */
#define MXD_TIMER_LOOKS		2	/* looks between timer checks */
#define MXD_TIMER_PASSES	(MXD_ACK_PASSES * MXD_TIMER_LOOKS)
#define MXD_WATCH_PASSES	1024	/* passes between link watch checks */

/* Whether the look at ep's timers other than acks may come in the next
 * pass (mxd_timers_look, progress/timers_run.h). */
static inline int
mxd_timers_due(const struct mx_endpoint *ep)
{
	const struct mxd_board *b = ep->board;

	return (ep->work & MXD_EW_TIMERS) &&
		ep->timer_pass + 1 >= MXD_TIMER_LOOKS &&
		(b->look_pass + 1 >= MXD_ACK_PASSES || b->look_now);
}

#endif /* MXD_TIMERS_H */
