/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending: MPI messages (ch3's send overrides) and ch3 packet chunks
 * (iSendContig, iStartContigMsg, iSendIov, SendNoncontig) both become one
 * mx_isend (mx_issend for MPI_Ssend) from a request's segment list.
 *
 * Contiguous data is sent from the user's buffer: MX copies small and
 * medium messages into frames and lets the receiver pull large ones from
 * it.  A noncontiguous datatype that flattens to at most MXN_GATHER_MAX
 * pieces goes as an MX gather list; a finer one is packed first (MX does
 * not take longer lists).  A packet's header is copied (ch3 keeps it on
 * its stack), never its data.
 *
 * A VC gets its MX address on its first send (mx_iconnect); its sends
 * wait in order on the VC until the connect completes, and each counts
 * in VC_MX(vc)->sends until it completes, for vc_terminate.
 */
#include "mx_impl.h"

#define MXN_GATHER_MAX 17	/* MX_MAX_SEGMENTS of the MX 1.0 spec */

/* ---- segments -------------------------------------------------------------- */

static void
req_reset(MPIR_Request *req, enum mxn_op_kind kind, MPIDI_VC_t *vc)
{
	struct mxn_req *r = REQ_MX(req);

	memset(r, 0, sizeof(*r));
	r->op.kind = kind;
	r->vc = vc;
	r->segs = r->seg;
}

/* Makes room for n segments (the inline ones, or a list). */
static int
segs_alloc(struct mxn_req *r, size_t n)
{
	if (n <= MXN_REQ_SEGS)
		return MPI_SUCCESS;
	r->segs = MPL_malloc(n * sizeof(*r->segs), MPL_MEM_BUFFER);
	if (r->segs == NULL) {
		r->segs = r->seg;
		return MPI_ERR_NO_MEM;
	}
	return MPI_SUCCESS;
}

void
mxn_segs_free(struct mxn_req *r)
{
	if (r->segs != r->seg)
		MPL_free(r->segs);
	r->segs = r->seg;
	r->nseg = 0;
}

static int
seg_add(struct mxn_req *r, const void *p, MPI_Aint len)
{
	if (len < 0 || (uint64_t)len > UINT32_MAX)
		return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
				__func__, __LINE__, MPI_ERR_COUNT, "**fail",
				"**fail %s", "mx netmod: a message of 4 GiB "
				"or more");
	if (len == 0)
		return MPI_SUCCESS;
	r->segs[r->nseg].segment_ptr = (void *)(uintptr_t)p;
	r->segs[r->nseg].segment_length = (uint32_t)len;
	r->nseg++;
	return MPI_SUCCESS;
}

/*
 * The data of (buf, count, datatype) as an MX gather (or scatter) list;
 * with too many pieces, a bounce buffer in r->pack: packed now for a
 * send, unpacked at completion for a receive.
 */
int
mxn_data_segs(struct mxn_req *r, const void *buf, MPI_Aint count,
		MPI_Datatype datatype, int recv)
{
	MPI_Aint lb, data_sz, n = 0, got, actual;
	MPIR_Datatype *dt_ptr;
	int contig, mpi_errno;

	MPIDI_Datatype_get_info(count, datatype, contig, data_sz, dt_ptr, lb);
	(void)dt_ptr;
	if (contig || data_sz == 0)
		return seg_add(r, MPIR_get_contig_ptr(buf, lb), data_sz);
	mpi_errno = MPIR_Typerep_iov_len(count, datatype, data_sz, &n);
	if (mpi_errno == MPI_SUCCESS && n <= MXN_GATHER_MAX &&
			segs_alloc(r, (size_t)n) == MPI_SUCCESS) {
		struct iovec iov[MXN_GATHER_MAX];

		mpi_errno = MPIR_Typerep_to_iov(buf, count, datatype, 0, iov,
				n, data_sz, &got, &actual);
		if (mpi_errno == MPI_SUCCESS && actual == data_sz) {
			for (MPI_Aint i = 0; i < got; i++) {
				mpi_errno = seg_add(r, iov[i].iov_base,
						(MPI_Aint)iov[i].iov_len);
				if (mpi_errno)
					return mpi_errno;
			}
			return MPI_SUCCESS;
		}
		mxn_segs_free(r);
	}
	/* Too many pieces for a gather list: a bounce buffer. */
	r->pack = MPL_malloc(data_sz, MPL_MEM_BUFFER);
	if (r->pack == NULL)
		return MPI_ERR_NO_MEM;
	if (recv)
		return seg_add(r, r->pack, data_sz);
	mpi_errno = MPIR_Typerep_pack(buf, count, datatype, 0, r->pack,
			data_sz, &actual);
	if (mpi_errno)
		return mpi_errno;
	return seg_add(r, r->pack, actual);
}

