/* SPDX-License-Identifier: BSD-3-Clause */
/* Fake peers: see fake_peer.h. */
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "fake_peer.h"

#define NIC_BASE	0x020000400000ull
#define LSENDS		4	/* large sends in flight per peer */
#define MIN_FRAME	60	/* Ethernet's, without its check */
#define PULL_FRAMES	32	/* frames per PULL (the library takes 64) */

/* A large message of ours, pulled by the library. */
struct lsend {
	const uint8_t *data;
	uint32_t len, handle;
};

/* A message of the library being put together: fragments, or pulled. */
struct inmsg {
	uint8_t *buf;
	uint32_t len, have;	/* bytes */
	uint32_t seq, send_handle;
	uint64_t match;
	uint8_t sync, large;
};

struct fake_peer {
	uint32_t session, remote_session;
	uint16_t remote_index;
	uint8_t up, owes;
	uint32_t tx_next, rx_next;
	uint32_t acked, notified, matched, handles;
	struct lsend ls[LSENDS];
	struct inmsg *in;	/* at most one at a time: messages come in
				 * order, each whole before the next */
};

/* Frames waiting for room in the library's rx ring, oldest first. */
struct backlog {
	struct mxd_frame *f;
	unsigned n, cap;
};

static struct backlog wait_q;

uint64_t
fake_peer_nic(const struct fake_peers *fp, uint32_t i)
{
	(void)fp;
	return NIC_BASE + i;
}

int
fake_peers_init(struct fake_peers *fp, struct fake_port *port, uint32_t n,
		const uint8_t dst_mac[6], uint64_t dst_nic, uint8_t dst_ep,
		uint32_t dst_filter, uint16_t mtu)
{
	memset(fp, 0, sizeof(*fp));
	if (n >= MXD_NO_PEER)
		return -1;
	fp->p = calloc(n, sizeof(*fp->p));
	if (fp->p == NULL)
		return -1;
	fp->port = port;
	memcpy(fp->dst_mac, dst_mac, 6);
	fp->dst_nic = dst_nic;
	fp->dst_ep = dst_ep;
	fp->dst_filter = dst_filter;
	fp->filter = 0x5ca1e;
	fp->mtu = mtu;
	fp->frag_max = (uint16_t)(mtu - sizeof(struct mxd_hdr) -
			sizeof(struct mxd_eager_hdr));
	fp->pull_frag = (uint16_t)(mtu - sizeof(struct mxd_hdr) -
			sizeof(struct mxd_pullrep_hdr));
	fp->n = n;
	for (uint32_t i = 0; i < n; i++) {
		fp->p[i].session = 0x51000000u + i + 1;
		fp->p[i].tx_next = 1;
		fp->p[i].rx_next = 1;
		fp->p[i].remote_index = MXD_NO_PEER;
	}
	return 0;
}

static void
flush(struct fake_peers *fp)
{
	struct mxd_link *l = &fp->port->link;
	unsigned sent = 0;

	/* What waits goes first, in order. */
	while (wait_q.n > 0) {
		uint16_t k = l->ops->tx_burst(l, wait_q.f, (uint16_t)(
					wait_q.n < 32 ? wait_q.n : 32));

		if (k == 0)
			break;
		memmove(wait_q.f, wait_q.f + k, (wait_q.n - k) * sizeof(*wait_q.f));
		wait_q.n -= k;
	}
	if (wait_q.n == 0)
		sent = l->ops->tx_burst(l, fp->out, (uint16_t)fp->nout);
	fp->frames_out += sent;
	if (sent < fp->nout) {
		unsigned left = fp->nout - sent;

		if (wait_q.n + left > wait_q.cap) {
			unsigned cap = 2 * (wait_q.n + left);
			struct mxd_frame *f = realloc(wait_q.f,
					cap * sizeof(*f));

			if (f == NULL)
				abort();
			wait_q.f = f;
			wait_q.cap = cap;
		}
		memcpy(wait_q.f + wait_q.n, fp->out + sent,
				left * sizeof(*fp->out));
		wait_q.n += left;
	}
	fp->nout = 0;
}

