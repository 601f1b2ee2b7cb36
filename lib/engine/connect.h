/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connect handshake (engine): CONN_REQ / CONN_REP tell each side the
 * other's session, partner index, filter and route.  Nothing here waits:
 * mx_connect() waits in the API layer for the request to complete.
 */
#ifndef MXD_CONNECT_H
#define MXD_CONNECT_H

#include <stdint.h>

#include "partners/endpoint.h"

/* Starts connect request r (type CONNECT) to (nic, remote_ep); it
 * completes when answered, or with MX_STATUS_TIMEOUT after timeout_ms
 * (0: never).  0 or -MX_NO_RESOURCES. */
int mxd_connect_start(struct mx_request *r, uint64_t nic, uint32_t remote_ep,
		uint32_t filter, uint32_t timeout_ms);
/* Gives up connect request r before its answer (its waiter was woken):
 * it is taken off the list, and no longer completes. */
void mxd_connect_abandon(struct mx_request *r);
/* Timer: resends due connect requests, fails expired ones. */
void mxd_connects_progress(struct mx_endpoint *ep, uint64_t now);
void mxd_rx_conn_req(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt);
void mxd_rx_conn_rep(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt);

/*
 * A same-host partner's handshake, over the host's rings (engine/shm.c):
 * p learns the peer's session, partner index and filter (a new session
 * ends what was going on with the old one), and the answer
 * (enum mxd_conn_status) to p's handshake completes its connects.
 */
void mxd_connect_learn_shm(struct mxd_partner *p, uint32_t session,
		uint16_t index, uint32_t filter);
void mxd_connect_answered(struct mxd_partner *p, uint8_t status);

/* p stopped answering, or restarted: every request that depends on it
 * fails with 'code', its windows start over and its frames are refused
 * until a new connect. */
void mxd_partner_lost(struct mxd_partner *p, mx_status_code_t code);

/* The board's service is gone: every partner lost, connects and posted
 * receives failed with code. */
void mxd_ep_orphaned(struct mx_endpoint *ep, mx_status_code_t code);

#endif /* MXD_CONNECT_H */
