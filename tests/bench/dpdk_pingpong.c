/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_pingpong: the baseline that mx-dpdk is measured against.  It uses
 * DPDK directly -- its own EAL, its own mempool, the first port with one rx
 * and one tx queue, rte_eth_rx_burst/rte_eth_tx_burst -- and nothing of
 * mx-dpdk (no pmd-glue, no protocol), so that whatever our glue costs
 * counts on our side of a ratio (mx_pingpong's half round trip over this
 * program's: at most 1.15 at 8 bytes), not in the baseline.
 *
 *   dpdk_pingpong [EAL args --] pong   [-x | -c] [-T secs]
 *   dpdk_pingpong [EAL args --] ping   [-S len] [-E len] [-N iters]
 *                                      [-W warm] [-c] [-T secs]
 *   dpdk_pingpong [EAL args --] sink   [-D | -Z] [-F frames] [-T secs]
 *   dpdk_pingpong [EAL args --] stream [-s frame] [-n frames] [-t secs]
 *                                      [-b burst] [-c | -D] [-T secs]
 *
 * Without "--" the EAL arguments come from MX_DPDK_ARGS, so the harnesses
 * (scripts/memif-pair.sh, scripts/veth-pair.sh) give this program exactly
 * the devargs they give an MX program.  As the library does, the EAL gets
 * one lcore (the CPU we start on) unless the arguments choose cores, and the
 * main thread's CPU affinity is restored after rte_eal_init(): pinned, both
 * processes of a pair could land on one CPU of this 2-CPU machine, and the
 * baseline would not run under the conditions mx programs run under.
 *
 * ping/pong: ping sends a frame carrying 'len' bytes after the Ethernet
 * header (at least 60 bytes in all, as Ethernet pads), pong answers with a
 * frame of the same length; lengths double from -S to -E, as in
 * mx_pingpong.  Each side builds every frame it sends in a fresh mbuf,
 * writing its headers (Ethernet and the 22 bytes below); the rest of the
 * frame goes as the mbuf holds it: the limit of the port, which is what a
 * protocol is compared with.  -c also copies the rest from a buffer into
 * every frame, as a message's bytes must be (on both sides: pong copies
 * what it got); pong -x turns the received mbuf around instead of building
 * one.  After -W warm-up round trips (as many as mx_pingpong's by
 * default), -N timed ones; half the round trip is reported per length:
 *
 *   pingpong,<len>,<frame>,<iters>,<mean_us>,<median_us>,<p99_us>,<min_us>,<resent>
 *
 * stream/sink: the streamer sends -s byte frames (60) in bursts of -b (32)
 * for -n frames or -t seconds (1), whichever ends first, headers written
 * into each (and with -c the rest copied, as above); a short tx_burst (a
 * full memif ring) is retried, nothing is dropped by the sender.  The sink
 * counts what arrives; its count and its time from first to last frame are
 * the truth (af_packet may drop when the receiver's ring is full); with
 * -F n it also prints, once stopped, the time its first n frames took:
 *
 *   first,<n>,<secs>
 *
 * (from the first data frame, as its rate; tests/integration/firstlap.sh
 * sets a stream's first lap against the rest with it).  -D
 * (give it to both) makes the frames carry program buffers, the least any
 * transport over a copying port must do with a buffer per message: the
 * streamer copies each frame's bytes from the next place of 16 buffers of
 * 1 MiB, taken in turn, and the sink copies each data frame's bytes into
 * 16 buffers of its own the same way; no header but ours, no check.  Its
 * rate against the plain stream's is the ceiling of mx_bw -D's ratio.
 * sink -Z is sink -D by non-temporal stores.  A plain streamer into sink
 * -D or -Z is the best case of any transport that fills program buffers:
 * a sender that copies nothing, a receiver that only writes each byte
 * where it belongs.  The streamer prints:
 *
 *   rate,<frame>,<sent>,<received>,<rx_secs>,<rx_frames_per_s>,<tx_frames_per_s>
 *
 * Every frame has EtherType 0x88b6 and a kind byte: the kernel's own frames
 * on a veth (IPv6 neighbour discovery) and, over net_pcap, our own frames
 * captured on the way out are ignored.  Every wait is bounded (-T, 60 s by
 * default); exit 0 on success, 1 on failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#define DPP_ETHERTYPE	0x88b6	/* IEEE 802 local experimental 2 */
#define DPP_MIN_FRAME	60	/* Ethernet's minimum, without the FCS */
#define DPP_HDR_LEN	36	/* Ethernet header and ours, see below */
#define DPP_BURST_MAX	64
#define DPP_MAX_EAL_ARGS 64

/*
 * The server side lingers 100 ms after a stop, answering repeats of it
 * (our answer may have been lost) with 'kind' and the same values, while
 * the client side (ping, stream) waits 300 ms without a burst before it
 * closes its port.  DPDK 22.11's memif unmaps a departed peer's memory from
 * its interrupt thread while a burst may be reading it (README, Running):
 * so only the side that does not poll may see its peer leave.
 */
#define LINGER_DIV	10	/* 100 ms */
#define QUIET_US	300000

/* Frame kinds (byte 14). */
enum {
	K_HELLO = 1,	/* streamer -> sink: are you there? */
	K_READY,	/* sink -> streamer */
	K_PING,
	K_PONG,
	K_DATA,
	K_STOP,		/* end of a run, answered by K_REPORT */
	K_REPORT,	/* from the sink: frames counted, ns first..last */
};

/*
 * After the Ethernet header:
 *   14  kind (u8)    15  pad (u8)    16  seq (be32)
 *   20  value (be64: frames counted)  28  value2 (be64: ns)
 */
struct dpp_hdr {
	uint8_t kind;
	uint8_t pad;
	rte_be32_t seq;
	rte_be64_t v1;
	rte_be64_t v2;
} __rte_packed;
_Static_assert(sizeof(struct rte_ether_hdr) + sizeof(struct dpp_hdr) ==
		DPP_HDR_LEN, "bench header layout");

struct dpp {
	uint16_t port;
	struct rte_mempool *mp;
	struct rte_ether_addr self;
	struct rte_ether_addr peer;	/* broadcast until the peer is heard */
	uint64_t hz;
	uint64_t deadline;		/* tsc: -T from the start */
	int copy;			/* -c: copy every frame's bytes */
	uint8_t *bufs;			/* -D: 16 program buffers of 1 MiB */
	int nt;				/* sink -Z: -D by non-temporal stores */
	size_t at;			/* -D: where the next frame's bytes go */
	uint64_t lap;			/* sink -F: frames of the first lap */
	uint8_t payload[RTE_ETHER_MAX_JUMBO_FRAME_LEN];	/* copied into frames */
};

struct opts {
	const char *mode;
	uint32_t start, end, iters, warm, burst, frame, reflect, copy, bufs, nt;
	uint64_t frames, lap;
	double secs, limit;
};

static double
tsc_us(const struct dpp *d, uint64_t cycles)
{
	return (double)cycles * 1e6 / (double)d->hz;
}

static int
timed_out(const struct dpp *d)
{
	return rte_rdtsc() > d->deadline;
}

static struct dpp_hdr *
hdr_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct dpp_hdr *,
			sizeof(struct rte_ether_hdr));
}