/* A frame of peer i to the library: its headers written, the body's
 * 'body' bytes to write at the pointer returned; end() seals it. */
static uint8_t *
start(struct fake_peers *fp, uint32_t i, uint8_t type, uint8_t flags,
		uint16_t body)
{
	struct fake_peer *p = &fp->p[i];
	struct mxd_link *l = &fp->port->link;
	struct mxd_frame *f;
	struct mxd_hdr_args a = {
		.type = type, .flags = flags, .dst_ep = fp->dst_ep,
		.dst_peer = p->remote_index, .src_peer = (uint16_t)i,
		.filter = fp->dst_filter, .src_session = p->session,
		.dst_session = p->remote_session,
	};
	uint8_t mac[6];

	if (fp->nout == sizeof(fp->out) / sizeof(fp->out[0]))
		flush(fp);
	f = &fp->out[fp->nout];
	if (l->ops->alloc(l, f, 1) != 0)
		abort();
	if (type != MXD_T_CONN_REQ) {
		a.flags |= MXD_F_ACK_VALID;
		a.ack = p->rx_next - 1;
		p->owes = 0;
	}
	mxd_nic_to_mac(fake_peer_nic(fp, i), mac);
	mxd_wire_put_hdr(f->data, fp->dst_mac, mac, &a, body);
	f->len = (uint32_t)MXD_HDRS_LEN + body;
	if (f->len < MIN_FRAME) {
		memset(f->data + f->len, 0, MIN_FRAME - f->len);
		f->len = MIN_FRAME;
	}
	fp->nout++;
	return f->data + MXD_HDRS_LEN;
}

static void
end(struct fake_peers *fp)
{
	mxd_wire_seal(fp->out[fp->nout - 1].data);
}

void
fake_peer_connect(struct fake_peers *fp, uint32_t i)
{
	uint8_t *d = start(fp, i, MXD_T_CONN_REQ, MXD_F_FRESH,
			sizeof(struct mxd_conn_hdr));

	mxd_wire_put_conn(d, fake_peer_nic(fp, i), fp->dst_nic, i + 1,
			fp->filter, MXD_CONN_OK, 1, fp->mtu, MXD_CAP_PACK);
	end(fp);
}

int
fake_peer_up(const struct fake_peers *fp, uint32_t i)
{
	return fp->p[i].up;
}

/* One fragment of message seq of peer i. */
static void
fragment(struct fake_peers *fp, uint32_t i, uint32_t seq, uint64_t match,
		const uint8_t *data, uint32_t len, uint8_t flags, uint8_t idx)
{
	uint32_t off = (uint32_t)idx * fp->frag_max;
	uint32_t n = len - off < fp->frag_max ? len - off : fp->frag_max;
	uint8_t *d = start(fp, i, MXD_T_EAGER, flags,
			(uint16_t)(sizeof(struct mxd_eager_hdr) + n));

	d += mxd_wire_put_eager(d, seq, len, match, fp->frag_max, idx);
	if (n != 0)
		memcpy(d, data + off, n);
	end(fp);
}

int
fake_peer_send(struct fake_peers *fp, uint32_t i, uint64_t match,
		const uint8_t *data, uint32_t len, uint8_t flags)
{
	struct fake_peer *p = &fp->p[i];
	uint32_t seq, frags = len ? mxd_frag_count(len, fp->frag_max) : 1;

	if (!p->up || frags > MXD_MAX_FRAGS)
		return -1;
	seq = p->tx_next++;
	for (uint32_t k = 0; k < frags; k++)
		fragment(fp, i, seq, match, data, len, flags, (uint8_t)k);
	fp->msgs_out++;
	return 0;
}

/* A notice of peer i: MATCHED or NOTIFY, with its value. */
static void
notice(struct fake_peers *fp, uint32_t i, uint32_t kind, uint32_t value)
{
	fragment(fp, i, fp->p[i].tx_next++, (uint64_t)kind << 32 | value,
			NULL, 0, MXD_F_CTRL, 0);
}

