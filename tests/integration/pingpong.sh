#!/usr/bin/env bash
# mx_pingpong between two processes over memif, every byte verified (-V):
# fails unless the sender prints a full latency table, and unless both
# sides' pmd-glue found their memif rings to warm (MX_VERBOSE=3 logs it;
# without it the run works, only slower: docs/design.md).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: pingpong.sh <build-dir>}
. "$top/scripts/memif-pair.sh"

out=$(mktemp) slog=$(mktemp)
MX_VERBOSE=3 MEMIF_PAIR_SERVER_LOG=$slog memif_pair "receiver on board" \
	"$build/apps/mx_pingpong" -e 1 -- \
	"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E 32768 \
	-N 200 -V >"$out" 2>"$out.err"
rc=$?
cat "$out"
# length, mean, median, p99 (us), MB/s
rows=$(grep -cE '^[0-9]+( +[0-9.]+){4}$' "$out")
warm_c=$(grep -c "tx ring found" "$out.err")
warm_s=$(grep -c "tx ring found" "$slog")
rm -f "$out" "$out.err" "$slog"
# 0, 1, 2, 4, ..., 32768: 17 rows.
if [ $rc -ne 0 ] || [ "$rows" -ne 17 ]; then
	echo "FAIL: exit $rc, $rows of 17 table rows"
	exit 1
fi
if [ "$warm_c" -ne 1 ] || [ "$warm_s" -ne 1 ]; then
	echo "FAIL: memif rings found to warm: client $warm_c, server $warm_s" \
		"(1 each expected)"
	exit 1
fi
echo "2 passed, 0 failed"