/* Our frame of the given kind (0: any), or NULL. */
static struct dpp_hdr *
ours(struct rte_mbuf *m, int kind)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct dpp_hdr *h;

	if (rte_pktmbuf_data_len(m) < DPP_HDR_LEN ||
			eh->ether_type != rte_cpu_to_be_16(DPP_ETHERTYPE))
		return NULL;
	h = hdr_of(m);
	return kind == 0 || h->kind == kind ? h : NULL;
}

/* A fresh frame of 'len' bytes, addressed to the peer; with -c the rest
 * copied from our payload buffer, as a message's bytes would be. */
static struct rte_mbuf *
build(struct dpp *d, uint32_t len, uint8_t kind, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->mp);
	struct rte_ether_hdr *eh;
	struct dpp_hdr *h;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)len);
	eh->dst_addr = d->peer;
	eh->src_addr = d->self;
	eh->ether_type = rte_cpu_to_be_16(DPP_ETHERTYPE);
	h = hdr_of(m);
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->seq = rte_cpu_to_be_32(seq);
	if (d->copy && len > DPP_HDR_LEN)
		rte_memcpy((uint8_t *)eh + DPP_HDR_LEN, d->payload,
				len - DPP_HDR_LEN);
	return m;
}

/* Sends all of 'n' frames (a full ring returns fewer: retry), bounded by
 * the run's deadline; frees what could not go. */
