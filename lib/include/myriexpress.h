/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file myriexpress.h
 * Myrinet Express (MX) API, implemented by mx-dpdk over Ethernet with DPDK.
 *
 * Source-compatible with the MX 1.0 specification and with the header of
 * MX 1.2: every function, type and constant that MX 1.2 declared here is
 * declared here too, with MX's signature (the rest of MX 1.2, connection
 * management and unexpected handlers, is in mx_extensions.h, where MX 1.2
 * put it).  Calls that mx-dpdk cannot carry out (mx_iput(), mx_iget())
 * are declared and return MX_FAILURE; mx-dpdk(7) lists them.  A program
 * includes this header, links libmyriexpress.a
 * (`pkg-config --cflags --libs --static myriexpress`) and runs over any
 * port DPDK drives.  The library takes no command-line arguments: its
 * settings are MX_* environment variables, documented in mx-dpdk(7) and
 * printed by mx_info.
 *
 * Every function returns MX_SUCCESS or an error code; an error is first
 * passed to the current error handler (see mx_set_error_handler()), which by
 * default prints it and exits.  Output parameters are written only on
 * success.
 *
 * Threads: the library is thread-safe as section IX.2 of the MX
 * specification describes (several threads may block in mx_peek() on one
 * endpoint; each completion wakes one of them; mx_wakeup() releases them),
 * and says so with MX_THREAD_SAFE.  While only one thread has ever called
 * it, it takes no lock at all.
 */
#ifndef MYRIEXPRESS_H
#define MYRIEXPRESS_H

/* MX programs print and parse NIC ids with PRIx64/SCNx64 from here. */
#include <inttypes.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** API version, as MX 1.2 defined it (checked by some programs). */
#define MX_API 0x301

/**
 * Defined to 1: every call may be made from any number of threads, on one
 * endpoint or several.  MX programs test it to turn their threaded modes on.
 */
#define MX_THREAD_SAFE 1

/** Largest number of endpoints per board; ids are 0..MX_MAX_ENDPOINTS-1. */
#define MX_MAX_ENDPOINTS 32
/** Largest board name, including the terminating NUL. */
#define MX_MAX_HOSTNAME_LEN 80
/** Length of strings returned by mx_get_info(). */
#define MX_MAX_STR_LEN 128

/** Open an endpoint on whichever board MX chooses. */
#define MX_ANY_NIC 0xffffffffu
/** Let MX choose the endpoint id. */
#define MX_ANY_ENDPOINT 0xffffffffu
/** Wait without time limit (mx_wait(), mx_peek(), mx_probe()). */
#define MX_INFINITE 0
/** Mask that compares every bit of the match information. */
#define MX_MATCH_MASK_NONE (~(uint64_t)0)
/**
 * Largest number of segments in one request's gather/scatter list, as
 * MX 1.2 defines it (mx_segment_t s[MX_MAX_SEGMENTS]).  The MX 1.0 text
 * made it an mx_get_info() key; both the constant and that key (17) are
 * accepted there and answer MX_MAX_SEGMENTS.
 */
#define MX_MAX_SEGMENTS 256
/** Size in bytes of an mx_endpoint_addr_t. */
#define MX_SIZEOF_ADDR 16
/** Most match bits MX_PARAM_CONTEXT_ID may reserve for a context id. */
#define MX_CONTEXT_ID_BITS_MAX 16

/** High and low 32 bits of a value (0 high bits for a 32-bit one), to
 *  print a 64-bit id as two "%08x" halves. */
#define MX_U32(x) ((uint32_t)((uint64_t)(x) >> 32))
#define MX_L32(x) ((uint32_t)(x))

