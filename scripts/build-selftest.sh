#!/usr/bin/env bash
# Build the series' BPF selftest runner, test_progs, with the OOM policy test
# only, and print the directory holding it.
#
#   scripts/build-selftest.sh [--print-dir]
#
# Extracts Debian's linux-source-6.12 tarball, applies kernel/patches/series
# and builds tools/testing/selftests/bpf's test_progs with the selftests' own
# Makefile (libbpf, bpftool and resolve_btfids from the same tree), against
# the BTF of the patched kernel that scripts/build-kernel.sh builds (first
# if need be). The result lives in $OOMCTL_CACHE/selftest-<hash> (default
# ~/.cache/oomctl), keyed by a hash of everything that goes into it (the
# kernel's own key, this script, the toolchain), so an unchanged series is
# never rebuilt. With --print-dir it only prints that directory.
#
# Only the OOM test, not all of test_progs: a scratch copy of the tree keeps,
# in prog_tests/, oom_policy.c and, in progs/, test_oom_policy.c and
# btf_data.c (resolve_btfids needs it to link test_progs), and the Makefile
# is told not to build the runner's extras (bpf_testmod.ko and friends,
# urandom_read, the linked and light skeletons). Measured on 2 cores: this
# takes 20 s of build (plus about 20 s to extract the tarball); a full
# test_progs is 799 BPF programs (2 min of clang -j2 for the objects alone),
# 350 test files and ~800 skeletons, needs the kernel's build tree for
# bpf_testmod.ko (build-kernel.sh deletes it, and the test kernel has no
# modules), and does not build here: 22 of the programs fail with clang 14
# against the tinyconfig vmlinux.h (netfilter, mptcp and netns types the test
# kernel lacks, inline asm clang 14 rejects).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "build-selftest: $*" >&2; exit 1; }
# shellcheck source=series.bash
. "$top/scripts/series.bash"

# The kernel's key already covers the series, the config and the kernel's
# toolchain; this script is hashed whole, so a change to the recipe below
# rebuilds without anyone having to remember to bump a number.
kdir=$("$top/scripts/build-kernel.sh" --print-dir)
key=$( {
	echo "kernel ${kdir##*/}"
	cat "$0" "$top/scripts/series.bash" "$top/kernel/patches/series" "${patches[@]}"
	stat -c '%n %s %Y' "$tarball"
	# Whole outputs, no `| head`: under pipefail a SIGPIPE would make the
	# key depend on timing.
	gcc --version 2>&1 || true
	clang --version 2>&1 || true
} | sha256sum | cut -c1-16)
out=$cache/selftest-$key

if [[ ${1:-} == --print-dir ]]; then
	echo "$out"
	exit 0
fi
[[ -x $out/test_progs ]] && { echo "$out"; exit 0; }

# The kernel first (its BTF is what the test is compiled against), outside
# our lock: build-kernel.sh takes its own.
kdir=$("$top/scripts/build-kernel.sh")
[[ -r $kdir/vmlinux && -r $kdir/.config ]] || die "no vmlinux or .config in $kdir"

built_or_locked "$out" "$cache/.selftest.lock" test_progs

work=$out.tmp
rm -rf "$work"
mkdir -p "$work"
log=$work/build.log
echo "build-selftest: building in $work (log: $log)" >&2
start=$SECONDS

patched_tree "$work" "$log"

st=$work/src/tools/testing/selftests/bpf
[[ -r $st/prog_tests/oom_policy.c && -r $st/progs/test_oom_policy.c ]] ||
	die "the series adds no prog_tests/oom_policy.c and progs/test_oom_policy.c"
find "$st/prog_tests" -maxdepth 1 -name '*.c' ! -name oom_policy.c -delete
find "$st/progs" -maxdepth 1 -name '*.c' ! -name test_oom_policy.c ! -name btf_data.c -delete

# test_progs saves and restores its network namespace around every test and
# gives up at once when /proc/self/ns/net does not exist, i.e. on a kernel
# without CONFIG_NET_NS, as kernel/oomctl.config builds it. The OOM test
# needs no netns: on such a kernel only, let the runner go on without one.
if ! grep -qx 'CONFIG_NET_NS=y' "$kdir/.config"; then
	patch -d "$work/src" -p1 --forward --batch --quiet >>"$log" 2>&1 <<'EOF' ||
--- a/tools/testing/selftests/bpf/test_progs.c
+++ b/tools/testing/selftests/bpf/test_progs.c
@@ -422,7 +422,7 @@ static void reset_affinity(void)
 static void save_netns(void)
 {
 	env.saved_netns_fd = open("/proc/self/ns/net", O_RDONLY);
-	if (env.saved_netns_fd == -1) {
+	if (env.saved_netns_fd == -1 && errno != ENOENT) {
 		perror("open(/proc/self/ns/net)");
 		exit(EXIT_ERR_SETUP_INFRA);
 	}
@@ -430,7 +430,8 @@ static void save_netns(void)
 
 static void restore_netns(void)
 {
-	if (setns(env.saved_netns_fd, CLONE_NEWNET) == -1) {
+	if (env.saved_netns_fd >= 0 &&
+	    setns(env.saved_netns_fd, CLONE_NEWNET) == -1) {
 		stdio_restore();
 		perror("setns(CLONE_NEWNS)");
 		exit(EXIT_ERR_SETUP_INFRA);
EOF
		die "could not let test_progs run without a network namespace (see $log)"
fi

# A make that runs us must not hand its flags, jobserver or variables down.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES O KBUILD_OUTPUT OUTPUT CFLAGS LDFLAGS
# Empty TRUNNER_EXTRA_FILES, LINKED_SKELS, LSKELS and LSKELS_EXTRA: nothing
# but test_progs and its two BPF objects. feature-llvm=0: no LLVM
# disassembler linked in, whether or not this machine has llvm-dev.
mkdir -p "$work/out"
make -C "$st" -j"$jobs" OUTPUT="$work/out" VMLINUX_BTF="$kdir/vmlinux" \
	TRUNNER_EXTRA_FILES= LINKED_SKELS= LSKELS= LSKELS_EXTRA= feature-llvm=0 \
	test_progs >>"$log" 2>&1 || {
	tail -20 "$log" >&2
	die "test_progs build failed (see $log)"
}
# test_progs runs only in the VM, never here: check its list of tests from
# the header the Makefile generated it from.
grep -qx 'DEFINE_TEST(oom_policy)' "$st/prog_tests/tests.h" ||
	die "test_progs was built without the oom_policy test (see $log)"

cp "$work/out/test_progs" "$work/out/test_oom_policy.bpf.o" "$work/"
rm -rf "$work/src" "$work/out"
echo "build-selftest: test_progs built in $((SECONDS - start)) s" >&2

rm -rf "$out"
mv "$work" "$out"

# Keep the two newest builds; older ones are only disk.
# shellcheck disable=SC2010 # our own names, selftest-<hex>[.tmp]: no blank or newline
ls -1dt "$cache"/selftest-* 2>/dev/null | grep -v '\.tmp$' | tail -n +3 | xargs -r rm -rf
echo "$out"
