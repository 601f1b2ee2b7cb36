/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals header on the wire, version 1 (MXD_PTL_WIRE_VERSION).
 *
 * Each Portals message (a put, a get, an acknowledgement, a reply) is one
 * message of the engine between two endpoints, and this 96-byte header is
 * the first part of its body; a put's data or a reply's follows it:
 *
 *   +----------------------------+-------------------------------------+
 *   | Portals header (96)        | data: PUT rlength bytes, REPLY      |
 *   |                            | mlength bytes, GET and ACK none     |
 *   +----------------------------+-------------------------------------+
 *
 * It carries what the 3.2 text's chapter 4 lists for each message: the
 * operation, the process that sends this message (the initiator of a put
 * or get, the target of an acknowledgement or reply) and its user, the
 * portal index, cookie, match bits, offset, the initiator's memory
 * descriptor, the lengths.  Acknowledgements and replies echo the
 * request's fields.  The descriptor goes as its handle, generation
 * included, so that an acknowledgement or reply that comes back after the
 * descriptor was released is recognised and dropped; op_cookie is the
 * initiator's transport's own name for the operation (its handle and
 * generation), echoed too.
 *
 * Every field is big-endian, at an offset that is a multiple of its
 * size.  A receiver calls mxd_ptl_wire_parse() once per message: it checks
 * the version, the kind, the flags the kind allows, the padding and the
 * lengths against the message's, and nothing after it checks them again.
 * This header is plain C: it includes nothing of DPDK or of lib/.
 */
#ifndef MXD_PORTALS_WIRE_H
#define MXD_PORTALS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define MXD_PTL_WIRE_VERSION	1

/* What a message is. */
enum mxd_ptl_kind {
	MXD_PTL_PUT = 1,	/* a put request and its data */
	MXD_PTL_GET = 2,	/* a get request */
	MXD_PTL_ACK = 3,	/* the acknowledgement of a put */
	MXD_PTL_REPLY = 4,	/* the answer to a get, with its data */
	MXD_PTL_KIND_MAX
};

/* Flags. */
#define MXD_PTL_F_ACK_REQ	0x01	/* PUT: acknowledge it (asked, and
					 * the initiator's descriptor has an
					 * event queue) */
#define MXD_PTL_F_DROPPED	0x02	/* REPLY: the target dropped the get
					 * (portal index, access control, no
					 * match): no data, mlength 0 */

/* The header as it travels. */
struct mxd_ptl_wire {
	uint8_t version;	/*  0 MXD_PTL_WIRE_VERSION */
	uint8_t kind;		/*  1 enum mxd_ptl_kind */
	uint8_t flags;		/*  2 MXD_PTL_F_*, as the kind allows */
	uint8_t pad0;		/*  3 zero */
	uint32_t pt_index;	/*  4 portal index (echoed) */
	uint64_t src_nid;	/*  8 the sender's node id */
	uint32_t src_pid;	/* 16 the sender's process id */
	uint32_t src_uid;	/* 20 the sender's user id */
	uint32_t src_jid;	/* 24 the sender's job id */
	uint32_t ac_index;	/* 28 PUT, GET: the cookie; else zero */
	uint64_t match_bits;	/* 32 match bits (echoed) */
	uint64_t offset;	/* 40 PUT, GET: the remote offset asked;
				 *    ACK, REPLY: the offset the target
				 *    used */
	uint64_t hdr_data;	/* 48 PUT: out-of-band data; else zero */
	uint64_t rlength;	/* 56 length requested (echoed) */
	uint64_t mlength;	/* 64 ACK, REPLY: length moved; else zero */
	uint64_t md_handle;	/* 72 the initiator's descriptor, with its
				 *    generation (echoed) */
	uint64_t op_cookie;	/* 80 the initiator transport's name for
				 *    the operation (echoed) */
	uint32_t link;		/* 88 the initiator's link of the
				 *    operation (echoed) */
	uint32_t pad1;		/* 92 zero */
};
_Static_assert(sizeof(struct mxd_ptl_wire) == 96, "portals header size");
_Static_assert(offsetof(struct mxd_ptl_wire, match_bits) == 32,
		"portals match_bits offset");
_Static_assert(offsetof(struct mxd_ptl_wire, md_handle) == 72,
		"portals md_handle offset");
