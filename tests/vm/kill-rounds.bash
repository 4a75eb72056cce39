# SIGKILL oomctl at every step of attach, attach --replace and detach
# (sourced by reliability-kill.bats). OOMCTL_TEST_STOP_AT=STEP:N (test only,
# src/test-stop.c) makes oomctl stop itself the Nth time it reaches STEP, a
# point between two of the operation's side effects (a directory made or
# removed, a pin made or unlinked, a link attached, a rename). Each round
# checks that oomctl really stopped there (state T, within a deadline, and
# its own word for the step), SIGKILLs it, checks that the kill ended it
# (exit 137), then checks the state here, in the test's shell, where a
# failed check fails the test:
#
#   before any other command: policy/ holds the pins of a whole policy, or
#     does not exist; what else the kill left (staging-PID or detaching-PID
#     and their pins, evaluate links) is printed, not checked;
#   after `oomctl status` (which releases what a killed run left): no
#     staging or detaching directory, no foreign program, and either the old
#     or the new policy whole (its every pin, one evaluate link, the links
#     status lists, its name, config and entries, the kernel's programs,
#     links and maps those of that policy alone) or none (no pin, the
#     kernel's objects back to the baseline);
#   then the next command works: detach what is attached, or attach anew
#     and detach.
#
# The rounds are the operation's own steps, read from a trace of it
# (OOMCTL_TEST_STOP_AT=trace): make check stops at the first and the last
# time each step is reached (the first and the last map, link and pin),
# OOMCTL_STRESS=1 at every one. The suite also checks that every step oomctl
# lists is reached, and that the repeated steps come once per map, link or
# pin. Most of a round's time is process start-up under TCG: the checks use
# globs, bash's read and one bpftool per object kind rather than jq.

# proc_state PID — the state letter in /proc/PID/stat (T: stopped, Z: a
# zombie), or "gone".
proc_state() {
	local s
	read -r s 2>/dev/null <"/proc/$1/stat" || { echo gone; return 0; }
	s=${s##*) }
	echo "${s%% *}"
}
stopped_or_ended() {
	local s
	s=$(proc_state "$1")
	[[ $s == T || $s == Z || $s == gone ]]
}

# fail_at WHAT... — a round's failure, with what failed; fails the test.
fail_at() {
	echo "kill at $AT during $KIND: $*" >&2
	return 1
}

# policy_pins — the pin names in policy/, one line.
policy_pins() {
	local f out=''
	for f in "$PINS"/policy/*; do
		[[ -e $f ]] && out+="${f##*/} "
	done
	echo "$out"
}

# stale_dirs — what is in the pin directory besides policy/, one line.
stale_dirs() {
	local f out=''
	for f in "$PINS"/*; do
		[[ -e $f && ${f##*/} != policy ]] && out+="${f##*/} "
	done
	echo "$out"
}

# kill_refs — once per file (setup_file): the steps oomctl lists, and the
# two policies as attach makes them: their pins, and the kernel's object
# counts with each attached alone (none: as at boot); written to $REFS as
# bash.
kill_refs() {
	local list name out base p l m counts dp dl dm
	list=$(OOMCTL_TEST_STOP_AT=list "$OOMCTL" list)
	[ -n "$list" ]
	# The counts at boot (tests/vm/init), those the whole run ends with.
	base=$(cat /run/bpf-objects.boot)
	wait_for 30 objects_are "$base" ||
		{ echo "BPF objects $OBJS before this file, $base at boot" >&2; return 1; }
	{
		echo "STEPS=\"$(cut -f1 <<<"$list" | tr '\n' ' ')\""
		echo "declare -gA REF_PINS=() REF_OBJECTS=([none]=\"$base\")"
		for name in cgprio pid; do
			"$OOMCTL" attach "$name" >/dev/null
			echo "REF_PINS[$name]=\"$(policy_pins)\""
			out=$("$OOMCTL" -j detach)
			read -r p l m <<<"$base"
			counts=$(gojq -r '"\(.programs | length) \(.links | length) \(.maps | length)"' <<<"$out")
			read -r dp dl dm <<<"$counts"
			echo "REF_OBJECTS[$name]=\"$((p + dp)) $((l + dl)) $((m + dm))\""
			wait_for 10 objects_are "$base"
		done
	} >"$REFS"
}

