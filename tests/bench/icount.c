/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Instructions per 8-byte message, in one process over
 * the in-memory fake link (no DPDK, no second process), to be run under
 * callgrind: scripts/icount.sh runs it and divides.  Callgrind collects
 * only inside icount_measure (below); each step measured there is a
 * function of its own, whose inclusive count callgrind_annotate reports:
 *
 *   icount_send   one message sent: mx_isend, mx_test until done (an
 *                 eager send is done once its data is in a frame), and
 *                 one progress pass on the sender (mx_ipeek), which
 *                 takes in the receiver's ACK when one came (one per
 *                 MXD_ACK_EVERY = 16 messages).
 *   icount_recv   one message received: mx_irecv posted (the frame is
 *                 in the rx ring, not yet seen: an expected receive),
 *                 mx_test until done: one pass that takes the frame,
 *                 matches it, copies the 8 bytes, completes, and every
 *                 16th message sends the explicit ACK.
 *   icount_rtt    one round trip of mx_pingpong's kind: e0 sends, e1
 *                 echoes, both receives posted first; the acks ride on
 *                 the reverse messages.  Both sides, two passes.
 *   icount_idle   one pass with nothing to do (mx_ipeek on e0).
 *   icount_psend, icount_precv   the same one way as icount_send and
 *                 icount_recv, for a batch of PACK_BATCH (40) messages
 *                 sent, then received, as a stream does: the previous
 *                 batch is still unacknowledged (its acks wait in the
 *                 sender's rx ring), so every send of a batch waits on
 *                 the send queue (MX_PACK_AFTER, 32) and the first
 *                 mx_test's pass sends them all in one PACK frame; the
 *                 receives are posted, then completed.  Divided by the
 *                 messages: what a packed message costs each side.
 *   icount_bulk_tx, icount_bulk_rx   one progress pass over the
 *                 sender's board (e0's; the pass skips the other board
 *                 here), then over the receiver's (e1), while 1 MiB messages
 *                 go by rendezvous (a window of BULK_WINDOW, each its own
 *                 receive buffer as Myricom's mx_stream): the sender's
 *                 pass serves the PULLs that came and sends the replies;
 *                 the receiver's pass takes the replies, copies and
 *                 checks them into the receive buffer and asks for more.
 *                 Divided by the pull replies: what a full frame of a
 *                 large message costs each side.  icount_bulk_copy is
 *                 one call of the fused copy and check over a full
 *                 reply's payload, the part of each side's figure that
 *                 grows with the bytes (valgrind hides AVX-512, so the
 *                 SSE4.2 implementation is counted: proto/csum.c).
 *
 * The two ends of a one-way message are apart: the sender's frames are
 * held at its port (the fake link's tap) and handed to the receiver's rx
 * ring between icount_send and icount_recv, outside both; the
 * receiver's ACKs wait in the sender's rx ring for the next
 * icount_send.  So each function's pass finds only its own side's
 * frames.  A pass still covers both boards of the process every
 * MXD_OTHERS_PASSES (16) passes, so each one-way figure includes a
 * sixteenth of the other board's idle look (as icount_idle's figure
 * does), where two processes would each look at one.
 * The fake link's copy of each frame (its "wire") is in the figures,
 * as a PMD's tx and rx bursts would be.
 *
 * Portals (lib/portals over the engine's transport), last, so that
 * MX's figures are taken before a Portals endpoint exists: an interface
 * on each board (process PTL_PID), set up as ptl_pingpong's receiver
 * (board 1) and sender (board 0), each polling its event queue with
 * PtlEQGet, which makes a progress pass when the queue is empty:
 *
 *   icount_ptl_put  one round trip of 8-byte puts, as ptl_pingpong: the
 *                 sender puts into the receiver's entry, the receiver
 *                 polls until PUT_END, puts the same bytes back, and
 *                 the sender polls until its PUT_END.  Both sides; half
 *                 of it is the figure set beside half of icount_rtt.
 *   icount_ptl_get  one 8-byte get, as ptl_pingpong -g: PtlGetRegion,
 *                 the target's PtlEQGet (its pass takes the GET, sends
 *                 the REPLY, logs GET_END, which the call takes), then
 *                 the initiator's until REPLY_END.  Set beside
 *                 icount_rtt (two MX half round trips).
 *
 * Deterministic: no progression thread (MX_PROGRESSION=0), and nothing
 * decided by the clock.  Under callgrind the program runs some 50 times
 * slower, so the 5 us delayed-ack timer would always have fired and
 * explicit acks would follow the wall clock: MX_ACK_DELAY_US=1000000
 * leaves only the count rule (an ACK every 16 messages), which is also
 * what a fast stream sees.  MX_RTO_MIN_US=10000000 keeps a message
 * waiting for its ack from ever being resent.  The link watch (every
 * 200 ms, a few instructions) is the one time-driven step left: well
 * under 0.1 instruction per message.  Warm-up rounds first grow the
 * pools and tables, so the measured loops allocate nothing.
 *
 *   icount [-n messages] [-w warm-up]
 */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "csum.h"
#include "fixture.h"
#include <portals3.h>

#define BENCH_NAME "icount"
#include "bench8.h"

#define KIND_DATA	(0x2222ull << 48)
#define KIND_ECHO	(0x2223ull << 48)
#define RUN_MASK	0xffffffff00000000ull

#define BULK_LEN	(1u << 20)
#define BULK_WINDOW	4

static uint8_t sbuf[8], rbuf[8];

/* One progress pass (and a look for a completed request: none). */
static void
pass(mx_endpoint_t ep)
{
	mx_request_t r;
	uint32_t got;

	must(mx_ipeek(ep, &r, &got), "mx_ipeek");
	if (got)
		must(MX_BAD_REQUEST, "a request completed unasked");
}

/* Takes r's completion, which must have come: mx_test's own pass then
 * comes after the measured ones. */
static void
bulk_done(mx_endpoint_t ep, mx_request_t *r)
{
	mx_status_t st;
	uint32_t done;

	must(mx_test(ep, r, &st, &done), "mx_test");
	if (!done || st.code != MX_STATUS_SUCCESS ||
			st.xfer_length != BULK_LEN)
		must(MX_BAD_REQUEST, done ? mx_strstatus(st.code) :
				"bulk: not done");
}

/* ---- the measured steps (noinline: callgrind counts each by name) ---- */

static __attribute__((noinline)) void
icount_send(uint32_t seq)
{
	mx_request_t s = isend8(fx.e0, fx.to1, sbuf, KIND_DATA | seq);

	complete(fx.e0, &s);
	pass(fx.e0);
}

static __attribute__((noinline)) void
icount_recv(uint32_t seq)
{
	mx_request_t r = recv8(fx.e1, rbuf, KIND_DATA | seq,
			MX_MATCH_MASK_NONE);

	complete(fx.e1, &r);
}

static __attribute__((noinline)) void
icount_rtt(uint32_t seq)
{
	mx_request_t echo = recv8(fx.e0, sbuf, KIND_ECHO | seq,
			MX_MATCH_MASK_NONE);
	mx_request_t in = recv8(fx.e1, rbuf, KIND_DATA, RUN_MASK);
	mx_request_t s0, s1;

	s0 = isend8(fx.e0, fx.to1, sbuf, KIND_DATA | seq);
	complete(fx.e0, &s0);
	complete(fx.e1, &in);
	s1 = isend8(fx.e1, fx.to0, rbuf, KIND_ECHO | seq);
	complete(fx.e1, &s1);
	complete(fx.e0, &echo);
}

static __attribute__((noinline)) void
icount_idle(void)
{
	pass(fx.e0);
}

#define PACK_BATCH	40

static __attribute__((noinline)) void
icount_psend(uint32_t seq)
{
	mx_request_t s[PACK_BATCH];

	for (uint32_t i = 0; i < PACK_BATCH; i++)
		s[i] = isend8(fx.e0, fx.to1, sbuf, KIND_DATA | (seq + i));
	for (uint32_t i = 0; i < PACK_BATCH; i++)
		complete(fx.e0, &s[i]);
	pass(fx.e0);
}

static __attribute__((noinline)) void
icount_precv(uint32_t seq)
{
	mx_request_t r[PACK_BATCH];

	for (uint32_t i = 0; i < PACK_BATCH; i++)
		r[i] = recv8(fx.e1, rbuf, KIND_DATA | (seq + i),
				MX_MATCH_MASK_NONE);
	for (uint32_t i = 0; i < PACK_BATCH; i++)
		complete(fx.e1, &r[i]);
}

static uint8_t *bulk_src, *bulk_dst[BULK_WINDOW], bulk_frag[2048];

/*
 * One progress pass over ep's board alone: the library's pass covers
 * every board of the process, which would mix the sides (a pass that
 * did not take all its rx ring's frames leaves them to the next, on
 * either side's step).  The board list is cut to ep's for the call.
 */
static void
board_pass(mx_endpoint_t ep)
{
	struct mxd_board *keep[MXD_MAX_BOARDS];
	unsigned n = mxd_lib.nboards;

	memcpy(keep, mxd_lib.boards, sizeof(keep));
	mxd_lib.boards[0] = ep->board;
	mxd_lib.nboards = 1;
	mxd_progress(ep);
	memcpy(mxd_lib.boards, keep, sizeof(keep));
	mxd_lib.nboards = n;
}

static __attribute__((noinline)) void
icount_bulk_tx(void)
{
	board_pass(fx.e0);
}

static __attribute__((noinline)) void
icount_bulk_rx(void)
{
	board_pass(fx.e1);
}

static __attribute__((noipa)) uint32_t
icount_bulk_copy(uint32_t len)
{
	return mxd_crc_copy(0, bulk_frag, bulk_src, len);
}

/* ---- Portals: ptl_pingpong's two sides, board 0 the sender ---- */

#define PTL_PID		7
#define PT_DATA		2	/* the receiver's entry */
#define PT_SYNC		3	/* the sender's, for the echoes */

struct ptl_side {
	ptl_handle_ni_t ni;
	ptl_process_id_t id;
	ptl_handle_eq_t eq;
	ptl_handle_md_t src;	/* puts go from here */
	ptl_handle_md_t dst;	/* the sender's gets go here */
	uint8_t buf[8], out[8], got[8];
};

static struct ptl_side ps[2];

static void
ptl_must(int rc, const char *what)
{
	if (rc != PTL_OK) {
		fprintf(stderr, "icount: %s: %s\n", what, PtlErrorStr(rc));
		exit(1);
	}
}

static ptl_md_t
ptl_md(void *buf, unsigned options, ptl_handle_eq_t eq)
{
	ptl_md_t md;

	memset(&md, 0, sizeof(md));
	md.start = buf;
	md.length = 8;
	md.threshold = PTL_MD_THRESH_INF;
	md.options = options;
	md.eventq = eq;
	return md;
}

/* An entry of portal pt for any process and bits, with buf's
 * descriptor. */
static void
ptl_entry(struct ptl_side *s, ptl_pt_index_t pt, unsigned options)
{
	ptl_process_id_t any = { PTL_NID_ANY, PTL_PID_ANY };
	ptl_handle_me_t me;

	ptl_must(PtlMEAttach(s->ni, pt, any, 0, ~(ptl_match_bits_t)0,
			PTL_RETAIN, PTL_INS_AFTER, &me), "PtlMEAttach");
	ptl_must(PtlMDAttach(me, ptl_md(s->buf, options, s->eq), PTL_RETAIN,
			PTL_RETAIN, NULL), "PtlMDAttach");
}

static void
ptl_setup(void)
{
	int n;

	ptl_must(PtlInit(&n), "PtlInit");
	for (int k = 0; k < 2; k++) {
		struct ptl_side *s = &ps[k];

		ptl_must(PtlNIInit((ptl_interface_t)k, PTL_PID, NULL, NULL,
				&s->ni), "PtlNIInit");
		ptl_must(PtlGetId(s->ni, &s->id), "PtlGetId");
		ptl_must(PtlEQAlloc(s->ni, 1024, &s->eq), "PtlEQAlloc");
		ptl_must(PtlMDBind(s->ni, ptl_md(s->out,
				PTL_MD_EVENT_START_DISABLE |
				PTL_MD_EVENT_END_DISABLE, PTL_EQ_NONE), &s->src),
				"PtlMDBind");
	}
	ptl_entry(&ps[1], PT_DATA, PTL_MD_OP_PUT | PTL_MD_OP_GET |
			PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_START_DISABLE);
	ptl_entry(&ps[0], PT_SYNC, PTL_MD_OP_PUT | PTL_MD_MANAGE_REMOTE |
			PTL_MD_EVENT_START_DISABLE);
	ptl_must(PtlMDBind(ps[0].ni, ptl_md(ps[0].got,
			PTL_MD_EVENT_START_DISABLE, ps[0].eq), &ps[0].dst),
			"PtlMDBind");
}

/* Polls s's queue until an event comes, as ptl_pingpong does; it must
 * be of this kind (and of this hdr_data, for a put). */
static void
ptl_want(struct ptl_side *s, ptl_event_kind_t kind, uint64_t hdr_data)
{
	ptl_event_t ev;
	int rc;

	for (unsigned long i = 0; (rc = PtlEQGet(s->eq, &ev)) ==
			PTL_EQ_EMPTY; i++)
		if (i > 100000000ul) {
			fprintf(stderr, "icount: no Portals event\n");
			exit(1);
		}
	ptl_must(rc, "PtlEQGet");
	if (ev.type != kind || ev.ni_fail_type != PTL_NI_OK ||
			ev.mlength != 8 || (kind == PTL_EVENT_PUT_END &&
				ev.hdr_data != hdr_data)) {
		fprintf(stderr, "icount: %s where %s was due\n",
				PtlEventKindStr(ev.type), PtlEventKindStr(kind));
		exit(1);
	}
}

static __attribute__((noinline)) void
icount_ptl_put(uint32_t seq)
{
	ptl_must(PtlPutRegion(ps[0].src, 0, 8, PTL_NOACK_REQ, ps[1].id,
			PT_DATA, 0, 0, 0, seq), "PtlPutRegion");
	ptl_want(&ps[1], PTL_EVENT_PUT_END, seq);
	ptl_must(PtlPutRegion(ps[1].src, 0, 8, PTL_NOACK_REQ, ps[0].id,
			PT_SYNC, 0, 0, 0, seq), "PtlPutRegion");
	ptl_want(&ps[0], PTL_EVENT_PUT_END, seq);
}

static __attribute__((noipa)) void
icount_ptl_get(uint32_t seq)
{
	(void)seq;
	ptl_must(PtlGetRegion(ps[0].dst, 0, 8, ps[1].id, PT_DATA, 0, 0, 0),
			"PtlGetRegion");
	ptl_want(&ps[1], PTL_EVENT_GET_END, 0);
	ptl_want(&ps[0], PTL_EVENT_REPLY_END, 0);
}

/* ---- the runs --------------------------------------------------------- */

/* The sender's port holds what it sends until released. */
static int
hold(const uint8_t *frame, uint32_t len)
{
	(void)frame;
	(void)len;
	return FAKE_HOLD;
}

static void
one_way(uint32_t n, uint32_t *seq)
{
	for (uint32_t i = 0; i < n; i++, ++*seq) {
		icount_send(*seq);
		fake_release(&fx.pa);
		icount_recv(*seq);
	}
}

/* n messages (a multiple of PACK_BATCH) in batches. */
static void
packed_way(uint32_t n, uint32_t *seq)
{
	for (uint32_t i = 0; i < n; i += PACK_BATCH, *seq += PACK_BATCH) {
		icount_psend(*seq);
		fake_release(&fx.pa);
		icount_precv(*seq);
	}
}

/*
 * n windows of BULK_WINDOW messages of BULK_LEN: both ports hold what
 * they send, so each side's pass finds only the other's frames of the
 * pass before.  *seq counts the pull replies.
 */
static void
bulk_way(uint32_t n, uint32_t *seq)
{
	const struct mxd_board *b0 = fx.e0->board;

	for (uint32_t w = 0; w < n; w++) {
		mx_request_t s[BULK_WINDOW], r[BULK_WINDOW];
		uint32_t left = 2 * BULK_WINDOW;
		uint64_t before = b0->counters[MXD_C_TX_FRAMES];

		for (uint32_t i = 0; i < BULK_WINDOW; i++) {
			mx_segment_t rs = { bulk_dst[i], BULK_LEN };
			mx_segment_t ss = { bulk_src, BULK_LEN };

			must(mx_irecv(fx.e1, &rs, 1, KIND_DATA | i,
					MX_MATCH_MASK_NONE, NULL, &r[i]),
					"mx_irecv");
			must(mx_isend(fx.e0, &ss, 1, fx.to1, KIND_DATA | i,
					NULL, &s[i]), "mx_isend");
		}
		for (unsigned long k = 0; left != 0; k++) {
			if (k > 1000000ul)
				must(MX_BAD_REQUEST, "bulk: no completion");
			icount_bulk_tx();
			fake_release(&fx.pa);
			icount_bulk_rx();
			fake_release(&fx.pb);
			left = 0;
			for (uint32_t i = 0; i < BULK_WINDOW; i++)
				left += (s[i]->state != MXD_RS_COMPLETE) +
					(r[i]->state != MXD_RS_COMPLETE);
		}
		for (uint32_t i = 0; i < BULK_WINDOW; i++) {
			bulk_done(fx.e0, &s[i]);
			bulk_done(fx.e1, &r[i]);
		}
		/* the messages' RNDV frames and the final acks are not
		 * replies: a window sends BULK_WINDOW RNDVs */
		*seq += (uint32_t)(b0->counters[MXD_C_TX_FRAMES] - before);
	}
}

static void
copies(uint32_t n, uint32_t *seq)
{
	uint32_t frag = fx.e0->board->pull_frag_max;

	for (uint32_t i = 0; i < n; i++, ++*seq)
		icount_bulk_copy(frag);
}

static void
round_trips(uint32_t n, uint32_t *seq)
{
	for (uint32_t i = 0; i < n; i++, ++*seq)
		icount_rtt(*seq);
}

static void
ptl_puts(uint32_t n, uint32_t *seq)
{
	for (uint32_t i = 0; i < n; i++, ++*seq)
		icount_ptl_put(*seq);
}

static void
ptl_gets(uint32_t n, uint32_t *seq)
{
	for (uint32_t i = 0; i < n; i++, ++*seq)
		icount_ptl_get(*seq);
}

static void
idle_passes(uint32_t n, uint32_t *seq)
{
	(void)seq;
	for (uint32_t i = 0; i < n; i++)
		icount_idle();
}

/*
 * The one function callgrind collects in (--collect-atstart=no
 * --toggle-collect=icount_measure): the warm-up runs the same steps
 * outside it, so a step's inclusive count is its measured calls' alone.
 */
static __attribute__((noinline)) void
icount_measure(void (*run)(uint32_t, uint32_t *), uint32_t n, uint32_t *seq)
{
	run(n, seq);
}

/* Nothing left in flight or owed, on either side. */
static void
settle(void)
{
	for (int i = 0; i < 200; i++)
		pass(fx.e0);
}

/*
 * The bulk steps: BULK_WARM windows, then n / 250 measured (8 by
 * default: 32 MiB, some 23000 pull replies).  Prints "bulk: <replies>
 * replies, <frag> bytes each": scripts/icount.sh divides by the first.
 */
#define BULK_WARM	2

static int
bulk(uint32_t n)
{
	uint32_t windows = n / 250 ? n / 250 : 1, frames = 0, w;
	uint32_t frag = fx.e0->board->pull_frag_max;
	uint64_t repulls = fx.e1->board->counters[MXD_C_REPULLS];
	uint64_t replies = (uint64_t)windows * BULK_WINDOW *
		((BULK_LEN + frag - 1) / frag);

	bulk_src = malloc(BULK_LEN);
	for (w = 0; w < BULK_WINDOW; w++)
		bulk_dst[w] = malloc(BULK_LEN);
	if (bulk_src == NULL || bulk_dst[BULK_WINDOW - 1] == NULL) {
		fprintf(stderr, "icount: no memory\n");
		return -1;
	}
	for (uint32_t i = 0; i < BULK_LEN; i++)
		bulk_src[i] = (uint8_t)(i * 7 + 1);
	fx.pa.tap = hold;
	fx.pb.tap = hold;
	bulk_way(BULK_WARM, &frames);
	icount_measure(bulk_way, windows, &frames);
	fx.pa.tap = NULL;
	fx.pb.tap = NULL;
	settle();
	copies(n, &frames);
	icount_measure(copies, n, &frames);
	if (fx.e1->board->counters[MXD_C_REPULLS] != repulls ||
			memcmp(bulk_dst[BULK_WINDOW - 1], bulk_src,
				BULK_LEN) != 0) {
		fprintf(stderr, "icount: bulk: replies asked again, or "
				"the data differ\n");
		return -1;
	}
	printf("bulk: %" PRIu64 " replies, %u bytes each\n", replies, frag);
	return 0;
}

int
main(int argc, char **argv)
{
	uint32_t n = 2000, warm = 1000, seq = 0;
	int c;

	while ((c = getopt(argc, argv, "n:w:")) != -1) {
		switch (c) {
		case 'n': n = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'w': warm = (uint32_t)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: icount [-n messages] "
					"[-w warm-up]\n");
			return 2;
		}
	}
	if (n % 80 != 0 || warm % PACK_BATCH != 0) {
		fprintf(stderr, "icount: -n takes multiples of 80 (the ACK "
				"rule's period, %u, and a batch's size, %u), -w "
				"of %u\n", MXD_ACK_EVERY, PACK_BATCH, PACK_BATCH);
		return 2;
	}
	setenv("MX_PROGRESSION", "0", 1);
	setenv("MX_ACK_DELAY_US", "1000000", 1);
	setenv("MX_RTO_MIN_US", "10000000", 1);
	if (fixture_setup(NULL) < 0)
		return 1;
	fx.pa.tap = hold;
	one_way(warm, &seq);
	icount_measure(one_way, n, &seq);
	fx.pa.tap = NULL;
	settle();
	idle_passes(warm, &seq);
	icount_measure(idle_passes, n, &seq);
	round_trips(warm, &seq);
	icount_measure(round_trips, n, &seq);
	fx.pa.tap = hold;
	packed_way(warm, &seq);
	icount_measure(packed_way, n, &seq);
	fx.pa.tap = NULL;
	if (fx.e0->board->counters[MXD_C_TX_PACKED] < n) {
		fprintf(stderr, "icount: the batches were not packed\n");
		return 1;
	}
	if (bulk(n) != 0)
		return 1;
	ptl_setup();
	ptl_puts(warm, &seq);
	icount_measure(ptl_puts, n, &seq);
	ptl_gets(warm, &seq);
	icount_measure(ptl_gets, n, &seq);
	PtlNIFini(ps[0].ni);
	PtlNIFini(ps[1].ni);
	PtlFini();
	printf("icount: %u messages one way, %u idle passes, %u round trips, "
			"%u packed messages, %u Portals put round trips "
			"and gets measured (callgrind: scripts/icount.sh)\n",
			n, n, n, n, n);
	return fixture_teardown(NULL) < 0;
}
