#!/usr/bin/env bash
# The options of mx_pingpong and mx_bw, between two processes over memif:
# -N is exactly the timed iterations and -W the warm-up (the receiver counts
# what it echoed), the length steps (-I, -M, -L), blocking mode (-w), every
# byte checked (-V), CSV, the progress line, matching at depth (--posted,
# --unexpected), mx_bw's message rate (-R), and bad options refused.
# Asserts no time, only that figures are there.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: tools.sh <build-dir>}
. "$top/scripts/memif-pair.sh"
export MEMIF_PAIR_TIMEOUT=120
pp=$build/apps/mx_pingpong bw=$build/apps/mx_bw
dir=$(mktemp -d /tmp/mxd-tools.XXXXXX)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0

ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

# ping <args...>: a pingpong run; client output in $dir/out, stderr in
# $dir/err, the receiver's in $dir/srv.
ping() {
	MEMIF_PAIR_SERVER_LOG=$dir/srv memif_pair "receiver on board" \
		"$pp" -e 1 -- "$pp" -d nodeA:0 -r 1 -e 2 "$@" \
		>"$dir/out" 2>"$dir/err"
}
stream() {
	MEMIF_PAIR_SERVER_LOG=$dir/srv memif_pair "receiver on board" \
		"$bw" -e 1 -- "$bw" -d nodeA:0 -r 1 -e 2 "$@" \
		>"$dir/out" 2>"$dir/err"
}
# The first CSV column of every data row, joined by spaces.
csv_col() { awk -F, -v c="$1" 'NR > 1 { printf "%s%s", s, $c; s = " " }' "$dir/out"; }

# -N and -W exactly: 4 lengths x (7 + 3) round trips echoed, CSV rows with
# every figure.
if ping -S 0 -E 4 -N 7 -W 3 --csv &&
		grep -q "sender done, 40 messages echoed" "$dir/srv" &&
		[ "$(csv_col 2)" = "0 1 2 4" ] && [ "$(csv_col 3)" = "7 7 7 7" ] &&
		head -1 "$dir/out" | grep -q "^tool,length,iterations,warmup,mean_us,median_us,p99_us" &&
		[ "$(grep -cE '^mx_pingpong(,[0-9.]+){9}$' "$dir/out")" = 4 ]; then
	ok "mx_pingpong -N 7 -W 3: 40 round trips, CSV"
else
	bad "mx_pingpong -N 7 -W 3"; cat "$dir/out" "$dir/err" "$dir/srv"
fi

# -W 0: no warm-up at all.
if ping -S 8 -E 8 -N 5 -W 0 && grep -q "5 messages echoed" "$dir/srv"; then
	ok "mx_pingpong -W 0"
else
	bad "mx_pingpong -W 0"; cat "$dir/out" "$dir/err" "$dir/srv"
fi

