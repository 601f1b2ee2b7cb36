/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encoding and the one validation function for received frames.
 *
 * mxd_wire_parse() is the only place that looks at untrusted bytes: it
 * checks the EtherType, version, the integrity check, type, that the
 * common header's length field fits the frame (Ethernet pads short
 * frames, so the frame may be longer than the MX content), and each
 * type's exact header size and bounds.  Everything it returns in struct
 * mxd_pkt may be trusted as far as the frame's own consistency goes;
 * session, endpoint and partner checks need endpoint state and are done
 * by the receive path.
 */
#include <stddef.h>

#include "wire.h"
#include "csum.h"

/* Offsets written once: each field's place is its struct's offsetof. */
#define O(type, field)	offsetof(struct type, field)
#define H(field)	O(mxd_hdr, field)
#define LEN_OFF		(MXD_ETH_HLEN + H(length))
#define CSUM_OFF	(MXD_ETH_HLEN + H(csum))

/* Largest message any sender may send eagerly: a wire sanity cap. */
#define MXD_WIRE_EAGER_CAP	(MXD_MAX_FRAGS * 16384u)

void
mxd_wire_add_flags(uint8_t *frame, uint8_t flags)
{
	frame[MXD_ETH_HLEN + H(flags)] |= flags;
}

void
mxd_wire_set_length(uint8_t *frame, uint16_t length)
{
	mxd_put16(frame + LEN_OFF, length);
}

size_t
mxd_wire_put_conn(uint8_t *p, uint64_t src_nic, uint64_t dst_nic,
		uint32_t conn_id, uint32_t src_filter, uint8_t status,
		uint32_t epoch, uint16_t mtu, uint8_t caps)
{
	mxd_put64(p + O(mxd_conn_hdr, src_nic), src_nic);
	mxd_put32(p + O(mxd_conn_hdr, conn_id), conn_id);
	mxd_put32(p + O(mxd_conn_hdr, src_filter), src_filter);
	p[O(mxd_conn_hdr, status)] = status;
	p[O(mxd_conn_hdr, caps)] = caps;
	mxd_put16(p + O(mxd_conn_hdr, mtu), mtu);
	mxd_put32(p + O(mxd_conn_hdr, epoch), epoch);
	mxd_put64(p + O(mxd_conn_hdr, dst_nic), dst_nic);
	return sizeof(struct mxd_conn_hdr);
}

size_t
mxd_wire_put_pack(uint8_t *p, uint16_t count)
{
	memset(p, 0, sizeof(struct mxd_pack_hdr));
	mxd_put16(p + O(mxd_pack_hdr, count), count);
	return sizeof(struct mxd_pack_hdr);
}



const uint8_t *
mxd_wire_pack_first(const struct mxd_pkt *pkt, struct mxd_pkt *msg)
{
	msg->eth = pkt->eth;
	msg->h = pkt->h;
	msg->unchecked = 0;
	msg->u.eager.frag_off = 0;
	msg->u.eager.frag_idx = 0;
	msg->u.eager.frag_count = 1;
	msg->u.eager.frag_max = MXD_PACK_FRAG_MAX;
	return pkt->payload;
}

const uint8_t *
mxd_wire_pack_next(const uint8_t *rec, struct mxd_pkt *msg)
{
	uint32_t len = mxd_get16(rec + O(mxd_pack_rec, len));

	msg->h.flags = (uint8_t)((msg->h.flags & ~MXD_PACK_FLAGS) |
			rec[O(mxd_pack_rec, flags)]);
	msg->u.eager.seq = mxd_get32(rec + O(mxd_pack_rec, seq));
	msg->u.eager.msg_len = len;
	msg->u.eager.frag_len = len;
	msg->u.eager.match = mxd_get64(rec + O(mxd_pack_rec, match));
	msg->payload = rec + sizeof(struct mxd_pack_rec);
	return rec + mxd_pack_rec_size(len);
}

size_t
mxd_wire_put_sack(uint8_t *p, uint64_t bits)
{
	mxd_put64(p, bits);
	return MXD_SACK_LEN;
}

