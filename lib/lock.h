/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library lock, taken only once more than one thread uses MX.
 *
 * Every API call is bracketed by mxd_enter()/mxd_leave().  The first
 * thread to call the library becomes its owner and runs without the lock:
 * entering stores 'owner_in_call' and then loads 'threaded'.  The first
 * call from any other thread sets 'threaded', runs membarrier() (an
 * asymmetric fence, so the owner's fast path needs no fence), and waits
 * until the owner is out of its unlocked call; from then on every call
 * takes the mutex.  An owner blocked in a long unlocked call notices
 * 'threaded' in mxd_poll_pause() and continues under the lock.  Without
 * membarrier the library is locked from the start.  Nested calls (an
 * unexpected handler or an error handler calling MX) only count depth.
 */
#ifndef MXD_LOCK_H
#define MXD_LOCK_H

struct mxd_lockstate {
	volatile int threaded;		/* every call takes the mutex */
	volatile int owner_in_call;	/* the owner is in an unlocked call */
	int has_owner;
};

extern struct mxd_lockstate mxd_lockstate;

enum { MXD_MODE_NONE, MXD_MODE_OWNER, MXD_MODE_OTHER };
extern __thread int mxd_tls_mode;
extern __thread int mxd_tls_depth;

void mxd_enter_slow(void);
void mxd_leave_slow(void);

/* Owner's fast path; returns 0 if it must take the lock after all. */
static inline int
mxd_owner_try_unlocked(void)
{
	mxd_lockstate.owner_in_call = 1;
	__asm__ __volatile__("" ::: "memory");
	if (!mxd_lockstate.threaded)
		return 1;
	mxd_lockstate.owner_in_call = 0;
	return 0;
}

static inline void
mxd_enter(void)
{
	if (mxd_tls_depth++ != 0)
		return;
	if (mxd_tls_mode == MXD_MODE_OWNER && mxd_owner_try_unlocked())
		return;
	mxd_enter_slow();
}

static inline void
mxd_leave(void)
{
	if (--mxd_tls_depth != 0)
		return;
	if (mxd_tls_mode == MXD_MODE_OWNER && mxd_lockstate.owner_in_call) {
		__asm__ __volatile__("" ::: "memory");
		mxd_lockstate.owner_in_call = 0;
		return;
	}
	mxd_leave_slow();
}

/* Between two polls of a blocking call: lets other threads in. */
void mxd_poll_pause(int sleep);

/*
 * Defines the API function 'name' (declared in the public headers) as
 * 'impl' called under the library lock.
 */
#define MXD_ENTRY(name, impl, params, args)	\
	mx_return_t				\
	name params				\
	{					\
		mx_return_t rc;			\
						\
		mxd_enter();			\
		rc = impl args;			\
		mxd_leave();			\
		return rc;			\
	}

/* Whether several threads use the library. */
static inline int
mxd_threaded(void)
{
	return mxd_lockstate.threaded;
}

#endif /* MXD_LOCK_H */
