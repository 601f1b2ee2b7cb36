/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An MX 1.2 program's view of myriexpress.h, and nothing else included:
 * every function, type and constant that MX 1.2 declared in that header
 * is used here, as programs use them.  Built as C with
 * -Werror=implicit-function-declaration (and -Werror), and as C++
 * (header_mx12.cc includes this file).  Each function is also assigned to
 * a pointer of MX 1.2's exact type, so a signature that drifts fails to
 * build.  Run, it checks the values a program may rely on; it makes no
 * call into the library that would need DPDK.
 */
#include <myriexpress.h>

#if !defined(MX_THREAD_SAFE) || !MX_THREAD_SAFE
#error "MX_THREAD_SAFE must be defined to 1"
#endif
#if MX_API != 0x301
#error "MX_API must be 0x301 (MX 1.2)"
#endif
#ifndef MX_HAS_NET_TYPE
#error "MX_HAS_NET_TYPE must be defined"
#endif
#if MX_MAX_SEGMENTS != 256
#error "MX_MAX_SEGMENTS must be the constant 256"
#endif

/* <inttypes.h> came with the header: MX programs print and parse ids. */
static const char print_nic[] = "nic %016" PRIx64 " ep %" PRIu32;
static const char scan_nic[] = "%" SCNx64;

/* Every function, with MX 1.2's signature. */
struct mx12_functions {
	mx_return_t (*init_api)(int);
	mx_return_t (*init)(void);
	mx_return_t (*finalize)(void);
	mx_error_handler_t (*set_error_handler)(mx_error_handler_t);
	mx_return_t (*open_endpoint)(uint32_t, uint32_t, uint32_t,
			mx_param_t *, uint32_t, mx_endpoint_t *);
	mx_return_t (*close_endpoint)(mx_endpoint_t);
	mx_return_t (*wakeup)(mx_endpoint_t);
	mx_return_t (*disable_progression)(mx_endpoint_t);
	mx_return_t (*reenable_progression)(mx_endpoint_t);
	mx_return_t (*register_unexp_callback)(mx_endpoint_t,
			mx_matching_callback_t, void *);
	mx_return_t (*isend)(mx_endpoint_t, mx_segment_t *, uint32_t,
			mx_endpoint_addr_t, uint64_t, void *, mx_request_t *);
	mx_return_t (*issend)(mx_endpoint_t, mx_segment_t *, uint32_t,
			mx_endpoint_addr_t, uint64_t, void *, mx_request_t *);
	mx_return_t (*irecv)(mx_endpoint_t, mx_segment_t *, uint32_t,
			uint64_t, uint64_t, void *, mx_request_t *);
	mx_return_t (*cancel)(mx_endpoint_t, mx_request_t *, uint32_t *);
	mx_return_t (*test)(mx_endpoint_t, mx_request_t *, mx_status_t *,
			uint32_t *);
	mx_return_t (*wait)(mx_endpoint_t, mx_request_t *, uint32_t,
			mx_status_t *, uint32_t *);
	mx_return_t (*test_any)(mx_endpoint_t, uint64_t, uint64_t,
			mx_status_t *, uint32_t *);
	mx_return_t (*wait_any)(mx_endpoint_t, uint32_t, uint64_t, uint64_t,
			mx_status_t *, uint32_t *);
	mx_return_t (*ipeek)(mx_endpoint_t, mx_request_t *, uint32_t *);
	mx_return_t (*peek)(mx_endpoint_t, uint32_t, mx_request_t *,
			uint32_t *);
	mx_return_t (*iprobe)(mx_endpoint_t, uint64_t, uint64_t,
			mx_status_t *, uint32_t *);
	mx_return_t (*probe)(mx_endpoint_t, uint32_t, uint64_t, uint64_t,
			mx_status_t *, uint32_t *);
	mx_return_t (*ibuffered)(mx_endpoint_t, mx_request_t *, uint32_t *);
	mx_return_t (*buffered)(mx_endpoint_t, mx_request_t *, uint32_t,
			uint32_t *);
	mx_return_t (*context)(mx_request_t *, void **);
	mx_return_t (*get_info)(mx_endpoint_t, mx_get_info_key_t, void *,
			uint32_t, void *, uint32_t);
	mx_return_t (*hostname_to_nic_id)(char *, uint64_t *);
	mx_return_t (*board_number_to_nic_id)(uint32_t, uint64_t *);
	mx_return_t (*nic_id_to_board_number)(uint64_t, uint32_t *);
	mx_return_t (*nic_id_to_hostname)(uint64_t, char *);
	mx_return_t (*connect)(mx_endpoint_t, uint64_t, uint32_t, uint32_t,
			uint32_t, mx_endpoint_addr_t *);
	mx_return_t (*decompose_endpoint_addr)(mx_endpoint_addr_t,
			uint64_t *, uint32_t *);
	mx_return_t (*get_endpoint_addr)(mx_endpoint_t, mx_endpoint_addr_t *);
	const char *(*strerror)(mx_return_t);
	const char *(*strstatus)(mx_status_code_t);
	mx_return_t (*iput)(mx_endpoint_t, void *, uint32_t,
			mx_endpoint_addr_t, uint64_t, void *, mx_request_t *);
	mx_return_t (*iget)(mx_endpoint_t, void *, uint32_t,
			mx_endpoint_addr_t, uint64_t, void *, mx_request_t *);
};

