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
#include "util/config.h"
#include "board/shared.h"
#include "partners/endpoint.h"

#define TXREC_CHUNK 64

/* ---- endpoints ---------------------------------------------------------- */

static int act_grow(struct mx_endpoint *ep);
static int slots_grow(struct mx_endpoint *ep);
static int pools_free(struct mx_endpoint *ep, uint32_t acts, uint32_t slots,
		uint32_t jobs, uint32_t max);

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
	mxd_list_init(&ep->partner_chunks);
	mxd_list_init(&ep->active);
	ep->partners_max = mxd_conf.max_partners < MXD_PARTNERS_FLOOR ?
		MXD_PARTNERS_FLOOR : mxd_conf.max_partners > MXD_PARTNERS_CEIL ?
		MXD_PARTNERS_CEIL : mxd_conf.max_partners;
	mxd_reqpool_init(&ep->reqs, ep);
	/* The first frame records and traffic states now: the first
	 * messages do not wait for them. */
	if (mxd_txrec_grow(ep, 0) < 0 || mxd_txrec_grow(ep, 1) < 0 ||
			act_grow(ep) < 0 || slots_grow(ep) < 0) {
		mxd_ep_free(ep);
		return NULL;
	}
	ep->msg_tried = mxd_ep_msg_chunks(ep);
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
		mxd_shared_ep_release(ep->board, ep->id);
		ep->board->ep_busy &= ~(1u << ep->id);
		ep->board->ep_pump &= ~(1u << ep->id);
	}
	for (unsigned s = 0; s < MXD_LIVE_HINTS; s++)
		if (mxd_lib.live_hint[s] == ep)
			mxd_lib.live_hint[s] = MXD_NO_EP;
	for (uint32_t i = 0; i < ep->npartners; i++) {
		mxd_partner_reset(ep->partners[i], 0);
		if (ep->partners[i]->a != NULL)
			mxd_partner_act_put(ep->partners[i]);
		free(ep->partners[i]->rx.slot);	/* NULL: slots go with a */
	}
	pools_free(ep, 0, 0, 0, UINT32_MAX);
	mxd_list_foreach(pos, tmp, &ep->partner_chunks)
		free(pos);
	free(ep->partners);
	free(ep->partner_hash);
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
	ep->txrec_nchunks++;
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


/* ---- traffic state: its pools ------------------------------------------ */

/*
 * Each object of the three pools is a block of the heap of its own, so
 * that what a pool holds beyond its floor can go back (mxd_ep_pools_trim).
 * An empty pool grows by a few at once, each written whole as it comes
 * (its pages faulted then, not by the first messages that use it).
 */
#define ACT_GROW	16	/* traffic states, 2.6 KiB each */
#define SLOTS_GROW	4	/* receive windows' slots, 12 KiB each */
#define JOBS_GROW	2	/* PULL queues, 16 KiB each */
#define POOL_TRIM	64	/* of each kind per look, at most */

static int
act_grow(struct mx_endpoint *ep)
{
	for (unsigned i = 0; i < ACT_GROW; i++) {
		struct mxd_peer_act *a = malloc(sizeof(*a));

		if (a == NULL)
			return i > 0 ? 0 : -1;
		memset(a, 0, sizeof(*a));	/* notify NULL */
		a->next_free = ep->free_act;
		ep->free_act = a;
		ep->nact++;
		ep->free_act_n++;
	}
	return 0;
}

struct mxd_peer_act *
mxd_partner_act_take(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_peer_act *a;
	uint64_t *notify;
	uint32_t cap;

	if (ep->free_act == NULL && act_grow(ep) < 0)
		return NULL;
	a = ep->free_act;
	ep->free_act = a->next_free;
	ep->free_act_n--;
	notify = a->notify;		/* a buffer grown once stays */
	cap = a->notify_cap;
	memset(a, 0, sizeof(*a));
	a->notify = notify;
	a->notify_cap = cap;
	a->p = p;
	a->note_hi = p->tx.acked;
	mxd_partner_addr_of(p, &a->addr);
	a->hs.status = -1;
	mxd_list_init(&a->ackq);
	mxd_list_init(&a->timed);
	mxd_list_init(&a->sendq);
	mxd_list_init(&a->sending);
	mxd_list_init(&a->syncq);
	mxd_list_init(&a->jobq);
	mxd_list_init(&a->pulls);
	mxd_list_add_tail(&ep->active, &a->active);
	ep->nactive++;
	mxd_ep_busy(ep, MXD_EW_TIMERS);	/* its look gives it back */
	p->a = a;
	return a;
}

