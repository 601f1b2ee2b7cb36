/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link of a process of a shared board: one port of the board, driven
 * without DPDK (shport.h tells the design).  The process in slot a sends
 * on its row of the queue matrix (queue (a, b) to the peer board's slot
 * b, chosen by the frame's 'to') and receives on its column (queue
 * (b, a) from the peer's slot b), each queue in the memif region of its
 * lane (one region per lane), plus the frames the board service
 * forwards to it (its forward ring).  It is the only writer of its row
 * and the only reader of its column: no lock, no atomic read-modify-write.
 *
 * Frames live in buffers of the process's own (struct shpool): a send
 * copies a frame into memif's buffer, a receive copies it out, as DPDK's
 * memif PMD does in copy mode.  The process maps the region itself, from
 * the descriptor the service gave it: the memory stays mapped until the
 * process maps the next one, so no burst can fault on a region that
 * vanished (what the DPDK port's guard in memif.c is for).  When the link
 * goes down the service raises the port's generation at the next link-up;
 * a link whose region is older reads as down and sends nothing until the
 * board maps the new one (mxd_glue_shlink_map).
 *
 * Only the columns of slots this process has sent to are looked at in a
 * burst, and every column once in SWEEP bursts: a peer that still sends
 * to a slot's former holder, or that heard of this process another way,
 * is read, and its ring never fills.
 *
 * A switched port (a NIC's, af_packet's: shport.h) has no matrix: the
 * link writes its frames to its up ring, which the service sends, and
 * reads those the service switched to its forward ring; no region is
 * mapped, and the link is up when the service's port is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "glue.h"
#include "mring.h"
#include "shlink.h"
#include "shport.h"

#define SWEEP		64	/* bursts between looks at every column */
#define BUF_HDR		64u	/* a buffer's header, before its frame */

struct shpool;

struct shbuf {
	struct shpool *pool;
	uint32_t refs;
	uint32_t next;		/* on the free list */
};

/* The process's frame buffers for one link: a free list, no lock (the
 * library runs one thread at a time in the engine). */
struct shpool {
	uint8_t *mem;
	size_t stride;
	uint32_t n, nfree;
	uint32_t *free;
};

struct shlink {
	struct mxd_link l;
	const struct mxd_shport *sp;
	struct mxd_fwd *fwd;		/* the service's frames for us */
	struct mxd_fwd *up;		/* ours for it (a switched port) */
	unsigned slot, nslots, nlanes;
	uint32_t gen;			/* of the regions mapped, 0: none */
	uint32_t lgen[MXD_SHPORT_LANES];	/* of each lane's region */
	uint8_t *base[MXD_SHPORT_LANES];
	uint64_t len[MXD_SHPORT_LANES];
	int dead;			/* the service is gone */
	uint64_t active;		/* columns read in every burst */
	unsigned sweep, next;
	uint32_t fwd_tail, up_head;
	uint64_t tx_n, rx_n;
	struct mxd_mring tx[MXD_SHPORT_SLOTS], rx[MXD_SHPORT_SLOTS];
	struct shpool pool;
};

static struct shlink *
sh(struct mxd_link *l)
{
	return (struct shlink *)(void *)l;
}

/* ---- buffers ------------------------------------------------------------- */

static int
pool_init(struct shpool *p, uint32_t n, uint32_t room)
{
	p->stride = (BUF_HDR + room + 63u) & ~(size_t)63;
	p->mem = mmap(NULL, p->stride * n, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->mem == MAP_FAILED) {
		p->mem = NULL;
		return -ENOMEM;
	}
	p->free = malloc(sizeof(*p->free) * n);
	if (p->free == NULL) {
		munmap(p->mem, p->stride * n);
		p->mem = NULL;
		return -ENOMEM;
	}
	p->n = n;
	for (uint32_t i = 0; i < n; i++)
		p->free[i] = n - 1 - i;
	p->nfree = n;
	return 0;
}

static struct shbuf *
pool_buf(const struct shpool *p, uint32_t i)
{
	return (struct shbuf *)(void *)(p->mem + p->stride * i);
}

static int
sh_alloc(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	struct shpool *p = &sh(l)->pool;

	if (n > p->nfree)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		struct shbuf *b = pool_buf(p, p->free[--p->nfree]);

		b->pool = p;
		b->refs = 1;
		f[i].h = b;
		f[i].data = (uint8_t *)b + BUF_HDR;
		f[i].len = (uint32_t)(p->stride - BUF_HDR);
		f[i].to = 0;
	}
	return 0;
}

static void
sh_ref(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		((struct shbuf *)f[i].h)->refs++;
}

static void
sh_free(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct shbuf *b = f[i].h;
		struct shpool *p = b->pool;

		if (--b->refs == 0)
			p->free[p->nfree++] = (uint32_t)(((uint8_t *)b -
						p->mem) / p->stride);
	}
}

