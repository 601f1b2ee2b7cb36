/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Failure reporting over the fake links, deterministic: frames
 * of the connect handshake held back and delivered late, connect timeouts
 * and wake-ups, closing twice, closing with the link down, the last ack
 * of a session lost: each of these failed before its fix (the first with
 * the old rule, "a FRESH request to a partner past its start resets it").
 * A lost BYE and late pull replies guard behaviour that already held.
 *
 * Standard-mode sends: an mx_isend completes once copied, so a
 * message refused or lost after that is counted (MXD_C_SENDS_LOST) and
 * told by the next send or mx_iconnect to the partner: frames dropped
 * until the peer timeout, a restarted peer, a request reused while its
 * message is still unacknowledged.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "engine/reliable.h"
#include "engine/connect.h"
#include "engine/pull.h"
#include "mxtest.h"

#define e0 fx.e0
#define e1 fx.e1
#define to1 fx.to1
#define to0 fx.to0
#define pa fx.pa
#define pb fx.pb
#define nic0 fx.nic0
#define nic1 fx.nic1

static uint8_t
frame_type(const uint8_t *f, uint32_t len)
{
	return len > MXD_ETH_HLEN + 1 ? f[MXD_ETH_HLEN + 1] : 0xff;
}

static int
hold_conn_req(const uint8_t *f, uint32_t len)
{
	return frame_type(f, len) == MXD_T_CONN_REQ ? FAKE_HOLD : FAKE_PASS;
}

static int
hold_all(const uint8_t *f, uint32_t len)
{
	(void)f;
	(void)len;
	return FAKE_HOLD;
}

static int
drop_acks(const uint8_t *f, uint32_t len)
{
	return frame_type(f, len) == MXD_T_ACK ? FAKE_DROP : FAKE_PASS;
}

static int
drop_all(const uint8_t *f, uint32_t len)
{
	(void)f;
	(void)len;
	return FAKE_DROP;
}

/* e1's acks and refusals vanish (a BYE is an ACK). */
static int
drop_acks_nacks(const uint8_t *f, uint32_t len)
{
	uint8_t t = frame_type(f, len);

	return t == MXD_T_ACK || t == MXD_T_NACK ? FAKE_DROP : FAKE_PASS;
}

static int
hold_pull_replies(const uint8_t *f, uint32_t len)
{
	return frame_type(f, len) == MXD_T_PULL_REP ? FAKE_HOLD : FAKE_PASS;
}

/* e0's eager frames of messages 3 and 7 of a burst (match 0xabc00003,
 * 0xabc00007) are lost the first time. */
static int lost_once;

static int
drop_two_messages_once(const uint8_t *f, uint32_t len)
{
	uint64_t match;

	if (frame_type(f, len) != MXD_T_EAGER ||
			len < MXD_HDRS_LEN + sizeof(struct mxd_eager_hdr))
		return FAKE_PASS;
	match = mxd_get64(f + MXD_HDRS_LEN + 8);
	if ((match == 0xabc00003ull && !(lost_once & 1)) ||
			(match == 0xabc00007ull && !(lost_once & 2))) {
		lost_once |= match == 0xabc00003ull ? 1 : 2;
		return FAKE_DROP;
	}
	return FAKE_PASS;
}

static void
progress_ms(uint32_t ms)
{
	uint64_t end = mxd_now_ns() + ms * 1000000ull;

	while (mxd_now_ns() < end) {
		mx_progress(e0);
		mx_progress(e1);
	}
}

/*
 * Both sides connect; e0's first request (its windows at their start, so
 * flagged FRESH) is held back until e1 has connected the other way, sent
 * e0 a message and is waiting for its ack.  The late request must not
 * end the session: e1's send succeeds, e0's connect completes, and
 * messages flow both ways in order.
 */
static void
late_connect_request(void **state)
{
	uint8_t out[64], in[64];
	mx_request_t c, s, r;
	mx_status_t st;
	uint32_t result;
	struct mxd_partner *p;

	(void)state;
	pa.tap = hold_conn_req;
	assert_int_equal(mx_iconnect(e0, nic1, 2, 0xbeef, 0, NULL, &c),
			MX_SUCCESS);
	progress_ms(5);
	assert_int_not_equal(pa.nheld, 0);
	assert_int_equal(mx_connect(e1, nic0, 1, 0xf00d, 1000, &to0),
			MX_SUCCESS);
	pa.tap = hold_all;		/* e0's acks too, from now */
	mxt_pattern(out, sizeof(out), 1);
	r = mxt_recv(e0, in, sizeof(in), 7, MX_MATCH_MASK_NONE);
	s = mxt_isend(e1, to0, out, sizeof(out), 7);
	mxt_wait(e0, &r);
	mxt_pattern_expect(in, sizeof(in), 1);
	/* Complete once copied (standard mode); its ack is held. */
	assert_int_equal(mx_test(e1, &s, &st, &result), MX_SUCCESS);
	assert_int_equal(result, 1);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	p = mxd_addr_partner(e1, &to0);
	assert_int_equal(mxd_txwin_in_flight(&p->tx), 1);
	pa.tap = NULL;
	fake_release(&pa);		/* the FRESH request first */
	for (int i = 0; i < 100000 && mxd_txwin_in_flight(&p->tx) != 0; i++) {
		mx_progress(e0);
		mx_progress(e1);
	}
	assert_int_equal(mxd_txwin_in_flight(&p->tx), 0);	/* acked */
	st = mxt_wait(e0, &c);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	to1 = st.source;
	for (uint32_t i = 0; i < 4; i++) {
		r = mxt_recv(e1, in, sizeof(in), 8, MX_MATCH_MASK_NONE);
		mxt_pattern(out, sizeof(out), 10 + i);
		mxt_send_ok(e0, to1, out, sizeof(out), 8);
		mxt_wait(e1, &r);
		mxt_pattern_expect(in, sizeof(in), 10 + i);
		r = mxt_recv(e0, in, sizeof(in), 9, MX_MATCH_MASK_NONE);
		mxt_send_ok(e1, to0, out, sizeof(out), 9);
		mxt_wait(e0, &r);
		mxt_pattern_expect(in, sizeof(in), 10 + i);
	}
	assert_int_equal(e1->board->counters[MXD_C_PEER_RESET], 0);
	assert_int_equal(e0->board->counters[MXD_C_PEER_RESET], 0);
	assert_int_equal(e1->board->counters[MXD_C_SENDS_LOST], 0);
}

/* mx_connect's timeout is in milliseconds. */
static void
connect_timeout_ms(void **state)
{
	mx_endpoint_addr_t a;
	uint64_t t0 = mxd_now_ns(), ms;

	(void)state;
	pa.lose = 1;			/* nothing e0 sends arrives */
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 60, &a), MX_TIMEOUT);
	ms = (mxd_now_ns() - t0) / 1000000;
	assert_true(ms >= 59 && ms < 1000);
}

