/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx-dpdk core: where the MX API meets the protocol (proto/) and the links
 * (pmd-glue/).  Internal; every symbol carries the mxd_ prefix.
 *
 * Objects and who owns them:
 *   board     a group of links (DPDK ports) with one NIC id and name; owns
 *             the per-link tx queues, the loopback ring and the counters.
 *   endpoint  (struct mx_endpoint) an MX endpoint on a board: partner
 *             table, posted-receive queue, unexpected queue, completion
 *             list, request pool.
 *   partner   one remote (or local) endpoint this endpoint talks to: send
 *             and receive windows, the frames kept until acknowledged.
 *   request   (struct mx_request) one isend/irecv.
 *
 * A message's path: mx_isend -> mxd_send_post -> frames into the link's
 * tx queue -> burst at the end of the call.  A frame's path: rx burst ->
 * mxd_wire_parse -> dispatch by type -> receive window -> match ->
 * copy into the request or the unexpected queue -> completion list.
 */
#ifndef MXD_H
#define MXD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "myriexpress.h"
#include "mx_extensions.h"
#include "list.h"
#include "lock.h"
#include "glue.h"
#include "fault.h"
#include "wire.h"
#include "rxwin.h"
#include "txwin.h"

#define MXD_MAX_BOARDS		8
#define MXD_BOARD_PORTS		8
#define MXD_MAX_PARTNERS	1024	/* per endpoint */
#define MXD_TXQ_SIZE		1024	/* frames queued per link, 2^n */
#define MXD_LOOP_SIZE		1024	/* loopback ring, 2^n */
#define MXD_BURST		32
#define MXD_SEG_INLINE		4
#define MXD_MAX_PEERS		256
#define MXD_MAX_SEGMENTS	256
#define MXD_NOTIFY_MIN		16	/* queued notices per partner, grows */
#define MXD_ACK_EVERY		8	/* explicit ack after this many messages */
#define MXD_LSEND_MAX		4096	/* large sends per endpoint, 2^12 */
#define MXD_PULLS_MAX		4096	/* large receives per endpoint, 2^12 */
#define MXD_JOBS		64	/* PULLs queued per partner, 2^n */
#define MXD_PULL_BLOCKS		8	/* blocks in flight per large receive */
#define MXD_PULL_FRAMES		32	/* frames per block (<= 64) */

/* ---- settings (config.c) ------------------------------------------------ */

struct mxd_config {
	const char *dpdk_args;		/* MX_DPDK_ARGS */
	char hostname[MX_MAX_HOSTNAME_LEN];	/* MX_HOSTNAME */
	const char *boards;		/* MX_BOARDS */
	const char *peers_file;		/* MX_PEERS_FILE */
	const char *faults;		/* MX_FAULTS (tests) */
	uint32_t eager_max;		/* MX_RNDV_THRESHOLD */
	uint32_t mtu;			/* MX_MTU, 0: the port's */
	uint32_t unexp_max;		/* MX_UNEXP_QUEUE_MAX, bytes */
	uint32_t spin_us;		/* MX_SPIN_US */
	uint32_t discovery_ms;		/* MX_DISCOVERY_MS */
	uint32_t link_wait_ms;		/* MX_LINK_WAIT_MS */
	uint32_t ack_delay_us;		/* MX_ACK_DELAY_US */
	uint32_t connect_retry_ms;	/* MX_CONNECT_RETRY_MS */
	uint32_t nb_mbufs;		/* MX_MBUFS */
	uint32_t close_linger_ms;	/* MX_CLOSE_LINGER_MS */
	uint32_t progress_thread;	/* MX_PROGRESS_THREAD */
	uint32_t progress_us;		/* MX_PROGRESS_US */
	uint32_t rto_min_us;		/* MX_RTO_MIN_US */
	uint32_t rto_max_ms;		/* MX_RTO_MAX_MS */
	uint32_t peer_timeout_ms;	/* MX_PEER_TIMEOUT_MS */
	uint32_t verbose;		/* MX_VERBOSE */
};

/* One row per setting: name, value as text, what it does. */
struct mxd_setting {
	const char *name;
	char value[160];
	const char *help;
};

