/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mx_board: the board service of a shared board (mx_board(1)), as
 * Open-MX's omx_init starts its driver.
 *
 *   mx_board start       starts it in the background, for the host name
 *                        and the ports the environment gives (MX_HOSTNAME,
 *                        MX_DPDK_ARGS, MX_BOARDS, MX_BOARD_SLOTS); returns
 *                        once it serves, or says why it cannot
 *   mx_board stop [-f]   stops it (-f: even while processes use it)
 *   mx_board status      what it serves: boards, ports, slots, endpoints
 *   mx_board run         runs it in the foreground (messages on stderr)
 *
 * The first mx_init with MX_BOARD_SHARED=1 runs "mx_board start" itself
 * when no service runs for its host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/config.h"
#include "board/host.h"
#include "board/service.h"
#include "service.h"
#include "../apps/segments.h"	/* seg_command */

static void
usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: mx_board start | stop [-f] | status | run\n"
		"The board service of the shared boards of this host "
		"(MX_BOARD_SHARED=1).\n"
		"  start     start it in the background, for the host name "
		"(MX_HOSTNAME),\n"
		"            the ports (MX_DPDK_ARGS, MX_BOARDS) and the slots "
		"(MX_BOARD_SLOTS)\n"
		"            of this environment; returns once it serves\n"
		"  stop      stop it (refused while processes use it)\n"
		"  status    its boards, ports, slots and which process holds "
		"each endpoint\n"
		"  run       run it in the foreground, messages on stderr\n"
		"  -f        with stop: even while processes use it (their "
		"requests fail)\n"
		"  -h        this text\n");
	exit(rc);
}

static void
log_path(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/mx-board.%s.log", mxd_conf.hostname);
}

static int
svc_connect(void)
{
	struct sockaddr_un sa;
	socklen_t len = mxd_svc_addr(mxd_conf.hostname, &sa);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (s >= 0 && connect(s, (struct sockaddr *)&sa, len) == 0)
		return s;
	if (s >= 0)
		close(s);
	return -1;
}

static int
reply(int s, struct mxd_svc_msg *m, int *fd, int ms)
{
	struct pollfd p = { s, POLLIN, 0 };

	*fd = -1;
	if (poll(&p, 1, ms) <= 0)
		return -1;
	return mxd_svc_recv(s, m, fd, 0);
}

/* ---- start -------------------------------------------------------------- */

/* The daemon: its own session, no descriptor of its starter's but the
 * pipe it answers on (3), its messages into the log once it serves. */
static void
daemon_run(int notify)
{
	char log[128];
	int null = open("/dev/null", O_RDWR), rc;

	setsid();
	if (fork() > 0)
		_exit(0);
	if (null >= 0)
		dup2(null, 0);
	dup2(notify, 3);
	close_range(4, ~0u, 0);
	log_path(log, sizeof(log));
	/* Its start's messages go to the starter's stderr; once it serves,
	 * to the log. */
	rc = mxd_svc_run(3, log);
	_exit(rc);
}

static int
cmd_start(void)
{
	char buf[256], log[128];
	ssize_t n, got = 0;
	int p[2], s = svc_connect(), st;
	pid_t pid;

	log_path(log, sizeof(log));
	if (s >= 0) {
		close(s);
		printf("mx_board: the board service of host %s runs already\n",
				mxd_conf.hostname);
		return 0;
	}
	if (pipe2(p, O_CLOEXEC) != 0) {
		perror("mx_board: pipe");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("mx_board: fork");
		return 1;
	}
	if (pid == 0) {
		close(p[0]);
		daemon_run(p[1]);
	}
	close(p[1]);
	waitpid(pid, &st, 0);
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(p[0]);
	buf[got > 0 ? got : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!strncmp(buf, "ok ", 3)) {
		printf("mx_board: board service of host %s started (pid %s, "
				"messages in %s)\n", mxd_conf.hostname, buf + 3,
				log);
		return 0;
	}
	if (!strcmp(buf, "running already"))
		return 0;
	fprintf(stderr, "mx_board: the board service of host %s did not "
			"start: %s\n", mxd_conf.hostname, buf[0] ? buf :
			"it died while starting");
	return 1;
}

/* ---- stop --------------------------------------------------------------- */

static int
cmd_stop(int force)
{
	struct mxd_svc_msg m;
	int s = svc_connect(), fd;
	char c;

	if (s < 0) {
		printf("mx_board: no board service runs for host %s\n",
				mxd_conf.hostname);
		return 0;
	}
	mxd_svc_msg_init(&m, MXD_SVC_STOP);
	m.flags = force ? MXD_SVC_F_FORCE : 0;
	if (mxd_svc_send(s, &m, -1) < 0 || reply(s, &m, &fd, 5000) < 0) {
		fprintf(stderr, "mx_board: the board service of host %s does "
				"not answer\n", mxd_conf.hostname);
		return 1;
	}
	if (m.type != MXD_SVC_STOPPING) {
		fprintf(stderr, "mx_board: the board service of host %s does "
				"not stop: %s\n", mxd_conf.hostname, m.text);
		return 1;
	}
	/* Its end of the connection closes as it exits. */
	{
		struct pollfd p = { s, POLLIN, 0 };

		while (poll(&p, 1, 10000) > 0 && recv(s, &c, 1, 0) > 0)
			;
	}
	close(s);
	printf("mx_board: board service of host %s (pid %d) stopped\n",
			mxd_conf.hostname, (int)m.pid);
	return 0;
}

/* ---- status ------------------------------------------------------------- */

