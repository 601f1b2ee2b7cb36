/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interfaces' pools of match entries, descriptors and event queues,
 * and the match lists (their handles: ptl.h).  Everything is allocated
 * here at PtlNIInit and freed at PtlNIFini (event rings at PtlEQAlloc and
 * PtlEQFree); nothing on the way of an operation.
 */
#include <stdlib.h>
#include <string.h>

#include "portals/ptl.h"

struct mxd_ptl_lib mxd_ptl;

/* ---- pools ---- */

/* A FIFO of the slots 0..n-1 chained through their 'next' members. */
#define POOL_INIT(p, arr, n) do {					\
	for (uint32_t i_ = 0; i_ < (n); i_++) {				\
		(arr)[i_].next = i_ + 1 < (n) ? i_ + 1 : MXD_PTL_NONE;	\
		(arr)[i_].gen = 1;					\
	}								\
	(p)->head = (n) ? 0 : MXD_PTL_NONE;				\
	(p)->tail = (n) ? (n) - 1 : MXD_PTL_NONE;			\
} while (0)

#define POOL_POP(p, arr, out) do {					\
	(out) = NULL;							\
	if ((p)->head != MXD_PTL_NONE) {				\
		(out) = &(arr)[(p)->head];				\
		(p)->head = (out)->next;				\
		if ((p)->head == MXD_PTL_NONE)				\
			(p)->tail = MXD_PTL_NONE;			\
		(out)->next = MXD_PTL_NONE;				\
	}								\
} while (0)

/* Back of the queue, with a new generation. */
#define POOL_PUSH(p, arr, obj) do {					\
	uint32_t s_ = (uint32_t)((obj) - (arr));			\
	(obj)->gen = ((obj)->gen + 1) & 0xffffff;			\
	if ((obj)->gen == 0)						\
		(obj)->gen = 1;						\
	(obj)->next = MXD_PTL_NONE;					\
	if ((p)->tail == MXD_PTL_NONE)					\
		(p)->head = s_;						\
	else								\
		(arr)[(p)->tail].next = s_;				\
	(p)->tail = s_;							\
} while (0)

int
mxd_ptl_pools_new(struct mxd_ptl_ni *ni)
{
	const ptl_ni_limits_t *l = &ni->lim;
	size_t niov = (size_t)l->max_mds * (size_t)l->max_md_iovecs;

	ni->pt = calloc((size_t)l->max_pt_index + 1, sizeof(*ni->pt));
	ni->ac = calloc((size_t)l->max_ac_index + 1, sizeof(*ni->ac));
	ni->mes = calloc((size_t)l->max_mes, sizeof(*ni->mes));
	ni->mds = calloc((size_t)l->max_mds, sizeof(*ni->mds));
	ni->eqs = calloc((size_t)l->max_eqs, sizeof(*ni->eqs));
	ni->iovs = calloc(niov ? niov : 1, sizeof(*ni->iovs));
	if (!ni->pt || !ni->ac || !ni->mes || !ni->mds || !ni->eqs ||
			!ni->iovs) {
		mxd_ptl_pools_free(ni);
		return -PTL_NOSPACE;
	}
	for (int i = 0; i <= l->max_pt_index; i++)
		ni->pt[i].head = ni->pt[i].tail = MXD_PTL_NONE;
	POOL_INIT(&ni->me_free, ni->mes, (uint32_t)l->max_mes);
	POOL_INIT(&ni->md_free, ni->mds, (uint32_t)l->max_mds);
	POOL_INIT(&ni->eq_free, ni->eqs, (uint32_t)l->max_eqs);
	for (int i = 0; i < l->max_mds; i++)
		ni->mds[i].iov = ni->iovs + (size_t)i *
			(size_t)l->max_md_iovecs;
	return 0;
}

void
mxd_ptl_pools_free(struct mxd_ptl_ni *ni)
{
	if (ni->eqs != NULL)
		for (int i = 0; i < ni->lim.max_eqs; i++)
			free(ni->eqs[i].ring);
	free(ni->pt);
	free(ni->ac);
	free(ni->mes);
	free(ni->mds);
	free(ni->eqs);
	free(ni->iovs);
	ni->pt = NULL;
	ni->ac = NULL;
	ni->mes = NULL;
	ni->mds = NULL;
	ni->eqs = NULL;
	ni->iovs = NULL;
}

