/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The board service of a shared board: the one DPDK process of the
 * boards it serves (pmd-glue/shport.h tells the design).
 *
 * It initialises the EAL and brings the ports of MX_DPDK_ARGS up, memif
 * ports all of them, each with the S * S queues (S = MX_BOARD_SLOTS) of
 * the queue matrix by which each process of the host drives its own
 * queues: one memif interface per lane of the matrix, lane 0 the one
 * MX_DPDK_ARGS names, lanes 1 and up added here (the same socket, ids
 * id + 1 and up).  It makes a host segment per board (board/host.h),
 * listens on its socket (board/service.h) and gives each process that
 * connects a slot, the segments and each port's memif regions; a process's
 * connection and pidfd tell it when the process is gone.  Then, in one
 * thread, it loops: its own queues (slot 0's column: name queries, which
 * it answers, and connect requests and frames for a slot their sender did
 * not know, which it forwards to the process that holds their endpoint,
 * or refuses for an endpoint nobody holds); the columns of the slots
 * nobody holds, read and dropped so that no peer's ring fills; the links
 * (a new region at each link-up, handed on with a new generation); the
 * dead slots, freed once every live process let go of them.  Between two
 * rounds it sleeps in poll() on its sockets for IDLE_MS: a name query or
 * a first connect waits at most that long; the processes' own traffic
 * never passes here.
 *
 * Any other port (a NIC, af_packet, af_xdp) is switched: one queue pair,
 * driven by the service alone, each frame received handed to the forward
 * ring of the slot that holds its endpoint (serve(), as slot 0's frames
 * are), each frame a process wrote to its up ring sent.  While a process
 * holds a slot and a switched port moved a frame in the last SPIN_MS,
 * the service polls, napping NAP_NS between rounds once no frame moved
 * for MX_BOARD_SPIN_US, and looks at its sockets and the rest once a
 * millisecond.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "glue.h"
#include "log.h"
#include "mring.h"
#include "shport.h"
#include "wire.h"
#include "util/config.h"
#include "board/host.h"
#include "board/service.h"
#include "service.h"

#define IDLE_MS		1	/* poll()'s sleep between rounds */
#define REVIVE_MS	200	/* a memif client that lost its server */
#define CLIENTS_MAX	128
#define GONE_WAIT_MS	5000	/* for a process gone from its slot to exit */
#define BURST		32
#define DRAIN_MS	8	/* between looks at the columns nobody holds:
				 * a ring (128 frames or more) fills slower */
#define SPIN_MS		100	/* a switched port's quiet time before the
				 * service sleeps between rounds again */
#define NAP_NS		10000	/* between rounds, once quiet for
				 * MX_BOARD_SPIN_US */

/* A lane of a port: one memif interface, its region. */
struct slane {
	struct mxd_link *l;
	int fd;			/* the region's (our own descriptor) */
	uint8_t *base;		/* our own mapping of it */
	uint64_t len;
};

struct sport {
	struct mxd_link *l;	/* lane 0's: the port's MAC, row 0 */
	struct mxd_shport *sp;
	int sw;			/* switched: one interface, no matrix */
	int up;			/* as handed to the processes */
	struct slane lane[MXD_SHPORT_LANES];
	uint64_t next_try;	/* ms: the next look for the regions */
	int said;		/* a wrong region, said once */
};

struct sboard {
	struct mxd_host *h;
	int fd;
	size_t len;
	unsigned nports;
	struct sport port[MXD_HOST_PORTS];
};

struct client {
	int fd, pidfd;
	int32_t pid;
	unsigned slot;		/* 0: an observer */
};

static struct {
	unsigned S, Q, L, log2;	/* slots, queue pairs of a lane, lanes */
	uint32_t bsize;
	int server[MXD_GLUE_MAX_PORTS];
	int sw[MXD_GLUE_MAX_PORTS];	/* port switched: not memif */
	/* Each port's lanes, lane 0 the port's own interface. */
	struct mxd_link *lanes[MXD_GLUE_MAX_PORTS][MXD_SHPORT_LANES];
	struct sboard board[MXD_HOST_PORTS];
	unsigned nboards;
	struct client cl[CLIENTS_MAX];
	unsigned ncl;
	/* Processes whose connection ended, their counters segments removed
	 * once their pidfd says they exited (a killed process closes its
	 * descriptors before it exits). */
	struct gone { int pidfd; int32_t pid; uint64_t until_ms; }
		gone[CLIENTS_MAX];
	unsigned ngone;
	int lfd;
	uint64_t next_revive;
	uint64_t next_drain;	/* ms: the next look at the idle columns */
	uint64_t sw_last;	/* ns: a switched port's last frame */
} svc;

static volatile sig_atomic_t stop_now;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- MX_DPDK_ARGS for the matrix ---------------------------------------- */

/*
 * memif gives each ring's buffers the 16-bit index ring * size + slot
 * (DPDK 22.11): beyond 65536 buffers they alias, and two rings' frames
 * overwrite each other.  So Q * 2^(rsize + 1) <= 65536: a memif --vdev
 * without rsize gets the largest that holds (at most 10, memif's
 * default), one with a larger rsize is refused, and so is zero-copy
 * (its buffers are the sender's memory, which a process cannot map).
 */
static int
rsize_max(unsigned q)
{
	int r = 10;

	while (r > 0 && (uint64_t)q << (r + 1) > 65536)
		r--;
	return r;
}

static int
memif_arg(const char *spec, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *a = strchr(spec, ','); a != NULL;
			a = strchr(a + 1, ','))
		if (!strncmp(a + 1, key, kl) && a[1 + kl] == '=') {
			snprintf(out, len, "%.*s", (int)strcspn(a + 2 + kl,
					", \t"), a + 2 + kl);
			return 1;
		}
	return 0;
}

/* One word of MX_DPDK_ARGS, a memif --vdev fixed into 'out'. */
static int
vdev_fix(const char *w, char *out, size_t len, int rmax)
{
	char v[32];

	snprintf(out, len, "%s", w);
	if (strstr(w, "net_memif") == NULL)
		return 0;
	if (memif_arg(w, "zero-copy", v, sizeof(v)) &&
			(!strcmp(v, "yes") || !strcmp(v, "on"))) {
		fprintf(stderr, "mx_board: %s: a shared board's memif ports "
				"copy (zero-copy=no): its processes cannot map "
				"the sender's memory\n", w);
		return -1;
	}
	if (!memif_arg(w, "rsize", v, sizeof(v))) {
		snprintf(out, len, "%s,rsize=%d", w, rmax);
		return 0;
	}
	if (atoi(v) > rmax) {
		fprintf(stderr, "mx_board: %s: with MX_BOARD_SLOTS=%u (%u queue "
				"pairs), memif's buffers alias beyond rsize=%d: "
				"give rsize=%d or less, or fewer slots\n", w,
				svc.S, svc.Q, rmax, rmax);
		return -1;
	}
	return 0;
}

