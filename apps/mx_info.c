/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_info: the version, this process's boards and ports, what looks wrong
 * with them, the boards other processes on this host are using, the known
 * boards by name, and the settings in force (mx_info(1)).
 *
 *   mx_info [-b board] [-q | -v]
 *
 * mx_info sees the boards the application would with the same
 * environment: the ports MX_DPDK_ARGS gives it, or with MX_BOARD_SHARED=1
 * the boards of the host's board service, whose slots say which process
 * holds which endpoint; the boards of other processes come from their
 * counters segments (segments.h).  Uses the public API and the mx-dpdk
 * extensions only.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <myriexpress.h>
#include <mx_extensions.h>

#include "segments.h"

/* Given by the build (apps/meson.build); a copy built elsewhere has none. */
#ifndef MXD_VERSION
#define MXD_VERSION "(version unknown: built outside the source tree)"
#endif
#ifndef MXD_DPDK_VERSION
#define MXD_DPDK_VERSION "?"
#endif

#define MAX_BOARDS 64

struct opts {
	int quiet, verbose, have_board;
	uint32_t board;
};

/* What the checks need to know of the boards of this process. */
struct board {
	uint64_t nic_id;
	uint32_t ports;
	char name[MX_MAX_HOSTNAME_LEN];
	mx_dpdk_board_t held;	/* by whom, and its endpoints */
};

/* Whether process pid shares board bd with this process. */
static int
shares(const struct board *bd, uint32_t pid)
{
	if (bd->held.mode != MX_DPDK_BOARD_SHARED)
		return 0;
	for (uint32_t s = 0; s < bd->held.slots && s < MX_DPDK_BOARD_SLOTS; s++)
		if (bd->held.slot_state[s] != 0 &&
				bd->held.slot_pid[s] == (int32_t)pid)
			return 1;
	return 0;
}

static unsigned warnings;

static void
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: mx_info [-b board] [-q | -v]\n"
		"The boards MX_DPDK_ARGS gives this process, what looks wrong "
		"with them, the\nboards in use by other processes of this "
		"host, the known boards, the settings.\n"
		"  -b board  only this board\n"
		"  -q        the version, a line per board and the warnings\n"
		"  -v        also each board's MX information, port frame "
		"counts and what\n"
		"            each setting does\n"
		"  -h        this text\n");
	exit(rc);
}

__attribute__((format(printf, 1, 2)))
static void
warn(const char *fmt, ...)
{
	va_list ap;

	printf("  warning: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	warnings++;
}

static void
mac_text(const uint8_t *m, char *buf, size_t size)
{
	snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
			m[3], m[4], m[5]);
}

static const char *
setting(const char *name)
{
	mx_dpdk_setting_t s;

	for (uint32_t i = 0; mx_dpdk_get_setting(i, &s) == MX_SUCCESS; i++)
		if (!strcmp(s.name, name))
			return s.value;
	return NULL;
}

/* ---- checks ------------------------------------------------------------ */

/*
 * MACs a PMD gives every port it makes unless told otherwise: two processes
 * using it get the same NIC id, and peers cannot tell them apart.
 */
static const char *
default_mac(const uint8_t *m)
{
	static const uint8_t zero[6], pcap[5] = { 0x02, 0x70, 0x63, 0x61,
		0x70 };	/* "pcap" */

	if (!memcmp(m, zero, 6))
		return "all zero (net_ring has no MAC of its own)";
	if (!memcmp(m, pcap, 5))
		return "net_pcap's default, the same in every process "
			"that uses net_pcap";
	return NULL;
}

static void
check_mac(uint32_t b, uint32_t p, const mx_dpdk_port_t *pi)
{
	const char *why = default_mac(pi->mac);
	char mac[24];

	mac_text(pi->mac, mac, sizeof(mac));
	if (why != NULL)
		warn("board %u port %u (%s): MAC %s is %s; a NIC id should "
				"be unique (give the port a MAC of its own)",
				b, p, pi->name, mac, why);
	if (pi->mac[0] & 1)
		warn("board %u port %u (%s): MAC %s is a multicast address, "
				"not a valid NIC id", b, p, pi->name, mac);
}

