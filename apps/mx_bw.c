/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_bw: streaming bandwidth and message rate between two endpoints, in the
 * manner of Myricom's mx_stream and the OSU bandwidth test (mx_bw(1)).
 *
 *   receiver:  mx_bw [-b board | -n nic_id] [-e local_ep] [-s] [-w]
 *   sender:    mx_bw -d host:board [-r remote_ep] [-e local_ep]
 *                    [-S start] [-E end] [-I inc | -M mult | -L file]
 *                    [-N messages] [-W warmup] [-Q window] [-B] [-D] [-V]
 *                    [-w] [-R] [--csv]
 *
 * A window of messages is kept in flight: each time the oldest completes,
 * the next is posted.  -B streams both ways at once.  As in osu_bw, the
 * messages in flight share one send buffer and one receive buffer (their
 * data is still moved and checked in full: mx-dpdk does not know they
 * overlap); -D gives every message of the window a buffer of its own, as
 * Myricom's mx_stream does, so the data comes from and goes to memory well
 * beyond the caches.
 * -V checks every byte of every message (each message carries its own
 * pattern, so it implies -D).  -R measures the message rate: 8-byte
 * messages (or -S's length), one way, a million of them unless -N says.
 *
 * For each length the sender prints MB/s and messages/s of one direction
 * (-B: the sum of both), and the time per message (per message each way
 * with -B) over each window's worth of messages: mean, median and 99th
 * percentile.  Each length starts with -W untimed messages (one window by
 * default: the first use of frame buffers and pages is not part of the
 * figure), then a zero-byte message each way so that both sides start the
 * timed -N messages together.
 *
 * The receiver takes everything from the sender's first message, the
 * lengths included; with -s it serves senders one after another until
 * killed.  A run id in every message's match information keeps a dead
 * sender's leftovers away from the next one's receives.
 */
#include <endian.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>
#include <mx_extensions.h>

#include "tool.h"

/* Match information: kind (16 bits), run id (16), zero (32). */
#define KIND_PARAM	0x3333ull
#define KIND_DATA	0x4444ull
#define KIND_SYNC	0x5555ull
#define MAX_WINDOW	256

#define DFLT_START	1024
#define DFLT_END	(1u << 20)
#define DFLT_COUNT	1000
#define DFLT_RATE_LEN	8
#define DFLT_RATE_COUNT	1000000
#define DFLT_WINDOW	32
#define DFLT_FILTER	0x12345

#define F_BOTH		1u
#define F_DISTINCT	2u
#define F_VERIFY	4u
#define F_BLOCKING	8u
#define F_RATE		16u

static inline uint64_t
match(uint64_t kind, uint32_t run)
{
	return kind << 48 | (uint64_t)(run & 0xffff) << 32;
}

/* The sender's first message, in network byte order; lengths follow. */
struct params {
	uint64_t nic_id;
	uint32_t endpoint_id, run;
	uint32_t count, warmup, window, flags;
	uint32_t nlens, pad;
};

struct opts {
	uint32_t board, local_ep, remote_ep, filter;
	uint32_t count, warmup, window, flags, server, csv;
	double progress;	/* first progress line after (s); < 0: none */
	int have_count, have_warmup, have_start, have_nic;
	uint64_t nic_id;
	const char *dest;
	struct tool_len_opts len;
};

/* One run: what both sides agreed on, and memory allocated before it. */
struct run {
	mx_endpoint_t ep;
	mx_endpoint_addr_t peer;
	const struct opts *o;
	int sender, connected;
	const uint64_t *next;	/* -s: a new sender's first message */
	uint32_t id, count, warmup, window, flags, seq;
	struct tool_lengths lens;
	uint8_t *sbuf, *rbuf;
	double *batch;		/* time per message of each window, us */
	uint32_t nbatch;
	struct tool_progress prog;
};

static void
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: mx_bw [-b board | -n nic_id] [-e local_ep] [-f filter] "
		"[-s] [-w]\n"
		"       mx_bw -d host:board [-r remote_ep] [-e local_ep] "
		"[-f filter]\n"
		"             [-S start] [-E end] [-I inc | -M mult | "
		"-L file]\n"
		"             [-N messages] [-W warmup] [-Q window] [-B] [-D] "
		"[-V] [-w] [-R]\n"
		"             [--csv] [--progress=S | --no-progress]\n"
		"Without -d: the receiver, which serves one sender (-s: "
		"senders one after\nanother, until killed).\n"
		"  -b board      local board number [0]\n"
		"  -n nic_id     local board by NIC id (hexadecimal)\n"
		"  -e local_ep   local endpoint id [0]\n"
		"  -f filter     endpoint filter (key) [0x%x]\n"
		"  -s            persistent receiver\n"
		"  -d host:board the receiver's board name (makes this the "
		"sender)\n"
		"  -r remote_ep  the receiver's endpoint id [0]\n"
		"  -S start      first length [%u; 8 with -R]\n"
		"  -E end        last length, included [%u]\n"
		"  -I inc        lengths go up by inc\n"
		"  -M mult       lengths are multiplied by mult (default 2)\n"
		"  -L file       the lengths, one a line\n"
		"  -N messages   timed messages per length [%u; %u with -R]\n"
		"  -W warmup     untimed messages before them [one window]\n"
		"  -Q window     messages in flight, 1 to %u [%u] (--window)\n"
		"  -B, -x        both ways at once\n"
		"  -D            a buffer per message in flight\n"
		"  -V            check every byte of every message (implies "
		"-D)\n"
		"  -w            block in mx_wait rather than poll mx_test "
		"(both sides)\n"
		"  -R            message rate: one length (-S, 8 by default), "
		"one way\n"
		"  --csv         print CSV rather than a table\n"
		"  --progress=S  a progress line on stderr once a run lasts S "
		"seconds [3]\n"
		"  --no-progress no progress line\n"
		"  -h, --help    this text\n",
		DFLT_FILTER, DFLT_START, DFLT_END, DFLT_COUNT,
		DFLT_RATE_COUNT, MAX_WINDOW, DFLT_WINDOW);
	exit(rc);
}

