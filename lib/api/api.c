/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MX endpoint, point-to-point and completion calls.  Each function checks
 * its arguments, calls the engine, and reports errors through mxd_error()
 * (which applies the error handler); outputs are written on success only.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "glue.h"
#include "util/clock.h"
#include "util/config.h"
#include "board/shared.h"
#include "engine/recv.h"
#include "engine/send.h"
#include "engine/shmsend.h"
#include "engine/timers.h"
#include "engine/unexp.h"
#include "progress/progress.h"
#include "api/close.h"
#include "api/error.h"
#include "api/face.h"
#include "api/wait.h"

/* ---- endpoints ---------------------------------------------------------- */

static int
apply_params(struct mx_endpoint *ep, const mx_param_t *pl, uint32_t n)
{
	if (n != 0 && pl == NULL)
		return -MX_BAD_PARAM_LIST;
	for (uint32_t i = 0; i < n; i++) {
		switch (pl[i].key) {
		case MX_PARAM_ERROR_HANDLER:
			ep->handler = pl[i].val.error_handler;
			break;
		case MX_PARAM_UNEXP_QUEUE_MAX:
			ep->unexp_max = pl[i].val.unexp_queue_max;
			break;
		case MX_PARAM_CONTEXT_ID: {
			unsigned bits = pl[i].val.context_id.bits;
			unsigned shift = pl[i].val.context_id.shift;

			if (bits == 0 || bits > 16 || bits + shift > 64)
				return -MX_BAD_PARAM_VAL;
			ep->ctx_mask = ((1ull << bits) - 1) << shift;
			break;
		}
		default:
			return -MX_BAD_PARAM_NAME;
		}
	}
	return 0;
}

static uint32_t
new_session(void)
{
	uint32_t s = 0;

	while (s == 0)
		if (getrandom(&s, sizeof(s), 0) != sizeof(s))
			s = (uint32_t)(mxd_now_ns() * 2654435761u);
	return s;
}

/* The id to open on b; on a shared board, taken in the host's table
 * (another process may hold it: busy, as MX 1.0 says). */
static int
pick_endpoint_id(struct mxd_board *b, uint32_t id)
{
	if (b->host != NULL)
		return mxd_shared_ep_claim(b, id);
	if (id == MX_ANY_ENDPOINT) {
		for (uint32_t i = 0; i < MX_MAX_ENDPOINTS; i++)
			if (b->ep[i] == NULL)
				return (int)i;
		return -MX_BUSY;
	}
	if (id >= MX_MAX_ENDPOINTS)
		return -MX_BAD_ENDPOINT_ID;
	return b->ep[id] == NULL ? (int)id : -MX_BUSY;
}

/* Another process of the host holds the id (or every id) of shared
 * board b. */
static mx_return_t
busy_shared(struct mxd_board *b, uint32_t id)
{
	int pid = 0, slot;

	if (id == MX_ANY_ENDPOINT)
		return mxd_error(NULL, MX_BUSY, "mx_open_endpoint: the %u "
				"endpoints of shared board %s are all open "
				"(mx_info lists who holds them)",
				MX_MAX_ENDPOINTS, b->name);
	slot = mxd_shared_ep_holder(b, id, &pid);
	return mxd_error(NULL, MX_BUSY, "mx_open_endpoint: endpoint %u of "
			"shared board %s is open in process %d (slot %d)", id,
			b->name, pid, slot);
}

/* An endpoint of b with ep->session set, its matching ready; NULL out of
 * memory. */
static struct mx_endpoint *
endpoint_new(struct mxd_board *b, uint32_t id, uint32_t filter)
{
	struct mx_endpoint *ep = mxd_ep_new(b, id, filter, mxd_conf.unexp_max);

	if (ep != NULL && mxd_match_init(ep) < 0) {
		mxd_ep_free(ep);
		ep = NULL;
	}
	if (ep != NULL)
		ep->session = new_session();
	return ep;
}

int
mxd_face_endpoint_open(struct mxd_board *b, uint32_t id, uint32_t filter,
		const struct mxd_face_ops *face, void *ctx,
		struct mx_endpoint **out)
{
	struct mx_endpoint *ep;
	int ret = pick_endpoint_id(b, id);

	if (ret < 0)
		return ret;
	ep = endpoint_new(b, (uint32_t)ret, filter);
	if (ep == NULL) {
		mxd_shared_ep_release(b, (uint32_t)ret);
		return -MX_NO_RESOURCES;
	}
	ep->face = face;
	ep->face_ctx = ctx;
	mxd_ep_attach(ep);
	*out = ep;
	return 0;
}

