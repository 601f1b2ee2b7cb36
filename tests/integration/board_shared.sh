#!/usr/bin/env bash
# Shared boards: two "hosts" on this machine (two host names), each a
# board service (mx_board) with one board of two memif ports, the two
# boards joined by two memif pairs (striping, failover).  No hugepages:
# a shared board's processes map memif's memory, not DPDK's.
#
#   board_shared.sh BUILD CASE
#
#   exchange  four processes on each board (board_shared), every one
#             exchanging every size class with every other, every byte
#             checked; pairs of one host too when the same-host path is
#             in the tree (MXT_SAME_HOST=1), else the pairs of two hosts;
#             meanwhile mx_info (the board shared, its slots and who holds
#             which endpoint), mx_counters (each process's, the sum), and
#             a process that opens an endpoint another holds (MX_BUSY)
#   loss      the same under MX_FAULTS loss, reordering, duplicates and
#             corruption in every process
#   failover  the same with port 1 of every process losing everything
#             from the first round on: its partners suspect it (counted),
#             striping leaves it, everything goes by port 0
#   kill      a process of host B killed (SIGKILL) in mid-run: the others
#             finish, their requests to it failed with the documented
#             status; then a new process opens its endpoint again and
#             exchanges with a process of host A; its slot was freed
#   service   host B's board service killed (SIGKILL) in mid-run: each of
#             its processes reports it (exit 3), host A's finish
#   many      32 processes on each board (MX_BOARD_SLOTS=33: the board's
#             32 endpoints, the memif queue matrix in 5 lanes), each
#             exchanging every size class with its neighbours on its host
#             and the process in its place on the other host
#   switched  exchange's run over ports that are not memif: each board two
#             af_packet ports on two veth pairs made here (root needed,
#             else skipped), which the board services switch (each frame
#             between the port and the ring of the process that holds its
#             endpoint); then the same under MX_FAULTS loss
#   switched-kill, switched-service
#             kill's and service's runs over those switched ports
#   switched-mixed
#             switched's with port 0 of each board memif (its processes
#             on the queue matrix) and port 1 af_packet (switched)
#   wait-any  one receiver and two sender processes in mx_wait_any
#             (wait_any), all of host A with the same-host path, else the
#             senders of host B; host A's service started by the first
#             mx_init that needs it (MX_BOARD_SHARED=1, no service yet)
set -u
build=$(cd "$1" && pwd)
case=$2
export PATH=$build/service:$build/tests:$build/apps:$PATH
dir=$(mktemp -d /tmp/mxd-board-shared.XXXXXX)
A=sba$$ B=sbb$$
slots=7 rs=8 mem=256
# 33 slots: 5 lanes of 231 queue pairs (rsize 7), 10 memif interfaces
[ "$case" = many ] && slots=33 rs=7 mem=512
export MXT_HOSTS=$A,$B MX_BOARD_SLOTS=$slots MX_BOARDS=0+1 MX_PEER_TIMEOUT_MS=3000
eal="--no-huge -m $mem --no-shconf --no-pci --log-level=error"
m=$(printf '%02x:%02x' $(( $$ >> 8 & 255 )) $(( $$ & 255 )))
args_a="$eal --vdev=net_memif0,role=server,socket=$dir/p0,rsize=$rs,mac=02:5b:$m:00:0a --vdev=net_memif1,role=server,socket=$dir/p1,rsize=$rs,mac=02:5b:$m:01:0a"
args_b="$eal --vdev=net_memif0,role=client,socket=$dir/p0,rsize=$rs,mac=02:5b:$m:00:0b --vdev=net_memif1,role=client,socket=$dir/p1,rsize=$rs,mac=02:5b:$m:01:0b"
same=${MXT_SAME_HOST:-0}
pids=()

