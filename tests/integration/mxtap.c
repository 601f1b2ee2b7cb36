/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mxtap: a two-port relay with a capture tap, or a sniffer, for the
 * dissector test.  The last port is the tap: a net_pcap port whose
 * tx_pcap file becomes the capture.
 *
 *   relay (three ports):
 *   MX_DPDK_ARGS="... --vdev=net_memif0,role=server,socket=A
 *                     --vdev=net_memif1,role=server,socket=B
 *                     --vdev=net_pcap0,tx_pcap=cap.pcap" mxtap SECONDS
 *
 *   sniffer (two ports), beside MX processes on a veth end or a NIC:
 *   MX_DPDK_ARGS="... --vdev=net_af_packet0,iface=veth0,framecnt=4096
 *                     --vdev=net_pcap0,tx_pcap=cap.pcap" mxtap SECONDS
 *
 * Relay: every frame received on one of the two first ports is sent on
 * the other, and a copy of it is sent on the tap, whose tx_pcap file is
 * then a capture of both directions in the order the relay saw them.
 * Sniffer: every frame the first port receives goes to the tap.  A
 * packet socket (net_af_packet, or net_pcap rx_iface=) receives what the
 * interface sends too, so the capture holds both directions of the MX
 * processes on that interface.  net_af_packet's ring is sized by its
 * devargs (framecnt=); net_pcap's is libpcap's, which DPDK does not size,
 * and dropped frames while mxtap waited for a core ("missed" below).
 * MX_FAULTS (same
 * syntax as for MX programs, pmd-glue/fault.c) applies to what the relay
 * receives, before the tap: a frame it corrupts is captured corrupted and
 * reaches the peer corrupted, so the capture holds frames whose check is
 * bad, and the retransmissions that replace them.  (An MX process's own
 * MX_FAULTS acts after its port, where no capture can see it.)
 *
 * MXTAP_DROP_BYE=1: an ACK flagged BYE (an endpoint closing) is captured
 * but not relayed, so that the peer's next message to the closed endpoint
 * is refused by NACK on the wire (the dissector test wants one).
 *
 * It prints "mxtap: relaying" or "mxtap: sniffing" once its ports are up.
 * On exit (SIGTERM, SIGINT or after SECONDS), once its ports have been
 * quiet for IDLE_END_MS (frames still on their way are captured), it
 * prints its own verdict on every frame it captured, with the project's
 * CRC code (proto/csum.h):
 *
 *   mxtap: frames F mx M good G bad B unverified U foreign X corrupted C
 *          lost L missed S
 *
 * mx: EtherType 0x88b5; unverified: the common header's length runs past
 * the frame, so no check can be computed; corrupted: frames the fault
 * layer changed (a flip that falls in padding leaves a frame good, one in
 * the EtherType makes it foreign); lost: relayed frames the other port
 * did not take; missed: frames the input ports dropped before mxtap read
 * them (their imissed and rx_nombuf: a capture with holes).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_eal.h>

#include "csum.h"
#include "fault.h"
#include "glue.h"
#include "wire.h"

#define BURST		32
#define TX_TRIES	1000	/* ~1 ms of a full memif ring, then lost */
#define IDLE_SPIN	256	/* empty passes before sleeping */
#define IDLE_END_MS	100	/* quiet this long after a stop: done */

struct counts {
	uint64_t frames, mx, good, bad, unverified, foreign, lost;
};

static volatile sig_atomic_t stop;
static int drop_bye;	/* MXTAP_DROP_BYE */

static int
is_bye(const uint8_t *f, uint32_t len)
{
	return len >= MXD_HDRS_LEN && f[MXD_ETH_HLEN + 1] == MXD_T_ACK &&
		(f[MXD_ETH_HLEN + 2] & MXD_F_BYE) != 0;
}

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The same check as proto/wire.c: CRC-32C of the frame up to the end of
 * the common header's length, the csum field read as zero. */
static void
classify(const uint8_t *f, uint32_t len, struct counts *c)
{
	static const uint8_t zero[4];
	uint32_t body, crc, csum_off = MXD_ETH_HLEN + 28;

	c->frames++;
	if (len < MXD_ETH_HLEN || mxd_get16(f + 12) != MXD_ETHERTYPE) {
		c->foreign++;
		return;
	}
	c->mx++;
	if (len < MXD_HDRS_LEN ||
			(body = mxd_get16(f + MXD_ETH_HLEN + 10)) >
			len - MXD_HDRS_LEN) {
		c->unverified++;
		return;
	}
	crc = mxd_crc_update(MXD_CRC_INIT, f, csum_off);
	crc = mxd_crc_update(crc, zero, 4);
	crc = mxd_crc_update(crc, f + csum_off + 4,
			MXD_HDRS_LEN + body - csum_off - 4);
	if (~crc == mxd_get32(f + csum_off))
		c->good++;
	else
		c->bad++;
}

/* Sends all n frames or frees what does not go within TX_TRIES bursts. */
static void
send_all(struct mxd_link *l, struct mxd_frame *f, unsigned n, uint64_t *lost)
{
	unsigned done = 0;

	for (unsigned t = 0; done < n && t < TX_TRIES; t++)
		done += l->ops->tx_burst(l, f + done, (uint16_t)(n - done));
	if (done < n) {
		l->ops->free(f + done, n - done);
		*lost += n - done;
	}
}

/* One burst from 'in' to 'out' (NULL: the sniffer's, nowhere) and the
 * tap; returns the frames moved. */
static unsigned
relay(struct mxd_link *in, struct mxd_link *out, struct mxd_link *tap,
		struct counts *c)
{
	struct mxd_frame f[BURST];
	uint16_t n = in->ops->rx_burst(in, f, BURST);
	uint64_t tap_lost = 0;
	uint16_t m = 0;