static mx_return_t
do_open_endpoint(uint32_t board_num, uint32_t endpoint_id, uint32_t filter,
		mx_param_t *params_list, uint32_t params_count,
		mx_endpoint_t *endpoint)
{
	struct mx_endpoint *ep;
	struct mxd_board *b;
	int id, ret;

	if (!mxd_lib.initialized)
		return mxd_error(NULL, MX_NOT_INITIALIZED,
				"mx_open_endpoint: not initialized");
	if (board_num == MX_ANY_NIC)
		board_num = 0;
	if (board_num >= mxd_lib.nboards)
		return mxd_error(NULL, MX_BOARD_UNKNOWN,
				"mx_open_endpoint: no board %u", board_num);
	b = mxd_lib.boards[board_num];
	id = pick_endpoint_id(b, endpoint_id);
	if (id == -MX_BUSY && b->host != NULL)
		return busy_shared(b, endpoint_id);
	if (id < 0)
		return mxd_error(NULL, (mx_return_t)-id,
				"mx_open_endpoint: endpoint %u of board %u",
				endpoint_id, board_num);
	if (endpoint == NULL) {
		mxd_shared_ep_release(b, (uint32_t)id);
		return mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_open_endpoint: NULL endpoint pointer");
	}
	ep = endpoint_new(b, (uint32_t)id, filter);
	if (ep == NULL) {
		mxd_shared_ep_release(b, (uint32_t)id);
		return mxd_error(NULL, MX_NO_RESOURCES,
				"mx_open_endpoint: out of memory");
	}
	ret = apply_params(ep, params_list, params_count);
	if (ret < 0) {
		mxd_match_fini(ep);
		mxd_ep_free(ep);
		mxd_shared_ep_release(b, (uint32_t)id);
		return mxd_error(NULL, (mx_return_t)-ret,
				"mx_open_endpoint: bad parameters");
	}
	mxd_ep_attach(ep);
	*endpoint = ep;
	return MX_SUCCESS;
}

mx_return_t
mx_wakeup(mx_endpoint_t ep)
{
	/* Outside the library lock (a signal handler may call it): bumps
	 * the generation of ep's slot, never reading or writing ep itself,
	 * which a close in another thread may free meanwhile.  Every blocked
	 * call on ep sees a new generation. */
	struct mxd_ep_slot *s = mxd_lib.initialized ?
		mxd_ep_open_slot(ep) : NULL;

	if (s == NULL)
		return mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_wakeup: bad endpoint");
	__atomic_add_fetch(&s->wakeup_gen, 1, __ATOMIC_RELEASE);
	return MX_SUCCESS;
}

/* ---- addresses ---------------------------------------------------------- */

static mx_return_t
do_connect(mx_endpoint_t ep, uint64_t nic_id, uint32_t endpoint_id,
		uint32_t filter, uint32_t timeout, mx_endpoint_addr_t *addr)
{
	struct mxd_partner *p;
	int ret;

	CHECK_EP(ep, "mx_connect");
	if (addr == NULL || endpoint_id >= MX_MAX_ENDPOINTS)
		return mxd_error(ep, MX_BAD_ENDPOINT_ID,
				"mx_connect: endpoint id %u", endpoint_id);
	/* timeout: milliseconds, MX_INFINITE (0) none; mx_wakeup ends it. */
	ret = mxd_connect_wait(ep, nic_id, endpoint_id, filter, timeout, &p);
	if (ret == -MX_BUSY || ret == -MX_BAD_ENDPOINT)
		return mxd_wait_failed(ep, ret, NULL, "mx_connect");
	if (ret < 0)
		return mxd_error(ep, (mx_return_t)-ret,
				"mx_connect to %012llx endpoint %u",
				(unsigned long long)nic_id, endpoint_id);
	mxd_partner_addr(p, addr);
	return MX_SUCCESS;
}

mx_return_t
mx_decompose_endpoint_addr(mx_endpoint_addr_t addr, uint64_t *nic_id,
		uint32_t *endpoint_id)
{
	if (nic_id == NULL || endpoint_id == NULL)
		return mxd_error(NULL, MX_BAD_ENDPOINT,
				"mx_decompose_endpoint_addr: NULL output");
	*nic_id = addr.stuff[0] & 0xffffffffffffull;
	*endpoint_id = (uint32_t)(addr.stuff[0] >> 48);
	return MX_SUCCESS;
}

static mx_return_t
do_get_endpoint_addr(mx_endpoint_t ep, mx_endpoint_addr_t *addr)
{
	CHECK_EP(ep, "mx_get_endpoint_addr");
	if (addr == NULL)
		return mxd_error(ep, MX_BAD_ENDPOINT,
				"mx_get_endpoint_addr: NULL output");
	addr->stuff[0] = (ep->board->nic_id & 0xffffffffffffull) |
		((uint64_t)ep->id << 48);
	addr->stuff[1] = 0;	/* no partner yet: found on first use */
	return MX_SUCCESS;
}

/* ---- send and receive --------------------------------------------------- */

