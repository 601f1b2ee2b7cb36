#!/usr/bin/env bash
# Configures (once) and builds into ${BUILD:-build}.  Extra arguments go to
# meson setup, e.g. scripts/build.sh -Dbuildtype=debug.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
if [ ! -f "$build/build.ninja" ]; then
	werror=false
	[ -n "${CI:-}" ] && werror=true
	meson setup "$build" "$top" -Dwerror=$werror "$@"
fi
ninja -C "$build"
