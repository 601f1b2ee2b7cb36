/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host path: messages between endpoints of different processes
 * of one host that share a board go through the host segment's rings
 * (board/host.h, board/hring.h), never as frames.
 *
 * Who is a same-host partner.  A partner on our board's NIC id whose
 * endpoint id the host segment's table gives to another slot
 * (shmsend.c: mxd_shm_route, when a connect starts or a connect request
 * comes).  Its records go through ring (our slot -> its slot) and come
 * back through ring (its slot -> ours).  No acks, no retransmission, no
 * checksum: shared memory loses nothing and keeps the order, so the
 * ring's order is the message order (p->tx numbers messages only so
 * that MATCHED can name one).  p->local stays for endpoints of our own
 * process, which keep the loopback ring.
 *
 * Records (kinds in shmsend.h).  MSG: an eager message, up to
 * MX_RNDV_THRESHOLD and a quarter of a ring, copied in by the sender,
 * whose mx_isend completes there (MPI standard mode).  RNDV: a large
 * message, announced with the sender's segments.  MATCHED, NOTIFY:
 * notices.  GET, DATA: a large message copied through the ring.
 * CONN_REQ, CONN_REP: the connect handshake (filter checked, sessions
 * and partner indexes learnt, as on the wire).  BYE: the sender's
 * endpoint closes.  NACK: a record for a closed endpoint or an old
 * session refused, so that the sender's later sends fail.
 *
 * Taking a message (take_msg) is recv.c's matching, record by record,
 * in the ring's order: the earliest posted receive that accepts it
 * (mxd_match_posted), else the unexpected handler, else the unexpected
 * queue; truncation, mx_issend's MATCHED, probe and peek (which see the
 * unexpected queue) as for frames.  A message the unexpected queue has no
 * room for (MX_PARAM_UNEXP_QUEUE_MAX) stays in the ring, unread, holding
 * back its sender alone: its partner is marked held, its later messages
 * stay too, and the records after it of other partners, notices and
 * handshakes are taken past it (a bitmap of the records taken out of
 * order; the ring's space is given back from its tail, so a sender held
 * long enough fills its ring and its further sends wait in its own
 * process, as a window closes on the wire).  Held records are tried
 * again when what they wait for may have changed: a receive posted,
 * room made in the unexpected queue, progression enabled (retry_key).
 *
 * A large message: the receiver, once matched (at once, or when a
 * receive takes it from the unexpected queue: pull.c hands it to
 * shmsend.c), reads the sender's segments into its own in one
 * process_vm_readv, then says NOTIFY, which completes the send.  Where
 * process_vm_readv is refused (EPERM: another user namespace, ptrace
 * rules; or MX_SHM_COPY=1), it says GET instead, and the sender copies
 * the message through the ring in DATA records of up to a quarter of it
 * as the ring makes room, the reader scattering each into the receive;
 * decided once per peer and remembered.
 *
 * Polling.  Every pass of the board (progress.c: a board with a host
 * segment takes the pass's general way, board_pass_any) polls each ring
 * read, at one load of the next record's seq word, and the mailbox word
 * that says a ring was set up; the progression thread's passes too, so
 * that either process moves messages.
 *
 * Faults.  A process may die at any moment.  Its rings stall no one:
 * each has one producer, and a record is whole or invisible
 * (board/hring.h).  Its peers learn of its death off the fast path:
 * mxd_shm_watch, run by the board's watch every MXD_WATCH_PASSES passes,
 * polls a pidfd per peer process and reads each peer slot's state and
 * epoch (a changed epoch: the old owner is gone).  Then (peer_gone):
 *   1. its ring to us is drained: every whole record is taken, held ones
 *      too (past the unexpected queue's limit: a dead sender waits for
 *      no room), so that what it completed sending is delivered; its
 *      partial record is dropped with the ring;
 *   2. every partner on its slot is lost with
 *      MX_STATUS_ENDPOINT_UNREACHABLE (connect.c: mxd_partner_lost):
 *      sends waiting for ring room, mx_issends waiting for MATCHED,
 *      large sends waiting for NOTIFY, large receives being copied fail
 *      with it, and the next send to it too; connects to it fail;
 *      messages it delivered stay delivered, an announced large message
 *      it can no longer give fails the receive that takes it;
 *   3. we let go: its ring to us is marked released for its epoch (the
 *      board service may then give the slot to a new process), and we
 *      write no more into our ring to it; a new owner is a new peer,
 *      whose rings are set up anew (board/hring.h).
 * A large message being read (process_vm_readv) from a process that
 * dies fails with ESRCH at once: the receive fails with the same status.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "engine/connect.h"
#include "engine/match.h"
#include "engine/recv.h"
#include "engine/rndv.h"
#include "engine/send.h"
#include "engine/shm.h"
#include "engine/unexp.h"

/* Polls between unconditional retries of held records. */
#define RETRY_POLLS	1024

/* ---- the partner of a record ------------------------------------------- */

/* The endpoint a record names, open and in the session it names. */
static struct mx_endpoint *
rec_ep(struct mxd_shm *shm, const struct mxd_hrec *rec)
{
	struct mx_endpoint *ep = mxd_ep_of(shm->b, rec->dst_ep);

	return ep != NULL && ep->session == rec->dst_session ? ep : NULL;
}

/* The partner a record of slot s comes from: the one it names, a
 * same-host partner on slot s, of the endpoint id and session it says. */
static struct mxd_partner *
rec_partner(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec)
{
	struct mx_endpoint *ep = rec_ep(shm, rec);
	struct mxd_partner *p;

	if (ep == NULL || rec->dst_peer >= ep->npartners)
		return NULL;
	p = ep->partners[rec->dst_peer];
	if (!p->shm || p->shm_slot != s || p->remote_ep != rec->src_ep ||
			p->remote_session == 0 ||
			p->remote_session != rec->src_session)
		return NULL;
	return p;
}

/* Whether the payload a record says fits in its cells. */
static int
rec_fits(const struct mxd_hrec *rec)
{
	return (uint64_t)rec->len + MXD_HREC_HLEN <=
		(uint64_t)rec->cells * MXD_HRING_CELL;
}

/* ---- messages ----------------------------------------------------------- */

/* The length of a message record: a large one's is its descriptor's. */
static uint32_t
msg_length(const struct mxd_hrec *rec, const uint8_t *data)
{
	struct mxd_rndv_desc d;

	if (rec->kind != MXD_HREC_RNDV)
		return rec->len;
	mxd_wire_get_rndv(data, &d);
	return d.total_len;
}

/* A receive r takes message rec of p. */
static void
msg_deliver(struct mx_request *r, struct mxd_partner *p,
		const struct mxd_hrec *rec, const uint8_t *data)
{
	if (rec->kind == MXD_HREC_MSG) {
		mxd_recv_direct(r, p, rec->match, data, rec->len);
		if (rec->flags & MXD_HF_SYNC)
			mxd_shm_notice(p, MXD_NOTE_MATCHED, rec->aux);
		return;
	}
	mxd_match_unpost(r->ep, r);
	mxd_req_set_state(r, MXD_RS_MATCHED);
	mxd_partner_addr(p, &r->status.source);
	r->status.match_info = rec->match;
	mxd_shm_read_start(r, p, data, MX_STATUS_SUCCESS);
}

/* The unexpected handler consumed message rec: its sender is released
 * (MATCHED for an issend, NOTIFY for a large send). */
static void
msg_discard(struct mxd_partner *p, const struct mxd_hrec *rec,
		const uint8_t *data)
{
	struct mxd_rndv_desc d;

	if (rec->kind == MXD_HREC_RNDV) {
		mxd_wire_get_rndv(data, &d);
		mxd_shm_notice(p, MXD_NOTE_NOTIFY, d.send_handle);
	} else if (rec->flags & MXD_HF_SYNC) {
		mxd_shm_notice(p, MXD_NOTE_MATCHED, rec->aux);
	}
}

/* Message rec onto the unexpected queue: 0, or -1 out of memory. */
static int
msg_queue(struct mx_endpoint *ep, struct mxd_partner *p,
		const struct mxd_hrec *rec, const uint8_t *data)
{
	struct mxd_unexp *u = mxd_unexp_get(ep, rec->len);

	if (u == NULL)
		return -1;
	memcpy(u->buf, data, rec->len);
	u->partner = p;
	u->match = rec->match;
	u->sync = rec->kind == MXD_HREC_MSG && (rec->flags & MXD_HF_SYNC);
	u->rndv = rec->kind == MXD_HREC_RNDV;
	u->seq = rec->aux;
	u->complete = 1;
	mxd_unexp_enqueue(ep, u);
	mxd_count(ep->board, MXD_C_UNEXP_MSGS);
	return 0;
}

/* Whether a descriptor (RNDV payload) is whole. */
static int
desc_ok(const struct mxd_hrec *rec, const uint8_t *data)
{
	const struct mxd_shm_desc *d = (const void *)data;

	return rec->len >= sizeof(*d) && d->nseg <= MXD_MAX_SEGMENTS &&
		rec->len == sizeof(*d) + d->nseg * sizeof(d->seg[0]);
}

/*
 * A message record of slot s (MSG, RNDV): matched, queued unexpected, or
 * left in the ring (returns 0: its partner is held).  'force': its
 * sender is dead, nothing waits for room.  Returns 1 when taken (or
 * refused).
 */
static int
take_msg(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec,
		int force)
{
	const uint8_t *data = mxd_hrec_data((struct mxd_hrec *)(uintptr_t)rec);
	struct mxd_partner *p = rec_partner(shm, s, rec);
	struct mx_endpoint *ep;
	struct mx_request *r;
	mx_endpoint_addr_t src;

	if (p == NULL) {		/* a closed endpoint, an old session */
		mxd_count_drop(shm->b, MXD_DROP_ENDPOINT);
		mxd_shm_reply(shm, s, rec, MXD_HREC_NACK, MXD_NO_PEER, 0,
				rec->aux, MXD_NACK_CLOSED |
				(uint64_t)rec->dst_session << 32);
		return 1;
	}
	if (!rec_fits(rec) || (rec->kind == MXD_HREC_RNDV &&
				!desc_ok(rec, data))) {
		mxd_count_drop(shm->b, MXD_DROP_LENGTH);
		return 1;
	}
	ep = p->ep;
	if (!force && (p->shm_held || ep->progression_off)) {
		p->shm_held = 1;
		return 0;
	}
	if (mxd_partner_act(p) == NULL) {	/* traffic: out of memory */
		if (force) {
			mxd_count_drop(shm->b, MXD_DROP_NOBUF);
			return 1;
		}
		p->shm_held = 1;
		return 0;
	}
	p->used = 1;
	p->last_heard = ep->now;
	mxd_count(shm->b, MXD_C_SHM_RX);
	r = ep->progression_off ? NULL : mxd_match_posted(ep, rec->match);
	if (r == NULL && ep->unexp_handler != NULL && !ep->progression_off) {
		mx_unexp_handler_action_t act;

		mxd_partner_addr(p, &src);
		act = ep->unexp_handler(ep->unexp_context, src, rec->match,
				msg_length(rec, data), rec->kind ==
				MXD_HREC_MSG ? (void *)(uintptr_t)data : NULL);
		if (act == MX_RECV_FINISHED) {
			msg_discard(p, rec, data);
			return 1;
		}
		r = mxd_match_posted(ep, rec->match);
	}
	if (r != NULL) {
		msg_deliver(r, p, rec, data);
		return 1;
	}
	if (!force && !mxd_unexp_room(ep, rec->len)) {
		if (!ep->unexp_full)
			mxd_count(shm->b, MXD_C_UNEXP_FULL);
		ep->unexp_full = 1;
		mxd_count(shm->b, MXD_C_SHM_HELD);
		p->shm_held = 1;
		return 0;
	}
	if (msg_queue(ep, p, rec, data) < 0) {
		if (force) {		/* a dead sender's: nowhere to keep */
			mxd_count_drop(shm->b, MXD_DROP_NOBUF);
			return 1;
		}
		p->shm_held = 1;	/* out of memory: tried again */
		return 0;
	}
	return 1;
}

/*
 * The common case of a ping-pong or a stream, taken the shortest way: a
 * plain eager message (not synchronous) of a partner with traffic state
 * and nothing held, a receive posted for it: matched, copied, completed,
 * as take_msg would.  1 if taken, 0 (nothing done) otherwise.
 */
static inline __attribute__((always_inline)) int
take_plain(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec)
{
	struct mx_endpoint *ep = mxd_ep_of(shm->b, rec->dst_ep);
	struct mxd_partner *p;
	struct mx_request *r;

	if (rec->kind != MXD_HREC_MSG || rec->flags != 0 || ep == NULL ||
			ep->session != rec->dst_session ||
			rec->dst_peer >= ep->npartners || ep->progression_off ||
			!rec_fits(rec))
		return 0;
	p = ep->partners[rec->dst_peer];
	if (!p->shm || p->shm_slot != s || p->remote_ep != rec->src_ep ||
			p->remote_session != rec->src_session ||
			p->remote_session == 0 || p->shm_held ||
			mxd_partner_act(p) == NULL ||
			(r = mxd_match_posted(ep, rec->match)) == NULL)
		return 0;
	p->used = 1;
	p->last_heard = ep->now;
	mxd_count(shm->b, MXD_C_SHM_RX);
	mxd_recv_direct(r, p, rec->match,
			mxd_hrec_data((struct mxd_hrec *)(uintptr_t)rec),
			rec->len);
	return 1;
}

/* ---- control records ------------------------------------------------------- */

static void
take_conn_req(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec)
{
	struct mx_endpoint *ep = mxd_ep_of(shm->b, rec->dst_ep);
	struct mxd_partner *p = NULL;
	uint8_t status = MXD_CONN_OK;

	if (ep == NULL) {
		status = MXD_CONN_CLOSED;
	} else if ((uint32_t)(rec->match >> 32) != ep->filter) {
		mxd_count_drop(shm->b, MXD_DROP_FILTER);
		status = MXD_CONN_BAD_KEY;
	} else if (__atomic_load_n(&shm->h->ep_slot[rec->src_ep],
				__ATOMIC_ACQUIRE) != s) {
		mxd_count_drop(shm->b, MXD_DROP_STALE);	/* it closed since */
		return;
	} else {
		p = mxd_partner_find(ep, shm->b->nic_id, rec->src_ep);
		if (p == NULL)
			p = mxd_partner_new(ep, shm->b->nic_id, rec->src_ep);
		if (p == NULL) {
			status = MXD_CONN_NO_RES;
		} else {
			if (mxd_shm_moved(p) && p->state != MXD_PS_NEW &&
					p->state != MXD_PS_LOST)
				mxd_partner_lost(p,
						MX_STATUS_ENDPOINT_UNREACHABLE);
			mxd_shm_route(p);
			mxd_connect_learn_shm(p, rec->src_session,
					rec->src_peer, (uint32_t)rec->match);
		}
	}
	mxd_shm_reply(shm, s, rec, MXD_HREC_CONN_REP,
			p != NULL ? p->index : MXD_NO_PEER,
			ep != NULL ? ep->session : 0, rec->aux, status);
}

static void
take_conn_rep(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec)
{
	struct mx_endpoint *ep = rec_ep(shm, rec);
	struct mxd_partner *p;
	uint8_t status = (uint8_t)rec->match;

	if (ep == NULL || rec->dst_peer >= ep->npartners) {
		mxd_count_drop(shm->b, MXD_DROP_ENDPOINT);
		return;
	}
	p = ep->partners[rec->dst_peer];
	if (p->a == NULL || p->a->hs.id == 0 || p->a->hs.id != rec->aux ||
			p->a->hs.status >= 0 || !p->shm ||
			p->shm_slot != s || p->remote_ep != rec->src_ep) {
		mxd_count_drop(shm->b, MXD_DROP_PEER);	/* stale */
		return;
	}
	if (status == MXD_CONN_OK)
		mxd_connect_learn_shm(p, rec->src_session, rec->src_peer,
				p->a->hs.filter);
	mxd_connect_answered(p, status);
}

/* Our record was refused: every send to p fails, later ones too. */
static void
take_nack(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec)
{
	struct mx_endpoint *ep = rec_ep(shm, rec);
	struct mxd_partner *p;
	mx_status_code_t code = (uint8_t)rec->match == MXD_NACK_BAD_KEY ?
		MX_STATUS_BAD_KEY : MX_STATUS_ENDPOINT_CLOSED;

	if (ep == NULL || rec->dst_peer >= ep->npartners) {
		mxd_count_drop(shm->b, MXD_DROP_ENDPOINT);
		return;
	}
	p = ep->partners[rec->dst_peer];
	if (!p->shm || p->shm_slot != s || p->remote_ep != rec->src_ep ||
			p->remote_session != (uint32_t)(rec->match >> 32) ||
			p->remote_session == 0 ||
			!mxd_seq_lt(rec->aux, p->tx.next_seq)) {
		mxd_count_drop(shm->b, MXD_DROP_PEER);	/* stale */
		return;
	}
	mxd_count(shm->b, MXD_C_NACK_RCVD);
	if (p->unreported == MX_STATUS_SUCCESS) {
		mxd_count(shm->b, MXD_C_SENDS_LOST);
		p->unreported = code;
		p->unreported_session = p->remote_session;
		mxd_partner_fast(p);
	}
	mxd_sends_fail(p, code);
	if (p->state == MXD_PS_UP) {
		p->fail = code;
		mxd_partner_set_state(p, MXD_PS_REFUSED);
	}
}

/* GET: the reader of a large send of ours asks for a copy. */
static void
take_get(struct mxd_shm *shm, unsigned s, const struct mxd_partner *p,
		const struct mxd_hrec *rec)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	struct mxd_shm_job *j;

	if (pe->jobs_n == pe->jobs_cap) {
		uint32_t cap = pe->jobs_cap ? 2 * pe->jobs_cap : 16;

		j = realloc(pe->jobs, cap * sizeof(*j));
		if (j == NULL) {
			mxd_count(shm->b, MXD_C_PULL_BUSY);
			return;		/* its receive waits: see close */
		}
		pe->jobs = j;
		pe->jobs_cap = cap;
	}
	j = &pe->jobs[pe->jobs_n++];
	j->ep = p->ep;
	j->peer = p->index;
	j->handle = rec->aux;
	j->id = (uint32_t)(rec->match >> 32);
	j->off = 0;
	j->end = (uint32_t)rec->match;
	shm->work |= 1ull << s;
}

