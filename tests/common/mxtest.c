/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared test helpers: see mxtest.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "mxtest.h"

static void
cmocka_fail(const char *file, int line, const char *msg)
{
	print_error("%s\n", msg);
	_fail(file, line);
}

void (*mxt_fail_hook)(const char *file, int line, const char *msg) =
	cmocka_fail;
uint32_t mxt_wait_ms = 20000;

void
mxt_failf(const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mxt_fail_hook(file, line, msg);
	abort();	/* a hook must not return */
}

static uint8_t
byte_at(uint32_t i, uint32_t seed)
{
	return (uint8_t)(seed * 7 + i * 13 + (i >> 8));
}

void
mxt_pattern(uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = byte_at(i, seed);
}

uint32_t
mxt_pattern_check(const uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != byte_at(i, seed))
			return i;
	return len;
}

void
mxt_pattern_expect(const uint8_t *b, uint32_t len, uint32_t seed)
{
	uint32_t bad = mxt_pattern_check(b, len, seed);

	MXT_CHECK(bad == len, "message %u: byte %u of %u is wrong", seed, bad,
			len);
}

mx_request_t
mxt_recv(mx_endpoint_t ep, void *buf, uint32_t len, uint64_t match,
		uint64_t mask)
{
	mx_segment_t s = { buf, len };
	mx_request_t r;
	mx_return_t rc = mx_irecv(ep, &s, 1, match, mask, buf, &r);

	MXT_CHECK(rc == MX_SUCCESS, "mx_irecv: %s", mx_strerror(rc));
	return r;
}

mx_request_t
mxt_isend(mx_endpoint_t ep, mx_endpoint_addr_t to, const void *buf,
		uint32_t len, uint64_t match)
{
	mx_segment_t s = { (void *)(uintptr_t)buf, len };
	mx_request_t r;
	mx_return_t rc = mx_isend(ep, &s, 1, to, match, NULL, &r);

	MXT_CHECK(rc == MX_SUCCESS, "mx_isend: %s", mx_strerror(rc));
	return r;
}

mx_status_t
mxt_ssend(mx_endpoint_t ep, mx_endpoint_addr_t to, const void *buf,
		uint32_t len, uint64_t match)
{
	mx_segment_t s = { (void *)(uintptr_t)buf, len };
	mx_request_t r;
	mx_return_t rc = mx_issend(ep, &s, 1, to, match, NULL, &r);

	MXT_CHECK(rc == MX_SUCCESS, "mx_issend: %s", mx_strerror(rc));
	return mxt_wait(ep, &r);
}

mx_status_t
mxt_wait(mx_endpoint_t ep, mx_request_t *r)
{
	mx_status_t st;
	uint32_t done = 0;
	mx_return_t rc = mx_wait(ep, r, mxt_wait_ms, &st, &done);

	MXT_CHECK(rc == MX_SUCCESS, "mx_wait: %s", mx_strerror(rc));
	MXT_CHECK(done, "request not complete after %u ms", mxt_wait_ms);
	return st;
}

mx_status_t
mxt_send(mx_endpoint_t ep, mx_endpoint_addr_t to, const void *buf,
		uint32_t len, uint64_t match)
{
	mx_request_t r = mxt_isend(ep, to, buf, len, match);

	return mxt_wait(ep, &r);
}

void
mxt_send_ok(mx_endpoint_t ep, mx_endpoint_addr_t to, const void *buf,
		uint32_t len, uint64_t match)
{
	mx_status_t st = mxt_send(ep, to, buf, len, match);

	MXT_CHECK(st.code == MX_STATUS_SUCCESS, "send status: %s",
			mx_strstatus(st.code));
}

uint64_t
mxt_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}