static uint32_t
sh_in_use(struct mxd_link *l)
{
	return sh(l)->pool.n - sh(l)->pool.nfree;
}

/* ---- the datapath ------------------------------------------------------- */

/* The region mapped is the port's current one, and the link is up. */
static inline int
sh_ready(const struct shlink *s)
{
	return s->gen != 0 && __atomic_load_n(&s->sp->gen, __ATOMIC_ACQUIRE) ==
		s->gen && __atomic_load_n(&s->sp->state, __ATOMIC_ACQUIRE) ==
		MXD_SHPORT_UP;
}

/* A frame dropped at the link (chained, or larger than a buffer). */
static void
sh_drop(struct shlink *s)
{
	s->l.too_long++;
	s->l.news++;
}

/* The frames the service forwarded to us. */
static uint16_t
fwd_rx(struct shlink *s, struct mxd_frame *f, uint16_t n)
{
	struct mxd_fwd *r = s->fwd;
	uint32_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint32_t fs = s->sp->fwd_frame, fn = s->sp->fwd_n;
	uint16_t got = 0;

	if (head == s->fwd_tail)
		return 0;
	if (head - s->fwd_tail > fn)	/* not sane */
		s->fwd_tail = head - fn;
	while (got < n && s->fwd_tail != head &&
			sh_alloc(&s->l, &f[got], 1) == 0) {
		const uint8_t *e = mxd_fwd_entry(r, fs, fn, s->fwd_tail++);
		uint32_t len;

		memcpy(&len, e, 4);
		if (len > fs - MXD_FWD_HDR || len > f[got].len) {
			sh_free(&f[got], 1);
			sh_drop(s);
			continue;
		}
		memcpy(f[got].data, e + MXD_FWD_HDR, len);
		f[got++].len = len;
	}
	__atomic_store_n(&r->tail, s->fwd_tail, __ATOMIC_RELEASE);
	return got;
}

/* Up to n frames of one column's ring. */
static uint16_t
ring_rx(struct shlink *s, struct mxd_mring *r, struct mxd_frame *f,
		uint16_t n)
{
	uint16_t k = mxd_mring_ready(r), got = 0;

	if (k == 0)
		return 0;
	if (k > n)
		k = n;
	if (k > s->pool.nfree)
		k = (uint16_t)s->pool.nfree;
	if (k == 0 || sh_alloc(&s->l, f, k) != 0)
		return 0;
	/* f[0..k) are ours: a slot dropped leaves f[got] for the next. */
	for (uint16_t i = 0; i < k; i++) {
		uint32_t len;
		const uint8_t *p = mxd_mring_get(r, &len);

		if (p == NULL || len > f[got].len) {
			sh_drop(s);
			continue;
		}
		memcpy(f[got].data, p, len);
		f[got++].len = len;
	}
	if (got < k)
		sh_free(f + got, k - got);
	mxd_mring_release(r);
	return got;
}

