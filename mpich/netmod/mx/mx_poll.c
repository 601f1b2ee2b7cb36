/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The netmod's progress: nemesis calls MPID_nem_mx_poll() on every turn
 * of its progress loop.  One mx_test_any() makes MX progress (receives,
 * acks, pulls) and hands back one completed request; its context says
 * what it was (mx_impl.h, struct mxn_op).  One completion per call: ch3
 * calls again at once if its wait is not over, and each mx_test_any is a
 * whole progress pass (a receive burst), so a second call after a
 * completion would put an empty pass on every message's path (measured:
 * 8-byte ping-pong over memif 1.93 us with a batch of 16).  Shared memory
 * and the rest of ch3 are served between calls.
 */
#include "mx_impl.h"

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
	mx_status_t st;
	uint32_t found;
	mx_return_t rc;

	(void)in_blocking_poll;
	rc = mx_test_any(mxn.ep, 0, 0, &st, &found);
	if (rc != MX_SUCCESS)
		return mxn_error("mx_test_any", rc);
	return found ? dispatch(&st) : MPI_SUCCESS;
}
