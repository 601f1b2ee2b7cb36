/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: the link operations, i.e. the datapath and its control.
 *
 * A port set up by setup.c is driven through mxd_glue_port_ops, the
 * narrow interface of link.h and all the engine knows of a port: rx and
 * tx bursts on its one queue pair, buffers from its mempool, link state
 * and counters read from ethdev, and rx interrupts for a thread that
 * sleeps until frames come; and the little control both other files use:
 * what kind of port it is, its devargs, starting it again.  Nothing here
 * depends on the PMD, and nothing here sets a port up: that is setup.c's,
 * so that the operations, which run for the whole life of the process,
 * read on their own.  port.c calls neither setup.c nor memif.c; memif.c
 * calls port.c; setup.c calls both.  A memif
 * port's table (memif.c) is this one with its own bursts.
 *
 * The bursts (port_rx, port_tx) and the two operations memif.c calls per
 * burst too (port_free, port_link_up) are in port_priv.h, static inline,
 * so that memif.c's bursts can have them inlined; this file holds the
 * other operations and the table.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "glue.h"
#include "port_priv.h"

/* ---- datapath: buffers (the bursts are in port_priv.h) ----------------- */

int
mxd_glue_port_alloc(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	struct port_priv *pp = l->priv;
	struct rte_mbuf *m[BURST_MAX];

	if (n > BURST_MAX || rte_pktmbuf_alloc_bulk(pp->mp, m, n) != 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		f[i].h = m[i];
		f[i].data = rte_pktmbuf_mtod(m[i], uint8_t *);
		f[i].len = rte_pktmbuf_tailroom(m[i]);
		f[i].to = 0;
	}
	return 0;
}

/* A received mbuf is as one allocated once reset (rte_pktmbuf_alloc is
 * a get from the pool and a reset): one of the port's pool, direct, of
 * one segment, and ours alone. */
unsigned
mxd_glue_port_recycle(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	struct port_priv *pp = l->priv;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = f[i].h;

		if (m->pool != pp->mp || !RTE_MBUF_DIRECT(m) ||
				m->next != NULL || rte_mbuf_refcnt_read(m) != 1)
			break;
		rte_pktmbuf_reset(m);
		f[i].data = rte_pktmbuf_mtod(m, uint8_t *);
		f[i].len = rte_pktmbuf_tailroom(m);
		f[i].to = 0;
	}
	return i;
}

void
mxd_glue_port_ref(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_mbuf_refcnt_update(f[i].h, 1);
}

/* ---- control path ------------------------------------------------------ */

uint32_t
mxd_glue_port_speed(struct mxd_link *l)
{
	struct rte_eth_link el;

	if (rte_eth_link_get_nowait(l->port_id, &el) != 0 ||
			el.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		return 0;
	return el.link_speed;
}

void
mxd_glue_port_stats(struct mxd_link *l, uint64_t *tx, uint64_t *rx)
{
	struct rte_eth_stats st;

	if (rte_eth_stats_get(l->port_id, &st) != 0) {
		*tx = *rx = 0;
		return;
	}
	*tx = st.opackets;
	*rx = st.ipackets;
}

/* The pool's buffers out of it: not in the pool's ring nor in a core's
 * cache of it. */
uint32_t
mxd_glue_port_in_use(struct mxd_link *l)
{
	struct port_priv *pp = l->priv;

	return rte_mempool_in_use_count(pp->mp);
}

/* ---- rx interrupts (the progression thread's sleep) ------------------- */

/* Ports registered with this thread's DPDK epoll (a thread's epoll is its
 * own: RTE_EPOLL_PER_THREAD). */
static __thread uint64_t intr_registered;

static int
port_intr_arm(struct mxd_link *l)
{
	uint64_t bit = 1ull << (l->port_id & 63);

	if (mxd_glue_port_virtual(l->port_id))
		return -1;	/* none, and ethdev would say so loudly */
	if (!(intr_registered & bit)) {
		if (rte_eth_dev_rx_intr_ctl_q(l->port_id, 0,
					RTE_EPOLL_PER_THREAD,
					RTE_INTR_EVENT_ADD, NULL) != 0)
			return -1;
		intr_registered |= bit;
	}
	return rte_eth_dev_rx_intr_enable(l->port_id, 0) == 0 ? 0 : -1;
}

static void
port_intr_disarm(struct mxd_link *l)
{
	rte_eth_dev_rx_intr_disable(l->port_id, 0);
}

void
mxd_glue_intr_wait(uint32_t ms)
{
	struct rte_epoll_event ev[8];

	rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 8, (int)ms);
}

/* Any PMD's port but memif's (memif.c). */
const struct mxd_link_ops mxd_glue_port_ops = {
	.rx_burst = port_rx,
	.tx_burst = port_tx,
	.alloc = mxd_glue_port_alloc,
	.ref = mxd_glue_port_ref,
	.free = port_free,
	.recycle = mxd_glue_port_recycle,
	.link_up = port_link_up,
	.speed_mbps = mxd_glue_port_speed,
	.stats = mxd_glue_port_stats,
	.intr_arm = port_intr_arm,
	.intr_disarm = port_intr_disarm,
	.in_use = mxd_glue_port_in_use,
};

/* ---- control: what a port is, and starting it again ----------------------
 *
 * Shared by setup.c (bringing ports up) and memif.c (a memif client that
 * lost its server is started again): kept here, below both, so that
 * neither calls back into the other.
 */

int
mxd_glue_port_virtual(uint16_t pid)
{
	struct rte_eth_dev_info info;
	const struct rte_bus *bus;

	if (rte_eth_dev_info_get(pid, &info) != 0 || info.device == NULL)
		return 1;
	bus = rte_dev_bus(info.device);
	return bus == NULL || strcmp(rte_bus_name(bus), "vdev") == 0;
}

int
mxd_glue_devarg(uint16_t pid, const char *key, char *out, size_t len)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	size_t kl = strlen(key);

	out[0] = '\0';
	if (rte_eth_dev_info_get(pid, &info) != 0 ||
			(da = rte_dev_devargs(info.device)) == NULL ||
			da->args == NULL)
		return 0;
	for (const char *a = da->args; *a; a += strcspn(a, ","),
			a += *a == ',') {
		if (strncmp(a, key, kl) == 0 && a[kl] == '=') {
			snprintf(out, len, "%.*s", (int)strcspn(a + kl + 1,
					","), a + kl + 1);
			return 1;
		}
	}
	return 0;
}

uint32_t
mxd_glue_devarg_u32(uint16_t pid, const char *key, uint32_t def)
{
	char v[32];

	return mxd_glue_devarg(pid, key, v, sizeof(v)) ?
		(uint32_t)strtoul(v, NULL, 0) : def;
}

uint64_t
mxd_glue_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
mxd_glue_link_restart(struct mxd_link *l)
{
	/* The PMD says "Failed to connect socket" at every try while the
	 * server is away: the library said it once (board.c, init.c). */
	int type = rte_log_register("pmd.net.memif");
	int level = type >= 0 ? rte_log_get_level(type) : -1;

	if (level >= 0)
		rte_log_set_level(type, RTE_LOG_CRIT);
	if (l->started)
		rte_eth_dev_stop(l->port_id);
	l->started = rte_eth_dev_start(l->port_id) == 0;
	l->started_ms = mxd_glue_now_ms();
	if (level >= 0)
		rte_log_set_level(type, (uint32_t)level);
}
