/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: set-up (control path) and the link operations (datapath).
 *
 * Every available DPDK port gets one rx and one tx queue and a mempool on
 * the port's NUMA socket.  Ports are configured once per process and stay
 * started until exit, because the EAL cannot be initialised twice and MX
 * programs may call mx_init()/mx_finalize() repeatedly.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "glue.h"

#define BURST_MAX	64

struct port_priv {
	struct rte_mempool *mp;
};

static struct mxd_link links[MXD_GLUE_MAX_PORTS];
static struct port_priv privs[MXD_GLUE_MAX_PORTS];
static unsigned nb_links;
static int ports_ready;

/* ---- datapath ---------------------------------------------------------- */

static uint16_t
port_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct rte_mbuf *m[BURST_MAX];
	uint16_t got;

	if (n > BURST_MAX)
		n = BURST_MAX;
	got = rte_eth_rx_burst(l->port_id, 0, m, n);
	for (uint16_t i = 0; i < got; i++) {
		f[i].h = m[i];
		f[i].data = rte_pktmbuf_mtod(m[i], uint8_t *);
		f[i].len = rte_pktmbuf_data_len(m[i]);
	}
	return got;
}

static uint16_t
port_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	struct rte_mbuf *m[BURST_MAX];

	if (n > BURST_MAX)
		n = BURST_MAX;
	for (uint16_t i = 0; i < n; i++) {
		m[i] = f[i].h;
		m[i]->data_len = (uint16_t)f[i].len;
		m[i]->pkt_len = f[i].len;
	}
	return rte_eth_tx_burst(l->port_id, 0, m, n);
}

static int
port_alloc(struct mxd_link *l, struct mxd_frame *f, unsigned n)
{
	struct port_priv *pp = l->priv;
	struct rte_mbuf *m[BURST_MAX];

	if (n > BURST_MAX || rte_pktmbuf_alloc_bulk(pp->mp, m, n) != 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		f[i].h = m[i];
		f[i].data = rte_pktmbuf_mtod(m[i], uint8_t *);
		f[i].len = rte_pktmbuf_tailroom(m[i]);
	}
	return 0;
}

static void
port_ref(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_mbuf_refcnt_update(f[i].h, 1);
}

static void
port_free(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(f[i].h);
}

/* ---- control path ------------------------------------------------------ */

static int
port_link_up(struct mxd_link *l)
{
	struct rte_eth_link el;

	if (rte_eth_link_get_nowait(l->port_id, &el) != 0)
		return 0;
	return el.link_status == RTE_ETH_LINK_UP;
}

static uint32_t
port_speed(struct mxd_link *l)
{
	struct rte_eth_link el;

	if (rte_eth_link_get_nowait(l->port_id, &el) != 0 ||
			el.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		return 0;
	return el.link_speed;
}

static void
port_stats(struct mxd_link *l, uint64_t *tx, uint64_t *rx)
{
	struct rte_eth_stats st;

	if (rte_eth_stats_get(l->port_id, &st) != 0) {
		*tx = *rx = 0;
		return;
	}
	*tx = st.opackets;
	*rx = st.ipackets;
}

static const struct mxd_link_ops port_ops = {
	.rx_burst = port_rx,
	.tx_burst = port_tx,
	.alloc = port_alloc,
	.ref = port_ref,
	.free = port_free,
	.link_up = port_link_up,
	.speed_mbps = port_speed,
	.stats = port_stats,
};

/* ---- memif: bursts that outlive the peer's memory ---------------------- */

/*
 * DPDK's memif PMD unmaps the peer's shared memory from the EAL interrupt
 * thread as soon as the peer's socket closes (the peer exited or died),
 * without waiting for a burst in progress on the datapath: the burst tests
 * "connected" on entry only, so one caught in that window faults on the
 * memory that just went away.  Bursts on memif ports therefore run under
 * a guard.  A SIGSEGV or SIGBUS while the guard is armed and the port's
 * link reads down (memif marks it down before unmapping) ends the burst:
 * nothing received, or every frame taken (the PMD may have freed some of
 * them, so none can be handed back; the buffers of that one burst leak).
 * The frames are lost like any frame to a dead peer, and the next burst
 * finds the port disconnected.  Any other fault goes to the handler that
 * was there before (the default, a sanitizer's, the application's).
 */
struct burst_guard {
	sigjmp_buf env;
	volatile sig_atomic_t armed;
	uint16_t port;
};

/* The executable's own TLS (a static library): no __tls_get_addr call on
 * every burst. */
static __thread struct burst_guard guard
	__attribute__((tls_model("initial-exec")));
static struct sigaction old_segv, old_bus;
static int guard_installed;

static void
on_fault(int sig, siginfo_t *si, void *ctx)
{
	struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;
	struct rte_eth_link el;

	if (guard.armed && rte_eth_link_get_nowait(guard.port, &el) == 0 &&
			el.link_status == RTE_ETH_LINK_DOWN) {
		guard.armed = 0;
		siglongjmp(guard.env, 1);
	}
	if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN)
		signal(sig, SIG_DFL);	/* returning repeats the access,
					 * which now kills as usual */
	else if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, si, ctx);
	else
		old->sa_handler(sig);
}

