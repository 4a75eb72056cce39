#!/usr/bin/env bash
# Build the Debian 12 guest that tests/vm/run --system boots, and print the
# directory holding it.
#
#   scripts/build-image.sh [--print-dir] KERNEL_DEB OOMCTL_DEB
#
# mmdebstrap makes a minbase bookworm root from this machine's own apt
# sources (no mirror is named here) with systemd as PID 1, systemd-oomd,
# udev, the packages the system tests use, the patched kernel's
# linux-image .deb (scripts/kernel-deb.sh --config tested) and oomctl's .deb
# (scripts/deb.sh), both installed by apt as a user would install them,
# dependencies and maintainer scripts included. tests/system/guest/ adds
# what only a test boot needs: the unit that runs the host's command, and a
# root that logs in on the console without a password (make vm). The root
# becomes an ext4 image, root.ext4, beside the kernel that the image has in
# /boot (QEMU boots it directly: no boot loader, nothing to install there).
#
# The result lives in $OOMCTL_CACHE/image-<hash>, keyed by everything that
# goes into it but the archive's contents (bookworm moves only by point
# releases): this script, tests/system/guest/, the package list and the two
# .debs. The two newest images are kept. With --print-dir it only prints
# the directory.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-image: $*" >&2; exit 1; }
usage() { echo "usage: scripts/build-image.sh [--print-dir] KERNEL_DEB OOMCTL_DEB" >&2; exit 2; }
print_dir=''
[[ ${1:-} == --print-dir ]] && { print_dir=1; shift; }
(($# == 2)) || usage
[[ -f $1 ]] || die "no kernel package at $1"
[[ -f $2 ]] || die "no oomctl package at $2"
kernel_deb=$(realpath "$1") oomctl_deb=$(realpath "$2")
cache=${OOMCTL_CACHE:-$HOME/.cache/oomctl}
guest=$top/tests/system/guest

# What the tests and an operator at the console use, beyond minbase: the
# issue's list (systemd-sysv, systemd-oomd, udev, procps, iproute2); the
# system bus, which systemd-oomd's own oomctl talks to it over (a Debian
# system has one; minbase does not); bats and jq for the tests, bpftool to
# look at the kernel's BPF objects; earlyoom, the other peer make
# bench-peers measures (installed, not enabled: tests/system/guest/setup).
packages=(systemd-sysv systemd-oomd udev procps iproute2 dbus bats jq bpftool kmod earlyoom)

# Bump `recipe` when a change to the steps below changes the image.
recipe=1
key=$( {
	echo "recipe $recipe ${packages[*]}"
	cat "$0"
	find "$guest" -type f -print0 | sort -z | xargs -0 sha256sum
	sha256sum "$kernel_deb" "$oomctl_deb"
} | sha256sum | cut -c1-16)
out=$cache/image-$key
if [[ -n $print_dir ]]; then
	echo "$out"
	exit 0
fi
[[ -e $out/stamp ]] && { echo "$out"; exit 0; }

command -v mmdebstrap >/dev/null || die "mmdebstrap not found — run 'make deps'"
((EUID == 0)) || die "mmdebstrap and mke2fs -d must run as root here (to own the guest's files as root)"
# This machine's apt sources, as they are: deb822 or one-line files.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[[ -s $f ]] && sources+=("$f")
done
((${#sources[@]})) || die "no apt sources on this machine (/etc/apt/sources.list{,.d/})"

mkdir -p "$cache"
exec 9>"$cache/.image.lock"
flock 9
[[ -e $out/stamp ]] && { echo "$out"; exit 0; }

work=$out.tmp
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work/root"' EXIT
log=$work/build.log
echo "build-image: building in $work (log: $log)" >&2
start=$SECONDS

# The hooks run outside the guest with its root as $1. The two .debs are
# installed by apt inside the guest (it resolves their dependencies; the
# maintainer scripts run, as on a user's machine): apt given their paths
# outside it hands dpkg, chrooted, files it cannot see. Then
# tests/system/guest/setup, inside too.
# mmdebstrap's apt hook writes to the first free fd above 2 through dash
# (`cat >&N`), which takes single digits only: fds this script inherited
# (a parallel make's jobserver in make check) push N past 9 ("Bad fd
# number"). Close them; 9 is the lock.
for fd in /proc/$$/fd/*; do
	fd=${fd##*/}
	if ((fd > 2 && fd != 9)); then eval "exec $fd>&-"; fi
done
# shellcheck disable=SC2016 # $1 is the hook's, expanded by mmdebstrap's shell
mmdebstrap --variant=minbase --include="${packages[*]}" \
	--customize-hook="copy-in $kernel_deb $oomctl_deb $guest /tmp" \
	--customize-hook="chroot \"\$1\" apt-get install --yes --no-install-recommends /tmp/${kernel_deb##*/} /tmp/${oomctl_deb##*/}" \
	--customize-hook='chroot "$1" /tmp/guest/setup' \
	--customize-hook='rm -rf "$1"/tmp/*.deb "$1/tmp/guest"' \
	bookworm "$work/root" "${sources[@]}" >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	die "mmdebstrap failed (see $log)"
}

# The kernel the image has, for QEMU's -kernel.
vmlinuz=$(find "$work/root/boot" -maxdepth 1 -name 'vmlinuz-*-oomctl' | head -1)
[[ -n $vmlinuz ]] || die "the image has no /boot/vmlinuz-*-oomctl: was $kernel_deb installed? (see $log)"
cp "$vmlinuz" "$work/vmlinuz"
basename "$vmlinuz" >"$work/kernel-release"

# 2 GiB, most of it free: room for the tests' files and the journal.
mke2fs -q -t ext4 -L oomctl-root -d "$work/root" "$work/root.ext4" 2G >>"$log" 2>&1 ||
	die "mke2fs failed (see $log)"
rm -rf "$work/root"
echo "build-image: built in $((SECONDS - start)) s" >&2

touch "$work/stamp"
rm -rf "$out"
mv "$work" "$out"
trap - EXIT

# Keep the two newest images: older ones are only disk (2 GiB each, sparse).
for d in "$cache/image-"*; do
	if [[ ${d#"$cache/image-"} =~ ^[0-9a-f]{16}$ ]]; then echo "$d"; fi
done | xargs -r -d '\n' ls -1dt | tail -n +3 | xargs -r -d '\n' rm -rf
echo "$out"
