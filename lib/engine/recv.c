/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving: frame dispatch, connect handling, eager reassembly, matching.
 *
 * Every frame is parsed once by mxd_wire_parse(); then the endpoint, its
 * session and filter, and the partner (index, endpoint id, session) are
 * checked before anything is done with it.  Each refusal is counted under
 * its reason.
 *
 * An eager fragment goes through the partner's receive window, which
 * says whether it is new, a duplicate or out of window.  The first
 * fragment of the next message in sequence is matched at once: against
 * the posted receives (data then goes straight into the user's buffers)
 * or, failing that, into the unexpected queue; match.c finds the receive
 * (or, for a new receive, the unexpected message) by hashing.  A message that arrives
 * ahead of an earlier one is held in a buffer until its turn to match.
 *
 * A PACK frame (several small messages of one partner, each with its own
 * sequence number) is taken record by record through the same path, as
 * if each message had come alone in an EAGER frame of one fragment; the
 * frame's ack, its partner checks and its integrity check are done once,
 * and so are what follows the messages: later ones matched, the ack
 * scheduled (an explicit one at once if any record was a copy: its
 * sender is sending again) and a hole told by SACK.
 */
#include <string.h>

#include "util/clock.h"
#include "util/config.h"
#include "partners/xmit.h"
#include "engine/acks.h"
#include "engine/face.h"
#include "engine/pull.h"
#include "engine/recv.h"
#include "engine/rndv.h"
#include "engine/send.h"
#include "engine/timers.h"
#include "engine/unexp.h"

static void
drop(struct mxd_board *b, enum mxd_drop why)
{
	mxd_count_drop(b, why);
}

/* Drops a frame of a known type for 'why', or for its check when it was
 * parsed lazily and is corrupt (so that every drop is counted right). */
static void
refuse(struct mxd_board *b, const struct mxd_pkt *pkt, enum mxd_drop why)
{
	drop(b, mxd_wire_check(pkt) ? why : MXD_DROP_CSUM);
}

/* Refuses an EAGER fragment or a PACK frame (named by its first message):
 * its sender fails the message, and every other to us. */
static void
nack(struct mxd_board *b, unsigned port, const struct mxd_pkt *pkt,
		uint8_t reason)
{
	struct mxd_hdr_args a = { .type = MXD_T_NACK };
	struct mxd_frame f;
	int local = mxd_answer_start(b, port, pkt, &a,
			sizeof(struct mxd_seq_hdr), &f);

	if (local < 0)
		return;
	mxd_wire_put_seq(f.data + MXD_HDRS_LEN, pkt->h.type == MXD_T_PACK ?
			pkt->u.pack.first_seq : pkt->u.eager.seq, reason,
			pkt->h.dst_session);
	mxd_answer_send(b, port, local, &f);
	mxd_count(b, MXD_C_NACK_SENT);
}

/* ---- eager messages ------------------------------------------------------ */

/* r (posted, or fresh and taking an unexpected message) gets a message. */
static void
recv_matched(struct mx_request *r, struct mxd_partner *p, uint64_t match,
		uint32_t len)
{
	if (r->state == MXD_RS_POSTED)
		mxd_match_unpost(r->ep, r);
	mxd_req_set_state(r, MXD_RS_MATCHED);
	mxd_partner_addr(p, &r->status.source);
	r->status.match_info = match;
	r->status.msg_length = len;
	r->status.xfer_length = len < r->length ? len : r->length;
}

void
mxd_recv_direct_any(struct mx_request *r, struct mxd_partner *p,
		uint64_t match, const uint8_t *data, uint32_t len)
{
	mx_status_code_t code = MX_STATUS_SUCCESS;

	mxd_match_unpost(r->ep, r);
	mxd_partner_addr(p, &r->status.source);
	r->status.match_info = match;
	r->status.msg_length = len;
	if (len <= r->length && r->nseg == 1) {
		mxd_copy_short(r->segs[0].segment_ptr, data, len);
	} else {
		mxd_req_scatter(r, 0, data, len);
		if (len > r->length) {
			code = MX_STATUS_TRUNCATED;
			len = r->length;
		}
	}
	r->status.xfer_length = len;
	mxd_req_done(r, code);
	mxd_count(r->ep->board, MXD_C_RX_MSGS);
}

static void
recv_finish(struct mx_request *r)
{
	mxd_req_complete(r, r->status.msg_length > r->length ?
			MX_STATUS_TRUNCATED : MX_STATUS_SUCCESS);
	mxd_count(r->ep->board, MXD_C_RX_MSGS);
}

/*
 * No receive is posted for sl: the unexpected handler, if any, may post
 * one or consume the message.  Returns the receive to use, or NULL; sets
 * *drop when the handler consumed it.
 */
static struct mx_request *
unexp_handler(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl, const uint8_t *data, int *drop)
{
	mx_endpoint_addr_t src;
	mx_unexp_handler_action_t act;
	uint32_t len = sl->msg_len;

	if (sl->rndv) {		/* a large message: its length, no data */
		struct mxd_rndv_desc d = { 0 };

		if (data != NULL)
			mxd_wire_get_rndv(data, &d);
		len = d.total_len;
		data = NULL;
	}
	mxd_partner_addr(p, &src);
	act = ep->unexp_handler(ep->unexp_context, src, sl->match, len,
			(void *)(uintptr_t)data);
	*drop = act == MX_RECV_FINISHED;
	return *drop ? NULL : mxd_match_posted(ep, sl->match);
}

static void
slot_discard(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl, const uint8_t *data)
{
	if (sl->rndv && data != NULL) {	/* consumed: release the sender */
		struct mxd_rndv_desc d;

		mxd_wire_get_rndv(data, &d);
		mxd_notice(p, MXD_NOTE_NOTIFY, d.send_handle);
	} else if (sl->sync) {		/* the handler is its match */
		mxd_notice(p, MXD_NOTE_MATCHED, sl->seq);
	}
	if (sl->owner != NULL)
		mxd_unexp_put(ep, sl->owner);	/* an early buffer */
	sl->owner = NULL;
	sl->owner_kind = MXD_OWN_DISCARD;
}

/* A receive takes sl: its data so far is nowhere yet, or in a buffer. */
static void
slot_to_request(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl, struct mx_request *r)
{
	struct mxd_unexp *u = sl->owner;

	recv_matched(r, p, sl->match, sl->msg_len);
	if (sl->sync)
		mxd_notice(p, MXD_NOTE_MATCHED, sl->seq);
	if (u == NULL) {
		sl->owner = r;
		sl->owner_kind = MXD_OWN_REQ;
	} else if (u->complete) {
		mxd_unexp_deliver(ep, u, r);
		sl->owner = NULL;		/* the buffer went back */
		sl->owner_kind = MXD_OWN_NONE;
	} else {
		u->req = r;
	}
}

static int
slot_to_unexpected(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl)
{
	struct mxd_unexp *u = sl->owner;

	if (u == NULL) {
		u = mxd_unexp_get(ep, sl->msg_len);
		if (u == NULL)
			return -1;
		sl->owner = u;
		sl->owner_kind = MXD_OWN_UNEXP;
	}
	u->partner = p;
	u->match = sl->match;
	u->sync = sl->sync;
	u->rndv = sl->rndv;
	u->seq = sl->seq;
	mxd_unexp_enqueue(ep, u);
	mxd_count(ep->board, MXD_C_UNEXP_MSGS);
	return 0;
}

/* ---- face: an endpoint of another API takes its messages itself.
 * As unexp_handler: the receive to use, or NULL, with *drop set when the
 * face consumed the message (neither: no memory now). */
static struct mx_request *
face_match(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl, const uint8_t *data, int *drop)
{
	struct mx_request *r = NULL;
	int v = mxd_face_take(ep, p, sl->rndv, sl->msg_len, data, &r);

	*drop = v == MXD_FACE_DROP;
	return v == MXD_FACE_DEPOSIT ? r : NULL;
}

/*
 * Matches slot sl, the next message of p in sequence: to the earliest
 * posted receive that wants it, else (after the unexpected handler) to the
 * unexpected queue.  'data' is the whole message if it is at hand.
 * Returns 0, -1 when out of buffers, 1 when matching is paused
 * (mx_disable_progression, or no room in the unexpected queue).
 */
static int
match_slot(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl, const uint8_t *data)
{
	struct mx_request *r;
	int drop = 0;

	if (sl->owner_kind == MXD_OWN_CTRL) {	/* applied already */
		mxd_rxwin_matched(&p->rx, sl);
		return 0;
	}
	if (ep->progression_off)
		return 1;
	r = mxd_match_posted(ep, sl->match);
	if (r == NULL && ep->face != NULL) {	/* it posts none */
		r = face_match(ep, p, sl, data, &drop);
		if (r == NULL && !drop)
			return -1;	/* not acknowledged: it comes again */
	} else if (r == NULL && ep->unexp_handler != NULL) {
		r = unexp_handler(ep, p, sl, data, &drop);
	}
	if (drop) {
		slot_discard(ep, p, sl, data);
	} else if (r != NULL) {
		slot_to_request(ep, p, sl, r);
	} else if (!mxd_unexp_room(ep, sl->msg_len)) {
		/* Held, unacknowledged: its sender's window closes. */
		if (!ep->unexp_full)
			mxd_count(ep->board, MXD_C_UNEXP_FULL);
		ep->unexp_full = 1;
		return 1;
	} else if (slot_to_unexpected(ep, p, sl) < 0) {
		return -1;
	}
	mxd_rxwin_matched(&p->rx, sl);
	return 0;
}

/* A message ahead of its turn: hold its data in a buffer. */
static int
hold_early(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl)
{
	struct mxd_unexp *u = mxd_unexp_get(ep, sl->msg_len);

	if (u == NULL)
		return -1;
	u->partner = p;
	u->match = sl->match;
	u->rndv = sl->rndv;
	sl->owner = u;
	sl->owner_kind = MXD_OWN_UNEXP;
	mxd_count(ep->board, MXD_C_EARLY_MSGS);
	return 0;
}

static void
frag_store(struct mx_endpoint *ep, struct mxd_partner *sl_partner,
		struct mxd_rxslot *sl, const struct mxd_pkt *pkt)
{
	uint32_t off = pkt->u.eager.frag_off, len = pkt->u.eager.frag_len;

	if (sl->owner_kind == MXD_OWN_DISCARD)
		return;
	if (sl->owner_kind == MXD_OWN_REQ) {
		struct mx_request *r = sl->owner;

		if (sl->rndv) {		/* one fragment: the descriptor */
			sl->owner_kind = MXD_OWN_NONE;
			mxd_pull_start(r, sl_partner, pkt->payload,
					MX_STATUS_SUCCESS);
			return;
		}
		mxd_req_scatter(r, off, pkt->payload, len);
		if (sl->complete)
			recv_finish(r);
		return;
	}
	struct mxd_unexp *u = sl->owner;

	memcpy(u->buf + off, pkt->payload, len);
	if (!sl->complete)
		return;
	u->complete = 1;
	if (u->req != NULL) {
		mxd_unexp_deliver(ep, u, u->req);
	}
}

/* The early buffer's bytes, if the whole message is in it. */
static const uint8_t *
early_data(const struct mxd_rxslot *sl)
{
	const struct mxd_unexp *u = sl->owner;

	return sl->owner_kind == MXD_OWN_UNEXP && u->complete ? u->buf : NULL;
}

void
mxd_partner_drain(struct mx_endpoint *ep, struct mxd_partner *p)
{
	struct mxd_rxslot *sl;

	if (p->rx.slot == NULL)		/* nothing held */
		return;
	/* Later messages whose header is already here may now match. */
	while ((sl = mxd_rxwin_matchable(&p->rx)) != NULL)
		if (match_slot(ep, p, sl, early_data(sl)) != 0)
			break;
	mxd_rxwin_settle(&p->rx);
	if (p->rx.top == p->rx.base)	/* nothing held: slots back */
		mxd_partner_slots_put(p);
	if (mxd_rxwin_cum_ack(&p->rx) != p->ack_sent)
		mxd_rx_ack_schedule(p);
}

/* The first fragment of a message: match it now, or hold it aside. */
static int
first_fragment(struct mx_endpoint *ep, struct mxd_partner *p,
		struct mxd_rxslot *sl, const struct mxd_pkt *pkt)
{
	int ret = 1;

	if (sl->seq == p->rx.next_match)
		ret = match_slot(ep, p, sl, sl->frag_count == 1 ?
				pkt->payload : NULL);
	if (ret == 1)
		ret = hold_early(ep, p, sl);
	return ret;
}

/*
 * A message completed while an earlier one is missing: tell the sender
 * now which arrived (an ACK with a SACK), so that it sends the missing
 * one again at once rather than at its retransmission timeout.  Once per
 * hole, and again every SACK_EVERY messages completed past it (in case
 * the message sent again was lost too).
 */
#define SACK_EVERY	16

static void
sack_prompt(struct mxd_partner *p)
{
	if (p->a->sack_hole == p->rx.base && ++p->a->sack_ooo % SACK_EVERY != 0)
		return;
	p->a->sack_hole = p->rx.base;
	p->a->sack_ooo = 0;
	if (mxd_partner_ack(p, 0) == 0)
		mxd_count(p->ep->board, MXD_C_SACKS_SENT);
}

/* A notice arrived (once: the window drops its retransmissions). */
static void
notice_apply(struct mxd_partner *p, struct mxd_rxslot *sl, uint64_t note)
{
	sl->owner = NULL;
	sl->owner_kind = MXD_OWN_CTRL;
	switch (note >> 32) {
	case MXD_NOTE_MATCHED:
		mxd_send_matched(p, (uint32_t)note);
		break;
	case MXD_NOTE_NOTIFY:
		mxd_rndv_notified(p, (uint32_t)note);
		break;
	default:		/* the parser admits no other kind */
		break;
	}
}

/*
 * One fragment of a message (an EAGER frame's, or a record of a PACK
 * frame) through the window and into its place.  Returns its verdict;
 * MXD_RX_BAD also when it was forgotten for want of a buffer.  What
 * follows (matching later messages, the ack) is the caller's.
 */
static inline __attribute__((always_inline)) enum mxd_rx_verdict
msg_frag(struct mxd_partner *p, const struct mxd_pkt *pkt,
		struct mxd_rxslot **slp)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_board *b = ep->board;
	struct mxd_rxslot *sl = NULL;
	enum mxd_rx_verdict v;

	if (p->rx.slot == NULL && mxd_partner_slots(p) < 0) {
		drop(b, MXD_DROP_NOBUF);	/* the sender sends it again */
		return MXD_RX_BAD;
	}
	v = mxd_rxwin_frag(&p->rx, pkt, &sl);

	switch (v) {
	case MXD_RX_DUP:
		/* A retransmission: our ack was lost or the message is held.
		 * The caller answers now, so the sender knows we are alive. */
		drop(b, MXD_DROP_DUP);
		return v;
	case MXD_RX_BAD:
		drop(b, MXD_DROP_FRAG);
		return v;
	case MXD_RX_WINDOW:
		drop(b, MXD_DROP_WINDOW);
		return v;
	case MXD_RX_NEW:
		*slp = sl;
		if (pkt->h.flags & MXD_F_CTRL) {
			notice_apply(p, sl, pkt->u.eager.match);
			return v;
		}
		if (first_fragment(ep, p, sl, pkt) < 0) {
			/* Out of memory for a buffer: forget the fragment,
			 * unacknowledged; the sender sends it again. */
			sl->active = 0;
			drop(b, MXD_DROP_NOBUF);
			return MXD_RX_BAD;
		}
		break;
	case MXD_RX_MORE:
		*slp = sl;
		break;
	}
	frag_store(ep, p, sl, pkt);
	return v;
}