static void *
wake_later(void *arg)
{
	usleep(200 * 1000);
	mx_wakeup(*(mx_endpoint_t *)arg);
	return NULL;
}

/* MX_INFINITE never times out; mx_wakeup ends the wait. */
static void
connect_infinite_woken(void **state)
{
	mx_endpoint_addr_t a;
	pthread_t t;
	uint64_t t0 = mxd_now_ns(), ms;

	(void)state;
	pa.lose = 1;
	assert_int_equal(pthread_create(&t, NULL, wake_later, &e0), 0);
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, MX_INFINITE, &a),
			MX_TIMEOUT);
	ms = (mxd_now_ns() - t0) / 1000000;
	pthread_join(t, NULL);
	assert_true(ms >= 199 && ms < 1500);
	pa.lose = 0;			/* the endpoint still works */
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 1000, &a),
			MX_SUCCESS);
}

/* Closing with the link down has nothing to flush to: no linger. */
static void
close_link_down(void **state)
{
	uint8_t out[64] = { 0 };
	mx_request_t s;
	uint64_t t0;

	(void)state;
	pa.up = 0;
	s = mxt_isend(e0, to1, out, sizeof(out), 1);
	(void)s;
	t0 = mxd_now_ns();
	assert_int_equal(mx_close_endpoint(e0), MX_SUCCESS);
	assert_true(mxd_now_ns() - t0 < 500 * 1000000ull);
	e0 = NULL;
}

/* A closed endpoint closed again is refused, not a double free. */
static void
close_twice(void **state)
{
	mx_endpoint_t e = e0;

	(void)state;
	assert_int_equal(mx_close_endpoint(e), MX_SUCCESS);
	assert_int_equal(mx_close_endpoint(e), MX_BAD_ENDPOINT);
	e0 = NULL;
}

/* Progress until e0 learns that e1 refused it or is lost (bounded). */
static void
progress_until_down(void)
{
	struct mxd_partner *p = mxd_addr_partner(e0, &to1);
	uint64_t end = mxd_now_ns() + 5000000000ull;

	while (mxd_partner_up(p) && mxd_now_ns() < end) {
		mx_progress(e0);
		if (e1 != NULL)
			mx_progress(e1);
	}
	assert_false(mxd_partner_up(p));
}

/*
 * The receiver's acks of the last messages are lost, and it closes: the
 * sender must still learn that they arrived (the closing side makes sure
 * its last ack was heard), not count them lost when the BYE comes.
 */
static void
last_ack_lost_at_close(void **state)
{
	uint8_t out[64], in[64];
	mx_request_t s[4], r;

	(void)state;
	pb.tap = drop_acks;		/* e1's explicit acks vanish */
	mxt_pattern(out, sizeof(out), 3);
	for (unsigned i = 0; i < 4; i++) {
		r = mxt_recv(e1, in, sizeof(in), 5, MX_MATCH_MASK_NONE);
		s[i] = mxt_isend(e0, to1, out, sizeof(out), 5);
		mxt_wait(e1, &r);
		mxt_pattern_expect(in, sizeof(in), 3);
	}
	pb.tap = NULL;
	assert_int_equal(mx_close_endpoint(e1), MX_SUCCESS);
	e1 = NULL;
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
	progress_until_down();		/* the BYE */
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 0);
}

/*
 * The BYE of a closing endpoint lost: the next send learns by NACK.  That
 * send completed once copied; the refusal is counted and fails the send
 * after it.
 */
static void
bye_lost_nack_tells(void **state)
{
	uint8_t out[64] = { 0 };

	(void)state;
	pb.tap = drop_acks;
	assert_int_equal(mx_close_endpoint(e1), MX_SUCCESS);
	e1 = NULL;
	pb.tap = NULL;
	assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 1).code,
			MX_STATUS_SUCCESS);
	progress_until_down();
	assert_true(e0->board->counters[MXD_C_NACK_RCVD] >= 1);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 1);
	assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 1).code,
			MX_STATUS_ENDPOINT_CLOSED);
}

/*
 * Every frame e0 sends is lost for good: its sends (one forgotten at
 * once) complete, copied; after MX_PEER_TIMEOUT_MS e1 is declared
 * unreachable, both messages are counted, and every send after that
 * fails with MX_STATUS_ENDPOINT_UNREACHABLE until a new connect, which
 * starts afresh.  No error handler is called (the default one is fatal).
 */
static void
frames_lost_then_next_send_fails(void **state)
{
	uint8_t out[64] = { 0 }, in[64];
	mx_segment_t seg = { out, sizeof(out) };
	mx_request_t f, r;

	(void)state;
	mxd_conf.peer_timeout_ms = 100;
	pa.tap = drop_all;
	assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 1).code,
			MX_STATUS_SUCCESS);
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &f), MX_SUCCESS);
	assert_int_equal(mx_forget(e0, &f), MX_SUCCESS);
	progress_until_down();
	assert_int_equal(e0->board->counters[MXD_C_PEER_DEAD], 1);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 2);
	for (int i = 0; i < 2; i++)
		assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 1).code,
				MX_STATUS_ENDPOINT_UNREACHABLE);
	assert_true(mxd_list_empty(&e0->done));
	pa.tap = NULL;
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 1000, &to1),
			MX_SUCCESS);
	r = mxt_recv(e1, in, sizeof(in), 2, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 2).code,
			MX_STATUS_SUCCESS);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 2);
}

/*
 * A message sent before a start-over and delayed (on another port, in a
 * queue that was not served) arrives after the new connect: it must be
 * dropped as stale, not taken for message 1 of the new epoch, whose own
 * message 1 would then be dropped as a duplicate: the receive got the
 * old message's bytes, and the new one was lost.  e0's frames are held
 * until e0 declares e1 lost; the connect passes; the held frames are
 * delivered just before the new message.
 */