/* The memif interface of lane k (k >= 1) of the port that memif --vdev
 * word w names: its name the port's with "_lane<k>" after it, its id the
 * port's plus k, its other arguments the port's. */
static int
lane_vdev(const char *w, unsigned k, char *out, size_t len)
{
	const char *spec = strstr(w, "net_memif"), *args;
	char v[32];
	long id = 0;
	int n;

	if (spec == NULL)
		return -1;
	args = strchr(spec, ',');
	if (memif_arg(w, "id", v, sizeof(v)))
		id = strtol(v, NULL, 0);
	n = snprintf(out, len, "--vdev=%.*s_lane%u,id=%ld", (int)(args != NULL ?
				args - spec : (ptrdiff_t)strlen(spec)), spec, k,
			id + (long)k);
	for (const char *a = args; a != NULL && *a; a = strchr(a + 1, ',')) {
		size_t al = strcspn(a + 1, ",");

		if (!strncmp(a + 1, "id=", 3) || al == 0)
			continue;
		n += snprintf(out + n, len > (size_t)n ? len - (size_t)n : 0,
				",%.*s", (int)al, a + 1);
	}
	return n > 0 && (size_t)n < len ? 0 : -1;
}

static char *
args_fix(const char *args)
{
	size_t cap = (strlen(args != NULL ? args : "") + 64) * 2 *
		(MXD_SHPORT_LANES + 1);
	char *out = calloc(1, cap), *copy = strdup(args != NULL ? args : "");
	char *save = NULL, w[512];
	int rmax = rsize_max(svc.Q);

	if (out == NULL || copy == NULL)
		goto fail;
	for (char *t = strtok_r(copy, " \t\n", &save); t != NULL;
			t = strtok_r(NULL, " \t\n", &save)) {
		if (vdev_fix(t, w, sizeof(w), rmax) < 0)
			goto fail;
		if (strlen(out) + strlen(w) + 2 > cap)
			goto fail;
		strcat(out, *out ? " " : "");
		strcat(out, w);
		for (unsigned k = 1; k < svc.L && strstr(w, "net_memif") !=
				NULL; k++) {
			char lw[600];

			if (lane_vdev(w, k, lw, sizeof(lw)) < 0 ||
					strlen(out) + strlen(lw) + 2 > cap)
				goto fail;
			strcat(out, " ");
			strcat(out, lw);
		}
	}
	free(copy);
	return out;
fail:
	free(copy);
	free(out);
	return NULL;
}

/* ---- the host segments --------------------------------------------------- */

/* The DPDK interfaces of port P: a memif port's lanes, a switched
 * port's one. */
static unsigned
port_lanes(const struct sport *P)
{
	return P->sw ? 1 : svc.L;
}

/* A memif port is driven by its processes through the queue matrix;
 * any other is switched by the service. */
static void
port_check(struct mxd_link *l, unsigned i)
{
	unsigned log2;
	uint32_t bsize;
	int server;

	if (mxd_glue_memif_geometry(l, &log2, &bsize, &server) < 0) {
		svc.sw[i] = 1;
		return;
	}
	svc.log2 = log2;
	svc.bsize = bsize;
	svc.server[i] = server;
}

/* Port p's place in the segment from *off on (its forward rings, then a
 * switched port's up rings), *off moved past it. */
static void
shport_fill(struct mxd_shport *sp, const struct mxd_link *l, unsigned p,
		uint32_t fwd_frame, size_t *off)
{
	int sw = svc.sw[p];

	sp->nslots = svc.S;
	sp->mode = sw ? MXD_SHPORT_SWITCHED : MXD_SHPORT_MATRIX;
	sp->nlanes = sw ? 0 : svc.L;
	sp->lane_q = sw ? 0 : svc.Q;
	sp->log2_ring = sw ? 0 : svc.log2;
	sp->bsize = sw ? 0 : svc.bsize;
	sp->server = sw ? 0 : (uint32_t)svc.server[p];
	sp->mtu = l->mtu;
	sp->room = l->room;
	memcpy(sp->mac, l->mac, 6);
	sp->fwd_frame = fwd_frame;
	sp->fwd_n = sw ? MXD_SHPORT_SWITCH_N : MXD_SHPORT_FWD;
	sp->fwd_bytes = mxd_fwd_bytes(fwd_frame, sp->fwd_n);
	sp->fwd_off = *off;
	*off += (size_t)svc.S * sp->fwd_bytes;
	if (sw) {
		sp->up_off = *off;
		*off += (size_t)svc.S * sp->fwd_bytes;
	}
	snprintf(sp->name, sizeof(sp->name), "%.47s", l->name);
	snprintf(sp->driver, sizeof(sp->driver), "%.31s", l->driver);
}

static int
board_make(struct sboard *B, unsigned idx, const char *host,
		struct mxd_link **links, const int *ports, unsigned n)
{
	uint32_t room = 0, fwd_frame;
	size_t ring_off, len, off;
	struct mxd_host *h;
	struct mxd_shport sp;

