/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the benchmark tools (mx_pingpong, mx_bw) share: the list of message
 * lengths (MX's -S, -E, -I, -M, -L), completing a request by polling or by
 * blocking (-w), strict number parsing, statistics over per-iteration times
 * kept in an array allocated before the timed loop, and a progress line on
 * stderr for long runs.
 *
 * Static inline functions in a header, so that each tool stays a single
 * source file that a user can compile on its own against the installed
 * library (tests/integration/pkgconfig.sh does exactly that).  Only the
 * public MX API is used.
 */
#ifndef MX_TOOL_H
#define MX_TOOL_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <myriexpress.h>
#include <mx_extensions.h>

/* Longest message the tools send (MX's tools had the same limit). */
#define TOOL_MAX_LEN (1u << 30)
/* Most lengths one run can step through (-I 1 over 0..4095 fits). */
#define TOOL_MAX_LENGTHS 4096
/*
 * Polling gives up on a request after this long, so that a peer that
 * vanished cannot hang a test; blocking (-w) waits without limit and relies
 * on the library's MX_PEER_TIMEOUT_MS to fail the request instead.
 */
#define TOOL_POLL_LIMIT_S 60.0
/* A persistent receiver's sender silent this long may be dead. */
#define TOOL_SILENT_S 1.0
/* A run prints progress once it has lasted this long (--progress)... */
#define TOOL_PROGRESS_AFTER_S 3.0
/* ...then every this often on a terminal, and every 10 s into a file. */
#define TOOL_PROGRESS_TTY_S 0.5
#define TOOL_PROGRESS_LOG_S 10.0

/* Set by each tool's main() before anything else: prefixes messages. */
static const char *tool_name = "mx";

static inline double
tool_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline void
tool_die(const char *what, mx_return_t rc)
{
	fprintf(stderr, "%s: %s: %s\n", tool_name, what, mx_strerror(rc));
	exit(1);
}

/* The process that holds endpoint ep of a shared board (0: none, or the
 * board is not shared). */
static inline int
tool_holder(uint32_t board, uint32_t ep)
{
	mx_dpdk_board_t b;

	if (ep >= 32 || mx_dpdk_get_board(board, &b) != MX_SUCCESS ||
			b.mode != MX_DPDK_BOARD_SHARED ||
			b.endpoint_slot[ep] >= MX_DPDK_BOARD_SLOTS)
		return 0;
	return b.slot_pid[b.endpoint_slot[ep]];
}

/* mx_open_endpoint failed for -b board -e endpoint: say which and why. */
static inline void
tool_open_die(uint32_t board, uint32_t ep, mx_return_t rc)
{
	if (rc == MX_BAD_ENDPOINT_ID)
		fprintf(stderr, "%s: endpoint %u (-e) does not exist: a board "
				"has endpoints 0 to %u, or MX_ANY_ENDPOINT\n",
				tool_name, ep, MX_MAX_ENDPOINTS - 1);
	else if (rc == MX_BUSY && tool_holder(board, ep) > 0)
		fprintf(stderr, "%s: endpoint %u of shared board %u is open in "
				"process %d (mx_info lists who holds which): "
				"give -e another one\n", tool_name, ep, board,
				tool_holder(board, ep));
	else if (rc == MX_BUSY)
		fprintf(stderr, "%s: endpoint %u of board %u is open already "
				"in this process: give -e another one\n",
				tool_name, ep, board);
	else if (rc == MX_BOARD_UNKNOWN)
		fprintf(stderr, "%s: board %u (-b) does not exist: mx_info "
				"lists this process's boards (one per port of "
				"MX_DPDK_ARGS, or MX_BOARDS)\n", tool_name, board);
	else
		tool_die("mx_open_endpoint", rc);
	exit(1);
}

/* Opens endpoint ep of board with filter, or exits saying why. */
static inline mx_endpoint_t
tool_open(uint32_t board, uint32_t ep, uint32_t filter)
{
	mx_endpoint_t e;
	mx_return_t rc = mx_open_endpoint(board, ep, filter, NULL, 0, &e);

	if (rc != MX_SUCCESS)
		tool_open_die(board, ep, rc);
	return e;
}

/* An option's number, or exit 2: "-N 1k" or "-N -1" is a mistake, not 0. */
static inline uint32_t
tool_u32(const char *arg, char opt)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' ||
			v > UINT32_MAX) {
		fprintf(stderr, "%s: -%c wants a number from 0 to %u, not "
				"'%s'\n", tool_name, opt, UINT32_MAX, arg);
		exit(2);
	}
	return (uint32_t)v;
}

