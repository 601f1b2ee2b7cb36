/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking waits: the only place the library waits.  A blocking call
 * runs progress passes; once nothing has arrived for MX_SPIN_US it sleeps
 * a little between passes so that an idle process leaves the CPU (a long
 * transfer keeps it polling); it gives up at its timeout or when
 * mx_wakeup() bumps the endpoint's generation.  Between passes, other
 * threads get the library lock (lock.h).
 */
#include "api.h"
#include "clock.h"
#include "config.h"
#include "connect.h"
#include "naming.h"
#include "progress.h"

/* Passes between clock reads while polling: a read costs about 25 ns
 * through the vDSO on this VM's kvm-clock, and a stream's receiver read it
 * on every pass (22% of its time). */
#define CLOCK_PASSES	8

int
mxd_poll_until(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms)
{
	uint64_t start = mxd_now_ns(), now, busy = start;
	uint64_t spin = (uint64_t)mxd_conf.spin_us * 1000u;
	uint64_t limit = (uint64_t)timeout_ms * 1000000u;
	uint32_t gen = __atomic_load_n(&ep->wakeup_gen, __ATOMIC_ACQUIRE);
	unsigned passes = 0, worked = 0;
	int nap = 0;

	for (;;) {
		unsigned work = mxd_progress(ep);

		if (done(arg))
			return 1;
		if (__atomic_load_n(&ep->wakeup_gen, __ATOMIC_ACQUIRE) != gen)
			return 0;	/* mx_wakeup */
		worked |= work;
		if (work)
			nap = 0;	/* traffic: keep polling */
		if (limit == 0 || ++passes == CLOCK_PASSES) {
			passes = 0;
			now = mxd_now_ns();
			if (timeout_ms != MX_INFINITE && now - start >= limit)
				return 0;
			if (worked)
				busy = now;
			worked = 0;
			nap = now - busy >= spin;
		}
		/* Let other threads in; idle past the spin, sleep a little. */
		mxd_poll_pause(nap);
	}
}

static int
req_complete(void *arg)
{
	return ((struct mx_request *)arg)->state == MXD_RS_COMPLETE;
}

int
mxd_connect_wait(struct mx_endpoint *ep, uint64_t nic, uint32_t remote_ep,
		uint32_t filter, uint32_t timeout_ms, struct mxd_partner **out)
{
	struct mx_request *r = mxd_ep_req(ep, MXD_REQ_CONNECT, NULL);
	mx_status_code_t code;
	struct mxd_partner *p;
	int ret;

	if (r == NULL)
		return -MX_NO_RESOURCES;
	ret = mxd_connect_start(r, nic, remote_ep, filter, timeout_ms);
	mxd_board_flush(ep->board);
	/* Bounded by r's deadline (none for MX_INFINITE) and mx_wakeup. */
	if (ret == 0 && !mxd_poll_until(ep, req_complete, r, MX_INFINITE)) {
		mxd_connect_abandon(r);
		mxd_req_put(r);
		return -MX_TIMEOUT;
	}
	code = r->status.code;
	p = r->partner;
	mxd_req_put(r);
	if (ret < 0)
		return ret;
	switch (code) {
	case MX_STATUS_SUCCESS:
		*out = p;
		return 0;
	case MX_STATUS_ENDPOINT_CLOSED:
		return -MX_CONNECTION_FAILED;
	case MX_STATUS_BAD_KEY:
		return -MX_BAD_CONNECTION_KEY;
	case MX_STATUS_TIMEOUT:
		return mxd_naming_by_nic(nic) == NULL ?
			-MX_NIC_NOT_FOUND : -MX_TIMEOUT;
	default:
		return -MX_NO_RESOURCES;
	}
}

struct mxd_partner *
mxd_addr_partner_wait(struct mx_endpoint *ep, const mx_endpoint_addr_t *a)
{
	struct mxd_partner *p = mxd_addr_partner(ep, a);
	uint64_t nic = a->stuff[0] & 0xffffffffffffull;
	uint32_t rep = (uint32_t)(a->stuff[0] >> 48);
	struct mx_endpoint *peer;

	if (p != NULL && p->state != MXD_PS_NEW && p->state != MXD_PS_CLOSED)
		return p;
	/* Our own board (our own address included): connect by loopback. */
	peer = nic == ep->board->nic_id ? mxd_ep_of(ep->board, rep) : NULL;
	if (peer != NULL && mxd_connect_wait(ep, nic, rep, peer->filter, 1000,
				&p) == 0)
		return p;
	return NULL;
}

int
mxd_naming_resolve(const char *name, uint32_t ms, uint64_t *nic)
{
	uint64_t end = mxd_now_ns() + (uint64_t)ms * 1000000;
	uint64_t next = 0;

	for (;;) {
		const struct mxd_peer *p = mxd_naming_by_name(name);
		uint64_t now = mxd_now_ns();

		if (p != NULL) {
			*nic = p->nic_id;
			return 0;
		}
		if (now >= end)
			return -MX_HOST_NOT_FOUND;
		if (now >= next) {
			mxd_naming_query(name);
			next = now + 50 * 1000000ull;
		}
		mxd_progress_any();	/* sends the query too */
		mxd_poll_pause(0);
	}
}
