/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests' Portals transport: see loopback.h.  It keeps the contract
 * of lib/portals/transport.h as the engine's transport does: one final
 * report per operation, a put's end before its ACK, each pair's messages
 * in order, and the Portals header through proto/portals_wire.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/lock.h"
#include "loopback.h"

struct lb_state lb;

/* An operation this side started, named on the wire by op_cookie
 * (generation << 32 | slot), kept until its final report. */
#define LB_OPS	4096
struct lb_op {
	uint32_t gen;
	int used;
	int src;		/* interface */
	struct mxd_ptl_op op;
};
static struct lb_op ops[LB_OPS];

struct lb_msg {
	struct lb_msg *next;
	int src;			/* sending interface */
	ptl_process_id_t dst;
	struct mxd_ptl_hdr hdr;
	uint8_t *copy;			/* eager: the bytes, copied */
	struct lb_op *op;		/* PUT, GET: the initiator's */
	int large;			/* PUT, REPLY: read at delivery */
	/* REPLY of a large get: the target's transfer, ended when read */
	int tgt_src;
	struct mxd_ptl_tgt tgt;
	int tgt_open;
};

static struct lb_msg *q_head, *q_tail;

/* A transfer held after its START (lb.hold). */
struct lb_held {
	struct lb_held *next;
	struct lb_msg *msg;		/* the request (PUT or GET) */
	int dst;			/* the target interface */
	struct mxd_ptl_tgt tgt;
};
static struct lb_held *held;

static unsigned wake_epoch;
static unsigned rng;

/* ---- bookkeeping ---- */

static struct lb_op *
op_new(int src, const struct mxd_ptl_op *op)
{
	for (uint32_t i = 0; i < LB_OPS; i++) {
		struct lb_op *o = &ops[i];

		if (!o->used) {
			o->used = 1;
			o->gen++;
			o->src = src;
			o->op = *op;
			o->op.hdr.op_cookie = (uint64_t)o->gen << 32 | i;
			return o;
		}
	}
	abort();	/* the tests never have 4096 operations in flight */
}

static struct lb_op *
op_find(uint64_t cookie)
{
	uint32_t i = (uint32_t)cookie;

	if (i >= LB_OPS || !ops[i].used || ops[i].gen != cookie >> 32)
		return NULL;
	return &ops[i];
}

static void
op_free(struct lb_op *o)
{
	o->used = 0;
}

static int
iface_of(const struct lb_proc *p)
{
	return (int)(p - lb.proc);
}

/* Why nothing reaches id: it vanished (lb_kill), or has no interface. */
static ptl_ni_fail_t
gone_why(ptl_process_id_t id)
{
	for (int i = 0; i < LB_IFACES; i++) {
		struct lb_proc *p = &lb.proc[i];

		if (p->open && p->dead && p->nid == id.nid && p->pid == id.pid)
			return PTL_NI_UNREACHABLE;
	}
	return PTL_NI_CLOSED;
}

/* The live open process with this id, or NULL. */
static struct lb_proc *
proc_of(ptl_process_id_t id)
{
	for (int i = 0; i < LB_IFACES; i++) {
		struct lb_proc *p = &lb.proc[i];

		if (p->open && !p->dead && p->nid == id.nid && p->pid == id.pid)
			return p;
	}
	return NULL;
}

static int
alive(int iface)
{
	return lb.proc[iface].open && !lb.proc[iface].dead;
}

static void
enqueue(struct lb_msg *m)
{
	m->next = NULL;
	if (q_tail)
		q_tail->next = m;
	else
		q_head = m;
	q_tail = m;
	lb.queued++;
}

static struct lb_msg *
msg_new(int src, ptl_process_id_t dst, const struct mxd_ptl_hdr *h)
{
	struct lb_msg *m = calloc(1, sizeof(*m));

	if (m == NULL)
		abort();
	m->src = src;
	m->dst = dst;
	m->hdr = *h;
	return m;
}

static void
msg_free(struct lb_msg *m)
{
	free(m->copy);
	free(m);
}

/* The copy of an eager message's bytes. */
static void
copy_in(struct lb_msg *m, const struct mxd_ptl_region *r, uint64_t n)
{
	m->copy = malloc(n ? (size_t)n : 1);
	if (m->copy == NULL)
		abort();
	mxd_ptl_region_read(r, 0, m->copy, n);
}

/* ---- the transport's operations ---- */

static int
lb_init(void)
{
	return lb.ifaces;
}

static void
lb_fini(void)
{
}

