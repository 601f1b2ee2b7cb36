/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the three files of a DPDK port share; private to pmd-glue (lib/
 * sees a port only as a struct mxd_link, link.h).
 *
 * setup.c brings each port up and fills its struct mxd_link and struct
 * port_priv; from then on the engine drives the port through one of two
 * tables of link operations: port.c's, for any PMD, or memif.c's, whose
 * bursts run the same receive and send under a fault guard and warm the
 * shared ring's lines around them.
 *
 * The receive and send themselves (port_rx, port_tx) and the two small
 * operations memif.c also calls on every burst (port_free, port_link_up)
 * are defined here, static inline, so that the compiler may inline them
 * into memif.c's bursts (port.c's table takes their addresses): a call
 * from one file to a function of another cannot be inlined, and in a
 * shared library built -fPIC it goes through the PLT.  The operations
 * reached only through the tables are out of line in port.c.
 *
 * Functions shared by two files carry the glue's prefix, mxd_glue_, like
 * every non-static symbol of the library.
 */
#ifndef MXD_PORT_PRIV_H
#define MXD_PORT_PRIV_H

#include <stdint.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "glue.h"
#include "link.h"

#define BURST_MAX	64

/* A memif port's rings as the datapath warms them (memif_slots_*). */
struct memif_slots {
	uint8_t *ring;			/* NULL: not (yet) known */
	const uint8_t *peer;		/* the line of the peer's index */
	const volatile uint16_t *own;	/* this side's index: the next slot */
	const uint8_t *buf0;		/* slot 0's buffer */
	uint32_t stride;		/* bytes from a buffer to the next
					 * (0: buffers not warmed) */
	/* The rx ring: the peer's index (where it has written up to), the
	 * value last seen, and the ring's descriptors and buffers. */
	const volatile uint16_t *prod;
	const uint8_t *rx_ring, *rx_buf0;
	uint32_t rx_stride;
	uint16_t seen;
};

#define SLOTS_CANDS	MXD_GLUE_MEMIF_REGIONS

struct port_priv {
	struct rte_mempool *mp;
	uint8_t memif;		/* a net_memif port */
	uint8_t warm;		/* memif: WARM_* (the EAL alarm sets it,
				 * bursts wait for it) */
	/* memif, set up with the port: */
	uint8_t server;		/* sends on the server's ring (S2C) */
	uint8_t zero_copy;	/* buffers outside the region: not warmed */
	uint32_t ring_bytes;	/* one ring: header and descriptors */
	uint16_t ring_mask;
	/* memif, written by the EAL alarm at each link-up (atomics): the
	 * regions that may hold this port's rings, and a generation that
	 * tells the datapath its ring may have moved. */
	uint8_t *cand[SLOTS_CANDS];
	size_t cand_len[SLOTS_CANDS];
	unsigned ncand, gen;
	/* memif, the datapath's own (bursts run one at a time): */
	struct memif_slots slots;
	unsigned slots_gen, tries;
	uint32_t snap_len;		/* the last frame of a send that may
					 * tell the region: its length and */
	uint8_t snap[32];		/* first bytes */
};

/* ---- the bursts, shared with memif.c's ---------------------------------- */

/*
 * A frame longer than one of our buffers comes as a chain of mbufs (memif,
 * pcap); the engine reads frames whole from one buffer, so such a frame is
 * dropped here and counted (l->too_long): the sender's MTU is larger than
 * ours.  The frames kept stay in order.
 */
static inline uint16_t
port_rx_q(struct mxd_link *l, uint16_t q, struct mxd_frame *f, uint16_t n)
{
	struct rte_mbuf *m[BURST_MAX];
	uint16_t got, kept = 0;

	if (n > BURST_MAX)
		n = BURST_MAX;
	got = rte_eth_rx_burst(l->port_id, q, m, n);
	for (uint16_t i = 0; i < got; i++) {
		if (unlikely(m[i]->nb_segs > 1)) {
			l->too_long++;
			l->news++;
			rte_pktmbuf_free(m[i]);
			continue;
		}
		f[kept].h = m[i];
		f[kept].data = rte_pktmbuf_mtod(m[i], uint8_t *);
		f[kept].len = rte_pktmbuf_data_len(m[i]);
		f[kept].to = 0;
		kept++;
	}
	return kept;
}

static inline uint16_t
port_rx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	return port_rx_q(l, 0, f, n);
}

/*
 * A frame the engine keeps to send again (ops->ref: a reference more than
 * the burst's) goes to the PMD as a copy.  A PMD drops its reference to a
 * buffer someone else holds too with a locked decrement, and a locked
 * instruction waits for every store before it: memif's copy of the frame
 * into its ring, whose cache misses then come one frame after another,
 * and the ring's index, which waits behind them (a third of the sender's
 * time streaming 4 KiB messages; a round trip's half at 8 bytes).  The
 * copy, of a frame still in cache, has one reference, which the PMD drops
 * without a lock; the burst's reference on the frame is the engine's
 * again.  No buffer for the copies: the frames themselves go, as before.
 */
