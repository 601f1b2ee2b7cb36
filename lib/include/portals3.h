/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file portals3.h
 * The Portals 3.2 message passing interface, implemented by mx-dpdk on
 * the engine that carries MX (myriexpress.h), over Ethernet with DPDK.
 * Programs include it as <portals3.h> or as <portals/portals3.h>.
 *
 * The contract is the Portals 3.2 specification (Sandia report, revision
 * 1.1): every function, type, constant and return code it defines is
 * declared here with its signature.  Programs written for Portals 3.3
 * build too: its renamed return codes and fields (PTL_NO_SPACE, md.max_size,
 * md.eq_handle, ev.pt_index, ev.md, limits.max_mes ...) are further names
 * of the same things, and the five calls whose argument lists 3.3 changed
 * (PtlMDBind, PtlMDAttach, PtlEQAlloc, PtlACEntry, PtlMEInsert) are
 * macros that call the 3.2 or the 3.3 form by the number of arguments
 * (define PTL_NO_ARITY_MACROS before including this header to call the
 * forms by their own names: PtlMDBind() and PtlMDBind33() ...).
 * portals3(3) lists each 3.3 call and what it does here.
 *
 * Identifiers: a node id (ptl_nid_t) is a board's NIC id, the MAC
 * address of its first port in the low 48 bits, as mx_get_info() and
 * mx_board_number_to_nic_id() give it; a process id (ptl_pid_t) is an
 * endpoint id on that board, 0 to 31 (MX_MAX_ENDPOINTS - 1); a network
 * interface (ptl_interface_t) is a board number; a user id is the
 * process's real uid.  Node ids are 64 bits wide where Portals 3.3 made
 * them 32: print them with PRIx64 (<inttypes.h> comes with this header),
 * never store them in an unsigned int.
 *
 * Every function returns PTL_OK or a code below; output arguments are
 * written only on success.  No function blocks except PtlEQWait() and
 * PtlEQPoll() (which wait for an event) and PtlNIFini() and PtlFini()
 * (which wait for the threads blocked in those to leave).  PtlPut() and
 * PtlGet() return at once; the first operation towards a process starts
 * its connection in the background.  Any thread may make any call.
 */
#ifndef PORTALS3_H
#define PORTALS3_H

/* Node ids are printed and parsed with PRIx64/SCNx64 from here. */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Members that Portals 3.2 and 3.3 spell differently are anonymous unions
 * of the two names (C11, C++; GCC and clang accept them in C99 as an
 * extension, which __extension__ keeps quiet under -pedantic).
 */
#if defined(__GNUC__) && !defined(__cplusplus)
#define PTL_UNION_ __extension__ union
#else
#define PTL_UNION_ union
#endif

/** The Portals API this header implements (3.2), and its revision. */
#define PTL_API_VERSION_MAJOR 3
#define PTL_API_VERSION_MINOR 2

/* ---- base types ------------------------------------------------------ */

/** Sizes and offsets: unsigned, 64 bits. */
typedef uint64_t ptl_size_t;

/**
 * Handles.  Every handle is an integer that carries the kind of object,
 * the network interface it belongs to, a slot and the slot's generation,
 * so that a handle of an object released before is refused (PTL_INV_*)
 * rather than taken for the object now in its slot.  Any handle converts
 * to ptl_handle_any_t and back without loss.  Compare handles with ==
 * or with PtlHandleIsEqual().
 */
typedef uint64_t ptl_handle_any_t;
typedef ptl_handle_any_t ptl_handle_ni_t;	/**< a network interface */
typedef ptl_handle_any_t ptl_handle_eq_t;	/**< an event queue */
typedef ptl_handle_any_t ptl_handle_md_t;	/**< a memory descriptor */
typedef ptl_handle_any_t ptl_handle_me_t;	/**< a match list entry */

/** No event queue: a descriptor whose eventq is this logs nothing. */
#define PTL_EQ_NONE ((ptl_handle_eq_t)UINT64_C(0xbfffffffffffffff))
/** No memory descriptor (named by the 3.2 text's chapter 4). */
#define PTL_MD_NONE ((ptl_handle_md_t)UINT64_C(0xdfffffffffffffff))
/** Portals 3.3: a handle that names nothing. */
#define PTL_INVALID_HANDLE ((ptl_handle_any_t)UINT64_C(0xffffffffffffffff))
/** Portals 3.3: another handle that names nothing. */
#define PTL_HANDLE_NONE ((ptl_handle_any_t)UINT64_C(0x7fffffffffffffff))

/** Portal table and access control table indexes. */
typedef uint32_t ptl_pt_index_t;
typedef uint32_t ptl_ac_index_t;
/** In an access control entry: any portal index. */
#define PTL_PT_INDEX_ANY ((ptl_pt_index_t)0xffffffffu)

/** Match bits (and ignore bits): 64 bits. */
typedef uint64_t ptl_match_bits_t;

/** A network interface: a board number (0 is the first board). */
typedef uint32_t ptl_interface_t;
/** The default interface: the first board. */
#define PTL_IFACE_DEFAULT ((ptl_interface_t)0xffffffffu)

