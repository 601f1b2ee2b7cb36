/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A board shared by the processes of a host (MX_BOARD_SHARED=1): this
 * process's side.  The board service (mx_board, service/) owns the ports;
 * this process connects to it, starting it first if it is not running,
 * gets a slot, maps each board's host segment (host.h) and drives its own
 * queues of each port with a link of pmd-glue's (shlink.c): no EAL, no
 * hugepages, nothing of DPDK's shared state, so that a process killed at
 * any moment leaves no lock held and nothing half-written that another
 * process waits for.
 *
 * Starting the service: the first process that finds no service takes a
 * lock (an abstract socket bound, which the kernel lets go with the
 * process), runs "mx_board start" (from PATH, else the installed one)
 * with its own environment, and waits for it; the others wait for the
 * lock and find the service.  The connection to the service stays open:
 * its end is how each side learns of the other's death.  The watch
 * (every MXD_WATCH_MS) looks at it, maps a port's new memif region after
 * a link-up, and says which dead slots this process holds nothing of.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "glue.h"
#include "log.h"
#include "mxd_bindir.h"
#include "shlink.h"
#include "board/board.h"
#include "board/service.h"
#include "board/shared.h"
#include "util/clock.h"

extern char **environ;

#define START_WAIT_MS	60000	/* for a service another process starts */
#define REPLY_WAIT_MS	10000	/* for an answer of the service */

static struct {
	int fd;			/* to the service, -1: not shared */
	unsigned slot, epoch, nboards;
	int dead;		/* the service went away */
	int said;		/* and we said so */
	int32_t service_pid;
	struct {
		struct mxd_host *h;
		size_t len;
		unsigned nports;
		struct mxd_link *link[MXD_BOARD_PORTS];	/* ours, unwrapped */
	} seg[MXD_MAX_BOARDS];
	char spec[64];		/* MX_BOARDS of the boards of our links */
	char host[MX_MAX_HOSTNAME_LEN];
} sh = { .fd = -1 };

static void
nap_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* ---- finding the service, starting it ---------------------------------- */

static int
svc_connect(const char *host)
{
	struct sockaddr_un sa;
	socklen_t len = mxd_svc_addr(host, &sa);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (s < 0)
		return -1;
	if (connect(s, (struct sockaddr *)&sa, len) == 0)
		return s;
	close(s);
	return -1;
}

/* The start lock: an abstract socket bound (let go at our exit). */
static int
start_lock(const char *host)
{
	struct sockaddr_un sa;
	socklen_t len = mxd_svc_addr(host, &sa);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	/* "mx-board:" becomes "mx-start:" */
	memcpy(sa.sun_path + 1, "mx-start", 8);
	if (s >= 0 && bind(s, (struct sockaddr *)&sa, len) == 0)
		return s;
	if (s >= 0)
		close(s);
	return -1;
}

/* Runs "mx_board start" and waits for it: 0 if it says the service is
 * up. */
