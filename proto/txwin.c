/* SPDX-License-Identifier: BSD-3-Clause */
/* Send window: see txwin.h. */
#include "txwin.h"

int
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
