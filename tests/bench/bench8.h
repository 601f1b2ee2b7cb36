/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the one-process benchmarks over the fake link (icount,
 * match_depth) share: a call that must succeed, an 8-byte receive or send
 * posted, and a request polled to completion with mx_test, as
 * mx_pingpong polls.  A program defines BENCH_NAME (its name in error
 * messages) before it includes this.
 */
#ifndef MXD_BENCH8_H
#define MXD_BENCH8_H

#include <stdio.h>
#include <stdlib.h>

#include <myriexpress.h>

static void
must(mx_return_t rc, const char *what)
{
	if (rc != MX_SUCCESS) {
		fprintf(stderr, BENCH_NAME ": %s: %s\n", what,
				mx_strerror(rc));
		exit(1);
	}
}

/* Polls r to completion with mx_test; anything but an 8-byte success
 * ends the program. */
static void
complete(mx_endpoint_t ep, mx_request_t *r)
{
	mx_status_t st;
	uint32_t done = 0;

	for (unsigned long i = 0; !done; i++) {
		must(mx_test(ep, r, &st, &done), "mx_test");
		if (i > 100000000ul) {
			fprintf(stderr, BENCH_NAME ": no completion\n");
			exit(1);
		}
	}
	if (st.code != MX_STATUS_SUCCESS || st.xfer_length != 8)
		must(MX_BAD_REQUEST, mx_strstatus(st.code));
}

static mx_request_t
recv8(mx_endpoint_t ep, void *buf, uint64_t m, uint64_t mask)
{
	mx_segment_t seg = { buf, 8 };
	mx_request_t r;

	must(mx_irecv(ep, &seg, 1, m, mask, NULL, &r), "mx_irecv");
	return r;
}

static mx_request_t
isend8(mx_endpoint_t ep, mx_endpoint_addr_t to, void *buf, uint64_t m)
{
	mx_segment_t seg = { buf, 8 };
	mx_request_t r;

	must(mx_isend(ep, &seg, 1, to, m, NULL, &r), "mx_isend");
	return r;
}

#endif
