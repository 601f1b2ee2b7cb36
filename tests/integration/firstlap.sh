#!/usr/bin/env bash
# The first lap (issue 19, item 5): a run's first length costs no more
# than the next, and a short stream runs as fast as a long one.  Each run
# is a fresh memif pair with no warm-up, as Myricom's tools run; all are
# tests/integration/myri_pingpong.c (written as Myricom's programs are):
#
#   pp-poll    ping-pong, 1 KiB then 2 KiB, 2000 round trips each, both
#              sides polling (mx_test)
#   pp-block   the same, both sides in mx_wait
#   bw-200     200 messages of 1 MiB streamed one way, 16 in flight, each
#              from and into a buffer of its own (as mx_stream); and
#              just before or after it, the baseline: the same bytes in
#              raw frames that carry program buffers (tests/bench/
#              dpdk_pingpong stream -D / sink -D: each frame's bytes
#              copied from and into 16 buffers of 1 MiB, no protocol)
#   bw-1500    the same, 1500 messages
#
#   firstlap.sh <build-dir>
#
# The two processes of a run are given a CPU each (taskset), as
# myri_pingpong.sh's "apart" run.  Rounds of the four runs, interleaved,
# in the other order every other round (this machine drifts 2-4x between
# phases).  A run that measured
# the machine rather than MX is not counted: one during which (during
# either length, for a ping-pong) the two processes waited for a CPU that
# other programs held more than BUSY_PCT percent (10) of the time
# (myri_pingpong -v measures it with /proc/thread-self/schedstat on both
# sides), or a ping-pong whose 2 KiB average exceeds BUSY_US (10 us;
# about 2 on a quiet machine).  Runs go on while the test has run less
# than BUDGET seconds (30; a round of four, with the baselines, takes
# 4-8 s on a quiet machine): ROUNDS rounds (3), then, up to MAX_ROUNDS
# (8), rounds of the kinds that have fewer than MIN_RUNS (2) counted
# runs or whose check fails on the runs so far (the two stream kinds
# together).  Each of the
# three checks with enough counted runs is judged: it fails when the
# median of a ping-pong mode's ratio (1 KiB average / 2 KiB average of
# the same run) exceeds PP_MAX (1.5), or when the stream's ratio exceeds
# BW_MAX (1.2): issue 19's targets.  The stream's ratio is that of the
# medians of MX's share of its baseline (MX's MB/s over the raw frames'
# of the same round), 1500 messages over 200: in this VM's fast state
# raw frames themselves run a 200 MiB stream at down to 1/1.25 of a
# 1500 MiB one, which is the machine's, not MX's; and the VM swings
# between states within seconds, which a share of a baseline taken
# beside it survives better than a bare MB/s.  Each figure is printed
# too.  Exit 1 if a judged check failed, else 77 (with the
# reason) if one could not be judged, else 0.  Before memif's shared
# memory was prefaulted the ping-pong ratios were about 5.
set -u
build=${1:?usage: firstlap.sh <build-dir>}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/memif-pair.sh"
export MEMIF_PAIR_TIMEOUT=${MEMIF_PAIR_TIMEOUT:-60}
# Distinct names: other tests' processes on this host may be nodeA/nodeB.
export SERVER_HOST=firstA CLIENT_HOST=firstB
rounds=${ROUNDS:-3} max_rounds=${MAX_ROUNDS:-8} budget=${BUDGET:-30}
min_runs=${MIN_RUNS:-2}
pp_max=${PP_MAX:-1.5} bw_max=${BW_MAX:-1.2}
busy_us=${BUSY_US:-10} busy_pct=${BUSY_PCT:-10}
prog=$build/tests/myri_pingpong raw=$build/tests/dpdk_pingpong
for p in "$prog" "$raw"; do
	[ -x "$p" ] || { echo "SKIP: $p not built"; exit 77; }
done
out=$(mktemp -d /tmp/mxd-firstlap.XXXXXX)
trap 'rm -rf "$out"' EXIT

