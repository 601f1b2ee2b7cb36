/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program that is already a DPDK application: it initialises the EAL
 * itself (one net_ring port), then uses MX on that port.  MX_DPDK_ARGS is
 * set to nonsense to show it is ignored.  Also: mx_init() again after
 * mx_finalize() in the same process, and same-board loopback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include <myriexpress.h>

static void
exchange_on_one_board(void)
{
	mx_endpoint_t a, b;
	mx_endpoint_addr_t ab;
	uint64_t nic;
	uint8_t out[9000], in[9000];
	mx_segment_t so = { out, sizeof(out) }, si = { in, sizeof(in) };
	mx_request_t rs, rr;
	mx_status_t st;
	uint32_t done, n = 0;

	assert_int_equal(mx_get_info(NULL, MX_NIC_COUNT, NULL, 0, &n,
				sizeof(n)), MX_SUCCESS);
	assert_int_equal(n, 1);
	assert_int_equal(mx_open_endpoint(0, 3, 77, NULL, 0, &a), MX_SUCCESS);
	assert_int_equal(mx_open_endpoint(0, 4, 88, NULL, 0, &b), MX_SUCCESS);
	mx_board_number_to_nic_id(0, &nic);
	assert_int_equal(mx_connect(a, nic, 4, 88, 2000, &ab), MX_SUCCESS);
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7);
	assert_int_equal(mx_irecv(b, &si, 1, 5, MX_MATCH_MASK_NONE, NULL, &rr),
			MX_SUCCESS);
	assert_int_equal(mx_isend(a, &so, 1, ab, 5, NULL, &rs), MX_SUCCESS);
	assert_int_equal(mx_wait(a, &rs, 2000, &st, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
	assert_int_equal(mx_wait(b, &rr, 2000, &st, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
	assert_int_equal(st.xfer_length, sizeof(out));
	assert_memory_equal(in, out, sizeof(out));
	mx_close_endpoint(a);
	mx_close_endpoint(b);
}

static void
reuse_application_eal(void **state)
{
	char *argv[] = { (char *)"app", (char *)"--no-huge", (char *)"-m",
		(char *)"128", (char *)"--no-shconf", (char *)"--no-pci",
		(char *)"--log-level=error", (char *)"--vdev=net_ring0",
		(char *)"-l", (char *)"0", NULL };

	(void)state;
	assert_true(rte_eal_init(10, argv) >= 0);
	assert_int_equal(rte_eth_dev_count_avail(), 1);
	setenv("MX_DPDK_ARGS", "--no-such-eal-option", 1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	assert_int_equal(mx_init(), MX_SUCCESS);
	exchange_on_one_board();
	assert_int_equal(mx_finalize(), MX_SUCCESS);
	/* Again, in the same process. */
	assert_int_equal(mx_init(), MX_SUCCESS);
	exchange_on_one_board();
	assert_int_equal(mx_finalize(), MX_SUCCESS);
	assert_int_equal(mx_finalize(), MX_NOT_INITIALIZED);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reuse_application_eal),
	};

	return cmocka_run_group_tests_name("eal-reuse", tests, NULL, NULL);
}