static inline uint64_t
tool_hex64(const char *arg, char opt)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 16);
	if (errno != 0 || end == arg || *end != '\0') {
		fprintf(stderr, "%s: -%c wants a hexadecimal NIC id, not "
				"'%s'\n", tool_name, opt, arg);
		exit(2);
	}
	return v;
}

/* ---- message lengths --------------------------------------------------- */

/*
 * How the lengths go from -S to -E (both included), as in Myricom's
 * mx_pingpong: -I adds a fixed increment; -M multiplies (a product that
 * does not grow, as from 0, steps by one); -L reads them from a file, one a
 * line.  Without any of them the lengths double (-M 2): 0, 1, 2, 4, ...
 */
struct tool_len_opts {
	uint32_t start, end, inc;
	double mult;
	const char *file;
};

struct tool_lengths {
	uint32_t n, max;
	uint32_t len[TOOL_MAX_LENGTHS];
};

/* Option c (-S, -E, -I, -M or -L) with its argument into o: 1, or 0 if
 * c is not one of them. */
static inline int
tool_len_opt(struct tool_len_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'S': o->start = tool_u32(arg, 'S'); return 1;
	case 'E': o->end = tool_u32(arg, 'E'); return 1;
	case 'I': o->inc = tool_u32(arg, 'I'); return 1;
	case 'M':
		o->mult = strtod(arg, NULL);
		o->inc = 0;
		if (!(o->mult > 1.0) || o->mult > 1e6) {
			fprintf(stderr, "%s: -M wants a multiplier above 1\n",
					tool_name);
			exit(2);
		}
		return 1;
	case 'L': o->file = arg; return 1;
	}
	return 0;
}

static inline int
tool_len_add(struct tool_lengths *l, unsigned long long len)
{
	if (len > TOOL_MAX_LEN) {
		fprintf(stderr, "%s: length %llu is above the limit of %u\n",
				tool_name, len, TOOL_MAX_LEN);
		return -1;
	}
	if (l->n == TOOL_MAX_LENGTHS) {
		fprintf(stderr, "%s: more than %u lengths\n", tool_name,
				TOOL_MAX_LENGTHS);
		return -1;
	}
	l->len[l->n++] = (uint32_t)len;
	if (len > l->max)
		l->max = (uint32_t)len;
	return 0;
}

static inline int
tool_len_file(struct tool_lengths *l, const char *file)
{
	char line[128];
	FILE *f = fopen(file, "r");
	int rc = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: %s: %s\n", tool_name, file,
				strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *end;
		unsigned long long v;

		p += strspn(p, " \t");
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		v = strtoull(p, &end, 0);
		if (end == p || *p == '-' || end[strspn(end, " \t\r\n")]) {
			fprintf(stderr, "%s: %s: not a length: %s", tool_name,
					file, line);
			rc = -1;
		} else {
			rc = tool_len_add(l, v);
		}
	}
	fclose(f);
	if (rc == 0 && l->n == 0) {
		fprintf(stderr, "%s: %s holds no length\n", tool_name, file);
		rc = -1;
	}
	return rc;
}

static inline int
tool_lengths_build(struct tool_lengths *l, const struct tool_len_opts *o)
{
	unsigned long long len = o->start;

	l->n = 0;
	l->max = 0;
	if (o->file != NULL)
		return tool_len_file(l, o->file);
	if (o->end > TOOL_MAX_LEN) {
		fprintf(stderr, "%s: end length %u is above the limit of %u\n",
				tool_name, o->end, TOOL_MAX_LEN);
		return -1;
	}
	if (o->start > o->end) {
		fprintf(stderr, "%s: start length %u is above end length %u\n",
				tool_name, o->start, o->end);
		return -1;
	}
	while (len <= o->end) {
		unsigned long long next;

		if (tool_len_add(l, len) < 0)
			return -1;
		if (o->inc != 0)
			next = len + o->inc;
		else
			next = (unsigned long long)((double)len * o->mult);
		len = next > len ? next : len + 1;
	}
	return 0;
}

/* ---- completing requests ----------------------------------------------- */

/*
 * Completes *req into *st.  Polling (mx_test in a loop) is what MX's tools
 * do by default and measures the library without the blocking path;
 * -w blocks in mx_wait(MX_INFINITE).  Returns MX_SUCCESS once complete,
 * MX_TIMEOUT if polling gave up, MX_BUSY (see below), or the call's error.
 *
 * A persistent receiver (-s) passes 'next', the match information of a
 * sender's first message: a receive is bound to no sender, so it does not
 * fail when the sender dies, and the receiver would wait for nothing.  Once
 * a wait has lasted TOOL_SILENT_S, it also ends (MX_BUSY) as soon as a new
 * sender's first message is waiting; blocking, it then waits a second at a
 * time so as to look.
 */
