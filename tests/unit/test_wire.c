/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire format: encode/decode round trips and the validation table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "wire.h"
#include "csum.h"

static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 2 };

static const struct mxd_hdr_args args = {
	.type = MXD_T_EAGER, .flags = MXD_F_ACK_VALID, .epoch = 0xa5,
	.src_ep = 3, .dst_ep = 7, .dst_peer = 0x1234, .src_peer = 0x4321,
	.filter = 0xdeadbeef, .src_session = 0x11223344,
	.dst_session = 0x55667788, .ack = 0xfffffffe,
};

/* Builds an eager fragment frame; returns its length. */
static size_t
eager_frame(uint8_t *f, uint32_t msg_len, uint16_t frag_max, uint8_t idx)
{
	uint32_t off = (uint32_t)idx * frag_max, len = msg_len - off;
	size_t n;

	if (len > frag_max)
		len = frag_max;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &args,
			(uint16_t)(sizeof(struct mxd_eager_hdr) + len));
	n += mxd_wire_put_eager(f + n, 42, msg_len, 0x0123456789abcdefull,
			frag_max, idx);
	for (uint32_t i = 0; i < len; i++)
		f[n + i] = (uint8_t)(off + i);
	mxd_wire_seal(f);
	return n + len;
}

static void
eager_roundtrip(void **state)
{
	uint8_t f[2048];
	struct mxd_pkt pkt;
	size_t n = eager_frame(f, 3000, 1400, 2);

	(void)state;
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_int_equal(pkt.h.type, MXD_T_EAGER);
	assert_int_equal(pkt.h.epoch, 0xa5);
	assert_int_equal(f[MXD_ETH_HLEN + 3], 0xa5);	/* byte 3 */
	assert_int_equal(pkt.h.src_ep, 3);
	assert_int_equal(pkt.h.dst_ep, 7);
	assert_int_equal(pkt.h.dst_peer, 0x1234);
	assert_int_equal(pkt.h.src_peer, 0x4321);
	assert_int_equal(pkt.h.filter, 0xdeadbeef);
	assert_int_equal(pkt.h.src_session, 0x11223344);
	assert_int_equal(pkt.h.dst_session, 0x55667788);
	assert_int_equal(pkt.h.ack, 0xfffffffe);
	assert_int_equal(pkt.u.eager.seq, 42);
	assert_int_equal(pkt.u.eager.msg_len, 3000);
	assert_true(pkt.u.eager.match == 0x0123456789abcdefull);
	assert_int_equal(pkt.u.eager.frag_idx, 2);
	assert_int_equal(pkt.u.eager.frag_count, 3);
	assert_int_equal(pkt.u.eager.frag_off, 2800);
	assert_int_equal(pkt.u.eager.frag_len, 200);
	assert_int_equal(pkt.payload[0], (uint8_t)2800);
	assert_memory_equal(pkt.eth->src, mac_a, 6);
}

/* A rendezvous descriptor comes whole in one fragment: split (as a
 * partner's tiny MTU could make it, or a hostile peer), it is dropped
 * before the receiver reads 16 bytes from a shorter payload. */
static void
rndv_descriptor_in_one_fragment(void **state)
{
	uint8_t f[256];
	struct mxd_pkt pkt;
	size_t n;

	(void)state;
	n = eager_frame(f, sizeof(struct mxd_rndv_desc), 16, 0);
	mxd_wire_put_rndv(f + n - 16, 100000, 7, 1400, 0);
	mxd_wire_add_flags(f, MXD_F_RNDV);
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_int_equal(pkt.u.eager.frag_len, 16);
	for (uint8_t idx = 0; idx < 2; idx++) {
		n = eager_frame(f, sizeof(struct mxd_rndv_desc), 12, idx);
		mxd_wire_add_flags(f, MXD_F_RNDV);
		mxd_wire_seal(f);
		assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_FRAG);
	}
}

/* A face's descriptor brings the message's first 'head' bytes after it
 * (16 + head bytes in all, head at most MXD_RNDV_HEAD_MAX and within the
 * message); any other length is refused. */
static void
rndv_descriptor_head(void **state)
{
	static const struct {
		uint32_t msg_len, total, head;
		enum mxd_drop want;
	} t[] = {
		{ 16 + 96, 100000, 96, MXD_DROP_NONE },
		{ 16 + MXD_RNDV_HEAD_MAX, 100000, MXD_RNDV_HEAD_MAX,
			MXD_DROP_NONE },
		{ 16 + 96, 96, 96, MXD_DROP_NONE },	/* all head */
		{ 16 + 96, 95, 96, MXD_DROP_LENGTH },	/* beyond the message */
		{ 16 + 95, 100000, 96, MXD_DROP_LENGTH },
		{ 16 + 97, 100000, 96, MXD_DROP_LENGTH },
		{ 16, 100000, 96, MXD_DROP_LENGTH },
		{ 16 + 120, 100000, 120, MXD_DROP_LENGTH },	/* too long */
		{ 12, 100000, 0, MXD_DROP_LENGTH },
	};
	uint8_t f[512];
	struct mxd_pkt pkt;
	struct mxd_rndv_desc d;

	(void)state;
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t n = eager_frame(f, t[i].msg_len, 1400, 0);

		if (t[i].msg_len >= 16)
			mxd_wire_put_rndv(f + n - t[i].msg_len, t[i].total, 9,
					1400, (uint16_t)t[i].head);
		mxd_wire_add_flags(f, MXD_F_RNDV);
		mxd_wire_seal(f);
		assert_int_equal(mxd_wire_parse(f, n, &pkt), t[i].want);
		if (t[i].want != MXD_DROP_NONE)
			continue;
		mxd_wire_get_rndv(pkt.payload, &d);
		assert_int_equal(d.head, t[i].head);
		assert_int_equal(d.total_len, t[i].total);
	}
}

