/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Portals header on the wire (proto/portals_wire.h): each kind round
 * trips with the words its flags say, at their offsets in network order,
 * a header padded for a rendezvous parses as one, and a table of
 * malformed headers is refused, each for its reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "portals_wire.h"

/* A put with every word a put takes. */
static const struct mxd_ptl_hdr put = {
	.kind = MXD_PTL_PUT, .flags = MXD_PTL_F_ACK_REQ,
	.pt_index = 0x0102, .src_uid = 1000, .src_jid = 0x55,
	.ac_index = 3, .match_bits = 0x1122334455667788ull,
	.offset = 0x99, .hdr_data = 0xfeedfacecafebeefull,
	.rlength = 100, .md_handle = 0x3000000100000005ull,
	.op_cookie = 0x0000000200000009ull, .link = 0xabcdef,
};

/* Encodes h, parses it back as a message with 'body' bytes of data, and
 * checks the length both say. */
static void
trip(const struct mxd_ptl_hdr *h, uint64_t body, uint32_t want_len,
		uint8_t *b, struct mxd_ptl_hdr *out)
{
	uint32_t hl = mxd_ptl_wire_encode(b, h);

	assert_int_equal(hl, want_len);
	assert_int_equal(mxd_ptl_wire_len(h), want_len);
	memset(out, 0xa5, sizeof(*out));
	assert_int_equal(mxd_ptl_wire_parse(b, hl, hl + body, 0, out),
			(int)hl);
	assert_int_equal(out->kind, h->kind);
	assert_int_equal(out->src_nid, 0);
	assert_int_equal(out->src_pid, 0);
	assert_int_equal(out->src_uid, h->src_uid);
	assert_int_equal(out->src_jid, h->src_jid);
}

static void
roundtrip_put(void **state)
{
	uint8_t b[MXD_PTL_HLEN_MAX];
	struct mxd_ptl_hdr h = put, out;

	(void)state;
	/* Every word: match, offset, hdr_data, md, link, cookie. */
	trip(&h, 100, MXD_PTL_HFIX + 6 * 8, b, &out);
	assert_int_equal(b[0], 0x21);
	assert_int_equal(b[1], MXD_PTL_F_ACK_REQ | MXD_PTL_F_OFFSET |
			MXD_PTL_F_DATA | MXD_PTL_F_COOKIE);
	/* Big-endian at the documented offsets. */
	assert_int_equal(b[2], 0x01);
	assert_int_equal(b[3], 0x02);
	assert_int_equal(b[7], 1000 & 0xff);
	assert_int_equal(b[11], 0x55);
	assert_int_equal(b[13], 3);
	assert_int_equal(b[16], 0x11);		/* match_bits */
	assert_int_equal(b[23], 0x88);
	assert_int_equal(b[31], 0x99);		/* offset */
	assert_int_equal(b[32], 0xfe);		/* hdr_data */
	assert_int_equal(b[40], 0x30);		/* md_handle */
	assert_int_equal(b[51], 0xef);		/* link, upper half */
	assert_int_equal(b[55], 0);		/* and its zero half */
	assert_int_equal(b[63], 0x09);		/* op_cookie */
	assert_int_equal(out.flags, b[1]);
	assert_int_equal(out.pt_index, put.pt_index);
	assert_int_equal(out.ac_index, put.ac_index);
	assert_int_equal(out.match_bits, put.match_bits);
	assert_int_equal(out.offset, put.offset);
	assert_int_equal(out.hdr_data, put.hdr_data);
	assert_int_equal(out.rlength, 100);	/* the data's length */
	assert_int_equal(out.mlength, 0);
	assert_int_equal(out.md_handle, put.md_handle);
	assert_int_equal(out.link, put.link);
	assert_int_equal(out.op_cookie, put.op_cookie);

	/* The smallest: no ACK asked, no offset, no hdr_data. */
	h.flags = 0;
	h.offset = 0;
	h.hdr_data = 0;
	trip(&h, 8, MXD_PTL_HFIX + 8, b, &out);
	assert_int_equal(b[1], 0);
	assert_int_equal(out.md_handle, 0);
	assert_int_equal(out.link, 0);
	assert_int_equal(out.op_cookie, 0);	/* not sent without ACK_REQ */
	assert_int_equal(out.rlength, 8);
	/* With hdr_data: one word more. */
	h.hdr_data = 7;
	trip(&h, 8, MXD_PTL_HFIX + 16, b, &out);
	assert_int_equal(out.hdr_data, 7);
	/* An index beyond 16 bits goes as 0xffff. */
	h.pt_index = 70000;
	h.ac_index = 0x10000;
	trip(&h, 8, MXD_PTL_HFIX + 16, b, &out);
	assert_int_equal(out.pt_index, MXD_PTL_INDEX_BEYOND);
	assert_int_equal(out.ac_index, MXD_PTL_INDEX_BEYOND);
}

