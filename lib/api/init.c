/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Library set-up (mx_init, mx_finalize), and the calls that name boards
 * and hosts.  Errors go through mxd_error (error.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "glue.h"
#include "log.h"
#include "util/config.h"
#include "util/stats.h"
#include "board/shared.h"
#include "partners/naming.h"
#include "engine/shmsend.h"
#include "progress/progress.h"
#include "api/close.h"
#include "api/error.h"
#include "api/face.h"
#include "api/init.h"
#include "api/wait.h"

_Static_assert(MXD_BOARDS_MAX == MXD_MAX_BOARDS &&
		MXD_BOARD_PORTS_MAX == MXD_BOARD_PORTS,
		"config.h's limits of MX_BOARDS are board.h's");

/* ---- init / finalize ---------------------------------------------------- */

/* How an EAL or port failure reads in MX terms. */
static int
start_error(int err)
{
	switch (-err) {
	case ENODEV:
		return -MX_NO_DRIVER;	/* a device without its driver */
	case EACCES:
	case EPERM:
		return -MX_NO_PERM;	/* hugepages, devices: not allowed */
	case ENOMEM:
		return -MX_NO_RESOURCES;
	case EBUSY:
		return -MX_BUSY;	/* another process holds the port */
	case EINVAL:
	case E2BIG:
		return -MX_BAD_PARAM_VAL;	/* MX_DPDK_ARGS, devargs */
	default:
		return -MX_NO_DEV;
	}
}

static int
no_port(const struct mxd_lib *lib)
{
	const char *a = mxd_conf.dpdk_args;

	if (lib->eal_reused)
		MXD_LOG(ERR, init, "the application initialised DPDK without "
				"a port: give its EAL one (e.g. --vdev=net_memif0,"
				"...) before mx_init");
	else if (a == NULL || strstr(a, "--vdev") == NULL)
		MXD_LOG(ERR, init, "DPDK found no port: MX_DPDK_ARGS%s names "
				"none.  Give one, e.g. MX_DPDK_ARGS=\"--no-huge "
				"-m 256 --no-pci --vdev=net_memif0,role=server,"
				"socket=/tmp/mx.sock\" (README, Running), or "
				"bind a NIC to vfio-pci", a == NULL ?
				" is unset and" : "");
	else
		MXD_LOG(ERR, init, "DPDK found no port in MX_DPDK_ARGS=\"%s\" "
				"(MX_VERBOSE=1 shows DPDK's own messages)", a);
	return -MX_NO_DEV;
}

/*
 * Links that did not come up within MX_LINK_WAIT_MS, by board name.  A
 * port that could not even start (a memif client that never reached its
 * server) fails mx_init; one that started but stays down is a warning,
 * since traffic goes around it (and a memif server waits for its client).
 */
static int
links_report(struct mxd_link *ports, unsigned n, const int *board,
		const int *pos)
{
	int ret = 0;

	for (unsigned i = 0; i < n; i++) {
		struct mxd_link *l = &ports[i];
		int fatal = !l->started;

		if (board[i] < 0 || (l->started && (!l->waits ||
				mxd_conf.link_wait_ms == 0 ||
				l->ops->link_up(l))))
			continue;
		rte_log(fatal ? RTE_LOG_ERR : RTE_LOG_WARNING, mxd_log_init,
				"mx: board %s:%d port %d (%s): link down after "
				"%u ms: %s%s\n", mxd_conf.hostname, board[i],
				pos[i], l->name, mxd_conf.link_wait_ms,
				l->down_hint, mxd_conf.link_wait_ms < 1000 ?
				" (MX_LINK_WAIT_MS may be too short)" : "");
		if (fatal)
			ret = -MX_NO_DEV;
	}
	return ret;
}

static int
lib_start(struct mxd_lib *lib)
{
	struct mxd_glue_conf gc = {
		.eal_args = mxd_conf.dpdk_args, .mtu = mxd_conf.mtu,
		.nb_mbufs = mxd_conf.nb_mbufs, .nb_rxd = 1024, .nb_txd = 1024,
		.keep_affinity = 1, .verbose = mxd_conf.verbose != 0,
		.keep_pmd_mac = mxd_conf.keep_mac != 0,
	};
	int board[MXD_GLUE_MAX_PORTS], pos[MXD_GLUE_MAX_PORTS];
	struct mxd_link *ports;
	unsigned n = 0;
	int ret = mxd_glue_eal_init(&gc, &lib->eal_reused);

	if (ret == 0)
		ret = mxd_glue_ports_open(&gc, &ports, &n);
	if (ret < 0) {
		MXD_LOG(ERR, init, "%s", mxd_glue_error());
		if (mxd_conf.verbose)
			fputs(mxd_glue_eal_text(), stderr);
		return start_error(ret);
	}
	if (n == 0)
		return no_port(lib);
	if (n > MXD_GLUE_MAX_PORTS)
		n = MXD_GLUE_MAX_PORTS;
	if (mxd_config_boards(mxd_conf.boards, n, board, pos) < 0)
		return -MX_BAD_PARAM_VAL;
	mxd_glue_links_start(ports, n, mxd_conf.link_wait_ms);
	ret = links_report(ports, n, board, pos);
	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < n; i++)
		lib->links[i] = &ports[i];
	lib->nlinks = n;
	return 0;
}