static int
send_all(struct dpp *d, struct rte_mbuf **m, uint16_t n)
{
	uint16_t k = 0;

	while (k < n) {
		k += rte_eth_tx_burst(d->port, 0, m + k, (uint16_t)(n - k));
		if (k < n && timed_out(d)) {
			rte_pktmbuf_free_bulk(m + k, n - k);
			return -1;
		}
	}
	return 0;
}

static int
send_ctl(struct dpp *d, uint8_t kind, uint32_t seq, uint64_t v1, uint64_t v2)
{
	struct rte_mbuf *m = build(d, DPP_MIN_FRAME, kind, seq);

	if (m == NULL)
		return -1;
	hdr_of(m)->v1 = rte_cpu_to_be_64(v1);
	hdr_of(m)->v2 = rte_cpu_to_be_64(v2);
	return send_all(d, &m, 1);
}

/*
 * Waits up to 'us' for a frame of 'kind' with sequence 'seq'; copies its
 * header to 'out' and learns the peer's MAC from it.  Returns 0, or -1 on
 * timeout.  Anything else received is dropped (stale answers, noise).
 */
static int
wait_for(struct dpp *d, uint8_t kind, uint32_t seq, double us,
		struct dpp_hdr *out)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(us * (double)d->hz / 1e6);
	struct rte_mbuf *m[DPP_BURST_MAX];
	int found = -1;

	while (found < 0 && rte_rdtsc() < end) {
		uint16_t n = rte_eth_rx_burst(d->port, 0, m, DPP_BURST_MAX);

		for (uint16_t i = 0; i < n; i++) {
			struct dpp_hdr *h = ours(m[i], kind);

			if (found < 0 && h != NULL &&
					rte_be_to_cpu_32(h->seq) == seq) {
				*out = *h;
				d->peer = rte_pktmbuf_mtod(m[i],
					struct rte_ether_hdr *)->src_addr;
				found = 0;
			}
		}
		rte_pktmbuf_free_bulk(m, n);
	}
	return found;
}

/* Sends 'kind' every 'every_us' until 'reply' comes back, up to 'us'. */
static int
ask(struct dpp *d, uint8_t kind, uint8_t reply, uint32_t seq,
		double every_us, double us, struct dpp_hdr *out)
{
	for (double t = 0; t < us && !timed_out(d); t += every_us) {
		if (send_ctl(d, kind, seq, 0, 0) != 0)
			return -1;
		if (wait_for(d, reply, seq, every_us, out) == 0)
			return 0;
	}
	return -1;
}

/* ---- ping / pong ---- */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One round trip; resends after 20 ms (a lost frame, or a peer that was
 * descheduled that long), counted in 'resent'; gives up after 10 s. */
static int
round_trip(struct dpp *d, uint32_t len, uint32_t seq, uint32_t *resent)
{
	struct dpp_hdr h;

	for (int tries = 0; tries < 500 && !timed_out(d); tries++) {
		struct rte_mbuf *m = build(d, len, K_PING, seq);

		if (m == NULL || send_all(d, &m, 1) != 0)
			return -1;
		if (wait_for(d, K_PONG, seq, 20000, &h) == 0)
			return 0;
		(*resent)++;
	}
	return -1;
}

static void
report_latency(const struct dpp *d, uint32_t len, uint32_t frame,
		uint64_t *rtt, uint32_t n, uint32_t resent)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += rtt[i];
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	/* Half round trips: each figure is a round trip over two. */
	printf("pingpong,%u,%u,%u,%.3f,%.3f,%.3f,%.3f,%u\n", len, frame, n,
			tsc_us(d, sum) / n / 2, tsc_us(d, rtt[n / 2]) / 2,
			tsc_us(d, rtt[(uint64_t)n * 99 / 100]) / 2,
			tsc_us(d, rtt[0]) / 2, resent);
	fflush(stdout);
}