static void
roundtrip_others(void **state)
{
	uint8_t b[MXD_PTL_HLEN_MAX];
	struct mxd_ptl_hdr h = put, out;

	(void)state;
	/* GET: match, rlength, cookie, and the offset if any. */
	h.kind = MXD_PTL_GET;
	h.flags = 0;
	h.hdr_data = 0;
	h.offset = 0;
	trip(&h, 0, MXD_PTL_HFIX + 24, b, &out);
	assert_int_equal(out.rlength, 100);
	assert_int_equal(out.op_cookie, put.op_cookie);
	assert_int_equal(out.md_handle, 0);
	h.offset = 5;
	trip(&h, 0, MXD_PTL_HFIX + 32, b, &out);
	assert_int_equal(out.offset, 5);

	/* ACK: every word but hdr_data, the longest header. */
	h.kind = MXD_PTL_ACK;
	h.ac_index = 0;
	h.mlength = 60;
	trip(&h, 0, MXD_PTL_HLEN_MAX, b, &out);
	assert_int_equal(out.pt_index, put.pt_index);
	assert_int_equal(out.match_bits, put.match_bits);
	assert_int_equal(out.rlength, 100);
	assert_int_equal(out.mlength, 60);
	assert_int_equal(out.offset, 5);
	assert_int_equal(out.md_handle, put.md_handle);
	assert_int_equal(out.link, put.link);
	assert_int_equal(out.op_cookie, put.op_cookie);
	/* Of a put that carried no cookie, at no offset. */
	h.op_cookie = 0;
	h.offset = 0;
	trip(&h, 0, MXD_PTL_HFIX + 40, b, &out);
	assert_int_equal(out.op_cookie, 0);

	/* REPLY: its cookie alone; mlength is its data's. */
	h = put;
	h.kind = MXD_PTL_REPLY;
	h.flags = 0;
	h.pt_index = 0;
	h.ac_index = 0;
	trip(&h, 40, MXD_PTL_HFIX + 8, b, &out);
	assert_int_equal(out.op_cookie, put.op_cookie);
	assert_int_equal(out.mlength, 40);
	assert_int_equal(out.match_bits, 0);
	h.flags = MXD_PTL_F_DROPPED;
	trip(&h, 0, MXD_PTL_HFIX + 8, b, &out);
	assert_int_equal(out.flags, MXD_PTL_F_DROPPED);
}

/* A header padded to MXD_PTL_HEAD bytes (a rendezvous's): the data
 * starts there; a byte of the padding not zero is refused. */
static void
padded(void **state)
{
	uint8_t b[MXD_PTL_HEAD] = { 0 };
	struct mxd_ptl_hdr h = put, out;
	uint32_t hl;

	(void)state;
	hl = mxd_ptl_wire_encode(b, &h);
	assert_true(hl < MXD_PTL_HEAD);
	assert_int_equal(mxd_ptl_wire_parse(b, sizeof(b), MXD_PTL_HEAD + 5000,
			1, &out), MXD_PTL_HEAD);
	assert_int_equal(out.rlength, 5000);
	assert_int_equal(out.hdr_data, put.hdr_data);
	assert_int_equal(mxd_ptl_wire_parse(b, hl, MXD_PTL_HEAD + 5000, 1,
			&out), -MXD_PTL_BAD_SHORT);
	b[MXD_PTL_HEAD - 1] = 1;
	assert_int_equal(mxd_ptl_wire_parse(b, sizeof(b), MXD_PTL_HEAD + 5000,
			1, &out), -MXD_PTL_BAD_PAD);
}

/* A header of kind 'kind' (the put's fields), changed at one byte, and
 * what parsing it says. */
struct bad {
	const char *what;
	uint8_t kind;		/* 0: put's */
	uint8_t flags;		/* h.flags */
	uint64_t mlength;
	int byte;		/* -1: none */
	uint8_t value;
	int64_t body;		/* the data's length */
	int64_t avail_delta;	/* bytes at hand past the header's */
	int want;		/* 1: the header's length */
};

