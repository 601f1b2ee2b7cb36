/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Acknowledgements and notices sent (engine).
 *
 * An explicit ACK carries our cumulative ack (and SACK bits) when no
 * message to the partner carried it in time: after MXD_ACK_EVERY
 * unacknowledged messages, or when the delayed-ack timer finds it still
 * owed (engine/timers.c arms it, progress/timers_run.c runs it).  A lost
 * ACK costs nothing but a retransmission, which is answered with an ACK
 * at once.
 *
 * A notice (MATCHED for a synchronous send, NOTIFY for a large one) is a
 * message of its own: sequenced, acknowledged and retransmitted like
 * data (send.c launches it), so it is never lost.  One that finds the
 * window full or no tx room waits on the partner, in order, and arms the
 * ack timer due at once: the next pass's look sends what the window and
 * the tx queue admit.  The waiting list grows (never drops a notice); it
 * is the one allocation on this path, and only when the window is full.
 */
#include <stdlib.h>
#include <string.h>

#include "partners/xmit.h"
#include "engine/acks.h"
#include "engine/send.h"
#include "engine/shmsend.h"
#include "engine/timers.h"

void
mxd_ack_send(struct mxd_partner *p)
{
	if (mxd_partner_ack(p, 0) != 0)
		return;			/* the ack timer tries again */
	mxd_count(p->ep->board, MXD_C_ACKS_SENT);
}

void
mxd_notice(struct mxd_partner *p, uint8_t kind, uint32_t value)
{
	uint64_t note = (uint64_t)kind << 32 | value;

	if (p->shm) {			/* same host: a record of its ring */
		mxd_shm_notice(p, kind, value);
		return;
	}
	if (p->remote_session == 0)
		return;		/* a lost partner: nobody waits for it */
	if (mxd_partner_act(p) == NULL) {	/* out of memory */
		mxd_count(p->ep->board, MXD_C_NOTICE_LOST);
		return;
	}
	if (p->a->notify_n == 0 && mxd_send_notice(p, note))
		return;
	/* No room now: the ack pass sends it (in order, with the rest). */
	if (p->a->notify_n == p->a->notify_cap) {
		uint32_t cap = p->a->notify_cap ? 2 * p->a->notify_cap :
			MXD_NOTIFY_MIN;
		uint64_t *n = realloc(p->a->notify, cap * sizeof(*n));

		if (n == NULL) {	/* out of memory */
			mxd_count(p->ep->board, MXD_C_NOTICE_LOST);
			return;
		}
		p->a->notify = n;
		p->a->notify_cap = cap;
		mxd_count(p->ep->board, MXD_C_NOTICE_GROW);
	}
	mxd_ep_hold_changed(p->ep);
	p->a->notify[p->a->notify_n++] = note;
	mxd_timer_ack(p, 0);
}

void
mxd_notices_flush(struct mxd_partner *p)
{
	uint32_t done = 0;

	while (done < p->a->notify_n && mxd_send_notice(p, p->a->notify[done]))
		done++;
	memmove(p->a->notify, p->a->notify + done,
			(p->a->notify_n - done) * sizeof(p->a->notify[0]));
	p->a->notify_n -= done;
}
