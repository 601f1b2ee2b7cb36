#!/usr/bin/env bash
# Installs the Debian 12 packages mx-dpdk needs, if any is missing.
# (tshark: the dissector test; noninteractive answers wireshark-common's
# question, capture by non-superusers, with its default: no.  libsystemd-dev:
# DPDK's static link list, "pkg-config --static --libs libdpdk", names
# -lsystemd, and myriexpress.pc requires libdpdk.  valgrind: the icount
# test counts instructions per message with callgrind.)
set -eu
pkgs="build-essential g++ meson ninja-build pkg-config libdpdk-dev libnuma-dev libcmocka-dev python3 clang libclang-rt-14-dev tshark groff-base libsystemd-dev valgrind"
missing=
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