/* ---- posting ------------------------------------------------------------------ */

static void
enqueue(MPIDI_VC_t *vc, MPIR_Request *sreq)
{
	struct mxn_vc *v = VC_MX(vc);

	REQ_MX(sreq)->qnext = NULL;
	if (v->q_tail != NULL)
		REQ_MX(v->q_tail)->qnext = sreq;
	else
		v->q_head = sreq;
	v->q_tail = sreq;
}

/* Completes a send that never reached MX, with an error. */
static int
fail_send(MPIR_Request *sreq, int mpi_errno)
{
	mx_status_t st;

	memset(&st, 0, sizeof(st));
	st.code = MX_STATUS_ENDPOINT_UNREACHABLE;
	sreq->status.MPI_ERROR = mpi_errno;
	if (REQ_MX(sreq)->op.kind == MXN_OP_SEND)
		return mxn_send_done(sreq, &st);
	return mxn_pkt_send_done(sreq, &st);
}

/*
 * MX completes a send of up to MX_COPY_SEND_MAX bytes inside mx_isend,
 * once its data is copied into frames.  Such an MPI send completes here
 * and then, and MPI_Send returns without a turn of ch3's progress engine:
 * that turn ran a whole MX pass (rx burst, timers, tx flush) before the
 * poll handed the completion over.  Measured under callgrind (8-byte
 * ping-pong over memif): MPI_Send 4736 -> 2402 instructions; and a sender
 * slowed down no longer takes the reply in that pass, before its receive
 * is posted (1951 of 4300 replies went through MX's unexpected queue,
 * now 0).  mx_test runs no pass on a complete request; on one still
 * waiting for the send window, it runs the one pass the wait would.
 */
static int
reap_eager(MPIR_Request *sreq)
{
	struct mxn_req *r = REQ_MX(sreq);
	uint32_t done = 0;
	mx_status_t st;
	mx_return_t rc;

	rc = mx_test(mxn.ep, &r->mxr, &st, &done);
	if (rc != MX_SUCCESS)
		return mxn_error("mx_test", rc);
	return done ? mxn_send_done(sreq, &st) : MPI_SUCCESS;
}

/* Hands sreq to MX now (its VC is connected). */
static int
issue(MPIR_Request *sreq)
{
	struct mxn_req *r = REQ_MX(sreq);
	struct mxn_vc *v = VC_MX(r->vc);
	uint64_t len = 0;
	mx_return_t rc;

	for (uint32_t i = 0; i < r->nseg; i++)
		len += r->segs[i].segment_length;
	if (r->sync)
		rc = mx_issend(mxn.ep, r->segs, r->nseg, v->addr, r->match,
				&r->op, &r->mxr);
	else
		rc = mx_isend(mxn.ep, r->segs, r->nseg, v->addr, r->match,
				&r->op, &r->mxr);
	mxn_segs_free(r);		/* MX copied the list */
	if (rc != MX_SUCCESS)
		return fail_send(sreq, mxn_error("mx_isend", rc));
	/* Only MPI sends: a packet chunk's OnDataAvail may send the next
	 * chunk, and ch3 expects it from the progress engine. */
	if (r->op.kind == MXN_OP_SEND && !r->sync && len <= mxn.eager_max)
		return reap_eager(sreq);
	return MPI_SUCCESS;
}