static void
print_boards(const struct mxd_lib *lib)
{
	for (unsigned i = 0; i < lib->nboards; i++) {
		const struct mxd_board *b = lib->boards[i];
		const uint8_t *m = b->port[0]->mac;

		MXD_LOG(DEBUG, init, "board %u %s nic %012llx ports %u frag %u "
				"eager max %u; port 0 %s MAC %02x:%02x:%02x:"
				"%02x:%02x:%02x%s", i, b->name,
				(unsigned long long)b->nic_id, b->nports,
				b->frag_max, b->eager_max, b->port[0]->name,
				m[0], m[1], m[2], m[3], m[4], m[5],
				b->port[0]->mac_assigned ? " (assigned)" : "");
	}
}

/* Settings a board cannot honour in full are capped: say so once. */
static void
warn_capped(const struct mxd_lib *lib)
{
	for (unsigned i = 0; i < lib->nboards; i++) {
		const struct mxd_board *b = lib->boards[i];

		if (mxd_conf.eager_max > b->eager_max) {
			MXD_LOG(WARNING, config, "MX_RNDV_THRESHOLD=%u capped "
					"to %u on board %s: an eager message is "
					"at most %u frames of %u bytes (raise "
					"MX_MTU for more)", mxd_conf.eager_max,
					b->eager_max, b->name, MXD_MAX_FRAGS,
					b->frag_max);
			return;
		}
	}
}

/*
 * MX_HOST_SEGMENT=<file>:<slot>, for tests and benchmarks: board 0 joins
 * the host segment in <file> (board/host.h; made by the test fixture,
 * tests/common/hostfix.c, or tests/bench/shm_host) as slot <slot>, as a
 * process does whose board the board service shares: it takes the slot
 * (its pid, the epoch raised, live), the segment's NIC id and board name,
 * and the same-host path is set up (engine/shmsend.c).  The mapping is
 * the board's until mx_finalize.
 */
static size_t host_map_len;

static int
host_join_env(struct mxd_lib *lib, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	struct mxd_board *b = lib->boards[0];
	char path[256];
	struct stat st;
	struct mxd_host *h;
	unsigned long slot;
	char *end;
	int fd, ret;

	if (colon == NULL || (size_t)(colon - spec) >= sizeof(path) ||
			(slot = strtoul(colon + 1, &end, 10), *end != '\0') ||
			end == colon + 1 || slot >= MXD_HOST_SLOTS_MAX) {
		MXD_LOG(ERR, config, "MX_HOST_SEGMENT=\"%s\": give "
				"<file>:<slot>, a slot under %u", spec,
				MXD_HOST_SLOTS_MAX);
		return -MX_BAD_PARAM_VAL;
	}
	if (b->host != NULL) {
		MXD_LOG(ERR, config, "MX_HOST_SEGMENT=\"%s\": board %s is "
				"shared through the board service, whose host "
				"segment it has: leave MX_HOST_SEGMENT unset",
				spec, b->name);
		return -MX_BAD_PARAM_VAL;
	}
	snprintf(path, sizeof(path), "%.*s", (int)(colon - spec), spec);
	fd = open(path, O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0 ||
			(size_t)st.st_size < sizeof(struct mxd_host)) {
		MXD_LOG(ERR, config, "MX_HOST_SEGMENT=\"%s\": %s", spec,
				fd < 0 ? strerror(errno) : "not a host segment");
		if (fd >= 0)
			close(fd);
		return -MX_BAD_PARAM_VAL;
	}
	h = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			fd, 0);
	close(fd);
	if (h == MAP_FAILED || h->magic != MXD_HOST_MAGIC ||
			h->size > (uint64_t)st.st_size || slot >= h->nslots) {
		MXD_LOG(ERR, config, "MX_HOST_SEGMENT=\"%s\": not a host "
				"segment of this version, or no slot %lu in it",
				spec, slot);
		if (h != MAP_FAILED)
			munmap(h, (size_t)st.st_size);
		return -MX_BAD_PARAM_VAL;
	}
	h->slot[slot].pid = getpid();
	__atomic_add_fetch(&h->slot[slot].epoch, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&h->slot[slot].state, MXD_HOST_SLOT_LIVE,
			__ATOMIC_RELEASE);
	b->host = h;
	b->slot = (unsigned)slot;
	if (h->nic_id != 0)
		b->nic_id = h->nic_id;
	if (h->board_name[0] != '\0')
		snprintf(b->name, sizeof(b->name), "%.63s", h->board_name);
	ret = mxd_shm_attach(b);
	if (ret < 0) {
		b->host = NULL;
		munmap(h, (size_t)st.st_size);
		return ret;
	}
	host_map_len = (size_t)st.st_size;
	return 0;
}

