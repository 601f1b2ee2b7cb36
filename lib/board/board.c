/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Boards: groups of links, their tx queues and the loopback ring.
 *
 * Frames are never sent one by one: the engine pushes them on the port's
 * tx queue and mxd_board_flush() hands each queue to the PMD in bursts at
 * the end of every API call and progress pass.  Frames the PMD does not
 * take (ring full, link down) stay queued; nothing is dropped here.
 *
 * Frames for an endpoint of the same board in this process go to the
 * loopback ring instead, and come back through the same receive path as
 * wire frames: NICs do not loop frames back to their sender.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glue.h"
#include "log.h"
#include "util/clock.h"
#include "board/board.h"
#include "board/shared.h"

struct mxd_lib mxd_lib = {
	.live_hint = { MXD_NO_EP, MXD_NO_EP, MXD_NO_EP, MXD_NO_EP },
};
_Static_assert(MXD_LIVE_HINTS == 4, "the hints' initializer");

/* Parses MX_BOARDS ("0+1,2": board 0 = ports 0 and 1, board 1 = port 2). */
static int
parse_boards(const char *spec, unsigned nlinks,
		int map[MXD_MAX_BOARDS][MXD_BOARD_PORTS + 1])
{
	unsigned nb = 0, np = 0, used = 0;
	const char *s = spec;

	while (*s) {
		char *end;
		unsigned long p = strtoul(s, &end, 10);

		if (end == s || p >= nlinks || (used & (1u << p)) ||
				nb >= MXD_MAX_BOARDS || np >= MXD_BOARD_PORTS)
			return -1;
		used |= 1u << p;
		map[nb][np++] = (int)p;
		map[nb][np] = -1;
		s = end;
		if (*s == '+') {
			s++;
		} else if (*s == ',' || *s == '\0') {
			nb++;
			np = 0;
			if (*s == ',')
				s++;
		} else {
			return -1;
		}
	}
	return (int)nb;
}

static int
default_boards(unsigned nlinks, int map[MXD_MAX_BOARDS][MXD_BOARD_PORTS + 1])
{
	unsigned n = nlinks < MXD_MAX_BOARDS ? nlinks : MXD_MAX_BOARDS;

	for (unsigned i = 0; i < n; i++) {
		map[i][0] = (int)i;
		map[i][1] = -1;
	}
	return (int)n;
}

static void
board_limits(struct mxd_board *b, const struct mxd_config *c)
{
	uint32_t mtu = UINT32_MAX, fmax, emax;

	for (unsigned i = 0; i < b->nports; i++) {
		uint32_t m = b->port[i]->mtu;

		if (b->port[i]->room < m + MXD_ETH_HLEN)
			m = b->port[i]->room - MXD_ETH_HLEN;
		if (m < mtu)
			mtu = m;
	}
	if (mtu > UINT16_MAX)
		mtu = UINT16_MAX;	/* what a connect frame can say */
	if (mtu < MXD_MTU_MIN)
		mtu = MXD_MTU_MIN;	/* MX_MTU=1: no frame holds less */
	b->mtu = mtu;
	fmax = mtu - (uint32_t)(sizeof(struct mxd_hdr) +
			sizeof(struct mxd_eager_hdr));
	if (fmax > UINT16_MAX)
		fmax = UINT16_MAX;
	emax = c->eager_max;
	if (emax > fmax * MXD_MAX_FRAGS)
		emax = fmax * MXD_MAX_FRAGS;
	b->frag_max = fmax;
	b->eager_max = emax;
	/* A pull reply's header is 16 bytes shorter than an eager one's. */
	b->pull_frag_max = fmax + (uint32_t)(sizeof(struct mxd_eager_hdr) -
			sizeof(struct mxd_pullrep_hdr));
	if (b->pull_frag_max > UINT16_MAX)
		b->pull_frag_max = UINT16_MAX;
}

static struct mxd_board *
board_new(struct mxd_lib *lib, const struct mxd_config *c, unsigned idx,
		const int *ports)
{
	struct mxd_board *b = malloc(sizeof(*b));

	if (b == NULL)
		return NULL;
	/* Its rings (a tx queue per port, the loopback ring: 217 KiB) are
	 * mapped in one call now, not a fault per page during the first
	 * frames. */
	mxd_glue_prefault(b, sizeof(*b));
	memset(b, 0, sizeof(*b));
	b->index = idx;
	for (unsigned i = 0; ports[i] >= 0; i++) {
		b->port[i] = lib->links[ports[i]];
		b->link_index[i] = (unsigned)ports[i];
		b->cut_seen[i] = b->port[i]->cut;
		b->long_seen[i] = b->port[i]->too_long;
		b->news_seen[i] = b->port[i]->news;
		b->nports++;
	}
	b->pass_any = b->nports - 1;
	b->nic_id = mxd_mac_to_nic(b->port[0]->mac);
	b->due = b->nports > 1 ? MXD_DUE_PORTS : 0;
	b->pass_left = 1;		/* the first pass counts */
	snprintf(b->name, sizeof(b->name), "%.60s:%u", c->hostname, idx);
	b->host = mxd_shared_host(idx, &b->slot);
	if (b->host != NULL)	/* the service's name for it */
		snprintf(b->name, sizeof(b->name), "%.63s", b->host->board_name);
	board_limits(b, c);
	if (mxd_stats_open(&b->stats, idx, b->nic_id, b->name) < 0) {
		free(b);
		return NULL;
	}
	b->counters = b->stats.counters;
	return b;
}

