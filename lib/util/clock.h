/* SPDX-License-Identifier: BSD-3-Clause */
/* The library's one clock: CLOCK_MONOTONIC in nanoseconds (a leaf). */
#ifndef MXD_CLOCK_H
#define MXD_CLOCK_H

#include <stdint.h>

uint64_t mxd_now_ns(void);

#endif /* MXD_CLOCK_H */