static int
pid_taken(ptl_nid_t nid, ptl_pid_t pid)
{
	for (int i = 0; i < LB_IFACES; i++)
		if (lb.proc[i].open && lb.proc[i].nid == nid &&
				lb.proc[i].pid == pid)
			return 1;
	return 0;
}

static int
lb_ni_open(struct mxd_ptl_ni *ni, ptl_interface_t iface, ptl_pid_t pid,
		struct mxd_ptl_ident *me, void **tp)
{
	struct lb_proc *p;

	if (iface >= LB_IFACES)
		return -PTL_INIT_INV;
	p = &lb.proc[iface];
	if (pid == PTL_PID_ANY) {
		for (pid = 0; pid < LB_PIDS && pid_taken(p->nid, pid); pid++)
			;
	}
	if (pid >= LB_PIDS || pid_taken(p->nid, pid))
		return -PTL_INV_PROC;
	p->open = 1;
	p->dead = 0;
	p->pid = pid;
	p->ni = ni;
	me->id.nid = p->nid;
	me->id.pid = pid;
	me->uid = p->uid;
	me->jid = PTL_JID_NONE;
	*tp = p;
	return 0;
}

static int
lb_check(void *tp, ptl_process_id_t id)
{
	(void)tp;
	return id.pid < LB_PIDS ? 0 : -PTL_INV_PROC;
}

static int
lb_dist(void *tp, ptl_process_id_t id, unsigned long *dist)
{
	struct lb_proc *p = tp;

	if (id.pid >= LB_PIDS)
		return -PTL_INV_PROC;
	*dist = id.nid == p->nid ? (id.pid == p->pid ? 0 : 1) : 2;
	return 0;
}

static void deliver(struct lb_msg *m);

/* In synchronous mode, delivers everything now (inside the call). */
static void
maybe_sync(void)
{
	if (lb.sync)
		lb_pump();
}

static int
lb_put(void *tp, const struct mxd_ptl_op *op)
{
	struct lb_proc *p = tp;
	struct lb_op *o = op_new(iface_of(p), op);
	struct lb_msg *m = msg_new(o->src, op->target, &o->op.hdr);

	m->op = o;
	m->large = op->hdr.rlength > lb.eager_max;
	if (!m->large) {
		/* Copied into the message: the buffer may be reused now. */
		copy_in(m, &op->region, op->hdr.rlength);
		m->op = NULL;
		enqueue(m);
		mxd_ptl_put_done(p->ni, &o->op, PTL_NI_OK);
		op_free(o);
	} else {
		enqueue(m);
	}
	maybe_sync();
	return 0;
}

static void
lb_get(void *tp, const struct mxd_ptl_op *op)
{
	struct lb_proc *p = tp;
	struct lb_op *o = op_new(iface_of(p), op);
	struct lb_msg *m = msg_new(o->src, op->target, &o->op.hdr);

	m->op = o;
	enqueue(m);
	maybe_sync();
}

/* ---- delivery ---- */

static void
put_ended(struct lb_op *o, ptl_ni_fail_t st)
{
	if (o == NULL)
		return;
	if (alive(o->src))
		mxd_ptl_put_done(lb.proc[o->src].ni, &o->op, st);
	op_free(o);
}

static void
get_failed(struct lb_op *o, ptl_ni_fail_t st)
{
	if (alive(o->src))
		mxd_ptl_get_failed(lb.proc[o->src].ni, &o->op, st);
	op_free(o);
}

/* The header as the receiver sees it: encoded and parsed once (padded
 * to MXD_PTL_HEAD bytes for a large message, as the engine's transport
 * sends one), its sender the process that sent it. */
static void
wire(struct lb_msg *m, struct mxd_ptl_hdr *h)
{
	uint8_t buf[MXD_PTL_HEAD] = { 0 };
	uint64_t body = m->hdr.kind == MXD_PTL_PUT ? m->hdr.rlength :
		m->hdr.kind == MXD_PTL_REPLY ? m->hdr.mlength : 0;
	uint32_t hl = mxd_ptl_wire_encode(buf, &m->hdr);
	int rc;

	if (m->large)
		hl = MXD_PTL_HEAD;
	rc = mxd_ptl_wire_parse(buf, hl, hl + body, m->large, h);
	if (rc != (int)hl)
		abort();	/* the core built a header it cannot read */
	h->src_nid = m->hdr.src_nid;
	h->src_pid = m->hdr.src_pid;
}

/* The ACK of the put t goes back to its initiator. */
static void
send_ack(int from, const struct mxd_ptl_tgt *t, const struct mxd_ptl_hdr *ack)
{
	ptl_process_id_t to = { t->req.src_nid, t->req.src_pid };

	enqueue(msg_new(from, to, ack));
}

