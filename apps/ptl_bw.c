/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ptl_bw: Portals streaming bandwidth between two processes, in the
 * manner of mx_bw (ptl_bw(1)).
 *
 *   receiver:  ptl_bw [-b board] [-p pid] [-w]
 *   sender:    ptl_bw -d host:board | -n nid [-r remote_pid] [-p pid]
 *                     [-b board] [-S start] [-E end]
 *                     [-I inc | -M mult | -L file] [-N messages]
 *                     [-W warmup] [-Q window] [-a] [-g] [-D] [-V] [-w]
 *                     [--csv]
 *
 * A window of operations is kept in flight: each time the oldest ends
 * (a put's SEND_END: copied when it fits a frame, else once the receiver
 * pulled it; a get's REPLY_END), the next is started.  Puts (the
 * default) go into the receiver's descriptor; -a asks an ACK for each;
 * gets (-g) read from it while the receiver makes no call.  As in mx_bw,
 * the operations of a window share one buffer on each side; -D gives
 * each of the window a region of its own, and -V (which implies it)
 * checks every byte of every message.
 *
 * For each length: -W untimed operations (a window by default), a word
 * each way so that both sides start together, then -N timed ones; puts
 * are timed until the receiver says it has them all, gets until the last
 * reply.  Prints MB/s (10^6 bytes), operations/s, and the time per
 * operation over each window's worth: mean, median, 99th percentile.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <myriexpress.h>

#include "ptl_tool.h"

#define DFLT_START	1024
#define DFLT_END	(1u << 20)
#define DFLT_COUNT	1000
#define DFLT_WINDOW	32
#define MAX_WINDOW	256

#define F_ACK		1u
#define F_GET		2u
#define F_DISTINCT	4u
#define F_VERIFY	8u

#define WORD_WARM	1	/* the receiver has the warm-up */
#define WORD_DONE	2	/* the receiver has every timed message */
/* -V, puts: the receiver checked message n (word CHECKED | n), whose
 * region the sender may fill again: a target takes what comes, so the
 * window is the receiver's to open. */
#define WORD_CHECKED	(UINT64_C(1) << 62)

struct opts {
	uint32_t board, pid, remote_pid, count, warmup, window, flags, csv;
	uint32_t blocking, have_warmup;
	double progress;
	uint64_t nid;
	const char *dest;
	struct tool_len_opts len;
};

