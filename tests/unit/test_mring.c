/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmd-glue/mring.h: a memif ring driven without DPDK, both directions, on
 * a region laid out as memif's client lays it out (rings C2S then S2C,
 * then the buffers, each descriptor's offset written once): frames go
 * through whole and in order across the indexes' wrap, a full ring takes
 * no more, a reader that takes over (a new process in a slot, the board
 * service draining it) starts where the last one stopped, and a
 * descriptor that points outside the region or is chained is dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mring.h"

#define Q	4
#define LOG2	4		/* 16 descriptors */
#define BSIZE	256u

static uint8_t *region;
static uint64_t region_len;

/* A region as memif's client makes it: cookies, indexes at 0, each
 * descriptor's buffer. */
static void
region_make(void)
{
	uint64_t rb = mxd_mring_bytes(LOG2), bufs = 2ull * Q * rb;

	region_len = mxd_mring_region_len(Q, LOG2, BSIZE);
	region = calloc(1, region_len);
	assert_non_null(region);
	for (unsigned r = 0; r < 2 * Q; r++) {
		uint8_t *ring = region + r * rb;
		uint32_t cookie = MXD_MEMIF_COOKIE;

		memcpy(ring, &cookie, 4);
		for (unsigned j = 0; j < (1u << LOG2); j++) {
			uint8_t *d = ring + MXD_MEMIF_RING_HDR + MXD_MEMIF_DESC * j;
			uint32_t off = (uint32_t)(bufs + ((uint64_t)r << LOG2 | j) *
					BSIZE), len = BSIZE;

			memcpy(d + 4, &len, 4);
			memcpy(d + 8, &off, 4);
		}
	}
}

static int
setup(void **state)
{
	(void)state;
	region_make();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	free(region);
	return 0;
}

static void
attach(struct mxd_mring *r, unsigned q, int c2s)
{
	assert_int_equal(mxd_mring_attach(r, region, region_len, Q, q, c2s,
				LOG2, BSIZE), 0);
}

/* The S2C reader gives the writer its buffers first (the board service
 * does so for every S2C ring at link-up). */
static void
prime(struct mxd_mring *rd)
{
	if (!rd->c2s && *mxd_mring_idx(rd, MXD_MEMIF_HEAD) == 0) {
		rd->cur = 0;
		mxd_mring_release(rd);
	}
}

static void
frame(uint8_t *b, uint32_t len, uint32_t n)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)(n * 7 + i);
}

/* n frames of varying lengths written, then read back whole and in
 * order, in bursts of up to 'burst'; reader and writer attached anew
 * every 'again' frames when again != 0 (another process takes over). */
static void
stream(int c2s, unsigned n, unsigned burst, unsigned again)
{
	struct mxd_mring wr, rd;
	uint8_t b[BSIZE], want[BSIZE];
	unsigned sent = 0, got = 0;

	attach(&wr, 1, c2s);
	attach(&rd, 1, c2s);
	prime(&rd);
	while (got < n) {
		for (unsigned k = 0; k < burst && sent < n &&
				mxd_mring_room(&wr) > 0; k++, sent++) {
			frame(b, 60 + sent % 190, sent);
			assert_int_equal(mxd_mring_put(&wr, b,
						60 + sent % 190), 0);
		}
		mxd_mring_publish(&wr);
		for (unsigned k = mxd_mring_ready(&rd); k > 0; k--, got++) {
			uint32_t len;
			const uint8_t *p = mxd_mring_get(&rd, &len);

			assert_non_null(p);
			assert_int_equal(len, 60 + got % 190);
			frame(want, len, got);
			assert_memory_equal(p, want, len);
		}
		mxd_mring_release(&rd);
		if (again != 0 && got % again == 0) {
			attach(&wr, 1, c2s);
			attach(&rd, 1, c2s);
		}
	}
	assert_int_equal(sent, n);
}

static void
c2s_stream(void **state)
{
	(void)state;
	stream(1, 70000, 5, 0);		/* past the 16-bit indexes' wrap */
}

static void
s2c_stream(void **state)
{
	(void)state;
	stream(0, 70000, 3, 0);
}

static void
takeover(void **state)
{
	(void)state;
	stream(1, 5000, 7, 13);
	stream(0, 5000, 7, 11);
}

/* A full ring takes nothing more until its reader reads. */
static void
full(void **state)
{
	struct mxd_mring wr, rd;
	uint8_t b[64] = { 0 };

	(void)state;
	for (int c2s = 0; c2s <= 1; c2s++) {
		attach(&wr, 2, c2s);
		attach(&rd, 2, c2s);
		prime(&rd);
		for (unsigned i = 0; i < (1u << LOG2); i++) {
			assert_true(mxd_mring_room(&wr) > 0);
			assert_int_equal(mxd_mring_put(&wr, b, sizeof(b)), 0);
		}
		assert_int_equal(mxd_mring_room(&wr), 0);
		mxd_mring_publish(&wr);
		assert_int_equal(mxd_mring_drain(&rd), 1u << LOG2);
		assert_int_equal(mxd_mring_room(&wr), 1u << LOG2);
	}
}

/* A frame larger than a buffer is not written; a descriptor out of the
 * region, or chained, is dropped by the reader. */
static void
bad(void **state)
{
	struct mxd_mring wr, rd;
	uint8_t b[BSIZE + 1] = { 0 };
	uint32_t len, off = (uint32_t)region_len;
	uint8_t *d;

	(void)state;
	attach(&wr, 3, 1);
	attach(&rd, 3, 1);
	assert_int_equal(mxd_mring_put(&wr, b, BSIZE + 1), -1);
	assert_int_equal(mxd_mring_put(&wr, b, 100), 0);
	assert_int_equal(mxd_mring_put(&wr, b, 100), 0);
	assert_int_equal(mxd_mring_put(&wr, b, 100), 0);
	d = mxd_mring_desc(&wr, 0);
	memcpy(d + 8, &off, 4);			/* outside the region */
	d = mxd_mring_desc(&wr, 1);
	d[0] = MXD_MEMIF_F_NEXT;		/* chained */
	mxd_mring_publish(&wr);
	assert_int_equal(mxd_mring_ready(&rd), 3);
	assert_null(mxd_mring_get(&rd, &len));
	assert_null(mxd_mring_get(&rd, &len));
	assert_non_null(mxd_mring_get(&rd, &len));
	assert_int_equal(len, 100);
}

/* A ring without memif's cookie, or past the region, is refused. */
static void
attach_checks(void **state)
{
	struct mxd_mring r;

	(void)state;
	assert_int_equal(mxd_mring_attach(&r, region, region_len, Q, Q, 0,
				LOG2, BSIZE), -1);
	assert_int_equal(mxd_mring_attach(&r, region, 64, Q, 0, 1, LOG2,
				BSIZE), -1);
	region[0] ^= 1;
	assert_int_equal(mxd_mring_attach(&r, region, region_len, Q, 0, 1,
				LOG2, BSIZE), -1);
	region[0] ^= 1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(c2s_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(s2c_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(takeover, setup, teardown),
		cmocka_unit_test_setup_teardown(full, setup, teardown),
		cmocka_unit_test_setup_teardown(bad, setup, teardown),
		cmocka_unit_test_setup_teardown(attach_checks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
