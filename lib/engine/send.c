/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending: eager messages, acknowledgements, the send window.
 *
 * An eager message is cut into fragments of the partner's frag_max bytes
 * (the smaller of the two sides' MTUs, learnt at connect),
 * each copied once from the user's buffers into a frame.  The frames are
 * kept (one extra reference, in a txrec) until the partner acknowledges
 * the message's sequence number, and sent again meanwhile (reliable.c).
 *
 * When a send completes (MX 1.0, mx_isend: MPI standard mode):
 *   mx_isend, eager   as soon as its data is in the frames.  The request
 *                     is done with; the txrec alone carries the message
 *                     (rec->req NULL, rec->done set) until acknowledged.
 *   mx_issend         once the partner acknowledged it and matched it
 *                     (MATCHED); "buffered" (mx_ibuffered) meanwhile.
 *   large (rndv)      once the receiver pulled it all (NOTIFY, rndv.c).
 * A send waiting on its partner's send queue (window full, no tx room)
 * completes when it leaves the queue, its data copied.
 *
 * A failure (NACK: endpoint closed, bad filter; partner lost) fails the
 * sends still pending with its status.  A message whose send completed
 * already cannot fail its request any more: it is counted
 * (MXD_C_SENDS_LOST) and its reason kept on the partner (p->unreported);
 * the next mx_isend, mx_issend or mx_iconnect towards that partner fails
 * with it, once (mxd_send_report), unless the peer started over since (a
 * new session: what its past life lost is only counted, and the first
 * message to its new life goes).  No error handler is called for it.
 *
 * A send that finds the window full or the tx queue without room waits on
 * its partner's send queue, in order, and is pumped by the next pass
 * (after every ack of its rx burst) or tx room.  Acks ride on every frame
 * to the partner; an explicit ACK goes out after MXD_ACK_EVERY
 * unacknowledged messages, or MX_ACK_DELAY_US after the first when no
 * reply carried the ack (timers.c).
 *
 * Packing: the messages that wait together on the send queue leave it
 * together -- the small ones at its head in one PACK frame, as many as
 * the partner's MTU and the window hold -- each with its own sequence
 * number and txrec, acknowledged, retransmitted (the whole frame) and
 * matched as if it had come alone.  When MX_PACK_AFTER (32) messages to
 * its partner are unacknowledged (the pipe is full), a small standard
 * send with nothing queued before it goes straight into the partner's
 * open PACK frame instead, its request done (see "the open PACK frame"
 * below), and the frame leaves at the next pass with what is posted
 * meanwhile.  A message with nothing queued before it and fewer in
 * flight goes as it always did, in an EAGER frame, at once: nothing
 * waits for company, and a ping-pong's latency is untouched; packing
 * happens when the partner (or the link) is behind, where frames per
 * message matter.  A partner that did not say MXD_CAP_PACK at connect
 * gets none.
 */
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "util/clock.h"
#include "util/config.h"
#include "partners/xmit.h"
#include "engine/face.h"
#include "engine/reliable.h"
#include "engine/rndv.h"
#include "engine/send.h"
#include "engine/shmsend.h"
#include "engine/timers.h"

/* Bytes of r's message on the wire: its data, or an RNDV descriptor
 * (and a face's head after it). */
static uint32_t
wire_len(const struct mx_request *r)
{
	return r->rndv ? (uint32_t)sizeof(struct mxd_rndv_desc) +
		mxd_face_head(r) : r->length;
}

_Static_assert(sizeof(struct mxd_rndv_desc) + MXD_RNDV_HEAD_MAX <=
		MXD_TXCOPY_MAX, "a descriptor and a face's head: a small record");

/* Payloads up to this are copied first and checked with the headers. */
#define SMALL_COPY	64

/* Writes fragment i of request r (sequence seq; header flags and ack)
 * into frame f. */
static void
eager_fill(struct mxd_partner *p, struct mx_request *r, uint32_t seq,
		unsigned i, uint8_t flags, uint32_t ack, struct mxd_frame *f)
{
	uint32_t total = wire_len(r), off = i * p->frag_max, len = total - off;
	uint8_t *d = f->data;

	if (len > p->frag_max)
		len = p->frag_max;
	d += mxd_partner_eager_hdr(p, d, flags,
			(uint16_t)(sizeof(struct mxd_eager_hdr) + len), ack);
	d += mxd_wire_put_eager(d, seq, total, r->match_recv, p->frag_max,
			(uint8_t)i);
	if (r->rndv) {
		memcpy(d, r->desc + off, len);
		mxd_wire_seal(f->data);
	} else if (len <= SMALL_COPY) {
		/* A few bytes: copied, then checked with the headers in one
		 * call (a pass of its own over them would cost more). */
		mxd_req_gather(r, off, d, len);
		mxd_wire_seal_crc(f->data, mxd_crc_frame(f->data,
					(size_t)(d + len - f->data)));
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
 * A message is in the record (its frames, with the reference the caller
 * took, or its data): keep it until acknowledged.  The record keeps the
 * send r only if r waits for the ack (issend, large); a standard-mode
 * send completes now (msg_taken) and the record remembers only that it
 * did.  sent_at is stamped by the next timer pass, which keeps the clock
 * off this path.
 */
static void
msg_keep(struct mxd_partner *p, struct mxd_txrec *rec, unsigned n,
		uint32_t seq, struct mx_request *r)
{
	rec->nframes = (uint8_t)n;
	rec->seq = seq;
	rec->refs = 1;
	rec->nmsgs = 1;
	rec->done = r != NULL && !r->sync && !r->rndv;
	rec->req = rec->done ? NULL : r;
	if (rec->req != NULL)		/* its ack is applied at once */
		mxd_txrec_note(p->a, rec);
	rec->sent_at = 0;
	rec->retx = 0;
	rec->have = 0;
	rec->have_rto = 0;
	rec->rto_still = 0;
	rec->sent = mxd_frames_mask(n);
	p->a->inflight[seq & (MXD_WIN - 1)] = rec;
}

/*
 * A message of one frame with at most MXD_TXCOPY_MAX bytes ('len' of
 * them at 'data', copied into a small record): built and sent (at once,
 * 'now', as msg_launch), its data kept until acknowledged (endpoint.h).
 * r: the send, NULL for a notice.  Returns its record, or NULL when the
 * record or the frame could not be had (nothing sent).
 */
static struct mxd_txrec *
small_launch(struct mxd_partner *p, struct mx_request *r, uint8_t flags,
		uint64_t match, const uint8_t *data, uint32_t len, int now)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_txrec *rec = mxd_txsmall_get(ep);
	struct mxd_frame f;
	uint32_t seq;

	if (rec == NULL)
		return NULL;
	if (mxd_partner_alloc(p, (unsigned)p->port, &f, 1) != 0) {
		mxd_txrec_put(ep, rec);
		return NULL;
	}
	seq = mxd_txwin_take(&p->tx);
	if (r != NULL && !r->rndv) {
		mxd_req_gather(r, 0, rec->data, len);
	} else if (len <= sizeof(struct mxd_rndv_desc)) {
		mxd_copy_short(rec->data, data, len);
	} else {	/* a face's descriptor, its head after it */
		memcpy(rec->data, data, sizeof(struct mxd_rndv_desc));
		mxd_req_gather(r, 0, rec->data + sizeof(struct mxd_rndv_desc),
				len - (uint32_t)sizeof(struct mxd_rndv_desc));
	}
	mxd_partner_small_frame(p, &f, seq, flags, match, rec->data, len,
			mxd_ack_for(p, MXD_T_EAGER));
	if (now)
		mxd_partner_xmit_now(p, (unsigned)p->port, &f);
	else
		mxd_partner_xmit_on(p, (unsigned)p->port, &f, 1);
	rec->flags = flags;
	rec->match = match;
	rec->len = len;
	msg_keep(p, rec, 1, seq, r);
	mxd_timer_watch(p);
	return rec;
}

/*
 * A message's frames are built and sealed: send them, keep them until
 * acknowledged, and start the partner's retransmission timer.  'now':
 * a send call's message (mxd_send_post), which the call flushes at once
 * anyway: a lone frame goes to the PMD here (mxd_partner_xmit_now), so
 * that the bookkeeping after it overlaps with its way to the peer.
 */
static void
msg_launch(struct mxd_partner *p, struct mxd_txrec *rec, unsigned n,
		uint32_t seq, struct mx_request *r, int now)
{
	struct mxd_board *b = p->ep->board;

	mxd_board_ref(b, rec->frames, n);
	if (now && n == 1)
		mxd_partner_xmit_now(p, (unsigned)p->port, &rec->frames[0]);
	else
		for (unsigned i = 0; i < n; i++)
			mxd_partner_xmit_on(p, (unsigned)p->port,
					&rec->frames[i], 1);
	msg_keep(p, rec, n, seq, r);
	mxd_timer_watch(p);
}

/* r's message is in frames (sequence seq, record rec): r leaves the send
 * queue, and completes if it waits for nothing more. */
static void
msg_taken(struct mx_request *r, const struct mxd_txrec *rec, uint32_t seq)
{
	mxd_count(r->ep->board, MXD_C_TX_MSGS);
	r->seq = seq;
	r->status.msg_length = r->status.xfer_length = r->length;
	mxd_list_del(&r->link);		/* off the send queue, if on it */
	if (rec->done)			/* standard mode: buffers free, done */
		mxd_req_complete(r, MX_STATUS_SUCCESS);
	else if (r->rndv)		/* buffers read until NOTIFY */
		mxd_req_set_state(r, MXD_RS_RNDV);
	else				/* issend: waits for ack and MATCHED */
		mxd_req_set_state(r, MXD_RS_BUFFERED);
}

int
mxd_send_notice(struct mxd_partner *p, uint64_t note)
{
	if (mxd_txwin_full(&p->tx) || mxd_partner_room(p) == 0)
		return 0;
	return small_launch(p, NULL, MXD_F_CTRL, note, NULL, 0, 0) != NULL;
}

/* r's message in n frames, each with a reference kept in a record;
 * returns the record, or NULL when records or frames ran short. */
static struct mxd_txrec *
frames_launch(struct mxd_partner *p, struct mx_request *r, unsigned n,
		uint8_t flags, int now)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_txrec *rec = mxd_txrec_get(ep);
	uint32_t seq, ack;

	if (rec == NULL)
		return NULL;
	if (mxd_partner_alloc(p, (unsigned)p->port, rec->frames, n) != 0) {
		mxd_txrec_put(ep, rec);
		return NULL;
	}
	seq = mxd_txwin_take(&p->tx);
	ack = mxd_ack_for(p, MXD_T_EAGER);
	for (unsigned i = 0; i < n; i++)
		eager_fill(p, r, seq, i, flags, ack, &rec->frames[i]);
	msg_launch(p, rec, n, seq, r, now);
	return rec;
}

/* Sends r now if window and tx room allow; returns 1 if sent.  'now':
 * from the send call (msg_launch).  A message of one frame and a few
 * bytes keeps its data (small_launch), any other its frames. */
static int
eager_try(struct mx_request *r, int now)
{
	struct mxd_partner *p = r->partner;
	const struct mxd_txrec *rec;
	uint8_t flags = 0;
	uint32_t len;
	unsigned n;

	/* Posted before a reconnect lowered the partner's MTU: too many
	 * fragments now, so it goes as a large message. */
	if (!r->rndv && r->length > p->eager_max)
		r->rndv = 1;
	len = wire_len(r);
	n = mxd_frag_count(len, p->frag_max);
	if (r->rndv && n != 1) {
		/* A face's descriptor and head beyond a partner's tiny MTU:
		 * it cannot go (a descriptor comes in one fragment). */
		mxd_req_complete(r, MX_STATUS_NO_RESOURCES);
		return 1;
	}
	if (mxd_txwin_full(&p->tx) || mxd_partner_room(p) < n)
		return 0;
	if (r->rndv && r->rndv_handle == 0 && mxd_rndv_prepare(r) < 0)
		return 0;
	if (r->sync)
		flags |= MXD_F_SYNC;
	if (r->rndv)
		flags |= MXD_F_RNDV;
	if (n == 1 && len <= MXD_TXCOPY_MAX)
		rec = small_launch(p, r, flags, r->match_recv, r->desc, len,
				now);
	else
		rec = frames_launch(p, r, n, flags, now);
	if (rec == NULL)
		return 0;
	msg_taken(r, rec, rec->seq);
	return 1;
}

/* ---- packing --------------------------------------------------------------
 *
 * A message that goes alone goes as it always did, in EAGER frames of its
 * own, at once: nothing ever waits for company.  Messages that wait
 * together on the partner's send queue (its window was full, the tx
 * queue had no room, or MX_PACK_AFTER messages were in flight: goes_now)
 * leave it together at the next pass: the small ones at its head share
 * PACK frames, as many as the partner's MTU holds (and the window
 * admits).  Each keeps its own sequence number; they share one record
 * of the frame (every slot of theirs in the window names it), so a
 * message sent again sends the whole frame (the receiver's window drops
 * the others' copies), and the frame goes back when the last of them is
 * acked.  A synchronous send of a PACK frame waits for its ack and its
 * MATCHED notice on the partner's syncq (r->acked says which came).
 */

/* Bytes after the common header that a PACK frame to p may carry. */
static uint32_t
pack_room(const struct mxd_partner *p)
{
	return p->mtu - (uint32_t)sizeof(struct mxd_hdr);
}

/* r may share a frame: data of one fragment, small enough that two such
 * messages fit one frame. */
static int
packable(const struct mxd_partner *p, const struct mx_request *r)
{
	return !r->rndv && r->length <= p->eager_max &&
		2 * mxd_pack_rec_size(r->length) +
		sizeof(struct mxd_pack_hdr) <= pack_room(p);
}

/* How many messages at the head of p's send queue go in one PACK frame
 * (and its length after the common header, in *bytes). */
static unsigned
pack_plan(struct mxd_partner *p, uint32_t *bytes)
{
	uint32_t room = pack_room(p), used = sizeof(struct mxd_pack_hdr);
	uint32_t win = MXD_WIN - mxd_txwin_in_flight(&p->tx);
	unsigned n = 0;

	for (struct mxd_list *pos = p->a->sendq.next; pos != &p->a->sendq &&
			n < win && n < MXD_PACK_MAX; pos = pos->next) {
		const struct mx_request *r = mxd_container_of(pos,
				struct mx_request, link);
		uint32_t size = mxd_pack_rec_size(r->length);

		if (!packable(p, r) || used + size > room)
			break;
		used += size;
		n++;
	}
	*bytes = used;
	return n;
}

/* Writes r's record (sequence seq) at d; returns where the next goes. */
static uint8_t *
pack_put(struct mx_request *r, uint32_t seq, uint8_t *d)
{
	uint32_t len = r->length;

	size_t pad;

	d += mxd_wire_put_pack_rec(d, seq, (uint16_t)len,
			r->sync ? MXD_F_SYNC : 0, r->match_recv);
	pad = mxd_wire_pack_zero(d, len);
	if (r->nseg == 1)
		mxd_copy_short(d, r->segs[0].segment_ptr, len);
	else
		mxd_req_gather(r, 0, d, len);
	return d + len + pad;
}

/*
 * Sends the n messages at the head of p's send queue in one PACK frame
 * of 'bytes' after the common header, with one record for them all;
 * returns 1, or 0 (nothing sent) when the tx queue, the frame pool or the
 * records ran short.
 */
static int
pack_send(struct mxd_partner *p, unsigned n, uint32_t bytes)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_board *b = ep->board;
	struct mxd_txrec *rec;
	struct mxd_hdr_args a;
	struct mxd_frame *f;
	uint8_t *d;

	if (mxd_partner_room(p) == 0 || (rec = mxd_txrec_get(ep)) == NULL)
		return 0;
	f = &rec->frames[0];
	if (mxd_partner_alloc(p, (unsigned)p->port, f, 1) != 0) {
		mxd_txrec_put(ep, rec);
		return 0;
	}
	mxd_hdr_for(p, MXD_T_PACK, &a);
	d = f->data + mxd_wire_put_hdr(f->data, p->mac,
			b->port[p->port]->mac, &a, (uint16_t)bytes);
	d += mxd_wire_put_pack(d, (uint16_t)n);
	f->len = (uint32_t)MXD_HDRS_LEN + bytes;
	mxd_frame_pad(f);
	msg_keep(p, rec, 1, p->tx.next_seq, NULL);
	rec->refs = (uint16_t)n;
	rec->nmsgs = (uint16_t)n;
	rec->done = 1;		/* synchronous sends: on syncq (see above) */
	for (unsigned i = 0; i < n; i++) {
		struct mx_request *r = mxd_container_of(p->a->sendq.next,
				struct mx_request, link);
		uint32_t seq = mxd_txwin_take(&p->tx);

		d = pack_put(r, seq, d);
		p->a->inflight[seq & (MXD_WIN - 1)] = rec;
		r->seq = seq;
		mxd_list_del(&r->link);
		if (r->sync) {
			mxd_req_set_state(r, MXD_RS_BUFFERED);
			mxd_ep_hold_changed(p->ep);
			mxd_list_add_tail(&p->a->syncq, &r->link);
			continue;
		}
		/* Standard mode: its buffers free, done (msg_taken's). */
		r->status.msg_length = r->status.xfer_length = r->length;
		mxd_req_done(r, MX_STATUS_SUCCESS);
	}
	b->counters[MXD_C_TX_MSGS] += n;
	mxd_board_ref(b, f, 1);
	mxd_partner_xmit(p, f);		/* checked now, all records written */
	mxd_timer_watch(p);
	b->counters[MXD_C_TX_PACKED] += n;
	mxd_count(b, MXD_C_TX_PACKS);
	return 1;
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
	else {
		mxd_ep_hold_changed(p->ep);
		mxd_list_add_tail(&p->a->syncq, &r->link);
	}
}

