/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reliability: what happens when frames are lost, or a partner is.
 *
 * Every message (data or notice) keeps its frames until the partner's
 * cumulative ack covers it.  A partner with anything outstanding (messages
 * in flight, large receives being pulled from it, large sends waiting for
 * its pulls, queued notices) is on its board's 'timed' list, which the
 * progress pass visits every few dozen passes:
 *
 *   - the oldest unacknowledged message is sent again once it is older
 *     than the retransmission timeout: the round-trip estimate (srtt +
 *     4 rttvar, from messages sent once) with a floor of MX_RTO_MIN_US,
 *     doubled at each consecutive timeout up to MX_RTO_MAX_MS;
 *   - overdue pull blocks are asked again (rndv.c);
 *   - a partner we only wait for (nothing in flight) gets a liveness
 *     probe (an ACK flagged PING, answered at once) when silent;
 *   - a partner that has answered none of our retransmissions, re-pulls
 *     or probes for MX_PEER_TIMEOUT_MS is lost: its requests fail with
 *     MX_STATUS_ENDPOINT_UNREACHABLE and the rest of the endpoint goes on.
 *
 * The receiving side suppresses duplicates (receive window, block bitmaps)
 * and answers a duplicate with an ack at once, so a sender whose acks were
 * lost, or that is held back by a full unexpected queue, still hears from
 * us and never takes a slow receiver for a dead one.
 */
#include <stdlib.h>
#include <string.h>

#include "mxd.h"

#define TIMER_PASSES	64	/* progress passes between timer checks */
#define BACKOFF_MAX	16

void
mxd_rtt_sample(struct mxd_rtt *r, uint64_t ns)
{
	uint32_t m = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;

	if (r->srtt == 0) {
		r->srtt = m;
		r->var = m / 2;
		return;
	}
	int64_t err = (int64_t)m - r->srtt;

	r->srtt = (uint32_t)((int64_t)r->srtt + err / 8);
	r->var = (uint32_t)((int64_t)r->var +
			((err < 0 ? -err : err) - (int64_t)r->var) / 4);
}

uint64_t
mxd_rtt_rto(const struct mxd_rtt *r)
{
	uint64_t rto = (uint64_t)r->srtt + 4ull * r->var;
	uint64_t lo = mxd_lib.conf.rto_min_us * 1000ull;
	uint64_t hi = mxd_lib.conf.rto_max_ms * 1000000ull;

	return rto < lo ? lo : rto > hi ? hi : rto;
}

/* The timeout after 'backoff' consecutive expiries. */
static uint64_t
backed_off(const struct mxd_rtt *r, uint32_t backoff)
{
	uint64_t rto = mxd_rtt_rto(r) << (backoff < BACKOFF_MAX ? backoff :
			BACKOFF_MAX);
	uint64_t hi = mxd_lib.conf.rto_max_ms * 1000000ull;

	return rto > hi ? hi : rto;
}

void
mxd_timed_add(struct mxd_partner *p)
{
	if (mxd_list_empty(&p->timed))
		mxd_list_add_tail(&p->ep->board->timed, &p->timed);
}

/* We asked p for an answer: the first unanswered probe starts the clock
 * of MX_PEER_TIMEOUT_MS. */
void
mxd_probe_sent(struct mxd_partner *p, uint64_t now)
{
	if (p->probe_since <= p->last_heard)
		p->probe_since = now;
}

void
mxd_port_suspect(struct mxd_partner *p, unsigned port, uint64_t now)
{
	uint32_t f = p->port_fails[port]++;

	p->port_bad_until[port] = now + (100000000ull << (f < 6 ? f : 6));
	mxd_count(p->ep->board, MXD_C_PORT_SUSPECT);
}