int mxd_config_load(struct mxd_config *c);
unsigned mxd_config_describe(const struct mxd_config *c,
		struct mxd_setting *rows, unsigned max);

/* ---- counters ----------------------------------------------------------- */

enum mxd_counter {
	MXD_C_TX_FRAMES,
	MXD_C_RX_FRAMES,
	MXD_C_TX_MSGS,
	MXD_C_RX_MSGS,
	MXD_C_LOOP_FRAMES,
	MXD_C_ACKS_SENT,
	MXD_C_ACKS_PIGGY,
	MXD_C_UNEXP_MSGS,
	MXD_C_EARLY_MSGS,
	MXD_C_TX_STALLS,
	MXD_C_BAD_ACK,
	MXD_C_CONN_REQ,
	MXD_C_DISCOVERY,
	MXD_C_NACK_SENT,
	MXD_C_NACK_RCVD,
	MXD_C_NOTICE_LOST,
	MXD_C_NOTICE_GROW,
	MXD_C_UNEXP_FULL,
	MXD_C_BAD_PULL,
	MXD_C_PULL_BUSY,
	MXD_C_RETX_MSGS,	/* messages retransmitted on timeout */
	MXD_C_RETX_FRAMES,
	MXD_C_REPULLS,		/* PULLs sent again for missing replies */
	MXD_C_PINGS,		/* liveness probes sent */
	MXD_C_PEER_DEAD,	/* partners declared unreachable */
	MXD_C_PEER_RESET,	/* partners restarted (new session/fresh) */
	MXD_C_PORT_SUSPECT,	/* ports left out of striping after a loss */
	MXD_C_BURSTS_CUT,	/* bursts cut short: the port's memory went */
	MXD_C_DROP_BASE,	/* followed by one counter per enum mxd_drop */
	MXD_C_MAX = MXD_C_DROP_BASE + MXD_DROP_MAX
};

const char *mxd_counter_name(unsigned c);

/* ---- boards (board.c) --------------------------------------------------- */

struct mxd_txq {
	uint32_t head, tail;		/* free-running */
	struct mxd_frame f[MXD_TXQ_SIZE];
};

struct mxd_board {
	unsigned index;
	uint64_t nic_id;
	char name[MX_MAX_HOSTNAME_LEN];
	unsigned nports;
	struct mxd_link *port[MXD_BOARD_PORTS];
	unsigned link_index[MXD_BOARD_PORTS];	/* index in the global table */
	uint64_t cut_seen[MXD_BOARD_PORTS];	/* link->cut already counted */
	uint32_t frag_max;		/* eager payload per frame */
	uint32_t pull_frag_max;		/* pull reply payload per frame */
	uint32_t eager_max;		/* largest eager message */
	struct mx_endpoint *ep[MX_MAX_ENDPOINTS];
	struct mxd_txq txq[MXD_BOARD_PORTS];
	uint32_t loop_head, loop_tail;
	uint8_t busy;			/* inside a progress pass */
	struct mxd_list acks;		/* partners (of any endpoint) owing
					 * an ack or a notice */
	struct mxd_list timed;		/* partners with something in flight
					 * (retransmission, pulls, probes) */
	uint32_t timer_pass;		/* passes since the last timer check */
	uint64_t now;			/* ns, at the last timer check */
	struct mxd_frame loop[MXD_LOOP_SIZE];
	uint64_t *counters;		/* MXD_C_MAX, in the stats segment */
	void *stats;			/* shared segment (or private memory) */
	size_t stats_len;
	char stats_path[64];		/* empty when private */
	uint32_t nic_collision;		/* peers seen with our NIC id */
};

struct mxd_lib {
	int initialized;
	struct mxd_config conf;
	unsigned nboards;
	struct mxd_board *boards[MXD_MAX_BOARDS];
	struct mxd_link *links[MXD_GLUE_MAX_PORTS];
	unsigned nlinks;
	int eal_reused;
};

extern struct mxd_lib mxd_lib;

/* Starts the engine on these links (mx_init passes the DPDK ports; tests
 * pass fake links).  mxd_lib.conf must be loaded. */
