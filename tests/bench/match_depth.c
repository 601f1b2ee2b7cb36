/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matching at depth in one process, without DPDK: two boards joined by the
 * in-memory fake link (tests/common), an 8-byte ping-pong between their
 * endpoints with the match values and masks of mx_pingpong (the sender's
 * receive of the echo is fully masked, the echoing side's receive masks
 * the low 32 bits out), timed with nothing queued, with DEPTH receives
 * posted on each side that no message matches, and with DEPTH unexpected
 * messages queued on each side.  There is no second process to be
 * scheduled, so the figure is the library's own cost per round trip, far
 * steadier on a busy machine than two processes over memif
 * (scripts/bench-matching.sh runs both).
 *
 *   match_depth [-d depth] [-n round trips] [-r rounds] [-k kinds]
 *
 * The three kinds of run alternate for 'rounds' rounds.  A run times its
 * round trips in batches of 100 and takes the median batch (a batch during
 * which the process lost the CPU does not count).  It prints each kind's
 * median over rounds, in ns per round trip, and the median of each
 * round's ratio to the empty-queue run.  -k runs only some kinds
 * (letters e, p, u), e.g. under callgrind --toggle-collect=timed for the
 * instructions and simulated cache misses of the timed round trips.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"

#define BENCH_NAME "match_depth"
#include "bench8.h"

#define KIND_DATA	(0x2222ull << 48)
#define KIND_ECHO	(0x2223ull << 48)
#define KIND_JUNK	(0x3333ull << 48)
#define RUN_MASK	0xffffffff00000000ull
#define BATCH		100	/* round trips timed together */

enum kind { NONE, POSTED, UNEXP, KINDS };
static const char *const names[KINDS] = { "empty", "posted", "unexpected" };

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void
send8(mx_endpoint_t ep, mx_endpoint_addr_t to, void *buf, uint64_t m)
{
	mx_request_t r = isend8(ep, to, buf, m);

	complete(ep, &r);
}

/*
 * n round trips: e0 sends, e1 echoes; ns per round trip.  Both sides'
 * steps are interleaved as two processes would run them; a send is
 * completed once the reverse message that carries its ack is out (the
 * echo's by the next round trip's message), as in mx_pingpong, where the
 * other process runs meanwhile.
 */
