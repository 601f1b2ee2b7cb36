/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: set-up (control path) and the link operations (datapath).
 *
 * Every available DPDK port gets one rx and one tx queue and a mempool on
 * the port's NUMA socket.  Ports are configured once per process and stay
 * started until exit, because the EAL cannot be initialised twice and MX
 * programs may call mx_init()/mx_finalize() repeatedly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "glue.h"
#include "log.h"

#define BURST_MAX	64

/* A memif port's rings as the datapath warms them (memif_slots_*). */
struct memif_slots {
	uint8_t *ring;			/* NULL: not (yet) known */
	const uint8_t *peer;		/* the line of the peer's index */
	const volatile uint16_t *own;	/* this side's index: the next slot */
	const uint8_t *buf0;		/* slot 0's buffer */
	uint32_t stride;		/* bytes from a buffer to the next
					 * (0: buffers not warmed) */
	/* The rx ring: the peer's index (where it has written up to), the
	 * value last seen, and the ring's descriptors and buffers. */
	const volatile uint16_t *prod;
	const uint8_t *rx_ring, *rx_buf0;
	uint32_t rx_stride;
	uint16_t seen;
};

#define SLOTS_CANDS	MXD_GLUE_MEMIF_REGIONS
#define SLOTS_TRIES	64	/* sends that may look for the region */

struct port_priv {
	struct rte_mempool *mp;
	uint8_t memif;		/* a net_memif port */
	uint8_t warm;		/* memif: WARM_* (the EAL alarm sets it,
				 * bursts wait for it) */
	/* memif, set up with the port: */
	uint8_t server;		/* sends on the server's ring (S2C) */
	uint8_t zero_copy;	/* buffers outside the region: not warmed */
	uint32_t ring_bytes;	/* one ring: header and descriptors */
	uint16_t ring_mask;
	/* memif, written by the EAL alarm at each link-up (atomics): the
	 * regions that may hold this port's rings, and a generation that
	 * tells the datapath its ring may have moved. */
	uint8_t *cand[SLOTS_CANDS];
	size_t cand_len[SLOTS_CANDS];
	unsigned ncand, gen;
	/* memif, the datapath's own (bursts run one at a time): */
	struct memif_slots slots;
	unsigned slots_gen, tries;
	uint32_t snap_len;		/* the last frame of a send that may
					 * tell the region: its length and */
	uint8_t snap[32];		/* first bytes */
};

static struct mxd_link links[MXD_GLUE_MAX_PORTS];
static struct port_priv privs[MXD_GLUE_MAX_PORTS];
static unsigned nb_links;
static int ports_ready;

/* ---- datapath ---------------------------------------------------------- */

/*
 * A frame longer than one of our buffers comes as a chain of mbufs (memif,
 * pcap); the engine reads frames whole from one buffer, so such a frame is
 * dropped here and counted (l->too_long): the sender's MTU is larger than
 * ours.  The frames kept stay in order.
 */
static uint16_t
port_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct rte_mbuf *m[BURST_MAX];
	uint16_t got, kept = 0;

	if (n > BURST_MAX)
		n = BURST_MAX;
	got = rte_eth_rx_burst(l->port_id, 0, m, n);
	for (uint16_t i = 0; i < got; i++) {
		if (unlikely(m[i]->nb_segs > 1)) {
			l->too_long++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		f[kept].h = m[i];
		f[kept].data = rte_pktmbuf_mtod(m[i], uint8_t *);
		f[kept].len = rte_pktmbuf_data_len(m[i]);
		kept++;
	}
	return kept;
}

/*
 * A frame the engine keeps to send again (ops->ref: a reference more than
 * the burst's) goes to the PMD as a copy.  A PMD drops its reference to a
 * buffer someone else holds too with a locked decrement, and a locked
 * instruction waits for every store before it: memif's copy of the frame
 * into its ring, whose cache misses then come one frame after another,
 * and the ring's index, which waits behind them (a third of the sender's
 * time streaming 4 KiB messages; a round trip's half at 8 bytes).  The
 * copy, of a frame still in cache, has one reference, which the PMD drops
 * without a lock; the burst's reference on the frame is the engine's
 * again.  No buffer for the copies: the frames themselves go, as before.
 */
