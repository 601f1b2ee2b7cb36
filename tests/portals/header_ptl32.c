/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Portals 3.2 program's view of portals3.h, and nothing else included:
 * every function of the 3.2 text (the 23 of its table of functions and
 * PtlGetUid) assigned to a pointer of its 3.2 type and called with its
 * 3.2 arguments, every type, and every constant and return code of its
 * tables.  Built as C with -Werror=implicit-function-declaration and
 * -Werror=incompatible-pointer-types, and as C++ (header_ptl32.cc).  Run,
 * it checks that every call answers PTL_NOINIT before PtlInit (no
 * network needed) and that the constants have the values programs rely
 * on.
 */
#include <portals3.h>

#define CHECK(name, cond) typedef char check_##name[(cond) ? 1 : -1]

CHECK(size_64, sizeof(ptl_size_t) == 8);
CHECK(match_64, sizeof(ptl_match_bits_t) == 8);
CHECK(hdr_64, sizeof(ptl_hdr_data_t) == 8);
CHECK(nid_holds_a_mac, sizeof(ptl_nid_t) >= 6);
CHECK(sr_signed, (ptl_sr_value_t)-1 < 0);
CHECK(sr_32, sizeof(ptl_sr_value_t) >= 4);
CHECK(handle_any, sizeof(ptl_handle_any_t) >= sizeof(ptl_handle_md_t));
CHECK(thresh_inf, PTL_MD_THRESH_INF == -1);

/* The 3.2 text's table of functions, with its signatures. */
struct ptl32_functions {
	int (*init)(int *);
	void (*fini)(void);
	int (*ni_init)(ptl_interface_t, ptl_pid_t, ptl_ni_limits_t *,
			ptl_ni_limits_t *, ptl_handle_ni_t *);
	int (*ni_fini)(ptl_handle_ni_t);
	int (*ni_status)(ptl_handle_ni_t, ptl_sr_index_t, ptl_sr_value_t *);
	int (*ni_dist)(ptl_handle_ni_t, ptl_process_id_t, unsigned long *);
	int (*ni_handle)(ptl_handle_any_t, ptl_handle_ni_t *);
	int (*get_uid)(ptl_handle_ni_t, ptl_uid_t *);
	int (*get_id)(ptl_handle_ni_t, ptl_process_id_t *);
	int (*me_attach)(ptl_handle_ni_t, ptl_pt_index_t, ptl_process_id_t,
			ptl_match_bits_t, ptl_match_bits_t, ptl_unlink_t,
			ptl_ins_pos_t, ptl_handle_me_t *);
	int (*me_attach_any)(ptl_handle_ni_t, ptl_pt_index_t *,
			ptl_process_id_t, ptl_match_bits_t, ptl_match_bits_t,
			ptl_unlink_t, ptl_handle_me_t *);
	int (*me_insert)(ptl_handle_me_t, ptl_process_id_t, ptl_match_bits_t,
			ptl_match_bits_t, ptl_ins_pos_t, ptl_handle_me_t *);
	int (*me_unlink)(ptl_handle_me_t);
	int (*md_attach)(ptl_handle_me_t, ptl_md_t, ptl_unlink_t, ptl_unlink_t,
			ptl_handle_md_t *);
	int (*md_bind)(ptl_handle_ni_t, ptl_md_t, ptl_handle_md_t *);
	int (*md_unlink)(ptl_handle_md_t);
	int (*md_update)(ptl_handle_md_t, ptl_md_t *, ptl_md_t *,
			ptl_handle_eq_t);
	int (*eq_alloc)(ptl_handle_ni_t, ptl_size_t, ptl_handle_eq_t *);
	int (*eq_free)(ptl_handle_eq_t);
	int (*eq_get)(ptl_handle_eq_t, ptl_event_t *);
	int (*eq_wait)(ptl_handle_eq_t, ptl_event_t *);
	int (*ac_entry)(ptl_handle_ni_t, ptl_ac_index_t, ptl_process_id_t,
			ptl_uid_t, ptl_pt_index_t);
	int (*put)(ptl_handle_md_t, ptl_ack_req_t, ptl_process_id_t,
			ptl_pt_index_t, ptl_ac_index_t, ptl_match_bits_t,
			ptl_size_t, ptl_hdr_data_t);
	int (*get)(ptl_handle_md_t, ptl_process_id_t, ptl_pt_index_t,
			ptl_ac_index_t, ptl_match_bits_t, ptl_size_t);
};

