/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_counters: the counters of every mx-dpdk board on this host.
 *
 *   mx_counters [-a] [-r] [-c] [name]
 *
 * Each process using the library publishes its boards' counters in
 * /dev/shm/mx-dpdk.<pid>.<board> (layout: mx_dpdk_stats_t in
 * mx_extensions.h).  Shows non-zero counters (-a: all) of the boards whose
 * name contains 'name'; -r resets them after showing; -c removes the
 * segments of processes that no longer exist.
 */
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

struct opts {
	int all, reset, clean;
	const char *name;
};

static size_t
values_offset(uint32_t count)
{
	size_t off = sizeof(mx_dpdk_stats_t) +
		(size_t)count * MX_DPDK_STATS_LABEL;

	return (off + 7) & ~(size_t)7;
}

static int
valid(const mx_dpdk_stats_t *h, size_t len)
{
	return len >= sizeof(*h) && h->magic == MX_DPDK_STATS_MAGIC &&
		h->version == MX_DPDK_STATS_VERSION && h->count < 4096 &&
		values_offset(h->count) + h->count * sizeof(uint64_t) <= len;
}

static void
show(mx_dpdk_stats_t *h, const struct opts *o)
{
	const char *label = (const char *)(h + 1);
	uint64_t *v = (uint64_t *)(void *)((char *)h + values_offset(h->count));

	printf("%s (NIC id %012llx, process %u)\n", h->board_name,
			(unsigned long long)h->nic_id, h->pid);
	for (uint32_t c = 0; c < h->count; c++)
		if (o->all || v[c] != 0)
			printf("  %-40.*s %llu\n", MX_DPDK_STATS_LABEL,
					label + c * MX_DPDK_STATS_LABEL,
					(unsigned long long)v[c]);
	if (o->reset) {
		memset(v, 0, h->count * sizeof(uint64_t));
		printf("  (reset)\n");
	}
}

/* Returns 1 if a board was shown. */
static int
one_segment(const char *file, const struct opts *o)
{
	char path[300];
	struct stat st;
	mx_dpdk_stats_t *h;
	int fd, shown = 0;

	snprintf(path, sizeof(path), "/%s", file);
	fd = shm_open(path, o->reset ? O_RDWR : O_RDONLY, 0);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	h = mmap(NULL, (size_t)st.st_size, PROT_READ | (o->reset ?
				PROT_WRITE : 0), MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return 0;
	if (valid(h, (size_t)st.st_size)) {
		int alive = kill((pid_t)h->pid, 0) == 0 || errno == EPERM;

		if (!alive && o->clean) {
			printf("removing %s: process %u is gone\n", file, h->pid);
			shm_unlink(path);
		} else if (alive && (o->name == NULL ||
					strstr(h->board_name, o->name))) {
			show(h, o);
			shown = 1;
		}
	}
	munmap(h, (size_t)st.st_size);
	return shown;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0, 0, 0, NULL };
	struct dirent *d;
	DIR *dir;
	int c, shown = 0;

	while ((c = getopt(argc, argv, "arch")) != -1) {
		switch (c) {
		case 'a': o.all = 1; break;
		case 'r': o.reset = 1; break;
		case 'c': o.clean = 1; break;
		default:
			fprintf(stderr, "usage: mx_counters [-a] [-r] [-c] [name]\n");
			return 2;
		}
	}
	if (optind < argc)
		o.name = argv[optind];
	dir = opendir("/dev/shm");
	if (dir == NULL) {
		perror("mx_counters: /dev/shm");
		return 1;
	}
	while ((d = readdir(dir)) != NULL)
		if (!strncmp(d->d_name, "mx-dpdk.", 8))
			shown += one_segment(d->d_name, &o);
	closedir(dir);
	if (!shown)
		printf("mx_counters: no mx-dpdk board in use on this host\n");
	return 0;
}
