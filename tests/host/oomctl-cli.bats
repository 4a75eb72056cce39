#!/usr/bin/env bats
# oomctl's command line, on the host: help, usage errors and exit statuses.
# Nothing here loads or attaches anything: every case fails before oomctl
# would touch the BPF syscall for a load (argument checks, capability
# checks, path checks), whatever kernel the host runs. Errors that need the
# hooks are tested in the VM (tests/vm/oomctl-*.bats).

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	OOMCTL=$TOP/build/oomctl
	[ -x "$OOMCTL" ] || { echo "$OOMCTL is missing: run make" >&2; return 1; }
}

# takers OPTION — the policies whose attach takes OPTION, as attach's
# messages name them ("abort-all and protect"): from oomctl -j list.
takers() { "$OOMCTL" -j list | jq -r --arg o "$1" '[.[] | select(.options | index($o)) | .name] | join(" and ")'; }

# as_nobody CMD... — run without any capability.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

@test "help: oomctl help, --help and COMMAND help exit 0 and show usage" {
	run "$OOMCTL" help
	[ "$status" -eq 0 ]
	[[ $output == *"Usage: oomctl [OPTIONS] COMMAND [ARGS]"* ]]
	help=$output
	for c in list attach detach status set-prio get-prio unset-prio add-pid del-pid get-pids \
		 set-slice unset-slice get-slices apply; do
		[[ $help == *"  $c "* ]]
		run "$OOMCTL" "$c" help
		[ "$status" -eq 0 ]
		[[ $output == *"Usage: oomctl $c"* ]]
		run "$OOMCTL" help "$c"
		[ "$status" -eq 0 ]
		[[ $output == *"Usage: oomctl $c"* ]]
	done
	run "$OOMCTL" --help
	[ "$status" -eq 0 ]
	run "$OOMCTL" attach --help
	[ "$status" -eq 0 ]
	[[ $output == *"--default-prio"* ]]
	run "$OOMCTL" -V
	[ "$status" -eq 0 ]
	[[ $output == "oomctl "* ]]
}

@test "usage: no command, an unknown command or option exit 2 with one line" {
	run "$OOMCTL"
	[ "$status" -eq 2 ]
	[[ $output == *"Usage:"* ]]
	run "$OOMCTL" frobnicate
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"unknown command 'frobnicate'"* ]]
	# Exact names only: a prefix is not a command.
	run "$OOMCTL" stat
	[ "$status" -eq 2 ]
	run "$OOMCTL" --bogus list
	[ "$status" -eq 2 ]
	[[ $output == *"--bogus"* ]]
	run "$OOMCTL" status --bogus
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"status: unknown option '--bogus'"* ]]
	run "$OOMCTL" help nosuch
	[ "$status" -eq 2 ]
}

@test "usage: aliases ls and show are the list and status commands" {
	run "$OOMCTL" ls help
	[ "$status" -eq 0 ]
	[[ $output == *"Usage: oomctl list"* ]]
	run "$OOMCTL" show help
	[ "$status" -eq 0 ]
	[[ $output == *"Usage: oomctl status"* ]]
}

