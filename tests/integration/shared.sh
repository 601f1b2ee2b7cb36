#!/usr/bin/env bash
# Packaging like a DPDK library: installs into a scratch prefix
# and checks that
#   - myriexpress.pc hard-codes no DPDK library: it requires libdpdk (and
#     numa), so "pkg-config --static --libs myriexpress" resolves through
#     libdpdk's own list (its static archives);
#   - examples/hello.c links against the shared libmyriexpress.so
#     ("pkg-config --libs") and runs over net_null;
#   - the same program linked with "--static" carries the archive and
#     DPDK's archives, needs no libmyriexpress.so and runs (unsanitized
#     builds; DPDK's static list needs libsystemd-dev, scripts/deps.sh);
#   - a Portals program links through portals3.pc, shared and static, and
#     runs (calls that need no network);
#   - the shared library exports the MX and Portals APIs and nothing else.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: shared.sh <build-dir>}
dest=$(mktemp -d /tmp/mxd-so.XXXXXX)
trap 'rm -rf "$dest"' EXIT
passed=0 failed=0
verdict() {
	if [ "$2" -eq 0 ]; then echo "ok: $1"; passed=$((passed + 1))
	else echo "FAIL: $1"; failed=$((failed + 1)); fi
}

DESTDIR=$dest meson install -C "$build" --quiet >/dev/null || exit 1
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
pc=$(find "$dest" -name myriexpress.pc | head -1)
pcdir=$(dirname "$pc")
for f in "$pcdir"/myriexpress*.pc "$pcdir"/portals3.pc; do
	sed -i "s|^prefix=.*|prefix=$dest$prefix|; s|=$prefix/|=$dest$prefix/|" "$f"
done
export PKG_CONFIG_PATH=$pcdir
libdir=$(pkg-config --variable=libdir myriexpress)
san=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="b_sanitize"][0])')
extra=; [ "$san" != none ] && extra="-fsanitize=$san"

! grep -q -- "-lrte_" "$pc" && grep -q "^Requires.private: libdpdk" "$pc"
verdict "myriexpress.pc: Requires.private libdpdk, no -lrte_ of its own" $?
static=$(pkg-config --static --libs myriexpress)
echo "$static" | grep -q -- "-l:libmyriexpress.a" &&
	echo "$static" | grep -q -- "-l:librte_eal.a" &&
	echo "$static" | grep -q -- "-lnuma"
verdict "pkg-config --static --libs myriexpress resolves through libdpdk" $?

export MX_DPDK_ARGS="--no-huge -m 128 --no-shconf --no-pci --vdev=net_null0" MX_MBUFS=1023
cc -Wall -Werror $extra -o "$dest/hello_so" "$top/examples/hello.c" \
	$(pkg-config --cflags --libs myriexpress)
readelf -d "$dest/hello_so" | grep -q "NEEDED.*libmyriexpress.so"
verdict "hello linked against libmyriexpress.so" $?
out=$(LD_LIBRARY_PATH=$libdir timeout 60 "$dest/hello_so" 2>&1)
rc=$?
echo "$out" | sed 's/^/    /'
[ $rc -eq 0 ]
verdict "hello runs with the shared library" $?

cc -Wall -Werror $extra -o "$dest/ptl_so" "$top/tests/portals/header_ptl33.c" \
	$(pkg-config --cflags --libs portals3) &&
	readelf -d "$dest/ptl_so" | grep -q "NEEDED.*libmyriexpress.so" &&
	LD_LIBRARY_PATH=$libdir timeout 60 "$dest/ptl_so"
verdict "a Portals program through portals3.pc on libmyriexpress.so runs" $?

if [ "$san" = none ]; then
	cc -Wall -Werror -o "$dest/ptl_a" "$top/tests/portals/header_ptl32.c" \
		$(pkg-config --cflags --libs --static portals3) &&
	! readelf -d "$dest/ptl_a" | grep -q "NEEDED.*libmyriexpress" &&
		timeout 60 "$dest/ptl_a"
	verdict "a Portals program through portals3.pc --static runs" $?
	cc -Wall -Werror -o "$dest/hello_a" "$top/examples/hello.c" \
		$(pkg-config --cflags --libs --static myriexpress) &&
	! readelf -d "$dest/hello_a" | grep -q "NEEDED.*libmyriexpress" &&
		! readelf -d "$dest/hello_a" | grep -q "NEEDED.*librte_eal"
	verdict "hello linked --static: the archive and DPDK's, no shared mx or DPDK" $?
	timeout 60 "$dest/hello_a" >/dev/null 2>&1
	verdict "hello runs linked statically" $?
fi

bad=$(nm -D --defined-only "$libdir/libmyriexpress.so" | awk '{print $3}' |
	grep -vE '^(mx_|MX_|Ptl|ptl_err_str$)' | grep -v '^$')
[ -z "$bad" ]
verdict "the shared library exports only mx_/MX_ and Ptl*/ptl_err_str symbols${bad:+ (not: $bad)}" $?

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
