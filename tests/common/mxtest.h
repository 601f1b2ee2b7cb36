/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers every MX test program uses, written once, on the public API
 * only.  A failed check goes to mxt_fail_hook: cmocka's failure by
 * default; a forked child that is not running cmocka sets its own.
 */
#ifndef MXTEST_H
#define MXTEST_H

#include <stdint.h>

#include <myriexpress.h>

/* Called with the place and the message of a failed check; must not
 * return (cmocka's default fails the running test). */
extern void (*mxt_fail_hook)(const char *file, int line, const char *msg);
/* How long mxt_wait waits, ms. */
extern uint32_t mxt_wait_ms;

void mxt_failf(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
#define MXT_CHECK(cond, ...) do { \
	if (!(cond)) \
		mxt_failf(__FILE__, __LINE__, __VA_ARGS__); \
} while (0)

/* Fills b with bytes derived from seed; the check names the first wrong
 * byte (len if none). */
void mxt_pattern(uint8_t *b, uint32_t len, uint32_t seed);
uint32_t mxt_pattern_check(const uint8_t *b, uint32_t len, uint32_t seed);
static inline int
mxt_pattern_ok(const uint8_t *b, uint32_t len, uint32_t seed)
{
	return mxt_pattern_check(b, len, seed) == len;
}
/* Fails the test unless b holds the pattern. */
void mxt_pattern_expect(const uint8_t *b, uint32_t len, uint32_t seed);

/* mx_irecv of one buffer (its context: the buffer). */
mx_request_t mxt_recv(mx_endpoint_t ep, void *buf, uint32_t len,
		uint64_t match, uint64_t mask);
/* mx_isend of one buffer. */
mx_request_t mxt_isend(mx_endpoint_t ep, mx_endpoint_addr_t to,
		const void *buf, uint32_t len, uint64_t match);
/* Waits up to mxt_wait_ms for r; fails unless it completed. */
mx_status_t mxt_wait(mx_endpoint_t ep, mx_request_t *r);
/* mxt_isend then mxt_wait: the send's status. */
mx_status_t mxt_send(mx_endpoint_t ep, mx_endpoint_addr_t to,
		const void *buf, uint32_t len, uint64_t match);

/* mx_issend of one buffer, then mxt_wait: the synchronous send's status
 * (success means a receive on the other side matched it). */
mx_status_t mxt_ssend(mx_endpoint_t ep, mx_endpoint_addr_t to,
		const void *buf, uint32_t len, uint64_t match);

/* mxt_send, failing unless the send succeeded. */
void mxt_send_ok(mx_endpoint_t ep, mx_endpoint_addr_t to, const void *buf,
		uint32_t len, uint64_t match);

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t mxt_now_ms(void);

#endif /* MXTEST_H */
