/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MX 1.0 conformance: the specification (../shared/seeds, MX 1.0), section
 * by section, each clause a test named after its section.  Public API only.
 *
 *   conformance local   the peer ("servant") is a thread with endpoints on
 *                       the same board: traffic takes the loopback path
 *   conformance memif   the servant is another process across a net_memif
 *                       pair: traffic takes the wire
 *
 * The servant has endpoint 1 (filter SERV_FILTER) and endpoint 2 (filter
 * SERV_FILTER2); endpoint 3 stays closed.  Tests drive it with commands
 * sent to endpoint 1 (match M_CMD): echo a message, echo it after a delay,
 * send a batch.  It answers each command on M_REPLY once it is armed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <myriexpress.h>
#include <mx_extensions.h>

#include "mxtest.h"

#define SERV_FILTER	0x5e1
#define SERV_FILTER2	0x5e2
#define MY_FILTER	0xc0f
#define M_CMD		0xc000000000000001ull
#define M_REPLY		0xc000000000000002ull
#define WAIT_MS		20000

enum cmd_op { OP_ECHO = 1, OP_ECHO_LATE, OP_SEND, OP_CLOSE2, OP_OPEN2, OP_QUIT };

struct cmd {
	uint32_t op;
	uint32_t arg;		/* delay (ms) or count */
	uint32_t len;
	uint32_t pad;
	uint64_t match;
};

static int memif_mode;
static char sock_path[128], ready_path[160], peers_path[64];
static mx_endpoint_t ep;		/* the tests' endpoint */
static mx_endpoint_addr_t serv;		/* servant endpoint 1 */
static uint64_t serv_nic;
static pid_t serv_pid;
static pthread_t serv_thread;

/* ---- small helpers ------------------------------------------------------ */

/* Sends a command to the servant and waits until it is armed. */
static void
command(uint32_t op, uint64_t match, uint32_t len, uint32_t arg)
{
	struct cmd c = { op, arg, len, 0, match };
	uint32_t ok = 0;
	mx_request_t r = mxt_recv(ep, &ok, 4, M_REPLY, MX_MATCH_MASK_NONE);

	assert_int_equal(mxt_send(ep, serv, &c, sizeof(c), M_CMD).code,
			MX_STATUS_SUCCESS);
	mxt_wait(ep, &r);
	assert_int_equal(ok, 1);
}

/* ---- the servant ---------------------------------------------------------- */

static void
serv_reply(mx_endpoint_t e, mx_endpoint_addr_t to)
{
	uint32_t ok = 1;
	mx_segment_t s = { &ok, 4 };
	mx_request_t r;
	mx_status_t st;
	uint32_t done;

	mx_isend(e, &s, 1, to, M_REPLY, NULL, &r);
	mx_wait(e, &r, WAIT_MS, &st, &done);
}

static void
serv_echo(mx_endpoint_t e, mx_endpoint_addr_t to, const struct cmd *c,
		uint8_t *buf)
{
	mx_segment_t s = { buf, c->len };
	mx_request_t r;
	mx_status_t st;
	uint32_t done;

	if (c->op == OP_ECHO_LATE) {
		serv_reply(e, to);	/* armed: the message may come */
		usleep(c->arg * 1000);
	}
	mx_irecv(e, &s, 1, c->match, MX_MATCH_MASK_NONE, NULL, &r);
	if (c->op == OP_ECHO)
		serv_reply(e, to);
	mx_wait(e, &r, WAIT_MS, &st, &done);
	s.segment_length = st.xfer_length;
	mx_isend(e, &s, 1, to, c->match, NULL, &r);
	mx_wait(e, &r, WAIT_MS, &st, &done);
}

static void
serv_send(mx_endpoint_t e, mx_endpoint_addr_t to, const struct cmd *c,
		uint8_t *buf)
{
	mx_request_t r;
	mx_status_t st;
	uint32_t done;

	serv_reply(e, to);
	for (uint32_t i = 0; i < c->arg; i++) {
		mx_segment_t s = { buf, c->len };

		mxt_pattern(buf, c->len, i);
		mx_isend(e, &s, 1, to, c->match + i, NULL, &r);
		mx_wait(e, &r, WAIT_MS, &st, &done);
	}
}

static mx_endpoint_t serv_e1, serv_e2;

static void
servant_loop(mx_endpoint_t e)
{
	static uint8_t buf[65536];

	for (;;) {
		struct cmd c;
		mx_segment_t s = { &c, sizeof(c) };
		mx_request_t r;
		mx_status_t st;
		uint32_t done = 0;

		mx_irecv(e, &s, 1, M_CMD, MX_MATCH_MASK_NONE, NULL, &r);
		mx_wait(e, &r, MX_INFINITE, &st, &done);
		if (!done || c.op == OP_QUIT || c.len > sizeof(buf))
			return;
		if (c.op == OP_SEND) {
			serv_send(e, st.source, &c, buf);
		} else if (c.op == OP_CLOSE2 || c.op == OP_OPEN2) {
			if (c.op == OP_CLOSE2)
				mx_close_endpoint(serv_e2);
			else
				mx_open_endpoint(0, 2, SERV_FILTER2, NULL, 0,
						&serv_e2);
			serv_reply(e, st.source);
		} else {
			serv_echo(e, st.source, &c, buf);
		}
	}
}

static int
servant_open(void)
{
	return mx_open_endpoint(0, 1, SERV_FILTER, NULL, 0, &serv_e1) ||
		mx_open_endpoint(0, 2, SERV_FILTER2, NULL, 0, &serv_e2);
}

static void *
servant_thread(void *arg)
{
	(void)arg;
	servant_loop(serv_e1);
	return NULL;
}

static void
servant_process(void)
{
	FILE *f;

	setenv("MX_HOSTNAME", "servant", 1);
	/*
	 * The tester makes no MX call while it runs a sub-mode in a child
	 * (seconds on a loaded machine); a peer silent for longer than
	 * MX_PEER_TIMEOUT_MS is declared lost until a progression thread
	 * answers for it.  Until then the servant waits longer.
	 */
	setenv("MX_PEER_TIMEOUT_MS", "30000", 1);
	if (mx_init() != MX_SUCCESS || servant_open())
		_exit(3);
	f = fopen(ready_path, "w");
	if (f != NULL)
		fclose(f);
	servant_loop(serv_e1);
	mx_close_endpoint(serv_e1);
	mx_close_endpoint(serv_e2);
	mx_finalize();
	_exit(0);
}

