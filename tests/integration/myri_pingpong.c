/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * myri_pingpong: a ping-pong written the way Myricom's mx_pingpong is,
 * with nothing of MX but <myriexpress.h>, to catch the stalls such a
 * program met where our own mx_pingpong met none:
 *
 *   receiver  keeps two receives posted; when one completes it replies
 *             from that receive's buffer, posts the next receive into the
 *             same buffer, and only then waits for its reply to be sent;
 *   sender    sleeps (100 ms) without calling MX before each length, then
 *             posts its send, then its receive, waits for the send, then
 *             for the receive (mx_wait both).
 *
 * With -p both sides poll (mx_test until done) instead of mx_wait.  With
 * -s W the sender streams instead, as Myricom's mx_stream does: W messages
 * in flight one way, each from a buffer of its own (the receiver's W
 * receives too); the line then gives microseconds per message, and with
 * -F K a line "first K <us>" gives them over the first K messages alone
 * (until their sends completed: the receiver had them): a run's first lap
 * against the whole run, both from one process in one stretch of time.
 *
 * Before each length (after its sleep) the sender tells the receiver the
 * length and the number of round trips in a small synchronous message
 * (mx_issend: the clock starts once the receiver is there); the first
 * length gets -P extra warm-up round trips (2048 by default; -P 0 times
 * the first lap of the rings, as tests/integration/firstlap.sh does).
 * -l gives the lengths (a comma-separated list) instead of the table's.
 *
 * The sender prints a line per length: the average half round trip over
 * the timed iterations, the worst one, and the limit, 5 us + 1 ns per byte
 * (+ -A us).  A length over its limit is tried again, up to -R times in
 * all.  Each try also measures, with /proc/thread-self/schedstat on both
 * sides, how long the two processes waited for a CPU that a third program
 * held: a try that failed while others held the CPU for a fifth of its
 * time or more measured the machine, not MX.  A ping-pong try whose
 * average is over the limit but whose median round trip is not passes:
 * a few round trips held up outside the guest (the hypervisor: no
 * program here waited), not every message waiting.  Exit 1 if a length failed
 * every try and at least one failure was not such a busy one; else 77 if
 * more than half the lengths failed only so, else 0.
 *
 *   receiver:  myri_pingpong [-b board] [-e local_ep]
 *   sender:    myri_pingpong -d host:board [-r remote_ep] [-e local_ep]
 *                            [-N iters] [-W warmup] [-P first_warmup]
 *                            [-z sleep_ms] [-E max_len] [-A us]
 *                            [-R tries] [-l len,len,...] [-p]
 *                            [-s window [-F lap]] [-v]
 *
 * -v prints, per try, the library's counters that moved and both sides'
 * scheduling (time on and off the CPU, CPU number).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>

#define FILTER		0x4d595249
#define MATCH_PARAMS	0x1000000000000000ull
#define MATCH_PING	0x2000000000000000ull
#define MATCH_PONG	0x3000000000000000ull
#define MATCH_NEXT	0x4000000000000000ull
#define MATCH_REPORT	0x5000000000000000ull
#define WAIT_MS		10000	/* a wait this long is a hang, not a stall */
#define MAX_COUNTERS	256
#define BUSY_SHARE	0.2	/* held by others: a try measured the machine */
#define MAX_WINDOW	64	/* -s */

/* Powers of two, a few odd lengths, either side of the rendezvous
 * threshold (32 KiB by default). */
static const uint32_t lengths[] = {
	0, 1, 2, 3, 4, 8, 16, 32, 64, 100, 128, 256, 512, 1000, 1024, 1500,
	2048, 4096, 4097, 8192, 9000, 16384, 32767, 32768, 32769, 65536,
	100000, 131072,
};
#define NLENS	(sizeof(lengths) / sizeof(lengths[0]))

/* -l: the lengths to run instead (at most NLENS). */
static uint32_t chosen[NLENS];
static uint32_t nchosen;

/* Messages between the two (host byte order: one machine). */
struct params {			/* sender -> receiver, once */
	uint64_t nic_id;
	uint32_t endpoint_id;
	uint32_t max_len;
	uint32_t verbose;
	uint32_t poll;		/* -p: mx_test until done, not mx_wait */
	uint32_t window;	/* -s: messages in flight; 0: ping-pong */
	uint32_t pad;
};

