/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The target's side: an incoming put or get, checked in the order of the
 * 3.2 text (chapter 4, "Receiving Messages"): the interface (the
 * transport found it), the portal index, the access control entry the
 * cookie names (it must admit the initiator's node, process, user and
 * job, and the portal index), then the match list of the portal, entry by
 * entry in list order.  An entry matches a request from its process
 * (wildcards allowed) whose bits satisfy ((bits ^ match_bits) &
 * ~ignore_bits) == 0, and takes it if it has a descriptor that accepts
 * it; a descriptor that does not (inactive, the operation not enabled,
 * no room and no truncation) lets the search go on to the next entry.
 * A request that nothing takes is dropped and counted (PTL_SR_DROP_COUNT
 * and the register of the reason): there is no unexpected queue, and no
 * acknowledgement is sent for it.  A dropped get is answered with a
 * refusal, so that its initiator's get ends (REPLY_FAIL) instead of
 * waiting for ever.
 */
#include <string.h>

#include "portals/ptl.h"

static int
id_admits(ptl_process_id_t want, uint64_t nid, uint32_t pid)
{
	return (want.nid == PTL_NID_ANY || want.nid == nid) &&
		(want.pid == PTL_PID_ANY || want.pid == pid);
}

/* The access control check: 0, or the register of the refusal. */
static ptl_sr_index_t
ac_refuses(const struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h)
{
	const struct mxd_ptl_ac *ac;

	if (h->ac_index > (uint32_t)ni->lim.max_ac_index)
		return PTL_SR_DROP_AC;
	ac = &ni->ac[h->ac_index];
	if (!ac->used || !id_admits(ac->id, h->src_nid, h->src_pid) ||
			(ac->uid != PTL_UID_ANY && ac->uid != h->src_uid) ||
			(ac->jid != PTL_JID_ANY && ac->jid != h->src_jid) ||
			(ac->pt != PTL_PT_INDEX_ANY && ac->pt != h->pt_index))
		return PTL_SR_DROP_AC;
	return 0;
}

static int
me_matches(const struct mxd_ptl_me *me, const struct mxd_ptl_hdr *h)
{
	return id_admits(me->match_id, h->src_nid, h->src_pid) &&
		((h->match_bits ^ me->bits) & ~me->ignore) == 0;
}

/* An event of the request h at this target. */
static void
event_of(ptl_event_t *ev, ptl_event_kind_t type, const struct mxd_ptl_hdr *h)
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
	ev->hdr_data = h->hdr_data;
}

/* The answer to a get: echoes the request; 'me' is who sends it. */
static void
reply_of(struct mxd_ptl_hdr *r, const struct mxd_ptl_ni *ni,
		const struct mxd_ptl_hdr *h)
{
	memset(r, 0, sizeof(*r));
	r->kind = MXD_PTL_REPLY;
	r->pt_index = h->pt_index;
	r->src_nid = ni->me.id.nid;
	r->src_pid = ni->me.id.pid;
	r->src_uid = ni->me.uid;
	r->src_jid = ni->me.jid;
	r->match_bits = h->match_bits;
	r->offset = h->offset;
	r->rlength = h->rlength;
	r->md_handle = h->md_handle;
	r->op_cookie = h->op_cookie;
	r->link = h->link;
}

static int
drop(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h, ptl_sr_index_t why)
{
	mxd_ptl_drop(ni, why, h->rlength);
	return MXD_PTL_DROP;
}

/* Walks the match list of h's portal: the descriptor that takes it, or
 * NULL.  Descriptors that do not fit and are to go with unlink_nofit go
 * on the way. */
static struct mxd_ptl_md *
walk(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h, ptl_size_t *off,
		ptl_size_t *mlen)
{
	int put = h->kind == MXD_PTL_PUT;
	uint32_t i = ni->pt[h->pt_index].head;

	while (i != MXD_PTL_NONE) {
		struct mxd_ptl_me *me = &ni->mes[i];
		struct mxd_ptl_md *md;
		int fit;

		i = me->next;	/* me may go below */
		if (!me_matches(me, h) || me->md == MXD_PTL_NONE)
			continue;
		md = &ni->mds[me->md];
		fit = mxd_ptl_md_fit(md, put, h->rlength, h->offset, off,
				mlen);
		if (fit == MXD_PTL_TAKE)
			return md;
		if (fit == MXD_PTL_NOFIT && md->unlink_nofit) {
			ptl_event_t ev;

			event_of(&ev, put ? PTL_EVENT_PUT_START :
					PTL_EVENT_GET_START, h);
			ev.link = ++ni->link;
			mxd_ptl_md_nofit(ni, md, &ev);
		}
	}
	return NULL;
}