	for (unsigned p = 0; p < n; p++)
		if (links[ports[p]]->room > room)
			room = links[ports[p]]->room;
	fwd_frame = (MXD_FWD_HDR + room + 63u) & ~63u;
	len = mxd_host_fwd_start(svc.S, MXD_HOST_RING_BYTES, &ring_off);
	for (unsigned p = 0; p < n; p++)	/* the rings' bytes */
		shport_fill(&sp, links[ports[p]], (unsigned)ports[p], fwd_frame,
				&len);
	B->fd = memfd_create("mx-board-host", MFD_CLOEXEC);
	if (B->fd < 0 || ftruncate(B->fd, (off_t)len) != 0)
		return -1;
	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, B->fd, 0);
	if (h == MAP_FAILED)
		return -1;
	B->h = h;
	B->len = len;
	B->nports = n;
	h->version = MXD_HOST_VERSION;
	h->nslots = svc.S;
	h->ring_bytes = MXD_HOST_RING_BYTES;
	h->nic_id = mxd_mac_to_nic(links[ports[0]]->mac);
	h->ring_off = ring_off;
	h->size = len;
	h->service_pid = (int32_t)getpid();
	h->service_epoch = (uint32_t)now_ns() | 1u;
	snprintf(h->board_name, sizeof(h->board_name), "%.55s:%u", host, idx);
	for (unsigned e = 0; e < MXD_HOST_ENDPOINTS; e++)
		h->ep_slot[e] = MXD_HOST_NO_SLOT;
	h->slot[0].state = MXD_HOST_SLOT_LIVE;
	h->slot[0].pid = (int32_t)getpid();
	h->slot[0].epoch = 1;
	h->slot[0].since_ns = now_ns();
	h->nports = n;
	off = mxd_host_fwd_start(svc.S, MXD_HOST_RING_BYTES, NULL);
	for (unsigned p = 0; p < n; p++) {
		struct sport *P = &B->port[p];

		P->l = links[ports[p]];
		P->sp = &h->port[p];
		P->sw = svc.sw[ports[p]];
		for (unsigned k = 0; k < port_lanes(P); k++) {
			P->lane[k].l = svc.lanes[ports[p]][k];
			P->lane[k].fd = -1;
		}
		shport_fill(P->sp, P->l, (unsigned)ports[p], fwd_frame, &off);
	}
	__atomic_store_n(&h->magic, MXD_HOST_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

/* ---- frames of our own -------------------------------------------------- */

/* A frame on queue q of port P's lane k: header (to dst) and 'body'
 * bytes written by fill; 0 or -1. */
static int
frame_send(struct sport *P, unsigned k, uint16_t q, const uint8_t *dst,
		const struct mxd_hdr_args *a, uint16_t body,
		void (*fill)(uint8_t *p, const void *arg), const void *arg,
		uint8_t *copy, uint32_t *copy_len)
{
	struct mxd_link *l = P->lane[k].l;
	struct mxd_frame f;

	if (l->ops->alloc(l, &f, 1) != 0)
		return -1;
	mxd_wire_put_hdr(f.data, dst, P->l->mac, a, body);
	fill(f.data + MXD_HDRS_LEN, arg);
	f.len = (uint32_t)MXD_HDRS_LEN + body;
	if (f.len < 60) {
		memset(f.data + f.len, 0, 60 - f.len);
		f.len = 60;
	}
	mxd_wire_seal(f.data);
	if (copy != NULL) {
		memcpy(copy, f.data, f.len < 64 ? f.len : 64);
		*copy_len = f.len;
	}
	f.to = 0;
	if (mxd_glue_queue_tx(l, q, &f, 1) != 1) {
		l->ops->free(&f, 1);
		return -1;
	}
	return 0;
}

struct disc_arg {
	const struct mxd_host *h;
	int query;
};

static void
disc_fill(uint8_t *p, const void *arg)
{
	const struct disc_arg *d = arg;

	mxd_wire_put_disc(p, d->h->nic_id, 0, d->h->board_name, NULL);
}

static const uint8_t bcast[MXD_ETH_ALEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/*
 * The board announced on lane k of port P, on the lane's queue 0 (slot
 * 0's queue to the peer's slot 0 on lane 0; on lane k, before any
 * process drives it, that of the first slot of the lane's rows): the
 * frame by which mxd_glue_memif_region() finds the lane's region, its
 * src_peer the lane, so that no two lanes' frames look alike.  The
 * peer's service reads it on its column and lets it be.
 */
static int
announce(struct sboard *B, struct sport *P, unsigned k, uint8_t *copy,
		uint32_t *len)
{
	struct mxd_hdr_args a = { .type = MXD_T_DISCOVER,
		.src_peer = (uint16_t)k };
	struct disc_arg d = { B->h, 0 };

	return frame_send(P, k, 0, bcast, &a, sizeof(struct mxd_disc_hdr),
			disc_fill, &d, copy, len);
}

static void
answer_disc(struct sboard *B, struct sport *P, unsigned from,
		const struct mxd_pkt *pkt)
{
	struct mxd_hdr_args a = { .type = MXD_T_DISCOVER };
	struct disc_arg d = { B->h, 0 };

	frame_send(P, 0, (uint16_t)from, pkt->eth->src, &a,
			sizeof(struct mxd_disc_hdr), disc_fill, &d, NULL, NULL);
}

struct refuse_arg {
	const struct mxd_host *h;
	const struct mxd_pkt *pkt;
	uint16_t mtu;
};

static void
refuse_fill(uint8_t *p, const void *arg)
{
	const struct refuse_arg *r = arg;

	mxd_wire_put_conn(p, r->h->nic_id, r->pkt->u.conn.src_nic,
			r->pkt->u.conn.conn_id, 0, MXD_CONN_CLOSED, 0, r->mtu,
			mxd_caps_of_slot(0, 1));
}

/* A connect request for an endpoint that no process holds: closed, as the
 * engine answers for one of its own. */
static void
refuse_conn(struct sboard *B, struct sport *P, unsigned from,
		const struct mxd_pkt *pkt)
{
	struct mxd_hdr_args a = {
		.type = MXD_T_CONN_REP, .src_ep = pkt->h.dst_ep,
		.dst_ep = pkt->h.src_ep, .dst_peer = pkt->h.src_peer,
		.src_peer = MXD_NO_PEER, .filter = pkt->u.conn.src_filter,
		.dst_session = pkt->h.src_session,
	};
	struct refuse_arg r = { B->h, pkt, (uint16_t)P->l->mtu };

	frame_send(P, 0, (uint16_t)from, pkt->eth->src, &a,
			sizeof(struct mxd_conn_hdr), refuse_fill, &r, NULL, NULL);
}

/* ---- slot 0's column ----------------------------------------------------- */

static int
slot_live(const struct mxd_host *h, uint32_t s)
{
	return s > 0 && s < svc.S && __atomic_load_n(&h->slot[s].state,
			__ATOMIC_ACQUIRE) == MXD_HOST_SLOT_LIVE;
}

/* To the forward ring of slot s on port p; dropped if it is full (the
 * sender asks again). */
static void
forward(struct sboard *B, unsigned p, unsigned s, const struct mxd_frame *f)
{
	struct mxd_fwd *r = mxd_host_fwd(B->h, p, s);
	uint32_t fs = B->h->port[p].fwd_frame, fn = B->h->port[p].fwd_n;
	uint32_t head = r->head;
	uint8_t *e;

	if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >= fn ||
			f->len > fs - MXD_FWD_HDR) {
		B->h->fwd_dropped++;
		return;
	}
	e = mxd_fwd_entry(r, fs, fn, head);
	memcpy(e, &f->len, 4);
	memcpy(e + MXD_FWD_HDR, f->data, f->len);
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

/* A frame that came to slot 0 of port p from the peer's slot 'from'. */
static void
serve(struct sboard *B, unsigned p, unsigned from, struct mxd_frame *f)
{
	struct mxd_host *h = B->h;
	struct mxd_pkt pkt;
	uint32_t owner;

	if (f->len < MXD_HDRS_LEN || mxd_wire_parse_lazy(f->data, f->len,
				&pkt) != MXD_DROP_NONE)
		return;
	switch (pkt.h.type) {
	case MXD_T_DISCOVER:
		if (pkt.u.disc.query && !strcmp(pkt.u.disc.want,
					h->board_name))
			answer_disc(B, &B->port[p], from, &pkt);
		else if (!pkt.u.disc.query && B->port[p].sw)
			/* An answer to one of our processes' queries: a
			 * matrix port brings it to the asker's column, a
			 * switched one here; each process takes it. */
			for (unsigned s = 1; s < svc.S; s++)
				if (slot_live(h, s))
					forward(B, p, s, f);
		return;
	case MXD_T_CONN_REQ:
		if (pkt.u.conn.dst_nic != h->nic_id)
			return;
		owner = pkt.h.dst_ep < MXD_HOST_ENDPOINTS ? __atomic_load_n(
				&h->ep_slot[pkt.h.dst_ep], __ATOMIC_ACQUIRE) :
			MXD_HOST_NO_SLOT;
		if (slot_live(h, owner)) {
			h->fwd_conn++;
			forward(B, p, owner, f);
		} else {
			h->conn_refused++;
			refuse_conn(B, &B->port[p], from, &pkt);
		}
		return;
	default:
		owner = pkt.h.dst_ep < MXD_HOST_ENDPOINTS ? __atomic_load_n(
				&h->ep_slot[pkt.h.dst_ep], __ATOMIC_ACQUIRE) :
			MXD_HOST_NO_SLOT;
		if (slot_live(h, owner)) {
			h->fwd_other += !B->port[p].sw;
			forward(B, p, owner, f);
		} else {
			h->fwd_dropped++;
		}
	}
}

static unsigned
column0(struct sboard *B, unsigned p)
{
	struct mxd_frame f[BURST];
	unsigned work = 0;

	for (unsigned a = 0; a < svc.S; a++) {
		unsigned k, q = mxd_shport_at(svc.S, a, 0, &k);
		struct mxd_link *l = B->port[p].lane[k].l;
		uint16_t n = mxd_glue_queue_rx(l, (uint16_t)q, f, BURST);

		for (uint16_t i = 0; i < n; i++)
			serve(B, p, a, &f[i]);
		if (n != 0)
			l->ops->free(f, n);
		work += n;
	}
	return work;
}

/* The columns of the slots nobody holds: read and dropped. */
static unsigned
drain(struct sboard *B, unsigned p)
{
	struct sport *P = &B->port[p];
	int server = (int)P->sp->server;
	unsigned work = 0;

	for (unsigned b = 1; b < svc.S; b++) {
		if (slot_live(B->h, b))
			continue;
		for (unsigned a = 0; a < svc.S; a++) {
			unsigned k, q = mxd_shport_at(svc.S, a, b, &k);
			struct mxd_mring r;

			if (mxd_mring_attach(&r, P->lane[k].base,
						P->lane[k].len, svc.Q, q, server,
						svc.log2, svc.bsize) == 0)
				work += mxd_mring_drain(&r);
		}
	}
	return work;
}

/* ---- a switched port --------------------------------------------------- */

/* Is dst ours: the port's MAC, or a group address (broadcast, multicast)? */
static int
dst_ours(const struct sport *P, const struct mxd_frame *f)
{
	return f->len >= MXD_ETH_HLEN && ((f->data[0] & 1) ||
			!memcmp(f->data, P->l->mac, MXD_ETH_ALEN));
}

/* The frames port p received, each to the process that holds its
 * endpoint (or answered, refused, dropped as slot 0's are). */
static unsigned
switch_in(struct sboard *B, unsigned p)
{
	struct sport *P = &B->port[p];
	struct mxd_frame f[BURST];
	uint16_t n = mxd_glue_queue_rx(P->l, 0, f, BURST);

	for (uint16_t i = 0; i < n; i++)
		if (dst_ours(P, &f[i]))
			serve(B, p, 0, &f[i]);
	if (n != 0)
		P->l->ops->free(f, n);
	B->h->sw_in += n;
	return n;
}

/* The frames the processes wrote to their up rings of port p, sent; what
 * the port takes not now stays for the next round. */
static unsigned
switch_out(struct sboard *B, unsigned p)
{
	struct sport *P = &B->port[p];
	struct mxd_link *l = P->l;
	uint32_t fs = P->sp->fwd_frame, fn = P->sp->fwd_n;
	unsigned work = 0;

	for (unsigned s = 1; s < svc.S; s++) {
		struct mxd_fwd *r = mxd_host_up(B->h, p, s);
		uint32_t tail = r->tail, head, n, k = 0, sent;
		struct mxd_frame f[BURST];
		uint32_t at[BURST];	/* f[j]'s entry */

		if (!slot_live(B->h, s))
			continue;
		head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		if (head == tail)
			continue;
		if (head - tail > fn) {		/* not sane: dropped */
			B->h->fwd_dropped += head - tail;
			__atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
			continue;
		}
		n = head - tail < BURST ? head - tail : BURST;
		if (l->ops->alloc(l, f, n) != 0)
			return work;
		for (uint32_t i = tail; i != tail + n; i++) {
			const uint8_t *e = mxd_fwd_entry(r, fs, fn, i);
			uint32_t len;

			memcpy(&len, e, 4);
			if (len > fs - MXD_FWD_HDR || len > f[k].len) {
				B->h->fwd_dropped++;
				continue;
			}
			memcpy(f[k].data, e + MXD_FWD_HDR, len);
			f[k].len = len;
			f[k].to = 0;
			at[k++] = i;
		}
		sent = k != 0 ? mxd_glue_queue_tx(l, 0, f, (uint16_t)k) : 0;
		if (sent < n)
			l->ops->free(f + sent, n - sent);
		/* What the port did not take now stays for the next round. */
		__atomic_store_n(&r->tail, sent < k ? at[sent] : tail + n,
				__ATOMIC_RELEASE);
		B->h->sw_out += sent;
		work += sent;
	}
	return work;
}

/* ---- links ---------------------------------------------------------------- */

/* A new region: every S2C ring, which our side reads, given its buffers
 * (memif's client does so at its first receive; the processes read from
 * head - size, which this makes true from the start). */
static void
prime(struct slane *L)
{
	for (unsigned q = 0; q < svc.Q; q++) {
		struct mxd_mring r;
		uint16_t *head;

		if (mxd_mring_attach(&r, L->base, L->len, svc.Q, q, 0, svc.log2,
					svc.bsize) < 0)
			continue;
		head = mxd_mring_idx(&r, MXD_MEMIF_HEAD);
		if (*head == 0 && *mxd_mring_idx(&r, MXD_MEMIF_TAIL) == 0) {
			r.cur = 0;
			mxd_mring_release(&r);
		}
	}
}

/* Lane k's region let go of. */
static void
lane_unmap(struct slane *L)
{
	if (L->base != NULL)
		munmap(L->base, L->len);
	if (L->fd >= 0)
		close(L->fd);
	L->base = NULL;
	L->fd = -1;
}

static void
port_down(struct sboard *B, unsigned p)
{
	struct sport *P = &B->port[p];

	__atomic_store_n(&P->sp->state, 0, __ATOMIC_RELEASE);
	for (unsigned k = 0; k < svc.L && !P->sw; k++)
		lane_unmap(&P->lane[k]);
	P->up = 0;
	MXD_LOG(WARNING, port, "board %s port %u (%s): link down",
			B->h->board_name, p, P->l->name);
}

/* Lane k is up: find its region (the one our announcement was just
 * written into) and map it; 0 or -1. */
static int
lane_up(struct sboard *B, unsigned p, unsigned k)
{
	struct sport *P = &B->port[p];
	struct slane *L = &P->lane[k];
	uint64_t want = mxd_mring_region_len(svc.Q, svc.log2, svc.bsize);
	uint8_t sent[64];
	uint32_t len = 0;
	uint64_t size;
	int fd;
	void *m;

	if (announce(B, P, k, sent, &len) < 0 ||
			mxd_glue_memif_region(L->l, svc.Q, sent, len, &fd,
				&size) < 0)
		return -1;
	if (size < want) {
		if (!P->said++)
			MXD_LOG(ERR, port, "board %s port %u (%s): its memif "
					"peer has fewer queues than the %u of "
					"MX_BOARD_SLOTS=%u: both ends of a memif "
					"pair are board services with the same "
					"MX_BOARD_SLOTS", B->h->board_name, p,
					L->l->name, svc.Q, svc.S);
		close(fd);
		return -1;
	}
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -1;
	}
	L->fd = fd;
	L->base = m;
	L->len = size;
	if (!P->sp->server)
		prime(L);
	return 0;
}

/* Every lane of the port is up: their regions found, mapped, primed and
 * handed on under a new generation. */
static void
port_up(struct sboard *B, unsigned p)
{
	struct sport *P = &B->port[p];

	if (now_ms() < P->next_try)
		return;
	P->next_try = now_ms() + 50;
	for (unsigned k = 0; k < svc.L && !P->sw; k++)
		if (lane_up(B, p, k) < 0) {
			while (k-- > 0)
				lane_unmap(&P->lane[k]);
			return;
		}
	__atomic_fetch_add(&P->sp->gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&P->sp->state, MXD_SHPORT_UP, __ATOMIC_RELEASE);
	P->up = 1;
	if (P->sw)
		MXD_LOG(NOTICE, port, "board %s port %u (%s): link up, "
				"switched by the service", B->h->board_name, p,
				P->l->name);
	else
		MXD_LOG(NOTICE, port, "board %s port %u (%s): link up "
				"(regions %u, %u lane(s))", B->h->board_name,
				p, P->l->name, P->sp->gen, svc.L);
}

/* A port is up when each of its lanes is. */
static int
port_link_up(const struct sport *P)
{
	for (unsigned k = 0; k < port_lanes(P); k++) {
		struct mxd_link *l = P->lane[k].l;

		if (!l->started || !l->ops->link_up(l))
			return 0;
	}
	return 1;
}

static void
links_watch(void)
{
	int revive = now_ms() >= svc.next_revive;

	for (unsigned b = 0; b < svc.nboards; b++)
		for (unsigned p = 0; p < svc.board[b].nports; p++) {
			struct sport *P = &svc.board[b].port[p];
			int up = port_link_up(P);

			if (up && !P->up)
				port_up(&svc.board[b], p);
			else if (!up && P->up)
				port_down(&svc.board[b], p);
			for (unsigned k = 0; k < port_lanes(P) && !up &&
					revive; k++) {
				struct mxd_link *l = P->lane[k].l;

				if (l->ops->revive != NULL && !(l->started &&
							l->ops->link_up(l)))
					l->ops->revive(l);
			}
		}
	if (revive)
		svc.next_revive = now_ms() + REVIVE_MS;
}

/* ---- slots ------------------------------------------------------------------ */

/* Whether process pid still runs (a zombie, killed and not reaped yet
 * by its parent, does not). */
static int
pid_runs(int32_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int runs = 1;

	if (kill(pid, 0) != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) != NULL &&
			(p = strrchr(buf, ')')) != NULL && p[1] == ' ' &&
			(p[2] == 'Z' || p[2] == 'X'))
		runs = 0;
	fclose(f);
	return runs;
}

