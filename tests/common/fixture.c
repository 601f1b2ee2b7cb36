/* SPDX-License-Identifier: BSD-3-Clause */
/* The two-board fixture: see fixture.h. */
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"

struct fixture fx;

static int
open_mtu(uint32_t mtu0, uint32_t mtu1)
{
	struct mxd_link *links[2] = { &fx.pa.link, &fx.pb.link };

	setenv("MX_HOSTNAME", "unit", 1);
	setenv("MX_DISCOVERY_MS", "100", 1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mxd_config_load(&mxd_conf) < 0)
		return -1;
	fake_pair(&fx.pa, &fx.pb, 1, 2, mtu0);
	if (mtu1 != mtu0) {
		fx.pb.link.mtu = mtu1;
		fx.pa.rx_max = mtu0 + MXD_ETH_HLEN;
		fx.pb.rx_max = mtu1 + MXD_ETH_HLEN;
	}
	if (mxd_init_links(links, 2) < 0 ||
			mx_open_endpoint(0, 1, 0xf00d, NULL, 0, &fx.e0) ||
			mx_open_endpoint(1, 2, 0xbeef, NULL, 0, &fx.e1))
		return -1;
	mx_board_number_to_nic_id(0, &fx.nic0);
	mx_board_number_to_nic_id(1, &fx.nic1);
	return 0;
}

int
fixture_open(void **state)
{
	(void)state;
	return open_mtu(1500, 1500);
}

static int
connect_both(void)
{
	if (mx_connect(fx.e0, fx.nic1, 2, 0xbeef, 1000, &fx.to1) ||
			mx_connect(fx.e1, fx.nic0, 1, 0xf00d, 1000, &fx.to0))
		return -1;
	return 0;
}

int
fixture_setup(void **state)
{
	(void)state;
	return open_mtu(1500, 1500) < 0 ? -1 : connect_both();
}

int
fixture_setup_mtu(uint32_t mtu0, uint32_t mtu1)
{
	return open_mtu(mtu0, mtu1) < 0 ? -1 : connect_both();
}

int
fixture_teardown(void **state)
{
	(void)state;
	mx_finalize();
	fake_drain(&fx.pa);
	fake_drain(&fx.pb);
	if (fake_live_buffers() != 0) {
		fprintf(stderr, "%ld frame buffers leaked\n",
				fake_live_buffers());
		return -1;
	}
	return 0;
}
