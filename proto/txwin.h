/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send window of one partner: sequence numbers and cumulative acks.
 *
 * Messages get consecutive sequence numbers starting at the first_seq
 * agreed at connect time.  At most MXD_WIN may be unacknowledged; an ack
 * covers every sequence number up to and including its value.  An ack for
 * something never sent is refused (forged or stale) and reported so.
 */
#ifndef MXD_TXWIN_H
#define MXD_TXWIN_H

#include <stdint.h>
#include "rxwin.h"

struct mxd_txwin {
	uint32_t next_seq;	/* sequence number of the next message */
	uint32_t acked;		/* highest acknowledged sequence number */
};

static inline void
mxd_txwin_init(struct mxd_txwin *w, uint32_t first_seq)
{
	w->next_seq = first_seq;
	w->acked = first_seq - 1;
}

static inline uint32_t
mxd_txwin_in_flight(const struct mxd_txwin *w)
{
	return w->next_seq - 1 - w->acked;
}

static inline int
mxd_txwin_full(const struct mxd_txwin *w)
{
	return mxd_txwin_in_flight(w) >= MXD_WIN;
}

static inline uint32_t
mxd_txwin_take(struct mxd_txwin *w)
{
	return w->next_seq++;
}

/*
 * Applies a cumulative ack.  Returns the number of newly acknowledged
 * messages (the oldest is *first), 0 for an old ack, -1 for an ack beyond
 * anything sent.
 */
static inline int
mxd_txwin_ack(struct mxd_txwin *w, uint32_t ack, uint32_t *first)
{
	uint32_t n;

	if (!mxd_seq_lt(w->acked, ack))
		return 0;
	if (!mxd_seq_lt(ack, w->next_seq))
		return -1;
	n = ack - w->acked;
	*first = w->acked + 1;
	w->acked = ack;
	return (int)n;
}

#endif /* MXD_TXWIN_H */