/* A dead process's counters segments (/dev/shm/mx-dpdk.<pid>.<board>,
 * util/stats.c): its exit would have removed them. */
static void
counters_drop(int32_t pid)
{
	char prefix[32], path[300];
	struct dirent *e;
	DIR *d;

	if ((d = opendir("/dev/shm")) == NULL)
		return;
	snprintf(prefix, sizeof(prefix), "mx-dpdk.%d.", (int)pid);
	while ((e = readdir(d)) != NULL)
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			snprintf(path, sizeof(path), "/%s", e->d_name);
			shm_unlink(path);
		}
	closedir(d);
}

static void
slot_dead(unsigned s, int32_t pid)
{
	for (unsigned b = 0; b < svc.nboards; b++) {
		struct sboard *B = &svc.board[b];
		struct mxd_host_slot *hs = &B->h->slot[s];

		__atomic_store_n(&hs->let_go, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&hs->state, MXD_HOST_SLOT_DEAD,
				__ATOMIC_RELEASE);
		for (unsigned e = 0; e < MXD_HOST_ENDPOINTS; e++) {
			uint32_t mine = s;

			__atomic_compare_exchange_n(&B->h->ep_slot[e], &mine,
					MXD_HOST_NO_SLOT, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED);
		}
		for (unsigned p = 0; p < B->nports; p++) {
			struct mxd_fwd *r = mxd_host_fwd(B->h, p, s);
			struct mxd_fwd *u = mxd_host_up(B->h, p, s);

			__atomic_store_n(&r->tail, r->head, __ATOMIC_RELEASE);
			if (u != NULL)	/* what it left unsent: dropped */
				__atomic_store_n(&u->tail, __atomic_load_n(
						&u->head, __ATOMIC_ACQUIRE),
						__ATOMIC_RELEASE);
		}
	}
	MXD_LOG(NOTICE, init, "process %d (slot %u) is gone: its endpoints "
			"are free again", (int)pid, s);
}

