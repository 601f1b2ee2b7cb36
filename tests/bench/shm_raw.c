/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host baselines (scripts/bench-shm.sh): what two processes of
 * one host get from shared memory with no MX in between, measured as
 * mx_pingpong and mx_bw measure, and the host segment that MX processes
 * join for the benchmark (standing for the board service).
 *
 *   shm_raw host <file> [nslots [ring_bytes]]
 *       a host segment in <file> (lib/board/host.h), for MX_HOST_SEGMENT
 *   shm_raw pingpong [-N iters] [-W warmup] [-a cpu] [-b cpu]
 *       8-byte ping-pongs between two processes pinned to cpus a and b:
 *       flag  a cache line each way: 8 bytes and a sequence word
 *       ring  DPDK's rte_ring, single producer and consumer, one each way
 *             (rte_ring_init on shared memory), the 8 bytes as the object
 *       hring the host segment's own ring (lib/board/hring.h), one record
 *             of 8 bytes each way: what MX's same-host path starts from
 *       a line "pingpong,<kind>,<iters>,<mean_ns>,<median_ns>" each: half
 *       round trips, one clock read per round trip (as mx_pingpong)
 *   shm_raw stream [-N msgs] [-D] [-a cpu] [-b cpu]
 *       a plain memcpy stream: 1 MiB messages copied by the writer into a
 *       shared staging area of 8 chunks of 64 KiB and out by the reader,
 *       pipelined chunk by chunk, from and into one buffer (-D: a buffer
 *       per message of 32 in turn each side, as mx_bw -D's window);
 *       "stream,<msgs>,<MB/s>" or "stream-D,..." (1e6 bytes/s, as mx_bw)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_ring.h>

#include "board/hring.h"
#include "hostseg.h"

#define MIB		(1u << 20)
#define CHUNK		(64u << 10)
#define NCHUNK		8
#define RING_SLOTS	1024

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void
pin(int cpu)
{
	cpu_set_t s;

	if (cpu < 0)
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- the host segment for MX processes ------------------------------------ */

static int
make_host(const char *file, unsigned nslots, uint32_t ring_bytes)
{
	size_t off, len = mxd_host_size(nslots, ring_bytes, &off);
	struct mxd_host *h;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		perror(file);
		return 1;
	}
	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	hostseg_fill(h, nslots, ring_bytes, off, len, 0x02005ea00001ull,
			"shmbench:0");
	munmap(h, len);
	close(fd);
	return 0;
}

/* ---- ping-pongs ------------------------------------------------------------ */

struct line {
	volatile uint64_t seq;
	uint64_t data;
} __attribute__((aligned(64)));

struct shared {
	struct line fl[2] __attribute__((aligned(128)));
	volatile int ready, phase;
	uint8_t rtr[2][1 << 15] __attribute__((aligned(128)));
	struct {
		volatile uint64_t full;
		volatile uint64_t freed;
	} __attribute__((aligned(64))) ch[NCHUNK];
	uint8_t stage[NCHUNK][CHUNK] __attribute__((aligned(4096)));
};

static struct shared *sh;
static struct mxd_host *hh;		/* for hring: slots 1 and 2 */
static long iters = 100000, warm = 10000;

static void
report(const char *kind, double *lat, long n)
{
	double sum = 0;

	for (long i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, (size_t)n, sizeof(*lat), cmp_d);
	printf("pingpong,%s,%ld,%.1f,%.1f\n", kind, n, sum / n, lat[n / 2]);
}

/* One round trip of each kind: the ping side (returns when the pong
 * came back), the pong side (echoes one). */
static void
flag_ping(uint64_t i)
{
	sh->fl[0].data = i * 3;
	__atomic_store_n(&sh->fl[0].seq, i, __ATOMIC_RELEASE);
	while (__atomic_load_n(&sh->fl[1].seq, __ATOMIC_ACQUIRE) != i)
		;
	(void)*(volatile uint64_t *)&sh->fl[1].data;
}

static void
flag_pong(uint64_t i)
{
	while (__atomic_load_n(&sh->fl[0].seq, __ATOMIC_ACQUIRE) != i)
		;
	sh->fl[1].data = sh->fl[0].data;
	__atomic_store_n(&sh->fl[1].seq, i, __ATOMIC_RELEASE);
}

static void
ring_ping(uint64_t i)
{
	void *o;

	while (rte_ring_sp_enqueue((struct rte_ring *)sh->rtr[0],
				(void *)(uintptr_t)i) != 0)
		;
	while (rte_ring_sc_dequeue((struct rte_ring *)sh->rtr[1], &o) != 0)
		;
}

static void
ring_pong(uint64_t i)
{
	void *o;

	(void)i;
	while (rte_ring_sc_dequeue((struct rte_ring *)sh->rtr[0], &o) != 0)
		;
	while (rte_ring_sp_enqueue((struct rte_ring *)sh->rtr[1], o) != 0)
		;
}

static struct mxd_hring_tx htx;
static struct mxd_hring_rx hrx;

static void
hring_put(uint64_t v)
{
	struct mxd_hrec *r;

	while ((r = mxd_hring_reserve(&htx, 1)) == NULL)
		;
	r->kind = 2;
	r->cells = 1;
	r->len = 8;
	memcpy(mxd_hrec_data(r), &v, 8);
	mxd_hring_commit(&htx, r, 1);
}

static uint64_t
hring_get(void)
{
	struct mxd_hrec *r;
	uint64_t v;

	for (;;) {
		while ((r = mxd_hring_peek(&hrx)) == NULL)
			;
		mxd_hring_skip(&hrx, mxd_hring_rec_cells(&hrx, r));
		if (r->kind != MXD_HREC_PAD_KIND)
			break;
	}
	memcpy(&v, mxd_hrec_data(r), 8);
	mxd_hring_publish(&hrx, hrx.next, 0);
	return v;
}

static void
hring_ping(uint64_t i)
{
	hring_put(i);
	(void)hring_get();
}

static void
hring_pong(uint64_t i)
{
	(void)i;
	hring_put(hring_get());
}

static void
run_pingpong(int ping, const char *kind, void (*fn)(uint64_t), uint64_t base)
{
	double *lat = ping ? malloc(sizeof(double) * (size_t)iters) : NULL;
	double prev = 0, t;

	for (long i = 0; i < warm + iters; i++) {
		if (ping && i == warm)
			prev = now_ns();
		fn(base + (uint64_t)i + 1);
		if (ping && i >= warm) {
			t = now_ns();
			lat[i - warm] = (t - prev) / 2;
			prev = t;
		}
	}
	if (ping) {
		report(kind, lat, iters);
		free(lat);
	}
}

/* The host segment's rings 1 -> 2 and 2 -> 1, for the hring ping-pong:
 * each side sets up the ring it writes, then attaches the other. */
static void
hring_open(int ping)
{
	unsigned me = ping ? 1 : 2, peer = ping ? 2 : 1;

	mxd_hring_setup(hh, me, peer, 1, 1, &htx);
	while (!mxd_hring_ready_for(mxd_hring_of(hh, peer, me), 1, 0))
		;
	mxd_hring_attach(mxd_hring_of(hh, peer, me), &hrx);
}

/* ---- the memcpy stream ------------------------------------------------------ */

#define NBUF	32	/* -D: buffers in turn */

static void
stream(int writer, long msgs, int per_msg)
{
	unsigned nbuf = per_msg ? NBUF : 1;
	uint8_t *bufs = aligned_alloc(4096, (size_t)nbuf * MIB);
	uint64_t seq = 0;
	double t0;

	memset(bufs, writer ? 7 : 0, (size_t)nbuf * MIB);
	t0 = now_ns();
	for (long m = 0; m < msgs; m++) {
		uint8_t *buf = bufs + (size_t)(m % nbuf) * MIB;

		for (uint32_t k = 0; k < MIB / CHUNK; k++, seq++) {
			unsigned c = seq % NCHUNK;

			if (writer) {
				while (seq >= NCHUNK && __atomic_load_n(
						&sh->ch[c].freed,
						__ATOMIC_ACQUIRE) + NCHUNK <
						seq + 1)
					;
				memcpy(sh->stage[c], buf + k * CHUNK, CHUNK);
				__atomic_store_n(&sh->ch[c].full, seq + 1,
						__ATOMIC_RELEASE);
			} else {
				while (__atomic_load_n(&sh->ch[c].full,
						__ATOMIC_ACQUIRE) != seq + 1)
					;
				memcpy(buf + k * CHUNK, sh->stage[c], CHUNK);
				__atomic_store_n(&sh->ch[c].freed, seq + 1,
						__ATOMIC_RELEASE);
			}
		}
	}
	if (!writer)
		printf("stream%s,%ld,%.0f\n", per_msg ? "-D" : "", msgs,
				(double)msgs * MIB / (now_ns() - t0) * 1e3);
	free(bufs);
}

/* ---- main ------------------------------------------------------------------- */

static void
usage(void)
{
	fprintf(stderr, "usage: shm_raw host <file> [nslots [ring_bytes]]\n"
			"       shm_raw pingpong [-N iters] [-W warmup] "
			"[-a cpu] [-b cpu]\n"
			"       shm_raw stream [-N msgs] [-D] [-a cpu] "
			"[-b cpu]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	int a = -1, b = -1, c, is_stream, per_msg = 0;
	long msgs = 2000;
	size_t off, hlen;
	pid_t child;

	if (argc >= 3 && !strcmp(argv[1], "host"))
		return make_host(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) :
				4, argc > 4 ? (uint32_t)atol(argv[4]) :
				MXD_HRING_BYTES_DFLT);
	if (argc < 2 || (strcmp(argv[1], "pingpong") &&
				strcmp(argv[1], "stream")))
		usage();
	is_stream = !strcmp(argv[1], "stream");
	optind = 2;
	while ((c = getopt(argc, argv, "N:W:a:b:D")) != -1) {
		switch (c) {
		case 'D': per_msg = 1; break;
		case 'N': iters = msgs = atol(optarg); break;
		case 'W': warm = atol(optarg); break;
		case 'a': a = atoi(optarg); break;
		case 'b': b = atoi(optarg); break;
		default: usage();
		}
	}
	if (iters <= 0 || warm < 0)
		usage();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	hlen = mxd_host_size(3, MXD_HRING_HDR + 64 * 256, &off);
	hh = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (sh == MAP_FAILED || hh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	hostseg_fill(hh, 3, MXD_HRING_HDR + 64 * 256, off, hlen, 1, "raw:0");
	for (unsigned s = 1; s < 3; s++) {
		hh->slot[s].state = MXD_HOST_SLOT_LIVE;
		hh->slot[s].epoch = 1;
	}
	rte_ring_init((struct rte_ring *)sh->rtr[0], "to", RING_SLOTS,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	rte_ring_init((struct rte_ring *)sh->rtr[1], "back", RING_SLOTS,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	child = fork();
	pin(child == 0 ? b : a);
	if (is_stream) {
		stream(child == 0, msgs, per_msg);
	} else {
		int ping = child != 0;

		run_pingpong(ping, "flag", ping ? flag_ping : flag_pong, 0);
		run_pingpong(ping, "ring", ping ? ring_ping : ring_pong, 0);
		hring_open(ping);
		run_pingpong(ping, "hring", ping ? hring_ping : hring_pong, 0);
	}
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	return 0;
}
