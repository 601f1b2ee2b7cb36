/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's side of an endpoint's face (partners/face.h): a message
 * given to the face where MX would match it, and the face's waits.  See
 * face.c.
 */
#ifndef MXD_ENGINE_FACE_H
#define MXD_ENGINE_FACE_H

#include <stdint.h>

#include "partners/endpoint.h"

/*
 * The message of p in sl (an RNDV descriptor if 'rndv'), 'data' its
 * bytes if at hand (NULL: not), goes to ep's face (ep->face set).
 * Returns its verdict (enum mxd_face_verdict); MXD_FACE_DEPOSIT with *r
 * a receive of ep's made for it, fresh (on no list): where the message
 * goes, its head into a sink, its bytes after the head into the face's
 * segments.
 */
int mxd_face_take(struct mx_endpoint *ep, struct mxd_partner *p, int rndv,
		uint32_t msg_len, const uint8_t *data, struct mx_request **r);

/* The face waits for an answer from p (on: +1), or no longer (-1): a
 * partner it waits for is probed like one we have messages in flight
 * to, and lost after MX_PEER_TIMEOUT_MS of silence.  0, or -1 out of
 * memory (for on > 0). */
int mxd_face_wait(struct mxd_partner *p, int on);

/* The first 'head' bytes of r's message (a send of a face: its
 * announcement carries them, rndv.c and send.c); 0 for any other. */
static inline uint32_t
mxd_face_head(const struct mx_request *r)
{
	return r->forget == MXD_FORGET_FACE ? r->ep->face->head : 0;
}

#endif /* MXD_ENGINE_FACE_H */
