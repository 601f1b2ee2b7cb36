/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host path, its lower half: a board's state for the other
 * processes of its host, which partners take the rings, and every record
 * this process writes.  The design (records, large messages, faults) is
 * described at the top of shm.c; the ring format and its set-up
 * protocol at the top of board/hring.h.
 *
 * Writing a message: mx_isend and mx_issend reach mxd_send_post
 * (send.c), which hands a same-host partner's send here.  An eager
 * message (at most shm->eager_max bytes, a quarter of a ring) is copied
 * into one record and its send completes (MPI standard mode), or, for
 * mx_issend, waits on the partner's syncq for MATCHED.  A large one
 * takes a handle in rndv.c's table of large sends and is announced by an
 * RNDV record that names the sender's segments; the receiver reads them
 * and says NOTIFY, which completes the send (rndv.c).  When the ring has
 * no room, the send waits on the partner's send queue (p->a->sendq, as
 * on the wire: deadlines and failures find it there), the partner on its
 * peer slot's list, and the pass writes it when room comes (mxd_shm_pump),
 * in order.  Notices (MATCHED, NOTIFY) and GETs that find no room wait
 * too, in order, and go first.  Nothing here allocates per message, takes
 * a lock or makes a system call but process_vm_readv (one per large
 * message).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"
#include "util/config.h"
#include "partners/xmit.h"
#include "engine/rndv.h"
#include "engine/shmsend.h"

static void pull_free(struct mxd_shm *shm, struct mxd_shm_pull *pl);
static uint32_t *claim_word(struct mxd_shm *shm, const struct mxd_shm_pull *pl);

/* ---- the board's state ---------------------------------------------------- */

int
mxd_shm_attach(struct mxd_board *b)
{
	struct mxd_host *h = b->host;
	struct mxd_shm *shm;
	uint32_t n, rec;

	if (h->magic != MXD_HOST_MAGIC || h->version != MXD_HOST_VERSION ||
			h->nslots > MXD_HOST_SLOTS_MAX || b->slot >= h->nslots) {
		MXD_LOG(ERR, engine, "board %s: host segment of another "
				"version, or slot %u out of its %u", b->name,
				b->slot, h->nslots);
		return -MX_BAD_PARAM_VAL;
	}
	n = mxd_hring_cells(h->ring_bytes);
	if (n < MXD_HRING_CELLS_MIN) {
		MXD_LOG(ERR, engine, "board %s: host segment rings of %u "
				"bytes, less than %u", b->name, h->ring_bytes,
				MXD_HRING_BYTES_MIN);
		return -MX_BAD_PARAM_VAL;
	}
	shm = calloc(1, sizeof(*shm));
	if (shm == NULL)
		return -MX_NO_RESOURCES;
	shm->b = b;
	shm->h = h;
	shm->slot = b->slot;
	shm->nslots = h->nslots;
	shm->ncells = n;
	rec = mxd_hring_rec_max(n);
	shm->rec_max = rec > 0xffff ? 0xffff : rec;
	shm->eager_max = shm->rec_max * MXD_HRING_CELL - MXD_HREC_HLEN;
	if (b->eager_max < shm->eager_max)
		shm->eager_max = b->eager_max;
	shm->epoch = __atomic_load_n(&h->slot[b->slot].epoch,
			__ATOMIC_ACQUIRE);
	shm->mail = mxd_hring_mailbox(h, b->slot);
	shm->scan = 1;
	for (unsigned s = 0; s < MXD_HOST_SLOTS_MAX; s++) {
		shm->peer[s].pidfd = -1;
		mxd_list_init(&shm->peer[s].sending);
	}
	b->shm = shm;
	b->pass_any |= MXD_PASS_SHM;
	/* Every call's pass polls the rings (progress.c, pass_call_shm):
	 * the board's countdown kept at its end, its own in shm->passes. */
	b->due |= MXD_DUE_PORTS;
	b->pass_left = 1;
	shm->passes = 1;
	return 0;
}

void
mxd_shm_detach(struct mxd_board *b)
{
	struct mxd_shm *shm = b->shm;

	if (shm == NULL)
		return;
	for (unsigned s = 0; s < MXD_HOST_SLOTS_MAX; s++) {
		struct mxd_shm_peer *pe = &shm->peer[s];

		if (pe->pidfd >= 0)
			close(pe->pidfd);
		free(pe->notes);
		free(pe->jobs);
		free(pe->taken);
	}
	free(shm->pulls);
	free(shm);
	b->shm = NULL;
	b->pass_any &= ~MXD_PASS_SHM;
}

