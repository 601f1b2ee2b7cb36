/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole engine over a fake wire (no DPDK): two boards in this process,
 * joined by a fake link pair, one endpoint on each.  Covers matching order,
 * masks, the unexpected queue, truncation, scatter/gather, request states,
 * cancel, connect errors, loopback, error handlers and hostile frames.
 * Every test ends with no frame buffer left allocated.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "mxtest.h"

#define MATCH 0x1234000000000000ull

/* One progress pass, as any MX call makes. */
#define mx_progress_for_tests(ep) mxd_progress(ep)

/* The fixture's objects under the short names the tests use. */
#define pa fx.pa
#define pb fx.pb
#define e0 fx.e0
#define e1 fx.e1
#define to0 fx.to0
#define to1 fx.to1
#define nic0 fx.nic0
#define nic1 fx.nic1
#define setup fixture_setup
#define teardown fixture_teardown

static void
status_fields(void **state)
{
	uint8_t out[100], in[100];
	mx_request_t r;
	mx_status_t st;
	uint64_t nic;
	uint32_t id;

	(void)state;
	mxt_pattern(out, sizeof(out), 1);
	r = mxt_recv(e1, in, sizeof(in), MATCH | 7, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, sizeof(out), MATCH | 7);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_true(st.match_info == (MATCH | 7));
	assert_int_equal(st.msg_length, 100);
	assert_int_equal(st.xfer_length, 100);
	assert_ptr_equal(st.context, in);
	assert_memory_equal(in, out, sizeof(out));
	mx_decompose_endpoint_addr(st.source, &nic, &id);
	assert_true(nic == nic0);
	assert_int_equal(id, 1);
	/* The source is usable for a reply without a connect. */
	r = mxt_recv(e0, in, sizeof(in), 9, MX_MATCH_MASK_NONE);
	mxt_send_ok(e1, st.source, out, 10, 9);
	st = mxt_wait(e0, &r);
	assert_int_equal(st.xfer_length, 10);
	/* Either the reply carried e1's ack, or an explicit one went. */
	assert_true(e1->board->counters[MXD_C_ACKS_PIGGY] +
			e1->board->counters[MXD_C_ACKS_SENT] >= 1);
}

static void
every_size_to_eager_max(void **state)
{
	uint32_t max = 0;
	uint8_t *out, *in;

	(void)state;
	mx_get_info(e0, MX_COPY_SEND_MAX, NULL, 0, &max, sizeof(max));
	assert_int_equal(max, 32768);
	out = malloc(max);
	in = malloc(max);
	for (uint32_t len = 0; len <= max; len += len < 3000 ? 1 : 97) {
		mx_request_t r = mxt_recv(e1, in, max, len, MX_MATCH_MASK_NONE);
		mx_status_t st;

		mxt_pattern(out, len, len);
		mxt_send_ok(e0, to1, out, len, len);
		st = mxt_wait(e1, &r);
		assert_int_equal(st.xfer_length, len);
		if (memcmp(in, out, len) != 0)
			fail_msg("data differs at length %u", len);
	}
	free(out);
	free(in);
}

static void
posted_order_and_masks(void **state)
{
	uint8_t b[4][8], d[8] = { 0 };
	mx_request_t r[4];
	mx_status_t st;

	(void)state;
	/* Two identical receives: the first posted matches first. */
	r[0] = mxt_recv(e1, b[0], 8, MATCH, MX_MATCH_MASK_NONE);
	r[1] = mxt_recv(e1, b[1], 8, MATCH, MX_MATCH_MASK_NONE);
	/* Masked: matches any message whose top 16 bits are 0xabcd. */
	r[2] = mxt_recv(e1, b[2], 8, 0xabcd000000000000ull,
			0xffff000000000000ull);
	/* Wildcard: matches anything. */
	r[3] = mxt_recv(e1, b[3], 8, 0, 0);
	d[0] = 1;
	mxt_send_ok(e0, to1, d, 8, 0xabcd0000deadbeefull);
	d[0] = 2;
	mxt_send_ok(e0, to1, d, 8, MATCH);
	d[0] = 3;
	mxt_send_ok(e0, to1, d, 8, MATCH);
	d[0] = 4;
	mxt_send_ok(e0, to1, d, 8, 42);
	st = mxt_wait(e1, &r[2]);
	assert_true(st.match_info == 0xabcd0000deadbeefull);
	assert_int_equal(b[2][0], 1);
	st = mxt_wait(e1, &r[0]);
	assert_int_equal(b[0][0], 2);
	st = mxt_wait(e1, &r[1]);
	assert_int_equal(b[1][0], 3);
	st = mxt_wait(e1, &r[3]);
	assert_int_equal(b[3][0], 4);
	assert_true(st.match_info == 42);
}

static void
bad_mask_refused(void **state)
{
	uint8_t b[8];
	mx_segment_t s = { b, 8 };
	mx_request_t r;

	(void)state;
	assert_int_equal(mx_irecv(e1, &s, 1, 0xff, 0x0f, NULL, &r),
			MX_BAD_MATCH_MASK);
}

static void
unexpected_in_order(void **state)
{
	enum { N = 40, LEN = 5000 };	/* medium: four frames each */
	uint8_t out[LEN], in[LEN];
	mx_status_t st;
	uint32_t found = 0;

	(void)state;
	for (uint32_t i = 0; i < N; i++) {
		mxt_pattern(out, LEN, i);
		mxt_send_ok(e0, to1, out, LEN - i, MATCH | (i & 1));
	}
	/* Let them all arrive before any receive is posted. */
	for (int i = 0; i < 100; i++)
		mx_progress_for_tests(e1);
	assert_int_equal(mx_iprobe(e1, MATCH | 1, MX_MATCH_MASK_NONE, &st,
				&found), MX_SUCCESS);
	assert_int_equal(found, 1);
	assert_int_equal(st.msg_length, LEN - 1);
	assert_true(e1->board->counters[MXD_C_UNEXP_MSGS] >= N);
	/* Odd ones first, then even ones: order within each kept. */
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t i = 1 - pass; i < N; i += 2) {
			mx_request_t r = mxt_recv(e1, in, LEN, MATCH | (i & 1),
					MX_MATCH_MASK_NONE);

			st = mxt_wait(e1, &r);
			mxt_pattern(out, LEN, i);
			assert_int_equal(st.xfer_length, LEN - i);
			assert_memory_equal(in, out, LEN - i);
		}
	assert_int_equal(mx_iprobe(e1, 0, 0, &st, &found), MX_SUCCESS);
	assert_int_equal(found, 0);
	assert_int_equal(e1->unexp_bytes, 0);
}

static void
truncation(void **state)
{
	uint8_t out[3000], in[100];
	mx_request_t r;
	mx_status_t st;

	(void)state;
	mxt_pattern(out, sizeof(out), 5);
	r = mxt_recv(e1, in, sizeof(in), 1, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, sizeof(out), 1);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_TRUNCATED);
	assert_int_equal(st.msg_length, 3000);
	assert_int_equal(st.xfer_length, 100);
	assert_memory_equal(in, out, 100);
	/* Same through the unexpected queue. */
	mxt_send_ok(e0, to1, out, sizeof(out), 2);
	mx_progress_for_tests(e1);
	r = mxt_recv(e1, in, 50, 2, MX_MATCH_MASK_NONE);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_TRUNCATED);
	assert_int_equal(st.xfer_length, 50);
}

static void
scatter_gather(void **state)
{
	uint8_t out[4000], in[4000], a[1000], b[1], c[3000];
	mx_segment_t ss[4] = { { out, 10 }, { NULL, 0 }, { out + 10, 2990 },
		{ out + 3000, 1000 } };
	mx_segment_t rs[4] = { { a, 1000 }, { b, 0 }, { b, 1 }, { c, 3000 } };
	mx_request_t sr, rr;
	mx_status_t st;

	(void)state;
	mxt_pattern(out, sizeof(out), 9);
	assert_int_equal(mx_irecv(e1, rs, 4, 3, MX_MATCH_MASK_NONE, NULL, &rr),
			MX_SUCCESS);
	assert_int_equal(mx_isend(e0, ss, 4, to1, 3, NULL, &sr), MX_SUCCESS);
	mxt_wait(e0, &sr);
	st = mxt_wait(e1, &rr);
	assert_int_equal(st.xfer_length, 4000);
	memcpy(in, a, 1000);
	in[1000] = b[0];
	memcpy(in + 1001, c, 2999);
	assert_memory_equal(in, out, 4000);
	/* An empty message with a NULL list. */
	rr = mxt_recv(e1, in, 10, 4, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_isend(e0, NULL, 0, to1, 4, NULL, &sr), MX_SUCCESS);
	mxt_wait(e0, &sr);
	st = mxt_wait(e1, &rr);
	assert_int_equal(st.msg_length, 0);
}

static void
context_id_masks(void **state)
{
	mx_param_t par = { .key = MX_PARAM_CONTEXT_ID };
	mx_endpoint_t e2;
	mx_segment_t seg = { NULL, 0 };
	mx_request_t r;
	mx_status_t st;
	uint32_t res, segs = 0;

	(void)state;
	par.val.context_id.bits = 8;
	par.val.context_id.shift = 56;
	assert_int_equal(mx_open_endpoint(1, 6, 1, &par, 1, &e2), MX_SUCCESS);
	assert_int_equal(mx_irecv(e2, &seg, 0, 0, 0x00ffffffffffffffull, NULL,
				&r), MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK);
	assert_int_equal(mx_iprobe(e2, 0, 0, &st, &res),
			MX_BAD_MATCHING_FOR_CONTEXT_ID_MASK);
	assert_int_equal(mx_irecv(e2, &seg, 0, 0, 0xff00000000000000ull, NULL,
				&r), MX_SUCCESS);
	assert_int_equal(mx_cancel(e2, &r, &res), MX_SUCCESS);
	mx_close_endpoint(e2);
	par.val.context_id.bits = 17;
	assert_int_equal(mx_open_endpoint(1, 6, 1, &par, 1, &e2),
			MX_BAD_PARAM_VAL);
	par.key = (mx_param_key_t)99;
	assert_int_equal(mx_open_endpoint(1, 6, 1, &par, 1, &e2),
			MX_BAD_PARAM_NAME);
	assert_int_equal(mx_open_endpoint(1, 6, 1, NULL, 1, &e2),
			MX_BAD_PARAM_LIST);
	assert_int_equal(mx_get_info(NULL, MX_MAX_SEGMENTS, NULL, 0, &segs,
				sizeof(segs)), MX_SUCCESS);
	assert_int_equal(segs, MXD_MAX_SEGMENTS);
}

static void
bad_segments(void **state)
{
	mx_segment_t s = { NULL, 10 };
	mx_request_t r;

	(void)state;
	assert_int_equal(mx_isend(e0, NULL, 2, to1, 1, NULL, &r),
			MX_BAD_SEG_LIST);
	assert_int_equal(mx_isend(e0, &s, 1, to1, 1, NULL, &r), MX_BAD_SEG_MEM);
	assert_int_equal(mx_irecv(e1, &s, 100000, 1, MX_MATCH_MASK_NONE, NULL,
				&r), MX_BAD_SEG_CNT);
}

