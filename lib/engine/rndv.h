/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large messages, the sender's half (engine): the table of large sends and
 * serving PULLs.  See rndv.c; the receiver's half is pull.h.
 */
#ifndef MXD_RNDV_H
#define MXD_RNDV_H

#include <stdint.h>

#include "partners/endpoint.h"

/* Gives large send r a handle and its descriptor; -1: table full. */
int mxd_rndv_prepare(struct mx_request *r);
/* The large send of ep with 'handle', or NULL (ended, or never was). */
struct mx_request *mxd_rndv_lookup(struct mx_endpoint *ep, uint32_t handle);
/* Takes r out of the table of large sends: no PULL reaches it again. */
void mxd_rndv_forget(struct mx_request *r);
/* Fails p's large sends with 'code'. */
void mxd_rndv_fail(struct mxd_partner *p, mx_status_code_t code);
/* NOTIFY: large send 'handle' to p was all pulled. */
void mxd_rndv_notified(struct mxd_partner *p, uint32_t handle);
/* Large sends past their deadline (mx_set_request_timeout) fail. */
void mxd_rndv_expire(struct mx_endpoint *ep, uint64_t now);
/* A PULL from p, by 'port': queued as a job, served as tx room allows. */
void mxd_pull_serve(struct mxd_partner *p, unsigned port,
		const struct mxd_pkt *pkt);
void mxd_pull_pump(struct mxd_partner *p);
void mxd_pulls_pump(struct mx_endpoint *ep);

#endif /* MXD_RNDV_H */