static void
old_epoch_frames_stale(void **state)
{
	uint8_t old[64], out[64], in[64];
	mx_request_t r;
	mx_status_t st;
	uint64_t stale0;

	(void)state;
	mxd_conf.peer_timeout_ms = 100;
	mxt_pattern(old, sizeof(old), 1);
	mxt_pattern(out, sizeof(out), 2);
	pa.tap = hold_all;
	assert_int_equal(mxt_send(e0, to1, old, sizeof(old), 7).code,
			MX_STATUS_SUCCESS);
	progress_until_down();
	assert_int_equal(e0->board->counters[MXD_C_PEER_DEAD], 1);
	pa.tap = NULL;
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 1000, &to1),
			MX_SUCCESS);
	assert_int_not_equal(pa.nheld, 0);
	/* The old message's loss, told once, to the next send. */
	assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 7).code,
			MX_STATUS_ENDPOINT_UNREACHABLE);
	stale0 = e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_STALE];
	r = mxt_recv(e1, in, sizeof(in), 7, MX_MATCH_MASK_NONE);
	fake_release(&pa);		/* the old frames, then the new one */
	assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 7).code,
			MX_STATUS_SUCCESS);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	mxt_pattern_expect(in, sizeof(in), 2);
	assert_true(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_STALE] >
			stale0);
	/* Nothing else arrives: the old message is gone for good. */
	r = mxt_recv(e1, in, sizeof(in), 7, MX_MATCH_MASK_NONE);
	progress_ms(20);
	assert_int_equal(mx_cancel(e1, &r, &(uint32_t){ 0 }), MX_SUCCESS);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 1);
}

/*
 * e1 restarts (closes, its BYE and refusals lost; opens again with a new
 * session) and connects to e0 itself: e0's partner is up again at once,
 * and a message e0 sent to the old session is lost: counted (sends lost,
 * partners restarted), not told to the new session, whose connect and
 * first message go.
 */
static void
restarted_peer_loss_counted(void **state)
{
	uint8_t out[64] = { 0 }, in[64];
	mx_endpoint_addr_t a;
	mx_request_t c, r;
	mx_status_t st;

	(void)state;
	pb.tap = drop_acks_nacks;
	assert_int_equal(mx_close_endpoint(e1), MX_SUCCESS);
	assert_int_equal(mxt_send(e0, to1, out, sizeof(out), 1).code,
			MX_STATUS_SUCCESS);
	progress_ms(5);			/* refused, but e0 does not hear */
	assert_true(mxd_partner_up(mxd_addr_partner(e0, &to1)));
	pb.tap = NULL;
	assert_int_equal(mx_open_endpoint(1, 2, 0xbeef, NULL, 0, &e1),
			MX_SUCCESS);
	assert_int_equal(mx_connect(e1, nic0, 1, 0xf00d, 1000, &a),
			MX_SUCCESS);
	assert_int_equal(e0->board->counters[MXD_C_PEER_RESET], 1);
	assert_int_equal(e0->board->counters[MXD_C_SENDS_LOST], 1);
	assert_true(mxd_partner_up(mxd_addr_partner(e0, &to1)));
	/* The loss concerned e1's past life: counted, not told to the new
	 * one (a server answering whoever comes next must not fail the
	 * newcomer's first reply). */
	assert_int_equal(mx_iconnect(e0, nic1, 2, 0xbeef, 0, NULL, &c),
			MX_SUCCESS);
	st = mxt_wait(e0, &c);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	r = mxt_recv(e1, in, sizeof(in), 2, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_send(e0, st.source, out, sizeof(out), 2).code,
			MX_STATUS_SUCCESS);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
}

/*
 * A completed send's request is released while its message is still
 * unacknowledged, and the pool gives the same request to a receive: the
 * message's ack, when it comes, must not touch that receive.
 */
static void
request_reused_before_ack(void **state)
{
	uint8_t out[64] = { 0 }, in[64];
	mx_segment_t seg = { out, sizeof(out) }, rs = { in, sizeof(in) };
	mx_request_t s, r, old;
	uint32_t result;

	(void)state;
	pb.tap = hold_all;		/* e1's acks wait */
	assert_int_equal(mx_isend(e0, &seg, 1, to1, 1, NULL, &s), MX_SUCCESS);
	old = s;
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	assert_int_equal(mx_irecv(e0, &rs, 1, 9, MX_MATCH_MASK_NONE, NULL, &r),
			MX_SUCCESS);
	assert_ptr_equal(r, old);	/* the same request, reused */
	progress_ms(5);
	assert_int_equal(mxd_txwin_in_flight(&mxd_addr_partner(e0,
					&to1)->tx), 1);
	pb.tap = NULL;
	fake_release(&pb);
	progress_ms(5);
	assert_int_equal(mxd_txwin_in_flight(&mxd_addr_partner(e0,
					&to1)->tx), 0);
	assert_int_equal(r->state, MXD_RS_POSTED);
	assert_int_equal(mx_test(e0, &r, NULL, &result), MX_SUCCESS);
	assert_int_equal(result, 0);
	assert_int_equal(mx_cancel(e0, &r, &result), MX_SUCCESS);
	assert_int_equal(result, 1);
}

/*
 * A large receive ended while its pull replies are on the wire: the
 * sender declared lost, or the receiving endpoint closed.  The replies
 * that arrive later must not touch the receive's buffer, which the
 * application has freed (ASan in the sanitizer suite sees any write).
 */
static void
late_pull_replies(int close)
{
	const uint32_t len = 1 << 20;
	uint8_t *out = malloc(len), *in = malloc(len);
	mx_request_t s, r;
	mx_status_t st;
	uint32_t result;

	assert_non_null(out);
	assert_non_null(in);
	mxt_pattern(out, len, 4);
	pa.tap = hold_pull_replies;	/* e0 serves e1's pulls */
	r = mxt_recv(e1, in, len, 6, MX_MATCH_MASK_NONE);
	s = mxt_isend(e0, to1, out, len, 6);
	progress_ms(20);
	assert_int_not_equal(pa.nheld, 0);
	assert_int_equal(mx_test(e1, &r, &st, &result), MX_SUCCESS);
	assert_int_equal(result, 0);
	if (close) {
		assert_int_equal(mx_close_endpoint(e1), MX_SUCCESS);
		e1 = NULL;
	} else {
		struct mxd_partner *p = mxd_addr_partner(e1, &to0);

		assert_non_null(p);
		mxd_partner_lost(p, MX_STATUS_ENDPOINT_UNREACHABLE);
		assert_int_equal(mxt_wait(e1, &r).code,
				MX_STATUS_ENDPOINT_UNREACHABLE);
	}
	free(in);			/* the application's buffer is gone */
	pa.tap = NULL;
	fake_release(&pa);
	progress_ms(20);
	if (!close)
		assert_true(e1->board->counters[MXD_C_DROP_BASE +
				MXD_DROP_STALE] > 0);
	mx_cancel(e0, &s, &result);	/* not matched: stays pending */
	free(out);
}

static void
late_pull_replies_lost(void **state)
{
	(void)state;
	late_pull_replies(0);
}

static void
late_pull_replies_closed(void **state)
{
	(void)state;
	late_pull_replies(1);
}

/*
 * A large message still unexpected when its sender restarts: only its
 * announcement is here, and the restarted sender's first large send may
 * take the same handle.  The receive that takes it must fail (the sender
 * failed the send), pull nothing, and leave the new message to its own
 * receive; before, it pulled the new message's bytes and reported
 * success, and the new message's receive waited for ever.
 */
