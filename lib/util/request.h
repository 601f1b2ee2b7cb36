/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests (a leaf): the pool they come from, their state machine and
 * the copies between a request's segments and frames.  Who completes a
 * request and where it goes then is the endpoint's business (endpoint.h).
 *
 *   large: QUEUED --> RNDV --> COMPLETE        (pulled; NOTIFY completes)
 *   issend: QUEUED --> BUFFERED --> COMPLETE   (data in frames; complete
 *          (fresh) -> BUFFERED                  when acked and matched)
 *   send:  QUEUED --> COMPLETE                 (mx_isend, eager: complete
 *          (fresh) -> COMPLETE                  once its data is in frames;
 *                                               any send: failed early)
 *   connect: QUEUED --> COMPLETE
 *   recv:  POSTED --> MATCHED --> COMPLETE
 *          (fresh) -> MATCHED            (matched an unexpected message)
 *          POSTED --> COMPLETE           (cancel, close)
 *
 * mxd_req_set_state() is the only writer of r->state and asserts that the
 * transition is one of these.
 */
#ifndef MXD_REQUEST_H
#define MXD_REQUEST_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "myriexpress.h"
#include "util/list.h"
#include "util/mtab.h"

#define MXD_SEG_INLINE		4	/* segments held in the request */
/* r->forget of a request an endpoint's face made: its end goes to the
 * face, not to the completion queue (partners/face.h). */
#define MXD_FORGET_FACE		2

struct mx_endpoint;
struct mxd_partner;
struct mxd_reqpool;

enum mxd_req_type {
	MXD_REQ_SEND = 1,
	MXD_REQ_RECV,
	MXD_REQ_CONNECT,
};

enum mxd_req_state {
	MXD_RS_FREE = 0,	/* in the pool */
	MXD_RS_QUEUED,		/* send waiting for window or tx space */
	MXD_RS_BUFFERED,	/* issend: data in frames, waiting for ack/match */
	MXD_RS_RNDV,		/* large send: announced, being pulled */
	MXD_RS_POSTED,		/* receive in the posted queue */
	MXD_RS_MATCHED,		/* receive matched, data arriving */
	MXD_RS_COMPLETE,	/* on the completion list */
};

struct mx_request {
	struct mxd_list link;		/* partner's sendq, or posted with
					 * no class (match.c) */
	struct mxd_list done;		/* endpoint completion list */
	struct mx_endpoint *ep;		/* the pool's: set once */
	struct mxd_reqpool *pool;	/* (a request's chunk's) */
	/* Set anew by every get, together (one store). */
	uint8_t type;
	uint8_t state;
	uint8_t sync;			/* mx_issend */
	uint8_t acked;			/* send: partner has the data */
	uint8_t matched;		/* issend: partner matched it */
	uint8_t forget;			/* mx_forget: release on completion;
					 * MXD_FORGET_FACE: the endpoint's
					 * face's (partners/face.h) */
	uint8_t claimed;		/* returned by a peek (several threads) */
	uint8_t rndv;			/* large send (rendezvous) */
	uint32_t gen;			/* lives: bumped when freed */
	uint32_t nseg;
	uint32_t length;		/* sum of the segments */
	uint32_t seq;			/* send: message sequence number */
	mx_segment_t *segs;
	mx_status_t status;
	uint64_t match_recv;		/* send: match_info; recv: value */
	uint64_t match_mask;
	uint64_t post_seq;		/* recv: order of posting */
	struct mxd_partner *partner;	/* send: destination (not kept by
					 * one done at once, nor its seq
					 * and length) */
	uint64_t deadline;		/* ns; 0: no timeout */
	uint8_t mclass;			/* recv posted: its class, or none */
	uint32_t rndv_handle;		/* its handle in ep->lsend */
	struct mxd_mnode mnode;		/* recv posted: in its class */
	mx_segment_t seg_inline[MXD_SEG_INLINE];
	uint8_t desc[16];		/* its struct mxd_rndv_desc, on the wire */
	struct mx_request *pool_next;
};

