/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Portals between two processes over the engine (lib/portals/engine.c):
 * each scenario is a pair of programs, A (a target that is up first)
 * and B, that use only portals3.h (and myriexpress.h where a process
 * holds both).  Scenarios:
 *   pingpong   puts back and forth, every size class, every byte checked,
 *              ACKs on every other one
 *   stream     puts of every size from 0 B to 4 MiB back to back, from
 *              contiguous and segmented (iovec) descriptors, into
 *              segmented ones too, one truncated; every byte checked
 *   get        gets of every size from a passive target, which makes no
 *              Portals call meanwhile (the progression thread serves
 *              them)
 *   mpi        the 3.2 text's chapter 5 "Message Transmission in MPI",
 *              short and long messages, posted and unexpected
 *   order      a mix of puts and gets, small and large: they start at
 *              the target in the order they were issued
 *   killed     A is stopped, then killed (SIGKILL), while B's operations
 *              to it are pending: each fails (PTL_NI_UNREACHABLE) within
 *              MX_PEER_TIMEOUT_MS
 *   both       each process holds an MX endpoint and a Portals interface
 *              on one board, and talks to the other through both; a
 *              connect of one face to the other's endpoint is refused
 * Every scenario counts each event kind and checks that no event comes
 * twice or is missing (events exactly once).
 *
 *   test_portals_two                   every scenario over a net_memif
 *                                      pair (--no-huge), A the server,
 *                                      and those that must hold under
 *                                      loss again with MX_FAULTS
 *   test_portals_two <scenario> <A|B>  one side; MX_DPDK_ARGS is the
 *                                      caller's (two network namespaces:
 *                                      tests/portals/two_veth.sh); A
 *                                      prints "ptl2 ready" once open
 *
 * A's node id is 02:00:00:00:00:0a (its port's MAC), B's :0b; A is
 * process id 5, B 6.  PTL2_DIR (default /tmp) holds the files the two
 * sides meet by (A's ready file, A's process id, B's "done").
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <myriexpress.h>
#include <portals3.h>

#define NID_A		0x02000000000aull
#define NID_B		0x02000000000bull
#define PID_A		5
#define PID_B		6
#define MX_EP		1		/* "both": the MX endpoints */
#define MX_FILTER	0x5eedu
#define LIMIT_S		120
/* How long an event may take: a sanitized build on a machine others load
 * heavily is slow (one operation, not a run: a run has LIMIT_S). */
#define WAIT_MS		60000

#define PT_SYNC		1
#define PT_DATA		2
#define PT_GET		3
#define PT_ORDER	4
#define PT_SEND		8		/* MPI_SEND_PINDEX */
#define PT_MPIGET	9		/* MPI_GET_PINDEX */

#define MB		(1u << 20)

static const char *role = "parent";
static char dir[256] = "/tmp";
static char tag[64] = "x";
static ptl_handle_ni_t ni;
static ptl_handle_eq_t sync_eq, sync_txq;
static ptl_process_id_t me, peer;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "[%s] %s:%d: ", role, __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		exit(1); \
	} \
} while (0)
#define OK(call) do { \
	int rc_ = (call); \
	CHECK(rc_ == PTL_OK, "%s: %s", #call, PtlErrorStr(rc_)); \
} while (0)

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
path_of(char *p, size_t n, const char *what)
{
	snprintf(p, n, "%s/ptl2-%s.%s", dir, tag, what);
}

static void
touch(const char *what)
{
	char p[400];
	FILE *f;

	path_of(p, sizeof(p), what);
	f = fopen(p, "w");
	CHECK(f != NULL, "cannot create %s", p);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
}

static int
exists(const char *what)
{
	char p[400];

	path_of(p, sizeof(p), what);
	return access(p, F_OK) == 0;
}

/* ---- patterns ---------------------------------------------------------- */

static uint8_t
pat(uint64_t i, uint32_t seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed * 0x85ebca6bu;

	return (uint8_t)(x >> 29 ^ x);
}

static void
fill(uint8_t *b, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		b[i] = pat(i, seed);
}

static void
expect(const uint8_t *b, uint64_t n, uint32_t seed, const char *what)
{
	for (uint64_t i = 0; i < n; i++)
		CHECK(b[i] == pat(i, seed), "%s: byte %llu of %llu wrong", what,
				(unsigned long long)i, (unsigned long long)n);
}

/* ---- descriptors and events -------------------------------------------- */

static ptl_md_t
md_of(void *start, ptl_size_t len, int threshold, unsigned options,
		ptl_handle_eq_t eq)
{
	ptl_md_t md;

	memset(&md, 0, sizeof(md));
	md.start = start;
	md.length = len;
	md.threshold = threshold;
	md.max_size = 0;
	md.options = options;
	md.user_ptr = NULL;
	md.eventq = eq;
	return md;
}

/* An entry on portal pt matching 'bits' exactly (ignore: the bits not
 * looked at), with a descriptor; returns the descriptor. */
static ptl_handle_md_t
attach(ptl_pt_index_t pt, ptl_match_bits_t bits, ptl_match_bits_t ignore,
		ptl_md_t md)
{
	ptl_process_id_t any = { PTL_NID_ANY, PTL_PID_ANY };
	ptl_handle_me_t meh;
	ptl_handle_md_t mdh;

	OK(PtlMEAttach(ni, pt, any, bits, ignore, PTL_RETAIN, PTL_INS_AFTER,
			&meh));
	OK(PtlMDAttach(meh, md, PTL_RETAIN, PTL_RETAIN, &mdh));
	return mdh;
}

static ptl_handle_md_t
bind(ptl_md_t md)
{
	ptl_handle_md_t h;

	OK(PtlMDBind(ni, md, &h));
	return h;
}

/* The next event of eq within ms milliseconds; fails the side if none. */
static ptl_event_t
next_event(ptl_handle_eq_t eq, uint32_t ms, const char *what)
{
	ptl_event_t ev;
	int which, rc = PtlEQPoll(&eq, 1, ms, &ev, &which);

	CHECK(rc == PTL_OK, "%s: no event (%s)", what, PtlErrorStr(rc));
	return ev;
}

