#!/usr/bin/env bats
# Bad input changes nothing (tests/vm/run --mem 1G). Every command against
# every kind of bad input, in every state it can meet: nothing attached,
# each policy attached, a bad pin directory, a foreign program on the hook.
# Each case must print one line naming the bad value, exit with the
# documented status (2: usage, 1: failure), and leave `oomctl status -j`,
# bpffs and the kernel's BPF programs and links exactly as they were.

load helpers
load oomctl-helpers

setup_file() {
	export CASES=$BATS_FILE_TMPDIR/cases
	: >"$CASES"
	# A cgroup v1 hierarchy (named, no controller) for the v1 cases, and a
	# second bpffs for pin directories that are not ours.
	mkdir -p /tmp/v1 /tmp/bpf2 /tmp/notbpf
	mount -t cgroup -o none,name=oomtest cgroup /tmp/v1
	mkdir -p /tmp/v1/grp
	mount -t bpf bpf /tmp/bpf2
}

teardown_file() {
	rmdir /tmp/v1/grp
	umount /tmp/v1 /tmp/bpf2
	echo "# reliability-input: $(wc -l <"$CASES") bad-input cases, each changing nothing" >&3
}

setup() {
	cg_setup
	mkdir "$CG/a"
	printf 'not a cgroup\n' >/tmp/file
	# A well-formed config for oomctl apply, for the states that refuse it.
	GOOD=$BATS_TEST_TMPDIR/good.conf
	printf 'policy cgprio\nprio %s 5\n' "$CG/a" >"$GOOD"
}

# conf LINE... — a config file for oomctl apply; its path.
conf() {
	local f=$BATS_TEST_TMPDIR/bad$((++NCONF)).conf
	printf '%s\n' "$@" >"$f"
	echo "$f"
}

teardown() {
	oomctl_teardown
	rm -rf /tmp/bpf2/oomctl /tmp/bpf2/elsewhere
}

# Everything a bad command could have changed: what oomctl reports, the
# files on both bpffs mounts, the kernel's BPF programs (a link holds one).
snapshot() {
	"$OOMCTL" -j status
	find /sys/fs/bpf /tmp/bpf2 -printf '%p %m %u %y\n' | sort
	bpftool -j prog show
}

# in_state — record the state the following cases must leave untouched.
in_state() {
	BEFORE=$(snapshot)
	printf '%s\n' "$BEFORE" >"$BATS_TEST_TMPDIR/before"
}

# bad CODE NEEDLE ARGS... — `oomctl ARGS` exits CODE with one line that
# contains NEEDLE, and changes nothing.
bad() {
	local code=$1 needle=$2
	shift 2
	run "$OOMCTL" "$@"
	echo "oomctl $*  =>  exit $status: $output"
	[ "$status" -eq "$code" ]
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == "oomctl: "* ]]
	[[ $output == *"$needle"* ]]
	# Compared in the shell; diff (an exec, ~0.2 s under TCG for each of
	# the 330 cases) only to show a change.
	local now
	now=$(snapshot)
	[[ $now == "$BEFORE" ]] || { diff "$BATS_TEST_TMPDIR/before" - <<<"$now"; return 1; }
	echo "$*" >>"$CASES"
}

# Numbers no command may take for a priority (0..1000).
BAD_PRIOS=(10abc abc -1 -0 1001 "" " 5" +5 0x10 1e3 1.5 99999999999999999999 18446744073709551616)
# ... nor for a pid (1..4194304).
BAD_PIDS=(0 -0 -1 12x "" " 7" +7 4194305 99999999999999999999)

