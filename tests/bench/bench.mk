# make bench: what a BPF policy costs the OOM path, and what oomctl costs a
# script (tests/bench/run-in-vm says how). Included by the top-level Makefile, which
# provides B, CLANG, BPFTOOL, LLVM_STRIP, CFLAGS, LIBBPF_*, OOMCTL_TARGETS,
# VM_TARGETS, `all` and $(B)/vmlinux.h.

BENCH_BPF_CFLAGS := -target bpf -g -O2 -Wall -D__TARGET_ARCH_x86 -I$(B) -Itests/bench

$(B)/bench/oom_timing.bpf.o: tests/bench/oom_timing.bpf.c tests/bench/oom_timing.h $(B)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BENCH_BPF_CFLAGS) -c $< -o $@

$(B)/bench/oom_timing.skel.h: $(B)/bench/oom_timing.bpf.o
	$(LLVM_STRIP) -g $< -o $(B)/bench/oom_timing.stripped.o
	$(BPFTOOL) gen skeleton $(B)/bench/oom_timing.stripped.o name oom_timing_bpf > $@

$(B)/bench/oom-timing: tests/bench/oom-timing.c tests/bench/oom_timing.h $(B)/bench/oom_timing.skel.h
	$(CC) $(CFLAGS) -I$(B)/bench -Itests/bench $(LIBBPF_CFLAGS) -o $@ $< $(LIBBPF_LIBS)

# Runs the VM three times (10-20 min each under TCG, with the host's other
# load); the table goes to stdout and to tests/bench/results.md, the raw
# samples to $(B)/bench/raw.txt.
.PHONY: bench
bench: deps
	@$(MAKE) --no-print-directory all $(VM_TARGETS) $(B)/bench/oom-timing
	@tests/bench/bench

# make bench-peers: the same out-of-memory scenarios under the kernel alone,
# oomctl (cgprio, protect), systemd-oomd and earlyoom, in the Debian guest
# (make image); the report goes to tests/bench/peers.md and stdout, the raw
# lines to $(B)/bench/peers-raw.txt (tests/bench/peers says how).
.PHONY: bench-peers
bench-peers: deps
	@$(MAKE) --no-print-directory all image
	@tests/bench/peers
