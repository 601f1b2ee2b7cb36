/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters (a leaf): one array of 64-bit counters per board, in a
 * shared-memory segment that mx_counters, a separate process, can read and
 * reset.  Counting is a plain increment (board.h: mxd_count).
 */
#ifndef MXD_STATS_H
#define MXD_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

enum mxd_counter {
	MXD_C_TX_FRAMES,
	MXD_C_RX_FRAMES,
	MXD_C_TX_MSGS,
	MXD_C_RX_MSGS,
	MXD_C_LOOP_FRAMES,
	MXD_C_ACKS_SENT,
	MXD_C_ACKS_PIGGY,
	MXD_C_UNEXP_MSGS,
	MXD_C_EARLY_MSGS,
	MXD_C_TX_STALLS,
	MXD_C_BAD_ACK,
	MXD_C_CONN_REQ,
	MXD_C_DISCOVERY,
	MXD_C_NACK_SENT,
	MXD_C_NACK_RCVD,
	MXD_C_NOTICE_LOST,
	MXD_C_NOTICE_GROW,
	MXD_C_UNEXP_FULL,
	MXD_C_BAD_PULL,
	MXD_C_PULL_BUSY,
	MXD_C_PULL_GONE,	/* PULLs for a send that ended: GONE */
	MXD_C_PULLS_ABORTED,	/* large receives failed by a GONE */
	MXD_C_RETX_MSGS,	/* messages retransmitted on timeout */
	MXD_C_RETX_FRAMES,
	MXD_C_REPULLS,		/* PULLs sent again for missing replies */
	MXD_C_PINGS,		/* liveness probes sent */
	MXD_C_PEER_DEAD,	/* partners declared unreachable */
	MXD_C_PEER_RESET,	/* partners restarted (new session/epoch) */
	MXD_C_PORT_SUSPECT,	/* ports left out of striping after a loss */
	MXD_C_BURSTS_CUT,	/* bursts cut short: the port's memory went */
	MXD_C_SENDS_LOST,	/* messages of completed sends refused/lost */
	MXD_C_SACKS_SENT,	/* ACKs with a SACK sent at once (a hole) */
	MXD_C_FAST_RETX,	/* messages sent again at a SACK */
	MXD_C_FAST_REPULLS,	/* blocks asked again at their tail */
	MXD_C_CPU_SHARED,	/* waits that found their CPU shared */
	MXD_C_CPU_YIELDS,	/* the CPU yielded between idle passes */
	MXD_C_TX_PACKED,	/* messages sent in PACK frames */
	MXD_C_TX_PACKS,		/* PACK frames sent (not counting resends) */
	MXD_C_RX_PACKED,	/* messages received in PACK frames */
	MXD_C_FRAG_ACKS,	/* ACKs naming fragments held (MXD_F_FRAGS) */
	MXD_C_RETX_SPARED,	/* fragments not sent again: the receiver
				 * said it held them */
	MXD_C_PARTNER_REUSED,	/* partners the program could not know of,
				 * reused with the table full */
	MXD_C_PULLS_DEFERRED,	/* large receives that waited for a pull
				 * slot (MXD_PULLS_MAX in progress) */
	MXD_C_BUFS_IN_USE,	/* a gauge: the ports' pools' buffers out
				 * but those the board keeps idle
				 * (mxd_board_in_use) */
	MXD_C_SHM_TX,		/* messages sent through the host's rings */
	MXD_C_SHM_RX,		/* messages taken from the host's rings */
	MXD_C_SHM_FULL,		/* sends that waited for ring room */
	MXD_C_SHM_HELD,		/* ring records left for room in the
				 * unexpected queue */
	MXD_C_SHM_READS,	/* large messages read (process_vm_readv) */
	MXD_C_SHM_COPIED,	/* large messages copied through the ring */
	MXD_C_SHM_HALVES,	/* second halves of large messages written
				 * into their reader (split reads) */
	MXD_C_SHM_PEER_DEAD,	/* processes of the host found gone */
	MXD_C_DROP_BASE,	/* followed by one counter per enum mxd_drop */
	MXD_C_MAX = MXD_C_DROP_BASE + MXD_DROP_MAX
};

/* A board's counter segment. */
struct mxd_stats {
	uint64_t *counters;		/* MXD_C_MAX values */
	void *seg;			/* shared segment (or private memory) */
	size_t len;
	char path[64];			/* empty when private */
};

const char *mxd_counter_name(unsigned c);

/* Creates the counters of board 'index' (name, NIC id in the header);
 * 0 or -MX_NO_RESOURCES. */
int mxd_stats_open(struct mxd_stats *s, unsigned index, uint64_t nic_id,
		const char *name);
void mxd_stats_close(struct mxd_stats *s);

/* Removes the segments of processes that are gone. */
void mxd_stats_sweep(void);
/*
 * Whether a live process other than this one has a board named 'name'
 * (returns 1) or one whose NIC id is nic_id (returns 2); then *pid and
 * other_name say which.  0 if none.
 */
int mxd_stats_find_other(const char *name, uint64_t nic_id, int *pid,
		char *other_name, size_t len);

#endif /* MXD_STATS_H */