/** Return codes of MX functions. */
typedef enum mx_return_code {
	MX_SUCCESS = 0,
	MX_BAD_BAD_BAD = 1,
	MX_FAILURE = 2,
	MX_ALREADY_INITIALIZED = 3,
	MX_NOT_INITIALIZED = 4,
	MX_NO_DEV = 5,
	MX_NO_DRIVER = 6,
	MX_NO_PERM = 7,
	MX_BOARD_UNKNOWN = 8,
	MX_BAD_ENDPOINT = 9,
	MX_BAD_SEG_LIST = 10,
	MX_BAD_SEG_MEM = 11,
	MX_BAD_SEG_CNT = 12,
	MX_BAD_REQUEST = 13,
	MX_BAD_MATCH_MASK = 14,
	MX_NO_RESOURCES = 15,
	MX_BAD_ADDR_LIST = 16,
	MX_BAD_ADDR_COUNT = 17,
	MX_BAD_ROOT = 18,
	MX_NOT_COMPLETED = 19,
	MX_BUSY = 20,
	MX_BAD_INFO_KEY = 21,
	MX_BAD_INFO_VAL = 22,
	MX_BAD_NIC = 23,
	MX_BAD_PARAM_LIST = 24,
	MX_BAD_PARAM_NAME = 25,
	MX_BAD_PARAM_VAL = 26,
	MX_BAD_HOSTNAME_ARGS = 27,
	MX_HOST_NOT_FOUND = 28,
	MX_REQUEST_PENDING = 29,
	MX_TIMEOUT = 30,
	MX_NO_MATCH = 31,
	MX_BAD_ENDPOINT_ID = 32,
	MX_CONNECTION_FAILED = 33,
	MX_BAD_CONNECTION_KEY = 34,
	MX_BAD_INFO_LENGTH = 35,
	MX_NIC_NOT_FOUND = 36,
	MX_BAD_KERNEL_VERSION = 37,
	MX_BAD_LIB_VERSION = 38,
	MX_NIC_DEAD = 39,
	MX_CANCEL_NOT_SUPPORTED = 40,
	MX_CLOSE_IN_HANDLER = 41,
	MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK = 42,
	MX_NOT_SUPPORTED_WITH_CONTEXT_ID = 43
} mx_return_t;

/** Outcome of a completed request (mx_status_t.code). */
typedef enum mx_status_code {
	MX_STATUS_SUCCESS = 0,
	MX_STATUS_PENDING = 1,
	MX_STATUS_BUFFERED = 2,
	MX_STATUS_REJECTED = 3,
	MX_STATUS_TIMEOUT = 4,
	MX_STATUS_TRUNCATED = 5,
	MX_STATUS_CANCELLED = 6,
	MX_STATUS_ENDPOINT_UNKNOWN = 7,
	MX_STATUS_ENDPOINT_CLOSED = 8,
	MX_STATUS_ENDPOINT_UNREACHABLE = 9,
	MX_STATUS_BAD_SESSION = 10,
	MX_STATUS_BAD_KEY = 11,
	MX_STATUS_BAD_ENDPOINT = 12,
	MX_STATUS_BAD_RDMAWIN = 13,
	MX_STATUS_ABORTED = 14,
	MX_STATUS_EVENTQ_FULL = 15,
	MX_STATUS_NO_RESOURCES = 16
} mx_status_code_t;

/** An open endpoint; NULL is never a valid endpoint. */
typedef struct mx_endpoint *mx_endpoint_t;
/** A pending operation; NULL is never a valid request. */
typedef struct mx_request *mx_request_t;

/** Address of a remote endpoint, as built by mx_connect(). Opaque. */
typedef struct {
	uint64_t stuff[MX_SIZEOF_ADDR / sizeof(uint64_t)];
} mx_endpoint_addr_t;

/** Start of a segment. */
typedef void *mx_segment_ptr_t;

/** One contiguous piece of a gather/scatter list. */
typedef struct {
	mx_segment_ptr_t segment_ptr;
	uint32_t segment_length;
} mx_segment_t;

/** Filled in when a request completes, or by mx_iprobe(). */
typedef struct mx_status {
	mx_status_code_t code;		/**< outcome */
	mx_endpoint_addr_t source;	/**< sender (receives, probes) */
	uint64_t match_info;		/**< match information of the message */
	uint32_t msg_length;		/**< length the sender sent */
	uint32_t xfer_length;		/**< bytes actually transferred */
	void *context;			/**< the request's context pointer */
} mx_status_t;

