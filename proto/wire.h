/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx-dpdk wire format, version 2 (MXD_WIRE_VERSION).  Every frame layout and protocol
 * constant lives here and nowhere else; docs/wire.md describes the same
 * layout for people.
 *
 * A frame is an Ethernet II frame with EtherType MXD_ETHERTYPE:
 *
 *   +----------------+----------------------+-------------------+---------+
 *   | Ethernet (14)  | common header (32)   | type header       | payload |
 *   +----------------+----------------------+-------------------+---------+
 *
 * All multi-byte fields are big-endian.  Offsets below are relative to the
 * start of the structure; the common header starts at frame offset 14, so
 * fields are naturally aligned relative to the MX header (not to the frame)
 * and are always read with memcpy-based helpers.
 *
 * Receivers call mxd_wire_parse() exactly once per frame; it checks the
 * type, exact lengths and bounds, and nothing downstream re-checks them.
 */
#ifndef MXD_WIRE_H
#define MXD_WIRE_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "csum.h"

#define MXD_ETHERTYPE		0x88b5	/* IEEE 802 local experimental 1 */
#define MXD_WIRE_VERSION	2	/* 2: csum checked */
#define MXD_ETH_HLEN		14
#define MXD_ETH_ALEN		6
#define MXD_NAME_LEN		64	/* board names on the wire, NUL padded */
#define MXD_MAX_FRAGS		64	/* fragments of one eager message */
#define MXD_NO_PEER		0xffff	/* dst_peer before connect completes */
#define MXD_MAX_EP		256	/* endpoint ids fit one byte */
/* The least MTU the protocol works with: an eager fragment holds a whole
 * rendezvous descriptor (72 bytes; Ethernet's least, 68, would not).  A
 * smaller MTU said at connect is taken as this. */
#define MXD_MTU_MIN		72

enum mxd_frame_type {
	MXD_T_EAGER = 1,	/* one fragment of a small/medium message */
	MXD_T_ACK = 2,		/* explicit cumulative ack; with MXD_F_SACK
				 * an 8-byte bitmap of messages received,
				 * with MXD_F_FRAGS the fragments held of
				 * messages received in part */
	MXD_T_CONN_REQ = 3,	/* connect request, carries filter */
	MXD_T_CONN_REP = 4,	/* connect reply, carries status */
	MXD_T_DISCOVER = 5,	/* board name query / announcement */
	MXD_T_NACK = 6,		/* a message was refused: status inside */
	/* 7: MATCHED in version 1; now a notice (MXD_F_CTRL) */
	MXD_T_PULL = 8,		/* receiver asks for a block of a large send */
	MXD_T_PULL_REP = 9,	/* one frame of a pulled block */
	/* 10: NOTIFY in version 1; now a notice (MXD_F_CTRL) */
	MXD_T_PACK = 11,	/* several small messages of one partner, each
				 * with its own seq (struct mxd_pack_rec) */
	MXD_T_MAX
};

/*
 * Notices are small sequenced messages: EAGER flagged CTRL, length 0,
 * match = kind << 32 | value.  They are acknowledged and retransmitted
 * like any message, applied once on arrival, never matched to a receive.
 */
enum mxd_notice_kind {
	MXD_NOTE_MATCHED = 1,	/* value: seq of a sync message now matched */
	MXD_NOTE_NOTIFY = 2,	/* value: send handle of a large message all
				 * pulled (or discarded): the send is done */
	MXD_NOTE_MAX
};

/* Why a message was refused (MXD_T_NACK). */
enum mxd_nack_reason {
	MXD_NACK_CLOSED = 1,	/* no such endpoint, or an old session */
	MXD_NACK_BAD_KEY = 2,	/* filter mismatch */
};

/* Status carried by MXD_T_CONN_REP. */
enum mxd_conn_status {
	MXD_CONN_OK = 0,
	MXD_CONN_CLOSED = 1,	/* no endpoint open with that id */
	MXD_CONN_BAD_KEY = 2,	/* filter mismatch */
	MXD_CONN_NO_RES = 3,	/* partner table full */
};

/* Ethernet II header. */
struct mxd_eth_hdr {
	uint8_t dst[MXD_ETH_ALEN];	/*  0 */
	uint8_t src[MXD_ETH_ALEN];	/*  6 */
	uint16_t ethertype;		/* 12 */
} __attribute__((packed));
_Static_assert(sizeof(struct mxd_eth_hdr) == 14, "eth header size");

