/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connect handshake, and the loss of a partner.
 *
 * mx_connect() (or mx_iconnect, or a first send to our own board) starts
 * a connect request on a partner; requests to one partner share one
 * handshake (struct mxd_handshake) until it is answered.  CONN_REQ goes
 * where the peer is known to be, else to every port as broadcast, every
 * MX_CONNECT_RETRY_MS until a CONN_REP comes or the request's deadline
 * passes.  Both sides learn the other's session, partner index, filter
 * and route from these frames (partner_learn): the accepting side from
 * the request, the requesting side from the reply.  The route is a port
 * and the peer's MAC there, and on a shared board the slot of the
 * process that holds the peer's endpoint (MXD_CAP_SLOT): requests go to
 * the peer board's slot 0, its service, which hands them to that process.
 *
 * A new session of the remote endpoint (it was closed and opened again)
 * ends everything of the old one.  Within a session, each side numbers
 * its state for the other by an epoch, carried by every CONN_REQ/REP:
 * both start at 1, and a side that starts over on its own (it declared
 * the other lost: mxd_partner_lost below) raises its epoch.  A request or reply with
 * a higher epoch than ours says the peer started over: we end our state
 * too (if we hold any) and take its epoch, so both begin again at message
 * 1.  One with a lower epoch was sent before a start-over (late,
 * duplicated or reordered): it changes nothing, and a request gets a
 * reply with our epoch, which tells a peer that has not heard of our
 * start-over.  Whether windows are "at their start" is never the test:
 * a peer's request sent before our first message may arrive after it.
 * Every other frame to a partner carries the epoch's low byte in its
 * common header, so that one sent before a start-over and delayed on
 * another port is dropped (recv.c) rather than taken for message 1 of
 * the new epoch, or its ack for an ack of the new messages.
 *
 * A partner's session ends here too (mxd_partner_lost): when it stops
 * answering (the peer timeout, progress/timers_run.c), restarts (a new
 * session seen by a handshake or a frame) or is told closed, every
 * request that depends on it fails, its windows start over and its
 * epoch rises, so that the next handshake begins a new one.
 */
#include <string.h>

#include "log.h"
#include "util/clock.h"
#include "util/config.h"
#include "partners/naming.h"
#include "partners/xmit.h"
#include "engine/connect.h"
#include "engine/pull.h"
#include "engine/recv.h"
#include "engine/send.h"
#include "engine/shmsend.h"
#include "engine/timers.h"

/* What we take, said in every request and reply. */
#define CAPS	(MXD_CAP_PACK | MXD_CAP_FRAGS | MXD_CAP_EPOCH)

/* ---- requests ----------------------------------------------------------- */

static void
conn_req_send(struct mx_endpoint *ep, struct mxd_partner *p, unsigned port,
		const uint8_t *dst)
{
	struct mxd_board *b = ep->board;
	struct mxd_hdr_args a = {
		.type = MXD_T_CONN_REQ, .src_ep = (uint8_t)ep->id,
		.flags = mxd_partner_fresh(p) ? MXD_F_FRESH : 0,
		.dst_ep = (uint8_t)p->remote_ep, .dst_peer = MXD_NO_PEER,
		.src_peer = p->index, .filter = p->a->hs.filter,
		.src_session = ep->session,
	};
	struct mxd_frame f;

	if (mxd_xmit_start(b, port, p->local, dst, &a,
				sizeof(struct mxd_conn_hdr), &f) < 0)
		return;
	mxd_wire_put_conn(f.data + MXD_HDRS_LEN, b->nic_id, p->nic_id,
			p->a->hs.id, ep->filter, MXD_CONN_OK, p->epoch,
			mxd_conn_mtu(b->mtu, b->slot), CAPS | mxd_caps_of_slot(b->slot,
				b->host != NULL));
	mxd_xmit_send(b, port, p->local, &f);
	mxd_count(b, MXD_C_CONN_REQ);
}