static void
guard_install(void)
{
	struct sigaction sa;

	if (guard_installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* No mask to restore after the jump: the signal is not blocked. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	guard_installed = 1;
}

static void
burst_cut(struct mxd_link *l, const char *what)
{
	if (l->cut++ == 0)
		fprintf(stderr, "mx: port %u (%s): the peer's memory vanished "
				"during a %s burst; frames of that burst are "
				"lost\n", l->port_id, l->name, what);
}

static uint16_t
memif_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	uint16_t got;

	if (sigsetjmp(guard.env, 0) != 0) {
		burst_cut(l, "receive");
		return 0;
	}
	guard.port = l->port_id;
	guard.armed = 1;
	got = port_rx(l, f, n);
	guard.armed = 0;
	return got;
}

static uint16_t
memif_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	uint16_t sent;

	if (sigsetjmp(guard.env, 0) != 0) {
		burst_cut(l, "send");
		return n > BURST_MAX ? BURST_MAX : n;
	}
	guard.port = l->port_id;
	guard.armed = 1;
	sent = port_tx(l, f, n);
	guard.armed = 0;
	return sent;
}

static const struct mxd_link_ops memif_ops = {
	.rx_burst = memif_rx,
	.tx_burst = memif_tx,
	.alloc = port_alloc,
	.ref = port_ref,
	.free = port_free,
	.link_up = port_link_up,
	.speed_mbps = port_speed,
	.stats = port_stats,
};

static int
port_socket(uint16_t pid)
{
	int s = rte_eth_dev_socket_id(pid);

	return s < 0 ? (int)rte_socket_id() : s;
}

static struct rte_mempool *
port_pool(uint16_t pid, const struct mxd_glue_conf *conf, uint32_t room)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "mxd_pool_%u", pid);
	return rte_pktmbuf_pool_create(name, conf->nb_mbufs, 256, 0,
			(uint16_t)(room + RTE_PKTMBUF_HEADROOM),
			port_socket(pid));
}

static int
port_queues(uint16_t pid, const struct mxd_glue_conf *conf,
		struct rte_mempool *mp)
{
	struct rte_eth_conf ec;
	int s = port_socket(pid), ret;

	memset(&ec, 0, sizeof(ec));
	ret = rte_eth_dev_configure(pid, 1, 1, &ec);
	if (ret < 0)
		return ret;
	ret = rte_eth_rx_queue_setup(pid, 0, conf->nb_rxd, s, NULL, mp);
	if (ret < 0)
		return ret;
	return rte_eth_tx_queue_setup(pid, 0, conf->nb_txd, s, NULL);
}

static uint32_t
port_mtu(uint16_t pid, const struct mxd_glue_conf *conf)
{
	uint16_t mtu = RTE_ETHER_MTU;

	if (conf->mtu != 0) {
		/* Not every virtual PMD implements MTU setting: best effort. */
		rte_eth_dev_set_mtu(pid, (uint16_t)conf->mtu);
		return conf->mtu;
	}
	rte_eth_dev_get_mtu(pid, &mtu);
	return mtu;
}

