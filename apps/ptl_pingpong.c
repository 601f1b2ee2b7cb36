/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ptl_pingpong: Portals latency between two processes, in the manner of
 * mx_pingpong (ptl_pingpong(1)).
 *
 *   receiver:  ptl_pingpong [-b board] [-p pid] [-w]
 *   sender:    ptl_pingpong -d host:board | -n nid [-r remote_pid] [-p pid]
 *                           [-b board] [-S start] [-E end]
 *                           [-I inc | -M mult | -L file] [-N iterations]
 *                           [-W warmup] [-a] [-g] [-V] [-w] [--csv]
 *
 * Puts (the default): the sender puts a message into the receiver's
 * descriptor, the receiver puts it back from there as soon as it has come
 * (PUT_END), and the sender's round trip ends when its copy is back: the
 * figure is half a round trip, as mx_pingpong's.  -a asks an ACK for every
 * put (both ways).  Gets (-g): the sender gets the message from the
 * receiver's descriptor, which makes no call meanwhile (the library's
 * progression thread serves it); the figure is the whole round trip of
 * one get, from PtlGet to its REPLY_END.
 *
 * For each length: -W untimed round trips, then exactly -N timed ones,
 * each timed alone into an array allocated before the first: mean,
 * median, 99th percentile, least and most.  -V checks every byte that
 * arrives.  The receiver serves one sender and ends.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <myriexpress.h>

#include "ptl_tool.h"

#define DFLT_END	65536
#define DFLT_ITERS	1000
#define DFLT_WARMUP	10

#define F_ACK		1u
#define F_GET		2u
#define F_VERIFY	4u

struct opts {
	uint32_t board, pid, remote_pid, iters, warmup, flags, csv, blocking;
	double progress;
	uint64_t nid;
	const char *dest;
	struct tool_len_opts len;
};