static const struct mx12_functions functions = {
	mx__init_api, mx_init, mx_finalize, mx_set_error_handler,
	mx_open_endpoint, mx_close_endpoint, mx_wakeup,
	mx_disable_progression, mx_reenable_progression,
	mx_register_unexp_callback, mx_isend, mx_issend, mx_irecv, mx_cancel,
	mx_test, mx_wait, mx_test_any, mx_wait_any, mx_ipeek, mx_peek,
	mx_iprobe, mx_probe, mx_ibuffered, mx_buffered, mx_context,
	mx_get_info, mx_hostname_to_nic_id, mx_board_number_to_nic_id,
	mx_nic_id_to_board_number, mx_nic_id_to_hostname, mx_connect,
	mx_decompose_endpoint_addr, mx_get_endpoint_addr, mx_strerror,
	mx_strstatus, mx_iput, mx_iget
};

static void
on_unexpected(void *context, uint64_t match_value, int length)
{
	(void)context;
	(void)match_value;
	(void)length;
}

static mx_return_t
on_error(char *str, mx_return_t ret)
{
	(void)str;
	return ret;
}

/*
 * Calls as an MX 1.2 program writes them (never run: main() passes 0).
 * Without a declaration any of them fails the C build.
 */
static int
calls(int run)
{
	mx_segment_t segs[MX_MAX_SEGMENTS];
	char host[MX_MAX_HOSTNAME_LEN], name[MX_MAX_STR_LEN];
	mx_param_t param;
	mx_endpoint_t ep = 0;
	mx_endpoint_addr_t addr;
	mx_request_t req = 0;
	mx_status_t st;
	mx_error_handler_t old;
	mx_matching_callback_t cb = on_unexpected;
	uint64_t nic = 0;
	uint32_t eid = 0, board = 0, result = 0, count = 0;
	void *ctx = 0;
	int bad = 0;

	if (!run)
		return 0;
	segs[0].segment_ptr = (mx_segment_ptr_t)name;
	segs[0].segment_length = sizeof(name);
	param.key = MX_PARAM_ERROR_HANDLER;
	param.val.error_handler = MX_ERRORS_RETURN;
	old = mx_set_error_handler(on_error);
	bad |= mx_init() != MX_SUCCESS;
	bad |= mx__init_api(MX_API) != MX_SUCCESS;
	bad |= mx_get_info(0, MX_NIC_COUNT, 0, 0, &count, sizeof(count));
	bad |= mx_open_endpoint(MX_ANY_NIC, MX_ANY_ENDPOINT, 1, &param, 1, &ep);
	bad |= mx_register_unexp_callback(ep, cb, 0);
	bad |= mx_disable_progression(ep);
	bad |= mx_reenable_progression(ep);
	bad |= mx_hostname_to_nic_id(host, &nic);
	bad |= mx_nic_id_to_hostname(nic, host);
	bad |= mx_board_number_to_nic_id(board, &nic);
	bad |= mx_nic_id_to_board_number(nic, &board);
	bad |= mx_connect(ep, nic, 1, 1, MX_INFINITE, &addr);
	bad |= mx_get_endpoint_addr(ep, &addr);
	bad |= mx_decompose_endpoint_addr(addr, &nic, &eid);
	bad |= mx_isend(ep, segs, 1, addr, 0, 0, &req);
	bad |= mx_ibuffered(ep, &req, &result);
	bad |= mx_buffered(ep, &req, MX_INFINITE, &result);
	bad |= mx_wait(ep, &req, MX_INFINITE, &st, &result);
	bad |= mx_issend(ep, segs, 1, addr, 0, 0, &req);
	bad |= mx_test(ep, &req, &st, &result);
	bad |= mx_irecv(ep, segs, 1, 0, MX_MATCH_MASK_NONE, 0, &req);
	bad |= mx_context(&req, &ctx);
	bad |= mx_cancel(ep, &req, &result);
	bad |= mx_ipeek(ep, &req, &result);
	bad |= mx_peek(ep, MX_INFINITE, &req, &result);
	bad |= mx_iprobe(ep, 0, MX_MATCH_MASK_NONE, &st, &result);
	bad |= mx_probe(ep, 10, 0, MX_MATCH_MASK_NONE, &st, &result);
	bad |= mx_test_any(ep, 0, 0, &st, &result);
	bad |= mx_wait_any(ep, 10, 0, 0, &st, &result);
	bad |= mx_iput(ep, name, 1, addr, 0, 0, &req);
	bad |= mx_iget(ep, name, 1, addr, 0, 0, &req);
	bad |= mx_wakeup(ep);
	bad |= mx_close_endpoint(ep);
	bad |= mx_finalize();
	bad |= mx_strerror(MX_SUCCESS) == 0 || mx_strstatus(st.code) == 0;
	mx_set_error_handler(old);
	return bad;
}

