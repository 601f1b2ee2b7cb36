#!/usr/bin/env bash
# Installs the library into a scratch prefix and builds an MX program out of
# tree exactly as the README says: cc prog.c $(pkg-config ... myriexpress).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: pkgconfig.sh <build-dir>}
dest=$(mktemp -d /tmp/mxd-pc.XXXXXX)
trap 'rm -rf "$dest"' EXIT

DESTDIR=$dest meson install -C "$build" --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
pcdir=$(dirname "$(find "$dest" -name myriexpress.pc | head -1)")
# The .pc names the final prefix; point it at the scratch copy.
sed -i "s|^prefix=.*|prefix=$dest$prefix|; s|=$prefix/|=$dest$prefix/|" "$pcdir/myriexpress.pc"
export PKG_CONFIG_PATH=$pcdir
# A sanitized build's archive needs the same runtime in the program.
san=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="b_sanitize"][0])')
extra=; [ "$san" != none ] && extra="-fsanitize=$san"
cc -Wall -Werror $extra -o "$dest/pingpong" "$top/apps/mx_pingpong.c" \
	$(pkg-config --cflags --libs --static myriexpress)
cc -Wall -Werror $extra -o "$dest/info" "$top/apps/mx_info.c" \
	$(pkg-config --cflags --libs myriexpress)
test -x "$dest/pingpong" && test -x "$dest/info"
echo "out-of-tree build with pkg-config: ok"
echo "1 passed, 0 failed"
