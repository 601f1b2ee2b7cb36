/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The boards in use on this host, as mx_counters and mx_info see them: each
 * process using the library publishes a counters segment per board,
 * /dev/shm/mx-dpdk.<pid>.<board>, laid out as mx_dpdk_stats_t
 * (mx_extensions.h).  This walks them, checking each before trusting it
 * (a segment is another process's memory: it may be half-written, of an
 * older layout, or left behind by a process that died).
 *
 * Static inline functions in a header so that each tool stays one source
 * file (tests/integration/pkgconfig.sh builds mx_info.c on its own).
 */
#ifndef MX_SEGMENTS_H
#define MX_SEGMENTS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <myriexpress.h>
#include <mx_extensions.h>

#define SEG_PREFIX "mx-dpdk."

struct seg {
	const char *file;	/* name under /dev/shm */
	unsigned board;		/* board number, from the name */
	mx_dpdk_stats_t *h;
	size_t len;
	int alive;		/* the owning process still exists */
	const char *label;	/* count labels of MX_DPDK_STATS_LABEL bytes */
	uint64_t *value;	/* count values */
};

/* Returns non-zero to stop the walk. */
typedef int (*seg_fn)(struct seg *s, void *arg);

static inline size_t
seg_values_offset(uint32_t count)
{
	size_t off = sizeof(mx_dpdk_stats_t) +
		(size_t)count * MX_DPDK_STATS_LABEL;

	return (off + 7) & ~(size_t)7;
}

static inline int
seg_valid(const mx_dpdk_stats_t *h, size_t len)
{
	return len >= sizeof(*h) && h->magic == MX_DPDK_STATS_MAGIC &&
		h->version == MX_DPDK_STATS_VERSION && h->count < 4096 &&
		seg_values_offset(h->count) + h->count * sizeof(uint64_t) <=
		len && memchr(h->board_name, 0, sizeof(h->board_name));
}

/* The command name of a process, for listings ("?" if unknown). */
static inline void
seg_command(uint32_t pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fgets(buf, (int)size, f) != NULL)
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Maps one segment (writable if asked) and hands it to fn. */
static inline int
seg_one(const char *file, int writable, seg_fn fn, void *arg)
{
	char path[300];
	struct seg s = { .file = file };
	struct stat st;
	unsigned pid;
	int fd, stop = 0;
	void *m;

	if (sscanf(file, SEG_PREFIX "%u.%u", &pid, &s.board) != 2)
		return 0;
	snprintf(path, sizeof(path), "/%s", file);
	fd = shm_open(path, writable ? O_RDWR : O_RDONLY, 0);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		close(fd);
		return 0;
	}
	s.len = (size_t)st.st_size;
	m = mmap(NULL, s.len, PROT_READ | (writable ? PROT_WRITE : 0),
			MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 0;
	s.h = m;
	if (seg_valid(s.h, s.len)) {
		s.alive = kill((pid_t)s.h->pid, 0) == 0 || errno == EPERM;
		s.label = (const char *)(s.h + 1);
		s.value = (uint64_t *)(void *)((char *)m +
				seg_values_offset(s.h->count));
		stop = fn(&s, arg);
	}
	munmap(m, s.len);
	return stop;
}

/* Calls fn for every valid segment; -1 if /dev/shm cannot be read. */
static inline int
seg_each(int writable, seg_fn fn, void *arg)
{
	struct dirent *d;
	DIR *dir = opendir("/dev/shm");

	if (dir == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL)
		if (!strncmp(d->d_name, SEG_PREFIX, strlen(SEG_PREFIX)) &&
				seg_one(d->d_name, writable, fn, arg))
			break;
	closedir(dir);
	return 0;
}

#endif /* MX_SEGMENTS_H */
