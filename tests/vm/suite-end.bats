#!/usr/bin/env bats
# Last in every VM run (tests/vm/run): whatever the tests before did, the
# kernel is back where it booted. The harness itself checks the kernel log
# and the taint flags after the run.

load helpers
load oomctl-helpers

@test "after the suite: BPF programs, links and maps as at boot, bpffs and the test cgroups empty" {
	boot=$(cat /run/bpf-objects.boot)
	objects_now
	echo "BPF objects (progs links maps) at boot: $boot, now: $OBJS"
	# Unpinned objects are freed after an RCU grace period.
	wait_for 30 objects_are "$boot"
	[ -z "$(find /sys/fs/bpf -mindepth 1)" ]
	[ ! -e "$CG" ]
	[ "$(cat /proc/sys/kernel/tainted)" = "$(cat /run/out/tainted.before)" ]
}
