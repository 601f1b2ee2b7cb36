#!/usr/bin/env bash
# Instructions per 8-byte message: tests/bench/icount
# under callgrind, in one process over the in-memory fake link (no DPDK,
# no timing: the same figure on every run).  Prints the send path, the
# receive path and a round trip in instructions per message (what each
# includes: tests/bench/icount.c), and the idle pass that each one-way
# figure contains once.  Then the same for a large message's full frame
# (a pull reply) on each side, and how much of that is the payload's
# copy and check.  Last, Portals over the same engine: an 8-byte put's
# half round trip and an 8-byte get's round trip, each beside MX's
# (half a round trip, a whole one).
#
#   [BUILD=dir] [N=2000] scripts/icount.sh           # builds first
#   scripts/icount.sh --check <build-dir>            # the meson test
#   scripts/icount.sh --scale [<build-dir>]          # 1 partner, 10,000
#   scripts/icount.sh --shm [<build-dir>]            # the same-host path
#
# --scale runs tests/unit/test_scale (one endpoint, 10,000 fake peers)
# under callgrind instead: the instructions of the endpoint's calls per
# 8-byte message (a send, or a receive and the pass that takes it) with
# one partner known, and again with 10,000 (idle, their traffic over),
# which the test cannot count itself where the CPU gives a program no
# counter (about half a minute).
#
# --shm runs tests/bench/icount_shm instead: the same figures (send,
# receive, round trip, idle pass) on the same-host path, two boards of one
# process joined to one host segment, their messages through its rings.
#
# --check (the meson test 'icount') also fails if a figure is above its
# budget in tests/bench/icount-budget, and skips (exit 77, with the
# reason) where the figures cannot be compared: no valgrind, a sanitized
# build (valgrind cannot run ASan's binaries), a build not optimized as
# the default release build the budget was set on.  Run by hand, the
# script installs valgrind when it is missing (apt-get, as
# scripts/deps.sh does).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
check=0 scale=0 shm=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
elif [ "${1:-}" = --scale ]; then
	scale=1
	shift
elif [ "${1:-}" = --shm ]; then
	shm=1
	shift
fi
n=${N:-2000}
warm=1000

skip() { echo "SKIP: $*"; exit 77; }

if [ $# -ge 1 ]; then
	build=$1
else
	"$top/scripts/build.sh" >/dev/null
	build=${BUILD:-$top/build}
fi
exe=$build/tests/icount
[ -x "$exe" ] || { echo "icount: $exe is missing (build first)"; exit 1; }

if ! command -v valgrind >/dev/null; then
	[ $check = 1 ] && skip "valgrind is not installed" \
		"(scripts/deps.sh installs it; or apt-get install valgrind)"
	echo "icount: installing valgrind (as scripts/deps.sh does)"
	SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
	if ! { $SUDO apt-get update -q &&
			$SUDO apt-get install -y -q valgrind; }; then
		echo "icount: no valgrind: sudo apt-get install valgrind"
		exit 1
	fi
fi

# The build's optimization and sanitizers, as meson recorded them.
opts=$(python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}
print(o["optimization"], o["b_sanitize"])' \
	"$build/meson-info/intro-buildoptions.json")
optim=${opts% *} sanitize=${opts#* }
if [ "$sanitize" != none ]; then
	[ $check = 1 ] && skip "a sanitized build (b_sanitize=$sanitize):" \
		"valgrind cannot run ASan's binaries"
	echo "icount: $build is sanitized (b_sanitize=$sanitize); valgrind" \
		"cannot run it: use a release build"
	exit 1
fi
if [ "$optim" != 3 ]; then
	[ $check = 1 ] && skip "the budget is for the default release build" \
		"(-O3); this one is built with optimization=$optim"
	echo "icount: built with optimization=$optim: not comparable with" \
		"the README's figures (-O3)"
fi

out=$(mktemp /tmp/mxd-icount.XXXXXX)
trap 'rm -f "$out" "$out.log" "$out.stdout"' EXIT

if [ $scale = 1 ]; then
	scale_exe=$build/tests/test_scale
	[ -x "$scale_exe" ] || { echo "icount: $scale_exe is missing"; exit 1; }
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		--collect-atstart=no --toggle-collect=ping_one \
		--toggle-collect=pong_one --toggle-collect=ping_many \
		--toggle-collect=pong_many "$scale_exe" >"$out.stdout" \
		2>"$out.log" || { cat "$out.stdout" "$out.log";
			echo "icount: test_scale failed"; exit 1; }
	peers=$(awk '/^test_scale:/ {print $2}' "$out.stdout")
	# ROUNDS (test_scale.c) rounds of two messages each.
	callgrind_annotate --inclusive=yes --threshold=100 "$out" |
		awk -v peers="$peers" '$0 ~ /:(ping|pong)_(one|many) / {
			gsub(",", "", $1)
			n = $0 ~ /_one / ? "one" : "many"; s[n] += $1 }
		END {
			printf "with 1 partner: %.0f instructions per 8-byte message (the endpoint'"'"'s calls)\n", s["one"] / 4000
			printf "with %s partners known: %.0f\n", peers, s["many"] / 4000 }'
	exit 0
