#!/usr/bin/env bash
# Small-message latency: mx_pingpong against DPDK itself on the same kind of
# pair in the same run.  The baseline is tests/bench/dpdk_pingpong: its own
# EAL, mempool and bursts, one frame per message (the message's bytes after
# the Ethernet header, at least 60 bytes in all), nothing of mx-dpdk; what
# our pmd-glue costs is on mx's side of the ratio.
#
# The machine's speed drifts, so the programs are interleaved (dpdk, mx,
# dpdk, mx, ...) for ROUNDS rounds.  Per length it prints the median over
# rounds of each run's mean half round trip, and mx/dpdk: the median of each
# round's ratio (a pair of runs a second apart shares the machine's phase).
# The "med" columns do the same with each run's median round trip, which a
# round trip descheduled now and then does not move: on a busy machine
# compare those.  Both programs get the same warm-up, ITERS/10 + 1000 round trips per length.
# Asserts nothing.
#
#   [ROUNDS=5] [ITERS=5000] [END=1024] [PORT=memif|af_packet|pcap] [GLUE=1] \
#       [BLOCK=1] [OUT=dir] scripts/bench-latency.sh
#
# With OUT, the medians also go to OUT/latency.csv (tool,length,median_us:
# a row per length for dpdk_pingpong and mx_pingpong, the median over
# rounds of each run's per-iteration median) for scripts/plot.sh.
# With SUMMARY=file, the 8-byte line (mx, dpdk, ratio of the per-iteration
# medians, target) is appended to file as CSV (scripts/bench-summary.sh).
#
# PORT=memif (default): a net_memif pair (scripts/memif-pair.sh).
# PORT=af_packet: two network namespaces over a veth pair, net_af_packet on
# each end (scripts/veth-pair.sh; root).  PORT=pcap: the same with net_pcap
# (phy_mac=1; net_pcap delivers on a ~0.5 ms timer: use small ITERS).
# GLUE=1 adds tests/bench/raw_pingpong, the same frames sent through our
# pmd-glue, as a third program per round: the "glue" columns show what the
# glue alone costs over DPDK.  It is not the baseline.
# BLOCK=1 adds mx_pingpong -w (both sides block in mx_wait(MX_INFINITE)
# instead of polling with mx_test) as one more program per round: its
# columns are its per-iteration medians, against dpdk and against the
# polling mx_pingpong of the same round (what blocking costs beside
# polling).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} iters=${ITERS:-5000} end=${END:-1024}
port=${PORT:-memif} glue=${GLUE:-0} block=${BLOCK:-0}
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
. "$top/scripts/memif-pair.sh"
. "$top/scripts/veth-pair.sh"
case $port in
memif) pair=memif_pair ;;
af_packet) pair=veth_pair; export VETH_PMD=af_packet ;;
pcap) pair=veth_pair; export VETH_PMD=pcap VETH_ARGS=phy_mac=1 ;;
*) echo "PORT must be memif, af_packet or pcap" >&2; exit 2 ;;
esac
warm=$(( iters / 10 + 1000 ))
mxopts="--csv --no-progress -W $warm"
out=$(mktemp -d /tmp/mxd-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT

for r in $(seq 1 "$rounds"); do
	echo "round $r/$rounds ($port): dpdk_pingpong, mx_pingpong$(
		[ "$glue" = 1 ] && echo ", raw_pingpong (glue)")$(
		[ "$block" = 1 ] && echo ", mx_pingpong -w")" >&2
	$pair "pong ready" "$build/tests/dpdk_pingpong" pong -- \
		"$build/tests/dpdk_pingpong" ping -S 0 -E "$end" -N "$iters" \
		-W "$warm" >"$out/dpdk.$r"
	# shellcheck disable=SC2086
	$pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -- \
		"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E "$end" \
		-N "$iters" $mxopts >"$out/mx.$r"
	if [ "$glue" = 1 ]; then
		$pair "pong ready" "$build/tests/raw_pingpong" pong -- \
			"$build/tests/raw_pingpong" ping -S 0 -E "$end" \
			-N "$iters" >"$out/glue.$r"
	fi
	if [ "$block" = 1 ]; then
		# shellcheck disable=SC2086
		$pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -w -- \
			"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -w -S 0 \
			-E "$end" -N "$iters" $mxopts >"$out/block.$r"
	fi
