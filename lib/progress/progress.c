/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress: the whole pass, in a fixed order, and the dispatch of received
 * frames by type.  Every API call that may need the network runs a pass;
 * blocking calls run passes until done (the API layer).  A pass covers
 * every board of the process, which has no firmware of its own to answer
 * connects or acks while the application waits elsewhere:
 *
 *   1. the board's link watch (timers_run.c), then per open endpoint:
 *      timers (timers_run.c: acks owed, retransmissions, probes, re-pulls,
 *      connect retries, deadlines), then its queued sends, PULLs to
 *      serve and PULLs to ask; tx bursts of what they queued;
 *   2. rx bursts of every port, then the loopback ring (only the frames
 *      queued when it starts: handlers may queue more), each frame
 *      validated once and dispatched by type; if frames came, the
 *      endpoints' queues again (sends their acks admit, PULLs to serve);
 *   3. tx bursts of what the frames asked for and let go.
 *
 * So a pass that takes a message returns to the application right after
 * it (the look at the queues: a few tests when they are empty); its
 * timers are looked at by the next pass, before that pass's bursts (with
 * the acks held since, send.h, applied first).
 *
 * Lower layers never call up: the board hands frames over only when asked
 * (mxd_board_rx), and the engine is called, never calls back.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "csum.h"
#include "glue.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/lock.h"
#include "partners/naming.h"
#include "engine/acks.h"
#include "engine/connect.h"
#include "engine/pull.h"
#include "engine/recv.h"
#include "engine/reliable.h"
#include "engine/rndv.h"
#include "engine/send.h"
#include "engine/shm.h"
#include "engine/timers.h"
#include "progress/progress.h"
#include "progress/timers_run.h"

/* An unexpected handler runs inside a pass and may call MX: no second
 * pass then (under the library lock, one pass runs at a time). */
static int in_pass;

/* ---- what a frame means ------------------------------------------------- */

/*
 * A pull reply whose check is verified as its payload is placed: nothing
 * else of it takes effect until then (its ack, the partner heard).
 */
static void
rx_unchecked(struct mxd_partner *p, unsigned port, const struct mxd_pkt *pkt)
{
	if (mxd_pull_data(p, port, pkt) < 0)
		return;			/* corrupt: counted */
	mxd_rx_heard(p, port);
	if (pkt->h.flags & MXD_F_ACK_VALID)
		mxd_send_acked(p, pkt->h.ack);
}

/* A frame of a known partner: its ack first, then what it carries. */
static void
rx_partner_frame(struct mxd_partner *p, unsigned port,
		const struct mxd_pkt *pkt)
{
	/* A plain message's ack is held (mxd_send_ack_hold); anything else
	 * finds every ack received before it applied. */
	int plain = pkt->h.type == MXD_T_EAGER && !(pkt->h.flags &
			(MXD_F_CTRL | MXD_F_SYNC | MXD_F_RNDV));

	if (!plain)
		mxd_send_ack_settle(p);
	if (pkt->unchecked) {
		rx_unchecked(p, port, pkt);
		return;
	}
	if (!p->local && (int)port != p->port &&
			pkt->h.type != MXD_T_PULL && pkt->h.type != MXD_T_PULL_REP)
		mxd_partner_follow(p, port, pkt);
	if ((pkt->h.flags & MXD_F_ACK_VALID) && plain)
		mxd_send_ack_in(p, pkt->h.ack);
	else if (pkt->h.flags & MXD_F_ACK_VALID)
		mxd_send_acked(p, pkt->h.ack);
	switch (pkt->h.type) {
	case MXD_T_EAGER:
		mxd_rx_eager(p, pkt);
		return;
	case MXD_T_PACK:
		mxd_rx_pack(p, pkt);
		return;
	case MXD_T_ACK:
		if (pkt->u.ack.nfrags)
			mxd_frags_heard(p, pkt);
		if (pkt->h.flags & MXD_F_SACK)
			mxd_fast_retransmit(p, pkt->h.ack, pkt->u.ack.sack, 1);
		if (pkt->h.flags & MXD_F_BYE)
			mxd_partner_lost(p, MX_STATUS_ENDPOINT_CLOSED);
		else if (pkt->h.flags & MXD_F_PING)
			mxd_ack_send(p);	/* alive: say so now */
		return;
	case MXD_T_PULL:
		mxd_pull_serve(p, port, pkt);
		return;
	case MXD_T_PULL_REP:
		mxd_pull_data(p, port, pkt);
		return;
	}
	mxd_count_drop(p->ep->board, MXD_DROP_TYPE);
}

