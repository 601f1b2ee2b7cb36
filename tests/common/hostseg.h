/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host segment's header filled as the board service fills it
 * (lib/board/host.h): for the test fixture (hostfix.c) and the
 * same-host benchmark's tool (tests/bench/shm_raw.c), which stand for
 * the service.  Slot 0, the service's, is live; the others free.
 */
#ifndef HOSTSEG_H
#define HOSTSEG_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "board/host.h"

static inline void
hostseg_fill(struct mxd_host *h, unsigned nslots, uint32_t ring_bytes,
		size_t ring_off, size_t len, uint64_t nic, const char *name)
{
	memset(h, 0, sizeof(*h));
	h->magic = MXD_HOST_MAGIC;
	h->version = MXD_HOST_VERSION;
	h->nslots = nslots;
	h->ring_bytes = ring_bytes;
	h->nic_id = nic;
	h->ring_off = ring_off;
	h->size = len;
	h->service_pid = getpid();
	h->service_epoch = 1;
	snprintf(h->board_name, sizeof(h->board_name), "%s", name);
	for (unsigned i = 0; i < MXD_HOST_ENDPOINTS; i++)
		h->ep_slot[i] = MXD_HOST_NO_SLOT;
	h->slot[0].state = MXD_HOST_SLOT_LIVE;
	h->slot[0].epoch = 1;
	h->slot[0].pid = getpid();
}

#endif
