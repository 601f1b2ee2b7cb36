/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals header on the wire, version 2 (MXD_PTL_WIRE_VERSION).
 *
 * Each Portals message (a put, a get, an acknowledgement, a reply) is one
 * message of the engine between two endpoints, and this header is the
 * first part of its body; a put's data or a reply's follows it:
 *
 *   +------------------------------+---------------------------------+
 *   | Portals header (24 to 72)    | data: a PUT's, a REPLY's; GET   |
 *   |                              | and ACK none                    |
 *   +------------------------------+---------------------------------+
 *
 * It carries what the 3.2 text's chapter 4 lists for each message, less
 * what the engine knows already: the sending process (the engine's
 * partner the message came from: its node and process ids are not sent)
 * and the data's length (a PUT's rlength, a REPLY's mlength: what the
 * message holds after the header).  A fixed part of 16 bytes, then
 * 8-byte words, only those the kind uses, each where the order of
 * enum mxd_ptl_word puts it:
 *
 *    0       1       2               4                               8
 *   +-------+-------+---------------+-------------------------------+
 *   | vk    | flags | pt_index      | uid                           |
 *   +-------+-------+---------------+-------------------------------+
 *   | jid                           | ac_index      | zero          |
 *   +-------------------------------+---------------+---------------+
 *   | words: match_bits, rlength, mlength, offset, hdr_data,        |
 *   | md_handle, link, op_cookie (as the kind and the flags say)    |
 *   +---------------------------------------------------------------+
 *
 *   kind    words always           words by flag
 *   PUT     match_bits             offset (OFFSET), hdr_data (DATA),
 *                                  md_handle and link (ACK_REQ),
 *                                  op_cookie (COOKIE, with ACK_REQ)
 *   GET     match_bits, rlength,   offset (OFFSET)
 *           op_cookie
 *   ACK     match_bits, rlength,   offset (OFFSET), op_cookie (COOKIE)
 *           mlength, md_handle,
 *           link
 *   REPLY   op_cookie              none (DROPPED: no data)
 *
 * A word left out is 0.  So an 8-byte put with no offset, no hdr_data and
 * no ACK asked is 24 + 8 bytes, one with hdr_data (a ping-pong's
 * sequence) 32 + 8.  Acknowledgements and replies echo what their
 * initiator needs for its events: the descriptor goes as its handle,
 * generation included, so that an acknowledgement that comes back after
 * the descriptor was released is recognised and dropped; op_cookie is
 * the initiator's transport's own name for the operation (its handle
 * and generation), which a reply always echoes and an acknowledgement
 * when the put carried one.
 *
 * A message that goes by rendezvous carries its header in the
 * announcement, the engine's 'head' of MXD_PTL_HEAD bytes: its header is
 * padded with zeros to that length, and its data starts there.
 *
 * Byte 0 says the version and the kind at once (vk); every field is
 * big-endian, at an offset that is a multiple of its size.  A receiver
 * calls mxd_ptl_wire_parse() once per message: it checks the version and
 * kind, the flags the kind takes, the zero fields and padding, and the
 * lengths against the message's, and nothing after it checks them
 * again.  This header is plain C: it includes nothing of DPDK or of lib/.
 */
#ifndef MXD_PORTALS_WIRE_H
#define MXD_PORTALS_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MXD_PTL_WIRE_VERSION	2

/* What a message is: the low 4 bits of vk. */
enum mxd_ptl_kind {
	MXD_PTL_PUT = 1,	/* a put request and its data */
	MXD_PTL_GET = 2,	/* a get request */
	MXD_PTL_ACK = 3,	/* the acknowledgement of a put */
	MXD_PTL_REPLY = 4,	/* the answer to a get, with its data */
	MXD_PTL_KIND_MAX
};

/* Byte 0 of a header of this kind. */
#define MXD_PTL_VK(kind)	((uint8_t)(MXD_PTL_WIRE_VERSION << 4 | (kind)))

/* Flags (byte 1): what the message asks, and which words it carries. */
#define MXD_PTL_F_ACK_REQ	0x01	/* PUT: acknowledge it (asked, and
					 * the initiator's descriptor has an
					 * event queue): md_handle and link
					 * follow */
