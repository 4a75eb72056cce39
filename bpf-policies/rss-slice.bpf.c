// SPDX-License-Identifier: GPL-2.0
/*
 * rss-slice - inside the listed slices (cgroup v2 subtrees), the task with
 * the largest RSS dies; tasks outside every slice are spared.
 *
 * RSS is what the process's mm maps in memory, as the kernel finds it
 * (bpf_oom_task_info(): any thread's mm): anon + file + shmem pages (no
 * swap, no page tables, no oom_score_adj: the rule is "biggest resident
 * process", not the kernel's badness). Tasks outside the slices are left to
 * the kernel heuristic (NO_BPF_POLICY); a SELECT of a slice task can never
 * be replaced by them, so as soon as the slices hold an eligible task one
 * of them dies, and when they hold none the kernel decides as if no policy
 * were attached. The policy never aborts.
 */
#include "policy.bpf.h"

OOMCTL_POLICY(
	.name = "rss-slice",
	.summary = "the largest RSS inside the slices dies; the rest are spared",
	.entry_kind = OOMCTL_ENTRIES_CGROUP_SET,
	.entry_map = "rss_slices",
	.entry = "slice",
	.entries = "slices",
	.rule = "slice",
	.rule_text = "largest RSS in slice",
	.ref_key = "slice",
);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id of a slice */
	__type(value, __u32);	/* 1 */
} rss_slices SEC(".maps");

/* Inside a slice (@ref), the RSS in pages; outside, the heuristic. */
static void policy_rank(struct task_struct *task, const struct oomctl_scope *sc,
			const struct bpf_oom_task_info *t, struct oomctl_rank *r)
{
	__u64 slice;
	__u32 one;

	if (!cgroup_entry(sc, &rss_slices, task_cgroup_kn(task), &slice, &one)) {
		r->class = OOMCTL_HEURISTIC;
		return;
	}
	r->class = OOMCTL_CANDIDATE;
	r->key2 = t->rss;
	r->ref = slice;
}

OOMCTL_EVALUATE(rss_slice_eval);

OOMCTL_FORGET_REMOVED_CGROUPS(rss_slice_rmdir, rss_slices);
