/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large messages, the sender's half: rendezvous and serving pulls.
 *
 * Sender: a message above the eager limit is announced by a small RNDV
 * message (an EAGER message flagged RNDV carrying a descriptor: length,
 * send handle, frame size), matched in order like any other.  The send
 * stays in the endpoint's table of large sends until the receiver says
 * NOTIFY.  A PULL names the send by its handle and may read only within
 * that send's length, from the partner the send went to, at most a block;
 * anything else is refused and counted.  A PULL for a send that ended
 * without NOTIFY (timed out, or ended by mx_disconnect) is answered GONE,
 * which fails the receive with MX_STATUS_ABORTED: else it would ask for
 * ever, its partner alive.  Each PULL becomes a job on the partner, served
 * as tx room allows.
 *
 *
 * The receiver's half, which pulls, is pull.c; the two call each other
 * nowhere: they meet only on the wire.
 */
#include <string.h>

#include "csum.h"
#include "util/clock.h"
#include "util/config.h"
#include "partners/xmit.h"
#include "engine/face.h"
#include "engine/rndv.h"
#include "engine/timers.h"


/* job_frames: a pull reply's offset ends its headers. */
_Static_assert(offsetof(struct mxd_pullrep_hdr, offset) + 4 ==
		sizeof(struct mxd_pullrep_hdr), "offset last");
_Static_assert(MXD_LOOP_SIZE == MXD_TXQ_SIZE,
		"mxd_port_room counts both rings from the same size");
#define PUMP_DEPTH	64u	/* frames waiting in the tx queue, at most */
#define PULL_AHEAD	6144u	/* bytes of a send asked ahead of its copy */


/* Takes large send slot i out of the table. */
static void
lsend_clear(struct mx_endpoint *ep, uint32_t i)
{
	struct mx_request *r = ep->lsend[i];

	ep->lsend[i] = NULL;
	if (r->partner->a->lsends > 0)
		r->partner->a->lsends--;
}

static struct mx_request *
lsend_lookup(struct mx_endpoint *ep, uint32_t handle)
{
	struct mx_request *r = ep->lsend[handle & (MXD_LSEND_MAX - 1)];

	return r != NULL && r->rndv_handle == handle ? r : NULL;
}

struct mx_request *
mxd_rndv_lookup(struct mx_endpoint *ep, uint32_t handle)
{
	return lsend_lookup(ep, handle);
}

int
mxd_rndv_prepare(struct mx_request *r)
{
	struct mx_endpoint *ep = r->ep;

	for (uint32_t n = 0; n < MXD_LSEND_MAX; n++) {
		uint32_t i = (ep->lsend_next + n) & (MXD_LSEND_MAX - 1);

		if (ep->lsend[i] != NULL)
			continue;
		ep->lsend[i] = r;
		ep->lsend_next = i + 1;
		r->partner->a->lsends++;
		mxd_timer_watch(r->partner);
		do	/* never 0: "not prepared" (send.c) */
			r->rndv_handle = (++ep->lsend_gen << 12) | i;
		while (r->rndv_handle == 0);
		mxd_wire_put_rndv(r->desc, r->length, r->rndv_handle,
				r->partner->pull_frag_max,
				(uint16_t)mxd_face_head(r));
		return 0;
	}
	return -1;	/* table full: the send waits in its queue */
}

void
mxd_rndv_forget(struct mx_request *r)
{
	struct mx_endpoint *ep = r->ep;
	uint32_t i = r->rndv_handle & (MXD_LSEND_MAX - 1);

	if (ep->lsend[i] == r)
		lsend_clear(ep, i);
}

void
mxd_rndv_fail(struct mxd_partner *p, mx_status_code_t code)
{
	struct mx_endpoint *ep = p->ep;

	for (uint32_t i = 0; i < MXD_LSEND_MAX; i++) {
		struct mx_request *r = ep->lsend[i];

		if (r != NULL && r->partner == p) {
			lsend_clear(ep, i);
			mxd_req_complete(r, code);
		}
	}
	if (p->a->jobs != NULL) {	/* nothing more to serve */
		p->a->jobs->job_head = p->a->jobs->job_tail;
		p->a->jobs->again_head = p->a->jobs->again_tail;
	}
}

/* Large sends past their deadline (mx_set_request_timeout). */
void
mxd_rndv_expire(struct mx_endpoint *ep, uint64_t now)
{
	for (uint32_t i = 0; i < MXD_LSEND_MAX; i++) {
		struct mx_request *r = ep->lsend[i];

		if (r != NULL && r->state == MXD_RS_RNDV && r->deadline != 0 &&
				now >= r->deadline) {
			lsend_clear(ep, i);
			mxd_req_complete(r, MX_STATUS_TIMEOUT);
		}
	}
}

