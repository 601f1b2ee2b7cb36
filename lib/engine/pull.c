/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large messages, the receiver's half: pulling (the sender's half is
 * rndv.c).
 *
 * Receiver: when a receive takes an RNDV message (posted, unexpected or
 * held), a pull starts: the bytes the receive can hold are requested in
 * blocks of MXD_PULL_FRAMES frames, MXD_PULL_BLOCKS blocks in flight, and
 * never more than MXD_JOBS blocks outstanding per partner (the sender's
 * job queue), so no PULL is ever refused for lack of room.  A receive that
 * takes an RNDV while MXD_PULLS_MAX pulls are in progress, or when no
 * memory is left for its pull's record, waits, matched, for a slot
 * (ep->pulls_deferred, started by the progress pass): before, it failed
 * with MX_STATUS_NO_RESOURCES while its sender waited for ever.
 * Reply frames are checked against their block (offset, exact length, a
 * bitmap against duplicates) and placed straight into the receive's
 * segments.  When all bytes are in, NOTIFY goes to the sender and the
 * receive completes (MX_STATUS_TRUNCATED if the message was longer).
 *
 * Recovery is the receiver's: a block whose replies are overdue (the
 * partner's pull timeout, from the round trips of whole blocks) is asked
 * again for its missing frames only, one PULL per run of them, on another
 * port if the board has one.  A block that got nothing at all marks its
 * port suspect for this partner, and striping leaves the port out for a
 * while (doubling each time it fails again): a port that loses everything
 * is routed around.  NOTIFY is a notice (sequenced and acknowledged), so
 * it is never lost either.  A large message still unexpected when its
 * partner is lost or restarts can never be pulled (the sender failed its
 * send, and a new life may reuse its handle): a receive that takes it
 * fails with the loss's status (recv.c marks it).
 */
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "util/clock.h"
#include "util/config.h"
#include "partners/naming.h"
#include "partners/xmit.h"
#include "engine/acks.h"
#include "engine/pull.h"
#include "engine/reliable.h"
#include "engine/shmsend.h"
#include "engine/timers.h"

#define COLD_MIN	(512u << 10)	/* a receive this large may be cold */
#define COLD_REUSE	(4u << 20)	/* bytes pulled since a buffer was last
					 * filled (to the end of that fill) for
					 * it to be cold */


static struct mxd_pull *
pull_get(struct mx_endpoint *ep)
{
	for (uint32_t n = 0; n < MXD_PULLS_MAX; n++) {
		uint32_t i = (ep->pull_next + n) & (MXD_PULLS_MAX - 1);
		struct mxd_pull *pl;

		if (ep->pulls[i] != NULL)
			continue;
		pl = ep->pull_free;
		if (pl != NULL)
			ep->pull_free = pl->next_free;
		else if ((pl = malloc(sizeof(*pl))) == NULL)
			return NULL;
		memset(pl, 0, sizeof(*pl));
		mxd_list_init(&pl->link);
		mxd_list_init(&pl->plink);
		pl->handle = (++ep->pull_gen << 12) | i;
		/* Striping: each pull starts one port on from the last,
		 * so that messages of one block spread over the ports. */
		pl->rr = ep->pull_gen;
		ep->pulls[i] = pl;
		ep->pull_next = i + 1;
		ep->npulls++;
		return pl;
	}
	return NULL;
}

static void
pull_put(struct mx_endpoint *ep, struct mxd_pull *pl)
{
	/* Its receive's data written around the caches in this pass is
	 * seen by every thread before the receive ends (earlier passes
	 * fenced theirs: rx_board). */
	if (pl->cold)
		mxd_crc_store_fence();
	for (unsigned b = 0; b < MXD_PULL_BLOCKS; b++)
		if (pl->blk[b].asked)	/* outstanding: no longer ours */
			pl->p->a->pulls_out--;
	ep->pulls[pl->handle & (MXD_PULLS_MAX - 1)] = NULL;
	ep->npulls--;
	mxd_list_del(&pl->link);
	mxd_list_del(&pl->plink);
	pl->next_free = ep->pull_free;
	ep->pull_free = pl;
}