/* Sends the request where the peer is known to be, else on every port. */
static void
conn_req_round(struct mx_endpoint *ep, struct mxd_partner *p)
{
	static const uint8_t bcast[MXD_ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct mxd_board *b = ep->board;
	const struct mxd_peer *peer = mxd_naming_by_nic(p->nic_id);
	int sent = 0;

	if (p->shm) {		/* same host: through its ring */
		mxd_shm_conn_req(ep, p);
		return;
	}
	if (p->local) {
		conn_req_send(ep, p, 0, b->port[0]->mac);
		return;
	}
	for (unsigned i = 0; peer != NULL && i < b->nports; i++) {
		unsigned li = b->link_index[i];

		if ((peer->seen & (1u << li)) && mxd_board_port_up(b, i)) {
			conn_req_send(ep, p, i, peer->mac[li]);
			sent = 1;
		}
	}
	for (unsigned i = 0; !sent && i < b->nports; i++)
		conn_req_send(ep, p, i, bcast);
}

static mx_status_code_t
conn_status_code(int st)
{
	switch (st) {
	case MXD_CONN_OK:
		return MX_STATUS_SUCCESS;
	case MXD_CONN_CLOSED:
		return MX_STATUS_ENDPOINT_CLOSED;
	case MXD_CONN_BAD_KEY:
		return MX_STATUS_BAD_KEY;
	default:
		return MX_STATUS_NO_RESOURCES;
	}
}

static void
connect_finish(struct mx_request *r, mx_status_code_t code)
{
	struct mxd_partner *p = r->partner;

	if (code == MX_STATUS_SUCCESS)
		mxd_partner_addr(p, &r->status.source);
	p->a->connects--;
	mxd_req_complete(r, code);
}

/* The handshake with p has its answer: its connect requests complete. */
static void
connects_answered(struct mxd_partner *p)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &p->ep->connects) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (r->partner == p)
			connect_finish(r, conn_status_code(p->a->hs.status));
	}
	p->a->hs.id = 0;
}

void
mxd_connects_progress(struct mx_endpoint *ep, uint64_t now)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->connects) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);
		struct mxd_partner *p = r->partner;

		if (r->deadline && now >= r->deadline) {
			connect_finish(r, MX_STATUS_TIMEOUT);
		} else if (mxd_shm_moved(p)) {
			/* Same host: open nowhere now, or by another process
			 * (connect again: a new peer). */
			connect_finish(r, MX_STATUS_ENDPOINT_CLOSED);
		} else if (now >= p->a->hs.next) {
			conn_req_round(ep, p);
			p->a->hs.next = now + mxd_conf.connect_retry_ms *
				1000000ull;
		}
	}
}

int
mxd_connect_start(struct mx_request *r, uint64_t nic, uint32_t remote_ep,
		uint32_t filter, uint32_t timeout_ms)
{
	struct mx_endpoint *ep = r->ep;
	struct mxd_partner *p = mxd_partner_find(ep, nic, remote_ep);

	if (p == NULL && (p = mxd_partner_new(ep, nic, remote_ep)) == NULL)
		return -MX_NO_RESOURCES;
	/* An endpoint of our board held by another process of the host: a
	 * same-host partner; one that moved to another process since is a
	 * new peer, the old one gone. */
	if (mxd_shm_moved(p) && p->state != MXD_PS_NEW &&
			p->state != MXD_PS_LOST)
		mxd_partner_lost(p, MX_STATUS_ENDPOINT_UNREACHABLE);
	mxd_shm_route(p);
	if (mxd_partner_act(p) == NULL)		/* for its handshake */
		return -MX_NO_RESOURCES;
	p->a->connects++;
	/* Connects to one partner share its handshake; a new filter starts
	 * a new one. */
	if (p->a->hs.id == 0 || p->a->hs.filter != filter) {
		p->a->hs.id = ++ep->next_conn_id;
		p->a->hs.status = -1;
		p->a->hs.filter = filter;
		p->a->hs.next = 0;
	}
	r->partner = p;
	mxd_req_set_state(r, MXD_RS_QUEUED);
	mxd_list_add_tail(&ep->connects, &r->link);
	mxd_ep_busy(ep, MXD_EW_TIMERS);
	if (timeout_ms)
		mxd_timer_deadline(r, timeout_ms);
	mxd_connects_progress(ep, mxd_now_ns());
	return 0;
}

void
mxd_connect_abandon(struct mx_request *r)
{
	if (r->state == MXD_RS_QUEUED) {
		mxd_list_del(&r->link);
		r->partner->a->connects--;
		mxd_req_set_state(r, MXD_RS_COMPLETE);
	}
}

/* ---- answers ------------------------------------------------------------ */

static void
conn_reply(struct mxd_board *b, unsigned port, const struct mxd_pkt *pkt,
		struct mx_endpoint *ep, struct mxd_partner *p, uint8_t status)
{
	struct mxd_hdr_args a = {
		.type = MXD_T_CONN_REP,
		.flags = p != NULL && mxd_partner_fresh(p) ? MXD_F_FRESH : 0,
		.src_peer = p ? p->index : MXD_NO_PEER,
		.filter = pkt->u.conn.src_filter,
		.src_session = ep ? ep->session : 0,
	};
	struct mxd_frame f;
	int local = mxd_answer_start(b, port, pkt, &a,
			sizeof(struct mxd_conn_hdr), &f);

