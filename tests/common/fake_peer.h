/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fake peers: many MX peers behind one fake port, each a few dozen bytes
 * of state, speaking the wire protocol (proto/wire.h) to an endpoint of
 * the library on the other end of the wire.  For tests and benchmarks
 * that need more peers than a process's boards and endpoints make (8
 * boards of 32 endpoints): tests/unit/test_scale.c.
 *
 * A peer connects (CONN_REQ, the library's endpoint accepting), sends
 * messages of every class -- one fragment, several, large (a RNDV
 * message whose data the library pulls, then NOTIFY), synchronous (the
 * library answers MATCHED) -- and receives them: fragments put together,
 * PACK frames read record by record, a large message pulled and
 * NOTIFY sent, MATCHED sent for a synchronous one.  Every frame it sends
 * carries its cumulative ack; a poll that received messages of a peer
 * ends with an explicit ACK of them; a PING is answered.  Nothing is
 * sent again: the fake link loses nothing.  Received messages go to a
 * callback, whole (data valid during the call).
 */
#ifndef FAKE_PEER_H
#define FAKE_PEER_H

#include <stdint.h>

#include "fake_link.h"

struct fake_peers;

/* A message received by peer i (a large one once pulled whole). */
typedef void (*fake_peer_msg_fn)(struct fake_peers *fp, uint32_t i,
		uint64_t match, const uint8_t *data, uint32_t len, void *arg);

struct fake_peer;

struct fake_peers {
	struct fake_port *port;		/* our end of the wire */
	uint8_t dst_mac[6];		/* the library board's port */
	uint64_t dst_nic;
	uint8_t dst_ep;
	uint32_t dst_filter;		/* the library endpoint's filter */
	uint32_t filter;		/* every fake peer's own */
	uint16_t mtu;			/* said at connect; frames at most */
	uint16_t frag_max;		/* eager payload per frame */
	uint16_t pull_frag;		/* pull reply payload per frame */
	uint32_t n;
	struct fake_peer *p;		/* [n] */
	fake_peer_msg_fn on_msg;
	void *arg;
	/* No ack of what the library sends while set (its messages stay in
	 * flight); fake_peers_ack_all says it all at the end. */
	int hold_acks;
	/* Counts, for the tests. */
	uint64_t frames_in, frames_out, msgs_in, msgs_out, bad;
	/* Frames being sent, in one burst at the end of a call. */
	struct mxd_frame out[32];
	unsigned nout;
};

/* n peers (NIC ids 02:00:00:40:00:00 + i, endpoint 0, sessions of their
 * own) on 'port', talking to endpoint dst_ep of the board at dst_mac
 * (NIC dst_nic, filter dst_filter); 0, or -1 out of memory. */
int fake_peers_init(struct fake_peers *fp, struct fake_port *port,
		uint32_t n, const uint8_t dst_mac[6], uint64_t dst_nic,
		uint8_t dst_ep, uint32_t dst_filter, uint16_t mtu);
void fake_peers_fini(struct fake_peers *fp);
/* The NIC id of peer i. */
uint64_t fake_peer_nic(const struct fake_peers *fp, uint32_t i);

/* Peer i asks to connect; fake_peer_up says when the library answered. */
void fake_peer_connect(struct fake_peers *fp, uint32_t i);
int fake_peer_up(const struct fake_peers *fp, uint32_t i);

/* Peer i sends a message: eager (flags 0, or MXD_F_SYNC) of one frame or
 * several; or large, its data (which must stay valid) pulled by the
 * library.  Returns 0, or -1 when it cannot (not up, no room). */
int fake_peer_send(struct fake_peers *fp, uint32_t i, uint64_t match,
		const uint8_t *data, uint32_t len, uint8_t flags);
int fake_peer_send_large(struct fake_peers *fp, uint32_t i, uint64_t match,
		const uint8_t *data, uint32_t len);
/* What the library did with peer i's sends so far: its last cumulative
 * ack, large sends it said NOTIFY for, synchronous ones it said MATCHED
 * for. */
uint32_t fake_peer_acked(const struct fake_peers *fp, uint32_t i);
uint32_t fake_peer_notified(const struct fake_peers *fp, uint32_t i);
uint32_t fake_peer_matched(const struct fake_peers *fp, uint32_t i);
/* Messages peer i sent (its next sequence number less one). */
uint32_t fake_peer_sent(const struct fake_peers *fp, uint32_t i);

/* Takes what the library sent (up to 'budget' bursts), answers it, and
 * sends what waits; returns the frames taken. */
unsigned fake_peers_poll(struct fake_peers *fp, unsigned budget);
/* An ACK of every peer that owes one (after hold_acks). */
void fake_peers_ack_all(struct fake_peers *fp);

#endif