static void
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: ptl_bw [-b board] [-p pid] [-w]\n"
		"       ptl_bw -d host:board | -n nid [-r remote_pid] [-p pid] "
		"[-b board]\n"
		"              [-S start] [-E end] [-I inc | -M mult | -L file]\n"
		"              [-N messages] [-W warmup] [-Q window] [-a] [-g] "
		"[-D] [-V] [-w]\n"
		"              [--csv] [--progress=S | --no-progress]\n"
		"Without -d or -n: the receiver, which serves one sender.\n"
		"  -b board      local interface (board) [0]\n"
		"  -p pid        local process id [%u receiver, %u sender]\n"
		"  -d host:board the receiver's board name (makes this the "
		"sender)\n"
		"  -n nid        the receiver's node id (hexadecimal)\n"
		"  -r remote_pid the receiver's process id [%u]\n"
		"  -S start      first length [%u]\n"
		"  -E end        last length, included [%u]\n"
		"  -I inc        lengths go up by inc\n"
		"  -M mult       lengths are multiplied by mult (default 2)\n"
		"  -L file       the lengths, one a line\n"
		"  -N messages   timed operations per length [%u]\n"
		"  -W warmup     untimed operations before them [the window]\n"
		"  -Q window     operations in flight [%u, at most %u]\n"
		"  -a            every put asks an ACK\n"
		"  -g            gets from the receiver instead of puts\n"
		"  -D            a region of its own for each operation of the "
		"window\n"
		"  -V            check every byte (implies -D)\n"
		"  -w            block in PtlEQWait rather than poll PtlEQGet\n"
		"  --csv         print CSV rather than a table\n"
		"  --progress=S  a progress line on stderr once a run lasts S "
		"seconds [3]\n"
		"  --no-progress no progress line\n"
		"  -h, --help    this text\n",
		DFLT_RECV_PID, DFLT_SEND_PID, DFLT_RECV_PID, DFLT_START,
		DFLT_END, DFLT_COUNT, DFLT_WINDOW, MAX_WINDOW);
	exit(rc);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "csv", no_argument, NULL, 'C' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "progress", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, have_pid = 0;

	memset(o, 0, sizeof(*o));
	o->remote_pid = DFLT_RECV_PID;
	o->count = DFLT_COUNT;
	o->window = DFLT_WINDOW;
	o->progress = TOOL_PROGRESS_AFTER_S;
	o->len.start = DFLT_START;
	o->len.end = DFLT_END;
	o->len.mult = 2.0;
	while ((c = getopt_long(argc, argv, "b:p:d:n:r:S:E:I:M:L:N:W:Q:agDVwh",
				longs, NULL)) != -1) {
		if (tool_len_opt(&o->len, c, optarg))
			continue;
		switch (c) {
		case 'b': o->board = tool_u32(optarg, 'b'); break;
		case 'p':
			o->pid = tool_u32(optarg, 'p');
			have_pid = 1;
			break;
		case 'd': o->dest = optarg; break;
		case 'n': o->nid = tool_hex64(optarg, 'n'); break;
		case 'r': o->remote_pid = tool_u32(optarg, 'r'); break;
		case 'N': o->count = tool_u32(optarg, 'N'); break;
		case 'W':
			o->warmup = tool_u32(optarg, 'W');
			o->have_warmup = 1;
			break;
		case 'Q': o->window = tool_u32(optarg, 'Q'); break;
		case 'a': o->flags |= F_ACK; break;
		case 'g': o->flags |= F_GET; break;
		case 'D': o->flags |= F_DISTINCT; break;
		case 'V': o->flags |= F_VERIFY | F_DISTINCT; break;
		case 'w': o->blocking = 1; break;
		case 'C': o->csv = 1; break;
		case 'P': o->progress = -1; break;
		case 'T': o->progress = tool_progress_arg(optarg); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || o->count == 0 || o->window == 0 ||
			o->window > MAX_WINDOW)
		usage(2);
	if (!o->have_warmup)
		o->warmup = o->window;
	if (!have_pid)
		o->pid = o->dest != NULL || o->nid != 0 ? DFLT_SEND_PID :
			DFLT_RECV_PID;
}

static void
fill(uint8_t *b, uint32_t len, uint64_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

static void
check(const uint8_t *b, uint32_t len, uint64_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != (uint8_t)(seed * 131 + i * 7 + (i >> 9))) {
			fprintf(stderr, "ptl_bw: byte %u of message %llu (%u "
					"bytes) is wrong\n", i,
					(unsigned long long)seed, len);
			exit(1);
		}
}

/* Where operation k of a window goes, in each side's region (of
 * window * max bytes with -D, else max). */
static uint64_t
slot_off(uint32_t flags, uint32_t k, uint32_t max)
{
	return (flags & F_DISTINCT) ? (uint64_t)k * max : 0;
}

/* ---- receiver ---------------------------------------------------------- */

/* Takes n puts (their PUT_END); with -V checks each, and says so. */
static void
take_puts(struct ptl_tool *t, ptl_handle_eq_t eq, const uint8_t *buf,
		uint32_t flags, uint64_t n, ptl_handle_md_t word,
		ptl_process_id_t peer)
{
	while (n > 0) {
		ptl_event_t ev;

		ptl_tool_event(t, eq, &ev);
		if (ev.type != PTL_EVENT_PUT_END)
			continue;
		if (flags & F_VERIFY) {
			check(buf + ev.offset, (uint32_t)ev.mlength, ev.hdr_data);
			ptl_tool_word(t, word, peer, PT_SYNC,
					WORD_CHECKED | ev.hdr_data);
		}
		n--;
	}
}