void
mxd_pulls_release(struct mx_endpoint *ep)
{
	for (uint32_t i = 0; i < MXD_PULLS_MAX; i++)
		if (ep->pulls[i] != NULL)
			pull_put(ep, ep->pulls[i]);
	while (ep->pull_free != NULL) {
		struct mxd_pull *pl = ep->pull_free;

		ep->pull_free = pl->next_free;
		free(pl);
	}
}

/*
 * Striping: the port for the next PULL of pl, and the peer's MAC there.
 * Blocks go round the board's ports whose link is up and on which the
 * peer has been heard; the sender answers each PULL on the port it came
 * in by, so the data follows.  A port that goes down is left out, so is
 * one suspected of losses while another will do, and 'avoid' (a port that
 * left a block unanswered, for the block's asking again).
 */
static unsigned
pull_port(struct mxd_pull *pl, int avoid, const uint8_t **mac)
{
	struct mxd_partner *p = pl->p;
	struct mxd_board *b = p->ep->board;
	const struct mxd_peer *peer;

	*mac = p->mac;
	if (p->local || b->nports == 1 ||
			(peer = mxd_naming_by_nic(p->nic_id)) == NULL)
		return (unsigned)p->port;
	/* First pass: ports not suspected of losing; then any that is up. */
	for (int careful = 1; careful >= 0; careful--)
		for (unsigned n = 0; n < b->nports; n++) {
			unsigned port = pl->rr++ % b->nports;
			unsigned li = b->link_index[port];

			if (careful && (p->a->port_bad_until[port] > p->ep->now ||
						(int)port == avoid))
				continue;
			if ((peer->seen & (1u << li)) &&
					mxd_board_port_up(b, port)) {
				*mac = peer->mac[li];
				return port;
			}
		}
	return (unsigned)p->port;
}

/*
 * Sends one PULL for [off, off + len) of pl (not by 'avoid' if another
 * port will do) and numbers it in block k; returns its port or -1.
 * flags: MXD_F_AGAIN for frames asked again.
 */
static int
pull_send(struct mxd_pull *pl, struct mxd_pullblk *k, int avoid,
		uint32_t off, uint32_t len, uint8_t flags)
{
	struct mxd_partner *p = pl->p;
	const uint8_t *mac;
	unsigned port = pull_port(pl, avoid, &mac);
	struct mxd_frame f;

	if (mxd_port_room(p, port) == 0 || mxd_partner_frame_on(p, port, mac,
				MXD_T_PULL, sizeof(struct mxd_pull_hdr), &f) < 0)
		return -1;
	mxd_wire_put_pull(f.data + MXD_HDRS_LEN, pl->send_handle, pl->handle,
			off, len, pl->frag);
	if (flags != 0)
		mxd_wire_add_flags(f.data, flags);
	mxd_partner_xmit_on(p, port, &f, 0);
	if (!p->a->silent[port]) {
		p->a->silent[port] = 1;
		p->a->silent_from[port] = p->a->ask_next;
	}
	k->port = (uint8_t)port;
	k->ask = p->a->ask_next++;
	return (int)port;
}

/* Asks for the blocks not asked yet; returns 0 if all could be sent. */
static int
pull_ask(struct mxd_pull *pl)
{
	struct mxd_partner *p = pl->p;

	for (unsigned b = 0; b < MXD_PULL_BLOCKS; b++) {
		struct mxd_pullblk *k = &pl->blk[b];

		if (k->len == 0 || k->asked)
			continue;
		if (p->a->pulls_out >= MXD_JOBS ||
				pull_send(pl, k, -1, k->off, k->len, 0) < 0)
			return -1;
		k->asked = 1;
		k->again = 0;
		k->asked_at = 0;	/* stamped by the next timer pass */
		k->tail = (uint8_t)(k->count - 1);
		p->a->pulls_out++;
	}
	return 0;
}