/* Common header, present in every MX frame. */
struct mxd_hdr {
	uint8_t version;	/*  0 MXD_WIRE_VERSION */
	uint8_t type;		/*  1 enum mxd_frame_type */
	uint8_t flags;		/*  2 MXD_F_* */
	uint8_t epoch;		/*  3 to a partner: the low byte of the
				 *    sender's epoch for it (connect.c); a
				 *    frame of an earlier epoch is stale.
				 *    Zero padding before MXD_CAP_EPOCH. */
	uint8_t src_ep;		/*  4 sender's endpoint id */
	uint8_t dst_ep;		/*  5 receiver's endpoint id */
	uint16_t dst_peer;	/*  6 receiver's partner index (MXD_NO_PEER) */
	uint16_t src_peer;	/*  8 sender's partner index */
	uint16_t length;	/* 10 bytes after this header (type hdr+data) */
	uint32_t filter;	/* 12 receiver's endpoint filter */
	uint32_t src_session;	/* 16 sender endpoint's session id */
	uint32_t dst_session;	/* 20 receiver endpoint's session (0: any) */
	uint32_t ack;		/* 24 cumulative ack: all seq <= ack received */
	uint32_t csum;		/* 28 mxd_csum() of the frame (this field
				 *    zero) up to the end of "length" */
};
_Static_assert(sizeof(struct mxd_hdr) == 32, "common header size");
_Static_assert(MXD_CRC_FIELD == 14 + offsetof(struct mxd_hdr, csum),
		"the frame check's field (csum.h)");

#define MXD_F_ACK_VALID	0x01	/* the ack field carries an ack */
#define MXD_F_SYNC	0x02	/* EAGER: mx_issend, answer with MATCHED */
#define MXD_F_RNDV	0x04	/* EAGER: payload is a struct mxd_rndv_desc */
#define MXD_F_CTRL	0x08	/* EAGER: a notice, never matched: length 0,
				 * match = kind << 32 | value */
#define MXD_F_PING	0x10	/* ACK: answer with an ACK now (liveness) */
#define MXD_F_FRESH	0x20	/* CONN_REQ/REP: the sender's windows for
				 * this partner are at message 1 (for the
				 * reader of a capture; the receiver acts
				 * on the conn header's epoch) */
#define MXD_F_BYE	0x40	/* ACK: the sender's endpoint is closing;
				 * its ack is final, send it nothing more */
#define MXD_F_SACK	0x80	/* ACK: a uint64 follows the header: bit i
				 * set, message ack + 1 + i is received
				 * whole (selective ack: what is missing
				 * below the highest bit is sent again at
				 * once) */
#define MXD_SACK_LEN	8
#define MXD_F_FRAGS	0x02	/* ACK: after the SACK (if any), 1 to
				 * MXD_FRAGS_MAX records struct mxd_frags_rec:
				 * the fragments the receiver holds of a
				 * message it has in part; the sender sends
				 * again only the others.  Only to a partner
				 * that said MXD_CAP_FRAGS at connect. */
#define MXD_F_AGAIN	0x02	/* PULL: frames asked again (lost the first
				 * time): served before the first asks */
#define MXD_F_GONE	0x02	/* PULL_REP, no payload: the send the PULL
				 * named has ended without being pulled
				 * (timed out, mx_disconnect): the
				 * offset field carries its handle, and the
				 * receive fails with MX_STATUS_ABORTED */

/* MXD_T_EAGER: one fragment of a message of at most MXD_MAX_FRAGS frags. */
struct mxd_eager_hdr {
	uint32_t seq;		/*  0 message sequence number, per partner */
	uint32_t msg_len;	/*  4 total message length */
	uint64_t match;		/*  8 match_info */
	uint32_t frag_off;	/* 16 offset of this fragment in the message */
	uint8_t frag_idx;	/* 20 index of this fragment */
	uint8_t frag_count;	/* 21 number of fragments, 1..MXD_MAX_FRAGS */
	uint16_t frag_max;	/* 22 payload bytes of every fragment but the
				 *    last: frag_off == frag_idx * frag_max */
};
_Static_assert(sizeof(struct mxd_eager_hdr) == 24, "eager header size");

/*
 * MXD_T_CONN_REQ / MXD_T_CONN_REP.  The request carries the requester's
 * own filter so that the accepting side can answer messages (reply to
 * mx_status_t.source) without a connect of its own.
 *
 * Both carry the sender's MTU: each side sends its partner frames of at
 * most the smaller of the two (eager fragments, pull replies).  The field
 * was zero padding in the first version-2 senders and receivers ignore
 * padding, so the version stays 2: an older receiver ignores it, and from
 * an older sender it reads 0, "not said", and the receiver keeps its own.
 */
struct mxd_conn_hdr {
	uint64_t src_nic;	/*  0 sender's NIC id (board MAC) */
	uint32_t conn_id;	/*  8 request id, echoed by the reply */
	uint32_t src_filter;	/* 12 sender endpoint's own filter */
	uint8_t status;		/* 16 enum mxd_conn_status (reply only) */
	uint8_t caps;		/* 17 MXD_CAP_*: what the sender takes (zero
				 *    padding before: an older peer says
				 *    nothing and is sent nothing new) */
	uint16_t mtu;		/* 18 the largest frame the sender's board
				 *    takes whole, Ethernet header excluded
				 *    (its MTU); 0: not said (sent as zero
				 *    padding before; see below) */
	uint32_t epoch;		/* 20 sender's epoch of its state for the
				 *    receiver: raised when it starts over */
	uint64_t dst_nic;	/* 24 the NIC id asked for (a request may
				 *    go to every port as broadcast) */
};
_Static_assert(sizeof(struct mxd_conn_hdr) == 32, "conn header size");
_Static_assert(offsetof(struct mxd_conn_hdr, mtu) == 18, "conn mtu offset");
_Static_assert(offsetof(struct mxd_conn_hdr, caps) == 17, "conn caps offset");

