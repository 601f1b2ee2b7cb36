/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Settings (a leaf).  MX programs take no extra arguments, so every
 * setting is an MX_* environment variable, read once by mx_init() into
 * mxd_conf; config.c holds the one table of names, defaults and help
 * texts that mx-dpdk(7) documents and mx_info prints.
 */
#ifndef MXD_CONFIG_H
#define MXD_CONFIG_H

#include <stdint.h>

#include "myriexpress.h"

struct mxd_config {
	const char *dpdk_args;		/* MX_DPDK_ARGS */
	char hostname[MX_MAX_HOSTNAME_LEN];	/* MX_HOSTNAME */
	int hostname_set;		/* MX_HOSTNAME given */
	const char *boards;		/* MX_BOARDS */
	const char *peers_file;		/* MX_PEERS_FILE */
	const char *faults;		/* MX_FAULTS (tests) */
	const char *host_segment;	/* MX_HOST_SEGMENT (tests) */
	uint32_t eager_max;		/* MX_RNDV_THRESHOLD */
	uint32_t mtu;			/* MX_MTU, 0: the port's */
	uint32_t unexp_max;		/* MX_UNEXP_QUEUE_MAX, bytes */
	uint32_t max_partners;		/* MX_MAX_PARTNERS, per endpoint */
	uint32_t spin_us;		/* MX_SPIN_US */
	uint32_t discovery_ms;		/* MX_DISCOVERY_MS */
	uint32_t link_wait_ms;		/* MX_LINK_WAIT_MS */
	uint32_t ack_delay_us;		/* MX_ACK_DELAY_US */
	uint32_t pack_after;		/* MX_PACK_AFTER */
	uint32_t connect_retry_ms;	/* MX_CONNECT_RETRY_MS */
	uint32_t nb_mbufs;		/* MX_MBUFS */
	uint32_t close_linger_ms;	/* MX_CLOSE_LINGER_MS */
	uint32_t progression;		/* MX_PROGRESSION */
	uint32_t progression_us;	/* MX_PROGRESSION_US */
	uint32_t progress_thread;	/* MX_PROGRESS_THREAD */
	uint32_t progress_us;		/* MX_PROGRESS_US */
	uint32_t rto_min_us;		/* MX_RTO_MIN_US */
	uint32_t rto_max_ms;		/* MX_RTO_MAX_MS */
	uint32_t peer_timeout_ms;	/* MX_PEER_TIMEOUT_MS */
	uint32_t verbose;		/* MX_VERBOSE */
	uint32_t keep_mac;		/* MX_KEEP_MAC */
	uint32_t board_shared;		/* MX_BOARD_SHARED */
	uint32_t board_slots;		/* MX_BOARD_SLOTS (the service) */
	uint32_t board_spin_us;		/* MX_BOARD_SPIN_US (the service) */
	uint32_t shm_copy;		/* MX_SHM_COPY */
};

/* The settings in force (loaded by mx_init). */
extern struct mxd_config mxd_conf;

/* One row per setting: name, value as text, what it does. */
struct mxd_setting {
	const char *name;
	char value[160];
	const char *help;
};

/* Reads the environment into c; 0 or -MX_BAD_PARAM_VAL (reported). */
int mxd_config_load(struct mxd_config *c);
/*
 * Checks MX_BOARDS (spec, NULL for the default of a board per port)
 * against nlinks ports and fills board_of_port[nlinks] (-1: in no
 * board) and pos[nlinks] (the port's place in its board); 0, or -1 after
 * a message naming the setting and what it takes.
 */
#define MXD_BOARDS_MAX		8	/* board.h: MXD_MAX_BOARDS */
#define MXD_BOARD_PORTS_MAX	8	/* board.h: MXD_BOARD_PORTS */
int mxd_config_boards(const char *spec, unsigned nlinks, int *board_of_port,
		int *pos);

/* Fills up to max rows describing c; returns the number of rows. */
unsigned mxd_config_describe(const struct mxd_config *c,
		struct mxd_setting *rows, unsigned max);

#endif /* MXD_CONFIG_H */
