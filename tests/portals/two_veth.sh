#!/usr/bin/env bash
# Portals between two processes in two network namespaces joined by a
# veth pair, each on net_af_packet (scripts/veth-pair.sh): the scenarios
# of test_portals_two (a put ping-pong, streaming puts of every size, a
# get from a passive target, the 3.2 text's MPI example, ordering, both
# faces in one process), then the first three under MX_FAULTS loss.  A
# killed peer is the memif run's (over a veth the server's death is the
# pair's failure).  Skipped (77) without root or ip netns.
#
#   two_veth.sh <test_portals_two>
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
exe=${1:?usage: two_veth.sh <test_portals_two>}
. "$top/scripts/veth-pair.sh"

if ! why=$(veth_check); then
	echo "SKIP: $why"
	exit 77
fi
export VETH_PAIR_TIMEOUT=90 PTL2_DIR=${TMPDIR:-/tmp}
passed=0 failed=0
n=0

run() {	# run <name> <scenario> [MX_FAULTS]
	local out rc
	n=$((n + 1))
	export PTL2_TAG="veth-$$-$n"
	if [ -n "${3:-}" ]; then
		export MX_FAULTS=$3
	else
		unset MX_FAULTS
	fi
	out=$(veth_pair "ptl2 ready" "$exe" "$2" A -- "$exe" "$2" B 2>&1)
	rc=$?
	rm -f "$PTL2_DIR/ptl2-$PTL2_TAG".*
	if [ $rc -eq 0 ]; then
		echo "ok: $1"
		passed=$((passed + 1))
	else
		echo "$out"
		echo "FAIL: $1 (exit $rc)"
		failed=$((failed + 1))
	fi
}

for s in pingpong stream get mpi order both; do
	run "af_packet $s" $s
done
faults=drop=25%,reorder=10%,dup=5%,seed=23
for s in pingpong stream get; do
	run "af_packet $s under $faults" $s $faults
done
unset MX_FAULTS

left=$(ip netns list | grep -c "^mxd-$$-")
if [ "$left" -ne 0 ]; then
	echo "FAIL: $left network namespaces left behind"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
