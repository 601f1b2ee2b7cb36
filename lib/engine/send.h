/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending (engine): eager messages, notices, acknowledgements, the send
 * window, refusals.  See send.c.
 */
#ifndef MXD_SEND_H
#define MXD_SEND_H

#include <assert.h>
#include <stdint.h>

#include "partners/endpoint.h"
#include "partners/xmit.h"
#include "engine/timers.h"

/* Sends r now, or queues it behind its partner's earlier sends. */
void mxd_send_post(struct mx_request *r);
/*
 * mx_isend's common case, decided once: a message of at most
 * MXD_TXCOPY_MAX bytes (and one frame) in one segment, to a partner that
 * is up (p->fast_max) with traffic state, with no request timeout set
 * (mxd_send_small_ok).  With nothing queued to the partner and fewer
 * than MX_PACK_AFTER messages in flight (p->fly_max) it leaves at once
 * in a frame of its own, its data kept in a small record, and its
 * request completes (MPI standard mode); else it goes into the
 * partner's open PACK frame (done as well), or waits on the send queue
 * when even that may not be.  What mxd_send_post does for it, without
 * the choices.  Returns the request, or NULL (nothing done) when the
 * message is not of that case or a pool is empty: the general way then.
 * mxd_send_now (inline) is the usual way out (the port's tx queue
 * empty, a request and a small record at hand, a partner on the wire),
 * mxd_send_open (inline) the way into an open frame; mxd_send_small all
 * of it.
 */
struct mx_request *mxd_send_small(struct mx_endpoint *ep,
		struct mxd_partner *p, const mx_segment_t *seg, uint64_t match,
		void *context);

/* A message that leaves at once in a frame of its own (f, allocated):
 * built from p's template, its data kept in a small record, handed to
 * the port (l, p's, when the caller knows its tx queue empty and p on
 * the wire; else NULL), its request returned done.  The pools are not
 * empty. */
static inline __attribute__((always_inline)) struct mx_request *
mxd_send_frame(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_frame *f, const mx_segment_t *seg, uint64_t match,
		void *context, struct mxd_link *l)
{
	struct mx_request *r = ep->reqs.free;
	struct mxd_txrec *rec = ep->free_txsmall;
	uint32_t len = seg->segment_length;
	uint32_t seq = mxd_txwin_take(&p->tx);

	ep->reqs.free = r->pool_next;
	ep->free_txsmall = rec->pool_next;
	mxd_req_init(r, MXD_REQ_SEND, MXD_RS_COMPLETE);
	/* Its bytes kept and in the frame from one read of them; len below
	 * p->fast_max, so at most p->frag_max: the template's frag_max
	 * stands (mxd_partner_small_frame's case of a message sent again
	 * after the MTU dropped is not this one). */
	mxd_partner_small_hdrs(p, f->data, seq, 0, match, len,
			mxd_ack_for(p, MXD_T_EAGER));
	mxd_copy_short2(rec->data, f->data + MXD_EAGER_HLEN, seg->segment_ptr,
			len);
	/* Kept until acknowledged (msg_keep's, for a completed send). */
	mxd_txrec_small(rec, seq, len, match);
	p->a->inflight[seq & (MXD_WIN - 1)] = rec;
	mxd_timer_watch(p);
	/* Complete: what the application reads (msg_taken's; a send done
	 * at once keeps no partner, sequence number or length).  All of it
	 * before the calls below (the check, the PMD's burst), which then
	 * keep few values across them. */
	r->status.code = MX_STATUS_SUCCESS;
	mxd_partner_addr_act(p, &r->status.source);
	r->status.match_info = match;
	r->status.msg_length = r->status.xfer_length = len;
	r->status.context = context;
	mxd_ep_done_add(ep, r);
	mxd_count(ep->board, MXD_C_TX_MSGS);
	mxd_partner_small_seal(p, f, len);
	if (l == NULL)
		mxd_partner_xmit_now(p, (unsigned)p->port, f);
	else if (l->ops->tx_burst(l, f, 1) == 1)	/* nothing before it */
		mxd_count(ep->board, MXD_C_TX_FRAMES);
	else
		mxd_txq_push(ep->board, (unsigned)p->port, f, 1);
	return r;
}

