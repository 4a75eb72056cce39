# oomctl — choose who dies when Linux runs out of memory, with BPF.
# See README.md. The two commands: `make demo` and `make check`.

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:

OOMCTL_CACHE ?= $(HOME)/.cache/oomctl
export OOMCTL_CACHE

B        := build
CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
LLVM_STRIP ?= llvm-strip
CFLAGS   ?= -O2 -g -Wall -Wextra
LIBBPF_CFLAGS = $(shell pkg-config --cflags libbpf 2>/dev/null)
LIBBPF_LIBS   = $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf) -lelf -lz
BPF_CFLAGS := -target bpf -g -O2 -Wall -D__TARGET_ARCH_x86 -I$(B) -Itests/bpf

# The kernel directory in the cache (cheap: only hashes the inputs).
KDIR = $(shell scripts/build-kernel.sh --print-dir)

# oomctl itself (src/, bpf-policies/) adds its targets and VM tests here.
OOMCTL_TARGETS :=
# What a VM run needs besides `all`: the kernel (built from the series and
# cached) and what is built from its sources. Never in `all`: make, make
# install and make deb build no kernel and run no apt.
VM_TARGETS := kernel
OOMCTL_VM_TESTS :=
OOMCTL_VM_GLOBAL_TESTS :=
-include src/oomctl.mk
# The series' BPF selftest (make selftest), built and run in the VM.
-include kernel/selftest.mk
# The kernel's own cgroup selftests, built from the tarball, run in the VM.
-include kernel/cgroup-selftests.mk
# make install / make uninstall (PREFIX, DESTDIR).
-include install.mk
# make bench: what a policy costs the OOM path and oomctl costs a script.
-include tests/bench/bench.mk

