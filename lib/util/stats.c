/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Board counters live in a shared-memory segment so that mx_counters, a
 * separate process, can read and reset them (MX's counters were the
 * NIC's; ours are the library's, in the application's process).  The
 * layout is mx_dpdk_stats_t of mx_extensions.h: a header, the labels,
 * then the values.  Counting is a plain increment into that memory, as
 * before.  If the segment cannot be created the counters stay private.
 *
 * Segments do not outlive their process: mx_finalize() removes them, an
 * exit without it removes them (atexit), and the segments of processes
 * that died without either (a signal) are removed by the next mx_init()
 * of any process of the host, as by "mx_counters -p".  The same look at
 * the other processes' segments tells mx_init() whether another process
 * already uses one of its board names or NIC ids.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mx_extensions.h"
#include "myriexpress.h"
#include "util/stats.h"

static size_t
values_offset(void)
{
	size_t off = sizeof(mx_dpdk_stats_t) +
		(size_t)MXD_C_MAX * MX_DPDK_STATS_LABEL;

	return (off + 7) & ~(size_t)7;
}

#define SEG_PREFIX	"mx-dpdk."
#define MAX_OWN		16

/* This process's segments, for the exit handler (paths under /dev/shm). */
static char own[MAX_OWN][64];
static pid_t own_pid;
static int exit_hook;

static void
remove_own(void)
{
	if (getpid() != own_pid)	/* a forked child exiting */
		return;
	for (unsigned i = 0; i < MAX_OWN; i++)
		if (own[i][0] != '\0') {
			shm_unlink(own[i]);
			own[i][0] = '\0';
		}
}

static void
own_add(const char *path)
{
	if (own_pid != getpid()) {
		memset(own, 0, sizeof(own));	/* inherited from a parent */
		own_pid = getpid();
	}
	if (!exit_hook)
		exit_hook = atexit(remove_own) == 0;
	for (unsigned i = 0; i < MAX_OWN; i++)
		if (own[i][0] == '\0') {
			snprintf(own[i], sizeof(own[i]), "%s", path);
			return;
		}
}

static void
own_del(const char *path)
{
	for (unsigned i = 0; i < MAX_OWN; i++)
		if (!strcmp(own[i], path))
			own[i][0] = '\0';
}

/* The pid in a segment's file name, or 0 if it is not one of ours. */
static pid_t
seg_pid(const char *name)
{
	unsigned long pid;
	char *end;

	if (strncmp(name, SEG_PREFIX, strlen(SEG_PREFIX)) != 0)
		return 0;
	pid = strtoul(name + strlen(SEG_PREFIX), &end, 10);
	return *end == '.' && pid > 0 ? (pid_t)pid : 0;
}

static int
pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* Reads a live segment's header; 0 on success. */
static int
seg_header(const char *name, mx_dpdk_stats_t *h)
{
	char path[300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/dev/shm/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, h, sizeof(*h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(*h) || h->magic != MX_DPDK_STATS_MAGIC)
		return -1;
	h->board_name[sizeof(h->board_name) - 1] = '\0';
	return 0;
}

void
mxd_stats_sweep(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		pid_t pid = seg_pid(e->d_name);
		char path[300];

		if (pid == 0 || pid_alive(pid))
			continue;
		snprintf(path, sizeof(path), "/%s", e->d_name);
		shm_unlink(path);
	}
	closedir(d);
}

int
mxd_stats_find_other(const char *name, uint64_t nic_id, int *pid,
		char *other_name, size_t len)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	int found = 0;

	if (d == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		pid_t p = seg_pid(e->d_name);
		mx_dpdk_stats_t h;

		if (p == 0 || p == getpid() || !pid_alive(p) ||
				seg_header(e->d_name, &h) != 0)
			continue;
		if (!strcmp(h.board_name, name))
			found = 1;
		else if (h.nic_id == nic_id)
			found = 2;
		if (found) {
			*pid = (int)p;
			snprintf(other_name, len, "%s", h.board_name);
		}
	}
	closedir(d);
	return found;
}

