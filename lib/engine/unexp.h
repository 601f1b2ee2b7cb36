/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffers for messages that arrive before a receive takes them (engine):
 * unexpected messages (matched, no receive posted) and held messages
 * (ahead of an earlier message of their partner, or waiting for room in
 * the unexpected queue).  See unexp.c.
 */
#ifndef MXD_UNEXP_H
#define MXD_UNEXP_H

#include <stdint.h>

#include "partners/endpoint.h"

struct mxd_unexp {
	struct mxd_list link;		/* endpoint's unexp or held list */
	struct mxd_partner *partner;
	uint64_t match;
	uint32_t msg_len;
	uint8_t complete;
	uint8_t queued;			/* on the unexpected queue */
	uint8_t sync;			/* sender waits for MATCHED */
	uint8_t rndv;			/* buf holds an RNDV descriptor */
	uint8_t probed;			/* a blocked mx_probe was told of it:
					 * no other is (threaded only) */
	uint8_t fail;			/* rndv whose partner was lost: the
					 * mx_status_code_t a receive taking
					 * it fails with (nothing to pull) */
	uint32_t seq;
	uint8_t cls;			/* buffer size class */
	struct mx_request *req;		/* receive waiting for the rest */
	uint8_t *buf;
	struct mxd_unexp *pool_next;
	/* Queued: in the index of every indexed class (match.c). */
	struct mxd_mnode mn[MXD_MCLASSES];
};

void mxd_bufpool_fini(struct mxd_bufpool *p);
/* A buffer for a 'len'-byte message, on ep's held list; NULL when out
 * of memory. */
struct mxd_unexp *mxd_unexp_get(struct mx_endpoint *ep, uint32_t len);
void mxd_unexp_put(struct mx_endpoint *ep, struct mxd_unexp *u);
void mxd_unexp_enqueue(struct mx_endpoint *ep, struct mxd_unexp *u);
void mxd_unexp_dequeue(struct mx_endpoint *ep, struct mxd_unexp *u);
/* Whether the unexpected queue has room for a 'len'-byte message. */
int mxd_unexp_room(const struct mx_endpoint *ep, uint32_t len);
/* The message's length (a large message's, not its descriptor's). */
uint32_t mxd_unexp_length(const struct mxd_unexp *u);
/* The first queued message (value, mask) takes, or NULL (match.c: by
 * hashing, for a mask of a class). */
struct mxd_unexp *mxd_unexp_find(struct mx_endpoint *ep, uint64_t value,
		uint64_t mask);
/* Frees every message buffer of the endpoint (on close). */
void mxd_unexp_release_all(struct mx_endpoint *ep);
/* Delivers a complete unexpected message to a receive and frees it. */
void mxd_unexp_deliver(struct mx_endpoint *ep, struct mxd_unexp *u,
		struct mx_request *r);

#endif /* MXD_UNEXP_H */
