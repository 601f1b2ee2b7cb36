/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_info: boards, ports, known peers and the settings in force.
 * Peers are those this process knows at start: its own boards, the peers
 * file (MX_PEERS_FILE), and boards whose announcements it has heard.
 * Uses the public API and the mx-dpdk extensions only.
 */
#include <stdio.h>
#include <stdlib.h>

#include <myriexpress.h>
#include <mx_extensions.h>

static void
print_settings(void)
{
	mx_dpdk_setting_t s;

	printf("Settings (environment):\n");
	for (uint32_t i = 0; mx_dpdk_get_setting(i, &s) == MX_SUCCESS; i++)
		printf("  %-20s %-24s %s\n", s.name, s.value, s.help);
}

static void
print_port(uint32_t b, uint32_t p)
{
	mx_dpdk_port_t pi;

	if (mx_dpdk_get_port(b, p, &pi) != MX_SUCCESS)
		return;
	printf("    port %u: %s (%s) mac %02x:%02x:%02x:%02x:%02x:%02x mtu %u "
			"link %s speed %u Mb/s numa %d frames tx %llu rx %llu\n",
			p, pi.name, pi.driver, pi.mac[0], pi.mac[1], pi.mac[2],
			pi.mac[3], pi.mac[4], pi.mac[5], pi.mtu,
			pi.link_up ? "up" : "down", pi.speed_mbps, pi.numa_node,
			(unsigned long long)pi.tx_frames,
			(unsigned long long)pi.rx_frames);
}

static void
print_board(uint32_t b)
{
	char name[MX_MAX_HOSTNAME_LEN] = "?";
	uint32_t ports = 0, pio = 0, eager = 0;
	uint64_t nic = 0;

	mx_board_number_to_nic_id(b, &nic);
	mx_nic_id_to_hostname(nic, name);
	mx_get_info(NULL, MX_PORT_COUNT, &b, sizeof(b), &ports, sizeof(ports));
	mx_get_info(NULL, MX_PIO_SEND_MAX, NULL, 0, &pio, sizeof(pio));
	mx_get_info(NULL, MX_COPY_SEND_MAX, NULL, 0, &eager, sizeof(eager));
	printf("Board %u: %s  NIC id %012llx  ports %u\n", b, name,
			(unsigned long long)nic, ports);
	printf("  one-frame message max %u bytes, eager max %u bytes\n", pio,
			eager);
	for (uint32_t p = 0; p < ports; p++)
		print_port(b, p);
}

static void
print_peers(void)
{
	char name[MX_MAX_HOSTNAME_LEN];
	uint64_t nic;

	printf("Known boards (own, peers file, discovery):\n");
	for (uint32_t i = 0; mx_dpdk_get_peer(i, &nic, name) == MX_SUCCESS; i++)
		printf("  %-24s %012llx\n", name[0] ? name : "(no name)",
				(unsigned long long)nic);
}

int
main(void)
{
	uint32_t n = 0;

	mx_set_error_handler(MX_ERRORS_RETURN);
	if (mx_init() != MX_SUCCESS) {
		print_settings();
		fprintf(stderr, "mx_info: mx_init failed\n");
		return 1;
	}
	mx_get_info(NULL, MX_NIC_COUNT, NULL, 0, &n, sizeof(n));
	printf("mx-dpdk: %u board(s), MX API 0x%x\n", n, MX_API);
	for (uint32_t b = 0; b < n; b++)
		print_board(b);
	print_peers();
	print_settings();
	mx_finalize();
	return 0;
}