/*
 * The common case of a ping-pong, taken without the window's slots: the
 * next message in sequence, of one fragment, nothing after it seen, and
 * a receive posted for it.  It is matched, copied and completed at once,
 * as the slot path would (match_slot, frag_store, mxd_partner_drain) with
 * nothing to hold and no hole to tell.  Notices, synchronous and large
 * messages, and messages no receive waits for (the unexpected handler,
 * the unexpected queue) take the slot path.  Returns 1 if it took pkt.
 */
/* ---- face: a message of a face's endpoint taken at once (as rx_direct
 * below does for a posted receive), its deposit copied there and then;
 * with no memory, left for its sender to send again ---- */
static __attribute__((noinline, cold)) int
face_direct(struct mxd_partner *p, const struct mxd_pkt *pkt)
{
	if (mxd_face_direct(p->ep, p, pkt->payload, pkt->u.eager.msg_len) < 0) {
		drop(p->ep->board, MXD_DROP_NOBUF);
		return 1;
	}
	mxd_rxwin_pass(&p->rx);
	mxd_rx_ack_schedule(p);
	return 1;
}

static int
rx_direct(struct mxd_partner *p, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = p->ep;
	struct mx_request *r;

	if ((pkt->h.flags & (MXD_F_CTRL | MXD_F_SYNC | MXD_F_RNDV)) ||
			pkt->u.eager.frag_count != 1 ||
			!mxd_rxwin_next_alone(&p->rx, pkt->u.eager.seq) ||
			ep->progression_off)
		return 0;
	r = mxd_match_posted(ep, pkt->u.eager.match);
	if (r == NULL)
		return ep->face != NULL ? face_direct(p, pkt) : 0;
	mxd_recv_direct(r, p, pkt->u.eager.match, pkt->payload,
			pkt->u.eager.msg_len);
	mxd_rxwin_pass(&p->rx);
	mxd_rx_ack_schedule(p);
	return 1;
}