static int
ping(struct dpp *d, const struct opts *o)
{
	uint64_t *rtt = malloc(sizeof(*rtt) * o->iters);
	uint32_t seq = 0;
	struct dpp_hdr h;
	int ret = 1;

	if (rtt == NULL)
		return 1;
	printf("# mode,len,frame,iters,mean_us,median_us,p99_us,min_us,resent\n");
	for (uint32_t len = o->start; len <= o->end; len = len ? len * 2 : 1) {
		uint32_t frame = RTE_MAX(len + 14, (uint32_t)DPP_MIN_FRAME);
		uint32_t resent = 0;

		for (uint32_t i = 0; i < o->warm + o->iters; i++) {
			uint64_t t0 = rte_rdtsc();

			if (round_trip(d, frame, ++seq, &resent) != 0) {
				fprintf(stderr, "dpdk_pingpong: no answer to "
						"ping %u (%u bytes)\n", i, len);
				goto out;
			}
			if (i >= o->warm)
				rtt[i - o->warm] = rte_rdtsc() - t0;
		}
		report_latency(d, len, frame, rtt, o->iters, resent);
	}
	ret = ask(d, K_STOP, K_REPORT, ++seq, 20000, 2e6, &h) != 0;
	if (ret)
		fprintf(stderr, "dpdk_pingpong: pong did not answer stop\n");
	rte_delay_us_sleep(QUIET_US);
out:
	free(rtt);
	return ret;
}

/* The answer to one ping: a fresh frame of the same length with the same
 * headers (-c: all the same bytes, as a message is echoed from a buffer),
 * or with -x the same mbuf turned around. */
static struct rte_mbuf *
answer(struct dpp *d, struct rte_mbuf *in, int reflect)
{
	uint16_t len = rte_pktmbuf_data_len(in);
	struct rte_ether_hdr *eh;
	struct rte_mbuf *m = in;

	if (!reflect) {
		m = rte_pktmbuf_alloc(d->mp);
		if (m == NULL)
			return NULL;
		rte_memcpy(rte_pktmbuf_append(m, len),
				rte_pktmbuf_mtod(in, void *),
				d->copy ? len : DPP_HDR_LEN);
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	d->peer = eh->src_addr;
	eh->dst_addr = d->peer;
	eh->src_addr = d->self;
	hdr_of(m)->kind = K_PONG;
	return m;
}

static void
linger(struct dpp *d, uint8_t kind, uint64_t v1, uint64_t v2)
{
	uint64_t end = rte_rdtsc() + d->hz / LINGER_DIV;
	struct rte_mbuf *m[DPP_BURST_MAX];

	while (rte_rdtsc() < end) {
		uint16_t n = rte_eth_rx_burst(d->port, 0, m, DPP_BURST_MAX);

		for (uint16_t i = 0; i < n; i++) {
			struct dpp_hdr *h = ours(m[i], K_STOP);

			if (h != NULL)
				send_ctl(d, kind, rte_be_to_cpu_32(h->seq),
						v1, v2);
		}
		rte_pktmbuf_free_bulk(m, n);
	}
}

static int
pong(struct dpp *d, int reflect)
{
	struct rte_mbuf *m[DPP_BURST_MAX], *out[DPP_BURST_MAX];

	while (!timed_out(d)) {
		uint16_t n = rte_eth_rx_burst(d->port, 0, m, DPP_BURST_MAX);
		uint16_t k = 0;
		int stop = -1;

		for (uint16_t i = 0; i < n; i++) {
			struct dpp_hdr *h = ours(m[i], 0);

			if (h != NULL && h->kind == K_STOP)
				stop = (int)rte_be_to_cpu_32(h->seq);
			if (h == NULL || h->kind != K_PING) {
				rte_pktmbuf_free(m[i]);
				continue;
			}
			out[k] = answer(d, m[i], reflect);
			if (out[k] != NULL)
				k++;
			if (!reflect)
				rte_pktmbuf_free(m[i]);
		}
		if (k > 0 && send_all(d, out, k) != 0)
			return 1;
		if (stop >= 0) {
			send_ctl(d, K_REPORT, (uint32_t)stop, 0, 0);
			linger(d, K_REPORT, 0, 0);
			return 0;
		}
	}
	fprintf(stderr, "dpdk_pingpong: pong: no stop within -T\n");
	return 1;
}

/* ---- stream / sink ---- */

#define DPP_BUFS_LEN	((size_t)16 << 20)	/* -D: 16 buffers of 1 MiB */

/* -D: the place in the program buffers for the next 'len' bytes; a frame
 * that would run past the last buffer starts again at the first. */
static uint8_t *
buf_next(struct dpp *d, uint32_t len)
{
	uint8_t *p;

	if (d->at + len > DPP_BUFS_LEN)
		d->at = 0;
	p = d->bufs + d->at;
	d->at += len;
	return p;
}

/*
 * The sink's copy into its program buffers: rte_memcpy, or with -Z
 * non-temporal stores of whole 64-byte lines from the first line boundary
 * on (AVX-512 where the CPU has it, else SSE2), so that the buffer's lines
 * are written without being read first, as the library's receive does
 * with a cold buffer: the cheapest a receiver can fill a program's buffer
 * out of cache.
 */
#if defined(__x86_64__)
__attribute__((target("avx512f")))
static uint32_t
nt_lines512(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 64 <= n; i += 64)
		_mm512_stream_si512((void *)(dst + i), _mm512_loadu_si512(
					(const void *)(src + i)));
	return i;
}

