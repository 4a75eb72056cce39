#!/usr/bin/env bats
# oomctl SIGKILLed at every step of attach, attach --replace and detach never
# leaves half a policy (tests/vm/run --mem 1G); see kill-rounds.bash. make
# check stops at the first and the last time each step is reached, make
# check-stress (OOMCTL_STRESS=1) at every one.

load helpers
load oomctl-helpers
load kill-rounds

setup_file() {
	export REFS=$BATS_FILE_TMPDIR/refs
	kill_refs
}

teardown_file() {
	oomctl_teardown
}

setup() {
	cg_setup
	kill_setup
}

teardown() {
	oomctl_teardown
}

@test "SIGKILL at every step of attach: no policy or the new one, whole" {
	kill_steps attach
}

@test "SIGKILL at every step of attach --replace: the old policy or the new one, whole" {
	kill_steps replace
}

@test "SIGKILL at every step of detach: the policy whole or none" {
	kill_steps detach
}

@test "every step OOMCTL_TEST_STOP_AT lists is reached by attach, attach --replace or detach" {
	all_steps_reached
}
