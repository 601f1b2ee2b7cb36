/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Board names and NIC ids (partners layer): "<host>:<board>" <-> the MAC
 * of the board's first port, learnt from our own boards, the peers file
 * and DISCOVER frames.  Nothing here waits: a lookup that needs the wire
 * asks (mxd_naming_query) and the API layer waits for the answer.
 */
#ifndef MXD_NAMING_H
#define MXD_NAMING_H

#include <stdint.h>

#include "wire.h"
#include "board/board.h"

#define MXD_MAX_PEERS		256

struct mxd_peer {
	uint64_t nic_id;
	char name[MX_MAX_HOSTNAME_LEN];
	uint32_t seen;			/* bit per global link */
	uint8_t mac[MXD_GLUE_MAX_PORTS][MXD_ETH_ALEN];
};

void mxd_naming_init(void);
/* Records a board: its name (may be NULL), and if link >= 0 the MAC by
 * which it is reached on that link. */
void mxd_naming_add(uint64_t nic_id, const char *name, int link,
		const uint8_t mac[MXD_ETH_ALEN]);
int mxd_naming_load_file(const char *path);
const struct mxd_peer *mxd_naming_by_nic(uint64_t nic_id);
const struct mxd_peer *mxd_naming_by_name(const char *name);
unsigned mxd_naming_count(void);
const struct mxd_peer *mxd_naming_get(unsigned i);
/* Announces board b on its ports, asking for 'want' if not NULL. */
void mxd_naming_announce(struct mxd_board *b, const char *want);
/* Asks every board's ports for 'name' (answers arrive as DISCOVER). */
void mxd_naming_query(const char *name);
/* A DISCOVER frame received on b's port. */
void mxd_naming_rx(struct mxd_board *b, unsigned port,
		const struct mxd_pkt *pkt);

#endif /* MXD_NAMING_H */
