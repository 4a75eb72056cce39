// SPDX-License-Identifier: GPL-2.0
/*
 * cgprio - a priority per cgroup v2; the task of the lowest priority dies.
 *
 * A cgroup without an entry takes the priority of its nearest ancestor that
 * has one, else oomctl_config.default_prio. Among equal priorities the
 * kernel's badness decides (the kernel's own, from bpf_oom_task_info()): a
 * task the kernel scores itself (NO_BPF_POLICY) could never replace our
 * SELECT, so we must rank every task ourselves and SELECT each one that
 * beats the best so far.
 */
#include "policy.bpf.h"

OOMCTL_POLICY(
	.name = "cgprio",
	.summary = "a priority per cgroup v2; the lowest priority dies first",
	.entry_kind = OOMCTL_ENTRIES_CGROUP_VALUE,
	.value_min = OOMCTL_PRIO_MIN,
	.value_max = OOMCTL_PRIO_MAX,
	.flags = OOMCTL_DESC_DEFAULT | OOMCTL_DESC_RULE_VALUE | OOMCTL_DESC_REF_SET_ON,
	.entry_map = "cgprio_prios",
	.entry = "prio",
	.entries = "prios",
	.rule = "prio",
	.rule_text = "cgroup prio",
	.ref_key = "prio_from",
);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id (kernfs node id) */
	__type(value, __u32);	/* OOMCTL_PRIO_MIN..OOMCTL_PRIO_MAX */
} cgprio_prios SEC(".maps");

/*
 * A candidate: its cgroup's priority, own or inherited (@ref the cgroup the
 * entry belongs to, 0 for the default), then the kernel's badness.
 */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	struct oomctl_config *cfg;
	__u32 prio;
	__u64 from;

	if (!cgroup_entry(sc, &cgprio_prios, task_cgroup_kn(task), &from, &prio)) {
		cfg = config();
		prio = cfg ? cfg->default_prio : 0;
	}
	r->class = OOMCTL_CANDIDATE;
	r->key1 = prio;
	r->key2 = t->badness;
	r->ref = from;
}

OOMCTL_EVALUATE(cgprio_eval);

OOMCTL_FORGET_REMOVED_CGROUPS(cgprio_rmdir, cgprio_prios);
