/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One receiver, two sender processes, the receiver's threads in
 * mx_wait_any, as Open-MX's test of mx_wait_any with threads runs: the
 * program forks two senders before it starts MX, then opens its
 * endpoint, posts a receive for every message the senders will send, and
 * lets THREADS threads take the completions with mx_wait_any until all
 * have come.  Every message's length and bytes are checked.  The senders
 * open endpoints 2 and 3 of their board (a shared board's ids are the
 * board's: an id a sender took would be the receiver's no more), connect
 * to the receiver's (its board named "<MX_HOSTNAME>:0", endpoint 1) and
 * send MSGS messages each, of lengths from empty to rendezvous.
 *
 *   wait_any [-n MSGS] [-t THREADS] [-s SENDERS_HOST]
 *
 * With MX_BOARD_SHARED=1 the three processes share the board of their
 * host; -s runs the senders as processes of another host's board (its
 * MX_HOSTNAME).  Exit 0 when every message came whole.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>

#define FILTER		0x0a11
#define RECV_EP		1
#define MAXLEN		200000

static const uint32_t lens[] = { 0, 100, 20000, MAXLEN };
#define NLENS (sizeof(lens) / sizeof(lens[0]))

static int msgs = 100, threads = 2;
static mx_endpoint_t ep;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int left, bad;
static char recv_host[64];

struct slot {
	int sender, k;
	uint8_t *buf;
};

