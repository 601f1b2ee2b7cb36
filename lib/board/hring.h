/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rings of a host segment (host.h): the format of the area of each
 * ordered pair of slots (a, b), by which slot a's process sends records
 * to slot b's, and the protocol by which the processes set such a ring
 * up, read it, and let it go when its producer or its consumer dies.
 * What the records mean is the engine's (engine/shm.c); this header is
 * shared with the board service, which reads the "let go" state of a
 * dead slot's rings before it gives the slot to a new process.
 *
 * An area: 512 bytes of header, then cells of 64 bytes (as many as fit).
 *
 *   offset   written by      what
 *   0        the producer    struct mxd_hring_prod: set-up (magic,
 *                            version, cells, the two epochs it serves)
 *   128      the consumer    struct mxd_hring_cons: cells consumed
 *                            (published now and then), the producer
 *                            epoch it let go of
 *   256      (area (b, b))   struct mxd_hring_mail: slot b's mailbox:
 *                            a bit per producer slot that set up a ring
 *                            to b (the only word of an area written by
 *                            several processes: atomic OR, taken by b)
 *   384      both            claim words (compare-and-swap), by which the
 *                            producer offers the consumer a share of a
 *                            copy (engine/shm.c: a large message's second
 *                            half); zero at set-up
 *   512      the producer    cells
 *
 * Records.  A record is one or more consecutive cells; it never wraps:
 * a producer that reaches the end first writes a PAD record over the
 * cells left.  Its first 40 bytes are struct mxd_hrec; its payload
 * follows (24 bytes in the first cell, contiguous up to the record's
 * end).  A record counts from the ring's set-up: the record that starts
 * at cell count n (all cells ever written before it) has seq
 * mxd_hring_seq(n) (n + 1 with the top bit set: never 0) in the first
 * word of its first cell, written last with release ordering, after the
 * rest of the record and after the first word of the cell just past the
 * record has been made not to hold the seq the consumer will look for
 * there (cleared to 0 if it does: stale payload or an old seq that
 * happens to equal it; left alone, and not written, otherwise).  The
 * consumer polls the first word of the cell at its count (acquire) and
 * takes a record when it holds that count's seq, so:
 *   - a record is visible only whole: a producer killed in the middle
 *     of one leaves a cell the consumer never takes (nothing after it
 *     either: the ring is dropped with its producer);
 *   - a cell's first word is never taken for a record it is not: the
 *     cell the consumer polls next is either the next record's first
 *     cell (written this lap) or the one past the last record, whose
 *     word that record's producer saw was not the seq expected there
 *     (and only the producer writes it).  Hence the producer keeps one
 *     cell free (room for a record of n cells is n + 1).  Most often
 *     the producer only reads that word (its own line from the last
 *     lap): a stream of records writes no line but their own.
 * The consumer publishes its count (tail) at least every
 * MXD_HRING_PUBLISH cells; the producer reads it only when its own copy
 * says the ring is full.  No lock, no syscall, no write by the consumer
 * into the cells.
 *
 * Set-up, and letting go.  Every slot's owner has an epoch (host.h),
 * raised at each new owner.  A ring serves one pair of epochs: the
 * producer's (prod_epoch) and the consumer's it was set up for
 * (cons_epoch).  Only the producer sets a ring up, and only when no one
 * reads it any more:
 *   - prod_epoch is 0 (never set up, or a set-up cut short), or
 *   - cons_epoch is not the consumer slot's current epoch (the reader
 *     it was set up for is gone: its new owner ignores the ring), or
 *   - the consumer has let go of it: released == prod_epoch.
 * Set-up: prod_epoch = 0 (release); every cell's first word and the
 * consumer's line zeroed; cells and cons_epoch written; prod_epoch = the
 * producer's epoch (release); then the producer sets its bit in the
 * consumer's mailbox.  The consumer, seeing the bit (or at its start),
 * attaches to every ring whose cons_epoch is its own epoch and whose
 * prod_epoch is neither 0 nor one it let go of, and reads it from cell 0.
 *
 * When a process learns that the owner of a slot it shares rings with
 * has gone (its pidfd, or the slot's epoch changed), it
 *   - as consumer: takes every whole record left in that producer's ring
 *     (what a dead sender completed is delivered; its partial record is
 *     dropped), then writes released = prod_epoch (release): the ring is
 *     let go, and no longer read;
 *   - as producer: writes nothing more into its ring to that slot; the
 *     slot's next owner reads it only once this process sets it up anew
 *     for the new epoch (the rule above lets it: cons_epoch is old).
 * The board service gives a dead slot d (epoch e) to a new process only
 * once every ring d produced is let go or has no live reader
 * (mxd_hring_let_go); a new owner that starts early anyway finds the
 * rings still read refused by the set-up rule, and its connects retry.
 */
#ifndef MXD_HRING_H
#define MXD_HRING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board/host.h"

#define MXD_HRING_MAGIC		0x4d585252u	/* "MXRR" */
#define MXD_HRING_VERSION	1u
#define MXD_HRING_HDR		512u	/* bytes before the cells */
#define MXD_HRING_CELL		64u
/* A ring of this many bytes per pair holds 4088 cells: 32 KiB eager
 * messages eight deep, records of up to 64 KiB (a quarter). */
#define MXD_HRING_BYTES_DFLT	MXD_HOST_RING_BYTES
#define MXD_HRING_CELLS_MIN	64u
#define MXD_HRING_BYTES_MIN	(MXD_HRING_HDR + MXD_HRING_CELLS_MIN * \
				MXD_HRING_CELL)

