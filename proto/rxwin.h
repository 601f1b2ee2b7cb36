/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive window of one partner: in-order matching with out-of-order
 * delivery.
 *
 * Messages carry per-partner sequence numbers.  Their fragments may arrive
 * in any order and interleaved with other messages' fragments.  The window
 * keeps one slot per message in flight and two cursors:
 *
 *   next_match  the next message to hand to the matcher.  Matching is
 *               strictly in sequence order; a message whose header is
 *               known (any fragment arrived) is matchable once every
 *               earlier message was matched.
 *   base        the oldest message not yet both completely received and
 *               matched.  The cumulative ack is base - 1, so a message
 *               that cannot be matched (unexpected queue full, matching
 *               paused) is not acknowledged and the sender's window
 *               closes: back-pressure without dropping anything.
 *
 * base <= next_match always; slots below base are free.  New sequence
 * numbers are accepted in [base, base + WIN).
 *
 * The window never touches payload bytes: the caller owns where they go
 * (slot->owner) and calls mxd_rxwin_matched() when it has matched a slot.
 *
 * The slots are the caller's too (w->slot, MXD_WIN of them), needed only
 * by a message that is not the next one alone (mxd_rxwin_next_alone):
 * one early, of several fragments, or matched later.  Until a caller
 * gives them, top == base and no function but mxd_rxwin_next_alone,
 * mxd_rxwin_pass and the cumulative ack may be called.
 */
#ifndef MXD_RXWIN_H
#define MXD_RXWIN_H

#include <stdint.h>
#include "wire.h"

#define MXD_WIN		256u	/* messages in flight per partner, 2^n */

struct mxd_rxslot {
	uint32_t seq;
	uint32_t msg_len;
	uint64_t match;
	uint64_t have;		/* bitmap of received fragments */
	uint16_t frag_max;
	uint8_t frag_count;
	uint8_t nfrags;		/* fragments received so far */
	uint8_t active;
	uint8_t matched;
	uint8_t complete;
	uint8_t owner_kind;	/* caller's tag for owner */
	uint8_t sync;		/* sender waits for a MATCHED notice */
	uint8_t rndv;		/* the message is an RNDV descriptor */
	void *owner;		/* caller's: request or buffer */
};

struct mxd_rxwin {
	uint32_t next_match;
	uint32_t base;
	uint32_t top;		/* one past the highest sequence seen */
	struct mxd_rxslot *slot;	/* [MXD_WIN], or NULL (see above) */
};

enum mxd_rx_verdict {
	MXD_RX_NEW,	/* first fragment of a message: slot just set up */
	MXD_RX_MORE,	/* another fragment of a known message */
	MXD_RX_DUP,	/* already have it: drop, but re-ack */
	MXD_RX_BAD,	/* inconsistent with the message: drop */
	MXD_RX_WINDOW,	/* too far ahead: drop */
};

/* The window at first_seq; its slots (if any) emptied. */
void mxd_rxwin_init(struct mxd_rxwin *w, uint32_t first_seq);

/*
 * Accounts one eager fragment.  On NEW and MORE, *slotp is the message's
 * slot and slot->complete tells whether this fragment completed it.
 */
enum mxd_rx_verdict mxd_rxwin_frag(struct mxd_rxwin *w,
		const struct mxd_pkt *pkt, struct mxd_rxslot **slotp);

/* The slot that may be matched next, or NULL if its header is unknown. */
struct mxd_rxslot *mxd_rxwin_matchable(struct mxd_rxwin *w);

/* Records that the caller matched 'sl' (which must be matchable). */
void mxd_rxwin_matched(struct mxd_rxwin *w, struct mxd_rxslot *sl);

/*
 * The selective ack: bit i set when message base + i is received whole
 * (matched or not), for i < 64; 0 when nothing beyond base arrived.
 * The sender sends again at once what is missing below the highest bit.
 */
uint64_t mxd_rxwin_sack(const struct mxd_rxwin *w);

/*
 * Messages received in part, from base on (at most 'max', looking at the
 * first 64 messages): their seq and the bitmap of fragments held, for the
 * sender to send again only the others.  Returns how many.
 */
unsigned mxd_rxwin_partial(const struct mxd_rxwin *w, uint32_t *seq,
		uint64_t *have, unsigned max);

/* Whether messages after base arrived while base's did not (whole). */
static inline int
mxd_rxwin_hole(const struct mxd_rxwin *w)
{
	return w->top - w->base > 1 && w->slot != NULL &&
		!(w->slot[w->base & (MXD_WIN - 1)].active &&
		  w->slot[w->base & (MXD_WIN - 1)].seq == w->base &&
		  w->slot[w->base & (MXD_WIN - 1)].complete);
}

/*
 * Whether message seq is the next to match and nothing after it has been
 * seen (no slot of the window is in use then): a message of one fragment
 * that is matched on arrival needs no slot, and mxd_rxwin_pass() moves
 * the window over it.
 */
static inline int
mxd_rxwin_next_alone(const struct mxd_rxwin *w, uint32_t seq)
{
	return seq == w->base && w->top == seq;
}

/* The message mxd_rxwin_next_alone() admitted was received whole and
 * matched: base, next_match and top (all equal) move past it. */
static inline void
mxd_rxwin_pass(struct mxd_rxwin *w)
{
	w->next_match = w->top = ++w->base;
}

/* Moves base over completed, matched messages; returns the cum. ack. */
uint32_t mxd_rxwin_settle(struct mxd_rxwin *w);

static inline uint32_t
mxd_rxwin_cum_ack(const struct mxd_rxwin *w)
{
	return w->base - 1;
}

#endif /* MXD_RXWIN_H */