static void
cancel_and_states(void **state)
{
	uint8_t in[8], out[8] = { 0 };
	mx_request_t r, keep;
	uint32_t res = 7;
	void *ctx = NULL;

	(void)state;
	r = mxt_recv(e1, in, 8, 77, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_context(&r, &ctx), MX_SUCCESS);
	assert_ptr_equal(ctx, in);
	assert_int_equal(mx_test(e1, &r, NULL, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	assert_int_equal(mx_cancel(e1, &r, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	/* A cancelled receive no longer matches. */
	keep = mxt_recv(e1, in, 8, 77, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, 8, 77);
	mx_progress_for_tests(e1);
	assert_int_equal(mx_cancel(e1, &keep, &res), MX_SUCCESS);
	assert_int_equal(res, 0);	/* too late: matched */
	mxt_wait(e1, &keep);
	assert_null(keep);
	/* A released request is refused. */
	assert_int_equal(mx_test(e1, &keep, NULL, &res), MX_BAD_REQUEST);
}

static void
peek_and_wait_timeout(void **state)
{
	uint8_t in[8], out[8] = { 0 };
	mx_request_t r, got = NULL;
	uint32_t res = 9;
	uint64_t t0;

	(void)state;
	r = mxt_recv(e1, in, 8, 5, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_ipeek(e1, &got, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	t0 = mxd_now_ns();
	assert_int_equal(mx_wait(e1, &r, 30, NULL, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	assert_true(mxd_now_ns() - t0 >= 30000000ull);
	assert_true(mxd_now_ns() - t0 < 2000000000ull);
	mxt_send_ok(e0, to1, out, 8, 5);
	assert_int_equal(mx_peek(e1, 1000, &got, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_ptr_equal(got, r);
	mxt_wait(e1, &r);
}

static void
connect_errors(void **state)
{
	mx_endpoint_addr_t a;

	(void)state;
	assert_int_equal(mx_connect(e0, nic1, 5, 0xbeef, 1000, &a),
			MX_CONNECTION_FAILED);
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbad, 1000, &a),
			MX_BAD_CONNECTION_KEY);
	assert_int_equal(mx_connect(e0, 0x0203040506ull, 2, 0xbeef, 1000, &a),
			MX_NIC_NOT_FOUND);
	assert_int_equal(mx_connect(e0, nic1, MX_MAX_ENDPOINTS, 0xbeef, 1000, &a),
			MX_BAD_ENDPOINT_ID);
	/* The good connection still works. */
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 1000, &a), MX_SUCCESS);
}

static void
loopback_same_board(void **state)
{
	mx_endpoint_t e2;
	mx_endpoint_addr_t self, to2;
	uint8_t out[6000], in[6000];
	mx_request_t r;
	uint64_t tx_before = pa.tx_frames;

	(void)state;
	mxt_pattern(out, sizeof(out), 3);
	/* To itself, through its own address. */
	mx_get_endpoint_addr(e0, &self);
	r = mxt_recv(e0, in, sizeof(in), 11, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, self, out, sizeof(out), 11);
	assert_int_equal(mxt_wait(e0, &r).xfer_length, sizeof(out));
	assert_memory_equal(in, out, sizeof(out));
	/* To another endpoint of the same board. */
	assert_int_equal(mx_open_endpoint(0, MX_ANY_ENDPOINT, 3, NULL, 0, &e2),
			MX_SUCCESS);
	assert_int_equal(mx_connect(e0, nic0, e2->id, 3, 1000, &to2), MX_SUCCESS);
	r = mxt_recv(e2, in, sizeof(in), 12, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to2, out, 100, 12);
	assert_int_equal(mxt_wait(e2, &r).xfer_length, 100);
	assert_int_equal(pa.tx_frames, tx_before);	/* nothing on the wire */
	mx_close_endpoint(e2);
}

static int handler_calls;
static mx_return_t handler_code;

static mx_return_t
count_handler(char *str, mx_return_t ret)
{
	(void)str;
	handler_calls++;
	handler_code = ret;
	return ret;
}

static void
error_handlers(void **state)
{
	mx_error_handler_t old;
	mx_endpoint_t ep;

	(void)state;
	old = mx_set_error_handler(count_handler);
	assert_ptr_equal(old, MX_ERRORS_RETURN);
	assert_int_equal(mx_open_endpoint(7, 0, 0, NULL, 0, &ep),
			MX_BOARD_UNKNOWN);
	assert_int_equal(handler_calls, 1);
	assert_int_equal(handler_code, MX_BOARD_UNKNOWN);
	assert_int_equal(mx_open_endpoint(0, 1, 0, NULL, 0, &ep), MX_BUSY);
	assert_int_equal(mx_open_endpoint(0, 99, 0, NULL, 0, &ep),
			MX_BAD_ENDPOINT_ID);
	assert_int_equal(mx_init(), MX_ALREADY_INITIALIZED);
	assert_int_equal(handler_calls, 4);
	assert_ptr_equal(mx_set_error_handler(MX_ERRORS_RETURN),
			count_handler);
	assert_string_equal(mx_strerror(MX_BUSY), "Busy");
	assert_string_equal(mx_strerror((mx_return_t)9999), "Unknown error");
	assert_string_equal(mx_strstatus(MX_STATUS_TRUNCATED), "Truncated");
}

static void
names_and_boards(void **state)
{
	char name[MX_MAX_HOSTNAME_LEN];
	uint64_t nic;
	uint32_t board;

	(void)state;
	assert_int_equal(mx_hostname_to_nic_id((char *)"unit:1", &nic),
			MX_SUCCESS);
	assert_true(nic == nic1);
	assert_int_equal(mx_nic_id_to_hostname(nic0, name), MX_SUCCESS);
	assert_string_equal(name, "unit:0");
	assert_int_equal(mx_hostname_to_nic_id((char *)"nosuch:0", &nic),
			MX_HOST_NOT_FOUND);
	assert_int_equal(mx_nic_id_to_board_number(nic1, &board), MX_SUCCESS);
	assert_int_equal(board, 1);
	assert_int_equal(mx_nic_id_to_board_number(12345, &board),
			MX_BOARD_UNKNOWN);
	assert_int_equal(mx_board_number_to_nic_id(2, &nic), MX_BOARD_UNKNOWN);
}

static void
window_full_then_drains(void **state)
{
	enum { N = 3 * MXD_WIN };
	uint32_t out = 0, in = 0;
	mx_request_t r;
	mx_status_t st;

	(void)state;
	/* More sends than the window holds, none received yet. */
	for (out = 0; out < N; out++)
		mxt_send_ok(e0, to1, &out, 4, 100 + out);
	for (uint32_t i = 0; i < N; i++) {
		r = mxt_recv(e1, &in, 4, 100 + i, MX_MATCH_MASK_NONE);
		st = mxt_wait(e1, &r);
		assert_int_equal(st.xfer_length, 4);
		assert_int_equal(in, i);
	}
}

static void
hostile_frames_counted(void **state)
{
	uint8_t junk[200];
	uint64_t before = e1->board->counters[MXD_C_DROP_BASE +
		MXD_DROP_ETHERTYPE];
	struct mxd_hdr_args a = { .type = MXD_T_EAGER, .dst_ep = 2,
		.dst_peer = 0, .filter = 0xbeef };
	uint8_t out[8] = { 0 }, in[8];
	mx_request_t r;

	(void)state;
	memset(junk, 0xa5, sizeof(junk));
	fake_inject(&pb, junk, sizeof(junk));
	/* Ours, but with a session that is not e1's. */
	mxd_wire_put_hdr(junk, pb.link.mac, pa.link.mac, &a, 24);
	mxd_wire_put_eager(junk + MXD_HDRS_LEN, 1, 0, 0, 1000, 0);
	mxd_wire_seal(junk);
	fake_inject(&pb, junk, 100);
	r = mxt_recv(e1, in, 8, 6, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, 8, 6);
	mxt_wait(e1, &r);
	assert_int_equal(e1->board->counters[MXD_C_DROP_BASE +
			MXD_DROP_ETHERTYPE], before + 1);
	assert_true(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_ENDPOINT]
			>= 1);
}

/* ---- send completion: standard mode, synchronous, refused --------------- */

static int
hold_all(const uint8_t *f, uint32_t len)
{
	(void)f;
	(void)len;
	return FAKE_HOLD;
}

/*
 * mx_isend is MPI standard mode (MX 1.0, V.1.1): an eager send completes
 * as soon as its data is copied into frames, whatever became of them.
 * Here e0's frames are all held on the wire and e1 makes no call: a
 * one-frame and a three-frame send complete at once, their buffers are
 * reused, and the messages still arrive intact once the wire lets them
 * through.  An mx_issend under the same conditions stays pending.
 */
static void
isend_complete_once_copied(void **state)
{
	uint8_t small[64], medium[3000], in[3000];
	mx_segment_t seg[2] = { { small, sizeof(small) },
		{ medium, sizeof(medium) } };
	mx_request_t s[2], ss, r;
	mx_status_t st;
	uint32_t res = 9;
	uint64_t rx0 = e1->board->counters[MXD_C_RX_FRAMES];

	(void)state;
	pa.tap = hold_all;
	mxt_pattern(small, sizeof(small), 1);
	mxt_pattern(medium, sizeof(medium), 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(mx_isend(e0, &seg[i], 1, to1, 3 + i, &seg[i],
					&s[i]), MX_SUCCESS);
		assert_int_equal(s[i]->state, MXD_RS_COMPLETE);
	}
	assert_int_equal(mx_ibuffered(e0, &s[1], &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(mx_test(e0, &s[i], &st, &res), MX_SUCCESS);
		assert_int_equal(res, 1);
		assert_int_equal(st.code, MX_STATUS_SUCCESS);
		assert_ptr_equal(st.context, &seg[i]);
		assert_int_equal(st.xfer_length, seg[i].segment_length);
	}
	assert_true(pa.nheld >= 4);	/* nothing reached e1 */
	assert_int_equal(e1->board->counters[MXD_C_RX_FRAMES], rx0);
	memset(small, 0xee, sizeof(small));	/* reuse: the messages keep */
	memset(medium, 0xee, sizeof(medium));
	/* A synchronous send does not complete while e1 has not matched. */
	assert_int_equal(mx_issend(e0, &seg[0], 1, to1, 5, NULL, &ss),
			MX_SUCCESS);
	assert_int_equal(mx_wait(e0, &ss, 20, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	assert_int_equal(mx_ibuffered(e0, &ss, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	pa.tap = NULL;
	fake_release(&pa);
	r = mxt_recv(e1, in, sizeof(in), 3, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r).xfer_length, sizeof(small));
	mxt_pattern_expect(in, sizeof(small), 1);
	r = mxt_recv(e1, in, sizeof(in), 4, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r).xfer_length, sizeof(medium));
	mxt_pattern_expect(in, sizeof(medium), 2);
	r = mxt_recv(e1, in, sizeof(in), 5, MX_MATCH_MASK_NONE);
	mxt_wait(e1, &r);
	assert_int_equal(mxt_wait(e0, &ss).code, MX_STATUS_SUCCESS);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 0);
}

/*
 * A send that waits for the window completes when its data is copied,
 * not before: with the acks held, the first MXD_WIN sends complete at
 * once, the next ones only once acks open the window.
 */
static void
queued_isend_completes_when_copied(void **state)
{
	enum { N = MXD_WIN + 4 };
	uint32_t v[N], in = 0;
	mx_request_t s[N], r;
	uint32_t res = 9;

	(void)state;
	pb.tap = hold_all;		/* e1's acks stay on the wire */
	for (uint32_t i = 0; i < N; i++) {
		mx_segment_t seg = { &v[i], 4 };

		v[i] = i;
		assert_int_equal(mx_isend(e0, &seg, 1, to1, 0x900, NULL, &s[i]),
				MX_SUCCESS);
	}
	for (int k = 0; k < 50; k++)
		mx_progress(e0);
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(mx_ibuffered(e0, &s[i], &res), MX_SUCCESS);
		assert_int_equal(res, i < MXD_WIN);
		assert_int_equal(s[i]->state, i < MXD_WIN ? MXD_RS_COMPLETE :
				MXD_RS_QUEUED);
	}
	pb.tap = NULL;
	fake_release(&pb);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
	for (uint32_t i = 0; i < N; i++) {
		r = mxt_recv(e1, &in, 4, 0x900, MX_MATCH_MASK_NONE);
		mxt_wait(e1, &r);
		assert_int_equal(in, i);
	}
}

static void
issend_waits_for_match(void **state)
{
	uint8_t out[100] = { 7 }, in[100];
	mx_segment_t seg = { out, sizeof(out) };
	mx_request_t s, r;
	mx_status_t st;
	uint32_t res = 0;

	(void)state;
	assert_int_equal(mx_issend(e0, &seg, 1, to1, 8, out, &s), MX_SUCCESS);
	/* Delivered and acknowledged, but nobody matched it yet. */
	assert_int_equal(mx_wait(e0, &s, 50, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	assert_true(s->acked);
	assert_int_equal(mx_ibuffered(e0, &s, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	r = mxt_recv(e1, in, sizeof(in), 8, MX_MATCH_MASK_NONE);
	st = mxt_wait(e0, &s);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_ptr_equal(st.context, out);
	assert_int_equal(mxt_wait(e1, &r).xfer_length, 100);
	/* And to a receive that is already posted. */
	r = mxt_recv(e1, in, sizeof(in), 9, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_issend(e0, &seg, 1, to1, 9, NULL, &s), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	mxt_wait(e1, &r);
}

/* Progress until e learns that the partner "to" refused us or is lost. */
static void
progress_until_down(mx_endpoint_t e, mx_endpoint_addr_t to)
{
	struct mxd_partner *p = mxd_addr_partner(e, &to);

	for (int i = 0; i < 10000 && mxd_partner_up(p); i++)
		mx_progress(e);
	assert_false(mxd_partner_up(p));
}

/*
 * Sends to e1 after it closed, before e0 heard of it, complete once
 * copied, as standard-mode sends do (nothing waits for the ack).  When
 * e0 hears (e1's BYE, or a NACK had the BYE been lost) it counts them
 * lost, and the next send fails with MX_STATUS_ENDPOINT_CLOSED; so do
 * the sends after it, until a new connect.
 */
static void
send_to_closed_endpoint(void **state)
{
	uint8_t out[5000] = { 0 }, in[5000];
	mx_segment_t seg = { out, sizeof(out) };
	mx_request_t s[3], r;
	mx_status_t st;

	(void)state;
	assert_int_equal(mx_close_endpoint(e1), MX_SUCCESS);
	for (int i = 0; i < 3; i++)
		assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s[i]),
				MX_SUCCESS);
	for (int i = 0; i < 3; i++) {
		st = mxt_wait(e0, &s[i]);
		assert_int_equal(st.code, MX_STATUS_SUCCESS);
	}
	progress_until_down(e0, to1);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 3);
	/* Known closed: new sends fail at once, the first and the next. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s[0]),
				MX_SUCCESS);
		assert_int_equal(s[0]->state, MXD_RS_COMPLETE);
		assert_int_equal(mxt_wait(e0, &s[0]).code,
				MX_STATUS_ENDPOINT_CLOSED);
	}
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 3);
	/* Told by e1's BYE when it closed (by a NACK had the BYE been
	 * lost): e0 knows it closed, not unreachable. */
	assert_int_equal(mxd_addr_partner(e0, &to1)->fail,
			MX_STATUS_ENDPOINT_CLOSED);
	/* Reopened (a new session) and reconnected: works again. */
	assert_int_equal(mx_open_endpoint(1, 2, 0xbeef, NULL, 0, &e1),
			MX_SUCCESS);
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 1000, &to1), MX_SUCCESS);
	r = mxt_recv(e1, in, sizeof(in), 2, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, sizeof(out), 2);
	assert_int_equal(mxt_wait(e1, &r).xfer_length, sizeof(out));
}

static void
send_with_wrong_filter(void **state)
{
	uint8_t out[10] = { 0 };
	mx_segment_t seg = { out, sizeof(out) };
	mx_request_t s;

	(void)state;
	/* As if the peer had changed its filter under the same session.  The
	 * send completed (copied); the refusal comes to the next one. */
	mxd_addr_partner(e0, &to1)->remote_filter = 0xbad;
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	progress_until_down(e0, to1);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 1);
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_BAD_KEY);
	assert_true(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_FILTER] >= 1);
}

/* ---- MX 1.2 calls ---------------------------------------------------------- */

static void
test_any_wait_any_forget(void **state)
{
	uint32_t v[3] = { 10, 11, 12 }, in[3];
	mx_request_t r[3], f;
	mx_status_t st;
	uint32_t res = 9;

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		r[i] = mxt_recv(e1, &in[i], 4, 0x700 | i, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_test_any(e1, 0x700, 0xf00, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	for (uint32_t i = 0; i < 3; i++)
		mxt_send_ok(e0, to1, &v[i], 4, 0x700 | (2 - i));
	/* Only the request whose match info is 0x701. */
	assert_int_equal(mx_wait_any(e1, 1000, 0x701, MX_MATCH_MASK_NONE, &st,
				&res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_true(st.match_info == 0x701);
	assert_int_equal(in[1], 11);
	assert_int_equal(mx_wait_any(e1, 1000, 0x700, 0xf00, &st, &res),
			MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(mx_wait_any(e1, 1000, 0x700, 0xf00, &st, &res),
			MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(mx_test_any(e1, 0, 0, &st, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	/* A forgotten send completes and is released by the library. */
	f = NULL;
	{
		mx_segment_t seg = { v, 4 };
		mx_request_t rr = mxt_recv(e1, in, 4, 0x800, MX_MATCH_MASK_NONE);

		assert_int_equal(mx_isend(e0, &seg, 1, to1, 0x800, NULL, &f),
				MX_SUCCESS);
		assert_int_equal(mx_forget(e0, &f), MX_SUCCESS);
		assert_null(f);
		mxt_wait(e1, &rr);
	}
	for (int i = 0; i < 200; i++)
		assert_int_equal(mx_progress(e0), MX_SUCCESS);
	assert_true(mxd_list_empty(&e0->done));
	assert_int_equal(mx_forget(e0, &f), MX_BAD_REQUEST);
	(void)r;
}

static void
addr_context_and_decompose2(void **state)
{
	uint64_t nic;
	uint32_t id, session;
	void *ctx = NULL;
	mx_endpoint_addr_t self;

	(void)state;
	assert_int_equal(mx_decompose_endpoint_addr2(to1, &nic, &id, &session),
			MX_SUCCESS);
	assert_true(nic == nic1);
	assert_int_equal(id, 2);
	assert_int_equal(session, e1->session);
	assert_int_equal(mx_set_endpoint_addr_context(to1, &nic), MX_SUCCESS);
	assert_int_equal(mx_get_endpoint_addr_context(to1, &ctx), MX_SUCCESS);
	assert_ptr_equal(ctx, &nic);
	/* The endpoint's own address carries a context too,
	 * and a message to ourselves comes from the address that has it. */
	mx_get_endpoint_addr(e0, &self);
	assert_int_equal(mx_get_endpoint_addr_context(self, &ctx), MX_SUCCESS);
	assert_null(ctx);
	assert_int_equal(mx_set_endpoint_addr_context(self, &id), MX_SUCCESS);
	assert_int_equal(mx_get_endpoint_addr_context(self, &ctx), MX_SUCCESS);
	assert_ptr_equal(ctx, &id);
	{
		uint8_t b = 7, in = 0;
		mx_request_t r = mxt_recv(e0, &in, 1, 77, MX_MATCH_MASK_NONE);
		mx_status_t st;

		mxt_send_ok(e0, self, &b, 1, 77);
		st = mxt_wait(e0, &r);
		assert_int_equal(in, 7);
		assert_int_equal(mx_get_endpoint_addr_context(st.source, &ctx),
				MX_SUCCESS);
		assert_ptr_equal(ctx, &id);
	}
	/* Not an address of ours, nor a connected one. */
	self.stuff[0] ^= 1;
	assert_int_equal(mx_set_endpoint_addr_context(self, NULL),
			MX_BAD_ENDPOINT);
}

static void
iconnect_statuses(void **state)
{
	mx_request_t r;
	mx_status_t st;
	uint8_t out[10] = { 3 }, in[10];
	mx_request_t rr;

	(void)state;
	assert_int_equal(mx_iconnect(e1, nic0, 1, 0xf00d, 0x42, out, &r),
			MX_SUCCESS);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_true(st.match_info == 0x42);
	assert_ptr_equal(st.context, out);
	rr = mxt_recv(e0, in, 10, 5, MX_MATCH_MASK_NONE);
	mxt_send_ok(e1, st.source, out, 10, 5);	/* the address works */
	mxt_wait(e0, &rr);
	assert_int_equal(mx_iconnect(e1, nic0, 9, 0xf00d, 0, NULL, &r),
			MX_SUCCESS);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_ENDPOINT_CLOSED);
	assert_int_equal(mx_iconnect(e1, nic0, 1, 0x1, 0, NULL, &r),
			MX_SUCCESS);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_BAD_KEY);
	assert_int_equal(mx_set_request_timeout(e1, NULL, 30), MX_SUCCESS);
	assert_int_equal(mx_iconnect(e1, 0x020000777777ull, 1, 0, 0, NULL, &r),
			MX_SUCCESS);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_TIMEOUT);
}

static void
disconnect_then_reconnect(void **state)
{
	uint32_t v = 1, in = 0;
	mx_segment_t seg = { &v, 4 };
	mx_request_t s[MXD_WIN + 8], r;
	unsigned sent = MXD_WIN;

	(void)state;
	/* More than the window: the sends it has no room for are still
	 * queued, and only those are cancelled; the others completed,
	 * copied (the first MX_PACK_AFTER into frames of their own, the
	 * rest into PACK frames that the next pass sends). */
	for (unsigned i = 0; i < MXD_WIN + 8; i++)
		assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s[i]),
				MX_SUCCESS);
	assert_int_equal(mx_disconnect(e0, to1), MX_SUCCESS);
	for (unsigned i = 0; i < MXD_WIN + 8; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, i < sent ?
				MX_STATUS_SUCCESS : MX_STATUS_CANCELLED);
	/* Not a loss: the messages in flight still go (same sessions). */
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 0);
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s[0]),
			MX_BAD_ENDPOINT);
	/* Same sessions on both sides: sequence numbers must go on. */
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 1000, &to1), MX_SUCCESS);
	for (uint32_t i = 0; i < MXD_WIN; i++) {
		r = mxt_recv(e1, &in, 4, 2, MX_MATCH_MASK_NONE);
		v = i;
		mxt_send_ok(e0, to1, &v, 4, 2);
		mxt_wait(e1, &r);
		assert_int_equal(in, i);
	}
}

/*
 * A request timeout ends a send still pending: an mx_issend nobody
 * matched (here not even acknowledged: the wire is cut).  An mx_isend
 * under the same conditions completed when its data was copied, so its
 * timeout has nothing to end.
 */
static void
send_timeout(void **state)
{
	uint8_t out[100] = { 0 };
	mx_segment_t seg = { out, sizeof(out) };
	mx_request_t s;
	uint64_t t0;

	(void)state;
	pa.up = 0;		/* the wire is cut: frames stay queued */
	assert_int_equal(mx_set_request_timeout(e0, NULL, 40), MX_SUCCESS);
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	assert_int_equal(mx_issend(e0, &seg, 1, to1, 1, NULL, &s), MX_SUCCESS);
	assert_int_equal(mx_set_request_timeout(e0, s, 40), MX_SUCCESS);
	t0 = mxd_now_ns();
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_TIMEOUT);
	assert_true(mxd_now_ns() - t0 >= 39000000ull);
	pa.up = 1;		/* late delivery: acked, nothing completes twice */
	for (int i = 0; i < 1000; i++)
		mx_progress(e0);
	assert_true(mxd_list_empty(&e0->done));
	assert_int_equal(mx_set_request_timeout(e0, NULL, 0), MX_SUCCESS);
}

