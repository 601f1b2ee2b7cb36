/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints and partners: the objects every engine module works on, and
 * the partners layer's own functions (tables, addresses, state, request
 * completion).  The engine (connect, send, recv, rndv, reliable, unexp,
 * timers) gives these objects their behaviour; nothing here calls it.
 *
 *   endpoint  (struct mx_endpoint) an MX endpoint on a board: partner
 *             table, posted receives and unexpected queue (and their
 *             hashed indexes, match.c), completion list, request pool,
 *             its timer lists.
 *   partner   one remote (or local) endpoint this endpoint talks to: send
 *             and receive windows, the frames kept until acknowledged.
 *
 * A partner's state (enum mxd_peer_state) changes only through
 * mxd_partner_set_state(), which asserts the transition:
 *
 *        NEW ----learn----> UP <----learn (a new connect)---+
 *                            |  \                           |
 *                 NACK       |   \ unreachable, restarted   |
 *                 v          |    v                         |
 *              REFUSED ------+--> LOST ---------------------+
 *   any --mx_disconnect--> CLOSED --learn--> UP
 *
 * "learn" is a connect request or reply that tells us the peer's session
 * (connect.c); REFUSED keeps the session (the peer answered), LOST forgets
 * it and starts the windows over.
 */
#ifndef MXD_ENDPOINT_H
#define MXD_ENDPOINT_H

#include <stdint.h>

#include "mx_extensions.h"
#include "myriexpress.h"
#include "rxwin.h"
#include "txwin.h"
#include "util/copy.h"
#include "util/list.h"
#include "util/mtab.h"
#include "util/request.h"
#include "board/board.h"
#include "partners/face.h"

#define MXD_PARTNERS_FLOOR	1024	/* MX_MAX_PARTNERS at least: MX's */
#define MXD_PARTNERS_CEIL	65535	/* indexes fit 16 bits, 0xffff apart */
#define MXD_MAX_SEGMENTS	256
#define MXD_NOTIFY_MIN		16	/* queued notices per partner, grows */
/* An explicit ack after this many messages with no reply to carry it:
 * under MX_PACK_AFTER (32), so that a stream's acks come before its sends
 * wait to be packed, and half as many ACK frames, to take in and to
 * send, as at 8. */
#define MXD_ACK_EVERY		16
#define MXD_LSEND_MAX		4096	/* large sends per endpoint, 2^12 */
#define MXD_PULLS_MAX		4096	/* large receives per endpoint, 2^12 */
#define MXD_JOBS		64	/* blocks asked per partner, 2^n */
#define MXD_JOBS_AGAIN		512	/* PULLs asking again queued per partner,
					 * 2^n: a block asked again is up to 8 */
/* Blocks of 64 frames, 4 in flight: the bytes in flight of 8 blocks of 32
 * with half the PULLs, each of which costs the sender (the limit of a
 * stream) an rx burst. */
#define MXD_PULL_BLOCKS		4	/* blocks in flight per large receive */
#define MXD_PULL_FRAMES		64	/* frames per block (<= 64) */
#define MXD_RECENT_BUFS		32	/* large receive buffers remembered
					 * (a window's worth, and more) */
#define MXD_MCLASSES		4	/* masks hashed at once (match.c) */

struct mxd_unexp;
struct mxd_pull;

/*
 * A message in flight, kept until the partner acknowledges it, in one of
 * two forms.  A message of one frame with at most MXD_TXCOPY_MAX bytes of
 * data (small data, a notice, an RNDV descriptor) keeps its data, not its
 * frame ('small': from the endpoint's pool of small records): the frame
 * goes to the link with its one reference, which the link drops once
 * sent, and a retransmission builds the frame again (send.c,
 * mxd_send_rebuild).  Any other keeps its frames, a reference each; the
 * messages of a PACK frame share one record of that frame (refs: the
 * slots of p->a->inflight that name it).
 */
#define MXD_TXCOPY_MAX	128

struct mxd_txrec {
	uint32_t seq;			/* its (first) message */
	uint16_t refs;			/* inflight slots naming it */
	uint8_t nframes;		/* frames (a small record: 1) */
	uint8_t small;			/* data[] holds the message's bytes */
	uint8_t rto_still;		/* timeouts in a row that found have
					 * as the one before left it */
	/* A standard-mode send completed when its data was copied here, so
	 * no request waits for the message: if it is refused or lost for
	 * good, the partner reports it (send.c: mxd_sends_lost). */
	uint8_t done;
	uint8_t flags;			/* small: MXD_F_SYNC, RNDV, CTRL */
	uint8_t pad;
	uint16_t nmsgs;			/* messages seq.. it holds (PACK) */
	uint16_t pad2;
	uint32_t len;			/* small: bytes in data[] */
	uint32_t retx;			/* times retransmitted */
	uint64_t sent_at;		/* ns, last (re)transmission */
	uint64_t match;			/* small: the message's match */
	/* Fragments the receiver said it holds (an ACK's MXD_F_FRAGS):
	 * not sent again.  Only ever grows: a receiver forgets no fragment
	 * of a message while the message is in the window. */
	uint64_t have;
	uint64_t sent;			/* the frames of its last (re)send */
	uint64_t have_rto;		/* have at its last timeout */
	struct mx_request *req;		/* a send still waiting for the ack
					 * (issend, large), else NULL */
	struct mxd_txrec *pool_next;
	union {
		struct mxd_frame frames[0];	/* [nframes], not small */
		uint8_t data[0];		/* [len], small */
	};
};

/*
 * Record r's messages (PACK: seq.. and those after it) ask for a close
 * look at their ack (p->a->note_hi): a send request waits for it (issend,
 * large), it was stamped for a round-trip sample, or sent again.
 */
#define mxd_txrec_note(a, r) do {					\
	uint32_t last_ = (r)->seq + (r)->nmsgs - 1u;			\
									\
	if ((int32_t)((a)->note_hi - last_) < 0) {			\
		(a)->note_hi = last_;					\
		mxd_ep_hold_changed((a)->p->ep);			\
	}								\
} while (0)

