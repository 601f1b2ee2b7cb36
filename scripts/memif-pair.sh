#!/usr/bin/env bash
# Shared by the demo, tests and benchmarks: runs a "server" command and a
# "client" command as two processes over a fresh net_memif pair.
#
#   memif_pair <ready-regex> <server cmd...> -- <client cmd...>
#
# The server runs with MX_DPDK_ARGS for the memif server side; the client is
# started only once the server printed a line matching <ready-regex> (a memif
# client whose server is not up fails to start its port).  The two ends get
# distinct explicit MACs, since MACs are NIC ids.
# Both are killed after MEMIF_PAIR_TIMEOUT seconds (default 120).  Prints the
# client's output; returns non-zero if either side failed.
# Extra EAL options: MEMIF_EAL (default "--no-huge -m 256 --no-shconf").
# MEMIF_PORTS=2 gives each side a board of two memif pairs (MX_BOARDS=0+1).
# MEMIF_ARGS adds memif devargs to every port (e.g. bsize=9216 for jumbo
# frames: a frame must fit one memif buffer, see README's MX_MTU).
# MEMIF_PAIR_SERVER_LOG names a file that gets a copy of the server's output.

memif_pair() {
	local ready=$1; shift
	local srv=() cli=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	local dir; dir=$(mktemp -d /tmp/mxd-pair.XXXXXX)
	local sock=$dir/memif.sock
	local eal=${MEMIF_EAL:---no-huge -m 256 --no-shconf}
	local base="$eal --no-pci"
	local limit=${MEMIF_PAIR_TIMEOUT:-120}
	local srv2= cli2= boards= xa=${MEMIF_ARGS:+,$MEMIF_ARGS}
	if [ "${MEMIF_PORTS:-1}" = 2 ]; then
		srv2=" --vdev=net_memif1,role=server,socket=$sock.2,mac=02:00:00:00:01:0a$xa"
		cli2=" --vdev=net_memif1,role=client,socket=$sock.2,mac=02:00:00:00:01:0b$xa"
		boards=0+1
	fi

	MX_HOSTNAME=${SERVER_HOST:-nodeA} MX_BOARDS=$boards \
	MX_DPDK_ARGS="$base --vdev=net_memif0,role=server,socket=$sock,mac=02:00:00:00:00:0a$xa$srv2" \
		timeout "$limit" "${srv[@]}" >"$dir/server.log" 2>&1 &
	local spid=$!
	local i
	for i in $(seq 1 1000); do
		grep -Eq "$ready" "$dir/server.log" 2>/dev/null && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.01
	done
	MX_HOSTNAME=${CLIENT_HOST:-nodeB} MX_BOARDS=$boards \
	MX_DPDK_ARGS="$base --vdev=net_memif0,role=client,socket=$sock,mac=02:00:00:00:00:0b$xa$cli2" \
		timeout "$limit" "${cli[@]}"
	local crc=$?
	wait $spid
	local src=$?
	if [ $src -ne 0 ] || [ $crc -ne 0 ]; then
		echo "memif_pair: server exit $src, client exit $crc; server log:" >&2
		sed 's/^/  server: /' "$dir/server.log" >&2
	fi
	if [ -n "${MEMIF_PAIR_SERVER_LOG:-}" ]; then
		cp "$dir/server.log" "$MEMIF_PAIR_SERVER_LOG"
	fi
	rm -rf "$dir"
	[ $src -eq 0 ] && [ $crc -eq 0 ]
}

# two_cpus: sets cpus=() to the first two CPUs this shell may run on (fewer
# when it has fewer, none without taskset), for pinning a pair's processes.
two_cpus() {
	local list part lo hi c
	cpus=()
	command -v taskset >/dev/null || return 0
	list=$(taskset -pc $$ | sed 's/.*: //')
	for part in ${list//,/ }; do
		lo=${part%-*} hi=${part#*-}
		for ((c = lo; c <= hi && ${#cpus[@]} < 2; c++)); do
			cpus+=("$c")
		done
	done
}
