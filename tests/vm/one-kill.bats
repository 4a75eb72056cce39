#!/usr/bin/env bats
# One OOM, one kill (issue 20): a memcg OOM that one kill resolves kills
# once, with no policy and under each bundled policy. The scenario: a cgroup
# with memory.max 24M holds a 12M process (the holder); a second process
# (the grower) then grows to 16M. 12 + 16 > 24 and 16 < 24: one victim, the
# holder or the grower, is enough. A second kill is collateral: it happens
# when the charge that is still failing starts a new OOM while the first
# victim's pages are on their way back (kernel/patches 0008 closes that window).

load helpers
load oomctl-helpers

# 50 rounds (3-5 of them killed twice before the fix); 20 on the debug
# kernel, where each round is several times slower.
ROUNDS=50
[[ ! -e /proc/lockdep_stats ]] || ROUNDS=20

setup() {
	cg_setup
	kmsg_mark
}

teardown() {
	[[ -z ${BUDGET:-} ]] || echo "$BUDGET" >/proc/sys/vm/oom_bpf_budget_ms
	oomctl_teardown
}

# one_round HOLDER_CG GROWER_CG R — round R's two processes: the holder
# (12M) in HOLDER_CG, then the grower (to 16M) in GROWER_CG; returns once
# the round is settled (round_settled), their pids in HOLDER and GROWER.
one_round() {
	local ready=$BATS_TEST_TMPDIR/grower$3.ready
	hog_ready "$1" 12 "holder$3" --hold
	HOLDER=$HOG_PID
	start_hog "$2" 16 --hold --ready "$ready"
	GROWER=$HOG_PID
	wait_for 120 round_settled "$HOLDER" "$GROWER" "$ready"
}