fi
if [ $shm = 1 ]; then
	shm_exe=$build/tests/icount_shm
	[ -x "$shm_exe" ] || { echo "icount: $shm_exe is missing"; exit 1; }
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		--collect-atstart=no --toggle-collect=icount_measure \
		"$shm_exe" -n "$n" -w "$warm" >"$out.stdout" 2>"$out.log" ||
		{ cat "$out.stdout" "$out.log"; echo "icount: icount_shm failed"
		exit 1; }
	callgrind_annotate --inclusive=yes --threshold=100 "$out" |
		awk -v n="$n" '$0 ~ /:icount_(send|recv|rtt|idle) / {
			gsub(",", "", $1); f = $0
			sub(/.*:icount_/, "", f); sub(/ .*/, "", f); v[f] = $1 / n }
		END {
			printf "same host: send path %.0f, receive path %.0f instructions per 8-byte message\n", v["send"], v["recv"]
			printf "same host: round trip %.0f (both sides), idle pass %.0f\n", v["rtt"], v["idle"] }'
	exit 0
fi
valgrind --tool=callgrind --callgrind-out-file="$out" \
	--collect-atstart=no --toggle-collect=icount_measure \
	"$exe" -n "$n" -w "$warm" >"$out.stdout" 2>"$out.log" ||
	{ cat "$out.log"; echo "icount: the run failed"; exit 1; }
replies=$(awk '/^bulk:/ {print $2}' "$out.stdout")
[ -n "$replies" ] || { cat "$out.stdout" "$out.log"; echo "icount: no bulk line"; exit 1; }

# Inclusive instructions of each step over its n measured calls.
ann=$(callgrind_annotate --inclusive=yes --threshold=100 "$out")
per() {
	echo "$ann" | awk -v f="$1" -v n="${2:-$n}" '$0 ~ ":" f " " {
		gsub(",", "", $1); printf "%.0f\n", $1 / n; found = 1 }
		END { if (!found) print "?" }'
}
send=$(per icount_send) recv=$(per icount_recv)
rtt=$(per icount_rtt) idle=$(per icount_idle)
psend=$(per icount_psend) precv=$(per icount_precv)
btx=$(per icount_bulk_tx "$replies") brx=$(per icount_bulk_rx "$replies")
bcopy=$(per icount_bulk_copy)
pput=$(per icount_ptl_put $((2 * n))) pget=$(per icount_ptl_get)
mxhalf=$(( (rtt + 1) / 2 ))
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'; }
echo "send path: $send instructions per 8-byte message"
echo "receive path: $recv instructions per 8-byte message"
echo "round trip: $rtt instructions (both sides, two 8-byte messages)"
echo "idle pass: $idle instructions (the other board every 16th; in each one-way figure once)"
echo "packed send path: $psend instructions per 8-byte message (batches of 40)"
echo "packed receive path: $precv instructions per 8-byte message (batches of 40)"
echo "bulk send path: $btx instructions per full frame of a 1 MiB message ($bcopy of them the payload's copy and check)"
echo "bulk receive path: $brx instructions per full frame of a 1 MiB message ($bcopy of them the payload's copy and check)"
echo "Portals put: $pput instructions per 8-byte put, half a round trip ($(ratio "$pput" "$mxhalf") x MX's $mxhalf)"
echo "Portals get: $pget instructions per 8-byte get round trip ($(ratio "$pget" "$rtt") x MX's round trip, $rtt)"
[ $check = 1 ] || exit 0

# The budget: "<name> <instructions>" lines, '#' comments.
fail=0
while read -r name max; do
	case $name in ''|'#'*) continue ;; esac
	case $name in
	send) got=$send ;;
	recv) got=$recv ;;
	rtt) got=$rtt ;;
	psend) got=$psend ;;
	precv) got=$precv ;;
	btx) got=$btx ;;
	brx) got=$brx ;;
	pput) got=$pput ;;
	pget) got=$pget ;;
	*) echo "icount-budget: unknown line '$name'"; exit 1 ;;
	esac
	if [ "$got" = "?" ] || [ "$got" -gt "$max" ]; then
		echo "FAIL: $name: $got instructions per message, budget $max" \
			"(tests/bench/icount-budget)"
		fail=1
	else
		echo "ok: $name: $got <= $max"
	fi
done <"$top/tests/bench/icount-budget"
exit $fail
