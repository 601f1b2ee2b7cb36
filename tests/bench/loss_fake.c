/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loss recovery over the fake link, in one process: 200 ordered 64-byte
 * messages, window 64, both directions losing every frame with
 * probability P (seeded), then time and counters beside the lossless run.
 *   loss_fake [drop%] [seed] [msgs] [window] [len]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "mxtest.h"
#include "util/stats.h"

static uint32_t drop_pm;	/* per 1000 */
static uint64_t rng = 1;

static int
lossy(const uint8_t *f, uint32_t len)
{
	(void)f;
	(void)len;
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng >> 33) % 1000) < drop_pm ? FAKE_DROP : FAKE_PASS;
}

int
main(int argc, char **argv)
{
	double pct = argc > 1 ? atof(argv[1]) : 20;
	uint32_t msgs = argc > 3 ? (uint32_t)atoi(argv[3]) : 200;
	uint32_t win = argc > 4 ? (uint32_t)atoi(argv[4]) : 64;
	uint32_t len = argc > 5 ? (uint32_t)atoi(argv[5]) : 64;
	uint8_t *out = calloc(1, len), *in = calloc(1, len);
	mx_request_t *s = calloc(msgs, sizeof(*s)), *r = calloc(msgs, sizeof(*r));
	uint64_t t0, t1;
	void *st = NULL;

	rng = argc > 2 ? (uint64_t)atoll(argv[2]) : 1;
	setenv("MX_PROGRESSION", "0", 1);
	if (fixture_setup(&st) != 0)
		return 1;
	drop_pm = (uint32_t)(pct * 10);
	fx.pa.tap = lossy;
	fx.pb.tap = lossy;
	t0 = mxd_now_ns();
	for (uint32_t i = 0; i < msgs; i++)
		r[i] = mxt_recv(fx.e1, in, len, i, MX_MATCH_MASK_NONE);
	for (uint32_t i = 0, sent = 0, done = 0; done < msgs;) {
		uint32_t ok = 0;
		mx_status_t stt;

		while (i < msgs && i - done < win)
			s[i] = mxt_isend(fx.e0, fx.to1, out, len, i), i++;
		if (sent < i && mx_test(fx.e0, &s[sent], &stt, &ok) ==
				MX_SUCCESS && ok)
			sent++;
		ok = 0;
		if (mx_test(fx.e1, &r[done], &stt, &ok) == MX_SUCCESS && ok)
			done++;
	}
	t1 = mxd_now_ns();
	fx.pa.tap = NULL;
	fx.pb.tap = NULL;
	printf("drop %.1f%% %u msgs: %.3f ms; e0 retx(rto) %llu fast %llu; "
		"e1 sacks %llu acks %llu\n", pct, msgs, (t1 - t0) / 1e6,
		(unsigned long long)fx.e0->board->counters[MXD_C_RETX_MSGS],
		(unsigned long long)fx.e0->board->counters[MXD_C_FAST_RETX],
		(unsigned long long)fx.e1->board->counters[MXD_C_SACKS_SENT],
		(unsigned long long)fx.e1->board->counters[MXD_C_ACKS_SENT]);
	{
		struct mxd_partner *p = mxd_addr_lookup(&fx.to1);

		printf("  e0 pull busy %llu; e1 repulls %llu fast %llu\n",
			(unsigned long long)fx.e0->board->counters[MXD_C_PULL_BUSY],
			(unsigned long long)fx.e1->board->counters[MXD_C_REPULLS],
			(unsigned long long)fx.e1->board->counters[MXD_C_FAST_REPULLS]);
		if (p->a != NULL)
			printf("  e0->e1 srtt %u ns var %u ns backoff %u\n",
					p->a->rtt.srtt, p->a->rtt.var,
					p->a->backoff);
	}
	fixture_teardown(&st);
	return 0;
}
