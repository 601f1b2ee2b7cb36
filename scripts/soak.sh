#!/usr/bin/env bash
# Soak under injected faults (CI runs one minute: the meson test 'soak'):
#   scripts/soak.sh MINUTES [MX_FAULTS spec]
# Runs the memif fault traffic (every size class both ways, exactly-once
# completion, every byte checked) between one pair of processes for
# MINUTES minutes, round after round, with the combined faults by default.
# Prints a progress line per round (messages, bytes, retransmissions,
# resident memory) and at the end, per process, the totals and the resident
# memory after the first round and at the end: a leak shows as growth;
# and the recovery times: the wait between one receive's completion and
# the next, p50, p99 and max (a loss shows as the time it took to recover).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mins=${1:?usage: soak.sh MINUTES [fault spec]}
spec=${2:-drop=5%,reorder=5%,dup=1%,corrupt=1%,seed=$(date +%s)}
B=${BUILD:-$top/build}
[ -x "$B/tests/test_memif" ] || "$top/scripts/build.sh"
echo "soak: $mins min, MX_FAULTS=$spec"
MXD_SOAK_SECS=$((mins * 60)) MXD_SOAK_FAULTS="$spec" \
	"$B/tests/test_memif" soak 2>&1 | grep --line-buffered -E \
	'round [0-9]+:|messages each way;|recovery|resident memory|test_memif.c:|error|fail|out of time'
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] && echo "soak: passed" || echo "soak: FAILED ($rc)"
exit "$rc"