size_t
mxd_wire_put_frags(uint8_t *p, unsigned i, uint32_t seq, uint64_t have)
{
	p += i * sizeof(struct mxd_frags_rec);
	mxd_put32(p + O(mxd_frags_rec, seq), seq);
	mxd_put64(p + O(mxd_frags_rec, have), have);
	return sizeof(struct mxd_frags_rec);
}

void
mxd_wire_get_frags(const struct mxd_pkt *pkt, unsigned i, uint32_t *seq,
		uint64_t *have)
{
	const uint8_t *p = pkt->payload + i * sizeof(struct mxd_frags_rec);

	*seq = mxd_get32(p + O(mxd_frags_rec, seq));
	*have = mxd_get64(p + O(mxd_frags_rec, have));
}

/* ACK: nothing, a SACK bitmap, fragments records, or both, as flagged. */
static enum mxd_drop
parse_ack(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	uint32_t rest = len;

	pkt->u.ack.sack = 0;
	pkt->u.ack.nfrags = 0;
	if (pkt->h.flags & MXD_F_SACK) {
		if (rest < MXD_SACK_LEN)
			return MXD_DROP_LENGTH;
		pkt->u.ack.sack = mxd_get64(b);
		b += MXD_SACK_LEN;
		rest -= MXD_SACK_LEN;
	}
	if (!(pkt->h.flags & MXD_F_FRAGS))
		return rest == 0 ? MXD_DROP_NONE : MXD_DROP_LENGTH;
	if (rest == 0 || rest % sizeof(struct mxd_frags_rec) != 0 ||
			rest / sizeof(struct mxd_frags_rec) > MXD_FRAGS_MAX)
		return MXD_DROP_LENGTH;
	pkt->u.ack.nfrags = rest / (uint32_t)sizeof(struct mxd_frags_rec);
	pkt->payload = b;
	return MXD_DROP_NONE;
}

size_t
mxd_wire_put_seq(uint8_t *p, uint32_t seq, uint8_t reason, uint32_t session)
{
	memset(p, 0, sizeof(struct mxd_seq_hdr));
	mxd_put32(p + O(mxd_seq_hdr, seq), seq);
	p[O(mxd_seq_hdr, reason)] = reason;
	mxd_put32(p + O(mxd_seq_hdr, session), session);
	return sizeof(struct mxd_seq_hdr);
}

size_t
mxd_wire_put_rndv(uint8_t *p, uint32_t total_len, uint32_t send_handle,
		uint16_t frag_max, uint16_t head)
{
	memset(p, 0, sizeof(struct mxd_rndv_desc));
	mxd_put32(p + O(mxd_rndv_desc, total_len), total_len);
	mxd_put32(p + O(mxd_rndv_desc, send_handle), send_handle);
	mxd_put16(p + O(mxd_rndv_desc, frag_max), frag_max);
	mxd_put16(p + O(mxd_rndv_desc, head), head);
	return sizeof(struct mxd_rndv_desc);
}

void
mxd_wire_get_rndv(const uint8_t *p, struct mxd_rndv_desc *d)
{
	d->total_len = mxd_get32(p + O(mxd_rndv_desc, total_len));
	d->send_handle = mxd_get32(p + O(mxd_rndv_desc, send_handle));
	d->frag_max = mxd_get16(p + O(mxd_rndv_desc, frag_max));
	d->head = mxd_get16(p + O(mxd_rndv_desc, head));
}

size_t
mxd_wire_put_pull(uint8_t *p, uint32_t send_handle, uint32_t recv_handle,
		uint32_t offset, uint32_t length, uint16_t frag)
{
	memset(p, 0, sizeof(struct mxd_pull_hdr));
	mxd_put32(p + O(mxd_pull_hdr, send_handle), send_handle);
	mxd_put32(p + O(mxd_pull_hdr, recv_handle), recv_handle);
	mxd_put32(p + O(mxd_pull_hdr, offset), offset);
	mxd_put32(p + O(mxd_pull_hdr, length), length);
	mxd_put16(p + O(mxd_pull_hdr, frag), frag);
	return sizeof(struct mxd_pull_hdr);
}

