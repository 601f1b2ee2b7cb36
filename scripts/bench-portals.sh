#!/usr/bin/env bash
# Portals against MX on the same engine, interleaved round by round over a
# fresh memif pair each run (as scripts/bench-ab.sh: the machine's speed
# drifts between runs, so only ratios within a round mean anything):
#
#   [BUILD=build] [N=7] [IT=5000] [CNT=1500] scripts/bench-portals.sh
#
# Each round runs, each on a pair of its own:
#   mx        mx_pingpong, 8 bytes, IT round trips: the median half
#             round trip (us)
#   put       ptl_pingpong, 8-byte puts: the median half round trip
#   get       ptl_pingpong -g, 8-byte gets: the median round trip
#   mx_bw     mx_bw, CNT messages of 1 MiB, window 16 (MB/s)
#   ptl_put   ptl_bw, CNT puts of 1 MiB, window 16 (MB/s)
#   ptl_get   ptl_bw -g, CNT gets of 1 MiB, window 16 (MB/s)
# and prints its figures and the four ratios the targets are set on:
#   put/mx           8-byte put half round trip over MX's     (<= 1.15)
#   get/2mx          8-byte get round trip over two of MX's   (<= 1.20)
#   ptl_put/mx_bw    1 MiB streaming puts over mx_bw          (>= 0.90)
#   ptl_get/mx_bw    1 MiB streaming gets over mx_bw          (>= 0.85)
# then the median of each figure and each ratio over the rounds, with
# whether the median meets its target.  A figure taken while the machine
# runs other work is not a result: look at the spread of the rounds, and
# take the figures on a quiet machine.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/memif-pair.sh"
B=${BUILD:-$top/build}
for t in apps/mx_pingpong apps/mx_bw apps/ptl_pingpong apps/ptl_bw; do
	[ -x "$B/$t" ] || { echo "bench-portals: $B/$t missing (build first)" >&2
		exit 1; }
done
it=${IT:-5000} cnt=${CNT:-1500} len=1048576
host=${SERVER_HOST:-nodeA}

mx_lat() {
	memif_pair "receiver on board" "$B/apps/mx_pingpong" -e 1 -- \
		"$B/apps/mx_pingpong" -d "$host:0" -r 1 -e 2 -S 8 -E 8 \
		-N "$it" -W 1500 --csv --no-progress 2>/dev/null |
		awk -F, '$1 == "mx_pingpong" {print $6}'
}
ptl_lat() {
	memif_pair "receiver on board" "$B/apps/ptl_pingpong" -- \
		"$B/apps/ptl_pingpong" -d "$host:0" -S 8 -E 8 -N "$it" -W 1500 \
		--csv --no-progress "$@" 2>/dev/null |
		awk -F, '$1 == "ptl_pingpong" {print $7}'
}
mx_bw() {
	memif_pair "receiver on board" "$B/apps/mx_bw" -e 1 -- \
		"$B/apps/mx_bw" -d "$host:0" -r 1 -e 2 -S $len -E $len \
		-N "$cnt" -Q 16 2>/dev/null | awk -v l=$len '$1 == l {print $2}'
}
ptl_bw() {
	memif_pair "receiver on board" "$B/apps/ptl_bw" -- \
		"$B/apps/ptl_bw" -d "$host:0" -S $len -E $len -N "$cnt" -Q 16 \
		--csv --no-progress "$@" 2>/dev/null |
		awk -F, '$1 == "ptl_bw" {print $8}'
}

out=$(mktemp /tmp/mxd-bench-portals.XXXXXX)
trap 'rm -f "$out"' EXIT
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# round  mx put get (us)  mx_bw ptl_put ptl_get (MB/s)  put/mx get/2mx ptl_put/mx_bw ptl_get/mx_bw"
for i in $(seq 1 "${N:-7}"); do
	m=$(mx_lat); p=$(ptl_lat); g=$(ptl_lat -g)
	bw=$(mx_bw); pb=$(ptl_bw); gb=$(ptl_bw -g)
	if [ -z "$m" ] || [ -z "$p" ] || [ -z "$g" ] || [ -z "$bw" ] ||
			[ -z "$pb" ] || [ -z "$gb" ]; then
		echo "round $i: a run failed (mx '$m' put '$p' get '$g' mx_bw" \
			"'$bw' ptl_put '$pb' ptl_get '$gb'), skipped"
		continue
	fi
	awk -v i="$i" -v m="$m" -v p="$p" -v g="$g" -v bw="$bw" -v pb="$pb" \
			-v gb="$gb" 'BEGIN {
		printf "%d  %s %s %s  %s %s %s  %.3f %.3f %.3f %.3f\n", i, m, p, g,
			bw, pb, gb, p / m, g / (2 * m), pb / bw, gb / bw }' |
		tee -a "$out"
done
awk '
function med(u, n,   v, i, j, t) {
	for (i = 1; i <= n; i++)
		v[i] = u[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function verdict(x, lim, up) { return (up ? x <= lim : x >= lim) ? "meets" : "misses" }
{ n++; for (k = 2; k <= 11; k++) f[k, n] = $k }
END {
	if (n == 0) { print "no round completed"; exit 1 }
	for (k = 2; k <= 11; k++) {
		for (i = 1; i <= n; i++) u[i] = f[k, i]
		md[k] = med(u, n)
	}
	printf "medians of %d rounds: mx %.3f us, put %.3f us, get %.3f us; " \
		"mx_bw %.1f, ptl_put %.1f, ptl_get %.1f MB/s\n", n, md[2], md[3],
		md[4], md[5], md[6], md[7]
	printf "  put/mx        %.3f (target <= 1.15: %s)\n", md[8], verdict(md[8], 1.15, 1)
	printf "  get/2mx       %.3f (target <= 1.20: %s)\n", md[9], verdict(md[9], 1.20, 1)
	printf "  ptl_put/mx_bw %.3f (target >= 0.90: %s)\n", md[10], verdict(md[10], 0.90, 0)
	printf "  ptl_get/mx_bw %.3f (target >= 0.85: %s)\n", md[11], verdict(md[11], 0.85, 0)
}' "$out"