#define SLOTS_BYTES	(MXD_WIN * sizeof(struct mxd_rxslot))

static int
slots_grow(struct mx_endpoint *ep)
{
	for (unsigned i = 0; i < SLOTS_GROW; i++) {
		void *s = malloc(SLOTS_BYTES);

		if (s == NULL)
			return i > 0 ? 0 : -1;
		memset(s, 0, SLOTS_BYTES);	/* every slot inactive */
		*(void **)s = ep->free_slots;
		ep->free_slots = s;
		ep->nslots++;
		ep->free_slots_n++;
	}
	return 0;
}

/*
 * Slots come back to the pool with every slot inactive (the window
 * empty: nothing held, mxd_partner_slots_put; or a reset emptied them),
 * as they were made: taken without clearing 12 KiB.  The pool's link
 * is in the first slot's sequence number and length, which a slot's
 * start writes over (rxwin.c).
 */
int
mxd_partner_slots(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;
	void *s;

	if (p->rx.slot != NULL)
		return 0;
	if (ep->free_slots == NULL && slots_grow(ep) < 0)
		return -1;
	s = ep->free_slots;
	ep->free_slots = *(void **)s;
	ep->free_slots_n--;
	p->rx.slot = s;
	return 0;
}

void
mxd_partner_slots_put(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;

	assert(p->rx.top == p->rx.base);
	*(void **)(void *)p->rx.slot = ep->free_slots;
	ep->free_slots = p->rx.slot;
	ep->free_slots_n++;
	p->rx.slot = NULL;
}

void
mxd_partner_jobs_put(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_pulljobs *j = p->a->jobs;

	j->next_free = ep->free_jobs;
	ep->free_jobs = j;
	ep->free_jobs_n++;
	p->a->jobs = NULL;
}

struct mxd_pulljobs *
mxd_partner_jobs(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_pulljobs *j;

	if (p->a->jobs != NULL)
		return p->a->jobs;
	for (unsigned i = 0; ep->free_jobs == NULL && i < JOBS_GROW; i++) {
		j = malloc(sizeof(*j));
		if (j == NULL)
			break;
		memset(j, 0, sizeof(*j));		/* its pages now */
		j->next_free = ep->free_jobs;
		ep->free_jobs = j;
		ep->njobs++;
		ep->free_jobs_n++;
	}
	if (ep->free_jobs == NULL)
		return NULL;
	j = ep->free_jobs;
	ep->free_jobs = j->next_free;
	ep->free_jobs_n--;
	j->job_head = j->job_tail = j->again_head = j->again_tail = 0;
	p->a->jobs = j;
	return j;
}

int
mxd_partner_idle_now(const struct mxd_partner *p)
{
	const struct mxd_peer_act *a = p->a;

	return mxd_txwin_in_flight(&p->tx) == 0 && a->open == NULL &&
		p->rx.top == p->rx.base &&
		p->ack_sent == mxd_rxwin_cum_ack(&p->rx) && !a->ack_queued &&
		p->ep->ack_held != p && a->notify_n == 0 && a->lsends == 0 &&
		a->pulls_out == 0 && a->connects == 0 && a->face_waits == 0 &&
		mxd_list_empty(&a->sendq) && mxd_list_empty(&a->syncq) &&
		mxd_list_empty(&a->sending) && mxd_list_empty(&a->ackq) &&
		mxd_list_empty(&a->timed) && mxd_list_empty(&a->jobq) &&
		mxd_list_empty(&a->pulls) && (a->jobs == NULL ||
			(a->jobs->job_head == a->jobs->job_tail &&
			 a->jobs->again_head == a->jobs->again_tail)) &&
		/* A same-host partner has nothing in flight between two
		 * messages: it keeps its state while it talks. */
		(!p->shm || p->ep->now - p->last_heard >= MXD_SHM_KEEP_NS);
}