void
mxd_rx_eager(struct mxd_partner *p, const struct mxd_pkt *pkt)
{
	struct mxd_rxslot *sl = NULL;

	if (rx_direct(p, pkt))
		return;
	switch (msg_frag(p, pkt, &sl)) {
	case MXD_RX_DUP:
		mxd_ack_send(p);
		return;
	case MXD_RX_BAD:
	case MXD_RX_WINDOW:
		return;
	case MXD_RX_NEW:
	case MXD_RX_MORE:
		break;
	}
	mxd_partner_drain(p->ep, p);
	if ((pkt->h.flags & MXD_F_CTRL) || p->rx.slot == NULL)
		return;			/* (nothing held: no hole, no part) */
	if (sl->complete && mxd_rxwin_hole(&p->rx))
		sack_prompt(p);
	else if (!sl->complete && p->frags &&
			pkt->u.eager.frag_idx == sl->frag_count - 1 &&
			sl->active && sl->seq == pkt->u.eager.seq)
		mxd_ack_send(p);	/* the tail is here, not all: say
					 * which fragments are */
}

/*
 * A PACK frame: each record is its message's one fragment, taken in
 * order as if it had come alone; then, once for the frame, later
 * messages matched, the ack scheduled (or sent at once if a record was
 * a copy: the sender is sending again) and a hole told.  A stream's
 * records, each the next message with a receive posted for it (the
 * parser checked them all), are taken as rx_direct takes a plain frame:
 * matched, copied and completed at once, without the window's slots;
 * from the first that is not, the rest take the slot path.
 */
