/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors at the API boundary: the error handlers and the strings.
 *
 * Internal functions return 0 or a negated mx_return_t.  An API function
 * turns that into its return value in one place, mxd_error(), which also
 * calls the error handler in force: the endpoint's own
 * (MX_PARAM_ERROR_HANDLER) or the library's (mx_set_error_handler;
 * MX_ERRORS_ARE_FATAL until one is set).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "api/error.h"

static mx_return_t
errors_are_fatal(char *str, mx_return_t ret)
{
	MXD_LOG(CRIT, mx, "fatal error %d (%s): %s", ret, mx_strerror(ret),
			str);
	exit(1);
}

static mx_return_t
errors_return(char *str, mx_return_t ret)
{
	(void)str;
	return ret;
}

mx_error_handler_t MX_ERRORS_ARE_FATAL = errors_are_fatal;
mx_error_handler_t MX_ERRORS_RETURN = errors_return;

static mx_error_handler_t handler;	/* NULL: MX_ERRORS_ARE_FATAL */

mx_error_handler_t
mx_set_error_handler(mx_error_handler_t h)
{
	mx_error_handler_t old = handler ? handler : MX_ERRORS_ARE_FATAL;

	handler = h;
	return old;
}

mx_return_t
mxd_error(struct mx_endpoint *ep, mx_return_t rc, const char *fmt, ...)
{
	mx_error_handler_t h = ep && ep->handler ? ep->handler : handler;
	char msg[256];
	va_list ap;

	if (rc == MX_SUCCESS)
		return rc;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (h == NULL)
		h = MX_ERRORS_ARE_FATAL;
	return h(msg, rc);
}

const char *
mx_strerror(mx_return_t rc)
{
	static const char *const s[] = {
		[MX_SUCCESS] = "Success",
		[MX_BAD_BAD_BAD] = "Internal error",
		[MX_FAILURE] = "Failure",
		[MX_ALREADY_INITIALIZED] = "Already initialized",
		[MX_NOT_INITIALIZED] = "Not initialized",
		[MX_NO_DEV] = "No DPDK device (port) available",
		[MX_NO_DRIVER] = "No driver",
		[MX_NO_PERM] = "Permission denied",
		[MX_BOARD_UNKNOWN] = "Unknown board",
		[MX_BAD_ENDPOINT] = "Bad endpoint",
		[MX_BAD_SEG_LIST] = "Bad segment list",
		[MX_BAD_SEG_MEM] = "Bad segment memory",
		[MX_BAD_SEG_CNT] = "Bad segment count",
		[MX_BAD_REQUEST] = "Bad request",
		[MX_BAD_MATCH_MASK] = "Bad match mask",
		[MX_NO_RESOURCES] = "No resources",
		[MX_BAD_ADDR_LIST] = "Bad address list",
		[MX_BAD_ADDR_COUNT] = "Bad address count",
		[MX_BAD_ROOT] = "Bad root",
		[MX_NOT_COMPLETED] = "Not completed",
		[MX_BUSY] = "Busy",
		[MX_BAD_INFO_KEY] = "Bad info key",
		[MX_BAD_INFO_VAL] = "Bad info value",
		[MX_BAD_NIC] = "Bad NIC",
		[MX_BAD_PARAM_LIST] = "Bad parameter list",
		[MX_BAD_PARAM_NAME] = "Bad parameter name",
		[MX_BAD_PARAM_VAL] = "Bad parameter value",
		[MX_BAD_HOSTNAME_ARGS] = "Bad hostname arguments",
		[MX_HOST_NOT_FOUND] = "Host not found",
		[MX_REQUEST_PENDING] = "Request pending",
		[MX_TIMEOUT] = "Timeout",
		[MX_NO_MATCH] = "No match",
		[MX_BAD_ENDPOINT_ID] = "Bad endpoint id",
		[MX_CONNECTION_FAILED] = "Connection failed",
		[MX_BAD_CONNECTION_KEY] = "Bad connection key",
		[MX_BAD_INFO_LENGTH] = "Bad info length",
		[MX_NIC_NOT_FOUND] = "NIC not found",
		[MX_BAD_KERNEL_VERSION] = "Bad kernel version",
		[MX_BAD_LIB_VERSION] = "Bad library version",
		[MX_NIC_DEAD] = "NIC dead",
		[MX_CANCEL_NOT_SUPPORTED] = "Cancel not supported",
		[MX_CLOSE_IN_HANDLER] = "Close in handler",
		[MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK] =
			"Bad matching for context id mask",
		[MX_NOT_SUPPORTED_WITH_CONTEXT_ID] =
			"Not supported with context id",
	};

	if ((unsigned)rc >= sizeof(s) / sizeof(s[0]) || s[rc] == NULL)
		return "Unknown error";
	return s[rc];
}

const char *
mx_strstatus(mx_status_code_t st)
{
	static const char *const s[] = {
		[MX_STATUS_SUCCESS] = "Success",
		[MX_STATUS_PENDING] = "Pending",
		[MX_STATUS_BUFFERED] = "Buffered",
		[MX_STATUS_REJECTED] = "Rejected",
		[MX_STATUS_TIMEOUT] = "Timeout",
		[MX_STATUS_TRUNCATED] = "Truncated",
		[MX_STATUS_CANCELLED] = "Cancelled",
		[MX_STATUS_ENDPOINT_UNKNOWN] = "Endpoint unknown",
		[MX_STATUS_ENDPOINT_CLOSED] = "Endpoint closed",
		[MX_STATUS_ENDPOINT_UNREACHABLE] = "Endpoint unreachable",
		[MX_STATUS_BAD_SESSION] = "Bad session",
		[MX_STATUS_BAD_KEY] = "Bad key",
		[MX_STATUS_BAD_ENDPOINT] = "Bad endpoint",
		[MX_STATUS_BAD_RDMAWIN] = "Bad RDMA window",
		[MX_STATUS_ABORTED] = "Aborted",
		[MX_STATUS_EVENTQ_FULL] = "Event queue full",
		[MX_STATUS_NO_RESOURCES] = "No resources",
	};

	if ((unsigned)st >= sizeof(s) / sizeof(s[0]) || s[st] == NULL)
		return "Unknown status";
	return s[st];
}
