/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MX 1.1/1.2 calls, of mx_extensions.h and the MX 1.2 additions to
 * myriexpress.h.  Same rules as api.c: check, call the engine, report
 * errors through mxd_error().
 */
#include <string.h>

#include "engine/connect.h"
#include "engine/recv.h"
#include "engine/send.h"
#include "engine/timers.h"
#include "progress/progress.h"
#include "api/error.h"
#include "api/wait.h"

struct any_arg {
	struct mx_endpoint *ep;
	uint64_t info, mask;
	struct mx_request *found;
};

static int
any_match(void *arg)
{
	struct any_arg *a = arg;
	struct mxd_list *pos, *tmp;

	mxd_ep_done_settle(a->ep);
	mxd_list_foreach(pos, tmp, &a->ep->done) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				done);

		if (mxd_match(r->status.match_info, a->info & a->mask, a->mask)) {
			a->found = r;
			return 1;
		}
	}
	return 0;
}

static void
any_finish(struct any_arg *a, mx_status_t *status, uint32_t *result)
{
	*result = a->found != NULL;
	if (a->found == NULL)
		return;
	if (status != NULL)
		*status = a->found->status;
	mxd_req_put(a->found);
}

static mx_return_t
do_test_any(mx_endpoint_t ep, uint64_t match_info, uint64_t match_mask,
		mx_status_t *status, uint32_t *result)
{
	struct any_arg a = { ep, match_info, match_mask, NULL };

	CHECK_EP(ep, "mx_test_any");
	if (result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_test_any: NULL result");
	mxd_progress(ep);
	any_match(&a);
	any_finish(&a, status, result);
	return MX_SUCCESS;
}

static mx_return_t
do_wait_any(mx_endpoint_t ep, uint32_t timeout, uint64_t match_info,
		uint64_t match_mask, mx_status_t *status, uint32_t *result)
{
	struct any_arg a = { ep, match_info, match_mask, NULL };
	int ret = 1;

	CHECK_EP(ep, "mx_wait_any");
	if (result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_wait_any: NULL result");
	if (!any_match(&a))
		ret = mxd_poll_until(ep, any_match, &a, timeout);
	if (ret < 0)
		return mxd_wait_failed(ep, ret, result, "mx_wait_any");
	any_finish(&a, status, result);
	return MX_SUCCESS;
}

static mx_return_t
do_forget(mx_endpoint_t ep, mx_request_t *request)
{
	CHECK_EP(ep, "mx_forget");
	if (!mxd_req_valid(ep, request))
		return mxd_error(ep, MX_BAD_REQUEST, "mx_forget: bad request");
	if ((*request)->state == MXD_RS_COMPLETE)
		mxd_req_put(*request);
	else
		(*request)->forget = 1;
	*request = NULL;
	return MX_SUCCESS;
}

static mx_return_t
do_progress(mx_endpoint_t ep)
{
	CHECK_EP(ep, "mx_progress");
	mxd_progress(ep);
	return MX_SUCCESS;
}

static mx_return_t
do_decompose_endpoint_addr2(mx_endpoint_addr_t addr, uint64_t *nic_id,
		uint32_t *endpoint_id, uint32_t *session_id)
{
	struct mxd_partner *p = mxd_addr_lookup(&addr);

	if (session_id == NULL)
		return mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_decompose_endpoint_addr2: NULL output");
	if (mx_decompose_endpoint_addr(addr, nic_id, endpoint_id) !=
			MX_SUCCESS)
		return MX_BAD_ENDPOINT;
	*session_id = p != NULL ? p->remote_session : 0;
	return MX_SUCCESS;
}

/*
 * The partner an address stands for.  An address from
 * mx_get_endpoint_addr() names an endpoint of this process by NIC and id
 * only (it has no partner yet): its partner is the endpoint's own,
 * created here when 'create' (the context must live somewhere).  *known
 * says whether the address is valid at all.
 */
static struct mxd_partner *
addr_partner(const mx_endpoint_addr_t *a, int create, int *known)
{
	struct mxd_partner *p = mxd_addr_lookup(a);
	uint64_t nic = a->stuff[0] & 0xffffffffffffull;
	uint32_t id = (uint32_t)(a->stuff[0] >> 48);
	struct mxd_board *b;
	struct mx_endpoint *ep;

	*known = p != NULL;
	if (p != NULL || a->stuff[1] != 0 || !mxd_lib.initialized)
		return p;
	b = mxd_board_by_nic(nic);
	ep = b != NULL ? mxd_ep_of(b, id) : NULL;
	if (ep == NULL)
		return NULL;
	*known = 1;
	p = mxd_partner_find(ep, nic, id);
	if (p == NULL && create)
		p = mxd_partner_new(ep, nic, id);
	return p;
}

static mx_return_t
do_set_endpoint_addr_context(mx_endpoint_addr_t addr, void *context)
{
	int known;
	struct mxd_partner *p = addr_partner(&addr, 1, &known);

	if (p == NULL)
		return known ? mxd_error(NULL, MX_NO_RESOURCES,
				"mx_set_endpoint_addr_context: no partner "
				"left for the endpoint's own address") :
			mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_set_endpoint_addr_context: neither a "
				"connected address nor one of this process's "
				"endpoints");
	p->addr_context = context;
	p->used = 1;	/* the program holds its address: never reused */
	return MX_SUCCESS;
}

static mx_return_t
do_get_endpoint_addr_context(mx_endpoint_addr_t addr, void **context)
{
	int known;
	struct mxd_partner *p = addr_partner(&addr, 0, &known);

	if (context == NULL)
		return mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_get_endpoint_addr_context: NULL output");
	if (!known)
		return mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_get_endpoint_addr_context: neither a "
				"connected address nor one of this process's "
				"endpoints");
	*context = p != NULL ? p->addr_context : NULL;
	return MX_SUCCESS;
}