static int
check_segs(const mx_segment_t *segs, uint32_t n)
{
	if (n > MXD_MAX_SEGMENTS)
		return -MX_BAD_SEG_CNT;
	if (n != 0 && segs == NULL)
		return -MX_BAD_SEG_LIST;
	for (uint32_t i = 0; i < n; i++)
		if (segs[i].segment_ptr == NULL && segs[i].segment_length)
			return -MX_BAD_SEG_MEM;
	return 0;
}

/* A send's message is on its way: the board's queue goes. */
static void
send_posted(struct mx_endpoint *ep)
{
	mxd_board_flush(ep->board);
}

/* mx_isend and mx_issend but for mx_isend's common case (do_isend); p:
 * the partner dest names, if known already. */
static __attribute__((noinline)) mx_return_t
post_send(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		const mx_endpoint_addr_t *dest, uint64_t match, void *context,
		mx_request_t *request, int sync, struct mxd_partner *p,
		const char *fn)
{
	struct mx_request *r;
	mx_status_code_t told;
	int ret;

	if (request == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "%s: NULL request", fn);
	ret = check_segs(segs, nseg);
	if (ret < 0)
		return mxd_error(ep, (mx_return_t)-ret, "%s: segments", fn);
	if (p == NULL)
		p = mxd_addr_partner_now(ep, dest);
	if (p == NULL && mxd_ep_closing(ep))	/* closed while connecting */
		return mxd_wait_failed(ep, -MX_BAD_ENDPOINT, NULL, fn);
	if (p == NULL || p->state == MXD_PS_NEW || p->state == MXD_PS_CLOSED)
		return mxd_error(ep, MX_BAD_ENDPOINT,
				"%s: address not connected to this endpoint", fn);
	r = mxd_ep_req(ep, MXD_REQ_SEND, context);
	if (r == NULL)
		return mxd_error(ep, MX_NO_RESOURCES, "%s: no request", fn);
	ret = mxd_req_set_segs(r, segs, nseg);
	if (ret < 0) {
		mxd_req_put(r);
		return mxd_error(ep, (mx_return_t)-ret, "%s failed", fn);
	}
	r->partner = p;
	r->sync = (uint8_t)sync;
	r->rndv = r->length > p->eager_max;	/* large: pulled */
	r->match_recv = match;
	if (ep->req_timeout_ms)
		mxd_timer_deadline(r, ep->req_timeout_ms);
	/* Refused or lost, or a completed send's message was: say so. */
	told = mxd_send_report(p);
	if (told != MX_STATUS_SUCCESS)
		mxd_req_complete(r, told);
	else
		mxd_send_post(r);
	/* The status the application reads, once the message is on its
	 * way: the engine does not read these (msg_taken sets the lengths
	 * again when the message goes). */
	r->status.match_info = match;
	r->status.msg_length = r->length;
	mxd_partner_addr(p, &r->status.source);
	send_posted(ep);
	*request = r;
	return MX_SUCCESS;
}

static mx_return_t
do_isend(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		mx_endpoint_addr_t dest, uint64_t match, void *context,
		mx_request_t *request)
{
	struct mxd_partner *p = NULL;
	struct mx_request *r;

	CHECK_EP(ep, "mx_isend");
	/* The common case, decided once: a small message to a partner up
	 * (mxd_send_small); any other takes the general way. */
	if (request != NULL && nseg == 1 && segs != NULL &&
			(segs[0].segment_ptr != NULL ||
			 segs[0].segment_length == 0) &&
			(p = mxd_addr_partner_now(ep, &dest)) != NULL &&
			mxd_send_small_ok(ep, p, segs[0].segment_length) &&
			(r = p->a->open == NULL ?
			 mxd_send_now(ep, p, segs, match, context) :
			 mxd_send_small(ep, p, segs, match, context)) != NULL) {
		send_posted(ep);
		*request = r;
		return MX_SUCCESS;
	}
	return post_send(ep, segs, nseg, &dest, match, context, request, 0,
			p, "mx_isend");
}

static mx_return_t
do_issend(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		mx_endpoint_addr_t dest, uint64_t match, void *context,
		mx_request_t *request)
{
	CHECK_EP(ep, "mx_issend");
	return post_send(ep, segs, nseg, &dest, match, context, request, 1,
			NULL, "mx_issend");
}

/* Arguments of a receive or probe: the value fits the mask, which covers
 * the endpoint's context id bits.  Returns 0 or a negated code. */
static int
check_match(const struct mx_endpoint *ep, uint64_t value, uint64_t mask)
{
	if ((value & ~mask) != 0)
		return -MX_BAD_MATCH_MASK;
	if ((mask & ep->ctx_mask) != ep->ctx_mask)
		return -MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK;
	return 0;
}