static void
large_unexpected_sender_restarted(void **state)
{
	const uint32_t len = 100000;
	uint8_t *old = malloc(len), *neu = malloc(len), *in = malloc(len);
	uint32_t linger = mxd_conf.close_linger_ms, result = 0;
	mx_request_t s, r;
	mx_endpoint_addr_t a;
	mx_status_t st;

	(void)state;
	mxt_pattern(old, len, 1);
	mxt_pattern(neu, len, 2);
	memset(in, 0, len);
	s = mxt_isend(e0, to1, old, len, 5);
	(void)s;
	progress_ms(5);
	assert_int_equal(mx_iprobe(e1, 5, MX_MATCH_MASK_NONE, &st, &result),
			MX_SUCCESS);
	assert_int_equal(result, 1);	/* announced, unexpected */
	mxd_conf.close_linger_ms = 0;	/* abrupt, as a crash */
	assert_int_equal(mx_close_endpoint(e0), MX_SUCCESS);
	mxd_conf.close_linger_ms = linger;
	assert_int_equal(mx_open_endpoint(0, 1, 0xf00d, NULL, 0, &e0),
			MX_SUCCESS);
	assert_int_equal(mx_connect(e0, nic1, 2, 0xbeef, 1000, &a),
			MX_SUCCESS);
	s = mxt_isend(e0, a, neu, len, 6);
	progress_ms(5);
	r = mxt_recv(e1, in, len, 5, MX_MATCH_MASK_NONE);
	st = mxt_wait(e1, &r);
	assert_int_equal(st.code, MX_STATUS_ENDPOINT_CLOSED);
	assert_int_equal(in[0], 0);		/* nothing pulled */
	assert_int_equal(in[len - 1], 0);
	r = mxt_recv(e1, in, len, 6, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
	mxt_pattern_expect(in, len, 2);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	free(old);
	free(neu);
	free(in);
}

static int
drop_pull_replies(const uint8_t *f, uint32_t len)
{
	return frame_type(f, len) == MXD_T_PULL_REP ? FAKE_DROP : FAKE_PASS;
}

/*
 * A large send that ends without being pulled (here its request timeout;
 * mx_disconnect ends one the same way) while its receiver is
 * alive: the receiver's PULLs are answered GONE and its receive fails
 * with MX_STATUS_ABORTED.  Before, the PULLs were refused in silence and
 * asked again for ever, the partner answering every liveness probe.  Once
 * with the message still unexpected, once in the middle of the pull.
 */
static void
large_send_ended_receive_aborted(void **state)
{
	const uint32_t len = 1 << 20;
	uint8_t *out = malloc(len), *in = malloc(len);
	uint64_t gone0 = e0->board->counters[MXD_C_PULL_GONE];
	mx_request_t s, r;

	(void)state;
	mxt_pattern(out, len, 3);
	s = mxt_isend(e0, to1, out, len, 8);
	assert_int_equal(mx_set_request_timeout(e0, s, 20), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_TIMEOUT);
	r = mxt_recv(e1, in, len, 8, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_ABORTED);

	pa.tap = drop_pull_replies;	/* the pull starts, nothing comes */
	r = mxt_recv(e1, in, len, 9, MX_MATCH_MASK_NONE);
	s = mxt_isend(e0, to1, out, len, 9);
	assert_int_equal(mx_set_request_timeout(e0, s, 20), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_TIMEOUT);
	pa.tap = NULL;
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_ABORTED);
	assert_true(mxd_partner_up(mxd_addr_partner(e1, &to0)));
	assert_true(e0->board->counters[MXD_C_PULL_GONE] >= gone0 + 2);
	assert_int_equal(e1->board->counters[MXD_C_PULLS_ABORTED], 2);
	/* The partners still work. */
	r = mxt_recv(e1, in, len, 10, MX_MATCH_MASK_NONE);
	mxt_send_ok(e0, to1, out, len, 10);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
	mxt_pattern_expect(in, len, 3);
	/* mx_disconnect ends it the same way. */
	s = mxt_isend(e0, to1, out, len, 11);
	progress_ms(5);
	assert_int_equal(mx_disconnect(e0, to1), MX_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_CANCELLED);
	r = mxt_recv(e1, in, len, 11, MX_MATCH_MASK_NONE);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_ABORTED);
	free(out);
	free(in);
}

/*
 * A block whose replies come slowly, but come (a deep queue at the
 * sender, a slow link): it is not asked again while they come.  Before,
 * its timeout ran from the ask: at each expiry the frames not yet there
 * were asked again, though the sender still had them queued, and each
 * copy queued behind them delayed the next block more; a veth pair once
 * carried mostly copies so, a stream at a seventh of its rate.  Here the
 * 50 replies of a one-block message come one per millisecond, 50 ms in
 * all, with a 10 ms timeout (room for a loaded machine's pauses): no
 * frame is asked again, none comes twice.
 */
static void
slow_replies_not_asked_again(void **state)
{
	uint32_t rto = mxd_conf.rto_min_us, frag = e0->board->pull_frag_max;
	uint32_t len = 50 * frag;
	uint8_t *out = malloc(len), *in = malloc(len);
	uint64_t repulls0 = e1->board->counters[MXD_C_REPULLS];
	uint64_t dup0 = e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_DUP];
	uint64_t next = 0, end;
	mx_request_t s, r;
	mx_status_t st;
	uint32_t done = 0;

	(void)state;
	mxd_conf.rto_min_us = 10000;
	mxt_pattern(out, len, 5);
	pa.tap = hold_pull_replies;
	r = mxt_recv(e1, in, len, 12, MX_MATCH_MASK_NONE);
	s = mxt_isend(e0, to1, out, len, 12);
	end = mxd_now_ns() + 2000000000ull;
	while (!done && mxd_now_ns() < end) {
		mx_progress(e0);
		mx_progress(e1);
		if (mxd_now_ns() >= next && pa.nheld > 0) {
			fake_release_n(&pa, 1);
			next = mxd_now_ns() + 1000000;
		}
		assert_int_equal(mx_test(e1, &r, &st, &done), MX_SUCCESS);
	}
	pa.tap = NULL;
	fake_release(&pa);
	assert_int_equal(done, 1);
	assert_int_equal(st.code, MX_STATUS_SUCCESS);
	mxt_pattern_expect(in, len, 5);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	assert_int_equal(e1->board->counters[MXD_C_REPULLS], repulls0);
	assert_int_equal(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_DUP],
			dup0);
	mxd_conf.rto_min_us = rto;
	free(out);
	free(in);
}

/* e1's first PULL: where it starts and how long it is. */
static uint32_t pull_off, pull_len;
static int pulls_seen;

