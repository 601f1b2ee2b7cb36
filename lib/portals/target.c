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

/* The header of this process's answer to h (an ACK or a REPLY): echoes
 * the request. */
static void
answer_of(struct mxd_ptl_hdr *r, uint8_t kind, const struct mxd_ptl_ni *ni,
		const struct mxd_ptl_hdr *h, ptl_size_t off, ptl_size_t mlen)
{
	r->kind = kind;
	r->flags = 0;
	r->pt_index = h->pt_index;
	r->src_nid = ni->me.id.nid;
	r->src_pid = ni->me.id.pid;
	r->src_uid = ni->me.uid;
	r->src_jid = ni->me.jid;
	r->ac_index = 0;
	r->match_bits = h->match_bits;
	r->offset = off;
	r->hdr_data = 0;
	r->rlength = h->rlength;
	r->mlength = mlen;
	r->md_handle = h->md_handle;
	r->op_cookie = h->op_cookie;
	r->link = h->link;
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

			mxd_ptl_ev_req(&ev, put ? PTL_EVENT_PUT_START :
					PTL_EVENT_GET_START, h, 0, 0,
					++ni->link, PTL_NI_OK);
			mxd_ptl_md_nofit(ni, md, &ev);
		}
	}
	return NULL;
}

/* The descriptor that takes the request h (a PUT or GET), in the order
 * of the 3.2 text; NULL if none does (the drop counted, but for a request
 * to an interface that is closing). */
static struct mxd_ptl_md *
match(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h, ptl_size_t *off,
		ptl_size_t *mlen)
{
	struct mxd_ptl_md *md;
	ptl_sr_index_t why;

	if (ni->closing || (h->kind != MXD_PTL_PUT && h->kind != MXD_PTL_GET))
		return NULL;
	if (h->pt_index > (uint32_t)ni->lim.max_pt_index) {
		mxd_ptl_drop(ni, PTL_SR_DROP_PT_INDEX, h->rlength);
		return NULL;
	}
	why = ac_refuses(ni, h);
	if (why) {
		mxd_ptl_drop(ni, why, h->rlength);
		return NULL;
	}
	md = walk(ni, h, off, mlen);
	if (md == NULL)
		mxd_ptl_drop(ni, PTL_SR_DROP_NO_MATCH, h->rlength);
	return md;
}

/* md takes the request h: the operation starts (one of its threshold,
 * its offset), START is logged, *t says where the bytes go. */
static int
accept(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const struct mxd_ptl_hdr *h, ptl_size_t off, ptl_size_t mlen,
		struct mxd_ptl_tgt *t)
{
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
	if (!(md->md.options & PTL_MD_EVENT_START_DISABLE))
		mxd_ptl_log_req(ni, md, h->kind == MXD_PTL_PUT ?
				PTL_EVENT_PUT_START : PTL_EVENT_GET_START, h,
				mlen, off, t->link, PTL_NI_OK);
	return MXD_PTL_ACCEPT;
}

int
mxd_ptl_rx_request(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h,
		struct mxd_ptl_tgt *t)
{
	struct mxd_ptl_md *md;
	ptl_size_t off = 0, mlen = 0;

	t->req = *h;
	t->kind = h->kind;
	t->md = PTL_INVALID_HANDLE;
	t->offset = 0;
	t->link = 0;
	t->region.length = 0;
	if (h->kind == MXD_PTL_GET) {
		answer_of(&t->reply, MXD_PTL_REPLY, ni, h, 0, 0);
		t->reply.flags = MXD_PTL_F_DROPPED;
	}
	md = match(ni, h, &off, &mlen);
	if (md == NULL)
		return MXD_PTL_DROP;
	return accept(ni, md, h, off, mlen, t);
}

int
mxd_ptl_rx_put(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h,
		const void *data, struct mxd_ptl_hdr *ack)
{
	struct mxd_ptl_md *md;
	ptl_size_t off = 0, mlen = 0;
	ptl_seq_t link;
	unsigned o;
	int want_ack;

	md = match(ni, h, &off, &mlen);
	if (md == NULL)
		return 0;
	mxd_ptl_md_begin(md, mlen);
	link = ++ni->link;
	o = md->md.options;
	if (!(o & PTL_MD_EVENT_START_DISABLE))
		mxd_ptl_log_req(ni, md, PTL_EVENT_PUT_START, h, mlen, off, link,
				PTL_NI_OK);
	if (mlen == 0)
		;		/* a descriptor of no bytes may have no start */
	else if (!(o & PTL_MD_IOVEC))
		memcpy((uint8_t *)md->md.start + off, data, (size_t)mlen);
	else {
		struct mxd_ptl_region r;

		mxd_ptl_md_region(md, off, mlen, &r);
		mxd_ptl_region_write(&r, 0, data, mlen);
	}
	want_ack = (h->flags & MXD_PTL_F_ACK_REQ) && !(o & PTL_MD_ACK_DISABLE);
	md->pending--;
	if (!(o & PTL_MD_EVENT_END_DISABLE))
		mxd_ptl_log_req(ni, md, PTL_EVENT_PUT_END, h, mlen, off, link,
				PTL_NI_OK);
	mxd_ptl_unlink_req(ni, md, 1, PTL_EVENT_PUT_END, h, mlen, off, link,
			PTL_NI_OK);	/* md may be gone after */
	if (want_ack)
		answer_of(ack, MXD_PTL_ACK, ni, h, off, mlen);
	return want_ack;
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
	ptl_event_kind_t type = end_kind(t->kind, ok);
	ptl_size_t mlen = t->region.length;

	if (ni->closing || md == NULL || md_ni != ni || md->pending == 0)
		return 0;
	want_ack = ok && t->kind == MXD_PTL_PUT &&
		(t->req.flags & MXD_PTL_F_ACK_REQ) &&
		!(md->md.options & PTL_MD_ACK_DISABLE);
	md->pending--;
	if (!ok || !(md->md.options & PTL_MD_EVENT_END_DISABLE))
		mxd_ptl_log_req(ni, md, type, &t->req, mlen, t->offset, t->link,
				status);
	mxd_ptl_unlink_req(ni, md, ok, type, &t->req, mlen, t->offset, t->link,
			status);	/* md may be gone after */
	if (want_ack)
		answer_of(ack, MXD_PTL_ACK, ni, &t->req, t->offset, mlen);
	return want_ack;
}
