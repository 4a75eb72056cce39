# The series' BPF selftest (tools/testing/selftests/bpf, patch 0010):
# `make selftest` builds test_progs with the OOM policy test only
# (scripts/build-selftest.sh, cached in $(OOMCTL_CACHE) like the kernel) and
# runs `test_progs -t oom_policy` in the VM. It is not part of `make check`.
#
# The guest mounts a tmpfs on /root, which hides the default cache
# (~/.cache/oomctl), so test_progs is copied to $(B)/selftest, which the
# guest sees at the same path.
#
# The guest's init runs at oom_score_adj -1000 so that the test harness
# survives global OOMs, and forked processes inherit it: the test's hogs
# (children of test_progs) would be unkillable and no OOM could pick them.
# test_progs runs at 0, as it does from a shell on a normal system.

SELFTEST_VM_OPTS ?= --mem 1G --timeout 900

.PHONY: selftest

selftest: kernel
	@d=$$(scripts/build-selftest.sh) && mkdir -p $(B)/selftest && \
		{ cmp -s "$$d/test_progs" $(B)/selftest/test_progs || \
		  cp "$$d/test_progs" $(B)/selftest/test_progs; }
	tests/vm/run $(SELFTEST_VM_OPTS) -- sh -c \
		'echo 0 >/proc/self/oom_score_adj && exec $(B)/selftest/test_progs -t oom_policy -v'