static int
receiver(const struct opts *o)
{
	struct ptl_tool t = { .blocking = o->blocking };
	struct ptl_params p;
	ptl_process_id_t peer;
	ptl_handle_eq_t eq;
	ptl_handle_md_t word;
	uint64_t span;
	uint8_t *buf;

	ptl_tool_open(&t, o->board, o->pid);
	peer = ptl_tool_params_in(&t, &p);
	t.lossy = (p.flags & F_GET) != 0;	/* gets: no event counted */
	span = (uint64_t)p.max_len * ((p.flags & F_DISTINCT) ? p.window : 1);
	buf = malloc(span ? span : 1);
	if (buf == NULL)
		ptl_tool_die("memory for the buffer", PTL_NOSPACE);
	memset(buf, 0, span);
	PTL_TOOL_OK("PtlEQAlloc", PtlEQAlloc(t.ni, 65536, &eq));

	for (uint32_t k = 0; (p.flags & F_GET) && k < span / (p.max_len ?
				p.max_len : 1); k++)
		fill(buf + (uint64_t)k * p.max_len, p.max_len, 0);
	ptl_tool_attach(&t, PT_DATA, buf, span, PTL_MD_OP_PUT | PTL_MD_OP_GET |
			PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_START_DISABLE, eq);
	word = ptl_tool_bind(&t, NULL, 0, PTL_MD_EVENT_START_DISABLE |
			PTL_MD_EVENT_END_DISABLE, PTL_EQ_NONE);
	ptl_tool_word(&t, word, peer, PT_SYNC, 0);	/* ready */
	for (uint32_t l = 0; l < p.nlens && !(p.flags & F_GET); l++) {
		take_puts(&t, eq, buf, p.flags, p.warmup, word, peer);
		ptl_tool_word(&t, word, peer, PT_SYNC, WORD_WARM);
		take_puts(&t, eq, buf, p.flags, p.count, word, peer);
		ptl_tool_word(&t, word, peer, PT_SYNC, WORD_DONE);
	}
	/* Gets are served without a call here: the run ends with a word. */
	for (;;) {
		ptl_event_t ev;

		ptl_tool_event(&t, eq, &ev);
		if (ev.type == PTL_EVENT_PUT_END && ev.hdr_data == HDR_STOP)
			break;
	}
	printf("ptl_bw: sender done\n");
	ptl_tool_close(&t);
	return 0;
}

/* ---- sender ------------------------------------------------------------ */

struct run {
	struct ptl_tool t;
	const struct opts *o;
	ptl_process_id_t peer;
	ptl_handle_eq_t eq, sync;
	ptl_handle_md_t md;
	uint8_t *buf;
	uint32_t max;			/* the largest length: a slot */
	uint64_t started, ended;	/* operations of the length */
	uint32_t acks;			/* ACKs owed */
	double *per;			/* per window: us per operation */
	struct tool_progress prog;
};

static void
start_op(struct run *r, uint32_t len)
{
	uint32_t k = (uint32_t)(r->started % r->o->window);
	uint64_t off = slot_off(r->o->flags, k, r->max);

	r->started++;
	if (r->o->flags & F_GET) {
		PTL_TOOL_OK("PtlGetRegion", PtlGetRegion(r->md, off, len,
				r->peer, PT_DATA, 0, 0, off));
		return;
	}
	if (r->o->flags & F_VERIFY)
		fill(r->buf + off, len, r->started);
	PTL_TOOL_OK("PtlPutRegion", PtlPutRegion(r->md, off, len,
			(r->o->flags & F_ACK) ? PTL_ACK_REQ : PTL_NOACK_REQ,
			r->peer, PT_DATA, 0, 0, off, r->started));
	r->acks += (r->o->flags & F_ACK) != 0;
}

/* -V, puts: the receiver's word that it checked the oldest message;
 * the ACKs that came meanwhile are counted. */