/*
 * A message of a completed send to this partner was refused or lost, and
 * no send told it yet (send.c): the connect request fails with it, once.
 * Returns 1 if r completed so.  mx_connect does not tell it: its failure
 * would go through the error handler, fatal by default, for a message the
 * program may have meant to start over from; the next send tells it.
 */
static int
connect_told(struct mx_request *r, uint64_t nic_id, uint32_t endpoint_id)
{
	struct mxd_partner *p = mxd_partner_find(r->ep, nic_id, endpoint_id);
	mx_status_code_t code = p != NULL ? mxd_send_unreported(p) :
		MX_STATUS_SUCCESS;

	if (code == MX_STATUS_SUCCESS)
		return 0;
	mxd_req_complete(r, code);
	return 1;
}

static mx_return_t
do_iconnect(mx_endpoint_t ep, uint64_t nic_id, uint32_t endpoint_id,
		uint32_t filter, uint64_t match_info, void *context,
		mx_request_t *request)
{
	struct mx_request *r;
	uint32_t tmo;
	int ret;

	CHECK_EP(ep, "mx_iconnect");
	if (request == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_iconnect: NULL request");
	if (endpoint_id >= MX_MAX_ENDPOINTS)
		return mxd_error(ep, MX_BAD_ENDPOINT_ID,
				"mx_iconnect: endpoint id %u", endpoint_id);
	r = mxd_ep_req(ep, MXD_REQ_CONNECT, context);
	if (r == NULL)
		return mxd_error(ep, MX_NO_RESOURCES, "mx_iconnect: no request");
	r->status.match_info = match_info;
	if (connect_told(r, nic_id, endpoint_id)) {
		*request = r;
		return MX_SUCCESS;
	}
	tmo = ep->req_timeout_ms ? ep->req_timeout_ms : 10000;
	ret = mxd_connect_start(r, nic_id, endpoint_id, filter, tmo);
	if (ret < 0) {
		mxd_req_put(r);
		return mxd_error(ep, (mx_return_t)-ret, "mx_iconnect failed");
	}
	mxd_board_flush(ep->board);
	*request = r;
	return MX_SUCCESS;
}

static mx_return_t
do_disconnect(mx_endpoint_t ep, mx_endpoint_addr_t addr)
{
	struct mxd_partner *p;

	CHECK_EP(ep, "mx_disconnect");
	p = mxd_addr_partner(ep, &addr);
	if (p == NULL)
		return mxd_error(ep, MX_BAD_ENDPOINT,
				"mx_disconnect: not an address of this endpoint");
	mxd_send_ack_settle(p);		/* what it acked is not cancelled */
	mxd_sends_fail(p, MX_STATUS_CANCELLED);
	/* Forgotten, not refused: usable again after a connect. */
	mxd_partner_set_state(p, MXD_PS_CLOSED);
	return MX_SUCCESS;
}

static mx_return_t
do_set_request_timeout(mx_endpoint_t ep, mx_request_t request,
		uint32_t ms)
{
	CHECK_EP(ep, "mx_set_request_timeout");
	if (request == NULL) {
		ep->req_timeout_ms = ms;
		return MX_SUCCESS;
	}
	if (!mxd_req_of(ep, request) || request->type == MXD_REQ_RECV)
		return mxd_error(ep, MX_BAD_REQUEST,
				"mx_set_request_timeout: not a pending send or "
				"connect of this endpoint");
	if (request->state != MXD_RS_COMPLETE)
		mxd_timer_deadline(request, ms);
	return MX_SUCCESS;
}

static mx_return_t
do_register_unexp_handler(mx_endpoint_t ep, mx_unexp_handler_t handler,
		void *context)
{
	CHECK_EP(ep, "mx_register_unexp_handler");
	ep->unexp_handler = handler;
	ep->unexp_context = context;
	return MX_SUCCESS;
}

/*
 * mx_disable_progression() nests: ep->progression_off counts the calls not
 * yet undone.  The count is the endpoint's state, which the progress pass
 * reads (progress.c skips the endpoint's work, recv.c holds its messages
 * unmatched), and so does the progression thread (progress.c), which runs
 * that pass.  A library-wide counter would go wrong when an endpoint is
 * closed while disabled; the thread can add up the open endpoints' counts.
 */
#define PROGRESSION_OFF_MAX	UINT8_MAX

static mx_return_t
do_disable_progression(mx_endpoint_t ep)
{
	CHECK_EP(ep, "mx_disable_progression");
	if (ep->progression_off == PROGRESSION_OFF_MAX)
		return mxd_error(ep, MX_NO_RESOURCES,
				"mx_disable_progression: nested %u deep",
				PROGRESSION_OFF_MAX);
	if (ep->ack_held != NULL)	/* no pass of its own would apply it */
		mxd_send_acks_apply(ep);
	mxd_sends_close(ep);		/* nor send the frames being written */
	ep->progression_off++;
	return MX_SUCCESS;
}

static mx_return_t
do_reenable_progression(mx_endpoint_t ep)
{
	struct mxd_list *pos, *tmp;

	CHECK_EP(ep, "mx_reenable_progression");
	if (ep->progression_off == 0 || --ep->progression_off != 0)
		return MX_SUCCESS;
	/* Messages held while matching was paused match now, in order. */
	mxd_list_foreach(pos, tmp, &ep->active)	/* the others hold none */
		mxd_partner_drain(ep, mxd_container_of(pos,
					struct mxd_peer_act, active)->p);
	mxd_board_flush(ep->board);
	return MX_SUCCESS;
}

/* ---- MX 1.2 additions to myriexpress.h ----------------------------------- */

static mx_return_t
do_init_api(int api)
{
	if (api >> 8 != MX_API >> 8)
		return mxd_error(NULL, MX_BAD_LIB_VERSION,
				"mx_init: program built for MX API %#x, "
				"library has %#x", (unsigned)api, MX_API);
	return mx_init();
}

static int
req_buffered(void *arg)
{
	const struct mx_request *r = arg;

	return r->state == MXD_RS_COMPLETE || r->state == MXD_RS_BUFFERED;
}

static mx_return_t
do_buffered(mx_endpoint_t ep, mx_request_t *request, uint32_t timeout,
		uint32_t *result)
{
	int ret;

	CHECK_EP(ep, "mx_buffered");
	if (!mxd_req_valid(ep, request) || result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_buffered: bad request");
	ret = req_buffered(*request) ? 1 :
		mxd_poll_until(ep, req_buffered, *request, timeout);
	if (ret < 0)
		return mxd_wait_failed(ep, ret, result, "mx_buffered");
	*result = (uint32_t)ret;
	return MX_SUCCESS;
}

/*
 * mx_register_unexp_callback() is an unexpected handler that tells the
 * callback and lets the message go on (MX_RECV_CONTINUE).  The callback
 * and its context wait in a slot per endpoint, given to the handler as
 * its context; a slot is rewritten by the next registration on the same
 * board and endpoint id, so one of a closed endpoint is harmless.
 */
struct unexp_callback {
	mx_matching_callback_t callback;
	void *context;
};

static struct unexp_callback callbacks[MXD_MAX_BOARDS][MX_MAX_ENDPOINTS];

static mx_unexp_handler_action_t
callback_handler(void *context, mx_endpoint_addr_t source, uint64_t match,
		uint32_t length, void *data)
{
	const struct unexp_callback *c = context;

	(void)source;
	(void)data;
	c->callback(c->context, match, (int)length);
	return MX_RECV_CONTINUE;
}

static mx_return_t
do_register_unexp_callback(mx_endpoint_t ep, mx_matching_callback_t callback,
		void *context)
{
	struct unexp_callback *c;

	CHECK_EP(ep, "mx_register_unexp_callback");
	c = &callbacks[ep->board->index][ep->id];
	c->callback = callback;
	c->context = context;
	ep->unexp_handler = callback != NULL ? callback_handler : NULL;
	ep->unexp_context = callback != NULL ? c : NULL;
	return MX_SUCCESS;
}

/* One-sided transfers: no engine support (no remote memory windows).
 * The endpoint is checked as any call's is: a closed one is not read. */
static mx_return_t
one_sided(mx_endpoint_t ep, mx_request_t *request, const char *fn)
{
	if (!mxd_lib.initialized || !mxd_ep_live(ep))
		return mxd_error(NULL, MX_BAD_ENDPOINT, "%s: bad endpoint", fn);
	if (request == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "%s: NULL request", fn);
	return mxd_error(ep, MX_FAILURE,
			"%s: not supported by mx-dpdk (no remote memory "
			"access; use mx_isend/mx_irecv)", fn);
}

static mx_return_t
do_iput(mx_endpoint_t ep, void *local, uint32_t length,
		mx_endpoint_addr_t dest, uint64_t remote, void *context,
		mx_request_t *request)
{
	(void)local;
	(void)length;
	(void)dest;
	(void)remote;
	(void)context;
	return one_sided(ep, request, "mx_iput");
}

static mx_return_t
do_iget(mx_endpoint_t ep, void *local, uint32_t length,
		mx_endpoint_addr_t dest, uint64_t remote, void *context,
		mx_request_t *request)
{
	(void)local;
	(void)length;
	(void)dest;
	(void)remote;
	(void)context;
	return one_sided(ep, request, "mx_iget");
}

/* ---- entry points: the library lock around each call (lock.h) ---- */

MXD_ENTRY(mx_test_any, do_test_any,
	(mx_endpoint_t ep, uint64_t match_info, uint64_t match_mask,
		mx_status_t *status, uint32_t *result),
	(ep, match_info, match_mask, status, result))

MXD_ENTRY(mx_wait_any, do_wait_any,
	(mx_endpoint_t ep, uint32_t timeout, uint64_t match_info,
		uint64_t match_mask, mx_status_t *status, uint32_t *result),
	(ep, timeout, match_info, match_mask, status, result))

MXD_ENTRY(mx_forget, do_forget,
	(mx_endpoint_t ep, mx_request_t *request),
	(ep, request))

MXD_ENTRY(mx_progress, do_progress,
	(mx_endpoint_t ep),
	(ep))

MXD_ENTRY(mx_decompose_endpoint_addr2, do_decompose_endpoint_addr2,
	(mx_endpoint_addr_t addr, uint64_t *nic_id,
		uint32_t *endpoint_id, uint32_t *session_id),
	(addr, nic_id, endpoint_id, session_id))

MXD_ENTRY(mx_set_endpoint_addr_context, do_set_endpoint_addr_context,
	(mx_endpoint_addr_t addr, void *context),
	(addr, context))

MXD_ENTRY(mx_get_endpoint_addr_context, do_get_endpoint_addr_context,
	(mx_endpoint_addr_t addr, void **context),
	(addr, context))

MXD_ENTRY(mx_iconnect, do_iconnect,
	(mx_endpoint_t ep, uint64_t nic_id, uint32_t endpoint_id,
		uint32_t filter, uint64_t match_info, void *context,
		mx_request_t *request),
	(ep, nic_id, endpoint_id, filter, match_info, context, request))

MXD_ENTRY(mx_disconnect, do_disconnect,
	(mx_endpoint_t ep, mx_endpoint_addr_t addr),
	(ep, addr))

MXD_ENTRY(mx_set_request_timeout, do_set_request_timeout,
	(mx_endpoint_t ep, mx_request_t request,
		uint32_t ms),
	(ep, request, ms))

MXD_ENTRY(mx_register_unexp_handler, do_register_unexp_handler,
	(mx_endpoint_t ep, mx_unexp_handler_t handler,
		void *context),
	(ep, handler, context))

MXD_ENTRY(mx_disable_progression, do_disable_progression,
	(mx_endpoint_t ep),
	(ep))

MXD_ENTRY(mx_reenable_progression, do_reenable_progression,
	(mx_endpoint_t ep),
	(ep))

MXD_ENTRY(mx__init_api, do_init_api,
	(int api),
	(api))

MXD_ENTRY(mx_buffered, do_buffered,
	(mx_endpoint_t ep, mx_request_t *request, uint32_t timeout,
		uint32_t *result),
	(ep, request, timeout, result))

MXD_ENTRY(mx_register_unexp_callback, do_register_unexp_callback,
	(mx_endpoint_t ep, mx_matching_callback_t callback, void *context),
	(ep, callback, context))

MXD_ENTRY(mx_iput, do_iput,
	(mx_endpoint_t ep, void *local_addr, uint32_t length,
		mx_endpoint_addr_t destination, uint64_t remote_addr,
		void *context, mx_request_t *request),
	(ep, local_addr, length, destination, remote_addr, context, request))

MXD_ENTRY(mx_iget, do_iget,
	(mx_endpoint_t ep, void *local_addr, uint32_t length,
		mx_endpoint_addr_t destination, uint64_t remote_addr,
		void *context, mx_request_t *request),
	(ep, local_addr, length, destination, remote_addr, context, request))