/* A plain message's frame (an EAGER frame flagged with nothing but its
 * ack), the most common: what rx_partner_frame does for it, without its
 * choices. */
static void
rx_plain(struct mxd_partner *p, unsigned port, const struct mxd_pkt *pkt)
{
	if (!p->local && (int)port != p->port)
		mxd_partner_follow(p, port, pkt);
	if (pkt->h.flags & MXD_F_ACK_VALID)
		mxd_send_ack_in(p, pkt->h.ack);
	mxd_rx_eager(p, pkt);
}

/* A frame that says it is an ACK (rx_one): a bare one of a partner in the
 * usual state taken (1), else nothing done (0).  Out of line: the loop
 * over a burst keeps its registers. */
static __attribute__((noinline)) int
rx_ack(struct mxd_board *b, unsigned port, const struct mxd_frame *f)
{
	return mxd_wire_bare_ack(f->data, f->len) &&
		mxd_rx_bare_ack(b, port, f->data + MXD_ETH_HLEN);
}

/*
 * A frame: a plain message, the most common, is checked and taken the
 * shortest way (mxd_wire_plain, mxd_rx_plain: rx_one, inline in the loop
 * over a burst); if it is not one it may take there (not the next
 * message, no receive posted...), it comes here already checked
 * ('plain' 1), or found broken (-1).  Any other frame (0) is checked
 * by the parser, then acted on by type; but a bare ACK of a partner in
 * the usual state, the next most common, is checked and applied the
 * shortest way first (rx_ack: mxd_wire_bare_ack, mxd_rx_bare_ack).
 */
static __attribute__((noinline)) void
rx_frame_any(struct mxd_board *b, unsigned port, struct mxd_frame *f,
		int plain)
{
	struct mxd_pkt pkt;
	enum mxd_drop why = MXD_DROP_NONE;
	struct mxd_partner *p;

	if (plain > 0) {
		mxd_wire_plain_pkt(f->data, &pkt);
	} else if (plain < 0) {
		why = MXD_DROP_CSUM;
	} else {
		why = mxd_wire_parse_lazy(f->data, f->len, &pkt);
	}
	if (why != MXD_DROP_NONE) {
		mxd_count_drop(b, why);
		return;
	}
	switch (pkt.h.type) {
	case MXD_T_DISCOVER:
		mxd_naming_rx(b, port, &pkt);
		return;
	case MXD_T_CONN_REQ:
		mxd_send_acks_board(b);		/* before any reset */
		mxd_rx_conn_req(b, port, &pkt);
		return;
	case MXD_T_CONN_REP:
		mxd_send_acks_board(b);
		mxd_rx_conn_rep(b, port, &pkt);
		return;
	case MXD_T_NACK:
		mxd_send_acks_board(b);		/* before sends are lost */
		mxd_rx_nack(b, port, &pkt);
		return;
	case MXD_T_EAGER:
		p = mxd_rx_partner(b, port, &pkt);
		if (p != NULL && !(pkt.h.flags & (MXD_F_CTRL | MXD_F_SYNC |
						MXD_F_RNDV)))
			rx_plain(p, port, &pkt);
		else if (p != NULL)
			rx_partner_frame(p, port, &pkt);
		return;
	case MXD_T_PACK:
	case MXD_T_ACK:
	case MXD_T_PULL:
	case MXD_T_PULL_REP:
		p = mxd_rx_partner(b, port, &pkt);
		if (p != NULL)
			rx_partner_frame(p, port, &pkt);
		return;
	}
	mxd_count_drop(b, MXD_DROP_TYPE);	/* the parser admits no other */
}

static inline __attribute__((always_inline)) void
rx_one(struct mxd_board *b, unsigned port, struct mxd_frame *f)
{
	struct mxd_plain m;
	int plain = mxd_wire_plain(f->data, f->len, &m);

	if (plain > 0 && mxd_rx_plain(b, port, &m))
		return;
	if (plain == 0 && f->len >= MXD_HDRS_LEN && f->data[MXD_ETH_HLEN +
			offsetof(struct mxd_hdr, type)] == MXD_T_ACK &&
			rx_ack(b, port, f))
		return;
	rx_frame_any(b, port, f, plain);
}