/** Error handler: called with a description and the code. */
typedef mx_return_t (*mx_error_handler_t)(char *str, mx_return_t ret);

/** Handler that prints the error and exits (the default). */
extern mx_error_handler_t MX_ERRORS_ARE_FATAL;
/** Handler that does nothing: errors are returned to the caller. */
extern mx_error_handler_t MX_ERRORS_RETURN;

/** Keys of mx_get_info(). */
typedef enum mx_get_info_key {
	MX_NIC_COUNT = 1,		/**< out: uint32_t */
	MX_NIC_IDS = 2,			/**< out: uint64_t[count + 1], 0-ended */
	MX_MAX_NATIVE_ENDPOINTS = 3,	/**< out: uint32_t */
	MX_NATIVE_REQUESTS = 4,		/**< out: uint32_t */
	MX_COUNTERS_COUNT = 5,		/**< in: board; out: uint32_t */
	MX_COUNTERS_LABELS = 6,		/**< in: board; out: char[][MX_MAX_STR_LEN] */
	MX_COUNTERS_VALUES = 7,		/**< in: board; out: uint32_t[] */
	MX_PRODUCT_CODE = 8,		/**< in: board; out: char[MX_MAX_STR_LEN] */
	MX_PART_NUMBER = 9,		/**< in: board; out: char[MX_MAX_STR_LEN] */
	MX_SERIAL_NUMBER = 10,		/**< in: board; out: uint32_t */
	MX_PORT_COUNT = 11,		/**< in: board; out: uint32_t */
	MX_PIO_SEND_MAX = 12,		/**< out: uint32_t, one-frame message */
	MX_COPY_SEND_MAX = 13,		/**< out: uint32_t, eager limit */
	MX_NUMA_NODE = 14,		/**< in: board; out: uint32_t */
	MX_NET_TYPE = 15,		/**< in: board; out: uint32_t */
	MX_LINE_SPEED = 16,		/**< in: board; out: uint32_t (Mb/s) */
	/** mx-dpdk: the MX 1.0 text's key for the segment limit; out:
	 *  uint32_t, MX_MAX_SEGMENTS.  The constant MX_MAX_SEGMENTS itself
	 *  is accepted as a key too (this enumerator keeps it in range for
	 *  C++ casts). */
	MX_MAX_SEGMENTS_KEY_1_0 = 17,
	MX_MAX_SEGMENTS_KEY = MX_MAX_SEGMENTS
} mx_get_info_key_t;

/** Defined when mx_get_info() has the key MX_NET_TYPE. */
#define MX_HAS_NET_TYPE 1

/** Values of MX_NET_TYPE: every board of mx-dpdk is MX_NET_ETHER. */
typedef enum mx_net_type {
	MX_NET_MYRI = 0,
	MX_NET_ETHER = 1
} mx_net_type_t;

/**
 * Myrinet line speeds of MX 1.2.  mx-dpdk's MX_LINE_SPEED answers the
 * sum of a board's link speeds in Mb/s instead (Ethernet has many).
 */
typedef enum mx_line_speed {
	MX_SPEED_2G = 0,
	MX_SPEED_10G = 1
} mx_line_speed_t;

/**
 * Keys of mx_open_endpoint() parameters.  MX_PARAM_CONTEXT_ID declares
 * that match bits [shift, shift + bits) carry a context id (bits 1..16):
 * every receive and probe must then compare all of them, or fails with
 * MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK.
 */
typedef enum mx_param_key {
	MX_PARAM_ERROR_HANDLER = 0,
	MX_PARAM_UNEXP_QUEUE_MAX = 1,
	MX_PARAM_CONTEXT_ID = 2
} mx_param_key_t;

/** One endpoint parameter. */
typedef struct {
	mx_param_key_t key;
	union {
		mx_error_handler_t error_handler;
		uint32_t unexp_queue_max;
		struct {
			uint8_t bits;
			uint8_t shift;
		} context_id;
	} val;
} mx_param_t;