/*
 * Requests of one endpoint, never freed per message: an array in one
 * range of address space reserved when the first are made (MXD_REQ_MAX
 * requests, inaccessible and uncommitted), made usable MXD_REQ_CHUNK at
 * a time as more are in use at once.  A request never moves.
 */
struct mxd_reqpool {
	struct mx_request *free;
	uintptr_t base;			/* the array; 0 before the first */
	size_t made;			/* its bytes made requests */
	size_t room;			/* its bytes reserved */
	uint32_t allocated;		/* requests made */
	struct mx_endpoint *ep;		/* every request's r->ep */
	/* The request completed last, held off its endpoint's completion
	 * list until another completes or the list is read (endpoint.h:
	 * mxd_ep_done_add): most are tested right away, and one tested from
	 * here is neither linked nor unlinked.  Here for mxd_req_put. */
	struct mx_request *done_last;
};

#define MXD_REQ_CHUNK	256	/* requests made at a time (18 pages) */
#define MXD_REQ_MAX	(1u << 20)	/* in the range reserved, at most */

/*
 * Whether r, a handle from the application, is one of pool p's requests:
 * its offset in p's array, before anything of it is read (a handle of a
 * closed endpoint points into a range given back with its pool).  mx_test
 * and mx_wait check every handle: one compare and a remainder, however
 * many requests are in flight.
 */
static inline int
mxd_reqpool_owns(const struct mxd_reqpool *p, const struct mx_request *r)
{
	uintptr_t off = (uintptr_t)r - p->base;

	return off < p->made && off % sizeof(*r) == 0;
}

void mxd_reqpool_init(struct mxd_reqpool *p, struct mx_endpoint *ep);
void mxd_reqpool_fini(struct mxd_reqpool *p);
/* Another chunk of requests in the pool; 0, or -1 when out of memory. */
int mxd_reqpool_grow(struct mxd_reqpool *p);
/* The pool back to its first chunk if every request it made is free (the
 * rest of the range given back, inaccessible again). */
void mxd_reqpool_shrink(struct mxd_reqpool *p);

/* What every request taken starts from: its type t and state s, flags
 * clear (one store), no deadline. */
static inline void
mxd_req_init(struct mx_request *r, enum mxd_req_type t, enum mxd_req_state s)
{
	r->type = (uint8_t)t;
	r->state = (uint8_t)s;
	r->sync = r->acked = r->matched = r->forget = 0;
	r->claimed = r->rndv = 0;
	r->deadline = 0;
}

/* A request of the pool, or NULL (out of memory), of type t in state s,
 * on no list (mxd_req_put leaves both links alone, as the chunk's
 * making did), without a deadline, its flags clear: what every request
 * starts from (its ep and pool were set when its chunk was made). */
static inline struct mx_request *
mxd_req_take(struct mxd_reqpool *p, enum mxd_req_type t,
		enum mxd_req_state s)
{
	struct mx_request *r;

	if (p->free == NULL && mxd_reqpool_grow(p) < 0)
		return NULL;
	r = p->free;
	p->free = r->pool_next;
	mxd_req_init(r, t, s);
	return r;
}

/* A fresh request of type t for endpoint ep, or NULL (out of memory).
 * Inline, as mxd_req_put and mxd_req_set_segs: every message takes one. */
static inline struct mx_request *
mxd_req_get(struct mxd_reqpool *p, struct mx_endpoint *ep, enum mxd_req_type t,
		void *context)
{
	struct mx_request *r = mxd_req_take(p, t, MXD_RS_FREE);

	(void)ep;
	if (r == NULL)
		return NULL;
	r->partner = NULL;
	r->rndv_handle = 0;
	memset(&r->status, 0, sizeof(r->status));
	r->status.code = MX_STATUS_PENDING;
	r->status.context = context;
	return r;
}

/* Frees the segment array of a request of more than MXD_SEG_INLINE. */
void mxd_req_free_segs(struct mx_request *r);

/*
 * Gives r back to its pool, r on no list but perhaps the completion list
 * (or held apart from it: done_last).  A complete request is: each way
 * to COMPLETE takes it off the others first (mxd_req_done's callers,
 * mxd_recv_direct), so that mx_test's request done is given back without
 * a look at its other link.
 */
