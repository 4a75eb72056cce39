#!/usr/bin/env bats
# OOM storms in memory cgroups (tests/vm/run --mem 1G; make check-stress):
# 50 memcg OOMs in a row under each policy, a forking hog, two memcgs OOMing
# at once, memory.oom.group. Every OOM is real; every wait has a deadline.
#
# The limits are small (8M to 16M) so that each OOM is quick under TCG. A
# hog costs its megabytes plus about 0.3M (its stack, page tables, the
# subshell that started it), and an empty cgroup about 0.25M: the sizes
# below leave at least 0.5M either way, so that exactly one kill ends each
# OOM.

load helpers
load oomctl-helpers

ROUNDS=50

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

# --- rounds -----------------------------------------------------------------

# fail_round MESSAGE — a round's check failed: say why, return 1. A round
# runs as `if "$fn"`, where errexit is off: each check must return itself,
# as in `CHECK || { fail_round MESSAGE; return; }`.
fail_round() {
	ROUND_ERR=$*
	return 1
}

# oom_kills, oom_events — the counts in $CG's memory.events.
oom_kills() { cg_read_key "$CG" memory.events oom_kill; }
oom_events() { cg_read_key "$CG" memory.events oom; }

# kills_are N — fail the round unless $CG's oom_kill is N.
kills_are() {
	local n
	n=$(oom_kills)
	[[ $n == "$1" ]] || fail_round "oom_kill of $CG is $n, want $1"
}

# victim_recorded PID CGROUP KILL — does 'oomctl status' show PID, killed in
# CGROUP (relative to the cgroup2 mount), as the last victim, and KILL kills
# in all? The policy records the victim on entry to oom_kill_process(),
# with the policy_name the kernel really printed.
victim_recorded() {
	local out
	out=$("$OOMCTL" status) || { fail_round "oomctl status failed"; return; }
	[[ $out == *"last victim:  pid $1 (hog) in $2, policy_name $POLICY_NAME"* ]] ||
		{ fail_round "status shows another last victim than $1 in $2: $(grep 'last victim' <<<"$out")"; return; }
	[[ $out =~ kills\ $3, ]] ||
		fail_round "status does not count $3 kills: $(grep counters <<<"$out")"
}

# end_hog PID — SIGKILL a hog of ours and reap it (no OOM kill).
end_hog() {
	kill -KILL "$1" 2>/dev/null
	reap "$1" 60
}

# storm NAME WHAT ROUND_FUNCTION [ARG...] — run ROUNDS rounds, counting
# those that pass; round N runs ROUND_FUNCTION N ARG..., which returns 1
# with ROUND_ERR set when a check fails, and appends the pid it expected to
# die to VICTIMS. Reports "N/ROUNDS WHAT" on the TAP stream and fails unless
# every round passed.
storm() {
	local name=$1 what=$2 fn=$3 ok=0 t0=$SECONDS
	shift 3
	VICTIMS=()
	for ((round = 1; round <= ROUNDS; round++)); do
		ROUND_ERR=
		if "$fn" "$round" "$@"; then
			ok=$((ok + 1))
		else
			echo "# $name: round $round: ${ROUND_ERR:-a command failed}" >&3
		fi
	done
	echo "# $name: $ok/$ROUNDS $what ($((SECONDS - t0)) s)" >&3
	[ "$ok" = "$ROUNDS" ]
}

# kernel_victims_are PID... — the kernel log since the mark names exactly
# these victims, in this order, each after a report of our policy_name.
kernel_victims_are() {
	kmsg_since_mark >"$BATS_TEST_TMPDIR/kmsg"
	diff <(grep -o 'Memory cgroup out of memory: Killed process [0-9]*' "$BATS_TEST_TMPDIR/kmsg" |
		awk '{ print $NF }') <(printf '%s\n' "$@")
	[ "$(grep -c 'invoked oom-killer: ' "$BATS_TEST_TMPDIR/kmsg")" = "$#" ]
	[ "$(grep -c "invoked oom-killer: .*policy_name=$POLICY_NAME\$" "$BATS_TEST_TMPDIR/kmsg")" = "$#" ]
}