/* Every return code, status code and key, with MX 1.2's value. */
static int
constants(void)
{
	static const mx_return_t rc[] = {
		MX_SUCCESS, MX_BAD_BAD_BAD, MX_FAILURE, MX_ALREADY_INITIALIZED,
		MX_NOT_INITIALIZED, MX_NO_DEV, MX_NO_DRIVER, MX_NO_PERM,
		MX_BOARD_UNKNOWN, MX_BAD_ENDPOINT, MX_BAD_SEG_LIST,
		MX_BAD_SEG_MEM, MX_BAD_SEG_CNT, MX_BAD_REQUEST,
		MX_BAD_MATCH_MASK, MX_NO_RESOURCES, MX_BAD_ADDR_LIST,
		MX_BAD_ADDR_COUNT, MX_BAD_ROOT, MX_NOT_COMPLETED, MX_BUSY,
		MX_BAD_INFO_KEY, MX_BAD_INFO_VAL, MX_BAD_NIC,
		MX_BAD_PARAM_LIST, MX_BAD_PARAM_NAME, MX_BAD_PARAM_VAL,
		MX_BAD_HOSTNAME_ARGS, MX_HOST_NOT_FOUND, MX_REQUEST_PENDING,
		MX_TIMEOUT, MX_NO_MATCH, MX_BAD_ENDPOINT_ID,
		MX_CONNECTION_FAILED, MX_BAD_CONNECTION_KEY,
		MX_BAD_INFO_LENGTH, MX_NIC_NOT_FOUND, MX_BAD_KERNEL_VERSION,
		MX_BAD_LIB_VERSION, MX_NIC_DEAD, MX_CANCEL_NOT_SUPPORTED,
		MX_CLOSE_IN_HANDLER, MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK,
		MX_NOT_SUPPORTED_WITH_CONTEXT_ID
	};
	static const mx_status_code_t sc[] = {
		MX_STATUS_SUCCESS, MX_STATUS_PENDING, MX_STATUS_BUFFERED,
		MX_STATUS_REJECTED, MX_STATUS_TIMEOUT, MX_STATUS_TRUNCATED,
		MX_STATUS_CANCELLED, MX_STATUS_ENDPOINT_UNKNOWN,
		MX_STATUS_ENDPOINT_CLOSED, MX_STATUS_ENDPOINT_UNREACHABLE,
		MX_STATUS_BAD_SESSION, MX_STATUS_BAD_KEY,
		MX_STATUS_BAD_ENDPOINT, MX_STATUS_BAD_RDMAWIN,
		MX_STATUS_ABORTED, MX_STATUS_EVENTQ_FULL,
		MX_STATUS_NO_RESOURCES
	};
	static const mx_get_info_key_t key[] = {
		MX_NIC_COUNT, MX_NIC_IDS, MX_MAX_NATIVE_ENDPOINTS,
		MX_NATIVE_REQUESTS, MX_COUNTERS_COUNT, MX_COUNTERS_LABELS,
		MX_COUNTERS_VALUES, MX_PRODUCT_CODE, MX_PART_NUMBER,
		MX_SERIAL_NUMBER, MX_PORT_COUNT, MX_PIO_SEND_MAX,
		MX_COPY_SEND_MAX, MX_NUMA_NODE, MX_NET_TYPE, MX_LINE_SPEED
	};
	static const mx_param_key_t pk[] = {
		MX_PARAM_ERROR_HANDLER, MX_PARAM_UNEXP_QUEUE_MAX,
		MX_PARAM_CONTEXT_ID
	};
	int bad = 0;
	unsigned i;

	for (i = 0; i < sizeof(rc) / sizeof(rc[0]); i++)
		bad |= (unsigned)rc[i] != i;
	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		bad |= (unsigned)sc[i] != i;
	for (i = 0; i < sizeof(key) / sizeof(key[0]); i++)
		bad |= (unsigned)key[i] != i + 1;
	for (i = 0; i < sizeof(pk) / sizeof(pk[0]); i++)
		bad |= (unsigned)pk[i] != i;
	return bad;
}

