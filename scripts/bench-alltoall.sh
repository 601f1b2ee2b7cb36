#!/usr/bin/env bash
# All-to-all among P processes of this host (tests/bench/mx_alltoall): each
# rank a partner of every other, joined by a full mesh of memif pairs (one
# pair per two ranks; each rank's board is all its ports, MX_BOARDS=0+1+..,
# and reaches each peer by the port of their pair: naming learns which).
# P is the number of CPUs this shell may use unless given; each rank is
# pinned to one of them in turn.  Rank 0 prints its CSV line: ranks,
# bytes, rounds, microseconds per round (median, mean), messages and MB
# received per second per rank.  Not a test: a timed run, for a quiet
# machine.
#
#   [BUILD=dir] [P=ranks] [S=bytes] [N=rounds] [W=warm-up] scripts/bench-alltoall.sh
#
# P is at most 9 (a board has 8 ports).  Each process gets MX_HOSTNAME
# a2a<rank>; the memif sockets live in a fresh directory under /tmp.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
exe=$build/tests/mx_alltoall
[ -x "$exe" ] || { echo "bench-alltoall: $exe is missing (build first)" >&2; exit 1; }

cpus=()
if command -v taskset >/dev/null; then
	list=$(taskset -pc $$ | sed 's/.*: //')
	for part in ${list//,/ }; do
		for ((c = ${part%-*}; c <= ${part#*-}; c++)); do cpus+=("$c"); done
	done
fi
P=${P:-${#cpus[@]}}
[ "$P" -ge 2 ] || P=2
[ "$P" -le 9 ] || { echo "bench-alltoall: P=$P: at most 9 (8 ports a board)" >&2; exit 1; }
S=${S:-8} N=${N:-10000} W=${W:-1000}
eal=${MEMIF_EAL:---no-huge -m 256 --no-shconf}
dir=$(mktemp -d /tmp/mxd-a2a.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

# Rank r's ports, one per other rank j in order: server of the pair when
# r < j (it starts first), client when r > j.
for ((r = 0; r < P; r++)); do
	vdevs= k=0 boards=
	for ((j = 0; j < P; j++)); do
		[ "$j" -eq "$r" ] && continue
		lo=$((r < j ? r : j)) hi=$((r < j ? j : r))
		role=$([ "$r" -lt "$j" ] && echo server || echo client)
		mac=$(printf '02:00:a2:a0:%02x:%02x' "$r" "$k")
		vdevs="$vdevs --vdev=net_memif$k,role=$role,socket=$dir/$lo-$hi.sock,mac=$mac"
		boards=${boards:+$boards+}$k
		k=$((k + 1))
	done
	[ "$k" -gt 1 ] || boards=
	pin=()
	[ ${#cpus[@]} -gt 0 ] && pin=(taskset -c "${cpus[$((r % ${#cpus[@]}))]}")
	MX_HOSTNAME=a2a$r MX_BOARDS=$boards \
	MX_DPDK_ARGS="$eal --no-pci --file-prefix=a2a$r-$$$vdevs" \
		timeout "${A2A_TIMEOUT:-300}" "${pin[@]}" "$exe" -r "$r" -n "$P" \
		-S "$S" -N "$N" -W "$W" >"$dir/rank$r.log" 2>&1 &
	pids+=($!)
	for ((i = 0; i < 1000; i++)); do
		grep -q "a2a ready" "$dir/rank$r.log" 2>/dev/null && break
		kill -0 "${pids[$r]}" 2>/dev/null || break
		sleep 0.01
	done
done
fail=0
for ((r = 0; r < P; r++)); do
	if ! wait "${pids[$r]}"; then
		echo "bench-alltoall: rank $r failed:" >&2
		sed 's/^/  /' "$dir/rank$r.log" >&2
		fail=1
	fi
done
pids=()
grep -E '^(ranks|mx_alltoall),' "$dir/rank0.log" || fail=1
exit $fail