int mxd_init_links(struct mxd_link *const *links, unsigned n);

int mxd_boards_init(struct mxd_lib *lib);
/* Board counters in a shared segment mx_counters can read (stats.c). */
int mxd_stats_open(struct mxd_board *b);
void mxd_stats_close(struct mxd_board *b);
void mxd_boards_fini(struct mxd_lib *lib);
struct mxd_board *mxd_board_by_nic(uint64_t nic_id);

/* Room on a port's tx queue, in frames. */
unsigned mxd_txq_room(const struct mxd_board *b, unsigned port);
/* Seals a finished frame (integrity check) and queues it for a port, or
 * for the loopback ring. */
void mxd_txq_push(struct mxd_board *b, unsigned port, struct mxd_frame *f);
void mxd_loop_push(struct mxd_board *b, struct mxd_frame *f);
/* Queues a frame sealed before (a retransmission), unchanged. */
void mxd_txq_resend(struct mxd_board *b, unsigned port, struct mxd_frame *f);
void mxd_loop_resend(struct mxd_board *b, struct mxd_frame *f);
unsigned mxd_loop_room(const struct mxd_board *b);
void mxd_board_flush(struct mxd_board *b);
/* One pass: rx bursts on every port and the loopback ring, timers, tx.
 * Returns how many frames it took in (0: idle). */
unsigned mxd_board_progress(struct mxd_board *b);
int mxd_board_port_up(struct mxd_board *b, unsigned port);

/* Allocates one frame on a port with the common header written; the
 * caller appends 'body' bytes after MXD_HDRS_LEN. */
int mxd_frame_start(struct mxd_board *b, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], const struct mxd_hdr_args *a,
		uint16_t body, struct mxd_frame *f);

/* Ethernet's minimum frame: pad with zeros, never stale buffer bytes. */
static inline void
mxd_frame_pad(struct mxd_frame *f)
{
	if (f->len < 60) {
		memset(f->data + f->len, 0, 60 - f->len);
		f->len = 60;
	}
}

static inline void
mxd_count(struct mxd_board *b, enum mxd_counter c)
{
	b->counters[c]++;
}

/* ---- naming and discovery (naming.c) ------------------------------------ */

struct mxd_peer {
	uint64_t nic_id;
	char name[MX_MAX_HOSTNAME_LEN];
	uint32_t seen;			/* bit per global link */
	uint8_t mac[MXD_GLUE_MAX_PORTS][MXD_ETH_ALEN];
};

void mxd_naming_init(void);
void mxd_naming_add(uint64_t nic_id, const char *name, int link,
		const uint8_t mac[MXD_ETH_ALEN]);
int mxd_naming_load_file(const char *path);
const struct mxd_peer *mxd_naming_by_nic(uint64_t nic_id);
const struct mxd_peer *mxd_naming_by_name(const char *name);
unsigned mxd_naming_count(void);
const struct mxd_peer *mxd_naming_get(unsigned i);
void mxd_naming_announce(struct mxd_board *b, const char *want);
void mxd_naming_rx(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt);
/* Resolves a name, querying the wire for up to ms milliseconds. */
int mxd_naming_resolve(const char *name, uint32_t ms, uint64_t *nic_id);

/* ---- requests (request.c) ------------------------------------------------ */

enum mxd_req_type {
	MXD_REQ_SEND = 1,
	MXD_REQ_RECV,
	MXD_REQ_CONNECT,
};

enum mxd_req_state {
	MXD_RS_FREE = 0,	/* in the pool */
	MXD_RS_QUEUED,		/* send waiting for window or tx space */
	MXD_RS_BUFFERED,	/* send: data in frames, waiting for ack/match */
	MXD_RS_RNDV,		/* large send: announced, being pulled */
	MXD_RS_POSTED,		/* receive in the posted queue */
	MXD_RS_MATCHED,		/* receive matched, data arriving */
	MXD_RS_COMPLETE,	/* on the completion list */
};

