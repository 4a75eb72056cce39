#!/usr/bin/env bats
# The build and VM harness, seen from the host.
bats_require_minimum_version 1.5.0 # run -0 and --separate-stderr

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	KDIR=$("$TOP/scripts/build-kernel.sh" --print-dir)
}

# missing_tarball SCRIPT — with no kernel tarball, SCRIPT fails with one
# line that names the file and the way to get it.
missing_tarball() {
	KERNEL_TARBALL=/nonexistent/linux.tar.xz run "$TOP/scripts/$1"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"/nonexistent/linux.tar.xz not found"*"make deps"* ]]
}

@test "build-kernel: a missing tarball is one clear error" {
	missing_tarball build-kernel.sh
}

@test "build-kernel: a patch that no longer applies is one clear error naming it" {
	tmp=$(mktemp -d)
	cp -r "$TOP/scripts" "$TOP/kernel" "$tmp/"
	first=$(head -1 "$tmp/kernel/patches/series")
	# The tree no longer has a line the patch removes.
	sed -i 's/^-static void select_bad_process(struct oom_control \*oc)$/-static void select_bad_process(struct oom_control *control)/' \
		"$tmp/kernel/patches/$first"
	run cmp -s "$tmp/kernel/patches/$first" "$TOP/kernel/patches/$first"
	[ "$status" -eq 1 ]
	OOMCTL_CACHE=$tmp/cache run "$tmp/scripts/build-kernel.sh"
	rm -rf "$tmp"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == *"kernel/patches/$first does not apply to linux-source-6.12.tar.xz"* ]]
}

@test "build-kernel: the cache key changes with the series" {
	tmp=$(mktemp -d)
	cp -r "$TOP/scripts" "$TOP/kernel" "$tmp/"
	before=$("$tmp/scripts/build-kernel.sh" --print-dir)
	echo "# comment" >>"$tmp/kernel/oomctl.config"
	after=$("$tmp/scripts/build-kernel.sh" --print-dir)
	rm -rf "$tmp"
	[ "$before" != "$after" ]
}

@test "build-cgroup-selftests: a missing tarball is one clear error" {
	missing_tarball build-cgroup-selftests.sh
}

@test "build-cgroup-selftests: the cache key follows the patches that touch the cgroup selftests only" {
	tmp=$(mktemp -d)
	cp -r "$TOP/scripts" "$TOP/kernel" "$tmp/"
	before=$("$tmp/scripts/build-cgroup-selftests.sh" --print-dir)
	printf '%s\n' '--- a/mm/oom_kill.c' '+++ b/mm/oom_kill.c' >"$tmp/kernel/patches/9998-mm.patch"
	echo 9998-mm.patch >>"$tmp/kernel/patches/series"
	elsewhere=$("$tmp/scripts/build-cgroup-selftests.sh" --print-dir)
	printf '%s\n' '--- a/tools/testing/selftests/cgroup/cgroup_util.c' \
		'+++ b/tools/testing/selftests/cgroup/cgroup_util.c' >"$tmp/kernel/patches/9999-cg.patch"
	echo 9999-cg.patch >>"$tmp/kernel/patches/series"
	touching=$("$tmp/scripts/build-cgroup-selftests.sh" --print-dir)
	rm -rf "$tmp"
	[ "$before" = "$elsewhere" ]
	[ "$before" != "$touching" ]
}

@test "make builds the cgroup selftests as upstream does: every test listed, alloc_anon's malloc kept" {
	d=$TOP/build/cgroup-selftests
	[ -f "$d/stamp" ] || skip "run make check-vm-cgroup first"
	for p in test_memcontrol test_kmem test_core test_kill; do
		[ -x "$d/$p" ]
		[ -s "$d/$p.tests" ]
	done
	[ "$(wc -l <"$d/test_memcontrol.tests")" -eq 14 ]
	[ "$(head -1 "$d/test_memcontrol.tests")" = test_memcg_subtree_control ]
	# At -O2 gcc drops the malloc of memory only written and freed, and
	# with it every OOM test's allocation.
	objdump -d --no-show-raw-insn "$d/test_memcontrol" |
		sed -n '/<alloc_anon>:/,/^$/p' | grep -q 'call.*<malloc@plt>'
}

@test "every patch in the series passes checkpatch.pl without errors" {
	for p in $(grep -v '^#' "$TOP/kernel/patches/series"); do
		# checkpatch exits 1 on warnings too: count the errors.
		out=$("$KDIR/checkpatch/checkpatch.pl" --no-tree "$TOP/kernel/patches/$p" || true)
		echo "$p: $(grep '^total:' <<<"$out")"
		grep -q '^total: 0 errors, [0-9]* warnings, [0-9]* lines checked$' <<<"$out"
	done
}

