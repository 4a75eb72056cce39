// SPDX-License-Identifier: GPL-2.0
/*
 * newest - an example oomctl policy, built outside oomctl's tree: the
 * process started last dies first ("last in, first out": a runaway that a
 * script just spawned goes before the services that were running for days).
 *
 * Built with the installed contract, a vmlinux.h of the running kernel and
 * clang (oomctl-policies(7), "Writing a policy"):
 *
 *   bpftool btf dump file /sys/kernel/btf/vmlinux format c > vmlinux.h
 *   clang -target bpf -g -O2 -D__TARGET_ARCH_x86 -I. -c newest.bpf.c -o newest.bpf.o
 *   oomctl attach ./newest.bpf.o
 */
#include <oomctl/policy.bpf.h>

/* What oomctl knows of this policy: it keeps no entries. */
OOMCTL_POLICY(
	.name = "newest",
	.summary = "the process started last dies first",
	.entry_kind = OOMCTL_ENTRIES_NONE,
	.rule = "newest",
	.rule_text = "started last",
);

/*
 * Every eligible process is a candidate (the kernel's own skips, init,
 * kernel threads, oom_score_adj -1000, come before this is called). The
 * smallest key1 dies first: the latest start time gives the smallest.
 * Equal start times fall to the larger badness (key2).
 */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	r->class = OOMCTL_CANDIDATE;
	r->key1 = ~0ULL - task->group_leader->start_boottime;
	r->key2 = t->badness;
}

OOMCTL_EVALUATE(newest_eval);
