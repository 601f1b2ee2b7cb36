/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host path: processes of one host sharing a board talk through
 * the host segment's rings (lib/engine/shm.c).  Each case forks processes
 * that join one host segment (tests/common/hostfix.c: the test stands
 * for the board service) over fake ports of their own, so no DPDK and no
 * frame between them; every byte received is checked.
 *
 *   test_shm <case>
 *
 *   sizes2, sizes3, sizes4  every endpoint (two per process, so that the
 *            same process's loopback is covered too) sends a message of
 *            every size class to every other, one and several segments
 *   semantics  order, truncation, mx_issend, probe, peek, cancel,
 *            test_any and wait_any, unexpected handler, mx_forget,
 *            request timeout, mx_disconnect, connect refused, close (BYE),
 *            mx_wakeup, progression thread
 *   copy     large messages copied through the ring (MX_SHM_COPY=1, as
 *            where process_vm_readv is refused), every size class
 *   unexp    the unexpected queue's limit holds back the sender that
 *            fills it, and no other
 *   kill     SIGKILL: what a dead sender completed is delivered; what was
 *            pending with it fails with MX_STATUS_ENDPOINT_UNREACHABLE
 *            well within MX_PEER_TIMEOUT_MS; its slot is given back and a
 *            new process talks on it; kills at random moments of mixed
 *            traffic, the others finishing; a kill mid-copy
 *   threads  threads of two processes sending and receiving at once
 *
 * Exit 0 pass, 1 fail, 77 skipped (with the reason).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mx_extensions.h>
#include <myriexpress.h>

#include "mxtest.h"
#include "hostfix.h"
#include "util/stats.h"
#include "board/board.h"

#define FILTER		0x5eed
#define IDLE_MATCH	0xffffffffffffffffull	/* never sent */
#define RING_BYTES	MXD_HRING_BYTES_DFLT
#define NSLOTS		6

/* ---- between the test and its processes ---------------------------------- */

struct shared {
	volatile uint32_t stage[NSLOTS];	/* each process's progress */
	volatile uint32_t go;			/* the test's word */
	volatile uint64_t sent[NSLOTS];		/* sends made */
	volatile uint64_t got[NSLOTS];		/* messages received */
	volatile uint64_t t_kill_ms;		/* when a process was killed */
	volatile uint32_t seed;
};

static struct shared *sh;
static const char *case_name;

static void
child_fail(const char *file, int line, const char *msg)
{
	fprintf(stderr, "test_shm %s: pid %d: %s:%d: %s\n", case_name,
			(int)getpid(), file, line, msg);
	fflush(stderr);
	_exit(1);
}

#define CHECK(c, ...)	MXT_CHECK(c, __VA_ARGS__)

/* A pass of ep's board (a probe that finds nothing). */
static void
poll_ep(mx_endpoint_t ep)
{
	mx_status_t st;
	uint32_t r;

	mx_iprobe(ep, IDLE_MATCH, IDLE_MATCH, &st, &r);
}

static void
mark(unsigned slot, uint32_t v)
{
	__atomic_store_n(&sh->stage[slot], v, __ATOMIC_RELEASE);
}

/* Waits (making progress on ep, if any) until slot's stage is at least v. */
static void
await_stage(mx_endpoint_t ep, unsigned slot, uint32_t v)
{
	uint64_t end = mxt_now_ms() + 30000;

	while (__atomic_load_n(&sh->stage[slot], __ATOMIC_ACQUIRE) < v) {
		CHECK(mxt_now_ms() < end, "slot %u never reached stage %u",
				slot, v);
		if (ep != NULL)
			poll_ep(ep);
		else
			usleep(100);
	}
}

static void
await_go(mx_endpoint_t ep, uint32_t v)
{
	uint64_t end = mxt_now_ms() + 30000;

	while (__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE) < v) {
		CHECK(mxt_now_ms() < end, "the test never said go %u", v);
		if (ep != NULL)
			poll_ep(ep);
		else
			usleep(100);
	}
}

static mx_endpoint_t
open_ep(uint32_t id, const mx_param_t *params, uint32_t n)
{
	mx_endpoint_t ep;
	mx_return_t rc = mx_open_endpoint(0, id, FILTER,
			(mx_param_t *)(uintptr_t)params, n, &ep);

	CHECK(rc == MX_SUCCESS, "mx_open_endpoint %u: %s", id,
			mx_strerror(rc));
	return ep;
}

/* mx_connect to endpoint id of the shared board, again until it is open. */
static mx_endpoint_addr_t
connect_to(mx_endpoint_t ep, uint32_t id)
{
	uint64_t end = mxt_now_ms() + 20000;
	mx_endpoint_addr_t a;
	mx_return_t rc;

	while ((rc = mx_connect(ep, HOSTFIX_NIC, id, FILTER, 500, &a)) !=
			MX_SUCCESS) {
		CHECK(mxt_now_ms() < end, "mx_connect to %u: %s", id,
				mx_strerror(rc));
		usleep(2000);
	}
	return a;
}

static uint64_t
board_counter(enum mxd_counter c)
{
	return mxd_lib.boards[0]->counters[c];
}

/* ---- processes -------------------------------------------------------- */

typedef int (*role_fn)(unsigned slot, void *arg);

static pid_t
spawn(unsigned slot, role_fn fn, void *arg, int progression)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	mxt_fail_hook = child_fail;
	mxt_wait_ms = 20000;
	if (hostfix_join(slot, progression) < 0) {
		fprintf(stderr, "test_shm: slot %u: cannot join\n", slot);
		_exit(2);
	}
	int rc = fn(slot, arg);

	mx_finalize();
	exit(rc);		/* LeakSanitizer looks at every process */
}

/* Waits for the n processes, at most ms in all; kills the late ones.
 * Returns how many did not exit 0. */
static int
wait_all(const pid_t *pids, unsigned n, uint32_t ms)
{
	uint64_t end = mxt_now_ms() + ms;
	int failed = 0, left = (int)n;
	int done[16] = { 0 };

	while (left > 0) {
		for (unsigned i = 0; i < n; i++) {
			int st;

			if (done[i] || waitpid(pids[i], &st, WNOHANG) !=
					pids[i])
				continue;
			done[i] = 1;
			left--;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				fprintf(stderr, "test_shm %s: process %d "
						"ended with %s %d\n", case_name,
						(int)pids[i], WIFEXITED(st) ?
						"exit" : "signal",
						WIFEXITED(st) ? WEXITSTATUS(st) :
						WTERMSIG(st));
				failed++;
			}
		}
		if (left > 0 && mxt_now_ms() >= end) {
			for (unsigned i = 0; i < n; i++)
				if (!done[i]) {
					fprintf(stderr, "test_shm %s: process "
							"%d hangs: killed\n",
							case_name,
							(int)pids[i]);
					kill(pids[i], SIGKILL);
					waitpid(pids[i], NULL, 0);
					failed++;
				}
			break;
		}
		usleep(1000);
	}
	return failed;
}