#define MXD_PTL_F_DROPPED	0x02	/* REPLY: the target dropped the get
					 * (portal index, access control, no
					 * match): no data */
#define MXD_PTL_F_OFFSET	0x04	/* PUT, GET, ACK: the offset word */
#define MXD_PTL_F_DATA		0x08	/* PUT: the hdr_data word */
#define MXD_PTL_F_COOKIE	0x10	/* PUT asking an ACK, ACK: the
					 * op_cookie word */
/* The flags that say words, which the encoder sets from the values. */
#define MXD_PTL_F_WORDS	(MXD_PTL_F_OFFSET | MXD_PTL_F_DATA | \
		MXD_PTL_F_COOKIE)

/* The fixed part of every header. */
struct mxd_ptl_wire {
	uint8_t vk;		/*  0 MXD_PTL_VK(kind) */
	uint8_t flags;		/*  1 MXD_PTL_F_*, as the kind allows */
	uint16_t pt_index;	/*  2 PUT, GET: the portal index (an index
				 *    above 0xfffe goes as 0xffff); ACK:
				 *    echoed; REPLY: zero */
	uint32_t uid;		/*  4 the sender's user id */
	uint32_t jid;		/*  8 the sender's job id */
	uint16_t ac_index;	/* 12 PUT, GET: the cookie (access control
				 *    entry; above 0xfffe as 0xffff); else
				 *    zero */
	uint16_t pad;		/* 14 zero */
	/* 16: the words, 8 bytes each, in the order of enum mxd_ptl_word */
};
_Static_assert(sizeof(struct mxd_ptl_wire) == 16, "portals header size");
_Static_assert(offsetof(struct mxd_ptl_wire, uid) == 4, "portals uid");
_Static_assert(offsetof(struct mxd_ptl_wire, ac_index) == 12,
		"portals ac_index");

/* The words after the fixed part, in their order on the wire. */
enum mxd_ptl_word {
	MXD_PTL_W_MATCH,	/* match_bits: PUT, GET; ACK echoed */
	MXD_PTL_W_RLENGTH,	/* GET: the length asked; ACK echoed */
	MXD_PTL_W_MLENGTH,	/* ACK: the length the target took */
	MXD_PTL_W_OFFSET,	/* PUT, GET: the remote offset asked; ACK:
				 * the offset the target used */
	MXD_PTL_W_DATA,		/* PUT: hdr_data */
	MXD_PTL_W_MD,		/* PUT asking an ACK: the initiator's
				 * descriptor, with its generation; ACK
				 * echoed */
	MXD_PTL_W_LINK,		/* the same: the initiator's link of the
				 * put (upper 4 bytes), zero (lower 4) */
	MXD_PTL_W_COOKIE,	/* the initiator's name for the operation
				 * (GET, REPLY; PUT and ACK by flag) */
	MXD_PTL_W_COUNT
};

#define MXD_PTL_HFIX	((uint32_t)sizeof(struct mxd_ptl_wire))
/* The longest header, an ACK with every word it takes (all but
 * hdr_data's), and the length of a header padded for a rendezvous (the
 * engine's head). */
#define MXD_PTL_HLEN_MAX	(MXD_PTL_HFIX + 8 * (MXD_PTL_W_COUNT - 1))
#define MXD_PTL_HEAD		MXD_PTL_HLEN_MAX
_Static_assert(MXD_PTL_HLEN_MAX == 72, "portals longest header");
/* Portal and access control indexes beyond 16 bits. */
#define MXD_PTL_INDEX_BEYOND	0xffffu

/* The same fields in host order: what a sender fills in and what the
 * parser returns (src_nid and src_pid are the receiver's to set: the
 * partner the message came from; rlength of a PUT and mlength of a
 * REPLY, the data's length, are the parser's). */
