/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals 3.2 core's rules, each shown in one process: processes are
 * interfaces of the loopback transport (tests/portals/loopback.h), which
 * carries every message through the core's transport interface and the
 * wire header as the engine does.  The rules come from the 3.2 text
 * (chapter 3: the calls; chapter 4: receiving messages) and from the
 * decisions portals3(3) documents where the text is silent or says two
 * things.
 */
#include <stdlib.h>
#include <string.h>

#include "ptltest.h"

static const ptl_process_id_t NO_ID = { 0x123456, 7 };

/* ---- before PtlInit, and the interface calls ---- */

/* Every call returns PTL_NOINIT before PtlInit (and after PtlFini). */
static void
noinit_everywhere(void **state)
{
	ptl_handle_any_t h = 0;
	ptl_md_t md = md_of(NULL, 0, 1, 0, PTL_EQ_NONE);
	ptl_event_t ev;
	ptl_process_id_t id;
	ptl_sr_value_t v;
	ptl_uid_t uid;
	ptl_jid_t jid;
	ptl_pt_index_t pt;
	unsigned long d;
	int which, n;
	const int codes[] = {
		PtlNIInit(0, PTL_PID_ANY, NULL, NULL, &h),
		PtlNIFini(h), PtlNIStatus(h, 0, &v), PtlNIDist(h, NO_ID, &d),
		PtlNIHandle(h, &h), PtlGetUid(h, &uid), PtlGetId(h, &id),
		PtlGetJid(h, &jid),
		PtlMEAttach(h, 0, ANY_ID, 0, 0, PTL_RETAIN, PTL_INS_AFTER, &h),
		PtlMEAttachAny(h, &pt, ANY_ID, 0, 0, PTL_RETAIN, &h),
		PtlMEInsert(h, ANY_ID, 0, 0, PTL_INS_AFTER, &h),
		PtlMEInsert(h, ANY_ID, 0, 0, PTL_UNLINK, PTL_INS_AFTER, &h),
		PtlMEUnlink(h),
		PtlMDAttach(h, md, PTL_RETAIN, PTL_RETAIN, &h),
		PtlMDAttach(h, md, PTL_RETAIN, &h),
		PtlMDBind(h, md, &h), PtlMDBind(h, md, PTL_UNLINK, &h),
		PtlMDUnlink(h), PtlMDUpdate(h, NULL, NULL, PTL_EQ_NONE),
		PtlEQAlloc(h, 1, &h), PtlEQAlloc(h, 1, PTL_EQ_HANDLER_NONE, &h),
		PtlEQFree(h), PtlEQGet(h, &ev), PtlEQWait(h, &ev),
		PtlEQPoll(&h, 1, 0, &ev, &which),
		PtlACEntry(h, 0, ANY_ID, PTL_UID_ANY, PTL_PT_INDEX_ANY),
		PtlACEntry(h, 0, ANY_ID, PTL_UID_ANY, PTL_JID_ANY,
				PTL_PT_INDEX_ANY),
		PtlPut(h, PTL_ACK_REQ, NO_ID, 0, 0, 0, 0, 0),
		PtlPutRegion(h, 0, 0, PTL_ACK_REQ, NO_ID, 0, 0, 0, 0, 0),
		PtlGet(h, NO_ID, 0, 0, 0, 0),
		PtlGetRegion(h, 0, 0, NO_ID, 0, 0, 0, 0),
		PtlGetPut(h, h, NO_ID, 0, 0, 0, 0, 0),
	};

	(void)state;
	lb_reset();
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i] != PTL_NOINIT)
			fail_msg("call %zu: %s", i, PtlErrorStr((unsigned)codes[i]));
	/* No transport chosen: PtlInit fails; with one, it succeeds, and
	 * again (it may be called more than once). */
	mxd_ptl_transport(NULL);
	assert_int_equal(PtlInit(&n), PTL_FAIL);
	mxd_ptl_transport(&lb_ops);
	assert_int_equal(PtlInit(NULL), PTL_SEGV);
	assert_int_equal(PtlInit(&n), PTL_OK);
	assert_int_equal(PtlInit(&n), PTL_OK);
	assert_int_equal(n, 4);
	PtlFini();
	assert_int_equal(PtlNIInit(0, PTL_PID_ANY, NULL, NULL, &h),
			PTL_NOINIT);
}

static void
ni_init_rules(void **state)
{
	ptl_ni_limits_t want, got;
	ptl_handle_ni_t ni, dup, other;
	ptl_process_id_t id;
	ptl_jid_t jid;
	int n;

	(void)state;
	lb_reset();
	mxd_ptl_transport(&lb_ops);
	assert_int_equal(PtlInit(&n), PTL_OK);
	assert_int_equal(PtlNIInit(4, PTL_PID_ANY, NULL, NULL, &ni),
			PTL_INIT_INV);
	assert_int_equal(PtlNIInit(0, 32, NULL, NULL, &ni), PTL_INV_PROC);
	assert_int_equal(PtlNIInit(0, 5, NULL, NULL, NULL), PTL_SEGV);
	/* Desired limits in range are taken; others, the defaults. */
	memset(&want, 0, sizeof(want));
	want.max_match_entries = 10;
	want.max_mem_descriptors = 20;
	want.max_event_queues = -3;
	want.max_atable_index = 3;
	want.max_ptable_index = 7;
	want.max_md_iovecs = 1000000;
	assert_int_equal(PtlNIInit(PTL_IFACE_DEFAULT, 5, &want, &got, &ni),
			PTL_OK);
	assert_int_equal(got.max_mes, 10);
	assert_int_equal(got.max_mds, 20);
	assert_int_equal(got.max_event_queues, 64);
	assert_int_equal(got.max_ac_index, 3);
	assert_int_equal(got.max_pt_index, 7);
	assert_int_equal(got.max_md_iovecs, 16);
	assert_int_equal(got.max_me_list, 10);
	assert_int_equal(PtlGetId(ni, &id), PTL_OK);
	assert_int_equal(id.pid, 5);
	assert_int_equal(id.nid, 0x020000000010ull);
	assert_int_equal(PtlGetJid(ni, &jid), PTL_OK);
	assert_int_equal(jid, PTL_JID_NONE);
	/* Again: PTL_INIT_DUP with the same handle and limits (the pid and
	 * the desired limits of this call are ignored). */
	memset(&got, 0, sizeof(got));
	assert_int_equal(PtlNIInit(0, 9, NULL, &got, &dup), PTL_INIT_DUP);
	assert_int_equal(dup, ni);
	assert_int_equal(got.max_mes, 10);
	assert_int_equal(PTL_IFACE_DUP, PTL_INIT_DUP);
	/* Interface 1 is on the same node: pid 5 is taken there. */
	assert_int_equal(PtlNIInit(1, 5, NULL, NULL, &other), PTL_INV_PROC);
	assert_int_equal(PtlNIInit(1, PTL_PID_ANY, NULL, NULL, &other),
			PTL_OK);
	assert_int_equal(PtlGetId(other, &id), PTL_OK);
	assert_int_equal(id.pid, 0);
	/* Closed: its handle is dead, also after it is opened again. */
	assert_int_equal(PtlNIFini(ni), PTL_OK);
	assert_int_equal(PtlNIFini(ni), PTL_INV_NI);
	assert_int_equal(PtlGetId(ni, &id), PTL_INV_NI);
	assert_int_equal(PtlNIInit(0, 5, NULL, NULL, &dup), PTL_OK);
	assert_int_not_equal(dup, ni);
	assert_int_equal(PtlGetId(ni, &id), PTL_INV_NI);
	PtlFini();
}

/* ---- helpers ---- */

static uint8_t src_buf[4096], dst_buf[4096];

static void
fill(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

/* P[from] puts len bytes of src_buf to P[to]'s portal pt. */
static ptl_handle_md_t
put(int from, int to, ptl_size_t len, ptl_ack_req_t ack, ptl_pt_index_t pt,
		ptl_ac_index_t ac, ptl_match_bits_t bits, ptl_size_t roff)
{
	ptl_handle_md_t md = source_md(from, src_buf, len, PTL_MD_THRESH_INF);

	assert_int_equal(PtlPut(md, ack, P[to].id, pt, ac, bits, roff,
			0x5a5a), PTL_OK);
	return md;
}

static ptl_handle_md_t
get(int from, int to, void *buf, ptl_size_t len, ptl_pt_index_t pt,
		ptl_match_bits_t bits, ptl_size_t roff)
{
	ptl_handle_md_t md = source_md(from, buf, len, PTL_MD_THRESH_INF);

	assert_int_equal(PtlGet(md, P[to].id, pt, 0, bits, roff), PTL_OK);
	return md;
}

/* Forgets the events in P[p]'s queue. */
static void
drain(int p)
{
	ptl_event_kind_t k[64];

	while (ev_kinds(P[p].eq, k, 64) > 0)
		;
}

/* Whether P[to] took the last put (a PUT_END is in its queue). */
static int
took(int to)
{
	ptl_event_kind_t k[8];
	int n = ev_kinds(P[to].eq, k, 8);

	return n == 2 && k[0] == PTL_EVENT_PUT_START &&
		k[1] == PTL_EVENT_PUT_END;
}

/* ---- matching ---- */

struct bits_case {
	ptl_match_bits_t me_bits, ignore, in;
	int match;
};

static const struct bits_case bits_cases[] = {
	{ 0, 0, 0, 1 },
	{ 0xff, 0, 0xff, 1 },
	{ 0xff, 0, 0xfe, 0 },
	{ 0xff, 0, 0x1ff, 0 },
	{ 0xff00, 0x00ff, 0xff12, 1 },
	{ 0xff00, 0x00ff, 0xfe12, 0 },
	{ 0, ~(ptl_match_bits_t)0, 0x0123456789abcdefull, 1 },
	{ 1ull << 63, 0, 1ull << 63, 1 },
	{ 1ull << 63, 0, 0, 0 },
	{ 0x8000000000000001ull, 0x7ffffffffffffffeull, 0x8123456789abcdefull,
		1 },
	{ 0x8000000000000001ull, 0x7ffffffffffffffeull, 0x0123456789abcdefull,
		0 },
};

/* ((bits ^ match_bits) & ~ignore_bits) == 0 */
static void
match_bits_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bits_cases) / sizeof(bits_cases[0]);
			i++) {
		const struct bits_case *c = &bits_cases[i];
		ptl_handle_me_t me;
		ptl_sr_value_t drops = sr(2, PTL_SR_DROP_NO_MATCH);

		assert_int_equal(PtlMEAttach(P[2].ni, PT, ANY_ID, c->me_bits,
				c->ignore, PTL_RETAIN, PTL_INS_AFTER, &me),
				PTL_OK);
		assert_int_equal(PtlMDAttach(me, md_of(dst_buf, 64,
				PTL_MD_THRESH_INF, PTL_MD_OP_PUT, P[2].eq),
				PTL_RETAIN, PTL_RETAIN, NULL), PTL_OK);
		put(0, 2, 8, PTL_NOACK_REQ, PT, 0, c->in, 0);
		lb_pump();
		if (took(2) != c->match)
			fail_msg("case %zu: match %d, wanted %d", i, !c->match,
					c->match);
		assert_int_equal(sr(2, PTL_SR_DROP_NO_MATCH),
				drops + !c->match);
		assert_int_equal(PtlMEUnlink(me), PTL_OK);
	}
}

struct src_case {
	int nid_of;		/* -1: PTL_NID_ANY; else P[i]'s */
	int pid_of;		/* -1: PTL_PID_ANY; else P[i]'s */
	unsigned from;		/* bit i: a put from P[i] matches */
};

static const struct src_case src_cases[] = {
	{ -1, -1, 0x7 },
	{ 0, -1, 0x3 },		/* node of P0 and P1 */
	{ 2, -1, 0x4 },		/* node of P2 (and P3, the target) */
	{ -1, 1, 0x2 },		/* pid 1: P1 (P3's too) */
	{ -1, 0, 0x5 },		/* pid 0: P0, P2 */
	{ 2, 2, 0x4 },		/* exactly P2 */
	{ 0, 1, 0x2 },		/* exactly P1 */
};

