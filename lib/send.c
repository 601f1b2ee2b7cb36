/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending: eager messages, acknowledgements, the send window.
 *
 * An eager message is cut into fragments of the board's frag_max bytes,
 * each copied once from the user's buffers into a frame.  The frames are
 * kept (one extra reference) until the partner acknowledges the message's
 * sequence number.  Once the data is in the frames the user's buffer is
 * free again (MX "buffered", mx_ibuffered); the send completes when the
 * partner acknowledged it, and an mx_issend when the partner also matched
 * it (MATCHED).  A NACK (endpoint closed, bad filter) fails the partner's
 * sends with the matching status, so no send completes "successfully"
 * while its message was refused.
 *
 * A send that finds the window full or the tx queue without room waits on
 * its partner's send queue, in order, and is pumped when acks or tx room
 * arrive.  Acks ride on every frame to the partner; an explicit ACK goes
 * out when a quarter window is unacknowledged or MX_ACK_DELAY_US passed.
 */
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "mxd.h"

void
mxd_hdr_for(struct mxd_partner *p, uint8_t type, struct mxd_hdr_args *a)
{
	struct mx_endpoint *ep = p->ep;

	a->type = type;
	a->flags = MXD_F_ACK_VALID;
	a->src_ep = (uint8_t)ep->id;
	a->dst_ep = (uint8_t)p->remote_ep;
	a->dst_peer = p->remote_index;
	a->src_peer = p->index;
	a->filter = p->remote_filter;
	a->src_session = ep->session;
	a->dst_session = p->remote_session;
	a->ack = mxd_rxwin_cum_ack(&p->rx);
	if (a->ack != p->ack_sent && type != MXD_T_ACK)
		mxd_count(ep->board, MXD_C_ACKS_PIGGY);
	p->ack_sent = a->ack;
	if (p->ack_queued && p->notify_n == 0) {
		mxd_list_del(&p->ackq);
		p->ack_queued = 0;
	}
}

unsigned
mxd_port_room(const struct mxd_partner *p, unsigned port)
{
	const struct mxd_board *b = p->ep->board;

	return p->local ? mxd_loop_room(b) : mxd_txq_room(b, port);
}

unsigned
mxd_partner_room(const struct mxd_partner *p)
{
	return mxd_port_room(p, (unsigned)p->port);
}

void
mxd_partner_xmit_on(struct mxd_partner *p, unsigned port,
		struct mxd_frame *f)
{
	if (p->local)
		mxd_loop_push(p->ep->board, f);
	else
		mxd_txq_push(p->ep->board, port, f);
}

void
mxd_partner_xmit_sealed(struct mxd_partner *p, unsigned port,
		struct mxd_frame *f)
{
	if (p->local)
		mxd_loop_resend(p->ep->board, f);
	else
		mxd_txq_resend(p->ep->board, port, f);
}

void
mxd_partner_xmit(struct mxd_partner *p, struct mxd_frame *f)
{
	mxd_partner_xmit_on(p, (unsigned)p->port, f);
}

static int
partner_alloc(struct mxd_partner *p, struct mxd_frame *f, unsigned n)
{
	struct mxd_link *l = p->ep->board->port[p->port];

	return l->ops->alloc(l, f, n);
}

void
mxd_partner_frame_fill(struct mxd_partner *p, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], uint8_t type, uint16_t body,
		struct mxd_frame *f)
{
	struct mxd_hdr_args a;

	mxd_hdr_for(p, type, &a);
	mxd_wire_put_hdr(f->data, dst, p->ep->board->port[port]->mac, &a,
			body);
	f->len = (uint32_t)MXD_HDRS_LEN + body;
	mxd_frame_pad(f);
}

int
mxd_partner_frame_on(struct mxd_partner *p, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], uint8_t type, uint16_t body,
		struct mxd_frame *f)
{
	struct mxd_link *l = p->ep->board->port[port];

	if (l->ops->alloc(l, f, 1) != 0)
		return -MX_NO_RESOURCES;
	mxd_partner_frame_fill(p, port, dst, type, body, f);
	return 0;
}

int
mxd_partner_frame(struct mxd_partner *p, uint8_t type, uint16_t body,
		struct mxd_frame *f)
{
	return mxd_partner_frame_on(p, (unsigned)p->port, p->mac, type, body,
			f);
}

/* Bytes of r's message on the wire: its data, or an RNDV descriptor. */
static uint32_t
wire_len(const struct mx_request *r)
{
	return r->rndv ? (uint32_t)sizeof(struct mxd_rndv_desc) : r->length;
}