/* Gives block slot k the next range, if any is left. */
static void
block_next(struct mxd_pull *pl, struct mxd_pullblk *k)
{
	uint32_t span = (uint32_t)pl->frag * MXD_PULL_FRAMES;

	memset(k, 0, sizeof(*k));
	if (pl->next >= pl->total)
		return;
	k->off = pl->next;
	k->len = pl->total - pl->next < span ? pl->total - pl->next : span;
	k->count = (uint8_t)mxd_frag_count(k->len, pl->frag);
	pl->next += k->len;
}

static void
pull_asks_later(struct mxd_pull *pl)
{
	if (pull_ask(pl) < 0 && mxd_list_empty(&pl->link)) {
		mxd_list_add_tail(&pl->r->ep->pulls_waiting, &pl->link);
		mxd_ep_busy(pl->r->ep, MXD_EW_PULLS);
	}
}

/* pl ends before all its bytes came: its receive fails with 'code'. */
static void
pull_end(struct mx_endpoint *ep, struct mxd_pull *pl, mx_status_code_t code)
{
	struct mx_request *r = pl->r;

	pull_put(ep, pl);
	mxd_req_complete(r, code);
	if (!mxd_list_empty(&ep->pulls_waiting))
		mxd_pulls_ask(ep);	/* room for others' blocks */
}

static void
pull_finish(struct mx_endpoint *ep, struct mxd_pull *pl)
{
	struct mx_request *r = pl->r;

	mxd_notice(pl->p, MXD_NOTE_NOTIFY, pl->send_handle);
	pull_put(ep, pl);
	mxd_req_complete(r, r->status.msg_length > r->length ?
			MX_STATUS_TRUNCATED : MX_STATUS_SUCCESS);
	mxd_count(ep->board, MXD_C_RX_MSGS);
}

/*
 * Whether the buffer of large receive r (of one segment, 'total' bytes to
 * come) is out of cache: one of the buffers filled lately, but more than
 * COLD_REUSE bytes ago (a program that streams into a buffer per message,
 * as mx_stream, cycles through more than the caches hold; one that
 * receives into the same buffer again finds it in cache).  A cold buffer
 * is written around the caches: no line of it is read first.  A buffer
 * not seen before is not: it may be memory never touched, whose pages
 * the kernel zeroes through the cache at the first write, and a store
 * around the cache then costs more, not less (16 MiB fresh: 13.8 ms
 * against 10.5 ms here, the first lap of such a stream).
 */
static int
pull_cold(struct mx_endpoint *ep, const struct mx_request *r, uint32_t total)
{
	uintptr_t a = (uintptr_t)r->segs[0].segment_ptr;
	unsigned old = 0;
	int cold = 0;

	if (r->nseg != 1 || total < COLD_MIN)
		return 0;
	for (unsigned i = 0; i < MXD_RECENT_BUFS; i++) {
		if (ep->recent[i].addr == a) {
			cold = ep->pulled - ep->recent[i].at >= COLD_REUSE;
			old = i;
			break;
		}
		if (ep->recent[i].at < ep->recent[old].at)
			old = i;
	}
	ep->pulled += total;
	ep->recent[old].addr = a;
	ep->recent[old].at = ep->pulled;	/* > 0: older than any free slot */
	return cold;
}

/* r waits for a pull slot, or for memory for one: last in line, or
 * ('waited': its turn had come, but it could not start) first again. */
static int
pull_wait(struct mx_request *r, struct mxd_partner *p, const uint8_t *desc,
		int waited)
{
	struct mx_endpoint *ep = r->ep;

	mxd_ep_busy(ep, MXD_EW_PULLS);
	if (waited) {
		mxd_list_add_tail(ep->pulls_deferred.next, &r->link);
		return -1;
	}
	r->partner = p;
	memcpy(r->desc, desc, sizeof(r->desc));
	mxd_list_add_tail(&ep->pulls_deferred, &r->link);
	mxd_count(ep->board, MXD_C_PULLS_DEFERRED);
	return -1;
}