/* ---- messages of every size ------------------------------------------------ */

static const uint32_t sizes[] = {
	0, 1, 7, 8, 24, 25, 63, 64, 100, 1000, 4096, 9000, 16384, 32767,
	32768,				/* the largest eager message */
	32769, 65536, 100000, 1u << 20, (3u << 20) + 5,
};
#define NSIZES	(sizeof(sizes) / sizeof(sizes[0]))

static uint32_t
seed_of(uint32_t src, uint32_t dst, unsigned k)
{
	return src * 7919u + dst * 104729u + k * 31u + 1;
}

/* mx_isend / mx_irecv of buf in 'nseg' pieces. */
static mx_request_t
send_segs(mx_endpoint_t ep, mx_endpoint_addr_t to, uint8_t *buf, uint32_t len,
		uint64_t match, unsigned nseg, int sync)
{
	mx_segment_t seg[3];
	mx_request_t r;
	mx_return_t rc;
	uint32_t at = 0;

	for (unsigned i = 0; i < nseg; i++) {
		uint32_t l = i + 1 == nseg ? len - at : len / nseg;

		seg[i].segment_ptr = buf + at;
		seg[i].segment_length = l;
		at += l;
	}
	rc = sync ? mx_issend(ep, seg, nseg, to, match, NULL, &r) :
		mx_isend(ep, seg, nseg, to, match, NULL, &r);
	CHECK(rc == MX_SUCCESS, "send: %s", mx_strerror(rc));
	return r;
}

static mx_request_t
recv_segs(mx_endpoint_t ep, uint8_t *buf, uint32_t len, uint64_t match,
		uint64_t mask, unsigned nseg)
{
	mx_segment_t seg[3];
	mx_request_t r;
	mx_return_t rc;
	uint32_t at = 0;

	for (unsigned i = 0; i < nseg; i++) {
		uint32_t l = i + 1 == nseg ? len - at : len / nseg;

		seg[i].segment_ptr = buf + at;
		seg[i].segment_length = l;
		at += l;
	}
	rc = mx_irecv(ep, seg, nseg, match, mask, buf, &r);
	CHECK(rc == MX_SUCCESS, "mx_irecv: %s", mx_strerror(rc));
	return r;
}

struct sizes_arg {
	unsigned nprocs;
	uint32_t max;			/* the largest size used */
};

/* Endpoints 2 * slot and 2 * slot + 1 of every process (slots 1..n). */
static int
role_sizes(unsigned slot, void *argp)
{
	const struct sizes_arg *arg = argp;
	unsigned n = 2 * arg->nprocs;
	mx_endpoint_t ep[2];
	mx_endpoint_addr_t to[2][16];
	uint32_t ids[16];
	uint8_t *sbuf[2][16], *rbuf[2][16];
	mx_request_t sr[2][16], rr[2][16];
	uint64_t frames;

	for (unsigned i = 0; i < n; i++)
		ids[i] = 2 + i;			/* slot 1: 2, 3; slot 2: 4, 5 */
	ep[0] = open_ep(2 * slot, NULL, 0);
	ep[1] = open_ep(2 * slot + 1, NULL, 0);
	mark(slot, 1);
	for (unsigned s = 1; s <= arg->nprocs; s++)
		await_stage(ep[0], s, 1);
	for (unsigned e = 0; e < 2; e++)
		for (unsigned j = 0; j < n; j++)
			if (ids[j] != 2 * slot + e)
				to[e][j] = connect_to(ep[e], ids[j]);
	for (unsigned e = 0; e < 2; e++)
		for (unsigned j = 0; j < n; j++) {
			sbuf[e][j] = malloc(arg->max + 1);
			rbuf[e][j] = malloc(arg->max + 1);
			CHECK(sbuf[e][j] && rbuf[e][j], "out of memory");
		}
	frames = board_counter(MXD_C_TX_FRAMES);
	for (unsigned k = 0; k < NSIZES; k++) {
		uint32_t len = sizes[k];
		unsigned nseg = k % 3 + 1;

		if (len > arg->max)
			break;
		for (unsigned e = 0; e < 2; e++)
			for (unsigned j = 0; j < n; j++) {
				uint32_t me = 2 * slot + e;

				if (ids[j] == me)
					continue;
				rr[e][j] = recv_segs(ep[e], rbuf[e][j], len,
						(uint64_t)ids[j] << 32 | k,
						MX_MATCH_MASK_NONE,
						(k + 1) % 3 + 1);
				mxt_pattern(sbuf[e][j], len, seed_of(me,
							ids[j], k));
			}
		for (unsigned e = 0; e < 2; e++)
			for (unsigned j = 0; j < n; j++) {
				uint32_t me = 2 * slot + e;

				if (ids[j] == me)
					continue;
				sr[e][j] = send_segs(ep[e], to[e][j],
						sbuf[e][j], len,
						(uint64_t)me << 32 | k, nseg,
						k % 4 == 3);
			}
		for (unsigned e = 0; e < 2; e++)
			for (unsigned j = 0; j < n; j++) {
				uint32_t me = 2 * slot + e;
				mx_status_t st;

				if (ids[j] == me)
					continue;
				st = mxt_wait(ep[e], &sr[e][j]);
				CHECK(st.code == MX_STATUS_SUCCESS,
						"send %u -> %u of %u bytes: %s",
						me, ids[j], len,
						mx_strstatus(st.code));
				st = mxt_wait(ep[e], &rr[e][j]);
				CHECK(st.code == MX_STATUS_SUCCESS &&
						st.msg_length == len &&
						st.xfer_length == len,
						"recv %u <- %u of %u bytes: %s "
						"(%u, %u)", me, ids[j], len,
						mx_strstatus(st.code),
						st.msg_length, st.xfer_length);
				mxt_pattern_expect(rbuf[e][j], len,
						seed_of(ids[j], me, k));
			}
	}
	CHECK(board_counter(MXD_C_SHM_TX) > 0 &&
			board_counter(MXD_C_SHM_RX) > 0,
			"nothing went through the rings");
	if (arg->max > 32768 && getenv("MX_SHM_COPY") != NULL)
		CHECK(board_counter(MXD_C_SHM_COPIED) > 0 &&
				board_counter(MXD_C_SHM_READS) == 0,
				"large messages not copied through the ring");
	else if (arg->max > 32768)
		CHECK(board_counter(MXD_C_SHM_READS) > 0,
				"no large message read (process_vm_readv)");
	CHECK(board_counter(MXD_C_TX_FRAMES) == frames,
			"%llu frames sent to the wire", (unsigned long long)
			(board_counter(MXD_C_TX_FRAMES) - frames));
	mark(slot, 2);
	for (unsigned s = 1; s <= arg->nprocs; s++)
		await_stage(ep[0], s, 2);
	for (unsigned e = 0; e < 2; e++)
		for (unsigned j = 0; j < n; j++) {
			free(sbuf[e][j]);
			free(rbuf[e][j]);
		}
	return 0;
}

