// SPDX-License-Identifier: GPL-2.0
/*
 * oom_timing - time the OOM path of one memcg, for make bench.
 *
 * For every OOM kill in the memcg whose cgroup id the loader sets:
 *  - scan_ns: oom_scan_tasks(), fentry to fexit: the victim selection loop,
 *    bpf_oom_evaluate_task() and whatever policy is attached to it included
 *    (select_bad_process() is inlined into out_of_memory(); oom_scan_tasks()
 *    is the loop it calls, a function of its own in the BTF);
 *  - oom_ns: out_of_memory(), fentry to fexit (the scan, the OOM report,
 *    the kill);
 *  - relief_ns: from the first memcg reclaim at memory.max (the charge that
 *    crossed the limit: try_to_free_mem_cgroup_pages() on that memcg) to
 *    the victim's exit (sched_process_exit fires after exit_mm(), so its
 *    memory is back).
 * OOMs are serialised by oom_lock, and only one hog charges the memcg at a
 * time, so one control record is enough.
 *
 * bench_noop is an fmod_ret program that does nothing (NO_BPF_POLICY): the
 * cost of having any program on the hook. The loader loads it on request.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "oom_timing.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bench_ctl);
} bench_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BENCH_MAX_SAMPLES);
	__type(key, __u32);
	__type(value, struct bench_sample);
} bench_samples SEC(".maps");

static __always_inline struct bench_ctl *ctl(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&bench_ctl, &zero);
}

/* The control record if @memcg is the timed one, else NULL. */
static __always_inline struct bench_ctl *timed(struct mem_cgroup *memcg)
{
	struct bench_ctl *c = ctl();

	if (!c || !memcg || BPF_CORE_READ(memcg, css.cgroup, kn, id) != c->memcg_id)
		return NULL;
	return c;
}

SEC("fentry/try_to_free_mem_cgroup_pages")
int BPF_PROG(bench_cross, struct mem_cgroup *memcg)
{
	struct bench_ctl *c = timed(memcg);

	if (c && !c->cross_ns && !c->victim_tgid)
		c->cross_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("fentry/out_of_memory")
int BPF_PROG(bench_oom_enter, struct oom_control *oc)
{
	struct bench_ctl *c = timed(BPF_CORE_READ(oc, memcg));

	if (!c)
		return 0;
	c->ooms++;
	c->killed = 0;
	c->scans = 0;
	c->scan_ns = 0;
	c->oom_start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("fentry/oom_scan_tasks")
int BPF_PROG(bench_scan_enter, struct oom_control *oc)
{
	struct bench_ctl *c = timed(BPF_CORE_READ(oc, memcg));

	if (c)
		c->scan_start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("fexit/oom_scan_tasks")
int BPF_PROG(bench_scan_exit, struct oom_control *oc)
{
	__u64 now = bpf_ktime_get_ns();
	struct bench_ctl *c = timed(BPF_CORE_READ(oc, memcg));

	if (c && c->scan_start_ns) {
		c->scan_ns += now - c->scan_start_ns;
		c->scans++;
		c->scan_start_ns = 0;
	}
	return 0;
}

SEC("fentry/oom_kill_process")
int BPF_PROG(bench_kill, struct oom_control *oc, const char *message)
{
	struct bench_ctl *c = timed(BPF_CORE_READ(oc, memcg));
	struct bench_sample *s;
	__u32 idx;

	if (!c)
		return 0;
	idx = c->n;
	s = bpf_map_lookup_elem(&bench_samples, &idx);
	if (!s) {
		c->lost++;
		return 0;
	}
	s->scan_ns = c->scan_ns;
	s->scans = c->scans;
	s->oom_ns = 0;
	s->relief_ns = 0;
	s->tgid = BPF_CORE_READ(oc, chosen, tgid);
	c->victim_idx = idx;
	c->victim_tgid = s->tgid;
	c->killed = 1;
	c->n = idx + 1;
	return 0;
}

SEC("fexit/out_of_memory")
int BPF_PROG(bench_oom_exit, struct oom_control *oc, bool ret)
{
	__u64 now = bpf_ktime_get_ns();
	struct bench_ctl *c = timed(BPF_CORE_READ(oc, memcg));
	struct bench_sample *s;
	__u32 idx;

	if (!c || !c->killed)
		return 0;
	idx = c->victim_idx;
	s = bpf_map_lookup_elem(&bench_samples, &idx);
	if (s)
		s->oom_ns = now - c->oom_start_ns;
	c->killed = 0;
	return 0;
}

/* The victim's thread group leader exits after its memory is released. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(bench_exit, struct task_struct *task)
{
	struct bench_ctl *c = ctl();
	struct bench_sample *s;
	__u32 idx;

	if (!c || !c->victim_tgid || task->pid != c->victim_tgid)
		return 0;
	idx = c->victim_idx;
	s = bpf_map_lookup_elem(&bench_samples, &idx);
	if (s && c->cross_ns)
		s->relief_ns = bpf_ktime_get_ns() - c->cross_ns;
	c->cross_ns = 0;
	c->victim_tgid = 0;
	return 0;
}

SEC("fmod_ret/bpf_oom_evaluate_task")
int BPF_PROG(bench_noop, struct task_struct *task, struct oom_control *oc)
{
	return 0;	/* NO_BPF_POLICY */
}