# Each process on a CPU of its own when two can be had (the kernel may
# otherwise put both on one, which halves a stream and makes every round
# trip a context switch): the first two CPUs this script may run on.
spin=() cpin=()
two_cpus
if [ ${#cpus[@]} -ge 2 ]; then
	spin=(taskset -c "${cpus[0]}") cpin=(taskset -c "${cpus[1]}")
fi

# measure <file> <myri_pingpong options...>: for each length "length
# average" (us: half round trip, or per message streamed), then the
# largest share (percent) of a length's time during which other programs
# held the CPU the two processes waited for; or nothing.
measure() {
	local f=$1
	shift
	memif_pair "receiver ready" "${spin[@]}" "$prog" -e 1 -- \
		"${cpin[@]}" "$prog" -d firstA:0 -r 1 -e 2 -W 0 -P 0 -z 0 \
		-A 100000 -v "$@" >"$f" 2>&1
	awk '/^[0-9]+ .*others held the CPU/ {
			printf "%s %s ", $1, $2
			b = $(NF - 3) * 100 / $NF
			if (b > busy) busy = b; n++ }
		END { if (n) printf "%d\n", busy }' "$f"
}

# measure_raw <file> <MiB>: MB/s of raw frames carrying that many MiB
# of program buffers (1500 bytes a frame), or nothing.
measure_raw() {
	memif_pair "sink ready" "${spin[@]}" "$raw" sink -D -- \
		"${cpin[@]}" "$raw" stream -s 1514 -b 32 -D \
		-n $(($2 * 1048576 / 1500)) -t 10 >"$1" 2>&1
	awk -F, '/^rate,/ && $6 > 0 { printf "%.1f\n", $6 * 1500 / 1e6 }' "$1"
}

# one run of a kind in round r: "first second busy" (ping-pong: the two
# averages, us; stream: MX's MB/s and the baseline's, taken first in
# even rounds), or nothing
run_kind() {
	local v w=
	case $1 in
	pp-poll) v=$(measure "$2" -l 1024,2048 -N 2000 -p) ;;
	pp-block) v=$(measure "$2" -l 1024,2048 -N 2000) ;;
	bw-*)	[ $(($3 % 2)) -eq 0 ] && w=$(measure_raw "$2.raw" "${1#bw-}")
		v=$(measure "$2" -l 1048576 -N "${1#bw-}" -s 16)
		[ $(($3 % 2)) -eq 1 ] && w=$(measure_raw "$2.raw" "${1#bw-}")
		[ -n "$w" ] || { cat "$2.raw" >>"$2"; return; } ;;
	esac
	set -- $v
	case $# in
	5) echo "$2 $4 $5" ;;
	3) awk "BEGIN { printf \"%.1f %s %s\\n\", $1 / $2, $w, $3 }" ;;
	esac
}

median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
gt() { awk "BEGIN { exit !($1 > $2) }"; }

declare -A runs		# kind -> counted figures ("first/second" or MB/s)
declare -A nskip	# kind -> number of runs not counted
start=$(date +%s)
printf '%-5s %-9s %10s %10s %7s %7s\n' round run "1st|MB/s" 2nd ratio others%
# one <kind> <round>: runs it, prints its line, counts it or not.
one() {
	local k=$1 r=$2 f=$out/$1.$2 v a b others ratio= why=
	v=$(run_kind "$k" "$f" "$r")
	if [ -z "$v" ]; then
		echo "FAIL: $k (round $r) gave no figure:"
		sed 's/^/    /' "$f"
		exit 1
	fi
	read -r a b others <<<"$v"
	ratio=$(awk "BEGIN { printf \"%.3f\", $a / $b }")
	printf '%-5s %-9s %10s %10s %7s %7s' "$r" "$k" "$a" "$b" "$ratio" \
		"$others"
	if [ "$others" -gt "$busy_pct" ]; then
		why="others kept the CPUs busy"
	elif [ "${k%%-*}" = pp ] && gt "$b" "$busy_us"; then
		why="the 2 KiB average is over $busy_us us"
	fi
	if [ -n "$why" ]; then
		echo "  (not counted: $why)"
		nskip[$k]=$((${nskip[$k]:-0} + 1))
	else
		echo
		runs[$k]+="$a/$b "
	fi
}

