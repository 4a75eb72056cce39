#!/usr/bin/env bats
# oomctl attach, --replace, detach and their refusals (tests/vm/run --mem 1G).

load helpers
load oomctl-helpers
bats_require_minimum_version 1.5.0

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	[[ -n ${WATCH_PID:-} ]] && kill "$WATCH_PID" 2>/dev/null
	oomctl_teardown
}

@test "attach pins links and maps 0600 in a root-owned 0700 directory" {
	"$OOMCTL" attach cgprio
	[ "$(stat -c '%U %a' "$PINS")" = "root 700" ]
	[ -z "$(find "$PINS/policy" -type f ! -perm 0600)" ]
	[ -e "$PINS/policy/link_cgprio_eval" ]
	[ -e "$PINS/policy/map_oomctl_state" ]
	[ "$(eval_links)" = 1 ]
	[ "$(oomctl_json '.[] | select(.attached) | .name' list)" = cgprio ]
	run "$OOMCTL" status
	[ "$status" -eq 0 ]
	[[ $output == *"policy:       cgprio"*"pinned in:    $PINS/policy"* ]]
	run "$OOMCTL" attach pid
	[ "$status" -eq 1 ]
	[[ $output == *"cgprio is already attached"*"--replace"* ]]
	[ "$(status_field .policy)" = cgprio ]
}

@test "--replace swaps policies with no moment where none is attached" {
	"$OOMCTL" attach cgprio --name first
	old=$(status_field '[.links[].id] | join(" ")')
	# Sample the hook as fast as we can while replacing back and forth.
	(while :; do echo "$(eval_links)"; done >"$BATS_TEST_TMPDIR/samples") &
	WATCH_PID=$!
	for i in 1 2 3; do
		"$OOMCTL" attach pid --replace --name second
		"$OOMCTL" attach cgprio --replace --name first
	done
	"$OOMCTL" attach pid --replace --name second
	kill "$WATCH_PID"
	wait "$WATCH_PID" || true
	unset WATCH_PID
	# Enough samples, each a count; none 0 (grep: 1 is no match, 2 an error).
	(($(grep -cxE '[0-9]+' "$BATS_TEST_TMPDIR/samples") > 3))
	run -1 grep -qx 0 "$BATS_TEST_TMPDIR/samples"
	[ "$(eval_links)" = 1 ]
	[ "$(status_field .policy)" = pid ]
	[ -n "$old" ]
	for id in $old; do
		wait_for 10 bpf_gone link "$id"
	done
	ls "$PINS" >"$BATS_TEST_TMPDIR/ls"
	[ "$(cat "$BATS_TEST_TMPDIR/ls")" = policy ]

	# The new policy chooses, under its own name.
	mkdir "$CG/a" "$CG/b"
	cg_write "$CG" memory.max 16M
	hog_ready "$CG/a" 4 a
	small=$HOG_PID
	"$OOMCTL" add-pid "$small"
	start_hog "$CG/b" 12
	big=$HOG_PID
	reap "$small"
	[ "$REAPED" = 137 ]
	reap "$big"
	[ "$REAPED" = 0 ]
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=second\$"
	[ "$(status_field .last_victim.policy_name)" = second ]
}

@test "--replace keeps the cgprio entries" {
	mkdir "$CG/a"
	"$OOMCTL" attach cgprio
	"$OOMCTL" set-prio "$CG/a" 42
	"$OOMCTL" attach cgprio --replace --default-prio 5
	[ "$(oomctl_json .prio get-prio "$CG/a")" = 42 ]
	[ "$(status_field .default_prio)" = 5 ]
}

@test "attach refuses while a foreign program is on bpf_oom_evaluate_task" {
	load_policy --mode none --name foreign
	run "$OOMCTL" attach cgprio
	[ "$status" -eq 1 ]
	[[ $output == *"not attached by oomctl"*"bpf_oom_evaluate_task"* ]]
	run "$OOMCTL" attach cgprio --replace
	[ "$status" -eq 1 ]
	[ ! -e "$PINS/policy" ]
	[ "$(eval_links)" = 1 ]
	[ "$(status_field .attached)" = false ]
	[ "$(status_field '.foreign | map(.hook) | sort | join(",")')" = \
	  "bpf_oom_evaluate_task,bpf_set_policy_name,select_bad_process_end" ]
	unload_policy
	"$OOMCTL" attach cgprio
}

@test "detach leaves no program, link or map behind" {
	"$OOMCTL" attach cgprio
	"$OOMCTL" -j status >"$BATS_TEST_TMPDIR/status.json"
	links=$(gojq -r '[.links[].id] | join(" ")' "$BATS_TEST_TMPDIR/status.json")
	progs=$(gojq -r '[.links[].prog_id] | join(" ")' "$BATS_TEST_TMPDIR/status.json")
	maps=$(gojq -r '[.maps[].id] | join(" ")' "$BATS_TEST_TMPDIR/status.json")
	[ -n "$links" ]
	[ -n "$progs" ]
	[ -n "$maps" ]
	[ "$(bpf_named prog '^(cgprio|oomctl)_')" -gt 0 ]
	[ "$(bpf_named map '^(cgprio|oomctl)_')" -gt 0 ]
	"$OOMCTL" detach
	# detach returns once every id it unpinned is gone.
	for id in $links; do bpf_gone link "$id"; done
	for id in $progs; do bpf_gone prog "$id"; done
	for id in $maps; do bpf_gone map "$id"; done
	[ "$(bpf_named prog '^(cgprio|oomctl)_')" = 0 ]
	[ "$(bpf_named map '^(cgprio|oomctl)_')" = 0 ]
	[ "$(eval_links)" = 0 ]
	[ ! -e "$PINS/policy" ]
	run "$OOMCTL" detach
	[ "$status" -eq 1 ]
	[[ $output == *"no oomctl policy is attached"* ]]
}

