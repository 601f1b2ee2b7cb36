/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The board service of a shared board (service.c), as mx_board.c runs it.
 */
#ifndef MXD_SVC_H
#define MXD_SVC_H

/*
 * Runs the board service of host MX_HOSTNAME on the ports of
 * MX_DPDK_ARGS, grouped by MX_BOARDS, until stopped (mx_board stop,
 * SIGTERM, SIGINT).  Once it serves (its socket listens, its ports are
 * set up), or when it cannot, it writes one line to 'notify' (if >= 0):
 * "ok <pid>" or the reason, and closes it; then its messages go to the
 * file 'log' (if not NULL) instead of stderr.  Returns the exit code.
 */
int mxd_svc_run(int notify, const char *log);

#endif /* MXD_SVC_H */
