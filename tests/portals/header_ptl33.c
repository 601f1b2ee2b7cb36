/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Portals 3.3 program's view of the header, included as most of them
 * do (<portals/portals3.h>), and nothing else: the 3.3 names of return
 * codes, fields and constants; the five calls whose arguments 3.3
 * changed, called with 3.3's arguments (the header's macros choose the
 * 3.3 functions, whose addresses are PtlMDBind33 ...); the calls 3.3
 * added.  Built as C with -Werror=implicit-function-declaration and
 * -Werror=incompatible-pointer-types, and as C++ (header_ptl33.cc).
 */
#include <portals/portals3.h>

/* A 3.3 program may switch on every return code: each has a value of
 * its own (a duplicate case would not build). */
static const char *
code_name(int rc)
{
	switch (rc) {
	case PTL_OK: return "ok";
	case PTL_SEGV: return "segv";
	case PTL_NO_SPACE: return "no space";
	case PTL_ME_IN_USE: return "me in use";
	case PTL_NO_INIT: return "no init";
	case PTL_IFACE_DUP: return "iface dup";
	case PTL_IFACE_INVALID: return "iface invalid";
	case PTL_HANDLE_INVALID: return "handle invalid";
	case PTL_MD_INVALID: return "md invalid";
	case PTL_ME_INVALID: return "me invalid";
	case PTL_PROCESS_INVALID: return "process invalid";
	case PTL_PT_INDEX_INVALID: return "pt index invalid";
	case PTL_SR_INDEX_INVALID: return "sr index invalid";
	case PTL_EQ_INVALID: return "eq invalid";
	case PTL_EQ_DROPPED: return "eq dropped";
	case PTL_EQ_EMPTY: return "eq empty";
	case PTL_MD_NO_UPDATE: return "md no update";
	case PTL_FAIL: return "fail";
	case PTL_AC_INDEX_INVALID: return "ac index invalid";
	case PTL_MD_ILLEGAL: return "md illegal";
	case PTL_ME_LIST_TOO_LONG: return "me list too long";
	case PTL_MD_IN_USE: return "md in use";
	case PTL_NI_INVALID: return "ni invalid";
	case PTL_PID_INVALID: return "pid invalid";
	case PTL_PT_FULL: return "pt full";
	case PTL_UNKNOWN_ERROR: return "unknown";
	default: return ptl_err_str[rc];
	}
}

/* The 3.3 forms, by their own names; the calls 3.3 added. */
struct ptl33_functions {
	int (*md_bind)(ptl_handle_ni_t, ptl_md_t, ptl_unlink_t,
			ptl_handle_md_t *);
	int (*md_attach)(ptl_handle_me_t, ptl_md_t, ptl_unlink_t,
			ptl_handle_md_t *);
	int (*eq_alloc)(ptl_handle_ni_t, ptl_size_t, ptl_eq_handler_t,
			ptl_handle_eq_t *);
	int (*ac_entry)(ptl_handle_ni_t, ptl_ac_index_t, ptl_process_id_t,
			ptl_uid_t, ptl_jid_t, ptl_pt_index_t);
	int (*me_insert)(ptl_handle_me_t, ptl_process_id_t, ptl_match_bits_t,
			ptl_match_bits_t, ptl_unlink_t, ptl_ins_pos_t,
			ptl_handle_me_t *);
	int (*eq_poll)(ptl_handle_eq_t *, int, ptl_time_t, ptl_event_t *,
			int *);
	int (*get_jid)(ptl_handle_ni_t, ptl_jid_t *);
	int (*put_region)(ptl_handle_md_t, ptl_size_t, ptl_size_t,
			ptl_ack_req_t, ptl_process_id_t, ptl_pt_index_t,
			ptl_ac_index_t, ptl_match_bits_t, ptl_size_t,
			ptl_hdr_data_t);
	int (*get_region)(ptl_handle_md_t, ptl_size_t, ptl_size_t,
			ptl_process_id_t, ptl_pt_index_t, ptl_ac_index_t,
			ptl_match_bits_t, ptl_size_t);
	int (*get_put)(ptl_handle_md_t, ptl_handle_md_t, ptl_process_id_t,
			ptl_pt_index_t, ptl_ac_index_t, ptl_match_bits_t,
			ptl_size_t, ptl_hdr_data_t);
	int (*handle_is_equal)(ptl_handle_any_t, ptl_handle_any_t);
	const char *(*error_str)(unsigned int);
	const char *(*event_kind_str)(ptl_event_kind_t);
	const char *(*ni_fail_str)(ptl_handle_ni_t, ptl_ni_fail_t);
};

