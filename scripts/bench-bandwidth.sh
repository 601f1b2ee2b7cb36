#!/usr/bin/env bash
# Streaming bandwidth: mx_bw beside DPDK itself streaming over the same
# kind of memif pair (or, PORT=af_packet, veth pair), in the same run,
# interleaved (raw, mx, raw, mx, ...) for ROUNDS rounds; prints each
# size's median MB/s and the median of the ratios of each mx run to the
# raw run just before it (this machine's speed drifts between phases; a
# pair a second apart shares its phase).
# Raw is tests/bench/dpdk_pingpong stream/sink (its own EAL, mempool and
# bursts, nothing of mx-dpdk: what our pmd-glue costs counts against mx):
# full-size frames in bursts of 32 for one second, the bytes after the
# Ethernet header of the frames the sink counted: the limit for any
# protocol on these ports.  Asserts nothing.
#
#   [ROUNDS=3] [WINDOW=32] [MTU=1500] [DISTINCT=1] [OUT=dir] \
#       [PORTS="1 2"] [SIZES="65536:20000 ..."] [PORT=memif|af_packet] \
#       scripts/bench-bandwidth.sh
#
# PORT=af_packet: both sides in network namespaces over a fresh veth pair,
# net_af_packet on each end (scripts/veth-pair.sh; root; one port only):
# a port whose wire (the kernel's) costs more than a copy, as a NIC's
# does, where memif's wire is itself a copy on the same CPUs.
#
# SIZES: length:count pairs, mx_bw's messages per run (about 1-2 GB a run
# by default: 65536:20000 1048576:1500 16777216:96); PORTS: the boards to
# run mx_bw on, of one memif pair and of two (1 2).
#
# mx_bw's messages in flight share one buffer per direction (as osu_bw).
# DISTINCT=1 also runs mx_bw -D after each of those runs: every message of
# the window has buffers of its own (as Myricom's mx_stream), so the data
# comes from and goes to memory beyond the caches; its columns are against
# the same raw run.  Target for -D: at least 0.8 at 1 MiB, window 16
# (WINDOW=16 DISTINCT=1).  DISTINCT=1 also streams raw frames that carry
# program buffers (dpdk_pingpong stream -D / sink -D: each side copies
# every frame's bytes from or into 16 buffers of 1 MiB, and does nothing
# else): the simplest transport of a buffer per message, its rate beside
# raw frames' ("ceiling"), and -D's against it; and a plain stream into
# a sink that copies each frame's bytes into its 16 buffers, by plain
# stores (sink -D) and by non-temporal ones (sink -Z): a sender that
# copies nothing, a receiver that does the least a delivery can, the most
# any transport of a buffer per message could make of these ports ("best
# case").
#
# With OUT, the medians also go to OUT/bandwidth.csv (tool,ports,length,
# mbps: mx_bw per ports and length, DPDK's frames per length of the mx run
# it was paired with; mx_bw -D's too) for scripts/plot.sh.  With
# SUMMARY=file, the 1 MiB lines of one port (shared buffer, and -D with
# DISTINCT=1) are appended to file as CSV (scripts/bench-summary.sh).
#
# MTU above 2034 (jumbo frames, e.g. MTU=9000) gives both raw and mx_bw
# that MTU (MX_MTU) over memif buffers large enough to hold a frame whole
# (bsize), with 4095 mbufs a port.
#
# mx_bw runs on one port and on a board of two memif pairs (striped);
# raw streams one port: the ratio for two ports is against one port's limit.
# A round takes about 20 s.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3} window=${WINDOW:-32} mtu=${MTU:-1500}
distinct=${DISTINCT:-0} port=${PORT:-memif}
case $port in
memif) pair=memif_pair ;;
af_packet) pair=veth_pair; export VETH_PMD=af_packet VETH_MTU=$mtu
	PORTS=1 ;;
*) echo "PORT must be memif or af_packet" >&2; exit 2 ;;
esac
if [ "$port" = memif ] && [ "$mtu" -gt 2034 ]; then
	export MX_MTU=$mtu MX_MBUFS=4095
	export MEMIF_ARGS=bsize=$(( (mtu + 14 + 1023) / 1024 * 1024 ))
