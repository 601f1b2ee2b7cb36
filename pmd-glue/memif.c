/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif: what a net_memif port needs beyond any other port.
 *
 * memif's rings and buffers are memory shared with the peer process, and
 * that one fact is behind everything here:
 *
 *  - the first lap: the shared memory is new at every link-up, so an EAL
 *    alarm prefaults it then, and the first burst waits for that rather
 *    than fault its pages in one at a time (memif_warm*);
 *  - the guard: the PMD unmaps a departed peer's memory under a burst in
 *    progress, so memif bursts run under a SIGSEGV/SIGBUS guard that
 *    ends such a burst instead of the process (on_fault, burst_cut,
 *    mxd_glue_guard_check);
 *  - the warming: the lines of the ring the next send or receive will
 *    touch were last written by the peer's core, so they are prefetched
 *    from the ring's known layout while the engine handles a frame
 *    (memif_slots_*);
 *  - the revival: a memif client does not reconnect by itself once its
 *    server went away (memif_revive).
 *
 * memif's bursts (memif_rx, memif_tx) wrap the common ones of port_priv.h
 * in all this; the rest of memif_ops is port.c's.  Also here: the checks
 * of memif's devargs and its role and socket, for setup.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <rte_alarm.h>
#include <rte_common.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_prefetch.h>

#include "glue.h"
#include "log.h"
#include "port_priv.h"

#define SLOTS_TRIES	64	/* sends that may look for the region */

/* ---- memif: arguments and roles --------------------------------------- */

static const char *const memif_keys[] = {
	"id", "role", "bsize", "rsize", "socket", "socket-abstract",
	"owner-uid", "owner-gid", "mac", "secret", "zero-copy",
};

/* A memif devarg the PMD would silently ignore is a typo: refuse it. */
int
mxd_glue_memif_check_args(uint16_t pid, const char *name)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;

	if (rte_eth_dev_info_get(pid, &info) != 0 ||
			(da = rte_dev_devargs(info.device)) == NULL ||
			da->args == NULL)
		return 0;
	for (const char *a = da->args; *a; a += strcspn(a, ","),
			a += *a == ',') {
		size_t kl = strcspn(a, "=,");
		unsigned k;

		for (k = 0; k < RTE_DIM(memif_keys); k++)
			if (strlen(memif_keys[k]) == kl &&
					!strncmp(a, memif_keys[k], kl))
				break;
		if (k == RTE_DIM(memif_keys)) {
			mxd_glue_set_error("port %u (%s): unknown memif "
					"argument \"%.*s\" in --vdev=%s,%s; "
					"memif takes id, role, bsize, rsize, "
					"socket, socket-abstract, owner-uid, "
					"owner-gid, mac, secret, zero-copy",
					pid, name, (int)kl, a, name, da->args);
			return -EINVAL;
		}
	}
	return 0;
}

int
mxd_glue_memif_is_server(uint16_t pid)
{
	char role[16];

	mxd_glue_devarg(pid, "role", role, sizeof(role));
	return !strcmp(role, "server") || !strcmp(role, "master");
}

void
mxd_glue_memif_socket(uint16_t pid, char *out, size_t len)
{
	if (!mxd_glue_devarg(pid, "socket", out, len))
		snprintf(out, len, "/run/memif.sock");
}

/* ---- memif: the first lap ---------------------------------------------- */

/*
 * Each time a memif link comes up its shared memory is new (the client
 * creates it, both sides map it): it is prefaulted at once (prefault.c),
 * from an EAL alarm, so in the interrupt thread where memif itself maps
 * and unmaps its regions -- none can go away under the prefault.  memif
 * raises no link-state event, so the alarm looks every WARM_DOWN_US
 * while a memif link is down and every WARM_UP_US while all are up (a
 * peer that restarts stays down far longer: its own start-up takes
 * hundreds of milliseconds).  The first burst on a link that is up but
 * not yet prefaulted sleeps until it is (at most WARM_WAIT_MS, once per
 * time the link comes up): traffic would otherwise fault the pages in
 * itself, and the prefault (11-17 ms per process here) would take the
 * CPU from the first round trips.
 */