/* Dead slots every live process let go of: free again.  Their pair
 * rings are left as they are: a ring is set up anew by its producer for
 * the new owner's epoch (the same-host path's protocol), and zeroing one
 * a live process still read would lose what it held. */
static void
slots_reclaim(void)
{
	for (unsigned s = 1; s < svc.S; s++) {
		uint64_t live = 0, done = ~0ull;

		for (unsigned b = 0; b < svc.nboards; b++) {
			struct mxd_host *h = svc.board[b].h;

			if (h->slot[s].state != MXD_HOST_SLOT_DEAD)
				goto next;
			for (unsigned o = 1; o < svc.S; o++)
				live |= (uint64_t)slot_live(h, o) << o;
			done &= __atomic_load_n(&h->slot[s].let_go,
					__ATOMIC_ACQUIRE);
		}
		if (svc.nboards == 0 || (done & live) != live)
			continue;
		for (unsigned b = 0; b < svc.nboards; b++) {
			struct mxd_host *h = svc.board[b].h;

			h->slot[s].pid = 0;
			__atomic_store_n(&h->slot[s].state, MXD_HOST_SLOT_FREE,
					__ATOMIC_RELEASE);
		}
next:
		;
	}
}

/* A free slot for pid, LIVE on every board; 0 if none is free. */
static unsigned
slot_take(int32_t pid)
{
	struct mxd_host *h0 = svc.board[0].h;

	for (unsigned s = 1; s < svc.S; s++) {
		if (h0->slot[s].state != MXD_HOST_SLOT_FREE)
			continue;
		for (unsigned b = 0; b < svc.nboards; b++) {
			struct mxd_host *h = svc.board[b].h;

			for (unsigned p = 0; p < svc.board[b].nports; p++) {
				struct mxd_fwd *r = mxd_host_fwd(h, p, s);
				struct mxd_fwd *u = mxd_host_up(h, p, s);

				r->tail = r->head;
				if (u != NULL)
					u->tail = u->head;
			}
			h->slot[s].pid = pid;
			h->slot[s].epoch++;
			h->slot[s].since_ns = now_ns();
			h->slot[s].let_go = 0;
			__atomic_store_n(&h->slot[s].state, MXD_HOST_SLOT_LIVE,
					__ATOMIC_RELEASE);
		}
		return s;
	}
	return 0;
}

