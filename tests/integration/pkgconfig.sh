#!/usr/bin/env bash
# Installs the library into a scratch prefix and builds MX programs out of
# tree exactly as the README says: cc prog.c $(pkg-config ... myriexpress)
# (mx_pingpong, mx_info, examples/hello.c), and Portals programs through
# portals3.pc, including <portals3.h> and <portals/portals3.h>; the manual
# pages are installed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: pkgconfig.sh <build-dir>}
dest=$(mktemp -d /tmp/mxd-pc.XXXXXX)
trap 'rm -rf "$dest"' EXIT

DESTDIR=$dest meson install -C "$build" --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
pcdir=$(dirname "$(find "$dest" -name myriexpress.pc | head -1)")
# The .pc files (myriexpress.pc, myriexpress-libs.pc) name the final
# prefix; point them at the scratch copy.
for f in "$pcdir"/myriexpress*.pc "$pcdir"/portals3.pc; do
	sed -i "s|^prefix=.*|prefix=$dest$prefix|; s|=$prefix/|=$dest$prefix/|" "$f"
done
export PKG_CONFIG_PATH=$pcdir
# A sanitized build's archive needs the same runtime in the program.
san=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="b_sanitize"][0])')
extra=; [ "$san" != none ] && extra="-fsanitize=$san"
cc -Wall -Werror $extra -o "$dest/pingpong" "$top/apps/mx_pingpong.c" \
	$(pkg-config --cflags --libs --static myriexpress)
cc -Wall -Werror $extra -o "$dest/info" "$top/apps/mx_info.c" \
	$(pkg-config --cflags --libs myriexpress)
cc -Wall -Werror $extra -o "$dest/hello" "$top/examples/hello.c" \
	$(pkg-config --cflags --libs --static myriexpress)
test -x "$dest/pingpong" && test -x "$dest/info" && test -x "$dest/hello"
cc -Wall -Werror $extra -o "$dest/ptl32" "$top/tests/portals/header_ptl32.c" \
	$(pkg-config --cflags --libs --static portals3)
cc -Wall -Werror $extra -o "$dest/ptl33" "$top/tests/portals/header_ptl33.c" \
	$(pkg-config --cflags --libs portals3)
test -x "$dest/ptl32" && test -x "$dest/ptl33"
mandir=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="mandir"][0])')
case $mandir in /*) ;; *) mandir=$prefix/$mandir ;; esac
for p in man1/mx_info.1 man1/mx_pingpong.1 man3/mx.3 man3/mx_isend.3 man3/mx_wait.3 \
		man3/portals3.3; do
	test -f "$dest$mandir/$p" || { echo "not installed: $mandir/$p"; exit 1; }
done
echo "manual pages installed in $mandir"
echo "out-of-tree build with pkg-config: ok"
echo "1 passed, 0 failed"
