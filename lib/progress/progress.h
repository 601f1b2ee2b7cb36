/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Progress (above the engine, below the API): the whole progress pass,
 * and what a received frame means (dispatch by type).  See progress.c.
 */
#ifndef MXD_PROGRESS_H
#define MXD_PROGRESS_H

#include "partners/endpoint.h"

/* A pass over ep's board (rx bursts and their frames, timers, queued
 * sends and pulls, tx bursts), and every few passes over every board, on
 * behalf of ep; returns the number of frames taken in (0: idle).
 * Nothing when ep's progression is off, or inside a pass already (an
 * unexpected handler calling MX). */
unsigned mxd_progress(struct mx_endpoint *ep);
/* The same for a call that waits for a request of ep (mx_test): built
 * for a burst that brings frames, where mxd_progress is built for one
 * that brings none. */
unsigned mxd_progress_for(struct mx_endpoint *ep);
/* The same on behalf of no endpoint (name lookups, the progress thread). */
unsigned mxd_progress_any(void);
/* Whether a pass is running: a call made now comes from an unexpected
 * handler (or callback) inside it, which can neither wait (no pass would
 * run for it) nor close what the pass walks.  Only meaningful to a thread
 * inside a call (it holds the library then). */
int mxd_in_pass(void);
/* The progression thread (MX_PROGRESSION, by default) or the busy
 * progress thread (MX_PROGRESS_THREAD): started by mx_init, stopped by
 * mx_finalize without the library lock. */
int mxd_progress_thread_start(void);
void mxd_progress_thread_stop(void);

#endif /* MXD_PROGRESS_H */