static int
run_sizes(unsigned nprocs, uint32_t max)
{
	struct sizes_arg arg = { nprocs, max };
	pid_t pids[8];

	for (unsigned i = 0; i < nprocs; i++)
		pids[i] = spawn(1 + i, role_sizes, &arg, 0);
	return wait_all(pids, nprocs, 120000);
}

/* ---- MX semantics between two processes ------------------------------------ */

#define S_EP	2	/* the sender's endpoint */
#define R_EP	4	/* the receiver's */
#define R_EP2	5	/* the receiver's second, closed in the test */

static int handler_seen;
static uint8_t handler_buf[64];

static mx_unexp_handler_action_t
consume_odd(void *ctx, mx_endpoint_addr_t src, uint64_t match, uint32_t len,
		void *data)
{
	(void)ctx;
	(void)src;
	if (!(match & 0x100000000ull))
		return MX_RECV_CONTINUE;
	handler_seen++;
	if (data != NULL && len <= sizeof(handler_buf))
		memcpy(handler_buf, data, len);
	return MX_RECV_FINISHED;
}

/* Polls ep for ms and says whether r completed meanwhile. */
static int
done_within(mx_endpoint_t ep, mx_request_t r, uint32_t ms)
{
	uint64_t end = mxt_now_ms() + ms;
	uint32_t res = 0;

	while (mxt_now_ms() < end) {
		mx_ibuffered(ep, &r, &res);
		if (mx_test(ep, &r, NULL, &res) == MX_SUCCESS && res)
			return 1;
	}
	return 0;
}

static void *
blocked_peek(void *arg)
{
	mx_endpoint_t ep = arg;
	mx_request_t r;
	uint32_t res = 7;

	mx_peek(ep, MX_INFINITE, &r, &res);
	return (void *)(uintptr_t)res;
}

static int
role_sender(unsigned slot, void *arg)
{
	mx_endpoint_t ep = open_ep(S_EP, NULL, 0);
	mx_endpoint_addr_t to, to2, bad;
	uint8_t *big = malloc(1 << 20);
	uint8_t buf[40000];
	mx_request_t r, r2;
	mx_status_t st;
	mx_return_t rc;
	uint32_t res;

	(void)arg;
	CHECK(big != NULL, "out of memory");
	mark(slot, 1);
	to = connect_to(ep, R_EP);
	to2 = connect_to(ep, R_EP2);
	/* Connects refused: a wrong key, an endpoint open nowhere. */
	rc = mx_connect(ep, HOSTFIX_NIC, R_EP, FILTER + 1, 2000, &bad);
	CHECK(rc == MX_BAD_CONNECTION_KEY, "wrong key: %s", mx_strerror(rc));
	rc = mx_connect(ep, HOSTFIX_NIC, 30, FILTER, 2000, &bad);
	CHECK(rc == MX_CONNECTION_FAILED, "closed endpoint: %s",
			mx_strerror(rc));
	/* mx_iconnect: the same handshake, as a request. */
	rc = mx_iconnect(ep, HOSTFIX_NIC, R_EP, FILTER, 0x77, NULL, &r);
	CHECK(rc == MX_SUCCESS, "mx_iconnect: %s", mx_strerror(rc));
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_SUCCESS && st.match_info == 0x77,
			"mx_iconnect: %s", mx_strstatus(st.code));

	/* 1. Order: 200 messages of one match, sizes mixed. */
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t len = 8 + (i * 977) % 40000;

		mxt_pattern(buf, len, i);
		memcpy(buf, &i, 4);
		r = mxt_isend(ep, to, buf, len, 0x10);
		st = mxt_wait(ep, &r);
		CHECK(st.code == MX_STATUS_SUCCESS, "order send %u", i);
	}
	/* 2. Truncation, eager and large. */
	mxt_pattern(buf, 1000, 21);
	mxt_send_ok(ep, to, buf, 1000, 0x21);
	mxt_pattern(big, 100000, 22);
	mxt_send_ok(ep, to, big, 100000, 0x22);
	/* 3. mx_issend completes only once matched (eager, large). */
	await_stage(ep, 2, 3);
	mxt_pattern(buf, 100, 31);
	r = send_segs(ep, to, buf, 100, 0x31, 1, 1);
	mxt_pattern(big, 70000, 32);
	r2 = send_segs(ep, to, big, 70000, 0x32, 2, 1);
	CHECK(!done_within(ep, r, 200), "issend done before a match");
	mark(slot, 3);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_SUCCESS, "issend: %s",
			mx_strstatus(st.code));
	st = mxt_wait(ep, &r2);
	CHECK(st.code == MX_STATUS_SUCCESS, "large issend: %s",
			mx_strstatus(st.code));
	/* 4. Probe and peek; 5. test_any, wait_any. */
	mxt_pattern(buf, 333, 41);
	mxt_send_ok(ep, to, buf, 333, 0x41);
	for (uint32_t i = 0; i < 4; i++)
		mxt_send_ok(ep, to, &i, 4, 0x50 + i);
	/* 6. The unexpected handler consumes odd matches (bit 32): an
	 * issend it takes completes; large too. */
	await_stage(ep, 2, 6);
	mxt_pattern(buf, 40, 61);
	st = mxt_ssend(ep, to, buf, 40, 0x100000061ull);
	CHECK(st.code == MX_STATUS_SUCCESS, "issend to the handler: %s",
			mx_strstatus(st.code));
	mxt_pattern(big, 50000, 62);
	mxt_send_ok(ep, to, big, 50000, 0x100000062ull);
	/* 7. mx_forget: the message still goes. */
	mxt_pattern(buf, 77, 71);
	r = mxt_isend(ep, to, buf, 77, 0x71);
	CHECK(mx_forget(ep, &r) == MX_SUCCESS, "mx_forget");
	/* 8. A timeout: an issend nobody matches in time. */
	mx_set_request_timeout(ep, NULL, 200);
	r = send_segs(ep, to, buf, 10, 0x81, 1, 1);
	mx_set_request_timeout(ep, NULL, 0);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_TIMEOUT, "issend past its timeout: %s",
			mx_strstatus(st.code));
	/* 9. mx_disconnect cancels a pending issend; connect again. */
	r = send_segs(ep, to, buf, 10, 0x91, 1, 1);
	CHECK(mx_disconnect(ep, to) == MX_SUCCESS, "mx_disconnect");
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_CANCELLED, "issend disconnected: %s",
			mx_strstatus(st.code));
	rc = mx_isend(ep, NULL, 0, to, 0x92, NULL, &r);
	CHECK(rc == MX_BAD_ENDPOINT, "send after mx_disconnect: %s",
			mx_strerror(rc));
	to = connect_to(ep, R_EP);
	mxt_send_ok(ep, to, buf, 10, 0x93);
	mark(slot, 9);
	/* 10. The receiver closes R_EP2: its BYE ends our partner. */
	await_stage(ep, 2, 10);
	{
		uint64_t end = mxt_now_ms() + 5000;

		do {
			r = mxt_isend(ep, to2, buf, 8, 0xa1);
			st = mxt_wait(ep, &r);
		} while (st.code == MX_STATUS_SUCCESS && mxt_now_ms() < end);
		CHECK(st.code == MX_STATUS_ENDPOINT_CLOSED,
				"send to a closed endpoint: %s",
				mx_strstatus(st.code));
	}
	/* 11. mx_wakeup ends a blocked mx_peek. */
	{
		pthread_t t;
		void *got;

		CHECK(pthread_create(&t, NULL, blocked_peek, ep) == 0,
				"thread");
		usleep(50000);
		CHECK(mx_wakeup(ep) == MX_SUCCESS, "mx_wakeup");
		pthread_join(t, &got);
		CHECK((uintptr_t)got == 0, "a woken peek found something");
	}
	/* 12. The receiver sleeps outside MX: its progression thread
	 * answers a connect and queues our message. */
	await_stage(ep, 2, 12);
	{
		mx_endpoint_t ep2 = open_ep(S_EP + 1, NULL, 0);
		mx_endpoint_addr_t a;

		rc = mx_connect(ep2, HOSTFIX_NIC, R_EP, FILTER, 3000, &a);
		CHECK(rc == MX_SUCCESS, "connect to a process outside MX: %s",
				mx_strerror(rc));
		mxt_send_ok(ep2, a, buf, 12, 0xc1);
		mark(slot, 12);
		await_stage(ep, 2, 13);
		mx_close_endpoint(ep2);
	}
	(void)res;
	free(big);
	mark(slot, 100);
	await_stage(ep, 2, 100);
	return 0;
}

