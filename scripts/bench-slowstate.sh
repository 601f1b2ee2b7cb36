#!/usr/bin/env bash
# A buffer per message in the VM's slow state (target: mx_bw -D at least
# 0.8 of raw frames): mx_bw -D (1 MiB messages, window 16, a buffer per
# message) against raw DPDK frames, in the state where memif's own copy
# into its ring is the limit (raw frames at a few GB/s, not the 15-22 GB/s
# of the fast state, where copies in a shared cache cost as much as
# memif's and no transport that fills program buffers comes near raw
# frames: README, "What any transport could reach").
#
# The state flips within seconds, so the script hunts for it: a 0.5 s raw
# probe every loop; when the probe reads below SLOW_MB (MB/s), at once the
# reference (dpdk_pingpong stream -D / sink -D: raw frames carrying the
# same program buffers, copies on both sides, no protocol), mx_bw -D and a
# second raw probe; also the best case (a plain stream into dpdk_pingpong
# sink -Z: a sender that copies nothing, a receiver that only writes each
# byte into place).  A round counts when both probes read slow (the state
# held through it).  Prints each round and the medians of the counted
# ones: mx_bw -D over raw frames (the mean of the two probes) and over the
# reference.  Asserts nothing.
#
#   [ROUNDS=8] [SECS=420] [SLOW_MB=4000] [BUILD=build] scripts/bench-slowstate.sh
#
# Stops after ROUNDS counted rounds or SECS seconds, whichever comes first;
# a quiet machine is needed (other load is a state of its own).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/memif-pair.sh
. scripts/memif-pair.sh

build=${BUILD:-build}
rounds=${ROUNDS:-8} secs=${SECS:-420} slow=${SLOW_MB:-4000}
for t in apps/mx_bw tests/dpdk_pingpong; do
	[ -x "$build/$t" ] || { echo "bench-slowstate: $build/$t missing (build first)" >&2; exit 1; }
done
pp=$build/tests/dpdk_pingpong

# Raw frames (payload MB/s after the Ethernet header), 0.5 s; $1: -D.
raw() {
	memif_pair "sink ready" "$pp" sink ${1:+"$1"} -- "$pp" stream \
		-s 1514 -b 32 -t 0.5 ${1:+"$1"} 2>/dev/null |
		awk -F, -v h="${1:+36}" '/^rate/{printf "%.0f", $6 * (1514 - (h ? h : 14)) / 1e6}'
}
# The best case (a plain stream into a sink that copies each frame's bytes
# into 16 program buffers by non-temporal stores: a sender that copies
# nothing), 0.5 s.
best() {
	memif_pair "sink ready" "$pp" sink -Z -- "$pp" stream -s 1514 -b 32 \
		-t 0.5 2>/dev/null |
		awk -F, '/^rate/{printf "%.0f", $6 * (1514 - 36) / 1e6}'
}
mxd() {
	memif_pair "receiver on board" "$build/apps/mx_bw" -e 1 -- \
		"$build/apps/mx_bw" -d nodeA:0 -r 1 -e 2 -S 1048576 -E 1048576 \
		-N 1500 -Q 16 -D 2>/dev/null | awk '$1 == 1048576 {printf "%.0f", $2}'
}

end=$((SECONDS + secs)) got=0 probes=0
res=$(mktemp)
trap 'rm -f "$res"' EXIT
echo "hunting the slow state (a 0.5 s raw probe below $slow MB/s); up to $rounds rounds, $secs s" >&2
while [ "$got" -lt "$rounds" ] && [ "$SECONDS" -lt "$end" ]; do
	a=$(raw)
	probes=$((probes + 1))
	[ "${a:-0}" -gt 0 ] || { echo "bench-slowstate: raw probe failed" >&2; exit 1; }
	if [ "$a" -ge "$slow" ]; then
		[ $((probes % 20)) = 0 ] && echo "  $probes probes, $got rounds, ${SECONDS}s" >&2
		continue
	fi
	ref=$(raw -D)
	bc=$(best)
	m=$(mxd)
	z=$(raw)
	if [ "${z:-0}" -lt "$slow" ] && [ "${m:-0}" -gt 0 ]; then
		got=$((got + 1))
		tag=counted
		echo "$a $z $ref $m $bc" >>"$res"
	else
		tag="state changed"
	fi
	echo "raw $a ref $ref best $bc mx_bw -D $m raw $z  ($tag)"
done
python3 - "$res" "$probes" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
if not rows:
    print(f"no slow round in {sys.argv[2]} probes: the state did not come up")
    sys.exit(0)
mx = [m / ((a + z) / 2) for a, z, ref, m, bc in rows]
rf = [ref / ((a + z) / 2) for a, z, ref, m, bc in rows]
bf = [bc / ((a + z) / 2) for a, z, ref, m, bc in rows]
mr = [m / ref for a, z, ref, m, bc in rows]
f = lambda v: " ".join(f"{x:.2f}" for x in v)
print(f"slow state, {len(rows)} rounds (raw {statistics.median([(r[0]+r[1])/2 for r in rows]):.0f} MB/s):")
print(f"  mx_bw -D / raw frames   {statistics.median(mx):.2f}  ({f(mx)})")
print(f"  reference / raw frames  {statistics.median(rf):.2f}  ({f(rf)})")
print(f"  best case / raw frames  {statistics.median(bf):.2f}  ({f(bf)})")
print(f"  mx_bw -D / reference    {statistics.median(mr):.2f}")
PY