# Usage errors: exit 2, before anything is looked at. Run with a policy
# attached, where a change would show.
usage_cases() {
	bad 2 "unknown command 'frobnicate'" frobnicate
	bad 2 "unknown command 'stat'" stat
	bad 2 "unknown option '--frob'" --frob status
	bad 2 "unknown option '-x'" status -x
	bad 2 "unexpected argument 'extra'" status extra
	bad 2 "unexpected argument 'x'" list x
	bad 2 "unexpected argument 'x'" detach x
	bad 2 "unknown command 'nosuch'" help nosuch
	bad 2 "needs an argument" status --bpffs
	bad 2 "which policy" attach
	bad 2 "unknown policy 'nosuch'" attach nosuch
	bad 2 "unknown policy 'CGPRIO'" attach CGPRIO
	bad 2 "unexpected argument 'extra'" attach cgprio extra
	bad 2 "'0123456789abcdef' is 16 bytes long" attach cgprio --name 0123456789abcdef
	bad 2 "is 20 bytes long" attach pid --name "$(printf 'x%.0s' {1..20})"
	bad 2 "the name is empty" attach cgprio --name ""
	bad 2 "--default-prio applies to $(takers --default-prio) only" attach pid --default-prio 5
	bad 2 "--slice applies to $(takers --slice) only" attach cgprio --slice "$CG/a"
	bad 2 "--cgroup applies to $(takers --cgroup) only" attach rss-slice --cgroup "$CG/a"
	for p in "${BAD_PRIOS[@]}"; do
		bad 2 "--default-prio '$p'" attach cgprio --default-prio "$p"
		bad 2 "'$p'" set-prio "$CG/a" "$p"
	done
	for p in "${BAD_PIDS[@]}"; do
		bad 2 "'$p'" add-pid 1 "$p"
		bad 2 "'$p'" del-pid "$p"
	done
	bad 2 "missing argument" set-prio
	bad 2 "missing argument" set-prio "$CG/a"
	bad 2 "unexpected argument '2'" set-prio "$CG/a" 1 2
	bad 2 "missing argument" unset-prio
	bad 2 "unexpected argument" unset-prio "$CG/a" "$CG"
	bad 2 "unexpected argument" get-prio "$CG/a" "$CG"
	bad 2 "missing argument" add-pid
	bad 2 "missing argument" del-pid
	bad 2 "unexpected argument '1'" get-pids 1
	bad 2 "missing argument" set-slice
	bad 2 "missing argument" unset-slice
	bad 2 "unexpected argument" get-slices "$CG/a"
}

# Paths that are no cgroup v2 directory: exit 1, for every command taking
# one. path_cases ARGS... runs `oomctl ARGS PATH ${AFTER[@]}`; with
# CONF_LINE set (a printf format, e.g. "prio %s 5"), `oomctl apply FILE` on
# a file of the lines $CONF_HEAD and CONF_LINE for PATH instead.
AFTER=()
CONF_LINE=
path_cases() {
	local p
	declare -A why=(
		[/nonexistent]="'/nonexistent': no such cgroup"
		[$CG/nope]="'$CG/nope': no such cgroup"
		[oomtest/nope]="'oomtest/nope': no such cgroup"
		[/tmp/file]="'/tmp/file': not a directory"
		[$CG/memory.max]="'$CG/memory.max': not a directory"
		[/tmp]="'/tmp': not on a cgroup2 filesystem"
		[/proc]="'/proc': not on a cgroup2 filesystem"
		[/tmp/v1/grp]="'/tmp/v1/grp': a cgroup v1 directory"
	)
	for p in "${!why[@]}"; do
		if [[ -n $CONF_LINE ]]; then
			# shellcheck disable=SC2059 # CONF_LINE is a format: the path goes in its %s
			bad 1 "${why[$p]}" apply "$(conf "$CONF_HEAD" "$(printf "$CONF_LINE" "$p")")"
		else
			bad 1 "${why[$p]}" "$@" "$p" "${AFTER[@]}"
		fi
	done
}