/* ---- set-up of the two modes ---------------------------------------------- */

static void
eal_args(int server)
{
	char a[512];

	if (!memif_mode) {
		setenv("MX_DPDK_ARGS", "--no-huge -m 128 --no-shconf --no-pci "
				"--log-level=error --vdev=net_null0,no-rx=1", 1);
		return;
	}
	snprintf(a, sizeof(a), "--no-huge -m 128 --no-shconf --no-pci "
			"--log-level=error --vdev=net_memif0,role=%s,socket=%s,"
			"mac=02:00:00:00:00:%s", server ? "server" : "client",
			sock_path, server ? "5e" : "7e");
	setenv("MX_DPDK_ARGS", a, 1);
}

static int
start_servant(void)
{
	if (!memif_mode)
		return servant_open() ||
			pthread_create(&serv_thread, NULL, servant_thread, NULL);
	snprintf(sock_path, sizeof(sock_path), "/tmp/mxd-conf-%d.sock",
			(int)getpid());
	snprintf(ready_path, sizeof(ready_path), "%s.ready", sock_path);
	unlink(ready_path);
	eal_args(1);
	serv_pid = fork();
	if (serv_pid == 0) {
		alarm(600);
		servant_process();
	}
	for (int i = 0; i < 3000 && access(ready_path, F_OK) != 0; i++)
		usleep(10000);
	return access(ready_path, F_OK);
}

static int
suite_setup(void **state)
{
	mxt_wait_ms = WAIT_MS;
	FILE *f;

	(void)state;
	/* A NIC that is named but never answers: for MX_TIMEOUT. */
	snprintf(peers_path, sizeof(peers_path), "/tmp/mxd-conf-peers.%d",
			(int)getpid());
	f = fopen(peers_path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "ghost:0 02:de:ad:00:00:01\n");
	fclose(f);
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (memif_mode && start_servant() != 0)
		return -1;
	setenv("MX_HOSTNAME", "tester", 1);
	setenv("MX_PEERS_FILE", peers_path, 1);
	setenv("MX_DISCOVERY_MS", "1500", 1);
	/* MX's table of 1024 partners (IV.3.1), the setting's least. */
	setenv("MX_MAX_PARTNERS", "1024", 1);
	eal_args(0);
	if (mx_init() != MX_SUCCESS)
		return -1;
	if (!memif_mode && start_servant() != 0)
		return -1;
	if (memif_mode) {
		if (mx_hostname_to_nic_id((char *)"servant:0", &serv_nic))
			return -1;
	} else if (mx_board_number_to_nic_id(0, &serv_nic)) {
		return -1;
	}
	return mx_open_endpoint(0, 0, MY_FILTER, NULL, 0, &ep) ||
		mx_connect(ep, serv_nic, 1, SERV_FILTER, 10000, &serv);
}

