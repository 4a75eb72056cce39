// SPDX-License-Identifier: GPL-2.0
/*
 * Test policy for the kernel series: one program per hook, its behaviour
 * chosen by `mode` before load (see oom_test.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "oom_test.h"

char LICENSE[] SEC("license") = "GPL";

/* include/linux/sched.h; #defines do not reach BTF */
#define PF_KTHREAD 0x00200000

/* pahole 1.24 emits no kfunc declarations into vmlinux.h */
extern void set_oom_policy_name(struct oom_control *oc, const char *name,
				size_t name__sz) __ksym;
extern int bpf_oom_task_info(struct task_struct *task, __u64 totalpages,
			     struct bpf_oom_task_info *info) __ksym;

const volatile int mode = OOM_TEST_NONE;
const volatile int target_pid;
const volatile __u32 loops = OOM_TEST_SLOW_LOOPS;

/* OOM_TEST_ALTERNATE: the verdict of this OOM, from invocations. */
static int alternate_verdict;

/* Big enough for the odd sizes OOM_TEST_KFUNC_ODD passes. */
char odd_name[64] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";

/* Writable, since the kfunc's buffer must be: the verifier checks both. */
char policy_name[OOM_TEST_NAME_MAX] = "oom_test";

struct oom_test_stats stats;

/* Lowest priority selected in the current scan (OOMs are serialised). */
static __u32 scan_min_prio;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OOM_TEST_MAX_CGROUPS);
	__type(key, __u64);	/* cgroup v2 id */
	__type(value, __u32);	/* priority: lower dies first */
} cg_prio SEC(".maps");

SEC("fentry/bpf_set_policy_name")
int BPF_PROG(name_policy, struct oom_control *oc)
{
	__u64 n = __sync_fetch_and_add(&stats.invocations, 1);

	scan_min_prio = (__u32)-1;
	/*
	 * A switch, not a static const table: clang 14 gives a function's
	 * static .rodata array a BTF offset the kernel refuses, and without
	 * BTF the bpf_loop() callback of the slow mode cannot load.
	 */
	switch (n & 3) {
	case 0:
		alternate_verdict = BPF_EVAL_ABORT;
		break;
	case 1:
		alternate_verdict = BPF_EVAL_SELECT;
		break;
	case 2:
		alternate_verdict = BPF_EVAL_NEXT;
		break;
	default:
		alternate_verdict = OOM_TEST_BOGUS_VERDICT;
		break;
	}
	set_oom_policy_name(oc, policy_name, sizeof(policy_name));
	if (mode == OOM_TEST_KFUNC_ODD) {
		/* Sizes of 1, 17 and 64 bytes, and an empty name: cut, kept. */
		set_oom_policy_name(oc, odd_name, 1);
		set_oom_policy_name(oc, odd_name, 17);
		set_oom_policy_name(oc, odd_name, sizeof(odd_name));
		odd_name[0] = 0;
		set_oom_policy_name(oc, odd_name, sizeof(odd_name));
		odd_name[0] = '0';
	}
	return 0;
}

/* OOM_TEST_SLOW's loop body: as little as can be, as often as allowed. */
static long spin(__u32 i, void *ctx)
{
	return 0;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(evaluate, struct task_struct *task, struct oom_control *oc)
{
	__u64 cgid;
	__u32 *prio;
	int ret = NO_BPF_POLICY;

	__sync_fetch_and_add(&stats.evaluated, 1);
	if (BPF_CORE_READ(task, tgid) == 1 ||
	    (BPF_CORE_READ(task, flags) & PF_KTHREAD))
		__sync_fetch_and_add(&stats.protected, 1);

	switch (mode) {
	case OOM_TEST_PRIO:
		cgid = BPF_CORE_READ(task, cgroups, dfl_cgrp, kn, id);
		prio = bpf_map_lookup_elem(&cg_prio, &cgid);
		if (!prio) {
			ret = BPF_EVAL_NEXT;
			break;
		}
		if (*prio < scan_min_prio) {
			scan_min_prio = *prio;
			ret = BPF_EVAL_SELECT;
		} else {
			ret = BPF_EVAL_NEXT;
		}
		break;
	case OOM_TEST_SELECT_PID:
		if (BPF_CORE_READ(task, tgid) == target_pid)
			ret = BPF_EVAL_SELECT;
		break;
	case OOM_TEST_NEXT:
		ret = BPF_EVAL_NEXT;
		break;
	case OOM_TEST_ABORT:
		ret = BPF_EVAL_ABORT;
		break;
	case OOM_TEST_BOGUS:
		ret = OOM_TEST_BOGUS_VERDICT;
		break;
	case OOM_TEST_SELECT_ALL:
		ret = BPF_EVAL_SELECT;
		break;
	case OOM_TEST_ALTERNATE:
		ret = alternate_verdict;
		break;
	case OOM_TEST_SLOW:
		bpf_loop(loops, spin, NULL, 0);
		ret = BPF_EVAL_NEXT;
		break;
	case OOM_TEST_KFUNC_ODD: {
		struct bpf_oom_task_info info = {};

		/* The task, its leader, its parent (even init's swapper): all fine. */
		bpf_oom_task_info(task, 0, &info);
		bpf_oom_task_info(task, ~0ULL, &info);
		bpf_oom_task_info(task->group_leader, oc->totalpages, &info);
		bpf_oom_task_info(task->real_parent, oc->totalpages, &info);
		ret = info.ineligible ? BPF_EVAL_NEXT : BPF_EVAL_SELECT;
		break;
	}
	case OOM_TEST_NEGATIVE:
		ret = (BPF_CORE_READ(task, pid) & 1) ? -1 : 0x7fffffff;
		break;
	}
	if (ret == BPF_EVAL_SELECT)
		__sync_fetch_and_add(&stats.selected, 1);
	return ret;
}

SEC("tp_btf/select_bad_process_end")
int BPF_PROG(selection_failed, struct oom_control *oc)
{
	__sync_fetch_and_add(&stats.failures, 1);
	if (oc->bpf_overrun)
		__sync_fetch_and_add(&stats.overruns, 1);
	return 0;
}