/*
 * A message into p's open PACK frame (send.c: "the open PACK frame"),
 * which has room for its record; a request at hand: the record written,
 * the request returned done.  The frame's record counts its messages
 * (nmsgs), which become its references (a slot each) and the messages
 * sent when it is closed.  mxd_send_open: the same, inline in
 * mx_isend, for a message of at most 16 bytes whose case is that one
 * (nothing queued, the window not full, room in the frame), with
 * nothing that calls out; NULL otherwise (mxd_send_small then).
 */
static inline struct mx_request *
mxd_send_open_write(struct mx_endpoint *ep, struct mxd_partner *p,
		const mx_segment_t *seg, uint32_t len, uint64_t match,
		void *context)
{
	struct mxd_peer_act *a = p->a;
	struct mxd_txrec *rec = a->open;
	struct mx_request *r = ep->reqs.free;
	uint32_t seq = mxd_txwin_take(&p->tx);
	uint8_t *d = rec->frames[0].data + MXD_HDRS_LEN + a->open_used;

	ep->reqs.free = r->pool_next;
	mxd_req_init(r, MXD_REQ_SEND, MXD_RS_COMPLETE);
	d += mxd_wire_put_pack_rec(d, seq, (uint16_t)len, 0, match);
	mxd_wire_pack_zero(d, len);
	mxd_copy_short(d, seg->segment_ptr, len);
	a->open_used += mxd_pack_rec_size(len);
	rec->nmsgs++;
	a->inflight[seq & (MXD_WIN - 1)] = rec;
	r->status.code = MX_STATUS_SUCCESS;
	mxd_partner_addr_act(p, &r->status.source);
	r->status.match_info = match;
	r->status.msg_length = r->status.xfer_length = len;
	r->status.context = context;
	mxd_ep_done_tail(ep, r);
	return r;
}

static inline int
mxd_send_open_ok(const struct mx_endpoint *ep, const struct mxd_partner *p,
		uint32_t len)
{
	const struct mxd_peer_act *a = p->a;

	return a->open != NULL && len <= 16 &&
		mxd_pack_rec_size(len) <= a->open_left &&
		!ep->progression_off && !mxd_txwin_full(&p->tx) &&
		a->open->nmsgs != MXD_PACK_MAX && ep->reqs.free != NULL;
}

static inline struct mx_request *
mxd_send_open(struct mx_endpoint *ep, struct mxd_partner *p,
		const mx_segment_t *seg, uint64_t match, void *context)
{
	uint32_t len = seg->segment_length;

	if (!mxd_send_open_ok(ep, p, len))
		return NULL;
	p->a->open_left -= mxd_pack_rec_size(len);
	return mxd_send_open_write(ep, p, seg, len, match, context);
}

/* mxd_send_small's case of a partner with no open PACK frame (the
 * caller's look: any other is mxd_send_small's), the message out at once
 * when nothing is ahead of it. */
static inline struct mx_request *
mxd_send_now(struct mx_endpoint *ep, struct mxd_partner *p,
		const mx_segment_t *seg, uint64_t match, void *context)
{
	struct mxd_board *b = ep->board;
	unsigned port = (unsigned)p->port;
	struct mxd_frame f;

	if (!mxd_list_empty(&p->a->sendq) || p->local ||
			mxd_txwin_in_flight(&p->tx) >= p->fly_max ||
			b->txq[port].head != b->txq[port].tail ||
			ep->reqs.free == NULL || ep->free_txsmall == NULL)
		return mxd_send_small(ep, p, seg, match, context);
	if (mxd_board_alloc(b, port, &f) != 0)
		return NULL;
	return mxd_send_frame(ep, p, &f, seg, match, context, b->port[port]);
}
static inline int
mxd_send_small_ok(const struct mx_endpoint *ep, const struct mxd_partner *p,
		uint32_t len)
{
	return len < p->fast_max && p->a != NULL && ep->req_timeout_ms == 0;
}
/* Sends what waits on p's send queue, as window and tx room allow (its
 * open PACK frame first). */