/* Moves a put's bytes into the target's region and ends it. */
static void
put_finish(struct lb_msg *m, int dst, struct mxd_ptl_tgt *t)
{
	struct mxd_ptl_hdr ack;

	if (m->copy != NULL)
		mxd_ptl_region_write(&t->region, 0, m->copy,
				t->region.length);
	else {
		uint8_t buf[256];

		for (uint64_t at = 0; at < t->region.length; at += sizeof(buf)) {
			uint64_t n = t->region.length - at;

			if (n > sizeof(buf))
				n = sizeof(buf);
			mxd_ptl_region_read(&m->op->op.region, at, buf, n);
			mxd_ptl_region_write(&t->region, at, buf, n);
		}
	}
	put_ended(m->op, PTL_NI_OK);	/* the send ends before its ACK */
	m->op = NULL;
	if (mxd_ptl_rx_end(lb.proc[dst].ni, t, PTL_NI_OK, &ack))
		send_ack(dst, t, &ack);
}

/* Answers an accepted get with its data. */
static void
get_finish(struct lb_msg *m, int dst, struct mxd_ptl_tgt *t)
{
	ptl_process_id_t init = { t->req.src_nid, t->req.src_pid };
	struct lb_msg *r = msg_new(dst, init, &t->reply);

	(void)m;
	r->large = t->region.length > lb.eager_max;
	if (!r->large) {
		copy_in(r, &t->region, t->region.length);
		enqueue(r);
		mxd_ptl_rx_end(lb.proc[dst].ni, t, PTL_NI_OK, NULL);
	} else {
		r->tgt = *t;
		r->tgt_src = dst;
		r->tgt_open = 1;
		enqueue(r);
	}
}

static void
hold_transfer(struct lb_msg *m, int dst, const struct mxd_ptl_tgt *t)
{
	struct lb_held *hd = calloc(1, sizeof(*hd));

	if (hd == NULL)
		abort();
	hd->msg = m;
	hd->dst = dst;
	hd->tgt = *t;
	hd->next = held;
	held = hd;
	lb.held++;
}

/* A request: returns 1 if m is kept (held), 0 if it may be freed. */
static int
deliver_request(struct lb_msg *m, const struct mxd_ptl_hdr *h)
{
	struct lb_proc *to = proc_of(m->dst);
	struct mxd_ptl_tgt t;
	int v;

	if (to == NULL) {
		if (h->kind == MXD_PTL_GET && m->op != NULL)
			get_failed(m->op, gone_why(m->dst));
		else
			put_ended(m->op, gone_why(m->dst));
		return 0;
	}
	v = mxd_ptl_rx_request(to->ni, h, &t);
	if (v == MXD_PTL_DROP) {
		if (h->kind == MXD_PTL_GET)
			enqueue(msg_new(iface_of(to), (ptl_process_id_t){
					h->src_nid, h->src_pid }, &t.reply));
		else
			put_ended(m->op, PTL_NI_OK);
		return 0;
	}
	if (lb.hold) {
		hold_transfer(m, iface_of(to), &t);
		return 1;
	}
	if (h->kind == MXD_PTL_PUT)
		put_finish(m, iface_of(to), &t);
	else
		get_finish(m, iface_of(to), &t);
	return 0;
}

static void
reply_target_end(struct lb_msg *m, ptl_ni_fail_t st)
{
	if (m->tgt_open && alive(m->tgt_src))
		mxd_ptl_rx_end(lb.proc[m->tgt_src].ni, &m->tgt, st, NULL);
	m->tgt_open = 0;
}

static void
deliver_reply(struct lb_msg *m, const struct mxd_ptl_hdr *h)
{
	struct lb_proc *to = proc_of(m->dst);
	struct lb_op *o = op_find(h->op_cookie);
	struct mxd_ptl_tgt t;

	if (to == NULL) {
		reply_target_end(m, PTL_NI_UNREACHABLE);
		return;
	}
	if (o == NULL) {
		mxd_ptl_rx_dropped(to->ni, h);
		reply_target_end(m, PTL_NI_OK);
		return;
	}
	if (mxd_ptl_rx_reply(to->ni, &o->op, h, &t) == MXD_PTL_ACCEPT) {
		if (m->copy != NULL)
			mxd_ptl_region_write(&t.region, 0, m->copy,
					t.region.length);
		else {
			uint8_t buf[256];

			for (uint64_t at = 0; at < t.region.length;
					at += sizeof(buf)) {
				uint64_t n = t.region.length - at;

				if (n > sizeof(buf))
					n = sizeof(buf);
				mxd_ptl_region_read(&m->tgt.region, at, buf, n);
				mxd_ptl_region_write(&t.region, at, buf, n);
			}
		}
		mxd_ptl_rx_end(to->ni, &t, PTL_NI_OK, NULL);
	}
	op_free(o);
	reply_target_end(m, PTL_NI_OK);
}