static int
suite_teardown(void **state)
{
	struct cmd c = { OP_QUIT, 0, 0, 0, 0 };
	mx_segment_t s = { &c, sizeof(c) };
	mx_request_t r;
	mx_status_t st;
	uint32_t done;
	int status = 0;

	(void)state;
	mx_isend(ep, &s, 1, serv, M_CMD, NULL, &r);
	mx_wait(ep, &r, WAIT_MS, &st, &done);
	if (!memif_mode) {
		pthread_join(serv_thread, NULL);
		mx_close_endpoint(serv_e1);
		mx_close_endpoint(serv_e2);
	}
	mx_close_endpoint(ep);
	mx_finalize();
	if (memif_mode) {
		/* Bounded: a servant that missed OP_QUIT is killed, and fails. */
		for (int i = 0; i < 1000 && waitpid(serv_pid, &status,
					WNOHANG) == 0; i++)
			usleep(10000);
		if (waitpid(serv_pid, &status, WNOHANG) == 0) {
			fprintf(stderr, "servant still running: killed\n");
			kill(serv_pid, SIGKILL);
			waitpid(serv_pid, &status, 0);
		}
		unlink(ready_path);
	}
	unlink(peers_path);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ==== The clauses, in the order of the specification ===================== */

/* Runs this program again in a sub-mode; returns its exit status (or -1). */
static int
run_self(const char *mode, const char *arg)
{
	char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status;
	pid_t pid;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2);	/* the fatal handler's message */
		execl(self, self, mode, arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* II.2: NULL is never a valid endpoint; a failed open leaves *endpoint. */
static void
sec_II_2_endpoints(void **state)
{
	mx_endpoint_t e = (mx_endpoint_t)(uintptr_t)0x1234;
	mx_request_t r;
	mx_status_t st;
	uint32_t res;

	(void)state;
	assert_int_equal(mx_isend(NULL, NULL, 0, serv, 0, NULL, &r),
			MX_BAD_ENDPOINT);
	assert_int_equal(mx_test(NULL, &r, &st, &res), MX_BAD_ENDPOINT);
	assert_int_equal(mx_open_endpoint(99, 0, 0, NULL, 0, &e),
			MX_BOARD_UNKNOWN);
	assert_ptr_equal(e, (mx_endpoint_t)(uintptr_t)0x1234);
}

/* II.4: (match & mask) == match_recv; the earliest posted receive wins. */
static void
sec_II_4_matching(void **state)
{
	uint8_t a[8], b[8], c[8], d[8];
	mx_request_t ra, rb, rc, rd;
	mx_status_t st;
	uint32_t res;

	(void)state;
	ra = mxt_recv(ep, a, 8, 0x1100, 0xff00);	/* no: bits differ */
	rb = mxt_recv(ep, b, 8, 0x0700, 0xff00);	/* yes */
	rc = mxt_recv(ep, c, 8, 0x0700, 0xff00);	/* yes, but later */
	/* A wildcard over the data space (top nibble 0), later still; a
	 * true wildcard would, rightly, also take the servant's replies. */
	rd = mxt_recv(ep, d, 8, 0, 0xf000000000000000ull);
	command(OP_SEND, 0x0742, 8, 1);
	st = mxt_wait(ep, &rb);
	assert_true(st.match_info == 0x0742);
	assert_true(mxt_pattern_ok(b, 8, 0));
	command(OP_SEND, 0x0799, 8, 2);		/* 0x799 then 0x79a */
	assert_true(mxt_wait(ep, &rc).match_info == 0x0799);
	assert_true(mxt_wait(ep, &rd).match_info == 0x079a);
	assert_int_equal(mx_test(ep, &ra, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	assert_int_equal(mx_cancel(ep, &ra, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	/* match_recv with bits outside the mask is refused. */
	assert_int_equal(mx_irecv(ep, NULL, 0, 0x3, 0x1, NULL, &ra),
			MX_BAD_MATCH_MASK);
}

/* II.4/I: messages of one sender match in the order they were sent. */
static void
sec_II_4_in_order(void **state)
{
	uint8_t buf[20][300];
	mx_request_t r[20];

	(void)state;
	for (int i = 0; i < 20; i++)
		r[i] = mxt_recv(ep, buf[i], 300, 0x4000, 0xff00);
	command(OP_SEND, 0x4000, 300, 20);	/* seeds 0..19 */
	for (int i = 0; i < 20; i++) {
		mx_status_t st = mxt_wait(ep, &r[i]);

		assert_true(st.match_info == 0x4000u + (unsigned)i);
		assert_true(mxt_pattern_ok(buf[i], 300, (uint32_t)i));
	}
}

/* II.5: unexpected messages are kept and delivered when a receive comes. */
static void
sec_II_5_unexpected(void **state)
{
	uint8_t buf[5000];
	mx_status_t st;
	uint32_t found = 0;

	(void)state;
	command(OP_SEND, 0x5000, 5000, 10);
	assert_int_equal(mx_probe(ep, WAIT_MS, 0x5009, MX_MATCH_MASK_NONE, &st,
				&found), MX_SUCCESS);
	assert_int_equal(found, 1);
	for (int i = 9; i >= 0; i--) {
		mx_request_t r = mxt_recv(ep, buf, sizeof(buf), 0x5000u + (unsigned)i,
				MX_MATCH_MASK_NONE);

		st = mxt_wait(ep, &r);
		assert_int_equal(st.xfer_length, 5000);
		assert_true(mxt_pattern_ok(buf, 5000, (uint32_t)i));
	}
}

/* II.6: NULL is never a valid request; a tested request is released. */
static void
sec_II_6_requests(void **state)
{
	mx_request_t r = NULL, old;
	mx_status_t st;
	uint32_t res;
	uint8_t b[4] = { 0 };

	(void)state;
	assert_int_equal(mx_test(ep, &r, &st, &res), MX_BAD_REQUEST);
	assert_int_equal(mx_wait(ep, NULL, 1, &st, &res), MX_BAD_REQUEST);
	r = mxt_recv(ep, b, 4, 0x6000, MX_MATCH_MASK_NONE);
	command(OP_SEND, 0x6000, 4, 1);
	old = r;
	mxt_wait(ep, &r);
	assert_null(r);
	assert_int_equal(mx_test(ep, &old, &st, &res), MX_BAD_REQUEST);
}

/* II.7, V.1.2, VI.1.1: isend goes straight to complete once its data is
 * copied out (no buffered state); issend is buffered at once and completes
 * only once the receiver matched; a receive is pending until its message. */
static void
sec_II_7_request_states(void **state)
{
	uint8_t out[1000], back[1000];
	mx_segment_t seg = { out, sizeof(out) };
	mx_request_t s, r;
	mx_status_t st;
	uint32_t res = 9;

	(void)state;
	mxt_pattern(out, sizeof(out), 7);
	r = mxt_recv(ep, back, sizeof(back), 0x7000, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_test(ep, &r, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);			/* pending */
	command(OP_ECHO_LATE, 0x7000, sizeof(out), 400);
	assert_int_equal(mx_issend(ep, &seg, 1, serv, 0x7000, NULL, &s),
			MX_SUCCESS);
	assert_int_equal(mx_ibuffered(ep, &s, &res), MX_SUCCESS);
	assert_int_equal(res, 1);			/* buffered */
	assert_int_equal(mx_wait(ep, &s, 100, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);			/* not matched yet */
	assert_int_equal(mxt_wait(ep, &s).code, MX_STATUS_SUCCESS);
	st = mxt_wait(ep, &r);
	assert_true(mxt_pattern_ok(back, sizeof(back), 7));
	/* isend: buffered and complete as soon as it returns. */
	r = mxt_recv(ep, back, sizeof(back), 0x7001, MX_MATCH_MASK_NONE);
	command(OP_ECHO, 0x7001, sizeof(out), 0);
	assert_int_equal(mx_isend(ep, &seg, 1, serv, 0x7001, NULL, &s),
			MX_SUCCESS);
	assert_int_equal(mx_ibuffered(ep, &s, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	memset(out, 0, sizeof(out));	/* reuse: must not reach the wire */
	assert_int_equal(mx_test(ep, &s, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	mxt_wait(ep, &r);
	assert_true(mxt_pattern_ok(back, sizeof(back), 7));
}

/* III.1.1: init twice; init's error codes (each in a fresh process). */
/* HugePages_Total of /proc/meminfo (0 if unreadable). */
static long
hugepages_reserved(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Total: %ld", &n) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return n;
}

static void
sec_III_1_1_init(void **state)
{
	const char *base = "--no-huge -m 128 --no-shconf --no-pci "
		"--log-level=error";
	char args[256];

	(void)state;
	assert_int_equal(mx_init(), MX_ALREADY_INITIALIZED);
	assert_int_equal(run_self("init", base), MX_NO_DEV);	/* no port */
	snprintf(args, sizeof(args), "%s --vdev=net_nosuch0", base);
	assert_int_equal(run_self("init", args), MX_NO_DRIVER);
	snprintf(args, sizeof(args), "%s --vdev=net_null0,no-rx=1", base);
	assert_int_equal(run_self("init", args), MX_SUCCESS);
	/* More frame buffers than the EAL has memory for. */
	setenv("MX_MBUFS", "4000000", 1);
	assert_int_equal(run_self("init", args), MX_NO_RESOURCES);
	unsetenv("MX_MBUFS");
	/* Hugepage memory DPDK may not use: none reserved (with some
	 * reserved, --in-memory takes them without a mount). */
	if (hugepages_reserved() == 0)
		assert_int_equal(run_self("init", "--in-memory -m 64 "
					"--no-pci --log-level=error "
					"--vdev=net_null0,no-rx=1 "
					"--huge-dir=/nonexistent"), MX_NO_PERM);
	else
		fprintf(stderr, "hugepages are reserved on this machine: "
				"MX_NO_PERM for lack of them not checked\n");
	/* MX_BAD_BAD_BAD (a broken driver) cannot be arranged (README). */
}

/* III.2.1: every key; unknown keys and short buffers. */
static void
sec_III_2_1_get_info(void **state)
{
	static const mx_get_info_key_t global[] = { MX_NIC_COUNT,
		MX_MAX_NATIVE_ENDPOINTS, MX_NATIVE_REQUESTS, MX_PIO_SEND_MAX,
		MX_COPY_SEND_MAX, MX_MAX_SEGMENTS };
	static const mx_get_info_key_t per_board[] = { MX_COUNTERS_COUNT,
		MX_SERIAL_NUMBER, MX_PORT_COUNT, MX_NUMA_NODE, MX_NET_TYPE,
		MX_LINE_SPEED };
	uint32_t v = 0, board = 0, small = 0;
	char str[MX_MAX_STR_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(global) / sizeof(global[0]); i++)
		assert_int_equal(mx_get_info(NULL, global[i], NULL, 0, &v,
					sizeof(v)), MX_SUCCESS);
	for (size_t i = 0; i < sizeof(per_board) / sizeof(per_board[0]); i++)
		assert_int_equal(mx_get_info(NULL, per_board[i], &board,
					sizeof(board), &v, sizeof(v)), MX_SUCCESS);
	assert_int_equal(mx_get_info(NULL, MX_NET_TYPE, &board, 4, &v, 4),
			MX_SUCCESS);
	assert_int_equal(v, MX_NET_ETHER);
	assert_int_equal(mx_get_info(NULL, MX_PRODUCT_CODE, &board, 4, str,
				sizeof(str)), MX_SUCCESS);
	assert_int_equal(mx_get_info(NULL, MX_PART_NUMBER, &board, 4, str,
				sizeof(str)), MX_SUCCESS);
	assert_int_equal(mx_get_info(NULL, MX_MAX_NATIVE_ENDPOINTS, NULL, 0, &v,
				4), MX_SUCCESS);
	assert_int_equal(v, MX_MAX_ENDPOINTS);
	assert_int_equal(mx_get_info(NULL, (mx_get_info_key_t)999, NULL, 0, &v,
				4), MX_BAD_INFO_KEY);
	assert_int_equal(mx_get_info(NULL, MX_NIC_COUNT, NULL, 0, &small, 2),
			MX_BAD_INFO_LENGTH);
	assert_int_equal(mx_get_info(NULL, MX_PRODUCT_CODE, &board, 4, str, 8),
			MX_BAD_INFO_LENGTH);
	board = 77;
	assert_int_equal(mx_get_info(NULL, MX_PORT_COUNT, &board, 4, &v, 4),
			MX_BOARD_UNKNOWN);
}

/* III.2.2: MX_NIC_IDS holds MX_NIC_COUNT ids and a terminating 0. */
static void
sec_III_2_2_nic_ids(void **state)
{
	uint32_t n = 0, b;
	uint64_t ids[16];

	(void)state;
	assert_int_equal(mx_get_info(NULL, MX_NIC_COUNT, NULL, 0, &n, 4),
			MX_SUCCESS);
	assert_true(n >= 1 && n < 15);
	memset(ids, 0xff, sizeof(ids));
	assert_int_equal(mx_get_info(NULL, MX_NIC_IDS, NULL, 0, ids,
				(n + 1) * 8), MX_SUCCESS);
	assert_true(ids[n] == 0);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(mx_nic_id_to_board_number(ids[i], &b),
				MX_SUCCESS);
		assert_int_equal(b, i);
	}
	assert_int_equal(mx_get_info(NULL, MX_NIC_IDS, NULL, 0, ids, n * 8),
			MX_BAD_INFO_LENGTH);
}

/* III.2.3: counters: a count, as many labels and values, and they move. */
static void
sec_III_2_3_counters(void **state)
{
	uint32_t n = 0, board = 0, *before, *after, rx = UINT32_MAX;
	char (*label)[MX_MAX_STR_LEN];
	uint8_t b[4];
	mx_request_t r;

	(void)state;
	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_COUNT, &board, 4, &n, 4),
			MX_SUCCESS);
	label = calloc(n, MX_MAX_STR_LEN);
	before = calloc(n, 4);
	after = calloc(n, 4);
	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_LABELS, &board, 4, label,
				n * MX_MAX_STR_LEN), MX_SUCCESS);
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(label[i], "rx messages"))
			rx = i;
	assert_true(rx != UINT32_MAX);
	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_VALUES, &board, 4, before,
				n * 4), MX_SUCCESS);
	r = mxt_recv(ep, b, 4, 0x2300, MX_MATCH_MASK_NONE);
	command(OP_SEND, 0x2300, 4, 1);
	mxt_wait(ep, &r);
	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_VALUES, &board, 4, after,
				n * 4), MX_SUCCESS);
	assert_true(after[rx] > before[rx]);
	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_VALUES, &board, 4, after,
				4), MX_BAD_INFO_LENGTH);
	free(label);
	free(before);
	free(after);
}

