/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_pingpong: half round-trip latency between two endpoints, with the
 * options of Myricom's tool of the same name (mx_pingpong(1)).
 *
 *   receiver:  mx_pingpong [-b board | -n nic_id] [-e local_ep] [-s] [-w]
 *   sender:    mx_pingpong -d host:board [-r remote_ep] [-e local_ep]
 *                          [-S start] [-E end] [-I inc | -M mult | -L file]
 *                          [-N iterations] [-W warmup] [-V] [-w] [--csv]
 *                          [--posted=N] [--unexpected=N]
 *
 * The receiver is an echo server: it sends every message back as it came,
 * whatever its length, until the sender says stop; with -s it then waits
 * for the next sender, until killed.  The sender's first message gives its
 * address, the largest length, and a run id that is part of the match
 * information of every message of the run: a message left behind by an
 * earlier sender that died never matches a later one's receives.
 *
 * For each length the sender runs -W untimed iterations, then exactly -N
 * timed ones; the time of each is kept in an array allocated before the
 * first, for the mean, median and 99th percentile.  With -V the receiver
 * checks every byte it gets and the sender every byte it gets back.
 *
 * Matching at depth (--posted, --unexpected, applied by both sides): N
 * receives that no message matches are posted before the first round trip
 * and cancelled after the last, and N messages that no receive takes are
 * sent to the peer before the first round trip, so that they wait in its
 * unexpected queue while the lengths run, and are received at the end.
 */
#include <endian.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>
#include <mx_extensions.h>

#include "tool.h"

/*
 * Match information of the messages of a run:
 *
 *  63          48 47          32 31 30                            0
 * +--------------+--------------+--+-------------------------------+
 * |     kind     |    run id    |S |           sequence            |
 * +--------------+--------------+--+-------------------------------+
 *
 * S marks the sender's last message (stop).  The receiver's receives
 * compare kind and run id only, and learn S and the sequence from the
 * status; the sender's receive of an echo compares everything.
 */
#define KIND_PARAM	0x1111ull
#define KIND_DATA	0x2222ull
#define KIND_ECHO	0x2223ull
#define KIND_JUNK_RECV	0x3333ull	/* --posted: receives of nothing */
#define KIND_JUNK_MSG	0x3334ull	/* --unexpected: messages for nobody */
#define STOP_BIT	(1ull << 31)
#define SEQ_MASK	(STOP_BIT - 1)
#define RUN_MASK	0xffffffff00000000ull

#define DFLT_END	65536
#define DFLT_ITERS	1000
#define DFLT_WARMUP	10	/* as Myricom's tool */
#define DFLT_FILTER	0x12345
#define JUNK_MAX	1000000	/* --posted, --unexpected */
#define JUNK_WINDOW	64	/* --unexpected: sends outstanding */

static inline uint64_t
match(uint64_t kind, uint32_t run, uint64_t low)
{
	return kind << 48 | (uint64_t)(run & 0xffff) << 32 | low;
}

/* The sender's first message, in network byte order. */
struct params {
	uint64_t nic_id;	/* sender's board */
	uint32_t endpoint_id;	/* sender's endpoint */
	uint32_t run;		/* run id (16 bits used) */
	uint32_t max_len;	/* largest message of the run */
	uint32_t verify;	/* receiver checks every byte */
	uint32_t blocking;	/* receiver blocks as the sender does */
	uint32_t posted;	/* --posted: receives posted on each side */
	uint32_t unexp;		/* --unexpected: messages queued each side */
	uint32_t pad;
};

struct opts {
	uint32_t board, local_ep, remote_ep, filter;
	uint32_t iters, warmup, verify, blocking, server, csv;
	uint32_t posted, unexp;	/* --posted, --unexpected */
	double progress;	/* first progress line after (s); < 0: none */
	uint64_t nic_id;
	int have_nic;
	const char *dest;
	struct tool_len_opts len;
};

