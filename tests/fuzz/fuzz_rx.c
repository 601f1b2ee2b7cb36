/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: arbitrary frames, and sequences of frames, into the
 * receive path of live endpoints.
 *
 * Two boards of one process joined by fake links, one endpoint on each,
 * connected both ways with traffic in flight (an eager message, a large
 * send waiting to be pulled, posted receives): the state a hostile frame
 * can hurt.  Beside them, a Portals interface on each board (endpoint
 * PTL_PID of each), with puts and gets going both ways: a Portals
 * message reaches the face (lib/portals/engine.c) and the core.  An
 * input is a sequence of records
 *
 *   u8 control   bit 0: address the frame to the live partner (Ethernet,
 *                endpoints, partner indexes, sessions, epoch, filter) and seal
 *                its integrity check, so that it reaches the deep paths;
 *                bit 1: deliver to board 0 instead of board 1;
 *                bit 2 (with bit 0): to the Portals interfaces' partner
 *                instead, an EAGER frame's sequence number the next one
 *                it waits for
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
#include <portals3.h>

#define PTL_PID		7

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

/* ---- Portals: an interface on each board, operations both ways ---- */

static ptl_handle_ni_t pni[2];
static ptl_handle_eq_t peq[2];
static ptl_handle_md_t psrc[2], pdst[2];
static ptl_process_id_t pid_of[2];
static int pending[2];

static void
ptl_setup(void)
{
	static uint8_t area[2][70000], src[2][70000], dst[2][70000];
	ptl_process_id_t any = { PTL_NID_ANY, PTL_PID_ANY };
	ptl_handle_me_t me;
	ptl_md_t md;
	int n;

	if (PtlInit(&n) != PTL_OK)
		abort();
	for (int k = 0; k < 2; k++) {
		if (PtlNIInit(k, PTL_PID, NULL, NULL, &pni[k]) != PTL_OK ||
				PtlGetId(pni[k], &pid_of[k]) != PTL_OK ||
				PtlEQAlloc(pni[k], 4096, &peq[k]) != PTL_OK ||
				PtlMEAttach(pni[k], 0, any, 0, ~0ull, PTL_RETAIN,
					PTL_INS_AFTER, &me) != PTL_OK)
			abort();
		memset(&md, 0, sizeof(md));
		md.start = area[k];
		md.length = sizeof(area[k]);
		md.threshold = PTL_MD_THRESH_INF;
		md.options = PTL_MD_OP_PUT | PTL_MD_OP_GET | PTL_MD_TRUNCATE |
			PTL_MD_MANAGE_REMOTE;
		md.eventq = peq[k];
		if (PtlMDAttach(me, md, PTL_RETAIN, PTL_RETAIN, NULL) != PTL_OK)
			abort();
		md.start = src[k];
		md.options = 0;
		if (PtlMDBind(pni[k], md, &psrc[k]) != PTL_OK)
			abort();
		md.start = dst[k];
		if (PtlMDBind(pni[k], md, &pdst[k]) != PTL_OK)
			abort();
	}
}

/* Keeps a large put and a get going each way (a new pair once the last
 * has ended). */
static void
ptl_refill(void)
{
	for (int k = 0; k < 2; k++) {
		ptl_event_t ev;

		while (PtlEQGet(peq[k], &ev) != PTL_EQ_EMPTY)
			if (ev.type == PTL_EVENT_SEND_END ||
					ev.type == PTL_EVENT_SEND_FAIL ||
					ev.type == PTL_EVENT_REPLY_END ||
					ev.type == PTL_EVENT_REPLY_FAIL)
				pending[k]--;
		if (pending[k] > 0)
			continue;
		PtlPutRegion(psrc[k], 0, k ? 60000 : 200, PTL_ACK_REQ,
				pid_of[!k], 0, 0, 1, 0, 0);
		PtlGetRegion(pdst[k], 0, k ? 100 : 65000, pid_of[!k], 0, 0, 2,
				0);
		pending[k] = 2;
	}
}

/* Points a frame at the live partner on board 'to' and seals it;
 * 'ptl': the Portals interfaces' partner, an EAGER frame as their next
 * message. */
static void
address(uint8_t *f, uint32_t len, int to, int ptl)
{
	mx_endpoint_t dst = to ? fx.e1 : fx.e0, src = to ? fx.e0 : fx.e1;
	struct fake_port *dp = to ? &fx.pb : &fx.pa, *sp = to ? &fx.pa : &fx.pb;
	uint8_t *h = f + MXD_ETH_HLEN;
	struct mxd_partner *p;

	if (len < MXD_HDRS_LEN)
		return;
	if (ptl) {
		src = mxd_lib.boards[!to]->ep[PTL_PID];
		dst = mxd_lib.boards[to]->ep[PTL_PID];
	}
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
	if (ptl && h[1] == MXD_T_EAGER && len >= MXD_HDRS_LEN + 4 &&
			dst->npartners != 0)
		mxd_put32(f + MXD_HDRS_LEN, dst->partners[0]->rx.next_match);
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
		ptl_setup();
		ready = 1;
	}
	refill();
	ptl_refill();
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
			address(f, len, to, (ctl & 4) != 0);
		fake_inject(to ? &fx.pb : &fx.pa, f, len);
		for (int i = 0; i < 4; i++) {
			mx_progress(fx.e1);
			mx_progress(fx.e0);
		}
	}
	return 0;
}