/* The synchronous sends of PACK frames that p's ack 'ack' covers (on
 * syncq, not acked yet): complete, or wait there for MATCHED. */
static void
syncq_acked(struct mxd_partner *p, uint32_t ack)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &p->a->syncq) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (r->acked || mxd_seq_lt(ack, r->seq))
			continue;
		r->acked = 1;
		if (r->matched)
			mxd_req_complete(r, MX_STATUS_SUCCESS);
	}
}

void
mxd_send_matched(struct mxd_partner *p, uint32_t seq)
{
	struct mxd_txrec *rec = p->a->inflight[seq & (MXD_WIN - 1)];
	struct mxd_list *pos, *tmp;

	if (rec != NULL && mxd_txrec_has(rec, seq) && rec->req != NULL) {
		rec->req->matched = 1;	/* completes with its ack */
		return;
	}
	mxd_list_foreach(pos, tmp, &p->a->syncq) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (r->seq != seq)
			continue;
		if (r->acked)
			mxd_req_complete(r, MX_STATUS_SUCCESS);
		else
			r->matched = 1;	/* of a PACK frame: its ack next */
		return;
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

void
mxd_sends_lost(struct mxd_partner *p, mx_status_code_t code)
{
	struct mxd_list *pos, *tmp;
	uint32_t n = 0;

	if (p->a == NULL)		/* nothing in flight */
		return;
	/* A message each (those of a PACK frame share a record), then
	 * each counted once. */
	for (unsigned i = 0; i < MXD_WIN; i++)
		n += p->a->inflight[i] != NULL && p->a->inflight[i]->done;
	for (unsigned i = 0; i < MXD_WIN; i++)
		if (p->a->inflight[i] != NULL)
			p->a->inflight[i]->done = 0;
	/* A synchronous send of a PACK frame not acked yet still has its
	 * request, which fails (its record counted it). */
	mxd_list_foreach(pos, tmp, &p->a->syncq) {
		const struct mx_request *r = mxd_container_of(pos,
				struct mx_request, link);

		n -= !r->acked && n > 0;
	}
	if (n == 0)
		return;
	p->ep->board->counters[MXD_C_SENDS_LOST] += n;
	if (p->unreported == MX_STATUS_SUCCESS) {
		p->unreported = code;
		mxd_partner_fast(p);
		p->unreported_session = p->remote_session;
	}
}

mx_status_code_t
mxd_send_unreported(struct mxd_partner *p)
{
	mx_status_code_t code = p->unreported;

	p->unreported = MX_STATUS_SUCCESS;
	mxd_partner_fast(p);
	if (p->unreported_session != p->remote_session &&
			p->remote_session != 0)
		return MX_STATUS_SUCCESS;	/* a past life's: counted */
	return code;
}

mx_status_code_t
mxd_send_report_any(struct mxd_partner *p)
{
	mx_status_code_t code = mxd_send_unreported(p);

	if (code == MX_STATUS_SUCCESS && !mxd_partner_up(p))
		code = p->fail;			/* refused or lost: say so */
	return code;
}

static int open_close(struct mxd_partner *p);

void
mxd_sends_fail(struct mxd_partner *p, mx_status_code_t code)
{
	if (p->a == NULL)		/* nothing going on */
		return;
	for (unsigned i = 0; i < MXD_WIN; i++) {
		struct mxd_txrec *rec = p->a->inflight[i];

		if (rec != NULL && rec->req != NULL &&
				rec->req->state != MXD_RS_COMPLETE) {
			send_fail(rec->req, code);
			rec->req = NULL;
		}
	}
	fail_list(&p->a->sendq, code);
	fail_list(&p->a->syncq, code);
	mxd_rndv_fail(p, code);
	/* The open frame's messages completed: they go, as those in
	 * flight (the send step closes it if the tx queue is full now). */
	if (p->a->open == NULL || open_close(p))
		mxd_list_del(&p->a->sending);
	mxd_list_del(&p->a->jobq);
	/*
	 * The windows stay: frames in flight may still be acked, and after
	 * mx_disconnect + mx_connect both sessions go on with the same
	 * sequence numbers.  A new session of the peer resets them.
	 */
}

/*
 * Whether r goes now: nothing queued before it, and -- if it could share
 * a frame -- fewer than MX_PACK_AFTER messages of its partner in flight
 * (else the pipe is full anyway: r leaves at the next pass, packed with
 * whatever is posted meanwhile).  A message alone always goes now.
 */
static int
goes_now(struct mxd_partner *p, const struct mx_request *r)
{
	return mxd_list_empty(&p->a->sendq) && p->a->open == NULL && (!p->pack ||
			mxd_txwin_in_flight(&p->tx) < mxd_conf.pack_after ||
			!packable(p, r));
}

/* ---- the open PACK frame ---------------------------------------------------
 *
 * A small standard send that the window holds back (MX_PACK_AFTER
 * messages in flight: the pipe is full) with nothing queued before it is
 * written at once into its partner's open PACK frame (p->a->open, a
 * record holding its frame): it takes its sequence number and its slot
 * in the window, its data is copied, its request completes (standard
 * mode: as a send that leaves the queue).  The pass's send step
 * (mxd_send_pump) closes the frame -- the common header with the ack of
 * the moment, the count, the check -- and sends it with whatever was
 * written meanwhile: the sends of a burst share a frame without waiting
 * on the queue as requests, and without a second look at them.  A
 * record too large for the frame's room closes it and opens another.
 * Until it is closed the frame is its partner's alone: the send step
 * comes before the timers' look (progress.c), sends that must wait
 * queue behind it, and a reset of the partner's windows drops it.
 */

/* Closes p's open frame and sends it: 1, or 0 (kept open) when the tx
 * queue has no room. */
static int
open_close(struct mxd_partner *p)
{
	struct mxd_peer_act *a = p->a;
	struct mxd_txrec *rec = a->open;
	struct mxd_board *b = p->ep->board;
	struct mxd_frame *f = &rec->frames[0];
	struct mxd_hdr_args h;

	if (mxd_partner_room(p) == 0)
		return 0;
	mxd_hdr_for(p, MXD_T_PACK, &h);
	mxd_wire_put_hdr(f->data, p->mac, b->port[p->port]->mac, &h,
			(uint16_t)a->open_used);
	mxd_wire_put_pack(f->data + MXD_HDRS_LEN, rec->nmsgs);
	f->len = (uint32_t)MXD_HDRS_LEN + a->open_used;
	mxd_frame_pad(f);
	a->open = NULL;
	rec->refs = rec->nmsgs;		/* a slot each */
	mxd_board_ref(b, f, 1);
	mxd_partner_xmit(p, f);		/* checked now, all records written */
	mxd_timer_watch(p);
	b->counters[MXD_C_TX_MSGS] += rec->nmsgs;
	b->counters[MXD_C_TX_PACKED] += rec->nmsgs;
	mxd_count(b, MXD_C_TX_PACKS);
	return 1;
}

/* Opens a frame for p (a record of frames, one allocated): 0, or -1
 * when a pool is empty. */
static int
open_start(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_txrec *rec = mxd_txrec_get(ep);

	if (rec == NULL)
		return -1;
	if (mxd_partner_alloc(p, (unsigned)p->port, &rec->frames[0], 1)) {
		mxd_txrec_put(ep, rec);
		return -1;
	}
	rec->nframes = 1;
	rec->seq = p->tx.next_seq;
	rec->refs = 0;			/* a slot each, when closed */
	rec->nmsgs = 0;
	rec->done = 1;
	rec->req = NULL;
	rec->sent_at = 0;
	rec->retx = 0;
	rec->have = 0;
	rec->have_rto = 0;
	rec->rto_still = 0;
	rec->sent = mxd_frames_mask(1);
	p->a->open = rec;
	p->a->open_used = sizeof(struct mxd_pack_hdr);
	p->a->open_left = pack_room(p) - p->a->open_used;
	if (mxd_list_empty(&p->a->sending)) {	/* the send step closes it */
		mxd_ep_hold_changed(ep);
		mxd_list_add_tail(&ep->sending, &p->a->sending);
		mxd_ep_busy(ep, MXD_EW_SENDS);
	}
	return 0;
}

/* A small standard send held back (mxd_send_small) into p's open frame:
 * its request, done; NULL (nothing done) when it cannot go there. */
static struct mx_request *
open_put(struct mx_endpoint *ep, struct mxd_partner *p,
		const mx_segment_t *seg, uint64_t match, void *context)
{
	struct mxd_peer_act *a = p->a;
	uint32_t len = seg->segment_length, size = mxd_pack_rec_size(len);
	struct mx_request *r;

	if (!p->pack || !mxd_list_empty(&a->sendq) || ep->progression_off ||
			mxd_txwin_full(&p->tx) ||
			2 * size + sizeof(struct mxd_pack_hdr) > pack_room(p) ||
			ep->reqs.free == NULL)
		return NULL;
	if (a->open != NULL && (a->open_used + size > pack_room(p) ||
				a->open->nmsgs == MXD_PACK_MAX) &&
			!open_close(p))
		return NULL;
	if (a->open == NULL && open_start(p) < 0)
		return NULL;
	r = mxd_send_open_write(ep, p, seg, len, match, context);
	a->open_left = pack_room(p) - a->open_used;	/* sendq empty */
	return r;
}

/* r (a small standard send, fresh) waits on p's send queue, in order:
 * the next pass sends it, packed with those that wait with it. */
static void
queue_send(struct mxd_partner *p, struct mx_request *r)
{
	mxd_req_set_state(r, MXD_RS_QUEUED);
	mxd_list_add_tail(&p->a->sendq, &r->link);
	p->a->open_left = 0;		/* mx_isend's sends queue behind */
	if (mxd_list_empty(&p->a->sending)) {
		mxd_ep_hold_changed(p->ep);
		mxd_list_add_tail(&p->ep->sending, &p->a->sending);
		mxd_ep_busy(p->ep, MXD_EW_SENDS);
	}
}

/* mx_isend's common case (send.h), all of it; mxd_send_now inline. */
struct mx_request *
mxd_send_small(struct mx_endpoint *ep, struct mxd_partner *p,
		const mx_segment_t *seg, uint64_t match, void *context)
{
	uint32_t len = seg->segment_length;
	struct mx_request *r;
	struct mxd_frame f;

	if (!mxd_list_empty(&p->a->sendq) || p->a->open != NULL ||
			mxd_txwin_in_flight(&p->tx) >= p->fly_max) {
		/* Held back by the window, perhaps for want of a held ack. */
		if (ep->ack_held == p)
			mxd_send_acks_apply(ep);
		if (!mxd_list_empty(&p->a->sendq) || p->a->open != NULL ||
				mxd_txwin_in_flight(&p->tx) >= p->fly_max) {
			if ((r = open_put(ep, p, seg, match, context)) != NULL)
				return r;
			if (ep->reqs.free == NULL)
				return NULL;
			r = mxd_req_take(&ep->reqs, MXD_REQ_SEND,
					MXD_RS_FREE);
			r->partner = p;
			r->rndv_handle = 0;
			r->nseg = 1;
			r->segs[0] = *seg;
			r->length = len;
			r->match_recv = match;
			r->status.code = MX_STATUS_PENDING;
			mxd_partner_addr(p, &r->status.source);
			r->status.match_info = match;
			r->status.msg_length = len;
			r->status.xfer_length = 0;
			r->status.context = context;
			queue_send(p, r);
			return r;
		}
	}
	if (mxd_partner_room(p) == 0 || (ep->reqs.free == NULL &&
				mxd_reqpool_grow(&ep->reqs) < 0) ||
			(ep->free_txsmall == NULL &&
			 mxd_txrec_grow(ep, 1) < 0) ||
			mxd_partner_alloc(p, (unsigned)p->port, &f, 1) != 0)
		return NULL;
	return mxd_send_frame(ep, p, &f, seg, match, context, NULL);
}

void
mxd_send_post(struct mx_request *r)
{
	struct mxd_partner *p = r->partner;

	if (p->shm) {			/* same host: its ring, not frames */
		mxd_shm_send(r);
		return;
	}
	if (mxd_partner_act(p) == NULL) {	/* out of memory */
		mxd_req_complete(r, MX_STATUS_NO_RESOURCES);
		return;
	}
	if (goes_now(p, r) && eager_try(r, 1))
		return;
	/* Held back by the window, perhaps for want of a held ack. */
	if (p->ep->ack_held == p) {
		mxd_send_acks_apply(p->ep);
		if (goes_now(p, r) && eager_try(r, 1))
			return;
	}
	queue_send(p, r);
}

void
mxd_send_pump(struct mxd_partner *p)
{
	if (p->a->open != NULL && !open_close(p))
		return;
	while (!mxd_list_empty(&p->a->sendq)) {
		struct mx_request *r = mxd_container_of(p->a->sendq.next,
				struct mx_request, link);
		uint32_t bytes;
		unsigned n = p->pack ? pack_plan(p, &bytes) : 0;

		if (n >= 2 ? !pack_send(p, n, bytes) : !eager_try(r, 0))
			return;
	}
	mxd_list_del(&p->a->sending);
}

void
mxd_sends_close(struct mx_endpoint *ep)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->sending) {
		struct mxd_partner *p = mxd_container_of(pos,
				struct mxd_peer_act, sending)->p;

		if (p->a->open != NULL)
			open_close(p);
	}
}