void
mxd_rx_pack(struct mxd_partner *p, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = p->ep;
	const uint8_t *rec = pkt->payload;
	struct mxd_pkt msg;
	int dup = 0, done = 0;
	uint32_t i = 0;

	if (!ep->progression_off)
		for (; i < pkt->u.pack.count; i++) {
			uint32_t len = mxd_get16(rec + offsetof(struct
						mxd_pack_rec, len));
			uint64_t match = mxd_get64(rec + offsetof(struct
						mxd_pack_rec, match));
			struct mx_request *r;

			if (rec[offsetof(struct mxd_pack_rec, flags)] != 0 ||
					!mxd_rxwin_next_alone(&p->rx, mxd_get32(
							rec + offsetof(struct
								mxd_pack_rec,
								seq))) ||
					(r = mxd_match_posted(ep, match)) ==
					NULL)
				break;
			mxd_recv_direct_in(r, p, match,
					rec + sizeof(struct mxd_pack_rec), len,
					1);
			mxd_rxwin_pass(&p->rx);
			rec += mxd_pack_rec_size(len);
		}
	if (i == pkt->u.pack.count) {	/* all taken so */
		ep->board->counters[MXD_C_RX_PACKED] += i;
		mxd_rx_ack_schedule(p);
		return;
	}
	mxd_wire_pack_first(pkt, &msg);
	for (; i < pkt->u.pack.count; i++) {
		struct mxd_rxslot *sl = NULL;

		rec = mxd_wire_pack_next(rec, &msg);
		switch (msg_frag(p, &msg, &sl)) {
		case MXD_RX_DUP:
			dup = 1;
			break;
		case MXD_RX_NEW:
		case MXD_RX_MORE:
			if (!(msg.h.flags & MXD_F_CTRL))
				done = 1;
			else	/* applied: its turn passes, as alone */
				mxd_partner_drain(p->ep, p);
			break;
		case MXD_RX_BAD:
		case MXD_RX_WINDOW:
			break;
		}
	}
	p->ep->board->counters[MXD_C_RX_PACKED] += pkt->u.pack.count;
	mxd_partner_drain(p->ep, p);
	if (dup)
		mxd_ack_send(p);
	else if (done && mxd_rxwin_hole(&p->rx))
		sack_prompt(p);
}