int
fake_peer_send_large(struct fake_peers *fp, uint32_t i, uint64_t match,
		const uint8_t *data, uint32_t len)
{
	struct fake_peer *p = &fp->p[i];
	uint8_t desc[sizeof(struct mxd_rndv_desc)];
	unsigned s;

	for (s = 0; s < LSENDS && p->ls[s].data != NULL; s++)
		;
	if (!p->up || s == LSENDS)
		return -1;
	p->ls[s].data = data;
	p->ls[s].len = len;
	p->ls[s].handle = ++p->handles << 4 | s;
	mxd_wire_put_rndv(desc, len, p->ls[s].handle, fp->pull_frag, 0);
	fragment(fp, i, p->tx_next++, match, desc, sizeof(desc), MXD_F_RNDV,
			0);
	fp->msgs_out++;
	return 0;
}

uint32_t
fake_peer_acked(const struct fake_peers *fp, uint32_t i)
{
	return fp->p[i].acked;
}

uint32_t
fake_peer_notified(const struct fake_peers *fp, uint32_t i)
{
	return fp->p[i].notified;
}

uint32_t
fake_peer_matched(const struct fake_peers *fp, uint32_t i)
{
	return fp->p[i].matched;
}

uint32_t
fake_peer_sent(const struct fake_peers *fp, uint32_t i)
{
	return fp->p[i].tx_next - 1;
}

/* ---- what the library sends ------------------------------------------- */

static void
delivered(struct fake_peers *fp, uint32_t i, struct inmsg *m)
{
	fp->msgs_in++;
	if (fp->on_msg != NULL)
		fp->on_msg(fp, i, m->match, m->buf, m->len, fp->arg);
	if (m->sync)
		notice(fp, i, MXD_NOTE_MATCHED, m->seq);
	if (m->large)
		notice(fp, i, MXD_NOTE_NOTIFY, m->send_handle);
}

/* Pulls the large message d describes (whole, in blocks). */
static void
pull(struct fake_peers *fp, uint32_t i, const struct mxd_rndv_desc *d)
{
	uint32_t frag = d->frag_max < fp->pull_frag ? d->frag_max :
		fp->pull_frag;
	uint32_t block = PULL_FRAMES * frag;

	for (uint32_t off = 0; off < d->total_len; off += block) {
		uint32_t n = d->total_len - off < block ?
			d->total_len - off : block;
		uint8_t *b = start(fp, i, MXD_T_PULL, 0,
				sizeof(struct mxd_pull_hdr));

		mxd_wire_put_pull(b, d->send_handle, i, off, n,
				(uint16_t)frag);
		end(fp);
	}
}