/**
 * Initialises the library: the DPDK EAL (from MX_DPDK_ARGS, or the one the
 * application already initialised) and every DPDK port, grouped into boards.
 * A function here (MX 1.2 made it a macro calling mx__init_api(MX_API)).
 * @return MX_SUCCESS; MX_ALREADY_INITIALIZED if called twice; MX_NO_DEV if
 * DPDK cannot start or finds no port; MX_NO_DRIVER if a device named in
 * MX_DPDK_ARGS has no driver; MX_NO_PERM if DPDK was refused access (e.g.
 * hugepages without the right); MX_NO_RESOURCES; MX_BAD_PARAM_VAL for a
 * malformed MX_* setting.
 */
mx_return_t mx_init(void);

/**
 * mx_init() for a program built against API version 'api' (MX 1.2's
 * mx_init() macro passes MX_API).
 * @return what mx_init() returns, or MX_BAD_LIB_VERSION if api's major
 * version (api >> 8) is not this header's.
 */
mx_return_t mx__init_api(int api);

/**
 * Closes every endpoint still open and releases the library's resources.
 * The EAL and ports stay up for a later mx_init() in the same process.
 * Threads blocked on an endpoint return as mx_close_endpoint() says.
 * @return MX_SUCCESS (MX_NOT_INITIALIZED if mx_init() was not called;
 * MX_CLOSE_IN_HANDLER from an unexpected handler, which runs inside the
 * library's progress).
 */
mx_return_t mx_finalize(void);

/**
 * Installs the error handler and returns the previous one.  May be called
 * before mx_init().  MX_ERRORS_ARE_FATAL restores the default.
 * @return the handler in force before the call.
 */
mx_error_handler_t mx_set_error_handler(mx_error_handler_t handler);

/** Describes a return code. @return a static string, never NULL. */
const char *mx_strerror(mx_return_t return_code);

/** Describes a status code. @return a static string, never NULL. */
const char *mx_strstatus(mx_status_code_t status);

/**
 * Returns information about the library (endpoint NULL) or an endpoint.
 * @return MX_SUCCESS, MX_BAD_INFO_KEY, MX_BAD_INFO_LENGTH, MX_BOARD_UNKNOWN.
 */
mx_return_t mx_get_info(mx_endpoint_t endpoint, mx_get_info_key_t key,
		void *in_val, uint32_t in_len, void *out_val, uint32_t out_len);

/**
 * Opens endpoint endpoint_id (or any free one with MX_ANY_ENDPOINT) on board
 * board_num (or the first board with MX_ANY_NIC).  Messages and connects
 * that do not carry 'filter' are refused.
 * @return MX_SUCCESS, MX_BOARD_UNKNOWN, MX_BAD_ENDPOINT_ID, MX_BUSY,
 * MX_BAD_PARAM_LIST, MX_BAD_PARAM_NAME, MX_BAD_PARAM_VAL, MX_NO_RESOURCES,
 * MX_NOT_INITIALIZED.
 */
mx_return_t mx_open_endpoint(uint32_t board_num, uint32_t endpoint_id,
		uint32_t filter, mx_param_t *params_list,
		uint32_t params_count, mx_endpoint_t *endpoint);

/**
 * Closes an endpoint; its pending requests are cancelled and released.
 * Calls of other threads blocked on it return MX_BAD_ENDPOINT at once,
 * with *result 0, without the error handler (the endpoint is freed once
 * they are out).
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_CLOSE_IN_HANDLER (from an
 * unexpected handler, or from an error handler while other threads are
 * blocked on the endpoint).
 */
mx_return_t mx_close_endpoint(mx_endpoint_t endpoint);

/**
 * Makes threads blocked in this endpoint's calls return.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT.
 */
mx_return_t mx_wakeup(mx_endpoint_t endpoint);

/**
 * Holds the endpoint's incoming messages: nothing is matched, queued as
 * unexpected or given to an unexpected handler (nor acknowledged, so
 * senders wait) until mx_reenable_progression().  Calls nest: as many
 * mx_reenable_progression() as mx_disable_progression() resume it.  The
 * library's progression thread (MX_PROGRESSION) leaves such an endpoint
 * alone, and runs no pass while every open endpoint is disabled.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_NO_RESOURCES (nested 255 deep).
 */
