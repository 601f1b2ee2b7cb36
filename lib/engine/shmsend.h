/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host path, its lower half (engine): a board's state for the
 * processes of its host (struct mxd_shm), which partners are same-host
 * partners, and every record this process writes into a ring: messages,
 * notices, connect requests, BYE, large reads.  Records are read, and
 * peers' lives followed, by engine/shm.c, which calls this file; the
 * engine's other files call it at the few places where a same-host
 * partner takes another way than the wire (send.c, acks.c, pull.c,
 * connect.c).  The ring format is board/hring.h's; the design is in
 * shm.c's opening comment.
 */
#ifndef MXD_SHMSEND_H
#define MXD_SHMSEND_H

#include <stdint.h>

#include "board/hring.h"
#include "partners/endpoint.h"
#include "partners/xmit.h"

/* Record kinds (struct mxd_hrec.kind) and what their fields hold. */
enum mxd_hrec_kind {
	MXD_HREC_PAD = MXD_HREC_PAD_KIND,	/* filler to the ring's end */
	MXD_HREC_MSG,		/* an eager message: match, len bytes;
				 * aux: its number (MATCHED names it) */
	MXD_HREC_RNDV,		/* a large message announced: match;
				 * payload: struct mxd_shm_desc */
	MXD_HREC_MATCHED,	/* aux: the number of a message matched */
	MXD_HREC_NOTIFY,	/* aux: a large send's handle, all read */
	MXD_HREC_GET,		/* copy a large send through the ring: aux
				 * its handle, match: read id << 32 | bytes */
	MXD_HREC_DATA,		/* len bytes of it: aux read id, match the
				 * offset; flags MXD_HF_GONE: it ended */
	MXD_HREC_CONN_REQ,	/* aux: connect id; match: the filter
				 * asked << 32 | the sender's filter */
	MXD_HREC_CONN_REP,	/* aux: connect id; match: status */
	MXD_HREC_BYE,		/* the sending endpoint closes */
	MXD_HREC_NACK,		/* a record refused: aux its number, match
				 * the reason (enum mxd_nack_reason) */
	MXD_HREC_PUT,		/* write a large send's second half into
				 * the reader: aux the send's handle;
				 * payload: struct mxd_shm_put */
	MXD_HREC_KINDS
};

#define MXD_HF_SYNC	0x01	/* MSG, RNDV: mx_issend, answer MATCHED */
#define MXD_HF_GONE	0x02	/* DATA: the send is gone, nothing more */

/* A large message's descriptor (RNDV payload): the wire's descriptor
 * (length, send handle), then the sender's segments, which the receiver
 * reads (process_vm_readv) in the sender's process. */
struct mxd_shm_seg {
	uint64_t addr, len;
};
struct mxd_shm_desc {
	uint8_t wire[16];		/* struct mxd_rndv_desc (wire.h) */
	uint32_t nseg;
	uint32_t pad;
	struct mxd_shm_seg seg[];	/* [nseg] */
};

/*
 * A large message's second half offered to its sender (PUT payload): the
 * reader's claim word (in the header of its ring to the sender, hring.h),
 * the offset and length in the message, and the reader's segments that
 * take them.  The claim word goes OFFER -> SENDER -> DONE (or RECEIVER:
 * the sender could not), or OFFER -> RECEIVER (the reader took it back,
 * its own half done first): whoever changes it from OFFER copies.
 */
struct mxd_shm_put {
	uint32_t claim;			/* index of the claim word */
	uint32_t gen;			/* the offer's, in the word */
	uint32_t off, len;
	uint32_t nseg;
	uint32_t pad;
	struct mxd_shm_seg seg[];	/* [nseg], in the reader's memory */
};

enum mxd_shm_claim {
	MXD_CLAIM_OFFER = 1,
	MXD_CLAIM_SENDER,		/* the sender writes it */
	MXD_CLAIM_RECEIVER,		/* the reader reads it */
	MXD_CLAIM_DONE,			/* the sender wrote it */
};
#define MXD_CLAIM(gen, state)	((gen) << 3 | (uint32_t)(state))
#define MXD_CLAIM_STATE(w)	((w) & 7u)
/* Large receives at least this long are split (each half at least 128
 * KiB): the two processes copy at once, each its half, on its CPU. */
