/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Closing an endpoint (API layer).  See close.c.
 */
#ifndef MXD_CLOSE_H
#define MXD_CLOSE_H

#include "myriexpress.h"

/* mx_close_endpoint's body (close.c), also for mx_finalize: called at the
 * finalize's own depth, it can let threads blocked on the endpoint out. */
mx_return_t mxd_close_endpoint(struct mx_endpoint *ep);

#endif /* MXD_CLOSE_H */
