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

/* The same for a message whole at hand (one frame, 'len' bytes at
 * data), next in order, nothing held after it: its deposit, if any, is
 * copied and ended at once, no receive made.  0, or -1 when the face had
 * no memory (nothing done: the message is to be taken again). */
int mxd_face_direct(struct mx_endpoint *ep, struct mxd_partner *p,
		const uint8_t *data, uint32_t len);

/* Sends a face's message of 'len' bytes at msg to p at once, in one
 * frame, if it is small and p's window and tx room allow (mx_isend's
 * common case, send.c's mxd_send_small): 1 if sent (the send is done:
 * its bytes are copied), 0 if not (nothing done: the general way, a
 * request of MXD_FORGET_FACE, then). */
int mxd_face_send_now(struct mxd_partner *p, const uint8_t *msg, uint32_t len,
		uint64_t match);

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
