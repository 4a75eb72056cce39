#!/usr/bin/env bash
# Build the kernel's own cgroup selftests, test_memcontrol, test_kmem,
# test_core and test_kill, and print the directory holding them.
#
#   scripts/build-cgroup-selftests.sh [--print-dir]
#
# Plain gcc, as tools/testing/selftests/cgroup/Makefile builds them: each
# program with cgroup_util.c, -Wall -pthread and no optimisation (at -O2 gcc
# drops alloc_anon()'s stores to memory it then frees, and the malloc with
# them: the OOM tests never reach their limit), from Debian's linux-source-6.12
# tarball: only that directory and the three headers it includes from beside
# it are extracted, not the whole tree. Were the series ever to change one of
# these files, the series is applied to a whole extracted tree instead. Each
# program comes with PROG.tests, the names of its tests in the order it runs
# them (its tests[] table), for tests/vm/cgroup-selftests.bash to check that
# every one reported a result. The result lives in
# $OOMCTL_CACHE/cgroup-selftests-<hash> (default ~/.cache/oomctl), keyed by
# a hash of everything that goes into it; with --print-dir it only prints
# that directory. The kernel is not needed: the programs are user space and
# run against whatever kernel the VM boots.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-cgroup-selftests: $*" >&2; exit 1; }
# shellcheck source=series.bash
. "$top/scripts/series.bash"

progs=(test_memcontrol test_kmem test_core test_kill)
st=tools/testing/selftests
members=("$st/cgroup" "$st/kselftest.h" "$st/clone3/clone3_selftests.h" "$st/pidfd/pidfd.h")

# The series' patches that touch these files (none today).
touching=()
for p in "${patches[@]}"; do
	grep -qE "^\+\+\+ b/$st/(cgroup/|kselftest\.h|clone3/clone3_selftests\.h|pidfd/pidfd\.h)" "$p" &&
		touching+=("$p")
done

key=$( {
	cat "$0" "$top/scripts/series.bash"
	((${#touching[@]} == 0)) || cat "${touching[@]}"
	stat -c '%n %s %Y' "$tarball"
	gcc --version 2>&1 || true
} | sha256sum | cut -c1-16)
out=$cache/cgroup-selftests-$key

if [[ ${1:-} == --print-dir ]]; then
	echo "$out"
	exit 0
fi
built_or_locked "$out" "$cache/.cgroup-selftests.lock"

work=$out.tmp
rm -rf "$work"
mkdir -p "$work"
log=$work/build.log
echo "build-cgroup-selftests: building in $work (log: $log)" >&2
start=$SECONDS

if ((${#touching[@]})); then
	patched_tree "$work" "$log"
	tree=$work/src
else
	# The tarball's top directory is linux-source-6.12/; the * matches no
	# slash, so only these members and what is under them come out.
	mkdir "$work/src"
	tar -C "$work/src" -xf "$tarball" --wildcards --no-wildcards-match-slash \
		"${members[@]/#/linux-source-*/}" >>"$log" 2>&1 ||
		die "$tarball has no $st/cgroup (see $log)"
	tree=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -1)
	[[ -n $tree ]] || die "$tarball holds no linux-source-* directory"
fi

cg=$tree/$st/cgroup
for p in "${progs[@]}"; do
	[[ -r $cg/$p.c ]] || die "the tarball has no $st/cgroup/$p.c"
	gcc -Wall -pthread -I"$tree/$st" -o "$work/$p" "$cg/$p.c" "$cg/cgroup_util.c" >>"$log" 2>&1 || {
		tail -20 "$log" >&2
		die "$p did not build (see $log)"
	}
	sed -nE 's/^[[:space:]]*T\((test_[A-Za-z0-9_]+)\),?[[:space:]]*$/\1/p' "$cg/$p.c" >"$work/$p.tests"
	[[ -s $work/$p.tests ]] || die "found no T(test_...) entries in $p.c"
done
rm -rf "$work/src"
echo "build-cgroup-selftests: ${progs[*]} built in $((SECONDS - start)) s" >&2

touch "$work/stamp"
rm -rf "$out"
mv "$work" "$out"

# Keep the two newest builds; older ones are only disk.
# shellcheck disable=SC2010 # our own names, cgroup-selftests-<hex>[.tmp]: no blank or newline
ls -1dt "$cache"/cgroup-selftests-* 2>/dev/null | grep -v '\.tmp$' | tail -n +3 | xargs -r rm -rf
echo "$out"
