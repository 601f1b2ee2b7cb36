/* SPDX-License-Identifier: BSD-3-Clause */
/* Match tables: hashed, order-keeping groups of entries (mtab.h). */
#include <stdlib.h>

#include "mtab.h"

int
mxd_mtab_init(struct mxd_mtab *t, unsigned order)
{
	uint32_t n = 1u << order;

	t->slot = calloc(n, sizeof(*t->slot));
	if (t->slot == NULL)
		return -1;
	t->mask = n - 1;
	t->keys = t->entries = 0;
	return 0;
}

void
mxd_mtab_fini(struct mxd_mtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->keys = t->entries = 0;
}

void
mxd_mtab_clear(struct mxd_mtab *t)
{
	for (uint32_t i = 0; i <= t->mask; i++)
		t->slot[i].head = NULL;
	t->keys = t->entries = 0;
}

/* Twice the slots; every head moves with its group behind it. */
static void
grow(struct mxd_mtab *t)
{
	struct mxd_mtab nt = { .mask = t->mask * 2 + 1 };

	nt.slot = calloc((size_t)nt.mask + 1, sizeof(*nt.slot));
	if (nt.slot == NULL)
		return;		/* fuller, still right */
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->slot[i].head != NULL)
			*mxd_mtab_probe(&nt, t->slot[i].key) = t->slot[i];
	free(t->slot);
	t->slot = nt.slot;
	t->mask = nt.mask;
}

int
mxd_mtab_add(struct mxd_mtab *t, struct mxd_mnode *n, uint64_t key)
{
	struct mxd_mslot *s = mxd_mtab_probe(t, key);

	n->key = key;
	if (s->head != NULL) {		/* behind the key's newest */
		mxd_list_add_tail(&s->head->group, &n->group);
		t->entries++;
		return 0;
	}
	if (t->keys == t->mask)		/* one slot left: the searches' end */
		return -1;
	s->key = key;
	s->head = n;
	mxd_list_init(&n->group);
	t->entries++;
	if (++t->keys > (t->mask + 1) / 2)
		grow(t);
	return 0;
}

/*
 * Empties slot i: the slots after it, up to an empty one, move back into
 * the hole when their home is not between the hole and them (linear
 * probing's deletion: every key stays reachable from its home).
 */
static void
slot_free(struct mxd_mtab *t, uint32_t i)
{
	uint32_t j = i;

	for (;;) {
		j = (j + 1) & t->mask;
		if (t->slot[j].head == NULL)
			break;
		uint32_t home = mxd_mtab_home(t, t->slot[j].key);

		/* Stays if its home lies cyclically in (i, j]. */
		if (((j - home) & t->mask) < ((j - i) & t->mask))
			continue;
		t->slot[i] = t->slot[j];
		i = j;
	}
	t->slot[i].head = NULL;
}

void
mxd_mtab_del(struct mxd_mtab *t, struct mxd_mnode *n)
{
	struct mxd_mslot *s = mxd_mtab_probe(t, n->key);

	t->entries--;
	if (s->head == n) {
		if (mxd_list_empty(&n->group)) {
			t->keys--;
			slot_free(t, (uint32_t)(s - t->slot));
		} else {	/* the key's next oldest takes its place */
			s->head = mxd_container_of(n->group.next,
					struct mxd_mnode, group);
		}
	}
	mxd_list_del(&n->group);
}
