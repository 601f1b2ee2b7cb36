#!/usr/bin/env bash
# The manual pages (sections 1, 3 and 7): each renders with groff without a
# single warning (-ww), every function declared in the public headers has a
# page (its own or a .so to its group's) and is listed in mx(3) (a Portals
# function: is in portals3(3)'s synopsis, NAME and headings), every page
# a .so names exists, every page is installed by docs/man/meson.build, and
# every option that a tool prints with -h is in its page.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: man.sh <build-dir>}
man=$top/docs/man
if ! command -v groff >/dev/null; then
	echo "SKIP: groff is not installed (Debian: groff-base)"
	exit 77
fi
passed=0 failed=0
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

# Rendering: from the manual's root, so that ".so man3/x.3" resolves.
for page in "$man"/man1/*.1 "$man"/man3/*.3 "$man"/man7/*.7; do
	rel=${page#"$man"/}
	warn=$(cd "$man" && groff -man -Tutf8 -ww -z "$rel" 2>&1)
	if [ -n "$warn" ]; then
		bad "$rel: $warn"
	elif so=$(sed -n 's/^\.so //p' "$page") && [ -n "$so" ] &&
			[ ! -f "$man/$so" ]; then
		bad "$rel: .so $so: no such page"
	else
		passed=$((passed + 1))
	fi
done
echo "rendered without warnings: $passed pages"

# Every page is installed (docs/man/meson.build names it).
for page in "$man"/man1/*.1 "$man"/man3/*.3 "$man"/man7/*.7; do
	rel=${page#"$man"/}
	grep -qF "'$rel'" "$man/meson.build" ||
		bad "$rel: not installed (docs/man/meson.build)"
done

# Every public function: its page, and its entry in mx(3).
fns=$(sed -n 's/^[a-z_ ]*[ *]\(mx_[a-z0-9_]*\)(.*/\1/p' \
	"$top/lib/include/myriexpress.h" "$top/lib/include/mx_extensions.h" |
	sort -u)
n=0
for f in $fns; do
	n=$((n + 1))
	[ -f "$man/man3/$f.3" ] || bad "$f: no page man3/$f.3"
	grep -q "^\.BR $f (3)" "$man/man3/mx.3" || bad "$f: not listed in mx(3)"
	# Its page (or the one it sources) names it in NAME.
	target=$man/man3/$f.3
	so=$(sed -n 's/^\.so //p' "$target" 2>/dev/null)
	[ -n "$so" ] && target=$man/$so
	sed -n '/^\.SH NAME/,/^\.SH/p' "$target" 2>/dev/null |
		grep -Eq "(^|[ ,])$f([ ,]|$)" || bad "$f: not in the NAME of its page"
done
[ "$n" -ge 40 ] || bad "only $n functions found in the headers"
for v in MX_ERRORS_ARE_FATAL MX_ERRORS_RETURN; do
	grep -q "$v" "$man/man3/mx_set_error_handler.3" || bad "$v: no entry"
done
echo "functions with a page: $n"

# Portals: every function of portals3.h in the synopsis and under a
# heading of portals3(3), and in its NAME.
page=$man/man3/portals3.3
pfns=$(sed -n 's/^[a-z_ *]*[ *]\(Ptl[A-Za-z0-9]*\)(.*/\1/p' \
	"$top/lib/include/portals3.h" | sort -u)
np=0
for f in $pfns; do
	np=$((np + 1))
	grep -q "$f(" "$page" || bad "$f: not in the synopsis of portals3(3)"
	grep -Eq "^\.SS (.*[ ,])?$f(,|$)" "$page" ||
		bad "$f: under no heading of portals3(3)"
	sed -n '/^\.SH NAME/,/^\.SH/p' "$page" | grep -Eq "(^|[ ,])$f(,|$| )" ||
		bad "$f: not in the NAME of portals3(3)"
done
[ "$np" -ge 24 ] || bad "only $np Portals functions found in portals3.h"
echo "Portals functions in portals3(3): $np"

# Every option of each tool's -h in its page (roff writes - as \-).
for t in mx_pingpong mx_bw mx_info mx_counters mx_board ptl_pingpong \
		ptl_bw; do
	bin=$build/apps/$t
	[ -x "$bin" ] || bin=$build/service/$t
	opts=$("$bin" -h | grep -oE '^  (-[A-Za-z]|--[a-z-]+)(, (-[A-Za-z]|--[a-z-]+))*' |
		grep -oE -- '--?[A-Za-z][a-z-]*')
	[ -n "$opts" ] || bad "$t -h lists no option"
	for o in $opts; do
		grep -qF -- "${o//-/\\-}" "$man/man1/$t.1" ||
			bad "$t: $o is not in man1/$t.1"
	done
done

echo "$((passed + n + np)) passed, $failed failed"
[ "$failed" -eq 0 ]