static void
padded_frame_ok(void **state)
{
	uint8_t f[128] = { 0 };
	struct mxd_pkt pkt;
	size_t n = eager_frame(f, 0, 1400, 0);

	(void)state;
	/* Ethernet pads short frames: trailing bytes must be ignored. */
	assert_true(n < 80);
	assert_int_equal(mxd_wire_parse(f, 80, &pkt), MXD_DROP_NONE);
	assert_int_equal(pkt.u.eager.frag_len, 0);
}

static void
conn_and_disc_roundtrip(void **state)
{
	uint8_t f[512];
	struct mxd_pkt pkt;
	struct mxd_hdr_args a = args;
	size_t n;

	(void)state;
	a.type = MXD_T_CONN_REP;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, sizeof(struct mxd_conn_hdr));
	n += mxd_wire_put_conn(f + n, 0x020000000001ull, 0x020000000002ull,
			77, 0xabcd, MXD_CONN_BAD_KEY, 0x01020304, 9000,
			MXD_CAP_PACK);
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_true(pkt.u.conn.src_nic == 0x020000000001ull);
	assert_int_equal(pkt.u.conn.conn_id, 77);
	assert_int_equal(pkt.u.conn.src_filter, 0xabcd);
	assert_int_equal(pkt.u.conn.status, MXD_CONN_BAD_KEY);
	assert_int_equal(pkt.u.conn.epoch, 0x01020304);
	assert_true(pkt.u.conn.dst_nic == 0x020000000002ull);
	assert_int_equal(pkt.u.conn.mtu, 9000);
	/* The MTU is at offset 18 of the conn header, big-endian, where
	 * the first version-2 senders put zero padding: 0 reads "not said";
	 * so are the capabilities at 17 (0: no PACK frames to it). */
	assert_int_equal(pkt.u.conn.caps, MXD_CAP_PACK);
	assert_int_equal(f[MXD_HDRS_LEN + 17], MXD_CAP_PACK);
	assert_int_equal(f[MXD_HDRS_LEN + 18], 9000 >> 8);
	assert_int_equal(f[MXD_HDRS_LEN + 19], 9000 & 0xff);
	f[MXD_HDRS_LEN + 18] = f[MXD_HDRS_LEN + 19] = 0;
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_int_equal(pkt.u.conn.mtu, 0);
	assert_int_equal(pkt.u.conn.epoch, 0x01020304);
	assert_int_equal(pkt.u.conn.slot, 0);
	/* A shared board's slot: its low nibble in caps, bits 4 and 5 in
	 * the mtu field's two high bits, the MTU below them. */
	for (unsigned slot = 0; slot <= 33; slot += 11) {
		n = mxd_wire_put_hdr(f, mac_b, mac_a, &a,
				sizeof(struct mxd_conn_hdr));
		n += mxd_wire_put_conn(f + n, 1, 2, 3, 4, MXD_CONN_OK, 5,
				mxd_conn_mtu(9000, slot), MXD_CAP_PACK |
				mxd_caps_of_slot(slot, 1));
		mxd_wire_seal(f);
		assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
		assert_int_equal(pkt.u.conn.mtu, 9000);
		assert_int_equal(pkt.u.conn.slot, slot);
		assert_true(pkt.u.conn.caps & MXD_CAP_PACK);
	}

	a.type = MXD_T_DISCOVER;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, sizeof(struct mxd_disc_hdr));
	n += mxd_wire_put_disc(f + n, 99, 1, "hostA:0", "hostB:1");
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_true(pkt.u.disc.src_nic == 99);
	assert_int_equal(pkt.u.disc.query, 1);
	assert_string_equal(pkt.u.disc.name, "hostA:0");
	assert_string_equal(pkt.u.disc.want, "hostB:1");
}

static void
unterminated_names_are_cut(void **state)
{
	uint8_t f[512];
	struct mxd_pkt pkt;
	struct mxd_hdr_args a = args;
	size_t n;

	(void)state;
	a.type = MXD_T_DISCOVER;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, sizeof(struct mxd_disc_hdr));
	mxd_wire_put_disc(f + n, 1, 0, "x", "y");
	memset(f + n + 16, 'A', 2 * MXD_NAME_LEN);	/* no NUL anywhere */
	n += sizeof(struct mxd_disc_hdr);
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_int_equal(strlen(pkt.u.disc.name), MXD_NAME_LEN - 1);
	assert_int_equal(strlen(pkt.u.disc.want), MXD_NAME_LEN - 1);
}

/* Each row damages a valid eager frame and names the expected verdict. */
struct bad_case {
	const char *what;
	size_t off;		/* byte to overwrite */
	int width;		/* 1, 2 or 4 */
	uint32_t value;
	int cut;		/* or: truncate the frame to this length */
	enum mxd_drop want;
};

#define H(o) (MXD_ETH_HLEN + (o))
#define E(o) (MXD_HDRS_LEN + (o))