/* Large send r completes before its RNDV message's ack (an earlier
 * message was incomplete when the receiver took it): the ack, when it
 * comes, must not find r. */
static void
send_detach(struct mx_request *r)
{
	struct mxd_txrec *rec = r->partner->a->inflight[r->seq & (MXD_WIN - 1)];

	if (rec != NULL && rec->req == r)
		rec->req = NULL;
}

void
mxd_rndv_notified(struct mxd_partner *p, uint32_t handle)
{
	struct mx_request *r = lsend_lookup(p->ep, handle);

	if (r == NULL || r->partner != p) {	/* timed out, or forged */
		mxd_count(p->ep->board, MXD_C_BAD_PULL);
		return;
	}
	mxd_rndv_forget(r);
	send_detach(r);		/* all pulled, its ack perhaps not */
	mxd_req_complete(r, MX_STATUS_SUCCESS);
}

/*
 * A PULL from p (alive, its current session and epoch) names a send we do not
 * hold: it ended without NOTIFY, or the handle is wrong.  Say so, on the
 * port it came by; the receiver checks that the reply names its pull and
 * that pull's send.  Not sequenced: a GONE lost is asked for again by the
 * next PULL.
 */
static void
pull_gone(struct mxd_partner *p, unsigned port, const struct mxd_pkt *pkt)
{
	struct mxd_frame f;

	mxd_count(p->ep->board, MXD_C_PULL_GONE);
	if (mxd_port_room(p, port) == 0 || mxd_partner_frame_on(p, port,
				pkt->eth->src, MXD_T_PULL_REP,
				sizeof(struct mxd_pullrep_hdr), &f) < 0)
		return;
	mxd_wire_put_pullrep(f.data + MXD_HDRS_LEN, pkt->u.pull.recv_handle,
			pkt->u.pull.send_handle);
	mxd_wire_add_flags(f.data, MXD_F_GONE);
	mxd_partner_xmit_on(p, port, &f, 0);
}

void
mxd_pull_serve(struct mxd_partner *p, unsigned port, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = p->ep;
	struct mx_request *r = lsend_lookup(ep, pkt->u.pull.send_handle);
	struct mxd_pulljobs *q;
	struct mxd_pulljob *j;

	if (r == NULL) {		/* ended, or never was */
		pull_gone(p, port, pkt);
		return;
	}
	/* Only the window of the send it names, for the partner it went to,
	 * a block at most. */
	if (r->partner != p ||
			pkt->u.pull.offset + (uint64_t)pkt->u.pull.length >
			r->length || pkt->u.pull.frag > ep->board->pull_frag_max ||
			pkt->u.pull.length > (uint32_t)MXD_PULL_FRAMES *
			pkt->u.pull.frag) {
		mxd_count(ep->board, MXD_C_BAD_PULL);
		return;
	}
	/* Frames asked again hold their whole message back: they go first,
	 * not behind every block asked since (a round of recovery would
	 * otherwise wait for the whole queue). */
	if ((q = mxd_partner_jobs(p)) == NULL) {	/* out of memory */
		mxd_count(ep->board, MXD_C_PULL_BUSY);
		return;
	}
	if (pkt->h.flags & MXD_F_AGAIN) {
		if (q->again_tail - q->again_head == MXD_JOBS_AGAIN) {
			mxd_count(ep->board, MXD_C_PULL_BUSY);
			return;
		}
		j = &q->again[q->again_tail++ & (MXD_JOBS_AGAIN - 1)];
	} else {
		if (q->job_tail - q->job_head == MXD_JOBS) {
			mxd_count(ep->board, MXD_C_PULL_BUSY);
			return;
		}
		j = &q->jobs[q->job_tail++ & (MXD_JOBS - 1)];
	}
	j->send_handle = r->rndv_handle;
	j->recv_handle = pkt->u.pull.recv_handle;
	j->off = pkt->u.pull.offset;
	j->end = pkt->u.pull.offset + pkt->u.pull.length;
	j->frag = pkt->u.pull.frag;
	j->port = (uint8_t)port;
	memcpy(j->mac, pkt->eth->src, MXD_ETH_ALEN);
	if (mxd_list_empty(&p->a->jobq)) {
		mxd_list_add_tail(&ep->jobq, &p->a->jobq);
		mxd_ep_busy(ep, MXD_EW_JOBS);
	}
	mxd_pull_pump(p);
}

/*
 * Fills and queues n reply frames of job j (reading send r), allocated in
 * one go.  The first frame's headers are written field by field, the
 * others copied from it (they differ in offset and, the last, length);
 * then each frame's data is copied and checked in one pass.  Headers first
 * so that no check loads a header whose stores are still in flight (they
 * could not be forwarded to its wide loads).
 */