static int
watch_pulls(const uint8_t *f, uint32_t len)
{
	if (frame_type(f, len) == MXD_T_PULL && pulls_seen++ == 0) {
		pull_off = mxd_get32(f + MXD_HDRS_LEN +
				offsetof(struct mxd_pull_hdr, offset));
		pull_len = mxd_get32(f + MXD_HDRS_LEN +
				offsetof(struct mxd_pull_hdr, length));
	}
	return FAKE_PASS;
}

/*
 * A message of 2^32 - 1 bytes (256 segments over one 16 MiB buffer on
 * each side) whose last frame is missing: the PULL asking for it again
 * must end at the message's end.  The end of the run was computed in 32
 * bits, wrapped past 2^32 and escaped the clamp, and the sender dropped
 * the PULL (offset + length past 4 GiB) each time: the frame was never
 * asked for right.  White box: the pull's state is set as if every other
 * frame had come, and its timer runs.
 */
static void
repull_at_4gib_ends_in_range(void **state)
{
	enum { NSEG = 256 };
	const uint32_t chunk = 16u << 20;
	uint8_t *sbuf = calloc(1, chunk), *rbuf = calloc(1, chunk);
	mx_segment_t ss[NSEG], rs[NSEG];
	struct mxd_partner *p = mxd_addr_partner(e1, &to0);
	struct mxd_pull *pl = NULL;
	struct mxd_pullblk *k;
	uint32_t span, last, result;
	mx_request_t s, r;

	(void)state;
	for (int i = 0; i < NSEG; i++) {
		ss[i] = (mx_segment_t){ sbuf, chunk };
		rs[i] = (mx_segment_t){ rbuf, chunk };
	}
	ss[NSEG - 1].segment_length = chunk - 1;	/* 2^32 - 1 in all */
	rs[NSEG - 1].segment_length = chunk - 1;
	pb.tap = drop_all;		/* e1's PULLs: nothing is served */
	assert_int_equal(mx_irecv(e1, rs, NSEG, 9, MX_MATCH_MASK_NONE, NULL,
				&r), MX_SUCCESS);
	assert_int_equal(mx_isend(e0, ss, NSEG, to1, 9, NULL, &s), MX_SUCCESS);
	progress_ms(5);
	for (uint32_t i = 0; i < MXD_PULLS_MAX; i++)
		if (e1->pulls[i] != NULL)
			pl = e1->pulls[i];
	assert_non_null(pl);
	assert_int_equal(pl->total, UINT32_MAX);
	for (int b = 1; b < MXD_PULL_BLOCKS; b++) {
		if (pl->blk[b].asked)
			p->a->pulls_out--;
		memset(&pl->blk[b], 0, sizeof(pl->blk[b]));
	}
	k = &pl->blk[0];
	span = (uint32_t)pl->frag * MXD_PULL_FRAMES;
	last = pl->total % span ? pl->total % span : span;
	k->off = pl->total - last;
	k->len = last;
	k->count = (uint8_t)((last + pl->frag - 1) / pl->frag);
	k->have = mxd_frames_mask(k->count) & ~(1ull << (k->count - 1));
	k->n = (uint8_t)(k->count - 1);
	k->n_asked = k->n;
	k->n_seen = k->n;		/* nothing came since */
	k->asked = 1;
	k->asked_at = 1;
	k->tail = (uint8_t)(k->count - 1);
	pl->next = pl->total;
	pl->got = k->off + (uint32_t)(k->count - 1) * pl->frag;
	pulls_seen = 0;
	pb.tap = watch_pulls;
	mxd_pulls_timer(p, mxd_now_ns() + 10000000000ull);
	mxd_board_flush(e1->board);
	assert_int_equal(pulls_seen, 1);
	assert_int_equal(pull_off, k->off + (uint32_t)(k->count - 1) *
			pl->frag);
	assert_int_equal((uint64_t)pull_off + pull_len, UINT32_MAX);
	pb.tap = NULL;
	assert_int_equal(mx_cancel(e0, &s, &result), MX_SUCCESS);
	mx_close_endpoint(e1);		/* ends the pull; the buffer after */
	e1 = NULL;
	free(sbuf);
	free(rbuf);
}

/*
 * Two messages of a burst are lost.  The receiver's
 * SACK names them, the sender sends both again at once: everything
 * arrives long before the retransmission timeout (2 s here).
 */
static void
sack_recovers_holes_at_once(void **state)
{
	enum { N = 12 };
	uint32_t out[N], in[N], rto = mxd_conf.rto_min_us;
	uint32_t rto_max = mxd_conf.rto_max_ms;
	mx_request_t r[N], s[N];
	uint64_t t0;

	(void)state;
	mxd_conf.rto_min_us = 2000000;
	mxd_conf.rto_max_ms = 5000;
	lost_once = 0;
	pa.tap = drop_two_messages_once;
	for (uint32_t i = 0; i < N; i++)
		r[i] = mxt_recv(e1, &in[i], 4, 0xabc00000ull | i,
				MX_MATCH_MASK_NONE);
	t0 = mxd_now_ns();
	for (uint32_t i = 0; i < N; i++) {
		out[i] = i * 11;
		s[i] = mxt_isend(e0, to1, &out[i], 4, 0xabc00000ull | i);
	}
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(mxt_wait(e1, &r[i]).code, MX_STATUS_SUCCESS);
		assert_int_equal(in[i], i * 11);
		mxt_wait(e0, &s[i]);
	}
	assert_int_equal(lost_once, 3);
	assert_true(mxd_now_ns() - t0 < 500000000ull);	/* not the RTO */
	assert_true(e1->board->counters[MXD_C_SACKS_SENT] >= 1);
	assert_true(e0->board->counters[MXD_C_FAST_RETX] >= 2);
	pa.tap = NULL;
	mxd_conf.rto_min_us = rto;
	mxd_conf.rto_max_ms = rto_max;
}

/*
 * Fragments held are not sent again (MXD_F_FRAGS).  e0's eager frames of
 * one 32 KiB message (23 fragments at this MTU), fragments in frag_lose
 * lost the first time each goes.
 */
static uint64_t frag_lose, frag_lost;

static int
drop_frags_once(const uint8_t *f, uint32_t len)
{
	unsigned idx;

	if (frame_type(f, len) != MXD_T_EAGER ||
			len < MXD_HDRS_LEN + sizeof(struct mxd_eager_hdr))
		return FAKE_PASS;
	idx = f[MXD_HDRS_LEN + offsetof(struct mxd_eager_hdr, frag_idx)];
	if (idx < 64 && (frag_lose >> idx & 1) && !(frag_lost >> idx & 1)) {
		frag_lost |= 1ull << idx;
		return FAKE_DROP;
	}
	return FAKE_PASS;
}