/* The source of a request against a match entry: nid and pid, each a
 * wildcard or not. */
static void
source_wildcards_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(src_cases) / sizeof(src_cases[0]); i++) {
		const struct src_case *c = &src_cases[i];
		ptl_process_id_t id = ANY_ID;
		ptl_handle_me_t me;
		unsigned got = 0;

		if (c->nid_of >= 0)
			id.nid = P[c->nid_of].id.nid;
		if (c->pid_of >= 0)
			id.pid = P[c->pid_of].id.pid;
		assert_int_equal(PtlMEAttach(P[3].ni, PT, id, 0, 0, PTL_RETAIN,
				PTL_INS_AFTER, &me), PTL_OK);
		assert_int_equal(PtlMDAttach(me, md_of(dst_buf, 64,
				PTL_MD_THRESH_INF, PTL_MD_OP_PUT, P[3].eq),
				PTL_RETAIN, PTL_RETAIN, NULL), PTL_OK);
		for (int from = 0; from < 3; from++) {
			put(from, 3, 4, PTL_NOACK_REQ, PT, 0, 0, 0);
			lb_pump();
			if (took(3))
				got |= 1u << from;
		}
		if (got != c->from)
			fail_msg("case %zu: from %#x, wanted %#x", i, got,
					c->from);
		assert_int_equal(PtlMEUnlink(me), PTL_OK);
	}
}

/* Entries that do not take a request let the search go on, in list
 * order; the first that takes it is the only one changed. */
static void
walk_continues(void **state)
{
	static uint8_t small[8], bufs[6][64];
	ptl_handle_me_t me;
	ptl_handle_md_t mds[6];
	ptl_md_t md;
	ptl_event_t ev;
	int i = 0;

	(void)state;
	/* 0: other match bits */
	mds[i++] = target_md(1, PT, 0x99, bufs[0], 64, 5, PTL_MD_OP_PUT);
	/* an entry with no descriptor */
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me), PTL_OK);
	/* 1: gets only */
	mds[i++] = target_md(1, PT, 0, bufs[1], 64, 5, PTL_MD_OP_GET);
	/* 2: inactive (threshold 0) */
	mds[i++] = target_md(1, PT, 0, bufs[2], 64, 0, PTL_MD_OP_PUT);
	/* 3: no room, no truncation */
	mds[i++] = target_md(1, PT, 0, small, sizeof(small), 5,
			PTL_MD_OP_PUT);
	/* 4: less room than its max_size (3.3's rule) */
	md = md_of(bufs[4], 64, 5, PTL_MD_OP_PUT | PTL_MD_MAX_SIZE, P[1].eq);
	md.max_size = 100;
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md, PTL_RETAIN, PTL_RETAIN,
			&mds[i++]), PTL_OK);
	/* 5: takes it */
	mds[i++] = target_md(1, PT, 0, bufs[5], 64, 5, PTL_MD_OP_PUT);

	fill(src_buf, 16, 1);
	put(0, 1, 16, PTL_NOACK_REQ, PT, 0, 0, 0);
	ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
	assert_int_equal(ev.md_handle, mds[5]);
	assert_ptr_equal(ev.md.user_ptr, bufs[5]);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	assert_memory_equal(bufs[5], src_buf, 16);
	/* The others are as they were. */
	for (int k = 0; k < 5; k++) {
		ptl_md_t now;

		assert_int_equal(PtlMDUpdate(mds[k], &now, NULL, PTL_EQ_NONE),
				PTL_OK);
		assert_int_equal(now.threshold, k == 2 ? 0 : 5);
	}
	/* Without it, nothing takes the request: dropped, counted, and the
	 * put asked for an ACK that does not come. */
	assert_int_equal(PtlMDUnlink(mds[5]), PTL_OK);
	drain(0);
	put(0, 1, 16, PTL_ACK_REQ, PT, 0, 0, 0);
	lb_pump();
	ev_none(P[1].eq);
	assert_int_equal(sr(1, PTL_SR_DROP_COUNT), 1);
	assert_int_equal(sr(1, PTL_SR_DROP_NO_MATCH), 1);
	assert_int_equal(sr(1, PTL_SR_DROP_LENGTH), 16);
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev_next(P[0].eq, PTL_EVENT_SEND_END);
	ev_none(P[0].eq);
}

/* The order of the checks: portal index, access control entry (which
 * must admit the initiator and the portal), then the match list; each
 * refusal counted once, in its register. */
struct order_case {
	const char *what;
	ptl_pt_index_t pt;
	ptl_ac_index_t ac;
	int entry;		/* set entry 2 as: 0 no, 1 admits, 2 other
				 * pid, 3 other uid, 4 other portal, 5 other
				 * job, 6 other node */
	ptl_sr_index_t counted;	/* PTL_SR_DROP_*, or 0: taken */
};

static const struct order_case order_cases[] = {
	{ "portal index, then cookie", 64, 99, 0, PTL_SR_DROP_PT_INDEX },
	{ "portal index", 64, 0, 0, PTL_SR_DROP_PT_INDEX },
	{ "cookie out of range", PT, 99, 0, PTL_SR_DROP_AC },
	{ "entry never set", PT, 1, 0, PTL_SR_DROP_AC },
	{ "entry of another pid", PT, 2, 2, PTL_SR_DROP_AC },
	{ "entry of another user", PT, 2, 3, PTL_SR_DROP_AC },
	{ "entry of another portal", PT, 2, 4, PTL_SR_DROP_AC },
	{ "entry of another job", PT, 2, 5, PTL_SR_DROP_AC },
	{ "entry of another node", PT, 2, 6, PTL_SR_DROP_AC },
	{ "entry admits", PT, 2, 1, 0 },
	{ "default entry 0", PT, 0, 0, 0 },
};

static void
check_order_table(void **state)
{
	(void)state;
	/* What would take the request, if it got that far. */
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	for (size_t i = 0; i < sizeof(order_cases) / sizeof(order_cases[0]);
			i++) {
		const struct order_case *c = &order_cases[i];
		ptl_process_id_t id = P[0].id;
		ptl_uid_t uid = P[0].uid;
		ptl_jid_t jid = PTL_JID_ANY;
		ptl_pt_index_t pt = PT;
		ptl_sr_value_t before[7];

		switch (c->entry) {
		case 2: id.pid = 17; break;
		case 3: uid = uid + 1; break;
		case 4: pt = PT + 1; break;
		case 5: jid = 7; break;
		case 6: id.nid = 0xbad; break;
		}
		if (c->entry)
			assert_int_equal(PtlACEntry(P[1].ni, 2, id, uid, jid, pt),
					PTL_OK);
		for (int r = 0; r < 7; r++)
			before[r] = sr(1, (ptl_sr_index_t)r);
		put(0, 1, 4, PTL_NOACK_REQ, c->pt, c->ac, 0, 0);
		lb_pump();
		if (took(1) != !c->counted)
			fail_msg("%s: taken %d", c->what, !!c->counted);
		for (int r = PTL_SR_DROP_PT_INDEX; r <= PTL_SR_DROP_NO_MATCH; r++)
			if (sr(1, (ptl_sr_index_t)r) - before[r] !=
					(r == (int)c->counted))
				fail_msg("%s: register %d", c->what, r);
		assert_int_equal(sr(1, PTL_SR_DROP_COUNT) - before[0],
				!!c->counted);
	}
}

/* Entry 0 admits the processes of this user only; PtlACEntry opens it
 * to others. */
static void
ac_default_user(void **state)
{
	(void)state;
	assert_int_equal(PtlNIFini(P[2].ni), PTL_OK);
	lb_config(2, P[2].id.nid, P[0].uid + 1);
	proc_open(2);
	assert_int_equal(P[2].uid, P[0].uid + 1);
	target_md(0, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	put(2, 0, 4, PTL_NOACK_REQ, PT, 0, 0, 0);
	lb_pump();
	assert_false(took(0));
	assert_int_equal(sr(0, PTL_SR_DROP_AC), 1);
	put(1, 0, 4, PTL_NOACK_REQ, PT, 0, 0, 0);
	lb_pump();
	assert_true(took(0));
	assert_int_equal(PtlACEntry(P[0].ni, 0, ANY_ID, PTL_UID_ANY,
			PTL_PT_INDEX_ANY), PTL_OK);
	put(2, 0, 4, PTL_NOACK_REQ, PT, 0, 0, 0);
	lb_pump();
	assert_true(took(0));
	/* The entry's own errors. */
	assert_int_equal(PtlACEntry(P[0].ni, 64, ANY_ID, PTL_UID_ANY,
			PTL_PT_INDEX_ANY), PTL_AC_INV_INDEX);
	assert_int_equal(PtlACEntry(P[0].ni, 1, ANY_ID, PTL_UID_ANY, 64),
			PTL_PT_INV_INDEX);
	assert_int_equal(PtlACEntry(P[0].ni, 63, ANY_ID, PTL_UID_ANY, 63),
			PTL_OK);
	assert_int_equal(PtlACEntry(P[0].eq, 1, ANY_ID, PTL_UID_ANY, 1),
			PTL_INV_NI);
}

/* ---- list positions ---- */

static ptl_handle_me_t
tagged_me(ptl_handle_me_t me, void *tag)
{
	ptl_md_t md = md_of(dst_buf, 1, 1, PTL_MD_OP_PUT, P[1].eq);

	md.user_ptr = tag;
	assert_int_equal(PtlMDAttach(me, md, PTL_RETAIN, PTL_RETAIN, NULL),
			PTL_OK);
	return me;
}

static ptl_handle_me_t
attach(int pos, char *tag)
{
	ptl_handle_me_t me;

	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_RETAIN,
			pos, &me), PTL_OK);
	return tagged_me(me, tag);
}

static ptl_handle_me_t
insert(ptl_handle_me_t at, int pos, char *tag)
{
	ptl_handle_me_t me;

	assert_int_equal(PtlMEInsert(at, ANY_ID, 0, 0, pos, &me), PTL_OK);
	return tagged_me(me, tag);
}

/* PtlMEAttach before and after a list, PtlMEInsert before and after an
 * entry (at the head, in the middle, at the tail): each entry takes one
 * put (threshold 1), so the puts come in list order. */
static void
list_positions(void **state)
{
	static char tags[] = "ABCDEFG";
	const char want[] = "GCDAEBF";
	ptl_handle_me_t a, b, c;

	(void)state;
	a = attach(PTL_INS_AFTER, &tags[0]);		/* A */
	b = attach(PTL_INS_AFTER, &tags[1]);		/* A B */
	c = attach(PTL_INS_BEFORE, &tags[2]);		/* C A B */
	insert(a, PTL_INS_BEFORE, &tags[3]);		/* C D A B */
	insert(a, PTL_INS_AFTER, &tags[4]);		/* C D A E B */
	insert(b, PTL_INS_AFTER, &tags[5]);		/* C D A E B F */
	insert(c, PTL_INS_BEFORE, &tags[6]);		/* G C D A E B F */
	for (int i = 0; i < 7; i++) {
		ptl_event_t ev;

		put(0, 1, 1, PTL_NOACK_REQ, PT, 0, 0, 0);
		ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
		ev_next(P[1].eq, PTL_EVENT_PUT_END);
		if (*(char *)ev.md.user_ptr != want[i])
			fail_msg("put %d went to %c, wanted %c", i,
					*(char *)ev.md.user_ptr, want[i]);
	}
	assert_int_equal(PtlMEInsert(P[1].eq, ANY_ID, 0, 0, PTL_INS_AFTER,
			&a), PTL_INV_ME);
}

/* PtlMEAttachAny takes the first portal index with an empty list; the
 * list and pool limits. */