fi
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
. "$top/scripts/memif-pair.sh"
. "$top/scripts/veth-pair.sh"
out=$(mktemp -d /tmp/mxd-bw.XXXXXX)
trap 'rm -rf "$out"' EXIT
sizes=${SIZES:-"65536:20000 1048576:1500 16777216:96"}
for sc in $sizes; do
	case $sc in
	*[!0-9:]*|:*|*:|*:*:*|[!0-9]*) echo "SIZES: length:count pairs, not '$sc'" >&2; exit 2 ;;
	*:*) ;;
	*) echo "SIZES: length:count pairs, not '$sc'" >&2; exit 2 ;;
	esac
done
portset=${PORTS:-"1 2"}
for p in $portset; do
	case $p in 1|2) ;; *) echo "PORTS: 1 and/or 2, not '$p'" >&2; exit 2 ;; esac
done

for r in $(seq 1 "$rounds"); do
	echo "round $r/$rounds" >&2
	for ports in $portset; do
		for sc in $sizes; do
			$pair "sink ready" "$build/tests/dpdk_pingpong" \
				sink -- "$build/tests/dpdk_pingpong" stream \
				-s $((mtu + 14)) -b 32 -t 1 |
				sed "s/^/$ports ${sc%%:*} /" >>"$out/raw"
			# shellcheck disable=SC2086
			MEMIF_PORTS=$ports $pair "receiver on board" \
				"$build/apps/mx_bw" -e 1 -- \
				"$build/apps/mx_bw" -d nodeA:0 -r 1 -e 2 \
				-S "${sc%%:*}" -E "${sc%%:*}" -N "${sc##*:}" \
				-Q "$window" | sed "s/^/$ports /" >>"$out/mx"
			[ "$distinct" = 1 ] || continue
			MEMIF_PORTS=$ports $pair "receiver on board" \
				"$build/apps/mx_bw" -e 1 -- \
				"$build/apps/mx_bw" -d nodeA:0 -r 1 -e 2 \
				-S "${sc%%:*}" -E "${sc%%:*}" -N "${sc##*:}" \
				-Q "$window" -D | sed "s/^/$ports /" >>"$out/mxd"
			[ "$ports" = 1 ] || continue
			$pair "sink ready" "$build/tests/dpdk_pingpong" \
				sink -D -- "$build/tests/dpdk_pingpong" stream \
				-s $((mtu + 14)) -b 32 -t 1 -D |
				sed "s/^/$ports ${sc%%:*} /" >>"$out/rawd"
			for z in D Z; do
				$pair "sink ready" \
					"$build/tests/dpdk_pingpong" sink -$z -- \
					"$build/tests/dpdk_pingpong" stream \
					-s $((mtu + 14)) -b 32 -t 1 |
					sed "s/^/$ports ${sc%%:*} /" >>"$out/sink$z"
			done
		done
	done
done

[ -n "${OUT:-}" ] && mkdir -p "$OUT"
python3 - "$out" "${OUT:-}" <<'PY'
import os, statistics, sys
out, keep = sys.argv[1], sys.argv[2]
raw, mx, mxd, rawd, sinkD, sinkZ = {}, {}, {}, {}, {}, {}
# ports size rate,frame,sent,received,s,rx_fps,tx_fps; raw frames count
# the bytes after the Ethernet header, those with -D the program's bytes
# they carry (after dpdk_pingpong's 36-byte header).
for name, into, hdr in (("raw", raw, 14), ("rawd", rawd, 36),
                        ("sinkD", sinkD, 36), ("sinkZ", sinkZ, 36)):
    if not os.path.exists(f"{out}/{name}"):
        continue
    for l in open(f"{out}/{name}"):
        f = l.split()
        if len(f) == 3 and f[2].startswith("rate,"):
            c = f[2].split(",")
            mbps = float(c[5]) * (int(c[1]) - hdr) / 1e6
            into.setdefault((int(f[0]), int(f[1])), []).append(mbps)