/* ---- the pass ----------------------------------------------------------- */

/* Each burst's frames are kept after those of the bursts before it
 * (b->rx_done), let go together later (mxd_board_rx_at): not between a
 * message's frame and the application. */
/* The loopback ring's frames queued when it starts (handlers may queue
 * more, for the next pass). */
static __attribute__((noinline)) unsigned
rx_loop(struct mxd_board *b)
{
	unsigned work = 0, n;

	for (unsigned left = mxd_loop_queued(b); left > 0; left -= n) {
		struct mxd_frame *f = mxd_board_rx_at(b);

		n = mxd_board_loop_rx(b, f, left < MXD_BURST ? left : MXD_BURST);
		b->rx_done_n += n;
		for (unsigned i = 0; i < n; i++)
			rx_one(b, 0, &f[i]);
		work += n;
	}
	return work;
}

/* A burst's n frames (in b->rx_done, after those kept) from 'port',
 * dispatched. */
static inline __attribute__((always_inline)) void
rx_frames(struct mxd_board *b, unsigned port, unsigned n)
{
	struct mxd_frame *f = &b->rx_done[b->rx_done_n];

	b->counters[MXD_C_RX_FRAMES] += n;
	b->rx_done_n += n;
	for (unsigned i = 0; i < n; i++)
		rx_one(b, port, &f[i]);
}

/* The board's rx bursts and their frames (rx_frames).  Inline: an idle
 * board's pass is a burst per port and a few tests. */
static inline unsigned
rx_board(struct mxd_board *b)
{
	unsigned work = 0;

	for (unsigned port = 0; port < b->nports; port++) {
		unsigned n;

		n = mxd_board_rx(b, port, mxd_board_rx_at(b), MXD_BURST);
		if (n != 0) {
			rx_frames(b, port, n);
			work += n;
		}
	}
	return work;
}


/* An endpoint's own pending work: queued sends, PULLs to serve and ask
 * (those of its work bits, ep->work, that are set). */
static void
ep_work(struct mx_endpoint *ep, unsigned w)
{
	if (ep->progression_off)
		return;
	if ((w & MXD_EW_SENDS) && !mxd_list_empty(&ep->sending))
		mxd_sends_pump(ep);
	if ((w & MXD_EW_JOBS) && !mxd_list_empty(&ep->jobq))
		mxd_pulls_pump(ep);
	if (w & MXD_EW_PULLS) {
		if (!mxd_list_empty(&ep->pulls_waiting))
			mxd_pulls_ask(ep);
		if (!mxd_list_empty(&ep->pulls_deferred))
			mxd_pulls_start_deferred(ep);
	}
}

/* Clears those of ep's work bits in 'look' whose lists are empty now
 * (and its board's bits when none is left of that kind). */
static void
ep_settle(struct mx_endpoint *ep, unsigned look)
{
	struct mxd_board *b = ep->board;
	unsigned w = ep->work, set = w & look;

	if ((set & MXD_EW_SENDS) && mxd_list_empty(&ep->sending))
		w &= ~MXD_EW_SENDS;
	if ((set & MXD_EW_JOBS) && mxd_list_empty(&ep->jobq))
		w &= ~MXD_EW_JOBS;
	if ((set & MXD_EW_PULLS) && mxd_list_empty(&ep->pulls_waiting) &&
			mxd_list_empty(&ep->pulls_deferred))
		w &= ~MXD_EW_PULLS;
	if ((set & MXD_EW_ACKS) && mxd_list_empty(&ep->acks))
		w &= ~MXD_EW_ACKS;
	if ((set & MXD_EW_TIMERS) && mxd_list_empty(&ep->timed) &&
			mxd_list_empty(&ep->connects) && ep->ntimed == 0 &&
			ep->nactive == 0 && ep->trim_at == 0) {
		w &= ~MXD_EW_TIMERS;
		ep->timer_pass = 0;
	}
	ep->work = (uint8_t)w;
	if (!(w & MXD_EW_PUMP))
		b->ep_pump &= ~(1u << ep->id);
	if (w == 0)
		b->ep_busy &= ~(1u << ep->id);
}

/* The endpoints with sends or PULLs queued (b->ep_pump): after an rx
 * burst, what its frames let go (sends the acks admit, PULLs to serve)
 * goes in this pass, as it did before the burst. */