static int ep_handler_calls;

static mx_return_t
ep_handler(char *str, mx_return_t rc)
{
	(void)str;
	ep_handler_calls++;
	return rc;
}

/* III.3.1: ids, wildcards, MX_BUSY, parameters. */
static void
sec_III_3_1_open_endpoint(void **state)
{
	mx_endpoint_t a, b;
	mx_param_t par[3] = {
		{ .key = MX_PARAM_UNEXP_QUEUE_MAX },
		{ .key = MX_PARAM_ERROR_HANDLER },
		{ .key = (mx_param_key_t)77 },
	};
	mx_endpoint_addr_t addr;
	uint64_t nic;
	uint32_t id;

	(void)state;
	assert_int_equal(mx_open_endpoint(MX_ANY_NIC, MX_ANY_ENDPOINT, 1, NULL,
				0, &a), MX_SUCCESS);
	mx_get_endpoint_addr(a, &addr);
	mx_decompose_endpoint_addr(addr, &nic, &id);
	assert_true(id < MX_MAX_ENDPOINTS);
	assert_int_equal(mx_open_endpoint(0, id, 1, NULL, 0, &b), MX_BUSY);
	assert_int_equal(mx_open_endpoint(0, MX_MAX_ENDPOINTS, 1, NULL, 0, &b),
			MX_BAD_ENDPOINT_ID);
	assert_int_equal(mx_close_endpoint(a), MX_SUCCESS);
	par[0].val.unexp_queue_max = 1000;
	par[1].val.error_handler = ep_handler;
	assert_int_equal(mx_open_endpoint(0, id, 1, par, 2, &a), MX_SUCCESS);
	/* The endpoint's handler sees its errors. */
	assert_int_equal(mx_irecv(a, NULL, 0, 1, 0, NULL, NULL), MX_BAD_REQUEST);
	assert_int_equal(ep_handler_calls, 1);
	assert_int_equal(mx_close_endpoint(a), MX_SUCCESS);
	assert_int_equal(mx_open_endpoint(0, 22, 1, par, 3, &a),
			MX_BAD_PARAM_NAME);	/* par[2] is not a key */
}