void
mxd_sends_pump(struct mx_endpoint *ep)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->sending)
		mxd_send_pump(mxd_container_of(pos, struct mxd_peer_act,
					sending)->p);
}

/*
 * rec, a PACK frame's record whose first message's slot (s) was just let
 * go: if its other messages are acked by 'ack' too (and none of them
 * before), their slots are emptied at once and it goes back to the pool.
 * Returns the slots so emptied past s (0: none; the loop takes them one
 * by one).
 */
static __attribute__((noinline)) uint32_t
pack_acked(struct mxd_partner *p, struct mxd_txrec *rec, uint32_t s,
		uint32_t ack)
{
	struct mxd_txrec **in = p->a->inflight;
	uint32_t n = rec->refs, i = (s + 1) & (MXD_WIN - 1), k;

	if (n != rec->nmsgs - 1u || mxd_seq_lt(ack, s + n))
		return 0;
	k = MXD_WIN - i < n ? MXD_WIN - i : n;
	memset(&in[i], 0, k * sizeof(*in));
	if (k < n)
		memset(in, 0, (n - k) * sizeof(*in));
	rec->refs = 0;
	mxd_txrec_put(p->ep, rec);
	return n;
}

/*
 * The records of messages from..ack, acked, that need no close look (no
 * request, sample or resend): each slot emptied, each record whose last
 * slot that was back to its pool.  The small ones (a message each, the
 * common case: one slot, so no count of slots to keep) are chained here
 * and go back in one splice at the end: no load or store of the pool's
 * head per record.
 */