#define WARM_DOWN_US	2000
#define WARM_UP_US	100000
#define WARM_WAIT_MS	250

enum { WARM_NOT, WARM_DONE, WARM_GAVE_UP };	/* port_priv.warm */

static void memif_slots_cands(struct port_priv *pp);

/* The ports, as setup.c made them (given once all are). */
static struct mxd_link *links;
static struct port_priv *privs;
static unsigned nb_links;

static void
memif_warm(void *arg)
{
	int up[MXD_GLUE_MAX_PORTS], down = 0, fresh = 0;

	for (unsigned i = 0; i < nb_links; i++) {
		up[i] = privs[i].memif && port_link_up(&links[i]);
		if (privs[i].memif && !up[i]) {
			if (privs[i].warm != WARM_NOT) {	/* it went down */
				__atomic_store_n(&privs[i].ncand, 0,
						__ATOMIC_RELAXED);
				__atomic_fetch_add(&privs[i].gen, 1,
						__ATOMIC_RELEASE);
			}
			__atomic_store_n(&privs[i].warm, WARM_NOT,
					__ATOMIC_RELEASE);
			down = 1;
		}
		fresh |= up[i] && privs[i].warm != WARM_DONE;
	}
	if (fresh) {
		struct timespec t0, t1;
		long pages;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pages = mxd_glue_prefault_memif();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		MXD_LOG(DEBUG, port, "memif link up: %ld pages of shared "
				"memory prefaulted in %.2f ms", pages,
				(double)(t1.tv_sec - t0.tv_sec) * 1e3 +
				(double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		for (unsigned i = 0; i < nb_links; i++) {
			if (!up[i])
				continue;
			if (privs[i].warm != WARM_DONE)
				memif_slots_cands(&privs[i]);
			__atomic_store_n(&privs[i].warm, WARM_DONE,
					__ATOMIC_RELEASE);
		}
	}
	rte_eal_alarm_set(down ? WARM_DOWN_US : WARM_UP_US, memif_warm, arg);
}

void
mxd_glue_memif_warm_start(struct mxd_link *l, struct port_priv *pp,
		unsigned n)
{
	links = l;
	privs = pp;
	nb_links = n;
	for (unsigned i = 0; i < nb_links; i++)
		if (privs[i].memif) {
			rte_eal_alarm_set(1, memif_warm, NULL);
			return;
		}
}

/* Before a burst: a link up and not yet prefaulted waits for it. */
static inline void
memif_warm_wait(struct mxd_link *l)
{
	struct port_priv *pp = l->priv;
	struct timespec ts = { 0, 100000 };
	uint8_t not = WARM_NOT;

	if (likely(__atomic_load_n(&pp->warm, __ATOMIC_ACQUIRE) != WARM_NOT))
		return;
	for (unsigned i = 0; i < WARM_WAIT_MS * 10; i++) {
		if (!port_link_up(l) || __atomic_load_n(&pp->warm,
					__ATOMIC_ACQUIRE) != WARM_NOT)
			return;
		nanosleep(&ts, NULL);
	}
	/* The alarm is late or gone: no more waiting on this link-up. */
	__atomic_compare_exchange_n(&pp->warm, &not, WARM_GAVE_UP, 0,
			__ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* ---- memif: bursts that outlive the peer's memory ---------------------- */

/*
 * DPDK's memif PMD unmaps the peer's shared memory from the EAL interrupt
 * thread as soon as the peer's socket closes (the peer exited or died),
 * without waiting for a burst in progress on the datapath: the burst tests
 * "connected" on entry only, so one caught in that window faults on the
 * memory that just went away.  Bursts on memif ports therefore run under
 * a guard.  A SIGSEGV or SIGBUS while the guard is armed and the port's
 * link reads down (memif marks it down before unmapping) ends the burst:
 * nothing received, or every frame taken (the PMD may have freed some of
 * them, so none can be handed back; the buffers of that one burst leak).
 * The frames are lost like any frame to a dead peer, and the next burst
 * finds the port disconnected.  Any other fault goes to the handler that
 * was there before (the default, a sanitizer's, the application's).
 *
 * A handler installed after ours takes every fault, the guard's too: a
 * test framework's that wraps each test (cmocka's sends a fault on any
 * thread to the test's longjmp or to exit(-1)), or an application's.
 * mxd_glue_guard_check() puts ours back in front of such a handler, which
 * then gets what the guard does not take; so does a handler put back with
 * signal(), which drops our flags: called without SA_SIGINFO, on_fault
 * does not read si, and it unblocks the signal itself before the jump
 * (without SA_NODEFER the kernel blocked it, and the jump's mask is not
 * restored: a second fault in that thread would kill the process).
 */
struct burst_guard {
	sigjmp_buf env;
	volatile sig_atomic_t armed;
	volatile sig_atomic_t own;	/* in our own reads of the ring
					 * (memif_slots_*), not the PMD's */
	uint16_t port;
};

/* The executable's own TLS (a static library): no __tls_get_addr call on
 * every burst. */
static __thread struct burst_guard guard
	__attribute__((tls_model("initial-exec")));
static struct sigaction old_segv, old_bus;
static int guard_installed;
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;

#define GUARD_FLAGS	(SA_SIGINFO | SA_NODEFER | SA_ONSTACK)

static void
on_fault(int sig, siginfo_t *si, void *ctx)
{
	struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;
	struct sigaction cur;
	struct rte_eth_link el;

	if (guard.armed && (guard.own || (rte_eth_link_get_nowait(guard.port,
				&el) == 0 &&
			el.link_status == RTE_ETH_LINK_DOWN))) {
		sigset_t set;

		guard.armed = 0;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		siglongjmp(guard.env, 1);
	}
	/* Put back with signal(): si and ctx are not there. */
	if (sigaction(sig, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO)) {
		si = NULL;
		ctx = NULL;
	}
	if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN)
		signal(sig, SIG_DFL);	/* returning repeats the access,
					 * which now kills as usual */
	else if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, si, ctx);
	else
		old->sa_handler(sig);
}

/* Installs on_fault for sig unless it is there with its flags; a
 * different handler found there becomes the one faults outside the guard
 * go to. */
static void
guard_assert(int sig, struct sigaction *old)
{
	struct sigaction sa, cur;

	if (sigaction(sig, NULL, &cur) != 0)
		return;
	if (cur.sa_sigaction == on_fault &&
			(cur.sa_flags & GUARD_FLAGS) == GUARD_FLAGS)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* No mask to restore after the jump: the signal is not blocked. */
	sa.sa_flags = GUARD_FLAGS;
	sigemptyset(&sa.sa_mask);
	if (cur.sa_sigaction != on_fault)	/* same union member */
		*old = cur;
	sigaction(sig, &sa, NULL);
}

static void
guard_install(void)
{
	pthread_mutex_lock(&guard_lock);
	if (!guard_installed) {
		guard_assert(SIGSEGV, &old_segv);
		guard_assert(SIGBUS, &old_bus);
		guard_installed = 1;
	}
	pthread_mutex_unlock(&guard_lock);
}

void
mxd_glue_guard_check(void)
{
	pthread_mutex_lock(&guard_lock);
	if (guard_installed) {
		guard_assert(SIGSEGV, &old_segv);
		guard_assert(SIGBUS, &old_bus);
	}
	pthread_mutex_unlock(&guard_lock);
}

static void
burst_cut(struct mxd_link *l, const char *what)
{
	l->news++;
	if (l->cut++ == 0)
		MXD_LOG(WARNING, port, "port %u (%s): the peer's memory "
				"vanished during a %s burst; frames of that "
				"burst are lost", l->port_id, l->name, what);
}

/* ---- memif: the next send's slot, warmed while a frame is handled ------ */

/*
 * A memif send writes the next slot of its ring in the shared region: it
 * reads the index the peer last wrote (how far the peer has read), then
 * writes the slot's descriptor and buffer.  The peer wrote or read each
 * of those lines last, so a send that finds them cold waits for the other
 * core: with the TSC read at both ends of a ping-pong's turn, memif's tx
 * burst took ~300 ns in this VM's slow state, ~30 ns with those lines
 * already here, while everything mx-dpdk does between the frame and its
 * answer took ~150 ns.  None of those lines changes between a frame's
 * arrival and the answer to it (the peer refilled the slot and wrote its
 * index before it sent), so when an rx burst brings frames the tx ring's
 * next slot is prefetched, and the answer the engine sends a few hundred
 * instructions later finds it in cache.  A plain DPDK program over the
 * same ports does not do this: it is ours to do, as the glue of a port.
 *
 * The addresses follow memif's shared-memory layout (the memif protocol:
 * a region holds the client's rings, then the server's, each a 128-byte
 * header -- cookie, flags, head; tail on the next line -- then 16-byte
 * descriptors; DPDK's PMD places the buffers after the rings, in the same
 * region).  The PMD does not say where it mapped a port's region, so the
 * glue learns it: when a link comes up, every memif region of the process
 * whose two rings carry memif's cookie where this port's ring size puts
 * them is a candidate (memif_slots_cands); the port's first sends then
 * pick the one whose tx ring holds, in the slot just written, the frame
 * just sent (memif_slots_learn).  A port whose region is not found (a
 * peer with another ring size, zero-copy buffers) is simply not warmed.
 * Every access is a prefetch, which cannot fault, or a read of a ring's
 * index or descriptor inside the burst guard.  A fault in such a read
 * (a region gone under a binding the alarm had no time to withdraw: a
 * peer gone and back between two of its looks) ends the warming of the
 * port until its next link-up, and nothing else (memif_slots_fault).
 */
#define MEMIF_COOKIE_V		0x3E31F20u	/* memif protocol */
#define MEMIF_RING_HDR		128u
#define MEMIF_DESC		16u
#define MEMIF_HEAD_OFF		6u	/* head: line 0; tail: line 1 */
#define MEMIF_TAIL_OFF		64u

/* The alarm, at a link-up: the regions whose rings look like this
 * port's.  The alarm runs in the thread that maps and unmaps them. */
static void
memif_slots_cands(struct port_priv *pp)
{
	uintptr_t lo[SLOTS_CANDS], hi[SLOTS_CANDS];
	unsigned n = 0, got;

	if (pp->zero_copy)
		return;
	got = mxd_glue_memif_regions(lo, hi, SLOTS_CANDS);
	for (unsigned i = 0; i < got; i++) {
		const uint8_t *r = (const uint8_t *)lo[i];

		if (hi[i] - lo[i] < 2 * (size_t)pp->ring_bytes ||
				*(const uint32_t *)r != MEMIF_COOKIE_V ||
				*(const uint32_t *)(r + pp->ring_bytes) !=
				MEMIF_COOKIE_V)
			continue;
		__atomic_store_n(&pp->cand[n], (uint8_t *)lo[i],
				__ATOMIC_RELAXED);
		__atomic_store_n(&pp->cand_len[n], hi[i] - lo[i],
				__ATOMIC_RELAXED);
		n++;
	}
	__atomic_store_n(&pp->ncand, n, __ATOMIC_RELEASE);
	__atomic_fetch_add(&pp->gen, 1, __ATOMIC_RELEASE);
}

/* Where ring's buffers are: slot 0's offset, and the stride (0 if they
 * are not DPDK's evenly spaced buffers inside the region). */
static uint32_t
memif_ring_bufs(const struct port_priv *pp, const uint8_t *ring, size_t len,
		uint32_t *off0)
{
	const uint8_t *d = ring + MEMIF_RING_HDR;
	uint32_t o1 = *(const uint32_t *)(d + MEMIF_DESC + 8);
	uint32_t stride;

	*off0 = *(const uint32_t *)(d + 8);
	stride = o1 > *off0 ? o1 - *off0 : 0;
	if (stride < 128 || *off0 + (size_t)stride * (pp->ring_mask + 1u) > len)
		return 0;
	return stride;
}

/* The port's rings in region 'base' (their descriptors checked). */
static void
memif_slots_bind(struct port_priv *pp, uint8_t *base, size_t len)
{
	uint8_t *ring = base + (pp->server ? pp->ring_bytes : 0);
	uint8_t *rx = base + (pp->server ? 0 : pp->ring_bytes);
	uint32_t off0, rx_off0;
	uint32_t stride = memif_ring_bufs(pp, ring, len, &off0);

	pp->slots.rx_stride = memif_ring_bufs(pp, rx, len, &rx_off0);
	pp->slots.rx_buf0 = base + rx_off0;
	pp->slots.rx_ring = rx;
	pp->slots.prod = (const volatile uint16_t *)(rx + (pp->server ?
				MEMIF_HEAD_OFF : MEMIF_TAIL_OFF));
	pp->slots.seen = *pp->slots.prod;
	pp->slots.peer = ring + (pp->server ? 0 : MEMIF_TAIL_OFF);
	pp->slots.own = (const volatile uint16_t *)(ring + (pp->server ?
				MEMIF_TAIL_OFF : MEMIF_HEAD_OFF));
	pp->slots.buf0 = base + off0;
	pp->slots.stride = stride;
	pp->slots.ring = ring;
	MXD_LOG(DEBUG, port, "memif: tx ring found in the region at %p "
			"(%s ring, buffers %s)", (void *)base,
			pp->server ? "server's" : "client's",
			stride ? "warmed too" : "not warmed");
}

/*
 * After a send whose last frame was noted (pp->snap): the candidate whose
 * tx ring has that frame in the slot before its index is the port's.  In
 * the burst guard.
 */
static void
memif_slots_learn(struct port_priv *pp)
{
	unsigned n = __atomic_load_n(&pp->ncand, __ATOMIC_ACQUIRE), hits = 0;
	uint8_t *hit = NULL;
	size_t hit_len = 0;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *base = __atomic_load_n(&pp->cand[i], __ATOMIC_RELAXED);
		size_t len = __atomic_load_n(&pp->cand_len[i],
				__ATOMIC_RELAXED);
		const uint8_t *ring = base + (pp->server ? pp->ring_bytes : 0);
		uint16_t own = *(const volatile uint16_t *)(ring +
				(pp->server ? MEMIF_TAIL_OFF : MEMIF_HEAD_OFF));
		const uint8_t *d = ring + MEMIF_RING_HDR +
			MEMIF_DESC * ((own - 1u) & pp->ring_mask);
		uint32_t dlen = *(const uint32_t *)(d + 4);
		uint32_t off = *(const uint32_t *)(d + 8);
		uint32_t cmp = pp->snap_len < sizeof(pp->snap) ?
			pp->snap_len : (uint32_t)sizeof(pp->snap);

		if (dlen == pp->snap_len && (size_t)off + dlen <= len &&
				memcmp(base + off, pp->snap, cmp) == 0) {
			hit = base;
			hit_len = len;
			hits++;
		}
	}
	if (hits == 1)
		memif_slots_bind(pp, hit, hit_len);
	else
		pp->tries++;
}

/* An rx burst brought frames: the tx ring's next slot, into the cache.
 * In the burst guard. */
static inline void
memif_slots_warm(struct port_priv *pp)
{
	const struct memif_slots *t = &pp->slots;
	uint32_t slot = *t->own & pp->ring_mask;

	rte_prefetch0(t->peer);
	rte_prefetch0(t->ring + MEMIF_RING_HDR + MEMIF_DESC * slot);
	if (t->stride != 0) {
		const uint8_t *b = t->buf0 + (size_t)t->stride * slot;

		rte_prefetch0(b);
		rte_prefetch0(b + RTE_CACHE_LINE_SIZE);
	}
}

/*
 * Before an rx burst: the slots the peer wrote since the last look, their
 * descriptors and buffers asked for at once.  memif's burst reads the
 * peer's index, then a descriptor, then the buffer it points to: three
 * misses one after the other, of which the last two now overlap (and
 * overlap the index's, which this read takes first).  At most 4 slots:
 * a stream's later frames are the burst's own business.  In the guard.
 */
#define RX_WARM_SLOTS	4

static inline void
memif_slots_rx_warm(struct port_priv *pp)
{
	struct memif_slots *t = &pp->slots;
	uint16_t h = *t->prod, s = t->seen;

	if (h == s)
		return;
	t->seen = h;
	if ((uint16_t)(h - s) > RX_WARM_SLOTS)
		s = (uint16_t)(h - RX_WARM_SLOTS);
	for (; s != h; s++) {
		uint32_t slot = s & pp->ring_mask;

		rte_prefetch0(t->rx_ring + MEMIF_RING_HDR + MEMIF_DESC * slot);
		if (t->rx_stride != 0) {
			const uint8_t *b = t->rx_buf0 +
				(size_t)t->rx_stride * slot;

			rte_prefetch0(b);
			rte_prefetch0(b + RTE_CACHE_LINE_SIZE);
		}
	}
}

/* Whether a send should note its last frame to learn the region from:
 * after each link-up (a new region), for the first SLOTS_TRIES sends. */
static inline int
memif_slots_learning(struct port_priv *pp)
{
	unsigned gen = __atomic_load_n(&pp->gen, __ATOMIC_ACQUIRE);

	if (unlikely(gen != pp->slots_gen)) {
		pp->slots.ring = NULL;	/* the region may be gone */
		pp->slots_gen = gen;
		pp->tries = 0;
	}
	return pp->slots.ring == NULL && pp->tries < SLOTS_TRIES &&
		__atomic_load_n(&pp->ncand, __ATOMIC_RELAXED) != 0;
}

/* A fault in our own reads of the ring: the binding is stale. */
static void
memif_slots_fault(struct port_priv *pp)
{
	guard.own = 0;
	pp->slots.ring = NULL;
	pp->tries = SLOTS_TRIES;	/* until the next link-up */
}

/* A fault in the guard in our own reads (memif_slots_*) leaves the PMD's
 * burst whole: the frames it took are returned.  Only one in the PMD's
 * burst cuts it. */
static uint16_t
memif_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct port_priv *pp = l->priv;
	volatile uint16_t got = 0;
	int bound;

	if (!l->started)	/* a client restarting (setup.c) */
		return 0;
	memif_warm_wait(l);
	if (sigsetjmp(guard.env, 0) != 0) {
		if (guard.own)
			memif_slots_fault(pp);
		else if (got == 0)
			burst_cut(l, "receive");
		return got;
	}
	guard.port = l->port_id;
	guard.armed = 1;
	bound = pp->slots.ring != NULL && __atomic_load_n(&pp->gen,
			__ATOMIC_RELAXED) == pp->slots_gen;
	if (bound) {
		guard.own = 1;
		memif_slots_rx_warm(pp);
		guard.own = 0;
	}
	got = port_rx(l, f, n);
	if (got != 0 && bound) {
		guard.own = 1;
		memif_slots_warm(pp);
		guard.own = 0;
	}
	guard.armed = 0;
	return got;
}

