/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Portals transport inside one process, for the tests: each interface
 * (0 .. LB_IFACES - 1) is a "process" of its own, on a node of its own
 * or sharing one (lb_config), so that several processes put to and get
 * from each other in one test program, through the core's transport
 * interface (lib/portals/transport.h) exactly as the engine's transport
 * does.
 *
 * Messages go through one queue, in the order they were started, each
 * with its Portals header encoded and parsed again (proto/portals_wire.h).
 * They move when the queue is pumped: by the transport's progress() and
 * wait() (PtlEQGet, PtlEQWait), by lb_pump(), or at once inside PtlPut and
 * PtlGet in synchronous mode (lb.sync).  Knobs let a test see every stage:
 *   - eager_max: puts and replies up to it are copied when started (a put
 *     ends, SEND_END, before PtlPut returns); longer ones are read from
 *     the sender's memory when they arrive (SEND_END after the target
 *     took them), as the engine pulls large messages;
 *   - hold: an accepted transfer stops after its START event, until
 *     lb_release() moves it or lb_fail_held() fails it;
 *   - hold_acks, hold_replies: ACKs and REPLYs wait in the queue;
 *   - manual: progress() and wait() deliver nothing, only lb_pump() and
 *     lb_step() do, so that a test chooses the moment a message comes;
 *   - shuffle: the pump takes messages of different pairs of processes in
 *     a seeded random order, each pair's in order;
 *   - lb_kill(): a process vanishes: what it had in flight and what is
 *     sent to it fails (PTL_NI_UNREACHABLE).
 */
#ifndef LB_LOOPBACK_H
#define LB_LOOPBACK_H

#include <stdint.h>

#include "portals/transport.h"

#define LB_IFACES	8
#define LB_PIDS		32

struct lb_proc {
	int open;
	int dead;
	ptl_nid_t nid;
	ptl_pid_t pid;
	ptl_uid_t uid;
	struct mxd_ptl_ni *ni;
};

struct lb_state {
	int ifaces;		/* interfaces PtlInit reports */
	int sync;		/* deliver inside PtlPut/PtlGet */
	uint64_t eager_max;
	int hold;
	int hold_acks;
	int hold_replies;
	int manual;		/* only lb_pump/lb_step deliver */
	unsigned shuffle;	/* 0: off; else the seed */
	struct lb_proc proc[LB_IFACES];
	/* counters for the tests */
	unsigned delivered;	/* messages taken off the queue */
	unsigned queued;	/* messages in the queue */
	unsigned held;		/* transfers held */
	unsigned wakeups;
	unsigned waits;
};

extern struct lb_state lb;
extern const struct mxd_ptl_tp_ops lb_ops;

/* Back to the defaults (4 interfaces, two per node, this uid, eager up to
 * 64 bytes, queued), every message and record forgotten. */
void lb_reset(void);
/* Node id and user id of an interface, before it is opened. */
void lb_config(int iface, ptl_nid_t nid, ptl_uid_t uid);
/* Delivers queued messages (those held aside stay); returns how many. */
unsigned lb_pump(void);
/* Delivers one queued message; 0 if none. */
unsigned lb_step(void);
/* Moves the held transfers' bytes and ends them. */
unsigned lb_release(void);
/* Fails the held transfers, both sides (status: a PTL_NI_*). */
unsigned lb_fail_held(ptl_ni_fail_t status);
/* The process of an interface vanishes. */
void lb_kill(int iface);
/* The header of the first queued message of this kind (to read or
 * alter it), or NULL. */
struct mxd_ptl_hdr *lb_peek(uint8_t kind);

#endif /* LB_LOOPBACK_H */
