#!/usr/bin/env bash
# Plots benchmark output against message length with gnuplot: latency.png
# (half round-trip, microseconds) and bandwidth.png (MB/s), every series of
# every file beside the others, e.g. mx beside raw frames.
#
#   scripts/plot.sh [-o DIR] [--data-only] FILE...
#
# A FILE is one of:
#   * CSV with a header row naming its columns: mx_pingpong --csv and
#     mx_bw --csv write it, and so do the benchmarks with OUT=dir
#     (scripts/bench-latency.sh: latency.csv, scripts/bench-bandwidth.sh:
#     bandwidth.csv).  Needed: length; for latency median_us or mean_us,
#     for bandwidth mbps.  A series is a value of the tool column (with
#     mx_bw's mode when not one way, and ports when there is such a column),
#     or the file's name when there is no tool column.
#   * raw_pingpong's text output (tests/bench/raw_pingpong.c): "length
#     latency" rows are raw frames' latency; a "raw stream: N-byte frames,
#     X MB/s" line is raw frames' bandwidth, drawn as a level line.
# Length 0 has no place on a logarithmic axis and is left out.
#
# Writes DIR/latency.png and DIR/bandwidth.png (DIR: the current one), each
# only if some series has such figures; --data-only writes the data files
# and the gnuplot script (DIR/plot.gp) without running gnuplot.  gnuplot
# (Debian's gnuplot-nox) is installed on first use if it is missing.
set -eu
out=. data_only=0
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=${2:?-o wants a directory}; shift 2 ;;
	--data-only) data_only=1; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "plot.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: plot.sh [-o DIR] [--data-only] FILE..." >&2; exit 2; }
mkdir -p "$out"
data=$out/plot-data
rm -rf "$data"
mkdir -p "$data"

# Splits the files into one data file per series and figure:
# $data/lat.<n>.dat, $data/bw.<n>.dat ("length value" lines) and
# $data/bwlevel.<n>.dat (values), each with its title in <kind>.<n>.title.
for f in "$@"; do
	[ -r "$f" ] || { echo "plot.sh: cannot read $f" >&2; exit 1; }
done
awk -v data="$data" '
function series(kind, name,    k, file) {
	# The same series name in two files: the later one is told apart.
	if ((kind, name) in owner && owner[kind, name] != FILENAME)
		name = name " [" base "]"
	owner[kind, name] = FILENAME
	k = kind SUBSEP name
	if (!(k in id)) {
		id[k] = ++count[kind]
		file = data "/" kind "." id[k] ".title"
		print name > file
		close(file)
	}
	return data "/" kind "." id[k] ".dat"
}
function add(kind, name, x, y,    file) {
	if (x + 0 <= 0 || y == "")
		return
	file = series(kind, name)
	print x, y >> file
	close(file)
}
FNR == 1 {
	base = FILENAME
	sub(/.*\//, "", base)
	csv = 0
	delete col
	if ($0 ~ /,/ && $0 ~ /(^|,)length(,|$)/) {
		csv = 1
		n = split($0, h, ",")
		for (i = 1; i <= n; i++)
			col[h[i]] = i
		next
	}
}
csv {
	split($0, v, ",")
	name = ("tool" in col) ? v[col["tool"]] : base
	if ("mode" in col && v[col["mode"]] != "oneway")
		name = name " (" v[col["mode"]] ")"
	if ("ports" in col)
		name = name ", " v[col["ports"]] " port" \
			(v[col["ports"]] == 1 ? "" : "s")
	x = v[col["length"]]
	# mx_bw times per message in a stream: not a latency.
	if (name !~ /^mx_bw/) {
		if ("median_us" in col)
			add("lat", name, x, v[col["median_us"]])
		else if ("mean_us" in col)
			add("lat", name, x, v[col["mean_us"]])
	}
	if ("mbps" in col)
		add("bw", name, x, v[col["mbps"]])
	next
}
# raw_pingpong text: the stream line, or a latency table.
/^raw stream: / {
	for (i = 2; i <= NF; i++)
		if ($i == "MB/s") {
			file = series("bwlevel", "raw frames (stream)")
			print $(i - 1) >> file
			close(file)
		}
	next
}
NF == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ {
	add("lat", "raw frames", $1, $2)
}' "$@"

plots() {	# kind: the plot clauses of its series
	local kind=$1 sep= t
	for t in "$data"/"$kind".*.title; do
		[ -e "$t" ] || continue
		printf '%s"%s" using 1:2 with linespoints title "%s"' "$sep" \
			"${t%.title}.dat" "$(sed 's/"/\\"/g' "$t")"
		sep=", "
	done
}
levels() {	# raw stream levels as horizontal lines
	local sep=$1 t v
	for t in "$data"/bwlevel.*.title; do
		[ -e "$t" ] || continue
		v=$(sort -n "${t%.title}.dat" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
		printf '%s%s with lines dashtype 2 title "%s (median %s MB/s)"' \
			"$sep" "$v" "$(cat "$t")" "$v"
		sep=", "
	done
}

lat=$(plots lat)
bw=$(plots bw)
lvl=$(levels "${bw:+, }")
gp=$out/plot.gp
{
	echo "set terminal pngcairo size 960,640 noenhanced"
	echo "set logscale x 2"
	echo "set format x '%.0b%B'"
	echo "set xlabel 'message length (bytes)'"
	echo "set grid"
	echo "set key below"
	if [ -n "$lat" ]; then
		echo "set output '$out/latency.png'"
		echo "set title 'Half round-trip latency (median, or mean where no median is given)'"
		echo "set ylabel 'microseconds'"
		echo "set logscale y 10"
		echo "plot $lat"
		echo "unset logscale y"
	fi
	if [ -n "$bw$lvl" ]; then
		echo "set output '$out/bandwidth.png'"
		echo "set title 'Bandwidth'"
		echo "set ylabel 'MB/s'"
		echo "set yrange [0:*]"
		echo "plot $bw$lvl"
	fi
} >"$gp"
if [ -z "$lat$bw$lvl" ]; then
	echo "plot.sh: no figure found in $*" >&2
	exit 1
fi
if [ $data_only = 1 ]; then
	echo "data in $data, gnuplot script $gp"
	exit 0
fi

if ! command -v gnuplot >/dev/null; then
	echo "plot.sh: installing gnuplot (gnuplot-nox)" >&2
	SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q gnuplot-nox >&2
fi
gnuplot "$gp"
[ -n "$lat" ] && echo "$out/latency.png"
[ -n "$bw$lvl" ] && echo "$out/bandwidth.png"
exit 0
