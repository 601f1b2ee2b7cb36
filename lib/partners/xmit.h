/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending frames (partners layer): the one place where a frame is built,
 * addressed and queued.  Whether it goes to the loopback ring (an
 * endpoint of the same board in this process) or to a port's tx queue is
 * decided here and nowhere else: by the partner (p->local) for a
 * partner's frames, by the sender's MAC for answers to a frame that has
 * no partner yet (connect replies, refusals).  So is the slot of the
 * peer's board it goes to (f->to, which a shared board's link steers
 * by): the partner's (p->slot), the one a connect request said for an
 * answer to it, else 0 (the peer board's service).
 */
#ifndef MXD_XMIT_H
#define MXD_XMIT_H

#include <stdint.h>
#include <string.h>

#include "csum.h"
#include "wire.h"
#include "util/copy.h"
#include "partners/endpoint.h"

/* Room for frames towards p on a board port (loopback ring if local).
 * This, allocating and queueing are inline: every frame takes them. */
static inline unsigned
mxd_port_room(const struct mxd_partner *p, unsigned port)
{
	const struct mxd_board *b = p->ep->board;

	return p->local ? mxd_loop_room(b) : mxd_txq_room(b, port);
}

/* The same on p's current port. */
static inline unsigned
mxd_partner_room(const struct mxd_partner *p)
{
	return mxd_port_room(p, (unsigned)p->port);
}

/* The common header arguments for a frame to partner p, but the ack. */
static inline void
mxd_hdr_fields(const struct mxd_partner *p, uint8_t type,
		struct mxd_hdr_args *a)
{
	const struct mx_endpoint *ep = p->ep;

	a->type = type;
	a->flags = MXD_F_ACK_VALID;
	a->epoch = (uint8_t)p->epoch;
	a->src_ep = (uint8_t)ep->id;
	a->dst_ep = (uint8_t)p->remote_ep;
	a->dst_peer = p->remote_index;
	a->src_peer = p->index;
	a->filter = p->remote_filter;
	a->src_session = ep->session;
	a->dst_session = p->remote_session;
	a->ack = 0;
}

/* The cumulative ack of everything received from p, for a frame of
 * 'type' to it: an ack owed is paid (the ack timer finds nothing left to
 * send). */
static inline uint32_t
mxd_ack_for(struct mxd_partner *p, uint8_t type)
{
	uint32_t ack = mxd_rxwin_cum_ack(&p->rx);

	if (ack != p->ack_sent && type != MXD_T_ACK)
		mxd_count(p->ep->board, MXD_C_ACKS_PIGGY);
	p->ack_sent = ack;
	return ack;
}

/* Fills the common header arguments for a frame to partner p, with the
 * cumulative ack of everything received from it.  Inline: with the header
 * written inline too (wire.h), the arguments go straight to the frame. */
static inline void
mxd_hdr_for(struct mxd_partner *p, uint8_t type, struct mxd_hdr_args *a)
{
	mxd_hdr_fields(p, type, a);
	a->ack = mxd_ack_for(p, type);
}

/* p->hdr from what p holds now (p->hdr_ok set). */
void mxd_partner_hdr_build(struct mxd_partner *p);

/*
 * The Ethernet and common headers of an EAGER frame to p at 'frame',
 * from p's template: what mxd_hdr_for and mxd_wire_put_hdr would write,
 * with flags MXD_F_ACK_VALID | 'flags', 'body' bytes after the common
 * header and the cumulative ack 'ack' (mxd_ack_for).  Writes the whole
 * template (sizeof(p->hdr) bytes: an eager header of one fragment past
 * the common header, but for its sequence number, message length and
 * match).  Returns MXD_HDRS_LEN.
 */
static inline size_t
mxd_partner_eager_hdr(struct mxd_partner *p, uint8_t *frame, uint8_t flags,
		uint16_t body, uint32_t ack)
{
	if (!p->hdr_ok)
		mxd_partner_hdr_build(p);
	mxd_copy_fixed(frame, p->hdr, sizeof(p->hdr));
	mxd_wire_hdr_set(frame, MXD_F_ACK_VALID | flags, body, ack);
	return MXD_HDRS_LEN;
}
/* Copies n <= 16 bytes in a register or two, overlapping (no call). */
static inline void
mxd_copy_upto16(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, src, 8);
		memcpy(&b, src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, src, 4);
		memcpy(&b, src + n - 4, 4);
		memcpy(dst, &a, 4);
		memcpy(dst + n - 4, &b, 4);
	} else if (n != 0) {
		dst[0] = src[0];
		dst[n / 2] = src[n / 2];
		dst[n - 1] = src[n - 1];
	}
}

/* Copies n bytes, n small (in registers up to 16: most small messages,
 * which a call of memcpy would cost more than). */
static inline void
mxd_copy_short(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	if (n <= 16)
		mxd_copy_upto16(dst, src, n);
	else
		memcpy(dst, src, n);
}
/* The same to two places (a message kept and sent): each part of src
 * read once, written to both. */
static inline void
mxd_copy_short2(uint8_t *d1, uint8_t *d2, const uint8_t *src, uint32_t n)
{
	if (n > 16) {
		memcpy(d1, src, n);
		memcpy(d2, d1, n);
	} else if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, src, 8);
		memcpy(&b, src + n - 8, 8);
		memcpy(d1, &a, 8);
		memcpy(d1 + n - 8, &b, 8);
		memcpy(d2, &a, 8);
		memcpy(d2 + n - 8, &b, 8);
	} else {
		mxd_copy_upto16(d1, src, n);
		mxd_copy_upto16(d2, d1, n);
	}
}