static ptl_event_t
want(ptl_handle_eq_t eq, ptl_event_kind_t kind, const char *what)
{
	ptl_event_t ev = next_event(eq, WAIT_MS, what);

	CHECK(ev.type == kind, "%s: %s instead of %s (%s)", what,
			PtlEventKindStr(ev.type), PtlEventKindStr(kind),
			PtlNIFailStr(ni, ev.ni_fail_type));
	CHECK(ev.ni_fail_type == PTL_NI_OK, "%s: %s", what,
			PtlNIFailStr(ni, ev.ni_fail_type));
	return ev;
}

/* No event comes on eq within ms: nothing twice. */
static void
quiet(ptl_handle_eq_t eq, uint32_t ms, const char *what)
{
	ptl_event_t ev;
	int which, rc = PtlEQPoll(&eq, 1, ms, &ev, &which);

	CHECK(rc == PTL_EQ_EMPTY, "%s: an extra event %s", what,
			rc == PTL_OK ? PtlEventKindStr(ev.type) : PtlErrorStr(rc));
}

/* ---- the two sides ----------------------------------------------------- */

static void
open_ni(int a)
{
	ptl_ni_limits_t want_lim, got;
	int n;
	char p[400];

	memset(&want_lim, 0, sizeof(want_lim));
	want_lim.max_mes = 4096;
	want_lim.max_mds = 4096;
	OK(PtlInit(&n));
	CHECK(n >= 1, "%d interfaces", n);
	OK(PtlNIInit(PTL_IFACE_DEFAULT, a ? PID_A : PID_B, &want_lim, &got,
			&ni));
	OK(PtlGetId(ni, &me));
	CHECK(me.nid == (a ? NID_A : NID_B) && me.pid == (a ? PID_A : PID_B),
			"id %llx/%u", (unsigned long long)me.nid, me.pid);
	peer.nid = a ? NID_B : NID_A;
	peer.pid = a ? PID_B : PID_A;
	OK(PtlEQAlloc(ni, 64, &sync_eq));
	OK(PtlEQAlloc(ni, 64, &sync_txq));
	attach(PT_SYNC, 0, ~(ptl_match_bits_t)0, md_of(NULL, 0,
			PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_TRUNCATE |
			PTL_MD_EVENT_START_DISABLE, sync_eq));
	if (a) {
		touch("ready");
		printf("ptl2 ready\n");
		fflush(stdout);
	}
	(void)p;
}

/* One side's token to the other. */
static void
sync_send(void)
{
	static ptl_handle_md_t h = PTL_INVALID_HANDLE;
	ptl_event_t ev;

	if (h == PTL_INVALID_HANDLE)
		h = bind(md_of(NULL, 0, PTL_MD_THRESH_INF,
				PTL_MD_EVENT_START_DISABLE, sync_txq));
	OK(PtlPut(h, PTL_NOACK_REQ, peer, PT_SYNC, 0, 0, 0, 0));
	ev = next_event(sync_txq, WAIT_MS, "sync sent");
	CHECK(ev.type == PTL_EVENT_SEND_END && ev.ni_fail_type == PTL_NI_OK,
			"sync: %s %s", PtlEventKindStr(ev.type),
			PtlNIFailStr(ni, ev.ni_fail_type));
}

static void
sync_wait(void)
{
	ptl_event_t ev = next_event(sync_eq, WAIT_MS, "sync");

	CHECK(ev.type == PTL_EVENT_PUT_END, "sync: %s",
			PtlEventKindStr(ev.type));
}

/* A waits for B's first word, then answers; B speaks first (A's
 * interface is open before B starts). */
static void
hello(int a)
{
	if (a) {
		sync_wait();
		sync_send();
	} else {
		sync_send();
		sync_wait();
	}
}

/* The sum of board 0's counters whose label holds 'word' (the library
 * the Portals interface is on: mx_get_info needs no endpoint). */