# kill_setup — the references, and a process to list in pid's map.
kill_setup() {
	# shellcheck source=/dev/null
	source "$REFS"
	BASE=${REF_OBJECTS[none]}
	wait_for 10 objects_are "$BASE"
	mkdir "$CG/listed"
	(echo "$BASHPID" >"$CG/listed/cgroup.procs" && exec sleep 3600) 3>&- &
	LISTED=$!
	disown "$LISTED"	# killed by cg_teardown: no job notice
}

# op_args — the operation KIND: oomctl's arguments (OP), the old and the new
# state as policy/name (OLD, NEW) and the entries each shows in status
# (ENTRIES); prepare attaches the old policy.
op_args() {
	declare -gA ENTRIES=([cgprio/new]="prio:7:" [cgprio/old]="prio:3:$CG=5" [pid/old]="pids:$LISTED")
	case $KIND in
	attach) OP=(attach cgprio --name new --default-prio 7) OLD=none NEW=cgprio/new ;;
	replace) OP=(attach cgprio --name new --default-prio 7 --replace) OLD=pid/old NEW=cgprio/new ;;
	detach) OP=(detach) OLD=cgprio/old NEW=none ;;
	esac
}
prepare() {
	case $KIND in
	replace)
		"$OOMCTL" attach pid --name old >/dev/null
		"$OOMCTL" add-pid "$LISTED" >/dev/null
		;;
	detach)
		"$OOMCTL" attach cgprio --name old --default-prio 3 >/dev/null
		"$OOMCTL" set-prio "$CG" 5 >/dev/null
		;;
	esac
}

# count STEP — how many times TRACE reaches STEP.
count() { grep -c "^$1:" <<<"$TRACE" || true; }

# trace_op — run the operation once with OOMCTL_TEST_STOP_AT=trace; its
# steps in order, STEP:N a line, in TRACE. Checks that every step is one
# oomctl lists, and that the steps that repeat do so once per map, link or
# pin; then back to nothing attached.
trace_op() {
	local err=$BATS_TEST_TMPDIR/trace.err name maps links old_pins
	prepare
	OOMCTL_TEST_STOP_AT=trace "$OOMCTL" "${OP[@]}" >/dev/null 2>"$err" ||
		{ cat "$err" >&2; return 1; }
	TRACE=$(sed -n 's/^oomctl: test step //p' "$err")
	[ -n "$TRACE" ]
	for name in $(cut -d: -f1 <<<"$TRACE" | sort -u); do
		[[ " $STEPS " == *" $name "* ]] || fail_at "trace: '$name' is not a step oomctl lists"
	done
	maps=$(tr ' ' '\n' <<<"${REF_PINS[cgprio]}" | grep -c '^map_')
	links=$(tr ' ' '\n' <<<"${REF_PINS[cgprio]}" | grep -c '^link_')
	if [[ $KIND != detach ]]; then
		[ "$(count map-pinned)" = "$maps" ] ||
			fail_at "trace: map-pinned $(count map-pinned) times, cgprio has $maps maps"
		[ "$(count link-attached)" = "$links" ] ||
			fail_at "trace: link-attached $(count link-attached) times, cgprio has $links links"
		[ "$(count link-pinned)" = "$links" ] ||
			fail_at "trace: link-pinned $(count link-pinned) times, cgprio has $links links"
	fi
	case $KIND in
	replace) old_pins=$(wc -w <<<"${REF_PINS[pid]}") ;;
	detach) old_pins=$(wc -w <<<"${REF_PINS[cgprio]}") ;;
	*) old_pins=0 ;;
	esac
	[ "$(count pin-removed)" = "$old_pins" ] ||
		fail_at "trace: pin-removed $(count pin-removed) times, want $old_pins"
	[ "$(head -n 1 <<<"$TRACE")" = locked:1 ] || fail_at "trace does not start at locked:1"
	[ "$(tail -n 1 <<<"$TRACE")" = done:1 ] || fail_at "trace does not end at done:1"
	[[ ! -d $PINS/policy ]] || "$OOMCTL" detach >/dev/null
	wait_for 10 objects_are "$BASE"
}