/* mxd_pull_start; 'waited': r's turn came in ep->pulls_deferred.  Returns
 * -1 if r waits (again), else 0. */
static int
pull_start(struct mx_request *r, struct mxd_partner *p, const uint8_t *desc,
		mx_status_code_t fail, int waited)
{
	struct mx_endpoint *ep = r->ep;
	struct mxd_rndv_desc d;
	struct mxd_pull *pl;

	mxd_wire_get_rndv(desc, &d);
	r->status.msg_length = d.total_len;
	r->status.xfer_length = d.total_len < r->length ? d.total_len :
		r->length;
	if (fail != MX_STATUS_SUCCESS) {	/* announced by a past life */
		mxd_req_complete(r, fail);
		return 0;
	}
	if (p->state == MXD_PS_REFUSED || p->state == MXD_PS_LOST ||
			p->remote_session == 0) {	/* its sender is gone */
		mxd_req_complete(r, p->fail ? p->fail :
				MX_STATUS_ENDPOINT_UNREACHABLE);
		return 0;
	}
	if (d.frag_max == 0 || mxd_partner_act(p) == NULL) {
		/* A descriptor no sender writes (its send stays open until
		 * it gives up), or no memory for the partner's state. */
		mxd_req_complete(r, MX_STATUS_NO_RESOURCES);
		return 0;
	}
	/* Matched: its turn comes when a pull ends, after those that waited
	 * before it; or, with no memory for the pull's record, at a later
	 * pass. */
	if (!waited && (ep->npulls == MXD_PULLS_MAX ||
				!mxd_list_empty(&ep->pulls_deferred)))
		return pull_wait(r, p, desc, 0);
	if ((pl = pull_get(ep)) == NULL)
		return pull_wait(r, p, desc, waited);
	pl->r = r;
	pl->p = p;
	pl->send_handle = d.send_handle;
	pl->total = r->status.xfer_length;
	pl->frag = d.frag_max < p->pull_frag_max ? d.frag_max :
		p->pull_frag_max;
	pl->cold = (uint8_t)pull_cold(ep, r, pl->total);
	/* A face's message brought its head with the descriptor: the pull
	 * starts past it. */
	pl->next = pl->got = d.head < pl->total ? d.head : pl->total;
	mxd_list_add_tail(&p->a->pulls, &pl->plink);
	mxd_timer_watch(p);
	if (pl->got == pl->total) {
		pull_finish(ep, pl);
		return 0;
	}
	for (unsigned b = 0; b < MXD_PULL_BLOCKS; b++)
		block_next(pl, &pl->blk[b]);
	pull_asks_later(pl);
	return 0;
}

void
mxd_pull_start(struct mx_request *r, struct mxd_partner *p,
		const uint8_t *desc, mx_status_code_t fail)
{
	if (p->shm) {		/* same host: read from the sender's memory */
		mxd_shm_read_start(r, p, desc, fail);
		return;
	}
	(void)pull_start(r, p, desc, fail, 0);
}

void
mxd_pulls_start_deferred(struct mx_endpoint *ep)
{
	while (!mxd_list_empty(&ep->pulls_deferred) &&
			ep->npulls < MXD_PULLS_MAX) {
		struct mx_request *r = mxd_container_of(
				ep->pulls_deferred.next, struct mx_request,
				link);

		mxd_list_del(&r->link);
		if (pull_start(r, r->partner, r->desc, MX_STATUS_SUCCESS,
					1) < 0)
			return;		/* no memory yet */
	}
}

void
mxd_pulls_ask(struct mx_endpoint *ep)
{
	while (!mxd_list_empty(&ep->pulls_waiting)) {
		struct mxd_pull *pl = mxd_container_of(ep->pulls_waiting.next,
				struct mxd_pull, link);

		if (pull_ask(pl) < 0)
			return;
		mxd_list_del(&pl->link);
	}
}

