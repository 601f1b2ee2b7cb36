/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library and its network interfaces: PtlInit, PtlFini, PtlNIInit,
 * PtlNIFini, PtlNIStatus, PtlNIDist, PtlNIHandle, PtlGetId, PtlGetUid,
 * PtlGetJid, PtlACEntry.
 *
 * An interface is a board; the process opens it once (a second PtlNIInit
 * returns PTL_INIT_DUP and the open interface's handle, as 3.2's and
 * 3.3's implementations did).  Its limits are the desired ones where
 * they are in range, the defaults below elsewhere; its pools are sized
 * from them once.
 */
#include <string.h>

#include "portals/ptl.h"

/* Defaults and ceilings of the limits. */
#define DEF_MES		1024
#define DEF_MDS		1024
#define DEF_EQS		64
#define DEF_AC_INDEX	63
#define DEF_PT_INDEX	63
#define DEF_IOVECS	16
#define MAX_OBJS	(1 << 20)
#define MAX_EQS		4096
#define MAX_INDEX	4095
#define MAX_IOVECS	256

static const struct mxd_ptl_tp_ops *chosen;

void
mxd_ptl_transport(const struct mxd_ptl_tp_ops *ops)
{
	if (!mxd_ptl.init)
		chosen = ops;
}

int
mxd_ptl_init(int *max_interfaces)
{
	int n;

	if (max_interfaces == NULL)
		return PTL_SEGV;
	if (!mxd_ptl.init) {
		if (chosen == NULL)
			chosen = &mxd_ptl_engine_ops;
		n = chosen->init();
		if (n < 0)
			return PTL_FAIL;
		mxd_ptl.tp = chosen;
		mxd_ptl.interfaces = n < MXD_PTL_MAX_NI ? n : MXD_PTL_MAX_NI;
		mxd_ptl.init = 1;
	}
	*max_interfaces = mxd_ptl.interfaces;
	return PTL_OK;
}

void
mxd_ptl_fini(void)
{
	if (!mxd_ptl.init)
		return;
	for (int i = 0; i < MXD_PTL_MAX_NI; i++) {
		struct mxd_ptl_ni *ni = &mxd_ptl.ni[i];

		if (ni->used && !ni->closing)
			(void)mxd_ptl_ni_fini(mxd_ptl_handle(MXD_PTL_H_NI, ni,
					0, 0));
	}
	mxd_ptl.tp->fini();
	mxd_ptl.init = 0;
}

/* A desired value in [lo, hi], or the default. */
static int
limit(int want, int lo, int hi, int def)
{
	return want >= lo && want <= hi ? want : def;
}

static void
limits_of(ptl_ni_limits_t *l, const ptl_ni_limits_t *want)
{
	static const ptl_ni_limits_t none;

	if (want == NULL)
		want = &none;
	memset(l, 0, sizeof(*l));
	l->max_mes = limit(want->max_mes, 1, MAX_OBJS, DEF_MES);
	l->max_mds = limit(want->max_mds, 1, MAX_OBJS, DEF_MDS);
	l->max_eqs = limit(want->max_eqs, 1, MAX_EQS, DEF_EQS);
	l->max_ac_index = limit(want->max_ac_index, 1, MAX_INDEX,
			DEF_AC_INDEX);
	l->max_pt_index = limit(want->max_pt_index, 1, MAX_INDEX,
			DEF_PT_INDEX);
	l->max_md_iovecs = limit(want->max_md_iovecs, 1, MAX_IOVECS,
			DEF_IOVECS);
	l->max_me_list = limit(want->max_me_list, 1, l->max_mes, l->max_mes);
	l->max_getput_md = 0;
}

/* Entry 0 of the access control table: this user, any process, any
 * portal (the 3.2 text's default). */
static void
ac_default(struct mxd_ptl_ni *ni)
{
	struct mxd_ptl_ac *ac = &ni->ac[0];

	ac->used = 1;
	ac->id.nid = PTL_NID_ANY;
	ac->id.pid = PTL_PID_ANY;
	ac->uid = ni->me.uid;
	ac->jid = PTL_JID_ANY;
	ac->pt = PTL_PT_INDEX_ANY;
}

static int
ni_open(struct mxd_ptl_ni *ni, ptl_interface_t iface, ptl_pid_t pid,
		const ptl_ni_limits_t *desired)
{
	int rc;

	memset(ni, 0, sizeof(*ni));
	ni->slot = (uint8_t)iface;
	limits_of(&ni->lim, desired);
	rc = mxd_ptl_pools_new(ni);
	if (rc < 0)
		return -rc;
	rc = mxd_ptl.tp->ni_open(ni, iface, pid, &ni->me, &ni->tp);
	if (rc < 0) {
		mxd_ptl_pools_free(ni);
		return -rc;
	}
	ac_default(ni);
	ni->gen = ++mxd_ptl.gen[iface];
	ni->used = 1;
	return PTL_OK;
}

int
mxd_ptl_ni_init(ptl_interface_t iface, ptl_pid_t pid,
		const ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
		ptl_handle_ni_t *handle)
{
	struct mxd_ptl_ni *ni;
	int rc = PTL_OK;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (iface == PTL_IFACE_DEFAULT)
		iface = 0;
	if (iface >= (ptl_interface_t)mxd_ptl.interfaces)
		return PTL_INIT_INV;
	if (handle == NULL)
		return PTL_SEGV;
	ni = &mxd_ptl.ni[iface];
	if (ni->used && ni->closing)
		return PTL_FAIL;	/* another thread is closing it */
	if (ni->used)
		rc = PTL_INIT_DUP;
	else
		rc = ni_open(ni, iface, pid, desired);
	if (rc != PTL_OK && rc != PTL_INIT_DUP)
		return rc;
	*handle = mxd_ptl_handle(MXD_PTL_H_NI, ni, 0, 0);
	if (actual != NULL)
		*actual = ni->lim;
	return rc;
}

static int
no_waiters(void *arg)
{
	const struct mxd_ptl_ni *ni = arg;

	return ni->waiters == 0;
}

int
mxd_ptl_ni_fini(ptl_handle_ni_t h)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	ni->closing = 1;		/* every handle of it is dead */
	if (ni->waiters != 0) {
		mxd_ptl.tp->wakeup(ni->tp);
		while (ni->waiters != 0)
			mxd_ptl.tp->wait(ni->tp, no_waiters, ni, UINT32_MAX);
	}
	mxd_ptl.tp->ni_close(ni->tp);
	mxd_ptl_pools_free(ni);
	ni->used = 0;
	ni->closing = 0;
	mxd_ptl.gen[ni->slot]++;
	return PTL_OK;
}