/* The types, by their MX 1.2 names and tags. */
static int
types(void)
{
	enum mx_return_code r = MX_SUCCESS;
	enum mx_status_code c = MX_STATUS_SUCCESS;
	enum mx_param_key k = MX_PARAM_UNEXP_QUEUE_MAX;
	enum mx_get_info_key g = MX_LINE_SPEED;
	enum mx_net_type n = MX_NET_ETHER;
	mx_line_speed_t s10 = MX_SPEED_10G;
	enum mx_line_speed s2 = MX_SPEED_2G;
	struct mx_status st;
	mx_status_t *stp = &st;
	mx_param_t p;
	mx_segment_t seg;
	mx_endpoint_addr_t a;
	uint64_t big = 0x0123456789abcdefULL;
	int bad = 0;

	st.code = c;
	st.match_info = 0;
	st.msg_length = st.xfer_length = 0;
	st.context = 0;
	p.key = k;
	p.val.unexp_queue_max = 8;
	p.val.context_id.bits = MX_CONTEXT_ID_BITS_MAX;
	p.val.context_id.shift = 0;
	seg.segment_ptr = (mx_segment_ptr_t)&a;
	seg.segment_length = sizeof(a);
	bad |= p.key != MX_PARAM_UNEXP_QUEUE_MAX || p.val.context_id.shift;
	bad |= sizeof(mx_endpoint_addr_t) != MX_SIZEOF_ADDR;
	bad |= sizeof(a.stuff) != MX_SIZEOF_ADDR;
	bad |= seg.segment_length != MX_SIZEOF_ADDR;
	bad |= r != MX_SUCCESS || stp->code != MX_STATUS_SUCCESS;
	bad |= g != MX_LINE_SPEED || n != 1 || MX_NET_MYRI != 0;
	bad |= s2 != 0 || s10 != 1;
	bad |= MX_U32(big) != 0x01234567u || MX_L32(big) != 0x89abcdefu;
	bad |= MX_MATCH_MASK_NONE != ~(uint64_t)0;
	bad |= MX_ANY_NIC != 0xffffffffu || MX_ANY_ENDPOINT != 0xffffffffu;
	bad |= MX_INFINITE != 0 || MX_MAX_HOSTNAME_LEN != 80;
	bad |= MX_MAX_STR_LEN != 128 || MX_CONTEXT_ID_BITS_MAX != 16;
	bad |= MX_ERRORS_ARE_FATAL == 0 || MX_ERRORS_RETURN == 0;
	bad |= print_nic[0] != 'n' || scan_nic[0] != '%';
	return bad;
}

int
main(int argc, char **argv)
{
	(void)argv;
	if (functions.init == 0 || functions.iget == 0)
		return 1;
	return calls(argc > 1000) | constants() | types();
}
