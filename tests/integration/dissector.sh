#!/usr/bin/env bash
# The Wireshark dissector (contrib/wireshark/mxdpdk.lua) read by tshark from
# net_pcap tx_pcap captures of real traffic.
#
# Where the captures come from (tests/mxtap; the capture is the tx_pcap
# file of a net_pcap port in both cases):
#   memif  mxtap relays frames between two memif ports, the MX processes
#          being memif clients of its two sockets, and copies each frame
#          to the capture
#   veth   the MX processes run in two network namespaces joined by a veth
#          pair, each on a net_pcap port with default arguments (iface=);
#          mxtap sniffs the server's veth end (net_af_packet, whose ring
#          is large enough) into the capture (scripts/veth-pair.sh,
#          VETH_CAPTURE); needs root, else these runs are skipped with a
#          line that says so
#
# wire_traffic a (nodeA) and b (nodeB) put every frame type on the wire,
# each dropping 5% of what it receives (MX_FAULTS), so messages, fragments
# and pull replies are sent again.  Over memif, the first run has mxtap
# corrupt 3% of the frames it relays (MX_FAULTS corrupt=): they are
# captured corrupted, and mxtap prints its own verdict on every frame with
# the project's CRC code; the second corrupts nothing; mxtap holds back
# the closing endpoint's BYE, so that a message to it is refused by NACK
# on the wire (a sniffer cannot hold anything back: over veth the NACK
# may not come, and is not required).  For each capture tshark exports
# the decoded fields and this script checks that every frame type
# appears, that sequence numbers, match information and lengths decode to
# what wire_traffic sent, that every message is acknowledged, that pulls
# cover the large messages, that every frame has a checksum status and
# that the good / bad / unverified counts equal mxtap's.
#
# ptl_pingpong -V, puts with ACKs and gets, is captured over memif: every
# Portals header decoded and well formed, every length, an ACK for each
# put, a REPLY for each get, large messages by rendezvous with the header
# in the descriptor and pulled whole after it.
#
# mx_pingpong -V (0 B to 64 KiB, both ways) is captured the same two ways;
# its checks: every frame decoded with a good check, every length both
# ways as eager messages up to 32 KiB and as a rendezvous at 64 KiB, each
# pulled whole and NOTIFYed, sequence numbers without a gap, every
# message acknowledged.
#
# Connect frames of a shared board (conn_frames writes them with the wire
# code): the slot each says, decoded.
#
# Skipped (exit 77) without tshark or without Lua in tshark.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: dissector.sh <build-dir>}
lua=$top/contrib/wireshark/mxdpdk.lua
limit=40		# seconds any one process may take
. "$top/scripts/veth-pair.sh"

if ! command -v tshark >/dev/null 2>&1; then
	echo "SKIP: tshark is not installed (apt-get install tshark)"
	exit 77
fi
if ! tshark -v 2>/dev/null | grep -q "with Lua"; then
	echo "SKIP: this tshark has no Lua support"
	exit 77
fi