static uint16_t
memif_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct port_priv *pp = l->priv;
	volatile uint16_t sent = 0;
	int learn;

	if (n > BURST_MAX)
		n = BURST_MAX;
	if (!l->started) {	/* restarting: lost like any frame to a
				 * link that is down */
		port_free(f, n);
		return n;
	}
	memif_warm_wait(l);
	learn = unlikely(memif_slots_learning(pp)) && n != 0;
	if (learn) {
		pp->snap_len = f[n - 1].len;
		memcpy(pp->snap, f[n - 1].data, RTE_MIN(f[n - 1].len,
				(uint32_t)sizeof(pp->snap)));
	}
	if (sigsetjmp(guard.env, 0) != 0) {
		if (guard.own) {
			memif_slots_fault(pp);
			return sent;
		}
		burst_cut(l, "send");
		return n;
	}
	guard.port = l->port_id;
	guard.armed = 1;
	sent = port_tx(l, f, n);
	if (learn && sent == n) {
		guard.own = 1;
		memif_slots_learn(pp);
		guard.own = 0;
	}
	guard.armed = 0;
	return sent;
}

/* ---- memif: a client whose server went away -------------------------- */

/*
 * A memif client connected to its server's socket gets its link once the
 * two have shaken hands, which a loaded machine can take a while to do.
 * Stopping the port in the middle of it is not only wasted: a server that
 * accepts a connection already closed by its client fails to send its
 * hello and leaves the closed socket registered with the EAL's interrupt
 * thread, which then panics ("Error adding fd ... epoll_ctl, Bad file
 * descriptor": DPDK 22.11, memif_listener_handler's error path).  So a
 * client whose socket connected (started) is left alone this long; one
 * whose connect failed (no server: nothing was opened on the other side)
 * is tried again at once.
 */