#define MXD_CAP_PACK	0x01	/* the sender takes MXD_T_PACK frames */
#define MXD_CAP_FRAGS	0x02	/* the sender takes ACKs with MXD_F_FRAGS */
#define MXD_CAP_EPOCH	0x04	/* the sender's frames carry the epoch in
				 * their common header: the receiver drops
				 * those of an earlier one */
/*
 * The sender's endpoint is held by slot N of a shared board (one of the
 * processes of its host; slot 0 is the board's service): N's low four
 * bits are the caps byte's high nibble, its bits 4 and 5 the mtu field's
 * two high bits (an MTU is below 16384).  Frames to the endpoint go to
 * that slot's queues of the peer board's ports (pmd-glue/shport.h);
 * without the bit they go to slot 0, whose service hands each to the
 * endpoint's process.  Bits that were zero padding: an older receiver
 * ignores them.
 *
 *     7   6   5   4   3   2   1   0
 *   +---------------+---+---+---+---+
 *   |  slot & 15    |SLT|EPO|FRG|PCK|     caps
 *   +---------------+---+---+---+---+
 *    15  14  13 ... 0
 *   +-------+-------------------+
 *   |slot>>4|        MTU        |         mtu
 *   +-------+-------------------+
 */
#define MXD_CAP_SLOT	0x08
#define MXD_CAP_SLOT_SHIFT	4
#define MXD_CONN_MTU_MASK	0x3fffu	/* mtu: the MTU's bits */
#define MXD_CONN_SLOT_HI	14	/* mtu: slot bits 4 and 5 from here */

/* The caps bits that say slot 'slot' (none for slot 0 of no board). */
static inline uint8_t
mxd_caps_of_slot(unsigned slot, int shared)
{
	return shared ? (uint8_t)(MXD_CAP_SLOT |
			((slot & 15u) << MXD_CAP_SLOT_SHIFT)) : 0;
}

/* The mtu field that says MTU 'mtu' and slot 'slot''s high bits. */
static inline uint16_t
mxd_conn_mtu(uint32_t mtu, unsigned slot)
{
	return (uint16_t)((mtu & MXD_CONN_MTU_MASK) |
			((slot >> 4) & 3u) << MXD_CONN_SLOT_HI);
}

/* ACK flagged MXD_F_FRAGS: one record per message received in part (the
 * first MXD_FRAGS_MAX from the cumulative ack on, as many as the MTU
 * holds: 121 at 1500 bytes). */
struct mxd_frags_rec {
	uint32_t seq;		/*  0 the message */
	uint64_t have;		/*  4 bit i: fragment i is held (never all) */
} __attribute__((packed));
_Static_assert(sizeof(struct mxd_frags_rec) == 12, "frags record size");
#define MXD_FRAGS_MAX	64	/* as far as a SACK reaches */

/* MXD_T_DISCOVER: announce own name, optionally ask for another's. */
struct mxd_disc_hdr {
	uint64_t src_nic;		/*   0 sender's NIC id */
	uint8_t query;			/*   8 1: please answer if you are 'want' */
	uint8_t pad0[7];		/*   9 zero */
	char name[MXD_NAME_LEN];	/*  16 sender's board name */
	char want[MXD_NAME_LEN];	/*  80 name asked for (query only) */
};
_Static_assert(sizeof(struct mxd_disc_hdr) == 144, "discover header size");

/*
 * MXD_T_NACK names one message of the partner by its sequence number: it
 * is sent for every refused EAGER fragment and carries the refusal.
 */
struct mxd_seq_hdr {
	uint32_t seq;		/*  0 the message's sequence number */
	uint8_t reason;		/*  4 NACK: enum mxd_nack_reason; else 0 */
	uint8_t pad0[3];	/*  5 zero */
	uint32_t session;	/*  8 the refused frame's dst_session: a NACK
				 *    only fails sends to the session it names */
	uint32_t pad1;		/* 12 zero */
};
_Static_assert(sizeof(struct mxd_seq_hdr) == 16, "seq header size");

/*
 * Large messages (rendezvous).  The sender announces the message with an
 * EAGER message flagged RNDV whose 16-byte payload is this descriptor; it
 * is matched in order like any message.  The receiver then pulls the data
 * in blocks (PULL), each answered by PULL_REP frames of 'frag' bytes
 * placed at their offset, and ends with NOTIFY, which completes the send.
 *
 * A message of an endpoint's face (another API on the engine: Portals,
 * whose header the receiver must read to decide where the data goes)
 * brings its first 'head' bytes along: they follow the descriptor in the
 * RNDV message (16 + head bytes, one fragment), and the receiver pulls
 * only the bytes after them.  MX's own sends carry none (head 0).
 */