static int handler_seen;
static uint32_t handler_len;
static uint8_t handler_first;
static uint8_t handler_buf[64];
static mx_request_t handler_req;

static mx_unexp_handler_action_t
test_unexp_handler(void *ctx, mx_endpoint_addr_t src, uint64_t match,
		uint32_t len, void *data)
{
	uint64_t nic;
	uint32_t id;

	assert_ptr_equal(ctx, &handler_seen);
	mx_decompose_endpoint_addr(src, &nic, &id);
	assert_true(nic == nic0 && id == 1);
	handler_seen++;
	handler_len = len;
	handler_first = data ? *(uint8_t *)data : 0;
	if (match == 1)
		return MX_RECV_FINISHED;	/* consumed here */
	if (match == 2) {			/* post a receive for it */
		mx_segment_t seg = { handler_buf, sizeof(handler_buf) };

		assert_int_equal(mx_irecv(e1, &seg, 1, 2, MX_MATCH_MASK_NONE,
					NULL, &handler_req), MX_SUCCESS);
	}
	return MX_RECV_CONTINUE;
}

static void
unexpected_handler(void **state)
{
	uint8_t out[40] = { 0x5a }, in[40];
	mx_status_t st;
	mx_request_t r;
	uint32_t found = 1;

	(void)state;
	assert_int_equal(mx_register_unexp_handler(e1, test_unexp_handler,
				&handler_seen), MX_SUCCESS);
	mxt_send_ok(e0, to1, out, 40, 1);		/* finished by the handler */
	mxt_send_ok(e0, to1, out, 20, 2);		/* handler posts a receive */
	mxt_send_ok(e0, to1, out, 30, 3);		/* queued as unexpected */
	for (int i = 0; i < 100; i++)
		mx_progress(e1);
	assert_int_equal(handler_seen, 3);
	assert_int_equal(handler_first, 0x5a);
	assert_int_equal(handler_len, 30);
	assert_int_equal(mx_iprobe(e1, 1, MX_MATCH_MASK_NONE, &st, &found),
			MX_SUCCESS);
	assert_int_equal(found, 0);		/* really dropped */
	st = mxt_wait(e1, &handler_req);
	assert_int_equal(st.xfer_length, 20);
	assert_int_equal(handler_buf[0], 0x5a);
	r = mxt_recv(e1, in, 40, 3, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r).xfer_length, 30);
	/* A posted receive does not involve the handler. */
	r = mxt_recv(e1, in, 40, 4, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, 10, 4);
	mxt_wait(e1, &r);
	assert_int_equal(handler_seen, 3);
	/* An issend the handler consumes is matched by it:
	 * the sender completes, one fragment or several. */
	for (uint32_t len = 8; len <= 8000; len *= 10) {
		static uint8_t big[8000];
		mx_segment_t seg = { big, len };
		mx_request_t s;

		assert_int_equal(mx_issend(e0, &seg, 1, to1, 1, NULL, &s),
				MX_SUCCESS);
		st = mxt_wait(e0, &s);
		assert_int_equal(st.code, MX_STATUS_SUCCESS);
	}
	assert_int_equal(handler_seen, 7);
	mx_register_unexp_handler(e1, NULL, NULL);
}

