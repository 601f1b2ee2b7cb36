/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fake links for tests: pairs of in-memory ports implementing the link
 * interface, so the whole engine runs without DPDK and deterministically.
 * A frame sent on one end appears in the other end's rx ring; a full ring
 * refuses frames (back-pressure), like a memif ring.
 */
#ifndef FAKE_LINK_H
#define FAKE_LINK_H

#include "link.h"

#define FAKE_RING	1024
#define FAKE_ROOM	2048

struct fake_port {
	struct mxd_link link;
	struct fake_port *peer;
	uint32_t head, tail;
	void *ring[FAKE_RING];
	int up;
	int reverse;		/* rx: reverse what is pending at each poll */
	int lose;		/* tx: takes every frame and loses it */
	/* rx: frames longer are dropped and counted in link.too_long, as
	 * the DPDK glue drops a frame that does not fit one buffer (0: no
	 * limit below FAKE_ROOM) */
	uint32_t rx_max;
	/* tx: looks at each frame sent: FAKE_PASS, FAKE_DROP, or FAKE_HOLD
	 * (kept until fake_release delivers it, after what followed) */
	int (*tap)(const uint8_t *frame, uint32_t len);
	void *held[FAKE_RING];
	uint32_t nheld;
	unsigned long tx_frames;
};

enum { FAKE_PASS, FAKE_DROP, FAKE_HOLD };

/* Connects a and b as the two ends of one wire; mac_last tells them apart. */
void fake_pair(struct fake_port *a, struct fake_port *b, uint8_t mac_a,
		uint8_t mac_b, uint32_t mtu);

/* Buffers still allocated (0 after everything is released). */
long fake_live_buffers(void);
/* The heap the link's buffers took: kept for reuse, as a mempool. */
size_t fake_pool_bytes(void);

/* Delivers the frames p's tap held, in the order they were sent. */
void fake_release(struct fake_port *p);
/* The same for the first n of them at most (a slow link). */
void fake_release_n(struct fake_port *p, uint32_t n);
/* Frees frames still waiting in a port's rx ring (and those it held). */
void fake_drain(struct fake_port *p);
/* Puts raw bytes in p's rx ring, as if they came from the wire. */
void fake_inject(struct fake_port *p, const uint8_t *bytes, uint32_t len);
#endif