static int
role_receiver(unsigned slot, void *arg)
{
	mx_endpoint_t ep = open_ep(R_EP, NULL, 0);
	mx_endpoint_t ep2 = open_ep(R_EP2, NULL, 0);
	uint8_t *big = malloc(1 << 20);
	uint8_t buf[40000];
	mx_request_t r, rq[200];
	mx_status_t st;
	uint32_t res;

	(void)arg;
	CHECK(big != NULL, "out of memory");
	mark(slot, 1);
	/* 1. Half the receives posted before, half after (unexpected). */
	for (uint32_t i = 0; i < 100; i++)
		rq[i] = recv_segs(ep, malloc(40000), 40000, 0x10,
				MX_MATCH_MASK_NONE, 1);
	await_stage(ep, 1, 1);
	usleep(100000);
	for (uint32_t i = 100; i < 200; i++)
		rq[i] = recv_segs(ep, malloc(40000), 40000, 0x10,
				MX_MATCH_MASK_NONE, 2);
	for (uint32_t i = 0; i < 200; i++) {
		uint8_t *b;
		uint32_t len = 8 + (i * 977) % 40000, got;

		mx_context(&rq[i], (void **)&b);
		st = mxt_wait(ep, &rq[i]);
		CHECK(st.code == MX_STATUS_SUCCESS && st.msg_length == len,
				"order recv %u", i);
		memcpy(&got, b, 4);
		CHECK(got == i, "message %u came as number %u", got, i);
		mxt_pattern(buf, len, i);
		CHECK(memcmp(b + 4, buf + 4, len - 4) == 0, "message %u's "
				"bytes", i);
		free(b);
	}
	/* 2. Truncation. */
	r = mxt_recv(ep, buf, 100, 0x21, MX_MATCH_MASK_NONE);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_TRUNCATED && st.msg_length == 1000 &&
			st.xfer_length == 100, "eager truncated: %s %u %u",
			mx_strstatus(st.code), st.msg_length, st.xfer_length);
	mxt_pattern_expect(buf, 100, 21);	/* a prefix of the pattern */
	r = mxt_recv(ep, big, 5000, 0x22, MX_MATCH_MASK_NONE);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_TRUNCATED && st.msg_length == 100000 &&
			st.xfer_length == 5000, "large truncated: %s %u %u",
			mx_strstatus(st.code), st.msg_length, st.xfer_length);
	mxt_pattern_expect(big, 5000, 22);
	/* 3. Let the issends wait, then match them. */
	mark(slot, 3);
	await_stage(ep, 1, 3);
	r = mxt_recv(ep, buf, 100, 0x31, MX_MATCH_MASK_NONE);
	st = mxt_wait(ep, &r);
	mxt_pattern_expect(buf, 100, 31);
	r = recv_segs(ep, big, 70000, 0x32, MX_MATCH_MASK_NONE, 3);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_SUCCESS, "large issend recv");
	mxt_pattern_expect(big, 70000, 32);
	/* 4. Probe sees the message and its length; then peek. */
	CHECK(mx_probe(ep, 5000, 0x41, MX_MATCH_MASK_NONE, &st, &res) ==
			MX_SUCCESS && res && st.msg_length == 333 &&
			st.match_info == 0x41, "mx_probe");
	CHECK(mx_iprobe(ep, 0x41, MX_MATCH_MASK_NONE, &st, &res) ==
			MX_SUCCESS && res, "mx_iprobe");
	r = mxt_recv(ep, buf, 333, 0x41, MX_MATCH_MASK_NONE);
	{
		mx_request_t pk;
		uint64_t end = mxt_now_ms() + 5000;

		do
			mx_peek(ep, 100, &pk, &res);
		while (!res && mxt_now_ms() < end);
		CHECK(res && pk == r, "mx_peek: not the receive");
	}
	st = mxt_wait(ep, &r);
	mxt_pattern_expect(buf, 333, 41);
	/* mx_cancel: a posted receive; not a completed one. */
	r = mxt_recv(ep, buf, 8, 0xdead, MX_MATCH_MASK_NONE);
	CHECK(mx_cancel(ep, &r, &res) == MX_SUCCESS && res, "mx_cancel");
	/* 5. test_any and wait_any pick by match. */
	{
		uint32_t v[4];

		for (uint32_t i = 0; i < 4; i++)
			mxt_recv(ep, &v[i], 4, 0x50 + i, MX_MATCH_MASK_NONE);
		CHECK(mx_wait_any(ep, 5000, 0x52, MX_MATCH_MASK_NONE, &st,
					&res) == MX_SUCCESS && res &&
				st.match_info == 0x52, "mx_wait_any");
		for (uint64_t end = mxt_now_ms() + 5000;;) {
			mx_test_any(ep, 0x53, MX_MATCH_MASK_NONE, &st, &res);
			if (res || mxt_now_ms() > end)
				break;
		}
		CHECK(res && st.match_info == 0x53 && v[3] == 3,
				"mx_test_any");
		for (uint32_t i = 0; i < 2; i++)
			CHECK(mx_wait_any(ep, 5000, 0x50 + i,
						MX_MATCH_MASK_NONE, &st, &res)
					== MX_SUCCESS && res && v[i] == i,
					"mx_wait_any %u", i);
	}
	/* 6. The handler consumes odd matches. */
	mx_register_unexp_handler(ep, consume_odd, NULL);
	mark(slot, 6);
	for (uint64_t end = mxt_now_ms() + 10000; handler_seen < 2;) {
		poll_ep(ep);
		CHECK(mxt_now_ms() < end, "the handler saw %d", handler_seen);
	}
	mxt_pattern_expect(handler_buf, 40, 61);
	mx_register_unexp_handler(ep, NULL, NULL);
	/* 7. The forgotten send's message. */
	r = mxt_recv(ep, buf, 77, 0x71, MX_MATCH_MASK_NONE);
	st = mxt_wait(ep, &r);
	mxt_pattern_expect(buf, 77, 71);
	/* 8, 9: the timed-out and the cancelled issends are unexpected
	 * here (they were sent); taken now, and the last one. */
	await_stage(ep, 1, 9);
	r = mxt_recv(ep, buf, 10, 0x81, MX_MATCH_MASK_NONE);
	mxt_wait(ep, &r);
	r = mxt_recv(ep, buf, 10, 0x91, MX_MATCH_MASK_NONE);
	mxt_wait(ep, &r);
	r = mxt_recv(ep, buf, 10, 0x93, MX_MATCH_MASK_NONE);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_SUCCESS, "after a reconnect");
	/* 10. Close the second endpoint (BYE). */
	CHECK(mx_close_endpoint(ep2) == MX_SUCCESS, "close");
	mark(slot, 10);
	/* 12. Outside MX for a while: the progression thread answers. */
	mark(slot, 12);
	usleep(200000);
	await_stage(NULL, 1, 12);
	r = mxt_recv(ep, buf, 12, 0xc1, MX_MATCH_MASK_NONE);
	CHECK(mx_test(ep, &r, &st, &res) == MX_SUCCESS && res,
			"the progression thread did not queue the message");
	mark(slot, 13);
	free(big);
	mark(slot, 100);
	await_stage(ep, 1, 100);
	return 0;
}

