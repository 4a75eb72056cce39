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

/* The entry of @kn's cgroup or of its nearest ancestor with one. */
static __always_inline __u32 effective_prio(struct kernfs_node *kn,
					    __u32 fallback)
{
	for (int i = 0; i < OOMCTL_MAX_DEPTH && kn; i++) {
		__u64 id = BPF_CORE_READ(kn, id);
		__u32 *prio = bpf_map_lookup_elem(&cgprio_prios, &id);

		if (prio)
			return *prio;
		/* A cgroup's directory's parent is its parent cgroup's. */
		kn = BPF_CORE_READ(kn, parent);
	}
	return fallback;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(cgprio_eval, struct task_struct *task, struct oom_control *oc)
{
	struct oomctl_config *cfg = config();
	__u32 prio;
	long points;

	if (!oomctl_eligible(task))
		return BPF_EVAL_NEXT;
	prio = effective_prio(BPF_CORE_READ(task, cgroups, dfl_cgrp, kn),
			      cfg ? cfg->default_prio : 0);
	points = oomctl_badness(task, oc);
	if (have_best && (prio > best_prio ||
			  (prio == best_prio && points <= best_points)))
		return BPF_EVAL_NEXT;
	have_best = true;
	best_prio = prio;
	best_points = points;
	return oomctl_select();
}

/*
 * Entries die with their cgroup, so that the map holds live cgroups only.
 * Ids are never reused, so a late delete cannot hit a newer cgroup; oomctl
 * set-prio re-checks that the cgroup still exists after its update, which
 * covers an rmdir racing with it.
 */
SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(cgprio_rmdir, struct cgroup *cgrp, const char *path)
{
	__u64 id = BPF_CORE_READ(cgrp, kn, id);

	bpf_map_delete_elem(&cgprio_prios, &id);
	return 0;
}