/* Message seq's fragment of peer i (a PACK record: its one). */
static void
eager(struct fake_peers *fp, uint32_t i, const struct mxd_pkt *pkt)
{
	struct fake_peer *p = &fp->p[i];
	uint32_t seq = pkt->u.eager.seq;
	struct inmsg *m = p->in, one;

	if (mxd_seq_lt(seq, p->rx_next)) {	/* sent again: say so */
		p->owes = 1;
		return;
	}
	if (seq != p->rx_next) {
		fp->bad++;
		return;
	}
	if (pkt->h.flags & MXD_F_CTRL) {
		uint32_t value = (uint32_t)pkt->u.eager.match;

		if (pkt->u.eager.match >> 32 == MXD_NOTE_MATCHED) {
			p->matched++;
		} else {
			for (unsigned s = 0; s < LSENDS; s++)
				if (p->ls[s].data != NULL &&
						p->ls[s].handle == value) {
					p->ls[s].data = NULL;
					p->notified++;
				}
		}
		p->rx_next++;
		p->owes = 1;
		return;
	}
	if (pkt->h.flags & MXD_F_RNDV) {
		struct mxd_rndv_desc d;

		mxd_wire_get_rndv(pkt->payload, &d);
		if (m != NULL || (m = calloc(1, sizeof(*m))) == NULL ||
				(m->buf = malloc(d.total_len ? d.total_len :
						1)) == NULL)
			abort();
		m->len = d.total_len;
		m->seq = seq;
		m->send_handle = d.send_handle;
		m->match = pkt->u.eager.match;
		m->sync = (pkt->h.flags & MXD_F_SYNC) != 0;
		m->large = 1;
		p->in = m;
		p->rx_next++;		/* taken: matched, pulled now */
		p->owes = 1;
		pull(fp, i, &d);
		return;
	}
	if (pkt->u.eager.frag_count == 1) {
		one.buf = (uint8_t *)(uintptr_t)pkt->payload;
		one.len = pkt->u.eager.msg_len;
		one.seq = seq;
		one.match = pkt->u.eager.match;
		one.sync = (pkt->h.flags & MXD_F_SYNC) != 0;
		one.large = 0;
		p->rx_next++;
		p->owes = 1;
		delivered(fp, i, &one);
		return;
	}
	if (m == NULL) {
		if ((m = calloc(1, sizeof(*m))) == NULL ||
				(m->buf = malloc(pkt->u.eager.msg_len)) == NULL)
			abort();
		m->len = pkt->u.eager.msg_len;
		m->seq = seq;
		m->match = pkt->u.eager.match;
		m->sync = (pkt->h.flags & MXD_F_SYNC) != 0;
		p->in = m;
	}
	memcpy(m->buf + pkt->u.eager.frag_off, pkt->payload,
			pkt->u.eager.frag_len);
	m->have += pkt->u.eager.frag_len;
	if (m->have < m->len)
		return;
	p->in = NULL;
	p->rx_next++;
	p->owes = 1;
	delivered(fp, i, m);
	free(m->buf);
	free(m);
}

/* A PULL of one of peer i's large sends: its replies. */
static void
serve(struct fake_peers *fp, uint32_t i, const struct mxd_pkt *pkt)
{
	const struct lsend *s = NULL;
	uint32_t end_off = pkt->u.pull.offset + pkt->u.pull.length;

	for (unsigned k = 0; k < LSENDS; k++)
		if (fp->p[i].ls[k].data != NULL &&
				fp->p[i].ls[k].handle == pkt->u.pull.send_handle)
			s = &fp->p[i].ls[k];
	if (s == NULL || end_off > s->len || pkt->u.pull.frag == 0) {
		fp->bad++;
		return;
	}
	for (uint32_t off = pkt->u.pull.offset; off < end_off;
			off += pkt->u.pull.frag) {
		uint32_t n = end_off - off < pkt->u.pull.frag ?
			end_off - off : pkt->u.pull.frag;
		uint8_t *b = start(fp, i, MXD_T_PULL_REP, 0,
				(uint16_t)(sizeof(struct mxd_pullrep_hdr) + n));

		b += mxd_wire_put_pullrep(b, pkt->u.pull.recv_handle, off);
		memcpy(b, s->data + off, n);
		end(fp);
	}
}

/* A reply to our PULL of the large message peer i takes. */
static void
reply(struct fake_peers *fp, uint32_t i, const struct mxd_pkt *pkt)
{
	struct fake_peer *p = &fp->p[i];
	struct inmsg *m = p->in;

	if (m == NULL || !m->large || pkt->u.rep.recv_handle != i ||
			pkt->u.rep.offset + (uint64_t)pkt->u.rep.len > m->len) {
		fp->bad++;
		return;
	}
	memcpy(m->buf + pkt->u.rep.offset, pkt->payload, pkt->u.rep.len);
	m->have += pkt->u.rep.len;
	if (m->have < m->len)
		return;
	p->in = NULL;
	delivered(fp, i, m);
	free(m->buf);
	free(m);
}