struct mx_request {
	struct mxd_list link;		/* posted queue or partner's sendq */
	struct mxd_list done;		/* endpoint completion list */
	struct mx_endpoint *ep;
	uint8_t type;
	uint8_t state;
	uint32_t nseg;
	uint32_t length;		/* sum of the segments */
	mx_segment_t *segs;
	mx_segment_t seg_inline[MXD_SEG_INLINE];
	uint64_t match_recv;		/* send: match_info; recv: value */
	uint64_t match_mask;
	struct mxd_partner *partner;	/* send: destination */
	uint32_t seq;			/* send: message sequence number */
	uint8_t sync;			/* mx_issend */
	uint8_t acked;			/* send: partner has the data */
	uint8_t matched;		/* issend: partner matched it */
	uint8_t forget;			/* mx_forget: release on completion */
	uint64_t deadline;		/* ns; 0: no timeout */
	uint8_t claimed;		/* returned by a peek (several threads) */
	uint8_t rndv;			/* large send (rendezvous) */
	uint32_t rndv_handle;		/* its handle in ep->lsend */
	uint8_t desc[16];		/* its struct mxd_rndv_desc, on the wire */
	mx_status_t status;
	struct mx_request *pool_next;
};

struct mxd_reqpool {
	struct mx_request *free;
	struct mxd_list chunks;
	uint32_t allocated;
};

void mxd_reqpool_init(struct mxd_reqpool *p);
void mxd_reqpool_fini(struct mxd_reqpool *p);
struct mx_request *mxd_req_get(struct mx_endpoint *ep, enum mxd_req_type t,
		void *context);
void mxd_req_put(struct mx_request *r);
void mxd_req_set_state(struct mx_request *r, enum mxd_req_state s);
int mxd_req_set_segs(struct mx_request *r, const mx_segment_t *segs,
		uint32_t n);
void mxd_req_complete(struct mx_request *r, mx_status_code_t code);
/* Copies 'len' bytes into the request's segments at message offset 'off'
 * (bytes past the request's length are dropped: truncation). */
void mxd_req_scatter(struct mx_request *r, uint32_t off, const uint8_t *src,
		uint32_t len);
/* The same, feeding the bytes (all len of them, truncated or not) to the
 * CRC register crc in the same pass; returns the register. */
uint32_t mxd_req_scatter_crc(struct mx_request *r, uint32_t off,
		const uint8_t *src, uint32_t len, uint32_t crc);
/* Copies 'len' bytes of the request's segments at offset 'off' to dst,
 * feeding them to the CRC register crc in the same pass (every send's
 * data is checked on the way into its frame); returns the register. */
uint32_t mxd_req_gather_crc(const struct mx_request *r, uint32_t off,
		uint8_t *dst, uint32_t len, uint32_t crc);

/* ---- buffers for unexpected and early messages (unexp.c) ---------------- */

struct mxd_unexp {
	struct mxd_list link;		/* endpoint's unexp or held list */
	struct mxd_partner *partner;
	uint64_t match;
	uint32_t msg_len;
	uint8_t complete;
	uint8_t queued;			/* on the unexpected queue */
	uint8_t sync;			/* sender waits for MATCHED */
	uint8_t rndv;			/* buf holds an RNDV descriptor */
	uint32_t seq;
	uint8_t cls;			/* buffer size class */
	struct mx_request *req;		/* receive waiting for the rest */
	uint8_t *buf;
	struct mxd_unexp *pool_next;
};

struct mxd_bufpool {
	struct mxd_unexp *free_unexp;
	uint8_t *free_buf[32];		/* one free list per size class */
};

void mxd_bufpool_fini(struct mxd_bufpool *p);
struct mxd_unexp *mxd_unexp_get(struct mx_endpoint *ep, uint32_t len);
void mxd_unexp_put(struct mx_endpoint *ep, struct mxd_unexp *u);
void mxd_unexp_enqueue(struct mx_endpoint *ep, struct mxd_unexp *u);
void mxd_unexp_dequeue(struct mx_endpoint *ep, struct mxd_unexp *u);
/* Whether the unexpected queue has room for a 'len'-byte message. */
int mxd_unexp_room(const struct mx_endpoint *ep, uint32_t len);
/* The message's length (a large message's, not its descriptor's). */
uint32_t mxd_unexp_length(const struct mxd_unexp *u);
/* Frees every message buffer of the endpoint (on close). */
void mxd_unexp_release_all(struct mx_endpoint *ep);
/* Delivers a complete unexpected message to a receive and frees it. */
void mxd_unexp_deliver(struct mx_endpoint *ep, struct mxd_unexp *u,
		struct mx_request *r);