kinds=(pp-poll pp-block bw-200 bw-1500)
counted() { set -- ${runs[$1]:-}; echo $#; }
# med_ratio <kind>: the median of its counted runs' first/second (a
# ping-pong's 1 KiB average over its 2 KiB one; a stream's share of its
# baseline)
med_ratio() {
	local fs ratios=()
	for fs in ${runs[$1]}; do
		ratios+=("$(awk "BEGIN { print ${fs%/*} / ${fs#*/} }")")
	done
	median "${ratios[@]}"
}
# the stream's ratio: bw-1500's median share over bw-200's
bw_ratio() {
	awk "BEGIN { printf \"%.3f\", $(med_ratio bw-1500) / $(med_ratio bw-200) }"
}
# Whether kind $1's check would fail on the runs counted so far: such a
# kind gets more rounds (up to MAX_ROUNDS, within BUDGET) before it is
# judged, so that one slow run of a loaded machine does not decide.
over() {
	case $1 in
	bw-*)	[ "$(counted bw-200)" -ge 1 ] && [ "$(counted bw-1500)" -ge 1 ] &&
			gt "$(bw_ratio)" "$bw_max" ;;
	pp-*)	[ "$(counted "$1")" -ge 1 ] && gt "$(med_ratio "$1")" "$pp_max" ;;
	esac
}
for ((r = 1; r <= max_rounds; r++)); do
	order=("${kinds[@]}")
	[ $((r % 2)) -eq 0 ] && order=(bw-1500 bw-200 pp-block pp-poll)
	if [ "$r" -gt "$rounds" ]; then	# only the kinds still short
		short=()
		for k in "${order[@]}"; do
			if [ "$(counted "$k")" -lt "$min_runs" ] || over "$k"; then
				short+=("$k")
			fi
		done
		[ ${#short[@]} -eq 0 ] && break
		order=("${short[@]}")
	fi
	for k in "${order[@]}"; do
		[ "$r" -gt 1 ] && [ $(($(date +%s) - start)) -ge "$budget" ] &&
			break 2
		one "$k" "$r"
	done
done

# how many runs of kind $1 were counted, of how many
tally() { echo "$(counted "$1") of $((${nskip[$1]:-0} + $(counted "$1")))"; }
fails=0 unjudged=()
for k in pp-poll pp-block; do
	if [ "$(counted "$k")" -lt "$min_runs" ]; then
		unjudged+=("$k ($(tally "$k") runs counted)")
		continue
	fi
	m=$(med_ratio "$k")
	echo "$k: median ratio of the first length to the second $m" \
		"(at most $pp_max; $(tally "$k") runs counted)"
	if gt "$m" "$pp_max"; then
		echo "FAIL: $k: the first length of a run costs ${m}x the second"
		fails=$((fails + 1))
	fi
done
if [ "$(counted bw-200)" -lt "$min_runs" ] ||
		[ "$(counted bw-1500)" -lt "$min_runs" ]; then
	unjudged+=("stream ($(tally bw-200) and $(tally bw-1500) runs counted)")
else
	for k in bw-200 bw-1500; do
		mx=() base=()
		for fs in ${runs[$k]}; do
			mx+=("${fs%/*}") base+=("${fs#*/}")
		done
		echo "stream ${k#bw-}: median MB/s $(median "${mx[@]}"), raw" \
			"frames $(median "${base[@]}"); median share" \
			"$(med_ratio "$k") ($(tally "$k") runs counted)"
	done
	m=$(bw_ratio)
	echo "stream: the 1500-message share over the 200-message one $m" \
		"(at most $bw_max)"
	if gt "$m" "$bw_max"; then
		echo "FAIL: a 200-message stream runs at 1/$m of a" \
			"1500-message one, against raw frames of the same length"
		fails=$((fails + 1))
	fi
fi
[ $fails -ne 0 ] && exit 1
if [ ${#unjudged[@]} -ne 0 ]; then
	echo "SKIP: the machine is too busy to judge (other programs held" \
		"the CPUs, or slow runs): ${unjudged[*]}"
	exit 77
fi
echo PASS