int
mxd_shm_ep_claim(struct mxd_board *b, uint32_t id)
{
	uint32_t *e = &b->host->ep_slot[id], want = MXD_HOST_NO_SLOT;

	if (__atomic_compare_exchange_n(e, &want, b->slot, 0,
				__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	return want == b->slot ? 0 : -MX_BUSY;	/* the service's claim */
}

void
mxd_shm_ep_release(struct mxd_board *b, uint32_t id)
{
	uint32_t want = b->slot;

	__atomic_compare_exchange_n(&b->host->ep_slot[id], &want,
			MXD_HOST_NO_SLOT, 0, __ATOMIC_ACQ_REL,
			__ATOMIC_ACQUIRE);
}

void
mxd_shm_ep_gone(struct mx_endpoint *ep)
{
	struct mxd_shm *shm = ep->board->shm;

	if (shm == NULL)
		return;
	for (unsigned s = 0; s < shm->nslots; s++) {
		struct mxd_shm_peer *pe = &shm->peer[s];
		uint32_t k = 0;

		for (uint32_t i = 0; i < pe->notes_n; i++)
			if (pe->notes[i].ep != ep)
				pe->notes[k++] = pe->notes[i];
		pe->notes_n = k;
		k = 0;
		for (uint32_t i = 0; i < pe->jobs_n; i++)
			if (pe->jobs[i].ep != ep)
				pe->jobs[k++] = pe->jobs[i];
		pe->jobs_n = k;
	}
	for (uint32_t i = 0; i < shm->pulls_cap; i++) {
		struct mxd_shm_pull *pl = &shm->pulls[i];

		if (pl->id == 0 || pl->r->ep != ep)
			continue;
		/* Its request goes with ep; a sender writing into it now
		 * is let finish first (a pass of its, microseconds). */
		for (unsigned n = 0; pl->claim != 0 && n < 100000 &&
				MXD_CLAIM_STATE(__atomic_load_n(claim_word(shm,
						pl), __ATOMIC_ACQUIRE)) ==
				MXD_CLAIM_SENDER; n++)
			sched_yield();
		pull_free(shm, pl);
	}
}

int
mxd_shm_ep_busy(const struct mx_endpoint *ep)
{
	const struct mxd_shm *shm = ep->board->shm;

	for (unsigned s = 0; shm != NULL && s < shm->nslots; s++)
		for (uint32_t i = 0; i < shm->peer[s].notes_n; i++)
			if (shm->peer[s].notes[i].ep == ep)
				return 1;
	return 0;
}

/* ---- partners ------------------------------------------------------------ */

int
mxd_shm_moved(const struct mxd_partner *p)
{
	const struct mxd_shm *shm = p->ep->board->shm;

	return p->shm && shm != NULL &&
		(__atomic_load_n(&shm->h->ep_slot[p->remote_ep],
				 __ATOMIC_ACQUIRE) != p->shm_slot ||
		 __atomic_load_n(&shm->h->slot[p->shm_slot].epoch,
			 __ATOMIC_ACQUIRE) != p->shm_epoch);
}

void
mxd_shm_route(struct mxd_partner *p)
{
	struct mxd_board *b = p->ep->board;
	struct mxd_shm *shm = b->shm;
	uint32_t s;

	if (shm == NULL || p->nic_id != b->nic_id)
		return;
	s = __atomic_load_n(&shm->h->ep_slot[p->remote_ep], __ATOMIC_ACQUIRE);
	if (s >= shm->nslots || s == shm->slot) {
		/* Ours, or open nowhere: as any endpoint of our board in this
		 * process (a connect to it is refused by loopback). */
		p->shm = 0;
		p->local = 1;
	} else {
		p->shm = 1;
		p->local = 0;
		p->shm_slot = (uint8_t)s;
		p->shm_epoch = __atomic_load_n(&shm->h->slot[s].epoch,
				__ATOMIC_ACQUIRE);
		p->shm_hdr_ok = 0;
		p->eager_max = shm->eager_max;
	}
	p->port = 0;
	mxd_partner_hdr_stale(p);
	mxd_partner_fast(p);
}

/* ---- rings ---------------------------------------------------------------- */

static int
pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

void
mxd_shm_peer_know(struct mxd_shm *shm, unsigned s, uint32_t e)
{
	struct mxd_shm_peer *pe = &shm->peer[s];

	pe->epoch = e;
	pe->pid = __atomic_load_n(&shm->h->slot[s].pid, __ATOMIC_ACQUIRE);
	if (pe->pidfd >= 0)
		close(pe->pidfd);
	/* Fails only for a process gone already (the watch finds its slot
	 * changed) or a kernel without pidfds (then the slot's state and
	 * epoch, which the board service keeps, tell alone). */
	pe->pidfd = pe->pid > 0 ? pidfd_open(pe->pid) : -1;
	pe->read = mxd_conf.shm_copy ? MXD_SHM_READ_COPY : MXD_SHM_READ_TRY;
}

struct mxd_hring_tx *
mxd_shm_tx(struct mxd_shm *shm, unsigned s)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	const struct mxd_host_slot *hs = &shm->h->slot[s];
	uint32_t e;

	if (pe->tx_ok)
		return &pe->tx;
	if (__atomic_load_n(&hs->state, __ATOMIC_ACQUIRE) != MXD_HOST_SLOT_LIVE)
		return NULL;
	e = __atomic_load_n(&hs->epoch, __ATOMIC_ACQUIRE);
	if (pe->epoch == 0)
		mxd_shm_peer_know(shm, s, e);
	else if (pe->epoch != e)
		return NULL;	/* a new owner: shm.c ends the old one first */
	if (!mxd_hring_may_setup(mxd_hring_of(shm->h, shm->slot, s),
				shm->epoch, e) ||
			mxd_hring_setup(shm->h, shm->slot, s, shm->epoch, e,
				&pe->tx) < 0)
		return NULL;
	pe->tx_ok = 1;
	return &pe->tx;
}

void
mxd_shm_hdr_build(struct mxd_partner *p)
{
	struct mxd_hrec h;

	_Static_assert(sizeof(p->hdr) >= sizeof(h), "template room");
	memset(&h, 0, sizeof(h));
	h.src_ep = (uint8_t)p->ep->id;
	h.dst_ep = p->remote_ep;
	h.dst_peer = p->remote_index;
	h.src_peer = p->index;
	h.src_session = p->ep->session;
	h.dst_session = p->remote_session;
	memcpy(p->hdr, &h, sizeof(h));
	p->shm_hdr_ok = 1;
}

int
mxd_shm_ctl(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *h)
{
	struct mxd_hring_tx *t = mxd_shm_tx(shm, s);
	struct mxd_hrec *rec = t != NULL ? mxd_hring_reserve(t, 1) : NULL;

	if (rec == NULL)
		return -1;
	memcpy((uint8_t *)rec + 4, (const uint8_t *)h + 4, MXD_HREC_HLEN - 4);
	rec->cells = 1;
	rec->len = 0;
	rec->pad = 0;
	mxd_hring_commit(t, rec, 1);
	return 0;
}

/* A record to partner p with no payload. */
static int
ctl_to(struct mxd_partner *p, uint8_t kind, uint32_t aux, uint64_t match)
{
	struct mxd_hrec h;

	memset(&h, 0, sizeof(h));
	h.kind = kind;
	h.src_ep = (uint8_t)p->ep->id;
	h.dst_ep = p->remote_ep;
	h.dst_peer = p->remote_index;
	h.src_peer = p->index;
	h.aux = aux;
	h.src_session = p->ep->session;
	h.dst_session = p->remote_session;
	h.match = match;
	return mxd_shm_ctl(p->ep->board->shm, p->shm_slot, &h);
}

/* Queues such a record for when the ring has room, in order. */
static void
note_queue(struct mxd_partner *p, uint8_t kind, uint32_t aux,
		uint64_t match)
{
	struct mxd_shm *shm = p->ep->board->shm;
	struct mxd_shm_peer *pe = &shm->peer[p->shm_slot];
	struct mxd_shm_note *n;

	if (pe->notes_n == pe->notes_cap) {
		uint32_t cap = pe->notes_cap ? 2 * pe->notes_cap : 16;

		n = realloc(pe->notes, cap * sizeof(*n));
		if (n == NULL) {
			mxd_count(shm->b, MXD_C_NOTICE_LOST);
			return;
		}
		pe->notes = n;
		pe->notes_cap = cap;
		mxd_count(shm->b, MXD_C_NOTICE_GROW);
	}
	n = &pe->notes[pe->notes_n++];
	n->ep = p->ep;
	n->peer = p->index;
	n->kind = kind;
	n->aux = aux;
	n->match = match;
	shm->work |= 1ull << p->shm_slot;
}

/* Sends a record now, or when room comes (after those waiting). */
static void
note_send(struct mxd_partner *p, uint8_t kind, uint32_t aux, uint64_t match)
{
	struct mxd_shm_peer *pe = &p->ep->board->shm->peer[p->shm_slot];

	if (pe->notes_n != 0 || ctl_to(p, kind, aux, match) < 0)
		note_queue(p, kind, aux, match);
}

void
mxd_shm_notice(struct mxd_partner *p, uint8_t kind, uint32_t value)
{
	if (p->remote_session == 0)
		return;		/* a lost partner: nobody waits for it */
	note_send(p, kind == MXD_NOTE_MATCHED ? MXD_HREC_MATCHED :
			MXD_HREC_NOTIFY, value, 0);
}

void
mxd_shm_reply(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *to,
		uint8_t kind, uint16_t src_peer, uint32_t src_session,
		uint32_t aux, uint64_t match)
{
	struct mxd_hrec h;

	memset(&h, 0, sizeof(h));
	h.kind = kind;
	h.src_ep = to->dst_ep;
	h.dst_ep = to->src_ep;
	h.dst_peer = to->src_peer;
	h.src_peer = src_peer;
	h.aux = aux;
	h.src_session = src_session;
	h.dst_session = to->src_session;
	h.match = match;
	/* No room: the sender asks again (a connect) or learns otherwise
	 * (a refusal: at its next message, or from the BYE). */
	(void)mxd_shm_ctl(shm, s, &h);
}

int
mxd_shm_conn_req(struct mx_endpoint *ep, struct mxd_partner *p)
{
	struct mxd_hrec h;

	if (mxd_shm_moved(p))
		return 1;	/* closed, or opened by another process */
	memset(&h, 0, sizeof(h));
	h.kind = MXD_HREC_CONN_REQ;
	h.src_ep = (uint8_t)ep->id;
	h.dst_ep = p->remote_ep;
	h.dst_peer = MXD_NO_PEER;
	h.src_peer = p->index;
	h.aux = p->a->hs.id;
	h.src_session = ep->session;
	h.match = (uint64_t)p->a->hs.filter << 32 | ep->filter;
	if (mxd_shm_ctl(ep->board->shm, p->shm_slot, &h) == 0)
		mxd_count(ep->board, MXD_C_CONN_REQ);
	return 0;
}

void
mxd_shm_bye(struct mxd_partner *p)
{
	/* No room: the partner learns of the close by NACK at its next
	 * message, or by our process's end. */
	(void)ctl_to(p, MXD_HREC_BYE, 0, 0);
}

/* ---- messages ----------------------------------------------------------------- */

/* r's message (or announcement) is in the ring, its number seq. */
static void
msg_sent(struct mxd_partner *p, struct mx_request *r, uint32_t seq)
{
	struct mxd_board *b = p->ep->board;

	mxd_count(b, MXD_C_TX_MSGS);
	mxd_count(b, MXD_C_SHM_TX);
	r->seq = seq;
	r->status.msg_length = r->status.xfer_length = r->length;
	mxd_list_del(&r->link);		/* off the send queue, if on it */
	if (r->rndv) {			/* its buffers are read until NOTIFY */
		mxd_req_set_state(r, MXD_RS_RNDV);
	} else if (!r->sync) {		/* standard mode: copied, done */
		mxd_req_complete(r, MX_STATUS_SUCCESS);
	} else {			/* issend: there, waits for MATCHED */
		r->acked = 1;
		mxd_req_set_state(r, MXD_RS_BUFFERED);
		mxd_ep_hold_changed(p->ep);
		mxd_list_add_tail(&p->a->syncq, &r->link);
	}
}

/* A large send's announcement: its handle (rndv.c's table) and
 * segments.  0, or -1 when the ring or the table has no room. */
static int
rndv_try(struct mxd_hring_tx *t, struct mxd_partner *p, struct mx_request *r)
{
	uint32_t len = (uint32_t)(sizeof(struct mxd_shm_desc) +
			r->nseg * sizeof(struct mxd_shm_seg));
	uint32_t cells = mxd_hrec_cells(len), seq;
	struct mxd_shm_desc *d;
	struct mxd_hrec *rec;

	if (cells > p->ep->board->shm->rec_max) {
		/* Too many segments for this host's rings: documented. */
		mxd_list_del(&r->link);
		mxd_req_complete(r, MX_STATUS_NO_RESOURCES);
		return 0;
	}
	if (r->rndv_handle == 0 && mxd_rndv_prepare(r) < 0)
		return -1;
	rec = mxd_hring_reserve(t, cells);
	if (rec == NULL)
		return -1;
	seq = mxd_shm_msg_number(p);
	mxd_shm_hdr_fill(p, rec, MXD_HREC_RNDV, r->sync ? MXD_HF_SYNC : 0, cells, len,
			seq, r->match_recv);
	d = (struct mxd_shm_desc *)(void *)mxd_hrec_data(rec);
	memcpy(d->wire, r->desc, sizeof(d->wire));
	d->nseg = r->nseg;
	d->pad = 0;
	for (uint32_t i = 0; i < r->nseg; i++) {
		d->seg[i].addr = (uint64_t)(uintptr_t)r->segs[i].segment_ptr;
		d->seg[i].len = r->segs[i].segment_length;
	}
	mxd_hring_commit(t, rec, cells);
	msg_sent(p, r, seq);
	return 0;
}

/* r's message into the ring: 0, or -1 when it has no room. */
static int
send_try(struct mxd_hring_tx *t, struct mxd_partner *p, struct mx_request *r)
{
	uint32_t len = r->length, cells = mxd_hrec_cells(len), seq;
	struct mxd_hrec *rec;
	uint8_t *d;

	if (r->rndv)
		return rndv_try(t, p, r);
	rec = mxd_hring_reserve(t, cells);
	if (rec == NULL)
		return -1;
	seq = mxd_shm_msg_number(p);
	mxd_shm_hdr_fill(p, rec, MXD_HREC_MSG, r->sync ? MXD_HF_SYNC : 0, cells, len,
			seq, r->match_recv);
	d = mxd_hrec_data(rec);
	if (r->nseg == 1 && len <= 16)
		mxd_copy_upto16(d, r->segs[0].segment_ptr, len);
	else
		mxd_req_gather(r, 0, d, len);
	mxd_hring_commit(t, rec, cells);
	msg_sent(p, r, seq);
	return 0;
}

void
mxd_shm_send(struct mx_request *r)
{
	struct mxd_partner *p = r->partner;
	struct mxd_shm *shm = p->ep->board->shm;
	struct mxd_shm_peer *pe = &shm->peer[p->shm_slot];
	struct mxd_hring_tx *t;

	if ((r->sync || r->rndv) && mxd_partner_act(p) == NULL) {
		mxd_req_complete(r, MX_STATUS_NO_RESOURCES);
		return;
	}
	if ((p->a == NULL || mxd_list_empty(&p->a->sendq)) &&
			(t = mxd_shm_tx(shm, p->shm_slot)) != NULL &&
			send_try(t, p, r) == 0)
		return;
	/* No room (or sends before it wait): on its queue, in order. */
	if (mxd_partner_act(p) == NULL) {
		mxd_req_complete(r, MX_STATUS_NO_RESOURCES);
		return;
	}
	if (r->state == MXD_RS_FREE)
		mxd_req_set_state(r, MXD_RS_QUEUED);
	mxd_list_add_tail(&p->a->sendq, &r->link);
	if (mxd_list_empty(&p->a->sending))
		mxd_list_add_tail(&pe->sending, &p->a->sending);
	shm->work |= 1ull << p->shm_slot;
	mxd_count(shm->b, MXD_C_SHM_FULL);
}

/* ---- large messages read ------------------------------------------------------ */

/* The iovecs of bytes [off, off + len) of r's segments; how many. */
static unsigned
iov_req(const struct mx_request *r, uint64_t off, uint64_t len,
		struct iovec *v)
{
	unsigned k = 0;

	for (uint32_t i = 0; i < r->nseg && len > 0; i++) {
		uint64_t l = r->segs[i].segment_length;

		if (off >= l) {
			off -= l;
			continue;
		}
		l -= off;
		if (l > len)
			l = len;
		v[k].iov_base = (uint8_t *)r->segs[i].segment_ptr + off;
		v[k++].iov_len = l;
		len -= l;
		off = 0;
	}
	return k;
}

/* The same of a descriptor's segments (in another process). */
static unsigned
iov_desc(const struct mxd_shm_seg *seg, uint32_t nseg, uint64_t off,
		uint64_t len, struct iovec *v)
{
	unsigned k = 0;

	for (uint32_t i = 0; i < nseg && i < MXD_MAX_SEGMENTS && len > 0; i++) {
		uint64_t l = seg[i].len;

		if (off >= l) {
			off -= l;
			continue;
		}
		l -= off;
		if (l > len)
			l = len;
		v[k].iov_base = (void *)(uintptr_t)(seg[i].addr + off);
		v[k++].iov_len = l;
		len -= l;
		off = 0;
	}
	return k;
}

/* Reads bytes [off, off + len) of large message d from process pid into
 * r: 0, or a negated errno. */
static int
pvr_read(pid_t pid, const struct mx_request *r, const struct mxd_shm_desc *d,
		uint32_t off, uint32_t len)
{
	struct iovec lv[MXD_MAX_SEGMENTS], rv[MXD_MAX_SEGMENTS];
	unsigned nl = iov_req(r, off, len, lv);
	unsigned nr = iov_desc(d->seg, d->nseg, off, len, rv);
	ssize_t got;

	_Static_assert(MXD_MAX_SEGMENTS <= IOV_MAX, "one call");
	if (len == 0)
		return 0;
	got = process_vm_readv(pid, lv, nl, rv, nr, 0);
	if (got < 0)
		return -errno;
	return (uint64_t)got == len ? 0 : -EFAULT;
}

static void
read_done(struct mx_request *r, struct mxd_partner *p, uint32_t handle,
		mx_status_code_t code)
{
	if (code == MX_STATUS_SUCCESS && r->status.msg_length > r->length)
		code = MX_STATUS_TRUNCATED;
	mxd_req_complete(r, code);
	mxd_count(p->ep->board, MXD_C_RX_MSGS);
	if (code == MX_STATUS_SUCCESS || code == MX_STATUS_TRUNCATED)
		note_send(p, MXD_HREC_NOTIFY, handle, 0);
}

static struct mxd_shm_pull *
pull_new(struct mxd_shm *shm)
{
	struct mxd_shm_pull *pl;
	uint32_t cap;

	for (uint32_t i = 0; i < shm->pulls_cap; i++)
		if (shm->pulls[i].id == 0)
			return &shm->pulls[i];
	cap = shm->pulls_cap ? 2 * shm->pulls_cap : 16;
	pl = realloc(shm->pulls, cap * sizeof(*pl));
	if (pl == NULL)
		return NULL;
	memset(pl + shm->pulls_cap, 0, (cap - shm->pulls_cap) * sizeof(*pl));
	shm->pulls = pl;
	pl += shm->pulls_cap;
	shm->pulls_cap = cap;
	return pl;
}

struct mxd_shm_pull *
mxd_shm_pull_find(struct mxd_shm *shm, uint32_t id)
{
	for (uint32_t i = 0; id != 0 && i < shm->pulls_cap; i++)
		if (shm->pulls[i].id == id)
			return &shm->pulls[i];
	return NULL;
}

void
mxd_shm_pull_end(struct mxd_shm *shm, struct mxd_shm_pull *pl,
		mx_status_code_t code)
{
	(void)shm;
	pl->id = 0;
	read_done(pl->r, pl->p, pl->handle, code);
}

/* A split read's claim word: the one in our ring to its sender. */
static uint32_t *
claim_word(struct mxd_shm *shm, const struct mxd_shm_pull *pl)
{
	return &mxd_hring_of(shm->h, shm->slot, pl->p->shm_slot)->claim[
		pl->claim - 1];
}

/* Lets pl go: its claim word free, no longer waited for. */
static void
pull_free(struct mxd_shm *shm, struct mxd_shm_pull *pl)
{
	if (pl->claim != 0) {
		__atomic_store_n(claim_word(shm, pl), 0, __ATOMIC_RELEASE);
		shm->peer[pl->p->shm_slot].claims &= ~(1u << (pl->claim - 1));
		pl->claim = 0;
	}
	if (pl->waiting) {
		pl->waiting = 0;
		shm->splits--;
	}
	pl->id = 0;
}

void
mxd_shm_pulls_fail(struct mxd_partner *p, mx_status_code_t code)
{
	struct mxd_shm *shm = p->ep->board->shm;

	/* A split read's sender writes into the receive only while its
	 * process lives, in a pass of its own, done before any record of
	 * its that says its endpoint closed: the receive may end. */
	for (uint32_t i = 0; shm != NULL && i < shm->pulls_cap; i++)
		if (shm->pulls[i].id != 0 && shm->pulls[i].p == p) {
			struct mx_request *r = shm->pulls[i].r;

			pull_free(shm, &shm->pulls[i]);
			mxd_req_complete(r, code);
		}
}

/* The end of split read pl ('code': how our part went). */
static void
split_end(struct mxd_shm *shm, struct mxd_shm_pull *pl,
		mx_status_code_t code)
{
	struct mx_request *r = pl->r;
	struct mxd_partner *p = pl->p;
	uint32_t handle = pl->handle;

	pull_free(shm, pl);
	read_done(r, p, handle, code);
}

/*
 * Our half of split read pl is done ('d': the descriptor, while we hold
 * it, to read the second half ourselves): the second half is the
 * sender's if it took it, else taken back and read here; or, the sender
 * writing it now, waited for (mxd_shm_splits).
 */
static void
split_settle(struct mxd_shm *shm, struct mxd_shm_pull *pl,
		const struct mxd_shm_desc *d)
{
	uint32_t *w = claim_word(shm, pl);
	uint32_t want = MXD_CLAIM(pl->claim_gen, MXD_CLAIM_OFFER), now;
	mx_status_code_t code = pl->fail;
	int ret;

	if (__atomic_compare_exchange_n(w, &want, MXD_CLAIM(pl->claim_gen,
					MXD_CLAIM_RECEIVER), 0, __ATOMIC_ACQ_REL,
				__ATOMIC_ACQUIRE))
		now = MXD_CLAIM(pl->claim_gen, MXD_CLAIM_RECEIVER);
	else
		now = want;
	switch (MXD_CLAIM_STATE(now)) {
	case MXD_CLAIM_DONE:
		break;
	case MXD_CLAIM_RECEIVER:	/* ours, or the sender could not */
		if (code != MX_STATUS_SUCCESS)
			break;
		if (d == NULL) {	/* the send was gone */
			code = MX_STATUS_ABORTED;
			break;
		}
		ret = pvr_read(shm->peer[pl->p->shm_slot].pid, pl->r, d,
				pl->half, pl->total - pl->half);
		code = ret == 0 ? MX_STATUS_SUCCESS : ret == -ESRCH ?
			MX_STATUS_ENDPOINT_UNREACHABLE : MX_STATUS_ABORTED;
		break;
	default:			/* the sender writes it: wait */
		if (!pl->waiting) {
			pl->waiting = 1;
			shm->splits++;
		}
		return;
	}
	split_end(shm, pl, code);
}

void
mxd_shm_splits(struct mxd_shm *shm)
{
	for (uint32_t i = 0; shm->splits != 0 && i < shm->pulls_cap; i++)
		if (shm->pulls[i].id != 0 && shm->pulls[i].waiting)
			split_settle(shm, &shm->pulls[i], NULL);
}

/*
 * A large receive of pvr's peer split in two (MXD_SHM_SPLIT_MIN): the
 * second half offered to the sender (PUT, its claim word set to OFFER),
 * the first read here at once; then split_settle.  -1 (nothing done)
 * when it cannot be offered now: the whole read here.
 */
static int
read_split(struct mxd_shm *shm, struct mx_request *r, struct mxd_partner *p,
		const struct mxd_shm_desc *d, uint32_t handle)
{
	struct mxd_shm_peer *pe = &shm->peer[p->shm_slot];
	uint32_t total = r->status.xfer_length, half = (total / 2) & ~4095u;
	struct iovec v[MXD_MAX_SEGMENTS];
	unsigned nseg = iov_req(r, half, total - half, v);
	uint32_t len = (uint32_t)(sizeof(struct mxd_shm_put) +
			nseg * sizeof(struct mxd_shm_seg));
	uint32_t cells = mxd_hrec_cells(len), k, gen;
	struct mxd_hring_tx *t = mxd_shm_tx(shm, p->shm_slot);
	struct mxd_shm_put *put;
	struct mxd_shm_pull *pl;
	struct mxd_hrec *rec;
	int ret;

	if (t == NULL || pe->claims == ~0u || cells > shm->rec_max ||
			pe->notes_n != 0 || (pl = pull_new(shm)) == NULL ||
			(rec = mxd_hring_reserve(t, cells)) == NULL)
		return -1;
	k = (uint32_t)__builtin_ctz(~pe->claims);
	gen = ++pe->claim_gen & 0x1fffffffu;
	if (gen == 0)
		gen = pe->claim_gen = 1;
	__atomic_store_n(&t->r->claim[k], MXD_CLAIM(gen, MXD_CLAIM_OFFER),
			__ATOMIC_RELEASE);
	mxd_shm_hdr_fill(p, rec, MXD_HREC_PUT, 0, cells, len, handle, 0);
	put = (struct mxd_shm_put *)(void *)mxd_hrec_data(rec);
	put->claim = k;
	put->gen = gen;
	put->off = half;
	put->len = total - half;
	put->nseg = nseg;
	put->pad = 0;
	for (unsigned i = 0; i < nseg; i++) {
		put->seg[i].addr = (uint64_t)(uintptr_t)v[i].iov_base;
		put->seg[i].len = v[i].iov_len;
	}
	mxd_hring_commit(t, rec, cells);
	pe->claims |= 1u << k;
	do
		pl->id = ++shm->pull_gen;
	while (pl->id == 0);
	pl->r = r;
	pl->p = p;
	pl->handle = handle;
	pl->total = total;
	pl->got = 0;
	pl->claim = (uint8_t)(k + 1);
	pl->claim_gen = gen;
	pl->half = half;
	pl->waiting = 0;
	pl->fail = MX_STATUS_SUCCESS;
	mxd_count(shm->b, MXD_C_SHM_READS);
	ret = pvr_read(pe->pid, r, d, 0, half);
	if (ret != 0)
		pl->fail = ret == -ESRCH ? MX_STATUS_ENDPOINT_UNREACHABLE :
			MX_STATUS_ABORTED;
	split_settle(shm, pl, d);
	return 0;
}

void
mxd_shm_put_serve(struct mxd_shm *shm, unsigned s, struct mxd_partner *p,
		const struct mxd_hrec *rec)
{
	const struct mxd_shm_put *put = (const void *)((const uint8_t *)rec +
			MXD_HREC_HLEN);
	struct iovec lv[MXD_MAX_SEGMENTS], rv[MXD_MAX_SEGMENTS];
	struct mx_request *r;
	uint32_t *w, want;
	unsigned nl, nr = 0;
	int ok = 0;

	if (rec->len < sizeof(*put) || put->claim >= MXD_HRING_CLAIMS ||
			put->nseg > MXD_MAX_SEGMENTS || rec->len !=
			sizeof(*put) + put->nseg * sizeof(put->seg[0])) {
		mxd_count_drop(shm->b, MXD_DROP_LENGTH);
		return;
	}
	w = &mxd_hring_of(shm->h, s, shm->slot)->claim[put->claim];
	want = MXD_CLAIM(put->gen, MXD_CLAIM_OFFER);
	if (!__atomic_compare_exchange_n(w, &want, MXD_CLAIM(put->gen,
					MXD_CLAIM_SENDER), 0, __ATOMIC_ACQ_REL,
				__ATOMIC_ACQUIRE))
		return;		/* taken back: the reader reads it */
	r = mxd_rndv_lookup(p->ep, rec->aux);
	if (r != NULL && r->partner == p &&
			(uint64_t)put->off + put->len <= r->length) {
		nl = iov_req(r, put->off, put->len, lv);
		for (uint32_t i = 0; i < put->nseg; i++) {
			rv[nr].iov_base = (void *)(uintptr_t)put->seg[i].addr;
			rv[nr++].iov_len = put->seg[i].len;
		}
		ok = process_vm_writev(shm->peer[s].pid, lv, nl, rv, nr, 0) ==
			(ssize_t)put->len;
	}
	if (ok)
		mxd_count(shm->b, MXD_C_SHM_HALVES);
	__atomic_store_n(w, MXD_CLAIM(put->gen, ok ? MXD_CLAIM_DONE :
				MXD_CLAIM_RECEIVER), __ATOMIC_RELEASE);
}

/* Asks the sender to copy the message through the ring (GET). */
static void
read_by_copy(struct mxd_shm *shm, struct mx_request *r, struct mxd_partner *p,
		uint32_t handle)
{
	struct mxd_shm_pull *pl = pull_new(shm);
	uint32_t total = r->status.xfer_length;

	if (pl == NULL) {
		mxd_req_complete(r, MX_STATUS_NO_RESOURCES);
		return;
	}
	if (total == 0) {
		read_done(r, p, handle, MX_STATUS_SUCCESS);
		return;
	}
	do
		pl->id = ++shm->pull_gen;
	while (pl->id == 0);
	pl->r = r;
	pl->p = p;
	pl->handle = handle;
	pl->total = total;
	pl->got = 0;
	pl->claim = 0;
	pl->waiting = 0;
	mxd_count(shm->b, MXD_C_SHM_COPIED);
	note_send(p, MXD_HREC_GET, handle, (uint64_t)pl->id << 32 | total);
}

void
mxd_shm_read_start(struct mx_request *r, struct mxd_partner *p,
		const uint8_t *desc, mx_status_code_t fail)
{
	struct mxd_shm *shm = p->ep->board->shm;
	const struct mxd_shm_desc *d = (const void *)desc;
	struct mxd_shm_peer *pe;
	struct mxd_rndv_desc w;
	int ret;

	mxd_wire_get_rndv(d->wire, &w);
	r->status.msg_length = w.total_len;
	r->status.xfer_length = w.total_len < r->length ? w.total_len :
		r->length;
	if (fail == MX_STATUS_SUCCESS && (p->state == MXD_PS_REFUSED ||
				p->state == MXD_PS_LOST ||
				p->remote_session == 0))
		fail = p->fail ? p->fail : MX_STATUS_ENDPOINT_UNREACHABLE;
	if (fail != MX_STATUS_SUCCESS) {	/* its sender is gone */
		mxd_req_complete(r, fail);
		return;
	}
	pe = &shm->peer[p->shm_slot];
	if (pe->read == MXD_SHM_READ_PVR &&
			r->status.xfer_length >= MXD_SHM_SPLIT_MIN &&
			read_split(shm, r, p, d, w.send_handle) == 0)
		return;
	if (pe->read != MXD_SHM_READ_COPY) {
		ret = pvr_read(pe->pid, r, d, 0, r->status.xfer_length);
		if (ret == 0) {
			pe->read = MXD_SHM_READ_PVR;
			mxd_count(shm->b, MXD_C_SHM_READS);
			read_done(r, p, w.send_handle, MX_STATUS_SUCCESS);
			return;
		}
		if (ret == -ESRCH) {		/* its sender died */
			mxd_req_complete(r, MX_STATUS_ENDPOINT_UNREACHABLE);
			return;
		}
		if (ret != -EPERM && ret != -ENOSYS) {
			/* Its buffers are gone: the send ended (timed out,
			 * disconnected) while we matched. */
			mxd_count(shm->b, MXD_C_PULLS_ABORTED);
			mxd_req_complete(r, MX_STATUS_ABORTED);
			return;
		}
		MXD_LOG(INFO, engine, "board %s: process_vm_readv refused by "
				"pid %d (%s): large messages from it are "
				"copied through the ring", shm->b->name,
				(int)pe->pid, ret == -EPERM ? "EPERM" : "ENOSYS");
		pe->read = MXD_SHM_READ_COPY;
	}
	read_by_copy(shm, r, p, w.send_handle);
}

/* ---- what waits for room --------------------------------------------------------- */

/* The partner a waiting record or copy is for, if it still is the one
 * it was for (same slot, up, known session); else NULL. */
static struct mxd_partner *
waiting_for(struct mx_endpoint *ep, uint16_t idx, unsigned s)
{
	struct mxd_partner *p;

	if (idx >= ep->npartners)
		return NULL;
	p = ep->partners[idx];
	return p->shm && p->shm_slot == s && p->remote_session != 0 ? p : NULL;
}

/* The queued notices and GETs to slot s: 1 if all went. */
static int
notes_pump(struct mxd_shm *shm, unsigned s)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	uint32_t done = 0;

	for (; done < pe->notes_n; done++) {
		const struct mxd_shm_note *n = &pe->notes[done];
		struct mxd_partner *p = waiting_for(n->ep, n->peer, s);

		if (p != NULL && ctl_to(p, n->kind, n->aux, n->match) < 0)
			break;
	}
	if (done != 0 && done != pe->notes_n)
		memmove(pe->notes, pe->notes + done,
				(pe->notes_n - done) * sizeof(pe->notes[0]));
	pe->notes_n -= done;
	return pe->notes_n == 0;
}