# kill_rounds LABEL — ROUNDS rounds of the scenario under what is attached;
# fails if any round kills other than exactly once, naming the rounds.
kill_rounds() {
	local label=$1 r cg kills first bad=()
	local holder_first=0 grower_first=0
	for ((r = 1; r <= ROUNDS; r++)); do
		cg=$CG/r$r
		echo "oomtest: one-kill round $r" >/dev/kmsg
		mkdir "$cg"
		cg_write "$cg" memory.max 24M
		one_round "$cg" "$cg" "$r"
		kills=$(cg_read_key "$cg" memory.events oom_kill)
		if is_gone "$HOLDER"; then first=holder; else first=grower; fi
		[[ $first == holder ]] && holder_first=$((holder_first + 1)) || grower_first=$((grower_first + 1))
		if ((kills != 1)); then
			bad+=("round $r: $kills kills ($(is_gone "$GROWER" && echo "grower dead" || echo "grower alive"))")
			# The kills and the OOM reports' memcg usage, from the log.
			((${#bad[@]} > 3)) || dmesg | sed -n "/oomtest: one-kill round $r\$/,\$p" |
				grep -E 'Killed process|memory: usage|^\[[ 0-9.]*\] anon [0-9]' >&2 || true
		fi
		echo 1 >"$cg/cgroup.kill"
		wait_for 30 cg_empty "$cg"
		reap "$HOLDER" 10
		reap "$GROWER" 10
		rmdir "$cg"
	done
	echo "# $label: $ROUNDS rounds, $((ROUNDS - ${#bad[@]})) with one kill; the holder killed in $holder_first, the grower alone in $grower_first; collateral in ${#bad[@]}" >&3
	((${#bad[@]} == 0)) || {
		printf '%s\n' "${bad[@]}" >&2
		return 1
	}
}

@test "no policy: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	kill_rounds "no policy"
}

@test "cgprio: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach cgprio >/dev/null
	kill_rounds cgprio
}

@test "pid: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach pid >/dev/null
	kill_rounds pid
}

@test "rss-slice: a memcg OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach rss-slice --slice "$CG" >/dev/null
	kill_rounds rss-slice
}

@test "abort-all --max-pause 1: a paused OOM that one kill resolves kills once ($ROUNDS rounds)" {
	"$OOMCTL" attach abort-all --cgroup "$CG" --max-pause 1 >/dev/null
	kill_rounds "abort-all --max-pause 1"
}

# Memory that a victim gives back during the next OOM's scan. An OOM finds
# no room (mem_cgroup_out_of_memory()'s margin check), then scans; if the
# victim of an OOM before it gives its memory back meanwhile (its pages
# uncharged, then MMF_OOM_SKIP set: by exit_mmap(), or by the OOM reaper),
# the scan skips it and used to choose a second victim though the memory
# it wanted was back (seen once in the 250 rounds above, on a busy host).
# Made wide here: the first victim is already exiting, held in do_exit()
# with 16M by tests/tools/exit-stall (the grower has about 8M when the OOM
# comes: the stalled process is the larger), so the kernel only marks it and
# the OOM reaper frees its memory 2 s later, while the grower's charge
# retries OOM after OOM, each scan slow (tests/bpf/oom_test.bpf.c's `slow`:
# NEXT for every task after LOOPS bpf_loop() iterations, so the kernel
# heuristic decides; the policy's budget at its most, 1 s) over a crowd of
# sleepers scanned before the victim. One mark per round and no kill: the
# grower gets its 16M. Kernel patch 0008 checks for room again between the
# scan and the kill.
SLOW_ROUNDS=5
SLOW_LOOPS=500000

@test "memory a marked victim gives back during the next OOM's scan ends the OOM: nobody is killed (slow scan, $SLOW_ROUNDS rounds)" {
	local r kills before ooms tracer ready bad=()
	BUDGET=$(cat /proc/sys/vm/oom_bpf_budget_ms)
	echo 1000 >/proc/sys/vm/oom_bpf_budget_ms
	# First in scan order: $CG's children are scanned in creation order.
	crowd_ready 10
	load_policy --mode slow --loops "$SLOW_LOOPS" --name slowscan
	ooms=$(cg_read_key "$CG" memory.events oom)
	for ((r = 1; r <= SLOW_ROUNDS; r++)); do
		echo "oomtest: slow-scan round $r" >/dev/kmsg
		mkdir "$CG/h$r" "$CG/g$r"
		cg_write "$CG" memory.max $(($(cat "$CG/memory.current") + 24 * 1024 * 1024))
		before=$(cg_read_key "$CG" memory.events oom_kill)
		(echo "$BASHPID" >"$CG/h$r/cgroup.procs" &&
			exec "$B/tests/exit-stall" "$BATS_TEST_TMPDIR/stall$r" 16) 3>&- &
		tracer=$!
		wait_for 60 test -s "$BATS_TEST_TMPDIR/stall$r"
		ready=$BATS_TEST_TMPDIR/grower$r.ready
		start_hog "$CG/g$r" 16 --hold --ready "$ready"
		wait_for 120 ready_or_gone "$HOG_PID" "$ready"
		kills=$(($(cg_read_key "$CG" memory.events oom_kill) - before))
		if ((kills != 0)); then
			bad+=("round $r: $kills kills")
			((${#bad[@]} > 2)) || dmesg | sed -n "/oomtest: slow-scan round $r\$/,\$p" |
				grep -E 'Killed process|memory: usage' >&2 || true
		fi
		cg_write "$CG" memory.max max
		kill "$tracer"
		reap "$tracer" 30
		echo 1 >"$CG/g$r/cgroup.kill"
		wait_for 30 cg_empty "$CG/g$r"
		wait_for 30 cg_empty "$CG/h$r"
		reap "$HOG_PID" 10
		rmdir "$CG/h$r" "$CG/g$r"
	done
	unload_policy
	ooms=$(($(cg_read_key "$CG" memory.events oom) - ooms))
	echo "# slow scan: $SLOW_ROUNDS rounds, $((SLOW_ROUNDS - ${#bad[@]})) without a kill;" \
		"$ooms OOMs, the policy asked $(stat_of evaluated) times" >&3
	((${#bad[@]} == 0)) || {
		printf '%s\n' "${bad[@]}" >&2
		return 1
	}
}

# ready_or_gone PID READY — the grower has its memory (READY exists) or
# is gone (killed).
ready_or_gone() { [[ -e $2 ]] || is_gone "$1"; }