	if (local < 0)
		return;
	mxd_wire_put_conn(f.data + MXD_HDRS_LEN, b->nic_id,
			pkt->u.conn.src_nic, pkt->u.conn.conn_id,
			ep ? ep->filter : 0, status, p != NULL ? p->epoch : 0,
			mxd_conn_mtu(b->mtu, b->slot), CAPS | mxd_caps_of_slot(b->slot,
				b->host != NULL));
	mxd_answer_send(b, port, local, &f);
}

/*
 * The partner said an MTU other than our board's: frames both ways are
 * cut to the smaller (mxd_partner_set_mtu).  Said once per partner and
 * MTU, on both sides, since neither side's frames are as large as its
 * own MTU allows.
 */
static void
mtu_learn(struct mxd_partner *p, uint16_t remote_mtu)
{
	const struct mxd_board *b = p->ep->board;
	const struct mxd_peer *peer;

	if (!mxd_partner_set_mtu(p, remote_mtu) || p->mtu_said == remote_mtu)
		return;
	p->mtu_said = remote_mtu;
	peer = mxd_naming_by_nic(p->nic_id);
	MXD_LOG(WARNING, engine, "board %s endpoint %u: partner %s "
			"(NIC %012llx) endpoint %u has MTU %u, this board %u: "
			"frames between them carry at most %u bytes (eager "
			"fragments of %u, pull replies of %u); give both sides "
			"the same MX_MTU (and port buffers) to use larger frames",
			b->name, p->ep->id, peer != NULL && peer->name[0] ?
			peer->name : "?", (unsigned long long)p->nic_id,
			p->remote_ep, remote_mtu, b->mtu, p->mtu, p->frag_max,
			p->pull_frag_max);
}

/*
 * Points p at the sender of pkt: session, epoch, index, route, MTU.
 * Returns -1, changing nothing, for a frame older than our epoch (see the
 * top).
 */
static int
partner_learn(struct mxd_partner *p, unsigned port, const struct mxd_pkt *pkt)
{
	uint32_t epoch = pkt->u.conn.epoch;
	int same = p->epoch_session == pkt->h.src_session;

	if (p->remote_session != 0 &&
			p->remote_session != pkt->h.src_session) {
		mxd_count(p->ep->board, MXD_C_PEER_RESET);
		mxd_partner_lost(p, MX_STATUS_ENDPOINT_CLOSED);
	} else if (!same) {
		/* First contact with the peer's current session: its epoch
		 * is the one. */
	} else if (epoch > p->epoch) {
		if (!mxd_partner_fresh(p)) {
			mxd_count(p->ep->board, MXD_C_PEER_RESET);
			mxd_partner_lost(p, MX_STATUS_ENDPOINT_UNREACHABLE);
		}
	} else if (epoch < p->epoch) {
		mxd_count_drop(p->ep->board, MXD_DROP_STALE);
		return -1;
	}
	p->epoch = epoch;
	p->epoch_session = pkt->h.src_session;
	p->remote_session = pkt->h.src_session;
	p->last_heard = mxd_now_ns();
	p->remote_index = pkt->h.src_peer;
	mtu_learn(p, pkt->u.conn.mtu);
	p->pack = (pkt->u.conn.caps & MXD_CAP_PACK) != 0;
	p->frags = (pkt->u.conn.caps & MXD_CAP_FRAGS) != 0;
	p->epoch_hdr = (pkt->u.conn.caps & MXD_CAP_EPOCH) != 0;
	p->slot = pkt->u.conn.slot;
	if (!p->local) {
		p->port = (int)port;
		memcpy(p->mac, pkt->eth->src, MXD_ETH_ALEN);
	} else {
		memcpy(p->mac, p->ep->board->port[0]->mac, MXD_ETH_ALEN);
	}
	p->fail = MX_STATUS_SUCCESS;
	mxd_partner_hdr_stale(p);
	mxd_partner_set_state(p, MXD_PS_UP);
	return 0;
}

void
mxd_rx_conn_req(struct mxd_board *b, unsigned port, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = mxd_ep_of(b, pkt->h.dst_ep);
	struct mxd_partner *p;

	if (pkt->u.conn.dst_nic != b->nic_id) {
		mxd_count_drop(b, MXD_DROP_PEER);	/* broadcast, not us */
		return;
	}
	if (ep == NULL) {
		conn_reply(b, port, pkt, NULL, NULL, MXD_CONN_CLOSED);
		return;
	}
	if (pkt->h.filter != ep->filter) {
		mxd_count_drop(b, MXD_DROP_FILTER);
		conn_reply(b, port, pkt, ep, NULL, MXD_CONN_BAD_KEY);
		return;
	}
	p = mxd_partner_find(ep, pkt->u.conn.src_nic, pkt->h.src_ep);
	if (p == NULL)
		p = mxd_partner_new(ep, pkt->u.conn.src_nic, pkt->h.src_ep);
	if (p == NULL) {
		conn_reply(b, port, pkt, ep, NULL, MXD_CONN_NO_RES);
		return;
	}
	if (partner_learn(p, port, pkt) == 0) {
		p->remote_filter = pkt->u.conn.src_filter;
		mxd_partner_hdr_stale(p);
	}
	conn_reply(b, port, pkt, ep, p, MXD_CONN_OK);	/* with our epoch */
}

