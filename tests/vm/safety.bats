#!/usr/bin/env bats
# The safety promise (issue 16's six scenarios), in real memcg OOMs
# (tests/vm/run --mem 1G): no policy can hang tasks outside the OOMing
# cgroup, keep a memory.max write from returning, flood the log, spin, or be
# slipped past; explain and the kernel agree on ties. Each test states its
# bound and checks it; every wait is bounded.

load helpers
load oomctl-helpers

setup() {
	cg_setup
	kmsg_mark
	SCRATCH=$(mktemp -d /tmp/safety.XXXXXX)
}

teardown() {
	readahead restore
	oomctl_teardown
	rm -rf "$SCRATCH"
}

# never_d SECONDS PID... — none of the processes is seen in D state, sampled
# every 0.1 s for SECONDS or until all of them are gone; fails at the first
# D. A task blocked on a lock held across a paused charge stays in D.
never_d() {
	local deadline=$((SECONDS + $1)) p alive
	shift
	while ((SECONDS < deadline)); do
		alive=0
		for p in "$@"; do
			case $(state "$p") in
			D) echo "pid $p in D state" >&2; return 1 ;;
			- | Z) ;;
			*) alive=1 ;;
			esac
		done
		((alive)) || return 0
		nap 0.1
	done
}

# pausing_dd — abort-all on $CG/a (16M, no deadline), and dd writing 64M
# into tmpfs from it, its pid in $dd, until the cgroup's first OOM: each
# page is charged by the kernel (shmem) with the file's inode lock held.
pausing_dd() {
	mkdir "$CG/a"
	cg_write "$CG/a" memory.max 16M
	"$OOMCTL" attach abort-all --cgroup "$CG/a" --max-pause infinity >/dev/null
	(echo "$BASHPID" >"$CG/a/cgroup.procs" && echo 0 >/proc/self/oom_score_adj &&
		exec dd if=/dev/zero of="$SCRATCH/f" bs=1M count=64) \
		2>"$BATS_TEST_TMPDIR/dd.err" 3>&- &
	dd=$!
	wait_for 60 cg_key_at_least "$CG/a" memory.events oom 1
}

@test "abort-all: a kernel charge in a paused cgroup fails; no task outside it blocks on the locks it held (bound: 10 s)" {
	pausing_dd

	# From the root cgroup: the file's lock, then the directory's.
	(echo x >>"$SCRATCH/f") 3>&- &
	append=$!
	(rm -f "$SCRATCH/f") 3>&- &
	remove=$!
	(touch "$SCRATCH/g") 3>&- &
	create=$!
	never_d 10 "$append" "$remove" "$create"
	reap "$append" 10
	reap "$remove" 10
	reap "$create" 10
	[ -e "$SCRATCH/g" ]

	# dd's write failed (ENOMEM or ENOSPC), or dd is paused: asleep in a
	# page fault (its code, reclaimed, faulted in again), not spinning.
	# Nothing was killed.
	if wait_for 10 is_gone "$dd"; then
		wait "$dd" || true
		grep -Eq "Cannot allocate memory|No space left on device" "$BATS_TEST_TMPDIR/dd.err"
	elif ! wait_for 10 is_paused "$dd"; then
		echo "# dd: state $(state "$dd"), stack $(awk '{ print $2 }' "/proc/$dd/stack" | paste -sd ' ')" >&3
		false
	fi
	[ "$(cg_read_key "$CG/a" memory.events oom_kill)" = 0 ]
}

@test "abort-all: lowering memory.max below usage returns (bound: 5 s); the cgroup is paused, not killed" {
	mkdir "$CG/a"
	cg_write "$CG/a" memory.max 64M
	"$OOMCTL" attach abort-all --cgroup "$CG/a" --max-pause infinity >/dev/null
	hog_ready "$CG/a" 40 big
	big=$HOG_PID

	# The writer is not signalled by anyone (as PID 1 is not): the write
	# must return by itself. timeout(1) is only the test's own safety net.
	start=$SECONDS
	run timeout 30 sh -c "echo 16M >'$CG/a/memory.max'"
	echo "# the write took $((SECONDS - start)) s, status $status" >&3
	[ "$status" = 0 ]
	(($(cg_read_key "$CG/a" memory.events oom) >= 1))
	((SECONDS - start <= 5))
	[ "$(cat "$CG/a/memory.max")" = 16777216 ]
	is_alive "$big"
	[ "$(cg_read_key "$CG/a" memory.events oom_kill)" = 0 ]
}

