/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prefaulting the memory of the datapath.
 *
 * Without hugepages (--no-huge, how virtual ports are used) DPDK's memory
 * and memif's shared regions are 4 KiB pages that the kernel maps in one
 * fault at a time, on first touch, in each process: memif's region (the
 * descriptor rings and 1024 buffers of 2 KiB per direction, about 4 MiB)
 * is created by the client and mapped by both sides when the link comes
 * up, and each side then takes a fault per page during the first 1024
 * frames each way -- about 1024 faults per process.  A fault costs 12-14
 * us on this kind of VM (measured; a page another process already
 * faulted in costs as much as a fresh one), so a run's first lap of the
 * ring lost tens of milliseconds: the first length of a ping-pong
 * averaged 4-5x the second, and a 200-message stream of 1 MiB ran at
 * two-thirds of a long one's rate (issue 19, item 5).
 *
 * MADV_POPULATE_WRITE (Linux 5.14) maps a whole range in one call, at
 * 0.3-2 us per page and without changing a byte, so it is safe on memory
 * the peer is already using.  Where the kernel lacks it, every page is
 * read once: enough for shared mappings (memif's regions, DPDK's memory
 * without hugepages), which a read maps writable; private memory then
 * still takes its write faults later.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "glue.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

long
mxd_glue_prefault(void *addr, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)addr & ~(pg - 1);
	uintptr_t hi = ((uintptr_t)addr + len + pg - 1) & ~(pg - 1);

	if (len == 0)
		return 0;
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0) {
		if (errno != EINVAL)
			return -1;	/* not (all) mapped, or read-only */
		for (uintptr_t p = lo; p < hi; p += pg)
			(void)*(volatile const char *)p;
	}
	return (long)((hi - lo) / pg);
}

/* Whether a /proc/self/maps line is a writable shared mapping of one of
 * memif's regions ("/memfd:memif_region_N", "(deleted)" once its file
 * is closed). */
static int
memif_region_line(const char *line, uintptr_t *lo, uintptr_t *hi)
{
	char perms[8];
	unsigned long a, b;

	if (strstr(line, "memif_region_") == NULL ||
			sscanf(line, "%lx-%lx %7s", &a, &b, perms) != 3)
		return 0;
	if (perms[1] != 'w' || perms[3] != 's')
		return 0;
	*lo = a;
	*hi = b;
	return 1;
}

long
mxd_glue_prefault_memif(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	long pages = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		uintptr_t lo, hi;
		long n;

		if (memif_region_line(line, &lo, &hi) &&
				(n = mxd_glue_prefault((void *)lo, hi - lo)) > 0)
			pages += n;
	}
	fclose(f);
	return pages;
}