/**
 * Node id: the NIC id of a board, 48 bits (the MAC address of its first
 * port) in a 64-bit integer.
 */
typedef uint64_t ptl_nid_t;
/** Process id: an endpoint id of the board, 0 to 31. */
typedef uint32_t ptl_pid_t;
/** User id: the process's uid. */
typedef uint32_t ptl_uid_t;
/** Portals 3.3: job id.  mx-dpdk has no jobs: every process has
 *  PTL_JID_NONE. */
typedef uint32_t ptl_jid_t;

/** Wildcards of match entries and access control entries. */
#define PTL_NID_ANY ((ptl_nid_t)UINT64_C(0xffffffffffffffff))
#define PTL_PID_ANY ((ptl_pid_t)0xffffffffu)
#define PTL_UID_ANY ((ptl_uid_t)0xffffffffu)
#define PTL_JID_ANY ((ptl_jid_t)0xffffffffu)
/** Portals 3.3: the job id of a process that has none (every process). */
#define PTL_JID_NONE ((ptl_jid_t)0)
/**
 * The wildcard of the 3.2 text's examples, for a node id or a process
 * id alike: -1 converts to PTL_NID_ANY and to PTL_PID_ANY.
 */
#define PTL_ID_ANY (-1)

/** Status register indexes and values (PtlNIStatus()). */
typedef uint32_t ptl_sr_index_t;
/** A status register's value: signed, 64 bits. */
typedef int64_t ptl_sr_value_t;

/** Messages dropped by the interface (the one register the text requires):
 *  every put or get refused by the portal index, the access control
 *  table or the match list, and every acknowledgement or reply that found
 *  no descriptor to take it. */
#define PTL_SR_DROP_COUNT 0
/** Portals 3.3: bytes the dropped messages asked to move (rlength). */
#define PTL_SR_DROP_LENGTH 1
/** mx-dpdk: dropped because the portal index was out of range. */
#define PTL_SR_DROP_PT_INDEX 2
/** mx-dpdk: dropped by the access control table (no such entry, or an
 *  entry that does not admit the initiator or the portal). */
#define PTL_SR_DROP_AC 3
/** mx-dpdk: dropped because no match entry and descriptor took it. */
#define PTL_SR_DROP_NO_MATCH 4
/** mx-dpdk: acknowledgements and replies dropped because their
 *  descriptor was gone (or inactive, for an acknowledgement). */
#define PTL_SR_DROP_LATE 5
/** mx-dpdk: events lost because an event queue was full. */
#define PTL_SR_EQ_DROPPED 6

/** Out-of-band data of a put, 64 bits. */
typedef uint64_t ptl_hdr_data_t;
/** Event sequence numbers and links. */
typedef uint32_t ptl_seq_t;

/** Portals 3.3: a timeout in milliseconds (PtlEQPoll()). */
typedef uint32_t ptl_time_t;
/** Portals 3.3: no timeout. */
#define PTL_TIME_FOREVER ((ptl_time_t)0xffffffffu)

/* ---- return codes ----------------------------------------------------- */

/**
 * Return codes.  The 3.2 names are the enumerators; the 3.3 names are
 * further names of the same values.  Two 3.2 names that the text uses for
 * one condition share a value (PTL_INV_PTINDEX and PTL_PT_INV_INDEX;
 * PTL_INV_SR_INDX and PTL_INV_REG); every 3.3 name has a value of its
 * own, so that a 3.3 program may switch on all of them.
 */
typedef enum {
	PTL_OK = 0,		/**< success */
	PTL_SEGV = 1,		/**< an output argument is NULL */
	PTL_NOSPACE = 2,	/**< no room: a pool of the interface is used up */
	PTL_INUSE = 3,		/**< the match entry has a descriptor already
				 *   (PtlMDAttach), or one with operations
				 *   pending (PtlMEUnlink) */
	PTL_FAIL = 4,		/**< initialization failed, or an argument no
				 *   other code names is wrong */
	PTL_NOINIT = 5,		/**< PtlInit() was not called */
	PTL_INIT_DUP = 6,	/**< the interface is initialized already: the
				 *   handle is returned all the same */
	PTL_INIT_INV = 7,	/**< no such interface */
	PTL_INV_ASIZE = 8,	/**< invalid access control table size (never
				 *   returned: desired limits are advice) */
	PTL_INV_HANDLE = 9,	/**< the handle names no object */
	PTL_INV_MD = 10,	/**< the handle names no memory descriptor, or
				 *   (PtlPut, PtlGet) an inactive one */
	PTL_INV_ME = 11,	/**< the handle names no match entry */
	PTL_INV_NI = 12,	/**< the handle names no network interface */
	PTL_INV_PROC = 13,	/**< not a valid process id */
	PTL_INV_PTINDEX = 14,	/**< not a valid portal table index */
	PTL_INV_SR_INDX = 15,	/**< not a valid status register */
	PTL_INV_EQ = 16,	/**< the handle names no event queue */
	PTL_EQ_DROPPED = 17,	/**< an event is returned, and events before it
				 *   were lost because the queue was full */
	PTL_EQ_EMPTY = 18,	/**< no event (or another thread is waiting in
				 *   PtlEQWait() on the queue) */
	PTL_NOUPDATE = 19,	/**< PtlMDUpdate(): the test queue was not empty */
	PTL_AC_INV_INDEX = 20,	/**< not a valid access control table index */
	PTL_ILL_MD = 21,	/**< not a legal memory descriptor */
	PTL_ML_TOOLONG = 22,	/**< the match list would be too long */
	PTL_MD_INUSE = 23,	/**< the descriptor has operations pending */
	PTL_PT_FULL = 24,	/**< PtlMEAttachAny(): no free portal index */
	/** Portals 3.3: not a valid process id for PtlNIInit() (mx-dpdk
	 *  returns PTL_INV_PROC there, as the 3.2 text says). */
	PTL_PID_INVALID = 25,
	/** Portals 3.3: an error of unknown cause (never returned). */
	PTL_UNKNOWN_ERROR = 26,
	/** Portals 3.3: one more than the largest code. */
	PTL_MAX_ERRNO = 27
} ptl_err_t;

