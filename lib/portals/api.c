/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals entry points (portals3.h).  Each takes the library lock, as
 * the MX calls do (util/lock.h: the first thread runs without it until a
 * second one comes), calls its implementation, runs the 3.3 event
 * handlers owed (event.c), and leaves.  The 3.3 forms of the five calls
 * whose arguments changed are functions of their own (PtlMDBind33 ...),
 * which the header's macros choose by the number of arguments.
 */
#include "portals/ptl.h"
#include "util/lock.h"

static inline int
leave(int rc)
{
	mxd_ptl_handlers_run();
	mxd_leave();
	return rc;
}

/* Defines 'name' as 'impl' under the library lock. */
#define PTL_ENTRY(name, params, call)		\
	int					\
	name params				\
	{					\
		mxd_enter();			\
		return leave(call);		\
	}

PTL_ENTRY(PtlInit, (int *max_interfaces), mxd_ptl_init(max_interfaces))

void
PtlFini(void)
{
	mxd_enter();
	mxd_ptl_fini();
	mxd_leave();
}

PTL_ENTRY(PtlNIInit, (ptl_interface_t interface, ptl_pid_t pid,
		ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
		ptl_handle_ni_t *handle),
	mxd_ptl_ni_init(interface, pid, desired, actual, handle))
PTL_ENTRY(PtlNIFini, (ptl_handle_ni_t interface), mxd_ptl_ni_fini(interface))
PTL_ENTRY(PtlNIStatus, (ptl_handle_ni_t interface, ptl_sr_index_t sr,
		ptl_sr_value_t *status),
	mxd_ptl_ni_status(interface, sr, status))
PTL_ENTRY(PtlNIDist, (ptl_handle_ni_t interface, ptl_process_id_t process,
		unsigned long *distance),
	mxd_ptl_ni_dist(interface, process, distance))
PTL_ENTRY(PtlNIHandle, (ptl_handle_any_t handle, ptl_handle_ni_t *interface),
	mxd_ptl_ni_handle(handle, interface))
PTL_ENTRY(PtlGetUid, (ptl_handle_ni_t ni_handle, ptl_uid_t *uid),
	uid == NULL ? (mxd_ptl.init ? PTL_SEGV : PTL_NOINIT) :
	mxd_ptl_get_ident(ni_handle, NULL, uid, NULL))
PTL_ENTRY(PtlGetId, (ptl_handle_ni_t ni_handle, ptl_process_id_t *id),
	id == NULL ? (mxd_ptl.init ? PTL_SEGV : PTL_NOINIT) :
	mxd_ptl_get_ident(ni_handle, id, NULL, NULL))
PTL_ENTRY(PtlGetJid, (ptl_handle_ni_t ni_handle, ptl_jid_t *jid),
	jid == NULL ? (mxd_ptl.init ? PTL_SEGV : PTL_NOINIT) :
	mxd_ptl_get_ident(ni_handle, NULL, NULL, jid))

PTL_ENTRY(PtlMEAttach, (ptl_handle_ni_t interface, ptl_pt_index_t index,
		ptl_process_id_t matchid, ptl_match_bits_t match_bits,
		ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
		ptl_ins_pos_t position, ptl_handle_me_t *handle),
	mxd_ptl_me_attach(interface, index, 0, NULL, matchid, match_bits,
		ignorebits, unlink, position, handle))
PTL_ENTRY(PtlMEAttachAny, (ptl_handle_ni_t interface, ptl_pt_index_t *index,
		ptl_process_id_t matchid, ptl_match_bits_t match_bits,
		ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
		ptl_handle_me_t *handle),
	mxd_ptl_me_attach(interface, 0, 1, index, matchid, match_bits,
		ignorebits, unlink, PTL_INS_AFTER, handle))
PTL_ENTRY(PtlMEInsert, (ptl_handle_me_t current, ptl_process_id_t matchid,
		ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits,
		ptl_ins_pos_t position, ptl_handle_me_t *handle),
	mxd_ptl_me_insert(current, matchid, match_bits, ignorebits,
		PTL_RETAIN, position, handle))
PTL_ENTRY(PtlMEInsert33, (ptl_handle_me_t current, ptl_process_id_t matchid,
		ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits,
		ptl_unlink_t unlink, ptl_ins_pos_t position,
		ptl_handle_me_t *handle),
	mxd_ptl_me_insert(current, matchid, match_bits, ignorebits, unlink,
		position, handle))
PTL_ENTRY(PtlMEUnlink, (ptl_handle_me_t entry), mxd_ptl_me_unlink(entry))

PTL_ENTRY(PtlMDAttach, (ptl_handle_me_t match, ptl_md_t mem_desc,
		ptl_unlink_t unlink_op, ptl_unlink_t unlink_nofit,
		ptl_handle_md_t *handle),
	mxd_ptl_md_attach(match, &mem_desc, unlink_op, unlink_nofit, handle))
PTL_ENTRY(PtlMDAttach33, (ptl_handle_me_t match, ptl_md_t mem_desc,
		ptl_unlink_t unlink_op, ptl_handle_md_t *handle),
	mxd_ptl_md_attach(match, &mem_desc, unlink_op, PTL_RETAIN, handle))