/* ---- partners and endpoints (endpoint.c) -------------------------------- */

struct mxd_txrec {
	uint32_t seq;
	uint32_t nframes;
	uint64_t sent_at;		/* ns, last (re)transmission */
	uint32_t retx;			/* times retransmitted */
	struct mx_request *req;		/* the send, until acknowledged */
	struct mxd_txrec *pool_next;
	struct mxd_frame frames[MXD_MAX_FRAGS];
};

enum mxd_owner_kind {
	MXD_OWN_NONE = 0,
	MXD_OWN_REQ,
	MXD_OWN_UNEXP,
	MXD_OWN_DISCARD,	/* consumed by the unexpected handler */
	MXD_OWN_CTRL,		/* a notice: applied on arrival */
};

/* One PULL being served by the sender. */
struct mxd_pulljob {
	/* The send by its handle: it may complete (NOTIFY after an earlier
	 * copy of this block), time out or fail while the job waits. */
	uint32_t send_handle;
	uint32_t recv_handle;
	uint32_t off, end;
	uint16_t frag;
	uint8_t port;			/* answered where the PULL came in */
	uint8_t mac[MXD_ETH_ALEN];	/* to where it came from */
};

/* One block of a large receive. */
struct mxd_pullblk {
	uint32_t off, len;
	uint64_t have;			/* frames received */
	uint8_t n, count;
	uint8_t asked;			/* its PULL went out */
	uint8_t port;			/* the port it was asked on */
	uint8_t tries;			/* times asked again */
	uint32_t ask;			/* partner's ask number of its last PULL */
	uint64_t asked_at;		/* ns, last PULL for it */
};

/* A large receive being pulled. */
struct mxd_pull {
	struct mx_request *r;
	struct mxd_partner *p;
	uint32_t handle;		/* ours, in PULL and PULL_REP */
	uint32_t send_handle;
	uint32_t total;			/* bytes to pull */
	uint32_t next;			/* next offset to give a block */
	uint32_t got;
	uint16_t frag;
	uint32_t rr;			/* next port to ask on (striping) */
	struct mxd_pullblk blk[MXD_PULL_BLOCKS];
	struct mxd_list link;		/* ep->pulls_waiting */
	struct mxd_list plink;		/* its partner's pulls */
	struct mxd_pull *next_free;
};

/* Round-trip estimate (Jacobson/Karels), nanoseconds. */
struct mxd_rtt {
	uint32_t srtt, var;
};