size_t
mxd_wire_put_pullrep(uint8_t *p, uint32_t recv_handle, uint32_t offset)
{
	mxd_put32(p + O(mxd_pullrep_hdr, recv_handle), recv_handle);
	mxd_put32(p + O(mxd_pullrep_hdr, offset), offset);
	return sizeof(struct mxd_pullrep_hdr);
}

static void
put_name(char *dst, const char *src)
{
	memset(dst, 0, MXD_NAME_LEN);
	if (src != NULL)
		strncpy(dst, src, MXD_NAME_LEN - 1);
}

size_t
mxd_wire_put_disc(uint8_t *p, uint64_t src_nic, int query, const char *name,
		const char *want)
{
	memset(p, 0, O(mxd_disc_hdr, name));
	mxd_put64(p + O(mxd_disc_hdr, src_nic), src_nic);
	p[O(mxd_disc_hdr, query)] = query ? 1 : 0;
	put_name((char *)p + O(mxd_disc_hdr, name), name);
	put_name((char *)p + O(mxd_disc_hdr, want), want);
	return sizeof(struct mxd_disc_hdr);
}

/* A descriptor of msg_len bytes (its message's, at d): 16 and its head,
 * which the large message holds. */
static int
rndv_len_ok(const uint8_t *d, uint32_t msg_len)
{
	uint32_t head;

	if (msg_len < sizeof(struct mxd_rndv_desc))
		return 0;
	head = mxd_get16(d + O(mxd_rndv_desc, head));
	return msg_len == sizeof(struct mxd_rndv_desc) + head &&
		head <= MXD_RNDV_HEAD_MAX &&
		head <= mxd_get32(d + O(mxd_rndv_desc, total_len));
}

/* A message's flags and match: what an EAGER frame of it may carry (the
 * message whole at d, if flagged RNDV). */
static enum mxd_drop
msg_flags_ok(uint8_t flags, uint32_t msg_len, uint64_t match,
		const uint8_t *d)
{
	if ((flags & MXD_F_RNDV) && !rndv_len_ok(d, msg_len))
		return MXD_DROP_LENGTH;
	if ((flags & MXD_F_CTRL) && (msg_len != 0 ||
			(flags & (MXD_F_RNDV | MXD_F_SYNC)) ||
			match >> 32 == 0 || match >> 32 >= MXD_NOTE_MAX))
		return MXD_DROP_FRAG;	/* not a notice we know */
	return MXD_DROP_NONE;
}

/*
 * The fragment fields read into locals first: a store into pkt may alias
 * the frame's bytes, which would have every later field read again.  A
 * message of one fragment (every small one) is checked without the
 * division that counts fragments: its index and offset are 0, its
 * length is the message's and at most frag_max.
 */