/* DATA: a part of a large message copied for a receive of ours. */
static void
take_data(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec)
{
	struct mxd_shm_pull *pl = mxd_shm_pull_find(shm, rec->aux);

	if (pl == NULL || pl->p->shm_slot != s || !rec_fits(rec) ||
			rec->match + rec->len > pl->total) {
		mxd_count_drop(shm->b, MXD_DROP_PEER);	/* stale */
		return;
	}
	if (rec->flags & MXD_HF_GONE) {
		mxd_count(shm->b, MXD_C_PULLS_ABORTED);
		mxd_shm_pull_end(shm, pl, MX_STATUS_ABORTED);
		return;
	}
	mxd_req_scatter(pl->r, (uint32_t)rec->match,
			mxd_hrec_data((struct mxd_hrec *)(uintptr_t)rec),
			rec->len);
	pl->got += rec->len;
	if (pl->got >= pl->total)
		mxd_shm_pull_end(shm, pl, MX_STATUS_SUCCESS);
}

/* A record of slot s: 1 taken, 0 left in the ring (held). */
static int
take(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *rec, int force)
{
	struct mxd_partner *p;

	switch (rec->kind) {
	case MXD_HREC_PAD:
		return 1;
	case MXD_HREC_MSG:
	case MXD_HREC_RNDV:
		return take_msg(shm, s, rec, force);
	case MXD_HREC_CONN_REQ:
		take_conn_req(shm, s, rec);
		return 1;
	case MXD_HREC_CONN_REP:
		take_conn_rep(shm, s, rec);
		return 1;
	case MXD_HREC_NACK:
		take_nack(shm, s, rec);
		return 1;
	case MXD_HREC_DATA:
		take_data(shm, s, rec);
		return 1;
	default:
		break;
	}
	p = rec_partner(shm, s, rec);
	if (p == NULL) {
		mxd_count_drop(shm->b, MXD_DROP_PEER);
		return 1;
	}
	switch (rec->kind) {
	case MXD_HREC_MATCHED:
		if (p->a != NULL)	/* else nothing waits for it */
			mxd_send_matched(p, rec->aux);
		return 1;
	case MXD_HREC_NOTIFY:
		mxd_rndv_notified(p, rec->aux);
		return 1;
	case MXD_HREC_GET:
		take_get(shm, s, p, rec);
		return 1;
	case MXD_HREC_PUT:
		if (rec_fits(rec))
			mxd_shm_put_serve(shm, s, p, rec);
		return 1;
	case MXD_HREC_BYE:
		/* After its messages held before it (in order). */
		if (p->shm_held && !force)
			return 0;
		if (p->state == MXD_PS_UP || p->state == MXD_PS_REFUSED ||
				p->state == MXD_PS_CLOSED)
			mxd_partner_lost(p, MX_STATUS_ENDPOINT_CLOSED);
		return 1;
	default:
		mxd_count_drop(shm->b, MXD_DROP_TYPE);
		return 1;
	}
}

