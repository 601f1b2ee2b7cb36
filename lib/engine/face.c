/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An endpoint's face, the engine's side (partners/face.h has the
 * contract): a message of a face's endpoint goes to the face when it is
 * next in order, where MX matches a message to a posted receive; what the
 * face says to do with it becomes a receive of the endpoint's pool,
 * which the engine then fills as any other (eager data copied, a large
 * message pulled, failures on a partner's loss) and whose end goes to
 * the face (mxd_req_forgotten, endpoint.c).
 *
 * The receive's first segment is a sink for the message's head, which
 * the face has read already: an eager message is copied whole (its head
 * written there and never read), a large one is pulled from just past
 * its head (pull.c, the descriptor's 'head').  One sink serves every
 * receive: the library lock orders its writes, and nothing reads it.
 */
#include <stdlib.h>
#include <string.h>

#include "partners/xmit.h"
#include "engine/face.h"
#include "engine/timers.h"

static uint8_t sink[MXD_RNDV_HEAD_MAX];

/* What the face reads: the message whole (*avail its length), or the
 * head its announcement carries; NULL if it has none (a peer's fault). */
static const uint8_t *
head_of(const struct mxd_face_ops *f, int rndv, const uint8_t *data,
		uint32_t *len, uint32_t *avail)
{
	struct mxd_rndv_desc d;

	if (data == NULL)
		return NULL;	/* several fragments: no face sends one */
	*avail = *len;
	if (!rndv)
		return data;
	mxd_wire_get_rndv(data, &d);
	*len = d.total_len;
	*avail = f->head;
	return d.head == f->head ? data + sizeof(d) : NULL;
}

/* r's segments: the sink for the head, then the face's. */
static int
deposit_segs(struct mx_request *r, uint32_t head,
		const struct mxd_face_deposit *d)
{
	uint32_t n = d->nseg + 1;

	if (d->nseg > MXD_MAX_SEGMENTS)
		return -1;
	if (n > MXD_SEG_INLINE && (r->segs = malloc(n * sizeof(*r->segs))) ==
			NULL) {
		r->segs = r->seg_inline;
		return -1;
	}
	r->segs[0].segment_ptr = sink;
	r->segs[0].segment_length = head;
	if (d->nseg != 0)
		memcpy(&r->segs[1], d->segs, d->nseg * sizeof(*r->segs));
	r->nseg = n;
	r->length = head + d->length;
	return 0;
}

int
mxd_face_take(struct mx_endpoint *ep, struct mxd_partner *p, int rndv,
		uint32_t msg_len, const uint8_t *data, struct mx_request **out)
{
	const struct mxd_face_ops *f = ep->face;
	struct mxd_face_deposit d = { 0 };
	struct mx_request *r = mxd_ep_req(ep, MXD_REQ_RECV, NULL);
	const uint8_t *head;
	uint32_t len = msg_len, avail = 0;
	int v;

	if (r == NULL)
		return MXD_FACE_NOMEM;	/* before the face saw it */
	head = head_of(f, rndv, data, &len, &avail);
	v = f->take(ep->face_ctx, p, head, avail, len, &d);
	if (v != MXD_FACE_DEPOSIT) {
		mxd_req_put(r);
		return v;
	}
	r->forget = MXD_FORGET_FACE;
	r->status.context = d.token;
	if (deposit_segs(r, f->head, &d) < 0) {
		mxd_req_put(r);		/* taken, and failed at once */
		f->done(ep->face_ctx, d.token, MX_STATUS_NO_RESOURCES);
		return MXD_FACE_DROP;
	}
	*out = r;
	return MXD_FACE_DEPOSIT;
}

/* Copies n bytes of src into the deposit's segments. */
static void
deposit_copy(const struct mxd_face_deposit *d, const uint8_t *src, uint32_t n)
{
	for (uint32_t i = 0; i < d->nseg && n != 0; i++) {
		uint32_t k = d->segs[i].segment_length < n ?
			d->segs[i].segment_length : n;

		if (k != 0)
			memcpy(d->segs[i].segment_ptr, src, k);
		src += k;
		n -= k;
	}
}

int
mxd_face_direct(struct mx_endpoint *ep, struct mxd_partner *p,
		const uint8_t *data, uint32_t len)
{
	const struct mxd_face_ops *f = ep->face;
	struct mxd_face_deposit d = { 0 };
	uint32_t body;
	int v = f->take(ep->face_ctx, p, data, len, len, &d);

	if (v == MXD_FACE_NOMEM)
		return -1;
	if (v != MXD_FACE_DEPOSIT)
		return 0;
	body = len > f->head ? len - f->head : 0;
	deposit_copy(&d, data + f->head, d.length < body ? d.length : body);
	f->done(ep->face_ctx, d.token, d.length < body ? MX_STATUS_TRUNCATED :
			MX_STATUS_SUCCESS);
	return 0;
}

/*
 * A face's small message sent at once, as mxd_send_small (send.c) sends
 * mx_isend's common case when nothing waits before it: one frame, its
 * bytes kept in a small record until acknowledged (mxd_txrec_small), no
 * request.  The two are kept alike.
 */
int
mxd_face_send_now(struct mxd_partner *p, const uint8_t *msg, uint32_t len,
		uint64_t match)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_txrec *rec;
	struct mxd_frame f;
	uint32_t seq;

	if (len >= p->fast_max || p->a == NULL ||
			!mxd_list_empty(&p->a->sendq) || p->a->open != NULL ||
			mxd_txwin_in_flight(&p->tx) >= p->fly_max ||
			mxd_partner_room(p) == 0 ||
			(ep->free_txsmall == NULL && mxd_txrec_grow(ep, 1) < 0) ||
			mxd_partner_alloc(p, (unsigned)p->port, &f, 1) != 0)
		return 0;
	rec = ep->free_txsmall;
	ep->free_txsmall = rec->pool_next;
	seq = mxd_txwin_take(&p->tx);
	mxd_copy_short(rec->data, msg, len);
	mxd_partner_small_frame(p, &f, seq, 0, match, rec->data, len,
			mxd_ack_for(p, MXD_T_EAGER));
	mxd_partner_xmit_now(p, (unsigned)p->port, &f);
	mxd_txrec_small(rec, seq, len, match);
	p->a->inflight[seq & (MXD_WIN - 1)] = rec;
	mxd_timer_watch(p);
	mxd_count(ep->board, MXD_C_TX_MSGS);
	return 1;
}

int
mxd_face_wait(struct mxd_partner *p, int on)
{
	if (on < 0) {
		if (p->a != NULL && p->a->face_waits != 0)
			p->a->face_waits--;
		return 0;
	}
	if (mxd_partner_act(p) == NULL)
		return -1;
	p->a->face_waits++;
	mxd_timer_watch(p);
	return 0;
}
