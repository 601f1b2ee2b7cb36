#!/usr/bin/env bash
# Start-up that just works: the README's two-process block
# (Running), taken from the README itself and run exactly as written, 20
# times back to back; each run must print its whole table and both sides
# exit 0.  Then the same two commands in the other order (client first,
# server 0.3 s later), and a client whose server never comes, which must
# fail naming its board, port and the memif server within MX_LINK_WAIT_MS.
#
# Runs in a network namespace of its own when it can (unshare -n; root):
# memif's sockets are abstract by default, and abstract socket names are
# per network namespace, so another test or user of this host running the
# README's commands on /tmp/mx.sock at the same time does not meet ours.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: startup.sh <build-dir>}
RUNS=${STARTUP_RUNS:-20}

if [ -z "${MXD_STARTUP_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
		unshare -n true 2>/dev/null; then
	MXD_STARTUP_NS=1 exec unshare -n "$0" "$@"
fi

# The block: from the line that sets A to the "wait" that ends it.
block=$(awk '/^    A="--no-huge/ {on=1} on {print} on && /^    wait$/ {exit}' \
	"$top/README" | sed 's/^    //')
if [ -z "$block" ] || ! echo "$block" | grep -q '^wait$'; then
	echo "FAIL: the README's two-process block was not found"
	exit 1
fi
echo "README block:"
echo "$block" | sed 's/^/  | /'

dir=$(mktemp -d /tmp/mxd-startup.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ln -s "$(cd "$build" && pwd)" "$dir/build"
passed=0 failed=0

ok() { echo "ok: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }
rows() { grep -cE '^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$1"; }

# -E 4096 in the block: lengths 0, 1, 2, ... 4096 (14 rows).
want=14
for i in $(seq 1 "$RUNS"); do
	(cd "$dir" && timeout 60 bash -c "$block") >"$dir/out" 2>&1
	rc=$?
	n=$(rows "$dir/out")
	if [ $rc -eq 0 ] && [ "$n" -eq $want ]; then
		ok "run $i: exit 0, $n rows"
	else
		fail "run $i: exit $rc, $n of $want rows"
		sed 's/^/    /' "$dir/out"
	fi
done

# The other order: the client first, its server 0.3 s later.  The client
# waits up to 10 s for its link: a loaded CI machine once took longer than
# the default 2 s to start the server's EAL (the client gave up, and its
# leaving then crashed the server inside DPDK's memif, an EAL interrupt
# thread panic on a closed fd).
A="--no-huge -m 256 --no-shconf --no-pci"
sock=$dir/late.sock
for i in 1 2 3; do
	MX_LINK_WAIT_MS=10000 MX_HOSTNAME=nodeB MX_DPDK_ARGS="$A --vdev=net_memif0,role=client,socket=$sock" \
		timeout 60 "$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -E 64 \
		>"$dir/out" 2>&1 &
	cpid=$!
	sleep 0.3
	MX_HOSTNAME=nodeA MX_DPDK_ARGS="$A --vdev=net_memif0,role=server,socket=$sock" \
		timeout 60 "$build/apps/mx_pingpong" -e 1 >"$dir/srv" 2>&1
	src=$?
	wait $cpid
	crc=$?
	n=$(rows "$dir/out")
	if [ $src -eq 0 ] && [ $crc -eq 0 ] && [ "$n" -eq 8 ]; then
		ok "client first, run $i"
	else
		fail "client first, run $i: server exit $src, client exit $crc, $n of 8 rows"
		sed 's/^/    /' "$dir/out" "$dir/srv"
	fi
done

# No server at all: mx_init fails within MX_LINK_WAIT_MS, naming the port.
t0=$(date +%s%N)
out=$(MX_HOSTNAME=nodeB MX_LINK_WAIT_MS=700 MX_DPDK_ARGS="$A --vdev=net_memif0,role=client,socket=$dir/none.sock" \
	timeout 30 "$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 2>&1)
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
msg="mx: board nodeB:0 port 0 (net_memif0): link down after 700 ms: is the memif server running (socket $dir/none.sock)?"
if [ $rc -ne 0 ] && echo "$out" | grep -qF "$msg" && [ $ms -lt 10000 ]; then
	ok "no server: \"$msg\" after $ms ms"
else
	fail "no server: exit $rc after $ms ms, wanted the line: $msg"
	echo "$out" | sed 's/^/    /'
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
