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
 * faulted in costs as much as a fresh one), so left to traffic the first
 * lap of the ring loses tens of milliseconds: the first 1000 round trips
 * of a ping-pong take 20 us instead of 2, and a 200-message stream of
 * 1 MiB runs well below a long one's rate.  A run's first lap must be as
 * fast as the laps after it, so these pages are faulted in before traffic
 * needs them.  Users: memif.c (memif's regions when a link comes up),
 * setup.c (mbuf pools at creation) and lib/ (the engine's rings and
 * pools when they are made).
 *
 * MADV_POPULATE_WRITE (Linux 5.14) fills the page tables of a whole range
 * in one call, at 0.3-3 us per page, without changing a byte.  That is
 * not all on this VM: its hypervisor (PVM) shadows the guest's page
 * tables, and the first access to a page after the guest mapped it still
 * costs 4-10 us (measured: a populated memfd page, 4-10 us at the first
 * touch, 0.01-0.05 at the second).  Hence every page is also touched
 * once, with a write that changes nothing (touch_pages); after both, the
 * first lap runs as fast as the next ones.  Where the kernel lacks
 * MADV_POPULATE_WRITE the touch alone faults each page in.
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

/*
 * One write per page of [a, end) that changes nothing: an atomic add of 0
 * to the page's first aligned word inside the range (never outside it: a
 * heap block's neighbours are not ours), safe while another process or
 * thread writes there too.
 */
static void
touch_pages(uintptr_t a, uintptr_t end, size_t pg)
{
	for (uintptr_t p = (a + 7) & ~(uintptr_t)7; p + 8 <= end;
			p = (p & ~(uintptr_t)(pg - 1)) + pg)
		__atomic_fetch_add((uint64_t *)p, 0, __ATOMIC_RELAXED);
}

long
mxd_glue_prefault(void *addr, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)addr & ~(pg - 1);
	uintptr_t hi = ((uintptr_t)addr + len + pg - 1) & ~(pg - 1);

	if (len == 0)
		return 0;
	if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0 &&
			errno != EINVAL)
		return -1;	/* not (all) mapped, or read-only */
	touch_pages((uintptr_t)addr, (uintptr_t)addr + len, pg);
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

unsigned
mxd_glue_memif_regions(uintptr_t *lo, uintptr_t *hi, unsigned max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned n = 0;

	if (f == NULL)
		return 0;
	while (n < max && fgets(line, sizeof(line), f) != NULL)
		n += memif_region_line(line, &lo[n], &hi[n]);
	fclose(f);
	return n;
}

long
mxd_glue_prefault_memif(void)
{
	uintptr_t lo[MXD_GLUE_MEMIF_REGIONS], hi[MXD_GLUE_MEMIF_REGIONS];
	unsigned n = mxd_glue_memif_regions(lo, hi, MXD_GLUE_MEMIF_REGIONS);
	long pages = 0, got;

	for (unsigned i = 0; i < n; i++)
		if ((got = mxd_glue_prefault((void *)lo[i], hi[i] - lo[i])) > 0)
			pages += got;
	return pages;
}
