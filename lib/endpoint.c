/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partners, endpoint addresses and the connect handshake.
 *
 * A partner is created by mx_connect() on the requesting side and by the
 * CONN_REQ on the accepting side; each side tells the other its partner
 * index, so data frames find their partner in O(1) (dst_peer) and are
 * checked against the partner's endpoint id and session.  A new session
 * of the remote endpoint (it was closed and reopened) resets the partner's
 * windows: frames of the old session no longer match and are dropped.
 *
 * mx_endpoint_addr_t holds the remote NIC id and endpoint id (word 0) and
 * our session and partner index (word 1), so an address from another or a
 * closed endpoint is recognised instead of trusted.
 */
#include <stdlib.h>
#include <string.h>

#include "mxd.h"

#define TXREC_CHUNK 64

struct txrec_chunk {
	struct mxd_list link;
	struct mxd_txrec r[TXREC_CHUNK];
};

struct mxd_txrec *
mxd_txrec_get(struct mx_endpoint *ep)
{
	struct mxd_txrec *r = ep->free_txrec;

	if (r == NULL) {
		struct txrec_chunk *c = malloc(sizeof(*c));

		if (c == NULL)
			return NULL;
		mxd_list_add_tail(&ep->txrec_chunks, &c->link);
		for (unsigned i = 0; i < TXREC_CHUNK; i++) {
			c->r[i].pool_next = ep->free_txrec;
			ep->free_txrec = &c->r[i];
		}
		r = ep->free_txrec;
	}
	ep->free_txrec = r->pool_next;
	r->nframes = 0;
	return r;
}

void
mxd_txrec_put(struct mx_endpoint *ep, struct mxd_txrec *r)
{
	if (r->nframes)
		ep->board->port[0]->ops->free(r->frames, r->nframes);
	r->nframes = 0;
	r->pool_next = ep->free_txrec;
	ep->free_txrec = r;
}

struct mxd_partner *
mxd_partner_find(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep)
{
	for (uint32_t i = 0; i < ep->npartners; i++) {
		struct mxd_partner *p = ep->partners[i];

		if (p->nic_id == nic && p->remote_ep == remote_ep)
			return p;
	}
	return NULL;
}

static void
partner_drop_inflight(struct mxd_partner *p)
{
	for (unsigned i = 0; i < MXD_WIN; i++)
		if (p->inflight[i] != NULL) {
			mxd_txrec_put(p->ep, p->inflight[i]);
			p->inflight[i] = NULL;
		}
}

void
mxd_partner_reset(struct mxd_partner *p, uint32_t remote_session)
{
	partner_drop_inflight(p);
	mxd_txwin_init(&p->tx, 1);
	mxd_rxwin_init(&p->rx, 1);
	p->remote_session = remote_session;
	p->ack_sent = 0;
	/* The old session's PULLs will not be answered: no port is silent. */
	memset(p->silent, 0, sizeof(p->silent));
}

struct mxd_partner *
mxd_partner_new(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep)
{
	struct mxd_partner *p;

	if (ep->npartners == MXD_MAX_PARTNERS)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->ep = ep;
	p->index = (uint16_t)ep->npartners;
	p->remote_index = MXD_NO_PEER;
	p->nic_id = nic;
	p->remote_ep = remote_ep;
	p->local = nic == ep->board->nic_id;
	p->port = p->local ? 0 : -1;
	p->conn_status = -1;
	mxd_list_init(&p->sendq);
	mxd_list_init(&p->syncq);
	mxd_list_init(&p->sending);
	mxd_list_init(&p->jobq);
	mxd_list_init(&p->ackq);
	mxd_list_init(&p->timed);
	mxd_list_init(&p->pulls);
	mxd_partner_reset(p, 0);
	ep->partners[ep->npartners++] = p;
	return p;
}

void
mxd_partner_addr(const struct mxd_partner *p, mx_endpoint_addr_t *a)
{
	a->stuff[0] = (p->nic_id & 0xffffffffffffull) |
		((uint64_t)p->remote_ep << 48);
	a->stuff[1] = ((uint64_t)p->ep->session << 32) | (p->index + 1u);
}

struct mxd_partner *
mxd_addr_partner(struct mx_endpoint *ep, const mx_endpoint_addr_t *a)
{
	uint32_t idx = (uint32_t)(a->stuff[1] & 0xffff);
	uint64_t nic = a->stuff[0] & 0xffffffffffffull;
	uint32_t rep = (uint32_t)(a->stuff[0] >> 48);
	struct mxd_partner *p;

	if ((uint32_t)(a->stuff[1] >> 32) == ep->session && idx != 0 &&
			idx <= ep->npartners)
		return ep->partners[idx - 1];
	/* An address of another endpoint, or our own address: find or make
	 * the partner here (own board: connect through loopback). */
	p = mxd_partner_find(ep, nic, rep);
	if (p != NULL && p->connected)
		return p;
	if (nic == ep->board->nic_id && rep < MX_MAX_ENDPOINTS &&
			ep->board->ep[rep] != NULL &&
			mxd_connect(ep, nic, rep, ep->board->ep[rep]->filter,
				1000, &p) == 0)
		return p;
	return NULL;
}

/* ---- connect ---------------------------------------------------------- */

