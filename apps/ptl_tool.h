/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the Portals tools (ptl_pingpong, ptl_bw) share, beside tool.h's
 * lengths, statistics and progress lines: opening the interface, finding
 * the receiver, descriptors, taking events by polling or by blocking (-w),
 * and the first exchange of a run.  Static inline functions, as tool.h,
 * so that each tool stays one source file.  Only portals3.h is used, and
 * myriexpress.h for a board's name (-d host:board: the MX library's name
 * lookup, which a Portals process may use, the two faces sharing one
 * library).
 *
 * A run: the receiver opens its interface and an entry for the sender's
 * parameters (portal PT_PARAM), and waits.  The sender sends them (its
 * node and process, the run's largest length and what it does), the
 * receiver makes its data entry (PT_DATA) and tells the sender so by a
 * put to its PT_SYNC, and the run begins.  Every put carries a word in
 * hdr_data: its sequence, or HDR_STOP, which ends the run.
 */
#ifndef PTL_TOOL_H
#define PTL_TOOL_H

#include <endian.h>

#include <portals3.h>

#include "tool.h"

#define PT_PARAM	1
#define PT_DATA		2
#define PT_SYNC		3
#define HDR_STOP	UINT64_C(0xffffffffffffffff)
#define DFLT_RECV_PID	1
#define DFLT_SEND_PID	2

/* The sender's first message, in network byte order. */
struct ptl_params {
	uint64_t nid;		/* the sender's */
	uint32_t pid;
	uint32_t max_len;	/* largest message of the run (per slot) */
	uint32_t flags;		/* the tool's */
	uint32_t count, warmup, window;	/* ptl_bw */
	uint32_t nlens;		/* ptl_bw: lengths */
	uint32_t pad;
};

struct ptl_tool {
	ptl_handle_ni_t ni;
	ptl_process_id_t me;
	uint32_t board;
	int blocking;		/* -w: PtlEQWait, else PtlEQGet polled */
	int lossy;		/* events may be lost (a get's target counts
				 * none): a full queue is no failure */
};

static inline void
ptl_tool_die(const char *what, int rc)
{
	fprintf(stderr, "%s: %s: %s\n", tool_name, what, PtlErrorStr(rc));
	exit(1);
}

#define PTL_TOOL_OK(what, call) do { \
	int rc_ = (call); \
	if (rc_ != PTL_OK) \
		ptl_tool_die(what, rc_); \
} while (0)

/* PtlInit and interface 'board' as process 'pid'. */
static inline void
ptl_tool_open(struct ptl_tool *t, uint32_t board, uint32_t pid)
{
	int n;

	PTL_TOOL_OK("PtlInit", PtlInit(&n));
	if (board >= (uint32_t)n) {
		fprintf(stderr, "%s: board %u (-b) does not exist: this "
				"process has %d\n", tool_name, board, n);
		exit(1);
	}
	t->board = board;
	PTL_TOOL_OK("PtlNIInit", PtlNIInit(board, pid, NULL, NULL, &t->ni));
	PTL_TOOL_OK("PtlGetId", PtlGetId(t->ni, &t->me));
}

static inline void
ptl_tool_close(struct ptl_tool *t)
{
	PtlNIFini(t->ni);
	PtlFini();
}

/* The receiver: node -n, or the NIC id of board name -d host:board. */
static inline ptl_process_id_t
ptl_tool_target(const char *dest, uint64_t nid, uint32_t pid)
{
	ptl_process_id_t id = { nid, pid };
	char name[MX_MAX_HOSTNAME_LEN];
	mx_return_t rc;

	if (dest == NULL)
		return id;
	snprintf(name, sizeof(name), "%s", dest);
	mx_set_error_handler(MX_ERRORS_RETURN);
	rc = mx_init();
	if (rc == MX_SUCCESS)
		rc = mx_hostname_to_nic_id(name, &id.nid);
	if (rc != MX_SUCCESS)
		tool_die(dest, rc);
	return id;
}

static inline ptl_md_t
ptl_tool_md_of(void *buf, ptl_size_t len, unsigned options,
		ptl_handle_eq_t eq)
{
	ptl_md_t md;

	memset(&md, 0, sizeof(md));
	md.start = buf;
	md.length = len;
	md.threshold = PTL_MD_THRESH_INF;
	md.options = options;
	md.eventq = eq;
	return md;
}

static inline ptl_handle_md_t
ptl_tool_bind(struct ptl_tool *t, void *buf, ptl_size_t len, unsigned options,
		ptl_handle_eq_t eq)
{
	ptl_handle_md_t h;

	PTL_TOOL_OK("PtlMDBind", PtlMDBind(t->ni, ptl_tool_md_of(buf, len,
			options, eq), &h));
	return h;
}

/* An entry of portal pt for any process and any bits, with a descriptor. */
static inline void
ptl_tool_attach(struct ptl_tool *t, ptl_pt_index_t pt, void *buf,
		ptl_size_t len, unsigned options, ptl_handle_eq_t eq)
{
	ptl_process_id_t any = { PTL_NID_ANY, PTL_PID_ANY };
	ptl_handle_me_t me;

	PTL_TOOL_OK("PtlMEAttach", PtlMEAttach(t->ni, pt, any, 0,
			~(ptl_match_bits_t)0, PTL_RETAIN, PTL_INS_AFTER, &me));
	PTL_TOOL_OK("PtlMDAttach", PtlMDAttach(me, ptl_tool_md_of(buf, len,
			options, eq), PTL_RETAIN, PTL_RETAIN, NULL));
}