struct mxd_rndv_desc {
	uint32_t total_len;	/*  0 length of the large message */
	uint32_t send_handle;	/*  4 names the send in PULL and NOTIFY */
	uint16_t frag_max;	/*  8 largest PULL_REP payload the sender sends */
	uint16_t head;		/* 10 bytes of the message that follow this
				 *    descriptor, not pulled (<= total_len,
				 *    MXD_RNDV_HEAD_MAX); 0: none */
	uint8_t pad0[4];	/* 12 zero */
};
_Static_assert(sizeof(struct mxd_rndv_desc) == 16, "rndv desc size");
#define MXD_RNDV_HEAD_MAX	112	/* a descriptor and its head: 128 */

/* MXD_T_PULL: bytes [offset, offset + length) of the send, in frames of
 * 'frag' bytes (the last one shorter). */
struct mxd_pull_hdr {
	uint32_t send_handle;	/*  0 from the descriptor */
	uint32_t recv_handle;	/*  4 the receiver's, echoed in replies */
	uint32_t offset;	/*  8 */
	uint32_t length;	/* 12 */
	uint16_t frag;		/* 16 payload of each reply frame */
	uint8_t pad0[6];	/* 18 zero */
};
_Static_assert(sizeof(struct mxd_pull_hdr) == 24, "pull header size");

/* MXD_T_PULL_REP: payload follows; its length is the frame's. */
struct mxd_pullrep_hdr {
	uint32_t recv_handle;	/*  0 from the PULL */
	uint32_t offset;	/*  4 message offset of the payload */
};
_Static_assert(sizeof(struct mxd_pullrep_hdr) == 8, "pull reply size");

/*
 * MXD_T_PACK: several whole messages to one partner in one frame, each
 * as it would travel alone in an EAGER frame of one fragment, with its
 * own sequence number, match information and flags; they are
 * acknowledged, retransmitted (the frame whole) and matched one by one.
 * The common header's flags carry ACK_VALID only (SYNC, RNDV and CTRL
 * are each record's own).  After the pack header come 'count' records,
 * each a struct mxd_pack_rec, then its 'len' bytes of data, then zeros
 * to the next multiple of 8 (MXD_PACK_ALIGN); the records fill the
 * frame's length exactly, and their sequence numbers rise.
 *
 *   +--------+----------+----------------+-------+----------+------+--
 *   | common | pack (8) | rec (16)       | data  | pad to 8 | rec  | ...
 *   +--------+----------+----------------+-------+----------+------+--
 */
struct mxd_pack_hdr {
	uint16_t count;		/*  0 records, 1..MXD_PACK_MAX */
	uint8_t pad0[6];	/*  2 zero */
};
_Static_assert(sizeof(struct mxd_pack_hdr) == 8, "pack header size");

struct mxd_pack_rec {
	uint32_t seq;		/*  0 the message's sequence number */
	uint16_t len;		/*  4 message length: the data that follows */
	uint8_t flags;		/*  6 MXD_F_SYNC, MXD_F_RNDV, MXD_F_CTRL, as
				 *    an EAGER frame's for this message */
	uint8_t pad0;		/*  7 zero */
	uint64_t match;		/*  8 match information (a notice's: kind
				 *    << 32 | value) */
};
_Static_assert(sizeof(struct mxd_pack_rec) == 16, "pack record size");

#define MXD_PACK_MAX	256	/* records per frame: the send window */
#define MXD_PACK_ALIGN	8
#define MXD_PACK_FLAGS	(MXD_F_SYNC | MXD_F_RNDV | MXD_F_CTRL)

/* Bytes a message of 'len' bytes takes in a PACK frame. */
static inline uint32_t
mxd_pack_rec_size(uint32_t len)
{
	return (uint32_t)sizeof(struct mxd_pack_rec) +
		((len + MXD_PACK_ALIGN - 1) & ~(uint32_t)(MXD_PACK_ALIGN - 1));
}

#define MXD_HDRS_LEN	(MXD_ETH_HLEN + sizeof(struct mxd_hdr))
#define MXD_EAGER_HLEN	(MXD_HDRS_LEN + sizeof(struct mxd_eager_hdr))

/* Why a frame was dropped by the parser; indexes the drop counters. */
enum mxd_drop {
	MXD_DROP_NONE = 0,
	MXD_DROP_SHORT,		/* shorter than the headers it claims */
	MXD_DROP_ETHERTYPE,	/* not ours (IPv6 ND on veth, ...) */
	MXD_DROP_VERSION,
	MXD_DROP_TYPE,
	MXD_DROP_LENGTH,	/* length field inconsistent with the type */
	MXD_DROP_FRAG,		/* fragment outside its message */
	MXD_DROP_ENDPOINT,	/* no such endpoint / stale session */
	MXD_DROP_FILTER,	/* filter mismatch */
	MXD_DROP_PEER,		/* unknown partner index or stale session */
	MXD_DROP_WINDOW,	/* sequence outside the receive window */
	MXD_DROP_DUP,		/* duplicate fragment */
	MXD_DROP_NOBUF,		/* no buffer to hold an early message */
	MXD_DROP_CSUM,		/* integrity check failed: corrupted */
	MXD_DROP_STALE,		/* an old session's, epoch's or dead pull's frame */
	MXD_DROP_LONG,		/* longer than a receive buffer (not the
				 * parser's: the link could not hold it) */
	MXD_DROP_MAX
};

