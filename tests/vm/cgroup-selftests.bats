#!/usr/bin/env bats
# The kernel's own cgroup selftests (tools/testing/selftests/cgroup from the
# linux-source-6.12 tarball, built by `make`) with no policy attached: the
# kernel series must leave memory cgroups as upstream tests them. Every test
# passes, or is a skip or failure that tests/vm/cgroup-selftests.bash lists
# with its reason (tests/README.md too). The same programs under each
# bundled policy: cgroup-selftests-policies.bats (also in make check).

load helpers
load oomctl-helpers
load cgroup-selftests

setup_file() { cgst_setup_file; }

@test "cgroup selftests, no policy: test_memcontrol" { cgst_check none test_memcontrol; }
@test "cgroup selftests, no policy: test_kmem" { cgst_check none test_kmem; }
@test "cgroup selftests, no policy: test_core" { cgst_check none test_core; }
@test "cgroup selftests, no policy: test_kill" { cgst_check none test_kill; }
