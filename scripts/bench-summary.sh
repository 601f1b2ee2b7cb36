#!/usr/bin/env bash
# The performance table of the README in one run: every
# line against its baseline, measured by the benchmark scripts, each of
# which interleaves its own runs with DPDK's (or with the empty queue):
#
#   8-byte half round trip over memif       bench-latency.sh (0-1 KiB)
#   8-byte half round trip over af_packet   PORT=af_packet bench-latency.sh
#   8-byte message rate, window 64          bench-rate.sh
#   matching with DEPTH posted/unexpected   bench-matching.sh
#   1 MiB streamed, window 16, one buffer   WINDOW=16 DISTINCT=1
#     and a buffer per message                bench-bandwidth.sh (4 KiB-16 MiB)
#
# then scripts/plot.sh draws latency.png and bandwidth.png against message
# length, mx beside DPDK's frames.  Everything goes to OUT (docs/perf):
# summary.csv and summary.txt (the table), each script's full output
# (*.txt), latency.csv and bandwidth.csv (the plotted medians), the PNGs.
#
#   [ROUNDS=5] [OUT=docs/perf] [AF_PACKET=auto|0] scripts/bench-summary.sh
#
# The af_packet line needs root (two network namespaces and a veth pair,
# scripts/veth-pair.sh); without it, or with AF_PACKET=0, it is left out
# and the table says so.  About 10 minutes with ROUNDS=5.  Timings on a
# shared machine are noisy: run it on a quiet one (the ratios are medians
# of interleaved rounds, but a busy neighbour still moves them).
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} out=${OUT:-$top/docs/perf} afp=${AF_PACKET:-auto}
case $rounds in ''|*[!0-9]*|0) echo "ROUNDS: a positive number" >&2; exit 2 ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
export SUMMARY=$out/summary.csv
echo "measure,unit,mx,baseline,ratio,target,rounds" >"$SUMMARY"
"$top/scripts/build.sh" >/dev/null
start=$(date +%s)
step() {	# step <name> <output file> <script> : runs it with a progress line
	local name=$1 file=$2; shift 2
	echo "== $name ($(( $(date +%s) - start )) s so far; output in $file)" >&2
	"$@" | tee "$file"
}
# OUT is the benchmarks' own setting too: only those that write plot data
# get it.
unset OUT

ROUNDS=$rounds OUT=$out step "latency over memif" "$out/latency.txt" \
	"$top/scripts/bench-latency.sh"
if [ "$afp" = 0 ]; then
	echo "8-byte half round trip (af_packet),us,-,-,-,not run (AF_PACKET=0),0" \
		>>"$SUMMARY"
elif [ "$(id -u)" -ne 0 ]; then
	echo "8-byte half round trip (af_packet),us,-,-,-,not run (needs root),0" \
		>>"$SUMMARY"
else
	PORT=af_packet ROUNDS=$rounds ITERS=3000 END=8 step \
		"latency over af_packet on a veth pair" "$out/af_packet.txt" \
		"$top/scripts/bench-latency.sh"
fi
ROUNDS=$rounds step "message rate" "$out/rate.txt" "$top/scripts/bench-rate.sh"
ROUNDS=$rounds step "matching at depth" "$out/matching.txt" \
	"$top/scripts/bench-matching.sh"
ROUNDS=$rounds WINDOW=16 DISTINCT=1 PORTS=1 OUT=$out \
	SIZES="4096:200000 16384:100000 65536:20000 262144:5000 1048576:1500 16777216:96" \
	step "bandwidth, 4 KiB to 16 MiB" "$out/bandwidth.txt" \
	"$top/scripts/bench-bandwidth.sh"
echo "== plots" >&2
"$top/scripts/plot.sh" -o "$out" "$out/latency.csv" "$out/bandwidth.csv" >&2
rm -rf "$out/plot-data" "$out/plot.gp"	# plot.sh's working files

python3 - "$SUMMARY" "$rounds" <<'PY' | tee "$out/summary.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"mx-dpdk against DPDK itself on the same ports, medians of "
      f"{sys.argv[2]} interleaved rounds (scripts/bench-summary.sh)")
w = max(len(r["measure"]) for r in rows)
print(f"{'measured':<{w}} {'mx':>9} {'baseline':>9} {'unit':>5} "
      f"{'ratio':>6}  target")
for r in rows:
    print(f"{r['measure']:<{w}} {r['mx']:>9} {r['baseline']:>9} "
          f"{r['unit']:>5} {r['ratio']:>6}  {r['target']}")
print("baseline: dpdk_pingpong's frames (latency, rate, bandwidth) or the "
      "same latency with\nnothing queued (matching)")
PY
echo "bench-summary: done in $(( $(date +%s) - start )) s; $out" >&2
