/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking waits: the only place the library waits.  A blocking call
 * runs progress passes; once nothing has arrived for MX_SPIN_US it sleeps
 * a little between passes so that an idle process leaves the CPU (a long
 * transfer keeps it polling); it gives up at its timeout or when
 * mx_wakeup() bumps the endpoint's generation.  Between passes, other
 * threads get the library lock (lock.h).
 *
 * Sharing a CPU.  Two processes that talk over memif on one host may end
 * up on one CPU: a process waking from a sleep (a program pausing between
 * phases) is put on whichever CPU is idle at that moment, which is its
 * peer's when the peer is napping in a wait and another program holds
 * the other CPU, and the kernel leaves them there while that program
 * runs.  A wait that only polls then keeps the CPU its peer needs in order
 * to answer, until MX_SPIN_US ends in a nap: every message costs a
 * millisecond (tests/integration/myri_pingpong.sh shows it).
 * That has a sign: what the wait waited for comes in its first nap after
 * a whole spin on the CPU, the only time the peer could run (a wait that
 * was preempted meanwhile shares its CPU with some other program, to which
 * yielding would only lose time).  From then on the wait gives the CPU up
 * (sched_yield) after each idle pass, and the peer answers within
 * microseconds.  Each yield learns from the kernel whether it let another
 * task run (an involuntary switch); the wait polls plainly again when
 *   - an answer came after a yield that let nothing run: the sender runs
 *     on another CPU, and yielding only delays us (about 2 us a yield);
 *   - answers came after long yields several times in a row: another
 *     program keeps the CPU for its time slice whenever we yield (one such
 *     yield may just be the kernel catching up with a peer that ran less);
 *   - many yields in a row let nothing run: no peer is busy on this CPU.
 *
 * A wait cannot run where no pass runs: inside a pass, in an unexpected
 * handler, it would wait for ever (MX_INFINITE) or for nothing, so it
 * looks once and fails.  And a wait lets other threads in, one of which
 * may close its endpoint: each wait counts itself in on its endpoint, the
 * close ends the waits and frees the endpoint once they are out (below,
 * "Closing under waiters").
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/resource.h>

#include "util/clock.h"
#include "util/config.h"
#include "partners/naming.h"
#include "engine/connect.h"
#include "progress/progress.h"
#include "api/error.h"
#include "api/wait.h"

/* Passes between clock reads while polling: a read costs about 25 ns
 * through the vDSO on this VM's kvm-clock, and a stream's receiver read it
 * on every pass (22% of its time). */
#define CLOCK_PASSES	8

/* Between two looks at the clock while polling (8 passes of microseconds)
 * this long: the wait was off the CPU, preempted. */
#define OFF_CPU_NS	200000u
/* A yield this long gave the CPU to a program that keeps it for its time
 * slice, or to a peer the kernel let run longer to even out their shares;
 * a peer that answers yields back within microseconds. */
#define LONG_YIELD_NS	500000u
#define LONG_ANSWERS	4	/* in a row after long yields: not a peer */
#define FREE_YIELDS	1024u	/* in a row that let nothing run */

/* Whether the CPU is shared: only the owner thread, which runs unlocked,
 * uses these (a library used by several threads already yields between
 * passes, in mxd_poll_pause). */
static struct {
	int on;			/* yield between idle passes */
	int switched;		/* the last yield let another task run */
	int was_long;		/* the last yield lasted LONG_YIELD_NS */
	uint32_t free;		/* yields in a row that let nothing run */
	uint32_t longs;		/* answers in a row after long yields */
	long switches;		/* involuntary switches after the last yield */
} share;

static long
involuntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

static void
cpu_shared(struct mx_endpoint *ep)
{
	if (mxd_threaded())
		return;
	mxd_count(ep->board, MXD_C_CPU_SHARED);
	if (!share.on)
		share.switches = involuntary_switches();
	share.on = 1;
	share.free = 0;
	share.longs = 0;
}

