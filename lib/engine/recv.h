/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving (engine): the checks that find a frame's partner, eager
 * reassembly, in-order matching, posted receives.  See recv.c.
 */
#ifndef MXD_RECV_H
#define MXD_RECV_H

#include <stdint.h>

#include "partners/endpoint.h"
#include "engine/match.h"

/* A valid frame from p arrived by 'port'. */
static inline void
mxd_rx_heard(struct mxd_partner *p, unsigned port)
{
	p->last_heard = p->ep->now;
	p->heard++;
	p->a->heard_on[port] = p->ep->now;
	p->a->silent[port] = 0;
}

/* mxd_rx_partner's checks one by one, each refusal counted (and an
 * EAGER or PACK refused answered with a NACK). */
struct mxd_partner *mxd_rx_partner_slow(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt);

/*
 * The partner an EAGER/ACK/PULL/PULL_REP frame belongs to, or NULL
 * (counted; a refused EAGER is answered with a NACK): the endpoint it
 * names, open, in the session and with the filter it names; the partner
 * by index, whose endpoint id, session and (if it says its epoch) epoch
 * the frame's are.  Its traffic state is taken (the frame is traffic;
 * out of memory: counted, drop: no buffer).  A frame whose check is not
 * verified yet (a lazily parsed PULL_REP) only finds its partner: the
 * caller calls mxd_rx_heard() once its payload proved intact.  Inline:
 * every frame of a partner passes, at a few compares.
 */
static inline struct mxd_partner *
mxd_rx_partner(struct mxd_board *b, unsigned port, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = mxd_ep_of(b, pkt->h.dst_ep);
	struct mxd_partner *p;

	if (ep == NULL || pkt->h.dst_peer >= ep->npartners ||
			pkt->h.dst_session != ep->session ||
			pkt->h.filter != ep->filter)
		return mxd_rx_partner_slow(b, port, pkt);
	p = ep->partners[pkt->h.dst_peer];
	if (p->remote_ep != pkt->h.src_ep || p->remote_session == 0 ||
			p->remote_session != pkt->h.src_session ||
			(p->epoch_hdr && pkt->h.epoch != (uint8_t)p->epoch) ||
			mxd_partner_act(p) == NULL)
		return mxd_rx_partner_slow(b, port, pkt);
	if (!pkt->unchecked)
		mxd_rx_heard(p, port);
	p->used = 1;	/* more than a connect request: never reused */
	return p;
}

/*
 * A plain message's frame (proto's mxd_wire_plain accepted it) of board b
 * by 'port': the next message of its partner, nothing after it seen, a
 * receive posted for it, the partner's port: taken at once, as the
 * general way (mxd_rx_partner, its ack, mxd_rx_eager) would, in the
 * fewest steps.  Returns 1 if taken, 0 (nothing done) otherwise.
 */
int mxd_rx_plain(struct mxd_board *b, unsigned port,
		const struct mxd_plain *m);
/* An EAGER fragment (or notice) from p. */
void mxd_rx_eager(struct mxd_partner *p, const struct mxd_pkt *pkt);
/* A PACK frame of p: its messages, one by one, as EAGER frames of one
 * fragment each. */
void mxd_rx_pack(struct mxd_partner *p, const struct mxd_pkt *pkt);
/* Posts receive r: matches the unexpected queue or waits on the posted
 * queue. */
void mxd_recv_post(struct mx_request *r);
/* Takes posted receive r off the posted queue (mx_cancel). */
void mxd_recv_cancel(struct mx_request *r);
/* Matches what became matchable on p (after progression resumed, or
 * room came back in the unexpected queue). */
void mxd_partner_drain(struct mx_endpoint *ep, struct mxd_partner *p);
/* Receives from p that cannot complete any more fail (p lost). */
void mxd_recv_partner_lost(struct mxd_partner *p, mx_status_code_t code);

#endif /* MXD_RECV_H */
