/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file mx_extensions.h
 * Calls beyond MX 1.0: for now the mx-dpdk introspection used by mx_info.
 * (MX 1.2's own extensions will be declared here as they are implemented.)
 */
#ifndef MX_EXTENSIONS_H
#define MX_EXTENSIONS_H

#include "myriexpress.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One effective setting of the library (an MX_* environment variable). */
typedef struct {
	const char *name;	/**< variable name */
	const char *value;	/**< value in force, as text */
	const char *help;	/**< what it does */
} mx_dpdk_setting_t;

/**
 * Returns setting number 'index' (from 0) in *setting; the strings stay
 * valid until mx_finalize().  Works before mx_init() too (then it shows
 * what mx_init() would use).
 * @return MX_SUCCESS, or MX_BAD_INFO_VAL past the last setting.
 */
mx_return_t mx_dpdk_get_setting(uint32_t index, mx_dpdk_setting_t *setting);

/** One DPDK port of a board. */
typedef struct {
	char name[64];		/**< DPDK device name */
	char driver[32];	/**< PMD name */
	uint8_t mac[6];
	uint32_t mtu;
	uint32_t link_up;	/**< 1 if the link is up */
	uint32_t speed_mbps;	/**< 0 if unknown */
	int32_t numa_node;	/**< -1 if unknown */
} mx_dpdk_port_t;

/**
 * Describes port 'port' of board 'board' (see MX_PORT_COUNT).
 * @return MX_SUCCESS, MX_BOARD_UNKNOWN, MX_BAD_INFO_VAL.
 */
mx_return_t mx_dpdk_get_port(uint32_t board, uint32_t port,
		mx_dpdk_port_t *info);

#ifdef __cplusplus
}
#endif

#endif /* MX_EXTENSIONS_H */
