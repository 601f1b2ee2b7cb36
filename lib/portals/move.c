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

/* The request of an operation from md. */
static void
request_of(struct mxd_ptl_op *op, struct mxd_ptl_ni *ni,
		const struct mxd_ptl_md *md, uint8_t kind, ptl_pt_index_t pt,
		ptl_ac_index_t ac, ptl_match_bits_t bits, ptl_size_t roff)
{
	struct mxd_ptl_hdr *h = &op->hdr;

	memset(op, 0, sizeof(*op));
	h->kind = kind;
	h->pt_index = pt;
	h->src_nid = ni->me.id.nid;
	h->src_pid = ni->me.id.pid;
	h->src_uid = ni->me.uid;
	h->src_jid = ni->me.jid;
	h->ac_index = ac;
	h->match_bits = bits;
	h->offset = roff;
	h->md_handle = mxd_ptl_md_handle(ni, md);
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

/* An event of op at its initiator (SEND_*, REPLY_FAIL). */
static void
event_of(ptl_event_t *ev, ptl_event_kind_t type, const struct mxd_ptl_ni *ni,
		const struct mxd_ptl_op *op)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->initiator = ni->me.id;
	ev->uid = ni->me.uid;
	ev->jid = ni->me.jid;
	ev->portal = op->hdr.pt_index;
	ev->match_bits = op->hdr.match_bits;
	ev->rlength = op->hdr.rlength;
	ev->offset = op->region.offset;
	ev->hdr_data = op->hdr.hdr_data;
	ev->link = op->hdr.link;
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
	ptl_event_t ev;
	int rc = source(h, loff, len, whole, target, &ni, &md);

	if (rc != PTL_OK)
		return rc;
	if (whole) {
		loff = 0;
		len = md->size;
	}
	request_of(&op, ni, md, MXD_PTL_PUT, pt, ac, bits, roff);
	op.hdr.hdr_data = hdr_data;
	op.hdr.rlength = len;
	op.hdr.link = ++ni->link;
	if (ack == PTL_ACK_REQ && md->md.eventq != PTL_EQ_NONE)
		op.hdr.flags = MXD_PTL_F_ACK_REQ;
	op.target = target;
	mxd_ptl_md_region(md, loff, len, &op.region);
	mxd_ptl_md_begin(md, 0);
	event_of(&ev, PTL_EVENT_SEND_START, ni, &op);
	ev.mlength = len;
	if (!(md->md.options & PTL_MD_EVENT_START_DISABLE))
		mxd_ptl_log(ni, md, &ev);
	mxd_ptl.tp->put(ni->tp, &op);	/* md may be gone after */
	return PTL_OK;
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
	request_of(&op, ni, md, MXD_PTL_GET, pt, ac, bits, roff);
	op.hdr.rlength = len;
	op.hdr.link = ++ni->link;
	op.target = target;
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
	ptl_event_t ev;

	if (md == NULL)
		return;
	event_of(&ev, status == PTL_NI_OK ? PTL_EVENT_SEND_END :
			PTL_EVENT_SEND_FAIL, ni, op);
	ev.mlength = status == PTL_NI_OK ? op->hdr.rlength : 0;
	ev.ni_fail_type = status;
	mxd_ptl_md_end(ni, md, &ev);
}

void
mxd_ptl_get_failed(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		ptl_ni_fail_t status)
{
	struct mxd_ptl_md *md = op_md(ni, op->hdr.md_handle);
	ptl_event_t ev;

	if (md == NULL)
		return;
	event_of(&ev, PTL_EVENT_REPLY_FAIL, ni, op);
	ev.initiator = op->target;
	ev.uid = PTL_UID_ANY;
	ev.jid = PTL_JID_ANY;
	ev.ni_fail_type = status == PTL_NI_OK ? PTL_NI_FAIL : status;
	mxd_ptl_md_end(ni, md, &ev);
}

/* An event of an ACK or REPLY h at the initiator. */
static void
answer_event(ptl_event_t *ev, ptl_event_kind_t type,
		const struct mxd_ptl_hdr *h)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->initiator.nid = h->src_nid;
	ev->initiator.pid = h->src_pid;
	ev->uid = h->src_uid;
	ev->jid = h->src_jid;
	ev->portal = h->pt_index;
	ev->match_bits = h->match_bits;
	ev->rlength = h->rlength;
	ev->mlength = h->mlength;
	ev->offset = h->offset;
	ev->link = h->link;
}

void
mxd_ptl_rx_ack(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h)
{
	struct mxd_ptl_ni *md_ni;
	struct mxd_ptl_md *md = mxd_ptl_md_get(h->md_handle, &md_ni);
	ptl_event_t ev;

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
	answer_event(&ev, PTL_EVENT_ACK, h);
	mxd_ptl_md_event(ni, md, &ev);
}

/* The get op ends with no data: refused by its target (DROPPED), or
 * answered by a reply that is not its own (another descriptor or
 * generation: dropped, counted). */
static int
reply_refused(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const struct mxd_ptl_op *op, const struct mxd_ptl_hdr *h)
{
	ptl_event_t ev;

	answer_event(&ev, PTL_EVENT_REPLY_FAIL, h);
	ev.offset = op->region.offset;
	ev.mlength = 0;
	ev.ni_fail_type = PTL_NI_DROPPED;
	if (h->md_handle != op->hdr.md_handle) {
		mxd_ptl_drop(ni, PTL_SR_DROP_LATE, h->rlength);
		ev.ni_fail_type = PTL_NI_FAIL;
	}
	mxd_ptl_md_end(ni, md, &ev);
	return MXD_PTL_DONE;
}

int
mxd_ptl_rx_reply(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		const struct mxd_ptl_hdr *h, struct mxd_ptl_tgt *t)
{
	struct mxd_ptl_md *md = op_md(ni, op->hdr.md_handle);
	ptl_event_t ev;

	memset(t, 0, sizeof(*t));
	if (md == NULL) {
		if (!ni->closing)
			mxd_ptl_drop(ni, PTL_SR_DROP_LATE, h->rlength);
		return MXD_PTL_DONE;
	}
	if (h->md_handle != op->hdr.md_handle ||
			(h->flags & MXD_PTL_F_DROPPED))
		return reply_refused(ni, md, op, h);
	t->req = *h;
	t->kind = MXD_PTL_REPLY;
	t->md = op->hdr.md_handle;
	t->link = op->hdr.link;
	t->offset = op->region.offset;
	t->region = op->region;
	if (h->mlength < t->region.length)
		t->region.length = h->mlength;
	answer_event(&ev, PTL_EVENT_REPLY_START, h);
	ev.mlength = t->region.length;
	ev.offset = t->offset;
	ev.link = t->link;
	if (!(md->md.options & PTL_MD_EVENT_START_DISABLE))
		mxd_ptl_log(ni, md, &ev);
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
