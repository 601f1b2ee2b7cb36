/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Match tables (a leaf): a hash table of intrusive entries that keeps, for
 * every key, its entries in the order they were added.
 *
 * The table is an array of slots (open addressing, linear probing), one
 * per key in use: the key and its oldest entry (the head).  The head's
 * 'group' ring holds the key's other entries, oldest first.  Beside the
 * slots, a byte per slot, its tag: 0 for an empty slot, else 8 bits of
 * the key's hash (never 0):
 *
 *   tag[i]   = 0x3c   slot[i]   = { key 7,  head } -> ring: 7 7 7 ...
 *   tag[i+1] = 0xa1   slot[i+1] = { key 93, head } -> ring: 93
 *   tag[i+2] = 0      (empty: a search for a key stops here)
 *
 * A search reads the tags from the key's home slot on, and a slot only
 * where the tag is the key's: the tags of 10,000 keys take 32 KiB, which
 * stay in the cache where the slots (16 bytes each) would not, and a
 * search for a key that is not there seldom reads a slot at all.  No
 * entry is touched but the one found.  However many
 * entries share a key, a search for another key does not see them.  A
 * key's last entry leaving empties its slot (the keys after it shift back,
 * so no search ever needs a tombstone); another entry leaving is O(1)
 * after the search for its key; the next entry of a key takes a departed
 * head's place.  The table doubles when more than half its slots are in
 * use (groups move whole, so each key keeps its order): a malloc per
 * doubling, none per entry.  If that malloc fails the table stays as it
 * is, fuller but right (a full table still takes a key's further entries;
 * it refuses only a new key: mxd_mtab_add returns -1).
 */
#ifndef MXD_MTAB_H
#define MXD_MTAB_H

#include <stdint.h>

#include "util/list.h"

struct mxd_mnode {
	struct mxd_list group;		/* the ring of its key's entries */
	uint64_t key;
};

struct mxd_mslot {
	uint64_t key;
	struct mxd_mnode *head;		/* the key's oldest entry */
};

struct mxd_mtab {
	struct mxd_mslot *slot;		/* NULL: not set up */
	uint8_t *tag;			/* [mask + 1], after the slots */
	uint32_t mask;			/* slots - 1 */
	uint32_t keys;			/* slots in use */
	uint32_t entries;
};

/* Sets t up empty with 2^order slots; 0, or -1 when out of memory. */
int mxd_mtab_init(struct mxd_mtab *t, unsigned order);
void mxd_mtab_fini(struct mxd_mtab *t);
/* Forgets every entry (their nodes are left as they are). */
void mxd_mtab_clear(struct mxd_mtab *t);
/* Adds n with 'key' after every entry of that key; 0, or -1 if the key
 * is new and the table full (it could not grow). */
int mxd_mtab_add(struct mxd_mtab *t, struct mxd_mnode *n, uint64_t key);
/* Removes n, which is in t. */
void mxd_mtab_del(struct mxd_mtab *t, struct mxd_mnode *n);

static inline uint64_t
mxd_mtab_hash(uint64_t key)
{
	/* Folds the high half onto the low, multiplies by an odd constant
	 * (2^64 / golden ratio: each bit moves every bit above it), folds
	 * again: every bit of the key reaches the low bits (the home slot)
	 * and the high byte (the tag). */
	key ^= key >> 32;
	key *= 0x9e3779b97f4a7c15ull;
	return key ^ key >> 32;
}

static inline uint8_t
mxd_mtab_tag(uint64_t hash)
{
	uint8_t tag = (uint8_t)(hash >> 56);

	return tag != 0 ? tag : 1;
}

/* The index of the slot of 'key', or of the empty slot where it would
 * go. */
static inline uint32_t
mxd_mtab_probe(const struct mxd_mtab *t, uint64_t key)
{
	uint64_t h = mxd_mtab_hash(key);
	uint32_t i = (uint32_t)h & t->mask;
	uint8_t tag = mxd_mtab_tag(h);

	for (; t->tag[i] != 0; i = (i + 1) & t->mask)
		if (t->tag[i] == tag && t->slot[i].key == key)
			break;
	return i;
}

/* The oldest entry with 'key', or NULL. */
static inline struct mxd_mnode *
mxd_mtab_first(const struct mxd_mtab *t, uint64_t key)
{
	uint32_t i;

	if (t->keys == 0)	/* nothing to read */
		return NULL;
	i = mxd_mtab_probe(t, key);
	return t->tag[i] != 0 ? t->slot[i].head : NULL;
}

#endif /* MXD_MTAB_H */