static uint16_t
port_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct port_priv *pp = l->priv;
	struct rte_mbuf *m[BURST_MAX], *c[BURST_MAX];
	unsigned kept = 0, used = 0;
	uint16_t sent;

	if (n > BURST_MAX)
		n = BURST_MAX;
	for (uint16_t i = 0; i < n; i++) {
		m[i] = f[i].h;
		m[i]->data_len = (uint16_t)f[i].len;
		m[i]->pkt_len = f[i].len;
		kept += rte_mbuf_refcnt_read(m[i]) > 1;
	}
	/* A frame queued twice counts twice, but its second turn may find
	 * one reference left (the first copy took the other): copies not
	 * used go back. */
	if (kept != 0 && rte_pktmbuf_alloc_bulk(pp->mp, c, kept) == 0) {
		for (uint16_t i = 0; i < n && used < kept; i++) {
			struct rte_mbuf *o = m[i];
			uint16_t refs = rte_mbuf_refcnt_read(o);

			if (refs == 1)
				continue;
			m[i] = c[used++];
			memcpy(rte_pktmbuf_mtod(m[i], void *), f[i].data,
					f[i].len);
			m[i]->data_len = o->data_len;
			m[i]->pkt_len = o->pkt_len;
			rte_mbuf_refcnt_set(o, (uint16_t)(refs - 1));
		}
		if (used < kept)
			rte_pktmbuf_free_bulk(c + used, kept - used);
	}
	sent = rte_eth_tx_burst(l->port_id, 0, m, n);
	/* The frames the PMD did not take stay queued: their copies go back
	 * and the burst's references return to the frames. */
	for (uint16_t i = sent; i < n; i++) {
		struct rte_mbuf *o = f[i].h;

		if (m[i] != o) {
			rte_pktmbuf_free(m[i]);
			rte_mbuf_refcnt_set(o, (uint16_t)
					(rte_mbuf_refcnt_read(o) + 1));
		}
	}
	return sent;
}

static int
port_alloc(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	struct port_priv *pp = l->priv;
	struct rte_mbuf *m[BURST_MAX];

	if (n > BURST_MAX || rte_pktmbuf_alloc_bulk(pp->mp, m, n) != 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		f[i].h = m[i];
		f[i].data = rte_pktmbuf_mtod(m[i], uint8_t *);
		f[i].len = rte_pktmbuf_tailroom(m[i]);
	}
	return 0;
}

static void
port_ref(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_mbuf_refcnt_update(f[i].h, 1);
}

static void
port_free(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(f[i].h);
}

/* ---- control path ------------------------------------------------------ */

static int
port_link_up(struct mxd_link *l)
{
	struct rte_eth_link el;

	if (rte_eth_link_get_nowait(l->port_id, &el) != 0)
		return 0;
	return el.link_status == RTE_ETH_LINK_UP;
}

static uint32_t
port_speed(struct mxd_link *l)
{
	struct rte_eth_link el;

	if (rte_eth_link_get_nowait(l->port_id, &el) != 0 ||
			el.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		return 0;
	return el.link_speed;
}

static void
port_stats(struct mxd_link *l, uint64_t *tx, uint64_t *rx)
{
	struct rte_eth_stats st;

	if (rte_eth_stats_get(l->port_id, &st) != 0) {
		*tx = *rx = 0;
		return;
	}
	*tx = st.opackets;
	*rx = st.ipackets;
}

/* The pool's buffers out of it: not in the pool's ring nor in a core's
 * cache of it. */
static uint32_t
port_in_use(struct mxd_link *l)
{
	struct port_priv *pp = l->priv;

	return rte_mempool_in_use_count(pp->mp);
}

/* ---- rx interrupts (the progression thread's sleep) ------------------- */

static int port_virtual(uint16_t pid);

/* Ports registered with this thread's DPDK epoll (a thread's epoll is its
 * own: RTE_EPOLL_PER_THREAD). */
static __thread uint64_t intr_registered;

static int
port_intr_arm(struct mxd_link *l)
{
	uint64_t bit = 1ull << (l->port_id & 63);

	if (port_virtual(l->port_id))
		return -1;	/* none, and ethdev would say so loudly */
	if (!(intr_registered & bit)) {
		if (rte_eth_dev_rx_intr_ctl_q(l->port_id, 0,
					RTE_EPOLL_PER_THREAD,
					RTE_INTR_EVENT_ADD, NULL) != 0)
			return -1;
		intr_registered |= bit;
	}
	return rte_eth_dev_rx_intr_enable(l->port_id, 0) == 0 ? 0 : -1;
}

static void
port_intr_disarm(struct mxd_link *l)
{
	rte_eth_dev_rx_intr_disable(l->port_id, 0);
}

void
mxd_glue_intr_wait(uint32_t ms)
{
	struct rte_epoll_event ev[8];

	rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 8, (int)ms);
}

