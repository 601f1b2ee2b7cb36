#!/usr/bin/env bash
# MPICH over mx-dpdk (mpich/README): an opt-in suite, too slow for CI.
#
#   scripts/mpich.sh [all]        build what changed, run every test and
#                                 the bench, summary
#   scripts/mpich.sh build        only build and install (cached)
#   scripts/mpich.sh test [T...]  tests: allsizes mpich shared (default:
#                                 all three); MPICH_NP="2 4" MPICH_GROUPS=
#                                 "pt2pt coll comm" narrow the mpich one,
#                                 MPICH_SHARED_GROUPS="pt2pt" the shared one
#   scripts/mpich.sh bench        latency/bandwidth, mx netmod beside tcp and
#                                 beside mx_pingpong (ROUNDS=5 ITERS=10000,
#                                 interleaved), and the two latency bars
#                                 (below tcp; within 1.3x of mx_pingpong)
#
# It installs the Debian packages it needs, builds mx-dpdk and installs it
# into the cache, fetches Debian's MPICH source package (apt-get source,
# through a deb-src list of its own: the system's apt setup is not
# changed), adds the netmod (mpich/netmod/mx), and builds MPICH 4.0.2
# with --with-device=ch3:nemesis:mx,tcp (tcp is the control) into the
# cache.  MPICH is configured again only when its source or the netmod's
# build files change; a netmod source or libmyriexpress.a change only
# recompiles and relinks (under a minute).
#
# Cache: $MXD_MPICH_CACHE (default <top>/build-mpich).  Every test prints
# one line; the last lines are the summary.  Network namespaces, a bridge,
# veth pairs and memif sockets are made for the run and removed at exit.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${MXD_MPICH_CACHE:-$top/build-mpich}
jobs=$(nproc)
mpich_flags="--with-device=ch3:nemesis:mx,tcp --with-pm=hydra --with-hwloc=/usr
	--with-datatype-engine=dataloop --disable-fortran --disable-cxx
	--disable-romio --disable-static"
