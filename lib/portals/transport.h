/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals core's view of the network: a transport.
 *
 * The core (lib/portals) owns everything Portals means: interfaces,
 * portal tables, match lists, memory descriptors, event queues, access
 * control.  A transport moves messages between processes and knows
 * nothing of that: it is given operations to start (a put, a get), and it
 * reports to the core what arrives and how each transfer ends.  The
 * engine's transport carries each Portals message as one engine message
 * (reliable, in order per pair of endpoints, small ones eager, large ones
 * pulled by the receiver), with the Portals header of proto/portals_wire.h
 * first in its body; the tests' loopback
 * (tests/portals/loopback.c) delivers inside one process.
 *
 * Down (core to transport): the const table struct mxd_ptl_tp_ops, each
 * call with the transport's own state for the interface ('tp', which it
 * returned from ni_open).  Up (transport to core): the mxd_ptl_* functions
 * below, each with the core's interface, which ni_open was given.
 *
 * Rules every transport keeps:
 *   - Every call both ways is made with the library lock held (util/
 *     lock.h): the core's calls come from API calls; the transport makes
 *     its calls from its progress, which runs inside progress(), wait() or
 *     put()/get() (loopback), or in the engine's progression thread while
 *     it has borrowed the library.
 *   - Nothing blocks but wait().
 *   - Exactly-once: each put() that returns 0 ends with one
 *     mxd_ptl_put_done() (one that returns 1 is over); each get()
 *     with mxd_ptl_rx_reply() returning DONE, or ACCEPT and then one
 *     mxd_ptl_rx_end(), or one mxd_ptl_get_failed(); each ACCEPT of
 *     mxd_ptl_rx_request() with one mxd_ptl_rx_end().  Nothing moves
 *     into or out of a region after the call that ends its transfer.
 *   - Order: requests from one process reach mxd_ptl_rx_request() (or
 *     mxd_ptl_rx_put()) at another in the order they were started (the engine's order per
 *     pair).  A put's mxd_ptl_put_done() comes before its acknowledgement
 *     is given to mxd_ptl_rx_ack().
 *   - The structs given to put() and get(), and filled by rx_request()
 *     and rx_reply(), live on the core's stack: the transport copies them
 *     and passes its copies back.
 */
#ifndef MXD_PTL_TRANSPORT_H
#define MXD_PTL_TRANSPORT_H

#include <stdint.h>

#include "portals3.h"
#include "portals_wire.h"

struct mxd_ptl_ni;		/* the core's interface (opaque here) */

/*
 * Bytes of a memory descriptor: 'length' bytes from 'offset' of it,
 * either contiguous (base: the descriptor's first byte) or in segments
 * (iov, niov: the descriptor's copy of its ptl_md_iovec_t array, which
 * stays as it is while the operation is pending).  Read and write it with
 * mxd_ptl_region_*(), which know both.
 */
struct mxd_ptl_region {
	uint8_t *base;
	const ptl_md_iovec_t *iov;
	uint32_t niov;
	ptl_size_t offset;
	ptl_size_t length;
};

/* Copies n bytes into / out of the region, at 'at' bytes from its start
 * (at + n <= r->length). */
void mxd_ptl_region_write(const struct mxd_ptl_region *r, ptl_size_t at,
		const void *src, ptl_size_t n);
void mxd_ptl_region_read(const struct mxd_ptl_region *r, ptl_size_t at,
		void *dst, ptl_size_t n);
/* The contiguous bytes of the region at 'at': sets *p, returns how many
 * (0 at the end), for a transport that scatters or gathers in place. */
ptl_size_t mxd_ptl_region_span(const struct mxd_ptl_region *r, ptl_size_t at,
		uint8_t **p);

/* An operation this process starts (put or get). */
struct mxd_ptl_op {
	/* What goes on the wire: kind MXD_PTL_PUT or MXD_PTL_GET, and every
	 * field of the request.  op_cookie is the transport's to set (its
	 * name for the operation, which acknowledgements and replies echo);
	 * the core leaves 0 there. */
	struct mxd_ptl_hdr hdr;
	ptl_process_id_t target;
	/* PUT: the bytes to send (hdr.rlength of them); GET: where the
	 * reply goes (at most hdr.rlength bytes). */
	struct mxd_ptl_region region;
};

