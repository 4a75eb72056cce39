#!/usr/bin/env bats
# make demo's story (tests/vm/demo) really happens: in the VM, the cgprio
# policy kills the smaller, lower-priority workload, oomctl and the kernel log
# say so under the demo's policy_name, and the demo leaves nothing behind. And
# the demo is a check, not a show: told with the priorities swapped, it fails.

load helpers
load oomctl-helpers

DEMO_CG=$CGROOT/demo

teardown() {
	# The tests check that the demo cleans up; after a failure, leave nothing
	# to the tests that follow (tests/vm/suite-end.bats).
	CG=$DEMO_CG cg_teardown
	oomctl_teardown
}

# pid_of REGEX — from the demo's line matching REGEX, the \(...\) group: a pid.
pid_of() { sed -n "s/^$1\$/\\1/p" <<<"$output"; }

# The demo left no policy on the hook, no pins and no cgroup.
demo_left_nothing() {
	[ "$(eval_links)" = 0 ]
	[ ! -e "$PINS/policy" ]
	[ ! -e "$DEMO_CG" ]
}

@test "make demo: cgprio kills batch, not the bigger web; events, status and the kernel log say so" {
	kmsg_mark
	run "$TOP/tests/vm/demo"
	echo "$output"
	[ "$status" -eq 0 ]
	batch=$(pid_of 'batch: pid \([0-9]*\) holds 8 MiB')
	web=$(pid_of 'web:   pid \([0-9]*\) holds 16 MiB')
	grow=$(pid_of 'web:   pid \([0-9]*\) allocates 12 MiB')
	[ -n "$batch" ]
	[ -n "$web" ]
	[ -n "$grow" ]
	# Before the OOM, explain ranked batch first though web's badness is higher.
	grep -q "^victim:  pid $batch (hog) in /demo/batch: cgroup prio 10" <<<"$output"
	grep -q "^== The victim: batch; the kernel's heuristic alone would kill web (badness [0-9]* > [0-9]*)$" <<<"$output"
	# oomctl's account of the kill: events and status.
	grep -q "  demo  killed $batch (hog) in /demo/batch, .*: cgroup prio 10 < 50" <<<"$output"
	grep -qx "last victim:  pid $batch (hog) in /demo/batch, policy_name demo" <<<"$output"
	# (An OOM may be invoked again while the victim exits: invocations can be 2.)
	grep -q "^counters:     invocations [0-9]*, selections [0-9]*, kills 1, failures 0$" <<<"$output"
	# The kernel's own, as the demo printed it and in the whole log of this
	# test: one OOM kill, of batch, under the demo's policy_name; web lived
	# until the demo's clean-up killed it (a plain SIGKILL, not logged).
	grep -q "invoked oom-killer: .*, policy_name=demo$" <<<"$output"
	log=$(kmsg_since_mark)
	grep -q 'invoked oom-killer: .*, policy_name=demo$' <<<"$log"
	[ "$(grep -c 'Killed process' <<<"$log")" -eq 1 ]
	grep -q "Killed process $batch (hog)" <<<"$log"
	grep -qx "batch: pid $batch killed; web: pids $web and $grow alive" <<<"$output"
	grep -q "^detached cgprio: " <<<"$output"
	demo_left_nothing
}

@test "make demo fails, with a one-line reason, if the victim is web; and still cleans up" {
	# The demo with web's priority 5, below batch's 10: a real OOM in which
	# the policy kills web. The copy finds build/ as the demo does, via ../..
	copy=$BATS_TEST_TMPDIR/tree
	mkdir -p "$copy/tests/vm"
	ln -s "$B" "$copy/build"
	sed 's|oomctl set-prio demo/web 50|oomctl set-prio demo/web 5|' "$TOP/tests/vm/demo" >"$copy/tests/vm/demo"
	grep -q "^cmd 'oomctl set-prio demo/web 5'\$" "$copy/tests/vm/demo"
	run bash "$copy/tests/vm/demo"
	echo "$output"
	[ "$status" -eq 1 ]
	batch=$(pid_of 'batch: pid \([0-9]*\) holds 8 MiB')
	[ -n "$batch" ]
	[ "${lines[-1]}" = "demo: batch (pid $batch) is alive: there was no OOM, or another victim" ]
	demo_left_nothing
}

@test "make demo refuses to start beside an attached policy, and leaves it attached" {
	"$OOMCTL" attach pid --name mine
	run "$TOP/tests/vm/demo"
	[ "$status" -eq 1 ]
	[ "$output" = "demo: a policy is attached already (oomctl status)" ]
	[ "$(status_field .name)" = mine ]
	[ ! -e "$DEMO_CG" ]
}