struct mxd_ptl_hdr {
	uint8_t kind;
	uint8_t flags;		/* ACK_REQ, DROPPED; the parser's: as sent */
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
	MXD_PTL_BAD_SHORT = 1,		/* fewer bytes than the header says */
	MXD_PTL_BAD_VERSION = 2,
	MXD_PTL_BAD_KIND = 3,
	MXD_PTL_BAD_FLAGS = 4,		/* a flag the kind does not take */
	MXD_PTL_BAD_PAD = 5,		/* padding, or a field the kind
					 * leaves zero, is not */
	MXD_PTL_BAD_LENGTH = 6,		/* the lengths disagree with each
					 * other or with the message's */
	MXD_PTL_BAD_MAX
};

#define MXD_PTL_WBIT(w)	(1u << MXD_PTL_W_##w)

/* The words a kind always carries. */
static inline unsigned
mxd_ptl_kind_words(uint8_t kind)
{
	switch (kind) {
	case MXD_PTL_PUT:
		return MXD_PTL_WBIT(MATCH);
	case MXD_PTL_GET:
		return MXD_PTL_WBIT(MATCH) | MXD_PTL_WBIT(RLENGTH) |
			MXD_PTL_WBIT(COOKIE);
	case MXD_PTL_ACK:
		return MXD_PTL_WBIT(MATCH) | MXD_PTL_WBIT(RLENGTH) |
			MXD_PTL_WBIT(MLENGTH) | MXD_PTL_WBIT(MD) |
			MXD_PTL_WBIT(LINK);
	default:
		return MXD_PTL_WBIT(COOKIE);
	}
}

/* The flags each kind takes. */
static inline uint8_t
mxd_ptl_kind_flags(uint8_t kind)
{
	switch (kind) {
	case MXD_PTL_PUT:
		return MXD_PTL_F_ACK_REQ | MXD_PTL_F_OFFSET | MXD_PTL_F_DATA |
			MXD_PTL_F_COOKIE;
	case MXD_PTL_GET:
		return MXD_PTL_F_OFFSET;
	case MXD_PTL_ACK:
		return MXD_PTL_F_OFFSET | MXD_PTL_F_COOKIE;
	default:
		return MXD_PTL_F_DROPPED;
	}
}

/* The words of a header of this kind and flags. */
static inline unsigned
mxd_ptl_words(uint8_t kind, uint8_t flags)
{
	unsigned w = mxd_ptl_kind_words(kind);

	if (flags & MXD_PTL_F_OFFSET)
		w |= MXD_PTL_WBIT(OFFSET);
	if (flags & MXD_PTL_F_DATA)
		w |= MXD_PTL_WBIT(DATA);
	if (flags & MXD_PTL_F_ACK_REQ)
		w |= MXD_PTL_WBIT(MD) | MXD_PTL_WBIT(LINK);
	if (flags & MXD_PTL_F_COOKIE)
		w |= MXD_PTL_WBIT(COOKIE);
	return w;
}

/* The flags h is sent with: its own (ACK_REQ, DROPPED, as its kind
 * takes them) and those of the words its values need. */
static inline uint8_t
mxd_ptl_wire_flags(const struct mxd_ptl_hdr *h)
{
	uint8_t f = h->flags & (MXD_PTL_F_ACK_REQ | MXD_PTL_F_DROPPED);

	if (h->offset != 0 && h->kind != MXD_PTL_REPLY)
		f |= MXD_PTL_F_OFFSET;
	if (h->kind == MXD_PTL_PUT && h->hdr_data != 0)
		f |= MXD_PTL_F_DATA;
	if (h->op_cookie != 0 && (h->kind == MXD_PTL_ACK ||
				(h->flags & MXD_PTL_F_ACK_REQ)))
		f |= MXD_PTL_F_COOKIE;
	return f & mxd_ptl_kind_flags(h->kind);
}

static inline uint32_t
mxd_ptl_words_len(unsigned words)
{
	return MXD_PTL_HFIX + 8 * (uint32_t)__builtin_popcount(words);
}

/* The length of h's header on the wire (not padded). */
static inline uint32_t
mxd_ptl_wire_len(const struct mxd_ptl_hdr *h)
{
	return mxd_ptl_words_len(mxd_ptl_words(h->kind,
				mxd_ptl_wire_flags(h)));
}

/* ---- big-endian fields at any alignment ---- */