/* Sends one 32 KiB message losing 'lose' once; returns the frames sent
 * again, after checking the bytes; frag_spared: the fragments each resend
 * left out because the receiver said it held them. */
static uint64_t frag_spared;

static uint64_t
frags_lost_once(uint64_t lose)
{
	enum { LEN = 32768 };
	static uint8_t out[LEN], in[LEN];
	uint64_t retx0 = e0->board->counters[MXD_C_RETX_FRAMES];
	uint64_t spared0 = e0->board->counters[MXD_C_RETX_SPARED];
	uint64_t retx;
	mx_request_t r, s;

	for (uint32_t i = 0; i < LEN; i++)
		out[i] = (uint8_t)(i * 7 + lose);
	memset(in, 0, sizeof(in));
	frag_lose = lose;
	frag_lost = 0;
	pa.tap = drop_frags_once;
	r = mxt_recv(e1, in, LEN, 0x5eedull, MX_MATCH_MASK_NONE);
	s = mxt_isend(e0, to1, out, LEN, 0x5eedull);
	assert_int_equal(mxt_wait(e1, &r).code, MX_STATUS_SUCCESS);
	assert_int_equal(mxt_wait(e0, &s).code, MX_STATUS_SUCCESS);
	pa.tap = NULL;
	assert_true(frag_lost == lose);
	assert_memory_equal(in, out, LEN);
	progress_ms(5);			/* the last acks */
	retx = e0->board->counters[MXD_C_RETX_FRAMES] - retx0;
	frag_spared = e0->board->counters[MXD_C_RETX_SPARED] - spared0;
	return retx;
}

/*
 * A medium message with fragments lost: before, the whole message (23
 * frames) went again at each retransmission; now the receiver names the
 * fragments it holds and only the others go.  A hole in the middle is
 * named as soon as the last fragment arrives (no timeout: with a 2 s
 * floor the test would take seconds); a lost tail is probed with the
 * last frame alone at the first timeout; a message lost whole costs its
 * frames once more, and one probe.
 */
static void
frags_held_not_sent_again(void **state)
{
	uint32_t rto = mxd_conf.rto_min_us, rto_max = mxd_conf.rto_max_ms;
	uint64_t t0, frag_acks0 = e1->board->counters[MXD_C_FRAG_ACKS];

	(void)state;
	mxd_conf.rto_min_us = 2000000;
	mxd_conf.rto_max_ms = 5000;
	t0 = mxd_now_ns();
	/* A hole: named at once, only it goes again, the rest is spared. */
	assert_int_equal(frags_lost_once(1ull << 5), 1);
	assert_int_equal(frag_spared, 22);
	assert_int_equal(frags_lost_once(1ull << 3 | 1ull << 9 | 1ull << 17),
			3);
	assert_int_equal(frag_spared, 20);
	assert_true(mxd_now_ns() - t0 < 500000000ull);	/* not the RTO */
	assert_true(e1->board->counters[MXD_C_FRAG_ACKS] > frag_acks0);
	/* The tail: the first timeout's probe (50 ms here, and 400 ms to
	 * the next, which a slow machine never reaches) is the last frame
	 * alone. */
	mxd_conf.rto_min_us = 200000;
	assert_int_equal(frags_lost_once(1ull << 22), 1);
	assert_int_equal(frags_lost_once(1ull << 21 | 1ull << 22), 2);
	/* All of it: the probe, then the 22 others once. */
	assert_int_equal(frags_lost_once((1ull << 23) - 1), 23);
	mxd_conf.rto_min_us = rto;
	mxd_conf.rto_max_ms = rto_max;
}

/* e1's first ACK naming fragments held is rewritten to name 'lie_have'
 * instead (sealed again, so it passes the check): a receiver that says
 * it holds what it lacks. */
static uint64_t lie_have;
static int lie_told;

static int
lie_frags_once(const uint8_t *f, uint32_t len)
{
	uint8_t bad[FAKE_ROOM];
	uint32_t rec = MXD_HDRS_LEN;
	uint8_t flags;

	if (lie_told || frame_type(f, len) != MXD_T_ACK)
		return FAKE_PASS;
	flags = f[MXD_ETH_HLEN + offsetof(struct mxd_hdr, flags)];
	if (!(flags & MXD_F_FRAGS))
		return FAKE_PASS;
	if (flags & MXD_F_SACK)
		rec += MXD_SACK_LEN;
	memcpy(bad, f, len);
	mxd_put64(bad + rec + offsetof(struct mxd_frags_rec, have), lie_have);
	mxd_wire_seal(bad);
	fake_inject(&pa, bad, len);
	lie_told = 1;
	return FAKE_DROP;
}

/*
 * The sender trusts the fragments a receiver says it holds, but not for
 * ever.  Fragment 5 of a 23-fragment message is lost; the receiver's
 * first word on it is falsified.  Naming every fragment is no message in
 * part: dropped and counted, and the true word that follows (an explicit
 * ack's, or the answer to the timeout's probe) repairs it.
 * Naming fragment 5 held and 0 missing (a lie the next true word, all
 * but 5, completes to "all held"): before, each timeout sent the last
 * frame alone for ever and the receive never completed (the receiver's
 * duplicate acks kept the partner alive); now the second timeout in a
 * row that finds the record unchanged sends the whole message again.
 */
static void
frags_wrong_record_recovers(void **state)
{
	uint32_t rto = mxd_conf.rto_min_us, rto_max = mxd_conf.rto_max_ms;
	uint64_t bad0 = e0->board->counters[MXD_C_DROP_BASE + MXD_DROP_FRAG];

	(void)state;
	mxd_conf.rto_min_us = 20000;
	mxd_conf.rto_max_ms = 200;
	pb.tap = lie_frags_once;
	lie_told = 0;
	lie_have = (1ull << 23) - 1;
	/* Fragment 5 again, after the timeout's probe if no explicit ack
	 * came first. */
	assert_in_range(frags_lost_once(1ull << 5), 1, 2);
	assert_int_equal(lie_told, 1);
	assert_int_equal(e0->board->counters[MXD_C_DROP_BASE +
			MXD_DROP_FRAG], bad0 + 1);
	lie_told = 0;
	lie_have = ((1ull << 23) - 1) & ~1ull;
	assert_true(frags_lost_once(1ull << 5) >= 23);	/* all of it */
	assert_int_equal(lie_told, 1);
	pb.tap = NULL;
	mxd_conf.rto_min_us = rto;
	mxd_conf.rto_max_ms = rto_max;
}

/* Every frame, both ways, lost with probability 1/5 (seeded). */
static uint64_t lossy_rng;

static int
drop_one_in_five(const uint8_t *f, uint32_t len)
{
	(void)f;
	(void)len;
	lossy_rng = lossy_rng * 6364136223846793005ull + 1442695040888963407ull;
	return (lossy_rng >> 33) % 5 == 0 ? FAKE_DROP : FAKE_PASS;
}

