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
 *
 * The shared words are read and written with __atomic builtins (but the
 * owner's bump on x86: one add to memory, whole to every reader, which
 * is what the builtins' release store comes to there): no access is a
 * data race.  The owner's bump of 'owner_calls' is a release store and
 * its look at 'threaded' an acquire load (each a plain access on x86),
 * so that what one side wrote in its call is
 * seen by the other after it; membarrier() orders the owner's store
 * before its load.  ThreadSanitizer cannot see membarrier(), so a TSan
 * build (MXD_TSAN) orders the owner's side itself: its bump is a seq_cst
 * read-modify-write and its look a seq_cst load, the same Dekker pair
 * without the asymmetric fence, which TSan models.  Only the sanitizer
 * build pays for it.
 */
#ifndef MXD_LOCK_H
#define MXD_LOCK_H

/* Bits of mxd_lockstate.threaded: either makes every call take the mutex. */
#define MXD_LK_THREADED	1	/* several application threads (sticky) */
#define MXD_LK_BORROWED	2	/* the progression thread holds the library */

struct mxd_lockstate {
	int threaded;			/* MXD_LK_* */
	unsigned owner_calls;		/* odd: the owner is in an unlocked
					 * call; written by the owner only */
	int has_owner;			/* under the transition mutex */
	unsigned calls;			/* other calls entered (a racy count:
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

#if defined(__SANITIZE_THREAD__)
#define MXD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MXD_TSAN 1
#endif
#endif

/*
 * The owner's bump of 'owner_calls' (odd: into an unlocked call; even:
 * out of it), and its look at 'threaded' (after the bump into a call).
 * Normally membarrier() on the other side orders the two: a compiler
 * barrier between them is enough (mxd_owner_try_unlocked).
 */
static inline void
mxd_owner_bump(void)
{
#ifdef MXD_TSAN
	__atomic_fetch_add(&mxd_lockstate.owner_calls, 1, __ATOMIC_SEQ_CST);
#elif defined(__x86_64__) || defined(__i386__)
	/* The same release store as below in one instruction (an add to
	 * memory, not locked: the owner alone writes the word, and an
	 * aligned store is whole to its readers; x86 orders every store
	 * after those before it), where the builtins' load, add and store
	 * take three.  The clobber keeps the compiler's accesses on their
	 * side of it, as the release does. */
	__asm__ __volatile__("addl $1, %0" : "+m" (mxd_lockstate.owner_calls)
			: : "memory");
#else
	__atomic_store_n(&mxd_lockstate.owner_calls, __atomic_load_n(
			&mxd_lockstate.owner_calls, __ATOMIC_RELAXED) + 1,
			__ATOMIC_RELEASE);
#endif
}

/* The MXD_LK_* bits; nonzero: take the mutex. */
static inline int
mxd_lock_bits(void)
{
#ifdef MXD_TSAN
	return __atomic_load_n(&mxd_lockstate.threaded, __ATOMIC_SEQ_CST);
#else
	return __atomic_load_n(&mxd_lockstate.threaded, __ATOMIC_ACQUIRE);
#endif
}

/* Whether the owner is in an unlocked call: once it is out, what it
 * wrote in the call is seen (seq_cst: the other half of the TSan build's
 * Dekker pair; a plain mov on x86 all the same). */
static inline int
mxd_owner_in_call(void)
{
	return __atomic_load_n(&mxd_lockstate.owner_calls, __ATOMIC_SEQ_CST)
		& 1;
}

/* Owner's fast path, out of any call; returns 0 if it must take the lock
 * after all (mxd_tls_state is then back to the owner out of any call). */
static inline int
mxd_owner_try_unlocked(void)
{
	mxd_tls_state = MXD_TS_OWNER | MXD_TS_UNLOCKED | 1;
	mxd_owner_bump();			/* odd: in a call */
	__asm__ __volatile__("" ::: "memory");	/* then look */
	if (!mxd_lock_bits())
		return 1;
	mxd_owner_bump();
	mxd_tls_state = MXD_TS_OWNER;
	return 0;
}

/* The hint keeps the owner's way in inline, on the fall-through path
 * (without it gcc 12 moves it out of line: 2 more instructions a send). */
static inline void
mxd_enter(void)
{
	if (__builtin_expect(mxd_tls_state == MXD_TS_OWNER, 1) &&
			mxd_owner_try_unlocked())
		return;
	mxd_enter_slow();
}

/*
 * The owner's way into a call whose common case calls nothing (mx_test
 * of a request done): 1 if in, unlocked, as mxd_enter's fast path; 0 if
 * the call must take the general way (MXD_ENTRY's).  Out by mxd_leave,
 * or mxd_leave_owner if nothing was called since.
 */
static inline int
mxd_enter_owner(void)
{
	return __builtin_expect(mxd_tls_state == MXD_TS_OWNER, 1) &&
		mxd_owner_try_unlocked();
}

static inline void
mxd_leave_owner(void)
{
	mxd_tls_state = MXD_TS_OWNER;
	mxd_owner_bump();
}

static inline void
mxd_leave(void)
{
	if (mxd_tls_state == (MXD_TS_OWNER | MXD_TS_UNLOCKED | 1)) {
		mxd_tls_state = MXD_TS_OWNER;
		mxd_owner_bump();		/* even: out */
		return;
	}
	mxd_leave_slow();
}

/* Calls entered so far (a racy count: only its changes matter). */
static inline unsigned
mxd_lock_calls(void)
{
	return __atomic_load_n(&mxd_lockstate.calls, __ATOMIC_RELAXED) +
		__atomic_load_n(&mxd_lockstate.owner_calls, __ATOMIC_RELAXED);
}

/* This thread's depth of calls into MX: 0 outside, 1 in a call, more in
 * a call made from a handler (mxd_poll_pause lets nobody in then). */
static inline unsigned
mxd_call_depth(void)
{
	return mxd_tls_state & MXD_TS_DEPTH;
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
	return mxd_lock_bits() & MXD_LK_THREADED;
}

#endif /* MXD_LOCK_H */
