#!/usr/bin/env bats
# The Debian guest across a power cycle (make check-system), driven from
# the host: two boots of one disk (tests/vm/run --system --disk). bpffs pins
# die with the kernel; oomctl.service attaches the policy again at boot,
# from the file as it was last edited.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
	DISK=$BATS_TEST_TMPDIR/disk.qcow2
}

# boot SCRIPT — boot the guest from $DISK and run SCRIPT in it, as bats'
# run: $status, $output and $lines, less the serial line's \r.
boot() {
	run "$TOP/tests/vm/run" --system --disk "$DISK" -- bash -c "$1"
	output=${output//$'\r'/}
	mapfile -t lines <<<"$output"
}

@test "a reboot attaches the policy again, from /etc/oomctl.conf as edited before it" {
	boot '
		set -e
		sed -i "s/^name guest-prio\$/name guest-reboot/" /etc/oomctl.conf
		systemctl reload oomctl.service
		oomctl -j status | jq -r .name'
	echo "first boot: $output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = guest-reboot ]
	boot '
		systemctl is-active oomctl.service
		oomctl -j status | jq -r "\"\(.policy) \(.name)\""
		journalctl --list-boots --no-pager --quiet | wc -l'
	echo "second boot: $output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = active ]
	[ "${lines[1]}" = "cgprio guest-reboot" ]
	# The journal on the disk has both boots: the same machine, booted again.
	[ "${lines[2]}" = 2 ]
}
