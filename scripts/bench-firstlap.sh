#!/usr/bin/env bash
# The first lap, measured: the runs tests/integration/
# firstlap.sh checks, more of them, optionally beside another build.
# Each run is a fresh memif pair without warm-up, each process on a CPU
# of its own (taskset), all with tests/integration/myri_pingpong.c:
#
#   pp-poll    ping-pong 1 KiB then 2 KiB, 2000 round trips each, both
#              sides polling (-p)
#   pp-block   the same, both sides in mx_wait
#   bw-200     200 messages of 1 MiB streamed one way, 16 in flight, a
#              buffer each (-s 16, as mx_stream)
#   bw-1500    the same, 1500 messages
#   bw-lap     the same, 1500 messages, the first 200 timed too (-F 200):
#              their time per message over that of all 1500, in one run
#              (tests/integration/firstlap.sh judges this one, against
#              raw frames' own first lap)
#
#   [ROUNDS=5] [BEFORE=build-dir] scripts/bench-firstlap.sh
#
# Prints a line per run: its figures (ping-pong: the two lengths' average
# half round trips in us and their ratio; stream: MB/s) and the largest
# share, in percent, of a length's time during which the two processes
# waited for a CPU that other programs held (myri_pingpong -v, from both
# sides' schedstat).  Then, per build and kind, the medians over all runs
# and over the quiet ones (that share at most QUIET percent, 10): the
# ping-pong ratio, the stream's 1500/200-message ratio of median MB/s,
# and the median first lap of bw-lap.  BEFORE names the build directory of another commit (whose
# tests/myri_pingpong takes -l, -p and -s): its runs are interleaved with
# this tree's (A B A B) in every round; its myri_pingpong must take -F
# for bw-lap (77d051f on).  Asserts nothing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} quiet=${QUIET:-10}
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
before=${BEFORE:-}
. "$top/scripts/memif-pair.sh"
out=$(mktemp -d /tmp/mxd-bench-firstlap.XXXXXX)
trap 'rm -rf "$out"' EXIT
# Names of our own: another pair on this host may be called nodeA/nodeB.
export SERVER_HOST=flA$$ CLIENT_HOST=flB$$
builds="after"
[ -n "$before" ] && builds="before after"
spin=() cpin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	cpus=($(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
		awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' |
		head -2))
	[ ${#cpus[@]} -ge 2 ] &&
		spin=(taskset -c "${cpus[0]}") cpin=(taskset -c "${cpus[1]}")
fi

# run <build dir> <kind> <file>: "first second ratio others" (ping-pong;
# bw-lap: the first 200's and all 1500's us per message) or "mbps - -
# others" (stream), or nothing.
run() {
	local b=$1 k=$2 f=$3 opt
	case $k in
	pp-poll) opt="-l 1024,2048 -N 2000 -p" ;;
	pp-block) opt="-l 1024,2048 -N 2000" ;;
	bw-lap) opt="-l 1048576 -N 1500 -s 16 -F 200" ;;
	bw-*) opt="-l 1048576 -N ${k#bw-} -s 16" ;;
	esac
	memif_pair "receiver ready" "${spin[@]}" "$b/tests/myri_pingpong" \
		-e 1 -- "${cpin[@]}" "$b/tests/myri_pingpong" \
		-d "$SERVER_HOST:0" -r 1 -e 2 -W 0 -P 0 -z 0 -A 100000 -v $opt \
		>"$f" 2>&1 || true
	awk '/^[0-9]+ .*others held the CPU/ {
			len[++n] = $1; avg[n] = $2
			b = $(NF - 3) * 100 / $NF
			if (b > busy) busy = b }
		/^first [0-9]+ / { first = $3 }
		END { if (n == 1 && first != "") printf "%s %s %.3f %d\n",
				first, avg[1], first / avg[1], busy
			else if (n == 2) printf "%s %s %.2f %d\n", avg[1], avg[2],
				avg[1] / avg[2], busy
			else if (n == 1) printf "%.1f - - %d\n",
				len[1] / avg[1], busy }' "$f"
}

printf '%-5s %-6s %-9s %10s %10s %6s %7s\n' round build run "1KiB|MB/s" \
	2KiB ratio others%
for r in $(seq 1 "$rounds"); do
	kinds="pp-poll pp-block bw-200 bw-1500 bw-lap"
	[ $((r % 2)) -eq 0 ] && kinds="bw-lap bw-1500 bw-200 pp-block pp-poll"
	for k in $kinds; do
		for which in $builds; do
			b=$build
			[ "$which" = before ] && b=$before
			v=$(run "$b" "$k" "$out/run")
			if [ -z "$v" ]; then
				cp "$out/run" "$out/failed.$r.$which.$k"
				v="- - - 999"
			fi
			read -r a c d others <<<"$v"
			printf '%-5s %-6s %-9s %10s %10s %6s %7s\n' "$r" \
				"$which" "$k" "$a" "$c" "$d" "$others"
			[ "$d" = - ] && d=$a
			echo "$which $k $others $d" >>"$out/all"
		done
	done
done

# median over the values of stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# ratio <short> <long>: long / short, or "-"
ratio() {
	if [ "$1" = - ] || [ "$2" = - ]; then
		echo -
	else
		awk "BEGIN { printf \"%.2f\", $2 / $1 }"
	fi
}
# figures <build> <kind> <max others>
figures() {
	awk -v w="$1" -v k="$2" -v q="$3" \
		'$1 == w && $2 == k && $3 <= q && $4 != "-" { print $4 }' "$out/all"
}
for f in "$out"/failed.*; do
	[ -e "$f" ] || continue
	echo "${f##*/failed.}: no figure; its output:"
	sed 's/^/    /' "$f"
done
echo
echo "medians: all runs / quiet runs (others held the CPUs at most $quiet%)"
printf '%-6s %-22s %14s %14s\n' build figure all quiet
for which in $builds; do
	for k in pp-poll pp-block; do
		printf '%-6s %-22s %14s %14s\n' "$which" "$k 1KiB/2KiB" \
			"$(figures "$which" "$k" 100 | median)" \
			"$(figures "$which" "$k" "$quiet" | median) ($(figures \
				"$which" "$k" "$quiet" | wc -l))"
	done
	sa=$(figures "$which" bw-200 100 | median)
	la=$(figures "$which" bw-1500 100 | median)
	sq=$(figures "$which" bw-200 "$quiet" | median)
	lq=$(figures "$which" bw-1500 "$quiet" | median)
	printf '%-6s %-22s %14s %14s\n' "$which" "bw-200 MB/s" "$sa" "$sq"
	printf '%-6s %-22s %14s %14s\n' "$which" "bw-1500 MB/s" "$la" "$lq"
	printf '%-6s %-22s %14s %14s\n' "$which" "bw 1500/200" \
		"$(ratio "$sa" "$la")" "$(ratio "$sq" "$lq")"
	printf '%-6s %-22s %14s %14s\n' "$which" "bw-lap first 200/all" \
		"$(figures "$which" bw-lap 100 | median)" \
		"$(figures "$which" bw-lap "$quiet" | median) ($(figures \
			"$which" bw-lap "$quiet" | wc -l))"
done