# Length steps: arithmetic, geometric, from a file (in its order).
printf '# lengths\n5\n\n17\n1000\n3\n' >"$dir/lengths"
for c in "-S 0 -E 300 -I 100|0 100 200 300" "-S 1 -E 27 -M 3|1 3 9 27" \
		"-S 0 -E 10 -M 1.5|0 1 2 3 4 6 9" "-L $dir/lengths|5 17 1000 3"; do
	args=${c%%|*} want=${c##*|}
	# shellcheck disable=SC2086
	if ping $args -N 5 -W 1 --csv && [ "$(csv_col 2)" = "$want" ]; then
		ok "mx_pingpong $args: $want"
	else
		bad "mx_pingpong $args: want $want, got $(csv_col 2)"
		cat "$dir/err"
	fi
done

# Blocking mode, every byte checked, the table's columns.
if ping -S 0 -E 70000 -N 20 -w -V &&
		grep -q "blocking (mx_wait), every byte checked" "$dir/out" &&
		[ "$(grep -cE '^[0-9]+( +[0-9.]+){4}$' "$dir/out")" = 18 ]; then
	ok "mx_pingpong -w -V to 70000 bytes (rendezvous)"
else
	bad "mx_pingpong -w -V"; cat "$dir/out" "$dir/err" "$dir/srv"
fi

# Progress on stderr (from the start with --progress=0), never on stdout.
if ping -S 0 -E 0 -N 2000 --progress=0 &&
		grep -q "^mx_pingpong: length 0, iteration [0-9]* of 2000" "$dir/err" &&
		! grep -q "iteration [0-9]" "$dir/out"; then
	ok "mx_pingpong --progress=0"
else
	bad "mx_pingpong progress line"; cat "$dir/out" "$dir/err"
fi

# Matching at depth: receives of nothing posted and messages for nobody
# queued on both sides; every byte checked; the receiver got them all
# (it receives them at the end, and nothing else took one).
if ping -S 0 -E 100 -M 10 -N 20 -V --posted=300 --unexpected=300 &&
		grep -q "300 receives posted that match nothing, 300 unexpected" "$dir/out" &&
		[ "$(grep -cE '^[0-9]+( +[0-9.]+){4}$' "$dir/out")" = 4 ] &&
		grep -q "sender done" "$dir/srv"; then
	ok "mx_pingpong --posted=300 --unexpected=300 -V"
else
	bad "mx_pingpong --posted --unexpected"; cat "$dir/out" "$dir/err" "$dir/srv"
fi
"$pp" -d nodeA:0 --posted=1000001 >/dev/null 2>&1; [ $? = 2 ] &&
	ok "refused: mx_pingpong --posted=1000001" ||
	bad "mx_pingpong --posted=1000001 not refused"

# mx_bw: every byte of every message checked, one way and both ways,
# blocking, no warm-up; CSV columns.
if stream -S 0 -E 131072 -N 50 -Q 8 -V --csv &&
		[ "$(csv_col 3)" = "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536 131072" ] &&
		[ "$(grep -cE '^mx_bw,oneway(,[0-9.]+){10}$' "$dir/out")" = 19 ]; then
	ok "mx_bw -V one way"
else
	bad "mx_bw -V one way"; cat "$dir/out" "$dir/err" "$dir/srv"
fi
if stream -S 1000 -E 100000 -M 10 -N 40 -Q 4 -B -V -w -W 0 &&
		grep -q "both ways, window 4, 40 timed messages per length after 0 warm-up, a buffer each, blocking (mx_wait), every byte checked" "$dir/out" &&
		[ "$(grep -cE '^[0-9]+ +[0-9.]+ +[0-9]+( +[0-9.]+){3}$' "$dir/out")" = 3 ]; then
	ok "mx_bw -B -V -w -W 0"
else
	bad "mx_bw -B -V -w -W 0"; cat "$dir/out" "$dir/err" "$dir/srv"
fi

# Message rate: 8-byte messages, one row, the rate.
if stream -R -N 20000 -Q 64 --csv &&
		[ "$(csv_col 2)" = rate ] && [ "$(csv_col 3)" = 8 ] &&
		[ "$(csv_col 4)" = 20000 ] && [ "$(csv_col 9)" -gt 0 ]; then
	ok "mx_bw -R: $(csv_col 9) messages/s"
else
	bad "mx_bw -R"; cat "$dir/out" "$dir/err" "$dir/srv"
fi

# Mistakes are refused (exit 2) before anything starts.
for args in "-N 1k" "-N 0" "-S 9 -E 8" "-M 1" "-L /nonexistent" "-E 2000000000" "-s -d x:0" "extra"; do
	# shellcheck disable=SC2086
	"$pp" -d nodeA:0 $args >/dev/null 2>&1; rc=$?
	# shellcheck disable=SC2086
	"$bw" -d nodeA:0 $args >/dev/null 2>&1; rc2=$?
	if [ $rc = 2 ] && [ $rc2 = 2 ]; then
		ok "refused: $args"
	else
		bad "'$args': mx_pingpong exit $rc, mx_bw exit $rc2 (want 2)"
	fi
done
"$bw" -R -B >/dev/null 2>&1; [ $? = 2 ] && ok "refused: mx_bw -R -B" ||
	bad "mx_bw -R -B not refused"
"$bw" -Q 257 >/dev/null 2>&1; [ $? = 2 ] && ok "refused: mx_bw -Q 257" ||
	bad "mx_bw -Q 257 not refused"
for t in "$pp" "$bw"; do
	if "$t" -h | grep -q "^usage:" && "$t" --help >/dev/null; then
		ok "$(basename "$t") -h"
	else
		bad "$(basename "$t") -h"
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