int
mxd_boards_init(struct mxd_lib *lib, const struct mxd_config *c)
{
	int map[MXD_MAX_BOARDS][MXD_BOARD_PORTS + 1];
	int nb;

	if (c->boards != NULL && *c->boards != '\0')
		nb = parse_boards(c->boards, lib->nlinks, map);
	else
		nb = default_boards(lib->nlinks, map);
	if (nb <= 0)
		return -MX_BAD_PARAM_VAL;
	for (int i = 0; i < nb; i++) {
		struct mxd_board *b = board_new(lib, c, (unsigned)i, map[i]);

		if (b == NULL) {
			mxd_boards_fini(lib);
			return -MX_NO_RESOURCES;
		}
		lib->boards[lib->nboards++] = b;
	}
	return 0;
}

static void
txq_drain(struct mxd_board *b, unsigned p)
{
	struct mxd_txq *q = &b->txq[p];

	for (; q->head != q->tail; q->head++)
		b->port[p]->ops->free(&q->f[q->head & (MXD_TXQ_SIZE - 1)], 1);
	b->tx_queued &= ~(1u << p);
}

void
mxd_boards_fini(struct mxd_lib *lib)
{
	for (unsigned i = 0; i < lib->nboards; i++) {
		struct mxd_board *b = lib->boards[i];

		mxd_board_flush(b);
		mxd_board_rx_done(b);
		for (unsigned p = 0; p < b->nports; p++) {
			txq_drain(b, p);
			mxd_board_free(b, b->stock[p].f, b->stock[p].n);
			b->stock[p].n = 0;
		}
		for (; b->loop_head != b->loop_tail; b->loop_head++)
			b->port[0]->ops->free(&b->loop[b->loop_head &
					(MXD_LOOP_SIZE - 1)], 1);
		mxd_stats_close(&b->stats);
		free(b);
		lib->boards[i] = NULL;
	}
	lib->nboards = 0;
}

struct mxd_board *
mxd_board_by_nic(uint64_t nic_id)
{
	for (unsigned i = 0; i < mxd_lib.nboards; i++)
		if (mxd_lib.boards[i]->nic_id == nic_id)
			return mxd_lib.boards[i];
	return NULL;
}

int
mxd_board_port_up(struct mxd_board *b, unsigned port)
{
	return b->port[port]->ops->link_up(b->port[port]);
}

/* Not those the board keeps as good as free: its stocks of frames to
 * send and the received frames it has not freed yet. */
void
mxd_board_in_use(struct mxd_board *b)
{
	uint64_t n = 0, idle = b->rx_done_n;

	for (unsigned i = 0; i < b->nports; i++)
		if (b->port[i]->ops->in_use != NULL) {
			n += b->port[i]->ops->in_use(b->port[i]);
			idle += b->stock[i].n;
		}
	b->counters[MXD_C_BUFS_IN_USE] = n > idle ? n - idle : 0;
}

void
mxd_board_watch(struct mxd_board *b)
{
	mxd_board_in_use(b);
	if (b->host != NULL)
		mxd_shared_watch(b);
	mxd_glue_guard_check();
	for (unsigned i = 0; i < b->nports; i++) {
		struct mxd_link *l = b->port[i];
		int up = l->started && l->ops->link_up(l);

		if (up && b->reviving[i]) {
			b->reviving[i] = 0;
			MXD_LOG(NOTICE, port, "board %s port %u (%s): link up "
					"again", b->name, i, l->name);
		}
		if (up || l->ops->revive == NULL || !l->ops->revive(l))
			continue;
		if (!b->reviving[i])
			MXD_LOG(WARNING, port, "board %s port %u (%s): link "
					"down (%s); restarting the port every "
					"%u ms until it is back", b->name, i,
					l->name, l->down_hint, MXD_WATCH_MS);
		b->reviving[i] = 1;
	}
}

/* ---- transmit ----------------------------------------------------------- */