static __attribute__((noinline)) void
acked_quiet(struct mxd_partner *p, uint32_t from, uint32_t ack)
{
	struct mxd_txrec **in = p->a->inflight;
	struct mx_endpoint *ep = p->ep;
	struct mxd_txrec *head = NULL, **tail = &head;

	for (uint32_t s = from; s != ack + 1; s++) {
		struct mxd_txrec *rec = in[s & (MXD_WIN - 1)];

		if (rec == NULL)
			continue;
		in[s & (MXD_WIN - 1)] = NULL;
		if (rec->small) {	/* one slot: its last */
			*tail = rec;
			tail = &rec->pool_next;
			continue;
		}
		if (--rec->refs != 0) {
			if (rec->seq == s)	/* a PACK frame's first */
				s += pack_acked(p, rec, s, ack);
			continue;
		}
		mxd_txrec_put(ep, rec);
	}
	*tail = ep->free_txsmall;
	ep->free_txsmall = head;
}

/* mxd_send_acked's every case. */
static __attribute__((noinline)) void
send_acked_any(struct mxd_partner *p, uint32_t ack)
{
	uint32_t first;
	int n = mxd_txwin_ack(&p->tx, ack, &first), close = n;
	uint64_t sample_from = 0;
	int held = 0;

	if (n <= 0) {
		if (n < 0)
			mxd_count(p->ep->board, MXD_C_BAD_ACK);
		return;
	}
	/* Those up to p->a->note_hi are looked at closely, the others
	 * (no request, sample or resend) only go back. */
	if (!mxd_seq_lt(first - 1, p->a->note_hi))
		close = 0;
	else if (mxd_seq_lt(p->a->note_hi, ack))
		close = (int)(p->a->note_hi - first + 1);
	if (close != (int)n)
		acked_quiet(p, first + (uint32_t)close, ack);
	for (int i = 0; i < close; i++) {
		struct mxd_txrec **slot =
			&p->a->inflight[(first + (uint32_t)i) & (MXD_WIN - 1)];

		if (*slot == NULL)
			continue;
		/* Karn: only messages sent once give a round-trip sample
		 * (and only those a timer pass saw: the others were fast).
		 * An ack that also covers a message sent again was held back
		 * by that message's loss: the messages behind it had arrived
		 * long before, and their time to this ack is the recovery's,
		 * not a round trip (taken, it made the estimate grow with
		 * every loss, and the timeout with it, to MX_RTO_MAX_MS). */
		held |= (*slot)->retx != 0;
		if ((*slot)->retx == 0 && (*slot)->sent_at != 0)
			sample_from = (*slot)->sent_at;
		if ((*slot)->req != NULL)
			send_delivered(p, (*slot)->req);
		mxd_txrec_drop(p->ep, *slot);
		*slot = NULL;
	}
	if (!mxd_list_empty(&p->a->syncq))
		syncq_acked(p, ack);
	p->a->backoff = 0;
	if (sample_from != 0 && !held)
		mxd_rtt_sample(&p->a->rtt, mxd_now_ns() - sample_from);
	/* Notices that waited for the window (p->a->notify_n) go at the next
	 * pass's look at the ack timers, which they armed due at once. */
	/* Sends waiting for the window go in the pass's send step, once
	 * every ack of the rx burst is in: together, packed.  A paused
	 * endpoint (mx_disable_progression) has no send step. */
	if (!mxd_list_empty(&p->a->sendq) && p->ep->progression_off)
		mxd_send_pump(p);
}

