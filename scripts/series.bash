# Sourced by scripts/build-kernel.sh and scripts/build-selftest.sh: where the
# kernel source and the cache are, the series' patches, and the steps both
# take to get a patched tree. The caller defines die() and sets $top.
: "${top:?set by the script that sources this file}"

tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# shellcheck disable=SC2034 # read by the scripts that source this file
cache=${OOMCTL_CACHE:-$HOME/.cache/oomctl}
# shellcheck disable=SC2034 # read by the scripts that source this file
jobs=${JOBS:-$(($(nproc) + 1))}

[[ -r $tarball ]] ||
	die "$tarball not found — install it with 'make deps' (package linux-source-6.12)"

# The series' patches, in order, as absolute paths.
patches=()
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	[[ -r $top/kernel/patches/$p ]] || die "kernel/patches/series names $p, which does not exist"
	patches+=("$top/kernel/patches/$p")
done <"$top/kernel/patches/series"

# built_or_locked OUT LOCK [DONE] — if OUT is built (its file DONE, `stamp`
# by default, exists) print OUT and end the script. Else take LOCK (fd 9,
# held until the script ends) and look again: another build may have
# finished while this one waited.
built_or_locked() {
	local out=$1 lock=$2 done=${3:-stamp}
	[[ -e $out/$done ]] && { echo "$out"; exit 0; }
	mkdir -p "$(dirname "$lock")"
	exec 9>"$lock"
	flock 9
	[[ -e $out/$done ]] && { echo "$out"; exit 0; }
	return 0
}

# patched_tree WORK LOG — extract the tarball into WORK/src and apply the
# series to it, logging to LOG.
patched_tree() {
	local work=$1 log=$2 src p
	tar -C "$work" -xf "$tarball"
	src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -1)
	[[ -n $src ]] || die "$tarball holds no linux-source-* directory"
	mv "$src" "$work/src"
	for p in "${patches[@]}"; do
		patch -d "$work/src" -p1 --forward --batch --quiet <"$p" >>"$log" 2>&1 ||
			die "kernel/patches/${p##*/} does not apply to $(basename "$tarball") (see $log)"
	done
}
