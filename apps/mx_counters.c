/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_counters: the counters of the mx-dpdk boards in use on this host, with
 * the options of Open-MX's omx_counters (mx_counters(1)).
 *
 *   mx_counters [-b board] [-s] [-c] [-q | -v] [-p] [name]
 *
 * MX's counters were the NIC's; ours are the library's, kept in each
 * application process and published in a shared-memory segment per board
 * (segments.h), so this reads them from any process.  A board shared by
 * the processes of a host (MX_BOARD_SHARED=1) has a segment in each: each
 * process's counters are shown, then the board's sum over them.  Shown: the boards of
 * every live process, or those of board number -b, or those whose name
 * contains 'name'; the non-zero counters (-q, the default) or all (-v);
 * -s only the counters of communication within the process (the loopback
 * ring between endpoints of one board, as omx_counters -s showed Open-MX's
 * shared-memory counters).  -c clears them after showing them.  Beyond
 * omx_counters: -p removes the segments of processes that no longer exist
 * (one that died without mx_finalize leaves its segments behind); -a and
 * -r are the older spellings of -v and -c.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <myriexpress.h>
#include <mx_extensions.h>

#include "segments.h"

/* A board shown for several processes (a shared board: its processes
 * count each their own traffic): the sum of their counters, by label. */
#define GROUPS		16
#define GROUP_COUNTERS	256

struct group {
	char name[MX_MAX_HOSTNAME_LEN];
	uint64_t nic_id;
	unsigned procs;
	uint32_t count;
	char label[GROUP_COUNTERS][MX_DPDK_STATS_LABEL + 1];
	uint64_t sum[GROUP_COUNTERS];
};

struct opts {
	int all, clear, prune, shared, have_board;
	unsigned board;
	const char *name;
	unsigned shown;
	struct group group[GROUPS];
	unsigned ngroups;
};

static void
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: mx_counters [-b board] [-s] [-c] [-q | -v] [-p] "
		"[name]\n"
		"The counters of the mx-dpdk boards in use on this host (every "
		"process).\n"
		"  -b board  only boards of this number\n"
		"  name      only boards whose name contains name\n"
		"  -s        only the counters of communication within a "
		"process (loopback)\n"
		"  -c        clear the counters after showing them (-r: the "
		"same)\n"
		"  -q        only the counters that are not zero (default)\n"
		"  -v        every counter, zero or not (-a: the same)\n"
		"  -p        remove the segments of processes that are gone\n"
		"  -h        this text\n");
	exit(rc);
}

static int
wanted_counter(const struct opts *o, const char *label, uint64_t v)
{
	if (o->shared && strstr(label, "loopback") == NULL)
		return 0;
	return o->all || v != 0;
}

/* Counter c's label, NUL-terminated whatever the segment holds. */
static void
label_of(const struct seg *s, uint32_t c, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", MX_DPDK_STATS_LABEL,
			s->label + (size_t)c * MX_DPDK_STATS_LABEL);
}

/* Adds s's counters to its board's sum. */
static void
group_add(struct opts *o, const struct seg *s)
{
	struct group *g = NULL;

	for (unsigned i = 0; i < o->ngroups && g == NULL; i++)
		if (!strcmp(o->group[i].name, s->h->board_name) &&
				o->group[i].nic_id == s->h->nic_id)
			g = &o->group[i];
	if (g == NULL) {
		if (o->ngroups == GROUPS)
			return;
		g = &o->group[o->ngroups++];
		memset(g, 0, sizeof(*g));
		snprintf(g->name, sizeof(g->name), "%s", s->h->board_name);
		g->nic_id = s->h->nic_id;
	}
	g->procs++;
	for (uint32_t c = 0; c < s->h->count && c < GROUP_COUNTERS; c++) {
		char label[MX_DPDK_STATS_LABEL + 1];
		uint32_t k;

		snprintf(label, sizeof(label), "%.*s", MX_DPDK_STATS_LABEL,
				s->label + (size_t)c * MX_DPDK_STATS_LABEL);
		for (k = 0; k < g->count && strcmp(g->label[k], label); k++)
			;
		if (k == g->count) {
			if (g->count == GROUP_COUNTERS)
				continue;
			memcpy(g->label[g->count++], label, sizeof(label));
		}
		/* A gauge sums too: the buffers the processes hold. */
		g->sum[k] += s->value[c];
	}
}

/* The sums of the boards shown for several processes. */
static void
groups_show(const struct opts *o)
{
	for (unsigned i = 0; i < o->ngroups; i++) {
		const struct group *g = &o->group[i];

		if (g->procs < 2)
			continue;
		printf("%s (NIC id %012llx): the sum over its %u processes\n",
				g->name, (unsigned long long)g->nic_id,
				g->procs);
		for (uint32_t c = 0; c < g->count; c++)
			if (wanted_counter(o, g->label[c], g->sum[c]))
				printf("  %-40s %llu\n", g->label[c],
						(unsigned long long)g->sum[c]);
	}
}

static void
show(struct seg *s, const struct opts *o)
{
	char label[MX_DPDK_STATS_LABEL + 1], comm[32];

	seg_command(s->h->pid, comm, sizeof(comm));
	printf("%s (NIC id %012llx, board %u of process %u, %s)\n",
			s->h->board_name, (unsigned long long)s->h->nic_id,
			s->board, s->h->pid, comm);
	for (uint32_t c = 0; c < s->h->count; c++) {
		label_of(s, c, label, sizeof(label));
		if (wanted_counter(o, label, s->value[c]))
			printf("  %-40s %llu\n", label,
					(unsigned long long)s->value[c]);
	}
	if (!o->clear)
		return;
	/* The owner increments as we write: a count may survive. */
	for (uint32_t c = 0; c < s->h->count; c++) {
		label_of(s, c, label, sizeof(label));
		if (!o->shared || strstr(label, "loopback") != NULL)
			s->value[c] = 0;
	}
	printf("  (cleared)\n");
}

static int
one(struct seg *s, void *arg)
{
	struct opts *o = arg;
	char path[300];

	if (!s->alive) {
		if (o->prune) {
			snprintf(path, sizeof(path), "/%s", s->file);
			printf("removing %s: process %u is gone\n", s->file,
					s->h->pid);
			shm_unlink(path);
		}
		return 0;
	}
	if ((o->have_board && s->board != o->board) ||
			(o->name != NULL && !strstr(s->h->board_name, o->name)))
		return 0;
	group_add(o, s);
	show(s, o);
	o->shown++;
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	char *end;
	int c;

	while ((c = getopt(argc, argv, "b:scrqvaph")) != -1) {
		switch (c) {
		case 'b':
			o.board = (unsigned)strtoul(optarg, &end, 0);
			if (*optarg == '\0' || *end != '\0')
				usage(2);
			o.have_board = 1;
			break;
		case 's': o.shared = 1; break;
		case 'c': case 'r': o.clear = 1; break;
		case 'q': o.all = 0; break;
		case 'v': case 'a': o.all = 1; break;
		case 'p': o.prune = 1; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind < argc)
		o.name = argv[optind++];
	if (optind != argc)
		usage(2);
	if (seg_each(o.clear, one, &o) < 0) {
		perror("mx_counters: /dev/shm");
		return 1;
	}
	if (!o.shown)
		printf("mx_counters: no mx-dpdk board in use on this host%s\n",
				o.have_board || o.name ? " matches" : "");
	else if (!o.clear)
		groups_show(&o);
	return 0;
}