/*
 * The usual ack: of messages none of which is looked at closely
 * (p->a->note_hi behind them), no synchronous send or queued one
 * waiting: the window moves and its records go back, with nothing else
 * to do; one no newer than the last, nothing at all (send_acked_any
 * does every other case).
 */
void
mxd_send_acked(struct mxd_partner *p, uint32_t ack)
{
	struct mxd_peer_act *a = p->a;
	uint32_t acked = p->tx.acked;

	if (!mxd_seq_lt(acked, ack))
		return;
	if (!mxd_seq_lt(ack, p->tx.next_seq) || mxd_seq_lt(acked, a->note_hi) ||
			!mxd_list_empty(&a->syncq) ||
			!mxd_list_empty(&a->sendq)) {
		send_acked_any(p, ack);
		return;
	}
	p->tx.acked = ack;
	a->backoff = 0;
	acked_quiet(p, acked + 1, ack);
}

void
mxd_send_ack_hold(struct mxd_partner *p, uint32_t ack)
{
	struct mx_endpoint *ep = p->ep;

	/* The one held (this partner's, its batch full; or another's):
	 * applied first, in the order received. */
	if (ep->ack_held != NULL)
		mxd_send_acks_apply(ep);
	if (mxd_seq_lt(p->tx.acked, ack) && mxd_send_ack_may_hold(p, ack)) {
		ep->ack_held = p;
		ep->ack_fast = p;
		p->a->ack_in = ack;
		return;
	}
	mxd_send_acked(p, ack);
}

