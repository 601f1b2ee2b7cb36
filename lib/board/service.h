/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a process of a shared board and the board service (service/) say
 * to each other: fixed-size messages over a SOCK_SEQPACKET connection to
 * the service's socket, in the abstract namespace ("@mx-board:<host>",
 * one service per MX_HOSTNAME and network namespace), file descriptors
 * passed with them (SCM_RIGHTS).  The connection stays open as long as
 * the process uses the board: its end tells each side of the other's
 * death (the service also watches the process's pidfd).
 *
 *   HELLO      process -> service: its pid; MXD_SVC_F_OBSERVER asks for
 *              no slot (mx_board status)
 *   WELCOME    its slot (0 for an observer) and epoch, the number of
 *              boards, the service's host name in 'text'; then one BOARD
 *              per board, each with its host segment's descriptor
 *   REFUSED    why, in 'text' (no slot free, an unknown version...)
 *   REGION_REQ board, port: the port's memif region, please
 *   REGION     its generation and bytes with its descriptor; status
 *              -EAGAIN and no descriptor while the link is down
 *   STOP       mx_board stop: 'flags' MXD_SVC_F_FORCE stops it while
 *              processes use it; STOPPING (or REFUSED) answers
 *
 * Both sides check magic and version first; a process of another version
 * is refused with a message saying so.
 */
#ifndef MXD_SERVICE_H
#define MXD_SERVICE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MXD_SVC_MAGIC		0x4d585342u	/* "MXSB" */
#define MXD_SVC_VERSION		2u
#define MXD_SVC_F_OBSERVER	1u
#define MXD_SVC_F_FORCE		2u

enum mxd_svc_type {
	MXD_SVC_HELLO = 1,
	MXD_SVC_WELCOME,
	MXD_SVC_BOARD,
	MXD_SVC_REFUSED,
	MXD_SVC_REGION_REQ,
	MXD_SVC_REGION,
	MXD_SVC_STOP,
	MXD_SVC_STOPPING,
};

struct mxd_svc_msg {
	uint32_t magic;
	uint32_t version;
	uint32_t type;		/* enum mxd_svc_type */
	uint32_t flags;		/* MXD_SVC_F_* */
	int32_t status;		/* 0, or a negative errno */
	int32_t pid;
	uint32_t slot;
	uint32_t epoch;
	uint32_t board;
	uint32_t nboards;
	uint32_t port;
	uint32_t gen;
	uint32_t lane;		/* REGION: which of the port's lanes */
	uint32_t pad;
	uint64_t len;		/* bytes of the segment or region */
	char text[256];
};

/* The service's address for host name 'host'; returns its length. */
static inline socklen_t
mxd_svc_addr(const char *host, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
			"mx-board:%s", host);
	if (n < 0 || (size_t)n >= sizeof(sa->sun_path) - 1)
		n = (int)sizeof(sa->sun_path) - 2;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			(size_t)n);
}

/* A message of 'type', the header filled. */
static inline void
mxd_svc_msg_init(struct mxd_svc_msg *m, enum mxd_svc_type type)
{
	memset(m, 0, sizeof(*m));
	m->magic = MXD_SVC_MAGIC;
	m->version = MXD_SVC_VERSION;
	m->type = type;
}

/* Sends m, with descriptor fd unless it is negative; 0 or -1. */
static inline int
mxd_svc_send(int s, const struct mxd_svc_msg *m, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)(uintptr_t)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	memset(cbuf, 0, sizeof(cbuf));
	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(s, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* Receives one message (and the descriptor it carries, else *fd = -1);
 * 0, or -1 with errno EAGAIN (none waiting, MSG_DONTWAIT), EPIPE (the end
 * of the connection) or EPROTO (a message not ours). */
static inline int
mxd_svc_recv(int s, struct mxd_svc_msg *m, int *fd, int flags)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC | flags);

	*fd = -1;
	for (c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; c != NULL;
			c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (n != (ssize_t)sizeof(*m) || m->magic != MXD_SVC_MAGIC) {
		int err = n < 0 ? errno : n == 0 ? EPIPE : EPROTO;

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = err;
		return -1;
	}
	m->text[sizeof(m->text) - 1] = '\0';
	return 0;
}

#endif /* MXD_SERVICE_H */