/* Gives the CPU up once, and learns whether another task took it. */
static void
yield_cpu(struct mx_endpoint *ep)
{
	uint64_t t = mxd_now_ns();
	long n;

	sched_yield();
	share.was_long = mxd_now_ns() - t >= LONG_YIELD_NS;
	n = involuntary_switches();
	share.switched = n != share.switches;
	share.switches = n;
	mxd_count(ep->board, MXD_C_CPU_YIELDS);
	if (share.switched)
		share.free = 0;
	else if (++share.free == FREE_YIELDS)
		share.on = 0;
}

/* Something came in the pass after a yield. */
static void
answered(void)
{
	if (!share.switched)
		share.on = 0;		/* its sender runs on another CPU */
	else if (!share.was_long)
		share.longs = 0;	/* a peer here answered at once */
	else if (++share.longs == LONG_ANSWERS)
		share.on = 0;		/* another program takes the CPU */
}

/* Between two passes of a wait: lets other threads in (mxd_poll_pause),
 * and other processes when the CPU is shared and nothing came; returns 1
 * if it yielded. */
static int
pause_pass(struct mx_endpoint *ep, int nap, unsigned work)
{
	int yield = !nap && !work && share.on && !mxd_threaded();

	if (yield)
		yield_cpu(ep);
	mxd_poll_pause(nap);
	return yield;
}

static int
poll_passes(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms)
{
	uint64_t start = mxd_now_ns(), now, busy = start, seen = start;
	uint64_t spin = (uint64_t)mxd_conf.spin_us * 1000u;
	uint64_t limit = (uint64_t)timeout_ms * 1000000u;
	const uint32_t *wgen = &mxd_ep_slot(ep)->wakeup_gen;
	uint32_t gen = __atomic_load_n(wgen, __ATOMIC_ACQUIRE);
	unsigned passes = 0, worked = 0, naps = 0;
	int nap = 0, yielded = 0, preempted = 0;

	for (;;) {
		unsigned work = mxd_progress(ep);

		if (work) {
			/* It came in the first nap after a whole spin on the
			 * CPU: the sender could run only then. */
			if (naps == 1 && !preempted)
				cpu_shared(ep);
			else if (yielded)
				answered();
			naps = 0;
			nap = 0;	/* traffic: keep polling */
			preempted = 0;
		}
		if (done(arg))
			return 1;
		if (__atomic_load_n(wgen, __ATOMIC_ACQUIRE) != gen)
			return 0;	/* mx_wakeup */
		worked |= work;
		if (limit == 0 || ++passes == CLOCK_PASSES) {
			passes = 0;
			now = mxd_now_ns();
			if (timeout_ms != MX_INFINITE && now - start >= limit)
				return 0;
			if (!nap && !share.on && now - seen >= OFF_CPU_NS)
				preempted = 1;
			if (worked)
				busy = now;
			worked = 0;
			nap = now - busy >= spin;
			seen = now;
		}
		/* Let other threads in; idle past the spin, sleep a little. */
		naps += (unsigned)nap;
		yielded = pause_pass(ep, nap, work);
	}
}

/*
 * Closing under waiters.  Threads in a blocking call on each endpoint,
 * and whether a close has begun, are kept in its slot (board.h); read
 * and written under the library lock, as the endpoint is.  A wait ends
 * at the close's wakeup (its generation), so its loop looks at nothing
 * more; one that begins after the mark fails at once.  The closing
 * thread frees the endpoint only when the count is 0, under the lock,
 * which every waiter holds from its last look until it leaves the
 * library: a waiter may still use the endpoint on its way out (a connect
 * abandons its request), never after.
 */

