/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_bw: streaming bandwidth between two endpoints, in the manner of
 * Myricom's mx_stream.  A window of messages is kept in flight.
 *
 *   receiver:  mx_bw [-e local_ep]
 *   sender:    mx_bw -d host:board [-r remote_ep] [-e local_ep]
 *                    [-S start] [-E end] [-N messages] [-W window] [-B]
 *                    [-D]
 *
 * -B streams both ways at once.  As in mx_stream and osu_bw, the messages
 * in flight share one send buffer and one receive buffer (their data is
 * still moved and checked in full: mx-dpdk does not know they overlap);
 * -D gives every message of the window a buffer of its own, so the data
 * comes from and goes to memory well beyond the caches.  Sizes double from
 * start to end; for each size the sender prints MB/s and messages/s (of
 * one direction; -B prints the sum of both).  The receiver takes its
 * parameters from the sender.  Each size starts with an untimed warm-up of
 * one window of messages (the first use of frame buffers and pages is not
 * part of the figure).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>

#define M_PARAM		0x3333000000000000ull
#define M_DATA		0x4444000000000000ull
#define M_DONE		0x5555000000000000ull
#define WAIT_MS		60000
#define MAX_WINDOW	256

struct params {
	uint64_t nic_id;
	uint32_t endpoint_id;
	uint32_t start, end, count, window, both, distinct;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
die(const char *what, mx_return_t rc)
{
	fprintf(stderr, "mx_bw: %s: %s\n", what, mx_strerror(rc));
	exit(1);
}

static void
wait_ok(mx_endpoint_t ep, mx_request_t *r)
{
	mx_status_t st;
	uint32_t done = 0;

	if (mx_wait(ep, r, WAIT_MS, &st, &done) != MX_SUCCESS || !done ||
			(st.code != MX_STATUS_SUCCESS &&
			 st.code != MX_STATUS_TRUNCATED)) {
		fprintf(stderr, "mx_bw: request failed or timed out\n");
		exit(1);
	}
}

static void
post(mx_endpoint_t ep, int send, mx_endpoint_addr_t to, void *buf,
		uint32_t len, mx_request_t *r)
{
	mx_segment_t seg = { buf, len };
	mx_return_t rc = send ?
		mx_isend(ep, &seg, 1, to, M_DATA, NULL, r) :
		mx_irecv(ep, &seg, 1, M_DATA, MX_MATCH_MASK_NONE, NULL, r);

	if (rc != MX_SUCCESS)
		die(send ? "mx_isend" : "mx_irecv", rc);
}

/*
 * Moves 'count' messages of 'len' bytes: sends if 'tx', receives if 'rx'
 * (both with -B), keeping up to 'window' of each in flight.
 */
static void
stream(mx_endpoint_t ep, mx_endpoint_addr_t peer, const struct params *p,
		uint32_t len, uint32_t count, int tx, int rx, uint8_t *sbuf,
		uint8_t *rbuf)
{
	mx_request_t sr[MAX_WINDOW], rr[MAX_WINDOW];
	uint32_t w = p->window;

	for (uint32_t i = 0; i < count + w; i++) {
		uint32_t k = i % w;
		size_t at = p->distinct ? (size_t)k * len : 0;

		if (i >= w) {
			if (rx)
				wait_ok(ep, &rr[k]);
			if (tx)
				wait_ok(ep, &sr[k]);
		}
		if (i < count) {
			if (rx)
				post(ep, 0, peer, rbuf + at, len, &rr[k]);
			if (tx)
				post(ep, 1, peer, sbuf + at, len, &sr[k]);
		}
	}
}

/* A zero-byte message each way: both sides are at the same size. */
static void
sync_peer(mx_endpoint_t ep, mx_endpoint_addr_t peer)
{
	mx_segment_t seg = { NULL, 0 };
	mx_request_t s, r;

	if (mx_irecv(ep, &seg, 0, M_DONE, MX_MATCH_MASK_NONE, NULL, &r) ||
			mx_isend(ep, &seg, 0, peer, M_DONE, NULL, &s))
		die("sync", MX_FAILURE);
	wait_ok(ep, &s);
	wait_ok(ep, &r);
}

static void
run(mx_endpoint_t ep, mx_endpoint_addr_t peer, const struct params *p,
		int sender)
{
	size_t room = (size_t)(p->distinct ? p->window : 1) *
		(p->end ? p->end : 1);
	uint8_t *sbuf = malloc(room), *rbuf = malloc(room);

	if (sbuf == NULL || rbuf == NULL)
		die("memory for the window", MX_NO_RESOURCES);
	/* Touch every page now, not inside the timed loop. */
	memset(sbuf, 1, room);
	memset(rbuf, 0, room);
	if (sender)
		printf("%-10s %12s %14s   (%s, window %u, %u messages, "
				"%s)\n", "length", "MB/s", "messages/s",
				p->both ? "both ways" : "one way", p->window,
				p->count, p->distinct ? "a buffer each" :
				"buffers shared");
	for (uint32_t len = p->start; len <= p->end;
			len = len ? len * 2 : 1) {
		double t0, t;

		stream(ep, peer, p, len, p->window, sender || p->both,
				!sender || p->both, sbuf, rbuf);	/* warm-up */
		sync_peer(ep, peer);
		t0 = now_s();
		stream(ep, peer, p, len, p->count, sender || p->both,
				!sender || p->both, sbuf, rbuf);
		sync_peer(ep, peer);
		t = now_s() - t0;
		if (sender) {
			double msgs = (double)p->count * (p->both ? 2 : 1);

			printf("%-10u %12.1f %14.0f\n", len, msgs * len / t / 1e6,
					msgs / t);
			fflush(stdout);
		}
		if (len == 0 && p->end == 0)
			break;
	}
	free(sbuf);
	free(rbuf);
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: mx_bw [-b board] [-e local_ep] [-f filter]\n"
		"             [-d host:board -r remote_ep [-S start] [-E end]\n"
		"              [-N messages] [-W window] [-B] [-D]]\n"
		"Without -d, waits for one sender.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct params p = { 0, 0, 1024, 1u << 20, 1000, 32, 0, 0 };
	uint32_t board = 0, lep = 0, rep = 0, filter = 0x12345;
	const char *dest = NULL;
	mx_endpoint_addr_t peer, self;
	mx_segment_t seg = { &p, sizeof(p) };
	mx_endpoint_t ep;
	mx_request_t r;
	uint64_t nic;
	int c;

	while ((c = getopt(argc, argv, "b:e:r:d:f:S:E:N:W:BDh")) != -1) {
		switch (c) {
		case 'b': board = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'e': lep = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'r': rep = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': dest = optarg; break;
		case 'f': filter = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'S': p.start = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'E': p.end = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'N': p.count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'W': p.window = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'B': p.both = 1; break;
		case 'D': p.distinct = 1; break;
		default: usage();
		}
	}
	if (p.count == 0 || p.window == 0 || p.window > MAX_WINDOW ||
			p.start > p.end)
		usage();
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mx_init() != MX_SUCCESS)
		die("mx_init", MX_NO_DEV);
	if (mx_open_endpoint(board, lep, filter, NULL, 0, &ep) != MX_SUCCESS)
		die("mx_open_endpoint", MX_BUSY);
	if (dest == NULL) {
		printf("mx_bw: receiver on board %u endpoint %u\n", board, lep);
		fflush(stdout);
		if (mx_irecv(ep, &seg, 1, M_PARAM, MX_MATCH_MASK_NONE, NULL, &r))
			die("mx_irecv", MX_FAILURE);
		wait_ok(ep, &r);
		if (mx_connect(ep, p.nic_id, p.endpoint_id, filter, 10, &peer))
			die("mx_connect back", MX_CONNECTION_FAILED);
	} else {
		if (mx_hostname_to_nic_id((char *)(uintptr_t)dest, &nic))
			die(dest, MX_HOST_NOT_FOUND);
		if (mx_connect(ep, nic, rep, filter, 10, &peer))
			die("mx_connect", MX_CONNECTION_FAILED);
		mx_get_endpoint_addr(ep, &self);
		mx_decompose_endpoint_addr(self, &p.nic_id, &p.endpoint_id);
		if (mx_isend(ep, &seg, 1, peer, M_PARAM, NULL, &r))
			die("mx_isend", MX_FAILURE);
		wait_ok(ep, &r);
	}
	run(ep, peer, &p, dest != NULL);
	mx_close_endpoint(ep);
	mx_finalize();
	return 0;
}
