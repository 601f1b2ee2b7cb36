/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reliability: what happens when frames are lost, or a partner is.
 *
 * Every message (data or notice) keeps its frames until the partner's
 * cumulative ack covers it.  The timers (progress/timers_run.c) decide
 * when to act; this file acts:
 *
 *   - the oldest unacknowledged message is sent again once it is older
 *     than the probe timeout (two round trips, at least a quarter of
 *     MX_RTO_MIN_US), and after that the retransmission timeout: the
 *     round-trip estimate (srtt + 4 rttvar, from acks that cover only
 *     messages sent once) with a floor of MX_RTO_MIN_US, doubled at each
 *     consecutive timeout up to MX_RTO_MAX_MS;
 *   - a partner we only wait for (nothing in flight) gets a liveness
 *     probe (an ACK flagged PING, answered at once) when silent;
 *   - a port that loses a partner's frames is routed around;
 *   - a partner that has answered none of our retransmissions, re-pulls
 *     or probes for MX_PEER_TIMEOUT_MS is lost (engine/connect.c,
 *     mxd_partner_lost): its requests fail with
 *     MX_STATUS_ENDPOINT_UNREACHABLE and the rest of the endpoint goes on
 *     (messages of sends that completed already are counted and told by
 *     the next send to the partner: send.c).
 *
 * The receiving side suppresses duplicates (receive window, block bitmaps)
 * and answers a duplicate with an ack at once, so a sender whose acks were
 * lost, or that is held back by a full unexpected queue, still hears from
 * us and never takes a slow receiver for a dead one.
 */
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/config.h"
#include "partners/naming.h"
#include "partners/xmit.h"
#include "engine/reliable.h"
#include "engine/timers.h"

#define BACKOFF_MAX	16
/* A message sent again this recently may still be on its way: not yet. */
#define FAST_GAP_MIN_NS	20000u

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
	uint64_t lo = mxd_conf.rto_min_us * 1000ull;
	uint64_t hi = mxd_conf.rto_max_ms * 1000000ull;

	return rto < lo ? lo : rto > hi ? hi : rto;
}

uint64_t
mxd_rtt_probe(const struct mxd_rtt *r)
{
	uint64_t pto = 2ull * r->srtt + mxd_conf.ack_delay_us * 1000ull;
	uint64_t lo = mxd_conf.rto_min_us * 250ull;
	uint64_t rto = mxd_rtt_rto(r);

	pto = pto < lo ? lo : pto;
	return pto > rto ? rto : pto;
}

uint64_t
mxd_rtt_backed_off(const struct mxd_rtt *r, uint32_t backoff)
{
	uint64_t rto = mxd_rtt_rto(r) << (backoff < BACKOFF_MAX ? backoff :
			BACKOFF_MAX);
	uint64_t hi = mxd_conf.rto_max_ms * 1000000ull;

	return rto > hi ? hi : rto;
}

void
mxd_probe_sent(struct mxd_partner *p, uint64_t now)
{
	if (p->a->probe_since <= p->last_heard)
		p->a->probe_since = now;
}

