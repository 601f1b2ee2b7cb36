/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory descriptors: whether one takes a request, what an operation
 * costs it, and when it goes.
 *
 * An operation counts once against the threshold, when it starts (a put
 * or get it is the target of, a put or get started from it), its end
 * counting nothing more; an acknowledgement is an operation of its own
 * (it logs an event), a descriptor's unlinking is not.  A descriptor is
 * inactive when its threshold is 0, when its local offset has passed
 * max_offset (PTL_MD_MAX_OFFSET) or leaves less than max_size
 * (PTL_MD_MAX_SIZE), or when a request that did not fit is to unlink it
 * (unlink_nofit) once its pending operations end.
 *
 * Unlinking with unlink_op (the 3.2 text): checked only after an
 * operation ends well, and only if an operation made the descriptor
 * inactive ('spent'): one made inactive by the application (threshold 0
 * at attach, or by PtlMDUpdate) stays linked.  A descriptor with
 * operations pending is never released; its unlinking waits for the last
 * of them.  The UNLINK event has the link of the event that caused it.
 */
#include <string.h>

#include "portals/ptl.h"

#define OPTIONS (PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE | \
	PTL_MD_TRUNCATE | PTL_MD_ACK_DISABLE | PTL_MD_IOVEC | PTL_MD_MAX_SIZE | \
	PTL_MD_EVENT_START_DISABLE | PTL_MD_EVENT_END_DISABLE | \
	PTL_MD_MAX_OFFSET)

void
mxd_ptl_md_unlink(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md)
{
	if (md->me != MXD_PTL_NONE) {
		struct mxd_ptl_me *me = &ni->mes[md->me];

		me->md = MXD_PTL_NONE;
		if (me->unlink)
			mxd_ptl_me_release(ni, me);
	}
	mxd_ptl_md_release(ni, md);
}

void
mxd_ptl_md_auto_unlink(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const ptl_event_t *cause)
{
	ptl_event_t ev = *cause;

	ev.type = PTL_EVENT_UNLINK;
	ev.ni_fail_type = PTL_NI_OK;
	mxd_ptl_log(ni, md, &ev);
	mxd_ptl_md_unlink(ni, md);
}

void
mxd_ptl_unlink_req(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md, int ok,
		ptl_event_kind_t type, const struct mxd_ptl_hdr *h,
		ptl_size_t mlen, ptl_size_t off, ptl_seq_t link,
		ptl_ni_fail_t fail)
{
	ptl_event_t cause;

	if (!mxd_ptl_md_unlink_due(md, ok))
		return;
	mxd_ptl_ev_req(&cause, type, h, mlen, off, link, fail);
	mxd_ptl_md_auto_unlink(ni, md, &cause);
}

static int
event_shown(const struct mxd_ptl_md *md, ptl_event_kind_t t)
{
	unsigned o = md->md.options;

	switch (t) {
	case PTL_EVENT_GET_START:
	case PTL_EVENT_PUT_START:
	case PTL_EVENT_REPLY_START:
	case PTL_EVENT_SEND_START:
		return !(o & PTL_MD_EVENT_START_DISABLE);
	case PTL_EVENT_GET_END:
	case PTL_EVENT_PUT_END:
	case PTL_EVENT_REPLY_END:
	case PTL_EVENT_SEND_END:
		return !(o & PTL_MD_EVENT_END_DISABLE);
	default:
		return 1;	/* FAIL, ACK, UNLINK: always */
	}
}

void
mxd_ptl_md_end(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md, ptl_event_t *ev)
{
	md->pending--;
	if (event_shown(md, ev->type))
		mxd_ptl_log(ni, md, ev);
	if (mxd_ptl_md_unlink_due(md, ev->ni_fail_type == PTL_NI_OK))
		mxd_ptl_md_auto_unlink(ni, md, ev);
}

void
mxd_ptl_md_event(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		ptl_event_t *ev)
{
	if (event_shown(md, ev->type))
		mxd_ptl_log(ni, md, ev);
	if (mxd_ptl_md_unlink_due(md, 1))
		mxd_ptl_md_auto_unlink(ni, md, ev);
}

void
mxd_ptl_md_nofit(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const ptl_event_t *cause)
{
	md->nofit_owed = 1;
	if (md->pending == 0)
		mxd_ptl_md_auto_unlink(ni, md, cause);
}

/* The segments of an iovec descriptor: -PTL_ILL_MD if too many, or one
 * with no memory; their sum in *size. */
static int
iov_check(const struct mxd_ptl_ni *ni, const ptl_md_t *md, ptl_size_t *size)
{
	const ptl_md_iovec_t *iov = (const ptl_md_iovec_t *)md->start;

	*size = 0;
	if (md->length > (ptl_size_t)ni->lim.max_md_iovecs ||
			(iov == NULL && md->length != 0))
		return -PTL_ILL_MD;
	for (ptl_size_t i = 0; i < md->length; i++) {
		if (iov[i].iov_base == NULL && iov[i].iov_len != 0)
			return -PTL_ILL_MD;
		if (*size + iov[i].iov_len < *size)
			return -PTL_ILL_MD;
		*size += iov[i].iov_len;
	}
	return 0;
}

int
mxd_ptl_md_check(struct mxd_ptl_ni *ni, const ptl_md_t *md)
{
	struct mxd_ptl_ni *eq_ni;
	ptl_size_t size;

	if ((md->options & ~OPTIONS) || md->threshold < PTL_MD_THRESH_INF)
		return -PTL_ILL_MD;
	if (md->options & PTL_MD_IOVEC) {
		if (iov_check(ni, md, &size) < 0)
			return -PTL_ILL_MD;
	} else if (md->start == NULL && md->length != 0) {
		return -PTL_ILL_MD;
	}
	if (md->eventq == PTL_EQ_NONE)
		return 0;
	if (mxd_ptl_eq_get(md->eventq, &eq_ni) == NULL)
		return -PTL_INV_EQ;
	return eq_ni == ni ? 0 : -PTL_ILL_MD;	/* another interface's */
}

void
mxd_ptl_md_set(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const ptl_md_t *umd)
{
	struct mxd_ptl_ni *eq_ni;

	md->md = *umd;
	md->eq = umd->eventq == PTL_EQ_NONE ? NULL :
		mxd_ptl_eq_get(umd->eventq, &eq_ni);
	md->eq_gen = md->eq != NULL ? md->eq->gen : 0;
	if (umd->options & PTL_MD_IOVEC) {
		const ptl_md_iovec_t *iov = (const ptl_md_iovec_t *)umd->start;

		(void)iov_check(ni, umd, &md->size);
		md->niov = (uint32_t)umd->length;
		if (md->niov)
			memcpy(md->iov, iov, md->niov * sizeof(*iov));
	} else {
		md->size = umd->length;
		md->niov = 0;
	}
}