/** The 3.2 text uses both names for a bad portal index. */
#define PTL_PT_INV_INDEX PTL_INV_PTINDEX
/** The 3.2 text's table uses both names for a bad status register. */
#define PTL_INV_REG PTL_INV_SR_INDX

/* Portals 3.3 names of the same codes. */
#define PTL_NO_SPACE PTL_NOSPACE
#define PTL_ME_IN_USE PTL_INUSE
#define PTL_NO_INIT PTL_NOINIT
#define PTL_IFACE_DUP PTL_INIT_DUP
#define PTL_IFACE_INVALID PTL_INIT_INV
#define PTL_HANDLE_INVALID PTL_INV_HANDLE
#define PTL_MD_INVALID PTL_INV_MD
#define PTL_ME_INVALID PTL_INV_ME
#define PTL_NI_INVALID PTL_INV_NI
#define PTL_PROCESS_INVALID PTL_INV_PROC
#define PTL_PT_INDEX_INVALID PTL_INV_PTINDEX
#define PTL_SR_INDEX_INVALID PTL_INV_SR_INDX
#define PTL_EQ_INVALID PTL_INV_EQ
#define PTL_MD_NO_UPDATE PTL_NOUPDATE
#define PTL_AC_INDEX_INVALID PTL_AC_INV_INDEX
#define PTL_MD_ILLEGAL PTL_ILL_MD
#define PTL_ME_LIST_TOO_LONG PTL_ML_TOOLONG
#define PTL_MD_IN_USE PTL_MD_INUSE

/**
 * Portals 3.3 (Lustre's and Cray's headers): the name of each return
 * code, indexed by the code (PTL_MAX_ERRNO entries, then NULL).
 */
extern const char *ptl_err_str[];

/* ---- network interfaces ---------------------------------------------- */

/**
 * Limits of a network interface (PtlNIInit()).  The first five members
 * are the 3.2 text's, each also under its 3.3 name; the last three are
 * Portals 3.3's.  Values out of range in the desired limits (zero,
 * negative, above mx-dpdk's ceilings, or left uninitialized by a 3.2
 * program that does not know the 3.3 members) take the default.
 */
typedef struct {
	/** Match entries allocated at one time (3.3: max_mes). */
	PTL_UNION_ { int max_match_entries; int max_mes; };
	/** Memory descriptors allocated at one time (3.3: max_mds). */
	PTL_UNION_ { int max_mem_descriptors; int max_mds; };
	/** Event queues allocated at one time (3.3: max_eqs). */
	PTL_UNION_ { int max_event_queues; int max_eqs; };
	/** Largest access control table index (3.3: max_ac_index). */
	PTL_UNION_ { ptl_ac_index_t max_atable_index; int max_ac_index; };
	/** Largest portal table index (3.3: max_pt_index). */
	PTL_UNION_ { ptl_pt_index_t max_ptable_index; int max_pt_index; };
	/** Portals 3.3: most segments of a PTL_MD_IOVEC descriptor. */
	int max_md_iovecs;
	/** Portals 3.3: most entries of one match list. */
	int max_me_list;
	/** Portals 3.3: largest descriptor of PtlGetPut() (0: not
	 *  supported). */
	int max_getput_md;
} ptl_ni_limits_t;

/** A process: node id and process id. */
typedef struct {
	ptl_nid_t nid;		/**< node id: the board's NIC id */
	ptl_pid_t pid;		/**< process id: the endpoint id */
} ptl_process_id_t;

/* ---- match entries and memory descriptors ----------------------------- */

/** Whether an entry or descriptor is unlinked (PTL_UNLINK) or kept. */
typedef enum { PTL_RETAIN = 0, PTL_UNLINK = 1 } ptl_unlink_t;

/** Where a new match entry goes: before or after the one named (or the
 *  head or the tail of the list). */
typedef enum { PTL_INS_BEFORE = 0, PTL_INS_AFTER = 1 } ptl_ins_pos_t;

/**
 * A memory descriptor as the application sees it.  max_offset (3.2) and
 * max_size (3.3) share their storage; each takes effect only with its
 * option (PTL_MD_MAX_OFFSET, PTL_MD_MAX_SIZE).  eventq (3.2) and
 * eq_handle (3.3) are one member.
 */
