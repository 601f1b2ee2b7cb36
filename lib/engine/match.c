/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matching without walking the queues.
 *
 * MX's rules (MX 1.0 spec II.4 and mx_irecv): a receive (value, mask)
 * accepts a message whose (match & mask) == value; a message goes to the
 * earliest posted receive that accepts it; a new receive takes the
 * earliest queued unexpected message it accepts.  The messages of one
 * sender reach this file in the order sent (the receive window,
 * proto/rxwin, hands them over in sequence), so they match in order.
 *
 * Classes.  Receives are grouped by mask into at most MXD_MCLASSES
 * classes; class 0 is the full mask (MX_MATCH_MASK_NONE) and always
 * there, the others go to whatever masks the application uses (MPI over
 * MX uses a few: a full match, any source, any tag).  A class hashes its
 * posted receives by value, oldest first for each value (mtab.h), so the
 * earliest receive of a class that accepts a message is found by one
 * lookup of (match & mask).  Every receive carries the number of its
 * posting (post_seq): the earliest over all classes is the one with the
 * lowest.  A receive whose mask gets no class (every slot is held by a
 * mask with receives posted) waits on ep->posted, in post order, which a
 * message walks only as far as the best receive the classes offered.
 * A slot with no receive posted goes to a new mask when needed, the one
 * least recently asked for first.
 *
 * Receives are cheaper on a list than in tables while messages take
 * them from its head: a receive waits on ep->posted, the list, in post
 * order, and goes to its class's table only once messages have walked
 * past it: a message that walks past more than SHORT_MAX receives that
 * do not take it sends those to their tables (ski rental again: a
 * receive that messages keep finding first never pays for a table).  The
 * list's receives are thus newer than any in a table (but those that got
 * no class), so a message that a table offers a receive for stops at the
 * list's first; one that no table takes walks the list, which holds what
 * no message walked past yet.  A ping-pong's one or two receives, and a
 * stream's receives posted in the order its messages come, never reach
 * a table, however many others wait there.  (posted_short_max 0, for
 * tests: every receive goes to its table when posted.)
 *
 * The unexpected queue (ep->unexp, in match order) is indexed the same
 * way: an indexed class has every queued message in its table under
 * (match & mask), so a receive finds the earliest message it accepts by
 * one lookup.  Class 0 starts indexed.  Indexing another class costs a
 * walk of the queue, so it waits until the walks that receives of that
 * mask made instead have cost as much (ski rental: a mask used once never
 * pays for an index, a mask used often pays once, at most twice what it
 * would have paid knowing the future).  A queued message is linked into
 * every indexed class (struct mxd_unexp's mn[]).
 *
 * Costs: a message, one lookup per class with receives hashed (a probe
 * of a few slots, mtab.h) plus the listed receives older than the best
 * found; posting a receive, one lookup of the unexpected queue when its
 * class is indexed (else a walk) and one insertion.  Nothing here allocates per message: tables are set up
 * with their class and double as they fill (mtab.h); a table that cannot
 * grow (out of memory) sends the receives of its class to the unclassed
 * list, and its messages to walks of the queue: slower, never wrong.
 */
#include <stddef.h>

#include "engine/match.h"
#include "engine/unexp.h"

#define SHORT		MXD_MCLASS_LISTED	/* r->mclass: on the list */
#define NO_CLASS	MXD_MCLASS_NONE	/* on the list: no class to be had */
#define SHORT_MAX	8		/* receives on the list, unhashed */
#define ORDER_MIN	6		/* 64 slots to start with */

/* The message whose class-c node is n. */
static struct mxd_unexp *
unexp_of(struct mxd_mnode *n, int c)
{
	return (struct mxd_unexp *)(void *)((char *)(n - c) -
			offsetof(struct mxd_unexp, mn));
}

static int
class_setup(struct mxd_mclass *cl, uint64_t mask)
{
	if (cl->posted.slot == NULL &&
			mxd_mtab_init(&cl->posted, ORDER_MIN) < 0)
		return -1;
	if (cl->unexp.slot == NULL &&
			mxd_mtab_init(&cl->unexp, ORDER_MIN) < 0)
		return -1;
	if (cl->indexed)
		mxd_mtab_clear(&cl->unexp);	/* the last mask's nodes */
	cl->mask = mask;
	cl->live = 1;
	cl->indexed = 0;
	cl->rent = 0;
	return 0;
}

int
mxd_match_init(struct mx_endpoint *ep)
{
	struct mxd_mclass *cl = &ep->mclass[0];

	mxd_list_init(&ep->posted);
	ep->posted_short_max = SHORT_MAX;
	if (class_setup(cl, MX_MATCH_MASK_NONE) < 0) {
		mxd_match_fini(ep);
		return -1;
	}
	cl->indexed = 1;	/* the queue is empty */
	return 0;
}

void
mxd_match_fini(struct mx_endpoint *ep)
{
	for (unsigned c = 0; c < MXD_MCLASSES; c++) {
		mxd_mtab_fini(&ep->mclass[c].posted);
		mxd_mtab_fini(&ep->mclass[c].unexp);
		ep->mclass[c].live = 0;
	}
}

/* A slot for a new mask: a free one, else the least recently asked for
 * that has no receive posted; -1 if none. */
static int
class_slot(const struct mx_endpoint *ep)
{
	int best = -1;

	for (int c = 1; c < MXD_MCLASSES; c++) {
		const struct mxd_mclass *cl = &ep->mclass[c];

		if (!cl->live)
			return c;
		if (cl->posted.entries == 0 && (best < 0 ||
				cl->used - ep->mclass[best].used >= 1u << 31))
			best = c;
	}
	return best;
}

/* The class of receives with 'mask' (found, or given a slot), or -1:
 * every slot is taken by a mask with receives posted. */
static int
class_of(struct mx_endpoint *ep, uint64_t mask)
{
	int c;

	if (mask == MX_MATCH_MASK_NONE)
		return 0;		/* never given away: no use to note */
	for (c = 1; c < MXD_MCLASSES; c++)
		if (ep->mclass[c].live && ep->mclass[c].mask == mask)
			break;
	if (c == MXD_MCLASSES) {
		c = class_slot(ep);
		if (c < 0 || class_setup(&ep->mclass[c], mask) < 0)
			return -1;
	}
	ep->mclass[c].used = ++ep->mclass_tick;
	return c;
}

/* ---- posted receives ---------------------------------------------------- */

/* Into class c's table; -1 if c < 0 or its table is full. */
static int
hash_post(struct mx_endpoint *ep, struct mx_request *r, int c)
{
	if (c < 0 || mxd_mtab_add(&ep->mclass[c].posted, &r->mnode,
				r->match_recv) < 0)
		return -1;
	r->mclass = (uint8_t)c;
	ep->posted_hashed++;
	return 0;
}

/* The short list is over full: its receives go to their classes, oldest
 * first (behind any of their value there, which are older).  Those that
 * find no class stay where they are. */
static __attribute__((noinline)) void
hash_short_list(struct mx_endpoint *ep)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->posted) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (r->mclass != SHORT)
			continue;
		ep->posted_short--;
		if (hash_post(ep, r, class_of(ep, r->match_mask)) == 0)
			mxd_list_del(&r->link);
		else
			r->mclass = NO_CLASS;
	}
}

