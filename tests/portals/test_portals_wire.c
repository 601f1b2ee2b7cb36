/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals header on the wire (proto/portals_wire.h): every field
 * round trips at its offset in network order, and a table of malformed
 * headers is refused, each for its reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "portals_wire.h"

static const struct mxd_ptl_hdr put = {
	.kind = MXD_PTL_PUT, .flags = MXD_PTL_F_ACK_REQ,
	.pt_index = 0x01020304, .src_nid = 0x0000a0b0c0d0e0f0ull,
	.src_pid = 7, .src_uid = 1000, .src_jid = 0x55,
	.ac_index = 3, .match_bits = 0x1122334455667788ull,
	.offset = 0x99, .hdr_data = 0xfeedfacecafebeefull,
	.rlength = 100, .mlength = 0, .md_handle = 0x3000000100000005ull,
	.op_cookie = 0x0000000200000009ull, .link = 0xabcdef,
};

static void
roundtrip(void **state)
{
	uint8_t b[MXD_PTL_HLEN];
	struct mxd_ptl_hdr h;

	(void)state;
	memset(&h, 0, sizeof(h));	/* its padding, compared below */
	mxd_ptl_wire_encode(b, &put);
	assert_int_equal(b[0], MXD_PTL_WIRE_VERSION);
	assert_int_equal(b[1], MXD_PTL_PUT);
	assert_int_equal(b[2], MXD_PTL_F_ACK_REQ);
	/* Big-endian at the documented offsets. */
	assert_int_equal(b[4], 0x01);
	assert_int_equal(b[7], 0x04);
	assert_int_equal(b[8 + 2], 0xa0);
	assert_int_equal(b[15], 0xf0);
	assert_int_equal(b[32], 0x11);
	assert_int_equal(b[39], 0x88);
	assert_int_equal(b[72], 0x30);
	assert_int_equal(b[91], 0xef);
	assert_int_equal(mxd_ptl_wire_parse(b, sizeof(b), MXD_PTL_HLEN + 100,
			&h), 0);
	assert_memory_equal(&h, &put, offsetof(struct mxd_ptl_hdr, link));
	assert_int_equal(h.link, put.link);
	assert_int_equal(h.op_cookie, put.op_cookie);
}

/* A header changed by 'edit', and what parsing it says. */
struct bad {
	const char *what;
	int byte;		/* -1: none */
	uint8_t value;
	uint8_t kind;		/* else: put's */
	uint64_t mlength, hdr_data;
	uint32_t ac_index;
	uint8_t flags;
	int64_t msg_delta;	/* message length past the right one */
	size_t avail;		/* 0: the whole header */
	int want;
};

static const struct bad bads[] = {
	{ "fine", -1, 0, 0, 0, 0, 3, 1, 0, 0, 0 },
	{ "short buffer", -1, 0, 0, 0, 0, 3, 1, 0, 95, -MXD_PTL_BAD_SHORT },
	{ "version 2", 0, 2, 0, 0, 0, 3, 1, 0, 0, -MXD_PTL_BAD_VERSION },
	{ "kind 0", 1, 0, 0, 0, 0, 3, 1, 0, 0, -MXD_PTL_BAD_KIND },
	{ "kind 5", 1, 5, 0, 0, 0, 3, 1, 0, 0, -MXD_PTL_BAD_KIND },
	{ "pad0", 3, 1, 0, 0, 0, 3, 1, 0, 0, -MXD_PTL_BAD_PAD },
	{ "pad1", 95, 1, 0, 0, 0, 3, 1, 0, 0, -MXD_PTL_BAD_PAD },
	{ "DROPPED on a put", -1, 0, 0, 0, 0, 3, MXD_PTL_F_DROPPED, 0, 0,
		-MXD_PTL_BAD_FLAGS },
	{ "unknown flag", -1, 0, 0, 0, 0, 3, 0x80, 0, 0, -MXD_PTL_BAD_FLAGS },
	{ "put with mlength", -1, 0, 0, 5, 0, 3, 1, 0, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "put body short", -1, 0, 0, 0, 0, 3, 1, -1, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "put body long", -1, 0, 0, 0, 0, 3, 1, 1, 0, -MXD_PTL_BAD_LENGTH },
	{ "get with a body", -1, 0, MXD_PTL_GET, 0, 0, 3, 0, 0, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "get with hdr_data", -1, 0, MXD_PTL_GET, 0, 9, 3, 0, -100, 0,
		-MXD_PTL_BAD_PAD },
	{ "get", -1, 0, MXD_PTL_GET, 0, 0, 3, 0, -100, 0, 0 },
	{ "ack with a cookie", -1, 0, MXD_PTL_ACK, 10, 0, 3, 0, -100, 0,
		-MXD_PTL_BAD_PAD },
	{ "ack", -1, 0, MXD_PTL_ACK, 10, 0, 0, 0, -100, 0, 0 },
	{ "ack mlength > rlength", -1, 0, MXD_PTL_ACK, 101, 0, 0, 0, -100, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "ACK_REQ on an ack", -1, 0, MXD_PTL_ACK, 10, 0, 0, 1, -100, 0,
		-MXD_PTL_BAD_FLAGS },
	{ "reply", -1, 0, MXD_PTL_REPLY, 10, 0, 0, 0, -90, 0, 0 },
	{ "reply body != mlength", -1, 0, MXD_PTL_REPLY, 10, 0, 0, 0, -100, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "reply dropped", -1, 0, MXD_PTL_REPLY, 0, 0, 0, MXD_PTL_F_DROPPED,
		-100, 0, 0 },
	{ "reply dropped with data", -1, 0, MXD_PTL_REPLY, 4, 0, 0,
		MXD_PTL_F_DROPPED, -96, 0, -MXD_PTL_BAD_LENGTH },
};

static void
validation_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *t = &bads[i];
		struct mxd_ptl_hdr h = put, out;
		uint8_t b[MXD_PTL_HLEN];
		uint64_t msg;
		int rc;

		if (t->kind)
			h.kind = t->kind;
		h.mlength = t->mlength;
		h.hdr_data = h.kind == MXD_PTL_PUT ? put.hdr_data : t->hdr_data;
		h.ac_index = t->ac_index;
		h.flags = t->flags;
		mxd_ptl_wire_encode(b, &h);
		if (t->byte >= 0)
			b[t->byte] = t->value;
		msg = (uint64_t)((int64_t)MXD_PTL_HLEN + 100 + t->msg_delta);
		rc = mxd_ptl_wire_parse(b, t->avail ? t->avail : sizeof(b),
				msg, &out);
		if (rc != t->want)
			fail_msg("%s: %d, wanted %d", t->what, rc, t->want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip),
		cmocka_unit_test(validation_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
