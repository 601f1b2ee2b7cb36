/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_counters: the counters of the mx-dpdk boards in use on this host, with
 * the options of Open-MX's omx_counters (mx_counters(1)).
 *
 *   mx_counters [-b board] [-s] [-c] [-q | -v] [-p] [name]
 *
 * MX's counters were the NIC's; ours are the library's, kept in each
 * application process and published in a shared-memory segment per board
 * (segments.h), so this reads them from any process.  Shown: the boards of
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

struct opts {
	int all, clear, prune, shared, have_board;
	unsigned board;
	const char *name;
	unsigned shown;
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
	return 0;
}