static inline __attribute__((always_inline)) enum mxd_drop
parse_eager(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	uint32_t count, want_len, msg_len, frag_off, frag_len;
	uint16_t frag_max;
	uint8_t frag_idx, frag_count;
	uint64_t match;
	enum mxd_drop why;

	if (len < sizeof(struct mxd_eager_hdr))
		return MXD_DROP_LENGTH;
	msg_len = mxd_get32(b + O(mxd_eager_hdr, msg_len));
	match = mxd_get64(b + O(mxd_eager_hdr, match));
	frag_off = mxd_get32(b + O(mxd_eager_hdr, frag_off));
	frag_idx = b[O(mxd_eager_hdr, frag_idx)];
	frag_count = b[O(mxd_eager_hdr, frag_count)];
	frag_max = mxd_get16(b + O(mxd_eager_hdr, frag_max));
	frag_len = len - (uint32_t)sizeof(struct mxd_eager_hdr);
	pkt->u.eager.seq = mxd_get32(b + O(mxd_eager_hdr, seq));
	pkt->u.eager.msg_len = msg_len;
	pkt->u.eager.match = match;
	pkt->u.eager.frag_off = frag_off;
	pkt->u.eager.frag_idx = frag_idx;
	pkt->u.eager.frag_count = frag_count;
	pkt->u.eager.frag_max = frag_max;
	pkt->u.eager.frag_len = frag_len;
	pkt->payload = b + sizeof(struct mxd_eager_hdr);

	if (frag_max == 0 || msg_len > MXD_WIRE_EAGER_CAP)
		return MXD_DROP_FRAG;
	if (frag_count == 1) {		/* count is 1: msg_len <= frag_max */
		if (msg_len > frag_max || frag_idx != 0 || frag_off != 0)
			return MXD_DROP_FRAG;
		if (frag_len != msg_len)
			return MXD_DROP_LENGTH;
		return msg_flags_ok(pkt->h.flags, msg_len, match,
				pkt->payload);
	}
	count = mxd_frag_count(msg_len, frag_max);
	if (count > MXD_MAX_FRAGS || count != frag_count || frag_idx >= count)
		return MXD_DROP_FRAG;
	if (frag_off != (uint32_t)frag_idx * frag_max)
		return MXD_DROP_FRAG;
	want_len = msg_len - frag_off;
	if (want_len > frag_max)
		want_len = frag_max;
	if (frag_len != want_len)
		return MXD_DROP_LENGTH;
	/* The receiver reads a descriptor from one fragment. */
	if (pkt->h.flags & MXD_F_RNDV)
		return MXD_DROP_FRAG;
	why = msg_flags_ok(pkt->h.flags, msg_len, match, NULL);
	if (why != MXD_DROP_NONE)
		return why;
	return MXD_DROP_NONE;
}

/*
 * Every record of a PACK frame: its length within what is left, flags
 * that a message may carry, sequence numbers rising (no message twice),
 * and the records filling the frame's length exactly.
 */
static enum mxd_drop
parse_pack(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	uint32_t count, left, prev = 0;
	const uint8_t *r;

	if (len < sizeof(struct mxd_pack_hdr))
		return MXD_DROP_LENGTH;
	if (pkt->h.flags & MXD_PACK_FLAGS)
		return MXD_DROP_FRAG;		/* each record's own */
	count = mxd_get16(b + O(mxd_pack_hdr, count));
	if (count == 0 || count > MXD_PACK_MAX)
		return MXD_DROP_LENGTH;
	r = b + sizeof(struct mxd_pack_hdr);
	left = len - (uint32_t)sizeof(struct mxd_pack_hdr);
	pkt->payload = r;
	pkt->u.pack.count = count;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t seq, n, size;
		uint8_t fl;
		enum mxd_drop why;

		if (left < sizeof(struct mxd_pack_rec))
			return MXD_DROP_LENGTH;
		seq = mxd_get32(r + O(mxd_pack_rec, seq));
		n = mxd_get16(r + O(mxd_pack_rec, len));
		fl = r[O(mxd_pack_rec, flags)];
		size = mxd_pack_rec_size(n);
		if (size > left)
			return MXD_DROP_LENGTH;
		if (fl & ~MXD_PACK_FLAGS)
			return MXD_DROP_FRAG;
		why = msg_flags_ok(fl, n,
				mxd_get64(r + O(mxd_pack_rec, match)),
				r + sizeof(struct mxd_pack_rec));
		if (why != MXD_DROP_NONE)
			return why;
		if (i == 0)
			pkt->u.pack.first_seq = seq;
		else if (!mxd_seq_lt(prev, seq))
			return MXD_DROP_FRAG;	/* overlap or disorder */
		prev = seq;
		r += size;
		left -= size;
	}
	return left == 0 ? MXD_DROP_NONE : MXD_DROP_LENGTH;
}