static int
svc_spawn(void)
{
	char *argv[] = { (char *)(uintptr_t)"mx_board",
		(char *)(uintptr_t)"start", NULL };
	pid_t pid;
	int rc, st = 0;

	rc = posix_spawnp(&pid, "mx_board", NULL, NULL, argv, environ);
	if (rc == ENOENT)
		rc = posix_spawn(&pid, MXD_BINDIR "/mx_board", NULL, NULL, argv,
				environ);
	if (rc != 0) {
		MXD_LOG(ERR, init, "MX_BOARD_SHARED=1: no board service runs "
				"for host %s and mx_board cannot be run (%s): "
				"put mx_board in PATH, or start it yourself "
				"(mx_board start, with this environment)",
				sh.host, strerror(rc));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;	/* SIGCHLD ignored: look for it */
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* A connection to the service of our host, started if need be; -1 after
 * a message. */
static int
svc_find(void)
{
	uint64_t until = mxd_now_ns() / 1000000 + START_WAIT_MS;

	for (;;) {
		int s = svc_connect(sh.host), lk;

		if (s >= 0)
			return s;
		lk = start_lock(sh.host);
		if (lk >= 0) {
			s = svc_connect(sh.host);
			if (s < 0 && svc_spawn() == 0)
				s = svc_connect(sh.host);
			close(lk);
			if (s < 0)
				MXD_LOG(ERR, init, "MX_BOARD_SHARED=1: the board "
						"service of host %s did not start "
						"(its messages above; mx_board "
						"start runs it by hand)",
						sh.host);
			return s;
		}
		if (mxd_now_ns() / 1000000 >= until) {
			MXD_LOG(ERR, init, "MX_BOARD_SHARED=1: another process "
					"has been starting the board service "
					"of host %s for %u s: see mx_board "
					"status", sh.host, START_WAIT_MS / 1000);
			return -1;
		}
		nap_ms(20);
	}
}

/* ---- talking to it ------------------------------------------------------ */

static int
reply(struct mxd_svc_msg *m, int *fd)
{
	struct pollfd p = { sh.fd, POLLIN, 0 };

	if (poll(&p, 1, REPLY_WAIT_MS) <= 0 ||
			mxd_svc_recv(sh.fd, m, fd, 0) < 0)
		return -1;
	return 0;
}

static int
seg_map(unsigned b, int fd, uint64_t len)
{
	struct mxd_host *h;
	struct stat st;

	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < len ||
			len < sizeof(*h))
		return -1;
	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -1;
	if (h->magic != MXD_HOST_MAGIC || h->version != MXD_HOST_VERSION ||
			h->nports == 0 || h->nports > MXD_BOARD_PORTS) {
		MXD_LOG(ERR, init, "board %u of the board service: a host "
				"segment of another layout (version %u, this "
				"library %u): run one mx-dpdk version on the "
				"host", b, h->version, MXD_HOST_VERSION);
		munmap(h, len);
		return -1;
	}
	sh.seg[b].h = h;
	sh.seg[b].len = len;
	sh.seg[b].nports = h->nports;
	return 0;
}

static int
hello(void)
{
	struct mxd_svc_msg m;
	int fd;

	mxd_svc_msg_init(&m, MXD_SVC_HELLO);
	m.pid = (int32_t)getpid();
	if (mxd_svc_send(sh.fd, &m, -1) < 0 || reply(&m, &fd) < 0) {
		MXD_LOG(ERR, init, "the board service of host %s does not "
				"answer (mx_board status)", sh.host);
		return -MX_NO_DEV;
	}
	if (m.type != MXD_SVC_WELCOME) {
		MXD_LOG(ERR, init, "the board service of host %s refuses "
				"this process: %s", sh.host, m.text);
		return m.status == -ENOSPC ? -MX_NO_RESOURCES : -MX_NO_DEV;
	}
	sh.slot = m.slot;
	sh.epoch = m.epoch;
	sh.nboards = m.nboards < MXD_MAX_BOARDS ? m.nboards : MXD_MAX_BOARDS;
	sh.service_pid = m.pid;
	for (unsigned b = 0; b < sh.nboards; b++) {
		if (reply(&m, &fd) < 0 || m.type != MXD_SVC_BOARD || fd < 0 ||
				seg_map(b, fd, m.len) < 0) {
			if (fd >= 0)
				close(fd);
			MXD_LOG(ERR, init, "the board service of host %s gave "
					"no usable segment for board %u", sh.host,
					b);
			return -MX_NO_DEV;
		}
		close(fd);
	}
	return 0;
}

/* The port's current memif regions, one per lane, mapped into its link
 * (nothing while the link is down).  0, or -1 when the service is gone. */
static int
region_fetch(unsigned b, unsigned p)
{
	unsigned lanes = sh.seg[b].h->port[p].nlanes;

	for (unsigned k = 0; k < lanes; k++) {
		struct mxd_svc_msg m;
		int fd, ret;

		mxd_svc_msg_init(&m, MXD_SVC_REGION_REQ);
		m.board = b;
		m.port = p;
		m.lane = k;
		if (mxd_svc_send(sh.fd, &m, -1) < 0 || reply(&m, &fd) < 0)
			return -1;
		if (m.type != MXD_SVC_REGION || fd < 0)
			return 0;
		ret = mxd_glue_shlink_map(sh.seg[b].link[p], k, fd, m.gen,
				m.len);
		close(fd);
		if (ret < 0) {
			MXD_LOG(ERR, port, "board %u port %u: %s", b, p,
					mxd_glue_error());
			return 0;
		}
	}
	return 0;
}

/* ---- start and stop ----------------------------------------------------- */

static int
links_make(struct mxd_lib *lib, const struct mxd_config *c)
{
	unsigned n = 0;
	int len = 0;

	for (unsigned b = 0; b < sh.nboards; b++) {
		struct mxd_host *h = sh.seg[b].h;

		for (unsigned p = 0; p < h->nports; p++) {
			struct mxd_link *l = mxd_glue_shlink_new(&h->port[p],
					mxd_host_fwd(h, p, sh.slot),
					mxd_host_up(h, p, sh.slot), sh.slot,
					c->nb_mbufs);

			if (l == NULL || n == MXD_GLUE_MAX_PORTS) {
				MXD_LOG(ERR, init, "board %s port %u: %s",
						h->board_name, p, l == NULL ?
						mxd_glue_error() : "too many ports");
				mxd_glue_shlink_free(l);
				return -MX_NO_RESOURCES;
			}
			sh.seg[b].link[p] = l;
			lib->links[n++] = l;
			len += snprintf(sh.spec + len, sizeof(sh.spec) -
					(size_t)len, "%s%u", p == 0 ?
					(b == 0 ? "" : ",") : "+", n - 1);
			if (h->port[p].state == MXD_SHPORT_UP &&
					region_fetch(b, p) < 0)
				return -MX_NO_DEV;
		}
	}
	lib->nlinks = n;
	return 0;
}

int
mxd_shared_start(struct mxd_lib *lib, struct mxd_config *c)
{
	int ret;

	snprintf(sh.host, sizeof(sh.host), "%s", c->hostname);
	sh.fd = svc_find();
	if (sh.fd < 0)
		return -MX_NO_DEV;
	sh.dead = sh.said = 0;
	ret = hello();
	if (ret == 0)
		ret = links_make(lib, c);
	if (ret < 0) {
		mxd_shared_stop(lib);
		return ret;
	}
	/* The boards are the service's, by the names it gave them. */
	c->boards = sh.spec;
	MXD_LOG(DEBUG, init, "shared board: slot %u (epoch %u) of the board "
			"service of host %s (pid %d), %u board(s)", sh.slot,
			sh.epoch, sh.host, (int)sh.service_pid, sh.nboards);
	return 0;
}

void
mxd_shared_stop(struct mxd_lib *lib)
{
	(void)lib;
	if (sh.fd < 0)
		return;
	for (unsigned b = 0; b < MXD_MAX_BOARDS; b++) {
		for (unsigned p = 0; p < MXD_BOARD_PORTS; p++) {
			mxd_glue_shlink_free(sh.seg[b].link[p]);
			sh.seg[b].link[p] = NULL;
		}
		if (sh.seg[b].h != NULL)
			munmap(sh.seg[b].h, sh.seg[b].len);
		sh.seg[b].h = NULL;
	}
	close(sh.fd);	/* the service frees our slot */
	sh.fd = -1;
	sh.nboards = 0;
}

struct mxd_host *
mxd_shared_host(unsigned board, unsigned *slot)
{
	if (sh.fd < 0 || board >= sh.nboards)
		return NULL;
	*slot = sh.slot;
	return sh.seg[board].h;
}

/* ---- endpoints ----------------------------------------------------------- */

int
mxd_shared_ep_claim(struct mxd_board *b, uint32_t id)
{
	struct mxd_host *h = b->host;
	uint32_t lo = id, hi = id + 1;

	if (sh.dead)
		return -MX_NO_DEV;
	if (id == MX_ANY_ENDPOINT) {
		lo = 0;
		hi = MXD_HOST_ENDPOINTS;
	} else if (id >= MXD_HOST_ENDPOINTS) {
		return -MX_BAD_ENDPOINT_ID;
	}
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t free_id = MXD_HOST_NO_SLOT;

		if (b->ep[i] == NULL && __atomic_compare_exchange_n(
					&h->ep_slot[i], &free_id, b->slot, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return (int)i;
	}
	return -MX_BUSY;
}

void
mxd_shared_ep_release(struct mxd_board *b, uint32_t id)
{
	uint32_t mine = b->slot;

	if (b->host != NULL && id < MXD_HOST_ENDPOINTS)
		__atomic_compare_exchange_n(&b->host->ep_slot[id], &mine,
				MXD_HOST_NO_SLOT, 0, __ATOMIC_RELEASE,
				__ATOMIC_RELAXED);
}

int
mxd_shared_ep_holder(const struct mxd_board *b, uint32_t id, int *pid)
{
	uint32_t s;

	if (b->host == NULL || id >= MXD_HOST_ENDPOINTS)
		return -1;
	s = __atomic_load_n(&b->host->ep_slot[id], __ATOMIC_ACQUIRE);
	if (s >= MXD_HOST_SLOTS_MAX)
		return -1;
	*pid = __atomic_load_n(&b->host->slot[s].pid, __ATOMIC_RELAXED);
	return (int)s;
}

/* ---- the watch ------------------------------------------------------------ */

/* The service's end of the connection: gone? */
static int
svc_gone(void)
{
	struct pollfd p = { sh.fd, POLLIN | POLLRDHUP, 0 };
	char c;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLRDHUP | POLLERR))
		return 1;
	return recv(sh.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static void
svc_died(void)
{
	sh.dead = 1;
	for (unsigned b = 0; b < sh.nboards; b++)
		for (unsigned p = 0; p < sh.seg[b].nports; p++)
			mxd_glue_shlink_kill(sh.seg[b].link[p]);
	MXD_LOG(ERR, init, "the board service of host %s (mx_board, pid %d) "
			"is gone: nothing reaches the wire from this process "
			"any more, and every request on its boards fails with "
			"MX_STATUS_ENDPOINT_UNREACHABLE.  Start the service "
			"again (mx_board start, or any mx_init with "
			"MX_BOARD_SHARED=1), then the program (mx-dpdk(7), "
			"TROUBLESHOOTING)", sh.host, (int)sh.service_pid);
}

/* Dead slots whose rings we hold nothing of (the same-host path clears
 * its bit of b->rings_held first): said, so that the service frees them. */
static void
let_go(struct mxd_board *b)
{
	struct mxd_host *h = b->host;
	uint64_t me = 1ull << b->slot;

	for (unsigned s = 1; s < MXD_HOST_SLOTS_MAX; s++) {
		struct mxd_host_slot *hs = &h->slot[s];

		if (__atomic_load_n(&hs->state, __ATOMIC_ACQUIRE) ==
				MXD_HOST_SLOT_DEAD &&
				!(__atomic_load_n(&hs->let_go, __ATOMIC_RELAXED) &
					me) && !(b->rings_held & (1ull << s)))
			__atomic_fetch_or(&hs->let_go, me, __ATOMIC_RELEASE);
	}
}

void
mxd_shared_watch(struct mxd_board *b)
{
	if (sh.fd < 0)
		return;
	if (!sh.dead && svc_gone())
		svc_died();
	if (sh.dead) {
		if (b->orphan == 0)
			b->orphan = 1;
		return;
	}
	for (unsigned p = 0; p < b->nports && b->index < sh.nboards; p++) {
		const struct mxd_shport *sp = &b->host->port[p];
		struct mxd_link *l = sh.seg[b->index].link[p];

		if (__atomic_load_n(&sp->state, __ATOMIC_ACQUIRE) ==
				MXD_SHPORT_UP && __atomic_load_n(&sp->gen,
					__ATOMIC_ACQUIRE) != mxd_glue_shlink_gen(l) &&
				region_fetch(b->index, p) < 0) {
			svc_died();
			return;
		}
	}
	let_go(b);
}

int
mxd_shared_dead(void)
{
	return sh.dead;
}
