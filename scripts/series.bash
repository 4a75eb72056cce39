# Sourced by scripts/build-kernel.sh, scripts/build-selftest.sh and
# scripts/kernel-deb.sh: where the kernel source and the cache are, the
# series' patches, and the steps they take to get a patched, configured
# tree. The caller defines die() and sets $top.
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

# configured_tree WORK LOG BASE FRAGMENT... — WORK/build/.config for the
# tree in WORK/src: BASE ("tinyconfig", or a config file such as Debian's),
# the FRAGMENTs merged onto it in order (a later one's value wins), then
# olddefconfig. An option of a fragment that the kernel silently dropped
# (an unmet dependency) is an error naming it.
configured_tree() {
	local work=$1 log=$2 base=$3 f line opt val
	shift 3
	mkdir -p "$work/build"
	if [[ $base == tinyconfig ]]; then
		make -C "$work/src" O="$work/build" tinyconfig >>"$log" 2>&1 ||
			die "make tinyconfig failed (see $log)"
	else
		cp "$base" "$work/build/.config"
	fi
	"$work/src/scripts/kconfig/merge_config.sh" -m -O "$work/build" \
		"$work/build/.config" "$@" >>"$log" 2>&1 ||
		die "merging ${*#"$top/"} failed (see $log)"
	make -C "$work/src" O="$work/build" olddefconfig >>"$log" 2>&1 ||
		die "make olddefconfig failed (see $log)"

	# Each option is checked against the value of the last fragment that
	# sets it.
	local -A want from
	local opts=()
	for f; do
		while IFS= read -r line; do
			[[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ]] || continue
			opt=${BASH_REMATCH[1]}
			[[ -v want[$opt] ]] || opts+=("$opt")
			want[$opt]=${BASH_REMATCH[2]} from[$opt]=${f#"$top/"}
		done <"$f"
	done
	for opt in "${opts[@]}"; do
		val=${want[$opt]}
		if [[ $val == n ]]; then
			! grep -q "^$opt=" "$work/build/.config" ||
				die "${from[$opt]}: $opt=n did not take effect"
		else
			grep -qx "$opt=$val" "$work/build/.config" ||
				die "${from[$opt]}: $opt=$val did not take effect (dependency missing?)"
		fi
	done
}