struct next {			/* sender -> receiver, before each try */
	uint32_t len;
	uint32_t rounds;	/* 0: the end */
};

struct report {			/* receiver -> sender, after each try */
	uint64_t run_ns, wait_ns;	/* on the CPU, runnable off it */
	int32_t cpu;
	uint32_t pad;
};

static mx_endpoint_t ep;
static mx_endpoint_addr_t peer;
static int verbose, polling;

static void
die(const char *what, mx_return_t rc)
{
	fprintf(stderr, "myri_pingpong: %s: %s\n", what, mx_strerror(rc));
	exit(2);
}

static void
wait_req(mx_request_t *req, const char *what, uint32_t len)
{
	mx_status_t status;
	uint32_t result = 0;
	mx_return_t rc;

	if (polling) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			rc = mx_test(ep, req, &status, &result);
			if (rc != MX_SUCCESS)
				die("mx_test", rc);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (!result && (t.tv_sec - t0.tv_sec) * 1000 +
				(t.tv_nsec - t0.tv_nsec) / 1000000 < WAIT_MS);
	} else {
		rc = mx_wait(ep, req, WAIT_MS, &status, &result);
		if (rc != MX_SUCCESS)
			die("mx_wait", rc);
	}
	if (!result) {
		fprintf(stderr, "myri_pingpong: %s of %u bytes not done after "
				"%u ms\n", what, len, WAIT_MS);
		exit(2);
	}
	if (status.code != MX_STATUS_SUCCESS) {
		fprintf(stderr, "myri_pingpong: %s of %u bytes: %s\n", what,
				len, mx_strstatus(status.code));
		exit(2);
	}
}

/* A send; synchronous (mx_issend: done once the receiver has matched it)
 * if 'sync'. */
static void
post_send(int sync, void *buf, uint32_t len, uint64_t match,
		mx_request_t *req)
{
	mx_segment_t seg = { buf, len };
	mx_return_t rc = (sync ? mx_issend : mx_isend)(ep, &seg, 1, peer,
			match, NULL, req);

	if (rc != MX_SUCCESS)
		die(sync ? "mx_issend" : "mx_isend", rc);
}

static void
send_msg(void *buf, uint32_t len, uint64_t match, mx_request_t *req)
{
	post_send(0, buf, len, match, req);
}

static void
recv_msg(void *buf, uint32_t len, uint64_t match, mx_request_t *req)
{
	mx_segment_t seg = { buf, len };
	mx_return_t rc = mx_irecv(ep, &seg, 1, match, MX_MATCH_MASK_NONE,
			NULL, req);

	if (rc != MX_SUCCESS)
		die("mx_irecv", rc);
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* This thread's time on the CPU and runnable off it, in ns (0 if the
 * kernel does not say). */
static void
sched_sample(uint64_t *run, uint64_t *wait)
{
	unsigned long long r = 0, w = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f != NULL) {
		if (fscanf(f, "%llu %llu", &r, &w) != 2)
			r = w = 0;
		fclose(f);
	}
	*run = r;
	*wait = w;
}

/* ---- counters (-v) ------------------------------------------------------ */

static uint32_t ncounters;
static char (*labels)[MX_MAX_STR_LEN];

static void
counters_read(uint32_t *v)
{
	uint32_t board = 0;

	if (ncounters == 0 && mx_get_info(ep, MX_COUNTERS_COUNT, &board,
				sizeof(board), &ncounters, sizeof(ncounters))
			== MX_SUCCESS) {
		if (ncounters > MAX_COUNTERS)
			ncounters = MAX_COUNTERS;
		labels = calloc(ncounters, MX_MAX_STR_LEN);
		if (labels == NULL || mx_get_info(ep, MX_COUNTERS_LABELS,
					&board, sizeof(board), labels,
					ncounters * MX_MAX_STR_LEN) !=
				MX_SUCCESS)
			ncounters = 0;
	}
	if (ncounters != 0)
		mx_get_info(ep, MX_COUNTERS_VALUES, &board, sizeof(board), v,
				ncounters * sizeof(*v));
}

static void
counters_print(const char *who, const uint32_t *before, const uint32_t *after)
{
	for (uint32_t i = 0; i < ncounters; i++)
		if (after[i] != before[i])
			printf("    %s: %s +%u\n", who, labels[i],
					after[i] - before[i]);
}

/* ---- receiver ----------------------------------------------------------- */

