/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: bringing them up (control path).
 *
 * Every available DPDK port gets one rx and one tx queue and a mempool on
 * the port's NUMA socket.  Ports are configured once per process and stay
 * started until exit, because the EAL cannot be initialised twice and MX
 * programs may call mx_init()/mx_finalize() repeatedly.
 *
 * Setting a port up is where the PMDs differ, and where their quirks are
 * met once so that the datapath does not see them: the frame size each
 * carries whole (memif's buffer, af_packet's ring frames) decides the MTU
 * and the mbufs' data room; a MAC every instance of a PMD shares is
 * replaced by a drawn one (a NIC id must be unique); the role of the link
 * says whether it should come up by itself and what to check when it
 * does not.  A --vdev that gave no port is explained (a memif socket
 * held by another process) rather than left to a bare error.  Without
 * hugepages the mbuf pools are built on memory prefaulted in one call
 * (prefault.c).  What follows the set-up, the bursts and the link's
 * state, is port.c's (memif.c's for a memif port); the waits for links
 * to come up, and the restart of a memif client, are here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "glue.h"
#include "log.h"
#include "port_priv.h"

static struct mxd_link links[MXD_GLUE_MAX_PORTS];
static struct port_priv privs[MXD_GLUE_MAX_PORTS];
static unsigned nb_links;
static int ports_ready;

static int
port_socket(uint16_t pid)
{
	int s = rte_eth_dev_socket_id(pid);

	return s < 0 ? (int)rte_socket_id() : s;
}

/*
 * Without hugepages every mbuf lies on a 4 KiB page of its own (an object
 * does not cross a page, and an mbuf with 2 KiB of room is more than half
 * of one), and DPDK's pool creation faults each page in as it writes the
 * mbuf's header: 16383 faults, 0.2-0.7 s of mx_init on this kind of VM.
 * pool_prefaulted() builds the same pool as rte_pktmbuf_pool_create()
 * (same objects, same memory layout as rte_mempool_populate_default()
 * gives them) on a memzone prefaulted in one call first.  With hugepages
 * the EAL has mapped all its memory already: DPDK's own function then.
 */
static void
pool_mz_free(struct rte_mempool_memhdr *mh, void *mz)
{
	(void)mh;
	rte_memzone_free(mz);
}

static struct rte_mempool *
pool_prefaulted(const char *name, unsigned n, uint16_t data_room, int socket)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = data_room,
	};
	size_t pg = (size_t)getpagesize(), chunk, align;
	char mzname[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct rte_mempool *mp;
	ssize_t size;
	int ret;

	mp = rte_mempool_create_empty(name, n, sizeof(struct rte_mbuf) +
			data_room, 256, sizeof(priv), socket, 0);
	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(),
				NULL) != 0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &priv);
	size = rte_mempool_op_calc_mem_size_default(mp, n,
			(uint32_t)__builtin_ctzl(pg), &chunk, &align);
	snprintf(mzname, sizeof(mzname), "%s_mem", name);
	mz = size <= 0 ? NULL : rte_memzone_reserve_aligned(mzname,
			(size_t)size, socket, 0, (unsigned)align);
	if (mz == NULL)
		goto fail;
	mxd_glue_prefault(mz->addr, mz->len);
	/* From here the pool owns the memzone (pool_mz_free), unless it
	 * failed before taking any of it. */
	ret = rte_mempool_populate_virt(mp, mz->addr, mz->len, pg,
			pool_mz_free, (void *)(uintptr_t)mz);
	if (ret < 0 && rte_memzone_lookup(mzname) == mz)
		rte_memzone_free(mz);
	if (ret != (int)n)
		goto fail;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	return NULL;
}

/* Pools of ring or stack handlers place objects the default way (the
 * memory size pool_prefaulted() computes). */
static int
pool_ops_default(void)
{
	const char *ops = rte_mbuf_best_mempool_ops();

	return ops != NULL && (!strncmp(ops, "ring_", 5) ||
			!strcmp(ops, "stack"));
}

static struct rte_mempool *
port_pool(uint16_t pid, const struct mxd_glue_conf *conf, uint32_t room)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint16_t data_room = (uint16_t)(room + RTE_PKTMBUF_HEADROOM);
	struct rte_mempool *mp = NULL;

	snprintf(name, sizeof(name), "mxd_pool_%u", pid);
	if (!rte_eal_has_hugepages() && pool_ops_default())
		mp = pool_prefaulted(name, conf->nb_mbufs, data_room,
				port_socket(pid));
	if (mp != NULL)
		return mp;
	return rte_pktmbuf_pool_create(name, conf->nb_mbufs, 256, 0,
			data_room, port_socket(pid));
}