/*
 * The largest frame a port carries whole.  net_memif splits a frame longer
 * than one of its buffers (devarg bsize, 2048 by default) over several
 * ring slots, and DPDK 22.11's memif Tx leaves a stale "next" flag on the
 * first slot of a frame: the peer then joins frames and runs past the
 * ring's head.  So over memif the MTU stays within one buffer.
 */
static uint32_t
port_frame_max(uint16_t pid)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	const char *b;
	uint32_t bsize = 2048;

	if (rte_eth_dev_info_get(pid, &info) != 0 || info.driver_name == NULL ||
			strcmp(info.driver_name, "net_memif") != 0)
		return UINT32_MAX;
	da = rte_dev_devargs(info.device);
	if (da != NULL && da->args != NULL &&
			(b = strstr(da->args, "bsize=")) != NULL &&
			(b == da->args || b[-1] == ','))
		bsize = (uint32_t)strtoul(b + 6, NULL, 0);
	return bsize > 14 + 576 ? bsize : 14 + 576;	/* memif checks it */
}

static void
link_describe(struct mxd_link *l, uint16_t pid)
{
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;

	rte_eth_macaddr_get(pid, &mac);
	memcpy(l->mac, mac.addr_bytes, 6);
	rte_eth_dev_get_name_by_port(pid, l->name);
	if (rte_eth_dev_info_get(pid, &info) == 0 && info.driver_name)
		snprintf(l->driver, sizeof(l->driver), "%s", info.driver_name);
	l->numa_node = rte_eth_dev_socket_id(pid);
}

static int
port_setup(uint16_t pid, const struct mxd_glue_conf *conf)
{
	struct mxd_link *l = &links[nb_links];
	struct port_priv *pp = &privs[nb_links];
	uint32_t mtu = port_mtu(pid, conf), fmax = port_frame_max(pid), room;
	int ret;

	if (mtu + 14 > fmax) {
		fprintf(stderr, "mx: port %u: MTU %u lowered to %u: its frames "
				"must fit one memif buffer (bsize=%u; give both "
				"ends bsize=%u or more for this MTU)\n", pid,
				mtu, fmax - 14, fmax, mtu + 14);
		mtu = fmax - 14;
	}
	room = mtu + 14 > 2048 ? mtu + 14 : 2048;

	pp->mp = port_pool(pid, conf, room);
	if (pp->mp == NULL) {
		mxd_glue_set_error("port %u: mempool: %s", pid,
				rte_strerror(rte_errno));
		return -rte_errno;
	}
	ret = port_queues(pid, conf, pp->mp);
	if (ret == 0)
		ret = rte_eth_dev_start(pid);
	if (ret < 0) {
		mxd_glue_set_error("port %u: configure/start: %s", pid,
				rte_strerror(-ret));
		return ret;
	}
	l->ops = &port_ops;
	l->port_id = pid;
	l->mtu = mtu;
	l->room = room;
	l->priv = pp;
	link_describe(l, pid);
	if (strcmp(l->driver, "net_memif") == 0) {
		guard_install();
		l->ops = &memif_ops;
	}
	nb_links++;
	return 0;
}

int
mxd_glue_ports_open(const struct mxd_glue_conf *conf, struct mxd_link **out,
		unsigned *count)
{
	uint16_t pid;
	int ret;

	if (!ports_ready) {
		RTE_ETH_FOREACH_DEV(pid) {
			if (nb_links == MXD_GLUE_MAX_PORTS)
				break;
			ret = port_setup(pid, conf);
			if (ret < 0)
				return ret;
		}
		ports_ready = 1;
	}
	*out = links;
	*count = nb_links;
	return 0;
}

unsigned
mxd_glue_links_wait(struct mxd_link *l, unsigned n, uint32_t ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned up = 0;

	for (uint32_t t = 0;; t++) {
		up = 0;
		for (unsigned i = 0; i < n; i++)
			up += (unsigned)l[i].ops->link_up(&l[i]);
		if (up == n || t >= ms)
			return up;
		nanosleep(&ts, NULL);
	}
}
