/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's messages go through DPDK's log, as a DPDK library's do:
 * one rte_log type per part of the library, all under "mx", so that
 * --log-level=mx:error (or mx.port:debug, ...) in MX_DPDK_ARGS quiets or
 * raises them like any DPDK component.  Each message is one line that
 * starts with "mx: ".
 *
 *   mx          the MX API (the default error handler's fatal message)
 *   mx.init     mx_init: start-up, boards, links
 *   mx.config   MX_* settings
 *   mx.port     ports: set-up, MTU, MAC, bursts cut short
 *   mx.naming   board names, peers file
 *   mx.engine   the protocol engine
 *
 * Until the EAL is initialised the log goes to stderr; once the library
 * has initialised the EAL itself it keeps the log on stderr (the EAL's
 * default is stdout and syslog).  An application that initialised the EAL
 * keeps its own log stream.
 */
#ifndef MXD_LOG_H
#define MXD_LOG_H

#include <rte_log.h>

extern int mxd_log_mx;
extern int mxd_log_init;
extern int mxd_log_config;
extern int mxd_log_port;
extern int mxd_log_naming;
extern int mxd_log_engine;

#define MXD_LOG(level, type, fmt, ...) \
	rte_log(RTE_LOG_ ## level, mxd_log_ ## type, "mx: " fmt "\n", \
		##__VA_ARGS__)

/* MX_VERBOSE: every mx type at DEBUG (1) or back to INFO (0). */
void mxd_log_verbose(int on);

#endif /* MXD_LOG_H */