static void
attach_any_and_limits(void **state)
{
	ptl_ni_limits_t want;
	ptl_handle_me_t me[4], x;
	ptl_pt_index_t pt;

	(void)state;
	assert_int_equal(PtlNIFini(P[3].ni), PTL_OK);
	memset(&want, 0, sizeof(want));
	want.max_ptable_index = 3;
	want.max_match_entries = 5;
	want.max_me_list = 2;
	proc_open_limits(3, &want);
	assert_int_equal(PtlMEAttach(P[3].ni, 0, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me[0]), PTL_OK);
	assert_int_equal(PtlMEAttach(P[3].ni, 2, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me[2]), PTL_OK);
	assert_int_equal(PtlMEAttachAny(P[3].ni, &pt, ANY_ID, 0, 0, PTL_RETAIN,
			&me[1]), PTL_OK);
	assert_int_equal(pt, 1);
	assert_int_equal(PtlMEAttachAny(P[3].ni, &pt, ANY_ID, 0, 0, PTL_RETAIN,
			&me[3]), PTL_OK);
	assert_int_equal(pt, 3);
	assert_int_equal(PtlMEAttachAny(P[3].ni, &pt, ANY_ID, 0, 0, PTL_RETAIN,
			&x), PTL_PT_FULL);
	assert_int_equal(PtlMEUnlink(me[1]), PTL_OK);
	assert_int_equal(PtlMEAttachAny(P[3].ni, &pt, ANY_ID, 0, 0, PTL_RETAIN,
			&me[1]), PTL_OK);
	assert_int_equal(pt, 1);
	assert_int_equal(PtlMEAttach(P[3].ni, 4, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &x), PTL_INV_PTINDEX);
	/* Lists of at most 2; 5 entries in all. */
	assert_int_equal(PtlMEAttach(P[3].ni, 0, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &x), PTL_OK);
	assert_int_equal(PtlMEAttach(P[3].ni, 0, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &x), PTL_ML_TOOLONG);
	assert_int_equal(PtlMEInsert(x, ANY_ID, 0, 0, PTL_INS_AFTER, &x),
			PTL_ML_TOOLONG);
	assert_int_equal(PtlMEAttach(P[3].ni, 2, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &x), PTL_NOSPACE);
	assert_int_equal(PtlMEAttach(P[3].ni, 2, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, NULL), PTL_SEGV);
}

/* ---- descriptors: offsets, truncation, thresholds ---- */

struct off_case {
	ptl_size_t len, roff;
	int taken;
	ptl_size_t offset, mlength;
};

/* A locally managed descriptor of 100 bytes: each put lands after the
 * last; one that does not fit is refused, or cut with PTL_MD_TRUNCATE. */
static const struct off_case local_cases[] = {
	{ 30, 77, 1, 0, 30 },	/* the remote offset is not used */
	{ 30, 0, 1, 30, 30 },
	{ 50, 0, 0, 0, 0 },	/* 40 left: no fit, no truncation */
	{ 40, 0, 1, 60, 40 },
	{ 1, 0, 0, 0, 0 },
};

static const struct off_case local_trunc_cases[] = {
	{ 30, 0, 1, 0, 30 },
	{ 30, 0, 1, 30, 30 },
	{ 50, 0, 1, 60, 40 },	/* truncated */
	{ 5, 0, 1, 100, 0 },	/* nothing left: 0 bytes */
};

/* PTL_MD_MANAGE_REMOTE: the request says where. */
static const struct off_case remote_cases[] = {
	{ 10, 10, 1, 10, 10 },
	{ 10, 10, 1, 10, 10 },	/* the offset does not move */
	{ 10, 95, 0, 0, 0 },	/* 5 left, no truncation */
	{ 0, 100, 1, 100, 0 },
	{ 10, 200, 0, 0, 0 },
};

static const struct off_case remote_trunc_cases[] = {
	{ 10, 95, 1, 95, 5 },
	{ 10, 200, 1, 200, 0 },
	{ 100, 0, 1, 0, 100 },
};

static void
offsets_run(const struct off_case *cases, size_t n, unsigned opts)
{
	static uint8_t region[100];

	memset(region, 0, sizeof(region));
	target_md(1, PT, 0, region, sizeof(region), PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | opts);
	for (size_t i = 0; i < n; i++) {
		const struct off_case *c = &cases[i];

		fill(src_buf, (size_t)c->len, (uint8_t)i);
		put(0, 1, c->len, PTL_NOACK_REQ, PT, 0, 0, c->roff);
		if (c->taken) {
			ptl_event_t ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);

			assert_int_equal(ev.offset, c->offset);
			assert_int_equal(ev.mlength, c->mlength);
			assert_int_equal(ev.rlength, c->len);
			ev = ev_next(P[1].eq, PTL_EVENT_PUT_END);
			assert_int_equal(ev.offset, c->offset);
			assert_int_equal(ev.mlength, c->mlength);
			if (c->mlength)
				assert_memory_equal(region + c->offset, src_buf,
						(size_t)c->mlength);
		} else {
			ev_none(P[1].eq);
		}
	}
}

static void
local_offsets(void **state)
{
	(void)state;
	offsets_run(local_cases, sizeof(local_cases) / sizeof(local_cases[0]),
			0);
	assert_int_equal(sr(1, PTL_SR_DROP_NO_MATCH), 2);
}

static void
local_truncation(void **state)
{
	(void)state;
	offsets_run(local_trunc_cases, sizeof(local_trunc_cases) /
			sizeof(local_trunc_cases[0]), PTL_MD_TRUNCATE);
}

static void
remote_offsets(void **state)
{
	(void)state;
	offsets_run(remote_cases, sizeof(remote_cases) /
			sizeof(remote_cases[0]), PTL_MD_MANAGE_REMOTE);
}

static void
remote_truncation(void **state)
{
	(void)state;
	offsets_run(remote_trunc_cases, sizeof(remote_trunc_cases) /
			sizeof(remote_trunc_cases[0]),
			PTL_MD_MANAGE_REMOTE | PTL_MD_TRUNCATE);
}

/* A get reads from the offset the target's descriptor says, and its
 * reply is cut to what the target's descriptor holds; the initiator's
 * ACK of a truncated put says how much was taken. */
static void
get_offsets_and_truncated_ack(void **state)
{
	static uint8_t region[64], back[32];
	ptl_event_t ev;

	(void)state;
	fill(region, sizeof(region), 3);
	target_md(2, PT, 1, region, sizeof(region), PTL_MD_THRESH_INF,
			PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE | PTL_MD_TRUNCATE);
	get(0, 2, back, 8, PT, 1, 4);
	ev = ev_next(P[0].eq, PTL_EVENT_REPLY_START);
	assert_int_equal(ev.mlength, 8);
	ev_next(P[0].eq, PTL_EVENT_REPLY_END);
	assert_memory_equal(back, region + 4, 8);
	get(0, 2, back, 32, PT, 1, 60);		/* 4 bytes left there */
	ev = ev_next(P[0].eq, PTL_EVENT_REPLY_START);
	assert_int_equal(ev.rlength, 32);
	assert_int_equal(ev.mlength, 4);
	ev = ev_next(P[0].eq, PTL_EVENT_REPLY_END);
	assert_int_equal(ev.mlength, 4);
	assert_memory_equal(back, region + 60, 4);
	ev = ev_next(P[2].eq, PTL_EVENT_GET_START);
	ev = ev_next(P[2].eq, PTL_EVENT_GET_END);
	ev = ev_next(P[2].eq, PTL_EVENT_GET_START);
	assert_int_equal(ev.offset, 60);
	assert_int_equal(ev.mlength, 4);
	ev_next(P[2].eq, PTL_EVENT_GET_END);

	target_md(2, PT, 2, region, 10, 1, PTL_MD_OP_PUT | PTL_MD_TRUNCATE);
	put(0, 2, 25, PTL_ACK_REQ, PT, 0, 2, 0);
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev_next(P[0].eq, PTL_EVENT_SEND_END);
	ev = ev_next(P[0].eq, PTL_EVENT_ACK);
	assert_int_equal(ev.rlength, 25);
	assert_int_equal(ev.mlength, 10);
	assert_int_equal(ev.initiator.nid, P[2].id.nid);
	assert_int_equal(ev.initiator.pid, P[2].id.pid);
}

/* An operation counts once against the threshold (START and END
 * together); PTL_MD_THRESH_INF is not counted. */
static void
threshold_counts(void **state)
{
	static uint8_t a[16], b[16];
	ptl_event_t ev;

	(void)state;
	target_md(1, PT, 1, a, sizeof(a), 2, PTL_MD_OP_PUT);
	target_md(1, PT, 2, b, sizeof(b), PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	for (int i = 0; i < 2; i++) {
		put(0, 1, 4, PTL_NOACK_REQ, PT, 0, 1, 0);
		ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
		assert_int_equal(ev.md.threshold, 1 - i);
		ev = ev_next(P[1].eq, PTL_EVENT_PUT_END);
		assert_int_equal(ev.md.threshold, 1 - i);
	}
	put(0, 1, 4, PTL_NOACK_REQ, PT, 0, 1, 0);	/* spent: dropped */
	ev_none(P[1].eq);
	assert_int_equal(sr(1, PTL_SR_DROP_COUNT), 1);
	for (int i = 0; i < 3; i++) {
		put(0, 1, 4, PTL_NOACK_REQ, PT, 0, 2, 0);
		ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
		assert_int_equal(ev.md.threshold, PTL_MD_THRESH_INF);
		ev_next(P[1].eq, PTL_EVENT_PUT_END);
	}
}

/* At the initiator: the put counts one, its ACK another; a put from a
 * spent descriptor is refused; an ACK to one is dropped. */
static void
initiator_threshold_and_ack(void **state)
{
	ptl_handle_md_t md;
	ptl_event_t ev;

	(void)state;
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	md = source_md(0, src_buf, 8, 2);
	assert_int_equal(PtlPut(md, PTL_ACK_REQ, P[1].id, PT, 0, 0, 0, 0),
			PTL_OK);
	ev = ev_next(P[0].eq, PTL_EVENT_SEND_START);
	assert_int_equal(ev.md.threshold, 1);
	ev = ev_next(P[0].eq, PTL_EVENT_SEND_END);
	assert_int_equal(ev.md.threshold, 1);
	ev = ev_next(P[0].eq, PTL_EVENT_ACK);
	assert_int_equal(ev.md.threshold, 0);
	assert_int_equal(PtlPut(md, PTL_ACK_REQ, P[1].id, PT, 0, 0, 0, 0),
			PTL_INV_MD);
	/* Threshold 1 and an ACK asked for: the ACK finds it spent. */
	md = source_md(0, src_buf, 8, 1);
	assert_int_equal(PtlPut(md, PTL_ACK_REQ, P[1].id, PT, 0, 0, 0, 0),
			PTL_OK);
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev_next(P[0].eq, PTL_EVENT_SEND_END);
	ev_none(P[0].eq);
	assert_int_equal(sr(0, PTL_SR_DROP_LATE), 1);
	assert_int_equal(sr(0, PTL_SR_DROP_COUNT), 1);
	/* A get counts one too. */
	md = source_md(0, src_buf, 8, 1);
	assert_int_equal(PtlGet(md, P[1].id, PT, 0, 0, 0), PTL_OK);
	assert_int_equal(PtlGet(md, P[1].id, PT, 0, 0, 0), PTL_INV_MD);
}

/* A descriptor made inactive by the application (threshold 0 at attach,
 * or by PtlMDUpdate) stays linked, with unlink_op PTL_UNLINK too, and
 * becomes active again by PtlMDUpdate. */
static void
threshold_zero_stays_linked(void **state)
{
	ptl_handle_me_t me;
	ptl_handle_md_t md;
	ptl_md_t now;

	(void)state;
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(dst_buf, 64, 0, PTL_MD_OP_PUT,
			P[1].eq), PTL_UNLINK, PTL_UNLINK, &md), PTL_OK);
	put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 0, 0);
	lb_pump();
	ev_none(P[1].eq);
	assert_int_equal(sr(1, PTL_SR_DROP_NO_MATCH), 1);
	assert_int_equal(PtlMDUpdate(md, &now, NULL, PTL_EQ_NONE), PTL_OK);
	assert_int_equal(now.threshold, 0);
	now.threshold = 1;
	assert_int_equal(PtlMDUpdate(md, NULL, &now, PTL_EQ_NONE), PTL_OK);
	put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 0, 0);
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_next(P[1].eq, PTL_EVENT_UNLINK);	/* spent by the put */
	assert_int_equal(PtlMDUnlink(md), PTL_INV_MD);
	assert_int_equal(PtlMEUnlink(me), PTL_INV_ME);
}

/* ---- unlinking ---- */