void
mxd_rx_conn_rep(struct mxd_board *b, unsigned port, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = mxd_ep_of(b, pkt->h.dst_ep);
	struct mxd_partner *p;

	if (ep == NULL || pkt->h.dst_session != ep->session ||
			pkt->u.conn.dst_nic != b->nic_id) {
		mxd_count_drop(b, MXD_DROP_ENDPOINT);
		return;
	}
	if (pkt->h.dst_peer >= ep->npartners) {
		mxd_count_drop(b, MXD_DROP_PEER);
		return;
	}
	p = ep->partners[pkt->h.dst_peer];
	if (p->a == NULL || p->a->hs.id == 0 ||
			p->a->hs.id != pkt->u.conn.conn_id ||
			p->nic_id != pkt->u.conn.src_nic ||
			p->remote_ep != pkt->h.src_ep || p->a->hs.status >= 0) {
		mxd_count_drop(b, MXD_DROP_PEER);	/* stale or forged */
		return;
	}
	if (pkt->u.conn.status == MXD_CONN_OK) {
		if (partner_learn(p, port, pkt) < 0)
			return;		/* from before our start-over: ask on */
		p->remote_filter = p->a->hs.filter;
		mxd_partner_hdr_stale(p);
	}
	p->a->hs.status = pkt->u.conn.status;
	connects_answered(p);
}

/* ---- same-host partners (engine/shm.c) --------------------------------- */

void
mxd_connect_learn_shm(struct mxd_partner *p, uint32_t session, uint16_t index,
		uint32_t filter)
{
	if (p->remote_session != 0 && p->remote_session != session) {
		mxd_count(p->ep->board, MXD_C_PEER_RESET);
		mxd_partner_lost(p, MX_STATUS_ENDPOINT_CLOSED);
	}
	p->remote_session = session;
	p->remote_index = index;
	p->remote_filter = filter;
	p->last_heard = mxd_now_ns();
	p->fail = MX_STATUS_SUCCESS;
	p->shm_hdr_ok = 0;
	mxd_partner_set_state(p, MXD_PS_UP);
}

void
mxd_connect_answered(struct mxd_partner *p, uint8_t status)
{
	p->a->hs.status = status;
	connects_answered(p);
}

/* ---- loss --------------------------------------------------------------- */

void
mxd_partner_lost(struct mxd_partner *p, mx_status_code_t code)
{
	mxd_send_ack_settle(p);		/* what arrived is not lost */
	mxd_sends_lost(p, code);	/* before the frames are dropped */
	mxd_sends_fail(p, code);
	mxd_pulls_fail(p, code);
	mxd_recv_partner_lost(p, code);
	/* Windows start over; its frames are stale from now on. */
	mxd_partner_reset(p, 0);
	p->epoch++;		/* the peer starts over too when it hears */
	p->fail = code;
	mxd_partner_set_state(p, MXD_PS_LOST);
	if (p->a == NULL)
		return;
	p->a->notify_n = 0;
	p->a->backoff = 0;
	p->a->probe_since = 0;
	memset(&p->a->rtt, 0, sizeof(p->a->rtt));
	memset(&p->a->pull_rtt, 0, sizeof(p->a->pull_rtt));
	mxd_list_del(&p->a->timed);
	mxd_list_del(&p->a->ackq);
	p->a->ack_queued = 0;
}

/*
 * The board lost its service (a shared board, board/shared.c): nothing
 * reaches the wire any more.  Every partner is lost, connect requests
 * and posted receives fail, all with 'code'; called again at each look
 * of the watch, it fails what was posted since.
 */
void
mxd_ep_orphaned(struct mx_endpoint *ep, mx_status_code_t code)
{
	struct mxd_list *pos, *tmp;

	for (uint32_t i = 0; i < ep->npartners; i++) {
		struct mxd_partner *p = ep->partners[i];

		if (p->state == MXD_PS_UP || (p->state == MXD_PS_NEW &&
					p->a != NULL))
			mxd_partner_lost(p, code);
	}
	mxd_list_foreach(pos, tmp, &ep->connects)
		connect_finish(mxd_container_of(pos, struct mx_request, link),
				code);
	mxd_recvs_fail(ep, code);
}