static void
progression_paused(void **state)
{
	uint32_t v[5], in[5], res = 1;
	mx_request_t r[5], s[5];

	(void)state;
	assert_int_equal(mx_disable_progression(e1), MX_SUCCESS);
	for (uint32_t i = 0; i < 5; i++) {
		mx_segment_t seg = { &v[i], 4 };

		v[i] = i;
		assert_int_equal(mx_isend(e0, &seg, 1, to1, 0x900 | i, NULL,
					&s[i]), MX_SUCCESS);
	}
	for (int i = 0; i < 100; i++)
		mx_progress(e0);		/* runs board 1's rx too */
	/* Arrived but held: not matched, so not acknowledged either (the
	 * sends completed, copied: standard mode). */
	assert_true(mxd_list_empty(&e1->unexp));
	assert_int_equal(mxd_txwin_in_flight(&mxd_addr_partner(e0,
					&to1)->tx), 5);
	assert_int_equal(mx_test(e0, &s[0], NULL, &res), MX_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(mx_reenable_progression(e1), MX_SUCCESS);
	assert_false(mxd_list_empty(&e1->unexp));
	for (uint32_t i = 0; i < 5; i++) {
		r[i] = mxt_recv(e1, &in[i], 4, 0x900 | i, MX_MATCH_MASK_NONE);
		mxt_wait(e1, &r[i]);
		assert_int_equal(in[i], i);
		if (i > 0)
			assert_int_equal(mxt_wait(e0, &s[i]).code,
					MX_STATUS_SUCCESS);
	}
}

/* ---- unexpected queue limit: back-pressure, nothing lost ---------------- */

static void
unexp_limit_case(uint32_t limit, uint32_t n, uint32_t len)
{
	mx_param_t par = { .key = MX_PARAM_UNEXP_QUEUE_MAX };
	mx_endpoint_t e2;
	mx_endpoint_addr_t to2;
	uint8_t (*out)[1000] = malloc(n * sizeof(*out)), in[1000];
	mx_request_t *s = malloc(n * sizeof(*s)), r;
	uint32_t done = 0, res;
	struct mxd_partner *q;

	par.val.unexp_queue_max = limit;
	assert_int_equal(mx_open_endpoint(1, 5, 9, &par, 1, &e2), MX_SUCCESS);
	assert_int_equal(mx_connect(e0, nic1, 5, 9, 1000, &to2), MX_SUCCESS);
	for (uint32_t i = 0; i < n; i++) {
		mx_segment_t seg = { out[i], len };

		mxt_pattern(out[i], len, i);
		assert_int_equal(mx_isend(e0, &seg, 1, to2, i, NULL, &s[i]),
				MX_SUCCESS);
	}
	for (int i = 0; i < 300; i++) {
		mx_progress(e0);
		mx_progress(e2);
	}
	/* The queue keeps to its limit (one message always fits). */
	assert_true(e2->unexp_bytes <= (limit > len ? limit : len));
	assert_true(e2->board->counters[MXD_C_UNEXP_FULL] >= 1);
	/* The rest is not acknowledged.  Sends complete once copied: those
	 * launched (the window's worth), not those that wait for it. */
	q = mxd_addr_partner(e0, &to2);
	assert_true(q->tx.acked <= limit / len + 1);
	for (uint32_t i = 0; i < n; i++)
		if (mx_test(e0, &s[i], NULL, &res) == MX_SUCCESS && res)
			done++;
	assert_int_equal(done, q->tx.next_seq - 1);
	assert_true(done >= (n < MXD_WIN ? n : MXD_WIN));
	for (uint32_t i = 0; i < n; i++) {
		r = mxt_recv(e2, in, sizeof(in), i, MX_MATCH_MASK_NONE);
		assert_int_equal(mxt_wait(e2, &r).xfer_length, len);
		assert_memory_equal(in, out[i], len);
	}
	for (uint32_t i = 0; i < n; i++)
		if (s[i] != NULL)
			assert_int_equal(mxt_wait(e0, &s[i]).code,
					MX_STATUS_SUCCESS);
	mx_close_endpoint(e2);
	free(out);
	free(s);
}

static void
unexpected_queue_limit(void **state)
{
	(void)state;
	unexp_limit_case(4000, 40, 1000);	/* within the window */
	unexp_limit_case(0, 3 * MXD_WIN / 2, 100);	/* beyond it */
}

/* ---- large messages (rendezvous) ------------------------------------------ */

static void
large_case(uint32_t len, int unexpected)
{
	uint8_t *out = malloc(len), *in = malloc(len + 8);
	mx_segment_t seg = { out, len };
	mx_request_t s, r = NULL;
	mx_status_t st;
	uint32_t res = 9;

	mxt_pattern(out, len, len);
	if (!unexpected)
		r = mxt_recv(e1, in, len + 8, 0xb, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 0xb, NULL, &s), MX_SUCCESS);
	/* Pulled from the user's buffer: not reusable until done. */
	assert_int_equal(mx_ibuffered(e0, &s, &res), MX_SUCCESS);
	assert_int_equal(res, 0);
	if (unexpected) {
		for (int i = 0; i < 50; i++)
			mx_progress(e1);
		assert_int_equal(mx_iprobe(e1, 0xb, MX_MATCH_MASK_NONE, &st,
					&res), MX_SUCCESS);
		assert_int_equal(res, 1);
		assert_int_equal(st.msg_length, len);
		assert_true(e1->unexp_bytes <= 16);	/* header only */
		r = mxt_recv(e1, in, len + 8, 0xb, MX_MATCH_MASK_NONE);
	}
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_int_equal(st.msg_length, len);
	assert_int_equal(st.xfer_length, len);
	if (memcmp(in, out, len) != 0)
		fail_msg("%u-byte large message differs", len);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	free(out);
	free(in);
}

static void
large_messages(void **state)
{
	uint64_t rx0 = e1->board->counters[MXD_C_RX_MSGS];

	(void)state;
	large_case(32769, 0);
	large_case(100000, 1);
	large_case((1u << 20) + 7, 0);
	large_case(8u << 20, 1);
	assert_int_equal(e0->board->counters[MXD_C_BAD_PULL], 0);
	/* Each counted once, pulled from the queue or not. */
	assert_int_equal(e1->board->counters[MXD_C_RX_MSGS] - rx0, 4);
}

/* ---- partners with different MTUs --------------------------------------- */

/* Board 0's port has MTU 1500, board 1's 1000, and each drops what is
 * longer (fixture_setup_mtu): as memif ports of 9000 and 1500 do. */
static int
setup_mtu(void **state)
{
	(void)state;
	return fixture_setup_mtu(1500, 1000);
}

/* One message of len bytes from 'from' to 'dst' by 'to', every byte
 * checked: received whole and the send complete. */
static void
mtu_exchange(mx_endpoint_t from, mx_endpoint_addr_t to, mx_endpoint_t dst,
		uint32_t len)
{
	uint8_t *out = malloc(len + 1), *in = malloc(len + 1);
	mx_segment_t seg = { out, len };
	mx_request_t s, r = mxt_recv(dst, in, len + 1, len, MX_MATCH_MASK_NONE);
	mx_status_t st;

	mxt_pattern(out, len, len);
	assert_int_equal(mx_isend(from, &seg, 1, to, len, NULL, &s),
			MX_SUCCESS);
	st = mxt_wait(dst, &r);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_int_equal(st.xfer_length, len);
	if (memcmp(in, out, len) != 0)
		fail_msg("%u-byte message differs", len);
	assert_int_equal(mxt_wait(from, &s).code, MX_STATUS_SUCCESS);
	free(out);
	free(in);
}

static void
mtu_partners_agree(void **state)
{
	static const uint32_t sizes[] = { 0, 1, 943, 944, 945, 1444, 1445,
		2000, 32768, 32769, 100000, (1u << 20) + 3 };
	struct mxd_partner *p0 = mxd_addr_partner(e0, &to1);
	struct mxd_partner *p1 = mxd_addr_partner(e1, &to0);

	(void)state;
	assert_int_equal(e0->board->mtu, 1500);
	assert_int_equal(e1->board->mtu, 1000);
	/* Each learnt the other's MTU at connect and uses the smaller. */
	assert_int_equal(p0->remote_mtu, 1000);
	assert_int_equal(p1->remote_mtu, 1500);
	for (struct mxd_partner *p = p0; p != NULL; p = p == p0 ? p1 : NULL) {
		assert_int_equal(p->mtu, 1000);
		assert_int_equal(p->frag_max, 1000 - 56);
		assert_int_equal(p->pull_frag_max, 1000 - 40);
		assert_int_equal(p->eager_max, 32768);
		assert_int_equal(p->mtu_said, p->remote_mtu);
	}
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		mtu_exchange(e0, to1, e1, sizes[i]);
		mtu_exchange(e1, to0, e0, sizes[i]);
	}
	/* Nothing was sent larger than its receiver takes. */
	assert_int_equal(pa.link.too_long + pb.link.too_long, 0);
	assert_int_equal(e0->board->counters[MXD_C_DROP_BASE + MXD_DROP_LONG] +
			e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_LONG], 0);
	assert_int_equal(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_SHORT],
			0);
}

/* What a partner says at connect, and what we make of it (0: not said,
 * as an older peer sends; below Ethernet's least: taken as 68). */
static void
mtu_said_at_connect(void **state)
{
	static const struct {
		uint32_t said, mtu, frag, pull, eager;
		int differs;
	} t[] = {
		{ 0, 1500, 1444, 1460, 32768, 0 },
		{ 1500, 1500, 1444, 1460, 32768, 0 },
		{ 9000, 1500, 1444, 1460, 32768, 1 },
		{ 576, 576, 520, 536, 32768, 1 },
		{ 300, 300, 244, 260, 244 * 64, 1 },
		{ 10, 72, 16, 32, 16 * 64, 1 },
	};
	struct mxd_partner *p0 = mxd_addr_partner(e0, &to1);

	(void)state;
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(mxd_partner_set_mtu(p0, t[i].said),
				t[i].differs);
		assert_int_equal(p0->mtu, t[i].mtu);
		assert_int_equal(p0->frag_max, t[i].frag);
		assert_int_equal(p0->pull_frag_max, t[i].pull);
		assert_int_equal(p0->eager_max, t[i].eager);
	}
	/* Frames of 72 bytes: a medium message goes as a large one (its
	 * descriptor whole in one fragment), in pull replies of 32 bytes. */
	mtu_exchange(e0, to1, e1, 1000);
	mtu_exchange(e0, to1, e1, 5);
	assert_int_equal(e0->board->counters[MXD_C_BAD_PULL], 0);
}