/* The common header's fields, in host order: what a sender fills in and
 * what the parser returns. */
struct mxd_hdr_args {
	uint8_t type;
	uint8_t flags;
	uint8_t epoch;		/* low byte of the partner's epoch; 0 else */
	uint8_t src_ep;
	uint8_t dst_ep;
	uint16_t dst_peer;
	uint16_t src_peer;
	uint32_t filter;
	uint32_t src_session;
	uint32_t dst_session;
	uint32_t ack;
};

/* A parsed frame: pointers into the frame, fields in host order. */
struct mxd_pkt {
	const struct mxd_eth_hdr *eth;
	struct mxd_hdr_args h;	/* the common header */
	union {
		struct {
			uint64_t sack;	/* with MXD_F_SACK, else 0 */
			uint32_t nfrags; /* MXD_F_FRAGS records at
					  * 'payload', checked */
		} ack;
		struct {
			uint32_t seq;
			uint32_t msg_len;
			uint64_t match;
			uint32_t frag_off;
			uint32_t frag_len;
			uint16_t frag_max;
			uint8_t frag_idx;
			uint8_t frag_count;
		} eager;
		struct {
			uint64_t src_nic;
			uint32_t conn_id;
			uint32_t src_filter;
			uint8_t status;
			uint8_t caps;
			uint16_t mtu;	/* the MTU's bits only */
			uint32_t epoch;
			uint64_t dst_nic;
			uint8_t slot;	/* the sender's (0: none said) */
		} conn;
		struct {
			uint64_t src_nic;
			uint8_t query;
			char name[MXD_NAME_LEN];
			char want[MXD_NAME_LEN];
		} disc;
		struct {
			uint32_t seq;
			uint8_t reason;
			uint32_t session;
		} seq;
		struct {
			uint32_t send_handle;
			uint32_t recv_handle;
			uint32_t offset;
			uint32_t length;
			uint16_t frag;
		} pull;
		struct {
			uint32_t recv_handle;
			uint32_t offset;
			uint32_t len;
		} rep;
		struct {
			uint32_t count;		/* records, checked */
			uint32_t first_seq;	/* the first record's */
		} pack;		/* records at 'payload' */
	} u;
	const uint8_t *payload;	/* eager fragment or pull reply data; a
				 * PACK's first record; an ACK's first
				 * fragments record */
	/* A PULL_REP from mxd_wire_parse_lazy: its check is not verified
	 * yet; 'crc' is the CRC register over the bytes before the payload
	 * (csum field zeroed), 'claimed' the check the frame carries. */
	uint8_t unchecked;
	uint32_t crc;
	uint32_t claimed;
};

/* Big-endian accessors that never assume alignment. */
static inline void
mxd_put16(void *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}

