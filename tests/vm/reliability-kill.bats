#!/usr/bin/env bats
# oomctl killed mid-operation never leaves half a policy (tests/vm/run
# --mem 1G). A few rounds each in make check, 50 in make check-stress
# (OOMCTL_STRESS=1).

load helpers
load oomctl-helpers
load kill-rounds

ROUNDS=$((${OOMCTL_STRESS:-0} ? 50 : 8))

setup() {
	cg_setup
}

teardown() {
	oomctl_teardown
}

@test "SIGKILL during attach: no policy or a whole one, never half" {
	kill_rounds attach "$ROUNDS"
}

@test "SIGKILL during attach --replace: the old policy or the new one, whole" {
	kill_rounds replace "$ROUNDS"
}

@test "SIGKILL during detach: the policy whole or gone" {
	kill_rounds detach "$ROUNDS"
}