static void
rx_work(struct mxd_board *b)
{
	for (uint32_t m = b->ep_pump; m != 0; m &= m - 1) {
		struct mx_endpoint *ep = b->ep[__builtin_ctz(m)];

		ep_work(ep, ep->work);
	}
}

/* What follows the rx bursts when anything does: the loopback ring, the
 * fence of stores around the caches (ordered with no later one: fenced
 * here, the next pass, another thread's maybe, which may end the
 * receive, comes after them), the sends and PULLs the frames let go, and
 * the flush of all that and of what the frames asked for. */
static inline __attribute__((always_inline)) unsigned
rx_after(struct mxd_board *b, unsigned work)
{
	if (mxd_loop_queued(b) != 0)
		work += rx_loop(b);
	if (b->nt_stores) {
		b->nt_stores = 0;
		mxd_crc_store_fence();
	}
	if (work != 0 && b->ep_pump)
		rx_work(b);
	mxd_board_flush(b);
	return work;
}

/*
 * The board's endpoints with work (b->ep_busy): every MXD_ACK_PASSES
 * passes (or at the next, b->look_now: a notice waits) their timers
 * (timers_run.h), and at every pass the queued sends and PULLs of those
 * that have some (b->ep_pump).  A board whose endpoints only wait (for
 * acks, a timeout) costs a count per pass.
 */
static __attribute__((noinline)) void
board_work(struct mxd_board *b)
{
	uint32_t m;

	if (b->look_pass >= MXD_ACK_PASSES || b->look_now) {
		b->look_pass = 0;
		b->look_now = 0;
		for (m = b->ep_busy; m != 0; m &= m - 1) {
			struct mx_endpoint *ep = b->ep[__builtin_ctz(m)];

			if (ep->ack_held != NULL)	/* held this long */
				mxd_send_acks_apply(ep);
			/* Sends first: an open PACK frame leaves before
			 * the timers look at what is in flight. */
			if (ep->work & MXD_EW_PUMP)
				ep_work(ep, ep->work);
			mxd_timers_look(ep);
			ep_settle(ep, ~0u);
		}
		return;
	}
	for (m = b->ep_pump; m != 0; m &= m - 1) {
		struct mx_endpoint *ep = b->ep[__builtin_ctz(m)];

		ep_work(ep, ep->work);
		ep_settle(ep, MXD_EW_PUMP);
	}
}

/*
 * The board's own work first (timers, queued sends, their flush), then
 * its rx bursts, what their frames let go, and the flush of that and of
 * what they asked for (acks, answers): a pass that takes a message
 * returns to the application right after it, and the timers' look that
 * the pass would have had after it comes at the start of the next.  Only
 * endpoints with work (b->ep_busy) are looked at: an idle board costs its
 * rx bursts and a few tests.
 */
static unsigned
board_pass_any(struct mxd_board *b)
{
	unsigned work = 0;

	/* Same host: the rings of the other processes (engine/shm.c). */
	if (b->shm != NULL)
		work = mxd_shm_poll(b);
	mxd_board_flush(b);
	work += rx_board(b);
	if ((work | mxd_loop_queued(b) | b->nt_stores) != 0)
		work = rx_after(b, work);
	return work;
}

/* What a one-port board's burst brought (n frames, or news), and what
 * follows (board_pass, a call's pass); board_rx out of line. */
static inline __attribute__((always_inline)) unsigned
board_rx_in(struct mxd_board *b, unsigned n)
{
	if (b->port[0]->news != b->news_seen[0])
		mxd_board_rx_news(b, 0);
	if (n != 0)
		rx_frames(b, 0, n);
	return rx_after(b, n);
}

static __attribute__((noinline)) unsigned
board_rx(struct mxd_board *b, unsigned n)
{
	return board_rx_in(b, n);
}

/* The one port's burst (the usual board), and what it brought
 * (board_rx); the board's rarer cases in board_pass_any.  Inline in the
 * pass of a call: a pass that finds nothing costs the burst, a few
 * tests, and no registers saved but two. */
static inline unsigned
board_pass(struct mxd_board *b)
{
	struct mxd_link *l;
	unsigned n;

	if (b->ep_busy && (++b->look_pass >= MXD_ACK_PASSES || b->look_now ||
				b->ep_pump))
		board_work(b);
	if ((b->tx_queued | b->pass_any) != 0)
		return board_pass_any(b);
	l = b->port[0];
	n = l->ops->rx_burst(l, mxd_board_rx_at(b), MXD_BURST);
	if ((n | (l->news != b->news_seen[0]) | mxd_loop_queued(b) |
				b->nt_stores) != 0)
		return board_rx(b, n);
	return 0;
}

