/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The netmod's progress: nemesis calls MPID_nem_mx_poll() on every turn
 * of its progress loop.  One mx_test_any() makes MX progress (receives,
 * acks, pulls) and hands back one completed request; its context says
 * what it was (mx_impl.h, struct mxn_op).  A bounded batch per call keeps
 * shared memory and the rest of ch3 served under a flood.
 */
#include "mx_impl.h"

#define MXN_POLL_BATCH 16

static int
dispatch(const mx_status_t *st)
{
	struct mxn_op *op = st->context;

	switch (op->kind) {
	case MXN_OP_SEND:
		return mxn_send_done(MPL_container_of(op, MPIR_Request,
					ch.netmod_area.padding), st);
	case MXN_OP_RECV:
		return mxn_recv_done(MPL_container_of(op, MPIR_Request,
					ch.netmod_area.padding), st);
	case MXN_OP_PKT_SEND:
		return mxn_pkt_send_done(MPL_container_of(op, MPIR_Request,
					ch.netmod_area.padding), st);
	case MXN_OP_PKT_RECV:
		return mxn_chunk_done(MPL_container_of(op, struct mxn_chunk,
					op), st);
	case MXN_OP_CONNECT:
		return mxn_vc_connected(MPL_container_of(op, MPIDI_VC_t,
					ch.netmod_area.padding), st);
	case MXN_OP_HELLO:
		return MPI_SUCCESS;
	}
	MPIR_Assert(0);		/* every MX request has one of these */
	return MPI_ERR_INTERN;
}

int
MPID_nem_mx_poll(int in_blocking_poll)
{
	int mpi_errno = MPI_SUCCESS;
	mx_status_t st;
	uint32_t found;

	(void)in_blocking_poll;
	for (int i = 0; i < MXN_POLL_BATCH && mpi_errno == MPI_SUCCESS; i++) {
		mx_return_t rc = mx_test_any(mxn.ep, 0, 0, &st, &found);

		if (rc != MX_SUCCESS)
			return mxn_error("mx_test_any", rc);
		if (!found)
			break;
		mpi_errno = dispatch(&st);
	}
	return mpi_errno;
}