void
mxd_partner_act_put(struct mxd_partner *p)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_peer_act *a = p->a;

	if (p->rx.slot != NULL) {	/* a reset may have left them */
		if (p->rx.top != p->rx.base)
			memset(p->rx.slot, 0, SLOTS_BYTES);
		p->rx.top = p->rx.base;
		mxd_partner_slots_put(p);
	}
	if (a->jobs != NULL)
		mxd_partner_jobs_put(p);
	mxd_list_del(&a->active);
	ep->nactive--;
	a->next_free = ep->free_act;
	ep->free_act = a;
	ep->free_act_n++;
	p->a = NULL;
}

/* Frees what the pools hold beyond acts, slots and jobs free, at most
 * max of each kind; returns nonzero if some stays beyond. */
static int
pools_free(struct mx_endpoint *ep, uint32_t acts, uint32_t slots,
		uint32_t jobs, uint32_t max)
{
	uint32_t n;

	for (n = 0; n < max && ep->free_act_n > acts; n++) {
		struct mxd_peer_act *a = ep->free_act;

		ep->free_act = a->next_free;
		free(a->notify);
		free(a);
		ep->free_act_n--;
		ep->nact--;
	}
	for (n = 0; n < max && ep->free_slots_n > slots; n++) {
		void *s = ep->free_slots;

		ep->free_slots = *(void **)s;
		free(s);
		ep->free_slots_n--;
		ep->nslots--;
	}
	for (n = 0; n < max && ep->free_jobs_n > jobs; n++) {
		struct mxd_pulljobs *j = ep->free_jobs;

		ep->free_jobs = j->next_free;
		free(j);
		ep->free_jobs_n--;
		ep->njobs--;
	}
	return ep->free_act_n > acts || ep->free_slots_n > slots ||
		ep->free_jobs_n > jobs;
}

/* Record i of a chunk of records of 'size' bytes. */
static struct mxd_txrec *
chunk_rec(struct mxd_list *c, unsigned i, size_t size)
{
	return (struct mxd_txrec *)(void *)((char *)c + 64 + i * size);
}

/*
 * The pools of messages back to their first chunk of each kind, when all
 * they made is free (counted on their free lists: every partner idle,
 * nothing should be held but what the program holds).
 */
static void
msg_pools_shrink(struct mx_endpoint *ep)
{
	struct mxd_txrec *lists[2] = { NULL, NULL };
	uint32_t n[2] = { 0, 0 }, chunks[2] = { 0, 0 };
	struct mxd_list *pos, *tmp;

	for (const struct mxd_txrec *r = ep->free_txrec; r != NULL;
			r = r->pool_next)
		n[0]++;
	for (const struct mxd_txrec *r = ep->free_txsmall; r != NULL;
			r = r->pool_next)
		n[1]++;
	mxd_list_foreach(pos, tmp, &ep->txrec_chunks)
		chunks[chunk_rec(pos, 0, 0)->small]++;
	if (ep->txrec_nchunks > 2 && n[0] == chunks[0] * TXREC_CHUNK &&
			n[1] == chunks[1] * TXREC_CHUNK) {
		chunks[0] = chunks[1] = 0;
		mxd_list_foreach(pos, tmp, &ep->txrec_chunks) {
			unsigned k = chunk_rec(pos, 0, 0)->small;
			size_t size = k ? TXREC_SMALL : TXREC_BIG;

			if (chunks[k]++ > 0) {
				mxd_list_del(pos);
				free(pos);
				ep->txrec_nchunks--;
				continue;
			}
			for (unsigned i = 0; i < TXREC_CHUNK; i++) {
				struct mxd_txrec *r = chunk_rec(pos, i, size);

				r->pool_next = lists[k];
				lists[k] = r;
			}
		}
		ep->free_txrec = lists[0];
		ep->free_txsmall = lists[1];
	}
	mxd_reqpool_shrink(&ep->reqs);
}

