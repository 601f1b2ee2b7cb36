/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints, partners and addresses (endpoint.h).
 *
 * A partner is created by mx_connect() on the requesting side and by the
 * CONN_REQ on the accepting side; each side tells the other its partner
 * index, so data frames find their partner in O(1) (dst_peer) and are
 * checked against the partner's endpoint id and session.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "glue.h"
#include "partners/endpoint.h"

#define TXREC_CHUNK 64

/* ---- endpoints ---------------------------------------------------------- */

struct mx_endpoint *
mxd_ep_new(struct mxd_board *b, uint32_t id, uint32_t filter,
		uint32_t unexp_max)
{
	struct mx_endpoint *ep = calloc(1, sizeof(*ep));

	if (ep == NULL)
		return NULL;
	/* Large-message tables apart: the hot fields stay close together. */
	ep->lsend = calloc(MXD_LSEND_MAX, sizeof(*ep->lsend));
	ep->pulls = calloc(MXD_PULLS_MAX, sizeof(*ep->pulls));
	if (ep->lsend == NULL || ep->pulls == NULL) {
		free(ep->lsend);
		free(ep->pulls);
		free(ep);
		return NULL;
	}
	ep->board = b;
	ep->id = id;
	ep->filter = filter;
	ep->unexp_max = unexp_max;
	mxd_list_init(&ep->posted);
	mxd_list_init(&ep->unexp);
	mxd_list_init(&ep->held);
	mxd_list_init(&ep->done);
	mxd_list_init(&ep->sending);
	mxd_list_init(&ep->connects);
	mxd_list_init(&ep->jobq);
	mxd_list_init(&ep->pulls_waiting);
	mxd_list_init(&ep->pulls_deferred);
	mxd_list_init(&ep->txrec_chunks);
	mxd_list_init(&ep->acks);
	mxd_list_init(&ep->timed);
	mxd_reqpool_init(&ep->reqs, ep);
	/* The first frame records now: the first sends do not wait for
	 * them. */
	if (mxd_txrec_grow(ep, 0) < 0 || mxd_txrec_grow(ep, 1) < 0) {
		mxd_ep_free(ep);
		return NULL;
	}
	return ep;
}

/* Written under the library lock; mx_wakeup reads them without it
 * (atomically), hence the atomic stores. */
void
mxd_ep_attach(struct mx_endpoint *ep)
{
	struct mxd_board *b = ep->board;

	__atomic_store_n(&b->ep[ep->id], ep, __ATOMIC_RELEASE);
	__atomic_store_n(&b->ep_open, b->ep_open | 1u << ep->id,
			__ATOMIC_RELEASE);
}

void
mxd_ep_free(struct mx_endpoint *ep)
{
	struct mxd_list *pos, *tmp;

	if (ep->board->ep[ep->id] == ep) {
		__atomic_store_n(&ep->board->ep_open, ep->board->ep_open &
				~(1u << ep->id), __ATOMIC_RELEASE);
		__atomic_store_n(&ep->board->ep[ep->id], NULL,
				__ATOMIC_RELEASE);
		ep->board->ep_busy &= ~(1u << ep->id);
		ep->board->ep_pump &= ~(1u << ep->id);
	}
	if (mxd_lib.live_hint[mxd_live_slot(ep)] == ep)
		mxd_lib.live_hint[mxd_live_slot(ep)] = NULL;
	for (uint32_t i = 0; i < ep->npartners; i++) {
		mxd_partner_reset(ep->partners[i], 0);
		free(ep->partners[i]->notify);
		free(ep->partners[i]);
	}
	mxd_list_foreach(pos, tmp, &ep->txrec_chunks)
		free(pos);
	mxd_reqpool_fini(&ep->reqs);
	free(ep->lsend);
	free(ep->pulls);
	free(ep);
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

/* ---- records of messages in flight -------------------------------------- */

/* Bytes of one record of each kind (endpoint.h). */
#define TXREC_BIG	(sizeof(struct mxd_txrec) + \
			MXD_MAX_FRAGS * sizeof(struct mxd_frame))
#define TXREC_SMALL	((sizeof(struct mxd_txrec) + MXD_TXCOPY_MAX + 15) & \
			~(size_t)15)

/* TXREC_CHUNK more records of frames (100 KiB), or of small records
 * (13 KiB), mapped in one call rather than a fault per page. */