static const struct mxd_link_ops port_ops = {
	.rx_burst = port_rx,
	.tx_burst = port_tx,
	.alloc = port_alloc,
	.ref = port_ref,
	.free = port_free,
	.link_up = port_link_up,
	.speed_mbps = port_speed,
	.stats = port_stats,
	.intr_arm = port_intr_arm,
	.intr_disarm = port_intr_disarm,
	.in_use = port_in_use,
};

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

static void
memif_warm_start(void)
{
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

	if (!l->started)	/* a client restarting (link_restart) */
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

static void link_restart(struct mxd_link *l);

static uint64_t now_ms(void);

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
	if (!l->started || now_ms() - l->started_ms >= HANDSHAKE_MS)
		link_restart(l);
	return 1;
}

static const struct mxd_link_ops memif_ops = {
	.rx_burst = memif_rx,
	.tx_burst = memif_tx,
	.alloc = port_alloc,
	.ref = port_ref,
	.free = port_free,
	.link_up = port_link_up,
	.speed_mbps = port_speed,
	.stats = port_stats,
	.revive = memif_revive,
	.in_use = port_in_use,
};

/* Whether port pid is a virtual device (the vdev bus), not a NIC. */
static int
port_virtual(uint16_t pid)
{
	struct rte_eth_dev_info info;
	const struct rte_bus *bus;

	if (rte_eth_dev_info_get(pid, &info) != 0 || info.device == NULL)
		return 1;
	bus = rte_dev_bus(info.device);
	return bus == NULL || strcmp(rte_bus_name(bus), "vdev") == 0;
}

static int
port_socket(uint16_t pid)
{
	int s = rte_eth_dev_socket_id(pid);

	return s < 0 ? (int)rte_socket_id() : s;
}

/*
 * Without hugepages every mbuf lies on a 4 KiB page of its own (an object
 * does not cross a page, and an mbuf with 2 KiB of room is more than half
 * of one), and DPDK's pool creation faults each page in as it writes the
 * mbuf's header: 16383 faults, 0.2-0.7 s of mx_init on this kind of VM.
 * pool_prefaulted() builds the same pool as rte_pktmbuf_pool_create()
 * (same objects, same memory layout as rte_mempool_populate_default()
 * gives them) on a memzone prefaulted in one call first.  With hugepages
 * the EAL has mapped all its memory already: DPDK's own function then.
 */
static void
pool_mz_free(struct rte_mempool_memhdr *mh, void *mz)
{
	(void)mh;
	rte_memzone_free(mz);
}

static struct rte_mempool *
pool_prefaulted(const char *name, unsigned n, uint16_t data_room, int socket)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = data_room,
	};
	size_t pg = (size_t)getpagesize(), chunk, align;
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct rte_mempool *mp;
	ssize_t size;
	int ret;

	mp = rte_mempool_create_empty(name, n, sizeof(struct rte_mbuf) +
			data_room, 256, sizeof(priv), socket, 0);
	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(),
				NULL) != 0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &priv);
	size = rte_mempool_op_calc_mem_size_default(mp, n,
			(uint32_t)__builtin_ctzl(pg), &chunk, &align);
	snprintf(mzname, sizeof(mzname), "%s_mem", name);
	mz = size <= 0 ? NULL : rte_memzone_reserve_aligned(mzname,
			(size_t)size, socket, 0, (unsigned)align);
	if (mz == NULL)
		goto fail;
	mxd_glue_prefault(mz->addr, mz->len);
	/* From here the pool owns the memzone (pool_mz_free), unless it
	 * failed before taking any of it. */
	ret = rte_mempool_populate_virt(mp, mz->addr, mz->len, pg,
			pool_mz_free, (void *)(uintptr_t)mz);
	if (ret < 0 && rte_memzone_lookup(mzname) == mz)
		rte_memzone_free(mz);
	if (ret != (int)n)
		goto fail;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	return NULL;
}