/* III.3.2: closing cancels what is pending; the id is free again. */
static void
sec_III_3_2_close_endpoint(void **state)
{
	mx_endpoint_t a;
	uint8_t b[8];
	mx_segment_t s = { b, 8 };
	mx_request_t r;

	(void)state;
	assert_int_equal(mx_open_endpoint(0, 20, 1, NULL, 0, &a), MX_SUCCESS);
	assert_int_equal(mx_irecv(a, &s, 1, 1, MX_MATCH_MASK_NONE, NULL, &r),
			MX_SUCCESS);
	assert_int_equal(mx_close_endpoint(a), MX_SUCCESS);
	assert_int_equal(mx_open_endpoint(0, 20, 1, NULL, 0, &a), MX_SUCCESS);
	assert_int_equal(mx_close_endpoint(a), MX_SUCCESS);
}

struct blocked {
	mx_endpoint_t e;
	uint32_t result;
	mx_request_t r;
};

static void *
block_in_peek(void *arg)
{
	struct blocked *b = arg;
	mx_request_t r = NULL;
	uint32_t result = 9;

	/* Into locals: the main thread watches b->result meanwhile. */
	mx_peek(b->e, MX_INFINITE, &r, &result);
	b->r = r;
	__atomic_store_n(&b->result, result, __ATOMIC_RELEASE);
	return NULL;
}

/* III.3.3: mx_wakeup makes a blocked call return. */
static void
sec_III_3_3_wakeup(void **state)
{
	struct blocked b = { NULL, 9, NULL };
	pthread_t t;

	(void)state;
	assert_int_equal(mx_open_endpoint(0, 21, 1, NULL, 0, &b.e), MX_SUCCESS);
	pthread_create(&t, NULL, block_in_peek, &b);
	/* It releases threads blocked now: repeat until the thread, maybe
	 * slow to start, has been released. */
	for (int i = 0; i < 1000 &&
			__atomic_load_n(&b.result, __ATOMIC_ACQUIRE) == 9; i++) {
		usleep(10000);
		assert_int_equal(mx_wakeup(b.e), MX_SUCCESS);
	}
	pthread_join(t, NULL);
	assert_int_equal(b.result, 0);
	mx_close_endpoint(b.e);
}

/* IV.1: board names and NIC ids, both ways. */
static void
sec_IV_1_hostnames(void **state)
{
	char name[MX_MAX_HOSTNAME_LEN];
	uint64_t nic;

	(void)state;
	assert_int_equal(mx_nic_id_to_hostname(serv_nic, name), MX_SUCCESS);
	assert_int_equal(mx_hostname_to_nic_id(name, &nic), MX_SUCCESS);
	assert_true(nic == serv_nic);
	assert_int_equal(mx_hostname_to_nic_id((char *)"nobody:9", &nic),
			MX_HOST_NOT_FOUND);
	assert_int_equal(mx_nic_id_to_hostname(0x123456, name),
			MX_HOST_NOT_FOUND);
}

/* IV.2: board numbers and NIC ids. */
static void
sec_IV_2_board_numbers(void **state)
{
	uint64_t nic;
	uint32_t b;

	(void)state;
	assert_int_equal(mx_board_number_to_nic_id(0, &nic), MX_SUCCESS);
	assert_int_equal(mx_nic_id_to_board_number(nic, &b), MX_SUCCESS);
	assert_int_equal(b, 0);
	assert_int_equal(mx_board_number_to_nic_id(99, &nic), MX_BOARD_UNKNOWN);
	assert_int_equal(mx_nic_id_to_board_number(0x123456, &b),
			MX_BOARD_UNKNOWN);
}

/* IV.3.1, IV.3.2: connect's outcomes; decompose. */
static void
sec_IV_3_connect(void **state)
{
	mx_endpoint_addr_t a;
	uint64_t nic, ghost = 0;
	uint32_t id;

	(void)state;
	assert_int_equal(mx_connect(ep, serv_nic, 2, SERV_FILTER2, 5000, &a),
			MX_SUCCESS);
	mx_decompose_endpoint_addr(a, &nic, &id);
	assert_true(nic == serv_nic);
	assert_int_equal(id, 2);
	assert_int_equal(mx_connect(ep, serv_nic, 3, SERV_FILTER, 5000, &a),
			MX_CONNECTION_FAILED);
	assert_int_equal(mx_connect(ep, serv_nic, 1, 0xbad, 5000, &a),
			MX_BAD_CONNECTION_KEY);
	assert_int_equal(mx_connect(ep, 0x02beef000001ull, 1, 0, 300, &a),
			MX_NIC_NOT_FOUND);
	assert_int_equal(mx_hostname_to_nic_id((char *)"ghost:0", &ghost),
			MX_SUCCESS);
	assert_int_equal(mx_connect(ep, ghost, 1, 0, 300, &a), MX_TIMEOUT);
}

