/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link of a process of a shared board (shlink.c; shport.h tells the
 * design): one port of the board, driven in memif's shared memory without
 * DPDK, or through the service's rings on a switched port.  The board
 * layer makes one per port from the host segment, maps the port's
 * regions (one per lane) when the service gives them (at start and after
 * each link-up), and says when the service is gone.
 */
#ifndef MXD_SHLINK_H
#define MXD_SHLINK_H

#include <stdint.h>

#include "link.h"
#include "shport.h"

/* A link for the process in 'slot' on shared port sp, with 'fwd' its
 * forward ring, 'up' its up ring (a switched port's; NULL for a matrix
 * port) and nb_bufs frame buffers of its own; NULL (the reason in
 * mxd_glue_error()) if it cannot be made.  A matrix port's link is down
 * until mapped; a switched port's is up when the service's port is. */
struct mxd_link *mxd_glue_shlink_new(const struct mxd_shport *sp,
		struct mxd_fwd *fwd, struct mxd_fwd *up, unsigned slot,
		uint32_t nb_bufs);
/* Maps the memif region of the port's lane 'lane' of generation gen (len
 * bytes) from fd, in place of the one before; 0 or a negative errno
 * (reason set).  The link is ready once every lane's region of one
 * generation is mapped.  The caller closes fd. */
int mxd_glue_shlink_map(struct mxd_link *l, unsigned lane, int fd,
		uint32_t gen, uint64_t len);
/* The generation of the regions mapped (0: none, or not all lanes). */
uint32_t mxd_glue_shlink_gen(const struct mxd_link *l);
/* The board service is gone: down for good. */
void mxd_glue_shlink_kill(struct mxd_link *l);
void mxd_glue_shlink_free(struct mxd_link *l);

#endif /* MXD_SHLINK_H */
