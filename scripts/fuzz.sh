#!/usr/bin/env bash
# Builds the libFuzzer target with clang, ASan and UBSan, and runs it over
# the committed seed corpus for a bounded time (default 60 s):
#   scripts/fuzz.sh [seconds]
# New inputs go to a scratch directory; a crash fails the run and leaves
# its input in $BUILD_FUZZ: add it to tests/fuzz/corpus as a regression
# input once fixed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
B=${BUILD_FUZZ:-$top/build-fuzz}
command -v clang >/dev/null || { echo "fuzz: clang is missing (scripts/deps.sh)"; exit 1; }
if [ ! -f "$B/build.ninja" ]; then
	CC=clang meson setup "$B" "$top" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C "$B" tests/fuzz_rx >/dev/null
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$B"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=0	# the live endpoints outlive the run
echo "fuzz: fuzz_rx for ${secs}s over $(ls "$top/tests/fuzz/corpus" | wc -l) seeds"
./tests/fuzz_rx -max_total_time="$secs" -print_final_stats=1 -max_len=8192 \
	"$scratch" "$top/tests/fuzz/corpus" 2>&1 | grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|ERROR|SUMMARY|crash-|fuzz:" || true
if compgen -G 'crash-*' >/dev/null || compgen -G 'leak-*' >/dev/null ||
		compgen -G 'timeout-*' >/dev/null; then
	echo "fuzz: FAILED: inputs left in $B"; exit 1
fi
echo "fuzz: clean"
