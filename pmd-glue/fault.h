/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection: a link that wraps another and misbehaves on purpose,
 * seeded and reproducible, so that recovery can be tested on virtual
 * ports that never lose anything.  Off unless asked for: unwrapped links
 * pay nothing.  Knows nothing of MX and no DPDK header (it works on any
 * struct mxd_link, the fake links of the unit tests too).
 *
 * A spec is one or more groups separated by ';', each a list of
 * key=value separated by ',':
 *
 *   port=N      the link (index in the table) this group applies to;
 *               without it, every link
 *   seed=N      random seed (default 1); each link draws its own stream
 *   drop=P      drop a received frame with probability P
 *   dup=P       deliver a received frame twice
 *   reorder=P   hold a received frame back behind up to 'depth' others
 *   depth=N     reorder depth in frames (default 8, at most 64)
 *   corrupt=P   flip 1 to 3 random bits anywhere in a received frame
 *   delay=US    deliver every received frame US microseconds late
 *   dead=MS     from MS milliseconds after start the link loses every
 *               frame both ways (its link state still says up)
 *   down=MS     the same, and the link reports itself down
 *   after=N     start the dead/down clock once the link has carried N
 *               frames (received and sent) instead of at start, so a
 *               link can fail in the middle of a transfer
 *
 * Probabilities are written 0.05 or 5%.  Faults act on the receive side of
 * the link (so both directions of a pair are covered when both processes
 * set them); dead/down also swallow what is sent.
 */
#ifndef MXD_FAULT_H
#define MXD_FAULT_H

#include <stdint.h>
#include "link.h"

/* What a faulty link did, per link. */
struct mxd_fault_stats {
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t corrupted;
	uint64_t delayed;
	uint64_t dead;		/* frames lost to dead/down, both ways */
};

/*
 * Replaces links[i] by fault-injecting wrappers as the spec says.  Returns
 * the number of links wrapped, or -1 for a bad spec (mxd_glue_error()
 * says why; nothing is wrapped then).
 */
int mxd_fault_wrap(const char *spec, struct mxd_link **links, unsigned n);

/* Puts the original links back and frees frames still held. */
void mxd_fault_unwrap(struct mxd_link **links, unsigned n);

/* Counters of a wrapped link; returns -1 for a link that is not. */
int mxd_fault_stats(const struct mxd_link *l, struct mxd_fault_stats *s);

#endif /* MXD_FAULT_H */
