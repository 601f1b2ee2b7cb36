#!/usr/bin/env bash
# mx_pingpong between two processes over memif, every byte verified (-V):
# fails unless the sender prints a full latency table.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: pingpong.sh <build-dir>}
. "$top/scripts/memif-pair.sh"

out=$(mktemp)
memif_pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -- \
	"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E 32768 \
	-N 200 -V >"$out"
rc=$?
cat "$out"
# length, mean, median, p99 (us), MB/s
rows=$(grep -cE '^[0-9]+( +[0-9.]+){4}$' "$out")
rm -f "$out"
# 0, 1, 2, 4, ..., 32768: 17 rows.
if [ $rc -ne 0 ] || [ "$rows" -ne 17 ]; then
	echo "FAIL: exit $rc, $rows of 17 table rows"
	exit 1
fi
echo "1 passed, 0 failed"
