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
# at the end the medians of those ratios, of all rounds and of the steady
# ones (raw frames alike before, between and after A and B) by the
# machine's state (fast: raw at least half the best steady raw).  Build
# the two trees first (e.g. git worktree add /tmp/old <commit>; meson
# setup + ninja there).
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
# Raw frames run before A, between A and B, and after B (the next round's
# first): a round is steady when its three raw figures agree within TOL
# (0.15), i.e. A and B ran in the same state of the machine as their
# baselines (this VM can swing between a fast and a slow state in seconds,
# and a ratio across a swing means nothing).  A/raw is against the mean of
# the raws around A, B/raw of those around B.
raw() { case $mode in bw) raw_bw ;; rate) raw_rate ;; *) raw_lat ;; esac; }
mx() {
	local b=$1; shift
	case $mode in bw) mx_bw "$b" "$@" ;; rate) mx_rate "$b" "$@" ;;
	*) mx_lat "$b" "$@" ;; esac
}
echo "# round raw A B ($unit)  A/raw B/raw B/A  steady  ($mode; options: ${*:-none})"
r2=
for i in $(seq 1 "${N:-9}"); do
	r0=${r2:-$(raw)}; a=$(mx "$A" "$@"); r1=$(raw); b=$(mx "$B" "$@")
	r2=$(raw)
	if [ -z "$r0" ] || [ -z "$r1" ] || [ -z "$r2" ] || [ -z "$a" ] ||
			[ -z "$b" ]; then
		echo "round $i: a run failed (raw '$r0' '$r1' '$r2' A '$a'" \
			"B '$b'), skipped"
		r2=
		continue
	fi
	awk -v i="$i" -v r0="$r0" -v r1="$r1" -v r2="$r2" -v a="$a" \
			-v b="$b" -v tol="${TOL:-0.15}" '
	function near(x, y) { return (x > y ? x - y : y - x) <= tol * (x > y ? x : y) }
	BEGIN {
		ra = (r0 + r1) / 2; rb = (r1 + r2) / 2
		printf "%d %s %s %s  %.3f %.3f %.3f  %s\n", i, r1, a, b,
			a / ra, b / rb, b / a,
			near(r0, r1) && near(r1, r2) ? "yes" : "no" }' |
		tee -a "$out"
done
awk -v lat="$([ "$mode" = lat ] && echo 1 || echo 0)" '
function med(u, n,   v, i, j, t) {	# of u[1..n], u left as it is
	for (i = 1; i <= n; i++)
		v[i] = u[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{
	n++; ar[n] = $5; br[n] = $6; ba[n] = $7
	st[n] = $8; sp[n] = lat ? 1 / $2 : $2
	if (st[n] == "yes" && sp[n] > top) top = sp[n]
}
END {
	if (n == 0) { print "no round completed"; exit 1 }
	printf "medians of %d rounds: A/raw %.3f  B/raw %.3f  B/A %.3f\n",
		n, med(ar, n), med(br, n), med(ba, n)
	# Steady rounds by state: fast when raw reached half the best
	# steady raw, slow below that.
	for (k = 0; k < 2; k++) {
		m = 0
		for (i = 1; i <= n; i++)
			if (st[i] == "yes" && (sp[i] >= top / 2) == !k) {
				m++; x[m] = ar[i]; y[m] = br[i]; z[m] = ba[i]
			}
		if (m > 0)
			printf "  steady %s rounds (%d): A/raw %.3f  B/raw %.3f  B/A %.3f\n",
				k ? "slow" : "fast", m, med(x, m), med(y, m),
				med(z, m)
		else
			printf "  steady %s rounds: none\n", k ? "slow" : "fast"
	}
}' "$out"