/* ---- the processes ------------------------------------------------------- */

static void
client_drop(unsigned i)
{
	struct client *c = &svc.cl[i];

	if (c->slot != 0)
		slot_dead(c->slot, c->pid);
	close(c->fd);
	if (c->slot != 0 && c->pidfd >= 0 && svc.ngone < CLIENTS_MAX) {
		svc.gone[svc.ngone++] = (struct gone){ c->pidfd, c->pid,
			now_ms() + GONE_WAIT_MS };
	} else {
		if (c->slot != 0 && !pid_runs(c->pid))
			counters_drop(c->pid);
		if (c->pidfd >= 0)
			close(c->pidfd);
	}
	svc.cl[i] = svc.cl[--svc.ncl];
}

/* The processes gone from their slots: the counters of those that exited
 * removed; one still running after GONE_WAIT_MS keeps its own. */
static void
gone_sweep(void)
{
	uint64_t now = now_ms();

	for (unsigned i = svc.ngone; i-- > 0;) {
		struct gone *g = &svc.gone[i];
		struct pollfd p = { g->pidfd, POLLIN, 0 };
		int exited = poll(&p, 1, 0) > 0;

		if (!exited && now < g->until_ms)
			continue;
		if (exited)
			counters_drop(g->pid);
		close(g->pidfd);
		svc.gone[i] = svc.gone[--svc.ngone];
	}
}

