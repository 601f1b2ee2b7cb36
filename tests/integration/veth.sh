#!/usr/bin/env bash
# Two processes in two network namespaces joined by a veth pair
# (scripts/veth-pair.sh): mx_pingpong over net_af_packet for every size
# from 0 to 64 KiB (small, medium and rendezvous messages) with every byte
# verified; the direct-DPDK baseline (dpdk_pingpong) ping-pong and stream
# (also with program buffers, -D) over the same kind of pair; mx_pingpong over net_pcap on the veth.
# Passes when each run completes with its full table; asserts no timing.
# Skipped (77) without root or ip netns.
#
# net_pcap runs with phy_mac=1 for now: without it every pcap port reports
# the MAC 02:70:63:61:70:00, both boards get the same NIC id, and the
# server refuses its peer.  (net_pcap also delivers received frames on a
# timer, about 0.5 ms, so few round trips are run over it.)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: veth.sh <build-dir>}
. "$top/scripts/veth-pair.sh"

if ! why=$(veth_check); then
	echo "SKIP: $why"
	exit 77
fi
export VETH_PAIR_TIMEOUT=90
passed=0 failed=0

# check <name> <expected rows> <row regex> <output> <exit code>
check() {
	local rows
	rows=$(echo "$4" | grep -cE "$3")
	echo "$4"
	if [ "$5" -eq 0 ] && [ "$rows" -eq "$2" ]; then
		echo "ok: $1"
		passed=$((passed + 1))
	else
		echo "FAIL: $1: exit $5, $rows of $2 rows"
		failed=$((failed + 1))
	fi
}

mx_row='^[0-9]+( +[0-9.]+){4}$'  # length, mean, median, p99, MB/s
out=$(veth_pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -- \
	"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E 65536 \
	-N 100 -V 2>&1)
check "mx_pingpong af_packet 0..64K" 18 "$mx_row" "$out" $?

out=$(veth_pair "pong ready" "$build/tests/dpdk_pingpong" pong -- \
	"$build/tests/dpdk_pingpong" ping -S 0 -E 1024 -N 200 2>&1)
check "dpdk_pingpong af_packet ping" 12 '^pingpong,' "$out" $?

out=$(veth_pair "sink ready" "$build/tests/dpdk_pingpong" sink -- \
	"$build/tests/dpdk_pingpong" stream -t 0.2 2>&1)
check "dpdk_pingpong af_packet stream" 1 '^rate,60,[1-9][0-9]*,[1-9]' \
	"$out" $?

# The ceiling of a buffer per message (scripts/bench-bandwidth.sh
# DISTINCT=1): full-size frames from and into program buffers.
out=$(veth_pair "sink ready" "$build/tests/dpdk_pingpong" sink -D -- \
	"$build/tests/dpdk_pingpong" stream -s 1514 -t 0.2 -D 2>&1)
check "dpdk_pingpong af_packet stream -D" 1 '^rate,1514,[1-9][0-9]*,[1-9]' \
	"$out" $?

out=$(VETH_PMD=pcap VETH_ARGS=phy_mac=1 veth_pair "receiver on board" \
	"$build/apps/mx_pingpong" -e 1 -- "$build/apps/mx_pingpong" \
	-d nodeA:0 -r 1 -e 2 -S 1024 -E 4096 -N 50 -V 2>&1)
check "mx_pingpong pcap (phy_mac=1) 1K..4K" 3 "$mx_row" "$out" $?

# Nothing left behind.
left=$(ip netns list | grep -c "^mxd-$$-")
if [ "$left" -ne 0 ]; then
	echo "FAIL: $left network namespaces left behind"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