/* The block of pl holding 'off', or NULL. */
static struct mxd_pullblk *
block_of(struct mxd_pull *pl, uint32_t off)
{
	for (unsigned b = 0; b < MXD_PULL_BLOCKS; b++) {
		struct mxd_pullblk *k = &pl->blk[b];

		if (k->len != 0 && off >= k->off && off - k->off < k->len)
			return k;
	}
	return NULL;
}

/* A block is all in: learn its round trip, clear its port's record. */
static void
block_done(struct mxd_partner *p, const struct mxd_pullblk *k)
{
	if (k->tries != 0)
		return;
	p->a->port_fails[k->port] = 0;
	if (k->asked_at != 0)
		mxd_rtt_sample(&p->a->pull_rtt, mxd_now_ns() - k->asked_at);
}

/* A pull reply dropped for c, or for its check if it is corrupt: the
 * return value of mxd_pull_data. */
static int
rep_drop(struct mxd_board *b, const struct mxd_pkt *pkt, enum mxd_counter c)
{
	if (!mxd_wire_check(pkt)) {
		mxd_count_drop(b, MXD_DROP_CSUM);
		return -1;
	}
	mxd_count(b, c);
	return 0;
}

/* Asks again for the frames of block k that did not come, by another port
 * than the one that brought nothing if there is one. */
static void
block_again(struct mxd_pull *pl, struct mxd_pullblk *k, uint64_t now)
{
	struct mxd_board *b = pl->p->ep->board;
	int avoid = k->have == 0 ? k->port : -1;
	unsigned runs = 0;

	for (unsigned i = 0; i < k->count && runs < 8;) {
		unsigned j = i;
		uint64_t off, end;	/* a message may end at 4 GiB */

		if (k->have & (1ull << i)) {
			i++;
			continue;
		}
		while (j < k->count && !(k->have & (1ull << j)))
			j++;
		off = (uint64_t)k->off + i * (uint64_t)pl->frag;
		end = (uint64_t)k->off + j * (uint64_t)pl->frag;
		if (end > (uint64_t)k->off + k->len)
			end = (uint64_t)k->off + k->len;
		if (pull_send(pl, k, avoid, (uint32_t)off, (uint32_t)(end - off),
					MXD_F_AGAIN) < 0)
			break;		/* tx full: the next pass */
		runs++;
		k->tail = (uint8_t)(j - 1);
		i = j;
	}
	if (runs == 0)
		return;
	k->tries++;
	k->again = 1;
	k->asked_at = now;
	k->n_asked = k->n;
	b->counters[MXD_C_REPULLS] += runs;
}

/*
 * The first frame answering k's last PULL came by 'port': the sender
 * serves a port's PULLs in order (those asking again before the others),
 * so blocks asked before it there that still miss frames lost them (their
 * last frame, or their PULL): ask again now.  A PULL asking again
 * overtakes only those asking again; a first ask, every PULL before it.
 * Each such block is asked again once per later PULL answered, since
 * asking renumbers it.
 */
static void
blocks_overtaken(struct mxd_pull *pl, const struct mxd_pullblk *k,
		unsigned port)
{
	uint64_t now = 0;

	for (unsigned b = 0; b < MXD_PULL_BLOCKS; b++) {
		struct mxd_pullblk *o = &pl->blk[b];

		if (o == k || o->len == 0 || !o->asked || o->n == o->count ||
				o->port != port || o->asked_at == 0 ||
				(k->again && !o->again) ||
				(int32_t)(k->ask - o->ask) <= 0)
			continue;
		if (now == 0)
			now = mxd_now_ns();
		block_again(pl, o, now);
		mxd_count(pl->p->ep->board, MXD_C_FAST_REPULLS);
	}
}

