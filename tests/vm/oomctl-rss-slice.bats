#!/usr/bin/env bats
# oomctl's rss-slice policy in real memcg OOMs (tests/vm/run --mem 1G).
#
# The OOM is triggered by a hog outside the slices that keeps allocating:
# it is the biggest task, the one the kernel heuristic would kill, and the
# one rss-slice must spare while a slice holds an eligible task.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	mkdir -p "$CG/s1/deep/er" "$CG/s2" "$CG/out" "$CG/empty"
	cg_write "$CG" memory.max 32M
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

# slice_hogs — 6M deep inside s1, 10M in s2, both resident: SMALL, BIG.
slice_hogs() {
	hog_ready "$CG/s1/deep/er" 6 small
	SMALL=$HOG_PID
	hog_ready "$CG/s2" 10 big
	BIG=$HOG_PID
}

# outside_hog MB — the allocating hog outside the slices; holds when done.
outside_hog() {
	start_hog "$CG/out" "$1" --hold --ready "$BATS_TEST_TMPDIR/out.ready"
	OUT=$HOG_PID
}

@test "rss-slice: the largest task inside the slices dies, the bigger one outside is spared" {
	"$OOMCTL" attach rss-slice --slice "$CG/s1" --slice oomtest/s2 --name slice_test
	slice_hogs
	outside_hog 20

	reap "$BIG"
	[ "$REAPED" = 137 ]
	# With 10M freed the outside hog gets its 20M and lives on.
	wait_for 120 test -e "$BATS_TEST_TMPDIR/out.ready"
	is_alive "$OUT"
	is_alive "$SMALL"
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 1 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=slice_test\$"
	kmsg_since_mark | grep -q "Killed process $BIG (hog)"

	"$OOMCTL" -j status >"$BATS_TEST_TMPDIR/status.json"
	s() { gojq -r "$1" "$BATS_TEST_TMPDIR/status.json"; }
	[ "$(s .policy)" = rss-slice ]
	[ "$(s .last_victim.pid)" = "$BIG" ]
	[ "$(s .last_victim.cgroup)" = /oomtest/s2 ]
	[ "$(s .last_victim.policy_name)" = slice_test ]
	[ "$(s .counters.kills)" = 1 ]
	[ "$(s '[.slices[].cgroup] | sort | join(",")')" = /oomtest/s1,/oomtest/s2 ]
	[ "$(s '.warnings | length')" = 0 ]
}

@test "rss-slice: membership follows the cgroup tree; set-slice and unset-slice change it live" {
	"$OOMCTL" attach rss-slice --slice "$CG/s2"
	"$OOMCTL" set-slice "$CG/s1"
	"$OOMCTL" unset-slice "$CG/s2"
	[ "$(oomctl_json '[.[].cgroup] | join(",")' get-slices)" = /oomtest/s1 ]
	slice_hogs
	outside_hog 18

	# s2 is no slice any more: the 6M task two levels below slice s1 dies.
	reap "$SMALL"
	[ "$REAPED" = 137 ]
	is_alive "$BIG"
	[ "$(status_field .last_victim.cgroup)" = /oomtest/s1/deep/er ]
}

@test "rss-slice: slices without an eligible task leave the choice to the kernel" {
	"$OOMCTL" attach rss-slice --slice "$CG/empty"
	hog_ready "$CG/s2" 10 big
	other=$HOG_PID
	# An unkillable task inside a slice is no candidate either.
	"$OOMCTL" set-slice "$CG/s1"
	hog_ready "$CG/s1" 4 protected --adj -1000
	protected=$HOG_PID
	start_hog "$CG/out" 64
	out=$HOG_PID

	# The kernel heuristic picks the biggest: the allocating hog.
	reap "$out"
	[ "$REAPED" = 137 ]
	is_alive "$other"
	is_alive "$protected"
	[ "$(status_field .last_victim.pid)" = "$out" ]
	[ "$(status_field .counters.selections)" = 0 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=rss-slice\$"
}

@test "rss-slice: a removed slice's entry disappears" {
	mkdir "$CG/gone"
	"$OOMCTL" attach rss-slice --slice "$CG/gone" --slice "$CG/s1"
	[ "$(oomctl_json 'length' get-slices)" = 2 ]
	rmdir "$CG/gone"
	wait_for 30 status_is '.slices | length' 1
	[ "$(oomctl_json '.[0].cgroup' get-slices)" = /oomtest/s1 ]
}

@test "rss-slice: bad slices are refused and change nothing" {
	run "$OOMCTL" attach rss-slice --slice "$CG/nope"
	[ "$status" -eq 1 ]
	[[ $output == *"cgroup '$CG/nope': no such cgroup"* ]]
	[ ! -e "$PINS/policy" ]
	[ "$(eval_links)" = 0 ]

	"$OOMCTL" attach rss-slice --slice "$CG/s1"
	# (gojq prints the keys sorted: the two compare as text.)
	"$OOMCTL" -j status | gojq 'del(.recent_failures.last_s_ago)' >"$BATS_TEST_TMPDIR/before"
	run "$OOMCTL" set-slice "$CG/s2" /tmp
	[ "$status" -eq 1 ]
	[[ $output == *"cgroup '/tmp': not on a cgroup2 filesystem"* ]]
	run "$OOMCTL" set-slice "$CG/s2" "$CG/memory.max"
	[ "$status" -eq 1 ]
	[[ $output == *"not a directory"* ]]
	run "$OOMCTL" unset-slice "$CG/s1" "$CG/s2"
	[ "$status" -eq 1 ]
	[[ $output == *"$CG/s2 is not a slice"* ]]
	run "$OOMCTL" unset-slice
	[ "$status" -eq 2 ]
	run "$OOMCTL" set-prio "$CG/s2" 5
	[ "$status" -eq 1 ]
	[[ $output == *"the attached policy is rss-slice, not cgprio"* ]]
	"$OOMCTL" -j status | gojq 'del(.recent_failures.last_s_ago)' >"$BATS_TEST_TMPDIR/after"
	diff "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
}
