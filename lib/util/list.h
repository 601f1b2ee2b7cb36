/* SPDX-License-Identifier: BSD-3-Clause */
/* Intrusive circular doubly linked list: O(1) insert and unlink. */
#ifndef MXD_LIST_H
#define MXD_LIST_H

#include <stddef.h>

struct mxd_list {
	struct mxd_list *next, *prev;
};

#define mxd_container_of(p, type, member) \
	((type *)(void *)((char *)(p) - offsetof(type, member)))

static inline void
mxd_list_init(struct mxd_list *h)
{
	h->next = h->prev = h;
}

static inline int
mxd_list_empty(const struct mxd_list *h)
{
	return h->next == h;
}

static inline void
mxd_list_add_tail(struct mxd_list *h, struct mxd_list *e)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static inline void
mxd_list_del(struct mxd_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = e->prev = e;
}

#define mxd_list_foreach(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
			(pos) = (tmp), (tmp) = (pos)->next)

#endif /* MXD_LIST_H */
