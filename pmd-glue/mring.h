/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One memif ring, driven from this process without DPDK: the sending or
 * the receiving side of one of the queue pairs of a shared board's port
 * (shport.h).  The processes of the board (shlink.c) and the board service
 * for the slots nobody holds (service/) use it; DPDK's PMD in the service
 * drives only the service's own queues, never these.
 *
 * The memif protocol, as it lays out a region (all of it in region 0 in
 * copy mode, which is what a shared board uses): the client's rings
 * (C2S, client to server) for each queue, then the server's (S2C), each
 * a 128-byte header -- cookie (4 bytes), flags (2), head (2) on the first
 * line, tail (2) on the second -- then 2^log2 descriptors of 16 bytes:
 * flags (2), region (2), length (4), offset (4), metadata (4).  The
 * buffers follow the rings; the memif client wrote each descriptor's
 * offset when it made the region and nobody changes it.  Indexes are
 * free-running 16-bit counters.
 *
 *   C2S: the client writes a descriptor's length (up to the buffer size),
 *        then head (release); the server reads up to head, then writes
 *        tail: slots up to tail + ring size are free again.
 *   S2C: the client "refills": it writes each free descriptor's length
 *        (the buffer's size) and raises head; the server writes frames
 *        into slots below head, each length cut to the frame, then tail
 *        (release); the client reads up to tail, and refills.
 *
 * So a ring keeps in itself everything a new reader needs: a C2S reader
 * reads from tail, an S2C reader from head - size (it refills after every
 * read, and the board service refills every S2C ring when the link comes
 * up).  A reader killed between its read and its update leaves frames to
 * be read again, which only its own (dead) endpoints wanted: the engine
 * drops them as stale.  A writer killed before its release store leaves
 * nothing visible.  Every descriptor is checked against the region and
 * the buffer size before its buffer is touched.
 */
#ifndef MXD_MRING_H
#define MXD_MRING_H

#include <stdint.h>
#include <string.h>

#define MXD_MEMIF_COOKIE	0x3E31F20u
#define MXD_MEMIF_RING_HDR	128u
#define MXD_MEMIF_DESC		16u
#define MXD_MEMIF_HEAD		6u	/* offset of head: line 0 */
#define MXD_MEMIF_TAIL		64u	/* of tail: line 1 */
#define MXD_MEMIF_F_NEXT	1u	/* a descriptor's flag: chained */

struct mxd_mring {
	uint8_t *ring;		/* its header; NULL: not attached */
	const uint8_t *base;	/* the region: buffers at base + offset */
	uint64_t len;		/* of the region */
	uint16_t mask;		/* descriptors - 1 */
	uint16_t cur;		/* the reader's next slot */
	uint16_t wr;		/* the writer's next slot */
	uint16_t room;		/* the writer's slots known free */
	uint8_t c2s;		/* client to server */
	uint32_t bsize;		/* the buffers' size */
};

/* Bytes of one ring: header and descriptors. */
static inline uint64_t
mxd_mring_bytes(unsigned log2)
{
	return MXD_MEMIF_RING_HDR + ((uint64_t)MXD_MEMIF_DESC << log2);
}

/* Bytes of a copy-mode region of q queue pairs. */
static inline uint64_t
mxd_mring_region_len(unsigned q, unsigned log2, uint32_t bsize)
{
	return 2ull * q * (mxd_mring_bytes(log2) +
			((uint64_t)bsize << log2));
}

static inline uint16_t *
mxd_mring_idx(const struct mxd_mring *r, unsigned off)
{
	return (uint16_t *)(void *)(r->ring + off);
}

static inline uint8_t *
mxd_mring_desc(const struct mxd_mring *r, uint16_t slot)
{
	return r->ring + MXD_MEMIF_RING_HDR + MXD_MEMIF_DESC *
		(uint32_t)(slot & r->mask);
}

/* The reader's index (C2S: tail, published as it reads; S2C: head,
 * raised as it refills) and the writer's (C2S: head, S2C: tail). */
#define MXD_MRING_RD(r)	((r)->c2s ? MXD_MEMIF_TAIL : MXD_MEMIF_HEAD)
#define MXD_MRING_WR(r)	((r)->c2s ? MXD_MEMIF_HEAD : MXD_MEMIF_TAIL)

/*
 * Ring q of direction c2s in a region of nq queue pairs at base; the
 * reader's and the writer's places taken from the ring itself (the side
 * that attaches uses one of them).  Returns -1 if the region
 * is too short or the ring lacks memif's cookie.
 */
static inline int
mxd_mring_attach(struct mxd_mring *r, const uint8_t *base, uint64_t len,
		unsigned nq, unsigned q, int c2s, unsigned log2, uint32_t bsize)
{
	uint64_t off = ((uint64_t)(c2s ? 0 : nq) + q) * mxd_mring_bytes(log2);

	memset(r, 0, sizeof(*r));
	if (off + mxd_mring_bytes(log2) > len || log2 > 15 ||
			*(const uint32_t *)(const void *)(base + off) !=
			MXD_MEMIF_COOKIE)
		return -1;
	r->ring = (uint8_t *)(uintptr_t)(base + off);
	r->base = base;
	r->len = len;
	r->mask = (uint16_t)((1u << log2) - 1);
	r->c2s = (uint8_t)(c2s != 0);
	r->bsize = bsize;
	r->cur = __atomic_load_n(mxd_mring_idx(r, MXD_MRING_RD(r)),
			__ATOMIC_ACQUIRE);
	if (!r->c2s)
		r->cur = (uint16_t)(r->cur - r->mask - 1u);
	r->wr = __atomic_load_n(mxd_mring_idx(r, MXD_MRING_WR(r)),
			__ATOMIC_ACQUIRE);
	return 0;
}

/* ---- the writer ---------------------------------------------------------- */

/* Slots free to write, looking again at the reader's index only when the
 * count known runs out. */
static inline unsigned
mxd_mring_room(struct mxd_mring *r)
{
	uint16_t rd;

	if (r->room != 0)
		return r->room;
	rd = __atomic_load_n(mxd_mring_idx(r, MXD_MRING_RD(r)),
			__ATOMIC_ACQUIRE);
	r->room = r->c2s ? (uint16_t)(r->mask + 1u - (uint16_t)(r->wr - rd)) :
		(uint16_t)(rd - r->wr);
	if (r->room > r->mask + 1u)	/* a reader's index not sane */
		r->room = 0;
	return r->room;
}

/*
 * Writes one frame into the next free slot (mxd_mring_room() said there
 * is one) without publishing it; returns 0, or -1 if the slot's buffer
 * cannot hold it (the slot stays free; the caller drops the frame).
 */
static inline int
mxd_mring_put(struct mxd_mring *r, const uint8_t *data, uint32_t len)
{
	uint8_t *d = mxd_mring_desc(r, r->wr);
	uint32_t off, cap;

	memcpy(&off, d + 8, 4);
	if (r->c2s) {
		cap = r->bsize;
	} else {
		memcpy(&cap, d + 4, 4);
		if (cap > r->bsize)
			cap = r->bsize;
	}
	if (len > cap || (uint64_t)off + len > r->len)
		return -1;
	memcpy((uint8_t *)(uintptr_t)r->base + off, data, len);
	memcpy(d + 4, &len, 4);
	memset(d, 0, 2);		/* no NEXT: one buffer per frame */
	r->room--;
	r->wr++;
	return 0;
}

/* Publishes the slots written. */
static inline void
mxd_mring_publish(struct mxd_mring *r)
{
	__atomic_store_n(mxd_mring_idx(r, MXD_MRING_WR(r)), r->wr,
			__ATOMIC_RELEASE);
}

/* ---- the reader ---------------------------------------------------------- */

/* Slots written and not read yet. */
static inline uint16_t
mxd_mring_ready(const struct mxd_mring *r)
{
	uint16_t w = __atomic_load_n(mxd_mring_idx(r, MXD_MRING_WR(r)),
			__ATOMIC_ACQUIRE);
	uint16_t n = (uint16_t)(w - r->cur);

	return n > r->mask + 1u ? 0 : n;	/* a writer not sane */
}

/*
 * The frame in the next slot: its bytes and length, or NULL (it is
 * chained over several buffers, or its descriptor points outside the
 * region: dropped).  The slot is passed either way.
 */
static inline const uint8_t *
mxd_mring_get(struct mxd_mring *r, uint32_t *len)
{
	const uint8_t *d = mxd_mring_desc(r, r->cur++);
	uint32_t off, n;
	uint16_t flags;

	memcpy(&flags, d, 2);
	memcpy(&n, d + 4, 4);
	memcpy(&off, d + 8, 4);
	*len = n;
	if ((flags & MXD_MEMIF_F_NEXT) || n > r->bsize ||
			(uint64_t)off + n > r->len)
		return NULL;
	return r->base + off;
}

/* The slots read are the writer's again: C2S publishes tail, S2C gives
 * each buffer back at its full size and raises head. */
static inline void
mxd_mring_release(struct mxd_mring *r)
{
	uint16_t *rd = mxd_mring_idx(r, MXD_MRING_RD(r));
	uint16_t end = (uint16_t)(r->cur + r->mask + 1u), h = *rd;

	if (r->c2s) {
		__atomic_store_n(rd, r->cur, __ATOMIC_RELEASE);
		return;
	}
	if ((uint16_t)(end - h) > r->mask + 1u)	/* not sane: all of them */
		h = r->cur;
	for (; h != end; h++)
		memcpy(mxd_mring_desc(r, h) + 4, &r->bsize, 4);
	__atomic_store_n(rd, end, __ATOMIC_RELEASE);
}

/* Reads and drops everything written (the slots of nobody); returns the
 * number of frames. */
static inline unsigned
mxd_mring_drain(struct mxd_mring *r)
{
	unsigned n = mxd_mring_ready(r);

	if (n == 0)
		return 0;
	r->cur = (uint16_t)(r->cur + n);
	mxd_mring_release(r);
	return n;
}

#endif /* MXD_MRING_H */
