#!/usr/bin/env bats
# make bench's trial knobs (tests/bench/bench), checked on the host before
# any VM boots: a count that is not a positive number is one clear error;
# and its workload tests/tools/sleepers' options for the spread layout.

setup() {
	TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

teardown() {
	# A sleepers left running by a failed test, and its processes.
	if [[ -n ${SPID:-} ]]; then
		kill $(pgrep -P "$SPID") "$SPID" 2>/dev/null || true
	fi
}

@test "bench: a zero, negative or non-numeric count is refused, exit 2, nothing run" {
	for bad in BENCH_OOMS=0 BENCH_PASSES=-1 BENCH_CLI=x BENCH_ATTACH=1.5; do
		run env "$bad" "$TOP/tests/bench/bench"
		[ "$status" -eq 2 ]
		[ "$output" = "bench: ${bad%%=*} must be a positive number, not '${bad#*=}'" ]
	done
}

@test "bench: BENCH_TASKS takes positive numbers only" {
	run env BENCH_TASKS="100 1e3" "$TOP/tests/bench/bench"
	[ "$status" -eq 2 ]
	[ "$output" = "bench: BENCH_TASKS takes positive numbers, not '1e3'" ]
}

@test "bench: BENCH_LAYOUTS takes shared and spread only, BENCH_RUNS a positive number" {
	run env BENCH_LAYOUTS="shared flat" "$TOP/tests/bench/bench"
	[ "$status" -eq 2 ]
	[ "$output" = "bench: BENCH_LAYOUTS takes shared and spread, not 'flat'" ]
	run env BENCH_RUNS=0 "$TOP/tests/bench/bench"
	[ "$status" -eq 2 ]
	[ "$output" = "bench: BENCH_RUNS must be a positive number, not '0'" ]
}

# The spread layout's processes (tests/tools/sleepers --fork --touch --into),
# on the host: sleepers is built here, check-host does not build the tools.
build_sleepers() {
	SLEEPERS=$BATS_TEST_TMPDIR/sleepers
	cc -O2 -Wall -Werror -o "$SLEEPERS" "$TOP/tests/tools/sleepers.c"
}

@test "sleepers: --touch and --into need --fork, --groups needs --into, bad sizes refused" {
	build_sleepers
	run "$SLEEPERS" --touch 32 3
	[ "$status" -eq 2 ]
	[ "$output" = "sleepers: --touch and --into need --fork (processes with their own mm)" ]
	run "$SLEEPERS" --fork --groups 4 3
	[ "$status" -eq 2 ]
	[ "$output" = "sleepers: --groups needs --into" ]
	run "$SLEEPERS" --fork --touch 0 3
	[ "$status" -eq 2 ]
	[ "$output" = "sleepers: bad --touch '0'" ]
}

@test "sleepers --fork --touch: every process has memory of its own, ready only once it has" {
	build_sleepers
	local ready=$BATS_TEST_TMPDIR/ready pid kids=() k own parent
	"$SLEEPERS" --fork --touch 4096 --ready "$ready" 3 3>&- &
	pid=$!
	SPID=$pid
	for _ in {1..100}; do [ -e "$ready" ] && break; sleep 0.1; done
	[ -e "$ready" ]
	mapfile -t kids < <(pgrep -P "$pid")
	[ "${#kids[@]}" -eq 3 ]
	# Anonymous RSS is per mm: each child's holds its 4 MiB, the parent's
	# does not (with a shared mm all four would show the same figure).
	parent=$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$pid/status")
	for k in "${kids[@]}"; do
		own=$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$k/status")
		echo "parent $parent KiB, child $k $own KiB"
		[ "$own" -ge 4096 ]
		[ "$own" -ge $((parent + 4096)) ]
	done
	kill "${kids[@]}" "$pid"
	SPID=
}

@test "sleepers --fork --into: a cgroup that is not there fails the start, no ready file" {
	build_sleepers
	local ready=$BATS_TEST_TMPDIR/ready
	run "$SLEEPERS" --fork --into "$BATS_TEST_TMPDIR/none" --groups 2 --ready "$ready" 2
	[ "$status" -eq 1 ]
	[ "$output" = "sleepers: process 1: $BATS_TEST_TMPDIR/none/g0: No such file or directory" ]
	[ ! -e "$ready" ]
}

@test "bench-peers: a bad count, scenario or configuration is refused, exit 2, nothing run" {
	run env PEERS_RUNS=0 "$TOP/tests/bench/peers"
	[ "$status" -eq 2 ]
	[ "$output" = "bench-peers: PEERS_RUNS must be a positive number, not '0'" ]
	run env PEERS_SCENARIOS="leak flood" "$TOP/tests/bench/peers"
	[ "$status" -eq 2 ]
	[ "$output" = "bench-peers: PEERS_SCENARIOS takes priorities, protected, forkbomb and leak, not 'flood'" ]
	run env PEERS_CONFIGS="kernel oomd2" "$TOP/tests/bench/peers"
	[ "$status" -eq 2 ]
	[ "$output" = "bench-peers: PEERS_CONFIGS takes kernel, cgprio, protect, oomd and earlyoom, not 'oomd2'" ]
	run env PEERS_OOMD_LIMIT=100% "$TOP/tests/bench/peers"
	[ "$status" -eq 2 ]
	[ "$output" = "bench-peers: PEERS_OOMD_LIMIT must be a percentage, 1% to 99%, not '100%'" ]
	run env PEERS_OOMD_DURATION=500ms "$TOP/tests/bench/peers"
	[ "$status" -eq 2 ]
	[ "$output" = "bench-peers: PEERS_OOMD_DURATION must be whole seconds, as 5s, not '500ms'" ]
	# Every figure is a ratio to the kernel alone.
	run env PEERS_CONFIGS="cgprio earlyoom" "$TOP/tests/bench/peers"
	[ "$status" -eq 2 ]
	[ "$output" = "bench-peers: PEERS_CONFIGS must include kernel (the baseline), not only 'cgprio earlyoom'" ]
}

@test "peers-report: right victims, time to relief from the first stall, ratios to the kernel alone" {
	# Two runs a configuration. The kernel: 1000 and 3000 ms from the first
	# stall (median 2000); earlyoom acted once before any stall (stall -1)
	# and once with its stall after the kill: 0 both times. cgprio: 500 and
	# 1500 (median 1000, ratio 0.50), one run killing web as well.
	cat >"$BATS_TEST_TMPDIR/raw" <<-'EOF'
		@info runs 2
		@idle kernel - 0 30
		@idle earlyoom earlyoom.service 150 30
		@run 1 leak kernel 1 4000 5000 900000 800000 1 0 0 leak
		@run 1 leak cgprio 0 4000 4500 400000 300000 1 1 0 leak,web
		@run 1 leak earlyoom 1 -1 800 0 0 0 0 0 leak
		@run 2 leak kernel 1 2000 5000 1100000 900000 1 0 0 leak
		@run 2 leak cgprio 1 2000 3500 600000 500000 1 0 0 leak
		@run 2 leak earlyoom 1 900 700 0 0 0 0 0 leak
	EOF
	run "$TOP/tests/bench/peers-report" "$BATS_TEST_TMPDIR/raw"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ $output == *'| kernel | 2/2 | 2000 ms, 3000 ms (1.00) | 0 | 5000 ms (1.00) | 1000 ms / 850 ms (1.00) | 0 | 1 | leak 2 |'* ]]
	[[ $output == *'| cgprio | 1/2 | 1000 ms, 1500 ms (0.50) | 0 | 4000 ms (0.80) | 500 ms / 400 ms (0.50) | 1 | 1 | '* ]]
	[[ $output == *'| earlyoom | 2/2 | 0 ms, 0 ms (0.00) | 2 | 750 ms (0.15) | 0 ms / 0 ms (0.00) | 0 | 0 | leak 2 |'* ]]
	[[ $output == *'| earlyoom | earlyoom.service | 150 ms | 30 s | 0.50% |'* ]]
	run "$TOP/tests/bench/peers-report" "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 1 ]
	[ "$output" = "peers-report: cannot read '$BATS_TEST_TMPDIR/none'" ]
}

