// SPDX-License-Identifier: GPL-2.0
/*
 * protect - cgroups whose processes are never chosen while any other
 * process can be: "never kill sshd, the monitoring agent, the container
 * runtime", as systemd's ManagedOOMPreference=avoid and earlyoom's --avoid
 * ask for. The processes outside them compete by the kernel's badness.
 *
 * Protection is by cgroup, not by process name: any process can rename
 * itself (prctl(PR_SET_NAME), or just exec a file named sshd), and would
 * then slip past a rule by name; which cgroup a process is in is decided by
 * root and by systemd. It covers the processes in a listed cgroup itself,
 * not those of its child cgroups unless they are listed too: under systemd
 * a daemon's sessions and workers it hands to other units (sshd's user
 * sessions are in user.slice) are not protected by protecting the daemon.
 *
 * A protected process is skipped (BPF_EVAL_NEXT). When every eligible
 * process is protected, the scan ends without a victim and the kernel
 * repeats it with its heuristic alone: a protected process dies only when
 * nothing else can.
 */
#include "policy.bpf.h"

OOMCTL_POLICY(
	.name = "protect",
	.summary = "processes of the listed cgroups die only when nothing else can",
	.entry_kind = OOMCTL_ENTRIES_CGROUP_SET,
	.flags = OOMCTL_DESC_EXACT,
	.entry_map = "protect_cgroups",
	.entry = "cgroup",
	.entries = "protected",
	.rule = "unprotected",
	.rule_text = "largest unprotected process",
);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id of a protected cgroup */
	__type(value, __u32);	/* 1 */
} protect_cgroups SEC(".maps");

static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	__u64 id = task_cgroup_kn(task)->id;

	if (bpf_map_lookup_elem(&protect_cgroups, &id)) {
		r->class = OOMCTL_SKIP;
		r->reason = OOMCTL_SKIP_RULE;
		return;
	}
	r->class = OOMCTL_CANDIDATE;
	r->key2 = t->badness;
}

OOMCTL_EVALUATE(protect_eval);

OOMCTL_FORGET_REMOVED_CGROUPS(protect_rmdir, protect_cgroups);
