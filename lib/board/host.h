/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host segment of a shared board: what the processes of one host that
 * share a board see in common.  One shared-memory file per shared board,
 * created and sized by the board service (the one process that owns the
 * board's ports), mapped by every process that opens endpoints on the
 * board.  It holds:
 *
 *   - the slots: a process holds one slot (slot 0 is the service's) for
 *     as long as it lives; the slot's epoch rises with each new owner, so
 *     that a peer that remembered an older owner recognises the change;
 *   - the endpoint table: which slot holds each of the board's endpoint
 *     ids, so that (nic id, endpoint id) names an endpoint whichever
 *     process holds it;
 *   - one ring area per ordered pair of slots (a, b): the single-producer
 *     ring by which slot a's process sends to slot b's on this host
 *     (engine/shm.c gives the area its format; this header only places
 *     it).  A single producer per ring means that a process killed in the
 *     middle of a write stalls no other writer;
 *   - the board's ports as the service runs them (pmd-glue/shport.h:
 *     link state, the generation of memif's region, the queue matrix's
 *     geometry), and for each port one forward ring per slot, by which
 *     the service hands a process the frames that came to slot 0 for one
 *     of its endpoints (a connect request), and on a switched port every
 *     frame for them, with one up ring per slot for the frames the
 *     process sends.
 *
 * Who writes what: the service writes the header and the slots' pid,
 * epoch and state; a process claims and releases endpoint ids itself
 * (compare-and-swap on ep_slot: no round trip to the service on open);
 * when a process dies, the service releases its endpoints, marks its slot
 * dead, and reuses the slot only after the processes that shared rings
 * with it have let them go: each live process sets its bit in the dead
 * slot's let_go once it holds nothing of their rings (board/shared.c, at
 * its next look, once the same-host path cleared the slot's bit of
 * b->rings_held), and once every live slot's bit is there the service
 * frees the slot (the rings stay as they are: a producer sets its ring
 * up anew for the next owner's epoch).  Every field that another
 * process writes is read with an atomic load.
 *
 * The layout is versioned: a process finding another magic or version
 * refuses the board and says so.
 */
#ifndef MXD_HOST_H
#define MXD_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "shport.h"

#define MXD_HOST_MAGIC		0x4d584448u	/* "MXDH" */
#define MXD_HOST_VERSION	3u
#define MXD_HOST_SLOTS_MAX	MXD_SHPORT_SLOTS	/* slot 0: the service */
#define MXD_HOST_ENDPOINTS	32	/* = MX_MAX_ENDPOINTS */
#define MXD_HOST_NO_SLOT	0xffu	/* ep_slot: endpoint id free */
#define MXD_HOST_PORTS		8	/* = MXD_BOARD_PORTS */
#define MXD_HOST_RING_BYTES	((256u << 10) + 512u)	/* an ordered pair's
						 * area (board/hring.h) */

enum mxd_host_slot_state {
	MXD_HOST_SLOT_FREE = 0,
	MXD_HOST_SLOT_LIVE,		/* its process runs */
	MXD_HOST_SLOT_DEAD,		/* its process died: being reclaimed */
};

struct mxd_host_slot {
	uint32_t state;			/* enum mxd_host_slot_state */
	uint32_t epoch;			/* raised at each new owner */
	int32_t pid;			/* its process, 0 when free */
	uint32_t pad;
	uint64_t let_go;		/* DEAD: bit per live slot that holds
					 * nothing of its rings any more
					 * (atomic or, by each process) */
	uint64_t since_ns;		/* CLOCK_MONOTONIC: owner since */
} __attribute__((aligned(64)));

struct mxd_host {
	uint32_t magic;			/* MXD_HOST_MAGIC */
	uint32_t version;		/* MXD_HOST_VERSION */
	uint32_t nslots;		/* slots in use by this board (<= max) */
	uint32_t ring_bytes;		/* bytes of one ordered pair's area */
	uint64_t nic_id;		/* the board's */
	uint64_t ring_off;		/* offset of pair (0, 0)'s area */
	uint64_t size;			/* bytes of the whole segment */
	int32_t service_pid;
	uint32_t service_epoch;		/* raised at each service start */
	char board_name[64];		/* "<host>:<board>" */
	/* Endpoint id -> the slot that holds it (MXD_HOST_NO_SLOT: free);
	 * 32-bit words so that a claim is one compare-and-swap. */
	uint32_t ep_slot[MXD_HOST_ENDPOINTS];
	struct mxd_host_slot slot[MXD_HOST_SLOTS_MAX];
	uint32_t nports;		/* the board's ports */
	uint32_t pad;
	struct mxd_shport port[MXD_HOST_PORTS];
	/* The service's counts (mx_board status): frames that came to slot
	 * 0 and went on to a process's forward ring, connect requests and
	 * others (for a slot their sender did not know: few, or a route is
	 * wrong), those dropped (a forward ring full, nobody holding their
	 * endpoint), and connect requests refused (endpoint closed). */
	uint64_t fwd_conn, fwd_other, fwd_dropped, conn_refused;
	/* Frames of the switched ports (shport.h) the service took from
	 * the ports to the processes (sw_in) and sent for them (sw_out). */
	uint64_t sw_in, sw_out;
};

/* The ring area by which slot a sends to slot b. */
static inline void *
mxd_host_ring(const struct mxd_host *h, unsigned a, unsigned b)
{
	return (uint8_t *)(uintptr_t)h + h->ring_off +
		((size_t)a * h->nslots + b) * h->ring_bytes;
}

/* The bytes a segment of nslots slots with ring_bytes per pair takes. */
static inline size_t
mxd_host_size(unsigned nslots, uint32_t ring_bytes, size_t *ring_off)
{
	size_t off = (sizeof(struct mxd_host) + 4095) & ~(size_t)4095;

	if (ring_off != NULL)
		*ring_off = off;
	return off + (size_t)nslots * nslots * ring_bytes;
}

/*
 * Where the ports' rings start: past the pairs' areas as mxd_host_size()
 * places them, on a page.  The service lays each port's out from there
 * (its forward rings, then a switched port's up rings) and writes where
 * in the port's struct mxd_shport.
 */
static inline size_t
mxd_host_fwd_start(unsigned nslots, uint32_t ring_bytes, size_t *ring_off)
{
	size_t off = mxd_host_size(nslots, ring_bytes, ring_off);

	return (off + 4095) & ~(size_t)4095;
}

/* Slot s's forward ring on port p. */
static inline struct mxd_fwd *
mxd_host_fwd(const struct mxd_host *h, unsigned p, unsigned s)
{
	const struct mxd_shport *sp = &h->port[p];

	return (struct mxd_fwd *)(void *)((uint8_t *)(uintptr_t)h +
			sp->fwd_off + (size_t)s * sp->fwd_bytes);
}

/* Slot s's up ring on port p: NULL unless the port is switched. */
static inline struct mxd_fwd *
mxd_host_up(const struct mxd_host *h, unsigned p, unsigned s)
{
	const struct mxd_shport *sp = &h->port[p];

	if (sp->mode != MXD_SHPORT_SWITCHED || sp->up_off == 0)
		return NULL;
	return (struct mxd_fwd *)(void *)((uint8_t *)(uintptr_t)h +
			sp->up_off + (size_t)s * sp->fwd_bytes);
}

#endif /* MXD_HOST_H */
