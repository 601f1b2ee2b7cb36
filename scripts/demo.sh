#!/usr/bin/env bash
# The demo: installs what is missing, builds, and runs mx_pingpong between
# two processes over a net_memif pair (--no-huge), printing half round-trip
# latency and bandwidth per message size.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
. "$top/scripts/memif-pair.sh"
echo "mx_pingpong: nodeA:0 endpoint 1 <-> nodeB:0 endpoint 2 over net_memif"
memif_pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -- \
	"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E 32768 \
	-N "${ITERS:-2000}"
