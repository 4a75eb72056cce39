#!/usr/bin/env bats
# The kernel series in a real memcg OOM (tests/vm/run --mem 1G).

load helpers

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	common_teardown
}

# Two children of $CG, created in this order (the memcg scan visits them in
# creation order): a and b.
two_children() {
	mkdir "$CG/a" "$CG/b"
	cg_write "$CG" memory.max "$1"
}

@test "the guest kernel has the OOM hooks, the kfunc, the verdict enum and the failure tracepoint" {
	bpftool btf dump file /sys/kernel/btf/vmlinux >"$BATS_TEST_TMPDIR/btf"
	grep -q "FUNC 'bpf_oom_evaluate_task'" "$BATS_TEST_TMPDIR/btf"
	grep -q "FUNC 'bpf_set_policy_name'" "$BATS_TEST_TMPDIR/btf"
	grep -q "FUNC 'set_oom_policy_name'" "$BATS_TEST_TMPDIR/btf"
	grep -A4 "ENUM 'bpf_oom_eval_result'" "$BATS_TEST_TMPDIR/btf" >"$BATS_TEST_TMPDIR/enum"
	grep -q "'NO_BPF_POLICY' val=0" "$BATS_TEST_TMPDIR/enum"
	grep -q "'BPF_EVAL_ABORT' val=1" "$BATS_TEST_TMPDIR/enum"
	grep -q "'BPF_EVAL_NEXT' val=2" "$BATS_TEST_TMPDIR/enum"
	grep -q "'BPF_EVAL_SELECT' val=3" "$BATS_TEST_TMPDIR/enum"
	[ -d /sys/kernel/tracing/events/oom/select_bad_process_end ]
	grep -q 'policy_name' /sys/kernel/tracing/events/oom/select_bad_process_end/format
}

@test "no program: a memcg OOM kills by the kernel heuristic and reports policy_name=default" {
	two_children 16M
	start_hog "$CG/a" 4 --hold --ready "$BATS_TEST_TMPDIR/a.ready"
	small=$HOG_PID
	wait_for 60 test -e "$BATS_TEST_TMPDIR/a.ready"
	start_hog "$CG/b" 64
	big=$HOG_PID

	reap "$big"
	[ "$REAPED" = 137 ]
	is_alive "$small"
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 1 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=default\$"
	kmsg_since_mark | grep -q "Killed process $big (hog)"
}

@test "RFC scenario: priorities 10 and 50 under a 16M limit, the priority-10 task dies though it is smaller" {
	two_children 16M
	start_hog "$CG/a" 6 --hold --ready "$BATS_TEST_TMPDIR/a.ready"
	low=$HOG_PID
	wait_for 60 test -e "$BATS_TEST_TMPDIR/a.ready"
	load_policy --mode prio --name cg_prio_test --prio "$CG/a=10" --prio "$CG/b=50"
	start_hog "$CG/b" 12 --hold --ready "$BATS_TEST_TMPDIR/b.ready"
	high=$HOG_PID

	wait_for 120 test -e "$BATS_TEST_TMPDIR/b.ready"
	reap "$low"
	[ "$REAPED" = 137 ]
	is_alive "$high"
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 1 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=cg_prio_test\$"
	kmsg_since_mark | grep -q "task_memcg=/oomtest/a,task=hog,pid=$low,"
	kmsg_since_mark | grep -q "Killed process $low (hog)"

	unload_policy
	(($(stat_of selected) >= 1))
	# The policy always chose: selection never failed.
	[ "$(stat_of failures)" = 0 ]
}

@test "SELECT is only replaced by a later SELECT: a bigger task scored by the heuristic does not win" {
	two_children 16M
	start_hog "$CG/a" 4 --hold --ready "$BATS_TEST_TMPDIR/a.ready"
	small=$HOG_PID
	wait_for 60 test -e "$BATS_TEST_TMPDIR/a.ready"
	# a is scanned first and SELECTed; b, bigger, gets NO_BPF_POLICY.
	load_policy --mode select-pid --pid "$small"
	start_hog "$CG/b" 14 --ready "$BATS_TEST_TMPDIR/b.ready"
	big=$HOG_PID

	reap "$small"
	[ "$REAPED" = 137 ]
	reap "$big"
	[ "$REAPED" = 0 ]
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 1 ]
	unload_policy
	[ "$(stat_of failures)" = 0 ]
}

@test "a SELECT of an oom_score_adj -1000 task counts as NEXT: it survives and another task dies" {
	two_children 16M
	start_hog "$CG/a" 4 --hold --adj -1000 --ready "$BATS_TEST_TMPDIR/a.ready"
	protected=$HOG_PID
	wait_for 60 test -e "$BATS_TEST_TMPDIR/a.ready"
	load_policy --mode select-pid --pid "$protected"
	start_hog "$CG/b" 64
	big=$HOG_PID

	reap "$big"
	[ "$REAPED" = 137 ]
	is_alive "$protected"
	kmsg_since_mark | grep -q "Killed process $big (hog)"
	unload_policy
	(($(stat_of selected) >= 1))
}

@test "an unknown verdict means NO_BPF_POLICY: the kernel heuristic decides" {
	two_children 16M
	start_hog "$CG/a" 4 --hold --ready "$BATS_TEST_TMPDIR/a.ready"
	small=$HOG_PID
	wait_for 60 test -e "$BATS_TEST_TMPDIR/a.ready"
	load_policy --mode bogus
	start_hog "$CG/b" 64
	big=$HOG_PID

	reap "$big"
	[ "$REAPED" = 137 ]
	is_alive "$small"
	unload_policy
	(($(stat_of evaluated) >= 2))
	[ "$(stat_of failures)" = 0 ]
}

@test "memcg OOM with ABORT kills nothing until memory.max is raised, then the hog completes" {
	mkdir "$CG/a"
	cg_write "$CG" memory.max 16M
	load_policy --mode abort
	start_hog "$CG/a" 24 --ready "$BATS_TEST_TMPDIR/hog.ready"
	hog=$HOG_PID

	# Three OOMs in a row prove the charge is retried, not failed.
	wait_for 120 cg_key_at_least "$CG" memory.events oom 3
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 0 ]
	is_alive "$hog"
	[ ! -e "$BATS_TEST_TMPDIR/hog.ready" ]

	cg_write "$CG" memory.max 64M
	reap "$hog"
	[ "$REAPED" = 0 ]
	[ -e "$BATS_TEST_TMPDIR/hog.ready" ]
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 0 ]

	unload_policy
	# Every scan aborted at its first task, and each one was traced.
	(($(stat_of failures) >= 3))
	[ "$(stat_of failures)" = "$(stat_of evaluated)" ]
	[ -z "$(kmsg_since_mark | grep "Killed process")" ]
}

@test "a 20-byte policy name is cut to 15 bytes and terminated" {
	mkdir "$CG/a"
	cg_write "$CG" memory.max 16M
	load_policy --mode none --name abcdefghijklmnopqrst
	start_hog "$CG/a" 64
	reap "$HOG_PID"
	[ "$REAPED" = 137 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=abcdefghijklmno\$"
	unload_policy
	(($(stat_of invocations) >= 1))
}

@test "a program not attached to bpf_set_policy_name cannot call set_oom_policy_name" {
	run bpftool prog load "$B/bpf/oom_bad_kfunc.bpf.o" /sys/fs/bpf/oomtest_bad
	[ "$status" -ne 0 ]
	grep -q "calling kernel function set_oom_policy_name is not allowed" <<<"$output"
	[ ! -e /sys/fs/bpf/oomtest_bad ]
}