static void
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: ptl_pingpong [-b board] [-p pid] [-w]\n"
		"       ptl_pingpong -d host:board | -n nid [-r remote_pid] "
		"[-p pid] [-b board]\n"
		"                    [-S start] [-E end] [-I inc | -M mult | "
		"-L file]\n"
		"                    [-N iterations] [-W warmup] [-a] [-g] [-V] "
		"[-w] [--csv]\n"
		"                    [--progress=S | --no-progress]\n"
		"Without -d or -n: the receiver, which serves one sender.\n"
		"  -b board      local interface (board) [0]\n"
		"  -p pid        local process id [%u receiver, %u sender]\n"
		"  -d host:board the receiver's board name (makes this the "
		"sender)\n"
		"  -n nid        the receiver's node id (its NIC id, "
		"hexadecimal)\n"
		"  -r remote_pid the receiver's process id [%u]\n"
		"  -S start      first length [0]\n"
		"  -E end        last length, included [%u]\n"
		"  -I inc        lengths go up by inc\n"
		"  -M mult       lengths are multiplied by mult (default 2)\n"
		"  -L file       the lengths, one a line\n"
		"  -N iterations timed round trips per length [%u]\n"
		"  -W warmup     untimed round trips before them [%u]\n"
		"  -a            every put asks an ACK\n"
		"  -g            gets from the receiver instead of puts (the "
		"figure: a whole round trip)\n"
		"  -V            check every byte\n"
		"  -w            block in PtlEQWait rather than poll PtlEQGet\n"
		"  --csv         print CSV rather than a table\n"
		"  --progress=S  a progress line on stderr once a run lasts S "
		"seconds [3]\n"
		"  --no-progress no progress line\n"
		"  -h, --help    this text\n",
		DFLT_RECV_PID, DFLT_SEND_PID, DFLT_RECV_PID, DFLT_END,
		DFLT_ITERS, DFLT_WARMUP);
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
	o->iters = DFLT_ITERS;
	o->warmup = DFLT_WARMUP;
	o->progress = TOOL_PROGRESS_AFTER_S;
	o->len.end = DFLT_END;
	o->len.mult = 2.0;
	while ((c = getopt_long(argc, argv, "b:p:d:n:r:S:E:I:M:L:N:W:agVwh",
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
		case 'N': o->iters = tool_u32(optarg, 'N'); break;
		case 'W': o->warmup = tool_u32(optarg, 'W'); break;
		case 'a': o->flags |= F_ACK; break;
		case 'g': o->flags |= F_GET; break;
		case 'V': o->flags |= F_VERIFY; break;
		case 'w': o->blocking = 1; break;
		case 'C': o->csv = 1; break;
		case 'P': o->progress = -1; break;
		case 'T': o->progress = tool_progress_arg(optarg); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || o->iters == 0)
		usage(2);
	if (!have_pid)
		o->pid = o->dest != NULL || o->nid != 0 ? DFLT_SEND_PID :
			DFLT_RECV_PID;
}

static void
fill(uint8_t *b, uint32_t len, uint64_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static void
check(const uint8_t *b, uint32_t len, uint64_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != (uint8_t)(seed * 31 + i * 7 + (i >> 8))) {
			fprintf(stderr, "ptl_pingpong: byte %u of a %u-byte "
					"message is wrong\n", i, len);
			exit(1);
		}
}

/* ---- receiver ---------------------------------------------------------- */

static int
receiver(const struct opts *o)
{
	struct ptl_tool t = { .blocking = o->blocking };
	struct ptl_params p;
	ptl_process_id_t peer;
	ptl_handle_eq_t eq;
	ptl_handle_md_t src, word;
	uint8_t *buf;

	ptl_tool_open(&t, o->board, o->pid);
	peer = ptl_tool_params_in(&t, &p);
	/* Gets are served by the library, maybe by its progression thread
	 * while this one is off the CPU: their events may overflow the
	 * queue, and nothing here counts them. */
	t.lossy = (p.flags & F_GET) != 0;
	buf = malloc(p.max_len ? p.max_len : 1);
	if (buf == NULL)
		ptl_tool_die("memory for the buffer", PTL_NOSPACE);
	fill(buf, p.max_len, 0);	/* what gets read */
	PTL_TOOL_OK("PtlEQAlloc", PtlEQAlloc(t.ni, 1024, &eq));
	ptl_tool_attach(&t, PT_DATA, buf, p.max_len, PTL_MD_OP_PUT |
			PTL_MD_OP_GET | PTL_MD_MANAGE_REMOTE |
			PTL_MD_EVENT_START_DISABLE, eq);
	/* Echoes go from where the message came; their ACKs (-a) are
	 * counted as they come. */
	src = ptl_tool_bind(&t, buf, p.max_len, PTL_MD_EVENT_START_DISABLE |
			PTL_MD_EVENT_END_DISABLE, (p.flags & F_ACK) ? eq :
			PTL_EQ_NONE);
	word = ptl_tool_bind(&t, NULL, 0, PTL_MD_EVENT_START_DISABLE |
			PTL_MD_EVENT_END_DISABLE, PTL_EQ_NONE);
	ptl_tool_word(&t, word, peer, PT_SYNC, 0);	/* ready */
	for (;;) {
		ptl_event_t ev;

		ptl_tool_event(&t, eq, &ev);
		if (ev.type != PTL_EVENT_PUT_END)
			continue;	/* a get served, an ACK */
		if (ev.hdr_data == HDR_STOP)
			break;
		if (p.flags & F_VERIFY)
			check(buf, (uint32_t)ev.mlength, ev.hdr_data);
		PTL_TOOL_OK("PtlPutRegion", PtlPutRegion(src, 0, ev.mlength,
				(p.flags & F_ACK) ? PTL_ACK_REQ : PTL_NOACK_REQ,
				peer, PT_SYNC, 0, 0, 0, ev.hdr_data));
	}
	printf("ptl_pingpong: sender done\n");
	ptl_tool_close(&t);
	return 0;
}

/* ---- sender ------------------------------------------------------------ */

struct run {
	struct ptl_tool t;
	const struct opts *o;
	ptl_process_id_t peer;
	ptl_handle_eq_t rx, tx;
	ptl_handle_md_t src, dst;
	uint8_t *sbuf, *rbuf;
	uint64_t seq;
	uint32_t acks;		/* ACKs owed to us */
	double *lat;
	struct tool_progress prog;
};

/* One round trip of len bytes. */
static void
ping(struct run *r, uint32_t len)
{
	uint32_t flags = r->o->flags;
	uint64_t seq = ++r->seq;
	ptl_event_t ev;

	if (flags & F_GET) {
		PTL_TOOL_OK("PtlGetRegion", PtlGetRegion(r->dst, 0, len, r->peer,
				PT_DATA, 0, 0, 0));
		ev = ptl_tool_want(&r->t, r->rx, PTL_EVENT_REPLY_END);
		if (ev.mlength != len) {
			fprintf(stderr, "ptl_pingpong: got %llu bytes of %u\n",
					(unsigned long long)ev.mlength, len);
			exit(1);
		}
		if (flags & F_VERIFY)
			check(r->rbuf, len, 0);
		return;
	}
	if (flags & F_VERIFY)
		fill(r->sbuf, len, seq);
	PTL_TOOL_OK("PtlPutRegion", PtlPutRegion(r->src, 0, len,
			(flags & F_ACK) ? PTL_ACK_REQ : PTL_NOACK_REQ, r->peer,
			PT_DATA, 0, 0, 0, seq));
	r->acks += (flags & F_ACK) != 0;
	for (;;) {
		ptl_tool_event(&r->t, r->rx, &ev);
		if (ev.type == PTL_EVENT_ACK) {
			r->acks--;
			continue;
		}
		if (ev.type == PTL_EVENT_PUT_END && ev.hdr_data == seq)
			break;
		fprintf(stderr, "ptl_pingpong: %s (%llu) where the echo of %llu "
				"was due\n", PtlEventKindStr(ev.type),
				(unsigned long long)ev.hdr_data,
				(unsigned long long)seq);
		exit(1);
	}
	if (ev.mlength != len) {
		fprintf(stderr, "ptl_pingpong: %llu bytes came back of %u\n",
				(unsigned long long)ev.mlength, len);
		exit(1);
	}
	if ((flags & F_VERIFY) && memcmp(r->rbuf, r->sbuf, len) != 0)
		check(r->rbuf, len, seq);
}

static void
run_length(struct run *r, uint32_t len, struct tool_stats *s)
{
	const struct opts *o = r->o;
	int get = (o->flags & F_GET) != 0;
	double prev, now;

	for (uint32_t i = 0; i < o->warmup; i++)
		ping(r, len);
	prev = tool_now_us();
	for (uint32_t i = 0; i < o->iters; i++) {
		ping(r, len);
		now = tool_now_us();
		r->lat[i] = get ? now - prev : (now - prev) / 2;
		prev = now;
		if (tool_progress_due(&r->prog, now))
			tool_progress_print(&r->prog, now, "length %u, "
					"iteration %u of %u", len, i + 1,
					o->iters);
	}
	tool_stats(r->lat, o->iters, s);
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
		printf("tool,op,length,iterations,warmup,mean_us,median_us,"
				"p99_us,min_us,max_us,mbps\n");
		return;
	}
	printf("# ptl_pingpong to %012llx process %u: %s, %u timed "
			"iterations per length after %u warm-up, %s%s\n",
			(unsigned long long)r->peer.nid, r->peer.pid,
			(o->flags & F_GET) ? "gets, whole round trips" :
			(o->flags & F_ACK) ?
			"puts with ACKs, half round trips" :
			"puts, half round trips", o->iters, o->warmup,
			o->blocking ? "blocking (PtlEQWait)" :
			"polling (PtlEQGet)",
			(o->flags & F_VERIFY) ? ", every byte checked" : "");
	printf("%-10s %12s %12s %12s %12s\n", "length", "latency(us)",
			"median(us)", "p99(us)", "MB/s");
}