static void
client_accept(void)
{
	int fd = accept4(svc.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (svc.ncl == CLIENTS_MAX) {
		close(fd);
		return;
	}
	svc.cl[svc.ncl++] = (struct client){ .fd = fd, .pidfd = -1 };
}

static void
refuse(struct client *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
refuse(struct client *c, int status, const char *fmt, ...)
{
	struct mxd_svc_msg m;
	va_list ap;

	mxd_svc_msg_init(&m, MXD_SVC_REFUSED);
	m.status = status;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	mxd_svc_send(c->fd, &m, -1);
}

static void
hello(struct client *c, const struct mxd_svc_msg *in)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	struct mxd_svc_msg m;

	c->pid = getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 ?
		(int32_t)cr.pid : in->pid;
	if (!(in->flags & MXD_SVC_F_OBSERVER)) {
		c->slot = slot_take(c->pid);
		if (c->slot == 0) {
			refuse(c, -ENOSPC, "all %u slots of the board are "
					"taken (MX_BOARD_SLOTS=%u: the service's "
					"and one per process; mx_board status "
					"lists them; restart the service with "
					"more, up to %u)", svc.S - 1, svc.S,
					MXD_SHPORT_SLOTS);
			return;
		}
		c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	}
	mxd_svc_msg_init(&m, MXD_SVC_WELCOME);
	m.slot = c->slot;
	m.epoch = c->slot ? svc.board[0].h->slot[c->slot].epoch : 0;
	m.nboards = svc.nboards;
	m.pid = (int32_t)getpid();
	snprintf(m.text, sizeof(m.text), "%s", mxd_conf.hostname);
	mxd_svc_send(c->fd, &m, -1);
	for (unsigned b = 0; b < svc.nboards; b++) {
		mxd_svc_msg_init(&m, MXD_SVC_BOARD);
		m.board = b;
		m.len = svc.board[b].len;
		mxd_svc_send(c->fd, &m, svc.board[b].fd);
	}
	if (c->slot != 0)
		MXD_LOG(INFO, init, "process %d takes slot %u", (int)c->pid,
				c->slot);
}

static void
region(struct client *c, const struct mxd_svc_msg *in)
{
	struct mxd_svc_msg m;
	struct sport *P;

	mxd_svc_msg_init(&m, MXD_SVC_REGION);
	m.board = in->board;
	m.port = in->port;
	if (in->board >= svc.nboards ||
			in->port >= svc.board[in->board].nports) {
		m.status = -EINVAL;
		mxd_svc_send(c->fd, &m, -1);
		return;
	}
	P = &svc.board[in->board].port[in->port];
	m.lane = in->lane;
	if (!P->up || P->sw || in->lane >= svc.L) {
		m.status = P->up || P->sw ? -EINVAL : -EAGAIN;
		mxd_svc_send(c->fd, &m, -1);
		return;
	}
	m.gen = P->sp->gen;
	m.len = P->lane[in->lane].len;
	mxd_svc_send(c->fd, &m, P->lane[in->lane].fd);
}

static int
users(void)
{
	int n = 0;

	for (unsigned i = 0; i < svc.ncl; i++)
		n += svc.cl[i].slot != 0;
	return n;
}

static void
stop(struct client *c, const struct mxd_svc_msg *in)
{
	struct mxd_svc_msg m;
	int n = users();

	if (n != 0 && !(in->flags & MXD_SVC_F_FORCE)) {
		refuse(c, -EBUSY, "%d process(es) use the board: stop them "
				"first, or mx_board stop -f (each then fails "
				"its requests)", n);
		return;
	}
	mxd_svc_msg_init(&m, MXD_SVC_STOPPING);
	m.pid = (int32_t)getpid();
	mxd_svc_send(c->fd, &m, -1);
	stop_now = 1;
}

/* A message from process i, or its end: 0, or -1 when it is gone. */
static int
client_read(unsigned i)
{
	struct client *c = &svc.cl[i];
	struct mxd_svc_msg m;
	int fd;

	if (mxd_svc_recv(c->fd, &m, &fd, MSG_DONTWAIT) < 0)
		return errno == EAGAIN ? 0 : -1;
	if (fd >= 0)
		close(fd);
	if (m.version != MXD_SVC_VERSION) {
		refuse(c, -EPROTO, "the board service speaks version %u, this "
				"process %u: run one mx-dpdk version on the "
				"host", MXD_SVC_VERSION, m.version);
		return -1;
	}
	switch (m.type) {
	case MXD_SVC_HELLO:
		if (c->slot == 0 && c->pidfd < 0)
			hello(c, &m);
		return 0;
	case MXD_SVC_REGION_REQ:
		region(c, &m);
		return 0;
	case MXD_SVC_STOP:
		stop(c, &m);
		return 0;
	default:
		return -1;
	}
}

/* ---- the loop --------------------------------------------------------------- */

static void
on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

/* Sleeps in poll() on the sockets and pidfds (IDLE_MS unless the round
 * found work), then serves what came. */
static void
sockets_wait(int busy)
{
	struct pollfd pf[1 + 2 * CLIENTS_MAX];
	unsigned n = 0, nc = svc.ncl;

	pf[n++] = (struct pollfd){ svc.lfd, POLLIN, 0 };
	for (unsigned i = 0; i < nc; i++) {
		pf[n++] = (struct pollfd){ svc.cl[i].fd, POLLIN, 0 };
		pf[n++] = (struct pollfd){ svc.cl[i].pidfd, POLLIN, 0 };
	}
	if (poll(pf, n, busy ? 0 : IDLE_MS) <= 0)
		return;
	for (unsigned i = nc; i-- > 0;) {
		struct pollfd *s = &pf[1 + 2 * i], *d = &pf[2 + 2 * i];
		int gone = (d->revents & POLLIN) != 0;

		if (!gone && (s->revents & (POLLIN | POLLHUP | POLLERR)))
			gone = client_read(i) < 0;
		if (gone)
			client_drop(i);
	}
	if (pf[0].revents & POLLIN)
		client_accept();
}

/* The frames of the switched ports that are up, both ways. */
static unsigned
switch_round(void)
{
	unsigned work = 0;

	for (unsigned b = 0; b < svc.nboards; b++)
		for (unsigned p = 0; p < svc.board[b].nports; p++)
			if (svc.board[b].port[p].sw && svc.board[b].port[p].up)
				work += switch_in(&svc.board[b], p) +
					switch_out(&svc.board[b], p);
	return work;
}

/* Everything but switching: the sockets (sleeping IDLE_MS in poll()
 * unless busy), the links, slot 0's column and the idle columns of the
 * matrix ports, the slots. */
static unsigned
look(int busy)
{
	unsigned work = 0;
	int dr;

	sockets_wait(busy);
	links_watch();
	dr = now_ms() >= svc.next_drain;
	if (dr)
		svc.next_drain = now_ms() + DRAIN_MS;
	for (unsigned b = 0; b < svc.nboards; b++)
		for (unsigned p = 0; p < svc.board[b].nports; p++)
			if (svc.board[b].port[p].up && !svc.board[b].port[p].sw)
				work += column0(&svc.board[b], p) +
					(dr ? drain(&svc.board[b], p) : 0);
	slots_reclaim();
	if (svc.ngone != 0)
		gone_sweep();
	return work;
}

/* A short sleep between empty rounds once the ports were quiet for
 * MX_BOARD_SPIN_US: on a host whose CPUs are all busy (more pollers than
 * CPUs) the service is then woken as a task that slept, which the
 * scheduler runs promptly, rather than waiting behind a spinning one. */
static void
nap(void)
{
	struct timespec ts = { 0, NAP_NS };

	nanosleep(&ts, NULL);
}

static void
serve_loop(void)
{
	uint64_t next_look = 0;
	int busy = 0;

	while (!stop_now) {
		uint64_t t = now_ns();
		unsigned work = 0, sw;
		int spin = users() != 0 && t - svc.sw_last < SPIN_MS *
			1000000ull;

		if (!spin || t >= next_look) {
			work = look(busy || spin);
			next_look = t + 1000000;
		}
		sw = switch_round();
		if (sw != 0)
			svc.sw_last = now_ns();
		else if (spin && work == 0 && t - svc.sw_last >
				(uint64_t)mxd_conf.board_spin_us * 1000)
			nap();
		busy = work + sw != 0;
	}
}

/* ---- start ------------------------------------------------------------------- */

static int
listen_on(const char *host)
{
	struct sockaddr_un sa;
	socklen_t len = mxd_svc_addr(host, &sa);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
			0);

	if (s < 0)
		return -1;
	if (bind(s, (struct sockaddr *)&sa, len) != 0 || listen(s, 64) != 0) {
		fprintf(stderr, "mx_board: the board service of host %s is "
				"running already (mx_board status)\n", host);
		close(s);
		return -1;
	}
	return s;
}

/* The lane of the interface named 'name' ("<port>_lane<k>", k a lane of
 * the matrix), the port's name in *port_len bytes of it; 0 for a port's
 * own interface. */