static const struct bad bads[] = {
	{ "fine", 0, 1, 0, -1, 0, 100, 0, 1 },
	{ "shorter than the fixed part", 0, 1, 0, -1, 0, 100, -64 + 15,
		-MXD_PTL_BAD_SHORT },
	{ "shorter than its words", 0, 1, 0, -1, 0, 100, -1,
		-MXD_PTL_BAD_SHORT },
	{ "message shorter than its header", 0, 1, 0, -1, 0, -1, 0,
		-MXD_PTL_BAD_SHORT },
	{ "version 1", 0, 1, 0, 0, 0x11, 100, 0, -MXD_PTL_BAD_VERSION },
	{ "kind 0", 0, 1, 0, 0, 0x20, 100, 0, -MXD_PTL_BAD_KIND },
	{ "kind 5", 0, 1, 0, 0, 0x25, 100, 0, -MXD_PTL_BAD_KIND },
	{ "pad", 0, 1, 0, 15, 1, 100, 0, -MXD_PTL_BAD_PAD },
	{ "link's zero half", 0, 1, 0, 55, 1, 100, 0, -MXD_PTL_BAD_PAD },
	{ "DROPPED on a put", 0, 1, 0, 1, 0x1d | MXD_PTL_F_DROPPED, 100, 0,
		-MXD_PTL_BAD_FLAGS },
	{ "unknown flag", 0, 1, 0, 1, 0x9d, 100, 0, -MXD_PTL_BAD_FLAGS },
	{ "COOKIE without ACK_REQ", 0, 1, 0, 1, MXD_PTL_F_COOKIE |
		MXD_PTL_F_OFFSET | MXD_PTL_F_DATA, 100, 0,
		-MXD_PTL_BAD_FLAGS },
	{ "get", MXD_PTL_GET, 0, 0, -1, 0, 0, 0, 1 },
	{ "get with a body", MXD_PTL_GET, 0, 0, -1, 0, 1, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "DATA on a get", MXD_PTL_GET, 0, 0, 1, MXD_PTL_F_OFFSET |
		MXD_PTL_F_DATA, 0, 0, -MXD_PTL_BAD_FLAGS },
	{ "ack", MXD_PTL_ACK, 0, 10, -1, 0, 0, 0, 1 },
	{ "ack with a cookie index", MXD_PTL_ACK, 0, 10, 13, 3, 0, 0,
		-MXD_PTL_BAD_PAD },
	{ "ack mlength > rlength", MXD_PTL_ACK, 0, 101, -1, 0, 0, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "ack with a body", MXD_PTL_ACK, 0, 10, -1, 0, 4, 0,
		-MXD_PTL_BAD_LENGTH },
	{ "ACK_REQ on an ack", MXD_PTL_ACK, 0, 10, 1, MXD_PTL_F_ACK_REQ |
		MXD_PTL_F_OFFSET | MXD_PTL_F_COOKIE, 0, 0,
		-MXD_PTL_BAD_FLAGS },
	{ "reply", MXD_PTL_REPLY, 0, 0, -1, 0, 90, 0, 1 },
	{ "reply with a portal", MXD_PTL_REPLY, 0, 0, 3, 1, 90, 0,
		-MXD_PTL_BAD_PAD },
	{ "reply dropped", MXD_PTL_REPLY, MXD_PTL_F_DROPPED, 0, -1, 0, 0, 0,
		1 },
	{ "reply dropped with data", MXD_PTL_REPLY, MXD_PTL_F_DROPPED, 0, -1,
		0, 4, 0, -MXD_PTL_BAD_LENGTH },
};

static void
validation_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *t = &bads[i];
		struct mxd_ptl_hdr h = put, out;
		uint8_t b[MXD_PTL_HLEN_MAX];
		uint32_t hl;
		int rc, want;

		if (t->kind) {
			h.kind = t->kind;
			h.hdr_data = 0;
		}
		if (h.kind == MXD_PTL_REPLY)
			h.pt_index = 0;
		if (h.kind != MXD_PTL_PUT && h.kind != MXD_PTL_GET)
			h.ac_index = 0;
		h.flags = t->flags;
		h.mlength = t->mlength;
		hl = mxd_ptl_wire_encode(b, &h);
		if (t->byte >= 0)
			b[t->byte] = t->value;
		rc = mxd_ptl_wire_parse(b, (size_t)((int64_t)hl +
					t->avail_delta),
				(uint64_t)((int64_t)hl + t->body), 0, &out);
		want = t->want == 1 ? (int)hl : t->want;
		if (rc != want)
			fail_msg("%s: %d, wanted %d", t->what, rc, want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip_put),
		cmocka_unit_test(roundtrip_others),
		cmocka_unit_test(padded),
		cmocka_unit_test(validation_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
