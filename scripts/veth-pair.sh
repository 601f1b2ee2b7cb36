#!/usr/bin/env bash
# Shared by tests and benchmarks, as scripts/memif-pair.sh is: runs a
# "server" command and a "client" command in two network namespaces joined
# by a fresh veth pair, each side's DPDK port on its end of the veth.
#
#   veth_pair <ready-regex> <server cmd...> -- <client cmd...>
#   veth_check         # 0 if veth pairs can be made here, else prints why
#
# The server runs first, in its namespace, with MX_DPDK_ARGS for its veth
# end; the client is started once the server printed a line matching
# <ready-regex> (an MX client's name lookup needs the server to answer).
# MX_HOSTNAME is SERVER_HOST (nodeA) and CLIENT_HOST (nodeB), as in
# memif_pair, so "mx_pingpong -d nodeA:0" finds the server.  Prints the
# client's output; returns non-zero if either side failed.
#
# Settings (environment):
#   VETH_PMD       af_packet (default): net_af_packet,iface=<veth end>;
#                  pcap: net_pcap,iface=<veth end> (libpcap on the veth)
#   VETH_MTU       MTU of both veth ends (1500).  Above 1500 the af_packet
#                  ring frames are made large enough (framesz, blocksz)
#                  and MX_MTU is exported, so the library's mbufs hold a
#                  frame whole (DESIGN.md: af_packet and jumbo frames)
#   VETH_ARGS      devargs added to both ports, e.g. qdisc_bypass=1 or,
#                  for pcap, phy_mac=1
#   VETH_EAL       other EAL options ("--no-huge -m 256 --no-shconf")
#   VETH_PAIR_TIMEOUT  seconds before both sides are killed (120)
#   VETH_IFACE_MAC 0: leave the veth ends the MACs the kernel drew, instead
#                  of 02:00:00:00:00:0a and :0b (net_af_packet uses the
#                  interface's; net_pcap's default is replaced by a MAC
#                  the library draws)
#   VETH_CAPTURE   a pcap file: a capture of the run, both directions, is
#                  written there by net_pcap's tx_pcap.  VETH_MXTAP (the
#                  built tests/mxtap) sniffs the server's veth end and
#                  copies every frame to a net_pcap tx_pcap= port; it
#                  starts before the server and stops once both sides are
#                  done, and its verdict line ("mxtap: frames ... missed
#                  N") goes to VETH_CAPTURE.tap.  It sniffs with
#                  net_af_packet and a ring of 4096 frames: net_pcap's
#                  rx_iface= ring (libpcap's, which DPDK does not size)
#                  dropped a tenth of a ping-pong's frames while the
#                  sniffer waited for a core
#
# The two ends get distinct MACs (02:00:00:00:00:0a server, :0b client),
# set with ip link: net_af_packet takes its MAC from the interface, and a
# board's NIC id is its first port's MAC.  (net_pcap with iface= reports
# 02:70:63:61:70:00 on every port unless phy_mac=1.)  The namespaces and
# the veth are removed, and both sides killed, when veth_pair returns,
# fails or is interrupted (SIGINT, SIGTERM; to its process group too);
# namespaces left by a shell that was killed outright (SIGKILL) are
# removed by the next veth_pair.  The kernel's own frames (IPv6 neighbour
# discovery) do go over the veth: programs filter by EtherType.
#
# Needs root and iproute2's ip netns.

veth_check() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "veth_pair: needs root (network namespaces)"
		return 1
	fi
	if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
		echo "veth_pair: ip netns is not available"
		return 1
	fi
	local ns=mxd-check-$$-$RANDOM
	if ! ip netns add "$ns" 2>/dev/null; then
		echo "veth_pair: cannot create a network namespace"
		return 1
	fi
	if ! ip -n "$ns" link add mxdchk0 type veth peer name mxdchk1 \
			2>/dev/null; then
		ip netns del "$ns"
		echo "veth_pair: cannot create a veth pair"
		return 1
	fi
	ip netns del "$ns"
	return 0
}