static uint64_t
counters(const char *word)
{
	uint32_t board = 0, n = 0, *v;
	char (*label)[MX_MAX_STR_LEN];
	uint64_t sum = 0;

	if (mx_get_info(NULL, MX_COUNTERS_COUNT, &board, sizeof(board), &n,
				sizeof(n)) != MX_SUCCESS || n == 0)
		return 0;
	v = calloc(n, sizeof(*v));
	label = calloc(n, MX_MAX_STR_LEN);
	if (v != NULL && label != NULL &&
			mx_get_info(NULL, MX_COUNTERS_LABELS, &board,
				sizeof(board), label, n * MX_MAX_STR_LEN) ==
			MX_SUCCESS &&
			mx_get_info(NULL, MX_COUNTERS_VALUES, &board,
				sizeof(board), v, n * sizeof(*v)) == MX_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			if (strstr(label[i], word) != NULL)
				sum += v[i];
	free(v);
	free(label);
	return sum;
}

static void
finish(void)
{
	/* Under injected loss something was sent again: the run saw it. */
	if (getenv("MX_FAULTS") != NULL)
		CHECK(counters("retransmitted") + counters("asked again") +
				counters("drop: duplicate") > 0,
				"MX_FAULTS set, and nothing sent again");
	OK(PtlNIFini(ni));
	PtlFini();
	exit(0);
}

/* ---- pingpong ---------------------------------------------------------- */

static const uint32_t pp_sizes[] = { 0, 8, 1000, 1348, 1349, 4096, 65536,
	MB };

static void
pingpong(int a)
{
	uint8_t *rx = malloc(MB), *tx = malloc(MB);
	ptl_handle_eq_t rxq, txq;
	unsigned nack = 0, nsend = 0;

	open_ni(a);
	OK(PtlEQAlloc(ni, 256, &rxq));
	OK(PtlEQAlloc(ni, 256, &txq));
	attach(PT_DATA, 0, 0, md_of(rx, MB, PTL_MD_THRESH_INF, PTL_MD_OP_PUT |
			PTL_MD_MANAGE_REMOTE, rxq));
	hello(a);
	for (size_t s = 0; s < sizeof(pp_sizes) / sizeof(pp_sizes[0]); s++) {
		uint32_t len = pp_sizes[s], iters = len >= 65536 ? 8 : 100;

		for (uint32_t i = 0; i < 2 * iters; i++) {
			int mine = (i & 1) == (a ? 1u : 0u);
			uint32_t seed = (uint32_t)(s * 1000 + i);
			ptl_event_t ev;

			if (!mine) {
				want(rxq, PTL_EVENT_PUT_START, "pp start");
				ev = want(rxq, PTL_EVENT_PUT_END, "pp end");
				CHECK(ev.mlength == len && ev.rlength == len &&
						ev.hdr_data == seed, "pp %u: %llu",
						len, (unsigned long long)ev.mlength);
				CHECK(ev.initiator.nid == peer.nid &&
						ev.initiator.pid == peer.pid,
						"pp initiator");
				expect(rx, len, seed, "pingpong");
				continue;
			}
			fill(tx, len, seed);
			OK(PtlPut(bind(md_of(tx, len, 2, 0, txq)),
					(i & 2) ? PTL_ACK_REQ : PTL_NOACK_REQ,
					peer, PT_DATA, 0, 0, 0, seed));
			want(txq, PTL_EVENT_SEND_START, "pp send start");
			want(txq, PTL_EVENT_SEND_END, "pp send end");
			nsend++;
			if (i & 2) {
				ev = want(txq, PTL_EVENT_ACK, "pp ack");
				CHECK(ev.mlength == len, "ack mlength");
				nack++;
			}
		}
	}
	sync_send();
	sync_wait();
	quiet(rxq, 100, "pingpong rx");
	quiet(txq, 0, "pingpong tx");
	CHECK(nack > 0 && nsend > nack, "%u sends %u acks", nsend, nack);
	finish();
}

/* ---- stream: every size, back to back ---------------------------------- */

static const uint32_t st_sizes[] = { 0, 1, 7, 8, 96, 1000, 1348, 1349,
	1444, 4000, 32768, 65536, 100000, MB, 4 * MB };
#define NST	(sizeof(st_sizes) / sizeof(st_sizes[0]))
#define NSEG	5		/* segments of an iovec descriptor */

/* An iovec over buf cut into NSEG uneven segments. */
static void
iov_of(ptl_md_iovec_t *iov, uint8_t *buf, uint32_t len)
{
	uint32_t at = 0;

	for (int k = 0; k < NSEG; k++) {
		uint32_t n = k == NSEG - 1 ? len - at : len / 7 + (uint32_t)k;

		if (n > len - at)
			n = len - at;
		iov[k].iov_base = buf + at;
		iov[k].iov_len = n;
		at += n;
	}
}

/* Message i of the stream: its size, how it is sent and taken. */
static uint32_t
st_len(unsigned i)
{
	return st_sizes[i % NST];
}

static int
st_iov(unsigned i)
{
	return i >= NST;	/* the second round: segmented both sides */
}

static void
stream_a(void)
{
	static ptl_md_iovec_t iov[2 * NST][NSEG];
	uint8_t *rx[2 * NST + 1];
	int done[2 * NST + 1] = { 0 };
	ptl_handle_eq_t q;
	unsigned starts = 0, ends = 0, k;

	open_ni(1);
	OK(PtlEQAlloc(ni, 1024, &q));
	for (unsigned i = 0; i < 2 * NST; i++) {
		uint32_t len = st_len(i);
		ptl_md_t md;

		rx[i] = malloc(len + 1);
		md = md_of(rx[i], len, 1, PTL_MD_OP_PUT, q);
		if (st_iov(i) && len >= NSEG) {
			iov_of(iov[i], rx[i], len);
			md.start = iov[i];
			md.length = NSEG;
			md.options |= PTL_MD_IOVEC;
		}
		attach(PT_DATA, i, 0, md);
	}
	/* The last: a 4 MiB put into 1 MiB, truncated. */
	rx[2 * NST] = malloc(MB);
	attach(PT_DATA, 2 * NST, 0, md_of(rx[2 * NST], MB, 1, PTL_MD_OP_PUT |
			PTL_MD_TRUNCATE, q));
	hello(1);
	while (ends < 2 * NST + 1) {
		ptl_event_t ev = next_event(q, WAIT_MS, "stream");

		CHECK(ev.ni_fail_type == PTL_NI_OK, "stream: failed %s",
				PtlEventKindStr(ev.type));
		if (ev.type == PTL_EVENT_PUT_START) {
			starts++;
			continue;
		}
		CHECK(ev.type == PTL_EVENT_PUT_END, "stream: %s",
				PtlEventKindStr(ev.type));
		k = (unsigned)ev.match_bits;
		CHECK(k <= 2 * NST && !done[k], "stream: message %u twice", k);
		done[k] = 1;
		if (k < 2 * NST) {
			CHECK(ev.mlength == st_len(k), "stream %u mlength", k);
			expect(rx[k], st_len(k), k, "stream");
		} else {
			CHECK(ev.rlength == 4 * MB && ev.mlength == MB,
					"truncated: %llu of %llu",
					(unsigned long long)ev.mlength,
					(unsigned long long)ev.rlength);
			expect(rx[k], MB, k, "stream (truncated)");
		}
		ends++;
	}
	CHECK(starts == ends, "%u starts, %u ends", starts, ends);
	sync_send();
	quiet(q, 100, "stream rx");
	finish();
}

static void
stream_b(void)
{
	static ptl_md_iovec_t iov[2 * NST][NSEG];
	uint8_t *tx[2 * NST + 1];
	ptl_handle_eq_t q;
	unsigned ends = 0, acks = 0, want_acks = 0;

	open_ni(0);
	OK(PtlEQAlloc(ni, 1024, &q));
	hello(0);
	for (unsigned i = 0; i <= 2 * NST; i++) {
		uint32_t len = i < 2 * NST ? st_len(i) : 4 * MB;
		int ack = i & 1;
		ptl_md_t md;

		tx[i] = malloc(len + 1);
		fill(tx[i], len, i);
		md = md_of(tx[i], len, ack ? 2 : 1, PTL_MD_EVENT_START_DISABLE,
				q);
		if (i < 2 * NST && st_iov(i) && len >= NSEG) {
			iov_of(iov[i], tx[i], len);
			md.start = iov[i];
			md.length = NSEG;
			md.options |= PTL_MD_IOVEC;
		}
		OK(PtlPut(bind(md), ack ? PTL_ACK_REQ : PTL_NOACK_REQ, peer,
				PT_DATA, 0, i, 0, 0));
		want_acks += ack;
	}
	while (ends < 2 * NST + 1 || acks < want_acks) {
		ptl_event_t ev = next_event(q, WAIT_MS, "stream sends");

		CHECK(ev.ni_fail_type == PTL_NI_OK, "stream: %s failed: %s",
				PtlEventKindStr(ev.type),
				PtlNIFailStr(ni, ev.ni_fail_type));
		if (ev.type == PTL_EVENT_SEND_END)
			ends++;
		else if (ev.type == PTL_EVENT_ACK)
			acks++;
		else
			CHECK(0, "stream: %s", PtlEventKindStr(ev.type));
	}
	sync_wait();
	quiet(q, 100, "stream tx");
	finish();
}

static void
stream(int a)
{
	if (a)
		stream_a();
	else
		stream_b();
}

/* ---- get from a passive target ----------------------------------------- */

#define GET_SPAN	(4 * MB + 4096)

static void
get_a(void)
{
	uint8_t *src = malloc(GET_SPAN);
	ptl_handle_eq_t q;
	unsigned starts = 0, ends = 0;
	uint64_t t0;

	open_ni(1);
	OK(PtlEQAlloc(ni, 1024, &q));
	fill(src, GET_SPAN, 77);
	attach(PT_GET, 0, 0, md_of(src, GET_SPAN, PTL_MD_THRESH_INF,
			PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE, q));
	hello(1);
	/* No Portals call until B is done: the gets are served by the
	 * library's progression thread. */
	t0 = now_ms();
	while (!exists("done")) {
		CHECK(now_ms() - t0 < 60000, "B never finished");
		usleep(2000);
	}
	for (;;) {
		ptl_event_t ev;
		int which;

		if (PtlEQPoll(&q, 1, 0, &ev, &which) != PTL_OK)
			break;
		CHECK(ev.ni_fail_type == PTL_NI_OK, "get event failed");
		if (ev.type == PTL_EVENT_GET_START)
			starts++;
		else if (ev.type == PTL_EVENT_GET_END)
			ends++;
	}
	CHECK(starts == 2 * NST && ends == 2 * NST, "%u starts %u ends",
			starts, ends);
	finish();
}

static void
get_b(void)
{
	uint8_t *dst = malloc(4 * MB + 1);
	ptl_handle_eq_t q;

	open_ni(0);
	OK(PtlEQAlloc(ni, 1024, &q));
	hello(0);
	for (unsigned i = 0; i < 2 * NST; i++) {
		uint32_t len = st_len(i), off = (i * 4099u) % 4096;
		ptl_event_t ev;

		memset(dst, 0, len + 1);
		OK(PtlGet(bind(md_of(dst, len, 1, 0, q)), peer, PT_GET, 0, 0,
				off));
		want(q, PTL_EVENT_REPLY_START, "reply start");
		ev = want(q, PTL_EVENT_REPLY_END, "reply end");
		CHECK(ev.mlength == len, "get %u: %llu", len,
				(unsigned long long)ev.mlength);
		for (uint32_t k = 0; k < len; k++)
			CHECK(dst[k] == pat(off + k, 77), "get %u byte %u",
					len, k);
		CHECK(dst[len] == 0, "get %u wrote past its end", len);
	}
	quiet(q, 50, "get");
	touch("done");
	finish();
}

static void
get_passive(int a)
{
	if (a)
		get_a();
	else
		get_b();
}

/* ---- the 3.2 text's MPI example (chapter 5) ----------------------------- */

#define LONG_LENGTH	256
#define LONG_BIT	(1ull << 63)
#define SHORT_BUF	4096
#define NMSG		24

static ptl_handle_me_t end_get, rcv_mark;
static ptl_handle_eq_t unexp_queue;
static ptl_event_t rcvd[NMSG];
static int nrcvd;

static uint32_t
mpi_len(unsigned i)
{
	static const uint32_t l[] = { 0, 40, 255, 256, 1000, 70000, 3000 };

	return l[i % (sizeof(l) / sizeof(l[0]))];
}

static void
mpi_sender_init(void)
{
	ptl_process_id_t any = { PTL_NID_ANY, PTL_PID_ANY };

	OK(PtlMEAttach(ni, PT_MPIGET, any, 0, ~(ptl_match_bits_t)0,
			PTL_RETAIN, PTL_INS_AFTER, &end_get));
	OK(PtlMDAttach(end_get, md_of(NULL, 0, PTL_MD_THRESH_INF, 0,
			PTL_EQ_NONE), PTL_RETAIN, PTL_RETAIN, NULL));
}

static void
mpi_receiver_init(uint8_t (*bufs)[SHORT_BUF], int nbufs)
{
	ptl_process_id_t any = { PTL_NID_ANY, PTL_PID_ANY };
	ptl_handle_me_t meh;

	OK(PtlEQAlloc(ni, 1024, &unexp_queue));
	OK(PtlMEAttach(ni, PT_SEND, any, 0, 0, PTL_RETAIN, PTL_INS_AFTER,
			&rcv_mark));
	for (int i = 0; i < nbufs; i++) {
		OK(PtlMEAttach(ni, PT_SEND, any, 0, ~LONG_BIT, PTL_UNLINK,
				PTL_INS_AFTER, &meh));
		OK(PtlMDAttach(meh, md_of(bufs[i], SHORT_BUF, PTL_MD_THRESH_INF,
				PTL_MD_OP_PUT, unexp_queue), PTL_RETAIN,
				PTL_UNLINK, NULL));
	}
	OK(PtlMEAttach(ni, PT_SEND, any, 0, ~(ptl_match_bits_t)0, PTL_RETAIN,
			PTL_INS_AFTER, &meh));
	OK(PtlMDAttach(meh, md_of(NULL, 0, PTL_MD_THRESH_INF, PTL_MD_OP_PUT |
			PTL_MD_TRUNCATE | PTL_MD_ACK_DISABLE, unexp_queue),
			PTL_RETAIN, PTL_RETAIN, NULL));
}

static void
mpi_send(void *buf, ptl_size_t len, ptl_handle_eq_t eventq,
		ptl_match_bits_t match)
{
	ptl_md_t mem_desc = md_of(buf, len, 1, PTL_MD_OP_GET, eventq);
	ptl_handle_md_t send_handle;
	ptl_ack_req_t want_ack;

	if (len >= LONG_LENGTH) {
		ptl_handle_me_t meh;

		match |= LONG_BIT;
		OK(PtlMEInsert(end_get, peer, match, 0, PTL_UNLINK, PTL_INS_BEFORE,
				&meh));
		OK(PtlMDAttach(meh, mem_desc, PTL_UNLINK, PTL_RETAIN, NULL));
		want_ack = PTL_ACK_REQ;
		mem_desc.threshold = 2;
	} else {
		want_ack = PTL_NOACK_REQ;
		match &= ~LONG_BIT;
	}
	OK(PtlMDBind(ni, mem_desc, &send_handle));
	OK(PtlPut(send_handle, want_ack, peer, PT_SEND, 0, match, 0, 0));
}

static int
mpi_match(const ptl_event_t *ev, ptl_match_bits_t match)
{
	return ((ev->match_bits ^ match) & ~LONG_BIT) == 0;
}

/* A message taken from the unexpected queue: copied (short), or got
 * from its sender (long): 1 if its bytes are in buf now. */
static int
copy_msg(uint8_t *buf, ptl_size_t *len, const ptl_event_t *ev,
		ptl_md_t md_buf)
{
	if (ev->rlength >= LONG_LENGTH) {
		ptl_handle_md_t h;

		/* The message's length, which the event says: the sender's
		 * descriptor is that long, and does not truncate. */
		md_buf.threshold = 1;
		if (ev->rlength < md_buf.length)
			md_buf.length = ev->rlength;
		OK(PtlMDBind(ni, md_buf, &h));
		OK(PtlGet(h, ev->initiator, PT_MPIGET, 0, ev->match_bits, 0));
		return 0;
	}
	*len = ev->mlength;
	memcpy(buf, (uint8_t *)ev->md.start + ev->offset, (size_t)*len);
	return 1;
}

/* MPIreceive: 1 if received at once, 0 if posted (its events to eq). */
static int
mpi_receive(uint8_t *buf, ptl_size_t *len, ptl_handle_eq_t eventq,
		ptl_match_bits_t match)
{
	ptl_md_t md_buf = md_of(buf, *len, 0, PTL_MD_OP_PUT, eventq);
	ptl_handle_me_t meh;
	ptl_handle_md_t mdh;
	ptl_event_t event;

	for (int i = 0; i < nrcvd; i++)
		if (mpi_match(&rcvd[i], match)) {
			event = rcvd[i];
			memmove(&rcvd[i], &rcvd[i + 1], (size_t)(nrcvd - i - 1) *
					sizeof(event));
			nrcvd--;
			return copy_msg(buf, len, &event, md_buf);
		}
	OK(PtlMEInsert(rcv_mark, peer, match, LONG_BIT, PTL_UNLINK,
			PTL_INS_BEFORE, &meh));
	OK(PtlMDAttach(meh, md_buf, PTL_UNLINK, PTL_RETAIN, &mdh));
	md_buf.threshold = 1;
	do {
		while (PtlEQGet(unexp_queue, &event) != PTL_EQ_EMPTY) {
			if (event.type != PTL_EVENT_PUT_END)
				continue;
			if (mpi_match(&event, match)) {
				OK(PtlMDUnlink(mdh));
				return copy_msg(buf, len, &event, md_buf);
			}
			CHECK(nrcvd < NMSG, "too many unexpected");
			rcvd[nrcvd++] = event;
		}
	} while (PtlMDUpdate(mdh, NULL, &md_buf, unexp_queue) == PTL_NOUPDATE);
	return 0;
}

/* A is the receiver, B the sender.  B sends NMSG messages, tag i, in
 * two halves: the first before A posts any receive (unexpected), the
 * second after A posted half of its receives (those match at once).  A
 * receives them in reverse order of tags within each half. */
static void
mpi_a(void)
{
	static uint8_t bufs[8][SHORT_BUF];
	static uint8_t buf[NMSG][70000];
	ptl_handle_eq_t q;
	int done[NMSG] = { 0 }, ndone = 0;

	open_ni(1);
	OK(PtlEQAlloc(ni, 1024, &q));
	mpi_receiver_init(bufs, 8);
	hello(1);
	sync_wait();		/* the first half was sent */
	for (int i = NMSG - 1; i >= 0; i--) {
		ptl_size_t len = sizeof(buf[i]);

		if (i == NMSG / 2 - 1)
			sync_send();	/* the second half may come */
		if (mpi_receive(buf[i], &len, q, (ptl_match_bits_t)i)) {
			CHECK(len == mpi_len((unsigned)i), "msg %d: %llu", i,
					(unsigned long long)len);
			expect(buf[i], len, (uint32_t)i, "mpi short");
			done[i] = 1;
			ndone++;
		}
	}
	while (ndone < NMSG) {
		ptl_event_t ev = next_event(q, WAIT_MS, "mpi receive");
		int i;

		CHECK(ev.ni_fail_type == PTL_NI_OK, "mpi: %s failed: %s (bits %llx)",
				PtlEventKindStr(ev.type),
				PtlNIFailStr(ni, ev.ni_fail_type),
				(unsigned long long)ev.match_bits);
		if (ev.type != PTL_EVENT_PUT_END && ev.type != PTL_EVENT_REPLY_END)
			continue;
		i = (int)(ev.match_bits & ~LONG_BIT);
		CHECK(i < NMSG && !done[i], "mpi: message %d twice", i);
		CHECK(ev.mlength == mpi_len((unsigned)i), "mpi %d mlength %llu",
				i, (unsigned long long)ev.mlength);
		expect(buf[i], ev.mlength, (uint32_t)i, "mpi");
		done[i] = 1;
		ndone++;
	}
	sync_send();
	finish();
}

static void
mpi_b(void)
{
	static uint8_t msg[NMSG][70000];
	ptl_handle_eq_t q;
	unsigned ends = 0, acks = 0, gets = 0, nlong = 0;

	open_ni(0);
	OK(PtlEQAlloc(ni, 1024, &q));
	mpi_sender_init();
	hello(0);
	for (unsigned i = 0; i < NMSG; i++) {
		if (i == NMSG / 2) {
			sync_send();
			sync_wait();	/* A posted its receives */
		}
		fill(msg[i], mpi_len(i), i);
		mpi_send(msg[i], mpi_len(i), q, i);
		nlong += mpi_len(i) >= LONG_LENGTH;
	}
	sync_wait();		/* A has every message */
	for (;;) {
		ptl_event_t ev;
		int which;

		if (PtlEQPoll(&q, 1, 50, &ev, &which) != PTL_OK)
			break;
		CHECK(ev.ni_fail_type == PTL_NI_OK, "mpi sender: failed");
		ends += ev.type == PTL_EVENT_SEND_END;
		acks += ev.type == PTL_EVENT_ACK;
		gets += ev.type == PTL_EVENT_GET_END;
	}
	CHECK(ends == NMSG, "%u sends ended", ends);
	/* Each long message was posted (ACK) or got from here (GET). */
	CHECK(acks + gets == nlong && gets > 0 && acks > 0,
			"%u acks %u gets of %u long", acks, gets, nlong);
	finish();
}

static void
mpi(int a)
{
	if (a)
		mpi_a();
	else
		mpi_b();
}

/* ---- order ------------------------------------------------------------- */

#define NORDER	400
#define BIG	20000

static void
order_a(void)
{
	uint8_t *buf = malloc(BIG);
	ptl_handle_eq_t q;
	unsigned next = 0, ends = 0;

	open_ni(1);
	OK(PtlEQAlloc(ni, 4096, &q));
	fill(buf, BIG, 5);
	attach(PT_ORDER, 0, ~(ptl_match_bits_t)0, md_of(buf, BIG,
			PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_OP_GET |
			PTL_MD_MANAGE_REMOTE | PTL_MD_TRUNCATE, q));
	hello(1);
	while (ends < NORDER) {
		ptl_event_t ev = next_event(q, WAIT_MS, "order");

		CHECK(ev.ni_fail_type == PTL_NI_OK, "order: failed");
		if (ev.type == PTL_EVENT_PUT_START ||
				ev.type == PTL_EVENT_GET_START) {
			CHECK(ev.match_bits == next, "order: %llu started "
					"where %u was due",
					(unsigned long long)ev.match_bits, next);
			CHECK((ev.type == PTL_EVENT_GET_START) ==
					((next & 1) == 1), "order: kind of %u",
					next);
			next++;
		} else {
			ends++;
		}
	}
	sync_wait();
	quiet(q, 50, "order");
	finish();
}

static void
order_b(void)
{
	uint8_t *buf = malloc(BIG);
	ptl_handle_eq_t q;
	ptl_handle_md_t small, big, in_small, in_big;
	unsigned ends = 0;

	open_ni(0);
	OK(PtlEQAlloc(ni, 4096, &q));
	fill(buf, BIG, 5);
	small = bind(md_of(buf, 64, PTL_MD_THRESH_INF,
			PTL_MD_EVENT_START_DISABLE, q));
	big = bind(md_of(buf, BIG, PTL_MD_THRESH_INF,
			PTL_MD_EVENT_START_DISABLE, q));
	in_small = bind(md_of(malloc(64), 64, PTL_MD_THRESH_INF,
			PTL_MD_EVENT_START_DISABLE, q));
	in_big = bind(md_of(malloc(BIG), BIG, PTL_MD_THRESH_INF,
			PTL_MD_EVENT_START_DISABLE, q));
	hello(0);
	/* Even: puts, odd: gets; each pair of them small, then large. */
	for (unsigned i = 0; i < NORDER; i++) {
		int large = (i >> 1) & 1;

		if (i & 1)
			OK(PtlGet(large ? in_big : in_small, peer, PT_ORDER, 0, i,
					0));
		else
			OK(PtlPut(large ? big : small, PTL_NOACK_REQ, peer,
					PT_ORDER, 0, i, 0, i));
	}
	while (ends < NORDER) {
		ptl_event_t ev = next_event(q, WAIT_MS, "order sends");

		CHECK(ev.ni_fail_type == PTL_NI_OK, "order: %s failed",
				PtlEventKindStr(ev.type));
		ends += ev.type == PTL_EVENT_SEND_END ||
			ev.type == PTL_EVENT_REPLY_END;
	}
	sync_send();
	finish();
}

static void
order(int a)
{
	if (a)
		order_a();
	else
		order_b();
}

/* ---- killed: every pending operation fails ------------------------------ */

static void
killed_a(void)
{
	uint8_t *buf = malloc(4 * MB);
	ptl_handle_eq_t q;

	open_ni(1);
	OK(PtlEQAlloc(ni, 64, &q));
	attach(PT_DATA, 0, ~(ptl_match_bits_t)0, md_of(buf, 4 * MB,
			PTL_MD_THRESH_INF, PTL_MD_OP_PUT | PTL_MD_OP_GET |
			PTL_MD_TRUNCATE, q));
	touch("pid");
	hello(1);
	for (;;)		/* until killed */
		pause();
}

static void
killed_b(void)
{
	uint8_t *buf = malloc(4 * MB);
	uint32_t timeout = (uint32_t)atoi(getenv("MX_PEER_TIMEOUT_MS") ?
			getenv("MX_PEER_TIMEOUT_MS") : "3000");
	ptl_handle_eq_t q;
	char p[400];
	FILE *f;
	int apid = 0, fails = 0, oks = 0, started = 0;
	uint64_t t0;

	open_ni(0);
	OK(PtlEQAlloc(ni, 256, &q));
	hello(0);
	path_of(p, sizeof(p), "pid");
	f = fopen(p, "r");
	CHECK(f != NULL && fscanf(f, "%d", &apid) == 1 && apid > 0,
			"A's process id");
	fclose(f);
	/* A stops answering: everything started now stays pending. */
	CHECK(kill(apid, SIGSTOP) == 0, "stop A");
	usleep(20000);
	fill(buf, 4 * MB, 3);
	for (int i = 0; i < 4; i++) {
		uint32_t len = i < 2 ? 2 * MB : 64;

		OK(PtlPut(bind(md_of(buf, len, 2, PTL_MD_EVENT_START_DISABLE,
				q)), PTL_ACK_REQ, peer, PT_DATA, 0, 0, 0, 0));
		OK(PtlGet(bind(md_of(buf, len, 1, 0, q)), peer, PT_DATA, 0, 0,
				0));
		started += 2;
	}
	usleep(50000);
	CHECK(kill(apid, SIGKILL) == 0, "kill A");
	t0 = now_ms();
	while (fails + oks < started) {
		ptl_event_t ev = next_event(q, 3 * timeout + 2000,
				"pending operations");

		switch (ev.type) {
		case PTL_EVENT_SEND_END:	/* a small put: copied */
			oks++;
			break;
		case PTL_EVENT_SEND_FAIL:
		case PTL_EVENT_REPLY_FAIL:
			CHECK(ev.ni_fail_type == PTL_NI_UNREACHABLE,
					"killed: %s", PtlNIFailStr(ni,
						ev.ni_fail_type));
			fails++;
			break;
		default:
			CHECK(0, "killed: %s", PtlEventKindStr(ev.type));
		}
	}
	/* Stopped 50 ms before the kill, silent since: lost within the
	 * timeout (and a look of the timers). */
	CHECK(now_ms() - t0 <= timeout + 1000, "failed after %llu ms "
			"(MX_PEER_TIMEOUT_MS=%u)",
			(unsigned long long)(now_ms() - t0), timeout);
	CHECK(fails >= 6, "%d failed, %d ended", fails, oks);
	quiet(q, 100, "killed");
	finish();
}

static void
killed(int a)
{
	if (a)
		killed_a();
	else
		killed_b();
}

/* ---- both faces in one process ------------------------------------------ */

static void
both(int a)
{
	mx_endpoint_t ep;
	mx_endpoint_addr_t to, bad;
	mx_request_t r;
	mx_status_t st;
	uint32_t result, v = 0, back = 0;
	uint8_t *rx = malloc(100000), *tx = malloc(100000);
	ptl_handle_eq_t q;

	mx_set_error_handler(MX_ERRORS_RETURN);
	CHECK(mx_init() == MX_SUCCESS, "mx_init");
	CHECK(mx_open_endpoint(0, MX_EP, MX_FILTER, NULL, 0, &ep) ==
			MX_SUCCESS, "mx_open_endpoint");
	open_ni(a);		/* PtlInit on the same library */
	OK(PtlEQAlloc(ni, 64, &q));
	attach(PT_DATA, 0, 0, md_of(rx, 100000, PTL_MD_THRESH_INF,
			PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE, q));
	hello(a);
	CHECK(mx_connect(ep, peer.nid, MX_EP, MX_FILTER, 10000, &to) ==
			MX_SUCCESS, "mx_connect");
	/* Neither face takes the other's messages. */
	CHECK(mx_connect(ep, peer.nid, peer.pid, MX_FILTER, 3000, &bad) ==
			MX_BAD_CONNECTION_KEY, "MX connected to Portals");
	for (int i = 0; i < 20; i++) {
		uint32_t len = i & 1 ? 100000 : 100;
		ptl_event_t ev;

		/* MX: B sends, A answers; Portals: both put. */
		if (!a) {
			v = (uint32_t)i;
			mx_segment_t s = { &v, 4 };
			CHECK(mx_isend(ep, &s, 1, to, 7, NULL, &r) == MX_SUCCESS,
					"isend");
			CHECK(mx_wait(ep, &r, 10000, &st, &result) ==
					MX_SUCCESS && result, "send");
		}
		{
			mx_segment_t s = { &back, 4 };

			CHECK(mx_irecv(ep, &s, 1, 7, MX_MATCH_MASK_NONE, NULL,
					&r) == MX_SUCCESS, "irecv");
		}
		if (a) {
			CHECK(mx_wait(ep, &r, 10000, &st, &result) ==
					MX_SUCCESS && result && back == (uint32_t)i,
					"MX message %d", i);
			v = back;
			mx_segment_t s = { &v, 4 };
			CHECK(mx_isend(ep, &s, 1, to, 7, NULL, &r) == MX_SUCCESS,
					"isend back");
			CHECK(mx_wait(ep, &r, 10000, &st, &result) ==
					MX_SUCCESS && result, "send back");
		} else {
			CHECK(mx_wait(ep, &r, 10000, &st, &result) ==
					MX_SUCCESS && result && back == (uint32_t)i,
					"MX answer %d", i);
		}
		fill(tx, len, (uint32_t)(i + a));
		OK(PtlPut(bind(md_of(tx, len, 1, PTL_MD_EVENT_START_DISABLE,
				q)), PTL_NOACK_REQ, peer, PT_DATA, 0, 0, 0,
				(ptl_hdr_data_t)i));
		/* Our send's end and the peer's put, in either order. */
		for (int k = 0; k < 3; k++) {
			ev = next_event(q, WAIT_MS, "both");
			CHECK(ev.ni_fail_type == PTL_NI_OK, "both: failed");
			if (ev.type == PTL_EVENT_PUT_END) {
				CHECK(ev.mlength == len, "both: mlength");
				expect(rx, len, (uint32_t)(i + !a), "both");
			}
		}
		sync_send();
		sync_wait();
	}
	/* A put to the MX endpoint's id: refused by its filter. */
	{
		ptl_process_id_t mxid = { peer.nid, MX_EP };
		ptl_event_t ev;

		OK(PtlPut(bind(md_of(tx, 8, 1, PTL_MD_EVENT_START_DISABLE, q)),
				PTL_NOACK_REQ, mxid, PT_DATA, 0, 0, 0, 0));
		ev = next_event(q, WAIT_MS, "put to MX");
		CHECK(ev.type == PTL_EVENT_SEND_FAIL &&
				ev.ni_fail_type == PTL_NI_CLOSED,
				"put to an MX endpoint: %s %s",
				PtlEventKindStr(ev.type),
				PtlNIFailStr(ni, ev.ni_fail_type));
	}
	sync_send();
	sync_wait();
	OK(PtlNIFini(ni));
	PtlFini();
	/* MX still works after PtlFini, and finalizes alone. */
	CHECK(mx_close_endpoint(ep) == MX_SUCCESS, "close");
	CHECK(mx_finalize() == MX_SUCCESS, "finalize");
	exit(0);
}

/* ---- running a side ----------------------------------------------------- */

static const struct scenario {
	const char *name;
	void (*fn)(int a);
} scenarios[] = {
	{ "pingpong", pingpong },
	{ "stream", stream },
	{ "get", get_passive },
	{ "mpi", mpi },
	{ "order", order },
	{ "killed", killed },
	{ "both", both },
};

static const struct scenario *
scenario(const char *name)
{
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (strcmp(scenarios[i].name, name) == 0)
			return &scenarios[i];
	return NULL;
}

static void
side(const struct scenario *s, int a)
{
	const char *d = getenv("PTL2_DIR");

	if (d != NULL)
		snprintf(dir, sizeof(dir), "%s", d);
	if (getenv("PTL2_TAG") != NULL)
		snprintf(tag, sizeof(tag), "%s", getenv("PTL2_TAG"));
	role = a ? "A" : "B";
	s->fn(a);
	exit(1);
}

/* ---- the memif pair (cmocka) ------------------------------------------- */

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS };
static struct sigaction crash_act[sizeof(crash_sigs) / sizeof(crash_sigs[0])];

