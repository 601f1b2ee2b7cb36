/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_pingpong: half round-trip latency and bandwidth between two endpoints,
 * in the manner of Myricom's tool of the same name.
 *
 *   receiver:  mx_pingpong [-e local_ep]
 *   sender:    mx_pingpong -d host:board [-r remote_ep] [-e local_ep]
 *                          [-S start] [-E end] [-N iterations] [-V]
 *
 * The sender tells the receiver the sizes and its own address in a first
 * message; the receiver connects back and echoes every message.  With -V
 * both sides check every byte.  Only the public MX API is used.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>

#define MATCH_PARAM	0x1111000000000000ull
#define MATCH_DATA	0x2222000000000000ull
#define WAIT_MS		20000

struct params {
	uint64_t nic_id;
	uint32_t endpoint_id;
	uint32_t start, end, iters, verify;
};

struct opts {
	uint32_t board, local_ep, remote_ep, filter;
	uint32_t start, end, iters, verify;
	const char *dest;
};

static void
usage(void)
{
	fprintf(stderr,
		"usage: mx_pingpong [-b board] [-e local_ep] [-f filter]\n"
		"                   [-d host:board -r remote_ep [-S start_len]\n"
		"                    [-E end_len] [-N iterations] [-V]]\n"
		"Without -d, waits for one sender and echoes its messages.\n");
	exit(2);
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void
die(const char *what, mx_return_t rc)
{
	fprintf(stderr, "mx_pingpong: %s: %s\n", what, mx_strerror(rc));
	exit(1);
}

/* Waits for a request; a request that does not complete is fatal. */
static mx_status_t
wait_req(mx_endpoint_t ep, mx_request_t *req)
{
	mx_status_t st;
	uint32_t done = 0;
	mx_return_t rc = mx_wait(ep, req, WAIT_MS, &st, &done);

	if (rc != MX_SUCCESS)
		die("mx_wait", rc);
	if (!done) {
		fprintf(stderr, "mx_pingpong: no completion in %d ms\n",
				WAIT_MS);
		exit(1);
	}
	if (st.code != MX_STATUS_SUCCESS) {
		fprintf(stderr, "mx_pingpong: request failed: %s\n",
				mx_strstatus(st.code));
		exit(1);
	}
	return st;
}

static void
fill(uint8_t *buf, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static int
check(const uint8_t *buf, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(seed * 31 + i * 7 + (i >> 8))) {
			fprintf(stderr, "mx_pingpong: byte %u of a %u-byte "
					"message is wrong\n", i, len);
			return -1;
		}
	return 0;
}

static void
parse(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->remote_ep = 0;
	o->filter = 0x12345;
	o->end = 65536;
	o->iters = 1000;
	while ((c = getopt(argc, argv, "b:e:r:d:f:S:E:N:Vh")) != -1) {
		switch (c) {
		case 'b': o->board = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'e': o->local_ep = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'r': o->remote_ep = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': o->dest = optarg; break;
		case 'f': o->filter = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'S': o->start = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'E': o->end = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'N': o->iters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'V': o->verify = 1; break;
		default: usage();
		}
	}
	if (o->iters == 0 || o->start > o->end)
		usage();
}

static uint32_t
next_len(uint32_t len)
{
	return len == 0 ? 1 : len * 2;
}

/* One message each way; the sender starts, the receiver echoes. */
static int
exchange(mx_endpoint_t ep, mx_endpoint_addr_t peer, uint8_t *sbuf,
		uint8_t *rbuf, uint32_t len, uint32_t seed, int sender,
		int verify)
{
	mx_segment_t ss = { sbuf, len }, rs = { rbuf, len };
	mx_request_t sreq, rreq;
	mx_status_t st;
	mx_return_t rc;

	rc = mx_irecv(ep, &rs, 1, MATCH_DATA, MX_MATCH_MASK_NONE, NULL, &rreq);
	if (rc != MX_SUCCESS)
		die("mx_irecv", rc);
	if (!sender) {
		st = wait_req(ep, &rreq);
		if (st.xfer_length != len || (verify && check(rbuf, len, seed)))
			return -1;
		memcpy(sbuf, rbuf, len);
	}
	rc = mx_isend(ep, &ss, 1, peer, MATCH_DATA, NULL, &sreq);
	if (rc != MX_SUCCESS)
		die("mx_isend", rc);
	wait_req(ep, &sreq);
	if (sender) {
		st = wait_req(ep, &rreq);
		if (st.xfer_length != len || (verify && check(rbuf, len, seed)))
			return -1;
	}
	return 0;
}

static int
run_sizes(mx_endpoint_t ep, mx_endpoint_addr_t peer, const struct params *p,
		int sender)
{
	uint8_t *sbuf = malloc(p->end + 1), *rbuf = malloc(p->end + 1);
	/* Long enough for the CPUs to settle before the first size. */
	uint32_t warm = p->iters / 10 + 1000;

	if (sbuf == NULL || rbuf == NULL)
		die("malloc", MX_NO_RESOURCES);
	if (sender)
		printf("%-10s %14s %12s\n", "length", "latency(us)", "MB/s");
	for (uint32_t len = p->start; len <= p->end; len = next_len(len)) {
		double t0 = 0, us;

		for (uint32_t i = 0; i < warm + p->iters; i++) {
			if (i == warm)
				t0 = now_us();
			if (sender && p->verify)
				fill(sbuf, len, i + len);
			if (exchange(ep, peer, sbuf, rbuf, len, i + len, sender,
						p->verify) < 0)
				return 1;
		}
		us = (now_us() - t0) / p->iters / 2;
		if (sender) {
			printf("%-10u %14.3f %12.2f\n", len, us, len / us);
			fflush(stdout);
		}
	}
	free(sbuf);
	free(rbuf);
	return 0;
}

static int
sender(mx_endpoint_t ep, const struct opts *o)
{
	mx_endpoint_addr_t peer, self;
	struct params p = { 0, 0, o->start, o->end, o->iters, o->verify };
	mx_segment_t seg = { &p, sizeof(p) };
	mx_request_t req;
	uint64_t nic;
	mx_return_t rc;

	rc = mx_hostname_to_nic_id((char *)(uintptr_t)o->dest, &nic);
	if (rc != MX_SUCCESS)
		die(o->dest, rc);
	rc = mx_connect(ep, nic, o->remote_ep, o->filter, 10, &peer);
	if (rc != MX_SUCCESS)
		die("mx_connect", rc);
	mx_get_endpoint_addr(ep, &self);
	mx_decompose_endpoint_addr(self, &p.nic_id, &p.endpoint_id);
	rc = mx_isend(ep, &seg, 1, peer, MATCH_PARAM, NULL, &req);
	if (rc != MX_SUCCESS)
		die("mx_isend", rc);
	wait_req(ep, &req);
	return run_sizes(ep, peer, &p, 1);
}

static int
receiver(mx_endpoint_t ep, const struct opts *o)
{
	struct params p;
	mx_segment_t seg = { &p, sizeof(p) };
	mx_endpoint_addr_t peer;
	mx_request_t req;
	mx_return_t rc;

	rc = mx_irecv(ep, &seg, 1, MATCH_PARAM, MX_MATCH_MASK_NONE, NULL, &req);
	if (rc != MX_SUCCESS)
		die("mx_irecv", rc);
	{
		mx_status_t st;
		uint32_t done = 0;

		/* Wait as long as it takes for a sender to show up. */
		if (mx_wait(ep, &req, MX_INFINITE, &st, &done) != MX_SUCCESS ||
				!done || st.xfer_length != sizeof(p))
			die("parameters", MX_BAD_BAD_BAD);
	}
	rc = mx_connect(ep, p.nic_id, p.endpoint_id, o->filter, 10, &peer);
	if (rc != MX_SUCCESS)
		die("mx_connect back", rc);
	return run_sizes(ep, peer, &p, 0);
}

int
main(int argc, char **argv)
{
	struct opts o;
	mx_endpoint_t ep;
	mx_return_t rc;
	int ret;

	parse(argc, argv, &o);
	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	if (rc != MX_SUCCESS)
		die("mx_init", rc);
	rc = mx_open_endpoint(o.board, o.local_ep, o.filter, NULL, 0, &ep);
	if (rc != MX_SUCCESS)
		die("mx_open_endpoint", rc);
	if (o.dest == NULL)
		printf("mx_pingpong: receiver on board %u endpoint %u\n",
				o.board, o.local_ep);
	fflush(stdout);
	ret = o.dest ? sender(ep, &o) : receiver(ep, &o);
	mx_close_endpoint(ep);
	mx_finalize();
	return ret;
}