@test "list: the bundled policies, as the build list names them, in text and JSON, with their attach options" {
	# The one list a bundled policy is named in: OOMCTL_POLICIES.
	read -ra built < <(sed -n 's/^OOMCTL_POLICIES *:= *//p' "$TOP/src/oomctl.mk")
	((${#built[@]} >= 4))
	run "$OOMCTL" list
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq "${#built[@]}" ]
	for i in "${!built[@]}"; do
		[[ ${lines[i]} == "${built[i]} "* ]]
	done
	run "$OOMCTL" -j list
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.[].name] | join(" ")' <<<"$output")" = "${built[*]}" ]
	[ "$(jq -r '[.[].source] | unique | join(" ")' <<<"$output")" = bundled ]
	# Each policy's options are the ones attach takes with it.
	json=$output
	for p in "${built[@]}"; do
		for o in --default-prio --slice --cgroup --max-pause; do
			run "$OOMCTL" attach "$p" "$o" 1 --bpffs /nonexistent
			if jq -e --arg p "$p" --arg o "$o" '.[] | select(.name == $p) | .options | index($o)' <<<"$json" >/dev/null; then
				[[ $output != *"applies to"* ]]
			else
				[ "$status" -eq 2 ] && [[ $output == *"$o applies to"* ]]
			fi
		done
	done
	run "$OOMCTL" -p list
	[ "$(jq -r '.[0].name' <<<"$output")" = "${built[0]}" ]
	[ "${#lines[@]}" -gt 2 ]
}

@test "attach: usage errors exit 2 and name the bad value" {
	run "$OOMCTL" attach
	[ "$status" -eq 2 ]
	[[ $output == *"which policy"* ]]
	run "$OOMCTL" attach nosuch
	[ "$status" -eq 2 ]
	[[ $output == *"unknown policy 'nosuch'"* ]]
	run "$OOMCTL" attach cgprio extra
	[ "$status" -eq 2 ]
	[[ $output == *"'extra'"* ]]
	run "$OOMCTL" attach cgprio --name 0123456789abcdef
	[ "$status" -eq 2 ]
	[[ $output == *"'0123456789abcdef' is 16 bytes long; at most 15"* ]]
	run "$OOMCTL" attach cgprio --name ""
	[ "$status" -eq 2 ]
	run "$OOMCTL" attach cgprio --name
	[ "$status" -eq 2 ]
	[[ $output == *"needs an argument"* ]]
	for bad in 10abc -1 1001 "" " 5" +5 0x10 99999999999999999999999; do
		run "$OOMCTL" attach cgprio --default-prio "$bad"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
	done
	run "$OOMCTL" attach cgprio --default-prio 10abc
	[[ $output == *"'10abc' is not a decimal integer"* ]]
	run "$OOMCTL" attach cgprio --default-prio 1001
	[[ $output == *"'1001' is out of range, want 0..1000"* ]]
	run "$OOMCTL" attach pid --default-prio 5
	[ "$status" -eq 2 ]
	[[ $output == *"cgprio only"* ]]
	run "$OOMCTL" attach pid --slice /sys/fs/cgroup
	[ "$status" -eq 2 ]
	[[ $output == *"--slice applies to $(takers --slice) only"* ]]
	run "$OOMCTL" attach rss-slice --cgroup /sys/fs/cgroup
	[ "$status" -eq 2 ]
	[[ $output == *"--cgroup applies to $(takers --cgroup) only"* ]]
	run "$OOMCTL" attach abort-all --cgroup /sys/fs/cgroup --slice /sys/fs/cgroup
	[ "$status" -eq 2 ]
	[[ $output == *"belong to different policies"* ]]
	run "$OOMCTL" attach rss-slice --slice
	[ "$status" -eq 2 ]
	[[ $output == *"needs an argument"* ]]
	# A bad cgroup is found before anything is loaded.
	run "$OOMCTL" attach rss-slice --slice /nonexistent
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"'/nonexistent': no such cgroup"* ]]
	run "$OOMCTL" attach abort-all --cgroup /etc
	[ "$status" -eq 1 ]
	[[ $output == *"'/etc': not on a cgroup2 filesystem"* ]]
}

@test "map commands: argument errors exit 2" {
	run "$OOMCTL" set-prio
	[ "$status" -eq 2 ]
	run "$OOMCTL" set-prio /sys/fs/cgroup
	[ "$status" -eq 2 ]
	run "$OOMCTL" set-prio /sys/fs/cgroup 10 11
	[ "$status" -eq 2 ]
	for bad in 10abc abc 1001 "" 1e3 " 10"; do
		run "$OOMCTL" set-prio /sys/fs/cgroup "$bad"
		[ "$status" -eq 2 ]
		[[ $output == *"PRIO '$bad'"* ]]
	done
	run "$OOMCTL" unset-prio
	[ "$status" -eq 2 ]
	run "$OOMCTL" get-prio a b
	[ "$status" -eq 2 ]
	run "$OOMCTL" add-pid
	[ "$status" -eq 2 ]
	for bad in 0 12x 4194305 abc; do
		run "$OOMCTL" add-pid 1 "$bad"
		[ "$status" -eq 2 ]
		[[ $output == *"PID '$bad'"* ]]
	done
	run "$OOMCTL" del-pid 1 x
	[ "$status" -eq 2 ]
	run "$OOMCTL" get-pids 1
	[ "$status" -eq 2 ]
	run "$OOMCTL" set-slice
	[ "$status" -eq 2 ]
	run "$OOMCTL" unset-slice
	[ "$status" -eq 2 ]
	run "$OOMCTL" get-slices /sys/fs/cgroup
	[ "$status" -eq 2 ]
	[[ $output == *"unexpected argument '/sys/fs/cgroup'"* ]]
}

@test "set-prio: a nonexistent path, a file, a cgroup v1 directory fail with one line" {
	run "$OOMCTL" set-prio /nonexistent/cgroup 10
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"'/nonexistent/cgroup': no such cgroup"* ]]
	run "$OOMCTL" set-prio /etc/passwd 10
	[ "$status" -eq 1 ]
	[[ $output == *"not a directory"* ]]
	run "$OOMCTL" set-prio /etc 10
	[ "$status" -eq 1 ]
	[[ $output == *"'/etc': not on a cgroup2 filesystem"* ]]
	v1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/self/mounts)
	[ -n "$v1" ] || skip "no cgroup v1 hierarchy on this host"
	run "$OOMCTL" set-prio "$v1" 10
	[ "$status" -eq 1 ]
	[[ $output == *"cgroup v1"* ]]
}

@test "errors are JSON in JSON mode, with the same exit status" {
	run "$OOMCTL" -j frobnicate
	[ "$status" -eq 2 ]
	[[ $(jq -r .error <<<"$output") == *"unknown command"* ]]
	run "$OOMCTL" -j set-prio /nonexistent 10
	[ "$status" -eq 1 ]
	[[ $(jq -r .error <<<"$output") == *"no such cgroup"* ]]
	run "$OOMCTL" set-prio -j /nonexistent 10abc
	[ "$status" -eq 2 ]
	[[ $(jq -r .error <<<"$output") == *"'10abc'"* ]]
}