static int
run_semantics(void)
{
	pid_t pids[2];

	pids[0] = spawn(1, role_sender, NULL, 0);
	pids[1] = spawn(2, role_receiver, NULL, 1);
	return wait_all(pids, 2, 120000);
}

/* ---- the unexpected queue's limit ---------------------------------------- */

#define U_LIMIT		(64u << 10)
#define U_BIG		200	/* 4 KiB messages from slot 1: 800 KiB */
#define U_SMALL		20	/* from slot 2 */

static int
role_flood(unsigned slot, void *arg)
{
	mx_endpoint_t ep = open_ep(2 * slot, NULL, 0);
	mx_endpoint_addr_t to;
	mx_request_t r[U_BIG];
	unsigned n = slot == 1 ? U_BIG : U_SMALL;
	uint32_t len = slot == 1 ? 4096 : 16;
	uint8_t *buf = malloc((size_t)n * len);	/* each send's own */

	(void)arg;
	CHECK(buf != NULL, "out of memory");
	to = connect_to(ep, 6);
	await_stage(ep, 3, 1);
	if (slot == 2)
		await_stage(ep, 1, 1);	/* after the flood */
	for (uint32_t i = 0; i < n; i++) {
		mxt_pattern(buf + i * len, len, slot * 1000 + i);
		r[i] = mxt_isend(ep, to, buf + i * len, len,
				(uint64_t)slot << 32 | i);
	}
	mark(slot, 1);
	for (uint32_t i = 0; i < n; i++) {
		mx_status_t st = mxt_wait(ep, &r[i]);

		CHECK(st.code == MX_STATUS_SUCCESS, "send %u: %s", i,
				mx_strstatus(st.code));
	}
	mark(slot, 2);
	await_stage(ep, 3, 2);
	free(buf);
	return 0;
}