mx_return_t mx_disable_progression(mx_endpoint_t endpoint);

/**
 * Undoes one mx_disable_progression(); at the last one, the messages held
 * are matched, in order.  Without a pending mx_disable_progression() it
 * does nothing.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT.
 */
mx_return_t mx_reenable_progression(mx_endpoint_t endpoint);

/**
 * The MX 1.0/1.1 unexpected-message callback: told the match information
 * and length of each message that matches no posted receive, before it is
 * queued as unexpected.  It may post a receive (mx_irecv()) that the
 * message then matches.
 */
typedef void (*mx_matching_callback_t)(void *context, uint64_t match_value,
		int length);

/**
 * Installs (NULL: removes) the endpoint's unexpected-message callback.
 * It takes the place of an unexpected handler (mx_extensions.h), which
 * MX 1.2 preferred: the endpoint has one or the other.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT.
 */
mx_return_t mx_register_unexp_callback(mx_endpoint_t endpoint,
		mx_matching_callback_t callback, void *context);

/**
 * Finds the NIC id of a board name "<host>:<board>" (discovery on the
 * wire, or the peers file MX_PEERS_FILE).
 * @return MX_SUCCESS, MX_HOST_NOT_FOUND, MX_BAD_HOSTNAME_ARGS.
 */
mx_return_t mx_hostname_to_nic_id(char *hostname, uint64_t *nic_id);

/**
 * Finds the name of a NIC id; hostname must hold MX_MAX_HOSTNAME_LEN bytes.
 * @return MX_SUCCESS, MX_HOST_NOT_FOUND, MX_BAD_HOSTNAME_ARGS.
 */
mx_return_t mx_nic_id_to_hostname(uint64_t nic_id, char *hostname);

/** NIC id of local board number. @return MX_SUCCESS, MX_BOARD_UNKNOWN. */
mx_return_t mx_board_number_to_nic_id(uint32_t board_number,
		uint64_t *nic_id);

/** Local board number of a NIC id. @return MX_SUCCESS, MX_BOARD_UNKNOWN. */
mx_return_t mx_nic_id_to_board_number(uint64_t nic_id,
		uint32_t *board_number);

/**
 * Builds the address of a remote endpoint after checking that it is open
 * and accepts 'filter'.  timeout is in milliseconds, as in MX 1.2 (the
 * 1.0 text says seconds); MX_INFINITE waits until answered, and
 * mx_wakeup() ends the wait with MX_TIMEOUT.
 * @return MX_SUCCESS, MX_NIC_NOT_FOUND, MX_CONNECTION_FAILED (endpoint
 * closed), MX_BAD_CONNECTION_KEY, MX_TIMEOUT, MX_NO_RESOURCES, MX_BUSY
 * (from an unexpected handler: it cannot wait there), MX_BAD_ENDPOINT
 * (this endpoint closed by another thread meanwhile: not through the
 * error handler).
 */
mx_return_t mx_connect(mx_endpoint_t endpoint, uint64_t nic_id,
		uint32_t endpoint_id, uint32_t filter, uint32_t timeout,
		mx_endpoint_addr_t *endpoint_addr);

/**
 * Extracts the NIC id and endpoint id of an address.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT (NULL output).
 */
mx_return_t mx_decompose_endpoint_addr(mx_endpoint_addr_t endpoint_addr,
		uint64_t *nic_id, uint32_t *endpoint_id);

/**
 * Returns the address of the local endpoint itself.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT.
 */
mx_return_t mx_get_endpoint_addr(mx_endpoint_t endpoint,
		mx_endpoint_addr_t *endpoint_addr);