/* ---- rings read ----------------------------------------------------------- */

static int
taken_get(const struct mxd_shm_peer *pe, uint32_t off)
{
	return (pe->taken[off / 64] >> (off % 64)) & 1;
}

static void
taken_set(struct mxd_shm_peer *pe, uint32_t off, int v)
{
	if (v)
		pe->taken[off / 64] |= 1ull << (off % 64);
	else
		pe->taken[off / 64] &= ~(1ull << (off % 64));
}

/* The cells of a record already checked (between tail and next). */
static uint32_t
rec_span(const struct mxd_hrec *rec)
{
	return rec->kind == MXD_HREC_PAD ? rec->len : rec->cells;
}

/* Gives back the records taken at the tail, up to the first held. */
static void
tail_advance(struct mxd_shm_peer *pe)
{
	while (pe->tail != pe->rx.next) {
		const struct mxd_hrec *rec = mxd_hring_cell(pe->rx.cells,
				pe->tail_off);
		uint32_t n = rec_span(rec);

		if (!taken_get(pe, pe->tail_off))
			break;
		taken_set(pe, pe->tail_off, 0);
		pe->tail += n;
		pe->tail_off += n;
		if (pe->tail_off == pe->rx.n)
			pe->tail_off = 0;
	}
}

/* What held records wait for, summed over the board's endpoints: a
 * receive posted, room in the unexpected queue, progression back. */