/* Pools of ring or stack handlers place objects the default way (the
 * memory size pool_prefaulted() computes). */
static int
pool_ops_default(void)
{
	const char *ops = rte_mbuf_best_mempool_ops();

	return ops != NULL && (!strncmp(ops, "ring_", 5) ||
			!strcmp(ops, "stack"));
}

static struct rte_mempool *
port_pool(uint16_t pid, const struct mxd_glue_conf *conf, uint32_t room)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint16_t data_room = (uint16_t)(room + RTE_PKTMBUF_HEADROOM);
	struct rte_mempool *mp = NULL;

	snprintf(name, sizeof(name), "mxd_pool_%u", pid);
	if (!rte_eal_has_hugepages() && pool_ops_default())
		mp = pool_prefaulted(name, conf->nb_mbufs, data_room,
				port_socket(pid));
	if (mp != NULL)
		return mp;
	return rte_pktmbuf_pool_create(name, conf->nb_mbufs, 256, 0,
			data_room, port_socket(pid));
}

static int
port_queues(uint16_t pid, const struct mxd_glue_conf *conf,
		struct rte_mempool *mp)
{
	struct rte_eth_conf ec;
	int s = port_socket(pid), ret;

	memset(&ec, 0, sizeof(ec));
	/* Rx interrupts for the progression thread's sleep, on devices of a
	 * real bus: DPDK 22.11's virtual PMDs have none (and complain). */
	ec.intr_conf.rxq = !port_virtual(pid);
	ret = rte_eth_dev_configure(pid, 1, 1, &ec);
	if (ret < 0 && ec.intr_conf.rxq) {
		ec.intr_conf.rxq = 0;	/* a NIC without them */
		ret = rte_eth_dev_configure(pid, 1, 1, &ec);
	}
	if (ret < 0)
		return ret;
	ret = rte_eth_rx_queue_setup(pid, 0, conf->nb_rxd, s, NULL, mp);
	if (ret < 0)
		return ret;
	return rte_eth_tx_queue_setup(pid, 0, conf->nb_txd, s, NULL);
}

/* The value of devarg 'key' of port pid into out (empty if absent);
 * returns 1 if the port has it. */
static int
devarg(uint16_t pid, const char *key, char *out, size_t len)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	size_t kl = strlen(key);

	out[0] = '\0';
	if (rte_eth_dev_info_get(pid, &info) != 0 ||
			(da = rte_dev_devargs(info.device)) == NULL ||
			da->args == NULL)
		return 0;
	for (const char *a = da->args; *a; a += strcspn(a, ","),
			a += *a == ',') {
		if (strncmp(a, key, kl) == 0 && a[kl] == '=') {
			snprintf(out, len, "%.*s", (int)strcspn(a + kl + 1,
					","), a + kl + 1);
			return 1;
		}
	}
	return 0;
}

static uint32_t
devarg_u32(uint16_t pid, const char *key, uint32_t def)
{
	char v[32];

	return devarg(pid, key, v, sizeof(v)) ?
		(uint32_t)strtoul(v, NULL, 0) : def;
}

static const char *
port_driver(uint16_t pid)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(pid, &info) != 0 || info.driver_name == NULL)
		return "";
	return info.driver_name;
}

static int
is_driver(uint16_t pid, const char *name)
{
	return strcmp(port_driver(pid), name) == 0;
}

/*
 * The MTU to use.  A PMD that cannot set an MTU (net_ring, net_null,
 * net_memif) enforces none either: MX_MTU is then taken as it is.  One
 * that refuses it (net_af_packet when the interface or its ring frames are
 * smaller) keeps its own, with a warning saying what to change.
 */