static int
role_limited(unsigned slot, void *arg)
{
	mx_param_t p = { .key = MX_PARAM_UNEXP_QUEUE_MAX,
		.val.unexp_queue_max = U_LIMIT };
	mx_endpoint_t ep = open_ep(6, &p, 1);
	uint8_t buf[4096];
	mx_request_t r;
	mx_status_t st;
	uint64_t end;

	(void)arg;
	mark(slot, 1);
	await_stage(ep, 1, 1);
	/* Slot 1's flood is posted, but its records reach the ring as its
	 * process runs (under load, after slot 2's): wait until more than
	 * the limit came and the rest is held in the ring. */
	end = mxt_now_ms() + 20000;
	while (board_counter(MXD_C_SHM_HELD) == 0) {
		CHECK(mxt_now_ms() < end, "nothing was held (%llu received, "
				"unexpected queue full %llu times, %llu for no "
				"endpoint)",
				(unsigned long long)board_counter(MXD_C_SHM_RX),
				(unsigned long long)board_counter(
					MXD_C_UNEXP_FULL),
				(unsigned long long)board_counter(
					MXD_C_DROP_BASE + MXD_DROP_ENDPOINT));
		poll_ep(ep);
	}
	await_stage(ep, 2, 1);
	/* Slot 2's messages come past slot 1's, held in the ring. */
	for (uint32_t i = 0; i < U_SMALL; i++) {
		r = mxt_recv(ep, buf, 16, 2ull << 32 | i, MX_MATCH_MASK_NONE);
		st = mxt_wait(ep, &r);
		CHECK(st.code == MX_STATUS_SUCCESS, "small %u", i);
		mxt_pattern_expect(buf, 16, 2000 + i);
	}
	/* Now slot 1's, all, in order. */
	for (uint32_t i = 0; i < U_BIG; i++) {
		r = mxt_recv(ep, buf, 4096, 1ull << 32 | i,
				MX_MATCH_MASK_NONE);
		st = mxt_wait(ep, &r);
		CHECK(st.code == MX_STATUS_SUCCESS, "big %u", i);
		mxt_pattern_expect(buf, 4096, 1000 + i);
	}
	await_stage(ep, 1, 2);
	await_stage(ep, 2, 2);
	mark(slot, 2);
	return 0;
}

static int
run_unexp(void)
{
	pid_t pids[3];

	pids[0] = spawn(1, role_flood, NULL, 0);
	pids[1] = spawn(2, role_flood, NULL, 0);
	pids[2] = spawn(3, role_limited, NULL, 0);
	return wait_all(pids, 3, 60000);
}

/* ---- death ----------------------------------------------------------- */

#define V_EP	2	/* the victim's endpoint (slot 1) */
#define A_EP	4	/* a survivor's (slot 2) */
#define K_MSGS	50

/* The victim: K_MSGS messages to A, completed, then stops in MX (or
 * outside: 'arg' set) until killed. */
static int
role_victim(unsigned slot, void *arg)
{
	mx_endpoint_t ep = open_ep(V_EP, NULL, 0);
	mx_endpoint_addr_t to = connect_to(ep, A_EP);
	uint8_t buf[2000];

	(void)arg;
	for (uint32_t i = 0; i < K_MSGS; i++) {
		mxt_pattern(buf, 100 + i * 30, i);
		mxt_send_ok(ep, to, buf, 100 + i * 30, 0x700 + i);
	}
	sh->sent[slot] = K_MSGS;
	mark(slot, 1);
	for (;;)
		poll_ep(ep);
	return 0;
}

/* A, after the victim's death: its messages delivered, what was pending
 * with it failed, promptly; then a new process on its slot. */
static int
role_survivor(unsigned slot, void *arg)
{
	mx_endpoint_t ep = open_ep(A_EP, NULL, 0);
	mx_endpoint_addr_t to;
	uint8_t buf[2000], *big = malloc(200000);
	mx_request_t iss, lsend, lrecv, r;
	mx_status_t st;
	uint32_t res;
	uint64_t t;

	(void)arg;
	mark(slot, 1);
	to = connect_to(ep, V_EP);
	/* Pending with the victim: an issend it never matches, a large
	 * send it never receives. */
	iss = send_segs(ep, to, buf, 10, 0x901, 1, 1);
	mxt_pattern(big, 200000, 3);
	lsend = send_segs(ep, to, big, 200000, 0x902, 1, 0);
	lrecv = mxt_recv(ep, big, 200000, 0x903, MX_MATCH_MASK_NONE);
	await_stage(ep, 1, 1);
	mark(slot, 2);
	await_go(ep, 1);		/* the victim is dead */
	t = mxt_now_ms();
	st = mxt_wait(ep, &iss);
	CHECK(st.code == MX_STATUS_ENDPOINT_UNREACHABLE, "issend to the dead: "
			"%s", mx_strstatus(st.code));
	st = mxt_wait(ep, &lsend);
	CHECK(st.code == MX_STATUS_ENDPOINT_UNREACHABLE, "large send to the "
			"dead: %s", mx_strstatus(st.code));
	CHECK(mxt_now_ms() - sh->t_kill_ms < 3000, "failed %llu ms after "
			"the kill (MX_PEER_TIMEOUT_MS 3000)",
			(unsigned long long)(mxt_now_ms() - sh->t_kill_ms));
	(void)t;
	/* A posted receive waits for anyone: it is not failed. */
	CHECK(mx_cancel(ep, &lrecv, &res) == MX_SUCCESS && res, "cancel");
	/* What the victim completed is delivered, all of it. */
	for (uint32_t i = 0; i < K_MSGS; i++) {
		r = mxt_recv(ep, buf, sizeof(buf), 0x700 + i,
				MX_MATCH_MASK_NONE);
		st = mxt_wait(ep, &r);
		CHECK(st.code == MX_STATUS_SUCCESS &&
				st.msg_length == 100 + i * 30,
				"message %u of the dead: %s", i,
				mx_strstatus(st.code));
		mxt_pattern_expect(buf, 100 + i * 30, i);
	}
	r = mxt_isend(ep, to, buf, 8, 0x904);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_ENDPOINT_UNREACHABLE, "send after the "
			"death: %s", mx_strstatus(st.code));
	mark(slot, 3);
	/* The slot's new process opens the same endpoint id. */
	await_go(ep, 2);
	to = connect_to(ep, V_EP);
	mxt_pattern(buf, 1500, 9);
	mxt_send_ok(ep, to, buf, 1500, 0x905);
	r = mxt_recv(ep, big, 200000, 0x906, MX_MATCH_MASK_NONE);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_SUCCESS && st.msg_length == 200000,
			"from the new process: %s", mx_strstatus(st.code));
	mxt_pattern_expect(big, 200000, 10);
	mark(slot, 4);
	await_stage(ep, 1, 10);
	free(big);
	return 0;
}