@test "detach fails loudly when something else still holds the link" {
	"$OOMCTL" attach pid
	link=$(status_field '.links[] | select(.prog_name == "pid_eval") | .id')
	prog=$(status_field '.links[] | select(.prog_name == "pid_eval") | .prog_id')
	[[ $link =~ ^[0-9]+$ && $prog =~ ^[0-9]+$ ]]
	bpftool link pin pinned "$PINS/policy/link_pid_eval" /sys/fs/bpf/held
	run "$OOMCTL" detach
	[ "$status" -eq 1 ]
	[ "$output" = "oomctl: detach: link $link still exists after unpinning: another process or pin holds it, so the policy stays attached until it is released" ]
	# It does: the same link, with the same program, on the hook, seen by
	# oomctl as a foreign program now that its pins are gone.
	[ "$(eval_links)" = 1 ]
	[ "$(bpftool -j link show id "$link" | gojq -r '"\(.prog_id) \(.attach_type)"')" = "$prog modify_return" ]
	[ "$(bpftool -j prog show id "$prog" | gojq -r .name)" = pid_eval ]
	[ "$(status_field '.foreign | map("\(.hook) \(.link_id) \(.prog_id) \(.prog_name)") | join(",")')" = \
		"bpf_oom_evaluate_task $link $prog pid_eval" ]
	rm /sys/fs/bpf/held
	wait_for 10 eval_links_are 0
	wait_for 10 bpf_gone link "$link"
}

@test "the pin directory must be root's, 0700, not a symlink, on bpffs" {
	mkdir -m 0755 "$PINS"
	run "$OOMCTL" attach cgprio
	[ "$status" -eq 1 ]
	[[ $output == *"mode 0755, not 0700"* ]]
	rmdir "$PINS"
	mkdir /sys/fs/bpf/elsewhere
	ln -sT /sys/fs/bpf/elsewhere "$PINS"
	[ -L "$PINS" ]
	run "$OOMCTL" attach cgprio
	[ "$status" -eq 1 ]
	[[ $output == *"symlink"* ]]
	rm "$PINS"
	rmdir /sys/fs/bpf/elsewhere
	mkdir -m 0700 "$PINS"
	chown 65534 "$PINS"
	run "$OOMCTL" attach cgprio
	[ "$status" -eq 1 ]
	[[ $output == *"owned by uid 65534"* ]]
	rmdir "$PINS"
	run "$OOMCTL" --bpffs /tmp attach cgprio
	[ "$status" -eq 1 ]
	[[ $output == *"/tmp is not a bpffs mount"* ]]
	[ "$(eval_links)" = 0 ]
}

@test "a run killed while staging leaves no half policy: the next run releases it" {
	mkdir -m 0700 "$PINS" "$PINS/staging-99999"
	bpftool map create "$PINS/staging-99999/map_x" type array key 4 value 4 entries 1 name stale
	stale=$(bpftool -j map show pinned "$PINS/staging-99999/map_x" | gojq .id)
	[ "$(bpf_named map '^stale$')" = 1 ]
	"$OOMCTL" attach cgprio
	[ ! -e "$PINS/staging-99999" ]
	wait_for 10 bpf_gone map "$stale"
	[ "$(bpf_named map '^stale$')" = 0 ]
}

@test "names longer than 15 bytes and unknown policies are usage errors" {
	run "$OOMCTL" attach cgprio --name abcdefghijklmnop
	[ "$status" -eq 2 ]
	[[ $output == *"'abcdefghijklmnop' is 16 bytes long; at most 15"* ]]
	run "$OOMCTL" attach nosuch
	[ "$status" -eq 2 ]
	run "$OOMCTL" -j attach pid --default-prio 3
	[ "$status" -eq 2 ]
	[ "$(gojq -r .error <<<"$output")" != null ]
	[ "$(eval_links)" = 0 ]
	[ ! -e "$PINS/policy" ]
}

@test "concurrent attaches are serialised: exactly one wins, one policy is attached" {
	for i in 1 2 3 4; do
		(rc=0; "$OOMCTL" attach cgprio >/dev/null 2>&1 || rc=$?
		 echo "$rc" >"$BATS_TEST_TMPDIR/rc.$i") &
	done
	wait
	[ "$(cat "$BATS_TEST_TMPDIR"/rc.* | sort | tr -d '\n')" = 0111 ]
	[ "$(eval_links)" = 1 ]
	[ "$(ls "$PINS")" = policy ]
}

@test "a policy the verifier refuses: attach shows the log's last lines, -v all of it, nothing is left" {
	refused=$B/tests/oomctl-refused
	bpf_count prog
	progs_before=$COUNT
	run "$refused" attach refused
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == "oomctl: attach: the kernel refused policy refused: Permission denied" ]]
	[[ $output == *"the last lines of the load log (-v shows all of it)"* ]]
	[[ $output == *"invalid mem access 'map_value_or_null'"* ]]
	short=${#lines[@]}
	((short <= 2 + 12))

	run "$refused" -v attach refused
	[ "$status" -eq 1 ]
	[[ $output == *"-- BEGIN PROG LOAD LOG --"* ]]
	[[ $output == *"invalid mem access 'map_value_or_null'"* ]]
	((${#lines[@]} > short))

	# In JSON mode stdout holds the one error object; the log is on stderr.
	"$refused" -j attach refused 2>/dev/null | gojq -e '.error | test("refused policy refused")'

	[ ! -e "$PINS/policy" ]
	[ -z "$(ls "$PINS")" ]
	[ "$(eval_links)" = 0 ]
	bpf_count prog
	[ "$COUNT" = "$progs_before" ]
}