static uint64_t
retry_key(const struct mxd_shm *shm)
{
	const struct mxd_board *b = shm->b;
	uint64_t k = 0;

	for (uint32_t m = b->ep_open; m != 0; m &= m - 1) {
		const struct mx_endpoint *ep = b->ep[__builtin_ctz(m)];

		k += ep->post_seq * 0x9e3779b97f4a7c15ull ^
			(uint64_t)ep->unexp_bytes << 20 ^
			(uint64_t)ep->unexp_n << 8 ^ ep->progression_off;
	}
	return k;
}

/* The records left in the ring of slot s (held) tried again, in order;
 * then the tail given back as far as they went. */
static unsigned
held_retry(struct mxd_shm *shm, unsigned s, int force)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	uint64_t pos = pe->tail;
	uint32_t off = pe->tail_off, held = 0;
	unsigned work = 0;

	/* Their partners start unheld: each one's first is tried. */
	while (pos != pe->rx.next) {
		const struct mxd_hrec *rec = mxd_hring_cell(pe->rx.cells, off);
		uint32_t n = rec_span(rec);
		struct mxd_partner *p;

		if (!taken_get(pe, off) && (p = rec_partner(shm, s, rec)) !=
				NULL)
			p->shm_held = 0;
		pos += n;
		off += n;
		if (off == pe->rx.n)
			off = 0;
	}
	pos = pe->tail;
	off = pe->tail_off;
	while (pos != pe->rx.next) {
		const struct mxd_hrec *rec = mxd_hring_cell(pe->rx.cells, off);
		uint32_t n = rec_span(rec);

		if (!taken_get(pe, off)) {
			if (take(shm, s, rec, force)) {
				taken_set(pe, off, 1);
				work++;
			} else {
				held++;
			}
		}
		pos += n;
		off += n;
		if (off == pe->rx.n)
			off = 0;
	}
	pe->held = held;
	tail_advance(pe);
	pe->retry_key = retry_key(shm);
	pe->retry_polls = 0;
	return work;
}