typedef struct {
	void *start;		/**< the region (PTL_MD_IOVEC: an array of
				 *   ptl_md_iovec_t); NULL if length is 0 */
	ptl_size_t length;	/**< bytes (PTL_MD_IOVEC: segments) */
	int threshold;		/**< operations left; PTL_MD_THRESH_INF */
	PTL_UNION_ {
		unsigned int max_offset;	/**< 3.2, with PTL_MD_MAX_OFFSET */
		ptl_size_t max_size;		/**< 3.3, with PTL_MD_MAX_SIZE */
	};
	unsigned int options;	/**< PTL_MD_* */
	void *user_ptr;		/**< given back in every event */
	PTL_UNION_ {
		ptl_handle_eq_t eventq;		/**< 3.2; PTL_EQ_NONE */
		ptl_handle_eq_t eq_handle;	/**< 3.3 */
	};
} ptl_md_t;

/** Portals 3.3: one segment of a PTL_MD_IOVEC descriptor. */
typedef struct {
	void *iov_base;
	ptl_size_t iov_len;
} ptl_md_iovec_t;

/** No bound on the operations a descriptor takes. */
#define PTL_MD_THRESH_INF (-1)

/** The descriptor takes puts. */
#define PTL_MD_OP_PUT 0x0001u
/** The descriptor takes gets. */
#define PTL_MD_OP_GET 0x0002u
/** The offset comes with each request (else the descriptor keeps its
 *  own, which each operation advances). */
#define PTL_MD_MANAGE_REMOTE 0x0004u
/** A request longer than the room left is cut to it (else refused). */
#define PTL_MD_TRUNCATE 0x0008u
/** No acknowledgement for puts into it, even when asked. */
#define PTL_MD_ACK_DISABLE 0x0010u
/** Portals 3.3: start is an array of length ptl_md_iovec_t. */
#define PTL_MD_IOVEC 0x0020u
/** Portals 3.3: the descriptor becomes inactive when less than max_size
 *  bytes are left after its local offset. */
#define PTL_MD_MAX_SIZE 0x0040u
/** Portals 3.3: no START event is logged for it. */
#define PTL_MD_EVENT_START_DISABLE 0x0080u
/** Portals 3.3: no END event is logged for it (FAIL events still are). */
#define PTL_MD_EVENT_END_DISABLE 0x0100u
/** mx-dpdk: the 3.2 text's max_offset rule, which the text gives no
 *  option: the descriptor becomes inactive when its local offset
 *  exceeds max_offset. */
#define PTL_MD_MAX_OFFSET 0x0200u

/* ---- events ----------------------------------------------------------- */

/** Kinds of events, in the 3.2 text's order. */
typedef enum {
	PTL_EVENT_GET_START,	/**< target: a get began reading the region */
	PTL_EVENT_GET_END,	/**< target: its reply has left */
	PTL_EVENT_GET_FAIL,	/**< target: its reply failed */
	PTL_EVENT_PUT_START,	/**< target: a put began writing the region */
	PTL_EVENT_PUT_END,	/**< target: its data is in place */
	PTL_EVENT_PUT_FAIL,	/**< target: the put failed (the region may
				 *   hold part of its data) */
	PTL_EVENT_REPLY_START,	/**< initiator: a get's reply began */
	PTL_EVENT_REPLY_END,	/**< initiator: its data is in place */
	PTL_EVENT_REPLY_FAIL,	/**< initiator: the get failed */
	PTL_EVENT_SEND_START,	/**< initiator: a put began sending */
	PTL_EVENT_SEND_END,	/**< initiator: its buffer may be reused */
	PTL_EVENT_SEND_FAIL,	/**< initiator: the put failed */
	PTL_EVENT_ACK,		/**< initiator: the target acknowledged a put */
	PTL_EVENT_UNLINK,	/**< the descriptor was unlinked by itself */
	/** The 3.2 text's table of constants also names ACK_START,
	 *  ACK_END and ACK_FAIL; an acknowledgement is one event,
	 *  PTL_EVENT_ACK, which PTL_EVENT_ACK_END names too.  The other
	 *  two are never logged. */
	PTL_EVENT_ACK_START,
	PTL_EVENT_ACK_FAIL,
	/** Portals 3.3 (PtlGetPut()): never logged. */
	PTL_EVENT_GETPUT_START,
	PTL_EVENT_GETPUT_END
} ptl_event_kind_t;

#define PTL_EVENT_ACK_END PTL_EVENT_ACK

/** Why an operation failed (ptl_event_t.ni_fail_type). */
typedef uint32_t ptl_ni_fail_t;
/** The operation succeeded. */
#define PTL_NI_OK 0
/** The transfer failed. */
#define PTL_NI_FAIL 1
/** mx-dpdk: the peer stopped answering (the engine's loss timeout). */
#define PTL_NI_UNREACHABLE 2
/** mx-dpdk: the target process has no interface open (or closed it). */
#define PTL_NI_CLOSED 3
/** mx-dpdk: the target dropped the get (portal index, access control,
 *  no match): no reply will come. */
