/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One endpoint and 10,000 peers over the fake link: the peers are fake
 * (tests/common/fake_peer.h: the wire protocol emulated, a few dozen
 * bytes each), the endpoint is the library's.  Every peer connects, and
 * sends and receives a message of each class -- one frame, several
 * frames, large (pulled), synchronous -- every byte checked; the first
 * messages of all peers together, so that all of them have traffic state
 * at once, the rest in waves.  Then the traffic states go back to their
 * pool, which gives the heap what it holds beyond its floor a second
 * later, and the endpoint holds its partners alone.
 *
 * Printed: the memory per idle partner (its struct, its slots in the
 * table and the hash, the chunks they come in) and per active partner
 * (the traffic state, receive windows' slots and PULL queues of the
 * pools, over the partners that held them), measured from the endpoint's
 * tables and pools (mxd_ep_mem) and, where the allocator tells
 * (mallinfo2: not under a sanitizer), from the heap (less the fake
 * link's buffers, which it keeps as a mempool would), once the pools
 * gave back what they held beyond their floors; and the
 * instructions per message (user space, the CPU's counter) of a send and
 * a receive with one partner known and with 10,000, where the CPU lets a
 * program count them (perf_event_open).
 *
 *   test_scale [peers]
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_peer.h"
#include "fixture.h"
#include "mxtest.h"

#define FILTER		0x5ca1e0
#define WAVE		250
#define SMALL		24
#define MEDIUM		3000		/* three fragments */
#define LARGE		10000		/* above MX_RNDV_THRESHOLD, set below */
#define SYNC		40
#define CLASSES		4		/* small, medium, large, synchronous */

static const uint32_t lens[CLASSES] = { SMALL, MEDIUM, LARGE, SYNC };
static const char *const names[CLASSES] = {
	"small", "medium", "large", "synchronous" };

static struct fake_port pa, pb;
static struct fake_peers fp;
static mx_endpoint_t ep;
static mx_endpoint_addr_t *addr;	/* [peers], from their messages */
static uint8_t *got;			/* [peers]: classes received, a bit
					 * each */
static uint32_t peers;

static void
fail(const char *file, int line, const char *msg)
{
	fprintf(stderr, "test_scale: %s:%d: %s\n", file, line, msg);
	exit(1);
}

/* Match information: class, direction (1: to the peers), peer. */
static uint64_t
tag(uint32_t c, uint32_t dir, uint32_t i)
{
	return (uint64_t)(c + 1) << 48 | (uint64_t)dir << 40 | i;
}

static uint32_t
seed(uint32_t c, uint32_t dir, uint32_t i)
{
	return i * 131u + c * 17u + dir * 7u + 1;
}

/* A message a fake peer received from the endpoint: checked. */
static void
peer_got(struct fake_peers *f, uint32_t i, uint64_t match,
		const uint8_t *data, uint32_t len, void *arg)
{
	uint32_t c = (uint32_t)(match >> 48) - 1;

	(void)f;
	(void)arg;
	if (match >> 48 == 0x78)	/* per_message's */
		return;
	MXT_CHECK(c < CLASSES && match == tag(c, 1, i) && len == lens[c],
			"peer %u: unexpected message %#" PRIx64 " (%u bytes)",
			i, match, len);
	MXT_CHECK(mxt_pattern_ok(data, len, seed(c, 1, i)),
			"peer %u: class %s: wrong byte %u", i, names[c],
			mxt_pattern_check(data, len, seed(c, 1, i)));
	MXT_CHECK(!(got[i] & (1u << c)), "peer %u: %s twice", i, names[c]);
	got[i] |= (uint8_t)(1u << c);
}

/* The endpoint's passes and the peers' answers, a round. */
static void
step(void)
{
	fake_peers_poll(&fp, 8);
	for (int k = 0; k < 4; k++)
		mxd_progress(ep);
}

/* Steps until done(arg), at most 'max' rounds. */
static void
until(int (*done)(void *), void *arg, unsigned long max, const char *what)
{
	for (unsigned long k = 0; !done(arg); k++) {
		MXT_CHECK(k < max, "%s: not done after %lu rounds", what, k);
		step();
	}
}

struct reqs {
	mx_request_t *r;
	uint32_t n;
};

static int
all_done(void *arg)
{
	struct reqs *q = arg;
	uint32_t left = 0;

	for (uint32_t k = 0; k < q->n; k++) {
		mx_status_t st;
		uint32_t done = 0;

		if (q->r[k] == NULL)
			continue;
		MXT_CHECK(mx_test(ep, &q->r[k], &st, &done) == MX_SUCCESS,
				"mx_test");
		if (!done) {
			left++;
			continue;
		}
		MXT_CHECK(st.code == MX_STATUS_SUCCESS, "request %u: %s", k,
				mx_strstatus(st.code));
		q->r[k] = NULL;
	}
	return left == 0;
}

/* ---- the memory figures ----------------------------------------------- */

static size_t
heap(void)
{
	return mallinfo2().uordblks;
}

/* ---- instructions (where the CPU counts them for a program) ----------- */

static int counter = -1, counter_errno;
static uint64_t counted;

static void
counter_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	counter = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	counter_errno = errno;
}

static void
count_on(void)
{
	if (counter >= 0)
		ioctl(counter, PERF_EVENT_IOC_ENABLE, 0);
}

static void
count_off(void)
{
	uint64_t v = 0;

	if (counter < 0)
		return;
	ioctl(counter, PERF_EVENT_IOC_DISABLE, 0);
	if (read(counter, &v, sizeof(v)) == sizeof(v))
		counted = v;
}

#define ROUNDS	2000

static uint8_t ping_buf[8], pong_buf[8];

/* The endpoint's calls of a round (noinline: callgrind counts each by
 * name, scripts/icount.sh --scale): its send to peer 0 with the receive
 * of the answer posted, then that receive's completion. */
#define ROUND_FNS(n)							\
static __attribute__((noinline)) void					\
ping_##n(uint32_t k, mx_request_t *r)					\
{									\
	mx_segment_t so = { ping_buf, 8 }, si = { pong_buf, 8 };	\
	mx_request_t s;							\
	mx_status_t st;							\
	uint32_t done = 0;						\
									\
	MXT_CHECK(mx_irecv(ep, &si, 1, 0x77ull << 48 | k,		\
				MX_MATCH_MASK_NONE, NULL, r) ==		\
			MX_SUCCESS && mx_isend(ep, &so, 1, addr[0],	\
				0x78ull << 48 | k, NULL, &s) ==		\
			MX_SUCCESS, "ping %u", k);			\
	while (mx_test(ep, &s, &st, &done) == MX_SUCCESS && !done)	\
		;							\
}									\
									\
static __attribute__((noinline)) void					\
pong_##n(uint32_t k, mx_request_t *r)					\
{									\
	mx_status_t st;							\
	uint32_t done = 0;						\
									\
	while (mx_test(ep, r, &st, &done) == MX_SUCCESS && !done)	\
		;							\
	MXT_CHECK(st.code == MX_STATUS_SUCCESS, "pong %u: %s", k,	\
			mx_strstatus(st.code));				\
}
ROUND_FNS(one)
ROUND_FNS(many)

/*
 * ROUNDS messages each way between the endpoint and peer 0, one at a
 * time: the instructions of the endpoint's calls alone (its sends, its
 * receives, the passes that take the peer's frames), per message.
 */
static double
per_message(int many)
{
	uint64_t total = 0;

	for (uint32_t k = 0; k < ROUNDS; k++) {
		mx_request_t r;

		if (counter >= 0)
			ioctl(counter, PERF_EVENT_IOC_RESET, 0);
		count_on();
		(many ? ping_many : ping_one)(k, &r);
		count_off();
		total += counted;
		fake_peers_poll(&fp, 8);
		MXT_CHECK(fake_peer_send(&fp, 0, 0x77ull << 48 | k, ping_buf,
					8, 0) == 0, "pong %u", k);
		fake_peers_poll(&fp, 1);	/* the frame goes out */
		if (counter >= 0)
			ioctl(counter, PERF_EVENT_IOC_RESET, 0);
		count_on();
		(many ? pong_many : pong_one)(k, &r);
		count_off();
		total += counted;
	}
	return (double)total / (2.0 * ROUNDS);
}

/* ---- the run ------------------------------------------------------------ */

static void
open_all(void)
{
	struct mxd_link *links[1] = { &pa.link };
	uint64_t nic;

	setenv("MX_HOSTNAME", "scale", 1);
	setenv("MX_PROGRESSION", "0", 1);
	setenv("MX_RNDV_THRESHOLD", "4096", 1);
	setenv("MX_CLOSE_LINGER_MS", "0", 1);
	mx_set_error_handler(MX_ERRORS_RETURN);
	MXT_CHECK(mxd_config_load(&mxd_conf) == 0, "settings");
	fake_pair(&pa, &pb, 1, 2, 1500);
	MXT_CHECK(mxd_init_links(links, 1) == 0 &&
			mx_open_endpoint(0, 1, FILTER, NULL, 0, &ep) ==
			MX_SUCCESS, "endpoint");
	mx_board_number_to_nic_id(0, &nic);
	MXT_CHECK(fake_peers_init(&fp, &pb, peers, pa.link.mac, nic, 1,
				FILTER, 1500) == 0, "peers");
	fp.on_msg = peer_got;
}

/* Peers [lo, hi) connect. */
static void
connect_peers(uint32_t lo, uint32_t hi)
{
	uint32_t up = lo;

	for (uint32_t i = lo; i < hi; i++) {
		fake_peer_connect(&fp, i);
		if ((i & 63) == 63)
			step();
	}
	for (unsigned long k = 0; up < hi; k++) {
		MXT_CHECK(k < 100000, "connects: %u of %u up", up - lo,
				hi - lo);
		step();
		while (up < hi && fake_peer_up(&fp, up))
			up++;
	}
}

/* Every peer's first message, all at once: its address is learnt. */
static void
first_messages(uint8_t *bufs)
{
	struct reqs q = { calloc(peers, sizeof(mx_request_t)), peers };
	static uint8_t data[SMALL];

	for (uint32_t i = 0; i < peers; i++) {
		mx_segment_t s = { bufs + (size_t)i * SMALL, SMALL };

		MXT_CHECK(mx_irecv(ep, &s, 1, tag(0, 0, i),
					MX_MATCH_MASK_NONE, NULL, &q.r[i]) ==
				MX_SUCCESS, "irecv");
	}
	for (uint32_t i = 0; i < peers; i++) {
		mxt_pattern(data, SMALL, seed(0, 0, i));
		MXT_CHECK(fake_peer_send(&fp, i, tag(0, 0, i), data, SMALL,
					0) == 0, "peer %u: send", i);
		if ((i & 31) == 31)
			step();
	}
	/* The sources, then the data, once every receive is done. */
	for (unsigned long k = 0;; k++) {
		uint32_t left = 0;

		for (uint32_t i = 0; i < peers; i++) {
			mx_status_t st;
			uint32_t done = 0;

			if (q.r[i] == NULL)
				continue;
			MXT_CHECK(mx_test(ep, &q.r[i], &st, &done) ==
					MX_SUCCESS, "mx_test");
			if (!done) {
				left++;
				continue;
			}
			MXT_CHECK(st.code == MX_STATUS_SUCCESS &&
					st.xfer_length == SMALL,
					"peer %u: %s", i,
					mx_strstatus(st.code));
			addr[i] = st.source;
			q.r[i] = NULL;
		}
		if (left == 0)
			break;
		MXT_CHECK(k < 100000, "first messages: %u left", left);
		step();
	}
	for (uint32_t i = 0; i < peers; i++)
		mxt_pattern_expect(bufs + (size_t)i * SMALL, SMALL,
				seed(0, 0, i));
	free(q.r);
}

/*
 * The endpoint's small message to every peer, none acked yet (the peers
 * hold their acks): every partner has traffic in flight, all at once.
 * The acks go after the memory is looked at (main).
 */
static void
all_active(void)
{
	struct reqs q = { calloc(peers, sizeof(mx_request_t)), peers };
	static uint8_t small[SMALL];

	fp.hold_acks = 1;
	for (uint32_t i = 0; i < peers; i++) {
		mx_segment_t s = { small, SMALL };

		mxt_pattern(small, SMALL, seed(0, 1, i));
		MXT_CHECK(mx_isend(ep, &s, 1, addr[i], tag(0, 1, i), NULL,
					&q.r[i]) == MX_SUCCESS, "send to %u",
				i);
		if ((i & 31) == 31)
			step();
	}
	until(all_done, &q, 100000, "the endpoint's first messages");
	for (unsigned long k = 0; k < 100000; k++) {
		uint32_t i;

		for (i = 0; i < peers && (got[i] & 1); i++)
			;
		if (i == peers)
			break;
		step();
	}
	free(q.r);
}

struct wave {
	uint32_t lo, hi;
};

static int
peers_done(void *arg)
{
	const struct wave *w = arg;

	for (uint32_t i = w->lo; i < w->hi; i++)
		if (got[i] != (1u << CLASSES) - 1 ||
				fake_peer_notified(&fp, i) != 1 ||
				fake_peer_matched(&fp, i) != 1)
			return 0;
	return 1;
}

/* Peers [lo, hi): every class both ways (the small one from the peers
 * came first, with the others). */
static void
wave(uint32_t lo, uint32_t hi, uint8_t *out, uint8_t *in)
{
	uint32_t n = hi - lo, per = MEDIUM + LARGE + SYNC;
	struct reqs rq = { calloc((size_t)n * 3, sizeof(mx_request_t)),
		n * 3 };
	struct reqs sq = { calloc((size_t)n * CLASSES, sizeof(mx_request_t)),
		n * CLASSES };
	struct wave w = { lo, hi };

	/* Receives first, then the peers' messages. */
	for (uint32_t i = lo; i < hi; i++) {
		uint8_t *b = in + (size_t)(i - lo) * per;

		for (uint32_t c = 1; c < CLASSES; c++) {
			mx_segment_t s = { b, lens[c] };

			MXT_CHECK(mx_irecv(ep, &s, 1, tag(c, 0, i),
						MX_MATCH_MASK_NONE, NULL,
						&rq.r[(i - lo) * 3 + c - 1]) ==
					MX_SUCCESS, "irecv");
			b += lens[c];
		}
	}
	for (uint32_t i = lo; i < hi; i++) {
		uint8_t *b = out + (size_t)(i - lo) * per;

		for (uint32_t c = 1; c < CLASSES; c++) {
			mxt_pattern(b, lens[c], seed(c, 0, i));
			MXT_CHECK((c == 2 ? fake_peer_send_large(&fp, i,
						tag(c, 0, i), b, lens[c]) :
					fake_peer_send(&fp, i, tag(c, 0, i),
						b, lens[c], c == 3 ?
						MXD_F_SYNC : 0)) == 0,
					"peer %u: %s", i, names[c]);
			b += lens[c];
		}
		if ((i & 7) == 7)
			step();
	}
	until(all_done, &rq, 200000, "the peers' messages");
	for (uint32_t i = lo; i < hi; i++) {
		const uint8_t *b = in + (size_t)(i - lo) * per;

		for (uint32_t c = 1; c < CLASSES; c++) {
			mxt_pattern_expect(b, lens[c], seed(c, 0, i));
			b += lens[c];
		}
	}
	/* Then the endpoint's, of every class, to each. */
	for (uint32_t i = lo; i < hi; i++) {
		uint8_t *b = out + (size_t)(i - lo) * per;

		for (uint32_t c = 1; c < CLASSES; c++) {
			static uint8_t small[SMALL];
			uint8_t *d = c == 0 ? small : b;
			mx_segment_t s = { d, lens[c] };
			mx_request_t *r = &sq.r[(i - lo) * CLASSES + c];

			mxt_pattern(d, lens[c], seed(c, 1, i));
			MXT_CHECK((c == 3 ? mx_issend(ep, &s, 1, addr[i],
						tag(c, 1, i), NULL, r) :
					mx_isend(ep, &s, 1, addr[i],
						tag(c, 1, i), NULL, r)) ==
					MX_SUCCESS, "send to %u", i);
			if (c != 0)
				b += lens[c];
		}
		if ((i & 7) == 7)
			step();
	}
	until(all_done, &sq, 200000, "the endpoint's messages");
	until(peers_done, &w, 200000, "the peers' side");
	free(rq.r);
	free(sq.r);
}

static int
quiet(void *arg)
{
	(void)arg;
	return ep->nactive == 0;
}

/* Steps until the pools are back at their floors: they give the heap
 * what they hold beyond once they have held it for MXD_POOL_HOLD_NS (the
 * timers' look); at most ten times that. */
static void
pools_back(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!mxd_ep_pools_floor(ep)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		MXT_CHECK((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000u +
				(uint64_t)t.tv_nsec - (uint64_t)t0.tv_nsec <
				10 * MXD_POOL_HOLD_NS,
				"the pools keep %u states, %u slots, %u PULL "
				"queues free", ep->free_act_n,
				ep->free_slots_n, ep->free_jobs_n);
		step();
		usleep(50);
	}
}

int
main(int argc, char **argv)
{
	size_t heap0, heap_idle, wire0, wire, per = MEDIUM + LARGE + SYNC;
	struct mxd_ep_mem busy, idle, back;
	uint8_t *bufs, *out, *in;
	double one, many;

	peers = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
	mxt_fail_hook = fail;
	addr = calloc(peers, sizeof(*addr));
	got = calloc(peers, 1);
	bufs = malloc((size_t)peers * SMALL);
	out = malloc((size_t)WAVE * per);
	in = malloc((size_t)WAVE * per);
	MXT_CHECK(peers >= 2 && peers < 65535 && addr && got && bufs &&
			out && in, "set-up");
	counter_open();
	open_all();

	/* One partner: the figure to compare with. */
	heap0 = heap();
	wire0 = fake_pool_bytes();
	connect_peers(0, 1);
	{
		static uint8_t data[SMALL];
		mx_segment_t s = { bufs, SMALL };
		struct reqs q = { calloc(1, sizeof(mx_request_t)), 1 };

		MXT_CHECK(mx_irecv(ep, &s, 1, tag(0, 0, 0),
					MX_MATCH_MASK_NONE, NULL, &q.r[0]) ==
				MX_SUCCESS, "irecv");
		mxt_pattern(data, SMALL, seed(0, 0, 0));
		MXT_CHECK(fake_peer_send(&fp, 0, tag(0, 0, 0), data, SMALL,
					0) == 0, "peer 0");
		while (q.r[0] != NULL) {
			mx_status_t st;
			uint32_t done = 0;

			step();
			MXT_CHECK(mx_test(ep, &q.r[0], &st, &done) ==
					MX_SUCCESS, "mx_test");
			if (done) {
				addr[0] = st.source;
				q.r[0] = NULL;
			}
		}
		free(q.r);
	}
	one = per_message(0);

	/* All of them. */
	connect_peers(1, peers);
	MXT_CHECK(ep->npartners == peers, "%u partners, not %u",
			ep->npartners, peers);
	first_messages(bufs);
	all_active();
	mxd_ep_mem(ep, &busy);
	MXT_CHECK(busy.active == peers, "%u of %u partners active",
			busy.active, peers);
	fp.hold_acks = 0;
	fake_peers_ack_all(&fp);
	for (uint32_t lo = 0; lo < peers; lo += WAVE)
		wave(lo, lo + WAVE < peers ? lo + WAVE : peers, out, in);
	until(quiet, NULL, 2000000, "traffic states given back");
	mxd_ep_mem(ep, &idle);
	pools_back();
	mxd_ep_mem(ep, &back);
	heap_idle = heap();
	wire = fake_pool_bytes() - wire0;
	many = per_message(1);
	MXT_CHECK(fp.bad == 0, "the peers saw %" PRIu64 " bad frames",
			fp.bad);
	MXT_CHECK(idle.partner_bytes / peers <= 1024,
			"an idle partner costs %zu bytes",
			idle.partner_bytes / peers);
	MXT_CHECK(heap0 == 0 || (heap_idle - heap0 - wire) / peers <= 1024,
			"the heap holds %zu bytes per idle partner",
			(heap_idle - heap0 - wire) / peers);

	printf("test_scale: %u peers, each sent and received a message of "
			"every class (%u, %u, %u bytes, and a synchronous "
			"one of %u), every byte checked\n", peers, SMALL,
			MEDIUM, LARGE, SYNC);
	printf("memory per idle partner: %zu bytes (struct mxd_partner %zu, "
			"table and hash %zu)\n",
			idle.partner_bytes / peers,
			sizeof(struct mxd_partner),
			(idle.partner_bytes - (size_t)peers *
			 sizeof(struct mxd_partner)) / peers);
	printf("memory per active partner: %zu bytes more (struct "
			"mxd_peer_act %zu; all %u at once: %u states, %u "
			"receive windows' slots of %zu bytes, %u PULL queues "
			"of %zu bytes in the pools)\n",
			busy.pool_bytes / busy.active,
			sizeof(struct mxd_peer_act), busy.active, busy.acts,
			busy.slots, (size_t)MXD_WIN *
			sizeof(struct mxd_rxslot), busy.jobs,
			sizeof(struct mxd_pulljobs));
	printf("after the traffic: %u of %u partners active; the pools keep "
			"%u states, %u slots, %u PULL queues (%zu bytes) for "
			"the next; a second later %u, %u, %u (%zu bytes: %zu "
			"per partner)\n", idle.active, idle.partners,
			idle.acts, idle.slots, idle.jobs, idle.pool_bytes,
			back.acts, back.slots, back.jobs, back.pool_bytes,
			back.pool_bytes / peers);
	if (heap0 != 0)
		printf("heap: %zu bytes per partner once idle (%zu of them "
				"the partner and the pools; not counted: the "
				"fake link's buffers, %zu bytes)\n",
				(heap_idle - heap0 - wire) / peers,
				(back.partner_bytes + back.pool_bytes) / peers,
				wire);
	if (counter >= 0)
		printf("instructions per 8-byte message (send or receive, "
				"the endpoint's calls): %.0f with 1 partner, "
				"%.0f with %u known\n", one, many, peers);
	else
		printf("instructions per message: this CPU gives no "
				"counter to a program (%s); scripts/icount.sh "
				"counts them\n", strerror(counter_errno));

	mx_close_endpoint(ep);
	mx_finalize();
	fake_peers_fini(&fp);
	fake_drain(&pa);
	fake_drain(&pb);
	MXT_CHECK(fake_live_buffers() == 0, "%ld frame buffers leaked",
			fake_live_buffers());
	free(addr);
	free(got);
	free(bufs);
	free(out);
	free(in);
	return 0;
}