/* Hands queued frames to the PMD; a ring that wraps takes two bursts. */
static void
txq_flush(struct mxd_board *b, unsigned p)
{
	struct mxd_txq *q = &b->txq[p];
	struct mxd_link *l = b->port[p];

	b->tx_queued &= ~(1u << p);
	while (q->head != q->tail) {
		uint32_t i = q->head & (MXD_TXQ_SIZE - 1);
		uint32_t n = q->tail - q->head;
		uint16_t sent;

		if (n > MXD_TXQ_SIZE - i)
			n = MXD_TXQ_SIZE - i;
		if (n > 64)
			n = 64;
		sent = l->ops->tx_burst(l, &q->f[i], (uint16_t)n);
		q->head += sent;
		if (sent < n) {
			b->tx_queued |= 1u << p;	/* the next flush */
			b->due |= MXD_DUE_TX;
			mxd_count(b, MXD_C_TX_STALLS);
			return;
		}
	}
}

void
mxd_board_flush_queued(struct mxd_board *b)
{
	for (uint32_t m = b->tx_queued; m != 0; m &= m - 1)
		txq_flush(b, (unsigned)__builtin_ctz(m));
}

int
mxd_board_tx_pending(const struct mxd_board *b)
{
	for (unsigned p = 0; p < b->nports; p++)
		if (b->txq[p].head != b->txq[p].tail)
			return 1;
	return 0;
}

int
mxd_board_restock(struct mxd_board *b, unsigned port, struct mxd_frame *f)
{
	struct mxd_link *l = b->port[port];
	struct mxd_txstock *s = &b->stock[port];

	if (l->ops->alloc(l, s->f, MXD_TX_STOCK) != 0)
		return l->ops->alloc(l, f, 1);	/* the last ones, one each */
	s->n = MXD_TX_STOCK - 1;
	*f = s->f[MXD_TX_STOCK - 1];
	return 0;
}

int
mxd_frame_start(struct mxd_board *b, unsigned port,
		const uint8_t dst[MXD_ETH_ALEN], const struct mxd_hdr_args *a,
		uint16_t body, struct mxd_frame *f)
{
	struct mxd_link *l = b->port[port];

	if (mxd_board_alloc(b, port, f) != 0)
		return -MX_NO_RESOURCES;
	mxd_wire_put_hdr(f->data, dst, l->mac, a, body);
	f->len = (uint32_t)MXD_HDRS_LEN + body;
	mxd_frame_pad(f);
	return 0;
}

/* ---- receive ------------------------------------------------------------ */

/* A ping-pong's replies go in the buffers its requests came in: a reset
 * of each rather than a free and an alloc (and the same few buffers in
 * turn). */
void
mxd_board_rx_release(struct mxd_board *b)
{
	struct mxd_link *l = b->port[0];
	struct mxd_txstock *s = &b->stock[0];
	unsigned n = b->rx_done_n, k = 0;

	if (l->ops->recycle != NULL && s->n < MXD_TX_STOCK) {
		unsigned room = MXD_TX_STOCK - s->n;

		k = l->ops->recycle(l, b->rx_done, n < room ? n : room);
		memcpy(&s->f[s->n], b->rx_done, k * sizeof(*b->rx_done));
		s->n += k;
	}
	mxd_board_free(b, b->rx_done + k, n - k);
	b->rx_done_n = 0;
}

/*
 * Frames the port dropped for being longer than its buffers: counted as
 * received and dropped ("drop: frame too long"), and said once per port.
 * Partners agree on the smaller MTU at connect, so only a peer that does
 * not say its MTU (an older mx-dpdk) or something not MX sends them.
 */
static void
rx_too_long(struct mxd_board *b, unsigned port, const struct mxd_link *l)
{
	uint64_t n = l->too_long - b->long_seen[port];

	if (!(b->long_said & (1u << port)))
		MXD_LOG(WARNING, port, "board %s port %u (%s): frames longer "
				"than its buffers (MTU %u) arrive and are "
				"dropped: a peer sends with a larger MTU without "
				"saying so (an older mx-dpdk?); give both sides "
				"the same MX_MTU", b->name, port, l->name,
				l->mtu);
	b->long_said |= 1u << port;
	b->counters[MXD_C_RX_FRAMES] += n;
	b->counters[MXD_C_DROP_BASE + MXD_DROP_LONG] += n;
	b->long_seen[port] = l->too_long;
}

void
mxd_board_rx_news(struct mxd_board *b, unsigned port)
{
	struct mxd_link *l = b->port[port];

	b->news_seen[port] = l->news;
	if (l->cut != b->cut_seen[port]) {	/* rare: a memif peer gone */
		b->counters[MXD_C_BURSTS_CUT] += l->cut - b->cut_seen[port];
		b->cut_seen[port] = l->cut;
	}
	if (l->too_long != b->long_seen[port])
		rx_too_long(b, port, l);
}

unsigned
mxd_board_loop_rx(struct mxd_board *b, struct mxd_frame *f, unsigned n)
{
	unsigned got = 0;

	while (got < n && b->loop_head != b->loop_tail)
		f[got++] = b->loop[b->loop_head++ & (MXD_LOOP_SIZE - 1)];
	return got;
}