# Namespaces of earlier runs whose shell is gone (killed with SIGKILL).
_veth_sweep() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '/^mxd-[0-9]+-/ {print $1}'); do
		pid=${ns#mxd-}
		pid=${pid%%-*}
		kill -0 "$pid" 2>/dev/null || ip netns del "$ns" 2>/dev/null
	done
}

# Devargs of the port on veth end $1.
_veth_port() {
	local dev=$1 mtu=$2 xa=${VETH_ARGS:+,$VETH_ARGS}
	case ${VETH_PMD:-af_packet} in
	af_packet)
		# A ring frame holds the tpacket2 header and the Ethernet frame
		# from offset 66 on; the PMD's defaults (framesz=2048,
		# blocksz=4096) carry MTU 1500.  Larger: the smallest framesz
		# (a multiple of 16) that holds a frame, and a block of whole
		# frames that is a multiple of the page size, as the kernel
		# requires (frames per block times blocks = framecnt).
		# The PMD then wants mbufs of framesz - 32 bytes or more.
		if [ "$mtu" -le 1500 ]; then
			echo "--vdev=net_af_packet0,iface=$dev,qpairs=1$xa"
			return
		fi
		local fs=$(( (mtu + 14 + 66 + 15) / 16 * 16 )) bs
		bs=$fs
		while [ $((bs % 4096)) -ne 0 ]; do bs=$((bs + fs)); done
		echo "--vdev=net_af_packet0,iface=$dev,qpairs=1,framesz=$fs,blocksz=$bs,framecnt=$(( bs / fs * 16 ))$xa"
		;;
	pcap)
		echo "--vdev=net_pcap0,iface=$dev$xa"
		;;
	*)
		echo "veth_pair: VETH_PMD must be af_packet or pcap" >&2
		return 1
		;;
	esac
}

# The body runs in a subshell, so its trap cleans up on any exit without
# touching the caller's traps.
veth_pair() (
	local ready=$1; shift
	local srv=() cli=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	veth_check >&2 || return 1
	_veth_sweep

	# Unique names: the shell's pid (for the sweep) and a random tag;
	# interface names stay within 15 characters.
	local tag; tag=$(printf '%x%04x' $$ $RANDOM)
	local nsa=mxd-$$-$tag-a nsb=mxd-$$-$tag-b
	local va=mxa$tag vb=mxb$tag
	local mtu=${VETH_MTU:-1500}
	local limit=${VETH_PAIR_TIMEOUT:-120}
	local eal=${VETH_EAL:---no-huge -m 256 --no-shconf}
	local base="$eal --no-pci --log-level=error"
	local dir; dir=$(mktemp -d /tmp/mxd-veth.XXXXXX)
	local spid= cpid= tpid=

	# timeout(1) runs each side in a process group of its own, so a
	# signal to ours reaches them only from here; both sides run in the
	# background because bash runs a trap only once the foreground
	# command is over.
	cleanup() {
		[ -n "$spid$cpid$tpid" ] && kill $spid $cpid $tpid 2>/dev/null
		ip netns del "$nsa" 2>/dev/null
		ip netns del "$nsb" 2>/dev/null
		rm -rf "$dir"
	}
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	ip netns add "$nsa" && ip netns add "$nsb" &&
	ip link add "$va" mtu "$mtu" type veth peer name "$vb" mtu "$mtu" &&
	ip link set "$va" netns "$nsa" && ip link set "$vb" netns "$nsb" &&
	local maca="address 02:00:00:00:00:0a" macb="address 02:00:00:00:00:0b"
	[ "${VETH_IFACE_MAC:-1}" = 0 ] && maca= macb=
	ip -n "$nsa" link set "$va" $maca up &&
	ip -n "$nsb" link set "$vb" $macb up || {
		echo "veth_pair: cannot set up $va/$vb" >&2
		ip link del "$va" 2>/dev/null
		return 1
	}
	local pa pb
	pa=$(_veth_port "$va" "$mtu") && pb=$(_veth_port "$vb" "$mtu") ||
		return 1
	[ "$mtu" -gt 1500 ] && export MX_MTU=$mtu
	if [ -n "${VETH_CAPTURE:-}" ]; then
		_veth_tap_start || return 1
	fi

	MX_HOSTNAME=${SERVER_HOST:-nodeA} MX_DPDK_ARGS="$base $pa" \
		ip netns exec "$nsa" timeout "$limit" "${srv[@]}" \
		>"$dir/server.log" 2>&1 &
	spid=$!
	local i
	for i in $(seq 1 1000); do
		grep -Eq "$ready" "$dir/server.log" 2>/dev/null && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.01
	done
	# "|| x=$?": a caller's set -e must not end us before the report.
	local crc=0 src=0
	MX_HOSTNAME=${CLIENT_HOST:-nodeB} MX_DPDK_ARGS="$base $pb" \
		ip netns exec "$nsb" timeout "$limit" "${cli[@]}" &
	cpid=$!
	wait $cpid || crc=$?
	wait $spid || src=$?
	spid= cpid=
	local trc=0
	[ -n "$tpid" ] && { _veth_tap_stop || trc=1; }
	if [ $src -ne 0 ] || [ $crc -ne 0 ]; then
		echo "veth_pair (${VETH_PMD:-af_packet}): server" \
			"exit $src, client exit $crc; server log:" >&2
		sed 's/^/  server: /' "$dir/server.log" >&2
	fi
	[ $src -eq 0 ] && [ $crc -eq 0 ] && [ $trc -eq 0 ]
)

