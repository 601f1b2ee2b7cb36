/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw frame ping-pong over the first DPDK port, through pmd-glue only: the
 * baseline that mx_pingpong is compared with.  One frame per message, the
 * same polling loop an MX endpoint uses, no protocol.
 *
 *   raw_pingpong pong                     echo frames until told to stop
 *   raw_pingpong ping [-S len] [-E len] [-N iters]
 *   raw_pingpong sink                     count frames until told to stop
 *   raw_pingpong stream [-M megabytes]    stream full-size frames, print
 *                                         MB/s of bytes after the Ethernet
 *                                         header: the streaming baseline
 *
 * EAL arguments come from MX_DPDK_ARGS, as for MX programs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "glue.h"

#define RAW_ETHERTYPE	0x88b6
#define STOP_MARK	0xff

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
send_frame(struct mxd_link *l, uint32_t len, uint8_t mark)
{
	struct mxd_frame f;
	double t0 = now_us();

	if (l->ops->alloc(l, &f, 1) != 0)
		return -1;
	memset(f.data, 0xff, 6);
	memcpy(f.data + 6, l->mac, 6);
	f.data[12] = RAW_ETHERTYPE >> 8;
	f.data[13] = RAW_ETHERTYPE & 0xff;
	f.data[14] = mark;
	f.len = len < 60 ? 60 : len;
	while (l->ops->tx_burst(l, &f, 1) == 0)
		if (now_us() - t0 > 5e6) {
			l->ops->free(&f, 1);
			return -1;
		}
	return 0;
}

/* Waits for one frame of ours; returns its mark (and length), or -1. */
static int
recv_frame(struct mxd_link *l, double timeout_us, uint32_t *len)
{
	struct mxd_frame f[32];
	double t0 = now_us();

	for (;;) {
		uint16_t n = l->ops->rx_burst(l, f, 32);
		int mark = -1;

		for (uint16_t i = 0; i < n; i++)
			if (f[i].len > 14 && f[i].data[12] == (RAW_ETHERTYPE >> 8)
					&& f[i].data[13] == (RAW_ETHERTYPE & 0xff)) {
				mark = f[i].data[14];
				*len = f[i].len;
			}
		if (n)
			l->ops->free(f, n);
		if (mark >= 0)
			return mark;
		if (now_us() - t0 > timeout_us)
			return -1;
	}
}

/* Echoes every frame with its own length, as mx_pingpong's receiver. */
static int
pong(struct mxd_link *l)
{
	for (;;) {
		uint32_t len = 0;
		int mark = recv_frame(l, 60e6, &len);

		if (mark < 0 || mark == STOP_MARK)
			return mark < 0;
		if (send_frame(l, len, (uint8_t)mark) != 0)
			return 1;
	}
}

#define MARK_DATA 2

/* Counts frames until the stop mark, then answers it. */
static int
sink(struct mxd_link *l)
{
	struct mxd_frame f[32];

	for (double t0 = now_us(); now_us() - t0 < 120e6;) {
		uint16_t n = l->ops->rx_burst(l, f, 32);
		int stop = 0;

		for (uint16_t i = 0; i < n; i++)
			stop |= f[i].len > 14 && f[i].data[14] == STOP_MARK;
		if (n)
			l->ops->free(f, n);
		if (stop)
			return send_frame(l, 60, STOP_MARK) != 0;
	}
	return 1;
}

/* Sends 'mb' megabytes of full frames in bursts, then waits for the
 * sink's answer to the stop mark: the time covers delivery. */