static uint16_t
sh_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct shlink *s = sh(l);
	uint64_t cols = s->active;
	uint16_t got;

	if (__builtin_expect(!sh_ready(s), 0))
		return 0;
	got = fwd_rx(s, f, n);
	if (++s->sweep >= SWEEP) {
		s->sweep = 0;
		cols = (1ull << s->nslots) - 1;
	}
	for (unsigned i = 0; i < s->nslots && got < n; i++) {
		unsigned b = s->next + i < s->nslots ? s->next + i :
			s->next + i - s->nslots;

		if (cols & (1ull << b))
			got += ring_rx(s, &s->rx[b], f + got, n - got);
	}
	if (++s->next >= s->nslots)
		s->next = 0;
	s->rx_n += got;
	return got;
}

/*
 * Each frame to its slot's ring of our row, in order: a ring that is full
 * ends the burst (the frames after it stay the caller's, queued).  A
 * link that is down loses what it is given, like a port whose link is
 * down.
 */
static uint16_t
sh_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct shlink *s = sh(l);
	uint64_t dirty = 0;
	uint16_t i;

	if (__builtin_expect(!sh_ready(s), 0)) {
		sh_free(f, n);
		return n;
	}
	for (i = 0; i < n; i++) {
		unsigned b = f[i].to < s->nslots ? f[i].to : 0;
		struct mxd_mring *r = &s->tx[b];

		if (mxd_mring_room(r) == 0)
			break;
		if (mxd_mring_put(r, f[i].data, f[i].len) < 0)
			sh_drop(s);
		dirty |= 1ull << b;
	}
	for (uint64_t m = dirty; m != 0; m &= m - 1)
		mxd_mring_publish(&s->tx[__builtin_ctzll(m)]);
	s->active |= dirty;
	s->tx_n += i;
	sh_free(f, i);
	return i;
}

/* ---- a switched port's datapath ------------------------------------------ */

static inline int
sw_ready(const struct shlink *s)
{
	return !s->dead && __atomic_load_n(&s->sp->state, __ATOMIC_ACQUIRE) ==
		MXD_SHPORT_UP;
}

static uint16_t
sw_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct shlink *s = sh(l);
	uint16_t got;

	if (__builtin_expect(!sw_ready(s), 0))
		return 0;
	got = fwd_rx(s, f, n);
	s->rx_n += got;
	return got;
}

/* Each frame into the up ring, in order, published once: a ring that is
 * full ends the burst (the rest stay the caller's, queued); a link that
 * is down loses what it is given. */
static uint16_t
sw_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct shlink *s = sh(l);
	struct mxd_fwd *r = s->up;
	uint32_t fs = s->sp->fwd_frame, fn = s->sp->fwd_n;
	uint32_t room, head = s->up_head;
	uint16_t i;

	if (__builtin_expect(!sw_ready(s), 0)) {
		sh_free(f, n);
		return n;
	}
	room = fn - (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
	if (room > fn)			/* the service reset the ring */
		room = 0;
	for (i = 0; i < n && i < room; i++) {
		uint8_t *e;

		if (f[i].len > fs - MXD_FWD_HDR) {
			sh_drop(s);
			continue;
		}
		e = mxd_fwd_entry(r, fs, fn, head++);
		memcpy(e, &f[i].len, 4);
		memcpy(e + MXD_FWD_HDR, f[i].data, f[i].len);
	}
	if (head != s->up_head) {
		__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
		s->up_head = head;
	}
	s->tx_n += i;
	sh_free(f, i);
	return i;
}

/* ---- control ------------------------------------------------------------ */

static int
sh_link_up(struct mxd_link *l)
{
	return !sh(l)->dead && sh_ready(sh(l));
}

static int
sw_link_up(struct mxd_link *l)
{
	return sw_ready(sh(l));
}

static uint32_t
sh_speed(struct mxd_link *l)
{
	(void)l;
	return 0;
}

static void
sh_stats(struct mxd_link *l, uint64_t *tx, uint64_t *rx)
{
	*tx = sh(l)->tx_n;
	*rx = sh(l)->rx_n;
}

