#!/usr/bin/env bats
# oomctl apply FILE: the attached policy, its options and its entries made
# exactly those of a config file (oomctl.conf(5)), idempotently, with
# nothing changed by a bad file; in the VM with real cgroups and OOMs.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	two_children
	kmsg_mark
	CONF=$BATS_TEST_TMPDIR/oomctl.conf
}

teardown() {
	k8s_teardown
	oomctl_teardown
}

# A Kubernetes node's cgroups (systemd driver), for the shipped example.
K8S=/sys/fs/cgroup/kubepods.slice
k8s_teardown() {
	[[ -d $K8S ]] || return 0
	echo 1 >"$K8S/cgroup.kill"
	wait_for 30 cg_empty "$K8S"
	find "$K8S" -type d -delete
	rmdir /sys/fs/cgroup/system.slice
}

# conf LINE... — write the config file.
conf() { printf '%s\n' "$@" >"$CONF"; }

# apply [ARGS...] — oomctl apply ARGS... $CONF; output in $output, exit
# status in $status (run), and shown when a test fails.
apply() {
	run "$OOMCTL" apply "$@" "$CONF"
	echo "apply $*: status $status"
	echo "$output"
}

# prios — "CGROUP PRIO" lines of the attached cgprio map, sorted.
prios() { oomctl_json '.[] | "\(.cgroup) \(.prio)"' get-prio | sort; }

# link_ids — the pinned links' ids: they change exactly when the policy is
# re-attached.
link_ids() { oomctl_json '[.links[].id] | sort | join(" ")' status; }

# snapshot — everything apply could change: status without its counters
# (its keys sorted: gojq prints them so), and the objects in the kernel.
snapshot() {
	"$OOMCTL" -j status | gojq 'del(.counters, .recent_failures, .last_victim)'
	objects_now && echo "$OBJS"
	find "$PINS" 2>/dev/null | sort
}

@test "apply: attaches from nothing, prints each change, and a second apply changes nothing" {
	conf "# a node's OOM policy" "policy cgprio" "name fleet   # in the OOM report" \
		"default-prio 500" "" "prio oomtest/a 10" "prio $CG/b 50"
	apply
	[ "$status" = 0 ]
	[ "${lines[0]}" = "+ policy cgprio" ]
	[ "${lines[1]}" = "+ name fleet" ]
	[ "${lines[2]}" = "+ default-prio 500" ]
	[ "${lines[3]}" = "+ prio $CG/a 10" ]
	[ "${lines[4]}" = "+ prio $CG/b 50" ]
	[ "${lines[5]}" = "5 changes applied" ]
	[ "$(status_field .policy)" = cgprio ]
	[ "$(status_field .name)" = fleet ]
	[ "$(status_field .default_prio)" = 500 ]
	[ "$(prios)" = "$(printf '/oomtest/a 10\n/oomtest/b 50')" ]
	[ "$("$OOMCTL" get-prio "$CG")" = 500 ]    # plain, for scripts

	before=$(snapshot)
	apply
	[ "$status" = 0 ]
	[ "$output" = "no changes" ]
	[ "$(snapshot)" = "$before" ]
	run "$OOMCTL" -j apply "$CONF"
	[ "$(gojq -c '[.changed, .dry_run, .policy, (.changes | length), (.skipped | length)]' <<<"$output")" = \
		'[false,false,"cgprio",0,0]' ]
}

@test "apply: entry changes are edited in place, without re-attaching; entries not in the file go" {
	mkdir "$CG/c"
	conf "policy cgprio" "prio $CG/a 10" "prio $CG/b 50"
	apply
	"$OOMCTL" set-prio "$CG/c" 70    # by hand: not in the file
	links=$(link_ids)

	conf "policy cgprio" "prio $CG/a 20" "prio $CG/b 50" "prio $CG 5"
	apply --dry-run
	[ "$status" = 0 ]
	[ "${lines[0]}" = "~ prio $CG/a 20 (was 10)" ]
	[ "${lines[1]}" = "+ prio $CG 5" ]
	[ "${lines[2]}" = "- prio $CG/c (was 70)" ]
	[ "${lines[3]}" = "3 changes (dry run: nothing changed)" ]
	[ "$(prios)" = "$(printf '/oomtest/a 10\n/oomtest/b 50\n/oomtest/c 70')" ]

	run "$OOMCTL" -j apply "$CONF"
	[ "$status" = 0 ]
	[ "$(gojq -c '.changed' <<<"$output")" = true ]
	[ "$(gojq -c '[.changes[] | [.op, .directive, .cgroup, .value, .was]]' <<<"$output")" = \
		'[["change","prio","/oomtest/a",20,10],["add","prio","/oomtest",5,null],["remove","prio","/oomtest/c",null,70]]' ]
	[ "$(prios)" = "$(printf '/oomtest 5\n/oomtest/a 20\n/oomtest/b 50')" ]
	[ "$(link_ids)" = "$links" ]
}

