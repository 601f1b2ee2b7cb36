/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reliability (engine): what is done when frames are lost, or a partner
 * is.  When to do it is the timers' business (timers.c).
 */
#ifndef MXD_RELIABLE_H
#define MXD_RELIABLE_H

#include <stdint.h>

#include "partners/endpoint.h"

/* Takes a round-trip sample (ns). */
void mxd_rtt_sample(struct mxd_rtt *r, uint64_t ns);
/* The timeout a round-trip estimate implies, floored and capped by
 * MX_RTO_MIN_US / MX_RTO_MAX_MS. */
uint64_t mxd_rtt_rto(const struct mxd_rtt *r);
/* The same after 'backoff' consecutive expiries (doubling, capped). */
uint64_t mxd_rtt_backed_off(const struct mxd_rtt *r, uint32_t backoff);
/* The first timeout of a message (backoff 0), or of a block: two round
 * trips and the delayed ack, at least a quarter of MX_RTO_MIN_US, at most
 * the timeout.  Sent again this early, a message whose frames were lost
 * at the tail of a burst (nothing after it to make the receiver say what
 * is missing) costs a quarter of the timeout; one that was only slow
 * costs a duplicate, which the receiver answers with an ack at once. */
uint64_t mxd_rtt_probe(const struct mxd_rtt *r);
/* We asked p for an answer (retransmission, re-pull, probe): the first
 * unanswered one starts the clock of MX_PEER_TIMEOUT_MS. */
void mxd_probe_sent(struct mxd_partner *p, uint64_t now);
/* Sends p's oldest unacknowledged message again. */
void mxd_retransmit(struct mxd_partner *p, uint64_t now);
/* p's ACK 'ack' carried SACK 'bits' (bit i: message ack + 1 + i arrived):
 * the messages missing below the highest bit are sent again now, each at
 * most once a round trip; those sent too recently are left to the timer
 * pass, which calls again with 'fresh' 0 (p->a->sack_pending). */
void mxd_fast_retransmit(struct mxd_partner *p, uint32_t ack, uint64_t bits,
		int fresh);
/* p's ACK named the fragments it holds of messages it has in part
 * (MXD_F_FRAGS): they are not sent again, and those it shows lost (sent
 * before a frame held) are sent again now (not stamped yet, or no tx
 * room: at the next timer pass); the rest is the timer's. */
void mxd_frags_heard(struct mxd_partner *p, const struct mxd_pkt *pkt);
/* The timer pass's look again at what mxd_frags_heard left for later
 * (p->a->frags_pending). */
void mxd_frags_again(struct mxd_partner *p, uint64_t now);
/* A liveness probe: an ACK flagged PING, answered at once. */
void mxd_ping(struct mxd_partner *p, uint64_t now);
/* p's messages went to a port that lost them: move them to another port
 * (see reliable.c); 'tried': when the unanswered frame was sent. */
void mxd_reroute(struct mxd_partner *p, uint64_t now, uint64_t tried);
/* Port 'port' lost p's frames: striping and rerouting avoid it for 100 ms,
 * doubling with each failure in a row (up to 6.4 s). */
void mxd_port_suspect(struct mxd_partner *p, unsigned port, uint64_t now);
/* A message or ack of p came by another port than p's: p moved its
 * traffic there (its own port failed); follow it. */
void mxd_partner_follow(struct mxd_partner *p, unsigned port,
		const struct mxd_pkt *pkt);

#endif /* MXD_RELIABLE_H */
