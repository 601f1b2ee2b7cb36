/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmd-glue control path: EAL bootstrap and port set-up.
 *
 * Errors are negative errno values; a human-readable reason is left in
 * mxd_glue_error() for the caller to report once.
 */
#ifndef MXD_GLUE_H
#define MXD_GLUE_H

#include <stddef.h>
#include <stdint.h>
#include "link.h"

#define MXD_GLUE_MAX_PORTS	32

struct mxd_glue_conf {
	const char *eal_args;	/* EAL argument string, NULL for none */
	uint32_t mtu;		/* 0: the port's own MTU */
	uint32_t nb_mbufs;	/* per port */
	uint16_t nb_rxd;
	uint16_t nb_txd;
	int keep_affinity;	/* restore the caller's CPU affinity */
	int verbose;		/* MX_VERBOSE: DPDK's own messages too */
	int keep_pmd_mac;	/* 1: never replace a PMD's default MAC */
	/* The board service of a shared board (service/): each memif port
	 * gets nb_queues queue pairs (the queue matrix, shport.h; any
	 * other port one, the service switching its frames), and memif's
	 * regions are not prefaulted (the processes of the board touch
	 * their own queues' pages).  0: one queue pair, as a process that
	 * owns its ports has. */
	uint16_t nb_queues;
	/* 1: the ports' kernel interfaces are only watched (a sniffer), not
	 * claimed; 0: a process that drives an interface (af_packet's,
	 * af_xdp's, pcap's iface=) claims it, and a second one is refused
	 * (-EBUSY, who holds it in mxd_glue_error()). */
	int observe;
};

/*
 * Initialises the EAL from conf->eal_args unless the application already
 * did (then *reused is set and the arguments are ignored).  Idempotent.
 */
int mxd_glue_eal_init(const struct mxd_glue_conf *conf, int *reused);

/*
 * Configures and starts every available port (once per process) and
 * returns the number of links in *links.
 */
int mxd_glue_ports_open(const struct mxd_glue_conf *conf,
		struct mxd_link **links, unsigned *count);

/* Waits up to ms milliseconds for every link to be up; returns #up. */
unsigned mxd_glue_links_wait(struct mxd_link *links, unsigned n,
		uint32_t ms);

/*
 * Waits up to ms milliseconds for the links that should come up by
 * themselves (l->waits) to be up; a memif client whose server is not
 * there yet, or that connected before its server was ready, is started
 * again every few hundred milliseconds meanwhile.  Returns the number of
 * links up; a link still down keeps l->started and l->down_hint for the
 * caller to report.
 */
unsigned mxd_glue_links_start(struct mxd_link *links, unsigned n,
		uint32_t ms);

const char *mxd_glue_error(void);
/* Sleeps until a port armed by this thread (link intr_arm) has frames, or
 * 'ms' pass. */
void mxd_glue_intr_wait(uint32_t ms);
/* What the EAL printed when its initialisation failed ("" otherwise), for
 * the caller to show after its own message (MX_VERBOSE). */
const char *mxd_glue_eal_text(void);

/*
 * Maps every page of [addr, addr + len) writable in this process now,
 * without changing a byte, rather than one page fault at a time on first
 * touch (prefault.c); returns the number of pages, or -1.
 */
long mxd_glue_prefault(void *addr, size_t len);
/* The same for every memif region the process has mapped (memif.c, when
 * a memif link comes up); returns the number of pages. */
long mxd_glue_prefault_memif(void);
/* The memif regions the process has mapped, writable and shared, as
 * [lo, hi) ranges: at most max of them; returns how many.  A board
 * service maps each of its memif interfaces' regions twice (DPDK's
 * mapping and its own): 2 ports of 5 lanes make 20. */
#define MXD_GLUE_MEMIF_REGIONS	128
unsigned mxd_glue_memif_regions(uintptr_t *lo, uintptr_t *hi, unsigned max);

/* Puts the memif ports' fault guard back in front of a SIGSEGV or SIGBUS
 * handler installed after it (memif.c, "bursts that outlive the peer's
 * memory").  Control path: two sigaction() queries; nothing to do without
 * a memif port. */
void mxd_glue_guard_check(void);

/* ---- the board service's side of a shared board (shport.h) ---------- */

/* Stops and closes every port (the board service, as it stops: a memif
 * port's path socket goes with it). */
void mxd_glue_ports_close(void);

/* A burst on queue q of a port (the service's own queues of the matrix:
 * its column and its row); memif bursts run under the fault guard. */
uint16_t mxd_glue_queue_rx(struct mxd_link *l, uint16_t q,
		struct mxd_frame *f, uint16_t n);
uint16_t mxd_glue_queue_tx(struct mxd_link *l, uint16_t q,
		struct mxd_frame *f, uint16_t n);
/* A memif port's ring geometry: descriptors per ring (log2), buffer size,
 * whether it is memif's server; -1 if the port is not memif. */
int mxd_glue_memif_geometry(const struct mxd_link *l, unsigned *log2,
		uint32_t *bsize, int *server);
/*
 * The memif region of port l, whose link is up and on whose queue 0 the
 * frame 'sent' (len bytes) was just sent: the one of the process's memif
 * regions (nq queue pairs) whose queue 0 ring holds that frame in the
 * slot last written.  *fd is a descriptor of its own (the caller closes
 * it), *size its bytes.  0, or -1 when no region or more than one
 * matches (send again and retry).
 */
int mxd_glue_memif_region(struct mxd_link *l, unsigned nq,
		const uint8_t *sent, uint32_t len, int *fd, uint64_t *size);

/* Records the reason of a failure for mxd_glue_error() (eal.c). */
void mxd_glue_set_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#endif /* MXD_GLUE_H */
