#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds in a fresh build
# directory, runs the unit and integration suites (cmocka under meson).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
export BUILD=${BUILD:-$top/build-test}
rm -rf "$BUILD"
"$top/scripts/build.sh"
meson test -C "$BUILD" --suite unit --suite integration \
	--print-errorlogs "$@"