/* ---- the partner of a frame ------------------------------------------------ */

/*
 * A message for a closed endpoint, an old session of it, or with the wrong
 * filter is refused with a NACK so that its sender learns why.  The
 * frames that pass come here only from mxd_rx_partner when one check
 * fails: each refusal is counted by its reason, in the order of the
 * checks.
 */
struct mxd_partner *
mxd_rx_partner_slow(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = mxd_ep_of(b, pkt->h.dst_ep);
	int eager = pkt->h.type == MXD_T_EAGER || pkt->h.type == MXD_T_PACK;
	struct mxd_partner *p;

	if (ep == NULL || pkt->h.dst_session != ep->session) {
		refuse(b, pkt, MXD_DROP_ENDPOINT);
		if (eager)
			nack(b, port, pkt, MXD_NACK_CLOSED);
		return NULL;
	}
	if (pkt->h.filter != ep->filter) {
		refuse(b, pkt, MXD_DROP_FILTER);
		if (eager)
			nack(b, port, pkt, MXD_NACK_BAD_KEY);
		return NULL;
	}
	if (pkt->h.dst_peer >= ep->npartners) {
		refuse(b, pkt, MXD_DROP_PEER);
		return NULL;
	}
	p = ep->partners[pkt->h.dst_peer];
	if (p->remote_ep != pkt->h.src_ep) {
		refuse(b, pkt, MXD_DROP_PEER);
		return NULL;
	}
	if (p->remote_session == 0 || p->remote_session != pkt->h.src_session ||
			(p->epoch_hdr && pkt->h.epoch != (uint8_t)p->epoch)) {
		/* An old session, a lost peer, or a frame sent before one
		 * side started over (delayed on another port): the new
		 * epoch numbers its messages from 1 again. */
		refuse(b, pkt, MXD_DROP_STALE);
		return NULL;
	}
	if (mxd_partner_act(p) == NULL) {
		refuse(b, pkt, MXD_DROP_NOBUF);
		return NULL;
	}
	if (!pkt->unchecked)
		mxd_rx_heard(p, port);
	p->used = 1;	/* more than a connect request: never reused */
	return p;
}
/* ---- posting receives -------------------------------------------------- */