int
mxd_txrec_grow(struct mx_endpoint *ep, int small)
{
	size_t size = small ? TXREC_SMALL : TXREC_BIG;
	struct mxd_list *c = malloc(64 + TXREC_CHUNK * size);
	struct mxd_txrec **free_list = small ? &ep->free_txsmall :
		&ep->free_txrec;

	if (c == NULL)
		return -1;
	mxd_glue_prefault(c, 64 + TXREC_CHUNK * size);
	mxd_list_add_tail(&ep->txrec_chunks, c);
	for (unsigned i = 0; i < TXREC_CHUNK; i++) {
		struct mxd_txrec *r = (struct mxd_txrec *)(void *)
			((char *)c + 64 + i * size);

		memset(r, 0, sizeof(*r));
		r->small = (uint8_t)small;
		r->pool_next = *free_list;
		*free_list = r;
	}
	return 0;
}


/* ---- partners ----------------------------------------------------------- */

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
			mxd_txrec_drop(p->ep, p->inflight[i]);
			p->inflight[i] = NULL;
		}
}

void
mxd_partner_reset(struct mxd_partner *p, uint32_t remote_session)
{
	partner_drop_inflight(p);
	if (p->ep->ack_held == p) {	/* an ack of the old windows */
		p->ep->ack_held = NULL;
		mxd_lib.acks_in--;
	}
	mxd_txwin_init(&p->tx, 1);
	mxd_rxwin_init(&p->rx, 1);
	p->remote_session = remote_session;
	mxd_partner_hdr_stale(p);
	p->ack_sent = 0;
	/* The old session's PULLs will not be answered: no port is silent. */
	memset(p->silent, 0, sizeof(p->silent));
}

int
mxd_partner_fresh(const struct mxd_partner *p)
{
	return p->tx.next_seq == 1 && p->rx.base == 1 && p->rx.next_match == 1;
}

/*
 * With the table full (MXD_MAX_PARTNERS), a partner the program cannot
 * know of is reused: never given out as an address, nothing heard from
 * it but connect requests (p->used), no connect of ours waiting on it,
 * nothing queued.  Such are what failed connects leave (NIC ids that never
 * answered) and what connect requests from forged NIC ids make; without
 * reuse they filled the table for the endpoint's life, and every later
 * mx_connect failed.  Of them, one not up goes first, then the one heard
 * from longest ago.  A peer whose request we answered but that has sent
 * nothing since finds its frames to the old index dropped as stale, and
 * its sends fail when it gives up on us: we forgot it, as if restarted.
 */
static int
partner_idle(const struct mx_endpoint *ep, const struct mxd_partner *p)
{
	return !p->used && p->notify_n == 0 && p->lsends == 0 &&
		p->pulls_out == 0 && ep->ack_held != p &&
		mxd_list_empty(&p->sendq) && mxd_list_empty(&p->syncq) &&
		mxd_list_empty(&p->sending) && mxd_list_empty(&p->ackq) &&
		mxd_list_empty(&p->jobq) && mxd_list_empty(&p->pulls);
}

static struct mxd_partner *
partner_reusable(struct mx_endpoint *ep)
{
	uint8_t waited[MXD_MAX_PARTNERS / 8] = { 0 };
	struct mxd_partner *best = NULL;
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->connects) {
		const struct mx_request *r = mxd_container_of(pos,
				struct mx_request, link);

		waited[r->partner->index / 8] |=
			(uint8_t)(1u << (r->partner->index & 7));
	}
	for (uint32_t i = 0; i < ep->npartners; i++) {
		struct mxd_partner *p = ep->partners[i];

		if ((waited[i / 8] >> (i & 7) & 1) || !partner_idle(ep, p))
			continue;
		if (best == NULL || (best->state == MXD_PS_UP &&
					p->state != MXD_PS_UP) ||
				((best->state == MXD_PS_UP) ==
				 (p->state == MXD_PS_UP) &&
				 p->last_heard < best->last_heard))
			best = p;
	}
	return best;
}

/* Makes p (zeroed but for its notice buffer) a new partner at 'index'. */
static void
partner_init(struct mx_endpoint *ep, struct mxd_partner *p, uint16_t index,
		uint64_t nic, uint32_t remote_ep)
{
	p->ep = ep;
	p->index = index;
	p->remote_index = MXD_NO_PEER;
	p->nic_id = nic;
	p->remote_ep = remote_ep;
	p->local = nic == ep->board->nic_id;
	p->port = p->local ? 0 : -1;
	p->state = MXD_PS_NEW;
	p->hs.status = -1;
	p->epoch = 1;
	mxd_list_init(&p->sendq);
	mxd_list_init(&p->syncq);
	mxd_list_init(&p->sending);
	mxd_list_init(&p->jobq);
	mxd_list_init(&p->ackq);
	mxd_list_init(&p->timed);
	mxd_list_init(&p->pulls);
	mxd_partner_reset(p, 0);
	mxd_partner_set_mtu(p, 0);
}

