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
 *
 * The progression thread (progress.c) borrows the library only while no
 * application thread is in it, and only for a moment: under the mutex it
 * sets the BORROWED bit of 'threaded', fences with membarrier(), and
 * steps aside if the owner is in a call; the owner's next call sees the
 * bit and waits on the mutex.  The bit is cleared when the thread gives
 * the library back, so the owner's calls run unlocked again.  'calls'
 * counts entries, which tells the thread the application is active.
 */
#ifndef MXD_LOCK_H
#define MXD_LOCK_H

/* Bits of mxd_lockstate.threaded: either makes every call take the mutex. */
#define MXD_LK_THREADED	1	/* several application threads (sticky) */
#define MXD_LK_BORROWED	2	/* the progression thread holds the library */

struct mxd_lockstate {
	volatile int threaded;		/* MXD_LK_* */
	volatile int owner_in_call;	/* the owner is in an unlocked call */
	int has_owner;
	volatile unsigned calls;	/* calls entered (a racy count: only
					 * its changes matter) */
};

extern struct mxd_lockstate mxd_lockstate;

enum { MXD_MODE_NONE, MXD_MODE_OWNER, MXD_MODE_OTHER };
/* Read on every call into MX.  initial-exec: the library is static, and
 * even inside a shared object that links it (MPICH's libmpi.so) these
 * eight bytes then cost an offset from %fs, not a __tls_get_addr call. */
#define MXD_TLS __thread __attribute__((tls_model("initial-exec")))
extern MXD_TLS int mxd_tls_mode;
extern MXD_TLS int mxd_tls_depth;

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
	mxd_lockstate.calls++;
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
 * The progression thread's way in: returns 1 with the library held (as a
 * call of depth 1, so that handlers may call MX), 0 when an application
 * thread is in an unlocked call.  mxd_give_back() ends the borrow.
 */
int mxd_borrow(void);
void mxd_give_back(void);

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
	return mxd_lockstate.threaded & MXD_LK_THREADED;
}

#endif /* MXD_LOCK_H */