	if (n == 0)
		return 0;
	for (uint16_t i = 0; i < n; i++)
		classify(f[i].data, f[i].len, c);
	if (out != NULL)
		in->ops->ref(f, n);
	send_all(tap, f, n, &tap_lost);
	if (tap_lost != 0)
		fprintf(stderr, "mxtap: %llu frames not captured\n",
				(unsigned long long)tap_lost);
	if (out == NULL)
		return n;
	for (uint16_t i = 0; i < n; i++) {
		if (drop_bye && is_bye(f[i].data, f[i].len))
			in->ops->free(&f[i], 1);	/* captured only */
		else
			f[m++] = f[i];
	}
	send_all(out, f, m, &c->lost);
	return n;
}

/* The last port is the tap, the others relayed (two) or sniffed (one);
 * returns how many, or -1. */
static int
find_links(struct mxd_link *links, unsigned n, struct mxd_link *in[2],
		struct mxd_link **tap)
{
	if (n < 2 || n > 3 || strcmp(links[n - 1].driver, "net_pcap") != 0)
		return -1;
	*tap = &links[n - 1];
	in[0] = &links[0];
	in[1] = n == 3 ? &links[1] : NULL;
	return (int)n - 1;
}

static void
run(struct mxd_link *in[2], struct mxd_link *tap, double limit,
		struct counts *c)
{
	struct timespec nap = { 0, 20000 };
	double end = now_s() + limit, quiet = 0;
	unsigned idle = 0;

	for (;;) {
		unsigned moved = relay(in[0], in[1], tap, c) + (in[1] ?
			relay(in[1], in[0], tap, c) : 0);

		if (moved != 0) {
			idle = 0;
			quiet = 0;
			continue;
		}
		if (stop && quiet == 0)
			quiet = now_s();
		if (stop && now_s() - quiet > IDLE_END_MS / 1e3)
			break;
		if (++idle < IDLE_SPIN)
			continue;
		if (now_s() > end)
			break;
		nanosleep(&nap, NULL);	/* the peers share these cores */
	}
}

static void
report(struct mxd_link *in[2], const struct counts *c)
{
	struct mxd_fault_stats s;
	struct rte_eth_stats es;
	uint64_t corrupted = 0, missed = 0;

	for (int i = 0; i < 2; i++) {
		if (in[i] != NULL && mxd_fault_stats(in[i], &s) == 0)
			corrupted += s.corrupted;
		if (in[i] != NULL && rte_eth_stats_get(in[i]->port_id, &es) == 0)
			missed += es.imissed + es.rx_nombuf;
	}
	printf("mxtap: frames %llu mx %llu good %llu bad %llu unverified %llu "
			"foreign %llu corrupted %llu lost %llu missed %llu\n",
			(unsigned long long)c->frames,
			(unsigned long long)c->mx, (unsigned long long)c->good,
			(unsigned long long)c->bad,
			(unsigned long long)c->unverified,
			(unsigned long long)c->foreign,
			(unsigned long long)corrupted,
			(unsigned long long)c->lost,
			(unsigned long long)missed);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	struct mxd_glue_conf conf = {
		.eal_args = getenv("MX_DPDK_ARGS"), .nb_mbufs = 4095,
		.nb_rxd = 512, .nb_txd = 512,
		.observe = 1,	/* it sniffs the interface a program drives */
	};
	const char *faults = getenv("MX_FAULTS");
	const char *bye = getenv("MXTAP_DROP_BYE");
	struct mxd_link *links, *in[2], *tap;
	struct counts c = { 0 };
	unsigned n = 0;
	uint16_t pid;
	int reused, nin;

	drop_bye = bye != NULL && strcmp(bye, "1") == 0;

	if (argc != 2 || atof(argv[1]) <= 0) {
		fprintf(stderr, "usage: mxtap SECONDS (EAL arguments in "
				"MX_DPDK_ARGS, faults in MX_FAULTS)\n");
		return 2;
	}
	if (mxd_glue_eal_init(&conf, &reused) < 0 ||
			mxd_glue_ports_open(&conf, &links, &n) < 0) {
		fprintf(stderr, "mxtap: %s\n", mxd_glue_error());
		return 1;
	}
	nin = find_links(links, n, in, &tap);
	if (nin < 0) {
		fprintf(stderr, "mxtap: needs two ports to relay or one to "
				"sniff, then a net_pcap port with tx_pcap= (the "
				"capture)\n");
		return 1;
	}
	if (faults != NULL && *faults != '\0' &&
			mxd_fault_wrap(faults, in, (unsigned)nin) < 0) {
		fprintf(stderr, "mxtap: %s\n", mxd_glue_error());
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("mxtap: %s\n", nin == 2 ? "relaying" : "sniffing");
	fflush(stdout);
	run(in, tap, atof(argv[1]), &c);
	report(in, &c);
	mxd_fault_unwrap(in, (unsigned)nin);
	/* Closing the net_pcap port closes its file. */
	RTE_ETH_FOREACH_DEV(pid) {
		rte_eth_dev_stop(pid);
		rte_eth_dev_close(pid);
	}
	/* No rte_eal_cleanup(): in DPDK 22.11 it unmaps the memory the
	 * EAL's interrupt thread still reads a memif socket's handle from
	 * (SIGSEGV in rte_intr_fd_get(), about one exit in twenty: the
	 * dissector test's flake); tests/bench/dpdk_pingpong.c says the same.
	 * The pcap file is complete once its port is closed. */
	return 0;
}