# pausing_hog — abort-all on $CG/a (16M, no deadline) and a hog growing to
# 24M in it, its pid in $hog: the hog's charge is about to be paused.
pausing_hog() {
	mkdir "$CG/a"
	cg_write "$CG/a" memory.max 16M
	"$OOMCTL" attach abort-all --cgroup "$CG/a" --max-pause infinity >/dev/null
	start_hog "$CG/a" 24 --ready "$BATS_TEST_TMPDIR/hog.ready"
	hog=$HOG_PID
}

@test "abort-all: lowering memory.high while a task is paused returns (bound: 5 s); the task stays paused, not killed, and completes once there is room" {
	pausing_hog
	wait_for 60 is_paused "$hog"

	# As for memory.max: nobody signals the writer; the write must return
	# by itself (memory.high reclaims, it never OOMs or waits on a pause).
	start=$SECONDS
	run timeout 30 sh -c "echo 8M >'$CG/a/memory.high'"
	echo "# the write took $((SECONDS - start)) s, status $status" >&3
	[ "$status" = 0 ]
	((SECONDS - start <= 5))
	[ "$(cat "$CG/a/memory.high")" = 8388608 ]
	is_alive "$hog"
	wait_for 10 is_paused "$hog"
	[ ! -e "$BATS_TEST_TMPDIR/hog.ready" ]

	cg_write "$CG/a" memory.high max
	cg_write "$CG/a" memory.max 64M
	reap "$hog" 30
	[ "$REAPED" = 0 ]
	[ "$(cg_read_key "$CG/a" memory.events oom_kill)" = 0 ]
}

@test "abort-all: a task faulting in a paused cgroup sleeps (<= 10% of a CPU and in the wait in >= 40 of 50 samples; 25% and 30 on the debug kernel) until the limit is raised, then completes" {
	pausing_hog
	wait_for 60 cg_key_at_least "$CG/a" memory.events oom 1

	t0=$(cpu_ticks "$hog") w0=$EPOCHREALTIME
	sleeping=0
	for ((i = 0; i < 50; i++)); do
		is_paused "$hog" && sleeping=$((sleeping + 1))
		nap 0.1
	done
	t1=$(cpu_ticks "$hog") w1=$EPOCHREALTIME
	# Clock ticks are 1/100 s: the share of one CPU, in percent.
	pct=$(awk -v t="$((t1 - t0))" -v a="$w0" -v b="$w1" 'BEGIN { printf "%d", t / (b - a) }')
	echo "# paused hog: $pct% of a CPU ($((t1 - t0)) ticks in $(awk -v a="$w0" -v b="$w1" 'BEGIN { printf "%.1f", b - a }') s), in the pause's wait in $sleeping of 50 samples" >&3
	# It retries once a second. On the debug kernel (lockdep, KASAN: the
	# reclaim and OOM path of each retry run several times slower) that
	# came to 6-16% under TCG, hence its bound; a task that spins, as
	# before the pause, is at ~100% on either, and never in the wait. The
	# slower retry is also time out of the wait (in reclaim, or runnable):
	# 41 and 36 of 50 samples in the wait on the debug kernel (the second
	# with two other VMs on the host), 49 on the plain one.
	bound=10 in_wait=40
	[[ -e /proc/lockdep_stats ]] && bound=25 in_wait=30
	((pct <= bound))
	((sleeping >= in_wait))
	is_alive "$hog"
	[ ! -e "$BATS_TEST_TMPDIR/hog.ready" ]

	cg_write "$CG/a" memory.max 64M
	reap "$hog" 30
	[ "$REAPED" = 0 ]
	[ -e "$BATS_TEST_TMPDIR/hog.ready" ]
	[ "$(cg_read_key "$CG/a" memory.events oom_kill)" = 0 ]
	# One pause, and it ended because there was room again: when the hog
	# woke in the wait, or at the raise if it was between two retries then.
	wait_for 5 resumed 1
	show_pauses
	[ "$(events_of pause)" = 1 ]
	[ "$(events_of resume room)" = 1 ]
	[ "$(status_field .counters.pauses)" = 1 ]
}

# events_of KIND [REASON] — how many events of KIND (with resume_reason
# REASON, if given) the test has seen. `oomctl events` consumes what it
# prints: each call's are kept in the test's events.jsonl.
events_of() {
	"$OOMCTL" -j events --timeout 0 >>"$BATS_TEST_TMPDIR/events.jsonl"
	gojq -s --arg k "$1" --arg r "${2:-}" \
		'[.[] | select(.kind == $k and ($r == "" or .resume_reason == $r))] | length' \
		"$BATS_TEST_TMPDIR/events.jsonl"
}

