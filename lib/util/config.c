/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Settings.  MX programs take no extra arguments, so every setting is an
 * environment variable read once by mx_init().  The table below is the
 * single source of names, defaults and help texts: mx-dpdk(7) documents
 * the same variables and mx_info prints this table (tests/unit/settings.sh
 * checks both).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "wire.h"
#include "util/config.h"

extern char **environ;

struct mxd_config mxd_conf;

struct num_setting {
	const char *name;
	size_t off;
	uint32_t def, min, max;
	const char *help;
};

#define NUM(n, f, d, lo, hi, h) \
	{ n, offsetof(struct mxd_config, f), d, lo, hi, h }

static const struct num_setting nums[] = {
	NUM("MX_RNDV_THRESHOLD", eager_max, 32768, 0, 1u << 20,
		"largest eager message, bytes (<= 64 frames); above: rendezvous"),
	NUM("MX_MTU", mtu, 0, 0, 9600,
		"port MTU to use; 0 takes the port's own; memif: <= bsize - 14; "
		"two partners use the smaller of their MTUs"),
	NUM("MX_UNEXP_QUEUE_MAX", unexp_max, 8u << 20, 0, 1u << 31,
		"unexpected-queue limit per endpoint, bytes (back-pressure)"),
	NUM("MX_MAX_PARTNERS", max_partners, 65535, 1024, 65535,
		"partners an endpoint may know; its table grows as they "
		"come; at the most, a new one reuses one the program holds "
		"no address of and nothing is going on with, or fails"),
	NUM("MX_SPIN_US", spin_us, 1000, 0, 10000000,
		"blocking calls sleep between polls once idle this long"),
	NUM("MX_DISCOVERY_MS", discovery_ms, 3000, 0, 600000,
		"how long a name lookup queries the wire"),
	NUM("MX_LINK_WAIT_MS", link_wait_ms, 2000, 0, 600000,
		"mx_init waits this long for links to come up (memif clients "
		"retry meanwhile); 0: no wait"),
	NUM("MX_ACK_DELAY_US", ack_delay_us, 5, 0, 1000000,
		"delay before an explicit ack when no reply carries it"),
	NUM("MX_PACK_AFTER", pack_after, 32, 1, 256,
		"a small send to a partner with this many messages "
		"unacknowledged waits for the next pass, to leave packed with "
		"those posted meanwhile; 256 (the window): only when it is "
		"full"),
	NUM("MX_CONNECT_RETRY_MS", connect_retry_ms, 100, 1, 60000,
		"interval between connect requests"),
	NUM("MX_CLOSE_LINGER_MS", close_linger_ms, 2000, 0, 600000,
		"mx_close_endpoint waits at most this long for sent data to "
		"be acked and its last acks heard, then says BYE; 0: abortive"),
	NUM("MX_PROGRESSION", progression, 1, 0, 1,
		"1: a thread answers the network (discovery, connects, acks, "
		"large transfers) while no application thread is in MX; "
		"0: only MX calls make progress"),
	NUM("MX_PROGRESSION_US", progression_us, 1000, 10, 1000000,
		"how often the progression thread looks whether the "
		"application is in MX"),
	NUM("MX_PROGRESS_THREAD", progress_thread, 0, 0, 1,
		"1: instead, a thread polls all the time (application bypass "
		"at the cost of a core)"),
	NUM("MX_PROGRESS_US", progress_us, 20, 1, 1000000,
		"the busy progress thread's sleep between idle passes"),
	NUM("MX_RTO_MIN_US", rto_min_us, 250, 10, 10000000,
		"retransmission timeout floor (the RTT estimate rules above it)"),
	NUM("MX_RTO_MAX_MS", rto_max_ms, 100, 1, 600000,
		"retransmission timeout ceiling (exponential backoff stops)"),
	NUM("MX_PEER_TIMEOUT_MS", peer_timeout_ms, 3000, 0, 86400000,
		"a partner silent this long while probed is unreachable (0: never)"),
	NUM("MX_KEEP_MAC", keep_mac, 0, 0, 1,
		"1: keep a PMD's default MAC that every instance shares "
		"(net_pcap, net_ring, net_null, memif without mac=)"),
	NUM("MX_SHM_COPY", shm_copy, 0, 0, 1,
		"1: large messages between processes of a host are copied "
		"through their ring, not read with process_vm_readv (which "
		"is tried first and, refused, given up per peer)"),
	NUM("MX_MBUFS", nb_mbufs, 16383, 1023, 1u << 22,
		"frame buffers per port"),
	NUM("MX_BOARD_SHARED", board_shared, 0, 0, 1,
		"1: the processes of this host share the boards of one board "
		"service (mx_board), started by the first that needs it; "
		"0: this process owns the ports of MX_DPDK_ARGS"),
	NUM("MX_BOARD_SLOTS", board_slots, 8, 2, 33,
		"the board service: slots of a shared board, its own and one "
		"per process; memif carries the slots * slots queues in "
		"lanes of at most 255 queue pairs, each lane a memif "
		"interface (above 15 slots, ids id to id + lanes - 1 on the "
		"port's socket)"),
	NUM("MX_BOARD_SPIN_US", board_spin_us, 50, 0, 1000000,
		"the board service: microseconds it polls its switched ports "
		"(those not memif) once no frame moved, before it naps 10 "
		"us between looks (until no frame moved for 100 ms: then "
		"1 ms); more for latency where it has a CPU of its own, less "
		"where processes and service share the CPUs"),
	NUM("MX_VERBOSE", verbose, 0, 0, 3,
		"1: print the boards at mx_init, DPDK's own messages too"),
};

