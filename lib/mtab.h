/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Match tables (a leaf): a hash table of intrusive entries that keeps, for
 * every key, its entries in the order they were added.
 *
 * The table is an array of slots (open addressing, linear probing), one
 * per key in use: the key and its oldest entry (the head).  The head's
 * 'group' ring holds the key's other entries, oldest first:
 *
 *   slot[i]   = { key 7,  head } -> ring: 7 7 7 ... (oldest first)
 *   slot[i+1] = { key 93, head } -> ring: 93
 *   slot[i+2] = { empty }           (a search for a key stops here)
 *
 * The keys sit in the slots, so a search reads a cache line or two of the
 * array and touches no entry but the one it finds: a table of 10,000
 * receives costs a message little more than an empty one.  However many
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

#include "list.h"

struct mxd_mnode {
	struct mxd_list group;		/* the ring of its key's entries */
	uint64_t key;
};

struct mxd_mslot {
	uint64_t key;
	struct mxd_mnode *head;		/* NULL: an empty slot */
};

struct mxd_mtab {
	struct mxd_mslot *slot;		/* NULL: not set up */
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

static inline uint32_t
mxd_mtab_home(const struct mxd_mtab *t, uint64_t key)
{
	/* Folds the high half onto the low, multiplies by an odd constant
	 * (2^64 / golden ratio: each bit moves every bit above it), folds
	 * again: every bit of the key reaches the low bits (the slot). */
	key ^= key >> 32;
	key *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(key ^ key >> 32) & t->mask;
}

/* The slot of 'key', or the empty slot where it would go. */
static inline struct mxd_mslot *
mxd_mtab_probe(const struct mxd_mtab *t, uint64_t key)
{
	uint32_t i = mxd_mtab_home(t, key);

	while (t->slot[i].head != NULL && t->slot[i].key != key)
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

/* The oldest entry with 'key', or NULL. */
static inline struct mxd_mnode *
mxd_mtab_first(const struct mxd_mtab *t, uint64_t key)
{
	if (t->keys == 0)	/* nothing to read */
		return NULL;
	return mxd_mtab_probe(t, key)->head;
}

#endif /* MXD_MTAB_H */