static void
deliver(struct lb_msg *m)
{
	struct mxd_ptl_hdr h;
	int kept = 0;

	lb.delivered++;
	if (!alive(m->src)) {
		/* Sent by a process that vanished: lost. */
		reply_target_end(m, PTL_NI_UNREACHABLE);
		msg_free(m);
		return;
	}
	wire(m, &h);
	switch (h.kind) {
	case MXD_PTL_PUT:
	case MXD_PTL_GET:
		kept = deliver_request(m, &h);
		break;
	case MXD_PTL_ACK: {
		struct lb_proc *to = proc_of(m->dst);

		if (to != NULL)
			mxd_ptl_rx_ack(to->ni, &h);
		break;
	}
	case MXD_PTL_REPLY:
		deliver_reply(m, &h);
		break;
	default:
		abort();
	}
	if (!kept)
		msg_free(m);
}

/* Whether the pump leaves m in the queue for now. */
static int
kept_back(const struct lb_msg *m)
{
	return (lb.hold_acks && m->hdr.kind == MXD_PTL_ACK) ||
		(lb.hold_replies && m->hdr.kind == MXD_PTL_REPLY);
}

static int
same_pair(const struct lb_msg *a, const struct lb_msg *b)
{
	return a->src == b->src && a->dst.nid == b->dst.nid &&
		a->dst.pid == b->dst.pid;
}

/* The next message to deliver, taken off the queue, or NULL: the first
 * not kept back, or (shuffle) the first of a random one's pair. */
static struct lb_msg *
dequeue(void)
{
	struct lb_msg **pp, *pick = NULL;
	unsigned n = 0;

	for (struct lb_msg *m = q_head; m; m = m->next)
		if (!kept_back(m))
			n++;
	if (n == 0)
		return NULL;
	if (lb.shuffle) {
		unsigned k;

		if (rng == 0)
			rng = lb.shuffle;
		rng = rng * 1103515245u + 12345u;
		k = (rng >> 8) % n;
		for (pick = q_head; pick; pick = pick->next)
			if (!kept_back(pick) && k-- == 0)
				break;
	}
	for (pp = &q_head; *pp; pp = &(*pp)->next) {
		struct lb_msg *m = *pp;

		if (kept_back(m) || (pick && !same_pair(m, pick)))
			continue;
		*pp = m->next;
		if (q_tail == m) {
			q_tail = NULL;
			for (struct lb_msg *t = q_head; t; t = t->next)
				q_tail = t;
		}
		lb.queued--;
		return m;
	}
	return NULL;
}

unsigned
lb_step(void)
{
	struct lb_msg *m = dequeue();

	if (m == NULL)
		return 0;
	deliver(m);
	return 1;
}

unsigned
lb_pump(void)
{
	unsigned n = 0;

	while (lb_step())
		n++;
	return n;
}

static void
lb_progress(void *tp)
{
	(void)tp;
	if (!lb.manual)
		lb_pump();
}

static int
lb_wait(void *tp, int (*done)(void *), void *arg, uint32_t timeout_ms)
{
	unsigned epoch = wake_epoch;
	unsigned spins = 0;

	(void)tp;
	__atomic_add_fetch(&lb.waits, 1, __ATOMIC_SEQ_CST);	/* tests poll it */
	for (;;) {
		if (done(arg))
			return 1;
		if (wake_epoch != epoch)
			return 0;
		if (!lb.manual && lb_step())
			continue;
		if (timeout_ms != UINT32_MAX && spins++ * 50 / 1000 >=
				timeout_ms)
			return 0;
		mxd_poll_pause(1);	/* 50 us, others let in */
	}
}

static void
lb_wakeup(void *tp)
{
	(void)tp;
	wake_epoch++;
	lb.wakeups++;
}