static enum mxd_drop
parse_conn(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	uint16_t raw;

	if (len != sizeof(struct mxd_conn_hdr))
		return MXD_DROP_LENGTH;
	pkt->u.conn.src_nic = mxd_get64(b + O(mxd_conn_hdr, src_nic));
	pkt->u.conn.conn_id = mxd_get32(b + O(mxd_conn_hdr, conn_id));
	pkt->u.conn.src_filter = mxd_get32(b + O(mxd_conn_hdr, src_filter));
	pkt->u.conn.status = b[O(mxd_conn_hdr, status)];
	pkt->u.conn.caps = b[O(mxd_conn_hdr, caps)];
	raw = mxd_get16(b + O(mxd_conn_hdr, mtu));
	pkt->u.conn.mtu = (uint16_t)(raw & MXD_CONN_MTU_MASK);
	pkt->u.conn.slot = (pkt->u.conn.caps & MXD_CAP_SLOT) ? (uint8_t)(
			pkt->u.conn.caps >> MXD_CAP_SLOT_SHIFT |
			(raw >> MXD_CONN_SLOT_HI) << 4) : 0;
	pkt->u.conn.epoch = mxd_get32(b + O(mxd_conn_hdr, epoch));
	pkt->u.conn.dst_nic = mxd_get64(b + O(mxd_conn_hdr, dst_nic));
	return MXD_DROP_NONE;
}

static enum mxd_drop
parse_disc(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	if (len != sizeof(struct mxd_disc_hdr))
		return MXD_DROP_LENGTH;
	pkt->u.disc.src_nic = mxd_get64(b + O(mxd_disc_hdr, src_nic));
	pkt->u.disc.query = b[O(mxd_disc_hdr, query)];
	memcpy(pkt->u.disc.name, b + O(mxd_disc_hdr, name), MXD_NAME_LEN);
	memcpy(pkt->u.disc.want, b + O(mxd_disc_hdr, want), MXD_NAME_LEN);
	/* Names are NUL padded; force termination whatever was sent. */
	pkt->u.disc.name[MXD_NAME_LEN - 1] = '\0';
	pkt->u.disc.want[MXD_NAME_LEN - 1] = '\0';
	return MXD_DROP_NONE;
}

static enum mxd_drop
parse_seq(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	if (len != sizeof(struct mxd_seq_hdr))
		return MXD_DROP_LENGTH;
	pkt->u.seq.seq = mxd_get32(b + O(mxd_seq_hdr, seq));
	pkt->u.seq.reason = b[O(mxd_seq_hdr, reason)];
	pkt->u.seq.session = mxd_get32(b + O(mxd_seq_hdr, session));
	if (pkt->h.type == MXD_T_NACK && pkt->u.seq.reason != MXD_NACK_CLOSED &&
			pkt->u.seq.reason != MXD_NACK_BAD_KEY)
		return MXD_DROP_LENGTH;
	return MXD_DROP_NONE;
}

static enum mxd_drop
parse_pull(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	if (len != sizeof(struct mxd_pull_hdr))
		return MXD_DROP_LENGTH;
	pkt->u.pull.send_handle = mxd_get32(b + O(mxd_pull_hdr, send_handle));
	pkt->u.pull.recv_handle = mxd_get32(b + O(mxd_pull_hdr, recv_handle));
	pkt->u.pull.offset = mxd_get32(b + O(mxd_pull_hdr, offset));
	pkt->u.pull.length = mxd_get32(b + O(mxd_pull_hdr, length));
	pkt->u.pull.frag = mxd_get16(b + O(mxd_pull_hdr, frag));
	if (pkt->u.pull.length == 0 || pkt->u.pull.frag == 0 ||
			pkt->u.pull.offset + (uint64_t)pkt->u.pull.length >
			UINT32_MAX)
		return MXD_DROP_FRAG;
	return MXD_DROP_NONE;
}