static uint8_t
pat(int sender, int k, uint32_t off)
{
	return (uint8_t)(sender * 31 + k * 7 + off * 13 + (off >> 8));
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- a sender ------------------------------------------------------------ */

static int
sender(int id, const char *host)
{
	mx_endpoint_addr_t to;
	mx_endpoint_t sep;
	uint64_t nic = 0;
	char name[80];
	uint8_t *buf = malloc(MAXLEN);
	mx_return_t rc;
	double end = now_s() + 30;

	if (host != NULL)
		setenv("MX_HOSTNAME", host, 1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	/* Endpoint ids are the board's, whichever process opens them: the
	 * senders leave the receiver's to it. */
	if (buf == NULL || mx_init() != MX_SUCCESS ||
			mx_open_endpoint(0, (uint32_t)(RECV_EP + 1 + id), FILTER,
				NULL, 0, &sep) != MX_SUCCESS)
		return 1;
	snprintf(name, sizeof(name), "%s:0", recv_host);
	do {
		rc = mx_hostname_to_nic_id(name, &nic);
		if (rc == MX_SUCCESS)
			rc = mx_connect(sep, nic, RECV_EP, FILTER, 1000, &to);
		if (rc != MX_SUCCESS)
			usleep(100000);
	} while (rc != MX_SUCCESS && now_s() < end);
	if (rc != MX_SUCCESS) {
		fprintf(stderr, "sender %d: connect: %s\n", id, mx_strerror(rc));
		return 1;
	}
	for (int k = 0; k < msgs; k++) {
		uint32_t len = lens[k % NLENS], done = 0;
		mx_segment_t s = { buf, len };
		mx_request_t r;
		mx_status_t st;

		for (uint32_t o = 0; o < len; o++)
			buf[o] = pat(id, k, o);
		if (mx_isend(sep, &s, 1, to, (uint64_t)(id + 1) << 32 |
					(uint32_t)k, NULL, &r) != MX_SUCCESS ||
				mx_wait(sep, &r, 30000, &st, &done) !=
				MX_SUCCESS || !done ||
				st.code != MX_STATUS_SUCCESS) {
			fprintf(stderr, "sender %d: message %d: %s\n", id, k,
					done ? mx_strstatus(st.code) : "timeout");
			return 1;
		}
	}
	mx_close_endpoint(sep);
	mx_finalize();
	free(buf);
	return 0;
}

/* ---- the receiver -------------------------------------------------------- */

static void
check(const mx_status_t *st)
{
	const struct slot *sl = st->context;
	uint32_t len = lens[sl->k % NLENS];
	int ok = st->code == MX_STATUS_SUCCESS && st->xfer_length == len;

	for (uint32_t o = 0; ok && o < len; o++)
		ok = sl->buf[o] == pat(sl->sender, sl->k, o);
	pthread_mutex_lock(&lock);
	left--;
	if (!ok) {
		bad++;
		fprintf(stderr, "receiver: message %d of sender %d: %s, %u "
				"bytes\n", sl->k, sl->sender,
				mx_strstatus(st->code), st->xfer_length);
	}
	pthread_mutex_unlock(&lock);
}

static void *
waiter(void *arg)
{
	double end = now_s() + 60;

	(void)arg;
	for (;;) {
		mx_status_t st;
		uint32_t result = 0;
		int more;

		pthread_mutex_lock(&lock);
		more = left > 0;
		pthread_mutex_unlock(&lock);
		if (!more || now_s() > end)
			return NULL;
		if (mx_wait_any(ep, 100, 0, 0, &st, &result) == MX_SUCCESS &&
				result)
			check(&st);
	}
}

static int
receiver(void)
{
	struct slot *sl = calloc(2 * (size_t)msgs, sizeof(*sl));
	pthread_t th[16];

	mx_set_error_handler(MX_ERRORS_RETURN);
	if (sl == NULL || mx_init() != MX_SUCCESS ||
			mx_open_endpoint(0, RECV_EP, FILTER, NULL, 0, &ep) !=
			MX_SUCCESS) {
		fprintf(stderr, "receiver: cannot open endpoint %d\n", RECV_EP);
		return 1;
	}
	left = 2 * msgs;
	for (int i = 0; i < 2 * msgs; i++) {
		mx_segment_t s;
		mx_request_t r;

		sl[i].sender = i / msgs;
		sl[i].k = i % msgs;
		sl[i].buf = malloc(MAXLEN);
		s.segment_ptr = sl[i].buf;
		s.segment_length = MAXLEN;
		if (sl[i].buf == NULL || mx_irecv(ep, &s, 1,
					(uint64_t)(sl[i].sender + 1) << 32 |
					(uint32_t)sl[i].k, MX_MATCH_MASK_NONE,
					&sl[i], &r) != MX_SUCCESS)
			return 1;
	}
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, waiter, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("receiver: %d messages of 2 senders, %d threads in "
			"mx_wait_any: %d missing, %d wrong\n", 2 * msgs, threads,
			left, bad);
	mx_close_endpoint(ep);
	mx_finalize();
	for (int i = 0; i < 2 * msgs; i++)
		free(sl[i].buf);
	free(sl);
	return left == 0 && bad == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const char *senders_host = NULL, *h = getenv("MX_HOSTNAME");
	pid_t kid[2];
	int c, rc, st;

	while ((c = getopt(argc, argv, "n:t:s:")) != -1) {
		switch (c) {
		case 'n': msgs = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 's': senders_host = optarg; break;
		default:
			fprintf(stderr, "usage: wait_any [-n MSGS] [-t THREADS] "
					"[-s SENDERS_HOST]\n");
			return 2;
		}
	}
	if (msgs < 1 || threads < 1 || threads > 16)
		return 2;
	if (h == NULL || *h == '\0')
		gethostname(recv_host, sizeof(recv_host));
	else
		snprintf(recv_host, sizeof(recv_host), "%s", h);
	for (int i = 0; i < 2; i++) {
		kid[i] = fork();
		if (kid[i] == 0)
			_exit(sender(i, senders_host));
	}
	rc = receiver();
	for (int i = 0; i < 2; i++) {
		if (waitpid(kid[i], &st, 0) < 0 || !WIFEXITED(st) ||
				WEXITSTATUS(st) != 0) {
			fprintf(stderr, "wait_any: sender %d failed\n", i);
			rc = 1;
		}
	}
	return rc;
}
