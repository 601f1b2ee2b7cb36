#!/usr/bin/env bash
# The memif integration test again, with hugepages instead of --no-huge.
# Reserves 2 MiB pages (root only), mounts hugetlbfs if needed, and puts
# everything back as it was.  Skips (77) with the reason when it cannot.
set -u
test_memif=${1:?usage: hugepages.sh <path to test_memif>}
want=${MXD_HUGEPAGES:-512}
nr=/proc/sys/vm/nr_hugepages

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: reserving hugepages needs root"; exit 77
fi
if [ ! -w $nr ]; then
	echo "SKIP: $nr is not writable (container without hugepage support?)"
	exit 77
fi
old=$(cat $nr)
mounted_here=
cleanup() {
	[ -n "$mounted_here" ] && umount "$mounted_here" && rmdir "$mounted_here"
	echo "$old" > $nr
}
trap cleanup EXIT
# A timeout (meson sends SIGTERM) puts things back too.
trap 'exit 143' TERM INT HUP
if [ "$old" -lt "$want" ]; then
	echo "$want" > $nr 2>/dev/null
fi
free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "${free_pages:-0}" -lt 256 ]; then
	echo "SKIP: could reserve only ${free_pages:-0} free hugepages (need 256)"
	exit 77
fi
if ! grep -q hugetlbfs /proc/mounts; then
	mounted_here=$(mktemp -d /tmp/mxd-huge.XXXXXX)
	if ! mount -t hugetlbfs nodev "$mounted_here"; then
		rmdir "$mounted_here"; mounted_here=
		echo "SKIP: cannot mount hugetlbfs"; exit 77
	fi
fi
echo "hugepages: $free_pages free 2 MiB pages"
MXD_TEST_HUGE=1 "$test_memif"