# The capture (VETH_CAPTURE): mxtap in the server's namespace, sniffing
# its veth end.  Called inside veth_pair (its variables).
_veth_tap_start() {
	local i
	if [ ! -x "${VETH_MXTAP:-}" ]; then
		echo "veth_pair: VETH_CAPTURE needs VETH_MXTAP (tests/mxtap)" >&2
		return 1
	fi
	# Ring frames as _veth_port makes them, 4096 of them.
	local fs=2048 bs=4096
	if [ "$mtu" -gt 1500 ]; then
		fs=$(( (mtu + 14 + 66 + 15) / 16 * 16 ))
		bs=$fs
		while [ $((bs % 4096)) -ne 0 ]; do bs=$((bs + fs)); done
	fi
	rm -f "$VETH_CAPTURE" "$VETH_CAPTURE.tap"
	MX_DPDK_ARGS="$base --vdev=net_af_packet0,iface=$va,qpairs=1,\
framesz=$fs,blocksz=$bs,framecnt=4096 \
--vdev=net_pcap0,tx_pcap=$VETH_CAPTURE" \
		ip netns exec "$nsa" timeout "$limit" "$VETH_MXTAP" "$limit" \
		>"$dir/tap.log" 2>&1 &
	tpid=$!
	for i in $(seq 1 1000); do
		grep -q "mxtap: sniffing" "$dir/tap.log" 2>/dev/null && return 0
		kill -0 $tpid 2>/dev/null || break
		sleep 0.01
	done
	echo "veth_pair: mxtap did not start:" >&2
	sed 's/^/  mxtap: /' "$dir/tap.log" >&2
	return 1
}

_veth_tap_stop() {
	local rc=0
	kill -TERM $tpid 2>/dev/null
	wait $tpid || rc=$?
	tpid=
	grep "^mxtap: frames" "$dir/tap.log" >"$VETH_CAPTURE.tap"
	if [ $rc -ne 0 ] || [ ! -s "$VETH_CAPTURE.tap" ]; then
		echo "veth_pair: mxtap exit $rc:" >&2
		sed 's/^/  mxtap: /' "$dir/tap.log" >&2
		return 1
	fi
}