static int is_driver(uint16_t pid, const char *name);

static int
port_queues(uint16_t pid, const struct mxd_glue_conf *conf,
		struct rte_mempool *mp)
{
	struct rte_eth_conf ec;
	uint16_t nq = conf->nb_queues ? conf->nb_queues : 1;
	int s = port_socket(pid), ret;

	/* The matrix is memif's; a board service switches any other port's
	 * frames itself, on one queue pair. */
	if (nq > 1 && !is_driver(pid, "net_memif"))
		nq = 1;

	memset(&ec, 0, sizeof(ec));
	/* Rx interrupts for the progression thread's sleep, on devices of a
	 * real bus: DPDK 22.11's virtual PMDs have none (and complain). */
	ec.intr_conf.rxq = !mxd_glue_port_virtual(pid);
	ret = rte_eth_dev_configure(pid, nq, nq, &ec);
	if (ret < 0 && ec.intr_conf.rxq) {
		ec.intr_conf.rxq = 0;	/* a NIC without them */
		ret = rte_eth_dev_configure(pid, nq, nq, &ec);
	}
	/* The queues of a shared board's matrix that the service does not
	 * read never take a buffer of its pool (memif copies at rx). */
	for (uint16_t q = 0; ret >= 0 && q < nq; q++) {
		ret = rte_eth_rx_queue_setup(pid, q, conf->nb_rxd, s, NULL, mp);
		if (ret >= 0)
			ret = rte_eth_tx_queue_setup(pid, q, conf->nb_txd, s,
					NULL);
	}
	return ret;
}

static const char *
port_driver(uint16_t pid)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(pid, &info) != 0 || info.driver_name == NULL)
		return "";
	return info.driver_name;
}

static int
is_driver(uint16_t pid, const char *name)
{
	return strcmp(port_driver(pid), name) == 0;
}

/*
 * The MTU to use.  A PMD that cannot set an MTU (net_ring, net_null,
 * net_memif) enforces none either: MX_MTU is then taken as it is.  One
 * that refuses it (net_af_packet when the interface or its ring frames are
 * smaller) keeps its own, with a warning saying what to change.
 */
static uint32_t
port_mtu(uint16_t pid, const struct mxd_glue_conf *conf)
{
	uint16_t mtu = RTE_ETHER_MTU;
	int ret;

	rte_eth_dev_get_mtu(pid, &mtu);
	if (conf->mtu == 0 || conf->mtu == mtu)
		return mtu;
	ret = rte_eth_dev_set_mtu(pid, (uint16_t)conf->mtu);
	if (ret == 0 || !is_driver(pid, "net_af_packet"))
		return conf->mtu;	/* virtual ports enforce no MTU */
	MXD_LOG(WARNING, port, "port %u: MX_MTU=%u refused by %s (%s); "
			"keeping MTU %u: %s", pid, conf->mtu, port_driver(pid),
			rte_strerror(-ret), mtu, is_driver(pid,
				"net_af_packet") ? "set the interface's MTU "
			"(ip link set dev IFACE mtu N) and give the port "
			"framesz= of at least MTU + 80" :
			"the port cannot carry frames that large");
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
	uint32_t bsize;

	if (!is_driver(pid, "net_memif"))
		return UINT32_MAX;
	bsize = mxd_glue_devarg_u32(pid, "bsize", 2048);
	return bsize > RTE_ETHER_HDR_LEN + 576 ? bsize :
		RTE_ETHER_HDR_LEN + 576;	/* memif checks it */
}

/*
 * Bytes an mbuf must hold after its headroom.  net_af_packet copies a
 * whole ring frame's payload into one mbuf and refuses an rx queue whose
 * mbufs are smaller than framesz less the 32 bytes of tpacket2 header it
 * does not copy.
 */
static uint32_t
port_room(uint16_t pid, uint32_t mtu)
{
	uint32_t room = mtu + RTE_ETHER_HDR_LEN > 2048 ?
		mtu + RTE_ETHER_HDR_LEN : 2048;

	if (is_driver(pid, "net_af_packet")) {
		uint32_t fs = mxd_glue_devarg_u32(pid, "framesz", 2048);

		if (fs > 32 && fs - 32 > room)
			room = fs - 32;
	}
	return room;
}

