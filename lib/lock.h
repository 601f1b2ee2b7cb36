/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library lock, taken only once more than one thread uses MX.
 *
 * Every API call is bracketed by mxd_enter()/mxd_leave().  The first
 * thread to call the library becomes its owner and runs without the lock:
 * entering makes 'owner_calls' odd and then loads 'threaded'.  The first
 * call from any other thread sets 'threaded', runs membarrier() (an
 * asymmetric fence, so the owner's fast path needs no fence), and waits
 * until the owner is out of its unlocked call ('owner_calls' even); from
 * then on every call takes the mutex.  An owner blocked in a long
 * unlocked call notices 'threaded' in mxd_poll_pause() and continues
 * under the lock.  Without membarrier the library is locked from the
 * start.  Nested calls (an unexpected handler or an error handler calling
 * MX) only count depth.
 *
 * A thread's mode, depth and whether it runs unlocked are one
 * thread-local word (mxd_tls_state), so that the owner's way in and out
 * is one compare of it; and 'owner_calls', written only by the owner,
 * both says that it is in an unlocked call (odd) and counts its calls.
 *
 * The progression thread (progress.c) borrows the library only while no
 * application thread is in it, and only for a moment: under the mutex it
 * sets the BORROWED bit of 'threaded', fences with membarrier(), and
 * steps aside if the owner is in a call; the owner's next call sees the
 * bit and waits on the mutex.  The bit is cleared when the thread gives
 * the library back, so the owner's calls run unlocked again.
 * mxd_lock_calls() counts entries, which tells the thread the
 * application is active.
 */
#ifndef MXD_LOCK_H
#define MXD_LOCK_H

/* Bits of mxd_lockstate.threaded: either makes every call take the mutex. */
#define MXD_LK_THREADED	1	/* several application threads (sticky) */
#define MXD_LK_BORROWED	2	/* the progression thread holds the library */

struct mxd_lockstate {
	volatile int threaded;		/* MXD_LK_* */
	volatile unsigned owner_calls;	/* odd: the owner is in an unlocked
					 * call; written by the owner only */
	int has_owner;
	volatile unsigned calls;	/* other calls entered (a racy count:
					 * only its changes matter) */
};

extern struct mxd_lockstate mxd_lockstate;

/* mxd_tls_state: a thread's mode, whether it is in an unlocked call (the
 * owner only), and its depth of calls in the low bits. */
#define MXD_TS_DEPTH	0xffff
#define MXD_TS_OWNER	0x10000		/* this thread owns the library */
#define MXD_TS_OTHER	0x20000		/* it does not (neither: no call yet) */
#define MXD_TS_UNLOCKED	0x40000		/* the owner, in an unlocked call */
/* Read on every call into MX.  initial-exec: the library is static, and
 * even inside a shared object that links it (MPICH's libmpi.so) these
 * four bytes then cost an offset from %fs, not a __tls_get_addr call. */
#define MXD_TLS __thread __attribute__((tls_model("initial-exec")))
extern MXD_TLS unsigned mxd_tls_state;

void mxd_enter_slow(void);
void mxd_leave_slow(void);

/* Owner's fast path, out of any call; returns 0 if it must take the lock
 * after all (mxd_tls_state is then back to the owner out of any call). */
static inline int
mxd_owner_try_unlocked(void)
{
	mxd_tls_state = MXD_TS_OWNER | MXD_TS_UNLOCKED | 1;
	mxd_lockstate.owner_calls++;		/* odd: in a call */
	__asm__ __volatile__("" ::: "memory");
	if (!mxd_lockstate.threaded)
		return 1;
	mxd_lockstate.owner_calls++;
	mxd_tls_state = MXD_TS_OWNER;
	return 0;
}

static inline void
mxd_enter(void)
{
	if (mxd_tls_state == MXD_TS_OWNER && mxd_owner_try_unlocked())
		return;
	mxd_enter_slow();
}

static inline void
mxd_leave(void)
{
	if (mxd_tls_state == (MXD_TS_OWNER | MXD_TS_UNLOCKED | 1)) {
		mxd_tls_state = MXD_TS_OWNER;
		__asm__ __volatile__("" ::: "memory");
		mxd_lockstate.owner_calls++;	/* even: out */
		return;
	}
	mxd_leave_slow();
}

/* Calls entered so far (a racy count: only its changes matter). */
static inline unsigned
mxd_lock_calls(void)
{
	return mxd_lockstate.calls + mxd_lockstate.owner_calls;
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