/**
 * Starts sending the gather list to 'destination' with 'match_send'.  MPI
 * standard mode: a message up to MX_COPY_SEND_MAX completes, with
 * MX_STATUS_SUCCESS, as soon as its data is copied into frames (the
 * library keeps them until acknowledged); a larger one once the receiver
 * has pulled it.  A pending send fails with MX_STATUS_ENDPOINT_CLOSED,
 * MX_STATUS_BAD_KEY (refused), MX_STATUS_ENDPOINT_UNREACHABLE, ...; a
 * message refused or lost after its send completed makes the next send
 * (or mx_iconnect) to that partner fail at once with the reason.  A NULL
 * list with count 0 sends an empty message.
 * @return MX_SUCCESS, MX_BAD_SEG_LIST, MX_BAD_SEG_CNT, MX_BAD_ENDPOINT,
 * MX_BAD_REQUEST, MX_NO_RESOURCES.
 */
mx_return_t mx_isend(mx_endpoint_t endpoint, mx_segment_t *segments_list,
		uint32_t segments_count, mx_endpoint_addr_t destination,
		uint64_t match_send, void *context, mx_request_t *request);

/**
 * Synchronous send: like mx_isend(), but completes only once the receiver
 * has matched the message with a receive.  mx_ibuffered() tells earlier
 * when the buffers may be reused.
 * @return as mx_isend().
 */
mx_return_t mx_issend(mx_endpoint_t endpoint, mx_segment_t *segments_list,
		uint32_t segments_count, mx_endpoint_addr_t destination,
		uint64_t match_send, void *context, mx_request_t *request);

/**
 * Posts a receive for the first message, in sender order, whose
 * (match_info & match_mask) == match_recv.  Longer messages are truncated
 * (MX_STATUS_TRUNCATED).
 * @return MX_SUCCESS, MX_BAD_SEG_LIST, MX_BAD_SEG_CNT, MX_BAD_MATCH_MASK,
 * MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK, MX_BAD_ENDPOINT, MX_BAD_REQUEST,
 * MX_NO_RESOURCES.
 */
mx_return_t mx_irecv(mx_endpoint_t endpoint, mx_segment_t *segments_list,
		uint32_t segments_count, uint64_t match_recv,
		uint64_t match_mask, void *context, mx_request_t *request);

/**
 * Sets *result to non-zero if the request's buffers may be reused: a send
 * whose data has been copied out (buffered) or any complete request.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST.
 */
mx_return_t mx_ibuffered(mx_endpoint_t endpoint, mx_request_t *request,
		uint32_t *result);

/**
 * Like mx_ibuffered(), but waits up to 'timeout' milliseconds (MX_INFINITE:
 * no limit, until mx_wakeup()) for the request to be buffered.  The
 * request stays pending: complete it with mx_test() or mx_wait().
 * @return MX_SUCCESS (*result 0 on timeout), MX_BAD_ENDPOINT,
 * MX_BAD_REQUEST, MX_BUSY (as mx_wait()).
 */
mx_return_t mx_buffered(mx_endpoint_t endpoint, mx_request_t *request,
		uint32_t timeout, uint32_t *result);

/**
 * Makes progress and, if *request is complete, fills *status, releases the
 * request and sets *result to 1; otherwise *result is 0.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST.
 */
mx_return_t mx_test(mx_endpoint_t endpoint, mx_request_t *request,
		mx_status_t *status, uint32_t *result);

/**
 * Like mx_test(), but waits up to 'timeout' milliseconds (MX_INFINITE: no
 * limit).  Polls first, then releases the CPU between polls.  From an
 * unexpected handler, which runs inside the library's progress, it cannot
 * wait: unless the request is complete already it fails with MX_BUSY.  If
 * another thread closes the endpoint meanwhile, it returns MX_BAD_ENDPOINT
 * with *result 0, without the error handler (mx_close_endpoint()); so do
 * mx_wait_any(), mx_peek(), mx_probe() and mx_buffered().
 * @return MX_SUCCESS (*result 0 on timeout or mx_wakeup()),
 * MX_BAD_ENDPOINT, MX_BAD_REQUEST, MX_BUSY.
 */
mx_return_t mx_wait(mx_endpoint_t endpoint, mx_request_t *request,
		uint32_t timeout, mx_status_t *status, uint32_t *result);