/* A frame longer than a port's buffers (a peer that did not say its MTU)
 * is counted and dropped, said once; traffic goes on. */
static void
mtu_too_long_dropped(void **state)
{
	uint8_t junk[1200];

	(void)state;
	memset(junk, 0xa5, sizeof(junk));
	fake_inject(&pb, junk, sizeof(junk));
	fake_inject(&pb, junk, 1015);
	fake_inject(&pb, junk, 1014);	/* fits: parsed, a foreign frame */
	for (int i = 0; i < 10; i++)
		mx_progress(e1);
	assert_int_equal(pb.link.too_long, 2);
	assert_int_equal(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_LONG],
			2);
	assert_int_equal(e1->board->long_said, 1);
	mtu_exchange(e0, to1, e1, 5000);
}

static void
large_truncated_scattered_sync(void **state)
{
	enum { LEN = 300000 };
	uint8_t *out = malloc(LEN), *a = malloc(LEN), b[1000], c[5000];
	mx_segment_t ss[3] = { { out, 70000 }, { NULL, 0 },
		{ out + 70000, LEN - 70000 } };
	mx_segment_t rs[3] = { { b, 1000 }, { c, 5000 }, { a, 94000 } };
	mx_request_t s, r;
	mx_status_t st;

	(void)state;
	mxt_pattern(out, LEN, 3);
	assert_int_equal(mx_irecv(e1, rs, 3, 0xc, MX_MATCH_MASK_NONE, NULL, &r),
			MX_SUCCESS);
	assert_int_equal(mx_issend(e0, ss, 3, to1, 0xc, NULL, &s), MX_SUCCESS);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_TRUNCATED);
	assert_int_equal(st.msg_length, LEN);
	assert_int_equal(st.xfer_length, 100000);
	assert_memory_equal(b, out, 1000);
	assert_memory_equal(c, out + 1000, 5000);
	assert_memory_equal(a, out + 6000, 94000);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	free(out);
	free(a);
}

static void
forged_pulls_refused(void **state)
{
	uint8_t f[128];
	struct mxd_partner *p = mxd_addr_partner(e1, &to0);
	struct mxd_hdr_args a;
	uint64_t before = e0->board->counters[MXD_C_BAD_PULL];
	uint64_t gone = e0->board->counters[MXD_C_PULL_GONE];
	uint8_t *out = malloc(50000), in[8];
	mx_segment_t seg = { out, 50000 };
	mx_request_t s, r;
	size_t n;

	(void)state;
	/* A live large send of e0, still waiting for its receive. */
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 0xd, NULL, &s), MX_SUCCESS);
	for (int i = 0; i < 20; i++)
		mx_progress(e0);
	/* From e1's partner, correct sessions: a pull of a handle that is
	 * not a send (answered GONE: a send that ended), and one beyond the
	 * send's window (refused). */
	for (int k = 0; k < 2; k++) {
		mxd_hdr_for(p, MXD_T_PULL, &a);
		n = mxd_wire_put_hdr(f, pa.link.mac, pb.link.mac, &a,
				sizeof(struct mxd_pull_hdr));
		mxd_wire_put_pull(f + n, k == 0 ? 0x12345 :
				e0->lsend[s->rndv_handle & 4095]->rndv_handle,
				1, k == 0 ? 0 : 49000, k == 0 ? 100 : 2000, 1000);
		mxd_wire_seal(f);
		fake_inject(&pa, f, (uint32_t)(n + sizeof(struct mxd_pull_hdr)));
	}
	for (int i = 0; i < 20; i++)
		mx_progress(e0);
	assert_int_equal(e0->board->counters[MXD_C_BAD_PULL], before + 1);
	assert_int_equal(e0->board->counters[MXD_C_PULL_GONE], gone + 1);
	r = mxt_recv(e1, in, sizeof(in), 0xd, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_TRUNCATED);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	free(out);
}

/* A connect request to e0 (endpoint 1, filter 0xf00d) from NIC id 'nic',
 * which no board has, as if it came by e1's port. */
static void
forge_conn_req(uint64_t nic, uint32_t n)
{
	struct mxd_hdr_args a = {
		.type = MXD_T_CONN_REQ, .src_ep = 3, .dst_ep = 1,
		.dst_peer = MXD_NO_PEER, .src_peer = (uint16_t)(n & 0xfff),
		.filter = 0xf00d, .src_session = 0x5000 + n,
	};
	uint8_t f[128];
	size_t len = mxd_wire_put_hdr(f, pa.link.mac, pb.link.mac, &a,
			sizeof(struct mxd_conn_hdr));

	mxd_wire_put_conn(f + len, nic, nic0, n + 1, 0x77, MXD_CONN_OK, 1,
			1500, 0);
	mxd_wire_seal(f);
	fake_inject(&pa, f, (uint32_t)(len + sizeof(struct mxd_conn_hdr)));
}

/* Both boards' passes, so that neither fake ring fills. */
static void
progress_both(int passes)
{
	for (int i = 0; i < passes; i++) {
		mx_progress(e0);
		mx_progress(e1);
	}
}

/*
 * Connect requests from more forged NIC ids than an endpoint holds
 * partners leave it open to new partners, and the one it uses (e1) is
 * kept, so is the partner holding its own address's context: partners
 * the program cannot know of are reused.  Before, the table filled and
 * stayed full: every later connect failed.
 */
static void
forged_connects_leave_room(void **state)
{
	uint64_t reused = e0->board->counters[MXD_C_PARTNER_REUSED];
	uint8_t out[64], in[64];
	mx_endpoint_addr_t a, to2, self;
	mx_endpoint_t e2;
	mx_request_t r;
	void *ctx = NULL;

	(void)state;
	e0->partners_max = MXD_PARTNERS_FLOOR;	/* MX_MAX_PARTNERS's least */
	mxt_pattern(out, sizeof(out), 3);
	mx_get_endpoint_addr(e0, &self);
	assert_int_equal(mx_set_endpoint_addr_context(self, out), MX_SUCCESS);
	for (uint32_t n = 0; n < MXD_PARTNERS_FLOOR + 300; n++) {
		forge_conn_req(0x02aa00000000ull + n, n);
		if (n % 128 == 127)
			progress_both(8);
	}
	progress_both(8);
	assert_int_equal(e0->npartners, MXD_PARTNERS_FLOOR);
	assert_true(e0->board->counters[MXD_C_PARTNER_REUSED] >= reused + 300);
	assert_int_equal(mx_get_endpoint_addr_context(self, &ctx), MX_SUCCESS);
	assert_ptr_equal(ctx, out);
	/* The partner in use still is e1. */
	r = mxt_recv(e1, in, sizeof(in), 5, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, sizeof(out), 5);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
	assert_memory_equal(in, out, sizeof(out));
	/* A new endpoint connects to e0, and e0 to it; messages both ways. */
	assert_int_equal(mx_open_endpoint(1, 3, 0xcafe, NULL, 0, &e2),
			MX_SUCCESS);
	assert_int_equal(mx_connect(e2, nic0, 1, 0xf00d, 1000, &a),
			MX_SUCCESS);
	assert_int_equal(mx_connect(e0, nic1, 3, 0xcafe, 1000, &to2),
			MX_SUCCESS);
	r = mxt_recv(e0, in, sizeof(in), 6, MX_MATCH_MASK_NONE);
	mxt_send_ok(e2, a, out, sizeof(out), 6);
	assert_int_equal(mxt_wait(e0, &r).code, MX_STATUS_SUCCESS);
	r = mxt_recv(e2, in, sizeof(in), 7, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to2, out, sizeof(out), 7);
	assert_int_equal(mxt_wait(e2, &r).code, MX_STATUS_SUCCESS);
	assert_int_equal(mx_close_endpoint(e2), MX_SUCCESS);
}

/*
 * Connects to more NIC ids that never answer than an endpoint holds
 * partners: each fails by its timeout, never MX_NO_RESOURCES, and the
 * endpoint still connects afterwards.  An address given out stays its
 * partner's, and a forged index in an address is not taken.
 */
static void
failed_connects_leave_room(void **state)
{
	uint8_t out[16], in[16];
	mx_endpoint_addr_t a, bad;
	mx_request_t r, s;

	(void)state;
	e0->partners_max = MXD_PARTNERS_FLOOR;	/* MX_MAX_PARTNERS's least */
	for (uint32_t n = 0; n < MXD_PARTNERS_FLOOR + 40; n++) {
		mx_return_t rc = mx_connect(e0, 0x02bb00000000ull + n, 1,
				0xf00d, 1, &a);

		if (rc != MX_NIC_NOT_FOUND && rc != MX_TIMEOUT)
			fail_msg("connect %u: %s", n, mx_strerror(rc));
	}
	assert_int_equal(e0->npartners, MXD_PARTNERS_FLOOR);
	assert_int_equal(mx_connect(e1, nic0, 1, 0xf00d, 1000, &a),
			MX_SUCCESS);
	r = mxt_recv(e0, in, sizeof(in), 8, MX_MATCH_MASK_NONE);
	mxt_send_ok(e1, a, out, sizeof(out), 8);
	assert_int_equal(mxt_wait(e0, &r).code, MX_STATUS_SUCCESS);
	r = mxt_recv(e1, in, sizeof(in), 9, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, sizeof(out), 9);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
	/* to1 with another partner's index: found by its NIC and id. */
	bad = to1;
	bad.stuff[1] = (bad.stuff[1] & ~0xffffull) | 7;
	r = mxt_recv(e1, in, sizeof(in), 10, MX_MATCH_MASK_NONE);
	assert_int_equal(mx_isend(e0, NULL, 0, bad, 10, NULL, &s),
			MX_SUCCESS);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
}

/* Every message a rendezvous (MX_RNDV_THRESHOLD=0), read at setup. */
static int
setup_rndv_only(void **state)
{
	int rc;

	setenv("MX_RNDV_THRESHOLD", "0", 1);
	rc = fixture_setup(state);
	unsetenv("MX_RNDV_THRESHOLD");
	return rc;
}

static int
hold_pulls(const uint8_t *f, uint32_t len)
{
	return len > MXD_ETH_HLEN + 1 && f[MXD_ETH_HLEN + 1] == MXD_T_PULL ?
		FAKE_HOLD : FAKE_PASS;
}

/*
 * More large receives in progress at once than an endpoint has pull slots
 * (MXD_PULLS_MAX), from two senders (one has at most MXD_LSEND_MAX large
 * sends open), e1's PULLs held meanwhile so that none ends: those past
 * the last slot wait for one, matched, and every message arrives whole
 * once the PULLs go.  Before, they failed with MX_STATUS_NO_RESOURCES
 * and their sends never completed.
 */
static void
pulls_past_the_table_wait(void **state)
{
	enum { N = MXD_PULLS_MAX + 200, LEN = 64 };
	uint8_t *in = calloc(N, LEN), *out = malloc((size_t)N * LEN);
	mx_request_t *r = calloc(N, sizeof(*r)), *s = calloc(N, sizeof(*s));
	uint64_t deferred = e1->board->counters[MXD_C_PULLS_DEFERRED];
	mx_endpoint_addr_t from2;
	mx_endpoint_t e2;

	(void)state;
	assert_int_equal(mx_open_endpoint(0, 3, 0xf00d, NULL, 0, &e2),
			MX_SUCCESS);
	assert_int_equal(mx_connect(e2, nic1, 2, 0xbeef, 1000, &from2),
			MX_SUCCESS);
	pb.tap = hold_pulls;
	for (uint32_t i = 0; i < N; i++)
		r[i] = mxt_recv(e1, in + (size_t)i * LEN, LEN, i,
				MX_MATCH_MASK_NONE);
	for (uint32_t i = 0; i < N; i++) {
		mxt_pattern(out + (size_t)i * LEN, LEN, i);
		s[i] = mxt_isend(i % 2 ? e2 : e0, i % 2 ? from2 : to1,
				out + (size_t)i * LEN, LEN, i);
	}
	for (int k = 0; k < 100000 && e1->board->counters[
			MXD_C_PULLS_DEFERRED] < deferred + 200; k++)
		progress_both(1);
	assert_int_equal(e1->npulls, MXD_PULLS_MAX);
	assert_int_equal(e1->board->counters[MXD_C_PULLS_DEFERRED],
			deferred + 200);
	pb.tap = NULL;
	fake_release(&pb);
	for (uint32_t i = 0; i < N; i++) {
		mx_status_t st = mxt_wait(e1, &r[i]);

		if (st.code != MX_STATUS_SUCCESS || st.xfer_length != LEN ||
				memcmp(in + (size_t)i * LEN,
					out + (size_t)i * LEN, LEN) != 0)
			fail_msg("receive %u: %s, %u bytes", i,
					mx_strstatus(st.code), st.xfer_length);
	}
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(mxt_wait(i % 2 ? e2 : e0, &s[i]).code,
				MX_STATUS_SUCCESS);
	assert_int_equal(e1->npulls, 0);
	assert_int_equal(mx_close_endpoint(e2), MX_SUCCESS);
	free(in);
	free(out);
	free(r);
	free(s);
}