static uint32_t
port_mtu(uint16_t pid, const struct mxd_glue_conf *conf)
{
	uint16_t mtu = RTE_ETHER_MTU;
	int ret;

	rte_eth_dev_get_mtu(pid, &mtu);
	if (conf->mtu == 0 || conf->mtu == mtu)
		return mtu;
	ret = rte_eth_dev_set_mtu(pid, (uint16_t)conf->mtu);
	if (ret == 0 || !is_driver(pid, "net_af_packet"))
		return conf->mtu;	/* virtual ports enforce no MTU */
	MXD_LOG(WARNING, port, "port %u: MX_MTU=%u refused by %s (%s); "
			"keeping MTU %u: %s", pid, conf->mtu, port_driver(pid),
			rte_strerror(-ret), mtu, is_driver(pid,
				"net_af_packet") ? "set the interface's MTU "
			"(ip link set dev IFACE mtu N) and give the port "
			"framesz= of at least MTU + 80" :
			"the port cannot carry frames that large");
	return mtu;
}

/*
 * The largest frame a port carries whole.  net_memif splits a frame longer
 * than one of its buffers (devarg bsize, 2048 by default) over several
 * ring slots, and DPDK 22.11's memif Tx leaves a stale "next" flag on the
 * first slot of a frame: the peer then joins frames and runs past the
 * ring's head.  So over memif the MTU stays within one buffer.
 */
static uint32_t
port_frame_max(uint16_t pid)
{
	uint32_t bsize;

	if (!is_driver(pid, "net_memif"))
		return UINT32_MAX;
	bsize = devarg_u32(pid, "bsize", 2048);
	return bsize > RTE_ETHER_HDR_LEN + 576 ? bsize :
		RTE_ETHER_HDR_LEN + 576;	/* memif checks it */
}

/*
 * Bytes an mbuf must hold after its headroom.  net_af_packet copies a
 * whole ring frame's payload into one mbuf and refuses an rx queue whose
 * mbufs are smaller than framesz less the 32 bytes of tpacket2 header it
 * does not copy.
 */
static uint32_t
port_room(uint16_t pid, uint32_t mtu)
{
	uint32_t room = mtu + RTE_ETHER_HDR_LEN > 2048 ?
		mtu + RTE_ETHER_HDR_LEN : 2048;

	if (is_driver(pid, "net_af_packet")) {
		uint32_t fs = devarg_u32(pid, "framesz", 2048);

		if (fs > 32 && fs - 32 > room)
			room = fs - 32;
	}
	return room;
}

/* ---- memif: arguments and roles --------------------------------------- */

static const char *const memif_keys[] = {
	"id", "role", "bsize", "rsize", "socket", "socket-abstract",
	"owner-uid", "owner-gid", "mac", "secret", "zero-copy",
};

/* A memif devarg the PMD would silently ignore is a typo: refuse it. */
static int
memif_check_args(uint16_t pid, const char *name)
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

static int
memif_is_server(uint16_t pid)
{
	char role[16];

	devarg(pid, "role", role, sizeof(role));
	return !strcmp(role, "server") || !strcmp(role, "master");
}

static void
memif_socket(uint16_t pid, char *out, size_t len)
{
	if (!devarg(pid, "socket", out, len))
		snprintf(out, len, "/run/memif.sock");
}

/* ---- identities ------------------------------------------------------- */

static const uint8_t pcap_default_mac[5] = { 0x02, 0x70, 0x63, 0x61, 0x70 };

/*
 * Whether the port's MAC is a default that every instance of its PMD
 * shares (a NIC id must be unique): all zero (net_ring), net_pcap's
 * 02:70:63:61:70:xx unless phy_mac=1, net_null's, and memif's when no
 * mac= is given (memif draws it from DPDK's random state, which forked
 * processes share).
 */
static int
mac_is_default(uint16_t pid, const uint8_t *mac)
{
	static const uint8_t zero[6];
	char v[32];

	if (!memcmp(mac, zero, 6) || is_driver(pid, "net_null") ||
			is_driver(pid, "net_ring"))
		return 1;
	if (is_driver(pid, "net_pcap"))
		return !memcmp(mac, pcap_default_mac, 5) &&
			!(devarg(pid, "phy_mac", v, sizeof(v)) &&
					strcmp(v, "0") != 0);
	if (is_driver(pid, "net_memif"))
		return !devarg(pid, "mac", v, sizeof(v));
	return 0;
}