struct mxd_hring_prod {
	uint32_t magic;			/* MXD_HRING_MAGIC */
	uint32_t version;		/* MXD_HRING_VERSION */
	uint32_t prod_epoch;		/* the producer's; 0: not set up */
	uint32_t cons_epoch;		/* the consumer's it serves */
	uint32_t cells;			/* cells of the area */
} __attribute__((aligned(64)));

struct mxd_hring_cons {
	uint64_t tail;			/* cells consumed (published) */
	uint32_t released;		/* the producer epoch let go of */
	uint32_t attached;		/* the producer epoch being read */
} __attribute__((aligned(64)));

struct mxd_hring_mail {
	uint64_t attention;		/* bit per slot: a ring set up to us */
} __attribute__((aligned(64)));

#define MXD_HRING_CLAIMS	32	/* claim words of a ring */

struct mxd_hring {
	struct mxd_hring_prod p;	/*   0 */
	uint8_t pad0[128 - sizeof(struct mxd_hring_prod)];
	struct mxd_hring_cons c;	/* 128 */
	uint8_t pad1[128 - sizeof(struct mxd_hring_cons)];
	struct mxd_hring_mail m;	/* 256 */
	uint8_t pad2[128 - sizeof(struct mxd_hring_mail)];
	uint32_t claim[MXD_HRING_CLAIMS];	/* 384 */
};
_Static_assert(sizeof(struct mxd_hring) == MXD_HRING_HDR, "ring header");

/*
 * A record's header: the first 40 bytes of its first cell.  The fields
 * but seq are written before it; what each means for each kind is the
 * engine's (engine/shm.h).
 */
struct mxd_hrec {
	uint32_t seq;		/*  0 mxd_hring_seq(its cell count), last */
	uint8_t kind;		/*  4 enum mxd_hrec_kind (engine/shm.h) */
	uint8_t flags;		/*  5 */
	uint8_t src_ep;		/*  6 the sending endpoint's id */
	uint8_t dst_ep;		/*  7 the receiving endpoint's id */
	uint16_t cells;		/*  8 cells the record takes (>= 1) */
	uint16_t dst_peer;	/* 10 the receiver's partner index */
	uint16_t src_peer;	/* 12 the sender's partner index */
	uint16_t pad;		/* 14 zero */
	uint32_t len;		/* 16 payload bytes */
	uint32_t aux;		/* 20 by kind */
	uint32_t src_session;	/* 24 the sending endpoint's */
	uint32_t dst_session;	/* 28 the receiving endpoint's */
	uint64_t match;		/* 32 by kind */
};
#define MXD_HREC_HLEN		40u
_Static_assert(sizeof(struct mxd_hrec) == MXD_HREC_HLEN, "record header");
#define MXD_HREC_PAD_KIND	1u	/* the one kind this header knows */

/* Cells a record of 'len' payload bytes takes. */
static inline uint32_t
mxd_hrec_cells(uint32_t len)
{
	return (MXD_HREC_HLEN + len + MXD_HRING_CELL - 1) / MXD_HRING_CELL;
}

/* The payload of record r. */
static inline uint8_t *
mxd_hrec_data(struct mxd_hrec *r)
{
	return (uint8_t *)r + MXD_HREC_HLEN;
}