struct mxd_partner {
	struct mx_endpoint *ep;
	uint16_t index;			/* ours, sent as src_peer */
	uint16_t remote_index;		/* theirs, sent as dst_peer */
	uint64_t nic_id;
	uint32_t remote_ep;
	uint32_t remote_filter;
	uint32_t remote_session;	/* 0 until known */
	uint8_t connected;
	uint8_t local;			/* same board, same process */
	int port;			/* board port to use, -1 unknown */
	uint8_t mac[MXD_ETH_ALEN];
	struct mxd_txwin tx;
	struct mxd_rxwin rx;
	struct mxd_txrec *inflight[MXD_WIN];
	struct mxd_list sendq;		/* sends waiting for window/tx */
	struct mxd_list syncq;		/* issends acked, waiting for MATCHED */
	uint64_t *notify;		/* notices not sent yet: */
	uint32_t notify_n, notify_cap;	/* kind << 32 | value */
	mx_status_code_t dead;		/* non-zero: why sends to it fail */
	struct mxd_list sending;	/* on the endpoint's sending list */
	struct mxd_list ackq;		/* on the board's ack list */
	uint32_t ack_sent;		/* last cumulative ack sent */
	uint64_t ack_due;		/* ns: send an explicit ack by then */
	uint8_t ack_queued;
	uint32_t conn_id;		/* connect in progress */
	int conn_status;		/* -1 waiting, else enum mxd_conn_status */
	uint32_t conn_filter;		/* filter asked for by that connect */
	uint64_t conn_next;		/* ns: next connect request */
	void *addr_context;		/* mx_set_endpoint_addr_context */
	struct mxd_pulljob jobs[MXD_JOBS];	/* PULLs to serve */
	uint32_t job_head, job_tail;
	uint32_t pulls_out;		/* our PULLs to it not yet answered */
	struct mxd_list jobq;		/* on ep->jobq while it has jobs */
	/* Reliability. */
	uint64_t last_heard;		/* ns, last valid frame from it */
	uint64_t probe_since;		/* ns, first probe unanswered */
	uint64_t ping_at;		/* ns, last liveness probe */
	uint32_t fresh_conn;		/* connect id of its last start-over */
	uint32_t backoff;		/* consecutive timeouts */
	struct mxd_rtt rtt;		/* messages: send to ack */
	struct mxd_rtt pull_rtt;	/* blocks: PULL to last reply */
	struct mxd_list timed;		/* on the board's timed list */
	struct mxd_list pulls;		/* our large receives from it */
	uint64_t pulls_check_at;	/* ns: next look for overdue blocks */
	uint32_t lsends;		/* our large sends to it */
	uint64_t heard_on[MXD_BOARD_PORTS];	/* ns, last frame per port */
	uint64_t port_bad_until[MXD_BOARD_PORTS];	/* ns: skip in pulls */
	uint32_t port_fails[MXD_BOARD_PORTS];
	/* PULLs to it are numbered in the order asked.  Per port: the highest
	 * number of a block answered there, and (silent set) the first PULL
	 * sent there since the partner was last heard there. */
	uint32_t ask_next;
	uint32_t answered[MXD_BOARD_PORTS];
	uint32_t silent_from[MXD_BOARD_PORTS];
	uint8_t silent[MXD_BOARD_PORTS];
};

struct mx_endpoint {
	struct mxd_board *board;
	uint32_t id;
	uint32_t filter;
	uint32_t session;
	mx_error_handler_t handler;	/* NULL: the library's */
	uint32_t unexp_max;
	uint64_t ctx_mask;		/* MX_PARAM_CONTEXT_ID bits */
	uint32_t unexp_bytes;		/* on the unexpected queue */
	uint8_t unexp_full;		/* messages held for lack of room */
	uint32_t npartners;
	struct mxd_partner *partners[MXD_MAX_PARTNERS];
	struct mxd_list posted;		/* receives, in post order */
	struct mxd_list unexp;		/* unexpected messages, match order */
	struct mxd_list held;		/* other message buffers in use */
	struct mxd_list done;		/* completed requests */
	struct mxd_list sending;	/* partners with queued sends */
	struct mxd_reqpool reqs;
	struct mxd_bufpool bufs;
	struct mxd_txrec *free_txrec;
	struct mxd_list txrec_chunks;
	uint32_t next_conn_id;
	struct mxd_list connects;	/* connect requests in progress */
	uint32_t req_timeout_ms;	/* default for new sends/connects */
	uint32_t ntimed;		/* requests with a deadline */
	uint64_t next_timeout_scan;	/* ns */
	mx_unexp_handler_t unexp_handler;
	void *unexp_context;
	uint8_t progression_off;	/* mx_disable_progression */
	struct mx_request **lsend;	/* [MXD_LSEND_MAX] large sends */
	uint32_t lsend_next, lsend_gen;
	struct mxd_list jobq;		/* partners with PULLs to serve */
	struct mxd_pull **pulls;	/* [MXD_PULLS_MAX] large receives */
	uint32_t pull_next, pull_gen;
	struct mxd_pull *pull_free;
	struct mxd_list pulls_waiting;	/* pulls with PULLs not yet sent */
	uint32_t wakeup_gen;		/* mx_wakeup: +1 (atomic) */
};

struct mxd_partner *mxd_partner_find(struct mx_endpoint *ep, uint64_t nic,
		uint32_t remote_ep);
struct mxd_partner *mxd_partner_new(struct mx_endpoint *ep, uint64_t nic,
		uint32_t remote_ep);
