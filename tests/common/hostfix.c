/* SPDX-License-Identifier: BSD-3-Clause */
/* The host segment of tests: see hostfix.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "api/init.h"
#include "util/config.h"
#include "progress/progress.h"
#include "fake_link.h"
#include "hostfix.h"
#include "hostseg.h"

struct hostfix hfx = { NULL, 0, -1 };

int
hostfix_create(unsigned nslots, uint32_t ring_bytes)
{
	size_t off, len = mxd_host_size(nslots, ring_bytes, &off);
	struct mxd_host *h;
	int fd = memfd_create("mxd-test-host", 0);

	if (fd < 0 || ftruncate(fd, (off_t)len) < 0)
		return -1;
	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		close(fd);
		return -1;
	}
	hostseg_fill(h, nslots, ring_bytes, off, len, HOSTFIX_NIC,
			"shmhost:0");
	hfx.h = h;
	hfx.len = len;
	hfx.fd = fd;
	return 0;
}

void
hostfix_destroy(void)
{
	if (hfx.h != NULL)
		munmap(hfx.h, hfx.len);
	if (hfx.fd >= 0)
		close(hfx.fd);
	hfx.h = NULL;
	hfx.fd = -1;
}

int
hostfix_join(unsigned slot, int progression)
{
	static struct fake_port a, b;
	struct mxd_link *l = &a.link;
	char env[96];

	snprintf(env, sizeof(env), "/proc/self/fd/%d:%u", hfx.fd, slot);
	setenv("MX_HOST_SEGMENT", env, 1);
	setenv("MX_HOSTNAME", "shmhost", 1);
	setenv("MX_DISCOVERY_MS", "100", 1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mxd_config_load(&mxd_conf) < 0)
		return -1;
	fake_pair(&a, &b, (uint8_t)(0x10 + slot), 0xee, 1500);
	if (mxd_init_links(&l, 1) < 0)
		return -1;
	if (progression && mxd_progress_thread_start() < 0)
		return -1;
	return 0;
}

static uint64_t
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void
hostfix_dead(unsigned slot)
{
	struct mxd_host *h = hfx.h;

	for (unsigned i = 0; i < MXD_HOST_ENDPOINTS; i++) {
		uint32_t want = slot;

		__atomic_compare_exchange_n(&h->ep_slot[i], &want,
				MXD_HOST_NO_SLOT, 0, __ATOMIC_ACQ_REL,
				__ATOMIC_ACQUIRE);
	}
	__atomic_store_n(&h->slot[slot].state, MXD_HOST_SLOT_DEAD,
			__ATOMIC_RELEASE);
}

int
hostfix_reap(unsigned slot, uint32_t ms)
{
	struct mxd_host *h = hfx.h;
	uint32_t e = __atomic_load_n(&h->slot[slot].epoch, __ATOMIC_ACQUIRE);
	uint64_t end = now_ms() + ms;

	hostfix_dead(slot);
	while (!mxd_hring_let_go(h, slot, e)) {
		if (now_ms() >= end)
			return -1;
		usleep(1000);
	}
	h->slot[slot].pid = 0;
	__atomic_store_n(&h->slot[slot].state, MXD_HOST_SLOT_FREE,
			__ATOMIC_RELEASE);
	return 0;
}
