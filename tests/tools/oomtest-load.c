// SPDX-License-Identifier: GPL-2.0
/*
 * oomtest-load - load and attach tests/bpf/oom_test.bpf.c for the kernel
 * series' VM tests, print "attached", hold it until SIGTERM or SIGINT, then
 * print the program's counters and detach.
 *
 *   oomtest-load [--mode none|prio|select-pid|next|abort|bogus|select-all|
 *                 alternate|slow|kfunc-odd|negative] [--pid PID] [--loops N]
 *                [--name NAME] [--prio CGROUP_DIR=PRIO]...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "oom_test.h"
#include "oom_test.skel.h"
#include "cgroup_id.h"

static int parse_mode(const char *s)
{
	static const char *const names[] = {
		[OOM_TEST_NONE] = "none", [OOM_TEST_PRIO] = "prio",
		[OOM_TEST_SELECT_PID] = "select-pid", [OOM_TEST_NEXT] = "next",
		[OOM_TEST_ABORT] = "abort", [OOM_TEST_BOGUS] = "bogus",
		[OOM_TEST_SELECT_ALL] = "select-all", [OOM_TEST_ALTERNATE] = "alternate",
		[OOM_TEST_SLOW] = "slow", [OOM_TEST_KFUNC_ODD] = "kfunc-odd",
		[OOM_TEST_NEGATIVE] = "negative",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "prio", required_argument, NULL, 'P' },
		{ "loops", required_argument, NULL, 'l' },
		{ 0 }
	};
	const char *prios[OOM_TEST_MAX_CGROUPS];
	int nprios = 0, mode = OOM_TEST_NONE, pid = 0, c, sig, err = 1;
	unsigned long loops = OOM_TEST_SLOW_LOOPS;
	const char *name = NULL;
	struct oom_test_bpf *skel;
	sigset_t set;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			mode = parse_mode(optarg);
			if (mode < 0) {
				fprintf(stderr, "oomtest-load: bad mode '%s'\n", optarg);
				return 2;
			}
			break;
		case 'p':
			pid = atoi(optarg);
			break;
		case 'n':
			name = optarg;
			break;
		case 'l':
			loops = strtoul(optarg, NULL, 10);
			break;
		case 'P':
			if (nprios == OOM_TEST_MAX_CGROUPS)
				return 2;
			prios[nprios++] = optarg;
			break;
		default:
			return 2;
		}
	}

	skel = oom_test_bpf__open();
	if (!skel) {
		perror("oomtest-load: open");
		return 1;
	}
	skel->rodata->mode = mode;
	skel->rodata->target_pid = pid;
	skel->rodata->loops = loops;
	if (name) {
		memset(skel->data->policy_name, 0, sizeof(skel->data->policy_name));
		strncpy(skel->data->policy_name, name,
			sizeof(skel->data->policy_name) - 1);
	}
	if (oom_test_bpf__load(skel)) {
		fprintf(stderr, "oomtest-load: load failed\n");
		goto out;
	}
	for (int i = 0; i < nprios; i++) {
		char *path = strdup(prios[i]), *eq = strrchr(path, '=');
		__u64 id;
		__u32 prio;

		if (!eq || cgroup_id((*eq = 0, path), &id)) {
			fprintf(stderr, "oomtest-load: bad --prio '%s'\n", prios[i]);
			free(path);
			goto out;
		}
		prio = strtoul(eq + 1, NULL, 10);
		free(path);
		if (bpf_map__update_elem(skel->maps.cg_prio, &id, sizeof(id),
					 &prio, sizeof(prio), BPF_ANY)) {
			perror("oomtest-load: map update");
			goto out;
		}
	}

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (oom_test_bpf__attach(skel)) {
		fprintf(stderr, "oomtest-load: attach failed\n");
		goto out;
	}
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);

	printf("invocations=%llu evaluated=%llu selected=%llu failures=%llu protected=%llu "
	       "overruns=%llu\n",
	       skel->bss->stats.invocations, skel->bss->stats.evaluated,
	       skel->bss->stats.selected, skel->bss->stats.failures,
	       skel->bss->stats.protected, skel->bss->stats.overruns);
	err = 0;
out:
	oom_test_bpf__destroy(skel);
	return err;
}