static const struct mxd_link_ops shlink_ops = {
	.rx_burst = sh_rx,
	.tx_burst = sh_tx,
	.alloc = sh_alloc,
	.ref = sh_ref,
	.free = sh_free,
	.link_up = sh_link_up,
	.speed_mbps = sh_speed,
	.stats = sh_stats,
	.in_use = sh_in_use,
};

static const struct mxd_link_ops switch_ops = {
	.rx_burst = sw_rx,
	.tx_burst = sw_tx,
	.alloc = sh_alloc,
	.ref = sh_ref,
	.free = sh_free,
	.link_up = sw_link_up,
	.speed_mbps = sh_speed,
	.stats = sh_stats,
	.in_use = sh_in_use,
};

/* The port's geometry is one this link can drive. */
static int
geometry_ok(const struct mxd_shport *sp, struct mxd_fwd *up, unsigned slot)
{
	if (sp->nslots == 0 || sp->nslots > MXD_SHPORT_SLOTS ||
			slot >= sp->nslots || sp->fwd_n == 0 ||
			(sp->fwd_n & (sp->fwd_n - 1)) != 0 ||
			sp->fwd_frame <= MXD_FWD_HDR)
		return 0;
	if (sp->mode == MXD_SHPORT_SWITCHED)
		return up != NULL;
	return sp->mode == MXD_SHPORT_MATRIX && sp->nlanes ==
		mxd_shport_lanes(sp->nslots) && sp->lane_q ==
		mxd_shport_lane_q(sp->nslots);
}

struct mxd_link *
mxd_glue_shlink_new(const struct mxd_shport *sp, struct mxd_fwd *fwd,
		struct mxd_fwd *up, unsigned slot, uint32_t nb_bufs)
{
	int sw = sp->mode == MXD_SHPORT_SWITCHED;
	struct shlink *s;

	if (!geometry_ok(sp, up, slot)) {
		mxd_glue_set_error("shared port %s: slot %u of %u slots, mode "
				"%u, %u lanes of %u queue pairs, rings of %u",
				sp->name, slot, sp->nslots, sp->mode,
				sp->nlanes, sp->lane_q, sp->fwd_n);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL || pool_init(&s->pool, nb_bufs, sp->room) < 0) {
		free(s);
		mxd_glue_set_error("no memory for %u frame buffers of %u "
				"bytes: lower MX_MBUFS", nb_bufs, sp->room);
		return NULL;
	}
	s->sp = sp;
	s->fwd = fwd;
	s->fwd_tail = __atomic_load_n(&fwd->tail, __ATOMIC_ACQUIRE);
	s->up = sw ? up : NULL;
	s->up_head = sw ? __atomic_load_n(&up->head, __ATOMIC_ACQUIRE) : 0;
	s->slot = slot;
	s->nslots = sp->nslots;
	s->nlanes = sw ? 0 : sp->nlanes;
	s->active = 1;			/* the peer's service answers us */
	s->l.ops = sw ? &switch_ops : &shlink_ops;
	memcpy(s->l.mac, sp->mac, 6);
	s->l.mtu = sp->mtu;
	s->l.room = sp->room;
	s->l.numa_node = -1;
	s->l.started = 1;
	snprintf(s->l.name, sizeof(s->l.name), "%s", sp->name);
	snprintf(s->l.driver, sizeof(s->l.driver), "%s", sp->driver);
	snprintf(s->l.down_hint, sizeof(s->l.down_hint), "the board "
			"service's port %s is down: is the peer board's "
			"service running (mx_board status on its host)?",
			sp->name);
	return &s->l;
}

uint32_t
mxd_glue_shlink_gen(const struct mxd_link *l)
{
	const struct shlink *s = (const struct shlink *)(const void *)l;

	/* A switched port has no region to map: always the current one. */
	if (s->up != NULL)
		return __atomic_load_n(&s->sp->gen, __ATOMIC_ACQUIRE);
	return s->gen;
}

