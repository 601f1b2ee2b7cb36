/* SPDX-License-Identifier: BSD-3-Clause */
/* Match tables: hashed, order-keeping groups of entries (mtab.h). */
#include <stdlib.h>
#include <string.h>

#include "util/mtab.h"

/* 2^order slots and their tags in one block, all empty. */
static int
slots_alloc(struct mxd_mtab *t, unsigned order)
{
	uint32_t n = 1u << order;

	t->slot = calloc(n, sizeof(*t->slot) + 1);
	if (t->slot == NULL)
		return -1;
	t->tag = (uint8_t *)(t->slot + n);
	t->mask = n - 1;
	return 0;
}

int
mxd_mtab_init(struct mxd_mtab *t, unsigned order)
{
	t->keys = t->entries = 0;
	return slots_alloc(t, order);
}

void
mxd_mtab_fini(struct mxd_mtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->tag = NULL;
	t->keys = t->entries = 0;
}

void
mxd_mtab_clear(struct mxd_mtab *t)
{
	memset(t->tag, 0, (size_t)t->mask + 1);
	t->keys = t->entries = 0;
}

/* Puts 'key' and its head in the empty slot i. */
static void
slot_fill(struct mxd_mtab *t, uint32_t i, uint64_t key, struct mxd_mnode *h)
{
	t->tag[i] = mxd_mtab_tag(mxd_mtab_hash(key));
	t->slot[i].key = key;
	t->slot[i].head = h;
}

/* Twice the slots; every head moves with its group behind it. */
static void
grow(struct mxd_mtab *t)
{
	struct mxd_mtab nt;
	unsigned order = (unsigned)__builtin_ctz(t->mask + 1) + 1;

	if (slots_alloc(&nt, order) < 0)
		return;		/* fuller, still right */
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->tag[i] != 0)
			slot_fill(&nt, mxd_mtab_probe(&nt, t->slot[i].key),
					t->slot[i].key, t->slot[i].head);
	free(t->slot);
	t->slot = nt.slot;
	t->tag = nt.tag;
	t->mask = nt.mask;
}

int
mxd_mtab_add(struct mxd_mtab *t, struct mxd_mnode *n, uint64_t key)
{
	uint32_t i = mxd_mtab_probe(t, key);

	n->key = key;
	if (t->tag[i] != 0) {		/* behind the key's newest */
		mxd_list_add_tail(&t->slot[i].head->group, &n->group);
		t->entries++;
		return 0;
	}
	if (t->keys == t->mask)		/* one slot left: the searches' end */
		return -1;
	slot_fill(t, i, key, n);
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
		if (t->tag[j] == 0)
			break;
		uint32_t home = (uint32_t)mxd_mtab_hash(t->slot[j].key) &
			t->mask;

		/* Stays if its home lies cyclically in (i, j]. */
		if (((j - home) & t->mask) < ((j - i) & t->mask))
			continue;
		t->tag[i] = t->tag[j];
		t->slot[i] = t->slot[j];
		i = j;
	}
	t->tag[i] = 0;
}

void
mxd_mtab_del(struct mxd_mtab *t, struct mxd_mnode *n)
{
	uint32_t i = mxd_mtab_probe(t, n->key);

	t->entries--;
	if (t->slot[i].head == n) {
		if (mxd_list_empty(&n->group)) {
			t->keys--;
			slot_free(t, i);
		} else {	/* the key's next oldest takes its place */
			t->slot[i].head = mxd_container_of(n->group.next,
					struct mxd_mnode, group);
		}
	}
	mxd_list_del(&n->group);
}