#define HANDSHAKE_MS	1500

/* A memif client does not connect again by itself once its server went
 * away (or refused it): a restart of the port does.  A server waits for
 * its next client without help.  1: restarted, or shaking hands. */
static int
memif_revive(struct mxd_link *l)
{
	if (!l->waits)
		return 0;
	if (!l->started || mxd_glue_now_ms() - l->started_ms >= HANDSHAKE_MS)
		mxd_glue_link_restart(l);
	return 1;
}

static const struct mxd_link_ops memif_ops = {
	.rx_burst = memif_rx,
	.tx_burst = memif_tx,
	.alloc = mxd_glue_port_alloc,
	.ref = mxd_glue_port_ref,
	.recycle = mxd_glue_port_recycle,
	.free = port_free,
	.link_up = port_link_up,
	.speed_mbps = mxd_glue_port_speed,
	.stats = mxd_glue_port_stats,
	.revive = memif_revive,
	.in_use = mxd_glue_port_in_use,
};

/* ---- memif: a port set up ---------------------------------------------- */

void
mxd_glue_memif_setup(struct mxd_link *l, uint16_t pid)
{
	struct port_priv *pp = l->priv;
	uint32_t log2 = mxd_glue_devarg_u32(pid, "rsize", 10);
	char zc[8] = "";

	guard_install();
	l->ops = &memif_ops;
	pp->memif = 1;
	pp->server = (uint8_t)mxd_glue_memif_is_server(pid);
	mxd_glue_devarg(pid, "zero-copy", zc, sizeof(zc));
	pp->zero_copy = !strcmp(zc, "yes") || !strcmp(zc, "on");
	if (log2 > 14)
		log2 = 14;	/* memif's largest */
	pp->ring_bytes = MEMIF_RING_HDR + (MEMIF_DESC << log2);
	pp->ring_mask = (uint16_t)((1u << log2) - 1);
}