/* unlink_op: after the operation that spends it, an UNLINK with its
 * link; its match entry goes too if it was attached with PTL_UNLINK,
 * and stays (matching nothing) with PTL_RETAIN. */
static void
unlink_op_rules(void **state)
{
	ptl_handle_me_t me[2];
	ptl_handle_md_t md[2];
	ptl_event_t start, end, un;

	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, (ptl_match_bits_t)i,
				0, i ? PTL_RETAIN : PTL_UNLINK, PTL_INS_AFTER,
				&me[i]), PTL_OK);
		assert_int_equal(PtlMDAttach(me[i], md_of(dst_buf, 64, 1,
				PTL_MD_OP_PUT, P[1].eq), PTL_UNLINK,
				PTL_RETAIN, &md[i]), PTL_OK);
		put(0, 1, 8, PTL_NOACK_REQ, PT, 0, (ptl_match_bits_t)i, 0);
		start = ev_next(P[1].eq, PTL_EVENT_PUT_START);
		end = ev_next(P[1].eq, PTL_EVENT_PUT_END);
		un = ev_next(P[1].eq, PTL_EVENT_UNLINK);
		assert_int_equal(start.link, end.link);
		assert_int_equal(un.link, end.link);
		assert_int_equal(un.md_handle, md[i]);
		assert_int_equal(un.md.threshold, 0);
		assert_int_equal(PtlMDUnlink(md[i]), PTL_INV_MD);
	}
	assert_int_equal(PtlMEUnlink(me[0]), PTL_INV_ME);
	/* me[1] stays, with no descriptor: it takes nothing. */
	put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 1, 0);
	lb_pump();
	ev_none(P[1].eq);
	assert_int_equal(PtlMEUnlink(me[1]), PTL_OK);
	/* PTL_RETAIN: spent, it stays, inactive. */
	md[0] = target_md(1, PT, 3, dst_buf, 64, 1, PTL_MD_OP_PUT);
	put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 3, 0);
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_none(P[1].eq);
	assert_int_equal(PtlMDUnlink(md[0]), PTL_OK);	/* no event */
	ev_none(P[1].eq);
}

/* unlink_nofit: a request it would take but that does not fit unlinks
 * it (UNLINK event), and the search goes on to the next entry.  The
 * unlinking is not an operation: its threshold is as it was. */
static void
unlink_nofit_rules(void **state)
{
	static uint8_t small[10], big[100];
	ptl_handle_me_t me;
	ptl_handle_md_t md_small, md_keep;
	ptl_event_t ev;

	(void)state;
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(small, sizeof(small), 5,
			PTL_MD_OP_PUT, P[1].eq), PTL_RETAIN, PTL_UNLINK,
			&md_small), PTL_OK);
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(small, sizeof(small), 5,
			PTL_MD_OP_PUT, P[1].eq), PTL_RETAIN, PTL_RETAIN,
			&md_keep), PTL_OK);
	target_md(1, PT, 0, big, sizeof(big), 5, PTL_MD_OP_PUT);
	put(0, 1, 50, PTL_NOACK_REQ, PT, 0, 0, 0);
	ev = ev_next(P[1].eq, PTL_EVENT_UNLINK);
	assert_int_equal(ev.md_handle, md_small);
	assert_int_equal(ev.md.threshold, 5);
	ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
	assert_ptr_equal(ev.md.user_ptr, big);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	assert_int_equal(PtlMDUnlink(md_small), PTL_INV_MD);
	assert_int_equal(PtlMDUnlink(md_keep), PTL_OK);	/* still there */
	/* A request that fits leaves it alone. */
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_UNLINK,
			PTL_INS_BEFORE, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(small, sizeof(small), 5,
			PTL_MD_OP_PUT, P[1].eq), PTL_RETAIN, PTL_UNLINK,
			&md_small), PTL_OK);
	put(0, 1, 10, PTL_NOACK_REQ, PT, 0, 0, 0);
	ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
	assert_int_equal(ev.md_handle, md_small);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
}

/* max_offset (3.2, with PTL_MD_MAX_OFFSET) and max_size (3.3, with
 * PTL_MD_MAX_SIZE) make a descriptor inactive, and unlink_op then
 * unlinks it; without their option they do nothing. */
static void
max_offset_and_size(void **state)
{
	ptl_handle_me_t me;
	ptl_handle_md_t md;
	ptl_md_t d;

	(void)state;
	d = md_of(dst_buf, 100, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_MAX_OFFSET, P[1].eq);
	d.max_offset = 20;
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 1, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, d, PTL_UNLINK, PTL_RETAIN, &md),
			PTL_OK);
	put(0, 1, 20, PTL_NOACK_REQ, PT, 0, 1, 0);	/* offset 20: still */
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_none(P[1].eq);
	put(0, 1, 1, PTL_NOACK_REQ, PT, 0, 1, 0);	/* 21 > 20 */
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_next(P[1].eq, PTL_EVENT_UNLINK);

	d = md_of(dst_buf, 100, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_MAX_SIZE, P[1].eq);
	d.max_size = 40;
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 2, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, d, PTL_UNLINK, PTL_RETAIN, &md),
			PTL_OK);
	put(0, 1, 60, PTL_NOACK_REQ, PT, 0, 2, 0);	/* 40 left: still */
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_none(P[1].eq);
	put(0, 1, 1, PTL_NOACK_REQ, PT, 0, 2, 0);	/* 39 < 40 */
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_next(P[1].eq, PTL_EVENT_UNLINK);

	/* No option: the members are ignored, whatever they hold. */
	d = md_of(dst_buf, 100, PTL_MD_THRESH_INF, PTL_MD_OP_PUT, P[1].eq);
	d.max_size = 0x7777777777ull;
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 3, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, d, PTL_UNLINK, PTL_RETAIN, &md),
			PTL_OK);
	for (int i = 0; i < 3; i++) {
		put(0, 1, 30, PTL_NOACK_REQ, PT, 0, 3, 0);
		ev_next(P[1].eq, PTL_EVENT_PUT_START);
		ev_next(P[1].eq, PTL_EVENT_PUT_END);
	}
	ev_none(P[1].eq);
}

/* PtlMDUpdate happens only if the test queue is empty (the race fix of
 * the 3.2 text's MPI example); old_md is filled either way. */
static void
md_update_conditional(void **state)
{
	ptl_handle_md_t md;
	ptl_md_t old, nu;
	ptl_event_t ev;

	(void)state;
	md = target_md(1, PT, 0, dst_buf, 64, 0, PTL_MD_OP_PUT);
	nu = md_of(dst_buf, 64, 1, PTL_MD_OP_PUT, P[1].eq);
	target_md(1, PT, 0, src_buf, 64, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_TRUNCATE);
	put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 0, 0);
	lb_pump();			/* the second entry took it */
	memset(&old, 0, sizeof(old));
	assert_int_equal(PtlMDUpdate(md, &old, &nu, P[1].eq), PTL_NOUPDATE);
	assert_int_equal(old.threshold, 0);
	assert_ptr_equal(old.start, dst_buf);
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	assert_int_equal(PtlMDUpdate(md, &old, &nu, P[1].eq), PTL_OK);
	put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 0, 0);
	ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
	assert_int_equal(ev.md_handle, md);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	/* PTL_EQ_NONE: unconditional; the queue is not that of the
	 * descriptor (any queue may test). */
	put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 0, 0);
	lb_pump();
	assert_int_equal(PtlMDUpdate(md, NULL, &nu, P[1].eq), PTL_NOUPDATE);
	assert_int_equal(PtlMDUpdate(md, NULL, &nu, P[2].eq), PTL_OK);
	assert_int_equal(PtlMDUpdate(md, NULL, &nu, PTL_EQ_NONE), PTL_OK);
	assert_int_equal(PtlMDUpdate(md, NULL, NULL, P[1].ni), PTL_INV_EQ);
	nu.threshold = -2;
	assert_int_equal(PtlMDUpdate(md, NULL, &nu, PTL_EQ_NONE), PTL_ILL_MD);
	assert_int_equal(PtlMDUpdate(P[1].eq, NULL, NULL, PTL_EQ_NONE),
			PTL_INV_MD);
}

/* A descriptor with an operation pending cannot be unlinked, nor its
 * match entry, nor its memory changed; at either end of the operation. */
static void
unlink_refused_while_pending(void **state)
{
	ptl_handle_me_t me;
	ptl_handle_md_t md, src;
	ptl_md_t d;
	uint8_t back[8];

	(void)state;
	lb.hold = 1;
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	d = md_of(dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_OP_GET,
			P[1].eq);
	assert_int_equal(PtlMDAttach(me, d, PTL_RETAIN, PTL_RETAIN, &md),
			PTL_OK);
	src = put(0, 1, 8, PTL_NOACK_REQ, PT, 0, 0, 0);
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	assert_int_equal(lb.held, 1);
	assert_int_equal(PtlMDUnlink(md), PTL_MD_INUSE);
	assert_int_equal(PtlMEUnlink(me), PTL_ME_IN_USE);
	d.start = src_buf;
	assert_int_equal(PtlMDUpdate(md, NULL, &d, PTL_EQ_NONE), PTL_MD_INUSE);
	d.start = dst_buf;
	d.threshold = 9;	/* the memory unchanged: allowed */
	assert_int_equal(PtlMDUpdate(md, NULL, &d, PTL_EQ_NONE), PTL_OK);
	assert_int_equal(lb_release(), 1);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	assert_int_equal(PtlMDUnlink(src), PTL_OK);
	drain(0);
	/* The initiator of a get. */
	src = get(0, 1, back, sizeof(back), PT, 0, 0);
	lb_pump();
	ev_next(P[1].eq, PTL_EVENT_GET_START);
	assert_int_equal(PtlMDUnlink(src), PTL_MD_INUSE);
	assert_int_equal(lb_release(), 1);
	ev_next(P[1].eq, PTL_EVENT_GET_END);
	ev_next(P[0].eq, PTL_EVENT_REPLY_START);
	ev_next(P[0].eq, PTL_EVENT_REPLY_END);
	assert_int_equal(PtlMDUnlink(src), PTL_OK);
	assert_int_equal(PtlMDUnlink(md), PTL_OK);
	assert_int_equal(PtlMEUnlink(me), PTL_INV_ME);	/* went with it */
	/* The initiator of a large put: pending until its bytes left. */
	lb.hold = 0;
	target_md(1, PT, 0, dst_buf, 512, 1, PTL_MD_OP_PUT);
	src = put(0, 1, 200, PTL_NOACK_REQ, PT, 0, 0, 0);
	assert_int_equal(PtlMDUnlink(src), PTL_MD_INUSE);
	lb_pump();
	assert_int_equal(PtlMDUnlink(src), PTL_OK);
}

/* ---- events ---- */

/* A put's events on both sides, eager (its bytes copied when started:
 * SEND_END before PtlPut returns) and large (SEND_END once the target has
 * taken them): kinds, order, every member, links, sequences. */
