/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ch3:nemesis:mx, the MPICH netmod of mx-dpdk: MPI over the MX API.
 *
 * MPI point-to-point messages do not go through ch3's packet protocol:
 * the netmod overrides ch3's send and receive calls (ENABLE_COMM_OVERRIDES)
 * and hands each message to MX with the MPI envelope in the 64-bit match
 * value, so MX matches them in order per sender, keeps the unexpected
 * ones, and moves large ones by its own rendezvous, pulled straight into
 * the receive buffer.  MPI_Ssend is mx_issend (completes once matched).
 *
 * What ch3 still sends as packets (RMA, the close protocol, dynamic
 * processes) is a byte stream per VC: each chunk is one MX message of kind
 * PKT, received by the unexpected handler into a buffer and fed to
 * MPID_nem_handle_pkt() in the order MX matched the chunks.
 *
 * Match value:
 *
 *   63   60 59           44 43           28 27                         0
 *  +-------+---------------+---------------+----------------------------+
 *  | kind  |  context id   |  source rank  |  tag                       |
 *  +-------+---------------+---------------+----------------------------+
 *
 *  kind MPI   context id and tag of the message, rank of the sender in
 *             the communicator (ch3's match.parts)
 *  kind PKT   context 0; "source" the sender's rank in its process group,
 *             "tag" its group's number (IdToNum), or MXN_PKT_CM with the
 *             port tag in "source" for a VC outside any group
 *  kind CONN  a connect-to-root request (dynamic processes)
 *  kind HELLO MPI_Init: the sender (its rank in "source") connected to us
 *
 * The netmod takes no lock: ch3 serialises its calls, and the MX library
 * takes its own only when several threads use it.
 */
#ifndef MX_IMPL_H_INCLUDED
#define MX_IMPL_H_INCLUDED

#include "mpid_nem_impl.h"
#include <myriexpress.h>
#include <mx_extensions.h>

/* ---- match value --------------------------------------------------------- */

#define MXN_KIND_SHIFT	60
#define MXN_CTX_SHIFT	44
#define MXN_SRC_SHIFT	28
#define MXN_TAG_BITS	28

#define MXN_KIND_MASK	(0xfull << MXN_KIND_SHIFT)
#define MXN_CTX_MASK	(0xffffull << MXN_CTX_SHIFT)
#define MXN_SRC_MASK	(0xffffull << MXN_SRC_SHIFT)
#define MXN_TAG_MASK	((1ull << MXN_TAG_BITS) - 1)

enum mxn_kind {
	MXN_KIND_MPI = 0,	/* an MPI point-to-point message */
	MXN_KIND_PKT = 1,	/* a chunk of a VC's ch3 packet stream */
	MXN_KIND_CONN = 2,	/* connect_to_root: the child's card */
	MXN_KIND_HELLO = 3,	/* init: "I connected to you" (connect_all) */
};

#define MXN_KIND(k)	((uint64_t)(k) << MXN_KIND_SHIFT)
#define MXN_PKT_CM	(1u << (MXN_TAG_BITS - 1))	/* "tag" of a VC
							   outside any group */

static inline uint64_t
mxn_match_mpi(int context_id, int rank, int tag)
{
	return MXN_KIND(MXN_KIND_MPI) |
		((uint64_t)(uint16_t)context_id << MXN_CTX_SHIFT) |
		((uint64_t)(uint16_t)rank << MXN_SRC_SHIFT) |
		((uint64_t)tag & MXN_TAG_MASK);
}

static inline int
mxn_match_rank(uint64_t m)
{
	return (int)((m & MXN_SRC_MASK) >> MXN_SRC_SHIFT);
}

static inline int
mxn_match_tag(uint64_t m)
{
	return (int)(m & MXN_TAG_MASK);
}

/* ---- what an MX request's context points at ------------------------------ */

/*
 * Every MX request carries a pointer to one of these as its context, so
 * the poll loop knows what completed without a lookup.
 */
enum mxn_op_kind {
	MXN_OP_SEND,		/* an MPI send (REQ_MX of its MPIR_Request) */
	MXN_OP_RECV,		/* an MPI receive, or a claimed mprobe */
	MXN_OP_PKT_SEND,	/* a ch3 packet chunk, iSendContig & co */
	MXN_OP_PKT_RECV,	/* a packet chunk arriving (struct mxn_chunk) */
	MXN_OP_CONNECT,		/* mx_iconnect of a VC (VC_MX) */
	MXN_OP_HELLO,		/* a hello sent by connect_all: nothing to do */
};

struct mxn_op {
	uint8_t kind;		/* enum mxn_op_kind */
};

/* An improbe'd message: MX receives it into 'pack' at once (so nothing
 * else can match it); the user's buffer comes with imrecv. */
enum mxn_mprobe {
	MXN_MPROBE_NONE,
	MXN_MPROBE_CLAIMED,	/* MX receiving into pack, no user buffer */
	MXN_MPROBE_LANDED,	/* data in pack, no user buffer yet */
	MXN_MPROBE_POSTED,	/* user buffer given, data not there yet */
};

/* ---- per request --------------------------------------------------------- */

#define MXN_REQ_SEGS	2

/* Netmod state in an MPIR_Request (ch.netmod_area). */
struct mxn_req {
	struct mxn_op op;
	uint8_t sync;		/* send: mx_issend */
	uint8_t anysource;	/* recv: posted with MPI_ANY_SOURCE */
	uint8_t done;		/* recv: MX finished with it (matched and
				   reaped), ch3 must not cancel it */
	uint8_t mprobe;		/* recv: enum mxn_mprobe */
	uint8_t counted;	/* send: counted in VC_MX(vc)->sends */
	uint32_t nseg;
	mx_request_t mxr;	/* the MX request, NULL once reaped */
	MPIDI_VC_t *vc;		/* sends: their VC (queue, counts) */
	void *pack;		/* packed copy of noncontiguous data */
	mx_segment_t *segs;	/* seg, or a malloc'ed gather list */
	mx_segment_t seg[MXN_REQ_SEGS];
	uint64_t match;
	MPIR_Request *qnext;	/* the VC's queue of sends waiting for the
				   connection */
	uint32_t xfer_len;	/* mprobe: bytes that landed in pack */
	int error;		/* mprobe: the MX receive's outcome */
};

#define REQ_MX(req) ((struct mxn_req *)(req)->ch.netmod_area.padding)

/* A packet stream chunk being received (not an MPIR_Request). */
struct mxn_chunk {
	struct mxn_op op;
	uint8_t done;		/* MX is done with it */
	uint8_t conn;		/* a CONN card, not a packet chunk */
	uint32_t len;
	struct mxn_chunk *next;	/* the VC's chunks in match order */
	MPIDI_VC_t *vc;
	char data[];
};

/* ---- per VC -------------------------------------------------------------- */

enum mxn_vc_state {
	MXN_VC_IDLE,		/* no MX connection asked for yet */
	MXN_VC_CONNECTING,	/* mx_iconnect pending, sends queued */
	MXN_VC_CONNECTED,
	MXN_VC_FAILED,		/* the connect failed: sends fail */
};

/* Netmod state in an MPIDI_VC_t (ch.netmod_area). */
struct mxn_vc {
	struct mxn_op op;	/* context of the mx_iconnect */
	uint8_t state;		/* enum mxn_vc_state */
	uint8_t terminate;	/* ch3 closed it: terminate once drained */
	uint8_t cm;		/* made by connect_to_root or accept */
	uint8_t card_known;	/* nic_id and ep_id are filled */
	uint32_t ep_id;
	uint64_t nic_id;
	mx_endpoint_addr_t addr;
	uint32_t sends;		/* MX sends in flight plus queued ones */
	int error;		/* MPI error code of a failed connect */
	MPIR_Request *q_head, *q_tail;	/* sends waiting for the connect */
	struct mxn_chunk *rx_head, *rx_tail;	/* packet chunks, in order */
	MPIDI_VC_t *cm_next;	/* list of cm VCs */
};

#define VC_MX(vc) ((struct mxn_vc *)(vc)->ch.netmod_area.padding)

/* ---- the netmod ------------------------------------------------------------ */

struct mxn_global {
	mx_endpoint_t ep;
	uint64_t nic_id;
	uint32_t ep_id;
	uint32_t filter;
	uint32_t eager_max;	/* MX_COPY_SEND_MAX: a send up to this long
				   completes inside mx_isend (mx_send.c) */
	char name[MX_MAX_HOSTNAME_LEN];	/* our board's name */
	MPIDI_PG_t *pg;		/* our process group */
	int rank;		/* our rank in it */
	int pgnum;		/* its number (MPIDI_PG_IdToNum) */
	MPIDI_VC_t *cm_vcs;	/* VCs outside any group */
	int nterm;		/* VCs waiting to terminate */
	struct mxn_chunk *conn_rx;	/* connect_to_root cards arrived */
	mx_endpoint_addr_t *addrs;	/* our group's addresses, connected
					   at init (see connect_all) */
	uint8_t *addr_ok;
};

extern struct mxn_global mxn;
extern MPIDI_Comm_ops_t mxn_comm_ops;

/* mx_init.c */
int MPID_nem_mx_init(MPIDI_PG_t *pg_p, int pg_rank, char **bc_val_p,
		int *val_max_sz_p);
int MPID_nem_mx_finalize(void);
int MPID_nem_mx_get_business_card(int my_rank, char **bc_val_p,
		int *val_max_sz_p);
int MPID_nem_mx_connect_to_root(const char *business_card,
		MPIDI_VC_t *new_vc);
int MPID_nem_mx_vc_init(MPIDI_VC_t *vc);
int MPID_nem_mx_vc_destroy(MPIDI_VC_t *vc);
int MPID_nem_mx_vc_terminate(MPIDI_VC_t *vc);
int MPID_nem_mx_get_ordering(int *ordering);
int mxn_error(const char *what, mx_return_t rc);
int mxn_status_error(const mx_status_t *st);
int mxn_vc_connect(MPIDI_VC_t *vc);
int mxn_vc_connected(MPIDI_VC_t *vc, const mx_status_t *st);
int mxn_vc_send_done(MPIDI_VC_t *vc);
int mxn_conn_arrived(struct mxn_chunk *c);
MPIDI_VC_t *mxn_pkt_source(uint64_t match);

/* mx_send.c */
int mxn_data_segs(struct mxn_req *r, const void *buf, MPI_Aint count,
		MPI_Datatype datatype, int recv);
void mxn_segs_free(struct mxn_req *r);
int MPID_nem_mx_send(MPIDI_VC_t *vc, const void *buf, MPI_Aint count,
		MPI_Datatype datatype, int rank, int tag, MPIR_Comm *comm,
		int context_offset, MPIR_Request **request);
int MPID_nem_mx_ssend(MPIDI_VC_t *vc, const void *buf, MPI_Aint count,
		MPI_Datatype datatype, int rank, int tag, MPIR_Comm *comm,
		int context_offset, MPIR_Request **request);
int MPID_nem_mx_cancel_send(MPIDI_VC_t *vc, MPIR_Request *sreq);
int MPID_nem_mx_iSendContig(MPIDI_VC_t *vc, MPIR_Request *sreq, void *hdr,
		intptr_t hdr_sz, void *data, intptr_t data_sz);
int MPID_nem_mx_iStartContigMsg(MPIDI_VC_t *vc, void *hdr, intptr_t hdr_sz,
		void *data, intptr_t data_sz, MPIR_Request **sreq_ptr);
int MPID_nem_mx_iSendIov(MPIDI_VC_t *vc, MPIR_Request *sreq, void *hdr,
		intptr_t hdr_sz, struct iovec *iov, int n_iov);
int MPID_nem_mx_SendNoncontig(MPIDI_VC_t *vc, MPIR_Request *sreq,
		void *hdr, intptr_t hdr_sz, struct iovec *hdr_iov,
		int n_hdr_iov);
int mxn_post_send(MPIR_Request *sreq);
int mxn_send_done(MPIR_Request *sreq, const mx_status_t *st);
int mxn_pkt_send_done(MPIR_Request *sreq, const mx_status_t *st);
void mxn_fail_queue(MPIDI_VC_t *vc, int mpi_errno);

/* mx_recv.c */
int MPID_nem_mx_recv_posted(MPIDI_VC_t *vc, MPIR_Request *rreq);
void MPID_nem_mx_anysource_posted(MPIR_Request *rreq);
int MPID_nem_mx_anysource_matched(MPIR_Request *rreq);
int MPID_nem_mx_cancel_recv(MPIDI_VC_t *vc, MPIR_Request *rreq);
int MPID_nem_mx_iprobe(MPIDI_VC_t *vc, int source, int tag, MPIR_Comm *comm,
		int context_offset, int *flag, MPI_Status *status);
int MPID_nem_mx_improbe(MPIDI_VC_t *vc, int source, int tag,
		MPIR_Comm *comm, int context_offset, int *flag,
		MPIR_Request **message, MPI_Status *status);
int MPID_nem_mx_imrecv(MPIDI_VC_t *vc, MPIR_Request *rreq);
int MPID_nem_mx_anysource_iprobe(int tag, MPIR_Comm *comm,
		int context_offset, int *flag, MPI_Status *status);
int MPID_nem_mx_anysource_improbe(int tag, MPIR_Comm *comm,
		int context_offset, int *flag, MPIR_Request **message,
		MPI_Status *status);
int mxn_recv_done(MPIR_Request *rreq, const mx_status_t *st);
int mxn_chunk_done(struct mxn_chunk *c, const mx_status_t *st);
mx_unexp_handler_action_t mxn_unexp_handler(void *context,
		mx_endpoint_addr_t source, uint64_t match_value,
		uint32_t length, void *data_if_available);

/* mx_poll.c */
int MPID_nem_mx_poll(int in_blocking_poll);

#endif /* MX_IMPL_H_INCLUDED */