/* How an incoming request (or reply) is taken. */
struct mxd_ptl_tgt {
	/* PUT, REPLY: where the data goes; GET: what to reply with.
	 * region.length is the length to move (mlength). */
	struct mxd_ptl_region region;
	/* GET: the REPLY to send back to the initiator (hdr.src_nid and
	 * hdr.src_pid of the request), with region's bytes; when the get
	 * is dropped it is flagged MXD_PTL_F_DROPPED and carries none. */
	struct mxd_ptl_hdr reply;
	/* The core's: passed back untouched in mxd_ptl_rx_end(). */
	struct mxd_ptl_hdr req;
	ptl_handle_md_t md;
	ptl_size_t offset;
	ptl_seq_t link;
	uint8_t kind;
};

/* What the core says of an incoming message. */
enum mxd_ptl_verdict {
	MXD_PTL_DROP = 0,	/* discard it (counted); for a GET, send
				 * tgt->reply (flagged DROPPED) */
	MXD_PTL_ACCEPT = 1,	/* move tgt->region.length bytes, then call
				 * mxd_ptl_rx_end() */
	MXD_PTL_DONE = 2,	/* (replies) nothing to move: the get is over */
};

/* Who this process is on an interface (ni_open). */
struct mxd_ptl_ident {
	ptl_process_id_t id;
	ptl_uid_t uid;
	ptl_jid_t jid;
};

struct mxd_ptl_tp_ops {
	/* ---- control path ---- */
	/* PtlInit: readies the network; returns the number of interfaces
	 * (boards), or -PTL_FAIL. */
	int (*init)(void);
	/* PtlFini, after every interface is closed. */
	void (*fini)(void);
	/* Opens interface iface (0 ..) for process id pid (PTL_PID_ANY: the
	 * first free one).  0 with *me and *tp set; or -PTL_INIT_INV (no
	 * such interface), -PTL_INV_PROC (pid out of range or taken),
	 * -PTL_NOSPACE.  ni is the core's, for the calls up. */
	int (*ni_open)(struct mxd_ptl_ni *ni, ptl_interface_t iface,
			ptl_pid_t pid, struct mxd_ptl_ident *me, void **tp);
	/* Closes it: every operation of the interface ends with no call up,
	 * nothing moves into or out of the process's memory after it
	 * returns, and every message for it is dropped from then on. */
	void (*ni_close)(void *tp);
	/* PtlNIDist: 0 with *dist, or -PTL_INV_PROC. */
	int (*dist)(void *tp, ptl_process_id_t id, unsigned long *dist);
	/* Whether a process id can be a target: 0, or -PTL_INV_PROC (e.g.
	 * a pid out of range).  Called before put() and get(). */
	int (*check)(void *tp, ptl_process_id_t id);

	/* ---- initiator ---- */
	/* Starts sending op->hdr and the bytes of op->region to op->target;
	 * never blocks and cannot refuse.  Returns 1 if the put is over
	 * already, its bytes copied out (no mxd_ptl_put_done() comes: its
	 * SEND_END is the core's to log), else 0: its end, or a failure (no
	 * such process, a peer lost, no resources), is reported by
	 * mxd_ptl_put_done(), which may be called before put() returns. */
	int (*put)(void *tp, const struct mxd_ptl_op *op);
	/* Starts a get: sends op->hdr; the reply comes through
	 * mxd_ptl_rx_reply(), a failure through mxd_ptl_get_failed() (which
	 * may be called before get() returns). */
	void (*get)(void *tp, const struct mxd_ptl_op *op);