# rounds_of TRACE — the rounds to run: every STEP:N with OOMCTL_STRESS=1,
# else the first and the last N of each step.
rounds_of() {
	if ((${OOMCTL_STRESS:-0})); then
		echo "$1"
	else
		awk -F: '!($1 in first) { first[$1] = $0; order[n++] = $1 } { last[$1] = $0 }
			END { for (i = 0; i < n; i++) { print first[order[i]]
				if (last[order[i]] != first[order[i]]) print last[order[i]] } }' <<<"$1"
	fi
}

# stop_kill — run the operation with OOMCTL_TEST_STOP_AT=$AT, wait (bounded)
# until it has stopped itself there, SIGKILL it, check the kill ended it.
stop_kill() {
	local err=$BATS_TEST_TMPDIR/stop.err pid rc=0
	OOMCTL_TEST_STOP_AT=$AT "$OOMCTL" "${OP[@]}" >/dev/null 2>"$err" 3>&- &
	pid=$!
	wait_for 60 stopped_or_ended "$pid" || true
	if [[ $(proc_state "$pid") != T ]]; then
		{ kill -KILL "$pid" && wait "$pid"; } 2>/dev/null || true
		fail_at "oomctl ${OP[*]} did not stop: $(cat "$err")"
	fi
	[ "$(cat "$err")" = "oomctl: test step $AT: stopping (pid $pid)" ] ||
		fail_at "stopped, but not at the step: $(cat "$err")"
	# (stderr: no "Killed" notice from bash)
	{ kill -KILL "$pid" && wait "$pid" || rc=$?; } 2>/dev/null
	[ "$rc" = 137 ] || fail_at "oomctl exited $rc after the SIGKILL, not 137"
}