/* The same-host path of every board whose board service shares it
 * (board/shared.c gave it its host segment and slot). */
static int
host_attach_all(struct mxd_lib *lib)
{
	for (unsigned i = 0; i < lib->nboards; i++) {
		struct mxd_board *b = lib->boards[i];
		int ret;

		if (b->host != NULL && b->shm == NULL &&
				(ret = mxd_shm_attach(b)) < 0)
			return ret;
	}
	return 0;
}

static void
host_leave(struct mxd_lib *lib)
{
	for (unsigned i = 0; i < lib->nboards; i++)
		mxd_shm_detach(lib->boards[i]);
	if (host_map_len != 0 && lib->nboards > 0) {
		munmap(lib->boards[0]->host, host_map_len);
		lib->boards[0]->host = NULL;
	}
	host_map_len = 0;
}

/* Another process of this host with one of our names or NIC ids (a
 * shared board's are its processes' in common). */
static void
warn_shared_identity(const struct mxd_lib *lib)
{
	for (unsigned i = 0; i < lib->nboards; i++) {
		const struct mxd_board *b = lib->boards[i];
		char other[MX_MAX_HOSTNAME_LEN];
		int pid, how;

		if (b->host != NULL)	/* shared by design */
			continue;
		how = mxd_stats_find_other(b->name, b->nic_id, &pid, other,
				sizeof(other));
		if (how == 1)
			MXD_LOG(WARNING, naming, "board %s: process %d of this "
					"host already uses the name %s%s: give "
					"each process a MX_HOSTNAME of its own "
					"(e.g. MX_HOSTNAME=nodeA), or a peer "
					"may reach the wrong one", b->name, pid,
					other, mxd_conf.hostname_set ? "" :
					" (the default, the host's name)");
		else if (how == 2)
			MXD_LOG(WARNING, naming, "board %s: NIC id %012llx is "
					"also board %s of process %d: give the "
					"ports distinct MACs (drop mac= to let "
					"the library choose one)", b->name,
					(unsigned long long)b->nic_id, other, pid);
	}
}

int
mxd_init_links(struct mxd_link *const *links, unsigned n)
{
	struct mxd_lib *lib = &mxd_lib;
	int ret;

	if (n > MXD_GLUE_MAX_PORTS)
		n = MXD_GLUE_MAX_PORTS;
	for (unsigned i = 0; i < n; i++)
		lib->links[i] = links[i];
	lib->nlinks = n;
	if (mxd_fault_wrap(mxd_conf.faults, lib->links, n) < 0) {
		MXD_LOG(ERR, config, "%s (in MX_FAULTS=\"%s\")",
				mxd_glue_error(), mxd_conf.faults);
		return -MX_BAD_PARAM_VAL;
	}
	mxd_naming_init();
	ret = mxd_boards_init(lib, &mxd_conf);
	if (ret == 0 && mxd_conf.host_segment != NULL &&
			*mxd_conf.host_segment != '\0')
		ret = host_join_env(lib, mxd_conf.host_segment);
	if (ret == 0)
		ret = host_attach_all(lib);
	for (unsigned i = 0; ret == 0 && i < lib->nboards; i++)
		mxd_naming_add(lib->boards[i]->nic_id, lib->boards[i]->name,
				-1, NULL);
	if (ret == 0 && mxd_conf.peers_file != NULL &&
			mxd_naming_load_file(mxd_conf.peers_file) < 0)
		ret = -MX_BAD_PARAM_VAL;
	if (ret < 0) {
		host_leave(lib);
		mxd_boards_fini(lib);
		mxd_fault_unwrap(lib->links, lib->nlinks);
		return ret;
	}
	for (unsigned i = 0; i < lib->nboards; i++)
		mxd_naming_announce(lib->boards[i], NULL);
	print_boards(lib);
	warn_capped(lib);
	warn_shared_identity(lib);
	lib->initialized = 1;
	return 0;
}

