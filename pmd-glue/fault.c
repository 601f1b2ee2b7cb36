/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection (see fault.h for the spec).
 *
 * A received frame goes through: the delay line (when delay= is set), then
 * drop, corrupt, duplicate and reorder decisions, each drawn from the
 * link's own xorshift stream, so a seed replays the same decisions for
 * the same sequence of frames.  A reordered frame is held until 1 to
 * 'depth' later frames were delivered, or for at most a millisecond when
 * traffic stops.  Nothing here allocates after the wrap.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault.h"
#include "glue.h"

#define HOLD_MAX	64		/* reordered frames held at once */
#define HOLD_NS		1000000u	/* longest hold when traffic stops */
#define DELAY_RING	8192		/* frames on the delay line, 2^n */
#define BURST		32

struct fault_conf {
	int port;			/* -1: every link */
	uint64_t seed;
	uint64_t drop, dup, reorder, corrupt;	/* probability * 2^32 */
	uint32_t depth;
	uint32_t delay_us;
	int64_t dead_ms, down_ms;	/* -1: never */
	uint64_t after;			/* dead/down clock starts after this
					 * many frames (0: at the wrap) */
};

struct held {
	struct mxd_frame f;
	uint64_t after;			/* release once this many delivered */
	uint64_t until;			/* ... or at this time (ns) */
};

