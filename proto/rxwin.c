/* SPDX-License-Identifier: BSD-3-Clause */
/* Receive window: see rxwin.h for the design. */
#include <assert.h>
#include "rxwin.h"

#define SLOT(w, s)	(&(w)->slot[(s) & (MXD_WIN - 1)])

void
mxd_rxwin_init(struct mxd_rxwin *w, uint32_t first_seq)
{
	if (w->slot != NULL)
		memset(w->slot, 0, MXD_WIN * sizeof(w->slot[0]));
	w->next_match = first_seq;
	w->base = first_seq;
	w->top = first_seq;
}

static void
slot_setup(struct mxd_rxslot *sl, const struct mxd_pkt *pkt)
{
	memset(sl, 0, sizeof(*sl));
	sl->seq = pkt->u.eager.seq;
	sl->msg_len = pkt->u.eager.msg_len;
	sl->match = pkt->u.eager.match;
	sl->frag_max = pkt->u.eager.frag_max;
	sl->frag_count = pkt->u.eager.frag_count;
	sl->sync = (pkt->h.flags & MXD_F_SYNC) != 0;
	sl->rndv = (pkt->h.flags & MXD_F_RNDV) != 0;
	sl->active = 1;
}

static int
slot_agrees(const struct mxd_rxslot *sl, const struct mxd_pkt *pkt)
{
	return sl->msg_len == pkt->u.eager.msg_len &&
		sl->match == pkt->u.eager.match &&
		sl->frag_max == pkt->u.eager.frag_max;
}

enum mxd_rx_verdict
mxd_rxwin_frag(struct mxd_rxwin *w, const struct mxd_pkt *pkt,
		struct mxd_rxslot **slotp)
{
	uint32_t s = pkt->u.eager.seq;
	uint64_t bit = 1ull << pkt->u.eager.frag_idx;
	enum mxd_rx_verdict v = MXD_RX_MORE;
	struct mxd_rxslot *sl;

	if (mxd_seq_lt(s, w->base))
		return MXD_RX_DUP;
	if (s - w->base >= MXD_WIN)
		return MXD_RX_WINDOW;
	sl = SLOT(w, s);
	if (!sl->active) {
		slot_setup(sl, pkt);
		v = MXD_RX_NEW;
		if (!mxd_seq_lt(s, w->top))
			w->top = s + 1;
	} else if (sl->seq != s || !slot_agrees(sl, pkt)) {
		return MXD_RX_BAD;
	} else if (sl->have & bit) {
		return MXD_RX_DUP;
	}
	sl->have |= bit;
	sl->nfrags++;
	sl->complete = sl->nfrags == sl->frag_count;
	*slotp = sl;
	return v;
}

struct mxd_rxslot *
mxd_rxwin_matchable(struct mxd_rxwin *w)
{
	struct mxd_rxslot *sl = SLOT(w, w->next_match);

	if (sl->active && sl->seq == w->next_match && !sl->matched)
		return sl;
	return NULL;
}

void
mxd_rxwin_matched(struct mxd_rxwin *w, struct mxd_rxslot *sl)
{
	assert(sl->seq == w->next_match && sl->active && !sl->matched);
	sl->matched = 1;
	w->next_match++;
}

uint32_t
mxd_rxwin_settle(struct mxd_rxwin *w)
{
	for (;;) {
		struct mxd_rxslot *sl = SLOT(w, w->base);

		if (!sl->active || sl->seq != w->base || !sl->complete ||
				!sl->matched)
			break;
		w->base++;
		sl->active = 0;
	}
	return w->base - 1;
}

uint64_t
mxd_rxwin_sack(const struct mxd_rxwin *w)
{
	uint32_t n = w->top - w->base;
	uint64_t bits = 0;

	if (n > 64)
		n = 64;
	for (uint32_t i = 0; i < n; i++) {
		const struct mxd_rxslot *sl = SLOT(w, w->base + i);

		if (sl->active && sl->seq == w->base + i && sl->complete)
			bits |= 1ull << i;
	}
	return bits;
}

unsigned
mxd_rxwin_partial(const struct mxd_rxwin *w, uint32_t *seq, uint64_t *have,
		unsigned max)
{
	uint32_t n = w->top - w->base;
	unsigned k = 0;

	if (n > 64)
		n = 64;
	for (uint32_t i = 0; i < n && k < max; i++) {
		const struct mxd_rxslot *sl = SLOT(w, w->base + i);

		if (sl->active && sl->seq == w->base + i && !sl->complete &&
				sl->frag_count > 1) {
			seq[k] = sl->seq;
			have[k++] = sl->have;
		}
	}
	return k;
}