#define PTL_NI_DROPPED 4

/**
 * An event.  portal (3.2) and pt_index (3.3), mem_desc (3.2) and md
 * (3.3) are one member each.
 */
typedef struct {
	ptl_event_kind_t type;		/**< PTL_EVENT_* */
	/** The other process: at a target, the initiator of the operation;
	 *  at an initiator (ACK, REPLY_*), the target that answered. */
	ptl_process_id_t initiator;
	ptl_uid_t uid;			/**< that process's user id */
	ptl_jid_t jid;			/**< 3.3: its job id (PTL_JID_NONE) */
	PTL_UNION_ {
		ptl_pt_index_t portal;	/**< portal index of the request */
		ptl_pt_index_t pt_index;	/**< 3.3 */
	};
	ptl_match_bits_t match_bits;	/**< match bits of the request */
	ptl_size_t rlength;		/**< length requested */
	ptl_size_t mlength;		/**< length moved (truncated: less) */
	ptl_size_t offset;		/**< where in the region it was moved */
	ptl_handle_md_t md_handle;	/**< the descriptor */
	PTL_UNION_ {
		ptl_md_t mem_desc;	/**< its state after the event */
		ptl_md_t md;		/**< 3.3 */
	};
	ptl_hdr_data_t hdr_data;	/**< the put's out-of-band data */
	/** The same for the START and the END or FAIL of one operation,
	 *  and for an UNLINK and the event that caused it; an ACK has its
	 *  put's. */
	ptl_seq_t link;
	ptl_ni_fail_t ni_fail_type;	/**< PTL_NI_OK, or why it failed */
	/** Increases by one with each event logged in the queue; written
	 *  last. */
	volatile ptl_seq_t sequence;
} ptl_event_t;

/** Portals 3.3: a function called with each event logged in a queue. */
typedef void (*ptl_eq_handler_t)(ptl_event_t *event);
/** Portals 3.3: no handler. */
#define PTL_EQ_HANDLER_NONE ((ptl_eq_handler_t)0)

/** Whether a put asks for an acknowledgement. */
typedef enum { PTL_ACK_REQ = 0, PTL_NOACK_REQ = 1 } ptl_ack_req_t;
/** Portals 3.3's name. */
#define PTL_NO_ACK_REQ PTL_NOACK_REQ

/* ---- initialization --------------------------------------------------- */

/**
 * Initializes the library; may be called any number of times.
 * @param max_interfaces set to the number of interfaces (boards).
 * @return PTL_OK, PTL_FAIL (no network to run on), PTL_SEGV.
 */
int PtlInit(int *max_interfaces);

/**
 * Closes every interface still open (as PtlNIFini()) and ends the
 * library's use; later calls return PTL_NOINIT until PtlInit().
 */
void PtlFini(void);

/**
 * Opens a network interface for this process with process id pid
 * (PTL_PID_ANY: the first free one).  A second call for the same
 * interface returns PTL_INIT_DUP with *handle and *actual set to the
 * open interface's (its pid and the desired limits ignored), as the
 * implementations of 3.2 and 3.3 did: programs accept PTL_OK and
 * PTL_INIT_DUP (3.3: PTL_IFACE_DUP).  desired may be NULL; actual too.
 * @return PTL_OK, PTL_INIT_DUP, PTL_NOINIT, PTL_INIT_INV, PTL_NOSPACE,
 * PTL_INV_PROC (pid out of range, or taken on the board), PTL_SEGV.
 */
int PtlNIInit(ptl_interface_t interface, ptl_pid_t pid,
		ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
		ptl_handle_ni_t *handle);

/**
 * Closes an interface: wakes the threads waiting on its event queues
 * (they return PTL_INV_EQ), waits until they have left, ends every
 * operation in flight without an event, and releases every object.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI.
 */
int PtlNIFini(ptl_handle_ni_t interface);

/**
 * Reads a status register (PTL_SR_*).
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_INV_SR_INDX, PTL_SEGV.
 */
int PtlNIStatus(ptl_handle_ni_t interface, ptl_sr_index_t status_register,
		ptl_sr_value_t *status);

/**
 * Distance to a process: 0 to this process, 1 to another process of the
 * same board, 2 to a process of another board.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_INV_PROC, PTL_SEGV.
 */
int PtlNIDist(ptl_handle_ni_t interface, ptl_process_id_t process,
		unsigned long *distance);

/**
 * The interface an object belongs to (an interface handle: itself).
 * @return PTL_OK, PTL_NOINIT, PTL_INV_HANDLE, PTL_SEGV.
 */
int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *interface);

/**
 * This process's user id on the interface.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_SEGV.
 */
int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid);

/**
 * This process's id on the interface (the board's NIC id, the pid).
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_SEGV.
 */
int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_id_t *id);

/**
 * Portals 3.3: this process's job id (PTL_JID_NONE).
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_SEGV.
 */
int PtlGetJid(ptl_handle_ni_t ni_handle, ptl_jid_t *jid);

/* ---- match entries ---------------------------------------------------- */

