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

/* From every progress pass of ep's board ('work': frames it took in):
 * what is due is done.  Inline: most passes find nothing to look at. */
static inline void
mxd_timers_pass(struct mx_endpoint *ep, unsigned work)
{
	/* Acks owed: a look at the clock if one may be due, or one owed
	 * since an earlier pass has its delay to start; those owed since
	 * this pass began wait for the next (their reply may carry them). */
	int acks = !mxd_list_empty(&ep->acks) &&
		(ep->acks_due != MXD_DUE_UNSTAMPED ||
		 ep->acks_stamp >= MXD_STAMP_DUE), all = 0;

	if ((!mxd_list_empty(&ep->timed) || !mxd_list_empty(&ep->connects) ||
			ep->ntimed != 0) && ++ep->timer_pass >=
			(work ? MXD_TIMER_PASSES : MXD_TIMER_PASSES / 8))
		all = 1;
	if (acks || all)
		mxd_timers_run(ep, acks, all);
	else if (ep->acks_stamp)
		ep->acks_stamp = MXD_STAMP_DUE;
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