	/* ---- progress and waiting ---- */
	/* One pass of progress, without blocking (PtlEQGet polls with it). */
	void (*progress)(void *tp);
	/* Makes progress until done(arg), timeout_ms milliseconds pass
	 * (UINT32_MAX: none) or wakeup(); lets other threads into the
	 * library while it waits (util/lock.h: mxd_poll_pause).  Returns 1
	 * if done(arg), else 0.  done() is called with the lock held. */
	int (*wait)(void *tp, int (*done)(void *), void *arg,
			uint32_t timeout_ms);
	/* Makes every wait() on tp in progress return soon (a wait that
	 * starts later is not affected): PtlEQFree, PtlNIFini. */
	void (*wakeup)(void *tp);
};

/* Chooses the transport, before PtlInit (the tests' loopback); none
 * chosen: the engine's (lib/portals/engine.c). */
void mxd_ptl_transport(const struct mxd_ptl_tp_ops *ops);
extern const struct mxd_ptl_tp_ops mxd_ptl_engine_ops;

/* ---- target side ---- */
/* A PUT or GET request has come (its header parsed once, its body not
 * necessarily yet): the core checks it (portal index, access control,
 * then the match list in order), logs PUT_START or GET_START, and returns
 * MXD_PTL_ACCEPT with *t filled, or MXD_PTL_DROP (counted in
 * PTL_SR_DROP_COUNT; for a GET, t->reply is the refusal to send). */
int mxd_ptl_rx_request(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h,
		struct mxd_ptl_tgt *t);
/* A PUT whose data is at hand, h->rlength bytes at 'data' (a message
 * in one frame): checked, matched and logged as mxd_ptl_rx_request()
 * does, its bytes copied into the descriptor that takes it, and ended as
 * mxd_ptl_rx_end() ends it, in one call.  Returns 1 if the transport is
 * to send *ack to the initiator (h->src_nid/src_pid), else 0 (done, or
 * dropped and counted). */
int mxd_ptl_rx_put(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h,
		const void *data, struct mxd_ptl_hdr *ack);
/* The bytes of an accepted request (or reply) have moved (status
 * PTL_NI_OK), or failed (another PTL_NI_*: the initiator vanished
 * mid-transfer, the reply could not be sent): logs the END or FAIL event
 * and the UNLINK it may cause.  Returns 1 if the transport is to send
 * *ack (an ACK of a put) to the initiator (t->req.src_nid/src_pid). */
int mxd_ptl_rx_end(struct mxd_ptl_ni *ni, struct mxd_ptl_tgt *t,
		ptl_ni_fail_t status, struct mxd_ptl_hdr *ack);

/* ---- initiator side ---- */
/* A put has ended: its bytes have left (PTL_NI_OK: SEND_END; for a large
 * put, once the target has pulled them or dropped the put) or it failed
 * (SEND_FAIL). */
void mxd_ptl_put_done(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		ptl_ni_fail_t status);
/* A get will get no reply (the target or the way to it is gone):
 * REPLY_FAIL. */
void mxd_ptl_get_failed(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		ptl_ni_fail_t status);
/* An ACK has come; the core finds its descriptor by handle and
 * generation, and drops it (counted) if the descriptor is gone or
 * inactive. */
void mxd_ptl_rx_ack(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h);
/* The REPLY to the get 'op' has come (the transport found op by the
 * header's op_cookie, which names it, generation included):
 * MXD_PTL_ACCEPT (move t->region.length bytes, then mxd_ptl_rx_end()) or
 * MXD_PTL_DONE (a refusal, or a descriptor that is gone: the events are
 * logged, the get is over). */
int mxd_ptl_rx_reply(struct mxd_ptl_ni *ni, const struct mxd_ptl_op *op,
		const struct mxd_ptl_hdr *h, struct mxd_ptl_tgt *t);
/* A message the transport dropped for the interface itself (an ACK or
 * REPLY of an operation it no longer has, a malformed header): counted
 * in PTL_SR_DROP_COUNT (and PTL_SR_DROP_LATE for an ACK or REPLY). */
void mxd_ptl_rx_dropped(struct mxd_ptl_ni *ni, const struct mxd_ptl_hdr *h);

#endif /* MXD_PTL_TRANSPORT_H */
