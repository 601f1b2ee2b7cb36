/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's transport (transport.h): Portals between processes over
 * the MX engine, the transport PtlInit uses unless a test chose another.
 *
 * An interface is an engine endpoint of its board (the process id is the
 * endpoint id, the node id the board's NIC id), opened with a filter of
 * its own (PTL_FILTER): an MX endpoint is refused at connect, as any
 * wrong filter is, so that MX and Portals programs never take each
 * other's messages.  The endpoint's face (partners/face.h) is this file:
 * the engine gives it every message of the endpoint where MX would match
 * one, and the end of every request it made.
 *
 * Each Portals message (PUT, GET, ACK, REPLY) is one engine message
 * between the two endpoints, reliable and in order per pair, with the
 * Portals header (proto/portals_wire.h) first in its body.  A message
 * whose header and data fit one frame goes eager, copied when sent (a
 * put's SEND_END then), its data right after its header; the face reads
 * it whole and moves its data itself (a PUT into the descriptor that
 * takes it, a REPLY into the get's) before it returns.  Any larger one
 * goes by rendezvous, its header padded to MXD_PTL_HEAD bytes and carried
 * with the announcement, so that the header is whole whenever the face
 * reads it: the target pulls the data from the initiator's descriptor
 * (SEND_END once pulled), and a get's initiator pulls the REPLY from the
 * target's.  The receiver takes only the bytes its descriptor takes
 * (mlength); the rest of a large message is not pulled.
 *
 * Records.  Each operation in progress, ours or a peer's with us, is a
 * record of the interface (a pool that grows and never shrinks, reused
 * oldest first), named on the wire by op_cookie (generation << 32 | slot)
 * so that a late ACK or REPLY of one that ended is recognised; the engine
 * names it by a token (the record's address, tagged: its send, its
 * deposit, or a peer's connect), which it gives back exactly once per
 * request.
 *
 * First contact: an operation to a process this endpoint is not
 * connected to waits in that peer's queue, in order, while a connect
 * goes on in the background (bounded by MX_PEER_TIMEOUT_MS); PtlPut and
 * PtlGet never wait.  A get's initiator waits for its REPLY: the engine
 * probes the target meanwhile (mxd_face_wait), and a target that is
 * refused or lost fails the gets it owes (lost()).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/config.h"
#include "util/list.h"
#include "engine/connect.h"
#include "engine/face.h"
#include "engine/send.h"
#include "progress/progress.h"
#include "api/close.h"
#include "api/face.h"
#include "api/wait.h"
#include "portals/ptl.h"

#define PTL_FILTER	0x50544c33u	/* "PTL3": every interface's filter */
#define PTL_MATCH	((uint64_t)PTL_FILTER << 32)	/* | kind */
#define BODY_MAX	(UINT32_MAX - MXD_PTL_HEAD)	/* a message's bytes */
#define PEER_BUCKETS	256u

/* What a record stands for. */
enum rec_kind {
	R_PUT = 1,	/* our put: its message's send */
	R_GET,		/* our get: its message's send, then its REPLY */
	R_TPUT,		/* a put to us: its deposit, then its ACK's send */
	R_TGET,		/* a get of us: its REPLY's send */
	R_SEND,		/* an answer alone: a refused get's REPLY */
};

/* Tokens: a record's address (8-byte aligned), tagged. */
#define TOK_SEND	0u
#define TOK_DEPOSIT	1u
#define TOK_CONNECT	2u	/* a peer's, not a record's */
#define TOK_MASK	3u

struct peer;

struct rec {
	struct mxd_list link;		/* its peer's queue, or free */
	uint32_t slot, gen;
	uint8_t kind;
	uint8_t used;
	uint8_t sending;		/* its send posted, not ended */
	uint8_t depositing;		/* its deposit open */
	uint8_t replied;		/* R_GET: a REPLY was accepted */
	uint8_t ended;			/* R_GET: its end reported */
	uint8_t waits;			/* R_GET: counted by mxd_face_wait */
	uint8_t ack_held;		/* R_PUT: its ACK came before its end */
	struct mxd_partner *p;		/* where its message went */
	struct mxd_ptl_op op;		/* R_PUT, R_GET: the core's */
	struct mxd_ptl_tgt tgt;		/* R_TPUT, R_TGET; R_GET: the REPLY */
	struct mxd_ptl_hdr ack;		/* R_PUT: the ACK held */
	struct mxd_ptl_region body;	/* the bytes after the header sent */
	uint32_t wlen;			/* its header's length */
	uint8_t wire[MXD_PTL_HEAD];	/* its message's header (padded
					 * for a rendezvous) */
};

/* A process we send to, while a connect to it goes on. */
struct peer {
	struct peer *hnext;
	uint64_t nid;
	uint32_t pid;
	uint8_t connecting;
	struct mxd_list queue;		/* records waiting for it, in order */
};

struct eng {
	struct mxd_ptl_ni *ni;
	struct mx_endpoint *ep;
	int closing;
	struct rec **tab;		/* records by slot */
	uint32_t nrec, cap;
	struct mxd_list free;		/* free records, oldest first */
	struct peer *peers[PEER_BUCKETS];
	mx_segment_t segs[MXD_MAX_SEGMENTS];	/* a deposit's, during take */
};

static const struct mxd_face_ops face_ops;

/* ---- records --------------------------------------------------------- */

static struct rec *
rec_new(struct eng *e, uint8_t kind)
{
	struct rec *r;

	if (mxd_list_empty(&e->free)) {
		if (e->nrec == e->cap) {
			uint32_t cap = e->cap ? 2 * e->cap : 64;
			struct rec **t = realloc(e->tab, cap * sizeof(*t));

			if (t == NULL)
				return NULL;
			e->tab = t;
			e->cap = cap;
		}
		r = calloc(1, sizeof(*r));
		if (r == NULL)
			return NULL;
		r->slot = e->nrec;
		r->gen = 1;	/* a cookie of 0 names no record */
		e->tab[e->nrec++] = r;
	} else {
		r = mxd_container_of(e->free.next, struct rec, link);
		mxd_list_del(&r->link);
	}
	r->kind = kind;
	r->used = 1;
	r->sending = r->depositing = r->replied = 0;
	r->ended = r->waits = r->ack_held = 0;
	r->p = NULL;
	memset(&r->body, 0, sizeof(r->body));
	mxd_list_init(&r->link);
	return r;
}

static void
rec_free(struct eng *e, struct rec *r)
{
	mxd_list_del(&r->link);
	r->used = 0;
	r->gen++;
	mxd_list_add_tail(&e->free, &r->link);
}

static uint64_t
cookie_of(const struct rec *r)
{
	return (uint64_t)r->gen << 32 | r->slot;
}

/* The live record a cookie names, or NULL (ended, or never was). */
static struct rec *
rec_find(struct eng *e, uint64_t cookie)
{
	uint32_t slot = (uint32_t)cookie;
	struct rec *r;

	if (slot >= e->nrec)
		return NULL;
	r = e->tab[slot];
	return r->used && r->gen == (uint32_t)(cookie >> 32) ? r : NULL;
}

/* r's message's header is h. */
static void
rec_wire(struct rec *r, const struct mxd_ptl_hdr *h)
{
	r->wlen = mxd_ptl_wire_encode(r->wire, h);
}

/* The engine's match of a message whose header is at w: its kind. */
static uint64_t
match_of(const uint8_t *w)
{
	return PTL_MATCH | (w[0] & 0xfu);
}

static void *
token(const void *obj, unsigned tag)
{
	return (void *)((uintptr_t)obj | tag);
}

/* ---- statuses -------------------------------------------------------- */

static ptl_ni_fail_t
ni_fail_of(mx_status_code_t code)
{
	switch (code) {
	case MX_STATUS_SUCCESS:
	case MX_STATUS_TRUNCATED:	/* the rest of a message not taken */
		return PTL_NI_OK;
	case MX_STATUS_ENDPOINT_UNREACHABLE:
	case MX_STATUS_TIMEOUT:
		return PTL_NI_UNREACHABLE;
	case MX_STATUS_ENDPOINT_CLOSED:
	case MX_STATUS_BAD_KEY:		/* an endpoint, but not Portals' */
		return PTL_NI_CLOSED;
	default:
		return PTL_NI_FAIL;
	}
}

/* ---- sending --------------------------------------------------------- */

/* The segments of a region (at most max): how many. */
static uint32_t
segs_of(const struct mxd_ptl_region *rg, mx_segment_t *s, uint32_t max)
{
	uint32_t n = 0;

	for (ptl_size_t at = 0; at < rg->length && n < max;) {
		uint8_t *ptr;
		ptl_size_t k = mxd_ptl_region_span(rg, at, &ptr);

		if (k == 0)
			break;
		s[n].segment_ptr = ptr;
		s[n].segment_length = (uint32_t)k;
		n++;
		at += k;
	}
	return n;
}

/* A request of the face: its end comes to done() with 'tok'. */
static struct mx_request *
face_req(struct eng *e, enum mxd_req_type t, void *tok)
{
	struct mx_request *q = mxd_ep_req(e->ep, t, tok);

	if (q != NULL)
		q->forget = MXD_FORGET_FACE;
	return q;
}

/*
 * Sends r's message (r->wire, then r->body) to r->p: one frame if it
 * fits, else by rendezvous.  Its end comes to done(), perhaps before
 * this returns (an eager message is done once copied, a refusal at
 * once): r may be gone on return.
 */
static void send_done(struct eng *e, struct rec *r, ptl_ni_fail_t st);

/* r's message if it goes at once in one frame (the common case of a
 * small one): sent and done; else 0. */
static int
rec_send_now(struct eng *e, struct rec *r)
{
	uint8_t msg[MXD_TXCOPY_MAX];

	if (r->body.length > sizeof(msg) - r->wlen)
		return 0;
	memcpy(msg, r->wire, r->wlen);
	mxd_ptl_region_read(&r->body, 0, msg + r->wlen, r->body.length);
	if (!mxd_face_send_now(r->p, msg, r->wlen + (uint32_t)r->body.length,
				match_of(r->wire)))
		return 0;
	r->sending = 1;
	send_done(e, r, PTL_NI_OK);
	return 1;
}

static void
rec_send(struct eng *e, struct rec *r)
{
	mx_segment_t segs[1 + MXD_MAX_SEGMENTS];
	struct mxd_partner *p = r->p;
	struct mx_request *q;
	uint32_t n;

	if (rec_send_now(e, r))
		return;
	q = face_req(e, MXD_REQ_SEND, token(r, TOK_SEND));
	r->sending = 1;
	if (q == NULL) {
		face_ops.done(e, token(r, TOK_SEND), MX_STATUS_NO_RESOURCES);
		return;
	}
	/* Too large for a frame: by rendezvous, the header padded to the
	 * head the announcement carries, the data after it. */
	if (r->wlen + r->body.length > p->frag_max) {
		memset(r->wire + r->wlen, 0, MXD_PTL_HEAD - r->wlen);
		r->wlen = MXD_PTL_HEAD;
	}
	segs[0].segment_ptr = r->wire;
	segs[0].segment_length = r->wlen;
	n = 1 + segs_of(&r->body, segs + 1, MXD_MAX_SEGMENTS);
	if (mxd_req_set_segs(q, segs, n) < 0) {
		mxd_req_done(q, MX_STATUS_NO_RESOURCES);
		return;
	}
	q->partner = p;
	q->match_recv = match_of(r->wire);
	q->rndv = q->length > p->frag_max;	/* the header whole at once */
	/* A loss of an earlier message was told by its own operation. */
	if (p->unreported != MX_STATUS_SUCCESS)
		(void)mxd_send_unreported(p);
	if (!mxd_partner_up(p)) {
		mxd_req_done(q, p->fail != MX_STATUS_SUCCESS ? p->fail :
				MX_STATUS_ENDPOINT_UNREACHABLE);
		return;
	}
	mxd_send_post(q);
}

/* What the engine sent from an API call goes now (a pass flushes its
 * own). */
static void
flush(struct eng *e)
{
	mxd_board_flush(e->ep->board);
	if (e->ep->ack_held != NULL)
		mxd_send_acks_apply(e->ep);
}

/* ---- our operations' ends ------------------------------------------- */

/* Our get ends without a reply (failed, or refused by its target). */
static void
get_end(struct eng *e, struct rec *r, ptl_ni_fail_t st, int report)
{
	r->ended = 1;
	if (r->waits) {
		r->waits = 0;
		mxd_face_wait(r->p, -1);
	}
	if (report)
		mxd_ptl_get_failed(e->ni, &r->op, st);
}

/* An operation of ours that never left (no connect, no memory). */
static void
op_fail(struct eng *e, struct rec *r, ptl_ni_fail_t st)
{
	if (r->kind == R_PUT)
		mxd_ptl_put_done(e->ni, &r->op, st);
	else
		mxd_ptl_get_failed(e->ni, &r->op, st);
	rec_free(e, r);
}

/* Our operation goes to its target's partner p, up. */
static void
op_send(struct eng *e, struct rec *r, struct mxd_partner *p)
{
	r->p = p;
	if (r->kind == R_GET) {
		if (mxd_face_wait(p, 1) < 0) {
			op_fail(e, r, PTL_NI_FAIL);
			return;
		}
		r->waits = 1;
	}
	rec_send(e, r);
}

/* ---- peers and first contact ---------------------------------------- */

static unsigned
peer_hash(ptl_process_id_t id)
{
	return (unsigned)((id.nid * 0x9e3779b97f4a7c15ull ^ id.pid) >> 56) %
		PEER_BUCKETS;
}

static struct peer *
peer_find(struct eng *e, ptl_process_id_t id)
{
	struct peer *pe;

	for (pe = e->peers[peer_hash(id)]; pe != NULL; pe = pe->hnext)
		if (pe->nid == id.nid && pe->pid == id.pid)
			return pe;
	return NULL;
}

static struct peer *
peer_new(struct eng *e, ptl_process_id_t id)
{
	struct peer *pe = calloc(1, sizeof(*pe));
	unsigned h = peer_hash(id);

	if (pe == NULL)
		return NULL;
	pe->nid = id.nid;
	pe->pid = id.pid;
	mxd_list_init(&pe->queue);
	pe->hnext = e->peers[h];
	e->peers[h] = pe;
	return pe;
}

static void
connect_start(struct eng *e, struct peer *pe)
{
	struct mx_request *q = face_req(e, MXD_REQ_CONNECT,
			token(pe, TOK_CONNECT));

	pe->connecting = 1;
	if (q == NULL) {
		face_ops.done(e, token(pe, TOK_CONNECT), MX_STATUS_NO_RESOURCES);
		return;
	}
	if (mxd_connect_start(q, pe->nid, pe->pid, PTL_FILTER,
				mxd_conf.peer_timeout_ms) < 0)
		mxd_req_done(q, MX_STATUS_NO_RESOURCES);
}

/* Our operation r to 'to': sent now if connected and nothing waits
 * before it, else queued behind a connect. */
static void
route(struct eng *e, struct rec *r, ptl_process_id_t to)
{
	struct mxd_partner *p = mxd_partner_find(e->ep, to.nid, to.pid);
	struct peer *pe = p != NULL ? p->addr_context : NULL;

	if (pe == NULL)
		pe = peer_find(e, to);
	if (p != NULL && mxd_partner_up(p) && (pe == NULL ||
				(!pe->connecting && mxd_list_empty(&pe->queue)))) {
		op_send(e, r, p);
		return;
	}
	if (pe == NULL && (pe = peer_new(e, to)) == NULL) {
		op_fail(e, r, PTL_NI_FAIL);
		return;
	}
	mxd_list_add_tail(&pe->queue, &r->link);
	if (!pe->connecting)
		connect_start(e, pe);
}

/* The connect to pe ended: its queue goes, or fails. */
static void
connected(struct eng *e, struct peer *pe, mx_status_code_t code)
{
	ptl_process_id_t id = { pe->nid, pe->pid };
	struct mxd_partner *p = mxd_partner_find(e->ep, id.nid, id.pid);
	struct mxd_list q;

	pe->connecting = 0;
	if (code == MX_STATUS_SUCCESS && p != NULL && mxd_partner_up(p)) {
		p->used = 1;
		p->addr_context = pe;	/* its queue, found at once */
	} else if (code == MX_STATUS_SUCCESS) {
		code = MX_STATUS_ENDPOINT_UNREACHABLE;
	}
	/* Detached first: what a send ends may start nothing here, but
	 * the queue is walked once. */
	mxd_list_init(&q);
	if (!mxd_list_empty(&pe->queue)) {
		q = pe->queue;
		q.next->prev = &q;
		q.prev->next = &q;
		mxd_list_init(&pe->queue);
	}
	while (!mxd_list_empty(&q)) {
		struct rec *r = mxd_container_of(q.next, struct rec, link);

		mxd_list_del(&r->link);
		mxd_list_init(&r->link);
		if (code == MX_STATUS_SUCCESS)
			op_send(e, r, p);
		else
			op_fail(e, r, ni_fail_of(code));
	}
}

/* ---- the transport's operations ------------------------------------- */

static int
eng_init(void)
{
	int rc = mxd_lib_hold(MXD_HOLD_PTL);

	return rc < 0 ? -PTL_FAIL : (int)mxd_lib.nboards;
}

static void
eng_fini(void)
{
	mxd_lib_release(MXD_HOLD_PTL);
}

static int
eng_ni_open(struct mxd_ptl_ni *ni, ptl_interface_t iface, ptl_pid_t pid,
		struct mxd_ptl_ident *me, void **tp)
{
	struct eng *e;
	int rc;

	if (iface >= mxd_lib.nboards)
		return -PTL_INIT_INV;
	if (pid != PTL_PID_ANY && pid >= MX_MAX_ENDPOINTS)
		return -PTL_INV_PROC;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return -PTL_NOSPACE;
	e->ni = ni;
	mxd_list_init(&e->free);
	rc = mxd_face_endpoint_open(mxd_lib.boards[iface], pid == PTL_PID_ANY ?
			MX_ANY_ENDPOINT : pid, PTL_FILTER, &face_ops, e, &e->ep);
	if (rc < 0) {
		free(e);
		return rc == -MX_BUSY && pid != PTL_PID_ANY ? -PTL_INV_PROC :
			-PTL_NOSPACE;
	}
	me->id.nid = e->ep->board->nic_id;
	me->id.pid = e->ep->id;
	me->uid = (ptl_uid_t)getuid();
	me->jid = PTL_JID_NONE;
	*tp = e;
	return 0;
}

static void
eng_ni_close(void *tp)
{
	struct eng *e = tp;

	/* From here no call goes up, and messages are dropped; the close
	 * lingers for the partners' acks (MX_CLOSE_LINGER_MS), and what is
	 * still going on ends with the endpoint. */
	e->closing = 1;
	mxd_close_endpoint(e->ep);
	for (uint32_t i = 0; i < e->nrec; i++)
		free(e->tab[i]);
	free(e->tab);
	for (unsigned h = 0; h < PEER_BUCKETS; h++)
		while (e->peers[h] != NULL) {
			struct peer *pe = e->peers[h];

			e->peers[h] = pe->hnext;
			free(pe);
		}
	free(e);
}

static int
eng_check(void *tp, ptl_process_id_t id)
{
	(void)tp;
	return id.pid < MX_MAX_ENDPOINTS && id.nid >> 48 == 0 ? 0 :
		-PTL_INV_PROC;
}

static int
eng_dist(void *tp, ptl_process_id_t id, unsigned long *dist)
{
	struct eng *e = tp;

	if (eng_check(tp, id) < 0)
		return -PTL_INV_PROC;
	if (id.nid == e->ep->board->nic_id)
		*dist = id.pid == e->ep->id ? 0 : 1;
	else
		*dist = mxd_board_by_nic(id.nid) != NULL ? 1 : 2;
	return 0;
}

/* A new operation of ours: its record, cookie and header, or NULL (the
 * operation failed, reported). */
static struct rec *
op_new(struct eng *e, const struct mxd_ptl_op *op, uint8_t kind)
{
	struct rec *r = op->hdr.rlength <= BODY_MAX ? rec_new(e, kind) : NULL;

	if (r == NULL) {
		if (kind == R_PUT)
			mxd_ptl_put_done(e->ni, op, PTL_NI_FAIL);
		else
			mxd_ptl_get_failed(e->ni, op, PTL_NI_FAIL);
		return NULL;
	}
	r->op = *op;
	r->op.hdr.op_cookie = cookie_of(r);
	rec_wire(r, &r->op.hdr);
	return r;
}

/* A small put to a partner that is up, with nothing waiting before it:
 * sent at once in one frame, with no record (nothing names it: its ACK
 * finds the descriptor by its handle); 1 if so. */
static int
put_now(struct eng *e, const struct mxd_ptl_op *op)
{
	uint8_t msg[MXD_TXCOPY_MAX];
	struct mxd_partner *p;
	struct peer *pe;
	uint32_t hl;

	if (op->hdr.rlength > sizeof(msg) - MXD_PTL_HLEN_MAX)
		return 0;
	p = mxd_partner_find(e->ep, op->target.nid, op->target.pid);
	if (p == NULL || !mxd_partner_up(p))
		return 0;
	pe = p->addr_context != NULL ? p->addr_context :
		peer_find(e, op->target);
	if (pe != NULL && (pe->connecting || !mxd_list_empty(&pe->queue)))
		return 0;
	hl = mxd_ptl_wire_encode(msg, &op->hdr);	/* op_cookie 0: none */
	mxd_ptl_region_read(&op->region, 0, msg + hl, op->hdr.rlength);
	return mxd_face_send_now(p, msg, hl + (uint32_t)op->hdr.rlength,
			PTL_MATCH | MXD_PTL_PUT);
}

static int
eng_put(void *tp, const struct mxd_ptl_op *op)
{
	struct eng *e = tp;
	struct rec *r;

	if (put_now(e, op)) {
		flush(e);
		return 1;	/* its bytes copied out: over */
	}
	r = op_new(e, op, R_PUT);
	if (r == NULL)
		return 0;
	r->body = op->region;
	route(e, r, op->target);	/* r may be gone */
	flush(e);
	return 0;
}

static void
eng_get(void *tp, const struct mxd_ptl_op *op)
{
	struct eng *e = tp;
	struct rec *r = op_new(e, op, R_GET);

	if (r == NULL)
		return;
	route(e, r, op->target);
	flush(e);
}

static void
eng_progress(void *tp)
{
	struct eng *e = tp;

	mxd_progress(e->ep);
}

static int
eng_wait(void *tp, int (*done)(void *), void *arg, uint32_t timeout_ms)
{
	struct eng *e = tp;

	if (timeout_ms == 0) {		/* a look, no wait */
		mxd_progress(e->ep);
		return done(arg) != 0;
	}
	return mxd_poll_until(e->ep, done, arg, timeout_ms == UINT32_MAX ?
			MX_INFINITE : timeout_ms) == 1;
}

static void
eng_wakeup(void *tp)
{
	struct eng *e = tp;

	__atomic_add_fetch(&mxd_ep_slot(e->ep)->wakeup_gen, 1,
			__ATOMIC_RELEASE);
}

const struct mxd_ptl_tp_ops mxd_ptl_engine_ops = {
	.init = eng_init,
	.fini = eng_fini,
	.ni_open = eng_ni_open,
	.ni_close = eng_ni_close,
	.dist = eng_dist,
	.check = eng_check,
	.put = eng_put,
	.get = eng_get,
	.progress = eng_progress,
	.wait = eng_wait,
	.wakeup = eng_wakeup,
};

/* ---- the face: messages in ------------------------------------------ */

/* r's deposit: the bytes of rg, ending in done() with its token. */
static int
deposit(struct eng *e, struct rec *r, const struct mxd_ptl_region *rg,
		struct mxd_face_deposit *d)
{
	d->token = token(r, TOK_DEPOSIT);
	d->segs = e->segs;
	d->nseg = segs_of(rg, e->segs, MXD_MAX_SEGMENTS);
	d->length = (uint32_t)rg->length;
	r->depositing = 1;
	return MXD_FACE_DEPOSIT;
}

/* A put of us in one frame, its data at 'data': done here, its ACK sent
 * if it is to be. */
static int
put_whole(struct eng *e, struct mxd_partner *p, const struct mxd_ptl_hdr *h,
		const uint8_t *data)
{
	struct rec *r = NULL;
	struct mxd_ptl_hdr ack;

	/* The ACK's record first: none, and the put comes again. */
	if ((h->flags & MXD_PTL_F_ACK_REQ) &&
			(r = rec_new(e, R_SEND)) == NULL)
		return MXD_FACE_NOMEM;
	if (!mxd_ptl_rx_put(e->ni, h, data, &ack)) {
		if (r != NULL)
			rec_free(e, r);
		return MXD_FACE_DROP;
	}
	rec_wire(r, &ack);	/* an ACK is asked: r is there */
	r->p = p;
	rec_send(e, r);
	return MXD_FACE_DROP;		/* consumed */
}

static int
take_put(struct eng *e, struct mxd_partner *p, const struct mxd_ptl_hdr *h,
		struct mxd_face_deposit *d)
{
	struct rec *r = rec_new(e, R_TPUT);

	if (r == NULL)
		return MXD_FACE_NOMEM;	/* before the core saw it */
	if (mxd_ptl_rx_request(e->ni, h, &r->tgt) != MXD_PTL_ACCEPT) {
		rec_free(e, r);
		return MXD_FACE_DROP;
	}
	r->p = p;
	return deposit(e, r, &r->tgt.region, d);
}

/* A get of us: answered with its REPLY (the data, or a refusal). */
static int
take_get(struct eng *e, struct mxd_partner *p, const struct mxd_ptl_hdr *h)
{
	struct rec *r = rec_new(e, R_TGET);

	if (r == NULL)
		return MXD_FACE_NOMEM;
	if (mxd_ptl_rx_request(e->ni, h, &r->tgt) == MXD_PTL_ACCEPT) {
		r->body = r->tgt.region;
	} else {
		r->kind = R_SEND;
		r->tgt.reply.mlength = 0;
	}
	rec_wire(r, &r->tgt.reply);
	r->p = p;
	rec_send(e, r);
	return MXD_FACE_DROP;		/* the GET itself: consumed */
}

static void
take_ack(struct eng *e, const struct mxd_ptl_hdr *h)
{
	struct rec *r = rec_find(e, h->op_cookie);

	/* A large put ends when its NOTIFY comes, which its ACK may pass
	 * (a notice waiting for the window): its end first. */
	if (r != NULL && r->kind == R_PUT && r->sending && !r->ack_held) {
		r->ack = *h;
		r->ack_held = 1;
		return;
	}
	mxd_ptl_rx_ack(e->ni, h);
}

/* The REPLY to our get r has its data (t->region.length bytes) at
 * 'data': moved, and the get ends. */
static void
reply_whole(struct eng *e, struct rec *r, const uint8_t *data)
{
	mxd_ptl_region_write(&r->tgt.region, 0, data, r->tgt.region.length);
	mxd_ptl_rx_end(e->ni, &r->tgt, PTL_NI_OK, NULL);
	get_end(e, r, PTL_NI_OK, 0);
	if (!r->sending)
		rec_free(e, r);
}

/* A REPLY: its data at 'data' if it came in one frame, else NULL (to be
 * pulled into d). */
static int
take_reply(struct eng *e, struct mxd_partner *p, const struct mxd_ptl_hdr *h,
		const uint8_t *data, struct mxd_face_deposit *d)
{
	struct rec *r = rec_find(e, h->op_cookie);

	if (r == NULL || r->kind != R_GET || r->ended || r->replied ||
			r->p != p) {
		mxd_ptl_rx_dropped(e->ni, h);	/* late: its get ended */
		return MXD_FACE_DROP;
	}
	if (mxd_ptl_rx_reply(e->ni, &r->op, h, &r->tgt) != MXD_PTL_ACCEPT) {
		get_end(e, r, PTL_NI_OK, 0);	/* the core logged its end */
		if (!r->sending)
			rec_free(e, r);
		return MXD_FACE_DROP;
	}
	r->replied = 1;
	if (data != NULL) {
		reply_whole(e, r, data);
		return MXD_FACE_DROP;
	}
	return deposit(e, r, &r->tgt.region, d);
}

/*
 * A message in one frame (avail == len) is read whole here, its header
 * followed by its data, and never deposited; a large one (avail < len:
 * its announcement's head) has its header padded to MXD_PTL_HEAD bytes,
 * its data after them, deposited.
 */
static int
face_take(void *ctx, struct mxd_partner *p, const uint8_t *head,
		uint32_t avail, uint32_t len, struct mxd_face_deposit *d)
{
	struct eng *e = ctx;
	struct mxd_ptl_hdr h;
	int whole = avail == len, at;

	if (e->closing)
		return MXD_FACE_DROP;
	/* (A get asks at most what one message holds: no initiator of
	 * ours asks more.) */
	if (head == NULL || (at = mxd_ptl_wire_parse(head, avail, len, !whole,
					&h)) < 0 || h.rlength > BODY_MAX) {
		mxd_ptl_rx_dropped(e->ni, NULL);	/* malformed */
		return MXD_FACE_DROP;
	}
	/* Its sender is the partner it came from. */
	h.src_nid = p->nic_id;
	h.src_pid = p->remote_ep;
	switch (h.kind) {
	case MXD_PTL_PUT:
		return whole ? put_whole(e, p, &h, head + at) :
			take_put(e, p, &h, d);
	case MXD_PTL_GET:
		return take_get(e, p, &h);
	case MXD_PTL_ACK:
		take_ack(e, &h);
		return MXD_FACE_DROP;
	default:
		return take_reply(e, p, &h, whole ? head + at : NULL, d);
	}
}

/* ---- the face: requests' ends ---------------------------------------- */

/* The send of r ended. */
static void
send_done(struct eng *e, struct rec *r, ptl_ni_fail_t st)
{
	r->sending = 0;
	switch (r->kind) {
	case R_PUT:
		mxd_ptl_put_done(e->ni, &r->op, st);
		if (r->ack_held)
			mxd_ptl_rx_ack(e->ni, &r->ack);
		break;
	case R_GET:
		if (st != PTL_NI_OK && !r->ended && !r->replied)
			get_end(e, r, st, 1);
		if (!r->ended || r->depositing)
			return;		/* its REPLY to come, or coming */
		break;
	case R_TGET:
		mxd_ptl_rx_end(e->ni, &r->tgt, st, NULL);
		break;
	default:			/* an ACK, a refusal */
		break;
	}
	rec_free(e, r);
}

/* The deposit of r ended. */
static void
deposit_done(struct eng *e, struct rec *r, ptl_ni_fail_t st)
{
	r->depositing = 0;
	if (r->kind == R_GET) {
		mxd_ptl_rx_end(e->ni, &r->tgt, st, NULL);
		get_end(e, r, st, 0);
		if (!r->sending)
			rec_free(e, r);
		return;
	}
	/* R_TPUT: acknowledged if asked (and allowed). */
	if (mxd_ptl_rx_end(e->ni, &r->tgt, st, &r->ack)) {
		rec_wire(r, &r->ack);
		memset(&r->body, 0, sizeof(r->body));
		rec_send(e, r);
		return;
	}
	rec_free(e, r);
}

static void
face_done(void *ctx, void *tok, mx_status_code_t code)
{
	struct eng *e = ctx;
	unsigned tag = (unsigned)((uintptr_t)tok & TOK_MASK);
	void *obj = (void *)((uintptr_t)tok & ~(uintptr_t)TOK_MASK);

	if (e->closing)
		return;		/* everything goes with the interface */
	if (tag == TOK_CONNECT)
		connected(e, obj, code);
	else if (tag == TOK_DEPOSIT)
		deposit_done(e, obj, ni_fail_of(code));
	else
		send_done(e, obj, ni_fail_of(code));
}

/* p was refused or lost: the gets it owes us a REPLY for fail (those
 * whose REPLY is coming fail with it, through their deposit). */
static void
face_lost(void *ctx, struct mxd_partner *p, mx_status_code_t code)
{
	struct eng *e = ctx;

	if (e->closing)
		return;
	for (uint32_t i = 0; i < e->nrec; i++) {
		struct rec *r = e->tab[i];

		if (!r->used || r->kind != R_GET || r->p != p)
			continue;
		r->waits = 0;		/* the engine ended them */
		if (r->ended || r->replied)
			continue;
		get_end(e, r, ni_fail_of(code), 1);
		if (!r->sending)
			rec_free(e, r);
	}
}

static const struct mxd_face_ops face_ops = {
	.head = MXD_PTL_HEAD,
	.take = face_take,
	.done = face_done,
	.lost = face_lost,
};