/*
 * 500 ordered messages, 64 in flight, 20% of all frames lost: the
 * round-trip estimate must stay a round trip.  An ack held back by a lost
 * message also covers the messages that arrived behind it long before;
 * taking their time as a sample made the estimate (and the timeout) grow
 * with every loss, to MX_RTO_MAX_MS, and 2000 such messages took 9 s
 * instead of 60 ms.
 */
static void
rtt_estimate_ignores_recovery(void **state)
{
	enum { N = 500, W = 64 };
	static mx_request_t r[N], s[N];
	uint8_t out[64] = { 1 }, in[64];
	struct mxd_partner *p;

	(void)state;
	lossy_rng = 7;
	pa.tap = drop_one_in_five;
	pb.tap = drop_one_in_five;
	for (uint32_t i = 0; i < N; i++)
		r[i] = mxt_recv(e1, in, sizeof(in), i, MX_MATCH_MASK_NONE);
	for (uint32_t i = 0, sent = 0, done = 0; done < N;) {
		mx_status_t st;
		uint32_t ok = 0;

		while (i < N && i - done < W)
			s[i] = mxt_isend(e0, to1, out, sizeof(out), i), i++;
		if (sent < i && mx_test(e0, &s[sent], &st, &ok) ==
				MX_SUCCESS && ok)
			sent++;
		ok = 0;
		if (mx_test(e1, &r[done], &st, &ok) == MX_SUCCESS && ok) {
			assert_int_equal(st.code, MX_STATUS_SUCCESS);
			done++;
		}
	}
	pa.tap = NULL;
	pb.tap = NULL;
	p = mxd_addr_lookup(&to1);
	assert_non_null(p);
	assert_non_null(p->a);		/* its traffic just ended */
	print_message("srtt %u ns, rttvar %u ns, timeout %llu us\n",
			p->a->rtt.srtt, p->a->rtt.var, (unsigned long long)
			mxd_rtt_rto(&p->a->rtt) / 1000);
	assert_true(mxd_rtt_rto(&p->a->rtt) <=
			2ull * mxd_conf.rto_min_us * 1000);
	assert_true(e0->board->counters[MXD_C_FAST_RETX] > 0);
}

/* ---- packed frames lost, copied, late, damaged -------------------------- */

/* What e0's tap does to its PACK frames (the others pass). */
enum pack_fault { PF_DROP, PF_DUP, PF_HOLD, PF_CORRUPT };
static enum pack_fault pf_kind;
static unsigned pf_left;	/* PACK frames still to hurt */
static unsigned pf_hurt;

static int
hurt_packs(const uint8_t *f, uint32_t len)
{
	uint8_t bad[FAKE_ROOM];

	if (frame_type(f, len) != MXD_T_PACK || pf_left == 0)
		return FAKE_PASS;
	pf_left--;
	pf_hurt++;
	switch (pf_kind) {
	case PF_DROP:
		return FAKE_DROP;
	case PF_DUP:
		fake_inject(&pb, f, len);	/* a copy first, then it */
		return FAKE_PASS;
	case PF_HOLD:
		return FAKE_HOLD;		/* after what follows */
	case PF_CORRUPT:
		memcpy(bad, f, len);
		bad[len - 3] ^= 0x40;		/* in the last record */
		fake_inject(&pb, bad, len);
		return FAKE_DROP;
	}
	return FAKE_PASS;
}

/*
 * N messages of 1..40 bytes, all matching the same receive value so
 * that receive i takes message i: the first MX_PACK_AFTER go at once
 * (nothing makes progress while they are posted), the rest queue and
 * leave packed.  'hurt' PACK frames are hurt as pf_kind says; every
 * message arrives once, whole, in order, and nothing more arrives.
 */
static void
packed_faults(enum pack_fault kind, unsigned hurt)
{
	enum { N = MXD_WIN + 400 };
	static uint8_t out[N][40], in[N][40];
	static mx_request_t s[N], r[N];
	mx_request_t extra;
	uint8_t spare[40];
	uint32_t done = 0;
	mx_status_t st;

	pf_kind = kind;
	pf_left = hurt;
	pf_hurt = 0;
	for (unsigned i = 0; i < N; i++)
		r[i] = mxt_recv(e1, in[i], 40, 0x99, MX_MATCH_MASK_NONE);
	extra = mxt_recv(e1, spare, 40, 0x99, MX_MATCH_MASK_NONE);
	pa.tap = hurt_packs;
	for (unsigned i = 0; i < N; i++) {
		mxt_pattern(out[i], 1 + i % 40, i);
		s[i] = mxt_isend(e0, to1, out[i], 1 + i % 40, 0x99);
	}
	for (unsigned i = 0; i < N; i++) {
		if (kind == PF_HOLD && i == N - 50)
			fake_release(&pa);	/* the held ones come late */
		st = mxt_wait(e1, &r[i]);
		assert_int_equal(st.code, MX_STATUS_SUCCESS);
		assert_int_equal(st.xfer_length, 1 + i % 40);
		mxt_pattern_expect(in[i], 1 + i % 40, i);
	}
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(mxt_wait(e0, &s[i]).code, MX_STATUS_SUCCESS);
	fake_release(&pa);
	for (int i = 0; i < 1000; i++)
		mx_progress(e1);
	/* No message twice: the spare receive got nothing. */
	assert_int_equal(mx_test(e1, &extra, &st, &done), MX_SUCCESS);
	assert_int_equal(done, 0);
	assert_int_equal(mx_cancel(e1, &extra, &done), MX_SUCCESS);
	assert_int_equal(done, 1);
	pa.tap = NULL;
	assert_int_equal(pf_hurt, hurt);
	assert_true(e0->board->counters[MXD_C_TX_PACKED] > N / 2);
}

/* Lost PACK frames: each message in them is sent again (by the SACK of
 * those behind, or its timeout) and arrives once. */
static void
packed_frame_dropped(void **state)
{
	(void)state;
	packed_faults(PF_DROP, 3);
	assert_true(e0->board->counters[MXD_C_RETX_MSGS] +
			e0->board->counters[MXD_C_FAST_RETX] >= 1);
}

/* Each PACK frame twice: the copies' messages are dropped, acked. */
static void
packed_frame_duplicated(void **state)
{
	uint64_t dup0 = e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_DUP];

	(void)state;
	packed_faults(PF_DUP, 8);
	assert_true(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_DUP] -
			dup0 >= 8 * 2);
}

/* PACK frames held back, delivered after later ones (or after their
 * messages were sent again): early messages wait for their turn. */
static void
packed_frame_reordered(void **state)
{
	(void)state;
	packed_faults(PF_HOLD, 5);
}

