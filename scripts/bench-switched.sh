#!/usr/bin/env bash
# A shared board's switched port (a port that is not memif, which the
# board service drives and switches for its processes) beside the same
# port owned by one process, in one run, interleaved round by round:
# two "hosts" on this machine joined by a veth pair, each end an
# af_packet port, and
#
#   exclusive  each host one MX process owning its end (MX_DPDK_ARGS)
#   switched   each host a board service owning its end, one MX process
#              on its board (MX_BOARD_SHARED=1), every frame through both
#              services
#
# measured with mx_pingpong (8 bytes, the median half round trip) and
# mx_bw (64 KiB messages, MB/s), the two processes pinned to the first
# two CPUs this shell may use, the services where the scheduler puts
# them.  Per figure the median over rounds, and each ratio as the median
# of the rounds' own ratios.  With fewer than four CPUs the services and
# the processes share them: the switched figures are then what the
# scheduler gives, not what the switch costs (say so beside them).
# Asserts nothing.  Needs root (the veth pair); skipped (77) otherwise.
#
#   [ROUNDS=3] [ITERS=20000] [MSGS=3000] [BUILD=dir] scripts/bench-switched.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3} iters=${ITERS:-20000} msgs=${MSGS:-3000}
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
	echo "bench-switched: needs root and iproute2's ip (a veth pair)" >&2
	exit 77
fi
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
. "$top/scripts/memif-pair.sh"		# two_cpus
two_cpus
if [ ${#cpus[@]} -lt 2 ]; then
	echo "bench-switched: needs two CPUs to pin the two processes to" >&2
	exit 77
fi
ca=${cpus[0]} cb=${cpus[1]}
export PATH=$build/service:$build/apps:$PATH
out=$(mktemp -d /tmp/mxd-bench-switched.XXXXXX)
va=mxw$$a vb=mxw$$b ha=bswa$$ hb=bswb$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	MX_HOSTNAME=$ha mx_board stop -f >/dev/null 2>&1 || true
	MX_HOSTNAME=$hb mx_board stop -f >/dev/null 2>&1 || true
	ip link del "$va" 2>/dev/null || true
	rm -rf "$out" "/tmp/mx-board.$ha.log" "/tmp/mx-board.$hb.log"
}
trap cleanup EXIT
# Indexes apart in bit 14: af_packet's fanout group is getpid() ^ ifindex
# (DPDK 22.11), and the two services' must differ.
idx=$(( 20000 + ($$ % 1000) * 4 + 2 ))
ip link add "$va" index "$idx" type veth peer name "$vb" index $(( idx ^ 16384 )) \
	2>/dev/null || ip link add "$va" type veth peer name "$vb"
ip link set "$va" address 02:5e:00:00:00:0a
ip link set "$vb" address 02:5e:00:00:00:0b
for v in "$va" "$vb"; do
	sysctl -qw "net.ipv6.conf.$v.disable_ipv6=1" 2>/dev/null || true
	ip link set "$v" up
done
eal="--no-huge -m 256 --no-shconf --no-pci --log-level=error"
args_a="$eal --vdev=net_af_packet0,iface=$va,framecnt=4096"
args_b="$eal --vdev=net_af_packet0,iface=$vb,framecnt=4096"

# side HOST ARGS CPU TOOL...: one MX process of HOST, its board shared
# (ARGS empty) or its own port
side() {
	local host=$1 args=$2 cpu=$3
	shift 3
	if [ -z "$args" ]; then
		MX_HOSTNAME=$host MX_BOARD_SHARED=1 timeout 120 \
			taskset -c "$cpu" "$@"
	else
		MX_HOSTNAME=$host MX_DPDK_ARGS=$args timeout 120 \
			taskset -c "$cpu" "$@"
	fi
}

# run MODE TOOL ARGS...: the receiver on host B, the sender on host A
run() {
	local mode=$1 tool=$2 spid a=$args_a b=$args_b
	shift 2
	if [ "$mode" = switched ]; then
		MX_HOSTNAME=$ha MX_DPDK_ARGS=$args_a mx_board start >/dev/null
		MX_HOSTNAME=$hb MX_DPDK_ARGS=$args_b mx_board start >/dev/null
		a= b=
	fi
	side "$hb" "$b" "$cb" "$tool" >"$out/server.log" 2>&1 &
	spid=$!
	pids+=("$spid")
	for _ in $(seq 1 500); do
		grep -q "receiver on board" "$out/server.log" 2>/dev/null && break
		sleep 0.01
	done
	side "$ha" "$a" "$ca" "$tool" -d "$hb:0" --no-progress "$@" ||
		cat "$out/server.log" >&2
	wait "$spid" || true
	if [ "$mode" = switched ]; then
		MX_HOSTNAME=$ha mx_board stop -f >/dev/null
		MX_HOSTNAME=$hb mx_board stop -f >/dev/null
	fi
}

for r in $(seq 1 "$rounds"); do
	echo "round $r/$rounds" >&2
	for m in exclusive switched; do
		run "$m" mx_pingpong -S 8 -E 8 -N "$iters" |
			awk '$1 == 8 { print $3 }' >"$out/lat.$m.$r"
		run "$m" mx_bw -S 65536 -E 65536 -N "$msgs" |
			awk '$1 == 65536 { print $2 }' >"$out/bw.$m.$r"
	done
done

median() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
fig() { cat "$out/$1".*  2>/dev/null | median; }
ratio() {	# the median of the rounds' own ratios $1 / $2
	for r in $(seq 1 "$rounds"); do
		paste "$out/$1.$r" "$out/$2.$r" 2>/dev/null |
			awk '$1 > 0 && $2 > 0 { print $1 / $2 }'
	done | median | awk '{ printf "%.3g\n", $1 }'
}
echo "CPUs: $(nproc) (the processes on $ca and $cb; with fewer than" \
	"four the services share them)"
printf '%-34s %10s %10s %8s\n' "" exclusive switched ratio
printf '%-34s %10s %10s %8s\n' "8-byte half round trip (us)" \
	"$(fig lat.exclusive)" "$(fig lat.switched)" \
	"$(ratio lat.switched lat.exclusive)"
printf '%-34s %10s %10s %8s\n' "64 KiB messages (MB/s)" \
	"$(fig bw.exclusive)" "$(fig bw.switched)" \
	"$(ratio bw.switched bw.exclusive)"