# resumed N [REASON] — N resume events (with REASON); for wait_for.
resumed() { [[ $(events_of resume "${2:-}") == "$1" ]]; }

# show_pauses — the pause and resume events, one line on fd 3 (the test's
# output, for when it fails).
show_pauses() {
	"$OOMCTL" -j events --timeout 0 >>"$BATS_TEST_TMPDIR/events.jsonl"
	echo "# pause events: $(gojq -r 'select(.kind == "pause" or .kind == "resume") |
			"\(.kind)\(if .resume_reason then "(\(.resume_reason), \(.paused_ms) ms)" else "" end)"' \
		"$BATS_TEST_TMPDIR/events.jsonl" | paste -sd ' ')" >&3
}

@test "abort-all: a pause nobody waits in ends when memory is uncharged (resume: room, bound: 5 s)" {
	# A kernel charge (shmem) pauses the cgroup and fails.
	pausing_dd
	# dd's write failed, or dd waits in the pause (its code, reclaimed,
	# faulted in again): then an operator kills it. No task is left to
	# wait in the pause, so no waiter can end it.
	wait_for 10 is_gone "$dd" || kill -9 "$dd"
	reap "$dd" 10
	# The file's 16M uncharged: the pause is over, whoever waits.
	rm -f "$SCRATCH/f"
	wait_for 5 resumed 1 room
	show_pauses
	[ "$(events_of pause)" = 1 ]
	[ "$(events_of resume)" = 1 ]
	[ "$(cg_read_key "$CG/a" memory.events oom_kill)" = 0 ]
}

@test "abort-all: a pause whose only task stopped ends 2 s after its last aborted OOM (resume: lapsed, bound: 2 + 3 s); the task completes once there is room" {
	pausing_hog
	wait_for 60 is_paused "$hog"
	# SIGSTOP takes it when its wait ends (a killable sleep): stopped, it
	# faults no more, so no OOM is aborted any more.
	kill -STOP "$hog"
	wait_for 5 test_state "$hog" T
	wait_for 5 resumed 1 lapsed
	[ "$(events_of pause)" = 1 ]

	# Once there is room the task completes, in no new pause.
	cg_write "$CG/a" memory.max 64M
	kill -CONT "$hog"
	reap "$hog" 30
	[ "$REAPED" = 0 ]
	[ -e "$BATS_TEST_TMPDIR/hog.ready" ]
	show_pauses
	[ "$(events_of pause)" = 1 ]
	[ "$(events_of resume)" = 1 ]
	[ "$(cg_read_key "$CG/a" memory.events oom_kill)" = 0 ]
}