#define MXD_SHM_SPLIT_MIN	(256u << 10)

/* How large messages from a peer are read. */
enum mxd_shm_read {
	MXD_SHM_READ_TRY = 0,	/* process_vm_readv, not tried yet */
	MXD_SHM_READ_PVR,	/* process_vm_readv works */
	MXD_SHM_READ_COPY,	/* refused: copied through the ring */
};

/* A record without payload (a notice, a GET) that waits for ring
 * room: from which endpoint to which of its partners, what. */
struct mxd_shm_note {
	struct mx_endpoint *ep;
	uint16_t peer;			/* the partner's index */
	uint8_t kind;			/* MXD_HREC_* */
	uint32_t aux;
	uint64_t match;
};

/* A large send being copied through the ring (MXD_SHM_READ_COPY). */
struct mxd_shm_job {
	struct mx_endpoint *ep;
	uint16_t peer;			/* partner's index */
	uint32_t handle;		/* the send's (rndv.c's table) */
	uint32_t id;			/* the reader's */
	uint32_t off, end;
};

/* A large receive copied through the ring, read by id. */
struct mxd_shm_pull {
	struct mx_request *r;
	struct mxd_partner *p;
	uint32_t id;			/* 0: free */
	uint32_t handle;		/* the send's */
	uint32_t total, got;
	/* A split read (process_vm_readv): its second half offered in
	 * claim word 'claim' - 1 (0: not split), from offset 'half'. */
	uint8_t claim;
	uint8_t waiting;		/* for the sender's half (shm->splits) */
	uint32_t claim_gen, half;
	mx_status_code_t fail;		/* our half failed: then this */
};

/* Another slot of the host, as this process knows it. */
struct mxd_shm_peer {
	/* What every pass reads: the ring from it (polled at rx.next). */
	struct mxd_hring_rx rx;
	uint32_t held;			/* records left in [tail, next) */
	uint32_t epoch;			/* its owner's, 0: none known */
	int32_t pid;
	int pidfd;			/* -1: none */
	uint8_t read;			/* enum mxd_shm_read */
	uint8_t tx_ok;			/* tx is set up for 'epoch' */
	uint8_t rx_on;			/* rx is attached */
	uint32_t rx_epoch;		/* its producer's epoch */
	uint32_t let_go;		/* a producer epoch let go of */
	/* rx: the first record not taken, kept while records are held
	 * (held != 0); while none is, it is rx.next, and not kept. */
	uint64_t tail;
	uint32_t tail_off;
	uint64_t retry_key;		/* what held records wait for */
	uint32_t retry_polls;		/* polls since they were tried */
	uint32_t claims;		/* claim words in use (split reads) */
	uint32_t claim_gen;
	uint64_t *taken;		/* rx: records in [tail, next) taken,
					 * a bit by first cell */
	struct mxd_hring_tx tx;
	/* Waiting for ring room, in order: partners with queued sends
	 * (their p->a->sending), notices, copies. */
	struct mxd_list sending;
	struct mxd_shm_note *notes;
	uint32_t notes_n, notes_cap;
	struct mxd_shm_job *jobs;
	uint32_t jobs_n, jobs_cap;
};

/* A board's same-host state (b->shm), while it has a host segment. */
struct mxd_shm {
	struct mxd_board *b;
	struct mxd_host *h;
	unsigned slot, nslots;
	uint32_t epoch;			/* our slot's */
	uint64_t rx_mask;		/* slots whose ring to us is read */
	uint64_t work;			/* slots with something waiting */
	uint32_t eager_max;		/* largest eager message */
	uint32_t rec_max;		/* cells of the largest record */
	uint32_t ncells;		/* of every ring */
	uint64_t *mail;			/* our mailbox */
	uint32_t pulls_cap, pull_gen;
	uint32_t splits;		/* split reads waiting for their
					 * second half (mxd_shm_splits) */
	struct mxd_shm_pull *pulls;
	uint8_t scan;			/* every ring to us: attach those set up */
	uint32_t passes;		/* a call's passes to the general one
					 * (progress.c: pass_call_shm) */
	struct mxd_shm_peer peer[MXD_HOST_SLOTS_MAX];
};