static int
role_reborn(unsigned slot, void *arg)
{
	mx_endpoint_t ep = open_ep(V_EP, NULL, 0);
	mx_endpoint_addr_t to = connect_to(ep, A_EP);
	uint8_t buf[1500], *big = malloc(200000);
	mx_request_t r;
	mx_status_t st;

	(void)arg;
	r = mxt_recv(ep, buf, 1500, 0x905, MX_MATCH_MASK_NONE);
	st = mxt_wait(ep, &r);
	CHECK(st.code == MX_STATUS_SUCCESS, "reborn recv");
	mxt_pattern_expect(buf, 1500, 9);
	mxt_pattern(big, 200000, 10);
	mxt_send_ok(ep, to, big, 200000, 0x906);
	mark(slot, 10);
	await_stage(ep, 2, 4);
	free(big);
	return 0;
}

/* Traffic of every kind between three processes, one of which (slot 1)
 * is killed at a random moment; the others check every byte they get
 * and end when every request has completed, with the victim's failed as
 * unreachable. */
#define CH_MS		30000	/* at most, for the victim to fail */

static int
role_churn(unsigned slot, void *arg)
{
	static const uint32_t lens[] = { 8, 100, 3000, 32768, 40000, 300000 };
	mx_endpoint_t ep = open_ep(2 * slot, NULL, 0);
	mx_endpoint_addr_t to[4];
	uint8_t *sb[4], *rb[4];
	mx_request_t sr[4] = { 0 }, rr[4] = { 0 };
	uint32_t rk[4] = { 0 }, sk[4] = { 0 }, got[4] = { 0 };
	unsigned peers[2], np = 0;

	(void)arg;
	for (unsigned s = 1; s <= 3; s++)
		if (s != slot)
			peers[np++] = s;
	mark(slot, 1);
	for (unsigned i = 0; i < np; i++) {
		unsigned s = peers[i];

		to[s] = connect_to(ep, 2 * s);
		sb[s] = malloc(300000);
		rb[s] = malloc(300000);
	}
	mark(slot, 2);
	for (unsigned i = 0; i < np; i++)
		await_stage(ep, peers[i], 2);
	for (uint64_t end = mxt_now_ms() + CH_MS;;) {
		int live = 0;

		CHECK(mxt_now_ms() < end, "the victim never failed");
		for (unsigned i = 0; i < np; i++) {
			unsigned s = peers[i];
			mx_status_t st;
			uint32_t res;

			if (to[s].stuff[0] == 0)
				continue;	/* dead, done with */
			live = 1;
			if (rr[s] == NULL)
				rr[s] = mxt_recv(ep, rb[s], 300000,
						(uint64_t)s << 32 | rk[s],
						MX_MATCH_MASK_NONE);
			if (sr[s] == NULL) {
				uint32_t len = lens[sk[s] % 6];

				mxt_pattern(sb[s], len, slot * 100000 + sk[s]);
				sr[s] = send_segs(ep, to[s], sb[s], len,
						(uint64_t)slot << 32 | sk[s],
						1 + sk[s] % 2, sk[s] % 5 == 4);
			}
			if (mx_test(ep, &rr[s], &st, &res) == MX_SUCCESS &&
					res) {
				uint32_t len = lens[rk[s] % 6];

				rr[s] = NULL;
				if (s == 1 && st.code ==
						MX_STATUS_ENDPOINT_UNREACHABLE)
					continue;	/* read as it died */
				CHECK(st.code == MX_STATUS_SUCCESS &&
						st.msg_length == len,
						"from %u: %s", s,
						mx_strstatus(st.code));
				mxt_pattern_expect(rb[s], len,
						s * 100000 + rk[s]);
				rk[s]++;
				got[s]++;
			}
			if (mx_test(ep, &sr[s], &st, &res) == MX_SUCCESS &&
					res) {
				sr[s] = NULL;
				sk[s]++;
				if (st.code == MX_STATUS_SUCCESS)
					continue;
				CHECK(s == 1 && st.code ==
						MX_STATUS_ENDPOINT_UNREACHABLE,
						"send to %u: %s", s,
						mx_strstatus(st.code));
				/* The victim is gone: its receive waits for
				 * no one; done with it. */
				if (rr[s] != NULL) {
					uint32_t c;

					mx_cancel(ep, &rr[s], &c);
				}
				to[s].stuff[0] = 0;
			}
		}
		/* The victim failed, and the other survivor and we talked
		 * since (or it is done): the end (below). */
		if (!live || (slot != 1 && sh->go >= 1 && to[1].stuff[0] == 0
					&& (got[peers[np - 1]] > 20 ||
						sh->stage[peers[np - 1]] >= 3)))
			break;
	}
	/* The survivors end together: each says how many messages it sent
	 * the other (its pending one counted), and takes all the other sent
	 * it (an issend of theirs waits for that), checked. */
	{
		unsigned o = peers[0] == 1 ? peers[1] : peers[0];

		sh->sent[slot] = sk[o] + (sr[o] != NULL);
		mark(slot, 3);
		await_stage(ep, o, 3);
		while (rk[o] < sh->sent[o]) {
			uint32_t len = lens[rk[o] % 6];
			mx_status_t st;

			if (rr[o] == NULL)
				rr[o] = mxt_recv(ep, rb[o], 300000,
						(uint64_t)o << 32 | rk[o],
						MX_MATCH_MASK_NONE);
			st = mxt_wait(ep, &rr[o]);
			CHECK(st.code == MX_STATUS_SUCCESS &&
					st.msg_length == len, "from %u at the "
					"end: %s", o, mx_strstatus(st.code));
			mxt_pattern_expect(rb[o], len, o * 100000 + rk[o]);
			rk[o]++;
			got[o]++;
		}
		if (rr[o] != NULL) {
			uint32_t c;

			mx_cancel(ep, &rr[o], &c);
			CHECK(c, "a receive matched past the last message");
		}
		if (sr[o] != NULL) {
			mx_status_t st = mxt_wait(ep, &sr[o]);

			CHECK(st.code == MX_STATUS_SUCCESS, "the last send");
		}
		sh->got[slot] = got[o] + got[1];
	}
	mark(slot, 4);
	for (unsigned i = 0; i < np; i++)
		if (peers[i] != 1)
			await_stage(ep, peers[i], 4);
	for (unsigned i = 0; i < np; i++) {
		free(sb[peers[i]]);
		free(rb[peers[i]]);
	}
	return 0;
}

