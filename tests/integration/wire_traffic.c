/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wire_traffic: an exchange that puts every frame type of docs/wire.md on
 * the wire once, for the dissector test (tests/integration/dissector.sh).
 *
 *   wire_traffic a      receiver "nodeA": endpoints 1 and 2
 *   wire_traffic b      sender "nodeB": endpoint 3
 *
 * EAL arguments come from MX_DPDK_ARGS, as for any MX program.  B finds A
 * by name (DISCOVER), connects to both of its endpoints (CONN_REQ/REP),
 * then sends the messages of the table below to endpoint 1: small and
 * medium eager ones (one issend: SYNC, then a MATCHED notice) and large
 * ones (RNDV, PULL, PULL_REP, NOTIFY notices).  A sleeps outside the
 * library before it takes the last one, so B probes it (ACK with PING).
 * Then A closes endpoint 1 and says so from endpoint 2; B's next message
 * to endpoint 1 completes (mx_isend: once copied), is refused (NACK), and
 * the send after it fails with MX_STATUS_ENDPOINT_CLOSED.
 *
 * Message i carries match MATCH_BASE | i << 32 | length, so a capture
 * describes itself; B prints the table ("message i len L match M sync S").
 * Both sides check every byte and exit 0 on success.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <myriexpress.h>

#define FILTER		0x5eed
#define EP_A1		1
#define EP_A2		2
#define EP_B		3
#define WAIT_MS		20000
#define SLEEP_MS	1000	/* A's nap before the last message */
#define MATCH_BASE	0x6d78000000000000ull	/* "mx" */
#define M_PARAM		0xffff000000000001ull
#define M_CLOSED	0xffff000000000002ull
#define M_LATE		0xffff000000000003ull
#define M_BYE		0xffff000000000004ull
#define M_NEVER		0xffff0000000000ffull
#define LINGER_MS	500	/* A answers copies of B's last message */

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "wire_traffic %s: line %d: ", role, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		exit(1); \
	} \
} while (0)

static const struct {
	uint32_t len;
	int sync;
} msgs[] = {
	{ 0, 0 }, { 1, 0 }, { 60, 0 }, { 1444, 1 }, { 1445, 0 },
	{ 5000, 0 }, { 32768, 0 }, { 32769, 0 }, { 100000, 0 },
	{ 300000, 0 },
};
#define NMSG	(sizeof(msgs) / sizeof(msgs[0]))

static const char *role = "?";

static uint64_t
match_of(uint32_t i)
{
	return MATCH_BASE | (uint64_t)i << 32 | msgs[i].len;
}

static void
pattern(uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 7 + i * 13 + (i >> 8));
}

static void
check_pattern(const uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		CHECK(b[i] == (uint8_t)(seed * 7 + i * 13 + (i >> 8)),
				"message %u: byte %u of %u is wrong", seed, i,
				len);
}

static mx_status_t
wait_req(mx_endpoint_t ep, mx_request_t *r)
{
	mx_status_t st;
	uint32_t done = 0;

	CHECK(mx_wait(ep, r, WAIT_MS, &st, &done) == MX_SUCCESS, "mx_wait");
	CHECK(done, "request not complete after %d ms", WAIT_MS);
	return st;
}

static mx_request_t
post(mx_endpoint_t ep, void *buf, uint32_t len, uint64_t m)
{
	mx_segment_t s = { buf, len };
	mx_request_t r;

	CHECK(mx_irecv(ep, &s, 1, m, MX_MATCH_MASK_NONE, NULL, &r) ==
			MX_SUCCESS, "mx_irecv");
	return r;
}

static mx_request_t
send_msg(mx_endpoint_t ep, mx_endpoint_addr_t to, void *buf, uint32_t len,
		uint64_t m, int sync)
{
	mx_segment_t s = { buf, len };
	mx_request_t r;
	mx_return_t rc = sync ? mx_issend(ep, &s, 1, to, m, NULL, &r) :
		mx_isend(ep, &s, 1, to, m, NULL, &r);

	CHECK(rc == MX_SUCCESS, "send: %s", mx_strerror(rc));
	return r;
}

static void
send_wait(mx_endpoint_t ep, mx_endpoint_addr_t to, uint64_t m)
{
	uint64_t word = m;
	mx_request_t r = send_msg(ep, to, &word, sizeof(word), m, 0);
	mx_status_t st = wait_req(ep, &r);

	CHECK(st.code == MX_STATUS_SUCCESS, "send 0x%" PRIx64 ": %s", m,
			mx_strstatus(st.code));
}

