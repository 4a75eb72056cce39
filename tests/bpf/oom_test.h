/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by tests/bpf/oom_test.bpf.c and tests/tools/oomtest-load.c: the
 * test program's modes and the counters the loader reads back.
 */
#ifndef OOM_TEST_H
#define OOM_TEST_H

enum oom_test_mode {
	OOM_TEST_NONE,		/* always NO_BPF_POLICY; only names the policy */
	OOM_TEST_PRIO,		/* lowest cgroup priority wins (the RFC's test) */
	OOM_TEST_SELECT_PID,	/* SELECT target_pid, NO_BPF_POLICY for the rest */
	OOM_TEST_NEXT,		/* NEXT for every task */
	OOM_TEST_ABORT,		/* ABORT at the first task */
	OOM_TEST_BOGUS,		/* a value outside the enum for every task */
	/* Hostile policies: the worst the hook allows (tests/vm/hostile.bats) */
	OOM_TEST_SELECT_ALL,	/* SELECT every task */
	OOM_TEST_ALTERNATE,	/* ABORT, SELECT, NEXT, bogus: one per OOM, in turn */
	OOM_TEST_SLOW,		/* bpf_loop() of `loops` iterations per task */
	OOM_TEST_KFUNC_ODD,	/* the kfuncs with odd sizes and odd tasks */
	OOM_TEST_NEGATIVE,	/* -1 (and other out-of-range values) per task */
};

/* What OOM_TEST_BOGUS returns: not a verdict, so it means NO_BPF_POLICY. */
#define OOM_TEST_BOGUS_VERDICT 42

/* OOM_TEST_SLOW's default iterations per task: bpf_loop()'s maximum. */
#define OOM_TEST_SLOW_LOOPS (1 << 23)

struct oom_test_stats {
	unsigned long long invocations;	/* bpf_set_policy_name() calls */
	unsigned long long evaluated;	/* bpf_oom_evaluate_task() calls */
	unsigned long long selected;	/* BPF_EVAL_SELECT returned */
	unsigned long long failures;	/* oom:select_bad_process_end */
	unsigned long long protected;	/* offered init or a kernel thread */
	unsigned long long overruns;	/* failures with result=overrun */
};

#define OOM_TEST_NAME_MAX 32
#define OOM_TEST_MAX_CGROUPS 64

#endif