void
mxd_recv_post(struct mx_request *r)
{
	struct mx_endpoint *ep = r->ep;
	struct mxd_unexp *u;

	if (ep->unexp_n == 0 || (u = mxd_match_unexp(ep, r->match_recv,
					r->match_mask)) == NULL) {
		mxd_req_set_state(r, MXD_RS_POSTED);
		mxd_match_post(ep, r);
		return;
	}
	mxd_unexp_dequeue(ep, u);
	recv_matched(r, u->partner, u->match, u->msg_len);
	if (u->sync)
		mxd_notice(u->partner, MXD_NOTE_MATCHED, u->seq);
	if (u->complete) {
		mxd_unexp_deliver(ep, u, r);
	} else {
		u->req = r;
	}
	if (ep->unexp_full) {
		struct mxd_list *pos, *tmp;

		/* Room again: held messages match now, in order (of the
		 * partners with traffic state: the others hold none). */
		ep->unexp_full = 0;
		mxd_list_foreach(pos, tmp, &ep->active)
			mxd_partner_drain(ep, mxd_container_of(pos,
						struct mxd_peer_act,
						active)->p);
	}
}

void
mxd_recv_cancel(struct mx_request *r)
{
	mxd_match_unpost(r->ep, r);
}

/*
 * p is lost (or restarted): receives matched to its messages that are not
 * all here fail with 'code', and its incomplete messages are forgotten.
 * Complete messages on the unexpected queue stay: they were received.  But
 * a large one there is only its announcement, and its send failed with
 * the loss: a receive that takes it fails with 'code' too, pulling
 * nothing (a restarted peer may give a new send the same handle).
 */
