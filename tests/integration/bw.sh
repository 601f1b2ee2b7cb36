#!/usr/bin/env bash
# mx_bw between two processes over memif: one way over the whole size range
# (eager and rendezvous), then both ways with many large messages in flight
# (the case that once lost a NOTIFY behind a full tx queue), then with a
# buffer per message in flight (-D), and large ones checked byte by byte
# (-V: receive buffers out of cache, written around it); then with jumbo
# frames (MTU 9000 over memif buffers that hold them), and an MTU too
# large for memif's buffers, which is lowered with a warning.  Fails
# unless every size reports.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bw.sh <build-dir>}
. "$top/scripts/memif-pair.sh"
export MEMIF_PAIR_TIMEOUT=120
fails=0

run() {	# expected-rows, then mx_bw sender options
	local want=$1; shift
	local out
	out=$(memif_pair "receiver on board" "$build/apps/mx_bw" -e 1 -- \
		"$build/apps/mx_bw" -d nodeA:0 -r 1 -e 2 "$@" 2>&1)
	local rc=$?
	echo "$out"
	local rows
	# length, MB/s, messages/s, mean, median, p99 (us per message)
	rows=$(echo "$out" | grep -cE '^[0-9]+ +[0-9.]+ +[0-9]+( +[0-9.]+){3}$')
	if [ $rc -ne 0 ] || [ "$rows" -ne "$want" ]; then
		echo "FAIL: mx_bw $*: exit $rc, $rows of $want rows"
		fails=$((fails + 1))
	fi
}

run 22 -S 0 -E 1048576 -N 200 -Q 16
run 1 -S 1048576 -E 1048576 -N 100 -Q 32 -B
run 2 -S 32768 -E 65536 -N 200 -Q 32 -D	# a buffer per message
run 2 -S 524288 -E 1048576 -N 100 -Q 16 -V	# ... every byte checked
export MX_MTU=9000 MX_MBUFS=4095
MEMIF_ARGS=bsize=9216 run 22 -S 0 -E 1048576 -N 200 -Q 16
out=$(run 1 -S 1048576 -E 1048576 -N 100 -Q 32)
echo "$out"
if ! echo "$out" | grep -q "MTU 9000 lowered to 2034"; then
	echo "FAIL: MTU 9000 over 2048-byte memif buffers: no warning"
	fails=$((fails + 1))
fi
unset MX_MTU MX_MBUFS
echo "$((6 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