int
mxd_ep_pools_trim(struct mx_endpoint *ep, uint64_t now)
{
	if (mxd_ep_pools_floor(ep)) {
		ep->trim_at = 0;
		return 0;
	}
	if (ep->trim_at == 0)
		ep->trim_at = now + MXD_POOL_HOLD_NS;
	if (now < ep->trim_at)
		return 1;
	if (ep->nactive == 0 && mxd_ep_msg_chunks(ep) != ep->msg_tried) {
		msg_pools_shrink(ep);
		ep->msg_tried = mxd_ep_msg_chunks(ep);
	}
	if (pools_free(ep, MXD_ACT_KEEP, MXD_SLOTS_KEEP, MXD_JOBS_KEEP,
				POOL_TRIM))
		return 1;
	ep->trim_at = 0;
	return 0;
}

/* ---- partners ----------------------------------------------------------- */

#define PARTNER_CHUNK	64	/* partners per chunk (16 KiB) */
#define TABLE_FIRST	64	/* slots of a new endpoint's table */

/* The hash of a partner's NIC id and endpoint id, for ep's table. */
static uint32_t
partner_hash(const struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep)
{
	uint64_t k = (nic & 0xffffffffffffull) ^ ((uint64_t)remote_ep << 48);

	return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & ep->hash_mask;
}

static void
hash_add(struct mx_endpoint *ep, struct mxd_partner *p)
{
	uint32_t *head = &ep->partner_hash[partner_hash(ep, p->nic_id,
			p->remote_ep)];

	p->hash_next = *head;
	*head = p->index + 1u;
}

static void
hash_del(struct mx_endpoint *ep, struct mxd_partner *p)
{
	uint32_t *link = &ep->partner_hash[partner_hash(ep, p->nic_id,
			p->remote_ep)];

	while (*link != 0 && *link != p->index + 1u)
		link = &ep->partners[*link - 1]->hash_next;
	if (*link != 0)
		*link = p->hash_next;
}

struct mxd_partner *
mxd_partner_find(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep)
{
	uint32_t i;

	if (ep->partner_hash == NULL)
		return NULL;
	for (i = ep->partner_hash[partner_hash(ep, nic, remote_ep)]; i != 0;
			i = ep->partners[i - 1]->hash_next) {
		struct mxd_partner *p = ep->partners[i - 1];

		if (p->nic_id == nic && p->remote_ep == remote_ep)
			return p;
	}
	return NULL;
}

/*
 * Room for one partner more in the table (by index, and the hash with a
 * chain per partner on average at most), doubled when full: 0, or -1 out
 * of memory.  The partners themselves never move.
 */
static int
table_room(struct mx_endpoint *ep)
{
	uint32_t cap = ep->partners_cap ? 2 * ep->partners_cap : TABLE_FIRST;
	struct mxd_partner **t;
	uint32_t *h;

	if (ep->npartners < ep->partners_cap)
		return 0;
	if (cap > ep->partners_max)
		cap = ep->partners_max;
	t = realloc(ep->partners, cap * sizeof(*t));
	if (t == NULL)
		return -1;
	ep->partners = t;
	h = calloc(cap, sizeof(*h));	/* cap: a power of 2, or the max */
	if (h == NULL)
		return -1;
	free(ep->partner_hash);
	ep->partner_hash = h;
	ep->hash_mask = (1u << (31 - __builtin_clz(cap))) - 1;
	ep->partners_cap = cap;
	for (uint32_t i = 0; i < ep->npartners; i++)
		hash_add(ep, ep->partners[i]);
	return 0;
}

/* Memory for a partner more (zeroed), from the chunk being given out. */
static struct mxd_partner *
partner_alloc(struct mx_endpoint *ep)
{
	if (ep->partner_spare_n == 0) {
		size_t len = 64 + PARTNER_CHUNK * sizeof(struct mxd_partner);
		struct mxd_list *c = calloc(1, len);

		if (c == NULL)
			return NULL;
		mxd_list_add_tail(&ep->partner_chunks, c);
		ep->partner_spare = (struct mxd_partner *)(void *)
			((char *)c + 64);
		ep->partner_spare_n = PARTNER_CHUNK;
	}
	ep->partner_spare_n--;
	return ep->partner_spare++;
}