/* A large send fails exactly once: refused, or timed out. */
static void
large_send_failures(void **state)
{
	uint8_t *out = calloc(1, 200000);
	mx_segment_t seg = { out, 200000 };
	mx_request_t s;

	(void)state;
	/* Timed out while the wire is cut; later frames change nothing. */
	pa.up = 0;
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s), MX_SUCCESS);
	assert_int_equal(mx_set_request_timeout(e0, s, 30), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_TIMEOUT);
	pa.up = 1;
	for (int i = 0; i < 300; i++)
		mx_progress(e1);	/* e1 matches nothing: no receive */
	for (int i = 0; i < 300; i++)
		mx_progress(e0);
	assert_true(mxd_list_empty(&e0->done));
	/* Refused by a closed endpoint: once, whatever is in flight. */
	assert_int_equal(mx_close_endpoint(e1), MX_SUCCESS);
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 2, NULL, &s), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_ENDPOINT_CLOSED);
	for (int i = 0; i < 300; i++)
		mx_progress(e0);
	assert_true(mxd_list_empty(&e0->done));
	for (uint32_t i = 0; i < MXD_LSEND_MAX; i++)
		assert_null(e0->lsend[i]);
	assert_int_equal(mx_open_endpoint(1, 2, 0xbeef, NULL, 0, &e1),
			MX_SUCCESS);
	free(out);
}

/*
 * PULLs wait as jobs while the tx queue is full; a send that ends
 * meanwhile (here: timed out, its buffer freed) must not be read by them.
 * Only the reply frames built before the end go out.
 */
static void
pull_jobs_outlive_their_send(void **state)
{
	uint8_t f[128];
	struct mxd_partner *p = mxd_addr_partner(e1, &to0);
	struct mxd_partner *q = mxd_addr_partner(e0, &to1);
	struct mxd_hdr_args a;
	uint8_t *out = calloc(1, 200000);
	mx_segment_t seg = { out, 200000 };
	uint64_t stale = e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_STALE];
	uint16_t frag = (uint16_t)e0->board->pull_frag_max;
	mx_request_t s;
	size_t n;

	(void)state;
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 0xe, NULL, &s), MX_SUCCESS);
	for (int i = 0; i < 20; i++)
		mx_progress(e0);
	pa.up = 0;		/* nothing leaves: the tx queue fills */
	for (uint32_t k = 0; k < 2; k++) {	/* two blocks */
		mxd_hdr_for(p, MXD_T_PULL, &a);
		n = mxd_wire_put_hdr(f, pa.link.mac, pb.link.mac, &a,
				sizeof(struct mxd_pull_hdr));
		mxd_wire_put_pull(f + n, s->rndv_handle, 1,
				k * MXD_PULL_FRAMES * frag,
				MXD_PULL_FRAMES * frag, frag);
		mxd_wire_seal(f);
		fake_inject(&pa, f, (uint32_t)(n +
					sizeof(struct mxd_pull_hdr)));
	}
	for (int i = 0; i < 20; i++)
		mx_progress(e0);
	assert_int_not_equal(q->a->jobs->job_head,
			q->a->jobs->job_tail);	/* still waiting */
	assert_int_equal(mx_set_request_timeout(e0, s, 20), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_TIMEOUT);
	free(out);
	pa.up = 1;
	for (int i = 0; i < 200; i++) {
		mx_progress(e0);
		mx_progress(e1);
	}
	assert_true(q->a == NULL || q->a->jobs == NULL ||
			q->a->jobs->job_head == q->a->jobs->job_tail);
	/* 64 replies were built before the send ended, none after. */
	assert_int_equal(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_STALE],
			stale + 64);
}

/* ---- frames out of order ------------------------------------------------- */

/*
 * The receiving port hands over what is pending last first: fragments of
 * a message arrive in reverse and later messages overtake earlier ones, so
 * matching must wait for order and hold early messages aside.  Sent as a window of async sends, half of
 * them to posted receives and half unexpected.
 */
static void
reordered_delivery(void **state)
{
	enum { N = 200, MAX = 9000 };
	static uint8_t out[N][MAX], in[N][MAX];
	mx_request_t s[N], r[N];
	mx_status_t st;

	(void)state;
	pb.reverse = 1;
	for (uint32_t i = 0; i < N; i += 2)
		r[i] = mxt_recv(e1, in[i], MAX, 0x500, 0xf00);
	for (uint32_t i = 0; i < N; i++) {
		mx_segment_t seg = { out[i], (i * 997) % MAX };

		mxt_pattern(out[i], MAX, i);
		assert_int_equal(mx_isend(e0, &seg, 1, to1, (i & 1) ? 0x600 | i :
					0x500 | (i & 0xff), NULL, &s[i]), MX_SUCCESS);
	}
	for (uint32_t i = 0; i < N; i++)
		mxt_wait(e0, &s[i]);
	for (uint32_t i = 1; i < N; i += 2)
		r[i] = mxt_recv(e1, in[i], MAX, 0x600, 0xf00);
	for (uint32_t i = 0; i < N; i++) {
		st = mxt_wait(e1, &r[i]);
		if (st.xfer_length != (i * 997) % MAX ||
				memcmp(in[i], out[i], st.xfer_length) != 0)
			fail_msg("message %u: wrong length or data", i);
	}
	assert_true(e1->board->counters[MXD_C_EARLY_MSGS] > 0);
	pb.reverse = 0;
}

/* ---- packing: small messages that wait together share frames ----------- */

static uint64_t
count0(enum mxd_counter c)
{
	return e0->board->counters[c];
}

static uint64_t
count1(enum mxd_counter c)
{
	return e1->board->counters[c];
}

/*
 * Posts n sends e0 -> e1, message i of len[i] bytes at out[i] (pattern
 * i), all with match m, nothing making progress meanwhile: the first
 * MX_PACK_AFTER go at once, each in its own frame, and the rest wait on
 * the send queue together (more than MXD_WIN of them: the window fills
 * too), to leave it packed at the next passes.  sync[i] (if sync is not
 * NULL) makes message i an mx_issend.
 */
static void
pack_burst(mx_request_t *s, uint8_t **out, const uint32_t *len,
		const uint8_t *sync, unsigned n, uint64_t m)
{
	for (unsigned i = 0; i < n; i++) {
		mx_segment_t seg = { out[i], len[i] };

		mxt_pattern(out[i], len[i], i);
		if (sync != NULL && sync[i])
			assert_int_equal(mx_issend(e0, &seg, 1, to1, m, NULL,
						&s[i]), MX_SUCCESS);
		else
			s[i] = mxt_isend(e0, to1, out[i], len[i], m);
	}
}

/* Message i went to receive i, whole and in order. */
static void
pack_check(mx_request_t *r, uint8_t **in, const uint32_t *len, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		mx_status_t st = mxt_wait(e1, &r[i]);

		assert_int_equal(st.code, MX_STATUS_SUCCESS);
		assert_int_equal(st.xfer_length, len[i]);
		mxt_pattern_expect(in[i], len[i], i);
	}
}

/* Buffers of n messages of len[i] bytes, both sides. */
static void
pack_buffers(uint8_t **out, uint8_t **in, const uint32_t *len, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		out[i] = malloc(len[i] + 1);
		in[i] = malloc(len[i] + 1);
		assert_non_null(out[i]);
		assert_non_null(in[i]);
	}
}

static void
pack_free(uint8_t **out, uint8_t **in, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(out[i]);
		free(in[i]);
	}
}

/*
 * Messages of 0 to 64 bytes queued together leave in PACK frames and
 * arrive whole, in order (every receive takes the same match: each gets
 * the next message), into receives posted first.
 */
static void
packed_in_order(void **state)
{
	enum { N = MXD_WIN + 700 };
	static uint8_t *out[N], *in[N];
	static uint32_t len[N];
	static mx_request_t s[N], r[N];
	uint64_t tx0 = count0(MXD_C_TX_PACKED), rx0 = count1(MXD_C_RX_PACKED);

	(void)state;
	for (unsigned i = 0; i < N; i++)
		len[i] = i % 65;
	pack_buffers(out, in, len, N);
	for (unsigned i = 0; i < N; i++)
		r[i] = mxt_recv(e1, in[i], len[i], 0x77, MX_MATCH_MASK_NONE);
	pack_burst(s, out, len, NULL, N, 0x77);
	pack_check(r, in, len, N);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
	print_message("%llu of %u messages packed, in %llu frames\n",
			(unsigned long long)(count0(MXD_C_TX_PACKED) - tx0), N,
			(unsigned long long)count0(MXD_C_TX_PACKS));
	/* Most of those queued went packed, several to a frame. */
	assert_true(count0(MXD_C_TX_PACKED) - tx0 >= N - MXD_WIN - 8);
	assert_true(count0(MXD_C_TX_PACKED) >= 4 * count0(MXD_C_TX_PACKS));
	assert_int_equal(count1(MXD_C_RX_PACKED) - rx0,
			count0(MXD_C_TX_PACKED) - tx0);
	assert_int_equal(count1(MXD_C_DROP_BASE + MXD_DROP_LENGTH), 0);
	pack_free(out, in, N);
}

/* A message alone goes in an EAGER frame of its own, as ever. */
static void
lone_message_not_packed(void **state)
{
	uint8_t out[8] = "12345678", in[8];
	uint64_t tx0 = count0(MXD_C_TX_PACKED);

	(void)state;
	for (int i = 0; i < 50; i++) {
		mx_request_t r = mxt_recv(e1, in, 8, 5, MX_MATCH_MASK_NONE);
		mx_request_t s = mxt_isend(e0, to1, out, 8, 5);

		/* Sent at once, in the call: the frame is on the wire. */
		assert_int_equal(s->state, MXD_RS_COMPLETE);
		mxt_wait(e1, &r);
		mxt_wait(e0, &s);
	}
	assert_int_equal(count0(MXD_C_TX_PACKED), tx0);
}

/*
 * The same into the unexpected queue: nothing posted until every
 * message is here, then receives take them in order.
 */
static void
packed_unexpected(void **state)
{
	enum { N = MXD_WIN + 500 };
	static uint8_t *out[N], *in[N];
	static uint32_t len[N];
	static mx_request_t s[N], r[N];
	uint64_t u0 = count1(MXD_C_UNEXP_MSGS), tx0 = count0(MXD_C_TX_PACKED);

	(void)state;
	for (unsigned i = 0; i < N; i++)
		len[i] = (i * 7) % 41;
	pack_buffers(out, in, len, N);
	pack_burst(s, out, len, NULL, N, 0x78);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
	for (int i = 0; i < 100000 && count1(MXD_C_UNEXP_MSGS) - u0 < N; i++)
		mx_progress(e1);
	assert_int_equal(count1(MXD_C_UNEXP_MSGS) - u0, N);
	assert_true(count0(MXD_C_TX_PACKED) - tx0 > N / 2);
	for (unsigned i = 0; i < N; i++)
		r[i] = mxt_recv(e1, in[i], len[i], 0x78, MX_MATCH_MASK_NONE);
	pack_check(r, in, len, N);
	pack_free(out, in, N);
}

/*
 * Sizes mixed: small ones packed, a 1400-byte one (two of which do not
 * fit a frame), multi-fragment eager ones and large ones (rendezvous)
 * alone, in their order with the rest.
 */