/* A random locally administered unicast MAC, unlike the ports before. */
static void
mac_draw(uint8_t *mac, unsigned nprev)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned i;

		if (getrandom(mac, 6, 0) != 6) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			mac[1] = (uint8_t)getpid(); mac[2] = (uint8_t)(getpid() >> 8);
			mac[3] = (uint8_t)ts.tv_nsec; mac[4] = (uint8_t)(ts.tv_nsec >> 8);
			mac[5] = (uint8_t)(nprev + tries);
		}
		mac[0] = (uint8_t)((mac[0] & 0xfc) | 0x02);
		for (i = 0; i < nprev; i++)
			if (!memcmp(links[i].mac, mac, 6))
				break;
		if (i == nprev)
			return;
	}
}

static void
mac_assign(struct mxd_link *l, uint16_t pid)
{
	struct rte_ether_addr a;
	int ret;

	memcpy(l->pmd_mac, l->mac, 6);
	mac_draw(l->mac, nb_links);
	memcpy(a.addr_bytes, l->mac, 6);
	/* A PMD without the operation filters nothing by MAC: the engine's
	 * frames carry ours all the same. */
	ret = rte_eth_dev_default_mac_addr_set(pid, &a);
	l->mac_assigned = 1;
	MXD_LOG(DEBUG, port, "port %u (%s): MAC %02x:%02x:%02x:%02x:%02x:%02x "
			"assigned (the PMD's default is shared by every "
			"instance)%s", pid, l->name, l->mac[0], l->mac[1],
			l->mac[2], l->mac[3], l->mac[4], l->mac[5],
			ret == 0 ? "" : "; the PMD keeps its own");
}

static void
link_describe(struct mxd_link *l, uint16_t pid)
{
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;

	rte_eth_macaddr_get(pid, &mac);
	memcpy(l->mac, mac.addr_bytes, 6);
	rte_eth_dev_get_name_by_port(pid, l->name);
	if (rte_eth_dev_info_get(pid, &info) == 0 && info.driver_name)
		snprintf(l->driver, sizeof(l->driver), "%s", info.driver_name);
	l->numa_node = rte_eth_dev_socket_id(pid);
}

static void
link_roles(struct mxd_link *l, uint16_t pid)
{
	char sock[108];

	l->waits = 1;
	if (is_driver(pid, "net_memif")) {
		memif_socket(pid, sock, sizeof(sock));
		if (memif_is_server(pid)) {
			l->waits = 0;
			snprintf(l->down_hint, sizeof(l->down_hint), "no memif "
					"client has connected to %s yet", sock);
		} else {
			snprintf(l->down_hint, sizeof(l->down_hint), "is the "
					"memif server running (socket %s)?", sock);
		}
	} else if (is_driver(pid, "net_af_packet") ||
			is_driver(pid, "net_pcap")) {
		snprintf(l->down_hint, sizeof(l->down_hint),
				"is the interface up (ip link set dev IFACE up)?");
	} else {
		snprintf(l->down_hint, sizeof(l->down_hint),
				"is the cable in and the peer up?");
	}
}

