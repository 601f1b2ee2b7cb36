/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port of a shared board, as the processes of its host see it.
 *
 * A shared board's ports belong to one process, the board service
 * (service/): it alone initialises DPDK, brings the ports up and runs
 * memif's control (its socket, the connection, the shared region).  The
 * other processes of the host that open endpoints on the board are not
 * DPDK processes: each drives its own queues of each port straight in
 * memif's shared memory (shlink.c), with the ring code of mring.h, the
 * region mapped from a file descriptor the service hands it.
 *
 * Steering is the queue matrix: a board of S slots (slot 0 the service's,
 * slots 1 to S-1 one process each) configures S * S queue pairs; the tx
 * queue a * S + b of the process in slot a carries its frames to slot b
 * of the peer board, whose rx queue a * S + b only slot b reads.  So each
 * ring has one producer and one consumer, and nothing is locked.  A frame
 * for a slot not known yet (a name query, a connect request) goes to
 * slot 0; the peer's service hands it to the process that holds its
 * endpoint through that process's forward ring (struct mxd_fwd, below).
 *
 * This header places what the service writes and the processes read; it
 * includes no DPDK header.  The host segment (lib/board/host.h) holds one
 * struct mxd_shport per port and the forward rings.  Fields another
 * process writes are read with atomic loads.
 */
#ifndef MXD_SHPORT_H
#define MXD_SHPORT_H

#include <stdint.h>

#define MXD_SHPORT_UP		1u	/* state: the link is up */
#define MXD_SHPORT_FWD		32u	/* frames of a forward ring, 2^n */
#define MXD_SHPORT_SLOTS	15u	/* memif's 255 queue pairs: 15 * 15 */

struct mxd_shport {
	uint32_t state;		/* MXD_SHPORT_UP or 0 (service: atomic) */
	uint32_t gen;		/* raised at each link-up: a new region */
	uint32_t nslots;	/* S: the queue matrix is S * S */
	uint32_t log2_ring;	/* descriptors per ring, log2 (rsize) */
	uint32_t bsize;		/* bytes of one memif buffer */
	uint32_t server;	/* the service is memif's server */
	uint64_t region_len;	/* bytes of the region (this gen) */
	uint32_t mtu;		/* bytes after the Ethernet header */
	uint32_t room;		/* the largest frame a buffer holds */
	uint8_t mac[6];		/* the port's */
	uint8_t pad[2];
	uint32_t fwd_frame;	/* bytes of a forward ring's entry */
	uint64_t fwd_off;	/* from the segment's start: this port's
				 * forward rings, one per slot */
	uint32_t fwd_bytes;	/* bytes of one forward ring */
	uint32_t pad2;
	char name[48];		/* the DPDK device, e.g. net_memif0 */
	char driver[32];
} __attribute__((aligned(64)));

/*
 * A forward ring: the frames the service hands one slot's process (a
 * connect request that came to slot 0, an answer for a slot the sender
 * did not know).  The service writes an entry, then head (release); the
 * process reads up to head, then tail.  Entries: a 4-byte length, 4 of
 * padding, the frame.  When a process dies the service, its only other
 * writer, sets tail to head before the slot is given out again.
 */
struct mxd_fwd {
	uint32_t head __attribute__((aligned(64)));
	uint32_t tail __attribute__((aligned(64)));
	uint8_t entries[] __attribute__((aligned(64)));
};

#define MXD_FWD_HDR	8u	/* an entry's length word and padding */

static inline uint8_t *
mxd_fwd_entry(struct mxd_fwd *r, uint32_t frame, uint32_t i)
{
	return r->entries + (size_t)(i & (MXD_SHPORT_FWD - 1)) * frame;
}

/* Bytes a forward ring of entries of 'frame' bytes takes. */
static inline uint32_t
mxd_fwd_bytes(uint32_t frame)
{
	return (uint32_t)sizeof(struct mxd_fwd) + MXD_SHPORT_FWD * frame;
}

#endif /* MXD_SHPORT_H */
