/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mx_extensions.h
 * Calls beyond MX 1.0: the MX 1.1/1.2 additions that MPI libraries and
 * parallel file-system clients use, and mx-dpdk's own introspection
 * (mx_dpdk_*), used by mx_info.
 */
#ifndef MX_EXTENSIONS_H
#define MX_EXTENSIONS_H

#include "myriexpress.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- MX 1.2 ------------------------------------------------------------- */
/*
 * What MX 1.2 declared in mx_extensions.h.  Its other additions
 * (mx_test_any(), mx_wait_any(), mx_buffered(), mx_disable_progression(),
 * mx_reenable_progression(), mx_register_unexp_callback(), mx_iput(),
 * mx_iget()) are in myriexpress.h, where MX 1.2 declared them.
 */

/** Defined: mx_iconnect() takes match information and a context. */
#define MX_HAS_ICONNECT_V2 1

/**
 * Gives up the handle: the request goes on and is released by the library
 * when it completes; it must not be used again (*request is set to NULL).
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST.
 */
mx_return_t mx_forget(mx_endpoint_t endpoint, mx_request_t *request);

/**
 * Makes progress on the endpoint (receives, acks, queued sends).
 * @return MX_SUCCESS, MX_BAD_ENDPOINT.
 */
mx_return_t mx_progress(mx_endpoint_t endpoint);

/**
 * Like mx_decompose_endpoint_addr(), also giving the remote endpoint's
 * session id (0 if it is not known or the address is not connected).
 * @return MX_SUCCESS, MX_BAD_ENDPOINT (NULL output).
 */
mx_return_t mx_decompose_endpoint_addr2(mx_endpoint_addr_t endpoint_addr,
		uint64_t *nic_id, uint32_t *endpoint_id, uint32_t *session_id);

/**
 * Attaches an application pointer to a connected address.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT (not a connected address).
 */
mx_return_t mx_set_endpoint_addr_context(mx_endpoint_addr_t endpoint_addr,
		void *context);

/**
 * Returns the pointer attached by mx_set_endpoint_addr_context() (NULL if
 * none was).
 * @return MX_SUCCESS, MX_BAD_ENDPOINT (not a connected address).
 */
mx_return_t mx_get_endpoint_addr_context(mx_endpoint_addr_t endpoint_addr,
		void **context);

/**
 * Non-blocking mx_connect(): completes as a request whose status carries
 * 'match_info', 'context' and, on success, the address in status.source.
 * Failure statuses: MX_STATUS_ENDPOINT_CLOSED (no such endpoint),
 * MX_STATUS_BAD_KEY (filter), MX_STATUS_TIMEOUT (no answer within the
 * endpoint's request timeout, 10 s by default), or at once the reason a
 * message to that endpoint was refused or lost after its send completed,
 * if no send reported it yet (see mx_isend()).
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST, MX_BAD_ENDPOINT_ID,
 * MX_NO_RESOURCES.
 */
mx_return_t mx_iconnect(mx_endpoint_t endpoint, uint64_t nic_id,
		uint32_t endpoint_id, uint32_t filter, uint64_t match_info,
		void *context, mx_request_t *request);

/**
 * Forgets a connected address: its pending and queued sends complete with
 * MX_STATUS_CANCELLED; a later mx_connect() makes it usable again.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT (not an address of this endpoint).
 */
mx_return_t mx_disconnect(mx_endpoint_t endpoint,
		mx_endpoint_addr_t endpoint_addr);

/**
 * Sets the timeout, in milliseconds, of a send or connect request, or with
 * request NULL the endpoint's default for later ones (0: none).  A send
 * still pending when the time is up (queued, an issend not matched, a
 * large send not pulled) completes with MX_STATUS_TIMEOUT.  Receives do
 * not time out.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT, MX_BAD_REQUEST (not a pending send
 * or connect of this endpoint).
 */
mx_return_t mx_set_request_timeout(mx_endpoint_t endpoint,
		mx_request_t request, uint32_t milliseconds);

/** What an unexpected-message handler decides. */
typedef enum mx_unexp_handler_action {
	MX_RECV_CONTINUE = 0,	/**< queue it as unexpected (or match the
				     receive the handler just posted) */
	MX_RECV_FINISHED = 1	/**< the handler consumed it: drop it */
} mx_unexp_handler_action_t;

/**
 * Called, during progress, for each message that matches no posted
 * receive, before it is queued.  data_if_available points at the whole
 * message when it fits one frame (else NULL).  The handler may post
 * receives (mx_irecv) on the endpoint.
 */
typedef mx_unexp_handler_action_t (*mx_unexp_handler_t)(void *context,
		mx_endpoint_addr_t source, uint64_t match_value,
		uint32_t length, void *data_if_available);

/**
 * Installs (or with NULL removes) the endpoint's unexpected handler.  It
 * replaces a callback of mx_register_unexp_callback(), if any.
 * @return MX_SUCCESS, MX_BAD_ENDPOINT.
 */