static pid_t
spawn(const struct scenario *s, int a, const char *sock, const char *faults)
{
	pid_t pid = fork();

	if (pid == 0) {
		char args[512];

		for (size_t i = 0; i < sizeof(crash_sigs) /
				sizeof(crash_sigs[0]); i++)
			sigaction(crash_sigs[i], &crash_act[i], NULL);
		alarm(LIMIT_S);
		snprintf(args, sizeof(args), "--no-huge -m 512 --no-shconf "
				"--no-pci --log-level=error --vdev=net_memif0,"
				"role=%s,socket=%s,mac=02:00:00:00:00:%s",
				a ? "server" : "client", sock, a ? "0a" : "0b");
		setenv("MX_DPDK_ARGS", args, 1);
		setenv("MX_HOSTNAME", a ? "nodeA" : "nodeB", 1);
		if (faults != NULL)
			setenv("MX_FAULTS", faults, 1);
		side(s, a);
	}
	return pid;
}

static int
reap(pid_t pid, const char *who)
{
	int status = 0;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	fprintf(stderr, "%s: %s %d\n", who, WIFSIGNALED(status) ?
			"killed by signal" : "exit code", WIFSIGNALED(status) ?
			WTERMSIG(status) : WEXITSTATUS(status));
	return -1;
}

