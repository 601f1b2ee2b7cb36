#!/usr/bin/env bash
# mx_counters sees the boards of another live process, selects them by
# board number or name, shows zero counters with -v and only the loopback
# ones with -s, clears them (-c), and removes what a process that died
# without mx_finalize left (-p).
set -u
build=${1:?usage: counters.sh <build-dir>}
dir=$(mktemp -d /tmp/mxd-cnt.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }

MX_HOSTNAME=cnt$$ MX_DPDK_ARGS="--no-huge -m 128 --no-shconf --no-pci --log-level=error --vdev=net_memif0,role=server,socket=$dir/s" \
	"$build/apps/mx_pingpong" -e 3 >"$dir/log" 2>&1 &
pid=$!
for i in $(seq 1 500); do
	grep -q "receiver on board" "$dir/log" && break
	sleep 0.01
done
out=$("$build/apps/mx_counters" "cnt$$")
echo "$out"
echo "$out" | grep -q "^cnt$$:0 (NIC id" || fail "board not listed"
echo "$out" | grep -Eq "discovery frames sent +[1-9]" || fail "no counter value"
echo "$out" | grep -Eq " 0$" && fail "a zero counter shown without -v"
mc() { "$build/apps/mx_counters" "$@"; }
mc -v "cnt$$" | grep -Eq "^  bad acks +0$" || fail "-v: no zero counter"
mc -q "cnt$$" | grep -Eq " 0$" && fail "-q: a zero counter shown"
[ "$(mc -s -v "cnt$$" | grep -c "^  ")" = 1 ] &&
	mc -s -v "cnt$$" | grep -Eq "^  loopback frames +[0-9]+$" ||
	fail "-s -v: not the loopback counter alone"
mc -b 0 "cnt$$" | grep -q "^cnt$$:0 (NIC id" || fail "-b 0: board not listed"
mc -b 1 "cnt$$" | grep -q "no mx-dpdk board in use on this host matches" ||
	fail "-b 1: a board listed"
mc -h | grep -q "^usage: mx_counters" || fail "-h"
mc -x >/dev/null 2>&1; [ $? = 2 ] || fail "-x: not refused"
mc -c "cnt$$" | grep -q "(cleared)" || fail "-c: not cleared"
"$build/apps/mx_counters" "cnt$$" | grep -q "discovery frames sent" &&
	fail "reset did not clear the counters"
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
ls /dev/shm | grep -q "^mx-dpdk\.[0-9]*\." || fail "no segment left to clean"
"$build/apps/mx_counters" "cnt$$" | grep -q "^cnt$$" && fail "dead process listed"
"$build/apps/mx_counters" -p | grep -q "is gone" || fail "-p removed nothing"
echo "1 passed, 0 failed"