void
mxd_send_acks_apply(struct mx_endpoint *ep)
{
	struct mxd_partner *p = ep->ack_held;

	ep->ack_held = NULL;
	ep->ack_fast = NULL;
	mxd_send_acked(p, p->a->ack_in);
}

void
mxd_send_acks_board(struct mxd_board *b)
{
	for (uint32_t m = b->ep_open; m != 0; m &= m - 1)
		if (b->ep[__builtin_ctz(m)]->ack_held != NULL)
			mxd_send_acks_apply(b->ep[__builtin_ctz(m)]);
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
 * mx_set_request_timeout(): a send still pending at its deadline (waiting
 * on the send queue, an issend not acknowledged or matched yet) completes
 * with MX_STATUS_TIMEOUT; an eager mx_isend completed already, when its
 * data was copied.  Frames stay in flight (a late ack just releases them).
 */
void
mxd_sends_expire(struct mx_endpoint *ep, uint64_t now)
{
	struct mxd_list *pos, *tmp;

	/* Pending sends are traffic: their partners' state is taken. */
	mxd_list_foreach(pos, tmp, &ep->active) {
		struct mxd_partner *p = mxd_container_of(pos,
				struct mxd_peer_act, active)->p;

		for (unsigned s = 0; s < MXD_WIN; s++) {
			struct mxd_txrec *rec = p->a->inflight[s];

			if (rec != NULL && rec->req != NULL &&
					expired(rec->req, now)) {
				send_fail(rec->req, MX_STATUS_TIMEOUT);
				rec->req = NULL;
			}
		}
		expire_list(&p->a->sendq, now);
		expire_list(&p->a->syncq, now);
	}
	mxd_rndv_expire(ep, now);
}

/*
 * A refusal of one of our messages.  Its sender has no session with us
 * (that is the point), so it is checked against what we know of the
 * partner: endpoint id, the MAC it is reached at, a message in flight.
 * Every send to the partner fails with the refusal, and later ones at
 * once, until a new connect; messages of sends completed already are
 * counted and reported by the next send (mxd_sends_lost).
 */
void
mxd_rx_nack(struct mxd_board *b, unsigned port, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = mxd_ep_of(b, pkt->h.dst_ep);
	struct mxd_partner *p;
	uint32_t seq = pkt->u.seq.seq;
	mx_status_code_t code;

	if (ep == NULL || pkt->h.dst_session != ep->session ||
			pkt->h.dst_peer >= ep->npartners) {
		mxd_count_drop(b, MXD_DROP_ENDPOINT);
		return;
	}
	p = ep->partners[pkt->h.dst_peer];
	if (p->remote_ep != pkt->h.src_ep || (int)port != p->port ||
			pkt->u.seq.session != p->remote_session ||
			memcmp(pkt->eth->src, p->mac, MXD_ETH_ALEN) != 0 ||
			!mxd_seq_lt(p->tx.acked, seq) ||
			!mxd_seq_lt(seq, p->tx.next_seq)) {
		mxd_count_drop(b, MXD_DROP_PEER);	/* stale or forged */
		return;
	}
	mxd_count(b, MXD_C_NACK_RCVD);
	code = pkt->u.seq.reason == MXD_NACK_BAD_KEY ? MX_STATUS_BAD_KEY :
		MX_STATUS_ENDPOINT_CLOSED;
	mxd_sends_lost(p, code);
	mxd_sends_fail(p, code);
	if (p->state == MXD_PS_UP) {
		p->fail = code;
		mxd_partner_set_state(p, MXD_PS_REFUSED);
	}
}