# --- 50 OOMs per policy -----------------------------------------------------

# cgprio_round N BIG: a 5M hog in high (priority 50), BIG, stays; each round
# a hog in low (priority 10) grows towards 4M and hits the 8M limit at about
# 2M. The kernel heuristic would kill the 5M hog; cgprio must kill the low
# one.
cgprio_round() {
	local low
	start_hog "$CG/low" 4 --hold
	low=$HOG_PID
	reap "$low" 120 || { end_hog "$low"; fail_round "low hog $low was not killed"; return; }
	[[ $REAPED == 137 ]] || { fail_round "low hog $low ended with $REAPED, not SIGKILL"; return; }
	VICTIMS+=("$low")
	is_alive "$2" || { fail_round "the 5M hog of high ($2) died"; return; }
	kills_are "$1" || return
	victim_recorded "$low" /oomtest/low "$1"
}

@test "cgprio: 50 memcg OOMs in a row, the lowest priority dies every time, never the biggest" {
	mkdir "$CG/low" "$CG/high"
	cg_write "$CG" memory.max 8M
	POLICY_NAME=cgprio
	"$OOMCTL" attach cgprio --default-prio 100
	"$OOMCTL" set-prio "$CG/low" 10
	"$OOMCTL" set-prio "$CG/high" 50
	hog_ready "$CG/high" 5 high
	big=$HOG_PID

	storm cgprio "expected victims" cgprio_round "$big"
	is_alive "$big"
	kernel_victims_are "${VICTIMS[@]}"
	[ "$(status_field .counters.kills)" = "$ROUNDS" ]
	[ "$(status_field .counters.failures)" = 0 ]
}

# pid_round N BIG: a 4M hog in c, BIG, stays; each round a 2M hog in a is
# listed, then a hog in b grows towards 2M: about 9M under an 8M limit. The
# heuristic would kill the 4M hog; pid must kill the listed one, after
# which the growing hog fits.
pid_round() {
	local target trigger
	hog_ready "$CG/a" 2 "target$1" || { end_hog "$HOG_PID"; fail_round "the target hog did not start"; return; }
	target=$HOG_PID
	"$OOMCTL" add-pid "$target" >/dev/null || { end_hog "$target"; fail_round "add-pid failed"; return; }
	# Once the growing hog has its 2M, the OOM is over.
	hog_ready "$CG/b" 2 "trigger$1" ||
		{ end_hog "$target"; end_hog "$HOG_PID"; fail_round "the growing hog did not get its 2M"; return; }
	trigger=$HOG_PID
	reap "$target" 30 || { end_hog "$target"; end_hog "$trigger"; fail_round "listed hog $target was not killed"; return; }
	[[ $REAPED == 137 ]] || { end_hog "$trigger"; fail_round "listed hog $target ended with $REAPED, not SIGKILL"; return; }
	VICTIMS+=("$target")
	is_alive "$trigger" || { fail_round "the growing hog $trigger died"; return; }
	end_hog "$trigger" || { fail_round "the growing hog $trigger did not end"; return; }
	is_alive "$2" || { fail_round "the unlisted 4M hog ($2) died"; return; }
	kills_are "$1" || return
	victim_recorded "$target" /oomtest/a "$1"
}

@test "pid: 50 memcg OOMs in a row, the listed process dies every time, never the biggest" {
	mkdir "$CG/a" "$CG/b" "$CG/c"
	cg_write "$CG" memory.max 8M
	POLICY_NAME=pid
	"$OOMCTL" attach pid
	hog_ready "$CG/c" 4 big
	big=$HOG_PID

	storm pid "expected victims" pid_round "$big"
	is_alive "$big"
	kernel_victims_are "${VICTIMS[@]}"
	[ "$(status_field .counters.kills)" = "$ROUNDS" ]
	[ "$(status_field .counters.selections)" = "$ROUNDS" ]
	# Every victim's entry went with it.
	[ "$(oomctl_json length get-pids)" = 0 ]
}

