/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One of the processes of an exchange over shared boards (board_shared.sh
 * runs them): every process sends every other (of the other host, and of
 * its own with -l) messages of every size class each round and receives
 * theirs, every byte checked.
 *
 *   board_shared -r RANK -n NPROCS -p PER_HOST [-R rounds] [-l] [-N]
 *                [-d DEADLY] [-s] [-o]
 *
 * Rank r runs on host "<MXT_HOSTS's r / PER_HOST-th name>" (MXT_HOSTS:
 * "nodeA,nodeB"), endpoint (1 + r % PER_HOST) % 32 of its board 0, and
 * must be started with that MX_HOSTNAME and MX_BOARD_SHARED=1.  Ranks of
 * the same host talk only with -l (the same-host path).
 *
 * -N: only with its neighbours: the ranks next to it on its host (with
 *    -l) and the one in its place on the other host (many processes).
 *
 * -d DEADLY: those ranks (a comma list) may die: a request to or from one
 *    may fail with MX_STATUS_ENDPOINT_UNREACHABLE or _CLOSED (the
 *    documented statuses), after which the rank is left alone; each
 *    such failure is printed with the time since the first.
 * -s: this rank's board service may die: then every request fails with
 *    MX_STATUS_ENDPOINT_UNREACHABLE, and the rank exits 3 once it saw it.
 * -o: one round with the deadly ranks only (a process that opened a
 *    killed process's endpoint again), rounds to the others skipped.
 *
 * It prints "rank R: round K" as rounds end (board_shared.sh kills on
 * them) and a summary; exit 0 when everything that had to pass did.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>
#include <mx_extensions.h>

#define MAXP		64
#define EP_OF(r)	((uint32_t)(1 + (r) % t.per) % 32)	/* MX's 32 ids */
#define FILTER		0x5ead
#define WAIT_MS		60000	/* a round, at the most */
#define CONNECT_MS	30000

static const uint32_t sizes[] = {
	0, 7, 1000,		/* small: one frame */
	9000, 32000,		/* medium: eager, several frames */
	70000, 1u << 20,	/* large: rendezvous, pulled in blocks */
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static struct {
	int rank, n, per, rounds, local, service_may_die, once, near;
	uint64_t deadly;		/* bit per rank */
	uint64_t dead;			/* ranks found gone */
	char host[2][64];
	mx_endpoint_t ep;
	mx_endpoint_addr_t addr[MAXP];
	uint8_t *sbuf[MAXP][NSIZES], *rbuf[MAXP][NSIZES];
	uint64_t nic[2];
	mx_request_t probe[MAXP];
	uint64_t msgs, bytes;
	double first_fail;
} t;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
die(const char *what, mx_return_t rc)
{
	fprintf(stderr, "rank %d: %s: %s\n", t.rank, what, mx_strerror(rc));
	exit(1);
}

static uint8_t
pat(int src, int dst, int round, unsigned i, uint32_t off)
{
	uint32_t x = (uint32_t)src * 2654435761u ^ (uint32_t)dst * 40503u ^
		(uint32_t)round * 97u ^ i * 131u ^ off * 2246822519u;

	return (uint8_t)(x ^ x >> 13 ^ x >> 24);
}

static uint64_t
match_of(int src, int dst, int round, unsigned i)
{
	return (uint64_t)src << 56 | (uint64_t)dst << 48 |
		(uint64_t)(round & 0xffffff) << 8 | i;
}

static int
host_of(int r)
{
	return r / t.per;
}

/* Whether this rank exchanges with rank q. */
static int
talks(int q)
{
	if (q == t.rank || (t.dead & (1ull << q)))
		return 0;
	if (t.once && !(t.deadly & (1ull << q)))
		return 0;
	if (t.near) {
		int d = (q - t.rank + t.n) % t.per;

		if (host_of(q) != host_of(t.rank))
			return d == 0;
		if (d != 1 && d != t.per - 1)
			return 0;
	}
	return t.local || host_of(q) != host_of(t.rank);
}

static void
setup(void)
{
	mx_return_t rc;
	uint64_t *nic = t.nic;

	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	if (rc != MX_SUCCESS)
		die("mx_init", rc);
	rc = mx_open_endpoint(0, EP_OF(t.rank), FILTER, NULL,
			0, &t.ep);
	if (rc != MX_SUCCESS)
		die("mx_open_endpoint", rc);
	for (int h = 0; h < 2; h++) {
		char name[80];

		snprintf(name, sizeof(name), "%s:0", t.host[h]);
		for (double end = now_s() + 20;;) {
			rc = mx_hostname_to_nic_id(name, &nic[h]);
			if (rc == MX_SUCCESS || now_s() > end)
				break;
		}
		if (rc != MX_SUCCESS)
			die(name, rc);
	}
	for (int q = 0; q < t.n; q++) {
		double end = now_s() + CONNECT_MS / 1000.0;

		if (!talks(q))
			continue;
		do {
			rc = mx_connect(t.ep, nic[host_of(q)],
					EP_OF(q), FILTER, 2000,
					&t.addr[q]);
			if (rc != MX_SUCCESS)
				usleep(100000);
		} while (rc != MX_SUCCESS && now_s() < end);
		if (rc != MX_SUCCESS)
			die("mx_connect", rc);
	}
}

/* A request to or from q failed with code: fatal unless q may die (or
 * our own service, with -s). */
static void
failed(int q, mx_status_code_t code, const char *what)
{
	if (t.first_fail == 0)
		t.first_fail = now_s();
	/* Our service killed: a request fails for it, or for a process
	 * of this host that left as we will (unreachable, or its endpoint
	 * closed). */
	if (t.service_may_die && (code == MX_STATUS_ENDPOINT_UNREACHABLE ||
				code == MX_STATUS_ENDPOINT_CLOSED) &&
			!(t.deadly & (1ull << q))) {
		printf("rank %d: board service gone: %s rank %d: %s\n",
				t.rank, what, q, mx_strstatus(code));
		fflush(stdout);
		/* A partner of this host may have failed first (its process
		 * left through the same-host path): the library's own word
		 * on the service comes within its watch's period (200 ms). */
		for (double end = now_s() + 2; now_s() < end;) {
			mx_status_t st;
			uint32_t result;

			mx_iprobe(t.ep, 0, 0, &st, &result);
			usleep(10000);
		}
		exit(3);
	}
	/* A connect that no one answered (a board whose service died)
	 * times out, as mx_iconnect documents. */
	if (!(t.deadly & (1ull << q)) ||
			(code != MX_STATUS_ENDPOINT_UNREACHABLE &&
			 code != MX_STATUS_ENDPOINT_CLOSED &&
			 !(code == MX_STATUS_TIMEOUT &&
			   strcmp(what, "connect to") == 0))) {
		fprintf(stderr, "rank %d: %s rank %d failed: %s\n", t.rank,
				what, q, mx_strstatus(code));
		exit(1);
	}
	if (!(t.dead & (1ull << q)))
		printf("rank %d: rank %d gone (%s, %s), %.2f s after the "
				"first failure\n", t.rank, q, what,
				mx_strstatus(code), now_s() - t.first_fail);
	t.dead |= 1ull << q;
}

static void
check_recv(int q, int round, unsigned i, const mx_status_t *st)
{
	const uint8_t *b = t.rbuf[q][i];

	if (st->msg_length != sizes[i] || st->xfer_length != sizes[i]) {
		fprintf(stderr, "rank %d: from rank %d size %u: length %u\n",
				t.rank, q, sizes[i], st->xfer_length);
		exit(1);
	}
	for (uint32_t o = 0; o < sizes[i]; o++)
		if (b[o] != pat(q, t.rank, round, i, o)) {
			fprintf(stderr, "rank %d: from rank %d round %d size "
					"%u: byte %u wrong\n", t.rank, q, round,
					sizes[i], o);
			exit(1);
		}
	t.msgs++;
	t.bytes += sizes[i];
}

struct pending {
	mx_request_t r;
	int q, recv;
	unsigned i;
};

/*
 * A round that waits only for receives from ranks that may be dead: a
 * message the dead sent before it died has come, one it did not send
 * never will, and a receive fails for no sender.  A connect request
 * asks each such rank's board: a dead rank's endpoint is closed there.
 */
static void
probe(const struct pending *p, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		int q = p[k].q;

		if (p[k].r == NULL || !(t.deadly & (1ull << q)) ||
				t.probe[q] != NULL)
			continue;
		mx_iconnect(t.ep, t.nic[host_of(q)], EP_OF(q),
				FILTER, 0, &t.probe[q], &t.probe[q]);
	}
}

/* A probe's answer (taken by mx_wait_any: its context is the rank's
 * entry of t.probe). */
static int
probe_done(const mx_status_t *st)
{
	mx_request_t *pr = st->context;
	int q;

	if (pr < t.probe || pr >= t.probe + MAXP)
		return 0;
	q = (int)(pr - t.probe);
	t.probe[q] = NULL;
	if (st->code != MX_STATUS_SUCCESS)
		failed(q, st->code, "connect to");
	return 1;
}

/* Whether every request left is a receive from a rank that may die. */
static int
only_deadly(const struct pending *p, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		if (p[k].r != NULL && (!p[k].recv ||
					!(t.deadly & (1ull << p[k].q))))
			return 0;
	return 1;
}

/* Waits for every request of a round (each completion taken by
 * mx_wait_any: the process sleeps while nothing comes); the dead ranks'
 * receives are cancelled once they are found dead. */
static void
round_wait(struct pending *p, unsigned n, int round)
{
	double end = now_s() + WAIT_MS / 1000.0, moved = now_s();
	unsigned left = n;

	while (left > 0) {
		mx_status_t st;
		uint32_t done = 0;
		struct pending *k;

		for (unsigned j = 0; j < n; j++) {
			uint32_t ok = 0;

			if (p[j].r == NULL || !p[j].recv ||
					!(t.dead & (1ull << p[j].q)))
				continue;
			mx_cancel(t.ep, &p[j].r, &ok);
			if (ok) {
				p[j].r = NULL;
				left--;
			}
		}
		if (left == 0)
			break;
		if (now_s() - moved > 1.0 && only_deadly(p, n))
			probe(p, n);
		if (now_s() > end) {
			fprintf(stderr, "rank %d: round %d: %u requests not "
					"done after %d s\n", t.rank, round, left,
					WAIT_MS / 1000);
			exit(1);
		}
		if (mx_wait_any(t.ep, 100, 0, 0, &st, &done) != MX_SUCCESS ||
				!done || st.context == NULL)
			continue;
		if (probe_done(&st))
			continue;
		k = st.context;
		if (k < p || k >= p + n || k->r == NULL)
			continue;
		k->r = NULL;
		left--;
		moved = now_s();
		if (st.code != MX_STATUS_SUCCESS)
			failed(k->q, st.code, k->recv ? "receive from" :
					"send to");
		else if (k->recv)
			check_recv(k->q, round, k->i, &st);
	}
}

static void
one_round(int round)
{
	struct pending p[2 * MAXP * NSIZES];
	unsigned n = 0;

	for (int q = 0; q < t.n; q++)
		for (unsigned i = 0; talks(q) && i < NSIZES; i++) {
			mx_segment_t s = { t.rbuf[q][i], sizes[i] };

			if (mx_irecv(t.ep, &s, 1, match_of(q, t.rank, round, i),
						MX_MATCH_MASK_NONE, &p[n],
						&p[n].r) != MX_SUCCESS)
				die("mx_irecv", MX_BAD_PARAM_VAL);
			p[n].q = q;
			p[n].recv = 1;
			p[n++].i = i;
		}
	for (int q = 0; q < t.n; q++)
		for (unsigned i = 0; talks(q) && i < NSIZES; i++) {
			mx_segment_t s = { t.sbuf[q][i], sizes[i] };

			for (uint32_t o = 0; o < sizes[i]; o++)
				t.sbuf[q][i][o] = pat(t.rank, q, round, i, o);
			if (mx_isend(t.ep, &s, 1, t.addr[q], match_of(t.rank, q,
						round, i), &p[n], &p[n].r) !=
					MX_SUCCESS)
				die("mx_isend", MX_BAD_PARAM_VAL);
			p[n].q = q;
			p[n].recv = 0;
			p[n++].i = i;
		}
	round_wait(p, n, round);
	printf("rank %d: round %d\n", t.rank, round);
	fflush(stdout);
}

static void
args(int argc, char **argv)
{
	const char *hosts = getenv("MXT_HOSTS");
	int c;

	t.rounds = 4;
	while ((c = getopt(argc, argv, "r:n:p:R:lNd:so")) != -1) {
		switch (c) {
		case 'r': t.rank = atoi(optarg); break;
		case 'n': t.n = atoi(optarg); break;
		case 'p': t.per = atoi(optarg); break;
		case 'R': t.rounds = atoi(optarg); break;
		case 'l': t.local = 1; break;
		case 'N': t.near = 1; break;
		case 's': t.service_may_die = 1; break;
		case 'o': t.once = 1; break;
		case 'd':
			for (char *s = optarg; *s; s += *s == ',')
				t.deadly |= 1ull << strtoul(s, &s, 10);
			break;
		default:
			fprintf(stderr, "usage: board_shared -r RANK -n NPROCS "
					"-p PER_HOST [-R rounds] [-l] [-N] [-d DEADLY] "
					"[-s] [-o]\n");
			exit(2);
		}
	}
	if (hosts == NULL || sscanf(hosts, "%63[^,],%63s", t.host[0],
				t.host[1]) != 2 || t.n < 2 || t.n > MAXP ||
			t.per < 1 || t.rank < 0 || t.rank >= t.n) {
		fprintf(stderr, "board_shared: -r, -n, -p and MXT_HOSTS="
				"\"hostA,hostB\" are needed\n");
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	args(argc, argv);
	for (int q = 0; q < t.n; q++)
		for (unsigned i = 0; talks(q) && i < NSIZES; i++) {
			t.sbuf[q][i] = malloc(sizes[i] + 1);
			t.rbuf[q][i] = malloc(sizes[i] + 1);
			if (t.sbuf[q][i] == NULL || t.rbuf[q][i] == NULL)
				return 1;
		}
	setup();
	printf("rank %d: connected\n", t.rank);
	fflush(stdout);
	for (int k = 0; k < (t.once ? 1 : t.rounds); k++)
		one_round(k);
	printf("rank %d: ok: %" PRIu64 " messages, %" PRIu64 " bytes checked, "
			"gone: 0x%" PRIx64 "\n", t.rank, t.msgs, t.bytes, t.dead);
	fflush(stdout);
	mx_close_endpoint(t.ep);
	mx_finalize();
	return 0;
}
