/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * All-to-all among processes, on the public MX API alone: rank R of P
 * (MX_HOSTNAME a2a<R>) connects to every other rank's endpoint 1 by name
 * (a2a<j>:0), then runs rounds in which it posts a receive from every
 * other rank and sends each a message of -S bytes, and waits for all of
 * them: each rank a partner of every other, as in an MPI job's
 * MPI_Alltoall.  scripts/bench-alltoall.sh starts the P processes and
 * joins them by memif; rank 0 prints the figures.  Every received byte
 * is checked after the timed rounds (the last round's).
 *
 *   mx_alltoall -r rank -n ranks [-S bytes] [-N rounds] [-W warm-up]
 *
 * Prints "a2a ready" once its endpoint is open (the script starts the
 * next process then), and on rank 0: ranks, bytes, rounds, microseconds
 * per round (median, mean), messages received per second per rank,
 * MB/s received per rank.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>

#define FILTER	0xa2a
#define EP_ID	1

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
	fprintf(stderr, "mx_alltoall: %s: %s\n", what, mx_strerror(rc));
	exit(1);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static uint8_t
byte(uint32_t from, uint32_t to, uint32_t round, uint32_t k)
{
	return (uint8_t)(from * 29u + to * 7u + round * 3u + k * 13u);
}

/* One round: a receive from and a send to every other rank, all done. */
static void
round_run(mx_endpoint_t ep, uint32_t rank, uint32_t n, uint32_t len,
		uint32_t round, const mx_endpoint_addr_t *peer, uint8_t *in,
		uint8_t *out, mx_request_t *req, int fill)
{
	uint32_t k = 0;

	for (uint32_t j = 0; j < n; j++) {
		mx_segment_t s = { in + (size_t)j * len, len };
		mx_return_t rc;

		if (j == rank)
			continue;
		rc = mx_irecv(ep, &s, 1, (uint64_t)round << 32 | j,
				MX_MATCH_MASK_NONE, NULL, &req[k++]);
		if (rc != MX_SUCCESS)
			die("mx_irecv", rc);
	}
	for (uint32_t j = 0; j < n; j++) {
		uint8_t *b = out + (size_t)j * len;
		mx_segment_t s = { b, len };
		mx_return_t rc;

		if (j == rank)
			continue;
		if (fill)
			for (uint32_t i = 0; i < len; i++)
				b[i] = byte(rank, j, round, i);
		rc = mx_isend(ep, &s, 1, peer[j], (uint64_t)round << 32 | rank,
				NULL, &req[k++]);
		if (rc != MX_SUCCESS)
			die("mx_isend", rc);
	}
	for (uint32_t i = 0; i < k; i++) {
		mx_status_t st;
		uint32_t done;
		mx_return_t rc = mx_wait(ep, &req[i], 60000, &st, &done);

		if (rc != MX_SUCCESS || !done || st.code != MX_STATUS_SUCCESS) {
			fprintf(stderr, "mx_alltoall: rank %u round %u: %s\n",
					rank, round, done ?
					mx_strstatus(st.code) : "timed out");
			exit(1);
		}
	}
}

int
main(int argc, char **argv)
{
	uint32_t rank = 0, n = 0, len = 8, rounds = 10000, warm = 1000;
	mx_endpoint_addr_t *peer;
	mx_endpoint_t ep;
	mx_request_t *req;
	uint8_t *in, *out;
	double *t, sum = 0;
	mx_return_t rc;
	int c;

	while ((c = getopt(argc, argv, "r:n:S:N:W:")) != -1) {
		switch (c) {
		case 'r': rank = (uint32_t)atoi(optarg); break;
		case 'n': n = (uint32_t)atoi(optarg); break;
		case 'S': len = (uint32_t)atoi(optarg); break;
		case 'N': rounds = (uint32_t)atoi(optarg); break;
		case 'W': warm = (uint32_t)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: mx_alltoall -r rank -n ranks "
					"[-S bytes] [-N rounds] [-W warm-up]\n");
			return 2;
		}
	}
	if (n < 2 || rank >= n || rounds == 0) {
		fprintf(stderr, "mx_alltoall: -n 2 or more, -r below it, "
				"-N 1 or more\n");
		return 2;
	}
	peer = calloc(n, sizeof(*peer));
	req = calloc(2 * n, sizeof(*req));
	in = calloc(n, len ? len : 1);
	out = calloc(n, len ? len : 1);
	t = calloc(rounds, sizeof(*t));
	if (!peer || !req || !in || !out || !t) {
		fprintf(stderr, "mx_alltoall: no memory\n");
		return 1;
	}
	if ((rc = mx_init()) != MX_SUCCESS)
		die("mx_init", rc);
	rc = mx_open_endpoint(0, EP_ID, FILTER, NULL, 0, &ep);
	if (rc != MX_SUCCESS)
		die("mx_open_endpoint", rc);
	printf("a2a ready rank %u\n", rank);
	fflush(stdout);
	for (uint32_t j = 0; j < n; j++) {
		char name[64];
		uint64_t nic;

		if (j == rank)
			continue;
		snprintf(name, sizeof(name), "a2a%u:0", j);
		if ((rc = mx_hostname_to_nic_id(name, &nic)) != MX_SUCCESS)
			die(name, rc);
		rc = mx_connect(ep, nic, EP_ID, FILTER, 30000, &peer[j]);
		if (rc != MX_SUCCESS)
			die("mx_connect", rc);
	}
	for (uint32_t r = 0; r < warm; r++)
		round_run(ep, rank, n, len, r, peer, in, out, req, 0);
	for (uint32_t r = 0; r < rounds; r++) {
		double t0 = now_us();

		round_run(ep, rank, n, len, warm + r, peer, in, out, req,
				r == rounds - 1);
		t[r] = now_us() - t0;
		sum += t[r];
	}
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t i = 0; j != rank && i < len; i++)
			if (in[(size_t)j * len + i] !=
					byte(j, rank, warm + rounds - 1, i)) {
				fprintf(stderr, "mx_alltoall: rank %u: byte %u "
						"from rank %u wrong\n", rank, i,
						j);
				return 1;
			}
	/* The others wait for rank 0's last word: a round more. */
	round_run(ep, rank, n, len, warm + rounds, peer, in, out, req, 0);
	if (rank == 0) {
		double mean = sum / rounds;

		qsort(t, rounds, sizeof(*t), cmp_double);
		printf("ranks,bytes,rounds,median_us,mean_us,msgs_per_s,MBps\n");
		printf("mx_alltoall,%u,%u,%u,%.3f,%.3f,%.0f,%.1f\n", n, len,
				rounds, t[rounds / 2], mean,
				(n - 1) * 1e6 / mean,
				(double)(n - 1) * len / mean);
	}
	mx_close_endpoint(ep);
	mx_finalize();
	free(peer);
	free(req);
	free(in);
	free(out);
	free(t);
	return 0;
}