static mx_endpoint_t
open_ep(uint32_t id)
{
	mx_endpoint_t ep;
	mx_return_t rc = mx_open_endpoint(0, id, FILTER, NULL, 0, &ep);

	CHECK(rc == MX_SUCCESS, "open endpoint %u: %s", id, mx_strerror(rc));
	return ep;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * B's last message completes once acknowledged: if our ack is lost, B
 * sends it again, so stay in the library a moment to answer the copies.
 */
static void
linger(mx_endpoint_t ep)
{
	uint64_t word;
	mx_request_t r = post(ep, &word, sizeof(word), M_NEVER);
	mx_status_t st;
	uint32_t done = 0, cancelled = 0;

	mx_wait(ep, &r, LINGER_MS, &st, &done);
	CHECK(!done && mx_cancel(ep, &r, &cancelled) == MX_SUCCESS &&
			cancelled, "cancel");
}

/* Message i into ep1: every byte checked. */
static void
take(mx_endpoint_t ep, mx_request_t *r, uint8_t *buf, uint32_t i)
{
	mx_status_t st = wait_req(ep, r);

	CHECK(st.code == MX_STATUS_SUCCESS && st.xfer_length == msgs[i].len &&
			st.match_info == match_of(i),
			"message %u: %s, %u bytes", i, mx_strstatus(st.code),
			st.xfer_length);
	check_pattern(buf, msgs[i].len, i);
}

static int
node_a(void)
{
	mx_endpoint_t ep1 = open_ep(EP_A1), ep2 = open_ep(EP_A2);
	uint8_t *buf[NMSG];
	mx_request_t r[NMSG], pr;
	mx_status_t st;
	uint64_t word;

	printf("wire_traffic: a ready\n");
	fflush(stdout);
	pr = post(ep2, &word, sizeof(word), M_PARAM);
	for (uint32_t i = 0; i < NMSG; i++) {
		buf[i] = malloc(msgs[i].len + 1);
		CHECK(buf[i] != NULL, "malloc");
		if (i < NMSG - 1)
			r[i] = post(ep1, buf[i], msgs[i].len, match_of(i));
	}
	st = wait_req(ep2, &pr);	/* B's address: st.source */
	for (uint32_t i = 0; i < NMSG - 1; i++)
		take(ep1, &r[i], buf[i], i);
	/* Outside the library: B waits for its last send to be pulled,
	 * hears nothing and probes. */
	sleep_ms(SLEEP_MS);
	r[NMSG - 1] = post(ep1, buf[NMSG - 1], msgs[NMSG - 1].len,
			match_of(NMSG - 1));
	take(ep1, &r[NMSG - 1], buf[NMSG - 1], NMSG - 1);
	CHECK(mx_close_endpoint(ep1) == MX_SUCCESS, "close endpoint 1");
	send_wait(ep2, st.source, M_CLOSED);
	pr = post(ep2, &word, sizeof(word), M_BYE);
	wait_req(ep2, &pr);	/* meanwhile B's late message is refused */
	linger(ep2);
	CHECK(mx_close_endpoint(ep2) == MX_SUCCESS, "close endpoint 2");
	CHECK(mx_finalize() == MX_SUCCESS, "finalize");
	for (uint32_t i = 0; i < NMSG; i++)
		free(buf[i]);
	printf("wire_traffic: a done\n");
	return 0;
}

static mx_endpoint_addr_t
connect_to(mx_endpoint_t ep, uint64_t nic, uint32_t id)
{
	mx_endpoint_addr_t to;
	mx_return_t rc = mx_connect(ep, nic, id, FILTER, 10000, &to);

	CHECK(rc == MX_SUCCESS, "connect to endpoint %u: %s", id,
			mx_strerror(rc));
	return to;
}

static int
node_b(void)
{
	mx_endpoint_t ep = open_ep(EP_B);
	mx_endpoint_addr_t to1, to2;
	uint8_t *buf[NMSG];
	mx_request_t r[NMSG];
	mx_status_t st;
	uint64_t nic, word;
	mx_return_t rc;

	rc = mx_hostname_to_nic_id((char *)"nodeA:0", &nic);
	CHECK(rc == MX_SUCCESS, "resolve nodeA:0: %s", mx_strerror(rc));
	to1 = connect_to(ep, nic, EP_A1);
	to2 = connect_to(ep, nic, EP_A2);
	send_wait(ep, to2, M_PARAM);
	for (uint32_t i = 0; i < NMSG; i++) {
		printf("message %u len %u match 0x%016" PRIx64 " sync %d\n", i,
				msgs[i].len, match_of(i), msgs[i].sync);
		buf[i] = malloc(msgs[i].len + 1);
		CHECK(buf[i] != NULL, "malloc");
		pattern(buf[i], msgs[i].len, i);
		r[i] = send_msg(ep, to1, buf[i], msgs[i].len, match_of(i),
				msgs[i].sync);
	}
	for (uint32_t i = 0; i < NMSG; i++) {
		st = wait_req(ep, &r[i]);
		CHECK(st.code == MX_STATUS_SUCCESS, "message %u: %s", i,
				mx_strstatus(st.code));
		free(buf[i]);
	}
	r[0] = post(ep, &word, sizeof(word), M_CLOSED);
	wait_req(ep, &r[0]);
	word = M_LATE;
	r[0] = send_msg(ep, to1, &word, sizeof(word), M_LATE, 0);
	st = wait_req(ep, &r[0]);
	CHECK(st.code == MX_STATUS_SUCCESS, "late message: %s",
			mx_strstatus(st.code));
	/* Its refusal comes later: a send after it fails with it. */
	for (int i = 0; i < 500 && st.code == MX_STATUS_SUCCESS; i++) {
		mx_status_t none;
		uint32_t found;

		mx_probe(ep, 10, M_NEVER, MX_MATCH_MASK_NONE, &none, &found);
		r[0] = send_msg(ep, to1, &word, sizeof(word), M_NEVER, 0);
		st = wait_req(ep, &r[0]);
	}
	CHECK(st.code == MX_STATUS_ENDPOINT_CLOSED,
			"message to a closed endpoint: %s",
			mx_strstatus(st.code));
	send_wait(ep, to2, M_BYE);
	CHECK(mx_close_endpoint(ep) == MX_SUCCESS, "close");
	CHECK(mx_finalize() == MX_SUCCESS, "finalize");
	printf("wire_traffic: b done\n");
	return 0;
}

int
main(int argc, char **argv)
{
	mx_return_t rc;

	if (argc != 2 || (strcmp(argv[1], "a") && strcmp(argv[1], "b"))) {
		fprintf(stderr, "usage: wire_traffic a|b (MX_DPDK_ARGS, "
				"MX_HOSTNAME nodeA / nodeB)\n");
		return 2;
	}
	role = argv[1];
	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	CHECK(rc == MX_SUCCESS, "mx_init: %s", mx_strerror(rc));
	return role[0] == 'a' ? node_a() : node_b();
}