/* The area by which slot a sends to slot b (host.h), as a ring. */
static inline struct mxd_hring *
mxd_hring_of(const struct mxd_host *h, unsigned a, unsigned b)
{
	return (struct mxd_hring *)mxd_host_ring(h, a, b);
}

/* Slot b's mailbox: in its own area (b, b), which carries no ring. */
static inline uint64_t *
mxd_hring_mailbox(const struct mxd_host *h, unsigned b)
{
	return &mxd_hring_of(h, b, b)->m.attention;
}

/* Cells an area of ring_bytes holds. */
static inline uint32_t
mxd_hring_cells(uint32_t ring_bytes)
{
	uint32_t n = ring_bytes < MXD_HRING_HDR ? 0 :
		(ring_bytes - MXD_HRING_HDR) / MXD_HRING_CELL;

	return n > 0xffff * 4u ? 0xffff * 4u : n;
}

/* The largest record of a ring of n cells: a quarter of it, so that a
 * stream of them is four deep. */
static inline uint32_t
mxd_hring_rec_max(uint32_t n)
{
	return n / 4;
}

#define MXD_HRING_PUBLISH(n)	((n) / 16)	/* consumer's count, at least */

/* The seq of the record at cell count n (see the top). */
static inline uint32_t
mxd_hring_seq(uint64_t n)
{
	return (uint32_t)(n + 1) | 0x80000000u;
}

/* ---- the producer ------------------------------------------------------- */

/* A producer's own state for one ring (not shared). */
struct mxd_hring_tx {
	struct mxd_hring *r;
	uint8_t *cells;
	uint32_t n;			/* cells */
	uint32_t off;			/* cell of head */
	uint64_t head;			/* cells written */
	uint64_t tail;			/* the consumer's count, as last read */
};

static inline struct mxd_hrec *
mxd_hring_cell(uint8_t *cells, uint32_t off)
{
	return (struct mxd_hrec *)(void *)(cells + (size_t)off * MXD_HRING_CELL);
}

/*
 * Makes a record whole: the first word of the cell after it cleared if
 * it holds the seq the consumer will look for there (see the top), then
 * its seq, released.  'cells' as in its header.  A load of our own cell,
 * most often: the line the consumer polls next is written only when its
 * stale word would deceive it, so that the consumer's next look finds
 * it where it was (no transfer from our cache) and our record's seq
 * waits for no store to a second line the consumer holds.
 */
static inline void
mxd_hring_commit(struct mxd_hring_tx *t, struct mxd_hrec *rec, uint32_t cells)
{
	uint32_t next = t->off + cells;
	uint32_t *w;

	if (next == t->n)
		next = 0;
	w = &mxd_hring_cell(t->cells, next)->seq;
	if (__builtin_expect(__atomic_load_n(w, __ATOMIC_RELAXED) ==
				mxd_hring_seq(t->head + cells), 0))
		__atomic_store_n(w, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&rec->seq, mxd_hring_seq(t->head), __ATOMIC_RELEASE);
	t->head += cells;
	t->off = next;
}

/* mxd_hring_reserve's other cases (hring.c): the ring full by the
 * producer's copy of the consumer's count, or the record past its end. */
struct mxd_hrec *mxd_hring_reserve_slow(struct mxd_hring_tx *t,
		uint32_t cells);

/*
 * The first cell of a record of 'cells' cells, or NULL when the ring
 * has no room: at the head, or at cell 0 after a PAD record over the
 * cells left before the end.  The caller fills it and commits it.  The
 * usual case inline (room by the producer's copy of the consumer's
 * count, no wrap), the others out of line: the fast path of a send
 * keeps its registers.
 */
static inline struct mxd_hrec *
mxd_hring_reserve(struct mxd_hring_tx *t, uint32_t cells)
{
	if (__builtin_expect(cells <= t->n - t->off &&
				t->head + cells + 1 - t->tail <= t->n, 1))
		return mxd_hring_cell(t->cells, t->off);
	return mxd_hring_reserve_slow(t, cells);
}

/* ---- the consumer ------------------------------------------------------- */

/* A consumer's own state for one ring (not shared). */
struct mxd_hring_rx {
	struct mxd_hring *r;
	uint8_t *cells;
	uint32_t n;			/* cells */
	uint32_t next_off;		/* cell of next */
	uint64_t next;			/* the next record's count */
	uint64_t published;		/* the count last published */
};

/* The next record if it is whole, else NULL: one acquire load. */
static inline struct mxd_hrec *
mxd_hring_peek(const struct mxd_hring_rx *c)
{
	struct mxd_hrec *rec = mxd_hring_cell(c->cells, c->next_off);

	if (__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE) !=
			mxd_hring_seq(c->next))
		return NULL;
	return rec;
}