/* The new records of the ring of slot s, taken in order (held ones left,
 * those after them taken past them). */
static unsigned
ring_read(struct mxd_shm *shm, unsigned s, int force)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	struct mxd_hrec *rec;
	unsigned work = 0;

	if (pe->held != 0 && (force || ++pe->retry_polls >= RETRY_POLLS ||
				retry_key(shm) != pe->retry_key))
		work += held_retry(shm, s, force);
	while ((rec = mxd_hring_peek(&pe->rx)) != NULL) {
		uint32_t n = mxd_hring_rec_cells(&pe->rx, rec);
		uint32_t off = pe->rx.next_off;

		if (n == 0) {		/* a broken record: read no further */
			MXD_LOG(ERR, engine, "board %s: a broken record in the "
					"ring from slot %u (pid %d): it is "
					"read no more", shm->b->name, s,
					(int)pe->pid);
			shm->rx_mask &= ~(1ull << s);
			break;
		}
		if (pe->held == 0 && !force && take_plain(shm, s, rec)) {
			/* A receive completed: back to the program now.  A
			 * look at the next record would wait for its cell,
			 * which its producer cleared last (hring.h): a
			 * transfer between CPUs before the program could
			 * answer.  The next pass takes what follows. */
			mxd_hring_skip(&pe->rx, n);
			work++;
			break;
		} else if (!take(shm, s, rec, force)) {
			if (pe->held++ == 0) {	/* the tail stops here */
				pe->tail = pe->rx.next;
				pe->tail_off = off;
				pe->retry_key = retry_key(shm);
			}
		} else if (pe->held != 0) {
			taken_set(pe, off, 1);
		}
		mxd_hring_skip(&pe->rx, n);
		work++;
	}
	mxd_hring_publish(&pe->rx, pe->held != 0 ? pe->tail : pe->rx.next,
			force);
	return work;
}