/* Whether record r holds message seq (the messages of a PACK frame share
 * one: seq and those after it). */
static inline int
mxd_txrec_has(const struct mxd_txrec *r, uint32_t seq)
{
	return seq - r->seq < r->nmsgs;
}

/* Bit i set for each of a message's n frames (a txrec's have, sent). */
static inline uint64_t
mxd_frames_mask(unsigned n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

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

/* Round-trip estimate (Jacobson/Karels), nanoseconds. */
struct mxd_rtt {
	uint32_t srtt, var;
};

enum mxd_peer_state {
	MXD_PS_NEW = 0,		/* created, session not known yet */
	MXD_PS_UP,		/* session known: messages flow */
	MXD_PS_REFUSED,		/* refused our messages: sends fail */
	MXD_PS_LOST,		/* unreachable or restarted: sends fail */
	MXD_PS_CLOSED,		/* mx_disconnect: connect again first */
};

/* The latest connect handshake with a partner (connect.c). */
struct mxd_handshake {
	uint32_t id;			/* our request id, 0: none going on */
	int status;			/* -1 waiting, else enum mxd_conn_status */
	uint32_t filter;		/* the filter that connect asked for */
	uint64_t next;			/* ns: next request */
};

/* PULLs a partner asked us for, to serve (rndv.c): frames asked again
 * first (their block holds its message back), then first asks; each
 * queue in order.  Taken with the first PULL, given back with the
 * partner's traffic state (struct mxd_peer_act). */
struct mxd_pulljobs {
	struct mxd_pulljob jobs[MXD_JOBS], again[MXD_JOBS_AGAIN];
	uint32_t job_head, job_tail, again_head, again_tail;
	struct mxd_pulljobs *next_free;
};

/*
 * What a partner needs only while traffic with it is in flight: the
 * frames kept until acknowledged, the queues of sends, notices, PULLs to
 * serve and large receives, acks owed, the timers' state, the handshake
 * of a connect going on, and the per-port record of where it was heard
 * and lost frames.  Taken from the endpoint's pool when traffic starts
 * (mxd_partner_act), given back by the timers' look once nothing of the
 * sort is left (mxd_partner_idle_now, progress/timers_run.c).  Its
 * receive window's slots (p->rx.slot) and PULL queues come from pools of
 * their own, only when a message needs a slot or a PULL comes.
 */
struct mxd_peer_act {
	struct mxd_partner *p;
	struct mxd_list active;		/* on ep->active */
	uint8_t idle_looks;		/* looks that found it idle in a row */
	uint16_t connects;		/* connect requests of ours on it */
	uint8_t ack_queued;
	uint8_t sack_pending;		/* (reliable.c: mxd_fast_retransmit) */
	/* Fragments it named lost wait for their stamp or tx room
	 * (reliable.c: mxd_frags_heard). */
	uint8_t frags_pending;
	uint32_t ack_in;		/* its ack held, while ep->ack_held is
					 * this partner (send.c) */
	/* The newest message in flight whose ack is looked at closely
	 * (mxd_txrec_note), or older: none then, and an ack of what
	 * follows it retires records without a look at them. */
	uint32_t note_hi;
	uint64_t ack_due;		/* ns: send an explicit ack by then */
	uint32_t ack_due_for;		/* p->ack_sent when it was stamped */
	/* The partner's address as the program gets it (status.source):
	 * made once, when the state is taken, for every message's status
	 * (mxd_partner_addr_act). */
	mx_endpoint_addr_t addr;
	struct mxd_list ackq;		/* on the endpoint's ack list */
	struct mxd_list timed;		/* on the endpoint's timed list */
	struct mxd_list sendq;		/* sends waiting for window/tx */
	/* The PACK frame being written (engine/send.c: its record, whose
	 * frames[0] has the records from open_used bytes after the common
	 * header on), or NULL. */
	struct mxd_txrec *open;
	uint32_t open_used;
	/* Bytes of it mx_isend may still write at once (mxd_send_open): its
	 * room, 0 once a send waits on sendq (those go first). */
	uint32_t open_left;
	struct mxd_list sending;	/* on the endpoint's sending list */
	struct mxd_list syncq;		/* issends acked, waiting for MATCHED */
	uint32_t sack_hole;		/* base our last prompt SACK was for */
	uint32_t sack_ooo;		/* messages completed past a hole */
	/* The partner's last SACK, while holes it named wait for their
	 * round trip (reliable.c: mxd_fast_retransmit). */
	uint64_t sack_bits;
	uint32_t sack_ack;
	uint32_t notify_n, notify_cap;	/* notices not sent yet: */
	uint64_t *notify;		/* kind << 32 | value */
	struct mxd_handshake hs;
	struct mxd_pulljobs *jobs;	/* PULLs to serve, or NULL */
	struct mxd_list jobq;		/* on ep->jobq while it has jobs */
	uint32_t pulls_out;		/* our PULLs to it not yet answered */
	uint32_t lsends;		/* our large sends to it */
	uint32_t face_waits;		/* answers its face waits for from it
					 * (mxd_face_wait) */
	/* Reliability. */
	uint64_t probe_since;		/* ns, first probe unanswered */
	uint64_t ping_at;		/* ns, last liveness probe */
	uint32_t backoff;		/* consecutive timeouts */
	struct mxd_rtt rtt;		/* messages: send to ack */
	struct mxd_rtt pull_rtt;	/* blocks: PULL to last reply */
	struct mxd_list pulls;		/* our large receives from it */
	uint64_t pulls_check_at;	/* ns: next look for overdue blocks */
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
	struct mxd_peer_act *next_free;
	/* Messages in flight, by sequence number: their records. */
	struct mxd_txrec *inflight[MXD_WIN];
};

/*
 * A partner: what every peer this endpoint knows needs, used by every
 * message (identity, sessions and epoch, route, frame sizes, sequence
 * numbers, the header template and what its frames must hold); the
 * rest, needed only while traffic is in flight, hangs on 'a' (NULL while
 * idle: struct mxd_peer_act).  Kept to MXD_PARTNER_BYTES, so that an
 * endpoint can know tens of thousands.
 */
struct mxd_partner {
	struct mx_endpoint *ep;
	struct mxd_peer_act *a;		/* traffic state, NULL while idle */
	struct mxd_txwin tx;
	struct mxd_rxwin rx;		/* slots: a's pool's, or NULL */
	uint32_t ack_sent;		/* last cumulative ack sent */
	uint8_t state;			/* enum mxd_peer_state */
	uint8_t local;			/* same board, same process */
	/* The program has its address, or it sent us more than a connect
	 * request: kept for the endpoint's life (mxd_partner_new may reuse
	 * a partner without it when the table is full). */
	uint8_t used;
	int8_t port;			/* board port to use, -1 unknown */
	uint16_t frag_max;		/* eager payload per frame */
	uint8_t pack;			/* it takes PACK frames (said at
					 * connect: MXD_CAP_PACK) */
	uint8_t frags;			/* it takes ACKs naming fragments
					 * held (MXD_CAP_FRAGS) */
	uint32_t eager_max;		/* largest eager message to it */
	/* mx_isend's common case (send.c, mxd_send_small) as far as p goes,
	 * decided when what it depends on changes (mxd_partner_fast): one
	 * more than the largest message that may take it (0: none may, p
	 * not up or a loss to report), and the messages in flight under
	 * which it may. */
	uint16_t fast_max;
	uint16_t fly_max;
	/* A same-host partner (engine/shmsend.h: mxd_shm_route): an
	 * endpoint of another process sharing our board, reached through
	 * the host segment's rings, never by frames (p->local is 0).  Its
	 * slot and the slot owner's epoch when routed; shm_held: a record
	 * of it waits in the ring (the unexpected queue was full), and so
	 * do those after it.  Its p->hdr holds the header of its message
	 * records (engine/shmsend.c), not a frame's. */
	uint8_t shm;
	uint8_t shm_slot;
	uint8_t shm_held;
	uint8_t shm_hdr_ok;		/* p->hdr holds it */
	uint32_t shm_epoch;
	/* The Ethernet, common and eager headers of an EAGER frame of one
	 * fragment to p but for flags, length, ack, check, sequence number,
	 * message length and match (xmit.h, mxd_partner_hdr_build), so that
	 * a message's frame starts as a copy; rebuilt at the next send after
	 * whatever changes what they hold (port, MACs, the peer's session,
	 * index and filter, the frame sizes) calls mxd_partner_hdr_stale. */
	uint8_t hdr[72] __attribute__((aligned(16)));
	/* What the common header of its frames to us holds, as it comes
	 * (mxd_partner_rx_ok): filter and its session (bytes 12 to 19), our
	 * session (20 to 23), its epoch and endpoint id (3 and 4, the epoch
	 * only if it says it), made again after the same changes. */
	uint64_t rx_key_a;
	uint32_t rx_key_c;
	uint16_t rx_key_e, rx_mask_e;
	uint8_t rx_key_ok;
	uint8_t hdr_ok;
	uint8_t epoch_hdr;		/* its frames carry the epoch
					 * (MXD_CAP_EPOCH) */
	uint8_t remote_ep;
	uint16_t index;			/* ours, sent as src_peer */
	uint16_t remote_index;		/* theirs, sent as dst_peer */
	uint64_t nic_id;
	uint32_t remote_filter;
	uint32_t remote_session;	/* 0 until known, and once lost */
	uint32_t epoch;			/* of our state for it (connect.c) */
	uint32_t epoch_session;		/* the peer session epoch is of */
	uint32_t heard;			/* frames heard from it, wrapping */
	uint32_t bye_mark;		/* mx_close_endpoint: heard then */
	uint64_t last_heard;		/* ns, last valid frame from it */
	mx_status_code_t fail;		/* REFUSED, LOST: why sends fail */
	/* A message of a completed send was refused or lost for good: the
	 * next send or mx_iconnect to the partner fails with this, once,
	 * unless the peer has started over since (a new session: the loss
	 * concerned its past life, and is only counted). */
	mx_status_code_t unreported;	/* MX_STATUS_SUCCESS: none */
	uint32_t unreported_session;	/* the peer's session it concerns */
	/* Frame sizes towards it: the smaller of its MTU (said at connect)
	 * and our board's (mxd_partner_set_mtu). */
	uint16_t mtu;			/* in use both ways */
	uint16_t remote_mtu;		/* as it said, 0: not said */
	uint16_t mtu_said;		/* remote_mtu we logged about */
	uint16_t pull_frag_max;		/* pull reply payload per frame */
	uint8_t mac[MXD_ETH_ALEN];
	uint8_t mark;			/* a scan's (endpoint.c) */
	uint8_t slot;			/* the slot of its board that holds
					 * it (said at connect: MXD_CAP_SLOT),
					 * 0 when not shared or not known: the
					 * queue its frames take (xmit.h) */
	uint32_t hash_next;		/* ep's table by NIC and id: the next
					 * index + 1 in its chain, 0: none */
	void *addr_context;		/* mx_set_endpoint_addr_context */
};

#define MXD_PARTNER_BYTES	256
_Static_assert(sizeof(struct mxd_partner) <= MXD_PARTNER_BYTES,
		"an idle partner's state");

/* The receives of one mask, hashed by match value, and (once 'indexed')
 * the unexpected queue hashed by match & mask (match.c). */
struct mxd_mclass {
	uint64_t mask;
	struct mxd_mtab posted;		/* posted receives with this mask */
	struct mxd_mtab unexp;		/* every queued message, if indexed */
	uint32_t used;			/* ep->mclass_tick when last asked */
	uint32_t rent;			/* messages walked for it, unindexed */
	uint8_t live;			/* given to 'mask' */
	uint8_t indexed;
};

/* Buffers for unexpected and early messages (unexp.c). */
struct mxd_bufpool {
	struct mxd_unexp *free_unexp;
	uint8_t *free_buf[32];		/* one free list per size class */
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
	/* Partners by index, the table growing as they come (doubling, up
	 * to partners_max: MX_MAX_PARTNERS), and by NIC id and endpoint id
	 * (hashed; chains through p->hash_next). */
	uint32_t npartners;
	uint32_t partners_cap;
	uint32_t partners_max;
	struct mxd_partner **partners;	/* [partners_cap] */
	uint32_t *partner_hash;		/* [hash_mask + 1]: index + 1 */
	uint32_t hash_mask;
	struct mxd_partner *partner_spare;	/* the chunk being given out */
	uint32_t partner_spare_n;
	struct mxd_list partner_chunks;	/* the partners' memory */
	/* Traffic state (struct mxd_peer_act), taken by partners when
	 * traffic starts, given back when it ends; its pools. */
	struct mxd_list active;		/* partners holding one */
	uint32_t nactive;
	struct mxd_peer_act *free_act;
	void *free_slots;		/* receive window slots, MXD_WIN each */
	struct mxd_pulljobs *free_jobs;
	uint32_t nact, nslots, njobs;	/* in the pools, taken or not */
	uint32_t free_act_n, free_slots_n, free_jobs_n;	/* not taken */
	uint64_t trim_at;		/* ns: the pools hold more than their
					 * floor since before; 0: they do not
					 * (mxd_ep_pools_trim) */
	struct mxd_list posted;		/* receives not hashed, post order */
	struct mxd_list unexp;		/* unexpected messages, match order */
	struct mxd_mclass mclass[MXD_MCLASSES];	/* [0]: the full mask */
	uint32_t posted_short;		/* on 'posted', to hash if it grows */
	uint32_t posted_short_max;	/* beyond: hashed (tests set 0) */
	uint32_t posted_hashed;		/* in the classes' tables */
	uint64_t post_seq;		/* receives posted so far */
	uint32_t mclass_tick;		/* classes asked for so far */
	uint32_t unexp_n;		/* messages on the unexpected queue */
	struct mxd_list held;		/* other message buffers in use */
	struct mxd_list done;		/* completed requests */
	struct mxd_list sending;	/* partners with queued sends */
	struct mxd_partner *ack_held;	/* the partner (one at most) holding
					 * an ack received (send.c) */
	struct mxd_partner *ack_fast;	/* ack_held, or NULL once anything
					 * but the ack window that its hold
					 * was allowed on changed (send.h) */
	struct mxd_reqpool reqs;
	struct mxd_bufpool bufs;
	struct mxd_txrec *free_txrec;	/* records of MXD_MAX_FRAGS frames */
	struct mxd_txrec *free_txsmall;	/* small records (MXD_TXCOPY_MAX) */
	struct mxd_list txrec_chunks;
	uint32_t txrec_nchunks;
	uint32_t msg_tried;		/* chunks of records and requests at
					 * the last shrink tried (endpoint.c) */
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
	uint32_t npulls;		/* slots of pulls taken */
	struct mxd_pull *pull_free;
	struct mxd_list pulls_waiting;	/* pulls with PULLs not yet sent */
	struct mxd_list pulls_deferred;	/* receives that took an RNDV while
					 * every slot was taken (r->link;
					 * descriptor in r->desc) */
	/* Large receive buffers filled lately, and the bytes pulled in all
	 * once each was (pull.c, pull_cold): how far back each was
	 * written, to tell a buffer still in cache from one long gone. */
	struct { uintptr_t addr; uint64_t at; } recent[MXD_RECENT_BUFS];
	uint64_t pulled;
	/* Timers (timers.c). */
	struct mxd_list acks;		/* partners owing an ack or a notice */
	uint64_t acks_due;		/* ns: none of them is due before
					 * (the earliest due asked; those
					 * not stamped yet not counted) */
	uint8_t acks_stamp;		/* acks owed whose delay has not
					 * started (timers.h) */
	struct mxd_list timed;		/* partners with something in flight
					 * (retransmission, pulls, probes) */
	uint32_t timer_pass;		/* looks since the last timer check */
	uint64_t now;			/* ns, at the last timer check */
	/* What a pass must look at (MXD_EW_*): a bit is set when its list
	 * gains an entry (mxd_ep_busy) and cleared by the pass that finds
	 * the list empty; the board keeps a bit per endpoint with any
	 * (b->ep_busy), and one per endpoint with sends or PULLs queued
	 * (b->ep_pump), so that a pass skips idle endpoints at one test. */
	uint8_t work;
	/* Another API's endpoint (Portals): its face takes every message
	 * in place of MX's matching, and its requests' ends (face.h). */
	const struct mxd_face_ops *face;
	void *face_ctx;
};

#define MXD_EW_SENDS	0x01	/* ep->sending: queued sends */
#define MXD_EW_JOBS	0x02	/* ep->jobq: PULLs to serve */
#define MXD_EW_PULLS	0x04	/* ep->pulls_waiting, pulls_deferred */
#define MXD_EW_ACKS	0x08	/* ep->acks: acks or notices owed */
#define MXD_EW_TIMERS	0x10	/* ep->timed, ep->connects, deadlines,
				 * partners' traffic state (ep->active) */
#define MXD_EW_PUMP	(MXD_EW_SENDS | MXD_EW_JOBS | MXD_EW_PULLS)

/* ep has work of kind 'bit' for the passes (see ep->work). */
static inline void
mxd_ep_busy(struct mx_endpoint *ep, unsigned bit)
{
	ep->work |= (uint8_t)bit;
	ep->board->ep_busy |= 1u << ep->id;
	if (bit & MXD_EW_PUMP) {
		ep->board->ep_pump |= 1u << ep->id;
		ep->board->due |= MXD_DUE_PUMP;
	}
}

/* Something that decides whether an ack may be held (its partner's
 * messages looked at closely, synchronous sends or notices waiting, the
 * endpoint's queued sends: mxd_send_ack_may_hold, send.h) changed: the
 * ack held, if any, no longer takes newer ones without a full look. */
static inline void
mxd_ep_hold_changed(struct mx_endpoint *ep)
{
	ep->ack_fast = NULL;
}

/* The slot of open endpoint ep (board.h). */
static inline struct mxd_ep_slot *
mxd_ep_slot(const struct mx_endpoint *ep)
{
	return &mxd_lib.slot[ep->board->index][ep->id];
}

/* ---- endpoints ---------------------------------------------------------- */

/* A new endpoint 'id' on b (not open yet: mxd_ep_attach). */
struct mx_endpoint *mxd_ep_new(struct mxd_board *b, uint32_t id,
		uint32_t filter, uint32_t unexp_max);
/* Opens it on its board: frames for its id reach it from now on. */
void mxd_ep_attach(struct mx_endpoint *ep);
/* Closes it on its board and frees it (unexp.c and rndv.c released their
 * buffers already). */
void mxd_ep_free(struct mx_endpoint *ep);
struct mx_endpoint *mxd_ep_by_session(uint32_t session);
/* The endpoint with id 'id' open on b, or NULL. */
static inline struct mx_endpoint *
mxd_ep_of(const struct mxd_board *b, uint32_t id)
{
	return id < MX_MAX_ENDPOINTS ? b->ep[id] : NULL;
}

/* The slot of ep if it is an endpoint open now, else NULL: pointers are
 * compared, a closed endpoint's memory is never read (mx_close_endpoint
 * twice; mx_wakeup, without the lock, racing a close: hence the atomic
 * loads, paired with mxd_ep_attach's and mxd_ep_free's stores). */
static inline struct mxd_ep_slot *
mxd_ep_open_slot(const struct mx_endpoint *ep)
{
	for (unsigned i = 0; ep != NULL && i < mxd_lib.nboards; i++) {
		const struct mxd_board *b = mxd_lib.boards[i];

		for (uint32_t m = __atomic_load_n(&b->ep_open, __ATOMIC_ACQUIRE);
				m != 0; m &= m - 1) {
			unsigned id = (unsigned)__builtin_ctz(m);

			if (__atomic_load_n(&b->ep[id], __ATOMIC_ACQUIRE) == ep)
				return &mxd_lib.slot[i][id];
		}
	}
	return NULL;
}

/* Whether ep is an endpoint open now (mxd_ep_open_slot). */
static inline int
mxd_ep_open_now(const struct mx_endpoint *ep)
{
	return mxd_ep_open_slot(ep) != NULL;
}

/*
 * Whether ep is an endpoint open, seen so by a call before: one of
 * mxd_lib.live_hint, forgotten when it closes (mxd_ep_free) and all at
 * mx_finalize.  A compare per endpoint in use, the first for a program
 * on one.
 */
static inline int
mxd_ep_known(const struct mx_endpoint *ep)
{
	const struct mx_endpoint *const *h = mxd_lib.live_hint;

	_Static_assert(MXD_LIVE_HINTS == 4, "four compares");
	return ep == h[0] || ep == h[1] || ep == h[2] || ep == h[3];
}

/* The same for a call under the library lock: an endpoint found open is
 * remembered (in a free slot, else in turn), and the next call on it
 * compares a pointer or a few. */
static inline int
mxd_ep_live(const struct mx_endpoint *ep)
{
	unsigned s;

	if (mxd_ep_known(ep))
		return 1;
	if (ep == NULL || !mxd_ep_open_now(ep))
		return 0;
	for (s = 0; s < MXD_LIVE_HINTS && mxd_lib.live_hint[s] != MXD_NO_EP;
			s++)
		;
	if (s == MXD_LIVE_HINTS)
		s = mxd_lib.live_next++ % MXD_LIVE_HINTS;
	mxd_lib.live_hint[s] = ep;
	return 1;
}

/* A request of ep's pool. */
static inline struct mx_request *
mxd_ep_req(struct mx_endpoint *ep, enum mxd_req_type t, void *context)
{
	return mxd_req_get(&ep->reqs, ep, t, context);
}

/* A completed request nobody tests: freed (mx_forget), or given to its
 * endpoint's face (MXD_FORGET_FACE) and freed. */
void mxd_req_forgotten(struct mx_request *r);

/*
 * Completed request r, on no list, onto ep's completion list (ep->done).
 * Most are tested before another completes (mx_test's pass that
 * completes the receive it tests, a send done at once): the newest is
 * held apart (ep->reqs.done_last), neither linked nor, when tested from
 * there, unlinked; the one held before goes onto the list.  Whoever
 * reads the list settles it first (mxd_ep_done_settle), so that the
 * order of completion stands; mxd_req_put takes a request from either
 * place.  mxd_ep_done_tail: straight onto the list, where the caller
 * knows others to complete with r (a PACK frame's messages).
 */
static inline void
mxd_ep_done_add(struct mx_endpoint *ep, struct mx_request *r)
{
	struct mx_request *last = ep->reqs.done_last;

	ep->reqs.done_last = r;
	if (last != NULL)
		mxd_list_add_tail(&ep->done, &last->done);
}

/* ep's completion list whole: the request held apart at its end. */
static inline void
mxd_ep_done_settle(struct mx_endpoint *ep)
{
	struct mx_request *last = ep->reqs.done_last;

	if (last != NULL) {
		ep->reqs.done_last = NULL;
		mxd_list_add_tail(&ep->done, &last->done);
	}
}

static inline void
mxd_ep_done_tail(struct mx_endpoint *ep, struct mx_request *r)
{
	if (__builtin_expect(ep->reqs.done_last != NULL, 0))
		mxd_ep_done_settle(ep);
	mxd_list_add_tail(&ep->done, &r->done);
}

/* Whether ep has a completed request not tested yet. */
static inline int
mxd_ep_done_any(const struct mx_endpoint *ep)
{
	return ep->reqs.done_last != NULL || !mxd_list_empty(&ep->done);
}

/* Ends r, on no list, with 'code': onto the completion list (or freed:
 * mx_forget; or its face's).  Inline: every message completes one. */
static inline void
mxd_req_done(struct mx_request *r, mx_status_code_t code)
{
	mxd_req_set_state(r, MXD_RS_COMPLETE);
	r->status.code = code;
	if (r->deadline) {
		r->deadline = 0;
		r->ep->ntimed--;
	}
	if (r->forget)
		mxd_req_forgotten(r);	/* nobody will test it */
	else
		mxd_ep_done_add(r->ep, r);
}

/* The same for r on a list (a queue of sends, of receives, of pulls):
 * off it first. */
static inline void
mxd_req_complete(struct mx_request *r, mx_status_code_t code)
{
	mxd_list_del(&r->link);
	mxd_req_done(r, code);
}

/*
 * The memory an endpoint holds for its partners, in bytes: what every
 * known partner costs (its struct mxd_partner, in chunks, and its slots
 * in the table and the hash), and the pools of what partners with
 * traffic take (traffic states, receive windows' slots, PULL queues),
 * with how many of each are taken now.  For tests, benchmarks and
 * mx_info.
 */
struct mxd_ep_mem {
	uint32_t partners;		/* known */
	size_t partner_bytes;		/* partners, table and hash */
	uint32_t active, act_taken;	/* with traffic state; states taken */
	uint32_t acts, slots, jobs;	/* in the pools, taken or not */
	uint32_t slots_taken, jobs_taken;
	size_t pool_bytes;		/* the three pools' chunks */
};
void mxd_ep_mem(const struct mx_endpoint *ep, struct mxd_ep_mem *m);

/*
 * The three pools of traffic state give back to the heap what they hold
 * free beyond their floor (a few dozen objects) once they have held it
 * for MXD_POOL_HOLD_NS: at the timers' look (now), a bounded number at a
 * time.  The pools of messages (frame records, requests) go back to
 * their first chunk too at such a look that finds every partner idle, if
 * all they made is free then (tried once per growth).  After an all-to-all,
 * an endpoint's idle partners cost their struct mxd_partner again;
 * traffic that comes back within the hold finds its states in the pool.
 * Returns nonzero while the pools are above their floor (the look must
 * come again).
 */
#define MXD_POOL_HOLD_NS	1000000000ull
#define MXD_ACT_KEEP		64	/* the floors: kept free for good */
#define MXD_SLOTS_KEEP		16
#define MXD_JOBS_KEEP		8
int mxd_ep_pools_trim(struct mx_endpoint *ep, uint64_t now);

/* Chunks of frame records and of requests ep has made. */
static inline uint32_t
mxd_ep_msg_chunks(const struct mx_endpoint *ep)
{
	return ep->txrec_nchunks + ep->reqs.allocated / MXD_REQ_CHUNK;
}

/* Whether ep's pools hold no more free than their floors (the pools of
 * messages: while a partner has traffic, or since the last shrink
 * tried). */
static inline int
mxd_ep_pools_floor(const struct mx_endpoint *ep)
{
	return ep->free_act_n <= MXD_ACT_KEEP &&
		ep->free_slots_n <= MXD_SLOTS_KEEP &&
		ep->free_jobs_n <= MXD_JOBS_KEEP &&
		(ep->nactive != 0 || mxd_ep_msg_chunks(ep) == ep->msg_tried);
}

/* ---- partners ----------------------------------------------------------- */

/* The partner of ep at NIC nic, endpoint remote_ep (hashed), or NULL. */
struct mxd_partner *mxd_partner_find(struct mx_endpoint *ep, uint64_t nic,
		uint32_t remote_ep);
struct mxd_partner *mxd_partner_new(struct mx_endpoint *ep, uint64_t nic,
		uint32_t remote_ep);
void mxd_partner_set_state(struct mxd_partner *p, enum mxd_peer_state s);

/*
 * Traffic state (struct mxd_peer_act).  Whatever starts traffic with p
 * (a send, a frame from it, a connect, a pull, a notice) takes it first
 * (mxd_partner_act: p->a, from the pool if NULL; NULL out of memory);
 * the timers' look gives it back once mxd_partner_idle_now(p) says
 * nothing of it is left (progress/timers_run.c).  Code that only reads
 * whether something is going on with p looks at p->a first.
 */
struct mxd_peer_act *mxd_partner_act_take(struct mxd_partner *p);
static inline struct mxd_peer_act *
mxd_partner_act(struct mxd_partner *p)
{
	return p->a != NULL ? p->a : mxd_partner_act_take(p);
}
int mxd_partner_idle_now(const struct mxd_partner *p);
/* A same-host partner heard this recently (a message taken from its
 * ring: p->last_heard) is not idle (engine/shm.c). */
#define MXD_SHM_KEEP_NS	10000000ull
void mxd_partner_act_put(struct mxd_partner *p);
/* p's receive window's slots (p->rx.slot), from the pool if it has
 * none; 0, or -1 out of memory.  p holds traffic state.  They go back
 * as soon as the window holds nothing (rx.top == rx.base: every slot
 * inactive), mxd_partner_slots_put. */
int mxd_partner_slots(struct mxd_partner *p);
void mxd_partner_slots_put(struct mxd_partner *p);
/* p's queues of PULLs to serve, from the pool if it has none; NULL out
 * of memory.  p holds traffic state.  They go back once served,
 * mxd_partner_jobs_put. */
struct mxd_pulljobs *mxd_partner_jobs(struct mxd_partner *p);
void mxd_partner_jobs_put(struct mxd_partner *p);
/* Drops what is in flight and starts both windows over at message 1,
 * with the peer's session 'remote_session' (0: none). */
void mxd_partner_reset(struct mxd_partner *p, uint32_t remote_session);
/* Whether p's windows are at their start (nothing sent or received). */
int mxd_partner_fresh(const struct mxd_partner *p);

/* The frame sizes towards p from the MTU it said at connect (0: not
 * said, our board's holds): the smaller of its and ours, at least
 * MXD_MTU_MIN.  Returns 1 if it said an MTU other than our board's. */
int mxd_partner_set_mtu(struct mxd_partner *p, uint32_t remote_mtu);
/* p->fast_max and p->fly_max from p's state, sizes, capabilities and
 * loss to report: called where any of them changes. */
void mxd_partner_fast(struct mxd_partner *p);

/* What p's frame headers hold changed (port, MACs, the peer's session,
 * index or filter): its header template is rebuilt before the next use. */
static inline void
mxd_partner_hdr_stale(struct mxd_partner *p)
{
	p->hdr_ok = 0;
	p->rx_key_ok = 0;
}

/* p's rx_key (see struct mxd_partner) from what p holds now; 0 when its
 * session is not known (no frame of it can be taken). */
int mxd_partner_rx_key(struct mxd_partner *p);

/* Whether the common header h of a frame is one p sends us now: the
 * checks of mxd_rx_partner (engine/recv.h) past the endpoint and the
 * partner index, in three compares. */
static inline int
mxd_partner_rx_ok(struct mxd_partner *p, const uint8_t *h)
{
	uint64_t a;
	uint32_t c;
	uint16_t e;

	if (!p->rx_key_ok && !mxd_partner_rx_key(p))
		return 0;
	memcpy(&a, h + 12, 8);
	memcpy(&c, h + 20, 4);
	memcpy(&e, h + 3, 2);
	return a == p->rx_key_a && c == p->rx_key_c &&
		((e ^ p->rx_key_e) & p->rx_mask_e) == 0;
}

/* Messages may go to p (a session is known and nothing failed). */
static inline int
mxd_partner_up(const struct mxd_partner *p)
{
	return p->state == MXD_PS_UP;
}

/* The address of p as the application sees it, and back.  The address
 * holds the NIC id and endpoint id (word 0), and our session and p's
 * index (word 1): an address of another (or a closed) endpoint is
 * recognised instead of trusted.  mxd_addr_partner returns NULL for an
 * address this endpoint has no partner for. */
static inline void
mxd_partner_addr_of(const struct mxd_partner *p, mx_endpoint_addr_t *a)
{
	a->stuff[0] = (p->nic_id & 0xffffffffffffull) |
		((uint64_t)p->remote_ep << 48);
	a->stuff[1] = ((uint64_t)p->ep->session << 32) | (p->index + 1u);
}

/* ... given to the program: p is kept for the endpoint's life. */
static inline void
mxd_partner_addr(struct mxd_partner *p, mx_endpoint_addr_t *a)
{
	p->used = 1;
	mxd_partner_addr_of(p, a);
}

/* The same, for p with traffic state: copied from p->a->addr. */
static inline void
mxd_partner_addr_act(struct mxd_partner *p, mx_endpoint_addr_t *a)
{
	p->used = 1;
	*a = p->a->addr;
}

static inline struct mxd_partner *
mxd_addr_partner(struct mx_endpoint *ep, const mx_endpoint_addr_t *a)
{
	uint32_t idx = (uint32_t)(a->stuff[1] & 0xffff);
	uint64_t nic = a->stuff[0] & 0xffffffffffffull;
	uint32_t id = (uint32_t)(a->stuff[0] >> 48);

	if ((uint32_t)(a->stuff[1] >> 32) == ep->session && idx != 0 &&
			idx <= ep->npartners) {
		struct mxd_partner *p = ep->partners[idx - 1];

		/* (a partner given out is never reused: this is a forged
		 * or corrupt address) */
		if ((p->nic_id & 0xffffffffffffull) == nic &&
				p->remote_ep == id)
			return p;
	}
	/* An address another endpoint made (or our own): by NIC and id. */
	return mxd_partner_find(ep, nic, id);
}
/* The partner an address names, in whichever endpoint made it. */
struct mxd_partner *mxd_addr_lookup(const mx_endpoint_addr_t *a);

/* Records of messages in flight (a message takes one, its ack frees it:
 * inline).  mxd_txrec_grow adds a chunk of records of frames, or of small
 * records ('small'); 0 or -1. */
int mxd_txrec_grow(struct mx_endpoint *ep, int small);

static inline struct mxd_txrec *
mxd_txrec_get(struct mx_endpoint *ep)
{
	struct mxd_txrec *r;

	if (ep->free_txrec == NULL && mxd_txrec_grow(ep, 0) < 0)
		return NULL;
	r = ep->free_txrec;
	ep->free_txrec = r->pool_next;
	r->nframes = 0;
	return r;
}

static inline struct mxd_txrec *
mxd_txsmall_get(struct mx_endpoint *ep)
{
	struct mxd_txrec *r;

	if (ep->free_txsmall == NULL && mxd_txrec_grow(ep, 1) < 0)
		return NULL;
	r = ep->free_txsmall;
	ep->free_txsmall = r->pool_next;
	return r;
}

/* A small record's fields for message seq (len bytes, 'match') sent once,
 * no request waiting (MPI standard mode): all but its data. */
static inline void
mxd_txrec_small(struct mxd_txrec *r, uint32_t seq, uint32_t len,
		uint64_t match)
{
	/* In the order of the fields: the constants' stores merge. */
	r->seq = seq;
	r->refs = 1;
	r->nframes = 1;
	r->small = 1;
	r->rto_still = 0;
	r->done = 1;
	r->flags = 0;
	r->pad = 0;
	r->nmsgs = 1;
	r->pad2 = 0;
	r->len = len;
	r->retx = 0;
	r->sent_at = 0;
	r->match = match;
	r->have = 0;
	r->sent = 1;
	r->have_rto = 0;
	r->req = NULL;
}

/* Gives r back to its pool, with the frames it holds. */
static inline void
mxd_txrec_put(struct mx_endpoint *ep, struct mxd_txrec *r)
{
	if (r->small) {
		r->pool_next = ep->free_txsmall;
		ep->free_txsmall = r;
		return;
	}
	if (r->nframes)
		mxd_board_free(ep->board, r->frames, r->nframes);
	r->nframes = 0;
	r->pool_next = ep->free_txrec;
	ep->free_txrec = r;
}

/* A slot of p->a->inflight lets go of r (the last one: back to the pool). */
static inline void
mxd_txrec_drop(struct mx_endpoint *ep, struct mxd_txrec *r)
{
	if (--r->refs == 0)
		mxd_txrec_put(ep, r);
}

#endif /* MXD_ENDPOINT_H */