/* ---- a shared board's service: its queues, its region ------------------- */

/*
 * The board service of a shared board (service/, shport.h) drives only
 * its own queues of the matrix, with these; the processes of the board
 * drive the others in the region, which the service finds here and hands
 * them.  Control path: no warming, the guard as in memif_rx/memif_tx.
 */
uint16_t
mxd_glue_queue_rx(struct mxd_link *l, uint16_t q, struct mxd_frame *f,
		uint16_t n)
{
	struct port_priv *pp = l->priv;
	volatile uint16_t got = 0;

	if (!pp->memif)
		return port_rx_q(l, q, f, n);
	if (!l->started)
		return 0;
	if (sigsetjmp(guard.env, 0) != 0) {
		if (got == 0)
			burst_cut(l, "receive");
		return got;
	}
	guard.port = l->port_id;
	guard.own = 0;
	guard.armed = 1;
	got = port_rx_q(l, q, f, n);
	guard.armed = 0;
	return got;
}

uint16_t
mxd_glue_queue_tx(struct mxd_link *l, uint16_t q, struct mxd_frame *f,
		uint16_t n)
{
	struct port_priv *pp = l->priv;
	volatile uint16_t sent = 0;

	if (n > BURST_MAX)
		n = BURST_MAX;
	if (!pp->memif)
		return port_tx_q(l, q, f, n);
	if (!l->started) {
		port_free(f, n);
		return n;
	}
	if (sigsetjmp(guard.env, 0) != 0) {
		burst_cut(l, "send");
		return n;
	}
	guard.port = l->port_id;
	guard.own = 0;
	guard.armed = 1;
	sent = port_tx_q(l, q, f, n);
	guard.armed = 0;
	return sent;
}