/* ---- identities ------------------------------------------------------- */

static const uint8_t pcap_default_mac[5] = { 0x02, 0x70, 0x63, 0x61, 0x70 };

/*
 * Whether the port's MAC is a default that every instance of its PMD
 * shares (a NIC id must be unique): all zero (net_ring), net_pcap's
 * 02:70:63:61:70:xx unless phy_mac=1, net_null's, and memif's when no
 * mac= is given (memif draws it from DPDK's random state, which forked
 * processes share).
 */
static int
mac_is_default(uint16_t pid, const uint8_t *mac)
{
	static const uint8_t zero[6];
	char v[32];

	if (!memcmp(mac, zero, 6) || is_driver(pid, "net_null") ||
			is_driver(pid, "net_ring"))
		return 1;
	if (is_driver(pid, "net_pcap"))
		return !memcmp(mac, pcap_default_mac, 5) &&
			!(mxd_glue_devarg(pid, "phy_mac", v, sizeof(v)) &&
					strcmp(v, "0") != 0);
	if (is_driver(pid, "net_memif"))
		return !mxd_glue_devarg(pid, "mac", v, sizeof(v));
	return 0;
}

/* A random locally administered unicast MAC, unlike the ports before. */
static void
mac_draw(uint8_t *mac, unsigned nprev)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned i;

		if (getrandom(mac, 6, 0) != 6) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			mac[1] = (uint8_t)getpid(); mac[2] = (uint8_t)(getpid() >> 8);
			mac[3] = (uint8_t)ts.tv_nsec; mac[4] = (uint8_t)(ts.tv_nsec >> 8);
			mac[5] = (uint8_t)(nprev + tries);
		}
		mac[0] = (uint8_t)((mac[0] & 0xfc) | 0x02);
		for (i = 0; i < nprev; i++)
			if (!memcmp(links[i].mac, mac, 6))
				break;
		if (i == nprev)
			return;
	}
}

