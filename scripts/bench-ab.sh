#!/usr/bin/env bash
# Two builds of mx-dpdk against each other and against raw DPDK frames,
# interleaved round by round over a fresh memif pair each run (the way the
# README's before/after figures are taken: the machine's speed drifts
# between runs, so only ratios within a round mean anything).
#
#   A=old/build B=new/build [N=9] scripts/bench-ab.sh bw  [mx_bw options]
#   A=old/build B=new/build [N=9] scripts/bench-ab.sh lat [mx_pingpong options]
#   A=old/build B=new/build [N=9] scripts/bench-ab.sh rate [mx_bw options]
#
# bw: per round raw full-size frames (dpdk_pingpong stream, 1 s), then A
#     and B streaming LEN-byte messages (1048576), CNT of them (1500),
#     window 16, with the options given (e.g. -D: a buffer per message).
# lat: per round dpdk_pingpong's 60-byte ping-pong, then A's and B's
#     mx_pingpong, 8 bytes, IT iterations (5000); per-iteration medians.
# rate: per round 60-byte frames streamed (frames/s received, 1 s), then
#     A's and B's mx_bw -R: 8-byte messages, window 64, MSGS (1000000).
# Prints each round's figures, A and B against raw and B against A, and
# at the end the medians of those ratios.  Build the two trees first
# (e.g. git worktree add /tmp/old <commit>; meson setup + ninja there).
# SERVER_HOST and CLIENT_HOST (memif-pair.sh) rename the two sides, for a
# run beside other pairs of this host (the test suite's use nodeA/nodeB).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/memif-pair.sh"
mode=${1:-}
[ $# -gt 0 ] && shift
A=${A:?A=build dir of the first build}
B=${B:?B=build dir of the second build}
for b in "$A" "$B"; do
	for t in apps/mx_bw apps/mx_pingpong tests/dpdk_pingpong; do
		[ -x "$b/$t" ] || { echo "bench-ab: $b/$t missing" >&2; exit 1; }
	done
done
len=${LEN:-1048576} cnt=${CNT:-1500} it=${IT:-5000}

# Frames of $1 bytes streamed one way for 1 s: frames/s received.
raw_stream() {
	memif_pair "sink ready" "$A/tests/dpdk_pingpong" sink -- \
		"$A/tests/dpdk_pingpong" stream -s "$1" -b 32 -t 1 2>/dev/null |
		awk -F, '/^rate/{print $6}'
}
raw_bw() { raw_stream 1514 | awk '{printf "%.0f", $1 * 1500 / 1e6}'; }
raw_rate() { raw_stream 60; }
# mx_bw of build $1 to the pair's receiver, with the options that follow.
mx_bw_pair() {
	local b=$1; shift
	memif_pair "receiver on board" "$b/apps/mx_bw" -e 1 -- "$b/apps/mx_bw" \
		-d "${SERVER_HOST:-nodeA}:0" -r 1 -e 2 "$@" 2>/dev/null
}
mx_bw() {
	local b=$1; shift
	mx_bw_pair "$b" -S "$len" -E "$len" -N "$cnt" -Q 16 "$@" |
		awk -v l="$len" '$1 == l {print $2}'
}
mx_rate() {
	local b=$1; shift
	mx_bw_pair "$b" -R -S 8 -Q 64 -N "${MSGS:-1000000}" --csv \
		--no-progress "$@" | awk -F, '$1 == "mx_bw" && $3 == 8 {print $9}'
}
raw_lat() {
	memif_pair "pong ready" "$A/tests/dpdk_pingpong" pong -- \
		"$A/tests/dpdk_pingpong" ping -S 8 -E 8 -N "$it" -W 1500 \
		2>/dev/null | awk -F, '$1 == "pingpong" {print $6}'
}
mx_lat() {
	local b=$1; shift
	memif_pair "receiver on board" "$b/apps/mx_pingpong" -e 1 -- \
		"$b/apps/mx_pingpong" -d "${SERVER_HOST:-nodeA}:0" -r 1 -e 2 -S 8 -E 8 -N "$it" \
		-W 1500 --csv --no-progress "$@" 2>/dev/null |
		awk -F, '$1 == "mx_pingpong" {print $6}'
}

case $mode in
bw) unit="MB/s" ;;
lat) unit="us" ;;
rate) unit="per s" ;;
*) echo "usage: A=dir B=dir scripts/bench-ab.sh bw|lat|rate [options]" >&2
   exit 2 ;;
esac
out=$(mktemp /tmp/mxd-ab.XXXXXX)
trap 'rm -f "$out"' EXIT
echo "# round raw A B ($unit)  A/raw B/raw B/A   ($mode; options: ${*:-none})"
for i in $(seq 1 "${N:-9}"); do
	if [ "$mode" = bw ]; then
		r=$(raw_bw); a=$(mx_bw "$A" "$@"); b=$(mx_bw "$B" "$@")
	elif [ "$mode" = rate ]; then
		r=$(raw_rate); a=$(mx_rate "$A" "$@"); b=$(mx_rate "$B" "$@")
	else
		r=$(raw_lat); a=$(mx_lat "$A" "$@"); b=$(mx_lat "$B" "$@")
	fi
	if [ -z "$r" ] || [ -z "$a" ] || [ -z "$b" ]; then
		echo "round $i: a run failed (raw '$r' A '$a' B '$b'), skipped"
		continue
	fi
	awk -v i="$i" -v r="$r" -v a="$a" -v b="$b" 'BEGIN {
		printf "%d %s %s %s  %.3f %.3f %.3f\n", i, r, a, b,
			a / r, b / r, b / a }' | tee -a "$out"
done
awk '
function med(v, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{ n++; ar[n] = $5; br[n] = $6; ba[n] = $7 }
END {
	if (n == 0) { print "no round completed"; exit 1 }
	printf "medians of %d rounds: A/raw %.3f  B/raw %.3f  B/A %.3f\n",
		n, med(ar, n), med(br, n), med(ba, n)
}' "$out"
