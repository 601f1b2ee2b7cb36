/* SPDX-License-Identifier: BSD-3-Clause */
/* Fake links: see fake_link.h. */
#include <stdlib.h>
#include <string.h>

#include "fake_link.h"

struct fbuf {
	int refs;
	uint32_t len;
	struct fbuf *next_free;
	uint8_t data[FAKE_ROOM];
};

static long live;
static struct fbuf *free_bufs;	/* recycled, like a mempool */

static struct fbuf *
buf_new(void)
{
	struct fbuf *b = free_bufs;

	if (b != NULL)
		free_bufs = b->next_free;
	else
		b = malloc(sizeof(*b));
	b->refs = 1;
	b->len = 0;
	live++;
	return b;
}

long
fake_live_buffers(void)
{
	return live;
}

size_t
fake_pool_bytes(void)
{
	size_t n = (size_t)live;

	for (const struct fbuf *b = free_bufs; b != NULL; b = b->next_free)
		n++;
	return n * sizeof(struct fbuf);
}

static void
buf_unref(struct fbuf *b)
{
	if (--b->refs == 0) {
		b->next_free = free_bufs;
		free_bufs = b;
		live--;
	}
}

static uint16_t
fake_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct fake_port *p = (struct fake_port *)l;
	uint16_t got = 0;

	if (p->reverse)		/* everything pending, last first */
		for (uint32_t i = p->head, j = p->tail - 1; p->head != p->tail &&
				i < j; i++, j--) {
			void *t = p->ring[i % FAKE_RING];

			p->ring[i % FAKE_RING] = p->ring[j % FAKE_RING];
			p->ring[j % FAKE_RING] = t;
		}
	while (got < n && p->head != p->tail) {
		struct fbuf *b = p->ring[p->head++ % FAKE_RING];

		if (p->rx_max != 0 && b->len > p->rx_max) {
			p->link.too_long++;
			p->link.news++;
			buf_unref(b);
			continue;
		}
		f[got].h = b;
		f[got].data = b->data;
		f[got].len = b->len;
		got++;
	}
	return got;
}

static uint16_t
fake_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct fake_port *p = (struct fake_port *)l, *q = p->peer;
	uint16_t sent = 0;

	if (!p->up)
		return 0;
	while (sent < n && q->tail - q->head < FAKE_RING) {
		struct fbuf *b = f[sent].h;

		if (p->lose) {
			buf_unref(b);
			sent++;
			continue;
		}
		b->len = f[sent].len;
		int act = p->tap != NULL ? p->tap(b->data, b->len) : FAKE_PASS;

		if (act == FAKE_DROP || (act == FAKE_HOLD &&
				p->nheld == FAKE_RING)) {
			buf_unref(b);
			sent++;
			continue;
		}
		/* The wire copies: the receiver gets a buffer of its own. */
		struct fbuf *c = buf_new();

		memcpy(c->data, b->data, b->len);
		c->len = b->len;
		if (act == FAKE_HOLD)
			p->held[p->nheld++] = c;
		else
			q->ring[q->tail++ % FAKE_RING] = c;
		buf_unref(b);
		sent++;
	}
	p->tx_frames += sent;
	return sent;
}

static int
fake_alloc(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	(void)l;
	for (unsigned i = 0; i < n; i++) {
		struct fbuf *b = buf_new();

		f[i].h = b;
		f[i].data = b->data;
		f[i].len = FAKE_ROOM;
	}
	return 0;
}

static void
fake_ref(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		((struct fbuf *)f[i].h)->refs++;
}

static void
fake_free(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		buf_unref(f[i].h);
}

static unsigned
fake_recycle(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	unsigned i;

	(void)l;
	for (i = 0; i < n; i++) {
		struct fbuf *b = f[i].h;

		if (b->refs != 1)
			break;
		f[i].data = b->data;
		f[i].len = FAKE_ROOM;
		f[i].to = 0;
	}
	return i;
}

static int
fake_up(struct mxd_link *l)
{
	return ((struct fake_port *)l)->up;
}

static uint32_t
fake_speed(struct mxd_link *l)
{
	(void)l;
	return 10000;
}

static void
fake_stats(struct mxd_link *l, uint64_t *tx, uint64_t *rx)
{
	*tx = ((struct fake_port *)l)->tx_frames;
	*rx = 0;
}

static const struct mxd_link_ops fake_ops = {
	.rx_burst = fake_rx,
	.tx_burst = fake_tx,
	.alloc = fake_alloc,
	.ref = fake_ref,
	.free = fake_free,
	.recycle = fake_recycle,
	.link_up = fake_up,
	.speed_mbps = fake_speed,
	.stats = fake_stats,
};

static void
fake_init(struct fake_port *p, struct fake_port *peer, uint8_t mac_last,
		uint32_t mtu)
{
	static const uint8_t base[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x00 };

	memset(p, 0, sizeof(*p));
	p->link.ops = &fake_ops;
	memcpy(p->link.mac, base, 6);
	p->link.mac[5] = mac_last;
	p->link.mtu = mtu;
	p->link.room = FAKE_ROOM;
	p->link.numa_node = -1;
	strcpy(p->link.name, "fake");
	strcpy(p->link.driver, "fake_link");
	p->peer = peer;
	p->up = 1;
	p->lose = 0;
}

void
fake_pair(struct fake_port *a, struct fake_port *b, uint8_t mac_a,
		uint8_t mac_b, uint32_t mtu)
{
	fake_init(a, b, mac_a, mtu);
	fake_init(b, a, mac_b, mtu);
}

void
fake_drain(struct fake_port *p)
{
	while (p->head != p->tail)
		buf_unref(p->ring[p->head++ % FAKE_RING]);
	while (p->nheld > 0)
		buf_unref(p->held[--p->nheld]);
}

void
fake_release_n(struct fake_port *p, uint32_t n)
{
	struct fake_port *q = p->peer;
	uint32_t i = 0;

	while (i < p->nheld && i < n && q->tail - q->head < FAKE_RING)
		q->ring[q->tail++ % FAKE_RING] = p->held[i++];
	p->nheld -= i;
	memmove(p->held, p->held + i, p->nheld * sizeof(p->held[0]));
}

void
fake_release(struct fake_port *p)
{
	fake_release_n(p, UINT32_MAX);
}

void
fake_inject(struct fake_port *p, const uint8_t *bytes, uint32_t len)
{
	struct fbuf *c;

	if (p->tail - p->head >= FAKE_RING || len > FAKE_ROOM)
		return;
	c = buf_new();
	memcpy(c->data, bytes, len);
	c->len = len;
	p->ring[p->tail++ % FAKE_RING] = c;
}
