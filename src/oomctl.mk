# oomctl: the BPF policies (bpf-policies/) and the tool (src/), included by
# the top-level Makefile, which provides B, CC, CLANG, BPFTOOL, LLVM_STRIP,
# CFLAGS and the LIBBPF_* flags.

OOMCTL_POLICIES := cgprio pid rss-slice abort-all protect
OOMCTL_SRCS     := $(wildcard src/*.c)
OOMCTL_HDRS     := $(wildcard src/*.h) bpf-policies/oomctl.h
OOMCTL_SKELS    := $(OOMCTL_POLICIES:%=$(B)/policies/%.skel.h)
OOMCTL_BPF_CFLAGS := -target bpf -g -O2 -Wall -D__TARGET_ARCH_x86 -I$(B) -Ibpf-policies
JSONC_CFLAGS = $(shell pkg-config --cflags json-c 2>/dev/null)

OOMCTL_TARGETS += $(B)/oomctl
OOMCTL_VM_TESTS += $(sort $(wildcard tests/vm/oomctl-*.bats))
OOMCTL_VM_GLOBAL_TESTS += tests/vm/global-oomctl.bats

# The bundled policies, and test-only ones (tests/policies/) built alike.
vpath %.bpf.c bpf-policies tests/policies
$(B)/policies/%.bpf.o: %.bpf.c bpf-policies/policy.bpf.h bpf-policies/oomctl.h $(B)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(OOMCTL_BPF_CFLAGS) -c $< -o $@

# Skeletons embed the object, so oomctl has no file to find at run time.
# (libbpf, inside bpftool, says it skips the policy's description section:
# that section is for oomctl, read by src/policy.c.)
$(B)/policies/%.skel.h: $(B)/policies/%.bpf.o
	$(LLVM_STRIP) -g $< -o $(B)/policies/$*.stripped.o
	$(BPFTOOL) gen skeleton $(B)/policies/$*.stripped.o name $(subst -,_,$*)_bpf \
		> $@ 2> $@.log || { cat $@.log >&2; rm -f $@; exit 1; }

# The bundled policies for src/policy.c: a policy is its .bpf.c and its
# word in OOMCTL_POLICIES; everything else oomctl reads from the object.
$(B)/policies/bundled.h: src/oomctl.mk $(OOMCTL_SKELS)
	@mkdir -p $(@D)
	{ echo '/* Generated from OOMCTL_POLICIES (src/oomctl.mk). */'; \
	  $(foreach p,$(OOMCTL_POLICIES),echo '#include "$(p).skel.h"';) \
	  printf '#define OOMCTL_BUNDLED(X)'; \
	  $(foreach p,$(OOMCTL_POLICIES),printf ' X($(subst -,_,$(p))_bpf)';) \
	  echo; } > $@

# libbpf, libelf, zlib and json-c are linked in (their Debian -dev packages
# ship the archives), like bpftool's libbpf: oomctl then needs only libc,
# copies to a host without those libraries, and a script's every call skips
# loading and binding four shared objects (make bench: about 10 ms a call
# under TCG, the difference between slower and faster than bpftool).
OOMCTL_STATIC_LIBS = -Wl,-Bstatic -lbpf -lelf -lz -ljson-c -Wl,-Bdynamic
# CPPFLAGS and LDFLAGS too: a package build passes its hardening flags there.
OOMCTL_CC = $(CC) $(CFLAGS) $(CPPFLAGS) -Isrc -Ibpf-policies -I$(B)/policies $(LIBBPF_CFLAGS) \
	$(JSONC_CFLAGS) $(LDFLAGS) -o $@ $(OOMCTL_SRCS) $(OOMCTL_STATIC_LIBS)

$(B)/oomctl: $(OOMCTL_SRCS) $(OOMCTL_HDRS) $(OOMCTL_SKELS) $(B)/policies/bundled.h
	@mkdir -p $(@D)
	$(OOMCTL_CC)

# oomctl plus the policy 'refused', which the verifier must refuse: for the
# tests of what attach says then. Never installed.
OOMCTL_TARGETS += $(B)/tests/oomctl-refused
$(B)/tests/oomctl-refused: $(OOMCTL_SRCS) $(OOMCTL_HDRS) $(OOMCTL_SKELS) $(B)/policies/bundled.h \
			   $(B)/policies/refused.skel.h
	@mkdir -p $(@D)
	$(OOMCTL_CC) -DOOMCTL_TEST_POLICY

.PHONY: oomctl
oomctl: $(B)/oomctl

# Policy objects that attach FILE must refuse (tests/vm/oomctl-file.bats):
# one with a program outside the OOM hooks, one without the contract's
# programs. Never installed.
OOMCTL_TARGETS += $(B)/policies/stray-hook.bpf.o $(B)/policies/bare.bpf.o

# Keep the objects: `bpftool prog load` on them is handy when debugging.
.SECONDARY: $(OOMCTL_POLICIES:%=$(B)/policies/%.bpf.o) $(B)/policies/refused.bpf.o
