#!/usr/bin/env bash
# Build the oomctl test kernel out of tree and print the directory holding it.
#
#   scripts/build-kernel.sh [--debug] [--print-dir]
#
# Extracts Debian's linux-source-6.12 tarball, applies kernel/patches/series,
# merges kernel/oomctl.config onto tinyconfig and builds it with the
# kernel's own `bindeb-pkg`: one build gives bzImage and the Debian packages
# (debs/: linux-image-6.12.118-oomctl, which the Debian guest installs and
# make kernel-deb copies); then dumps vmlinux.h from the kernel's BTF. The
# release is 6.12.118-oomctl, so that the package installs beside Debian's
# own 6.12 kernel and uname -r tells them apart. The result lives in
# $OOMCTL_CACHE/kernel-<hash> (default ~/.cache/oomctl), keyed by a hash of
# everything that goes into it, so an unchanged series is never rebuilt.
# With --debug it builds the debug variant instead: the same, with
# kernel/debug.config (lockdep, KASAN, UBSAN, ...) merged last, in
# $OOMCTL_CACHE/kernel-debug-<hash>. The two newest kernels of each variant
# are kept. With --print-dir it only prints the directory and builds nothing.
# The debug variant is only booted by the 9p guest: no packages.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-kernel: $*" >&2; exit 1; }
usage() { echo "usage: scripts/build-kernel.sh [--debug] [--print-dir]" >&2; exit 2; }
debug='' print_dir=''
for arg; do
	case $arg in
	--debug) debug=1 ;;
	--print-dir) print_dir=1 ;;
	*) usage ;;
	esac
done
# shellcheck source=series.bash
. "$top/scripts/series.bash"

# The config fragments, merged in this order onto tinyconfig: a later one's
# value wins.
fragments=("$top/kernel/oomctl.config")
prefix=kernel-
if [[ -n $debug ]]; then
	fragments+=("$top/kernel/debug.config")
	prefix=kernel-debug-
fi

# Everything that changes the result goes into the key. Bump `recipe` when a
# change to the steps below changes the kernel they build (not for messages).
recipe=3
key=$( {
	echo "recipe $recipe"
	# The debug kernel's key has its fragment too (and the plain kernel's
	# key is what it was before the debug variant existed).
	cat "$top/kernel/patches/series" "${patches[@]}" "${fragments[@]}"
	stat -c '%n %s %Y' "$tarball"
	# Whole outputs, no `| head`: under pipefail a SIGPIPE would make the
	# key depend on timing.
	gcc --version 2>&1 || true
	pahole --version 2>&1 || true
	bpftool version 2>&1 || true
} | sha256sum | cut -c1-16)
out=$cache/$prefix$key

if [[ -n $print_dir ]]; then
	echo "$out"
	exit 0
fi
built_or_locked "$out" "$cache/.build.lock"

work=$out.tmp
rm -rf "$work"
mkdir -p "$work/build"
log=$work/build.log
echo "build-kernel: building in $work (log: $log)" >&2

patched_tree "$work" "$log"

kmake() { make -C "$work/src" O="$work/build" "$@" >>"$log" 2>&1; }
configured_tree "$work" "$log" tinyconfig "${fragments[@]}"

# LOCALVERSION and the package version on every make of the tree: bzImage
# and bindeb-pkg then build one kernel, not two.
kver=$(make -s -C "$work/src" kernelversion 2>>"$log") || die "cannot read the kernel version (see $log)"
release=(LOCALVERSION=-oomctl KDEB_PKGVERSION="$kver-1+oomctl.${key:0:8}")
start=$SECONDS
if [[ -z $debug ]]; then
	# One build for both: bindeb-pkg builds the kernel (bzImage included)
	# and packages it. A separate `make bzImage` first would link vmlinux,
	# generate its BTF and compress it twice (the package step bumps the
	# build number). No -dbg package: it is vmlinux again, xz-compressed
	# (a minute of the build); the cache keeps vmlinux itself.
	DEB_BUILD_PROFILES=pkg.linux-upstream.nokerneldbg kmake -j"$jobs" "${release[@]}" bindeb-pkg || {
		tail -20 "$log" >&2
		die "make bindeb-pkg failed (see $log)"
	}
	mkdir "$work/debs"
	mv "$work"/*.deb "$work/debs/"
	rm -f "$work"/*.buildinfo "$work"/*.changes
	echo "build-kernel: kernel and packages built in $((SECONDS - start)) s" >&2
else
	kmake -j"$jobs" "${release[@]}" bzImage || {
		tail -20 "$log" >&2
		die "kernel build failed (see $log)"
	}
	echo "build-kernel: bzImage built in $((SECONDS - start)) s" >&2
fi

cp "$work/build/arch/x86/boot/bzImage" "$work/build/.config" "$work/"
bpftool btf dump file "$work/build/vmlinux" format c >"$work/vmlinux.h" ||
	die "bpftool could not dump the kernel's BTF (see $log)"
# vmlinux is kept for symbols and BTF, checkpatch for the series' host
# test; sources and objects are not (~2 GB).
cp "$work/build/vmlinux" "$work/vmlinux"
mkdir "$work/checkpatch"
cp "$work/src/scripts/"{checkpatch.pl,spelling.txt,const_structs.checkpatch} "$work/checkpatch/"
[[ -n ${KEEP_KERNEL_TREE:-} ]] || rm -rf "$work/src" "$work/build"

touch "$work/stamp"
rm -rf "$out"
mv "$work" "$out"

# Keep the two newest kernels of this variant (the other one's are not
# touched); older ones are only disk.
for d in "$cache/$prefix"*; do
	if [[ ${d#"$cache/$prefix"} =~ ^[0-9a-f]{16}$ ]]; then echo "$d"; fi
done | xargs -r -d '\n' ls -1dt | tail -n +3 | xargs -r -d '\n' rm -rf
echo "$out"
