/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello: a whole MX program.  Two endpoints of one board in one process:
 * open both, connect the first to the second, send "hello", receive it,
 * close.  Between processes or hosts only the NIC id changes (from
 * mx_hostname_to_nic_id("host:0", ...)).
 *
 *   cc hello.c $(pkg-config --cflags --libs --static myriexpress)
 *   MX_DPDK_ARGS="--no-huge -m 128 --no-pci --vdev=net_null0" ./a.out
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <myriexpress.h>

#define FILTER 0x12345		/* the endpoints' key */
#define MATCH 0x42		/* the message's match information */

static void
check(mx_return_t rc, const char *what)
{
	if (rc != MX_SUCCESS) {
		fprintf(stderr, "hello: %s: %s\n", what, mx_strerror(rc));
		exit(1);
	}
}

/* Waits up to 5 s for a request that must succeed. */
static mx_status_t
finish(mx_endpoint_t ep, mx_request_t *req, const char *what)
{
	mx_status_t st;
	uint32_t done = 0;

	check(mx_wait(ep, req, 5000, &st, &done), what);
	if (!done || st.code != MX_STATUS_SUCCESS) {
		fprintf(stderr, "hello: %s: %s\n", what,
				done ? mx_strstatus(st.code) : "timed out");
		exit(1);
	}
	return st;
}

int
main(void)
{
	char msg[] = "hello", buf[64] = "";
	mx_segment_t sseg = { msg, sizeof(msg) }, rseg = { buf, sizeof(buf) };
	mx_endpoint_t a, b;
	mx_endpoint_addr_t to_b;
	mx_request_t sreq, rreq;
	mx_status_t st;
	uint64_t nic;

	mx_set_error_handler(MX_ERRORS_RETURN);	/* errors come back to us */
	check(mx_init(), "mx_init");
	check(mx_open_endpoint(0, 1, FILTER, NULL, 0, &a), "open endpoint 1");
	check(mx_open_endpoint(0, 2, FILTER, NULL, 0, &b), "open endpoint 2");
	check(mx_board_number_to_nic_id(0, &nic), "board 0");
	check(mx_connect(a, nic, 2, FILTER, 10000, &to_b), "mx_connect");

	check(mx_irecv(b, &rseg, 1, MATCH, MX_MATCH_MASK_NONE, NULL, &rreq),
			"mx_irecv");
	check(mx_isend(a, &sseg, 1, to_b, MATCH, NULL, &sreq), "mx_isend");
	st = finish(b, &rreq, "receive");
	finish(a, &sreq, "send");
	printf("received \"%s\" (%u bytes)\n", buf, st.xfer_length);

	mx_close_endpoint(a);
	mx_close_endpoint(b);
	mx_finalize();
	return strcmp(buf, "hello") != 0;
}