static void
end_checked(struct run *r)
{
	ptl_event_t ev = ptl_tool_want(&r->t, r->sync, PTL_EVENT_PUT_END);

	if (ev.hdr_data != (WORD_CHECKED | (r->ended + 1))) {
		fprintf(stderr, "ptl_bw: word %llx where message %llu's was "
				"due\n", (unsigned long long)ev.hdr_data,
				(unsigned long long)r->ended + 1);
		exit(1);
	}
	while (PtlEQGet(r->eq, &ev) == PTL_OK)
		if (ev.type == PTL_EVENT_ACK)
			r->acks--;
	r->ended++;
}

/* Waits for the oldest operation's end (ACKs counted on the way). */
static void
end_op(struct run *r, uint32_t len)
{
	ptl_event_t ev;

	if ((r->o->flags & (F_GET | F_VERIFY)) == F_VERIFY) {
		end_checked(r);
		return;
	}
	for (;;) {
		ptl_tool_event(&r->t, r->eq, &ev);
		if (ev.type == PTL_EVENT_ACK) {
			r->acks--;
			continue;
		}
		if (ev.type == PTL_EVENT_SEND_END ||
				ev.type == PTL_EVENT_REPLY_END)
			break;
	}
	if (ev.mlength != len) {
		fprintf(stderr, "ptl_bw: %llu bytes of %u moved\n",
				(unsigned long long)ev.mlength, len);
		exit(1);
	}
	if ((r->o->flags & (F_GET | F_VERIFY)) == (F_GET | F_VERIFY))
		check(r->buf + ev.offset, len, 0);
	r->ended++;
}

/* n operations, the window full; returns the time of each window's
 * worth in r->per (if timed). */
static void
stream(struct run *r, uint32_t len, uint64_t n, int timed)
{
	uint32_t w = r->o->window;
	double mark = tool_now_us();

	r->started = r->ended = 0;
	while (r->ended < n) {
		while (r->started < n && r->started - r->ended < w)
			start_op(r, len);
		end_op(r, len);
		if (timed && r->ended % w == 0) {
			double now = tool_now_us();

			r->per[r->ended / w - 1] = (now - mark) / w;
			mark = now;
			if (tool_progress_due(&r->prog, now))
				tool_progress_print(&r->prog, now, "length %u, "
						"%llu of %llu", len,
						(unsigned long long)r->ended,
						(unsigned long long)n);
		}
	}
}

static void
want_word(struct run *r, uint64_t word)
{
	ptl_event_t ev = ptl_tool_want(&r->t, r->sync, PTL_EVENT_PUT_END);

	if (ev.hdr_data != word) {
		fprintf(stderr, "ptl_bw: word %llu where %llu was due\n",
				(unsigned long long)ev.hdr_data,
				(unsigned long long)word);
		exit(1);
	}
}

static const char *
op_name(uint32_t flags)
{
	return (flags & F_GET) ? "get" : (flags & F_ACK) ? "put-ack" : "put";
}

static void
print_head(const struct run *r)
{
	const struct opts *o = r->o;

	if (o->csv) {
		printf("tool,op,length,messages,window,warmup,seconds,mbps,"
				"msgs_per_s,mean_us,median_us,p99_us\n");
		return;
	}
	printf("# ptl_bw to %012llx process %u: %s, window %u, %u timed "
			"operations per length after %u warm-up, %s%s\n",
			(unsigned long long)r->peer.nid, r->peer.pid,
			(o->flags & F_GET) ? "gets" : (o->flags & F_ACK) ?
			"puts with ACKs" : "puts", o->window, o->count,
			o->warmup, (o->flags & F_DISTINCT) ?
			"a region per operation" : "one buffer",
			(o->flags & F_VERIFY) ? ", every byte checked" : "");
	printf("%-10s %12s %14s %10s %10s %10s\n", "length", "MB/s", "ops/s",
			"us/op", "median", "p99");
}

