/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boards: the link layer at the bottom of the engine.  A board is a group
 * of links (DPDK ports) with one NIC id (its first port's MAC) and name;
 * it owns a tx queue per port, the loopback ring for frames to its own
 * endpoints, and the counters.  It moves frames and reports links; it
 * never calls up: receiving is the progress layer's rx burst over
 * mxd_board_rx(), and what a frame means is decided there.
 */
#ifndef MXD_BOARD_H
#define MXD_BOARD_H

#include <stdint.h>
#include <string.h>

#include "myriexpress.h"
#include "glue.h"
#include "link.h"
#include "wire.h"
#include "util/config.h"
#include "util/stats.h"
#include "board/host.h"

#define MXD_MAX_BOARDS		8
#define MXD_BOARD_PORTS		8
#define MXD_TXQ_SIZE		1024	/* frames queued per link, 2^n */
#define MXD_LOOP_SIZE		1024	/* loopback ring, 2^n */
#define MXD_BURST		32
/* Received frames are let go MXD_RX_FREE or more at a time (rx_done):
 * few, so that the buffers in turn stay few (and in cache). */
#define MXD_RX_FREE		8
#define MXD_RX_HOLD		(MXD_RX_FREE - 1 + MXD_BURST)

struct mx_endpoint;
struct mxd_shm;

struct mxd_txq {
	uint32_t head, tail;		/* free-running */
	struct mxd_frame f[MXD_TXQ_SIZE];
};

/* Frames a port's link allocated at once, for the frames of one buffer
 * that the engine fills one at a time (mxd_board_alloc): a call to the
 * link per MXD_TX_STOCK of them, not per message (and few of them, as
 * MXD_RX_FREE). */
#define MXD_TX_STOCK	8

struct mxd_txstock {
	unsigned n;
	struct mxd_frame f[MXD_TX_STOCK];
};

/* Bits of mxd_board.due: work beyond the rx burst may wait. */
#define MXD_DUE_TX	0x01	/* frames in a tx queue (tx_queued) */
#define MXD_DUE_LOOP	0x02	/* frames in the loopback ring */
#define MXD_DUE_NT	0x04	/* stores around the caches to fence */
#define MXD_DUE_PUMP	0x08	/* endpoints with sends or PULLs queued */
#define MXD_DUE_LOOK	0x10	/* look_now */
#define MXD_DUE_PORTS	0x20	/* several ports, or a host segment's
				 * rings (b->pass_any: for good) */

struct mxd_board {
	unsigned index;
	uint64_t nic_id;
	char name[MX_MAX_HOSTNAME_LEN];
	unsigned nports;
	struct mxd_link *port[MXD_BOARD_PORTS];
	unsigned link_index[MXD_BOARD_PORTS];	/* index in the global table */
	uint64_t cut_seen[MXD_BOARD_PORTS];	/* link->cut already counted */
	uint64_t long_seen[MXD_BOARD_PORTS];	/* link->too_long counted */
	uint64_t news_seen[MXD_BOARD_PORTS];	/* link->news looked at */
	uint32_t long_said;			/* bit per port: warned */
	uint32_t mtu;			/* the smallest port's: frames we take
					 * whole, sent at connect (connect.c) */
	uint32_t frag_max;		/* eager payload per frame */
	uint32_t pull_frag_max;		/* pull reply payload per frame */
	uint32_t eager_max;		/* largest eager message */
	/* Endpoints open on the board, by id: where received frames go. */
	struct mx_endpoint *ep[MX_MAX_ENDPOINTS];
	uint32_t ep_open;		/* bit per open endpoint id */
	uint32_t ep_busy;		/* bit per endpoint with work for the
					 * passes (endpoint.h, mxd_ep_busy) */
	uint32_t ep_pump;		/* of those, with queued sends or
					 * PULLs: pumped every pass */
	uint32_t look_pass;		/* passes since the endpoints' timers
					 * were looked at (progress.c) */
	uint8_t look_now;		/* a notice waits: the next pass looks */
	/* A pass of a call (progress.c, mxd_progress) is the burst alone
	 * while nothing else is due: 'due' says something may be (a bit
	 * per kind, MXD_DUE_*: set by whoever makes the work, cleared by
	 * the pass that finds it done), 'pass_left' counts the passes down
	 * to the next look at the timers, the link watch and the other
	 * boards. */
	uint32_t due;
	uint32_t pass_left;
	struct mxd_txq txq[MXD_BOARD_PORTS];
	struct mxd_txstock stock[MXD_BOARD_PORTS];
	uint32_t tx_queued;		/* bit per port whose queue holds
					 * frames: flush looks at no other */
	uint32_t loop_head, loop_tail;
	struct mxd_frame loop[MXD_LOOP_SIZE];
	/* The frames of the last rx bursts, dispatched, let go together
	 * (recycled into port 0's stock, or freed) once MXD_RX_FREE or more
	 * wait (mxd_board_rx_at), or freed at fini: that comes after the
	 * application has its message and has answered it, not on the way
	 * from the frame to the application, and is one call to the link
	 * for several frames, not one per pass. */
	struct mxd_frame rx_done[MXD_RX_HOLD];
	unsigned rx_done_n;
	uint8_t nt_stores;		/* this pass wrote pull replies around
					 * the caches (rndv.c): fenced before
					 * its rx ends (progress.c) */
	uint64_t *counters;		/* MXD_C_MAX, in the stats segment */
	struct mxd_stats stats;
	uint32_t nic_collision;		/* peers seen with our NIC id */
	uint8_t reviving[MXD_BOARD_PORTS];	/* down, being brought back */
	uint64_t watch_due;		/* ns: the next mxd_board_watch */
	/* A board shared by the processes of a host (host.h): the host
	 * segment, NULL when this process owns the board alone, and this
	 * process's slot in it. */
	struct mxd_host *host;
	unsigned slot;
	/* Bit per slot of the host whose same-host rings this process
	 * still uses: a dead slot is let go (shared.c) once its bit is
	 * clear. */
	uint64_t rings_held;
	/* The board service is gone (shared.c): 1 when the watch found it,
	 * 2 once the endpoints were told (progress/timers_run.c). */
	uint8_t orphan;
	/* The same-host path's state while the board has a host segment
	 * (engine/shmsend.h), else NULL. */
	struct mxd_shm *shm;
	/* Not 0: a pass takes the board's general way (progress.c,
	 * board_pass): several ports (nports - 1), or a host segment's
	 * rings to poll (MXD_PASS_SHM). */
	uint32_t pass_any;
};

#define MXD_PASS_SHM	0x80000000u	/* b->pass_any: rings to poll */

/*
 * What blocking calls and mx_wakeup keep of an endpoint, by its slot, not
 * in the endpoint: mx_wakeup bumps the generation without the library
 * lock (a signal handler may call it), so a wakeup racing a close never
 * writes into a freed endpoint (at worst it wakes the slot's next
 * endpoint's waits, which return as after a timeout); and a close frees
 * the endpoint only once no thread waits on it (wait.c).
 */
struct mxd_ep_slot {
	uint32_t wakeup_gen;	/* mx_wakeup: +1 (atomic) */
	uint32_t waiters;	/* threads in a blocking call on it */
	uint8_t closing;	/* mx_close_endpoint has begun */
};

#define MXD_LIVE_HINTS	4	/* endpoints remembered open */

/* A free slot of mxd_lib.live_hint: the address of mxd_lib, which no
 * endpoint has. */
#define MXD_NO_EP	((const struct mx_endpoint *)(const void *)&mxd_lib)

/* The process's boards and links. */
struct mxd_lib {
	int initialized;
	unsigned nboards;
	struct mxd_board *boards[MXD_MAX_BOARDS];
	struct mxd_link *links[MXD_GLUE_MAX_PORTS];
	unsigned nlinks;
	int eal_reused;
	/* Endpoints API calls found open lately (mxd_ep_live), so that the
	 * calls of a program on a few endpoints look no further; a slot
	 * holds MXD_NO_EP when free (never NULL: a NULL handle matches
	 * none), and is freed when its endpoint closes.  Written under the
	 * library lock only. */
	const struct mx_endpoint *live_hint[MXD_LIVE_HINTS];
	unsigned live_next;		/* the slot a new one takes */
	/* Per endpoint slot (board index, endpoint id): what outlives the
	 * endpoint that holds the slot (wait.c). */
	struct mxd_ep_slot slot[MXD_MAX_BOARDS][MX_MAX_ENDPOINTS];
};

extern struct mxd_lib mxd_lib;

/* Groups lib->links into boards (MX_BOARDS spec, or one per link). */
int mxd_boards_init(struct mxd_lib *lib, const struct mxd_config *c);
void mxd_boards_fini(struct mxd_lib *lib);
struct mxd_board *mxd_board_by_nic(uint64_t nic_id);
int mxd_board_port_up(struct mxd_board *b, unsigned port);
/* Ports that are down and do not come back by themselves (a memif client
 * whose server went away) are restarted; said once per outage; the memif
 * fault guard is put back in front of a signal handler installed since.
 * Called every MXD_WATCH_MS (timers.c). */
void mxd_board_watch(struct mxd_board *b);
/* Refreshes the gauge "frame buffers in use" (the watch does, every
 * MXD_WATCH_MS, and a read of the counters). */
void mxd_board_in_use(struct mxd_board *b);
#define MXD_WATCH_MS	200

static inline void
mxd_count(struct mxd_board *b, enum mxd_counter c)
{
	b->counters[c]++;
}

/* A frame dropped, counted under its reason. */
static inline void
mxd_count_drop(struct mxd_board *b, enum mxd_drop why)
{
	b->counters[MXD_C_DROP_BASE + why]++;
}

/* ---- transmit: queues, then bursts ------------------------------------- */

/* Room on a port's tx queue (port) or the loopback ring, in frames.
 * These and the pushes are inline: every frame sent takes them. */
static inline unsigned
mxd_txq_room(const struct mxd_board *b, unsigned port)
{
	const struct mxd_txq *q = &b->txq[port];

	return MXD_TXQ_SIZE - (q->tail - q->head);
}

static inline unsigned
mxd_loop_room(const struct mxd_board *b)
{
	return MXD_LOOP_SIZE - (b->loop_tail - b->loop_head);
}

/* Queues a frame for a port, or for the loopback ring; 'sealed' frames
 * (retransmissions, frames checked as they were filled) go unchanged,
 * the others get their integrity check first. */
static inline void
mxd_txq_push(struct mxd_board *b, unsigned port, struct mxd_frame *f,
		int sealed)
{
	struct mxd_txq *q = &b->txq[port];

	if (!sealed)
		mxd_wire_seal(f->data);
	q->f[q->tail++ & (MXD_TXQ_SIZE - 1)] = *f;
	b->tx_queued |= 1u << port;
	b->due |= MXD_DUE_TX;
	mxd_count(b, MXD_C_TX_FRAMES);
}

/*
 * A sealed frame that may leave at once (the lone message of a send
 * call, which flushes right after anyway): handed to the PMD now when
 * nothing waits before it on the port's queue, without the queue's round
 * trip; else, or when the PMD does not take it, queued like any other.
 */
static inline void
mxd_txq_now(struct mxd_board *b, unsigned port, struct mxd_frame *f)
{
	struct mxd_link *l = b->port[port];

	if (b->txq[port].head == b->txq[port].tail &&
			l->ops->tx_burst(l, f, 1) == 1) {
		mxd_count(b, MXD_C_TX_FRAMES);
		return;
	}
	mxd_txq_push(b, port, f, 1);
}

static inline void
mxd_loop_push(struct mxd_board *b, struct mxd_frame *f, int sealed)
{
	if (!sealed)
		mxd_wire_seal(f->data);
	b->loop[b->loop_tail++ & (MXD_LOOP_SIZE - 1)] = *f;
	b->due |= MXD_DUE_LOOP;
	mxd_count(b, MXD_C_LOOP_FRAMES);
}
/* Hands every queued frame the PMD takes to it, in bursts.  Called at
 * the end of every API call and pass: with nothing queued, one test. */
void mxd_board_flush_queued(struct mxd_board *b);

static inline void
mxd_board_flush(struct mxd_board *b)
{
	if (b->tx_queued)
		mxd_board_flush_queued(b);
}
/* Whether frames wait in any tx queue of the board. */
int mxd_board_tx_pending(const struct mxd_board *b);

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

/* The stock of 'port' is empty: refilled, and one frame of it in *f; or
 * the one frame the link has left; 0, or -1 when out of buffers. */
int mxd_board_restock(struct mxd_board *b, unsigned port,
		struct mxd_frame *f);

/*
 * One frame for the caller to fill and send (or free) on 'port', as the
 * link's alloc() of one would give: from the port's stock, which the
 * link fills MXD_TX_STOCK at a time; 0, or -1 when out of buffers.
 * Inline: every small message's frame comes from here.
 */
static inline int
mxd_board_alloc(struct mxd_board *b, unsigned port, struct mxd_frame *f)
{
	struct mxd_txstock *s = &b->stock[port];

	if (s->n == 0)
		return mxd_board_restock(b, port, f);
	*f = s->f[--s->n];
	return 0;
}

/* ---- receive: the progress layer's bursts ------------------------------ */

/* What a port said since we last looked: bursts cut short, frames too
 * long (rare: counted, and said once). */
void mxd_board_rx_news(struct mxd_board *b, unsigned port);

/* Up to n frames received on a port (bursts the port cut short and
 * frames too long counted); the caller counts and frees them.  Inline:
 * every pass calls it. */
static inline unsigned
mxd_board_rx(struct mxd_board *b, unsigned port, struct mxd_frame *f,
		unsigned n)
{
	struct mxd_link *l = b->port[port];
	uint16_t got = l->ops->rx_burst(l, f, (uint16_t)n);

	if (l->news != b->news_seen[port])
		mxd_board_rx_news(b, port);
	return got;
}
/* Frames waiting on the loopback ring. */
static inline unsigned
mxd_loop_queued(const struct mxd_board *b)
{
	return b->loop_tail - b->loop_head;
}

/* Up to n frames from the loopback ring; the caller frees them. */
unsigned mxd_board_loop_rx(struct mxd_board *b, struct mxd_frame *f,
		unsigned n);
/* Drops a reference of each of n frames (none: nothing to call). */
static inline void
mxd_board_free(struct mxd_board *b, struct mxd_frame *f, unsigned n)
{
	if (n)
		b->port[0]->ops->free(f, n);
}
/* Frees the frames of the last bursts (b->rx_done), if any. */
static inline void
mxd_board_rx_done(struct mxd_board *b)
{
	mxd_board_free(b, b->rx_done, b->rx_done_n);
	b->rx_done_n = 0;
}

/* The frames of the last bursts (b->rx_done), at least one, let go: into
 * port 0's stock of frames to send, as many as it has room for and its
 * link makes such frames of (recycle), the others freed. */
void mxd_board_rx_release(struct mxd_board *b);

/* Where the next burst's frames go: after those kept (b->rx_done), once
 * those are let go if MXD_RX_FREE or more wait (a whole burst fits after
 * fewer). */
static inline struct mxd_frame *
mxd_board_rx_at(struct mxd_board *b)
{
	if (b->rx_done_n >= MXD_RX_FREE)
		mxd_board_rx_release(b);
	return &b->rx_done[b->rx_done_n];
}
/* One more reference on each of n frames (kept for retransmission). */
static inline void
mxd_board_ref(struct mxd_board *b, struct mxd_frame *f, unsigned n)
{
	b->port[0]->ops->ref(f, n);
}

#endif /* MXD_BOARD_H */
