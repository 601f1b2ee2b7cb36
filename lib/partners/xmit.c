/* SPDX-License-Identifier: BSD-3-Clause */
/* Building, addressing and queuing frames: see xmit.h. */
#include <string.h>

#include "partners/xmit.h"

/* ---- the one decision: loopback ring or the port's tx queue ------------ */

static unsigned
room(const struct mxd_board *b, unsigned port, int local)
{
	return local ? mxd_loop_room(b) : mxd_txq_room(b, port);
}

static void
queue(struct mxd_board *b, unsigned port, int local, struct mxd_frame *f,
		int sealed)
{
	if (local)
		mxd_loop_push(b, f, sealed);
	else
		mxd_txq_push(b, port, f, sealed);
}

int
mxd_xmit_start(struct mxd_board *b, unsigned port, int local,
		const uint8_t dst[MXD_ETH_ALEN], const struct mxd_hdr_args *a,
		uint16_t body, struct mxd_frame *f)
{
	if (room(b, port, local) == 0 ||
			mxd_frame_start(b, port, dst, a, body, f) < 0)
		return -1;
	f->to = 0;
	return 0;
}

void
mxd_xmit_send(struct mxd_board *b, unsigned port, int local,
		struct mxd_frame *f)
{
	queue(b, port, local, f, 0);
}

/* ---- answers ------------------------------------------------------------ */

int
mxd_answer_start(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt, struct mxd_hdr_args *a, uint16_t body,
		struct mxd_frame *f)
{
	int local = !memcmp(pkt->eth->src, b->port[port]->mac, MXD_ETH_ALEN);

	a->src_ep = pkt->h.dst_ep;
	a->dst_ep = pkt->h.src_ep;
	a->dst_peer = pkt->h.src_peer;
	a->dst_session = pkt->h.src_session;
	if (mxd_xmit_start(b, port, local, pkt->eth->src, a, body, f) < 0)
		return -1;	/* the sender retries */
	if (pkt->h.type == MXD_T_CONN_REQ)
		f->to = pkt->u.conn.slot;
	return local;
}

void
mxd_answer_send(struct mxd_board *b, unsigned port, int local,
		struct mxd_frame *f)
{
	queue(b, port, local, f, 0);
}

/* ---- a partner's frames ------------------------------------------------- */

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

void
mxd_partner_hdr_build(struct mxd_partner *p)
{
	struct mxd_hdr_args a;

	_Static_assert(sizeof(p->hdr) >= MXD_EAGER_HLEN, "header template");
	mxd_hdr_fields(p, MXD_T_EAGER, &a);
	memset(p->hdr, 0, sizeof(p->hdr));
	mxd_wire_put_hdr(p->hdr, p->mac, p->ep->board->port[p->port]->mac,
			&a, 0);
	mxd_wire_put_eager(p->hdr + MXD_HDRS_LEN, 0, 0, 0, p->frag_max, 0);
	p->hdr_ok = 1;
}

int
mxd_partner_frame_on(struct mxd_partner *p, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], uint8_t type, uint16_t body,
		struct mxd_frame *f)
{
	if (mxd_board_alloc(p->ep->board, port, f) != 0)
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

int
mxd_partner_ack(struct mxd_partner *p, uint8_t flags)
{
	uint64_t sack = mxd_rxwin_hole(&p->rx) ? mxd_rxwin_sack(&p->rx) : 0;
	uint32_t fseq[MXD_FRAGS_MAX];
	uint64_t fhave[MXD_FRAGS_MAX];
	unsigned nf = 0, body = sack ? MXD_SACK_LEN : 0;
	struct mxd_frame f;

	/* Messages here in part, when the window holds any beyond base:
	 * as many as the partner's MTU holds. */
	if (p->frags && p->rx.top != p->rx.base) {
		unsigned room = (p->mtu - (unsigned)sizeof(struct mxd_hdr) -
				MXD_SACK_LEN) / sizeof(struct mxd_frags_rec);

		nf = mxd_rxwin_partial(&p->rx, fseq, fhave, room <
				MXD_FRAGS_MAX ? room : MXD_FRAGS_MAX);
	}
	if (mxd_partner_room(p) == 0 || mxd_partner_frame(p, MXD_T_ACK,
				(uint16_t)(body + nf *
				sizeof(struct mxd_frags_rec)), &f) < 0)
		return -1;
	if (sack) {
		mxd_wire_put_sack(f.data + MXD_HDRS_LEN, sack);
		flags |= MXD_F_SACK;
	}
	for (unsigned i = 0; i < nf; i++)
		mxd_wire_put_frags(f.data + MXD_HDRS_LEN + body, i, fseq[i],
				fhave[i]);
	if (nf) {
		flags |= MXD_F_FRAGS;
		mxd_count(p->ep->board, MXD_C_FRAG_ACKS);
	}
	if (flags)
		mxd_wire_add_flags(f.data, flags);
	mxd_partner_xmit(p, &f);
	return 0;
}
