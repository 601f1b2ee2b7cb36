/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What MX 1.2 declared in mx_extensions.h, used by a program that
 * includes only that header (it brings myriexpress.h, as MX's did).
 * Built as C with -Werror=implicit-function-declaration (and -Werror), and
 * as C++ (header_ext12.cc).  Every function is assigned to a pointer of
 * MX 1.2's type; the calls are never run.
 */
#include <mx_extensions.h>

#ifndef MX_HAS_ICONNECT_V2
#error "MX_HAS_ICONNECT_V2 must be defined"
#endif
#if !MX_THREAD_SAFE
#error "MX_THREAD_SAFE must be 1 through mx_extensions.h too"
#endif

struct ext12_functions {
	mx_return_t (*iconnect)(mx_endpoint_t, uint64_t, uint32_t, uint32_t,
			uint64_t, void *, mx_request_t *);
	mx_return_t (*disconnect)(mx_endpoint_t, mx_endpoint_addr_t);
	mx_return_t (*register_unexp_handler)(mx_endpoint_t,
			mx_unexp_handler_t, void *);
	mx_return_t (*forget)(mx_endpoint_t, mx_request_t *);
	mx_return_t (*progress)(mx_endpoint_t);
	mx_return_t (*set_endpoint_addr_context)(mx_endpoint_addr_t, void *);
	mx_return_t (*get_endpoint_addr_context)(mx_endpoint_addr_t, void **);
	mx_return_t (*set_request_timeout)(mx_endpoint_t, mx_request_t,
			uint32_t);
	mx_return_t (*decompose_endpoint_addr2)(mx_endpoint_addr_t,
			uint64_t *, uint32_t *, uint32_t *);
};

static const struct ext12_functions functions = {
	mx_iconnect, mx_disconnect, mx_register_unexp_handler, mx_forget,
	mx_progress, mx_set_endpoint_addr_context,
	mx_get_endpoint_addr_context, mx_set_request_timeout,
	mx_decompose_endpoint_addr2
};

static mx_unexp_handler_action_t
on_unexpected(void *context, mx_endpoint_addr_t source, uint64_t match_value,
		uint32_t length, void *data_if_available)
{
	enum mx_unexp_handler_action act = MX_RECV_CONTINUE;

	(void)context;
	(void)source;
	(void)data_if_available;
	if (match_value == 0 && length == 0)
		act = MX_RECV_FINISHED;
	return act;
}

/* Calls as MX 1.2 programs write them (never run: main() passes 0). */
static int
calls(int run)
{
	mx_endpoint_t ep = 0;
	mx_endpoint_addr_t addr;
	mx_request_t req = 0;
	mx_unexp_handler_t h = on_unexpected;
	uint64_t nic = 0;
	uint32_t eid = 0, session = 0;
	void *ctx = 0;
	int bad = 0;

	if (!run)
		return 0;
	bad |= mx_register_unexp_handler(ep, h, 0);
	bad |= mx_iconnect(ep, nic, 1, 1, 0x1234, 0, &req);
	bad |= mx_set_request_timeout(ep, req, 1000);
	bad |= mx_set_request_timeout(ep, 0, 1000);
	bad |= mx_progress(ep);
	bad |= mx_forget(ep, &req);
	bad |= mx_get_endpoint_addr(ep, &addr);
	bad |= mx_set_endpoint_addr_context(addr, &eid);
	bad |= mx_get_endpoint_addr_context(addr, &ctx);
	bad |= mx_decompose_endpoint_addr2(addr, &nic, &eid, &session);
	bad |= mx_disconnect(ep, addr);
	return bad;
}

int
main(int argc, char **argv)
{
	(void)argv;
	if (functions.iconnect == 0 || functions.decompose_endpoint_addr2 == 0)
		return 1;
	return calls(argc > 1000) | (MX_RECV_CONTINUE != 0) |
		(MX_RECV_FINISHED != 1);
}
