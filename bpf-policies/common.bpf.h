/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.bpf.h - BPF code every oomctl policy shares: the maps oomctl reads
 * (config, state), the program that names the policy, the kill and failure
 * trackers, and the helpers that decide eligibility and compute the kernel's
 * badness score. A policy includes this once and adds its evaluate program.
 *
 * A policy defines, before including this file:
 *   static void policy_scan_start(void);  reset its per-scan state
 */
#ifndef OOMCTL_COMMON_BPF_H
#define OOMCTL_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "oomctl.h"

char LICENSE[] SEC("license") = "GPL";

/* pahole 1.24 emits no kfunc declarations into vmlinux.h. */
extern void set_oom_policy_name(struct oom_control *oc, const char *name,
				size_t name__sz) __ksym;

/*
 * Kernel constants that are macros, hence not in BTF: include/uapi/linux/
 * oom.h, include/linux/sched/coredump.h, and x86's page size.
 */
#define OOM_SCORE_ADJ_MIN	(-1000)
#define MMF_OOM_SKIP		21
#define OOMCTL_PAGE_SHIFT	12

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_config);
} oomctl_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oomctl_state);
} oomctl_state SEC(".maps");

/* Per-scan state. OOM handling is serialised by oom_lock, so plain globals
 * are enough; bpf_set_policy_name() starts every out_of_memory().
 */
static bool scan_selected;

static __always_inline struct oomctl_state *state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&oomctl_state, &zero);
}

static __always_inline struct oomctl_config *config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&oomctl_config, &zero);
}

/*
 * Would the kernel kill @task if we SELECTed it? Mirrors oom_badness()'s
 * LONG_MIN cases: no mm, oom_score_adj -1000, an mm already given up on
 * (MMF_OOM_SKIP, also checked on the task's signal->oom_mm so that a victim
 * still dying is never picked again), in the middle of vfork(). The kernel
 * would turn such a SELECT into NEXT anyway; checking here keeps the
 * policy's own idea of its best candidate in step with the kernel's.
 */
static __always_inline bool oomctl_eligible(struct task_struct *task)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	struct mm_struct *oom_mm;

	if (!mm)
		return false;
	if (BPF_CORE_READ(task, signal, oom_score_adj) == OOM_SCORE_ADJ_MIN)
		return false;
	if (BPF_CORE_READ(mm, flags) & (1UL << MMF_OOM_SKIP))
		return false;
	oom_mm = BPF_CORE_READ(task, signal, oom_mm);
	if (oom_mm && (BPF_CORE_READ(oom_mm, flags) & (1UL << MMF_OOM_SKIP)))
		return false;
	if (BPF_CORE_READ(task, vfork_done) &&
	    BPF_CORE_READ(task, real_parent, mm) == mm)
		return false;
	return true;
}

/* get_mm_counter() is percpu_counter_read_positive() of the same counter. */
#define mm_counter(mm, member) ({					\
	long __v = BPF_CORE_READ(mm, rss_stat[member].count);		\
	__v > 0 ? __v : 0;						\
})

/*
 * oom_badness() for an eligible task: rss + swap entries + page tables in
 * pages, plus oom_score_adj in units of totalpages / 1000. Used where the
 * policy must rank tasks the way the kernel would, because a heuristic
 * (NO_BPF_POLICY) task can never replace a SELECTed one.
 */
static __always_inline long oomctl_badness(struct task_struct *task,
					   struct oom_control *oc)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	long adj = BPF_CORE_READ(task, signal, oom_score_adj);
	long points;

	points = mm_counter(mm, MM_FILEPAGES) + mm_counter(mm, MM_ANONPAGES) +
		 mm_counter(mm, MM_SHMEMPAGES) + mm_counter(mm, MM_SWAPENTS) +
		 (BPF_CORE_READ(mm, pgtables_bytes.counter) >> OOMCTL_PAGE_SHIFT);
	return points + adj * (long)(BPF_CORE_READ(oc, totalpages) / 1000);
}

static __always_inline int oomctl_select(void)
{
	struct oomctl_state *s;

	if (!scan_selected) {
		scan_selected = true;
		s = state();
		if (s)
			__sync_fetch_and_add(&s->stats.selections, 1);
	}
	return BPF_EVAL_SELECT;
}