static int
parse_num(const struct num_setting *s, struct mxd_config *c)
{
	const char *v = getenv(s->name);
	uint32_t *dst = (uint32_t *)(void *)((char *)c + s->off);
	unsigned long long x;
	char *end;

	*dst = s->def;
	if (v == NULL || *v == '\0')
		return 0;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || end == v || *end != '\0' || *v == '-') {
		MXD_LOG(ERR, config, "%s=\"%s\" is not a number: give an "
				"integer from %u to %u (%s; default %u)",
				s->name, v, s->min, s->max, s->help, s->def);
		return -1;
	}
	if (x < s->min || x > s->max) {
		MXD_LOG(ERR, config, "%s=%s is out of range: give an integer "
				"from %u to %u (%s; default %u)", s->name, v,
				s->min, s->max, s->help, s->def);
		return -1;
	}
	*dst = (uint32_t)x;
	return 0;
}

static const char *const str_settings[] = {
	"MX_DPDK_ARGS", "MX_HOSTNAME", "MX_BOARDS", "MX_PEERS_FILE",
	"MX_FAULTS", "MX_HOST_SEGMENT",
};

static int
known_setting(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (strlen(nums[i].name) == len &&
				!strncmp(nums[i].name, name, len))
			return 1;
	for (size_t i = 0; i < sizeof(str_settings) / sizeof(str_settings[0]);
			i++)
		if (strlen(str_settings[i]) == len &&
				!strncmp(str_settings[i], name, len))
			return 1;
	return 0;
}

/* An MX_* variable that is no setting is most likely a typo. */
static void
warn_unknown(void)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		size_t len = strcspn(*e, "=");

		if (strncmp(*e, "MX_", 3) == 0 && !known_setting(*e, len))
			MXD_LOG(WARNING, config, "%.*s is not an mx-dpdk "
					"setting, ignored (mx_info -v lists "
					"them)", (int)len, *e);
	}
}

int
mxd_config_load(struct mxd_config *c)
{
	const char *h = getenv("MX_HOSTNAME");

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (parse_num(&nums[i], c) < 0)
			return -MX_BAD_PARAM_VAL;
	mxd_log_verbose(c->verbose != 0);
	warn_unknown();
	c->dpdk_args = getenv("MX_DPDK_ARGS");
	c->boards = getenv("MX_BOARDS");
	c->peers_file = getenv("MX_PEERS_FILE");
	c->faults = getenv("MX_FAULTS");
	c->host_segment = getenv("MX_HOST_SEGMENT");
	if (h != NULL && *h != '\0') {
		c->hostname_set = 1;
		snprintf(c->hostname, sizeof(c->hostname), "%s", h);
		if (strlen(h) > MXD_NAME_LEN - 8 || strchr(h, ':') != NULL) {
			MXD_LOG(ERR, config, "MX_HOSTNAME=\"%s\": give a "
					"name of at most %u characters without "
					"':' (board names are <host>:<board>)",
					h, (unsigned)(MXD_NAME_LEN - 8));
			return -MX_BAD_PARAM_VAL;
		}
	} else if (gethostname(c->hostname, sizeof(c->hostname)) != 0) {
		strcpy(c->hostname, "localhost");
	}
	c->hostname[sizeof(c->hostname) - 1] = '\0';
	/* Room for ":<board>" in names on the wire. */
	c->hostname[MXD_NAME_LEN - 8] = '\0';
	return 0;
}