static void
put_events(ptl_size_t len)
{
	ptl_event_t ss, se, ack, ps, pe;
	ptl_handle_md_t src, dst;
	ptl_seq_t seq0;

	fill(src_buf, (size_t)len, 9);
	memset(dst_buf, 0, sizeof(dst_buf));
	dst = target_md(2, PT, 0x77, dst_buf, 1024, 3, PTL_MD_OP_PUT);
	src = source_md(0, src_buf, len, 2);
	assert_int_equal(PtlPut(src, PTL_ACK_REQ, P[2].id, PT, 0, 0x77, 0,
			0xfeedbeefull), PTL_OK);
	assert_int_equal(lb.delivered, 0);	/* nothing moved yet */
	/* Taken without progress: an eager put has ended already. */
	assert_int_equal(PtlEQGet(P[0].eq, &ss), PTL_OK);
	assert_int_equal(ss.type, PTL_EVENT_SEND_START);
	seq0 = ss.sequence;
	if (len <= lb.eager_max) {
		assert_int_equal(PtlEQGet(P[0].eq, &se), PTL_OK);
		assert_int_equal(se.type, PTL_EVENT_SEND_END);
	}
	assert_int_equal(lb.delivered, 0);
	ps = ev_next(P[2].eq, PTL_EVENT_PUT_START);
	pe = ev_next(P[2].eq, PTL_EVENT_PUT_END);
	if (len > lb.eager_max)
		se = ev_next(P[0].eq, PTL_EVENT_SEND_END);
	ack = ev_next(P[0].eq, PTL_EVENT_ACK);
	ev_none(P[0].eq);
	ev_none(P[2].eq);
	assert_memory_equal(dst_buf, src_buf, (size_t)len);

	/* Initiator: its own id; the put's header; its descriptor. */
	assert_int_equal(ss.initiator.nid, P[0].id.nid);
	assert_int_equal(ss.initiator.pid, P[0].id.pid);
	assert_int_equal(ss.uid, P[0].uid);
	assert_int_equal(ss.portal, PT);
	assert_int_equal(ss.match_bits, 0x77);
	assert_int_equal(ss.rlength, len);
	assert_int_equal(ss.mlength, len);
	assert_int_equal(ss.hdr_data, 0xfeedbeefull);
	assert_int_equal(ss.md_handle, src);
	assert_ptr_equal(ss.md.user_ptr, src_buf);
	assert_int_equal(ss.md.threshold, 1);
	assert_int_equal(ss.ni_fail_type, PTL_NI_OK);
	assert_int_equal(se.link, ss.link);
	assert_int_equal(se.sequence, seq0 + 1);
	assert_int_equal(ack.sequence, seq0 + 2);
	/* The ACK: from the target, with the put's link. */
	assert_int_equal(ack.initiator.nid, P[2].id.nid);
	assert_int_equal(ack.initiator.pid, P[2].id.pid);
	assert_int_equal(ack.link, ss.link);
	assert_int_equal(ack.mlength, len);
	assert_int_equal(ack.rlength, len);
	assert_int_equal(ack.offset, 0);
	assert_int_equal(ack.match_bits, 0x77);
	assert_int_equal(ack.md.threshold, 0);
	/* Target: the initiator's id and user, the header, its state. */
	assert_int_equal(ps.initiator.nid, P[0].id.nid);
	assert_int_equal(ps.initiator.pid, P[0].id.pid);
	assert_int_equal(ps.uid, P[0].uid);
	assert_int_equal(ps.jid, PTL_JID_NONE);
	assert_int_equal(ps.portal, PT);
	assert_int_equal(ps.pt_index, PT);
	assert_int_equal(ps.match_bits, 0x77);
	assert_int_equal(ps.rlength, len);
	assert_int_equal(ps.mlength, len);
	assert_int_equal(ps.offset, 0);
	assert_int_equal(ps.hdr_data, 0xfeedbeefull);
	assert_int_equal(ps.md_handle, dst);
	assert_int_equal(ps.md.threshold, 2);
	assert_int_equal(pe.link, ps.link);
	assert_int_equal(pe.sequence, ps.sequence + 1);
	assert_int_equal(pe.mlength, len);
	assert_int_equal(pe.ni_fail_type, PTL_NI_OK);
}

static void
put_events_eager(void **state)
{
	(void)state;
	put_events(40);
}

static void
put_events_large(void **state)
{
	(void)state;
	put_events(1000);
}

/* A get logs no SEND events: REPLY_START and REPLY_END at the
 * initiator, GET_START and GET_END at the target. */
static void
get_events(ptl_size_t len)
{
	static uint8_t back[1024];
	ptl_event_t rs, re, gs, ge;
	ptl_handle_md_t src;

	fill(dst_buf, (size_t)len, 4);
	memset(back, 0, sizeof(back));
	target_md(2, PT, 0, dst_buf, len, 1, PTL_MD_OP_GET);
	src = source_md(0, back, len, 1);
	assert_int_equal(PtlGetRegion(src, 0, len, P[2].id, PT, 0, 0, 0),
			PTL_OK);
	gs = ev_next(P[2].eq, PTL_EVENT_GET_START);
	ge = ev_next(P[2].eq, PTL_EVENT_GET_END);
	rs = ev_next(P[0].eq, PTL_EVENT_REPLY_START);
	re = ev_next(P[0].eq, PTL_EVENT_REPLY_END);
	ev_none(P[0].eq);
	ev_none(P[2].eq);
	assert_memory_equal(back, dst_buf, (size_t)len);
	assert_int_equal(gs.link, ge.link);
	assert_int_equal(gs.initiator.pid, P[0].id.pid);
	assert_int_equal(gs.mlength, len);
	assert_int_equal(rs.link, re.link);
	assert_int_equal(rs.initiator.nid, P[2].id.nid);
	assert_int_equal(rs.initiator.pid, P[2].id.pid);
	assert_int_equal(rs.rlength, len);
	assert_int_equal(re.mlength, len);
	assert_int_equal(re.md_handle, src);
	assert_int_equal(re.md.threshold, 0);
	assert_int_equal(re.sequence, rs.sequence + 1);
}

static void
get_events_eager(void **state)
{
	(void)state;
	get_events(16);
}

static void
get_events_large(void **state)
{
	(void)state;
	get_events(1000);
}

/* An ACK only when asked for, the initiator's descriptor has an event
 * queue, and the target's descriptor does not disable it. */
struct ack_case {
	ptl_ack_req_t ack;
	int eq;
	unsigned target_opts;
	int want;
};

static const struct ack_case ack_cases[] = {
	{ PTL_ACK_REQ, 1, 0, 1 },
	{ PTL_NOACK_REQ, 1, 0, 0 },
	{ PTL_ACK_REQ, 0, 0, 0 },
	{ PTL_ACK_REQ, 1, PTL_MD_ACK_DISABLE, 0 },
	{ PTL_NO_ACK_REQ, 0, PTL_MD_ACK_DISABLE, 0 },
};

static void
ack_rules_table(void **state)
{
	(void)state;
	lb.hold_acks = 1;
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_ACK_DISABLE);
	target_md(1, PT, 1, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	for (size_t i = 0; i < sizeof(ack_cases) / sizeof(ack_cases[0]); i++) {
		const struct ack_case *c = &ack_cases[i];
		ptl_handle_md_t md;
		ptl_match_bits_t bits = c->target_opts ? 0 : 1;

		assert_int_equal(PtlMDBind(P[0].ni, md_of(src_buf, 8,
				PTL_MD_THRESH_INF, 0, c->eq ? P[0].eq :
				PTL_EQ_NONE), &md), PTL_OK);
		assert_int_equal(PtlPut(md, c->ack, P[1].id, PT, 0, bits, 0, 0),
				PTL_OK);
		lb_pump();
		if ((lb_peek(MXD_PTL_ACK) != NULL) != c->want)
			fail_msg("case %zu: an ACK %s", i,
					c->want ? "missing" : "sent");
		lb.hold_acks = 0;
		lb_pump();
		lb.hold_acks = 1;
		if (c->want) {
			ev_next(P[0].eq, PTL_EVENT_SEND_START);
			ev_next(P[0].eq, PTL_EVENT_SEND_END);
			ev_next(P[0].eq, PTL_EVENT_ACK);
		} else {
			ptl_event_kind_t k[4];

			while (ev_kinds(P[0].eq, k, 4) > 0)
				;
		}
		ev_kinds(P[1].eq, (ptl_event_kind_t[4]){ 0 }, 4);
	}
}

/* A full queue takes new events in place of the oldest, never refuses
 * a message, and says so at the next take. */
static void
eq_overflow(void **state)
{
	ptl_handle_eq_t eq;
	ptl_event_t ev;
	ptl_seq_t first;

	(void)state;
	assert_int_equal(PtlEQAlloc(P[1].ni, 2, &eq), PTL_OK);
	assert_int_equal(PtlMDAttach(PTL_INVALID_HANDLE, md_of(NULL, 0, 1, 0,
			eq), PTL_RETAIN, PTL_RETAIN, NULL), PTL_INV_ME);
	{
		ptl_handle_me_t me;

		assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0,
				PTL_RETAIN, PTL_INS_AFTER, &me), PTL_OK);
		assert_int_equal(PtlMDAttach(me, md_of(dst_buf, 64,
				PTL_MD_THRESH_INF, PTL_MD_OP_PUT, eq),
				PTL_RETAIN, PTL_RETAIN, NULL), PTL_OK);
	}
	for (int i = 0; i < 3; i++) {
		src_buf[0] = (uint8_t)(10 + i);
		put(0, 1, 1, PTL_NOACK_REQ, PT, 0, 0, (ptl_size_t)i);
		lb_pump();
		assert_int_equal(dst_buf[i], 10 + i);	/* taken */
	}
	assert_int_equal(sr(1, PTL_SR_DROP_COUNT), 0);
	assert_int_equal(sr(1, PTL_SR_EQ_DROPPED), 4);
	assert_int_equal(PtlEQGet(eq, &ev), PTL_EQ_DROPPED);
	assert_int_equal(ev.type, PTL_EVENT_PUT_START);	/* the 3rd put's */
	first = ev.sequence;
	assert_int_equal(first, 5);
	assert_int_equal(PtlEQGet(eq, &ev), PTL_OK);
	assert_int_equal(ev.type, PTL_EVENT_PUT_END);
	assert_int_equal(ev.sequence, first + 1);
	assert_int_equal(PtlEQGet(eq, &ev), PTL_EQ_EMPTY);
	assert_int_equal(PtlEQFree(eq), PTL_OK);
	assert_int_equal(PtlEQFree(eq), PTL_INV_EQ);
	assert_int_equal(PtlEQAlloc(P[1].ni, 0, &eq), PTL_NOSPACE);
	assert_int_equal(PtlEQAlloc(P[1].ni, 1, NULL), PTL_SEGV);
}

/* Operations of one initiator start at a target in the order they were
 * started, whatever the other pairs do meanwhile (the loopback delivers
 * pairs in a seeded random order); the initiator's SEND_START order is
 * the target's PUT_START order. */