static enum mxd_drop
parse_pullrep(const uint8_t *b, uint32_t len, struct mxd_pkt *pkt)
{
	/* GONE: the header alone; else at least a byte of payload. */
	if ((pkt->h.flags & MXD_F_GONE) ?
			len != sizeof(struct mxd_pullrep_hdr) :
			len <= sizeof(struct mxd_pullrep_hdr))
		return MXD_DROP_LENGTH;
	pkt->u.rep.recv_handle = mxd_get32(b + O(mxd_pullrep_hdr, recv_handle));
	pkt->u.rep.offset = mxd_get32(b + O(mxd_pullrep_hdr, offset));
	pkt->u.rep.len = len - (uint32_t)sizeof(struct mxd_pullrep_hdr);
	pkt->payload = b + sizeof(struct mxd_pullrep_hdr);
	if (pkt->u.rep.offset + (uint64_t)pkt->u.rep.len > UINT32_MAX)
		return MXD_DROP_FRAG;
	return MXD_DROP_NONE;
}

static void
parse_common(const uint8_t *h, struct mxd_pkt *pkt)
{
	pkt->h.type = h[H(type)];
	pkt->h.flags = h[H(flags)];
	pkt->h.epoch = h[H(epoch)];
	pkt->h.src_ep = h[H(src_ep)];
	pkt->h.dst_ep = h[H(dst_ep)];
	pkt->h.dst_peer = mxd_get16(h + H(dst_peer));
	pkt->h.src_peer = mxd_get16(h + H(src_peer));
	pkt->h.filter = mxd_get32(h + H(filter));
	pkt->h.src_session = mxd_get32(h + H(src_session));
	pkt->h.dst_session = mxd_get32(h + H(dst_session));
	pkt->h.ack = mxd_get32(h + H(ack));
	pkt->payload = NULL;
}


/*
 * The CRC register over the frame's first n bytes with the csum field
 * read as zero.  The frame is only read: a narrow store into it followed by
 * the wide loads of the CRC could not be forwarded, and every load would
 * wait for the store to retire.
 */
static uint32_t
crc_zeroed(const uint8_t *frame, size_t n)
{
	return mxd_crc_frame(frame, n);
}

void
mxd_wire_seal(uint8_t *frame)
{
	uint32_t body = mxd_get16(frame + LEN_OFF);

	mxd_put32(frame + CSUM_OFF, ~crc_zeroed(frame, MXD_HDRS_LEN + body));
}

static enum mxd_drop parse_body(const uint8_t *h, uint32_t body,
		struct mxd_pkt *pkt);

static enum mxd_drop
parse(uint8_t *frame, size_t len, struct mxd_pkt *pkt, int lazy)
{
	const uint8_t *h = frame + MXD_ETH_HLEN;
	uint32_t body;

	if (len < MXD_ETH_HLEN)
		return MXD_DROP_SHORT;
	if (mxd_get16(frame + O(mxd_eth_hdr, ethertype)) != MXD_ETHERTYPE)
		return MXD_DROP_ETHERTYPE;
	if (len < MXD_HDRS_LEN)
		return MXD_DROP_SHORT;
	if (h[H(version)] != MXD_WIRE_VERSION)
		return MXD_DROP_VERSION;
	body = mxd_get16(h + H(length));
	if (body > len - MXD_HDRS_LEN)
		return MXD_DROP_SHORT;
	pkt->unchecked = 0;
	if (lazy && h[H(type)] == MXD_T_PULL_REP &&
			body > sizeof(struct mxd_pullrep_hdr)) {
		pkt->unchecked = 1;
		pkt->crc = crc_zeroed(frame, MXD_HDRS_LEN +
				sizeof(struct mxd_pullrep_hdr));
		pkt->claimed = mxd_get32(frame + CSUM_OFF);
	} else if (~crc_zeroed(frame, MXD_HDRS_LEN + body) !=
			mxd_get32(frame + CSUM_OFF)) {
		return MXD_DROP_CSUM;
	}
	pkt->eth = (const struct mxd_eth_hdr *)(const void *)frame;
	parse_common(h, pkt);
	h += sizeof(struct mxd_hdr);
	if (pkt->h.type == MXD_T_EAGER)		/* most frames */
		return parse_eager(h, body, pkt);
	return parse_body(h, body, pkt);
}

/* The type header and bounds of a frame other than EAGER (parse): out
 * of line, so that the EAGER frame's way keeps its registers. */