static int
stream(struct mxd_link *l, uint32_t mb)
{
	uint32_t flen = l->mtu + 14 <= l->room ? l->mtu + 14 : l->room;
	uint64_t total = (uint64_t)mb << 20, sent = 0;
	struct mxd_frame f[32];
	double t0 = now_us(), t;
	uint32_t got;

	while (sent < total) {
		uint16_t n = 32, k;

		if (l->ops->alloc(l, f, n) != 0)
			return 1;
		for (k = 0; k < n; k++) {
			memset(f[k].data, 0xff, 6);
			memcpy(f[k].data + 6, l->mac, 6);
			f[k].data[12] = RAW_ETHERTYPE >> 8;
			f[k].data[13] = RAW_ETHERTYPE & 0xff;
			f[k].data[14] = MARK_DATA;
			f[k].len = flen;
		}
		k = 0;
		while (k < n && now_us() - t0 < 60e6)
			k += l->ops->tx_burst(l, f + k, (uint16_t)(n - k));
		if (k < n) {
			l->ops->free(f + k, n - k);
			return 1;
		}
		sent += (uint64_t)n * (flen - 14);
	}
	if (send_frame(l, 60, STOP_MARK) != 0 || recv_frame(l, 10e6, &got) < 0)
		return 1;
	t = now_us() - t0;
	printf("raw stream: %u-byte frames, %.1f MB/s\n", flen,
			sent / t);
	return 0;
}

static int
ping(struct mxd_link *l, uint32_t start, uint32_t end, uint32_t iters)
{
	printf("%-10s %12s\n", "length", "latency(us)");
	for (uint32_t len = start; len <= end; len = len ? len * 2 : 1) {
		double t0 = 0;

		/* Warm-up as long as mx_pingpong's. */
		uint32_t warm = iters / 10 + 1000;

		for (uint32_t i = 0; i < iters + warm; i++) {
			if (i == warm)
				t0 = now_us();
			uint32_t got;

			if (send_frame(l, len + 14, 1) != 0 ||
					recv_frame(l, 5e6, &got) < 0) {
				fprintf(stderr, "raw_pingpong: peer not answering\n");
				return 1;
			}
		}
		printf("%-10u %12.3f\n", len, (now_us() - t0) / iters / 2);
		fflush(stdout);
	}
	send_frame(l, 60, STOP_MARK);
	return 0;
}

int
main(int argc, char **argv)
{
	struct mxd_glue_conf conf = {
		.eal_args = getenv("MX_DPDK_ARGS"), .nb_mbufs = 4095,
		.nb_rxd = 512, .nb_txd = 512,
	};
	uint32_t start = 0, end = 1024, iters = 10000, mb = 1024;
	const char *mtu = getenv("MX_MTU");	/* as the library reads it */
	unsigned n = 0;
	struct mxd_link *links;
	int reused, opt;

	if (mtu != NULL)
		conf.mtu = (uint32_t)strtoul(mtu, NULL, 0);

	if (argc < 2 || (strcmp(argv[1], "ping") && strcmp(argv[1], "pong") &&
			strcmp(argv[1], "sink") && strcmp(argv[1], "stream"))) {
		fprintf(stderr, "usage: %s ping|pong|sink|stream [-S len] "
				"[-E len] [-N iters] [-M megabytes]\n", argv[0]);
		return 2;
	}
	optind = 2;
	while ((opt = getopt(argc, argv, "S:E:N:M:")) != -1) {
		if (opt == 'M')
			mb = (uint32_t)atoi(optarg);
		else if (opt == 'S')
			start = (uint32_t)atoi(optarg);
		else if (opt == 'E')
			end = (uint32_t)atoi(optarg);
		else if (opt == 'N')
			iters = (uint32_t)atoi(optarg);
		else
			return 2;
	}
	if (end > 1400)
		end = 1400;
	if (mxd_glue_eal_init(&conf, &reused) < 0 ||
			mxd_glue_ports_open(&conf, &links, &n) < 0) {
		fprintf(stderr, "raw_pingpong: %s\n", mxd_glue_error());
		return 1;
	}
	if (n == 0) {
		fprintf(stderr, "raw_pingpong: no port\n");
		return 1;
	}
	if (!strcmp(argv[1], "pong") || !strcmp(argv[1], "sink")) {
		printf("raw_pingpong: %s ready\n", argv[1]);
		fflush(stdout);
	}
	if (mxd_glue_links_wait(links, 1, 10000) != 1) {
		fprintf(stderr, "raw_pingpong: link down\n");
		return 1;
	}
	if (!strcmp(argv[1], "sink"))
		return sink(&links[0]);
	if (!strcmp(argv[1], "stream"))
		return stream(&links[0], mb);
	return argv[1][1] == 'o' ? pong(&links[0]) :
		ping(&links[0], start, end, iters);
}