veths=
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	MX_HOSTNAME=$A mx_board stop -f >/dev/null 2>&1
	MX_HOSTNAME=$B mx_board stop -f >/dev/null 2>&1
	for v in $veths; do ip link del "$v" 2>/dev/null; done
	rm -rf "$dir" "/tmp/mx-board.$A.log" "/tmp/mx-board.$B.log"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	for f in "$dir"/*.log /tmp/mx-board.$A.log /tmp/mx-board.$B.log; do
		[ -f "$f" ] && sed "s|^|  $(basename "$f"): |" "$f" | tail -20
	done
	exit 1
}

svc() {	# svc HOST ARGS: start the host's board service
	MX_HOSTNAME=$1 MX_DPDK_ARGS=$2 mx_board start >"$dir/start.$1.log" 2>&1 ||
		fail "mx_board start for $1"
}

links_up() {	# both ports of both hosts up
	local i
	for i in $(seq 1 200); do
		if [ "$(MX_HOSTNAME=$A mx_board status | grep -c ': up[ ,]')" = 2 ] &&
		   [ "$(MX_HOSTNAME=$B mx_board status | grep -c ': up[ ,]')" = 2 ]; then
			return 0
		fi
		sleep 0.05
	done
	fail "the links did not come up"
}

start_services() {
	svc "$A" "$args_a"
	svc "$B" "$args_b"
	links_up
}

host_of() { [ "$1" -lt 4 ] && echo "$A" || echo "$B"; }

rank() {	# rank R EXTRA...: start rank R of 8 in the background
	local r=$1; shift
	local l=
	[ "$same" = 1 ] && l=-l
	MX_HOSTNAME=$(host_of "$r") MX_BOARD_SHARED=1 \
		timeout 120 board_shared -r "$r" -n 8 -p 4 $l "$@" \
		>"$dir/rank$r.log" 2>&1 &
	pids[$r]=$!
}

wait_rank() {	# wait_rank R: its exit code
	wait "${pids[$1]}"
}

exchange() {	# all eight ranks, all must pass; $TOOLS: look meanwhile
	local r
	for r in 0 1 2 3 4 5 6 7; do rank "$r" "$@"; done
	[ -n "${TOOLS:-}" ] && tools_look
	for r in 0 1 2 3 4 5 6 7; do
		wait_rank "$r" || fail "rank $r"
	done
	for r in 0 1 2 3 4 5 6 7; do grep -h "ok:" "$dir/rank$r.log"; done
}

# mx_info and mx_counters on host A while its four processes run: the
# board shared, each process's slot with its endpoint, the board's sum.
tools_look() {
	wait_line "$dir/rank0.log" "round 1" 60 || fail "rank 0 made no round"
	MX_HOSTNAME=$A MX_BOARD_SHARED=1 mx_info >"$dir/info.log" 2>&1 ||
		fail "mx_info"
	mx_counters "$A" >"$dir/counters.log" 2>&1 || fail "mx_counters"
	grep -q "held: shared through the board service" "$dir/info.log" ||
		fail "mx_info does not say the board is shared"
	grep -q "endpoints: 32 on the board, 7 slots" "$dir/info.log" ||
		fail "mx_info does not give the endpoint limit and slots"
	for e in 1 2 3 4; do
		grep -q "slot [1-5]: in use, pid [0-9]* (board_shared), endpoints $e\$" \
			"$dir/info.log" || fail "mx_info: who holds endpoint $e"
	done
	grep -q "the sum over its 4 processes" "$dir/counters.log" ||
		fail "mx_counters gives no sum over the board's processes"
	# Endpoint 1 of host A is rank 0's: busy, as MX says, naming it.
	MX_HOSTNAME=$A MX_BOARD_SHARED=1 mx_pingpong -e 1 >"$dir/busy.log" 2>&1 &&
		fail "a second process opened endpoint 1"
	grep -q "endpoint 1 of shared board 0 is open in process ${pids[0]}\|endpoint 1 of shared board 0 is open in process $(pgrep -P "${pids[0]}" board_shared)" \
		"$dir/busy.log" || fail "the busy endpoint's holder is not named"
	echo "mx_info and mx_counters meanwhile:"
	grep "held:\|endpoints:\|slot " "$dir/info.log"
	grep -A2 "the sum over" "$dir/counters.log"
}

wait_line() {	# wait_line FILE REGEX SECONDS
	local i
	for i in $(seq 1 $(( $3 * 20 ))); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

slots_clean() {	# no dead slot, no endpoint held, on host $1
	local i
	for i in $(seq 1 100); do
		MX_HOSTNAME=$1 mx_board status | grep -q "slot [1-9].*\(dead\|live\)" ||
			return 0
		sleep 0.05
	done
	MX_HOSTNAME=$1 mx_board status
	fail "host $1 still lists slots of processes that are gone"
}

veth_ports() {	# the boards' ports: af_packet on two veth pairs
	if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
		echo "SKIP: veth pairs need root and iproute2's ip"
		exit 77
	fi
	args_a="$eal" args_b="$eal"
	# DPDK 22.11's af_packet names its fanout group getpid() ^ ifindex
	# (16 bits), one name space for the host: two services whose pids
	# differ as their interfaces' indexes do collide, and the second
	# cannot open its port.  Host B's indexes differ from host A's in
	# bit 14, which two pids a few apart never do.
	base=$(( 20000 + ($$ % 1000) * 4 ))
	for i in 0 1; do
		va=mxs$$a$i vb=mxs$$b$i
		ip link add "$va" index $(( base + i )) type veth peer name "$vb" \
			index $(( (base + i) ^ 16384 )) 2>/dev/null ||
		ip link add "$va" type veth peer name "$vb" 2>"$dir/veth.log" || {
			echo "SKIP: no veth pair here: $(cat "$dir/veth.log")"
			exit 77
		}
		veths="$veths $va"
		ip link set "$va" address "02:5c:$m:0$i:0a"
		ip link set "$vb" address "02:5c:$m:0$i:0b"
		for v in "$va" "$vb"; do
			sysctl -qw "net.ipv6.conf.$v.disable_ipv6=1" 2>/dev/null
			ip link set "$v" up
		done
		args_a="$args_a --vdev=net_af_packet$i,iface=$va,framecnt=2048"
		args_b="$args_b --vdev=net_af_packet$i,iface=$vb,framecnt=2048"
		if [ "$i" = 0 ] && [ "$case" = switched-mixed ]; then
			# port 0 memif (the queue matrix), port 1 switched
			args_a="$eal --vdev=net_memif0,role=server,socket=$dir/p0,rsize=$rs,mac=02:5b:$m:00:0a"
			args_b="$eal --vdev=net_memif0,role=client,socket=$dir/p0,rsize=$rs,mac=02:5b:$m:00:0b"
		fi
	done
	# Ten processes poll on this machine's CPUs (two services, eight
	# ranks): the ranks spin less before they yield, as in 'many'.
	export MX_SPIN_US=20
}

case $case in
switched*)
	veth_ports
	case $case in
	switched|switched-mixed) case=switched ;;
	*) case=${case#switched-} ;;
	esac
	;;
esac

if [ "$same" = 1 ]; then
	echo "pairs of one host through the same-host path too"
else
	echo "pairs of two hosts only: the same-host path is not in this tree"
fi

case $case in
exchange)
	start_services
	TOOLS=1 exchange -R 10
	slots_clean "$A"; slots_clean "$B"
	# Every frame went to its process's own queues: only connect
	# requests passed through a service.
	for h in "$A" "$B"; do
		MX_HOSTNAME=$h mx_board status | grep "through the service"
		MX_HOSTNAME=$h mx_board status | grep -q " 0 other frames forwarded" ||
			fail "frames of host $h's peers went through its service"
	done
	;;
loss)
	start_services
	export MX_FAULTS="drop=5%,reorder=3%,dup=1%,corrupt=1%,seed=$$"
	exchange -R 3
	;;
failover)
	start_services
	# Port 1 of every process loses everything once it carried 300
	# frames, in the first round: its partners suspect it, striping
	# leaves it, and everything goes by port 0.
	export MX_FAULTS="port=1,dead=1,after=300"
	for r in 0 1 2 3 4 5 6 7; do rank "$r" -R 4; done
	wait_line "$dir/rank0.log" "round 2" 120 || fail "rank 0 made no round 2"
	suspected=0
	for h in "$A" "$B"; do
		mx_counters "$h" >"$dir/counters.$h" 2>&1
		grep -q "ports suspected" "$dir/counters.$h" && suspected=1
	done
	[ "$suspected" = 1 ] || fail "no process suspected the dead port"
	for r in 0 1 2 3 4 5 6 7; do
		wait_rank "$r" || fail "rank $r"
	done
	for r in 0 1 2 3 4 5 6 7; do grep -h "ok:" "$dir/rank$r.log"; done
	grep -h "ports suspected" "$dir"/counters.*
	;;
kill)
	start_services
	for r in 0 1 2 3 4 5 6 7; do
		if [ "$r" = 5 ]; then rank 5 -R 6; else rank "$r" -R 6 -d 5; fi
	done
	wait_line "$dir/rank5.log" "round 1" 60 || fail "rank 5 made no round"
	victim=$(pgrep -P "${pids[5]}" board_shared)
	[ -n "$victim" ] || fail "no rank 5 process"
	kill -9 "$victim"
	t0=$(date +%s)
	for r in 0 1 2 3 4 6 7; do
		wait_rank "$r" || fail "rank $r did not finish after the kill"
	done
	wait_rank 5
	echo "the others finished $(( $(date +%s) - t0 )) s after the kill"
	grep -h "gone\|ok:" "$dir"/rank[0-4].log "$dir"/rank[67].log
	slots_clean "$B"
	ls /dev/shm/mx-dpdk."$victim".* >/dev/null 2>&1 &&
		fail "the killed process's counters are still in /dev/shm"
	# A new process opens the killed process's endpoint, and talks.
	rank 5 -d 0 -o
	rank 0 -d 5 -o
	wait_rank 5 || fail "a new process on the killed process's endpoint"
	wait_rank 0 || fail "its peer"
	grep -h "ok:" "$dir/rank5.log" "$dir/rank0.log"
	;;
service)
	start_services
	for r in 0 1 2 3; do rank "$r" -R 40 -d 4,5,6,7; done
	for r in 4 5 6 7; do rank "$r" -R 40 -s; done
	wait_line "$dir/rank6.log" "round 1" 60 || fail "rank 6 made no round"
	svcpid=$(MX_HOSTNAME=$B mx_board status | sed -n 's/.*: pid \([0-9]*\),.*/\1/p')
	kill -9 "$svcpid"
	for r in 4 5 6 7; do
		wait_rank "$r"
		rc=$?
		[ $rc = 3 ] || fail "rank $r of host B exited $rc, not 3"
		grep -q "board service of host $B .* is gone" "$dir/rank$r.log" ||
			fail "rank $r did not say its board service is gone"
	done
	for r in 0 1 2 3; do
		wait_rank "$r" || fail "rank $r of host A"
	done
	grep -h "board service gone\|ok:" "$dir"/rank*.log
	grep -h "is gone" "$dir/rank4.log" | head -1
	;;
