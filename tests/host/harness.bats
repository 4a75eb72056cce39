#!/usr/bin/env bats
# The build and VM harness, seen from the host.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	KDIR=$("$TOP/scripts/build-kernel.sh" --print-dir)
}

@test "build-kernel: a missing tarball is one clear error" {
	KERNEL_TARBALL=/nonexistent/linux.tar.xz run "$TOP/scripts/build-kernel.sh"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"/nonexistent/linux.tar.xz not found"*"make deps"* ]]
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