static uint32_t
nt_lines128(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 64 <= n; i += 64)
		for (uint32_t k = i; k < i + 64; k += 16)
			_mm_stream_si128((__m128i *)(void *)(dst + k),
					_mm_loadu_si128((const __m128i *)
						(const void *)(src + k)));
	return i;
}
#endif

static void
buf_copy(const struct dpp *d, uint8_t *dst, const uint8_t *src, uint32_t len)
{
#if defined(__x86_64__)
	static int avx512 = -1;
	uint32_t head = (uint32_t)(-(uintptr_t)dst & 63), i;

	if (!d->nt || len < head + 64) {
		rte_memcpy(dst, src, len);
		return;
	}
	if (avx512 < 0)
		avx512 = __builtin_cpu_supports("avx512f");
	memcpy(dst, src, head);
	i = head + (avx512 ? nt_lines512 : nt_lines128)(dst + head, src + head,
			len - head);
	memcpy(dst + i, src + i, len - i);
#else
	(void)d;
	rte_memcpy(dst, src, len);
#endif
}

struct sink_count {
	uint64_t frames;
	uint64_t first, last;	/* tsc of the first and last data frame */
	uint64_t lap;		/* tsc when the first d->lap had come */
};

/* Counts one burst; returns the seq of a stop in it, or -1.  Answers a
 * hello (the streamer waits for it before it starts). */
static int
sink_burst(struct dpp *d, struct rte_mbuf **m, uint16_t n,
		struct sink_count *c)
{
	uint64_t now = rte_rdtsc();
	uint64_t data = 0;
	int stop = -1;

	for (uint16_t i = 0; i < n; i++) {
		struct dpp_hdr *h = ours(m[i], 0);

		if (h == NULL)
			continue;
		if (h->kind == K_DATA) {
			data++;
			if (d->bufs != NULL) {
				uint32_t len = rte_pktmbuf_data_len(m[i]) -
					DPP_HDR_LEN;

				buf_copy(d, buf_next(d, len), (uint8_t *)h +
						sizeof(*h), len);
			}
		}
		else if (h->kind == K_HELLO)
			send_ctl(d, K_READY, rte_be_to_cpu_32(h->seq), 0, 0);
		else if (h->kind == K_STOP)
			stop = (int)rte_be_to_cpu_32(h->seq);
	}
#if defined(__x86_64__)
	if (d->nt && data > 0)
		_mm_sfence();
#endif
	if (data > 0) {
		if (c->frames == 0)
			c->first = now;
		c->last = now;
		if (c->frames < d->lap && c->frames + data >= d->lap)
			c->lap = now;
		c->frames += data;
	}
	return stop;
}

static int
sink(struct dpp *d)
{
	struct rte_mbuf *m[DPP_BURST_MAX];
	struct sink_count c = { 0, 0, 0, 0 };

	while (!timed_out(d)) {
		uint16_t n = rte_eth_rx_burst(d->port, 0, m, DPP_BURST_MAX);
		int stop = n ? sink_burst(d, m, n, &c) : -1;
		uint64_t ns;

		rte_pktmbuf_free_bulk(m, n);
		if (stop < 0)
			continue;
		ns = (uint64_t)(tsc_us(d, c.last - c.first) * 1e3);
		send_ctl(d, K_REPORT, (uint32_t)stop, c.frames, ns);
		printf("sink: %" PRIu64 " frames in %.6f s\n", c.frames,
				ns / 1e9);
		if (c.lap != 0)
			printf("first,%" PRIu64 ",%.6f\n", d->lap,
					tsc_us(d, c.lap - c.first) / 1e6);
		linger(d, K_REPORT, c.frames, ns);
		return 0;
	}
	fprintf(stderr, "dpdk_pingpong: sink: no stop within -T\n");
	return 1;
}