/* 'total' round trips of 'len' bytes, as Myricom's receiver does them;
 * then what its scheduling was. */
static void
receiver_length(char *buffer[2], uint32_t len, uint32_t total,
		struct report *rep)
{
	mx_request_t req[2], sreq, rreq;
	uint64_t run0, wait0, run1, wait1;
	uint32_t cur = 0, i;

	sched_sample(&run0, &wait0);
	for (i = 0; i < 2 && i < total; i++)
		recv_msg(buffer[i], len, MATCH_PING, &req[i]);
	for (i = 0; i < total; i++) {
		wait_req(&req[cur], "receive", len);
		send_msg(buffer[cur], len, MATCH_PONG, &sreq);
		/* The next receive goes into the buffer being sent from. */
		if (i + 2 < total)
			recv_msg(buffer[cur], len, MATCH_PING, &req[cur]);
		if (i + 1 == total)
			break;		/* the report goes first */
		wait_req(&sreq, "reply", len);
		cur ^= 1;
	}
	sched_sample(&run1, &wait1);
	rep->run_ns = run1 - run0;
	rep->wait_ns = wait1 - wait0;
	rep->cpu = sched_getcpu();
	send_msg(rep, sizeof(*rep), MATCH_REPORT, &rreq);
	if (total > 0)
		wait_req(&sreq, "reply", len);
	wait_req(&rreq, "report", sizeof(*rep));
}

/* 'total' messages of 'len' bytes streamed to us, n.window receives
 * posted, each into a buffer of its own; then what our scheduling was. */
static void
receiver_stream(char **buffer, uint32_t window, uint32_t len,
		uint32_t total, struct report *rep)
{
	mx_request_t req[MAX_WINDOW], rreq;
	uint64_t run0, wait0, run1, wait1;
	uint32_t i;

	sched_sample(&run0, &wait0);
	for (i = 0; i < window && i < total; i++)
		recv_msg(buffer[i], len, MATCH_PING, &req[i]);
	for (i = 0; i < total; i++) {
		wait_req(&req[i % window], "receive", len);
		if (i + window < total)
			recv_msg(buffer[i % window], len, MATCH_PING,
					&req[i % window]);
	}
	sched_sample(&run1, &wait1);
	rep->run_ns = run1 - run0;
	rep->wait_ns = wait1 - wait0;
	rep->cpu = sched_getcpu();
	send_msg(rep, sizeof(*rep), MATCH_REPORT, &rreq);
	wait_req(&rreq, "report", sizeof(*rep));
}

/* n buffers of len bytes, written once (a program's own first touch of
 * them is not the library's to time). */
static char **
buffers(uint32_t n, uint32_t len)
{
	char **b = calloc(n, sizeof(*b));

	for (uint32_t i = 0; b != NULL && i < n; i++) {
		b[i] = malloc(len);
		if (b[i] == NULL)
			die("malloc", MX_NO_RESOURCES);
		memset(b[i], 'm', len);
	}
	if (b == NULL)
		die("malloc", MX_NO_RESOURCES);
	return b;
}

static int
receiver(void)
{
	static uint32_t before[MAX_COUNTERS], after[MAX_COUNTERS];
	struct params p;
	struct next n;
	struct report rep;
	mx_request_t req;
	char **buffer;
	mx_return_t rc;

	printf("myri_pingpong: receiver ready\n");
	fflush(stdout);
	recv_msg(&p, sizeof(p), MATCH_PARAMS, &req);
	wait_req(&req, "parameters", sizeof(p));
	rc = mx_connect(ep, p.nic_id, p.endpoint_id, FILTER, 10000, &peer);
	if (rc != MX_SUCCESS)
		die("mx_connect", rc);
	verbose = (int)p.verbose;
	polling = (int)p.poll;
	if (p.window > MAX_WINDOW)
		p.window = MAX_WINDOW;
	buffer = buffers(p.window ? p.window : 2, p.max_len + 1);
	for (;;) {
		recv_msg(&n, sizeof(n), MATCH_NEXT, &req);
		wait_req(&req, "next length", sizeof(n));
		if (n.rounds == 0 || n.len > p.max_len)
			break;
		if (verbose)
			counters_read(before);
		if (p.window)
			receiver_stream(buffer, p.window, n.len, n.rounds,
					&rep);
		else
			receiver_length(buffer, n.len, n.rounds, &rep);
		if (verbose) {
			counters_read(after);
			printf("length %u:\n", n.len);
			counters_print("receiver", before, after);
		}
	}
	for (uint32_t i = 0; i < (p.window ? p.window : 2); i++)
		free(buffer[i]);
	free(buffer);
	return 0;
}