static void
check_mtu(uint32_t b, uint32_t p, const mx_dpdk_port_t *pi,
		uint32_t first_mtu)
{
	const char *asked = setting("MX_MTU");
	unsigned long want = asked ? strtoul(asked, NULL, 0) : 0;

	if (pi->mtu == 0)
		warn("board %u port %u (%s): the port reports MTU 0", b, p,
				pi->name);
	else if (pi->mtu < 1500)
		warn("board %u port %u (%s): MTU %u is below Ethernet's 1500 "
				"(more frames per message)", b, p, pi->name,
				pi->mtu);
	if (want != 0 && want != pi->mtu)
		warn("board %u port %u (%s): MX_MTU asks for %lu, the port "
				"uses %u (lowered to what the port or its "
				"buffers take)", b, p, pi->name, want, pi->mtu);
	if (p > 0 && pi->mtu != first_mtu)
		warn("board %u: its ports differ in MTU (%u on port 0, %u on "
				"port %u)", b, first_mtu, pi->mtu, p);
}

static void
check_port(uint32_t b, uint32_t p, const mx_dpdk_port_t *pi,
		uint32_t first_mtu)
{
	if (!pi->link_up)
		warn("board %u port %u (%s): link down", b, p, pi->name);
	check_mac(b, p, pi);
	check_mtu(b, p, pi, first_mtu);
}

/* Two boards of this process with one NIC id: names reach only one. */
static void
check_shared_here(const struct board *bd, uint32_t n, uint32_t b)
{
	for (uint32_t o = 0; o < n; o++)
		if (o != b && bd[o].nic_id == bd[b].nic_id)
			warn("board %u: board %u has the same NIC id %012llx: "
					"connects and names reach only one of "
					"them", b, o,
					(unsigned long long)bd[b].nic_id);
}

struct shared_ctx {
	const struct board *bd;
	uint32_t n;
	const struct opts *o;
};

/* Another live process on this host with one of our NIC ids. */
static int
check_shared_host(struct seg *s, void *arg)
{
	const struct shared_ctx *c = arg;
	char comm[32];

	if (!s->alive || s->h->pid == (uint32_t)getpid())
		return 0;
	for (uint32_t b = 0; b < c->n; b++)
		if (c->bd[b].nic_id == s->h->nic_id &&
				!shares(&c->bd[b], s->h->pid) &&
				(!c->o->have_board || b == c->o->board)) {
			seg_command(s->h->pid, comm, sizeof(comm));
			warn("board %u: NIC id %012llx is also board %s of "
					"process %u (%s) on this host", b,
					(unsigned long long)s->h->nic_id,
					s->h->board_name, s->h->pid, comm);
		}
	return 0;
}

/* ---- this process's boards --------------------------------------------- */

static void
print_port(uint32_t p, const mx_dpdk_port_t *pi, const struct opts *o)
{
	char mac[24];

	mac_text(pi->mac, mac, sizeof(mac));
	printf("  port %u: %s (%s) mac %s mtu %u link %s speed %u Mb/s "
			"numa %d\n", p, pi->name, pi->driver, mac, pi->mtu,
			pi->link_up ? "up" : "down", pi->speed_mbps,
			pi->numa_node);
	if (o->verbose)
		printf("          frames sent %llu, received %llu\n",
				(unsigned long long)pi->tx_frames,
				(unsigned long long)pi->rx_frames);
}

static void
print_board_info(uint32_t b)
{
	char product[MX_MAX_STR_LEN] = "?", part[MX_MAX_STR_LEN] = "?";
	uint32_t speed = 0, numa = 0, serial = 0;

	mx_get_info(NULL, MX_PRODUCT_CODE, &b, sizeof(b), product,
			sizeof(product));
	mx_get_info(NULL, MX_PART_NUMBER, &b, sizeof(b), part, sizeof(part));
	mx_get_info(NULL, MX_SERIAL_NUMBER, &b, sizeof(b), &serial,
			sizeof(serial));
	mx_get_info(NULL, MX_LINE_SPEED, &b, sizeof(b), &speed, sizeof(speed));
	mx_get_info(NULL, MX_NUMA_NODE, &b, sizeof(b), &numa, sizeof(numa));
	printf("  product code %s, part number %s, serial %u, line speed %u "
			"Mb/s, NUMA node %d\n", product, part, serial, speed,
			(int)numa);
}

