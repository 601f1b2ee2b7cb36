/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals core's objects (a public face beside api/, on the same
 * library lock).
 *
 * One network interface per board (ptl_interface_t is the board number),
 * at most MXD_PTL_MAX_NI.  Each holds fixed pools of match entries,
 * memory descriptors and event queues, sized at PtlNIInit from the limits,
 * so that no operation allocates: a pool is an array and a FIFO list of
 * its free slots (a slot freed goes to the back, so that it is reused as
 * late as possible and a late handle of it is told from the new one by
 * the slot's generation).  Match lists and free lists are chained by
 * slot index.
 *
 * A handle is 64 bits:
 *
 *    63   60 59   56 55      48 47                  24 23                0
 *   +-------+-------+----------+----------------------+-------------------+
 *   | kind  | iface | NI gen.  | object's generation  | object's slot     |
 *   +-------+-------+----------+----------------------+-------------------+
 *
 * kind MXD_PTL_H_*; the NI's generation changes at every PtlNIInit and
 * PtlNIFini of the interface, an object's at every release of its slot.
 * Every other kind is no handle (PTL_EQ_NONE, PTL_INVALID_HANDLE ...).
 */
#ifndef MXD_PTL_H
#define MXD_PTL_H

#include <stdint.h>

#define PTL_NO_ARITY_MACROS
#include "portals3.h"
#include "portals/transport.h"

#define MXD_PTL_MAX_NI		16
#define MXD_PTL_NONE		UINT32_MAX	/* no slot */
#define MXD_PTL_SR_COUNT	7		/* PTL_SR_* registers */

enum mxd_ptl_hkind {
	MXD_PTL_H_NI = 1,
	MXD_PTL_H_EQ = 2,
	MXD_PTL_H_MD = 3,
	MXD_PTL_H_ME = 4,
};

struct mxd_ptl_me {
	uint32_t gen;
	uint8_t used;
	uint8_t unlink;		/* goes with its descriptor */
	uint32_t pt;		/* portal index */
	uint32_t prev, next;	/* in its match list; next: in the free list */
	uint32_t md;		/* its descriptor, or MXD_PTL_NONE */
	ptl_process_id_t match_id;
	ptl_match_bits_t bits;
	ptl_match_bits_t ignore;
};

struct mxd_ptl_md {
	uint32_t gen;
	uint8_t used;
	uint8_t unlink_op;	/* unlinked once spent (and idle) */
	uint8_t unlink_nofit;	/* unlinked when a request does not fit */
	uint8_t spent;		/* an operation made it inactive */
	uint8_t nofit_owed;	/* a request did not fit while operations
				 * were pending: unlinked when they end */
	uint32_t me;		/* its match entry, MXD_PTL_NONE: bound */
	uint32_t next;		/* in the free list */
	uint32_t pending;	/* operations started and not ended */
	uint32_t eq_gen;	/* eq's generation when it was set */
	struct mxd_ptl_eq *eq;	/* the queue md.eventq names (NULL: none),
				 * valid while of generation eq_gen */
	ptl_md_t md;		/* as given; threshold as it is now */
	ptl_size_t offset;	/* the local offset */
	ptl_size_t size;	/* bytes (PTL_MD_IOVEC: of every segment) */
	ptl_md_iovec_t *iov;	/* PTL_MD_IOVEC: the segments (a copy) */
	uint32_t niov;
};

struct mxd_ptl_eq {
	uint32_t gen;
	uint8_t used;
	uint8_t dying;		/* freed while threads wait on it */
	uint32_t next;		/* in the free list */
	uint32_t waiters;	/* threads in PtlEQWait/PtlEQPoll on it */
	ptl_event_t *ring;
	uint64_t count;
	uint64_t wr, rd;	/* events logged, taken (rd may lag by more
				 * than count: those were lost) */
	uint64_t wslot;		/* wr % count: where the next one goes */
	ptl_seq_t seq;		/* the next event's sequence */
	ptl_eq_handler_t handler;
	uint64_t handled;	/* events given to the handler */
};

struct mxd_ptl_pt {
	uint32_t head, tail, len;
};

struct mxd_ptl_ac {
	uint8_t used;
	ptl_process_id_t id;
	ptl_uid_t uid;
	ptl_jid_t jid;
	ptl_pt_index_t pt;
};

/* A FIFO of free slots. */
struct mxd_ptl_pool {
	uint32_t head, tail;
};

struct mxd_ptl_ni {
	uint8_t used;
	uint8_t closing;
	uint8_t slot;		/* == the interface */
	uint8_t gen;
	struct mxd_ptl_ident me;
	ptl_ni_limits_t lim;
	void *tp;		/* the transport's */
	struct mxd_ptl_pt *pt;
	struct mxd_ptl_ac *ac;
	struct mxd_ptl_me *mes;
	struct mxd_ptl_md *mds;
	struct mxd_ptl_eq *eqs;
	ptl_md_iovec_t *iovs;
	struct mxd_ptl_pool me_free, md_free, eq_free;
	ptl_sr_value_t sr[MXD_PTL_SR_COUNT];
	ptl_seq_t link;		/* the last link given */
	uint32_t waiters;	/* threads waiting on its queues */
	uint32_t handlers_owed;	/* events for EQ handlers not yet run */
};

struct mxd_ptl_lib {
	int init;
	int interfaces;
	const struct mxd_ptl_tp_ops *tp;
	int handlers_running;
	int handlers_owed;		/* some interface's handlers_owed */
	uint8_t gen[MXD_PTL_MAX_NI];	/* kept across PtlNIFini */
	struct mxd_ptl_ni ni[MXD_PTL_MAX_NI];
};

extern struct mxd_ptl_lib mxd_ptl;

/* ---- handles (pool.c) ---- */

static inline ptl_handle_any_t
mxd_ptl_handle(unsigned kind, const struct mxd_ptl_ni *ni, uint32_t gen,
		uint32_t slot)
{
	return (uint64_t)kind << 60 | (uint64_t)ni->slot << 56 |
		(uint64_t)ni->gen << 48 | (uint64_t)(gen & 0xffffff) << 24 |
		(slot & 0xffffff);
}

static inline unsigned
mxd_ptl_hkind(ptl_handle_any_t h)
{
	return (unsigned)(h >> 60);
}

static inline uint32_t
mxd_ptl_hslot(ptl_handle_any_t h)
{
	return (uint32_t)(h & 0xffffff);
}

static inline uint32_t
mxd_ptl_hgen(ptl_handle_any_t h)
{
	return (uint32_t)(h >> 24) & 0xffffff;
}

/* The open interface a handle of this kind belongs to, or NULL. */
static inline struct mxd_ptl_ni *
mxd_ptl_ni_of(ptl_handle_any_t h, unsigned kind)
{
	struct mxd_ptl_ni *ni = &mxd_ptl.ni[(h >> 56) & 0xf];

	if (!mxd_ptl.init || mxd_ptl_hkind(h) != kind || !ni->used ||
			ni->closing || ni->gen != (uint8_t)(h >> 48))
		return NULL;
	return ni;
}

/* The live object a handle names, with its interface in *ni; NULL if
 * there is none (another kind, a closed interface, a slot out of range,
 * free, or of another generation). */
static inline struct mxd_ptl_me *
mxd_ptl_me_get(ptl_handle_me_t h, struct mxd_ptl_ni **ni)
{
	uint32_t s = mxd_ptl_hslot(h);
	struct mxd_ptl_me *me;

	*ni = mxd_ptl_ni_of(h, MXD_PTL_H_ME);
	if (*ni == NULL || s >= (uint32_t)(*ni)->lim.max_mes)
		return NULL;
	me = &(*ni)->mes[s];
	return me->used && me->gen == mxd_ptl_hgen(h) ? me : NULL;
}

static inline struct mxd_ptl_md *
mxd_ptl_md_get(ptl_handle_md_t h, struct mxd_ptl_ni **ni)
{
	uint32_t s = mxd_ptl_hslot(h);
	struct mxd_ptl_md *md;

	*ni = mxd_ptl_ni_of(h, MXD_PTL_H_MD);
	if (*ni == NULL || s >= (uint32_t)(*ni)->lim.max_mds)
		return NULL;
	md = &(*ni)->mds[s];
	return md->used && md->gen == mxd_ptl_hgen(h) ? md : NULL;
}

static inline struct mxd_ptl_eq *
mxd_ptl_eq_get(ptl_handle_eq_t h, struct mxd_ptl_ni **ni)
{
	uint32_t s = mxd_ptl_hslot(h);
	struct mxd_ptl_eq *eq;

	*ni = mxd_ptl_ni_of(h, MXD_PTL_H_EQ);
	if (*ni == NULL || s >= (uint32_t)(*ni)->lim.max_eqs)
		return NULL;
	eq = &(*ni)->eqs[s];
	return eq->used && !eq->dying && eq->gen == mxd_ptl_hgen(h) ? eq :
		NULL;
}

static inline ptl_handle_md_t
mxd_ptl_md_handle(const struct mxd_ptl_ni *ni, const struct mxd_ptl_md *md)
{
	return mxd_ptl_handle(MXD_PTL_H_MD, ni, md->gen,
			(uint32_t)(md - ni->mds));
}

static inline ptl_handle_me_t
mxd_ptl_me_handle(const struct mxd_ptl_ni *ni, const struct mxd_ptl_me *me)
{
	return mxd_ptl_handle(MXD_PTL_H_ME, ni, me->gen,
			(uint32_t)(me - ni->mes));
}

static inline ptl_handle_eq_t
mxd_ptl_eq_handle(const struct mxd_ptl_ni *ni, const struct mxd_ptl_eq *eq)
{
	return mxd_ptl_handle(MXD_PTL_H_EQ, ni, eq->gen,
			(uint32_t)(eq - ni->eqs));
}

/* ---- pools and lists (pool.c) ---- */

/* Builds an interface's pools and tables for its limits: 0 or
 * -PTL_NOSPACE. */
int mxd_ptl_pools_new(struct mxd_ptl_ni *ni);
/* Releases them (event rings included). */
void mxd_ptl_pools_free(struct mxd_ptl_ni *ni);
/* A free slot, or NULL. */
struct mxd_ptl_me *mxd_ptl_me_alloc(struct mxd_ptl_ni *ni);
struct mxd_ptl_md *mxd_ptl_md_alloc(struct mxd_ptl_ni *ni);
struct mxd_ptl_eq *mxd_ptl_eq_alloc(struct mxd_ptl_ni *ni);
/* Unlinks a match entry from its list and releases it (its descriptor
 * is the caller's). */
void mxd_ptl_me_release(struct mxd_ptl_ni *ni, struct mxd_ptl_me *me);
void mxd_ptl_md_release(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md);
/* Releases a queue's slot and ring (no thread waits on it). */
void mxd_ptl_eq_release(struct mxd_ptl_ni *ni, struct mxd_ptl_eq *eq);
/* Links me into portal pt's list: before or after 'at' (MXD_PTL_NONE:
 * the head or the tail). */
void mxd_ptl_me_link(struct mxd_ptl_ni *ni, struct mxd_ptl_me *me,
		uint32_t pt, uint32_t at, int before);
/* Counts a dropped message in PTL_SR_DROP_COUNT, its length in
 * PTL_SR_DROP_LENGTH, and in the register of its reason. */
void mxd_ptl_drop(struct mxd_ptl_ni *ni, ptl_sr_index_t why, uint64_t len);

/* ---- events (event.c) ---- */

/* The queue md logs into, if it still has one (freed: of another
 * generation, or dying). */
static inline struct mxd_ptl_eq *
mxd_ptl_md_eq(const struct mxd_ptl_md *md)
{
	struct mxd_ptl_eq *eq = md->eq;

	return eq != NULL && eq->used && !eq->dying && eq->gen == md->eq_gen ?
		eq : NULL;
}

/* The slot of eq that the next event is written into, in place (a full
 * ring: the oldest event not taken, lost and counted).  The writer sets
 * every member but md_handle, mem_desc and sequence, then calls
 * mxd_ptl_ev_commit(). */
static inline ptl_event_t *
mxd_ptl_ev_slot(struct mxd_ptl_ni *ni, struct mxd_ptl_eq *eq)
{
	if (eq->wr - eq->rd >= eq->count)
		ni->sr[PTL_SR_EQ_DROPPED]++;
	return &eq->ring[eq->wslot];
}

/* The event in eq's slot is md's: its descriptor as it is now, then its
 * sequence, written last. */
static inline void
mxd_ptl_ev_commit(struct mxd_ptl_ni *ni, const struct mxd_ptl_md *md,
		struct mxd_ptl_eq *eq, ptl_event_t *ev)
{
	ev->md_handle = mxd_ptl_md_handle(ni, md);
	ev->mem_desc = md->md;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ev->sequence = eq->seq++;
	eq->wr++;
	if (++eq->wslot == eq->count)
		eq->wslot = 0;
	if (eq->handler != PTL_EQ_HANDLER_NONE) {
		ni->handlers_owed++;
		mxd_ptl.handlers_owed = 1;
	}
}

/* Writes at ev the event of a request h (at its target; a REPLY's at
 * its initiator, h with the get's portal, bits and length): every
 * member but md_handle, mem_desc and sequence. */
static inline void
mxd_ptl_ev_req(ptl_event_t *ev, ptl_event_kind_t type,
		const struct mxd_ptl_hdr *h, ptl_size_t mlen, ptl_size_t off,
		ptl_seq_t link, ptl_ni_fail_t fail)
{
	ev->type = type;
	ev->initiator.nid = h->src_nid;
	ev->initiator.pid = h->src_pid;
	ev->uid = h->src_uid;
	ev->jid = h->src_jid;
	ev->portal = h->pt_index;
	ev->match_bits = h->match_bits;
	ev->rlength = h->rlength;
	ev->mlength = mlen;
	ev->offset = off;
	ev->hdr_data = h->hdr_data;
	ev->link = link;
	ev->ni_fail_type = fail;
}

/* Logs that event in md's queue (if it has one), in place. */
void mxd_ptl_log_req(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		ptl_event_kind_t type, const struct mxd_ptl_hdr *h,
		ptl_size_t mlen, ptl_size_t off, ptl_seq_t link,
		ptl_ni_fail_t fail);
/* md, whose operation just ended with that event (an END or FAIL, ok or
 * not), goes if it is due to (its UNLINK with that event's link); md may
 * be gone on return (md.c). */
void mxd_ptl_unlink_req(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		int ok, ptl_event_kind_t type, const struct mxd_ptl_hdr *h,
		ptl_size_t mlen, ptl_size_t off, ptl_seq_t link,
		ptl_ni_fail_t fail);
/* Logs *ev in md's event queue (if it has one that is still there):
 * fills md_handle and mem_desc (md as it is now) and the sequence. */
void mxd_ptl_log(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		ptl_event_t *ev);
/* Takes the oldest event: PTL_OK, PTL_EQ_DROPPED, PTL_EQ_EMPTY. */
int mxd_ptl_eq_take(struct mxd_ptl_ni *ni, struct mxd_ptl_eq *eq,
		ptl_event_t *ev);
/* Runs the 3.3 event handlers owed (the end of a call, a wait). */
void mxd_ptl_handlers_run(void);

/* ---- descriptors (md.c) ---- */

/* What a descriptor does with a request. */
enum mxd_ptl_fit {
	MXD_PTL_TAKE,		/* takes it: *off, *mlen */
	MXD_PTL_REJECT,		/* inactive, or the operation not enabled */
	MXD_PTL_NOFIT,		/* too long, and it does not truncate */
};

/* Whether a descriptor responds to operations. */
static inline int
mxd_ptl_md_active(const struct mxd_ptl_md *md)
{
	unsigned o = md->md.options;

	if (md->md.threshold == 0 || md->nofit_owed)
		return 0;
	if (__builtin_expect((o & (PTL_MD_MAX_OFFSET | PTL_MD_MAX_SIZE)) != 0,
				0)) {
		if ((o & PTL_MD_MAX_OFFSET) && md->offset > md->md.max_offset)
			return 0;
		if ((o & PTL_MD_MAX_SIZE) && (md->offset > md->size ||
				md->size - md->offset < md->md.max_size))
			return 0;
	}
	return 1;
}

/* What md does with a request of rlength bytes at roffset (a put, or a
 * get): MXD_PTL_TAKE with the offset and length moved. */
static inline int
mxd_ptl_md_fit(const struct mxd_ptl_md *md, int put, ptl_size_t rlength,
		ptl_size_t roffset, ptl_size_t *off, ptl_size_t *mlen)
{
	unsigned o = md->md.options;
	ptl_size_t at, room;

	if (!(o & (put ? PTL_MD_OP_PUT : PTL_MD_OP_GET)) ||
			!mxd_ptl_md_active(md))
		return MXD_PTL_REJECT;
	at = (o & PTL_MD_MANAGE_REMOTE) ? roffset : md->offset;
	room = at < md->size ? md->size - at : 0;
	if (rlength <= room)
		*mlen = rlength;
	else if (o & PTL_MD_TRUNCATE)
		*mlen = room;
	else
		return MXD_PTL_NOFIT;
	*off = at;
	return MXD_PTL_TAKE;
}

/* An operation starts on it: one of its threshold, and 'advance' bytes
 * of its local offset. */
static inline void
mxd_ptl_md_begin(struct mxd_ptl_md *md, ptl_size_t advance)
{
	if (md->md.threshold > 0)
		md->md.threshold--;
	if (!(md->md.options & PTL_MD_MANAGE_REMOTE))
		md->offset += advance;
	md->pending++;
	if (!mxd_ptl_md_active(md))
		md->spent = 1;
}

/* Whether md is to go now, after an event ok or not: nothing pending,
 * and a request that did not fit, or spent with unlink_op. */
static inline int
mxd_ptl_md_unlink_due(const struct mxd_ptl_md *md, int ok)
{
	if (md->pending != 0)
		return 0;
	return md->nofit_owed || (ok && md->unlink_op && md->spent);
}

/* Logs the UNLINK of an automatic unlinking (the event that caused it,
 * as logged or not, in *cause), then unlinks md. */
void mxd_ptl_md_auto_unlink(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const ptl_event_t *cause);
/* An operation ends: logs *ev (unless suppressed) and the UNLINK it may
 * cause; md may be released on return. */
void mxd_ptl_md_end(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		ptl_event_t *ev);
/* An event outside any pending operation (an ACK): logs it and the
 * UNLINK it may cause. */
void mxd_ptl_md_event(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		ptl_event_t *ev);
/* unlink_nofit: a request did not fit. */
void mxd_ptl_md_nofit(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const ptl_event_t *cause);
/* The bytes [off, off + len) of a descriptor. */
static inline void
mxd_ptl_md_region(const struct mxd_ptl_md *md, ptl_size_t off,
		ptl_size_t len, struct mxd_ptl_region *r)
{
	if (md->md.options & PTL_MD_IOVEC) {
		r->base = NULL;
		r->iov = md->iov;
		r->niov = md->niov;
	} else {
		r->base = (uint8_t *)md->md.start;
		r->iov = NULL;
		r->niov = 0;
	}
	r->offset = off;
	r->length = len;
}
/* Unlinks and releases a descriptor that has nothing pending (and its
 * match entry if that was to go with it), without an event. */
void mxd_ptl_md_unlink(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md);
/* Checks a ptl_md_t of ni: 0, -PTL_ILL_MD, -PTL_INV_EQ. */
int mxd_ptl_md_check(struct mxd_ptl_ni *ni, const ptl_md_t *md);
/* Sets a descriptor's ptl_md_t and memory from a checked one (its local
 * offset and state are the caller's). */
void mxd_ptl_md_set(struct mxd_ptl_ni *ni, struct mxd_ptl_md *md,
		const ptl_md_t *umd);

/* ---- the calls, as impl(args) returning a PTL_* code ---- */

/* ni.c */
int mxd_ptl_init(int *max_interfaces);
void mxd_ptl_fini(void);
int mxd_ptl_ni_init(ptl_interface_t iface, ptl_pid_t pid,
		const ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
		ptl_handle_ni_t *handle);
int mxd_ptl_ni_fini(ptl_handle_ni_t h);
int mxd_ptl_ni_status(ptl_handle_ni_t h, ptl_sr_index_t sr,
		ptl_sr_value_t *v);
int mxd_ptl_ni_dist(ptl_handle_ni_t h, ptl_process_id_t id,
		unsigned long *dist);
int mxd_ptl_ni_handle(ptl_handle_any_t h, ptl_handle_ni_t *ni);
int mxd_ptl_get_ident(ptl_handle_ni_t h, ptl_process_id_t *id,
		ptl_uid_t *uid, ptl_jid_t *jid);
int mxd_ptl_ac_entry(ptl_handle_ni_t h, ptl_ac_index_t index,
		ptl_process_id_t id, ptl_uid_t uid, ptl_jid_t jid,
		ptl_pt_index_t pt);

/* me.c */
int mxd_ptl_me_attach(ptl_handle_ni_t h, ptl_pt_index_t pt, int any,
		ptl_pt_index_t *anyp, ptl_process_id_t id, ptl_match_bits_t bits,
		ptl_match_bits_t ignore, ptl_unlink_t unlink, ptl_ins_pos_t pos,
		ptl_handle_me_t *out);
int mxd_ptl_me_insert(ptl_handle_me_t cur, ptl_process_id_t id,
		ptl_match_bits_t bits, ptl_match_bits_t ignore,
		ptl_unlink_t unlink, ptl_ins_pos_t pos, ptl_handle_me_t *out);
int mxd_ptl_me_unlink(ptl_handle_me_t h);

/* mdcalls.c */
int mxd_ptl_md_attach(ptl_handle_me_t meh, const ptl_md_t *umd,
		ptl_unlink_t unlink_op, ptl_unlink_t unlink_nofit,
		ptl_handle_md_t *out);
int mxd_ptl_md_bind(ptl_handle_ni_t h, const ptl_md_t *umd,
		ptl_unlink_t unlink_op, ptl_handle_md_t *out);
int mxd_ptl_md_unlink_call(ptl_handle_md_t h);
int mxd_ptl_md_update(ptl_handle_md_t h, ptl_md_t *old_md,
		const ptl_md_t *new_md, ptl_handle_eq_t testq);

/* eq.c */
int mxd_ptl_eq_alloc_call(ptl_handle_ni_t h, ptl_size_t count,
		ptl_eq_handler_t handler, ptl_handle_eq_t *out);
int mxd_ptl_eq_free_call(ptl_handle_eq_t h);
int mxd_ptl_eq_get_call(ptl_handle_eq_t h, ptl_event_t *ev);
int mxd_ptl_eq_poll(const ptl_handle_eq_t *hs, int n, ptl_time_t timeout,
		ptl_event_t *ev, int *which);

/* move.c */
int mxd_ptl_put(ptl_handle_md_t h, ptl_size_t loff, ptl_size_t len,
		int whole, ptl_ack_req_t ack, ptl_process_id_t target,
		ptl_pt_index_t pt, ptl_ac_index_t ac, ptl_match_bits_t bits,
		ptl_size_t roff, ptl_hdr_data_t hdr_data);
int mxd_ptl_get(ptl_handle_md_t h, ptl_size_t loff, ptl_size_t len,
		int whole, ptl_process_id_t target, ptl_pt_index_t pt,
		ptl_ac_index_t ac, ptl_match_bits_t bits, ptl_size_t roff);

#endif /* MXD_PTL_H */
