// SPDX-License-Identifier: GPL-2.0
/*
 * sleepers - start many small sleeping processes, for OOM scans over many
 * tasks.
 *
 *   sleepers [--adj N] [--ready FILE] [--fork [--touch KIB]
 *            [--into DIR [--groups K]]] N
 *
 * Sets its oom_score_adj (inherited by the processes), starts N processes
 * that sleep until killed, creates FILE once all N exist (and, with --fork,
 * have done what they were told), and sleeps until killed itself
 * (cgroup.kill ends them all).
 *
 * Each process is a process of its own (its own thread group and pid, one
 * more task for the OOM killer's for_each_process() scan to visit), but by
 * default it shares the parent's memory (clone(CLONE_VM) without
 * CLONE_THREAD), so it costs the kernel a task and a kernel stack only, not
 * page tables: 5,000 of them fit in a 256M VM. --fork makes ordinary
 * fork()ed processes instead, each with its own mm (copy-on-write), which
 * then:
 *  - with --into DIR, starts in the cgroup DIR/gI, I being its number
 *    (0 to N-1) modulo K (--groups, default 1): the caller makes DIR/g0
 *    ... DIR/g(K-1). Round robin, so the tasks of one cgroup are not next
 *    to each other in the kernel's task list (a global OOM's scan order; a
 *    memcg OOM's goes cgroup by cgroup anyway). Forked straight into it
 *    (clone3() with CLONE_INTO_CGROUP): moving a process after the fact
 *    waits for an RCU grace period each time (cgroup_threadgroup_rwsem),
 *    minutes for 5,000 of them under TCG;
 *  - with --touch KIB, writes KIB KiB of private anonymous memory of its own
 *    (charged to its cgroup), so that it has an RSS of its own, as a real
 *    process does.
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
#include <limits.h>
#include <stdint.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* struct clone_args of <linux/sched.h>, up to .cgroup (CLONE_ARGS_SIZE_VER2) */
struct sleepers_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

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

/*
 * A forked sleeper's set-up: its memory. Tells the parent on @fd: 'y' done,
 * 'n' failed (and says why on stderr).
 */
static void forked(long i, long touch_kib, int fd)
{
	char ok = 'y';

	if (touch_kib) {
		size_t len = (size_t)touch_kib * 1024;
		char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED) {
			fprintf(stderr, "sleepers: process %ld: mmap: %m\n", i + 1);
			ok = 'n';
		} else {
			for (size_t off = 0; off < len; off += 4096)
				mem[off] = 1;
		}
	}
	if (write(fd, &ok, 1) != 1 || ok != 'y')
		_exit(1);
	close(fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "adj", required_argument, NULL, 'a' },
		{ "ready", required_argument, NULL, 'r' },
		{ "fork", no_argument, NULL, 'f' },
		{ "touch", required_argument, NULL, 't' },
		{ "into", required_argument, NULL, 'i' },
		{ "groups", required_argument, NULL, 'g' },
		{ 0 }
	};
	const char *ready = NULL, *into = NULL;
	long adj = 0, n, touch_kib = 0, groups = 0;
	int c, fd, use_fork = 0, sync[2];
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
		case 't':
			if (parse_long(optarg, 1, 1024 * 1024, &touch_kib)) {
				fprintf(stderr, "sleepers: bad --touch '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			into = optarg;
			break;
		case 'g':
			if (parse_long(optarg, 1, 100000, &groups)) {
				fprintf(stderr, "sleepers: bad --groups '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || parse_long(argv[optind], 1, 100000, &n)) {
		fprintf(stderr, "usage: sleepers [--adj N] [--ready FILE] "
			"[--fork [--touch KIB] [--into DIR [--groups K]]] N\n");
		return 2;
	}
	if ((touch_kib || into) && !use_fork) {
		fprintf(stderr, "sleepers: --touch and --into need --fork (processes with their own mm)\n");
		return 2;
	}
	if (groups && !into) {
		fprintf(stderr, "sleepers: --groups needs --into\n");
		return 2;
	}
	if (!groups)
		groups = 1;
	if (use_fork && pipe(sync)) {
		perror("sleepers: pipe");
		return 1;
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

		if (use_fork && into) {
			struct sleepers_clone_args ca = {
				.flags = CLONE_INTO_CGROUP,
				.exit_signal = SIGCHLD,
			};
			char path[PATH_MAX];
			int cg;

			snprintf(path, sizeof(path), "%s/g%ld", into, i % groups);
			cg = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (cg < 0) {
				fprintf(stderr, "sleepers: process %ld: %s: %m\n", i + 1, path);
				return 1;
			}
			ca.cgroup = (uint64_t)cg;
			/* No stack given: the child goes on on a copy of ours, as with fork(). */
			pid = syscall(SYS_clone3, &ca, sizeof(ca));
			if (pid == 0) {
				close(sync[0]);
				forked(i, touch_kib, sync[1]);
			}
			close(cg);
		} else if (use_fork) {
			pid = fork();
			if (pid == 0) {
				close(sync[0]);
				forked(i, touch_kib, sync[1]);
			}
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

	if (use_fork) {
		/* Every process has set itself up (or said it could not). */
		close(sync[1]);
		for (long done = 0; done < n;) {
			char buf[256];
			ssize_t got = read(sync[0], buf, sizeof(buf));

			if (got <= 0) {
				if (got < 0 && errno == EINTR)
					continue;
				fprintf(stderr, "sleepers: %ld of %ld processes set up, then %s\n",
					done, n, got ? strerror(errno) : "end of file");
				return 1;
			}
			for (ssize_t k = 0; k < got; k++)
				if (buf[k] != 'y') {
					fprintf(stderr, "sleepers: a process failed to set itself up\n");
					return 1;
				}
			done += got;
		}
		close(sync[0]);
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
