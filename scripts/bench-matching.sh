#!/usr/bin/env bash
# Matching at depth: the 8-byte half round trip of mx_pingpong over a
# net_memif pair with nothing queued, with DEPTH receives posted on each
# side that no message matches (--posted), and with DEPTH unexpected
# messages queued on each side (--unexpected); each against the
# empty-queue latency of the same round (target: at most 1.1x it).
#
# The three kinds of run are interleaved (none, posted, unexpected, none,
# ...) for ROUNDS rounds.  Per kind it prints the median over rounds of
# each run's mean and of each run's median half round trip, and the ratio
# to the empty queue: the median of each round's ratio (runs a few seconds
# apart share the machine's phase).  On a busy machine compare the
# "median" columns, which a round trip descheduled now and then does not
# move.  Then tests/bench/match_depth does the same in one process over
# the in-memory fake link (no DPDK, no second process to be scheduled):
# the library's own cost per round trip, steadier than memif on a busy
# machine.  Asserts nothing.
#
#   [ROUNDS=5] [ITERS=5000] [DEPTH=10000] [BEFORE=build-dir] [ROWS=1] \
#       scripts/bench-matching.sh
#
# ROWS=1 also prints each run's median, round by round (the machine's
# phases show there).
#
# BEFORE names the build directory of another commit (one whose
# mx_pingpong has --posted and --unexpected): its runs are interleaved
# with this tree's, A B A B, in every round, and it gets lines of its
# own (and so does its tests/match_depth, if it has one).
#
# With SUMMARY=file, this tree's posted and unexpected lines (medians,
# ratio, target) are appended to file as CSV (scripts/bench-summary.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} iters=${ITERS:-5000} depth=${DEPTH:-10000}
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
before=${BEFORE:-}
. "$top/scripts/memif-pair.sh"
warm=$(( iters / 10 + 1000 ))
out=$(mktemp -d /tmp/mxd-bench-match.XXXXXX)
trap 'rm -rf "$out"' EXIT
# Names of our own: another pair on this host may be called nodeA/nodeB.
export SERVER_HOST=bmA$$ CLIENT_HOST=bmB$$
builds="after"
[ -n "$before" ] && builds="before after"

run() {	# run <build dir> <output file> <mx_pingpong options...>
	local b=$1 f=$2; shift 2
	memif_pair "receiver on board" "$b/apps/mx_pingpong" -e 1 -- \
		"$b/apps/mx_pingpong" -d "$SERVER_HOST:0" -r 1 -e 2 -S 8 -E 8 \
		-N "$iters" -W "$warm" --csv --no-progress "$@" >"$f"
}

for r in $(seq 1 "$rounds"); do
	echo "round $r/$rounds: none, posted, unexpected ($builds)" >&2
	for kind in none posted unexp; do
		case $kind in
		none) opt= ;;
		posted) opt=--posted=$depth ;;
		unexp) opt=--unexpected=$depth ;;
		esac
		for which in $builds; do
			b=$build
			[ "$which" = before ] && b=$before
			# shellcheck disable=SC2086
			run "$b" "$out/$which.$kind.$r" $opt
		done
	done
done

python3 - "$out" "$rounds" "$depth" "$builds" "${ROWS:-0}" <<'PY'
import os, statistics as st, sys
summary = os.environ.get("SUMMARY")
out, rounds, depth, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
    sys.argv[4].split()
rows = sys.argv[5] == "1"
def col(which, kind, c):	# [value per round] of CSV column c
    v = []
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{which}.{kind}.{r}"):
            f = line.strip().split(",")
            if f[0] == "mx_pingpong" and f[1] == "8":
                v.append(float(f[c]))
    return v
def ratio(a, b):
    return st.median(x / y for x, y in zip(a, b))
print(f"8-byte half round trip in us over memif, medians of {rounds} "
      f"interleaved rounds; depth {depth} on each side")
print(f"{'':>7} {'queues':>11} {'mean':>8} {'ratio':>6} {'median':>8} "
      f"{'ratio':>6}")
for which in builds:
    mean0, med0 = col(which, "none", 4), col(which, "none", 5)
    for kind, name in (("none", "empty"), ("posted", "posted"),
                       ("unexp", "unexpected")):
        mean, med = col(which, kind, 4), col(which, kind, 5)
        print(f"{which:>7} {name:>11} {st.median(mean):>8.3f} "
              f"{ratio(mean, mean0):>6.2f} {st.median(med):>8.3f} "
              f"{ratio(med, med0):>6.2f}")
        if summary and kind != "none" and which == "after":
            with open(summary, "a") as f:
                f.write(f"8-byte latency with {depth} {name} on each side (memif),"
                        f"us,{st.median(med):.3f},{st.median(med0):.3f},"
                        f"{ratio(med, med0):.2f},<= 1.1,{rounds}\n")
        if rows:
            print(f"{'':>19} medians by round: " +
                  " ".join(f"{x:.3f}" for x in med))
print("(ratio: the median over rounds of the run's latency over the same "
      "round's\n empty-queue run; target: at most 1.1)")
PY

for which in $builds; do
	b=$build
	[ "$which" = before ] && b=$before
	[ -x "$b/tests/match_depth" ] || continue
	echo "$which:"
	"$b/tests/match_depth" -d "$depth" -r "$rounds"
done
