#!/usr/bin/env bats
# The kernel's own cgroup selftests (see cgroup-selftests.bats) under each
# bundled policy attached at its defaults. cgprio (every cgroup at the
# default priority, ties by the kernel's badness), pid (nothing listed),
# rss-slice (no slices) and protect (no cgroup protected) leave every OOM
# to the kernel's choice: the results are those with no policy, test for
# test. abort-all kills nothing in a
# memcg OOM: exactly the tests that need the kernel to kill differ, as
# tests/vm/cgroup-selftests.bash lists them, and a paused test is relieved
# by killing its largest process, as a user-space OOM daemon would.

load helpers
load oomctl-helpers
load cgroup-selftests

setup_file() { cgst_setup_file; }

teardown() { oomctl_teardown; }

@test "cgroup selftests under cgprio: the results with no policy" { cgst_variant cgprio; }
@test "cgroup selftests under pid: the results with no policy" { cgst_variant pid; }
@test "cgroup selftests under rss-slice: the results with no policy" { cgst_variant rss-slice; }
@test "cgroup selftests under abort-all: only the OOM kills differ, nothing hangs" { cgst_variant abort-all; }
@test "cgroup selftests under protect: the results with no policy" { cgst_variant protect; }