static void
print_row(const struct run *r, uint32_t len, const struct tool_stats *s)
{
	double mbps = s->mean > 0 ? len / s->mean : 0;

	if (r->o->csv)
		printf("ptl_pingpong,%s,%u,%u,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f\n",
				op_name(r->o->flags), len, r->o->iters,
				r->o->warmup, s->mean, s->median, s->p99,
				s->min, s->max, mbps);
	else
		printf("%-10u %12.3f %12.3f %12.3f %12.2f\n", len, s->mean,
				s->median, s->p99, mbps);
	fflush(stdout);
}

static int
sender(const struct opts *o)
{
	struct run r = { .o = o };
	struct tool_lengths lens;
	struct ptl_params p = { 0 };
	ptl_handle_md_t word;

	if (tool_lengths_build(&lens, &o->len) < 0)
		return 2;
	r.t.blocking = o->blocking;
	ptl_tool_open(&r.t, o->board, o->pid);
	r.peer = ptl_tool_target(o->dest, o->nid, o->remote_pid);
	p.max_len = lens.max;
	p.flags = o->flags;
	r.sbuf = malloc(lens.max ? lens.max : 1);
	r.rbuf = malloc(lens.max ? lens.max : 1);
	r.lat = malloc(o->iters * sizeof(*r.lat));
	if (r.sbuf == NULL || r.rbuf == NULL || r.lat == NULL)
		ptl_tool_die("memory for the buffers", PTL_NOSPACE);
	fill(r.sbuf, lens.max, 0);
	PTL_TOOL_OK("PtlEQAlloc", PtlEQAlloc(r.t.ni, 1024, &r.rx));
	/* Echoes come to PT_SYNC, as the receiver's first word. */
	ptl_tool_attach(&r.t, PT_SYNC, r.rbuf, lens.max, PTL_MD_OP_PUT |
			PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_START_DISABLE, r.rx);
	r.src = ptl_tool_bind(&r.t, r.sbuf, lens.max,
			PTL_MD_EVENT_START_DISABLE | PTL_MD_EVENT_END_DISABLE,
			(o->flags & F_ACK) ? r.rx : PTL_EQ_NONE);
	r.dst = ptl_tool_bind(&r.t, r.rbuf, lens.max,
			PTL_MD_EVENT_START_DISABLE, r.rx);
	ptl_tool_params_out(&r.t, r.peer, &p, r.rx);
	tool_progress_init(&r.prog, o->progress);
	print_head(&r);
	for (uint32_t i = 0; i < lens.n; i++) {
		struct tool_stats s;

		run_length(&r, lens.len[i], &s);
		print_row(&r, lens.len[i], &s);
	}
	/* The ACKs still owed, then the end of the run. */
	while (r.acks > 0) {
		ptl_tool_want(&r.t, r.rx, PTL_EVENT_ACK);
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

	tool_name = "ptl_pingpong";
	parse(argc, argv, &o);
	return o.dest != NULL || o.nid != 0 ? sender(&o) : receiver(&o);
}
