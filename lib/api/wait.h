/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking waits (API layer): the only place the library waits.  See
 * wait.c.
 */
#ifndef MXD_WAIT_H
#define MXD_WAIT_H

#include <stdint.h>

#include "myriexpress.h"
#include "partners/endpoint.h"

/* Runs progress until done(arg) or timeout_ms (MX_INFINITE: none) passes;
 * spins first, then sleeps between polls.  Returns 1 if done, 0 on
 * timeout or mx_wakeup, or without waiting (unless done(arg) at once):
 *   -MX_BUSY          called from an unexpected handler (no pass runs
 *                     while one is in progress: it would wait for ever);
 *   -MX_BAD_ENDPOINT  ep is being closed by another thread.  ep is still
 *                     allocated until this call leaves the library, but
 *                     nothing of it may be used after: not even
 *                     mxd_error(ep) (see mxd_close_wait). */
int mxd_poll_until(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms);

/*
 * mx_close_endpoint under threads blocked on the endpoint.
 * A blocking call counts itself in as a waiter on its endpoint; the
 * closing thread marks the endpoint (mxd_close_mark), which wakes every
 * waiter, lingers in mxd_close_linger (which the mark does not end), and
 * frees the endpoint only after mxd_close_wait, once no other thread is
 * inside a call on it.  The waiters return MX_BAD_ENDPOINT without the
 * error handler (mxd_wait_failed).
 */
/* 0, -MX_BAD_ENDPOINT if another thread closes ep already, or
 * -MX_CLOSE_IN_HANDLER if threads wait on ep and this call is nested in
 * another (it could not let them out). */
int mxd_close_mark(struct mx_endpoint *ep);
/* mxd_poll_until for the closing thread's own wait. */
int mxd_close_linger(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms);
/* Lets the other threads in until none waits on ep; forgets the mark. */
void mxd_close_wait(struct mx_endpoint *ep);
/* Whether ep is marked: a call that waited returns MX_BAD_ENDPOINT. */
int mxd_ep_closing(const struct mx_endpoint *ep);
/* Threads in a blocking call on ep (tests). */
unsigned mxd_ep_waiters(const struct mx_endpoint *ep);
/* What a blocking call returns when mxd_poll_until (or mxd_connect_wait)
 * failed with ret: MX_BAD_ENDPOINT with *result 0 and no error handler
 * (closed under it), else ret through the error handler (in a handler). */
mx_return_t mxd_wait_failed(struct mx_endpoint *ep, int ret, uint32_t *result,
		const char *fn);
/* Connects ep to (nic, remote_ep) and waits (timeout_ms: MX_INFINITE
 * waits for ever) until answered, timed out or mx_wakeup (-MX_TIMEOUT);
 * 0 with *out set, or a negated code (-MX_BUSY, -MX_BAD_ENDPOINT: as
 * mxd_poll_until). */
int mxd_connect_wait(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep,
		uint32_t filter, uint32_t timeout_ms, struct mxd_partner **out);
/* The partner of ep an address names, connecting first when it names an
 * endpoint of ep's own board that ep has not talked to; NULL if none. */
struct mxd_partner *mxd_addr_partner_wait(struct mx_endpoint *ep,
		const mx_endpoint_addr_t *a);
/* The same, inline for the usual case of a send: an address this
 * endpoint made, of a partner that is connected. */
static inline struct mxd_partner *
mxd_addr_partner_now(struct mx_endpoint *ep, const mx_endpoint_addr_t *a)
{
	uint32_t idx = (uint32_t)(a->stuff[1] & 0xffff);

	if ((uint32_t)(a->stuff[1] >> 32) == ep->session &&
			idx - 1 < ep->npartners) {
		struct mxd_partner *p = ep->partners[idx - 1];

		if (p->state != MXD_PS_NEW && p->state != MXD_PS_CLOSED)
			return p;
	}
	return mxd_addr_partner_wait(ep, a);
}
/* Resolves a board name, querying the wire for up to ms milliseconds. */
int mxd_naming_resolve(const char *name, uint32_t ms, uint64_t *nic_id);

#endif /* MXD_WAIT_H */
