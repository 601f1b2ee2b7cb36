/* SPDX-License-Identifier: BSD-3-Clause */
/* The library's rte_log types (log.h).  Registered by constructors, as
 * DPDK's own components do, so they exist before rte_eal_init() parses
 * --log-level. */
#include <rte_log.h>

#include "log.h"

RTE_LOG_REGISTER(mxd_log_mx, mx, INFO);
RTE_LOG_REGISTER(mxd_log_init, mx.init, INFO);
RTE_LOG_REGISTER(mxd_log_config, mx.config, INFO);
RTE_LOG_REGISTER(mxd_log_port, mx.port, INFO);
RTE_LOG_REGISTER(mxd_log_naming, mx.naming, INFO);
RTE_LOG_REGISTER(mxd_log_engine, mx.engine, INFO);

void
mxd_log_verbose(int on)
{
	rte_log_set_level_pattern("mx*", on ? RTE_LOG_DEBUG : RTE_LOG_INFO);
}
