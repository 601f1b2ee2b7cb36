#!/usr/bin/env bash
# Small-message latency: mx_pingpong beside raw DPDK frames ping-ponged over
# the same kind of memif pair, in the same run.  The machine's speed drifts,
# so the two are interleaved (raw, mx, raw, mx, ...) for ROUNDS rounds and
# each size's median is compared.  Prints the ratio mx/raw; asserts nothing.
#
#   scripts/bench-latency.sh [ROUNDS=5] [ITERS=5000] [END=1024] [OUT=dir]
#
# With OUT, the medians also go to OUT/latency.csv (tool,length,median_us,
# a row per size for raw_pingpong and mx_pingpong) for scripts/plot.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} iters=${ITERS:-5000} end=${END:-1024}
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
. "$top/scripts/memif-pair.sh"
out=$(mktemp -d /tmp/mxd-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT

for r in $(seq 1 "$rounds"); do
	echo "round $r/$rounds: raw frames, then mx_pingpong" >&2
	memif_pair "pong ready" "$build/tests/raw_pingpong" pong -- \
		"$build/tests/raw_pingpong" ping -S 0 -E "$end" -N "$iters" \
		>"$out/raw.$r"
	# The same warm-up as raw_pingpong's.
	memif_pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -- \
		"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E "$end" \
		-N "$iters" -W $((iters / 10 + 1000)) >"$out/mx.$r"
done

[ -n "${OUT:-}" ] && mkdir -p "$OUT"
python3 - "$out" "$rounds" "${OUT:-}" <<'PY'
import statistics, sys
out, rounds, keep = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(kind):
    per = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{kind}.{r}"):
            f = line.split()
            if len(f) >= 2 and f[0].isdigit():
                per.setdefault(int(f[0]), []).append(float(f[1]))
    return per
raw, mx = load("raw"), load("mx")
print(f"{'length':>8} {'raw us':>9} {'mx us':>9} {'mx/raw':>7}   (medians of {rounds} interleaved rounds)")
rows = []
for n in sorted(set(raw) & set(mx)):
    a, b = statistics.median(raw[n]), statistics.median(mx[n])
    print(f"{n:>8} {a:>9.3f} {b:>9.3f} {b / a:>7.2f}")
    rows += [f"raw_pingpong,{n},{a:.3f}", f"mx_pingpong,{n},{b:.3f}"]
if keep:
    with open(f"{keep}/latency.csv", "w") as f:
        f.write("tool,length,median_us\n" + "\n".join(rows) + "\n")
    print(f"(also in {keep}/latency.csv: scripts/plot.sh {keep}/latency.csv)")
PY
