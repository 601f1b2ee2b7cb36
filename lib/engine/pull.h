/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large messages, the receiver's half (engine): pulling into a receive.
 * See pull.c; the sender's half is rndv.h.
 */
#ifndef MXD_PULL_H
#define MXD_PULL_H

#include <stdint.h>

#include "partners/endpoint.h"

/* One block of a large receive. */
struct mxd_pullblk {
	uint32_t off, len;
	uint64_t have;			/* frames received */
	uint8_t n, count;
	uint8_t asked;			/* its PULL went out */
	uint8_t port;			/* the port it was asked on */
	uint8_t tries;			/* times asked again */
	uint8_t tail;			/* last frame the last PULL asked */
	uint8_t stalls;			/* timeouts in a row with nothing
					 * arriving: the backoff */
	uint8_t n_asked;		/* n when last asked */
	uint8_t again;			/* its last PULL asked again (MXD_F_AGAIN:
					 * the sender serves those first) */
	uint8_t n_seen;			/* n at the pull timer's last look */
	uint32_t ask;			/* partner's ask number of its last PULL */
	uint64_t asked_at;		/* ns, last PULL for it */
	uint64_t moved_at;		/* ns, the timer last saw n grow */
};

/* A large receive being pulled. */
struct mxd_pull {
	struct mx_request *r;
	struct mxd_partner *p;
	uint32_t handle;		/* ours, in PULL and PULL_REP */
	uint32_t send_handle;
	uint32_t total;			/* bytes to pull */
	uint32_t next;			/* next offset to give a block */
	uint32_t got;
	uint16_t frag;
	uint32_t rr;			/* next port to ask on (striping) */
	uint8_t cold;			/* its buffer is out of cache: written
					 * around it (pull_cold) */
	struct mxd_pullblk blk[MXD_PULL_BLOCKS];
	struct mxd_list link;		/* ep->pulls_waiting */
	struct mxd_list plink;		/* its partner's pulls */
	struct mxd_pull *next_free;
};

/* Receive r took an RNDV message of p (descriptor desc): pull it; or,
 * 'fail' other than MX_STATUS_SUCCESS (its sender was lost since the
 * announcement: recv.c), fail r with it at once. */
void mxd_pull_start(struct mx_request *r, struct mxd_partner *p,
		const uint8_t *desc, mx_status_code_t fail);
/* Sends the PULLs that waited for room. */
void mxd_pulls_ask(struct mx_endpoint *ep);
/* Starts the pulls of receives that waited for a slot, as slots allow. */
void mxd_pulls_start_deferred(struct mx_endpoint *ep);
/* A pull reply that came in by 'port': its data placed (and, parsed lazily,
 * its check verified on the way).  Returns 1 taken, 0 dropped (counted),
 * -1 corrupt (counted). */
int mxd_pull_data(struct mxd_partner *p, unsigned port,
		const struct mxd_pkt *pkt);
/* Frees every pull of ep (on close). */
void mxd_pulls_release(struct mx_endpoint *ep);
/* Asks again for blocks of p's pulls whose replies are overdue. */
void mxd_pulls_timer(struct mxd_partner *p, uint64_t now);
/* Fails p's large receives with 'code'. */
void mxd_pulls_fail(struct mxd_partner *p, mx_status_code_t code);

#endif /* MXD_PULL_H */