unsigned
mxd_shm_read(struct mxd_shm *shm, uint64_t m)
{
	unsigned work = 0;

	for (; m != 0; m &= m - 1)
		work += ring_read(shm, (unsigned)__builtin_ctzll(m), 0);
	return work;
}

/*
 * The record rec that the poll found first, in the ring of the lowest
 * slot of m, which holds none back: taken the shortest way (take_plain)
 * without the look at the ring again, then the rings of the later slots
 * of m as mxd_shm_read reads them; anything else is mxd_shm_read's from
 * the start.  Apart from it, so that a record taken into a posted
 * receive costs a small function's registers, not ring_read's.
 */
unsigned
mxd_shm_read_first(struct mxd_shm *shm, uint64_t m, struct mxd_hrec *rec)
{
	unsigned s = (unsigned)__builtin_ctzll(m);
	struct mxd_shm_peer *pe = &shm->peer[s];
	uint32_t n = mxd_hring_rec_cells(&pe->rx, rec);

	if (n == 0 || !take_plain(shm, s, rec))
		return mxd_shm_read(shm, m);
	/* As ring_read after take_plain: back to the program now. */
	mxd_hring_skip(&pe->rx, n);
	mxd_hring_publish(&pe->rx, pe->rx.next, 0);
	m &= m - 1;
	return m != 0 ? 1 + mxd_shm_read(shm, m) : 1;
}