struct fault_link {
	struct mxd_link link;		/* what the engine sees */
	struct mxd_link_ops ops;
	struct mxd_link *inner;
	struct fault_conf c;
	uint64_t rng;
	uint64_t t0;			/* ns, when the dead/down clock began */
	uint64_t carried;		/* frames through, both ways, until then */
	int armed;			/* the clock runs */
	uint64_t delivered;
	unsigned nhold;
	struct held hold[HOLD_MAX];
	uint32_t dhead, dtail;		/* delay line, free-running */
	struct mxd_frame *dline;
	uint64_t *ddue;
	struct mxd_fault_stats st;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
rnd(struct fault_link *fl)
{
	/* xorshift64* */
	fl->rng ^= fl->rng >> 12;
	fl->rng ^= fl->rng << 25;
	fl->rng ^= fl->rng >> 27;
	return fl->rng * 0x2545f4914f6cdd1dull;
}

static int
chance(struct fault_link *fl, uint64_t p)
{
	return p != 0 && (rnd(fl) >> 32) < p;
}

static struct fault_link *
fl_of(struct mxd_link *l)
{
	return (struct fault_link *)(void *)((char *)l -
			offsetof(struct fault_link, link));
}

/* Counts frames until the dead/down clock starts (after=N), then starts it. */
static void
carry(struct fault_link *fl, unsigned n, uint64_t now)
{
	if (fl->armed)
		return;
	fl->carried += n;
	if (fl->carried >= fl->c.after) {
		fl->armed = 1;
		fl->t0 = now;
	}
}

static int
past(const struct fault_link *fl, int64_t ms, uint64_t now)
{
	return ms >= 0 && fl->armed && now - fl->t0 >= (uint64_t)ms * 1000000u;
}

static int
is_dead(const struct fault_link *fl, uint64_t now)
{
	return past(fl, fl->c.dead_ms, now) || past(fl, fl->c.down_ms, now);
}

static void
drop_frames(struct fault_link *fl, struct mxd_frame *f, unsigned n)
{
	if (n != 0)
		fl->inner->ops->free(f, n);
}

/* Everything held is lost when the link dies. */
static void
drop_held(struct fault_link *fl)
{
	for (unsigned i = 0; i < fl->nhold; i++)
		drop_frames(fl, &fl->hold[i].f, 1);
	fl->st.dead += fl->nhold;
	fl->nhold = 0;
	for (; fl->dhead != fl->dtail; fl->dhead++, fl->st.dead++)
		drop_frames(fl, &fl->dline[fl->dhead & (DELAY_RING - 1)], 1);
}

/* Frames entering the fault stage: from the delay line or the port. */
static unsigned
take(struct fault_link *fl, struct mxd_frame *f, unsigned max, uint64_t now)
{
	struct mxd_frame in[BURST];
	unsigned k = 0, got, room;

	if (fl->c.delay_us == 0)
		return fl->inner->ops->rx_burst(fl->inner, f, (uint16_t)max);
	room = DELAY_RING - (fl->dtail - fl->dhead);
	got = fl->inner->ops->rx_burst(fl->inner, in,
			(uint16_t)(room < BURST ? room : BURST));
	for (unsigned i = 0; i < got; i++) {
		uint32_t s = fl->dtail++ & (DELAY_RING - 1);

		fl->dline[s] = in[i];
		fl->ddue[s] = now + (uint64_t)fl->c.delay_us * 1000u;
		fl->st.delayed++;
	}
	while (k < max && fl->dhead != fl->dtail &&
			fl->ddue[fl->dhead & (DELAY_RING - 1)] <= now)
		f[k++] = fl->dline[fl->dhead++ & (DELAY_RING - 1)];
	return k;
}

static void
hold_frame(struct fault_link *fl, const struct mxd_frame *f, uint64_t after,
		uint64_t now)
{
	struct held *h;

	if (fl->nhold == HOLD_MAX) {	/* only a surplus duplicate */
		drop_frames(fl, (struct mxd_frame *)(uintptr_t)f, 1);
		return;
	}
	h = &fl->hold[fl->nhold++];
	h->f = *f;
	h->after = after;
	h->until = now + HOLD_NS;
}

static void
corrupt(struct fault_link *fl, struct mxd_frame *f)
{
	unsigned flips = 1 + (unsigned)(rnd(fl) % 3);

	for (unsigned i = 0; i < flips && f->len != 0; i++) {
		uint64_t r = rnd(fl);

		f->data[(r >> 8) % f->len] ^= (uint8_t)(1u << (r & 7));
	}
	fl->st.corrupted++;
}

static uint16_t
fault_rx_frames(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct fault_link *fl = fl_of(l);
	uint64_t now = now_ns();
	struct mxd_frame in[BURST];
	unsigned out = 0, got;

	if (is_dead(fl, now)) {
		got = fl->inner->ops->rx_burst(fl->inner, in, BURST);
		drop_frames(fl, in, got);
		fl->st.dead += got;
		drop_held(fl);
		return 0;
	}
	/* Held frames whose turn came, oldest first. */
	for (unsigned i = 0; i < fl->nhold && out < n;) {
		struct held *h = &fl->hold[i];

		if (h->after > fl->delivered && h->until > now) {
			i++;
			continue;
		}
		f[out++] = h->f;
		fl->delivered++;
		*h = fl->hold[--fl->nhold];
	}
	got = out < n ? take(fl, in, n - out < BURST ? n - out : BURST, now) : 0;
	carry(fl, got, now);
	for (unsigned i = 0; i < got; i++) {
		struct mxd_frame *x = &in[i];
		unsigned copies = 1;

		if (chance(fl, fl->c.drop)) {
			drop_frames(fl, x, 1);
			fl->st.dropped++;
			continue;
		}
		if (chance(fl, fl->c.corrupt))
			corrupt(fl, x);
		if (chance(fl, fl->c.dup)) {
			fl->inner->ops->ref(x, 1);
			fl->st.duplicated++;
			copies = 2;
		}
		for (unsigned c = 0; c < copies; c++) {
			if (fl->nhold < HOLD_MAX && chance(fl, fl->c.reorder)) {
				hold_frame(fl, x, fl->delivered + 1 +
						rnd(fl) % fl->c.depth, now);
				fl->st.reordered++;
			} else if (out < n) {
				f[out++] = *x;
				fl->delivered++;
			} else {
				hold_frame(fl, x, 0, now);
			}
		}
	}
	return (uint16_t)out;
}

/* The port's own losses (bursts cut short, frames too long) show through
 * the wrapper as they happen. */
static uint16_t
fault_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct fault_link *fl = fl_of(l);
	uint16_t got = fault_rx_frames(l, f, n);

	l->cut = fl->inner->cut;
	l->too_long = fl->inner->too_long;
	l->news = fl->inner->news;
	return got;
}

