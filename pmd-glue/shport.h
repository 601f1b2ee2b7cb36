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
 * slots 1 to S-1 one process each) has S * S queues; the tx queue (a, b)
 * of the process in slot a carries its frames to slot b of the peer
 * board, whose rx queue (a, b) only slot b reads.  So each ring has one
 * producer and one consumer, and nothing is locked.  A memif interface
 * has at most 255 queue pairs, so the matrix is cut into lanes: each
 * port of the board is one memif interface per lane, lane k (memif id
 * id + k on the port's socket) carrying the rows of R = min(S, 255 / S)
 * slots, queue (a, b) at lane a / R, index (a % R) * S + b
 * (mxd_shport_at()).  Up to 15 slots the matrix is one lane, and queue
 * (a, b) is a * S + b; 33 slots (the service and 32 processes) take 5
 * lanes of 231 queue pairs.  A frame
 * for a slot not known yet (a name query, a connect request) goes to
 * slot 0; the peer's service hands it to the process that holds its
 * endpoint through that process's forward ring (struct mxd_fwd, below).
 *
 * A port whose queues no process can drive itself (a NIC, af_packet,
 * af_xdp: DPDK's ports outside memif) is switched instead
 * (MXD_SHPORT_SWITCHED): the service alone drives it, each frame it
 * receives goes to the forward ring of the slot that holds the frame's
 * endpoint, and each process writes its frames to its own up ring
 * (struct mxd_fwd too, the process its writer), which the service sends.
 * One hop through the service each way, and a service that polls while
 * a process holds a slot; still one writer and one reader per ring.
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
#define MXD_SHPORT_SWITCH_N	256u	/* of a switched port's rings, 2^n */
#define MXD_SHPORT_MATRIX	0u	/* mode: the processes drive memif */
#define MXD_SHPORT_SWITCHED	1u	/* mode: the service switches */
#define MXD_SHPORT_SLOTS	33u	/* the service and 32 processes */
#define MXD_SHPORT_QPAIRS	255u	/* memif's queue pairs per interface */
#define MXD_SHPORT_LANES	5u	/* memif interfaces per port, at most */

/* Rows of the queue matrix a lane carries, with S slots. */
static inline unsigned
mxd_shport_rows(unsigned S)
{
	return S * S <= MXD_SHPORT_QPAIRS ? S : MXD_SHPORT_QPAIRS / S;
}

/* Lanes (memif interfaces per port) of S slots. */
static inline unsigned
mxd_shport_lanes(unsigned S)
{
	unsigned R = mxd_shport_rows(S);

	return (S + R - 1) / R;
}

/* Queue pairs of each lane, with S slots. */
static inline unsigned
mxd_shport_lane_q(unsigned S)
{
	return mxd_shport_rows(S) * S;
}

/* Where queue (a, b) is: its lane, and its index there (returned). */
static inline unsigned
mxd_shport_at(unsigned S, unsigned a, unsigned b, unsigned *lane)
{
	unsigned R = mxd_shport_rows(S);

	*lane = a / R;
	return (a % R) * S + b;
}

struct mxd_shport {
	uint32_t state;		/* MXD_SHPORT_UP or 0 (service: atomic) */
	uint32_t gen;		/* raised at each link-up: new regions */
	uint32_t nslots;	/* S: the queue matrix is S * S */
	uint32_t log2_ring;	/* descriptors per ring, log2 (rsize) */
	uint32_t bsize;		/* bytes of one memif buffer */
	uint32_t server;	/* the service is memif's server */
	uint32_t nlanes;	/* memif interfaces (mxd_shport_lanes) */
	uint32_t lane_q;	/* queue pairs of each (mxd_shport_lane_q) */
	uint32_t mtu;		/* bytes after the Ethernet header */
	uint32_t room;		/* the largest frame a buffer holds */
	uint8_t mac[6];		/* the port's */
	uint8_t pad[2];
	uint32_t fwd_frame;	/* bytes of a forward ring's entry */
	uint64_t fwd_off;	/* from the segment's start: this port's
				 * forward rings, one per slot */
	uint32_t fwd_bytes;	/* bytes of one forward ring */
	uint32_t fwd_n;		/* entries of a ring, 2^n */
	uint32_t mode;		/* MXD_SHPORT_MATRIX or _SWITCHED */
	uint32_t pad2;
	uint64_t up_off;	/* a switched port's up rings, one per slot,
				 * fwd_bytes each (0: none) */
	char name[48];		/* the DPDK device, e.g. net_memif0 */
	char driver[32];
} __attribute__((aligned(64)));

/*
 * A forward ring: the frames the service hands one slot's process (a
 * connect request that came to slot 0, an answer for a slot the sender
 * did not know; on a switched port every frame for the slot's
 * endpoints).  The service writes an entry, then head (release); the
 * process reads up to head, then tail.  Entries: a 4-byte length, 4 of
 * padding, the frame.  When a process dies the service, its only other
 * writer, sets tail to head before the slot is given out again.  An up
 * ring (a switched port's) is the same with the roles turned: the
 * process writes, the service reads and sends, and drops what a dead
 * process left there.
 */
struct mxd_fwd {
	uint32_t head __attribute__((aligned(64)));
	uint32_t tail __attribute__((aligned(64)));
	uint8_t entries[] __attribute__((aligned(64)));
};

#define MXD_FWD_HDR	8u	/* an entry's length word and padding */

/* Entry i of a ring of n entries (2^k) of 'frame' bytes. */
static inline uint8_t *
mxd_fwd_entry(struct mxd_fwd *r, uint32_t frame, uint32_t n, uint32_t i)
{
	return r->entries + (size_t)(i & (n - 1)) * frame;
}

/* Bytes a ring of n entries of 'frame' bytes takes. */
static inline uint32_t
mxd_fwd_bytes(uint32_t frame, uint32_t n)
{
	return (uint32_t)sizeof(struct mxd_fwd) + n * frame;
}

#endif /* MXD_SHPORT_H */