/* The rings, and lane k's region (all of them: k < 0), let go of. */
static void
unmap(struct shlink *s, int k)
{
	for (unsigned i = 0; i < s->nlanes; i++) {
		if (k >= 0 && i != (unsigned)k)
			continue;
		if (s->base[i] != NULL)
			munmap(s->base[i], s->len[i]);
		s->base[i] = NULL;
		s->lgen[i] = 0;
	}
	s->gen = 0;
	memset(s->tx, 0, sizeof(s->tx));
	memset(s->rx, 0, sizeof(s->rx));
}

/* Our row and column, each queue in its lane's region. */
static int
attach_rings(struct shlink *s, unsigned log2, uint32_t bsize, int server)
{
	unsigned S = s->nslots, Q = s->sp->lane_q;

	for (unsigned b = 0; b < S; b++) {
		unsigned lt, lr, qt = mxd_shport_at(S, s->slot, b, &lt),
			 qr = mxd_shport_at(S, b, s->slot, &lr);

		/* The service as memif client writes the C2S rings. */
		if (mxd_mring_attach(&s->tx[b], s->base[lt], s->len[lt], Q,
					qt, !server, log2, bsize) < 0 ||
				mxd_mring_attach(&s->rx[b], s->base[lr],
					s->len[lr], Q, qr, server, log2,
					bsize) < 0)
			return -1;
	}
	return 0;
}

int
mxd_glue_shlink_map(struct mxd_link *l, unsigned lane, int fd, uint32_t gen,
		uint64_t len)
{
	struct shlink *s = sh(l);
	const struct mxd_shport *sp = s->sp;
	unsigned Q = sp->lane_q;
	void *m;

	if (lane >= s->nlanes) {
		mxd_glue_set_error("port %s: lane %u of %u", sp->name, lane,
				s->nlanes);
		return -EINVAL;
	}
	unmap(s, (int)lane);
	if (len < mxd_mring_region_len(Q, sp->log2_ring, sp->bsize)) {
		mxd_glue_set_error("port %s: memif region of lane %u of %llu "
				"bytes, less than %u queue pairs of 2^%u "
				"buffers of %u bytes", sp->name, lane,
				(unsigned long long)len, Q, sp->log2_ring,
				sp->bsize);
		return -EINVAL;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		mxd_glue_set_error("port %s: cannot map the memif region of "
				"lane %u: %s", sp->name, lane, strerror(errno));
		return -errno;
	}
	s->base[lane] = m;
	s->len[lane] = len;
	s->lgen[lane] = gen;
	for (unsigned k = 0; k < s->nlanes; k++)
		if (s->lgen[k] != gen)
			return 0;	/* the other lanes' regions next */
	if (attach_rings(s, sp->log2_ring, sp->bsize, sp->server != 0) < 0) {
		unmap(s, -1);
		mxd_glue_set_error("port %s: its memif regions do not hold "
				"the rings of %u lanes of %u queue pairs",
				sp->name, s->nlanes, Q);
		return -EINVAL;
	}
	/* Our rings' descriptors now, not at the first frames. */
	for (unsigned b = 0; b < s->nslots; b++) {
		mxd_glue_prefault(s->tx[b].ring, mxd_mring_bytes(sp->log2_ring));
		mxd_glue_prefault(s->rx[b].ring, mxd_mring_bytes(sp->log2_ring));
	}
	s->gen = gen;
	return 0;
}

void
mxd_glue_shlink_kill(struct mxd_link *l)
{
	sh(l)->dead = 1;
	sh(l)->gen = 0;
}

void
mxd_glue_shlink_free(struct mxd_link *l)
{
	struct shlink *s = sh(l);

	if (l == NULL)
		return;
	unmap(s, -1);
	if (s->pool.mem != NULL)
		munmap(s->pool.mem, s->pool.stride * s->pool.n);
	free(s->pool.free);
	free(s);
}