int
mxd_poll_until(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms)
{
	struct mxd_ep_slot *w = mxd_ep_slot(ep);
	int ret;

	/* No pass runs until the handler returns: look once. */
	if (mxd_in_pass())
		return done(arg) ? 1 : -MX_BUSY;
	if (w->closing)
		return done(arg) ? 1 : -MX_BAD_ENDPOINT;
	w->waiters++;
	ret = poll_passes(ep, done, arg, timeout_ms);
	w->waiters--;
	if (ret == 0 && w->closing)
		return -MX_BAD_ENDPOINT;	/* the close's wakeup */
	return ret;
}

int
mxd_close_mark(struct mx_endpoint *ep)
{
	struct mxd_ep_slot *w = mxd_ep_slot(ep);

	if (w->closing)
		return -MX_BAD_ENDPOINT;
	/* Nested (an error handler closing): the lock stays ours until the
	 * outer call ends, so the waiters could never leave. */
	if (w->waiters != 0 && mxd_call_depth() > 1)
		return -MX_CLOSE_IN_HANDLER;
	w->closing = 1;
	__atomic_add_fetch(&w->wakeup_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

int
mxd_close_linger(struct mx_endpoint *ep, int (*done)(void *), void *arg,
		uint32_t timeout_ms)
{
	return poll_passes(ep, done, arg, timeout_ms);
}

void
mxd_close_wait(struct mx_endpoint *ep)
{
	struct mxd_ep_slot *w = mxd_ep_slot(ep);

	while (w->waiters != 0)
		mxd_poll_pause(1);
	w->closing = 0;		/* the slot's next endpoint starts afresh */
}

int
mxd_ep_closing(const struct mx_endpoint *ep)
{
	return mxd_ep_slot(ep)->closing;
}

unsigned
mxd_ep_waiters(const struct mx_endpoint *ep)
{
	return mxd_ep_slot(ep)->waiters;
}

/*
 * A blocking call whose wait failed (mxd_poll_until < 0).  From an
 * unexpected handler it is the program's mistake, reported through the
 * error handler like any other.  Ended by mx_close_endpoint in another
 * thread, the call was valid when it began, and a program may close an
 * endpoint on purpose to release its blocked threads, as mx_wakeup does;
 * the error handler would make that fatal by default
 * (MX_ERRORS_ARE_FATAL), and the endpoint's own handler goes with the
 * endpoint.  So MX_BAD_ENDPOINT is returned, not reported, and *result
 * (if any) is 0: a program that leaves errors to the fatal handler and
 * does not look at return codes reads a wait that ended with nothing, as
 * after mx_wakeup.
 */
mx_return_t
mxd_wait_failed(struct mx_endpoint *ep, int ret, uint32_t *result,
		const char *fn)
{
	if (ret == -MX_BAD_ENDPOINT) {
		if (result != NULL)
			*result = 0;
		return MX_BAD_ENDPOINT;
	}
	return mxd_error(ep, (mx_return_t)-ret, "%s: called from an "
			"unexpected handler, where no progress is made: it "
			"cannot wait", fn);
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
	int ret, waited = 1;

	if (r == NULL)
		return -MX_NO_RESOURCES;
	ret = mxd_connect_start(r, nic, remote_ep, filter, timeout_ms);
	mxd_board_flush(ep->board);
	/* Bounded by r's deadline (none for MX_INFINITE), mx_wakeup and a
	 * close; fails at once in a handler. */
	if (ret == 0)
		waited = mxd_poll_until(ep, req_complete, r, MX_INFINITE);
	if (waited <= 0) {
		mxd_connect_abandon(r);
		mxd_req_put(r);
		return waited < 0 ? waited : -MX_TIMEOUT;
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
		/* In a handler no pass would send the query or take the
		 * answer: only names known already. */
		if (now >= end || mxd_in_pass())
			return -MX_HOST_NOT_FOUND;
		if (now >= next) {
			mxd_naming_query(name);
			next = now + 50 * 1000000ull;
		}
		mxd_progress_any();	/* sends the query too */
		mxd_poll_pause(0);
	}
}
