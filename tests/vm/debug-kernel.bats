#!/usr/bin/env bats
# make check-debug runs this first: the guest runs the debug kernel
# (kernel/debug.config, booted with OOMCTL_KERNEL=debug) with its detectors
# on. Whatever they report fails the run afterwards (tests/vm/run), and so
# does a lockdep that turned itself off on the way.

@test "the guest runs the debug kernel: lockdep on, KASAN and UBSAN built in, a 10 s hung-task timeout" {
	run awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats
	[ "$output" = 1 ]
	dmesg | grep -q 'KernelAddressSanitizer initialized'
	grep -qw __asan_report_load8_noabort /proc/kallsyms
	grep -qw __ubsan_handle_shift_out_of_bounds /proc/kallsyms
	[ "$(cat /proc/sys/kernel/hung_task_timeout_secs)" = 10 ]
}