static double
pingpong(uint32_t n, uint32_t *seq)
{
	static uint8_t a[8], b[8];
	mx_request_t s0, s1 = NULL;
	double t0 = now_ns();

	for (uint32_t i = 0; i < n; i++, ++*seq) {
		mx_request_t echo = recv8(fx.e0, a, KIND_ECHO | *seq,
				MX_MATCH_MASK_NONE);
		mx_request_t in = recv8(fx.e1, b, KIND_DATA, RUN_MASK);

		s0 = isend8(fx.e0, fx.to1, a, KIND_DATA | *seq);
		if (s1 != NULL)
			complete(fx.e1, &s1);
		complete(fx.e1, &in);
		s1 = isend8(fx.e1, fx.to0, b, KIND_ECHO | *seq);
		complete(fx.e0, &echo);
		complete(fx.e0, &s0);
	}
	complete(fx.e1, &s1);
	return (now_ns() - t0) / n;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* n round trips in batches of BATCH: the median batch's ns per round
 * trip (a batch during which the process was descheduled is an outlier,
 * which the median ignores). */
static __attribute__((noinline)) double
timed(uint32_t n, uint32_t *seq, double *batch)
{
	uint32_t nb = (n + BATCH - 1) / BATCH;

	for (uint32_t i = 0; i < nb; i++)
		batch[i] = pingpong(BATCH, seq);
	return median(batch, nb);
}

/* Each side: 'depth' receives of nothing, or 'depth' messages queued at
 * the other; undone by depth_clear. */
static void
depth_set(enum kind k, uint32_t depth, mx_request_t *junk)
{
	static uint8_t j[8];

	for (uint32_t i = 0; k == POSTED && i < depth; i++) {
		junk[2 * i] = recv8(fx.e0, j, KIND_JUNK | i,
				MX_MATCH_MASK_NONE);
		junk[2 * i + 1] = recv8(fx.e1, j, KIND_JUNK | i,
				MX_MATCH_MASK_NONE);
	}
	for (uint32_t i = 0; k == UNEXP && i < depth; i++) {
		send8(fx.e0, fx.to1, j, KIND_JUNK | i);
		send8(fx.e1, fx.to0, j, KIND_JUNK | i);
	}
}

static void
depth_clear(enum kind k, uint32_t depth, mx_request_t *junk)
{
	static uint8_t j[8];
	uint32_t gone;

	for (uint32_t i = 0; k == POSTED && i < 2 * depth; i++) {
		must(mx_cancel(i % 2 ? fx.e1 : fx.e0, &junk[i], &gone),
				"mx_cancel");
		if (!gone)
			must(MX_BAD_REQUEST, "a junk receive matched");
	}
	for (uint32_t i = 0; k == UNEXP && i < depth; i++) {
		mx_request_t r0 = recv8(fx.e0, j, KIND_JUNK | i,
				MX_MATCH_MASK_NONE);
		mx_request_t r1 = recv8(fx.e1, j, KIND_JUNK | i,
				MX_MATCH_MASK_NONE);

		complete(fx.e0, &r0);
		complete(fx.e1, &r1);
	}
}

int
main(int argc, char **argv)
{
	uint32_t depth = 10000, n = 20000, rounds = 7, seq = 0;
	const char *kinds = "epu";
	double *t[KINDS], *ratio, med[KINDS], *batch;
	mx_request_t *junk;
	int c;

	while ((c = getopt(argc, argv, "d:n:r:k:")) != -1) {
		switch (c) {
		case 'k': kinds = optarg; break;
		case 'd': depth = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'n': n = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'r': rounds = (uint32_t)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: match_depth [-d depth] "
					"[-n round trips] [-r rounds] "
					"[-k epu]\n");
			return 2;
		}
	}
	if (n == 0 || rounds == 0 || fixture_setup(NULL) < 0)
		return 1;
	junk = calloc(2 * (size_t)depth + 1, sizeof(*junk));
	ratio = calloc(KINDS * (size_t)rounds, sizeof(*ratio));
	batch = calloc(n / BATCH + 1, sizeof(*batch));
	for (int k = 0; k < KINDS; k++)
		t[k] = calloc(rounds, sizeof(double));
	pingpong(n / 10 + 100, &seq);	/* pools and tables grown */
	for (uint32_t r = 0; r < rounds; r++)
		for (int k = 0; k < KINDS; k++) {
			if (strchr(kinds, "epu"[k]) == NULL)
				continue;
			depth_set(k, depth, junk);
			pingpong(n / 10 + 100, &seq);
			t[k][r] = timed(n, &seq, batch);
			depth_clear(k, depth, junk);
		}
	printf("match_depth: 8-byte round trip in one process over the fake "
			"link, depth %u on each side,\n%u round trips per run, "
			"medians of %u rounds\n", depth, n, rounds);
	printf("%12s %10s %8s\n", "queues", "ns", "ratio");
	for (int k = KINDS - 1; k >= 0; k--) {	/* NONE sorted last */
		for (uint32_t r = 0; r < rounds; r++)
			ratio[k * rounds + r] = t[k][r] / t[NONE][r];
		med[k] = median(t[k], rounds);
	}
	for (int k = 0; k < KINDS; k++)
		if (strchr(kinds, "epu"[k]) != NULL)
			printf("%12s %10.1f %8.3f\n", names[k], med[k],
					median(&ratio[k * rounds], rounds));
	fixture_teardown(NULL);
	for (int k = 0; k < KINDS; k++)
		free(t[k]);
	free(batch);
	free(ratio);
	free(junk);
	return 0;
}