/*
 * The library is held by the MX API (mx_init) and by Portals (PtlInit),
 * one state for both: the first to come starts it, the last to go stops
 * it, and each face closes only its own endpoints.
 */
static unsigned held;		/* MXD_HOLD_*, under the library lock */

/* Who holds it: a library started on links of its own (mxd_init_links:
 * the tests' fake links) is MX's. */
static unsigned
holders(void)
{
	if (mxd_lib.initialized && held == 0)
		held = MXD_HOLD_MX;
	return held;
}

int
mxd_lib_hold(unsigned who)
{
	struct mxd_lib *lib = &mxd_lib;
	unsigned h = holders();		/* before the start below */
	int ret = 0;

	if (!lib->initialized) {
		ret = mxd_config_load(&mxd_conf);
		if (ret == 0)
			ret = mxd_conf.board_shared ?
				mxd_shared_start(lib, &mxd_conf) :
				lib_start(lib);
		if (ret == 0)
			mxd_stats_sweep();
		if (ret == 0)
			ret = mxd_init_links(lib->links, lib->nlinks);
		if (ret == 0)
			ret = mxd_progress_thread_start();
		if (ret < 0)
			mxd_shared_stop(lib);
	}
	if (ret == 0)
		held = h | who;
	return ret;
}

void
mxd_lib_release(unsigned who)
{
	struct mxd_lib *lib = &mxd_lib;

	held = holders() & ~who;
	if (held != 0 || !lib->initialized)
		return;
	/* Outside the lock: the progress thread may be waiting for it. */
	mxd_leave();
	mxd_progress_thread_stop();
	mxd_enter();
	if (held != 0 || !lib->initialized)
		return;		/* taken again meanwhile (its thread is gone) */
	for (unsigned i = 0; i < lib->nboards; i++)
		for (unsigned e = 0; e < MX_MAX_ENDPOINTS; e++)
			if (lib->boards[i]->ep[e] != NULL)
				mxd_close_endpoint(lib->boards[i]->ep[e]);
	host_leave(lib);
	mxd_boards_fini(lib);
	mxd_fault_unwrap(lib->links, lib->nlinks);
	mxd_shared_stop(lib);
	for (unsigned s = 0; s < MXD_LIVE_HINTS; s++)
		lib->live_hint[s] = MXD_NO_EP;
	lib->initialized = 0;
}

static mx_return_t
do_init(void)
{
	int ret;

	if (holders() & MXD_HOLD_MX)
		return mxd_error(NULL, MX_ALREADY_INITIALIZED,
				"mx_init: already initialized");
	ret = mxd_lib_hold(MXD_HOLD_MX);
	if (ret < 0)
		return mxd_error(NULL, (mx_return_t)-ret,
				"mx_init failed (see messages above)");
	return MX_SUCCESS;
}

static mx_return_t
do_finalize(void)
{
	struct mxd_lib *lib = &mxd_lib;

	if (!(holders() & MXD_HOLD_MX))
		return mxd_error(NULL, MX_NOT_INITIALIZED,
				"mx_finalize: not initialized");
	/* MX's endpoints; those of another face are its own to close. */
	for (unsigned i = 0; i < lib->nboards; i++)
		for (unsigned e = 0; e < MX_MAX_ENDPOINTS; e++)
			if (lib->boards[i]->ep[e] != NULL &&
					lib->boards[i]->ep[e]->face == NULL)
				mxd_close_endpoint(lib->boards[i]->ep[e]);
	mxd_lib_release(MXD_HOLD_MX);
	return MX_SUCCESS;
}

/* ---- naming ------------------------------------------------------------- */