static void policy_scan_start(void);

SEC("fentry/bpf_set_policy_name")
int BPF_PROG(oomctl_name, struct oom_control *oc)
{
	struct oomctl_config *cfg = config();
	struct oomctl_state *s = state();

	scan_selected = false;
	policy_scan_start();
	if (s)
		__sync_fetch_and_add(&s->stats.invocations, 1);
	/* A map value is writable memory, as the kfunc's buffer must be. */
	if (cfg)
		set_oom_policy_name(oc, cfg->name, sizeof(cfg->name));
	return 0;
}

/*
 * The entry of @map for @kn's cgroup or for its nearest ancestor with one
 * (a cgroup's kernfs directory's parent is its parent cgroup's), or NULL.
 * Every policy keyed by cgroup v2 id follows the tree this way.
 */
static __always_inline void *lookup_cgroup_up(void *map, struct kernfs_node *kn)
{
	for (int i = 0; i < OOMCTL_MAX_DEPTH && kn; i++) {
		__u64 id = BPF_CORE_READ(kn, id);
		void *v = bpf_map_lookup_elem(map, &id);

		if (v)
			return v;
		kn = BPF_CORE_READ(kn, parent);
	}
	return NULL;
}

static __always_inline struct kernfs_node *task_cgroup_kn(struct task_struct *task)
{
	return BPF_CORE_READ(task, cgroups, dfl_cgrp, kn);
}

/*
 * OOMCTL_FORGET_REMOVED_CGROUPS(prog, map) defines a program that deletes a
 * cgroup's entry from @map when the cgroup is removed, so that a map keyed
 * by cgroup id holds live cgroups only and never fills with history. Ids
 * are never reused, so a late delete cannot hit a newer cgroup; oomctl
 * re-checks that the cgroup still exists after each update it makes, which
 * covers an rmdir racing with it.
 */
#define OOMCTL_FORGET_REMOVED_CGROUPS(prog, map)			\
SEC("tp_btf/cgroup_rmdir")						\
int BPF_PROG(prog, struct cgroup *cgrp, const char *path)		\
{									\
	__u64 id = BPF_CORE_READ(cgrp, kn, id);				\
									\
	bpf_map_delete_elem(&map, &id);					\
	return 0;							\
}

/*
 * select_bad_process_end fires under oom_lock, so the window needs no
 * atomicity beyond the counter that oomctl may read at any time.
 */
SEC("tp_btf/select_bad_process_end")
int BPF_PROG(oomctl_fail, struct oom_control *oc)
{
	struct oomctl_state *s = state();
	__u64 now = bpf_ktime_get_boot_ns();
	const __u64 window = OOMCTL_FAIL_WINDOW_S * 1000000000ULL;
	struct oomctl_failwin *w;

	if (!s)
		return 0;
	__sync_fetch_and_add(&s->stats.failures, 1);
	w = &s->failwin;
	if (!w->start_ns || now - w->start_ns >= window) {
		/* The old window counts as "previous" only if it just ended. */
		w->prev_count = w->start_ns && now - w->start_ns < 2 * window ?
				w->count : 0;
		w->start_ns = now;
		w->count = 0;
	}
	w->count++;
	w->last_ns = now;
	return 0;
}

/*
 * Every kill goes through oom_kill_process() with the victim in oc->chosen
 * and the name in force in oc->policy_name: record both, so that oomctl can
 * show which name the kernel really printed.
 */
SEC("fentry/oom_kill_process")
int BPF_PROG(oomctl_kill, struct oom_control *oc, const char *message)
{
	struct oomctl_state *s = state();
	struct task_struct *victim = BPF_CORE_READ(oc, chosen);
	struct oomctl_victim *v;

	if (!s)
		return 0;
	v = &s->last_victim;
	v->seq = __sync_add_and_fetch(&s->stats.kills, 1);
	v->pid = BPF_CORE_READ(victim, tgid);
	v->cgroup_id = BPF_CORE_READ(victim, cgroups, dfl_cgrp, kn, id);
	BPF_CORE_READ_STR_INTO(&v->comm, victim, comm);
	bpf_probe_read_kernel_str(v->policy_name, sizeof(v->policy_name),
				  oc->policy_name);
	return 0;
}

#endif /* OOMCTL_COMMON_BPF_H */
