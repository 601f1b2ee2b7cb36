#!/usr/bin/env bash
# myri_pingpong (tests/integration/myri_pingpong.c: a ping-pong written as
# Myricom's mx_pingpong is) between two processes over memif: fails when
# a length's average and median half round trips exceed its limit in
# every try (a few round trips held up outside the guest inflate the
# average alone).
#
#   myri_pingpong.sh <build-dir> [sender options]
#
# Two runs (with taskset and two CPUs; else one, placed by the kernel):
#   apart     each process on a CPU of its own; limit 5 us + 1 ns/byte;
#   together  both on one CPU, as the kernel leaves them when the sender
#             wakes from its sleep while another program holds the other
#             CPU (the stalls this test catches: each message waited for
#             the waiting side's spin, about 1 ms); a hand-off between
#             processes on one CPU costs a context switch each way, so the
#             limit gets 25 us more.
# A length over its limit is tried again (-R); one that failed only while
# other programs held the CPUs does not fail the run, and a run with more
# than half its lengths so is skipped (77).  MYRI_PINGPONG_ARGS replaces
# the sender options, e.g. MYRI_PINGPONG_ARGS="-N 2000 -z 100 -R 1 -v"
# for Myricom's counts.
set -u
build=${1:?usage: myri_pingpong.sh <build-dir> [sender options]}
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/memif-pair.sh"
export MEMIF_PAIR_TIMEOUT=${MEMIF_PAIR_TIMEOUT:-120}
prog=$build/tests/myri_pingpong
read -r -a args <<<"${MYRI_PINGPONG_ARGS:-$*}"
# Distinct names: other tests' processes on this host may be nodeA/nodeB.
export SERVER_HOST=myriA CLIENT_HOST=myriB

# run <name> <server cpu|-> <client cpu|-> [more sender options]
run() {
	local name=$1 scpu=$2 ccpu=$3 out
	shift 3
	local spin=() cpin=()
	[ "$scpu" != - ] && spin=(taskset -c "$scpu")
	[ "$ccpu" != - ] && cpin=(taskset -c "$ccpu")
	echo "== $name"
	out=$(memif_pair "receiver ready" "${spin[@]}" "$prog" -e 1 -- \
		"${cpin[@]}" "$prog" -d myriA:0 -r 1 -e 2 "${args[@]}" "$@" \
		2>&1)
	echo "$out"
	echo "$out" | grep -q "^myri_pingpong: PASS" && return 0
	echo "$out" | grep -q "^myri_pingpong: SKIP" && return 77
	return 1
}

two_cpus	# the first two CPUs this script may run on
# A sanitized build (the sanitizer pass of scripts/test.sh) checks every
# copy and access and runs at a fraction of the speed the limits are for:
# its limits get 100 us more, still far below a stall (about 1 ms).
extra=0
sanitize=$(python3 -c 'import json, sys
print({x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}
      ["b_sanitize"])' "$build/meson-info/intro-buildoptions.json" \
	2>/dev/null || echo none)
if [ "$sanitize" != none ]; then
	extra=100
	echo "(a sanitized build, b_sanitize=$sanitize: limits get $extra us more)"
fi
results=()
if [ ${#cpus[@]} -ge 2 ]; then
	run apart "${cpus[0]}" "${cpus[1]}" -A $extra
	results+=($?)
	run together "${cpus[1]}" "${cpus[1]}" -A $((25 + extra))
	results+=($?)
else
	echo "(no taskset or a single CPU: one run, placed by the kernel)"
	run natural - - -A $extra
	results+=($?)
fi
pass=0 fail=0 skip=0
for r in "${results[@]}"; do
	case $r in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
done
echo "$pass passed, $fail failed, $skip skipped (machine busy)"
[ $fail -eq 0 ] || exit 1
[ $pass -eq 0 ] && exit 77
exit 0