/* Who holds board b: this process alone, or the host's processes by
 * slot, with the endpoints each holds. */
static void
print_held(uint32_t b, const mx_dpdk_board_t *h, const struct opts *o)
{
	static const char *const state[] = { "free", "in use", "its process "
		"died: being freed" };

	printf("  held: %s\n", h->mechanism);
	printf("  endpoints: %u on the board", h->endpoints);
	if (h->mode == MX_DPDK_BOARD_SHARED)
		printf(", %u slots (the service's and %u for processes), this "
				"process slot %u", h->slots, h->slots - 1,
				h->slot);
	printf("\n");
	if (o->quiet)
		return;
	for (uint32_t s = 0; s < h->slots && s < MX_DPDK_BOARD_SLOTS; s++) {
		char comm[32], eps[128] = "";
		int len = 0;

		if (h->slot_state[s] == 0)
			continue;
		for (uint32_t e = 0; e < h->endpoints && e < 32; e++)
			if (h->endpoint_slot[e] == s)
				len += snprintf(eps + len, sizeof(eps) -
						(size_t)len, " %u", e);
		seg_command((uint32_t)h->slot_pid[s], comm, sizeof(comm));
		printf("    slot %u: %s, pid %d (%s%s)%s%s\n", s,
				h->mode == MX_DPDK_BOARD_SHARED && s == 0 ?
				"board service" : h->slot_state[s] < 3 ?
				state[h->slot_state[s]] : "?", (int)h->slot_pid[s],
				comm, h->slot_pid[s] == (int32_t)getpid() ?
				", this process" : "", len ? ", endpoints" : "",
				eps);
	}
	(void)b;
}

/* Prints board b and its ports (unless quiet), checking as it goes. */
static void
board(uint32_t b, struct board *bd, const struct opts *o)
{
	mx_dpdk_port_t pi;
	uint32_t first_mtu = 0;

	snprintf(bd->name, sizeof(bd->name), "?");
	mx_nic_id_to_hostname(bd->nic_id, bd->name);
	mx_get_info(NULL, MX_PORT_COUNT, &b, sizeof(b), &bd->ports,
			sizeof(bd->ports));
	printf("Board %u: %s  NIC id %012llx  ports %u\n", b, bd->name,
			(unsigned long long)bd->nic_id, bd->ports);
	if (o->verbose)
		print_board_info(b);
	for (uint32_t p = 0; p < bd->ports; p++) {
		if (mx_dpdk_get_port(b, p, &pi) != MX_SUCCESS)
			continue;
		if (p == 0)
			first_mtu = pi.mtu;
		if (!o->quiet)
			print_port(p, &pi, o);
		check_port(b, p, &pi, first_mtu);
	}
	if (mx_dpdk_get_board(b, &bd->held) == MX_SUCCESS)
		print_held(b, &bd->held, o);
}

static void
print_limits(void)
{
	uint32_t pio = 0, eager = 0, eps = 0, segs = 0;

	/* With no endpoint these are board 0's. */
	mx_get_info(NULL, MX_PIO_SEND_MAX, NULL, 0, &pio, sizeof(pio));
	mx_get_info(NULL, MX_COPY_SEND_MAX, NULL, 0, &eager, sizeof(eager));
	mx_get_info(NULL, MX_MAX_NATIVE_ENDPOINTS, NULL, 0, &eps, sizeof(eps));
	mx_get_info(NULL, MX_MAX_SEGMENTS, NULL, 0, &segs, sizeof(segs));
	printf("Endpoints per board %u; one-frame message max %u bytes, eager "
			"max %u bytes, %u segments per request\n", eps, pio,
			eager, segs);
}