@test "apply: a new name, default-prio or policy re-attaches with the file's entries, with no gap" {
	conf "policy cgprio" "prio $CG/a 10"
	apply
	links=$(link_ids)

	conf "policy cgprio" "name renamed" "default-prio 7" "prio $CG/a 10"
	apply
	[ "$status" = 0 ]
	[ "${lines[0]}" = "~ name renamed (was cgprio)" ]
	[ "${lines[1]}" = "~ default-prio 7 (was 0)" ]
	[ "${lines[2]}" = "2 changes applied" ]
	[ "$(link_ids)" != "$links" ]
	[ "$(prios)" = "/oomtest/a 10" ]
	[ "$(eval_links)" = 1 ]

	sleep 1000 &
	sleeper=$!
	conf "policy pid" "pid $sleeper"
	apply
	kill "$sleeper"
	[ "$status" = 0 ]
	[ "${lines[0]}" = "~ policy pid (was cgprio)" ]
	[ "${lines[1]}" = "+ pid $sleeper" ]
	[ "$(status_field .policy)" = pid ]
	[ "$(status_field .name)" = pid ]
	[ "$(eval_links)" = 1 ]
}

@test "apply: policy none detaches, and then changes nothing; - reads standard input" {
	objects_now
	before=$OBJS
	conf "policy rss-slice" "slice $CG/a"
	apply
	[ "$(oomctl_json '.[].cgroup' get-slices)" = /oomtest/a ]
	objects_now
	[ "$OBJS" != "$before" ]

	run "$OOMCTL" apply - <<<"policy none"
	echo "$output"
	[ "$status" = 0 ]
	[ "${lines[0]}" = "- policy rss-slice" ]
	[ ! -e "$PINS/policy" ]
	run "$OOMCTL" apply - <<<"policy none"
	[ "$output" = "no changes" ]
	[ "$(status_field .attached)" = false ]
	# Every program, link and map the apply made is gone, and nothing else.
	wait_for 30 objects_are "$before"
}

@test "apply: a bad file, a missing cgroup or process changes nothing and names the line" {
	conf "policy cgprio" "name before" "prio $CG/a 10"
	apply
	before=$(snapshot)

	check_bad() { # STATUS MESSAGE LINE...
		local want=$1 msg=$2
		shift 2
		conf "$@"
		apply
		[ "$status" = "$want" ] || return 1
		[[ $output == *"$msg"* ]] || return 1
		[ "${#lines[@]}" = 1 ] || return 1
		[ "$(snapshot)" = "$before" ] || { echo "changed by: $*"; return 1; }
	}
	check_bad 2 "$CONF:3: PRIO '1001' is out of range" "policy cgprio" "prio $CG/b 5" "prio $CG/a 1001"
	check_bad 2 "$CONF:2: unknown directive 'priority'" "policy cgprio" "priority $CG/a 5"
	check_bad 2 "$CONF: no 'policy' line" "prio $CG/a 5"
	check_bad 2 "$CONF:3: a second 'policy' line (the first is line 1)" "policy cgprio" "name x" "policy pid"
	check_bad 2 "$CONF:2: 'slice' applies to rss-slice only" "policy cgprio" "slice $CG/a"
	check_bad 2 "$CONF:3: prio $CG/a is already on an earlier line" "policy cgprio" "prio $CG/a 5" "prio oomtest/a 6"
	check_bad 2 "$CONF:2: name 'sixteen-bytes-xx' is 16 bytes long" "policy cgprio" "name sixteen-bytes-xx"
	check_bad 1 "$CONF:3: cgroup '$CG/nope': no such cgroup" "policy cgprio" "prio $CG/b 5" "prio $CG/nope 5"
	check_bad 1 "$CONF:2: cgroup '/proc': not on a cgroup2 filesystem" "policy rss-slice" "slice /proc"
	check_bad 1 "$CONF:2: no process 999999" "policy pid" "pid 999999"
	run "$OOMCTL" apply "$BATS_TEST_TMPDIR/none.conf"
	[ "$status" = 1 ]
	[[ $output == *"cannot read $BATS_TEST_TMPDIR/none.conf: No such file or directory" ]]
	[ "$(snapshot)" = "$before" ]
}