static uint16_t
fault_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct fault_link *fl = fl_of(l);
	uint64_t now = now_ns();
	uint16_t sent;

	if (is_dead(fl, now)) {
		drop_frames(fl, f, n);
		fl->st.dead += n;
		return n;
	}
	sent = fl->inner->ops->tx_burst(fl->inner, f, n);
	carry(fl, sent, now);
	return sent;
}

static int
fault_alloc(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	struct fault_link *fl = fl_of(l);

	return fl->inner->ops->alloc(fl->inner, f, n);
}

static unsigned
fault_recycle(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	struct fault_link *fl = fl_of(l);

	return fl->inner->ops->recycle(fl->inner, f, n);
}

static int
fault_link_up(struct mxd_link *l)
{
	struct fault_link *fl = fl_of(l);

	if (past(fl, fl->c.down_ms, now_ns()))
		return 0;
	return fl->inner->ops->link_up(fl->inner);
}

static uint32_t
fault_speed(struct mxd_link *l)
{
	struct fault_link *fl = fl_of(l);

	return fl->inner->ops->speed_mbps(fl->inner);
}

static void
fault_port_stats(struct mxd_link *l, uint64_t *tx, uint64_t *rx)
{
	struct fault_link *fl = fl_of(l);

	fl->inner->ops->stats(fl->inner, tx, rx);
}

static uint32_t
fault_in_use(struct mxd_link *l)
{
	struct fault_link *fl = fl_of(l);

	return fl->inner->ops->in_use(fl->inner);
}

/* ---- the spec ------------------------------------------------------------ */

static int
parse_prob(const char *v, uint64_t *p)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (*end == '%') {
		x /= 100.0;
		end++;
	}
	if (errno || end == v || *end != '\0' || !(x >= 0.0 && x <= 1.0))
		return -1;
	*p = (uint64_t)(x * 4294967296.0);
	return 0;
}

static int
parse_u64(const char *v, uint64_t max, uint64_t *x)
{
	char *end;

	errno = 0;
	*x = strtoull(v, &end, 0);
	return errno || end == v || *end != '\0' || *x > max ? -1 : 0;
}

/* One key=value into c: 0, -1 for a bad value, -2 for an unknown key. */
static int
set_key(struct fault_conf *c, const char *k, const char *v)
{
	uint64_t x;

	if (!strcmp(k, "drop"))
		return parse_prob(v, &c->drop);
	if (!strcmp(k, "dup"))
		return parse_prob(v, &c->dup);
	if (!strcmp(k, "reorder"))
		return parse_prob(v, &c->reorder);
	if (!strcmp(k, "corrupt"))
		return parse_prob(v, &c->corrupt);
	if (!strcmp(k, "seed"))
		return parse_u64(v, UINT64_MAX, &c->seed);
	if (!strcmp(k, "port")) {
		if (parse_u64(v, MXD_GLUE_MAX_PORTS - 1, &x) < 0)
			return -1;
		c->port = (int)x;
	} else if (!strcmp(k, "depth")) {
		if (parse_u64(v, HOLD_MAX, &x) < 0 || x == 0)
			return -1;
		c->depth = (uint32_t)x;
	} else if (!strcmp(k, "delay")) {
		if (parse_u64(v, 1000000, &x) < 0)
			return -1;
		c->delay_us = (uint32_t)x;
	} else if (!strcmp(k, "dead") || !strcmp(k, "down")) {
		if (parse_u64(v, 86400000, &x) < 0)
			return -1;
		*(k[1] == 'e' ? &c->dead_ms : &c->down_ms) = (int64_t)x;
	} else if (!strcmp(k, "after")) {
		return parse_u64(v, UINT64_MAX, &c->after);
	} else {
		return -2;
	}
	return 0;
}

/* One group "k=v,k=v" into c; returns 0 or -1 (error set). */
static int
parse_group(char *g, struct fault_conf *c)
{
	char *save = NULL;

	for (char *kv = strtok_r(g, ",", &save); kv != NULL;
			kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');
		int rc;

		if (v == NULL) {
			mxd_glue_set_error("MX_FAULTS: '%s' is not key=value",
					kv);
			return -1;
		}
		*v++ = '\0';
		rc = set_key(c, kv, v);
		if (rc == -2) {
			mxd_glue_set_error("MX_FAULTS: unknown key '%s' (drop, "
					"dup, reorder, depth, corrupt, delay, "
					"dead, down, after, port, seed)", kv);
			return -1;
		}
		if (rc < 0) {
			mxd_glue_set_error("MX_FAULTS: bad value %s=%s: drop, "
					"dup, reorder and corrupt take a "
					"probability (0.05 or 5%%), the others "
					"a whole number", kv, v);
			return -1;
		}
	}
	return 0;
}