_Static_assert(offsetof(struct mxd_ptl_wire, link) == 88,
		"portals link offset");

#define MXD_PTL_HLEN	((uint32_t)sizeof(struct mxd_ptl_wire))

/* The same fields in host order: what a sender fills in and what the
 * parser returns. */
struct mxd_ptl_hdr {
	uint8_t kind;
	uint8_t flags;
	uint32_t pt_index;
	uint64_t src_nid;
	uint32_t src_pid;
	uint32_t src_uid;
	uint32_t src_jid;
	uint32_t ac_index;
	uint64_t match_bits;
	uint64_t offset;
	uint64_t hdr_data;
	uint64_t rlength;
	uint64_t mlength;
	uint64_t md_handle;
	uint64_t op_cookie;
	uint32_t link;
};

/* Why a header was refused. */
enum mxd_ptl_bad {
	MXD_PTL_OK = 0,
	MXD_PTL_BAD_SHORT = 1,		/* fewer than MXD_PTL_HLEN bytes */
	MXD_PTL_BAD_VERSION = 2,
	MXD_PTL_BAD_KIND = 3,
	MXD_PTL_BAD_FLAGS = 4,		/* a flag the kind does not take */
	MXD_PTL_BAD_PAD = 5,		/* padding, or a field the kind
					 * leaves zero, is not */
	MXD_PTL_BAD_LENGTH = 6,		/* the lengths disagree with each
					 * other or with the message's */
	MXD_PTL_BAD_MAX
};

static inline void
mxd_ptl_be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
mxd_ptl_be64_put(uint8_t *p, uint64_t v)
{
	mxd_ptl_be32_put(p, (uint32_t)(v >> 32));
	mxd_ptl_be32_put(p + 4, (uint32_t)v);
}

static inline uint32_t
mxd_ptl_be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
mxd_ptl_be64_get(const uint8_t *p)
{
	return (uint64_t)mxd_ptl_be32_get(p) << 32 | mxd_ptl_be32_get(p + 4);
}

#define MXD_PTL_AT(f)	offsetof(struct mxd_ptl_wire, f)

/* Writes h as the MXD_PTL_HLEN bytes at buf (any alignment). */
static inline void
mxd_ptl_wire_encode(void *buf, const struct mxd_ptl_hdr *h)
{
	uint8_t *p = (uint8_t *)buf;

	p[0] = MXD_PTL_WIRE_VERSION;
	p[1] = h->kind;
	p[2] = h->flags;
	p[3] = 0;
	mxd_ptl_be32_put(p + MXD_PTL_AT(pt_index), h->pt_index);
	mxd_ptl_be64_put(p + MXD_PTL_AT(src_nid), h->src_nid);
	mxd_ptl_be32_put(p + MXD_PTL_AT(src_pid), h->src_pid);
	mxd_ptl_be32_put(p + MXD_PTL_AT(src_uid), h->src_uid);
	mxd_ptl_be32_put(p + MXD_PTL_AT(src_jid), h->src_jid);
	mxd_ptl_be32_put(p + MXD_PTL_AT(ac_index), h->ac_index);
	mxd_ptl_be64_put(p + MXD_PTL_AT(match_bits), h->match_bits);
	mxd_ptl_be64_put(p + MXD_PTL_AT(offset), h->offset);
	mxd_ptl_be64_put(p + MXD_PTL_AT(hdr_data), h->hdr_data);
	mxd_ptl_be64_put(p + MXD_PTL_AT(rlength), h->rlength);
	mxd_ptl_be64_put(p + MXD_PTL_AT(mlength), h->mlength);
	mxd_ptl_be64_put(p + MXD_PTL_AT(md_handle), h->md_handle);
	mxd_ptl_be64_put(p + MXD_PTL_AT(op_cookie), h->op_cookie);
	mxd_ptl_be32_put(p + MXD_PTL_AT(link), h->link);
	mxd_ptl_be32_put(p + MXD_PTL_AT(pad1), 0);
}