/* IV.3.1: MX_NO_RESOURCES once the endpoint's partner table is full
 * (MX_MAX_PARTNERS_HINT connects in progress to NICs that never answer:
 * MX_MAX_PARTNERS, set so for this program); once they failed, their
 * partners are taken again (README, Partners). */
#define MX_MAX_PARTNERS_HINT 1024

static void
sec_IV_3_1_connect_no_resources(void **state)
{
	mx_endpoint_t e;
	mx_endpoint_addr_t a;
	mx_request_t *r = calloc(MX_MAX_PARTNERS_HINT, sizeof(*r));
	mx_request_t extra;

	(void)state;
	assert_int_equal(mx_open_endpoint(0, 23, 1, NULL, 0, &e), MX_SUCCESS);
	/* Long enough that all are still in progress at the last. */
	assert_int_equal(mx_set_request_timeout(e, NULL, 3000), MX_SUCCESS);
	for (uint32_t i = 0; i < MX_MAX_PARTNERS_HINT; i++)
		assert_int_equal(mx_iconnect(e, 0x02ee00000000ull + i, 1, 0, 0,
					NULL, &r[i]), MX_SUCCESS);
	assert_int_equal(mx_iconnect(e, 0x02ef00000000ull, 1, 0, 0, NULL,
				&extra), MX_NO_RESOURCES);
	assert_int_equal(mx_connect(e, serv_nic, 1, SERV_FILTER, 1000, &a),
			MX_NO_RESOURCES);
	for (uint32_t i = 0; i < MX_MAX_PARTNERS_HINT; i++)
		assert_int_equal(mxt_wait(e, &r[i]).code, MX_STATUS_TIMEOUT);
	assert_int_equal(mx_connect(e, serv_nic, 1, SERV_FILTER, 1000, &a),
			MX_SUCCESS);
	mx_close_endpoint(e);
	free(r);
}

/* IV.4.1: an endpoint's own address works, also to send to itself. */
static void
sec_IV_4_1_own_address(void **state)
{
	mx_endpoint_addr_t self;
	uint64_t nic, board_nic;
	uint32_t id, v = 42, in = 0;
	mx_request_t r;

	(void)state;
	assert_int_equal(mx_get_endpoint_addr(ep, &self), MX_SUCCESS);
	mx_decompose_endpoint_addr(self, &nic, &id);
	mx_board_number_to_nic_id(0, &board_nic);
	assert_true(nic == board_nic);
	assert_int_equal(id, 0);
	r = mxt_recv(ep, &in, 4, 0x4100, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_send(ep, self, &v, 4, 0x4100).code,
			MX_STATUS_SUCCESS);
	mxt_wait(ep, &r);
	assert_int_equal(in, 42);
}

/* V.1.1: gather lists, zero-length segments, empty messages, context. */
static void
sec_V_1_1_isend(void **state)
{
	uint8_t out[3000], back[3000];
	mx_segment_t segs[3] = { { out, 1000 }, { NULL, 0 },
		{ out + 1000, 2000 } };
	mx_request_t s, r;
	mx_status_t st;
	int ctx;

	(void)state;
	mxt_pattern(out, sizeof(out), 5);
	r = mxt_recv(ep, back, sizeof(back), 0x5100, MX_MATCH_MASK_NONE);
	command(OP_ECHO, 0x5100, sizeof(out), 0);
	assert_int_equal(mx_isend(ep, segs, 3, serv, 0x5100, &ctx, &s),
			MX_SUCCESS);
	memset(segs, 0, sizeof(segs));	/* the list may change at once */
	st = mxt_wait(ep, &s);
	assert_ptr_equal(st.context, &ctx);
	assert_int_equal(mxt_wait(ep, &r).xfer_length, sizeof(out));
	assert_true(mxt_pattern_ok(back, sizeof(back), 5));
	r = mxt_recv(ep, back, sizeof(back), 0x5101, MX_MATCH_MASK_NONE);
	command(OP_ECHO, 0x5101, 0, 0);
	assert_int_equal(mx_isend(ep, NULL, 0, serv, 0x5101, NULL, &s),
			MX_SUCCESS);
	mxt_wait(ep, &s);
	assert_int_equal(mxt_wait(ep, &r).msg_length, 0);
}

/*
 * V.1.1: mx_isend is MPI standard mode.  A 64-byte send to a peer that
 * makes no MX call (the servant sleeps 300 ms after arming) completes at
 * once, for mx_test, mx_wait with no time to wait, and mx_ipeek; the
 * message arrives once the peer wakes.
 */