/**
 * Creates a match entry on portal index 'index', at the head
 * (PTL_INS_BEFORE) or the tail (PTL_INS_AFTER) of its list.  It matches
 * a request from matchid (nid and pid each may be a wildcard) whose
 * match bits satisfy ((bits ^ match_bits) & ~ignorebits) == 0.  With
 * PTL_UNLINK it is unlinked when its descriptor is.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_INV_PTINDEX, PTL_NOSPACE,
 * PTL_ML_TOOLONG, PTL_SEGV.
 */
int PtlMEAttach(ptl_handle_ni_t interface, ptl_pt_index_t index,
		ptl_process_id_t matchid, ptl_match_bits_t match_bits,
		ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
		ptl_ins_pos_t position, ptl_handle_me_t *handle);

/**
 * PtlMEAttach() on the first portal index whose match list is empty;
 * *index is set to it.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_NOSPACE, PTL_PT_FULL,
 * PTL_SEGV.
 */
int PtlMEAttachAny(ptl_handle_ni_t interface, ptl_pt_index_t *index,
		ptl_process_id_t matchid, ptl_match_bits_t match_bits,
		ptl_match_bits_t ignorebits, ptl_unlink_t unlink,
		ptl_handle_me_t *handle);

/**
 * Creates a match entry right before or after 'current', in its list.
 * The 3.2 prototype has no unlink argument though its argument table
 * lists one: this form keeps the entry (PTL_RETAIN) until PtlMEUnlink();
 * the 3.3 form, PtlMEInsert33(), takes it before the position.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_ME, PTL_NOSPACE, PTL_ML_TOOLONG,
 * PTL_SEGV.
 */
int PtlMEInsert(ptl_handle_me_t current, ptl_process_id_t matchid,
		ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits,
		ptl_ins_pos_t position, ptl_handle_me_t *handle);

/** Portals 3.3's PtlMEInsert(), with the entry's unlink rule. */
int PtlMEInsert33(ptl_handle_me_t current, ptl_process_id_t matchid,
		ptl_match_bits_t match_bits, ptl_match_bits_t ignorebits,
		ptl_unlink_t unlink, ptl_ins_pos_t position,
		ptl_handle_me_t *handle);

/**
 * Unlinks a match entry and releases it and its descriptor (no UNLINK
 * event).
 * @return PTL_OK, PTL_NOINIT, PTL_INV_ME, PTL_INUSE (3.3: PTL_ME_IN_USE:
 * its descriptor has operations pending).
 */
int PtlMEUnlink(ptl_handle_me_t entry);

/* ---- memory descriptors ----------------------------------------------- */

/**
 * Creates a descriptor and attaches it to a match entry.  With
 * unlink_op PTL_UNLINK it is unlinked (UNLINK event) after an operation
 * leaves it inactive (threshold 0, or past its max_offset / max_size)
 * once nothing is pending on it; never when it is made inactive by
 * itself (threshold 0 at attach, or by PtlMDUpdate()).  With
 * unlink_nofit PTL_UNLINK it is unlinked when a request it would take
 * does not fit and it does not truncate.  handle may be NULL.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_ME, PTL_INUSE, PTL_ILL_MD,
 * PTL_INV_EQ, PTL_NOSPACE.
 */
int PtlMDAttach(ptl_handle_me_t match, ptl_md_t mem_desc,
		ptl_unlink_t unlink_op, ptl_unlink_t unlink_nofit,
		ptl_handle_md_t *handle);

/** Portals 3.3's PtlMDAttach(): no unlink_nofit (PTL_RETAIN). */
int PtlMDAttach33(ptl_handle_me_t match, ptl_md_t mem_desc,
		ptl_unlink_t unlink_op, ptl_handle_md_t *handle);

/**
 * Creates a free-floating descriptor (for PtlPut() and PtlGet()); it is
 * never unlinked but by PtlMDUnlink().
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_ILL_MD, PTL_INV_EQ,
 * PTL_NOSPACE, PTL_SEGV.
 */
int PtlMDBind(ptl_handle_ni_t interface, ptl_md_t mem_desc,
		ptl_handle_md_t *handle);

/** Portals 3.3's PtlMDBind(): with PTL_UNLINK the descriptor is
 *  unlinked (UNLINK event) once its threshold is spent and its last
 *  operation has ended. */
int PtlMDBind33(ptl_handle_ni_t interface, ptl_md_t mem_desc,
		ptl_unlink_t unlink_op, ptl_handle_md_t *handle);

/**
 * Unlinks a descriptor from its match entry (which goes too if it was
 * attached with PTL_UNLINK) and releases it; no UNLINK event.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_MD, PTL_MD_INUSE (an operation is
 * pending on it: a put or get it started, one being moved into or out
 * of it).
 */
int PtlMDUnlink(ptl_handle_md_t mem_desc);

/**
 * Reads (old_md) and, if testq is PTL_EQ_NONE or empty, replaces
 * (new_md) a descriptor, atomically with respect to incoming
 * operations.  A change of the memory (start, length, PTL_MD_IOVEC) of
 * a descriptor with operations pending is refused with PTL_MD_INUSE;
 * the local offset starts again at 0 when the memory changes.
 * @return PTL_OK, PTL_NOINIT, PTL_NOUPDATE, PTL_INV_MD, PTL_ILL_MD,
 * PTL_INV_EQ, PTL_MD_INUSE.
 */
