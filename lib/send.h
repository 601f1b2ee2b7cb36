/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending (engine): eager messages, notices, acknowledgements, the send
 * window, refusals.  See send.c.
 */
#ifndef MXD_SEND_H
#define MXD_SEND_H

#include <stdint.h>

#include "endpoint.h"

/* Sends r now, or queues it behind its partner's earlier sends. */
void mxd_send_post(struct mx_request *r);
/* Sends what waits on p's send queue, as window and tx room allow. */
void mxd_send_pump(struct mxd_partner *p);
void mxd_sends_pump(struct mx_endpoint *ep);
/* p's cumulative ack: its messages up to 'ack' arrived. */
void mxd_send_acked(struct mxd_partner *p, uint32_t ack);
/* MATCHED: p matched our synchronous message 'seq'. */
void mxd_send_matched(struct mxd_partner *p, uint32_t seq);
/* r completes before its message's ack: the ack must not find it. */
void mxd_send_detach(struct mx_request *r);
/* Fails every send (and large send) to p with 'code'. */
void mxd_sends_fail(struct mxd_partner *p, mx_status_code_t code);
/* p refused, or is lost with, what is in flight to it ('code' says why):
 * messages of sends that completed already are counted, and p keeps the
 * reason for the next operation towards it (mxd_send_report). */
void mxd_sends_lost(struct mxd_partner *p, mx_status_code_t code);
/* A loss of a completed send's message not told yet, told once here
 * (MX_STATUS_SUCCESS: none, or it concerned a past life of the peer). */
mx_status_code_t mxd_send_unreported(struct mxd_partner *p);
/* The status a new send to p must fail with at once, MX_STATUS_SUCCESS if
 * none: a loss not told yet, or why p refused us or was lost.  Inline:
 * every send asks, and almost always of a partner up with nothing to
 * tell. */
mx_status_code_t mxd_send_report_any(struct mxd_partner *p);

static inline mx_status_code_t
mxd_send_report(struct mxd_partner *p)
{
	if (p->unreported == MX_STATUS_SUCCESS && mxd_partner_up(p))
		return MX_STATUS_SUCCESS;
	return mxd_send_report_any(p);
}
/* Sends and large sends past their deadline fail (MX_STATUS_TIMEOUT). */
void mxd_sends_expire(struct mx_endpoint *ep, uint64_t now);
/* A NACK: the peer refused one of our messages. */
void mxd_rx_nack(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt);

/* Sends p a notice (wire.h: enum mxd_notice_kind), now or, when window or
 * tx queue is full, from the ack timer, in order: never dropped. */
void mxd_notice(struct mxd_partner *p, uint8_t kind, uint32_t value);
/* Sends the notices that waited, as far as window and room allow. */
void mxd_notices_flush(struct mxd_partner *p);
/* An explicit cumulative ack now (counted); nothing if the queue is full:
 * the ack timer tries again. */
void mxd_ack_send(struct mxd_partner *p);

#endif /* MXD_SEND_H */