static void
show_ports(const struct mxd_host *h)
{
	for (unsigned p = 0; p < h->nports; p++) {
		const struct mxd_shport *sp = &h->port[p];

		if (sp->mode == MXD_SHPORT_SWITCHED) {
			printf("  port %u %s: %s, %s, switched by the service "
					"(rings of %u frames each way per slot), "
					"MTU %u\n", p, sp->name, sp->state ==
					MXD_SHPORT_UP ? "up" : "down",
					sp->driver, sp->fwd_n, sp->mtu);
			continue;
		}
		printf("  port %u %s: %s (regions %u), memif %s, queue "
				"matrix %u x %u in %u lane(s) of %u queue "
				"pairs, %u buffers of %u bytes per ring, MTU "
				"%u\n", p, sp->name, sp->state == MXD_SHPORT_UP ?
				"up" : "down", sp->gen, sp->server ? "server" :
				"client", sp->nslots, sp->nslots, sp->nlanes,
				sp->lane_q, 1u << sp->log2_ring, sp->bsize,
				sp->mtu);
	}
}

static void
show_slots(const struct mxd_host *h)
{
	static const char *const state[] = { "free", "live", "dead" };

	for (unsigned s = 0; s < h->nslots; s++) {
		const struct mxd_host_slot *hs = &h->slot[s];
		char comm[32] = "", eps[160] = "";
		int len = 0;

		if (hs->state == MXD_HOST_SLOT_FREE)
			continue;
		seg_command((uint32_t)hs->pid, comm, sizeof(comm));
		for (unsigned e = 0; e < MXD_HOST_ENDPOINTS; e++)
			if (h->ep_slot[e] == s)
				len += snprintf(eps + len, sizeof(eps) -
						(size_t)len, " %u", e);
		printf("  slot %u: %s, pid %d (%s), epoch %u%s%s\n", s,
				s == 0 ? "the service" : hs->state < 3 ?
				state[hs->state] : "?", (int)hs->pid, comm,
				hs->epoch, len ? ", endpoints" : "", eps);
	}
}

static void
show_board(unsigned b, int fd, uint64_t len)
{
	const struct mxd_host *h = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	unsigned free_slots = 0, eps = 0;

	if (h == MAP_FAILED || h->magic != MXD_HOST_MAGIC) {
		printf("board %u: (its segment cannot be read)\n", b);
		return;
	}
	for (unsigned s = 1; s < h->nslots; s++)
		free_slots += h->slot[s].state == MXD_HOST_SLOT_FREE;
	for (unsigned e = 0; e < MXD_HOST_ENDPOINTS; e++)
		eps += h->ep_slot[e] != MXD_HOST_NO_SLOT;
	printf("board %u %s: NIC id %012llx, shared, "
			"%u slots (%u for processes, %u free), %u endpoints "
			"(%u open)\n", b, h->board_name,
			(unsigned long long)h->nic_id, h->nslots, h->nslots - 1,
			free_slots, MXD_HOST_ENDPOINTS, eps);
	show_ports(h);
	printf("  through the service: %llu connect requests forwarded, %llu "
			"refused (endpoint closed), %llu other frames forwarded "
			"(to a slot their sender did not know), %llu dropped\n",
			(unsigned long long)h->fwd_conn,
			(unsigned long long)h->conn_refused,
			(unsigned long long)h->fwd_other,
			(unsigned long long)h->fwd_dropped);
	for (unsigned p = 0; p < h->nports; p++)
		if (h->port[p].mode == MXD_SHPORT_SWITCHED) {
			printf("  switched: %llu frames from the ports to the "
					"processes, %llu sent for them\n",
					(unsigned long long)h->sw_in,
					(unsigned long long)h->sw_out);
			break;
		}
	show_slots(h);
	munmap((void *)(uintptr_t)h, len);
}

static int
cmd_status(void)
{
	struct mxd_svc_msg m;
	char log[128];
	int s = svc_connect(), fd;
	unsigned nb;

	if (s < 0) {
		printf("mx_board: no board service runs for host %s\n",
				mxd_conf.hostname);
		return 1;
	}
	mxd_svc_msg_init(&m, MXD_SVC_HELLO);
	m.flags = MXD_SVC_F_OBSERVER;
	m.pid = (int32_t)getpid();
	if (mxd_svc_send(s, &m, -1) < 0 || reply(s, &m, &fd, 5000) < 0 ||
			m.type != MXD_SVC_WELCOME) {
		fprintf(stderr, "mx_board: the board service of host %s does "
				"not answer\n", mxd_conf.hostname);
		return 1;
	}
	log_path(log, sizeof(log));
	printf("board service of host %s: pid %d, messages in %s\n",
			mxd_conf.hostname, (int)m.pid, log);
	nb = m.nboards;
	for (unsigned b = 0; b < nb; b++) {
		if (reply(s, &m, &fd, 5000) < 0 || fd < 0)
			break;
		show_board(b, fd, m.len);
		close(fd);
	}
	close(s);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *cmd;
	int force = 0;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(argc < 2 ? 2 : 0);
	cmd = argv[1];
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-f") && !strcmp(cmd, "stop"))
			force = 1;
		else if (!strcmp(argv[i], "-h"))
			usage(0);
		else
			usage(2);
	}
	if (mxd_config_load(&mxd_conf) < 0)
		return 2;
	if (!strcmp(cmd, "start"))
		return cmd_start();
	if (!strcmp(cmd, "stop"))
		return cmd_stop(force);
	if (!strcmp(cmd, "status"))
		return cmd_status();
	if (!strcmp(cmd, "run"))
		return mxd_svc_run(-1, NULL);
	usage(2);
	return 2;
}
