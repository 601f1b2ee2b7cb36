/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors and entry checks at the API boundary (the top of lib/).  Internal
 * functions return 0 or a negated mx_return_t; an API function turns that
 * into its return value in one place, mxd_error() (error.c), which also
 * calls the error handler in force.
 */
#ifndef MXD_ERROR_H
#define MXD_ERROR_H

#include <stdint.h>

#include "mx_extensions.h"
#include "myriexpress.h"
#include "util/lock.h"
#include "partners/endpoint.h"

/* Entry check of calls on an endpoint. */
#define CHECK_EP(ep, fn) do { \
	if (!mxd_ep_known(ep) && \
			(!mxd_lib.initialized || !mxd_ep_live(ep))) \
		return mxd_error(NULL, MX_BAD_ENDPOINT, fn ": bad endpoint"); \
} while (0)

/* Reports an error through the handler in force; returns rc. */
mx_return_t mxd_error(struct mx_endpoint *ep, mx_return_t rc,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether r is a request of ep in use (not free), its handle checked
 * against ep's pool before it is read. */
static inline int
mxd_req_of(const struct mx_endpoint *ep, const struct mx_request *r)
{
	return r != NULL && mxd_reqpool_owns(&ep->reqs, r) &&
		r->state != MXD_RS_FREE;
}

/* Whether *request is a live request of ep (not freed, not forgotten). */
static inline int
mxd_req_valid(const struct mx_endpoint *ep, const mx_request_t *request)
{
	return request != NULL && mxd_req_of(ep, *request) &&
		!(*request)->forget;
}

#endif /* MXD_ERROR_H */
