/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving.  A receive ch3 posts (MPID_Recv/Irecv put it on ch3's posted
 * queue, then call recv_posted, or anysource_posted for MPI_ANY_SOURCE)
 * becomes an mx_irecv straight into the user's buffer (a scatter list for
 * a noncontiguous type of few pieces, else a bounce buffer unpacked at
 * completion).  MX matches in order per sender and pulls large messages
 * into that buffer.  When it completes, the request leaves ch3's queue
 * and completes.
 *
 * An MPI_ANY_SOURCE receive sits in both queues: if ch3 matches it first
 * (a message from this process itself, or from shared memory), ch3 asks
 * anysource_matched, which takes it back from MX if MX has not matched
 * it; otherwise MX has it and ch3 looks further.
 *
 * Probes ask MX (mx_iprobe).  An improbe claims the message at once with
 * an exact-match mx_irecv into a buffer of its length (MX has no claim),
 * and imrecv unpacks it into the user's buffer.
 *
 * Packet chunks (see mx_impl.h) arrive as unexpected messages: the
 * unexpected handler, called by MX in match order, posts a receive for
 * each into a buffer of its size and appends it to its VC's list; the
 * poll feeds the VC's completed chunks to ch3 from the head of that list,
 * so ch3 sees its byte stream in order even when a large chunk completes
 * after a later small one.
 */
#include "mx_impl.h"

/* ---- match values ----------------------------------------------------------- */

/* The MX match value and mask of an MPI receive or probe. */
static void
recv_match(int context_id, int rank, int tag, uint64_t *match,
		uint64_t *mask)
{
	*match = mxn_match_mpi(context_id, 0, 0);
	*mask = MXN_KIND_MASK | MXN_CTX_MASK;
	if (rank != MPI_ANY_SOURCE) {
		*match |= (uint64_t)(uint16_t)rank << MXN_SRC_SHIFT;
		*mask |= MXN_SRC_MASK;
	}
	if (tag != MPI_ANY_TAG) {
		/* ch3 ignores the error bits of an incoming tag when it
		 * matches (collectives flag failures with them): so do we. */
		uint64_t err = (uint64_t)(MPIR_TAG_ERROR_BIT |
				MPIR_TAG_PROC_FAILURE_BIT);

		*match |= (uint64_t)tag & MXN_TAG_MASK & ~err;
		*mask |= MXN_TAG_MASK & ~err;
	}
}

/* status from an MX status (count given); MPI_ERROR is left alone, as
 * probes must (a request's is set where it completes). */
static void
fill_status(MPI_Status *status, const mx_status_t *st, MPI_Aint count)
{
	status->MPI_SOURCE = mxn_match_rank(st->match_info);
	status->MPI_TAG = mxn_match_tag(st->match_info);
	MPIR_STATUS_SET_COUNT(*status, count);
}

static MPI_Aint
user_size(MPIR_Request *rreq)
{
	MPI_Aint lb, size;
	MPIR_Datatype *dt_ptr;
	int contig;

	MPIDI_Datatype_get_info(rreq->dev.user_count, rreq->dev.datatype,
			contig, size, dt_ptr, lb);
	(void)contig;
	(void)dt_ptr;
	(void)lb;
	return size;
}

static int
truncated(MPIR_Request *rreq, MPI_Aint got, MPI_Aint room)
{
	return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
			__func__, __LINE__, MPI_ERR_TRUNCATE, "**truncate",
			"**truncate %d %d %d %d", rreq->status.MPI_SOURCE,
			rreq->status.MPI_TAG, (int)got, (int)room);
}

/* ---- posted receives ------------------------------------------------------------- */

static void
recv_reset(MPIR_Request *rreq)
{
	struct mxn_req *r = REQ_MX(rreq);

	memset(r, 0, sizeof(*r));
	r->op.kind = MXN_OP_RECV;
	r->segs = r->seg;
}

/* A receive that could not be posted completes with the error. */
static void
recv_fail(MPIR_Request *rreq, int mpi_errno)
{
	MPL_free(REQ_MX(rreq)->pack);
	REQ_MX(rreq)->pack = NULL;
	REQ_MX(rreq)->done = 1;
	rreq->status.MPI_ERROR = mpi_errno;
	MPIDI_CH3U_Recvq_DP(rreq);
	MPID_Request_complete(rreq);
}