@test "vm: a usage error exits 2" {
	run "$TOP/tests/vm/run" --bogus
	[ "$status" -eq 2 ]
	[[ $output == *"unknown option --bogus"* ]]
}

@test "vm: a missing kernel is one clear error" {
	run "$TOP/tests/vm/run" --kernel /nonexistent/bzImage -- true
	[ "$status" -eq 1 ]
	[[ $output == *"no kernel at /nonexistent/bzImage"* ]]
}

@test "vm: the guest command's exit status comes back to the host" {
	run "$TOP/tests/vm/run" -- sh -c 'echo from-guest; exit 7'
	[ "$status" -eq 7 ]
	[[ $output == *from-guest* ]]
	run "$TOP/tests/vm/run" -- true
	[ "$status" -eq 0 ]
}

@test "vm: the guest sees cgroup2, bpffs and tracefs, and runs at oom_score_adj -1000" {
	run "$TOP/tests/vm/run" -- sh -c 'stat -fc %T /sys/fs/cgroup /sys/fs/bpf /sys/kernel/tracing; cat /proc/self/oom_score_adj; nproc'
	[ "$status" -eq 0 ]
	[[ $output == *cgroup2fs*bpf_fs*tracefs*-1000*2* ]]
}

@test "vm: a panicking guest fails in bounded time and keeps the console log" {
	run "$TOP/tests/vm/run" -- sh -c 'echo c >/proc/sysrq-trigger'
	[ "$status" -eq 1 ]
	[[ $output == *"stopped before the command finished"* ]]
	[[ $output == *"console log kept at"* ]]
	log=$(sed -n 's/.*console log kept at //p' <<<"$output")
	grep -q "Kernel panic" "$log"
	rm -rf "$(dirname "$log")"
}

@test "vm: a hung guest is killed at the timeout, its vCPUs' stacks printed and kept" {
	run "$TOP/tests/vm/run" --timeout 40 -- sleep 1000
	[ "$status" -eq 1 ]
	[[ $output == *"did not finish within 40s"* ]]
	# Both vCPUs idle while the guest sleeps: each named, with a backtrace.
	[[ $output == *"vCPU 0: swapper/0 (pid 0)"* ]]
	[[ $output == *"vCPU 1: swapper/1 (pid 0)"* ]]
	stacks=$(sed -n 's/.*all of them in \(.*\); killed$/\1/p' <<<"$output")
	grep -qE '^#[0-9]+ .*idle' "$stacks"
	rm -rf "$(dirname "$stacks")"
}

@test "vm: stacks without a gdbstub socket is one clear error" {
	run "$TOP/tests/vm/stacks" /nonexistent/gdb.sock
	[ "$status" -eq 1 ]
	[[ $output == "stacks: no gdbstub socket at /nonexistent/gdb.sock" ]]
	run "$TOP/tests/vm/stacks"
	[ "$status" -eq 2 ]
}

@test "vm: a kernel warning fails the run even when the command succeeds" {
	# A kernel WARNING printed into the log is what the health check reads.
	run "$TOP/tests/vm/run" -- sh -c 'echo "WARNING: injected by the harness test" >/dev/kmsg'
	[ "$status" -eq 1 ]
	[[ $output == *"the guest kernel reported a problem"* ]]
}