static const struct bad_case bad_cases[] = {
	{ "too short for ethernet", 0, 0, 0, 10, MXD_DROP_SHORT },
	{ "too short for mx header", 0, 0, 0, 40, MXD_DROP_SHORT },
	{ "foreign ethertype", 12, 2, 0x86dd, 0, MXD_DROP_ETHERTYPE },
	{ "wrong version", H(0), 1, 9, 0, MXD_DROP_VERSION },
	{ "unknown type", H(1), 1, 99, 0, MXD_DROP_TYPE },
	{ "type zero", H(1), 1, 0, 0, MXD_DROP_TYPE },
	{ "length beyond frame", H(10), 2, 4000, 0, MXD_DROP_SHORT },
	{ "length shorter than payload", H(10), 2, 100, 0, MXD_DROP_LENGTH },
	{ "length shorter than eager hdr", H(10), 2, 10, 0, MXD_DROP_LENGTH },
	{ "frame cut inside payload", 0, 0, 0, 200, MXD_DROP_SHORT },
	{ "frag index beyond count", E(20), 1, 3, 0, MXD_DROP_FRAG },
	{ "frag count inconsistent", E(21), 1, 5, 0, MXD_DROP_FRAG },
	{ "frag offset not idx*max", E(16), 4, 1000, 0, MXD_DROP_FRAG },
	{ "frag_max zero", E(22), 2, 0, 0, MXD_DROP_FRAG },
	{ "frag_max changed", E(22), 2, 1000, 0, MXD_DROP_FRAG },
	{ "msg_len enormous", E(4), 4, 0xffffffff, 0, MXD_DROP_FRAG },
	{ "too many fragments", E(4), 4, 65 * 1400, 0, MXD_DROP_FRAG },
	{ "notice with a payload", H(2), 1, 0x09, 0, MXD_DROP_FRAG },
};

static void
validation_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		uint8_t f[2048];
		struct mxd_pkt pkt;
		size_t n = eager_frame(f, 3000, 1400, 1);

		if (c->cut)
			n = (size_t)c->cut;
		else if (c->width == 1)
			f[c->off] = (uint8_t)c->value;
		else if (c->width == 2)
			mxd_put16(f + c->off, (uint16_t)c->value);
		else
			mxd_put32(f + c->off, c->value);
		/* A consistent frame, but wrong inside (the check covers
		 * what the length says, if the buffer holds that much). */
		if (!c->cut && MXD_HDRS_LEN + mxd_get16(f + H(10)) <= sizeof(f))
			mxd_wire_seal(f);
		if (mxd_wire_parse(f, n, &pkt) != c->want)
			fail_msg("case '%s': got %s, want %s", c->what,
					mxd_drop_name(mxd_wire_parse(f, n, &pkt)),
					mxd_drop_name(c->want));
	}
}

/* ---- PACK frames ------------------------------------------------------- */

/* A PACK frame of three messages: 8 bytes, 3 bytes flagged SYNC, and a
 * notice (MATCHED of message 5); returns its length. */
static size_t
pack_frame(uint8_t *f)
{
	struct mxd_hdr_args a = args;
	uint32_t body = sizeof(struct mxd_pack_hdr) + mxd_pack_rec_size(8) +
		mxd_pack_rec_size(3) + mxd_pack_rec_size(0);
	uint8_t *d;

	a.type = MXD_T_PACK;
	d = f + mxd_wire_put_hdr(f, mac_b, mac_a, &a, (uint16_t)body);
	d += mxd_wire_put_pack(d, 3);
	d += mxd_wire_put_pack_rec(d, 10, 8, 0, 0x1111);
	memcpy(d, "abcdefgh", 8);
	d += 8 + mxd_wire_pack_pad(d, 8);
	d += mxd_wire_put_pack_rec(d, 11, 3, MXD_F_SYNC, 0x2222);
	memcpy(d, "xyz", 3);
	d += 3 + mxd_wire_pack_pad(d, 3);
	d += mxd_wire_put_pack_rec(d, 12, 0, MXD_F_CTRL,
			(uint64_t)MXD_NOTE_MATCHED << 32 | 5);
	mxd_wire_seal(f);
	return (size_t)(d - f);
}

static void
pack_roundtrip(void **state)
{
	uint8_t f[256];
	struct mxd_pkt pkt, m;
	size_t n = pack_frame(f);
	const uint8_t *r;

	(void)state;
	assert_int_equal(n, MXD_HDRS_LEN + 8 + 24 + 24 + 16);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_int_equal(pkt.h.type, MXD_T_PACK);
	assert_int_equal(pkt.u.pack.count, 3);
	assert_int_equal(pkt.u.pack.first_seq, 10);
	r = mxd_wire_pack_first(&pkt, &m);
	r = mxd_wire_pack_next(r, &m);
	assert_int_equal(m.u.eager.seq, 10);
	assert_int_equal(m.u.eager.msg_len, 8);
	assert_int_equal(m.u.eager.frag_len, 8);
	assert_int_equal(m.u.eager.frag_count, 1);
	assert_true(m.u.eager.match == 0x1111);
	assert_int_equal(m.h.flags, MXD_F_ACK_VALID);
	assert_memory_equal(m.payload, "abcdefgh", 8);
	r = mxd_wire_pack_next(r, &m);
	assert_int_equal(m.u.eager.seq, 11);
	assert_int_equal(m.h.flags, MXD_F_ACK_VALID | MXD_F_SYNC);
	assert_memory_equal(m.payload, "xyz", 3);
	r = mxd_wire_pack_next(r, &m);
	assert_int_equal(m.u.eager.seq, 12);
	assert_int_equal(m.u.eager.msg_len, 0);
	assert_int_equal(m.h.flags, MXD_F_ACK_VALID | MXD_F_CTRL);
	assert_int_equal(m.h.ack, 0xfffffffe);	/* the frame's */
	assert_ptr_equal(r, f + n);
	/* Ethernet padding after the records is not theirs. */
	memset(f + n, 0, 40);
	assert_int_equal(mxd_wire_parse(f, n + 40, &pkt), MXD_DROP_NONE);
}

