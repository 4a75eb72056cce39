// SPDX-License-Identifier: GPL-2.0
/*
 * rss-slice - inside the listed slices (cgroup v2 subtrees), the task with
 * the largest RSS dies; tasks outside every slice are spared.
 *
 * RSS is what the task's mm maps in memory: anon + file + shmem pages (no
 * swap, no page tables, no oom_score_adj: the rule is "biggest resident
 * process", not the kernel's badness). Tasks outside the slices are left to
 * the kernel heuristic (NO_BPF_POLICY); a SELECT of a slice task can never
 * be replaced by them, so as soon as the slices hold an eligible task one
 * of them dies, and when they hold none the kernel decides as if no policy
 * were attached. The policy never aborts.
 */
#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id of a slice */
	__type(value, __u32);	/* 1 */
} rss_slices SEC(".maps");

static bool have_best;
static long best_rss;

static void policy_scan_start(void)
{
	have_best = false;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(rss_slice_eval, struct task_struct *task, struct oom_control *oc)
{
	struct mm_struct *mm;
	long rss;

	if (!lookup_cgroup_up(&rss_slices, task_cgroup_kn(task)))
		return NO_BPF_POLICY;
	if (!oomctl_eligible(task))
		return BPF_EVAL_NEXT;
	mm = BPF_CORE_READ(task, mm);
	rss = mm_counter(mm, MM_ANONPAGES) + mm_counter(mm, MM_FILEPAGES) +
	      mm_counter(mm, MM_SHMEMPAGES);
	if (have_best && rss <= best_rss)
		return BPF_EVAL_NEXT;
	have_best = true;
	best_rss = rss;
	return oomctl_select();
}

OOMCTL_FORGET_REMOVED_CGROUPS(rss_slice_rmdir, rss_slices);