# One line each of what the kernel's detectors print when something is wrong
# (lockdep, KASAN, KFENCE and UBSAN included; the 6.12 sources' formats), and
# what a healthy run prints.
KERNEL_REPORTS=(
	"[   41.123456] WARNING: CPU: 1 PID: 80 at mm/oom_kill.c:412 oom_evaluate_task+0x1a/0x2b0"
	"[   41.123456] WARNING: possible circular locking dependency detected"
	"[   41.123456] WARNING: possible recursive locking detected"
	"[   41.123456] WARNING: inconsistent lock state"
	"[   41.123456] WARNING: possible irq lock inversion dependency detected"
	"[   41.123456] WARNING: bad unlock balance detected!"
	"[   41.123456] WARNING: suspicious RCU usage"
	"[   41.123456] BUG: MAX_LOCKDEP_CHAINS too low!"
	# After "INFO: trying to register non-static key.", which says neither.
	"[   41.123456] turning off the locking correctness validator."
	"[   41.123456] BUG: KASAN: slab-use-after-free in bpf_oom_evaluate_task+0x42/0x90"
	"[   41.123456] BUG: KFENCE: out-of-bounds read in oom_badness+0x20/0x1c0"
	"[   41.123456] UBSAN: shift-out-of-bounds in mm/oom_kill.c:321:20"
	"[   41.123456] UBSAN: array-index-out-of-bounds in kernel/bpf/verifier.c:1234:5"
	"[   41.123456] BUG: sleeping function called from invalid context at mm/memcontrol.c:1710"
	"[   41.123456] BUG: scheduling while atomic: hog/80/0x00000002"
	"[   41.123456] BUG: Invalid wait context"
	"[   41.123456] INFO: task rm:97 blocked for more than 10 seconds."
	"[   41.123456] watchdog: BUG: soft lockup - CPU#0 stuck for 63s! [hog:80]"
	"[   41.123456] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:"
	"[   41.123456] rcu: INFO: rcu_sched self-detected stall on CPU"
	"[   41.123456] rcu: INFO: rcu_sched detected expedited stalls on CPUs/tasks: { 1-... } 21003 jiffies s: 261 root: 0x2/."
	"[   41.123456] kernel BUG at mm/memcontrol.c:1234!"
	"[   41.123456] Oops: general protection fault, probably for non-canonical address 0xdffffc0000000003: 0000 [#1] SMP KASAN"
	"[   41.123456] Kernel panic - not syncing: hung_task: blocked tasks"
)
HEALTHY_LINES=(
	"[    0.000000] Linux version 6.12.57 (root@host) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC"
	"[    0.123456] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar"
	"[    0.123456] ... MAX_LOCKDEP_SUBCLASSES:  8"
	"[    0.123456] kasan: KernelAddressSanitizer initialized (generic)"
	"[    0.123456] kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)-0x(____ptrval____)"
	"[   12.345678] oomtest: begin 3"
	"[   12.345678] hog invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0, policy_name=default"
	"[   12.345678] Out of memory: Killed process 80 (hog) total-vm:20644kB, anon-rss:16384kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:72kB oom_score_adj:0"
	"[   12.345678] Memory cgroup out of memory: Killed process 81 (hog) total-vm:20644kB, anon-rss:16384kB"
)

@test "vm: the kernel log check catches every detector's report, and passes a healthy log" {
	tmp=$(mktemp -d)
	printf '%s\n' "${HEALTHY_LINES[@]}" >"$tmp/healthy"
	run "$TOP/tests/vm/kernel-health" "$tmp/healthy"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	for report in "${KERNEL_REPORTS[@]}"; do
		# The report in the middle of a healthy log: that line, and only it.
		{ printf '%s\n' "${HEALTHY_LINES[@]:0:5}" "$report" "${HEALTHY_LINES[@]:5}"; } >"$tmp/log"
		run "$TOP/tests/vm/kernel-health" "$tmp/log"
		echo "$report -> status $status, output: $output"
		[ "$status" -eq 1 ]
		[ "$output" = "$report" ]
	done
	run "$TOP/tests/vm/kernel-health" "$tmp/missing"
	rm -rf "$tmp"
	[ "$status" -eq 2 ]
	[[ $output == *"no log at"* ]]
}

@test "build-kernel: --debug is its own kernel: its own directory and key, the plain kernel's unchanged" {
	tmp=$(mktemp -d)
	cp -r "$TOP/scripts" "$TOP/kernel" "$tmp/"
	plain=$(OOMCTL_CACHE=$tmp/cache "$tmp/scripts/build-kernel.sh" --print-dir)
	debug=$(OOMCTL_CACHE=$tmp/cache "$tmp/scripts/build-kernel.sh" --debug --print-dir)
	echo "# comment" >>"$tmp/kernel/debug.config"
	debug2=$(OOMCTL_CACHE=$tmp/cache "$tmp/scripts/build-kernel.sh" --print-dir --debug)
	plain2=$(OOMCTL_CACHE=$tmp/cache "$tmp/scripts/build-kernel.sh" --print-dir)
	OOMCTL_CACHE=$tmp/cache run "$tmp/scripts/build-kernel.sh" --bogus
	rm -rf "$tmp"
	[[ $plain =~ ^$tmp/cache/kernel-[0-9a-f]{16}$ ]]
	[[ $debug =~ ^$tmp/cache/kernel-debug-[0-9a-f]{16}$ ]]
	[ "$debug2" != "$debug" ]
	[ "$plain2" = "$plain" ]
	[ "$status" -eq 2 ]
	[[ $output == *"usage: scripts/build-kernel.sh [--debug] [--print-dir]"* ]]
}

