/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: arbitrary frames, and sequences of frames, into the
 * receive path of live endpoints.
 *
 * Two boards of one process joined by fake links, one endpoint on each,
 * connected both ways with traffic in flight (an eager message, a large
 * send waiting to be pulled, posted receives): the state a hostile frame
 * can hurt.  An input is a sequence of records
 *
 *   u8 control   bit 0: address the frame to the live partner (Ethernet,
 *                endpoints, partner indexes, sessions, epoch, filter) and seal
 *                its integrity check, so that it reaches the deep paths;
 *                bit 1: deliver to board 0 instead of board 1
 *   u16 length   little-endian, at most 2048
 *   bytes        the frame
 *
 * Each record is delivered and both endpoints make progress; the state
 * carries over from record to record and from input to input.  Built
 * with ASan and UBSan (scripts/fuzz.sh); tests/fuzz/corpus holds the seeds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static uint8_t big[200000];
static int ready;

/* Keeps traffic in flight so that frames meet pending state. */
static void
refill(void)
{
	static uint8_t in[2][4096];
	static mx_request_t rr[2], rs[2];
	mx_segment_t s;
	mx_status_t st;
	uint32_t done;

	for (int k = 0; k < 2; k++) {
		mx_endpoint_t ep = k ? fx.e1 : fx.e0;

		if (rr[k] != NULL && mx_test(ep, &rr[k], &st, &done) ==
				MX_SUCCESS && done)
			rr[k] = NULL;
		if (rr[k] == NULL) {
			s.segment_ptr = in[k];
			s.segment_length = sizeof(in[k]);
			mx_irecv(ep, &s, 1, 0, 0, NULL, &rr[k]);
		}
		if (rs[k] != NULL && mx_test(ep, &rs[k], &st, &done) ==
				MX_SUCCESS && done)
			rs[k] = NULL;
		if (rs[k] == NULL) {
			s.segment_ptr = big;
			s.segment_length = k ? 100 : sizeof(big);
			mx_isend(ep, &s, 1, k ? fx.to0 : fx.to1, 1, NULL, &rs[k]);
		}
	}
}

/* Points a frame at the live partner on board 'to' and seals it. */
static void
address(uint8_t *f, uint32_t len, int to)
{
	mx_endpoint_t dst = to ? fx.e1 : fx.e0, src = to ? fx.e0 : fx.e1;
	struct fake_port *dp = to ? &fx.pb : &fx.pa, *sp = to ? &fx.pa : &fx.pb;
	uint8_t *h = f + MXD_ETH_HLEN;
	struct mxd_partner *p;

	if (len < MXD_HDRS_LEN)
		return;
	p = src->npartners ? src->partners[0] : NULL;
	memcpy(f, dp->link.mac, 6);
	memcpy(f + 6, sp->link.mac, 6);
	mxd_put16(f + 12, MXD_ETHERTYPE);
	h[0] = MXD_WIRE_VERSION;
	h[4] = (uint8_t)src->id;
	h[5] = (uint8_t)dst->id;
	if (p != NULL) {
		h[3] = (uint8_t)p->epoch;	/* else stale */
		mxd_put16(h + 6, p->remote_index);
		mxd_put16(h + 8, p->index);
	}
	mxd_put32(h + 12, dst->filter);
	mxd_put32(h + 16, src->session);
	mxd_put32(h + 20, dst->session);
	if (mxd_get16(h + 10) > len - MXD_HDRS_LEN)
		mxd_put16(h + 10, (uint16_t)(len - MXD_HDRS_LEN));
	mxd_wire_seal(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[2048];

	if (!ready) {
		setenv("MX_CLOSE_LINGER_MS", "0", 1);
		if (fixture_setup(NULL) != 0)
			abort();
		ready = 1;
	}
	refill();
	while (size >= 3) {
		uint8_t ctl = data[0];
		uint32_t len = (uint32_t)data[1] | (uint32_t)data[2] << 8;
		int to = !(ctl & 2);

		data += 3;
		size -= 3;
		if (len > size)
			len = (uint32_t)size;
		if (len > sizeof(f))
			len = sizeof(f);
		memcpy(f, data, len);
		data += len;
		size -= len;
		if (ctl & 1)
			address(f, len, to);
		fake_inject(to ? &fx.pb : &fx.pa, f, len);
		for (int i = 0; i < 4; i++) {
			mx_progress(fx.e1);
			mx_progress(fx.e0);
		}
	}
	return 0;
}