@test "without privileges every BPF command is refused with one line, exit 1" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	for c in "attach cgprio" detach status "set-prio /sys/fs/cgroup 1" get-prio \
		 "unset-prio /sys/fs/cgroup" "add-pid 1" "del-pid 1" get-pids \
		 "set-slice /sys/fs/cgroup" "unset-slice /sys/fs/cgroup" get-slices \
		 "attach rss-slice" "attach abort-all"; do
		run as_nobody "$OOMCTL" $c
		[ "$status" -eq 1 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ $output == *"needs root"* ]]
	done
	run as_nobody "$OOMCTL" list
	[ "$status" -eq 0 ]
}

@test "a kernel without the OOM hooks: attach and status say so, before anything is loaded" {
	# Only where the host kernel lacks the hook: otherwise attach could get
	# further than we want on the host.
	if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	   grep -q "FUNC 'bpf_oom_evaluate_task'"; then
		skip "the host kernel has the OOM hooks"
	fi
	run "$OOMCTL" attach cgprio --bpffs /tmp
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"this kernel lacks bpf_oom_evaluate_task — boot the kernel built from kernel/"* ]]
	run "$OOMCTL" status --bpffs /tmp
	[ "$status" -eq 1 ]
	[[ $output == *"lacks bpf_oom_evaluate_task"* ]]
}

@test "apply: a malformed config is refused naming FILE:LINE, exit 2, before bpffs is looked at" {
	conf=$BATS_TEST_TMPDIR/c.conf
	# --bpffs points nowhere: reaching it would be a different error.
	check() { # NEEDLE LINE...
		local needle=$1
		shift
		printf '%s\n' "$@" >"$conf"
		run "$OOMCTL" --bpffs /nonexistent apply --dry-run "$conf"
		echo "$* => $status: $output"
		[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] && [[ $output == *"$needle"* ]]
	}
	check "$conf:2: unknown directive 'prioo'" "policy cgprio" "prioo a 5"
	check "$conf:1: 'policy' takes POLICY" "policy" "prio a 5"
	check "$conf: no 'policy' line" "# only a comment" "" "prio a 5"
	check "$conf:3: PRIO '5x' is not a decimal integer" "policy cgprio   # trailing comment" "" "prio a 5x"
	check "$conf:2: 'pid' applies to pid only, not to policy rss-slice" "policy rss-slice" "pid 1"
	run "$OOMCTL" apply - <<<"policy nosuch"
	[ "$status" -eq 2 ]
	[[ $output == "oomctl: apply: <stdin>:1: unknown policy 'nosuch' ("*", or none; or a policy object's path, with a '/')" ]]
	# ... naming every policy oomctl has.
	for p in $("$OOMCTL" -j list | jq -r '.[].name'); do
		[[ $output == *" $p"[,\ ]* || $output == *"($p,"* ]]
	done
	run "$OOMCTL" -j apply /nonexistent.conf
	[ "$status" -eq 1 ]
	[ "$(jq -r .error <<<"$output")" = "apply: cannot read /nonexistent.conf: No such file or directory" ]
}

@test "OOMCTL_TEST_STOP_AT (test only): =list, each step accepted, unknown steps and bad N refused before the command, a step never reached fails" {
	# --bpffs points nowhere: list locks nothing, so it reaches no step.
	run env OOMCTL_TEST_STOP_AT=list "$OOMCTL" --bpffs /nonexistent list
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 10 ]
	[ -z "$(grep -Pv '^[a-z-]+\t\S' <<<"$output")" ]
	steps=$(cut -f1 <<<"$output")
	[ "$(sort -u <<<"$steps" | wc -l)" -eq "${#lines[@]}" ]
	for step in $steps; do
		run env OOMCTL_TEST_STOP_AT="$step:2" "$OOMCTL" --bpffs /nonexistent list
		echo "$step:2 => $status: $output"
		[ "$status" -eq 1 ]
		[ "${lines[-1]}" = "oomctl: OOMCTL_TEST_STOP_AT: step $step:2 never reached (0 times)" ]
	done
	run env OOMCTL_TEST_STOP_AT=trace "$OOMCTL" --bpffs /nonexistent list
	[ "$status" -eq 0 ]
	traced=$output
	run "$OOMCTL" --bpffs /nonexistent list
	[ "$output" = "$traced" ]
	# status would fail otherwise (no bpffs, no hook): these fail first.
	run env OOMCTL_TEST_STOP_AT=nosuch "$OOMCTL" --bpffs /nonexistent status
	[ "$status" -eq 2 ]
	[ "$output" = "oomctl: OOMCTL_TEST_STOP_AT: unknown step 'nosuch' (OOMCTL_TEST_STOP_AT=list lists them); see 'oomctl help'" ]
	for bad in locked:0 locked:x locked: locked:1001 locked:-1 ""; do
		run env OOMCTL_TEST_STOP_AT="$bad" "$OOMCTL" --bpffs /nonexistent status
		echo "'$bad' => $status: $output"
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ $output == "oomctl: OOMCTL_TEST_STOP_AT: "* ]]
	done
}