/* ---- sender ------------------------------------------------------------- */

struct opts {
	uint32_t iters, warmup, prime, nap_ms, max_len, tries, lap;
	double allowance;	/* us added to every limit */
	uint32_t window;	/* -s: stream, this many in flight */
};

enum verdict { OK, STALL, BUSY };

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
ping(char *sbuf, char *rbuf, uint32_t len)
{
	mx_request_t sreq, rreq;

	send_msg(sbuf, len, MATCH_PING, &sreq);
	recv_msg(rbuf, len, MATCH_PONG, &rreq);
	wait_req(&sreq, "send", len);
	wait_req(&rreq, "receive", len);
}

/* 'count' messages one way, 'window' in flight, each from its buffer;
 * *lap_at gets the time at which the first 'lap' sends had completed
 * (the receiver had them all), if 0 < lap <= count. */
static void
stream(char **sbuf, uint32_t window, uint32_t len, uint32_t count,
		uint32_t lap, double *lap_at)
{
	mx_request_t req[MAX_WINDOW];
	uint32_t i, done = 0;

	for (i = 0; i < count; i++) {
		if (i >= window) {
			wait_req(&req[i % window], "send", len);
			if (++done == lap)
				*lap_at = now_us();
		}
		send_msg(sbuf[i % window], len, MATCH_PING, &req[i % window]);
	}
	for (i = count > window ? count - window : 0; i < count; i++) {
		wait_req(&req[i % window], "send", len);
		if (++done == lap)
			*lap_at = now_us();
	}
}

/*
 * Time a third program held the CPU(s) of the two during a try: what both
 * waited for a CPU, less (on one CPU) what each waited while the other
 * ran.
 */
static double
others_us(uint64_t run, uint64_t wait, const struct report *rep)
{
	double w = (double)wait + (double)rep->wait_ns;

	if (rep->cpu == sched_getcpu())
		w -= (double)run + (double)rep->run_ns;
	return w > 0 ? w / 1e3 : 0;
}

/* One try at a length: sleep, warm up, time; prints its line. */
static enum verdict
sender_try(char **sbuf, char *rbuf, const struct opts *o, uint32_t len,
		uint32_t extra)
{
	static uint32_t before[MAX_COUNTERS], after[MAX_COUNTERS];
	double limit = 5.0 + o->allowance + len / 1000.0;
	double start, t, worst = 0, avg, med = 0, others, lap_at = 0;
	static double *rtt;		/* each round trip's, for the median */
	static uint32_t rtt_n;
	struct next n = { len, o->warmup + extra + o->iters };
	uint64_t run0, wait0, run1, wait1;
	struct report rep;
	mx_request_t req, rreq;
	uint32_t i;

	if (rtt_n < o->iters) {
		free(rtt);
		rtt = calloc(o->iters, sizeof(*rtt));
		if (rtt == NULL) {
			fprintf(stderr, "myri_pingpong: no memory\n");
			exit(1);
		}
		rtt_n = o->iters;
	}
	usleep(o->nap_ms * 1000);	/* no MX call meanwhile */
	if (verbose)
		counters_read(before);
	sched_sample(&run0, &wait0);
	/* Synchronous, so that the clock starts once the receiver is there
	 * (before the first length it still writes its buffers: 16 MiB for a
	 * stream, 10-15 ms here, which the first lap timed before). */
	post_send(1, &n, sizeof(n), MATCH_NEXT, &req);
	wait_req(&req, "next length", sizeof(n));
	if (o->window) {	/* timed until the receiver has them all */
		recv_msg(&rep, sizeof(rep), MATCH_REPORT, &rreq);
		stream(sbuf, o->window, len, o->warmup + extra, 0, NULL);
		start = now_us();
		stream(sbuf, o->window, len, o->iters, o->lap, &lap_at);
		wait_req(&rreq, "report", sizeof(rep));
		t = now_us();
		sched_sample(&run1, &wait1);
	} else {
		for (i = 0; i < o->warmup + extra; i++)
			ping(sbuf[0], rbuf, len);
		start = t = now_us();
		for (i = 0; i < o->iters; i++) {
			double prev = t;

			ping(sbuf[0], rbuf, len);
			t = now_us();
			rtt[i] = t - prev;
			if (t - prev > worst)
				worst = t - prev;
		}
		qsort(rtt, o->iters, sizeof(*rtt), by_value);
		med = rtt[o->iters / 2] / 2;
		sched_sample(&run1, &wait1);
		recv_msg(&rep, sizeof(rep), MATCH_REPORT, &rreq);
		wait_req(&rreq, "report", sizeof(rep));
	}
	avg = (t - start) / o->iters / (o->window ? 1 : 2);
	others = others_us(run1 - run0, wait1 - wait0, &rep);
	printf("%-8u %10.2f %10.2f %10.2f %s", len, avg, worst / 2, limit,
			avg <= limit || (med > 0 && med <= limit) ? "ok" :
			"STALL");
	if (avg > limit || verbose)
		printf(" (median %.2f; others held the CPU %.0f us of %.0f)",
				med, others, t - start);
	printf("\n");
	if (lap_at > 0)
		printf("first %u %10.2f\n", o->lap, (lap_at - start) / o->lap);
	if (verbose) {
		printf("    sender: cpu %d, on it %.0f us, waiting %.0f us; "
				"receiver: cpu %d, on it %.0f us, waiting "
				"%.0f us\n", sched_getcpu(),
				(run1 - run0) / 1e3, (wait1 - wait0) / 1e3,
				rep.cpu, rep.run_ns / 1e3, rep.wait_ns / 1e3);
		counters_read(after);
		counters_print("sender", before, after);
	}
	fflush(stdout);
	if (avg <= limit || (med > 0 && med <= limit))
		return OK;
	return others >= BUSY_SHARE * (t - start) ? BUSY : STALL;
}

