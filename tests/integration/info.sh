#!/usr/bin/env bash
# mx_info: the version line, its options (-b, -q, -v, -h), and each warning
# on ports made to deserve it: net_ring's all-zero MAC (two of them: one NIC
# id for two boards), net_pcap's default MAC, also used by another process
# of this host (which the host listing shows), a memif port with no peer
# (link down), and MX_MTU below 1500.  No frame leaves this machine:
# net_pcap reads an empty capture file and writes into another.
set -u
build=${1:?usage: info.sh <build-dir>}
info=$build/apps/mx_info
dir=$(mktemp -d /tmp/mxd-info.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
passed=0 failed=0
check() {	# description, then a command that must succeed
	local what=$1; shift
	if "$@"; then
		echo "ok: $what"; passed=$((passed + 1))
	else
		echo "FAIL: $what"; failed=$((failed + 1))
	fi
}
has() { grep -Eq -- "$1" "$dir/out"; }
hasnt() { ! grep -Eq -- "$1" "$dir/out"; }

# An empty capture: the 24-byte pcap file header, no packet.
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$dir/empty.pcap"
eal="--no-huge -m 512 --no-shconf --no-pci --log-level=error"
pcap() { echo "--vdev=net_pcap$1,rx_pcap=$dir/empty.pcap,tx_pcap=$dir/out$1.pcap"; }
export MX_MBUFS=1023
# Under LeakSanitizer (the sanitized suite): libpcap's memory, held by
# DPDK's pcap port until the EAL ends, which the library leaves up.
echo "leak:libpcap.so" >"$dir/lsan.supp"
export LSAN_OPTIONS=suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}

# The PMDs' shared default MACs, which the library otherwise replaces by
# MACs of its own (README, Running), are kept here to deserve the warnings.
export MX_KEEP_MAC=1

# Another process of this host on a net_pcap port (the same default MAC).
MX_HOSTNAME=other$$ MX_DPDK_ARGS="$eal $(pcap 9)" \
	timeout 120 "$build/apps/mx_pingpong" -e 3 >"$dir/other" 2>&1 &
pid=$!
for i in $(seq 1 1000); do
	grep -q "receiver on board" "$dir/other" && break
	sleep 0.01
done

all="$eal $(pcap 0) --vdev=net_ring0 --vdev=net_ring1 --vdev=net_memif0,role=server,socket=$dir/sock"
MX_HOSTNAME=info$$ MX_MTU=1400 MX_DPDK_ARGS="$all" timeout 60 "$info" >"$dir/out" 2>"$dir/err"
rc=$?
cat "$dir/out"
check "exit 0" [ $rc = 0 ]
check "version line" has "^mx_info: mx-dpdk [0-9]+\.[0-9]+\.[0-9]+, MX API 0x301, built with DPDK [0-9]"
check "four boards and their ports" has "^4 board\(s\) in this process"
check "port lines" [ "$(grep -c "^  port 0: " "$dir/out")" = 4 ]
check "pcap default MAC" has "board 0 port 0 \(net_pcap0\): MAC 02:70:63:61:70:00 is net_pcap's default"
check "zero MAC" has "board 1 port 0 \(net_ring0\): MAC 00:00:00:00:00:00 is all zero"
check "one NIC id, two boards" has "board 1: board 2 has the same NIC id 000000000000"
check "link down" has "board 3 port 0 \(net_memif0\): link down"
check "MTU below 1500" has "board 3 port 0 \(net_memif0\): MTU 1400 is below Ethernet's 1500"
check "NIC id shared with another process" \
	has "board 0: NIC id 027063617000 is also board other$$:0 of process [0-9]+ \(mx_pingpong\)"
check "host listing" has "^  process [0-9]+ \(mx_pingpong\): board 0 other$$:0  NIC id 027063617000"
check "settings" has "^  MX_MTU +1400$"
check "warning count on stderr" grep -Eq "^mx_info: [0-9]+ warning\(s\)" "$dir/err"

MX_HOSTNAME=info$$ MX_DPDK_ARGS="$all" timeout 60 "$info" -q >"$dir/out" 2>&1
check "-q: boards and warnings, no ports, no settings" \
	eval 'has "^Board 3: " && has "warning: board 3 port 0 \(net_memif0\): link down" && hasnt "^  port 0" && hasnt "^Settings"'
MX_HOSTNAME=info$$ MX_DPDK_ARGS="$all" timeout 60 "$info" -v -b 2 >"$dir/out" 2>&1
check "-v -b 2: board 2 alone, its MX information, frame counts, help" \
	eval 'has "^Board 2: " && hasnt "^Board [013]: " && has "product code mx-dpdk net_ring" && has "frames sent [0-9]+, received" && has "^  MX_MTU +0 +port MTU"'
# A setup with no port: mx_init fails, the rest is still said.
MX_DPDK_ARGS="$eal" timeout 60 "$info" >"$dir/out" 2>&1
rc=$?
check "no port: exit 1, version, why" \
	eval '[ $rc = 1 ] && has "^mx_info: mx-dpdk" && has "^mx_init failed: " && has "^Settings"'
"$info" -h >"$dir/out" 2>&1
rc=$?
check "-h: usage, exit 0" eval '[ $rc = 0 ] && has "^usage: mx_info \[-b board\] \[-q \| -v\]"'
"$info" -x >/dev/null 2>&1
rc=$?
check "unknown option: exit 2" [ $rc = 2 ]

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
