#!/usr/bin/env bash
# Message rate: mx_bw's 8-byte messages, WINDOW (64) sends outstanding, one
# way, against DPDK itself on the same kind of pair in the same run: 60-byte
# frames streamed in bursts of 32 by tests/bench/dpdk_pingpong (its own EAL,
# mempool and bursts, nothing of mx-dpdk), counted by the receiving side.
# Interleaved (dpdk, mx, dpdk, mx, ...) for ROUNDS rounds; prints each
# round, the medians, and mx/dpdk as the median of each round's ratio (a
# pair of runs a second apart shares the machine's phase).  Asserts nothing.
#
#   [ROUNDS=5] [SECS=1] [MSGS=1000000] [WINDOW=64] [PORT=memif|af_packet] \
#       scripts/bench-rate.sh
#
# dpdk: frames the sink counted over its time from first to last frame
# (memif's tx returns fewer when its ring is full and the streamer retries,
# so nothing is lost; af_packet may drop at the receiver, and the
# "received" column shows it).  mx: mx_bw's messages/s, MSGS messages.
# PORT=af_packet runs both over a veth pair between two network namespaces
# (scripts/veth-pair.sh; root).
#
# mx_bw's message-rate mode (-R, window -Q, --csv) is used when the mx_bw
# it finds has it (an older build may not), and otherwise the older
# interface for the same measurement (-S 8 -E 8, window -W, the messages/s
# column).
#
# With SUMMARY=file, the medians and the ratio are appended to file as a
# CSV line (scripts/bench-summary.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} secs=${SECS:-1} msgs=${MSGS:-1000000}
window=${WINDOW:-64} port=${PORT:-memif}
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
. "$top/scripts/memif-pair.sh"
. "$top/scripts/veth-pair.sh"
case $port in
memif) pair=memif_pair ;;
af_packet) pair=veth_pair; export VETH_PMD=af_packet ;;
*) echo "PORT must be memif or af_packet" >&2; exit 2 ;;
esac
if "$build/apps/mx_bw" -h 2>&1 | grep -q -- '-R '; then
	mxopts="-R -S 8 -Q $window -N $msgs --csv --no-progress"
else
	mxopts="-S 8 -E 8 -W $window -N $msgs"
fi
out=$(mktemp -d /tmp/mxd-rate.XXXXXX)
trap 'rm -rf "$out"' EXIT

for r in $(seq 1 "$rounds"); do
	echo "round $r/$rounds ($port): dpdk_pingpong stream, mx_bw" >&2
	$pair "sink ready" "$build/tests/dpdk_pingpong" sink -- \
		"$build/tests/dpdk_pingpong" stream -s 60 -b 32 -t "$secs" \
		>"$out/dpdk.$r"
	# shellcheck disable=SC2086
	$pair "receiver on board" "$build/apps/mx_bw" -e 1 -- \
		"$build/apps/mx_bw" -d nodeA:0 -r 1 -e 2 $mxopts >"$out/mx.$r"
done

python3 - "$out" "$rounds" "$port" "$window" <<'PY'
import os, statistics as st, sys
out, rounds, port, window = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def dpdk(r):	# rate,frame,sent,received,rx_secs,rx_fps,tx_fps
    for l in open(f"{out}/dpdk.{r}"):
        f = l.strip().split(",")
        if f[0] == "rate":
            return int(f[2]), int(f[3]), float(f[5])
    raise SystemExit(f"round {r}: no rate line from dpdk_pingpong")
def mx(r):	# mx_bw,rate,8,...,msgs_per_s (CSV) or "8 MB/s msgs/s" (table)
    for l in open(f"{out}/mx.{r}"):
        f = l.strip().split(",")
        if f[0] == "mx_bw" and f[2] == "8":
            return float(f[8])
        f = l.split()
        if len(f) >= 3 and f[0] == "8":
            return float(f[2])
    raise SystemExit(f"round {r}: no 8-byte row from mx_bw")
rows = [(dpdk(r), mx(r)) for r in range(1, rounds + 1)]
print(f"{port}: 60-byte frames (bursts of 32) vs 8-byte MX messages "
      f"({window} outstanding), {rounds} interleaved rounds")
print(f"{'round':>5} {'dpdk sent':>10} {'received':>10} {'dpdk fr/s':>11} "
      f"{'mx msg/s':>11} {'mx/dpdk':>8}")
for i, ((s, rcv, fps), m) in enumerate(rows, 1):
    print(f"{i:>5} {s:>10} {rcv:>10} {fps:>11.0f} {m:>11.0f} {m / fps:>8.2f}")
print(f"{'median':>5} {'':>10} {'':>10} {st.median(d[2] for d, _ in rows):>11.0f} "
      f"{st.median(m for _, m in rows):>11.0f} "
      f"{st.median(m / d[2] for d, m in rows):>8.2f}")
print("(target: mx/dpdk at least 0.5)")
if os.environ.get("SUMMARY"):
    with open(os.environ["SUMMARY"], "a") as f:
        f.write(f"8-byte message rate ({port}; window {window}),M/s,"
                f"{st.median(m for _, m in rows) / 1e6:.2f},"
                f"{st.median(d[2] for d, _ in rows) / 1e6:.2f},"
                f"{st.median(m / d[2] for d, m in rows):.2f},>= 0.5,{rounds}\n")
PY