/* Ends a held transfer: its bytes moved, or failed both sides. */
static void
held_end(struct lb_held *hd, int ok, ptl_ni_fail_t st)
{
	struct lb_msg *m = hd->msg;
	int dst_ok = alive(hd->dst);

	if (ok && dst_ok && alive(m->src)) {
		if (m->hdr.kind == MXD_PTL_PUT)
			put_finish(m, hd->dst, &hd->tgt);
		else
			get_finish(m, hd->dst, &hd->tgt);
	} else {
		if (dst_ok)
			mxd_ptl_rx_end(lb.proc[hd->dst].ni, &hd->tgt, st, NULL);
		if (m->hdr.kind == MXD_PTL_PUT)
			put_ended(m->op, st);
		else if (m->op != NULL)
			get_failed(m->op, st);
		m->op = NULL;
	}
	msg_free(m);
	free(hd);
	lb.held--;
}

static unsigned
held_drain(int ok, ptl_ni_fail_t st)
{
	unsigned n = 0;

	while (held != NULL) {
		struct lb_held *hd = held, **pp = &held;

		while (hd->next != NULL) {	/* the oldest first */
			pp = &hd->next;
			hd = hd->next;
		}
		*pp = NULL;
		held_end(hd, ok, st);
		n++;
	}
	return n;
}

unsigned
lb_release(void)
{
	return held_drain(1, PTL_NI_OK);
}

unsigned
lb_fail_held(ptl_ni_fail_t status)
{
	return held_drain(0, status);
}

/* Fails what a vanished or closed process had to do with others: its
 * held transfers, and the operations of others that wait on it. */
static void
forget(int iface, ptl_ni_fail_t st)
{
	struct lb_held **pp = &held;

	while (*pp != NULL) {
		struct lb_held *hd = *pp;

		if (hd->dst == iface || hd->msg->src == iface) {
			*pp = hd->next;
			hd->next = NULL;
			held_end(hd, 0, st);
		} else {
			pp = &hd->next;
		}
	}
	for (uint32_t i = 0; i < LB_OPS; i++) {
		struct lb_op *o = &ops[i];
		ptl_process_id_t me = { lb.proc[iface].nid,
			lb.proc[iface].pid };

		if (!o->used || o->src == iface)
			continue;
		if (o->op.target.nid != me.nid || o->op.target.pid != me.pid)
			continue;
		/* Still queued towards it, or a get whose reply it owes. */
		if (o->op.hdr.kind == MXD_PTL_GET)
			get_failed(o, st);
		else
			put_ended(o, st);
		for (struct lb_msg *m = q_head; m; m = m->next)
			if (m->op == o)
				m->op = NULL;
	}
}

void
lb_kill(int iface)
{
	lb.proc[iface].dead = 1;
	forget(iface, PTL_NI_UNREACHABLE);
}

/* Closing: nothing more for this process; the others' operations with it
 * fail as with a closed target. */
static void
lb_ni_close(void *tp)
{
	struct lb_proc *p = tp;
	int iface = iface_of(p);

	p->dead = 1;
	forget(iface, PTL_NI_CLOSED);
	for (uint32_t i = 0; i < LB_OPS; i++)
		if (ops[i].used && ops[i].src == iface) {
			for (struct lb_msg *m = q_head; m; m = m->next)
				if (m->op == &ops[i])
					m->op = NULL;
			op_free(&ops[i]);
		}
	p->open = 0;
	p->dead = 0;
	p->ni = NULL;
}

struct mxd_ptl_hdr *
lb_peek(uint8_t kind)
{
	for (struct lb_msg *m = q_head; m; m = m->next)
		if (m->hdr.kind == kind)
			return &m->hdr;
	return NULL;
}

void
lb_config(int iface, ptl_nid_t nid, ptl_uid_t uid)
{
	lb.proc[iface].nid = nid;
	lb.proc[iface].uid = uid;
}

void
lb_reset(void)
{
	while (q_head != NULL) {
		struct lb_msg *m = q_head;

		q_head = m->next;
		msg_free(m);
	}
	q_tail = NULL;
	while (held != NULL) {
		struct lb_held *hd = held;

		held = hd->next;
		msg_free(hd->msg);
		free(hd);
	}
	memset(ops, 0, sizeof(ops));
	memset(&lb, 0, sizeof(lb));
	lb.ifaces = 4;
	lb.eager_max = 64;
	for (int i = 0; i < LB_IFACES; i++)
		lb_config(i, UINT64_C(0x020000000010) + (uint64_t)(i / 2),
				(ptl_uid_t)getuid());
	rng = 0;
}

const struct mxd_ptl_tp_ops lb_ops = {
	.init = lb_init,
	.fini = lb_fini,
	.ni_open = lb_ni_open,
	.ni_close = lb_ni_close,
	.dist = lb_dist,
	.check = lb_check,
	.put = lb_put,
	.get = lb_get,
	.progress = lb_progress,
	.wait = lb_wait,
	.wakeup = lb_wakeup,
};