/*
 * The EAGER frame of a message of one fragment to p, written into f
 * (allocated) and sealed: headers from p's template with header flags
 * MXD_F_ACK_VALID | 'flags' and the cumulative ack 'ack', sequence seq,
 * 'match', and the len bytes at data.  A small record's message is sent,
 * and sent again, so (endpoint.h).  Its two halves apart, for a message
 * sent the first time (engine/send.h: mxd_send_frame): the headers
 * (mxd_partner_small_hdrs), then, its bytes written, the length and the
 * check (mxd_partner_small_seal).
 */
static inline void
mxd_partner_small_hdrs(struct mxd_partner *p, uint8_t *d, uint32_t seq,
		uint8_t flags, uint64_t match, uint32_t len, uint32_t ack)
{
	uint8_t *e = d + MXD_HDRS_LEN;

	mxd_partner_eager_hdr(p, d, flags,
			(uint16_t)(sizeof(struct mxd_eager_hdr) + len), ack);
	mxd_put32(e + offsetof(struct mxd_eager_hdr, seq), seq);
	mxd_put32(e + offsetof(struct mxd_eager_hdr, msg_len), len);
	mxd_put64(e + offsetof(struct mxd_eager_hdr, match), match);
}

static inline void
mxd_partner_small_seal(const struct mxd_partner *p, struct mxd_frame *f,
		uint32_t len)
{
	f->len = (uint32_t)MXD_EAGER_HLEN + len;	/* >= 60: no padding */
	f->to = p->slot;	/* it may go to the port straight (send.h) */
	mxd_wire_seal_crc(f->data, mxd_crc_frame(f->data, f->len));
}

static inline void
mxd_partner_small_frame(struct mxd_partner *p, struct mxd_frame *f,
		uint32_t seq, uint8_t flags, uint64_t match, const uint8_t *data,
		uint32_t len, uint32_t ack)
{
	uint8_t *d = f->data, *e = d + MXD_HDRS_LEN;

	mxd_partner_small_hdrs(p, d, seq, flags, match, len, ack);
	if (len > p->frag_max)	/* sent again after the MTU dropped */
		mxd_put16(e + offsetof(struct mxd_eager_hdr, frag_max),
				(uint16_t)len);
	mxd_copy_short(d + MXD_EAGER_HLEN, data, len);
	mxd_partner_small_seal(p, f, len);
}

/* Writes the headers of a frame to p (by 'port', to MAC 'dst') into an
 * allocated buffer; 'body' bytes follow the common header. */
void mxd_partner_frame_fill(struct mxd_partner *p, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], uint8_t type, uint16_t body,
		struct mxd_frame *f);
/* Allocates f and fills its headers as above; 0 or -MX_NO_RESOURCES. */
int mxd_partner_frame_on(struct mxd_partner *p, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], uint8_t type, uint16_t body,
		struct mxd_frame *f);
/* The same on p's current port and MAC. */
int mxd_partner_frame(struct mxd_partner *p, uint8_t type, uint16_t body,
		struct mxd_frame *f);
/* Allocates n frames (all or none) on a port for the caller to fill and
 * queue towards p; 0 or -1.  One comes from the port's stock. */
static inline int
mxd_partner_alloc(struct mxd_partner *p, unsigned port, struct mxd_frame *f,
		unsigned n)
{
	struct mxd_board *b = p->ep->board;
	struct mxd_link *l = b->port[port];

	if (n == 1)
		return mxd_board_alloc(b, port, f);
	return l->ops->alloc(l, f, n);
}

/* Queues a frame to p by 'port': checked first unless 'sealed' (a
 * retransmission, or a frame whose check was written as it was filled). */
static inline void
mxd_partner_xmit_on(struct mxd_partner *p, unsigned port, struct mxd_frame *f,
		int sealed)
{
	f->to = p->slot;
	if (p->local)
		mxd_loop_push(p->ep->board, f, sealed);
	else
		mxd_txq_push(p->ep->board, port, f, sealed);
}

/* A sealed frame to p by 'port' that may leave at once, with nothing
 * queued before it (mxd_txq_now); the loopback ring has no burst. */
static inline void
mxd_partner_xmit_now(struct mxd_partner *p, unsigned port,
		struct mxd_frame *f)
{
	f->to = p->slot;
	if (p->local)
		mxd_loop_push(p->ep->board, f, 1);
	else
		mxd_txq_now(p->ep->board, port, f);
}

/* The same on p's current port. */
static inline void
mxd_partner_xmit(struct mxd_partner *p, struct mxd_frame *f)
{
	mxd_partner_xmit_on(p, (unsigned)p->port, f, 0);
}
/* An explicit cumulative ACK (flags: MXD_F_PING asks for one back);
 * returns 0, or -1 when the queue or the pool had no room. */
int mxd_partner_ack(struct mxd_partner *p, uint8_t flags);

/* ---- frames to whoever sent pkt (no partner needed) --------------------- */

/* Starts an answer to pkt, addressed from its sender's own fields.
 * Returns 1 (loopback) or 0 (wire) for mxd_answer_send, -1 when there is
 * no room: the sender asks again. */
int mxd_answer_start(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt, struct mxd_hdr_args *a, uint16_t body,
		struct mxd_frame *f);
void mxd_answer_send(struct mxd_board *b, unsigned port, int local,
		struct mxd_frame *f);

/* A frame from our board to 'dst' by 'port' (loopback when local), for
 * partners not connected yet (connect requests); 0 or -1 (no room). */
int mxd_xmit_start(struct mxd_board *b, unsigned port, int local,
		const uint8_t dst[MXD_ETH_ALEN], const struct mxd_hdr_args *a,
		uint16_t body, struct mxd_frame *f);
void mxd_xmit_send(struct mxd_board *b, unsigned port, int local,
		struct mxd_frame *f);

#endif /* MXD_XMIT_H */
