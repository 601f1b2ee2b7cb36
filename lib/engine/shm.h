/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host path, its upper half (engine): the rings of the host
 * segment read, their records taken (messages matched, notices, connect
 * handshakes, BYE, refusals, copies asked), and the lives of the other
 * processes followed.  See shm.c; what this process writes is
 * shmsend.h's.
 */
#ifndef MXD_SHM_H
#define MXD_SHM_H

#include "engine/shmsend.h"

/* Every pass of a board with a host segment (progress.c): what waits for
 * ring room, rings newly set up to us, and the records of every ring we
 * read.  Returns the records taken.  Inline, the look that finds nothing:
 * a few words, and the next record's seq word of each ring read;
 * mxd_shm_poll_any when anything but records is there; when only
 * records are, mxd_shm_read: the rings of the slots of mask m (the one
 * found first and those after it), as mxd_shm_poll_any reads them
 * (mxd_shm_read_first when the first ring holds none back: the record
 * found is taken without a second look). */
unsigned mxd_shm_poll_any(struct mxd_board *b);
unsigned mxd_shm_read(struct mxd_shm *shm, uint64_t m);
/* mxd_shm_read when the poll found record rec first, in the ring of the
 * lowest slot of m, which holds none back. */
unsigned mxd_shm_read_first(struct mxd_shm *shm, uint64_t m,
		struct mxd_hrec *rec);

static inline unsigned
mxd_shm_poll(struct mxd_board *b)
{
	struct mxd_shm *shm = b->shm;

	if ((shm->work | shm->scan | shm->splits |
				__atomic_load_n(shm->mail, __ATOMIC_RELAXED)) != 0)
		return mxd_shm_poll_any(b);
	for (uint64_t m = shm->rx_mask; m != 0; m &= m - 1) {
		const struct mxd_shm_peer *pe = &shm->peer[__builtin_ctzll(m)];
		struct mxd_hrec *rec;

		if (pe->held != 0)
			return mxd_shm_read(shm, m);
		if ((rec = mxd_hring_peek(&pe->rx)) != NULL)
			return mxd_shm_read_first(shm, m, rec);
	}
	return 0;
}
/* The board's watch (progress/timers_run.c, every MXD_WATCH_PASSES
 * passes): processes of the host that died or left their slot are let
 * go of (their partners lost, their rings drained and released). */
void mxd_shm_watch(struct mxd_board *b);

#endif /* MXD_SHM_H */