void mxd_partner_reset(struct mxd_partner *p, uint32_t remote_session);
struct mxd_partner *mxd_addr_partner(struct mx_endpoint *ep,
		const mx_endpoint_addr_t *a);
void mxd_partner_addr(const struct mxd_partner *p, mx_endpoint_addr_t *a);
struct mxd_txrec *mxd_txrec_get(struct mx_endpoint *ep);
void mxd_txrec_put(struct mx_endpoint *ep, struct mxd_txrec *r);
int mxd_connect(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep,
		uint32_t filter, uint32_t timeout_ms, struct mxd_partner **out);
/* Starts a connect request r (type CONNECT) to (nic, remote_ep). */
int mxd_connect_start(struct mx_request *r, uint64_t nic, uint32_t remote_ep,
		uint32_t filter, uint32_t timeout_ms);
/* Completes the connect requests of p that have an answer. */
void mxd_connects_answered(struct mxd_partner *p);
/* Resends due connect requests and fails expired ones. */
void mxd_connects_progress(struct mx_endpoint *ep, uint64_t now);
/* Fails sends and connects whose deadline passed. */
void mxd_timeouts_scan(struct mx_endpoint *ep, uint64_t now);
struct mx_endpoint *mxd_ep_by_session(uint32_t session);
/* Matches what became matchable on p (after progression resumed). */
void mxd_partner_drain(struct mx_endpoint *ep, struct mxd_partner *p);

/* ---- protocol engine (send.c, recv.c) ----------------------------------- */

/* Fills the common header arguments for a frame to partner p. */
void mxd_hdr_for(struct mxd_partner *p, uint8_t type,
		struct mxd_hdr_args *a);
/* Sends a frame built by mxd_frame_start to p (wire or loopback). */
void mxd_partner_xmit(struct mxd_partner *p, struct mxd_frame *f);
int mxd_partner_frame(struct mxd_partner *p, uint8_t type, uint16_t body,
		struct mxd_frame *f);
void mxd_send_post(struct mx_request *r);
void mxd_send_pump(struct mxd_partner *p);
void mxd_sends_pump(struct mx_endpoint *ep);
void mxd_send_acked(struct mxd_partner *p, uint32_t ack);
void mxd_send_matched(struct mxd_partner *p, uint32_t seq);
/* r completes before its message's ack: the ack must not find it. */
void mxd_send_detach(struct mx_request *r);
/* Fails every send to p with 'code'; p is unusable until reconnected. */
void mxd_partner_fail(struct mxd_partner *p, mx_status_code_t code);
unsigned mxd_partner_room(const struct mxd_partner *p);
/* The same on a given port of the board, to a given MAC (striping). */
unsigned mxd_port_room(const struct mxd_partner *p, unsigned port);
/* Writes the headers of a frame to p into an allocated buffer. */
void mxd_partner_frame_fill(struct mxd_partner *p, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], uint8_t type, uint16_t body,
		struct mxd_frame *f);
int mxd_partner_frame_on(struct mxd_partner *p, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], uint8_t type, uint16_t body,
		struct mxd_frame *f);
/* Queues a frame already sealed (mxd_wire_seal_crc). */
void mxd_partner_xmit_sealed(struct mxd_partner *p, unsigned port,
		struct mxd_frame *f);
void mxd_partner_xmit_on(struct mxd_partner *p, unsigned port,
		struct mxd_frame *f);

/* Large messages (rndv.c). */
int mxd_rndv_prepare(struct mx_request *r);
void mxd_rndv_forget(struct mx_request *r);
void mxd_rndv_fail(struct mxd_partner *p, mx_status_code_t code);
void mxd_rndv_notified(struct mxd_partner *p, uint32_t handle);
void mxd_rndv_expire(struct mx_endpoint *ep, uint64_t now);
void mxd_pull_serve(struct mxd_partner *p, unsigned port,
		const struct mxd_pkt *pkt);
void mxd_pull_pump(struct mxd_partner *p);
void mxd_pulls_pump(struct mx_endpoint *ep);
void mxd_pull_start(struct mx_request *r, struct mxd_partner *p,
		const uint8_t *desc);