# bench-peers' workload and stopwatch, built here as sleepers is.
build_tool() { cc -O2 -Wall -Werror -o "$BATS_TEST_TMPDIR/$1" "$TOP/tests/tools/$1.c"; }

@test "grower: holds after --fast, waits for --go, forks ready files of their own; bad sizes refused" {
	build_tool grower
	G=$BATS_TEST_TMPDIR/grower R=$BATS_TEST_TMPDIR/ready
	run "$G" --fast 5 3
	[ "$status" -eq 2 ]
	[[ $output == "usage: grower "* ]]
	run "$G" --rate -1
	[ "$status" -eq 2 ]
	"$G" --forks 3 --fast 2 --ready "$R" --go "$BATS_TEST_TMPDIR/go" 6 &
	SPID=$!
	wait_file() { local i; for ((i = 0; i < 100; i++)); do [[ -e $1 ]] && return; sleep 0.1; done; return 1; }
	wait_file "$R" && wait_file "$R.1" && wait_file "$R.2"
	rss() { awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$SPID/status"; }
	# Before go: the fast part only (2 MiB, and the program itself), also
	# 0.3 s on, in which it would have taken the other 4 MiB many times over.
	sleep 0.3
	(($(rss) < 6))
	touch "$BATS_TEST_TMPDIR/go"
	for ((i = 0; i < 100; i++)); do (($(rss) >= 6)) && break; sleep 0.1; done
	(($(rss) >= 6))
}

@test "episode: a victim's cgroup emptying ends it, a kept one emptying too; a missing cgroup is gone at once" {
	build_tool episode
	# Not allowed to lower its oom_score_adj here (a container).
	E() { "$BATS_TEST_TMPDIR/episode" --unprotected "$@"; }
	# Stand-ins for cgroups: only their cgroup.events file is read.
	for c in v k; do mkdir "$BATS_TEST_TMPDIR/$c" && echo "populated 1" >"$BATS_TEST_TMPDIR/$c/cgroup.events"; done
	run E --settle 0 --victim "v=$BATS_TEST_TMPDIR/v" --keep "k=$BATS_TEST_TMPDIR/k" \
		-- sh -c "echo 'populated 0' >$BATS_TEST_TMPDIR/v/cgroup.events"
	[ "$status" -eq 0 ]
	[[ $output == *$'\ngone v '[0-9]*$'\nalive k\n'* ]]
	[[ $output == *$'\ntimeout 0' ]]
	echo "populated 1" >"$BATS_TEST_TMPDIR/v/cgroup.events"
	run E --settle 0 --victim "v=$BATS_TEST_TMPDIR/v" --keep "k=$BATS_TEST_TMPDIR/k" \
		-- sh -c "echo 'populated 0' >$BATS_TEST_TMPDIR/k/cgroup.events"
	[ "$status" -eq 0 ]
	[[ $output == *$'\nalive v\ngone k '* ]]
	[[ $output == *$'\ntimeout 0' ]]
	run E --settle 0 --victim "v=$BATS_TEST_TMPDIR/nothere" -- true
	[[ $output == *$'\ngone v '* ]]
	run E --timeout 1 --victim "v=$BATS_TEST_TMPDIR/k" -- false
	[ "$status" -eq 1 ]
	[ "$output" = "episode: false failed" ]
	run E --keep "k=$BATS_TEST_TMPDIR/k" -- true
	[ "$status" -eq 2 ]
	[[ $output == "usage: episode "* ]]
}