static int
run_kill(void)
{
	pid_t pids[3];
	int failed;

	/* 1. Delivered after death, pending failed, the slot reborn. */
	sh->go = 0;
	pids[0] = spawn(1, role_victim, NULL, 0);
	pids[1] = spawn(2, role_survivor, NULL, 0);
	while (sh->stage[2] < 2)
		usleep(1000);
	sh->t_kill_ms = mxt_now_ms();
	kill(pids[0], SIGKILL);
	waitpid(pids[0], NULL, 0);
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	while (sh->stage[2] < 3 && waitpid(pids[1], NULL, WNOHANG) == 0)
		usleep(1000);
	if (hostfix_reap(1, 10000) < 0) {
		fprintf(stderr, "test_shm kill: slot 1's rings never let go\n");
		kill(pids[1], SIGKILL);
		return 1;
	}
	sh->stage[1] = 0;
	sh->stage[2] = 3;
	pids[0] = spawn(1, role_reborn, NULL, 0);
	__atomic_store_n(&sh->go, 2, __ATOMIC_RELEASE);
	failed = wait_all(pids, 2, 60000);
	if (failed)
		return failed;
	hostfix_dead(1);
	hostfix_dead(2);
	if (hostfix_reap(1, 5000) < 0 || hostfix_reap(2, 5000) < 0)
		return 1;
	/* 2. Kills at random moments of mixed traffic; the last ones while
	 * large messages are copied through the ring (mid-copy). */
	for (unsigned k = 0; k < 4 && failed == 0; k++) {
		if (k >= 2)
			setenv("MX_SHM_COPY", "1", 1);
		for (unsigned s = 0; s < NSLOTS; s++)
			sh->stage[s] = 0;
		sh->go = 0;
		for (unsigned s = 1; s <= 3; s++)
			pids[s - 1] = spawn(s, role_churn, NULL, 0);
		while (sh->stage[1] < 2 || sh->stage[2] < 2 || sh->stage[3] < 2)
			usleep(1000);
		usleep(5000 + (unsigned)rand() % 150000);
		kill(pids[0], SIGKILL);
		waitpid(pids[0], NULL, 0);
		__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
		failed = wait_all(pids + 1, 2, 60000);
		printf("kill %u: survivors got %llu and %llu messages\n", k,
				(unsigned long long)sh->got[2],
				(unsigned long long)sh->got[3]);
		for (unsigned s = 1; s <= 3; s++)
			hostfix_dead(s);
		for (unsigned s = 1; s <= 3; s++)
			if (hostfix_reap(s, 10000) < 0) {
				fprintf(stderr, "slot %u never let go\n", s);
				failed++;
			}
	}
	return failed;
}

/* ---- threads ----------------------------------------------------------- */

#define T_THREADS	2
#define T_MSGS		2000

struct tctx {
	mx_endpoint_t ep;
	mx_endpoint_addr_t to;
	unsigned slot, idx;
};

static void *
t_send(void *arg)
{
	struct tctx *c = arg;
	uint8_t buf[5000];

	for (uint32_t i = 0; i < T_MSGS; i++) {
		uint32_t len = 1 + (i * 131) % 5000;

		mxt_pattern(buf, len, c->slot * 1000000 + c->idx * 100000 + i);
		mxt_send_ok(c->ep, c->to, buf, len,
				(uint64_t)(c->idx + 1) << 32 | i);
	}
	return NULL;
}

static void *
t_recv(void *arg)
{
	struct tctx *c = arg;
	uint8_t buf[5000];
	unsigned other = c->slot == 1 ? 2 : 1;

	for (uint32_t i = 0; i < T_MSGS; i++) {
		uint32_t len = 1 + (i * 131) % 5000;
		mx_request_t r = mxt_recv(c->ep, buf, len,
				(uint64_t)(c->idx + 1) << 32 | i,
				MX_MATCH_MASK_NONE);
		mx_status_t st = mxt_wait(c->ep, &r);

		CHECK(st.code == MX_STATUS_SUCCESS, "thread recv %u", i);
		mxt_pattern_expect(buf, len, other * 1000000 + c->idx * 100000 +
				i);
	}
	return NULL;
}

static int
role_threads(unsigned slot, void *arg)
{
	mx_endpoint_t ep = open_ep(2 * slot, NULL, 0);
	struct tctx c[2 * T_THREADS];
	pthread_t t[2 * T_THREADS];

	(void)arg;
	mark(slot, 1);
	for (unsigned i = 0; i < 2 * T_THREADS; i++) {
		c[i].ep = ep;
		c[i].to = connect_to(ep, 2 * (slot == 1 ? 2 : 1));
		c[i].slot = slot;
		c[i].idx = i % T_THREADS;
	}
	for (unsigned i = 0; i < 2 * T_THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, i < T_THREADS ? t_send :
					t_recv, &c[i]) == 0, "thread");
	for (unsigned i = 0; i < 2 * T_THREADS; i++)
		pthread_join(t[i], NULL);
	mark(slot, 2);
	await_stage(ep, slot == 1 ? 2 : 1, 2);
	return 0;
}

static int
run_threads(void)
{
	pid_t pids[2];

	pids[0] = spawn(1, role_threads, NULL, 1);
	pids[1] = spawn(2, role_threads, NULL, 1);
	return wait_all(pids, 2, 120000);
}

/* ---- main ---------------------------------------------------------------- */

int
main(int argc, char **argv)
{
	int failed;

	case_name = argc > 1 ? argv[1] : "";
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || hostfix_create(NSLOTS, RING_BYTES) < 0) {
		printf("SKIP: no shared memory here (%s)\n", strerror(errno));
		return 77;
	}
	srand((unsigned)getpid());
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(case_name, "sizes2"))
		failed = run_sizes(2, (3u << 20) + 5);
	else if (!strcmp(case_name, "sizes3"))
		failed = run_sizes(3, 1u << 20);
	else if (!strcmp(case_name, "sizes4"))
		failed = run_sizes(4, 100000);
	else if (!strcmp(case_name, "semantics"))
		failed = run_semantics();
	else if (!strcmp(case_name, "copy")) {
		setenv("MX_SHM_COPY", "1", 1);
		failed = run_sizes(2, (3u << 20) + 5);
	} else if (!strcmp(case_name, "unexp"))
		failed = run_unexp();
	else if (!strcmp(case_name, "kill"))
		failed = run_kill();
	else if (!strcmp(case_name, "threads"))
		failed = run_threads();
	else {
		fprintf(stderr, "usage: test_shm sizes2|sizes3|sizes4|"
				"semantics|copy|unexp|kill|threads\n");
		failed = 2;
	}
	hostfix_destroy();
	printf("%s: %s\n", case_name, failed ? "FAIL" : "ok");
	return failed ? 1 : 0;
}