# slice_round N BIG SMALL: outside the slice a 6M hog, BIG, stays; inside it
# a 1M hog, SMALL, stays; each round a hog in the slice grows towards 6M and
# hits the 12M limit at about 3.5M: the largest in the slice, though smaller
# than the one outside.
slice_round() {
	local grower
	start_hog "$CG/slice/grow" 6 --hold
	grower=$HOG_PID
	reap "$grower" 120 || { end_hog "$grower"; fail_round "growing hog $grower was not killed"; return; }
	[[ $REAPED == 137 ]] || { fail_round "growing hog $grower ended with $REAPED, not SIGKILL"; return; }
	VICTIMS+=("$grower")
	is_alive "$2" || { fail_round "the 6M hog outside the slice ($2) died"; return; }
	is_alive "$3" || { fail_round "the 1M hog of the slice ($3) died"; return; }
	kills_are "$1" || return
	victim_recorded "$grower" /oomtest/slice/grow "$1"
}

@test "rss-slice: 50 memcg OOMs in a row, the largest task of the slice dies every time" {
	mkdir -p "$CG/slice/grow" "$CG/slice/small" "$CG/out"
	cg_write "$CG" memory.max 12M
	POLICY_NAME=rss-slice
	"$OOMCTL" attach rss-slice --slice "$CG/slice"
	hog_ready "$CG/out" 6 big
	big=$HOG_PID
	hog_ready "$CG/slice/small" 1 small
	small=$HOG_PID

	storm rss-slice "expected victims" slice_round "$big" "$small"
	is_alive "$big"
	is_alive "$small"
	kernel_victims_are "${VICTIMS[@]}"
	[ "$(status_field .counters.kills)" = "$ROUNDS" ]
}

# abort_round N: a hog grows towards 12M under the 8M limit: the OOM is
# aborted (memory.events counts an oom, no oom_kill, the policy a failure)
# and the hog stays paused, alive and short of its 12M, while its charge is
# retried and aborted again; once the limit is raised it completes and
# exits 0.
abort_round() {
	local hog ooms ready=$BATS_TEST_TMPDIR/abort$1.ready
	ooms=$(oom_events)
	start_hog "$CG/a" 12 --ready "$ready"
	hog=$HOG_PID
	wait_for 120 cg_key_at_least "$CG" memory.events oom $((ooms + 2)) ||
		{ end_hog "$hog"; fail_round "not two OOMs"; return; }
	is_alive "$hog" || { fail_round "hog $hog died while paused"; return; }
	[[ ! -e $ready ]] || { end_hog "$hog"; fail_round "hog $hog got 12M under an 8M limit"; return; }
	kills_are 0 || { end_hog "$hog"; return; }
	cg_write "$CG" memory.max 32M
	reap "$hog" 120 || { end_hog "$hog"; cg_write "$CG" memory.max 8M; fail_round "hog $hog did not complete once the limit was raised"; return; }
	cg_write "$CG" memory.max 8M
	[[ $REAPED == 0 ]] || { fail_round "hog $hog ended with $REAPED, not 0"; return; }
	[[ -e $ready ]] || { fail_round "hog $hog did not get its 12M"; return; }
	kills_are 0
}

@test "abort-all: 50 memcg OOMs in a row are paused, nothing is killed, every hog completes" {
	mkdir "$CG/a"
	cg_write "$CG" memory.max 8M
	"$OOMCTL" attach abort-all

	storm abort-all "paused OOMs, no kill, every hog completed" abort_round
	echo "# abort-all: $(oom_events) aborted OOMs in all" >&3
	[ "$(oom_kills)" = 0 ]
	(($(oom_events) >= 2 * ROUNDS))
	[ "$(status_field .counters.kills)" = 0 ]
	[ "$(status_field .counters.selections)" = 0 ]
	(($(status_field .counters.failures) >= 2 * ROUNDS))
	[ -z "$(kmsg_since_mark | grep -e "Killed process" -e "invoked oom-killer")" ]
}
