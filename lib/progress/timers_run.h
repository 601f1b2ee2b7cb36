/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running the timers (progress): see timers_run.c.
 */
#ifndef MXD_TIMERS_RUN_H
#define MXD_TIMERS_RUN_H

#include <stdint.h>

#include "partners/endpoint.h"
#include "engine/timers.h"

/* The timers of ep: acks owed ('acks'), and the rest ('all') when their
 * look is due. */
void mxd_timers_run(struct mx_endpoint *ep, int acks, int all);
void mxd_timers_watch(struct mxd_board *b);

/* From the progress passes of an endpoint with acks owed or timers
 * (ep->work): what is due is done.  Acks are looked at every
 * MXD_ACK_PASSES passes (a notice that waits for room: at once), the
 * other timers every MXD_TIMER_PASSES; the clock is read only then.
 * Inline: most passes find nothing due. */
static inline void
mxd_timers_pass(struct mx_endpoint *ep)
{
	unsigned w = ep->work;
	int acks = (w & MXD_EW_ACKS) && (++ep->ack_pass >= MXD_ACK_PASSES ||
			ep->acks_due == 0);
	int all = (w & MXD_EW_TIMERS) && ++ep->timer_pass >= MXD_TIMER_PASSES;

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

#endif /* MXD_TIMERS_RUN_H */