#define P(o) (MXD_HDRS_LEN + (o))		/* in the pack header */
#define R1(o) (MXD_HDRS_LEN + 8 + (o))		/* in the first record */
#define R2(o) (MXD_HDRS_LEN + 32 + (o))		/* in the second */
#define R3(o) (MXD_HDRS_LEN + 56 + (o))		/* in the notice */

/* Each row damages pack_frame()'s frame (sealed again: a sender's lie,
 * not line noise) and names the verdict. */
static const struct bad_case bad_packs[] = {
	{ "count zero", P(0), 2, 0, 0, MXD_DROP_LENGTH },
	{ "count above the records", P(0), 2, 4, 0, MXD_DROP_LENGTH },
	{ "count below the records", P(0), 2, 2, 0, MXD_DROP_LENGTH },
	{ "count enormous", P(0), 2, 0xffff, 0, MXD_DROP_LENGTH },
	{ "record past the frame", R1(4), 2, 2000, 0, MXD_DROP_LENGTH },
	{ "last record grown", R3(4), 2, 1, 0, MXD_DROP_LENGTH },
	{ "record length shrunk", R2(4), 2, 0, 0, MXD_DROP_LENGTH },
	{ "length cuts a record", H(10), 2, 8 + 24 + 24 + 8, 0,
		MXD_DROP_LENGTH },
	{ "length cuts the pack header", H(10), 2, 4, 0, MXD_DROP_LENGTH },
	{ "bytes after the records", H(10), 2, 8 + 24 + 24 + 16 + 8, 0,
		MXD_DROP_LENGTH },
	{ "same seq twice (overlap)", R2(0), 4, 10, 0, MXD_DROP_FRAG },
	{ "seq going back", R3(0), 4, 9, 0, MXD_DROP_FRAG },
	{ "unknown record flag", R1(6), 1, 0x10, 0, MXD_DROP_FRAG },
	{ "ack flag in a record", R1(6), 1, MXD_F_ACK_VALID, 0,
		MXD_DROP_FRAG },
	{ "rndv of the wrong length", R1(6), 1, MXD_F_RNDV, 0,
		MXD_DROP_LENGTH },
	{ "notice with a payload", R2(6), 1, MXD_F_CTRL, 0, MXD_DROP_FRAG },
	{ "notice of no kind", R3(8), 4, 0, 0, MXD_DROP_FRAG },
	{ "notice flagged sync", R3(6), 1, MXD_F_CTRL | MXD_F_SYNC, 0,
		MXD_DROP_FRAG },
	{ "sync on the frame", H(2), 1, MXD_F_ACK_VALID | MXD_F_SYNC, 0,
		MXD_DROP_FRAG },
	{ "frame cut in a record", 0, 0, 0, MXD_HDRS_LEN + 40,
		MXD_DROP_SHORT },
};

static void
pack_validation_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_packs) / sizeof(bad_packs[0]); i++) {
		const struct bad_case *c = &bad_packs[i];
		uint8_t f[2048] = { 0 };
		struct mxd_pkt pkt;
		size_t n = pack_frame(f);

		if (c->cut)
			n = (size_t)c->cut;
		else if (c->width == 1)
			f[c->off] = (uint8_t)c->value;
		else if (c->width == 2)
			mxd_put16(f + c->off, (uint16_t)c->value);
		else
			mxd_put32(f + c->off, c->value);
		if (!c->cut && MXD_HDRS_LEN + mxd_get16(f + H(10)) <= sizeof(f))
			mxd_wire_seal(f);
		if (c->off == H(10) && !c->cut)
			n = MXD_HDRS_LEN + mxd_get16(f + H(10));
		if (mxd_wire_parse(f, n, &pkt) != c->want)
			fail_msg("case '%s': got %s, want %s", c->what,
					mxd_drop_name(mxd_wire_parse(f, n, &pkt)),
					mxd_drop_name(c->want));
	}
}

/* Every single-bit error of a PACK frame is caught (by its check, or
 * where a bit of the length moves it, by the bounds). */
static void
pack_bit_errors_refused(void **state)
{
	uint8_t good[256], f[256];
	struct mxd_pkt pkt;
	size_t n = pack_frame(good);

	(void)state;
	for (size_t bit = 0; bit < n * 8; bit++) {
		memcpy(f, good, n);
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	}
}

/* The sizes a sender plans with: a record and its data, to 8 bytes. */
static void
pack_record_sizes(void **state)
{
	(void)state;
	assert_int_equal(mxd_pack_rec_size(0), 16);
	assert_int_equal(mxd_pack_rec_size(1), 24);
	assert_int_equal(mxd_pack_rec_size(8), 24);
	assert_int_equal(mxd_pack_rec_size(9), 32);
	assert_int_equal(mxd_pack_rec_size(1400), 16 + 1400);
}