/* Fills a burst of data frames; the bytes are written as a sender's are. */
static int
fill_burst(struct dpp *d, struct rte_mbuf **m, uint16_t n, uint32_t frame,
		uint32_t *seq)
{
	if (rte_pktmbuf_alloc_bulk(d->mp, m, n) != 0)
		return -1;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_ether_hdr *eh = (struct rte_ether_hdr *)
			rte_pktmbuf_append(m[i], (uint16_t)frame);
		struct dpp_hdr *h = hdr_of(m[i]);

		eh->dst_addr = d->peer;
		eh->src_addr = d->self;
		eh->ether_type = rte_cpu_to_be_16(DPP_ETHERTYPE);
		memset(h, 0, sizeof(*h));
		h->kind = K_DATA;
		h->seq = rte_cpu_to_be_32((*seq)++);
		if (d->bufs != NULL && frame > DPP_HDR_LEN)
			rte_memcpy((uint8_t *)eh + DPP_HDR_LEN,
					buf_next(d, frame - DPP_HDR_LEN),
					frame - DPP_HDR_LEN);
		else if (d->copy && frame > DPP_HDR_LEN)
			rte_memcpy((uint8_t *)eh + DPP_HDR_LEN, d->payload,
					frame - DPP_HDR_LEN);
	}
	return 0;
}

static int
stream(struct dpp *d, const struct opts *o)
{
	uint64_t stop_at, sent = 0, t0;
	struct rte_mbuf *m[DPP_BURST_MAX];
	uint32_t seq = 1;
	struct dpp_hdr h;
	double tx_s, rx_s;

	if (ask(d, K_HELLO, K_READY, 0, 10000, 10e6, &h) != 0) {
		fprintf(stderr, "dpdk_pingpong: no sink answers\n");
		return 1;
	}
	t0 = rte_rdtsc();
	stop_at = t0 + (uint64_t)(o->secs * (double)d->hz);
	while (sent < o->frames && rte_rdtsc() < stop_at) {
		uint16_t n = (uint16_t)RTE_MIN((uint64_t)o->burst,
				o->frames - sent);

		if (fill_burst(d, m, n, o->frame, &seq) != 0 ||
				send_all(d, m, n) != 0) {
			fprintf(stderr, "dpdk_pingpong: stream: tx stuck\n");
			return 1;
		}
		sent += n;
	}
	tx_s = tsc_us(d, rte_rdtsc() - t0) / 1e6;
	if (ask(d, K_STOP, K_REPORT, seq, 20000, 5e6, &h) != 0) {
		fprintf(stderr, "dpdk_pingpong: no report from the sink\n");
		return 1;
	}
	rte_delay_us_sleep(QUIET_US);
	rx_s = rte_be_to_cpu_64(h.v2) / 1e9;
	printf("# mode,frame,sent,received,rx_secs,rx_frames_per_s,"
			"tx_frames_per_s\n");
	printf("rate,%u,%" PRIu64 ",%" PRIu64 ",%.6f,%.0f,%.0f\n", o->frame,
			sent, rte_be_to_cpu_64(h.v1), rx_s,
			rx_s > 0 ? rte_be_to_cpu_64(h.v1) / rx_s : 0.0,
			sent / tx_s);
	return 0;
}

/* ---- setup ---- */

/* EAL arguments: argv up to "--", or else MX_DPDK_ARGS split on blanks.
 * Returns how many words of argv the EAL arguments took (0 if none). */
static int
eal_args(int argc, char **argv, char **eargv, int *eargc, char **buf)
{
	const char *env = getenv("MX_DPDK_ARGS");
	char *save = NULL;
	int n = 1;

	eargv[0] = argv[0];
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			for (int j = 1; j < i && n < DPP_MAX_EAL_ARGS; j++)
				eargv[n++] = argv[j];
			*eargc = n;
			return i;
		}
	*buf = strdup(env != NULL ? env : "");
	if (*buf == NULL)
		return -1;
	for (char *t = strtok_r(*buf, " \t\n", &save);
			t != NULL && n < DPP_MAX_EAL_ARGS;
			t = strtok_r(NULL, " \t\n", &save))
		eargv[n++] = t;
	*eargc = n;
	return 0;
}