# Every tests/tools/*.c is a test tool; oomtest-load has its own rule.
TEST_TOOLS := $(patsubst tests/tools/%.c,$(B)/tests/%,$(wildcard tests/tools/*.c))
TEST_BPF   := $(B)/bpf/oom_test.bpf.o $(B)/bpf/oom_bad_kfunc.bpf.o

.PHONY: all deps kernel kernel-debug kernel-deb image vm-9p check-system vmlinux-h deb check check-lane-1 check-lane-2 check-host check-vm check-vm-memcg check-vm-oomctl check-vm-reliability check-vm-global check-vm-cgroup check-stress check-stress-memcg check-stress-global check-debug check-debug-memcg check-debug-global demo vm series-check clean FORCE

all: $(OOMCTL_TARGETS) $(TEST_TOOLS) $(TEST_BPF)

deps:
	@scripts/deps.sh

kernel: deps
	@scripts/build-kernel.sh >/dev/null

# The same series with kernel/debug.config on top: lockdep, KASAN, UBSAN...
kernel-debug: deps
	@scripts/build-kernel.sh --debug >/dev/null

# Debian packages of the patched kernel (scripts/kernel-deb.sh), in
# $(B)/kernel-deb: linux-image-6.12.118-oomctl for the config the tests boot
# (KERNEL_CONFIG=tested), or for Debian's own amd64 config with
# kernel/production.config merged in (KERNEL_CONFIG=debian: hours on 2
# cores). To install on a machine, not on the one that builds the tests.
KERNEL_CONFIG ?= tested
kernel-deb: deps
	@rm -rf $(B)/kernel-deb
	@scripts/kernel-deb.sh --config $(KERNEL_CONFIG) $(B)/kernel-deb

# The kernel's types for the BPF programs. As in bpftool's Makefile,
# VMLINUX_H=FILE takes them from FILE; by default from kernel/vmlinux.h, the
# committed dump of the series' kernel BTF, so that building oomctl (make,
# make install, make deb) builds no kernel; tests/host/vmlinux-h.bats holds
# that file to the kernel the series builds. Copied only when it changed,
# so a no-op build stays one.
VMLINUX_H ?= kernel/vmlinux.h
$(B)/vmlinux.h: FORCE
	@mkdir -p $(@D)
	@cmp -s $(VMLINUX_H) $@ || cp $(VMLINUX_H) $@

# After a patch changes a type the BPF code sees: kernel/vmlinux.h again
# from the kernel the series builds (tests/host/vmlinux-h.bats, in make
# check, fails until then). Review the diff before committing it.
vmlinux-h: kernel
	cp $(KDIR)/vmlinux.h kernel/vmlinux.h

$(B)/bpf/%.bpf.o: tests/bpf/%.bpf.c tests/bpf/*.h $(B)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/bpf/%.skel.h: $(B)/bpf/%.bpf.o
	$(LLVM_STRIP) -g $< -o $(B)/bpf/$*.stripped.o
	$(BPFTOOL) gen skeleton $(B)/bpf/$*.stripped.o name $(subst -,_,$*)_bpf > $@

$(B)/tests/%: tests/tools/%.c tests/tools/tool.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(B)/tests/oomtest-load: tests/tools/oomtest-load.c tests/bpf/oom_test.h $(B)/bpf/oom_test.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(B)/bpf -Itests/bpf $(LIBBPF_CFLAGS) -o $@ $< $(LIBBPF_LIBS)

# Every test: the host-only ones, the VM suites (a real patched kernel in
# QEMU) and the system tests in the Debian guest, after make deps and the
# build of oomctl and the kernel. Each suite runs even when
# another failed (-k); TAP results in $(B)/test-results, one summary line
# at the end.
#
# The suites run in two lanes side by side. A TCG guest keeps about one of
# the two cores busy (its tests wait on conditions, timers and each other as
# much as they compute), so a second guest uses the other. Lane 1 holds the
# suites whose tests bound a time (the memcg pause, hostile policies, one
# OOM one kill, global OOMs), then the reliability suite and the Debian
# guest, and runs at normal priority; lane 2 (the host tests, oomctl's
# suites, the cgroup selftests) runs niced, so that when both want both
# cores lane 1 gets them. The split evens the lanes out (tests/README.md
# has each suite's time). Each terminal line starts with its suite's name
# (tests/run-bats).
check: deps
	@rm -rf $(B)/test-results
	@$(MAKE) --no-print-directory all $(VM_TARGETS)
	@OOMCTL_LANES=1 $(MAKE) --no-print-directory -k -j2 check-lane-1 check-lane-2; rc=$$?; \
		tests/summary $(B)/test-results; exit $$rc

# One lane: its suites one after the other (-j1), each run even when an
# earlier one failed (-k).
check-lane-1:
	@$(MAKE) --no-print-directory -k -j1 check-vm-memcg check-vm-global check-vm-reliability check-system
check-lane-2:
	@nice -n 10 $(MAKE) --no-print-directory -k -j1 check-host check-vm-oomctl check-vm-cgroup

check-host: $(OOMCTL_TARGETS) $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	tests/run-bats host $(B)/test-results/host.tap tests/host

check-vm: check-vm-memcg check-vm-oomctl check-vm-reliability check-vm-global check-vm-cgroup

# The reliability suite (tests/vm/reliability-*.bats) runs with the rest;
# its long tail only in `make check-stress`: tests/vm/stress-*.bats, and the
# reliability files that scale up with OOMCTL_STRESS=1 (a kill at every
# step of attach, replace and detach, not only at each step's first and last
# time; 500 commands a shell). Every VM run ends with tests/vm/suite-end.bats.
RELIABILITY_TESTS := $(sort $(wildcard tests/vm/reliability-*.bats))
STRESS_GLOBAL_TESTS := $(sort $(wildcard tests/vm/stress-global*.bats))
STRESS_TESTS := $(filter-out $(STRESS_GLOBAL_TESTS),$(sort $(wildcard tests/vm/stress-*.bats)))
SCALED_TESTS := tests/vm/reliability-kill.bats tests/vm/reliability-state.bats
SUITE_END := tests/vm/suite-end.bats
# The safety promise: issue 16's scenarios and hostile policies.
SAFETY_TESTS := tests/vm/safety.bats tests/vm/hostile.bats tests/vm/one-kill.bats
SAFETY_GLOBAL_TESTS := tests/vm/hostile-global.bats tests/vm/one-kill-global.bats
# The long tail takes about 45 min in one VM under TCG: the harness's 15 min
# limit for a hung guest is too short for it.
STRESS_TIMEOUT := 5400

# The kernel-facing memcg suites, whose tests bound times: lane 1 of make
# check. oomctl-abort-all.bats, too: a paused task's CPU share.
TIMED_OOMCTL_TESTS := tests/vm/oomctl-abort-all.bats
check-vm-memcg: all $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	tests/run-bats vm:1G:3600 $(B)/test-results/vm-memcg.tap tests/vm/memcg.bats $(SAFETY_TESTS) \
		$(TIMED_OOMCTL_TESTS) $(SUITE_END)

# oomctl's own suites, in a 1G guest of their own: lane 2 of make check.
check-vm-oomctl: all $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	tests/run-bats vm:1G:3600 $(B)/test-results/vm-oomctl.tap \
		$(filter-out $(TIMED_OOMCTL_TESTS),$(OOMCTL_VM_TESTS)) $(SUITE_END)

# The reliability suite, in a 1G guest of its own: lane 1 of make check,
# after the timed suites.
check-vm-reliability: all $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	tests/run-bats vm:1G:3600 $(B)/test-results/vm-reliability.tap $(RELIABILITY_TESTS) $(SUITE_END)

check-vm-global: all $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	tests/run-bats vm:256M $(B)/test-results/vm-global.tap tests/vm/global.bats $(SAFETY_GLOBAL_TESTS) \
		$(OOMCTL_VM_GLOBAL_TESTS) $(SUITE_END)

# The kernel's cgroup selftests (kernel/cgroup-selftests.mk) in a VM of
# their own: they make cgroups at the root, a RAM disk filesystem and 1,000
# cgroups at a time. First with no policy, the baseline; then under each
# bundled policy and abort-all, each held to that baseline.
CGROUP_TESTS := tests/vm/cgroup-selftests.bats tests/vm/cgroup-selftests-policies.bats
check-vm-cgroup: all $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	tests/run-bats vm:1G:3600 $(B)/test-results/vm-cgroup.tap $(CGROUP_TESTS) $(SUITE_END)

check-stress: deps
	@rm -rf $(B)/test-results
	@$(MAKE) --no-print-directory -k check-stress-memcg check-stress-global; rc=$$?; \
		tests/summary $(B)/test-results; exit $$rc

check-stress-memcg: all $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	OOMCTL_STRESS=1 tests/run-bats vm:1G:$(STRESS_TIMEOUT) $(B)/test-results/vm-stress.tap $(STRESS_TESTS) \
		$(SCALED_TESTS) $(SUITE_END)

check-stress-global: all $(VM_TARGETS)
	@mkdir -p $(B)/test-results
	$(if $(STRESS_GLOBAL_TESTS),OOMCTL_STRESS=1 tests/run-bats vm:256M:$(STRESS_TIMEOUT) $(B)/test-results/vm-stress-global.tap \
		$(STRESS_GLOBAL_TESTS) $(SUITE_END))

# The kernel-facing suites (the series' hooks, the memcg pause, hostile
# policies; memcg and global OOMs) on the debug kernel, booted with
# OOMCTL_KERNEL=debug: any lockdep, KASAN, UBSAN, hung-task or
# sleep-in-atomic report fails the run (tests/vm/run). Not in `make check`:
# see tests/README.md for its time. The two guests run side by side, as in
# make check.
DEBUG_TESTS := tests/vm/debug-kernel.bats tests/vm/memcg.bats tests/vm/safety.bats tests/vm/hostile.bats \
	tests/vm/one-kill.bats
DEBUG_GLOBAL_TESTS := tests/vm/debug-kernel.bats tests/vm/global.bats tests/vm/hostile-global.bats \
	tests/vm/one-kill-global.bats
DEBUG_TIMEOUT := 3600

check-debug: deps
	@rm -rf $(B)/test-results
	@$(MAKE) --no-print-directory all kernel-debug
	@OOMCTL_LANES=1 $(MAKE) --no-print-directory -k -j2 check-debug-memcg check-debug-global; rc=$$?; \
		tests/summary $(B)/test-results; exit $$rc

check-debug-memcg: all kernel-debug
	@mkdir -p $(B)/test-results
	OOMCTL_KERNEL=debug tests/run-bats vm:1G:$(DEBUG_TIMEOUT) $(B)/test-results/vm-debug-memcg.tap \
		$(DEBUG_TESTS) $(SUITE_END)

# 512M, not global.bats' 256M: under KASAN a 256M guest manages 142M, and
# hostile-global's crowd of 2,000 tasks (oom_score_adj -1000, 32K stacks)
# filled it before the hog started: "no killable processes", a panic.
check-debug-global: all kernel-debug
	@mkdir -p $(B)/test-results
	OOMCTL_KERNEL=debug tests/run-bats vm:512M:$(DEBUG_TIMEOUT) $(B)/test-results/vm-debug-global.tap \
		$(DEBUG_GLOBAL_TESTS) $(SUITE_END)

# Like check: the packages first (make builds a goal's prerequisites in
# order, and `all` needs libbpf's headers before `kernel` would install
# them), then the build in a sub-make.
demo: deps
	@$(MAKE) --no-print-directory all $(VM_TARGETS)
	@tests/vm/run -- tests/vm/demo $$([ -t 1 ] && echo --color)

# The Debian 12 guest (scripts/build-image.sh): mmdebstrap's bookworm with
# systemd, the kernel's linux-image .deb (make kernel-deb, the tested
# config) and oomctl's (make deb) installed by apt; cached, and linked at
# $(B)/image for tests/vm/run --system.
image: deps
	@$(MAKE) --no-print-directory kernel-deb deb
	@dir=$$(scripts/build-image.sh $(B)/kernel-deb/linux-image-[0-9]*-oomctl_*.deb $(DEB_DIR)/oomctl_*.deb) && \
		ln -sfn "$$dir" $(B)/image

# A shell in the Debian guest: root logs in on this terminal; poweroff ends
# it. The disk is a snapshot of the image: nothing is kept.
vm: deps
	@$(MAKE) --no-print-directory image
	@tests/vm/run --system --interactive

# The fast 9p guest of the VM suites (the host's root read-only, build/ first
# on PATH): a shell in it.
vm-9p: deps
	@$(MAKE) --no-print-directory all $(VM_TARGETS)
	@tests/vm/run --interactive

# The system tests (tests/system/*.bats) in the Debian guest: oomctl as a
# package and a service, systemd's slices and scopes, systemd-oomd beside;
# then, from the host, two boots of one disk (tests/system/host). Part of
# make check: about 3 min with the kernel built (the image ~1 min, the
# guest's suite under 1, the power cycle under 1).
SYSTEM_TIMEOUT := 1800
check-system: deps
	@$(MAKE) --no-print-directory all image
	@mkdir -p $(B)/test-results
	tests/run-bats system:1G:$(SYSTEM_TIMEOUT) $(B)/test-results/system.tap tests/system/*.bats
	tests/run-bats host $(B)/test-results/system-host.tap tests/system/host

# The Debian package of oomctl (debian/), built in a copy of the tree:
# $(DEB_DIR)/oomctl_VERSION_amd64.deb. No kernel, no apt (scripts/deb.sh).
# DEB_DIR=DIR builds it elsewhere: tests/host/deb.bats does, so that it
# never rewrites the .deb an image build in the other lane of make check
# is reading.
DEB_DIR ?= $(B)/deb
deb:
	@scripts/deb.sh $(DEB_DIR)

# Apply the series patch by patch onto a fresh tree, build each step and run
# checkpatch on it (slow: one full build plus one incremental per patch).
series-check: deps
	scripts/check-series.sh

clean:
	rm -rf $(B)

FORCE:
