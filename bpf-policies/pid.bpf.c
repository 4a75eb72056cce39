// SPDX-License-Identifier: GPL-2.0
/*
 * pid - a set of target processes (thread-group ids). The listed, eligible
 * task with the highest kernel badness dies; when none is eligible every
 * task is left to the kernel heuristic (NO_BPF_POLICY), never aborted.
 */
#include "common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOMCTL_MAX_PIDS);
	__type(key, __u32);	/* tgid */
	__type(value, __u32);	/* 1 */
} pid_targets SEC(".maps");

static bool have_best;
static long best_points;

static void policy_scan_start(void)
{
	have_best = false;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(pid_eval, struct task_struct *task, struct oom_control *oc)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	long points;

	/* Unlisted tasks compete by the heuristic until a listed one is
	 * SELECTed; after that the kernel ignores them anyway.
	 */
	if (!bpf_map_lookup_elem(&pid_targets, &tgid))
		return NO_BPF_POLICY;
	if (!oomctl_eligible(task))
		return NO_BPF_POLICY;
	points = oomctl_badness(task, oc);
	if (have_best && points <= best_points)
		return BPF_EVAL_NEXT;
	have_best = true;
	best_points = points;
	return oomctl_select();
}

/*
 * Forget a process once its whole thread group has exited (do_exit() has
 * already decremented signal->live for this task), so that a recycled pid
 * is never a target by accident.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(pid_exit, struct task_struct *task)
{
	__u32 tgid;

	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	bpf_map_delete_elem(&pid_targets, &tgid);
	return 0;
}
