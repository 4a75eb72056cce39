#!/usr/bin/env bats
# One OOM, one kill (issue 20) in a global OOM (tests/vm/run --mem 256M):
# the memcg scenario of one-kill.bats on the whole machine. A holder takes
# half of what the machine has available, then a grower takes 70% of it:
# one victim, either, is enough. The harness runs at oom_score_adj -1000, so
# the two are the only candidates. A second kill is collateral: the charge
# still failing starts a new OOM while the first victim's pages are on
# their way back (kernel/patches 0008 makes the victim hold the next OOM
# until its memory is freed, in global OOMs as in memcg ones).

load helpers
load oomctl-helpers

# 20 rounds, 10 on the debug kernel, where each is several times slower.
ROUNDS=20
[[ ! -e /proc/lockdep_stats ]] || ROUNDS=10

setup() {
	kmsg_mark
}

teardown() {
	oomctl_teardown
}

# round_kills R — the kernel's kills since round R began, from its log
# (the test kernel has no VM event counters: no oom_kill in /proc/vmstat,
# and the root cgroup has no memory.events).
round_kills() {
	dmesg | sed -n "/oomtest: one-kill-global $BATS_TEST_NUMBER round $1\$/,\$p" | grep -c 'Out of memory: Killed process'
}

# kill_rounds LABEL — ROUNDS global OOMs under what is attached; fails if
# any round kills other than exactly once, naming the rounds.
kill_rounds() {
	local label=$1 r avail holder grower ready kills bad=()
	for ((r = 1; r <= ROUNDS; r++)); do
		echo "oomtest: one-kill-global $BATS_TEST_NUMBER round $r" >/dev/kmsg
		avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
		hog_ready "$CGROOT" $((avail / 2)) "holder$r"
		holder=$HOG_PID
		ready=$BATS_TEST_TMPDIR/grower$r.ready
		start_hog "$CGROOT" $((avail * 7 / 10)) --hold --ready "$ready"
		grower=$HOG_PID
		wait_for 120 round_settled "$holder" "$grower" "$ready"
		kills=$(round_kills "$r")
		if ((kills != 1)); then
			bad+=("round $r ($avail MB available): $kills kills ($(is_gone "$grower" && echo "grower dead" || echo "grower alive"))")
			((${#bad[@]} > 3)) || dmesg | sed -n "/oomtest: one-kill-global $BATS_TEST_NUMBER round $r\$/,\$p" |
				grep -E 'Killed process|oom_reaper' >&2 || true
		fi
		# The survivor goes quietly: SIGKILL from here, waited for.
		{ kill -9 "$holder" "$grower" && wait "$holder" "$grower"; } 2>/dev/null || true
		wait_for 30 is_gone "$holder"
		wait_for 30 is_gone "$grower"
	done
	echo "# $label: $ROUNDS global OOMs, $((ROUNDS - ${#bad[@]})) with one kill; collateral in ${#bad[@]}" >&3
	((${#bad[@]} == 0)) || {
		printf '%s\n' "${bad[@]}" >&2
		return 1
	}
}

@test "no policy: a global OOM that one kill resolves kills once ($ROUNDS rounds)" {
	kill_rounds "no policy"
}

@test "cgprio: a global OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach cgprio >/dev/null
	kill_rounds cgprio
}