/* Starts reading the ring that slot s set up to us. */
static void
ring_attach(struct mxd_shm *shm, unsigned s)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	struct mxd_hring *r = mxd_hring_of(shm->h, s, shm->slot);
	uint32_t e;

	if (pe->rx_on || !mxd_hring_ready_for(r, shm->epoch, pe->let_go) ||
			r->p.cells != shm->ncells)
		return;
	e = __atomic_load_n(&r->p.prod_epoch, __ATOMIC_ACQUIRE);
	if (pe->epoch != 0 && pe->epoch != e) {
		shm->scan = 1;	/* the owner we know is gone: the watch first */
		return;
	}
	if (pe->taken == NULL) {
		pe->taken = calloc((shm->ncells + 63) / 64, sizeof(uint64_t));
		if (pe->taken == NULL) {
			shm->scan = 1;
			return;
		}
	}
	if (pe->epoch == 0)
		mxd_shm_peer_know(shm, s, e);
	pe->rx_epoch = mxd_hring_attach(r, &pe->rx);
	pe->rx_on = 1;
	shm->b->rings_held |= 1ull << s;	/* board/shared.c: not let go */
	pe->tail = 0;
	pe->tail_off = 0;
	pe->held = 0;
	shm->rx_mask |= 1ull << s;
}

/* The rings our mailbox says were set up to us (all of them: 'scan'). */
static void
rings_attach(struct mxd_shm *shm)
{
	uint64_t m = __atomic_exchange_n(shm->mail, 0, __ATOMIC_ACQUIRE);

	if (shm->scan) {
		shm->scan = 0;
		m = shm->nslots >= 64 ? ~0ull : (1ull << shm->nslots) - 1;
	}
	m &= ~(1ull << shm->slot);
	for (; m != 0; m &= m - 1)
		ring_attach(shm, (unsigned)__builtin_ctzll(m));
}

unsigned
mxd_shm_poll_any(struct mxd_board *b)
{
	struct mxd_shm *shm = b->shm;

	for (uint64_t m = shm->work; m != 0; m &= m - 1)
		mxd_shm_pump(shm, (unsigned)__builtin_ctzll(m));
	if (shm->splits != 0)
		mxd_shm_splits(shm);
	if (shm->scan || __atomic_load_n(shm->mail, __ATOMIC_RELAXED) != 0)
		rings_attach(shm);
	return mxd_shm_read(shm, shm->rx_mask);
}