/**
 * Completes (like mx_test()) one complete request of the endpoint whose
 * match information matches: (request's match_info & match_mask) ==
 * (match_info & match_mask).  *result 1 and *status filled if there was
 * one, else 0.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST (result NULL).
 */
mx_return_t mx_test_any(mx_endpoint_t endpoint, uint64_t match_info,
		uint64_t match_mask, mx_status_t *status, uint32_t *result);

/**
 * Like mx_test_any(), waiting up to 'timeout' ms (MX_INFINITE: no limit,
 * until mx_wakeup()).
 * @return MX_SUCCESS (*result 0 on timeout), MX_BAD_ENDPOINT,
 * MX_BAD_REQUEST, MX_BUSY (as mx_wait()).
 */
mx_return_t mx_wait_any(mx_endpoint_t endpoint, uint32_t timeout,
		uint64_t match_info, uint64_t match_mask, mx_status_t *status,
		uint32_t *result);

/**
 * Sets *request to a request of this endpoint that is complete and
 * *result to 1, or *result to 0 if there is none.  Does not release it.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST (NULL output).
 */
mx_return_t mx_ipeek(mx_endpoint_t endpoint, mx_request_t *request,
		uint32_t *result);

/**
 * Like mx_ipeek(), but waits up to 'timeout' milliseconds (MX_INFINITE:
 * no limit, until mx_wakeup()).
 * @return as mx_ipeek() (*result 0 on timeout), MX_BUSY (as mx_wait()).
 */
mx_return_t mx_peek(mx_endpoint_t endpoint, uint32_t timeout,
		mx_request_t *request, uint32_t *result);

/**
 * Reports, without receiving it, the first message that a receive with
 * these match arguments would match: *result 1 and *status filled.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_MATCH_MASK,
 * MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK, MX_BAD_REQUEST (result NULL).
 */
mx_return_t mx_iprobe(mx_endpoint_t endpoint, uint64_t match_recv,
		uint64_t match_mask, mx_status_t *status, uint32_t *result);

/**
 * Like mx_iprobe(), but waits up to 'timeout' milliseconds (MX_INFINITE:
 * no limit, until mx_wakeup()).
 * @return as mx_iprobe() (*result 0 on timeout), MX_BUSY (as mx_wait()).
 */
mx_return_t mx_probe(mx_endpoint_t endpoint, uint32_t timeout,
		uint64_t match_recv, uint64_t match_mask, mx_status_t *status,
		uint32_t *result);

/**
 * Cancels a pending receive that has not matched yet: *result 1 and the
 * request is released; 0 if it was too late (complete it with mx_test()).
 * Sends cannot be cancelled (*result 0).
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST.
 */
mx_return_t mx_cancel(mx_endpoint_t endpoint, mx_request_t *request,
		uint32_t *result);

/**
 * Returns the context pointer given when the request was posted.
 * @return MX_SUCCESS, MX_BAD_REQUEST.
 */
mx_return_t mx_context(mx_request_t *request, void **context);

/**
 * One-sided write of MX 1.2 (to 'remote_addr' in the destination's
 * memory).  mx-dpdk has no remote memory access: after its arguments are
 * checked, it fails.
 * @return MX_FAILURE (not supported), or first MX_BAD_ENDPOINT,
 * MX_BAD_REQUEST.
 */
mx_return_t mx_iput(mx_endpoint_t endpoint, void *local_addr,
		uint32_t length, mx_endpoint_addr_t destination,
		uint64_t remote_addr, void *context, mx_request_t *request);

/**
 * One-sided read of MX 1.2 (from 'remote_addr' in the destination's
 * memory): not supported, as mx_iput().
 * @return MX_FAILURE (not supported), or first MX_BAD_ENDPOINT,
 * MX_BAD_REQUEST.
 */
mx_return_t mx_iget(mx_endpoint_t endpoint, void *local_addr,
		uint32_t length, mx_endpoint_addr_t destination,
		uint64_t remote_addr, void *context, mx_request_t *request);

#ifdef __cplusplus
}
#endif

#endif /* MYRIEXPRESS_H */