/* One run's state; the buffers and the sample array are allocated once. */
struct run {
	mx_endpoint_t ep;
	mx_endpoint_addr_t peer;
	const struct opts *o;
	uint32_t id, seq, verify, blocking, max_len;
	int connected;		/* peer is an address to forget (-s) */
	const uint64_t *next;	/* -s: a new sender's first message */
	uint32_t posted, unexp;	/* this run's --posted, --unexpected */
	mx_request_t *junk;	/* the --posted receives */
	/* The sender's: buf[0] is sent, buf[1] and buf[2] take the echoes of
	 * even and odd round trips.  The receiver's: buf[0] and buf[1] take
	 * messages, each echoed from where it came. */
	uint8_t *buf[3];
	mx_request_t next_echo;	/* sender: the next round trip's receive */
	double *lat;
	struct tool_progress prog;
};

static void
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: mx_pingpong [-b board | -n nic_id] [-e local_ep] "
		"[-f filter] [-s] [-w]\n"
		"       mx_pingpong -d host:board [-r remote_ep] [-e local_ep] "
		"[-f filter]\n"
		"                   [-S start] [-E end] [-I inc | -M mult | "
		"-L file]\n"
		"                   [-N iterations] [-W warmup] [-V] [-w] "
		"[--csv]\n"
		"                   [--progress=S | --no-progress] "
		"[--posted=N] [--unexpected=N]\n"
		"Without -d: the receiver, which echoes one sender's messages "
		"(-s: senders\none after another, until killed).\n"
		"  -b board      local board number [0]\n"
		"  -n nic_id     local board by NIC id (hexadecimal)\n"
		"  -e local_ep   local endpoint id [0]\n"
		"  -f filter     endpoint filter (key) [0x%x]\n"
		"  -s            persistent receiver: serve the next sender "
		"after each one\n"
		"  -d host:board the receiver's board name (makes this the "
		"sender)\n"
		"  -r remote_ep  the receiver's endpoint id [0]\n"
		"  -S start      first length [0]\n"
		"  -E end        last length, included [%u]\n"
		"  -I inc        lengths go up by inc\n"
		"  -M mult       lengths are multiplied by mult (default 2: "
		"0, 1, 2, 4, ...)\n"
		"  -L file       the lengths, one a line (overrides -S, -E, "
		"-I, -M)\n"
		"  -N iterations timed round trips per length [%u]\n"
		"  -W warmup     untimed round trips before them [%u]\n"
		"  -V            check every byte, both ways\n"
		"  -w            block in mx_wait rather than poll mx_test "
		"(both sides)\n"
		"  --csv         print CSV rather than a table\n"
		"  --progress=S  a progress line on stderr once a run lasts S "
		"seconds [3]\n"
		"  --no-progress no progress line\n"
		"  --posted=N    N receives that match nothing posted on "
		"each side [0]\n"
		"  --unexpected=N N messages that no receive takes queued "
		"on each side [0]\n"
		"  -h, --help    this text\n",
		DFLT_FILTER, DFLT_END, DFLT_ITERS, DFLT_WARMUP);
	exit(rc);
}