int PtlMDUpdate(ptl_handle_md_t mem_desc, ptl_md_t *old_md, ptl_md_t *new_md,
		ptl_handle_eq_t testq);

/* ---- event queues ----------------------------------------------------- */

/**
 * Creates an event queue of 'count' events.  When full, a new event
 * takes the place of the oldest one; the next PtlEQGet() or PtlEQWait()
 * says so with PTL_EQ_DROPPED (and PTL_SR_EQ_DROPPED counts them).
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_NOSPACE (count 0 too),
 * PTL_SEGV.
 */
int PtlEQAlloc(ptl_handle_ni_t interface, ptl_size_t count,
		ptl_handle_eq_t *handle);

/**
 * Portals 3.3's PtlEQAlloc(): handler (if not PTL_EQ_HANDLER_NONE) is
 * called with each event logged in the queue (which stays in it), by
 * the thread of a Portals call, when the call ends or while it waits in
 * PtlEQWait() or PtlEQPoll(); never by the library's own thread.
 */
int PtlEQAlloc33(ptl_handle_ni_t interface, ptl_size_t count,
		ptl_eq_handler_t handler, ptl_handle_eq_t *handle);

/**
 * Releases an event queue; threads waiting on it return PTL_INV_EQ.
 * Descriptors still naming it log nothing more.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_EQ.
 */
int PtlEQFree(ptl_handle_eq_t eventq);

/**
 * Takes the oldest event of the queue, without waiting.
 * @return PTL_OK, PTL_EQ_DROPPED, PTL_EQ_EMPTY (also while another
 * thread waits on the queue in PtlEQWait()), PTL_NOINIT, PTL_INV_EQ,
 * PTL_SEGV.
 */
int PtlEQGet(ptl_handle_eq_t eventq, ptl_event_t *event);

/**
 * Waits until the queue has an event and takes it.  Each event wakes
 * one waiting thread.  PtlEQFree() or PtlNIFini() of the queue by
 * another thread ends the wait with PTL_INV_EQ.
 * @return PTL_OK, PTL_EQ_DROPPED, PTL_NOINIT, PTL_INV_EQ, PTL_SEGV.
 */
int PtlEQWait(ptl_handle_eq_t eventq, ptl_event_t *event);

/**
 * Portals 3.3: waits up to 'timeout' ms (PTL_TIME_FOREVER: no limit;
 * 0: does not wait) for an event in any of 'size' queues and takes it;
 * *which is its queue's index in eventqs.
 * @return PTL_OK, PTL_EQ_DROPPED, PTL_EQ_EMPTY (timed out), PTL_NOINIT,
 * PTL_INV_EQ (a handle is not a queue, or size < 1), PTL_SEGV.
 */
int PtlEQPoll(ptl_handle_eq_t *eventqs, int size, ptl_time_t timeout,
		ptl_event_t *event, int *which);

/* ---- access control ---------------------------------------------------- */

/**
 * Sets entry 'index' of the access control table: a request whose
 * cookie is 'index' is taken only from matchid (wildcards allowed), user
 * user_id (PTL_UID_ANY) and for portal index 'portal'
 * (PTL_PT_INDEX_ANY).  Entry 0 of every interface starts as "any
 * process of this user, any portal"; the others admit nothing until set.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_NI, PTL_AC_INV_INDEX,
 * PTL_PT_INV_INDEX.
 */
int PtlACEntry(ptl_handle_ni_t interface, ptl_ac_index_t index,
		ptl_process_id_t matchid, ptl_uid_t user_id,
		ptl_pt_index_t portal);

/** Portals 3.3's PtlACEntry(), with a job id (PTL_JID_ANY). */
int PtlACEntry33(ptl_handle_ni_t interface, ptl_ac_index_t index,
		ptl_process_id_t matchid, ptl_uid_t user_id, ptl_jid_t job_id,
		ptl_pt_index_t portal);

/* ---- data movement ---------------------------------------------------- */

/**
 * Starts a put of the whole descriptor to 'target'.  Returns at once.
 * Its events (in the descriptor's queue): SEND_START, then SEND_END (the
 * buffer may be reused) or SEND_FAIL, then, if PTL_ACK_REQ, the
 * descriptor has an event queue and the target's descriptor allows it,
 * ACK.  The put takes one of the descriptor's operations (threshold),
 * the acknowledgement another: a descriptor that wants both has a
 * threshold of 2.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_MD (also: inactive), PTL_INV_PROC.
 */
int PtlPut(ptl_handle_md_t mem_desc, ptl_ack_req_t ack_req,
		ptl_process_id_t target, ptl_pt_index_t portal,
		ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
		ptl_size_t offset, ptl_hdr_data_t hdr_data);

/**
 * Portals 3.3: PtlPut() of 'length' bytes from 'local_offset' of the
 * descriptor.
 * @return as PtlPut(), and PTL_ILL_MD if the bytes are not all in it.
 */
