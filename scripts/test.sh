#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds in a fresh build
# directory, runs the unit and integration suites (cmocka under meson);
# then the same suites built with ASan+UBSan (LeakSanitizer checks every
# process after mx_finalize), except the tests also in suite 'once' (the
# tools' scripts, packaging, start-up, loss runs: tests/meson.build), then
# the fuzz target for a bounded time.  After ASan+UBSan, the threads and
# misuse tests, the threads stress test (one process and two), the
# conformance runs (in one process, MX 1.2's, and two processes over
# memif), Portals' threads test and two-process test (whose passive
# target is served by the progression thread), and the same-host threads
# and semantics cases under ThreadSanitizer (build-tsan), which fails on
# any report (about three minutes).
#   MXD_SANITIZE=0 skips the ASan+UBSan pass, MXD_TSAN=0 the TSan pass,
#   MXD_FUZZ_SECS=0 the fuzzing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
export BUILD=${BUILD:-$top/build-test}
rm -rf "$BUILD"
"$top/scripts/build.sh"
meson test -C "$BUILD" --suite unit --suite integration \
	--print-errorlogs "$@"
if [ "${MXD_SANITIZE:-1}" != 0 ]; then
	san=$top/build-sanitize
	rm -rf "$san"
	echo "== the suites again under ASan+UBSan ($san)"
	meson setup "$san" "$top" -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
	ninja -C "$san" >/dev/null
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	ASAN_OPTIONS=detect_leaks=1 \
		meson test -C "$san" --suite unit --suite integration \
		--no-suite once --print-errorlogs --timeout-multiplier 3 "$@"
fi
if [ "${MXD_TSAN:-1}" != 0 ]; then
	tsan=$top/build-tsan
	rm -rf "$tsan"
	echo "== the threads tests and the conformance runs under TSan ($tsan)"
	meson setup "$tsan" "$top" -Db_sanitize=thread \
		-Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
	ninja -C "$tsan" tests/test_threads tests/test_misuse \
		tests/threads_stress tests/conformance \
		tests/conformance_mx12 tests/portals/test_portals_threads \
		tests/portals/test_portals_two tests/test_shm >/dev/null
	# halt_on_error: a report ends the test with TSan's exit code (66);
	# tests/tsan.supp says which reports are DPDK's and why they are dropped.
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$top/tests/tsan.supp \
		meson test -C "$tsan" --no-rebuild threads misuse threads-stress \
		threads-stress-memif conformance-local \
		conformance-mx12 conformance-memif portals-threads portals-two \
		shm-threads shm-semantics \
		--print-errorlogs --timeout-multiplier 3 "$@"
fi
if [ "${MXD_FUZZ_SECS:-60}" != 0 ]; then
	rm -rf "$top/build-fuzz"
	"$top/scripts/fuzz.sh" "${MXD_FUZZ_SECS:-60}"
fi