/* The first n receives of the list, walked past by a message that none
 * of them takes: to their classes' tables (oldest first, behind any of
 * their value there, which are older); those that find no class stay. */
static __attribute__((noinline)) void
hash_walked(struct mx_endpoint *ep, unsigned n)
{
	struct mxd_list *pos, *tmp;

	mxd_list_foreach(pos, tmp, &ep->posted) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (n-- == 0)
			break;
		if (r->mclass != SHORT)
			continue;
		ep->posted_short--;
		if (hash_post(ep, r, class_of(ep, r->match_mask)) == 0)
			mxd_list_del(&r->link);
		else
			r->mclass = NO_CLASS;
	}
}

void
mxd_match_hash_posted(struct mx_endpoint *ep)
{
	hash_short_list(ep);
}

void
mxd_match_unpost_hashed(struct mx_endpoint *ep, struct mx_request *r)
{
	ep->posted_hashed--;
	mxd_mtab_del(&ep->mclass[r->mclass].posted, &r->mnode);
}

/* The earliest receive on the list that accepts 'match' and came before
 * 'best' (NULL: any); else best.  Past SHORT_MAX receives walked, those
 * go to their tables (hash_walked). */
static struct mx_request *
listed(struct mx_endpoint *ep, uint64_t match, struct mx_request *best)
{
	struct mxd_list *pos, *tmp;
	unsigned walked = 0;

	mxd_list_foreach(pos, tmp, &ep->posted) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				link);

		if (best != NULL && r->post_seq > best->post_seq)
			break;
		if (mxd_match(match, r->match_recv, r->match_mask)) {
			best = r;
			break;
		}
		walked++;
	}
	if (walked > SHORT_MAX)
		hash_walked(ep, walked);
	return best;
}

