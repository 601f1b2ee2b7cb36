/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Instructions per 8-byte message on the same-host path (lib/engine/shm.c),
 * in one process, to be run under callgrind as icount is
 * (scripts/icount.sh --shm): two boards over fake ports, both joined to one
 * host segment as slots 1 and 2 with the segment's NIC id, so that the
 * endpoint on each is a same-host partner of the other and their messages
 * go through the rings.  Callgrind collects only inside icount_measure;
 * each step is a function of its own:
 *
 *   icount_send   mx_isend to the other board, mx_test until done (at once:
 *                 the data is in the ring), one pass (mx_ipeek)
 *   icount_recv   mx_irecv posted, mx_test until done: one pass that reads
 *                 the record, matches it, copies the 8 bytes, completes
 *   icount_rtt    one round trip of mx_pingpong's kind, both sides
 *   icount_idle   one pass with nothing to do (mx_ipeek on e0)
 *
 *   icount_shm [-n messages] [-w warm-up]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/init.h"
#include "util/config.h"
#include "engine/shmsend.h"
#include "fake_link.h"
#include "hostseg.h"

#define BENCH_NAME "icount_shm"
#include "bench8.h"

#define KIND_DATA	(0x2222ull << 48)
#define KIND_ECHO	(0x2223ull << 48)
#define RUN_MASK	0xffffffff00000000ull
#define NIC		0x02005ea00002ull

static struct fake_port pa, pb;
static mx_endpoint_t e0, e1;
static mx_endpoint_addr_t to1, to0;
static uint8_t sbuf[8], rbuf[8];

static void
pass(mx_endpoint_t ep)
{
	mx_request_t r;
	uint32_t got;

	must(mx_ipeek(ep, &r, &got), "mx_ipeek");
	if (got)
		must(MX_BAD_REQUEST, "a request completed unasked");
}

static __attribute__((noinline)) void
icount_send(uint32_t seq)
{
	mx_request_t s = isend8(e0, to1, sbuf, KIND_DATA | seq);

	complete(e0, &s);
	pass(e0);
}

static __attribute__((noinline)) void
icount_recv(uint32_t seq)
{
	mx_request_t r = recv8(e1, rbuf, KIND_DATA | seq, MX_MATCH_MASK_NONE);

	complete(e1, &r);
}

static __attribute__((noinline)) void
icount_rtt(uint32_t seq)
{
	mx_request_t echo = recv8(e0, sbuf, KIND_ECHO | seq,
			MX_MATCH_MASK_NONE);
	mx_request_t in = recv8(e1, rbuf, KIND_DATA, RUN_MASK);
	mx_request_t s0, s1;

	s0 = isend8(e0, to1, sbuf, KIND_DATA | seq);
	complete(e0, &s0);
	complete(e1, &in);
	s1 = isend8(e1, to0, rbuf, KIND_ECHO | seq);
	complete(e1, &s1);
	complete(e0, &echo);
}

static __attribute__((noinline)) void
icount_idle(void)
{
	pass(e0);
}

static __attribute__((noinline)) void
icount_measure(uint32_t n)
{
	uint32_t seq = 1u << 20;

	for (uint32_t i = 0; i < n; i++, seq++) {
		icount_send(seq);
		icount_recv(seq);
	}
	for (uint32_t i = 0; i < n; i++, seq++)
		icount_rtt(seq);
	for (uint32_t i = 0; i < n; i++)
		icount_idle();
}

/* Both boards join one host segment (slots 1 and 2), as two processes
 * of a host sharing a board would. */
static void
join(void)
{
	size_t off, len = mxd_host_size(3, MXD_HRING_BYTES_DFLT, &off);
	struct mxd_host *h = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	if (h == NULL)
		must(MX_NO_RESOURCES, "host segment");
	memset(h, 0, len);
	hostseg_fill(h, 3, MXD_HRING_BYTES_DFLT, off, len, NIC, "icount:0");
	for (unsigned i = 0; i < 2; i++) {
		struct mxd_board *b = mxd_lib.boards[i];

		h->slot[i + 1].state = MXD_HOST_SLOT_LIVE;
		h->slot[i + 1].epoch = 1;
		h->slot[i + 1].pid = getpid();
		b->host = h;
		b->slot = i + 1;
		b->nic_id = NIC;
		if (mxd_shm_attach(b) < 0)
			must(MX_BAD_PARAM_VAL, "mxd_shm_attach");
	}
}

int
main(int argc, char **argv)
{
	struct mxd_link *links[2] = { &pa.link, &pb.link };
	uint32_t n = 2000, warm = 1000;
	int c;

	while ((c = getopt(argc, argv, "n:w:")) != -1) {
		switch (c) {
		case 'n': n = (uint32_t)atoi(optarg); break;
		case 'w': warm = (uint32_t)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: icount_shm [-n messages] "
					"[-w warm-up]\n");
			return 2;
		}
	}
	setenv("MX_HOSTNAME", "icount", 1);
	setenv("MX_PROGRESSION", "0", 1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mxd_config_load(&mxd_conf) < 0)
		return 1;
	fake_pair(&pa, &pb, 1, 2, 1500);
	if (mxd_init_links(links, 2) < 0)
		must(MX_BAD_PARAM_VAL, "mxd_init_links");
	join();
	must(mx_open_endpoint(0, 1, 0x5eed, NULL, 0, &e0), "open e0");
	must(mx_open_endpoint(1, 2, 0x5eed, NULL, 0, &e1), "open e1");
	must(mx_connect(e0, NIC, 2, 0x5eed, 1000, &to1), "connect e0 -> e1");
	must(mx_connect(e1, NIC, 1, 0x5eed, 1000, &to0), "connect e1 -> e0");
	for (uint32_t i = 0; i < warm; i++) {
		icount_send(i);
		icount_recv(i);
		icount_rtt(i);
	}
	icount_measure(n);
	printf("shm: %u messages each way, %u round trips, %u idle passes; "
			"%llu through the rings\n", n, n, n, (unsigned long long)
			mxd_lib.boards[0]->counters[MXD_C_SHM_TX]);
	mx_finalize();
	return 0;
}