void mxd_pulls_ask(struct mx_endpoint *ep);
/* A pull reply that came in by 'port': its data placed (and, parsed lazily,
 * its check verified on the way).  Returns 1 taken, 0 dropped (counted),
 * -1 corrupt (counted). */
int mxd_pull_data(struct mxd_partner *p, unsigned port,
		const struct mxd_pkt *pkt);
void mxd_pulls_release(struct mx_endpoint *ep);
/* Asks again for blocks of p's pulls whose replies are overdue. */
void mxd_pulls_timer(struct mxd_partner *p, uint64_t now);
/* Fails p's large receives with 'code'. */
void mxd_pulls_fail(struct mxd_partner *p, mx_status_code_t code);

/* Sends p a notice (wire.h: enum mxd_notice_kind), now or, when window or
 * tx queue is full, from the ack pass, in order: never dropped. */
void mxd_notice(struct mxd_partner *p, uint8_t kind, uint32_t value);
void mxd_ack_send(struct mxd_partner *p);
/* Puts p on its board's list of partners owing an ack by 'due' (ns). */
void mxd_ack_later(struct mxd_partner *p, uint64_t due);
void mxd_acks_flush(struct mxd_board *b, uint64_t now);

/* Reliability (reliable.c): timers of every partner with something in
 * flight: retransmission, re-pulls, liveness probes, dead partners. */
void mxd_timed_add(struct mxd_partner *p);
void mxd_timers_run(struct mxd_board *b, uint64_t now);
/* We asked p for an answer (retransmission, re-pull, probe). */
void mxd_probe_sent(struct mxd_partner *p, uint64_t now);
/* From every progress pass ('work': frames it took in). */
void mxd_timers_tick(struct mxd_board *b, unsigned work);
/* Whether p's windows are at their start (nothing sent or received). */
int mxd_partner_fresh(const struct mxd_partner *p);
/* Receives from p that cannot complete any more fail (recv.c). */
void mxd_recv_partner_lost(struct mxd_partner *p, mx_status_code_t code);
/* p stopped answering, or restarted: every request that depends on it
 * fails with 'code', its windows start over and its frames are refused
 * until a new connect. */
void mxd_partner_lost(struct mxd_partner *p, mx_status_code_t code);
/* Takes a round-trip sample (ns); the timeout it implies, floored and
 * capped by MX_RTO_MIN_US / MX_RTO_MAX_MS. */
void mxd_rtt_sample(struct mxd_rtt *r, uint64_t ns);
uint64_t mxd_rtt_rto(const struct mxd_rtt *r);
/* Port 'port' lost p's frames: striping and rerouting avoid it for 100 ms,
 * doubling with each failure in a row (up to 6.4 s). */
void mxd_port_suspect(struct mxd_partner *p, unsigned port, uint64_t now);

void mxd_rx_frame(struct mxd_board *b, unsigned port, struct mxd_frame *f);
void mxd_recv_post(struct mx_request *r);
int mxd_match(uint64_t match, uint64_t value, uint64_t mask);

/* ---- progress and time (progress.c) -------------------------------------- */

uint64_t mxd_now_ns(void);
/* A progress pass for ep; returns non-zero if frames came in. */
unsigned mxd_progress(struct mx_endpoint *ep);
/* The optional progress thread (MX_PROGRESS_THREAD). */
int mxd_progress_thread_start(void);
void mxd_progress_thread_stop(void);
/* Runs progress until done(arg) or timeout_ms (0: none) passes; spins
 * first, then sleeps between polls.  Returns 1 if done. */
int mxd_poll_until(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms);

/* ---- errors (init.c) ------------------------------------------------------ */

/* Entry check of calls on an endpoint. */
#define CHECK_EP(ep, fn) do { \
	if ((ep) == NULL || !mxd_lib.initialized) \
		return mxd_error(NULL, MX_BAD_ENDPOINT, fn ": bad endpoint"); \
} while (0)

/* Reports an error through the handler in force; returns rc. */
mx_return_t mxd_error(struct mx_endpoint *ep, mx_return_t rc,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* MXD_H */