static void
mac_assign(struct mxd_link *l, uint16_t pid)
{
	struct rte_ether_addr a;
	int ret;

	memcpy(l->pmd_mac, l->mac, 6);
	mac_draw(l->mac, nb_links);
	memcpy(a.addr_bytes, l->mac, 6);
	/* A PMD without the operation filters nothing by MAC: the engine's
	 * frames carry ours all the same. */
	ret = rte_eth_dev_default_mac_addr_set(pid, &a);
	l->mac_assigned = 1;
	MXD_LOG(DEBUG, port, "port %u (%s): MAC %02x:%02x:%02x:%02x:%02x:%02x "
			"assigned (the PMD's default is shared by every "
			"instance)%s", pid, l->name, l->mac[0], l->mac[1],
			l->mac[2], l->mac[3], l->mac[4], l->mac[5],
			ret == 0 ? "" : "; the PMD keeps its own");
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

static void
link_roles(struct mxd_link *l, uint16_t pid)
{
	char sock[108];

	l->waits = 1;
	if (is_driver(pid, "net_memif")) {
		mxd_glue_memif_socket(pid, sock, sizeof(sock));
		if (mxd_glue_memif_is_server(pid)) {
			l->waits = 0;
			snprintf(l->down_hint, sizeof(l->down_hint), "no memif "
					"client has connected to %s yet", sock);
		} else {
			snprintf(l->down_hint, sizeof(l->down_hint), "is the "
					"memif server running (socket %s)?", sock);
		}
	} else if (is_driver(pid, "net_af_packet") ||
			is_driver(pid, "net_pcap")) {
		snprintf(l->down_hint, sizeof(l->down_hint),
				"is the interface up (ip link set dev IFACE up)?");
	} else {
		snprintf(l->down_hint, sizeof(l->down_hint),
				"is the cable in and the peer up?");
	}
}

static int
port_setup(uint16_t pid, const struct mxd_glue_conf *conf)
{
	struct mxd_link *l = &links[nb_links];
	struct port_priv *pp = &privs[nb_links];
	uint32_t mtu, fmax, room;
	int ret;

	rte_eth_dev_get_name_by_port(pid, l->name);
	if (is_driver(pid, "net_memif") &&
			mxd_glue_memif_check_args(pid, l->name) < 0)
		return -EINVAL;
	mtu = port_mtu(pid, conf);
	fmax = port_frame_max(pid);
	if (mtu + RTE_ETHER_HDR_LEN > fmax) {
		MXD_LOG(WARNING, port, "port %u: MTU %u lowered to %u: its "
				"frames must fit one memif buffer (bsize=%u; "
				"give both ends bsize=%u or more for this MTU)",
				pid, mtu, fmax - RTE_ETHER_HDR_LEN, fmax,
				mtu + RTE_ETHER_HDR_LEN);
		mtu = fmax - RTE_ETHER_HDR_LEN;
	}
	room = port_room(pid, mtu);

	pp->mp = port_pool(pid, conf, room);
	if (pp->mp == NULL) {
		mxd_glue_set_error("port %u (%s): no memory for %u frame "
				"buffers of %u bytes (%s): lower MX_MBUFS or "
				"give the EAL more memory (-m)", pid, l->name,
				conf->nb_mbufs, room, rte_strerror(rte_errno));
		return -rte_errno;
	}
	ret = port_queues(pid, conf, pp->mp);
	if (ret < 0) {
		mxd_glue_set_error("port %u (%s): configure: %s", pid, l->name,
				rte_strerror(-ret));
		return ret;
	}
	l->ops = &mxd_glue_port_ops;
	l->port_id = pid;
	l->mtu = mtu;
	l->room = room;
	l->priv = pp;
	link_roles(l, pid);
	ret = rte_eth_dev_start(pid);
	/* A memif client whose server is not there yet: started again by
	 * mxd_glue_links_start(). */
	if (ret < 0 && !(is_driver(pid, "net_memif") && l->waits)) {
		mxd_glue_set_error("port %u (%s): start: %s", pid, l->name,
				rte_strerror(-ret));
		return ret;
	}
	l->started = ret == 0;
	l->started_ms = mxd_glue_now_ms();
	link_describe(l, pid);
	if (!conf->keep_pmd_mac && mac_is_default(pid, l->mac))
		mac_assign(l, pid);
	if (strcmp(l->driver, "net_memif") == 0)
		mxd_glue_memif_setup(l, pid);
	nb_links++;
	return 0;
}

/* ---- ports the arguments asked for that DPDK did not create ------------ */

/* Whether an abstract (or path) unix socket address is bound already. */
static int
unix_addr_in_use(const char *path, int abstract)
{
	struct sockaddr_un sa;
	socklen_t len;
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0), busy;

	if (s < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path) - 1) {
		close(s);
		return 0;
	}
	if (abstract) {
		memcpy(sa.sun_path + 1, path, strlen(path));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				strlen(path));
		busy = bind(s, (struct sockaddr *)&sa, len) < 0 &&
			errno == EADDRINUSE;
	} else {
		memcpy(sa.sun_path, path, strlen(path));
		busy = connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	}
	close(s);
	return busy;
}

static void
devargs_value(const char *args, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	out[0] = '\0';
	for (const char *a = args; *a; a += strcspn(a, ","), a += *a == ',')
		if (!strncmp(a, key, kl) && a[kl] == '=')
			snprintf(out, len, "%.*s", (int)strcspn(a + kl + 1,
					","), a + kl + 1);
}

/*
 * Whether an af_packet port on interface ifindex would find its fanout
 * group taken: DPDK 22.11 names the group getpid() ^ ifindex (16 bits),
 * one name space for the network namespace, so another process whose pid
 * and interface differ alike holds it, on another interface, and the
 * port cannot be made in this process.  Tried with a socket of our own
 * (the port's was closed).
 */
static int
fanout_taken(unsigned ifindex)
{
	struct sockaddr_ll sa = { .sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)ifindex };
	int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	int arg = (int)(((unsigned)getpid() ^ ifindex) & 0xffff) |
		(PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_DEFRAG |
		 PACKET_FANOUT_FLAG_ROLLOVER) << 16;
	int taken = 0;

	if (s < 0)
		return 0;
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		taken = setsockopt(s, SOL_PACKET, PACKET_FANOUT, &arg,
				sizeof(arg)) < 0 && errno == EINVAL;
	close(s);
	return taken;
}

/* Why the --vdev 'spec' ("net_memif0,role=...") gave no port: -EBUSY if
 * another process holds it, else -ENODEV. */