static void
frame_in(struct fake_peers *fp, struct mxd_frame *f, uint32_t *owing,
		unsigned *nowing)
{
	struct mxd_pkt pkt, msg;
	struct fake_peer *p;
	uint32_t i;

	if (mxd_wire_parse(f->data, f->len, &pkt) != MXD_DROP_NONE) {
		fp->bad++;
		return;
	}
	if (pkt.h.type == MXD_T_DISCOVER)
		return;
	i = pkt.h.dst_peer;
	if (i >= fp->n) {
		fp->bad++;
		return;
	}
	p = &fp->p[i];
	if (pkt.h.type == MXD_T_CONN_REP) {
		if (pkt.u.conn.status != MXD_CONN_OK) {
			fp->bad++;
			return;
		}
		p->remote_index = pkt.h.src_peer;
		p->remote_session = pkt.h.src_session;
		p->up = 1;
		return;
	}
	if (pkt.h.dst_session != p->session ||
			pkt.h.src_session != p->remote_session) {
		fp->bad++;
		return;
	}
	if ((pkt.h.flags & MXD_F_ACK_VALID) && mxd_seq_lt(p->acked, pkt.h.ack))
		p->acked = pkt.h.ack;
	switch (pkt.h.type) {
	case MXD_T_EAGER:
		eager(fp, i, &pkt);
		break;
	case MXD_T_PACK: {
		const uint8_t *rec = mxd_wire_pack_first(&pkt, &msg);

		for (uint32_t k = 0; k < pkt.u.pack.count; k++) {
			rec = mxd_wire_pack_next(rec, &msg);
			eager(fp, i, &msg);
		}
		break;
	}
	case MXD_T_PULL:
		serve(fp, i, &pkt);
		break;
	case MXD_T_PULL_REP:
		reply(fp, i, &pkt);
		break;
	case MXD_T_ACK:
		if (pkt.h.flags & MXD_F_BYE)
			p->up = 0;
		else if (pkt.h.flags & MXD_F_PING)
			p->owes = 1;
		break;
	default:
		fp->bad++;		/* a NACK: never asked for */
		return;
	}
	if (p->owes && *nowing < 32)
		owing[(*nowing)++] = i;
}

unsigned
fake_peers_poll(struct fake_peers *fp, unsigned budget)
{
	struct mxd_link *l = &fp->port->link;
	struct mxd_frame in[32];
	uint32_t owing[32];
	unsigned total = 0;

	flush(fp);
	for (unsigned b = 0; b < budget; b++) {
		unsigned nowing = 0;
		uint16_t n = l->ops->rx_burst(l, in, 32);

		if (n == 0)
			break;
		for (unsigned k = 0; k < n; k++)
			frame_in(fp, &in[k], owing, &nowing);
		l->ops->free(in, n);
		fp->frames_in += n;
		total += n;
		/* What a peer was sent is acked once per burst (unless a
		 * frame of its own carried it meanwhile). */
		for (unsigned k = 0; k < nowing && !fp->hold_acks; k++)
			if (fp->p[owing[k]].owes) {
				start(fp, owing[k], MXD_T_ACK, 0, 0);
				end(fp);
			}
		flush(fp);
	}
	return total;
}

void
fake_peers_ack_all(struct fake_peers *fp)
{
	for (uint32_t i = 0; i < fp->n; i++)
		if (fp->p[i].owes) {
			start(fp, i, MXD_T_ACK, 0, 0);
			end(fp);
		}
	flush(fp);
}

void
fake_peers_fini(struct fake_peers *fp)
{
	struct mxd_link *l = &fp->port->link;

	flush(fp);
	if (wait_q.n != 0)
		l->ops->free(wait_q.f, wait_q.n);
	free(wait_q.f);
	memset(&wait_q, 0, sizeof(wait_q));
	for (uint32_t i = 0; i < fp->n; i++)
		if (fp->p[i].in != NULL) {
			free(fp->p[i].in->buf);
			free(fp->p[i].in);
		}
	free(fp->p);
	fp->p = NULL;
}