/* Moves p's messages, and those in flight, to port q (peer MAC mac). */
static void
move_to(struct mxd_partner *p, unsigned q, const uint8_t *mac, uint64_t now)
{
	struct mxd_board *b = p->ep->board;

	mxd_port_suspect(p, (unsigned)p->port, now);
	p->port = (int)q;
	memcpy(p->mac, mac, MXD_ETH_ALEN);
	for (unsigned i = 0; i < MXD_WIN; i++) {
		struct mxd_txrec *rec = p->inflight[i];

		for (unsigned f = 0; rec != NULL && f < rec->nframes; f++) {
			memcpy(rec->frames[f].data, p->mac, MXD_ETH_ALEN);
			memcpy(rec->frames[f].data + MXD_ETH_ALEN,
					b->port[q]->mac, MXD_ETH_ALEN);
			mxd_wire_seal(rec->frames[f].data);
		}
	}
}

/*
 * p's messages go to a port that lost them: on a board of several ports,
 * move them (and what is in flight) to another port that is up and where
 * the peer was heard, one not suspected of losses if there is one; the
 * peer follows the port its messages come in by.  Called when the port
 * went down, or when a message (or probe) sent at 'tried' went unanswered
 * twice and nothing at all was heard from p on the port since: the port,
 * not the message, is lost.
 */
static void
reroute(struct mxd_partner *p, uint64_t now, uint64_t tried)
{
	struct mxd_board *b = p->ep->board;
	const struct mxd_peer *peer = mxd_naming_by_nic(p->nic_id);
	unsigned old = (unsigned)p->port;

	if (p->local || b->nports == 1 || peer == NULL ||
			p->heard_on[old] >= tried)
		return;
	for (int careful = 1; careful >= 0; careful--)
		for (unsigned n = 1; n < b->nports; n++) {
			unsigned q = (old + n) % b->nports;
			unsigned li = b->link_index[q];

			if (!(peer->seen & (1u << li)) ||
					!mxd_board_port_up(b, q) ||
					(careful && p->port_bad_until[q] > now))
				continue;
			move_to(p, q, peer->mac[li], now);
			return;
		}
}

/* Sends the oldest unacknowledged message again if its time came. */
static void
retransmit(struct mxd_partner *p, uint64_t now)
{
	struct mxd_board *b = p->ep->board;
	struct mxd_txrec *rec = p->inflight[(p->tx.acked + 1) & (MXD_WIN - 1)];

	if (rec == NULL || rec->sent_at == 0)
		return;
	if (now < rec->sent_at + backed_off(&p->rtt, p->backoff))
		return;
	mxd_probe_sent(p, now);		/* even if the link takes nothing */
	if (p->backoff >= 2)
		reroute(p, now, rec->sent_at);
	if (mxd_partner_room(p) < rec->nframes)
		return;
	b->port[0]->ops->ref(rec->frames, rec->nframes);
	for (unsigned i = 0; i < rec->nframes; i++) {
		if (p->local)
			mxd_loop_resend(b, &rec->frames[i]);
		else
			mxd_txq_resend(b, (unsigned)p->port, &rec->frames[i]);
	}
	rec->sent_at = now;
	rec->retx++;
	p->backoff++;
	b->counters[MXD_C_RETX_MSGS]++;
	b->counters[MXD_C_RETX_FRAMES] += rec->nframes;
}

/* Stamps messages sent since the last pass with the time. */
static void
stamp(struct mxd_partner *p, uint64_t now)
{
	for (uint32_t s = p->tx.next_seq - 1; s != p->tx.acked; s--) {
		struct mxd_txrec *rec = p->inflight[s & (MXD_WIN - 1)];

		if (rec == NULL || rec->sent_at != 0)
			break;
		rec->sent_at = now;
	}
}

static void
ping(struct mxd_partner *p, uint64_t now)
{
	struct mxd_frame f;

	p->ping_at = now;
	mxd_probe_sent(p, now);		/* even if the link takes nothing */
	if (mxd_partner_room(p) == 0 ||
			mxd_partner_frame(p, MXD_T_ACK, 0, &f) < 0)
		return;
	f.data[MXD_ETH_HLEN + 2] |= MXD_F_PING;
	mxd_partner_xmit(p, &f);
	mxd_count(p->ep->board, MXD_C_PINGS);
}

