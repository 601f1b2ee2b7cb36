#!/usr/bin/env bash
# Every error names its cause and its fix: each misconfiguration below is
# made on purpose and the exact text of the library's message is checked,
# plus the conventions around them: the EAL quiet by default, DPDK's usage
# only with MX_VERBOSE, the mx rte_log types obeying --log-level, unique
# MACs for PMD defaults, a board name another process of the host uses,
# partners of different MTUs, and every setting documented in mx-dpdk(7)
# and printed by mx_info.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: errors.sh <build-dir>}
info=$build/apps/mx_info
A="--no-huge -m 256 --no-shconf --no-pci"
dir=$(mktemp -d /tmp/mxd-errors.XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT
passed=0 failed=0
unset MX_VERBOSE MX_BOARDS MX_FAULTS MX_RNDV_THRESHOLD MX_KEEP_MAC

# run <env assignments...> -- <command...>: output (both streams) in $dir/out
run() {
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" timeout 60 "$@" >"$dir/out" 2>&1
	echo $? >"$dir/rc"
}
verdict() {	# <description> <0: ok>
	if [ "$2" -eq 0 ]; then
		echo "ok: $1"; passed=$((passed + 1))
	else
		echo "FAIL: $1"; sed 's/^/    /' "$dir/out"
		failed=$((failed + 1))
	fi
}
# expect <description> <fixed line start>: mx_init failed, and a line of
# the output starts with the text given.
expect() {
	local rc; rc=$(cat "$dir/rc")
	grep -qF -- "$2" "$dir/out" && [ "$rc" -ne 0 ]
	verdict "$1" $?
}
warns() {	# like expect, but the program succeeded
	local rc; rc=$(cat "$dir/rc")
	grep -qF -- "$2" "$dir/out" && [ "$rc" -eq 0 ]
	verdict "$1" $?
}
lacks() { ! grep -qE -- "$2" "$dir/out"; verdict "$1" $?; }

# --- EAL arguments ----------------------------------------------------
run MX_DPDK_ARGS="--bogus $A --vdev=net_null0" -- "$info" -q
expect "bad EAL option" "mx: MX_DPDK_ARGS=\"--bogus $A --vdev=net_null0\": the EAL refused these arguments: unrecognized option '--bogus' (MX_VERBOSE=1 shows DPDK's usage)"
lacks "no DPDK usage without MX_VERBOSE" "^Usage:|EAL options"
run MX_VERBOSE=1 MX_DPDK_ARGS="--bogus $A --vdev=net_null0" -- "$info" -q
first=$(grep -nF "the EAL refused these arguments" "$dir/out" | cut -d: -f1)
usage=$(grep -n "^Usage: " "$dir/out" | head -1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$usage" ] && [ "$first" -lt "$usage" ]
verdict "MX_VERBOSE: our message first, then DPDK's usage" $?

if [ "$(cat /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages 2>/dev/null |
		awk '{ s += $1 } END { print s + 0 }')" -eq 0 ]; then
	run MX_DPDK_ARGS="--no-shconf --no-pci --vdev=net_null0" -- "$info" -q
	expect "no hugepages reserved" "mx: the EAL found no hugepages: none are reserved.  Reserve some (as root: echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages) or add --no-huge -m 256 to MX_DPDK_ARGS"
else
	echo "skip: no hugepages reserved (this host has some reserved now)"
fi

run MX_DPDK_ARGS="$A" -- "$info" -q
expect "no port" "mx: DPDK found no port: MX_DPDK_ARGS names none.  Give one, e.g. MX_DPDK_ARGS=\"--no-huge -m 256 --no-pci --vdev=net_memif0,role=server,socket=/tmp/mx.sock\" (README, Running), or bind a NIC to vfio-pci"

# --- memif arguments, roles, sockets ------------------------------------
run MX_DPDK_ARGS="$A --vdev=net_memif0,rol=client,socket=$dir/m.sock" -- "$info" -q
expect "memif argument typo" "mx: port 0 (net_memif0): unknown memif argument \"rol\" in --vdev=net_memif0,rol=client,socket=$dir/m.sock; memif takes id, role, bsize, rsize, socket, socket-abstract, owner-uid, owner-gid, mac, secret, zero-copy"
run MX_DPDK_ARGS="$A --vdev=net_memif0,role=clint,socket=$dir/m.sock" -- "$info" -q
expect "memif role typo" "mx: port net_memif0: memif role \"clint\" is neither server nor client"
run MX_LINK_WAIT_MS=300 MX_HOSTNAME=nodeB MX_DPDK_ARGS="$A --vdev=net_memif0,role=client,socket=$dir/m.sock" -- "$info" -q
expect "memif client without a server" "mx: board nodeB:0 port 0 (net_memif0): link down after 300 ms: is the memif server running (socket $dir/m.sock)?"

# A port another process holds: a second memif server on the socket a
# live one serves.
MX_HOSTNAME=holder$$ MX_DPDK_ARGS="$A --vdev=net_memif0,role=server,socket=$dir/held.sock" \
	timeout 120 "$build/apps/mx_pingpong" -e 1 >"$dir/holder" 2>&1 &
pids="$pids $!"
for i in $(seq 1 1000); do
	grep -q "receiver on board" "$dir/holder" && break
	sleep 0.01
done
run MX_HOSTNAME=second$$ MX_DPDK_ARGS="$A --vdev=net_memif0,role=server,socket=$dir/held.sock" -- "$info" -q
expect "port held by another process" "mx: port net_memif0: its memif socket $dir/held.sock is held by another process (a memif server already serves it): stop that process, give this port another socket=, make it that server's client (role=client), or share the board with the processes of this host: MX_BOARD_SHARED=1 in each (mx-dpdk(7), SHARED BOARDS)"
grep -q "mx_init failed: Busy" "$dir/out"
verdict "held port: mx_init returns MX_BUSY" $?

# Partners of different MTUs (9000 and 1500, both with memif buffers of
# 9216 bytes): each side says so once, naming the partner and both MTUs,
# and a medium message (4 KiB: three frames of 1500) goes both ways.
MX_MTU=9000 MX_HOSTNAME=big$$ MX_DPDK_ARGS="$A --vdev=net_memif0,role=server,socket=$dir/mtu.sock,bsize=9216,mac=02:00:00:00:0e:0a" \
	timeout 60 "$build/apps/mx_pingpong" -e 1 >"$dir/mtu-server" 2>&1 &
mtu_srv=$!
pids="$pids $mtu_srv"
for i in $(seq 1 1000); do
	grep -q "receiver on board" "$dir/mtu-server" && break
	sleep 0.01
done
run MX_MTU=1500 MX_HOSTNAME=small$$ MX_DPDK_ARGS="$A --vdev=net_memif0,role=client,socket=$dir/mtu.sock,bsize=9216,mac=02:00:00:00:0e:0b" \
	-- "$build/apps/mx_pingpong" -d big$$:0 -r 1 -e 2 -S 4096 -E 4096 -N 5 -V
warns "MTU mismatch: the smaller side" "mx: board small$$:0 endpoint 2: partner big$$:0 (NIC 020000000e0a) endpoint 1 has MTU 9000, this board 1500: frames between them carry at most 1500 bytes (eager fragments of 1444, pull replies of 1460); give both sides the same MX_MTU (and port buffers) to use larger frames"
wait "$mtu_srv"
echo $? >"$dir/rc"
cp "$dir/mtu-server" "$dir/out"
warns "MTU mismatch: the larger side" "mx: board big$$:0 endpoint 1: partner small$$:0 (NIC 020000000e0b) endpoint 2 has MTU 1500, this board 9000: frames between them carry at most 1500 bytes (eager fragments of 1444, pull replies of 1460); give both sides the same MX_MTU (and port buffers) to use larger frames"
[ "$(grep -c "has MTU" "$dir/mtu-server")" -eq 1 ]
verdict "MTU mismatch: said once" $?

# --- settings -------------------------------------------------------------
run MX_BOARDS=9+9 MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "MX_BOARDS: no such port" "mx: MX_BOARDS=\"9+9\": there is no port 9: this process has 1 port(s), 0 to 0 (from MX_DPDK_ARGS)"
run MX_BOARDS=0x1 MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "MX_BOARDS: syntax" "mx: MX_BOARDS=\"0x1\": expected port numbers joined by '+' within a board and ',' between boards, e.g. \"0+1,2\""
run MX_SPIN_US=abc MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "not a number" "mx: MX_SPIN_US=\"abc\" is not a number: give an integer from 0 to 10000000 (blocking calls sleep between polls once idle this long; default 1000)"
run MX_PROGRESS_THREAD=2 MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "out of range" "mx: MX_PROGRESS_THREAD=2 is out of range: give an integer from 0 to 1 (1: instead, a thread polls all the time (application bypass at the cost of a core); default 0)"
run MX_PEERS_FILE="$dir/none" MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "MX_PEERS_FILE missing" "mx: MX_PEERS_FILE $dir/none: cannot open"
echo "nodeX:0" >"$dir/peers"
run MX_PEERS_FILE="$dir/peers" MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "MX_PEERS_FILE syntax" "mx: $dir/peers:1: expected \"<host>:<board> <mac>\""
run MX_HOSTNAME=a:b MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "MX_HOSTNAME with ':'" "mx: MX_HOSTNAME=\"a:b\": give a name of at most"
run MX_FAULTS=drop=abc MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
expect "MX_FAULTS value" "mx: MX_FAULTS: bad value drop=abc: drop, dup, reorder and corrupt take a probability (0.05 or 5%), the others a whole number (in MX_FAULTS=\"drop=abc\")"
run MX_RNDV_THRESHOLD=100000 MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
warns "capped setting" "mx: MX_RNDV_THRESHOLD=100000 capped to 92416 on board "
run MX_RNDV_THRESHOL=1 MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
warns "unknown MX_ variable" "mx: MX_RNDV_THRESHOL is not an mx-dpdk setting, ignored (mx_info -v lists them)"

# --- the tools ------------------------------------------------------------
run MX_DPDK_ARGS="$A --vdev=net_null0" -- "$build/apps/mx_bw" -e 99
expect "mx_bw -e 99" "mx_bw: endpoint 99 (-e) does not exist: a board has endpoints 0 to 31, or MX_ANY_ENDPOINT"
run MX_DPDK_ARGS="$A --vdev=net_null0" -- "$build/apps/mx_pingpong" -b 3
expect "mx_pingpong -b 3" "mx_pingpong: board 3 (-b) does not exist"
# A name not found while a port is down: the port and its hint are named.
run MX_DISCOVERY_MS=300 MX_HOSTNAME=nodeB MX_DPDK_ARGS="$A --vdev=net_memif0,role=server,socket=$dir/lonely.sock" \
	-- "$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2
expect "not found, port down" "mx: nodeA:0 not found while board nodeB:0 port 0 (net_memif0) is down: no memif client has connected to $dir/lonely.sock yet"

# --- logging --------------------------------------------------------------
run MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
lacks "EAL quiet by default" "^(EAL|TELEMETRY):|mp action callback"
run MX_VERBOSE=1 MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
grep -q "^EAL: " "$dir/out" && grep -q "^mx: board 0 " "$dir/out"
verdict "MX_VERBOSE: the EAL's lines and the boards" $?
run MX_RNDV_THRESHOLD=100000 MX_DPDK_ARGS="$A --vdev=net_null0 --log-level=mx.config:error" -- "$info" -q
lacks "--log-level=mx.config:error quiets the capped warning" "capped to"
run MX_DPDK_ARGS="$A --vdev=net_null0 --log-level=mx.init:debug" -- "$info" -q
grep -q "^mx: board 0 " "$dir/out"
verdict "--log-level=mx.init:debug shows the boards" $?

# --- identities -----------------------------------------------------------
run MX_DPDK_ARGS="$A --vdev=net_ring0 --vdev=net_ring1" -- "$info"
macs=$(grep -oE "^  port 0: net_ring[01] \(net_ring\) mac [0-9a-f:]+" "$dir/out" | awk '{print $NF}')
[ "$(echo "$macs" | sort -u | wc -l)" -eq 2 ] &&
	! echo "$macs" | grep -q "00:00:00:00:00:00" &&
	echo "$macs" | grep -qE "^.[26ae]:"
verdict "net_ring ports: two distinct locally administered MACs ($(echo $macs))" $?
run MX_KEEP_MAC=1 MX_DPDK_ARGS="$A --vdev=net_ring0" -- "$info"
grep -q "mac 00:00:00:00:00:00" "$dir/out"
verdict "MX_KEEP_MAC=1 keeps net_ring's MAC" $?
run MX_HOSTNAME=holder$$ MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -q
warns "board name another process uses" "mx: board holder$$:0: process "
grep -qF "of this host already uses the name holder$$:0: give each process a MX_HOSTNAME of its own (e.g. MX_HOSTNAME=nodeA), or a peer may reach the wrong one" "$dir/out"
verdict "... and what to do" $?

# --- settings documented ----------------------------------------------------
# mx-dpdk(7), RUNTIME PARAMETERS: an entry is ".TP" then ".B MX_NAME".
run MX_DPDK_ARGS="$A --vdev=net_null0" -- "$info" -v
names=$(sed -n '/^Settings/,$p' "$dir/out" | grep -oE "^  MX_[A-Z0-9_]+" | tr -d ' ' | sort -u)
page=$(sed -n '/^\.SH RUNTIME PARAMETERS/,/^\.SH /p' "$top/docs/man/man7/mx-dpdk.7" |
	awk 'tp && /^\.B MX_[A-Z0-9_]+$/ { print $2 } { tp = /^\.TP/ }' | sort -u)
[ -n "$names" ] && [ "$names" = "$page" ]
verdict "every setting in mx_info -v is in mx-dpdk(7)'s RUNTIME PARAMETERS and back ($(echo $names | wc -w))" $?
[ "$names" = "$page" ] || diff <(echo "$names") <(echo "$page")

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