/* The cells record rec takes: its header's, PAD's counted in len; 0 if
 * they do not fit in the ring from where it is (a broken record). */
static inline uint32_t
mxd_hring_rec_cells(const struct mxd_hring_rx *c, const struct mxd_hrec *rec)
{
	uint32_t n = rec->kind == MXD_HREC_PAD_KIND ? rec->len : rec->cells;

	return n == 0 || n > c->n - c->next_off ? 0 : n;
}

/* Moves past a record of n cells. */
static inline void
mxd_hring_skip(struct mxd_hring_rx *c, uint32_t n)
{
	c->next += n;
	c->next_off += n;
	if (c->next_off == c->n)
		c->next_off = 0;
}

/* Publishes count 'upto' (everything before it consumed) if it moved
 * enough since the last time, or 'now'. */
static inline void
mxd_hring_publish(struct mxd_hring_rx *c, uint64_t upto, int now)
{
	if (upto - c->published >= MXD_HRING_PUBLISH(c->n) ||
			(now && upto != c->published)) {
		__atomic_store_n(&c->r->c.tail, upto, __ATOMIC_RELEASE);
		c->published = upto;
	}
}

/* ---- set-up and letting go (see the top) ------------------------------- */

/* Whether the producer of epoch prod_epoch may set ring r up for a
 * consumer of epoch cons_epoch now. */
static inline int
mxd_hring_may_setup(const struct mxd_hring *r, uint32_t prod_epoch,
		uint32_t cons_epoch)
{
	uint32_t pe = __atomic_load_n(&r->p.prod_epoch, __ATOMIC_ACQUIRE);

	return pe == 0 || pe == prod_epoch ||
		__atomic_load_n(&r->p.cons_epoch, __ATOMIC_ACQUIRE) !=
		cons_epoch ||
		__atomic_load_n(&r->c.released, __ATOMIC_ACQUIRE) == pe;
}

/* Sets ring (a -> b) up for the epochs given (mxd_hring_may_setup said
 * so) and tells b; fills t.  0, or -1 if the area holds too few cells. */
int mxd_hring_setup(struct mxd_host *h, unsigned a, unsigned b,
		uint32_t prod_epoch, uint32_t cons_epoch,
		struct mxd_hring_tx *t);
/* Whether ring r is set up for these epochs now, for its consumer. */
static inline int
mxd_hring_ready_for(const struct mxd_hring *r, uint32_t cons_epoch,
		uint32_t let_go)
{
	uint32_t pe = __atomic_load_n(&r->p.prod_epoch, __ATOMIC_ACQUIRE);

	return pe != 0 && pe != let_go &&
		__atomic_load_n(&r->p.cons_epoch, __ATOMIC_RELAXED) ==
		cons_epoch && r->p.magic == MXD_HRING_MAGIC &&
		r->p.version == MXD_HRING_VERSION;
}
/* Starts reading ring r from its first cell; its producer's epoch. */
uint32_t mxd_hring_attach(struct mxd_hring *r, struct mxd_hring_rx *c);
/* The consumer let go of ring r (producer of epoch prod_epoch). */
static inline void
mxd_hring_let_go_of(struct mxd_hring *r, uint32_t prod_epoch)
{
	__atomic_store_n(&r->c.released, prod_epoch, __ATOMIC_RELEASE);
}

/*
 * For the board service: whether every ring that slot d produced while
 * its owner had epoch e is let go, or has no live reader, so that d may
 * be given to a new process.
 */
static inline int
mxd_hring_let_go(const struct mxd_host *h, unsigned d, uint32_t e)
{
	for (unsigned x = 0; x < h->nslots; x++) {
		const struct mxd_hring *r;
		const struct mxd_host_slot *s = &h->slot[x];

		if (x == d || __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) !=
				MXD_HOST_SLOT_LIVE)
			continue;
		r = mxd_hring_of(h, d, x);
		if (__atomic_load_n(&r->p.prod_epoch, __ATOMIC_ACQUIRE) == e &&
				__atomic_load_n(&r->p.cons_epoch,
					__ATOMIC_ACQUIRE) ==
				__atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE) &&
				__atomic_load_n(&r->c.released,
					__ATOMIC_ACQUIRE) != e)
			return 0;
	}
	return 1;
}

#endif /* MXD_HRING_H */