/* ---- peers' lives ------------------------------------------------------- */

/* Slot s's owner that we knew is gone: see the top. */
static void
peer_gone(struct mxd_shm *shm, unsigned s)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	struct mxd_board *b = shm->b;

	mxd_count(b, MXD_C_SHM_PEER_DEAD);
	MXD_LOG(INFO, engine, "board %s: the process of slot %u (pid %d) "
			"is gone: its partners are lost", b->name, s,
			(int)pe->pid);
	/* 1. What it completed sending is delivered. */
	if (pe->rx_on) {
		ring_read(shm, s, 1);
		mxd_hring_let_go_of(pe->rx.r, pe->rx_epoch);
		pe->let_go = pe->rx_epoch;
		pe->rx_on = 0;
		b->rings_held &= ~(1ull << s);
		pe->held = 0;
		shm->rx_mask &= ~(1ull << s);
		memset(pe->taken, 0, (shm->ncells + 63) / 64 *
				sizeof(uint64_t));
	}
	/* 2. Its partners are lost; connects to it fail. */
	for (uint32_t m = b->ep_open; m != 0; m &= m - 1) {
		struct mx_endpoint *ep = b->ep[__builtin_ctz(m)];

		for (uint32_t i = 0; i < ep->npartners; i++) {
			struct mxd_partner *p = ep->partners[i];

			if (!p->shm || p->shm_slot != s)
				continue;
			p->shm_held = 0;
			if (p->state == MXD_PS_UP || p->state ==
					MXD_PS_REFUSED ||
					p->state == MXD_PS_CLOSED)
				mxd_partner_lost(p,
						MX_STATUS_ENDPOINT_UNREACHABLE);
			if (p->a != NULL && p->a->hs.id != 0 &&
					p->a->hs.status < 0)
				mxd_connect_answered(p, MXD_CONN_CLOSED);
		}
	}
	/* 3. Nothing more is written to it; a new owner is a new peer. */
	pe->tx_ok = 0;
	pe->notes_n = 0;
	pe->jobs_n = 0;
	shm->work &= ~(1ull << s);
	if (pe->pidfd >= 0)
		close(pe->pidfd);
	pe->pidfd = -1;
	pe->epoch = 0;
	pe->pid = 0;
	shm->scan = 1;		/* a new owner's ring may wait already */
}

/* Whether the owner of slot s we know is gone: its pidfd says it ended
 * (polled), or the slot is no longer its (state, epoch). */
static int
peer_dead(const struct mxd_shm *shm, unsigned s, const struct pollfd *pfd)
{
	const struct mxd_shm_peer *pe = &shm->peer[s];
	const struct mxd_host_slot *hs = &shm->h->slot[s];

	if (pfd != NULL && (pfd->revents & (POLLIN | POLLHUP | POLLERR)))
		return 1;
	if (__atomic_load_n(&hs->state, __ATOMIC_ACQUIRE) != MXD_HOST_SLOT_LIVE ||
			__atomic_load_n(&hs->epoch, __ATOMIC_ACQUIRE) !=
			pe->epoch)
		return 1;
	/* No pidfd (an old kernel, or it was gone before we looked). */
	return pe->pidfd < 0 && pe->pid > 0 && kill(pe->pid, 0) < 0 &&
		errno == ESRCH;
}

void
mxd_shm_watch(struct mxd_board *b)
{
	struct mxd_shm *shm = b->shm;
	struct pollfd pfd[MXD_HOST_SLOTS_MAX];
	int at[MXD_HOST_SLOTS_MAX];
	unsigned n = 0;

	if (shm == NULL)
		return;
	for (unsigned s = 0; s < shm->nslots; s++) {
		at[s] = -1;
		if (shm->peer[s].epoch == 0 || shm->peer[s].pidfd < 0)
			continue;
		at[s] = (int)n;
		pfd[n].fd = shm->peer[s].pidfd;
		pfd[n].events = POLLIN;
		pfd[n++].revents = 0;
	}
	if (n != 0 && poll(pfd, n, 0) < 0)
		n = 0;
	for (unsigned s = 0; s < shm->nslots; s++)
		if (shm->peer[s].epoch != 0 && peer_dead(shm, s,
					at[s] >= 0 && n != 0 ?
					&pfd[at[s]] : NULL))
			peer_gone(shm, s);
}