static const struct ptl32_functions fns = {
	PtlInit, PtlFini, PtlNIInit, PtlNIFini, PtlNIStatus, PtlNIDist,
	PtlNIHandle, PtlGetUid, PtlGetId, PtlMEAttach, PtlMEAttachAny,
	PtlMEInsert, PtlMEUnlink, PtlMDAttach, PtlMDBind, PtlMDUnlink,
	PtlMDUpdate, PtlEQAlloc, PtlEQFree, PtlEQGet, PtlEQWait, PtlACEntry,
	PtlPut, PtlGet,
};

/* The return codes of the 3.2 text's table (and its body: PTL_INV_REG,
 * PTL_PT_INV_INDEX name the same conditions as PTL_INV_SR_INDX and
 * PTL_INV_PTINDEX). */
static const int codes[] = {
	PTL_OK, PTL_AC_INV_INDEX, PTL_EQ_DROPPED, PTL_EQ_EMPTY, PTL_FAIL,
	PTL_ILL_MD, PTL_INIT_DUP, PTL_INIT_INV, PTL_INUSE, PTL_INV_ASIZE,
	PTL_INV_EQ, PTL_INV_HANDLE, PTL_INV_MD, PTL_INV_ME, PTL_INV_NI,
	PTL_INV_PROC, PTL_INV_PTINDEX, PTL_INV_REG, PTL_INV_SR_INDX,
	PTL_ML_TOOLONG, PTL_MD_INUSE, PTL_NOINIT, PTL_NOSPACE, PTL_NOUPDATE,
	PTL_PT_FULL, PTL_SEGV, PTL_PT_INV_INDEX,
};

/* The other constants of its table. */
static const ptl_event_kind_t kinds[] = {
	PTL_EVENT_GET_START, PTL_EVENT_GET_END, PTL_EVENT_GET_FAIL,
	PTL_EVENT_PUT_START, PTL_EVENT_PUT_END, PTL_EVENT_PUT_FAIL,
	PTL_EVENT_REPLY_START, PTL_EVENT_REPLY_END, PTL_EVENT_REPLY_FAIL,
	PTL_EVENT_ACK_START, PTL_EVENT_ACK_END, PTL_EVENT_ACK_FAIL,
	PTL_EVENT_SEND_START, PTL_EVENT_SEND_END, PTL_EVENT_SEND_FAIL,
	PTL_EVENT_ACK, PTL_EVENT_UNLINK,
};

static const unsigned options = PTL_MD_ACK_DISABLE | PTL_MD_MANAGE_REMOTE |
	PTL_MD_OP_GET | PTL_MD_OP_PUT | PTL_MD_TRUNCATE;