static inline void
mxd_ptl_be16_put(uint8_t *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}

static inline void
mxd_ptl_be32_put(uint8_t *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static inline void
mxd_ptl_be64_put(uint8_t *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

static inline uint16_t
mxd_ptl_be16_get(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return __builtin_bswap16(v);
}

static inline uint32_t
mxd_ptl_be32_get(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

static inline uint64_t
mxd_ptl_be64_get(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

static inline uint16_t
mxd_ptl_index16(uint32_t i)
{
	return i < MXD_PTL_INDEX_BEYOND ? (uint16_t)i :
		(uint16_t)MXD_PTL_INDEX_BEYOND;
}

/* Writes h's header at buf (any alignment; up to MXD_PTL_HLEN_MAX
 * bytes) and returns its length.  The words go as h's values need them:
 * a zero offset, hdr_data or op_cookie is left out. */
static inline uint32_t
mxd_ptl_wire_encode(void *buf, const struct mxd_ptl_hdr *h)
{
	uint8_t *p = (uint8_t *)buf, *w = p + MXD_PTL_HFIX;
	uint8_t f = mxd_ptl_wire_flags(h);
	unsigned m = mxd_ptl_words(h->kind, f);

	p[0] = MXD_PTL_VK(h->kind);
	p[1] = f;
	mxd_ptl_be16_put(p + 2, h->kind == MXD_PTL_REPLY ? 0 :
			mxd_ptl_index16(h->pt_index));
	mxd_ptl_be32_put(p + 4, h->src_uid);
	mxd_ptl_be32_put(p + 8, h->src_jid);
	mxd_ptl_be16_put(p + 12, h->kind == MXD_PTL_PUT ||
			h->kind == MXD_PTL_GET ?
			mxd_ptl_index16(h->ac_index) : 0);
	mxd_ptl_be16_put(p + 14, 0);
#define MXD_PTL_PUTW(word, v) do {					\
	if (m & MXD_PTL_WBIT(word)) {					\
		mxd_ptl_be64_put(w, (v));				\
		w += 8;							\
	}								\
} while (0)
	MXD_PTL_PUTW(MATCH, h->match_bits);
	MXD_PTL_PUTW(RLENGTH, h->rlength);
	MXD_PTL_PUTW(MLENGTH, h->mlength);
	MXD_PTL_PUTW(OFFSET, h->offset);
	MXD_PTL_PUTW(DATA, h->hdr_data);
	MXD_PTL_PUTW(MD, h->md_handle);
	MXD_PTL_PUTW(LINK, (uint64_t)h->link << 32);
	MXD_PTL_PUTW(COOKIE, h->op_cookie);
#undef MXD_PTL_PUTW
	return (uint32_t)(w - p);
}

/* Whether n bytes at p are all zero. */
static inline int
mxd_ptl_zero(const uint8_t *p, size_t n)
{
	uint8_t any = 0;

	for (size_t i = 0; i < n; i++)
		any |= p[i];
	return any == 0;
}

/* Reads the words m of the header at p into h. */
static inline void
mxd_ptl_wire_words(const uint8_t *p, unsigned m, struct mxd_ptl_hdr *h)
{
	const uint8_t *w = p + MXD_PTL_HFIX;

#define MXD_PTL_GETW(word, dst) do {					\
	(dst) = 0;							\
	if (m & MXD_PTL_WBIT(word)) {					\
		(dst) = mxd_ptl_be64_get(w);				\
		w += 8;							\
	}								\
} while (0)
	MXD_PTL_GETW(MATCH, h->match_bits);
	MXD_PTL_GETW(RLENGTH, h->rlength);
	MXD_PTL_GETW(MLENGTH, h->mlength);
	MXD_PTL_GETW(OFFSET, h->offset);
	MXD_PTL_GETW(DATA, h->hdr_data);
	MXD_PTL_GETW(MD, h->md_handle);
	h->link = 0;
	if (m & MXD_PTL_WBIT(LINK)) {
		h->link = mxd_ptl_be32_get(w);
		w += 8;
	}
	MXD_PTL_GETW(COOKIE, h->op_cookie);
#undef MXD_PTL_GETW
}

/* The offset of the LINK word's zero half, or 0 if there is none. */
static inline uint32_t
mxd_ptl_link_low(unsigned m)
{
	if (!(m & MXD_PTL_WBIT(LINK)))
		return 0;
	return MXD_PTL_HFIX + 4 + 8 * (uint32_t)__builtin_popcount(m &
			(MXD_PTL_WBIT(LINK) - 1));
}

/* The lengths of the kind against the data's ('body' bytes). */
static inline int
mxd_ptl_wire_lengths(struct mxd_ptl_hdr *h, uint64_t body)
{
	switch (h->kind) {
	case MXD_PTL_PUT:
		h->rlength = body;
		return 0;
	case MXD_PTL_REPLY:
		if ((h->flags & MXD_PTL_F_DROPPED) && body != 0)
			return -MXD_PTL_BAD_LENGTH;
		h->mlength = body;
		return 0;
	case MXD_PTL_ACK:
		return body == 0 && h->mlength <= h->rlength ? 0 :
			-MXD_PTL_BAD_LENGTH;
	default:
		return body == 0 ? 0 : -MXD_PTL_BAD_LENGTH;
	}
}

/*
 * Parses the header at buf (avail bytes there) of a message of msg_len
 * bytes in all, header included (the engine may know a large message's
 * length before its data has come).  'padded': the header is padded to
 * MXD_PTL_HEAD bytes (a message that came by rendezvous), its data
 * starting there.  Returns where the data starts (the header's length,
 * or MXD_PTL_HEAD), with *h filled (src_nid and src_pid 0), or
 * -MXD_PTL_BAD_*: *h is not to be used then.
 */
static inline int
mxd_ptl_wire_parse(const void *buf, size_t avail, uint64_t msg_len,
		int padded, struct mxd_ptl_hdr *h)
{
	const uint8_t *p = (const uint8_t *)buf;
	uint32_t hl, at, low;
	unsigned m;
	uint8_t kind;

	if (avail < MXD_PTL_HFIX)
		return -MXD_PTL_BAD_SHORT;
	if (p[0] >> 4 != MXD_PTL_WIRE_VERSION)
		return -MXD_PTL_BAD_VERSION;
	kind = p[0] & 0xf;
	if (kind == 0 || kind >= MXD_PTL_KIND_MAX)
		return -MXD_PTL_BAD_KIND;
	if (p[1] & ~mxd_ptl_kind_flags(kind) || ((p[1] & MXD_PTL_F_COOKIE) &&
				kind == MXD_PTL_PUT &&
				!(p[1] & MXD_PTL_F_ACK_REQ)))
		return -MXD_PTL_BAD_FLAGS;
	m = mxd_ptl_words(kind, p[1]);
	hl = mxd_ptl_words_len(m);
	at = padded ? MXD_PTL_HEAD : hl;
	if (avail < at || msg_len < at)
		return -MXD_PTL_BAD_SHORT;
	low = mxd_ptl_link_low(m);
	if (mxd_ptl_be16_get(p + 14) != 0 ||
			(kind == MXD_PTL_REPLY && mxd_ptl_be16_get(p + 2)) ||
			(kind > MXD_PTL_GET && mxd_ptl_be16_get(p + 12)) ||
			(low != 0 && mxd_ptl_be32_get(p + low) != 0) ||
			!mxd_ptl_zero(p + hl, at - hl))
		return -MXD_PTL_BAD_PAD;
	h->kind = kind;
	h->flags = p[1];
	h->pt_index = mxd_ptl_be16_get(p + 2);
	h->src_nid = 0;
	h->src_pid = 0;
	h->src_uid = mxd_ptl_be32_get(p + 4);
	h->src_jid = mxd_ptl_be32_get(p + 8);
	h->ac_index = mxd_ptl_be16_get(p + 12);
	mxd_ptl_wire_words(p, m, h);
	if (mxd_ptl_wire_lengths(h, msg_len - at) < 0)
		return -MXD_PTL_BAD_LENGTH;
	return (int)at;
}

#undef MXD_PTL_WBIT

#endif /* MXD_PORTALS_WIRE_H */