void mxd_send_pump(struct mxd_partner *p);
void mxd_sends_pump(struct mx_endpoint *ep);
/* Sends the open PACK frames of ep's partners (as tx room allows). */
void mxd_sends_close(struct mx_endpoint *ep);
/* p's cumulative ack: its messages up to 'ack' arrived. */
void mxd_send_acked(struct mxd_partner *p, uint32_t ack);
/*
 * The ack of a plain EAGER frame (a message to match, nothing more) is
 * held rather than applied while the frame is dispatched: retiring the
 * messages it acks is work that a stream or a ping-pong does better in
 * batches, and that the application's next message, often the reply,
 * should not wait behind.  One partner of an endpoint holds one at most
 * (ep->ack_held, the newest in p->a->ack_in), until it acks
 * MXD_ACKS_HOLD messages beyond those retired (then they all are, in one
 * step), or the timers' look of the endpoint's board (every
 * MXD_ACK_PASSES passes: progress.c), or wherever p's send window is
 * read: another frame of p that is not a plain EAGER one, a NACK or
 * connect frame, the loss of p (mxd_send_ack_settle), a send to p that
 * the window holds back, a close.  It is not held at all
 * (mxd_send_ack_may_hold) when something waits for it: a message whose
 * ack is looked at closely (a send request waits for it, a round-trip
 * sample, a message sent again: p->a->note_hi), a notice, queued sends,
 * a paused endpoint.
 * Those conditions are looked at in full when a hold starts; while it
 * lasts, ep->ack_fast says none of them changed since (whatever changes
 * one of them clears it: mxd_ep_hold_changed), so that each newer ack
 * of the same partner, a ping-pong's every frame, is taken with a look
 * at the window alone.
 * A reset of p's windows drops it.
 */
#define MXD_ACKS_HOLD	16

void mxd_send_ack_hold(struct mxd_partner *p, uint32_t ack);
/* The ack ep holds (ep->ack_held not NULL), applied. */
void mxd_send_acks_apply(struct mx_endpoint *ep);
/* Of every endpoint of b. */
void mxd_send_acks_board(struct mxd_board *b);

/* Whether p's ack 'ack' (newer than its window's) may be held. */
static inline int
mxd_send_ack_may_hold(const struct mxd_partner *p, uint32_t ack)
{
	const struct mx_endpoint *ep = p->ep;
	const struct mxd_peer_act *a = p->a;

	return ack - p->tx.acked < MXD_ACKS_HOLD &&
		mxd_seq_lt(ack, p->tx.next_seq) && !ep->progression_off &&
		mxd_list_empty(&ep->sending) &&
		!mxd_seq_lt(p->tx.acked, a->note_hi) &&
		mxd_list_empty(&a->syncq) && a->notify_n == 0;
}

/* An ack that acks nothing new (a stream's receiver hears the same one
 * with every message) has nothing to hold. */
static inline void
mxd_send_ack_in(struct mxd_partner *p, uint32_t ack)
{
	struct mx_endpoint *ep = p->ep;

	if (ep->ack_fast == p) {	/* held, and nothing else changed */
		if (!mxd_seq_lt(p->a->ack_in, ack))
			return;		/* no newer than the one held */
		if (ack - p->tx.acked < MXD_ACKS_HOLD &&
				mxd_seq_lt(ack, p->tx.next_seq)) {
			assert(mxd_send_ack_may_hold(p, ack));
			p->a->ack_in = ack;
			return;
		}
	}
	if (!mxd_seq_lt(p->tx.acked, ack))
		return;
	if (ep->ack_held == p && !mxd_seq_lt(p->a->ack_in, ack))
		return;			/* no newer than the one held */
	if ((ep->ack_held == NULL || ep->ack_held == p) &&
			mxd_send_ack_may_hold(p, ack)) {
		ep->ack_held = p;	/* the usual case, inline */
		ep->ack_fast = p;
		p->a->ack_in = ack;
		return;
	}
	mxd_send_ack_hold(p, ack);
}

static inline void
mxd_send_ack_settle(struct mxd_partner *p)
{
	if (p->ep->ack_held == p)
		mxd_send_acks_apply(p->ep);
}
/* MATCHED: p matched our synchronous message 'seq'. */
void mxd_send_matched(struct mxd_partner *p, uint32_t seq);
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

/* Sends notice 'note' (kind << 32 | value) to p as a message of its own
 * if window and tx room allow (acks.c queues it otherwise); 1 if sent. */
int mxd_send_notice(struct mxd_partner *p, uint64_t note);

#endif /* MXD_SEND_H */
