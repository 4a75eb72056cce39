#!/usr/bin/env bats
# oomctl as a Debian system runs it (make check-system): installed from its
# .deb, oomctl.service applying /etc/oomctl.conf at boot, workloads started
# by systemd-run in slices under a MemoryMax=, systemd-oomd running beside.

load helpers

setup() {
	conf_backup
	journal_mark
	kmsg_mark
}

teardown() {
	system_teardown
}

@test "after boot: oomctl.service is active, /etc/oomctl.conf's policy attached, its lines in the journal" {
	[ "$(systemctl is-active oomctl.service)" = active ]
	[ "$(oomctl -j status | jq -r '"\(.policy) \(.name)"')" = "cgprio guest-prio" ]
	journal=$(journalctl -b --no-pager -o cat -u oomctl.service)
	echo "$journal"
	# apply's own lines: what it changed, and the slices that do not
	# exist yet (--skip-missing), each naming its line.
	grep -qx '+ policy cgprio' <<<"$journal"
	grep -q '^skipped /etc/oomctl.conf:[0-9]*: prio work.slice/work-batch.slice' <<<"$journal"
	grep -qx 'Finished oomctl.service - OOM killer policy (BPF) from /etc/oomctl.conf.' <<<"$journal"
	# root's PATH finds the package's oomctl, not systemd-oomd's
	[ "$(command -v oomctl)" = /usr/sbin/oomctl ]
}

# batch_ready — a 24M batch workload ready in work-batch.slice, its pid in
# $batch; work-web.slice made too (systemd makes a slice when something
# starts in it, or when it is started itself), and oomctl.service reloaded
# so that the file's lines for both slices apply: at boot they were skipped.
batch_ready() {
	work_unit sys-batch work-batch.slice --hold 24
	wait_for 60 test -e "$BATS_TEST_TMPDIR/sys-batch.ready"
	batch=$(main_pid sys-batch.service)
	systemctl start work-web.slice
	systemctl reload oomctl.service
}

@test "systemd-run workloads in slices under MemoryMax=: the policy picks the victim, the journal and oomctl events agree" {
	batch_ready
	[ "$(oomctl -j get-prio "$WORK/work-batch.slice" | jq -r .prio)" = 100 ]
	[ "$(oomctl -j get-prio "$WORK/work-web.slice" | jq -r .prio)" = 900 ]
	systemctl set-property --runtime work.slice MemoryMax=64M
	# web grows past the limit: 24 + 56 > 64. The kernel alone would kill
	# web, the largest; cgprio kills batch, the lower priority.
	work_unit sys-web work-web.slice --hold 56
	wait_for 120 is_gone "$batch"
	wait_for 60 test -e "$BATS_TEST_TMPDIR/sys-web.ready"
	[ "$(systemctl is-active sys-web.service)" = active ]
	# The kernel's report (the policy's name in it), its kill in the
	# journal, systemd's word on the unit, and oomctl's record name the
	# same process.
	wait_for 30 journal_has "Killed process $batch (hog)" --dmesg
	kmsg_since_mark | grep -q "invoked oom-killer: .*policy_name=guest-prio\$"
	wait_for 30 journal_has 'A process of this unit has been killed by the OOM killer.' --unit=sys-batch.service
	events=$(oomctl -j events --timeout 0)
	echo "$events"
	# (The victim's cgroup is gone: systemd removed it with the unit.)
	[ "$(jq -r 'select(.kind == "kill") | "\(.victim.pid) \(.policy_name): \(.reason)"' <<<"$events" | tail -1)" = \
		"$batch guest-prio: cgroup prio 100 < 900 (set on /work.slice/work-batch.slice)" ]
}

@test "systemctl reload applies an edited file; stop detaches; start attaches again" {
	sed -i 's/^name guest-prio/name guest-edited/' /etc/oomctl.conf
	systemctl reload oomctl.service
	[ "$(oomctl -j status | jq -r .name)" = guest-edited ]
	systemctl stop oomctl.service
	[ "$(oomctl -j status | jq -r .policy)" = null ]
	[ "$(bpftool -j link show | jq '[.[] | select(.attach_type == "modify_return")] | length')" = 0 ]
	systemctl start oomctl.service
	[ "$(oomctl -j status | jq -r '"\(.policy) \(.name)"')" = "cgprio guest-edited" ]
}

@test "systemd-oomd beside oomctl: both active after a kernel OOM, each oomctl command is its own" {
	[ "$(systemctl is-active systemd-oomd.service)" = active ]
	batch_ready
	systemctl set-property --runtime work.slice MemoryMax=64M ManagedOOMMemoryPressure=kill
	work_unit sys-web work-web.slice --hold 56
	wait_for 120 is_gone "$batch"
	[ "$(systemctl is-active systemd-oomd.service)" = active ]
	[ "$(systemctl is-active oomctl.service)" = active ]
	# systemd-oomd's own oomctl, at its own path, sees work.slice as a
	# cgroup it manages; ours shows the policy.
	/usr/bin/oomctl dump | grep -q '/work.slice'
	[ "$(oomctl -j status | jq -r .policy)" = cgprio ]
}

@test "systemctl set-property MemoryMax= below usage under abort-all returns at once; the workload is paused, not killed" {
	systemctl stop oomctl.service
	work_unit sys-batch work-batch.slice --hold 40
	wait_for 60 test -e "$BATS_TEST_TMPDIR/sys-batch.ready"
	batch=$(main_pid sys-batch.service)
	oomctl attach abort-all --cgroup "$WORK"
	t0=$SECONDS
	run timeout 60 systemctl set-property --runtime work.slice MemoryMax=16M
	echo "set-property: exit $status after $((SECONDS - t0)) s: $output"
	[ "$status" -eq 0 ]
	((SECONDS - t0 < 30))
	is_alive "$batch"
	[ "$(cat "$WORK/memory.max")" = $((16 << 20)) ]
	oomctl detach
}
