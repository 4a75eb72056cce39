// SPDX-License-Identifier: GPL-2.0
/*
 * refused - a policy the verifier must refuse, built into the test-only
 * oomctl-refused binary, so that the VM tests can check what attach says
 * when the kernel refuses a program: a map lookup used without its NULL
 * check.
 */
#include "policy.bpf.h"

OOMCTL_POLICY(
	.name = "refused",
	.summary = "test only: the verifier refuses it",
);

static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	r->class = OOMCTL_HEURISTIC;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(refused_eval, struct task_struct *task, struct oom_control *oc)
{
	struct oomctl_config *cfg = config();

	return cfg->flags ? BPF_EVAL_NEXT : NO_BPF_POLICY;
}