static void
parse_one(int c, const char *arg, struct opts *o)
{
	if (tool_len_opt(&o->len, c, arg)) {
		o->have_start |= c == 'S';
		return;
	}
	switch (c) {
	case 'b': o->board = tool_u32(arg, 'b'); break;
	case 'n': o->nic_id = tool_hex64(arg, 'n'); o->have_nic = 1; break;
	case 'e': o->local_ep = tool_u32(arg, 'e'); break;
	case 'r': o->remote_ep = tool_u32(arg, 'r'); break;
	case 'd': o->dest = arg; break;
	case 'f': o->filter = tool_u32(arg, 'f'); break;
	case 'N': o->count = tool_u32(arg, 'N'); o->have_count = 1; break;
	case 'W': o->warmup = tool_u32(arg, 'W'); o->have_warmup = 1; break;
	case 'Q': o->window = tool_u32(arg, 'Q'); break;
	case 'B': case 'x': o->flags |= F_BOTH; break;
	case 'D': o->flags |= F_DISTINCT; break;
	case 'V': o->flags |= F_VERIFY | F_DISTINCT; break;
	case 'w': o->flags |= F_BLOCKING; break;
	case 'R': o->flags |= F_RATE; break;
	case 's': o->server = 1; break;
	case 'C': o->csv = 1; break;
	case 'P': o->progress = -1; break;
	case 'T': o->progress = tool_progress_arg(arg); break;
	case 'h': usage(0); break;
	default: usage(2);
	}
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "csv", no_argument, NULL, 'C' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "progress", required_argument, NULL, 'T' },
		{ "window", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->filter = DFLT_FILTER;
	o->progress = TOOL_PROGRESS_AFTER_S;
	o->count = DFLT_COUNT;
	o->window = DFLT_WINDOW;
	o->len.start = DFLT_START;
	o->len.end = DFLT_END;
	o->len.mult = 2.0;
	while ((c = getopt_long(argc, argv,
				"b:n:e:r:d:f:S:E:I:M:L:N:W:Q:BxDVwRsh", longs,
				NULL)) != -1)
		parse_one(c, optarg, o);
	if (o->flags & F_RATE) {
		/* One length, one way: the figure is messages per second. */
		if (!o->have_start)
			o->len.start = DFLT_RATE_LEN;
		o->len.end = o->len.start;
		o->len.file = NULL;
		if (!o->have_count)
			o->count = DFLT_RATE_COUNT;
	}
	if (!o->have_warmup)
		o->warmup = o->window;
	if (optind != argc || o->count == 0 || o->window == 0 ||
			o->window > MAX_WINDOW || (o->server && o->dest) ||
			((o->flags & F_RATE) && (o->flags & F_BOTH)))
		usage(2);
}