many)
	start_services
	MX_HOSTNAME=$A mx_board status | grep "queue matrix" | head -1
	MX_HOSTNAME=$A mx_board status | grep -q "matrix 33 x 33 in 5 lane(s)" ||
		fail "host A's ports are not 5 lanes"
	per=${MXT_MANY:-32} n=$(( 2 * ${MXT_MANY:-32} ))
	for r in $(seq 0 $(( n - 1 ))); do
		h=$A; [ "$r" -ge $per ] && h=$B
		l=; [ "$same" = 1 ] && l=-l
		MX_HOSTNAME=$h MX_BOARD_SHARED=1 MX_SPIN_US=20 timeout 240 board_shared \
			-r "$r" -n $n -p $per -N $l -R 2 >"$dir/rank$r.log" 2>&1 &
		pids[$r]=$!
	done
	wait_line "$dir/rank0.log" "connected" 120 || fail "rank 0 did not connect"
	for h in "$A" "$B"; do
		live=$(MX_HOSTNAME=$h mx_board status | grep -c "slot [0-9]*: live")
		echo "host $h: $live processes hold a slot"
	done
	for r in $(seq 0 $(( n - 1 ))); do
		wait "${pids[$r]}" || fail "rank $r"
	done
	grep -h "ok:" "$dir"/rank*.log | wc -l | sed 's/$/ processes passed/'
	grep -h "ok:" "$dir/rank0.log" "$dir/rank$(( n - 1 )).log"
	slots_clean "$A"; slots_clean "$B"
	;;
