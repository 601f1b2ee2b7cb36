/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the Portals tests share: a fixture of processes over the loopback
 * transport, and short ways to build match entries and descriptors and
 * to check the events they log.
 */
#ifndef PTLTEST_H
#define PTLTEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <portals3.h>

#include "loopback.h"

#define NPROC	4
#define PT	5		/* the portal most tests use */

/* A process of the fixture: interface i of the loopback. */
struct proc {
	ptl_handle_ni_t ni;
	ptl_process_id_t id;
	ptl_uid_t uid;
	ptl_handle_eq_t eq;	/* 64 events */
};

extern struct proc P[NPROC];
/* Every process (interfaces 0, 1 on one node, 2, 3 on another). */
extern const ptl_process_id_t ANY_ID;

/* cmocka setup and teardown: PtlInit, NPROC interfaces, an event queue
 * each (setup_n: only n of them); PtlFini. */
int setup(void **state);
int setup_sync(void **state);
int teardown(void **state);
void procs_open(int n);
/* Opens (again) interface i as P[i], with an event queue of 64. */
void proc_open(int i);
void proc_open_limits(int i, ptl_ni_limits_t *want);

/* A descriptor of len bytes at buf. */
ptl_md_t md_of(void *buf, ptl_size_t len, int threshold, unsigned options,
		ptl_handle_eq_t eq);
/* A match entry on P[p]'s portal pt, at the tail, matching bits
 * exactly from anyone, with a descriptor: returns the descriptor. */
ptl_handle_md_t target_md(int p, ptl_pt_index_t pt, ptl_match_bits_t bits,
		void *buf, ptl_size_t len, int threshold, unsigned options);
/* A free-floating descriptor of P[p] logging into its queue. */
ptl_handle_md_t source_md(int p, void *buf, ptl_size_t len, int threshold);

/* The next event of a queue (pumping first); asserts there is one and
 * of this kind, returns it. */
ptl_event_t ev_next(ptl_handle_eq_t eq, ptl_event_kind_t kind);
/* Asserts the queue holds no event (after pumping). */
void ev_none(ptl_handle_eq_t eq);
/* Takes every event of a queue (after pumping): their kinds into
 * kinds[max], returns how many. */
int ev_kinds(ptl_handle_eq_t eq, ptl_event_kind_t *kinds, int max);
/* A status register. */
ptl_sr_value_t sr(int p, ptl_sr_index_t which);

#endif /* PTLTEST_H */