static void
ordering_per_pair(void **state)
{
	unsigned next[3] = { 0, 0, 0 }, runs = 0;
	int last = -1;

	(void)state;
	lb.shuffle = 7;
	assert_int_equal(PtlEQFree(P[3].eq), PTL_OK);
	assert_int_equal(PtlEQAlloc(P[3].ni, 1024, &P[3].eq), PTL_OK);
	/* Every put is taken, with 0 bytes, at the offset it asks: the
	 * initiator and its count. */
	target_md(3, PT, 0, dst_buf, 1024, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_TRUNCATE | PTL_MD_MANAGE_REMOTE);
	for (unsigned i = 0; i < 25; i++)
		for (int from = 0; from < 3; from++) {
			ptl_size_t len = i % 3 ? 8 : 200;	/* both paths */

			put(from, 3, len, PTL_NOACK_REQ, PT, 0, 0,
					(ptl_size_t)from << 32 | i);
		}
	lb_pump();
	for (;;) {
		ptl_event_t ev;
		int from;

		if (PtlEQGet(P[3].eq, &ev) != PTL_OK)
			break;
		if (ev.type != PTL_EVENT_PUT_START)
			continue;
		from = (int)ev.initiator.pid +
			2 * (ev.initiator.nid != P[0].id.nid);
		assert_true(from >= 0 && from < 3);
		assert_int_equal(ev.offset >> 32, (unsigned)from);
		assert_int_equal((uint32_t)ev.offset, next[from]);
		next[from]++;
		if (from != last)
			runs++;
		last = from;
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(next[i], 25);
	assert_true(runs > 3);		/* the pairs did interleave */
	/* Each initiator's SEND_STARTs: in the same order. */
	for (int from = 0; from < 3; from++) {
		ptl_event_t ev;
		ptl_seq_t prev = 0;
		unsigned i = 0;

		while (PtlEQGet(P[from].eq, &ev) == PTL_OK)
			if (ev.type == PTL_EVENT_SEND_START) {
				assert_true(ev.link > prev);
				prev = ev.link;
				i++;
			}
		assert_int_equal(i, 25);
	}
}

/* ---- failures ---- */

/* Every START has its END or FAIL with the same link, in a queue's
 * remaining events; returns the FAILs seen. */
static int
starts_end(ptl_handle_eq_t eq)
{
	ptl_event_t evs[64], ev;
	int n = 0, fails = 0;

	lb_pump();
	while (n < 64 && PtlEQGet(eq, &ev) == PTL_OK)
		evs[n++] = ev;
	for (int i = 0; i < n; i++) {
		int start = evs[i].type == PTL_EVENT_PUT_START ||
			evs[i].type == PTL_EVENT_GET_START ||
			evs[i].type == PTL_EVENT_SEND_START ||
			evs[i].type == PTL_EVENT_REPLY_START;
		int found = 0;

		if (evs[i].type == PTL_EVENT_PUT_FAIL ||
				evs[i].type == PTL_EVENT_GET_FAIL ||
				evs[i].type == PTL_EVENT_SEND_FAIL ||
				evs[i].type == PTL_EVENT_REPLY_FAIL) {
			assert_int_not_equal(evs[i].ni_fail_type, PTL_NI_OK);
			fails++;
		}
		if (!start)
			continue;
		for (int j = i + 1; j < n; j++)
			if (evs[j].link == evs[i].link &&
					evs[j].type == evs[i].type + 1 +
					(evs[j].ni_fail_type != PTL_NI_OK))
				found = 1;
		if (!found)
			fail_msg("%s (link %u) never ended",
					PtlEventKindStr(evs[i].type), evs[i].link);
	}
	return fails;
}

/* Targets that are gone: vanished (lb_kill: unreachable) or with no
 * interface open (closed).  A large put fails, an eager one has ended
 * already; a get fails; a get the target drops fails too. */
static void
failed_targets(void **state)
{
	uint8_t back[16];
	ptl_event_t ev;

	(void)state;
	/* Queued, then the target vanishes. */
	put(0, 2, 200, PTL_ACK_REQ, PT, 0, 0, 0);
	get(0, 2, back, 16, PT, 0, 0);
	lb_kill(2);
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev = ev_next(P[0].eq, PTL_EVENT_SEND_FAIL);
	assert_int_equal(ev.ni_fail_type, PTL_NI_UNREACHABLE);
	ev = ev_next(P[0].eq, PTL_EVENT_REPLY_FAIL);
	assert_int_equal(ev.ni_fail_type, PTL_NI_UNREACHABLE);
	/* Started after. */
	put(0, 2, 200, PTL_NOACK_REQ, PT, 0, 0, 0);
	put(0, 2, 20, PTL_NOACK_REQ, PT, 0, 0, 0);
	get(0, 2, back, 16, PT, 0, 0);
	assert_int_equal(starts_end(P[0].eq), 2);
	/* Closed. */
	assert_int_equal(PtlNIFini(P[3].ni), PTL_OK);
	put(0, 3, 200, PTL_NOACK_REQ, PT, 0, 0, 0);
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev = ev_next(P[0].eq, PTL_EVENT_SEND_FAIL);
	assert_int_equal(ev.ni_fail_type, PTL_NI_CLOSED);
	get(0, 3, back, 16, PT, 0, 0);
	ev = ev_next(P[0].eq, PTL_EVENT_REPLY_FAIL);
	assert_int_equal(ev.ni_fail_type, PTL_NI_CLOSED);
	/* Dropped by a live target: no match. */
	get(0, 1, back, 16, PT, 0, 0);
	ev = ev_next(P[0].eq, PTL_EVENT_REPLY_FAIL);
	assert_int_equal(ev.ni_fail_type, PTL_NI_DROPPED);
	assert_int_equal(ev.initiator.pid, P[1].id.pid);
	assert_int_equal(sr(1, PTL_SR_DROP_NO_MATCH), 1);
	ev_none(P[0].eq);
}

/* Transfers that fail once started, both sides: FAIL events with the
 * START's link, the descriptors free again, no UNLINK, no ACK. */
static void
failed_transfers(void **state)
{
	ptl_handle_md_t tgt, src;
	uint8_t back[300];

	(void)state;
	lb.hold = 1;
	tgt = target_md(1, PT, 0, dst_buf, 1024, 1, PTL_MD_OP_PUT |
			PTL_MD_OP_GET);
	assert_int_equal(PtlMDUnlink(tgt), PTL_OK);
	{
		ptl_handle_me_t me;

		assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0,
				PTL_UNLINK, PTL_INS_AFTER, &me), PTL_OK);
		assert_int_equal(PtlMDAttach(me, md_of(dst_buf, 1024,
				PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_OP_GET,
				P[1].eq), PTL_UNLINK, PTL_RETAIN, &tgt), PTL_OK);
	}
	src = put(0, 1, 300, PTL_ACK_REQ, PT, 0, 0, 0);
	lb_pump();
	assert_int_equal(lb_fail_held(PTL_NI_FAIL), 1);
	assert_int_equal(starts_end(P[1].eq), 1);	/* PUT_FAIL */
	assert_int_equal(starts_end(P[0].eq), 1);	/* SEND_FAIL */
	assert_int_equal(PtlMDUnlink(src), PTL_OK);
	/* A get. */
	src = get(0, 1, back, 300, PT, 0, 0);
	lb_pump();
	assert_int_equal(lb_fail_held(PTL_NI_FAIL), 1);
	assert_int_equal(starts_end(P[1].eq), 1);	/* GET_FAIL */
	assert_int_equal(starts_end(P[0].eq), 1);	/* REPLY_FAIL */
	assert_int_equal(PtlMDUnlink(src), PTL_OK);
	/* The initiator vanishes while its put is being taken. */
	put(2, 1, 300, PTL_ACK_REQ, PT, 0, 0, 0);
	lb_pump();
	lb_kill(2);
	assert_int_equal(lb.held, 0);
	assert_int_equal(starts_end(P[1].eq), 1);	/* PUT_FAIL */
	/* Nothing pending on the target's descriptor: it goes. */
	assert_int_equal(PtlMDUnlink(tgt), PTL_OK);
}

/* An ACK or a REPLY for a descriptor that has gone (its slot reused by
 * another, of a new generation) is dropped and counted. */
static void
late_ack_and_reply(void **state)
{
	ptl_ni_limits_t want;
	ptl_handle_md_t md, again;
	struct mxd_ptl_hdr *h;
	uint8_t back[8];

	(void)state;
	assert_int_equal(PtlNIFini(P[0].ni), PTL_OK);
	memset(&want, 0, sizeof(want));
	want.max_mem_descriptors = 1;		/* one slot: reused */
	proc_open_limits(0, &want);
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_OP_GET);
	lb.hold_acks = 1;
	md = source_md(0, src_buf, 8, 2);
	assert_int_equal(PtlPut(md, PTL_ACK_REQ, P[1].id, PT, 0, 0, 0, 0),
			PTL_OK);
	lb_pump();
	assert_non_null(lb_peek(MXD_PTL_ACK));
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev_next(P[0].eq, PTL_EVENT_SEND_END);
	assert_int_equal(PtlMDUnlink(md), PTL_OK);	/* an ACK is not pending */
	again = source_md(0, src_buf, 8, PTL_MD_THRESH_INF);
	assert_int_not_equal(again, md);
	assert_int_equal(again & 0xffffff, md & 0xffffff);	/* same slot */
	lb.hold_acks = 0;
	lb_pump();
	ev_none(P[0].eq);
	assert_int_equal(sr(0, PTL_SR_DROP_LATE), 1);
	assert_int_equal(sr(0, PTL_SR_DROP_COUNT), 1);
	/* A reply of an operation the transport no longer has (its cookie
	 * of an older generation: a REPLY names its get by nothing else). */
	lb.hold_replies = 1;
	assert_int_equal(PtlMDUnlink(again), PTL_OK);
	md = source_md(0, back, sizeof(back), 1);
	assert_int_equal(PtlGet(md, P[1].id, PT, 0, 0, 0), PTL_OK);
	lb_pump();
	h = lb_peek(MXD_PTL_REPLY);
	assert_non_null(h);
	h->op_cookie += 1ull << 32;
	lb.hold_replies = 0;
	lb_pump();
	ev_none(P[0].eq);
	assert_int_equal(sr(0, PTL_SR_DROP_LATE), 2);
	assert_int_equal(sr(0, PTL_SR_DROP_COUNT), 2);
}

/* PtlPut and PtlGet return before anything moves; the target's side of
 * a get and of a large put runs while the target makes no call (here,
 * while the initiator waits in PtlEQWait). */
static void
no_blocking_no_target_calls(void **state)
{
	static uint8_t big[2000], back[2000];
	ptl_event_t ev;

	(void)state;
	fill(big, sizeof(big), 2);
	target_md(2, PT, 0, big, sizeof(big), PTL_MD_THRESH_INF,
			PTL_MD_OP_GET);
	target_md(2, PT, 1, dst_buf, sizeof(dst_buf), PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT);
	get(0, 2, back, sizeof(back), PT, 0, 0);
	put(0, 2, 1500, PTL_ACK_REQ, PT, 0, 1, 0);
	assert_int_equal(lb.delivered, 0);
	assert_int_equal(PtlEQWait(P[0].eq, &ev), PTL_OK);
	assert_int_equal(ev.type, PTL_EVENT_SEND_START);
	while (ev.type != PTL_EVENT_ACK) {
		assert_int_equal(PtlEQWait(P[0].eq, &ev), PTL_OK);
		assert_true(ev.type == PTL_EVENT_REPLY_START ||
				ev.type == PTL_EVENT_REPLY_END ||
				ev.type == PTL_EVENT_SEND_END ||
				ev.type == PTL_EVENT_ACK);
	}
	assert_memory_equal(back, big, sizeof(big));
	assert_int_equal(starts_end(P[2].eq), 0);
}

/* ---- memory ---- */

/* PTL_MD_IOVEC descriptors at both ends, across segments. */
static void
iovec_descriptors(void **state)
{
	static uint8_t s1[5], s3[7], d1[4], d2[4], d3[10];
	ptl_md_iovec_t src[3] = { { s1, 5 }, { NULL, 0 }, { s3, 7 } };
	ptl_md_iovec_t dst[3] = { { d1, 4 }, { d2, 4 }, { d3, 10 } };
	ptl_md_iovec_t many[17];
	uint8_t want[12], got[18];
	ptl_handle_me_t me;
	ptl_handle_md_t md;
	ptl_event_t ev;

	(void)state;
	fill(s1, 5, 1);
	fill(s3, 7, 50);
	memcpy(want, s1, 5);
	memcpy(want + 5, s3, 7);
	assert_int_equal(PtlMEAttach(P[1].ni, PT, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(dst, 3, 1, PTL_MD_OP_PUT |
			PTL_MD_IOVEC | PTL_MD_MANAGE_REMOTE, P[1].eq),
			PTL_RETAIN, PTL_RETAIN, NULL), PTL_OK);
	assert_int_equal(PtlMDBind(P[0].ni, md_of(src, 3, 1, PTL_MD_IOVEC,
			P[0].eq), &md), PTL_OK);
	assert_int_equal(PtlPut(md, PTL_NOACK_REQ, P[1].id, PT, 0, 0, 2, 0),
			PTL_OK);
	ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
	assert_int_equal(ev.rlength, 12);
	assert_int_equal(ev.offset, 2);
	assert_ptr_equal(ev.md.start, dst);
	assert_int_equal(ev.md.length, 3);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	memcpy(got, d1, 4);
	memcpy(got + 4, d2, 4);
	memcpy(got + 8, d3, 10);
	assert_memory_equal(got + 2, want, 12);
	/* Too many segments, or one with no memory. */
	for (int i = 0; i < 17; i++)
		many[i] = (ptl_md_iovec_t){ s1, 1 };
	assert_int_equal(PtlMDBind(P[0].ni, md_of(many, 17, 1, PTL_MD_IOVEC,
			PTL_EQ_NONE), &md), PTL_ILL_MD);
	assert_int_equal(PtlMDBind(P[0].ni, md_of(many, 16, 1, PTL_MD_IOVEC,
			PTL_EQ_NONE), &md), PTL_OK);
	many[0].iov_base = NULL;
	assert_int_equal(PtlMDBind(P[0].ni, md_of(many, 2, 1, PTL_MD_IOVEC,
			PTL_EQ_NONE), &md), PTL_ILL_MD);
	assert_int_equal(PtlMDBind(P[0].ni, md_of(NULL, 2, 1, PTL_MD_IOVEC,
			PTL_EQ_NONE), &md), PTL_ILL_MD);
}