PTL_ENTRY(PtlMDBind, (ptl_handle_ni_t interface, ptl_md_t mem_desc,
		ptl_handle_md_t *handle),
	mxd_ptl_md_bind(interface, &mem_desc, PTL_RETAIN, handle))
PTL_ENTRY(PtlMDBind33, (ptl_handle_ni_t interface, ptl_md_t mem_desc,
		ptl_unlink_t unlink_op, ptl_handle_md_t *handle),
	mxd_ptl_md_bind(interface, &mem_desc, unlink_op, handle))
PTL_ENTRY(PtlMDUnlink, (ptl_handle_md_t mem_desc),
	mxd_ptl_md_unlink_call(mem_desc))
PTL_ENTRY(PtlMDUpdate, (ptl_handle_md_t mem_desc, ptl_md_t *old_md,
		ptl_md_t *new_md, ptl_handle_eq_t testq),
	mxd_ptl_md_update(mem_desc, old_md, new_md, testq))

PTL_ENTRY(PtlEQAlloc, (ptl_handle_ni_t interface, ptl_size_t count,
		ptl_handle_eq_t *handle),
	mxd_ptl_eq_alloc_call(interface, count, PTL_EQ_HANDLER_NONE, handle))
PTL_ENTRY(PtlEQAlloc33, (ptl_handle_ni_t interface, ptl_size_t count,
		ptl_eq_handler_t handler, ptl_handle_eq_t *handle),
	mxd_ptl_eq_alloc_call(interface, count, handler, handle))
PTL_ENTRY(PtlEQFree, (ptl_handle_eq_t eventq), mxd_ptl_eq_free_call(eventq))
PTL_ENTRY(PtlEQGet, (ptl_handle_eq_t eventq, ptl_event_t *event),
	mxd_ptl_eq_get_call(eventq, event))

int
PtlEQWait(ptl_handle_eq_t eventq, ptl_event_t *event)
{
	int which;

	mxd_enter();
	return leave(mxd_ptl_eq_poll(&eventq, 1, PTL_TIME_FOREVER, event,
			&which));
}

PTL_ENTRY(PtlEQPoll, (ptl_handle_eq_t *eventqs, int size, ptl_time_t timeout,
		ptl_event_t *event, int *which),
	mxd_ptl_eq_poll(eventqs, size, timeout, event, which))

PTL_ENTRY(PtlACEntry, (ptl_handle_ni_t interface, ptl_ac_index_t index,
		ptl_process_id_t matchid, ptl_uid_t user_id,
		ptl_pt_index_t portal),
	mxd_ptl_ac_entry(interface, index, matchid, user_id, PTL_JID_ANY,
		portal))
PTL_ENTRY(PtlACEntry33, (ptl_handle_ni_t interface, ptl_ac_index_t index,
		ptl_process_id_t matchid, ptl_uid_t user_id, ptl_jid_t job_id,
		ptl_pt_index_t portal),
	mxd_ptl_ac_entry(interface, index, matchid, user_id, job_id, portal))

PTL_ENTRY(PtlPut, (ptl_handle_md_t mem_desc, ptl_ack_req_t ack_req,
		ptl_process_id_t target, ptl_pt_index_t portal,
		ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
		ptl_size_t offset, ptl_hdr_data_t hdr_data),
	mxd_ptl_put(mem_desc, 0, 0, 1, ack_req, target, portal, cookie,
		match_bits, offset, hdr_data))
PTL_ENTRY(PtlPutRegion, (ptl_handle_md_t mem_desc, ptl_size_t local_offset,
		ptl_size_t length, ptl_ack_req_t ack_req,
		ptl_process_id_t target, ptl_pt_index_t portal,
		ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
		ptl_size_t offset, ptl_hdr_data_t hdr_data),
	mxd_ptl_put(mem_desc, local_offset, length, 0, ack_req, target,
		portal, cookie, match_bits, offset, hdr_data))
PTL_ENTRY(PtlGet, (ptl_handle_md_t mem_desc, ptl_process_id_t target,
		ptl_pt_index_t portal, ptl_ac_index_t cookie,
		ptl_match_bits_t match_bits, ptl_size_t offset),
	mxd_ptl_get(mem_desc, 0, 0, 1, target, portal, cookie, match_bits,
		offset))
PTL_ENTRY(PtlGetRegion, (ptl_handle_md_t mem_desc, ptl_size_t local_offset,
		ptl_size_t length, ptl_process_id_t target,
		ptl_pt_index_t portal, ptl_ac_index_t cookie,
		ptl_match_bits_t match_bits, ptl_size_t offset),
	mxd_ptl_get(mem_desc, local_offset, length, 0, target, portal,
		cookie, match_bits, offset))

int
PtlGetPut(ptl_handle_md_t get_md, ptl_handle_md_t put_md,
		ptl_process_id_t target, ptl_pt_index_t portal,
		ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
		ptl_size_t offset, ptl_hdr_data_t hdr_data)
{
	(void)get_md, (void)put_md, (void)target, (void)portal;
	(void)cookie, (void)match_bits, (void)offset, (void)hdr_data;
	mxd_enter();
	return leave(mxd_ptl.init ? PTL_FAIL : PTL_NOINIT);
}

int
PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2)
{
	return handle1 == handle2 ? PTL_OK : PTL_FAIL;
}