static unsigned
lane_of(const char *name, size_t *port_len)
{
	const char *t = strrchr(name, '_');
	char *end;
	unsigned long k;

	*port_len = strlen(name);
	if (t == NULL || strncmp(t, "_lane", 5) != 0 || t[5] < '1' ||
			t[5] > '9')
		return 0;
	k = strtoul(t + 5, &end, 10);
	if (*end != '\0' || k >= svc.L)
		return 0;	/* a port of its own that looks like a lane */
	*port_len = (size_t)(t - name);
	return (unsigned)k;
}

/* The n interfaces DPDK opened, as ports (*n of them, in links) each
 * with its lanes (svc.lanes); -1 (said) if a lane is missing. */
static int
lanes_group(struct mxd_link *ports, unsigned *n, struct mxd_link **links)
{
	unsigned np = 0;

	for (unsigned i = 0; i < *n; i++) {
		size_t len;

		if (lane_of(ports[i].name, &len) != 0)
			continue;
		links[np] = &ports[i];
		svc.lanes[np][0] = &ports[i];
		port_check(&ports[i], np);
		if (svc.sw[np]) {	/* one queue pair, no lanes */
			np++;
			continue;
		}
		for (unsigned j = 0; j < *n; j++) {
			size_t lj;
			unsigned k = lane_of(ports[j].name, &lj);

			if (k != 0 && lj == len &&
					!strncmp(ports[j].name, ports[i].name,
						len))
				svc.lanes[np][k] = &ports[j];
		}
		for (unsigned k = 1; k < svc.L; k++) {
			int server;
			unsigned log2;
			uint32_t bsize;

			if (svc.lanes[np][k] == NULL ||
					mxd_glue_memif_geometry(svc.lanes[np][k],
						&log2, &bsize, &server) < 0 ||
					log2 != svc.log2 || bsize != svc.bsize ||
					server != svc.server[np]) {
				fprintf(stderr, "mx_board: port %u (%s): its "
						"lane %u (%s_lane%u) is missing "
						"or unlike the port\n", np,
						ports[i].name, k, ports[i].name,
						k);
				return -1;
			}
		}
		np++;
	}
	*n = np;
	return 0;
}

static int
ports_start(struct mxd_link **links, unsigned *n)
{
	struct mxd_glue_conf gc = {
		/* Its own frames only: the processes' are theirs. */
		.mtu = mxd_conf.mtu, .nb_mbufs = mxd_conf.nb_mbufs < 4095 ?
			mxd_conf.nb_mbufs : 4095,
		.nb_rxd = 1024, .nb_txd = 1024, .keep_affinity = 1,
		.verbose = mxd_conf.verbose != 0,
		.keep_pmd_mac = mxd_conf.keep_mac != 0,
		.nb_queues = (uint16_t)svc.Q,
	};
	struct mxd_link *ports;
	int reused, ret;

	gc.eal_args = args_fix(mxd_conf.dpdk_args);
	if (gc.eal_args == NULL)
		return -1;
	ret = mxd_glue_eal_init(&gc, &reused);
	if (ret == 0)
		ret = mxd_glue_ports_open(&gc, &ports, n);
	if (ret < 0) {
		fprintf(stderr, "mx_board: %s\n", mxd_glue_error());
		return -1;
	}
	if (*n == 0) {
		fprintf(stderr, "mx_board: DPDK found no port in "
				"MX_DPDK_ARGS=\"%s\": give the board's ports "
				"(--vdev=net_memif0,..., a NIC's PCI address, "
				"--vdev=net_af_packet0,iface=...)\n", gc.eal_args);
		return -1;
	}
	return lanes_group(ports, n, links);
}

static int
boards_make(struct mxd_link **links, unsigned n)
{
	int board[MXD_GLUE_MAX_PORTS], pos[MXD_GLUE_MAX_PORTS];

	if (mxd_config_boards(mxd_conf.boards, n, board, pos) < 0)
		return -1;
	for (unsigned b = 0; b < MXD_HOST_PORTS; b++) {
		int ports[MXD_HOST_PORTS];
		unsigned np = 0;

		for (unsigned i = 0; i < n; i++)
			if (board[i] == (int)b)
				ports[pos[i]] = (int)i, np++;
		if (np == 0)
			break;
		if (board_make(&svc.board[b], b, mxd_conf.hostname, links,
					ports, np) < 0) {
			fprintf(stderr, "mx_board: no memory for board %u's "
					"host segment\n", b);
			return -1;
		}
		svc.nboards++;
	}
	return 0;
}

static void
notify_say(int *notify, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
notify_say(int *notify, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	if (*notify < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(*notify, buf, (size_t)n) < 0)
		n = 0;
	close(*notify);
	*notify = -1;
}

/* From now on its messages go to the file 'path' (NULL: stay). */
static void
log_to(const char *path)
{
	int fd = path != NULL ? open(path, O_WRONLY | O_CREAT | O_TRUNC |
			O_CLOEXEC, 0644) : -1;

	if (fd < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
}

static void
fds_raise(void)
{
	struct rlimit r;

	/* memif passes an eventfd per ring: 2 * S * S per port. */
	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

int
mxd_svc_run(int notify, const char *log)
{
	struct mxd_link *links[MXD_GLUE_MAX_PORTS];
	unsigned n = 0;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	fds_raise();
	if (mxd_config_load(&mxd_conf) < 0) {
		notify_say(&notify, "bad settings (above)\n");
		return 1;
	}
	svc.S = mxd_conf.board_slots;
	svc.Q = mxd_shport_lane_q(svc.S);
	svc.L = mxd_shport_lanes(svc.S);
	svc.lfd = listen_on(mxd_conf.hostname);
	if (svc.lfd < 0) {
		notify_say(&notify, "running already\n");
		return 1;
	}
	if (ports_start(links, &n) < 0 || boards_make(links, n) < 0) {
		notify_say(&notify, "cannot serve (above)\n");
		return 1;
	}
	notify_say(&notify, "ok %d\n", (int)getpid());
	log_to(log);
	MXD_LOG(NOTICE, init, "board service of host %s: %u board(s), %u "
			"slots (%u processes); memif ports: queue matrix %u x "
			"%u in %u lane(s) of %u queue pairs; other ports "
			"switched by the service", mxd_conf.hostname,
			svc.nboards, svc.S, svc.S - 1, svc.S, svc.S, svc.L,
			svc.Q);
	serve_loop();
	while (svc.ncl > 0) {
		svc.cl[svc.ncl - 1].slot = 0;	/* no bookkeeping now */
		client_drop(svc.ncl - 1);
	}
	close(svc.lfd);
	/* No process drives its queues any more: the ports may go (and a
	 * memif port's path socket with them). */
	mxd_glue_ports_close();
	MXD_LOG(NOTICE, init, "board service of host %s stopped",
			mxd_conf.hostname);
	return 0;
}