# check_round — the checks after the kill; the outcome in OUTCOME, what the
# kill left until the next command in RESIDUE.
check_round() {
	local s f attached foreign nlinks entries d n pins policy links_now links_base
	# Before any command: policy/ whole or absent.
	if [[ -d $PINS/policy ]]; then
		pins=$(policy_pins)
		[[ $pins == "${REF_PINS[cgprio]}" || $pins == "${REF_PINS[pid]}" ]] ||
			fail_at "policy/ holds half a policy before the next command: $pins"
	fi
	objects_now
	RESIDUE="$EVALS evaluate link(s)"
	for d in $(stale_dirs); do
		n=$(find "$PINS/$d" -mindepth 1 | wc -l)
		RESIDUE+=", ${d%%-*}-PID ($n pins)"
	done

	# The next command, status, releases what the killed run left.
	s=$("$OOMCTL" -j status) || fail_at "status failed after the kill: $s"
	f=$(gojq -r --arg cg "$CG" '[.attached, "\(.policy)/\(.name)", (.foreign | length),
		(.links | length), (if .policy == "cgprio" then
		"prio:\(.default_prio):\([.prios[] | "\(.path)=\(.prio)"] | join(","))"
		elif .policy == "pid" then "pids:\([.pids[].pid | tostring] | join(","))"
		else "-" end)] | map(tostring) | join(" ")' <<<"$s")
	read -r attached OUTCOME foreign nlinks entries <<<"$f"
	[ -z "$(stale_dirs)" ] || fail_at "status left $(stale_dirs)"
	[ "$foreign" = 0 ] || fail_at "a foreign program: $s"
	if [ "$attached" = true ]; then
		policy=${OUTCOME%/*}
		[[ $OUTCOME == "$OLD" || $OUTCOME == "$NEW" ]] ||
			fail_at "attached $OUTCOME, neither the old ($OLD) nor the new ($NEW)"
		[ "$(policy_pins)" = "${REF_PINS[$policy]}" ] ||
			fail_at "policy/ holds $(policy_pins), not ${REF_PINS[$policy]}"
		[ "$entries" = "${ENTRIES[$OUTCOME]}" ] ||
			fail_at "$OUTCOME has config and entries $entries, not ${ENTRIES[$OUTCOME]}"
	else
		[ "$attached" = false ] || fail_at "status -j: .attached is '$attached'"
		OUTCOME=none policy=none
		[[ $OLD == none || $NEW == none ]] || fail_at "nothing attached, neither $OLD nor $NEW"
		[ ! -e "$PINS/policy" ] || fail_at "policy/ exists with nothing attached"
	fi
	wait_for 10 objects_are "${REF_OBJECTS[$policy]}" ||
		fail_at "objects (progs links maps) $OBJS, want ${REF_OBJECTS[$policy]}, those of $OUTCOME alone"
	if [[ $policy != none ]]; then
		[ "$EVALS" = 1 ] || fail_at "$EVALS evaluate links with $OUTCOME attached"
		read -r _ links_now _ <<<"$OBJS"
		read -r _ links_base _ <<<"$BASE"
		[ "$nlinks" -gt 0 ] && [ "$nlinks" = $((links_now - links_base)) ] ||
			fail_at "status lists $nlinks links, the kernel has $((links_now - links_base)) more than at boot"
	fi

	# The next command works: detach what is attached, or attach anew.
	if [[ $OUTCOME == none ]]; then
		"$OOMCTL" attach cgprio --name new --default-prio 7 >/dev/null ||
			fail_at "attach after the kill failed"
	fi
	"$OOMCTL" detach >/dev/null || fail_at "detach after the kill failed"
	wait_for 10 objects_are "$BASE" || fail_at "objects $OBJS after detach, want $BASE"
	[ -z "$(stale_dirs)" ] || fail_at "left after detach: $(stale_dirs)"
}

# kill_steps KIND — attach, replace or detach: a round at each of its steps.
kill_steps() {
	KIND=$1
	local rounds n=0 summary='' t start=$SECONDS o
	declare -A seen=()
	op_args
	AT=trace
	trace_op
	rounds=$(rounds_of "$TRACE")
	for AT in $rounds; do
		t=$SECONDS
		prepare
		stop_kill
		check_round
		echo "# $KIND, kill at $AT: left $OUTCOME; until the next command: $RESIDUE ($((SECONDS - t)) s)" >&3
		seen[$OUTCOME]+="${seen[$OUTCOME]:+ }$AT"
		n=$((n + 1))
	done
	for o in "${!seen[@]}"; do summary+="; $o at $(wc -w <<<"${seen[$o]}")"; done
	echo "# SIGKILL during $KIND at $n of its $(wc -l <<<"$TRACE") steps: whole every time$summary ($((SECONDS - start)) s)" >&3
}

# all_steps_reached — every step oomctl lists is reached by attach, attach
# --replace or detach: none is dead code that a round would never stop at.
all_steps_reached() {
	local reached='' name
	for KIND in attach replace detach; do
		op_args
		AT=trace
		trace_op
		reached+=" $(cut -d: -f1 <<<"$TRACE" | tr '\n' ' ')"
	done
	for name in $STEPS; do
		[[ $reached == *" $name "* ]] || { echo "step $name is reached by none of them" >&2; return 1; }
	done
	echo "# $(wc -w <<<"$STEPS") steps listed, each reached: $STEPS" >&3
}
