/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matching (engine): which posted receive a message goes to, and which
 * queued unexpected message a new receive takes, found by hashing rather
 * than by walking the queues.  See match.c.
 */
#ifndef MXD_MATCH_H
#define MXD_MATCH_H

#include <stdint.h>

#include "partners/endpoint.h"

struct mxd_unexp;

/* MX's rule: a receive (value, mask) accepts a message 'match'. */
static inline int
mxd_match(uint64_t match, uint64_t value, uint64_t mask)
{
	return (match & mask) == value;
}

/* Sets up the endpoint's matching (the full mask's class); 0 or -1 when
 * out of memory.  mxd_match_fini frees it. */
int mxd_match_init(struct mx_endpoint *ep);
void mxd_match_fini(struct mx_endpoint *ep);

/* r->mclass of a receive on ep->posted that a message has not walked
 * past (match.c). */
#define MXD_MCLASS_LISTED	0xfe

/* Every receive on ep's list to its class's table (posted_short_max 0:
 * tests). */
void mxd_match_hash_posted(struct mx_endpoint *ep);

/* Posts receive r after every receive posted: on the list (match.c);
 * mxd_match_list when posted_short_max is known not 0. */
static inline void
mxd_match_list(struct mx_endpoint *ep, struct mx_request *r)
{
	r->post_seq = ++ep->post_seq;
	r->mclass = MXD_MCLASS_LISTED;
	ep->posted_short++;
	mxd_list_add_tail(&ep->posted, &r->link);
}

static inline void
mxd_match_post(struct mx_endpoint *ep, struct mx_request *r)
{
	mxd_match_list(ep, r);
	if (ep->posted_short_max == 0)
		mxd_match_hash_posted(ep);
}
/* r->mclass of a receive on the list that got no class (match.c). */
#define MXD_MCLASS_NONE		0xff

/* Takes posted receive r off (matched or cancelled): from the list, or
 * (mxd_match_unpost_hashed) from its class's table. */
void mxd_match_unpost_hashed(struct mx_endpoint *ep, struct mx_request *r);
static inline void
mxd_match_unpost(struct mx_endpoint *ep, struct mx_request *r)
{
	if (r->mclass == MXD_MCLASS_LISTED || r->mclass == MXD_MCLASS_NONE) {
		ep->posted_short -= r->mclass == MXD_MCLASS_LISTED;
		mxd_list_del(&r->link);
		return;
	}
	mxd_match_unpost_hashed(ep, r);
}

/* The earliest posted receive that accepts 'match', or NULL. */
struct mx_request *mxd_match_posted_any(struct mx_endpoint *ep,
		uint64_t match);
/* The same, inline when no receive waits in a table and the list's
 * first takes the message (a ping-pong's, a stream's in order). */
static inline struct mx_request *
mxd_match_posted(struct mx_endpoint *ep, uint64_t match)
{
	if (ep->posted_hashed == 0 && !mxd_list_empty(&ep->posted)) {
		struct mx_request *r = mxd_container_of(ep->posted.next,
				struct mx_request, link);

		if (mxd_match(match, r->match_recv, r->match_mask))
			return r;
	}
	return mxd_match_posted_any(ep, match);
}

/* Message u joined (left) the unexpected queue. */
void mxd_match_queue(struct mx_endpoint *ep, struct mxd_unexp *u);
void mxd_match_unqueue(struct mx_endpoint *ep, struct mxd_unexp *u);
/* The earliest queued message that (value, mask) accepts, or NULL. */
struct mxd_unexp *mxd_match_unexp(struct mx_endpoint *ep, uint64_t value,
		uint64_t mask);

#endif /* MXD_MATCH_H */