static int
port_setup(uint16_t pid, const struct mxd_glue_conf *conf)
{
	struct mxd_link *l = &links[nb_links];
	struct port_priv *pp = &privs[nb_links];
	uint32_t mtu, fmax, room;
	int ret;

	rte_eth_dev_get_name_by_port(pid, l->name);
	if (is_driver(pid, "net_memif") && memif_check_args(pid, l->name) < 0)
		return -EINVAL;
	mtu = port_mtu(pid, conf);
	fmax = port_frame_max(pid);
	if (mtu + RTE_ETHER_HDR_LEN > fmax) {
		MXD_LOG(WARNING, port, "port %u: MTU %u lowered to %u: its "
				"frames must fit one memif buffer (bsize=%u; "
				"give both ends bsize=%u or more for this MTU)",
				pid, mtu, fmax - RTE_ETHER_HDR_LEN, fmax,
				mtu + RTE_ETHER_HDR_LEN);
		mtu = fmax - RTE_ETHER_HDR_LEN;
	}
	room = port_room(pid, mtu);

	pp->mp = port_pool(pid, conf, room);
	if (pp->mp == NULL) {
		mxd_glue_set_error("port %u (%s): no memory for %u frame "
				"buffers of %u bytes (%s): lower MX_MBUFS or "
				"give the EAL more memory (-m)", pid, l->name,
				conf->nb_mbufs, room, rte_strerror(rte_errno));
		return -rte_errno;
	}
	ret = port_queues(pid, conf, pp->mp);
	if (ret < 0) {
		mxd_glue_set_error("port %u (%s): configure: %s", pid, l->name,
				rte_strerror(-ret));
		return ret;
	}
	l->ops = &port_ops;
	l->port_id = pid;
	l->mtu = mtu;
	l->room = room;
	l->priv = pp;
	link_roles(l, pid);
	ret = rte_eth_dev_start(pid);
	/* A memif client whose server is not there yet: started again by
	 * mxd_glue_links_wait(). */
	if (ret < 0 && !(is_driver(pid, "net_memif") && l->waits)) {
		mxd_glue_set_error("port %u (%s): start: %s", pid, l->name,
				rte_strerror(-ret));
		return ret;
	}
	l->started = ret == 0;
	l->started_ms = now_ms();
	link_describe(l, pid);
	if (!conf->keep_pmd_mac && mac_is_default(pid, l->mac))
		mac_assign(l, pid);
	if (strcmp(l->driver, "net_memif") == 0) {
		uint32_t log2 = devarg_u32(pid, "rsize", 10);
		char zc[8] = "";

		guard_install();
		l->ops = &memif_ops;
		pp->memif = 1;
		pp->server = (uint8_t)memif_is_server(pid);
		devarg(pid, "zero-copy", zc, sizeof(zc));
		pp->zero_copy = !strcmp(zc, "yes") || !strcmp(zc, "on");
		if (log2 > 14)
			log2 = 14;	/* memif's largest */
		pp->ring_bytes = MEMIF_RING_HDR + (MEMIF_DESC << log2);
		pp->ring_mask = (uint16_t)((1u << log2) - 1);
	}
	nb_links++;
	return 0;
}

/* ---- ports the arguments asked for that DPDK did not create ------------ */

/* Whether an abstract (or path) unix socket address is bound already. */
static int
unix_addr_in_use(const char *path, int abstract)
{
	struct sockaddr_un sa;
	socklen_t len;
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0), busy;

	if (s < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path) - 1) {
		close(s);
		return 0;
	}
	if (abstract) {
		memcpy(sa.sun_path + 1, path, strlen(path));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				strlen(path));
		busy = bind(s, (struct sockaddr *)&sa, len) < 0 &&
			errno == EADDRINUSE;
	} else {
		memcpy(sa.sun_path, path, strlen(path));
		busy = connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	}
	close(s);
	return busy;
}

static void
devargs_value(const char *args, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	out[0] = '\0';
	for (const char *a = args; *a; a += strcspn(a, ","), a += *a == ',')
		if (!strncmp(a, key, kl) && a[kl] == '=')
			snprintf(out, len, "%.*s", (int)strcspn(a + kl + 1,
					","), a + kl + 1);
}

/* Why the --vdev 'spec' ("net_memif0,role=...") gave no port: -EBUSY if
 * another process holds it, else -ENODEV. */
static int
explain_missing(const char *spec)
{
	char name[64], args[256], role[16], sock[108], abs[8];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec, ","), spec);
	snprintf(args, sizeof(args), "%s", spec + strcspn(spec, ","));
	if (!strncmp(name, "net_memif", 9)) {
		devargs_value(args, "role", role, sizeof(role));
		devargs_value(args, "socket", sock, sizeof(sock));
		devargs_value(args, "socket-abstract", abs, sizeof(abs));
		if (sock[0] == '\0')
			snprintf(sock, sizeof(sock), "/run/memif.sock");
		if (role[0] && strcmp(role, "server") && strcmp(role, "client")
				&& strcmp(role, "master") && strcmp(role, "slave")) {
			mxd_glue_set_error("port %s: memif role \"%s\" is "
					"neither server nor client", name, role);
			return -ENODEV;
		}
		if ((!strcmp(role, "server") || !strcmp(role, "master")) &&
				unix_addr_in_use(sock, strcmp(abs, "no") != 0)) {
			mxd_glue_set_error("port %s: its memif socket %s is "
					"held by another process (a memif server "
					"already serves it): stop that process, "
					"give this port another socket=, or make "
					"it that server's client (role=client)",
					name, sock);
			return -EBUSY;
		}
	}
	mxd_glue_set_error("port %s (--vdev=%s) was not created: its driver "
			"refused it (another process may hold the device; "
			"MX_VERBOSE=1 shows DPDK's reason)", name, spec);
	return -ENODEV;
}

