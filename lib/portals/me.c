/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Match entries: PtlMEAttach, PtlMEAttachAny, PtlMEInsert, PtlMEUnlink.
 *
 * Each portal index holds one match list, searched in order by incoming
 * requests (target.c).  PtlMEAttach puts an entry at its head or tail;
 * PtlMEInsert right before or after another entry; PtlMEAttachAny on the
 * first portal index whose list is empty.  Any node id and process id is
 * taken as valid in a match entry: which exist cannot be known, and a
 * wildcard in either matches any.
 */
#include "portals/ptl.h"

static void
me_fill(struct mxd_ptl_me *me, ptl_process_id_t id, ptl_match_bits_t bits,
		ptl_match_bits_t ignore, ptl_unlink_t unlink)
{
	me->match_id = id;
	me->bits = bits;
	me->ignore = ignore;
	me->unlink = unlink != PTL_RETAIN;
}

/* The first portal index with an empty match list, or MXD_PTL_NONE. */
static uint32_t
free_portal(const struct mxd_ptl_ni *ni)
{
	for (int i = 0; i <= ni->lim.max_pt_index; i++)
		if (ni->pt[i].len == 0)
			return (uint32_t)i;
	return MXD_PTL_NONE;
}

int
mxd_ptl_me_attach(ptl_handle_ni_t h, ptl_pt_index_t pt, int any,
		ptl_pt_index_t *anyp, ptl_process_id_t id, ptl_match_bits_t bits,
		ptl_match_bits_t ignore, ptl_unlink_t unlink, ptl_ins_pos_t pos,
		ptl_handle_me_t *out)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);
	struct mxd_ptl_me *me;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	if (out == NULL || (any && anyp == NULL))
		return PTL_SEGV;
	if (any) {
		pt = free_portal(ni);
		if (pt == MXD_PTL_NONE)
			return PTL_PT_FULL;
	} else if (pt > (ptl_pt_index_t)ni->lim.max_pt_index) {
		return PTL_INV_PTINDEX;
	}
	if (ni->pt[pt].len >= (uint32_t)ni->lim.max_me_list)
		return PTL_ML_TOOLONG;
	me = mxd_ptl_me_alloc(ni);
	if (me == NULL)
		return PTL_NOSPACE;
	me_fill(me, id, bits, ignore, unlink);
	mxd_ptl_me_link(ni, me, pt, MXD_PTL_NONE, pos == PTL_INS_BEFORE);
	if (any)
		*anyp = pt;
	*out = mxd_ptl_me_handle(ni, me);
	return PTL_OK;
}

int
mxd_ptl_me_insert(ptl_handle_me_t cur, ptl_process_id_t id,
		ptl_match_bits_t bits, ptl_match_bits_t ignore,
		ptl_unlink_t unlink, ptl_ins_pos_t pos, ptl_handle_me_t *out)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_me *at = mxd_ptl_me_get(cur, &ni), *me;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (at == NULL)
		return PTL_INV_ME;
	if (out == NULL)
		return PTL_SEGV;
	if (ni->pt[at->pt].len >= (uint32_t)ni->lim.max_me_list)
		return PTL_ML_TOOLONG;
	me = mxd_ptl_me_alloc(ni);
	if (me == NULL)
		return PTL_NOSPACE;
	me_fill(me, id, bits, ignore, unlink);
	mxd_ptl_me_link(ni, me, at->pt, (uint32_t)(at - ni->mes),
			pos == PTL_INS_BEFORE);
	*out = mxd_ptl_me_handle(ni, me);
	return PTL_OK;
}

int
mxd_ptl_me_unlink(ptl_handle_me_t h)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_me *me = mxd_ptl_me_get(h, &ni);

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (me == NULL)
		return PTL_INV_ME;
	if (me->md != MXD_PTL_NONE) {
		struct mxd_ptl_md *md = &ni->mds[me->md];

		if (md->pending != 0)
			return PTL_INUSE;	/* 3.3: PTL_ME_IN_USE */
		md->me = MXD_PTL_NONE;
		mxd_ptl_md_release(ni, md);
	}
	mxd_ptl_me_release(ni, me);
	return PTL_OK;
}
