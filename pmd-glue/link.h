/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The narrow link interface: how the engine sees a network port.
 *
 * A link moves Ethernet frames in bursts and reports its state; it knows
 * nothing of MX.  The engine holds frames as struct mxd_frame (an opaque
 * buffer handle plus a data pointer and length), so the DPDK
 * implementation (port.c, memif.c) and the fake links of the tests are
 * interchangeable.  This header includes no DPDK header.
 *
 * Two implementations of a link drive a port: a DPDK port (port.c,
 * memif.c) owned by this process, and a shared board's port, driven by
 * the processes of its host in memif's memory (shlink.c, shport.h).
 *
 * Buffer ownership: alloc() and rx_burst() hand the caller one reference
 * per frame; tx_burst() consumes one reference of every frame it accepted
 * (frames it did not accept stay the caller's); ref() adds a reference,
 * e.g. to keep a frame for retransmission; free() drops one.
 */
#ifndef MXD_LINK_H
#define MXD_LINK_H

#include <stdint.h>

struct mxd_frame {
	void *h;		/* opaque buffer handle (rte_mbuf) */
	uint8_t *data;		/* first byte of the Ethernet header */
	uint32_t len;		/* frame length; after alloc(): room */
	/* Transmit: the slot of the peer board the frame goes to, which a
	 * shared board's link steers by (shlink.c: its queue of the matrix);
	 * 0, the peer's board service, when not known.  Other links ignore
	 * it.  In the padding after len: a frame is 24 bytes either way. */
	uint16_t to;
};

struct mxd_link;

struct mxd_link_ops {
	/* Datapath: bursts. */
	uint16_t (*rx_burst)(struct mxd_link *l, struct mxd_frame *f,
			uint16_t n);
	uint16_t (*tx_burst)(struct mxd_link *l, struct mxd_frame *f,
			uint16_t n);
	/* All n or nothing: returns 0, or -1 when out of buffers. */
	int (*alloc)(struct mxd_link *l, struct mxd_frame *f, unsigned n);
	void (*ref)(struct mxd_frame *f, unsigned n);
	void (*free)(struct mxd_frame *f, unsigned n);
	/* Of n received frames, each the caller's one reference, makes
	 * as many as it can, from the first on, frames to fill and send as
	 * alloc() gives them (the buffer's room, 'to' 0), in place of a
	 * free() and an alloc(); returns how many.  The first it cannot
	 * (a buffer held elsewhere too, or another pool's) and those after
	 * it are left as they were.  NULL: none can. */
	unsigned (*recycle)(struct mxd_link *l, struct mxd_frame *f,
			unsigned n);
	/* Control path. */
	int (*link_up)(struct mxd_link *l);
	uint32_t (*speed_mbps)(struct mxd_link *l);
	/* Frames the port sent and received (0 if it cannot tell). */
	void (*stats)(struct mxd_link *l, uint64_t *tx, uint64_t *rx);
	/* The link is down: bring it back if it will not come back by
	 * itself (a memif client whose server went away restarts its port,
	 * which connects again).  Returns 1 if it tried.  NULL: the link
	 * recovers on its own. */
	int (*revive)(struct mxd_link *l);
	/* Rx interrupts, for a thread that sleeps until frames come
	 * (mxd_glue_intr_wait): arm enables the port's and registers it with
	 * the calling thread (0), or says the PMD has none (-1); disarm
	 * disables it.  NULL: no rx interrupts. */
	int (*intr_arm)(struct mxd_link *l);
	void (*intr_disarm)(struct mxd_link *l);
	/* Buffers of the link's pool held anywhere (the engine, the PMD's
	 * rings, frames in flight), for the counters: a number that grows
	 * while the link is quiet is a leak.  Control path.  NULL: it
	 * cannot tell. */
	uint32_t (*in_use)(struct mxd_link *l);
};

struct mxd_link {
	const struct mxd_link_ops *ops;
	uint8_t mac[6];
	uint16_t port_id;	/* DPDK port id (or test index) */
	uint32_t mtu;		/* bytes after the Ethernet header */
	uint32_t room;		/* largest frame one buffer holds */
	int numa_node;		/* -1 when unknown */
	char name[64];		/* device name, e.g. net_memif0 */
	char driver[32];
	/* Bursts cut short because the port's memory vanished under the
	 * PMD (a memif peer that went away); their frames were lost. */
	uint64_t cut;
	/* Frames longer than one receive buffer (a peer with a larger
	 * MTU): the PMD chained buffers for them, which the engine cannot
	 * read; they were dropped here. */
	uint64_t too_long;
	/* Bumped with either of the two above: one compare tells whether
	 * anything of them changed since the last look. */
	uint64_t news;
	void *priv;
	/* Start-up (control path, pmd-glue/setup.c): */
	uint8_t started;	/* the PMD started the port */
	uint8_t waits;		/* its link should come up by itself (all
				 * but a memif server, which waits for its
				 * client) */
	uint8_t mac_assigned;	/* mac is ours: the PMD's was a default
				 * that every instance shares */
	uint8_t pmd_mac[6];	/* the MAC the PMD reported */
	uint64_t started_ms;	/* when the port was last (re)started */
	char down_hint[176];	/* what to check when the link stays down */
};

#endif /* MXD_LINK_H */