int
mxd_pull_data(struct mxd_partner *p, unsigned port, const struct mxd_pkt *pkt)
{
	struct mx_endpoint *ep = p->ep;
	uint32_t h = pkt->u.rep.recv_handle, off = pkt->u.rep.offset;
	struct mxd_pull *pl = ep->pulls[h & (MXD_PULLS_MAX - 1)];
	struct mxd_pullblk *k;
	uint32_t idx, want;

	if (pl == NULL || pl->handle != h || pl->p != p) {
		/* A late reply (asked twice) of a finished pull, or forged. */
		return rep_drop(ep->board, pkt, (enum mxd_counter)
				(MXD_C_DROP_BASE + MXD_DROP_STALE));
	}
	if (pkt->h.flags & MXD_F_GONE) {
		if (off != pl->send_handle)	/* not its send: forged */
			return rep_drop(ep->board, pkt, MXD_C_BAD_PULL);
		pull_end(ep, pl, MX_STATUS_ABORTED);
		mxd_count(ep->board, MXD_C_PULLS_ABORTED);
		return 1;
	}
	if ((k = block_of(pl, off)) == NULL) {
		/* A block finished before this copy of a reply came. */
		return rep_drop(ep->board, pkt, off < pl->next ?
				(enum mxd_counter)(MXD_C_DROP_BASE +
					MXD_DROP_DUP) : MXD_C_BAD_PULL);
	}
	idx = (off - k->off) / pl->frag;
	want = k->off + k->len - off < pl->frag ? k->off + k->len - off :
		pl->frag;
	if ((off - k->off) % pl->frag != 0 || pkt->u.rep.len != want)
		return rep_drop(ep->board, pkt, MXD_C_BAD_PULL);
	if (k->have & (1ull << idx))
		return rep_drop(ep->board, pkt, (enum mxd_counter)
				(MXD_C_DROP_BASE + MXD_DROP_DUP));
	/*
	 * Exactly the bytes of one missing frame of the block: a corrupt
	 * copy may write only where the good one will, and is not counted
	 * as received.
	 */
	if (!pkt->unchecked) {
		mxd_req_scatter(pl->r, off, pkt->payload, want);
	} else {
		uint32_t crc;

		ep->board->nt_stores |= pl->cold;	/* fenced: rx_board */
		ep->board->due |= pl->cold ? MXD_DUE_NT : 0;
		crc = mxd_req_scatter_crc(pl->r, off, pkt->payload, want,
				pkt->crc, pl->cold);
		if (!mxd_wire_payload_ok(pkt, crc)) {
			mxd_count_drop(ep->board, MXD_DROP_CSUM);
			return -1;
		}
	}
	k->have |= 1ull << idx;
	/* (first asks only: one asking again jumps the sender's queue) */
	if (port == k->port && !k->again &&
			(int32_t)(k->ask - p->a->answered[port]) > 0)
		p->a->answered[port] = k->ask;
	if (k->n == k->n_asked && port == k->port)
		blocks_overtaken(pl, k, port);	/* k's PULL's first frame */
	pl->got += want;
	if (pl->got == pl->total) {
		pull_finish(ep, pl);	/* its blocks are all answered */
		if (!mxd_list_empty(&ep->pulls_waiting))
			mxd_pulls_ask(ep);
		return 1;
	}
	if (++k->n == k->count) {
		p->a->pulls_out--;
		block_done(p, k);
		block_next(pl, k);
		if (k->len != 0)
			pull_asks_later(pl);
		if (!mxd_list_empty(&ep->pulls_waiting))
			mxd_pulls_ask(ep);	/* room for others' blocks */
	} else if (idx == k->tail) {
		/* The sender answers a PULL in order: the last frame asked
		 * is here, so the holes before it were lost.  Ask again now
		 * rather than at the block's timeout (a reordered frame may
		 * come twice: counted as a duplicate). */
		block_again(pl, k, mxd_now_ns());
		mxd_count(ep->board, MXD_C_FAST_REPULLS);
	}
	return 1;
}