int
mxd_glue_memif_geometry(const struct mxd_link *l, unsigned *log2,
		uint32_t *bsize, int *server)
{
	const struct port_priv *pp = l->priv;

	if (pp == NULL || !pp->memif)
		return -1;
	*log2 = (unsigned)__builtin_ctz((unsigned)pp->ring_mask + 1u);
	*bsize = mxd_glue_devarg_u32(l->port_id, "bsize", 2048);
	*server = pp->server;
	return 0;
}

/* The inode of the process's mapping that holds addr (0: none). */
static unsigned long
mapping_inode(uintptr_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi, ino, found = 0;

	if (f == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi,
					&ino) == 3 && addr >= lo && addr < hi)
			found = ino;
	fclose(f);
	return found;
}

/* A descriptor of our own of the open file whose inode is ino. */
static int
fd_of_inode(unsigned long ino)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd = -1;

	if (d == NULL)
		return -1;
	while (fd < 0 && (e = readdir(d)) != NULL) {
		struct stat st;
		int n = atoi(e->d_name);

		if (e->d_name[0] != '.' && n != dirfd(d) &&
				fstat(n, &st) == 0 && st.st_ino == ino &&
				S_ISREG(st.st_mode))
			fd = fcntl(n, F_DUPFD_CLOEXEC, 0);
	}
	closedir(d);
	return fd;
}

