#!/usr/bin/env bash
# Soak under injected faults (not in CI):
#   scripts/soak.sh MINUTES [MX_FAULTS spec]
# Repeats the memif fault test (every size class both ways, exactly-once
# completion and every byte checked) with the combined faults and a new
# seed each round, for MINUTES minutes, and prints messages, bytes and
# retransmissions so far after each round, and the totals.  Each round is a fresh pair of
# processes: resident memory is that of one round (printed by the
# children), not of one process running for MINUTES (see the README).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mins=${1:?usage: soak.sh MINUTES [fault spec]}
spec=${2:-drop=5%,reorder=5%,dup=1%,corrupt=1%}
B=${BUILD:-$top/build}
[ -x "$B/tests/test_memif" ] || "$top/scripts/build.sh"
end=$(( $(date +%s) + mins * 60 ))
round=0 msgs=0 bytes=0 retx=0 fail=0
while [ "$(date +%s)" -lt "$end" ]; do
	round=$((round + 1))
	out=$(MXD_SOAK_FAULTS="$spec,seed=$round" "$B/tests/test_memif" soak 2>&1) || fail=$((fail + 1))
	n=$(printf '%s\n' "$out" | sed -n 's/.* \([0-9]*\) messages each way; retransmitted \([0-9]*\).*/\1 \2/p')
	set -- $n
	msgs=$((msgs + ${1:-0} + ${3:-0}))
	retx=$((retx + ${2:-0} + ${4:-0}))
	for b in $(printf '%s\n' "$out" | sed -n 's/.*; \([0-9]*\) bytes received.*/\1/p'); do
		bytes=$((bytes + b))
	done
	rss=$(printf '%s\n' "$out" | sed -n 's/.*max resident \([0-9]*\) kB.*/\1/p' | sort -n | tail -1)
	echo "round $round: $(printf '%s\n' "$out" | grep -c 'messages each way') sides ok, messages so far $msgs ($bytes bytes), retransmitted $retx, max rss ${rss:-?} kB, failures $fail"
done
echo "soak: $round rounds, $msgs messages, $bytes bytes, $retx retransmissions, $fail failed rounds"
[ "$fail" -eq 0 ]
