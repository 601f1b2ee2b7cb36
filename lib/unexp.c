/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffers for messages that arrive before a receive matches them:
 * unexpected messages (matched, no receive posted) and early messages
 * (arrived ahead of an earlier message of the same partner, so not yet
 * matchable).  Buffers come from power-of-two size classes kept on free
 * lists, so a steady stream of unexpected messages does not call malloc.
 */
#include <stdlib.h>
#include <string.h>

#include "mxd.h"

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
		memcpy(&p->free_buf[cls], b, sizeof(b));
		return b;
	}
	return malloc((size_t)1 << cls);
}

static void
buf_put(struct mxd_bufpool *p, unsigned cls, uint8_t *b)
{
	memcpy(b, &p->free_buf[cls], sizeof(b));
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
	mxd_list_init(&u->link);
	u->buf = buf_get(p, cls);
	if (u->buf == NULL) {
		u->pool_next = p->free_unexp;
		p->free_unexp = u;
		return NULL;
	}
	u->cls = (uint8_t)cls;
	u->msg_len = len;
	ep->unexp_bytes += len;
	return u;
}

void
mxd_unexp_put(struct mx_endpoint *ep, struct mxd_unexp *u)
{
	struct mxd_bufpool *p = &ep->bufs;

	mxd_list_del(&u->link);
	ep->unexp_bytes -= u->msg_len;
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

	mxd_req_scatter(r, 0, u->buf, u->msg_len);
	if (u->msg_len > r->length)
		code = MX_STATUS_TRUNCATED;
	mxd_req_complete(r, code);
	mxd_unexp_put(ep, u);
}
