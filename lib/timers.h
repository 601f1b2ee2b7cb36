/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers (engine): the one module that decides when something is due.
 * Protocol code reports events here; timers.c lists every timer.
 */
#ifndef MXD_TIMERS_H
#define MXD_TIMERS_H

#include <stdint.h>

#include "endpoint.h"

/* Something of p's is in flight, or we wait for p (a message, a pull, a
 * large send, a sync send, a notice): watch it. */
void mxd_timer_watch(struct mxd_partner *p);
/* p owes an ack (or a notice waits for room): by 'due' (ns; 0: now). */
void mxd_timer_ack(struct mxd_partner *p, uint64_t due);
/* Request r fails with MX_STATUS_TIMEOUT 'ms' from now (0: never). */
void mxd_timer_deadline(struct mx_request *r, uint32_t ms);
#define MXD_TIMER_PASSES	64	/* passes between timer checks */
#define MXD_WATCH_PASSES	1024	/* passes between link watch checks */

/* The timers of ep: acks owed ('acks'), and the rest ('all') when their
 * look is due. */
void mxd_timers_run(struct mx_endpoint *ep, int acks, int all);
void mxd_timers_watch(struct mxd_board *b);

/* From every progress pass of ep's board ('work': frames it took in):
 * what is due is done.  Inline: most passes find nothing to look at. */
static inline void
mxd_timers_pass(struct mx_endpoint *ep, unsigned work)
{
	int acks = !mxd_list_empty(&ep->acks), all = 0;

	if ((!mxd_list_empty(&ep->timed) || !mxd_list_empty(&ep->connects) ||
			ep->ntimed != 0) && ++ep->timer_pass >=
			(work ? MXD_TIMER_PASSES : MXD_TIMER_PASSES / 8))
		all = 1;
	if (acks || all)
		mxd_timers_run(ep, acks, all);
}

/* From every progress pass of b: the link watch (mxd_board_watch), every
 * MXD_WATCH_PASSES passes. */
static inline void
mxd_timers_board(struct mxd_board *b)
{
	if (++b->watch_pass >= MXD_WATCH_PASSES)
		mxd_timers_watch(b);
}

#endif /* MXD_TIMERS_H */
