/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Library set-up (API layer).  See init.c.
 */
#ifndef MXD_INIT_H
#define MXD_INIT_H

#include "link.h"

/* Starts the engine on these links (mx_init passes the DPDK ports; tests
 * pass fake links).  mxd_conf must be loaded. */
int mxd_init_links(struct mxd_link *const *links, unsigned n);

#endif /* MXD_INIT_H */
