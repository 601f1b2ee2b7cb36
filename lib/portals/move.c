/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The initiator's side: PtlPut, PtlGet (and 3.3's Region forms), and
 * what the transport reports of them.
 *
 * A put logs SEND_START when it is started, SEND_END once its bytes have
 * left (or SEND_FAIL), then ACK if one was asked for (PTL_ACK_REQ, and
 * the descriptor has an event queue: else the target is not asked) and
 * the target's descriptor allowed it.  A get logs no SEND event: its
 * initiator logs REPLY_START and REPLY_END when the reply comes, or
 * REPLY_FAIL alone when none will.  Each takes one of the descriptor's
 * threshold when started, the ACK another one when it comes (an ACK to a
 * descriptor that is gone or inactive is dropped and counted).
 * Neither call waits: the transport starts the operation and returns.
 */
#include <string.h>

#include "portals/ptl.h"

/* The request of an operation from md: every field of op->hdr, and
 * its target. */
static void
request_of(struct mxd_ptl_op *op, struct mxd_ptl_ni *ni,
		const struct mxd_ptl_md *md, uint8_t kind, ptl_process_id_t target,
		ptl_pt_index_t pt, ptl_ac_index_t ac, ptl_match_bits_t bits,
		ptl_size_t roff, ptl_size_t len)
{
	struct mxd_ptl_hdr *h = &op->hdr;

	h->kind = kind;
	h->flags = 0;
	h->pt_index = pt;
	h->src_nid = ni->me.id.nid;
	h->src_pid = ni->me.id.pid;
	h->src_uid = ni->me.uid;
	h->src_jid = ni->me.jid;
	h->ac_index = ac;
	h->match_bits = bits;
	h->offset = roff;
	h->hdr_data = 0;
	h->rlength = len;
	h->mlength = 0;
	h->md_handle = mxd_ptl_md_handle(ni, md);
	h->op_cookie = 0;
	h->link = ++ni->link;
	op->target = target;
}

/* The descriptor of a put or get, and its region: PTL_OK or an error. */
static int
source(ptl_handle_md_t h, ptl_size_t loff, ptl_size_t len, int whole,
		ptl_process_id_t target, struct mxd_ptl_ni **ni,
		struct mxd_ptl_md **md)
{
	*md = mxd_ptl_md_get(h, ni);
	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (*md == NULL || !mxd_ptl_md_active(*md))
		return PTL_INV_MD;
	if (!whole && (loff > (*md)->size || len > (*md)->size - loff))
		return PTL_ILL_MD;
	if (target.nid == PTL_NID_ANY || target.pid == PTL_PID_ANY)
		return PTL_INV_PROC;
	if (mxd_ptl.tp->check((*ni)->tp, target) < 0)
		return PTL_INV_PROC;
	return PTL_OK;
}

/* Writes at ev an event of op at its initiator (SEND_*, REPLY_FAIL):
 * every member but md_handle, mem_desc and sequence. */
static void
event_of(ptl_event_t *ev, ptl_event_kind_t type, const struct mxd_ptl_ni *ni,
		const struct mxd_ptl_op *op, ptl_size_t mlen, ptl_ni_fail_t fail)
{
	ev->type = type;
	ev->initiator = ni->me.id;
	ev->uid = ni->me.uid;
	ev->jid = ni->me.jid;
	ev->portal = op->hdr.pt_index;
	ev->match_bits = op->hdr.match_bits;
	ev->rlength = op->hdr.rlength;
	ev->mlength = mlen;
	ev->offset = op->region.offset;
	ev->hdr_data = op->hdr.hdr_data;
	ev->link = op->hdr.link;
	ev->ni_fail_type = fail;
}

/* Logs that event in md's queue (if it has one), in place. */
static void
log_op(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md, ptl_event_kind_t type,
		const struct mxd_ptl_op *op, ptl_size_t mlen, ptl_ni_fail_t fail)
{
	struct mxd_ptl_eq *eq = mxd_ptl_md_eq(md);
	ptl_event_t *ev;

	if (eq == NULL)
		return;
	ev = mxd_ptl_ev_slot(ni, eq);
	event_of(ev, type, ni, op, mlen, fail);
	mxd_ptl_ev_commit(ni, md, eq, ev);
}