# readahead 0|restore — readahead on the guest's 9p filesystems (its root)
# off, or back to what it was: with it off, a page fault reads just its page.
readahead() {
	local b
	for b in /sys/class/bdi/9p-*; do
		if [[ $1 == 0 ]]; then
			[[ -e $BATS_TEST_TMPDIR/ra.${b##*/} ]] ||
				cat "$b/read_ahead_kb" >"$BATS_TEST_TMPDIR/ra.${b##*/}"
			echo 0 >"$b/read_ahead_kb"
		elif [[ -e $BATS_TEST_TMPDIR/ra.${b##*/} ]]; then
			cat "$BATS_TEST_TMPDIR/ra.${b##*/}" >"$b/read_ahead_kb"
		fi
	done
}

# stays_alive SECONDS PID — PID is alive at every check, every 0.1 s.
stays_alive() {
	local deadline=$((SECONDS + $1))
	while ((SECONDS < deadline)); do
		is_alive "$2" || return 1
		nap 0.1
	done
}

@test "abort-all: a fault whose file read runs out of memory in a paused cgroup waits there, never SIGBUS (10 rounds)" {
	# The guest's root is 9p, a netfs filesystem: a read allocates its
	# requests from accounted slabs, so in a cgroup at its limit the page
	# cache charge can succeed and the read then fail for lack of memory.
	# The hog reads build/vmlinux.h, which no test reads in the guest, one
	# page a fault (readahead off while it opens it), locked, until the 1M
	# cgroup is full. Before the series' filemap patch, 3-5 rounds in 10
	# ended in SIGBUS.
	local round rc cg
	[ "$(stat -c %s "$B/vmlinux.h")" -gt $((1024 * 1024)) ]
	"$OOMCTL" attach abort-all --cgroup "$CG" --max-pause infinity >/dev/null
	for ((round = 1; round <= 10; round++)); do
		cg=$CG/r$round
		mkdir "$cg"
		cg_write "$cg" memory.max 1M
		echo 3 >/proc/sys/vm/drop_caches
		readahead 0
		start_hog "$cg" 1 --file "$B/vmlinux.h"
		wait_for 60 cg_key_at_least "$cg" memory.events oom 1 || {
			echo "round $round: no OOM: $(cat "$BATS_TEST_TMPDIR/hog.log")" >&2
			return 1
		}
		readahead restore
		# Paused, and still so 3 s later: every retry of the fault (one
		# a second) meets the same full cgroup.
		if ! wait_for 10 is_paused "$HOG_PID" || ! stays_alive 3 "$HOG_PID"; then
			wait "$HOG_PID" && rc=0 || rc=$?
			echo "round $round: the hog was not kept paused: exit $rc$( ((rc == 135)) && echo ' (SIGBUS)')" >&2
			return 1
		fi
		cg_write "$cg" memory.max max
		reap "$HOG_PID" 60
		[ "$REAPED" = 0 ]
		[ "$(cg_read_key "$cg" memory.events oom_kill)" = 0 ]
	done
}

@test "abort-all --max-pause 3: a paused cgroup gets the kernel's kill after 3 s (bound: 3 + 2 s), and events show the pause" {
	mkdir "$CG/a"
	cg_write "$CG/a" memory.max 16M
	"$OOMCTL" attach abort-all --cgroup "$CG/a" --max-pause 3 >/dev/null
	start_hog "$CG/a" 24
	hog=$HOG_PID
	wait_for 60 cg_key_at_least "$CG/a" memory.events oom 1
	reap "$hog" 60
	[ "$REAPED" = 137 ]

	run "$OOMCTL" -j events --timeout 0
	gojq -c . <<<"$output" >"$BATS_TEST_TMPDIR/events"
	[ "$(gojq -rs 'map(.kind) | map(select(. == "pause" or . == "kill" or . == "resume")) | join(",")' \
		"$BATS_TEST_TMPDIR/events")" = pause,kill,resume ]
	resume=$(gojq -s '[.[] | select(.kind == "resume")][0]' "$BATS_TEST_TMPDIR/events")
	[ "$(gojq -r .resume_reason <<<"$resume")" = kill ]
	paused=$(gojq -r .paused_ms <<<"$resume")
	echo "# paused for $paused ms" >&3
	((paused >= 3000 && paused <= 5000))
	[ "$(gojq -rs '[.[] | select(.kind == "kill")][0].victim.pid' "$BATS_TEST_TMPDIR/events")" = "$hog" ]
}

@test "a policy answering NEXT for every task in a memcg OOM: the kernel heuristic kills (bound: 30 s), at most 100 log lines" {
	mkdir "$CG/a"
	cg_write "$CG" memory.max 16M
	load_policy --mode next
	start_hog "$CG/a" 64
	hog=$HOG_PID
	reap "$hog" 30
	[ "$REAPED" = 137 ]
	unload_policy
	(($(stat_of failures) >= 1))
	nlines=$(kmsg_since_mark | wc -l)
	echo "# $nlines kernel log lines, $(stat_of failures) scans without a victim" >&3
	((nlines <= 100))
	kmsg_since_mark | grep -q "Killed process $hog (hog)"
}

@test "a process whose main thread has exited is ranked by the memory it holds: cgprio kills it, explain and events agree" {
	mkdir "$CG/low" "$CG/high"
	cg_write "$CG" memory.max 48M
	"$OOMCTL" attach cgprio >/dev/null
	"$OOMCTL" set-prio "$CG/low" 10
	"$OOMCTL" set-prio "$CG/high" 50
	hog_ready "$CG/low" 16 leaderless --leader-exit
	leaderless=$HOG_PID
	hog_ready "$CG/high" 8 small
	small=$HOG_PID
	# The leader is a zombie; the worker thread holds the 16M.
	[ "$(awk '{ print $3 }' "/proc/$leaderless/task/$leaderless/stat")" = Z ]

	run "$OOMCTL" -j explain --cgroup "$CG"
	[ "$(gojq -r '.ranked[0].pid' <<<"$output")" = "$leaderless" ]
	(($(gojq -r '.ranked[0].rss_kb' <<<"$output") >= 16000))

	start_hog "$CG/high" 64
	grower=$HOG_PID
	reap "$leaderless" 60
	[ "$REAPED" = 137 ]
	is_alive "$small"
	[ "$(oomctl_json '.victim.pid' events --count 1 --timeout 0)" = "$leaderless" ]
	kill "$grower" 2>/dev/null || true
}

@test "equal candidates: the lower pid dies, whatever the scan order, and explain says so first" {
	mkdir "$CG/x" "$CG/y" "$CG/grow"
	cg_write "$CG" memory.max 32M
	"$OOMCTL" attach cgprio >/dev/null
	"$OOMCTL" set-prio "$CG/x" 10
	"$OOMCTL" set-prio "$CG/y" 10
	"$OOMCTL" set-prio "$CG/grow" 50
	# Twins forked from one hog score the same (hog pins them to one CPU:
	# the badness leaves out per-CPU parts of the RSS counters). The lower
	# pid goes to y, the later cgroup, which the memcg scan visits second.
	start_hog "$CG/grow" 8 --hold --twins --ready "$BATS_TEST_TMPDIR/twins"
	wait_for 60 test -s "$BATS_TEST_TMPDIR/twins"
	read -r first second <"$BATS_TEST_TMPDIR/twins"
	((first < second))
	echo "$first" >"$CG/y/cgroup.procs"
	echo "$second" >"$CG/x/cgroup.procs"

	run "$OOMCTL" -j explain --cgroup "$CG"
	# Shown if the test fails: the two scores and the memory behind them.
	gojq -c '.ranked[:2][] | {pid, badness, rss_kb}' <<<"$output"
	[ "$(gojq -r '.ranked[0].badness' <<<"$output")" = "$(gojq -r '.ranked[1].badness' <<<"$output")" ]
	[ "$(gojq -r '.ranked[0].pid' <<<"$output")" = "$first" ]

	start_hog "$CG/grow" 64
	grower=$HOG_PID
	# Not this shell's child: wait for it to go, then ask events.
	wait_for 60 is_gone "$first"
	[ "$(oomctl_json '.victim.pid' events --count 1 --timeout 0)" = "$first" ]
	kill "$grower" 2>/dev/null || true
}

# The kernel only marks a victim that is already exiting (task_will_free_mem()
# in oom_kill_process()): events must say so, not report a kill. exit-stall's
# child is held in do_exit() by its tracer with its 32M still charged.
@test "a victim already exiting is only marked: events says exiting, not kill; status counts it, nobody is killed" {
	mkdir "$CG/a"
	cg_write "$CG/a" memory.max 48M
	"$OOMCTL" attach cgprio >/dev/null
	(echo "$BASHPID" >"$CG/a/cgroup.procs" &&
		exec "$B/tests/exit-stall" "$BATS_TEST_TMPDIR/stall" 32) 3>&- &
	tracer=$!
	wait_for 60 test -s "$BATS_TEST_TMPDIR/stall"
	read -r stalled <"$BATS_TEST_TMPDIR/stall"
	[ "$(state "$stalled")" = t ]

	# 32M + 32M > 48M: the OOM comes when the grower has about 16M, and the
	# scan picks the stalled process, the largest; the kernel marks it and
	# the OOM reaper frees its memory; the grower gets its 32M and exits 0.
	start_hog "$CG/a" 32
	grower=$HOG_PID
	reap "$grower" 120
	[ "$REAPED" = 0 ]

	run "$OOMCTL" -j events --count 1 --timeout 0
	[ "$status" = 0 ]
	echo "# $output" >&3
	[ "$(gojq -r .kind <<<"$output")" = exiting ]
	[ "$(gojq -r .victim.pid <<<"$output")" = "$stalled" ]
	[ "$(gojq -r .victim.cgroup <<<"$output")" = /oomtest/a ]
	[[ $(gojq -r .reason <<<"$output") == "already exiting: the kernel marked it, killed nobody ("* ]]
	[ "$(status_field .counters.marked)" = 1 ]
	[ "$(status_field .counters.kills)" = 0 ]
	[ "$(cg_read_key "$CG/a" memory.events oom_kill)" = 0 ]
	[ "$(kmsg_since_mark | grep -c "Killed process")" = 0 ]

	kill "$tracer"
	reap "$tracer" 30
	[ "$REAPED" = 0 ]
	is_gone "$stalled"
}