/* Every single-bit error, and many 2- and 3-bit ones, are caught. */
static void
corrupted_frames_refused(void **state)
{
	uint8_t good[2048], f[2048];
	struct mxd_pkt pkt;
	size_t n = eager_frame(good, 3000, 1400, 1);

	(void)state;
	for (size_t bit = 0; bit < n * 8; bit++) {
		memcpy(f, good, n);
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	}
	srand(7);
	for (int i = 0; i < 100000; i++) {
		memcpy(f, good, n);
		for (int k = 0; k < 2 + i % 2; k++) {
			size_t bit = (size_t)rand() % (n * 8);

			f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		if (memcmp(f, good, n) != 0)
			assert_int_not_equal(mxd_wire_parse(f, n, &pkt),
					MXD_DROP_NONE);
	}
	/* The check is put back: a frame parses twice (a duplicate). */
	memcpy(f, good, n);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
}

/* The SSE4.2 and the table versions of the check agree. */
static void
csum_implementations_agree(void **state)
{
	uint8_t b[9100];

	(void)state;
	srand(3);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rand();
	for (size_t len = 0; len < sizeof(b); len += 1 + len / 16)
		assert_int_equal(mxd_csum(b + len % 7, len - len % 7),
				mxd_csum_sw(b + len % 7, len - len % 7));
	/* CRC-32C's standard check value. */
	assert_int_equal(mxd_csum((const uint8_t *)"123456789", 9), 0xe3069283);
	assert_int_equal(mxd_csum_sw((const uint8_t *)"123456789", 9),
			0xe3069283);
}

/* A frame's check with its own field read as zero, in one call, is the
 * CRC of the frame with the field zeroed: every implementation, holes
 * in a word and across two, short and long frames. */
static void
csum_with_hole(void **state)
{
	static const enum mxd_crc_impl impls[] = { MXD_CRC_PORTABLE,
		MXD_CRC_SSE42, MXD_CRC_AVX512 };
	static const size_t holes[] = { 42, 40, 44, 45, 0, 3, 100 };
	uint8_t b[9100], z[9100];

	(void)state;
	srand(5);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rand();
	for (size_t k = 0; k < sizeof(impls) / sizeof(impls[0]); k++) {
		if (mxd_crc_use(impls[k]) != 0)
			continue;	/* not on this CPU */
		for (size_t h = 0; h < sizeof(holes) / sizeof(holes[0]); h++)
			for (size_t len = holes[h] + 4; len < sizeof(b);
					len += 1 + len / 8) {
				memcpy(z, b, len);
				memset(z + holes[h], 0, 4);
				assert_int_equal(mxd_crc_update_hole(
						MXD_CRC_INIT, b, len, holes[h]),
						mxd_crc_update(MXD_CRC_INIT, z,
							len));
			}
	}
	assert_int_equal(mxd_crc_use(MXD_CRC_AVX512) == 0 ||
			mxd_crc_use(MXD_CRC_SSE42) == 0 ||
			mxd_crc_use(MXD_CRC_PORTABLE) == 0, 1);
}

/* Short frames (the straight chain of words, the backwards tail word):
 * every length up to past the short path's limit, every hole, from a
 * register that is not the initial one (three bytes before the frame),
 * every implementation, against the table version. */
static void
csum_short_every_hole(void **state)
{
	uint8_t b[3 + 160], z[3 + 160];

	(void)state;
	srand(6);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rand();
	for (int impl = MXD_CRC_AVX512; impl >= MXD_CRC_PORTABLE; impl--) {
		if (mxd_crc_use((enum mxd_crc_impl)impl) != 0)
			continue;	/* not on this CPU */
		for (size_t len = 0; len <= 160; len++) {
			uint32_t c0 = mxd_crc_update(MXD_CRC_INIT, b, 3);

			assert_int_equal(~mxd_crc_update(c0, b + 3, len),
					mxd_csum_sw(b, 3 + len));
			for (size_t hole = 0; hole + 4 <= len; hole++) {
				memcpy(z, b, 3 + len);
				memset(z + 3 + hole, 0, 4);
				assert_int_equal(~mxd_crc_update_hole(c0,
							b + 3, len, hole),
						mxd_csum_sw(z, 3 + len));
			}
		}
	}
	if (mxd_crc_use(MXD_CRC_AVX512) != 0 && mxd_crc_use(MXD_CRC_SSE42) != 0)
		mxd_crc_use(MXD_CRC_PORTABLE);
}

/* A frame's check (mxd_crc_frame: its field read as zero) at every
 * length a frame's check covers, from the headers alone (an ACK's, the
 * field its last bytes) to past the short path's limit, every
 * implementation, against the table version. */
static void
csum_frame_every_length(void **state)
{
	uint8_t b[200], z[200];

	(void)state;
	srand(7);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rand();
	for (int impl = MXD_CRC_AVX512; impl >= MXD_CRC_PORTABLE; impl--) {
		if (mxd_crc_use((enum mxd_crc_impl)impl) != 0)
			continue;	/* not on this CPU */
		for (size_t len = MXD_CRC_FIELD + 4; len <= sizeof(b); len++) {
			memcpy(z, b, len);
			memset(z + MXD_CRC_FIELD, 0, 4);
			assert_int_equal(~mxd_crc_frame(b, len),
					mxd_csum_sw(z, len));
		}
	}
	if (mxd_crc_use(MXD_CRC_AVX512) != 0 && mxd_crc_use(MXD_CRC_SSE42) != 0)
		mxd_crc_use(MXD_CRC_PORTABLE);
}

/* The check in pieces, and copied on the way, is the same CRC. */
static void
csum_in_pieces_and_copied(void **state)
{
	uint8_t b[9100], d[9100];

	(void)state;
	srand(4);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rand();
	for (size_t len = 0; len < sizeof(b); len += 1 + len / 8) {
		size_t cut = len ? (size_t)rand() % len : 0;
		uint32_t c = mxd_crc_update(MXD_CRC_INIT, b, cut);

		memset(d, 0, len);
		c = mxd_crc_copy(c, d + cut, b + cut, len - cut);
		assert_int_equal(~c, mxd_csum_sw(b, len));
		assert_memory_equal(d + cut, b + cut, len - cut);
	}
}

/* A lone word (mxd_crc_word: the pull replies' offsets) gives what its
 * 4 bytes give, from any register. */
static void
csum_word(void **state)
{
	(void)state;
	srand(6);
	for (int i = 0; i < 100000; i++) {
		uint32_t c = (uint32_t)rand() ^ (uint32_t)rand() << 16;
		uint32_t w = (uint32_t)rand() ^ (uint32_t)rand() << 16;
		uint8_t b[4];

		if (i < 2)
			c = i ? MXD_CRC_INIT : 0;
		memcpy(b, &w, 4);
		assert_int_equal(mxd_crc_word(c, w),
				mxd_crc_update(c, b, 4));
	}
}

/* Every length a frame can have, at several alignments, from a nonzero
 * register: the vector path's every tail (64-byte steps, 256-byte steps,
 * the words and bytes after them). */
static void
csum_every_length(void **state)
{
	static uint8_t b[2200 + 64], d[2200 + 128] __attribute__((aligned(64)));

	(void)state;
	srand(5);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)rand();
	for (int impl = MXD_CRC_AVX512; impl >= MXD_CRC_PORTABLE; impl--) {
		if (mxd_crc_use((enum mxd_crc_impl)impl) != 0) {
			printf("CRC implementation %d: not on this CPU\n", impl);
			continue;
		}
		for (size_t len = 0; len <= 2200; len++) {
			size_t so = len % 7, doff = len % 13;
			uint32_t want = mxd_csum_sw(b + so, len);

			assert_int_equal(mxd_csum(b + so, len), want);
			memset(d, 0, sizeof(d));
			assert_int_equal(~mxd_crc_copy(MXD_CRC_INIT, d + doff,
						b + so, len), want);
			assert_memory_equal(d + doff, b + so, len);
			assert_int_equal(d[doff + len], 0);
			/* Around the caches: every destination alignment
			 * (the aligned middle streamed, the rest plain). */
			doff = len % 67;
			memset(d, 0, sizeof(d));
			assert_int_equal(~mxd_crc_copy_nt(MXD_CRC_INIT,
						d + doff, b + so, len), want);
			mxd_crc_store_fence();
			assert_memory_equal(d + doff, b + so, len);
			assert_int_equal(d[doff + len], 0);
			if (doff > 0)
				assert_int_equal(d[doff - 1], 0);
		}
	}
	/* Back to the best. */
	if (mxd_crc_use(MXD_CRC_AVX512) != 0 && mxd_crc_use(MXD_CRC_SSE42) != 0)
		mxd_crc_use(MXD_CRC_PORTABLE);
}