static inline uint16_t
port_tx_q(struct mxd_link *l, uint16_t q, struct mxd_frame *f, uint16_t n)
{
	struct port_priv *pp = l->priv;
	struct rte_mbuf *m[BURST_MAX], *c[BURST_MAX];
	unsigned kept = 0, used = 0;
	uint16_t sent;

	if (n > BURST_MAX)
		n = BURST_MAX;
	for (uint16_t i = 0; i < n; i++) {
		m[i] = f[i].h;
		m[i]->data_len = (uint16_t)f[i].len;
		m[i]->pkt_len = f[i].len;
		kept += rte_mbuf_refcnt_read(m[i]) > 1;
	}
	/* A frame queued twice counts twice, but its second turn may find
	 * one reference left (the first copy took the other): copies not
	 * used go back. */
	if (kept != 0 && rte_pktmbuf_alloc_bulk(pp->mp, c, kept) == 0) {
		for (uint16_t i = 0; i < n && used < kept; i++) {
			struct rte_mbuf *o = m[i];
			uint16_t refs = rte_mbuf_refcnt_read(o);

			if (refs == 1)
				continue;
			m[i] = c[used++];
			memcpy(rte_pktmbuf_mtod(m[i], void *), f[i].data,
					f[i].len);
			m[i]->data_len = o->data_len;
			m[i]->pkt_len = o->pkt_len;
			rte_mbuf_refcnt_set(o, (uint16_t)(refs - 1));
		}
		if (used < kept)
			rte_pktmbuf_free_bulk(c + used, kept - used);
	}
	sent = rte_eth_tx_burst(l->port_id, q, m, n);
	/* The frames the PMD did not take stay queued: their copies go back
	 * and the burst's references return to the frames. */
	for (uint16_t i = sent; i < n; i++) {
		struct rte_mbuf *o = f[i].h;

		if (m[i] != o) {
			rte_pktmbuf_free(m[i]);
			rte_mbuf_refcnt_set(o, (uint16_t)
					(rte_mbuf_refcnt_read(o) + 1));
		}
	}
	return sent;
}

static inline uint16_t
port_tx(struct mxd_link *l, struct mxd_frame *f, uint16_t n)
{
	return port_tx_q(l, 0, f, n);
}

/* ops->free */
static inline void
port_free(struct mxd_frame *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(f[i].h);
}

/* ops->link_up; also memif.c's warming, which waits for the link. */
static inline int
port_link_up(struct mxd_link *l)
{
	struct rte_eth_link el;

	if (rte_eth_link_get_nowait(l->port_id, &el) != 0)
		return 0;
	return el.link_status == RTE_ETH_LINK_UP;
}

/* ---- port.c: the operations reached through the tables ------------------ */

extern const struct mxd_link_ops mxd_glue_port_ops;
int mxd_glue_port_alloc(struct mxd_link *l, struct mxd_frame *f, unsigned n);
unsigned mxd_glue_port_recycle(struct mxd_link *l, struct mxd_frame *f,
		unsigned n);
void mxd_glue_port_ref(struct mxd_frame *f, unsigned n);
uint32_t mxd_glue_port_speed(struct mxd_link *l);
void mxd_glue_port_stats(struct mxd_link *l, uint64_t *tx, uint64_t *rx);
uint32_t mxd_glue_port_in_use(struct mxd_link *l);

/* ---- setup.c: what a port is, its devargs, its restart ------------------ */

/* Whether port pid is a virtual device (the vdev bus), not a NIC. */
int mxd_glue_port_virtual(uint16_t pid);
/* The value of devarg 'key' of port pid into out (empty if absent);
 * returns 1 if the port has it. */
int mxd_glue_devarg(uint16_t pid, const char *key, char *out, size_t len);
/* Devarg 'key' as a number, def if absent. */
uint32_t mxd_glue_devarg_u32(uint16_t pid, const char *key, uint32_t def);
/* Stops (if started) and starts the port again, quietly. */
void mxd_glue_link_restart(struct mxd_link *l);
/* CLOCK_MONOTONIC in milliseconds (l->started_ms). */
uint64_t mxd_glue_now_ms(void);

/* ---- memif.c: what setup.c asks of memif -------------------------------- */

/* A memif devarg the PMD would silently ignore: -EINVAL (the reason set
 * for mxd_glue_error()), else 0. */
int mxd_glue_memif_check_args(uint16_t pid, const char *name);
/* Whether the memif port's role is server (or master). */
int mxd_glue_memif_is_server(uint16_t pid);
/* The memif port's socket path into out. */
void mxd_glue_memif_socket(uint16_t pid, char *out, size_t len);
/* Makes a started memif port's link memif's: its operations, the fault
 * guard, the ring geometry the warming needs.  l->priv is set. */
void mxd_glue_memif_setup(struct mxd_link *l, uint16_t pid);
/* Once all n ports are set up: starts the EAL alarm that prefaults the
 * memif links' memory at each link-up, if any port is memif. */
void mxd_glue_memif_warm_start(struct mxd_link *l, struct port_priv *pp,
		unsigned n);

#endif /* MXD_PORT_PRIV_H */