static int
has_cores(char **argv, int argc)
{
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "-l", 2) || !strcmp(argv[i], "-c") ||
				!strncmp(argv[i], "--lcores", 8))
			return 1;
	return 0;
}

/* rte_eal_init() with one lcore unless cores are chosen, and this thread
 * left free to run on any CPU it could before (see the opening comment). */
static int
eal_init(int argc, char **argv, int *used)
{
	static char *eargv[DPP_MAX_EAL_ARGS + 4];	/* the EAL keeps them */
	static char lcore[16];
	char *buf = NULL;
	cpu_set_t saved;
	int eargc = 0, pin;

	*used = eal_args(argc, argv, eargv, &eargc, &buf);
	if (*used < 0)
		return -1;
	pin = has_cores(eargv, eargc);
	pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	if (!pin) {
		snprintf(lcore, sizeof(lcore), "%d", RTE_MAX(sched_getcpu(), 0));
		eargv[eargc++] = (char *)(uintptr_t)"-l";
		eargv[eargc++] = lcore;
	}
	eargv[eargc] = NULL;
	if (rte_eal_init(eargc, eargv) < 0)
		return -1;
	if (!pin)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return 0;
}

static int
port_init(struct dpp *d, uint32_t room, uint32_t nb_mbufs)
{
	struct rte_eth_conf conf;
	int s;

	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "dpdk_pingpong: no port\n");
		return -1;
	}
	d->port = 0;
	RTE_ETH_FOREACH_DEV(d->port)
		break;
	s = rte_eth_dev_socket_id(d->port);
	s = s < 0 ? (int)rte_socket_id() : s;
	d->mp = rte_pktmbuf_pool_create("dpp_pool", nb_mbufs, 256, 0,
			(uint16_t)(room + RTE_PKTMBUF_HEADROOM), s);
	memset(&conf, 0, sizeof(conf));
	if (d->mp == NULL ||
			rte_eth_dev_configure(d->port, 1, 1, &conf) < 0 ||
			rte_eth_rx_queue_setup(d->port, 0, 1024, s, NULL,
				d->mp) < 0 ||
			rte_eth_tx_queue_setup(d->port, 0, 1024, s, NULL) < 0 ||
			rte_eth_dev_start(d->port) < 0) {
		fprintf(stderr, "dpdk_pingpong: port %u setup: %s\n", d->port,
				rte_strerror(rte_errno));
		return -1;
	}
	rte_eth_macaddr_get(d->port, &d->self);
	memset(&d->peer, 0xff, sizeof(d->peer));
	return 0;
}

static int
link_wait(const struct dpp *d, double us)
{
	struct rte_eth_link link;
	uint64_t end = rte_rdtsc() + (uint64_t)(us * (double)d->hz / 1e6);

	do {
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(d->port, &link);
		if (link.link_status == RTE_ETH_LINK_UP)
			return 0;
		rte_delay_us_sleep(1000);
	} while (rte_rdtsc() < end);
	fprintf(stderr, "dpdk_pingpong: link down\n");
	return -1;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: dpdk_pingpong [EAL args --] ping|pong|stream|sink\n"
		"  ping   [-S len] [-E len] [-N iters] [-W warm-up]\n"
		"  pong   [-x: answer with the received mbuf]\n"
		"  all    [-c: copy every frame's bytes, not just headers]\n"
		"  stream [-s frame] [-n frames] [-t secs] [-b burst]\n"
		"  stream, sink [-D: frames from/into 16 buffers of 1 MiB]\n"
		"  sink   [-F frames: also time the first so many]\n"
		"  sink   [-Z: -D by non-temporal stores]\n"
		"  all    [-T secs: bound on the whole run, 60]\n"
		"Without \"--\", EAL arguments come from MX_DPDK_ARGS.\n");
	exit(2);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .start = 0, .end = 1024, .iters = 10000,
		.warm = 0, .burst = 32, .frame = DPP_MIN_FRAME,
		.frames = UINT64_MAX, .secs = 1.0, .limit = 60 };
	if (argc < 1)
		usage();
	o->mode = argv[0];
	o->warm = UINT32_MAX;
	optind = 0;	/* glibc: start afresh after the EAL's getopt */
	while ((c = getopt(argc, argv, "S:E:N:W:s:n:t:b:T:F:xcDZh")) != -1) {
		switch (c) {
		case 'S': o->start = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'E': o->end = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'N': o->iters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'W': o->warm = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': o->frame = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'n': o->frames = strtoull(optarg, NULL, 0); break;
		case 'F': o->lap = strtoull(optarg, NULL, 0); break;
		case 't': o->secs = strtod(optarg, NULL); break;
		case 'b': o->burst = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'T': o->limit = strtod(optarg, NULL); break;
		case 'x': o->reflect = 1; break;
		case 'c': o->copy = 1; break;
		case 'D': o->bufs = 1; break;
		case 'Z': o->bufs = 1; o->nt = 1; break;
		default: usage();
		}
	}
	/* Warm-up as long as mx_pingpong's, unless told. */
	if (o->warm == UINT32_MAX)
		o->warm = o->iters / 10 + 1000;
	if (o->iters == 0 || o->start > o->end || o->burst == 0 ||
			o->burst > DPP_BURST_MAX || o->frame < DPP_HDR_LEN ||
			o->limit <= 0)
		usage();
}