/* Sets up b's same-host state for its host segment (b->host, b->slot);
 * 0 or -MX_NO_RESOURCES, -MX_BAD_PARAM_VAL (a segment of another
 * version or too small). */
int mxd_shm_attach(struct mxd_board *b);
void mxd_shm_detach(struct mxd_board *b);

/* Endpoint ids on a shared board: claimed in the host segment's table
 * at open (unless the board service did already), released at close.
 * Claim: 0 or -MX_BUSY. */
int mxd_shm_ep_claim(struct mxd_board *b, uint32_t id);
void mxd_shm_ep_release(struct mxd_board *b, uint32_t id);
/* What the board's same-host state holds of ep (notices to send,
 * copies), forgotten: ep closes. */
void mxd_shm_ep_gone(struct mx_endpoint *ep);

/*
 * Decides whether p (its NIC id ours) is a same-host partner: its
 * endpoint id held by another slot of the host segment.  Then p->shm,
 * its slot and the slot owner's epoch are set (p->local is 0); else, as
 * any partner on our board, p->local.  Called when a connect starts and
 * when a connect request comes from another slot.
 */
void mxd_shm_route(struct mxd_partner *p);

/* p->hdr: the header of p's message records (all but seq, kind, flags,
 * cells, len, aux, match: written per record), made when its fields
 * change (p->shm_hdr_ok 0). */
void mxd_shm_hdr_build(struct mxd_partner *p);

static inline void
mxd_shm_hdr_fill(struct mxd_partner *p, struct mxd_hrec *rec, uint8_t kind,
		uint8_t flags, uint32_t cells, uint32_t len, uint32_t aux,
		uint64_t match)
{
	if (!p->shm_hdr_ok)
		mxd_shm_hdr_build(p);
	memcpy(rec, p->hdr, MXD_HREC_HLEN);	/* seq 0: not whole yet */
	rec->kind = kind;
	rec->flags = flags;
	rec->cells = (uint16_t)cells;
	rec->len = len;
	rec->aux = aux;
	rec->match = match;
}

/* The next message number to p: the ring delivers in order and loses
 * nothing, so it is acknowledged as it is taken (p->tx stays empty). */
static inline uint32_t
mxd_shm_msg_number(struct mxd_partner *p)
{
	uint32_t seq = p->tx.next_seq++;

	p->tx.acked = seq;
	return seq;
}

/*
 * mx_isend's common case to same-host partner p (api.c): one segment of
 * an eager message, p up with nothing to report and nothing queued, no
 * request timeout, room in the ring: copied into a record (made whole
 * first, the request's bookkeeping after, while the record is on its
 * way), the request returned done.  NULL (nothing done) otherwise: the
 * general way.  Inline in mx_isend's way to a same-host partner.
 */
static inline __attribute__((always_inline)) struct mx_request *
mxd_shm_isend(struct mx_endpoint *ep, struct mxd_partner *p,
		const mx_segment_t *seg, uint64_t match, void *context)
{
	struct mxd_shm_peer *pe = &ep->board->shm->peer[p->shm_slot];
	uint32_t len = seg->segment_length, cells = mxd_hrec_cells(len), seq;
	struct mx_request *r = ep->reqs.free;
	struct mxd_hrec *rec;
	uint8_t *d;

	if (r == NULL || !pe->tx_ok || p->state != MXD_PS_UP ||
			p->unreported != MX_STATUS_SUCCESS ||
			ep->req_timeout_ms != 0 || len > p->eager_max ||
			(p->a != NULL && !mxd_list_empty(&p->a->sendq)) ||
			(rec = mxd_hring_reserve(&pe->tx, cells)) == NULL)
		return NULL;
	seq = mxd_shm_msg_number(p);
	mxd_shm_hdr_fill(p, rec, MXD_HREC_MSG, 0, cells, len, seq, match);
	d = mxd_hrec_data(rec);
	if (len <= 16)
		mxd_copy_upto16(d, seg->segment_ptr, len);
	else
		memcpy(d, seg->segment_ptr, len);
	mxd_hring_commit(&pe->tx, rec, cells);
	/* Done: what the application reads. */
	ep->reqs.free = r->pool_next;
	mxd_req_init(r, MXD_REQ_SEND, MXD_RS_COMPLETE);
	r->partner = p;
	r->seq = seq;
	r->length = len;
	r->status.code = MX_STATUS_SUCCESS;
	mxd_partner_addr(p, &r->status.source);
	r->status.match_info = match;
	r->status.msg_length = r->status.xfer_length = len;
	r->status.context = context;
	mxd_ep_done_add(ep, r);
	mxd_count(ep->board, MXD_C_TX_MSGS);
	mxd_count(ep->board, MXD_C_SHM_TX);
	return r;
}
/* A same-host partner's send r (eager or large) into the ring, or onto
 * p's send queue when the ring has no room (send.c: mxd_send_post). */