/*
 * Suspects the ports that lose p's PULLs or their replies: nothing heard
 * by the port since a PULL went out there, while PULLs asked well after it
 * were answered by another port.  The sender serves PULLs in the order it
 * reads them, but it reads one port's queue before the other's: a PULL
 * asked later may overtake by up to the PULLs it queues for a partner
 * (MXD_JOBS).  A peer that is merely slow or quiet overtakes nothing.
 */
static void
ports_check(struct mxd_partner *p, uint64_t now)
{
	const struct mxd_board *b = p->ep->board;

	for (unsigned q = 0; q < b->nports; q++) {
		if (!p->a->silent[q])
			continue;
		for (unsigned o = 0; o < b->nports; o++) {
			if (o == q || (int32_t)(p->a->answered[o] -
						p->a->silent_from[q]) <= MXD_JOBS)
				continue;
			mxd_port_suspect(p, q, now);
			p->a->silent[q] = 0;	/* again from its next PULL */
			break;
		}
	}
}

void
mxd_pulls_timer(struct mxd_partner *p, uint64_t now)
{
	uint64_t rto = mxd_rtt_rto(&p->a->pull_rtt);
	uint64_t again_rto = mxd_rtt_probe(&p->a->pull_rtt);
	uint64_t rto_max = mxd_conf.rto_max_ms * 1000000ull;
	int asked = 0;
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &p->a->pulls) {
		struct mxd_pull *pl = mxd_container_of(pos, struct mxd_pull,
				plink);

		for (unsigned b = 0; b < MXD_PULL_BLOCKS; b++) {
			struct mxd_pullblk *k = &pl->blk[b];
			uint32_t shift = k->stalls < 6 ? k->stalls : 6;
			uint64_t wait = k->again && !shift ? again_rto :
				rto << shift, from;

			if (k->len == 0 || !k->asked || k->n == k->count)
				continue;
			/* Overdue counts from its ask or from the last sign
			 * of its frames, whichever is later: while they come
			 * the sender is still at its asks, which it serves in
			 * order (behind a deep queue, over a slow link), and
			 * asked again now they would only queue twice, and
			 * again, until the link carries mostly copies (a veth
			 * pair once moved a stream at a seventh of its rate
			 * so, one run in six). */
			if (k->n != k->n_seen) {
				k->n_seen = k->n;
				k->moved_at = now;
			}
			from = k->moved_at > k->asked_at ? k->moved_at :
				k->asked_at;
			if (k->asked_at == 0) {
				k->asked_at = now;
			} else if (now - from >= (wait < rto_max ? wait :
						rto_max)) {
				/* Back off only while nothing comes: a block
				 * that loses some frames is asked again at
				 * the round-trip timeout each time, and
				 * sooner once asked again (served first by
				 * the sender, its frames do not wait behind
				 * other blocks: mxd_rtt_probe). */
				k->stalls = k->n == k->n_asked ?
					(uint8_t)(k->stalls + 1) : 0;
				block_again(pl, k, now);
				asked = 1;
			}
		}
	}
	if (asked)
		mxd_probe_sent(p, now);
	if (p->ep->board->nports > 1)
		ports_check(p, now);
}

void
mxd_pulls_fail(struct mxd_partner *p, mx_status_code_t code)
{
	struct mx_endpoint *ep = p->ep;
	struct mxd_list *pos, *tmp;

	if (p->shm)		/* same host: those copied through the ring */
		mxd_shm_pulls_fail(p, code);
	mxd_list_foreach(pos, tmp, &ep->pulls_deferred) {
		struct mx_request *r = mxd_container_of(pos,
				struct mx_request, link);

		if (r->partner == p)
			mxd_req_complete(r, code);	/* off the list */
	}
	while (p->a != NULL && !mxd_list_empty(&p->a->pulls)) {
		struct mxd_pull *pl = mxd_container_of(p->a->pulls.next,
				struct mxd_pull, plink);
		struct mx_request *r = pl->r;

		pull_put(ep, pl);
		mxd_req_complete(r, code);
	}
}
