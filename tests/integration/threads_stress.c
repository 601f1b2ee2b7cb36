/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many threads on one endpoint: THREADS threads per endpoint, each ITERS
 * times posting a receive, sending, completing both and checking every
 * byte, through every size class (0 bytes, small, medium eager, large
 * rendezvous).  Some threads block in mx_wait, some poll mx_test, some do
 * one for the receive and the other for the send.
 *
 *   threads_stress local   one process over a net_ring port: each thread
 *                          sends to its own endpoint's address (self),
 *                          then threads on two endpoints exchange (pair)
 *   threads_stress memif   two processes over a net_memif pair, THREADS
 *                          threads in each on one endpoint
 *
 * Thread t's message i carries match M_DATA | t << 32 | i, so a receive
 * pairs with exactly one send whatever the interleaving: the outcome is
 * deterministic.  Sizes and payloads derive from (sender, t, i) alone.
 * Every wait is bounded (WAIT_MS), each process has an alarm: a lost
 * message fails the test in bounded time, never hangs it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "mxtest.h"

#include <myriexpress.h>

#define THREADS		8
#define ITERS		32
#define FILTER		0x57e5
#define WAIT_MS		20000
#define LIMIT_S		100
#define MAX_LEN		(1024u * 1024u)
#define CANARY		64u
#define M_DATA		0x5100000000000000ull
#define M_HELLO		0x5200000000000001ull
#define M_DONE		0x5200000000000002ull
#define M_QUIT		0x5200000000000003ull

/* One endpoint's view: where its threads send, and who they are. */
struct side {
	mx_endpoint_t ep;
	mx_endpoint_addr_t to;
	uint32_t me;		/* this side's id: in the payload's seed */
	uint32_t peer;		/* the sender's id of what this side receives */
};

enum how { BLOCK, POLL, MIXED };

struct worker {
	pthread_t t;
	const struct side *s;
	uint32_t id;
	char err[256];		/* empty: every message went through */
};

/* ---- the plan: sizes, matches, payloads ---------------------------------- */

static uint32_t
hash(uint32_t id, uint32_t i)
{
	uint32_t h = id * 0x9e3779b1u ^ (i + 1) * 0x85ebca6bu;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ (h >> 12);
}

/* Each thread goes through the four classes in turn, from its own start. */
static uint32_t
size_of(uint32_t id, uint32_t i)
{
	uint32_t h = hash(id, i);

	switch ((id + i) % 4) {
	case 0:
		return 0;
	case 1:
		return 8 + h % 57;			/* 8-64 B */
	case 2:
		return 4096 + h % (28 * 1024 + 1);	/* 4-32 KiB */
	default:
		return 100 * 1024 + h % (MAX_LEN - 100 * 1024 + 1);
	}
}

static uint64_t
match_of(uint32_t id, uint32_t i)
{
	return M_DATA | (uint64_t)id << 32 | i;
}

static uint32_t
seed_of(uint32_t sender, uint32_t id, uint32_t i)
{
	return sender << 24 | id << 16 | i;
}

/*
 * A payload is a window of one random-looking table, at an offset derived
 * from its seed: filled and checked with memcpy and memcmp, which the
 * sanitizers check as one range each (byte loops made TSan runs slow).
 */
#define PAT_SPAN	4093u
static uint8_t pat[MAX_LEN + PAT_SPAN];

static void
pat_init(void)
{
	for (uint32_t k = 0; k < sizeof(pat); k++)
		pat[k] = (uint8_t)(hash(k, 0x7a7) >> 24);
}

static const uint8_t *
pat_of(uint32_t seed)
{
	return pat + hash(seed, 0) % PAT_SPAN;
}

/* The first wrong byte of b, len if none. */
static uint32_t
pat_check(const uint8_t *b, uint32_t len, uint32_t seed)
{
	const uint8_t *p = pat_of(seed);
	uint32_t k = 0;

	if (memcmp(b, p, len) == 0)
		return len;
	while (b[k] == p[k])
		k++;
	return k;
}

static enum how
how_of(uint32_t id)
{
	return (enum how)(id % 3);
}

/* ---- one thread ---------------------------------------------------------- */