/* Writes fragment i of request r (sequence seq) into frame f. */
static void
eager_fill(struct mxd_partner *p, struct mx_request *r, uint32_t seq,
		unsigned i, const struct mxd_hdr_args *a, struct mxd_frame *f)
{
	struct mxd_board *b = p->ep->board;
	uint32_t total = wire_len(r), off = i * b->frag_max, len = total - off;
	uint8_t *d = f->data;

	if (len > b->frag_max)
		len = b->frag_max;
	d += mxd_wire_put_hdr(d, p->mac, b->port[p->port]->mac, a,
			(uint16_t)(sizeof(struct mxd_eager_hdr) + len));
	d += mxd_wire_put_eager(d, seq, total, r->match_recv,
			(uint16_t)b->frag_max, (uint8_t)i);
	if (r->rndv) {
		memcpy(d, r->desc + off, len);
		mxd_wire_seal(f->data);
	} else {
		/* Copied and checked in one pass over the data. */
		uint32_t c = mxd_crc_update(MXD_CRC_INIT, f->data,
				(size_t)(d - f->data));

		mxd_wire_seal_crc(f->data, mxd_req_gather_crc(r, off, d, len,
					c));
	}
	f->len = (uint32_t)(d + len - f->data);
	mxd_frame_pad(f);
}

/*
 * A message's frames are built and sealed: send them, keep them (one
 * reference) until acknowledged, and start the partner's retransmission
 * timer.  sent_at is stamped by the next timer pass, which keeps the clock
 * off this path.
 */
static void
msg_launch(struct mxd_partner *p, struct mxd_txrec *rec, unsigned n,
		uint32_t seq, struct mx_request *r)
{
	struct mxd_board *b = p->ep->board;

	b->port[0]->ops->ref(rec->frames, n);
	for (unsigned i = 0; i < n; i++)
		mxd_partner_xmit_sealed(p, (unsigned)p->port, &rec->frames[i]);
	rec->nframes = n;
	rec->seq = seq;
	rec->req = r;
	rec->sent_at = 0;
	rec->retx = 0;
	p->inflight[seq & (MXD_WIN - 1)] = rec;
	mxd_timed_add(p);
}

/* Sends a notice now if window and tx room allow; returns 1 if sent. */
static int
notice_try(struct mxd_partner *p, uint64_t note)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_board *b = ep->board;
	struct mxd_hdr_args a;
	struct mxd_txrec *rec;
	struct mxd_frame *f;
	uint32_t seq;
	uint8_t *d;

	if (mxd_txwin_full(&p->tx) || mxd_partner_room(p) == 0)
		return 0;
	rec = mxd_txrec_get(ep);
	if (rec == NULL)
		return 0;
	if (partner_alloc(p, rec->frames, 1) != 0) {
		mxd_txrec_put(ep, rec);
		return 0;
	}
	seq = mxd_txwin_take(&p->tx);
	mxd_hdr_for(p, MXD_T_EAGER, &a);
	a.flags |= MXD_F_CTRL;
	f = &rec->frames[0];
	d = f->data;
	d += mxd_wire_put_hdr(d, p->mac, b->port[p->port]->mac, &a,
			sizeof(struct mxd_eager_hdr));
	d += mxd_wire_put_eager(d, seq, 0, note, (uint16_t)b->frag_max, 0);
	f->len = (uint32_t)(d - f->data);
	mxd_frame_pad(f);
	mxd_wire_seal(f->data);
	msg_launch(p, rec, 1, seq, NULL);
	return 1;
}

/* Sends r now if window and tx room allow; returns 1 if sent. */
static int
eager_try(struct mx_request *r)
{
	struct mxd_partner *p = r->partner;
	struct mx_endpoint *ep = p->ep;
	unsigned n = mxd_frag_count(wire_len(r), ep->board->frag_max);
	struct mxd_hdr_args a;
	struct mxd_txrec *rec;
	uint32_t seq;

	if (mxd_txwin_full(&p->tx) || mxd_partner_room(p) < n)
		return 0;
	if (r->rndv && r->rndv_handle == 0 && mxd_rndv_prepare(r) < 0)
		return 0;
	rec = mxd_txrec_get(ep);
	if (rec == NULL)
		return 0;
	if (partner_alloc(p, rec->frames, n) != 0) {
		mxd_txrec_put(ep, rec);
		return 0;
	}
	seq = mxd_txwin_take(&p->tx);
	mxd_hdr_for(p, MXD_T_EAGER, &a);
	if (r->sync)
		a.flags |= MXD_F_SYNC;
	if (r->rndv)
		a.flags |= MXD_F_RNDV;
	for (unsigned i = 0; i < n; i++)
		eager_fill(p, r, seq, i, &a, &rec->frames[i]);
	msg_launch(p, rec, n, seq, r);
	mxd_count(ep->board, MXD_C_TX_MSGS);
	r->seq = seq;
	r->status.msg_length = r->status.xfer_length = r->length;
	mxd_list_del(&r->link);		/* off the send queue, if on it */
	/* A large send's buffers are read until the receiver says NOTIFY. */
	mxd_req_set_state(r, r->rndv ? MXD_RS_RNDV : MXD_RS_BUFFERED);
	return 1;
}

