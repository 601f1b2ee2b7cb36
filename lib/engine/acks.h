/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Acknowledgements and notices sent (engine).  See acks.c.
 */
#ifndef MXD_ACKS_H
#define MXD_ACKS_H

#include <stdint.h>

#include "partners/endpoint.h"

/* Sends p a notice (wire.h: enum mxd_notice_kind), now or, when window or
 * tx queue is full, from the ack timer, in order: never dropped. */
void mxd_notice(struct mxd_partner *p, uint8_t kind, uint32_t value);
/* Sends the notices that waited, as far as window and room allow. */
void mxd_notices_flush(struct mxd_partner *p);
/* An explicit cumulative ack now (counted); nothing if the queue is full:
 * the ack timer tries again. */
void mxd_ack_send(struct mxd_partner *p);

#endif /* MXD_ACKS_H */