for name, into in (("mx", mx), ("mxd", mxd)):
    if not os.path.exists(f"{out}/{name}"):
        continue
    for l in open(f"{out}/{name}"):
        f = l.split()
        # ports, then mx_bw's row: length MB/s messages/s mean median p99
        if len(f) == 7 and f[1].isdigit():
            into.setdefault((int(f[0]), int(f[1])), []).append(float(f[2]))
allraw = [v for k in raw for v in raw[k]]
print(f"port {os.environ.get('PORT', 'memif')}, MTU {os.environ.get('MTU', '1500')}")
print(f"raw DPDK frames (dpdk_pingpong), one port: {statistics.median(allraw):.0f} MB/s "
      f"(median of {len(allraw)}, from {min(allraw):.0f} to {max(allraw):.0f})")
def ratios(v, k):
    r = [m / b for m, b in zip(v[k], raw.get(k, []))]
    return r, f"{statistics.median(r):>7.2f}" if r else f"{'-':>7}"
head = f"{'ports':>5} {'length':>10} {'mx MB/s':>9} {'mx/raw':>7}"
if mxd:
    head += f" {'-D MB/s':>9} {'-D/raw':>7}"
print(head + "  ratios" + (" (shared | -D)" if mxd else ""))
for k in sorted(mx):
    r, med = ratios(mx, k)
    line = f"{k[0]:>5} {k[1]:>10} {statistics.median(mx[k]):>9.0f} {med}"
    rd = []
    if k in mxd:
        rd, medd = ratios(mxd, k)
        line += f" {statistics.median(mxd[k]):>9.0f} {medd}"
    print(line + "  " + " ".join(f"{x:.2f}" for x in r)
          + (" | " + " ".join(f"{x:.2f}" for x in rd) if rd else ""))
def against(label, v):
    """A reference's rate, over raw frames and under mx_bw -D, per length."""
    for k in sorted(v):
        c = [d / b for d, b in zip(v[k], raw.get(k, []))]
        m = [x / d for x, d in zip(mxd.get(k, []), v[k])]
        print(f"{label % k[1]} {statistics.median(v[k]):.0f} MB/s, "
              f"{statistics.median(c):.2f} of raw ({' '.join(f'{x:.2f}' for x in c)}); "
              f"-D against it {statistics.median(m):.2f} "
              f"({' '.join(f'{x:.2f}' for x in m)})")
against("ceiling, %d: raw frames carrying program buffers", rawd)
for name, v in (("plain", sinkD), ("non-temporal", sinkZ)):
    against(f"best case, %d, {name} stores: a sender that copies nothing, "
            "a receiver that only writes each byte into place", v)
summary = os.environ.get("SUMMARY")
for k in sorted(mx) if summary else []:
    if k != (1, 1048576):
        continue
    w = os.environ.get("WINDOW", "32")
    rb = statistics.median(raw[k])
    with open(summary, "a") as f:
        for name, v in (("one buffer", mx), ("a buffer per message", mxd)):
            if k in v:
                f.write(f"1 MiB streamed (memif; window {w}; {name}),MB/s,"
                        f"{statistics.median(v[k]):.0f},{rb:.0f},"
                        f"{statistics.median(ratios(v, k)[0]):.2f},"
                        f"{'>= 0.8' if v is mxd else '-'},"
                        f"{len(v[k])}\n")
if keep:
    rows = [f"mx_bw,{k[0]},{k[1]},{statistics.median(mx[k]):.1f}" for k in sorted(mx)]
    rows += [f"mx_bw -D,{k[0]},{k[1]},{statistics.median(mxd[k]):.1f}"
             for k in sorted(mxd)]
    rows += [f"dpdk_pingpong,1,{k[1]},{statistics.median(raw[k]):.1f}"
             for k in sorted(raw) if k[0] == 1]
    with open(f"{keep}/bandwidth.csv", "w") as f:
        f.write("tool,ports,length,mbps\n" + "\n".join(rows) + "\n")
    print(f"(also in {keep}/bandwidth.csv: scripts/plot.sh {keep}/bandwidth.csv)")
PY