void
mxd_send_detach(struct mx_request *r)
{
	struct mxd_txrec *rec = r->partner->inflight[r->seq & (MXD_WIN - 1)];

	if (rec != NULL && rec->req == r)
		rec->req = NULL;
}

/* The partner has message r: complete it, or wait for MATCHED. */
static void
send_delivered(struct mxd_partner *p, struct mx_request *r)
{
	r->acked = 1;
	if (r->rndv)
		return;			/* completes on NOTIFY */
	if (!r->sync || r->matched)
		mxd_req_complete(r, MX_STATUS_SUCCESS);
	else
		mxd_list_add_tail(&p->syncq, &r->link);
}

void
mxd_send_matched(struct mxd_partner *p, uint32_t seq)
{
	struct mxd_txrec *rec = p->inflight[seq & (MXD_WIN - 1)];
	struct mxd_list *pos, *tmp;

	if (rec != NULL && rec->seq == seq && rec->req != NULL) {
		rec->req->matched = 1;	/* completes with its ack */
		return;
	}
	mxd_list_foreach(pos, tmp, &p->syncq) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (r->seq == seq) {
			mxd_req_complete(r, MX_STATUS_SUCCESS);
			return;
		}
	}
}

/*
 * Ends a send with an error.  A large send leaves the table of large
 * sends first, so no later PULL or NOTIFY can reach the request.
 */
static void
send_fail(struct mx_request *r, mx_status_code_t code)
{
	if (r->rndv)
		mxd_rndv_forget(r);
	mxd_req_complete(r, code);
}

static void
fail_list(struct mxd_list *q, mx_status_code_t code)
{
	while (!mxd_list_empty(q))
		send_fail(mxd_container_of(q->next, struct mx_request, link),
				code);
}

/* Completes every send (and sync send) to p with 'code'. */
void
mxd_partner_fail(struct mxd_partner *p, mx_status_code_t code)
{
	for (unsigned i = 0; i < MXD_WIN; i++) {
		struct mxd_txrec *rec = p->inflight[i];

		if (rec != NULL && rec->req != NULL &&
				rec->req->state != MXD_RS_COMPLETE) {
			send_fail(rec->req, code);
			rec->req = NULL;
		}
	}
	fail_list(&p->sendq, code);
	fail_list(&p->syncq, code);
	mxd_rndv_fail(p, code);
	mxd_list_del(&p->sending);
	mxd_list_del(&p->jobq);
	/*
	 * The windows stay: frames in flight may still be acked, and after
	 * mx_disconnect + mx_connect both sessions go on with the same
	 * sequence numbers.  A new session of the peer resets them.
	 */
	p->connected = 0;
	p->dead = code;
}

void
mxd_send_post(struct mx_request *r)
{
	struct mxd_partner *p = r->partner;

	if (mxd_list_empty(&p->sendq) && eager_try(r))
		return;
	mxd_req_set_state(r, MXD_RS_QUEUED);
	mxd_list_add_tail(&p->sendq, &r->link);
	if (mxd_list_empty(&p->sending))
		mxd_list_add_tail(&p->ep->sending, &p->sending);
}

void
mxd_send_pump(struct mxd_partner *p)
{
	while (!mxd_list_empty(&p->sendq)) {
		struct mx_request *r = mxd_container_of(p->sendq.next,
				struct mx_request, link);

		if (!eager_try(r))
			return;
	}
	mxd_list_del(&p->sending);
}

void
mxd_sends_pump(struct mx_endpoint *ep)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->sending)
		mxd_send_pump(mxd_container_of(pos, struct mxd_partner,
					sending));
}

static void notify_flush(struct mxd_partner *p);

void
mxd_send_acked(struct mxd_partner *p, uint32_t ack)
{
	uint32_t first;
	int n = mxd_txwin_ack(&p->tx, ack, &first);
	uint64_t sample_from = 0;

	if (n < 0) {
		mxd_count(p->ep->board, MXD_C_BAD_ACK);
		return;
	}
	for (int i = 0; i < n; i++) {
		struct mxd_txrec **slot =
			&p->inflight[(first + (uint32_t)i) & (MXD_WIN - 1)];

		if (*slot == NULL)
			continue;
		/* Karn: only messages sent once give a round-trip sample
		 * (and only those a timer pass saw: the others were fast). */
		if ((*slot)->retx == 0 && (*slot)->sent_at != 0)
			sample_from = (*slot)->sent_at;
		if ((*slot)->req != NULL)
			send_delivered(p, (*slot)->req);
		mxd_txrec_put(p->ep, *slot);
		*slot = NULL;
	}
	if (n <= 0)
		return;
	p->backoff = 0;
	if (sample_from != 0)
		mxd_rtt_sample(&p->rtt, mxd_now_ns() - sample_from);
	if (p->notify_n != 0)
		notify_flush(p);
	if (!mxd_list_empty(&p->sendq))
		mxd_send_pump(p);
}

