/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL bootstrap.  The EAL can be initialised once per process and never
 * again after rte_eal_cleanup(), so the library initialises it on the first
 * mx_init() and keeps it for the life of the process.  An application that
 * is itself a DPDK program initialises the EAL first; rte_eal_init() then
 * fails with EALREADY and we use what it set up.
 *
 * (Before rte_eal_init() the lcore count is 0: that is how we tell.)
 *
 * A library must not move its caller to another CPU: unless the argument
 * string chooses cores, the EAL is given a single lcore and the calling
 * thread's affinity is restored afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "glue.h"

#define MAX_ARGS 64

static char glue_err[256];
static int eal_state;	/* 0: not yet, 1: ours, 2: the application's */

const char *
mxd_glue_error(void)
{
	return glue_err;
}

void
mxd_glue_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(glue_err, sizeof(glue_err), fmt, ap);
	va_end(ap);
}

/* Splits 'buf' in place on blanks; returns argc. */
static int
split_args(char *buf, char **argv, int max)
{
	int argc = 0;
	char *save = NULL;

	for (char *t = strtok_r(buf, " \t\n", &save); t != NULL;
			t = strtok_r(NULL, " \t\n", &save)) {
		if (argc == max)
			return -1;
		argv[argc++] = t;
	}
	return argc;
}

static int
has_core_option(char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "-l", 2) || !strcmp(argv[i], "-c") ||
				!strncmp(argv[i], "--lcores", 8))
			return 1;
	return 0;
}

static int
run_eal_init(char *buf, int keep_affinity)
{
	char *argv[MAX_ARGS + 4];
	char lcore[16];
	cpu_set_t saved;
	int argc, ret;

	argv[0] = (char *)(uintptr_t)"mx";
	argc = split_args(buf, argv + 1, MAX_ARGS);
	if (argc < 0) {
		mxd_glue_set_error("MX_DPDK_ARGS: more than %d words", MAX_ARGS);
		return -E2BIG;
	}
	argc++;
	pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	if (!has_core_option(argv, argc)) {
		snprintf(lcore, sizeof(lcore), "%d", sched_getcpu() < 0 ? 0 :
				sched_getcpu());
		argv[argc++] = (char *)(uintptr_t)"-l";
		argv[argc++] = lcore;
		keep_affinity = 1;
	}
	argv[argc] = NULL;
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return -rte_errno;
	if (keep_affinity)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return 0;
}

/* The EAL keeps pointers into its argv: the strings live as long as it. */
static char *volatile eal_argbuf;	/* volatile: kept, never read */

int
mxd_glue_eal_init(const struct mxd_glue_conf *conf, int *reused)
{
	char *buf;
	int ret;

	if (eal_state == 0 && rte_lcore_count() > 0)
		eal_state = 2;	/* the application initialised it */
	if (eal_state != 0) {
		*reused = eal_state == 2;
		return 0;
	}
	buf = strdup(conf->eal_args != NULL ? conf->eal_args : "");
	if (buf == NULL)
		return -ENOMEM;
	ret = run_eal_init(buf, conf->keep_affinity);
	if (ret == -EALREADY) {
		free(buf);
		eal_state = 2;
		*reused = 1;
		return 0;
	}
	if (ret < 0) {
		free(buf);
		mxd_glue_set_error("DPDK EAL initialisation failed (%s) with "
				"MX_DPDK_ARGS=\"%s\"", rte_strerror(-ret),
				conf->eal_args ? conf->eal_args : "");
		return ret;
	}
	eal_state = 1;
	eal_argbuf = buf;
	*reused = 0;
	return 0;
}