struct mxd_ptl_me *
mxd_ptl_me_alloc(struct mxd_ptl_ni *ni)
{
	struct mxd_ptl_me *me;

	POOL_POP(&ni->me_free, ni->mes, me);
	if (me != NULL) {
		me->used = 1;
		me->md = MXD_PTL_NONE;
		me->prev = MXD_PTL_NONE;
	}
	return me;
}

struct mxd_ptl_md *
mxd_ptl_md_alloc(struct mxd_ptl_ni *ni)
{
	struct mxd_ptl_md *md;

	POOL_POP(&ni->md_free, ni->mds, md);
	if (md != NULL) {
		md->used = 1;
		md->me = MXD_PTL_NONE;
		md->pending = 0;
		md->spent = 0;
		md->nofit_owed = 0;
	}
	return md;
}

struct mxd_ptl_eq *
mxd_ptl_eq_alloc(struct mxd_ptl_ni *ni)
{
	struct mxd_ptl_eq *eq;

	POOL_POP(&ni->eq_free, ni->eqs, eq);
	if (eq != NULL) {
		eq->used = 1;
		eq->dying = 0;
		eq->waiters = 0;
	}
	return eq;
}

/* Takes me out of its portal's list. */
static void
me_unchain(struct mxd_ptl_ni *ni, struct mxd_ptl_me *me)
{
	struct mxd_ptl_pt *pt = &ni->pt[me->pt];

	if (me->prev == MXD_PTL_NONE)
		pt->head = me->next;
	else
		ni->mes[me->prev].next = me->next;
	if (me->next == MXD_PTL_NONE)
		pt->tail = me->prev;
	else
		ni->mes[me->next].prev = me->prev;
	pt->len--;
}

void
mxd_ptl_me_release(struct mxd_ptl_ni *ni, struct mxd_ptl_me *me)
{
	me_unchain(ni, me);
	me->used = 0;
	me->md = MXD_PTL_NONE;
	POOL_PUSH(&ni->me_free, ni->mes, me);
}

void
mxd_ptl_md_release(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md)
{
	md->used = 0;
	md->me = MXD_PTL_NONE;
	POOL_PUSH(&ni->md_free, ni->mds, md);
}

void
mxd_ptl_eq_release(struct mxd_ptl_ni *ni, struct mxd_ptl_eq *eq)
{
	free(eq->ring);
	eq->ring = NULL;
	eq->used = 0;
	eq->dying = 0;
	POOL_PUSH(&ni->eq_free, ni->eqs, eq);
}

void
mxd_ptl_me_link(struct mxd_ptl_ni *ni, struct mxd_ptl_me *me, uint32_t pt,
		uint32_t at, int before)
{
	struct mxd_ptl_pt *p = &ni->pt[pt];
	uint32_t s = (uint32_t)(me - ni->mes);

	me->pt = pt;
	if (at == MXD_PTL_NONE)
		at = before ? p->head : p->tail;
	if (at == MXD_PTL_NONE) {		/* the list was empty */
		me->prev = me->next = MXD_PTL_NONE;
		p->head = p->tail = s;
	} else if (before) {
		me->prev = ni->mes[at].prev;
		me->next = at;
		ni->mes[at].prev = s;
		if (me->prev == MXD_PTL_NONE)
			p->head = s;
		else
			ni->mes[me->prev].next = s;
	} else {
		me->next = ni->mes[at].next;
		me->prev = at;
		ni->mes[at].next = s;
		if (me->next == MXD_PTL_NONE)
			p->tail = s;
		else
			ni->mes[me->next].prev = s;
	}
	p->len++;
}

void
mxd_ptl_drop(struct mxd_ptl_ni *ni, ptl_sr_index_t why, uint64_t len)
{
	uint64_t sum = (uint64_t)ni->sr[PTL_SR_DROP_LENGTH] + len;

	ni->sr[PTL_SR_DROP_COUNT]++;
	/* A peer's length may be anything: the register saturates. */
	ni->sr[PTL_SR_DROP_LENGTH] = sum < (uint64_t)ni->sr[PTL_SR_DROP_LENGTH] ||
		sum > (uint64_t)INT64_MAX ? INT64_MAX : (ptl_sr_value_t)sum;
	if (why < MXD_PTL_SR_COUNT && why != PTL_SR_DROP_COUNT)
		ni->sr[why]++;
}