/* Whether we wait for anything from p. */
static int
waiting(const struct mxd_partner *p)
{
	return mxd_txwin_in_flight(&p->tx) != 0 || !mxd_list_empty(&p->pulls) ||
		p->lsends != 0 || !mxd_list_empty(&p->syncq) ||
		p->notify_n != 0;
}

static void
partner_timer(struct mxd_partner *p, uint64_t now)
{
	uint64_t limit = mxd_lib.conf.peer_timeout_ms * 1000000ull;
	uint64_t ping_every = limit / 4;

	if (p->remote_session == 0 || !waiting(p)) {
		mxd_list_del(&p->timed);
		return;
	}
	if (p->ep->board->nports > 1 && !p->local &&
			!mxd_board_port_up(p->ep->board, (unsigned)p->port))
		reroute(p, now, UINT64_MAX);
	if (mxd_txwin_in_flight(&p->tx) != 0) {
		stamp(p, now);
		retransmit(p, now);
	} else if (now - p->last_heard >= ping_every &&
			now - p->ping_at >= ping_every) {
		/* The last probe went unanswered too: try another port. */
		if (p->probe_since > p->last_heard && p->ping_at != 0)
			reroute(p, now, p->ping_at);
		ping(p, now);
	}
	/* Blocks are overdue after MX_RTO_MIN_US at the least: looking a
	 * quarter of that apart is soon enough, and keeps a window of large
	 * receives from being scanned on every pass. */
	if (!mxd_list_empty(&p->pulls) && now >= p->pulls_check_at) {
		p->pulls_check_at = now + mxd_lib.conf.rto_min_us * 250ull;
		mxd_pulls_timer(p, now);
	}
	if (limit != 0 && p->probe_since > p->last_heard &&
			now - p->probe_since >= limit) {
		mxd_count(p->ep->board, MXD_C_PEER_DEAD);
		mxd_partner_lost(p, MX_STATUS_ENDPOINT_UNREACHABLE);
	}
}

void
mxd_timers_run(struct mxd_board *b, uint64_t now)
{
	struct mxd_list *pos, *tmp;

	b->timer_pass = 0;
	for (unsigned i = 0; i < b->nports; i++) {
		/* Rare (a memif peer gone mid-burst): counted here, not in
		 * the burst. */
		b->counters[MXD_C_BURSTS_CUT] += b->port[i]->cut - b->cut_seen[i];
		b->cut_seen[i] = b->port[i]->cut;
	}
	mxd_list_foreach(pos, tmp, &b->timed)
		partner_timer(mxd_container_of(pos, struct mxd_partner, timed),
				now);
}

/* Called by every progress pass; runs the timers every TIMER_PASSES
 * passes, or sooner when the pass found nothing to do. */
void
mxd_timers_tick(struct mxd_board *b, unsigned work)
{
	if (mxd_list_empty(&b->timed))
		return;
	if (++b->timer_pass < (work ? TIMER_PASSES : TIMER_PASSES / 8))
		return;
	b->now = mxd_now_ns();
	mxd_timers_run(b, b->now);
}

void
mxd_partner_lost(struct mxd_partner *p, mx_status_code_t code)
{
	mxd_partner_fail(p, code);
	mxd_pulls_fail(p, code);
	mxd_recv_partner_lost(p, code);
	/* Windows start over; its frames are stale from now on. */
	mxd_partner_reset(p, 0);
	p->notify_n = 0;
	p->backoff = 0;
	p->probe_since = 0;
	memset(&p->rtt, 0, sizeof(p->rtt));
	memset(&p->pull_rtt, 0, sizeof(p->pull_rtt));
	mxd_list_del(&p->timed);
	mxd_list_del(&p->ackq);
	p->ack_queued = 0;
}

int
mxd_partner_fresh(const struct mxd_partner *p)
{
	return p->tx.next_seq == 1 && p->rx.base == 1 && p->rx.next_match == 1;
}
