/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Closing an endpoint: the last of the blocking waits (wait.c holds the
 * others).  The close lingers until its partners have what they need from
 * it, tells them it is gone, lets out the threads blocked on it, and only
 * then frees it.
 */
#include "glue.h"
#include "util/clock.h"
#include "util/config.h"
#include "partners/xmit.h"
#include "engine/match.h"
#include "engine/pull.h"
#include "engine/send.h"
#include "engine/shmsend.h"
#include "engine/unexp.h"
#include "progress/progress.h"
#include "api/close.h"
#include "api/error.h"
#include "api/wait.h"

static void
endpoint_release(struct mx_endpoint *ep)
{
	struct mxd_board *b = ep->board;

	if (b->shm != NULL) {	/* a board shared by processes of the host */
		mxd_shm_ep_gone(ep);
		mxd_shm_ep_release(b, ep->id);
	}
	mxd_unexp_release_all(ep);
	mxd_pulls_release(ep);
	mxd_bufpool_fini(&ep->bufs);
	mxd_match_fini(ep);
	mxd_ep_free(ep);
}

/*
 * A completed send only means its data is in our frames, and an
 * ack we sent may be lost: mx_close_endpoint lingers (at most
 * MX_CLOSE_LINGER_MS) until every partner it can reach has acknowledged
 * what we sent and has heard our last ack (it answered a PING that
 * carried it), then tells each partner it is gone (ACK with BYE), so
 * that a partner closing after us does not wait for our answer.  Partners
 * lost or refused, and all of them when no port is up and they are not on
 * our board, have nothing to wait for.
 */
#define BYE_PING_NS	5000000ull	/* PING again while unanswered */

struct closing {
	struct mx_endpoint *ep;
	uint64_t next_ping;
};

static int
reachable(const struct mxd_partner *p)
{
	struct mxd_board *b = p->ep->board;

	/* UP, or disconnected here (mx_disconnect): it still needs our acks. */
	if (p->state != MXD_PS_UP && p->state != MXD_PS_CLOSED)
		return 0;
	if (p->shm)		/* same host: its ring, no port */
		return 1;
	for (unsigned i = 0; !p->local && i < b->nports; i++)
		if (mxd_board_port_up(b, i))
			return 1;
	return p->local;
}

static int
drained(void *arg)
{
	struct closing *c = arg;
	struct mx_endpoint *ep = c->ep;
	uint64_t now = mxd_now_ns();
	int ping = now >= c->next_ping, done = 1;

	if (ep->ack_held != NULL)	/* what it retires is not in flight */
		mxd_send_acks_apply(ep);

	for (uint32_t i = 0; i < ep->npartners; i++) {
		struct mxd_partner *p = ep->partners[i];

		if (!reachable(p))
			continue;
		if ((p->a != NULL && (!mxd_list_empty(&p->a->sendq) ||
					p->a->notify_n != 0)) ||
				mxd_txwin_in_flight(&p->tx) != 0 ||
				mxd_rxwin_cum_ack(&p->rx) != p->ack_sent) {
			done = 0;
		} else if (mxd_rxwin_cum_ack(&p->rx) != 0 &&
				p->heard == p->bye_mark) {
			done = 0;	/* our last ack not known heard */
			if (ping && mxd_partner_ack(p, MXD_F_PING) == 0)
				c->next_ping = now + BYE_PING_NS;
		}
	}
	for (uint32_t i = 0; i < MXD_LSEND_MAX; i++)
		if (ep->lsend[i] != NULL)
			return 0;	/* a large send still being pulled */
	if (ep->board->shm != NULL && mxd_shm_ep_busy(ep))
		return 0;	/* notices waiting for ring room */
	return done;
}

/*
 * Other threads may be blocked on the endpoint: the mark ends
 * their waits at once, with MX_BAD_ENDPOINT ("all pending operations are
 * cancelled", MX 1.0 III.3.2; see mxd_wait_failed for why not through
 * the error handler), and the endpoint is freed only once none of them
 * is inside a call on it (mxd_close_wait).  From an unexpected handler
 * the close is refused: the pass that runs the handler walks this
 * endpoint (or another) and would find it freed.
 */
mx_return_t
mxd_close_endpoint(mx_endpoint_t ep)
{
	struct closing c = { ep, 0 };
	int ret;

	CHECK_EP(ep, "mx_close_endpoint");
	if (mxd_in_pass())
		return mxd_error(ep, MX_CLOSE_IN_HANDLER, "mx_close_endpoint: "
				"called from an unexpected handler");
	ret = mxd_close_mark(ep);
	if (ret == -MX_BAD_ENDPOINT)	/* its handler goes with it */
		return mxd_error(NULL, MX_BAD_ENDPOINT, "mx_close_endpoint: "
				"being closed by another thread");
	if (ret < 0)
		return mxd_error(ep, (mx_return_t)-ret, "mx_close_endpoint: "
				"called from a handler while other threads "
				"wait on the endpoint");
	/* Peers often go away while an endpoint closes: the memif guard
	 * must be in front of any handler installed since the last watch. */
	mxd_glue_guard_check();
	for (uint32_t i = 0; i < ep->npartners; i++)
		ep->partners[i]->bye_mark = ep->partners[i]->heard;
	/* MX_CLOSE_LINGER_MS=0: an abortive close, no wait and no BYE
	 * (partners learn by NACK when they next send). */
	if (mxd_conf.close_linger_ms) {
		if (!drained(&c))
			mxd_close_linger(ep, drained, &c,
					mxd_conf.close_linger_ms);
		for (uint32_t i = 0; i < ep->npartners; i++) {
			struct mxd_partner *p = ep->partners[i];

			if (!reachable(p))
				continue;
			if (p->shm)
				mxd_shm_bye(p);
			else
				mxd_partner_ack(p, MXD_F_BYE);
		}
	}
	mxd_board_flush(ep->board);
	mxd_close_wait(ep);
	endpoint_release(ep);
	return MX_SUCCESS;
}