switched)
	start_services
	MX_HOSTNAME=$A mx_board status | grep "port [01]"
	MX_HOSTNAME=$A mx_board status | grep -q "port 1 .*: up, net_af_packet, switched by the service" ||
		fail "host A's af_packet ports are not switched by its service"
	# A process that does not share the board is refused its port, and
	# told who drives the interface and what to do.
	MX_HOSTNAME=$A MX_DPDK_ARGS="$eal --vdev=net_af_packet1,iface=mxs$$a1" \
		timeout 30 mx_pingpong >"$dir/own.log" 2>&1 &&
		fail "a second process drove host A's port"
	grep -q "interface mxs$$a1 is driven by process [0-9]* (mx_board) already.*MX_BOARD_SHARED=1" \
		"$dir/own.log" || fail "the second process was not told why"
	sed -n 's/^mx: //p' "$dir/own.log"
	TOOLS=1 exchange -R 4
	grep -q "held: .*switched" "$dir/info.log" ||
		fail "mx_info does not say the ports are switched"
	for h in "$A" "$B"; do
		MX_HOSTNAME=$h mx_board status | grep "switched:\|through the service"
	done
	slots_clean "$A"; slots_clean "$B"
	echo "the same under loss"
	MX_FAULTS="drop=5%,reorder=3%,dup=1%,corrupt=1%,seed=$$" exchange -R 2
	slots_clean "$A"; slots_clean "$B"
	;;
wait-any)
	# Host A's service is started by the first mx_init that wants it
	# (the three processes race for it when they are all of host A).
	s=
	if [ "$same" != 1 ]; then
		svc "$B" "$args_b"
		s="-s $B"
	fi
	MX_HOSTNAME=$A MX_DPDK_ARGS=$args_a MX_BOARD_SHARED=1 \
		timeout 120 wait_any -n 200 -t 2 $s >"$dir/wait_any.log" 2>&1 ||
		fail "wait_any"
	cat "$dir/wait_any.log"
	;;
*)
	echo "board_shared.sh: no case $case"
	exit 2
	;;
esac
echo "PASS: $case"