int
mxd_config_boards(const char *spec, unsigned nlinks, int *board_of_port,
		int *pos)
{
	unsigned board = 0, used = 0, nports = 0;
	const char *s = spec;

	for (unsigned i = 0; i < nlinks; i++) {
		board_of_port[i] = spec == NULL || *spec == '\0' ? (int)i : -1;
		pos[i] = 0;
	}
	if (spec == NULL || *spec == '\0')
		return 0;
	while (*s) {
		char *end;
		unsigned long p = strtoul(s, &end, 10);

		if (end == s || (*end != '+' && *end != ',' && *end != '\0')) {
			MXD_LOG(ERR, config, "MX_BOARDS=\"%s\": expected port "
					"numbers joined by '+' within a board "
					"and ',' between boards, e.g. \"0+1,2\"",
					spec);
			return -1;
		}
		if (p >= nlinks) {
			MXD_LOG(ERR, config, "MX_BOARDS=\"%s\": there is no "
					"port %lu: this process has %u port(s), "
					"0 to %u (from MX_DPDK_ARGS)", spec, p,
					nlinks, nlinks - 1);
			return -1;
		}
		if (used & (1u << p)) {
			MXD_LOG(ERR, config, "MX_BOARDS=\"%s\": port %lu is "
					"given twice; a port belongs to one "
					"board", spec, p);
			return -1;
		}
		if (++nports > MXD_BOARD_PORTS_MAX || board >= MXD_BOARDS_MAX) {
			MXD_LOG(ERR, config, "MX_BOARDS=\"%s\": at most %u "
					"boards of at most %u ports", spec,
					MXD_BOARDS_MAX, MXD_BOARD_PORTS_MAX);
			return -1;
		}
		used |= 1u << p;
		board_of_port[p] = (int)board;
		pos[p] = (int)nports - 1;
		s = end;
		if (*s == ',') {
			board++;
			nports = 0;
		}
		if (*s != '\0')
			s++;
	}
	return 0;
}

static void
row(struct mxd_setting *r, const char *name, const char *val,
		const char *help)
{
	r->name = name;
	snprintf(r->value, sizeof(r->value), "%s", val ? val : "(unset)");
	r->help = help;
}

unsigned
mxd_config_describe(const struct mxd_config *c, struct mxd_setting *rows,
		unsigned max)
{
	unsigned n = 0;

	if (max < 6 + sizeof(nums) / sizeof(nums[0]))
		return 0;
	row(&rows[n++], "MX_DPDK_ARGS", c->dpdk_args,
		"EAL arguments (ignored when the application started the EAL)");
	row(&rows[n++], "MX_HOSTNAME", c->hostname,
		"host part of board names <host>:<board>");
	row(&rows[n++], "MX_BOARDS", c->boards,
		"ports per board, e.g. \"0+1,2\"; default one board per port");
	row(&rows[n++], "MX_PEERS_FILE", c->peers_file,
		"file of \"<host>:<board> <mac>\" lines naming peers");
	row(&rows[n++], "MX_FAULTS", c->faults,
		"fault injection for tests, e.g. \"drop=5%,reorder=5%,seed=7\"");
	row(&rows[n++], "MX_HOST_SEGMENT", c->host_segment,
		"tests: <file>:<slot>: board 0 joins that host segment as "
		"that slot, without the board service");
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		const uint32_t *v = (const uint32_t *)(const void *)
			((const char *)c + nums[i].off);

		rows[n].name = nums[i].name;
		snprintf(rows[n].value, sizeof(rows[n].value), "%u", *v);
		rows[n++].help = nums[i].help;
	}
	return n;
}