static void
partner_drop_inflight(struct mxd_partner *p)
{
	if (p->a == NULL)
		return;
	if (p->a->open != NULL)		/* its references, as if closed */
		p->a->open->refs = p->a->open->nmsgs;
	for (unsigned i = 0; i < MXD_WIN; i++)
		if (p->a->inflight[i] != NULL) {
			mxd_txrec_drop(p->ep, p->a->inflight[i]);
			p->a->inflight[i] = NULL;
		}
	p->a->open = NULL;		/* its slots' record: dropped */
}

void
mxd_partner_reset(struct mxd_partner *p, uint32_t remote_session)
{
	partner_drop_inflight(p);
	if (p->ep->ack_held == p) {	/* an ack of the old windows */
		p->ep->ack_held = NULL;
		p->ep->ack_fast = NULL;
	}
	mxd_txwin_init(&p->tx, 1);
	if (p->a != NULL)
		p->a->note_hi = p->tx.acked;
	mxd_rxwin_init(&p->rx, 1);
	p->remote_session = remote_session;
	mxd_partner_hdr_stale(p);
	p->ack_sent = 0;
	/* The old session's PULLs will not be answered: no port is silent. */
	if (p->a != NULL)
		memset(p->a->silent, 0, sizeof(p->a->silent));
}

int
mxd_partner_fresh(const struct mxd_partner *p)
{
	return p->tx.next_seq == 1 && p->rx.base == 1 && p->rx.next_match == 1;
}

/*
 * With the table at its most (MX_MAX_PARTNERS), a partner the program
 * cannot know of is reused: never given out as an address, nothing heard
 * from it but connect requests (p->used), no connect of ours waiting on
 * it, nothing queued or in flight (no traffic state).  Such are what
 * failed connects leave (NIC ids that never answered) and what connect
 * requests from forged NIC ids make; without reuse they filled the table
 * for the endpoint's life, and every later mx_connect failed.  Of them,
 * one not up goes first, then the one heard from longest ago.  A peer
 * whose request we answered but that has sent nothing since finds its
 * frames to the old index dropped as stale, and its sends fail when it
 * gives up on us: we forgot it, as if restarted.  A partner the program
 * holds an address of is never reused.
 */
static int
partner_idle(const struct mx_endpoint *ep, const struct mxd_partner *p)
{
	return !p->used && ep->ack_held != p &&
		(p->a == NULL || mxd_partner_idle_now(p));
}

static struct mxd_partner *
partner_reusable(struct mx_endpoint *ep)
{
	struct mxd_partner *best = NULL;
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->connects)
		mxd_container_of(pos, struct mx_request, link)->partner->mark = 1;
	for (uint32_t i = 0; i < ep->npartners; i++) {
		struct mxd_partner *p = ep->partners[i];

		if (p->mark || !partner_idle(ep, p))
			continue;
		if (best == NULL || (best->state == MXD_PS_UP &&
					p->state != MXD_PS_UP) ||
				((best->state == MXD_PS_UP) ==
				 (p->state == MXD_PS_UP) &&
				 p->last_heard < best->last_heard))
			best = p;
	}
	mxd_list_foreach(pos, tmp, &ep->connects)
		mxd_container_of(pos, struct mx_request, link)->partner->mark = 0;
	return best;
}

/* Makes p (zeroed) a new partner at 'index'. */
static void
partner_init(struct mx_endpoint *ep, struct mxd_partner *p, uint16_t index,
		uint64_t nic, uint32_t remote_ep)
{
	p->ep = ep;
	p->index = index;
	p->remote_index = MXD_NO_PEER;
	p->nic_id = nic;
	p->remote_ep = (uint8_t)remote_ep;
	p->local = nic == ep->board->nic_id;
	p->port = p->local ? 0 : -1;
	p->state = MXD_PS_NEW;
	p->epoch = 1;
	mxd_partner_reset(p, 0);
	mxd_partner_set_mtu(p, 0);
}