/* A pull reply of 'len' payload bytes; returns the frame's length. */
static size_t
pullrep_frame(uint8_t *f, uint32_t len)
{
	struct mxd_hdr_args a = args;
	size_t n;

	a.type = MXD_T_PULL_REP;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a,
			(uint16_t)(sizeof(struct mxd_pullrep_hdr) + len));
	n += mxd_wire_put_pullrep(f + n, 0x1003, 1446 * 5);
	for (uint32_t i = 0; i < len; i++)
		f[n + i] = (uint8_t)(i * 7);
	mxd_wire_seal(f);
	return n + len;
}

/*
 * A lazily parsed pull reply leaves its check to the copy of its payload:
 * an intact one passes, copied or not; any bit flipped anywhere fails
 * either the parse or the check; other types are checked at once.
 */
static void
lazy_pull_reply(void **state)
{
	uint8_t good[2048], f[2048], out[2048];
	size_t n = pullrep_frame(good, 1446);
	struct mxd_pkt pkt;

	(void)state;
	memcpy(f, good, n);
	assert_int_equal(mxd_wire_parse_lazy(f, n, &pkt), MXD_DROP_NONE);
	assert_true(pkt.unchecked);
	assert_int_equal(pkt.u.rep.len, 1446);
	assert_true(mxd_wire_check(&pkt));
	assert_true(mxd_wire_payload_ok(&pkt, mxd_crc_copy(pkt.crc, out,
					pkt.payload, pkt.u.rep.len)));
	assert_memory_equal(out, pkt.payload, 1446);
	assert_memory_equal(f, good, n);		/* untouched */
	for (size_t bit = 0; bit < n * 8; bit++) {
		memcpy(f, good, n);
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (mxd_wire_parse_lazy(f, n, &pkt) != MXD_DROP_NONE)
			continue;
		assert_false(pkt.unchecked && mxd_wire_check(&pkt));
		assert_false(pkt.unchecked && mxd_wire_payload_ok(&pkt,
				mxd_crc_copy(pkt.crc, out, pkt.payload,
					pkt.u.rep.len)));
		/* Flipped into another type: checked by the parse. */
		assert_true(pkt.unchecked);
	}
	/* An eager frame is verified by the lazy parse too. */
	n = eager_frame(good, 3000, 1400, 1);
	memcpy(f, good, n);
	f[n - 1] ^= 1;
	assert_int_equal(mxd_wire_parse_lazy(f, n, &pkt), MXD_DROP_CSUM);
}