@test "build-kernel --debug: an option kernel/debug.config sets that the kernel drops is one clear error" {
	tmp=$(mktemp -d)
	cp -r "$TOP/scripts" "$TOP/kernel" "$tmp/"
	# KASAN on SLUB_TINY: the dependency the fragment states, removed.
	sed -i 's/^CONFIG_SLUB_TINY=n$/CONFIG_SLUB_TINY=y/' "$tmp/kernel/debug.config"
	run grep -qx CONFIG_SLUB_TINY=y "$tmp/kernel/debug.config"
	[ "$status" -eq 0 ]
	OOMCTL_CACHE=$tmp/cache run nice "$tmp/scripts/build-kernel.sh" --debug
	rm -rf "$tmp"
	[ "$status" -eq 1 ]
	[[ ${lines[-1]} == *"kernel/debug.config: CONFIG_KASAN=y did not take effect (dependency missing?)"* ]]
}

@test "vm: OOMCTL_KERNEL=debug boots the debug kernel; any other value is a usage error" {
	tmp=$(mktemp -d)
	OOMCTL_CACHE=$tmp OOMCTL_KERNEL=debug run "$TOP/tests/vm/run" -- true
	[ "$status" -eq 1 ]
	[[ $output == *"no kernel at $tmp/kernel-debug-"*"/bzImage"*"run 'make kernel-debug' first"* ]]
	OOMCTL_CACHE=$tmp OOMCTL_KERNEL=release run "$TOP/tests/vm/run" -- true
	rm -rf "$tmp"
	[ "$status" -eq 2 ]
	[[ $output == *"OOMCTL_KERNEL is 'debug' or empty, not 'release'"* ]]
}

# On a fresh machine the README's commands install the packages before they
# build anything: make, asked to build the policies first, found no libbpf
# headers (seen: `make demo` on a new machine stopped at
# 'bpf/bpf_helpers.h' file not found).
@test "make demo, vm, bench, check, check-stress, check-debug: make deps comes before any build step" {
	for goal in demo vm bench check check-stress check-debug; do
		run make -C "$TOP" -n --no-print-directory "B=$BATS_TEST_TMPDIR/build" "$goal"
		first=$(grep -v '^make\|^#' <<<"$output" | head -1)
		[ "$first" = scripts/deps.sh ] || {
			echo "make $goal: the first step is '$first', not scripts/deps.sh" >&2
			return 1
		}
	done
}

@test "vm --system: no image is one clear error; --disk without --system, or OOMCTL_KERNEL with it, a usage error" {
	OOMCTL_IMAGE=/nonexistent run "$TOP/tests/vm/run" --system -- true
	[ "$status" -eq 1 ]
	[ "$output" = "vm: no Debian guest at /nonexistent — run 'make image' first" ]
	run "$TOP/tests/vm/run" --disk "$BATS_TEST_TMPDIR/d.qcow2" -- true
	[ "$status" -eq 2 ]
	[ "$output" = "vm: --disk is for the Debian guest (--system)" ]
	[ ! -e "$BATS_TEST_TMPDIR/d.qcow2" ]
	OOMCTL_KERNEL=debug run "$TOP/tests/vm/run" --system -- true
	[ "$status" -eq 2 ]
	[ "$output" = "vm: --system boots the image's own kernel: OOMCTL_KERNEL is for the 9p guest" ]
}

@test "build-image: a usage error exits 2; a missing package is one clear error naming it" {
	run "$TOP/scripts/build-image.sh" only-one.deb
	[ "$status" -eq 2 ]
	[ "$output" = "usage: scripts/build-image.sh [--print-dir] KERNEL_DEB OOMCTL_DEB" ]
	touch "$BATS_TEST_TMPDIR/k.deb"
	run "$TOP/scripts/build-image.sh" "$BATS_TEST_TMPDIR/k.deb" /nonexistent/oomctl.deb
	[ "$status" -eq 1 ]
	[ "$output" = "build-image: no oomctl package at /nonexistent/oomctl.deb" ]
}

@test "summary: a TAP file cut short counts its missing tests as not run, naming the file" {
	d=$BATS_TEST_TMPDIR/results
	mkdir "$d"
	printf '1..4\nok 1 a\nnot ok 2 b\n' >"$d/vm-cut.tap"
	printf '1..2\nok 1 x\nok 2 y # skip z\n' >"$d/whole.tap"
	run --separate-stderr "$TOP/tests/summary" "$d"
	[ "$output" = "check: 2 passed, 1 failed, 1 skipped, 2 not run" ]
	# shellcheck disable=SC2154 # bats' run --separate-stderr assigns stderr
	[ "$stderr" = "check: vm-cut.tap: 2 of 4 tests not run" ]
	rm "$d/vm-cut.tap"
	run -0 "$TOP/tests/summary" "$d"
	[ "$output" = "check: 1 passed, 0 failed, 1 skipped" ]
}