# Config files oomctl apply must refuse before changing anything (exit 2),
# or, naming something missing, refuse unless --skip-missing (exit 1).
apply_cases() {
	bad 2 "which file?" apply
	bad 2 "unexpected argument" apply "$GOOD" "$GOOD"
	bad 2 "unknown option '--force'" apply --force "$GOOD"
	bad 1 "cannot read /nonexistent.conf" apply /nonexistent.conf
	bad 1 "cannot read /tmp" apply /tmp
	local f
	f=$(conf "prio $CG/a 5")
	bad 2 "$f: no 'policy' line" apply "$f"
	f=$(conf "policy cgprio" "policy pid")
	bad 2 "$f:2: a second 'policy' line" apply "$f"
	f=$(conf "policy CGPRIO")
	bad 2 "$f:1: unknown policy 'CGPRIO'" apply "$f"
	f=$(conf "policy cgprio" "prio=$CG/a 5")
	bad 2 "$f:2: unknown directive 'prio=$CG/a'" apply "$f"
	f=$(conf "policy cgprio" "prio $CG/a")
	bad 2 "$f:2: 'prio' takes CGROUP PRIO" apply "$f"
	f=$(conf "policy cgprio" "prio $CG/a 5 6")
	bad 2 "$f:2: 'prio' takes CGROUP PRIO" apply "$f"
	f=$(conf "policy none" "prio $CG/a 5")
	bad 2 "$f:2: 'prio' with policy none" apply "$f"
	f=$(conf "policy pid" "default-prio 5")
	bad 2 "$f:2: 'default-prio' applies to cgprio only" apply "$f"
	f=$(conf "policy abort-all" "slice $CG/a")
	bad 2 "$f:2: 'slice' applies to rss-slice only" apply "$f"
	f=$(conf "policy cgprio" "name x" "name y")
	bad 2 "$f:3: a second 'name' line (the first is line 2)" apply "$f"
	f=$(conf "policy cgprio" "name 0123456789abcdef")
	bad 2 "$f:2: name '0123456789abcdef' is 16 bytes long" apply "$f"
	for p in "${BAD_PRIOS[@]}"; do
		[[ $p == *" "* || -z $p ]] && continue	# words split on blanks
		f=$(conf "policy cgprio" "prio $CG/a $p")
		bad 2 "$f:2: PRIO '$p'" apply "$f"
		f=$(conf "policy cgprio" "default-prio $p")
		bad 2 "$f:2: PRIO '$p'" apply "$f"
	done
	for p in "${BAD_PIDS[@]}"; do
		[[ $p == *" "* || -z $p ]] && continue
		f=$(conf "policy pid" "pid $p")
		bad 2 "$f:2: PID '$p'" apply "$f"
	done
	# Found only after the good lines; and the bad value, not a missing
	# cgroup, wins: the file is checked whole before anything is resolved.
	f=$(conf "policy cgprio" "prio $CG/a 1" "prio $CG/nope 2")
	bad 1 "$f:3: cgroup '$CG/nope': no such cgroup" apply "$f"
	f=$(conf "policy cgprio" "prio $CG/nope 2" "prio $CG/a 1001")
	bad 2 "$f:3: PRIO '1001'" apply "$f"
	f=$(conf "policy cgprio" "prio $CG/a 1" "prio oomtest/a 2")
	bad 2 "$f:3: prio $CG/a is already on an earlier line" apply "$f"
	f=$(conf "policy pid" "pid 4194304")
	bad 1 "$f:2: no process 4194304" apply "$f"
	CONF_HEAD="policy cgprio" CONF_LINE="prio %s 5" path_cases
	CONF_HEAD="policy rss-slice" CONF_LINE="slice %s" path_cases
	CONF_HEAD="policy abort-all" CONF_LINE="cgroup %s" path_cases
}

@test "bad input with nothing attached changes nothing" {
	in_state
	for c in "set-prio $CG/a 5" get-prio "unset-prio $CG/a"; do
		bad 1 "no cgprio policy is attached" $c
	done
	for c in "add-pid 1" "del-pid 1" get-pids; do
		bad 1 "no pid policy is attached" $c
	done
	for c in "set-slice $CG/a" "unset-slice $CG/a" get-slices; do
		bad 1 "no rss-slice policy is attached" $c
	done
	bad 1 "no oomctl policy is attached" detach
	bad 1 "/tmp/notbpf is not a bpffs mount" --bpffs /tmp/notbpf attach cgprio
	bad 1 "bpffs directory /nonexistent" --bpffs /nonexistent attach cgprio
	bad 1 "/tmp/notbpf is not a bpffs mount" --bpffs /tmp/notbpf status
	path_cases attach rss-slice --slice
	path_cases attach abort-all --cgroup
	# The bad cgroup is found even after good ones: nothing is loaded.
	bad 1 "'/nonexistent': no such cgroup" attach rss-slice --slice "$CG/a" --slice /nonexistent
	# Nor is anything created on bpffs.
	apply_cases
	bad 1 "/tmp/notbpf is not a bpffs mount" --bpffs /tmp/notbpf apply "$GOOD"
}