/* An ACK with 'flags' and 'body' bytes: a SACK (if flagged) then
 * fragments records (seq 100 + i, have 0x0f0 << (i % 32)); returns its
 * length. */
static size_t
ack_frame(uint8_t *f, uint8_t flags, uint32_t nrec, uint32_t body)
{
	struct mxd_hdr_args a = args;
	size_t n, at;

	a.type = MXD_T_ACK;
	a.flags = (uint8_t)(MXD_F_ACK_VALID | flags);
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, (uint16_t)body);
	at = n;
	if (flags & MXD_F_SACK)
		at += mxd_wire_put_sack(f + at, 0x8000000000000005ull);
	for (uint32_t i = 0; i < nrec; i++)
		mxd_wire_put_frags(f + at, i, 100 + i, 0x0f0ull << (i % 32));
	mxd_wire_seal(f);
	return n + body;
}

/* ACKs naming fragments held (MXD_F_FRAGS): alone and after a SACK, and
 * every length that does not add up refused. */
static void
ack_frags_roundtrip(void **state)
{
	const uint32_t rec = sizeof(struct mxd_frags_rec);
	static const struct {
		uint8_t flags;
		uint32_t nrec, body;
		enum mxd_drop want;
	} cases[] = {
		{ MXD_F_FRAGS, 1, 12, MXD_DROP_NONE },
		{ MXD_F_FRAGS, MXD_FRAGS_MAX, MXD_FRAGS_MAX * 12, MXD_DROP_NONE },
		{ MXD_F_FRAGS | MXD_F_SACK, 3, 8 + 36, MXD_DROP_NONE },
		{ MXD_F_FRAGS, 0, 0, MXD_DROP_LENGTH },	/* flag, no record */
		{ MXD_F_FRAGS | MXD_F_SACK, 0, 8, MXD_DROP_LENGTH },
		{ MXD_F_FRAGS, 1, 13, MXD_DROP_LENGTH },	/* not whole */
		{ MXD_F_FRAGS, 0, 6, MXD_DROP_LENGTH },
		{ MXD_F_FRAGS, MXD_FRAGS_MAX + 1, (MXD_FRAGS_MAX + 1) * 12,
			MXD_DROP_LENGTH },			/* too many */
		{ 0, 1, 12, MXD_DROP_LENGTH },		/* records, no flag */
		{ MXD_F_SACK, 1, 20, MXD_DROP_LENGTH },
		{ MXD_F_SACK, 0, 4, MXD_DROP_LENGTH },	/* a short SACK */
	};
	uint8_t f[2048];
	struct mxd_pkt pkt;

	(void)state;
	assert_int_equal(rec, 12);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = ack_frame(f, cases[i].flags, cases[i].nrec,
				cases[i].body);
		uint64_t have;
		uint32_t seq;

		if (mxd_wire_parse(f, n, &pkt) != cases[i].want)
			fail_msg("case %zu: got %s", i, mxd_drop_name(
					mxd_wire_parse(f, n, &pkt)));
		if (cases[i].want != MXD_DROP_NONE)
			continue;
		assert_int_equal(pkt.u.ack.nfrags, cases[i].nrec);
		assert_true(pkt.u.ack.sack == (cases[i].flags & MXD_F_SACK ?
					0x8000000000000005ull : 0));
		for (uint32_t k = 0; k < pkt.u.ack.nfrags; k++) {
			mxd_wire_get_frags(&pkt, k, &seq, &have);
			assert_int_equal(seq, 100 + k);
			assert_true(have == 0x0f0ull << (k % 32));
		}
	}
}

static void
fixed_size_types(void **state)
{
	uint8_t f[512] = { 0 };
	struct mxd_pkt pkt;
	struct mxd_hdr_args a = args;
	size_t n;

	(void)state;
	a.type = MXD_T_ACK;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, 0);
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n, &pkt), MXD_DROP_NONE);
	mxd_put16(f + H(10), 4);	/* an ack has no body */
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n + 4, &pkt), MXD_DROP_LENGTH);
	a.type = MXD_T_CONN_REQ;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, 20);
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n + 20, &pkt), MXD_DROP_LENGTH);
	a.type = MXD_T_DISCOVER;
	n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, 100);
	mxd_wire_seal(f);
	assert_int_equal(mxd_wire_parse(f, n + 100, &pkt), MXD_DROP_LENGTH);
}

/* mxd_wire_bare_ack takes exactly the frames the parser accepts as an
 * ACK of flags ACK_VALID alone and no body, and nothing else. */