int PtlPutRegion(ptl_handle_md_t mem_desc, ptl_size_t local_offset,
		ptl_size_t length, ptl_ack_req_t ack_req,
		ptl_process_id_t target, ptl_pt_index_t portal,
		ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
		ptl_size_t offset, ptl_hdr_data_t hdr_data);

/**
 * Starts a get of as many bytes as the descriptor holds from 'target'
 * into it.  Returns at once.  Its events: REPLY_START and REPLY_END
 * when the reply comes, or REPLY_FAIL alone if none will (the target
 * dropped it, PTL_NI_DROPPED; the target or the way to it is gone).
 * The get takes one of the descriptor's operations.
 * @return PTL_OK, PTL_NOINIT, PTL_INV_MD (also: inactive), PTL_INV_PROC.
 */
int PtlGet(ptl_handle_md_t mem_desc, ptl_process_id_t target,
		ptl_pt_index_t portal, ptl_ac_index_t cookie,
		ptl_match_bits_t match_bits, ptl_size_t offset);

/**
 * Portals 3.3: PtlGet() of 'length' bytes into 'local_offset' of the
 * descriptor.
 * @return as PtlGet(), and PTL_ILL_MD if the bytes are not all in it.
 */
int PtlGetRegion(ptl_handle_md_t mem_desc, ptl_size_t local_offset,
		ptl_size_t length, ptl_process_id_t target,
		ptl_pt_index_t portal, ptl_ac_index_t cookie,
		ptl_match_bits_t match_bits, ptl_size_t offset);

/**
 * Portals 3.3's atomic swap: not supported.
 * @return PTL_FAIL (PTL_NOINIT before PtlInit()).
 */
int PtlGetPut(ptl_handle_md_t get_md, ptl_handle_md_t put_md,
		ptl_process_id_t target, ptl_pt_index_t portal,
		ptl_ac_index_t cookie, ptl_match_bits_t match_bits,
		ptl_size_t offset, ptl_hdr_data_t hdr_data);

/* ---- Portals 3.3's helpers --------------------------------------------- */

/**
 * Whether two handles name the same object.  Needs no PtlInit().
 * @return PTL_OK if they do, PTL_FAIL if not.
 */
int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2);

/** The name of a return code ("PTL_OK" ...); never NULL. */
const char *PtlErrorStr(unsigned int ptl_errno);

/** The name of an event kind ("PTL_EVENT_PUT_END" ...); never NULL. */
const char *PtlEventKindStr(ptl_event_kind_t kind);

/** What an event's ni_fail_type means; never NULL. */
const char *PtlNIFailStr(ptl_handle_ni_t ni_handle, ptl_ni_fail_t fail);

/*
 * The five calls whose argument lists Portals 3.3 changed, by their
 * number of arguments: PtlMDBind(ni, md, &h) is 3.2's, PtlMDBind(ni, md,
 * unlink_op, &h) 3.3's, and so on.  A name not followed by '(' is the
 * 3.2 function itself (its address, or (PtlMDBind)(...)).  An argument
 * with a comma outside parentheses (a compound literal) goes in
 * parentheses.  Variadic macros need C99 or C++11: before them, the
 * names are the 3.2 functions only.
 */
#if !defined(PTL_NO_ARITY_MACROS) && \
	((defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || \
	(defined(__cplusplus) && __cplusplus >= 201103L))
#define PTL_NARG_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, n, ...) n
#define PTL_NARG(...) PTL_NARG_(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define PTL_CAT_(a, b) a##b
#define PTL_CAT(a, b) PTL_CAT_(a, b)
#define PTL_ARITY_MDBIND_3 PtlMDBind
#define PTL_ARITY_MDBIND_4 PtlMDBind33
#define PTL_ARITY_MDATTACH_5 PtlMDAttach
#define PTL_ARITY_MDATTACH_4 PtlMDAttach33
#define PTL_ARITY_EQALLOC_3 PtlEQAlloc
#define PTL_ARITY_EQALLOC_4 PtlEQAlloc33
#define PTL_ARITY_ACENTRY_5 PtlACEntry
#define PTL_ARITY_ACENTRY_6 PtlACEntry33
#define PTL_ARITY_MEINSERT_6 PtlMEInsert
#define PTL_ARITY_MEINSERT_7 PtlMEInsert33
#define PtlMDBind(...) \
	PTL_CAT(PTL_ARITY_MDBIND_, PTL_NARG(__VA_ARGS__))(__VA_ARGS__)
#define PtlMDAttach(...) \
	PTL_CAT(PTL_ARITY_MDATTACH_, PTL_NARG(__VA_ARGS__))(__VA_ARGS__)
#define PtlEQAlloc(...) \
	PTL_CAT(PTL_ARITY_EQALLOC_, PTL_NARG(__VA_ARGS__))(__VA_ARGS__)
#define PtlACEntry(...) \
	PTL_CAT(PTL_ARITY_ACENTRY_, PTL_NARG(__VA_ARGS__))(__VA_ARGS__)
#define PtlMEInsert(...) \
	PTL_CAT(PTL_ARITY_MEINSERT_, PTL_NARG(__VA_ARGS__))(__VA_ARGS__)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PORTALS3_H */