/* Tries a length up to o->tries times; the last verdict, STALL if any
 * failed try was not a busy one. */
static enum verdict
sender_length(char **sbuf, char *rbuf, const struct opts *o, uint32_t len,
		uint32_t extra)
{
	enum verdict v = OK, worst = OK;

	for (uint32_t k = 0; k < o->tries; k++) {
		v = sender_try(sbuf, rbuf, o, len, k == 0 ? extra : 0);
		if (v == OK)
			return OK;
		if (v == STALL)
			worst = STALL;
	}
	return worst == STALL ? STALL : v;
}

static void
connect_receiver(const char *host, uint32_t remote_ep, const struct opts *o)
{
	struct params p;
	mx_endpoint_addr_t self;
	mx_request_t req;
	uint64_t nic;
	mx_return_t rc;

	rc = mx_hostname_to_nic_id((char *)(uintptr_t)host, &nic);
	if (rc != MX_SUCCESS)
		die(host, rc);
	rc = mx_connect(ep, nic, remote_ep, FILTER, 10000, &peer);
	if (rc != MX_SUCCESS)
		die("mx_connect", rc);
	memset(&p, 0, sizeof(p));
	mx_get_endpoint_addr(ep, &self);
	mx_decompose_endpoint_addr(self, &p.nic_id, &p.endpoint_id);
	p.max_len = o->max_len;
	p.verbose = (uint32_t)verbose;
	p.poll = (uint32_t)polling;
	p.window = o->window;
	send_msg(&p, sizeof(p), MATCH_PARAMS, &req);
	wait_req(&req, "parameters", sizeof(p));
}

