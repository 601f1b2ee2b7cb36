/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A board shared by the processes of a host (MX_BOARD_SHARED=1): this
 * process's connection to the board service, its slot, the host segments
 * and its links (shared.c tells how).  Board layer: nothing here calls up.
 */
#ifndef MXD_SHARED_H
#define MXD_SHARED_H

#include <stdint.h>

#include "board/board.h"

/*
 * Connects to the board service of host c->hostname (starting it if no
 * process has: mx_board start), takes a slot, maps the host segments and
 * makes a link per port of each board into lib->links; c->boards is set
 * to group them as the service does.  0, or -MX_* after a message.
 */
int mxd_shared_start(struct mxd_lib *lib, struct mxd_config *c);
/* Lets the slot go (the service frees it) and frees the links: after the
 * boards are gone. */
void mxd_shared_stop(struct mxd_lib *lib);
/* Board 'board''s host segment and this process's slot, or NULL when the
 * process owns its ports alone. */
struct mxd_host *mxd_shared_host(unsigned board, unsigned *slot);
/* Takes endpoint id (MX_ANY_ENDPOINT: the first free) of shared board b
 * for this process: the id, or -MX_BUSY (another process holds it),
 * -MX_BAD_ENDPOINT_ID, -MX_NO_DEV (the service is gone). */
int mxd_shared_ep_claim(struct mxd_board *b, uint32_t id);
void mxd_shared_ep_release(struct mxd_board *b, uint32_t id);
/* The slot that holds endpoint id of b and its process's pid in *pid, or
 * -1 if none does. */
int mxd_shared_ep_holder(const struct mxd_board *b, uint32_t id, int *pid);
/* The watch's look (board.c, every MXD_WATCH_MS): the service alive,
 * new memif regions mapped, dead slots let go; b->orphan set when the
 * service is gone. */
void mxd_shared_watch(struct mxd_board *b);
/* Whether the service went away. */
int mxd_shared_dead(void);

#endif /* MXD_SHARED_H */