static inline void
mxd_ptl_wire_fields(const uint8_t *p, struct mxd_ptl_hdr *h)
{
	h->kind = p[1];
	h->flags = p[2];
	h->pt_index = mxd_ptl_be32_get(p + MXD_PTL_AT(pt_index));
	h->src_nid = mxd_ptl_be64_get(p + MXD_PTL_AT(src_nid));
	h->src_pid = mxd_ptl_be32_get(p + MXD_PTL_AT(src_pid));
	h->src_uid = mxd_ptl_be32_get(p + MXD_PTL_AT(src_uid));
	h->src_jid = mxd_ptl_be32_get(p + MXD_PTL_AT(src_jid));
	h->ac_index = mxd_ptl_be32_get(p + MXD_PTL_AT(ac_index));
	h->match_bits = mxd_ptl_be64_get(p + MXD_PTL_AT(match_bits));
	h->offset = mxd_ptl_be64_get(p + MXD_PTL_AT(offset));
	h->hdr_data = mxd_ptl_be64_get(p + MXD_PTL_AT(hdr_data));
	h->rlength = mxd_ptl_be64_get(p + MXD_PTL_AT(rlength));
	h->mlength = mxd_ptl_be64_get(p + MXD_PTL_AT(mlength));
	h->md_handle = mxd_ptl_be64_get(p + MXD_PTL_AT(md_handle));
	h->op_cookie = mxd_ptl_be64_get(p + MXD_PTL_AT(op_cookie));
	h->link = mxd_ptl_be32_get(p + MXD_PTL_AT(link));
}

/* The flags each kind takes. */
static inline uint8_t
mxd_ptl_kind_flags(uint8_t kind)
{
	return kind == MXD_PTL_PUT ? MXD_PTL_F_ACK_REQ :
		kind == MXD_PTL_REPLY ? MXD_PTL_F_DROPPED : 0;
}

/* The body bytes (after the header) a message of this header carries. */
static inline uint64_t
mxd_ptl_body_len(const struct mxd_ptl_hdr *h)
{
	return h->kind == MXD_PTL_PUT ? h->rlength :
		h->kind == MXD_PTL_REPLY ? h->mlength : 0;
}

/* Fields a kind leaves zero, and the lengths' agreement. */
static inline int
mxd_ptl_wire_check(const struct mxd_ptl_hdr *h)
{
	int request = h->kind == MXD_PTL_PUT || h->kind == MXD_PTL_GET;

	if ((!request && h->ac_index != 0) ||
			(h->kind != MXD_PTL_PUT && h->hdr_data != 0))
		return -MXD_PTL_BAD_PAD;
	if (request ? h->mlength != 0 : h->mlength > h->rlength)
		return -MXD_PTL_BAD_LENGTH;
	if ((h->flags & MXD_PTL_F_DROPPED) && h->mlength != 0)
		return -MXD_PTL_BAD_LENGTH;
	return 0;
}

/*
 * Parses the header at buf (avail bytes there) of a message of msg_len
 * bytes in all, header included (the engine may know a large message's
 * length before its body has come).  Returns 0 with *h filled, or
 * -MXD_PTL_BAD_*; *h is not to be used then.
 */
static inline int
mxd_ptl_wire_parse(const void *buf, size_t avail, uint64_t msg_len,
		struct mxd_ptl_hdr *h)
{
	const uint8_t *p = (const uint8_t *)buf;
	int rc;

	if (avail < MXD_PTL_HLEN || msg_len < MXD_PTL_HLEN)
		return -MXD_PTL_BAD_SHORT;
	if (p[0] != MXD_PTL_WIRE_VERSION)
		return -MXD_PTL_BAD_VERSION;
	if (p[1] == 0 || p[1] >= MXD_PTL_KIND_MAX)
		return -MXD_PTL_BAD_KIND;
	if (p[2] & ~mxd_ptl_kind_flags(p[1]))
		return -MXD_PTL_BAD_FLAGS;
	if (p[3] != 0 || mxd_ptl_be32_get(p + MXD_PTL_AT(pad1)) != 0)
		return -MXD_PTL_BAD_PAD;
	mxd_ptl_wire_fields(p, h);
	rc = mxd_ptl_wire_check(h);
	if (rc != 0)
		return rc;
	if (msg_len - MXD_PTL_HLEN != mxd_ptl_body_len(h))
		return -MXD_PTL_BAD_LENGTH;
	return 0;
}

#undef MXD_PTL_AT

#endif /* MXD_PORTALS_WIRE_H */