static const struct ptl33_functions fns = {
	PtlMDBind33, PtlMDAttach33, PtlEQAlloc33, PtlACEntry33, PtlMEInsert33,
	PtlEQPoll, PtlGetJid, PtlPutRegion, PtlGetRegion, PtlGetPut,
	PtlHandleIsEqual, PtlErrorStr, PtlEventKindStr, PtlNIFailStr,
};

static void
handler(ptl_event_t *ev)
{
	(void)ev;
}

static int
calls(void)
{
	ptl_handle_ni_t ni = PTL_INVALID_HANDLE;
	ptl_handle_eq_t eq = PTL_EQ_NONE;
	ptl_handle_me_t me = PTL_HANDLE_NONE;
	ptl_handle_md_t md = PTL_INVALID_HANDLE;
	ptl_process_id_t id;
	ptl_ni_limits_t limits;
	ptl_md_iovec_t iov[2];
	ptl_md_t desc;
	ptl_event_t ev;
	ptl_jid_t jid;
	ptl_time_t t = PTL_TIME_FOREVER;
	int which, bad = 0;

	id.nid = PTL_NID_ANY;
	id.pid = PTL_PID_ANY;
	limits.max_mes = 8;
	limits.max_mds = 8;
	limits.max_eqs = 2;
	limits.max_ac_index = 1;
	limits.max_pt_index = 1;
	limits.max_md_iovecs = 2;
	limits.max_me_list = 8;
	limits.max_getput_md = 0;
	iov[0].iov_base = &limits;
	iov[0].iov_len = sizeof(limits);
	iov[1].iov_base = &t;
	iov[1].iov_len = sizeof(t);
	desc.start = iov;
	desc.length = 2;
	desc.threshold = PTL_MD_THRESH_INF;
	desc.max_size = 0;
	desc.options = PTL_MD_IOVEC | PTL_MD_MAX_SIZE |
		PTL_MD_EVENT_START_DISABLE | PTL_MD_EVENT_END_DISABLE;
	desc.user_ptr = 0;
	desc.eq_handle = PTL_EQ_NONE;
	ev.pt_index = 0;
	ev.md = desc;
	ev.jid = PTL_JID_ANY;
	ev.ni_fail_type = PTL_NI_OK;

	bad |= PtlNIInit(PTL_IFACE_DEFAULT, PTL_PID_ANY, &limits, &limits,
			&ni) != PTL_NO_INIT;
	bad |= PtlMDBind(ni, desc, PTL_UNLINK, &md) != PTL_NO_INIT;
	bad |= PtlMDAttach(me, desc, PTL_RETAIN, &md) != PTL_NO_INIT;
	bad |= PtlEQAlloc(ni, 64, PTL_EQ_HANDLER_NONE, &eq) != PTL_NO_INIT;
	bad |= PtlEQAlloc(ni, 64, handler, &eq) != PTL_NO_INIT;
	bad |= PtlACEntry(ni, 0, id, PTL_UID_ANY, PTL_JID_ANY,
			PTL_PT_INDEX_ANY) != PTL_NO_INIT;
	bad |= PtlMEInsert(me, id, 0, ~(ptl_match_bits_t)0, PTL_UNLINK,
			PTL_INS_AFTER, &me) != PTL_NO_INIT;
	bad |= PtlEQPoll(&eq, 1, t, &ev, &which) != PTL_NO_INIT;
	bad |= PtlGetJid(ni, &jid) != PTL_NO_INIT;
	bad |= PtlPutRegion(md, 0, 4, PTL_NO_ACK_REQ, id, 0, 0, 0, 0, 0) !=
		PTL_NO_INIT;
	bad |= PtlGetRegion(md, 0, 4, id, 0, 0, 0, 0) != PTL_NO_INIT;
	bad |= PtlGetPut(md, md, id, 0, 0, 0, 0, 0) != PTL_NO_INIT;
	bad |= PtlHandleIsEqual(md, md) != PTL_OK;
	bad |= PtlHandleIsEqual(md, me) != PTL_FAIL;
	bad |= PtlErrorStr(PTL_IFACE_DUP)[0] != 'P';
	bad |= PtlEventKindStr(PTL_EVENT_SEND_END)[0] != 'P';
	bad |= PtlNIFailStr(ni, PTL_NI_FAIL)[0] != 'P';
	return bad;
}

int
main(void)
{
	if (fns.md_bind != PtlMDBind33 || code_name(PTL_OK)[0] != 'o' ||
			PTL_SR_DROP_LENGTH == PTL_SR_DROP_COUNT ||
			PTL_MAX_ERRNO <= PTL_UNKNOWN_ERROR)
		return 1;
	return calls();
}