static struct fault_link *
wrap_one(struct mxd_link *inner, const struct fault_conf *c, unsigned idx)
{
	struct fault_link *fl = calloc(1, sizeof(*fl));

	if (fl == NULL)
		return NULL;
	if (c->delay_us != 0) {
		fl->dline = calloc(DELAY_RING, sizeof(*fl->dline));
		fl->ddue = calloc(DELAY_RING, sizeof(*fl->ddue));
		if (fl->dline == NULL || fl->ddue == NULL) {
			free(fl->dline);
			free(fl->ddue);
			free(fl);
			return NULL;
		}
	}
	fl->link = *inner;
	fl->link.ops = &fl->ops;
	fl->link.priv = NULL;
	fl->ops = *inner->ops;		/* ref and free act on frames only */
	fl->ops.rx_burst = fault_rx;
	fl->ops.tx_burst = fault_tx;
	fl->ops.alloc = fault_alloc;
	fl->ops.recycle = inner->ops->recycle != NULL ? fault_recycle : NULL;
	fl->ops.link_up = fault_link_up;
	fl->ops.speed_mbps = fault_speed;
	fl->ops.stats = fault_port_stats;
	fl->ops.in_use = inner->ops->in_use != NULL ? fault_in_use : NULL;
	fl->inner = inner;
	fl->c = *c;
	fl->rng = (c->seed ^ (0x9e3779b97f4a7c15ull * (idx + 1))) | 1;
	carry(fl, 0, now_ns());
	return fl;
}

static int
is_fault(const struct mxd_link *l)
{
	return l->ops->rx_burst == fault_rx;
}

int
mxd_fault_wrap(const char *spec, struct mxd_link **links, unsigned n)
{
	struct fault_conf conf[MXD_GLUE_MAX_PORTS];
	unsigned have[MXD_GLUE_MAX_PORTS] = { 0 };
	char *copy, *save = NULL;
	int wrapped = 0;

	if (spec == NULL || *spec == '\0')
		return 0;
	copy = strdup(spec);
	if (copy == NULL)
		return -1;
	for (char *g = strtok_r(copy, ";", &save); g != NULL;
			g = strtok_r(NULL, ";", &save)) {
		struct fault_conf c = { .port = -1, .seed = 1, .depth = 8,
			.dead_ms = -1, .down_ms = -1 };

		if (parse_group(g, &c) < 0) {
			free(copy);
			return -1;
		}
		for (unsigned i = 0; i < n && i < MXD_GLUE_MAX_PORTS; i++)
			if (c.port < 0 || (unsigned)c.port == i) {
				conf[i] = c;
				have[i] = 1;
			}
	}
	free(copy);
	for (unsigned i = 0; i < n && i < MXD_GLUE_MAX_PORTS; i++) {
		struct fault_link *fl;

		if (!have[i] || is_fault(links[i]))
			continue;
		fl = wrap_one(links[i], &conf[i], i);
		if (fl == NULL) {
			mxd_glue_set_error("MX_FAULTS: out of memory");
			mxd_fault_unwrap(links, n);
			return -1;
		}
		links[i] = &fl->link;
		wrapped++;
	}
	return wrapped;
}

void
mxd_fault_unwrap(struct mxd_link **links, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct fault_link *fl;

		if (links[i] == NULL || !is_fault(links[i]))
			continue;
		fl = fl_of(links[i]);
		drop_held(fl);
		links[i] = fl->inner;
		free(fl->dline);
		free(fl->ddue);
		free(fl);
	}
}

int
mxd_fault_stats(const struct mxd_link *l, struct mxd_fault_stats *s)
{
	if (!is_fault(l))
		return -1;
	*s = fl_of((struct mxd_link *)(uintptr_t)l)->st;
	return 0;
}
