#!/usr/bin/env bash
# pingpong-memif.sh: 8-byte MPI latency over a memif pair beside our own
# mx_pingpong over a memif pair, interleaved (A B A B ...: the two share
# each phase of a noisy machine), and the ratio.  Run as root after
# scripts/mpich.sh build (it uses that cache).
#
#   mpich/pingpong-memif.sh [rounds]      (default 9; ITERS=10000)
#
# Each round: mpi_pingpong (2 ranks, MPIR_CVAR_NOLOCAL=1, the EAL arguments
# of scripts/mpich.sh), then mx_pingpong, with the same warm-up and timed
# round trips, both timed per round trip.  A row per round: mean and median
# half round trip of each (us).  Last lines: per column the median over
# rounds, and the medians over rounds of each round's two ratios.  On a
# shared machine a run's mean carries every preemption of either process
# (tens of us each): the median of each run is the steadier figure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${MXD_MPICH_CACHE:-$top/build-mpich}
rounds=${1:-9}
ITERS=${ITERS:-10000}
EAL="--no-huge -m 256 --no-shconf --no-pci --no-telemetry --log-level=error"
. "$top/scripts/memif-pair.sh"
[ -x "$cache/tests/mpi_pingpong" ] || { echo "no $cache/tests/mpi_pingpong: run scripts/mpich.sh build" >&2; exit 1; }
run=$(mktemp -d /tmp/mxmpi-pp.XXXXXX)
trap 'rm -rf "$run"' EXIT

mpi() {		# "mean median"
	rm -f "$run/memif.sock"
	MX_DPDK_ARGS="$EAL --vdev=net_memif0,role=%R,socket=$run/memif.sock,mac=02:00:00:00:00:%x" \
	MPIR_CVAR_NOLOCAL=1 timeout 300 "$cache/install/bin/mpiexec" -n 2 \
		"$cache/tests/mpi_pingpong" -S 8 -E 8 -N "$ITERS" 2>/dev/null |
		awk '$1 == 8 { print $2, $4 }'
}
mxpp() {	# "mean median"
	memif_pair "receiver on board" "$cache/mx/bin/mx_pingpong" -e 1 -- \
		"$cache/mx/bin/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 8 -E 8 \
		-N "$ITERS" -W $((ITERS / 10 + 1000)) --csv --no-progress 2>/dev/null |
		awk -F, '$1 == "mx_pingpong" { print $5, $6 }'
}

printf '%-6s %22s %22s\n' round "mpi mean / median" "mx_pingpong mean / median"
for r in $(seq 1 "$rounds"); do
	a=$(mpi) b=$(mxpp)
	[ -n "$a" ] && [ -n "$b" ] || { echo "round $r: a run failed" >&2; continue; }
	echo "$r $a $b" >>"$run/rows"
	printf '%-6s %10s / %-9s %10s / %-9s\n' "$r" $a $b
done
python3 - "$run/rows" <<'PY'
import statistics as s, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
if not rows:
    sys.exit("no round completed")
col = lambda i: s.median(r[i] for r in rows)
print("median %10.3f / %-9.3f %10.3f / %-9.3f" % tuple(col(i) for i in range(4)))
print("mpi/mx_pingpong over %d rounds: ratio of means %.3f, ratio of medians %.3f"
      % (len(rows), s.median(r[0] / r[2] for r in rows),
         s.median(r[1] / r[3] for r in rows)))
PY