mx_return_t mx_register_unexp_handler(mx_endpoint_t endpoint,
		mx_unexp_handler_t handler, void *context);

/* ---- mx-dpdk introspection ----------------------------------------------- */

/** One effective setting of the library (an MX_* environment variable). */
typedef struct {
	const char *name;	/**< variable name */
	const char *value;	/**< value in force, as text */
	const char *help;	/**< what it does */
} mx_dpdk_setting_t;

/**
 * Returns setting number 'index' (from 0) in *setting; the strings stay
 * valid until mx_finalize().  Works before mx_init() too (then it shows
 * what mx_init() would use).
 * @return MX_SUCCESS, or MX_BAD_INFO_VAL past the last setting.
 */
mx_return_t mx_dpdk_get_setting(uint32_t index, mx_dpdk_setting_t *setting);

/** One DPDK port of a board. */
typedef struct {
	char name[64];		/**< DPDK device name */
	char driver[32];	/**< PMD name */
	uint8_t mac[6];
	uint32_t mtu;
	uint32_t link_up;	/**< 1 if the link is up */
	uint32_t speed_mbps;	/**< 0 if unknown */
	int32_t numa_node;	/**< -1 if unknown */
	uint64_t tx_frames;	/**< frames sent by the port (its counter) */
	uint64_t rx_frames;	/**< frames received by the port */
} mx_dpdk_port_t;

/**
 * Describes port 'port' of board 'board' (see MX_PORT_COUNT).
 * @return MX_SUCCESS, MX_BOARD_UNKNOWN, MX_BAD_INFO_VAL.
 */
mx_return_t mx_dpdk_get_port(uint32_t board, uint32_t port,
		mx_dpdk_port_t *info);

/** How a board is held (mx_dpdk_board_t's mode). */
#define MX_DPDK_BOARD_EXCLUSIVE	0	/**< this process owns its ports */
#define MX_DPDK_BOARD_SHARED	1	/**< the processes of the host share it */
#define MX_DPDK_BOARD_SLOTS	16	/**< slots a shared board may have */
#define MX_DPDK_BOARD_NONE	0xffu	/**< endpoint_slot: not open */

/** Who holds a board and its endpoints. */
typedef struct {
	uint32_t mode;		/**< MX_DPDK_BOARD_EXCLUSIVE or _SHARED */
	uint32_t endpoints;	/**< the board's endpoint ids, 0 to this - 1 */
	uint32_t slots;		/**< shared: slot 0 the board service's, one
				     per process after it; exclusive: 1 */
	uint32_t slot;		/**< shared: this process's */
	int32_t service_pid;	/**< shared: the board service's pid */
	int32_t slot_pid[MX_DPDK_BOARD_SLOTS];	/**< each slot's process,
						     0 if free */
	uint8_t slot_state[MX_DPDK_BOARD_SLOTS];	/**< 0 free, 1 in
						     use, 2 its process
						     died (being freed) */
	uint8_t endpoint_slot[32];	/**< the slot holding each endpoint
					     id (exclusive: 0 when open
					     here), MX_DPDK_BOARD_NONE */
	char mechanism[128];	/**< how, in words */
} mx_dpdk_board_t;

/**
 * How board 'board' is held: by this process alone, or shared with the
 * other processes of the host through their board service (mx_board(1)),
 * its slots and which process holds which endpoint.
 * @return MX_SUCCESS, MX_BOARD_UNKNOWN.
 */
mx_return_t mx_dpdk_get_board(uint32_t board, mx_dpdk_board_t *info);

/**
 * Known board number 'index' (from 0) of the name table: this process's
 * boards, the peers file's, and those heard by discovery.  'name' holds
 * MX_MAX_HOSTNAME_LEN bytes.
 * @return MX_SUCCESS, or MX_BAD_INFO_VAL past the last one.
 */
mx_return_t mx_dpdk_get_peer(uint32_t index, uint64_t *nic_id, char *name);

/**
 * Board counters are published for other processes (mx_counters) in a
 * shared-memory segment per board, /dev/shm/mx-dpdk.<pid>.<board>,
 * laid out as below (host byte order).  Readers check magic and version.
 */
#define MX_DPDK_STATS_MAGIC 0x4d584453u	/* "MXDS" */
#define MX_DPDK_STATS_VERSION 1
#define MX_DPDK_STATS_LABEL 48

typedef struct {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;			/**< process that owns the board */
	uint32_t count;			/**< number of counters */
	uint64_t nic_id;
	char board_name[MX_MAX_HOSTNAME_LEN];
	/* followed by char label[count][MX_DPDK_STATS_LABEL]
	 * and uint64_t value[count] (8-byte aligned) */
} mx_dpdk_stats_t;

#ifdef __cplusplus
}
#endif

#endif /* MX_EXTENSIONS_H */