static int
calls(void)
{
	ptl_handle_ni_t ni = 0;
	ptl_handle_eq_t eq = PTL_EQ_NONE;
	ptl_handle_me_t me = 0;
	ptl_handle_md_t md = 0;
	ptl_handle_any_t any = ni;
	ptl_process_id_t id;
	ptl_ni_limits_t limits;
	ptl_md_t mem_desc;
	ptl_event_t ev;
	ptl_sr_value_t status;
	ptl_uid_t uid;
	ptl_pt_index_t index;
	unsigned long distance;
	ptl_interface_t iface = PTL_IFACE_DEFAULT;
	ptl_sr_index_t sr = PTL_SR_DROP_COUNT;
	ptl_ac_index_t ac = 0;
	ptl_seq_t seq;
	ptl_ni_fail_t fail;
	int bad = 0;

	id.nid = PTL_NID_ANY;
	id.pid = PTL_PID_ANY;
	limits.max_match_entries = 8;
	limits.max_mem_descriptors = 8;
	limits.max_event_queues = 2;
	limits.max_atable_index = 1;
	limits.max_ptable_index = 1;
	mem_desc.start = &limits;
	mem_desc.length = sizeof(limits);
	mem_desc.threshold = PTL_MD_THRESH_INF;
	mem_desc.max_offset = 0;
	mem_desc.options = options;
	mem_desc.user_ptr = 0;
	mem_desc.eventq = PTL_EQ_NONE;
	ev.type = PTL_EVENT_UNLINK;
	ev.portal = 0;
	ev.mem_desc = mem_desc;
	ev.uid = PTL_UID_ANY;
	seq = ev.link = 0;
	fail = ev.ni_fail_type = 0;
	(void)seq;
	(void)fail;

	bad |= PtlNIInit(iface, PTL_PID_ANY, &limits, &limits, &ni) !=
		PTL_NOINIT;
	bad |= PtlNIFini(ni) != PTL_NOINIT;
	bad |= PtlNIStatus(ni, sr, &status) != PTL_NOINIT;
	bad |= PtlNIDist(ni, id, &distance) != PTL_NOINIT;
	bad |= PtlNIHandle(any, &ni) != PTL_NOINIT;
	bad |= PtlGetUid(ni, &uid) != PTL_NOINIT;
	bad |= PtlGetId(ni, &id) != PTL_NOINIT;
	bad |= PtlMEAttach(ni, 0, id, 0, 0, PTL_RETAIN, PTL_INS_AFTER, &me) !=
		PTL_NOINIT;
	bad |= PtlMEAttachAny(ni, &index, id, 0, 0, PTL_UNLINK, &me) !=
		PTL_NOINIT;
	bad |= PtlMEInsert(me, id, 0, 0, PTL_INS_BEFORE, &me) != PTL_NOINIT;
	bad |= PtlMEUnlink(me) != PTL_NOINIT;
	bad |= PtlMDAttach(me, mem_desc, PTL_UNLINK, PTL_RETAIN, &md) !=
		PTL_NOINIT;
	bad |= PtlMDBind(ni, mem_desc, &md) != PTL_NOINIT;
	bad |= PtlMDUnlink(md) != PTL_NOINIT;
	bad |= PtlMDUpdate(md, &mem_desc, &mem_desc, eq) != PTL_NOINIT;
	bad |= PtlEQAlloc(ni, 16, &eq) != PTL_NOINIT;
	bad |= PtlEQFree(eq) != PTL_NOINIT;
	bad |= PtlEQGet(eq, &ev) != PTL_NOINIT;
	bad |= PtlEQWait(eq, &ev) != PTL_NOINIT;
	bad |= PtlACEntry(ni, ac, id, PTL_UID_ANY, PTL_PT_INDEX_ANY) !=
		PTL_NOINIT;
	bad |= PtlPut(md, PTL_ACK_REQ, id, 0, ac, 0, 0, 0) != PTL_NOINIT;
	bad |= PtlPut(md, PTL_NOACK_REQ, id, 0, ac, 0, 0, 0) != PTL_NOINIT;
	bad |= PtlGet(md, id, 0, ac, 0, 0) != PTL_NOINIT;
	PtlFini();
	return bad;
}

int
main(void)
{
	/* The table's three ACK kinds: the one event an ACK logs is
	 * PTL_EVENT_ACK_END, PTL_EVENT_ACK. */
	if (codes[0] != PTL_OK || kinds[10] != PTL_EVENT_ACK ||
			fns.init != PtlInit || PTL_UNLINK == PTL_RETAIN ||
			PTL_INS_BEFORE == PTL_INS_AFTER || options == 0)
		return 1;
	return calls();
}