@test "bad input with cgprio attached changes nothing" {
	"$OOMCTL" attach cgprio --default-prio 7
	"$OOMCTL" set-prio "$CG/a" 10
	in_state
	usage_cases
	AFTER=(5)
	path_cases set-prio
	AFTER=()
	path_cases get-prio
	path_cases unset-prio
	bad 1 "$CG has no prio of its own" unset-prio "$CG"
	bad 1 "policy cgprio is already attached" attach cgprio
	bad 1 "policy cgprio is already attached" attach pid
	bad 1 "the attached policy is cgprio, not pid" add-pid 1
	bad 1 "the attached policy is cgprio, not pid" get-pids
	bad 1 "the attached policy is cgprio, not rss-slice" set-slice "$CG/a"
	bad 1 "the attached policy is cgprio, not rss-slice" get-slices
	# A replace that fails (bad slice) keeps the old policy whole.
	bad 1 "'/nonexistent': no such cgroup" attach rss-slice --replace --slice /nonexistent
	bad 2 "unknown policy 'nosuch'" attach nosuch --replace
	apply_cases
}

@test "bad input with pid attached changes nothing" {
	(echo "$BASHPID" >"$CG/a/cgroup.procs" && exec sleep 1000) &
	target=$!
	"$OOMCTL" attach pid
	"$OOMCTL" add-pid "$target"
	in_state
	bad 2 "PID '12x'" add-pid 12x
	bad 2 "'-0': a value may not start with '-'" del-pid -0
	bad 1 "no process 4194304" add-pid 4194304
	bad 1 "no process 4194304" add-pid "$target" 4194304
	bad 1 "4194303 is not a target" del-pid "$target" 4194303
	bad 1 "the attached policy is pid, not cgprio" set-prio "$CG/a" 5
}

@test "bad input with rss-slice attached changes nothing" {
	"$OOMCTL" attach rss-slice --slice "$CG/a"
	in_state
	bad 2 "missing argument" set-slice
	bad 2 "unexpected argument" get-slices "$CG/a"
	path_cases set-slice
	path_cases unset-slice
	bad 1 "$CG is not a slice" unset-slice "$CG/a" "$CG"
	bad 1 "'/nonexistent': no such cgroup" set-slice "$CG" /nonexistent
}

@test "a pin directory that is not root's 0700 directory is refused, and left alone" {
	mkdir -m 0700 /tmp/bpf2/oomctl
	chown 65534 /tmp/bpf2/oomctl
	in_state
	for c in "attach cgprio" detach status get-prio "apply $GOOD"; do
		bad 1 "/tmp/bpf2/oomctl is owned by uid 65534, not root" --bpffs /tmp/bpf2 $c
	done
	chown 0 /tmp/bpf2/oomctl
	chmod 1777 /tmp/bpf2/oomctl
	in_state
	for c in "attach cgprio" detach status get-prio "apply $GOOD"; do
		bad 1 "/tmp/bpf2/oomctl has mode 1777, not 0700" --bpffs /tmp/bpf2 $c
	done
	rmdir /tmp/bpf2/oomctl
	mkdir -m 0700 /tmp/bpf2/elsewhere
	ln -sT /tmp/bpf2/elsewhere /tmp/bpf2/oomctl
	[ -L /tmp/bpf2/oomctl ]
	in_state
	for c in "attach cgprio" detach status get-prio "apply $GOOD"; do
		bad 1 "is not a directory (a symlink?)" --bpffs /tmp/bpf2 $c
	done
}

@test "a foreign program on the hook: attach and attach --replace refuse, and change nothing" {
	load_policy --mode none --name foreign
	in_state
	bad 1 "a program not attached by oomctl is on bpf_oom_evaluate_task" attach cgprio
	bad 1 "a program not attached by oomctl is on bpf_oom_evaluate_task" attach pid --replace
	bad 1 "a program not attached by oomctl is on bpf_oom_evaluate_task" \
		attach rss-slice --slice "$CG/a"
	bad 1 "apply: a program not attached by oomctl is on bpf_oom_evaluate_task" apply "$GOOD"
	unload_policy
	[ ! -e "$PINS" ]
}
