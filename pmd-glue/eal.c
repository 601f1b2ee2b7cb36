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
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "glue.h"
#include "log.h"

#define MAX_ARGS 64

static char glue_err[512];
static int eal_state;	/* 0: not yet, 1: ours, 2: the application's */

static char eal_text[16384];
static int eal_failed;

const char *
mxd_glue_eal_text(void)
{
	return eal_failed ? eal_text : "";
}

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
has_word(char **argv, int argc, const char *prefix)
{
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], prefix, strlen(prefix)))
			return 1;
	return 0;
}

/*
 * The EAL's own chatter (lcores detected, IOVA mode, telemetry, memif's
 * complaint about --no-shconf) is not for an MX user: unless MX_VERBOSE is
 * set or MX_DPDK_ARGS sets log levels itself, only the EAL's warnings and
 * errors are shown.  The memif PMD's errors are ours to explain (link
 * down, socket in use), so it is quieted further, and so is telemetry's
 * warning that it made no legacy socket.
 */
static const char *const quiet_args[] = {
	"--log-level=lib.eal:warning",
	"--log-level=lib.telemetry:critical",	/* "no legacy callbacks" */
	"--log-level=pmd.net.memif:critical",
};

/*
 * While rte_eal_init() runs, stdout and stderr go to a memory file: on a
 * bad argument the EAL prints getopt's complaint and then its whole usage
 * (80 lines on stdout).  Afterwards the text is given back: whole with
 * MX_VERBOSE or on success, else only its first line, inside our own
 * message.
 */
struct capture {
	int mem, out, err;
};

static void
capture_start(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	c->mem = memfd_create("mx-eal-output", MFD_CLOEXEC);
	c->out = c->mem < 0 ? -1 : dup(1);
	c->err = c->mem < 0 ? -1 : dup(2);
	if (c->out < 0 || c->err < 0)
		return;
	dup2(c->mem, 1);
	dup2(c->mem, 2);
}

/* Restores the streams and returns what was captured (NUL-terminated,
 * at most len - 1 bytes). */
static void
capture_end(struct capture *c, char *buf, size_t len)
{
	ssize_t n = 0;

	buf[0] = '\0';
	fflush(stdout);
	fflush(stderr);
	if (c->out >= 0 && c->err >= 0) {
		dup2(c->out, 1);
		dup2(c->err, 2);
		n = pread(c->mem, buf, len - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
	}
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	if (c->mem >= 0)
		close(c->mem);
}

/* The first line of the EAL's complaint, without the "mx: " getopt puts
 * before it. */
static void
first_complaint(const char *text, char *out, size_t len)
{
	const char *l = text;

	while (*l == '\n')
		l++;
	if (!strncmp(l, "mx: ", 4))
		l += 4;
	snprintf(out, len, "%.*s", (int)strcspn(l, "\n"), l);
}

static int
run_eal_init(char *buf, const struct mxd_glue_conf *conf)
{
	char *argv[MAX_ARGS + 8];
	char lcore[16];
	cpu_set_t saved;
	struct capture cap;
	int argc, ret, keep_affinity = conf->keep_affinity, err;

	argv[0] = (char *)(uintptr_t)"mx";
	argc = split_args(buf, argv + 1, MAX_ARGS);
	if (argc < 0) {
		mxd_glue_set_error("MX_DPDK_ARGS: more than %d words; give "
				"the EAL fewer options", MAX_ARGS);
		return -E2BIG;
	}
	argc++;
	if (!conf->verbose && !has_word(argv, argc, "--log-level"))
		for (unsigned i = 0; i < RTE_DIM(quiet_args); i++)
			argv[argc++] = (char *)(uintptr_t)quiet_args[i];
	pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	if (!has_core_option(argv, argc)) {
		snprintf(lcore, sizeof(lcore), "%d", sched_getcpu() < 0 ? 0 :
				sched_getcpu());
		argv[argc++] = (char *)(uintptr_t)"-l";
		argv[argc++] = lcore;
		keep_affinity = 1;
	}
	argv[argc] = NULL;
	capture_start(&cap);
	ret = rte_eal_init(argc, argv);
	err = rte_errno;
	capture_end(&cap, eal_text, sizeof(eal_text));
	if (ret < 0 && err == EALREADY)
		return -EALREADY;
	if (ret >= 0)
		fputs(eal_text, stderr);
	if (ret < 0)
		return -err;
	/* Our messages (and the EAL's) on stderr, not stdout and syslog. */
	rte_openlog_stream(stderr);
	if (keep_affinity)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	return 0;
}

/* ---- why the EAL failed, in words a user can act on ---------------- */

/* Hugepages reserved, of every size. */
static unsigned long
hugepages_reserved(void)
{
	unsigned long total = 0;
	glob_t g;

	if (glob("/sys/kernel/mm/hugepages/hugepages-*/nr_hugepages", 0,
				NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		unsigned long n = 0;

		if (f != NULL) {
			if (fscanf(f, "%lu", &n) == 1)
				total += n;
			fclose(f);
		}
	}
	globfree(&g);
	return total;
}

static int
args_have(const char *args, const char *opt)
{
	return args != NULL && strstr(args, opt) != NULL;
}

static void
explain_eal_failure(const char *args, int err, int verbose)
{
	char first[200];
	const char *a = args ? args : "";
	const char *more = verbose ? "" :
		" (MX_VERBOSE=1 shows DPDK's own messages)";

	first_complaint(eal_text, first, sizeof(first));
	if (!args_have(a, "--no-huge") && !args_have(a, "--in-memory") &&
			hugepages_reserved() == 0 &&
			(err == EACCES || err == ENOMEM || err == EFAULT)) {
		mxd_glue_set_error("the EAL found no hugepages: none are "
				"reserved.  Reserve some (as root: echo 512 > "
				"/sys/kernel/mm/hugepages/hugepages-2048kB/"
				"nr_hugepages) or add --no-huge -m 256 to "
				"MX_DPDK_ARGS");
	} else if (!args_have(a, "--no-huge") && (err == EACCES ||
				err == EPERM) && geteuid() != 0) {
		mxd_glue_set_error("the EAL may not use hugepages as user %u "
				"(%s): run as root, or add --no-huge -m 256 to "
				"MX_DPDK_ARGS%s", (unsigned)geteuid(),
				first, more);
	} else if (err == EINVAL) {
		mxd_glue_set_error("MX_DPDK_ARGS=\"%s\": the EAL refused "
				"these arguments: %s%s", a, first[0] ? first :
				"(no reason given)", verbose ? "" :
				" (MX_VERBOSE=1 shows DPDK's usage)");
	} else if (err == EAGAIN || strstr(eal_text, "another primary")) {
		mxd_glue_set_error("another DPDK process of this host uses "
				"the same runtime directory (file prefix): give "
				"each process its own --file-prefix=NAME, or "
				"--in-memory, in MX_DPDK_ARGS%s", more);
	} else {
		mxd_glue_set_error("the EAL failed (%s) with MX_DPDK_ARGS="
				"\"%s\": %s%s", rte_strerror(err), a,
				first[0] ? first : "", more);
	}
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
	ret = run_eal_init(buf, conf);
	if (ret == -EALREADY) {
		free(buf);
		eal_state = 2;
		*reused = 1;
		return 0;
	}
	if (ret < 0) {
		free(buf);
		if (ret != -E2BIG)
			explain_eal_failure(conf->eal_args, -ret, conf->verbose);
		eal_failed = 1;
		return ret;
	}
	eal_state = 1;
	eal_argbuf = buf;
	*reused = 0;
	return 0;
}