void mxd_shm_send(struct mx_request *r);
/* A notice (MXD_NOTE_MATCHED/NOTIFY, wire.h) to same-host partner p. */
void mxd_shm_notice(struct mxd_partner *p, uint8_t kind, uint32_t value);
/* Writes a record with no payload to slot s: h's fields but seq, cells
 * and len; 0, or -1 when the ring has no room or cannot be set up yet. */
int mxd_shm_ctl(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *h);
/* Answers record 'to' (from slot s) with a record of 'kind' from its
 * endpoint (src_peer, src_session: ours as its partner, or none); none
 * if the ring has no room. */
void mxd_shm_reply(struct mxd_shm *shm, unsigned s, const struct mxd_hrec *to,
		uint8_t kind, uint16_t src_peer, uint32_t src_session,
		uint32_t aux, uint64_t match);
/* A connect request to same-host partner p (connect.c); 0 sent (or to
 * be sent again at the next retry), 1: p's endpoint is open nowhere. */
int mxd_shm_conn_req(struct mx_endpoint *ep, struct mxd_partner *p);
/* BYE to same-host partner p (mx_close_endpoint). */
void mxd_shm_bye(struct mxd_partner *p);
/* Whether anything of ep waits for ring room (mx_close_endpoint
 * lingers for it). */
int mxd_shm_ep_busy(const struct mx_endpoint *ep);

/* Receive r took large message 'desc' of same-host partner p (pull.c:
 * mxd_pull_start): read now (process_vm_readv) and completed, or asked
 * of the sender to copy through the ring; 'fail': fails r at once. */
void mxd_shm_read_start(struct mx_request *r, struct mxd_partner *p,
		const uint8_t *desc, mx_status_code_t fail);

/* The ring to slot s, set up for its current owner; NULL if it cannot
 * be now (its previous reader still drains it) or the slot has none. */
struct mxd_hring_tx *mxd_shm_tx(struct mxd_shm *shm, unsigned s);
/* Sends what waits for room towards slot s, as room allows. */
void mxd_shm_pump(struct mxd_shm *shm, unsigned s);
/* Large receives copied through the ring, by reader id. */
struct mxd_shm_pull *mxd_shm_pull_find(struct mxd_shm *shm, uint32_t id);
void mxd_shm_pull_end(struct mxd_shm *shm, struct mxd_shm_pull *pl,
		mx_status_code_t code);
/* Split reads whose second half the sender writes: ended once it did
 * (every pass while shm->splits). */
void mxd_shm_splits(struct mxd_shm *shm);
/* PUT from slot s (same-host partner p): the second half of a large send
 * of ours written into its reader, if the offer is still open. */
void mxd_shm_put_serve(struct mxd_shm *shm, unsigned s, struct mxd_partner *p,
		const struct mxd_hrec *rec);
/* Fails same-host partner p's large receives copied through the ring
 * (pull.c: mxd_pulls_fail). */
void mxd_shm_pulls_fail(struct mxd_partner *p, mx_status_code_t code);
/* Whether p moved: a same-host partner whose endpoint id another owner
 * holds now (connect.c ends what was going on with it first). */
int mxd_shm_moved(const struct mxd_partner *p);
/* The owner of slot s, of epoch e, is the one we know now: its pid, a
 * pidfd on it, how its large messages are read. */
void mxd_shm_peer_know(struct mxd_shm *shm, unsigned s, uint32_t e);

#endif /* MXD_SHMSEND_H */
