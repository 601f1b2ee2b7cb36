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
/* b's link watch (mxd_board_watch) if MXD_WATCH_MS passed since its last:
 * looked at every MXD_WATCH_PASSES passes (progress.c). */
void mxd_timers_watch(struct mxd_board *b);

/* The look at an endpoint's timers, every MXD_ACK_PASSES passes of its
 * board while it has acks owed or timers (ep->work; at the next pass for
 * a notice that waits for room, b->look_now): acks at every look, the
 * other timers every MXD_TIMER_LOOKS; the clock is read only then. */
static inline void
mxd_timers_look(struct mx_endpoint *ep)
{
	unsigned w = ep->work;
	int acks = (w & MXD_EW_ACKS) != 0;
	int all = (w & MXD_EW_TIMERS) && ++ep->timer_pass >= MXD_TIMER_LOOKS;

	if (acks || all)
		mxd_timers_run(ep, acks, all);
}

#endif /* MXD_TIMERS_RUN_H */