/* Sends sreq on its VC, connecting first if need be; keeps the order. */
int
mxn_post_send(MPIR_Request *sreq)
{
	MPIDI_VC_t *vc = REQ_MX(sreq)->vc;
	struct mxn_vc *v = VC_MX(vc);
	int mpi_errno;

	REQ_MX(sreq)->counted = 1;
	v->sends++;
	switch (v->state) {
	case MXN_VC_CONNECTED:
		return issue(sreq);
	case MXN_VC_CONNECTING:
		enqueue(vc, sreq);
		return MPI_SUCCESS;
	case MXN_VC_IDLE:
		enqueue(vc, sreq);
		mpi_errno = mxn_vc_connect(vc);
		if (mpi_errno) {
			v->state = MXN_VC_FAILED;
			v->error = mpi_errno;
			mxn_fail_queue(vc, mpi_errno);
		}
		return MPI_SUCCESS;
	default:
		return fail_send(sreq, v->error);
	}
}

/* Fails every send waiting for vc's connection. */
void
mxn_fail_queue(MPIDI_VC_t *vc, int mpi_errno)
{
	struct mxn_vc *v = VC_MX(vc);

	while (v->q_head != NULL) {
		MPIR_Request *sreq = v->q_head;

		v->q_head = REQ_MX(sreq)->qnext;
		if (v->q_head == NULL)
			v->q_tail = NULL;
		fail_send(sreq, mpi_errno);
	}
}

/* ---- MPI messages ---------------------------------------------------------------- */

static int
mpi_send(MPIDI_VC_t *vc, const void *buf, MPI_Aint count,
		MPI_Datatype datatype, int rank, int tag, MPIR_Comm *comm,
		int context_offset, MPIR_Request **request, int sync)
{
	MPIR_Request *sreq;
	int mpi_errno;

	MPIDI_Request_create_sreq(sreq, mpi_errno, (void)0);
	if (sreq == NULL)
		return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
				__func__, __LINE__, MPI_ERR_OTHER,
				"**nomemreq", NULL);
	req_reset(sreq, MXN_OP_SEND, vc);
	REQ_MX(sreq)->sync = (uint8_t)sync;
	REQ_MX(sreq)->match = mxn_match_mpi(comm->context_id + context_offset,
			comm->rank, tag);
	mpi_errno = mxn_data_segs(REQ_MX(sreq), buf, count, datatype, 0);
	if (mpi_errno == MPI_SUCCESS)
		mpi_errno = mxn_post_send(sreq);
	else
		fail_send(sreq, mpi_errno);	/* reported on the request */
	*request = sreq;
	return MPI_SUCCESS;
}

/* send, isend, rsend, irsend: all return a request; MPI_Send waits on it. */
int
MPID_nem_mx_send(MPIDI_VC_t *vc, const void *buf, MPI_Aint count,
		MPI_Datatype datatype, int rank, int tag, MPIR_Comm *comm,
		int context_offset, MPIR_Request **request)
{
	return mpi_send(vc, buf, count, datatype, rank, tag, comm,
			context_offset, request, 0);
}

int
MPID_nem_mx_ssend(MPIDI_VC_t *vc, const void *buf, MPI_Aint count,
		MPI_Datatype datatype, int rank, int tag, MPIR_Comm *comm,
		int context_offset, MPIR_Request **request)
{
	return mpi_send(vc, buf, count, datatype, rank, tag, comm,
			context_offset, request, 1);
}

/* MX cannot take a send back: MPI lets a cancel fail. */
int
MPID_nem_mx_cancel_send(MPIDI_VC_t *vc, MPIR_Request *sreq)
{
	(void)vc;
	(void)sreq;
	return MPI_SUCCESS;
}

/* An MPI send completed in MX (or failed before it). */
int
mxn_send_done(MPIR_Request *sreq, const mx_status_t *st)
{
	struct mxn_req *r = REQ_MX(sreq);
	MPIDI_VC_t *vc = r->vc;
	int mpi_errno, counted = r->counted;

	if (st->code != MX_STATUS_SUCCESS &&
			sreq->status.MPI_ERROR == MPI_SUCCESS)
		sreq->status.MPI_ERROR = mxn_status_error(st);
	r->mxr = NULL;
	MPL_free(r->pack);
	r->pack = NULL;
	mxn_segs_free(r);
	mpi_errno = MPID_Request_complete(sreq);	/* may free sreq */
	if (mpi_errno == MPI_SUCCESS && counted)
		mpi_errno = mxn_vc_send_done(vc);
	return mpi_errno;
}