done

[ -n "${OUT:-}" ] && mkdir -p "$OUT"
python3 - "$out" "$rounds" "$port" "$glue" "${OUT:-}" "$block" <<'PY'
import os, statistics as st, sys
out, rounds, port = sys.argv[1], int(sys.argv[2]), sys.argv[3]
glue, keep, block = sys.argv[4] == "1", sys.argv[5], sys.argv[6] == "1"
def table(kind, col):	# {length: [value per round]}
    per = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{kind}.{r}"):
            # CSV rows start with the tool's name, tables with the length
            f = line.replace(",", " ").split()
            if f[:1] and not f[0][0].isdigit() and f[0][0] != "#":
                f = f[1:]
            if len(f) > col and f[0].isdigit():
                per.setdefault(int(f[0]), []).append(float(f[col]))
    return per
dpdk, dmed = table("dpdk", 3), table("dpdk", 4)
mx, mmed = table("mx", 3), table("mx", 4)
gl = table("glue", 1) if glue else {}
bmed = table("block", 4) if block else {}
def paired(a, b):
    return st.median(x / y for x, y in zip(a, b))
def cols(a, b, n):	# median of b's runs, median of the paired ratios b/a
    if n not in b:
        return f" {'-':>9} {'-':>8}"
    return f" {st.median(b[n]):>9.3f} {paired(b[n], a[n]):>8.2f}"
print(f"{port}, half round trip in us, medians of {rounds} interleaved rounds")
print(f"{'':>8} {'--------- means ---------':>28}"
      f" {'--- per-iteration medians ---':>28}")
head = (f"{'length':>8} {'dpdk':>9} {'mx':>9} {'mx/dpdk':>8}"
        f" {'dpdk':>9} {'mx':>9} {'mx/dpdk':>8}")
if glue:
    head += f"  {'glue':>9} {'glue/dpdk':>9}"
if block:
    head += f"  {'blocking':>9} {'/dpdk':>6} {'/mx':>6}"
print(head)
for n in sorted(set(dpdk) & set(mx)):
    line = f"{n:>8} {st.median(dpdk[n]):>9.3f}" + cols(dpdk, mx, n)
    line += f" {st.median(dmed[n]):>9.3f}" + cols(dmed, mmed, n)
    if glue and n in gl:
        line += " " + cols(dpdk, gl, n)
    if block and n in bmed:
        line += (f"  {st.median(bmed[n]):>9.3f} {paired(bmed[n], dmed[n]):>6.2f}"
                 f" {paired(bmed[n], mmed[n]):>6.2f}")
    print(line)
print("(mx/dpdk: the median of each round's ratio; target: at most "
      "1.15.\n glue: raw_pingpong's mean, the same frames through our "
      "pmd-glue)" if glue else "(mx/dpdk: the median of each round's ratio; "
      "target: at most 1.15)")
if block:
    print("(blocking: mx_pingpong -w, per-iteration medians; /dpdk and /mx: "
          "the median of each round's ratio)")
summary = os.environ.get("SUMMARY")
if summary and 8 in mmed and 8 in dmed:
    with open(summary, "a") as f:
        f.write(f"8-byte half round trip ({port}),us,{st.median(mmed[8]):.3f},"
                f"{st.median(dmed[8]):.3f},{paired(mmed[8], dmed[8]):.2f},"
                f"<= 1.15,{rounds}\n")
if keep:
    rows = [f"{t},{n},{st.median(v[n]):.3f}" for n in sorted(set(dpdk) & set(mx))
            for t, v in (("dpdk_pingpong", dmed), ("mx_pingpong", mmed))]
    with open(f"{keep}/latency.csv", "w") as f:
        f.write("tool,length,median_us\n" + "\n".join(rows) + "\n")
    print(f"(also in {keep}/latency.csv: scripts/plot.sh {keep}/latency.csv)")
PY
