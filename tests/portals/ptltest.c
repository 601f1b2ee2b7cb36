/* SPDX-License-Identifier: BSD-3-Clause */
/* The Portals tests' fixture and helpers: see ptltest.h. */
#include <string.h>

#include "ptltest.h"

struct proc P[NPROC];
const ptl_process_id_t ANY_ID = { PTL_NID_ANY, PTL_PID_ANY };

void
proc_open_limits(int i, ptl_ni_limits_t *want)
{
	ptl_ni_limits_t actual;

	assert_int_equal(PtlNIInit((ptl_interface_t)i, PTL_PID_ANY, want,
			&actual, &P[i].ni), PTL_OK);
	assert_int_equal(PtlGetId(P[i].ni, &P[i].id), PTL_OK);
	assert_int_equal(PtlGetUid(P[i].ni, &P[i].uid), PTL_OK);
	assert_int_equal(PtlEQAlloc(P[i].ni, 64, &P[i].eq), PTL_OK);
}

void
proc_open(int i)
{
	proc_open_limits(i, NULL);
}

void
procs_open(int n)
{
	for (int i = 0; i < n; i++)
		proc_open(i);
}

static int
setup_mode(int sync)
{
	int n;

	memset(P, 0, sizeof(P));
	lb_reset();
	lb.sync = sync;
	mxd_ptl_transport(&lb_ops);
	assert_int_equal(PtlInit(&n), PTL_OK);
	assert_int_equal(n, 4);
	return 0;
}

int
setup(void **state)
{
	(void)state;
	setup_mode(0);
	procs_open(NPROC);
	return 0;
}

int
setup_sync(void **state)
{
	(void)state;
	setup_mode(1);
	procs_open(NPROC);
	return 0;
}

int
teardown(void **state)
{
	(void)state;
	PtlFini();
	lb_reset();
	return 0;
}

ptl_md_t
md_of(void *buf, ptl_size_t len, int threshold, unsigned options,
		ptl_handle_eq_t eq)
{
	ptl_md_t md;

	memset(&md, 0, sizeof(md));
	md.start = buf;
	md.length = len;
	md.threshold = threshold;
	md.options = options;
	md.user_ptr = buf;
	md.eventq = eq;
	return md;
}

ptl_handle_md_t
target_md(int p, ptl_pt_index_t pt, ptl_match_bits_t bits, void *buf,
		ptl_size_t len, int threshold, unsigned options)
{
	ptl_handle_me_t me;
	ptl_handle_md_t md;

	assert_int_equal(PtlMEAttach(P[p].ni, pt, ANY_ID, bits, 0,
			PTL_UNLINK, PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(buf, len, threshold, options,
			P[p].eq), PTL_RETAIN, PTL_RETAIN, &md), PTL_OK);
	return md;
}

ptl_handle_md_t
source_md(int p, void *buf, ptl_size_t len, int threshold)
{
	ptl_handle_md_t md;

	assert_int_equal(PtlMDBind(P[p].ni, md_of(buf, len, threshold, 0,
			P[p].eq), &md), PTL_OK);
	return md;
}

ptl_event_t
ev_next(ptl_handle_eq_t eq, ptl_event_kind_t kind)
{
	ptl_event_t ev;
	int rc;

	lb_pump();
	rc = PtlEQGet(eq, &ev);
	if (rc != PTL_OK)
		fail_msg("PtlEQGet: %s, wanted %s", PtlErrorStr((unsigned)rc),
				PtlEventKindStr(kind));
	if (ev.type != kind)
		fail_msg("event %s, wanted %s", PtlEventKindStr(ev.type),
				PtlEventKindStr(kind));
	return ev;
}

void
ev_none(ptl_handle_eq_t eq)
{
	ptl_event_t ev;
	int rc;

	lb_pump();
	rc = PtlEQGet(eq, &ev);
	if (rc != PTL_EQ_EMPTY)
		fail_msg("an event %s (%s) where none was due",
				PtlEventKindStr(ev.type),
				PtlErrorStr((unsigned)rc));
}

int
ev_kinds(ptl_handle_eq_t eq, ptl_event_kind_t *kinds, int max)
{
	ptl_event_t ev;
	int n = 0;

	lb_pump();
	while (n < max && PtlEQGet(eq, &ev) == PTL_OK)
		kinds[n++] = ev.type;
	return n;
}

ptl_sr_value_t
sr(int p, ptl_sr_index_t which)
{
	ptl_sr_value_t v = -1;

	assert_int_equal(PtlNIStatus(P[p].ni, which, &v), PTL_OK);
	return v;
}