dir=$(mktemp -d /tmp/mxd-dissector.XXXXXX)
# Only our own children still running (jobs -p), never a pid that may have
# been reused; timeout passes SIGTERM on to the program it runs.
cleanup() {
	if [ -n "$(jobs -p)" ]; then
		kill -TERM $(jobs -p) 2>/dev/null
		sleep 1
		kill -KILL $(jobs -p) 2>/dev/null
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM PIPE
fails=0
passes=0

# Waits (at most 10 s) for a line matching $2 in file $1 while pid $3 lives.
wait_for() {
	local i
	for i in $(seq 1 1000); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

eal="--no-huge -m 128 --no-shconf --no-pci --log-level=error"
# Few frames in flight: fewer buffers, a quicker start.  A timeout floor
# above the scheduling delays of two cores shared by three polling
# processes: what goes again was lost, not merely late.
wt_a="env MX_MBUFS=4095 MX_RTO_MIN_US=5000 MX_FAULTS=drop=5%,seed=3"
# B probes A while A naps (ACK PING: quarter of the peer timeout), and
# lingers little on its refused last message.
wt_b="env MX_MBUFS=4095 MX_RTO_MIN_US=5000 MX_FAULTS=drop=5%,seed=4
	MX_PEER_TIMEOUT_MS=2000 MX_CLOSE_LINGER_MS=300"
pp_args="-S 0 -E 65536 -N 5 -W 2 -V --no-progress"

# memif_run <name> <mxtap MX_FAULTS> <A's ready line> <A cmd...> -- <B cmd...>:
# runs A and B through mxtap into $dir/<name>.pcap; mxtap's verdict line
# goes to $dir/<name>.tap, B's output to $dir/<name>/b.log.
memif_run() {
	local name=$1 faults=$2 ready=$3 d=$dir/$1
	local tap a rc=0 st why="" acmd=() bcmd=()
	shift 3
	while [ "$1" != "--" ]; do acmd+=("$1"); shift; done
	shift
	bcmd=("$@")
	mkdir -p "$d"
	# The closing endpoint's BYE is held back, so that B's late message
	# is refused by a NACK on the wire (wire_traffic.c).
	MXTAP_DROP_BYE=1 MX_FAULTS=$faults MX_DPDK_ARGS="$eal \
--vdev=net_memif0,role=server,socket=$d/a.sock,mac=02:00:00:00:0f:0a \
--vdev=net_memif1,role=server,socket=$d/b.sock,mac=02:00:00:00:0f:0b \
--vdev=net_pcap0,tx_pcap=$dir/$name.pcap" \
		timeout $((limit + 10)) "$build/tests/mxtap" $limit \
		>"$d/tap.log" 2>&1 &
	tap=$!
	if ! wait_for "$d/tap.log" "mxtap: relaying" "$tap"; then
		echo "FAIL: $name: mxtap did not start:"; cat "$d/tap.log"
		kill -TERM "$tap" 2>/dev/null
		return 1
	fi
	MX_HOSTNAME=nodeA \
	MX_DPDK_ARGS="$eal --vdev=net_memif0,role=client,socket=$d/a.sock,mac=02:00:00:00:00:0a" \
		timeout $limit "${acmd[@]}" >"$d/a.log" 2>&1 &
	a=$!
	wait_for "$d/a.log" "$ready" "$a" || { rc=1; why+=" A not ready"; }
	MX_HOSTNAME=nodeB \
	MX_DPDK_ARGS="$eal --vdev=net_memif0,role=client,socket=$d/b.sock,mac=02:00:00:00:00:0b" \
		timeout $limit "${bcmd[@]}" >"$d/b.log" 2>&1
	st=$?; [ $st -eq 0 ] || { rc=1; why+=" B exit $st"; }
	wait "$a"
	st=$?; [ $st -eq 0 ] || { rc=1; why+=" A exit $st"; }
	kill -TERM "$tap" 2>/dev/null
	wait "$tap"
	st=$?; [ $st -eq 0 ] || { rc=1; why+=" mxtap exit $st"; }
	if [ $rc -ne 0 ]; then
		# 124: timeout ($limit s); above 128: killed by signal - 128.
		echo "FAIL: $name: the exchange failed:$why"
		sed 's/^/  tap: /' "$d/tap.log"
		sed 's/^/  a: /' "$d/a.log"
		sed 's/^/  b: /' "$d/b.log"
		return 1
	fi
	grep "^mxtap: frames" "$d/tap.log" >"$dir/$name.tap"
}

# veth_run <name> <A's ready line> <A cmd...> -- <B cmd...>: the same
# between two network namespaces, net_pcap on each veth end with default
# arguments, mxtap sniffing A's end into $dir/<name>.pcap.
veth_run() {
	local name=$1 ready=$2 d=$dir/$1
	shift 2
	mkdir -p "$d"
	if ! VETH_PMD=pcap VETH_IFACE_MAC=0 VETH_PAIR_TIMEOUT=$((limit + 20)) \
			VETH_EAL="--no-huge -m 128 --no-shconf" \
			VETH_CAPTURE="$dir/$name.pcap" \
			VETH_MXTAP="$build/tests/mxtap" \
			veth_pair "$ready" "$@" >"$d/b.log" 2>"$d/pair.log"; then
		echo "FAIL: $name: the exchange failed:"
		sed 's/^/  /' "$d/pair.log"
		sed 's/^/  b: /' "$d/b.log"
		return 1
	fi
	mv "$dir/$name.pcap.tap" "$dir/$name.tap"
}

# The fields the checks read, one line per frame, tab separated.
fields="frame.number frame.len mxdpdk.version mxdpdk.type
	mxdpdk.flags.sync mxdpdk.flags.rndv mxdpdk.flags.ctrl mxdpdk.flags.ping
	mxdpdk.flags.fresh mxdpdk.src_ep mxdpdk.dst_ep mxdpdk.length
	mxdpdk.dst_session mxdpdk.csum.status mxdpdk.seq mxdpdk.msg_len
	mxdpdk.match mxdpdk.frag_off mxdpdk.frag_idx mxdpdk.frag_count
	mxdpdk.frag_max mxdpdk.frag_len mxdpdk.notice.kind mxdpdk.notice.value
	mxdpdk.rndv.total_len mxdpdk.rndv.send_handle mxdpdk.nack.seq
	mxdpdk.nack.reason mxdpdk.nack.session mxdpdk.pull.send_handle
	mxdpdk.pull.recv_handle mxdpdk.pull.offset mxdpdk.pull.length
	mxdpdk.pull_rep.recv_handle mxdpdk.pull_rep.offset mxdpdk.pull_rep.len
	mxdpdk.retransmission mxdpdk.conn.status mxdpdk.disc.name _ws.col.Info
	mxdpdk.conn.epoch mxdpdk.conn.mtu mxdpdk.ack mxdpdk.flags.ack_valid
	mxdpdk.epoch mxdpdk.ptl.kind mxdpdk.ptl.rlength mxdpdk.ptl.mlength
	mxdpdk.rndv.head mxdpdk.filter mxdpdk.ptl.flags.ack_req"

decode() {	# <name>: $dir/<name>.pcap -> $dir/<name>.tsv
	local args=() f
	for f in $fields; do args+=(-e "$f"); done
	timeout 60 tshark -n -X lua_script:"$lua" -r "$dir/$1.pcap" \
		-T fields -E occurrence=f "${args[@]}" >"$dir/$1.tsv" \
		2>"$dir/$1.tshark.err" &&
		! grep -qi "lua.*error\|error.*lua" "$dir/$1.tshark.err"
}

# check_wt <name> <corrupted: 1|0> <NACK on the wire: 1|0>: the checks on
# a capture of wire_traffic; prints one line per check, and "N passed, M
# failed" to $dir/<name>.result.
check_wt() {
	awk -F'\t' -v corrupt="$2" -v nack="$3" -v tapfile="$dir/$1.tap" \
		-v msgfile="$dir/$1.msgs" -v resfile="$dir/$1.result" \
		-v name="$1" '
function hex(s,   v, i) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
function ok(what, cond, detail) {
	if (cond) { print "ok: " name ": " what; passed++ }
	else { print "FAIL: " name ": " what " (" detail ")"; failed++ }
}
function ceil_div(a, b) { return a == 0 ? 1 : int((a + b - 1) / b) }
BEGIN {
	getline tapline < tapfile
	nt = split(tapline, t, " ")
	for (i = 2; i < nt; i += 2) tap[t[i]] = t[i + 1]
	while ((getline line < msgfile) > 0) {
		split(line, m, " ")	# message i len L match M sync S
		nmsg++; mlen[m[2]] = m[4]; msync[m[2]] = m[8]
	}
	eager_max = 32768	# MX_RNDV_THRESHOLD default
}
{
	frames++
	if ($3 == "") next
	mx++
	st = $14
	if (st == "") nostatus++
	if (st == "0") bad++
	if (st == "2") unverified++
	if (st == "0" && $40 !~ /\[bad checksum\]$/)
		badinfo = badinfo " " $1
	if (st != "1") next
	good++
	type = $4; seen_type[type]++
	if ($5 == "1") f_sync++
	if ($6 == "1") f_rndv++
	if ($7 == "1") f_ctrl++
	if ($8 == "1") f_ping++
	if ($9 == "1") f_fresh++
	want = 46 + $12; if (want < 60) want = 60
	if ($2 != want) badlen = badlen " " $1
	if ($37 != "") {
		retrans++
		if ($37 + 0 >= $1 + 0) badretrans = badretrans " " $1
		if ($40 !~ /\[retransmission\]$/) badinfo = badinfo " " $1
	}
	if (type == 5) names[$39] = 1
	if (type == 4 && $38 == "0" && $41 + 0 >= 1 &&
			$40 ~ / epoch=[1-9][0-9]*/) conn_ok++
	# Frames to a partner carry the low byte of its epoch (1 here).
	if (type == 1 && $45 != "") epochs[$45] = 1
	# Both sides run the memif default, MTU 1500, and say so.
	if (type == 3 || type == 4) {
		conns++
		if ($42 != "1500" || $40 !~ / mtu=1500( |$)/)
			badmtu = badmtu " " $1
	}
	# Acks from A (endpoint 1) to B (endpoint 3): explicit or carried.
	if ($44 == "1" && $10 == "1" && $11 == "3") {
		if ($43 + 0 > ack13) ack13 = $43 + 0
		if (type == 2) explicit13++
	}
	if (type == 1) eager()
	if (type == 6) { nack_seq[$27] = $28; nack_sess[$27] = $29 }
	if (type == 8) pull_of[$31] = $30
	if (type == 9) pull_rep()
}
function eager(   match_, idx, L, fmax, want_len, key) {
	match_ = $17
	if ($7 == "1") {	# notice
		nkind[$23]++
		if ($23 == "1") matched[hex($24)] = 1
		if ($23 == "2") notified[$24] = 1
		return
	}
	if (match_ == "0xffff000000000003") {	# the refused message
		late_seq = $15; late_sess = $13
		return
	}
	if (substr(match_, 1, 6) != "0x6d78" || $10 != "3" || $11 != "1")
		return
	data_frames++
	idx = hex(substr(match_, 7, 4)); L = hex(substr(match_, 11, 8))
	if (!(idx in mlen) || mlen[idx] != L) {
		badmatch = badmatch " " $1
		return
	}
	if ($15 != idx + 1) badseq = badseq " " $1 "(seq " $15 " msg " idx ")"
	if (($5 == "1") != (msync[idx] == "1")) badsync = badsync " " $1
	if (($6 == "1") != (L > eager_max)) badrndv = badrndv " " $1
	if ($40 !~ /^3->1 EAGER seq=[0-9]+ len=[0-9]+ match=0x[0-9a-f]+/)
		badinfo = badinfo " " $1
	if ($6 == "1") {
		if ($16 != 16 || $25 != L) badfrag = badfrag " " $1
		rndv_total[$26] = L
		return
	}
	fmax = $21
	want_len = L - $18; if (want_len > fmax) want_len = fmax
	if ($16 != L || $20 != ceil_div(L, fmax) || $18 != $19 * fmax ||
			$22 != want_len || $12 != $22 + 24)
		badfrag = badfrag " " $1
	key = idx "/" $19
	if (!(key in frag_seen)) {
		frag_seen[key] = 1
		frags[idx]++
		nfrags[idx] = $20
	}
	if (msync[idx] == "1") sync_seq = $15
}
function pull_rep(   r, key) {
	r = $34; key = r "/" $35
	if (key in rep_seen) return
	rep_seen[key] = 1
	rep_bytes[r] += $36
	rep_end[r] = ($35 + $36 > rep_end[r]) ? $35 + $36 : rep_end[r]
}
END {
	ok("every frame read (" frames " frames, mxtap " tap["frames"] \
		", none missed)", frames == tap["frames"] && frames > 0 &&
		tap["missed"] == 0, "mxtap: " tap["frames"] ", missed " \
		tap["missed"])
	ok("every MX frame decoded (" mx ")", mx == tap["mx"],
		"mxtap counted " tap["mx"])
	ok("a checksum status on every frame", nostatus == 0,
		nostatus " without")
	ok("good checksums: " good, good > 0 && good == tap["good"],
		"mxtap: " tap["good"])
	ok("bad checksums: " bad + 0 " (mxtap corrupted " tap["corrupted"] ")",
		bad == tap["bad"] && (corrupt ? bad > 0 : bad == 0) &&
		bad + unverified <= tap["corrupted"], "mxtap: " tap["bad"])
	ok("unverified checksums: " unverified + 0,
		unverified == tap["unverified"], "mxtap: " tap["unverified"])
	nty = split(nack ? "1 2 3 4 5 6 8 9" : "1 2 3 4 5 8 9", ty, " ")
	miss = ""
	for (i = 1; i <= nty; i++)
		if (!(ty[i] in seen_type)) miss = miss " " ty[i]
	ok("every frame type (EAGER ACK CONN_REQ CONN_REP DISCOVER " \
		(nack ? "NACK " : "") "PULL PULL_REP)", miss == "",
		"missing types" miss)
	ok("flags SYNC RNDV CTRL PING FRESH", f_sync && f_rndv && f_ctrl &&
		f_ping && f_fresh, f_sync "/" f_rndv "/" f_ctrl "/" f_ping "/" f_fresh)
	ok("notices MATCHED and NOTIFY", nkind[1] && nkind[2],
		nkind[1] "/" nkind[2])
	ok("match information names a sent message", badmatch == "" &&
		data_frames > 0, "frames" badmatch)
	ok("sequence numbers: message i is seq i+1", badseq == "", badseq)
	ok("SYNC exactly on the issend", badsync == "", "frames" badsync)
	ok("RNDV exactly above " eager_max " bytes", badrndv == "",
		"frames" badrndv)
	ok("fragment lengths and offsets consistent", badfrag == "",
		"frames" badfrag)
	miss = ""
	for (i = 0; i < nmsg; i++)
		if (mlen[i] <= eager_max && frags[i] != nfrags[i])
			miss = miss " " i
	ok("every fragment of every eager message", nmsg > 0 && miss == "",
		"incomplete messages" miss)
	ok("frame length = max(60, 46 + length)", badlen == "", "frames" badlen)
	ok("MATCHED names the issend seq " sync_seq, sync_seq in matched, "")
	miss = ""; n = 0
	for (h in rndv_total) {
		n++
		if (!(h in notified)) miss = miss " notify:" h
		r = ""
		for (rh in pull_of) if (pull_of[rh] == h) r = rh
		if (r == "" || rep_bytes[r] != rndv_total[h] ||
				rep_end[r] != rndv_total[h])
			miss = miss " pulled:" h "(" rep_bytes[r] "/" \
				rndv_total[h] ")"
	}
	ok("pull replies cover each of " n " large messages, each NOTIFYed",
		n == 3 && miss == "", miss)
	if (nack)
		ok("NACK refuses the late message (seq " late_seq \
			", reason closed)", late_seq != "" &&
			nack_seq[late_seq] == "1" &&
			nack_sess[late_seq] == late_sess, "")
	ok("every message acknowledged: A acks " ack13 " >= " nmsg \
		" messages, " explicit13 + 0 " explicit ACKs", nmsg > 0 &&
		ack13 >= nmsg && explicit13 > 0, "")
	ok("retransmissions marked: " retrans, retrans > 0 && badretrans == "",
		"frames" badretrans)
	ok("DISCOVER names nodeA:0 nodeB:0", ("nodeA:0" in names) &&
		("nodeB:0" in names), "")
	ok("CONN_REP status OK, epoch >= 1", conn_ok > 0, "")
	ok("EAGER frames carry the low byte of the epoch (1)", (1 in epochs) &&
		!(0 in epochs), "")
	ok("CONN_REQ/REP carry their senders MTU (1500)", conns > 0 &&
		badmtu == "", "frames" badmtu)
	ok("info column: EAGER seq= len= match=, [bad checksum], " \
		"[retransmission]", badinfo == "", "frames" badinfo)
	print passed + 0 " passed, " failed + 0 " failed" > resfile
}' "$dir/$1.tsv"
}

# check_pp <name>: the checks on a capture of mx_pingpong -V (nodeA
# endpoint 1 echoes nodeB endpoint 2's messages, lengths 0 to 65536).
check_pp() {
	awk -F'\t' -v tapfile="$dir/$1.tap" -v resfile="$dir/$1.result" \
		-v name="$1" '
function ok(what, cond, detail) {
	if (cond) { print "ok: " name ": " what; passed++ }
	else { print "FAIL: " name ": " what " (" detail ")"; failed++ }
}
BEGIN {
	getline tapline < tapfile
	nt = split(tapline, t, " ")
	for (i = 2; i < nt; i += 2) tap[t[i]] = t[i + 1]
	eager_max = 32768
}
{
	frames++
	if ($3 == "") next
	mx++
	if ($14 != "1") { notgood++; next }
	good++
	type = $4; seen_type[type]++
	dir = $10 "->" $11
	if ($44 == "1" && $43 + 0 > maxack[dir]) maxack[dir] = $43 + 0
	if (type == 1) {	# messages and notices share the numbers
		if ($37 == "") seqs[dir, $15 + 0] = 1
		if ($15 + 0 > maxseq[dir]) maxseq[dir] = $15 + 0
	}
	# Handles are keyed by the endpoint that sends the data: both
	# sides number theirs alike.
	if (type == 1 && $7 == "1" && $23 == "2") notified[$11, $24] = 1
	if (type == 1 && $7 != "1" && $6 == "1") {
		rndv_total[$10, $26] = $25; rndv_dir[$10, $26] = dir
	}
	if (type == 1 && $7 != "1" && $6 != "1") lens[dir, $16 + 0] = 1
	if (type == 8) pull_of[$11, $31] = $30
	if (type == 9 && !(($10, $34, $35) in rep_seen)) {
		rep_seen[$10, $34, $35] = 1
		rep_bytes[$10, $34] += $36
	}
}
END {
	ok("every frame read (" frames " frames, mxtap " tap["frames"] \
		", none missed)", frames == tap["frames"] && frames > 0 &&
		tap["missed"] == 0, "mxtap: " tap["frames"] ", missed " \
		tap["missed"])
	ok("every MX frame decoded (" mx "), every check good", mx == \
		tap["mx"] && notgood == 0 && good == tap["good"],
		notgood + 0 " not good, mxtap good " tap["good"])
	split("1 2 3 4 5 8 9", ty, " ")
	miss = ""
	for (i = 1; i <= 7; i++)
		if (!(ty[i] in seen_type)) miss = miss " " ty[i]
	ok("frame types EAGER ACK CONN_REQ CONN_REP DISCOVER PULL PULL_REP",
		miss == "", "missing" miss)
	split("2->1 1->2", dirs, " ")
	for (k = 1; k <= 2; k++) {
		d = dirs[k]; miss = ""
		for (l = 0; l <= eager_max; l = l ? l * 2 : 1)
			if (!((d, l) in lens)) miss = miss " " l
		ok(d ": eager messages of every length 0.." eager_max,
			miss == "", "missing" miss)
		n = 0; bad = ""
		for (key in rndv_total) {
			if (rndv_dir[key] != d) continue
			n++
			split(key, kh, SUBSEP)	# sender, send handle
			r = ""
			for (rk in pull_of) {
				split(rk, kr, SUBSEP)	# sender, recv handle
				if (kr[1] == kh[1] && pull_of[rk] == kh[2])
					r = kr[2]
			}
			if (rndv_total[key] != 65536 || r == "" ||
					rep_bytes[kh[1], r] != 65536 ||
					!((kh[1], kh[2]) in notified))
				bad = bad " " kh[2]
		}
		ok(d ": " n " rendezvous of 65536 bytes, each pulled whole " \
			"and NOTIFYed", n > 0 && bad == "", "handles" bad)
		miss = ""
		for (q = 1; q <= maxseq[d]; q++)
			if (!((d, q) in seqs)) miss = miss " " q
		ok(d ": sequence numbers 1.." maxseq[d] " without a gap",
			maxseq[d] > 0 && miss == "", "missing" miss)
		split(d, e, "->")
		back = e[2] "->" e[1]
		ok(d ": every message acknowledged (ack " maxack[back] \
			" >= seq " maxseq[d] ")", maxack[back] >= maxseq[d], "")
	}
	print passed + 0 " passed, " failed + 0 " failed" > resfile
}' "$dir/$1.tsv"
}

# check_ptl <name> <put|get>: the checks on a capture of ptl_pingpong -V
# (puts with ACKs, or gets; lengths 0 to 65536): every frame decoded with
# a good check, every Portals header well formed, a PUT (or a GET and its
# REPLY) of every length, an ACK for every PUT, and each message above a
# frame a rendezvous whose descriptor carries the header padded to 72
# bytes (MXD_PTL_HEAD), pulled whole after it.
check_ptl() {
	awk -F'\t' -v tapfile="$dir/$1.tap" -v resfile="$dir/$1.result" \
		-v name="$1" -v mode="$2" '
function ok(what, cond, detail) {
	if (cond) { print "ok: " name ": " what; passed++ }
	else { print "FAIL: " name ": " what " (" detail ")"; failed++ }
}
BEGIN {
	getline tapline < tapfile
	nt = split(tapline, t, " ")
	for (i = 2; i < nt; i += 2) tap[t[i]] = t[i + 1]
}
{
	frames++
	if ($3 == "") next
	mx++
	if ($14 != "1") { notgood++; next }
	good++
	if ($40 ~ /malformed|\[drop/) bad = bad " " $1
	if ($37 != "") next		# a copy: counted once
	if ($46 != "") {
		if ($50 != "0x50544c33") badfilter++
		kinds[$46]++
		if ($46 == 1) { putlen[$47 + 0] = 1; if ($51 == "1") askack++ }
		if ($46 == 2) getlen[$47 + 0] = 1
		if ($46 == 4) replylen[$48 + 0] = 1
	}
	if ($4 == 1 && $6 == "1") {
		rndv++
		if ($49 != "72") nohead = nohead " " $1
		rndv_total[$10, $26] = $25
	}
	if ($4 == 8) pull_of[$11, $31] = $30
	if ($4 == 9 && !(($10, $34, $35) in rep_seen)) {
		rep_seen[$10, $34, $35] = 1
		rep_bytes[$10, $34] += $36
	}
}
END {
	ok("every frame read (" frames " frames, mxtap " tap["frames"] \
		", none missed)", frames == tap["frames"] && frames > 0 &&
		tap["missed"] == 0, "mxtap: " tap["frames"] ", missed " \
		tap["missed"])
	ok("every MX frame decoded (" mx "), every check good", mx == \
		tap["mx"] && notgood == 0 && good == tap["good"],
		notgood + 0 " not good, mxtap good " tap["good"])
	ok("every Portals header well formed, none dropped", bad == "",
		"frames" bad)
	ok("every Portals message to an endpoint of the Portals filter",
		badfilter == 0 && kinds[1] + kinds[2] > 0, badfilter + 0)
	miss = ""
	for (l = 0; l <= 65536; l = l ? l * 2 : 1)
		if (!((mode == "put" && l in putlen) ||
				(mode == "get" && l in getlen && l in replylen)))
			miss = miss " " l
	ok(mode " of every length 0..65536", miss == "", "missing" miss)
	if (mode == "put")
		ok("an ACK for every PUT that asked one (" askack + 0 " of " \
			kinds[1] + 0 " PUTs, " kinds[3] + 0 " ACKs)", askack > 0 &&
			kinds[3] == askack, "")
	else
		ok("a REPLY for every GET (" kinds[2] + 0 ")", kinds[2] > 0 &&
			kinds[4] == kinds[2], kinds[4] + 0 " replies")
	nbad = ""
	for (key in rndv_total) {
		split(key, kh, SUBSEP)
		r = ""
		for (rk in pull_of) {
			split(rk, kr, SUBSEP)
			if (kr[1] == kh[1] && pull_of[rk] == kh[2]) r = kr[2]
		}
		if (r == "" || rep_bytes[kh[1], r] != rndv_total[key] - 72)
			nbad = nbad " " kh[2]
	}
	ok(rndv + 0 " rendezvous, each with the 72-byte head and pulled " \
		"whole after it", rndv > 0 && nohead == "" && nbad == "",
		"no head:" nohead " not pulled whole:" nbad)
	print passed + 0 " passed, " failed + 0 " failed" > resfile
}' "$dir/$1.tsv"
}

# result <name> <check ...>: decodes $dir/<name>.pcap, runs the check and
# adds its counts to the totals.
result() {
	local name=$1 p= f=
	shift
	if ! decode "$name"; then
		echo "FAIL: $name: tshark failed:"; cat "$dir/$name.tshark.err"
		fails=$((fails + 1))
		return
	fi
	echo "== $name: $(cat "$dir/$name.tap")"
	"$@"
	read -r p _ f _ <"$dir/$name.result" 2>/dev/null
	case "$p$f" in
	''|*[!0-9]*) echo "FAIL: $name: the checks did not run"; p=0; f=1 ;;
	esac
	passes=$((passes + p))
	fails=$((fails + f))
}

wt() {	# the wire_traffic commands for A and B
	echo "$wt_a $build/tests/wire_traffic a -- $wt_b $build/tests/wire_traffic b"
}

# Over memif, through the relay: wire_traffic with and without corruption,
# then mx_pingpong.
for run in corrupt:"corrupt=3%,seed=5" clean:""; do
	name=${run%%:*}
	if ! memif_run "$name" "${run#*:}" "a ready" $(wt); then
		fails=$((fails + 1))
		continue
	fi
	grep "^message " "$dir/$name/b.log" >"$dir/$name.msgs"
	result "$name" check_wt "$name" \
		"$([ "$name" = corrupt ] && echo 1 || echo 0)" 1
done
if memif_run pingpong "" "receiver on board" \
		"$build/apps/mx_pingpong" -e 1 -- \
		"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 $pp_args; then
	result pingpong check_pp pingpong
else
	fails=$((fails + 1))
fi

# Portals (ptl_pingpong -V): puts with ACKs, then gets.
for mode in put get; do
	flag=-a; [ $mode = get ] && flag=-g
	if memif_run "ptl-$mode" "" "receiver on board" \
			"$build/apps/ptl_pingpong" -- \
			"$build/apps/ptl_pingpong" -d nodeA:0 $pp_args $flag; then
		result "ptl-$mode" check_ptl "ptl-$mode" $mode
	else
		fails=$((fails + 1))
	fi
done

# Over veth with net_pcap, sniffed: the same without a relay.
if why=$(veth_check); then
	if veth_run veth "a ready" $(wt); then
		grep "^message " "$dir/veth/b.log" >"$dir/veth.msgs"
		result veth check_wt veth 0 0
	else
		fails=$((fails + 1))
	fi
	if veth_run veth-pingpong "receiver on board" \
			"$build/apps/mx_pingpong" -e 1 -- \
			"$build/apps/mx_pingpong" -d nodeA:0 -r 1 -e 2 $pp_args
	then
		result veth-pingpong check_pp veth-pingpong
	else
		fails=$((fails + 1))
	fi
else
	echo "skip: the veth captures (net_pcap between two network" \
		"namespaces): $why"
fi
# A shared board's connect frames (conn_frames, from the wire code): the
# slot each says (caps bit 3 and bits 4-7), and none from a process that
# owns its board.
if "$build/tests/conn_frames" "$dir/conn.pcap" &&
		timeout 60 tshark -n -X lua_script:"$lua" -r "$dir/conn.pcap" \
		-T fields -E occurrence=f -e mxdpdk.type -e mxdpdk.conn.slot \
		-e mxdpdk.csum.status -e _ws.col.Info >"$dir/conn.tsv" \
		2>"$dir/conn.err"; then
	got=$(tr '\t' '|' <"$dir/conn.tsv")
	want=$(printf '3|3|1|%s\n4|5|1|%s\n3||1|%s' \
		"$(sed -n 1p "$dir/conn.tsv" | cut -f4)" \
		"$(sed -n 2p "$dir/conn.tsv" | cut -f4)" \
		"$(sed -n 3p "$dir/conn.tsv" | cut -f4)")
	if [ "$got" = "$want" ] &&
			sed -n 1p "$dir/conn.tsv" | grep -q " slot=3" &&
			sed -n 2p "$dir/conn.tsv" | grep -q " slot=5" &&
			! sed -n 3p "$dir/conn.tsv" | grep -q "slot="; then
		echo "ok: shared board connect frames: slots 3 and 5, none from an exclusive board"
		passes=$((passes + 1))
	else
		echo "FAIL: shared board connect frames: got"
		sed 's/^/  /' "$dir/conn.tsv"
		fails=$((fails + 1))
	fi
else
	echo "FAIL: shared board connect frames: no capture or no decode"
	fails=$((fails + 1))
fi
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