static inline void
mxd_req_put_done(struct mx_request *r)
{
	struct mxd_reqpool *p = r->pool;

	assert(r->link.next == &r->link);
	if (p->done_last == r)		/* completed last: on no list */
		p->done_last = NULL;
	else
		mxd_list_del(&r->done);
	if (r->segs != r->seg_inline)
		mxd_req_free_segs(r);
	r->state = MXD_RS_FREE;
	r->type = 0;
	r->gen++;
	r->pool_next = p->free;
	p->free = r;
}

/* Gives r back to its pool, off whatever list it is on. */
static inline void
mxd_req_put(struct mx_request *r)
{
	if (r->link.next != &r->link)	/* most are on no list by now */
		mxd_list_del(&r->link);
	mxd_req_put_done(r);
}

/* Whether r may go from its state to s (the diagram above). */
int mxd_req_transition_ok(const struct mx_request *r, enum mxd_req_state s);

static inline void
mxd_req_set_state(struct mx_request *r, enum mxd_req_state s)
{
	assert(mxd_req_transition_ok(r, s));
	r->state = (uint8_t)s;
}
/* r's segments (a copy of the list) and length; 0 or a negated code. */
int mxd_req_set_segs_list(struct mx_request *r, const mx_segment_t *segs,
		uint32_t n);

static inline int
mxd_req_set_segs(struct mx_request *r, const mx_segment_t *segs, uint32_t n)
{
	if (n != 1)
		return mxd_req_set_segs_list(r, segs, n);
	r->segs[0] = segs[0];		/* one: no sum to check */
	r->nseg = 1;
	r->length = segs[0].segment_length;
	return 0;
}
/* Copies 'len' bytes between the request's segments at message offset
 * 'off' (several segments) and ext. */
void mxd_req_copy_segs(const struct mx_request *r, uint32_t off, uint8_t *ext,
		uint32_t len, int to_req);

/* Copies 'len' bytes into the request's segments at message offset 'off'
 * (bytes past the request's length are dropped: truncation).  Inline, as
 * mxd_req_gather: a small message's one segment is one memcpy. */
static inline void
mxd_req_scatter(struct mx_request *r, uint32_t off, const uint8_t *src,
		uint32_t len)
{
	if (off >= r->length)
		return;
	if (len > r->length - off)
		len = r->length - off;
	if (r->nseg == 1)
		memcpy((uint8_t *)r->segs[0].segment_ptr + off, src, len);
	else
		mxd_req_copy_segs(r, off, (uint8_t *)(uintptr_t)src, len, 1);
}
/* The same, feeding the bytes (all len of them, truncated or not) to the
 * CRC register crc in the same pass; returns the register.  'cold': a
 * buffer of one segment that is out of cache is written around the
 * caches (mxd_crc_copy_nt); such stores are fenced (mxd_crc_store_fence)
 * by the pass that made them before its rx ends, and by the receive's
 * end before it completes. */
uint32_t mxd_req_scatter_crc(struct mx_request *r, uint32_t off,
		const uint8_t *src, uint32_t len, uint32_t crc, int cold);
/* Copies 'len' bytes of the request's segments at offset 'off' to dst. */
static inline void
mxd_req_gather(const struct mx_request *r, uint32_t off, uint8_t *dst,
		uint32_t len)
{
	if (r->nseg != 1)
		mxd_req_copy_segs(r, off, dst, len, 0);
	else if (len != 0)	/* a 0-byte message's buffer may be NULL */
		memcpy(dst, (const uint8_t *)r->segs[0].segment_ptr + off, len);
}
/* The same, feeding them to the CRC register crc in the same pass (every send's
 * data is checked on the way into its frame); returns the register. */
uint32_t mxd_req_gather_crc(const struct mx_request *r, uint32_t off,
		uint8_t *dst, uint32_t len, uint32_t crc);
/* Asks the cache for message bytes [off, off + len) of r's segments (those
 * past its length are left out), for a copy a few frames later. */
void mxd_req_prefetch(const struct mx_request *r, uint64_t off, uint32_t len);

#endif /* MXD_REQUEST_H */