struct mxd_partner *
mxd_partner_new(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep)
{
	struct mxd_partner *p;

	if (ep->npartners == ep->partners_max) {
		uint16_t index;

		if ((p = partner_reusable(ep)) == NULL)
			return NULL;
		if (p->a != NULL)
			mxd_partner_act_put(p);
		hash_del(ep, p);
		index = p->index;
		memset(p, 0, sizeof(*p));
		partner_init(ep, p, index, nic, remote_ep);
		hash_add(ep, p);
		mxd_count(ep->board, MXD_C_PARTNER_REUSED);
		return p;
	}
	if (table_room(ep) < 0 || (p = partner_alloc(ep)) == NULL)
		return NULL;
	partner_init(ep, p, (uint16_t)ep->npartners, nic, remote_ep);
	ep->partners[ep->npartners++] = p;
	hash_add(ep, p);
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
	mxd_partner_hdr_stale(p);	/* the template's frag_max */
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
	mxd_partner_fast(p);
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
	mxd_partner_fast(p);
	/* ---- face: refused or lost, what it waits for from p ends ---- */
	if ((s == MXD_PS_REFUSED || s == MXD_PS_LOST) && p->ep->face != NULL) {
		if (p->a != NULL)
			p->a->face_waits = 0;
		p->ep->face->lost(p->ep->face_ctx, p, p->fail);
	}
}

void
mxd_partner_fast(struct mxd_partner *p)
{
	uint32_t max = MXD_TXCOPY_MAX;

	if (p->frag_max < max)
		max = p->frag_max;
	if (p->eager_max < max)
		max = p->eager_max;
	p->fast_max = (uint16_t)(max + 1);
	/* A same-host partner's messages take the ring (shmsend.c). */
	if (p->state != MXD_PS_UP || p->unreported != MX_STATUS_SUCCESS ||
			p->shm)
		p->fast_max = 0;
	p->fly_max = (uint16_t)(p->pack ? mxd_conf.pack_after : MXD_WIN);
}

void
mxd_req_forgotten(struct mx_request *r)
{
	struct mx_endpoint *ep = r->ep;
	void *token = r->status.context;
	mx_status_code_t code = r->status.code;
	int face = r->forget == MXD_FORGET_FACE;

	mxd_req_put(r);
	/* ---- face: its request ended ---- */
	if (face)
		ep->face->done(ep->face_ctx, token, code);
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

/* ---- memory ------------------------------------------------------------ */

void
mxd_ep_mem(const struct mx_endpoint *ep, struct mxd_ep_mem *m)
{
	const struct mxd_list *pos;
	uint32_t chunks = (ep->npartners + ep->partner_spare_n +
			PARTNER_CHUNK - 1) / PARTNER_CHUNK;

	memset(m, 0, sizeof(*m));
	m->partners = ep->npartners;
	m->partner_bytes = chunks * (64 + PARTNER_CHUNK *
			sizeof(struct mxd_partner)) +
		ep->partners_cap * sizeof(*ep->partners) +
		(ep->partner_hash != NULL ? (ep->hash_mask + 1) *
		 sizeof(*ep->partner_hash) : 0);
	m->active = m->act_taken = ep->nactive;
	m->acts = ep->nact;
	m->slots = ep->nslots;
	m->jobs = ep->njobs;
	for (uint32_t i = 0; i < ep->npartners; i++)
		m->slots_taken += ep->partners[i]->rx.slot != NULL;
	for (pos = ep->active.next; pos != &ep->active; pos = pos->next) {
		const struct mxd_peer_act *a = (const struct mxd_peer_act *)
			(const void *)((const char *)pos -
					offsetof(struct mxd_peer_act, active));

		m->jobs_taken += a->jobs != NULL;
	}
	m->pool_bytes = (size_t)ep->nact * sizeof(struct mxd_peer_act) +
		(size_t)ep->nslots * MXD_WIN * sizeof(struct mxd_rxslot) +
		(size_t)ep->njobs * sizeof(struct mxd_pulljobs);
}