/* Byte i of message 'seq' under -V: differs from message to message. */
static inline uint8_t
pattern(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + (i >> 8));
}

static void
fill(uint8_t *buf, uint32_t len, uint32_t seq)
{
	for (uint32_t i = 0; i < len; i++)
		buf[i] = pattern(seq, i);
}

static int
check(const uint8_t *buf, uint32_t len, uint32_t seq)
{
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != pattern(seq, i)) {
			fprintf(stderr, "mx_bw: byte %u of message %u (%u "
					"bytes) is wrong\n", i, seq, len);
			return -1;
		}
	return 0;
}

static int
complete(struct run *r, mx_request_t *req, mx_status_t *st)
{
	return tool_must_complete(r->ep, req, r->flags & F_BLOCKING, r->next, st);
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
post(struct run *r, int send, void *buf, uint32_t len, uint64_t m,
		mx_request_t *req)
{
	mx_segment_t seg = { buf, len };
	mx_return_t rc = send ?
		mx_isend(r->ep, &seg, 1, r->peer, m, NULL, req) :
		mx_irecv(r->ep, &seg, 1, m, MX_MATCH_MASK_NONE, NULL, req);

	if (rc != MX_SUCCESS)
		fprintf(stderr, "mx_bw: %s: %s\n", send ? "mx_isend" :
				"mx_irecv", mx_strerror(rc));
	return rc == MX_SUCCESS ? 0 : -1;
}

/*
 * Requests of the messages in flight: slot k holds message m with
 * m % window == k; pend says which of its two requests are still to be
 * completed, so that a failure can let go of exactly those.
 */
struct slots {
	mx_request_t sr[MAX_WINDOW], rr[MAX_WINDOW];
	uint8_t spend[MAX_WINDOW], rpend[MAX_WINDOW];
};

static void
abandon_all(struct run *r, struct slots *sl)
{
	for (uint32_t k = 0; k < r->window; k++) {
		if (sl->rpend[k])
			abandon(r, &sl->rr[k], 1);
		if (sl->spend[k])
			abandon(r, &sl->sr[k], 0);
		sl->rpend[k] = sl->spend[k] = 0;
	}
}

/* Ends the message in slot k: its receive (checked) and its send. */
static int
finish(struct run *r, struct slots *sl, uint32_t k, uint32_t len,
		const uint8_t *rbuf, uint32_t seq)
{
	mx_status_t st;

	if (sl->rpend[k]) {
		int rc = complete(r, &sl->rr[k], &st);

		if (rc != -2)
			sl->rpend[k] = 0;
		if (rc < 0)
			return -1;
		if (st.xfer_length != len) {
			fprintf(stderr, "mx_bw: got %u bytes of %u\n",
					st.xfer_length, len);
			return -1;
		}
		if ((r->flags & F_VERIFY) && check(rbuf, len, seq) < 0)
			return -1;
	}
	if (sl->spend[k]) {
		int rc = complete(r, &sl->sr[k], &st);

		if (rc != -2)
			sl->spend[k] = 0;
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Records the time of window b (sender, timed streams only). */
static void
mark(struct run *r, uint32_t m, uint32_t count, uint32_t len, double *prev)
{
	uint32_t w = r->window, in;
	double now;

	if (m % w != w - 1 && m != count - 1)
		return;
	now = tool_now_us();
	in = m % w + 1;
	r->batch[m / w] = (now - *prev) / in;
	*prev = now;
	if (tool_progress_due(&r->prog, now))
		tool_progress_print(&r->prog, now, "length %u, message %u of "
				"%u", len, m + 1, count);
}

/*
 * Moves 'count' messages of 'len' bytes: sends if this side transmits,
 * receives if it receives (both with -B), keeping up to a window of each in
 * flight.  Message m uses slot m % window (its own buffer with -D).
 */
static int
stream(struct run *r, struct slots *sl, uint32_t len, uint32_t count,
		int timed)
{
	int tx = r->sender || (r->flags & F_BOTH);
	int rx = !r->sender || (r->flags & F_BOTH);
	uint32_t w = r->window, base = r->seq;
	uint64_t m_data = match(KIND_DATA, r->id);
	double prev = tool_now_us();

	r->seq += count;
	for (uint64_t i = 0; i < (uint64_t)count + w; i++) {
		uint32_t k = (uint32_t)(i % w);
		size_t at = (r->flags & F_DISTINCT) ? (size_t)k * len : 0;

		if (i >= w) {
			uint32_t m = (uint32_t)(i - w);

			if (finish(r, sl, k, len, r->rbuf + at, base + m) < 0)
				return -1;
			if (timed && r->sender)
				mark(r, m, count, len, &prev);
		}
		if (i >= count)
			continue;
		if (rx && post(r, 0, r->rbuf + at, len, m_data, &sl->rr[k]) < 0)
			return -1;
		sl->rpend[k] = (uint8_t)rx;
		if (tx && (r->flags & F_VERIFY))
			fill(r->sbuf + at, len, base + (uint32_t)i);
		if (tx && post(r, 1, r->sbuf + at, len, m_data, &sl->sr[k]) < 0)
			return -1;
		sl->spend[k] = (uint8_t)tx;
	}
	return 0;
}

/* A zero-byte message each way: both sides are at the same point. */
static int
sync_peer(struct run *r, struct slots *sl)
{
	uint64_t m = match(KIND_SYNC, r->id);

	if (post(r, 0, NULL, 0, m, &sl->rr[0]) < 0)
		return -1;
	sl->rpend[0] = 1;
	if (post(r, 1, NULL, 0, m, &sl->sr[0]) < 0)
		return -1;
	sl->spend[0] = 1;
	return finish(r, sl, 0, 0, NULL, 0);
}

static void
print_head(const struct run *r)
{
	const struct opts *o = r->o;
	uint32_t f = r->flags;

	if (o->csv) {
		printf("tool,mode,length,messages,window,warmup,seconds,mbps,"
				"msgs_per_s,mean_us,median_us,p99_us\n");
		return;
	}
	printf("# mx_bw to %s endpoint %u: %s, window %u, %u timed messages "
			"per length after %u warm-up, %s, %s%s\n", o->dest,
			o->remote_ep, f & F_RATE ? "message rate, one way" :
			f & F_BOTH ? "both ways" : "one way", r->window,
			r->count, r->warmup, f & F_DISTINCT ?
			"a buffer each" : "buffers shared", f & F_BLOCKING ?
			"blocking (mx_wait)" : "polling (mx_test)",
			f & F_VERIFY ? ", every byte checked" : "");
	printf("%-10s %12s %14s %10s %10s %10s\n", "length", "MB/s",
			"messages/s", "mean(us)", "median(us)", "p99(us)");
}

static void
print_row(struct run *r, uint32_t len, double secs)
{
	double msgs = (double)r->count * (r->flags & F_BOTH ? 2 : 1);
	const char *mode = r->flags & F_RATE ? "rate" :
		r->flags & F_BOTH ? "both" : "oneway";
	struct tool_stats s;

	tool_stats(r->batch, r->nbatch, &s);
	s.mean = secs * 1e6 / r->count;
	if (r->o->csv)
		printf("mx_bw,%s,%u,%u,%u,%u,%.6f,%.1f,%.0f,%.3f,%.3f,%.3f\n",
				mode, len, r->count, r->window, r->warmup,
				secs, msgs * len / secs / 1e6, msgs / secs,
				s.mean, s.median, s.p99);
	else
		printf("%-10u %12.1f %14.0f %10.3f %10.3f %10.3f\n", len,
				msgs * len / secs / 1e6, msgs / secs, s.mean,
				s.median, s.p99);
	fflush(stdout);
}

/*
 * Both sides run this with the same parameters; the sender prints.  On a
 * failure, whatever is still pending is let go of (see abandon()).
 */
static int
run_all(struct run *r)
{
	static struct slots sl;
	size_t room = (size_t)(r->flags & F_DISTINCT ? r->window : 1) *
		(r->lens.max ? r->lens.max : 1);
	int ret = -1;

	r->nbatch = (r->count + r->window - 1) / r->window;
	r->sbuf = malloc(room);
	r->rbuf = malloc(room);
	r->batch = malloc(sizeof(*r->batch) * r->nbatch);
	if (r->sbuf == NULL || r->rbuf == NULL || r->batch == NULL) {
		fprintf(stderr, "mx_bw: no memory for the window\n");
		goto out;
	}
	/* Touch every page now, not inside the timed loop. */
	memset(r->sbuf, 1, room);
	memset(r->rbuf, 0, room);
	if (r->sender)
		print_head(r);
	tool_progress_init(&r->prog, r->o->progress);
	for (uint32_t i = 0; i < r->lens.n; i++) {
		uint32_t len = r->lens.len[i];
		double t0;

		if (stream(r, &sl, len, r->warmup, 0) < 0 ||
				sync_peer(r, &sl) < 0)
			goto out;
		t0 = tool_now_us();
		if (stream(r, &sl, len, r->count, 1) < 0 ||
				sync_peer(r, &sl) < 0)
			goto out;
		tool_progress_done(&r->prog);
		if (r->sender)
			print_row(r, len, (tool_now_us() - t0) / 1e6);
	}
	ret = 0;
out:
	abandon_all(r, &sl);
	free(r->sbuf);
	free(r->rbuf);
	free(r->batch);
	r->sbuf = r->rbuf = NULL;
	r->batch = NULL;
	return ret;
}

/* ---- the first message: parameters and lengths -------------------------- */

static int
send_params(struct run *r)
{
	static uint32_t lens[TOOL_MAX_LENGTHS];
	struct params p;
	mx_segment_t seg[2] = {
		{ &p, sizeof(p) }, { lens, r->lens.n * sizeof(lens[0]) },
	};
	mx_endpoint_addr_t self;
	mx_request_t req;
	mx_status_t st;
	uint64_t nic;
	uint32_t ep;

	mx_get_endpoint_addr(r->ep, &self);
	mx_decompose_endpoint_addr(self, &nic, &ep);
	memset(&p, 0, sizeof(p));
	p.nic_id = htobe64(nic);
	p.endpoint_id = htobe32(ep);
	p.run = htobe32(r->id);
	p.count = htobe32(r->count);
	p.warmup = htobe32(r->warmup);
	p.window = htobe32(r->window);
	p.flags = htobe32(r->flags);
	p.nlens = htobe32(r->lens.n);
	for (uint32_t i = 0; i < r->lens.n; i++)
		lens[i] = htobe32(r->lens.len[i]);
	if (mx_isend(r->ep, seg, 2, r->peer, match(KIND_PARAM, 0), NULL,
				&req) != MX_SUCCESS)
		return -1;
	return complete(r, &req, &st);
}

static int
take_params(struct run *r, const struct params *p, const uint32_t *lens,
		uint32_t got)
{
	uint32_t n = be32toh(p->nlens);

	r->id = be32toh(p->run);
	r->count = be32toh(p->count);
	r->warmup = be32toh(p->warmup);
	r->window = be32toh(p->window);
	r->flags = be32toh(p->flags) | (r->o->flags & F_BLOCKING);
	r->seq = 0;
	if (got < sizeof(*p) || n > TOOL_MAX_LENGTHS ||
			got != sizeof(*p) + n * sizeof(lens[0]) ||
			r->count == 0 || r->window == 0 ||
			r->window > MAX_WINDOW) {
		fprintf(stderr, "mx_bw: a sender's parameters make no "
				"sense\n");
		return -1;
	}
	r->lens.n = 0;
	r->lens.max = 0;
	for (uint32_t i = 0; i < n; i++)
		if (tool_len_add(&r->lens, be32toh(lens[i])) < 0)
			return -1;
	return 0;
}

/* Waits (without limit) for a sender's first message; connects back. */
static int
accept_sender(struct run *r)
{
	static uint32_t lens[TOOL_MAX_LENGTHS];
	struct params p;
	mx_segment_t seg[2] = {
		{ &p, sizeof(p) }, { lens, sizeof(lens) },
	};
	mx_request_t req;
	mx_status_t st;
	uint32_t done = 0;
	mx_return_t rc;

	rc = mx_irecv(r->ep, seg, 2, match(KIND_PARAM, 0), MX_MATCH_MASK_NONE,
			NULL, &req);
	if (rc != MX_SUCCESS)
		tool_die("mx_irecv", rc);
	rc = mx_wait(r->ep, &req, MX_INFINITE, &st, &done);
	if (rc != MX_SUCCESS || !done || st.code != MX_STATUS_SUCCESS) {
		fprintf(stderr, "mx_bw: no parameters from a sender\n");
		return -1;
	}
	if (take_params(r, &p, lens, st.xfer_length) < 0)
		return -1;
	rc = mx_connect(r->ep, be64toh(p.nic_id), be32toh(p.endpoint_id),
			r->o->filter, 10000, &r->peer);
	if (rc != MX_SUCCESS) {
		fprintf(stderr, "mx_bw: mx_connect back: %s\n",
				mx_strerror(rc));
		return -1;
	}
	r->connected = 1;
	return 0;
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

	printf("mx_bw: receiver on board %u endpoint %u%s\n", o->board,
			o->local_ep, o->server ? ", serving until killed" : "");
	r->next = o->server ? &next : NULL;
	fflush(stdout);
	do {
		ret = accept_sender(r) < 0 ? -1 : run_all(r);
		if (ret == 0 && o->server) {
			printf("mx_bw: sender done\n");
			fflush(stdout);
		}
		if (r->connected)
			mx_disconnect(r->ep, r->peer);
		r->connected = 0;
	} while (o->server);
	return ret;
}

static int
sender(struct run *r)
{
	const struct opts *o = r->o;
	uint64_t nic;
	mx_return_t rc;

	r->sender = 1;
	r->count = o->count;
	r->warmup = o->warmup;
	r->window = o->window;
	r->flags = o->flags;
	/* Distinct from a previous sender's, whichever it was. */
	r->id = (uint32_t)(getpid() ^ time(NULL)) & 0xffff;
	rc = mx_hostname_to_nic_id((char *)(uintptr_t)o->dest, &nic);
	if (rc != MX_SUCCESS)
		tool_die(o->dest, rc);
	rc = mx_connect(r->ep, nic, o->remote_ep, o->filter, 10000, &r->peer);
	if (rc != MX_SUCCESS)
		tool_die("mx_connect", rc);
	if (send_params(r) < 0)
		return -1;
	return run_all(r);
}

int
main(int argc, char **argv)
{
	static struct run r;
	struct opts o;
	mx_return_t rc;
	int ret;

	tool_name = "mx_bw";
	parse(argc, argv, &o);
	if (o.dest != NULL && tool_lengths_build(&r.lens, &o.len) < 0)
		return 2;
	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	if (rc != MX_SUCCESS)
		tool_die("mx_init", rc);
	if (o.have_nic && mx_nic_id_to_board_number(o.nic_id, &o.board))
		tool_die("-n: no local board has that NIC id",
				MX_BOARD_UNKNOWN);
	r.o = &o;
	r.ep = tool_open(o.board, o.local_ep, o.filter);
	ret = o.dest != NULL ? sender(&r) : receiver(&r);
	mx_close_endpoint(r.ep);
	mx_finalize();
	return ret < 0 ? 1 : 0;
}