int
MPID_nem_mx_recv_posted(MPIDI_VC_t *vc, MPIR_Request *rreq)
{
	struct mxn_req *r = REQ_MX(rreq);
	uint64_t match, mask;
	mx_return_t rc;
	int mpi_errno;

	recv_reset(rreq);
	r->anysource = vc == NULL;
	recv_match(rreq->dev.match.parts.context_id,
			rreq->dev.match.parts.rank, rreq->dev.match.parts.tag,
			&match, &mask);
	mpi_errno = mxn_data_segs(r, rreq->dev.user_buf, rreq->dev.user_count,
			rreq->dev.datatype, 1);
	if (mpi_errno) {
		mxn_segs_free(r);
		recv_fail(rreq, mpi_errno);
		return MPI_SUCCESS;	/* reported on the request */
	}
	rc = mx_irecv(mxn.ep, r->segs, r->nseg, match, mask, &r->op, &r->mxr);
	mxn_segs_free(r);	/* MX copied the list */
	if (rc != MX_SUCCESS)
		recv_fail(rreq, mxn_error("mx_irecv", rc));
	return MPI_SUCCESS;
}

void
MPID_nem_mx_anysource_posted(MPIR_Request *rreq)
{
	MPID_nem_mx_recv_posted(NULL, rreq);
}

/* Takes rreq back from MX if it has not matched; 1 if MX keeps it. */
static int
take_back(MPIR_Request *rreq)
{
	struct mxn_req *r = REQ_MX(rreq);
	uint32_t result = 0;

	if (r->done || r->mxr == NULL)
		return r->done;
	if (mx_cancel(mxn.ep, &r->mxr, &result) != MX_SUCCESS || !result)
		return 1;	/* matched: it completes through the poll */
	r->mxr = NULL;
	r->done = 1;
	MPL_free(r->pack);
	r->pack = NULL;
	return 0;
}

/* ch3 matched an ANY_SOURCE receive: TRUE if MX had matched it already. */
int
MPID_nem_mx_anysource_matched(MPIR_Request *rreq)
{
	return take_back(rreq);
}

/* 0 if cancelled (ch3 then completes it as such), 1 if too late. */
int
MPID_nem_mx_cancel_recv(MPIDI_VC_t *vc, MPIR_Request *rreq)
{
	(void)vc;
	return take_back(rreq);
}

/* Unpacks a bounce buffer into the user's buffer; returns the count. */
static MPI_Aint
unpack(MPIR_Request *rreq, MPI_Aint len)
{
	struct mxn_req *r = REQ_MX(rreq);
	MPI_Aint actual = 0;

	if (len > 0)
		MPIR_Typerep_unpack(r->pack, len, rreq->dev.user_buf,
				rreq->dev.user_count, rreq->dev.datatype, 0,
				&actual);
	MPL_free(r->pack);
	r->pack = NULL;
	return actual;
}

/* The end of a claimed message: into the user's buffer, and complete. */
static int
mprobe_finish(MPIR_Request *rreq)
{
	struct mxn_req *r = REQ_MX(rreq);
	MPI_Aint room = user_size(rreq), len = r->xfer_len;

	if (len > room)
		len = room;
	len = unpack(rreq, len);	/* the macro below evaluates twice */
	MPIR_STATUS_SET_COUNT(rreq->status, len);
	if (r->error != MPI_SUCCESS)
		rreq->status.MPI_ERROR = r->error;
	else if ((MPI_Aint)r->xfer_len > room)
		rreq->status.MPI_ERROR = truncated(rreq, r->xfer_len, room);
	r->mprobe = MXN_MPROBE_NONE;
	return MPID_Request_complete(rreq);
}

/* An MPI receive (or a claimed message) completed in MX. */
int
mxn_recv_done(MPIR_Request *rreq, const mx_status_t *st)
{
	struct mxn_req *r = REQ_MX(rreq);
	MPI_Aint count = st->xfer_length;

	r->mxr = NULL;
	r->done = 1;
	if (r->mprobe != MXN_MPROBE_NONE) {
		r->xfer_len = st->xfer_length;
		r->error = mxn_status_error(st);
		if (r->mprobe == MXN_MPROBE_POSTED)
			return mprobe_finish(rreq);
		r->mprobe = MXN_MPROBE_LANDED;
		return MPI_SUCCESS;
	}
	if (r->pack != NULL)
		count = unpack(rreq, st->xfer_length);
	fill_status(&rreq->status, st, count);
	rreq->status.MPI_ERROR = MPI_SUCCESS;
	if (st->code == MX_STATUS_TRUNCATED)
		rreq->status.MPI_ERROR = truncated(rreq, st->msg_length,
				st->xfer_length);
	else if (st->code != MX_STATUS_SUCCESS)
		rreq->status.MPI_ERROR = mxn_status_error(st);
	/* Off ch3's posted queue (its dequeue hook sees 'done'). */
	MPIDI_CH3U_Recvq_DP(rreq);
	return MPID_Request_complete(rreq);
}

/* ---- probes ------------------------------------------------------------------------ */