/* The descriptors' own checks. */
static void
descriptor_checks(void **state)
{
	ptl_handle_md_t md;
	ptl_handle_me_t me;
	ptl_md_t d = md_of(NULL, 0, PTL_MD_THRESH_INF, 0, PTL_EQ_NONE);

	(void)state;
	assert_int_equal(PtlMDBind(P[0].ni, d, &md), PTL_OK);	/* events only */
	d.length = 1;
	assert_int_equal(PtlMDBind(P[0].ni, d, &md), PTL_ILL_MD);
	d = md_of(dst_buf, 8, -2, 0, PTL_EQ_NONE);
	assert_int_equal(PtlMDBind(P[0].ni, d, &md), PTL_ILL_MD);
	d = md_of(dst_buf, 8, 1, 0x80000000u, PTL_EQ_NONE);
	assert_int_equal(PtlMDBind(P[0].ni, d, &md), PTL_ILL_MD);
	d = md_of(dst_buf, 8, 1, 0, P[1].eq);	/* another interface's */
	assert_int_equal(PtlMDBind(P[0].ni, d, &md), PTL_ILL_MD);
	d = md_of(dst_buf, 8, 1, 0, P[0].ni);	/* not a queue */
	assert_int_equal(PtlMDBind(P[0].ni, d, &md), PTL_INV_EQ);
	d = md_of(dst_buf, 8, 1, 0, PTL_EQ_NONE);
	assert_int_equal(PtlMDBind(P[0].ni, d, NULL), PTL_SEGV);
	assert_int_equal(PtlMDBind(P[0].eq, d, &md), PTL_INV_NI);
	assert_int_equal(PtlMEAttach(P[0].ni, PT, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, d, PTL_RETAIN, PTL_RETAIN, NULL),
			PTL_OK);
	assert_int_equal(PtlMDAttach(me, d, PTL_RETAIN, PTL_RETAIN, &md),
			PTL_INUSE);
	assert_int_equal(PtlMDAttach(P[0].ni, d, PTL_RETAIN, PTL_RETAIN, &md),
			PTL_INV_ME);
}

/* 3.3's PtlPutRegion and PtlGetRegion: bytes from and to an offset of
 * the descriptor. */
static void
region_calls(void **state)
{
	uint8_t back[40];
	ptl_handle_md_t md;
	ptl_event_t ev;

	(void)state;
	fill(src_buf, 64, 11);
	fill(dst_buf, 64, 99);
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT |
			PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE);
	md = source_md(0, src_buf, 64, PTL_MD_THRESH_INF);
	assert_int_equal(PtlPutRegion(md, 10, 20, PTL_NOACK_REQ, P[1].id, PT,
			0, 0, 30, 0), PTL_OK);
	ev = ev_next(P[0].eq, PTL_EVENT_SEND_START);
	assert_int_equal(ev.offset, 10);
	assert_int_equal(ev.rlength, 20);
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	assert_memory_equal(dst_buf + 30, src_buf + 10, 20);
	memset(back, 0, sizeof(back));
	md = source_md(0, back, sizeof(back), PTL_MD_THRESH_INF);
	assert_int_equal(PtlGetRegion(md, 5, 10, P[1].id, PT, 0, 0, 30),
			PTL_OK);
	ev_next(P[0].eq, PTL_EVENT_SEND_END);
	ev = ev_next(P[0].eq, PTL_EVENT_REPLY_START);
	assert_int_equal(ev.offset, 5);
	ev_next(P[0].eq, PTL_EVENT_REPLY_END);
	assert_memory_equal(back + 5, src_buf + 10, 10);
	assert_int_equal(PtlGetRegion(md, 35, 10, P[1].id, PT, 0, 0, 0),
			PTL_ILL_MD);
	assert_int_equal(PtlPutRegion(md, 0, 41, PTL_NOACK_REQ, P[1].id, PT,
			0, 0, 0, 0), PTL_ILL_MD);
	assert_int_equal(PtlPut(md, PTL_NOACK_REQ, ANY_ID, PT, 0, 0, 0, 0),
			PTL_INV_PROC);
	assert_int_equal(PtlGet(md, (ptl_process_id_t){ P[1].id.nid, 32 }, PT,
			0, 0, 0), PTL_INV_PROC);
}

/* ---- Portals 3.3's forms ---- */

static int handled;
static ptl_event_kind_t handled_kind;

static void
count_events(ptl_event_t *ev)
{
	handled++;
	handled_kind = ev->type;
}

/* The calls whose arguments 3.3 changed, by their number of arguments,
 * and what each 3.3 form adds. */