/*
 * A pass on behalf of an endpoint of board 'own' covers that board, and
 * every MXD_OTHERS_PASSES such passes the others too (as Open-MX progresses
 * the endpoint a call names): the calls of a program that drives several
 * boards, one endpoint each, look at each board mostly in its own calls,
 * while no board's partners wait long for an answer (a sixteenth of the
 * passes of any call, a few microseconds apart while the program calls,
 * and the progression thread's, which cover them all while it does not).
 * Each look at a board costs its bursts even when they find nothing: a
 * program on one board does not pay them for the others at every fourth
 * call.  own NULL: every board.
 */
#define MXD_OTHERS_PASSES	16

/* Passes since the link watch's look (every MXD_WATCH_PASSES). */
static unsigned watch_pass;

static __attribute__((noinline)) unsigned
pass(struct mxd_board *own)
{
	unsigned work = 0;

	in_pass = 1;
	if (watch_pass >= MXD_WATCH_PASSES) {
		watch_pass = 0;
		for (unsigned i = 0; i < mxd_lib.nboards; i++)
			mxd_timers_watch(mxd_lib.boards[i]);
	}
	if (own != NULL) {
		work = board_pass(own);
	} else {
		for (unsigned i = 0; i < mxd_lib.nboards; i++)
			work += board_pass(mxd_lib.boards[i]);
	}
	in_pass = 0;
	return work;
}

/* What the bits of b->due say, from what waits now. */
static void
due_settle(struct mxd_board *b)
{
	b->due = (b->tx_queued ? MXD_DUE_TX : 0) |
		(mxd_loop_queued(b) ? MXD_DUE_LOOP : 0) |
		(b->nt_stores ? MXD_DUE_NT : 0) |
		(b->ep_pump ? MXD_DUE_PUMP : 0) |
		(b->look_now ? MXD_DUE_LOOK : 0) |
		(b->pass_any ? MXD_DUE_PORTS : 0);
}

/*
 * A call's pass that is more than the burst (mxd_progress): something is
 * due on its board (own->due), or its countdown ended (own->pass_left):
 * the passes it skipped count towards the link watch and the endpoints'
 * timers (board_pass counts this one), and the other boards, if any,
 * are passed too.
 */
/*
 * The call's pass of a one-port board with a host segment and nothing
 * else due (pass_call_shm): the rings of the host's other processes
 * (engine/shm.c), then, if they brought nothing, the burst, as
 * mxd_progress's pass, and the rings again if that brought nothing
 * either: a record that came during the burst is taken in this pass.
 * Whatever the records queue sets its due bit: the next call's pass is
 * the general one.
 */
static inline unsigned
pass_shm(struct mxd_board *own)
{
	struct mxd_link *l = own->port[0];
	unsigned n, work;

	in_pass = 1;
	work = mxd_shm_poll(own);
	if (work == 0) {
		n = l->ops->rx_burst(l, mxd_board_rx_at(own), MXD_BURST);
		if ((n | (l->news != own->news_seen[0])) != 0)
			work = board_rx(own, n);
		else
			work = mxd_shm_poll(own);
	}
	in_pass = 0;
	return work;
}

/*
 * A call's pass on a board with a host segment: its countdown is kept
 * at its end (own->pass_left 1), so that every call's pass comes here;
 * the rings and the burst (pass_shm) while nothing else is due and the
 * board's own countdown (shm->passes, the one pass_left keeps for the
 * others) runs, the general pass otherwise.
 */
static __attribute__((noinline)) unsigned
pass_call_shm(struct mxd_board *own)
{
	unsigned period, work;

	own->pass_left = 1;
	if (own->due == MXD_DUE_PORTS && own->nports == 1 &&
			--own->shm->passes != 0)
		return pass_shm(own);
	period = mxd_lib.nboards > 1 ? MXD_OTHERS_PASSES : MXD_ACK_PASSES;
	own->shm->passes = period;
	watch_pass += period;
	if (own->ep_busy)
		own->look_pass += period - 1;
	work = pass(mxd_lib.nboards > 1 ? NULL : own);
	due_settle(own);
	return work;
}