void
mxd_ack_send(struct mxd_partner *p)
{
	struct mxd_frame f;

	if (mxd_partner_room(p) == 0 ||
			mxd_partner_frame(p, MXD_T_ACK, 0, &f) < 0)
		return;		/* the delayed-ack timer tries again */
	mxd_partner_xmit(p, &f);
	mxd_count(p->ep->board, MXD_C_ACKS_SENT);
}

void
mxd_ack_later(struct mxd_partner *p, uint64_t due)
{
	if (!p->ack_queued) {
		p->ack_due = due;
		p->ack_queued = 1;
		mxd_list_add_tail(&p->ep->board->acks, &p->ackq);
	}
}

void
mxd_notice(struct mxd_partner *p, uint8_t kind, uint32_t value)
{
	uint64_t note = (uint64_t)kind << 32 | value;

	if (p->remote_session == 0)
		return;		/* a lost partner: nobody waits for it */
	if (p->notify_n == 0 && notice_try(p, note))
		return;
	/* No room now: the ack pass sends it (in order, with the rest). */
	if (p->notify_n == p->notify_cap) {
		uint32_t cap = p->notify_cap ? 2 * p->notify_cap :
			MXD_NOTIFY_MIN;
		uint64_t *n = realloc(p->notify, cap * sizeof(*n));

		if (n == NULL) {	/* out of memory */
			mxd_count(p->ep->board, MXD_C_NOTICE_LOST);
			return;
		}
		p->notify = n;
		p->notify_cap = cap;
		mxd_count(p->ep->board, MXD_C_NOTICE_GROW);
	}
	p->notify[p->notify_n++] = note;
	mxd_ack_later(p, 0);
}

static void
notify_flush(struct mxd_partner *p)
{
	uint32_t done = 0;

	while (done < p->notify_n && notice_try(p, p->notify[done]))
		done++;
	memmove(p->notify, p->notify + done,
			(p->notify_n - done) * sizeof(p->notify[0]));
	p->notify_n -= done;
}

/*
 * Partners owing an ack (or a MATCHED notice) whose time has come.  The
 * list is detached first: a partner that still owes something after its
 * turn (tx queue full, or not due yet) goes back for the next pass.
 */
void
mxd_acks_flush(struct mxd_board *b, uint64_t now)
{
	struct mxd_list work = b->acks;

	if (mxd_list_empty(&b->acks))
		return;
	work.next->prev = &work;
	work.prev->next = &work;
	mxd_list_init(&b->acks);
	while (!mxd_list_empty(&work)) {
		struct mxd_partner *p = mxd_container_of(work.next,
				struct mxd_partner, ackq);
		uint64_t due = p->ack_due;

		mxd_list_del(&p->ackq);
		p->ack_queued = 0;
		if (p->notify_n != 0)
			notify_flush(p);	/* carries the ack too */
		if (mxd_rxwin_cum_ack(&p->rx) != p->ack_sent && now >= due)
			mxd_ack_send(p);
		if (p->notify_n != 0 ||
				mxd_rxwin_cum_ack(&p->rx) != p->ack_sent)
			mxd_ack_later(p, now >= due ? now : due);
	}
}

static int
expired(const struct mx_request *r, uint64_t now)
{
	return r->deadline != 0 && now >= r->deadline;
}

static void
expire_list(struct mxd_list *q, uint64_t now)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, q) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (expired(r, now))
			send_fail(r, MX_STATUS_TIMEOUT);
	}
}

/*
 * mx_set_request_timeout(): a send still unacknowledged at its deadline
 * completes with MX_STATUS_TIMEOUT.  Its frames stay in flight (a late
 * ack just releases them).  Run every millisecond while any request of
 * the endpoint has a deadline.
 */
void
mxd_timeouts_scan(struct mx_endpoint *ep, uint64_t now)
{
	for (uint32_t i = 0; i < ep->npartners; i++) {
		struct mxd_partner *p = ep->partners[i];

		for (unsigned s = 0; s < MXD_WIN; s++) {
			struct mxd_txrec *rec = p->inflight[s];

			if (rec != NULL && rec->req != NULL &&
					expired(rec->req, now)) {
				send_fail(rec->req, MX_STATUS_TIMEOUT);
				rec->req = NULL;
			}
		}
		expire_list(&p->sendq, now);
		expire_list(&p->syncq, now);
	}
	mxd_rndv_expire(ep, now);
}