static inline void
mxd_put32(void *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static inline void
mxd_put64(void *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

static inline uint16_t
mxd_get16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return __builtin_bswap16(v);
}

static inline uint32_t
mxd_get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

static inline uint64_t
mxd_get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

_Static_assert(MXD_MTU_MIN == sizeof(struct mxd_hdr) +
		sizeof(struct mxd_eager_hdr) + sizeof(struct mxd_rndv_desc),
		"an eager fragment of MXD_MTU_MIN holds a descriptor");

/* Wrapping sequence comparison: a before b. */
static inline int
mxd_seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* NIC id <-> MAC: the MAC in the low 48 bits, first octet most significant. */
static inline uint64_t
mxd_mac_to_nic(const uint8_t mac[MXD_ETH_ALEN])
{
	uint64_t v = 0;

	for (int i = 0; i < MXD_ETH_ALEN; i++)
		v = (v << 8) | mac[i];
	return v;
}

static inline void
mxd_nic_to_mac(uint64_t nic, uint8_t mac[MXD_ETH_ALEN])
{
	for (int i = MXD_ETH_ALEN - 1; i >= 0; i--, nic >>= 8)
		mac[i] = (uint8_t)nic;
}

/* Number of fragments a message of 'len' bytes takes with 'frag_max'.
 * A message of one (every small one) costs no division (some 20 to 40
 * cycles' wait on the way of every message sent). */
static inline uint32_t
mxd_frag_count(uint32_t len, uint32_t frag_max)
{
	return len <= frag_max ? 1 : (len + frag_max - 1) / frag_max;
}

/* Rewrites a frame's Ethernet addresses (a frame moved to another port). */
static inline void
mxd_wire_set_macs(uint8_t *frame, const uint8_t dst[MXD_ETH_ALEN],
		const uint8_t src[MXD_ETH_ALEN])
{
	memcpy(frame + offsetof(struct mxd_eth_hdr, dst), dst, MXD_ETH_ALEN);
	memcpy(frame + offsetof(struct mxd_eth_hdr, src), src, MXD_ETH_ALEN);
}

/*
 * Writes the Ethernet and common headers at 'frame'; 'length' is the number
 * of bytes after the common header.  Returns the size written (MXD_HDRS_LEN).
 * Inline, as the eager header's: every frame sent is written by them, and
 * the caller's arguments then go straight to the frame.
 */
static inline size_t
mxd_wire_put_hdr(uint8_t *frame, const uint8_t dst[MXD_ETH_ALEN],
		const uint8_t src[MXD_ETH_ALEN],
		const struct mxd_hdr_args *a, uint16_t length)
{
	uint8_t *h = frame + MXD_ETH_HLEN;

	mxd_wire_set_macs(frame, dst, src);
	mxd_put16(frame + offsetof(struct mxd_eth_hdr, ethertype),
			MXD_ETHERTYPE);
	h[offsetof(struct mxd_hdr, version)] = MXD_WIRE_VERSION;
	h[offsetof(struct mxd_hdr, type)] = a->type;
	h[offsetof(struct mxd_hdr, flags)] = a->flags;
	h[offsetof(struct mxd_hdr, epoch)] = a->epoch;
	h[offsetof(struct mxd_hdr, src_ep)] = a->src_ep;
	h[offsetof(struct mxd_hdr, dst_ep)] = a->dst_ep;
	mxd_put16(h + offsetof(struct mxd_hdr, dst_peer), a->dst_peer);
	mxd_put16(h + offsetof(struct mxd_hdr, src_peer), a->src_peer);
	mxd_put16(h + offsetof(struct mxd_hdr, length), length);
	mxd_put32(h + offsetof(struct mxd_hdr, filter), a->filter);
	mxd_put32(h + offsetof(struct mxd_hdr, src_session), a->src_session);
	mxd_put32(h + offsetof(struct mxd_hdr, dst_session), a->dst_session);
	mxd_put32(h + offsetof(struct mxd_hdr, ack), a->ack);
	mxd_put32(h + offsetof(struct mxd_hdr, csum), 0);
	return MXD_HDRS_LEN;
}

/* Sets the flags, length and ack fields of a common header (a copy of a
 * header written by mxd_wire_put_hdr with its check field zero). */
static inline void
mxd_wire_hdr_set(uint8_t *frame, uint8_t flags, uint16_t length,
		uint32_t ack)
{
	uint8_t *h = frame + MXD_ETH_HLEN;

	h[offsetof(struct mxd_hdr, flags)] = flags;
	mxd_put16(h + offsetof(struct mxd_hdr, length), length);
	mxd_put32(h + offsetof(struct mxd_hdr, ack), ack);
}

/* Sets the length field of a header written by mxd_wire_put_hdr (a copy of
 * another frame's header, for a frame of another length). */
void mxd_wire_set_length(uint8_t *frame, uint16_t length);
/* Sets flags (MXD_F_*) in a frame's common header, before sealing. */
void mxd_wire_add_flags(uint8_t *frame, uint8_t flags);

/* Writes an eager header (after the common header) and returns its size. */
static inline size_t
mxd_wire_put_eager(uint8_t *p, uint32_t seq, uint32_t msg_len, uint64_t match,
		uint16_t frag_max, uint8_t frag_idx)
{
	mxd_put32(p + offsetof(struct mxd_eager_hdr, seq), seq);
	mxd_put32(p + offsetof(struct mxd_eager_hdr, msg_len), msg_len);
	mxd_put64(p + offsetof(struct mxd_eager_hdr, match), match);
	mxd_put32(p + offsetof(struct mxd_eager_hdr, frag_off),
			(uint32_t)frag_idx * frag_max);
	p[offsetof(struct mxd_eager_hdr, frag_idx)] = frag_idx;
	p[offsetof(struct mxd_eager_hdr, frag_count)] =
		(uint8_t)mxd_frag_count(msg_len, frag_max);
	mxd_put16(p + offsetof(struct mxd_eager_hdr, frag_max), frag_max);
	return sizeof(struct mxd_eager_hdr);
}

/* Writes a CONN_REQ/REP header (after the common header), returns its size. */
size_t mxd_wire_put_conn(uint8_t *p, uint64_t src_nic, uint64_t dst_nic,
		uint32_t conn_id, uint32_t src_filter, uint8_t status,
		uint32_t epoch, uint16_t mtu, uint8_t caps);

/* Writes a PACK header of 'count' records (after the common header). */
size_t mxd_wire_put_pack(uint8_t *p, uint16_t count);
/* Writes one record's header; its data follows, then the padding
 * (mxd_wire_pack_pad).  Returns the header's size.  Inline, as the
 * padding: every message of a PACK frame takes them. */
static inline size_t
mxd_wire_put_pack_rec(uint8_t *p, uint32_t seq, uint16_t len, uint8_t flags,
		uint64_t match)
{
	mxd_put32(p + offsetof(struct mxd_pack_rec, seq), seq);
	mxd_put16(p + offsetof(struct mxd_pack_rec, len), len);
	p[offsetof(struct mxd_pack_rec, flags)] = flags;
	p[offsetof(struct mxd_pack_rec, pad0)] = 0;
	mxd_put64(p + offsetof(struct mxd_pack_rec, match), match);
	return sizeof(struct mxd_pack_rec);
}

/* Zeros the padding after a record's 'len' bytes at p; returns its
 * size.  Called before the data is written (mxd_wire_pack_zero) or after
 * (mxd_wire_pack_pad). */
static inline size_t
mxd_wire_pack_pad(uint8_t *p, uint32_t len)
{
	size_t pad = mxd_pack_rec_size(len) - sizeof(struct mxd_pack_rec) - len;

	memset(p + len, 0, pad);
	return pad;
}

/* The same before the data: the padded data's last word zeroed, the
 * data then written over its start (one store, not a call). */
static inline size_t
mxd_wire_pack_zero(uint8_t *p, uint32_t len)
{
	static const uint64_t zero;
	size_t padded = (len + MXD_PACK_ALIGN - 1) & ~(size_t)7;

	if (padded != 0)
		memcpy(p + padded - 8, &zero, 8);
	return padded - len;
}

/*
 * Reading a PACK frame that mxd_wire_parse accepted: 'msg' starts as a
 * copy of the frame's pkt (mxd_wire_pack_first), and each call of
 * mxd_wire_pack_next makes it the next record, read as the one EAGER
 * fragment of its message (frag_count 1, frag_max MXD_PACK_FRAG_MAX),
 * its flags in msg->h.flags.  The records were checked by the parser.
 */
#define MXD_PACK_FRAG_MAX	0xffff
const uint8_t *mxd_wire_pack_first(const struct mxd_pkt *pkt,
		struct mxd_pkt *msg);
const uint8_t *mxd_wire_pack_next(const uint8_t *rec, struct mxd_pkt *msg);

/* The SACK bitmap of an ACK flagged MXD_F_SACK. */
size_t mxd_wire_put_sack(uint8_t *p, uint64_t bits);
/* Record i of an ACK flagged MXD_F_FRAGS (written: i < MXD_FRAGS_MAX;
 * read: i < pkt->u.ack.nfrags). */
size_t mxd_wire_put_frags(uint8_t *p, unsigned i, uint32_t seq,
		uint64_t have);
void mxd_wire_get_frags(const struct mxd_pkt *pkt, unsigned i,
		uint32_t *seq, uint64_t *have);
size_t mxd_wire_put_seq(uint8_t *p, uint32_t seq, uint8_t reason,
		uint32_t session);
size_t mxd_wire_put_rndv(uint8_t *p, uint32_t total_len, uint32_t send_handle,
		uint16_t frag_max, uint16_t head);
/* Reads a descriptor (16 bytes and its head, length-checked as a
 * message). */
void mxd_wire_get_rndv(const uint8_t *p, struct mxd_rndv_desc *d);
size_t mxd_wire_put_pull(uint8_t *p, uint32_t send_handle,
		uint32_t recv_handle, uint32_t offset, uint32_t length,
		uint16_t frag);
size_t mxd_wire_put_pullrep(uint8_t *p, uint32_t recv_handle,
		uint32_t offset);

size_t mxd_wire_put_disc(uint8_t *p, uint64_t src_nic, int query,
		const char *name, const char *want);

/*
 * Writes the integrity check of a finished frame (every byte written, the
 * common header's length final).  Done once, just before the frame is
 * queued; a retransmission sends the sealed frame unchanged.
 */
void mxd_wire_seal(uint8_t *frame);

/*
 * The same for a frame whose bytes were fed to a CRC register as they
 * were written (csum field zero): 'crc' is that register after the last
 * byte the length covers (mxd_crc_update / mxd_crc_copy from
 * MXD_CRC_INIT), so the data is not read a second time.
 */
static inline void
mxd_wire_seal_crc(uint8_t *frame, uint32_t crc)
{
	mxd_put32(frame + MXD_ETH_HLEN + offsetof(struct mxd_hdr, csum), ~crc);
}

/*
 * Validates a received frame of 'len' bytes and decodes it into 'pkt'.
 * Returns MXD_DROP_NONE, or the reason the frame must be dropped.  The
 * integrity check is verified before any field past the length is
 * trusted; the csum field is zeroed while it is computed and then put
 * back, so the frame must be writable.
 */
enum mxd_drop mxd_wire_parse(uint8_t *frame, size_t len,
		struct mxd_pkt *pkt);

/*
 * The same, except that a PULL_REP's check is left to whoever copies its
 * payload, so that the data is read once (pkt->unchecked, pkt->crc): it
 * feeds the payload to pkt->crc in order, normally while copying it
 * (mxd_crc_copy), and mxd_wire_payload_ok() says whether the frame is
 * intact.  Until then nothing of the frame may take effect beyond bytes
 * written where its payload alone belongs; mxd_wire_check() verifies
 * without copying (for frames dropped anyway: counted by the right
 * reason).  Every other type is verified here, as by mxd_wire_parse.
 */
enum mxd_drop mxd_wire_parse_lazy(uint8_t *frame, size_t len,
		struct mxd_pkt *pkt);
int mxd_wire_payload_ok(const struct mxd_pkt *pkt, uint32_t crc);
int mxd_wire_check(const struct mxd_pkt *pkt);

/*
 * A plain message: an EAGER frame of one fragment whose header flags are
 * ACK_VALID alone, the most common frame.  mxd_wire_plain() checks such a
 * frame as mxd_wire_parse() does (Ethernet type, version, length, the
 * integrity check, the fragment's fields), without decoding the rest of
 * its header: it returns 1 with *m filled, -1 when the frame looks like
 * one but its check fails (drop: bad checksum), and 0 for any other frame
 * or a plain one that breaks another rule, which mxd_wire_parse_lazy()
 * then takes (and counts by its reason).  mxd_wire_plain_pkt() decodes a
 * frame it accepted into a struct mxd_pkt, as mxd_wire_parse() would,
 * checking nothing again (the frame alone: *m may stay in registers).
 */
struct mxd_plain {
	const uint8_t *hdr;	/* the common header (frame + MXD_ETH_HLEN) */
	const uint8_t *payload;
	uint64_t match;
	uint32_t seq;
	uint32_t len;		/* the message's: the fragment's */
	uint32_t ack;
};

void mxd_wire_plain_pkt(const uint8_t *frame, struct mxd_pkt *pkt);

/* (Inline: every message's frame is first looked at here.) */
static inline int
mxd_wire_plain(const uint8_t *frame, size_t len, struct mxd_plain *m)
{
	const uint8_t *h = frame + MXD_ETH_HLEN;
	const uint8_t *e = h + sizeof(struct mxd_hdr);
	const size_t csum_off = MXD_ETH_HLEN + offsetof(struct mxd_hdr, csum);
	uint32_t body, msg_len, head, frag_max;
	uint64_t place;

	if (len < MXD_EAGER_HLEN ||
			mxd_get16(frame + offsetof(struct mxd_eth_hdr,
					ethertype)) != MXD_ETHERTYPE)
		return 0;
	/* version, type EAGER, flags ACK_VALID alone (the epoch is not) */
	memcpy(&head, h, 4);
	if ((head & 0x00ffffffu) != (MXD_WIRE_VERSION |
				(uint32_t)MXD_T_EAGER << 8 |
				(uint32_t)MXD_F_ACK_VALID << 16))
		return 0;
	body = mxd_get16(h + offsetof(struct mxd_hdr, length));
	if (body < sizeof(struct mxd_eager_hdr) || body > len - MXD_HDRS_LEN)
		return 0;
	/* One fragment: offset 0, index 0, count 1 (frag_off, frag_idx,
	 * frag_count, in the order of the header), and frag_max not 0. */
	memcpy(&place, e + offsetof(struct mxd_eager_hdr, frag_off), 8);
	frag_max = mxd_get16(e + offsetof(struct mxd_eager_hdr, frag_max));
	msg_len = mxd_get32(e + offsetof(struct mxd_eager_hdr, msg_len));
	if ((place & 0x0000ffffffffffffull) != 0x0000010000000000ull ||
			frag_max == 0 || msg_len > frag_max ||
			msg_len != body - sizeof(struct mxd_eager_hdr))
		return 0;
	/* The check, with its own field read as zero. */
	if (~mxd_crc_frame(frame, MXD_HDRS_LEN + body) !=
			mxd_get32(frame + csum_off))
		return -1;
	m->hdr = h;
	m->payload = e + sizeof(struct mxd_eager_hdr);
	m->match = mxd_get64(e + offsetof(struct mxd_eager_hdr, match));
	m->seq = mxd_get32(e + offsetof(struct mxd_eager_hdr, seq));
	m->len = msg_len;
	m->ack = mxd_get32(h + offsetof(struct mxd_hdr, ack));
	return 1;
}

/*
 * A bare ACK: an ACK frame whose flags are ACK_VALID alone (no SACK,
 * fragments, BYE or PING) and whose body is empty, the usual answer to a
 * stream of messages.  mxd_wire_bare_ack() checks it as mxd_wire_parse()
 * does (Ethernet type, version, length, the integrity check) and returns
 * 1 if it is one, intact; 0 for any other frame, or one that breaks a
 * rule, which mxd_wire_parse_lazy() then takes (and counts).  The ack is
 * the common header's (mxd_get32 at offsetof(struct mxd_hdr, ack)).
 */
static inline int
mxd_wire_bare_ack(const uint8_t *frame, size_t len)
{
	const uint8_t *h = frame + MXD_ETH_HLEN;
	const size_t csum_off = MXD_ETH_HLEN + offsetof(struct mxd_hdr, csum);
	uint32_t head;

	if (len < MXD_HDRS_LEN ||
			mxd_get16(frame + offsetof(struct mxd_eth_hdr,
					ethertype)) != MXD_ETHERTYPE)
		return 0;
	memcpy(&head, h, 4);
	return (head & 0x00ffffffu) == (MXD_WIRE_VERSION |
				(uint32_t)MXD_T_ACK << 8 |
				(uint32_t)MXD_F_ACK_VALID << 16) &&
		mxd_get16(h + offsetof(struct mxd_hdr, length)) == 0 &&
		~mxd_crc_frame(frame, MXD_HDRS_LEN) ==
		mxd_get32(frame + csum_off);
}

/* Human-readable name of a drop reason (counter label). */
const char *mxd_drop_name(enum mxd_drop d);

#endif /* MXD_WIRE_H */