static __attribute__((noinline)) unsigned
pass_call(struct mxd_board *own)
{
	unsigned period, work;
	int all = 0;

	if (own->pass_left == 0 && own->shm != NULL)
		return pass_call_shm(own);
	period = mxd_lib.nboards > 1 ? MXD_OTHERS_PASSES : MXD_ACK_PASSES;
	if (own->pass_left == 0) {
		own->pass_left = period;
		watch_pass += period;
		if (own->ep_busy)
			own->look_pass += period - 1;
		all = mxd_lib.nboards > 1;
	} else {
		watch_pass++;
	}
	work = pass(all ? NULL : own);
	due_settle(own);
	return work;
}

/*
 * The usual pass of a call (progress_call): own's burst alone, and what
 * it brought (board_rx), out of line when 'in' (a constant) is 0.
 */
static inline __attribute__((always_inline)) unsigned
burst_call(struct mxd_board *own, int in)
{
	struct mxd_link *l = own->port[0];
	unsigned n, work = 0;

	in_pass = 1;
	n = l->ops->rx_burst(l, mxd_board_rx_at(own), MXD_BURST);
	if (n != 0 || l->news != own->news_seen[0])
		work = in ? board_rx_in(own, n) : board_rx(own, n);
	in_pass = 0;
	return work;
}

/* burst_call with what the burst brought inline: one function for a
 * pass whose frames most often end a request waited for. */
static __attribute__((noinline)) unsigned
burst_call_in(struct mxd_board *own)
{
	return burst_call(own, 1);
}

/*
 * The usual pass of a call: its own board's burst alone, what the burst
 * brought (board_rx), nothing else due (own->due) and the countdown to
 * the timers' look, the watch and the other boards not at its end; a
 * pass that finds nothing costs the burst and a few tests.  'in' (a
 * constant): the burst by burst_call_in.
 */
static inline __attribute__((always_inline)) unsigned
progress_call(struct mx_endpoint *ep, int in)
{
	struct mxd_board *own = ep->board;

	if (ep->progression_off || in_pass)
		return 0;
	if (--own->pass_left == 0 || own->due != 0)
		return pass_call(own);
	return in ? burst_call_in(own) : burst_call(own, 0);
}

/* A pass that most often finds nothing (a poll): what the burst brought
 * out of line, so that an empty burst saves no registers but a few. */
unsigned
mxd_progress(struct mx_endpoint *ep)
{
	return progress_call(ep, 0);
}

/* A pass for a request that is not done (mx_test): its burst and what
 * that brought in one function (burst_call_in), whose frames most often
 * end the request; no register saved before the look at what is due (a
 * board with a host segment: every pass). */
unsigned
mxd_progress_for(struct mx_endpoint *ep)
{
	return progress_call(ep, 1);
}

unsigned
mxd_progress_any(void)
{
	if (in_pass)
		return 0;
	++watch_pass;
	return pass(NULL);
}

int
mxd_in_pass(void)
{
	return in_pass;
}

/* ---- the progression thread --------------------------------------------- */

/*
 * Two kinds, one at a time:
 *
 *  - progression (MX_PROGRESSION=1, the default): the network is answered
 *    while no application thread is in the library, as MX's NIC and
 *    progression thread did: discovery, connects, acks, retransmissions,
 *    PULLs served and asked.  The thread wakes every MX_PROGRESSION_US;
 *    if the application made a call since the last wake, or is in one,
 *    it steps aside (the application makes progress itself, and the
 *    thread costs it nothing but this look).  Otherwise it borrows the
 *    library (lock.h) and runs passes while they find work, giving it
 *    back at once when the application calls.  Endpoints whose
 *    progression is disabled (mx_disable_progression) are left alone;
 *    when all are, the thread runs no pass.
 *  - the busy thread (MX_PROGRESS_THREAD=1): a pass under the library
 *    lock like any call, a nap of MX_PROGRESS_US between idle passes.
 *
 * While the application stays out, the thread sleeps on the ports' rx
 * interrupts where every port has them (NICs; it still wakes every
 * MX_PROGRESSION_US for the timers); none of the virtual PMDs of DPDK
 * 22.11 (memif, af_packet, ring, pcap, null) has them, so over those it
 * wakes on the timer alone.
 */

static pthread_t prog_thread;
static int prog_run;	/* read by the thread, written around it */

static int
running(void)
{
	return __atomic_load_n(&prog_run, __ATOMIC_RELAXED);
}

