/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving (engine): the checks that find a frame's partner, eager
 * reassembly, in-order matching, posted receives.  See recv.c.
 */
#ifndef MXD_RECV_H
#define MXD_RECV_H

#include <stdint.h>

#include "partners/endpoint.h"
#include "partners/xmit.h"
#include "engine/acks.h"
#include "engine/match.h"
#include "engine/send.h"
#include "engine/timers.h"

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

/* Schedules an ack of everything received so far: at once every
 * MXD_ACK_EVERY messages, else by the delayed-ack timer, whose clock is
 * read later (timers.h), not on the way to the application. */
static inline void
mxd_rx_ack_schedule(struct mxd_partner *p)
{
	uint32_t cum = mxd_rxwin_cum_ack(&p->rx);

	if (cum - p->ack_sent >= MXD_ACK_EVERY) {
		mxd_ack_send(p);
		return;
	}
	mxd_timer_ack_owed(p);
}

/* Posted receive r takes a whole message of p ('len' bytes at data),
 * matched now, copied and completed in one go; mxd_recv_direct_any for
 * any receive, the inline one for the usual (on the list, one segment
 * that holds the message, no deadline, not forgotten).  'many' (a
 * constant): one of several completing together (a PACK frame's), which
 * goes straight onto the completion list (mxd_ep_done_tail). */
void mxd_recv_direct_any(struct mx_request *r, struct mxd_partner *p,
		uint64_t match, const uint8_t *data, uint32_t len);
static inline __attribute__((always_inline)) void
mxd_recv_direct_in(struct mx_request *r, struct mxd_partner *p,
		uint64_t match, const uint8_t *data, uint32_t len, int many)
{
	struct mx_endpoint *ep = r->ep;

	if (r->mclass != MXD_MCLASS_LISTED || len > r->length ||
			r->nseg != 1 || (r->deadline | r->forget) != 0) {
		mxd_recv_direct_any(r, p, match, data, len);
		return;
	}
	ep->posted_short--;
	mxd_list_del(&r->link);
	mxd_partner_addr_act(p, &r->status.source);
	r->status.match_info = match;
	r->status.msg_length = len;
	mxd_copy_short(r->segs[0].segment_ptr, data, len);
	r->status.xfer_length = len;
	r->status.code = MX_STATUS_SUCCESS;
	mxd_req_set_state(r, MXD_RS_COMPLETE);
	if (many)
		mxd_ep_done_tail(ep, r);
	else
		mxd_ep_done_add(ep, r);
	mxd_count(ep->board, MXD_C_RX_MSGS);
}

static inline __attribute__((always_inline)) void
mxd_recv_direct(struct mx_request *r, struct mxd_partner *p, uint64_t match,
		const uint8_t *data, uint32_t len)
{
	mxd_recv_direct_in(r, p, match, data, len, 0);
}

/*
 * A plain message's frame (proto's mxd_wire_plain accepted it) of board b
 * by 'port': the next message of its partner, nothing after it seen, a
 * receive posted for it, the partner's port: taken at once, as the
 * general way (mxd_rx_partner, its ack, mxd_rx_eager) would, in the
 * fewest steps.  Returns 1 if taken, 0 (nothing done) otherwise.  Inline
 * in the pass's loop over a burst (progress.c).
 */
static inline __attribute__((always_inline)) int
mxd_rx_plain(struct mxd_board *b, unsigned port, const struct mxd_plain *m)
{
	const uint8_t *h = m->hdr;
	struct mx_endpoint *ep = mxd_ep_of(b, h[offsetof(struct mxd_hdr,
				dst_ep)]);
	uint32_t idx = mxd_get16(h + offsetof(struct mxd_hdr, dst_peer));
	struct mxd_partner *p;
	struct mx_request *r;

	if (ep == NULL || idx >= ep->npartners)
		return 0;
	p = ep->partners[idx];
	if (!mxd_partner_rx_ok(p, h) || (!p->local && (int)port != p->port) ||
			!mxd_rxwin_next_alone(&p->rx, m->seq) ||
			ep->progression_off || p->a == NULL)
		return 0;
	r = mxd_match_posted(ep, m->match);
	if (r == NULL)
		return 0;
	mxd_rx_heard(p, port);
	p->used = 1;
	mxd_send_ack_in(p, m->ack);
	mxd_recv_direct(r, p, m->match, m->payload, m->len);
	mxd_rxwin_pass(&p->rx);
	mxd_rx_ack_schedule(p);
	return 1;
}

/*
 * A bare ACK of board b by 'port' (proto's mxd_wire_bare_ack accepted
 * it; h its common header): from a partner known and active, by its
 * port, applied at once as the general way (mxd_rx_partner, the acks
 * held applied first, mxd_send_acked) would.  Returns 1 if taken, 0
 * (nothing done) otherwise.
 */
static inline int
mxd_rx_bare_ack(struct mxd_board *b, unsigned port, const uint8_t *h)
{
	struct mx_endpoint *ep = mxd_ep_of(b, h[offsetof(struct mxd_hdr,
				dst_ep)]);
	uint32_t idx = mxd_get16(h + offsetof(struct mxd_hdr, dst_peer));
	struct mxd_partner *p;

	if (ep == NULL || idx >= ep->npartners)
		return 0;
	p = ep->partners[idx];
	if (!mxd_partner_rx_ok(p, h) || (!p->local && (int)port != p->port) ||
			p->a == NULL)
		return 0;
	mxd_rx_heard(p, port);
	p->used = 1;
	mxd_send_ack_settle(p);
	mxd_send_acked(p, mxd_get32(h + offsetof(struct mxd_hdr, ack)));
	return 1;
}

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

/* Every receive posted and not matched fails with code. */
void mxd_recvs_fail(struct mx_endpoint *ep, mx_status_code_t code);

#endif /* MXD_RECV_H */