struct mxd_partner *
mxd_partner_new(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep)
{
	struct mxd_partner *p;

	if (ep->npartners == MXD_MAX_PARTNERS) {
		uint64_t *notify;
		uint32_t cap;
		uint16_t index;

		if ((p = partner_reusable(ep)) == NULL)
			return NULL;
		mxd_list_del(&p->timed);	/* no timer of its own left */
		notify = p->notify;
		cap = p->notify_cap;
		index = p->index;
		memset(p, 0, sizeof(*p));
		p->notify = notify;
		p->notify_cap = cap;
		partner_init(ep, p, index, nic, remote_ep);
		mxd_count(ep->board, MXD_C_PARTNER_REUSED);
		return p;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	partner_init(ep, p, (uint16_t)ep->npartners, nic, remote_ep);
	ep->partners[ep->npartners++] = p;
	return p;
}

/*
 * Headers around a payload: an eager fragment's (common + eager header)
 * and a pull reply's (common + pull reply header); the payload per frame
 * is what the MTU leaves, as the board's own limits are (board.c).
 */
#define EAGER_HDRS	(sizeof(struct mxd_hdr) + sizeof(struct mxd_eager_hdr))
#define PULLREP_HDRS	(sizeof(struct mxd_hdr) + \
			sizeof(struct mxd_pullrep_hdr))

int
mxd_partner_set_mtu(struct mxd_partner *p, uint32_t remote_mtu)
{
	const struct mxd_board *b = p->ep->board;
	uint32_t mtu = b->mtu, floor = remote_mtu < MXD_MTU_MIN ?
		MXD_MTU_MIN : remote_mtu;

	if (remote_mtu != 0 && floor < mtu)
		mtu = floor;
	p->remote_mtu = (uint16_t)remote_mtu;
	p->mtu = (uint16_t)mtu;
	if (mtu == b->mtu) {		/* ours: the board's figures */
		p->frag_max = (uint16_t)b->frag_max;
		p->pull_frag_max = (uint16_t)b->pull_frag_max;
		p->eager_max = b->eager_max;
	} else {
		p->frag_max = (uint16_t)(mtu - EAGER_HDRS);
		p->pull_frag_max = (uint16_t)(mtu - PULLREP_HDRS);
		p->eager_max = b->eager_max < p->frag_max * MXD_MAX_FRAGS ?
			b->eager_max : p->frag_max * MXD_MAX_FRAGS;
	}
	return remote_mtu != 0 && remote_mtu != b->mtu;
}

int
mxd_partner_rx_key(struct mxd_partner *p)
{
	uint8_t k[12];

	_Static_assert(offsetof(struct mxd_hdr, filter) == 12 &&
			offsetof(struct mxd_hdr, src_session) == 16 &&
			offsetof(struct mxd_hdr, dst_session) == 20 &&
			offsetof(struct mxd_hdr, epoch) == 3 &&
			offsetof(struct mxd_hdr, src_ep) == 4, "rx key");
	if (p->remote_session == 0)
		return 0;
	mxd_put32(k, p->ep->filter);
	mxd_put32(k + 4, p->remote_session);
	mxd_put32(k + 8, p->ep->session);
	memcpy(&p->rx_key_a, k, 8);
	memcpy(&p->rx_key_c, k + 8, 4);
	k[0] = (uint8_t)p->epoch;
	k[1] = (uint8_t)p->remote_ep;
	memcpy(&p->rx_key_e, k, 2);
	k[0] = p->epoch_hdr ? 0xff : 0;
	k[1] = 0xff;
	memcpy(&p->rx_mask_e, k, 2);
	p->rx_key_ok = 1;
	return 1;
}

static int
state_ok(enum mxd_peer_state from, enum mxd_peer_state to)
{
	switch (to) {
	case MXD_PS_UP:
	case MXD_PS_CLOSED:
		return 1;
	case MXD_PS_REFUSED:
		return from == MXD_PS_UP;
	case MXD_PS_LOST:
		return from == MXD_PS_UP || from == MXD_PS_REFUSED ||
			from == MXD_PS_CLOSED;
	case MXD_PS_NEW:
		return 0;
	}
	return 0;
}

void
mxd_partner_set_state(struct mxd_partner *p, enum mxd_peer_state s)
{
	assert(state_ok((enum mxd_peer_state)p->state, s));
	(void)state_ok;
	p->state = (uint8_t)s;
}

/* ---- addresses ---------------------------------------------------------- */

struct mxd_partner *
mxd_addr_lookup(const mx_endpoint_addr_t *a)
{
	struct mx_endpoint *ep = mxd_lib.initialized ?
		mxd_ep_by_session((uint32_t)(a->stuff[1] >> 32)) : NULL;
	uint32_t idx = (uint32_t)(a->stuff[1] & 0xffff);

	if (ep == NULL || idx == 0 || idx > ep->npartners)
		return NULL;
	return mxd_addr_partner(ep, a);
}