static void
v33_forms(void **state)
{
	ptl_handle_eq_t eq;
	ptl_handle_me_t me, me2;
	ptl_handle_md_t md;
	ptl_md_t d;
	ptl_event_t ev;

	(void)state;
	/* PtlMDBind(ni, md, unlink_op, &h): unlinked once spent. */
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	d = md_of(src_buf, 8, 1, 0, P[0].eq);
	d.eq_handle = P[0].eq;
	d.max_size = 0;
	assert_int_equal(PtlMDBind(P[0].ni, d, PTL_UNLINK, &md), PTL_OK);
	assert_int_equal(PtlPut(md, PTL_NO_ACK_REQ, P[1].id, PT, 0, 0, 0, 0),
			PTL_OK);
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev = ev_next(P[0].eq, PTL_EVENT_SEND_END);
	assert_int_equal(ev_next(P[0].eq, PTL_EVENT_UNLINK).link, ev.link);
	assert_int_equal(PtlMDUnlink(md), PTL_MD_INVALID);
	drain(1);
	/* PtlMDAttach(me, md, unlink_op, &h). */
	assert_int_equal(PtlMEAttach(P[1].ni, PT + 1, ANY_ID, 0, 0, PTL_UNLINK,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(dst_buf, 64, 1, PTL_MD_OP_PUT,
			P[1].eq), PTL_UNLINK, &md), PTL_OK);
	/* PtlMEInsert(cur, id, bits, ignore, unlink, pos, &h). */
	assert_int_equal(PtlMEInsert(me, ANY_ID, 0, 0, PTL_UNLINK,
			PTL_INS_BEFORE, &me2), PTL_OK);
	assert_int_equal(PtlMDAttach(me2, md_of(dst_buf, 64, 1, PTL_MD_OP_PUT,
			P[1].eq), PTL_UNLINK, &md), PTL_OK);
	put(0, 1, 4, PTL_NOACK_REQ, PT + 1, 0, 0, 0);
	ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
	assert_int_equal(ev.md_handle, md);	/* me2, inserted before */
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_next(P[1].eq, PTL_EVENT_UNLINK);
	assert_int_equal(PtlMEUnlink(me2), PTL_ME_INVALID);	/* went too */
	/* PtlEQAlloc(ni, count, handler, &h): the handler sees each event
	 * at the end of a call. */
	handled = 0;
	assert_int_equal(PtlEQAlloc(P[2].ni, 8, count_events, &eq), PTL_OK);
	assert_int_equal(PtlMEAttach(P[2].ni, PT, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlMDAttach(me, md_of(dst_buf, 64, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT, eq), PTL_RETAIN, &md), PTL_OK);
	put(0, 2, 4, PTL_NOACK_REQ, PT, 0, 0, 0);
	lb_pump();
	assert_int_equal(handled, 0);
	assert_int_equal(PtlEQGet(eq, &ev), PTL_OK);	/* a call: they run */
	assert_int_equal(handled, 2);
	assert_int_equal(handled_kind, PTL_EVENT_PUT_END);
	assert_int_equal(PtlEQAlloc(P[2].ni, 8, PTL_EQ_HANDLER_NONE, &eq),
			PTL_OK);
	/* PtlACEntry(ni, index, id, uid, jid, pt): a job id that is not
	 * ours refuses. */
	assert_int_equal(PtlACEntry(P[1].ni, 1, ANY_ID, PTL_UID_ANY, 7,
			PTL_PT_INDEX_ANY), PTL_OK);
	target_md(1, PT + 2, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	put(0, 1, 4, PTL_NOACK_REQ, PT + 2, 1, 0, 0);
	lb_pump();
	ev_none(P[1].eq);
	assert_int_equal(sr(1, PTL_SR_DROP_AC), 1);
	assert_int_equal(PtlACEntry(P[1].ni, 1, ANY_ID, PTL_UID_ANY,
			PTL_JID_ANY, PTL_PT_INDEX_ANY), PTL_OK);
	put(0, 1, 4, PTL_NOACK_REQ, PT + 2, 1, 0, 0);
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	/* The 3.2 names call the 3.2 functions themselves. */
	assert_int_equal((PtlMDBind)(P[0].ni, md_of(NULL, 0, 1, 0,
			PTL_EQ_NONE), &md), PTL_OK);
	assert_int_equal(PtlGetPut(md, md, P[1].id, PT, 0, 0, 0, 0), PTL_FAIL);
	assert_int_equal(PtlHandleIsEqual(md, md), PTL_OK);
	assert_int_equal(PtlHandleIsEqual(md, P[0].ni), PTL_FAIL);
}

/* 3.3's PtlEQPoll over several queues, with a timeout. */
static void
eq_poll(void **state)
{
	ptl_handle_eq_t eqs[3];
	ptl_event_t ev;
	int which = -1;

	(void)state;
	eqs[0] = P[0].eq;
	eqs[1] = P[1].eq;
	eqs[2] = P[2].eq;
	assert_int_equal(PtlEQPoll(eqs, 3, 0, &ev, &which), PTL_EQ_EMPTY);
	assert_int_equal(PtlEQPoll(eqs, 3, 20, &ev, &which), PTL_EQ_EMPTY);
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	put(3, 1, 4, PTL_NOACK_REQ, PT, 0, 0, 0);
	assert_int_equal(PtlEQPoll(eqs, 3, 0, &ev, &which), PTL_OK);
	assert_int_equal(which, 1);
	assert_int_equal(ev.type, PTL_EVENT_PUT_START);
	assert_int_equal(PtlEQPoll(eqs, 3, PTL_TIME_FOREVER, &ev, &which),
			PTL_OK);
	assert_int_equal(ev.type, PTL_EVENT_PUT_END);
	eqs[2] = P[2].ni;
	assert_int_equal(PtlEQPoll(eqs, 3, 0, &ev, &which), PTL_INV_EQ);
	assert_int_equal(PtlEQPoll(eqs, 0, 0, &ev, &which), PTL_INV_EQ);
	assert_int_equal(PtlEQPoll(eqs, 1, 0, NULL, &which), PTL_SEGV);
	assert_int_equal(PtlEQPoll(eqs, 1, 0, &ev, NULL), PTL_SEGV);
}

/* 3.3's PTL_MD_EVENT_START_DISABLE and _END_DISABLE; a FAIL is logged
 * even with END events disabled. */
static void
event_disable_options(void **state)
{
	ptl_event_t ev;

	(void)state;
	target_md(1, PT, 1, dst_buf, 64, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_EVENT_START_DISABLE);
	target_md(1, PT, 2, dst_buf, 64, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_EVENT_END_DISABLE);
	put(0, 1, 4, PTL_NOACK_REQ, PT, 0, 1, 0);
	ev_next(P[1].eq, PTL_EVENT_PUT_END);
	ev_none(P[1].eq);
	put(0, 1, 4, PTL_NOACK_REQ, PT, 0, 2, 0);
	ev_next(P[1].eq, PTL_EVENT_PUT_START);
	ev_none(P[1].eq);
	lb.hold = 1;
	put(0, 1, 4, PTL_NOACK_REQ, PT, 0, 2, 0);
	ev = ev_next(P[1].eq, PTL_EVENT_PUT_START);
	lb_fail_held(PTL_NI_FAIL);
	assert_int_equal(ev_next(P[1].eq, PTL_EVENT_PUT_FAIL).link, ev.link);
}

/* ---- names, handles, misuse ---- */

static void
names(void **state)
{
	(void)state;
	assert_string_equal(PtlErrorStr(PTL_OK), "PTL_OK");
	assert_string_equal(PtlErrorStr(PTL_NO_SPACE), "PTL_NOSPACE");
	assert_string_equal(PtlErrorStr(PTL_MD_IN_USE), "PTL_MD_INUSE");
	assert_string_equal(PtlErrorStr(12345), "PTL_UNKNOWN_ERROR");
	assert_string_equal(ptl_err_str[PTL_EQ_DROPPED], "PTL_EQ_DROPPED");
	for (int i = 0; i < PTL_MAX_ERRNO; i++)
		assert_non_null(ptl_err_str[i]);
	assert_null(ptl_err_str[PTL_MAX_ERRNO]);
	assert_string_equal(PtlEventKindStr(PTL_EVENT_UNLINK),
			"PTL_EVENT_UNLINK");
	assert_string_equal(PtlEventKindStr(PTL_EVENT_ACK_END),
			"PTL_EVENT_ACK");
	assert_string_equal(PtlEventKindStr((ptl_event_kind_t)99),
			"PTL_EVENT_UNKNOWN");
	assert_string_equal(PtlNIFailStr(P[0].ni, PTL_NI_OK), "PTL_NI_OK");
	assert_non_null(strstr(PtlNIFailStr(P[0].ni, PTL_NI_UNREACHABLE),
			"stopped answering"));
	assert_string_equal(PtlNIFailStr(P[0].ni, 77), "PTL_NI_UNKNOWN");
}

/* Every call given a handle of the wrong kind, a stale one, or none
 * returns its code, and changes nothing. */
static int
call_with(int which, ptl_handle_any_t h)
{
	ptl_md_t md = md_of(NULL, 0, 1, 0, PTL_EQ_NONE);
	ptl_handle_any_t out;
	ptl_process_id_t id;
	ptl_sr_value_t v;
	ptl_uid_t uid;
	ptl_event_t ev;

	switch (which) {
	case 0: return PtlNIFini(h);
	case 1: return PtlNIStatus(h, 0, &v);
	case 2: return PtlGetId(h, &id);
	case 3: return PtlGetUid(h, &uid);
	case 4: return PtlMEAttach(h, 0, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &out);
	case 5: return PtlMEInsert(h, ANY_ID, 0, 0, PTL_INS_AFTER, &out);
	case 6: return PtlMEUnlink(h);
	case 7: return PtlMDAttach(h, md, PTL_RETAIN, PTL_RETAIN, &out);
	case 8: return PtlMDBind(h, md, &out);
	case 9: return PtlMDUnlink(h);
	case 10: return PtlMDUpdate(h, NULL, NULL, PTL_EQ_NONE);
	case 11: return PtlEQAlloc(h, 4, &out);
	case 12: return PtlEQFree(h);
	case 13: return PtlEQGet(h, &ev);
	case 14: return PtlACEntry(h, 0, ANY_ID, 0, 0);
	case 15: return PtlPut(h, PTL_NOACK_REQ, P[1].id, 0, 0, 0, 0, 0);
	case 16: return PtlGet(h, P[1].id, 0, 0, 0, 0);
	case 17: return PtlNIHandle(h, &out);
	default: return -1;
	}
}

static const int wrong_codes[] = {
	PTL_INV_NI, PTL_INV_NI, PTL_INV_NI, PTL_INV_NI, PTL_INV_NI,
	PTL_INV_ME, PTL_INV_ME, PTL_INV_ME, PTL_INV_NI, PTL_INV_MD,
	PTL_INV_MD, PTL_INV_NI, PTL_INV_EQ, PTL_INV_EQ, PTL_INV_NI,
	PTL_INV_MD, PTL_INV_MD, PTL_INV_HANDLE,
};

static void
bad_handles_table(void **state)
{
	ptl_handle_any_t stale_md, stale_me, stale_eq, live_ni;
	ptl_handle_md_t md;

	(void)state;
	stale_md = source_md(0, NULL, 0, 1);
	assert_int_equal(PtlMDUnlink(stale_md), PTL_OK);
	assert_int_equal(PtlMEAttach(P[0].ni, 0, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &stale_me), PTL_OK);
	assert_int_equal(PtlMEUnlink(stale_me), PTL_OK);
	assert_int_equal(PtlEQAlloc(P[0].ni, 4, &stale_eq), PTL_OK);
	assert_int_equal(PtlEQFree(stale_eq), PTL_OK);
	live_ni = P[3].ni;
	assert_int_equal(PtlNIFini(live_ni), PTL_OK);	/* stale now */
	md = source_md(0, NULL, 0, 1);
	for (int i = 0; i < 18; i++) {
		const ptl_handle_any_t hs[] = { PTL_INVALID_HANDLE,
			PTL_HANDLE_NONE, PTL_EQ_NONE, 0, stale_md, stale_me,
			stale_eq, live_ni };

		for (size_t k = 0; k < sizeof(hs) / sizeof(hs[0]); k++) {
			int rc = call_with(i, hs[k]);

			if (rc != wrong_codes[i])
				fail_msg("call %d with handle %zu: %s", i, k,
						PtlErrorStr((unsigned)rc));
		}
		/* A live handle of another kind. */
		if (i != 8 && i != 9 && i != 10 && i != 15 && i != 16 &&
				i != 17)
			assert_int_equal(call_with(i, md), wrong_codes[i]);
	}
	/* NULL for an output. */
	assert_int_equal(PtlNIStatus(P[0].ni, 0, NULL), PTL_SEGV);
	assert_int_equal(PtlNIStatus(P[0].ni, 7, NULL), PTL_INV_SR_INDX);
	assert_int_equal(PtlGetId(P[0].ni, NULL), PTL_SEGV);
	assert_int_equal(PtlGetUid(P[0].ni, NULL), PTL_SEGV);
	assert_int_equal(PtlGetJid(P[0].ni, NULL), PTL_SEGV);
	assert_int_equal(PtlNIDist(P[0].ni, P[1].id, NULL), PTL_SEGV);
	assert_int_equal(PtlNIHandle(md, NULL), PTL_SEGV);
	assert_int_equal(PtlEQGet(P[0].eq, NULL), PTL_SEGV);
	assert_int_equal(PtlEQWait(P[0].eq, NULL), PTL_SEGV);
	assert_int_equal(PtlMEAttachAny(P[0].ni, NULL, ANY_ID, 0, 0,
			PTL_RETAIN, &md), PTL_SEGV);
}

/* PtlNIHandle, PtlNIDist. */
static void
handles_and_distance(void **state)
{
	ptl_handle_ni_t ni;
	ptl_handle_me_t me;
	ptl_handle_md_t md = source_md(2, NULL, 0, 1);
	unsigned long d;

	(void)state;
	assert_int_equal(PtlMEAttach(P[2].ni, 0, ANY_ID, 0, 0, PTL_RETAIN,
			PTL_INS_AFTER, &me), PTL_OK);
	assert_int_equal(PtlNIHandle(P[2].ni, &ni), PTL_OK);
	assert_int_equal(ni, P[2].ni);
	assert_int_equal(PtlNIHandle(P[2].eq, &ni), PTL_OK);
	assert_int_equal(ni, P[2].ni);
	assert_int_equal(PtlNIHandle(md, &ni), PTL_OK);
	assert_int_equal(ni, P[2].ni);
	assert_int_equal(PtlNIHandle(me, &ni), PTL_OK);
	assert_int_equal(ni, P[2].ni);
	assert_int_equal(PtlNIDist(P[0].ni, P[0].id, &d), PTL_OK);
	assert_int_equal(d, 0);
	assert_int_equal(PtlNIDist(P[0].ni, P[1].id, &d), PTL_OK);
	assert_int_equal(d, 1);
	assert_int_equal(PtlNIDist(P[0].ni, P[2].id, &d), PTL_OK);
	assert_int_equal(d, 2);
	assert_int_equal(PtlNIDist(P[0].ni, ANY_ID, &d), PTL_INV_PROC);
}

/* Synchronous delivery: the target's events are there when PtlPut
 * returns. */
static void
sync_delivery(void **state)
{
	ptl_event_t ev;

	(void)state;
	target_md(1, PT, 0, dst_buf, 64, PTL_MD_THRESH_INF, PTL_MD_OP_PUT);
	source_md(0, src_buf, 8, 1);
	put(0, 1, 8, PTL_ACK_REQ, PT, 0, 0, 0);
	assert_int_equal(PtlEQGet(P[1].eq, &ev), PTL_OK);
	assert_int_equal(ev.type, PTL_EVENT_PUT_START);
	assert_int_equal(PtlEQGet(P[1].eq, &ev), PTL_OK);
	assert_int_equal(ev.type, PTL_EVENT_PUT_END);
	ev_next(P[0].eq, PTL_EVENT_SEND_START);
	ev_next(P[0].eq, PTL_EVENT_SEND_END);
	ev_next(P[0].eq, PTL_EVENT_ACK);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(noinit_everywhere),
		cmocka_unit_test(ni_init_rules),
		cmocka_unit_test_setup_teardown(match_bits_table, setup,
				teardown),
		cmocka_unit_test_setup_teardown(source_wildcards_table, setup,
				teardown),
		cmocka_unit_test_setup_teardown(walk_continues, setup,
				teardown),
		cmocka_unit_test_setup_teardown(check_order_table, setup,
				teardown),
		cmocka_unit_test_setup_teardown(ac_default_user, setup,
				teardown),
		cmocka_unit_test_setup_teardown(list_positions, setup,
				teardown),
		cmocka_unit_test_setup_teardown(attach_any_and_limits, setup,
				teardown),
		cmocka_unit_test_setup_teardown(local_offsets, setup, teardown),
		cmocka_unit_test_setup_teardown(local_truncation, setup,
				teardown),
		cmocka_unit_test_setup_teardown(remote_offsets, setup,
				teardown),
		cmocka_unit_test_setup_teardown(remote_truncation, setup,
				teardown),
		cmocka_unit_test_setup_teardown(get_offsets_and_truncated_ack,
				setup, teardown),
		cmocka_unit_test_setup_teardown(threshold_counts, setup,
				teardown),
		cmocka_unit_test_setup_teardown(initiator_threshold_and_ack,
				setup, teardown),
		cmocka_unit_test_setup_teardown(threshold_zero_stays_linked,
				setup, teardown),
		cmocka_unit_test_setup_teardown(unlink_op_rules, setup,
				teardown),
		cmocka_unit_test_setup_teardown(unlink_nofit_rules, setup,
				teardown),
		cmocka_unit_test_setup_teardown(max_offset_and_size, setup,
				teardown),
		cmocka_unit_test_setup_teardown(md_update_conditional, setup,
				teardown),
		cmocka_unit_test_setup_teardown(unlink_refused_while_pending,
				setup, teardown),
		cmocka_unit_test_setup_teardown(put_events_eager, setup,
				teardown),
		cmocka_unit_test_setup_teardown(put_events_large, setup,
				teardown),
		cmocka_unit_test_setup_teardown(get_events_eager, setup,
				teardown),
		cmocka_unit_test_setup_teardown(get_events_large, setup,
				teardown),
		cmocka_unit_test_setup_teardown(ack_rules_table, setup,
				teardown),
		cmocka_unit_test_setup_teardown(eq_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(ordering_per_pair, setup,
				teardown),
		cmocka_unit_test_setup_teardown(failed_targets, setup,
				teardown),
		cmocka_unit_test_setup_teardown(failed_transfers, setup,
				teardown),
		cmocka_unit_test_setup_teardown(late_ack_and_reply, setup,
				teardown),
		cmocka_unit_test_setup_teardown(no_blocking_no_target_calls,
				setup, teardown),
		cmocka_unit_test_setup_teardown(iovec_descriptors, setup,
				teardown),
		cmocka_unit_test_setup_teardown(descriptor_checks, setup,
				teardown),
		cmocka_unit_test_setup_teardown(region_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(v33_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(eq_poll, setup, teardown),
		cmocka_unit_test_setup_teardown(event_disable_options, setup,
				teardown),
		cmocka_unit_test_setup_teardown(names, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_handles_table, setup,
				teardown),
		cmocka_unit_test_setup_teardown(handles_and_distance, setup,
				teardown),
		cmocka_unit_test_setup_teardown(sync_delivery, setup_sync,
				teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
