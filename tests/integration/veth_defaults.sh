#!/usr/bin/env bash
# Every virtual port with default arguments: two processes in
# two network namespaces joined by a veth pair (scripts/veth-pair.sh), the
# veth ends keeping the MACs the kernel drew, no mac= and no phy_mac=.
#   net_pcap:      every pcap port reports 02:70:63:61:70:00; the library
#                  gives each a MAC of its own, so the two boards differ
#   net_af_packet: also with jumbo frames (MTU 9000: ring frames and
#                  mbufs sized by the library from framesz)
# Each runs wire_traffic (every frame type: eager small and medium, an
# issend, rendezvous, a probe, a refused message; every byte checked) and
# mx_pingpong -V from 0 to 64 KiB.  Skipped (77) without root or ip netns.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: veth_defaults.sh <build-dir>}
. "$top/scripts/veth-pair.sh"

if ! why=$(veth_check); then
	echo "SKIP: $why"
	exit 77
fi
export VETH_PAIR_TIMEOUT=90 VETH_IFACE_MAC=0
unset VETH_ARGS MX_MTU
passed=0 failed=0

check() {	# <name> <expected rows> <row regex> <output> <exit code>
	local rows
	rows=$(echo "$4" | grep -cE "$3")
	if [ "$5" -eq 0 ] && [ "$rows" -eq "$2" ]; then
		echo "ok: $1"
		passed=$((passed + 1))
	else
		echo "$4" | sed 's/^/    /'
		echo "FAIL: $1: exit $5, $rows of $2 rows"
		failed=$((failed + 1))
	fi
}

mx_row='^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$'
traffic() {	# <name>: wire_traffic a / b
	local out
	out=$(veth_pair "a ready" "$build/tests/wire_traffic" a -- \
		"$build/tests/wire_traffic" b 2>&1)
	check "$1 wire_traffic" 1 '^wire_traffic: b done$' "$out" $?
}
pingpong() {	# <name> <end>
	local out rows
	rows=$(awk -v e="$2" 'BEGIN { n = 1; for (l = 1; l <= e; l *= 2) n++; print n }')
	out=$(veth_pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -- \
		"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E "$2" \
		-N 20 -V 2>&1)
	check "$1 mx_pingpong -V 0..$2" "$rows" "$mx_row" "$out" $?
}

VETH_PMD=pcap traffic "pcap"
VETH_PMD=pcap pingpong "pcap" 65536
VETH_PMD=af_packet traffic "af_packet"
VETH_PMD=af_packet pingpong "af_packet" 65536
VETH_PMD=af_packet VETH_MTU=9000 pingpong "af_packet MTU 9000" 65536

left=$(ip netns list | grep -c "^mxd-$$-")
if [ "$left" -ne 0 ]; then
	echo "FAIL: $left network namespaces left behind"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
