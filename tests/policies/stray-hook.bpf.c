// SPDX-License-Identifier: GPL-2.0
/*
 * stray-hook - a policy on the contract, but with one more program that
 * attaches outside the OOM hooks (a read() tracer): oomctl attach FILE must
 * refuse it before the kernel sees it. For tests/vm/oomctl-file.bats.
 */
#include "policy.bpf.h"

OOMCTL_POLICY(
	.name = "stray-hook",
	.summary = "test only: one program outside the OOM hooks",
);

static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	r->class = OOMCTL_HEURISTIC;
}

OOMCTL_EVALUATE(stray_eval);

SEC("fentry/vfs_read")
int BPF_PROG(stray_read)
{
	return 0;
}