/* The put op from md has ended: SEND_END (its bytes have left) or
 * SEND_FAIL, then the UNLINK it may cause (md may be gone on return). */
static void
put_end(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const struct mxd_ptl_op *op, ptl_ni_fail_t status)
{
	int ok = status == PTL_NI_OK;
	ptl_event_kind_t type = ok ? PTL_EVENT_SEND_END : PTL_EVENT_SEND_FAIL;
	ptl_size_t mlen = ok ? op->hdr.rlength : 0;

	md->pending--;
	if (!ok || !(md->md.options & PTL_MD_EVENT_END_DISABLE))
		log_op(ni, md, type, op, mlen, status);
	if (mxd_ptl_md_unlink_due(md, ok)) {
		ptl_event_t cause;

		event_of(&cause, type, ni, op, mlen, status);
		mxd_ptl_md_auto_unlink(ni, md, &cause);
	}
}

int
mxd_ptl_put(ptl_handle_md_t h, ptl_size_t loff, ptl_size_t len, int whole,
		ptl_ack_req_t ack, ptl_process_id_t target, ptl_pt_index_t pt,
		ptl_ac_index_t ac, ptl_match_bits_t bits, ptl_size_t roff,
		ptl_hdr_data_t hdr_data)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_md *md;
	struct mxd_ptl_op op;
	int rc = source(h, loff, len, whole, target, &ni, &md);

	if (rc != PTL_OK)
		return rc;
	if (whole) {
		loff = 0;
		len = md->size;
	}
	request_of(&op, ni, md, MXD_PTL_PUT, target, pt, ac, bits, roff, len);
	op.hdr.hdr_data = hdr_data;
	if (ack == PTL_ACK_REQ && md->md.eventq != PTL_EQ_NONE)
		op.hdr.flags = MXD_PTL_F_ACK_REQ;
	mxd_ptl_md_region(md, loff, len, &op.region);
	mxd_ptl_md_begin(md, 0);
	if (!(md->md.options & PTL_MD_EVENT_START_DISABLE))
		log_op(ni, md, PTL_EVENT_SEND_START, &op, len, PTL_NI_OK);
	/* Over at once (its bytes copied out): md is still there. */
	if (mxd_ptl.tp->put(ni->tp, &op))
		put_end(ni, md, &op, PTL_NI_OK);
	return PTL_OK;		/* else md may be gone */
}

int
mxd_ptl_get(ptl_handle_md_t h, ptl_size_t loff, ptl_size_t len, int whole,
		ptl_process_id_t target, ptl_pt_index_t pt, ptl_ac_index_t ac,
		ptl_match_bits_t bits, ptl_size_t roff)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_md *md;
	struct mxd_ptl_op op;
	int rc = source(h, loff, len, whole, target, &ni, &md);

	if (rc != PTL_OK)
		return rc;
	if (whole) {
		loff = 0;
		len = md->size;
	}
	request_of(&op, ni, md, MXD_PTL_GET, target, pt, ac, bits, roff, len);
	mxd_ptl_md_region(md, loff, len, &op.region);
	mxd_ptl_md_begin(md, 0);
	mxd_ptl.tp->get(ni->tp, &op);	/* md may be gone after */
	return PTL_OK;
}

/* The descriptor of one of our operations that the transport reports:
 * it cannot be gone while the operation is pending, unless the interface
 * is closing (then the report is not wanted). */
static struct mxd_ptl_md *
op_md(struct mxd_ptl_ni *ni, uint64_t handle)
{
	struct mxd_ptl_ni *md_ni;
	struct mxd_ptl_md *md = mxd_ptl_md_get(handle, &md_ni);

	if (ni->closing || md == NULL || md_ni != ni || md->pending == 0)
		return NULL;
	return md;
}

void
mxd_ptl_put_done(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		ptl_ni_fail_t status)
{
	struct mxd_ptl_md *md = op_md(ni, op->hdr.md_handle);

	if (md != NULL)
		put_end(ni, md, op, status);
}

