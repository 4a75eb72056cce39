# The kernel's own cgroup selftests (tools/testing/selftests/cgroup in the
# linux-source-6.12 tarball): test_memcontrol, test_kmem, test_core and
# test_kill, built with plain gcc by scripts/build-cgroup-selftests.sh
# (cached in $(OOMCTL_CACHE) like the kernel; no kernel tree needed) and run
# in the VM by tests/vm/cgroup-selftests.bats, which says what each result
# means. Included by the top-level Makefile, which provides B, deps and
# VM_TARGETS (not `all`: the tarball is a kernel's, and make builds none).
#
# The guest mounts a tmpfs on /root, which hides the default cache, so the
# programs are copied to $(B)/cgroup-selftests, which the guest sees.

CGROUP_SELFTESTS := test_memcontrol test_kmem test_core test_kill
CGROUP_SELFTESTS_DIR := $(B)/cgroup-selftests

VM_TARGETS += $(CGROUP_SELFTESTS_DIR)/stamp

# Rebuilt (from the cache when it has them) when the recipe or the series
# changes: the script applies the series when a patch touches these files.
$(CGROUP_SELFTESTS_DIR)/stamp: scripts/build-cgroup-selftests.sh scripts/series.bash \
		kernel/patches/series $(wildcard kernel/patches/*.patch) | deps
	@d=$$(scripts/build-cgroup-selftests.sh) && mkdir -p $(@D) && \
		for f in $(CGROUP_SELFTESTS) $(CGROUP_SELFTESTS:%=%.tests); do \
			cmp -s "$$d/$$f" $(@D)/$$f || cp "$$d/$$f" $(@D)/$$f || exit 1; \
		done
	@touch $@