/* The next event of eq: polled (giving up after TOOL_POLL_LIMIT_S) or
 * waited for (-w; the library fails what a lost peer owes within
 * MX_PEER_TIMEOUT_MS); an event that says a failure ends the tool. */
static inline void
ptl_tool_event(const struct ptl_tool *t, ptl_handle_eq_t eq, ptl_event_t *ev)
{
	int rc;

	if (t->blocking) {
		rc = PtlEQWait(eq, ev);
	} else {
		double start = tool_now_us();

		while ((rc = PtlEQGet(eq, ev)) == PTL_EQ_EMPTY)
			if (tool_now_us() - start > TOOL_POLL_LIMIT_S * 1e6) {
				fprintf(stderr, "%s: nothing came for %.0f s\n",
						tool_name, TOOL_POLL_LIMIT_S);
				exit(1);
			}
	}
	if (rc == PTL_EQ_DROPPED && t->lossy)
		rc = PTL_OK;	/* the event is there; older ones were lost */
	if (rc != PTL_OK)
		ptl_tool_die("waiting for an event", rc);
	if (ev->ni_fail_type != PTL_NI_OK) {
		fprintf(stderr, "%s: %s: %s\n", tool_name,
				PtlEventKindStr(ev->type),
				PtlNIFailStr(t->ni, ev->ni_fail_type));
		exit(1);
	}
}

/* Waits for an event of this kind (others are the caller's to expect:
 * none); returns it. */
static inline ptl_event_t
ptl_tool_want(const struct ptl_tool *t, ptl_handle_eq_t eq,
		ptl_event_kind_t kind)
{
	ptl_event_t ev;

	ptl_tool_event(t, eq, &ev);
	if (ev.type != kind) {
		fprintf(stderr, "%s: %s where %s was due\n", tool_name,
				PtlEventKindStr(ev.type), PtlEventKindStr(kind));
		exit(1);
	}
	return ev;
}

/* A zero-byte put to 'to' on portal pt, hdr_data 'word', from md. */
static inline void
ptl_tool_word(struct ptl_tool *t, ptl_handle_md_t md, ptl_process_id_t to,
		ptl_pt_index_t pt, uint64_t word)
{
	(void)t;
	PTL_TOOL_OK("PtlPutRegion", PtlPutRegion(md, 0, 0, PTL_NOACK_REQ, to,
			pt, 0, 0, 0, word));
}

/* The receiver's side of the first exchange: waits for a sender's
 * parameters (blocking), host order. */
static inline ptl_process_id_t
ptl_tool_params_in(struct ptl_tool *t, struct ptl_params *p)
{
	static struct ptl_params in;
	ptl_handle_eq_t eq;
	ptl_event_t ev;
	ptl_process_id_t from;

	PTL_TOOL_OK("PtlEQAlloc", PtlEQAlloc(t->ni, 8, &eq));
	ptl_tool_attach(t, PT_PARAM, &in, sizeof(in), PTL_MD_OP_PUT |
			PTL_MD_MANAGE_REMOTE | PTL_MD_EVENT_START_DISABLE, eq);
	printf("%s: receiver on board %u process %u (node %012llx)\n",
			tool_name, t->board, t->me.pid,
			(unsigned long long)t->me.nid);
	fflush(stdout);
	PTL_TOOL_OK("PtlEQWait", PtlEQWait(eq, &ev));
	if (ev.type != PTL_EVENT_PUT_END || ev.mlength != sizeof(in)) {
		fprintf(stderr, "%s: no parameters from a sender\n", tool_name);
		exit(1);
	}
	p->nid = be64toh(in.nid);
	p->pid = be32toh(in.pid);
	p->max_len = be32toh(in.max_len);
	p->flags = be32toh(in.flags);
	p->count = be32toh(in.count);
	p->warmup = be32toh(in.warmup);
	p->window = be32toh(in.window);
	p->nlens = be32toh(in.nlens);
	from.nid = p->nid;
	from.pid = p->pid;
	return from;
}

/* The sender's: sends them and waits for the receiver's word that its
 * data entry is there (on sync_eq, PT_SYNC's). */
static inline void
ptl_tool_params_out(struct ptl_tool *t, ptl_process_id_t to,
		const struct ptl_params *p, ptl_handle_eq_t sync_eq)
{
	static struct ptl_params out;
	ptl_handle_md_t md;

	out.nid = htobe64(t->me.nid);
	out.pid = htobe32(t->me.pid);
	out.max_len = htobe32(p->max_len);
	out.flags = htobe32(p->flags);
	out.count = htobe32(p->count);
	out.warmup = htobe32(p->warmup);
	out.window = htobe32(p->window);
	out.nlens = htobe32(p->nlens);
	md = ptl_tool_bind(t, &out, sizeof(out), PTL_MD_EVENT_START_DISABLE |
			PTL_MD_EVENT_END_DISABLE, PTL_EQ_NONE);
	PTL_TOOL_OK("PtlPut", PtlPut(md, PTL_NOACK_REQ, to, PT_PARAM, 0, 0, 0,
			0));
	ptl_tool_want(t, sync_eq, PTL_EVENT_PUT_END);
}

#endif /* PTL_TOOL_H */