static void
sec_V_1_1_standard_mode(void **state)
{
	uint8_t out[64], back[64];
	mx_segment_t seg = { out, sizeof(out) };
	mx_request_t s, r, got = NULL;
	mx_status_t st;
	uint32_t res = 9;

	(void)state;
	mxt_pattern(out, sizeof(out), 11);
	r = mxt_recv(ep, back, sizeof(back), 0x5102, MX_MATCH_MASK_NONE);
	command(OP_ECHO_LATE, 0x5102, sizeof(out), 300);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(mx_isend(ep, &seg, 1, serv, 0x5103 + i, NULL,
					&s), MX_SUCCESS);
		if (i == 0)
			assert_int_equal(mx_test(ep, &s, &st, &res), MX_SUCCESS);
		else if (i == 1)
			assert_int_equal(mx_wait(ep, &s, 1, &st, &res),
					MX_SUCCESS);
		else
			assert_int_equal(mx_ipeek(ep, &got, &res), MX_SUCCESS);
		assert_int_equal(res, 1);
	}
	assert_ptr_equal(got, s);
	assert_int_equal(mx_test(ep, &s, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_int_equal(st.xfer_length, sizeof(out));
	/* The servant, awake, takes the echoed one (the others stay
	 * unexpected on its side until it closes). */
	assert_int_equal(mx_isend(ep, &seg, 1, serv, 0x5102, NULL, &s),
			MX_SUCCESS);
	assert_int_equal(mx_test(ep, &s, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(mxt_wait(ep, &r).xfer_length, sizeof(out));
	assert_true(mxt_pattern_ok(back, sizeof(back), 11));
}

/* V.2.1: scatter lists and truncation. */
static void
sec_V_2_1_irecv(void **state)
{
	uint8_t out[3000], a[100], b[900], c[2000], all[3000];
	mx_segment_t rs[4] = { { a, 100 }, { NULL, 0 }, { b, 900 }, { c, 2000 } };
	mx_request_t r;
	mx_status_t st;

	(void)state;
	mxt_pattern(out, sizeof(out), 9);
	assert_int_equal(mx_irecv(ep, rs, 4, 0x5200, MX_MATCH_MASK_NONE, NULL,
				&r), MX_SUCCESS);
	command(OP_ECHO, 0x5200, sizeof(out), 0);
	mxt_send(ep, serv, out, sizeof(out), 0x5200);
	st = mxt_wait(ep, &r);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	memcpy(all, a, 100);
	memcpy(all + 100, b, 900);
	memcpy(all + 1000, c, 2000);
	assert_true(mxt_pattern_ok(all, sizeof(all), 9));
	/* Longer than the receive: truncated, with both lengths. */
	r = mxt_recv(ep, a, 100, 0x5201, MX_MATCH_MASK_NONE);
	command(OP_ECHO, 0x5201, sizeof(out), 0);
	mxt_send(ep, serv, out, sizeof(out), 0x5201);
	st = mxt_wait(ep, &r);
	assert_int_equal(st.code, MX_STATUS_TRUNCATED);
	assert_int_equal(st.msg_length, 3000);
	assert_int_equal(st.xfer_length, 100);
	assert_true(mxt_pattern_ok(a, 100, 9));
}

/* VI.2: test and wait; wait's timeout. */
static void
sec_VI_2_test_wait(void **state)
{
	uint8_t b[4];
	mx_request_t r = mxt_recv(ep, b, 4, 0x6200, MX_MATCH_MASK_NONE);
	struct timespec t0, t1;
	mx_status_t st;
	uint32_t res = 9;
	double ms;

	(void)state;
	assert_int_equal(mx_test(ep, &r, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(mx_wait(ep, &r, 50, &st, &res), MX_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	assert_int_equal(res, 0);
	assert_true(ms >= 49 && ms < 2000);
	command(OP_SEND, 0x6200, 4, 1);
	assert_int_equal(mx_wait(ep, &r, MX_INFINITE, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_null(r);
}

/* VI.3, VI.4: peeking and contexts. */
static void
sec_VI_3_peek_context(void **state)
{
	uint8_t b[4];
	mx_request_t r, got = NULL;
	uint32_t res = 9;
	void *ctx = NULL;
	mx_status_t st;

	(void)state;
	assert_int_equal(mx_ipeek(ep, &got, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	assert_int_equal(mx_peek(ep, 30, &got, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	r = mxt_recv(ep, b, 4, 0x6300, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_context(&r, &ctx), MX_SUCCESS);
	assert_ptr_equal(ctx, b);
	command(OP_SEND, 0x6300, 4, 1);
	assert_int_equal(mx_peek(ep, WAIT_MS, &got, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_ptr_equal(got, r);
	assert_int_equal(mx_test(ep, &got, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_ptr_equal(st.context, b);
}

/* VII: probing does not receive; the status describes the message. */
static void
sec_VII_probe(void **state)
{
	uint8_t b[700];
	mx_status_t st;
	uint32_t res = 9, id;
	uint64_t nic;
	mx_request_t r;

	(void)state;
	assert_int_equal(mx_probe(ep, 30, 0x7700, MX_MATCH_MASK_NONE, &st, &res),
			MX_SUCCESS);
	assert_int_equal(res, 0);
	command(OP_SEND, 0x7700, 700, 1);
	assert_int_equal(mx_probe(ep, WAIT_MS, 0x7700, MX_MATCH_MASK_NONE, &st,
				&res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_true(st.match_info == 0x7700);
	assert_int_equal(st.msg_length, 700);
	mx_decompose_endpoint_addr(st.source, &nic, &id);
	assert_true(nic == serv_nic);
	assert_int_equal(id, 1);
	assert_int_equal(mx_iprobe(ep, 0x7700, MX_MATCH_MASK_NONE, &st, &res),
			MX_SUCCESS);
	assert_int_equal(res, 1);		/* still there */
	r = mxt_recv(ep, b, sizeof(b), 0x7700, MX_MATCH_MASK_NONE);
	mxt_wait(ep, &r);
	assert_true(mxt_pattern_ok(b, 700, 0));
	assert_int_equal(mx_iprobe(ep, 0x7700, MX_MATCH_MASK_NONE, &st, &res),
			MX_SUCCESS);
	assert_int_equal(res, 0);
}

/* VIII: cancel a pending receive; too late once matched; not sends. */
static void
sec_VIII_cancel(void **state)
{
	uint8_t b[4] = { 0 };
	mx_request_t r, old, s;
	mx_segment_t seg = { b, 4 };
	mx_status_t st;
	uint32_t res = 9;

	(void)state;
	r = mxt_recv(ep, b, 4, 0x8800, MX_MATCH_MASK_NONE);
	old = r;
	assert_int_equal(mx_cancel(ep, &r, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(mx_test(ep, &old, &st, &res), MX_BAD_REQUEST);
	r = mxt_recv(ep, b, 4, 0x8801, MX_MATCH_MASK_NONE);
	command(OP_SEND, 0x8801, 4, 1);
	assert_int_equal(mx_peek(ep, WAIT_MS, &old, &res), MX_SUCCESS);
	assert_int_equal(mx_cancel(ep, &r, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	mxt_wait(ep, &r);
	command(OP_ECHO, 0x8802, 4, 0);
	assert_int_equal(mx_isend(ep, &seg, 1, serv, 0x8802, NULL, &s),
			MX_SUCCESS);
	assert_int_equal(mx_cancel(ep, &s, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	mxt_wait(ep, &s);
	r = mxt_recv(ep, b, 4, 0x8802, MX_MATCH_MASK_NONE);
	mxt_wait(ep, &r);
}

static int user_calls;
static mx_return_t user_code;

static mx_return_t
user_handler(char *str, mx_return_t rc)
{
	assert_non_null(str);
	user_calls++;
	user_code = rc;
	return rc;
}

/* X: the default handler is fatal; others return; the previous one is
 * returned by mx_set_error_handler. */
static void
sec_X_error_handling(void **state)
{
	mx_endpoint_t e;

	(void)state;
	assert_int_equal(run_self("fatal", NULL), 1);
	assert_ptr_equal(mx_set_error_handler(user_handler), MX_ERRORS_RETURN);
	assert_int_equal(mx_open_endpoint(42, 0, 0, NULL, 0, &e),
			MX_BOARD_UNKNOWN);
	assert_int_equal(user_calls, 1);
	assert_int_equal(user_code, MX_BOARD_UNKNOWN);
	assert_ptr_equal(mx_set_error_handler(MX_ERRORS_RETURN), user_handler);
	assert_string_equal(mx_strerror(MX_BUSY), "Busy");
}

/* The value of the board counter labelled 'name' (mx_get_info). */
static uint32_t
counter(const char *name)
{
	uint32_t n = 0, board = 0, v = UINT32_MAX, *val;
	char (*label)[MX_MAX_STR_LEN];

	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_COUNT, &board, 4, &n, 4),
			MX_SUCCESS);
	label = calloc(n, MX_MAX_STR_LEN);
	val = calloc(n, 4);
	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_LABELS, &board, 4, label,
				n * MX_MAX_STR_LEN), MX_SUCCESS);
	assert_int_equal(mx_get_info(NULL, MX_COUNTERS_VALUES, &board, 4, val,
				n * 4), MX_SUCCESS);
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(label[i], name))
			v = val[i];
	free(label);
	free(val);
	assert_true(v != UINT32_MAX);
	return v;
}

/*
 * Status codes: a send to an endpoint that closed fails with
 * MX_STATUS_ENDPOINT_CLOSED; after it reopens, a new connect works.  If
 * the closing endpoint's BYE was lost (loss tests), a send may complete
 * first (mx_isend completes once copied); its message, refused, is
 * counted, and a later send fails with the refusal.
 */
static void
status_endpoint_closed(void **state)
{
	const char *lost = "completed sends refused or lost";
	mx_endpoint_addr_t a;
	uint8_t b[2000] = { 0 };
	uint32_t before, ok = 0;
	mx_status_t st;
	uint32_t res;

	(void)state;
	assert_int_equal(mx_connect(ep, serv_nic, 2, SERV_FILTER2, 5000, &a),
			MX_SUCCESS);
	command(OP_CLOSE2, 0, 0, 0);
	before = counter(lost);
	for (int i = 0; i < 500; i++) {
		st = mxt_send(ep, a, b, sizeof(b), 1);
		if (st.code != MX_STATUS_SUCCESS)
			break;
		ok++;		/* refused later: progress meanwhile */
		mx_iprobe(ep, 0x0bad, MX_MATCH_MASK_NONE, &st, &res);
		usleep(10000);
	}
	assert_int_equal(st.code, MX_STATUS_ENDPOINT_CLOSED);
	assert_int_equal(counter(lost) - before, ok);
	command(OP_OPEN2, 0, 0, 0);
	assert_int_equal(mx_connect(ep, serv_nic, 2, SERV_FILTER2, 5000, &a),
			MX_SUCCESS);
}

static const struct CMUnitTest clauses[] = {
	cmocka_unit_test(sec_II_2_endpoints),
	cmocka_unit_test(sec_II_4_matching),
	cmocka_unit_test(sec_II_4_in_order),
	cmocka_unit_test(sec_II_5_unexpected),
	cmocka_unit_test(sec_II_6_requests),
	cmocka_unit_test(sec_II_7_request_states),
	cmocka_unit_test(sec_III_1_1_init),
	cmocka_unit_test(sec_III_2_1_get_info),
	cmocka_unit_test(sec_III_2_2_nic_ids),
	cmocka_unit_test(sec_III_2_3_counters),
	cmocka_unit_test(sec_III_3_1_open_endpoint),
	cmocka_unit_test(sec_III_3_2_close_endpoint),
	cmocka_unit_test(sec_III_3_3_wakeup),
	cmocka_unit_test(sec_IV_1_hostnames),
	cmocka_unit_test(sec_IV_2_board_numbers),
	cmocka_unit_test(sec_IV_3_connect),
	cmocka_unit_test(sec_IV_3_1_connect_no_resources),
	cmocka_unit_test(sec_IV_4_1_own_address),
	cmocka_unit_test(sec_V_1_1_isend),
	cmocka_unit_test(sec_V_1_1_standard_mode),
	cmocka_unit_test(sec_V_2_1_irecv),
	cmocka_unit_test(sec_VI_2_test_wait),
	cmocka_unit_test(sec_VI_3_peek_context),
	cmocka_unit_test(sec_VII_probe),
	cmocka_unit_test(sec_VIII_cancel),
	cmocka_unit_test(sec_X_error_handling),
	cmocka_unit_test(status_endpoint_closed),
};

/*
 * "conformance init <MX_DPDK_ARGS>": exits with mx_init()'s return code.
 * "conformance fatal": the default error handler must end the process.
 * Each needs a process of its own: the EAL starts once per process.
 */
static int
sub_mode(int argc, char **argv)
{
	mx_endpoint_t e;

	if (argc == 3 && !strcmp(argv[1], "init")) {
		setenv("MX_DPDK_ARGS", argv[2], 1);
		mx_set_error_handler(MX_ERRORS_RETURN);
		return (int)mx_init();
	}
	setenv("MX_DPDK_ARGS", "--no-huge -m 128 --no-shconf --no-pci "
			"--log-level=error --vdev=net_null0,no-rx=1", 1);
	if (mx_init() != MX_SUCCESS)
		return 100;
	mx_open_endpoint(99, 0, 0, NULL, 0, &e);	/* fatal: exits 1 */
	return 101;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "init") || !strcmp(argv[1], "fatal")))
		return sub_mode(argc, argv);
	if (argc != 2 || (strcmp(argv[1], "local") && strcmp(argv[1], "memif"))) {
		fprintf(stderr, "usage: %s local|memif\n", argv[0]);
		return 2;
	}
	memif_mode = !strcmp(argv[1], "memif");
	return cmocka_run_group_tests_name(memif_mode ? "conformance-memif" :
			"conformance-local", clauses, suite_setup,
			suite_teardown);
}
