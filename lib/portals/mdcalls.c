/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PtlMDAttach, PtlMDBind, PtlMDUnlink, PtlMDUpdate.
 *
 * A descriptor with an operation pending (one it started, one moving
 * bytes into or out of it) cannot be unlinked (PTL_MD_INUSE), nor have
 * its memory changed by PtlMDUpdate: the transport reads and writes the
 * memory the descriptor described when the operation started.
 */
#include <string.h>

#include "portals/ptl.h"

/* A new descriptor from a checked ptl_md_t. */
static struct mxd_ptl_md *
md_new(struct mxd_ptl_ni *ni, const ptl_md_t *umd, ptl_unlink_t unlink_op,
		ptl_unlink_t unlink_nofit)
{
	struct mxd_ptl_md *md = mxd_ptl_md_alloc(ni);

	if (md == NULL)
		return NULL;
	mxd_ptl_md_set(ni, md, umd);
	md->offset = 0;
	md->unlink_op = unlink_op != PTL_RETAIN;
	md->unlink_nofit = unlink_nofit != PTL_RETAIN;
	return md;
}

int
mxd_ptl_md_attach(ptl_handle_me_t meh, const ptl_md_t *umd,
		ptl_unlink_t unlink_op, ptl_unlink_t unlink_nofit,
		ptl_handle_md_t *out)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_me *me = mxd_ptl_me_get(meh, &ni);
	struct mxd_ptl_md *md;
	int rc;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (me == NULL)
		return PTL_INV_ME;
	if (me->md != MXD_PTL_NONE)
		return PTL_INUSE;
	rc = mxd_ptl_md_check(ni, umd);
	if (rc < 0)
		return -rc;
	md = md_new(ni, umd, unlink_op, unlink_nofit);
	if (md == NULL)
		return PTL_NOSPACE;
	md->me = (uint32_t)(me - ni->mes);
	me->md = (uint32_t)(md - ni->mds);
	if (out != NULL)		/* 3.2: handle may be NULL */
		*out = mxd_ptl_md_handle(ni, md);
	return PTL_OK;
}

int
mxd_ptl_md_bind(ptl_handle_ni_t h, const ptl_md_t *umd,
		ptl_unlink_t unlink_op, ptl_handle_md_t *out)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);
	struct mxd_ptl_md *md;
	int rc;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	rc = mxd_ptl_md_check(ni, umd);
	if (rc < 0)
		return -rc;
	if (out == NULL)
		return PTL_SEGV;
	md = md_new(ni, umd, unlink_op, PTL_RETAIN);
	if (md == NULL)
		return PTL_NOSPACE;
	*out = mxd_ptl_md_handle(ni, md);
	return PTL_OK;
}

int
mxd_ptl_md_unlink_call(ptl_handle_md_t h)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_md *md = mxd_ptl_md_get(h, &ni);

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (md == NULL)
		return PTL_INV_MD;
	if (md->pending != 0)
		return PTL_MD_INUSE;
	mxd_ptl_md_unlink(ni, md);
	return PTL_OK;
}

/* Whether new_md describes other memory than md does now. */
static int
memory_changes(const struct mxd_ptl_md *md, const ptl_md_t *new_md)
{
	unsigned was = md->md.options & PTL_MD_IOVEC;

	if (new_md->start != md->md.start || new_md->length != md->md.length ||
			(new_md->options & PTL_MD_IOVEC) != was)
		return 1;
	return was && memcmp(md->iov, new_md->start,
			md->niov * sizeof(ptl_md_iovec_t)) != 0;
}

/* The test of PtlMDUpdate: PTL_OK to update, PTL_NOUPDATE, PTL_INV_EQ. */
static int
test_queue(ptl_handle_eq_t testq)
{
	struct mxd_ptl_ni *eq_ni;
	struct mxd_ptl_eq *eq;

	if (testq == PTL_EQ_NONE)
		return PTL_OK;
	eq = mxd_ptl_eq_get(testq, &eq_ni);
	if (eq == NULL)
		return PTL_INV_EQ;
	return eq->wr == eq->rd ? PTL_OK : PTL_NOUPDATE;
}

int
mxd_ptl_md_update(ptl_handle_md_t h, ptl_md_t *old_md, const ptl_md_t *new_md,
		ptl_handle_eq_t testq)
{
	struct mxd_ptl_ni *ni;
	struct mxd_ptl_md *md = mxd_ptl_md_get(h, &ni);
	int rc, changes;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (md == NULL)
		return PTL_INV_MD;
	rc = test_queue(testq);
	if (rc == PTL_INV_EQ)
		return rc;
	if (new_md != NULL) {
		int bad = mxd_ptl_md_check(ni, new_md);

		if (bad < 0)
			return -bad;
	}
	if (old_md != NULL)
		*old_md = md->md;
	if (new_md == NULL || rc != PTL_OK)
		return rc;
	changes = memory_changes(md, new_md);
	if (changes && md->pending != 0)
		return PTL_MD_INUSE;
	mxd_ptl_md_set(ni, md, new_md);
	if (changes)
		md->offset = 0;
	md->spent = 0;		/* made by the application, not spent */
	return PTL_OK;
}
