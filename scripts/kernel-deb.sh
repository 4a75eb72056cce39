#!/usr/bin/env bash
# Debian packages of the patched kernel, from the kernel's own bindeb-pkg.
#
#   scripts/kernel-deb.sh [--config tested|debian] [--config-only] OUTDIR
#
# --config tested (the default): the config the tests boot, tinyconfig with
#   kernel/oomctl.config: the packages scripts/build-kernel.sh makes beside
#   the kernel the VM boots (one build for both).
# --config debian: the production path, Debian's own amd64 config (package
#   linux-config-6.12; DEBIAN_CONFIG=FILE for another) with
#   kernel/production.config merged in and olddefconfig run. A long build:
#   every module Debian builds.
# --config-only: stop once the config is made and checked, and copy it to
#   OUTDIR/config (tests/host/kernel-config.bats).
#
# Extracts linux-source-6.12, applies kernel/patches/series, makes the
# config (scripts/series.bash configured_tree: an option of a fragment that
# does not survive olddefconfig is an error), then `make bindeb-pkg`:
# linux-image-6.12.118-oomctl (and linux-headers-6.12.118-oomctl when the
# config has modules, for out-of-tree modules; BPF policies need only the
# kernel's BTF) and linux-libc-dev, copied to OUTDIR. The packages are
# cached in $OOMCTL_CACHE/kernel-deb-CONFIG-<hash>, keyed like the kernel.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "kernel-deb: $*" >&2; exit 1; }
usage() { echo "usage: scripts/kernel-deb.sh [--config tested|debian] [--config-only] OUTDIR" >&2; exit 2; }
variant=tested config_only='' outdir=''
while (($#)); do
	case $1 in
	--config) [[ $# -ge 2 ]] || usage; variant=$2; shift 2 ;;
	--config-only) config_only=1; shift ;;
	-*) usage ;;
	*) [[ -z $outdir ]] || usage; outdir=$1; shift ;;
	esac
done
[[ -n $outdir ]] || usage
# shellcheck source=series.bash
. "$top/scripts/series.bash"

# On the way out: the copied base config, and a failed build's tree (~2 GB;
# its log stays, for the error that names it).
base='' copied='' work=''
cleanup() {
	[[ -n $copied ]] && rm -f "$copied"
	[[ -n $work && -d $work ]] && rm -rf "$work/src" "$work/build"
	return 0
}
trap cleanup EXIT

case $variant in
tested) base=tinyconfig fragments=("$top/kernel/oomctl.config") ;;
debian)
	base=$(mktemp) copied=$base
	debian_config=${DEBIAN_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_amd64.xz}
	[[ -r $debian_config ]] ||
		die "$debian_config not found — install it with 'make deps' (package linux-config-6.12)"
	case $debian_config in
	*.xz) xzcat "$debian_config" >"$base" ;;
	*) cat "$debian_config" >"$base" ;;
	esac
	fragments=("$top/kernel/production.config")
	;;
*) die "--config is 'tested' or 'debian', not '$variant'" ;;
esac

# Bump `recipe` when a change to the steps below changes what they build.
recipe=1
key=$( {
	echo "recipe $recipe $variant"
	cat "$top/kernel/patches/series" "${patches[@]}" "${fragments[@]}"
	[[ $base == tinyconfig ]] || cat "$base"
	stat -c '%n %s %Y' "$tarball"
	gcc --version 2>&1 || true
	pahole --version 2>&1 || true
} | sha256sum | cut -c1-16)
# lock FILE — hold FILE (fd 9) until the script ends: one build of a kind
# at a time; the caller looks again for the result once it has it.
lock() { mkdir -p "$(dirname "$1")"; exec 9>"$1"; flock 9; }

# configured_work OUT WHAT — a fresh $work (OUT.tmp) holding the patched,
# configured tree, its log in $work/build.log; WHAT for the progress line.
configured_work() {
	work=$1.tmp
	rm -rf "$work"
	mkdir -p "$work"
	echo "kernel-deb: $2 in $work (log: $work/build.log)" >&2
	patched_tree "$work" "$work/build.log"
	configured_tree "$work" "$work/build.log" "$base" "${fragments[@]}"
}

# config_only — the config alone, cached on its own, so that the host test
# costs one extraction per change of its inputs.
config_only() {
	local out=$cache/kernel-config-$variant-$key
	[[ -e $out/config ]] || lock "$cache/.kernel-config.lock"
	if [[ ! -e $out/config ]]; then
		configured_work "$out" "making the $variant config"
		cp "$work/build/.config" "$work/config"
		rm -rf "$work/src" "$work/build"
		rm -rf "$out"
		mv "$work" "$out"
	fi
	mkdir -p "$outdir"
	cp "$out/config" "$outdir/config"
	echo "$outdir/config"
}

# packages — the .debs, built once per key.
packages() {
	local out=$cache/kernel-deb-$variant-$key log start kver
	[[ -e $out/stamp ]] || lock "$cache/.kernel-deb.lock"
	if [[ ! -e $out/stamp ]]; then
		start=$SECONDS
		configured_work "$out" "building the $variant packages"
		log=$work/build.log
		kver=$(make -s -C "$work/src" kernelversion 2>>"$log") ||
			die "cannot read the kernel version (see $log)"
		# -oomctl in the release, so that the image installs beside
		# Debian's own 6.12 kernel and is told from it in uname -r and in
		# GRUB's menu.
		make -C "$work/src" O="$work/build" -j"$jobs" LOCALVERSION=-oomctl \
			KDEB_PKGVERSION="$kver-1+oomctl.${key:0:8}" bindeb-pkg >>"$log" 2>&1 || {
			tail -20 "$log" >&2
			die "make bindeb-pkg failed (see $log)"
		}
		echo "kernel-deb: built in $((SECONDS - start)) s" >&2
		mkdir "$work/debs"
		mv "$work"/*.deb "$work/debs/"
		cp "$work/build/.config" "$work/debs/config"
		rm -rf "$work/src" "$work/build" "$work"/*.buildinfo "$work"/*.changes
		touch "$work/stamp"
		rm -rf "$out"
		mv "$work" "$out"
	fi
	mkdir -p "$outdir"
	cp "$out/debs/"* "$outdir/"
	ls -1 "$outdir"/*.deb
}

# prune KIND — keep the two newest of $cache/KIND-<hash>: older ones are
# only disk (Debian's config makes a debug-symbols package of ~1 GB).
prune() {
	local d
	for d in "$cache/$1-"*; do
		if [[ ${d#"$cache/$1-"} =~ ^[0-9a-f]{16}$ ]]; then echo "$d"; fi
	done | xargs -r -d '\n' ls -1dt | tail -n +3 | xargs -r -d '\n' rm -rf
}

# tested_packages — the test kernel's own packages, from its cache.
tested_packages() {
	local kdir
	kdir=$("$top/scripts/build-kernel.sh") || exit 1
	mkdir -p "$outdir"
	cp "$kdir/debs/"* "$outdir/"
	cp "$kdir/.config" "$outdir/config"
	ls -1 "$outdir"/*.deb
}

if [[ -n $config_only ]]; then
	config_only
elif [[ $variant == tested ]]; then
	tested_packages
	prune "kernel-config-$variant"
else
	packages
	prune "kernel-deb-$variant"
fi