static inline mx_return_t
tool_complete(mx_endpoint_t ep, mx_request_t *req, int blocking,
		const uint64_t *next, mx_status_t *st)
{
	uint32_t done = 0, found = 0;
	double start = 0, now;
	mx_status_t probe;
	mx_return_t rc;

	for (uint32_t polls = 0;; polls++) {
		if (blocking)
			rc = mx_wait(ep, req, next ? 1000 : MX_INFINITE, st,
					&done);
		else
			rc = mx_test(ep, req, st, &done);
		if (rc != MX_SUCCESS || done)
			return rc;
		/* The clock only now and then: it costs more than a poll. */
		if (!blocking && (polls & 4095) != 4095)
			continue;
		now = tool_now_us();
		if (start == 0)
			start = now;
		if (!blocking && now - start > TOOL_POLL_LIMIT_S * 1e6)
			return MX_TIMEOUT;
		if (next != NULL && now - start > TOOL_SILENT_S * 1e6 &&
				mx_iprobe(ep, *next, MX_MATCH_MASK_NONE, &probe,
					&found) == MX_SUCCESS && found)
			return MX_BUSY;
	}
}

/*
 * Completes a request that must succeed: 0; -1 if it failed (it is
 * released); -2 if it did not complete (it is still pending).
 */
static inline int
tool_must_complete(mx_endpoint_t ep, mx_request_t *req, int blocking,
		const uint64_t *next, mx_status_t *st)
{
	mx_return_t rc = tool_complete(ep, req, blocking, next, st);

	if (rc != MX_SUCCESS) {
		fprintf(stderr, "%s: waiting for a request: %s\n", tool_name,
				rc == MX_TIMEOUT ? "no completion in 60 s" :
				rc == MX_BUSY ? "silent sender, and a new one "
				"is waiting" : mx_strerror(rc));
		return -2;
	}
	if (st->code != MX_STATUS_SUCCESS) {
		fprintf(stderr, "%s: request failed: %s\n", tool_name,
				mx_strstatus(st->code));
		return -1;
	}
	return 0;
}

/* ---- statistics -------------------------------------------------------- */

struct tool_stats {
	double mean, median, p99, min, max;
};

static inline int
tool_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Summarises n > 0 samples, sorting them in place (after the timed loop).
 * p99 is the nearest-rank 99th percentile: the smallest sample that at
 * least 99% of the samples do not exceed.
 */
static inline void
tool_stats(double *v, uint32_t n, struct tool_stats *s)
{
	double sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof(v[0]), tool_cmp_double);
	s->mean = sum / n;
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s->p99 = v[(uint32_t)(((uint64_t)n * 99 + 99) / 100) - 1];
	s->min = v[0];
	s->max = v[n - 1];
}

/* ---- progress ---------------------------------------------------------- */

/*
 * Long runs (a 1 GiB sweep, a million iterations) say where they are on
 * stderr, so that stdout stays the table or CSV a script reads.  On a
 * terminal the line is rewritten in place and erased at the end; into a
 * file, a line every TOOL_PROGRESS_LOG_S.
 */
struct tool_progress {
	double start, next;
	int tty, shown, off;
};

/* 'after' < 0: no progress at all. */
static inline void
tool_progress_init(struct tool_progress *p, double after)
{
	p->start = tool_now_us();
	p->off = after < 0;
	p->next = p->start + after * 1e6;
	p->tty = isatty(STDERR_FILENO);
	p->shown = 0;
}

/* --progress=SECONDS: when the first progress line may come. */
static inline double
tool_progress_arg(const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end != '\0' || !(v >= 0)) {
		fprintf(stderr, "%s: --progress wants seconds, not '%s'\n",
				tool_name, arg);
		exit(2);
	}
	return v;
}

static inline int
tool_progress_due(const struct tool_progress *p, double now)
{
	return !p->off && now >= p->next;
}

__attribute__((format(printf, 3, 4)))
static inline void
tool_progress_print(struct tool_progress *p, double now, const char *fmt,
		...)
{
	va_list ap;

	fprintf(stderr, "%s%s: ", p->tty ? "\r" : "", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ", %.0f s%s", (now - p->start) / 1e6,
			p->tty ? "\033[K" : "\n");
	fflush(stderr);
	p->shown = 1;
	p->next = now + (p->tty ? TOOL_PROGRESS_TTY_S : TOOL_PROGRESS_LOG_S) *
		1e6;
}

static inline void
tool_progress_done(struct tool_progress *p)
{
	if (p->tty && p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = 0;
}

#endif /* MX_TOOL_H */