static void
print_row(const struct run *r, uint32_t len, double secs,
		const struct tool_stats *s)
{
	const struct opts *o = r->o;
	double mbps = (double)len * o->count / secs / 1e6;
	double rate = o->count / secs;

	if (o->csv)
		printf("ptl_bw,%s,%u,%u,%u,%u,%.6f,%.1f,%.0f,%.3f,%.3f,%.3f\n",
				op_name(o->flags), len, o->count, o->window,
				o->warmup, secs, mbps, rate, s->mean, s->median,
				s->p99);
	else
		printf("%-10u %12.1f %14.0f %10.3f %10.3f %10.3f\n", len, mbps,
				rate, s->mean, s->median, s->p99);
	fflush(stdout);
}

static void
run_length(struct run *r, uint32_t len)
{
	const struct opts *o = r->o;
	int get = (o->flags & F_GET) != 0;
	struct tool_stats s;
	double t0, t1;
	uint32_t nper = o->count / o->window;

	stream(r, len, o->warmup, 0);
	if (!get)
		want_word(r, WORD_WARM);
	t0 = tool_now_us();
	stream(r, len, o->count, 1);
	if (!get)
		want_word(r, WORD_DONE);
	t1 = tool_now_us();
	if (nper == 0) {	/* fewer than a window: the whole run */
		r->per[0] = (t1 - t0) / o->count;
		nper = 1;
	}
	tool_stats(r->per, nper, &s);
	print_row(r, len, (t1 - t0) / 1e6, &s);
}

static int
sender(const struct opts *o)
{
	struct run r = { .o = o };
	struct tool_lengths lens;
	struct ptl_params p = { 0 };
	ptl_handle_md_t word;
	uint64_t span;

	if (tool_lengths_build(&lens, &o->len) < 0)
		return 2;
	r.t.blocking = o->blocking;
	ptl_tool_open(&r.t, o->board, o->pid);
	r.peer = ptl_tool_target(o->dest, o->nid, o->remote_pid);
	r.max = lens.max;
	span = (uint64_t)lens.max * ((o->flags & F_DISTINCT) ? o->window : 1);
	r.buf = malloc(span ? span : 1);
	r.per = malloc((o->count / o->window + 1) * sizeof(*r.per));
	if (r.buf == NULL || r.per == NULL)
		ptl_tool_die("memory for the buffers", PTL_NOSPACE);
	memset(r.buf, 0, span);
	PTL_TOOL_OK("PtlEQAlloc", PtlEQAlloc(r.t.ni, 4096, &r.eq));
	PTL_TOOL_OK("PtlEQAlloc", PtlEQAlloc(r.t.ni, 64, &r.sync));
	ptl_tool_attach(&r.t, PT_SYNC, NULL, 0, PTL_MD_OP_PUT |
			PTL_MD_TRUNCATE | PTL_MD_EVENT_START_DISABLE, r.sync);
	r.md = ptl_tool_bind(&r.t, r.buf, span, PTL_MD_EVENT_START_DISABLE |
			((o->flags & (F_GET | F_VERIFY)) == F_VERIFY ?
			 PTL_MD_EVENT_END_DISABLE : 0), r.eq);
	p.max_len = lens.max;
	p.flags = o->flags;
	p.count = o->count;
	p.warmup = o->warmup;
	p.window = o->window;
	p.nlens = lens.n;
	ptl_tool_params_out(&r.t, r.peer, &p, r.sync);
	tool_progress_init(&r.prog, o->progress);
	print_head(&r);
	for (uint32_t i = 0; i < lens.n; i++)
		run_length(&r, lens.len[i]);
	while (r.acks > 0) {
		ptl_tool_want(&r.t, r.eq, PTL_EVENT_ACK);
		r.acks--;
	}
	word = ptl_tool_bind(&r.t, NULL, 0, PTL_MD_EVENT_START_DISABLE |
			PTL_MD_EVENT_END_DISABLE, PTL_EQ_NONE);
	ptl_tool_word(&r.t, word, r.peer, PT_DATA, HDR_STOP);
	ptl_tool_close(&r.t);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o;

	tool_name = "ptl_bw";
	parse(argc, argv, &o);
	return o.dest != NULL || o.nid != 0 ? sender(&o) : receiver(&o);
}