/* Runs scenario 'name' between two processes; 'faults': MX_FAULTS of
 * both, or NULL; a_dies: A is killed by B (its end is not checked). */
static void
run_pair(const char *name, const char *faults, int a_dies)
{
	static int n;
	const struct scenario *s = scenario(name);
	char sock[160], ready[400];
	pid_t pa, pb;
	int ra, rb;

	snprintf(tag, sizeof(tag), "%d-%d", (int)getpid(), n++);
	setenv("PTL2_TAG", tag, 1);
	snprintf(sock, sizeof(sock), "/tmp/ptl2-%s.sock", tag);
	path_of(ready, sizeof(ready), "ready");
	unlink(sock);
	unlink(ready);
	pa = spawn(s, 1, sock, faults);
	for (int i = 0; i < 3000 && access(ready, F_OK) != 0; i++)
		usleep(10000);
	pb = spawn(s, 0, sock, faults);
	rb = reap(pb, "B");
	if (rb != 0)
		kill(pa, SIGKILL);
	ra = reap(pa, "A");
	unlink(sock);
	unlink(ready);
	for (const char *const *w = (const char *const[]){ "pid", "done",
			NULL }; *w != NULL; w++) {
		char p[400];

		path_of(p, sizeof(p), *w);
		unlink(p);
	}
	assert_int_equal(rb, 0);
	if (!a_dies)
		assert_int_equal(ra, 0);
}