/* ---- ch3 packets ------------------------------------------------------------------ */

/* The match value of vc's packet chunks: who we are, seen from the peer. */
static uint64_t
pkt_match(MPIDI_VC_t *vc)
{
	uint64_t m = MXN_KIND(MXN_KIND_PKT);

	if (vc->pg == NULL)	/* a temporary VC of connect/accept */
		return m | ((uint64_t)(uint16_t)vc->port_name_tag <<
				MXN_SRC_SHIFT) | MXN_PKT_CM;
	return m | ((uint64_t)(uint16_t)mxn.rank << MXN_SRC_SHIFT) |
		(uint64_t)(mxn.pgnum & (MXN_PKT_CM - 1));
}

/* A copy of the header, padded to a whole packet as handle_pkt expects. */
static int
pkt_begin(MPIR_Request *sreq, MPIDI_VC_t *vc, const void *hdr,
		intptr_t hdr_sz, size_t extra, size_t nseg)
{
	struct mxn_req *r = REQ_MX(sreq);
	int mpi_errno;

	MPIR_Assert(hdr_sz <= (intptr_t)sizeof(MPIDI_CH3_Pkt_t));
	req_reset(sreq, MXN_OP_PKT_SEND, vc);
	r->match = pkt_match(vc);
	mpi_errno = segs_alloc(r, nseg);
	if (mpi_errno)
		return mpi_errno;
	r->pack = MPL_malloc(sizeof(MPIDI_CH3_Pkt_t) + extra, MPL_MEM_BUFFER);
	if (r->pack == NULL)
		return MPI_ERR_NO_MEM;
	memset(r->pack, 0, sizeof(MPIDI_CH3_Pkt_t));
	memcpy(r->pack, hdr, hdr_sz);
	return seg_add(r, r->pack, sizeof(MPIDI_CH3_Pkt_t));
}

int
MPID_nem_mx_iSendContig(MPIDI_VC_t *vc, MPIR_Request *sreq, void *hdr,
		intptr_t hdr_sz, void *data, intptr_t data_sz)
{
	int mpi_errno = pkt_begin(sreq, vc, hdr, hdr_sz, 0, 2);

	if (mpi_errno == MPI_SUCCESS)
		mpi_errno = seg_add(REQ_MX(sreq), data, data_sz);
	if (mpi_errno)
		return fail_send(sreq, mpi_errno);
	return mxn_post_send(sreq);
}

int
MPID_nem_mx_iStartContigMsg(MPIDI_VC_t *vc, void *hdr, intptr_t hdr_sz,
		void *data, intptr_t data_sz, MPIR_Request **sreq_ptr)
{
	MPIR_Request *sreq = MPIR_Request_create(MPIR_REQUEST_KIND__SEND);
	int mpi_errno;

	MPIR_ERR_CHKANDJUMP(sreq == NULL, mpi_errno, MPI_ERR_OTHER,
			"**nomemreq");
	/* One reference for the caller (it drops it), one for completion. */
	MPIR_Object_set_ref(sreq, 2);
	sreq->dev.OnDataAvail = NULL;
	mpi_errno = MPID_nem_mx_iSendContig(vc, sreq, hdr, hdr_sz, data,
			data_sz);
	*sreq_ptr = sreq;
fn_fail:
	return mpi_errno;
}

int
MPID_nem_mx_iSendIov(MPIDI_VC_t *vc, MPIR_Request *sreq, void *hdr,
		intptr_t hdr_sz, struct iovec *iov, int n_iov)
{
	int mpi_errno = pkt_begin(sreq, vc, hdr, hdr_sz, 0, 1 + n_iov);

	for (int i = 0; i < n_iov && mpi_errno == MPI_SUCCESS; i++)
		mpi_errno = seg_add(REQ_MX(sreq), iov[i].iov_base,
				(MPI_Aint)iov[i].iov_len);
	if (mpi_errno)
		return fail_send(sreq, mpi_errno);
	return mxn_post_send(sreq);
}