static __attribute__((noinline)) enum mxd_drop
parse_body(const uint8_t *h, uint32_t body, struct mxd_pkt *pkt)
{
	switch (pkt->h.type) {
	case MXD_T_ACK:
		return parse_ack(h, body, pkt);
	case MXD_T_CONN_REQ:
	case MXD_T_CONN_REP:
		return parse_conn(h, body, pkt);
	case MXD_T_DISCOVER:
		return parse_disc(h, body, pkt);
	case MXD_T_NACK:
		return parse_seq(h, body, pkt);
	case MXD_T_PULL:
		return parse_pull(h, body, pkt);
	case MXD_T_PULL_REP:
		return parse_pullrep(h, body, pkt);
	case MXD_T_PACK:
		return parse_pack(h, body, pkt);
	default:
		return MXD_DROP_TYPE;
	}
}

enum mxd_drop
mxd_wire_parse(uint8_t *frame, size_t len, struct mxd_pkt *pkt)
{
	return parse(frame, len, pkt, 0);
}

enum mxd_drop
mxd_wire_parse_lazy(uint8_t *frame, size_t len, struct mxd_pkt *pkt)
{
	return parse(frame, len, pkt, 1);
}

int
mxd_wire_payload_ok(const struct mxd_pkt *pkt, uint32_t crc)
{
	return !pkt->unchecked || ~crc == pkt->claimed;
}

int
mxd_wire_check(const struct mxd_pkt *pkt)
{
	return !pkt->unchecked || mxd_wire_payload_ok(pkt,
			mxd_crc_update(pkt->crc, pkt->payload, pkt->u.rep.len));
}

void
mxd_wire_plain_pkt(const uint8_t *frame, struct mxd_pkt *pkt)
{
	const uint8_t *h = frame + MXD_ETH_HLEN;
	const uint8_t *e = h + sizeof(struct mxd_hdr);
	uint32_t len = mxd_get32(e + O(mxd_eager_hdr, msg_len));

	pkt->unchecked = 0;
	pkt->eth = (const struct mxd_eth_hdr *)(const void *)frame;
	parse_common(h, pkt);
	pkt->u.eager.seq = mxd_get32(e + O(mxd_eager_hdr, seq));
	pkt->u.eager.msg_len = len;
	pkt->u.eager.match = mxd_get64(e + O(mxd_eager_hdr, match));
	pkt->u.eager.frag_off = 0;
	pkt->u.eager.frag_idx = 0;
	pkt->u.eager.frag_count = 1;
	pkt->u.eager.frag_max = mxd_get16(e + O(mxd_eager_hdr, frag_max));
	pkt->u.eager.frag_len = len;
	pkt->payload = e + sizeof(struct mxd_eager_hdr);
}

const char *
mxd_drop_name(enum mxd_drop d)
{
	static const char *const names[MXD_DROP_MAX] = {
		[MXD_DROP_NONE] = "accepted",
		[MXD_DROP_SHORT] = "drop: short frame",
		[MXD_DROP_ETHERTYPE] = "drop: foreign ethertype",
		[MXD_DROP_VERSION] = "drop: wire version",
		[MXD_DROP_TYPE] = "drop: unknown type",
		[MXD_DROP_LENGTH] = "drop: bad length",
		[MXD_DROP_FRAG] = "drop: bad fragment",
		[MXD_DROP_ENDPOINT] = "drop: no endpoint/session",
		[MXD_DROP_FILTER] = "drop: filter mismatch",
		[MXD_DROP_PEER] = "drop: unknown partner",
		[MXD_DROP_WINDOW] = "drop: outside window",
		[MXD_DROP_DUP] = "drop: duplicate",
		[MXD_DROP_NOBUF] = "drop: no buffer",
		[MXD_DROP_CSUM] = "drop: bad checksum",
		[MXD_DROP_STALE] = "drop: stale",
		[MXD_DROP_LONG] = "drop: frame too long",
	};

	if ((unsigned)d >= MXD_DROP_MAX)
		return "drop: ?";
	return names[d];
}