/* Whether the queue 0 ring that port pp writes, in the region at base,
 * holds 'sent' in the slot last written. */
static int
region_holds(const struct port_priv *pp, unsigned nq, const uint8_t *base,
		size_t len, const uint8_t *sent, uint32_t n)
{
	const uint8_t *ring = base + (pp->server ? nq * (size_t)pp->ring_bytes :
			0);
	uint16_t wr, cmp = (uint16_t)(n < 32 ? n : 32);
	const uint8_t *d;
	uint32_t dlen, off;

	if ((size_t)(ring - base) + pp->ring_bytes > len ||
			*(const uint32_t *)ring != MEMIF_COOKIE_V)
		return 0;
	wr = *(const volatile uint16_t *)(ring + (pp->server ? MEMIF_TAIL_OFF :
				MEMIF_HEAD_OFF));
	d = ring + MEMIF_RING_HDR + MEMIF_DESC * ((wr - 1u) & pp->ring_mask);
	memcpy(&dlen, d + 4, 4);
	memcpy(&off, d + 8, 4);
	return dlen == n && (size_t)off + n <= len &&
		memcmp(base + off, sent, cmp) == 0;
}

int
mxd_glue_memif_region(struct mxd_link *l, unsigned nq, const uint8_t *sent,
		uint32_t len, int *fd, uint64_t *size)
{
	struct port_priv *pp = l->priv;
	uintptr_t lo[SLOTS_CANDS], hi[SLOTS_CANDS];
	unsigned got, hits = 0;
	unsigned long ino = 0;
	uintptr_t at = 0;

	if (pp == NULL || !pp->memif || pp->zero_copy)
		return -1;
	got = mxd_glue_memif_regions(lo, hi, SLOTS_CANDS);
	for (unsigned i = 0; i < got; i++) {
		unsigned long in;

		if (!region_holds(pp, nq, (const uint8_t *)lo[i], hi[i] - lo[i],
					sent, len))
			continue;
		in = mapping_inode(lo[i]);
		if (hits == 0 || in != ino)	/* one file mapped twice: one */
			hits++;
		ino = in;
		at = lo[i];
		*size = hi[i] - lo[i];
	}
	if (hits != 1 || ino == 0 || at == 0)
		return -1;
	*fd = fd_of_inode(ino);
	return *fd < 0 ? -1 : 0;
}
