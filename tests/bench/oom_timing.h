/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oom_timing.h - what tests/bench/oom_timing.bpf.c records for each memcg
 * OOM kill and what tests/bench/oom-timing.c reads back.
 */
#ifndef OOMCTL_BENCH_OOM_TIMING_H
#define OOMCTL_BENCH_OOM_TIMING_H

#define BENCH_MAX_SAMPLES 1024

/* Set by the loader, then kept up to date by the programs. */
struct bench_ctl {
	__u64 memcg_id;		/* cgroup id of the memcg whose OOMs are timed */
	__u32 n;		/* samples recorded (one per kill) */
	__u32 victim_idx;	/* the sample the pending victim's exit completes */
	__u32 victim_tgid;	/* the last victim, until its exit; 0: none */
	__u32 killed;		/* the current out_of_memory() killed */
	__u32 scans;		/* oom_scan_tasks() calls in this out_of_memory() */
	__u32 pad;
	__u64 cross_ns;		/* the first reclaim at memory.max; 0: none pending */
	__u64 oom_start_ns;	/* this out_of_memory()'s entry */
	__u64 scan_start_ns;
	__u64 scan_ns;		/* the current out_of_memory()'s scans, summed */
	__u64 ooms;		/* out_of_memory() calls for the memcg */
	__u64 lost;		/* kills beyond BENCH_MAX_SAMPLES */
};

/* One memcg OOM kill. */
struct bench_sample {
	__u64 scan_ns;		/* oom_scan_tasks(): choosing the victim */
	__u64 oom_ns;		/* out_of_memory(), entry to return */
	__u64 relief_ns;	/* first reclaim at memory.max to the victim's exit */
	__u32 tgid;		/* the victim */
	__u32 scans;		/* oom_scan_tasks() calls (1 in a memcg OOM) */
};

#endif