/* The queued sends to slot s, partner by partner, each in order: 1 if
 * all went. */
static int
sends_pump(struct mxd_shm *shm, unsigned s, struct mxd_hring_tx *t)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &shm->peer[s].sending) {
		struct mxd_peer_act *a = mxd_container_of(pos,
				struct mxd_peer_act, sending);

		while (!mxd_list_empty(&a->sendq))
			if (send_try(t, a->p, mxd_container_of(a->sendq.next,
							struct mx_request,
							link)) < 0)
				return 0;
		mxd_list_del(&a->sending);
	}
	return 1;
}

/* Copies job j's bytes through the ring as room allows: 1 when it is
 * done (or its send gone: told so), 0 when the ring is full. */
static int
job_pump(struct mxd_shm *shm, unsigned s, struct mxd_hring_tx *t,
		struct mxd_shm_job *j)
{
	struct mxd_partner *p = waiting_for(j->ep, j->peer, s);
	struct mx_request *r;
	uint32_t max = shm->rec_max * MXD_HRING_CELL - MXD_HREC_HLEN;

	if (p == NULL)
		return 1;
	r = mxd_rndv_lookup(j->ep, j->handle);
	if (r == NULL || r->partner != p || j->end > r->length) {
		struct mxd_hrec *rec = mxd_hring_reserve(t, 1);

		if (rec == NULL)
			return 0;
		mxd_shm_hdr_fill(p, rec, MXD_HREC_DATA, MXD_HF_GONE, 1, 0, j->id, 0);
		mxd_hring_commit(t, rec, 1);
		mxd_count(shm->b, MXD_C_PULL_GONE);
		return 1;
	}
	while (j->off < j->end) {
		uint32_t len = j->end - j->off < max ? j->end - j->off : max;
		uint32_t cells = mxd_hrec_cells(len);
		struct mxd_hrec *rec = mxd_hring_reserve(t, cells);

		if (rec == NULL)
			return 0;
		mxd_shm_hdr_fill(p, rec, MXD_HREC_DATA, 0, cells, len, j->id, j->off);
		mxd_req_gather(r, j->off, mxd_hrec_data(rec), len);
		mxd_hring_commit(t, rec, cells);
		j->off += len;
	}
	return 1;
}

static int
jobs_pump(struct mxd_shm *shm, unsigned s, struct mxd_hring_tx *t)
{
	struct mxd_shm_peer *pe = &shm->peer[s];
	uint32_t done = 0;

	while (done < pe->jobs_n && job_pump(shm, s, t, &pe->jobs[done]))
		done++;
	if (done != 0 && done != pe->jobs_n)
		memmove(pe->jobs, pe->jobs + done,
				(pe->jobs_n - done) * sizeof(pe->jobs[0]));
	pe->jobs_n -= done;
	return pe->jobs_n == 0;
}

void
mxd_shm_pump(struct mxd_shm *shm, unsigned s)
{
	struct mxd_hring_tx *t = mxd_shm_tx(shm, s);

	if (t == NULL)
		return;		/* not yet: the next pass */
	if (notes_pump(shm, s) && sends_pump(shm, s, t) &&
			jobs_pump(shm, s, t))
		shm->work &= ~(1ull << s);
}
