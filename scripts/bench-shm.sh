#!/usr/bin/env bash
# Same-host latency and bandwidth: MX between two processes of one host
# that share a board (the host segment's rings, lib/engine/shm.c), beside
# what the host gives with no MX in between and beside UCX's shared-memory
# transport, all in one run, interleaved round by round, the two processes
# of every program pinned to two CPUs (the first two this shell may use):
#
#   raw flag   a cache line each way, 8 bytes (tests/bench/shm_raw)
#   raw ring   DPDK's rte_ring, one each way, 8 bytes
#   raw hring  the host segment's own ring, one 8-byte record each way
#   mx         mx_pingpong, 8 bytes, polling (mx_test)
#   ucx        ucx_perftest tag_lat, 8 bytes, UCX_TLS=sm,self
#   stream     a plain memcpy stream: 1 MiB messages through 8 x 64 KiB of
#              shared staging, writer copying in, reader out, pipelined;
#              from and into one buffer, and (stream-D) a buffer per message
#   mx_bw      mx_bw one way, 1 MiB, window 32: one buffer each side, and
#              (-D) a buffer per message in flight
#   ucx_bw     ucx_perftest tag_bw, 1 MiB
#
# Latencies are half round trips, the median of each run's per-iteration
# figures (one clock read per round trip, for every program; UCX's 50th
# percentile); bandwidths in MB/s (10^6 bytes a second; UCX's MiB/s
# converted).  Per figure the median over rounds is printed, and each
# ratio as the median of the rounds' own ratios (a pair of runs seconds
# apart shares the machine's phase), against its target:
#   mx 8-byte half round trip <= 1.3 x raw flag, and x raw ring (the
#                             two raw ping-pongs: a cache-line flag is the
#                             harder one)
#   mx_bw 1 MiB              >= 0.8 x stream (like for like: stream-D for -D)
#   mx ahead of ucx: latency <= 1.0 x ucx, bandwidth >= 1.0 x ucx_bw
#                             (UCX's one buffer: mx_bw's, and -D's too)
# The MX processes join a host segment made by shm_raw (standing for the
# board service: MX_HOST_SEGMENT), each over a net_null port of its own
# (--no-huge): no frame between them.  A round starts once the CPUs were
# 95% idle for a second (at most QUIET_WAIT seconds, then it runs anyway
# and says so): the figures are only for targets on a quiet machine.
# Asserts nothing.
#
#   [ROUNDS=5] [ITERS=100000] [MSGS=2000] [UCX=1] [QUIET_WAIT=30] \
#       [BUILD=dir] [SUMMARY=file] scripts/bench-shm.sh
#
# UCX=0 leaves UCX out; else ucx-utils is installed when ucx_perftest is
# missing (apt-get, as scripts/deps.sh installs packages).  With
# SUMMARY=file, the ratio lines are appended to file as CSV
# (scripts/bench-summary.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-5} iters=${ITERS:-100000} msgs=${MSGS:-2000}
ucx=${UCX:-1} quiet_wait=${QUIET_WAIT:-30}
"$top/scripts/build.sh" >/dev/null
build=${BUILD:-$top/build}
. "$top/scripts/memif-pair.sh"		# two_cpus
two_cpus
if [ ${#cpus[@]} -lt 2 ]; then
	echo "bench-shm: needs two CPUs to pin the two processes to" >&2
	exit 77
fi
ca=${cpus[0]} cb=${cpus[1]}
if [ "$ucx" = 1 ] && ! command -v ucx_perftest >/dev/null; then
	echo "bench-shm: installing ucx-utils (as scripts/deps.sh does)" >&2
	SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
	if ! { $SUDO apt-get update -q &&
			DEBIAN_FRONTEND=noninteractive $SUDO apt-get install \
				-y -q ucx-utils; } >&2; then
		echo "bench-shm: no ucx-utils: UCX left out" >&2
		ucx=0
	fi
fi

out=$(mktemp -d /tmp/mxd-bench-shm.XXXXXX)
seg=/dev/shm/mxd-bench-shm.$$
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
	rm -f "$seg"
}
trap cleanup EXIT
eal="--no-huge -m 256 --no-shconf --no-pci --vdev=net_null0,no-rx=1"
eal="$eal --no-telemetry --log-level=lib.eal:error"
warm=$(( iters / 10 + 1000 ))
port=$(( 20000 + $$ % 20000 ))

# Waits until the CPUs were 95% idle over a second (at most quiet_wait
# seconds); prints the idle share seen.
quiet() {
	local i t0 i0 t1 i1 idle
	for ((i = 0; i < quiet_wait; i++)); do
		read -r _ a b c d e f g _ < /proc/stat
		t0=$((a + b + c + d + e + f + g)) i0=$d
		sleep 1
		read -r _ a b c d e f g _ < /proc/stat
		t1=$((a + b + c + d + e + f + g)) i1=$d
		idle=$(( 100 * (i1 - i0) / (t1 - t0 + 1) ))
		[ "$idle" -ge 95 ] && break
	done
	echo "$idle"
}

# An MX server and client over a fresh host segment, pinned:
#   mx_pair <server args...> -- <client args...>
mx_pair() {
	local srv=() cli=()
	while [ "$1" != "--" ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	"$build/tests/shm_raw" host "$seg" 4
	MX_HOST_SEGMENT=$seg:1 MX_DPDK_ARGS="$eal" timeout 120 \
		taskset -c "$cb" "${srv[@]}" >"$out/server.log" 2>&1 &
	local spid=$!
	pids+=("$spid")
	for _ in $(seq 1 1000); do
		grep -q "receiver on board" "$out/server.log" 2>/dev/null && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.01
	done
	MX_HOST_SEGMENT=$seg:2 MX_DPDK_ARGS="$eal" timeout 120 \
		taskset -c "$ca" "${cli[@]}" || { cat "$out/server.log" >&2; return 1; }
	wait "$spid" || true
	rm -f "$seg"
}

ucx_pair() {	# ucx_pair <test> <size> <n>: the client's "Final:" line
	UCX_TLS=sm,self timeout 120 ucx_perftest -p "$port" -c "$cb" \
		>"$out/ucx-server.log" 2>&1 &
	local spid=$!
	pids+=("$spid")
	sleep 0.5
	UCX_TLS=sm,self timeout 120 ucx_perftest 127.0.0.1 -p "$port" \
		-c "$ca" -t "$1" -s "$2" -n "$3" 2>&1 | grep '^Final:' || true
	wait "$spid" || true
}

for r in $(seq 1 "$rounds"); do
	idle=$(quiet)
	echo "round $r/$rounds (CPUs $idle% idle before it)" >&2
	echo "$idle" >"$out/idle.$r"
	"$build/tests/shm_raw" pingpong -a "$ca" -b "$cb" -N "$iters" \
		-W "$warm" >"$out/raw.$r"
	mx_pair "$build/apps/mx_pingpong" -e 1 -- \
		"$build/apps/mx_pingpong" -d shmbench:0 -r 1 -e 2 -S 8 -E 8 \
		-N "$iters" -W "$warm" --csv --no-progress >"$out/mx.$r"
	"$build/tests/shm_raw" stream -a "$ca" -b "$cb" -N "$msgs" \
		>"$out/stream.$r"
	"$build/tests/shm_raw" stream -D -a "$ca" -b "$cb" -N "$msgs" \
		>>"$out/stream.$r"
	mx_pair "$build/apps/mx_bw" -e 1 -- "$build/apps/mx_bw" -d shmbench:0 \
		-r 1 -e 2 -S 1048576 -E 1048576 -N "$msgs" --csv \
		--no-progress >"$out/bw.$r"
	mx_pair "$build/apps/mx_bw" -e 1 -- "$build/apps/mx_bw" -d shmbench:0 \
		-r 1 -e 2 -S 1048576 -E 1048576 -N "$msgs" -D --csv \
		--no-progress >"$out/bwD.$r"
	if [ "$ucx" = 1 ]; then
		ucx_pair tag_lat 8 "$iters" >"$out/ucx.$r"
		ucx_pair tag_bw 1048576 "$msgs" >"$out/ucxbw.$r"
	fi
done

python3 - "$out" "$rounds" "$ucx" "${SUMMARY:-}" <<'PY'
import statistics as st, sys
out, rounds, ucx, summary = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
R = range(1, rounds + 1)
def rows(kind):
    return [open(f"{out}/{kind}.{r}").read().split("\n") for r in R]
def csv(line):
    return line.strip().split(",")
fig = {}	# name -> [value per round]
for r, text in zip(R, rows("raw")):
    for l in text:
        f = csv(l)
        if f[0] == "pingpong":
            fig.setdefault("raw " + f[1], []).append(float(f[4]))
for text in rows("mx"):
    f = [csv(l) for l in text if l.startswith("mx_pingpong,")]
    fig.setdefault("mx", []).append(float(f[0][5]) * 1e3)
for text in rows("stream"):
    for l in text:
        f = csv(l)
        if f[0].startswith("stream"):
            fig.setdefault(f[0], []).append(float(f[2]))
for kind, name in (("bw", "mx_bw"), ("bwD", "mx_bw -D")):
    for text in rows(kind):
        f = [csv(l) for l in text if l.startswith("mx_bw,")]
        fig.setdefault(name, []).append(float(f[0][7]))
if ucx:
    for kind, name in (("ucx", "ucx"), ("ucxbw", "ucx_bw")):
        for text in rows(kind):
            f = [l.split() for l in text if l.startswith("Final:")]
            if not f:
                fig.setdefault(name, []).append(float("nan"))
            elif name == "ucx":
                fig.setdefault(name, []).append(float(f[0][2]) * 1e3)
            else:	# MiB/s -> MB/s
                fig.setdefault(name, []).append(float(f[0][5]) * 1.048576)
idle = [int(open(f"{out}/idle.{r}").read()) for r in R]
print(f"same host, {rounds} interleaved rounds (CPUs idle before each: "
      f"{', '.join(f'{i}%' for i in idle)})")
for name, unit in (("raw flag", "ns"), ("raw ring", "ns"), ("raw hring", "ns"),
                   ("mx", "ns"), ("ucx", "ns"), ("stream", "MB/s"),
                   ("stream-D", "MB/s"), ("mx_bw", "MB/s"),
                   ("mx_bw -D", "MB/s"), ("ucx_bw", "MB/s")):
    if name in fig:
        v = fig[name]
        print(f"  {name:<10} {st.median(v):>9.1f} {unit:<5} "
              f"(rounds: {', '.join(f'{x:.0f}' for x in v)})")
def ratio(a, b):
    return st.median(x / y for x, y in zip(fig[a], fig[b]))
checks = [("mx 8 B half round trip / raw flag", "mx", "raw flag", "<=", 1.3),
          ("mx 8 B half round trip / raw ring", "mx", "raw ring", "<=", 1.3),
          ("mx_bw 1 MiB / stream", "mx_bw", "stream", ">=", 0.8),
          ("mx_bw -D 1 MiB / stream-D", "mx_bw -D", "stream-D", ">=", 0.8)]
if ucx:
    checks += [("mx 8 B half round trip / ucx tag_lat", "mx", "ucx", "<=", 1.0),
               ("mx_bw 1 MiB / ucx tag_bw", "mx_bw", "ucx_bw", ">=", 1.0),
               ("mx_bw -D 1 MiB / ucx tag_bw", "mx_bw -D", "ucx_bw", ">=",
                1.0)]
print("ratios (median of the rounds' ratios), target:")
lines = []
for label, a, b, op, t in checks:
    q = ratio(a, b)
    ok = q <= t if op == "<=" else q >= t
    print(f"  {label:<40} {q:6.2f}  {op} {t:<4} {'met' if ok else 'NOT met'}")
    lines.append(f"{label},ratio,{q:.2f},,,{op} {t},{rounds}\n")
if min(idle) < 95:
    print("(a round began on a busy machine: not figures to judge the "
          "targets by)")
if summary:
    with open(summary, "a") as f:
        f.writelines(lines)
PY