int
mxd_ptl_ni_status(ptl_handle_ni_t h, ptl_sr_index_t sr, ptl_sr_value_t *v)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	if (sr >= MXD_PTL_SR_COUNT)
		return PTL_INV_SR_INDX;
	if (v == NULL)
		return PTL_SEGV;
	*v = ni->sr[sr];
	return PTL_OK;
}

int
mxd_ptl_ni_dist(ptl_handle_ni_t h, ptl_process_id_t id, unsigned long *dist)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);
	unsigned long d;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	if (dist == NULL)
		return PTL_SEGV;
	if (id.nid == PTL_NID_ANY || id.pid == PTL_PID_ANY ||
			mxd_ptl.tp->dist(ni->tp, id, &d) < 0)
		return PTL_INV_PROC;
	*dist = d;
	return PTL_OK;
}

int
mxd_ptl_ni_handle(ptl_handle_any_t h, ptl_handle_ni_t *out)
{
	struct mxd_ptl_ni *ni = NULL;
	int ok;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	switch (mxd_ptl_hkind(h)) {
	case MXD_PTL_H_NI:
		ok = (ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI)) != NULL;
		break;
	case MXD_PTL_H_EQ:
		ok = mxd_ptl_eq_get(h, &ni) != NULL;
		break;
	case MXD_PTL_H_MD:
		ok = mxd_ptl_md_get(h, &ni) != NULL;
		break;
	case MXD_PTL_H_ME:
		ok = mxd_ptl_me_get(h, &ni) != NULL;
		break;
	default:
		ok = 0;
		break;
	}
	if (!ok)
		return PTL_INV_HANDLE;
	if (out == NULL)
		return PTL_SEGV;
	*out = mxd_ptl_handle(MXD_PTL_H_NI, ni, 0, 0);
	return PTL_OK;
}

int
mxd_ptl_get_ident(ptl_handle_ni_t h, ptl_process_id_t *id, ptl_uid_t *uid,
		ptl_jid_t *jid)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	if (id == NULL && uid == NULL && jid == NULL)
		return PTL_SEGV;
	if (id != NULL)
		*id = ni->me.id;
	if (uid != NULL)
		*uid = ni->me.uid;
	if (jid != NULL)
		*jid = ni->me.jid;
	return PTL_OK;
}

int
mxd_ptl_ac_entry(ptl_handle_ni_t h, ptl_ac_index_t index, ptl_process_id_t id,
		ptl_uid_t uid, ptl_jid_t jid, ptl_pt_index_t pt)
{
	struct mxd_ptl_ni *ni = mxd_ptl_ni_of(h, MXD_PTL_H_NI);
	struct mxd_ptl_ac *ac;

	if (!mxd_ptl.init)
		return PTL_NOINIT;
	if (ni == NULL)
		return PTL_INV_NI;
	if (index > (ptl_ac_index_t)ni->lim.max_ac_index)
		return PTL_AC_INV_INDEX;
	if (pt != PTL_PT_INDEX_ANY && pt > (ptl_pt_index_t)ni->lim.max_pt_index)
		return PTL_PT_INV_INDEX;
	ac = &ni->ac[index];
	ac->used = 1;
	ac->id = id;
	ac->uid = uid;
	ac->jid = jid;
	ac->pt = pt;
	return PTL_OK;
}