void
mxd_recv_partner_lost(struct mxd_partner *p, mx_status_code_t code)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->unexp) {
		struct mxd_unexp *u = mxd_container_of(pos, struct mxd_unexp,
				link);

		if (u->partner == p && u->rndv && u->fail == 0)
			u->fail = (uint8_t)code;
	}

	for (unsigned i = 0; p->rx.slot != NULL && i < MXD_WIN; i++) {
		struct mxd_rxslot *sl = &p->rx.slot[i];
		struct mxd_unexp *u;

		if (!sl->active)
			continue;
		if (sl->owner_kind == MXD_OWN_REQ && !sl->complete) {
			mxd_req_complete(sl->owner, code);
		} else if (sl->owner_kind == MXD_OWN_UNEXP) {
			u = sl->owner;
			/* Incomplete, or held early (never matched): gone. */
			if (!u->complete && u->req != NULL)
				mxd_req_complete(u->req, code);
			if (!u->complete || !u->queued)
				mxd_unexp_put(ep, u);
		}
		sl->owner = NULL;
		sl->owner_kind = MXD_OWN_NONE;
	}
}

/* Every receive posted and not matched yet fails with code (the board is
 * gone: nothing can come). */
void
mxd_recvs_fail(struct mx_endpoint *ep, mx_status_code_t code)
{
	struct mx_request *r = (struct mx_request *)ep->reqs.base;
	size_t n = ep->reqs.made / sizeof(*r);

	for (size_t i = 0; r != NULL && i < n; i++)
		if (r[i].type == MXD_REQ_RECV && r[i].state == MXD_RS_POSTED) {
			mxd_recv_cancel(&r[i]);
			mxd_req_complete(&r[i], code);
		}
}