static void
packed_mixed_sizes(void **state)
{
	static const uint32_t sizes[] = { 8, 0, 1400, 100, 5000, 700, 40000,
		3, 16, 64, 1, 9000, 33 };
	enum { N = MXD_WIN + 300, K = sizeof(sizes) / sizeof(sizes[0]) };
	static uint8_t *out[N], *in[N];
	static uint32_t len[N];
	static mx_request_t s[N], r[N];
	uint64_t tx0 = count0(MXD_C_TX_PACKED), m0 = count0(MXD_C_TX_MSGS);

	(void)state;
	for (unsigned i = 0; i < N; i++)
		len[i] = sizes[i % K];
	pack_buffers(out, in, len, N);
	for (unsigned i = 0; i < N; i++)
		r[i] = mxt_recv(e1, in[i], len[i], 0x79, MX_MATCH_MASK_NONE);
	pack_burst(s, out, len, NULL, N, 0x79);
	pack_check(r, in, len, N);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
	assert_int_equal(count0(MXD_C_TX_MSGS) - m0, N);
	assert_true(count0(MXD_C_TX_PACKED) - tx0 > 0);
	/* Those too big to share a frame (4 sizes of K) went alone. */
	assert_true(count0(MXD_C_TX_PACKED) - tx0 <= N - N / K * 4);
	pack_free(out, in, N);
}

/* e0's PACK frames: records flagged SYNC seen in them. */
static unsigned packed_sync;

static int
count_packed_sync(const uint8_t *f, uint32_t len)
{
	struct mxd_pkt pkt, m;
	uint8_t copy[FAKE_ROOM];
	const uint8_t *rec;

	memcpy(copy, f, len);
	if (mxd_wire_parse(copy, len, &pkt) != MXD_DROP_NONE ||
			pkt.h.type != MXD_T_PACK)
		return FAKE_PASS;
	rec = mxd_wire_pack_first(&pkt, &m);
	for (uint32_t i = 0; i < pkt.u.pack.count; i++) {
		rec = mxd_wire_pack_next(rec, &m);
		packed_sync += (m.h.flags & MXD_F_SYNC) != 0;
	}
	return FAKE_PASS;
}

/*
 * mx_issend in PACK frames: each completes once its message is matched
 * (the receiver's MATCHED notice), whether the receive was posted
 * before (the first half) or after it arrived (the second).
 */
static void
packed_issend_matched(void **state)
{
	enum { N = MXD_WIN + 200 };
	static uint8_t *out[N], *in[N], sync[N];
	static uint32_t len[N];
	static mx_request_t s[N], r[N];

	(void)state;
	packed_sync = 0;
	for (unsigned i = 0; i < N; i++) {
		len[i] = 8 + i % 9;
		sync[i] = i % 3 == 0;
	}
	pack_buffers(out, in, len, N);
	for (unsigned i = 0; i < N / 2; i++)
		r[i] = mxt_recv(e1, in[i], len[i], 0x7a, MX_MATCH_MASK_NONE);
	pa.tap = count_packed_sync;
	pack_burst(s, out, len, sync, N, 0x7a);
	for (int i = 0; i < 2000; i++)
		mx_progress(e0);
	/* Issends of the second half: delivered, not matched yet. */
	for (unsigned i = N / 2; i < N; i++)
		if (sync[i])
			assert_int_not_equal(s[i]->state, MXD_RS_COMPLETE);
	for (unsigned i = N / 2; i < N; i++)
		r[i] = mxt_recv(e1, in[i], len[i], 0x7a, MX_MATCH_MASK_NONE);
	pack_check(r, in, len, N);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
	pa.tap = NULL;
	print_message("%u issends went packed\n", packed_sync);
	assert_true(packed_sync > 10);
	pack_free(out, in, N);
}

/*
 * A PACK frame written here as e0's engine would (its partner's header,
 * sequence numbers taken from its window): a message, a notice (a
 * MATCHED no send waits for) and another message.  Both messages match
 * in order, straight into their receives: the notice's turn passes at
 * once, so the message behind it needs no early buffer.
 */
static void
packed_notice_between(void **state)
{
	struct mxd_partner *p = mxd_addr_partner(e0, &to1);
	uint64_t early0 = count1(MXD_C_EARLY_MSGS);
	uint8_t f[256], in1[8], in2[8];
	struct mxd_hdr_args a;
	uint32_t seq, body = sizeof(struct mxd_pack_hdr) +
		2 * mxd_pack_rec_size(8) + mxd_pack_rec_size(0);
	mx_request_t r1, r2;
	uint8_t *d;

	(void)state;
	assert_non_null(p);
	r1 = mxt_recv(e1, in1, 8, 0x301, MX_MATCH_MASK_NONE);
	r2 = mxt_recv(e1, in2, 8, 0x302, MX_MATCH_MASK_NONE);
	mxd_hdr_for(p, MXD_T_PACK, &a);
	d = f + mxd_wire_put_hdr(f, p->mac, pa.link.mac, &a, (uint16_t)body);
	d += mxd_wire_put_pack(d, 3);
	seq = mxd_txwin_take(&p->tx);
	d += mxd_wire_put_pack_rec(d, seq, 8, 0, 0x301);
	memcpy(d, "first..1", 8);
	d += 8;
	d += mxd_wire_put_pack_rec(d, mxd_txwin_take(&p->tx), 0, MXD_F_CTRL,
			(uint64_t)MXD_NOTE_MATCHED << 32 | (seq - 100));
	d += mxd_wire_put_pack_rec(d, mxd_txwin_take(&p->tx), 8, 0, 0x302);
	memcpy(d, "second.2", 8);
	d += 8;
	mxd_wire_seal(f);
	fake_inject(&pb, f, (uint32_t)(d - f));
	assert_int_equal(mxt_wait(e1, &r1).xfer_length, 8);
	assert_int_equal(mxt_wait(e1, &r2).xfer_length, 8);
	assert_memory_equal(in1, "first..1", 8);
	assert_memory_equal(in2, "second.2", 8);
	assert_int_equal(count1(MXD_C_EARLY_MSGS), early0);
	assert_int_equal(count1(MXD_C_RX_PACKED) >= 3, 1);
	/* The window goes on: e0's next messages arrive behind them. */
	mxt_send_ok(e0, to1, "x", 1, 0x303);
	r1 = mxt_recv(e1, in1, 8, 0x303, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r1).xfer_length, 1);
}

/* ---- no malloc on the message path -------------------------------------- */

/* test_engine is linked with --wrap for the allocator: count calls. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
static unsigned long allocs;
static int fail_allocs;		/* make every allocation fail */

void *
__wrap_malloc(size_t n)
{
	allocs++;
	return fail_allocs ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t m)
{
	allocs++;
	return fail_allocs ? NULL : __real_calloc(n, m);
}

void *
__wrap_realloc(void *p, size_t n)
{
	allocs++;
	return fail_allocs ? NULL : __real_realloc(p, n);
}

/* Out of memory: the calls that allocate say MX_NO_RESOURCES, and all
 * still works once memory is back. */
static void
no_resources_when_memory_fails(void **state)
{
	uint8_t b[5][8];
	mx_segment_t segs[5] = { { b[0], 8 }, { b[1], 8 }, { b[2], 8 },
		{ b[3], 8 }, { b[4], 8 } };
	mx_endpoint_t e;
	mx_request_t r, c = NULL;
	mx_return_t rc[3];

	(void)state;
	fail_allocs = 1;
	rc[0] = mx_open_endpoint(0, 9, 0, NULL, 0, &e);
	rc[1] = mx_irecv(e1, segs, 5, 1, MX_MATCH_MASK_NONE, NULL, &r);
	rc[2] = mx_iconnect(e0, 0x02ab00000001ull, 1, 0, 0, NULL, &c);
	fail_allocs = 0;
	assert_int_equal(rc[0], MX_NO_RESOURCES);
	assert_int_equal(rc[1], MX_NO_RESOURCES);
	/* A partner more comes from memory taken ahead (its table, its
	 * traffic state's pool): no allocation, no failure. */
	assert_true(rc[2] == MX_NO_RESOURCES || rc[2] == MX_SUCCESS);
	if (rc[2] == MX_SUCCESS)
		assert_int_equal(mx_forget(e0, &c), MX_SUCCESS);
	assert_int_equal(mx_irecv(e1, segs, 5, 1, MX_MATCH_MASK_NONE, NULL, &r),
			MX_SUCCESS);
	mxt_send_ok(e0, to1, "0123456789abcdefghijklmnopqrstuvwxyz0123", 40, 1);
	assert_int_equal(mxt_wait(e1, &r).xfer_length, 40);
	assert_memory_equal(b[4], "0123456789abcdefghijklmnopqrstuvwxyz0123" +
			32, 8);
}

/*
 * No memory for a pull's record when a large message is matched: the
 * receive waits, and completes whole once memory is back, and so does its
 * send.  Before, the receive failed with MX_STATUS_NO_RESOURCES and the
 * send waited for ever.
 */
static void
pull_waits_for_memory(void **state)
{
	uint8_t *out = malloc(100000), *in = calloc(1, 100000);
	uint64_t waited = count1(MXD_C_PULLS_DEFERRED);
	mx_request_t r, s;
	mx_status_t st;
	uint32_t done = 1;

	(void)state;
	mxt_pattern(out, 100000, 5);
	r = mxt_recv(e1, in, 100000, 0x77, MX_MATCH_MASK_NONE);
	s = mxt_isend(e0, to1, out, 100000, 0x77);
	fail_allocs = 1;
	for (int i = 0; i < 50; i++)
		mx_progress(e1);
	assert_int_equal(mx_test(e1, &r, &st, &done), MX_SUCCESS);
	fail_allocs = 0;
	assert_int_equal(done, 0);
	assert_int_equal(count1(MXD_C_PULLS_DEFERRED), waited + 1);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	assert_int_equal(st.xfer_length, 100000);
	assert_memory_equal(in, out, 100000);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	free(out);
	free(in);
}

static void
pingpong_rounds(unsigned n, uint32_t len)
{
	static uint8_t a[2000], b[2000];

	for (unsigned i = 0; i < n; i++) {
		mx_request_t r1 = mxt_recv(e1, b, sizeof(b), 1,
				MX_MATCH_MASK_NONE);
		mx_request_t r0 = mxt_recv(e0, a, sizeof(a), 2,
				MX_MATCH_MASK_NONE);

		mxt_send_ok(e0, to1, a, len, 1);
		mxt_wait(e1, &r1);
		mxt_send_ok(e1, to0, b, len, 2);
		mxt_wait(e0, &r0);
	}
}

/* Bursts that fill the window: the rest of each leaves packed. */
static void
packed_rounds(unsigned n)
{
	enum { N = MXD_WIN + 300 };
	static uint8_t a[N][16], b[N][16];
	static mx_request_t s[N], r[N];

	for (unsigned k = 0; k < n; k++) {
		for (unsigned i = 0; i < N; i++)
			r[i] = mxt_recv(e1, b[i], 16, 3, MX_MATCH_MASK_NONE);
		for (unsigned i = 0; i < N; i++)
			s[i] = mxt_isend(e0, to1, a[i], 8 + i % 9, 3);
		for (unsigned i = 0; i < N; i++) {
			mxt_wait(e1, &r[i]);
			mxt_wait(e0, &s[i]);
		}
	}
}

static void
no_malloc_small_path(void **state)
{
	uint64_t packed0;

	(void)state;
	pingpong_rounds(1000, 1000);	/* pools reach their size */
	packed_rounds(3);
	allocs = 0;
	packed0 = count0(MXD_C_TX_PACKED);
	pingpong_rounds(10000, 8);
	pingpong_rounds(1000, 1400);
	packed_rounds(5);
	assert_int_equal(allocs, 0);
	assert_true(count0(MXD_C_TX_PACKED) - packed0 > 1000);
}

/* ---- boards of several ports, peers file, bad settings ------------------ */

static struct fake_port q[4];

static int
start_with(const char *boards, const char *peers, unsigned nports)
{
	struct mxd_link *links[4];

	for (unsigned i = 0; i < 4; i++)
		fake_drain(&q[i]);	/* frames of an earlier start */
	fake_pair(&q[0], &q[2], 0x10, 0x20, 1500);
	fake_pair(&q[1], &q[3], 0x11, 0x21, 1500);
	for (unsigned i = 0; i < 4; i++)
		links[i] = &q[i].link;
	setenv("MX_HOSTNAME", "multi", 1);
	if (mxd_config_load(&mxd_conf) < 0)
		return -1;
	mxd_conf.boards = boards;
	mxd_conf.peers_file = peers;
	return mxd_init_links(links, nports);
}