/* Every --vdev of the arguments became a port, or the reason is set. */
static int
vdevs_present(const char *args)
{
	const char *a = args;

	while (a != NULL && (a = strstr(a, "--vdev")) != NULL) {
		char spec[320];
		uint16_t pid;

		a += 6;
		a += strspn(a, "= \t");
		snprintf(spec, sizeof(spec), "%.*s", (int)strcspn(a, " \t\n"),
				a);
		{
			char name[64];

			snprintf(name, sizeof(name), "%.*s",
					(int)strcspn(spec, ","), spec);
			if (name[0] && rte_eth_dev_get_port_by_name(name,
						&pid) != 0)
				return explain_missing(spec);
		}
	}
	return 0;
}

int
mxd_glue_ports_open(const struct mxd_glue_conf *conf, struct mxd_link **out,
		unsigned *count)
{
	uint16_t pid;
	int ret;

	if (!ports_ready) {
		ret = vdevs_present(conf->eal_args);
		if (ret < 0)
			return ret;
		RTE_ETH_FOREACH_DEV(pid) {
			if (nb_links == MXD_GLUE_MAX_PORTS)
				break;
			ret = port_setup(pid, conf);
			if (ret < 0)
				return ret;
		}
		ports_ready = 1;
		memif_warm_start();
	}
	*out = links;
	*count = nb_links;
	return 0;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A memif client connected too early (its server had created the socket
 * but not started the port, and refused it) or to no server: it does not
 * try again by itself. */
#define RESTART_MS	200

static void
link_restart(struct mxd_link *l)
{
	/* The PMD says "Failed to connect socket" at every try while the
	 * server is away: the library said it once (board.c, init.c). */
	int type = rte_log_register("pmd.net.memif");
	int level = type >= 0 ? rte_log_get_level(type) : -1;

	if (level >= 0)
		rte_log_set_level(type, RTE_LOG_CRIT);
	if (l->started)
		rte_eth_dev_stop(l->port_id);
	l->started = rte_eth_dev_start(l->port_id) == 0;
	l->started_ms = now_ms();
	if (level >= 0)
		rte_log_set_level(type, (uint32_t)level);
}

unsigned
mxd_glue_links_wait(struct mxd_link *l, unsigned n, uint32_t ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned up = 0;

	for (uint32_t t = 0;; t++) {
		up = 0;
		for (unsigned i = 0; i < n; i++)
			up += (unsigned)(l[i].started &&
					l[i].ops->link_up(&l[i]));
		if (up == n || t >= ms)
			return up;
		nanosleep(&ts, NULL);
	}
}

unsigned
mxd_glue_links_start(struct mxd_link *l, unsigned n, uint32_t ms)
{
	struct timespec ts = { 0, 1000000 };
	uint64_t start = now_ms(), last = start;
	unsigned up;

	for (;;) {
		unsigned waiting = 0;
		uint64_t t = now_ms();

		up = 0;
		for (unsigned i = 0; i < n; i++) {
			int u = l[i].started && l[i].ops->link_up(&l[i]);

			up += (unsigned)u;
			waiting += !u && (l[i].waits || !l[i].started);
		}
		if (waiting == 0 || t - start >= ms)
			return up;
		if (t - last >= RESTART_MS) {
			for (unsigned i = 0; i < n; i++)
				if (l[i].ops->revive != NULL &&
						!(l[i].started &&
						l[i].ops->link_up(&l[i])))
					l[i].ops->revive(&l[i]);
			last = t;
		}
		nanosleep(&ts, NULL);
	}
}