void
mxd_ptl_get_failed(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		ptl_ni_fail_t status)
{
	struct mxd_ptl_md *md = op_md(ni, op->hdr.md_handle);
	ptl_event_t ev;

	if (md == NULL)
		return;
	event_of(&ev, PTL_EVENT_REPLY_FAIL, ni, op, 0,
			status == PTL_NI_OK ? PTL_NI_FAIL : status);
	ev.initiator = op->target;
	ev.uid = PTL_UID_ANY;
	ev.jid = PTL_JID_ANY;
	mxd_ptl_md_end(ni, md, &ev);
}

/* The get op's fields in the answer h to it (a REPLY): who answered is
 * h's, the rest the get's. */
static void
reply_req(struct mxd_ptl_hdr *q, const struct mxd_ptl_op *op,
		const struct mxd_ptl_hdr *h)
{
	*q = *h;
	q->pt_index = op->hdr.pt_index;
	q->match_bits = op->hdr.match_bits;
	q->rlength = op->hdr.rlength;
	q->hdr_data = 0;
}

void
mxd_ptl_rx_ack(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h)
{
	struct mxd_ptl_ni *md_ni;
	struct mxd_ptl_md *md = mxd_ptl_md_get(h->md_handle, &md_ni);

	if (ni->closing)
		return;
	if (md == NULL || md_ni != ni || !mxd_ptl_md_active(md)) {
		mxd_ptl_drop(ni, PTL_SR_DROP_LATE, h->rlength);
		return;
	}
	if (md->md.threshold > 0)
		md->md.threshold--;
	if (!mxd_ptl_md_active(md))
		md->spent = 1;
	/* An ACK is always shown: it has its put's link, and the offset and
	 * length the target took. */
	mxd_ptl_log_req(ni, md, PTL_EVENT_ACK, h, h->mlength, h->offset,
			h->link, PTL_NI_OK);
	mxd_ptl_unlink_req(ni, md, 1, PTL_EVENT_ACK, h, h->mlength,
			h->offset, h->link, PTL_NI_OK);
}

/* The get op ends with no data: refused by its target (DROPPED). */
static int
reply_refused(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const struct mxd_ptl_op *op, const struct mxd_ptl_hdr *h)
{
	struct mxd_ptl_hdr q;
	ptl_event_t ev;

	reply_req(&q, op, h);
	mxd_ptl_ev_req(&ev, PTL_EVENT_REPLY_FAIL, &q, 0, op->region.offset,
			op->hdr.link, PTL_NI_DROPPED);
	mxd_ptl_md_end(ni, md, &ev);
	return MXD_PTL_DONE;
}

int
mxd_ptl_rx_reply(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		const struct mxd_ptl_hdr *h, struct mxd_ptl_tgt *t)
{
	struct mxd_ptl_md *md = op_md(ni, op->hdr.md_handle);

	t->region.length = 0;
	if (md == NULL) {
		if (!ni->closing)
			mxd_ptl_drop(ni, PTL_SR_DROP_LATE, h->rlength);
		return MXD_PTL_DONE;
	}
	if (h->flags & MXD_PTL_F_DROPPED)
		return reply_refused(ni, md, op, h);
	reply_req(&t->req, op, h);
	t->kind = MXD_PTL_REPLY;
	t->md = op->hdr.md_handle;
	t->link = op->hdr.link;
	t->offset = op->region.offset;
	t->region = op->region;
	if (h->mlength < t->region.length)
		t->region.length = h->mlength;
	if (!(md->md.options & PTL_MD_EVENT_START_DISABLE))
		mxd_ptl_log_req(ni, md, PTL_EVENT_REPLY_START, &t->req,
				t->region.length, t->offset, t->link,
				PTL_NI_OK);
	return MXD_PTL_ACCEPT;
}

void
mxd_ptl_rx_dropped(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h)
{
	int late = h != NULL && (h->kind == MXD_PTL_ACK ||
			h->kind == MXD_PTL_REPLY);

	if (!ni->closing)
		mxd_ptl_drop(ni, late ? PTL_SR_DROP_LATE : PTL_SR_DROP_COUNT,
				h != NULL ? h->rlength : 0);
}