struct mx_request *
mxd_match_posted_any(struct mx_endpoint *ep, uint64_t match)
{
	struct mx_request *best = NULL;

	for (unsigned c = 0; ep->posted_hashed && c < MXD_MCLASSES; c++) {
		const struct mxd_mclass *cl = &ep->mclass[c];
		struct mxd_mnode *n;
		struct mx_request *r;

		if (cl->posted.entries == 0)
			continue;
		n = mxd_mtab_first(&cl->posted, match & cl->mask);
		if (n == NULL)
			continue;
		r = mxd_container_of(n, struct mx_request, mnode);
		if (best == NULL || r->post_seq < best->post_seq)
			best = r;
	}
	return mxd_list_empty(&ep->posted) ? best : listed(ep, match, best);
}

/* ---- the unexpected queue ----------------------------------------------- */

/* Class c's index could not take a message (full, and out of memory):
 * searches walk the queue again. */
static void
class_unindex(struct mxd_mclass *cl)
{
	mxd_mtab_clear(&cl->unexp);
	cl->indexed = 0;
	cl->rent = 0;
}

void
mxd_match_queue(struct mx_endpoint *ep, struct mxd_unexp *u)
{
	ep->unexp_n++;
	for (unsigned c = 0; c < MXD_MCLASSES; c++) {
		struct mxd_mclass *cl = &ep->mclass[c];

		if (cl->indexed && mxd_mtab_add(&cl->unexp, &u->mn[c],
					u->match & cl->mask) < 0)
			class_unindex(cl);
	}
}

void
mxd_match_unqueue(struct mx_endpoint *ep, struct mxd_unexp *u)
{
	ep->unexp_n--;
	for (unsigned c = 0; c < MXD_MCLASSES; c++)
		if (ep->mclass[c].indexed)
			mxd_mtab_del(&ep->mclass[c].unexp, &u->mn[c]);
}

/* Indexes every queued message in class c, in queue order. */
static void
class_index(struct mx_endpoint *ep, int c)
{
	struct mxd_mclass *cl = &ep->mclass[c];
	struct mxd_list *pos, *tmp;

	cl->indexed = 1;
	mxd_list_foreach(pos, tmp, &ep->unexp) {
		struct mxd_unexp *u = mxd_container_of(pos, struct mxd_unexp,
				link);

		if (mxd_mtab_add(&cl->unexp, &u->mn[c],
					u->match & cl->mask) < 0) {
			class_unindex(cl);
			return;
		}
	}
}

/* The earliest queued message (value, mask) accepts, by walking the
 * queue; *walked: how many messages that took. */
static struct mxd_unexp *
unexp_walk(struct mx_endpoint *ep, uint64_t value, uint64_t mask,
		uint32_t *walked)
{
	struct mxd_list *pos, *tmp;

	*walked = 0;
	mxd_list_foreach(pos, tmp, &ep->unexp) {
		struct mxd_unexp *u = mxd_container_of(pos, struct mxd_unexp,
				link);

		++*walked;
		if (mxd_match(u->match, value, mask))
			return u;
	}
	return NULL;
}

struct mxd_unexp *
mxd_match_unexp(struct mx_endpoint *ep, uint64_t value, uint64_t mask)
{
	struct mxd_mclass *cl;
	struct mxd_unexp *u;
	struct mxd_mnode *n;
	uint32_t walked;
	int c;

	if (ep->unexp_n == 0)
		return NULL;
	c = class_of(ep, mask);
	cl = c < 0 ? NULL : &ep->mclass[c];
	if (cl != NULL && !cl->indexed && cl->rent >= ep->unexp_n)
		class_index(ep, c);	/* the walks cost as much by now */
	if (cl != NULL && cl->indexed) {
		n = mxd_mtab_first(&cl->unexp, value);
		return n == NULL ? NULL : unexp_of(n, c);
	}
	u = unexp_walk(ep, value, mask, &walked);
	if (cl != NULL)
		cl->rent += walked;
	return u;
}