/* --posted=N, --unexpected=N: a number up to JUNK_MAX, or exit 2. */
static uint32_t
junk_arg(const char *arg, const char *name)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (end == arg || *end != '\0' || arg[0] == '-' || v > JUNK_MAX) {
		fprintf(stderr, "mx_pingpong: --%s wants a number from 0 to "
				"%u, not '%s'\n", name, JUNK_MAX, arg);
		exit(2);
	}
	return (uint32_t)v;
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "csv", no_argument, NULL, 'C' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "progress", required_argument, NULL, 'T' },
		{ "posted", required_argument, NULL, 'D' },
		{ "unexpected", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->filter = DFLT_FILTER;
	o->progress = TOOL_PROGRESS_AFTER_S;
	o->iters = DFLT_ITERS;
	o->warmup = DFLT_WARMUP;
	o->len.end = DFLT_END;
	o->len.mult = 2.0;
	while ((c = getopt_long(argc, argv, "b:n:e:r:d:f:S:E:I:M:L:N:W:Vwsh",
				longs, NULL)) != -1) {
		if (tool_len_opt(&o->len, c, optarg))
			continue;
		switch (c) {
		case 'b': o->board = tool_u32(optarg, 'b'); break;
		case 'n':
			o->nic_id = tool_hex64(optarg, 'n');
			o->have_nic = 1;
			break;
		case 'e': o->local_ep = tool_u32(optarg, 'e'); break;
		case 'r': o->remote_ep = tool_u32(optarg, 'r'); break;
		case 'd': o->dest = optarg; break;
		case 'f': o->filter = tool_u32(optarg, 'f'); break;
		case 'N': o->iters = tool_u32(optarg, 'N'); break;
		case 'W': o->warmup = tool_u32(optarg, 'W'); break;
		case 'V': o->verify = 1; break;
		case 'w': o->blocking = 1; break;
		case 's': o->server = 1; break;
		case 'C': o->csv = 1; break;
		case 'P': o->progress = -1; break;
		case 'T': o->progress = tool_progress_arg(optarg); break;
		case 'D': o->posted = junk_arg(optarg, "posted"); break;
		case 'U': o->unexp = junk_arg(optarg, "unexpected"); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || o->iters == 0 || (o->server && o->dest))
		usage(2);
}

static void
fill(uint8_t *buf, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static int
check(const uint8_t *buf, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(seed * 31 + i * 7 + (i >> 8))) {
			fprintf(stderr, "mx_pingpong: byte %u of a %u-byte "
					"message is wrong\n", i, len);
			return -1;
		}
	return 0;
}

static int
complete(struct run *r, mx_request_t *req, mx_status_t *st)
{
	return tool_must_complete(r->ep, req, r->blocking, r->next, st);
}

/*
 * Lets go of a request a failed sender left pending (-s serves the next
 * one on the same endpoint): a receive is cancelled, and whatever cannot be
 * is left to the library to release when it ends.
 */
static void
abandon(struct run *r, mx_request_t *req, int recv)
{
	uint32_t gone = 0;

	if (recv)
		mx_cancel(r->ep, req, &gone);
	if (!gone)
		mx_forget(r->ep, req);
}

static int
post_recv(struct run *r, void *buf, uint32_t len, uint64_t m, uint64_t mask,
		mx_request_t *req)
{
	mx_segment_t seg = { buf, len };
	mx_return_t rc = mx_irecv(r->ep, &seg, 1, m, mask, NULL, req);

	if (rc != MX_SUCCESS)
		fprintf(stderr, "mx_pingpong: mx_irecv: %s\n", mx_strerror(rc));
	return rc == MX_SUCCESS ? 0 : -1;
}

static int
post_send(struct run *r, void *buf, uint32_t len, uint64_t m,
		mx_request_t *req)
{
	mx_segment_t seg = { buf, len };
	mx_return_t rc = mx_isend(r->ep, &seg, 1, r->peer, m, NULL, req);

	if (rc != MX_SUCCESS)
		fprintf(stderr, "mx_pingpong: mx_isend: %s\n", mx_strerror(rc));
	return rc == MX_SUCCESS ? 0 : -1;
}

/* ---- matching at depth (--posted, --unexpected) ---------------------- */

static uint8_t junk_buf[8];

/* Posts the receives that match nothing, and sends the peer the messages
 * that nothing takes (at most JUNK_WINDOW outstanding). */
static int
junk_start(struct run *r)
{
	mx_request_t out[JUNK_WINDOW];
	mx_status_t st;
	uint32_t i;

	if (r->posted != 0) {
		r->junk = calloc(r->posted, sizeof(*r->junk));
		if (r->junk == NULL)
			tool_die("memory for --posted", MX_NO_RESOURCES);
	}
	for (i = 0; i < r->posted; i++)
		if (post_recv(r, junk_buf, sizeof(junk_buf),
				match(KIND_JUNK_RECV, r->id, i),
				MX_MATCH_MASK_NONE, &r->junk[i]) < 0)
			return -1;
	for (i = 0; i < r->unexp; i++)
		if ((i >= JUNK_WINDOW &&
				complete(r, &out[i % JUNK_WINDOW], &st) < 0) ||
				post_send(r, junk_buf, sizeof(junk_buf),
					match(KIND_JUNK_MSG, r->id, i),
					&out[i % JUNK_WINDOW]) < 0)
			break;
	if (i == r->unexp)	/* all sent: the last window completes */
		for (i = r->unexp > JUNK_WINDOW ? r->unexp - JUNK_WINDOW : 0;
				i < r->unexp; i++)
			if (complete(r, &out[i % JUNK_WINDOW], &st) < 0)
				break;
	if (i == r->unexp)
		return 0;
	for (uint32_t j = 0; j < JUNK_WINDOW && j < r->unexp; j++)
		if (out[j] != NULL)	/* failed: let go of the others */
			mx_forget(r->ep, &out[j]);
	return -1;
}

/*
 * Cancels the receives (none may have matched) and, after a run that went
 * well, receives the peer's messages: every one of them must be there.
 */
static int
junk_end(struct run *r, int ok)
{
	mx_status_t st;
	mx_request_t req;
	uint32_t gone, i;
	int ret = 0;

	for (i = 0; i < r->posted && r->junk != NULL; i++) {
		gone = 0;
		if (r->junk[i] != NULL)
			mx_cancel(r->ep, &r->junk[i], &gone);
		if (r->junk[i] != NULL && !gone) {
			fprintf(stderr, "mx_pingpong: a --posted receive "
					"matched a message\n");
			mx_forget(r->ep, &r->junk[i]);
			ret = -1;
		}
	}
	free(r->junk);
	r->junk = NULL;
	for (i = 0; ok && ret == 0 && i < r->unexp; i++)
		if (post_recv(r, junk_buf, sizeof(junk_buf),
				match(KIND_JUNK_MSG, r->id, i),
				MX_MATCH_MASK_NONE, &req) < 0 ||
				complete(r, &req, &st) < 0)
			ret = -1;
	return ret;
}

/* ---- sender ------------------------------------------------------------ */

/* Posts the receive of round trip seq's echo (into buf[1] or buf[2]). */
static int
post_echo(struct run *r, uint32_t seq, mx_request_t *req)
{
	return post_recv(r, r->buf[1 + (seq & 1)], r->max_len,
			match(KIND_ECHO, r->id, seq), MX_MATCH_MASK_NONE, req);
}

/*
 * One round trip of 'len' bytes: send, then wait for the same bytes back.
 * As Myricom's mx_pingpong, the receive of the next round trip's echo is
 * posted while this one's is on its way, so that no mx_irecv stands
 * between an echo's arrival and the next message (the last is cancelled
 * by stop()).  Receives take up to the longest length: the echo's own
 * length is checked.
 */
static int
ping(struct run *r, uint32_t len)
{
	uint32_t seq = r->seq++ & SEQ_MASK;
	uint8_t *sbuf = r->buf[0], *rbuf = r->buf[1 + (seq & 1)];
	mx_request_t sreq, rreq = r->next_echo;
	mx_status_t st;

	r->next_echo = NULL;
	if (r->verify)
		fill(sbuf, len, seq);
	if ((rreq == NULL && post_echo(r, seq, &rreq) < 0) ||
			post_send(r, sbuf, len, match(KIND_DATA, r->id, seq),
				&sreq) < 0 ||
			post_echo(r, (seq + 1) & SEQ_MASK, &r->next_echo) < 0 ||
			complete(r, &sreq, &st) < 0 ||
			complete(r, &rreq, &st) < 0)
		return -1;
	if (st.xfer_length != len) {
		fprintf(stderr, "mx_pingpong: %u bytes came back of %u\n",
				st.xfer_length, len);
		return -1;
	}
	if (r->verify && memcmp(rbuf, sbuf, len) != 0)
		return check(rbuf, len, seq);
	return 0;
}

/* Warm-up, then exactly o->iters timed round trips; 0 or -1. */
static int
run_length(struct run *r, uint32_t len, struct tool_stats *s)
{
	const struct opts *o = r->o;
	double prev, now;

	for (uint32_t i = 0; i < o->warmup; i++)
		if (ping(r, len) < 0)
			return -1;
	prev = tool_now_us();
	for (uint32_t i = 0; i < o->iters; i++) {
		if (ping(r, len) < 0)
			return -1;
		now = tool_now_us();
		r->lat[i] = (now - prev) / 2;
		prev = now;
		if (tool_progress_due(&r->prog, now))
			tool_progress_print(&r->prog, now, "length %u, "
					"iteration %u of %u", len, i + 1,
					o->iters);
	}
	tool_stats(r->lat, o->iters, s);
	return 0;
}

static void
print_head(const struct run *r)
{
	const struct opts *o = r->o;

	if (o->csv) {
		printf("tool,length,iterations,warmup,mean_us,median_us,"
				"p99_us,min_us,max_us,mbps\n");
		return;
	}
	printf("# mx_pingpong to %s endpoint %u: %u timed iterations per "
			"length after %u warm-up, %s%s\n", o->dest,
			o->remote_ep, o->iters, o->warmup,
			o->blocking ? "blocking (mx_wait)" :
			"polling (mx_test)",
			o->verify ? ", every byte checked" : "");
	if (o->posted || o->unexp)
		printf("# on each side: %u receives posted that match "
				"nothing, %u unexpected messages queued\n",
				o->posted, o->unexp);
	printf("%-10s %12s %12s %12s %12s\n", "length", "latency(us)",
			"median(us)", "p99(us)", "MB/s");
}

static void
print_row(const struct run *r, uint32_t len, const struct tool_stats *s)
{
	double mbps = s->mean > 0 ? len / s->mean : 0;

	if (r->o->csv)
		printf("mx_pingpong,%u,%u,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f\n",
				len, r->o->iters, r->o->warmup, s->mean,
				s->median, s->p99, s->min, s->max, mbps);
	else
		printf("%-10u %12.3f %12.3f %12.3f %12.2f\n", len, s->mean,
				s->median, s->p99, mbps);
	fflush(stdout);
}

/* Tells the receiver that the run is over (a message with S set); the
 * receive posted for an echo that will not come is cancelled. */
static int
stop(struct run *r)
{
	mx_request_t req;
	mx_status_t st;

	if (r->next_echo != NULL)
		abandon(r, &r->next_echo, 1);
	if (post_send(r, NULL, 0, match(KIND_DATA, r->id, STOP_BIT), &req) < 0)
		return -1;
	return complete(r, &req, &st);
}

static int
sweep(struct run *r, const struct tool_lengths *lens)
{
	struct tool_stats s;

	print_head(r);
	tool_progress_init(&r->prog, r->o->progress);
	for (uint32_t i = 0; i < lens->n; i++) {
		if (run_length(r, lens->len[i], &s) < 0)
			return -1;
		tool_progress_done(&r->prog);
		print_row(r, lens->len[i], &s);
	}
	return stop(r);
}

/* Connects, sends the parameters, and runs every length. */
static int
sender(struct run *r, const struct tool_lengths *lens)
{
	const struct opts *o = r->o;
	struct params p;
	mx_segment_t seg = { &p, sizeof(p) };
	mx_endpoint_addr_t self;
	mx_request_t req;
	mx_status_t st;
	uint64_t nic, my_nic;
	uint32_t my_ep;
	mx_return_t rc;
	int ret;

	rc = mx_hostname_to_nic_id((char *)(uintptr_t)o->dest, &nic);
	if (rc != MX_SUCCESS)
		tool_die(o->dest, rc);
	rc = mx_connect(r->ep, nic, o->remote_ep, o->filter, 10000, &r->peer);
	if (rc != MX_SUCCESS)
		tool_die("mx_connect", rc);
	mx_get_endpoint_addr(r->ep, &self);
	mx_decompose_endpoint_addr(self, &my_nic, &my_ep);
	memset(&p, 0, sizeof(p));
	p.nic_id = htobe64(my_nic);
	p.endpoint_id = htobe32(my_ep);
	p.run = htobe32(r->id);
	p.max_len = htobe32(lens->max);
	p.verify = htobe32(o->verify);
	p.blocking = htobe32(o->blocking);
	p.posted = htobe32(o->posted);
	p.unexp = htobe32(o->unexp);
	rc = mx_isend(r->ep, &seg, 1, r->peer, match(KIND_PARAM, 0, 0), NULL,
			&req);
	if (rc != MX_SUCCESS)
		tool_die("mx_isend", rc);
	if (complete(r, &req, &st) < 0)
		return -1;
	r->posted = o->posted;
	r->unexp = o->unexp;
	if (junk_start(r) < 0) {
		junk_end(r, 0);
		return -1;
	}
	ret = sweep(r, lens);
	if (junk_end(r, ret == 0) < 0)
		ret = -1;
	return ret;
}

/* ---- receiver ---------------------------------------------------------- */

/* Checks (-V) and sends back message 'seq' from where it came. */
static int
send_back(struct run *r, uint8_t *buf, uint32_t len, uint32_t seq)
{
	mx_request_t sreq;
	mx_status_t st;
	int rc;

	if (r->verify && check(buf, len, seq) < 0)
		return -1;
	if (post_send(r, buf, len, match(KIND_ECHO, r->id, seq), &sreq) < 0)
		return -1;
	rc = complete(r, &sreq, &st);
	if (rc == -2)
		abandon(r, &sreq, 0);
	return rc < 0 ? -1 : 0;
}

/*
 * Echoes until the stop message.  As Myricom's receiver, two receives stay
 * posted, one a buffer: a message is echoed from the buffer it came into,
 * and only then is that buffer's receive posted again, so the sender's
 * next message always finds the other one waiting and no mx_irecv stands
 * between a message's arrival and its echo.
 */
static int
echo(struct run *r)
{
	uint64_t want = match(KIND_DATA, r->id, 0);
	mx_request_t rreq[2];
	mx_status_t st;
	uint32_t cur = 0, seq, n = 0;
	int rc;

	if (post_recv(r, r->buf[0], r->max_len, want, RUN_MASK, &rreq[0]) < 0)
		return -1;
	if (post_recv(r, r->buf[1], r->max_len, want, RUN_MASK, &rreq[1]) < 0) {
		abandon(r, &rreq[0], 1);
		return -1;
	}
	for (;;) {
		rc = complete(r, &rreq[cur], &st);
		if (rc == -2)
			abandon(r, &rreq[cur], 1);
		if (rc < 0 || (st.match_info & STOP_BIT)) {
			abandon(r, &rreq[cur ^ 1], 1);
			if (rc < 0)
				return -1;
			break;
		}
		seq = (uint32_t)(st.match_info & SEQ_MASK);
		if (send_back(r, r->buf[cur], st.xfer_length, seq) < 0 ||
				post_recv(r, r->buf[cur], r->max_len, want,
					RUN_MASK, &rreq[cur]) < 0) {
			abandon(r, &rreq[cur ^ 1], 1);
			return -1;
		}
		cur ^= 1;
		n++;
	}
	printf("mx_pingpong: sender done, %u messages echoed\n", n);
	fflush(stdout);
	return 0;
}

/* Waits (without limit) for a sender's parameters and connects back. */
static int
accept_sender(struct run *r)
{
	struct params p;
	mx_segment_t seg = { &p, sizeof(p) };
	mx_request_t req;
	mx_status_t st;
	uint32_t done = 0;
	mx_return_t rc;

	rc = mx_irecv(r->ep, &seg, 1, match(KIND_PARAM, 0, 0),
			MX_MATCH_MASK_NONE, NULL, &req);
	if (rc != MX_SUCCESS)
		tool_die("mx_irecv", rc);
	rc = mx_wait(r->ep, &req, MX_INFINITE, &st, &done);
	if (rc != MX_SUCCESS || !done || st.code != MX_STATUS_SUCCESS ||
			st.xfer_length != sizeof(p)) {
		fprintf(stderr, "mx_pingpong: no valid parameters from a "
				"sender\n");
		return -1;
	}
	r->id = be32toh(p.run);
	r->max_len = be32toh(p.max_len);
	r->verify = be32toh(p.verify);
	r->blocking = r->o->blocking || be32toh(p.blocking);
	r->posted = be32toh(p.posted);
	r->unexp = be32toh(p.unexp);
	if (r->max_len > TOOL_MAX_LEN || r->posted > JUNK_MAX ||
			r->unexp > JUNK_MAX) {
		fprintf(stderr, "mx_pingpong: a sender asked for %u-byte "
				"messages\n", r->max_len);
		return -1;
	}
	rc = mx_connect(r->ep, be64toh(p.nic_id), be32toh(p.endpoint_id),
			r->o->filter, 10000, &r->peer);
	if (rc != MX_SUCCESS) {
		fprintf(stderr, "mx_pingpong: mx_connect back: %s\n",
				mx_strerror(rc));
		return -1;
	}
	r->connected = 1;
	return 0;
}

static int
serve_one(struct run *r)
{
	int ret;

	if (accept_sender(r) < 0)
		return -1;
	r->buf[0] = malloc(r->max_len + 1);
	r->buf[1] = malloc(r->max_len + 1);
	if (r->buf[0] == NULL || r->buf[1] == NULL) {
		fprintf(stderr, "mx_pingpong: no memory for %u-byte "
				"messages\n", r->max_len);
		ret = -1;
	} else if (junk_start(r) < 0) {
		junk_end(r, 0);
		ret = -1;
	} else {
		ret = echo(r);
		if (junk_end(r, ret == 0) < 0)
			ret = -1;
	}
	free(r->buf[0]);
	free(r->buf[1]);
	r->buf[0] = r->buf[1] = NULL;
	return ret;
}

/*
 * With -s, whatever a sender that failed (died, timed out) left pending
 * was let go of, and its address is forgotten: the next sender starts
 * afresh on the same endpoint, its first message perhaps already waiting.
 */
static int
receiver(struct run *r)
{
	static const uint64_t next = KIND_PARAM << 48;
	const struct opts *o = r->o;
	int ret;

	printf("mx_pingpong: receiver on board %u endpoint %u%s\n", o->board,
			o->local_ep, o->server ? ", serving until killed" : "");
	r->next = o->server ? &next : NULL;
	fflush(stdout);
	do {
		ret = serve_one(r);
		if (r->connected)
			mx_disconnect(r->ep, r->peer);
		r->connected = 0;
	} while (o->server);
	return ret;
}

int
main(int argc, char **argv)
{
	static struct tool_lengths lens;
	struct opts o;
	struct run r;
	mx_return_t rc;
	int ret;

	tool_name = "mx_pingpong";
	parse(argc, argv, &o);
	if (o.dest != NULL && tool_lengths_build(&lens, &o.len) < 0)
		return 2;
	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	if (rc != MX_SUCCESS)
		tool_die("mx_init", rc);
	if (o.have_nic && mx_nic_id_to_board_number(o.nic_id, &o.board))
		tool_die("-n: no local board has that NIC id",
				MX_BOARD_UNKNOWN);
	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.ep = tool_open(o.board, o.local_ep, o.filter);
	if (o.dest == NULL) {
		ret = receiver(&r);
	} else {
		r.verify = o.verify;
		r.blocking = o.blocking;
		/* Distinct from a previous sender's, whichever it was. */
		r.id = (uint32_t)(getpid() ^ time(NULL)) & 0xffff;
		r.max_len = lens.max;
		for (int i = 0; i < 3; i++)
			if ((r.buf[i] = malloc(lens.max + 1)) == NULL)
				tool_die("memory for the buffers",
						MX_NO_RESOURCES);
		r.lat = malloc(sizeof(*r.lat) * o.iters);
		if (r.lat == NULL)
			tool_die("memory for the buffers", MX_NO_RESOURCES);
		ret = sender(&r, &lens);
		for (int i = 0; i < 3; i++)
			free(r.buf[i]);
		free(r.lat);
	}
	mx_close_endpoint(r.ep);
	mx_finalize();
	return ret < 0 ? 1 : 0;
}