static void
bare_ack_as_parsed(void **state)
{
	static const struct {
		uint8_t type, flags;
		uint16_t body;		/* the header's length field */
		size_t extra;		/* bytes after the header, given */
		int corrupt;		/* a byte of the header changed */
		int bare;
	} t[] = {
		{ MXD_T_ACK, MXD_F_ACK_VALID, 0, 0, 0, 1 },
		{ MXD_T_ACK, MXD_F_ACK_VALID, 0, 60, 0, 1 },	/* padded */
		{ MXD_T_ACK, MXD_F_ACK_VALID, 0, 0, 1, 0 },
		{ MXD_T_ACK, MXD_F_ACK_VALID, 8, 8, 0, 0 },
		{ MXD_T_ACK, MXD_F_ACK_VALID | MXD_F_PING, 0, 0, 0, 0 },
		{ MXD_T_ACK, MXD_F_ACK_VALID | MXD_F_BYE, 0, 0, 0, 0 },
		{ MXD_T_ACK, MXD_F_ACK_VALID | MXD_F_SACK, 8, 8, 0, 0 },
		{ MXD_T_ACK, 0, 0, 0, 0, 0 },
		{ MXD_T_NACK, MXD_F_ACK_VALID, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t f[256] = { 0 };
		struct mxd_hdr_args a = args;
		struct mxd_pkt pkt;
		size_t n;
		int parsed;

		a.type = t[i].type;
		a.flags = t[i].flags;
		n = mxd_wire_put_hdr(f, mac_b, mac_a, &a, t[i].body);
		mxd_wire_seal(f);
		if (t[i].corrupt)
			f[H(offsetof(struct mxd_hdr, ack))] ^= 1;
		n += t[i].extra;
		parsed = mxd_wire_parse(f, n, &pkt) == MXD_DROP_NONE &&
			pkt.h.type == MXD_T_ACK &&
			pkt.h.flags == MXD_F_ACK_VALID;
		assert_int_equal(mxd_wire_bare_ack(f, n), t[i].bare);
		assert_int_equal(parsed, t[i].bare);
		assert_int_equal(mxd_wire_bare_ack(f, MXD_HDRS_LEN - 1), 0);
	}
}

static void
random_bytes_never_accepted_blindly(void **state)
{
	uint8_t f[1600];
	struct mxd_pkt pkt;

	(void)state;
	srand(1);
	for (int i = 0; i < 200000; i++) {
		size_t n = (size_t)(rand() % (int)sizeof(f));

		for (size_t j = 0; j < n; j++)
			f[j] = (uint8_t)rand();
		if (i & 1) {	/* make many of them look like ours */
			if (n > 14) {
				mxd_put16(f + 12, MXD_ETHERTYPE);
			}
			if (n > 16) {
				f[14] = MXD_WIRE_VERSION;
				f[15] = (uint8_t)(1 + rand() % 5);
			}
			/* and carry a valid check, to reach the type parsers */
			if (n >= MXD_HDRS_LEN && mxd_get16(f + 24) <=
					n - MXD_HDRS_LEN)
				mxd_wire_seal(f);
		}
		if (mxd_wire_parse(f, n, &pkt) == MXD_DROP_NONE &&
				pkt.h.type == MXD_T_EAGER) {
			/* Whatever was accepted must be inside the frame. */
			assert_true(pkt.payload + pkt.u.eager.frag_len <= f + n);
			assert_true(pkt.u.eager.frag_off + pkt.u.eager.frag_len <=
					pkt.u.eager.msg_len);
		}
	}
}

static void
seq_compare_wraps(void **state)
{
	(void)state;
	assert_true(mxd_seq_lt(1, 2));
	assert_false(mxd_seq_lt(2, 1));
	assert_false(mxd_seq_lt(5, 5));
	assert_true(mxd_seq_lt(0xfffffff0u, 3));
	assert_false(mxd_seq_lt(3, 0xfffffff0u));
}

static void
nic_mac_roundtrip(void **state)
{
	uint8_t mac[6] = { 0x02, 0xfe, 0x00, 0x10, 0x20, 0x30 }, back[6];

	(void)state;
	assert_true(mxd_mac_to_nic(mac) == 0x02fe00102030ull);
	mxd_nic_to_mac(0x02fe00102030ull, back);
	assert_memory_equal(mac, back, 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eager_roundtrip),
		cmocka_unit_test(padded_frame_ok),
		cmocka_unit_test(rndv_descriptor_in_one_fragment),
		cmocka_unit_test(rndv_descriptor_head),
		cmocka_unit_test(conn_and_disc_roundtrip),
		cmocka_unit_test(unterminated_names_are_cut),
		cmocka_unit_test(validation_table),
		cmocka_unit_test(corrupted_frames_refused),
		cmocka_unit_test(csum_implementations_agree),
		cmocka_unit_test(csum_with_hole),
		cmocka_unit_test(csum_short_every_hole),
		cmocka_unit_test(csum_frame_every_length),
		cmocka_unit_test(csum_in_pieces_and_copied),
		cmocka_unit_test(csum_every_length),
		cmocka_unit_test(csum_word),
		cmocka_unit_test(lazy_pull_reply),
		cmocka_unit_test(fixed_size_types),
		cmocka_unit_test(ack_frags_roundtrip),
		cmocka_unit_test(bare_ack_as_parsed),
		cmocka_unit_test(random_bytes_never_accepted_blindly),
		cmocka_unit_test(seq_compare_wraps),
		cmocka_unit_test(nic_mac_roundtrip),
		cmocka_unit_test(pack_roundtrip),
		cmocka_unit_test(pack_validation_table),
		cmocka_unit_test(pack_bit_errors_refused),
		cmocka_unit_test(pack_record_sizes),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