static void
boards(const struct opts *o)
{
	static struct board bd[MAX_BOARDS];
	struct shared_ctx ctx = { bd, 0, o };
	uint32_t n = 0;

	mx_get_info(NULL, MX_NIC_COUNT, NULL, 0, &n, sizeof(n));
	printf("%u board(s) in this process\n", n);
	if (o->have_board && o->board >= n) {
		printf("  warning: no board %u\n", o->board);
		warnings++;
	}
	if (n > MAX_BOARDS)
		n = MAX_BOARDS;
	if (!o->quiet && n > 0)
		print_limits();
	for (uint32_t b = 0; b < n; b++)
		mx_board_number_to_nic_id(b, &bd[b].nic_id);
	for (uint32_t b = 0; b < n; b++) {
		if (o->have_board && b != o->board)
			continue;
		board(b, &bd[b], o);
		check_shared_here(bd, n, b);
	}
	ctx.n = n;
	seg_each(0, check_shared_host, &ctx);
}

/* ---- this host, names, settings ---------------------------------------- */

struct host_ctx {
	const struct opts *o;
	unsigned listed;
};

static int
host_board(struct seg *s, void *arg)
{
	struct host_ctx *c = arg;
	char comm[32];

	if (!s->alive || s->h->pid == (uint32_t)getpid() ||
			(c->o->have_board && s->board != c->o->board))
		return 0;
	seg_command(s->h->pid, comm, sizeof(comm));
	printf("  process %u (%s): board %u %s  NIC id %012llx\n", s->h->pid,
			comm, s->board, s->h->board_name,
			(unsigned long long)s->h->nic_id);
	c->listed++;
	return 0;
}

/*
 * A process that owns its ports has its own boards: which boards are in
 * use here, and by whom, is what the counters segments tell (which
 * endpoints each has open, they do not).  The processes of a shared
 * board are its slots, listed with the board.
 */
static void
print_host(const struct opts *o)
{
	struct host_ctx c = { o, 0 };

	printf("Boards in use by other processes on this host (those of a "
			"shared board: its slots, above):\n");
	if (seg_each(0, host_board, &c) < 0)
		printf("  (cannot read /dev/shm)\n");
	else if (c.listed == 0)
		printf("  none\n");
}

static void
print_peers(void)
{
	char name[MX_MAX_HOSTNAME_LEN];
	uint64_t nic;

	printf("Known boards (own, peers file, discovery):\n");
	for (uint32_t i = 0; mx_dpdk_get_peer(i, &nic, name) == MX_SUCCESS; i++)
		printf("  %-24s %012llx\n", name[0] ? name : "(no name)",
				(unsigned long long)nic);
}

static void
print_settings(const struct opts *o)
{
	mx_dpdk_setting_t s;

	printf("Settings (environment):\n");
	for (uint32_t i = 0; mx_dpdk_get_setting(i, &s) == MX_SUCCESS; i++)
		if (o->verbose)
			printf("  %-20s %-24s %s\n", s.name, s.value, s.help);
		else
			printf("  %-20s %s\n", s.name, s.value);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "b:qvh", longs, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->board = (uint32_t)strtoul(optarg, &end, 0);
			if (*optarg == '\0' || *end != '\0')
				usage(2);
			o->have_board = 1;
			break;
		case 'q': o->quiet = 1; o->verbose = 0; break;
		case 'v': o->verbose = 1; o->quiet = 0; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
}

int
main(int argc, char **argv)
{
	struct opts o;
	mx_return_t rc;

	parse(argc, argv, &o);
	printf("mx_info: mx-dpdk %s, MX API 0x%x, built with DPDK %s\n",
			MXD_VERSION, MX_API, MXD_DPDK_VERSION);
	fflush(stdout);
	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	if (rc != MX_SUCCESS) {
		printf("mx_init failed: %s (the library's message above "
				"says why)\n", mx_strerror(rc));
		if (!o.quiet) {
			print_host(&o);
			print_settings(&o);
		}
		return 1;
	}
	boards(&o);
	if (!o.quiet) {
		print_host(&o);
		print_peers();
		print_settings(&o);
	}
	if (warnings)
		fprintf(stderr, "mx_info: %u warning(s)\n", warnings);
	mx_finalize();
	return 0;
}