void
mxd_port_suspect(struct mxd_partner *p, unsigned port, uint64_t now)
{
	uint32_t f = p->a->port_fails[port]++;

	p->a->port_bad_until[port] = now + (100000000ull << (f < 6 ? f : 6));
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
	mxd_partner_hdr_stale(p);
	for (unsigned i = 0; i < MXD_WIN; i++) {
		struct mxd_txrec *rec = p->a->inflight[i];

		if (rec == NULL || rec->small)	/* built anew if sent again */
			continue;
		for (unsigned f = 0; f < rec->nframes; f++) {
			mxd_wire_set_macs(rec->frames[f].data, p->mac,
					b->port[q]->mac);
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
void
mxd_reroute(struct mxd_partner *p, uint64_t now, uint64_t tried)
{
	struct mxd_board *b = p->ep->board;
	const struct mxd_peer *peer = mxd_naming_by_nic(p->nic_id);
	unsigned old = (unsigned)p->port;

	if (p->local || b->nports == 1 || peer == NULL ||
			p->a->heard_on[old] >= tried)
		return;
	for (int careful = 1; careful >= 0; careful--)
		for (unsigned n = 1; n < b->nports; n++) {
			unsigned q = (old + n) % b->nports;
			unsigned li = b->link_index[q];

			if (!(peer->seen & (1u << li)) ||
					!mxd_board_port_up(b, q) ||
					(careful && p->a->port_bad_until[q] > now))
				continue;
			move_to(p, q, peer->mac[li], now);
			return;
		}
}

void
mxd_partner_follow(struct mxd_partner *p, unsigned port,
		const struct mxd_pkt *pkt)
{
	p->port = (int)port;
	memcpy(p->mac, pkt->eth->src, MXD_ETH_ALEN);
	mxd_partner_hdr_stale(p);
}

/* Bit i set for each of rec's fragments. */
static uint64_t
frags_all(const struct mxd_txrec *rec)
{
	return mxd_frames_mask(rec->nframes);
}

/*
 * Sends again the frames of rec in 'which' (bit i: frame i); 0 when the
 * tx queue has no room for them.  None: the last frame alone, so that the
 * receiver answers (a duplicate is acked at once).
 */
static int
resend_frames(struct mxd_partner *p, struct mxd_txrec *rec, uint64_t which,
		uint64_t now)
{
	struct mxd_board *b = p->ep->board;
	unsigned n;

	if (which == 0)
		which = 1ull << (rec->nframes - 1);
	n = (unsigned)__builtin_popcountll(which);
	if (mxd_partner_room(p) < n)
		return 0;
	if (rec->small) {		/* its frame, built again */
		struct mxd_frame f;

		if (mxd_partner_alloc(p, (unsigned)p->port, &f, 1) != 0)
			return 0;
		mxd_partner_small_frame(p, &f, rec->seq, rec->flags,
				rec->match, rec->data, rec->len,
				mxd_ack_for(p, MXD_T_EAGER));
		mxd_partner_xmit_on(p, (unsigned)p->port, &f, 1);
	} else if (which == frags_all(rec)) {
		mxd_board_ref(b, rec->frames, rec->nframes);
		for (unsigned i = 0; i < rec->nframes; i++)
			mxd_partner_xmit_on(p, (unsigned)p->port,
					&rec->frames[i], 1);
	} else {
		for (uint64_t m = which; m != 0; m &= m - 1) {
			unsigned i = (unsigned)__builtin_ctzll(m);

			mxd_board_ref(b, &rec->frames[i], 1);
			mxd_partner_xmit_on(p, (unsigned)p->port,
					&rec->frames[i], 1);
		}
	}
	rec->sent = which;
	rec->sent_at = now;
	rec->retx++;
	mxd_txrec_note(p->a, rec);
	b->counters[MXD_C_RETX_MSGS]++;
	b->counters[MXD_C_RETX_FRAMES] += n;
	b->counters[MXD_C_RETX_SPARED] += (unsigned)__builtin_popcountll(
			rec->have & frags_all(rec) & ~which);
	return 1;
}

/* Sends again what the receiver does not hold of rec. */
static int
resend(struct mxd_partner *p, struct mxd_txrec *rec, uint64_t now)
{
	return resend_frames(p, rec, frags_all(rec) & ~rec->have, now);
}

void
mxd_retransmit(struct mxd_partner *p, uint64_t now)
{
	struct mxd_txrec *rec = p->a->inflight[(p->tx.acked + 1) & (MXD_WIN - 1)];
	int sent;

	mxd_probe_sent(p, now);		/* even if the link takes nothing */
	if (p->a->backoff >= 2)
		mxd_reroute(p, now, rec->sent_at);
	/* The receiver's word is trusted, but not for ever: when a second
	 * timeout in a row finds it as the one before left it (what went
	 * again in between lost twice over, with the acks, or a receiver
	 * naming fragments it lacks), the whole message goes again.  A
	 * wrong record may delay a message; it cannot lose it. */
	if (rec->have == 0 || rec->have != rec->have_rto)
		rec->rto_still = 0;
	else if (rec->rto_still < 2)
		rec->rto_still++;
	rec->have_rto = rec->have;
	/* A message of several frames of which the receiver said nothing,
	 * at its first timeout: its last frame alone.  Arrived, it makes
	 * the receiver name what it holds (or, held already, ack it), and
	 * only the rest goes again; usually only the tail was lost. */
	if (rec->retx == 0 && rec->have == 0 && rec->nframes > 1 && p->frags)
		sent = resend_frames(p, rec, 1ull << (rec->nframes - 1), now);
	else if (rec->rto_still >= 2)
		sent = resend_frames(p, rec, frags_all(rec), now);
	else
		sent = resend(p, rec, now);
	if (sent)
		p->a->backoff++;
}

/*
 * Sends again the fragments of rec that the receiver's word shows lost: a
 * message's frames go one port, in order, and each (re)transmission after
 * the one before, so once a frame of its last one (rec->sent) is held,
 * every frame sent before that one and not held was lost: those of the
 * earlier transmissions, and those of the last below it.  Until a frame
 * of the last is held there is no word on it (it may be on its way in a
 * deep queue): the timer's.  Returns 1 when it must look again later (not
 * stamped yet, no tx room).
 */
static int
frags_resend(struct mxd_partner *p, struct mxd_txrec *rec, uint64_t now)
{
	uint64_t got = rec->have & rec->sent, lost;

	if (got == 0)
		return 0;
	lost = ~rec->have & frags_all(rec) & (~rec->sent |
			((2ull << (63 - __builtin_clzll(got))) - 1));
	if (lost == 0)
		return 0;
	if (rec->sent_at == 0)		/* timers.c stamps in order */
		return 1;
	if (!resend_frames(p, rec, lost, now))
		return 1;
	p->ep->board->counters[MXD_C_FAST_RETX]++;
	return 0;
}

void
mxd_frags_heard(struct mxd_partner *p, const struct mxd_pkt *pkt)
{
	uint64_t now = mxd_now_ns();
	int later = 0;

	for (uint32_t k = 0; k < pkt->u.ack.nfrags; k++) {
		struct mxd_txrec *rec;
		uint64_t have;
		uint32_t seq;

		mxd_wire_get_frags(pkt, k, &seq, &have);
		rec = p->a->inflight[seq & (MXD_WIN - 1)];
		if (mxd_seq_lt(seq, p->tx.acked + 1) ||
				!mxd_seq_lt(seq, p->tx.next_seq) ||
				rec == NULL || !mxd_txrec_has(rec, seq) ||
				rec->nframes < 2)
			continue;	/* acked since: a late record */
		/* A message held in part: some of its fragments, not all,
		 * none past its last. */
		if (have == 0 || (have & ~frags_all(rec)) != 0 ||
				have == frags_all(rec)) {
			mxd_count_drop(p->ep->board, MXD_DROP_FRAG);
			continue;
		}
		rec->have |= have;
		later |= frags_resend(p, rec, now);
	}
	if (later) {
		p->a->frags_pending = 1;
		mxd_timer_watch(p);
	}
}

void
mxd_frags_again(struct mxd_partner *p, uint64_t now)
{
	int later = 0;

	p->a->frags_pending = 0;
	for (uint32_t seq = p->tx.acked + 1; mxd_seq_lt(seq, p->tx.next_seq);
			seq++) {
		struct mxd_txrec *rec = p->a->inflight[seq & (MXD_WIN - 1)];

		if (rec != NULL && mxd_txrec_has(rec, seq) && rec->have != 0)
			later |= frags_resend(p, rec, now);
	}
	p->a->frags_pending = (uint8_t)later;
}

void
mxd_fast_retransmit(struct mxd_partner *p, uint32_t ack, uint64_t bits,
		int fresh)
{
	const struct mxd_txrec *last = NULL;	/* the one just sent again */
	uint32_t top, gap;
	uint64_t now, newest = 0;
	uint32_t newest_seq = ack;
	int later = 0;

	p->a->sack_pending = 0;
	if (bits == 0 || !mxd_partner_up(p))
		return;
	top = 63u - (uint32_t)__builtin_clzll(bits);	/* highest arrived */
	now = mxd_now_ns();
	gap = p->a->rtt.srtt > FAST_GAP_MIN_NS ? p->a->rtt.srtt : FAST_GAP_MIN_NS;
	/* The last (re)send of the latest message known arrived (of those
	 * sent at the same time, the highest: they left in order). */
	for (uint64_t m = bits; m != 0; m &= m - 1) {
		uint32_t seq = ack + 1 + (uint32_t)__builtin_ctzll(m);
		struct mxd_txrec *rec = p->a->inflight[seq & (MXD_WIN - 1)];

		if (rec != NULL && mxd_txrec_has(rec, seq) &&
				rec->sent_at >= newest) {
			newest = rec->sent_at;
			newest_seq = seq;
		}
	}
	for (uint32_t i = 0; i < top; i++) {
		uint32_t seq = ack + 1 + i;
		struct mxd_txrec *rec = p->a->inflight[seq & (MXD_WIN - 1)];

		/* Arrived, or no longer ours (acked since), or not sent; a
		 * message of a PACK frame just sent again went with it. */
		if ((bits & (1ull << i)) || mxd_seq_lt(seq, p->tx.acked + 1) ||
				!mxd_seq_lt(seq, p->tx.next_seq) ||
				rec == NULL || rec == last)
			continue;
		/* A SACK seen again by the timer: what was sent again since
		 * waits for a newer SACK or the retransmission timer. */
		if (!fresh && rec->retx != 0)
			continue;
		/* Sent again after everything known to have arrived: no word
		 * on that copy yet (it may wait in a deep queue); sending it
		 * once more on every ack that repeats the SACK would flood
		 * the link with duplicates. */
		if (rec->retx != 0 && (rec->sent_at > newest ||
				(rec->sent_at == newest &&
				 !mxd_seq_lt(seq, newest_seq))))
			continue;
		/* Sent (again) less than a round trip ago: it may be on its
		 * way; the timer pass looks again (not stamped yet: a timer
		 * pass stamps it first). */
		if (rec->sent_at == 0 || now - rec->sent_at < gap) {
			later = 1;
			continue;
		}
		if (!resend(p, rec, now)) {
			later = 1;	/* no tx room: the next pass */
			break;
		}
		last = rec;
		p->ep->board->counters[MXD_C_FAST_RETX]++;
	}
	if (later) {
		p->a->sack_ack = ack;
		p->a->sack_bits = bits;
		p->a->sack_pending = 1;
		mxd_timer_watch(p);
	}
}

void
mxd_ping(struct mxd_partner *p, uint64_t now)
{
	p->a->ping_at = now;
	mxd_probe_sent(p, now);		/* even if the link takes nothing */
	if (mxd_partner_ack(p, MXD_F_PING) == 0)
		mxd_count(p->ep->board, MXD_C_PINGS);
}