static mx_return_t
do_hostname_to_nic_id(char *hostname, uint64_t *nic_id)
{
	uint64_t nic;
	int ret;

	if (!mxd_lib.initialized)
		return mxd_error(NULL, MX_NOT_INITIALIZED,
				"mx_hostname_to_nic_id: not initialized");
	if (hostname == NULL || nic_id == NULL ||
			strlen(hostname) >= MXD_NAME_LEN)
		return mxd_error(NULL, MX_BAD_HOSTNAME_ARGS,
				"mx_hostname_to_nic_id: bad arguments");
	ret = mxd_naming_resolve(hostname, mxd_conf.discovery_ms, &nic);
	if (ret < 0) {
		/* A port that is down is the likely cause: say so, whatever
		 * the error handler does with the error itself. */
		for (unsigned i = 0; i < mxd_lib.nboards; i++) {
			struct mxd_board *b = mxd_lib.boards[i];

			for (unsigned j = 0; j < b->nports; j++)
				if (!mxd_board_port_up(b, j))
					MXD_LOG(WARNING, naming, "%s not found "
						"while board %s port %u (%s) "
						"is down: %s", hostname,
						b->name, j, b->port[j]->name,
						b->port[j]->down_hint);
		}
		return mxd_error(NULL, MX_HOST_NOT_FOUND,
				"mx_hostname_to_nic_id: %s not found", hostname);
	}
	*nic_id = nic;
	return MX_SUCCESS;
}

static mx_return_t
do_nic_id_to_hostname(uint64_t nic_id, char *hostname)
{
	const struct mxd_peer *p;

	if (!mxd_lib.initialized)
		return mxd_error(NULL, MX_NOT_INITIALIZED,
				"mx_nic_id_to_hostname: not initialized");
	if (hostname == NULL)
		return mxd_error(NULL, MX_BAD_HOSTNAME_ARGS,
				"mx_nic_id_to_hostname: NULL hostname");
	p = mxd_naming_by_nic(nic_id);
	if (p == NULL || p->name[0] == '\0')
		return mxd_error(NULL, MX_HOST_NOT_FOUND,
				"mx_nic_id_to_hostname: %012llx not found",
				(unsigned long long)nic_id);
	snprintf(hostname, MX_MAX_HOSTNAME_LEN, "%s", p->name);
	return MX_SUCCESS;
}

static mx_return_t
do_board_number_to_nic_id(uint32_t board, uint64_t *nic_id)
{
	if (!mxd_lib.initialized || board >= mxd_lib.nboards ||
			nic_id == NULL)
		return mxd_error(NULL, MX_BOARD_UNKNOWN,
				"mx_board_number_to_nic_id: no board %u", board);
	*nic_id = mxd_lib.boards[board]->nic_id;
	return MX_SUCCESS;
}

static mx_return_t
do_nic_id_to_board_number(uint64_t nic_id, uint32_t *board)
{
	struct mxd_board *b = mxd_lib.initialized ?
		mxd_board_by_nic(nic_id) : NULL;

	if (b == NULL || board == NULL)
		return mxd_error(NULL, MX_BOARD_UNKNOWN,
				"mx_nic_id_to_board_number: no board %012llx",
				(unsigned long long)nic_id);
	*board = b->index;
	return MX_SUCCESS;
}

/* ---- entry points: the library lock around each call (lock.h) ---- */

MXD_ENTRY(mx_init, do_init,
	(void),
	())

mx_return_t
mx_finalize(void)
{
	mx_return_t rc;

	/* From an unexpected handler: the pass that runs it walks the boards
	 * this would free (and on the progression thread, the stop below
	 * would wait for itself).  A thread in a call holds the library, so
	 * it may look at the pass. */
	if (mxd_call_depth() != 0 && mxd_in_pass())
		return mxd_error(NULL, MX_CLOSE_IN_HANDLER, "mx_finalize: "
				"called from an unexpected handler");
	mxd_enter();
	rc = do_finalize();	/* stops the progress thread if the last */
	mxd_leave();
	return rc;
}

MXD_ENTRY(mx_hostname_to_nic_id, do_hostname_to_nic_id,
	(char *hostname, uint64_t *nic_id),
	(hostname, nic_id))

MXD_ENTRY(mx_nic_id_to_hostname, do_nic_id_to_hostname,
	(uint64_t nic_id, char *hostname),
	(nic_id, hostname))

MXD_ENTRY(mx_board_number_to_nic_id, do_board_number_to_nic_id,
	(uint32_t board, uint64_t *nic_id),
	(board, nic_id))

MXD_ENTRY(mx_nic_id_to_board_number, do_nic_id_to_board_number,
	(uint64_t nic_id, uint32_t *board),
	(nic_id, board))