static mx_return_t
do_irecv(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		uint64_t match_recv, uint64_t match_mask, void *context,
		mx_request_t *request)
{
	struct mx_request *r;
	int ret;

	CHECK_EP(ep, "mx_irecv");
	if (request == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_irecv: NULL request");
	ret = check_match(ep, match_recv, match_mask);
	if (ret == 0 && !(nseg == 1 && segs != NULL &&
				(segs[0].segment_ptr != NULL ||
				 segs[0].segment_length == 0)))
		ret = check_segs(segs, nseg);
	if (ret < 0)
		return mxd_error(ep, (mx_return_t)-ret, "mx_irecv: arguments");
	r = mxd_ep_req(ep, MXD_REQ_RECV, context);
	if (r == NULL)
		return mxd_error(ep, MX_NO_RESOURCES, "mx_irecv: no request");
	ret = mxd_req_set_segs(r, segs, nseg);
	if (ret < 0) {
		mxd_req_put(r);
		return mxd_error(ep, (mx_return_t)-ret, "mx_irecv: segments");
	}
	r->match_recv = match_recv;
	r->match_mask = match_mask;
	/* No progress pass here: a message still in the rx ring arrives, as
	 * far as MX can tell, after this receive was posted. */
	mxd_recv_post(r);
	*request = r;
	return MX_SUCCESS;
}

/* ---- completion ----------------------------------------------------------- */

static void
req_finish(mx_request_t *request, mx_status_t *status)
{
	if (status != NULL)
		*status = (*request)->status;
	mxd_req_put_done(*request);
	*request = NULL;
}

static __attribute__((noinline)) mx_return_t
do_test(mx_endpoint_t ep, mx_request_t *request, mx_status_t *status,
		uint32_t *result)
{
	CHECK_EP(ep, "mx_test");
	if (!mxd_req_valid(ep, request) || result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_test: bad request");
	if ((*request)->state != MXD_RS_COMPLETE)
		mxd_progress(ep);
	*result = (*request)->state == MXD_RS_COMPLETE;
	if (*result)
		req_finish(request, status);
	return MX_SUCCESS;
}

static int
req_done(void *arg)
{
	return ((struct mx_request *)arg)->state == MXD_RS_COMPLETE;
}

/* A request waited on, and which life of its slot it was. */
struct wait_arg {
	struct mx_request *r;
	uint32_t gen;
};

/* Done, or taken meanwhile by another thread's mx_test or mx_wait (which
 * freed it: its slot may hold another request now). */
static int
wait_done(void *arg)
{
	const struct wait_arg *w = arg;

	return w->r->gen != w->gen || req_done(w->r);
}

static mx_return_t
do_wait(mx_endpoint_t ep, mx_request_t *request, uint32_t timeout,
		mx_status_t *status, uint32_t *result)
{
	struct wait_arg w;
	int ret;

	CHECK_EP(ep, "mx_wait");
	if (!mxd_req_valid(ep, request) || result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_wait: bad request");
	w.r = *request;
	w.gen = w.r->gen;
	ret = req_done(w.r) ? 1 : mxd_poll_until(ep, wait_done, &w, timeout);
	if (ret < 0)
		return mxd_wait_failed(ep, ret, result, "mx_wait");
	/* Taken by another thread while this one waited: not this call's to
	 * complete (nor the request now in its slot), as after a timeout. */
	*result = ret > 0 && w.r->gen == w.gen;
	if (*result)
		req_finish(request, status);
	return MX_SUCCESS;
}

static mx_return_t
do_ibuffered(mx_endpoint_t ep, mx_request_t *request, uint32_t *result)
{
	CHECK_EP(ep, "mx_ibuffered");
	if (!mxd_req_valid(ep, request) || result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_ibuffered: bad request");
	mxd_progress(ep);
	/* A send's buffers are free once its data is in frames. */
	*result = (*request)->state == MXD_RS_COMPLETE ||
		(*request)->state == MXD_RS_BUFFERED;
	return MX_SUCCESS;
}

/*
 * A complete request for a peek.  With several threads, each completion
 * goes to one peeking thread: the request returned is claimed, and other
 * peeks pass it over until it is tested.
 */
static struct mx_request *
peekable(struct mx_endpoint *ep)
{
	struct mxd_list *pos, *tmp;

	mxd_ep_done_settle(ep);
	mxd_list_foreach(pos, tmp, &ep->done) {
		struct mx_request *r = mxd_container_of(pos, struct mx_request,
				done);

		if (!r->claimed)
			return r;
	}
	return NULL;
}

static int
any_done(void *arg)
{
	return peekable(arg) != NULL;
}

static void
peek_result(struct mx_endpoint *ep, mx_request_t *request, uint32_t *result)
{
	struct mx_request *r = peekable(ep);

	*result = r != NULL;
	if (r == NULL)
		return;
	*request = r;
	r->claimed = (uint8_t)mxd_threaded();
}

static mx_return_t
do_ipeek(mx_endpoint_t ep, mx_request_t *request, uint32_t *result)
{
	CHECK_EP(ep, "mx_ipeek");
	if (request == NULL || result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_ipeek: NULL output");
	mxd_progress(ep);
	if (!mxd_ep_done_any(ep)) {
		*result = 0;
		return MX_SUCCESS;
	}
	peek_result(ep, request, result);
	return MX_SUCCESS;
}

static mx_return_t
do_peek(mx_endpoint_t ep, uint32_t timeout, mx_request_t *request,
		uint32_t *result)
{
	int ret = 1;

	CHECK_EP(ep, "mx_peek");
	if (request == NULL || result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_peek: NULL output");
	if (!any_done(ep))
		ret = mxd_poll_until(ep, any_done, ep, timeout);
	if (ret < 0)
		return mxd_wait_failed(ep, ret, result, "mx_peek");
	peek_result(ep, request, result);
	return MX_SUCCESS;
}

struct probe_arg {
	struct mx_endpoint *ep;
	uint64_t value, mask;
	struct mxd_unexp *found;
};

static int
probe_done(void *arg)
{
	struct probe_arg *a = arg;

	a->found = mxd_unexp_find(a->ep, a->value, a->mask);
	return a->found != NULL;
}

/*
 * A blocked mx_probe's: "if multiple threads are blocked in mx_probe()
 * on the same endpoint, only one of them will return with success" (MX
 * 1.0, VII.1.2).  The message one was told of is claimed (with several
 * threads), and the others go on waiting for one that is not: the next
 * first match, once a receive has taken the claimed one.
 */
static int
probe_unclaimed(void *arg)
{
	struct probe_arg *a = arg;

	return probe_done(a) && !a->found->probed;
}

static void
probe_status(const struct probe_arg *a, mx_status_t *status,
		uint32_t *result)
{
	*result = a->found != NULL;
	if (a->found == NULL || status == NULL)
		return;
	memset(status, 0, sizeof(*status));
	status->code = MX_STATUS_SUCCESS;
	mxd_partner_addr(a->found->partner, &status->source);
	status->match_info = a->found->match;
	status->msg_length = mxd_unexp_length(a->found);
	status->xfer_length = status->msg_length;
}

static mx_return_t
probe(mx_endpoint_t ep, uint32_t timeout, int block, uint64_t match_recv,
		uint64_t match_mask, mx_status_t *status, uint32_t *result)
{
	struct probe_arg a = { ep, match_recv, match_mask, NULL };
	int ret = check_match(ep, match_recv, match_mask);

	if (ret < 0)
		return mxd_error(ep, (mx_return_t)-ret, "mx_probe: match "
				"arguments");
	if (result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_probe: NULL result");
	if (block) {
		ret = mxd_poll_until(ep, probe_unclaimed, &a, timeout);
		if (ret < 0)
			return mxd_wait_failed(ep, ret, result, "mx_probe");
		if (ret == 0)
			a.found = NULL;		/* timed out, or a claimed one */
		else
			a.found->probed = (uint8_t)mxd_threaded();
	} else {
		mxd_progress(ep);
		probe_done(&a);
	}
	probe_status(&a, status, result);
	return MX_SUCCESS;
}

static mx_return_t
do_iprobe(mx_endpoint_t ep, uint64_t match_recv, uint64_t match_mask,
		mx_status_t *status, uint32_t *result)
{
	CHECK_EP(ep, "mx_iprobe");
	return probe(ep, 0, 0, match_recv, match_mask, status, result);
}

static mx_return_t
do_probe(mx_endpoint_t ep, uint32_t timeout, uint64_t match_recv,
		uint64_t match_mask, mx_status_t *status, uint32_t *result)
{
	CHECK_EP(ep, "mx_probe");
	return probe(ep, timeout, 1, match_recv, match_mask, status, result);
}

static mx_return_t
do_cancel(mx_endpoint_t ep, mx_request_t *request, uint32_t *result)
{
	struct mx_request *r;

	CHECK_EP(ep, "mx_cancel");
	if (!mxd_req_valid(ep, request) || result == NULL)
		return mxd_error(ep, MX_BAD_REQUEST, "mx_cancel: bad request");
	r = *request;
	*result = r->type == MXD_REQ_RECV && r->state == MXD_RS_POSTED;
	if (*result) {
		mxd_recv_cancel(r);
		mxd_req_put(r);
		*request = NULL;
	}
	return MX_SUCCESS;
}

/* A request of some open endpoint: mx_context names none, so the handle
 * is looked for in every open endpoint's pool before it is read. */
static int
req_anywhere(const struct mx_request *r)
{
	for (unsigned i = 0; mxd_lib.initialized && i < mxd_lib.nboards; i++) {
		const struct mxd_board *b = mxd_lib.boards[i];

		for (uint32_t m = b->ep_open; m != 0; m &= m - 1)
			if (mxd_req_of(b->ep[__builtin_ctz(m)], r))
				return 1;
	}
	return 0;
}

static mx_return_t
do_context(mx_request_t *request, void **context)
{
	if (request == NULL || context == NULL || !req_anywhere(*request))
		return mxd_error(NULL, MX_BAD_REQUEST, "mx_context: bad request");
	*context = (*request)->status.context;
	return MX_SUCCESS;
}

/* ---- entry points: the library lock around each call (lock.h) ---- */

MXD_ENTRY(mx_open_endpoint, do_open_endpoint,
	(uint32_t board_num, uint32_t endpoint_id, uint32_t filter,
		mx_param_t *params_list, uint32_t params_count,
		mx_endpoint_t *endpoint),
	(board_num, endpoint_id, filter, params_list, params_count, endpoint))

MXD_ENTRY(mx_close_endpoint, mxd_close_endpoint,
	(mx_endpoint_t ep),
	(ep))

MXD_ENTRY(mx_connect, do_connect,
	(mx_endpoint_t ep, uint64_t nic_id, uint32_t endpoint_id,
		uint32_t filter, uint32_t timeout, mx_endpoint_addr_t *addr),
	(ep, nic_id, endpoint_id, filter, timeout, addr))

MXD_ENTRY(mx_get_endpoint_addr, do_get_endpoint_addr,
	(mx_endpoint_t ep, mx_endpoint_addr_t *addr),
	(ep, addr))

static __attribute__((noinline)) MXD_ENTRY(isend_entry, do_isend,
	(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		mx_endpoint_addr_t dest, uint64_t match, void *context,
		mx_request_t *request),
	(ep, segs, nseg, dest, match, context, request))

/* do_isend, entered already (mx_isend). */
static __attribute__((noinline)) mx_return_t
isend_in(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		mx_endpoint_addr_t dest, uint64_t match, void *context,
		mx_request_t *request)
{
	mx_return_t rc = do_isend(ep, segs, nseg, dest, match, context,
			request);

	mxd_leave();
	return rc;
}

/* mx_isend's common case with its partner found (mx_isend), entered
 * already: sent now, or the general way.  p has no open PACK frame
 * (isend_small: mxd_send_now looks no more), or has one that could not
 * take the message (isend_behind: mxd_send_small, behind it). */
static inline __attribute__((always_inline)) mx_return_t
isend_r(mx_endpoint_t ep, struct mxd_partner *p, mx_segment_t *segs,
		uint64_t match, void *context, mx_request_t *request, int open)
{
	struct mx_request *r = open ?
		mxd_send_small(ep, p, segs, match, context) :
		mxd_send_now(ep, p, segs, match, context);
	mx_return_t rc = MX_SUCCESS;

	if (r != NULL) {
		send_posted(ep);
		*request = r;
	} else {
		rc = post_send(ep, segs, 1, NULL, match, context, request, 0,
				p, "mx_isend");
	}
	mxd_leave();
	return rc;
}

static __attribute__((noinline)) mx_return_t
isend_small(mx_endpoint_t ep, struct mxd_partner *p, mx_segment_t *segs,
		uint64_t match, void *context, mx_request_t *request)
{
	return isend_r(ep, p, segs, match, context, request, 0);
}

static __attribute__((noinline)) mx_return_t
isend_behind(mx_endpoint_t ep, struct mxd_partner *p, mx_segment_t *segs,
		uint64_t match, void *context, mx_request_t *request)
{
	return isend_r(ep, p, segs, match, context, request, 1);
}

/* The same when p has an open PACK frame: the message goes into it (no
 * call out: mxd_send_open) if it may, else behind it (isend_behind). */
static __attribute__((noinline)) mx_return_t
isend_open(mx_endpoint_t ep, struct mxd_partner *p, mx_segment_t *segs,
		uint64_t match, void *context, mx_request_t *request)
{
	struct mx_request *r = mxd_send_open(ep, p, segs, match, context);

	if (r == NULL)
		return isend_behind(ep, p, segs, match, context, request);
	*request = r;
	mxd_leave_owner();
	return MX_SUCCESS;
}

/* The same to a same-host partner (its ring: engine/shmsend.c), else the
 * general way. */
static __attribute__((noinline)) mx_return_t
isend_shm(mx_endpoint_t ep, struct mxd_partner *p, mx_segment_t *segs,
		uint64_t match, void *context, mx_request_t *request)
{
	struct mx_request *r = mxd_shm_isend(ep, p, segs, match, context);
	mx_return_t rc = MX_SUCCESS;

	if (r != NULL)
		*request = r;
	else
		rc = post_send(ep, segs, 1, NULL, match, context, request, 0,
				p, "mx_isend");
	mxd_leave();
	return rc;
}

/*
 * mx_isend, decided once: by the owner thread, a message of the common
 * case (mxd_send_small_ok) to a partner up goes into its open PACK frame
 * if it has one (isend_open), else out in a frame of its own
 * (isend_small); any other call to do_isend, any other thread's to the
 * general entry.  The checks alone here: no register saved.
 */
mx_return_t
mx_isend(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		mx_endpoint_addr_t dest, uint64_t match, void *context,
		mx_request_t *request)
{
	struct mxd_partner *p;
	uint32_t idx;

	if (!mxd_enter_owner())
		return isend_entry(ep, segs, nseg, dest, match, context,
				request);
	idx = (uint32_t)(dest.stuff[1] & 0xffff) - 1;
	if (!mxd_ep_known(ep) || request == NULL || nseg != 1 ||
			segs == NULL || (segs[0].segment_ptr == NULL &&
				segs[0].segment_length != 0) ||
			(uint32_t)(dest.stuff[1] >> 32) != ep->session ||
			idx >= ep->npartners)
		return isend_in(ep, segs, nseg, dest, match, context,
				request);
	if (!mxd_send_small_ok(ep, (p = ep->partners[idx]),
				segs[0].segment_length))
		return p->shm ? isend_shm(ep, p, segs, match, context,
				request) : isend_in(ep, segs, nseg, dest, match,
				context, request);
	if (p->a->open != NULL)
		return isend_open(ep, p, segs, match, context, request);
	return isend_small(ep, p, segs, match, context, request);
}

MXD_ENTRY(mx_issend, do_issend,
	(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		mx_endpoint_addr_t dest, uint64_t match, void *context,
		mx_request_t *request),
	(ep, segs, nseg, dest, match, context, request))

static __attribute__((noinline)) MXD_ENTRY(irecv_entry, do_irecv,
	(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		uint64_t match_recv, uint64_t match_mask, void *context,
		mx_request_t *request),
	(ep, segs, nseg, match_recv, match_mask, context, request))

/* do_irecv, entered already (mx_irecv). */
static __attribute__((noinline)) mx_return_t
irecv_in(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		uint64_t match_recv, uint64_t match_mask, void *context,
		mx_request_t *request)
{
	mx_return_t rc = do_irecv(ep, segs, nseg, match_recv, match_mask,
			context, request);

	mxd_leave();
	return rc;
}

/*
 * mx_irecv's common case, by the owner thread: one segment, a request at
 * hand, no unexpected message that could match: the receive goes at the
 * posted list's end (mxd_match_list) with nothing that calls out.  Anything else in do_irecv (irecv_in), any other thread's
 * call at the general entry.
 */
mx_return_t
mx_irecv(mx_endpoint_t ep, mx_segment_t *segs, uint32_t nseg,
		uint64_t match_recv, uint64_t match_mask, void *context,
		mx_request_t *request)
{
	struct mx_request *r;

	if (!mxd_enter_owner())
		return irecv_entry(ep, segs, nseg, match_recv, match_mask,
				context, request);
	if (!mxd_ep_known(ep) || request == NULL || nseg != 1 ||
			segs == NULL || (segs[0].segment_ptr == NULL &&
				segs[0].segment_length != 0) ||
			check_match(ep, match_recv, match_mask) != 0 ||
			ep->unexp_n != 0 || ep->posted_short_max == 0 ||
			(r = ep->reqs.free) == NULL)
		return irecv_in(ep, segs, nseg, match_recv, match_mask,
				context, request);
	ep->reqs.free = r->pool_next;
	mxd_req_init(r, MXD_REQ_RECV, MXD_RS_POSTED);
	r->partner = NULL;
	r->rndv_handle = 0;
	memset(&r->status, 0, sizeof(r->status));
	r->status.code = MX_STATUS_PENDING;
	r->status.context = context;
	r->nseg = 1;
	r->segs = r->seg_inline;
	r->seg_inline[0] = segs[0];
	r->length = segs[0].segment_length;
	r->match_recv = match_recv;
	r->match_mask = match_mask;
	mxd_match_list(ep, r);
	*request = r;
	mxd_leave_owner();
	return MX_SUCCESS;
}

static __attribute__((noinline)) MXD_ENTRY(test_entry, do_test,
	(mx_endpoint_t ep, mx_request_t *request, mx_status_t *status,
		uint32_t *result),
	(ep, request, status, result))

/* do_test, entered already (mx_test). */
static __attribute__((noinline)) mx_return_t
test_in(mx_endpoint_t ep, mx_request_t *request, mx_status_t *status,
		uint32_t *result)
{
	mx_return_t rc = do_test(ep, request, status, result);

	mxd_leave();
	return rc;
}

/* do_test for a request checked already (mx_test). */
static __attribute__((noinline)) mx_return_t
test_checked(mx_endpoint_t ep, mx_request_t *request, mx_status_t *status,
		uint32_t *result)
{
	if ((*request)->state != MXD_RS_COMPLETE)
		mxd_progress_for(ep);
	*result = (*request)->state == MXD_RS_COMPLETE;
	if (*result)
		req_finish(request, status);
	mxd_leave();
	return MX_SUCCESS;
}

/*
 * mx_test's common case, a request of ep done, taken at once by the
 * owner thread with nothing that calls out: the registers of a call are
 * enough, none saved.  A request not done (a pass) or a bad argument goes
 * to do_test, any other thread's call to the general entry.
 */
mx_return_t
mx_test(mx_endpoint_t ep, mx_request_t *request, mx_status_t *status,
		uint32_t *result)
{
	struct mx_request *r;

	if (!mxd_enter_owner())
		return test_entry(ep, request, status, result);
	/* A NULL handle is not the pool's either. */
	if (!mxd_ep_known(ep) || request == NULL || result == NULL ||
			!mxd_reqpool_owns(&ep->reqs, (r = *request)))
		return test_in(ep, request, status, result);
	if (r->state != MXD_RS_COMPLETE)
		return r->state == MXD_RS_FREE || r->forget ?
			test_in(ep, request, status, result) :
			test_checked(ep, request, status, result);
	/* Complete, so not forgotten: a forgotten request is freed as it
	 * completes (mxd_req_done). */
	assert(!r->forget);
	if (r->segs != r->seg_inline)
		return test_checked(ep, request, status, result);
	if (status != NULL)
		*status = r->status;
	mxd_req_put_done(r);
	*request = NULL;
	*result = 1;
	mxd_leave_owner();
	return MX_SUCCESS;
}

MXD_ENTRY(mx_wait, do_wait,
	(mx_endpoint_t ep, mx_request_t *request, uint32_t timeout,
		mx_status_t *status, uint32_t *result),
	(ep, request, timeout, status, result))

MXD_ENTRY(mx_ibuffered, do_ibuffered,
	(mx_endpoint_t ep, mx_request_t *request, uint32_t *result),
	(ep, request, result))

static __attribute__((noinline)) MXD_ENTRY(ipeek_entry, do_ipeek,
	(mx_endpoint_t ep, mx_request_t *request, uint32_t *result),
	(ep, request, result))

/* do_ipeek, entered already (mx_ipeek). */
static __attribute__((noinline)) mx_return_t
ipeek_in(mx_endpoint_t ep, mx_request_t *request, uint32_t *result)
{
	mx_return_t rc = do_ipeek(ep, request, result);

	mxd_leave();
	return rc;
}

/* A request done, found by mx_ipeek's pass: peek_result's choice. */
static __attribute__((noinline)) mx_return_t
ipeek_found(mx_endpoint_t ep, mx_request_t *request, uint32_t *result)
{
	peek_result(ep, request, result);
	mxd_leave();
	return MX_SUCCESS;
}

/*
 * mx_ipeek's common case, by the owner thread: an endpoint known, both
 * outputs given, a pass that completes nothing (a poll's usual answer),
 * without the general entry's call.  A bad argument goes to do_ipeek
 * (ipeek_in), a request done to ipeek_found, any other thread's call to
 * the general entry.
 */
mx_return_t
mx_ipeek(mx_endpoint_t ep, mx_request_t *request, uint32_t *result)
{
	if (!mxd_enter_owner())
		return ipeek_entry(ep, request, result);
	if (!mxd_ep_known(ep) || request == NULL || result == NULL)
		return ipeek_in(ep, request, result);
	mxd_progress(ep);
	if (mxd_ep_done_any(ep))
		return ipeek_found(ep, request, result);
	*result = 0;
	mxd_leave();
	return MX_SUCCESS;
}

MXD_ENTRY(mx_peek, do_peek,
	(mx_endpoint_t ep, uint32_t timeout, mx_request_t *request,
		uint32_t *result),
	(ep, timeout, request, result))

MXD_ENTRY(mx_iprobe, do_iprobe,
	(mx_endpoint_t ep, uint64_t match_recv, uint64_t match_mask,
		mx_status_t *status, uint32_t *result),
	(ep, match_recv, match_mask, status, result))

MXD_ENTRY(mx_probe, do_probe,
	(mx_endpoint_t ep, uint32_t timeout, uint64_t match_recv,
		uint64_t match_mask, mx_status_t *status, uint32_t *result),
	(ep, timeout, match_recv, match_mask, status, result))

MXD_ENTRY(mx_cancel, do_cancel,
	(mx_endpoint_t ep, mx_request_t *request, uint32_t *result),
	(ep, request, result))

MXD_ENTRY(mx_context, do_context,
	(mx_request_t *request, void **context),
	(request, context))
