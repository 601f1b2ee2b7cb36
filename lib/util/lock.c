/* SPDX-License-Identifier: BSD-3-Clause */
/* The library lock: see lock.h. */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/lock.h"

#define NAP_NS	50000

struct mxd_lockstate mxd_lockstate;
MXD_TLS unsigned mxd_tls_state;

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t transition = PTHREAD_MUTEX_INITIALIZER;
static int fence_ok = -1;	/* membarrier registered: 1; unusable: 0 */

static long
membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

static void
set_bits(int bits)
{
	__atomic_fetch_or(&mxd_lockstate.threaded, bits, __ATOMIC_SEQ_CST);
}

/* This thread's first call: become the owner, or make the library
 * threaded once the owner is out of its unlocked call. */
static void
first_call(void)
{
	pthread_mutex_lock(&transition);
	if (fence_ok < 0)
		fence_ok = membarrier(
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
	if (!fence_ok)
		set_bits(MXD_LK_THREADED);
	if (!mxd_threaded() && !mxd_lockstate.has_owner) {
		mxd_lockstate.has_owner = 1;
		mxd_tls_state = MXD_TS_OWNER;
	} else {
		mxd_tls_state = MXD_TS_OTHER;
		if (!mxd_threaded()) {
			set_bits(MXD_LK_THREADED);
			membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
			while (mxd_owner_in_call())
				sched_yield();
		}
	}
	pthread_mutex_unlock(&transition);
}

/* Every way in but the owner's unlocked one: a nested call, a first
 * call, a call under the mutex. */
void
mxd_enter_slow(void)
{
	if ((mxd_tls_state & MXD_TS_DEPTH) != 0) {
		mxd_tls_state++;	/* nested: keeps what it has */
		return;
	}
	if (mxd_tls_state == 0) {
		first_call();
		if (mxd_tls_state == MXD_TS_OWNER && mxd_owner_try_unlocked())
			return;
	}
	mxd_tls_state |= 1;
	/* Load and store, not an atomic add: a lost count still changes. */
	__atomic_store_n(&mxd_lockstate.calls, __atomic_load_n(
			&mxd_lockstate.calls, __ATOMIC_RELAXED) + 1,
			__ATOMIC_RELAXED);
	pthread_mutex_lock(&big);
}

void
mxd_leave_slow(void)
{
	if ((mxd_tls_state & MXD_TS_DEPTH) != 1) {
		mxd_tls_state--;	/* nested */
		return;
	}
	mxd_tls_state &= ~MXD_TS_DEPTH;
	if (mxd_tls_state & MXD_TS_UNLOCKED) {	/* not reached: mxd_leave */
		mxd_tls_state &= ~MXD_TS_UNLOCKED;
		mxd_owner_bump();
		return;
	}
	pthread_mutex_unlock(&big);
}

void
mxd_poll_pause(int sleep)
{
	struct timespec nap = { 0, NAP_NS };
	unsigned depth = mxd_tls_state & MXD_TS_DEPTH;

	if (mxd_tls_state & MXD_TS_UNLOCKED) {
		if (mxd_threaded() && depth == 1) {
			/* Another thread arrived: go on under the lock. */
			mxd_tls_state &= ~MXD_TS_UNLOCKED;
			mxd_owner_bump();	/* even: out */
			pthread_mutex_lock(&big);
		} else if (sleep) {
			nanosleep(&nap, NULL);
		}
		return;
	}
	if (depth != 1) {	/* a nested call keeps the lock */
		if (sleep)
			nanosleep(&nap, NULL);
		return;
	}
	pthread_mutex_unlock(&big);
	if (sleep)
		nanosleep(&nap, NULL);
	else
		sched_yield();
	pthread_mutex_lock(&big);
}

int
mxd_borrow(void)
{
	if (mxd_owner_in_call())
		return 0;		/* cheap look first: no fence */
	pthread_mutex_lock(&big);
	if (!mxd_threaded()) {
		/* The owner runs unlocked: make its next call wait, and
		 * fence so that it sees the bit or we see it in a call. */
		set_bits(MXD_LK_BORROWED);
		membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
		if (mxd_owner_in_call()) {
			__atomic_fetch_and(&mxd_lockstate.threaded,
					~MXD_LK_BORROWED, __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&big);
			return 0;
		}
	}
	mxd_tls_state = MXD_TS_OTHER | 1;
	return 1;
}

void
mxd_give_back(void)
{
	mxd_tls_state = MXD_TS_OTHER;
	__atomic_fetch_and(&mxd_lockstate.threaded, ~MXD_LK_BORROWED,
			__ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&big);
}
