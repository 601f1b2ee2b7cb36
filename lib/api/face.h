/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What another API's face (partners/face.h; Portals, lib/portals) needs of
 * the API layer: the library held and let go as mx_init and mx_finalize
 * do, and endpoints of its own.
 */
#ifndef MXD_API_FACE_H
#define MXD_API_FACE_H

#include <stdint.h>

#include "partners/endpoint.h"

/* Who holds the library: it starts with the first (EAL, boards, the
 * progression thread) and stops with the last; each holds it once. */
#define MXD_HOLD_MX	1	/* mx_init .. mx_finalize */
#define MXD_HOLD_PTL	2	/* PtlInit .. PtlFini */

/* With the library lock: 0, or a negated mx_return_t. */
int mxd_lib_hold(unsigned who);
/* With the library lock, at the depth of one call (its thread lets go of
 * the lock to stop the progression thread when 'who' was the last): the
 * endpoints of 'who' are closed already. */
void mxd_lib_release(unsigned who);

/* Opens endpoint 'id' (MX_ANY_ENDPOINT: the first free) of board b with
 * 'filter', whose messages and requests go to 'face' (ctx its own): 0
 * with *out set, or -MX_BUSY (taken), -MX_BAD_ENDPOINT_ID,
 * -MX_NO_RESOURCES.  Closed by mx_close_endpoint's body (api/close.h). */
int mxd_face_endpoint_open(struct mxd_board *b, uint32_t id, uint32_t filter,
		const struct mxd_face_ops *face, void *ctx,
		struct mx_endpoint **out);

#endif /* MXD_API_FACE_H */
