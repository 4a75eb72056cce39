// SPDX-License-Identifier: GPL-2.0
/*
 * cgprio - a priority per cgroup v2; the task of the lowest priority dies.
 *
 * A cgroup without an entry takes the priority of its nearest ancestor that
 * has one, else oomctl_config.default_prio. Among equal priorities the
 * kernel's badness decides, computed here: a task the kernel scores itself
 * (NO_BPF_POLICY) could never replace our SELECT, so we must rank every
 * task ourselves and SELECT each one that beats the best so far.
 */
#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id (kernfs node id) */
	__type(value, __u32);	/* OOMCTL_PRIO_MIN..OOMCTL_PRIO_MAX */
} cgprio_prios SEC(".maps");

/* Best candidate of the current scan. */
static bool have_best;
static __u32 best_prio;
static long best_points;

static void policy_scan_start(void)
{
	have_best = false;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(cgprio_eval, struct task_struct *task, struct oom_control *oc)
{
	struct oomctl_config *cfg = config();
	__u32 *entry, prio;
	long points;

	if (!oomctl_eligible(task))
		return BPF_EVAL_NEXT;
	entry = lookup_cgroup_up(&cgprio_prios, task_cgroup_kn(task));
	prio = entry ? *entry : cfg ? cfg->default_prio : 0;
	points = oomctl_badness(task, oc);
	if (have_best && (prio > best_prio ||
			  (prio == best_prio && points <= best_points)))
		return BPF_EVAL_NEXT;
	have_best = true;
	best_prio = prio;
	best_points = points;
	return oomctl_select();
}

OOMCTL_FORGET_REMOVED_CGROUPS(cgprio_rmdir, cgprio_prios);