@test "apply --skip-missing: missing cgroups are reported and skipped; a scope of missing cgroups aborts nothing" {
	conf "policy cgprio" "prio $CG/a 10" "prio $CG/later 20" "prio $CG/b 50"
	apply --skip-missing
	[ "$status" = 0 ]
	[ "${lines[0]}" = "skipped $CONF:3: prio $CG/later: no such cgroup" ]
	[ "$(prios)" = "$(printf '/oomtest/a 10\n/oomtest/b 50')" ]
	run "$OOMCTL" -j apply --skip-missing "$CONF"
	# (gojq prints an object's keys sorted.)
	[ "$(gojq -c '[.changed, .skipped]' <<<"$output")" = \
		"[false,[{\"arg\":\"$CG/later\",\"directive\":\"prio\",\"line\":3,\"reason\":\"no such cgroup\"}]]" ]

	# The cgroup appears: the next apply (systemctl reload oomctl) adds it.
	mkdir "$CG/later"
	apply --skip-missing
	[ "${lines[0]}" = "+ prio $CG/later 20" ]
	rmdir "$CG/later"

	# abort-all scoped to a cgroup that is not there yet must not abort
	# every memcg OOM: this one is handled by the kernel and kills.
	conf "policy abort-all" "cgroup $CG/not-yet"
	apply --skip-missing
	[ "$status" = 0 ]
	[ "$(status_field .scoped)" = true ]
	[ "$(status_field '.scope | length')" = 0 ]
	hog_ready "$CG/a" 6 a
	small=$HOG_PID
	start_hog "$CG/b" 12
	reap "$HOG_PID"
	[ "$REAPED" = 137 ]
	is_alive "$small"
	[ "$(cg_read_key "$CG" memory.events oom_kill)" = 1 ]
}

@test "apply: the policy it configured chooses the victim of a real OOM" {
	conf "policy cgprio" "name applied" "prio $CG/a 50" "prio $CG/b 10"
	apply
	[ "$status" = 0 ]
	hog_ready "$CG/b" 6 b
	low=$HOG_PID
	hog_ready "$CG/a" 12 a
	high=$HOG_PID
	reap "$low"
	[ "$REAPED" = 137 ]
	is_alive "$high"
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=applied\$"
	wait_for 10 status_is .last_victim.pid "$low"
}

@test "apply: the shipped etc/oomctl.conf.example (Kubernetes QoS classes) applies, and BestEffort dies first" {
	# The kubelet's slices, under one memory limit of their own.
	local k=$K8S
	mkdir -p "$k/kubepods-besteffort.slice/pod1" "$k/kubepods-burstable.slice/pod2" /sys/fs/cgroup/system.slice
	echo +memory >"$k/cgroup.subtree_control"
	echo +memory >"$k/kubepods-besteffort.slice/cgroup.subtree_control"
	echo +memory >"$k/kubepods-burstable.slice/cgroup.subtree_control"
	cg_write "$k" memory.max 16M
	run "$OOMCTL" apply "$TOP/etc/oomctl.conf.example"
	echo "$output"
	[ "$status" = 0 ]
	[ "${lines[-1]}" = "7 changes applied" ]
	[ "$("$OOMCTL" get-prio kubepods.slice/kubepods-besteffort.slice/pod1)" = 100 ]
	[ "$("$OOMCTL" get-prio kubepods.slice/kubepods-burstable.slice/pod2)" = 300 ]
	[ "$("$OOMCTL" get-prio kubepods.slice)" = 700 ]
	[ "$("$OOMCTL" get-prio /sys/fs/cgroup)" = 500 ]

	hog_ready "$k/kubepods-besteffort.slice/pod1" 6 besteffort
	low=$HOG_PID
	hog_ready "$k/kubepods-burstable.slice/pod2" 12 burstable
	high=$HOG_PID
	reap "$low"
	[ "$REAPED" = 137 ]
	is_alive "$high"
	kmsg_since_mark | grep -q "policy_name=node-qos\$"
}