static int
probe(int source, int tag, MPIR_Comm *comm, int context_offset,
		mx_status_t *st, uint32_t *found)
{
	uint64_t match, mask;
	mx_return_t rc;

	recv_match(comm->recvcontext_id + context_offset, source, tag,
			&match, &mask);
	rc = mx_iprobe(mxn.ep, match, mask, st, found);
	return rc == MX_SUCCESS ? MPI_SUCCESS : mxn_error("mx_iprobe", rc);
}

int
MPID_nem_mx_iprobe(MPIDI_VC_t *vc, int source, int tag, MPIR_Comm *comm,
		int context_offset, int *flag, MPI_Status *status)
{
	uint32_t found = 0;
	mx_status_t st;
	int mpi_errno;

	(void)vc;
	mpi_errno = probe(source, tag, comm, context_offset, &st, &found);
	*flag = mpi_errno == MPI_SUCCESS && found;
	if (*flag && status != MPI_STATUS_IGNORE)
		fill_status(status, &st, st.msg_length);
	return mpi_errno;
}

/* Claims the message st describes: it lands in a buffer of its own. */
static int
claim(MPIR_Comm *comm, int context_offset, const mx_status_t *st,
		MPIR_Request **message)
{
	MPIR_Request *rreq = MPIR_Request_create(MPIR_REQUEST_KIND__RECV);
	struct mxn_req *r;
	mx_return_t rc;

	if (rreq == NULL)
		return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
				__func__, __LINE__, MPI_ERR_OTHER,
				"**nomemreq", NULL);
	MPIR_Object_set_ref(rreq, 2);	/* the user's, and completion's */
	rreq->comm = comm;
	MPIR_Comm_add_ref(comm);
	rreq->dev.match.parts.rank = mxn_match_rank(st->match_info);
	rreq->dev.match.parts.tag = mxn_match_tag(st->match_info);
	rreq->dev.match.parts.context_id = comm->recvcontext_id +
		context_offset;
	fill_status(&rreq->status, st, st->msg_length);
	rreq->status.MPI_ERROR = MPI_SUCCESS;
	recv_reset(rreq);
	r = REQ_MX(rreq);
	r->mprobe = MXN_MPROBE_CLAIMED;
	if (st->msg_length > 0) {
		r->pack = MPL_malloc(st->msg_length, MPL_MEM_BUFFER);
		r->seg[0].segment_ptr = r->pack;
		r->seg[0].segment_length = st->msg_length;
		r->nseg = r->pack != NULL;
	}
	/* The earliest message with exactly these bits is the one probed:
	 * MX matches in order per sender, and the rank is in the bits. */
	rc = mx_irecv(mxn.ep, r->seg, r->nseg, st->match_info,
			MX_MATCH_MASK_NONE, &r->op, &r->mxr);
	if (rc != MX_SUCCESS || (st->msg_length > 0 && r->pack == NULL)) {
		MPL_free(r->pack);
		MPIR_Request_free(rreq);
		MPIR_Request_free(rreq);
		return rc != MX_SUCCESS ? mxn_error("mx_irecv", rc) :
			MPI_ERR_NO_MEM;
	}
	rreq->kind = MPIR_REQUEST_KIND__MPROBE;
	*message = rreq;
	return MPI_SUCCESS;
}

int
MPID_nem_mx_improbe(MPIDI_VC_t *vc, int source, int tag, MPIR_Comm *comm,
		int context_offset, int *flag, MPIR_Request **message,
		MPI_Status *status)
{
	uint32_t found = 0;
	mx_status_t st;
	int mpi_errno;

	(void)vc;
	*flag = 0;
	*message = NULL;
	mpi_errno = probe(source, tag, comm, context_offset, &st, &found);
	if (mpi_errno || !found)
		return mpi_errno;
	mpi_errno = claim(comm, context_offset, &st, message);
	if (mpi_errno)
		return mpi_errno;
	*flag = 1;
	if (status != MPI_STATUS_IGNORE)
		fill_status(status, &st, st.msg_length);
	return MPI_SUCCESS;
}

/* The user's buffer for a claimed message (MPI_Imrecv/Mrecv). */
int
MPID_nem_mx_imrecv(MPIDI_VC_t *vc, MPIR_Request *rreq)
{
	struct mxn_req *r = REQ_MX(rreq);

	(void)vc;
	if (r->mprobe == MXN_MPROBE_LANDED)
		return mprobe_finish(rreq);
	/* Still arriving: keep the datatype until it has. */
	if (!HANDLE_IS_BUILTIN(rreq->dev.datatype)) {
		MPIR_Datatype_get_ptr(rreq->dev.datatype,
				rreq->dev.datatype_ptr);
		MPIR_Datatype_ptr_add_ref(rreq->dev.datatype_ptr);
	}
	r->mprobe = MXN_MPROBE_POSTED;
	return MPI_SUCCESS;
}

