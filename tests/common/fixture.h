/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two boards in one process joined by a fake link pair, one endpoint on
 * each, connected both ways: the engine tests' common start.
 */
#ifndef FIXTURE_H
#define FIXTURE_H

#include <stdio.h>

#include "api/init.h"
#include "api/wait.h"
#include "util/lock.h"
#include "util/clock.h"
#include "util/config.h"
#include "partners/endpoint.h"
#include "progress/progress.h"
#include "partners/xmit.h"
#include "fake_link.h"

struct fixture {
	struct fake_port pa, pb;	/* board 0's port, board 1's port */
	mx_endpoint_t e0, e1;		/* board 0 ep 1, board 1 ep 2 */
	mx_endpoint_addr_t to1, to0;	/* e0 -> e1, e1 -> e0 */
	uint64_t nic0, nic1;
};

extern struct fixture fx;

/* cmocka setup and teardown; teardown fails if a frame buffer leaked. */
int fixture_setup(void **state);
/* The same setup without the connects. */
int fixture_open(void **state);
/* fixture_setup with MTUs of its own on each board's port; each port
 * drops frames longer than its MTU (fake_port.rx_max), as a port whose
 * buffers hold no more does. */
int fixture_setup_mtu(uint32_t mtu0, uint32_t mtu1);
int fixture_teardown(void **state);

#endif