#define FAULTS	"drop=25%,reorder=10%,dup=5%,seed=11"

static void t_pingpong(void **s) { (void)s; run_pair("pingpong", NULL, 0); }
static void t_stream(void **s) { (void)s; run_pair("stream", NULL, 0); }
static void t_get(void **s) { (void)s; run_pair("get", NULL, 0); }
static void t_mpi(void **s) { (void)s; run_pair("mpi", NULL, 0); }
static void t_order(void **s) { (void)s; run_pair("order", NULL, 0); }
static void t_killed(void **s) { (void)s; run_pair("killed", NULL, 1); }
static void t_both(void **s) { (void)s; run_pair("both", NULL, 0); }
static void t_pingpong_loss(void **s) { (void)s; run_pair("pingpong", FAULTS, 0); }
static void t_stream_loss(void **s) { (void)s; run_pair("stream", FAULTS, 0); }
static void t_get_loss(void **s) { (void)s; run_pair("get", FAULTS, 0); }
static void t_mpi_loss(void **s) { (void)s; run_pair("mpi", FAULTS, 0); }
static void t_order_loss(void **s) { (void)s; run_pair("order", FAULTS, 0); }

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_pingpong),
		cmocka_unit_test(t_stream),
		cmocka_unit_test(t_get),
		cmocka_unit_test(t_mpi),
		cmocka_unit_test(t_order),
		cmocka_unit_test(t_killed),
		cmocka_unit_test(t_both),
		cmocka_unit_test(t_pingpong_loss),
		cmocka_unit_test(t_stream_loss),
		cmocka_unit_test(t_get_loss),
		cmocka_unit_test(t_mpi_loss),
		cmocka_unit_test(t_order_loss),
	};

	if (argc == 3) {
		const struct scenario *s = scenario(argv[1]);

		if (s == NULL || (strcmp(argv[2], "A") != 0 &&
					strcmp(argv[2], "B") != 0)) {
			fprintf(stderr, "usage: %s [<scenario> <A|B>]\n", argv[0]);
			return 2;
		}
		side(s, strcmp(argv[2], "A") == 0);
	}
	if (getenv("PTL2_DIR") != NULL)
		snprintf(dir, sizeof(dir), "%s", getenv("PTL2_DIR"));
	for (size_t i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		sigaction(crash_sigs[i], NULL, &crash_act[i]);
	/* MX_PEER_TIMEOUT_MS low, for the killed peer. */
	setenv("MX_PEER_TIMEOUT_MS", "1000", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