static int
explain_missing(const char *spec)
{
	char name[64], args[256], role[16], sock[108], abs[8];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec, ","), spec);
	snprintf(args, sizeof(args), "%s", spec + strcspn(spec, ","));
	if (!strncmp(name, "net_memif", 9)) {
		devargs_value(args, "role", role, sizeof(role));
		devargs_value(args, "socket", sock, sizeof(sock));
		devargs_value(args, "socket-abstract", abs, sizeof(abs));
		if (sock[0] == '\0')
			snprintf(sock, sizeof(sock), "/run/memif.sock");
		if (role[0] && strcmp(role, "server") && strcmp(role, "client")
				&& strcmp(role, "master") && strcmp(role, "slave")) {
			mxd_glue_set_error("port %s: memif role \"%s\" is "
					"neither server nor client", name, role);
			return -ENODEV;
		}
		if ((!strcmp(role, "server") || !strcmp(role, "master")) &&
				unix_addr_in_use(sock, strcmp(abs, "no") != 0)) {
			mxd_glue_set_error("port %s: its memif socket %s is "
					"held by another process (a memif server "
					"already serves it): stop that process, "
					"give this port another socket=, make it "
					"that server's client (role=client), or "
					"share the board with the processes of "
					"this host: MX_BOARD_SHARED=1 in each "
					"(mx-dpdk(7), SHARED BOARDS)", name, sock);
			return -EBUSY;
		}
	}
	if (!strncmp(name, "net_af_packet", 13)) {
		char ifname[IF_NAMESIZE + 8];
		unsigned ifindex;

		devargs_value(args, "iface", ifname, sizeof(ifname));
		ifindex = ifname[0] ? if_nametoindex(ifname) : 0;
		if (ifname[0] && ifindex == 0) {
			mxd_glue_set_error("port %s: no interface %s in this "
					"network namespace", name, ifname);
			return -ENODEV;
		}
		if (ifindex != 0 && fanout_taken(ifindex)) {
			mxd_glue_set_error("port %s: interface %s's af_packet "
					"fanout group (DPDK 22.11 names it by "
					"pid ^ interface index) is another "
					"process's, on another interface: start "
					"this process again (another pid)", name,
					ifname);
			return -EBUSY;
		}
	}
	mxd_glue_set_error("port %s (--vdev=%s) was not created: its driver "
			"refused it (another process may hold the device: a "
			"port belongs to one process, unless the processes "
			"share the board, MX_BOARD_SHARED=1; MX_VERBOSE=1 "
			"shows DPDK's reason)", name, spec);
	return -ENODEV;
}

/*
 * A kernel interface (af_packet's, af_xdp's, pcap's iface=) is claimed
 * by the process that drives it: an abstract socket named after it,
 * bound and listening for as long as the process lives (the kernel lets
 * it go with the process), in the network namespace the interface is
 * in.  Two processes on one interface would each receive every frame
 * and answer as one NIC; the second is told who holds it and what to do.
 */
#define CLAIMS_MAX	MXD_GLUE_MAX_PORTS
static int claims[CLAIMS_MAX];
static unsigned nclaims;

static socklen_t
claim_addr(const char *ifname, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
			"mx-dpdk-iface:%s", ifname);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			(size_t)n);
}

/* The pid of the process that holds the claim on ifname, 0 if unknown. */
static int
claim_holder(const struct sockaddr_un *sa, socklen_t len)
{
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0), pid = 0;
	struct ucred cr;
	socklen_t cl = sizeof(cr);

	if (s < 0)
		return 0;
	if (connect(s, (const struct sockaddr *)sa, len) == 0 &&
			getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0)
		pid = (int)cr.pid;
	close(s);
	return pid;
}