static int
sender(const char *host, uint32_t remote_ep, const struct opts *o)
{
	struct next end = { 0, 0 };
	const uint32_t *lens = nchosen ? chosen : lengths;
	uint32_t nlens = nchosen ? nchosen : NLENS;
	uint32_t i, n = 0, stalls = 0, busy = 0;
	uint32_t nbufs = o->window ? o->window : 1;
	mx_request_t req;
	char **sbuf, *rbuf;
	int ret;

	connect_receiver(host, remote_ep, o);
	sbuf = buffers(nbufs, o->max_len + 1);
	rbuf = malloc(o->max_len + 1);
	if (rbuf == NULL)
		die("malloc", MX_NO_RESOURCES);
	printf("# myri_pingpong: %u iterations per length after %u warm-up "
			"(%u more first), %u ms asleep before each, up to %u "
			"tries; %s (us)\n", o->iters, o->warmup, o->prime,
			o->nap_ms, o->tries, o->window ? "time per message, "
			"streamed" : "half round trip");
	printf("%-8s %10s %10s %10s\n", "length", "average", "worst", "limit");
	for (i = 0; i < nlens && lens[i] <= o->max_len; i++, n++) {
		enum verdict v = sender_length(sbuf, rbuf, o, lens[i],
				i == 0 ? o->prime : 0);

		stalls += v == STALL;
		busy += v == BUSY;
	}
	send_msg(&end, sizeof(end), MATCH_NEXT, &req);
	wait_req(&req, "end", sizeof(end));
	for (i = 0; i < nbufs; i++)
		free(sbuf[i]);
	free(sbuf);
	free(rbuf);
	printf("myri_pingpong: %u of %u lengths over the limit", stalls + busy,
			n);
	if (busy != 0)
		printf(", %u of them only while other programs held the CPU",
				busy);
	printf("\n");
	ret = stalls != 0 ? 1 : 2 * busy > n ? 77 : 0;
	printf("myri_pingpong: %s\n", ret == 1 ? "FAIL" : ret == 77 ?
			"SKIP: the machine was too busy to measure" : "PASS");
	return ret;
}

/* -l 1024,2048: the lengths, and the largest as max_len. */
static void
choose_lengths(char *arg, struct opts *o)
{
	char *save = NULL;

	o->max_len = 0;
	for (char *t = strtok_r(arg, ",", &save); t != NULL;
			t = strtok_r(NULL, ",", &save)) {
		if (nchosen == NLENS) {
			fprintf(stderr, "myri_pingpong: -l: at most %zu "
					"lengths\n", NLENS);
			exit(2);
		}
		chosen[nchosen] = (uint32_t)strtoul(t, NULL, 0);
		if (chosen[nchosen] > o->max_len)
			o->max_len = chosen[nchosen];
		nchosen++;
	}
}

static void
usage(void)
{
	fprintf(stderr, "usage: myri_pingpong [-b board] [-e local_ep]\n"
			"       myri_pingpong -d host:board [-r remote_ep] "
			"[-e local_ep] [-N iters]\n"
			"                     [-W warmup] [-P first_warmup] "
			"[-z sleep_ms] [-E max_len]\n"
			"                     [-A us] [-R tries] "
			"[-l len,len,...] [-p] [-s window [-F lap]] [-v]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct opts o = { 2000, 10, 2048, 100, 131072, 1, 0 };
	uint32_t board = 0, my_ep = 1, remote_ep = 1;
	const char *host = NULL;
	mx_return_t rc;
	int c, ret;

	while ((c = getopt(argc, argv, "b:e:d:r:N:W:P:z:E:A:R:F:l:ps:vh")) != -1) {
		switch (c) {
		case 'b': board = (uint32_t)atoi(optarg); break;
		case 'e': my_ep = (uint32_t)atoi(optarg); break;
		case 'd': host = optarg; break;
		case 'r': remote_ep = (uint32_t)atoi(optarg); break;
		case 'N': o.iters = (uint32_t)atoi(optarg); break;
		case 'W': o.warmup = (uint32_t)atoi(optarg); break;
		case 'P': o.prime = (uint32_t)atoi(optarg); break;
		case 'z': o.nap_ms = (uint32_t)atoi(optarg); break;
		case 'E': o.max_len = (uint32_t)atoi(optarg); break;
		case 'A': o.allowance = atof(optarg); break;
		case 'R': o.tries = (uint32_t)atoi(optarg); break;
		case 'F': o.lap = (uint32_t)atoi(optarg); break;
		case 'l': choose_lengths(optarg, &o); break;
		case 'p': polling = 1; break;
		case 's':
			o.window = (uint32_t)atoi(optarg);
			if (o.window > MAX_WINDOW)
				o.window = MAX_WINDOW;
			break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (optind != argc || o.iters == 0 || o.tries == 0)
		usage();
	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	if (rc != MX_SUCCESS)
		die("mx_init", rc);
	rc = mx_open_endpoint(board, my_ep, FILTER, NULL, 0, &ep);
	if (rc != MX_SUCCESS)
		die("mx_open_endpoint", rc);
	ret = host == NULL ? receiver() : sender(host, remote_ep, &o);
	mx_close_endpoint(ep);
	mx_finalize();
	return ret;
}