/* Completes r within WAIT_MS, in mx_wait or polling mx_test. */
static int
complete(const struct side *s, mx_request_t *r, int poll, mx_status_t *st)
{
	uint64_t end = mxt_now_ms() + WAIT_MS;
	uint32_t done = 0;

	if (!poll)
		return mx_wait(s->ep, r, WAIT_MS, st, &done) == MX_SUCCESS &&
			done ? 0 : -1;
	for (;;) {
		if (mx_test(s->ep, r, st, &done) != MX_SUCCESS)
			return -1;
		if (done)
			return 0;
		if (mxt_now_ms() > end)
			return -1;
		sched_yield();	/* two vCPUs, sixteen threads */
	}
}

static int wfail(struct worker *w, uint32_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
wfail(struct worker *w, uint32_t i, const char *fmt, ...)
{
	int n = snprintf(w->err, sizeof(w->err), "side %u thread %u "
			"message %u (%u bytes): ", w->s->me, w->id, i,
			size_of(w->id, i));
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err + n, sizeof(w->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int
check_recv(struct worker *w, uint32_t i, const uint8_t *in,
		const mx_status_t *st)
{
	uint32_t len = size_of(w->id, i), bad;

	if (st->code != MX_STATUS_SUCCESS)
		return wfail(w, i, "receive status %s",
				mx_strstatus(st->code));
	if (st->xfer_length != len || st->msg_length != len)
		return wfail(w, i, "received %u of %u bytes", st->xfer_length,
				st->msg_length);
	if (st->match_info != match_of(w->id, i))
		return wfail(w, i, "match %#llx",
				(unsigned long long)st->match_info);
	bad = pat_check(in, len, seed_of(w->s->peer, w->id, i));
	if (bad != len)
		return wfail(w, i, "byte %u is wrong", bad);
	for (uint32_t k = 0; k < CANARY; k++)
		if (in[len + k] != 0xee)
			return wfail(w, i, "byte %u past the end written", k);
	return 0;
}

static int
one_message(struct worker *w, uint32_t i, uint8_t *out, uint8_t *in)
{
	const struct side *s = w->s;
	uint32_t len = size_of(w->id, i);
	mx_segment_t so = { out, len }, si = { in, len + CANARY };
	mx_request_t rr, rs;
	mx_status_t st;
	enum how how = how_of(w->id);

	memcpy(out, pat_of(seed_of(s->me, w->id, i)), len);
	memset(in, 0xee, len + CANARY);
	if (mx_irecv(s->ep, &si, 1, match_of(w->id, i), MX_MATCH_MASK_NONE,
				NULL, &rr) != MX_SUCCESS)
		return wfail(w, i, "mx_irecv refused");
	if (mx_isend(s->ep, &so, 1, s->to, match_of(w->id, i), NULL,
				&rs) != MX_SUCCESS)
		return wfail(w, i, "mx_isend refused");
	if (complete(s, &rs, how == POLL, &st) != 0)
		return wfail(w, i, "send not complete in %u ms", WAIT_MS);
	if (st.code != MX_STATUS_SUCCESS)
		return wfail(w, i, "send status %s", mx_strstatus(st.code));
	if (complete(s, &rr, how != BLOCK, &st) != 0)
		return wfail(w, i, "receive not complete in %u ms", WAIT_MS);
	return check_recv(w, i, in, &st);
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	uint8_t *out = malloc(MAX_LEN), *in = malloc(MAX_LEN + CANARY);

	if (out == NULL || in == NULL)
		snprintf(w->err, sizeof(w->err), "out of memory");
	for (uint32_t i = 0; w->err[0] == '\0' && i < ITERS; i++)
		if (one_message(w, i, out, in) != 0)
			break;
	free(out);
	free(in);
	return NULL;
}

/* Runs THREADS workers on each of the n sides; the first failure or NULL. */
static const char *
run_sides(const struct side *sides, int n)
{
	static struct worker w[2 * THREADS];
	const char *err = NULL;

	memset(w, 0, sizeof(w));
	for (int k = 0; k < n * THREADS; k++) {
		w[k].s = &sides[k / THREADS];
		w[k].id = (uint32_t)(k % THREADS);
		if (pthread_create(&w[k].t, NULL, worker_main, &w[k]) != 0)
			abort();
	}
	for (int k = 0; k < n * THREADS; k++) {
		pthread_join(w[k].t, NULL);
		if (err == NULL && w[k].err[0] != '\0')
			err = w[k].err;
	}
	return err;
}

/* ---- in one process over net_ring ---------------------------------------- */

static mx_endpoint_t ep_a, ep_b;

static int
local_setup(void **state)
{
	(void)state;
	return mx_open_endpoint(0, 0, FILTER, NULL, 0, &ep_a) ||
		mx_open_endpoint(0, 1, FILTER, NULL, 0, &ep_b);
}

static int
local_teardown(void **state)
{
	(void)state;
	mx_close_endpoint(ep_a);
	mx_close_endpoint(ep_b);
	mx_finalize();
	return 0;
}

/* Each thread sends to its own endpoint's address and receives it. */
static void
self_sends(void **state)
{
	struct side s = { ep_a, { { 0 } }, 0, 0 };
	const char *err;

	(void)state;
	assert_int_equal(mx_get_endpoint_addr(ep_a, &s.to), MX_SUCCESS);
	err = run_sides(&s, 1);
	if (err != NULL)
		fail_msg("%s", err);
}

/* Threads on endpoint 0 and threads on endpoint 1 exchange, pairwise. */
static void
two_endpoints(void **state)
{
	struct side s[2] = { { ep_a, { { 0 } }, 0, 1 },
		{ ep_b, { { 0 } }, 1, 0 } };
	uint64_t nic;
	const char *err;

	(void)state;
	assert_int_equal(mx_board_number_to_nic_id(0, &nic), MX_SUCCESS);
	assert_int_equal(mx_connect(ep_a, nic, 1, FILTER, 10000, &s[0].to),
			MX_SUCCESS);
	assert_int_equal(mx_connect(ep_b, nic, 0, FILTER, 10000, &s[1].to),
			MX_SUCCESS);
	err = run_sides(s, 2);
	if (err != NULL)
		fail_msg("%s", err);
}

static int
run_local(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(self_sends),
		cmocka_unit_test(two_endpoints),
	};

	setenv("MX_DPDK_ARGS", "--no-huge -m 128 --no-shconf --no-pci "
			"--log-level=error --vdev=net_ring0", 1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mx_init() != MX_SUCCESS) {
		printf("SKIP: mx_init failed over a net_ring port\n");
		return 77;
	}
	return cmocka_run_group_tests_name("threads-stress", tests,
			local_setup, local_teardown);
}

/* ---- two processes over net_memif ---------------------------------------- */

static char sock_path[128], ready_path[160];
static pid_t peer_pid;

static void
memif_args(int server)
{
	char a[512];

	snprintf(a, sizeof(a), "--no-huge -m 128 --no-shconf --no-pci "
			"--log-level=error --vdev=net_memif0,role=%s,socket=%s,"
			"mac=02:00:00:00:57:%s", server ? "server" : "client",
			sock_path, server ? "0a" : "0b");
	setenv("MX_DPDK_ARGS", a, 1);
	setenv("MX_HOSTNAME", server ? "stress-b" : "stress-a", 1);
}

static int
wait_ok(mx_endpoint_t e, mx_request_t *r, mx_status_t *st)
{
	uint32_t done = 0;

	return mx_wait(e, r, WAIT_MS, st, &done) == MX_SUCCESS && done &&
		st->code == MX_STATUS_SUCCESS ? 0 : -1;
}

static int
xfer0(mx_endpoint_t e, int send, mx_endpoint_addr_t to, uint64_t match,
		mx_status_t *st)
{
	static char none[1];
	mx_segment_t s = { none, 0 };
	mx_request_t r;

	if (send ? mx_isend(e, &s, 1, to, match, NULL, &r) :
			mx_irecv(e, &s, 1, match, MX_MATCH_MASK_NONE, NULL,
				&r))
		return -1;
	return wait_ok(e, &r, st);
}

/*
 * The memif server: learns the tester's address from its hello, runs its
 * threads, reports DONE and leaves on QUIT.  Exit 77: it could not start.
 */
static void
peer_process(void)
{
	struct side s = { NULL, { { 0 } }, 1, 0 };
	mx_endpoint_addr_t none = { { 0 } };
	mx_status_t st;
	const char *err;
	FILE *f;

	alarm(LIMIT_S);
	memif_args(1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mx_init() != MX_SUCCESS)
		_exit(77);
	if (mx_open_endpoint(0, 0, FILTER, NULL, 0, &s.ep) != MX_SUCCESS)
		_exit(3);
	f = fopen(ready_path, "w");
	if (f != NULL)
		fclose(f);
	if (xfer0(s.ep, 0, none, M_HELLO, &st) != 0)
		_exit(4);
	s.to = st.source;
	err = run_sides(&s, 1);
	if (err != NULL) {
		fprintf(stderr, "peer: %s\n", err);
		_exit(5);
	}
	if (xfer0(s.ep, 1, s.to, M_DONE, &st) != 0 ||
			xfer0(s.ep, 0, none, M_QUIT, &st) != 0)
		_exit(6);
	mx_close_endpoint(s.ep);
	mx_finalize();
	_exit(0);
}

/* 0 once the peer is ready; 77 if it could not start; -1 else. */
static int
start_peer(void)
{
	int status;

	snprintf(sock_path, sizeof(sock_path), "/tmp/mxd-stress-%d.sock",
			(int)getpid());
	snprintf(ready_path, sizeof(ready_path), "%s.ready", sock_path);
	unlink(ready_path);
	peer_pid = fork();
	if (peer_pid == 0)
		peer_process();
	for (int i = 0; i < 3000 && access(ready_path, F_OK) != 0; i++) {
		if (waitpid(peer_pid, &status, WNOHANG) == peer_pid)
			return WIFEXITED(status) &&
				WEXITSTATUS(status) == 77 ? 77 : -1;
		usleep(10000);
	}
	return access(ready_path, F_OK) == 0 ? 0 : -1;
}

/* The peer's exit status, waiting at most 10 s (then it is killed). */
static int
reap_peer(void)
{
	int status = 0;

	for (int i = 0; i < 1000 && waitpid(peer_pid, &status, WNOHANG) == 0;
			i++)
		usleep(10000);
	if (waitpid(peer_pid, &status, WNOHANG) == 0) {
		kill(peer_pid, SIGKILL);
		waitpid(peer_pid, &status, 0);
	}
	unlink(ready_path);
	peer_pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int
connect_peer(mx_endpoint_t e, mx_endpoint_addr_t *to)
{
	uint64_t nic = 0;
	uint64_t end = mxt_now_ms() + 10000;

	while (mx_hostname_to_nic_id((char *)"stress-b:0", &nic) !=
			MX_SUCCESS)
		if (mxt_now_ms() > end)
			return -1;
		else
			usleep(10000);
	return mx_connect(e, nic, 0, FILTER, 10000, to) == MX_SUCCESS ? 0 : -1;
}

static void
two_processes(void **state)
{
	struct side s = { NULL, { { 0 } }, 0, 1 };
	mx_request_t done;
	mx_status_t st;
	const char *err;

	(void)state;
	assert_int_equal(mx_open_endpoint(0, 0, FILTER, NULL, 0, &s.ep),
			MX_SUCCESS);
	assert_int_equal(connect_peer(s.ep, &s.to), 0);
	assert_int_equal(mx_irecv(s.ep, NULL, 0, M_DONE, MX_MATCH_MASK_NONE,
				NULL, &done), MX_SUCCESS);
	assert_int_equal(xfer0(s.ep, 1, s.to, M_HELLO, &st), 0);
	err = run_sides(&s, 1);
	if (err != NULL)
		fail_msg("%s", err);
	assert_int_equal(wait_ok(s.ep, &done, &st), 0);
	assert_int_equal(xfer0(s.ep, 1, s.to, M_QUIT, &st), 0);
	mx_close_endpoint(s.ep);
	mx_finalize();
	assert_int_equal(reap_peer(), 0);
}

/* A test that failed before the peer left: the peer is killed. */
static int
memif_teardown(void **state)
{
	(void)state;
	if (peer_pid > 0) {
		kill(peer_pid, SIGKILL);
		reap_peer();
	}
	return 0;
}

static int
run_memif(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_processes),
	};
	int rc = start_peer();

	if (rc == 77) {
		printf("SKIP: the net_memif server could not start "
				"(mx_init failed)\n");
		return 77;
	}
	if (rc != 0) {
		fprintf(stderr, "the peer did not start: exit %d\n",
				reap_peer());
		return 1;
	}
	memif_args(0);
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mx_init() != MX_SUCCESS) {
		fprintf(stderr, "mx_init failed on the memif client\n");
		kill(peer_pid, SIGKILL);
		reap_peer();
		return 1;
	}
	return cmocka_run_group_tests_name("threads-stress-memif", tests,
			NULL, memif_teardown);
}

int
main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "local") &&
				strcmp(argv[1], "memif"))) {
		fprintf(stderr, "usage: %s local|memif\n", argv[0]);
		return 2;
	}
	alarm(LIMIT_S);
	pat_init();
	return strcmp(argv[1], "local") ? run_memif() : run_local();
}
