// SPDX-License-Identifier: GPL-2.0
/*
 * sleepers - start many small sleeping processes, for OOM scans over many
 * tasks.
 *
 *   sleepers [--adj N] [--ready FILE] [--fork] N
 *
 * Sets its oom_score_adj (inherited by the processes), starts N processes
 * that sleep until killed, creates FILE once all N exist, and sleeps until
 * killed itself (cgroup.kill ends them all).
 *
 * Each process is a process of its own (its own thread group and pid, one
 * more task for the OOM killer's for_each_process() scan to visit), but by
 * default it shares the parent's memory (clone(CLONE_VM) without
 * CLONE_THREAD), so it costs the kernel a task and a kernel stack only, not
 * page tables: 5,000 of them fit in a 256M VM. --fork makes ordinary
 * fork()ed processes instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tool.h"

/* Each clone()d process's user stack: it only calls pause() forever. */
#define STACK_SIZE 4096

/*
 * Runs on the parent's memory and TLS, on a tiny stack: no libc at all, a
 * raw pause() that only returns when a handler ran (there are none). A libc
 * call could go through the dynamic linker's lazy binding, whose resolver
 * saves the vector registers on the stack and overflows it (seen: segfault
 * in ld-linux).
 */
static int sleeper(void *arg)
{
	(void)arg;
	for (;;) {
		long ret = SYS_pause;

		__asm__ volatile("syscall" : "+a"(ret) : : "rcx", "r11", "memory");
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "adj", required_argument, NULL, 'a' },
		{ "ready", required_argument, NULL, 'r' },
		{ "fork", no_argument, NULL, 'f' },
		{ 0 }
	};
	const char *ready = NULL;
	long adj = 0, n;
	int c, fd, use_fork = 0;
	char *stacks = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (parse_long(optarg, -1000, 1000, &adj)) {
				fprintf(stderr, "sleepers: bad --adj '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r':
			ready = optarg;
			break;
		case 'f':
			use_fork = 1;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || parse_long(argv[optind], 1, 100000, &n)) {
		fprintf(stderr, "usage: sleepers [--adj N] [--ready FILE] [--fork] N\n");
		return 2;
	}

	if (set_oom_score_adj("sleepers", adj))
		return 1;

	/* Those that end are reaped at once (no zombies). */
	signal(SIGCHLD, SIG_IGN);
	if (!use_fork) {
		stacks = mmap(NULL, (size_t)n * STACK_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (stacks == MAP_FAILED) {
			perror("sleepers: mmap");
			return 1;
		}
	}
	for (long i = 0; i < n; i++) {
		pid_t pid;

		if (use_fork) {
			pid = fork();
			if (pid == 0)
				for (;;)
					pause();
		} else {
			pid = clone(sleeper, stacks + (i + 1) * STACK_SIZE,
				    CLONE_VM | SIGCHLD, NULL);
		}
		if (pid < 0) {
			fprintf(stderr, "sleepers: process %ld of %ld: %s\n", i + 1, n,
				strerror(errno));
			return 1;
		}
	}

	if (ready) {
		fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			perror("sleepers: ready file");
			return 1;
		}
		close(fd);
	}
	for (;;)
		pause();
}
