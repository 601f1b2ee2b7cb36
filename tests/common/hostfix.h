/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host segment for tests, made as the board service makes one
 * (lib/board/host.h), in a memfd: the processes a test forks after
 * hostfix_create share it, and each joins it as a slot of its own
 * through MX_HOST_SEGMENT (lib/api/init.c), over a fake port of its own
 * (no DPDK): several processes of one host sharing a board.  The test
 * process stands for the service (slot 0): after a process ends, it
 * gives the slot back (hostfix_reap).
 */
#ifndef HOSTFIX_H
#define HOSTFIX_H

#include <stdint.h>
#include <sys/types.h>

#include "board/hring.h"

struct hostfix {
	struct mxd_host *h;
	size_t len;
	int fd;
};

extern struct hostfix hfx;

#define HOSTFIX_NIC	0x02005ea00001ull	/* the shared board's NIC id */

/* The segment, nslots slots (slot 0 is the test's), rings of ring_bytes
 * per pair; 0 or -1. */
int hostfix_create(unsigned nslots, uint32_t ring_bytes);
void hostfix_destroy(void);
/* In a forked child: joins the segment as 'slot' and starts the library
 * on a fake port (MX_HOSTNAME shmhost), with the progression thread if
 * 'progression'.  0 or -1. */
int hostfix_join(unsigned slot, int progression);
/* The test as the board service, when the process of 'slot' is gone
 * (waited for): its endpoint ids released, the slot marked dead. */
void hostfix_dead(unsigned slot);
/* The test as the board service, once the process of 'slot' is gone
 * (waited for): its endpoint ids released, the slot marked dead, then
 * free again when every process that read its rings let them go (up to
 * ms).  0, or -1 if they did not in time. */
int hostfix_reap(unsigned slot, uint32_t ms);

#endif