/* A borrow is given back after this long even while passes find work,
 * so that an application that comes back waits at most this; the
 * thread keeps polling until passes found nothing for IDLE_NS (the
 * partner's next frame is often a few microseconds away). */
#define BORROW_NS	200000u
#define IDLE_NS		100000u

static void
nap_us(uint32_t us)
{
	struct timespec t = { us / 1000000u, (long)(us % 1000000u) * 1000 };

	nanosleep(&t, NULL);
}

/* Ports with rx interrupts, as far as the thread knows (the first port
 * that has none turns them off for good). */
static int intr_ok = 1;

/*
 * Until the next look.  After a borrow (the application out), on rx
 * interrupts if every port has them: frames wake the thread at once.
 * Frames that came between the last pass and the arming wake nothing:
 * the timeout takes them.
 */
static void
progression_sleep(int app_out)
{
	unsigned n = mxd_lib.nlinks, armed = 0;

	if (app_out && intr_ok) {
		while (armed < n && mxd_lib.links[armed]->ops->intr_arm != NULL &&
				mxd_lib.links[armed]->ops->intr_arm(
					mxd_lib.links[armed]) == 0)
			armed++;
		if (armed == n && n != 0)
			mxd_glue_intr_wait((mxd_conf.progression_us + 999) /
					1000);
		else
			intr_ok = 0;
		while (armed > 0) {
			struct mxd_link *l = mxd_lib.links[--armed];

			l->ops->intr_disarm(l);
		}
		if (intr_ok)
			return;
	}
	nap_us(mxd_conf.progression_us);
}

/* Whether some open endpoint lets the thread make progress for it. */
static int
progression_wanted(void)
{
	int open = 0;

	for (unsigned i = 0; i < mxd_lib.nboards; i++) {
		struct mxd_board *b = mxd_lib.boards[i];

		for (uint32_t m = b->ep_open; m != 0; m &= m - 1) {
			if (!b->ep[__builtin_ctz(m)]->progression_off)
				return 1;
			open = 1;
		}
	}
	return !open;		/* no endpoint yet: answer discovery */
}

/* Passes while they find work and the application stays out.  Returns
 * whether the thread should come back at once (work was still found). */
static int
borrowed_passes(unsigned seen)
{
	uint64_t now = mxd_now_ns(), until = now + BORROW_NS, busy = now;

	while (mxd_lock_calls() == seen && now < until) {
		if (progression_wanted() && mxd_progress_any())
			busy = now;
		else if (now - busy >= IDLE_NS)
			return 0;
		now = mxd_now_ns();
	}
	return 1;
}

static void *
progression_main(void *arg)
{
	unsigned seen = mxd_lock_calls();
	int app_out = 0;

	(void)arg;
	while (running()) {
		unsigned now;

		progression_sleep(app_out);
		app_out = 0;
		now = mxd_lock_calls();
		if (now != seen) {
			seen = now;	/* the application is active */
			continue;
		}
		while (running() && mxd_lock_calls() == seen &&
				mxd_borrow()) {
			int again = borrowed_passes(seen);

			mxd_give_back();
			app_out = mxd_lock_calls() == seen;
			if (!again)
				break;
			sched_yield();	/* the application's turn, if it wants */
		}
	}
	return NULL;
}

/*
 * The busy thread: large transfers (and acks, connects, timers) go on
 * while the application computes.  Each pass runs under the library lock
 * like any API call; between passes the thread sleeps MX_PROGRESS_US,
 * or polls at once while frames keep coming.
 */
static void *
busy_main(void *arg)
{
	(void)arg;
	while (running()) {
		unsigned work;

		mxd_enter();
		work = mxd_progress_any();
		mxd_leave();
		if (!work)
			nap_us(mxd_conf.progress_us);
	}
	return NULL;
}

int
mxd_progress_thread_start(void)
{
	void *(*main)(void *) = mxd_conf.progress_thread ? busy_main :
		mxd_conf.progression ? progression_main : NULL;

	if (main == NULL || running())
		return 0;
	prog_run = 1;
	if (pthread_create(&prog_thread, NULL, main, NULL) != 0) {
		prog_run = 0;
		return -MX_NO_RESOURCES;
	}
	return 0;
}

/* Called without the library lock: the thread may be waiting for it. */
void
mxd_progress_thread_stop(void)
{
	if (!running())
		return;
	__atomic_store_n(&prog_run, 0, __ATOMIC_RELAXED);
	pthread_join(prog_thread, NULL);
}
