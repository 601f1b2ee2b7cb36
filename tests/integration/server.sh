#!/usr/bin/env bash
# Persistent receivers (-s) of mx_pingpong and mx_bw over memif: a sender,
# then a sender killed (SIGKILL) in the middle of its run, then two more
# senders, all served by the one receiver process, which is still running
# at the end.  The killed sender's receives are let go of once the next
# sender is waiting; the next ones are served in full (-V: every byte).
set -u
build=${1:?usage: server.sh <build-dir>}
dir=$(mktemp -d /tmp/mxd-srv.XXXXXX)
spid= kpid=
cleanup() {
	[ -n "$kpid" ] && kill -9 "$kpid" 2>/dev/null
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
passed=0 failed=0
eal="--no-huge -m 256 --no-shconf --no-pci --log-level=error"

# wait_for <file> <regex>: up to 10 s.
wait_for() {
	local i
	for i in $(seq 1 1000); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}

client() {	# tool, then its options
	local t=$1; shift
	MX_HOSTNAME=nodeB MX_DPDK_ARGS="$eal --vdev=net_memif0,role=client,socket=$dir/sock,mac=02:00:00:00:00:0b" \
		timeout 60 "$build/apps/$t" -d nodeA:0 -r 1 -e 2 "$@"
}

one_tool() {
	local t=$1 ok=1 i
	: >"$dir/srv"
	MX_HOSTNAME=nodeA MX_DPDK_ARGS="$eal --vdev=net_memif0,role=server,socket=$dir/sock,mac=02:00:00:00:00:0a" \
		timeout 200 "$build/apps/$t" -e 1 -s >"$dir/srv" 2>&1 &
	spid=$!
	wait_for "$dir/srv" "receiver on board" || ok=0
	client "$t" -S 0 -E 4096 -N 50 -V >"$dir/c1" 2>&1 || ok=0
	# A sender that dies mid-run: killed once it has printed its first row.
	(MX_HOSTNAME=nodeB MX_DPDK_ARGS="$eal --vdev=net_memif0,role=client,socket=$dir/sock,mac=02:00:00:00:00:0b" \
		exec "$build/apps/$t" -d nodeA:0 -r 1 -e 2 -S 0 -E 64 \
		-N 100000000 --csv >"$dir/k" 2>&1) &
	kpid=$!
	wait_for "$dir/k" "^mx_" || ok=0
	kill -9 "$kpid"; wait "$kpid" 2>/dev/null; kpid=
	for i in 2 3; do
		client "$t" -S 0 -E 70000 -N 30 -V >"$dir/c$i" 2>&1 || ok=0
	done
	kill -0 "$spid" 2>/dev/null || ok=0
	if [ $ok = 1 ] && [ "$(grep -c "sender done" "$dir/srv")" = 3 ]; then
		echo "ok: $t -s: 3 senders served, one killed mid-run"
		passed=$((passed + 1))
	else
		echo "FAIL: $t -s"
		for f in srv c1 k c2 c3; do sed "s/^/  $f: /" "$dir/$f"; done
		failed=$((failed + 1))
	fi
	kill "$spid"; wait "$spid" 2>/dev/null; spid=
}

one_tool mx_pingpong
one_tool mx_bw
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