/* A bit flipped in a PACK frame's last record: the frame fails its
 * check, is dropped whole, and its messages come again. */
static void
packed_frame_corrupted(void **state)
{
	uint64_t bad0 = e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_CSUM];

	(void)state;
	packed_faults(PF_CORRUPT, 4);
	assert_int_equal(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_CSUM] -
			bad0, 4);
}

/* Every frame both ways, seeded: lost, copied, damaged or held back. */
static uint64_t chaos_rng;

static int
chaos(struct fake_port *to, const uint8_t *f, uint32_t len)
{
	uint8_t bad[FAKE_ROOM];
	uint32_t x;

	chaos_rng = chaos_rng * 6364136223846793005ull + 1442695040888963407ull;
	x = (uint32_t)(chaos_rng >> 33) % 100;
	if (x < 8)
		return FAKE_DROP;
	if (x < 12) {
		fake_inject(to, f, len);
		return FAKE_PASS;
	}
	if (x < 15 && len > MXD_HDRS_LEN) {
		memcpy(bad, f, len);
		bad[MXD_HDRS_LEN + (chaos_rng >> 40) % (len - MXD_HDRS_LEN)] ^=
			0x10;
		fake_inject(to, bad, len);
		return FAKE_DROP;
	}
	return x < 20 ? FAKE_HOLD : FAKE_PASS;
}

static int
chaos_a(const uint8_t *f, uint32_t len)
{
	return chaos(&pb, f, len);
}

static int
chaos_b(const uint8_t *f, uint32_t len)
{
	return chaos(&pa, f, len);
}

/*
 * 3000 messages of 0..48 bytes streamed in bursts that fill the window
 * (so that most leave packed), through 8% loss, 4% copies, 3% damage
 * and 5% held back (released a little later: reordered) on every frame
 * both ways: each arrives once, whole, in order.
 */
static void
packed_stream_chaos(void **state)
{
	enum { N = 3000, B = MXD_WIN + 150 };
	static uint8_t out[N][48], in[N][48];
	static mx_request_t s[N], r[N];
	uint32_t posted = 0, got = 0, sent = 0, rto = mxd_conf.rto_min_us;

	(void)state;
	mxd_conf.rto_min_us = 10000;
	chaos_rng = 15;
	pa.tap = chaos_a;
	pb.tap = chaos_b;
	for (unsigned i = 0; i < N; i++)
		r[i] = mxt_recv(e1, in[i], 48, 0x55, MX_MATCH_MASK_NONE);
	while (got < N) {
		mx_status_t st;
		uint32_t ok = 0;

		while (posted < N && posted - sent < B) {
			mxt_pattern(out[posted], posted % 49, posted);
			s[posted] = mxt_isend(e0, to1, out[posted],
					posted % 49, 0x55);
			posted++;
		}
		if (sent < posted && mx_test(e0, &s[sent], &st, &ok) ==
				MX_SUCCESS && ok) {
			assert_int_equal(st.code, MX_STATUS_SUCCESS);
			sent++;
		}
		ok = 0;
		if (mx_test(e1, &r[got], &st, &ok) == MX_SUCCESS && ok) {
			assert_int_equal(st.code, MX_STATUS_SUCCESS);
			assert_int_equal(st.xfer_length, got % 49);
			mxt_pattern_expect(in[got], got % 49, got);
			got++;
		}
		if ((got + sent) % 7 == 0) {
			fake_release(&pa);
			fake_release(&pb);
		}
	}
	pa.tap = NULL;
	pb.tap = NULL;
	fake_release(&pa);
	fake_release(&pb);
	mxd_conf.rto_min_us = rto;
	print_message("%llu packed; %llu bad checksums, %llu duplicates\n",
			(unsigned long long)
			e0->board->counters[MXD_C_TX_PACKED],
			(unsigned long long)e1->board->counters[MXD_C_DROP_BASE
			+ MXD_DROP_CSUM], (unsigned long long)
			e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_DUP]);
	assert_true(e0->board->counters[MXD_C_TX_PACKED] > N / 3);
	assert_true(e1->board->counters[MXD_C_RX_PACKED] > N / 3);
	assert_true(e1->board->counters[MXD_C_DROP_BASE + MXD_DROP_CSUM] > 0);
	while (sent < N)
		assert_int_equal(mxt_wait(e0, &s[sent++]).code,
				MX_STATUS_SUCCESS);
}

static int
setup(void **state)
{
	return fixture_setup(state);
}

static int
setup_open(void **state)
{
	return fixture_open(state);
}

static int
teardown(void **state)
{
	return fixture_teardown(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(late_connect_request,
				setup_open, teardown),
		cmocka_unit_test_setup_teardown(packed_frame_dropped, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_frame_duplicated, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_frame_reordered, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_frame_corrupted, setup,
				teardown),
		cmocka_unit_test_setup_teardown(packed_stream_chaos, setup,
				teardown),
		cmocka_unit_test_setup_teardown(sack_recovers_holes_at_once,
				setup, teardown),
		cmocka_unit_test_setup_teardown(rtt_estimate_ignores_recovery,
				setup, teardown),
		cmocka_unit_test_setup_teardown(frags_held_not_sent_again,
				setup, teardown),
		cmocka_unit_test_setup_teardown(frags_wrong_record_recovers,
				setup, teardown),
		cmocka_unit_test_setup_teardown(connect_timeout_ms, setup,
				teardown),
		cmocka_unit_test_setup_teardown(connect_infinite_woken, setup,
				teardown),
		cmocka_unit_test_setup_teardown(close_link_down, setup,
				teardown),
		cmocka_unit_test_setup_teardown(close_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(last_ack_lost_at_close, setup,
				teardown),
		cmocka_unit_test_setup_teardown(bye_lost_nack_tells, setup,
				teardown),
		cmocka_unit_test_setup_teardown(frames_lost_then_next_send_fails,
				setup, teardown),
		cmocka_unit_test_setup_teardown(old_epoch_frames_stale, setup,
				teardown),
		cmocka_unit_test_setup_teardown(restarted_peer_loss_counted, setup,
				teardown),
		cmocka_unit_test_setup_teardown(request_reused_before_ack, setup,
				teardown),
		cmocka_unit_test_setup_teardown(late_pull_replies_lost, setup,
				teardown),
		cmocka_unit_test_setup_teardown(late_pull_replies_closed,
				setup, teardown),
		cmocka_unit_test_setup_teardown(
				large_unexpected_sender_restarted, setup,
				teardown),
		cmocka_unit_test_setup_teardown(
				large_send_ended_receive_aborted, setup,
				teardown),
		cmocka_unit_test_setup_teardown(repull_at_4gib_ends_in_range,
				setup, teardown),
		cmocka_unit_test_setup_teardown(slow_replies_not_asked_again,
				setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