static void *
stats_map(struct mxd_stats *s, unsigned index, size_t len)
{
	void *m;
	int fd;

	snprintf(s->path, sizeof(s->path), "/mx-dpdk.%d.%u", (int)getpid(),
			index);
	fd = shm_open(s->path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		goto private;
	if (ftruncate(fd, (off_t)len) != 0) {
		close(fd);
		shm_unlink(s->path);
		goto private;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m != MAP_FAILED) {
		own_add(s->path);
		return m;
	}
	shm_unlink(s->path);
private:
	s->path[0] = '\0';
	return calloc(1, len);
}

int
mxd_stats_open(struct mxd_stats *s, unsigned index, uint64_t nic_id,
		const char *name)
{
	size_t len = values_offset() + MXD_C_MAX * sizeof(uint64_t);
	mx_dpdk_stats_t *h = stats_map(s, index, len);
	char *label;

	if (h == NULL)
		return -MX_NO_RESOURCES;
	s->seg = h;
	s->len = len;
	h->version = MX_DPDK_STATS_VERSION;
	h->pid = (uint32_t)getpid();
	h->count = MXD_C_MAX;
	h->nic_id = nic_id;
	snprintf(h->board_name, sizeof(h->board_name), "%s", name);
	label = (char *)(h + 1);
	for (unsigned c = 0; c < MXD_C_MAX; c++)
		snprintf(label + c * MX_DPDK_STATS_LABEL, MX_DPDK_STATS_LABEL,
				"%s", mxd_counter_name(c));
	s->counters = (uint64_t *)(void *)((char *)h + values_offset());
	memset(s->counters, 0, MXD_C_MAX * sizeof(uint64_t));
	__atomic_store_n(&h->magic, MX_DPDK_STATS_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

void
mxd_stats_close(struct mxd_stats *s)
{
	if (s->seg == NULL)
		return;
	if (s->path[0] != '\0') {
		munmap(s->seg, s->len);
		shm_unlink(s->path);
		own_del(s->path);
	} else {
		free(s->seg);
	}
	s->seg = NULL;
	s->counters = NULL;
}

const char *
mxd_counter_name(unsigned c)
{
	static const char *const s[MXD_C_DROP_BASE] = {
		[MXD_C_TX_FRAMES] = "tx frames",
		[MXD_C_RX_FRAMES] = "rx frames",
		[MXD_C_TX_MSGS] = "tx messages",
		[MXD_C_RX_MSGS] = "rx messages",
		[MXD_C_LOOP_FRAMES] = "loopback frames",
		[MXD_C_ACKS_SENT] = "explicit acks sent",
		[MXD_C_ACKS_PIGGY] = "acks piggybacked",
		[MXD_C_UNEXP_MSGS] = "unexpected messages",
		[MXD_C_EARLY_MSGS] = "early messages (out of order)",
		[MXD_C_TX_STALLS] = "tx ring full",
		[MXD_C_BAD_ACK] = "bad acks",
		[MXD_C_CONN_REQ] = "connect requests sent",
		[MXD_C_DISCOVERY] = "discovery frames sent",
		[MXD_C_NACK_SENT] = "refusals (nack) sent",
		[MXD_C_NACK_RCVD] = "refusals (nack) received",
		[MXD_C_NOTICE_LOST] = "notices lost (out of memory)",
		[MXD_C_NOTICE_GROW] = "notice queue grown",
		[MXD_C_UNEXP_FULL] = "held: unexpected queue full",
		[MXD_C_BAD_PULL] = "refused pull frames",
		[MXD_C_PULL_BUSY] = "pulls refused: queue full",
		[MXD_C_PULL_GONE] = "pulls for a send that ended (gone)",
		[MXD_C_PULLS_ABORTED] = "large receives aborted by sender",
		[MXD_C_RETX_MSGS] = "messages retransmitted",
		[MXD_C_RETX_FRAMES] = "frames retransmitted",
		[MXD_C_REPULLS] = "pulls asked again",
		[MXD_C_PINGS] = "liveness probes sent",
		[MXD_C_PEER_DEAD] = "partners unreachable",
		[MXD_C_PEER_RESET] = "partners restarted",
		[MXD_C_PORT_SUSPECT] = "ports suspected (losses)",
		[MXD_C_BURSTS_CUT] = "bursts cut short (peer memory gone)",
		[MXD_C_SENDS_LOST] = "completed sends refused or lost",
		[MXD_C_SACKS_SENT] = "selective acks sent (holes)",
		[MXD_C_FAST_RETX] = "messages retransmitted at a SACK",
		[MXD_C_FAST_REPULLS] = "blocks asked again at their last frame",
		[MXD_C_CPU_SHARED] = "waits sharing their CPU",
		[MXD_C_CPU_YIELDS] = "CPU yields in waits",
		[MXD_C_TX_PACKED] = "msgs packed",
		[MXD_C_TX_PACKS] = "packed frames sent",
		[MXD_C_RX_PACKED] = "packed msgs received",
		[MXD_C_FRAG_ACKS] = "acks naming fragments held",
		[MXD_C_RETX_SPARED] = "fragments spared a retransmission",
		[MXD_C_PARTNER_REUSED] = "partners reused (table full)",
		[MXD_C_PULLS_DEFERRED] = "large receives waiting for a pull slot",
		[MXD_C_BUFS_IN_USE] = "frame buffers in use",
		[MXD_C_SHM_TX] = "msgs sent through host rings",
		[MXD_C_SHM_RX] = "msgs received through host rings",
		[MXD_C_SHM_FULL] = "sends waiting for host ring room",
		[MXD_C_SHM_HELD] = "host ring records held (unexp queue full)",
		[MXD_C_SHM_READS] = "large msgs read from another process",
		[MXD_C_SHM_COPIED] = "large msgs copied through host rings",
		[MXD_C_SHM_HALVES] = "large msg halves written into their reader",
		[MXD_C_SHM_PEER_DEAD] = "processes of the host found gone",
	};

	if (c < MXD_C_DROP_BASE)
		return s[c];
	if (c < MXD_C_MAX)
		return mxd_drop_name((enum mxd_drop)(c - MXD_C_DROP_BASE));
	return "?";
}