static int
teardown_multi(void **state)
{
	(void)state;
	if (mxd_lib.initialized)
		mx_finalize();
	for (unsigned i = 0; i < 4; i++)
		fake_drain(&q[i]);
	return fake_live_buffers() == 0 ? 0 : -1;
}

/* Whether ep's first partner has a large receive being pulled. */
static int
pulling(mx_endpoint_t ep)
{
	const struct mxd_partner *p = ep->partners[0];

	return p->a != NULL && !mxd_list_empty(&p->a->pulls);
}

static void
two_port_boards(void **state)
{
	mx_endpoint_t a, b;
	mx_endpoint_addr_t ab;
	uint32_t ports = 0, board = 1, nics = 0;
	uint64_t nic;
	uint8_t out[20000], in[20000];
	mx_request_t r;

	(void)state;
	assert_int_equal(start_with("0+1,2+3", NULL, 4), 0);
	assert_int_equal(mx_get_info(NULL, MX_NIC_COUNT, NULL, 0, &nics,
				sizeof(nics)), MX_SUCCESS);
	assert_int_equal(nics, 2);
	assert_int_equal(mx_get_info(NULL, MX_PORT_COUNT, &board,
				sizeof(board), &ports, sizeof(ports)), MX_SUCCESS);
	assert_int_equal(ports, 2);
	/* A board's NIC id is the MAC of its first port. */
	mx_board_number_to_nic_id(1, &nic);
	assert_true(nic == 0x020000000020ull);
	assert_int_equal(mx_open_endpoint(0, 0, 1, NULL, 0, &a), MX_SUCCESS);
	assert_int_equal(mx_open_endpoint(1, 0, 2, NULL, 0, &b), MX_SUCCESS);
	assert_int_equal(mx_connect(a, nic, 0, 2, 1000, &ab), MX_SUCCESS);
	mxt_pattern(out, sizeof(out), 4);
	r = mxt_recv(b, in, sizeof(in), 1, MX_MATCH_MASK_NONE);
	mxt_send_ok(a, ab, out, sizeof(out), 1);
	assert_int_equal(mxt_wait(b, &r).xfer_length, sizeof(out));
	assert_memory_equal(in, out, sizeof(out));
	/* A large message is striped: both of a's ports carry its data. */
	{
		enum { BIG = 4 << 20 };
		uint8_t *bo = malloc(BIG), *bi = malloc(BIG);
		unsigned long tx0 = q[0].tx_frames, tx1 = q[1].tx_frames;

		mxt_pattern(bo, BIG, 8);
		r = mxt_recv(b, bi, BIG, 2, MX_MATCH_MASK_NONE);
		mxt_send_ok(a, ab, bo, BIG, 2);
		assert_int_equal(mxt_wait(b, &r).xfer_length, BIG);
		assert_memory_equal(bi, bo, BIG);
		assert_true(q[0].tx_frames - tx0 > 1000);
		assert_true(q[1].tx_frames - tx1 > 1000);
		/* Both ports answered: neither is blamed, although the sender
		 * reads port 0's PULLs before port 1's and so answers some
		 * asked later first. */
		assert_int_equal(b->board->counters[MXD_C_PORT_SUSPECT], 0);
		/* Messages of one block (some 60 frames) alternate over the
		 * ports: each pull starts one port on from the last. */
		tx0 = q[0].tx_frames;
		tx1 = q[1].tx_frames;
		for (uint32_t k = 0; k < 4; k++) {
			r = mxt_recv(b, bi, 80000, 2, MX_MATCH_MASK_NONE);
			mxt_send_ok(a, ab, bo, 80000, 2);
			assert_int_equal(mxt_wait(b, &r).xfer_length, 80000);
		}
		assert_memory_equal(bi, bo, 80000);
		assert_true(q[0].tx_frames - tx0 > 100);
		assert_true(q[1].tx_frames - tx1 > 100);
		/* A port that loses everything with its link up is suspected
		 * and the transfer completes by the other. */
		q[1].lose = 1;
		memset(bi, 0, BIG);
		r = mxt_recv(b, bi, BIG, 2, MX_MATCH_MASK_NONE);
		mxt_send_ok(a, ab, bo, BIG, 2);
		assert_int_equal(mxt_wait(b, &r).xfer_length, BIG);
		assert_memory_equal(bi, bo, BIG);
		assert_true(b->board->counters[MXD_C_PORT_SUSPECT] > 0);
		q[1].lose = 0;
		/* A sender that goes quiet (descheduled) is asked again, but
		 * no port is blamed: it was silent on every port. */
		{
			uint64_t suspect = b->board->counters[MXD_C_PORT_SUSPECT];
			uint64_t repulls = b->board->counters[MXD_C_REPULLS];
			mx_segment_t seg = { bo, BIG };
			mx_request_t s;
			uint64_t t0;

			r = mxt_recv(b, bi, BIG, 3, MX_MATCH_MASK_NONE);
			assert_int_equal(mx_isend(a, &seg, 1, ab, 3, NULL, &s),
					MX_SUCCESS);
			/* Until b pulls; from then on nothing of a's leaves
			 * (either port): a quiet peer, not a lost port. */
			for (int i = 0; i < 1000 && !pulling(b); i++)
				mx_progress(b);
			assert_true(pulling(b));
			q[0].up = q[1].up = 0;
			/* Past the pull timeout (at most MX_RTO_MAX_MS). */
			t0 = mxd_now_ns();
			while (mxd_now_ns() - t0 < 1000000000ull &&
					b->board->counters[MXD_C_REPULLS] <
					repulls + 2)
				mx_progress(b);
			assert_true(b->board->counters[MXD_C_REPULLS] > repulls);
			assert_int_equal(b->board->counters[MXD_C_PORT_SUSPECT],
					suspect);
			q[0].up = q[1].up = 1;
			assert_int_equal(mxt_wait(b, &r).xfer_length, BIG);
			assert_int_equal(mxt_wait(a, &s).code, MX_STATUS_SUCCESS);
			assert_memory_equal(bi, bo, BIG);
		}
		free(bo);
		free(bi);
	}
}

static void
bad_board_specs(void **state)
{
	const char *bad[] = { "0+0", "5", "0,,1", "a", "0+1+", "0;1" };

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (start_with(bad[i], NULL, 4) != -MX_BAD_PARAM_VAL)
			fail_msg("MX_BOARDS=\"%s\" was accepted", bad[i]);
	}
	assert_int_equal(start_with("1,0", NULL, 2), 0);
	mx_finalize();
}

static void
peers_file(void **state)
{
	char path[] = "/tmp/mxd-peers.XXXXXX";
	int fd = mkstemp(path);
	char name[MX_MAX_HOSTNAME_LEN];
	uint64_t nic;
	FILE *f = fdopen(fd, "w");

	(void)state;
	fprintf(f, "# name mac\n\nfar:0 02:aa:bb:cc:dd:01\n"
			"far:1\t02:aa:bb:cc:dd:02\n");
	fclose(f);
	assert_int_equal(start_with(NULL, path, 2), 0);
	assert_int_equal(mx_hostname_to_nic_id((char *)"far:1", &nic),
			MX_SUCCESS);
	assert_true(nic == 0x02aabbccdd02ull);
	assert_int_equal(mx_nic_id_to_hostname(0x02aabbccdd01ull, name),
			MX_SUCCESS);
	assert_string_equal(name, "far:0");
	{
		uint64_t pn;
		char pname[MX_MAX_HOSTNAME_LEN];
		int seen = 0;

		for (uint32_t i = 0; mx_dpdk_get_peer(i, &pn, pname) ==
				MX_SUCCESS; i++)
			seen += !strcmp(pname, "far:1") && pn == 0x02aabbccdd02ull;
		assert_int_equal(seen, 1);
	}
	mx_finalize();
	f = fopen(path, "w");
	fprintf(f, "far:0 not-a-mac\n");
	fclose(f);
	assert_int_equal(start_with(NULL, path, 2), -MX_BAD_PARAM_VAL);
	assert_int_equal(start_with(NULL, "/nonexistent/peers", 2),
			-MX_BAD_PARAM_VAL);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(status_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(every_size_to_eager_max, setup,
				teardown),
		cmocka_unit_test_setup_teardown(posted_order_and_masks, setup,
				teardown),
		cmocka_unit_test_setup_teardown(bad_mask_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(unexpected_in_order, setup,
				teardown),
		cmocka_unit_test_setup_teardown(truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(scatter_gather, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(context_id_masks, setup,
				teardown),
		cmocka_unit_test_setup_teardown(cancel_and_states, setup,
				teardown),
		cmocka_unit_test_setup_teardown(peek_and_wait_timeout, setup,
				teardown),
		cmocka_unit_test_setup_teardown(connect_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(loopback_same_board, setup,
				teardown),
		cmocka_unit_test_setup_teardown(error_handlers, setup, teardown),
		cmocka_unit_test_setup_teardown(names_and_boards, setup,
				teardown),
		cmocka_unit_test_setup_teardown(window_full_then_drains, setup,
				teardown),
		cmocka_unit_test_setup_teardown(hostile_frames_counted, setup,
				teardown),
		cmocka_unit_test_setup_teardown(reordered_delivery, setup,
				teardown),
		cmocka_unit_test_setup_teardown(large_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(mtu_partners_agree, setup_mtu,
				teardown),
		cmocka_unit_test_setup_teardown(mtu_said_at_connect, setup_mtu,
				teardown),
		cmocka_unit_test_setup_teardown(mtu_too_long_dropped, setup_mtu,
				teardown),
		cmocka_unit_test_setup_teardown(large_truncated_scattered_sync,
				setup, teardown),
		cmocka_unit_test_setup_teardown(forged_pulls_refused, setup,
				teardown),
		cmocka_unit_test_setup_teardown(forged_connects_leave_room,
				setup, teardown),
		cmocka_unit_test_setup_teardown(failed_connects_leave_room,
				setup, teardown),
		cmocka_unit_test_setup_teardown(pulls_past_the_table_wait,
				setup_rndv_only, teardown),
		cmocka_unit_test_setup_teardown(large_send_failures, setup,
				teardown),
		cmocka_unit_test_setup_teardown(pull_jobs_outlive_their_send,
				setup, teardown),
		cmocka_unit_test_setup_teardown(isend_complete_once_copied, setup,
				teardown),
		cmocka_unit_test_setup_teardown(queued_isend_completes_when_copied,
				setup,
				teardown),
		cmocka_unit_test_setup_teardown(issend_waits_for_match, setup,
				teardown),
		cmocka_unit_test_setup_teardown(send_to_closed_endpoint, setup,
				teardown),
		cmocka_unit_test_setup_teardown(send_with_wrong_filter, setup,
				teardown),
		cmocka_unit_test_setup_teardown(test_any_wait_any_forget, setup,
				teardown),
		cmocka_unit_test_setup_teardown(addr_context_and_decompose2,
				setup, teardown),
		cmocka_unit_test_setup_teardown(iconnect_statuses, setup,
				teardown),
		cmocka_unit_test_setup_teardown(disconnect_then_reconnect, setup,
				teardown),
		cmocka_unit_test_setup_teardown(send_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(unexpected_handler, setup,
				teardown),
		cmocka_unit_test_setup_teardown(progression_paused, setup,
				teardown),
		cmocka_unit_test_setup_teardown(unexpected_queue_limit, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_in_order, setup,
				teardown),
		cmocka_unit_test_setup_teardown(lone_message_not_packed, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_unexpected, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_mixed_sizes, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_issend_matched, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_notice_between, setup,
				teardown),
		cmocka_unit_test_setup_teardown(no_malloc_small_path, setup,
				teardown),
		cmocka_unit_test_setup_teardown(no_resources_when_memory_fails,
				setup, teardown),
		cmocka_unit_test_setup_teardown(pull_waits_for_memory, setup,
				teardown),
		cmocka_unit_test_teardown(two_port_boards, teardown_multi),
		cmocka_unit_test_teardown(bad_board_specs, teardown_multi),
		cmocka_unit_test_teardown(peers_file, teardown_multi),
	};

	return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}