/* md takes the request h: the operation starts (one of its threshold,
 * its offset), START is logged, *t says where the bytes go. */
static int
accept(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const struct mxd_ptl_hdr *h, ptl_size_t off, ptl_size_t mlen,
		struct mxd_ptl_tgt *t)
{
	ptl_event_t ev;

	mxd_ptl_md_begin(md, mlen);
	t->md = mxd_ptl_md_handle(ni, md);
	t->offset = off;
	t->link = ++ni->link;
	mxd_ptl_md_region(md, off, mlen, &t->region);
	if (h->kind == MXD_PTL_GET) {
		t->reply.flags = 0;
		t->reply.offset = off;
		t->reply.mlength = mlen;
	}
	event_of(&ev, h->kind == MXD_PTL_PUT ? PTL_EVENT_PUT_START :
			PTL_EVENT_GET_START, h);
	ev.mlength = mlen;
	ev.offset = off;
	ev.link = t->link;
	if (!(md->md.options & PTL_MD_EVENT_START_DISABLE))
		mxd_ptl_log(ni, md, &ev);
	return MXD_PTL_ACCEPT;
}

int
mxd_ptl_rx_request(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h,
		struct mxd_ptl_tgt *t)
{
	struct mxd_ptl_md *md;
	ptl_sr_index_t why;
	ptl_size_t off = 0, mlen = 0;

	memset(t, 0, sizeof(*t));
	t->req = *h;
	t->kind = h->kind;
	if (h->kind == MXD_PTL_GET) {
		reply_of(&t->reply, ni, h);
		t->reply.flags = MXD_PTL_F_DROPPED;
	}
	if (ni->closing || (h->kind != MXD_PTL_PUT && h->kind != MXD_PTL_GET))
		return MXD_PTL_DROP;
	if (h->pt_index > (uint32_t)ni->lim.max_pt_index)
		return drop(ni, h, PTL_SR_DROP_PT_INDEX);
	why = ac_refuses(ni, h);
	if (why)
		return drop(ni, h, why);
	md = walk(ni, h, &off, &mlen);
	if (md == NULL)
		return drop(ni, h, PTL_SR_DROP_NO_MATCH);
	return accept(ni, md, h, off, mlen, t);
}

/* The acknowledgement of the put t: echoes it, with what was done. */
static void
ack_of(struct mxd_ptl_hdr *a, const struct mxd_ptl_ni *ni,
		const struct mxd_ptl_tgt *t)
{
	reply_of(a, ni, &t->req);
	a->kind = MXD_PTL_ACK;
	a->offset = t->offset;
	a->mlength = t->region.length;
}

static ptl_event_kind_t
end_kind(uint8_t kind, int ok)
{
	switch (kind) {
	case MXD_PTL_PUT:
		return ok ? PTL_EVENT_PUT_END : PTL_EVENT_PUT_FAIL;
	case MXD_PTL_GET:
		return ok ? PTL_EVENT_GET_END : PTL_EVENT_GET_FAIL;
	default:
		return ok ? PTL_EVENT_REPLY_END : PTL_EVENT_REPLY_FAIL;
	}
}

int
mxd_ptl_rx_end(struct mxd_ptl_ni *ni, struct mxd_ptl_tgt *t,
		ptl_ni_fail_t status, struct mxd_ptl_hdr *ack)
{
	struct mxd_ptl_ni *md_ni;
	struct mxd_ptl_md *md = mxd_ptl_md_get(t->md, &md_ni);
	int ok = status == PTL_NI_OK, want_ack;
	ptl_event_t ev;

	if (ni->closing || md == NULL || md_ni != ni || md->pending == 0)
		return 0;
	want_ack = ok && t->kind == MXD_PTL_PUT &&
		(t->req.flags & MXD_PTL_F_ACK_REQ) &&
		!(md->md.options & PTL_MD_ACK_DISABLE);
	event_of(&ev, end_kind(t->kind, ok), &t->req);
	ev.mlength = t->region.length;
	ev.offset = t->offset;
	ev.link = t->link;
	ev.ni_fail_type = status;
	mxd_ptl_md_end(ni, md, &ev);	/* md may be gone after */
	if (want_ack)
		ack_of(ack, ni, t);
	return want_ack;
}
