/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffers for messages that arrive before a receive matches them:
 * unexpected messages (matched, no receive posted) and held messages
 * (arrived ahead of an earlier message of the same partner, or waiting
 * for room in the unexpected queue).  Buffers come from power-of-two size
 * classes kept on free lists, so a steady stream of unexpected messages
 * does not call malloc.
 *
 * The unexpected queue is bounded by MX_PARAM_UNEXP_QUEUE_MAX bytes: a
 * message that does not fit is held, unmatched and so unacknowledged,
 * which closes its sender's window (see proto/rxwin.h).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/match.h"
#include "engine/pull.h"
#include "engine/unexp.h"

#define MIN_SHIFT 6

static unsigned
size_class(uint32_t len)
{
	unsigned c = MIN_SHIFT;

	while (c < 31 && (1u << c) < len)
		c++;
	return c;
}

static uint8_t *
buf_get(struct mxd_bufpool *p, unsigned cls)
{
	uint8_t *b = p->free_buf[cls];

	if (b != NULL) {
		memcpy(&p->free_buf[cls], b, sizeof(uint8_t *));
		return b;
	}
	return malloc((size_t)1 << cls);
}

static void
buf_put(struct mxd_bufpool *p, unsigned cls, uint8_t *b)
{
	memcpy(b, &p->free_buf[cls], sizeof(uint8_t *));
	p->free_buf[cls] = b;
}

void
mxd_bufpool_fini(struct mxd_bufpool *p)
{
	for (unsigned c = 0; c < 32; c++)
		while (p->free_buf[c] != NULL)
			free(buf_get(p, c));
	while (p->free_unexp != NULL) {
		struct mxd_unexp *u = p->free_unexp;

		p->free_unexp = u->pool_next;
		free(u);
	}
}

struct mxd_unexp *
mxd_unexp_get(struct mx_endpoint *ep, uint32_t len)
{
	struct mxd_bufpool *p = &ep->bufs;
	struct mxd_unexp *u = p->free_unexp;
	unsigned cls = size_class(len);

	if (u != NULL)
		p->free_unexp = u->pool_next;
	else if ((u = malloc(sizeof(*u))) == NULL)
		return NULL;
	memset(u, 0, sizeof(*u));
	u->buf = buf_get(p, cls);
	if (u->buf == NULL) {
		u->pool_next = p->free_unexp;
		p->free_unexp = u;
		return NULL;
	}
	u->cls = (uint8_t)cls;
	u->msg_len = len;
	mxd_list_add_tail(&ep->held, &u->link);
	return u;
}

/* Every buffer is on one list: held (ep->held) or queued (ep->unexp). */
void
mxd_unexp_enqueue(struct mx_endpoint *ep, struct mxd_unexp *u)
{
	mxd_list_del(&u->link);
	u->queued = 1;
	ep->unexp_bytes += u->msg_len;
	mxd_list_add_tail(&ep->unexp, &u->link);
	mxd_match_queue(ep, u);
}

void
mxd_unexp_dequeue(struct mx_endpoint *ep, struct mxd_unexp *u)
{
	if (!u->queued)
		return;
	u->queued = 0;
	ep->unexp_bytes -= u->msg_len;
	mxd_match_unqueue(ep, u);
	mxd_list_del(&u->link);
	mxd_list_add_tail(&ep->held, &u->link);
}

void
mxd_unexp_release_all(struct mx_endpoint *ep)
{
	while (!mxd_list_empty(&ep->unexp))
		mxd_unexp_put(ep, mxd_container_of(ep->unexp.next,
					struct mxd_unexp, link));
	while (!mxd_list_empty(&ep->held))
		mxd_unexp_put(ep, mxd_container_of(ep->held.next,
					struct mxd_unexp, link));
}

int
mxd_unexp_room(const struct mx_endpoint *ep, uint32_t len)
{
	/* An empty queue takes any one message: mx_probe must see it. */
	return ep->unexp_bytes == 0 ||
		(uint64_t)ep->unexp_bytes + len <= ep->unexp_max;
}

void
mxd_unexp_put(struct mx_endpoint *ep, struct mxd_unexp *u)
{
	struct mxd_bufpool *p = &ep->bufs;

	mxd_unexp_dequeue(ep, u);
	mxd_list_del(&u->link);
	buf_put(p, u->cls, u->buf);
	u->buf = NULL;
	u->pool_next = p->free_unexp;
	p->free_unexp = u;
}

void
mxd_unexp_deliver(struct mx_endpoint *ep, struct mxd_unexp *u,
		struct mx_request *r)
{
	mx_status_code_t code = MX_STATUS_SUCCESS;

	if (u->rndv) {		/* only the header was kept: pull the rest */
		mxd_pull_start(r, u->partner, u->buf,
				(mx_status_code_t)u->fail);
		mxd_unexp_put(ep, u);
		return;
	}
	mxd_req_scatter(r, 0, u->buf, u->msg_len);
	if (u->msg_len > r->length)
		code = MX_STATUS_TRUNCATED;
	mxd_req_complete(r, code);
	mxd_count(ep->board, MXD_C_RX_MSGS);
	mxd_unexp_put(ep, u);
}

struct mxd_unexp *
mxd_unexp_find(struct mx_endpoint *ep, uint64_t value, uint64_t mask)
{
	return mxd_match_unexp(ep, value, mask);
}

uint32_t
mxd_unexp_length(const struct mxd_unexp *u)
{
	struct mxd_rndv_desc d;

	if (!u->rndv || !u->complete)
		return u->msg_len;
	mxd_wire_get_rndv(u->buf, &d);
	return d.total_len;
}