static void
conn_req_send(struct mx_endpoint *ep, struct mxd_partner *p, uint32_t filter,
		unsigned port, const uint8_t *dst)
{
	struct mxd_board *b = ep->board;
	struct mxd_hdr_args a = {
		.type = MXD_T_CONN_REQ, .src_ep = (uint8_t)ep->id,
		.flags = mxd_partner_fresh(p) ? MXD_F_FRESH : 0,
		.dst_ep = (uint8_t)p->remote_ep, .dst_peer = MXD_NO_PEER,
		.src_peer = p->index, .filter = filter,
		.src_session = ep->session,
	};
	struct mxd_frame f;

	if ((p->local ? mxd_loop_room(b) : mxd_txq_room(b, port)) == 0 ||
			mxd_frame_start(b, port, dst, &a,
				sizeof(struct mxd_conn_hdr), &f) < 0)
		return;
	mxd_wire_put_conn(f.data + MXD_HDRS_LEN, b->nic_id, p->conn_id,
			ep->filter, MXD_CONN_OK);
	if (p->local)
		mxd_loop_push(b, &f);
	else
		mxd_txq_push(b, port, &f);
	mxd_count(b, MXD_C_CONN_REQ);
}

/* Sends the request where the peer is known to be, else on every port. */
static void
conn_req_round(struct mx_endpoint *ep, struct mxd_partner *p, uint32_t filter)
{
	static const uint8_t bcast[MXD_ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct mxd_board *b = ep->board;
	const struct mxd_peer *peer = mxd_naming_by_nic(p->nic_id);
	int sent = 0;

	if (p->local) {
		conn_req_send(ep, p, filter, 0, b->port[0]->mac);
		return;
	}
	for (unsigned i = 0; peer != NULL && i < b->nports; i++) {
		unsigned li = b->link_index[i];

		if ((peer->seen & (1u << li)) && mxd_board_port_up(b, i)) {
			conn_req_send(ep, p, filter, i, peer->mac[li]);
			sent = 1;
		}
	}
	for (unsigned i = 0; !sent && i < b->nports; i++)
		conn_req_send(ep, p, filter, i, bcast);
	mxd_board_flush(b);
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
	mxd_req_complete(r, code);
}

void
mxd_connects_answered(struct mxd_partner *p)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &p->ep->connects) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (r->partner == p)
			connect_finish(r, conn_status_code(p->conn_status));
	}
	p->conn_id = 0;
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
		} else if (now >= p->conn_next) {
			conn_req_round(ep, p, p->conn_filter);
			p->conn_next = now +
				mxd_lib.conf.connect_retry_ms * 1000000ull;
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
	/* Connects to one partner share its handshake; a new filter starts
	 * a new one. */
	if (p->conn_id == 0 || p->conn_filter != filter) {
		p->conn_id = ++ep->next_conn_id;
		p->conn_status = -1;
		p->conn_filter = filter;
		p->conn_next = 0;
	}
	r->partner = p;
	mxd_req_set_state(r, MXD_RS_QUEUED);
	mxd_list_add_tail(&ep->connects, &r->link);
	if (timeout_ms) {
		r->deadline = mxd_now_ns() + timeout_ms * 1000000ull;
		ep->ntimed++;
	}
	mxd_connects_progress(ep, mxd_now_ns());
	mxd_board_flush(ep->board);
	return 0;
}

static int
req_complete(void *arg)
{
	return ((struct mx_request *)arg)->state == MXD_RS_COMPLETE;
}

int
mxd_connect(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep,
		uint32_t filter, uint32_t timeout_ms, struct mxd_partner **out)
{
	struct mx_request *r = mxd_req_get(ep, MXD_REQ_CONNECT, NULL);
	mx_status_code_t code;
	struct mxd_partner *p;
	int ret;

	if (r == NULL)
		return -MX_NO_RESOURCES;
	ret = mxd_connect_start(r, nic, remote_ep, filter,
			timeout_ms ? timeout_ms : 1);
	while (ret == 0 && !req_complete(r))	/* bounded by r's deadline */
		mxd_poll_until(ep, req_complete, r, 0);
	code = r->status.code;
	p = r->partner;
	mxd_req_put(r);
	if (ret < 0)
		return ret;
	switch (code) {
	case MX_STATUS_SUCCESS:
		*out = p;
		return 0;
	case MX_STATUS_ENDPOINT_CLOSED:
		return -MX_CONNECTION_FAILED;
	case MX_STATUS_BAD_KEY:
		return -MX_BAD_CONNECTION_KEY;
	case MX_STATUS_TIMEOUT:
		return mxd_naming_by_nic(nic) == NULL ?
			-MX_NIC_NOT_FOUND : -MX_TIMEOUT;
	default:
		return -MX_NO_RESOURCES;
	}
}

struct mx_endpoint *
mxd_ep_by_session(uint32_t session)
{
	for (unsigned i = 0; i < mxd_lib.nboards; i++)
		for (unsigned e = 0; e < MX_MAX_ENDPOINTS; e++) {
			struct mx_endpoint *ep = mxd_lib.boards[i]->ep[e];

			if (ep != NULL && ep->session == session)
				return ep;
		}
	return NULL;
}