# --no-telemetry: ranks starting together race for DPDK's telemetry socket
# path, and the loser prints "TELEMETRY: Error binding socket", which
# runtests counts as a failure.
EAL="--no-huge -m 256 --no-shconf --no-pci --no-telemetry --log-level=error"
NS=mxmpi			# namespaces mxmpi0.., veths mxv<r> in them
BR=mxmpibr			# the bridge, ports mxmpib<r>
NET=10.77.0.			# rank r: 10.77.0.<r+1> (tcp control)
run=
mode=${1:-all}
[ $# -gt 0 ] && shift

log() { printf '%s\n' "$*" >&2; }

# ---- packages ------------------------------------------------------------------

deps() {
	local pkgs="autoconf automake libtool libhwloc-dev dpkg-dev perl
		iproute2 procps" missing=
	"$top/scripts/deps.sh"
	for p in $pkgs; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing:$missing"
	local SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing \
		>/dev/null
}

# ---- mx-dpdk -------------------------------------------------------------------

build_mx() {
	local b=$cache/mx-build src=
	# A cache shared between checkouts (MXD_MPICH_CACHE) must build this
	# one's library, not the one it was first configured from.
	if [ -f "$b/meson-info/meson-info.json" ]; then
		src=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["directories"]["source"])' "$b/meson-info/meson-info.json")
	fi
	if [ -n "$src" ] && [ "$(cd "$src" 2>/dev/null && pwd -P)" != "$(cd "$top" && pwd -P)" ]; then
		log "mx-dpdk build in the cache was from $src: set up again from $top"
		rm -rf "$b"
	fi
	if [ ! -f "$b/build.ninja" ]; then
		meson setup "$b" "$top" -Dtests=false --prefix="$cache/mx" \
			>/dev/null
	fi
	ninja -C "$b" -j"$jobs" >/dev/null
	meson install -C "$b" >/dev/null
	# The netmod goes into libmpi.so with the archive: no shared
	# libmyriexpress for -lmyriexpress to find first (and then for every
	# MPI program to need at run time).
	rm -f "$cache"/mx/lib/*/libmyriexpress.so*
	MXPC=$(dirname "$(find "$cache/mx" -name myriexpress.pc | head -1)")
	MXLIB=$(find "$cache/mx" -name libmyriexpress.a | head -1)
}

# ---- MPICH source --------------------------------------------------------------

# Debian's deb-src for the Debian archives apt already uses, in a private
# apt state folder: no change to the system's sources.  The source package
# is downloaded once; MXD_MPICH_UPDATE=1 looks for a newer Debian revision
# (a new one rebuilds MPICH from scratch).
fetch_source() {
	local a=$cache/apt
	DSC=$(ls -t "$cache"/dl/mpich_*.dsc 2>/dev/null | head -1)
	if [ -n "$DSC" ] && [ "${MXD_MPICH_UPDATE:-0}" = 0 ]; then
		return 0
	fi
	mkdir -p "$a/lists/partial" "$a/archives/partial" "$cache/dl"
	if ! apt-get indextargets 'Created-By: Packages' | grep -q .; then
		apt-get update -q >/dev/null
	fi
	apt-get indextargets --format '$(ORIGIN)|$(REPO_URI)|$(RELEASE)|$(COMPONENT)' \
		'Created-By: Packages' | sort -u |
		awk -F'|' '$1 == "Debian" { print "deb-src " $2 " " $3 " " $4 }' \
		>"$a/sources.list"
	[ -s "$a/sources.list" ] || { log "no Debian archive in apt's sources"; exit 1; }
	APTO=(-o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o Dir::State::Lists="$a/lists" -o Dir::Cache::Archives="$a/archives"
		-o APT::Sandbox::User=root)
	apt-get "${APTO[@]}" update -q >/dev/null
	(cd "$cache/dl" && apt-get "${APTO[@]}" source --download-only -q mpich \
		>/dev/null)
	DSC=$(ls -t "$cache"/dl/mpich_*.dsc | head -1)
}

# The source tree of $DSC in the cache: mpich-<upstream version>.
src_dir() {
	local v
	v=$(sed -n 's/^Version: *//p' "$DSC" | head -1)
	v=${v#*:}
	echo "$cache/src/mpich-${v%-*}"
}

netmod_files() { ls "$top"/mpich/netmod/mx/*; }

# Links the netmod's files into the tree: make sees every change, and no
# stale copy is left behind.
sync_netmod() {
	local d=$SRC/src/mpid/ch3/channels/nemesis/netmod/mx f
	mkdir -p "$d"
	for f in $(netmod_files); do
		ln -sfn "$f" "$d/$(basename "$f")"
	done
}

# A fresh tree: Debian's source with its patches, plus the netmod.
prepare_tree() {
	rm -rf "$cache/src" "$cache/install"
	mkdir -p "$cache/src"
	dpkg-source --no-check -x "$DSC" "$SRC" >/dev/null
	sync_netmod
	echo 'include $(top_srcdir)/src/mpid/ch3/channels/nemesis/netmod/mx/Makefile.mk' \
		>>"$SRC/src/mpid/ch3/channels/nemesis/netmod/Makefile.mk"
	(cd "$SRC" && maint/gen_subcfg_m4 >/dev/null && autoreconf -fi \
		>"$cache/autoreconf.log" 2>&1)
}

build_mpich() {
	local key stamp
	SRC=$(src_dir)
	key=$( (cat "$DSC"; cat "$top"/mpich/netmod/mx/subconfigure.m4 \
		"$top"/mpich/netmod/mx/Makefile.mk; echo "$mpich_flags") |
		sha256sum | cut -c1-16)
	if [ "$(cat "$cache/mpich.key" 2>/dev/null)" != "$key" ]; then
		log "MPICH: configuring from $(basename "$DSC") (several minutes)"
		rm -f "$cache/mpich.key" "$cache/netmod.key"
		prepare_tree
		(cd "$SRC" && PKG_CONFIG_PATH=$MXPC ./configure \
			--prefix="$cache/install" $mpich_flags \
			>"$cache/configure.log" 2>&1) ||
			{ log "configure failed: $cache/configure.log"; exit 1; }
		echo "$key" >"$cache/mpich.key"
	fi
	sync_netmod
	stamp=$( (cat $(netmod_files) "$MXLIB") | sha256sum | cut -c1-16)
	if [ "$(cat "$cache/netmod.key" 2>/dev/null)" != "$stamp" ]; then
		log "MPICH: building (the first time several minutes)"
		rm -f "$SRC/lib/libmpi.la"	# relinks with a new libmyriexpress.a
		# install -p: headers keep their dates, or every test
		# program would be rebuilt (runtests makes each one it runs).
		# PKG_CONFIG_PATH: make runs configure again when the
		# netmod's build files are newer than its output.
		(cd "$SRC" && export PKG_CONFIG_PATH=$MXPC &&
			make -j"$jobs" >"$cache/make.log" 2>&1 &&
			make install INSTALL="$(command -v install) -c -p" \
			>>"$cache/make.log" 2>&1) ||
			{ log "make failed: $cache/make.log"; exit 1; }
		echo "$stamp" >"$cache/netmod.key"
	fi
	MPI=$cache/install
}

# Our MPI programs, and MPICH's test groups (built once, kept).
build_tests() {
	local t
	mkdir -p "$cache/tests"
	for t in "$top"/mpich/tests/*.c; do
		local exe=$cache/tests/$(basename "$t" .c)
		if [ ! -x "$exe" ] || [ "$t" -nt "$exe" ] ||
				[ "$MPI/lib/libmpi.so" -nt "$exe" ]; then
			"$MPI/bin/mpicc" -O2 -Wall -o "$exe" "$t"
		fi
	done
	# The groups' test lists (configure makes them) without sendflood,
	# which overloads 2 cores: every other test runs.
	for g in pt2pt coll comm; do
		grep -v '^sendflood ' "$SRC/test/mpi/$g/testlist" \
			>"$SRC/test/mpi/$g/testlist.mx"
	done
	# Linked with libmpi.so: built once per MPICH configuration (make
	# would rebuild them all after every install of mpi.h).
	for g in pt2pt coll comm; do
		[ "$(cat "$cache/tests-$g.key" 2>/dev/null)" = "$(cat "$cache/mpich.key")" ] &&
			continue
		log "MPICH: building test/mpi/$g (once, several minutes)"
		make -C "$SRC/test/mpi/$g" -j"$jobs" >"$cache/tests-$g.log" 2>&1 ||
			{ log "building test/mpi/$g failed: $cache/tests-$g.log"; exit 1; }
		cp "$cache/mpich.key" "$cache/tests-$g.key"
	done
	make -C "$SRC/test/mpi/util" >/dev/null 2>&1 || true
}

build() {
	deps
	build_mx
	fetch_source
	build_mpich
	build_tests
}

# ---- virtual wires ------------------------------------------------------------

net_down() {
	local n
	for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$NS[0-9]*$"); do
		ip netns del "$n"
	done
	ip link del "$BR" 2>/dev/null || true
	# The veths go with their namespace, but the kernel tears it down
	# later: until their host ends are gone, adding them again fails
	# ("RTNETLINK answers: File exists", which ended a whole run once).
	for _ in $(seq 50); do
		ip -br link | grep -q '^mxmpib' || break
		sleep 0.1
	done
}

ns_up() {	# ns_up r: namespace r, loopback up, no IPv6 chatter
	ip netns add "$NS$1"
	ip -n "$NS$1" link set lo up
	ip netns exec "$NS$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$NS$1" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
}

veth_in() {	# veth_in r: address and link of mxv<r> in namespace r
	ip -n "$NS$1" addr add "$NET$(($1 + 1))/24" dev "mxv$1"
	ip -n "$NS$1" link set "mxv$1" up
}

# Two namespaces joined by one veth pair (benchmarks).
net_pair() {
	net_down
	ns_up 0
	ns_up 1
	ip link add mxv0 netns "${NS}0" type veth peer name mxv1 netns "${NS}1"
	veth_in 0
	veth_in 1
}

# n namespaces on a Linux bridge: a real L2 switch, no code of ours.
net_bridge() {
	local r
	net_down
	ip link add "$BR" type bridge
	ip link set "$BR" up
	for r in $(seq 0 $(($1 - 1))); do
		ns_up "$r"
		ip link add "mxmpib$r" type veth peer name "mxv$r" netns "$NS$r"
		ip link set "mxmpib$r" master "$BR" up
		veth_in "$r"
	done
	sleep 1		# the bridge learns and forwards
}

cleanup() {
	[ -n "${shared_on:-}" ] && shared_down
	net_down
	[ -n "$run" ] && rm -rf "$run"
	return 0
}

# ---- running MPI ----------------------------------------------------------------

# Environments: where each rank's port is.  The netmod expands %r, %x and
# %R per rank (mpich/README); mx-rank puts rank r in namespace r.
env_memif() {
	E=(MX_DPDK_ARGS="$EAL --vdev=net_memif0,role=%R,socket=$run/memif.sock,mac=02:00:00:00:00:%x"
		MPIR_CVAR_NOLOCAL=1)
}
env_afp() {
	E=(MX_DPDK_ARGS="$EAL --vdev=net_af_packet0,iface=mxv%r"
		MXMPI_NETNS=$NS MPIR_CVAR_NOLOCAL=1)
}
env_tcp() {
	E=(MPIR_CVAR_NEMESIS_NETMOD=tcp MXMPI_NETNS=$NS MXMPI_TCP_NET=$NET
		MPIR_CVAR_NOLOCAL=1)
}

mpirun() {	# mpirun np prog args... (with E set)
	local np=$1; shift
	env "${E[@]}" timeout "${MPIRUN_TIMEOUT:-600}" "$MPI/bin/mpiexec" \
		-n "$np" "$top/mpich/mx-rank" "$@"
}

PASS=0 FAIL=0 SUMMARY=()
result() {	# result ok|FAIL name detail
	printf '%-4s %-40s %s\n' "$1" "$2" "$3"
	if [ "$1" = ok ]; then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); fi
	SUMMARY+=("$1 $2")
}

# Shared boards: two hosts (namespaces 0 and 1), each one board service
# (mx_board) whose board is one memif port to the other host's; 4 ranks on
# each host share its board (MX_BOARD_SHARED=1).  MPICH takes the ranks of
# one namespace for one node when told so (MPIR_CVAR_NUM_CLIQUES=2: rank r
# in clique r % 2, as mx-rank puts rank r on host r % 2): those talk
# through Nemesis's shared memory, the others through the mx netmod.
SHARED_BOARD=$cache/mx/bin/mx_board
shared_up() {
	local h role i
	net_down
	ns_up 0
	ns_up 1
	shared_on=1
	for h in 0 1; do
		role=client
		[ "$h" = 0 ] && role=server
		ip netns exec "$NS$h" env MX_HOSTNAME=mpihost$h MX_BOARD_SLOTS=8 \
			MX_DPDK_ARGS="$EAL --vdev=net_memif0,role=$role,socket=$run/shared.sock,socket-abstract=no,mac=02:00:00:00:5b:0$h" \
			"$SHARED_BOARD" start >&2 || return 1
	done
	for i in $(seq 100); do
		ip netns exec "${NS}1" env MX_HOSTNAME=mpihost1 "$SHARED_BOARD" \
			status | grep -q ": up " && return 0
		sleep 0.1
	done
	log "shared boards: the memif link between the two hosts is down"
	return 1
}
shared_down() {
	local h
	for h in 0 1; do
		ip netns exec "$NS$h" env MX_HOSTNAME=mpihost$h "$SHARED_BOARD" \
			stop -f >/dev/null 2>&1 || true
	done
	rm -f /tmp/mx-board.mpihost0.log /tmp/mx-board.mpihost1.log \
		"$run/shared.sock"
	shared_on=
	net_down
}
env_shared() {	# env_shared hosts: ranks r on host r % hosts
	E=(MX_BOARD_SHARED=1 MXMPI_HOSTS=$1 MXMPI_HOST_PREFIX=mpihost
		MXMPI_NETNS=$NS MPIR_CVAR_NUM_CLIQUES=$1)
}
# The same-host path (messages between the processes of a host through
# shared memory, not the wire) is in the tree.
same_host_path() { [ -f "$top/lib/engine/shm.c" ]; }

# ---- tests ------------------------------------------------------------------------

# Every size 0..64 MiB between all pairs, with MX_FAULTS loss.
test_allsizes() {
	local out
	env_memif
	E+=(MX_FAULTS="drop=1%,seed=%r7")
	if out=$(mpirun 2 "$cache/tests/mpi_allsizes" 2>&1) &&
			grep -q "every byte checked: ok" <<<"$out"; then
		result ok allsizes-memif-2-drop1% "$(grep -o '[0-9]* messages.*' <<<"$out")"
	else
		result FAIL allsizes-memif-2-drop1% "$(tail -3 <<<"$out" | tr '\n' ' ')"
	fi
	net_bridge 4
	env_afp
	E+=(MX_FAULTS="drop=1%,seed=%r3")
	if out=$(mpirun 4 "$cache/tests/mpi_allsizes" 2>&1) &&
			grep -q "every byte checked: ok" <<<"$out"; then
		result ok allsizes-bridge-4-drop1% "$(grep -o '[0-9]* messages.*' <<<"$out")"
	else
		result FAIL allsizes-bridge-4-drop1% "$(tail -3 <<<"$out" | tr '\n' ' ')"
	fi
	net_down
}

# One MPICH test group with at most np ranks; TAP file in $run.
mpich_group() {	# label group np
	local tap=$run/$1.tap
	(cd "$SRC/test/mpi" && env "${E[@]}" MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-180} \
		MPITEST_PROGRAM_WRAPPER="$top/mpich/mx-rank" \
		./runtests -srcdir=. -tests=testlist.mx -testdirs="$2" \
		-maxnp="$3" -mpiexec="$MPI/bin/mpiexec" -tapfile="$tap" \
		>"$run/$1.log" 2>&1) || true
	local ok nok
	ok=$(grep -c '^ok ' "$tap" || true)
	nok=$(grep -c '^not ok ' "$tap" || true)
	grep '^not ok ' "$tap" | sed 's/^not ok [0-9]* - \.\///; s/ # time=.*//' \
		| sort >"$run/$1.failed"
	printf '%s %s %s\n' "$ok" "$nok" "$(tr '\n' ',' <"$run/$1.failed")" \
		>"$run/$1.count"
}

test_mpich() {
	local g np label
	for np in ${MPICH_NP:-2 4}; do
		for g in ${MPICH_GROUPS:-pt2pt coll comm}; do
			if [ "$np" = 2 ]; then
				env_memif
			else
				net_bridge 4
				env_afp
			fi
			label=mx-$g-$np
			mpich_group "$label" "$g" "$np"
			net_bridge 4
			env_tcp
			mpich_group "tcp-$g-$np" "$g" "$np"
			net_down
			mpich_report "$g" "$np"
		done
	done
}

# A group passes when every failure also fails with ch3:nemesis:tcp.
mpich_report() {	# group np
	local m=$run/mx-$1-$2 t=$run/tcp-$1-$2 only shared
	read -r mok mnok _ <"$m.count"
	read -r tok tnok _ <"$t.count"
	only=$(comm -23 "$m.failed" "$t.failed" | tr '\n' ' ')
	shared=$(comm -12 "$m.failed" "$t.failed" | tr '\n' ' ')
	local detail="mx $mok passed, $mnok failed; tcp $tok passed, $tnok failed"
	[ -n "$shared" ] && detail="$detail; both fail: $shared"
	if [ -z "$only" ] && [ "$mok" -gt 0 ]; then
		result ok "mpich-$1-np$2" "$detail"
	else
		result FAIL "mpich-$1-np$2" "$detail; only mx fails: $only"
	fi
}

# Shared boards, 4 ranks per host: every size between all pairs; MPICH's
# groups (pt2pt by default) with up to 8 ranks beside ch3:nemesis:tcp with
# as many (8 namespaces on a bridge); intra-host latency.
test_shared() {
	local out g
	if ! shared_up; then
		result FAIL shared-boards "the board services did not start"
		shared_down
		return
	fi
	env_shared 2
	if out=$(mpirun 8 "$cache/tests/mpi_allsizes" 2>&1) &&
			grep -q "every byte checked: ok" <<<"$out"; then
		result ok allsizes-shared-8 "$(grep -o '[0-9]* messages.*' <<<"$out")"
	else
		result FAIL allsizes-shared-8 "$(tail -3 <<<"$out" | tr '\n' ' ')"
	fi
	for g in ${MPICH_SHARED_GROUPS:-pt2pt}; do
		mpich_group "mx-$g-shared8" "$g" 8
	done
	shared_down
	for g in ${MPICH_SHARED_GROUPS:-pt2pt}; do
		net_bridge 8
		env_tcp
		mpich_group "tcp-$g-shared8" "$g" 8
		net_down
		mpich_compare "mpich-$g-shared-4x2" "mx-$g-shared8" "tcp-$g-shared8"
	done
	shared_latency
}

# 8-byte MPI latency between two ranks of one host: through the mx netmod
# (the same-host path of a shared board; MPIR_CVAR_NOLOCAL=1) beside
# MPICH's own shared memory, in the same run, interleaved; and between
# two hosts through their shared boards, for scale.
shared_latency() {
	local rounds=${ROUNDS:-3} r out shm mx inter
	ITERS=${ITERS:-10000}
	: >"$run/shared-latency"
	if ! shared_up; then
		result FAIL latency-8B-same-host "the board services did not start"
		shared_down
		return 0
	fi
	for r in $(seq 1 "$rounds"); do
		E=(MXMPI_HOSTS=1 MXMPI_NETNS=$NS MX_BOARD_SHARED=1
			MXMPI_HOST_PREFIX=mpihost)
		shm=$(pp_lat)
		mx=-
		if same_host_path; then
			E+=(MPIR_CVAR_NOLOCAL=1)
			mx=$(pp_lat)
		fi
		env_shared 2
		inter=$(pp_lat)
		echo "$mx $shm $inter" >>"$run/shared-latency"
	done
	shared_down
	col() { awk -v c="$1" '$c != "-" { print $c }' "$run/shared-latency" | median; }
	if same_host_path; then
		printf 'num  %-40s %s\n' "latency-8B-same-host" "mx netmod (shared board, same-host path) $(col 1) us, MPICH shared memory $(col 2) us; between two hosts (shared boards over memif) $(col 3) us"
	else
		printf 'num  %-40s %s\n' "latency-8B-same-host" "mx netmod: - (the same-host path is not in this tree), MPICH shared memory $(col 2) us; between two hosts (shared boards over memif) $(col 3) us"
	fi
}

# mpi_pingpong at 8 bytes with E set: the mean half round trip.
pp_lat() {
	local out
	out=$(MPIRUN_TIMEOUT=300 mpirun 2 "$cache/tests/mpi_pingpong" \
		-S 8 -E 8 -N "$ITERS" 2>&1) || { log "$out"; echo -; return; }
	awk '$1 == 8 { print $2 }' <<<"$out"
}

# A group passes when every failure also fails with ch3:nemesis:tcp.
mpich_compare() {	# name mx-label tcp-label
	local m=$run/$2 t=$run/$3 only shared
	read -r mok mnok _ <"$m.count"
	read -r tok tnok _ <"$t.count"
	only=$(comm -23 "$m.failed" "$t.failed" | tr '\n' ' ')
	shared=$(comm -12 "$m.failed" "$t.failed" | tr '\n' ' ')
	local detail="mx $mok passed, $mnok failed; tcp $tok passed, $tnok failed"
	[ -n "$shared" ] && detail="$detail; both fail: $shared"
	if [ -z "$only" ] && [ "$mok" -gt 0 ]; then
		result ok "$1" "$detail"
	else
		result FAIL "$1" "$detail; only mx fails: $only"
	fi
}

tests() {
	local t list=${*:-allsizes mpich shared}
	for t in $list; do
		"test_$t"
	done
}

summary() {
	echo "== summary: $PASS passed, $FAIL failed (logs: $cache/last-run)"
	rm -rf "$cache/last-run"
	cp -r "$run" "$cache/last-run"
	[ "$FAIL" -eq 0 ]
}

# ---- numbers ----------------------------------------------------------------------

# The median of the numbers on stdin ("-" for none).
median() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# One mpi_pingpong run with E set: "latency(us) MB/s" at 8 B and 1 MiB.
pp_mpi() {
	local out
	out=$(MPIRUN_TIMEOUT=300 mpirun 2 "$cache/tests/mpi_pingpong" \
		-S 8 -E 8 -N "$ITERS" 2>&1) || { log "$out"; echo "- -"; return; }
	local lat; lat=$(awk '$1 == 8 { print $2 }' <<<"$out")
	out=$(MPIRUN_TIMEOUT=300 mpirun 2 "$cache/tests/mpi_pingpong" \
		-S 1048576 -E 1048576 -N "$ITERS" 2>&1) || { log "$out"; echo "$lat -"; return; }
	echo "$lat $(awk '$1 == 1048576 { print $3 }' <<<"$out")"
}

# The same with our mx_pingpong over a memif pair: mean half round trip
# and MB/s, the warm-up and iterations mpi_pingpong uses.
pp_mx() {
	local big=$((ITERS / 20 + 10)) a b
	a=$(memif_pair "receiver on board" "$cache/mx/bin/mx_pingpong" -e 1 -- \
		"$cache/mx/bin/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 8 -E 8 \
		-N "$ITERS" -W $((ITERS / 10 + 1000)) --csv --no-progress 2>&1 |
		awk -F, '$1 == "mx_pingpong" { print $5 }')
	b=$(memif_pair "receiver on board" "$cache/mx/bin/mx_pingpong" -e 1 -- \
		"$cache/mx/bin/mx_pingpong" -d nodeA:0 -r 1 -e 2 -S 1048576 \
		-E 1048576 -N "$big" -W $((big / 10 + 10)) --csv --no-progress \
		2>&1 | awk -F, '$1 == "mx_pingpong" { print $10 }')
	echo "${a:--} ${b:--}"
}

# Each round runs the four in turn (interleaved: they share the machine's
# phase); per figure the median over rounds, per ratio the median of the
# rounds' ratios.
bench() {
	local rounds=${ROUNDS:-5} r
	ITERS=${ITERS:-10000}
	. "$top/scripts/memif-pair.sh"
	: >"$run/bench"
	for r in $(seq 1 "$rounds"); do
		log "bench round $r/$rounds: mx over af_packet, tcp over the same veth pair, mx over memif, mx_pingpong over memif"
		net_pair
		env_afp; local a; a=$(pp_mpi)
		env_tcp; local t; t=$(pp_mpi)
		net_down
		env_memif; local m; m=$(pp_mpi)
		local p; p=$(pp_mx)
		echo "$a $t $m $p" >>"$run/bench"
	done
	# columns: 1-2 mx/afp, 3-4 tcp, 5-6 mx/memif, 7-8 mx_pingpong
	col() { awk -v c="$1" '$c != "-" { print $c }' "$run/bench" | median; }
	ratio() { awk -v a="$1" -v b="$2" '$a != "-" && $b != "-" && $b > 0 {
		printf "%.3f\n", $a / $b }' "$run/bench" | median; }
	printf 'num  %-40s %s\n' "latency-8B-veth" "mx netmod $(col 1) us, ch3:nemesis:tcp $(col 3) us, mx/tcp $(ratio 1 3)"
	printf 'num  %-40s %s\n' "bandwidth-1MiB-veth" "mx netmod $(col 2) MB/s, ch3:nemesis:tcp $(col 4) MB/s, mx/tcp $(ratio 2 4)"
	printf 'num  %-40s %s\n' "latency-8B-memif" "mx netmod $(col 5) us, mx_pingpong $(col 7) us, netmod/mx_pingpong $(ratio 5 7)"
	printf 'num  %-40s %s\n' "bandwidth-1MiB-memif" "mx netmod $(col 6) MB/s, mx_pingpong $(col 8) MB/s, netmod/mx_pingpong $(ratio 6 8)"
	echo "== numbers: medians of $rounds interleaved rounds ($ITERS round trips at 8 B; per-round table: $cache/last-run/bench)"
	# The latency bars: below tcp on the same veth pair, and within 1.3x of
	# mx_pingpong over memif.
	local vt mp
	vt=$(ratio 1 3) mp=$(ratio 5 7)
	if awk -v r="$vt" 'BEGIN { exit !(r != "-" && r < 1) }'; then
		result ok latency-below-tcp "mx/tcp $vt"
	else
		result FAIL latency-below-tcp "mx/tcp $vt"
	fi
	if awk -v r="$mp" 'BEGIN { exit !(r != "-" && r <= 1.3) }'; then
		result ok latency-within-1.3x-mx_pingpong "netmod/mx_pingpong $mp"
	else
		result FAIL latency-within-1.3x-mx_pingpong "netmod/mx_pingpong $mp"
	fi
}

main() {
	[ "$(id -u)" -eq 0 ] || { log "needs root (namespaces, af_packet)"; exit 1; }
	build
	[ "$mode" = build ] && return 0
	run=$(mktemp -d /tmp/mxmpi.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	case "$mode" in
	test) tests "$@"; summary ;;
	bench) bench; summary ;;
	all) tests; bench; summary ;;
	*) log "usage: scripts/mpich.sh [all|build|test [allsizes|mpich|shared]|bench]"; exit 2 ;;
	esac
}

main "$@"