static unsigned
job_frames(struct mxd_partner *p, struct mxd_pulljob *j,
		const struct mx_request *r, unsigned n)
{
	struct mxd_frame f[MXD_BURST];
	uint32_t len[MXD_BURST], off = j->off, c0;
	const uint32_t hlen = MXD_HDRS_LEN + sizeof(struct mxd_pullrep_hdr);

	if (mxd_partner_alloc(p, j->port, f, n) != 0)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		uint16_t body;

		len[i] = j->end - off < j->frag ? j->end - off : j->frag;
		body = (uint16_t)(sizeof(struct mxd_pullrep_hdr) + len[i]);
		if (i == 0) {
			mxd_partner_frame_fill(p, j->port, j->mac,
					MXD_T_PULL_REP, body, &f[0]);
		} else {
			memcpy(f[i].data, f[0].data, MXD_HDRS_LEN);
			if (len[i] != len[0])
				mxd_wire_set_length(f[i].data, body);
			f[i].len = MXD_HDRS_LEN + body;
			mxd_frame_pad(&f[i]);
		}
		mxd_wire_put_pullrep(f[i].data + MXD_HDRS_LEN,
				j->recv_handle, off);
		off += len[i];
	}
	c0 = mxd_crc_update(MXD_CRC_INIT, f[0].data, hlen);
	for (unsigned i = 0; i < n; i++) {
		uint32_t c = c0;

		/* The CRC is linear: a header that differs from the first
		 * only in its last 4 bytes (the offset) differs in CRC by the
		 * CRC, from a zero register, of the 4 bytes' difference. */
		if (i > 0 && len[i] == len[0]) {
			uint32_t a, b;

			memcpy(&a, f[i].data + hlen - 4, 4);
			memcpy(&b, f[0].data + hlen - 4, 4);
			c ^= mxd_crc_word(0, a ^ b);
		} else if (i > 0) {
			c = mxd_crc_update(MXD_CRC_INIT, f[i].data, hlen);
		}
		/* The frame PULL_AHEAD bytes on (the next, if frames are
		 * larger) is asked for now: a buffer that comes from memory
		 * (one per message, as mx_stream sends) is then read at the
		 * copy's pace; the hardware's prefetcher stops at every
		 * page's end. */
		mxd_req_prefetch(r, (uint64_t)j->off + (len[i] < PULL_AHEAD ?
					PULL_AHEAD : len[i]), len[i]);
		mxd_wire_seal_crc(f[i].data, mxd_req_gather_crc(r, j->off,
					f[i].data + hlen, len[i], c));
		mxd_partner_xmit_on(p, j->port, &f[i], 1);
		j->off += len[i];
	}
	return n;
}

/* Serves the jobs of one queue (ring of size mask + 1) in order; 0 when
 * the tx queue is full before the last is done. */
static int
jobs_pump(struct mxd_partner *p, struct mxd_pulljob *ring, uint32_t mask,
		uint32_t *head, uint32_t tail)
{
	while (*head != tail) {
		struct mxd_pulljob *j = &ring[*head & mask];
		const struct mx_request *r = lsend_lookup(p->ep,
				j->send_handle);

		/* A send that ended meanwhile has nothing more to give. */
		while (r != NULL && j->off < j->end) {
			unsigned left = (unsigned)(((uint64_t)j->end - j->off +
						j->frag - 1) / j->frag);
			unsigned room = mxd_port_room(p, j->port);
			unsigned n = room > MXD_TXQ_SIZE - PUMP_DEPTH ?
				room - (MXD_TXQ_SIZE - PUMP_DEPTH) : 0;

			if (n > left)
				n = left;
			if (n > MXD_BURST)
				n = MXD_BURST;
			if (n == 0 || job_frames(p, j, r, n) == 0)
				return 0;
		}
		(*head)++;
	}
	return 1;
}

/*
 * Sends reply frames of p's jobs while fewer than PUMP_DEPTH frames wait in
 * the tx queue: frames are built just in time, in buffers still in cache
 * (a deep queue cycles through the whole pool, cold).  Frames asked again
 * first; a first ask cut short by them goes on where it stopped.
 */
void
mxd_pull_pump(struct mxd_partner *p)
{
	struct mxd_pulljobs *q = p->a->jobs;

	if (!jobs_pump(p, q->again, MXD_JOBS_AGAIN - 1, &q->again_head,
				q->again_tail) ||
			!jobs_pump(p, q->jobs, MXD_JOBS - 1, &q->job_head,
				q->job_tail))
		return;
	mxd_list_del(&p->a->jobq);
	mxd_partner_jobs_put(p);	/* all served: back to the pool */
}

void
mxd_pulls_pump(struct mx_endpoint *ep)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->jobq)
		mxd_pull_pump(mxd_container_of(pos, struct mxd_peer_act, jobq)->p);
}
