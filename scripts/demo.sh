#!/usr/bin/env bash
# The demo: installs what is missing, builds, and runs mx_pingpong between
# two processes over a net_memif pair (--no-huge), printing half round-trip
# latency and bandwidth per message size.  Then one board, many processes:
# a board service on each of two hosts (two host names here), and two
# processes of host nodeA sharing its board, each pinged by a process of
# nodeB at the same time; mx_board status shows who holds what meanwhile.
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

echo
echo "One board, many processes: board services of nodeA and nodeB"
dir=$(mktemp -d /tmp/mxd-demo.XXXXXX)
board="$build/service/mx_board" pp="$build/apps/mx_pingpong"
A="--no-huge -m 256 --no-shconf --no-pci"
cleanup() {
	MX_HOSTNAME=nodeA "$board" stop -f >/dev/null 2>&1 || true
	MX_HOSTNAME=nodeB "$board" stop -f >/dev/null 2>&1 || true
	rm -rf "$dir" /tmp/mx-board.nodeA.log /tmp/mx-board.nodeB.log
}
trap cleanup EXIT
export MX_BOARD_SLOTS=4
MX_HOSTNAME=nodeA MX_DPDK_ARGS="$A --vdev=net_memif0,role=server,socket=$dir/m.sock,mac=02:00:00:00:0d:0a" \
	"$board" start
MX_HOSTNAME=nodeB MX_DPDK_ARGS="$A --vdev=net_memif0,role=client,socket=$dir/m.sock,mac=02:00:00:00:0d:0b" \
	"$board" start
for i in $(seq 1 100); do
	MX_HOSTNAME=nodeB "$board" status | grep -q ": up " && break
	sleep 0.05
done
export MX_BOARD_SHARED=1
MX_HOSTNAME=nodeA timeout 60 "$pp" -e 1 >"$dir/r1" 2>&1 &
MX_HOSTNAME=nodeA timeout 60 "$pp" -e 2 >"$dir/r2" 2>&1 &
sleep 0.5
MX_HOSTNAME=nodeB timeout 60 "$pp" -d nodeA:0 -r 1 -e 1 -E 4096 \
	-N "${ITERS:-2000}" >"$dir/s1" 2>&1 &
MX_HOSTNAME=nodeB timeout 60 "$pp" -d nodeA:0 -r 2 -e 2 -E 4096 \
	-N "${ITERS:-2000}" >"$dir/s2" 2>&1 &
sleep 0.5
MX_HOSTNAME=nodeA "$board" status
wait
for f in s1 s2; do
	echo "$(head -1 "$dir/$f" | sed 's/^# //')"
	sed 1d "$dir/$f"
done