int
MPID_nem_mx_anysource_iprobe(int tag, MPIR_Comm *comm, int context_offset,
		int *flag, MPI_Status *status)
{
	return MPID_nem_mx_iprobe(NULL, MPI_ANY_SOURCE, tag, comm,
			context_offset, flag, status);
}

int
MPID_nem_mx_anysource_improbe(int tag, MPIR_Comm *comm, int context_offset,
		int *flag, MPIR_Request **message, MPI_Status *status)
{
	return MPID_nem_mx_improbe(NULL, MPI_ANY_SOURCE, tag, comm,
			context_offset, flag, message, status);
}

/* ---- packet chunks ------------------------------------------------------------------- */

static void
chunk_append(struct mxn_chunk *c)
{
	struct mxn_vc *v;

	if (c->conn) {			/* no order among cards */
		c->next = mxn.conn_rx;
		mxn.conn_rx = c;
		return;
	}
	v = VC_MX(c->vc);
	if (v->rx_tail != NULL)
		v->rx_tail->next = c;
	else
		v->rx_head = c;
	v->rx_tail = c;
}

/*
 * Called by MX, in match order, for each message no receive matched.
 * MPI messages stay in MX's unexpected queue for a later receive or
 * probe; packet chunks and cards get a receive here, which MX matches to
 * them as soon as we return.
 */
mx_unexp_handler_action_t
mxn_unexp_handler(void *context, mx_endpoint_addr_t source,
		uint64_t match_value, uint32_t length, void *data_if_available)
{
	struct mxn_chunk *c;
	mx_segment_t seg;
	mx_request_t req;
	MPIDI_VC_t *vc = NULL;
	int kind = (int)(match_value >> MXN_KIND_SHIFT);

	(void)context;
	(void)source;
	(void)data_if_available;	/* a receive copies it just as well */
	if (kind == MXN_KIND_MPI || kind == MXN_KIND_HELLO)
		return MX_RECV_CONTINUE;
	if (kind == MXN_KIND_PKT && (vc = mxn_pkt_source(match_value)) == NULL)
		MPL_internal_error_printf("mx netmod: a packet from an unknown "
				"process (match %016" PRIx64 "), dropped\n",
				match_value);
	if (kind != MXN_KIND_CONN && vc == NULL)
		return MX_RECV_FINISHED;
	c = MPL_malloc(sizeof(*c) + length, MPL_MEM_BUFFER);
	MPIR_Assertp(c != NULL);	/* no way to ask for it again */
	memset(c, 0, sizeof(*c));
	c->op.kind = MXN_OP_PKT_RECV;
	c->conn = kind == MXN_KIND_CONN;
	c->len = length;
	c->vc = vc;
	seg.segment_ptr = c->data;
	seg.segment_length = length;
	if (mx_irecv(mxn.ep, &seg, length > 0, match_value,
				MX_MATCH_MASK_NONE, &c->op, &req) !=
			MX_SUCCESS) {
		MPL_free(c);
		return MX_RECV_CONTINUE;	/* stays unexpected: lost */
	}
	chunk_append(c);
	return MX_RECV_CONTINUE;
}

/* Feeds vc's completed chunks to ch3, in order, from the head. */
static int
chunks_drain(MPIDI_VC_t *vc)
{
	struct mxn_vc *v = VC_MX(vc);
	int mpi_errno = MPI_SUCCESS;

	while (v->rx_head != NULL && v->rx_head->done &&
			mpi_errno == MPI_SUCCESS) {
		struct mxn_chunk *c = v->rx_head;

		v->rx_head = c->next;
		if (v->rx_head == NULL)
			v->rx_tail = NULL;
		mpi_errno = MPID_nem_handle_pkt(vc, c->data, c->len);
		MPL_free(c);
	}
	return mpi_errno;
}

/* A chunk's receive completed. */
int
mxn_chunk_done(struct mxn_chunk *c, const mx_status_t *st)
{
	int mpi_errno;

	c->done = 1;
	if (st->code != MX_STATUS_SUCCESS)
		return mxn_status_error(st);	/* its peer is gone */
	if (c->conn) {
		struct mxn_chunk **p = &mxn.conn_rx;

		while (*p != c)
			p = &(*p)->next;
		*p = c->next;
		mpi_errno = mxn_conn_arrived(c);
		MPL_free(c);
		return mpi_errno;
	}
	if (c->vc == NULL) {		/* its VC was destroyed */
		MPL_free(c);
		return MPI_SUCCESS;
	}
	return chunks_drain(c->vc);
}
