#!/usr/bin/env bash
# Check that the series is bisectable: onto a fresh extraction of the
# tarball, apply the patches one at a time, build bzImage after each (the
# first build is full, the rest incremental) and run checkpatch.pl on it.
# Prints one line per patch; exits 1 on the first failure.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
jobs=${JOBS:-$(($(nproc) + 1))}
work=$(mktemp -d "${TMPDIR:-/tmp}/oomctl-series.XXXXXX")
trap 'rm -rf "$work"' EXIT

[[ -r $tarball ]] || { echo "series-check: $tarball not found — run 'make deps'" >&2; exit 1; }
tar -C "$work" -xf "$tarball"
src=$(echo "$work"/linux-source-*)
mkdir "$work/build"
log=$work/build.log
kmake() { make -C "$src" O="$work/build" "$@" >>"$log" 2>&1; }
kmake tinyconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$work/build" "$work/build/.config" \
	"$top/kernel/oomctl.config" >>"$log" 2>&1
kmake olddefconfig

n=0
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	n=$((n + 1))
	patch -d "$src" -p1 --forward --batch --quiet <"$top/kernel/patches/$p" >>"$log" 2>&1 ||
		{ echo "series-check: $p does not apply"; exit 1; }
	start=$SECONDS
	kmake -j"$jobs" bzImage || { tail -20 "$log"; echo "series-check: $p does not build"; exit 1; }
	secs=$((SECONDS - start))
	# checkpatch exits 1 on warnings too: read its totals instead.
	cp_out=$("$src/scripts/checkpatch.pl" --no-tree "$top/kernel/patches/$p" | grep '^total:' || true)
	errors=$(sed -n 's/^total: \([0-9]*\) errors.*/\1/p' <<<"$cp_out")
	printf '%-60s builds (%4ds)  checkpatch: %s\n' "$p" "$secs" "$cp_out"
	[[ $errors == 0 ]] || { echo "series-check: $p has checkpatch errors"; exit 1; }
done <"$top/kernel/patches/series"
echo "series-check: $n patches apply in order, each builds, checkpatch has no errors"
