/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An endpoint's face: another API that the engine serves on endpoints of
 * its own (Portals 3.2, lib/portals), in place of MX's matching and
 * completion queue.  The engine knows nothing of it but this table, which
 * the face sets on its endpoint before opening it (ep->face, ep->face_ctx)
 * and which the engine calls through a pointer: one hop up, as the link
 * operations are one hop down.  An endpoint without a face (every MX
 * endpoint) pays a test of that pointer where a message is matched.
 *
 * Receiving.  Each message of a partner, when it is next in order (where
 * MX would match it), goes to take() with 'avail' bytes of it: all of
 * them (avail == len) when it came in one frame, which take() may read
 * and copy before it returns; else, a large message, its first 'head'
 * bytes, read from its announcement (a rendezvous descriptor carries the
 * sender's first 'head' bytes: proto/wire.h, struct mxd_rndv_desc); NULL
 * if the message has no such bytes (a peer's fault: the face drops it).
 * take() returns
 *   MXD_FACE_DROP     the message is consumed: nothing goes anywhere (a
 *                     large one is not pulled, and its sender is told
 *                     that its send is done); the face may have taken a
 *                     message in one frame itself;
 *   MXD_FACE_DEPOSIT  the bytes after the head, up to d->length of them,
 *                     go to d's segments (the rest are not taken; a
 *                     large message's are pulled from its sender); done()
 *                     is called with d->token when they are all there, or
 *                     when the transfer failed (its partner lost, its
 *                     sender's send ended: MX_STATUS_ABORTED);
 *   MXD_FACE_NOMEM    no memory now: the message is not acknowledged, and
 *                     comes again.
 *
 * Sending and connecting.  The face makes requests of its endpoint's pool
 * (sends, connects) with r->forget = MXD_FORGET_FACE and its token in
 * r->status.context, posted as MX's are (engine/send.h, connect.h).  Such
 * a request never reaches the completion queue: its end calls done()
 * with the token and the status: a send when its data is in frames (one
 * frame: the face keeps its messages' heads whole) or, large, once
 * pulled (NOTIFY) or failed (partner lost, refused, endpoint closed); a
 * connect when answered or timed out.  A large send of the face carries
 * its head in its announcement.
 *
 * Waiting.  An answer the face waits for from a partner (a reply) is
 * nothing the engine has in flight: mxd_face_wait() counts it, so that a
 * silent partner is probed and, past MX_PEER_TIMEOUT_MS, lost.  When a
 * partner is refused (NACK) or lost, the engine ends the face's waits on
 * it and calls lost() (its requests failed already, through done()).
 *
 * Every call is made with the library lock held, from a progress pass or
 * from the call that posted the request (a send that completes at once).
 */
#ifndef MXD_FACE_H
#define MXD_FACE_H

#include <stdint.h>

#include "myriexpress.h"

struct mxd_partner;

enum mxd_face_verdict {
	MXD_FACE_DROP = 0,
	MXD_FACE_DEPOSIT = 1,
	MXD_FACE_NOMEM = 2,
};

/* Where take() puts a message's bytes after its head. */
struct mxd_face_deposit {
	void *token;			/* given back by done() */
	const mx_segment_t *segs;	/* read during take() only */
	uint32_t nseg;			/* at most MXD_MAX_SEGMENTS */
	uint32_t length;		/* the bytes to take: the segments' sum */
};

struct mxd_face_ops {
	/* Bytes of a large message that take() reads (at most
	 * MXD_RNDV_HEAD_MAX). */
	uint32_t head;
	/* A message of p, of 'len' bytes in all, next in order: 'avail' of
	 * them at 'head'. */
	int (*take)(void *ctx, struct mxd_partner *p, const uint8_t *head,
			uint32_t avail, uint32_t len,
			struct mxd_face_deposit *d);
	/* A request of the face ended (a deposit, a send, a connect). */
	void (*done)(void *ctx, void *token, mx_status_code_t code);
	/* p was refused or lost ('code' why): the face's waits on it are
	 * over. */
	void (*lost)(void *ctx, struct mxd_partner *p, mx_status_code_t code);
};

#endif /* MXD_FACE_H */
