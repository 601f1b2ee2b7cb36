/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Board counters live in a shared-memory segment so that mx_counters, a
 * separate process, can read and reset them (MX's counters were the
 * NIC's; ours are the library's, in the application's process).  The
 * layout is mx_dpdk_stats_t of mx_extensions.h: a header, the labels,
 * then the values.  Counting is a plain increment into that memory, as
 * before.  If the segment cannot be created the counters stay private.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mxd.h"

static size_t
values_offset(void)
{
	size_t off = sizeof(mx_dpdk_stats_t) +
		(size_t)MXD_C_MAX * MX_DPDK_STATS_LABEL;

	return (off + 7) & ~(size_t)7;
}

static void *
stats_map(struct mxd_board *b, size_t len)
{
	void *m;
	int fd;

	snprintf(b->stats_path, sizeof(b->stats_path), "/mx-dpdk.%d.%u",
			(int)getpid(), b->index);
	fd = shm_open(b->stats_path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		goto private;
	if (ftruncate(fd, (off_t)len) != 0) {
		close(fd);
		shm_unlink(b->stats_path);
		goto private;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m != MAP_FAILED)
		return m;
	shm_unlink(b->stats_path);
private:
	b->stats_path[0] = '\0';
	return calloc(1, len);
}

int
mxd_stats_open(struct mxd_board *b)
{
	size_t len = values_offset() + MXD_C_MAX * sizeof(uint64_t);
	mx_dpdk_stats_t *h = stats_map(b, len);
	char *label;

	if (h == NULL)
		return -MX_NO_RESOURCES;
	b->stats = h;
	b->stats_len = len;
	h->version = MX_DPDK_STATS_VERSION;
	h->pid = (uint32_t)getpid();
	h->count = MXD_C_MAX;
	h->nic_id = b->nic_id;
	snprintf(h->board_name, sizeof(h->board_name), "%s", b->name);
	label = (char *)(h + 1);
	for (unsigned c = 0; c < MXD_C_MAX; c++)
		snprintf(label + c * MX_DPDK_STATS_LABEL, MX_DPDK_STATS_LABEL,
				"%s", mxd_counter_name(c));
	b->counters = (uint64_t *)(void *)((char *)h + values_offset());
	memset(b->counters, 0, MXD_C_MAX * sizeof(uint64_t));
	__atomic_store_n(&h->magic, MX_DPDK_STATS_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

void
mxd_stats_close(struct mxd_board *b)
{
	if (b->stats == NULL)
		return;
	if (b->stats_path[0] != '\0') {
		munmap(b->stats, b->stats_len);
		shm_unlink(b->stats_path);
	} else {
		free(b->stats);
	}
	b->stats = NULL;
	b->counters = NULL;
}