static int
claim_iface(const char *port, const char *ifname)
{
	struct sockaddr_un sa;
	socklen_t len = claim_addr(ifname, &sa);
	int s, pid;
	char comm[64] = "", path[64];
	FILE *f;

	if (nclaims == CLAIMS_MAX)
		return 0;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return 0;		/* no claim: nothing to say */
	if (bind(s, (struct sockaddr *)&sa, len) == 0 && listen(s, 8) == 0) {
		claims[nclaims++] = s;
		return 0;
	}
	close(s);
	if (errno != EADDRINUSE)
		return 0;
	pid = claim_holder(&sa, len);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (pid > 0 && (f = fopen(path, "r")) != NULL) {
		if (fgets(comm, sizeof(comm), f) != NULL)
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	mxd_glue_set_error("port %s: interface %s is driven by process %d "
			"(%s) already: a port belongs to one process, unless "
			"the processes of the host share its board "
			"(MX_BOARD_SHARED=1 in each, mx-dpdk(7), SHARED "
			"BOARDS)", port, ifname, pid, comm[0] ? comm : "?");
	return -EBUSY;
}

static void
claims_drop(void)
{
	while (nclaims > 0)
		close(claims[--nclaims]);
}

/* Every --vdev of the arguments became a port, or the reason is set;
 * the kernel interfaces they drive are claimed. */
static int
vdevs_present(const char *args, int observe)
{
	const char *a = args;

	while (a != NULL && (a = strstr(a, "--vdev")) != NULL) {
		char spec[320];
		uint16_t pid;

		a += 6;
		a += strspn(a, "= \t");
		snprintf(spec, sizeof(spec), "%.*s", (int)strcspn(a, " \t\n"),
				a);
		{
			char name[64];

			snprintf(name, sizeof(name), "%.*s",
					(int)strcspn(spec, ","), spec);
			if (name[0] && rte_eth_dev_get_port_by_name(name,
						&pid) != 0)
				return explain_missing(spec);
			if (!strncmp(name, "net_af_packet", 13) ||
					!strncmp(name, "net_af_xdp", 10) ||
					!strncmp(name, "net_pcap", 8)) {
				char ifname[64];
				int ret;

				devargs_value(spec + strcspn(spec, ","),
						"iface", ifname,
						sizeof(ifname));
				ret = ifname[0] && !observe ?
					claim_iface(name, ifname) : 0;
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

int
mxd_glue_ports_open(const struct mxd_glue_conf *conf, struct mxd_link **out,
		unsigned *count)
{
	uint16_t pid;
	int ret;

	if (!ports_ready) {
		ret = vdevs_present(conf->eal_args, conf->observe);
		if (ret < 0)
			return ret;
		RTE_ETH_FOREACH_DEV(pid) {
			if (nb_links == MXD_GLUE_MAX_PORTS)
				break;
			ret = port_setup(pid, conf);
			if (ret < 0)
				return ret;
		}
		ports_ready = 1;
		if (conf->nb_queues == 0)
			mxd_glue_memif_warm_start(links, privs, nb_links);
	}
	*out = links;
	*count = nb_links;
	return 0;
}

/* A memif client connected too early (its server had created the socket
 * but not started the port, and refused it) or to no server: it does not
 * try again by itself. */
#define RESTART_MS	200

unsigned
mxd_glue_links_wait(struct mxd_link *l, unsigned n, uint32_t ms)
{
	struct timespec ts = { 0, 1000000 };
	unsigned up = 0;

	for (uint32_t t = 0;; t++) {
		up = 0;
		for (unsigned i = 0; i < n; i++)
			up += (unsigned)(l[i].started &&
					l[i].ops->link_up(&l[i]));
		if (up == n || t >= ms)
			return up;
		nanosleep(&ts, NULL);
	}
}

unsigned
mxd_glue_links_start(struct mxd_link *l, unsigned n, uint32_t ms)
{
	struct timespec ts = { 0, 1000000 };
	uint64_t start = mxd_glue_now_ms(), last = start;
	unsigned up;

	for (;;) {
		unsigned waiting = 0;
		uint64_t t = mxd_glue_now_ms();

		up = 0;
		for (unsigned i = 0; i < n; i++) {
			int u = l[i].started && l[i].ops->link_up(&l[i]);

			up += (unsigned)u;
			waiting += !u && (l[i].waits || !l[i].started);
		}
		if (waiting == 0 || t - start >= ms)
			return up;
		if (t - last >= RESTART_MS) {
			for (unsigned i = 0; i < n; i++)
				if (l[i].ops->revive != NULL &&
						!(l[i].started &&
						l[i].ops->link_up(&l[i])))
					l[i].ops->revive(&l[i]);
			last = t;
		}
		nanosleep(&ts, NULL);
	}
}

void
mxd_glue_ports_close(void)
{
	for (unsigned i = 0; i < nb_links; i++) {
		if (links[i].started)
			rte_eth_dev_stop(links[i].port_id);
		links[i].started = 0;
		rte_eth_dev_close(links[i].port_id);
	}
	nb_links = 0;
	ports_ready = 0;
	claims_drop();
}