/* Header, extended headers and the packed data in one buffer. */
int
MPID_nem_mx_SendNoncontig(MPIDI_VC_t *vc, MPIR_Request *sreq, void *hdr,
		intptr_t hdr_sz, struct iovec *hdr_iov, int n_hdr_iov)
{
	MPI_Aint data_sz = sreq->dev.msgsize - sreq->dev.msg_offset, actual;
	size_t ext = 0, off = sizeof(MPIDI_CH3_Pkt_t);
	struct mxn_req *r = REQ_MX(sreq);
	int mpi_errno;

	for (int i = 0; i < n_hdr_iov; i++)
		ext += hdr_iov[i].iov_len;
	mpi_errno = pkt_begin(sreq, vc, hdr, hdr_sz, ext + data_sz, 1);
	if (mpi_errno)
		return fail_send(sreq, mpi_errno);
	for (int i = 0; i < n_hdr_iov; i++) {
		memcpy((char *)r->pack + off, hdr_iov[i].iov_base,
				hdr_iov[i].iov_len);
		off += hdr_iov[i].iov_len;
	}
	mpi_errno = MPIR_Typerep_pack(sreq->dev.user_buf, sreq->dev.user_count,
			sreq->dev.datatype, sreq->dev.msg_offset,
			(char *)r->pack + off, data_sz, &actual);
	if (mpi_errno)
		return fail_send(sreq, mpi_errno);
	sreq->dev.msg_offset += actual;	/* all of it is in this chunk */
	r->segs[0].segment_length = (uint32_t)(off + actual);
	return mxn_post_send(sreq);
}

/*
 * ch3's handler asked for more data (sreq->dev.iov): it follows as a
 * chunk of the same stream, without a header.
 */
static int
pkt_more(MPIDI_VC_t *vc, MPIR_Request *sreq)
{
	struct mxn_req *r = REQ_MX(sreq);
	int n = sreq->dev.iov_count;
	struct iovec *iov = &sreq->dev.iov[sreq->dev.iov_offset];
	int mpi_errno;

	req_reset(sreq, MXN_OP_PKT_SEND, vc);
	r->match = pkt_match(vc);
	mpi_errno = segs_alloc(r, (size_t)n);
	for (int i = 0; i < n && mpi_errno == MPI_SUCCESS; i++)
		mpi_errno = seg_add(r, iov[i].iov_base, (MPI_Aint)iov[i].iov_len);
	if (mpi_errno)
		return fail_send(sreq, mpi_errno);
	return mxn_post_send(sreq);
}

/*
 * A packet chunk was sent: the request's OnDataAvail says whether it is
 * complete or has more to send (the seed's "Completing Send Requests").
 */
int
mxn_pkt_send_done(MPIR_Request *sreq, const mx_status_t *st)
{
	struct mxn_req *r = REQ_MX(sreq);
	MPIDI_VC_t *vc = r->vc;
	int (*fn)(MPIDI_VC_t *, MPIR_Request *, int *);
	int mpi_errno = MPI_SUCCESS, complete = 1, counted = r->counted;

	if (st->code != MX_STATUS_SUCCESS &&
			sreq->status.MPI_ERROR == MPI_SUCCESS)
		sreq->status.MPI_ERROR = mxn_status_error(st);
	r->mxr = NULL;
	MPL_free(r->pack);
	r->pack = NULL;
	mxn_segs_free(r);
	fn = sreq->dev.OnDataAvail;
	if (fn == NULL)
		mpi_errno = MPID_Request_complete(sreq);
	else if (sreq->status.MPI_ERROR != MPI_SUCCESS)
		mpi_errno = MPID_Request_complete(sreq);
	else
		mpi_errno = fn(vc, sreq, &complete);
	if (mpi_errno == MPI_SUCCESS && !complete)
		mpi_errno = pkt_more(vc, sreq);
	if (mpi_errno == MPI_SUCCESS && counted)
		mpi_errno = mxn_vc_send_done(vc);
	return mpi_errno;
}
