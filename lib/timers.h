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
/* From every progress pass of ep's board ('work': frames it took in):
 * what is due is done. */
void mxd_timers_pass(struct mx_endpoint *ep, unsigned work);
/* From every progress pass of b: the link watch (mxd_board_watch). */
void mxd_timers_board(struct mxd_board *b);

#endif /* MXD_TIMERS_H */
