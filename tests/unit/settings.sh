#!/usr/bin/env bash
# Every setting the library reads is documented and shown: the MX_*
# environment variables are taken from the sources themselves (each
# getenv("MX_...") in lib/, pmd-glue/ and apps/, and the names of the
# settings table that a file reads through getenv(<variable>): config.c's),
# and each must
#   - have its entry in RUNTIME PARAMETERS of mx-dpdk(7), which for a
#     number names the default that mx_info -v prints ("Default N",
#     "default N" or "N (default)");
#   - be printed by mx_info -v (its Settings part).
# And back: every entry of mx-dpdk(7)'s RUNTIME PARAMETERS and every
# setting mx_info -v prints is one the sources read.
#
#   settings.sh <build-dir>
#
# Exit 0 pass, 1 fail, 77 skip (mx_info not built, or it cannot start
# here), with the reason printed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: settings.sh <build-dir>}
page=$top/docs/man/man7/mx-dpdk.7
info=$build/apps/mx_info
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

# --- the names the sources read --------------------------------------------
mapfile -t srcs < <(find "$top/lib" "$top/pmd-glue" "$top/apps" \
	-name '*.[ch]' -type f 2>/dev/null | sort)
[ ${#srcs[@]} -gt 0 ] || { echo "FAIL: no sources under lib/, pmd-glue/, apps/"; exit 1; }
# getenv("MX_...") (also secure_getenv), a call that may span lines.
direct=$(perl -0777 -ne \
	'print "$1\n" while /\b(?:secure_)?getenv\s*\(\s*"(MX_[A-Z0-9_]+)"/g' \
	"${srcs[@]}" | sort -u)
# A file that reads the environment through a variable (getenv(s->name))
# holds the settings table: every string that is exactly an MX_ name.
mapfile -t tables < <(perl -0777 -ne \
	'print "$ARGV\n" if /\b(?:secure_)?getenv\s*\(\s*[A-Za-z_][\w.>-]*\s*\)/' \
	"${srcs[@]}" | sort -u)
if [ ${#tables[@]} -eq 0 ]; then
	echo "FAIL: no settings table found (no getenv(<variable>) in lib/," \
		"pmd-glue/, apps/): update this test to the new mechanism"
	exit 1
fi
table=$(perl -0777 -ne 'print "$1\n" while /"(MX_[A-Z0-9_]+)"/g' \
	"${tables[@]}" | sort -u)
names=$(printf '%s\n%s\n' "$direct" "$table" | grep . | sort -u)
echo "settings read by the library: $(echo "$names" | wc -l)" \
	"(table: ${tables[*]#"$top"/})"
[ "$(echo "$names" | wc -l)" -ge 10 ] ||
	{ echo "FAIL: only $(echo "$names" | wc -l) settings found"; exit 1; }

# --- mx_info -v ---------------------------------------------------------------
if [ ! -x "$info" ]; then
	echo "SKIP: $info is not built"
	exit 77
fi
out=$(mktemp /tmp/mxd-settings.XXXXXX)
trap 'rm -f "$out"' EXIT
# A clean environment of MX_ variables, so that what mx_info prints for a
# number is its default.
unset_mx=()
while read -r v; do unset_mx+=(-u "$v"); done < <(env | sed -n 's/^\(MX_[A-Za-z0-9_]*\)=.*/\1/p')
env "${unset_mx[@]}" MX_HOSTNAME="settings$$" \
	MX_DPDK_ARGS="--no-huge -m 256 --no-shconf --no-pci --log-level=error --vdev=net_null0" \
	timeout 60 "$info" -v >"$out" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q '^Settings' "$out"; then
	echo "SKIP: mx_info -v could not start here (exit $rc):"
	sed 's/^/    /' "$out"
	exit 77
fi
# "  MX_NAME   value   what it does", after the Settings heading.
shown=$(sed -n '/^Settings/,$p' "$out" | sed -n 's/^  \(MX_[A-Z0-9_]*\) .*/\1/p' | sort -u)
value() {	# the value mx_info -v prints for $1
	sed -n '/^Settings/,$p' "$out" | awk -v n="$1" '$1 == n { print $2; exit }'
}

# --- mx-dpdk(7) ---------------------------------------------------------------
[ -f "$page" ] || { echo "FAIL: $page is missing"; exit 1; }
# The RUNTIME PARAMETERS section; an entry is ".TP" then ".B MX_NAME".
params=$(sed -n '/^\.SH RUNTIME PARAMETERS/,/^\.SH /p' "$page")
documented=$(echo "$params" | awk 'tp && /^\.B MX_[A-Z0-9_]+$/ { print $2 }
	{ tp = /^\.TP/ }' | sort -u)
entry() {	# the text of $1's entry, roff requests dropped
	echo "$params" | awk -v n="$1" '
		on && /^\.(TP|SS|SH)/ { exit }
		on { print }
		prev ~ /^\.TP/ && $0 == ".B " n { on = 1 }
		{ prev = $0 }' | sed 's/^\.[A-Z]* *//; s/\\-/-/g'
}

for n in $names; do
	if ! echo "$documented" | grep -qx "$n"; then
		bad "$n: no entry in RUNTIME PARAMETERS of mx-dpdk(7)"
		continue
	fi
	v=$(value "$n")
	[[ $v =~ ^[0-9]+$ ]] || v=
	if [ -n "$v" ] &&
			! entry "$n" | tr '\n' ' ' |
			grep -Eq "([Dd]efault:? $v([^0-9]|$))|((^|[^0-9])$v \(default\))"; then
		bad "$n: its entry in mx-dpdk(7) does not give the default" \
			"mx_info prints ($v)"
		continue
	fi
	if ! echo "$shown" | grep -qx "$n"; then
		bad "$n: in mx-dpdk(7), but mx_info -v does not print it"
		continue
	fi
	ok "$n: in mx-dpdk(7)${v:+ (default $v)} and in mx_info -v"
done
for n in $documented; do
	echo "$names" | grep -qx "$n" ||
		bad "$n: documented in mx-dpdk(7), but the library does not read it"
done
for n in $shown; do
	echo "$names" | grep -qx "$n" ||
		bad "$n: printed by mx_info -v, but not found in the sources"
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
