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
 * read.  Returns the records taken. */
unsigned mxd_shm_poll(struct mxd_board *b);
/* The board's watch (progress/timers_run.c, every MXD_WATCH_PASSES
 * passes): processes of the host that died or left their slot are let
 * go of (their partners lost, their rings drained and released). */
void mxd_shm_watch(struct mxd_board *b);

#endif /* MXD_SHM_H */
