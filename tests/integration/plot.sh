#!/usr/bin/env bash
# scripts/plot.sh on real output: mx_pingpong --csv and mx_bw --csv over
# memif, raw_pingpong's latency table and stream line over memif.  The data
# it extracts is checked always; the PNGs only where gnuplot is installed
# (the test does not install it: plot.sh does when a person runs it).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: plot.sh <build-dir>}
. "$top/scripts/memif-pair.sh"
dir=$(mktemp -d /tmp/mxd-plot.XXXXXX)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
check() {
	local what=$1; shift
	if "$@"; then
		echo "ok: $what"; passed=$((passed + 1))
	else
		echo "FAIL: $what"; failed=$((failed + 1))
	fi
}
lines() { [ "$(wc -l <"$1")" = "$2" ]; }

memif_pair "receiver on board" "$build/apps/mx_pingpong" -e 1 -- \
	"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 0 -E 1024 -N 50 \
	--csv >"$dir/pp.csv" &&
memif_pair "receiver on board" "$build/apps/mx_bw" -e 1 -- \
	"$build/apps/mx_bw" -d nodeA:0 -r 1 -e 2 -S 1024 -E 65536 -N 50 \
	--csv >"$dir/bw.csv" &&
memif_pair "pong ready" "$build/tests/raw_pingpong" pong -- \
	"$build/tests/raw_pingpong" ping -S 0 -E 1024 -N 50 >"$dir/raw.txt" &&
memif_pair "sink ready" "$build/tests/raw_pingpong" sink -- \
	"$build/tests/raw_pingpong" stream -M 16 >"$dir/stream.txt"
check "benchmark output" [ $? = 0 ]

files="$dir/pp.csv $dir/bw.csv $dir/raw.txt $dir/stream.txt"
# shellcheck disable=SC2086
"$top/scripts/plot.sh" -o "$dir/out" --data-only $files >/dev/null
check "plot.sh --data-only" [ $? = 0 ]
d=$dir/out/plot-data
# Length 0 is left out of the logarithmic axis: 1 .. 1024 is 11 points.
check "mx_pingpong latency series" eval 'grep -qx mx_pingpong $d/lat.1.title && lines $d/lat.1.dat 11'
check "raw frames latency series" eval 'grep -qx "raw frames" $d/lat.2.title && lines $d/lat.2.dat 11'
check "bandwidth series" eval 'grep -qx mx_bw $d/bw.2.title && lines $d/bw.2.dat 7'
check "raw stream level" eval 'grep -q "raw frames (stream)" $d/bwlevel.1.title && lines $d/bwlevel.1.dat 1'
check "gnuplot script" eval 'grep -q "^plot .*lat.1.dat.*lat.2.dat" $dir/out/plot.gp && grep -q "^plot .*bw.2.dat.* with lines dashtype 2" $dir/out/plot.gp'
# The same tool in two files: two series, told apart.
cp "$dir/pp.csv" "$dir/pp2.csv"
"$top/scripts/plot.sh" -o "$dir/out2" --data-only "$dir/pp.csv" "$dir/pp2.csv" >/dev/null
check "one tool in two files" grep -qx "mx_pingpong \[pp2.csv\]" "$dir/out2/plot-data/lat.2.title"
"$top/scripts/plot.sh" -o "$dir/out3" --data-only /dev/null >/dev/null 2>&1
check "no figures: exit 1" [ $? = 1 ]

if command -v gnuplot >/dev/null; then
	# shellcheck disable=SC2086
	"$top/scripts/plot.sh" -o "$dir/out" $files >/dev/null
	png() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e47 ]; }
	check "PNGs" eval 'png "$dir/out/latency.png" && png "$dir/out/bandwidth.png"'
else
	echo "gnuplot is not installed: the PNGs are not drawn here"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