int
main(int argc, char **argv)
{
	static struct dpp d;
	struct opts o;
	uint32_t room;
	int used, ret;

	if (eal_init(argc, argv, &used) < 0) {
		fprintf(stderr, "dpdk_pingpong: EAL: %s\n",
				rte_strerror(rte_errno));
		return 1;
	}
	parse(argc - used - 1, argv + used + 1, &o);
	if (strcmp(o.mode, "ping") && strcmp(o.mode, "pong") &&
			strcmp(o.mode, "stream") && strcmp(o.mode, "sink"))
		usage();
	/* Mbufs hold the largest frame we send or (pong, sink) may be sent:
	 * MX_MTU, when the harness sets it for jumbo frames, as the library
	 * reads it.  net_af_packet wants mbufs as large as its ring frames
	 * (framesz - 32), which also hold 66 bytes of header: jumbo mbufs get
	 * that much more. */
	room = RTE_MAX(o.end + 14, o.frame);
	if (getenv("MX_MTU") != NULL)
		room = RTE_MAX(room, (uint32_t)atoi(getenv("MX_MTU")) + 14);
	room = room > RTE_MBUF_DEFAULT_DATAROOM ? room + 64 :
		RTE_MBUF_DEFAULT_DATAROOM;
	d.hz = rte_get_tsc_hz();
	d.deadline = rte_rdtsc() + (uint64_t)(o.limit * (double)d.hz);
	memset(d.payload, 0xa5, sizeof(d.payload));
	d.copy = (int)o.copy;
	d.nt = (int)o.nt;
	d.lap = o.lap;
	if (o.bufs) {
		/* Touched before the run, as a program's buffers are. */
		d.bufs = aligned_alloc(64, DPP_BUFS_LEN);
		if (d.bufs == NULL) {
			fprintf(stderr, "dpdk_pingpong: no memory for -D\n");
			return 1;
		}
		memset(d.bufs, 0x5a, DPP_BUFS_LEN);
	}
	if (room > sizeof(d.payload)) {
		fprintf(stderr, "dpdk_pingpong: frames up to %zu bytes\n",
				sizeof(d.payload));
		return 2;
	}
	if (port_init(&d, room, 8191) < 0)
		return 1;
	/* The harnesses start the client side once the server says this
	 * (a memif client fails to start when its server is not up). */
	if (!strcmp(o.mode, "pong") || !strcmp(o.mode, "sink"))
		printf("dpdk_pingpong: %s ready\n", o.mode);
	fflush(stdout);
	if (link_wait(&d, 10e6) < 0)
		return 1;
	if (!strcmp(o.mode, "ping"))
		ret = ping(&d, &o);
	else if (!strcmp(o.mode, "pong"))
		ret = pong(&d, o.reflect);
	else if (!strcmp(o.mode, "stream"))
		ret = stream(&d, &o);
	else
		ret = sink(&d);
	/* No rte_eal_cleanup(): in DPDK 22.11 it races with the EAL's
	 * interrupt thread over a memif port's socket handle (a SIGSEGV in
	 * rte_intr_fd_get() in about one exit in twenty here).  The library
	 * never calls it either; the process's exit releases everything. */
	return ret;
}
